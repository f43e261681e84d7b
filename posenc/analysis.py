"""Measurements the lessons plot: similarity, wavelengths, the rotation behind the
sinusoid, and the two symmetry checks (permutation equivariance, translation invariance)
across every method.

RoPE's own measurements are in ``posenc.rope``, ALiBi's reach in ``posenc.alibi``.

Reference: Vaswani et al. 2017 (arXiv:1706.03762) for the sinusoid's linear relation.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import (
    as_choice,
    as_even_int,
    as_float,
    as_float_array,
    as_int,
    as_positions,
    check_budget,
)
from .absolute import SINUSOIDAL_LAYOUTS, learned_table, lookup_learned, sinusoid_frequencies, sinusoidal
from .alibi import kerple_from_distance
from .attention import self_attention
from .relative import t5_bucket
from .rope.rotation import apply_rope, apply_xpos

__all__ = [
    "SCORE_METHODS",
    "SIMILARITY_METRICS",
    "linear_relation_error",
    "permutation_error",
    "position_scores",
    "position_similarity",
    "rotation_blocks",
    "rotation_matrix",
    "similarity_to_position",
    "translation_error",
    "wavelengths",
]

SIMILARITY_METRICS = ("dot", "cosine")


# similarity and wavelengths


def _table(pe):
    pe = as_float_array("pe", pe, ndim=2)  # (T, D)
    return pe


def _normalise_rows(pe):
    norms = np.linalg.norm(pe, axis=1, keepdims=True)
    return pe / np.where(norms == 0, 1.0, norms)


def position_similarity(pe, metric: str = "dot") -> np.ndarray:
    """Similarity of every pair of positions.

    Parameters
    ----------
    pe : (T, D) array_like
        An encoding table, e.g. ``sinusoidal(T, D)``.
    metric : {"dot", "cosine"}

    Returns
    -------
    S : (T, T) ndarray, ``S[p, q] = PE[p] . PE[q]`` (or its cosine). For the
    sinusoid it depends on ``p - q`` only.
    """
    metric = as_choice("metric", metric, SIMILARITY_METRICS)
    pe = _table(pe)
    check_budget(pe.shape[0] ** 2, "position_similarity(pe)")
    if metric == "cosine":
        pe = _normalise_rows(pe)
    return pe @ pe.T


def similarity_to_position(pe, position: int, metric: str = "dot") -> np.ndarray:
    """Similarity of every position to one position.

    Returns
    -------
    s : (T,) ndarray, row ``position`` of ``position_similarity(pe, metric)``.
    """
    metric = as_choice("metric", metric, SIMILARITY_METRICS)
    pe = _table(pe)
    position = as_int("position", position, min_value=0, max_value=pe.shape[0] - 1)
    if metric == "cosine":
        pe = _normalise_rows(pe)
    return pe @ pe[position]


def wavelengths(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Wavelength, in positions, of each sin/cos (or RoPE) pair.

    Returns
    -------
    lam : (D/2,) ndarray, ``2 pi base**(2i/D)``: from 2 pi up to almost 2 pi base.
    """
    return 2 * np.pi / sinusoid_frequencies(d_model, base)


# the sinusoid's linear relation


