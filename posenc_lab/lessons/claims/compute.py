"""Cached measurements for the lesson "Common claims, measured", and the verdicts read off them.

Each claim has a cached function that calls ``posenc.claims`` (or the stored run of the
experiment) with scalar settings and returns only what its block shows, and a ``finding_*``
function that turns those numbers into a ``Finding``: the verdict, the measured value in
one line and the precise statement. The group views and the overview table call the same
functions, so a verdict is written once and always computed from the current numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import posenc
from posenc import experiment as ex
from posenc_lab.lessons.claims import measure as core
from posenc_lab.lessons.experiments import claims as experiment_claims
from posenc_lab.lessons.experiments import compute as compute_experiment

CACHE = dict(max_entries=64, show_spinner=False)
#: differences below this are floating-point rounding, not a failure of an identity
ROUNDING = 1e-9
#: the experiments page's default run, stored in posenc_lab/lessons/experiments/data (task, then these settings)
RUN = dict(train_len=32, d_model=32, steps=300, seed=0, offset=3)
#: the phrase shift the experiments page uses for its claims table
RUN_SHIFT = 10
#: the longest test length, as a multiple of the training length (the run stores 1, 2, 4, 8)
LONGEST = 10
#: the kernel parameters of KERPLE drawn against the RBF kernel
KERPLE_R1, KERPLE_R2_LOG, KERPLE_R2_POWER = 1.0, 1.0, 0.5
#: DeBERTa's measurement: queries and keys, and the span S of relative rows
DEBERTA_TOKENS, DEBERTA_SPAN = 64, 32
#: how far the T5 / Shaw chart reaches: past T5's max_distance of 128
ENTRY_REACH = 160
#: T5's buckets as T5 uses them
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128
#: parameter counts are compared at L and at this multiple of it
GROWTH = 8
#: ALiBi's "for any H" is checked over H = 1..this
HEADS_CHECKED = 64
#: the shift (in positions) of RoPE's relative check
ROPE_SHIFT = 1000
#: positions drawn for dimension 0 (the count covers all n)
DIM0_SHOWN = 48

HOLDS, FALSE, HALF = "holds", "false", "half true"

#: The one rule every verdict follows. A claim **holds** when it holds as it is stated, in
#: every case it names that is measured. It is **half true** when it fails as stated but
#: its part below holds: a narrower statement in the claim's own terms (a fixed k, the H
#: that are powers of two, one of two tasks). Otherwise it is **false**. A claim with no
#: part listed here is either true or false.
PARTS = {
    "linear": "for each fixed k, PE(p + k) is a linear function of PE(p) (PE(k) is then a constant)",
    "orthogonal": "every two columns are nearly orthogonal over the window (|cosine| at most 0.1)",
    "rope_long": "RoPE keeps its accuracy at twice its training length",
    "rope_factor": "the score depends on the positions only through m - n",
    "alibi_slopes": "2^(-8h/H) is right for some H in the range checked: the powers of two",
    "alibi_long": "ALiBi keeps its accuracy at 10 times its training length on one of the two tasks",
    "params": "some relative method in the chart needs parameters that grow with L",
}


def rule(as_stated: bool, part: bool = False) -> str:
    """The verdict of a claim that holds as stated or not, and whose part (``PARTS``) holds or not."""
    if as_stated:
        return HOLDS
    return HALF if part else FALSE


@dataclass(frozen=True)
class Claim:
    number: int
    group: str  # the lesson view that measures it
    text: str  # as it is commonly put (paraphrased)


@dataclass(frozen=True)
class Finding:
    verdict: str  # HOLDS, FALSE or HALF (a cited verdict says so in its text)
    measured: str  # the numbers, in one line
    statement: str  # what is precisely true
    cited: bool = False  # settled by the papers, not by a measurement
    part: str = ""  # for a half-true claim, the narrower statement that holds (``PARTS``)


def finding(key: str, as_stated: bool, part: bool, measured: str, statement: str) -> Finding:
    """A measured claim's ``Finding``, its verdict by ``rule``; ``part`` counts only for a claim in ``PARTS``."""
    verdict = rule(as_stated, part and key in PARTS)
    return Finding(verdict, measured, statement, part=PARTS[key] if verdict == HALF else "")


