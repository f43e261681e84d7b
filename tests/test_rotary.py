"""RoPE, its frequency scalings, and xPos.

Hand-computed rotations, a plain-loop oracle for both pairings, properties (norms,
relative scores, the layout permutation) and the scaling rules written out by hand.
The frozen transformers / torchscale numbers are in test_snapshots.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import posenc
from posenc import (
    apply_rope,
    apply_xpos,
    half_to_interleaved_permutation,
    rope_cos_sin,
    rope_inv_freq,
    xpos_scale,
)

# helpers


def rope_loop(x, positions, inv_freq, layout, scale=None):
    """Rotate each pair of each row of a (T, Dh) array, one scalar at a time.

    ``scale`` is None, a number, or a (T, Dh/2) nested list multiplying cos and sin.
    """
    n, head_dim = len(x), len(x[0])
    half = head_dim // 2
    out = [[0.0] * head_dim for _ in range(n)]
    for t in range(n):
        for i in range(half):
            first, second = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + half)
            a, b = x[t][first], x[t][second]
            angle = positions[t] * inv_freq[i]
            factor = 1.0 if scale is None else scale if isinstance(scale, float) else scale[t][i]
            c, s = factor * math.cos(angle), factor * math.sin(angle)
            # (a, b) -> (a cos t - b sin t, a sin t + b cos t)
            out[t][first] = a * c - b * s
            out[t][second] = a * s + b * c
    return np.array(out)


def default_inv_freq_loop(head_dim, base):
    return [base ** (-2 * i / head_dim) for i in range(head_dim // 2)]


head_dims = st.integers(1, 16).map(lambda n: 2 * n)
unit_floats = st.floats(-1.0, 1.0, allow_nan=False)


def vectors(head_dim):
    return hnp.arrays(np.float64, head_dim, elements=unit_floats)


YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}


# hand-computed rotations


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, math.pi / 2, 3.0, 10.0])
@pytest.mark.parametrize("base", [10.0, 10000.0])
def test_unit_vector_turns_by_its_position(p, base):
    # head_dim 2: the only frequency is base^0 = 1, so the angle is p whatever the base
    got = apply_rope([[1.0, 0.0]], positions=[p], base=base)
    np.testing.assert_allclose(got, [[math.cos(p), math.sin(p)]], rtol=0, atol=1e-15)


@pytest.mark.parametrize("layout", posenc.ROPE_LAYOUTS)
def test_general_two_d_vector(layout):
    a, b, p = 0.3, -1.7, 2.2
    got = apply_rope([[a, b]], positions=[p], layout=layout)
    expected = [a * math.cos(p) - b * math.sin(p), a * math.sin(p) + b * math.cos(p)]
    np.testing.assert_allclose(got, [expected], rtol=0, atol=1e-15)


def test_four_dims_by_hand_both_layouts():
    # base 100, Dh = 4: frequencies 1 and 100^(-1/2) = 0.1; position 3 -> angles 3 and 0.3
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    c1, s1, c2, s2 = math.cos(3.0), math.sin(3.0), math.cos(0.3), math.sin(0.3)
    # interleaved pairs: (1, 2) turned by 3, (3, 4) turned by 0.3
    inter = [1 * c1 - 2 * s1, 1 * s1 + 2 * c1, 3 * c2 - 4 * s2, 3 * s2 + 4 * c2]
    # half pairs: (1, 3) turned by 3, (2, 4) turned by 0.3
    half = [1 * c1 - 3 * s1, 2 * c2 - 4 * s2, 1 * s1 + 3 * c1, 2 * s2 + 4 * c2]
    np.testing.assert_allclose(apply_rope(x, [3], base=100.0), [inter], rtol=0, atol=1e-14)
    np.testing.assert_allclose(apply_rope(x, [3], base=100.0, layout="half"), [half], rtol=0, atol=1e-14)


def test_position_zero_is_the_identity():
    x = np.random.default_rng(0).standard_normal((3, 8))
    np.testing.assert_array_equal(apply_rope(x, [0, 0, 0]), x)


def test_rope_cos_sin_by_hand():
    cos, sin = rope_cos_sin([0, 2], [1.0, 0.25])
    np.testing.assert_allclose(cos, [[1, 1], [math.cos(2.0), math.cos(0.5)]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(sin, [[0, 0], [math.sin(2.0), math.sin(0.5)]], rtol=0, atol=1e-15)


def test_default_positions_are_zero_to_t_minus_one():
    x = np.random.default_rng(1).standard_normal((2, 5, 6))
    np.testing.assert_array_equal(apply_rope(x), apply_rope(x, np.arange(5)))
    np.testing.assert_array_equal(apply_rope(x), apply_rope(x, 5))


def test_half_to_interleaved_permutation_by_hand():
    np.testing.assert_array_equal(half_to_interleaved_permutation(2), [0, 1])
    np.testing.assert_array_equal(half_to_interleaved_permutation(6), [0, 3, 1, 4, 2, 5])


# oracle


@pytest.mark.parametrize("layout", posenc.ROPE_LAYOUTS)
@pytest.mark.parametrize(
    ("head_dim", "base", "positions"),
    [
        (8, 10000.0, [0, 1, 2, 5, 10, 100]),
        (2, 10000.0, [7.5, 0.25]),
        (16, 500000.0, [0, 4095, 4096, 70000]),
        (6, 10.0, [3.0, 1.0, 4.0, 1.0, 5.0]),
    ],
)
def test_apply_rope_matches_loop(layout, head_dim, base, positions):
    x = np.random.default_rng(head_dim).standard_normal((len(positions), head_dim))
    expected = rope_loop(x.tolist(), positions, default_inv_freq_loop(head_dim, base), layout)
    got = apply_rope(x, positions, base=base, layout=layout)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("layout", posenc.ROPE_LAYOUTS)
def test_apply_rope_batches_over_leading_axes(layout):
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 8))  # (B, H, T, Dh)
    positions = [0, 3, 9, 27]
    inv_freq = default_inv_freq_loop(8, 10000.0)
    got = apply_rope(x, positions, layout=layout)
    for b in range(2):
        for h in range(3):
            expected = rope_loop(x[b, h].tolist(), positions, inv_freq, layout)
            np.testing.assert_allclose(got[b, h], expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", posenc.ROPE_LAYOUTS)
def test_apply_rope_linear_scaling_matches_loop_with_divided_frequencies(layout):
    x = np.random.default_rng(3).standard_normal((4, 8))
    positions = [0, 1, 10, 33]
    inv_freq = [f / 4.0 for f in default_inv_freq_loop(8, 10000.0)]
    expected = rope_loop(x.tolist(), positions, inv_freq, layout)
    got = apply_rope(x, positions, layout=layout, rope_scaling={"rope_type": "linear", "factor": 4.0})
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@given(
    head_dim=head_dims,
    positions=st.lists(st.floats(0, 1e4, allow_nan=False), min_size=1, max_size=6),
    data=st.data(),
    layout=st.sampled_from(posenc.ROPE_LAYOUTS),
)
def test_apply_rope_matches_loop_for_random_inputs(head_dim, positions, data, layout):
    x = data.draw(hnp.arrays(np.float64, (len(positions), head_dim), elements=unit_floats))
    expected = rope_loop(x.tolist(), positions, default_inv_freq_loop(head_dim, 10000.0), layout)
    np.testing.assert_allclose(apply_rope(x, positions, layout=layout), expected, rtol=0, atol=1e-10)


# properties


@given(head_dim=head_dims, data=st.data(), layout=st.sampled_from(posenc.ROPE_LAYOUTS))
def test_rope_preserves_norms(head_dim, data, layout):
    positions = data.draw(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=5))
    x = data.draw(hnp.arrays(np.float64, (len(positions), head_dim), elements=unit_floats))
    y = apply_rope(x, positions, layout=layout)
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12, atol=1e-14)


@given(head_dim=head_dims, data=st.data(), factor=st.floats(1.0, 64.0))
def test_yarn_scales_norms_by_its_attention_factor(head_dim, data, factor):
    cfg = dict(YARN, factor=factor)
    positions = data.draw(st.lists(st.integers(0, 10_000), min_size=1, max_size=5))
    x = data.draw(hnp.arrays(np.float64, (len(positions), head_dim), elements=unit_floats))
    _, attention_factor = rope_inv_freq(head_dim, rope_scaling=cfg)
    assert attention_factor == pytest.approx(0.1 * math.log(factor) + 1.0, rel=1e-15)
    y = apply_rope(x, positions, rope_scaling=cfg)
    np.testing.assert_allclose(
        np.linalg.norm(y, axis=-1), attention_factor * np.linalg.norm(x, axis=-1), rtol=1e-12, atol=1e-14
    )


@given(
    head_dim=head_dims,
    data=st.data(),
    m=st.integers(0, 4096),
    n=st.integers(0, 4096),
    shift=st.integers(0, 4096),
    layout=st.sampled_from(posenc.ROPE_LAYOUTS),
)
def test_rope_scores_depend_only_on_the_offset(head_dim, data, m, n, shift, layout):
    q, k = data.draw(vectors(head_dim)), data.draw(vectors(head_dim))
    score = apply_rope(q[None], [m], layout=layout)[0] @ apply_rope(k[None], [n], layout=layout)[0]
    shifted = apply_rope(q[None], [m + shift], layout=layout)[0] @ apply_rope(k[None], [n + shift], layout=layout)[0]
    # and the same score with the query at 0 or the key at 0
    m0, n0 = (0, n - m) if n >= m else (m - n, 0)
    moved = apply_rope(q[None], [m0], layout=layout)[0] @ apply_rope(k[None], [n0], layout=layout)[0]
    tol = 1e-10 * head_dim
    assert shifted == pytest.approx(score, abs=tol)
    assert moved == pytest.approx(score, abs=tol)


def test_rope_scores_do_change_with_the_offset():
    # guards the property above against a rotation that does nothing
    q = k = np.ones((1, 8))
    scores = [apply_rope(q, [0])[0] @ apply_rope(k, [d])[0] for d in range(4)]
    assert len(set(np.round(scores, 12))) == 4


@given(
    head_dim=head_dims,
    data=st.data(),
    base=st.floats(2.0, 1e6),
)
def test_layouts_agree_up_to_the_fixed_permutation(head_dim, data, base):
    n = data.draw(st.integers(1, 5))
    x = data.draw(hnp.arrays(np.float64, (2, n, head_dim), elements=unit_floats))
    positions = data.draw(st.lists(st.floats(0, 1e4, allow_nan=False), min_size=n, max_size=n))
    perm = half_to_interleaved_permutation(head_dim)
    inter = apply_rope(x[..., perm], positions, base=base, layout="interleaved")
    half = apply_rope(x, positions, base=base, layout="half")
    np.testing.assert_allclose(inter, half[..., perm], rtol=0, atol=1e-14)


def test_layouts_really_differ_without_the_permutation():
    x = np.random.default_rng(4).standard_normal((3, 8))
    assert not np.allclose(apply_rope(x, layout="interleaved"), apply_rope(x, layout="half"))


# frequencies and scaling rules


@pytest.mark.parametrize(("head_dim", "base"), [(2, 10000.0), (8, 10000.0), (64, 10000.0), (128, 500000.0)])
def test_default_inv_freq_closed_form(head_dim, base):
    inv_freq, attention_factor = rope_inv_freq(head_dim, base)
    np.testing.assert_allclose(inv_freq, default_inv_freq_loop(head_dim, base), rtol=1e-14)
    assert inv_freq.shape == (head_dim // 2,)
    assert attention_factor == 1.0
    same, _ = rope_inv_freq(head_dim, base, {"rope_type": "default"})
    np.testing.assert_array_equal(same, inv_freq)


def test_inv_freq_by_hand():
    inv_freq, _ = rope_inv_freq(8)
    np.testing.assert_allclose(inv_freq, [1.0, 0.1, 0.01, 0.001], rtol=1e-15)


@pytest.mark.parametrize("factor", [1.0, 2.0, 4.0, 8.5])
def test_linear_is_default_divided_by_factor(factor):
    default, _ = rope_inv_freq(32)
    linear, attention_factor = rope_inv_freq(32, rope_scaling={"rope_type": "linear", "factor": factor})
    np.testing.assert_allclose(linear, default / factor, rtol=1e-15)
    assert attention_factor == 1.0


def test_legacy_type_key_means_rope_type():
    new, _ = rope_inv_freq(16, rope_scaling={"rope_type": "linear", "factor": 2.0})
    old, _ = rope_inv_freq(16, rope_scaling={"type": "linear", "factor": 2.0})
    np.testing.assert_array_equal(old, new)


def test_ntk_by_hand():
    # Dh = 4, factor 4: base' = 10000 * 4^(4/2) = 160000, inv_freq = [1, 160000^(-1/2)] = [1, 1/400]
    inv_freq, attention_factor = rope_inv_freq(4, rope_scaling={"rope_type": "ntk", "factor": 4.0})
    np.testing.assert_allclose(inv_freq, [1.0, 1 / 400], rtol=1e-14)
    assert attention_factor == 1.0


@pytest.mark.parametrize(("head_dim", "base", "factor"), [(8, 10000.0, 2.0), (64, 10000.0, 8.0), (128, 5e5, 3.0)])
def test_ntk_changes_the_base(head_dim, base, factor):
    new_base = base * factor ** (head_dim / (head_dim - 2))
    inv_freq, _ = rope_inv_freq(head_dim, base, {"rope_type": "ntk", "factor": factor})
    np.testing.assert_allclose(inv_freq, default_inv_freq_loop(head_dim, new_base), rtol=1e-13)
    default, _ = rope_inv_freq(head_dim, base)
    # the fastest pair keeps its frequency, the slowest is interpolated by exactly `factor`
    assert inv_freq[0] == default[0] == 1.0
    assert inv_freq[-1] == pytest.approx(default[-1] / factor, rel=1e-12)


DYNAMIC = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 2048}


@pytest.mark.parametrize("seq_len", [None, 1, 100, 2047, 2048])
def test_dynamic_is_unscaled_within_the_training_length(seq_len):
    default, _ = rope_inv_freq(64)
    inv_freq, attention_factor = rope_inv_freq(64, rope_scaling=DYNAMIC, seq_len=seq_len)
    np.testing.assert_allclose(inv_freq, default, rtol=1e-14)
    assert attention_factor == 1.0


def test_dynamic_by_hand():
    # Dh = 4, factor 2, L0 = 4, L = 8: base' = 10000 * (2 * 8/4 - 1)^(4/2) = 90000 -> [1, 1/300]
    cfg = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4}
    inv_freq, _ = rope_inv_freq(4, rope_scaling=cfg, seq_len=8)
    np.testing.assert_allclose(inv_freq, [1.0, 1 / 300], rtol=1e-14)


def test_dynamic_grows_with_seq_len():
    slow = [rope_inv_freq(64, rope_scaling=DYNAMIC, seq_len=s)[0][-1] for s in (2048, 4096, 8192, 16384)]
    assert all(a > b for a, b in zip(slow, slow[1:], strict=False))


@pytest.mark.parametrize("positions", [list(range(8)), [0, 7], [7.5, 0.0], [2.5]])
def test_apply_rope_dynamic_uses_largest_position_plus_one(positions):
    cfg = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4}
    seq_len = math.floor(max(positions)) + 1
    inv_freq, _ = rope_inv_freq(4, rope_scaling=cfg, seq_len=seq_len)
    x = np.random.default_rng(5).standard_normal((len(positions), 4))
    expected = rope_loop(x.tolist(), positions, inv_freq.tolist(), "interleaved")
    np.testing.assert_allclose(apply_rope(x, positions, rope_scaling=cfg), expected, rtol=0, atol=1e-14)


def test_yarn_attention_factor_rules():
    _, default = rope_inv_freq(64, rope_scaling=YARN)
    assert default == pytest.approx(0.1 * math.log(4.0) + 1.0, rel=1e-15)
    _, explicit = rope_inv_freq(64, rope_scaling=dict(YARN, attention_factor=0.8))
    assert explicit == 0.8
    _, ratio = rope_inv_freq(64, rope_scaling=dict(YARN, mscale=1.0, mscale_all_dim=0.5))
    assert ratio == pytest.approx((0.1 * math.log(4.0) + 1) / (0.05 * math.log(4.0) + 1), rel=1e-15)
    _, no_scaling = rope_inv_freq(64, rope_scaling=dict(YARN, factor=1.0))
    assert no_scaling == 1.0


@pytest.mark.parametrize(
    "cfg",
    [
        YARN,
        dict(YARN, beta_fast=16.0, beta_slow=2.0, truncate=False),
        {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 64,
        },
    ],
    ids=["yarn", "yarn-custom", "llama3"],
)
def test_blended_scalings_keep_fast_pairs_and_interpolate_slow_ones(cfg):
    default, _ = rope_inv_freq(64, 10000.0)
    scaled, _ = rope_inv_freq(64, 10000.0, cfg)
    factor = cfg["factor"]
    # every frequency lies between "interpolated" (default / factor) and "kept" (default)
    assert np.all(scaled <= default * (1 + 1e-15))
    assert np.all(scaled >= default / factor * (1 - 1e-15))
    assert scaled[0] == default[0]
    assert scaled[-1] == pytest.approx(default[-1] / factor, rel=1e-15)
    # and the share kept never grows from fast to slow pairs
    kept = (scaled - default / factor) / (default - default / factor)
    assert np.all(np.diff(kept) <= 1e-12)


def test_llama3_bands_by_hand():
    # L0 = 64, low_ff 1, high_ff 4: wavelengths > 64 interpolated, < 16 kept, blended between
    cfg = {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 64,
    }
    default = np.array(default_inv_freq_loop(16, 10000.0))
    scaled, _ = rope_inv_freq(16, rope_scaling=cfg)
    for inv, got in zip(default, scaled, strict=True):
        wavelength = 2 * math.pi / inv
        if wavelength < 16:
            assert got == inv
        elif wavelength > 64:
            assert got == pytest.approx(inv / 8, rel=1e-15)
        else:
            smooth = (64 / wavelength - 1) / (4 - 1)
            assert got == pytest.approx((1 - smooth) * inv / 8 + smooth * inv, rel=1e-14)


def test_every_registered_rope_type_runs():
    base_cfgs = {
        "default": {},
        "linear": {"factor": 2.0},
        "ntk": {"factor": 2.0},
        "dynamic": {"factor": 2.0, "original_max_position_embeddings": 16},
        "yarn": {"factor": 2.0, "original_max_position_embeddings": 16},
        "llama3": {
            "factor": 2.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 16,
        },
        "longrope": {
            "short_factor": [1.0, 1.5, 2.0, 3.0],
            "long_factor": [1.0, 2.0, 4.0, 8.0],
            "original_max_position_embeddings": 16,
            "max_position_embeddings": 64,
        },
        "proportional": {"partial_rotary_factor": 1.0},
    }
    assert set(posenc.ROPE_INIT_FUNCTIONS) == set(base_cfgs)
    x = np.random.default_rng(6).standard_normal((40, 8))
    for rope_type, extra in base_cfgs.items():
        inv_freq, attention_factor = rope_inv_freq(8, rope_scaling={"rope_type": rope_type, **extra}, seq_len=40)
        assert inv_freq.shape == (4,) and inv_freq.dtype == np.float64
        assert np.all(inv_freq > 0) and attention_factor > 0
        assert apply_rope(x, rope_scaling={"rope_type": rope_type, **extra}).shape == x.shape


# xPos


def xpos_scale_loop(positions, head_dim, gamma=0.4, scale_base=512.0):
    return np.array(
        [
            [((2 * i / head_dim + gamma) / (1 + gamma)) ** (p / scale_base) for i in range(head_dim // 2)]
            for p in positions
        ]
    )


@pytest.mark.parametrize(
    ("positions", "head_dim", "gamma", "scale_base"),
    [([0, 1, 2, 100, 5000], 8, 0.4, 512.0), ([0.5, 3.0], 2, 0.1, 64.0), (list(range(10)), 16, 1.0, 8.0)],
)
def test_xpos_scale_matches_loop(positions, head_dim, gamma, scale_base):
    got = xpos_scale(positions, head_dim, gamma=gamma, scale_base=scale_base)
    np.testing.assert_allclose(got, xpos_scale_loop(positions, head_dim, gamma, scale_base), rtol=1e-13)


def test_xpos_scale_by_hand():
    # Dh = 4, gamma 0.4: zeta = [0.4/1.4, 0.9/1.4]; at p = scale_base the scale is zeta itself
    np.testing.assert_allclose(xpos_scale([0, 512], 4), [[1, 1], [0.4 / 1.4, 0.9 / 1.4]], rtol=1e-15)


@pytest.mark.parametrize("layout", posenc.ROPE_LAYOUTS)
@pytest.mark.parametrize("role", ["query", "key"])
def test_apply_xpos_matches_loop(layout, role):
    x = np.random.default_rng(7).standard_normal((5, 8))
    positions = [0, 1, 5, 40, 300]
    scale = xpos_scale_loop(positions, 8)
    if role == "key":
        scale = 1 / scale
    expected = rope_loop(x.tolist(), positions, default_inv_freq_loop(8, 10000.0), layout, scale.tolist())
    got = apply_xpos(x, positions, role=role, layout=layout)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@given(data=st.data(), m=st.integers(0, 2000), n=st.integers(0, 2000), shift=st.integers(0, 2000))
def test_xpos_scores_depend_only_on_the_offset_and_decay(data, m, n, shift):
    q, k = data.draw(vectors(8)), data.draw(vectors(8))
    assume(np.linalg.norm(q) > 0.1 and np.linalg.norm(k) > 0.1)

    def score(i, j):
        return apply_xpos(q[None], [i], role="query")[0] @ apply_xpos(k[None], [j], role="key")[0]

    assert score(m + shift, n + shift) == pytest.approx(score(m, n), rel=1e-9, abs=1e-10)
    # pair by pair, xPos multiplies RoPE's score by zeta_i^((m - n) / 512)
    zeta = np.array([(2 * i / 8 + 0.4) / 1.4 for i in range(4)])
    qr, kr = apply_rope(q[None], [m])[0], apply_rope(k[None], [n])[0]
    pair_scores = qr[0::2] * kr[0::2] + qr[1::2] * kr[1::2]
    expected = float(np.sum(pair_scores * zeta ** ((m - n) / 512)))
    assert score(m, n) == pytest.approx(expected, rel=1e-9, abs=1e-10)
