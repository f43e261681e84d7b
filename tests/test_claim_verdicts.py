"""The verdicts of "Common claims, measured": one rule for all of them, and verdicts that
stay the same across the settings a claim does not depend on.

The findings are called directly (the cached functions run without a Streamlit session);
the page tests (tests/test_page_claims.py) check that the page prints the same verdicts.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import posenc
from posenc_lab.lessons.claims import compute
from posenc_lab.lessons.claims import exercises as claims_exercises
from posenc_lab.lessons.claims import measure as core
from posenc_lab.ui.exercise_kinds import concrete

HALF, HOLDS, FALSE = compute.HALF, compute.HOLDS, compute.FALSE


def test_the_rule_reads_the_claim_as_stated_first_then_its_part():
    assert compute.rule(True, False) == HOLDS
    assert compute.rule(True, True) == HOLDS
    assert compute.rule(False, True) == HALF
    assert compute.rule(False, False) == FALSE
    # a claim with no part listed cannot be half true, whatever its measurement says of a part
    assert "dim0" not in compute.PARTS
    assert compute.finding("dim0", False, True, "m", "s").verdict == FALSE
    half = compute.finding("linear", False, True, "m", "s")
    assert (half.verdict, half.part) == (HALF, compute.PARTS["linear"])
    assert compute.finding("linear", True, True, "m", "s").part == ""


def test_every_part_belongs_to_a_claim():
    assert set(compute.PARTS) <= set(compute.CLAIMS)


@pytest.mark.parametrize("heads", range(1, compute.HEADS_CHECKED + 1))
def test_the_slope_claim_about_every_h_has_one_verdict_for_every_h(heads):
    # "for any number of heads": right for the 7 powers of two in 1..64, wrong for the 57 others,
    # so half true whichever H the chart shows (the old verdict said "false" at the 57)
    f = compute.finding_alibi_slopes(heads)
    assert f.verdict == HALF
    assert f.part == compute.PARTS["alibi_slopes"]
    assert "wrong for 57 of the head counts 1..64" in f.measured
    assert "appends" in f.statement and "interleave" not in f.statement


@pytest.mark.parametrize("head_dim", [2, 8, 64, 256])
@pytest.mark.parametrize("base", [10.0, 1_000_000.0])
@pytest.mark.parametrize(("draw", "span"), [(0, 8), (99, 512)])
def test_the_rope_score_claim_is_half_true_like_the_shift_claim(head_dim, base, draw, span):
    # the score is a function of m - n (true part) but not q.k f(m - n): the same mix as claim 4
    f = compute.finding_rope_factor(head_dim, base, draw, span)
    assert f.verdict == HALF
    assert f.part == compute.PARTS["rope_factor"]


@pytest.mark.parametrize(("n", "width", "base", "offset", "draw"), [(64, 4, 10.0, 1, 0), (100, 64, 10_000.0, 5, 7)])
def test_the_shift_claim_is_half_true(n, width, base, offset, draw):
    f = compute.finding_linear(n, width, base, offset, draw)
    assert f.verdict == HALF and f.part == compute.PARTS["linear"]


def test_rope_extrapolation_is_false_even_at_twice_the_length():
    # the stored run keeps 100 % at L and drops at 2L already: no part of "to any length" holds
    r = compute.rope_run()
    assert r["accuracy"][1] < r["accuracy"][0] - 0.05
    assert compute.finding_rope_long().verdict == FALSE


SETTINGS = (
    dict(tokens=6, d_model=128, draw=0, n=100, base=10_000.0, offset=5, head_dim=64, span=64, kernel_len=32,
         sigma=1.0, heads=12, shaw_k=16, context=1024),
    dict(tokens=2, d_model=4, draw=99, n=64, base=10.0, offset=64, head_dim=2, span=8, kernel_len=8,
         sigma=2.0, heads=1, shaw_k=1, context=16),
)  # fmt: skip


@pytest.mark.parametrize("s", SETTINGS)
def test_a_half_true_verdict_always_names_its_part(s):
    for key, f in compute.findings(s).items():
        if f.verdict == HALF:
            assert key in compute.PARTS and f.part == compute.PARTS[key], key
        else:
            assert f.part == "", key


def press_slopes(n):
    """Press et al.'s get_slopes, written out (attention_with_linear_biases, fairseq/models/transformer.py)."""

    def power_of_2(m):
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start * start**i for i in range(m)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + power_of_2(2 * closest)[0::2][: n - closest]


