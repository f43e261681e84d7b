"""RoPE's operation count against a counting loop, and RoPE inside causal linear attention
(Su et al. 2021, sec. 3.3) against the T x T formula written out with loops."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from posenc_lab.lessons.claims import measure as claims


def rotate_counting(x: np.ndarray) -> tuple[np.ndarray, int]:
    """RoPE by hand (interleaved pairs, base 10000), counting every multiply and add."""
    t, dh = x.shape
    out, ops = np.empty_like(x), 0
    for m in range(t):
        for i in range(dh // 2):
            angle = m * 10000.0 ** (-2 * i / dh)
            c, s = math.cos(angle), math.sin(angle)  # made once per position: not counted
            a, b = x[m, 2 * i], x[m, 2 * i + 1]
            out[m, 2 * i] = a * c - b * s
            out[m, 2 * i + 1] = a * s + b * c
            ops += 6  # 2 multiplies and 1 add for each of the two elements
    return out, ops


def scores_counting(q: np.ndarray, k: np.ndarray) -> int:
    ops = 0
    for _m in range(q.shape[0]):
        for _n in range(k.shape[0]):
            ops += q.shape[1] + q.shape[1] - 1  # Dh multiplies, Dh - 1 adds
    return ops


@pytest.mark.parametrize(("t", "dh"), [(1, 2), (5, 4), (12, 8)])
def test_operation_counts_match_a_counting_loop_that_computes_rope(t, dh):
    rng = np.random.default_rng(t)
    q, k = rng.normal(size=(t, dh)), rng.normal(size=(t, dh))
    rq, q_ops = rotate_counting(q)
    rk, k_ops = rotate_counting(k)
    np.testing.assert_allclose(rq, posenc.apply_rope(q), atol=1e-12)  # the loop is RoPE
    np.testing.assert_allclose(rk, posenc.apply_rope(k), atol=1e-12)
    counts = claims.rope_operation_counts(t, dh)
    assert counts.rotation == q_ops + k_ops
    assert counts.scores == scores_counting(q, k)


def test_operation_counts_known_values():
    counts = claims.rope_operation_counts(4096, 128)
    assert counts.rotation == 6 * 4096 * 128 == 3_145_728
    assert counts.scores == 4096**2 * 255 == 4_278_190_080
    assert counts.ratio == pytest.approx(3_145_728 / 4_278_190_080)
    assert claims.rope_operation_counts(1, 2).scores == 3


@given(t=st.integers(1, 10**6), half=st.integers(1, 512))
def test_rotation_is_linear_in_t_and_its_share_about_three_over_t(t, half):
    dh = 2 * half
    counts = claims.rope_operation_counts(t, dh)
    assert claims.rope_operation_counts(2 * t, dh).rotation == 2 * counts.rotation
    assert 3 < counts.ratio * t <= 6  # 6 Dh / (2 Dh - 1)


def linear_attention_by_loops(q, k, v) -> np.ndarray:
    """Su et al. eq. 19 term by term: rotated features above, unrotated below."""
    feature = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))  # noqa: E731
    fq, fk = feature(q), feature(k)
    rq, rk = posenc.apply_rope(fq), posenc.apply_rope(fk)
    out = np.zeros_like(v)
    for m in range(q.shape[0]):
        top, bottom = np.zeros(v.shape[1]), 0.0
        for n in range(m + 1):
            top += (rq[m] @ rk[n]) * v[n]
            bottom += fq[m] @ fk[n]
        out[m] = top / bottom
    return out


@settings(max_examples=25, deadline=None)
@given(t=st.integers(1, 24), half=st.integers(1, 8), seed=st.integers(0, 50))
def test_rope_fits_causal_linear_attention_to_rounding(t, half, seed):
    assert claims.rope_linear_attention_gap(t, 2 * half, seed=seed) < 1e-12


def test_the_quadratic_form_measured_is_su_et_al_eq_19():
    # the gap compares two forms; check one of them against the loops with the same inputs
    rng = np.random.default_rng(3)
    q, k, v = (rng.normal(size=(7, 4)) for _ in range(3))
    expected = linear_attention_by_loops(q, k, v)
    feature = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))  # noqa: E731
    rq, rk = posenc.apply_rope(feature(q)), posenc.apply_rope(feature(k))
    running = np.cumsum(rk[:, :, None] * v[:, None, :], axis=0)
    norm = np.cumsum(feature(k), axis=0)
    linear = np.einsum("td,tde->te", rq, running) / (feature(q) * norm).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(linear, expected, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: claims.rope_operation_counts(0, 4), "seq_len"),
        (lambda: claims.rope_operation_counts(4, 3), "head_dim"),
        (lambda: claims.rope_linear_attention_gap(4, 5), "head_dim"),
        (lambda: claims.rope_linear_attention_gap(4096, 4), "seq_len"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(call, match):
    with pytest.raises(ValueError, match=match):
        call()
