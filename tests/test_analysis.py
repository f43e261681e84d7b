"""Measurements in posenc.analysis: checked against closed forms, brute force and the
properties the lessons claim."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc

RNG = np.random.default_rng(1234)


# similarity and wavelengths


def test_sinusoid_dot_similarity_is_a_sum_of_cosines_of_the_offset():
    pe = posenc.sinusoidal(50, 16)
    w = 1.0 / 10000 ** (np.arange(0, 16, 2) / 16)
    p, q = np.meshgrid(np.arange(50), np.arange(50), indexing="ij")
    # sin a sin b + cos a cos b = cos(a - b), summed over pairs
    expected = np.cos((p - q)[..., None] * w).sum(-1)
    np.testing.assert_allclose(posenc.position_similarity(pe), expected, atol=1e-12)


def test_cosine_similarity_has_unit_diagonal_and_matches_row_lookup():
    pe = posenc.sinusoidal(40, 32)
    s = posenc.position_similarity(pe, "cosine")
    np.testing.assert_allclose(np.diag(s), 1.0)
    assert np.abs(s).max() <= 1 + 1e-12
    np.testing.assert_allclose(posenc.similarity_to_position(pe, 7, "cosine"), s[7])
    np.testing.assert_allclose(posenc.similarity_to_position(pe, 7), posenc.position_similarity(pe)[7])


def test_wavelengths_run_from_two_pi_to_almost_two_pi_base():
    lam = posenc.wavelengths(512, 10000.0)
    assert lam.shape == (256,)
    assert lam[0] == pytest.approx(2 * np.pi)
    assert lam[-1] == pytest.approx(2 * np.pi * 10000 ** (510 / 512))
    assert np.all(np.diff(lam) > 0)
    for i in (0, 17, 255):
        assert lam[i] == pytest.approx(2 * math.pi * 10000 ** (2 * i / 512))


# the linear relation PE[p + k] = PE[p] @ M_k.T


@given(
    p=st.integers(0, 5000),
    k=st.integers(-200, 200),
    half=st.integers(1, 32),
    layout=st.sampled_from(posenc.SINUSOIDAL_LAYOUTS),
)
def test_rotation_matrix_maps_each_position_to_its_shift(p, k, half, layout):
    d = 2 * half
    if p + k < 0:
        k = -k
    m = posenc.rotation_matrix(k, d, layout=layout)
    pe = posenc.sinusoidal([p, p + k], d, layout=layout)
    np.testing.assert_allclose(pe[0] @ m.T, pe[1], atol=1e-9)


def test_rotation_matrix_is_orthogonal_and_composes():
    m3, m4, m7 = (posenc.rotation_matrix(k, 12) for k in (3, 4, 7))
    np.testing.assert_allclose(m3 @ m3.T, np.eye(12), atol=1e-14)
    np.testing.assert_allclose(m3 @ m4, m7, atol=1e-13)
    np.testing.assert_allclose(posenc.rotation_matrix(0, 12), np.eye(12))
    # interleaved: block diagonal, nothing outside the 2x2 blocks
    assert np.count_nonzero(m3) == 12 * 2


def test_rotation_blocks_sit_on_the_diagonal_of_the_matrix():
    blocks = posenc.rotation_blocks(5, 8)
    m = posenc.rotation_matrix(5, 8)
    for i in range(4):
        np.testing.assert_array_equal(m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2], blocks[i])


def test_linear_relation_error_is_at_rounding_level():
    assert posenc.linear_relation_error(2000, 37, 128) < 1e-9
    assert posenc.linear_relation_error(np.arange(100, 200), -50, 64, layout="concat") < 1e-10
    with pytest.raises(ValueError, match="k"):
        posenc.linear_relation_error(10, -20, 8)


# RoPE


def test_rope_scores_are_constant_along_diagonals_and_match_apply_rope():
    q, k = RNG.standard_normal(16), RNG.standard_normal(16)
    s = posenc.rope_scores(q, k, 30, 30)
    for offset in range(-29, 30):
        diag = np.diagonal(s, offset)
        np.testing.assert_allclose(diag, diag[0], atol=1e-12)
    m, n = 11, 4
    rq = posenc.apply_rope(np.tile(q, (12, 1)))[m]
    rk = posenc.apply_rope(np.tile(k, (12, 1)))[n]
    assert s[m, n] == pytest.approx(rq @ rk)


@given(shift=st.integers(0, 3000), layout=st.sampled_from(posenc.ROPE_LAYOUTS))
def test_rope_shift_error_is_at_rounding_level(shift, layout):
    q, k = RNG.standard_normal(32), RNG.standard_normal(32)
    assert posenc.rope_shift_error(q, k, 20, shift, layout=layout) < 1e-9


def test_rope_decay_bound_matches_its_definition():
    dh = 16
    r = np.array([0.0, 1.0, 10.0, 250.0])
    theta = 10000.0 ** (-np.arange(0, dh, 2) / dh)
    expected = [np.mean([abs(sum(np.exp(1j * ri * theta[:j]))) for j in range(1, dh // 2 + 1)]) for ri in r]
    np.testing.assert_allclose(posenc.rope_decay_bound(dh, r), expected, rtol=1e-12)
    # at distance 0 every term is 1, so |S_j| = j and the mean is (n + 1) / 2
    assert posenc.rope_decay_bound(128, [0])[0] == pytest.approx(32.5)


def test_rope_decay_bound_falls_with_distance():
    b = posenc.rope_decay_bound(128, [1, 10, 100, 1000])
    assert b[0] > b[1] > b[2] > b[3]


def test_rope_score_spread_does_not_depend_on_distance_for_independent_vectors():
    mean, std = posenc.rope_score_stats(64, [1, 2, 3, 50, 500], n_samples=6000, seed=3)
    # q . R k with independent N(0, I) vectors: mean 0, variance Dh at every distance
    np.testing.assert_allclose(std, 8.0, rtol=0.06)
    assert np.abs(mean).max() < 0.4


def test_rope_score_mean_decays_when_key_matches_query():
    mean, _ = posenc.rope_score_stats(64, [0, 10, 1000], n_samples=4000, rho=1.0)
    assert mean[0] == pytest.approx(64, rel=0.05)  # E|q|^2 = Dh
    assert mean[0] > mean[1] > mean[2]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([2, 4, 10, 32]), st.floats(-1.0, 1.0), st.integers(0, 9), st.sampled_from([100.0, 10000.0]))
def test_rope_score_stats_are_the_rotated_dot_products(head_dim, rho, seed, base):
    # oracle: the same q, k samples rotated with apply_rope at m = r and n = 0, then dotted
    distances = np.array([0, 1, 2, 7, 300])
    mean, std = posenc.rope_score_stats(head_dim, distances, n_samples=40, rho=rho, seed=seed, base=base)
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((40, head_dim))
    k = rho * q + np.sqrt(1 - rho**2) * rng.standard_normal((40, head_dim))
    scores = np.array(
        [[posenc.apply_rope(q[b][None], np.array([r]), base=base)[0] @ k[b] for r in distances] for b in range(40)]
    )  # (B, R)
    np.testing.assert_allclose(mean, scores.mean(axis=0), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(std, scores.std(axis=0), rtol=1e-9, atol=1e-9)


def test_rope_score_stats_is_reproducible_and_seeded():
    a = posenc.rope_score_stats(16, 5, n_samples=50, seed=1)
    b = posenc.rope_score_stats(16, 5, n_samples=50, seed=1)
    c = posenc.rope_score_stats(16, 5, n_samples=50, seed=2)
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])


def test_rope_frequency_ratio_by_method():
    linear = posenc.rope_frequency_ratio(64, rope_scaling={"rope_type": "linear", "factor": 4.0})
    np.testing.assert_allclose(linear, 0.25)
    # NTK-aware: the fastest pair is untouched, the slowest is interpolated by the factor
    ntk = posenc.rope_frequency_ratio(64, rope_scaling={"rope_type": "ntk", "factor": 4.0})
    assert ntk[0] == 1.0 and ntk[-1] == pytest.approx(0.25)
    assert np.all(np.diff(ntk) < 0)
    yarn = posenc.rope_frequency_ratio(
        64, rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}
    )
    assert yarn[0] == 1.0 and yarn[-1] == pytest.approx(0.25)
    llama3 = posenc.rope_frequency_ratio(
        128,
        500000.0,
        {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
    )
    assert llama3[0] == 1.0 and llama3[-1] == pytest.approx(1 / 8)
    assert set(np.round(llama3, 12)) - {1.0, 0.125}, "some pairs are blended"


# ALiBi span


def brute_span(slope, length, mass):
    w = np.exp(-slope * np.arange(length))
    return int(np.argmax(np.cumsum(w) / w.sum() >= mass - 1e-12))


@pytest.mark.parametrize("length", [1, 16, 100, 1024])
@pytest.mark.parametrize("mass", [0.5, 0.9, 0.99])
def test_alibi_span_matches_brute_force(length, mass):
    slopes = np.concatenate([posenc.alibi_slopes(8), [0.0]])
    got = posenc.alibi_span(slopes, context=length, mass=mass)
    assert got.tolist() == [brute_span(s, length, mass) for s in slopes]


def test_alibi_span_grows_as_slopes_shrink_and_is_unbounded_without_context_for_zero_slope():
    span = posenc.alibi_span(posenc.alibi_slopes(16))
    assert np.all(np.diff(span) >= 0) and span[-1] > span[0]
    assert posenc.alibi_span([0.0])[0] == np.inf
    # 1 - e^{-m (d + 1)} >= 0.9 with m = 1/2: d + 1 >= 2 ln 10
    assert posenc.alibi_span([0.5])[0] == math.ceil(2 * math.log(10)) - 1


# symmetry checks


def test_attention_without_positions_is_permutation_equivariant():
    x = RNG.standard_normal((6, 8))
    perm = [2, 0, 1, 5, 3, 4]
    assert posenc.permutation_error(x, perm) < 1e-12
    assert posenc.permutation_error(x, perm, pe=posenc.sinusoidal(6, 8)) > 1e-2
    assert posenc.permutation_error(x, np.arange(6), pe=posenc.sinusoidal(6, 8)) == 0.0


def test_a_causal_mask_alone_already_breaks_equivariance():
    x = RNG.standard_normal((5, 4))
    assert posenc.permutation_error(x, [4, 3, 2, 1, 0], causal=True) > 1e-2


def test_permutation_error_refuses_non_permutations():
    with pytest.raises(ValueError, match="perm"):
        posenc.permutation_error(np.ones((3, 2)), [0, 0, 1])


@pytest.mark.parametrize("method", ["none", "rope", "xpos", "alibi", "t5", "kerple"])
def test_relative_methods_are_translation_invariant(method):
    x = RNG.standard_normal((8, 16))
    assert posenc.translation_error(x, 37, method) < 1e-9


@pytest.mark.parametrize("method", ["sinusoidal", "learned"])
def test_added_absolute_encodings_are_not_translation_invariant(method):
    x = RNG.standard_normal((8, 16))
    assert posenc.translation_error(x, 37, method) > 1e-2


def test_learned_scores_past_the_table_raise_position_out_of_range():
    x = RNG.standard_normal((4, 8))
    with pytest.raises(posenc.PositionOutOfRange, match="max_len=16"):
        posenc.position_scores(x, [10, 12, 14, 16], "learned", max_len=16)


def test_position_scores_agree_with_the_bias_functions():
    x = RNG.standard_normal((7, 8))
    content = x @ x.T / math.sqrt(8)
    np.testing.assert_allclose(posenc.position_scores(x, 7, "none"), content)
    alibi = posenc.alibi_bias(1, 7, slopes=[0.25])[0]
    np.testing.assert_allclose(posenc.position_scores(x, 7, "alibi", slope=0.25), content + alibi)
    kerple = posenc.kerple_bias(7, r1=0.7, r2=1.3, kind="power")[0]
    np.testing.assert_allclose(
        posenc.position_scores(x, 7, "kerple", r1=0.7, r2=1.3, kind="power"), content + kerple, atol=1e-12
    )
    rope = posenc.apply_rope(x)
    np.testing.assert_allclose(posenc.position_scores(x, 7, "rope"), rope @ rope.T / math.sqrt(8), atol=1e-12)


@given(
    positions=st.lists(st.integers(0, 60), min_size=1, max_size=40),
    spread=st.sampled_from([1, 3, 997]),
    method=st.sampled_from(["t5", "kerple"]),
    kind=st.sampled_from(["log", "power"]),
    shift=st.integers(0, 10**6),
)
def test_biases_looked_up_per_offset_equal_the_pairwise_formula_bitwise(positions, spread, method, kind, shift):
    # T5's buckets and KERPLE's bias are evaluated once per offset and looked up per pair
    # (analysis._by_offset); the scores must be exactly the per-pair evaluation's
    pos = np.array(positions) * spread + shift  # dense, strided, sparse, repeated, far from 0
    x = np.random.default_rng(len(positions)).standard_normal((pos.size, 6))
    content = x @ x.T / math.sqrt(6)
    rel = pos[None, :] - pos[:, None]  # (T, T) key minus query
    if method == "t5":
        table = np.random.default_rng(3).standard_normal(8)
        bias = table[posenc.t5_bucket(rel, num_buckets=8, max_distance=20)]
        options = dict(num_buckets=8, max_distance=20, seed=3)
    else:
        bias = posenc.kerple_from_distance(np.abs(rel).astype(float), 0.7, 1.5 if kind == "power" else 1.3, kind)[0]
        options = dict(r1=0.7, r2=1.5 if kind == "power" else 1.3, kind=kind)
    scores = posenc.position_scores(x, pos, method, **options)
    assert np.array_equal(scores, content + bias)


def test_position_scores_validates_its_arguments():
    with pytest.raises(ValueError, match="method"):
        posenc.position_scores(np.ones((2, 2)), 2, "absolute")
    with pytest.raises(ValueError, match="positions"):
        posenc.position_scores(np.ones((2, 2)), 3, "rope")
    with pytest.raises(ValueError, match="positions"):
        posenc.position_scores(np.ones((2, 2)), [0.5, 1.0], "rope")
    with pytest.raises(ValueError, match="slope"):
        posenc.position_scores(np.ones((2, 2)), 2, "alibi", slope=-1.0)


def _bound_by_definition(head_dim: int, r: int, base: float = 10000.0) -> float:
    """(2/Dh) sum_j |sum_{i<j} e^{i r theta_i}|, written out with Python sums."""
    theta = [base ** (-2 * i / head_dim) for i in range(head_dim // 2)]
    terms = [complex(math.cos(r * t), math.sin(r * t)) for t in theta]
    return sum(abs(sum(terms[:j])) for j in range(1, head_dim // 2 + 1)) / (head_dim // 2)


def test_rope_decay_bound_is_not_monotone():
    # head_dim 64: 15.95 at r = 1 and 1.26 at r = 3901, but back to 7.50 at 3262 and 9.65 at 64285
    r = [1, 2919, 3262, 3901, 28018, 64285]
    b = posenc.rope_decay_bound(64, r)
    np.testing.assert_allclose(b, [_bound_by_definition(64, ri) for ri in r], rtol=1e-9)
    np.testing.assert_allclose(b, [15.9478, 1.42397, 7.50209, 1.25657, 0.924449, 9.64971], rtol=1e-5)
    assert b[1] < b[2], "it climbs from r = 2919 to r = 3262"
    assert b[3] < b[5] and b[4] < b[5], "past its low it comes back up, to ~60% of its value at r = 1"
    assert b[5] > 0.6 * b[0]


@pytest.mark.parametrize(
    ("head_dim", "max_distance", "base"), [(64, 4096, 10000.0), (16, 1000, 10000.0), (6, 300, 100.0)]
)
def test_rope_decay_summary_matches_a_dense_scan(head_dim, max_distance, base):
    s = posenc.rope.rope_decay_summary(head_dim, max_distance, base)
    r = np.arange(1, max_distance + 1)
    b = posenc.rope_decay_bound(head_dim, r, base)  # the direct formula at every distance
    assert s.at_one == pytest.approx(b[0], rel=1e-12)
    assert (s.lowest_at, s.lowest) == (int(r[np.argmin(b)]), pytest.approx(b.min(), rel=1e-9))
    # the largest climb b[j] - b[i], i < j, by brute force over every pair
    rise = b[None, :] - b[:, None]  # (R, R): rise[i, j] = b[j] - b[i]
    rise[np.tril_indices(max_distance)] = -np.inf
    assert s.climb_high - s.climb_low == pytest.approx(rise.max(), rel=1e-9)
    assert s.climb_from < s.climb_to
    assert s.climb_high == pytest.approx(b[s.climb_to - 1], rel=1e-9)
    assert s.climb_low == pytest.approx(b[s.climb_from - 1], rel=1e-9)
    edges = [1, 10, 100, 1000]
    edges = [e for e in edges if e < max_distance] + [max_distance + 1]
    assert s.band_edges.tolist() == edges
    np.testing.assert_allclose(
        s.band_means, [b[lo - 1 : hi - 1].mean() for lo, hi in zip(edges[:-1], edges[1:], strict=True)]
    )


def test_rope_decay_summary_head_64_up_to_65536():
    s = posenc.rope.rope_decay_summary(64, 65536)
    assert (s.lowest_at, s.climb_from, s.climb_to) == (28018, 28018, 64285)
    assert s.lowest == pytest.approx(_bound_by_definition(64, 28018), rel=1e-9)
    assert s.climb_high == pytest.approx(_bound_by_definition(64, 64285), rel=1e-9)
    assert s.lowest < 1 < 9 < s.climb_high
    # on average it shrinks over the first thousand distances (bands 1-9, 10-99, 100-999), then hardly at all
    m = s.band_means
    assert s.band_edges.tolist() == [1, 10, 100, 1000, 10000, 65537]
    assert m[0] > 1.5 * m[1] > 2.25 * m[2] and m[2] > 1.15 * m[3]
    assert m[3] - m[4] < 0.01 * m[3]


def test_rope_decay_summary_refuses_bad_arguments():
    with pytest.raises(ValueError, match="max_distance"):
        posenc.rope.rope_decay_summary(64, 0)
    with pytest.raises(ValueError, match="head_dim"):
        posenc.rope.rope_decay_summary(63, 100)
    with pytest.raises(ValueError, match="MAX_ELEMENTS"):
        posenc.rope.rope_decay_summary(256, 10**9)
