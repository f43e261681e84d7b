"""The exercises at the end of the lesson "ALiBi and KERPLE" (``posenc_lab/lessons/alibi/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import math

import numpy as np

import posenc
from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.alibi import compute as compute_alibi
from posenc_lab.lessons.alibi import figures as alibi_figures
from posenc_lab.lessons.alibi.figures import slope_label
from posenc_lab.ui.exercise_kinds import Numeric, Param, close_to, too_far

ALIBI_HEADS = 12
ALIBI_CONTEXT = 1024
#: Press et al.'s c: the largest power of two not above H
ALIBI_C = 2 ** int(math.log2(ALIBI_HEADS))


def _slope_text(slope: float) -> str:
    return f"1/{1 / slope:.3g}"


#: the skills the exercises practise (the lesson's ``skills``)
SKILLS = {"slopes": "Read ALiBi's slope schedule", "span": "Find a head's reach"}
#: head counts that are not powers of two: the extra heads are the point of the question
FURTHEST_HEADS = tuple(h for h in range(5, 16) if h & (h - 1))


def _schedule_c(heads: int) -> int:
    # Press et al.'s c: the largest power of two not above H
    return 2 ** int(math.log2(heads))


def _furthest_answer(heads: int) -> float:
    # the head with the smallest slope pays least per step, so it reaches furthest
    slopes = posenc.alibi_slopes(heads)
    return float(np.argmin(slopes) + 1)


def _furthest_explain(answer: float, heads: int) -> str:
    slopes = posenc.alibi_slopes(heads)
    reach = posenc.alibi_span(slopes, context=ALIBI_CONTEXT, mass=0.9)
    h = int(answer)
    return (
        f"Head {h} has the smallest slope, {_slope_text(slopes[h - 1])}, and holds 90% of its attention "
        f"within {reach[h - 1]:.0f} positions (equal content scores, T = {ALIBI_CONTEXT}). Head {heads}, "
        f"an extra head, has slope {_slope_text(slopes[-1])} and reaches only {reach[-1]:.0f}."
    )


def _furthest_nudge(given: float, answer: float, heads: int) -> str | None:
    slopes, c = posenc.alibi_slopes(heads), _schedule_c(heads)
    if not 1 <= given <= heads:
        return f"Heads are numbered 1 to {heads}."
    h = int(given)
    if h > c:
        return (
            f"Head {h} is one of the {heads - c} extra heads: they take every other slope of the "
            f"{2 * c}-head schedule, "
            f"steep ones (its slope is {_slope_text(slopes[h - 1])}). The gentlest slope lies elsewhere."
        )
    return (
        f"Head {h} has slope {_slope_text(slopes[h - 1])}; a smaller slope costs less per step and reaches "
        f"further. Which head of the {c}-head schedule has the smallest?"
    )


#: the span question: head slopes 1/2^k of an 8-head model, and causal lengths T
SPAN_POWERS = (5, 6, 7, 8)
SPAN_CONTEXTS = (128, 192, 256, 384, 512, 768, 1024, 1536, 2048)
#: the nudge names the shortcut within 3 positions of its value; answers are checked to 2
SPAN_NUDGE, SPAN_TOLERANCE = 3.0, 2.0


def _span_answer(power: int, context: int) -> float:
    # smallest d with sum_{j<=d} e^{-m j} >= 0.9 sum_{j<T} e^{-m j}
    return float(posenc.alibi_span([2.0**-power], context=context, mass=0.9)[0])


def _span_shortcut(power: int, context: int) -> float:
    # ln(1/(1 - p)) / m, the span of an endless past
    return math.log(10) * 2**power


def _span_fair(power: int, context: int) -> bool:
    # the shortcut must be wrong here (the end of the sequence cuts the tail), and the answer
    # no boundary: well inside the context
    exact = math.ceil(math.log(1 - 0.9 * (1 - math.exp(-context / 2**power))) / -(2.0**-power)) - 1
    return abs(_span_shortcut(power, context) - exact) > SPAN_NUDGE + SPAN_TOLERANCE + 2 and 0 < exact < context - 1


def _span_question(power: int, context: int) -> str:
    return (
        f"A head of an 8-head model has slope m = 1/{2**power}. With equal content scores, the last "
        f"query of a causal sequence of T = {context} positions: within what distance d does it hold "
        "90% of its attention?"
    )


def _span_explain(answer: float, power: int, context: int) -> str:
    return (
        f"d = ⌈ln(1 − 0.9 · (1 − e^(−{context}/{2**power}))) / (−1/{2**power})⌉ − 1 = {answer:.0f}, "
        f"{answer / context:.0%} of the context. The shortcut ln 10 / m ≈ {_span_shortcut(power, context):.0f} "
        f"assumes an endless past; {context} positions cut it short."
    )


def _span_nudge(given: float, answer: float, power: int, context: int) -> str | None:
    if close_to(given, _span_shortcut(power, context), SPAN_NUDGE):
        return (
            f"That is the approximation ln(1/(1 − p)) / m, made for mT ≫ 1. Here mT = {context}/{2**power} = "
            f"{context / 2**power:g}, so the end of the sequence cuts the tail: use the exact formula."
        )
    return too_far(given, answer) + f" Put m = 1/{2**power}, T = {context} and p = 0.9 into the exact formula."


EXERCISES = (
    Numeric(
        key="alibi_furthest_head",
        title="Which head looks furthest?",
        question=lambda heads: (
            f"ALiBi with H = {heads} heads (not a power of two). Which head, numbered 1 to {heads}, "
            "looks furthest back when content scores are equal?"
        ),
        latex=r"m_h = \begin{cases} 2^{-8h/c} & h = 1, \dots, c \\"
        r" 2^{-8\,(2(h - c) - 1)/(2c)} & h = c + 1, \dots, H \end{cases}"
        r"\qquad c = 2^{\lfloor \log_2 H \rfloor}",
        answer=_furthest_answer,
        tolerance=0.0,
        hint=lambda heads: (
            f"The head that pays the least per step of distance reaches furthest. Here c = {_schedule_c(heads)}."
        ),
        explain=_furthest_explain,
        nudge=_furthest_nudge,
        integer=True,
        fmt="%d",
        step=1,
        params=(Param("heads", FURTHEST_HEADS, ALIBI_HEADS),),
        skill="slopes",
    ),
    Numeric(
        key="alibi_span_head8",
        title="How far is far?",
        question=_span_question,
        latex=r"d_p = \left\lceil \frac{\ln\!\left(1 - p\,(1 - e^{-mT})\right)}{-m} \right\rceil - 1",
        answer=_span_answer,
        tolerance=SPAN_TOLERANCE,
        hint="Weights fall as e^(−m d) for d = 0 … T − 1. Sum the geometric series, or use the exact formula.",
        explain=_span_explain,
        nudge=_span_nudge,
        fmt="%.0f",
        step=1.0,
        params=(Param("power", SPAN_POWERS, 8), Param("context", SPAN_CONTEXTS, ALIBI_CONTEXT)),
        fair=_span_fair,
        skill="span",
    ),
)


# class-mode polls ("predict before you see it"), computed when the teacher opens or reveals them

#: the heads the steepest-head poll offers: the ends of the 8-head schedule and of the extra heads
POLL_HEADS = (1, ALIBI_C, ALIBI_C + 1, ALIBI_HEADS)
#: the own-position poll: head 1 of an 8-head model, the last query of a causal sequence
SHARE_HEADS, SHARE_SHOWN, SHARE_CONTEXT = 8, (1, 4, 8), 128


def _csv(heads: tuple[int, ...]) -> str:
    """Heads as the URL name ``show`` holds them: 1,4,8."""
    return ",".join(map(str, heads))


def _steepest_head() -> int:
    """1-based head with the largest slope of the 12-head schedule."""
    slopes, _, _ = compute_alibi.head_slopes(ALIBI_HEADS, 0, 0.0)
    return int(np.argmax(slopes)) + 1


def _steepest_answer() -> float:
    return float(POLL_HEADS.index(_steepest_head()))


def _steepest_reveal(answer: float) -> str:
    slopes, _, _ = compute_alibi.head_slopes(ALIBI_HEADS, 0, 0.0)
    head = POLL_HEADS[int(answer)]
    return (
        f"**Head {head}**, with slope m = {slope_label(slopes[head - 1])}, steeper than head 1's "
        f"{slope_label(slopes[0])}. With {ALIBI_HEADS} heads Press et al.'s rule gives heads 1 to {ALIBI_C} the "
        f"{ALIBI_C}-head schedule and the {ALIBI_HEADS - ALIBI_C} extra heads take every other slope of the "
        f"{2 * ALIBI_C}-head one, whose first is steeper than any of the {ALIBI_C}: head numbers are not sorted "
        "by slope."
    )


def _steepest_figure():
    slopes, schedule, index = compute_alibi.head_slopes(ALIBI_HEADS, 0, 0.0)
    return alibi_figures.slope_chart(slopes, schedule, index, height=420)


def _share_weights() -> np.ndarray:
    """(P, T) attention of the last causal query with equal content scores, heads SHARE_SHOWN."""
    return compute_alibi.row_weights(SHARE_HEADS, 0, 0.0, SHARE_SHOWN, SHARE_CONTEXT, SHARE_CONTEXT - 1, True)


def _share_answer() -> float:
    # head 1: w_0 = 1 / sum_{d < T} e^{-m d}, the weight on distance 0
    return float(100 * _share_weights()[0, -1])


def _share_reveal(answer: float) -> str:
    own = 100 * _share_weights()[:, -1]
    slope = posenc.alibi_slopes(SHARE_HEADS)[0]
    return (
        f"**{answer:.1f}%.** Head 1 has the steepest slope, m = {slope_label(slope)}, yet the weight falls only "
        f"by a factor e^-m = {math.exp(-slope):.2f} per step, so the query's own position keeps about "
        f"1 - e^-m = {100 * (1 - math.exp(-slope)):.1f}% and the keys behind it share the rest. Heads "
        f"{SHARE_SHOWN[1]} and {SHARE_SHOWN[2]} keep {own[1]:.1f}% and {own[2]:.1f}%: even the most local ALiBi "
        "head is not a hard window."
    )


def _share_misconceptions() -> tuple[tuple[float, str], ...]:
    """No bias at all (every one of the T keys alike), and a hard window (the whole of the
    attention on the query's own position): the two the reveal sets ALiBi between."""
    weights = _share_weights()
    return (
        (float(100 / SHARE_CONTEXT), "no bias at all: a uniform share"),
        (float(100 * weights[0].sum()), "a hard window: all on itself"),
    )


def _share_figure():
    weights = _share_weights()
    slopes = posenc.alibi_slopes(SHARE_HEADS)[[h - 1 for h in SHARE_SHOWN]]
    last = SHARE_CONTEXT - 1
    return alibi_figures.weight_chart(
        np.arange(SHARE_CONTEXT),
        {f"head {h}: m = {slope_label(m)}": w for h, m, w in zip(SHARE_SHOWN, slopes, weights, strict=True)},
        title=f"Attention of the last of {SHARE_CONTEXT} causal positions, equal content scores",
        x_title="key position j",
        x_name="key position",
        vlines={f"query i = {last}": last},
        colours=alibi_figures.slope_colours(slopes),
        height=420,
    )


#: the KERPLE poll: ALiBi with a gentle slope against KERPLE-log, the last of T causal positions
KERPLE_CONTEXT, KERPLE_SLOPE, KERPLE_LOG, KERPLE_MASS = 1024, 2.0**-6, (1.0, 1.0), 0.9
#: KERPLE-power is computed alongside (the cached function draws all three); not offered
KERPLE_POWER = (0.5, 0.5)
#: two reaches within this fraction of the larger count as about the same
SAME_REACH = 0.1


def _kerple() -> dict:
    return compute_alibi.kerple_curves(KERPLE_CONTEXT, KERPLE_SLOPE, KERPLE_LOG, KERPLE_POWER, KERPLE_MASS)


def _kerple_options() -> tuple[str, ...]:
    return (
        f"ALiBi, m = {slope_label(KERPLE_SLOPE)}",
        f"KERPLE-log, r1 = {KERPLE_LOG[0]:g}, r2 = {KERPLE_LOG[1]:g}",
        "About the same",
    )


def _kerple_answer() -> float:
    span = _kerple()["span"]
    alibi, log = span["ALiBi"], span["KERPLE-log"]
    if abs(alibi - log) <= SAME_REACH * max(alibi, log):
        return 2.0
    return 0.0 if alibi > log else 1.0


def _kerple_reveal(answer: float) -> str:
    curves = _kerple()
    span, bias = curves["span"], curves["bias"]
    near = 10
    steeper = "Yet nearby KERPLE-log penalises more" if bias["KERPLE-log"][near] < bias["ALiBi"][near] else "Nearby"
    return (
        f"**{_kerple_options()[int(answer)]}.** {KERPLE_MASS:.0%} of ALiBi's attention lies within "
        f"{span['ALiBi']} positions, KERPLE-log's within {span['KERPLE-log']} of {KERPLE_CONTEXT - 1}. {steeper}: "
        f"at distance {near} its bias is {bias['KERPLE-log'][near]:.2f} against ALiBi's {bias['ALiBi'][near]:.2f}. "
        "Its penalty grows like a logarithm, so its weights fall as a power law, which decays slower than any "
        "exponential: a long tail of far keys keeps a share."
    )


def _kerple_figure():
    curves = _kerple()
    names = dict(zip(("ALiBi", "KERPLE-log"), _kerple_options(), strict=False))
    return alibi_figures.weight_chart(
        np.arange(KERPLE_CONTEXT),
        {label: curves["weights"][name] for name, label in names.items()},
        title=f"Attention with equal content scores, last of {KERPLE_CONTEXT} causal positions",
        x_title="distance back from the query (positions)",
        x_name="distance",
        colours=[figures.PALETTE[0], figures.PALETTE[2]],
        height=420,
    )


POLLS = (
    Poll(
        key="poll-alibi-steepest-head",
        scale=True,
        prompt=(
            f"ALiBi with {ALIBI_HEADS} heads (not a power of two). Which head has the steepest slope, "
            "so looks most locally?"
        ),
        options=tuple(f"Head {h}" for h in POLL_HEADS),
        answer=_steepest_answer,
        reveal=_steepest_reveal,
        figure=_steepest_figure,
        view=f"alibi?view=slopes&heads={ALIBI_HEADS}&show={_csv(POLL_HEADS)}",
    ),
    Poll(
        key="poll-alibi-own-share",
        prompt=(
            f"In an {SHARE_HEADS}-head ALiBi model, head 1 has the steepest slope, "
            f"m = {slope_label(posenc.alibi_slopes(SHARE_HEADS)[0])}. With all content scores equal, what share "
            f"of the last query's attention (over {SHARE_CONTEXT} causal positions) stays on its own position?"
        ),
        answer=_share_answer,
        reveal=_share_reveal,
        figure=_share_figure,
        misconceptions=_share_misconceptions,
        tolerance=5.0,
        low=0.0,
        high=100.0,
        unit="%",
        view=(
            f"alibi?view=attention&heads={SHARE_HEADS}&n={SHARE_CONTEXT}&row={SHARE_CONTEXT - 1}&causal=1"
            f"&show={_csv(SHARE_SHOWN)}"
        ),
    ),
    Poll(
        key="poll-alibi-kerple-reach",
        prompt=(
            f"Equal content scores, the last of {KERPLE_CONTEXT} causal positions. Which needs the longer distance "
            f"to hold {KERPLE_MASS:.0%} of its attention: ALiBi with slope m = {slope_label(KERPLE_SLOPE)}, or "
            f"KERPLE-log with r1 = r2 = 1, whose bias is -log(1 + distance)?"
        ),
        options=_kerple_options(),
        answer=_kerple_answer,
        reveal=_kerple_reveal,
        figure=_kerple_figure,
        view=(
            f"alibi?view=kerple&n={KERPLE_CONTEXT}&m={KERPLE_SLOPE:g}&lr1={KERPLE_LOG[0]:g}&lr2={KERPLE_LOG[1]:g}"
            f"&mass={KERPLE_MASS:g}"
        ),
    ),
)
