"""Relative positions: position enters the scores, not the inputs.

- Shaw et al. 2018, "Self-Attention with Relative Position Representations", arXiv:1803.02155.
- T5: Raffel et al. 2019, arXiv:1910.10683; reference ``T5Attention._relative_position_bucket``
  (mesh-tensorflow, Hugging Face transformers).
- Transformer-XL: Dai et al. 2019, arXiv:1901.02860, sec. 3.3 (kimiyoung/transformer-xl).
- DeBERTa: He et al. 2020, arXiv:2006.03654; reference ``make_log_bucket_position`` and
  ``DisentangledSelfAttention`` in transformers' ``modeling_deberta_v2``.

ALiBi and KERPLE, whose biases are fixed functions of the distance, are in ``posenc.alibi``.
The lesson's helpers (which offsets share a T5 bucket, which DeBERTa row an offset reads)
close the module.

Conventions. Queries are the last ``Tq`` of ``Tk`` positions: ``pos_q(i) = Tk - Tq + i``
(as when decoding with a cache), so ``Tk >= Tq``. ``relative_positions`` and T5 use
key minus query (``j - pos_q(i)``, negative for keys in the past); Transformer-XL and
DeBERTa use query minus key, as their papers do.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ._checks import as_float_array, as_int, as_lengths, check_budget
from .absolute import sinusoid_frequencies

__all__ = [
    "DebertaTerms",
    "ShawTerms",
    "XLTerms",
    "deberta_log_bucket",
    "deberta_scores",
    "deberta_table_offset",
    "relative_positions",
    "shaw_relative_embeddings",
    "shaw_scores",
    "t5_bias",
    "t5_bucket",
    "t5_bucket_ranges",
    "t5_max_exact",
    "transformer_xl_scores",
]


class ShawTerms(NamedTuple):
    """Shaw et al.'s logits before the 1/sqrt(Dh) scale, each (Tq, Tk)."""

    content: np.ndarray  # q_i . k_j
    position: np.ndarray  # q_i . a_ij (the learned relative key embedding)


class XLTerms(NamedTuple):
    """Transformer-XL's four score terms, each (Tq, Tk); the logit is their sum / sqrt(D)."""

    content_content: np.ndarray  # (a) q_i . k_j
    content_position: np.ndarray  # (b) q_i . W_R R_{i-j}
    global_content: np.ndarray  # (c) u . k_j
    global_position: np.ndarray  # (d) v . W_R R_{i-j}

    @property
    def total(self) -> np.ndarray:
        return self.content_content + self.content_position + self.global_content + self.global_position


class DebertaTerms(NamedTuple):
    """DeBERTa's disentangled score terms, each (Tq, Tk); the logit is their sum / sqrt(3 D)."""

    c2c: np.ndarray  # content-to-content  Qc_i . Kc_j
    c2p: np.ndarray  # content-to-position Qc_i . Kr_{delta(i, j)}
    p2c: np.ndarray  # position-to-content Kc_j . Qr_{delta(i, j)}


# helpers


def _query_minus_key(q_len, k_len):
    """(Tq, Tk) int grid of pos_q(i) - j."""
    return _by_distance(_distances(q_len, k_len), k_len)


def _distances(q_len, k_len):
    """(Tq + Tk - 1,) every distance pos_q(i) - j of a (Tq, Tk) grid, from Tk - 1 down to 1 - Tq."""
    return np.arange(k_len - 1, -q_len, -1)


def _by_distance(values, k_len):
    """(..., Tq, Tk) grid holding, at pair (i, j), the entry of ``values`` for pos_q(i) - j.

    ``values`` (..., Tq + Tk - 1) follows ``_distances``: pair (i, j) reads entry
    Tq - 1 - i + j, so row i is the window of Tk entries from Tq - 1 - i (the grid is
    Toeplitz). One copy of the windows, instead of a value computed for every pair.
    """
    return sliding_window_view(values, k_len, axis=-1)[..., ::-1, :].copy()


def _signed_sinusoid(distances, d_model, base):
    """Concatenated sin-then-cos encoding of signed distances, (N, D)."""
    w = sinusoid_frequencies(d_model, base)  # (D/2,)
    angles = distances.astype(np.float64)[:, None] * w[None, :]  # (N, D/2)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=-1)


