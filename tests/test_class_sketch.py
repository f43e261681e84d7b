"""Drawn predictions: a sketch as a vote (classroom.sketch), how far it lies from the measured
curve, the course's sketch question, and how tables name a sketch (classroom.report)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lab import course
from posenc_lab.classroom import report, sketch
from posenc_lab.classroom.poll import Poll, Sketch
from posenc_lab.ui import compute

levels = st.lists(st.integers(0, sketch.LEVELS - 1), min_size=sketch.POINTS, max_size=sketch.POINTS)


@given(levels)
def test_a_sketch_survives_its_vote(heights):
    vote = sketch.encode(heights)
    assert len(vote) == 2 * sketch.POINTS <= 64  # fits a vote
    assert sketch.is_sketch(vote)
    np.testing.assert_array_equal(sketch.decode(vote), np.array(heights) / sketch.LEVELS)


@pytest.mark.parametrize("vote", ["", "1", "0" * 47, "0" * 49, "a" * 48, "-1" + "0" * 46, "0.5", None, 12])
def test_text_that_is_no_sketch_is_none(vote):
    assert sketch.decode(vote) is None and sketch.error(vote, np.zeros(sketch.POINTS)) is None


@pytest.mark.parametrize(
    ("heights", "match"), [([0] * 23, "24 heights"), ([100] * 24, "0 to 99"), ([True] * 24, "0 to 99")]
)
def test_encode_refuses_what_is_no_sketch(heights, match):
    with pytest.raises(ValueError, match=match):
        sketch.encode(heights)


def test_error_is_the_mean_distance_in_shares_of_the_height():
    flat = sketch.encode([50] * sketch.POINTS)
    assert sketch.error(flat, np.full(sketch.POINTS, 0.5)) == pytest.approx(0.0)
    assert sketch.error(flat, np.full(sketch.POINTS, 0.3)) == pytest.approx(0.2)
    half = np.r_[np.full(12, 0.5), np.full(12, 0.9)]
    assert sketch.error(flat, half) == pytest.approx(0.2)  # 0 on one half, 0.4 on the other


def test_the_target_is_the_curve_at_the_points_clipped_to_the_range():
    x = np.linspace(0, 10, 101)
    y = 2 * x - 5  # from -5 to 15 over a y range of 0..10
    got = sketch.target((0, 10), (0, 10), x, y)
    want = np.clip((2 * sketch.xs((0, 10)) - 5) / 10, 0, 1)
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert got[0] == 0.0 and got[-1] == 1.0
    with pytest.raises(ValueError, match="y_range must rise"):
        sketch.target((0, 1), (1, 1), x, y)


def test_the_median_of_the_class_and_of_no_one():
    votes = [sketch.encode([10] * 24), sketch.encode([30] * 24), sketch.encode([90] * 24), "not a sketch"]
    np.testing.assert_allclose(sketch.median(votes), np.full(24, 0.3))
    assert sketch.median(["7", ""]) is None


def test_tables_name_a_sketch_by_how_far_off_it_is():
    measured = np.full(sketch.POINTS, 0.5)
    assert report.sketch_words(sketch.encode([50] * 24), measured) == "a sketch 0-10% off"
    assert report.sketch_words(sketch.encode([73] * 24), measured) == "a sketch 20-30% off"
    assert report.sketch_words(sketch.encode([0] * 24), np.ones(24)) == "a sketch 90-100% off"
    column = report.QuestionColumn("q", "Q", measured=tuple(measured))
    assert column.label(sketch.encode([55] * 24)) == "a sketch 0-10% off"


# ------------------------------------------------------------------ the course's sketch question

POLL = course.COURSE.poll_by_key("poll-sinusoidal-sketch-similarity")


def test_the_sketch_question_measures_the_similarity_views_curve():
    x, y = POLL.sketch.curve()
    _, _, view_curve, _ = compute.sinusoid_similarity(101, 128, 10000.0, "interleaved", "dot", 0)
    np.testing.assert_allclose(y, view_curve)
    # PE[0] . PE[p] = sum over the 64 pairs of cos(p w_i): 64 at p = 0
    w = 10000.0 ** (-np.arange(64) / 64)
    np.testing.assert_allclose(y, np.cos(np.outer(x, w)).sum(axis=1), atol=1e-9)
    assert y[0] == pytest.approx(64.0) and POLL.sketch.y_range == (0.0, 64.0)
    assert 0 < y.min() and y.max() == y[0]  # within the drawing area: it never goes below 0
    assert POLL.view.startswith("sinusoidal?view=similarity") and "anchor=0" in POLL.view


def test_the_sketch_questions_reveal_says_what_the_curve_shows():
    x, y = POLL.sketch.curve()
    text = POLL.reveal(0.0)
    low = int(np.argmin(y))
    assert f"{y[4]:.1f} at p = 4" in text and f"{y[low]:.1f} at its lowest (p = {low})" in text
    assert y[4] < 0.8 * y[0]  # "drops fast"
    assert y[1:].max() < y[0]  # "none looks like position 0 again"


def test_a_sketch_on_the_curve_is_right_and_a_fall_to_zero_is_not():
    measured = POLL.measured()
    on_curve = sketch.encode([min(99, round(v * 100)) for v in measured])
    assert POLL.is_right_vote(on_curve) and POLL.is_right_vote(on_curve, measured=measured)
    to_zero = sketch.encode([max(0, 99 - 12 * i) for i in range(24)])  # the common guess: it dies out
    assert not POLL.is_right_vote(to_zero)
    assert not POLL.is_right_vote("42")  # a number is no sketch


def test_a_sketch_question_is_neither_numeric_nor_multiple_choice_and_its_ranges_rise():
    assert not POLL.numeric and not POLL.options
    with pytest.raises(ValueError, match="ranges must rise"):
        Sketch("x", "y", (1.0, 0.0), (0.0, 1.0), curve=lambda: ([0], [0]))
    line = Sketch("x", "y", (0.0, 1.0), (0.0, 1.0), lambda: ([0, 1], [0, 1]))
    poll = Poll("k", "p", answer=lambda: 0.0, reveal=str, tolerance=0.05, sketch=line)
    assert poll.is_right_vote(sketch.encode([round(99 * i / 23) for i in range(24)]), measured=poll.measured())
