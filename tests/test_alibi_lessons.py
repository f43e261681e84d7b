"""posenc.alibi: slope origins, ALiBi at chosen positions, the span of any attention row."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc import alibi as al

# oracles


def press_get_slopes(n: int) -> list[float]:
    """Press et al.'s ``get_slopes``, as in ofirpress/attention_with_linear_biases (plain loops)."""

    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + press_get_slopes(2 * closest)[0::2][: n - closest]


def loop_span(weights: list[float], mass: float) -> int:
    total = 0.0
    for d, w in enumerate(weights):
        total += w
        if total >= mass - 1e-9:
            return d
    return len(weights) - 1


# slope_origin


@pytest.mark.parametrize("n_heads", list(range(1, 65)) + [96, 100, 1024])
def test_slope_origin_rebuilds_press_et_al_slopes(n_heads):
    origin = al.slope_origin(n_heads)
    rebuilt = 2.0 ** (-8.0 * origin.index / origin.schedule)
    np.testing.assert_allclose(rebuilt, press_get_slopes(n_heads), rtol=1e-13)
    np.testing.assert_allclose(rebuilt, posenc.alibi_slopes(n_heads), rtol=1e-13)


@pytest.mark.parametrize("n_heads", [3, 5, 6, 7, 9, 12, 24, 48, 63, 100, 1000])
def test_the_first_extra_slope_is_steeper_than_the_whole_first_schedule(n_heads):
    slopes = np.asarray(press_get_slopes(n_heads))
    c = 2 ** math.floor(math.log2(n_heads))
    first, extra = slopes[:c], slopes[c:]
    assert extra[0] == pytest.approx(2 ** (-4 / c), rel=1e-13)
    assert extra[0] > first.max(), "not 'between the steepest slopes': steeper than all of them"
    # each further one sits halfway, on a log scale, between two neighbouring first-schedule slopes
    for k, s in enumerate(extra[1:], start=1):
        lo, hi = first[k], first[k - 1]
        assert lo < s < hi
        assert math.log2(s) == pytest.approx((math.log2(lo) + math.log2(hi)) / 2, rel=1e-12)


def test_slope_origin_twelve_heads_by_hand():
    # c = 8: heads 1..8 are 2^-1..2^-8; heads 9..12 take entries 1, 3, 5, 7 of the 16-head schedule
    origin = al.slope_origin(12)
    assert origin.schedule.tolist() == [8] * 8 + [16] * 4
    assert origin.index.tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 1, 3, 5, 7]
    extra = 2.0 ** (-8.0 * origin.index[8:] / 16)
    np.testing.assert_allclose(extra, [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5])


def test_slope_origin_power_of_two_uses_one_schedule():
    origin = al.slope_origin(16)
    assert set(origin.schedule.tolist()) == {16}
    assert origin.index.tolist() == list(range(1, 17))


@pytest.mark.parametrize("bad", [0, -3, 1025, 2.5, "8", True])
def test_slope_origin_refuses_bad_head_counts(bad):
    with pytest.raises(ValueError, match="n_heads"):
        al.slope_origin(bad)


# alibi_bias_at


def test_alibi_bias_at_matches_a_plain_loop():
    slopes, qs, ks = [0.5, 0.125, 0.0], [0, 3, 7], [1, 2, 9, 4]
    got = al.alibi_bias_at(slopes, qs, ks)
    for h, m in enumerate(slopes):
        for a, i in enumerate(qs):
            for b, j in enumerate(ks):
                assert got[h, a, b] == -m * abs(i - j)


@given(
    n_heads=st.integers(1, 12),
    length=st.integers(1, 40),
    step=st.integers(1, 7),
)
def test_alibi_bias_at_is_posenc_alibi_bias_on_a_thinned_grid(n_heads, length, step):
    positions = np.arange(0, length, step)
    slopes = posenc.alibi_slopes(n_heads)
    full = posenc.alibi_bias(n_heads, length)
    np.testing.assert_array_equal(al.alibi_bias_at(slopes, positions, positions), full[:, ::step, ::step])


def test_alibi_bias_at_one_row_is_the_last_query_of_posenc():
    slopes = posenc.alibi_slopes(4)
    np.testing.assert_array_equal(al.alibi_bias_at(slopes, [9], 10), posenc.alibi_bias(4, 1, 10))


@pytest.mark.parametrize(
    ("slopes", "q", "k", "match"),
    [
        ([-0.5], [1], [2], "slopes"),
        ([[0.5]], [1], [2], "slopes"),
        ([np.nan], [1], [2], "slopes"),
        ([0.5], [-1], [2], "q_positions"),
        ([0.5], [1], [[2]], "k_positions"),
        ([0.5] * 1025, [1], [2], "slopes"),
    ],
)
def test_alibi_bias_at_refuses_bad_arguments(slopes, q, k, match):
    with pytest.raises(ValueError, match=match):
        al.alibi_bias_at(slopes, q, k)


def test_alibi_bias_at_refuses_huge_grids_before_allocating():
    with pytest.raises(ValueError, match="limit"):
        al.alibi_bias_at(np.ones(64), 4096, 4096)


# mass_span


def test_mass_span_by_hand():
    assert al.mass_span([0.5, 0.3, 0.2], 0.5) == 0
    assert al.mass_span([0.5, 0.3, 0.2], 0.8) == 1
    assert al.mass_span([0.5, 0.3, 0.2], 0.81) == 2
    assert al.mass_span([[1.0, 0.0], [0.0, 1.0]], 0.9).tolist() == [0, 1]


@given(
    raw=st.lists(st.floats(0.0, 10.0), min_size=1, max_size=30).filter(lambda w: sum(w) > 1e-3),
    mass=st.floats(0.01, 0.99),
)
def test_mass_span_matches_a_plain_loop(raw, mass):
    weights = np.asarray(raw) / np.sum(raw)
    assert int(al.mass_span(weights, mass)) == loop_span(weights.tolist(), mass)


@pytest.mark.parametrize("length", [1, 2, 64, 1000, 4096])
@pytest.mark.parametrize("mass", [0.5, 0.9, 0.99])
def test_mass_span_of_alibi_weights_is_the_closed_form_alibi_span(length, mass):
    slopes = np.concatenate([posenc.alibi_slopes(64), posenc.alibi_slopes(12), [2.0**-10, 4.0]])
    by_distance = posenc.alibi_bias(slopes.size, 1, length, slopes=slopes)[:, 0, ::-1]  # (H, L), nearest first
    weights = posenc.softmax(by_distance)
    np.testing.assert_array_equal(
        al.mass_span(weights, mass), posenc.alibi_span(slopes, context=length, mass=mass).astype(int)
    )


def test_mass_span_grows_with_mass():
    weights = posenc.softmax(-0.1 * np.arange(200.0))
    spans = [int(al.mass_span(weights, p)) for p in (0.1, 0.5, 0.9, 0.99)]
    assert spans == sorted(spans) and spans[0] < spans[-1]


@pytest.mark.parametrize(
    ("weights", "mass", "match"),
    [
        ([0.5, 0.5], 0.0, "mass"),
        ([0.5, 0.5], 1.0, "mass"),
        ([1.5, -0.5], 0.5, "weights must be >= 0"),
        ([0.2, 0.2], 0.5, "sum to 1"),
        ([], 0.5, "weights"),
        (0.5, 0.5, "weights"),
    ],
)
def test_mass_span_refuses_bad_arguments(weights, mass, match):
    with pytest.raises(ValueError, match=match):
        al.mass_span(weights, mass)
