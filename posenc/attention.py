"""Scaled dot-product attention, the operation every encoding feeds.

Vaswani et al. 2017, arXiv:1706.03762, eq. 1. The causal mask follows torch's
``scaled_dot_product_attention`` lower-right convention when keys outnumber queries.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array, as_int, check_budget

__all__ = [
    "attention",
    "causal_mask",
    "kv_cache_bytes",
    "self_attention",
    "sliding_window_mask",
    "softmax",
    "window_receptive_field",
]


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


def sliding_window_mask(q_len: int, k_len: int, window: int) -> np.ndarray:
    """Boolean (Tq, Tk) mask of causal sliding-window attention, True where key j may be
    seen by query i.

    Parameters
    ----------
    q_len, k_len : int
        Queries are the last ``q_len`` of ``k_len`` positions (as in ``causal_mask``):
        query i stands at position ``i + k_len - q_len``. Needs ``k_len >= q_len >= 1``.
    window : int
        How many positions a query sees, itself included (Mistral's ``sliding_window``);
        ``window >= k_len`` gives the plain causal mask.

    Returns
    -------
    (Tq, Tk) bool ndarray

    Raises
    ------
    ValueError
        A length or the window that is not a positive integer, ``q_len > k_len``, or a
        grid over ``MAX_ELEMENTS``.

    Notes
    -----
    With ``p = i + k_len - q_len`` the position of query i, key j is visible iff

    .. math:: 0 \\le p - j < w

    so each row holds ``min(p + 1, w)`` visible keys (Beltagy et al. 2020, Longformer;
    Jiang et al. 2023, Mistral 7B, sec. 2). Implementations have differed by one here:
    the Mistral paper's wording (positions i - W to i) counts W + 1 keys, and
    transformers issue #29623 and mlx-lm PR #390 record backends that kept w or w + 1.
    This mask keeps w: the query itself and the w - 1 keys before it.
    """
    q_len = as_int("q_len", q_len, min_value=1)
    k_len = as_int("k_len", k_len, min_value=1)
    window = as_int("window", window, min_value=1)
    check_budget(q_len * k_len, "sliding_window_mask(q_len, k_len, window)")
    if q_len > k_len:
        raise ValueError(f"sliding-window attention needs k_len >= q_len, got q_len={q_len}, k_len={k_len}")
    distance = np.arange(q_len)[:, None] + (k_len - q_len) - np.arange(k_len)[None, :]  # p - j
    return (distance >= 0) & (distance < window)


def window_receptive_field(window: int, layers: int, seq_len: int | None = None) -> int:
    """How many positions one token can draw on after ``layers`` stacked sliding-window
    layers, itself included.

    Parameters
    ----------
    window : int
        Positions each layer's query sees, itself included (>= 1).
    layers : int
        Stacked layers (>= 0; 0 layers: the token alone).
    seq_len : int or None
        Cap at the sequence (the positions that exist before and at the token); None for
        no cap.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        An argument that is not an integer in its range.

    Notes
    -----
    Each layer reaches ``w - 1`` positions further back than the one below it, so

    .. math:: R(L) = \\min\\big((w - 1) L + 1,\\ T\\big)

    (the Mistral 7B paper, sec. 2, gives W x k after k layers, about 131K for its 4096 x 32,
    counting a window of W + 1 keys). It is a reach, not a promise: information from the
    far end has to be relayed through every layer in between.
    """
    window = as_int("window", window, min_value=1)
    layers = as_int("layers", layers, min_value=0)
    reach = (window - 1) * layers + 1
    if seq_len is None:
        return reach
    return min(reach, as_int("seq_len", seq_len, min_value=1))


def kv_cache_bytes(
    seq_len: int,
    *,
    layers: int,
    kv_heads: int,
    head_dim: int,
    window: int | None = None,
    bytes_per_value: int = 2,
) -> int:
    """Bytes of the key-value cache of one sequence during generation.

    Parameters
    ----------
    seq_len : int
        Tokens generated or read so far, T (>= 1).
    layers, kv_heads, head_dim : int
        The model's layers, key-value heads (fewer than query heads under grouped-query
        attention) and head width Dh.
    window : int or None
        A rolling cache of sliding-window attention keeps only the last ``window``
        tokens; None keeps every token (full attention).
    bytes_per_value : int
        2 for float16 or bfloat16, 4 for float32.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        An argument that is not a positive integer.

    Notes
    -----
    Keys and values, per layer, per key-value head, per kept token:

    .. math:: \\text{bytes} = 2 \\cdot L \\cdot H_{kv} \\cdot D_h \\cdot \\min(T, w) \\cdot b

    With a window the cache stops growing at ``T = w``: the token at position p is
    written into slot ``p mod w``, over the one ``w`` places back that no query needs
    any more (Mistral 7B, sec. 2, "Rolling Buffer Cache").
    """
    seq_len = as_int("seq_len", seq_len, min_value=1)
    layers = as_int("layers", layers, min_value=1)
    kv_heads = as_int("kv_heads", kv_heads, min_value=1)
    head_dim = as_int("head_dim", head_dim, min_value=1)
    bytes_per_value = as_int("bytes_per_value", bytes_per_value, min_value=1)
    kept = seq_len if window is None else min(seq_len, as_int("window", window, min_value=1))
    return 2 * layers * kv_heads * head_dim * kept * bytes_per_value


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
