"""The exercises at the end of the lesson "Common claims, measured" (``posenc_lab/lessons/claims/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import math

import numpy as np

from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.claims import compute as compute_claims
from posenc_lab.lessons.claims import measure as core
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice, Param

#: the least-squares fit of [PE(p), PE(k), 1] errs by more than this on dimensions 0 and 1 at every
#: setting of the Sinusoids view (1.1 to 1.9 measured; tests/test_claim_verdicts.py sweeps the range)
FIT_ERROR_ABOVE = 1.0

#: the skills the exercises practise (the lesson's ``skills``)
SKILLS = {"t5_table": "Size T5's position table"}
#: the table question: T5's settings and training length (T5's own: 32, 128, 512)
T5_TABLE_BUCKETS = (16, 32, 64)
T5_TABLE_DISTANCES = (64, 128, 256)
T5_TABLE_TRAINED = (256, 512, 1024, 2048)


def _t5_model(buckets: int, max_distance: int) -> str:
    return (
        "T5"
        if (buckets, max_distance) == (compute_claims.T5_BUCKETS, compute_claims.T5_MAX_DISTANCE)
        else ("A T5-style model")
    )


def _t5_table_choices(buckets: int, max_distance: int, trained: int) -> tuple[Choice, ...]:
    # a learned scalar per bucket and head: as many per head as the lesson's measure counts buckets
    widths = core.t5_bucket_widths(buckets, max_distance)
    own = _t5_model(buckets, max_distance) == "T5"
    return (
        Choice(
            f"{widths.n_buckets}, one per bucket, whatever the length",
            f"T5 buckets the offset. Per direction: {compute_claims.t5_layout(widths, max_distance)}. The table is "
            "shared by the layers." + (" The Biases view measures the bucket widths." if own else ""),
            right=True,
        ),
        Choice(
            f"2 x {trained} - 1 = {2 * trained - 1}, one per possible offset",
            "That is an unclipped table of every offset, which would grow with the length; T5 never indexes "
            "by the raw offset.",
        ),
        Choice(
            f"2k + 1 = {2 * max_distance + 1} for a clipping distance k = {max_distance}",
            "That is Shaw et al.'s clipped table with one entry per offset up to k. T5 uses "
            f"{buckets} buckets of growing width instead.",
        ),
        Choice(
            "None: T5 uses the sinusoidal encoding",
            "T5 has no position vectors at all; it adds a learned scalar per bucket and head to the logits "
            "(Raffel et al. 2019, sec. 2.1).",
        ),
    )


EXERCISES = (
    MultipleChoice(
        key="claims_equivariance",
        title="Shuffle the words",
        question=(
            "Self-attention without positions gets the rows of $X$ in a new order, $PX$. Which statement is exact?"
        ),
        latex=r"\mathrm{Attn}(X) = \mathrm{softmax}\!\left(\frac{XW_Q (XW_K)^\top}{\sqrt{d}}\right) XW_V",
        choices=(
            Choice(
                "$\\mathrm{Attn}(PX) = P\\,\\mathrm{Attn}(X)$: the same outputs, in the new order.",
                "The scores become $P S P^\\top$ and softmax works row by row, so each output follows its input "
                "row. That is equivariance; the Attention and order view measures it at rounding level.",
                right=True,
            ),
            Choice(
                "$\\mathrm{Attn}(PX) = \\mathrm{Attn}(X)$: attention is permutation-invariant.",
                "Row t of $\\mathrm{Attn}(PX)$ belongs to the word now at t, not to the word that stood there "
                "before; the view measures differences of the size of the outputs themselves.",
            ),
            Choice(
                "Neither: the outputs change in a way that depends on the order.",
                "Then attention could tell 'dog bites man' from 'man bites dog' on its own, and no positional "
                "encoding would be needed. Without one, only the order of the outputs changes.",
            ),
            Choice(
                "The outputs are unchanged only when the sequence is causal (masked).",
                "A causal mask is itself tied to the order (each query sees the keys before it), so with a mask "
                "even equivariance breaks; without one the outputs are permuted, not unchanged.",
            ),
        ),
        hint="Write the scores of PX as a product and ask what softmax does to a row.",
    ),
    MultipleChoice(
        key="claims_linear_shift",
        title="Linear in what?",
        question="For the sinusoidal encoding, which of these is true?",
        latex=r"\sin(a + b) = \sin a\cos b + \cos a\sin b",
        choices=(
            Choice(
                "For each offset k a matrix $M_k$ gives $PE_{p+k} = M_k\\,PE_p$ for every p.",
                "With k fixed, cos b and sin b are constants, so the formula is linear in $PE_p$. No one matrix "
                "maps the pair $[PE_p, PE_k]$ to $PE_{p+k}$, though: with k free the formula multiplies entries "
                "of $PE_p$ by entries of $PE_k$ (bilinear). The Sinusoids view fits the best linear map of the "
                "pair and leaves most of the variance unexplained.",
                right=True,
            ),
            Choice(
                "$PE_{p+k} = PE_p + PE_k$, since angles add when positions add.",
                "At p = k = 0 that would give $PE_0 = 2\\,PE_0$, yet $PE_0$ has cosines equal to 1. Angles add; "
                "sines and cosines of them do not.",
            ),
            Choice(
                "One matrix W maps the concatenation $[PE_p, PE_k]$ to $PE_{p+k}$, fitted once for all p and k.",
                "A linear map cannot form the products sin a cos b. The least-squares fit in the Sinusoids view "
                f"errs by more than {FIT_ERROR_ABOVE:g} on dimensions 0 and 1, the fastest, at every setting.",
            ),
            Choice(
                "$PE_{10} - PE_5 = PE_5 - PE_0$, which is what 'relative' means.",
                "Equal steps along a circle are not equal vectors; the view measures a difference of more than 1 "
                "on dimension 0 of a correct sinusoid.",
            ),
        ),
        hint="Hold b fixed in the angle-addition formula. What is left is a function of sin a and cos a only.",
    ),
    MultipleChoice(
        key="claims_deberta_scale",
        title="Three terms, one scale",
        question=(
            "DeBERTa adds three attention terms (content to content, content to position, position to content), "
            "each a dot product of d-vectors with unit-variance entries and uncorrelated with the others. By "
            "what must the sum be divided so that the logits have unit variance, as in ordinary attention?"
        ),
        choices=(
            Choice(
                "$\\sqrt{3d}$",
                "Each term has variance d and uncorrelated variances add: 3d in all, standard deviation "
                "$\\sqrt{3d}$. DeBERTa's eq. 4 divides by exactly this (He et al. 2020).",
                right=True,
            ),
            Choice(
                "$\\sqrt{d}$, as in every Transformer",
                "That is right for one dot product. For the sum of three the Biases view measures a standard "
                "deviation of about 1.7, i.e. $\\sqrt{3}$.",
            ),
            Choice(
                "$3d$",
                "Variance is the square of the spread: dividing by 3d would shrink the logits to a standard "
                "deviation of about $1/\\sqrt{3d}$, far below 1.",
            ),
            Choice(
                "$3\\sqrt{d}$",
                "That would be right if the three terms always moved together (perfectly correlated). They do "
                "not, so their spreads add in squares, not directly.",
            ),
        ),
        hint="Variances of uncorrelated terms add. What is the variance of one term?",
    ),
    MultipleChoice(
        key="claims_t5_table",
        title="How big is T5's table?",
        question=lambda buckets, max_distance, trained: (
            f"{_t5_model(buckets, max_distance)} (num_buckets = {buckets}, max_distance = {max_distance}) is trained "
            f"on sequences of {trained} tokens. How many learned relative-position numbers does one attention head "
            "have?"
        ),
        choices=_t5_table_choices,
        hint="The number of buckets is a setting of T5, not a function of the training length.",
        params=(
            Param("buckets", T5_TABLE_BUCKETS, compute_claims.T5_BUCKETS),
            Param("max_distance", T5_TABLE_DISTANCES, compute_claims.T5_MAX_DISTANCE),
            Param("trained", T5_TABLE_TRAINED, 512),
        ),
        skill="t5_table",
    ),
)


# class-mode polls ("predict before you see it"), at the lesson's default settings, computed when asked

#: the sinusoids view's defaults: d_model 128, base 10000, positions 0..99
SIN_WIDTH, SIN_BASE, SIN_N = 128, 10000.0, 100
FAST_OPTIONS = (
    "The first ones (dimensions 0 and 1)",
    f"The last ones (dimensions {SIN_WIDTH - 2} and {SIN_WIDTH - 1})",
    "All change at the same speed",
)
#: the equal-differences test as it is usually written: positions 0, 5 and 10
DIFF_K, DIFF_CLOSE = 5, 0.1
DIFF_OPTIONS = (
    "Equal, up to rounding",
    f"Close: off by less than {DIFF_CLOSE:g}",
    f"Far off: by {DIFF_CLOSE:g} or more somewhere",
)
#: drawn at this on a log axis (exact zeros), as the lesson does
FLOOR = 1e-17


def _differences():
    return compute_claims.differences(SIN_WIDTH, SIN_BASE, DIFF_K)


def _differences_answer() -> float:
    worst = float(_differences().equal_differences.max())
    if worst < compute_claims.ROUNDING:
        return 0.0
    return 1.0 if worst < DIFF_CLOSE else 2.0


def _differences_reveal(answer: float) -> str:
    r = _differences()
    k = DIFF_K
    return (
        f"**{DIFF_OPTIONS[int(answer)]}**: off by up to {r.equal_differences.max():.2f}, in dimension "
        f"{int(np.argmax(r.equal_differences))}. Yet one rotation M_{k} takes PE[0] to PE[{k}] and PE[{k}] to "
        f"PE[{2 * k}] to within {r.rotation.max():.0e}. Each sin/cos pair moves along a circle, and two equal turns "
        "do not give two equal straight steps: the test checks a property the sinusoid never had."
    )


def _differences_figure():
    r = _differences()
    k = DIFF_K
    fig = figures.line_chart(
        np.arange(SIN_WIDTH),
        {
            "equal differences": np.maximum(r.equal_differences, FLOOR),
            f"one rotation M_{k}": np.maximum(r.rotation, FLOOR),
        },
        title=f"Two checks of a correct sinusoid, d_model = {SIN_WIDTH}, k = {k} (exact zeros drawn at {FLOOR:g})",
        x_title="dimension",
        y_title="|error| (log scale)",
        x_name="dimension",
        value_name="error",
        value_format=".1e",
        log_y=True,
        height=420,
    )
    fig.update_yaxes(exponentformat="power")
    return fig


def _dim0():
    return compute_claims.dim0(SIN_N, SIN_WIDTH, SIN_BASE)


def _dim0_answer() -> float:
    counts, _ = _dim0()
    return float(counts.changes)


def _dim0_reveal(answer: float) -> str:
    counts, _ = _dim0()
    return (
        f"**{answer:.0f}** sign changes in {counts.steps} steps, one every {counts.steps / counts.changes:.2f} "
        "steps, not one per step. Dimension 0 is sin(p): its angle grows by 1 radian per position, and a sine "
        "keeps its sign for π radians, so it runs for three or four positions before it flips."
    )


def _dim0_misconceptions() -> tuple[tuple[float, str], ...]:
    """The tutorials' claim, a flip at every step; and one flip per wave of 2π, where sin(p)
    has two."""
    counts, _ = _dim0()
    return (
        (float(counts.steps), "a flip at every position"),
        (float(math.floor(counts.steps / (2 * math.pi))), "one flip per wave (every 2π)"),
    )


def _dim0_figure():
    _, shown = _dim0()
    fig = figures.line_chart(
        np.arange(shown.size),
        {"PE[p, 0] = sin(p)": shown},
        title=f"Dimension 0 of the sinusoid at positions 0 to {shown.size - 1}",
        x_title="position p",
        y_title="PE[p, 0]",
        x_name="position",
        value_name="PE",
        styles={"PE[p, 0] = sin(p)": {"mode": "lines+markers", "size": 8}},
        height=380,
    )
    fig.add_hline(y=0, line=dict(color="#777", dash="dot"))
    return fig


def _wavelengths() -> np.ndarray:
    """(D/2,) wavelength of each sin/cos pair, in positions."""
    return compute_claims.wavelengths(SIN_WIDTH, SIN_BASE)


def _fast_answer() -> float:
    lam = _wavelengths()
    if np.allclose(lam, lam[0]):
        return 2.0
    # the fastest pair has the shortest wavelength
    return 0.0 if int(np.argmin(lam)) == 0 else 1.0


def _fast_reveal(answer: float) -> str:
    lam = _wavelengths()
    return (
        f"**{FAST_OPTIONS[int(answer)]}.** Pair 0 repeats every {lam[0]:.2f} positions (1 radian per position); "
        f"the last pair every {lam[-1]:,.0f}. The frequency base^(-2i/d) falls as the index i grows, so the low "
        "dimensions carry the high frequencies: the claim that they carry the low ones has it backwards."
    )


def _fast_figure():
    lam = _wavelengths()
    fig = figures.line_chart(
        np.arange(lam.size),
        {"wavelength": lam},
        title=f"Wavelength of each sin/cos pair, d_model = {SIN_WIDTH} (log scale)",
        x_title="pair index i (dimensions 2i and 2i + 1)",
        y_title="wavelength (positions)",
        x_name="pair",
        value_name="wavelength",
        value_format=",.1f",
        log_y=True,
        height=400,
    )
    fig.update_yaxes(exponentformat="power")
    return fig


POLLS = (
    Poll(
        key="poll-claims-dim0-flips",
        prompt=(
            "Tutorials say dimension 0 of the sinusoidal encoding flips sign at every position. Over positions 0 to "
            f"{SIN_N - 1}, how many times does it actually change sign?"
        ),
        answer=_dim0_answer,
        reveal=_dim0_reveal,
        figure=_dim0_figure,
        misconceptions=_dim0_misconceptions,
        tolerance=2.0,
        low=0.0,
        high=float(SIN_N - 1),
        integer=True,
        unit="sign changes",
        view=f"claims?view=sinusoids&n={SIN_N}",
    ),
    Poll(
        key="poll-claims-fast-dims",
        prompt=(
            f"In the sinusoidal encoding with d_model = {SIN_WIDTH}, which dimensions change fastest from one "
            "position to the next?"
        ),
        options=FAST_OPTIONS,
        answer=_fast_answer,
        reveal=_fast_reveal,
        figure=_fast_figure,
        view=f"claims?view=sinusoids&d_model={SIN_WIDTH}",
    ),
    Poll(
        key="poll-claims-equal-differences",
        scale=True,
        prompt=(
            f"A common check of a sinusoidal encoding: PE[{2 * DIFF_K}] - PE[{DIFF_K}] should equal "
            f"PE[{DIFF_K}] - PE[0]. On a correct sinusoid (d_model = {SIN_WIDTH}), how far apart are the two sides?"
        ),
        options=DIFF_OPTIONS,
        answer=_differences_answer,
        reveal=_differences_reveal,
        figure=_differences_figure,
        view=f"claims?view=sinusoids&d_model={SIN_WIDTH}&offset={DIFF_K}",
    ),
)
