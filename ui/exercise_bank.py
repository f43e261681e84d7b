"""The exercises at the end of each lesson: questions, hints, answers and explanations.

Pure data and arithmetic, no Streamlit: ``ui.exercises`` draws them. Three kinds:

- ``MultipleChoice``: options, each with its own explanation (why it is right, or why not);
- ``Numeric``: a number to type, checked against an answer that is *computed with posenc
  when the student presses Check*, never a stored literal, within a stated tolerance;
- ``Guided``: a proof in small steps (multiple-choice or numeric), each unlocked by the last.

``BANK`` maps each lesson's path (``ui.catalog.LESSONS``) to its exercises. Every key is
unique across the bank: it names the exercise's widgets (``ex_<key>_...``) and its record
of progress.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import posenc

# kinds of exercise


@dataclass(frozen=True)
class Choice:
    text: str  # the option as shown (markdown)
    why: str  # why it is right, or why it is wrong
    right: bool = False


@dataclass(frozen=True)
class MultipleChoice:
    key: str
    title: str
    question: str  # markdown
    choices: tuple[Choice, ...]
    hint: str
    latex: str = ""

    def __post_init__(self):
        if sum(c.right for c in self.choices) != 1:
            raise ValueError(f"exercise {self.key!r}: exactly one choice must be right")

    @property
    def answer_index(self) -> int:
        return next(i for i, c in enumerate(self.choices) if c.right)


@dataclass(frozen=True)
class Pick:
    """An integer the student chooses before answering (the question depends on it)."""

    name: str
    label: str
    default: int
    min_value: int
    max_value: int


@dataclass(frozen=True)
class Numeric:
    """A number to type. The callables receive the student's picks as keyword arguments."""

    key: str
    title: str
    question: str  # markdown
    answer: Callable[..., float]  # (**picks) -> the right value, computed with posenc
    tolerance: float  # absolute: |given - answer| <= tolerance is right
    hint: str
    explain: Callable[..., str]  # (answer, **picks) -> why it is right
    nudge: Callable[..., str | None]  # (given, answer, **picks) -> a pointer, or None for too large / small
    latex: str = ""
    integer: bool = False
    fmt: str = "%.4f"  # number_input format
    step: float = 0.0001
    picks: tuple[Pick, ...] = ()
    shown: Callable[..., str] | None = None  # (**picks) -> what the student is given to work from


@dataclass(frozen=True)
class Guided:
    key: str
    title: str
    intro: str
    steps: tuple[MultipleChoice | Numeric, ...]
    conclusion: str
    latex: str = ""


Exercise = MultipleChoice | Numeric | Guided


def close_to(value: float, target: float, tolerance: float) -> bool:
    return abs(value - target) <= tolerance


def tolerance_text(ex: Numeric) -> str:
    if ex.integer:
        return "Whole number; checked exactly."
    return f"Checked to within ±{ex.tolerance:g}."


def too_far(given: float, answer: float) -> str:
    """The generic nudge: which side the answer fell on."""
    return "Too large." if given > answer else "Too small."


def numeric_feedback(ex: Numeric, given: float, picks: dict[str, int]) -> tuple[bool, str, float]:
    """Check ``given``: (right?, the explanation or the nudge, the computed answer)."""
    answer = float(ex.answer(**picks))
    if close_to(given, answer, ex.tolerance):
        return True, ex.explain(answer, **picks), answer
    nudge = ex.nudge(given, answer, **picks)
    return False, nudge or too_far(given, answer), answer


# why order matters

