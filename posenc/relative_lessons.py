"""Helpers for the relative-positions lesson: which offsets share a T5 bucket, and which
DeBERTa table row an offset reads.

- T5: Raffel et al. 2019, arXiv:1910.10683; reference ``T5Attention._relative_position_bucket``.
- DeBERTa: He et al. 2020, arXiv:2006.03654; reference ``DisentangledSelfAttention`` in
  transformers' ``modeling_deberta_v2``.

Conventions as in ``posenc.relative``: T5's relative position is key minus query
(``j - i``), DeBERTa's is query minus key (``i - j``).
"""

from __future__ import annotations

import numpy as np

from ._checks import as_int, check_budget
from .relative import deberta_log_bucket, t5_bucket

__all__ = ["deberta_table_offset", "t5_bucket_ranges", "t5_max_exact"]


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
