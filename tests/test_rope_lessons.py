"""posenc.rope.lessons: the measurements behind the RoPE lesson.

Plain-loop oracles for every array, properties (shares sum to the score and see only
m - n, the sinusoid-added score does not, xPos decays), small known values, and every
validation path.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc_lab.lessons.rope import measure as rope_lessons

# helpers


def theta_loop(head_dim, base):
    return [base ** (-2 * i / head_dim) for i in range(head_dim // 2)]


def rotate_loop(x, p, base):
    """RoPE by hand, interleaved pairs, one scalar at a time."""
    out = list(x)
    for i, t in enumerate(theta_loop(len(x), base)):
        a, b = x[2 * i], x[2 * i + 1]
        c, s = math.cos(p * t), math.sin(p * t)
        out[2 * i], out[2 * i + 1] = a * c - b * s, a * s + b * c
    return out


def sinusoid_loop(p, d, base):
    row = []
    for i in range(d // 2):
        w = base ** (-2 * i / d)
        row += [math.sin(p * w), math.cos(p * w)]
    return row


def dot(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


RNG = np.random.default_rng(7)


# random_query_key


def test_random_query_key_is_seeded_normal_and_correlated_by_rho():
    q, k = rope_lessons.random_query_key(6, seed=3)
    rng = np.random.default_rng(3)
    np.testing.assert_array_equal(q, rng.standard_normal(6))
    np.testing.assert_array_equal(k, rng.standard_normal(6))
    q1, k1 = rope_lessons.random_query_key(6, seed=3, rho=1.0)
    np.testing.assert_array_equal(q1, k1)
    q2, k2 = rope_lessons.random_query_key(6, seed=3, rho=-1.0)
    np.testing.assert_array_equal(k2, -q2)


def test_random_query_key_correlation_is_about_rho():
    q, k = rope_lessons.random_query_key(200_000, seed=0, rho=0.6)
    assert np.corrcoef(q, k)[0, 1] == pytest.approx(0.6, abs=0.01)
    assert k.std() == pytest.approx(1.0, abs=0.01)


# pair_trajectory and pair_scores


@pytest.mark.parametrize("base", [10.0, 10_000.0])
def test_pair_trajectory_matches_a_loop(base):
    x = RNG.standard_normal(8)
    positions = [0, 1, 5, 17.5]
    pairs = [3, 0, 2]
    coords, angles = rope_lessons.pair_trajectory(x, positions, pairs, base=base)
    assert coords.shape == (4, 3, 2) and angles.shape == (4, 3)
    theta = theta_loop(8, base)
    for t, p in enumerate(positions):
        rotated = rotate_loop(list(x), p, base)
        for j, i in enumerate(pairs):
            assert coords[t, j, 0] == pytest.approx(rotated[2 * i], abs=1e-12)
            assert coords[t, j, 1] == pytest.approx(rotated[2 * i + 1], abs=1e-12)
            assert angles[t, j] == pytest.approx(p * theta[i], rel=1e-14)


def test_pair_trajectory_unit_vector_by_hand():
    coords, angles = rope_lessons.pair_trajectory([1.0, 0.0, 0.0, 1.0], [2], [0, 1], base=100.0)
    # pair 0 turns by 2 rad; pair 1 (theta = 100^-1/2 = 0.1) starts at (0, 1) and turns by 0.2 rad
    np.testing.assert_allclose(coords[0, 0], [math.cos(2), math.sin(2)], atol=1e-15)
    np.testing.assert_allclose(coords[0, 1], [-math.sin(0.2), math.cos(0.2)], atol=1e-15)
    np.testing.assert_allclose(angles[0], [2.0, 0.2], rtol=1e-15)


@given(st.integers(1, 8), st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 5_000))
def test_pair_shares_sum_to_the_score_and_see_only_the_offset(half, m, n, shift):
    head_dim = 2 * half
    q, k = rope_lessons.random_query_key(head_dim, seed=m % 7)
    shares = rope_lessons.pair_scores(q, k, [m, m + shift], [n, n + shift])  # (2, Dh/2)
    score = posenc.rope_scores(q, k, [m], [n])[0, 0]
    assert shares[0].sum() == pytest.approx(score, abs=1e-9)
    np.testing.assert_allclose(shares[0], shares[1], atol=1e-9)


def test_pair_scores_match_a_loop():
    q, k = RNG.standard_normal(6), RNG.standard_normal(6)
    shares = rope_lessons.pair_scores(q, k, [3, 0], [1, 4], base=50.0)
    for t, (m, n) in enumerate([(3, 1), (0, 4)]):
        rq, rk = rotate_loop(list(q), m, 50.0), rotate_loop(list(k), n, 50.0)
        for i in range(3):
            assert shares[t, i] == pytest.approx(rq[2 * i] * rk[2 * i] + rq[2 * i + 1] * rk[2 * i + 1], abs=1e-12)


# dim_pairs


@pytest.mark.parametrize("head_dim", [2, 4, 10, 64])
def test_dim_pairs_match_the_layout_conventions(head_dim):
    half = head_dim // 2
    inter = rope_lessons.dim_pairs(head_dim, "interleaved")
    halves = rope_lessons.dim_pairs(head_dim, "half")
    assert inter.tolist() == [d // 2 for d in range(head_dim)]
    assert halves.tolist() == [d if d < half else d - half for d in range(head_dim)]
    # the permutation of posenc puts half's pair i where interleaved has it
    perm = posenc.half_to_interleaved_permutation(head_dim)
    np.testing.assert_array_equal(halves[perm], inter)


# added_scores and its shift error


def test_added_scores_match_a_loop():
    q, k = RNG.standard_normal(4), RNG.standard_normal(4)
    grid = rope_lessons.added_scores(q, k, [0, 3], [1, 2, 7], base=100.0)
    for a, m in enumerate([0, 3]):
        for b, n in enumerate([1, 2, 7]):
            hq = [x + y for x, y in zip(q, sinusoid_loop(m, 4, 100.0), strict=True)]
            hk = [x + y for x, y in zip(k, sinusoid_loop(n, 4, 100.0), strict=True)]
            assert grid[a, b] == pytest.approx(dot(hq, hk), abs=1e-12)


def test_added_shift_error_is_large_while_ropes_is_rounding():
    q, k = rope_lessons.random_query_key(16, seed=1)
    assert rope_lessons.added_shift_error(q, k, 20, 5) > 0.1
    assert posenc.rope_shift_error(q, k, 20, 5) < 1e-12
    assert rope_lessons.added_shift_error(q, k, 20, 0) == 0.0


def test_added_shift_error_by_brute_force():
    q, k = RNG.standard_normal(6), RNG.standard_normal(6)
    n, s = 5, 3
    worst = 0.0
    for m in range(n):
        for j in range(n):
            a = dot(
                [x + y for x, y in zip(q, sinusoid_loop(m, 6, 1e4), strict=True)],
                [x + y for x, y in zip(k, sinusoid_loop(j, 6, 1e4), strict=True)],
            )
            b = dot(
                [x + y for x, y in zip(q, sinusoid_loop(m + s, 6, 1e4), strict=True)],
                [x + y for x, y in zip(k, sinusoid_loop(j + s, 6, 1e4), strict=True)],
            )
            worst = max(worst, abs(a - b))
    assert rope_lessons.added_shift_error(q, k, n, s) == pytest.approx(worst, rel=1e-9)


# xpos_scores


def test_xpos_scores_match_the_closed_form():
    head_dim, gamma, scale_base = 8, 0.4, 64.0
    q, k = RNG.standard_normal(head_dim), RNG.standard_normal(head_dim)
    grid = rope_lessons.xpos_scores(q, k, [0, 5, 40], [0, 3], gamma=gamma, scale_base=scale_base)
    theta = theta_loop(head_dim, 1e4)
    for a, m in enumerate([0, 5, 40]):
        for b, n in enumerate([0, 3]):
            expected = 0.0
            for i in range(head_dim // 2):
                zeta = (2 * i / head_dim + gamma) / (1 + gamma)
                qc, kc = complex(q[2 * i], q[2 * i + 1]), complex(k[2 * i], k[2 * i + 1])
                share = (qc * kc.conjugate() * complex(math.cos((m - n) * theta[i]), math.sin((m - n) * theta[i]))).real
                expected += share * zeta ** ((m - n) / scale_base)
            assert grid[a, b] == pytest.approx(expected, abs=1e-10)


def test_xpos_scores_are_rope_scores_when_the_decay_is_off():
    # zeta_i -> 1 as gamma grows: the xPos score tends to RoPE's
    q, k = RNG.standard_normal(6), RNG.standard_normal(6)
    xpos = rope_lessons.xpos_scores(q, k, [9], [2], gamma=1e9)
    np.testing.assert_allclose(xpos, posenc.rope_scores(q, k, [9], [2]), rtol=1e-6)


# scaling_regions


def test_scaling_regions_by_hand():
    assert rope_lessons.scaling_regions([1.0, 0.5, 0.25, 0.25 * (1 + 1e-12)], 4.0).tolist() == [0, 1, 2, 2]
    # factor 1: interpolated means kept
    assert rope_lessons.scaling_regions([1.0, 1.0], 1.0).tolist() == [0, 0]


@pytest.mark.parametrize(
    ("cfg", "expected"),
    [
        ({"rope_type": "linear", "factor": 4.0}, "all interpolated"),
        ({"rope_type": "ntk", "factor": 4.0}, "kept, blended, interpolated"),
        ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}, "three bands in order"),
    ],
)
def test_scaling_regions_of_real_scalings(cfg, expected):
    ratio = posenc.rope_frequency_ratio(64, 10_000.0, cfg)
    region = rope_lessons.scaling_regions(ratio, cfg["factor"])
    if expected == "all interpolated":
        assert (region == 2).all()
    else:
        # fast pairs kept, slow ones interpolated, blended in between, never out of order
        assert region[0] == 0 and region[-1] == 2
        assert (np.diff(region) >= 0).all()
        assert (region == 1).any()


# validation


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: rope_lessons.random_query_key(5), "head_dim"),
        (lambda: rope_lessons.random_query_key(4, seed=-1), "seed"),
        (lambda: rope_lessons.random_query_key(4, rho=1.5), "rho"),
        (lambda: rope_lessons.pair_trajectory([1.0, 0.0], [0], [1]), "pairs"),
        (lambda: rope_lessons.pair_trajectory([1.0, 0.0, 1.0], [0], [0]), "head_dim"),
        (lambda: rope_lessons.pair_trajectory([1.0, 0.0], [-1], [0]), "positions"),
        (lambda: rope_lessons.pair_scores([1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0], [0]), "same length"),
        (lambda: rope_lessons.pair_scores([1.0, 0.0], [1.0, 0.0], [0, 1], [0]), "same length"),
        (lambda: rope_lessons.dim_pairs(4, "zigzag"), "layout"),
        (lambda: rope_lessons.added_scores([1.0, np.nan], [1.0, 0.0], 2, 2), "finite"),
        (lambda: rope_lessons.added_shift_error([1.0, 0.0], [1.0, 0.0], 0, 1), "n_positions"),
        (lambda: rope_lessons.xpos_scores([1.0, 0.0], [1.0, 0.0], 2, 2, gamma=0.0), "gamma"),
        (lambda: rope_lessons.scaling_regions([1.0], 0.5), "factor"),
        (lambda: rope_lessons.scaling_regions([[1.0]], 2.0), "ratio"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(call, match):
    with pytest.raises(ValueError, match=match):
        call()
