"""Scaled dot-product attention, softmax and the causal mask.

A plain-loop oracle, hand-computed weights, and properties: rows are probability
distributions, the causal mask is lower-right aligned, softmax ignores a per-row
constant (which is why ALiBi's symmetric form equals Press et al.'s ``+slope * j``
under a causal mask).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from posenc import alibi_bias, alibi_slopes, attention, causal_mask, self_attention, sinusoidal, softmax

# helpers


def attention_loop(q, k, v, bias=None, causal=False):
    """softmax(q k^T / sqrt(d) + bias) v for 2-D q, k, v, one query at a time."""
    q_len, k_len, d = len(q), len(k), len(q[0])
    weights = np.zeros((q_len, k_len))
    for i in range(q_len):
        scores = []
        for j in range(k_len):
            s = sum(q[i][c] * k[j][c] for c in range(d)) / math.sqrt(d)
            if bias is not None:
                s += bias[i][j]
            if causal and j > i + (k_len - q_len):
                s = -math.inf
            scores.append(s)
        peak = max(scores)
        exps = [math.exp(s - peak) for s in scores]
        total = sum(exps)
        weights[i] = [e / total for e in exps]
    out = weights @ np.asarray(v)
    return out, weights


lengths = st.tuples(st.integers(1, 6), st.integers(0, 5)).map(lambda t: (t[0], t[0] + t[1]))


def arrays(shape, lo=-3.0, hi=3.0):
    return hnp.arrays(np.float64, shape, elements=st.floats(lo, hi, allow_nan=False))


# hand-computed and oracle


def test_attention_by_hand():
    # scores = [1/sqrt(2), 0] for the one query: weights e^a / (e^a + 1)
    q = [[1.0, 0.0]]
    k = [[1.0, 0.0], [0.0, 1.0]]
    v = [[10.0], [20.0]]
    out, weights = attention(q, k, v)
    a = 1 / math.sqrt(2)
    w0 = math.exp(a) / (math.exp(a) + 1)
    np.testing.assert_allclose(weights, [[w0, 1 - w0]], rtol=1e-15)
    np.testing.assert_allclose(out, [[10 * w0 + 20 * (1 - w0)]], rtol=1e-15)


def test_uniform_weights_when_scores_are_equal():
    out, weights = attention(np.zeros((2, 3)), np.ones((4, 3)), np.arange(8.0).reshape(4, 2))
    np.testing.assert_array_equal(weights, np.full((2, 4), 0.25))
    np.testing.assert_allclose(out, [[3.0, 4.0], [3.0, 4.0]], rtol=1e-15)


@given(lengths=lengths, d=st.integers(1, 5), causal=st.booleans(), with_bias=st.booleans(), data=st.data())
def test_attention_matches_loop(lengths, d, causal, with_bias, data):
    q_len, k_len = lengths
    q, k = data.draw(arrays((q_len, d))), data.draw(arrays((k_len, d)))
    v = data.draw(arrays((k_len, 2)))
    bias = data.draw(arrays((q_len, k_len), -5.0, 5.0)) if with_bias else None
    out, weights = attention(q, k, v, bias=bias, causal=causal)
    want_out, want_weights = attention_loop(q.tolist(), k.tolist(), v, bias, causal)
    np.testing.assert_allclose(weights, want_weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-12)


def test_attention_broadcasts_heads_and_batches():
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((2, 3, 6, 2))
    bias = alibi_bias(3, 4, 6)  # (H, Tq, Tk) broadcast over the batch
    out, weights = attention(q, k, v, bias=bias, causal=True)
    assert out.shape == (2, 3, 4, 2) and weights.shape == (2, 3, 4, 6)
    for b in range(2):
        for h in range(3):
            want_out, want_weights = attention_loop(q[b, h].tolist(), k[b, h].tolist(), v[b, h], bias[h], True)
            np.testing.assert_allclose(weights[b, h], want_weights, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(out[b, h], want_out, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_self_attention_adds_positions_then_projects(causal):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 4))
    pe = sinusoidal(5, 4)
    w_q, w_k, w_v = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.standard_normal((4, 2))
    h = [[x[t, c] + pe[t, c] for c in range(4)] for t in range(5)]

    def project(w):
        return [[sum(h[t][c] * w[c, o] for c in range(4)) for o in range(w.shape[1])] for t in range(5)]

    want_out, want_weights = attention_loop(project(w_q), project(w_k), project(w_v), causal=causal)
    out, weights = self_attention(x, pe=pe, w_q=w_q, w_k=w_k, w_v=w_v, causal=causal)
    np.testing.assert_allclose(weights, want_weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-12)


def test_self_attention_defaults_are_identity_projections_and_no_positions():
    x = np.random.default_rng(4).standard_normal((4, 3))
    out, weights = self_attention(x)
    want_out, want_weights = attention_loop(x.tolist(), x.tolist(), x)
    np.testing.assert_allclose(weights, want_weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-12)


def test_self_attention_without_positions_is_permutation_equivariant():
    # the lesson: with no positions, shuffling the words only shuffles the output rows
    x = np.random.default_rng(5).standard_normal((5, 4))
    perm = np.array([3, 0, 4, 1, 2])
    out, _ = self_attention(x)
    out_perm, _ = self_attention(x[perm])
    np.testing.assert_allclose(out_perm, out[perm], rtol=1e-12, atol=1e-14)
    pe = sinusoidal(5, 4)
    out_pe, _ = self_attention(x, pe=pe)
    out_pe_perm, _ = self_attention(x[perm], pe=pe)
    assert not np.allclose(out_pe_perm, out_pe[perm])


# properties


@given(lengths=lengths, data=st.data(), causal=st.booleans())
def test_rows_are_probability_distributions(lengths, data, causal):
    q_len, k_len = lengths
    q, k, v = data.draw(arrays((2, q_len, 3), -50, 50)), data.draw(arrays((k_len, 3))), data.draw(arrays((k_len, 1)))
    _, weights = attention(q, k, v, causal=causal)
    assert np.all(weights >= 0)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-14)


def test_causal_mask_by_hand():
    np.testing.assert_array_equal(causal_mask(3, 3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    # queries are the last two of four positions: lower-right aligned
    np.testing.assert_array_equal(causal_mask(2, 4), [[1, 1, 1, 0], [1, 1, 1, 1]])
    assert causal_mask(2, 4).dtype == bool


@given(lengths=lengths, data=st.data())
def test_causal_weights_are_exactly_zero_above_the_lower_right_diagonal(lengths, data):
    q_len, k_len = lengths
    q, k, v = data.draw(arrays((q_len, 4))), data.draw(arrays((k_len, 4))), data.draw(arrays((k_len, 2)))
    _, weights = attention(q, k, v, causal=True)
    for i in range(q_len):
        for j in range(k_len):
            if j > k_len - q_len + i:
                assert weights[i, j] == 0.0
    # bounded scores: every key that may be seen gets a positive weight
    assert np.all(weights[causal_mask(q_len, k_len)] > 0)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-14)


def test_causal_mask_equals_a_minus_inf_bias():
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 2))
    bias = np.where(causal_mask(3, 5), 0.0, -np.inf)
    out_a, w_a = attention(q, k, v, causal=True)
    out_b, w_b = attention(q, k, v, bias=bias)
    np.testing.assert_array_equal(w_a, w_b)
    np.testing.assert_array_equal(out_a, out_b)


def test_causal_needs_keys_at_least_as_long_as_queries():
    q, k = np.ones((4, 2)), np.ones((3, 2))
    with pytest.raises(ValueError, match="q_len"):
        attention(q, k, k, causal=True)
    _, weights = attention(q, k, k)  # without a mask, any lengths are fine
    assert weights.shape == (4, 3)


def test_minus_inf_bias_removes_keys():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((2, 3)), rng.standard_normal((4, 3)), rng.standard_normal((4, 2))
    bias = np.array([[0.0, -np.inf, 0.0, -np.inf], [-np.inf, 0.0, 0.0, 0.0]])
    out, weights = attention(q, k, v, bias=bias)
    assert weights[0, 1] == weights[0, 3] == weights[1, 0] == 0.0
    # same as attending over the remaining keys only
    out0, w0 = attention(q[:1], k[[0, 2]], v[[0, 2]])
    np.testing.assert_allclose(weights[0, [0, 2]], w0[0], rtol=1e-14)
    np.testing.assert_allclose(out[0], out0[0], rtol=1e-13)


def test_a_row_with_every_key_masked_is_refused():
    bias = np.array([[-np.inf, -np.inf], [0.0, 0.0]])
    with pytest.raises(ValueError, match="row"):
        attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), bias=bias)


@given(n_heads=st.integers(1, 8), lengths=lengths, data=st.data())
def test_alibi_under_a_causal_mask_equals_press_plus_slope_times_j(n_heads, lengths, data):
    q_len, k_len = lengths
    q = data.draw(arrays((n_heads, q_len, 4)))
    k = data.draw(arrays((n_heads, k_len, 4)))
    v = data.draw(arrays((n_heads, k_len, 2)))
    slopes = alibi_slopes(n_heads)
    # Press et al.: bias = slope * j, the same for every query row
    press = slopes[:, None, None] * np.arange(k_len)[None, None, :]
    out_ours, w_ours = attention(q, k, v, bias=alibi_bias(n_heads, q_len, k_len), causal=True)
    out_press, w_press = attention(q, k, v, bias=press, causal=True)
    np.testing.assert_allclose(w_ours, w_press, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out_ours, out_press, rtol=1e-12, atol=1e-12)


def test_alibi_without_a_mask_is_not_press_form():
    # without the mask, keys after the query are penalised (symmetric variant)
    q = k = np.zeros((1, 3, 2))
    v = np.eye(3)[None]
    press = alibi_slopes(1)[:, None, None] * np.arange(3)
    _, w_ours = attention(q, k, v, bias=alibi_bias(1, 3))
    _, w_press = attention(q, k, v, bias=press)
    assert not np.allclose(w_ours, w_press)
    # in the symmetric form the diagonal key gets the largest weight
    assert np.all(np.argmax(w_ours[0], axis=-1) == np.arange(3))


# softmax


@given(
    scores=arrays((3, 5), -30.0, 30.0),
    shift=hnp.arrays(np.float64, (3, 1), elements=st.floats(-1e4, 1e4, allow_nan=False)),
)
def test_softmax_is_shift_invariant_per_row(scores, shift):
    # adding c (up to 1e4) to a row rounds each score by up to ulp(1e4) ~ 2e-12
    np.testing.assert_allclose(softmax(scores + shift), softmax(scores), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("offset", [1e4, -1e4, 1e8, 1e12])
def test_softmax_stable_for_huge_scores(offset):
    scores = np.array([[0.0, 1.0, 2.0]])
    got = softmax(scores + offset)
    assert np.all(np.isfinite(got))
    # the only error left is rounding scores + offset to the grid of float64 near the offset
    np.testing.assert_allclose(got, softmax(scores), rtol=10 * abs(offset) * 2.0**-52 + 1e-15)


@pytest.mark.parametrize("value", [1e300, -1e300, 1.7e308])
def test_softmax_of_equal_huge_scores_is_uniform(value):
    np.testing.assert_allclose(softmax(np.full((2, 3), value)), 1 / 3, rtol=1e-15)


def test_softmax_extreme_spread():
    np.testing.assert_array_equal(softmax([1e300, 0.0, -1e300]), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(softmax([1e308, 1e308]), [0.5, 0.5])


# -1e308 - 1e308 overflows to -inf on the way, which is the right answer (weight 0)
@pytest.mark.filterwarnings("ignore:overflow encountered in subtract:RuntimeWarning")
def test_softmax_spread_past_the_float_range():
    np.testing.assert_array_equal(softmax([-1e308, 1e308]), [0.0, 1.0])


def test_softmax_by_hand_and_axis():
    e = math.e
    np.testing.assert_allclose(softmax([0.0, 1.0]), [1 / (1 + e), e / (1 + e)], rtol=1e-15)
    np.testing.assert_allclose(softmax([[0.0, 0.0], [1.0, 1.0]], axis=0), [[1 / (1 + e)] * 2, [e / (1 + e)] * 2])
    np.testing.assert_array_equal(softmax([0.0, -np.inf]), [1.0, 0.0])


def test_huge_scores_through_attention():
    # q k^T of 1e4-scale entries: max-subtraction keeps the weights finite
    q = np.array([[100.0, 0.0]])
    k = np.array([[100.0, 0.0], [99.0, 0.0], [-100.0, 0.0]])
    _, weights = attention(q, k, np.eye(3))
    assert np.all(np.isfinite(weights))
    d = 100 / math.sqrt(2)  # score gap between the first two keys
    np.testing.assert_allclose(weights[0, :2], [1 / (1 + math.exp(-d)), math.exp(-d) / (1 + math.exp(-d))])
    assert weights[0, 2] == 0.0
