"""Relative positions and attention biases: ALiBi, KERPLE, Shaw, T5, Transformer-XL, DeBERTa.

Each method is checked against a plain double loop that follows its docstring formula,
plus known values and properties. Queries are the last Tq of Tk positions:
pos_q(i) = Tk - Tq + i.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import posenc
from posenc import (
    alibi_bias,
    alibi_slopes,
    deberta_log_bucket,
    deberta_scores,
    kerple_bias,
    kerple_from_distance,
    relative_positions,
    shaw_relative_embeddings,
    shaw_scores,
    t5_bias,
    t5_bucket,
    transformer_xl_scores,
)

# helpers


def pos_q(i, q_len, k_len):
    return k_len - q_len + i


def dot(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


def t5_bucket_scalar(r, bidirectional=True, num_buckets=32, max_distance=128):
    """T5's _relative_position_bucket for one int, in float64 with math.log."""
    bucket = 0
    if bidirectional:
        num_buckets //= 2
        if r > 0:
            bucket += num_buckets
        n = abs(r)
    else:
        n = max(-r, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return bucket + n
    large = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact))
    return bucket + min(large, num_buckets - 1)


def deberta_bucket_scalar(r, bucket_size, max_position):
    """make_log_bucket_position for one int, in float64."""
    mid = bucket_size // 2
    if abs(r) <= mid:
        return r
    log_pos = math.ceil(math.log(abs(r) / mid) / math.log((max_position - 1) / mid) * (mid - 1)) + mid
    return int(math.copysign(log_pos, r))


small_lengths = st.tuples(st.integers(1, 7), st.integers(0, 5)).map(lambda t: (t[0], t[0] + t[1]))


# ALiBi


def test_alibi_slopes_eight_heads_are_halvings():
    np.testing.assert_array_equal(alibi_slopes(8), [1 / 2**k for k in range(1, 9)])


def test_alibi_slopes_twelve_heads_follow_the_reference_rule():
    # the 8 slopes of 8 heads, then every other slope of 16 heads: 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5
    expected = [2.0**-k for k in range(1, 9)] + [2.0 ** -(k + 0.5) for k in range(4)]
    np.testing.assert_allclose(alibi_slopes(12), expected, rtol=1e-14)


@pytest.mark.parametrize("n_heads", [1, 2, 4, 16, 32, 64, 1024])
def test_alibi_slopes_powers_of_two_are_geometric(n_heads):
    start = 2.0 ** (-8 / n_heads)
    expected = [start ** (h + 1) for h in range(n_heads)]
    got = alibi_slopes(n_heads)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert got[-1] == pytest.approx(2.0**-8, rel=1e-12)


@pytest.mark.parametrize("n_heads", [3, 5, 6, 7, 12, 20, 24, 48, 100, 1000])
def test_alibi_slopes_are_distinct_and_in_range(n_heads):
    slopes = alibi_slopes(n_heads)
    assert slopes.shape == (n_heads,)
    assert np.all((slopes > 0) & (slopes < 1))
    assert len(np.unique(slopes)) == n_heads


@pytest.mark.parametrize(("n_heads", "q_len", "k_len"), [(1, 1, 1), (4, 5, 5), (3, 2, 6), (8, 4, 9)])
def test_alibi_bias_matches_loop(n_heads, q_len, k_len):
    slopes = alibi_slopes(n_heads)
    expected = [
        [[-slopes[h] * abs(pos_q(i, q_len, k_len) - j) for j in range(k_len)] for i in range(q_len)]
        for h in range(n_heads)
    ]
    np.testing.assert_array_equal(alibi_bias(n_heads, q_len, k_len), expected)


def test_alibi_bias_with_given_slopes_by_hand():
    got = alibi_bias(2, 2, 3, slopes=[1.0, 0.5])
    expected = [[[-1, 0, -1], [-2, -1, 0]], [[-0.5, 0, -0.5], [-1, -0.5, 0]]]
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(alibi_bias(2, 3), alibi_bias(2, 3, 3))


@given(n_heads=st.integers(1, 12), lengths=small_lengths)
def test_alibi_bias_zero_on_diagonal_and_decreasing_with_distance(n_heads, lengths):
    q_len, k_len = lengths
    bias = alibi_bias(n_heads, q_len, k_len)
    assert bias.shape == (n_heads, q_len, k_len)
    for i in range(q_len):
        p = pos_q(i, q_len, k_len)
        assert np.all(bias[:, i, p] == 0)
        # strictly increasing up to the diagonal, strictly decreasing after it
        assert np.all(np.diff(bias[:, i, : p + 1], axis=-1) > 0)
        assert np.all(np.diff(bias[:, i, p:], axis=-1) < 0)