# public API: relative positions, Shaw, T5


def relative_positions(q_len: int, k_len: int | None = None, max_distance: int | None = None) -> np.ndarray:
    """Key minus query position for every pair.

    Parameters
    ----------
    q_len : int
    k_len : int or None
        Defaults to ``q_len``; must be ``>= q_len``.
    max_distance : int or None
        If given (>= 0), clip to ``[-max_distance, max_distance]`` (Shaw et al.).

    Returns
    -------
    rel : (Tq, Tk) int ndarray, ``j - pos_q(i)``.

    Examples
    --------
    >>> relative_positions(3)
    array([[ 0,  1,  2],
           [-1,  0,  1],
           [-2, -1,  0]])
    """
    q_len, k_len = as_lengths(q_len, k_len)
    rel = -_distances(q_len, k_len)  # (Tq + Tk - 1,) int64, key minus query
    if max_distance is not None:
        max_distance = as_int("max_distance", max_distance, min_value=0)
        rel = np.clip(rel, -max_distance, max_distance)
    return _by_distance(rel, k_len)


def shaw_relative_embeddings(table, q_len: int, k_len: int | None = None) -> np.ndarray:
    """Look up Shaw et al.'s learned relative embedding for every pair.

    Parameters
    ----------
    table : (2K + 1, Dh) array_like
        Row ``r + K`` holds the embedding of relative position ``r`` (key minus
        query), for ``-K <= r <= K``; farther pairs share the edge rows.
    q_len, k_len : int

    Returns
    -------
    a : (Tq, Tk, Dh) ndarray, ``table[clip(j - pos_q(i), -K, K) + K]``.
    """
    table = as_float_array("table", table, ndim=2)
    if table.shape[0] % 2 != 1:
        raise ValueError(f"table must have an odd number of rows (2K + 1), got {table.shape[0]}")
    q_len, k_len = as_lengths(q_len, k_len)
    check_budget(q_len * k_len * table.shape[1], "shaw_relative_embeddings(table, q_len, k_len)")
    max_distance = table.shape[0] // 2
    return table[relative_positions(q_len, k_len, max_distance) + max_distance]


def shaw_scores(q, k, table) -> ShawTerms:
    """Shaw et al.'s attention logits, split into content and relative-position parts.

    Parameters
    ----------
    q : (Tq, Dh) array_like
    k : (Tk, Dh) array_like, ``Tk >= Tq``
    table : (2K + 1, Dh) array_like
        Relative key embeddings ``a^K`` (see ``shaw_relative_embeddings``).

    Returns
    -------
    ShawTerms(content, position), each (Tq, Tk); the logit is
    ``(content + position) / sqrt(Dh)``.

    Notes
    -----
    .. math:: e_{ij} = \\frac{q_i \\cdot k_j + q_i \\cdot a^K_{ij}}{\\sqrt{d}}

    Computed as ``q @ table.T`` then gathered, so the (Tq, Tk, Dh) tensor of
    embeddings is never built.
    """
    q = as_float_array("q", q, ndim=2)
    k = as_float_array("k", k, ndim=2)
    table = as_float_array("table", table, ndim=2)
    if not q.shape[1] == k.shape[1] == table.shape[1]:
        raise ValueError(
            f"q, k and table must share the last dimension, got {q.shape[1]}, {k.shape[1]}, {table.shape[1]}"
        )
    if table.shape[0] % 2 != 1:
        raise ValueError(f"table must have an odd number of rows (2K + 1), got {table.shape[0]}")
    q_len, k_len = as_lengths(q.shape[0], k.shape[0])
    max_distance = table.shape[0] // 2
    index = relative_positions(q_len, k_len, max_distance) + max_distance  # (Tq, Tk)
    per_offset = q @ table.T  # (Tq, 2K+1)
    return ShawTerms(q @ k.T, np.take_along_axis(per_offset, index, axis=1))


