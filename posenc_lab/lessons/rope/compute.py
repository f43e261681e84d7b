"""Cached calls into posenc for the RoPE lesson, keyed by scalars and tuples only.

Each returns the small arrays one figure shows. Random queries and keys come from
``rope_lessons.random_query_key`` with the page's seed, so a link reproduces them.
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

import posenc
from posenc_lab.figures import display_steps
from posenc_lab.lessons.rope import measure as rope_lessons
from posenc_lab.ui.compute import CACHE

#: std of q.k by distance (distance -> std) from a table printed in a popular RoPE tutorial:
#: head_dim 16, distances 1, 2, 3, each std measured over a few dozen random (q, k) samples.
#: Cited to compare with, so it is the one set of numbers typed in here.
TUTORIAL_STD = {1: 3.83, 2: 3.68, 3: 4.57}
#: positions over which the shift errors are measured (at most)
SHIFT_WINDOW = 256


# rotation


@st.cache_data(**CACHE)
def rotation_frames(head_dim: int, base: float, pairs: tuple[int, ...], n_frames: int, step: int, gap: int, seed: int):
    """A query and a key with the same content, r = ``gap`` positions apart, frame by frame.

    Frame f puts the key at n = f * step and the query at m = n + gap. Returns a dict:
    ``q_xy``, ``k_xy`` (F, P, 2), ``angles`` (F, P) = m theta_i, ``shares`` (F, P) each
    pair's share of q_m . k_n, ``m`` and ``n`` (F,), ``theta`` (P,).
    """
    q, _ = rope_lessons.random_query_key(head_dim, seed=seed)
    n = np.arange(n_frames) * step  # (F,)
    m = n + gap
    q_xy, angles = rope_lessons.pair_trajectory(q, m, pairs, base=base)  # (F, P, 2), (F, P)
    k_xy, _ = rope_lessons.pair_trajectory(q, n, pairs, base=base)
    shares = rope_lessons.pair_scores(q, q, m, n, base=base)[:, list(pairs)]  # (F, P)
    theta, _ = posenc.rope_inv_freq(head_dim, base)
    return dict(q_xy=q_xy, k_xy=k_xy, angles=angles, shares=shares, m=m, n=n, theta=theta[list(pairs)])


# only m - n matters


@st.cache_data(**CACHE)
def relative_grids(head_dim: int, base: float, n: int, seed: int, with_added: bool, max_cells: int = 128):
    """RoPE's score q_m . k_n (and, if asked, the sinusoid-added one) at the shown positions.

    Returns (rope (r, r), added (r, r) or None, shown positions (r,), step).
    """
    q, k = rope_lessons.random_query_key(head_dim, seed=seed)
    step, _ = display_steps(n, n, max_rows=max_cells, max_cols=max_cells)
    shown = np.arange(0, n, step)
    rope = posenc.rope_scores(q, k, shown, shown, base=base)
    added = rope_lessons.added_scores(q, k, shown, shown, base=base) if with_added else None
    return rope, added, shown, step


@st.cache_data(**CACHE)
def shift_errors(head_dim: int, base: float, n: int, shift: int, seed: int):
    """Largest |S(m, n) - S(m + s, n + s)| over m, n < min(n, SHIFT_WINDOW): (RoPE, sinusoid added, window)."""
    q, k = rope_lessons.random_query_key(head_dim, seed=seed)
    window = min(n, SHIFT_WINDOW)
    return (
        posenc.rope_shift_error(q, k, window, shift, base=base),
        rope_lessons.added_shift_error(q, k, window, shift, base=base),
        window,
    )


# long-term decay


@st.cache_data(**CACHE)
def decay_summary(head_dim: int, base: float, max_distance: int) -> posenc.rope.DecaySummary:
    """RoFormer's bound scanned at every distance 1..max_distance (posenc.rope.rope_decay_summary).

    Apart from ``decay`` so that moving rho, the samples or the seed does not scan again.
    """
    return posenc.rope.rope_decay_summary(head_dim, max_distance, base)


def marked_distances(summary: posenc.rope.DecaySummary) -> list[int]:
    """The distances the decay view's text names: the tutorial's 1, 2, 3 and the bound's extremes."""
    return sorted({*TUTORIAL_STD, summary.lowest_at, summary.climb_from, summary.climb_to})


@st.cache_data(**CACHE)
def decay(head_dim: int, base: float, max_distance: int, rho: float, n_samples: int, seed: int, n_points: int = 160):
    """RoFormer's bound and the measured mean and std of scores, at log-spaced distances 1..max
    plus the distances the text names (so that hovering finds them).

    Returns a dict: ``distances`` (R,), ``bound`` (R,), ``mean`` and ``std`` (R,), and
    ``near`` = {distance: std} at distances 1, 2, 3.
    """
    distances = np.unique(np.geomspace(1, max_distance, n_points).round().astype(np.int64))
    marked = marked_distances(decay_summary(head_dim, base, max_distance))
    distances = np.union1d(distances, marked)  # (R,)
    bound = posenc.rope_decay_bound(head_dim, distances, base)
    mean, std = posenc.rope_score_stats(head_dim, distances, n_samples=n_samples, rho=rho, seed=seed, base=base)
    near = {int(d): float(std[np.searchsorted(distances, d)]) for d in TUTORIAL_STD}
    return dict(distances=distances, bound=bound, mean=mean, std=std, near=near)


