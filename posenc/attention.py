"""Scaled dot-product attention, the operation every encoding feeds.

Vaswani et al. 2017, arXiv:1706.03762, eq. 1. The causal mask follows torch's
``scaled_dot_product_attention`` lower-right convention when keys outnumber queries.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array, as_int, check_budget

__all__ = ["attention", "causal_mask", "self_attention", "softmax"]


def softmax(scores, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax (the row maximum is subtracted first).

    Parameters
    ----------
    scores : array_like
        May hold ``-inf`` (masked); a slice that is all ``-inf`` raises ValueError.

    Returns
    -------
    ndarray, same shape, non-negative, summing to 1 along ``axis``.
    """
    try:
        scores = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("scores must be an array of real numbers") from None
    if scores.size == 0:
        raise ValueError(f"scores must not be empty, got shape {scores.shape}")
    if np.isnan(scores).any() or np.isposinf(scores).any():
        raise ValueError("scores must not hold NaN or +inf")
    peak = scores.max(axis=axis, keepdims=True)
    if np.isneginf(peak).any():
        raise ValueError("scores: every row needs at least one finite entry (a query must attend somewhere)")
    e = np.exp(scores - peak)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(q_len: int, k_len: int) -> np.ndarray:
    """Boolean (Tq, Tk) mask, True where key j may be seen by query i.

    Queries are the last Tq of Tk positions, so ``j <= i + (Tk - Tq)``.
    """
    q_len = as_int("q_len", q_len, min_value=1)
    k_len = as_int("k_len", k_len, min_value=1)
    check_budget(q_len * k_len, "causal_mask(q_len, k_len)")
    if q_len > k_len:
        raise ValueError(f"causal attention needs k_len >= q_len, got q_len={q_len}, k_len={k_len}")
    return np.arange(k_len)[None, :] <= np.arange(q_len)[:, None] + (k_len - q_len)


def attention(q, k, v, *, bias=None, causal: bool = False):
    """Scaled dot-product attention.

    Parameters
    ----------
    q : (..., Tq, D) array_like
    k : (..., Tk, D) array_like
    v : (..., Tk, Dv) array_like
    bias : array_like or None
        Added to the scaled scores; broadcastable to (..., Tq, Tk), e.g. an
        (H, Tq, Tk) ALiBi or T5 bias. ``-inf`` entries mask keys out.
    causal : bool
        Mask keys after each query (lower-right aligned when Tk > Tq). Needs Tq <= Tk.

    Returns
    -------
    out : (..., Tq, Dv) ndarray
    weights : (..., Tq, Tk) ndarray
        Each row sums to 1.

    Notes
    -----
    .. math:: \\mathrm{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d}} + B\\right) V

    Examples
    --------
    >>> out, w = attention(np.eye(2), np.eye(2), [[1.0], [3.0]])
    >>> w.sum(axis=-1)
    array([1., 1.])
    """
    q = as_float_array("q", q, min_ndim=2)
    k = as_float_array("k", k, min_ndim=2)
    v = as_float_array("v", v, min_ndim=2)
    if not isinstance(causal, (bool, np.bool_)):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must have the same last dimension, got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have the same number of rows (keys), got {k.shape[-2]} and {v.shape[-2]}")
    q_len, k_len = q.shape[-2], k.shape[-2]
    if causal and q_len > k_len:
        raise ValueError(f"causal=True needs q no longer than k, got q_len={q_len} > k_len={k_len}")
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"q, k and v leading axes must broadcast, got {q.shape[:-2]}, {k.shape[:-2]}, {v.shape[:-2]}"
        ) from None
    check_budget(int(np.prod(batch, dtype=np.int64)) * q_len * k_len, "attention weights")
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # (..., Tq, Tk)
    if bias is not None:
        try:
            bias = np.asarray(bias, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("bias must be an array of real numbers (or -inf to mask)") from None
        if np.isnan(bias).any() or np.isposinf(bias).any():
            raise ValueError("bias must not hold NaN or +inf (use -inf to mask a key)")
        try:
            shape = np.broadcast_shapes(scores.shape, bias.shape)
        except ValueError:
            raise ValueError(f"bias must broadcast to the scores' shape {scores.shape}, got {bias.shape}") from None
        check_budget(int(np.prod(shape, dtype=np.int64)), "attention weights (with bias)")
        scores = scores + bias
    if causal:
        scores = np.where(causal_mask(q_len, k_len), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


def self_attention(x, *, pe=None, w_q=None, w_k=None, w_v=None, causal: bool = False):
    """One head of self-attention over a sequence, with optional added positions.

    Parameters
    ----------
    x : (T, D) array_like
        Token vectors.
    pe : (T, D) array_like or None
        Added to ``x`` first (absolute positions); None for none.
    w_q, w_k, w_v : (D, Dh) array_like or None
        Projections; None means identity (``x`` itself is the query, key and value).
    causal : bool

    Returns
    -------
    out : (T, Dh) ndarray, weights : (T, T) ndarray
    """
    x = as_float_array("x", x, ndim=2)
    if pe is not None:
        pe = as_float_array("pe", pe, ndim=2)
        if pe.shape != x.shape:
            raise ValueError(f"pe must have the shape of x {x.shape}, got {pe.shape}")
        x = x + pe
    projected = []
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        if w is None:
            projected.append(x)
            continue
        w = as_float_array(name, w, ndim=2)
        if w.shape[0] != x.shape[1]:
            raise ValueError(f"{name} must have {x.shape[1]} rows (the width of x), got shape {w.shape}")
        projected.append(x @ w)
    return attention(*projected, causal=causal)
