"""Absolute encodings: sinusoidal tables and learned tables.

Known values, a plain-loop oracle, and properties (values in [-1, 1], the
shift-by-k rotation that makes relative positions linear).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import posenc
from posenc import PositionOutOfRange, learned_table, lookup_learned, sinusoid_frequencies, sinusoidal

# helpers


def sinusoidal_loop(positions, d_model, base=10000.0, layout="interleaved"):
    """Textbook double loop: PE[p, 2i] = sin(p / base^(2i/D)), PE[p, 2i+1] = cos(...)."""
    half = d_model // 2
    table = [[0.0] * d_model for _ in positions]
    for row, p in enumerate(positions):
        for i in range(half):
            angle = p / base ** (2 * i / d_model)
            sin_col, cos_col = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, half + i)
            table[row][sin_col] = math.sin(angle)
            table[row][cos_col] = math.cos(angle)
    return np.array(table)


even_dims = st.integers(1, 32).map(lambda n: 2 * n)
float_positions = hnp.arrays(
    np.float64,
    st.integers(1, 12),
    elements=st.floats(0.0, 1e6, allow_nan=False, allow_infinity=False),
)


# known values


def test_first_entry_of_row_one_is_sin_one_exactly():
    pe = sinusoidal(2, 512)
    assert pe[1, 0] == math.sin(1.0)
    assert pe[1, 1] == math.cos(1.0)


@pytest.mark.parametrize("layout", posenc.SINUSOIDAL_LAYOUTS)
def test_row_zero_is_sin_zero_cos_zero(layout):
    pe = sinusoidal(3, 16, layout=layout)
    expected = [0.0, 1.0] * 8 if layout == "interleaved" else [0.0] * 8 + [1.0] * 8
    np.testing.assert_array_equal(pe[0], expected)


def test_hand_computed_row_with_small_base():
    # base 100, D = 4: w = [1, 100^(-1/2)] = [1, 0.1]
    pe = sinusoidal([2.0], 4, base=100.0)
    expected = [math.sin(2.0), math.cos(2.0), math.sin(0.2), math.cos(0.2)]
    np.testing.assert_allclose(pe[0], expected, rtol=1e-15, atol=1e-15)


def test_sinusoid_frequencies_are_powers_of_the_base():
    np.testing.assert_allclose(sinusoid_frequencies(8), [1.0, 0.1, 0.01, 0.001], rtol=1e-15)
    np.testing.assert_allclose(sinusoid_frequencies(4, base=16.0), [1.0, 0.25], rtol=1e-15)


def test_shape_and_dtype():
    pe = sinusoidal(5, 6)
    assert pe.shape == (5, 6)
    assert pe.dtype == np.float64


def test_concat_layout_is_a_fixed_column_permutation_of_interleaved():
    d_model = 10
    half = d_model // 2
    # interleaved column 2i is concat column i (sin), 2i+1 is concat column half + i (cos)
    perm = [c for i in range(half) for c in (i, half + i)]
    positions = [0.0, 1.0, 2.5, 17.0, 1000.0]
    interleaved = sinusoidal(positions, d_model)
    concat = sinusoidal(positions, d_model, layout="concat")
    np.testing.assert_array_equal(concat[:, perm], interleaved)
    assert not np.array_equal(concat, interleaved)


def test_int_n_means_positions_zero_to_n_minus_one():
    np.testing.assert_array_equal(sinusoidal(7, 8), sinusoidal(np.arange(7), 8))
    np.testing.assert_array_equal(sinusoidal(7, 8), sinusoidal([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 8))


# oracle


@pytest.mark.parametrize("layout", posenc.SINUSOIDAL_LAYOUTS)
@pytest.mark.parametrize(
    ("positions", "d_model", "base"),
    [
        (list(range(20)), 16, 10000.0),
        ([0.0, 0.5, 3.25, 99.0, 1000.0], 12, 10000.0),
        ([3, 1, 4, 1, 5], 2, 10000.0),
        ([0, 7, 31], 8, 10.0),
        ([2.0, 513.0], 64, 500000.0),
    ],
)
def test_sinusoidal_matches_loop(positions, d_model, base, layout):
    expected = sinusoidal_loop(positions, d_model, base, layout)
    got = sinusoidal(positions, d_model, base, layout=layout)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@given(positions=float_positions, d_model=even_dims)
def test_sinusoidal_matches_loop_for_random_positions(positions, d_model):
    expected = sinusoidal_loop(positions.tolist(), d_model)
    # angles up to 1e6 carry an absolute rounding error of about 1e6 * 2^-52
    np.testing.assert_allclose(sinusoidal(positions, d_model), expected, rtol=0, atol=1e-9)


# properties


@given(positions=float_positions, d_model=even_dims, base=st.floats(1.5, 1e6))
def test_values_lie_in_unit_interval_and_pairs_lie_on_the_unit_circle(positions, d_model, base):
    pe = sinusoidal(positions, d_model, base)
    assert np.all(np.abs(pe) <= 1.0)
    np.testing.assert_allclose(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, 1.0, rtol=1e-14)


@given(p=st.integers(0, 5000), k=st.integers(0, 5000), d_model=even_dims)
def test_pe_at_p_plus_k_is_a_rotation_of_pe_at_p(p, k, d_model):
    # (sin((p+k)w), cos((p+k)w)) = [[cos kw, sin kw], [-sin kw, cos kw]] (sin pw, cos pw)
    rows = sinusoidal([p, p + k], d_model)
    w = np.array([10000.0 ** (-2 * i / d_model) for i in range(d_model // 2)])
    c, s = np.cos(k * w), np.sin(k * w)
    sin_p, cos_p = rows[0, 0::2], rows[0, 1::2]
    np.testing.assert_allclose(rows[1, 0::2], c * sin_p + s * cos_p, rtol=0, atol=1e-9)
    np.testing.assert_allclose(rows[1, 1::2], -s * sin_p + c * cos_p, rtol=0, atol=1e-9)


def test_different_positions_get_different_rows():
    pe = sinusoidal(512, 64)
    # squared distances from the Gram matrix: |a - b|^2 = |a|^2 + |b|^2 - 2 a.b
    sq = np.sum(pe**2, axis=1)
    distances2 = sq[:, None] + sq[None, :] - 2 * pe @ pe.T
    np.fill_diagonal(distances2, np.inf)
    assert distances2.min() > 1e-3


# learned tables


def test_learned_table_shape_and_reproducibility():
    a = learned_table(6, 4, seed=3)
    assert a.shape == (6, 4)
    assert a.dtype == np.float64
    np.testing.assert_array_equal(a, learned_table(6, 4, seed=3))
    assert not np.array_equal(a, learned_table(6, 4, seed=4))


def test_learned_table_std():
    table = learned_table(2000, 64, std=0.05, seed=1)
    assert abs(table.mean()) < 0.005
    assert table.std() == pytest.approx(0.05, rel=0.02)
    np.testing.assert_array_equal(learned_table(3, 2, std=0.0), np.zeros((3, 2)))


def test_learned_table_odd_width_is_fine():
    # a learned table has no sin/cos pairs, so any width works
    assert learned_table(3, 5).shape == (3, 5)


def test_lookup_learned_returns_table_rows():
    table = np.arange(20.0).reshape(5, 4)
    got = lookup_learned(table, [3, 0, 3, 4])
    np.testing.assert_array_equal(got, [[12, 13, 14, 15], [0, 1, 2, 3], [12, 13, 14, 15], [16, 17, 18, 19]])
    np.testing.assert_array_equal(lookup_learned(table, 2), table[:2])
    np.testing.assert_array_equal(lookup_learned(table, [1.0, 4.0]), table[[1, 4]])


@given(
    table=hnp.arrays(np.float64, st.tuples(st.integers(1, 10), st.integers(1, 6)), elements=st.floats(-5, 5)),
    data=st.data(),
)
def test_lookup_learned_matches_loop(table, data):
    positions = data.draw(st.lists(st.integers(0, table.shape[0] - 1), min_size=1, max_size=12))
    expected = np.array([[table[p, c] for c in range(table.shape[1])] for p in positions])
    np.testing.assert_array_equal(lookup_learned(table, positions), expected)


def test_position_out_of_range_is_an_exported_value_error():
    assert posenc.PositionOutOfRange is PositionOutOfRange
    assert issubclass(PositionOutOfRange, ValueError)


@pytest.mark.parametrize("bad", [4, 5, 1000])
def test_position_past_the_table_raises_and_names_position_and_max_len(bad):
    table = learned_table(4, 3)
    lookup_learned(table, [3])  # the last row is fine
    with pytest.raises(PositionOutOfRange) as info:
        lookup_learned(table, [0, 1, bad])
    message = str(info.value)
    assert re.search(rf"\b{bad}\b", message), message
    assert "max_len" in message
    assert re.search(r"\b4\b", message), message


def test_huge_whole_float_position_is_out_of_range_not_an_index_error():
    # 1e20 is a whole number far past the table; it must not wrap or overflow into an IndexError
    table = learned_table(4, 3)
    with pytest.raises(PositionOutOfRange, match="max_len"):
        lookup_learned(table, [1e20])


def test_negative_position_is_refused_not_wrapped():
    table = learned_table(4, 3)
    with pytest.raises(ValueError, match="positions") as info:
        lookup_learned(table, [0, -1])
    assert "-1" in str(info.value)


@pytest.mark.parametrize("n", [256, 257, 1000, 4096, 8191])
@pytest.mark.parametrize("layout", posenc.SINUSOIDAL_LAYOUTS)
def test_blocked_construction_for_many_positions_matches_the_direct_formula(n, layout):
    # an int n >= 256 is built by angle addition; an explicit array goes through sin(p * w)
    blocked = posenc.sinusoidal(n, 64, layout=layout)
    direct = posenc.sinusoidal(np.arange(n, dtype=float), 64, layout=layout)
    assert blocked.shape == (n, 64)
    np.testing.assert_allclose(blocked, direct, rtol=0, atol=2e-12)
    # and it is as close to the exact sin(p * w) as the direct formula is
    sines = slice(0, None, 2) if layout == "interleaved" else slice(0, 32)
    w = posenc.sinusoid_frequencies(64).astype(np.longdouble)
    exact_sin = np.sin(np.arange(n, dtype=np.longdouble)[:, None] * w[None, :])
    blocked_err = float(np.abs(blocked[:, sines] - exact_sin).max())
    direct_err = float(np.abs(direct[:, sines] - exact_sin).max())
    assert blocked_err <= 2 * direct_err + 1e-15
    assert blocked[1, 0] == np.sin(1.0)
