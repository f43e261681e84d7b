"""Cached calls into posenc for the relative-positions lesson, keyed by scalars and tuples.

Random inputs (queries, keys, tables) come from ``numpy.random.default_rng(seed)``, so
a seed in the URL reproduces the same picture for every student. Results are float32
(what a figure sends) except integer offsets and buckets.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc
from posenc_lab.ui.compute import CACHE

# offsets and Shaw et al.


@st.cache_data(**CACHE)
def offsets(length: int, max_distance: int):
    """Key minus query for a square (length, length) grid, raw and clipped to +-max_distance."""
    raw = posenc.relative_positions(length)  # (T, T)
    clipped = posenc.relative_positions(length, max_distance=max_distance)  # (T, T)
    return raw, clipped


@st.cache_data(**CACHE)
def shaw_split(length: int, d_head: int, max_distance: int, seed: int):
    """Shaw et al.'s content and position parts for seeded random q, k (T, Dh) and a^K (2K+1, Dh).

    Returns (content, position, content + position), each (T, T) float32, before the
    1/sqrt(Dh) scale; the sum is taken before rounding to float32.
    """
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((length, d_head))  # (T, Dh)
    k = rng.standard_normal((length, d_head))  # (T, Dh)
    table = rng.standard_normal((2 * max_distance + 1, d_head))  # (2K+1, Dh)
    terms = posenc.shaw_scores(q, k, table)
    total = terms.content + terms.position
    return terms.content.astype(np.float32), terms.position.astype(np.float32), total.astype(np.float32)


# T5


#: regions of the T5 step plot, in the order of the codes ``t5_curve`` returns
T5_REGIONS = (
    "exact: one offset per bucket",
    "log-spaced: offsets share buckets",
    "at or past max_distance: last bucket",
    "keys ahead (decoder): bucket 0",
)


def t5_fallback_max_distance(num_buckets: int, bidirectional: bool) -> int:
    """The smallest max_distance T5 allows with these buckets (one past the exact ones)."""
    return posenc.relative.t5_max_exact(num_buckets, bidirectional) + 1


@st.cache_data(**CACHE)
def t5_curve(num_buckets: int, max_distance: int, bidirectional: bool):
    """Bucket of every offset -R..R, R = 2 max_distance.

    Returns a dict: ``rel`` (2R+1,), ``bucket`` (2R+1,), ``region`` (2R+1,) codes into
    ``T5_REGIONS`` and ``max_exact``. Raises ValueError (from posenc) for combinations
    T5 does not allow.
    """
    reach = 2 * max_distance
    rel = np.arange(-reach, reach + 1)
    bucket = posenc.t5_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    max_exact = posenc.relative.t5_max_exact(num_buckets, bidirectional)
    distance = np.abs(rel) if bidirectional else -np.minimum(rel, 0)
    region = np.select([distance < max_exact, distance < max_distance], [0, 1], 2)
    if not bidirectional:
        region[rel > 0] = 3
    return dict(rel=rel, bucket=bucket, region=region, max_exact=max_exact)


@st.cache_data(**CACHE)
def t5_range_labels(num_buckets: int, max_distance: int, bidirectional: bool) -> tuple[str, ...]:
    """For each bucket, the relative positions it holds, as text ("-11 to -8", "<= -128")."""
    lo, hi = posenc.relative.t5_bucket_ranges(num_buckets, max_distance, bidirectional=bidirectional)
    labels = []
    for a, b in zip(lo, hi, strict=True):
        if np.isnan(a):
            labels.append("(none)")
        elif np.isinf(a):
            labels.append(f"≤ {b:+.0f}")
        elif np.isinf(b):
            labels.append(f"≥ {a:+.0f}")
        elif a == b:
            labels.append(f"{a:+.0f}")
        else:
            labels.append(f"{a:+.0f} to {b:+.0f}")
    return tuple(label.replace("+0", "0") for label in labels)


@st.cache_data(**CACHE)
def t5_seeded_table(num_buckets: int, seed: int) -> tuple[float, ...]:
    """A fresh bias table, one scalar per bucket (one head), N(0, 1) rounded to 2 decimals."""
    rng = np.random.default_rng(seed)
    return tuple(float(b) for b in rng.standard_normal(num_buckets).round(2))


@st.cache_data(**CACHE)
def t5_grid(table: tuple[float, ...], length: int, bidirectional: bool, max_distance: int):
    """The bias every (query, key) pair gets, and its bucket: ((T, T) float32, (T, T) int)."""
    bias = posenc.t5_bias(np.asarray(table)[:, None], length, bidirectional=bidirectional, max_distance=max_distance)
    buckets = posenc.t5_bucket(
        posenc.relative_positions(length),
        bidirectional=bidirectional,
        num_buckets=len(table),
        max_distance=max_distance,
    )
    return bias[0].astype(np.float32), buckets


# Transformer-XL


@st.cache_data(**CACHE)
def xl_terms(length: int, d: int, seed: int, uv_scale: float, causal: bool):
    """Transformer-XL's four terms and their sum for seeded random q, k (T, D), u, v (D,).

    W_R is the identity. Returns a dict of (T, T) float32 arrays: ``a``, ``b``, ``c``,
    ``d`` and ``total``; with ``causal``, keys after the query (j > i) are NaN.
    """
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((length, d))  # (T, D)
    k = rng.standard_normal((length, d))  # (T, D)
    u = uv_scale * rng.standard_normal(d)  # (D,)
    v = uv_scale * rng.standard_normal(d)  # (D,)
    terms = posenc.transformer_xl_scores(q, k, u, v)
    out = dict(
        a=terms.content_content,
        b=terms.content_position,
        c=terms.global_content,
        d=terms.global_position,
        total=terms.total,
    )
    future = posenc.relative_positions(length) > 0  # (T, T), key after query
    for name, z in out.items():
        z = z.astype(np.float32)
        if causal:
            z[future] = np.nan
        out[name] = z
    return out


# DeBERTa


#: regions of the DeBERTa step plot, in the order of the codes ``deberta_curve`` returns
DEBERTA_REGIONS = (
    "linear: |i - j| <= k/2",
    "logarithmic: k/2 < |i - j| < max_position",
    "at or past max_position (not clamped)",
)


def deberta_fallback_max_position(bucket_size: int) -> int:
    """The smallest max_position DeBERTa's log buckets allow for this bucket_size."""
    return bucket_size // 2 + 2


