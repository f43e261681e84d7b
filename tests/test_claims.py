"""posenc.claims: each claim's measurement against known values, plain-loop oracles and
properties, so that a verdict drawn from it cannot silently flip."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import posenc
from posenc_lab.lessons.claims import measure as claims

# oracles written out with math, independent of posenc


def softmax_rows(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def plain_attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = softmax_rows(q @ k.T / math.sqrt(q.shape[1]))
    return weights @ v, weights


def press_slopes(n):
    """Press et al.'s get_slopes, written out."""

    def power_of_2(m):
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start * start**i for i in range(m)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + power_of_2(2 * closest)[0::2][: n - closest]


# 1. attention and order


@given(st.integers(2, 12), st.integers(1, 24), st.integers(0, 50))
def test_attention_is_equivariant_not_invariant(tokens, width, seed):
    r = claims.attention_order_errors(tokens, width, seed=seed)
    assert not np.array_equal(r.perm, np.arange(tokens)), "something moves"
    assert sorted(r.perm.tolist()) == list(range(tokens))
    assert r.out_equivariance < 1e-12
    assert r.weights_equivariance < 1e-12
    assert r.pooled_invariance < 1e-12
    # the weights of a reordered input differ from the unmoved ones unless every row is uniform
    assert r.out_invariance > 1e-6 or width == 1


def test_attention_order_errors_against_a_plain_attention():
    r = claims.attention_order_errors(5, 8, seed=3)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 8))
    perm = rng.permutation(5)
    w_q, w_k, w_v = posenc.projections(8, seed=3)
    out, weights = plain_attention(x, w_q, w_k, w_v)
    out_p, weights_p = plain_attention(x[perm], w_q, w_k, w_v)
    np.testing.assert_array_equal(r.perm, perm)
    assert r.out_invariance == pytest.approx(np.abs(out_p - out).max(), rel=1e-9)
    assert r.weights_invariance == pytest.approx(np.abs(weights_p - weights).max(), rel=1e-9)
    assert r.out_invariance > 0.1


def test_an_identity_permutation_is_replaced_by_the_reverse():
    def drawn(seed):  # X first, then the permutation, as the function draws them
        rng = np.random.default_rng(seed)
        rng.standard_normal((2, 4))
        return rng.permutation(2)

    identity = next(s for s in range(50) if np.array_equal(drawn(s), [0, 1]))
    assert claims.attention_order_errors(2, 4, seed=identity).perm.tolist() == [1, 0]


# 2. dimension 0


def test_dimension_0_changes_sign_about_every_pi_positions():
    assert claims.sign_changes(10) == claims.SignChanges(changes=2, steps=9, expected=2)
    r = claims.sign_changes(100, 128)
    assert (r.changes, r.steps) == (31, 99)
    # oracle: the signs of sin(p) for p = 0..999, counted one step at a time
    signs = [math.sin(p) for p in range(1000)]
    loop = sum(1 for a, b in zip(signs, signs[1:], strict=False) if a * b < 0)
    assert claims.sign_changes(1000, 64, 500.0).changes == loop == math.floor(999 / math.pi)


@given(st.integers(2, 2000), st.sampled_from([2, 8, 64]), st.sampled_from([10.0, 1e4]), st.integers(0, 3))
def test_sign_changes_match_the_multiples_of_pi_passed(n, width, base, pair):
    pair = min(pair, width // 2 - 1)
    r = claims.sign_changes(n, width, base, dim=2 * pair)
    assert r.changes == r.expected
    assert r.changes < r.steps or n == 2


def test_slower_columns_change_sign_less_often():
    counts = [claims.sign_changes(500, 16, dim=d).changes for d in (0, 2, 4, 6)]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]


# 3. wavelengths


def test_the_low_dimensions_have_the_shortest_wavelength():
    first, last = claims.wavelength_ends(4, 100.0)
    assert first == pytest.approx(2 * math.pi)
    assert last == pytest.approx(2 * math.pi * 10)
    first, last = claims.wavelength_ends(512)
    assert last == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert first < last


# 4. linear shift


def test_shift_is_linear_for_fixed_k_and_bilinear_but_not_linear_in_both():
    r = claims.shift_linearity(100, 64, k=5, seed=0)
    assert r.n_pairs == 4 * (2 * 64 + 1)
    assert r.fixed_k.max() < 1e-12
    assert r.bilinear.max() < 1e-12
    # the fast dimensions cannot be fitted at all, the slowest ones nearly
    assert r.concat[:2].min() > 0.5
    assert r.concat[0] > 1e3 * r.concat[-1]
    assert 0.3 < r.unexplained < 1.0