_CLAIMS = (
    ("order", 1, "order", "Self-attention is permutation-invariant: shuffle the words and the output is the same."),
    ("dim0", 2, "sinusoids", "Dimension 0 of the sinusoid flips sign at every position."),
    ("lowfreq", 3, "sinusoids", "The low dimensions of the sinusoid carry the low frequencies."),
    ("linear", 4, "sinusoids", "PE(p + k) is a linear function of PE(p) and PE(k)."),
    ("orthogonal", 5, "sinusoids", "The frequency components of the sinusoid are orthogonal."),
    ("differences", 6, "sinusoids", "Checking PE[10] - PE[5] = PE[5] - PE[0] tests the relative property."),
    ("rope_long", 7, "rope", "RoPE extrapolates excellently, to any length."),
    ("rope_factor", 8, "rope", "With RoPE, <RoPE(q, m), RoPE(k, n)> = <q, k> f(m - n)."),
    ("kerple", 9, "biases", "KERPLE is an RBF kernel."),
    ("deberta", 10, "biases", "DeBERTa divides its attention scores by sqrt(d)."),
    ("alibi_slopes", 11, "biases", "ALiBi's slopes are 2^(-8i/H) for any number of heads H."),
    ("alibi_long", 12, "biases", "ALiBi works at 10 times its training length."),
    ("t5", 13, "biases", "T5 uses a clipped table of 2k + 1 relative offsets."),
    # the measured claim first: its chart opens the view, the citation follows
    ("params", 14, "parameters", "Relative encodings need O(L) parameters for a training length L."),
    ("sources", 15, "parameters", "GPT-1 and T5 use sinusoidal position encodings."),
)
#: key -> the claim, in the lesson's order
CLAIMS: dict[str, Claim] = {key: Claim(number, group, text) for key, number, group, text in _CLAIMS}


def e(x: float) -> str:
    """A small or large number for the page: 2.2e-16, 1.4e+00."""
    return f"{x:.1e}"


def near_one(x: float) -> str:
    """A cosine for the page; one within 1e-4 of 1 as 1 - 1.8e-12, where 0.999999 would hide how close."""
    return f"1 - {1 - x:.1e}" if 1 - 1e-4 < x < 1 else f"{x:.4f}"


def pct(x: float | None) -> str:
    return experiment_claims.fmt_accuracy(x)


# 1. attention and order


@st.cache_data(**CACHE)
def order(tokens: int, d_model: int, draw: int) -> core.OrderErrors:
    return core.attention_order_errors(tokens, d_model, seed=draw)


def finding_order(tokens: int, d_model: int, draw: int) -> Finding:
    r = order(tokens, d_model, draw)
    equivariant = r.out_equivariance < ROUNDING and r.weights_equivariance < ROUNDING
    invariant = r.out_invariance < ROUNDING
    return finding(
        "order",
        invariant,
        False,
        f"unchanged? max |Attn(PX) - Attn(X)| = {e(r.out_invariance)}; "
        f"permuted? max |Attn(PX) - P Attn(X)| = {e(r.out_equivariance)}",
        "Self-attention is permutation-equivariant: reorder the inputs and the outputs come out in the "
        "same new order (the weight matrix with its rows and columns reordered)."
        if equivariant and not invariant
        else "Neither identity holds to rounding in this measurement.",
    )


# 2-6. the sinusoid


@st.cache_data(**CACHE)
def dim0(n: int, d_model: int, base: float) -> tuple[core.SignChanges, np.ndarray]:
    """The sign changes over 0..n-1 and dimension 0 at the first positions drawn."""
    shown = posenc.sinusoidal(min(n, DIM0_SHOWN), d_model, base)[:, 0]
    return core.sign_changes(n, d_model, base), shown


def finding_dim0(n: int, d_model: int, base: float) -> Finding:
    r, _ = dim0(n, d_model, base)
    return finding(
        "dim0",
        r.changes == r.steps,
        False,
        f"{r.changes} sign changes in {r.steps} steps (positions 0..{n - 1}): "
        f"one step in {r.steps / max(r.changes, 1):.2f}",
        "PE[p, 0] = sin(p) changes sign each time p passes a multiple of pi: floor((n - 1) / pi) "
        f"= {r.expected} times, about once every pi = 3.14 positions, for any d_model and base.",
    )


@st.cache_data(**CACHE)
def wavelengths(d_model: int, base: float) -> np.ndarray:
    return posenc.wavelengths(d_model, base)


