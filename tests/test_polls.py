"""Every lesson's class-mode questions (``Poll``), checked the same way: well formed,
answerable, right answers accepted and wrong ones refused, a reveal and a figure."""

from __future__ import annotations

import re

import plotly.graph_objects as go
import pytest

from posenc_lab import course as lessons
from posenc_lab.classroom import tally
from posenc_lab.ui.exercise_kinds import Guided

POLLS = lessons.all_polls()
IDS = [poll.key for poll in POLLS]
KEY = re.compile(r"[a-z0-9][a-z0-9_.:-]{0,63}")


def test_every_lesson_has_two_or_three_polls():
    counts = {lesson.url_path: len(lesson.polls) for lesson in lessons.LESSONS}
    assert all(2 <= n <= 3 for n in counts.values()), counts
    assert any(poll.numeric for poll in POLLS) and any(not poll.numeric for poll in POLLS)


def test_keys_are_well_formed_and_unique_across_polls_and_exercises():
    exercise_keys = set()
    for ex in lessons.all_exercises():
        exercise_keys.add(ex.key)
        if isinstance(ex, Guided):
            exercise_keys.update(step.key for step in ex.steps)
    keys = [poll.key for poll in POLLS]
    assert len(set(keys)) == len(keys)
    assert not set(keys) & exercise_keys
    assert all(KEY.fullmatch(key) for key in keys), keys


@pytest.mark.parametrize("poll", POLLS, ids=IDS)
def test_poll_is_readable_and_points_to_a_real_view(poll):
    lesson = lessons.lesson_of_poll(poll.key)
    assert poll.key.startswith(f"poll-{lesson.url_path.replace('-', '_')}-") or poll.key.startswith(
        f"poll-{lesson.url_path}-"
    ), poll.key
    assert 10 <= len(poll.prompt) <= 400
    if poll.options:
        assert 2 <= len(poll.options) <= 5
        assert all(0 < len(option) <= 60 for option in poll.options), poll.options
        assert len(set(poll.options)) == len(poll.options)
    if poll.view:
        path, _, query = poll.view.partition("?")
        assert path == lesson.url_path
        view = dict(part.split("=", 1) for part in query.split("&") if part).get("view")
        assert view is None or view in lesson.views, (poll.view, list(lesson.views))


@pytest.mark.parametrize("poll", POLLS, ids=IDS)
def test_answer_is_accepted_and_a_wrong_one_refused(poll):
    answer = float(poll.answer())
    if poll.options:
        assert answer == int(answer) and 0 <= answer < len(poll.options)
        assert poll.is_right(answer)
        for other in range(len(poll.options)):
            if other != int(answer):
                assert not poll.is_right(other)
    else:
        assert poll.low <= answer <= poll.high, (answer, poll.low, poll.high)
        assert poll.is_right(answer)
        # a vote the input allows but outside the tolerance is wrong, on either side that has room
        for far in (poll.low, poll.high):
            if abs(far - answer) > poll.tolerance:
                assert not poll.is_right(far)
        edges = tally.numeric_edges(poll.low, poll.high, poll.integer)
        assert tally.bin_of(answer, edges) is not None
        if poll.integer:
            assert answer == round(answer)


@pytest.mark.parametrize("poll", POLLS, ids=IDS)
def test_reveal_and_figure(poll):
    answer = float(poll.answer())
    text = poll.reveal(answer)
    assert isinstance(text, str) and len(text) > 40
    if poll.figure is not None:
        fig = poll.figure()
        assert isinstance(fig, go.Figure) and len(fig.data) >= 1
        assert fig.layout.title.text