WHY_ORDER = (
    MultipleChoice(
        key="why_equivariant",
        title="Reorder without positions",
        question=(
            "Take *dog bites man*, reverse it (a permutation $P$) and run self-attention **without** "
            "positions. About how large is $\\max\\,|\\mathrm{Attention}(PX) - P\\,\\mathrm{Attention}(X)|$?"
        ),
        choices=(
            Choice(
                "about 1e-16",
                "$PXW_Q(PXW_K)^\\top = P\\,(XW_Q(XW_K)^\\top)\\,P^\\top$, and softmax acts row by "
                "row, so $\\mathrm{Attention}(PX) = P\\,\\mathrm{Attention}(X)$ exactly. What is left is "
                "float64 rounding: attention alone sees a set of words.",
                right=True,
            ),
            Choice(
                "about 0.5",
                "No: a visible difference would mean the reordered sentence got different outputs. Without "
                "positions every word carries the same vector wherever it stands, so the outputs are the old "
                "ones, reordered, up to rounding.",
            ),
            Choice(
                "about 1",
                "No: that would make the outputs unrelated. Reordering the rows of $X$ only reorders the rows "
                "and columns of the score matrix, so each word's output is unchanged, just moved.",
            ),
        ),
        hint="Write the scores for $PX$ and pull $P$ out on both sides. What does a row-wise softmax do to $P$?",
    ),
    MultipleChoice(
        key="why_positions_break",
        title="What positions change",
        question=("Now switch on *Add sinusoidal positions* and reorder again: the difference jumps to order 1. Why?"),
        choices=(
            Choice(
                "A position vector stays with its slot, not with its word, so after reordering each word "
                "carries a different position vector.",
                "The input becomes $PX + PE$, not $P(X + PE)$: no permutation maps the old input onto "
                "the new one, so the outputs really change. That change is the information about order.",
                right=True,
            ),
            Choice(
                "Softmax is not linear.",
                "Softmax was there without positions too, and attention was still equivariant. Equivariance "
                "comes from applying the same function to every row, linear or not.",
            ),
            Choice(
                "Adding positions brings rounding error.",
                "Rounding error is about 1e-16. A change of order 1 is a real difference between the two "
                "inputs, not noise.",
            ),
            Choice(
                "The attention weights no longer sum to 1.",
                "Each row of softmax weights sums to 1 whatever its inputs; positions do not change that.",
            ),
        ),
        hint="Which part of the input moves with the words when you reorder them, and which part stays put?",
    ),
)

# sinusoidal


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


