"""posenc.properties: the design-choice measurements against closed forms, plain-loop
oracles and the properties the lesson claims."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from posenc_lab.lessons.choices import measure as props
from posenc_lab.lessons.compare import measure as compare_lessons


def sinusoid_row(p: float, d: int, base: float = 10000.0) -> np.ndarray:
    """PE_p written out pair by pair (Vaswani et al., interleaved)."""
    out = np.empty(d)
    for i in range(d // 2):
        w = base ** (-2 * i / d)
        out[2 * i], out[2 * i + 1] = math.sin(p * w), math.cos(p * w)
    return out


# add or concatenate


def test_embedding_std_of_each_scale():
    assert props.embedding_std("unit", 64) == pytest.approx(1 / 8)
    assert props.embedding_std("gpt2", 64) == 0.02
    assert props.embedding_std("vaswani", 64) == 1.0


def test_token_embeddings_have_the_stated_spread_and_stable_rows():
    for scale, std in (("unit", 1 / math.sqrt(256)), ("gpt2", 0.02), ("vaswani", 1.0)):
        e = props.token_embeddings(512, 256, scale=scale, seed=3)
        assert e.std() == pytest.approx(std, rel=0.02), scale
    np.testing.assert_array_equal(props.token_embeddings(5, 8, seed=2), props.token_embeddings(9, 8, seed=2)[:5])


@given(st.integers(1, 64), st.integers(1, 200))
def test_every_sinusoid_code_has_norm_sqrt_half_d(half, n):
    d = 2 * half
    np.testing.assert_allclose(props.row_norms(posenc.sinusoidal(n, d)), math.sqrt(d / 2), atol=1e-12)


def test_norms_by_width_follow_their_scales():
    widths = np.array([64, 256, 1024])
    np.testing.assert_allclose(props.norm_by_width(widths, scale=None), np.sqrt(widths / 2), atol=1e-12)
    np.testing.assert_allclose(props.norm_by_width(widths, scale="unit"), 1.0, rtol=0.05)
    np.testing.assert_allclose(props.norm_by_width(widths, scale="gpt2"), 0.02 * np.sqrt(widths), rtol=0.05)
    np.testing.assert_allclose(props.norm_by_width(widths, scale="vaswani"), np.sqrt(widths), rtol=0.05)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.integers(1, 8), st.integers(0, 1000))
def test_score_parts_add_up_and_match_a_loop(n, half, seed):
    d = 2 * half
    rng = np.random.default_rng(seed)
    x, pe = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    parts = props.added_score_parts(x, pe)
    np.testing.assert_allclose(parts.total, (x + pe) @ (x + pe).T, atol=1e-10)
    for i in range(n):
        for j in range(n):
            assert parts.cross[i, j] == pytest.approx(x[i] @ pe[j] + pe[i] @ x[j], abs=1e-10)
            assert parts.position[i, j] == pytest.approx(pe[i] @ pe[j], abs=1e-10)
    rms = props.score_part_rms(x, pe)
    assert rms[1] == pytest.approx(math.sqrt(np.mean(parts.cross**2)))


def test_the_sinusoid_dwarfs_unit_tokens_and_tokens_scaled_by_sqrt_d_keep_up():
    pe = posenc.sinusoidal(64, 512)
    small = props.score_part_rms(props.token_embeddings(64, 512, scale="unit", seed=1), pe)
    assert small[2] > 100 * small[0]  # position part two orders above content
    big = props.score_part_rms(props.token_embeddings(64, 512, scale="vaswani", seed=1), pe)
    assert 0.1 < big[2] / big[0] < 10  # same order of magnitude


def _recovery_loop(vocab, pe, mode):
    right = 0
    for v in range(len(vocab)):
        for p in range(len(pe)):
            c = vocab[v] + pe[p] if mode == "add" else vocab[v]
            dist = [np.sum((c - u) ** 2) for u in vocab]
            right += int(np.argmin(dist)) == v
    return right / (len(vocab) * len(pe))


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 10), st.integers(1, 6), st.sampled_from([2, 4, 8]), st.floats(0.1, 3.0))
def test_content_recovery_is_nearest_token_reading(n_vocab, n_pos, d, size):
    rng = np.random.default_rng(n_vocab * 100 + n_pos)
    vocab, pe = rng.standard_normal((n_vocab, d)), size * rng.standard_normal((n_pos, d))
    assert props.content_recovery(vocab, pe) == pytest.approx(_recovery_loop(vocab, pe, "add"))
    assert props.content_recovery(vocab, pe, mode="concat") == 1.0


def test_recovery_fails_for_unit_tokens_and_holds_for_scaled_ones():
    codes = posenc.sinusoidal(np.linspace(0, 511, 32).round(), 512)
    assert props.content_recovery(props.token_embeddings(128, 512, scale="unit"), codes) < 0.5
    assert props.content_recovery(props.token_embeddings(128, 512, scale="vaswani"), codes) > 0.99
    assert props.content_recovery(props.token_embeddings(128, 512, scale="unit"), np.zeros((3, 512))) == 1.0


def test_concatenation_costs_d_times_d_pos_per_projection():
    assert props.concat_projection_params(4, 2) == (48, 72)
    assert props.concat_projection_params(512, 512, n_projections=1) == (512 * 512, 512 * 1024)


# caching during generation

STABLE = ("absolute", "learned", "rope", "rope_yarn", "alibi", "t5", "transformer_xl")


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(STABLE), st.integers(1, 40))
def test_stable_methods_never_change_a_cached_entry(method, length):
    step = props.cache_step(method, length, head_dim=8, train_len=64)
    assert step.changed == 0
    assert step.max_change < 1e-12
    assert step.new == (8 if method in ("absolute", "learned", "rope", "rope_yarn") else length + 1)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(props.CACHE_METHODS),
    st.integers(1, 80),
    st.sampled_from([2, 6, 16]),
    st.sampled_from([8, 40, 64]),
    st.integers(0, 5),
)
def test_cache_step_compares_the_two_public_states(method, length, head_dim, train_len, seed):
    # cache_step draws the T + 1 tokens once and reads the first T for the shorter state;
    # that must be exactly the two states cached_position_state gives on its own
    options = dict(head_dim=head_dim, train_len=train_len, seed=seed, slope=0.25, num_buckets=8, max_distance=20)
    try:
        after = props.cached_position_state(method, length + 1, **options)
    except posenc.PositionOutOfRange:
        with pytest.raises(posenc.PositionOutOfRange):
            props.cache_step(method, length, **options)
        return
    before = props.cached_position_state(method, length, **options)
    diff = np.abs(after[: before.size] - before)
    tol = 1e-9 * max(1.0, float(np.abs(before).max()))
    expected = props.CacheStep(after.size - before.size, int(np.count_nonzero(diff > tol)), float(diff.max()))
    assert props.cache_step(method, length, **options) == expected


def test_cache_step_refuses_an_option_the_state_does_not_take():
    with pytest.raises(TypeError, match="heads"):
        props.cache_step("rope", 4, heads=2)


def test_rope_with_fixed_frequencies_keeps_cached_keys_exactly():
    for length in (1, 63, 64, 65, 500):
        step = props.cache_step("rope", length, head_dim=64, train_len=64)
        assert step.max_change == 0.0
        assert props.cache_step("rope_yarn", length, head_dim=64, train_len=64).max_change == 0.0


def test_cached_state_is_what_the_formulas_give():
    x = np.random.default_rng(0).standard_normal((5, 4))
    keys = props.cached_position_state("absolute", 5, head_dim=4).reshape(5, 4)
    np.testing.assert_allclose(keys, x + np.array([sinusoid_row(p, 4) for p in range(5)]), atol=1e-12)
    rows = props.cached_position_state("alibi", 4, slope=0.5)
    # rows (i, j <= i) one after the other: -0.5 |i - j|
    np.testing.assert_allclose(rows, [0, -0.5, 0, -1, -0.5, 0, -1.5, -1, -0.5, 0])
    assert props.cached_position_state("t5", 7).size == 7 * 8 // 2
    assert props.cached_position_state("rope", 7, head_dim=6).size == 42


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 30), st.sampled_from([2, 4, 8]), st.integers(0, 3))
def test_transformer_xl_state_is_the_public_scores_position_terms(length, head_dim, seed):
    # the state computes only the two position terms; they must stay transformer_xl_scores'
    x = np.random.default_rng(seed).standard_normal((length, head_dim))
    v = np.random.default_rng(seed + 2).standard_normal(head_dim)
    terms = posenc.transformer_xl_scores(x, x, np.zeros(head_dim), v)
    grid = terms.content_position + terms.global_position  # (T, T)
    state = props.cached_position_state("transformer_xl", length, head_dim=head_dim, seed=seed)
    np.testing.assert_array_equal(state, grid[np.tril_indices(length)])


def test_dynamic_ntk_changes_every_cached_key_past_the_training_length():
    dh, train_len = 64, 64
    for length in (10, 62, 63):  # length + 1 <= L: the base has not moved yet
        assert props.cache_step("rope_dynamic", length, head_dim=dh, train_len=train_len).changed == 0
    for length in (64, 96, 200):
        step = props.cache_step("rope_dynamic", length, head_dim=dh, train_len=train_len)
        # all but position 0 and pair 0 (frequency base^0 = 1 at any base), two entries per row
        assert step.changed == length * dh - dh - 2 * (length - 1)
        assert step.max_change > 1e-3


def test_a_growing_interpolation_factor_moves_every_key_but_position_zero():
    step = props.cache_step("rope_pi_growing", 100, head_dim=16, train_len=64)
    assert step.changed == 99 * 16
    assert props.cache_step("rope_pi_growing", 30, head_dim=16, train_len=64).changed == 0


def test_a_learned_table_has_no_key_for_a_token_past_its_rows():
    assert props.cache_step("learned", 63, train_len=64).new == 64
    with pytest.raises(posenc.PositionOutOfRange):
        props.cache_step("learned", 64, train_len=64)


# absolute plus relative


def _hybrid_oracle(x, pos, weight, relative):
    pe = np.array([sinusoid_row(p, x.shape[1]) for p in pos])
    h = x + weight * pe
    if relative == "rope":
        h = posenc.apply_rope(h, pos.astype(float))
    scores = h @ h.T / math.sqrt(x.shape[1])
    if relative == "alibi":
        scores -= 0.5 * np.abs(pos[:, None] - pos[None, :])
    return scores


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["none", "rope", "alibi"]), st.floats(0, 2), st.integers(0, 50))
def test_hybrid_scores_are_the_scores_of_x_plus_w_pe(relative, weight, start):
    x = np.random.default_rng(7).standard_normal((6, 8))
    pos = np.arange(start, start + 6)
    got = props.hybrid_scores(x, pos, weight=weight, relative=relative, slope=0.5)
    np.testing.assert_allclose(got, _hybrid_oracle(x, pos, weight, relative), atol=1e-9)


@pytest.mark.parametrize("relative", props.HYBRID_RELATIVE)
def test_the_relative_part_alone_is_translation_invariant_and_the_absolute_part_is_not(relative):
    x = compare_lessons.phrase(16, 16, "random", seed=0)
    errors = props.hybrid_translation_errors(x, 9, [0.0, 0.5, 1.0], relative=relative)
    assert errors[0] < 1e-12
    assert errors[1] > 0.1
    # the sinusoid's p_i . p_j depends on i - j only: the change is linear in w
    assert errors[2] == pytest.approx(2 * errors[1], rel=1e-9)


def test_hybrid_translation_errors_match_a_loop_over_weights():
    x = compare_lessons.phrase(10, 8, "random", seed=1)
    weights = [0.0, 0.3, 1.7]
    for relative in ("rope", "t5"):
        options = dict(relative=relative, absolute="learned", max_len=64, std=0.5, seed=0)
        got = props.hybrid_translation_errors(x, 20, weights, **options)
        for w, e in zip(weights, got, strict=True):
            moved = props.hybrid_scores(x, np.arange(20, 30), weight=w, **options)
            assert e == pytest.approx(np.abs(moved - props.hybrid_scores(x, 10, weight=w, **options)).max(), abs=1e-9)
        # a learned table's own products are not relative: the change is no longer linear in w
        assert abs(got[2] / got[1] - 1.7 / 0.3) > 0.01
    with pytest.raises(posenc.PositionOutOfRange):
        props.hybrid_translation_errors(x, 60, [1.0], relative="none", absolute="learned", max_len=64)


# unique, bounded, norm-preserving


@given(st.integers(0, 3000), st.integers(0, 3000), st.integers(1, 16))
def test_offset_distance_is_the_distance_of_the_codes_for_any_start(p, k, half):
    d = 2 * half
    expected = np.linalg.norm(sinusoid_row(p, d) - sinusoid_row(p + k, d))
    assert props.sinusoid_offset_distance(np.array([k]), d)[0] == pytest.approx(expected, abs=1e-9)


def test_two_dimensions_nearly_repeat_and_many_do_not():
    distance, offset, n_close, running = props.sinusoid_closest(4096, 2)
    # (sin p, cos p) comes back near itself after 710 = 113 x 2 pi (a famous approximation of pi)
    assert offset == 710
    assert distance == pytest.approx(2 * abs(math.sin(355)), rel=1e-6)
    assert distance < 1e-4 and n_close > 1000
    assert running[-1] == distance and np.all(np.diff(running) <= 0)
    wide = props.sinusoid_closest(4096, 512)
    assert wide[0] > 1.0 and wide[1] == 1 and wide[2] == 0


def test_closest_pair_counts_match_brute_force():
    n, d = 60, 4
    codes = np.array([sinusoid_row(p, d, 10.0) for p in range(n)])
    dist = np.linalg.norm(codes[:, None] - codes[None, :], axis=-1)
    upper = dist[np.triu_indices(n, 1)]
    got = props.sinusoid_closest(n, d, 10.0, threshold=0.5)
    assert got[0] == pytest.approx(upper.min(), abs=1e-12)
    assert got[2] == int((upper < 0.5).sum())
    best, p, q = props.closest_pair(codes)
    assert best == pytest.approx(upper.min(), abs=1e-9) and dist[p, q] == pytest.approx(best)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 40), st.integers(1, 12), st.integers(0, 9), st.booleans())
def test_table_distances_are_both_measurements_from_one_gram(rows, width, seed, with_tie):
    table = np.random.default_rng(seed).standard_normal((rows, width))
    if with_tie and rows > 2:
        table[-1] = table[0]  # a pair at distance 0: the closest, whatever the rest
    by_offset, closest = props.table_distances(table)
    np.testing.assert_array_equal(by_offset, props.offset_distances(table))
    assert closest == props.closest_pair(table)


def test_sinusoid_closest_takes_the_distances_it_would_compute():
    n, d = 300, 16
    dist = props.sinusoid_offset_distance(np.arange(1, n), d, 100.0)
    given_ = props.sinusoid_closest(n, d, 100.0, threshold=0.3, distances=dist)
    computed = props.sinusoid_closest(n, d, 100.0, threshold=0.3)
    assert given_[:3] == computed[:3]
    np.testing.assert_array_equal(given_[3], computed[3])
    with pytest.raises(ValueError, match="distances"):
        props.sinusoid_closest(n, d, distances=dist[:-1])


def test_offset_distances_average_each_diagonal():
    table = np.random.default_rng(2).standard_normal((12, 5))
    got = props.offset_distances(table)
    for k in range(1, 12):
        expected = np.mean([np.linalg.norm(table[p] - table[p + k]) for p in range(12 - k)])
        assert got[k - 1] == pytest.approx(expected, rel=1e-9)
    np.testing.assert_allclose(
        props.offset_distances(posenc.sinusoidal(40, 16)),
        props.sinusoid_offset_distance(np.arange(1, 40), 16),
        atol=1e-6,
    )


def test_rope_keeps_the_norm_and_xpos_scales_it_as_its_paper_says():
    assert np.abs(props.norm_ratio("rope", 4096, 64) - 1).max() < 1e-12
    # one pair: the scale is zeta_0^(+-p / 512), zeta_0 = gamma / (1 + gamma)
    p = np.arange(0, 4096, 512)
    zeta = 0.4 / 1.4
    np.testing.assert_allclose(props.norm_ratio("xpos_query", p, 2), zeta ** (p / 512), rtol=1e-12)
    np.testing.assert_allclose(props.norm_ratio("xpos_key", p, 2), zeta ** (-p / 512), rtol=1e-12)
    q = props.norm_ratio("xpos_query", 2048, 64)
    assert q[0] == pytest.approx(1.0, abs=1e-12) and q[-1] < 0.5 and np.all(np.diff(q) < 0)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 256),
    st.integers(1, 300),
    st.sampled_from([10.0, 500.0, 10000.0, 1e6]),
    st.floats(0.05, 2.0),
    st.sampled_from([16.0, 512.0, 4096.0]),
    st.integers(0, 5),
)
def test_norm_ratios_shares_one_rotation_and_gives_norm_ratio(half, n, base, gamma, scale_base, seed):
    got = props.norm_ratios(n, 2 * half, seed=seed, base=base, gamma=gamma, scale_base=scale_base)
    assert set(got) == set(props.NORM_METHODS)
    for method in props.NORM_METHODS:
        expected = props.norm_ratio(method, n, 2 * half, seed=seed, base=base, gamma=gamma, scale_base=scale_base)
        np.testing.assert_allclose(got[method], expected, rtol=1e-12)


def test_rope_translation_error_is_rounding_unless_the_frequencies_follow_the_length():
    x = compare_lessons.phrase(32, 64, "random", seed=0)
    assert props.rope_translation_error(x, 64) < 1e-12
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}
    assert props.rope_translation_error(x, 64, rope_scaling=yarn) < 1e-12
    dynamic = {"rope_type": "dynamic", "factor": 4.0, "original_max_position_embeddings": 64}
    assert props.rope_translation_error(x, 16, rope_scaling=dynamic) < 1e-12  # still within L
    assert props.rope_translation_error(x, 64, rope_scaling=dynamic) > 0.1


# validation


@pytest.mark.parametrize(
    ("call", "names"),
    [
        (lambda: props.embedding_std("big", 4), "scale"),
        (lambda: props.token_embeddings(0, 4), "n_tokens"),
        (lambda: props.norm_by_width([3], scale=None), "d_models"),
        (lambda: props.added_score_parts(np.ones((2, 4)), np.ones((3, 4))), "same shape"),
        (lambda: props.content_recovery(np.ones((2, 4)), np.ones((2, 6))), "pe"),
        (lambda: props.content_recovery(np.ones((2, 4)), np.ones((2, 4)), mode="mix"), "mode"),
        (lambda: props.concat_projection_params(0, 4), "d_model"),
        (lambda: props.cached_position_state("sinusoidal", 4), "method"),
        (lambda: props.cached_position_state("rope", 4, head_dim=5), "head_dim"),
        (lambda: props.cached_position_state("rope_dynamic", 4, factor=0.5), "factor"),
        (lambda: props.cache_step("rope", 0), "length"),
        (lambda: props.hybrid_parts(np.ones((3, 4)), 3, relative="shaw"), "relative"),
        (lambda: props.hybrid_parts(np.ones((3, 4)), 4), "positions"),
        (lambda: props.hybrid_translation_errors(np.ones((3, 4)), -1, [0.0]), "shift"),
        (lambda: props.sinusoid_closest(1, 4), "n_positions"),
        (lambda: props.offset_distances(np.ones((1, 4))), "table"),
        (lambda: props.norm_ratio("alibi", 4, 4), "method"),
        (lambda: props.cached_position_state("alibi", 10**5), "elements"),
    ],
)
def test_bad_arguments_are_refused_with_a_message_that_names_them(call, names):
    with pytest.raises(ValueError, match=names):
        call()
