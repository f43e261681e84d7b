"""posenc against frozen numbers from the reference implementations.

``data/reference_snapshots.json`` was made by ``tools/make_reference_snapshots.py`` with
torch, transformers and torchscale (versions under "meta"); the inputs are stored next
to the outputs, so these tests replay them without torch. Fixtures named ``*_case`` are
parametrized over every case of a section (see conftest.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import posenc
from posenc import (
    alibi_slopes,
    apply_rope,
    apply_xpos,
    deberta_log_bucket,
    relative_positions,
    rope_inv_freq,
    t5_bucket,
)


def test_snapshot_file_has_every_section(snapshots):
    expected = {
        "alibi_slopes",
        "t5_bucket",
        "rope_init",
        "rope_apply_half",
        "rope_apply_interleaved",
        "deberta_log_bucket",
        "xpos",
    }
    assert expected <= set(snapshots)
    # every transformers rope_type is snapshotted ("ntk" is posenc's own, tested by formula)
    types = {case["rope_scaling"]["rope_type"] for case in snapshots["rope_init"] + snapshots["rope_modern"]["init"]}
    assert types == set(posenc.ROPE_INIT_FUNCTIONS) - {"ntk"}


# ALiBi


def test_alibi_slopes_match_press(alibi_case):
    n_heads, slopes = alibi_case
    np.testing.assert_allclose(alibi_slopes(int(n_heads)), slopes, rtol=1e-12, atol=0)


def test_alibi_slopes_match_bloom_float32(alibi_case):
    # Bloom's build_alibi_tensor computes the same slopes in float32
    n_heads, slopes = alibi_case
    bloom = np.asarray(slopes, dtype=np.float32).astype(np.float64)
    np.testing.assert_allclose(alibi_slopes(int(n_heads)), bloom, rtol=1e-6, atol=0)


# T5 and DeBERTa buckets (computed in float32 by the references: exact equality)


def test_t5_bucket_matches_transformers(t5_case):
    got = t5_bucket(
        np.asarray(t5_case["relative_position"]),
        bidirectional=t5_case["bidirectional"],
        num_buckets=t5_case["num_buckets"],
        max_distance=t5_case["max_distance"],
    )
    np.testing.assert_array_equal(got, t5_case["bucket"])


def test_deberta_log_bucket_matches_transformers(deberta_bucket_case):
    got = deberta_log_bucket(
        np.asarray(deberta_bucket_case["relative_position"]),
        bucket_size=deberta_bucket_case["bucket_size"],
        max_position=deberta_bucket_case["max_position"],
    )
    np.testing.assert_array_equal(got, deberta_bucket_case["result"])


def test_build_relative_position_is_query_minus_key(build_rel_case):
    # transformers' DeBERTa numbers queries 0..Tq-1 from the start, q_pos - k_pos; posenc
    # aligns queries to the end (pos_q(i) = Tk - Tq + i), so the two differ by Tk - Tq
    q_len, k_len = build_rel_case["query_size"], build_rel_case["key_size"]
    expected = np.asarray(build_rel_case["result"])[0]  # (Tq, Tk)
    query_minus_key = -relative_positions(q_len, k_len) - (k_len - q_len)
    if build_rel_case["bucket_size"] > 0:
        query_minus_key = deberta_log_bucket(
            query_minus_key,
            bucket_size=build_rel_case["bucket_size"],
            max_position=build_rel_case["max_position"],
        )
    np.testing.assert_array_equal(query_minus_key, expected)


def test_build_relative_position_square_block_is_minus_relative_positions(snapshots):
    # for equal lengths the conventions coincide: the first Tq columns of the (5, 7) case
    # hold i - j for i, j < 5
    case = snapshots["deberta_log_bucket"]["build_relative_position"][0]
    block = np.asarray(case["result"])[0][:, :5]
    np.testing.assert_array_equal(block, -relative_positions(5))


# RoPE frequencies


def _inv_freq(case):
    return rope_inv_freq(case["head_dim"], case["base"], case["rope_scaling"], seq_len=case["seq_len"])


def test_rope_inv_freq_matches_transformers_float64(rope_init_case):
    inv_freq, _ = _inv_freq(rope_init_case)
    np.testing.assert_allclose(inv_freq, rope_init_case["inv_freq_f64"], rtol=1e-12, atol=0)


def test_rope_inv_freq_matches_transformers_float32(rope_init_case):
    inv_freq, _ = _inv_freq(rope_init_case)
    np.testing.assert_allclose(inv_freq, rope_init_case["inv_freq"], rtol=2e-6, atol=0)


def test_rope_attention_factor_matches_transformers(rope_init_case):
    _, attention_factor = _inv_freq(rope_init_case)
    assert attention_factor == pytest.approx(rope_init_case["attention_factor"], rel=1e-12, abs=0)


# RoPE rotations


def test_apply_rope_half_matches_llama(rope_half_case):
    x = np.asarray(rope_half_case["x"])  # (B, H, T, Dh)
    got = apply_rope(
        x,
        rope_half_case["positions"],
        base=rope_half_case["base"],
        layout="half",
        rope_scaling=rope_half_case["rope_scaling"],
    )
    np.testing.assert_allclose(got, rope_half_case["output"], rtol=0, atol=1e-12)
    # and the other pairing really is different (the snapshot pins the convention)
    other = apply_rope(
        x,
        rope_half_case["positions"],
        base=rope_half_case["base"],
        layout="interleaved",
        rope_scaling=rope_half_case["rope_scaling"],
    )
    assert not np.allclose(other, rope_half_case["output"], atol=1e-6)


def test_apply_rope_interleaved_matches_gptj(snapshots):
    case = snapshots["rope_apply_interleaved"]
    x = np.asarray(case["x"])  # (B, H, T, Dh)
    got = apply_rope(x, case["positions"], base=case["base"], layout="interleaved")
    np.testing.assert_allclose(got, case["output"], rtol=0, atol=1e-12)


# xPos


def _zeta(head_dim, gamma=0.4):
    return np.array([(2 * i / head_dim + gamma) / (1 + gamma) for i in range(head_dim // 2)])


def test_xpos_scores_match_torchscale(snapshots, xpos_case):
    meta = snapshots["xpos"]
    x = np.asarray(meta["x"])  # (B*H, T, Dh)
    positions = xpos_case["rotation_positions"]
    q = apply_xpos(x, positions, role="query", scale_base=meta["scale_base"])
    k = apply_xpos(x, positions, role="key", scale_base=meta["scale_base"])
    ref_q, ref_k = np.asarray(xpos_case["output_q"]), np.asarray(xpos_case["output_k"])
    scores = q @ np.swapaxes(k, -1, -2)
    ref_scores = ref_q @ np.swapaxes(ref_k, -1, -2)
    np.testing.assert_allclose(scores, ref_scores, rtol=1e-12, atol=1e-13)


def test_xpos_vectors_differ_from_torchscale_only_by_the_centring(snapshots, xpos_case):
    # torchscale scales by zeta^((p - c) / scale_base) with c = rotation - scale position;
    # posenc uses p itself, so queries differ by zeta^(-c/scale_base) and keys by its inverse
    meta = snapshots["xpos"]
    x = np.asarray(meta["x"])
    positions = xpos_case["rotation_positions"]
    shifts = {r - s for r, s in zip(positions, xpos_case["scale_positions"], strict=True)}
    assert len(shifts) == 1
    centre_factor = _zeta(meta["head_dim"]) ** (-shifts.pop() / meta["scale_base"])  # (Dh/2,)
    per_dim = np.repeat(centre_factor, 2)  # interleaved pairs
    q = apply_xpos(x, positions, role="query", scale_base=meta["scale_base"])
    k = apply_xpos(x, positions, role="key", scale_base=meta["scale_base"])
    np.testing.assert_allclose(q * per_dim, xpos_case["output_q"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(k / per_dim, xpos_case["output_k"], rtol=1e-12, atol=1e-14)
