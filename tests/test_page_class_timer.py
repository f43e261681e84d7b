"""A vote's timer and who has answered, under AppTest on SQLite and PostgreSQL: the teacher
sets a timer (30 s, 1 min, 2 min, or their own number of seconds), the teacher's screen,
each student's and the room screen count it down, and at zero whichever page checks first
closes the vote; the teacher sees who has answered, by name and with their answer, and who
has not; presenter mode and the room screen never show a name.

Time passes by moving the page's store's clock (``Store._clock``), never by sleeping."""

from __future__ import annotations

import re
import time

import pytest
from app_helpers import button, class_texts, continue_teaching, join_class, open_page, start_class
from app_helpers import fresh_class_pages as _fresh

from posenc_lab import course as lessons
from posenc_lab.classroom import room, session
from posenc_lab.classroom import views as class_views

PAGE = lessons.CLASS.path
CHOICE = next(poll for poll in lessons.all_polls() if len(poll.options) >= 3)
#: a name that would draw bold text if it were taken as Markdown
LOUD = "Bo **Loud**"


def _everything(at) -> str:
    """Every element the page holds, as its protos say it: what the browser is sent."""
    return "\n".join(str(getattr(node, "proto", "")) for node in at._tree)


def _later(monkeypatch, seconds: float):
    """The app's class database ``seconds`` in the future (its clock moved, nothing slept)."""
    db = session.database()
    monkeypatch.setattr(db, "_clock", lambda: time.time() + seconds)
    return db


def _who(at):
    """The teacher's table of who answered, as (student, answer) rows, or None when not drawn."""
    for frame in at.dataframe:
        if list(frame.value.columns) == ["student", "answer"]:
            return [tuple(row) for row in frame.value.itertuples(index=False)]
    return None


def test_a_30_s_timer_counts_down_everywhere_and_closes_the_vote_at_zero(db_url, monkeypatch):
    teacher, code, key = start_class("Timers")
    ada, bo = join_class(code, "Ada"), join_class(code, LOUD)
    screen = open_page(PAGE, {"room": code, "present": "1"})
    teacher.selectbox(key="class_poll").set_value(CHOICE.key).run()
    assert not any(b.label == "30 s" for b in teacher.button), "no timer before a vote is open"
    button(teacher, "Open the vote").click().run()
    assert [b.label for b in teacher.button if b.label in ("30 s", "1 min", "2 min")] == ["30 s", "1 min", "2 min"]
    assert not any(b.label == "No timer" for b in teacher.button)

    button(teacher, "30 s").click().run()
    assert not teacher.exception
    db = session.database()
    current = db.current_round(code)
    assert current.deadline is not None and 29 <= current.deadline - time.time() <= 30.5
    assert re.search(r"\*\*0:(30|29|28) left\*\*", class_texts(teacher)), "the teacher's countdown"
    assert any(b.label == "No timer" for b in teacher.button)

    _fresh(ada, bo, screen)
    student_timer = ada.get_by_key("class_student_timer")
    assert re.search(r"0:(30|29|28) left", student_timer.markdown[0].value), "the student's countdown"
    assert re.search(r"0:(30|29|28) left", screen.get_by_key("room_clock").markdown[0].value), "the room's"

    # Ada answers; the teacher sees who has and who has not, by name, with the answer
    ada.radio[0].set_value(int(CHOICE.answer()))
    button(ada, "Send my answer").click().run()
    assert not ada.exception
    _fresh(teacher)
    texts = class_texts(teacher)
    assert f"**Not answered yet (1):** {session.plain(LOUD)}" in texts, "the name escaped, never Markdown"
    assert _who(teacher) == [("Ada", CHOICE.options[int(CHOICE.answer())])]
    assert "Answered (1)" in texts

    # presenter mode and the room screen never show a name
    projected = continue_teaching(code, key, {"present": "1"})
    assert not projected.exception
    assert _who(projected) is None and "Not answered yet" not in class_texts(projected)
    assert re.search(r"0:[0-3]\d left", class_texts(projected)), "the countdown is for the room too"
    _fresh(screen)
    for name in ("Ada", "Loud"):
        assert name not in _everything(screen)

    # 31 s later the teacher's check closes the vote, as of its deadline
    bo.run()  # Bo's form is on the screen; he presses after the deadline
    db = _later(monkeypatch, 31)
    _fresh(teacher)
    closed = db.current_round(code)
    assert closed.closed == closed.deadline, "closed by the timer"
    assert "round 1 (closed)" in class_texts(teacher)
    assert not any(b.label == "30 s" for b in teacher.button), "no timer on a closed vote"
    assert not class_texts(teacher).count("left**")
    assert _who(teacher) == [("Ada", CHOICE.options[int(CHOICE.answer())])], "still shown once closed"

    bo.radio[0].set_value(0)
    button(bo, "Send my answer").click().run()
    assert not bo.exception
    assert "was not counted" in class_texts(bo)
    assert len(db.votes(closed.id)) == 1

    _fresh(ada, screen)
    assert "Voting is closed" in class_texts(ada)
    assert ada.get_by_key("class_student_timer").markdown[0].value == "", "an empty line in the timer's place"
    assert [c.key for c in screen.get("plotly_chart")] == ["room_votes"], "the room shows the votes"
    for name in ("Ada", "Loud"):
        assert name not in _everything(screen)