def finding_lowfreq(d_model: int, base: float) -> Finding:
    first, last = core.wavelength_ends(d_model, base)
    return finding(
        "lowfreq",
        first >= last,
        False,
        f"wavelength of dims 0-1: {first:.2f} positions; of dims {d_model - 2}-{d_model - 1}: {last:,.0f}",
        "The low dimensions turn fastest (the highest frequency, 1 radian per position); the frequency "
        "falls geometrically to base^-(d-2)/d in the last pair.",
    )


@st.cache_data(**CACHE)
def linear(n: int, d_model: int, base: float, offset: int, draw: int) -> core.ShiftLinearity:
    """``core.shift_linearity``, put together from its two parts so that a move of the
    offset k fits nothing again: the least-squares fit (an SVD, 30-150 ms) depends on the
    pairs drawn, not on k."""
    fit = _pair_fit(n, d_model, base, draw)
    return core.ShiftLinearity(
        concat=fit.concat,
        fixed_k=core.fixed_shift_error(n, d_model, base, k=offset),
        bilinear=fit.bilinear,
        unexplained=fit.unexplained,
        n_pairs=fit.n_pairs,
    )


@st.cache_data(**CACHE)
def _pair_fit(n: int, d_model: int, base: float, draw: int) -> core.ShiftFit:
    return core.shift_pair_fit(n, d_model, base, seed=draw)


def finding_linear(n: int, d_model: int, base: float, offset: int, draw: int) -> Finding:
    r = linear(n, d_model, base, offset, draw)
    concat, exact = float(r.concat.max()), float(max(r.fixed_k.max(), r.bilinear.max()))
    return finding(
        "linear",
        concat < ROUNDING,
        exact < ROUNDING,
        f"best linear map of [PE(p), PE(k)]: error up to {concat:.2f} ({r.unexplained:.0%} of the variance left); "
        f"M_k PE(p) and the angle-addition formula: {e(exact)}",
        "For a fixed k, PE(p + k) = M_k PE(p) is linear in PE(p); in PE(p) and PE(k) together it is bilinear "
        "(sin(a + b) = sin a cos b + cos a sin b), not linear.",
    )


@st.cache_data(**CACHE)
def orthogonal(n: int, d_model: int, base: float) -> core.NeighbourCosines:
    return core.neighbour_column_cosines(n, d_model, base)


def finding_orthogonal(n: int, d_model: int, base: float) -> Finding:
    r = orthogonal(n, d_model, base)
    worst = r.max_off_diagonal
    return finding(
        "orthogonal",
        worst < 1e-6,
        worst <= 0.1,
        f"over positions 0..{n - 1}: cosine of the two slowest sine columns {near_one(r.sin_neighbours[-1])}, "
        f"of the two fastest {r.sin_neighbours[0]:+.3f}; largest |cosine| between two columns {near_one(worst)}",
        orthogonal_statement(n, d_model, base, r),
    )


#: a |cosine| at most this is "nearly orthogonal", at least NEARLY_PARALLEL "nearly parallel"
NEARLY_ORTHOGONAL = 0.1
NEARLY_PARALLEL = 0.9


def orthogonal_statement(n: int, d_model: int, base: float, r: core.NeighbourCosines) -> str:
    """What the columns' cosines say at these settings, each clause read off the measured cosines."""
    lead = (
        f"Over positions 0..{n - 1} every two columns are orthogonal."
        if r.max_off_diagonal < 1e-6
        else f"The columns are not orthogonal over positions 0..{n - 1}."
    )
    fast, slow = float(r.sin_neighbours[0]), float(r.sin_neighbours[-1])
    # the turns the slower of the two slowest sine columns makes within the window
    turns = n / float(wavelengths(d_model, base)[-1])
    if abs(fast) <= NEARLY_ORTHOGONAL:
        clauses = [f"the two fastest sine columns are nearly orthogonal (cosine {fast:+.3f})"]
    else:
        clauses = [f"even the two fastest sine columns have cosine {fast:+.2f}"]
    if slow >= NEARLY_PARALLEL and turns < 1:
        clauses.append(
            f"the two slowest hardly turn within the window (the slowest {turns:.2g} of a turn) and are nearly "
            f"parallel (cosine {near_one(slow)})"
        )
    else:
        clauses.append(
            f"the slowest sine column makes {turns:,.3g} turn{'' if turns == 1 else 's'} within the window, and "
            f"its cosine with its neighbour is {slow:+.2f}"
        )
    return f"{lead} Here {clauses[0]}, and {clauses[1]}."