def test_the_fixed_k_map_for_k_0_is_exact():
    r = claims.shift_linearity(80, 16, k=0)
    assert r.fixed_k.max() == 0.0


def test_the_affine_fit_against_the_normal_equations():
    # base 100 keeps the slowest columns far from the constant one: normal equations stay well conditioned
    n, width, base, seed = 64, 8, 100.0, 1
    r = claims.shift_linearity(n, width, base, seed=seed)
    # the same pairs, drawn as the function draws them, fitted by (X^T X) W = X^T Y
    picked = np.random.default_rng(seed).choice(n * n, size=r.n_pairs, replace=False)
    p, k = picked // n, picked % n

    def table(positions):
        w = np.array([base ** (-2 * i / width) for i in range(width // 2)])
        out = np.empty((positions.size, width))
        out[:, 0::2], out[:, 1::2] = np.sin(positions[:, None] * w), np.cos(positions[:, None] * w)
        return out

    x = np.hstack([table(p), table(k), np.ones((p.size, 1))])
    y = table(p + k)
    residual = y - x @ np.linalg.solve(x.T @ x, x.T @ y)
    np.testing.assert_allclose(r.concat, np.abs(residual).max(axis=0), rtol=1e-6, atol=1e-8)
    assert r.unexplained == pytest.approx((residual**2).sum() / ((y - y.mean(axis=0)) ** 2).sum(), rel=1e-6)
    assert r.concat[0] > 0.5


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(30, 200),
    half=st.integers(1, 24),
    k=st.integers(0, 300),
    seed=st.integers(0, 50),
    base=st.sampled_from([100.0, 10000.0, 500000.0]),
)
def test_shift_linearity_is_its_two_parts(n, half, k, seed, base):
    width = 2 * half
    assume(n * n >= 4 * (2 * width + 1))
    whole = claims.shift_linearity(n, width, base, k=k, seed=seed)
    fit = claims.shift_pair_fit(n, width, base, seed=seed)
    np.testing.assert_array_equal(claims.fixed_shift_error(n, width, base, k=k), whole.fixed_k)
    for name in claims.ShiftFit._fields:
        np.testing.assert_array_equal(getattr(fit, name), getattr(whole, name))
    # the fixed map is exact for every k (rounding grows with the angles, k w up to ~1e3)
    assert whole.fixed_k.max() < 1e-9


def test_the_parts_refuse_bad_arguments_by_name():
    with pytest.raises(ValueError, match="k"):
        claims.fixed_shift_error(100, 16, k=-1)
    with pytest.raises(ValueError, match="d_model"):
        claims.shift_pair_fit(100, 15)
    with pytest.raises(ValueError, match="n must be at least"):
        claims.shift_pair_fit(20, 256)
    with pytest.raises(ValueError, match="k"):
        claims.shift_linearity(100, 16, k=-1)


def test_shift_linearity_refuses_too_few_pairs():
    with pytest.raises(ValueError, match="n must be at least"):
        claims.shift_linearity(20, 256)


# 5. orthogonality


def test_neighbouring_columns_against_a_plain_loop():
    n, width, base = 50, 8, 100.0
    r = claims.neighbour_column_cosines(n, width, base)

    def column(dim):
        i = dim // 2
        f = math.sin if dim % 2 == 0 else math.cos
        return np.array([f(p / base ** (2 * i / width)) for p in range(n)])

    def cos(a, b):
        return a @ b / math.sqrt((a @ a) * (b @ b))

    assert r.sin_neighbours[0] == pytest.approx(cos(column(0), column(2)), abs=1e-12)
    assert r.cos_neighbours[2] == pytest.approx(cos(column(5), column(7)), abs=1e-12)


def test_slow_columns_are_nearly_parallel_over_100_positions():
    r = claims.neighbour_column_cosines(100, 128)
    assert r.sin_neighbours[-1] > 0.99999
    assert r.cos_neighbours[-1] > 0.99999
    assert abs(r.sin_neighbours[0]) < 0.2
    assert r.max_off_diagonal >= max(np.abs(r.sin_neighbours).max(), np.abs(r.cos_neighbours).max())
    assert r.max_off_diagonal <= 1 + 1e-12


# 6. the difference check


def test_equal_differences_fail_and_the_rotation_check_holds():
    r = claims.difference_check(5, 4)
    assert r.equal_differences[0] == pytest.approx(abs(math.sin(10) - 2 * math.sin(5) + math.sin(0)), abs=1e-12)
    assert r.equal_differences[1] == pytest.approx(abs(math.cos(10) - 2 * math.cos(5) + math.cos(0)), abs=1e-12)
    big = claims.difference_check(5, 128)
    assert big.equal_differences.max() > 1.0
    assert big.rotation.max() < 1e-12


# 7. and 12. use the stored experiment (tests/test_page_claims.py)


# 8. RoPE


def complex_score(q, k, distance, base=10000.0):
    """Re sum_i q~_i conj(k~_i) e^{i r theta_i} (RoFormer eq. 16), written out."""
    total = 0
    for i in range(len(q) // 2):
        theta = base ** (-2 * i / len(q))
        total += (
            complex(q[2 * i], q[2 * i + 1])
            * complex(k[2 * i], k[2 * i + 1]).conjugate()
            * cmath.exp(1j * distance * theta)
        )
    return total.real


def test_rope_pairs_with_equal_dot_products_score_differently():
    r = claims.rope_factorisation(16, reach=40, seed=2, shift=500)
    np.testing.assert_allclose(r.dots, [1.0, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(r.scores[:, 0], r.dots, atol=1e-12)  # at m - n = 0 nothing turns
    assert r.spread > 0.1
    assert r.orthogonal > 0.1
    assert r.shift_error < 1e-9


def test_rope_scores_against_the_complex_form():
    r = claims.rope_factorisation(8, base=100.0, reach=20, seed=5)
    rng = np.random.default_rng(5)
    q, u = rng.standard_normal((3, 8)), rng.standard_normal((3, 8))
    k = u + ((np.array([1.0, 1.0, 0.0]) - np.einsum("ad,ad->a", q, u)) / np.einsum("ad,ad->a", q, q))[:, None] * q
    for pair in range(3):
        for distance in (0, 3, 19):
            assert r.scores[pair, distance] == pytest.approx(complex_score(q[pair], k[pair], distance, 100.0), abs=1e-9)


@given(st.sampled_from([2, 4, 32]), st.integers(0, 30))
def test_rope_never_factors_through_the_dot_product(head_dim, seed):
    r = claims.rope_factorisation(head_dim, reach=64, seed=seed)
    assert max(r.spread, r.orthogonal) > 1e-3
    assert r.shift_error < 1e-9


# 9. KERPLE and the RBF kernel


def test_kerple_is_conditionally_positive_definite_and_the_rbf_positive_definite():
    r = claims.kernel_comparison(32, sigma=1.0)
    np.testing.assert_allclose(r.profiles[:, 0], [0.0, 0.0, 1.0])
    assert r.profiles[0, 5] == pytest.approx(-math.log(6))
    assert r.profiles[1, 4] == pytest.approx(-2.0)  # -|4|^0.5
    assert r.profiles[2, 2] == pytest.approx(math.exp(-2))
    assert (r.min_eigenvalue[:2] < -1.0).all(), "a zero diagonal: the eigenvalues sum to 0"
    assert (r.min_sum_zero[:2] > 0).all()
    assert r.min_eigenvalue[2] > 1e-3
    assert r.profiles[0, -1] < -3 and r.profiles[2, -1] < 1e-100


def test_sum_zero_eigenvalues_match_the_projected_matrix():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 6))
    k = a + a.T
    p = np.eye(6) - 1 / 6
    projected = np.sort(np.linalg.eigvalsh(p @ k @ p))
    # P K P has the same eigenvalues on the sum-zero vectors, plus 0 for the all-ones vector
    drop = int(np.argmin(np.abs(projected)))
    np.testing.assert_allclose(claims.sum_zero_eigenvalues(k), np.delete(projected, drop), atol=1e-10)


def test_sum_zero_eigenvalues_refuse_a_non_symmetric_matrix():
    with pytest.raises(ValueError, match="symmetric"):
        claims.sum_zero_eigenvalues([[0.0, 1.0], [2.0, 0.0]])
    with pytest.raises(ValueError, match="square"):
        claims.sum_zero_eigenvalues([[0.0, 1.0, 2.0]])


# 10. DeBERTa


def test_deberta_logits_have_unit_spread_only_over_sqrt_3d():
    r = claims.deberta_scale(64, seed=0)
    assert r.sum_sqrt_d / r.sum_sqrt_3d == pytest.approx(math.sqrt(3))
    assert 0.85 < r.c2c_sqrt_d < 1.15
    assert 0.85 < r.sum_sqrt_3d < 1.15
    assert 1.5 < r.sum_sqrt_d < 1.95


# 11. ALiBi's slopes


def test_naive_slopes_are_right_only_for_powers_of_two():
    assert claims.naive_alibi_slopes(4).tolist() == [0.25, 0.0625, 0.015625, 0.00390625]
    for h in (1, 2, 4, 8, 16, 32, 64):
        np.testing.assert_allclose(claims.naive_alibi_slopes(h), press_slopes(h), rtol=1e-12)
        assert claims.alibi_slope_gap(h) < 1e-12
    for h in (3, 6, 12, 40):
        assert claims.alibi_slope_gap(h) > 0.1
    assert claims.heads_where_naive_slopes_differ(16).tolist() == [3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15]


# 13. T5 against Shaw


def test_t5_buckets_widen_and_stop_at_one_last_bucket():
    w = claims.t5_bucket_widths()
    assert (w.n_buckets, w.used, w.exact) == (32, 31, 8)
    assert w.widths[:8].tolist() == [1.0] * 8
    assert np.isinf(w.widths[-1])
    finite = w.widths[:-1]
    assert (np.diff(finite[8:]) >= 0).all() and finite[-1] > 4
    assert finite.sum() == w.last_from
    # oracle: count the distances 0..999 per bucket straight from t5_bucket
    counts = np.bincount(posenc.t5_bucket(-np.arange(1000)), minlength=16)[:16]
    np.testing.assert_array_equal(counts[:-1], finite)
    assert int(np.argmax(posenc.t5_bucket(-np.arange(1000)) == 15)) == w.last_from


def test_entries_by_distance():
    d, t5, shaw = claims.entry_by_distance(200, 16)
    np.testing.assert_array_equal(shaw, np.minimum(np.arange(200), 16))
    np.testing.assert_array_equal(t5, posenc.t5_bucket(-np.arange(200)))
    assert (np.diff(t5) >= 0).all() and t5.max() == 15 and t5[7] == 7


# 15. parameters


def test_parameter_counts_known_values():
    counts = claims.relative_parameter_counts(256, 64, 12, max_distance=16)
    assert counts == {
        "learned": 256 * 768,
        "shaw": 2 * 33 * 64,
        "shaw_unclipped": 2 * 511 * 64,
        "t5": 32 * 12,
        "transformer_xl": 768 * 768 + 2 * 768,
        "kerple": 24,
        "alibi": 0,
        "rope": 0,
    }
    assert list(counts) == list(claims.PARAMETER_METHODS)


@given(st.integers(2, 5000), st.integers(2, 5000), st.integers(1, 64), st.integers(1, 16), st.integers(0, 64))
def test_only_absolute_and_unclipped_tables_grow_with_the_length(short, long, head_dim, heads, k):
    a = claims.relative_parameter_counts(short, head_dim, heads, max_distance=k)
    b = claims.relative_parameter_counts(long, head_dim, heads, max_distance=k)
    for method in claims.PARAMETER_METHODS:
        if method in ("learned", "shaw_unclipped"):
            assert (a[method] < b[method]) == (short < long)
        else:
            assert a[method] == b[method]


# validation


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: claims.attention_order_errors(1, 4), "n_tokens"),
        (lambda: claims.attention_order_errors(4, 4, seed=-1), "seed"),
        (lambda: claims.sign_changes(1), "n"),
        (lambda: claims.sign_changes(10, 4, dim=1), "dim"),
        (lambda: claims.sign_changes(10, 4, dim=4), "dim"),
        (lambda: claims.wavelength_ends(3), "d_model"),
        (lambda: claims.shift_linearity(100, 1024), "d_model"),
        (lambda: claims.shift_linearity(100, 16, k=-1), "k"),
        (lambda: claims.neighbour_column_cosines(100, 2), "d_model"),
        (lambda: claims.neighbour_column_cosines(1, 8), "n"),
        (lambda: claims.difference_check(0, 8), "k"),
        (lambda: claims.rope_factorisation(3), "head_dim"),
        (lambda: claims.rope_factorisation(8, reach=1), "reach"),
        (lambda: claims.kernel_comparison(1), "length"),
        (lambda: claims.kernel_comparison(8, sigma=0.0), "sigma"),
        (lambda: claims.kernel_comparison(8, r2_power=3.0), "r2"),
        (lambda: claims.deberta_scale(0), "head_dim"),
        (lambda: claims.naive_alibi_slopes(0), "n_heads"),
        (lambda: claims.heads_where_naive_slopes_differ(0), "max_heads"),
        (lambda: claims.t5_bucket_widths(32, 4), "max_distance"),
        (lambda: claims.entry_by_distance(0, 4), "reach"),
        (lambda: claims.entry_by_distance(10, -1), "shaw_k"),
        (lambda: claims.relative_parameter_counts(1, 4, 4), "max_len"),
    ],
)
def test_bad_arguments_are_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()
