"""posenc.relative: which offsets share a T5 bucket, which DeBERTa row an offset reads."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc import relative as rl

# oracles


def ranges_loop(num_buckets, max_distance, bidirectional):
    """Min and max offset of each bucket over a window three times wider than max_distance;
    a bucket that reaches the window's edge is open-ended."""
    wide = 3 * max_distance
    lo, hi = [math.nan] * num_buckets, [math.nan] * num_buckets
    for r in range(-wide, wide + 1):
        b = int(posenc.t5_bucket(r, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance))
        lo[b] = r if math.isnan(lo[b]) else min(lo[b], r)
        hi[b] = r if math.isnan(hi[b]) else max(hi[b], r)
    lo = [-math.inf if v == -wide else v for v in lo]
    hi = [math.inf if v == wide else v for v in hi]
    return np.array(lo, dtype=float), np.array(hi, dtype=float)


t5_settings = st.tuples(st.booleans(), st.integers(2, 40).map(lambda n: 2 * n), st.integers(1, 60)).filter(
    lambda s: s[2] > rl.t5_max_exact(s[1], s[0])
)


# t5_max_exact


def test_t5_max_exact_known_values():
    # T5: 32 buckets, 16 per direction, half of them exact
    assert rl.t5_max_exact(32) == 8
    assert rl.t5_max_exact(32, bidirectional=False) == 16
    assert rl.t5_max_exact(4) == 1
    assert rl.t5_max_exact(18) == 4  # 9 per direction, 4 exact


@pytest.mark.parametrize(("num_buckets", "bidirectional"), [(32, True), (10, False), (128, True)])
def test_t5_max_exact_is_where_t5_bucket_stops_being_exact(num_buckets, bidirectional):
    exact = rl.t5_max_exact(num_buckets, bidirectional)
    back = posenc.t5_bucket(-np.arange(exact), bidirectional=bidirectional, num_buckets=num_buckets, max_distance=999)
    np.testing.assert_array_equal(back, np.arange(exact))
    # one past the exact range, t5_bucket accepts max_distance = exact + 1 and refuses exact
    posenc.t5_bucket(0, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=exact + 1)
    with pytest.raises(ValueError, match="max_distance"):
        posenc.t5_bucket(0, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=exact)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(num_buckets=3), "num_buckets"),
        (dict(num_buckets=1, bidirectional=False), "num_buckets"),
        (dict(num_buckets=32.0), "num_buckets"),
        (dict(num_buckets=32, bidirectional="yes"), "bidirectional"),
    ],
)
def test_t5_max_exact_refuses_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        rl.t5_max_exact(**kwargs)


# t5_bucket_ranges


def test_t5_bucket_ranges_at_t5_defaults_by_hand():
    lo, hi = rl.t5_bucket_ranges(32, 128)
    # exact: bucket b (b < 8) holds offset -b; bucket 16 + b holds +b
    np.testing.assert_array_equal(lo[:8], -np.arange(8))
    np.testing.assert_array_equal(hi[17:24], np.arange(1, 8))
    # bucket 8: distances with floor(log(d/8) / log(16) * 8) = 0, i.e. d < 8 * 16^(1/8) = 11.31
    assert (lo[8], hi[8]) == (-11, -8)
    assert (lo[24], hi[24]) == (8, 11)
    # bucket 15 starts where log(d/8) / log(16) * 8 reaches 7: d >= 8 * 16^(7/8) = 90.5
    assert (lo[15], hi[15]) == (-math.inf, -91)
    assert (lo[31], hi[31]) == (91, math.inf)
    # offset 0 is bucket 0, a key ahead is at least 1 away: bucket 16 is never used
    assert np.isnan(lo[16]) and np.isnan(hi[16])


def test_t5_bucket_ranges_decoder_puts_every_key_ahead_in_bucket_0():
    lo, hi = rl.t5_bucket_ranges(32, 128, bidirectional=False)
    assert (lo[0], hi[0]) == (0, math.inf)
    assert hi[-1] < 0 and lo[-1] == -math.inf
    assert not np.isnan(lo).any()