# layouts


@st.cache_data(**CACHE)
def layouts(head_dim: int, base: float, n: int, seed: int):
    """Both pairings, and the scores of one q, k under each.

    Returns a dict: ``pairs`` {layout: (Dh,) pair of each dim}, ``perm`` (Dh,),
    ``curves`` {name: (T,) score of q at m = 0..n-1 against k at 0}, ``positions`` (T,)
    and the largest score differences over m, n < min(n, SHIFT_WINDOW): ``permuted``
    (half vs interleaved on permuted dims) and ``unpermuted`` (the same vectors).
    """
    q, k = rope_lessons.random_query_key(head_dim, seed=seed)
    perm = posenc.half_to_interleaved_permutation(head_dim)
    window = min(n, SHIFT_WINDOW)
    half = posenc.rope_scores(q, k, window, window, base=base, layout="half")
    permuted = posenc.rope_scores(q[perm], k[perm], window, window, base=base, layout="interleaved")
    same = posenc.rope_scores(q, k, window, window, base=base, layout="interleaved")
    positions = np.arange(n)
    curves = {
        "half (GPT-NeoX; LLaMA in transformers)": posenc.rope_scores(q, k, n, 1, base=base, layout="half")[:, 0],
        "interleaved on permuted q, k": posenc.rope_scores(q[perm], k[perm], n, 1, base=base)[:, 0],
        "interleaved on the same q, k": posenc.rope_scores(q, k, n, 1, base=base)[:, 0],
    }
    return dict(
        pairs={layout: rope_lessons.dim_pairs(head_dim, layout) for layout in posenc.ROPE_LAYOUTS},
        perm=perm,
        curves=curves,
        positions=positions,
        permuted=float(np.abs(half - permuted).max()),
        unpermuted=float(np.abs(half - same).max()),
        window=window,
    )


# context extension


@st.cache_data(**CACHE)
def scaling(head_dim: int, base: float, rope_scaling: tuple[tuple[str, object], ...], seq_len: int | None):
    """Wavelengths before and after a scaling (transformers' format, as sorted key-value pairs).

    Returns a dict: ``before``, ``after`` (Dh/2,) positions per turn (2 pi / inv_freq),
    ``ratio`` (Dh/2,), ``region`` (Dh/2,) index into ``SCALING_REGIONS``, and
    ``attention_factor``. Raises posenc's ValueError for an invalid configuration.
    """
    cfg = dict(rope_scaling)
    scaled, attention_factor = posenc.rope_inv_freq(head_dim, base, cfg, seq_len)
    ratio = posenc.rope_frequency_ratio(head_dim, base, cfg, seq_len)
    # unscaled RoPE on the same rotated dims (a partial rotary spreads its frequencies over fewer)
    original, _ = posenc.rope_inv_freq(2 * scaled.size, base)
    return dict(
        before=2 * math.pi / original,
        # a pair p-RoPE stops has no wavelength: NaN, left out of the wavelength panel
        after=np.divide(2 * math.pi, scaled, out=np.full(scaled.shape, np.nan), where=scaled > 0),
        ratio=ratio,
        region=rope_lessons.scaling_regions(ratio, float(cfg.get("factor", 1.0))),
        attention_factor=attention_factor,
    )


# xPos


@st.cache_data(**CACHE)
def xpos(head_dim: int, base: float, gamma: float, scale_base: float, max_distance: int, seed: int, n_points=1024):
    """xPos's per-pair decay and a score against distance, with and without it.

    The query and key hold the same content (the same word at two positions). Returns a
    dict: ``distances`` (R,), ``zeta`` (R, Dh/2) = zeta_i^(r / scale_base), ``rope`` and
    ``xpos`` (R,) scores of q at m = r against k at n = 0.
    """
    q, _ = rope_lessons.random_query_key(head_dim, seed=seed)
    stride = max(1, max_distance // n_points)
    distances = np.arange(0, max_distance + 1, stride)  # (R,)
    zeta = posenc.xpos_scale(distances, head_dim, gamma=gamma, scale_base=scale_base)
    rope = posenc.rope_scores(q, q, distances, [0], base=base)[:, 0]
    xp = rope_lessons.xpos_scores(q, q, distances, [0], base=base, gamma=gamma, scale_base=scale_base)[:, 0]
    return dict(distances=distances, zeta=zeta, rope=rope, xpos=xp, stride=stride)
