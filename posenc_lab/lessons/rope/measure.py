"""Measurements behind the RoPE lesson: pair trajectories, per-pair scores, the pairing
of each layout, scores with a sinusoid added (for contrast), xPos scores, and the
regions a context-extension method leaves alone, blends or interpolates.

References are listed in ``posenc.rope``; the added sinusoid is Vaswani et al. 2017
(arXiv:1706.03762).
"""

from __future__ import annotations

import math

import numpy as np

from posenc._checks import (
    as_choice,
    as_even_int,
    as_float,
    as_float_array,
    as_head_vector,
    as_int,
    as_positions,
    as_query_key,
    check_budget,
)
from posenc.absolute import sinusoidal
from posenc.rope.frequencies import rope_inv_freq
from posenc.rope.rotation import ROPE_LAYOUTS, apply_rope, apply_xpos

__all__ = [
    "PHI_3_5_MINI_HEAD_DIM",
    "PHI_3_5_MINI_LONGROPE",
    "SCALING_REGIONS",
    "added_scores",
    "added_shift_error",
    "dim_pairs",
    "pair_scores",
    "pair_trajectory",
    "random_query_key",
    "resample_factors",
    "scaling_regions",
    "xpos_scores",
]

#: How a context-extension method treats a pair, by ``rope_frequency_ratio``:
#: "kept" (ratio 1, extrapolated), "blended" (in between), "interpolated" (ratio 1/factor),
#: "stopped" (ratio 0: the pair no longer turns, as p-RoPE does to the slowest pairs).
SCALING_REGIONS = ("kept", "blended", "interpolated", "stopped")


#: Phi-3.5-mini-instruct's LongRoPE factors (its config.json, ``rope_scaling``; head_dim 96,
#: 48 pairs), searched by Microsoft for a 4,096-token model stretched to 131,072 tokens
PHI_3_5_MINI_LONGROPE = {
    "rope_type": "longrope",
    "original_max_position_embeddings": 4096,
    "max_position_embeddings": 131072,
    "short_factor": (
        1.0,
        1.0199999809265137,
        1.0299999713897705,
        1.0299999713897705,
        1.0499999523162842,
        1.0499999523162842,
        1.0499999523162842,
        1.0499999523162842,
        1.0499999523162842,
        1.0699999332427979,
        1.0999999046325684,
        1.1099998950958252,
        1.1599998474121094,
        1.1599998474121094,
        1.1699998378753662,
        1.2899998426437378,
        1.339999794960022,
        1.679999828338623,
        1.7899998426437378,
        1.8199998140335083,
        1.8499997854232788,
        1.8799997568130493,
        1.9099997282028198,
        1.9399996995925903,
        1.9899996519088745,
        2.0199997425079346,
        2.0199997425079346,
        2.0199997425079346,
        2.0199997425079346,
        2.0199997425079346,
        2.0199997425079346,
        2.0299997329711914,
        2.0299997329711914,
        2.0299997329711914,
        2.0299997329711914,
        2.0299997329711914,
        2.0299997329711914,
        2.0299997329711914,
        2.0299997329711914,
        2.0299997329711914,
        2.0799996852874756,
        2.0899996757507324,
        2.189999580383301,
        2.2199995517730713,
        2.5899994373321533,
        2.729999542236328,
        2.749999523162842,
        2.8399994373321533,
    ),
    "long_factor": (
        1.0800000429153442,
        1.1100000143051147,
        1.1399999856948853,
        1.340000033378601,
        1.5899999141693115,
        1.600000023841858,
        1.6200000047683716,
        2.620000123977661,
        3.2300000190734863,
        3.2300000190734863,
        4.789999961853027,
        7.400000095367432,
        7.700000286102295,
        9.09000015258789,
        12.199999809265137,
        17.670000076293945,
        24.46000099182129,
        28.57000160217285,
        30.420001983642578,
        30.840002059936523,
        32.590003967285156,
        32.93000411987305,
        42.320003509521484,
        44.96000289916992,
        50.340003967285156,
        50.45000457763672,
        57.55000305175781,
        57.93000411987305,
        58.21000289916992,
        60.1400032043457,
        62.61000442504883,
        62.62000274658203,
        62.71000289916992,
        63.1400032043457,
        63.1400032043457,
        63.77000427246094,
        63.93000411987305,
        63.96000289916992,
        63.970001220703125,
        64.02999877929688,
        64.06999969482422,
        64.08000183105469,
        64.12000274658203,
        64.41000366210938,
        64.4800033569336,
        64.51000213623047,
        64.52999877929688,
        64.83999633789062,
    ),
}
#: the head width Phi-3.5-mini's factors belong to
PHI_3_5_MINI_HEAD_DIM = 96


