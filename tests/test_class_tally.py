"""Counting votes (classroom.tally) and drawing them (classroom.figures)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lab.classroom import figures as vote_figures
from posenc_lab.classroom import tally


def test_choice_counts_ignore_what_is_not_an_option():
    votes = ["0", "2", "2", "1", "7", "-1", "x", "", "2"]
    assert tally.choice_counts(votes, 3) == [1, 1, 3]


def test_integer_polls_get_one_bin_per_whole_number_when_few():
    edges = tally.numeric_edges(1, 12, integer=True, bins=12)
    assert tally.numeric_labels(edges, integer=True) == [str(n) for n in range(1, 13)]
    assert tally.numeric_counts(["1", "12", "12", "5", "13", "0"], edges) == [1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2]


def test_wide_ranges_get_equal_bins_that_hold_both_ends():
    edges = tally.numeric_edges(0.0, 1.0)
    assert len(edges) == tally.NUMERIC_BINS + 1
    assert edges[0] == 0.0 and edges[-1] == 1.0
    counts = tally.numeric_counts(["0", "0.1", "0.95", "1", "1.01", "nan", "inf"], edges)
    assert counts[0] == 1 and counts[1] == 1 and counts[-1] == 2 and sum(counts) == 4
    assert tally.numeric_labels(edges)[0] == "0 to 0.1"


@given(st.lists(st.floats(min_value=-5, max_value=5, allow_nan=False), max_size=60))
def test_every_vote_in_range_is_counted_once(values):
    edges = tally.numeric_edges(-5.0, 5.0)
    counts = tally.numeric_counts([tally.encode_number(v) for v in values], edges)
    assert sum(counts) == len(values)
    for v in values:
        assert tally.bin_of(float(tally.encode_number(v)), edges) is not None


def test_bin_of_matches_numeric_counts():
    edges = tally.numeric_edges(0, 100)
    assert tally.bin_of(10.0, edges) == 1  # a bin holds its left edge
    assert tally.bin_of(100.0, edges) == 9  # the last also its right edge
    assert tally.bin_of(100.5, edges) is None


def test_encoding_and_labels():
    assert tally.encode_choice(3) == "3"
    assert tally.encode_number(4.0, integer=True) == "4"
    assert tally.encode_number(0.123456789) == "0.123457"
    assert tally.vote_label("1", ("yes", "no")) == "no"
    assert tally.vote_label("0.25", unit="%") == "0.25 %"
    with pytest.raises(ValueError, match="finite"):
        tally.encode_number(math.inf)
    with pytest.raises(ValueError, match="low < high"):
        tally.numeric_edges(2, 2)


def test_vote_bars_draw_every_round_and_mark_the_right_answer():
    fig = vote_figures.vote_bars(
        ["sinusoidal", "ALiBi", "RoPE"], [("round 1", [5, 2, 1]), ("round 2", [1, 6, 1])], title="Votes", right=1
    )
    assert [t.name for t in fig.data] == ["round 1", "round 2"]
    assert list(fig.data[1].x) == [1, 6, 1]
    assert fig.data[0].y[1] == "ALiBi" + vote_figures.RIGHT
    assert fig.data[0].y[0] == "sinusoidal"
    assert list(fig.data[1].marker.line.width) == [0, vote_figures.RIGHT_OUTLINE_PX, 0]
    assert fig.layout.xaxis.range[1] >= 6  # the longest bar and its count fit
    assert fig.layout.showlegend is True
    one = vote_figures.vote_bars(["a", "b"], [("round 1", [0, 0])], title="Votes")
    assert one.layout.showlegend is False and all(not y.endswith(vote_figures.RIGHT) for y in one.data[0].y)


def test_vote_bars_refuse_mismatched_counts():
    with pytest.raises(ValueError, match="3 labels"):
        vote_figures.vote_bars(["a", "b", "c"], [("round 1", [1, 2])], title="Votes")
    with pytest.raises(ValueError, match="at least one round"):
        vote_figures.vote_bars(["a"], [], title="Votes")


# ------------------------------------------------------------------ the bins once revealed


def _close(value: float, answer: float, tolerance: float) -> bool:
    return abs(value - answer) <= tolerance


@given(
    low=st.integers(-1000, 1000),
    span=st.integers(1, 2000),
    at=st.floats(0, 1),
    tolerance=st.sampled_from([0, 0.5, 1, 2, 3, 10, 40, 5000]),
    votes=st.lists(st.floats(0, 1), max_size=40),
    bins=st.integers(2, 12),
)
def test_the_revealed_right_bin_holds_every_right_whole_number_and_nothing_else(low, span, at, tolerance, votes, bins):
    high = low + span
    answer = round(low + at * span)
    edges, right = tally.revealed_edges(low, high, answer, tolerance, integer=True, bins=bins)
    assert all(a < b for a, b in zip(edges, edges[1:], strict=False)) and len(edges) - 1 <= max(bins, 3)
    assert edges[0] == low - 0.5 and edges[-1] == high + 0.5
    # whole numbers only: every edge half-way between two
    assert all(abs(e - math.floor(e) - 0.5) < 1e-9 for e in edges)
    values = [round(low + v * span) for v in votes]
    counts = tally.revealed_counts([str(v) for v in values], edges, right, lambda v: _close(v, answer, tolerance))
    assert sum(counts) == len(values)
    assert counts[right] == sum(_close(v, answer, tolerance) for v in values)
    # the right bin's label names its first and last whole number, both right
    label = tally.revealed_labels(edges, integer=True)[right]
    first, _, last = label.partition(" to ")
    assert _close(float(first), answer, tolerance) and _close(float(last or first), answer, tolerance)


@given(
    low=st.floats(-100, 100),
    span=st.floats(0.01, 500),
    at=st.floats(0, 1),
    share=st.floats(0, 0.6),
    votes=st.lists(st.floats(0, 1), max_size=40),
)
def test_the_revealed_right_bin_of_a_measured_answer_holds_exactly_the_right_votes(low, span, at, share, votes):
    high = low + span
    answer, tolerance = low + at * span, share * span
    edges, right = tally.revealed_edges(low, high, answer, tolerance)
    assert all(a < b for a, b in zip(edges, edges[1:], strict=False))
    assert edges[0] == low and edges[-1] == high
    values = [low + v * span for v in votes] + [answer, max(low, answer - tolerance), min(high, answer + tolerance)]
    counts = tally.revealed_counts([repr(v) for v in values], edges, right, lambda v: _close(v, answer, tolerance))
    assert sum(counts) == len(values)
    assert counts[right] == sum(_close(v, answer, tolerance) for v in values)


def test_a_revealed_whole_number_poll_names_its_right_bin_by_the_right_answers():
    """The sinusoid's full turns (0 to 256, the answer 123 within 10): before, the bin of
    102.4 to 128 was marked right, holding wrong answers and missing 129 to 133."""
    edges, right = tally.revealed_edges(0, 256, 123, 10, integer=True)
    labels = tally.revealed_labels(edges, integer=True)
    assert labels[right] == "113 to 133"
    assert labels[0].startswith("0 to ") and labels[-1].endswith(" to 256") and len(labels) == tally.NUMERIC_BINS
    counts = tally.revealed_counts(["112", "113", "129", "133", "134"], edges, right, lambda v: _close(v, 123, 10))
    assert counts[right] == 3 and counts[right - 1] == 1 and counts[right + 1] == 1
    # a whole number at a time when there are few
    edges, right = tally.revealed_edges(0, 8, 4, 0, integer=True)
    assert tally.revealed_labels(edges, integer=True) == [str(n) for n in range(9)] and right == 4


def _check_named(low, high, answer, tolerance, named, values, integer, bins):
    """``named_edges`` and ``revealed_counts``: every vote in range in exactly one bin, the
    right bin exactly the right votes, each named bin exactly the wrong votes within the
    tolerance of its values, and every wrong vote near a named value in range in one."""
    edges, right, held = tally.named_edges(low, high, answer, tolerance, integer, bins, named)
    assert all(a < b for a, b in zip(edges, edges[1:], strict=False))
    assert (edges[0], edges[-1]) == ((low - 0.5, high + 0.5) if integer else (low, high))
    assert right not in held and all(0 <= at < len(edges) - 1 for at in held)
    assert len({k for ks in held.values() for k in ks}) == sum(len(ks) for ks in held.values())
    is_right = lambda v: _close(v, answer, tolerance)  # noqa: E731
    near = {at: [named[k] for k in ks] for at, ks in held.items()}
    takes = {at: (lambda v, ms=ms: any(_close(v, m, tolerance) for m in ms)) for at, ms in near.items()}
    counts = tally.revealed_counts([repr(v) for v in values], edges, right, is_right, takes)
    assert sum(counts) == len(values)
    assert counts[right] == sum(map(is_right, values))
    for at, ms in near.items():
        assert counts[at] == sum(not is_right(v) and any(_close(v, m, tolerance) for m in ms) for v in values)
    inside = [m for m in named if low <= m <= high]
    wrong_near = sum(not is_right(v) and any(_close(v, m, tolerance) for m in inside) for v in values)
    assert sum(counts[at] for at in held) == wrong_near
    # a named value the right bin does not swallow has a bin, and its label is a range or number
    for k, m in enumerate(named):
        if low <= m <= high and not is_right(m):
            assert any(k in ks for ks in held.values()), (k, m, held)
    return edges, right, held


@given(
    low=st.integers(-300, 300),
    span=st.integers(1, 600),
    at=st.floats(0, 1),
    tolerance=st.sampled_from([0, 0.5, 1, 2, 3, 10, 40]),
    named=st.lists(st.floats(-0.1, 1.1), max_size=4),
    votes=st.lists(st.floats(0, 1), max_size=40),
    bins=st.integers(2, 12),
)
def test_named_bins_of_whole_numbers_hold_exactly_their_wrong_votes(low, span, at, tolerance, named, votes, bins):
    high = low + span
    answer = round(low + at * span)
    named = [round(low + m * span) for m in named]
    values = [round(low + v * span) for v in votes] + [m for m in named if low <= m <= high]
    edges, _, _ = _check_named(low, high, answer, tolerance, named, values, True, bins)
    assert all(abs(e - math.floor(e) - 0.5) < 1e-9 for e in edges)


@given(
    low=st.floats(-100, 100),
    span=st.floats(0.01, 500),
    at=st.floats(0, 1),
    share=st.floats(0, 0.3),
    named=st.lists(st.floats(-0.1, 1.1), max_size=4),
    votes=st.lists(st.floats(0, 1), max_size=40),
)
def test_named_bins_of_measured_numbers_hold_exactly_their_wrong_votes(low, span, at, share, named, votes):
    high = low + span
    answer, tolerance = low + at * span, share * span
    # misconceptions as the polls' rules have them: wrong, by more than a hair (a bin as
    # narrow as an exact answer's, 1e-9 wide, cannot sit between the answer and one closer)
    named = [low + m * span for m in named if abs(low + m * span - answer) > tolerance + 1e-6 * span]
    edges = [m + d for m in named for d in (-tolerance, tolerance)]
    values = [low + v * span for v in votes] + [v for v in [*named, *edges] if low <= v <= high]
    _check_named(low, high, answer, tolerance, named, values, False, tally.NUMERIC_BINS)


def test_the_sinusoids_misconceptions_get_bins_of_their_own():
    """123 within 10 right; 256 (every pair), 142 (half a wave) and 174 (no 2π) named: "how
    many said 256?" is one bar, and 134 to 152 stops where the right bin starts."""
    edges, right, held = tally.named_edges(0, 256, 123, 10, integer=True, named=[256, 142, 174])
    labels = tally.revealed_labels(edges, integer=True)
    assert labels[right] == "113 to 133" and len(labels) == tally.NUMERIC_BINS
    assert {labels[at]: ks for at, ks in held.items()} == {"246 to 256": (0,), "134 to 152": (1,), "164 to 184": (2,)}
    # two misconceptions that overlap share a bin, named by both
    edges, right, held = tally.named_edges(0, 256, 123, 10, integer=True, named=[200, 210])
    assert list(held.values()) == [(0, 1)] and tally.revealed_labels(edges, True)[next(iter(held))] == "190 to 220"
    # without misconceptions: revealed_edges as before
    assert tally.named_edges(0, 256, 123, 10, integer=True)[:2] == tally.revealed_edges(0, 256, 123, 10, integer=True)