# KERPLE


@pytest.mark.parametrize("kind", posenc.KERPLE_KINDS)
@pytest.mark.parametrize(("q_len", "k_len"), [(4, 4), (2, 5)])
def test_kerple_bias_matches_loop(kind, q_len, k_len):
    r1, r2 = [0.5, 2.0, 1.0], [1.5, 0.3, 2.0]
    expected = []
    for h in range(3):
        grid = []
        for i in range(q_len):
            row = []
            for j in range(k_len):
                d = abs(pos_q(i, q_len, k_len) - j)
                row.append(-r1[h] * d ** r2[h] if kind == "power" else -r1[h] * math.log(1 + r2[h] * d))
            grid.append(row)
        expected.append(grid)
    got = kerple_bias(q_len, k_len, r1=r1, r2=r2, kind=kind)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


def test_kerple_scalar_parameters_give_one_head_and_broadcast():
    assert kerple_bias(3, r1=1.0, r2=1.0).shape == (1, 3, 3)
    both = kerple_bias(3, r1=[1.0, 2.0], r2=0.5)
    np.testing.assert_allclose(both[1], 2 * both[0], rtol=1e-15)


def test_kerple_power_with_exponent_one_is_alibi():
    slopes = [0.5, 0.25, 0.125]
    np.testing.assert_allclose(
        kerple_bias(3, 6, r1=slopes, r2=1.0, kind="power"), alibi_bias(3, 3, 6, slopes=slopes), rtol=1e-15
    )


def test_kerple_from_distance_matches_loop():
    distance = np.array([[0.0, 1.0, 2.5], [7.0, 3.0, 0.0]])
    got = kerple_from_distance(distance, r1=[1.0, 0.5], r2=[0.5, 2.0], kind="log")
    expected = [[[-r1 * math.log1p(r2 * d) for d in row] for row in distance] for r1, r2 in ((1.0, 0.5), (0.5, 2.0))]
    np.testing.assert_allclose(got, expected, rtol=1e-14)
    assert np.all(got[:, distance == 0] == 0)


# relative positions and Shaw et al.


@given(lengths=small_lengths, max_distance=st.none() | st.integers(0, 6))
def test_relative_positions_match_loop(lengths, max_distance):
    q_len, k_len = lengths
    expected = [[j - pos_q(i, q_len, k_len) for j in range(k_len)] for i in range(q_len)]
    if max_distance is not None:
        expected = [[max(-max_distance, min(max_distance, r)) for r in row] for row in expected]
    got = relative_positions(q_len, k_len, max_distance)
    assert np.issubdtype(got.dtype, np.integer)
    np.testing.assert_array_equal(got, expected)


def test_relative_positions_by_hand():
    np.testing.assert_array_equal(relative_positions(3), [[0, 1, 2], [-1, 0, 1], [-2, -1, 0]])
    # a query after a cache: the last 2 of 4 positions
    np.testing.assert_array_equal(relative_positions(2, 4), [[-2, -1, 0, 1], [-3, -2, -1, 0]])
    np.testing.assert_array_equal(relative_positions(3, max_distance=1), [[0, 1, 1], [-1, 0, 1], [-1, -1, 0]])


@pytest.mark.parametrize(("q_len", "k_len", "max_distance"), [(3, 3, 1), (4, 6, 2), (5, 5, 10)])
def test_shaw_relative_embeddings_match_loop(q_len, k_len, max_distance):
    table = np.random.default_rng(0).standard_normal((2 * max_distance + 1, 3))
    got = shaw_relative_embeddings(table, q_len, k_len)
    assert got.shape == (q_len, k_len, 3)
    for i in range(q_len):
        for j in range(k_len):
            r = max(-max_distance, min(max_distance, j - pos_q(i, q_len, k_len)))
            np.testing.assert_array_equal(got[i, j], table[r + max_distance])


