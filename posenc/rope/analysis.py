"""RoPE's scores and what they show: the relative property, the long-term decay, and the
spread of scores for random queries and keys.

References are listed in ``posenc.rope``; the decay bound is RoFormer's sec. 3.4.3.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import as_even_int, as_float, as_int, as_positions, as_query_key, check_budget
from .frequencies import rope_inv_freq
from .rotation import apply_rope

__all__ = [
    "rope_decay_bound",
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
    ``max_i |h_{i+1} - h_i|`` times ``Dh/2`` times this, and it falls as r grows.
    """
    head_dim = as_even_int("head_dim", head_dim)
    r = as_positions("distances", distances)  # (R,)
    check_budget(r.size * head_dim, "rope_decay_bound(head_dim, distances)")
    theta, _ = rope_inv_freq(head_dim, base)  # (Dh/2,)
    partial = np.cumsum(np.exp(1j * r[:, None] * theta[None, :]), axis=1)  # (R, Dh/2): S_1..S_{Dh/2}
    return np.abs(partial).mean(axis=1)


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
    qc, kc = q[:, 0::2] + 1j * q[:, 1::2], k[:, 0::2] + 1j * k[:, 1::2]  # (B, Dh/2)
    theta, _ = rope_inv_freq(head_dim, base)
    phase = np.exp(1j * r[:, None] * theta[None, :])  # (R, Dh/2)
    scores = ((qc * kc.conj()) @ phase.T).real  # (B, R)
    return scores.mean(axis=0), scores.std(axis=0)
