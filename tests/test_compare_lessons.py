"""posenc.compare_lessons: Shaw at arbitrary positions (plain-loop oracle, agreement with
posenc.shaw_scores), the positional part, translation errors and parameter counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc_lab.lessons.compare import measure as cl

RELATIVE_EXACT = ("none", "shaw", "t5", "alibi", "kerple")  # read only j - i: bit-for-bit the same when moved
ROTARY = ("rope", "xpos")


# phrase


def test_repeated_phrase_is_one_word_and_random_phrase_is_not():
    x = cl.phrase(5, 8, "repeated", seed=3)
    assert x.shape == (5, 8)
    assert np.all(x == x[0])
    y = cl.phrase(5, 8, "random", seed=3)
    assert len({tuple(row) for row in y}) == 5


def test_random_phrase_prefix_is_stable_and_seeded():
    np.testing.assert_array_equal(cl.phrase(10, 4, "random")[:3], cl.phrase(3, 4, "random"))
    assert not np.array_equal(cl.phrase(3, 4, "random", seed=1), cl.phrase(3, 4, "random", seed=2))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(n_tokens=0, head_dim=4), "n_tokens"),
        (dict(n_tokens=3, head_dim=5), "head_dim"),
        (dict(n_tokens=3, head_dim=4, kind="zigzag"), "kind"),
        (dict(n_tokens=3, head_dim=4, seed=-1), "seed"),
    ],
)
def test_phrase_rejects_bad_arguments_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        cl.phrase(**kwargs)


# Shaw at arbitrary positions


def shaw_loop(x, positions, max_distance, seed):
    """e_ij = (x_i . x_j + x_i . a[clip(p_j - p_i, -K, K) + K]) / sqrt(Dh), one pair at a time."""
    table = np.random.default_rng(seed).standard_normal((2 * max_distance + 1, x.shape[1]))
    n = len(positions)
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            r = min(max(positions[j] - positions[i], -max_distance), max_distance)
            a = table[r + max_distance]
            out[i, j] = (sum(x[i] * x[j]) + sum(x[i] * a)) / math.sqrt(x.shape[1])
    return out


@given(
    positions=st.lists(st.integers(0, 300), min_size=1, max_size=12),
    k=st.integers(0, 20),
    half=st.integers(1, 6),
    seed=st.integers(0, 5),
)
def test_shaw_scores_match_a_plain_loop_at_any_positions(positions, k, half, seed):
    x = np.random.default_rng(seed).standard_normal((len(positions), 2 * half))
    got = cl.shaw_position_scores(x, positions, max_distance=k, seed=seed)
    np.testing.assert_allclose(got, shaw_loop(x, positions, k, seed), rtol=1e-12, atol=1e-12)


def test_shaw_at_positions_zero_to_t_agrees_with_the_core_shaw_scores():
    x = np.random.default_rng(4).standard_normal((20, 8))
    table = np.random.default_rng(7).standard_normal((2 * 5 + 1, 8))
    terms = posenc.shaw_scores(x, x, table)
    expected = (terms.content + terms.position) / math.sqrt(8)
    np.testing.assert_allclose(cl.shaw_position_scores(x, 20, max_distance=5, seed=7), expected, atol=1e-12)


def test_shaw_offsets_beyond_k_share_the_edge_vector():
    x = cl.phrase(40, 6, "repeated")
    s = cl.shaw_position_scores(x, 40, max_distance=3)
    # one word everywhere: row 0 depends on clip(j, -3, 3) only
    assert np.all(s[0, 3:] == s[0, 3])
    assert len(set(s[0, :4])) == 4


def test_shaw_rejects_bad_arguments_by_name():
    x = np.ones((3, 4))
    with pytest.raises(ValueError, match="max_distance"):
        cl.shaw_position_scores(x, 3, max_distance=-1)
    with pytest.raises(ValueError, match="positions"):
        cl.shaw_position_scores(x, [0, 1], max_distance=2)
    with pytest.raises(ValueError, match="head_dim"):
        cl.shaw_position_scores(np.ones((3, 3)), 3)


# scores, positional part, translation


def test_compare_scores_routes_to_position_scores_and_rejects_unknown_methods():
    x = cl.phrase(6, 4, "random")
    np.testing.assert_array_equal(
        cl.compare_scores(x, 6, "alibi", slope=0.25), posenc.position_scores(x, 6, "alibi", slope=0.25)
    )
    with pytest.raises(ValueError, match="method"):
        cl.compare_scores(x, 6, "sinusoids")


def test_positional_part_of_alibi_is_the_bias_and_of_none_is_zero():
    x = cl.phrase(10, 4, "random", seed=2)
    pos = np.array([0, 3, 4, 9, 20, 21, 22, 40, 41, 90])
    np.testing.assert_allclose(
        cl.positional_part(x, pos, "alibi", slope=0.5), -0.5 * np.abs(pos[:, None] - pos[None, :]), atol=1e-12
    )
    assert not cl.positional_part(x, pos, "none").any()


def test_positional_part_of_the_sinusoid_is_its_cross_and_square_terms():
    x = cl.phrase(12, 8, "random", seed=1)
    pe = posenc.sinusoidal(12, 8)
    # (x + pe)(x + pe)^T - x x^T = x pe^T + pe x^T + pe pe^T, over sqrt(D)
    expected = (x @ pe.T + pe @ x.T + pe @ pe.T) / math.sqrt(8)
    np.testing.assert_allclose(cl.positional_part(x, 12, "sinusoidal"), expected, atol=1e-12)


@pytest.mark.parametrize("method", RELATIVE_EXACT + ROTARY)
def test_relative_methods_draw_stripes_with_a_repeated_word(method):
    p = cl.positional_part(cl.phrase(30, 8, "repeated"), 30, method)
    # constant along every diagonal: P[i + 1, j + 1] == P[i, j]
    np.testing.assert_allclose(p[1:, 1:], p[:-1, :-1], atol=1e-12)


@pytest.mark.parametrize("method", ["sinusoidal", "learned"])
def test_added_absolute_encodings_do_not_draw_stripes(method):
    p = cl.positional_part(cl.phrase(30, 8, "repeated"), 30, method)
    assert np.abs(p[1:, 1:] - p[:-1, :-1]).max() > 1e-2


@given(shift=st.integers(1, 2000), n=st.integers(1, 20), seed=st.integers(0, 10))
def test_biases_and_shaw_are_exactly_translation_invariant(shift, n, seed):
    x = cl.phrase(n, 4, "random", seed=seed)
    for method in RELATIVE_EXACT:
        assert cl.compare_translation_error(x, shift, method) == 0.0


def test_rotary_methods_are_invariant_up_to_rounding_and_added_ones_are_not():
    x = cl.phrase(16, 8, "random")
    for method in ROTARY:
        assert cl.compare_translation_error(x, 100, method) < 1e-12
    assert cl.compare_translation_error(x, 1, "sinusoidal") > 1e-2
    assert cl.compare_translation_error(x, 1, "learned", max_len=64) > 1e-2


def test_translation_error_matches_a_direct_difference():
    x = cl.phrase(7, 4, "random", seed=5)
    moved = cl.compare_scores(x, np.arange(3, 10), "sinusoidal")
    assert (
        cl.compare_translation_error(x, 3, "sinusoidal") == np.abs(moved - cl.compare_scores(x, 7, "sinusoidal")).max()
    )


def test_learned_raises_position_out_of_range_past_max_len_when_moved():
    x = cl.phrase(8, 4)
    assert cl.compare_translation_error(x, 8, "learned", max_len=16) > 0  # positions 8..15 exist
    with pytest.raises(posenc.PositionOutOfRange, match="max_len=16"):
        cl.compare_translation_error(x, 9, "learned", max_len=16)


@given(
    n=st.integers(1, 40),
    shift=st.integers(0, 300),
    kind=st.sampled_from(cl.PHRASE_KINDS),
    method=st.sampled_from(cl.COMPARE_METHODS),
    seed=st.integers(0, 5),
)
def test_translation_errors_by_length_are_each_prefix_measured_alone(n, shift, kind, method, seed):
    # what the lesson serves every phrase length from: one grid, a running maximum
    options = {"learned": dict(max_len=400)}.get(method, {})
    x = cl.phrase(n, 6, kind, seed=seed)
    errors = cl.translation_errors_by_length(x, shift, method, **options)
    assert errors.shape == (n,)
    direct = [
        cl.compare_translation_error(cl.phrase(t, 6, kind, seed=seed), shift, method, **options)
        for t in range(1, n + 1)
    ]
    np.testing.assert_allclose(errors, direct, rtol=1e-9, atol=1e-13)
    if method in RELATIVE_EXACT:
        assert not errors.any()  # exactly 0, as each length alone gives


def test_translation_errors_by_length_raise_past_a_learned_table():
    with pytest.raises(posenc.PositionOutOfRange, match="max_len=16"):
        cl.translation_errors_by_length(cl.phrase(8, 4), 9, "learned", max_len=16)


def test_translation_error_rejects_a_negative_shift():
    with pytest.raises(ValueError, match="shift"):
        cl.compare_translation_error(np.ones((2, 2)), -1, "rope")


# parameter counts


def test_parameter_counts_of_known_models():
    # GPT-2 small: 1024 positions x 768 (12 heads of 64)
    assert cl.parameter_count("learned", max_len=1024, head_dim=64, n_heads=12) == 786_432
    # T5-base: 32 buckets x 12 heads
    assert cl.parameter_count("t5", max_len=512, head_dim=64, n_heads=12) == 384
    # Shaw, K = 16, Dh = 64: 33 rows of 64 for keys and again for values
    assert cl.parameter_count("shaw", max_len=512, head_dim=64, n_heads=8, max_distance=16) == 2 * 33 * 64
    assert cl.parameter_count("kerple", max_len=512, head_dim=64, n_heads=8) == 16


@pytest.mark.parametrize("method", ["none", "sinusoidal", "rope", "xpos", "alibi"])
def test_formulas_and_fixed_slopes_cost_nothing(method):
    assert cl.parameter_count(method, max_len=4096, head_dim=128, n_heads=32) == 0


def test_parameter_count_rejects_bad_arguments_by_name():
    with pytest.raises(ValueError, match="max_len"):
        cl.parameter_count("learned", max_len=0, head_dim=4, n_heads=1)
    with pytest.raises(ValueError, match="method"):
        cl.parameter_count("bert", max_len=8, head_dim=4, n_heads=1)
    with pytest.raises(ValueError, match="n_heads"):
        cl.parameter_count("t5", max_len=8, head_dim=4, n_heads=0)


def test_every_method_of_position_scores_is_compared():
    assert set(cl.COMPARE_METHODS) == set(posenc.SCORE_METHODS) | {"shaw"}
