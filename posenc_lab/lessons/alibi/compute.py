"""Cached computations of the ALiBi and KERPLE lesson, keyed by scalars and tuples only.

Heads are 1-based here, as the page shows them (head 1 has the steepest slope).
``custom_head = 0`` means Press et al.'s schedule unchanged.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc
from posenc_lab.figures import display_steps
from posenc_lab.ui.compute import CACHE

#: custom slopes offered: 2^-10 ... 2^2 in half powers of two
SLOPE_OPTIONS = tuple(2.0 ** (k / 2) for k in range(-20, 5))
#: KERPLE-log's r2 (the scale of distance inside the log), log-spaced
LOG_R2_OPTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
#: masses offered for the reach of a head
MASSES = {"0.5": "50%", "0.9": "90%", "0.99": "99%"}


# helpers


def _slopes(n_heads: int, custom_head: int, custom_slope: float) -> np.ndarray:
    slopes = posenc.alibi_slopes(n_heads)  # (H,)
    if custom_head:
        slopes[custom_head - 1] = custom_slope
    return slopes


# ALiBi


def default_heads(n_heads: int, most: int = 8) -> list[int]:
    """Up to ``most`` heads spread evenly from head 1 to head H (1-based), always both ends."""
    return sorted({int(h) for h in np.linspace(1, n_heads, min(n_heads, most)).round()})


@st.cache_data(**CACHE)
def head_slopes(n_heads: int, custom_head: int, custom_slope: float):
    """The slopes and where Press et al.'s rule takes each from.

    Returns (slopes (H,), schedule (H,), index (H,)): before any custom change,
    ``slopes[h] = 2^(-8 index[h] / schedule[h])``.
    """
    origin = posenc.alibi.slope_origin(n_heads)
    return _slopes(n_heads, custom_head, custom_slope), origin.schedule, origin.index


@st.cache_data(**CACHE)
def bias_panels(
    n_heads: int, custom_head: int, custom_slope: float, heads: tuple[int, ...], n: int, causal: bool, budget: int
):
    """Bias grids of the chosen heads at the positions a small heatmap can show.

    Returns (grids (P, r, r) float32, NaN at future keys when causal; positions (r,); step;
    far (P,) the bias at the largest distance, n - 1).
    """
    step, _ = display_steps(n, n, budget, budget)
    positions = np.arange(0, n, step)  # (r,)
    slopes = _slopes(n_heads, custom_head, custom_slope)[[h - 1 for h in heads]]  # (P,)
    grids = posenc.alibi.alibi_bias_at(slopes, positions, positions)  # (P, r, r)
    if causal:
        # a key after its query is masked out: nothing to show there
        grids[:, positions[None, :] > positions[:, None]] = np.nan
    far = posenc.alibi.alibi_bias_at(slopes, [n - 1], [0])[:, 0, 0]  # (P,)
    return grids.astype(np.float32), positions, step, far


@st.cache_data(**CACHE)
def row_weights(
    n_heads: int, custom_head: int, custom_slope: float, heads: tuple[int, ...], n: int, row: int, causal: bool
):
    """Attention of query ``row`` over keys 0..n-1 with equal content scores, per chosen head.

    Returns (P, n): softmax of the bias row; NaN at keys after the query when causal.
    """
    slopes = _slopes(n_heads, custom_head, custom_slope)[[h - 1 for h in heads]]  # (P,)
    visible = row + 1 if causal else n
    bias = posenc.alibi.alibi_bias_at(slopes, [row], visible)[:, 0, :]  # (P, visible)
    weights = np.full((len(heads), n), np.nan)
    # equal content scores: attention = softmax(bias) over the visible keys
    weights[:, :visible] = posenc.softmax(bias, axis=-1)
    return weights


@st.cache_data(**CACHE)
def spans(n_heads: int, custom_head: int, custom_slope: float, n: int, mass: float):
    """Each head's reach: the smallest distance holding ``mass`` of a causal query's attention over n keys (H,)."""
    return posenc.alibi_span(_slopes(n_heads, custom_head, custom_slope), context=n, mass=mass)


# KERPLE


@st.cache_data(**CACHE)
def kerple_curves(n: int, slope: float, log_r: tuple[float, float], power_r: tuple[float, float], mass: float):
    """ALiBi, KERPLE-log and KERPLE-power for a causal query seeing distances 0..n-1.

    Returns a dict: ``bias`` and ``weights`` (name -> (n,), nearest key first, weights from
    equal content scores) and ``span`` (name -> smallest distance holding ``mass``).
    """
    bias = {
        # queries are the last position, so reading the keys backwards gives distance 0, 1, ...
        "ALiBi": posenc.alibi_bias(1, 1, n, slopes=[slope])[0, 0, ::-1],
        "KERPLE-log": posenc.kerple_bias(1, n, r1=log_r[0], r2=log_r[1], kind="log")[0, 0, ::-1],
        "KERPLE-power": posenc.kerple_bias(1, n, r1=power_r[0], r2=power_r[1], kind="power")[0, 0, ::-1],
    }
    weights = {name: posenc.softmax(b) for name, b in bias.items()}
    span = {name: int(posenc.alibi.mass_span(w, mass)) for name, w in weights.items()}
    return dict(bias=bias, weights=weights, span=span)
