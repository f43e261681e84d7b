"""What the ALiBi and KERPLE lesson measures: where each slope comes from, and how far attention reaches.

- ALiBi: Press et al. 2021, "Train Short, Test Long", arXiv:2108.12409, sec. 3; reference
  ofirpress/attention_with_linear_biases (``get_slopes``).
- KERPLE: Chi et al. 2022, arXiv:2205.09921; reference chijames/KERPLE.

Conventions, as in ``posenc.relative``: ALiBi's bias is ``-m_h |i - j|`` for query position
``i`` and key position ``j``; heads are numbered 0..H-1 in arrays (the lesson shows h + 1).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._checks import as_float, as_float_array, as_int, as_positions, check_budget

__all__ = ["SlopeOrigin", "alibi_bias_at", "mass_span", "slope_origin"]

MAX_HEADS = 1024


class SlopeOrigin(NamedTuple):
    """Where each of H ALiBi slopes comes from: ``slope[h] = 2 ** (-8 * index[h] / schedule[h])``."""

    schedule: np.ndarray  # (H,) int: size of the power-of-two schedule (c or 2c)
    index: np.ndarray  # (H,) int: 1-based position in that schedule


# public API


def slope_origin(n_heads: int) -> SlopeOrigin:
    """Which power-of-two schedule, and which entry of it, gives each head its slope.

    Parameters
    ----------
    n_heads : int, 1 <= n_heads <= 1024

    Returns
    -------
    SlopeOrigin
        ``schedule`` (H,) and ``index`` (H,), ints, with
        ``alibi_slopes(H)[h] == 2 ** (-8 * index[h] / schedule[h])``.

    Notes
    -----
    For a power of two ``H`` head ``h`` (1-based) gets :math:`m_h = 2^{-8h/H}`. Otherwise
    let :math:`c = 2^{\\lfloor \\log_2 H \\rfloor}`: the first ``c`` heads take the c-head
    schedule :math:`2^{-8h/c}` and the other ``H - c`` take every other slope of the 2c-head
    schedule, entries 1, 3, 5, ...: :math:`2^{-8(2k-1)/(2c)}` for ``k = 1..H-c``, which fall
    halfway (on a log scale) between the steepest c-head slopes.

    References
    ----------
    Press et al. 2021, arXiv:2108.12409, sec. 3 and ``get_slopes`` in the reference code.

    Examples
    --------
    >>> origin = slope_origin(6)
    >>> origin.schedule.tolist(), origin.index.tolist()
    ([4, 4, 4, 4, 8, 8], [1, 2, 3, 4, 1, 3])
    """
    n_heads = as_int("n_heads", n_heads, min_value=1, max_value=MAX_HEADS)
    c = 2 ** math.floor(math.log2(n_heads))
    head = np.arange(n_heads)  # (H,)
    first = head < c
    # heads 1..c: entry h of the c-head schedule; the rest: entries 1, 3, 5, ... of the 2c one
    schedule = np.where(first, c, 2 * c)
    index = np.where(first, head + 1, 2 * (head - c) + 1)
    return SlopeOrigin(schedule.astype(np.int64), index.astype(np.int64))


def alibi_bias_at(slopes, q_positions, k_positions) -> np.ndarray:
    """ALiBi's bias for chosen query and key positions only (one row, or a thinned grid).

    Parameters
    ----------
    slopes : (H,) array_like, non-negative
    q_positions : int or (Nq,) array_like of non-negative positions (an int n means 0..n-1)
    k_positions : int or (Nk,) array_like, the same

    Returns
    -------
    bias : (H, Nq, Nk) ndarray, ``-slopes[h] * |q_positions[a] - k_positions[b]|``.

    Notes
    -----
    The same numbers as ``posenc.alibi_bias`` at those positions, without building the full
    (H, T, T) grid: a heatmap of 4096 positions shows only every 32nd or 64th of them.

    Examples
    --------
    >>> alibi_bias_at([0.5], [3], 5).tolist()
    [[[-1.5, -1.0, -0.5, -0.0, -0.5]]]
    """
    slopes = as_float_array("slopes", slopes)
    if slopes.ndim != 1:
        raise ValueError(f"slopes must be 1-D (one per head), got shape {slopes.shape}")
    if slopes.size > MAX_HEADS:
        raise ValueError(f"slopes must have at most {MAX_HEADS} entries (heads), got {slopes.size}")
    if (slopes < 0).any():
        raise ValueError(f"slopes must be >= 0, got {slopes[slopes < 0][0]!r}")
    q = as_positions("q_positions", q_positions)  # (Nq,)
    k = as_positions("k_positions", k_positions)  # (Nk,)
    check_budget(slopes.size * q.size * k.size, "alibi_bias_at(slopes, q_positions, k_positions)")
    distance = np.abs(q[:, None] - k[None, :])  # (Nq, Nk)
    # b_{h,a,b} = -m_h |i_a - j_b|
    return -slopes[:, None, None] * distance[None, :, :]


def mass_span(weights, mass: float = 0.9) -> np.ndarray:
    """Smallest distance that holds a given share of the attention.

    Parameters
    ----------
    weights : (..., L) array_like
        Non-negative attention weights over distances ``0, 1, ..., L-1`` (nearest first),
        each row summing to 1, e.g. a causal query's softmax read backwards.
    mass : float in (0, 1)

    Returns
    -------
    span : (...) int ndarray
        Smallest ``d`` with ``weights[..., 0] + ... + weights[..., d] >= mass``.

    Notes
    -----
    For ALiBi's weights :math:`\\propto e^{-m d}` this is ``posenc.alibi_span`` in closed
    form; it works for any bias (KERPLE, T5 ...). A tolerance of 1e-9 absorbs rounding in
    the running sum, as ``alibi_span`` does.

    Examples
    --------
    >>> mass_span([0.5, 0.3, 0.2], mass=0.8).tolist()
    1
    """
    weights = as_float_array("weights", weights, min_ndim=1)
    mass = as_float("mass", mass, gt=0.0, lt=1.0)
    if (weights < 0).any():
        raise ValueError(f"weights must be >= 0, got {weights[weights < 0][0]!r}")
    total = weights.sum(axis=-1)
    if not np.allclose(total, 1.0, atol=1e-6):
        worst = float(np.ravel(total)[np.argmax(np.abs(np.ravel(total) - 1.0))])
        raise ValueError(f"weights must sum to 1 along the last axis, got a row summing to {worst:.6g}")
    # c_d = sum_{e <= d} w_e; the first d with c_d >= mass
    reached = np.cumsum(weights, axis=-1) >= mass - 1e-9  # (..., L)
    reached[..., -1] = True  # the whole row always holds the mass
    return np.argmax(reached, axis=-1).astype(np.int64)
