"""Cached calls into posenc for the lesson on positions beyond one dimension: image patches
(2-D axial RoPE), Qwen2-VL's M-RoPE, and models without positions (NoPE, iRoPE).

Keyed by scalars only; each returns the small arrays one figure shows.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc
from posenc_lab.lessons.rope import measure as rope_lessons
from posenc_lab.ui.compute import CACHE

#: Qwen2-VL's split of its 64 frequency pairs (head_dim 128) over time, height and width
QWEN2_VL_SECTION = (16, 24, 24)
QWEN2_VL_HEAD_DIM = 128
#: the experiment run the NoPE view reads: the experiments page's default (stored) settings
EXPERIMENT_DEFAULTS = ("copy", 32, 32, 300, 0, 3)
#: Llama 4 drops RoPE in every 4th layer (transformers' Llama4TextConfig: no_rope_layer_interval = 4)
LLAMA4_NOPE_INTERVAL = 4


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def every(interval: int) -> str:
    """Which layers drop RoPE at this interval: "every layer", "every 2nd layer", ..."""
    return "every layer" if interval == 1 else f"every {ordinal(interval)} layer"


def nope_count_sentence(layers: np.ndarray, interval: int) -> str:
    """What the slider's interval does to the layers the chart draws ((1, n) of 1 = RoPE, 0 = NoPE)."""
    n_layers, nope = layers.shape[1], int((layers == 0).sum())
    if nope == 0:
        return (
            f"with one NoPE layer in {interval}, none of the {n_layers} layers drops RoPE: the first would be "
            f"layer {interval}"
        )
    if nope == n_layers:
        return f"{every(interval)} drops RoPE: all {n_layers} have no positions"
    return f"one in every {interval}: {every(interval)} drops RoPE, {nope} of the {n_layers} layers"


@st.cache_data(**CACHE)
def patch_scores(rows: int, cols: int, head_dim: int, theta: float, q_row: int, q_col: int, seed: int) -> dict:
    """Score of one query patch against every patch, under 2-D axial RoPE and under 1-D RoPE
    on the patches read row by row (raster order). The key holds the query's content.

    Returns a dict: ``axial`` and ``raster`` (rows, cols) scores; ``shift_error``, the
    largest change of an axial score when the query moves to (0, 0) and every key with it.
    """
    q, _ = rope_lessons.random_query_key(head_dim, seed=seed)
    r, c = np.divmod(np.arange(rows * cols), cols)  # (T,) row and column of each patch
    keys = np.broadcast_to(q, (rows * cols, head_dim))  # (T, Dh): the same content everywhere
    axial_keys = posenc.rope.axial_rope_2d(keys, r, c, theta=theta)  # (T, Dh)
    query = posenc.rope.axial_rope_2d(q[None], [q_row], [q_col], theta=theta)[0]  # (Dh,)
    axial = (axial_keys @ query).reshape(rows, cols)
    raster_keys = posenc.apply_rope(keys, np.arange(rows * cols), base=theta)
    raster_query = posenc.apply_rope(q[None], [q_row * cols + q_col], base=theta)[0]
    raster = (raster_keys @ raster_query).reshape(rows, cols)
    # the same offsets from (0, 0): rows 0..rows-1-q_row, cols 0..cols-1-q_col
    origin = posenc.rope.axial_rope_2d(q[None], [0], [0], theta=theta)[0]
    from_origin = (axial_keys @ origin).reshape(rows, cols)
    shift_error = float(np.abs(axial[q_row:, q_col:] - from_origin[: rows - q_row, : cols - q_col]).max())
    return {"axial": axial, "raster": raster, "shift_error": shift_error}


@st.cache_data(**CACHE)
def mrope_positions(text_before: int, frames: int, height: int, width: int, text_after: int) -> dict:
    """The three positions of a text-image-text sequence, and the axis of each frequency pair.

    Returns a dict: ``positions`` (3, T), ``axis_of_pair`` (3, P) one-hot rows (time,
    height, width) over Qwen2-VL's P = 64 pairs.
    """
    positions = posenc.rope.qwen2_vl_positions(text_before, (frames, height, width), text_after)
    axis = np.repeat(np.arange(3), QWEN2_VL_SECTION)  # (P,)
    return {"positions": positions, "axis_of_pair": (axis[None, :] == np.arange(3)[:, None]).astype(float)}


@st.cache_data(**CACHE)
def irope_layers(n_layers: int, interval: int) -> np.ndarray:
    """(1, n_layers): 1 where the layer uses RoPE, 0 where it has no positions (NoPE)."""
    types = posenc.rope.irope_layer_types(n_layers, interval)
    return np.array([[1.0 if t == "rope" else 0.0 for t in types]])
