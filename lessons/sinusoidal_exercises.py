"""The exercises at the end of the lesson "Sinusoidal encoding" (``lessons/sinusoidal.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import math

import posenc
from ui.exercise_kinds import Choice, MultipleChoice, Numeric, close_to, too_far


def _pe_answer() -> float:
    # PE_{(p, 2i)} = sin(p / 10000^{2i/d}) at p = 1, i = 0, d = 512
    return float(posenc.sinusoidal(2, 512)[1, 0])


def _pe_explain(answer: float) -> str:
    return (
        f"PE(1, 0) = sin(1 / 10000^(0/512)) = sin(1) = {answer:.4f}. The fastest pair turns "
        "1 radian per position; its wavelength is 2π ≈ 6.28 positions."
    )


def _pe_nudge(given: float, answer: float) -> str | None:
    if abs(given) > 1:
        return "Every PE value is a sine or a cosine, so it lies between -1 and 1."
    if close_to(given, math.sin(math.radians(1)), 2e-3):
        return "Too small: did you use degrees? The angle 1 / 10000⁰ = 1 is in radians."
    if close_to(given, math.cos(1), 2e-3):
        return "That is cos(1), dimension 2i + 1 = 1. Dimension 2i = 0 holds the sine."
    if close_to(given, 0.0, 2e-3):
        return "That is position 0 (sin 0 = 0). Here p = 1."
    return too_far(given, answer) + " Compute the angle p / 10000^(2i/d) with p = 1 and i = 0, in radians."


def _wavelength_answer() -> float:
    # lambda_i = 2 pi base^{2i/d} for the last pair, i = d/2 - 1 = 255
    return float(posenc.wavelengths(512)[-1])


def _wavelength_explain(answer: float) -> str:
    return (
        f"λ₂₅₅ = 2π · 10000^(510/512) = {answer:,.0f} positions. The slowest pair changes so little "
        "from one position to the next that it tells the beginning of a long text from its end."
    )


def _wavelength_nudge(given: float, answer: float) -> str | None:
    if close_to(given, 2 * math.pi * 10000, 100):
        return "That is 2π · base, as if i were d/2. The last pair is i = 255: the exponent is 510/512, not 1."
    if close_to(given, answer / (2 * math.pi), 50):
        return "That is 10000^(2i/d), the inverse of the frequency. A full turn takes 2π times as many positions."
    return too_far(given, answer) + " Use λᵢ = 2π · 10000^(2i/d) with i = 255 and d = 512."


EXERCISES = (
    Numeric(
        key="sin_pe_value",
        title="One entry of the table",
        question="For $d_{model} = 512$ and base 10000, what is $PE_{(p=1,\\,2i=0)}$, dimension 0 of position 1?",
        latex=r"PE_{(p,\,2i)} = \sin\!\left(\frac{p}{10000^{2i/d}}\right)",
        answer=_pe_answer,
        tolerance=1e-3,
        hint="With i = 0 the denominator is 10000⁰ = 1, so the angle is just p. Angles are in radians.",
        explain=_pe_explain,
        nudge=_pe_nudge,
    ),
    Numeric(
        key="sin_wavelength",
        title="The slowest wave",
        question=(
            "For $d_{model} = 512$ and base 10000, after how many positions does the **slowest** sin/cos pair "
            "(pair $i = 255$, dimensions 510 and 511) repeat?"
        ),
        latex=r"\lambda_i = 2\pi \cdot 10000^{2i/d}",
        answer=_wavelength_answer,
        tolerance=100.0,
        hint="A pair repeats when its angle p / 10000^(2i/d) has grown by 2π. The last pair has 2i/d = 510/512.",
        explain=_wavelength_explain,
        nudge=_wavelength_nudge,
        fmt="%.0f",
        step=1.0,
    ),
    MultipleChoice(
        key="sin_linear_shift",
        title="Why a linear shift helps",
        question=(
            "The paper notes that $PE_{p+k}$ is a linear function of $PE_p$: $PE_{p+k} = PE_p\\,M_k^\\top$, where "
            "$M_k$ depends on $k$ but not on $p$. Why does that help a model?"
        ),
        choices=(
            Choice(
                "One fixed matrix moves every position k steps on, so a layer can learn 'look k back' once and "
                "use it at every position.",
                "Queries and keys are linear maps of their inputs, and $M_k$ is the same for all p, so "
                "attending to an offset needs no separate rule per position: the seed of relative attention "
                "and of RoPE.",
                right=True,
            ),
            Choice(
                "It makes every position's code unique.",
                "Uniqueness comes from mixing many wavelengths, not from the linear shift: a single sine pair "
                "shifts linearly too, yet repeats every 2π·10000^(2i/d) positions.",
            ),
            Choice(
                "It lets a trained model work perfectly at any length.",
                "The vectors exist for every position, but a model trained on short inputs has never seen far "
                "positions; the Experiments lesson measures sinusoidal models degrading past their training length.",
            ),
            Choice(
                "It makes PE(p) · PE(q) zero whenever p ≠ q.",
                "The dot product is a sum of cos((p − q)ωᵢ): it peaks at p = q and falls off with ripples, it is "
                "not zero (see the Similarity view).",
            ),
        ),
        hint="Look at the Shift view: which letter is missing from M_k, and what does attention do with vectors?",
    ),
)