def t5_bucket(relative_position, *, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128):
    """T5's relative position bucket, identical to ``_relative_position_bucket``.

    Parameters
    ----------
    relative_position : int or array_like of ints
        Key minus query (negative: the key is in the past).
    bidirectional : bool, default True
        Encoder style: half the buckets for keys ahead. If False (decoder), keys
        ahead all share bucket 0.
    num_buckets : int, default 32
        At least 4 when bidirectional, 2 otherwise.
    max_distance : int, default 128
        Offsets at or beyond it share the last bucket; must exceed the number of
        exact buckets (``num_buckets // 4`` bidirectional, ``// 2`` otherwise).

    Returns
    -------
    bucket : int ndarray, shape of ``relative_position``, in ``[0, num_buckets)``.

    Notes
    -----
    With ``n`` = buckets per direction and ``e = n // 2``: offsets below ``e`` get
    their own bucket; larger ones share buckets spaced logarithmically up to
    ``max_distance``: ``e + floor(log(r / e) / log(max_distance / e) * (n - e))``.
    The logarithm is taken in float32, as in the reference, so bucket edges agree.

    Examples
    --------
    >>> t5_bucket([-3, -1, 0, 1, 3]).tolist()
    [3, 1, 0, 17, 19]
    """
    if not isinstance(bidirectional, (bool, np.bool_)):
        raise ValueError(f"bidirectional must be True or False, got {bidirectional!r}")
    num_buckets = as_int("num_buckets", num_buckets, min_value=4 if bidirectional else 2, max_value=100_000)
    max_distance = as_int("max_distance", max_distance, min_value=1)
    n = num_buckets // 2 if bidirectional else num_buckets
    max_exact = n // 2
    if max_distance <= max_exact:
        raise ValueError(
            f"max_distance must be > {max_exact} (the exact buckets for num_buckets={num_buckets}), got {max_distance}"
        )
    rel = np.asarray(relative_position)
    if rel.dtype == bool or not np.issubdtype(rel.dtype, np.integer):
        raise ValueError(f"relative_position must hold integers, got dtype {rel.dtype}")
    check_budget(rel.size, "relative_position")
    rel = rel.astype(np.int64)
    buckets = np.zeros(rel.shape, dtype=np.int64)
    if bidirectional:
        buckets += (rel > 0) * n
        distance = np.abs(rel)
    else:
        distance = -np.minimum(rel, 0)
    # float32 throughout, as torch computes it; max(., 1) only keeps log(0) out of the
    # branch that np.where discards anyway
    ratio = np.maximum(distance, 1).astype(np.float32) / np.float32(max_exact)
    scaled = np.log(ratio) / np.float32(math.log(max_distance / max_exact)) * np.float32(n - max_exact)
    if_large = np.minimum(max_exact + scaled.astype(np.int64), n - 1)
    return buckets + np.where(distance < max_exact, distance, if_large)


def t5_bias(table, q_len: int, k_len: int | None = None, *, bidirectional: bool = True, max_distance: int = 128):
    """T5's learned bias for every (query, key) pair, per head.

    Parameters
    ----------
    table : (num_buckets, H) array_like
        One learned scalar per bucket and head (``relative_attention_bias``).
    q_len, k_len : int
    bidirectional, max_distance : as for ``t5_bucket``

    Returns
    -------
    bias : (H, Tq, Tk) ndarray, ``table[t5_bucket(j - pos_q(i)), h]``.
    """
    table = as_float_array("table", table, ndim=2)
    q_len, k_len = as_lengths(q_len, k_len)
    check_budget(table.shape[1] * q_len * k_len, "t5_bias(table, q_len, k_len)")
    # bucket each of the Tq + Tk - 1 distances once (a logarithm per pair would cost most of
    # the time at T = 1024), then lay each head's values out over the pairs
    offsets = -_distances(q_len, k_len)  # (Tq + Tk - 1,) key minus query
    buckets = t5_bucket(offsets, bidirectional=bidirectional, num_buckets=table.shape[0], max_distance=max_distance)
    return _by_distance(table[buckets].T, k_len)  # (H, Tq, Tk)


# public API: Transformer-XL and DeBERTa