def test_the_room_screen_closes_a_vote_whose_time_ran_out(db_url, monkeypatch):
    teacher, code, key = start_class()
    join_class(code, "Ada")
    screen = open_page(PAGE, {"room": code, "present": "1"})
    teacher.selectbox(key="class_poll").set_value(CHOICE.key).run()
    button(teacher, "Open the vote").click().run()
    button(teacher, "1 min").click().run()
    _fresh(screen)
    assert re.search(r"[01]:\d\d left", screen.get_by_key("room_clock").markdown[0].value)
    db = _later(monkeypatch, 61)
    _fresh(screen)  # the room screen checks first
    current = db.current_round(code)
    assert current.closed == current.deadline
    assert "voting closed" in class_texts(screen)
    for name in room.PLACES:
        screen.get_by_key(f"room_{name}")


@pytest.mark.parametrize(("typed", "seconds"), [(45, 45), (3, None), (601, None)])
def test_a_custom_timer_is_5_to_600_seconds_and_no_timer_takes_it_away(db_url, typed, seconds):
    teacher, code, key = start_class()
    teacher.selectbox(key="class_poll").set_value(CHOICE.key).run()
    button(teacher, "Open the vote").click().run()
    teacher.number_input(key=class_views.TIMER_SECONDS).set_value(typed)
    button(teacher, "Start the timer").click().run()
    assert not teacher.exception
    deadline = session.database().current_round(code).deadline
    if seconds is None:
        assert deadline is None
        assert "No timer set. A timer runs from 5 seconds to 10 minutes (600 seconds)." in [
            e.value for e in teacher.error
        ]
        return
    assert seconds - 1 <= deadline - time.time() <= seconds + 0.5
    button(teacher, "No timer").click().run()
    assert session.database().current_round(code).deadline is None
    assert not any(b.label == "No timer" for b in teacher.button)


def test_a_timer_chosen_beside_open_the_vote_starts_with_the_vote(db_url):
    """The timer picked beside Open the vote starts with it (and with Vote again); "No timer"
    opens one without."""
    teacher, code, key = start_class()
    teacher.selectbox(key="class_poll").set_value(CHOICE.key).run()
    assert teacher.selectbox(key=class_views.OPEN_TIMER).value == 0, "no timer unless chosen"
    teacher.selectbox(key=class_views.OPEN_TIMER).set_value(60).run()
    button(teacher, "Open the vote").click().run()
    assert not teacher.exception
    db = session.database()
    first = db.current_round(code)
    assert first.deadline is not None and 59 <= first.deadline - first.opened <= 60.5
    assert re.search(r"\*\*(1:00|0:5\d) left\*\*", class_texts(teacher))
    button(teacher, "Close the vote").click().run()
    teacher.selectbox(key=class_views.OPEN_TIMER).set_value(0).run()
    button(teacher, "Vote again").click().run()
    second = db.current_round(code)
    assert second.number == 2 and second.deadline is None