@given(lengths=small_lengths, max_distance=st.integers(0, 4), seed=st.integers(0, 2**32 - 1))
def test_shaw_scores_match_loop(lengths, max_distance, seed):
    q_len, k_len = lengths
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((q_len, 4)), rng.standard_normal((k_len, 4))
    table = rng.standard_normal((2 * max_distance + 1, 4))
    terms = shaw_scores(q, k, table)
    for i in range(q_len):
        for j in range(k_len):
            r = max(-max_distance, min(max_distance, j - pos_q(i, q_len, k_len)))
            assert terms.content[i, j] == pytest.approx(dot(q[i], k[j]), abs=1e-12)
            assert terms.position[i, j] == pytest.approx(dot(q[i], table[r + max_distance]), abs=1e-12)
    # the gathered form agrees with the explicit (Tq, Tk, Dh) embeddings
    a = shaw_relative_embeddings(table, q_len, k_len)
    np.testing.assert_allclose(terms.position, np.einsum("id,ijd->ij", q, a), atol=1e-12)


# T5


def test_t5_small_offsets_are_exact_bidirectional():
    # n = 16 buckets per direction, 8 exact: keys behind keep their distance, keys ahead add 16
    for r in range(8):
        assert t5_bucket(-r) == r
    for r in range(1, 8):
        assert t5_bucket(r) == 16 + r


def test_t5_small_offsets_are_exact_unidirectional():
    # all 32 buckets look back, 16 exact; keys ahead share bucket 0
    for r in range(16):
        assert t5_bucket(-r, bidirectional=False) == r
    np.testing.assert_array_equal(t5_bucket([1, 5, 1000], bidirectional=False), [0, 0, 0])


def test_t5_far_offsets_share_the_last_bucket():
    np.testing.assert_array_equal(t5_bucket([-128, -129, -10_000]), [15, 15, 15])
    np.testing.assert_array_equal(t5_bucket([128, 10_000]), [31, 31])


T5_CONFIGS = [(True, 32, 128), (False, 32, 128), (True, 64, 256), (False, 16, 64), (True, 8, 20), (True, 4, 3)]


@pytest.mark.parametrize(("bidirectional", "num_buckets", "max_distance"), T5_CONFIGS)
def test_t5_bucket_matches_loop(bidirectional, num_buckets, max_distance):
    # float64 and the reference's float32 agree on these offsets (see the snapshot meta);
    # the float32 edges themselves are pinned by the snapshot test
    offsets = np.arange(-300, 301)
    expected = [t5_bucket_scalar(int(r), bidirectional, num_buckets, max_distance) for r in offsets]
    got = t5_bucket(offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    np.testing.assert_array_equal(got, expected)


@given(
    bidirectional=st.booleans(),
    num_buckets=st.integers(4, 64),
    max_distance=st.integers(33, 500),
)
def test_t5_bucket_range_and_monotone_in_distance(bidirectional, num_buckets, max_distance):
    back = t5_bucket(
        -np.arange(0, 600), bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    ahead = t5_bucket(
        np.arange(1, 600), bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    assert back.min() >= 0 and ahead.min() >= 0
    assert back.max() < num_buckets and ahead.max() < num_buckets
    assert np.all(np.diff(back) >= 0)
    assert np.all(np.diff(ahead) >= 0)
    if bidirectional:
        assert set(back.tolist()).isdisjoint(ahead.tolist())


def test_t5_bucket_keeps_shape():
    rel = relative_positions(3, 5)
    assert t5_bucket(rel).shape == (3, 5)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("q_len", "k_len"), [(4, 4), (3, 40)])
def test_t5_bias_matches_loop(bidirectional, q_len, k_len):
    table = np.random.default_rng(1).standard_normal((16, 3))  # (num_buckets, H)
    got = t5_bias(table, q_len, k_len, bidirectional=bidirectional, max_distance=20)
    assert got.shape == (3, q_len, k_len)
    for h in range(3):
        for i in range(q_len):
            for j in range(k_len):
                bucket = t5_bucket_scalar(j - pos_q(i, q_len, k_len), bidirectional, 16, 20)
                assert got[h, i, j] == table[bucket, h]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 90),
    st.integers(0, 90),
    st.booleans(),
    st.sampled_from([(4, 3), (8, 5), (16, 20), (32, 128), (64, 500)]),
    st.integers(1, 3),
)
def test_t5_bias_looks_up_each_pairs_bucket(q_len, extra, bidirectional, shape, heads):
    """t5_bias buckets each distance once; it gives what bucketing every pair gives."""
    num_buckets, max_distance = shape
    if not bidirectional:
        max_distance = max(max_distance, num_buckets // 2 + 1)
    k_len = q_len + extra
    table = np.random.default_rng(q_len).standard_normal((num_buckets, heads))
    got = t5_bias(table, q_len, k_len, bidirectional=bidirectional, max_distance=max_distance)
    buckets = t5_bucket(
        relative_positions(q_len, k_len),
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    )
    np.testing.assert_array_equal(got, np.moveaxis(table[buckets], -1, 0))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 40), st.integers(0, 6), st.integers(1, 4))