def transformer_xl_scores(q, k, u, v, *, w_r=None, base: float = 10000.0) -> XLTerms:
    """Transformer-XL's relative attention score, term by term.

    Parameters
    ----------
    q : (Tq, D) array_like
        Queries ``W_q E_{x_i}``.
    k : (Tk, D) array_like, ``Tk >= Tq``
        Content keys ``W_{k,E} E_{x_j}`` (memory first, then the segment).
    u, v : (D,) array_like
        The learned global content and position biases.
    w_r : (D, Dr) array_like or None
        ``W_{k,R}``, mapping a Dr-wide sinusoid to key space; default identity (Dr = D).
    base : float
        Sinusoid base of ``R``.

    Returns
    -------
    XLTerms(content_content, content_position, global_content, global_position),
    each (Tq, Tk); ``.total`` is their sum (divide by sqrt(D) for the logit).

    Notes
    -----
    .. math:: A_{ij} = q_i^\\top k_j + q_i^\\top W_{k,R} R_{i-j} + u^\\top k_j + v^\\top W_{k,R} R_{i-j}

    ``R_d`` is the sinusoid of the signed distance ``d = pos_q(i) - j`` laid out sin
    then cos, as in the reference code's ``PositionalEmbedding``; under the usual
    causal mask only ``d >= 0`` matters.

    References
    ----------
    Dai et al. 2019, arXiv:1901.02860, sec. 3.3.
    """
    q = as_float_array("q", q, ndim=2)
    k = as_float_array("k", k, ndim=2)
    u = as_float_array("u", u, ndim=1)
    v = as_float_array("v", v, ndim=1)
    d = q.shape[1]
    for name, size in (("k", k.shape[1]), ("u", u.size), ("v", v.size)):
        if size != d:
            raise ValueError(f"{name} must have the width of q ({d}), got {size}")
    q_len, k_len = as_lengths(q.shape[0], k.shape[0])
    if w_r is None:
        w_r = np.eye(d)
    w_r = as_float_array("w_r", w_r, ndim=2)
    if w_r.shape[0] != d or w_r.shape[1] % 2:
        raise ValueError(f"w_r must have shape (D={d}, Dr) with Dr even, got {w_r.shape}")
    term_b, term_d = _xl_position_terms(q, k_len, v, w_r, base)
    return XLTerms(q @ k.T, term_b.copy(), np.broadcast_to(k @ u, (q_len, k_len)).copy(), term_d)


def _xl_position_terms(q, k_len: int, v, w_r, base: float) -> tuple[np.ndarray, np.ndarray]:
    """Transformer-XL's two position terms, ``q_i . W_{k,R} R_{i-j}`` (a read-only (Tq, Tk)
    view) and ``v . W_{k,R} R_{i-j}`` ((Tq, Tk), new), of checked arrays: q (Tq, D), v (D,),
    w_r (D, Dr). Shared with ``posenc_lab.lessons.choices.measure.cached_position_state``, which needs only these."""
    q_len = q.shape[0]
    distances = _distances(q_len, k_len)  # (N,) every i - j, from Tk - 1 down to 1 - Tq
    r = _signed_sinusoid(distances, w_r.shape[1], base) @ w_r.T  # (N, D): W_{k,R} R_d
    # pair (i, j) reads distance pos_q(i) - j, entry Tq - 1 - i + j of r: row i is the window
    # of Tk entries from Tq - 1 - i, one entry earlier per row (read forwards, so a copy is a
    # run of memcpys; no (Tq, Tk) index grid)
    n = distances.size
    flat = (q @ r.T).reshape(-1)  # row i starts at i N: its window at i (N - 1) + Tq - 1
    term_b = sliding_window_view(flat, k_len)[q_len - 1 :: max(n - 1, 1)][:q_len]  # (Tq, Tk)
    return term_b, _by_distance(r @ v, k_len)