@given(t5_settings)
def test_t5_bucket_ranges_match_loop(setting):
    bidirectional, num_buckets, max_distance = setting
    lo, hi = rl.t5_bucket_ranges(num_buckets, max_distance, bidirectional=bidirectional)
    lo_loop, hi_loop = ranges_loop(num_buckets, max_distance, bidirectional)
    np.testing.assert_array_equal(lo, lo_loop)
    np.testing.assert_array_equal(hi, hi_loop)


@given(t5_settings, st.integers(-500, 500))
def test_every_offset_lies_in_the_range_of_its_bucket(setting, offset):
    bidirectional, num_buckets, max_distance = setting
    lo, hi = rl.t5_bucket_ranges(num_buckets, max_distance, bidirectional=bidirectional)
    b = int(posenc.t5_bucket(offset, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance))
    assert lo[b] <= offset <= hi[b]


def test_t5_bucket_ranges_refuse_what_t5_refuses():
    with pytest.raises(ValueError, match="max_distance"):
        rl.t5_bucket_ranges(128, 10)
    with pytest.raises(ValueError, match="max_distance"):
        rl.t5_bucket_ranges(32, 0)
    with pytest.raises(ValueError, match="num_buckets"):
        rl.t5_bucket_ranges(1, 10)
    with pytest.raises(ValueError, match="limit"):
        rl.t5_bucket_ranges(32, 10**9)


# deberta_table_offset


def test_deberta_table_offset_by_hand():
    # k = 8, mid = 4: |r| <= 4 exact; far offsets clip to the 16 rows, -8 .. 7
    got = rl.deberta_table_offset([-1000, -4, -1, 0, 3, 4, 1000], bucket_size=8, max_position=16)
    np.testing.assert_array_equal(got, [-8, -4, -1, 0, 3, 4, 7])


@given(st.integers(2, 64).map(lambda h: 2 * h), st.integers(0, 200), st.integers(-2000, 2000))
def test_deberta_table_offset_is_the_bucket_clipped_to_the_table(bucket_size, extra, r):
    max_position = bucket_size // 2 + 2 + extra
    bucket = int(posenc.deberta_log_bucket(r, bucket_size=bucket_size, max_position=max_position))
    got = int(rl.deberta_table_offset(r, bucket_size=bucket_size, max_position=max_position))
    assert -bucket_size <= got <= bucket_size - 1
    if -bucket_size <= bucket <= bucket_size - 1:
        assert got == bucket


@pytest.mark.parametrize(("length", "bucket_size", "max_position"), [(12, 8, 32), (20, 4, 6), (9, 16, 64)])
def test_deberta_table_offset_is_the_row_deberta_scores_reads(length, bucket_size, max_position):
    rng = np.random.default_rng(7)
    q_c, k_c = rng.standard_normal((length, 5)), rng.standard_normal((length, 5))
    q_r, k_r = rng.standard_normal((2 * bucket_size, 5)), rng.standard_normal((2 * bucket_size, 5))
    terms = posenc.deberta_scores(q_c, k_c, q_r, k_r, max_position=max_position)
    rel = np.arange(length)[:, None] - np.arange(length)[None, :]  # i - j
    row = rl.deberta_table_offset(rel, bucket_size=bucket_size, max_position=max_position) + bucket_size
    np.testing.assert_allclose(terms.c2p, np.einsum("id,ijd->ij", q_c, k_r[row]))
    np.testing.assert_allclose(terms.p2c, np.einsum("jd,ijd->ij", k_c, q_r[row]))


def test_deberta_table_offset_refuses_bad_arguments():
    with pytest.raises(ValueError, match="max_position"):
        rl.deberta_table_offset(3, bucket_size=512, max_position=10)
    with pytest.raises(ValueError, match="relative_position"):
        rl.deberta_table_offset(3.5, bucket_size=8, max_position=32)
