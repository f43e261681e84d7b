"""The exercises at the end of the lesson "ALiBi and KERPLE" (``lessons/alibi.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import math

import numpy as np

import posenc
from ui.exercise_kinds import Numeric, close_to, too_far

ALIBI_HEADS = 12
ALIBI_CONTEXT = 1024
#: Press et al.'s c: the largest power of two not above H
ALIBI_C = 2 ** int(math.log2(ALIBI_HEADS))


def _slope_text(slope: float) -> str:
    return f"1/{1 / slope:.3g}"


def _furthest_answer() -> float:
    # the head with the smallest slope pays least per step, so it reaches furthest
    slopes = posenc.alibi_slopes(ALIBI_HEADS)
    return float(np.argmin(slopes) + 1)


def _furthest_explain(answer: float) -> str:
    slopes = posenc.alibi_slopes(ALIBI_HEADS)
    reach = posenc.alibi_span(slopes, context=ALIBI_CONTEXT, mass=0.9)
    h = int(answer)
    return (
        f"Head {h} has the smallest slope, {_slope_text(slopes[h - 1])}, and holds 90% of its attention "
        f"within {reach[h - 1]:.0f} positions (equal content scores, T = {ALIBI_CONTEXT}). Head {ALIBI_HEADS}, "
        f"an extra head, has slope {_slope_text(slopes[-1])} and reaches only {reach[-1]:.0f}."
    )


def _furthest_nudge(given: float, answer: float) -> str | None:
    slopes = posenc.alibi_slopes(ALIBI_HEADS)
    if not 1 <= given <= ALIBI_HEADS:
        return f"Heads are numbered 1 to {ALIBI_HEADS}."
    h = int(given)
    if h > ALIBI_C:
        return (
            f"Head {h} is one of the {ALIBI_HEADS - ALIBI_C} extra heads: they take every other slope of the "
            f"{2 * ALIBI_C}-head schedule, "
            f"steep ones (its slope is {_slope_text(slopes[h - 1])}). The gentlest slope lies elsewhere."
        )
    return (
        f"Head {h} has slope {_slope_text(slopes[h - 1])}; a smaller slope costs less per step and reaches "
        f"further. Which head of the {ALIBI_C}-head schedule has the smallest?"
    )


def _span_answer() -> float:
    # smallest d with sum_{j<=d} e^{-m j} >= 0.9 sum_{j<T} e^{-m j}
    return float(posenc.alibi_span([2.0**-8], context=ALIBI_CONTEXT, mass=0.9)[0])


def _span_nudge(given: float, answer: float) -> str | None:
    if close_to(given, math.log(10) * 256, 3):
        return (
            "That is the approximation ln(1/(1 − p)) / m, made for mT ≫ 1. Here mT = 1024/256 = 4, so the end of "
            "the sequence cuts the tail: use the exact formula."
        )
    return too_far(given, answer) + " Put m = 1/256, T = 1024 and p = 0.9 into the exact formula."


EXERCISES = (
    Numeric(
        key="alibi_furthest_head",
        title="Which head looks furthest?",
        question=(
            f"ALiBi with H = {ALIBI_HEADS} heads (not a power of two). Which head, numbered 1 to {ALIBI_HEADS}, "
            "looks furthest back when content scores are equal?"
        ),
        latex=r"m_h = \begin{cases} 2^{-8h/c} & h = 1, \dots, c \\"
        r" 2^{-8\,(2(h - c) - 1)/(2c)} & h = c + 1, \dots, H \end{cases}"
        r"\qquad c = 2^{\lfloor \log_2 H \rfloor}",
        answer=_furthest_answer,
        tolerance=0.0,
        hint=f"The head that pays the least per step of distance reaches furthest. Here c = {ALIBI_C}.",
        explain=_furthest_explain,
        nudge=_furthest_nudge,
        integer=True,
        fmt="%d",
        step=1,
    ),
    Numeric(
        key="alibi_span_head8",
        title="How far is far?",
        question=(
            "The gentlest head of an 8-head model has slope m = 1/256. With equal content scores, the last "
            f"query of a causal sequence of T = {ALIBI_CONTEXT} positions: within what distance d does it hold "
            "90% of its attention?"
        ),
        latex=r"d_p = \left\lceil \frac{\ln\!\left(1 - p\,(1 - e^{-mT})\right)}{-m} \right\rceil - 1",
        answer=_span_answer,
        tolerance=2.0,
        hint="Weights fall as e^(−m d) for d = 0 … T − 1. Sum the geometric series, or use the exact formula.",
        explain=lambda answer: (
            f"d = {answer:.0f}, about half the context. The shortcut ln 10 / m ≈ {256 * math.log(10):.0f} assumes an "
            "endless past; 1024 positions cut it short."
        ),
        nudge=_span_nudge,
        fmt="%.0f",
        step=1.0,
    ),
)