@st.cache_data(**CACHE)
def differences(d_model: int, base: float, offset: int) -> core.DifferenceCheck:
    return core.difference_check(offset, d_model, base)


def finding_differences(d_model: int, base: float, offset: int) -> Finding:
    r = differences(d_model, base, offset)
    wrong, right = float(r.equal_differences.max()), float(r.rotation.max())
    k = offset
    return finding(
        "differences",
        wrong < ROUNDING,
        False,
        f"max |(PE[{2 * k}] - PE[{k}]) - (PE[{k}] - PE[0])| = {wrong:.2f}; "
        f"max |PE[{k}] M_{k}^T - PE[{2 * k}]|, |PE[0] M_{k}^T - PE[{k}]| = {e(right)}",
        f"On a correct sinusoid equal differences fail; the relative property is PE[{2 * k}] = PE[{k}] M_{k}^T "
        f"and PE[{k}] = PE[0] M_{k}^T, one matrix for every start.",
    )


def difference_peak(d_model: int, base: float, offset: int) -> str:
    """Where equal differences fail most, read off the errors the chart draws."""
    r = differences(d_model, base, offset)
    errors = r.equal_differences  # (D,)
    dim = int(np.argmax(errors))
    turn = offset * 2 * np.pi / wavelengths(d_model, base)  # (D/2,) k w_i, radians
    angle = float(turn[dim // 2])
    return (
        f"Per pair the two sides differ by a vector of length 4 sin^2(k w_i / 2): 0 where k w_i is a multiple "
        f"of 2 pi, 4 where it is an odd multiple of pi, whichever pair that is. Here (k = {offset}) the largest "
        f"error, {errors[dim]:.2f}, is in dimension {dim} (pair {dim // 2}, k w = {angle:.2f} rad = "
        f"{angle / np.pi:.2f} pi); dimension 0, the fastest (k w = {turn[0]:.2f} rad), errs by {errors[0]:.2f}."
    )


# 7, 12. the stored experiment


def _run(task: str) -> dict:
    """The experiments page's stored default run (a cached live run if the file is missing)."""
    settings = (task, *RUN.values())
    stored = compute_experiment.stored_or_none(*settings)
    return stored if stored is not None else compute_experiment.summary_for(*settings)


@st.cache_data(**CACHE)
def rope_run() -> dict:
    """RoPE's accuracy at 1x..8x on the copy task, and its trained scores' shift error."""
    summary = _run("copy")
    errors, _, _ = compute_experiment.translation("copy", *RUN.values(), False, RUN_SHIFT)
    return dict(
        lengths=list(summary["lengths"]),
        accuracy=list(summary["accuracy"]["rope"]),
        chance=summary["chance"],
        shift_error=errors["rope"],
    )


def finding_rope_long() -> Finding:
    r = rope_run()
    first, twice, last = r["accuracy"][0], r["accuracy"][1], r["accuracy"][-1]
    return finding(
        "rope_long",
        last >= first - experiment_claims.KEEPS,
        twice >= first - experiment_claims.KEEPS,
        f"copy task: {pct(first)} at {r['lengths'][0]} tokens, {pct(last)} at {r['lengths'][-1]}; trained scores "
        f"change by {e(r['shift_error'])} when a phrase moves {RUN_SHIFT} places",
        "RoPE's score depends only on m - n (it holds to rounding in the trained model), but a model "
        "trained short meets rotation angles it never saw when tested long, and its accuracy falls.",
    )


@st.cache_data(**CACHE)
def alibi_long() -> dict:
    """The stored ALiBi models of both tasks, evaluated now at 1x, 2x, 4x, 8x and 10x their training length.

    Evaluated here rather than read from the file for 1x..8x too, so that the chart and its
    snippet give the same numbers on any CPU (another CPU's BLAS may flip one test sequence
    in thousands against the stored accuracies).
    """
    out = dict(accuracy={}, chance={})
    for task in ex.EXPERIMENT_TASKS:
        summary = _run(task)
        cfg = compute_experiment.make_config(task, *RUN.values())
        model = ex.TrainResult(params=summary["params"]["alibi"], losses=summary["losses"]["alibi"])
        out["lengths"] = [*summary["lengths"], LONGEST * cfg.train_len]
        out["accuracy"][task] = [ex.evaluate(model, cfg, "alibi", n) for n in out["lengths"]]
        out["chance"][task] = summary["chance"]
    return out


def finding_alibi_long() -> Finding:
    r = alibi_long()
    n = r["lengths"]
    state = {}
    for task, acc in r["accuracy"].items():
        keeps = acc[-1] >= acc[0] - experiment_claims.KEEPS
        state[task] = (keeps, acc[0] >= experiment_claims.LEARNT)
    works = [task for task, (keeps, learnt) in state.items() if keeps and learnt]
    copy, marker = r["accuracy"]["copy"], r["accuracy"]["marker"]
    return finding(
        "alibi_long",
        len(works) == len(state),
        bool(works),
        f"at {n[-1]} tokens (10x): marker task {pct(marker[-1])} (from {pct(marker[0])} at {n[0]}), "
        f"copy task {pct(copy[-1])} (from {pct(copy[0])})",
        "ALiBi's bias is the same at every length, so what it learned short still applies long. This "
        "one-layer model cannot single out one exact offset (its only sign of place is a penalty that peaks at "
        "distance 0), so on copying it stays flat at a low accuracy; that limit is the model's, not ALiBi's. "
        "Press et al. measured perplexity of language models, not accuracy on such tasks.",
    )


# 8. RoPE's score


@st.cache_data(**CACHE)
def rope_factor(head_dim: int, base: float, draw: int, span: int) -> core.RopeFactorisation:
    return core.rope_factorisation(head_dim, base, reach=span, seed=draw, shift=ROPE_SHIFT)


def finding_rope_factor(head_dim: int, base: float, draw: int, span: int) -> Finding:
    r = rope_factor(head_dim, base, draw, span)
    factors = r.spread < 1e-6 and r.orthogonal < 1e-6
    return finding(
        "rope_factor",
        factors,
        r.shift_error < ROUNDING,
        f"two pairs with q.k = 1 differ by up to {r.spread:.2f}; a pair with q.k = 0 scores up to "
        f"{r.orthogonal:.2f}; moving both positions by {ROPE_SHIFT} changes a score by {e(r.shift_error)}",
        "The score is Re Σᵢ q̃ᵢ conj(k̃ᵢ) e^(i(m−n)θᵢ): it depends on the positions only through "
        "m - n, but through every pair of q and k, not through q.k alone.",
    )


# 9-13. biases


@st.cache_data(**CACHE)
def kernels(length: int, sigma: float) -> core.KernelComparison:
    return core.kernel_comparison(length, sigma=sigma, r1=KERPLE_R1, r2_log=KERPLE_R2_LOG, r2_power=KERPLE_R2_POWER)


@st.cache_data(**CACHE)
def kerple_boundary(length: int) -> tuple[float, float]:
    """(sigma, gap) of ``core.kerple_boundary_gap`` at the chart's r1."""
    return core.kerple_boundary_gap(length, r1=KERPLE_R1)


def finding_kerple(length: int, sigma: float) -> Finding:
    r = kernels(length, sigma)
    width, gap = kerple_boundary(length)
    # an RBF kernel is positive definite; KERPLE's would have to be too
    kerple_pd = bool((r.min_eigenvalue[:2] > 1e-10 * np.abs(r.max_eigenvalue[:2])).all())
    return finding(
        "kerple",
        kerple_pd,
        False,
        f"smallest eigenvalue over {length} positions: KERPLE log {r.min_eigenvalue[0]:.3g}, power "
        f"{r.min_eigenvalue[1]:.3g}, RBF {r.min_eigenvalue[2]:.2g}; on sum-zero vectors KERPLE's are "
        f"{r.min_sum_zero[0]:.3g} and {r.min_sum_zero[1]:.3g}; at r2 = 2, exp(power bias) differs from an RBF "
        f"of sigma {width:.3g} by {e(gap)}",
        "KERPLE's biases, -r1 log(1 + r2|m - n|) and -r1|m - n|^r2, are conditionally positive definite "
        "kernels that fall without bound; a Gaussian RBF exp(-|m - n|^2 / 2 sigma^2) is positive definite "
        f"and bounded. The two meet at one boundary case, and only through softmax: at r2 = 2 the factor "
        f"exp(-r1|m - n|^2) that the power bias puts on the weights is a Gaussian RBF with sigma = "
        f"1/sqrt(2 r1) ({width:.3g} at r1 = {KERPLE_R1:g}); the bias itself is still not one.",
    )


@st.cache_data(**CACHE)
def deberta(head_dim: int, draw: int) -> core.DebertaScale:
    return core.deberta_scale(head_dim, n_tokens=DEBERTA_TOKENS, span=DEBERTA_SPAN, seed=draw)


def finding_deberta(head_dim: int, draw: int) -> Finding:
    r = deberta(head_dim, draw)
    three = abs(r.sum_sqrt_3d - 1) < abs(r.sum_sqrt_d - 1)
    return finding(
        "deberta",
        not three,
        False,
        f"std of the summed logits: {r.sum_sqrt_d:.2f} over sqrt(d), {r.sum_sqrt_3d:.2f} over sqrt(3d) "
        f"(content alone over sqrt(d): {r.c2c_sqrt_d:.2f})",
        "DeBERTa divides the sum of its three terms (c2c, c2p, p2c) by sqrt(3d) (He et al. 2020, eq. 4): "
        "three uncorrelated terms add three times the variance.",
    )


@st.cache_data(**CACHE)
def slopes(heads: int) -> dict:
    return dict(
        reference=posenc.alibi_slopes(heads),
        naive=core.naive_alibi_slopes(heads),
        gap=core.alibi_slope_gap(heads),
        differ=core.heads_where_naive_slopes_differ(HEADS_CHECKED),
    )


def power(x: float) -> str:
    """A power of two for the page, by its exponent: 2^-0.25, 2^-8."""
    return f"2^{round(float(np.log2(x)), 6):g}"


def slope_range(heads: int) -> str:
    """How get_slopes builds H slopes and the range they span, read off the slopes the chart draws."""
    reference = slopes(heads)["reference"]
    low, high = power(reference.min()), power(reference.max())
    span = f"its single slope is {high}" if heads == 1 else f"the slopes run from {low} to {high}"
    c = 2 ** (heads.bit_length() - 1)  # the largest power of two <= H
    if c == heads:
        return (
            f"For H = {heads}, a power of two, their code (get_slopes) gives exactly that: {span}, "
            f"the steepest 2^(-8/H)."
        )
    return (
        f"For other H their code (get_slopes) takes the {c} slopes of the largest power of two below H and "
        f"appends {heads - c} of the {2 * c}-head schedule ({odd_places(heads - c)}), so the steepest slope "
        f"is 2^(-4/c) with c = {c}, not 2^(-8/H): at H = {heads}, {span}."
    )


def odd_places(count: int) -> str:
    """The first ``count`` odd places of a schedule, in words: "its 1st and 3rd slopes"."""
    places = [_ordinal(2 * i + 1) for i in range(count)]
    if count == 1:
        return "its 1st slope"
    if count <= 3:
        return f"its {', '.join(places[:-1])} and {places[-1]} slopes"
    return f"its 1st, 3rd, ..., {places[-1]} slopes"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def slope_sequences(heads: int) -> str:
    """What ALiBi's H slopes are, in words: one geometric sequence, or two whose values interleave."""
    c = 2 ** (heads.bit_length() - 1)  # the largest power of two <= H
    if c == heads:
        return "a geometric sequence, Press et al. 2021, sec. 3"
    return (
        f"for H = {heads}, not a power of two, two geometric sequences whose values interleave: the {c}-head "
        f"one, then {odd_places(heads - c)} of the {2 * c}-head one, Press et al. 2021, sec. 3"
    )


def finding_alibi_slopes(heads: int) -> Finding:
    r = slopes(heads)
    where = f"{r['differ'].size} of the head counts 1..{HEADS_CHECKED}"
    # a claim about every H: the verdict reads the whole range checked, the slider only the chart
    return finding(
        "alibi_slopes",
        r["differ"].size == 0,
        r["differ"].size < HEADS_CHECKED,
        f"H = {heads}: largest relative difference {r['gap']:.3g}; the formula is wrong for {where}",
        "2^(-8h/H) is right only when H is a power of two. For any other H, Press et al.'s get_slopes takes "
        "the c slopes of the largest power of two c below H and appends H - c more after them: the 1st, 3rd, "
        "5th, ... slopes of the schedule for 2c heads.",
    )


@st.cache_data(**CACHE)
def t5_entries(shaw_k: int) -> dict:
    distances, t5, shaw = core.entry_by_distance(
        ENTRY_REACH, shaw_k, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE
    )
    return dict(distances=distances, t5=t5, shaw=shaw, widths=core.t5_bucket_widths(T5_BUCKETS, T5_MAX_DISTANCE))


def finding_t5(shaw_k: int) -> Finding:
    w = t5_entries(shaw_k)["widths"]
    finite = w.widths[np.isfinite(w.widths)].astype(int)
    return finding(
        "t5",
        w.n_buckets == 2 * shaw_k + 1 and not (finite > 1).any(),
        False,
        f"T5: {w.n_buckets} buckets ({w.used} reachable), distances 0..{w.exact - 1} exact, then widths "
        f"{', '.join(map(str, finite[w.exact :]))} and one bucket from {w.last_from} on; Shaw with K = {shaw_k}: "
        f"{2 * shaw_k + 1} entries, one per offset",
        f"Shaw et al. clip to 2K + 1 offsets; T5 uses {w.n_buckets} buckets, {w.widths.size} per direction: "
        f"{t5_layout(w)}.",
    )


def t5_layout(w: core.T5Widths, max_distance: int = T5_MAX_DISTANCE) -> str:
    """One direction of T5's buckets in words, counted from ``core.t5_bucket_widths``."""
    logarithmic = w.widths.size - w.exact - 1  # neither exact nor the open-ended last one
    before = (
        f" (max_distance {max_distance} only sets the scale of the logarithm: the last bucket starts before it)"
        if w.last_from < max_distance
        else ""
    )
    return (
        f"{w.exact} exact (distances 0..{w.exact - 1}), {logarithmic} logarithmically wider (distances "
        f"{w.exact}..{w.last_from - 1}) and a last one for every distance from {w.last_from} on{before}"
    )


# 14-15. parameters


def finding_sources() -> Finding:
    return Finding(
        FALSE,
        "cited, not measured: Radford et al. 2018, sec. 4.1; Raffel et al. 2019, sec. 2.1",
        "GPT-1 learned its position table (Radford et al. 2018, sec. 4.1: learned position embeddings instead "
        "of the sinusoidal version); T5 adds a learned scalar per relative-position bucket and head to the "
        "logits (Raffel et al. 2019, sec. 2.1).",
        cited=True,
    )


@st.cache_data(**CACHE)
def parameters(context: int, head_dim: int, heads: int, shaw_k: int) -> dict:
    kw = dict(head_dim=head_dim, n_heads=heads, max_distance=shaw_k, num_buckets=T5_BUCKETS)
    return dict(
        short=core.relative_parameter_counts(context, **kw), long=core.relative_parameter_counts(GROWTH * context, **kw)
    )


def finding_params(context: int, head_dim: int, heads: int, shaw_k: int) -> Finding:
    r = parameters(context, head_dim, heads, shaw_k)
    grows = [m for m in core.PARAMETER_METHODS if r["long"][m] != r["short"][m]]
    # every method in the chart but the absolute table is relative, unclipped Shaw included: the claim
    # holds as stated if all of them grow, its part if one does
    relative = [m for m in core.PARAMETER_METHODS if m != "learned"]
    return finding(
        "params",
        all(m in grows for m in relative),
        any(m in grows for m in relative),
        f"from L = {context} to {GROWTH * context}: {', '.join(NAMES[m] for m in grows) or 'none'} grow; "
        f"clipped Shaw stays {r['short']['shaw']:,}, T5 {r['short']['t5']:,}, ALiBi and RoPE 0",
        "A relative method's table is indexed by the offset, clipped (Shaw) or bucketed (T5), or replaced by a "
        "formula (ALiBi, RoPE): its size does not depend on L. Only an unclipped table of 2L - 1 offsets, like "
        "an absolute table of L rows, grows with L.",
    )


NAMES = {
    "learned": "learned absolute",
    "shaw": "Shaw (clipped at K)",
    "shaw_unclipped": "unclipped Shaw",
    "t5": "T5 buckets",
    "transformer_xl": "Transformer-XL",
    "kerple": "KERPLE",
    "alibi": "ALiBi",
    "rope": "RoPE",
}


# the overview


def experiment_table() -> list[dict[str, str]]:
    """The experiments page's six claims on its stored default run (copy task)."""
    errors, _, _ = compute_experiment.translation("copy", *RUN.values(), False, RUN_SHIFT)
    return experiment_claims.claims_table(_run("copy"), errors, RUN_SHIFT)


def scoreboard(s: dict) -> dict[str, tuple[float, float]]:
    """For the claims that are identities: (error of the claim as stated, error of the precise statement)."""
    o = order(s["tokens"], s["d_model"], s["draw"])
    lin = linear(s["n"], s["d_model"], s["base"], s["offset"], s["draw"])
    diff = differences(s["d_model"], s["base"], s["offset"])
    rope = rope_factor(s["head_dim"], s["base"], s["draw"], s["span"])
    return {
        "1. invariant": (o.out_invariance, o.out_equivariance),
        "4. linear in [PE(p), PE(k)]": (float(lin.concat.max()), float(max(lin.fixed_k.max(), lin.bilinear.max()))),
        "6. equal differences": (float(diff.equal_differences.max()), float(diff.rotation.max())),
        "8. <q, k> f(m - n)": (max(rope.spread, rope.orthogonal), rope.shift_error),
    }


def findings(s: dict) -> dict[str, Finding]:
    """Every claim's finding at the settings ``s`` (the overview's controls)."""
    return {
        "order": finding_order(s["tokens"], s["d_model"], s["draw"]),
        "dim0": finding_dim0(s["n"], s["d_model"], s["base"]),
        "lowfreq": finding_lowfreq(s["d_model"], s["base"]),
        "linear": finding_linear(s["n"], s["d_model"], s["base"], s["offset"], s["draw"]),
        "orthogonal": finding_orthogonal(s["n"], s["d_model"], s["base"]),
        "differences": finding_differences(s["d_model"], s["base"], s["offset"]),
        "rope_long": finding_rope_long(),
        "rope_factor": finding_rope_factor(s["head_dim"], s["base"], s["draw"], s["span"]),
        "kerple": finding_kerple(s["kernel_len"], s["sigma"]),
        "deberta": finding_deberta(s["head_dim"], s["draw"]),
        "alibi_slopes": finding_alibi_slopes(s["heads"]),
        "alibi_long": finding_alibi_long(),
        "t5": finding_t5(s["shaw_k"]),
        "params": finding_params(s["context"], s["head_dim"], s["heads"], s["shaw_k"]),
        "sources": finding_sources(),
    }


def floor(values, at: float = 1e-17) -> np.ndarray:
    """Values for a log axis: exact zeros (and anything below ``at``) drawn at ``at``."""
    return np.maximum(np.asarray(values, dtype=np.float64), at)


# who uses what, and the myths about it

#: the lengths RoPE's operation count is drawn at: 16 to 131,072 tokens, powers of two
COST_LENGTHS = tuple(2**k for k in range(4, 18))
#: the causal linear attention RoPE is measured in: positions, head size, draw
LINEAR_LEN, LINEAR_DH, LINEAR_SEED = 256, 64, 0
#: the methods whose stored accuracy at twice the training length the table quotes, and their names
LONG_METHODS = {"rope": "RoPE", "t5": "T5", "alibi": "ALiBi", "sinusoidal": "sinusoid"}


@st.cache_data(**CACHE)
def rope_costs(head_dim: int) -> dict[str, np.ndarray]:
    """RoPE's rotation and the scores, in operations of one head, at each of ``COST_LENGTHS``."""
    counts = [core.rope_operation_counts(t, head_dim) for t in COST_LENGTHS]
    return {"rotation": np.array([c.rotation for c in counts]), "scores": np.array([c.scores for c in counts])}


@st.cache_data(**CACHE)
def myths(seq_len: int, head_dim: int, n_heads: int) -> dict:
    """The measured column of the myths table: ALiBi's learned parameters and slopes, RoPE's
    operations at this length, RoPE in linear attention, and the stored copy run at 2x."""
    run = _run("copy")
    return dict(
        alibi_params=core.relative_parameter_counts(seq_len, head_dim, n_heads)["alibi"],
        slopes=posenc.alibi_slopes(n_heads),
        cost=core.rope_operation_counts(seq_len, head_dim),
        linear_gap=core.rope_linear_attention_gap(LINEAR_LEN, LINEAR_DH, seed=LINEAR_SEED),
        lengths=list(run["lengths"][:2]),
        accuracy={m: run["accuracy"][m][:2] for m in LONG_METHODS},
        chance=run["chance"],
    )