SINUSOIDAL = (
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

# learned


def _params_answer() -> float:
    # one trainable row of d_model numbers per position 0..max_len-1
    return float(posenc.learned_table(2048, 1024).size)


def _params_nudge(given: float, answer: float) -> str | None:
    if given == 2048 + 1024:
        return "You added. The table has max_len rows, and each row holds d_model numbers."
    if given in (2048, 1024):
        return "That counts rows or columns only. The table is max_len × d_model."
    return too_far(given, answer) + " Count the entries of a max_len × d_model table."


LEARNED = (
    MultipleChoice(
        key="learned_past_max_len",
        title="Past max_len",
        question="A model with learned positions and max_len = 512 gets a text of 600 tokens. Why can't it use them?",
        choices=(
            Choice(
                "There is no row for positions 512 to 599: the table has max_len rows, and nothing was ever "
                "learned for later ones.",
                "A learned table is looked up, not computed. posenc.lookup_learned raises "
                "PositionOutOfRange; real models refuse the input or cut it to max_len.",
                right=True,
            ),
            Choice(
                "The rows past max_len are still random noise.",
                "There are no rows past max_len at all. Random noise is what the rows that do exist hold "
                "before training.",
            ),
            Choice(
                "It can: NumPy wraps index 600 around to an existing row.",
                "NumPy raises IndexError for 600 in a 512-row table; it wraps only negative indices, and "
                "table[-1] silently giving the last row is a classic bug, not a position.",
            ),
            Choice(
                "Its gradients explode on long inputs.",
                "Training has nothing to do with it: the lookup itself fails, since there is nothing to look up.",
            ),
        ),
        hint="What does the heatmap draw below the orange line, and why?",
    ),
    Numeric(
        key="learned_param_count",
        title="What the table costs",
        question="How many trainable numbers does a learned position table with max_len = 2048 and "
        "$d_{model}$ = 1024 add?",
        answer=_params_answer,
        tolerance=0.0,
        hint="One trainable vector per position, each as wide as the model.",
        explain=lambda answer: (
            f"2048 × 1024 = {answer:,.0f}. Sinusoidal, RoPE and ALiBi add none; GPT-2 small's table is "
            "1,024 × 768 = 786,432."
        ),
        nudge=_params_nudge,
        integer=True,
        fmt="%d",
        step=1,
    ),
)

# relative

T5_SETTINGS = dict(bidirectional=True, num_buckets=32, max_distance=128)


def _t5_answer() -> float:
    return float(posenc.t5_bucket(-20, **T5_SETTINGS))


def _t5_explain(answer: float) -> str:
    offsets = np.arange(-T5_SETTINGS["max_distance"], 1)
    shared = offsets[posenc.t5_bucket(offsets, **T5_SETTINGS) == int(answer)]
    inside = math.log(20 / 8) / math.log(128 / 8) * 8
    return (
        f"Bucket {answer:.0f} = 8 + ⌊log(20/8) / log(128/8) · 8⌋ = 8 + ⌊{inside:.2f}⌋. It holds the "
        f"{shared.size} offsets {shared.min()} to {shared.max()}: far apart, T5 stops telling neighbouring "
        "distances apart."
    )


def _t5_nudge(given: float, answer: float) -> str | None:
    if given == answer + 16:
        return "That is the bucket of a key 20 *after* the query. Here j − i = −20, a key before it: no + 16."
    if given == 20:
        return "Only distances below e = 8 get a bucket of their own; 20 is in the log-spaced range."
    if 8 <= given <= 15:
        return "Right range (the log-spaced buckets 8 to 15), wrong bucket: recompute the floor of the log formula."
    return "Keys before the query use buckets 0 to 15, and distances of 8 or more fall in the log-spaced 8 to 15."


RELATIVE = (
    Numeric(
        key="rel_t5_bucket",
        title="Predict a T5 bucket",
        question=(
            "T5's encoder (bidirectional, num_buckets = 32, max_distance = 128). A key 20 positions **before** "
            "the query, so $j - i = -20$: which bucket does it get?"
        ),
        latex=r"\mathrm{bucket}(r) = e + \left\lfloor \frac{\log(|r|/e)}{\log(\mathrm{max\_distance}/e)}\,(n-e)"
        r"\right\rfloor,\quad n = 16,\ e = 8",
        answer=_t5_answer,
        tolerance=0.0,
        hint=(
            "Bidirectional: n = 32 / 2 = 16 buckets per side and e = 8 exact ones. Keys before the query use "
            "buckets 0 to 15 (keys after it add n = 16). Use natural logarithms."
        ),
        explain=_t5_explain,
        nudge=_t5_nudge,
        integer=True,
        fmt="%d",
        step=1,
    ),
    MultipleChoice(
        key="rel_shaw_clip",
        title="Shaw's clipping",
        question=(
            "Shaw et al. with clipping distance K = 3. One query; a key 4 positions after it and another 40 "
            "positions after it. Which relative vectors do the two keys read?"
        ),
        choices=(
            Choice(
                "The same one, $w_3$.",
                "Both clip to +3: clip(4, −3, 3) = clip(40, −3, 3) = 3. Beyond K all keys on one side share the edge "
                "vector, so only their content can tell them apart.",
                right=True,
            ),
            Choice(
                "$w_4$ and $w_{40}$.",
                "Only 2K + 1 = 7 vectors exist, for offsets −3 to 3; larger offsets are clipped to ±3.",
            ),
            Choice(
                "$w_3$ and $w_{-3}$.",
                "Both keys come after the query (positive offsets), so both clip to +3. $w_{-3}$ serves keys "
                "3 or more positions before it.",
            ),
            Choice(
                "None: keys beyond K get no position at all.",
                "Clipping reuses the edge vector; it does not drop it. Far keys still read $w_3$.",
            ),
        ),
        hint="Apply clip(j − i, −K, K) to both offsets.",
    ),
)

# rope

ROPE_HEAD_DIM = 64
ROPE_SEED = 0


def _rope_qk() -> tuple[np.ndarray, np.ndarray]:
    # one fixed random query and key, (Dh,) each
    q, k = np.random.default_rng(ROPE_SEED).standard_normal((2, ROPE_HEAD_DIM))
    return q, k


def rope_score(m: int, n: int) -> float:
    """rope(q, m) · rope(k, n) for the fixed q and k of the guided proof."""
    q, k = _rope_qk()
    return float(posenc.rope_scores(q, k, [m], [n])[0, 0])


def _signed(value: int) -> str:
    return f"{value}".replace("-", "−")


def _shift_shown(m: int, n: int, s: int) -> str:
    return f"score({m}, {n}) = **{rope_score(m, n):.4f}**"


def _shift_answer(m: int, n: int, s: int) -> float:
    return rope_score(m + s, n + s)


def _shift_explain(answer: float, m: int, n: int, s: int) -> str:
    gap = abs(answer - rope_score(m, n))
    return (
        f"posenc.rope_scores gives score({m + s}, {n + s}) = {answer:.4f}, which differs from "
        f"score({m}, {n}) by {gap:.1e}, rounding error. In both pairs n − m = {_signed(n - m)}."
    )


def _shift_nudge(given: float, answer: float, m: int, n: int, s: int) -> str:
    return (
        f"Not {given:.4f}. Moving both positions by s = {s} leaves n − m = {_signed(n - m)} unchanged. By step 2, what "
        "does the score depend on?"
    )


def _rope_turns_answer() -> float:
    # turns = L theta_last / (2 pi), theta_last = base^{-2(Dh/2 - 1)/Dh}
    inv_freq, _ = posenc.rope_inv_freq(128)
    return float(4096 * inv_freq[-1] / (2 * math.pi))


def _rope_turns_nudge(given: float, answer: float) -> str | None:
    if close_to(given, answer * 2 * math.pi, 5e-3):
        return "That is the angle in radians. A full turn is 2π radians."
    if given > 1:
        return "Too large: the slowest pair turns by only 10000^(−126/128) ≈ 0.00012 radians per position."
    return too_far(given, answer) + " θ of the last pair is 10000^(−126/128); multiply by 4096 and divide by 2π."


ROPE = (
    Guided(
        key="rope_proof",
        title="Prove it: the score depends only on m − n",
        intro=(
            "RoPE turns pair i of the query at position m by $m\\theta_i$ and of the key at position n by "
            "$n\\theta_i$. Show, in four steps, that $q'_m \\cdot k'_n$ depends on m and n only through their "
            "difference. Each step opens when the one before is right."
        ),
        latex=r"R(\alpha) = \begin{pmatrix}\cos\alpha & -\sin\alpha\\ \sin\alpha & \cos\alpha\end{pmatrix},"
        r"\qquad q'_m \cdot k'_n = (R_m q)^\top (R_n k) = q^\top R_m^\top R_n\, k",
        steps=(
            MultipleChoice(
                key="rope_proof_1",
                title="Two rotations",
                question="For one pair, with angle θ: what is $R(m\\theta)^\\top R(n\\theta)$?",
                choices=(
                    Choice(
                        "$R((n - m)\\theta)$",
                        "The transpose of a rotation turns it back, $R(m\\theta)^\\top = R(-m\\theta)$, "
                        "and rotations compose by adding angles: $-m\\theta + n\\theta = (n - m)\\theta$.",
                        right=True,
                    ),
                    Choice(
                        "$R((m + n)\\theta)$",
                        "That would be $R(m\\theta)R(n\\theta)$. The transpose turns the first rotation "
                        "backwards: $R(m\\theta)^\\top = R(-m\\theta)$.",
                    ),
                    Choice(
                        "$R(mn\\theta)$",
                        "Composing rotations adds their angles; it never multiplies them.",
                    ),
                    Choice(
                        "the identity matrix",
                        "Only when m = n, where the two rotations cancel. In general an angle of "
                        "$(n - m)\\theta$ is left.",
                    ),
                ),
                hint="R is orthogonal: its transpose is its inverse. Which rotation undoes a rotation by α?",
            ),
            MultipleChoice(
                key="rope_proof_2",
                title="All the pairs",
                question=(
                    "$R_m$ is block diagonal: pair i gets its own 2×2 block $R(m\\theta_i)$, with a different "
                    "$\\theta_i$ per pair. What is the score $q^\\top R_m^\\top R_n\\, k$?"
                ),
                choices=(
                    Choice(
                        "$q^\\top R_{n-m}\\, k$, where $R_{n-m}$ has the blocks $R((n - m)\\theta_i)$.",
                        "Block-diagonal matrices multiply block by block, and step 1 holds in each block "
                        "with its own $\\theta_i$. m and n appear only as n − m.",
                        right=True,
                    ),
                    Choice(
                        "$q^\\top R_{n+m}\\, k$",
                        "Step 1 holds in every block: the transpose reverses the angle, so m enters with a minus sign.",
                    ),
                    Choice(
                        "It depends on m and n separately, because each pair has its own $\\theta_i$.",
                        "Different $\\theta_i$ are different speeds, but in every block the angle left is "
                        "$(n - m)\\theta_i$. A sum of functions of n − m is still a function of n − m.",
                    ),
                    Choice(
                        "$q \\cdot k$: the rotations cancel.",
                        "They cancel only when m = n. Rotations keep lengths, not the angle between two vectors "
                        "turned by different amounts.",
                    ),
                ),
                hint="Multiply two block-diagonal matrices: which blocks meet which?",
            ),
            Numeric(
                key="rope_proof_3",
                title="Measure it",
                question=(
                    "Pick two positions m, n and a shift s. A fixed random query and key (head_dim 64, seed 0) "
                    "give the score below. Predict score(m + s, n + s); Check computes it with "
                    "`posenc.rope_scores`."
                ),
                picks=(
                    Pick("m", "query position m", 5, 0, 100_000),
                    Pick("n", "key position n", 2, 0, 100_000),
                    Pick("s", "shift s", 100, 1, 100_000),
                ),
                shown=_shift_shown,
                answer=_shift_answer,
                tolerance=1e-3,
                hint="Both words move by s. Which quantity from step 2 did that leave unchanged?",
                explain=_shift_explain,
                nudge=_shift_nudge,
            ),
            MultipleChoice(
                key="rope_proof_4",
                title="What it means",
                question="What have the three steps shown?",
                choices=(
                    Choice(
                        "For given q and k, RoPE's score depends on the positions only through n − m: moving a "
                        "whole phrase changes none of its scores.",
                        "Steps 1 and 2 prove it for every q, k, m and n; step 3 measured it. An added "
                        "sinusoid lacks this (the right-hand heatmap of the *Only m − n matters* view).",
                        right=True,
                    ),
                    Choice(
                        "The score no longer says whether the key comes before or after the query.",
                        "n − m keeps its sign: $R(3\\theta)$ and $R(-3\\theta)$ are different rotations, so a key "
                        "3 before and a key 3 after the query generally get different scores.",
                    ),
                    Choice(
                        "A RoPE model therefore works at any length.",
                        "The formula runs at any offset, but a model only learns what to do with offsets seen in "
                        "training; plain RoPE degrades past its training length unless its frequencies are "
                        "rescaled (the *Context extension* view).",
                    ),
                    Choice(
                        "Scores always shrink as |m − n| grows.",
                        "RoFormer's long-term decay is a bound that shrinks, a ceiling rather than what a score "
                        "does; the *Long-term decay* view shows random scores keeping their spread.",
                    ),
                ),
                hint="Steps 1 and 2 hold for any q and k. What stays the same when a phrase moves as a whole?",
            ),
        ),
        conclusion=(
            "**Proved:** $q'_m \\cdot k'_n = q^\\top R_{n-m}\\, k$. Attention with RoPE sees how far apart two "
            "words are, with a sign, and not where they stand."
        ),
    ),
    Numeric(
        key="rope_slowest_turns",
        title="Did the slowest pair ever turn?",
        question=(
            "head_dim 128, base 10000, trained on 4096 positions. How many full turns does the **slowest** pair "
            "(i = 63) make between position 0 and position 4096?"
        ),
        latex=r"\theta_i = 10000^{-2i/d_h},\qquad \text{turns} = \frac{L\,\theta_i}{2\pi}",
        answer=_rope_turns_answer,
        tolerance=2e-3,
        hint="θ₆₃ = 10000^(−126/128) radians per position. A turn is 2π radians.",
        explain=lambda answer: (
            f"{answer:.3f} turns, well under one. The model never saw this pair complete a turn, so angles "
            "past the training length are new to it: that is what PI, NTK, YaRN and Llama 3 scaling address."
        ),
        nudge=_rope_turns_nudge,
    ),
)

# alibi

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


ALIBI = (
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

# compare

COMPARE = (
    MultipleChoice(
        key="compare_no_parameters",
        title="Free of parameters",
        question="Which of these methods add **no** learned parameters for position?",
        choices=(
            Choice(
                "sinusoidal, RoPE and ALiBi",
                "The sinusoid and RoPE's angles are formulas, and ALiBi's slopes are fixed by the number of heads.",
                right=True,
            ),
            Choice(
                "sinusoidal, learned and RoPE",
                "The learned table is max_len × d_model trainable numbers.",
            ),
            Choice(
                "RoPE, ALiBi and T5",
                "T5 learns one scalar per bucket and head: 32 × H numbers.",
            ),
            Choice(
                "ALiBi and KERPLE",
                "KERPLE learns r1 and r2 for every head: 2 parameters per head.",
            ),
        ),
        hint="The *Learned parameters* column of the home page's table.",
    ),
    MultipleChoice(
        key="compare_translation",
        title="Move the phrase",
        question="Move a whole phrase several positions to the right. Whose attention scores change?",
        choices=(
            Choice(
                "The added encodings: sinusoidal and learned.",
                "They give each word its absolute position, so the terms mixing words with positions "
                "change. Relative methods see only j − i, which the move leaves alone.",
                right=True,
            ),
            Choice(
                "RoPE's, because each vector is rotated by its absolute position.",
                "Each vector is, but the score sees only the difference of the two angles: the RoPE lesson's "
                "proof, measured at rounding level in the bar chart.",
            ),
            Choice(
                "ALiBi's, because the penalty grows along the sequence.",
                "The penalty is −m·|i − j|: it grows with the distance between two words, not with where they stand.",
            ),
            Choice(
                "Nobody's: position never changes a score.",
                "The sinusoid and the learned table are added to the words, so moving a phrase changes its "
                "queries and keys and hence its scores.",
            ),
        ),
        hint="Which methods see where a word is, and which only how far apart two words are?",
    ),
)

# experiments

EXPERIMENTS = (
    MultipleChoice(
        key="exp_copy_offset",
        title="Copy from k back",
        question=(
            "In the *copy k back* task (answer with the token exactly k places back), one position method fails "
            "even at the training length. Which one, and why?"
        ),
        choices=(
            Choice(
                "ALiBi: its only position signal is a penalty that grows with distance.",
                "−m·|i − j| always prefers nearer keys, and ALiBi puts no position into q or k. A head can "
                "make its attention fall off with distance, but never peak exactly k back, so this one-layer "
                "model has no way to single out the token to copy. (No positions at all fails too: it cannot tell "
                "where any key is.)",
                right=True,
            ),
            Choice(
                "RoPE: rotations blur exact offsets.",
                "RoPE's score depends on exactly m − n, so a head can learn a q and k whose score peaks at offset k.",
            ),
            Choice(
                "T5: its buckets are too coarse.",
                "Small distances get buckets of their own (the first 16 in the decoder's one-sided scheme), so "
                "T5 can learn its largest bias for offset −k exactly.",
            ),
            Choice(
                "Learned positions: they stop at max_len.",
                "That limits longer inputs, not the training length, where every position has a row that can "
                "learn to match the row k earlier.",
            ),
        ),
        hint="For each method ask: can some head put most of its attention on the key exactly k back, and "
        "not on k − 1?",
    ),
)

#: lesson path -> its exercises, in the order shown
BANK: dict[str, tuple[Exercise, ...]] = {
    "lessons/why_order.py": WHY_ORDER,
    "lessons/sinusoidal.py": SINUSOIDAL,
    "lessons/learned.py": LEARNED,
    "lessons/relative.py": RELATIVE,
    "lessons/rope.py": ROPE,
    "lessons/alibi.py": ALIBI,
    "lessons/compare.py": COMPARE,
    "lessons/experiments.py": EXPERIMENTS,
}


def all_exercises() -> list[Exercise]:
    return [ex for exercises in BANK.values() for ex in exercises]


def _check_unique_keys() -> None:
    keys = []
    for ex in all_exercises():
        keys.append(ex.key)
        if isinstance(ex, Guided):
            keys.extend(step.key for step in ex.steps)
    duplicates = {k for k in keys if keys.count(k) > 1}
    if duplicates:
        raise ValueError(f"exercise keys must be unique; repeated: {sorted(duplicates)}")


_check_unique_keys()