@st.cache_data(**CACHE)
def deberta_curve(bucket_size: int, max_position: int):
    """Buckets over relative positions (query minus key) -R..R, R = 2 max_position.

    Returns a dict: ``rel`` (2R+1,), ``bucket`` (2R+1,), ``used`` (2R+1,) the offset read
    from the 2k-row table, ``region`` (2R+1,) codes into ``DEBERTA_REGIONS``. Raises
    ValueError (from posenc) for combinations DeBERTa does not allow.
    """
    reach = 2 * max_position
    rel = np.arange(-reach, reach + 1)
    bucket = posenc.deberta_log_bucket(rel, bucket_size=bucket_size, max_position=max_position)
    used = posenc.relative.deberta_table_offset(rel, bucket_size=bucket_size, max_position=max_position)
    distance = np.abs(rel)
    region = np.select([distance <= bucket_size // 2, distance < max_position], [0, 1], 2)
    return dict(rel=rel, bucket=bucket, used=used, region=region)


@st.cache_data(**CACHE)
def deberta_terms(length: int, d: int, seed: int, bucket_size: int, max_position: int):
    """DeBERTa's c2c, c2p, p2c for seeded random Qc, Kc (T, D) and Qr, Kr (2k, D), k = bucket_size.

    Returns (c2c, c2p, p2c), each (T, T) float32, before the 1/sqrt(3D) scale.
    """
    rng = np.random.default_rng(seed)
    q_c = rng.standard_normal((length, d))  # (T, D)
    k_c = rng.standard_normal((length, d))  # (T, D)
    q_r = rng.standard_normal((2 * bucket_size, d))  # (2k, D)
    k_r = rng.standard_normal((2 * bucket_size, d))  # (2k, D)
    terms = posenc.deberta_scores(q_c, k_c, q_r, k_r, max_position=max_position)
    return tuple(t.astype(np.float32) for t in terms)


# facts the captions quote


def _widest(rel, index):
    """The index value shared by the most offsets: (index, lo, hi, count), hi - lo + 1 == count."""
    values, counts = np.unique(index, return_counts=True)
    best = values[np.argmax(counts)]
    held = rel[index == best]
    return int(best), int(held.min()), int(held.max()), int(held.size)


@st.cache_data(**CACHE)
def t5_widest(num_buckets: int, max_distance: int, bidirectional: bool, limit: int, bounded: bool):
    """The T5 bucket holding the most offsets among |j - i| <= limit (keys at or before the query
    when not bidirectional): (bucket, lo, hi, count). ``bounded`` leaves out the two open-ended
    buckets (those of +-max_distance)."""
    rel = np.arange(-limit, (limit if bidirectional else 0) + 1)
    bucket = posenc.t5_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    if bounded:
        ends = posenc.t5_bucket(
            np.array([-max_distance, max_distance]),
            bidirectional=bidirectional,
            num_buckets=num_buckets,
            max_distance=max_distance,
        )
        keep = ~np.isin(bucket, ends)
        rel, bucket = rel[keep], bucket[keep]
    return _widest(rel, bucket) if rel.size else (0, 0, 0, 0)


@st.cache_data(**CACHE)
def deberta_widest(bucket_size: int, max_position: int, limit: int):
    """Among i - j = 1..limit, the table offset read by the most of them: (offset, lo, hi, count)."""
    rel = np.arange(1, max(limit, 1) + 1)
    used = posenc.relative.deberta_table_offset(rel, bucket_size=bucket_size, max_position=max_position)
    return _widest(rel, used)


@st.cache_data(**CACHE)
def t5_last_bucket_start(num_buckets: int, max_distance: int, bidirectional: bool) -> int:
    """The smallest distance |j - i| that lands in the last (open-ended) bucket of a side."""
    lo, hi = posenc.relative.t5_bucket_ranges(num_buckets, max_distance, bidirectional=bidirectional)
    last = posenc.t5_bucket(
        -max_distance, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    return int(-hi[int(last)])
