"""The exercises at the end of the lesson "RoPE" (``posenc_lab/lessons/rope/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import math

import numpy as np

import posenc
from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.rope import compute as compute_rope
from posenc_lab.lessons.rope import measure as rope_lessons
from posenc_lab.ui.exercise_kinds import Choice, Guided, MultipleChoice, Numeric, Param, Pick, close_to, too_far

ROPE_HEAD_DIM = 64
ROPE_SEED = 0


def _rope_qk() -> tuple[np.ndarray, np.ndarray]:
    # one fixed random query and key, (Dh,) each: the lesson's own seeded pair
    return rope_lessons.random_query_key(ROPE_HEAD_DIM, seed=ROPE_SEED)


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


#: the skills the exercises practise (the lesson's ``skills``)
SKILLS = {"turns": "Count a pair's turns"}
#: the turns question: head_dim and training length (base 10000), where the slowest pair
#: makes a visible part of one turn but not a whole one
TURN_HEAD_DIMS = (64, 80, 96, 128, 256)
TURN_LENGTHS = (4096, 6144, 8192, 12288, 16384, 24576, 32768)
TURN_BASE = 10000.0
#: turns are checked to 2e-3; a variant's answer and wrong turns keep further apart than that
TURN_TOLERANCE = 2e-3
#: the fair answers: a visible fraction of a turn, and under one (the explanation says so)
TURN_RANGE = (0.05, 0.9)


def _slowest_theta(head_dim: int) -> float:
    # theta_i = base^{-2i/d_h} at the slowest pair, i = d_h/2 - 1
    return TURN_BASE ** (-(head_dim - 2) / head_dim)


def _rope_turns_answer(head_dim: int, length: int) -> float:
    # turns = L theta_last / (2 pi)
    inv_freq, _ = posenc.rope_inv_freq(head_dim, base=TURN_BASE)
    return float(length * inv_freq[-1] / (2 * math.pi))


def _rope_turns_turns(head_dim: int, length: int) -> dict[str, float]:
    """The values the known wrong turns give (each nudge's own value)."""
    return {
        "radians": length * _slowest_theta(head_dim),  # the angle, not turns
        "half_exponent": length * TURN_BASE ** (-(head_dim / 2 - 1) / head_dim) / (2 * math.pi),  # i/d, not 2i/d
        "past_last": length / TURN_BASE / (2 * math.pi),  # i = d/2: exponent 1, a pair that does not exist
    }


def _rope_turns_fair(head_dim: int, length: int) -> bool:
    answer = length * _slowest_theta(head_dim) / (2 * math.pi)
    values = [answer, *_rope_turns_turns(head_dim, length).values()]
    apart = all(abs(a - b) > 3 * TURN_TOLERANCE for i, a in enumerate(values) for b in values[i + 1 :])
    return apart and TURN_RANGE[0] <= answer <= TURN_RANGE[1]


def _rope_turns_question(head_dim: int, length: int) -> str:
    return (
        f"head_dim {head_dim}, base 10000, trained on {length} positions. How many full turns does the "
        f"**slowest** pair (i = {head_dim // 2 - 1}) make between position 0 and position {length}?"
    )


def _rope_turns_hint(head_dim: int, length: int) -> str:
    return (
        f"θ of pair i = {head_dim // 2 - 1} is 10000^(−{head_dim - 2}/{head_dim}) radians per position. "
        "A turn is 2π radians."
    )


def _rope_turns_explain(answer: float, head_dim: int, length: int) -> str:
    theta = _slowest_theta(head_dim)
    return (
        f"θ = 10000^(−{head_dim - 2}/{head_dim}) = {theta:.3g} radians per position; {length} · {theta:.3g} / 2π = "
        f"{answer:.3f} turns, less than one. The model never saw this pair complete a turn, so angles past the "
        "training length are new to it: that is what PI, NTK, YaRN and Llama 3 scaling address."
    )


def _rope_turns_nudge(given: float, answer: float, head_dim: int, length: int) -> str | None:
    turns = _rope_turns_turns(head_dim, length)
    exponent = f"{head_dim - 2}/{head_dim}"
    if close_to(given, turns["radians"], TURN_TOLERANCE):
        return "That is the angle in radians. A full turn is 2π radians."
    if close_to(given, turns["half_exponent"], TURN_TOLERANCE):
        return f"That uses i/d as the exponent. RoPE's is 2i/d: 10000^(−{exponent})."
    if close_to(given, turns["past_last"], TURN_TOLERANCE):
        return (
            f"That takes the exponent 1, a pair i = {head_dim // 2} that does not exist. The slowest pair is "
            f"i = {head_dim // 2 - 1}: the exponent is {exponent}."
        )
    if given > 1:
        return (
            f"Too large: the slowest pair turns by only 10000^(−{exponent}) ≈ {_slowest_theta(head_dim):.2g} "
            "radians per position."
        )
    return too_far(given, answer) + (
        f" θ of the last pair is 10000^(−{exponent}); multiply by {length} and divide by 2π."
    )


EXERCISES = (
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
                        "Only n − m reaches the score: moving a whole phrase changes none of its scores.",
                        "For given q and k, RoPE's score depends on the positions only through n − m. Steps 1 "
                        "and 2 prove it for every q, k, m and n; step 3 measured it. An added "
                        "sinusoid lacks this (the right-hand heatmap of the *Only m − n matters* view).",
                        right=True,
                    ),
                    Choice(
                        "The score no longer says whether the key comes before or after the query, only how far.",
                        "n − m keeps its sign: $R(3\\theta)$ and $R(-3\\theta)$ are different rotations, so a key "
                        "3 before and a key 3 after the query generally get different scores.",
                    ),
                    Choice(
                        "A RoPE model therefore works at any length, since only offsets matter.",
                        "The formula runs at any offset, but a model only learns what to do with offsets seen in "
                        "training; plain RoPE degrades past its training length unless its frequencies are "
                        "rescaled (the *Context extension* view).",
                    ),
                    Choice(
                        "Scores always shrink as |m − n| grows, so far words matter less.",
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
        question=_rope_turns_question,
        latex=r"\theta_i = 10000^{-2i/d_h},\qquad \text{turns} = \frac{L\,\theta_i}{2\pi}",
        answer=_rope_turns_answer,
        tolerance=TURN_TOLERANCE,
        hint=_rope_turns_hint,
        explain=_rope_turns_explain,
        nudge=_rope_turns_nudge,
        params=(Param("head_dim", TURN_HEAD_DIMS, 128), Param("length", TURN_LENGTHS, 4096)),
        fair=_rope_turns_fair,
        skill="turns",
    ),
)


