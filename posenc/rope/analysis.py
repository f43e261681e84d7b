"""RoPE's scores and what they show: the relative property, the long-term decay, and the
spread of scores for random queries and keys.

References are listed in ``posenc.rope``; the decay bound is RoFormer's sec. 3.4.3.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._checks import as_even_int, as_float, as_int, as_positions, as_query_key, check_budget
from .frequencies import rope_inv_freq
from .rotation import apply_rope

__all__ = [
    "DecaySummary",
    "rope_decay_bound",
    "rope_decay_summary",
    "rope_score_stats",
    "rope_scores",
    "rope_shift_error",
]


def rope_scores(
    q, k, positions_q, positions_k, *, base: float = 10000.0, layout: str = "interleaved", rope_scaling=None
):
    """Score of one query vector placed at each m against one key vector at each n.

    Parameters
    ----------
    q, k : (Dh,) array_like
    positions_q : int or (Tq,) array_like
    positions_k : int or (Tk,) array_like
    base, layout, rope_scaling : as for ``apply_rope``

    Returns
    -------
    S : (Tq, Tk) ndarray, ``rope(q, m) . rope(k, n)``: constant along diagonals,
    since it depends on ``m - n`` only.
    """
    q, k = as_query_key(q, k)
    pm = as_positions("positions_q", positions_q)
    pn = as_positions("positions_k", positions_k)
    check_budget(pm.size * pn.size + (pm.size + pn.size) * q.size, "rope_scores")
    kw = dict(base=base, layout=layout, rope_scaling=rope_scaling)
    rq = apply_rope(np.broadcast_to(q, (pm.size, q.size)), pm, **kw)  # (Tq, Dh)
    rk = apply_rope(np.broadcast_to(k, (pn.size, k.size)), pn, **kw)  # (Tk, Dh)
    return rq @ rk.T


def rope_shift_error(
    q, k, n_positions: int, shift: int, *, base: float = 10000.0, layout: str = "interleaved"
) -> float:
    """Largest ``|score(m, n) - score(m + s, n + s)|`` for m, n < n_positions.

    Returns
    -------
    float, at rounding level: RoPE's score sees only ``m - n``.
    """
    n_positions = as_int("n_positions", n_positions, min_value=1)
    shift = as_int("shift", shift, min_value=0)
    grid = rope_scores(q, k, n_positions + shift, n_positions + shift, base=base, layout=layout)
    return float(np.abs(grid[:n_positions, :n_positions] - grid[shift:, shift:]).max())


def rope_decay_bound(head_dim: int, distances, base: float = 10000.0) -> np.ndarray:
    """RoFormer's long-term decay curve (sec. 3.4.3).

    Parameters
    ----------
    head_dim : int, even
    distances : int or (R,) array_like
        Relative distances ``m - n`` (non-negative).
    base : float

    Returns
    -------
    bound : (R,) ndarray, ``(2/Dh) sum_{j=1}^{Dh/2} |S_j|`` with
    ``S_j = sum_{i<j} exp(1j * r * theta_i)``. The score is at most
    ``max_i |h_{i+1} - h_i|`` times ``Dh/2`` times this.

    Notes
    -----
    The bound shrinks on average, with oscillations, over roughly the first thousand
    distances (longer for a wider head or a larger base), and it is not monotone: it
    comes back up between its lows. ``rope_decay_summary`` measures this over every
    distance up to a limit.

    Examples
    --------
    For Dh = 64 it is lower at r = 3901 than at r = 3262 or r = 64285:

    >>> rope_decay_bound(64, [1, 3262, 3901, 64285]).round(2)
    array([15.95,  7.5 ,  1.26,  9.65])
    """
    head_dim = as_even_int("head_dim", head_dim)
    r = as_positions("distances", distances)  # (R,)
    check_budget(r.size * head_dim, "rope_decay_bound(head_dim, distances)")
    theta, _ = rope_inv_freq(head_dim, base)  # (Dh/2,)
    partial = np.cumsum(np.exp(1j * r[:, None] * theta[None, :]), axis=1)  # (R, Dh/2): S_1..S_{Dh/2}
    return np.abs(partial).mean(axis=1)


class DecaySummary(NamedTuple):
    """What RoFormer's bound does over every distance r = 1..R (see ``rope_decay_summary``)."""

    at_one: float  # the bound at r = 1
    lowest: float  # its smallest value over r = 1..R
    lowest_at: int  # the first r where it takes it
    climb_from: int  # a < b with the largest rise bound(b) - bound(a): where the bound climbs back most
    climb_to: int
    climb_low: float  # bound(climb_from)
    climb_high: float  # bound(climb_to); equal to climb_low when the bound never rises
    band_edges: np.ndarray  # (K + 1,) 1, 10, 100, ... then R + 1: bands [edge_k, edge_k+1)
    band_means: np.ndarray  # (K,) mean of the bound over the distances of each band


