"""Cached calls into posenc, keyed by scalars only.

Every lesson's numbers come from here, so every student who asks for the same view
shares one computation (``st.cache_data`` is per server, not per session). Arguments
are plain scalars and tuples: hashing a large array would cost more than the work,
and Streamlit hashes arrays over 500k elements only from a sample.
Results are the small arrays a figure shows, not whole tables.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc
from posenc_lab.figures import MAX_ROWS, PHONE_CELLS, block_means, display_steps

CACHE = dict(max_entries=256, show_spinner=False)


# why order matters


@st.cache_data(**CACHE)
def word_attention(words: tuple[str, ...], d_model: int, order: tuple[int, ...], with_positions: bool, seed: int):
    """Self-attention of a sentence and of its shuffled copy.

    Returns a dict with ``weights`` and ``weights_moved`` (T, T), ``out`` and
    ``out_moved`` (T, D) and the measured ``error`` max |Attn(PX) - P Attn(X)|.
    """
    x = posenc.word_embeddings(list(words), d_model, seed=seed)  # (T, D)
    w_q, w_k, w_v = posenc.projections(d_model, seed=seed)
    pe = posenc.sinusoidal(len(words), d_model) if with_positions else None
    perm = np.asarray(order)
    out, weights = posenc.self_attention(x, pe=pe, w_q=w_q, w_k=w_k, w_v=w_v)
    out_moved, weights_moved = posenc.self_attention(x[perm], pe=pe, w_q=w_q, w_k=w_k, w_v=w_v)
    error = posenc.permutation_error(x, perm, pe=pe, w_q=w_q, w_k=w_k, w_v=w_v)
    return dict(
        weights=weights,
        weights_moved=weights_moved,
        out=out,
        out_moved=out_moved,
        row_error=np.abs(out_moved - out[perm]).max(axis=1),
        error=error,
    )


# sinusoidal


@st.cache_data(**CACHE)
def sinusoid_grid(n: int, d_model: int, base: float, layout: str):
    """The encoding table as a heatmap can show it: every k-th dimension, and each row the
    mean of its run of positions (``figures.block_means``) when there are more positions
    than rows of pixels (a row of every k-th position would draw the fast dimensions' waves
    as slow stripes that are not there).

    Returns (table (r, c), first position of each row (r,), dims (c,), (row_step, col_step)).
    """
    rs, cs = display_steps(n, d_model, max_cols=PHONE_CELLS)
    table = block_means(posenc.sinusoidal(n, d_model, base, layout=layout)[:, ::cs], rs)
    return table.astype(np.float32), np.arange(0, n, rs), np.arange(0, d_model, cs), (rs, cs)


@st.cache_data(**CACHE)
def sinusoid_columns(n: int, d_model: int, base: float, layout: str, dims: tuple[int, ...]):
    """Chosen columns (dimensions) of the table over all n positions: (n, len(dims))."""
    return posenc.sinusoidal(n, d_model, base, layout=layout)[:, list(dims)]


#: points drawn per position for a wave's curve, and the most points a curve gets
CURVE_STEPS, CURVE_POINTS = 8, 4096


@st.cache_data(**CACHE)
def sinusoid_curves(n: int, d_model: int, base: float, layout: str, dims: tuple[int, ...]):
    """The chosen dimensions as curves over positions 0..n-1: (x (F,), values (F, len(dims))).

    The formula holds for any position p, so a curve is drawn through ``CURVE_STEPS`` points
    a position while that stays within ``CURVE_POINTS``: joined at whole positions alone,
    dimension 0 (a wavelength of 2π, 6.28 positions) drew as a zig-zag of straight segments.
    Past that, the whole positions are finer than a chart's pixels and are the points.
    """
    steps = CURVE_STEPS if (n - 1) * CURVE_STEPS < CURVE_POINTS else 1
    x = np.arange((n - 1) * steps + 1) / steps
    return x, posenc.sinusoidal(x, d_model, base, layout=layout)[:, list(dims)]


@st.cache_data(**CACHE)
def sinusoid_similarity(n: int, d_model: int, base: float, layout: str, metric: str, anchor: int):
    """Similarity matrix at the shown positions, and the curve to one position.

    Returns (matrix (r, r), shown positions (r,), curve (n,), row_step).
    """
    rs, _ = display_steps(n, n, PHONE_CELLS, PHONE_CELLS)  # a square chart in a narrow column
    shown = np.arange(0, n, rs)
    matrix = posenc.position_similarity(posenc.sinusoidal(shown, d_model, base, layout=layout), metric)
    curve = posenc.similarity_to_position(posenc.sinusoidal(n, d_model, base, layout=layout), anchor, metric)
    return matrix, shown, curve, rs


@st.cache_data(**CACHE)
def sinusoid_binary_clock(n: int, d_model: int, base: float, layout: str, n_rows: int = 64, n_dims: int = 8):
    """Binary digits of positions 0..r-1 beside the signs of n_dims sine dimensions.

    Returns (positions (r,), bits (r, B), signs (r, K), sine pair indices (K,)).
    """
    positions = np.arange(min(n, n_rows))
    n_bits = max(1, int(positions[-1]).bit_length()) if positions[-1] > 0 else 1
    bits = (positions[:, None] >> np.arange(n_bits)[None, :]) & 1
    pairs = np.unique(np.linspace(0, d_model // 2 - 1, min(n_dims, d_model // 2)).round().astype(int))
    table = posenc.sinusoidal(positions, d_model, base, layout=layout)
    sine_cols = 2 * pairs if layout == "interleaved" else pairs
    # sin(0) = 0 counts as positive, as the top digit of a clock starts at 0
    signs = np.where(table[:, sine_cols] >= 0, 1, -1)
    return positions, bits, signs, pairs


@st.cache_data(**CACHE)
def sinusoid_shift(n: int, d_model: int, base: float, layout: str, k: int, p: int):
    """The linear-relation lesson for offset k.

    Returns a dict: ``corner`` M_k restricted to the first (up to) four pairs and ``dims``
    their indices, ``predicted`` PE[p] @ M_k.T and ``actual`` PE[p + k] (D,), and
    ``error`` the largest difference over every position 0..n-1.
    """
    full = posenc.rotation_matrix(k, d_model, base, layout=layout)  # (D, D)
    half, few = d_model // 2, min(d_model // 2, 4)
    # in the concatenated layout pair i is (i, D/2 + i), far apart
    dims = np.arange(2 * few) if layout == "interleaved" else np.concatenate([np.arange(few), half + np.arange(few)])
    pe = posenc.sinusoidal(np.array([p, p + k], dtype=float), d_model, base, layout=layout)
    return dict(
        corner=full[np.ix_(dims, dims)],
        dims=dims,
        predicted=pe[0] @ full.T,
        actual=pe[1],
        error=posenc.linear_relation_error(n, k, d_model, base, layout=layout),
    )


# learned absolute


@st.cache_data(**CACHE)
def learned_grid(max_len: int, d_model: int, std: float, seed: int, seq_len: int, max_rows: int = MAX_ROWS):
    """The learned table as a heatmap would show it, padded with NaN past max_len: at most
    ``max_rows`` rows (the heatmap's rows of pixels, ``figures.pixel_rows``).

    Returns (grid (r, c), shown positions (r,), dims (c,), (row_step, col_step)); rows at
    positions >= max_len are NaN: there is no row to show.
    """
    table = posenc.learned_table(max_len, d_model, std=std, seed=seed)
    n = max(seq_len, max_len)
    rs, cs = display_steps(n, d_model, max_rows=max_rows, max_cols=PHONE_CELLS)
    positions = np.arange(0, n, rs)
    grid = np.full((positions.size, d_model), np.nan)
    inside = positions < max_len
    grid[inside] = posenc.lookup_learned(table, positions[inside])
    return grid[:, ::cs].astype(np.float32), positions, np.arange(0, d_model, cs), (rs, cs)


@st.cache_data(**CACHE)
def learned_vs_sinusoid(max_len: int, d_model: int, std: float, seed: int, seq_len: int, dim: int):
    """One dimension over positions 0..seq_len-1: learned (NaN past the table) and sinusoidal."""
    table = posenc.learned_table(max_len, d_model, std=std, seed=seed)
    learned = np.full(seq_len, np.nan)
    inside = min(seq_len, max_len)
    learned[:inside] = table[:inside, dim]
    sinus = posenc.sinusoidal(seq_len, d_model)[:, dim] if d_model % 2 == 0 else None
    return learned, sinus