def test_the_teachers_histogram_once_revealed_counts_the_right_answers_in_the_right_bar():
    from posenc_lab import course as lessons
    from posenc_lab.classroom import views as class_views

    poll = next(p for p in lessons.all_polls() if p.key == "poll-sinusoidal-full-turns")
    answer = poll.answer()
    votes = [str(round(answer) + d) for d in (-11, -10, 0, 6, 10, 11, 40)]
    fig = class_views.vote_figure(lessons.COURSE, poll, [("round 1", votes)], revealed=True)
    (bars,) = fig.data
    marked = [i for i, label in enumerate(bars.y) if label.endswith(vote_figures.RIGHT)]
    assert len(marked) == 1 and bars.x[marked[0]] == 4  # -10, 0, 6 and 10 are right
    assert sum(bars.x) == len(votes)
    # before the reveal: even bins, none marked
    before = class_views.vote_figure(lessons.COURSE, poll, [("round 1", votes)], revealed=False)
    assert not any(label.endswith(vote_figures.RIGHT) for label in before.data[0].y)


# ------------------------------------------------------------------ a vote's timer, who answered


def test_seconds_left_rounds_up_and_stops_at_zero():
    assert tally.seconds_left(None, 100.0) is None
    assert tally.seconds_left(130.0, 100.0) == 30
    assert tally.seconds_left(130.0, 100.2) == 30, "29.8 s left reads 0:30"
    assert tally.seconds_left(130.0, 129.01) == 1
    assert tally.seconds_left(130.0, 130.0) == 0
    assert tally.seconds_left(130.0, 500.0) == 0