def test_distance_grids_are_their_definitions_at_any_lengths(q_len, extra, clip, heads):
    """The grids built once per distance and laid out over the pairs (Toeplitz windows)
    equal their definitions pair by pair, rows of the queries at the end of the keys."""
    k_len = q_len + extra
    query_minus_key = np.arange(k_len - q_len, k_len)[:, None] - np.arange(k_len)[None, :]  # (Tq, Tk)
    rel = relative_positions(q_len, k_len)
    assert rel.dtype == np.int64 and rel.flags.c_contiguous
    np.testing.assert_array_equal(rel, -query_minus_key)
    np.testing.assert_array_equal(relative_positions(q_len, k_len, clip), np.clip(-query_minus_key, -clip, clip))
    slopes = np.linspace(0.0, 2.0, heads)
    expected = -slopes[:, None, None] * np.abs(query_minus_key)[None].astype(float)
    np.testing.assert_array_equal(posenc.alibi_bias(heads, q_len, k_len, slopes=slopes), expected)
    r1, r2 = np.linspace(0.5, 1.5, heads), np.linspace(0.2, 1.8, heads)
    for kind in ("log", "power"):
        grid = posenc.kerple_bias(q_len, k_len, r1=r1, r2=r2, kind=kind)
        np.testing.assert_array_equal(grid, posenc.kerple_from_distance(np.abs(query_minus_key), r1, r2, kind))


# Transformer-XL


def xl_loop(q, k, u, v, w_r, base):
    """A_ij = q_i.k_j + q_i.W_R R_{i-j} + u.k_j + v.W_R R_{i-j}, R_d = [sin(d w), cos(d w)]."""
    q_len, k_len = len(q), len(k)
    d_r = w_r.shape[1]
    freqs = [base ** (-2 * t / d_r) for t in range(d_r // 2)]
    terms = np.zeros((4, q_len, k_len))
    for i in range(q_len):
        for j in range(k_len):
            dist = pos_q(i, q_len, k_len) - j
            r = [math.sin(dist * f) for f in freqs] + [math.cos(dist * f) for f in freqs]
            wr = [dot(w_r[row], r) for row in range(len(w_r))]
            terms[:, i, j] = [dot(q[i], k[j]), dot(q[i], wr), dot(u, k[j]), dot(v, wr)]
    return terms


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 10), st.integers(0, 10), st.sampled_from([2, 4, 6]), st.sampled_from([2, 4, 8]))
@example(3, 0, 4, 4)
@example(2, 3, 6, 4)
@example(4, 3, 4, 8)
def test_transformer_xl_scores_match_loop(q_len, extra, d_model, d_r):
    """Every term against the loop, at any lengths (the position terms read r along windows
    that slide a step per row) and writable."""
    k_len = q_len + extra
    rng = np.random.default_rng(q_len * 100 + extra)
    q, k = rng.standard_normal((q_len, d_model)), rng.standard_normal((k_len, d_model))
    u, v = rng.standard_normal(d_model), rng.standard_normal(d_model)
    w_r = rng.standard_normal((d_model, d_r))
    got = transformer_xl_scores(q, k, u, v, w_r=w_r, base=100.0)
    expected = xl_loop(q, k, u, v, w_r, 100.0)
    for name, want in zip(posenc.XLTerms._fields, expected, strict=True):
        np.testing.assert_allclose(getattr(got, name), want, rtol=0, atol=1e-12, err_msg=name)
        assert getattr(got, name).flags.writeable
    np.testing.assert_allclose(got.total, expected.sum(axis=0), rtol=0, atol=1e-12)


def test_transformer_xl_default_projection_is_identity():
    rng = np.random.default_rng(2)
    q, k, u, v = (
        rng.standard_normal((3, 4)),
        rng.standard_normal((5, 4)),
        rng.standard_normal(4),
        rng.standard_normal(4),
    )
    default = transformer_xl_scores(q, k, u, v)
    explicit = transformer_xl_scores(q, k, u, v, w_r=np.eye(4), base=10000.0)
    np.testing.assert_allclose(default.total, explicit.total, rtol=0, atol=1e-14)
    np.testing.assert_allclose(default.total, xl_loop(q, k, u, v, np.eye(4), 10000.0).sum(axis=0), atol=1e-12)