#: distances per block of the dense scan in rope_decay_summary: its (block, Dh/2) phases stay small
_SCAN_BLOCK = 256
#: blocks per chunk: one chunk of phases is at most 256 x 64 x Dh/2 complex numbers
_SCAN_CHUNK = 64


def _decay_bound_every(head_dim: int, max_distance: int, base: float) -> np.ndarray:
    """``rope_decay_bound`` at every r = 1..R, (R,), without a sine per (r, i).

    Distance r = s + k (block start s, offset k < block) has phase
    e^{i r theta} = e^{i s theta} e^{i k theta}: a complex product instead of a cos and a sin
    of a large argument, about 4 times faster. The results agree with ``rope_decay_bound``
    to ~1e-11 at r ~ 65536 (both are limited by rounding r * theta).
    """
    theta, _ = rope_inv_freq(head_dim, base)  # (Dh/2,)
    offsets = np.exp(1j * np.arange(_SCAN_BLOCK)[:, None] * theta[None, :])  # (K, Dh/2)
    starts = np.arange(1, max_distance + 1, _SCAN_BLOCK)  # (nb,)
    start_phase = np.exp(1j * starts[:, None] * theta[None, :])  # (nb, Dh/2)
    out = np.empty((starts.size, _SCAN_BLOCK))  # (nb, K)
    # chunks of blocks bound the memory (and keep the work in cache), not a loop over positions
    for c in range(0, starts.size, _SCAN_CHUNK):
        z = start_phase[c : c + _SCAN_CHUNK, None, :] * offsets[None, :, :]  # (nc, K, Dh/2)
        np.cumsum(z, axis=2, out=z)  # S_1..S_{Dh/2}
        out[c : c + _SCAN_CHUNK] = np.sqrt(z.real**2 + z.imag**2).mean(axis=2)
    return out.reshape(-1)[:max_distance]