def rotation_blocks(k, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The 2x2 rotation of each sin/cos pair that shifts positions by ``k``.

    Parameters
    ----------
    k : int or float
        The offset (may be negative).
    d_model : int, even
    base : float

    Returns
    -------
    blocks : (D/2, 2, 2) ndarray
        ``[[cos k w_i, sin k w_i], [-sin k w_i, cos k w_i]]``, so that
        ``[sin, cos]((p + k) w_i) = blocks[i] @ [sin, cos](p w_i)``. No position
        appears: the same matrix works for every ``p``.
    """
    k = as_float("k", k)
    w = sinusoid_frequencies(d_model, base)  # (D/2,)
    c, s = np.cos(k * w), np.sin(k * w)
    return np.stack([np.stack([c, s], -1), np.stack([-s, c], -1)], -2)


def rotation_matrix(k, d_model: int, base: float = 10000.0, *, layout: str = "interleaved") -> np.ndarray:
    """``M_k``, the (D, D) matrix with ``PE[p + k] = PE[p] @ M_k.T`` for every p.

    Parameters
    ----------
    k : int or float
    d_model : int, even, <= 4096
    base : float
    layout : {"interleaved", "concat"}
        The layout of ``sinusoidal`` whose rows it maps.

    Returns
    -------
    M : (D, D) ndarray
        Block diagonal (2x2 rotations) for the interleaved layout; the same blocks on
        dims (i, D/2 + i) for the concatenated one.

    References
    ----------
    Vaswani et al. 2017, sec. 3.5: "PE_{pos+k} can be represented as a linear
    function of PE_pos".
    """
    layout = as_choice("layout", layout, SINUSOIDAL_LAYOUTS)
    d_model = as_even_int("d_model", d_model, max_value=4096)
    blocks = rotation_blocks(k, d_model, base)  # (D/2, 2, 2)
    half = d_model // 2
    m = np.zeros((d_model, d_model))
    i = np.arange(half)
    first, second = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + half)
    m[first, first] = blocks[:, 0, 0]
    m[first, second] = blocks[:, 0, 1]
    m[second, first] = blocks[:, 1, 0]
    m[second, second] = blocks[:, 1, 1]
    return m


def linear_relation_error(positions, k, d_model: int, base: float = 10000.0, *, layout: str = "interleaved") -> float:
    """Largest ``|PE[p] @ M_k.T - PE[p + k]|`` over the given positions.

    Parameters
    ----------
    positions : int or (T,) array_like
    k : int or float
        Offset; ``p + k`` must stay non-negative.

    Returns
    -------
    float, at rounding level (about 1e-15) for any p and k.
    """
    pos = as_positions("positions", positions)
    k = as_float("k", k)
    if pos.min() + k < 0:
        raise ValueError(f"k: positions + k must be >= 0, got smallest position {pos.min()} and k={k}")
    layout = as_choice("layout", layout, SINUSOIDAL_LAYOUTS)

    def sin_cos(table):  # (T, D) -> sines, cosines, each (T, D/2)
        half = d_model // 2
        return (table[:, 0::2], table[:, 1::2]) if layout == "interleaved" else (table[:, :half], table[:, half:])

    s, c = sin_cos(sinusoidal(pos, d_model, base, layout=layout))
    s_k, c_k = sin_cos(sinusoidal(pos + k, d_model, base, layout=layout))
    blocks = rotation_blocks(k, d_model, base)  # (D/2, 2, 2)
    # the pair-by-pair product with M_k, O(T D) rather than the dense O(T D^2) one
    err_sin = np.abs(blocks[:, 0, 0] * s + blocks[:, 0, 1] * c - s_k).max()
    err_cos = np.abs(blocks[:, 1, 0] * s + blocks[:, 1, 1] * c - c_k).max()
    return float(max(err_sin, err_cos))


# symmetry checks


def permutation_error(x, perm, *, pe=None, w_q=None, w_k=None, w_v=None, causal: bool = False) -> float:
    """How far self-attention is from permutation equivariance.

    Parameters
    ----------
    x : (T, D) array_like
        Token embeddings.
    perm : (T,) array_like
        A permutation of ``0..T-1`` (the shuffled word order: row t of the shuffled
        input is row ``perm[t]`` of ``x``).
    pe : (T, D) array_like or None
        Positional encodings, added at fixed positions (they do not move with the
        words). None: no positions.
    w_q, w_k, w_v : (D, Dh) array_like or None
        Projections, as for ``self_attention``.
    causal : bool

    Returns
    -------
    float, ``max |attention(P x + pe) - P attention(x + pe)|``: at rounding level
    without ``pe`` (attention is equivariant), clearly non-zero with it.
    """
    x = as_float_array("x", x, ndim=2)
    perm = np.asarray(perm)
    if perm.shape != (x.shape[0],) or not np.array_equal(np.sort(perm), np.arange(x.shape[0])):
        raise ValueError(f"perm must be a permutation of 0..{x.shape[0] - 1}, got {np.asarray(perm).tolist()[:20]}")
    kw = dict(pe=pe, w_q=w_q, w_k=w_k, w_v=w_v, causal=causal)
    out, _ = self_attention(x, **kw)
    out_moved, _ = self_attention(x[perm], **kw)
    return float(np.abs(out_moved - out[perm]).max())


def _gram(q, k) -> np.ndarray:
    """q @ k.T / sqrt(D), (T, T), scaled in place: at T = 512 a fresh (T, T) temporary costs
    about as much as the product (the allocator maps and faults in 2 MB each time)."""
    s = q @ k.T
    s /= math.sqrt(q.shape[1])
    return s


def _scores_none(x, pos, opts):
    return _gram(x, x)


def _scores_sinusoidal(x, pos, opts):
    h = x + sinusoidal(pos, x.shape[1], opts.get("base", 10000.0))
    return _gram(h, h)


def _scores_learned(x, pos, opts):
    table = learned_table(opts.get("max_len", 512), x.shape[1], std=opts.get("std", 0.5), seed=opts.get("seed", 0))
    h = x + lookup_learned(table, pos.astype(np.int64))
    return _gram(h, h)


def _scores_rope(x, pos, opts):
    h = apply_rope(x, pos, base=opts.get("base", 10000.0))
    return _gram(h, h)


def _scores_xpos(x, pos, opts):
    q = apply_xpos(x, pos, role="query", base=opts.get("base", 10000.0))
    k = apply_xpos(x, pos, role="key", base=opts.get("base", 10000.0))
    return _gram(q, k)


def _scores_alibi(x, pos, opts):
    slope = as_float("slope", opts.get("slope", 0.5), ge=0.0)
    penalty = pos[:, None] - pos[None, :]  # (T, T), then slope |i - j| in place
    np.abs(penalty, out=penalty)
    penalty *= slope
    scores = _scores_none(x, pos, opts)
    scores -= penalty
    return scores


def _by_offset(pos, f, *, signed: bool) -> np.ndarray:
    """(T, T) ``f(pos_j - pos_i)`` (``signed``) or ``f(|pos_i - pos_j|)``, for an
    elementwise ``f`` of (N,) int64 offsets and whole-number positions ``pos`` (T,).

    ``f`` is evaluated once per offset in range and looked up for every pair: the same
    values, without a logarithm per pair (a translation error at T = 512 takes 24 ms for
    T5 and 10 for KERPLE with one, 7 ms each without). Positions spread wider than there
    are pairs are done pair by pair.
    """
    p = pos.astype(np.int64)
    rel = p[None, :] - p[:, None]  # (T, T) key minus query
    if not signed:
        np.abs(rel, out=rel)
    span = int(p.max() - p.min()) if p.size else 0
    if 2 * span + 1 >= rel.size:
        return f(rel)
    low = -span if signed else 0
    rel -= low
    return f(np.arange(low, span + 1))[rel]


def _scores_t5(x, pos, opts):
    num_buckets = opts.get("num_buckets", 32)
    table = np.random.default_rng(opts.get("seed", 0)).standard_normal(num_buckets)
    max_distance = opts.get("max_distance", 128)
    bias = _by_offset(
        pos, lambda rel: table[t5_bucket(rel, num_buckets=num_buckets, max_distance=max_distance)], signed=True
    )
    scores = _scores_none(x, pos, opts)
    scores += bias
    return scores


def _scores_kerple(x, pos, opts):
    r1, r2, kind = opts.get("r1", 1.0), opts.get("r2", 1.0), opts.get("kind", "log")
    bias = _by_offset(pos, lambda d: kerple_from_distance(d.astype(np.float64), r1, r2, kind)[0], signed=False)
    scores = _scores_none(x, pos, opts)
    scores += bias
    return scores


#: method -> function(x (T, D), positions (T,), options) -> scores (T, T)
SCORE_METHODS = {
    "none": _scores_none,
    "sinusoidal": _scores_sinusoidal,
    "learned": _scores_learned,
    "rope": _scores_rope,
    "xpos": _scores_xpos,
    "alibi": _scores_alibi,
    "t5": _scores_t5,
    "kerple": _scores_kerple,
}


def position_scores(x, positions, method: str, **options) -> np.ndarray:
    """Self-attention logits of a phrase placed at the given positions.

    Parameters
    ----------
    x : (T, D) array_like
        The phrase's token vectors (used as queries and keys; D even).
    positions : int or (T,) array_like of whole numbers
    method : str
        A key of ``SCORE_METHODS``: "none", "sinusoidal", "learned" (options
        ``max_len``, ``std``, ``seed``), "rope", "xpos", "alibi" (``slope``),
        "t5" (``num_buckets``, ``max_distance``, ``seed`` of the bias table),
        "kerple" (``r1``, ``r2``, ``kind``); all take ``base`` where it applies.

    Returns
    -------
    S : (T, T) ndarray

    Raises
    ------
    PositionOutOfRange
        "learned" with a position past ``max_len``.
    """
    method = as_choice("method", method, tuple(SCORE_METHODS))
    x = as_float_array("x", x, ndim=2)
    as_even_int("x.shape[1] (d_model)", x.shape[1])
    pos = as_positions("positions", positions, integer=True).astype(np.float64)
    if pos.size != x.shape[0]:
        raise ValueError(f"positions must have one entry per row of x ({x.shape[0]}), got {pos.size}")
    check_budget(pos.size**2, "position_scores")
    return SCORE_METHODS[method](x, pos, options)


def translation_error(x, shift: int, method: str, **options) -> float:
    """Largest change in a phrase's scores when it moves ``shift`` positions right.

    Returns
    -------
    float: at rounding level for relative methods (RoPE, xPos, ALiBi, T5, KERPLE,
    none), clearly non-zero for added absolute encodings.
    """
    x = as_float_array("x", x, ndim=2)
    shift = as_int("shift", shift, min_value=0)
    n = x.shape[0]
    at_start = position_scores(x, n, method, **options)
    moved = position_scores(x, np.arange(shift, shift + n), method, **options)
    moved -= at_start  # in place: both are new
    return float(np.abs(moved, out=moved).max())
