"""Sliding-window attention in posenc.attention: the mask, the receptive field after L
layers and the key-value cache's bytes, against plain loops, properties and Mistral 7B's
published configuration."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc import causal_mask, kv_cache_bytes, sliding_window_mask, window_receptive_field

#: Mistral 7B v0.1 (mistralai/Mistral-7B-v0.1 params.json, transformers' MistralConfig defaults):
#: sliding_window 4096, 32 layers, 8 key-value heads, head_dim 128
MISTRAL = {"window": 4096, "layers": 32, "kv_heads": 8, "head_dim": 128}


def mask_by_loop(q_len: int, k_len: int, window: int) -> np.ndarray:
    out = np.zeros((q_len, k_len), dtype=bool)
    for i in range(q_len):
        p = i + k_len - q_len
        for j in range(k_len):
            out[i, j] = j <= p and p - j < window
    return out


def reach_by_layers(seq_len: int, window: int, layers: int) -> int:
    """Positions the last token can draw on: follow the mask down ``layers`` times."""
    mask = sliding_window_mask(seq_len, seq_len, window)
    reached = np.zeros(seq_len, dtype=bool)
    reached[-1] = True
    for _ in range(layers):
        reached = mask[reached].any(axis=0) | reached
    return int(reached.sum())


def test_sliding_window_mask_by_hand():
    expected = [
        [1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0],
        [0, 1, 1, 0, 0],
        [0, 0, 1, 1, 0],
        [0, 0, 0, 1, 1],
    ]
    np.testing.assert_array_equal(sliding_window_mask(5, 5, 2), expected)
    # two queries, the last of five positions: positions 3 and 4
    np.testing.assert_array_equal(sliding_window_mask(2, 5, 3), [[0, 1, 1, 1, 0], [0, 0, 1, 1, 1]])
    assert sliding_window_mask(3, 3, 1).dtype == bool
    np.testing.assert_array_equal(sliding_window_mask(4, 4, 1), np.eye(4, dtype=bool))


@given(
    q_len=st.integers(1, 12),
    extra=st.integers(0, 12),
    window=st.integers(1, 30),
)
def test_sliding_window_mask_matches_a_plain_loop(q_len, extra, window):
    k_len = q_len + extra
    np.testing.assert_array_equal(sliding_window_mask(q_len, k_len, window), mask_by_loop(q_len, k_len, window))


@given(q_len=st.integers(1, 20), extra=st.integers(0, 20), window=st.integers(1, 50))
def test_each_row_sees_min_of_position_plus_one_and_window_inside_the_causal_mask(q_len, extra, window):
    k_len = q_len + extra
    mask = sliding_window_mask(q_len, k_len, window)
    positions = np.arange(q_len) + extra
    np.testing.assert_array_equal(mask.sum(axis=1), np.minimum(positions + 1, window))
    assert not (mask & ~causal_mask(q_len, k_len)).any()
    if window >= k_len:
        np.testing.assert_array_equal(mask, causal_mask(q_len, k_len))


def test_receptive_field_known_values():
    assert window_receptive_field(4096, 32) == 131_041  # Mistral 7B: (4096 - 1) x 32 + 1
    assert window_receptive_field(4096, 32, seq_len=32_768) == 32_768
    assert window_receptive_field(3, 0) == 1
    assert window_receptive_field(1, 100) == 1  # a window of one: each token sees only itself
    assert window_receptive_field(3, 2) == 5


@given(seq_len=st.integers(1, 40), window=st.integers(1, 12), layers=st.integers(0, 8))
def test_receptive_field_equals_following_the_mask_layer_by_layer(seq_len, window, layers):
    assert window_receptive_field(window, layers, seq_len) == reach_by_layers(seq_len, window, layers)


def test_kv_cache_bytes_known_values_for_mistral_7b():
    full = kv_cache_bytes(32_768, layers=32, kv_heads=8, head_dim=128)
    rolling = kv_cache_bytes(32_768, **MISTRAL)
    assert full == 2 * 32 * 8 * 128 * 32_768 * 2 == 4 * 2**30  # 4 GiB in bfloat16
    assert rolling == 2 * 32 * 8 * 128 * 4096 * 2 == 2**29  # 512 MiB, whatever the length past 4096
    assert kv_cache_bytes(10**6, **MISTRAL) == rolling
    # below the window the rolling cache is the full one
    assert kv_cache_bytes(100, **MISTRAL) == kv_cache_bytes(100, layers=32, kv_heads=8, head_dim=128)
    assert kv_cache_bytes(1, layers=1, kv_heads=1, head_dim=1, bytes_per_value=4) == 8


@given(
    seq_len=st.integers(1, 10**6),
    window=st.integers(1, 10**5),
    layers=st.integers(1, 100),
    kv_heads=st.integers(1, 64),
    head_dim=st.integers(1, 256),
)
def test_kv_cache_bytes_is_per_token_bytes_times_tokens_kept(seq_len, window, layers, kv_heads, head_dim):
    per_token = 0
    for _layer in range(layers):  # keys and values, 2 bytes each, per head and dimension
        per_token += 2 * kv_heads * head_dim * 2
    rolling = kv_cache_bytes(seq_len, layers=layers, kv_heads=kv_heads, head_dim=head_dim, window=window)
    full = kv_cache_bytes(seq_len, layers=layers, kv_heads=kv_heads, head_dim=head_dim)
    assert full == per_token * seq_len
    assert rolling == per_token * min(seq_len, window)
    assert rolling <= full


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: sliding_window_mask(0, 3, 2), "q_len"),
        (lambda: sliding_window_mask(3, 2, 2), "k_len"),
        (lambda: sliding_window_mask(2, 3, 0), "window"),
        (lambda: sliding_window_mask(2, 3, 1.5), "window"),
        (lambda: sliding_window_mask(10**5, 10**5, 4), "MAX_ELEMENTS"),
        (lambda: window_receptive_field(0, 3), "window"),
        (lambda: window_receptive_field(3, -1), "layers"),
        (lambda: window_receptive_field(3, 2, seq_len=0), "seq_len"),
        (lambda: kv_cache_bytes(0, layers=1, kv_heads=1, head_dim=1), "seq_len"),
        (lambda: kv_cache_bytes(4, layers=1, kv_heads=0, head_dim=1), "kv_heads"),
        (lambda: kv_cache_bytes(4, layers=1, kv_heads=1, head_dim=1, window=0), "window"),
        (lambda: kv_cache_bytes(4, layers=True, kv_heads=1, head_dim=1), "layers"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_exported_from_the_package():
    assert {"sliding_window_mask", "window_receptive_field", "kv_cache_bytes"} <= set(posenc.__all__)


@given(seq_len=st.integers(1, 40), window=st.integers(1, 12), max_layers=st.integers(0, 10))
def test_window_reach_follows_the_closed_form_at_every_depth(seq_len, window, max_layers):
    from posenc_lab.lessons.choices import measure

    reach = measure.window_reach(seq_len, window, max_layers)
    expected = [window_receptive_field(window, layers, seq_len) for layers in range(max_layers + 1)]
    np.testing.assert_array_equal(reach, expected)
    np.testing.assert_array_equal(measure.window_reach(9, 3, 5), [1, 3, 5, 7, 9, 9])