def resample_factors(factors, n_pairs: int) -> np.ndarray:
    """A per-pair factor list carried to another number of pairs, by the pair's relative
    place from fastest (0) to slowest (1): linear interpolation. The exact list when
    ``n_pairs`` is its own length.

    Returns
    -------
    (n_pairs,) ndarray
    """
    factors = as_float_array("factors", factors, ndim=1)
    n_pairs = as_int("n_pairs", n_pairs, min_value=1, max_value=1 << 20)
    if factors.size == n_pairs:
        return factors.copy()
    return np.interp(np.linspace(0.0, 1.0, n_pairs), np.linspace(0.0, 1.0, factors.size), factors)


# helpers


def _pairs(pairs, head_dim):
    arr = as_positions("pairs", pairs, integer=True)  # (P,)
    if (arr >= head_dim // 2).any():
        bad = int(arr[arr >= head_dim // 2][0])
        raise ValueError(f"pairs must lie in 0..{head_dim // 2 - 1} (head_dim {head_dim}), got {bad}")
    return arr


# public API


def random_query_key(head_dim: int, *, seed: int = 0, rho: float = 0.0):
    """One query and one key with N(0, 1) entries, the key correlated with the query.

    Parameters
    ----------
    head_dim : int
        Dh, even.
    seed : int, >= 0
    rho : float in [-1, 1]
        ``k = rho q + sqrt(1 - rho^2) noise``, as in ``rope_score_stats``.

    Returns
    -------
    q, k : (Dh,) ndarrays

    Examples
    --------
    >>> q, k = random_query_key(8, seed=0, rho=1.0)
    >>> bool(np.array_equal(q, k))
    True
    """
    head_dim = as_even_int("head_dim", head_dim)
    seed = as_int("seed", seed, min_value=0)
    rho = as_float("rho", rho, ge=-1.0, le=1.0)
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(head_dim)  # (Dh,)
    # k = rho q + sqrt(1 - rho^2) noise: same variance as q, correlation rho
    k = rho * q + math.sqrt(1 - rho**2) * rng.standard_normal(head_dim)
    return q, k


def pair_trajectory(x, positions, pairs, *, base: float = 10000.0):
    """Where RoPE puts chosen pairs of one vector at each position.

    Parameters
    ----------
    x : (Dh,) array_like
        A query or key; pair i is dims (2i, 2i+1) (interleaved layout).
    positions : int or (T,) array_like
    pairs : (P,) array_like of ints in 0..Dh/2-1
    base : float

    Returns
    -------
    coords : (T, P, 2) ndarray
        ``(x_{2i}, x_{2i+1})`` after the rotation by ``p theta_i``.
    angles : (T, P) ndarray
        The angle ``p theta_i`` in radians (not reduced modulo 2 pi).

    Notes
    -----
    .. math:: \\begin{pmatrix}a'\\\\ b'\\end{pmatrix} = \\begin{pmatrix}\\cos p\\theta_i & -\\sin p\\theta_i\\\\
       \\sin p\\theta_i & \\cos p\\theta_i\\end{pmatrix}\\begin{pmatrix}a\\\\ b\\end{pmatrix},
       \\quad \\theta_i = \\text{base}^{-2i/D_h}

    Examples
    --------
    >>> coords, angles = pair_trajectory([1.0, 0.0], [0, 1], [0], base=10.0)
    >>> coords[1, 0].round(4), angles[:, 0]
    (array([0.5403, 0.8415]), array([0., 1.]))
    """
    x = as_head_vector("x", x)
    pairs = _pairs(pairs, x.size)  # (P,)
    pos = as_positions("positions", positions, width=x.size)  # (T,)
    rotated = apply_rope(np.broadcast_to(x, (pos.size, x.size)), pos, base=base)  # (T, Dh)
    coords = np.stack([rotated[:, 2 * pairs], rotated[:, 2 * pairs + 1]], axis=-1)  # (T, P, 2)
    theta, _ = rope_inv_freq(x.size, base)  # (Dh/2,)
    # angle = p theta_i
    return coords, pos[:, None] * theta[None, pairs]


def pair_scores(q, k, positions_q, positions_k, *, base: float = 10000.0):
    """Each pair's share of the score ``rope(q, m_t) . rope(k, n_t)`` for paired positions.

    Parameters
    ----------
    q, k : (Dh,) array_like
    positions_q, positions_k : (T,) array_like
        Query position ``m_t`` and key position ``n_t`` of each row (same length).
    base : float

    Returns
    -------
    shares : (T, Dh/2) ndarray
        Row t sums to the score at ``(m_t, n_t)``. With :math:`\\tilde q_i = q_{2i} + i q_{2i+1}`,
        share i is :math:`\\mathrm{Re}[\\tilde q_i \\bar{\\tilde k}_i e^{i (m - n) \\theta_i}]`: it
        depends on ``m - n`` only.
    """
    q, k = as_query_key(q, k)
    pm = as_positions("positions_q", positions_q, width=q.size)  # (T,)
    pn = as_positions("positions_k", positions_k, width=k.size)  # (T,)
    if pm.size != pn.size:
        raise ValueError(f"positions_q and positions_k must have the same length, got {pm.size} and {pn.size}")
    rq = apply_rope(np.broadcast_to(q, (pm.size, q.size)), pm, base=base)  # (T, Dh)
    rk = apply_rope(np.broadcast_to(k, (pn.size, k.size)), pn, base=base)  # (T, Dh)
    prod = rq * rk  # (T, Dh)
    return prod[:, 0::2] + prod[:, 1::2]  # (T, Dh/2)


def dim_pairs(head_dim: int, layout: str = "interleaved") -> np.ndarray:
    """The pair each dimension belongs to.

    Parameters
    ----------
    head_dim : int, even
    layout : {"interleaved", "half"}
        Interleaved (RoFormer, GPT-J) pairs dims (2i, 2i+1); half (GPT-NeoX, LLaMA)
        pairs dims (i, i + Dh/2).

    Returns
    -------
    pair : (Dh,) int ndarray

    Examples
    --------
    >>> dim_pairs(6, "interleaved"), dim_pairs(6, "half")
    (array([0, 0, 1, 1, 2, 2]), array([0, 1, 2, 0, 1, 2]))
    """
    head_dim = as_even_int("head_dim", head_dim)
    layout = as_choice("layout", layout, ROPE_LAYOUTS)
    dims = np.arange(head_dim)
    return dims // 2 if layout == "interleaved" else dims % (head_dim // 2)


def added_scores(q, k, positions_q, positions_k, *, base: float = 10000.0):
    """Scores with the sinusoidal encoding added instead of a rotation, for contrast.

    Parameters
    ----------
    q, k : (Dh,) array_like
    positions_q : int or (Tq,) array_like
    positions_k : int or (Tk,) array_like
    base : float

    Returns
    -------
    S : (Tq, Tk) ndarray, ``(q + PE[m]) . (k + PE[n])`` with the interleaved sinusoid
    of width Dh. Unlike RoPE's, it is not constant along diagonals: the cross terms
    ``q . PE[n]`` and ``PE[m] . k`` see absolute positions.
    """
    q, k = as_query_key(q, k)
    pm = as_positions("positions_q", positions_q)
    pn = as_positions("positions_k", positions_k)
    check_budget(pm.size * pn.size + (pm.size + pn.size) * q.size, "added_scores")
    hq = q[None, :] + sinusoidal(pm, q.size, base)  # (Tq, Dh)
    hk = k[None, :] + sinusoidal(pn, k.size, base)  # (Tk, Dh)
    return hq @ hk.T


def added_shift_error(q, k, n_positions: int, shift: int, *, base: float = 10000.0) -> float:
    """Largest ``|S(m, n) - S(m + s, n + s)|`` for m, n < n_positions, S from ``added_scores``.

    The counterpart of ``rope_shift_error``: clearly non-zero, since an added encoding
    leaves absolute positions in the score.
    """
    n_positions = as_int("n_positions", n_positions, min_value=1)
    shift = as_int("shift", shift, min_value=0)
    pos = np.arange(n_positions)  # (T,)
    # only the two blocks compared, not the whole (T + s, T + s) grid
    before = added_scores(q, k, pos, pos, base=base)  # (T, T)
    after = added_scores(q, k, pos + shift, pos + shift, base=base)
    return float(np.abs(before - after).max())


def xpos_scores(
    q,
    k,
    positions_q,
    positions_k,
    *,
    base: float = 10000.0,
    gamma: float = 0.4,
    scale_base: float = 512.0,
):
    """Score of one query at each m against one key at each n under xPos.

    Parameters
    ----------
    q, k : (Dh,) array_like
    positions_q : int or (Tq,) array_like
    positions_k : int or (Tk,) array_like
    base, gamma, scale_base : as for ``apply_xpos``

    Returns
    -------
    S : (Tq, Tk) ndarray, ``xpos(q, m, query) . xpos(k, n, key)``: RoPE's score with
    pair i's share multiplied by :math:`\\zeta_i^{(m - n)/\\text{scale\\_base}}`.
    """
    q, k = as_query_key(q, k)
    pm = as_positions("positions_q", positions_q)
    pn = as_positions("positions_k", positions_k)
    check_budget(pm.size * pn.size + (pm.size + pn.size) * q.size, "xpos_scores")
    kw = dict(base=base, gamma=gamma, scale_base=scale_base)
    xq = apply_xpos(np.broadcast_to(q, (pm.size, q.size)), pm, role="query", **kw)  # (Tq, Dh)
    xk = apply_xpos(np.broadcast_to(k, (pn.size, k.size)), pn, role="key", **kw)  # (Tk, Dh)
    return xq @ xk.T


def scaling_regions(ratio, factor: float, *, rtol: float = 1e-9) -> np.ndarray:
    """Which pairs a context extension keeps, blends or interpolates.

    Parameters
    ----------
    ratio : (Dh/2,) array_like
        Scaled over original frequency of each pair (``rope_frequency_ratio``).
    factor : float, >= 1
        The extension factor s.
    rtol : float
        Relative tolerance for "equal to 1" and "equal to 1/s".

    Returns
    -------
    region : (Dh/2,) int ndarray
        Index into ``SCALING_REGIONS``: 0 "kept" (ratio 1: the pair turns as in
        training, i.e. extrapolates), 2 "interpolated" (ratio 1/s: positions squeezed
        s times), 1 "blended" (anything else: YaRN's ramp, Llama 3's middle band, NTK's
        graded change), 3 "stopped" (ratio 0: p-RoPE's frequency-free pairs). With
        s = 1 every turning pair counts as kept.

    Examples
    --------
    >>> scaling_regions([1.0, 0.6, 0.25], 4.0)
    array([0, 1, 2])
    """
    ratio = as_float_array("ratio", ratio, ndim=1)
    factor = as_float("factor", factor, ge=1.0)
    rtol = as_float("rtol", rtol, gt=0.0)
    kept = np.isclose(ratio, 1.0, rtol=rtol, atol=0.0)
    interpolated = np.isclose(ratio, 1.0 / factor, rtol=rtol, atol=0.0) & ~kept
    return np.where(ratio == 0, 3, np.where(kept, 0, np.where(interpolated, 2, 1)))