# class-mode polls

SHIFT_M, SHIFT_N = 5, 2  # the query and key positions of the guided proof
SHIFT_FAR = 1000
SHIFT_OPTIONS = ("Not at all (rounding only)", "A little (under 10%)", "A lot (as much as the score)")


def _shift_curves() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shifts s = 0, 10, ..., 1000 and the score of q at 5 + s against k at 2 + s: RoPE and
    the sinusoid added instead, each (S,), for the lesson's head_dim 64, seed 0 pair."""
    q, k = _rope_qk()
    shifts = np.arange(0, SHIFT_FAR + 1, 10)  # (S,)
    m, n = SHIFT_M + shifts, SHIFT_N + shifts
    # the diagonal of the (S, S) grid: query and key moved together
    rope = np.diag(posenc.rope_scores(q, k, m, n))
    added = np.diag(rope_lessons.added_scores(q, k, m, n))
    return shifts, rope, added


def _shift_poll_answer() -> float:
    _, rope, _ = _shift_curves()
    change = float(np.abs(rope - rope[0]).max())
    return float(0 if change < 1e-9 * abs(rope[0]) else 1 if change < 0.1 * abs(rope[0]) else 2)


def _shift_poll_reveal(answer: float) -> str:
    _, rope, added = _shift_curves()
    return (
        f"**{SHIFT_OPTIONS[int(answer)]}.** The RoPE score stays {rope[0]:.4f} at every shift, to within "
        f"{np.abs(rope - rope[0]).max():.0e}. With the sinusoid added to q and k instead, the same move swings "
        f"the score between {added.min():.1f} and {added.max():.1f}. RoPE's score depends on n − m only: "
        "a phrase means the same to attention wherever it stands."
    )


