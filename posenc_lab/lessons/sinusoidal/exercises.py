"""The exercises at the end of the lesson "Sinusoidal encoding" (``posenc_lab/lessons/sinusoidal/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import math

import numpy as np

import posenc
from posenc_lab import figures
from posenc_lab.classroom.poll import Poll, Sketch
from posenc_lab.ui import compute
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice, Numeric, close_to, too_far


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
                "The same matrix moves every position k steps on, so 'look k back' is learned once.",
                "Queries and keys are linear maps of their inputs, and $M_k$ is the same for all p, so a layer "
                "can learn 'look k back' once and use it at every position: attending to an offset needs no "
                "separate rule per position. That is the seed of relative attention and of RoPE.",
                right=True,
            ),
            Choice(
                "It makes every position's code unique, so no two positions can be confused.",
                "Uniqueness comes from mixing many wavelengths, not from the linear shift: a single sine pair "
                "shifts linearly too, yet repeats every 2π·10000^(2i/d) positions.",
            ),
            Choice(
                "It lets a trained model work perfectly at any length, far past its training.",
                "The vectors exist for every position, but a model trained on short inputs has never seen far "
                "positions; the Experiments lesson measures sinusoidal models degrading past their training length.",
            ),
            Choice(
                "It makes PE(p) · PE(q) zero whenever p ≠ q, so positions never interfere.",
                "The dot product is a sum of cos((p − q)ωᵢ): it peaks at p = q and falls off with ripples, it is "
                "not zero (see the Similarity view).",
            ),
        ),
        hint="Look at the Shift view: which letter is missing from $M_k$, and what does attention do with vectors?",
    ),
)


# class-mode polls

SIMILARITY_WIDTH = 128
SIMILARITY_ANCHOR = 50
SIMILARITY_OFFSET = 10
#: the measure the question names (the view's URL name ``metric``)
SIMILARITY_METRIC = "dot"
SIDE_OPTIONS = (
    f"position {SIMILARITY_ANCHOR - SIMILARITY_OFFSET}",
    f"position {SIMILARITY_ANCHOR + SIMILARITY_OFFSET}",
    "exactly equally similar",
)


def _similarity_curve() -> np.ndarray:
    # the Similarity view's curve: PE[p] . PE[50] for p = 0..100, d_model 128, base 10000
    n = 2 * SIMILARITY_ANCHOR + 1
    _, _, curve, _ = compute.sinusoid_similarity(
        n, SIMILARITY_WIDTH, 10000.0, "interleaved", SIMILARITY_METRIC, SIMILARITY_ANCHOR
    )
    return curve


def _side_answer() -> float:
    curve = _similarity_curve()
    before, after = curve[SIMILARITY_ANCHOR - SIMILARITY_OFFSET], curve[SIMILARITY_ANCHOR + SIMILARITY_OFFSET]
    # equal up to float64 rounding of a sum of 64 cosines
    if abs(before - after) <= 1e-9 * curve[SIMILARITY_ANCHOR]:
        return 2.0
    return 0.0 if before > after else 1.0


def _side_reveal(answer: float) -> str:
    curve = _similarity_curve()
    before, after = curve[SIMILARITY_ANCHOR - SIMILARITY_OFFSET], curve[SIMILARITY_ANCHOR + SIMILARITY_OFFSET]
    return (
        f"**{SIDE_OPTIONS[int(answer)].capitalize()}.** PE[40] · PE[50] = {before:.4f} and PE[60] · PE[50] = "
        f"{after:.4f} (d_model = {SIMILARITY_WIDTH}; PE[50] · PE[50] = {curve[SIMILARITY_ANCHOR]:.0f}). The dot "
        "product is a sum of cos((p − q)ωᵢ), and a cosine cannot tell +10 from −10: the encodings know how far "
        "apart two positions are, but a dot product alone cannot say which one comes first."
    )


def _side_figure():
    curve = _similarity_curve()
    return figures.line_chart(
        np.arange(curve.size),
        {"PE[p] · PE[50]": curve},
        title=f"Similarity of every position to position {SIMILARITY_ANCHOR} (d_model {SIMILARITY_WIDTH})",
        x_title="position p",
        y_title="dot product",
        x_name="position",
        value_name="dot",
        vlines={
            str(SIMILARITY_ANCHOR - SIMILARITY_OFFSET): SIMILARITY_ANCHOR - SIMILARITY_OFFSET,
            str(SIMILARITY_ANCHOR + SIMILARITY_OFFSET): SIMILARITY_ANCHOR + SIMILARITY_OFFSET,
        },
    )


TURNS_WIDTH = 512
TURNS_CONTEXT = 512


def _turns_answer() -> float:
    # a pair completes a turn within the context when its wavelength 2 pi base^{2i/d} <= the context
    return float((posenc.wavelengths(TURNS_WIDTH) <= TURNS_CONTEXT).sum())


def _turns_reveal(answer: float) -> str:
    lam = posenc.wavelengths(TURNS_WIDTH)
    return (
        f"**{answer:.0f} of {lam.size} pairs.** Wavelengths grow geometrically from 2π ≈ {lam[0]:.2f} to "
        f"{lam[-1]:,.0f} positions; pair {int(answer) - 1} repeats every {lam[int(answer) - 1]:.0f} positions, "
        f"pair {int(answer)} every {lam[int(answer)]:.0f}. The other {lam.size - int(answer)} pairs never repeat "
        f"within {TURNS_CONTEXT} positions: they rise or fall steadily, and that is what tells the beginning of "
        "the text from its end."
    )


def _turns_figure():
    lam = posenc.wavelengths(TURNS_WIDTH)
    return figures.line_chart(
        np.arange(lam.size),
        {"wavelength": lam, f"{TURNS_CONTEXT} positions": np.full(lam.size, float(TURNS_CONTEXT))},
        title=f"Wavelength of each sin/cos pair, d_model {TURNS_WIDTH} (log scale)",
        x_title="pair index i",
        y_title="wavelength (positions)",
        x_name="pair",
        value_name="wavelength",
        value_format=",.1f",
        log_y=True,
        styles={f"{TURNS_CONTEXT} positions": {"dash": "dash"}},
    )


SKETCH_WIDTH = 128
SKETCH_SPAN = 100
SKETCH_METRIC = "dot"


def _sketch_curve() -> tuple[np.ndarray, np.ndarray]:
    # the Similarity view's curve with position 0 as the anchor: PE[p] . PE[0], p = 0..100
    n = SKETCH_SPAN + 1
    _, _, curve, _ = compute.sinusoid_similarity(n, SKETCH_WIDTH, 10000.0, "interleaved", SKETCH_METRIC, 0)
    return np.arange(n, dtype=float), curve


def _sketch_reveal(_answer: float) -> str:
    _, y = _sketch_curve()
    low = int(np.argmin(y))
    return (
        f"**It drops fast, then slowly, and never comes near 0.** PE[0] · PE[p] is the sum of cos(p·ωᵢ) over the "
        f"{SKETCH_WIDTH // 2} sin/cos pairs: {y[0]:.0f} at p = 0, where every cosine is 1. The fast pairs turn away "
        f"within a few positions ({y[4]:.1f} at p = 4), the slow ones hardly move, so the sum keeps falling, "
        f"slowly and with wiggles, to {y[low]:.1f} at its lowest (p = {low}) in the first {SKETCH_SPAN} positions: "
        "nearby positions look alike, far ones less so, and none looks like position 0 again."
    )


POLLS = (
    Poll(
        key="poll-sinusoidal-left-right",
        prompt=(
            "Sinusoidal encodings, d_model = 128. Which is more similar to position 50 (by dot product): "
            "position 40 or position 60?"
        ),
        options=SIDE_OPTIONS,
        answer=_side_answer,
        reveal=_side_reveal,
        figure=_side_figure,
        view=f"sinusoidal?view=similarity&d_model={SIMILARITY_WIDTH}&anchor={SIMILARITY_ANCHOR}&metric={SIMILARITY_METRIC}",
    ),
    Poll(
        key="poll-sinusoidal-full-turns",
        prompt=(
            "d_model = 512 gives 256 sin/cos pairs. How many of them complete at least one full wave "
            "within the first 512 positions?"
        ),
        answer=_turns_answer,
        reveal=_turns_reveal,
        figure=_turns_figure,
        tolerance=10.0,
        low=0.0,
        high=256.0,
        integer=True,
        unit="pairs",
        view=f"sinusoidal?view=wavelengths&d_model={TURNS_WIDTH}&n={TURNS_CONTEXT}",
    ),
    Poll(
        key="poll-sinusoidal-sketch-similarity",
        prompt=(
            f"Sketch PE[0] · PE[p], the dot product of the sinusoidal encodings of positions 0 and p, for p from 0 "
            f"to {SKETCH_SPAN} (d_model = {SKETCH_WIDTH})."
        ),
        answer=lambda: 0.0,
        reveal=_sketch_reveal,
        tolerance=0.1,
        sketch=Sketch(
            x_title="position p",
            y_title="PE[0] · PE[p]",
            x_range=(0.0, float(SKETCH_SPAN)),
            y_range=(0.0, SKETCH_WIDTH / 2),
            curve=_sketch_curve,
        ),
        view=f"sinusoidal?view=similarity&d_model={SKETCH_WIDTH}&n={SKETCH_SPAN + 1}&anchor=0&metric={SKETCH_METRIC}",
    ),
)