def deberta_log_bucket(relative_position, *, bucket_size: int = 256, max_position: int = 512):
    """DeBERTa's log-bucketed relative positions (``make_log_bucket_position``).

    Parameters
    ----------
    relative_position : int or array_like of ints
        Query minus key (DeBERTa's sign).
    bucket_size : int, >= 2
        Offsets with ``|r| <= bucket_size // 2`` stay exact.
    max_position : int, > bucket_size // 2 + 1
        Offsets near it map to about ``bucket_size - 1``.

    Returns
    -------
    bucket : int ndarray, same shape, signed like ``relative_position``.

    Notes
    -----
    With ``mid = bucket_size // 2``: ``sign(r) * (ceil(log(|r|/mid) /
    log((max_position-1)/mid) * (mid-1)) + mid)`` for ``|r| > mid``. Computed in
    float32 as the reference does.
    """
    bucket_size = as_int("bucket_size", bucket_size, min_value=2, max_value=1_000_000)
    mid = bucket_size // 2
    max_position = as_int("max_position", max_position, min_value=mid + 2)
    rel = np.asarray(relative_position)
    if rel.dtype == bool or not np.issubdtype(rel.dtype, np.integer):
        raise ValueError(f"relative_position must hold integers, got dtype {rel.dtype}")
    check_budget(rel.size, "relative_position")
    rel = rel.astype(np.int64)
    sign = np.sign(rel)
    abs_pos = np.where((rel < mid) & (rel > -mid), mid - 1, np.abs(rel))
    log_pos = (
        np.ceil(
            np.log(abs_pos.astype(np.float32) / np.float32(mid))
            / np.log(np.float32((max_position - 1) / mid))
            * np.float32(mid - 1)
        )
        + mid
    )
    return np.where(abs_pos <= mid, rel, log_pos.astype(np.int64) * sign).astype(np.int64)


def deberta_scores(q_c, k_c, q_r, k_r, *, max_position: int | None = None) -> DebertaTerms:
    """DeBERTa's disentangled attention, term by term.

    Parameters
    ----------
    q_c : (Tq, D) array_like
        Content queries.
    k_c : (Tk, D) array_like, ``Tk >= Tq``
        Content keys.
    q_r, k_r : (2S, D) array_like
        Relative position embeddings projected by the query and key weights; row
        ``delta + S`` stands for relative position ``delta`` (query minus key).
    max_position : int or None
        If given, relative positions are log-bucketed first, with ``bucket_size = S``
        (DeBERTa-v2's ``position_buckets``); else they are only clipped to
        ``[-S, S - 1]``.

    Returns
    -------
    DebertaTerms(c2c, c2p, p2c), each (Tq, Tk); the logit is their sum divided by
    ``sqrt(3 D)``.

    Notes
    -----
    .. math:: \\tilde A_{ij} = Q^c_i K^{c\\top}_j + Q^c_i K^{r\\top}_{\\delta(i,j)} + K^c_j Q^{r\\top}_{\\delta(i,j)}

    with ``delta(i, j) = clip(i - j + S, 0, 2S - 1)``. Both position terms use the
    same index, as transformers' ``DisentangledSelfAttention`` does (it negates the
    relative position for p2c and then transposes).
    """
    q_c = as_float_array("q_c", q_c, ndim=2)
    k_c = as_float_array("k_c", k_c, ndim=2)
    q_r = as_float_array("q_r", q_r, ndim=2)
    k_r = as_float_array("k_r", k_r, ndim=2)
    d = q_c.shape[1]
    for name, arr in (("k_c", k_c), ("q_r", q_r), ("k_r", k_r)):
        if arr.shape[1] != d:
            raise ValueError(f"{name} must have the width of q_c ({d}), got {arr.shape[1]}")
    if q_r.shape[0] != k_r.shape[0] or q_r.shape[0] % 2:
        raise ValueError(
            f"q_r and k_r must have the same even number of rows (2S), got {q_r.shape[0]} and {k_r.shape[0]}"
        )
    q_len, k_len = as_lengths(q_c.shape[0], k_c.shape[0])
    span = q_r.shape[0] // 2
    rel = _query_minus_key(q_len, k_len)  # (Tq, Tk)
    if max_position is not None:
        rel = deberta_log_bucket(rel, bucket_size=span, max_position=max_position)
    index = np.clip(rel + span, 0, 2 * span - 1)  # (Tq, Tk)
    c2p = np.take_along_axis(q_c @ k_r.T, index, axis=1)
    # p2c_{ij} = Kc_j . Qr_{index_ij}: gather along the relative axis of (Tk, 2S)
    p2c = np.take_along_axis(k_c @ q_r.T, index.T, axis=1).T
    return DebertaTerms(q_c @ k_c.T, c2p, p2c)


# public API: the lesson's helpers