def _shift_poll_figure():
    shifts, rope, added = _shift_curves()
    return figures.line_chart(
        shifts,
        {"RoPE": rope, "sinusoid added": added},
        title=f"Score of q at {SHIFT_M} + s and k at {SHIFT_N} + s (head_dim {ROPE_HEAD_DIM})",
        x_title="shift s of both positions",
        y_title="score",
        x_name="s",
        value_name="score",
    )


DECAY_SETTINGS = (ROPE_HEAD_DIM, 10000.0, 4096, 0.0, 2000, ROPE_SEED)  # head_dim, base, reach, rho, samples, seed
DECAY_OPTIONS = ("It shrinks a lot", "It stays about the same", "It grows")


def _decay_out() -> dict:
    # the Long-term decay view's cached measurement, at its defaults (independent q and k)
    return compute_rope.decay(*DECAY_SETTINGS)


def _decay_answer() -> float:
    out = _decay_out()
    ratio = float(out["std"][-1] / out["std"][0])  # farthest distance against distance 1
    return float(0 if ratio < 0.5 else 2 if ratio > 2 else 1)


def _decay_reveal(answer: float) -> str:
    out = _decay_out()
    far = int(out["distances"][-1])
    root = math.sqrt(ROPE_HEAD_DIM)
    return (
        f"**{DECAY_OPTIONS[int(answer)]}.** Over 2,000 random (q, k) pairs the std of q·k is {out['std'][0]:.2f} "
        f"at distance 1 and {out['std'][-1]:.2f} at {far:,}, both close to √{ROPE_HEAD_DIM} = {root:.0f}: "
        "rotating k does not change its spread. RoFormer's 'long-term decay' is about a bound, which does fall "
        f"(from {out['bound'][0]:.3g} at distance 1 to {out['bound'][-1]:.3g} at {far:,}, with ups and downs): "
        "a ceiling on the score, not what a score does."
    )


def _decay_figure():
    out = _decay_out()
    root = math.sqrt(ROPE_HEAD_DIM)
    reference = f"√head_dim = {root:.0f}"
    fig = figures.line_chart(
        out["distances"],
        {"std of q·k, measured": out["std"], reference: np.full(out["std"].size, root)},
        title=f"Spread of RoPE scores of random q, k by distance (head_dim {ROPE_HEAD_DIM}, 2,000 pairs)",
        x_title="distance m − n (log scale)",
        y_title="std of q·k",
        x_name="distance",
        value_name="std",
        value_format=".2f",
        log_x=True,
        styles={reference: {"dash": "dash"}},
    )
    # from 0: a range fitted to the data would blow sampling noise of a few percent up to the full height
    return fig.update_yaxes(range=[0.0, 1.25 * float(out["std"].max())])


POLLS = (
    Poll(
        key="poll-rope-shift-phrase",
        scale=True,
        prompt=(
            "With RoPE, a query at position 5 scores a key at position 2. Move both 1,000 positions later. "
            "How much does their score change?"
        ),
        options=SHIFT_OPTIONS,
        answer=_shift_poll_answer,
        reveal=_shift_poll_reveal,
        figure=_shift_poll_figure,
        view=f"rope?view=relative&dh={ROPE_HEAD_DIM}&s={SHIFT_FAR}&added=1",
    ),
    Poll(
        key="poll-rope-long-term-decay",
        scale=True,
        prompt=(
            "RoPE is said to have 'long-term decay'. For random, unrelated q and k, what happens to the spread "
            "of the score q·k as the distance grows from 1 to 4,096?"
        ),
        options=DECAY_OPTIONS,
        answer=_decay_answer,
        reveal=_decay_reveal,
        figure=_decay_figure,
        view=(
            f"rope?view=decay&dh={DECAY_SETTINGS[0]}&reach={DECAY_SETTINGS[2]}&rho={DECAY_SETTINGS[3]:g}"
            f"&samples={DECAY_SETTINGS[4]}"
        ),
    ),
)