def test_countdown_words_and_timer_labels():
    assert tally.countdown_words(None) == ""
    assert tally.countdown_words(0) == "Time is up"
    assert tally.countdown_words(9) == "0:09 left"
    assert tally.countdown_words(90) == "1:30 left"
    assert [tally.timer_label(s) for s in (30, 60, 120, 90, 5)] == ["30 s", "1 min", "2 min", "1 min 30 s", "5 s"]


def test_who_answered_splits_the_class_keeping_its_order():
    answered, waiting = tally.who_answered([("Ann", "1"), ("Bo", None), ("Cy", "0"), ("Di", None)])
    assert answered == [("Ann", "1"), ("Cy", "0")] and waiting == ["Bo", "Di"]
    assert tally.who_answered([]) == ([], [])


def test_distinct_names_tell_two_students_of_one_name_apart():
    rows = [("abcd1234", "Kim"), ("efgh5678", "Kim"), ("ijkl9012", "Zoë")]
    assert tally.distinct_names(rows) == ["Kim (abcd)", "Kim (efgh)", "Zoë"]


def test_the_room_screens_charts_have_text_half_as_large_again():
    """``room_sized``: every text of a votes chart 1.5 times a page's (ticks, titles, the
    counts on the bars, the legend), its height by half as much, the page's figure untouched."""
    fig = vote_figures.vote_bars(["a", "b"], [("round 1", [3, 1]), ("round 2", [1, 3])], title="Votes")
    room = vote_figures.room_sized(fig)
    scale = vote_figures.ROOM_TEXT_SCALE
    assert room.layout.font.size == round(fig.layout.font.size * scale)
    assert room.layout.title.font.size == round(fig.layout.title.font.size * scale)
    assert room.layout.yaxis.tickfont.size == round(fig.layout.font.size * scale) >= 21
    assert room.layout.xaxis.title.font.size == round(fig.layout.font.size * scale)
    assert all(t.textfont.size == round(fig.layout.font.size * scale) for t in room.data)
    assert (
        room.layout.height == round(fig.layout.height * (1 + (scale - 1) / 2))
        and fig.layout.yaxis.tickfont.size is None
    )