@pytest.mark.parametrize("heads", range(1, compute.HEADS_CHECKED + 1))
def test_the_slope_range_sentence_matches_the_slopes_at_every_h(heads):
    text = compute.slope_range(heads)
    exponents = np.log2(press_slopes(heads))
    low, high = exponents.min(), exponents.max()
    assert f"2^{high:g}" in text and (heads == 1 or f"from 2^{low:g} to 2^{high:g}" in text)
    c = 2 ** math.floor(math.log2(heads))
    if c != heads:
        # the steepest slope is the first appended one, 2^(-4/c): 2^-2 at H = 3, 2^-0.125 at H = 33..63
        assert high == pytest.approx(-4 / c) and f"c = {c}" in text
    # the old sentence's "2^-8 to 2^-0.5" is right only for H = 9..16
    assert ("2^-0.5" in text) == (9 <= heads <= 16)


def test_t5_statement_counts_the_buckets_as_t5_bucket_fills_them():
    # oracle: the bucket of each distance 0..999 behind the query, straight from posenc.t5_bucket
    buckets = posenc.t5_bucket(-np.arange(1000))
    first = {int(b): int(np.argmax(buckets == b)) for b in np.unique(buckets)}
    exact = [b for b in first if (buckets == b).sum() == 1]
    last = max(first)
    logarithmic = [b for b in first if b not in exact and b != last]
    assert (len(exact), len(logarithmic), first[last]) == (8, 7, 91)
    said = f"{len(exact)} exact (distances 0..7), {len(logarithmic)} logarithmically wider (distances 8..90)"
    for text in (compute.finding_t5(16).statement, concrete(claims_exercises.EXERCISES[3]).choices[0].why):
        assert said in text and f"every distance from {first[last]} on" in text
        assert "up to max_distance" not in text and "up to 128" not in text


@pytest.mark.parametrize(
    ("width", "base", "k"), [(128, 10_000.0, 5), (4, 10.0, 1), (4, 1_000_000.0, 64), (256, 10.0, 64), (40, 500.0, 17)]
)
def test_equal_differences_peak_where_k_w_is_near_pi_not_where_the_sinusoid_is_fastest(width, base, k):
    errors = compute.differences(width, base, k).equal_differences
    w = base ** (-np.arange(0, width, 2) / width)  # the pair frequencies, written out
    # per pair, the second difference of (sin, cos)(p w) at p = 0, k, 2k has length 4 sin^2(k w / 2)
    np.testing.assert_allclose(np.hypot(errors[0::2], errors[1::2]), 4 * np.sin(k * w / 2) ** 2, atol=1e-9)
    text = compute.difference_peak(width, base, k)
    dim = int(np.argmax(errors))
    assert f"error, {errors[dim]:.2f}, is in dimension {dim} (pair {dim // 2}, k w = {k * w[dim // 2]:.2f} rad" in text
    assert f"dimension 0, the fastest (k w = {k:.2f} rad), errs by {errors[0]:.2f}" in text


def test_at_the_usual_check_the_worst_dimension_is_not_the_fastest():
    # PE[10] - PE[5] against PE[5] - PE[0] at d_model 128: dimension 7 (k w = 3.25, near pi) errs by 3.97,
    # dimension 0 (k w = 5) by 1.37
    errors = compute.differences(128, 10_000.0, 5).equal_differences
    assert int(np.argmax(errors)) == 7 and round(float(errors[7]), 2) == 3.97 and round(float(errors[0]), 2) == 1.37
    assert "fastest" not in compute.finding_differences(128, 10_000.0, 5).statement