def rope_decay_summary(head_dim: int, max_distance: int, base: float = 10000.0) -> DecaySummary:
    """RoFormer's decay bound measured at every distance 1..max_distance.

    Parameters
    ----------
    head_dim : int, even
    max_distance : int >= 1
        R, the largest distance ``m - n`` scanned; every integer 1..R is used, because the
        bound changes from one distance to the next (pair 0 turns 1 radian per position).
    base : float

    Returns
    -------
    DecaySummary
        The bound at 1, its smallest value and where, the largest climb back up
        (``bound(b) - bound(a)`` over ``a < b``, which is 0 only if the bound never rises)
        and its mean over the bands 1-9, 10-99, 100-999, ... up to R.

    Notes
    -----
    The mean per band shows the shrinking on average; the climb shows that the bound is
    not monotone, so "it falls as the distance grows" holds only on average.

    Examples
    --------
    >>> s = rope_decay_summary(64, 65536)
    >>> s.lowest_at, s.climb_to
    (28018, 64285)
    """
    head_dim = as_even_int("head_dim", head_dim)
    max_distance = as_int("max_distance", max_distance, min_value=1)
    check_budget(max_distance * (head_dim // 2), "rope_decay_summary(head_dim, max_distance)")
    bound = _decay_bound_every(head_dim, max_distance, base)  # (R,), bound[r - 1]
    lowest = int(np.argmin(bound))
    # the largest bound(b) - min_{a <= b} bound(a): the deepest dip followed by the highest return
    rise = bound - np.minimum.accumulate(bound)  # (R,)
    top = int(np.argmax(rise))
    bottom = int(np.argmin(bound[: top + 1]))
    decades = 10 ** np.arange(int(math.log10(max_distance)) + 1)
    edges = np.append(decades[decades < max_distance], max_distance + 1) if max_distance > 1 else np.array([1, 2])
    sums = np.add.reduceat(bound, edges[:-1] - 1)  # (K,)
    return DecaySummary(
        at_one=float(bound[0]),
        lowest=float(bound[lowest]),
        lowest_at=lowest + 1,
        climb_from=bottom + 1,
        climb_to=top + 1,
        climb_low=float(bound[bottom]),
        climb_high=float(bound[top]),
        band_edges=edges.astype(np.int64),
        band_means=sums / np.diff(edges),
    )


def rope_score_stats(
    head_dim: int,
    distances,
    *,
    n_samples: int = 2000,
    rho: float = 0.0,
    seed: int = 0,
    base: float = 10000.0,
):
    """Mean and spread of RoPE scores by distance, for random queries and keys.

    Parameters
    ----------
    head_dim : int, even
    distances : int or (R,) array_like
        ``m - n``, non-negative.
    n_samples : int
        B, the number of random (q, k) samples, each entry N(0, 1).
    rho : float in [-1, 1]
        Correlation of k with q (``k = rho q + sqrt(1 - rho^2) noise``). With 0 the
        spread stays at about ``sqrt(Dh)`` at every distance: rotation keeps the
        variance. With rho near 1 the mean decays with distance.
    seed : int

    Returns
    -------
    mean, std : (R,) ndarrays of ``rope(q, m) . rope(k, n)`` over the samples.

    Notes
    -----
    In complex form, with :math:`\\tilde q_i = q_{2i} + i q_{2i+1}`, the score is
    :math:`\\mathrm{Re}\\sum_i \\tilde q_i \\bar{\\tilde k}_i e^{i (m-n) \\theta_i}`.
    """
    head_dim = as_even_int("head_dim", head_dim)
    r = as_positions("distances", distances)  # (R,)
    n_samples = as_int("n_samples", n_samples, min_value=2)
    rho = as_float("rho", rho, ge=-1.0, le=1.0)
    seed = as_int("seed", seed, min_value=0)
    check_budget(n_samples * (r.size + head_dim) + r.size * head_dim, "rope_score_stats")
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, head_dim))  # (B, Dh): one random query per sample
    k = rho * q + math.sqrt(1 - rho**2) * rng.standard_normal((n_samples, head_dim))
    # h = q~ conj(k~) pair by pair, and Re(h e^{i r theta}) = Re h cos - Im h sin: one real
    # (B, Dh) @ (Dh, R) product, half the work of the complex one (whose imaginary part is dropped)
    qe, qo, ke, ko = q[:, 0::2], q[:, 1::2], k[:, 0::2], k[:, 1::2]  # (B, Dh/2) each
    h = np.hstack([qe * ke + qo * ko, qo * ke - qe * ko])  # (B, Dh): Re h, then Im h
    theta, _ = rope_inv_freq(head_dim, base)
    angles = r[:, None] * theta[None, :]  # (R, Dh/2)
    waves = np.hstack([np.cos(angles), -np.sin(angles)])  # (R, Dh)
    scores = h @ waves.T  # (B, R)
    return scores.mean(axis=0), scores.std(axis=0)
