"""The exercises at the end of the lesson "Sinusoidal encoding" (``posenc_lab/lessons/sinusoidal/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import math

import numpy as np

import posenc
from posenc_lab import figures
from posenc_lab.classroom.poll import Poll, Sketch
from posenc_lab.ui import compute
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice, Numeric, Param, close_to, too_far

#: the skills the exercises practise (the lesson's ``skills``)
SKILLS = {"pe_entry": "Compute an entry of the table", "wavelength": "Find a pair's wavelength"}
#: the PE entry's parameters: position, dimension, d_model (base 10000)
PE_POSITIONS = tuple(range(1, 21))
PE_DIMS = (0, 1, 2, 3)
WIDTHS = (64, 128, 256, 512)
#: a PE entry is checked to 1e-3, and a nudge names a wrong turn within 2e-3 of its value
PE_TOLERANCE, PE_NUDGE = 1e-3, 2e-3
#: how far the answer keeps from 0 and ±1: a boundary looks like a guess
PE_EDGE = 0.05


def _angle(p: int, pair: int, d_model: int) -> float:
    # theta = p / 10000^{2i/d}
    return p / 10000.0 ** (2 * pair / d_model)


def _wave(dim: int):
    # dimension 2i holds the sine, 2i + 1 the cosine
    return math.sin if dim % 2 == 0 else math.cos


def _pe_answer(p: int, dim: int, d_model: int) -> float:
    # PE_{(p, 2i)} = sin(p / 10000^{2i/d}), PE_{(p, 2i+1)} = cos(...)
    return float(posenc.sinusoidal(p + 1, d_model)[p, dim])


def _pe_turns(p: int, dim: int, d_model: int) -> dict[str, float]:
    """The values the known wrong turns give (each nudge's own value)."""
    theta, other = _angle(p, dim // 2, d_model), math.cos if dim % 2 == 0 else math.sin
    return {
        "degrees": _wave(dim)(math.radians(theta)),
        "swapped": other(theta),
        "pair": _wave(dim)(_angle(p, dim, d_model)),  # the dimension taken for the pair index
        "origin": _wave(dim)(0.0),
    }


def _pe_fair(p: int, dim: int, d_model: int) -> bool:
    answer = _wave(dim)(_angle(p, dim // 2, d_model))
    turns = _pe_turns(p, dim, d_model)
    if dim < 2:  # pair 0: taking the dimension for the pair changes nothing, no turn to tell
        turns.pop("pair")
    values = list(turns.values())
    # a student who took a wrong turn is never told "right", and one given value never
    # matches two turns: each nudge names the one taken
    clear = all(abs(v - answer) > PE_TOLERANCE + PE_NUDGE for v in values)
    apart = all(abs(a - b) > 2 * PE_NUDGE for i, a in enumerate(values) for b in values[i + 1 :])
    return clear and apart and PE_EDGE < abs(answer) < 1 - PE_EDGE


def _pe_question(p: int, dim: int, d_model: int) -> str:
    index = "2i" if dim % 2 == 0 else "2i+1"
    return (
        f"For $d_{{model}} = {d_model}$ and base 10000, what is $PE_{{(p={p},\\,{index}={dim})}}$, "
        f"dimension {dim} of position {p}?"
    )


def _pe_hint(p: int, dim: int, d_model: int) -> str:
    return (
        f"Dimension {dim} is {'2i' if dim % 2 == 0 else '2i + 1'} with pair i = {dim // 2}: the angle is "
        f"p / 10000^(2i/d), in radians, and an even dimension takes its sine, an odd one its cosine."
    )


def _pe_explain(answer: float, p: int, dim: int, d_model: int) -> str:
    pair = dim // 2
    wave = "sin" if dim % 2 == 0 else "cos"
    theta = _angle(p, pair, d_model)
    return (
        f"Dimension {dim} is pair i = {pair}, its {'sine' if wave == 'sin' else 'cosine'}: "
        f"PE({p}, {dim}) = {wave}({p} / 10000^({2 * pair}/{d_model})) = {wave}({theta:.4f}) = {answer:.4f}. "
        f"The angle is in radians; pair {pair} turns {theta / p:.4f} radians per position."
    )


def _pe_nudge(given: float, answer: float, p: int, dim: int, d_model: int) -> str | None:
    turns = _pe_turns(p, dim, d_model)
    wave, other = ("sin", "cos") if dim % 2 == 0 else ("cos", "sin")
    if abs(given) > 1:
        return "Every PE value is a sine or a cosine, so it lies between -1 and 1."
    if close_to(given, turns["degrees"], PE_NUDGE):
        return f"Did you use degrees? The angle p / 10000^(2i/d) = {_angle(p, dim // 2, d_model):.4f} is in radians."
    if close_to(given, turns["swapped"], PE_NUDGE):
        return (
            f"That is {other} of the angle. Dimension {dim} is {'even' if dim % 2 == 0 else 'odd'}: it holds the "
            f"{'sine' if wave == 'sin' else 'cosine'}."
        )
    if dim >= 2 and close_to(given, turns["pair"], PE_NUDGE):
        return (
            f"That takes i = {dim}. Dimension {dim} belongs to pair i = {dim // 2}: the exponent is {dim - dim % 2}/d."
        )
    if close_to(given, turns["origin"], PE_NUDGE):
        return f"That is position 0 ({wave} 0 = {turns['origin']:.0f}). Here p = {p}."
    return too_far(given, answer) + " Compute the angle p / 10000^(2i/d) with the pair i of the dimension, in radians."


def _wavelength_answer(pair: int, d_model: int) -> float:
    # lambda_i = 2 pi base^{2i/d}
    return float(posenc.wavelengths(d_model)[pair])


def _wavelength_tolerance(pair: int, d_model: int) -> float:
    # the third significant digit: 100 for the slowest pair of 512 (62,000-odd positions)
    return 10.0 ** (math.floor(math.log10(2 * math.pi * 10000.0 ** (2 * pair / d_model))) - 2)


def _wavelength_turns(pair: int, d_model: int) -> dict[str, float]:
    """The values the known wrong turns give (each nudge's own value)."""
    turns = {
        "base": 2 * math.pi * 10000.0,
        "no_two_pi": 10000.0 ** (2 * pair / d_model),
        "half_exponent": 2 * math.pi * 10000.0 ** (pair / d_model),
        "previous_pair": 2 * math.pi * 10000.0 ** (2 * (pair - 1) / d_model),
    }
    if pair + 1 < d_model // 2:  # the slowest pair's next would be i = d/2: 2π · base itself
        turns["next_pair"] = 2 * math.pi * 10000.0 ** (2 * (pair + 1) / d_model)
    return turns


def _wavelength_fair(pair: int, d_model: int) -> bool:
    if not 1 <= pair < d_model // 2:
        return False
    tolerance = _wavelength_tolerance(pair, d_model)
    values = [2 * math.pi * 10000.0 ** (2 * pair / d_model), *_wavelength_turns(pair, d_model).values()]
    # every wrong turn lies clear of the answer and of each other, so each nudge is the true one
    return all(abs(a - b) > 3 * tolerance for i, a in enumerate(values) for b in values[i + 1 :])


def _wavelength_question(pair: int, d_model: int) -> str:
    return (
        f"For $d_{{model}} = {d_model}$ and base 10000, after how many positions does sin/cos pair "
        f"$i = {pair}$ (dimensions {2 * pair} and {2 * pair + 1}) repeat?"
    )


def _wavelength_explain(answer: float, pair: int, d_model: int) -> str:
    return (
        f"λ_{pair} = 2π · 10000^({2 * pair}/{d_model}) = 2π · {10000.0 ** (2 * pair / d_model):,.4g} = "
        f"{answer:,.2f} positions. Pair 0 repeats every 2π ≈ 6.28 positions and the slowest pair, "
        f"i = {d_model // 2 - 1}, every {2 * math.pi * 10000.0 ** ((d_model - 2) / d_model):,.0f}: the slow "
        "pairs tell the beginning of a long text from its end."
    )


def _wavelength_nudge(given: float, answer: float, pair: int, d_model: int) -> str | None:
    turns, tolerance = _wavelength_turns(pair, d_model), _wavelength_tolerance(pair, d_model)
    if close_to(given, turns["base"], tolerance):
        return f"That is 2π · base, as if i were d/2. Pair i = {pair}: the exponent is {2 * pair}/{d_model}, not 1."
    if close_to(given, turns["no_two_pi"], tolerance):
        return "That is 10000^(2i/d), the inverse of the frequency. A full turn takes 2π times as many positions."
    if close_to(given, turns["half_exponent"], tolerance):
        return f"That uses i/d = {pair}/{d_model} as the exponent. It is 2i/d = {2 * pair}/{d_model}."
    if any(close_to(given, turns[k], tolerance) for k in ("next_pair", "previous_pair") if k in turns):
        return f"That is a neighbouring pair's wavelength, one pair off. Use i = {pair} itself."
    return too_far(given, answer) + " Use λᵢ = 2π · 10000^(2i/d) with the question's i and d."


EXERCISES = (
    Numeric(
        key="sin_pe_value",
        title="One entry of the table",
        question=_pe_question,
        # one formula a line, aligned at "=": side by side they wrap mid-formula on a phone
        latex=r"\begin{aligned} PE_{(p,\,2i)} &= \sin\!\left(\frac{p}{10000^{2i/d}}\right) \\ "
        r"PE_{(p,\,2i+1)} &= \cos\!\left(\frac{p}{10000^{2i/d}}\right) \end{aligned}",
        answer=_pe_answer,
        tolerance=PE_TOLERANCE,
        hint=_pe_hint,
        explain=_pe_explain,
        nudge=_pe_nudge,
        params=(Param("p", PE_POSITIONS, 1), Param("dim", PE_DIMS, 0), Param("d_model", WIDTHS, 512)),
        fair=_pe_fair,
        skill="pe_entry",
    ),
    Numeric(
        key="sin_wavelength",
        title="A pair's wavelength",
        question=_wavelength_question,
        latex=r"\lambda_i = 2\pi \cdot 10000^{2i/d}",
        answer=_wavelength_answer,
        tolerance=_wavelength_tolerance,
        hint="A pair repeats when its angle p / 10000^(2i/d) has grown by 2π.",
        explain=_wavelength_explain,
        nudge=_wavelength_nudge,
        fmt="%.2f",
        step=0.01,
        params=(Param("pair", tuple(range(1, 256)), 255), Param("d_model", WIDTHS, 512)),
        fair=_wavelength_fair,
        skill="wavelength",
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


def _turns_misconceptions() -> tuple[tuple[float, str], ...]:
    """The counts the known wrong turns give: every pair, a half wave within the context
    taken for a whole one, and the wavelength without its 2π (the wavelength exercise's nudge)."""
    lam = posenc.wavelengths(TURNS_WIDTH)
    return (
        (float(lam.size), "every pair turns"),
        (float((lam / 2 <= TURNS_CONTEXT).sum()), "half a wave taken as a wave"),
        (float((lam / (2 * math.pi) <= TURNS_CONTEXT).sum()), "wavelength without the 2π"),
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
        misconceptions=_turns_misconceptions,
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