@pytest.mark.parametrize(("length", "r1"), [(2, 1.0), (32, 1.0), (128, 0.05), (64, 3.0)])
def test_kerple_power_at_r2_2_is_a_gaussian_rbf_only_through_softmax(length, r1):
    sigma, gap = core.kerple_boundary_gap(length, r1=r1)
    assert sigma == pytest.approx(1 / math.sqrt(2 * r1)) and gap < 1e-15
    d = np.arange(length, dtype=float)
    grid = np.abs(d[:, None] - d[None, :])
    bias = -r1 * grid**2  # KERPLE's power bias at r2 = 2, written out
    # the bias is no RBF kernel: a zero diagonal makes it indefinite, yet it is CPD
    assert np.linalg.eigvalsh(bias)[0] < 0
    assert core.sum_zero_eigenvalues(bias)[0] > -1e-9 * np.abs(bias).max()


@pytest.mark.parametrize(("length", "sigma"), [(8, 0.5), (32, 1.0), (128, 2.0)])
def test_the_kerple_claim_stays_false_and_names_the_boundary(length, sigma):
    f = compute.finding_kerple(length, sigma)
    assert f.verdict == FALSE
    assert "at r2 = 2" in f.statement and f"sigma = 1/sqrt(2 r1) ({1 / math.sqrt(2 * compute.KERPLE_R1):.3g}" in (
        f.statement
    )


FIT_SETTINGS = [
    (n, width, base, draw) for n in (64, 1024) for width in (4, 16, 64) for base in (10.0, 1e6) for draw in (0, 99)
] + [(100, 128, 10_000.0, 0), (64, 128, 10.0, 99), (1024, 256, 10.0, 0), (64, 256, 1e6, 99)]


@pytest.mark.parametrize(("n", "width", "base", "draw"), FIT_SETTINGS)
def test_the_linear_fit_errs_by_more_than_the_exercise_says_on_the_fastest_dimensions(n, width, base, draw):
    # the exercise "Linear in what?" says the fit errs by more than FIT_ERROR_ABOVE on dimensions 0 and 1
    # (it said "about 1": the errors run from 1.1 to 1.9)
    assert "about 1" not in claims_exercises.EXERCISES[1].choices[2].why
    fit = core.shift_pair_fit(n, width, base, seed=draw)
    assert fit.concat[:2].max() > claims_exercises.FIT_ERROR_ABOVE


@pytest.mark.parametrize("s", SETTINGS)
def test_the_parameter_claim_is_half_true_since_unclipped_shaw_grows(s):
    """Claim 14's part, "some relative method in the chart needs parameters that grow with L", holds for the
    chart's unclipped Shaw (a table of 2L - 1 offsets) at every setting; clipped Shaw, T5, ALiBi and RoPE
    do not grow, so the claim as stated does not hold."""
    r = compute.parameters(s["context"], s["head_dim"], s["heads"], s["shaw_k"])
    assert r["long"]["shaw_unclipped"] > r["short"]["shaw_unclipped"]
    assert r["long"]["shaw"] == r["short"]["shaw"]
    f = compute.finding_params(s["context"], s["head_dim"], s["heads"], s["shaw_k"])
    assert (f.verdict, f.part) == (HALF, compute.PARTS["params"])


@pytest.mark.parametrize("n", [64, 100, 1024])
@pytest.mark.parametrize("d_model", [4, 8, 128, 256])
@pytest.mark.parametrize("base", [10.0, 10_000.0, 1_000_000.0])
def test_the_orthogonality_sentence_says_what_the_cosines_show(n, d_model, base):
    """Claim 5: "fast columns are nearly orthogonal, slow ones ... nearly parallel" only where they are
    (not at base 10, d_model 4-8, where every column turns twice or more, nor at d_model 256, base 10,
    n 64, where the two fastest sine columns have cosine +0.80)."""
    r = compute.orthogonal(n, d_model, base)
    text = compute.finding_orthogonal(n, d_model, base).statement
    fast, slow = r.sin_neighbours[0], r.sin_neighbours[-1]
    slowest_turns = n / posenc.wavelengths(d_model, base)[-1]
    assert ("fastest sine columns are nearly orthogonal" in text) == (abs(fast) <= 0.1)
    assert ("nearly parallel" in text) == (slow >= 0.9 and slowest_turns < 1)
    assert ("not orthogonal" in text) == (r.max_off_diagonal >= 1e-6)
    if "nearly parallel" not in text:
        assert f"makes {slowest_turns:,.3g} turn" in text