# DeBERTa


def test_deberta_log_bucket_small_offsets_pass_through_and_sign_is_kept():
    offsets = np.arange(-128, 129)
    np.testing.assert_array_equal(deberta_log_bucket(offsets), offsets)
    far = np.arange(129, 600)
    np.testing.assert_array_equal(deberta_log_bucket(-far), -deberta_log_bucket(far))
    assert np.all(np.diff(deberta_log_bucket(far)) >= 0)


@pytest.mark.parametrize(("bucket_size", "max_position"), [(256, 512), (32, 128), (4, 8), (8, 64)])
def test_deberta_log_bucket_matches_loop(bucket_size, max_position):
    offsets = np.arange(-300, 301)
    expected = [deberta_bucket_scalar(int(r), bucket_size, max_position) for r in offsets]
    got = deberta_log_bucket(offsets, bucket_size=bucket_size, max_position=max_position)
    np.testing.assert_array_equal(got, expected)


def deberta_loop(q_c, k_c, q_r, k_r, max_position=None):
    """c2c = Qc_i.Kc_j, c2p = Qc_i.Kr_delta, p2c = Kc_j.Qr_delta, delta = clip(i - j + S, 0, 2S - 1)."""
    q_len, k_len, span = len(q_c), len(k_c), len(q_r) // 2
    terms = np.zeros((3, q_len, k_len))
    for i in range(q_len):
        for j in range(k_len):
            rel = pos_q(i, q_len, k_len) - j
            if max_position is not None:
                rel = deberta_bucket_scalar(rel, span, max_position)
            delta = max(0, min(2 * span - 1, rel + span))
            terms[:, i, j] = [dot(q_c[i], k_c[j]), dot(q_c[i], k_r[delta]), dot(k_c[j], q_r[delta])]
    return terms


@pytest.mark.parametrize(
    ("q_len", "k_len", "span", "max_position"),
    [(4, 4, 2, None), (3, 6, 3, None), (6, 6, 8, None), (12, 12, 4, 8), (5, 9, 4, 16)],
)
def test_deberta_scores_match_loop(q_len, k_len, span, max_position):
    rng = np.random.default_rng(span * 100 + q_len)
    q_c, k_c = rng.standard_normal((q_len, 4)), rng.standard_normal((k_len, 4))
    q_r, k_r = rng.standard_normal((2 * span, 4)), rng.standard_normal((2 * span, 4))
    got = deberta_scores(q_c, k_c, q_r, k_r, max_position=max_position)
    expected = deberta_loop(q_c, k_c, q_r, k_r, max_position)
    for name, want in zip(posenc.DebertaTerms._fields, expected, strict=True):
        np.testing.assert_allclose(getattr(got, name), want, rtol=0, atol=1e-12, err_msg=name)


@given(seed=st.integers(0, 2**32 - 1), lengths=small_lengths, span=st.integers(1, 5))
def test_deberta_scores_match_loop_for_random_inputs(seed, lengths, span):
    q_len, k_len = lengths
    rng = np.random.default_rng(seed)
    q_c, k_c = rng.standard_normal((q_len, 3)), rng.standard_normal((k_len, 3))
    q_r, k_r = rng.standard_normal((2 * span, 3)), rng.standard_normal((2 * span, 3))
    got = deberta_scores(q_c, k_c, q_r, k_r)
    expected = deberta_loop(q_c, k_c, q_r, k_r)
    np.testing.assert_allclose(np.stack(got), expected, rtol=0, atol=1e-12)


# properties shared by the biases


@given(lengths=small_lengths)
def test_every_bias_has_the_grid_shape(lengths):
    q_len, k_len = lengths
    table = np.zeros((32, 2))
    assert alibi_bias(2, q_len, k_len).shape == (2, q_len, k_len)
    assert kerple_bias(q_len, k_len, r1=[1.0, 2.0], r2=1.0).shape == (2, q_len, k_len)
    assert t5_bias(table, q_len, k_len).shape == (2, q_len, k_len)
    assert relative_positions(q_len, k_len).shape == (q_len, k_len)
