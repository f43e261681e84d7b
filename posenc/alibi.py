"""ALiBi and KERPLE: a fixed penalty that grows with the distance between query and key.

- ALiBi: Press et al. 2021, "Train Short, Test Long", arXiv:2108.12409, sec. 3; reference
  ofirpress/attention_with_linear_biases (``get_slopes``).
- KERPLE: Chi et al. 2022, arXiv:2205.09921, eqs. 5-6; reference chijames/KERPLE.

The biases (``alibi_slopes``, ``alibi_bias``, ``kerple_bias``, ``kerple_from_distance``), then
how far attention reaches (``alibi_span`` in closed form, ``mass_span`` for any row of
weights), then the lesson's helpers: where each slope comes from (``slope_origin``) and ALiBi
at chosen positions only (``alibi_bias_at``).

Conventions as in ``posenc.relative``: in ``alibi_bias`` and ``kerple_bias`` queries are the
last ``Tq`` of ``Tk`` positions, ``pos_q(i) = Tk - Tq + i``, and ALiBi's bias is
``-m_h |pos_q(i) - j|``; ``alibi_bias_at`` takes any query and key positions. Heads are
numbered 0..H-1 in arrays (the lesson shows h + 1).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._checks import (
    MAX_HEADS,
    as_choice,
    as_float,
    as_float_array,
    as_int,
    as_lengths,
    as_per_head,
    as_positions,
    check_budget,
)
from .relative import _by_distance, _distances

__all__ = [
    "KERPLE_KINDS",
    "SlopeOrigin",
    "alibi_bias",
    "alibi_bias_at",
    "alibi_slopes",
    "alibi_span",
    "kerple_bias",
    "kerple_from_distance",
    "mass_span",
    "slope_origin",
]

KERPLE_KINDS = ("log", "power")


class SlopeOrigin(NamedTuple):
    """Where each of H ALiBi slopes comes from: ``slope[h] = 2 ** (-8 * index[h] / schedule[h])``."""

    schedule: np.ndarray  # (H,) int: size of the power-of-two schedule (c or 2c)
    index: np.ndarray  # (H,) int: 1-based position in that schedule


# helpers


def _get_slopes_power_of_2(n: int) -> np.ndarray:
    # start = 2^{-8/n}; slopes are start^1 .. start^n
    start = 2.0 ** (-(2.0 ** -(math.log2(n) - 3)))
    return start * start ** np.arange(n, dtype=np.float64)


# public API: the biases


def alibi_slopes(n_heads: int) -> np.ndarray:
    """ALiBi's per-head slopes, exactly as Press et al.'s ``get_slopes``.

    Parameters
    ----------
    n_heads : int, 1 <= n_heads <= 1024

    Returns
    -------
    slopes : (H,) ndarray
        For a power of two, the geometric sequence ``2^(-8/H), 2^(-16/H), ..., 2^-8``.
        Otherwise the slopes of the closest smaller power of two ``c``, followed by
        every other slope of ``2c`` heads, to make up ``H``.

    Examples
    --------
    >>> (1 / alibi_slopes(8)).tolist()
    [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]
    """
    n_heads = as_int("n_heads", n_heads, min_value=1, max_value=MAX_HEADS)
    if math.log2(n_heads).is_integer():
        return _get_slopes_power_of_2(n_heads)
    closest = 2 ** math.floor(math.log2(n_heads))
    extra = _get_slopes_power_of_2(2 * closest)[0::2][: n_heads - closest]
    return np.concatenate([_get_slopes_power_of_2(closest), extra])


def alibi_bias(n_heads: int, q_len: int, k_len: int | None = None, *, slopes=None) -> np.ndarray:
    """ALiBi's linear distance penalty, one grid per head.

    Parameters
    ----------
    n_heads : int
    q_len : int
    k_len : int or None
        Defaults to ``q_len``; must be ``>= q_len``.
    slopes : (H,) array_like or None
        Non-negative; default ``alibi_slopes(n_heads)``.

    Returns
    -------
    bias : (H, Tq, Tk) ndarray
        ``bias[h, i, j] = -slopes[h] * |pos_q(i) - j|``: 0 on the diagonal, more
        negative with distance. Under a causal mask this gives the same attention as
        the reference's ``+slope * j`` form (softmax ignores a per-row constant);
        without one it is the symmetric variant (as in x-transformers).

    References
    ----------
    Press et al. 2021, arXiv:2108.12409, sec. 3.
    """
    n_heads = as_int("n_heads", n_heads, min_value=1, max_value=MAX_HEADS)
    q_len, k_len = as_lengths(q_len, k_len)
    check_budget(n_heads * q_len * k_len, "alibi_bias(n_heads, q_len, k_len)")
    if slopes is None:
        slopes = alibi_slopes(n_heads)
    else:
        slopes = as_per_head("slopes", slopes, ge=0.0)
        if slopes.size != n_heads:
            raise ValueError(f"slopes must have n_heads = {n_heads} entries, got {slopes.size}")
    distance = np.abs(_distances(q_len, k_len)).astype(np.float64)  # (Tq + Tk - 1,)
    # b_{h,i,j} = -m_h |i - j|, computed once per distance and laid out over the pairs
    return _by_distance(-slopes[:, None] * distance[None, :], k_len)


def kerple_bias(q_len: int, k_len: int | None = None, *, r1, r2, kind: str = "log") -> np.ndarray:
    """KERPLE's conditionally positive definite kernel biases.

    Parameters
    ----------
    q_len, k_len : int
    r1, r2 : float or (H,) array_like
        Per-head parameters (learned in the model). ``r1 > 0``; ``r2 > 0``, and for
        ``kind="power"`` also ``r2 <= 2``.
    kind : {"log", "power"}

    Returns
    -------
    bias : (H, Tq, Tk) ndarray
        ``"power"``: ``-r1 |i - j|**r2``; ``"log"``: ``-r1 log(1 + r2 |i - j|)``.
        H is 1 for scalar r1 and r2.

    References
    ----------
    Chi et al. 2022, arXiv:2205.09921, eqs. 5-6.
    """
    q_len, k_len = as_lengths(q_len, k_len)
    n_heads = max(as_per_head("r1", r1).size, as_per_head("r2", r2).size)
    check_budget(n_heads * q_len * k_len, "kerple_bias(q_len, k_len) over all heads")
    distance = np.abs(_distances(q_len, k_len)).astype(np.float64)  # (Tq + Tk - 1,)
    return _by_distance(kerple_from_distance(distance, r1, r2, kind), k_len)  # (H, Tq, Tk)


def kerple_from_distance(distance, r1, r2, kind: str = "log") -> np.ndarray:
    """KERPLE's bias for given distances ``|i - j|`` (any shape), per head.

    Returns
    -------
    bias : (H, *distance.shape) ndarray; see ``kerple_bias`` for the rest.
    """
    kind = as_choice("kind", kind, KERPLE_KINDS)
    distance = as_float_array("distance", distance)
    if (distance < 0).any():
        raise ValueError(f"distance must be >= 0 (it is |i - j|), got {distance[distance < 0][0]!r}")
    r1 = as_per_head("r1", r1, gt=0.0)
    r2 = as_per_head("r2", r2, gt=0.0, le=2.0 if kind == "power" else None)
    if r1.size != r2.size and 1 not in (r1.size, r2.size):
        raise ValueError(f"r1 and r2 must have the same number of heads, got {r1.size} and {r2.size}")
    n_heads = max(r1.size, r2.size)
    check_budget(n_heads * distance.size, "kerple bias")
    extra = (1,) * distance.ndim
    r1, r2 = r1.reshape(-1, *extra), r2.reshape(-1, *extra)
    if kind == "power":
        # b = -r1 |i - j|^{r2}
        bias = -r1 * distance[None] ** r2
    else:
        # b = -r1 log(1 + r2 |i - j|)
        bias = -r1 * np.log1p(r2 * distance[None])
    return np.broadcast_to(bias, (n_heads, *distance.shape)).copy()


# public API: how far attention reaches


def alibi_span(slopes, *, context: int | None = None, mass: float = 0.9) -> np.ndarray:
    """How far back each ALiBi head looks, with equal content scores.

    Parameters
    ----------
    slopes : (H,) array_like, non-negative
    context : int or None
        Number of visible keys (a causal query sees distances 0..context-1); None
        means unbounded.
    mass : float in (0, 1)
        Share of the attention to cover.

    Returns
    -------
    span : (H,) ndarray
        Smallest distance d such that keys at distance <= d get at least ``mass`` of
        the attention. Weights fall as ``exp(-m d)``, so
        ``d = ceil(log(1 - mass (1 - e^{-m L})) / -m) - 1``. A zero slope spreads
        evenly (``inf`` with no context).
    """
    slopes = as_float_array("slopes", slopes)
    if slopes.ndim > 1:
        raise ValueError(f"slopes must be 1-D (one per head), got shape {slopes.shape}")
    slopes = slopes.reshape(-1)
    if (slopes < 0).any():
        raise ValueError(f"slopes must be >= 0, got {slopes[slopes < 0][0]!r}")
    mass = as_float("mass", mass, gt=0.0, lt=1.0)
    length = math.inf if context is None else as_int("context", context, min_value=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # share of the weight outside distance d: r^{d+1} - r^L over 1 - r^L, r = e^{-m}
        tail = 1 - mass * (1 - np.exp(-slopes * length))
        span = np.ceil(np.log(tail) / -slopes - 1e-9) - 1
        uniform = math.ceil(mass * length - 1e-9) - 1 if math.isfinite(length) else math.inf
    span = np.where(slopes > 0, span, uniform)
    return np.clip(span, 0, length - 1)


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


# public API: the lesson's helpers


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
    schedule, entries 1, 3, 5, ...: :math:`2^{-8(2k-1)/(2c)}` for ``k = 1..H-c``. The first
    of them, :math:`2^{-4/c}`, is steeper than every c-head slope; each further one falls
    halfway (on a log scale) between two neighbouring c-head slopes.

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
    q_positions : int or (Tq,) array_like of non-negative positions (an int n means 0..n-1)
    k_positions : int or (Tk,) array_like, the same

    Returns
    -------
    bias : (H, Tq, Tk) ndarray, ``-slopes[h] * |q_positions[a] - k_positions[b]|``.

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
    q = as_positions("q_positions", q_positions)  # (Tq,)
    k = as_positions("k_positions", k_positions)  # (Tk,)
    check_budget(slopes.size * q.size * k.size, "alibi_bias_at(slopes, q_positions, k_positions)")
    distance = np.abs(q[:, None] - k[None, :])  # (Tq, Tk)
    # b_{h,a,b} = -m_h |i_a - j_b|
    return -slopes[:, None, None] * distance[None, :, :]