def t5_max_exact(num_buckets: int, bidirectional: bool = True) -> int:
    """Number of offsets per direction that get a bucket of their own in T5.

    Parameters
    ----------
    num_buckets : int
        At least 4 when bidirectional, 2 otherwise (as for ``t5_bucket``).
    bidirectional : bool

    Returns
    -------
    max_exact : int
        ``n // 2`` with ``n`` the buckets per direction (``num_buckets // 2``
        bidirectional, ``num_buckets`` otherwise): distances ``0 .. max_exact - 1``
        are exact. ``t5_bucket`` needs ``max_distance > max_exact``.

    Examples
    --------
    >>> t5_max_exact(32), t5_max_exact(32, bidirectional=False)
    (8, 16)
    """
    if not isinstance(bidirectional, (bool, np.bool_)):
        raise ValueError(f"bidirectional must be True or False, got {bidirectional!r}")
    num_buckets = as_int("num_buckets", num_buckets, min_value=4 if bidirectional else 2, max_value=100_000)
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    return per_direction // 2


def t5_bucket_ranges(num_buckets: int = 32, max_distance: int = 128, *, bidirectional: bool = True):
    """The relative positions each T5 bucket holds.

    Parameters
    ----------
    num_buckets, max_distance, bidirectional : as for ``posenc.t5_bucket``

    Returns
    -------
    lo, hi : (num_buckets,) float ndarrays
        Smallest and largest relative position (key minus query) in each bucket;
        ``-inf`` / ``inf`` where the bucket goes on for ever (the last bucket of each
        direction, and bucket 0 for every key ahead when not bidirectional), NaN
        where no offset lands: bucket ``num_buckets // 2`` when bidirectional (offset
        0 is bucket 0 and a key ahead is at least 1 away), and log buckets that the
        rounding skips when ``max_distance`` is close to the exact range.

    Raises
    ------
    ValueError
        For the combinations ``t5_bucket`` refuses.

    Notes
    -----
    Every distance at or beyond ``max_distance`` lands in the last bucket of its
    direction, so the offsets ``-max_distance .. max_distance`` show every bucket;
    the ones at the two ends are the open-ended buckets.

    Examples
    --------
    >>> lo, hi = t5_bucket_ranges(8, 4)
    >>> lo.tolist(), hi.tolist()
    ([0.0, -1.0, -2.0, -inf, nan, 1.0, 2.0, 3.0], [0.0, -1.0, -2.0, -3.0, nan, 1.0, 2.0, inf])
    """
    num_buckets = as_int("num_buckets", num_buckets, min_value=2, max_value=100_000)
    max_distance = as_int("max_distance", max_distance, min_value=1)
    check_budget(2 * max_distance + 1, "the offsets -max_distance..max_distance")
    offsets = np.arange(-max_distance, max_distance + 1)  # (N,)
    buckets = t5_bucket(offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    lo = np.full(num_buckets, np.inf)
    hi = np.full(num_buckets, -np.inf)
    np.minimum.at(lo, buckets, offsets.astype(np.float64))
    np.maximum.at(hi, buckets, offsets.astype(np.float64))
    # the end offsets stand for everything beyond them
    lo[buckets[0]] = -np.inf
    hi[buckets[-1]] = np.inf
    empty = np.isin(np.arange(num_buckets), buckets, invert=True)
    lo[empty] = np.nan
    hi[empty] = np.nan
    return lo, hi


def deberta_table_offset(relative_position, *, bucket_size: int = 256, max_position: int = 512):
    """The relative position whose embedding DeBERTa's attention actually reads.

    Parameters
    ----------
    relative_position : int or array_like of ints
        Query minus key (DeBERTa's sign).
    bucket_size, max_position : as for ``posenc.deberta_log_bucket``

    Returns
    -------
    offset : int ndarray, same shape, in ``[-bucket_size, bucket_size - 1]``
        ``clip(deberta_log_bucket(r), -bucket_size, bucket_size - 1)``: the table
        has ``2 * bucket_size`` rows (row ``offset + bucket_size``), and the bucket,
        which keeps growing past ``max_position``, is clipped to it
        (``torch.clamp(relative_pos + att_span, 0, 2 * att_span - 1)`` in the reference;
        ``posenc.deberta_scores`` does the same).

    Examples
    --------
    >>> deberta_table_offset([-40, -3, 0, 3, 40], bucket_size=8, max_position=16).tolist()
    [-8, -3, 0, 3, 7]
    """
    buckets = deberta_log_bucket(relative_position, bucket_size=bucket_size, max_position=max_position)
    return np.clip(buckets, -bucket_size, bucket_size - 1)
