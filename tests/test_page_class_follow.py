"""Follow me under AppTest, on SQLite and PostgreSQL: the teacher sends the class to a view
with its settings, a student's page follows at its next check, a student who steps away
is told where the class is and goes back with one button, a held class brings them back,
and the teacher's roster says where each page is. (The same in Chromium, a teacher and three
students at once: tests/test_browser_class.py.)"""

from __future__ import annotations

import pytest
from app_helpers import button, class_texts, join_class, start_class

from posenc_lab import course
from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import session as classroom
from posenc_lab.classroom import store as class_store

ROPE = next(lesson for lesson in course.LESSONS if lesson.url_path == "rope")
ALIBI = next(lesson for lesson in course.LESSONS if lesson.url_path == "alibi")


def _teacher_on(at, lesson, query: dict[str, str]):
    """The teacher's session opens ``lesson`` with ``query`` (as a link in the teacher's tab)."""
    at.switch_page(lesson.path)
    at.query_params.clear()
    at.query_params.update(query)
    at.run()
    assert not at.exception
    return at


def _address(at) -> dict[str, str]:
    return {k: v for k, v in at.query_params.items() if k not in class_follow.NOT_SETTINGS}


def _check(at, goes_to=None):
    """A student's page at its next check (the banner's fragment, run with the page). With
    ``goes_to`` (a lesson), the check must take the page there; AppTest is then told the page
    it is on, as a browser's address bar is (``st.switch_page`` inside a run does not change
    the page AppTest runs next)."""
    class_follow._follow_state.clear()  # the half-second cache: a real page sees it at its next check
    at.run()
    assert not at.exception
    if goes_to is not None:
        assert at.title[0].value.startswith(goes_to.title), "the page the check went to"
        at.switch_page(goes_to.path)
    return at


def test_the_class_follows_the_teacher_to_a_view_with_its_settings(db_url):
    teacher, code, key = start_class()
    student = join_class(code, "Ada")
    me = student.session_state[classroom.MEMBER]
    _teacher_on(teacher, ROPE, {"view": "rotation", "gap": "7"})
    bar = teacher.get_by_key("teacher_bar")
    assert [b.label for b in bar.button] == ["Send the class here", "Practise here"]
    assert "not sent anywhere yet" in " ".join(c.value for c in bar.caption)
    button(teacher, "Send the class here").click().run()
    assert not teacher.exception
    with class_store.open_store(db_url) as db:
        follow = db.follow(code)
    sent = _address(teacher)
    assert sent["view"] == "rotation" and sent["gap"] == "7"
    # every setting of the view, as the teacher's address bar holds them
    assert follow.seq == 1
    assert follow.address == "rope?" + "&".join(f"{k}={v}" for k, v in sorted(sent.items())).replace(",", "%2C")
    assert "is on this view" in " ".join(c.value for c in teacher.get_by_key("teacher_bar").caption)

    # the student waits on the class page: the next check takes the page there
    _check(student, goes_to=ROPE)
    assert _address(student) == sent
    assert student.slider(key="w:gap").value == 7
    # the class link stays in the address: a reload is the same student
    assert (student.query_params["class"], student.query_params["student"]) in ((code, me.student_id),)

    # the roster says where the page is, and that it is with the class
    with class_store.open_store(db_url) as db:
        place = db.roster(code, key)[0]
    assert (place.nickname, place.place) == ("Ada", follow.address)
    exercises = class_follow.exercise_keys(course.COURSE)
    rows = class_follow.roster_rows(course.COURSE, [place], follow.address, place.seen + 3, exercises)
    assert rows == [
        {
            "student": "Ada",
            "hand": "",
            "where": classroom.plain("5. RoPE · Rotation (with the class)"),
            "last seen": "3 s ago",
            "exercises solved": f"0 of {len(course.COURSE.all_exercises())}",
            "mastery": "",  # no practice on a variant exercise yet
        }
    ]


def test_a_student_raises_a_hand_the_teacher_sees_it_and_lowers_it(db_url):
    teacher, code, key = start_class()
    student = join_class(code, "Di")
    _teacher_on(teacher, ROPE, {"view": "rotation"})
    student.switch_page(ROPE.path)
    student.run()
    student.toggle(key=class_follow.HAND).set_value(True).run()  # on a lesson: in the side panel
    assert not student.exception
    assert any(t.key == class_follow.HAND for t in student.sidebar.toggle)
    teacher.run()
    assert "1 hand up" in " ".join(c.value for c in teacher.get_by_key("teacher_bar").caption)
    with class_store.open_store(db_url) as db:
        roster = db.roster(code, key)
    rows = class_follow.roster_rows(course.COURSE, roster, "", roster[0].hand + 40)
    assert rows[0]["hand"] == "raised 40 s ago"
    # on to the class page: its switch is up, as the roster has it (it was drawn off: Streamlit
    # drops a widget's value when a page switch draws it elsewhere), and back on the lesson too
    student.switch_page(course.CLASS.path).run()
    assert student.toggle(key=class_follow.HAND).value is True
    student.switch_page(ROPE.path).run()
    assert student.toggle(key=class_follow.HAND).value is True
    # the teacher lowers every hand on the class page; the student's switch follows at its next check
    teacher.switch_page(course.CLASS.path)
    teacher.query_params.clear()
    teacher.run()
    button(teacher, "Lower all hands").click().run()
    assert not teacher.exception
    student.session_state[class_follow.HAND_CHECKED] = 0.0  # the next check is due
    student.run()
    assert student.toggle(key=class_follow.HAND).value is False
    # a guided proof counts once all its steps are solved, as the student's own count has it
    guided = next(ex for ex in course.COURSE.all_exercises() if hasattr(ex, "steps"))
    place = class_store.Place("x", "x", "", None, solved=frozenset({guided.steps[0].key}))
    only_a_step = class_follow.roster_rows(course.COURSE, [place], "", 0.0, class_follow.exercise_keys(course.COURSE))
    assert only_a_step[0]["exercises solved"].startswith("0 of ")
    place = class_store.Place("x", "x", "", None, solved=frozenset(step.key for step in guided.steps))
    done = class_follow.roster_rows(course.COURSE, [place], "", 0.0, class_follow.exercise_keys(course.COURSE))
    assert done[0]["exercises solved"].startswith("1 of ")


def test_a_student_steps_away_and_comes_back_with_one_button_and_a_held_class_brings_them_back(db_url):
    teacher, code, key = start_class()
    student = join_class(code, "Bo")
    _teacher_on(teacher, ROPE, {"view": "rotation", "gap": "7"})
    button(teacher, "Send the class here").click().run()
    _check(student, goes_to=ROPE)
    assert student.slider(key="w:gap").value == 7

    # the student explores: their own value, and the page says where the class is
    student.slider(key="w:gap").set_value(20).run()
    _check(student)
    assert student.slider(key="w:gap").value == 20, "a student exploring is not pulled back"
    button(student, "Back to your class: 5. RoPE · Rotation").click().run()
    assert not student.exception
    assert student.slider(key="w:gap").value == 7, "back at the class's settings, not the kept 20"
    student.switch_page(ROPE.path)

    # the teacher sends again from another lesson: everyone goes, explorers included
    _teacher_on(teacher, ALIBI, {"view": "slopes"})
    button(teacher, "Send the class here").click().run()
    _check(student, goes_to=ALIBI)
    assert _address(student).get("view") == "slopes"

    # held: a student who steps away is brought back at the next check
    teacher.toggle(key=class_follow.HOLD).set_value(True).run()
    assert not teacher.exception
    with class_store.open_store(db_url) as db:
        assert db.follow(code).held
    student.switch_page(ROPE.path)  # the student opens RoPE from the menu
    _check(student, goes_to=ALIBI)
    assert _address(student).get("view") == "slopes", "held: back on the class's view"
    _check(student)
    held = "Your teacher is holding the class on " + classroom.plain("7. ALiBi and KERPLE · Slopes and biases") + "."
    assert held in class_texts(student), "held: the student is told, not only brought back"
    teacher.toggle(key=class_follow.HOLD).set_value(False).run()
    _check(student)
    assert held not in class_texts(student), "let go: the note goes"
    student.switch_page(ROPE.path)
    _check(student, goes_to=ROPE)
    assert button(student, "Back to your class: 7. ALiBi and KERPLE · Slopes and biases"), "let go: they may explore"


def test_a_held_class_follows_the_teachers_own_moves_but_a_page_left_standing_never_pulls_it_back(db_url):
    """Issue 49, 1.4: one Next moved the class two steps. With the class held, a teacher page
    left standing on a view (the projector, a second laptop) sent the class back to its own
    view at its next check whenever the plan's Next or another device had sent it on."""
    standing, code, key = start_class()
    _teacher_on(standing, ROPE, {"view": "rotation", "gap": "7"})
    button(standing, "Send the class here").click().run()
    standing.toggle(key=class_follow.HOLD).set_value(True).run()
    with class_store.open_store(db_url) as db:
        assert db.follow(code).held
        # the teacher's other device sends the class on (as a plan's Next does)
        db.send_class(code, key, "alibi?view=slopes")
        seq = db.follow(code).seq
    class_follow._follow_state.clear()
    standing.run()  # the standing page's next check
    assert not standing.exception
    with class_store.open_store(db_url) as db:
        follow = db.follow(code)
    assert (follow.seq, follow.address) == (seq, "alibi?view=slopes"), "a page left standing sent the class back"
    # a move the teacher makes on that page goes to the held class, as it happens
    standing.slider(key="w:gap").set_value(9).run()
    assert not standing.exception
    with class_store.open_store(db_url) as db:
        follow = db.follow(code)
    assert follow.seq == seq + 1 and follow.address.startswith("rope?") and "gap=9" in follow.address


def test_a_check_cut_short_before_its_page_switch_goes_at_the_next_check(db_url):
    """Issue 49: the check records a send as followed, then switches pages. A rerun that cuts
    it short between the two (a press on the page, the hand check) left the student where
    they were with the send counted: "Go to your class" instead of following. The next check
    goes; once the page has arrived, a step back by hand is the student's own."""
    import time

    teacher, code, _ = start_class()
    student = join_class(code, "Eve")
    _teacher_on(teacher, ROPE, {"view": "rotation", "gap": "7"})
    button(teacher, "Send the class here").click().run()
    with class_store.open_store(db_url) as db:
        seq = db.follow(code).seq
    # as a check cut short leaves the session: the send counted, the page still on /class
    student.session_state[class_follow.FOLLOWED] = (code, seq)
    student.session_state[class_follow.GOING] = (code, seq, course.CLASS.url_path, time.monotonic())
    _check(student, goes_to=ROPE)
    assert _address(student).get("gap") == "7"
    _check(student)  # arrived: the check on the lesson sees it is with the class
    student.switch_page(course.CLASS.path)  # the student steps back on their own
    _check(student)
    assert student.title[0].value.startswith(course.CLASS.title), "a step back by hand is not undone"
    assert button(student, "Go to your class: 5. RoPE · Rotation")


def test_the_teacher_bar_is_for_the_teacher_alone_and_never_shows_the_key(db_url):
    teacher, code, key = start_class()
    student = join_class(code, "Cy")
    _teacher_on(teacher, ROPE, {"view": "rotation"})
    texts = " ".join(str(el.value) for el in teacher.get_by_key("teacher_bar").caption)
    assert code in texts and key not in texts
    student.switch_page(ROPE.path)
    student.run()
    assert not student.exception
    with pytest.raises(KeyError):
        student.get_by_key("teacher_bar")


@pytest.mark.parametrize(
    ("place", "sent", "on"),
    [
        ("rope?gap=7&view=rotation", "rope?gap=7&view=rotation", True),
        # a page writes every setting; a plan's or a pasted address names some
        ("alibi?heads=4&n=128&slopes=geometric&view=slopes", "alibi?heads=4&view=slopes", True),
        ("alibi?heads=8&n=128&view=slopes", "alibi?heads=4&view=slopes", False),
        ("alibi?n=128&view=slopes", "alibi?heads=4&view=slopes", False),
        ("rope?heads=4&view=slopes", "alibi?heads=4&view=slopes", False),
        ("class", "class", True),
        ("", "class", False),
        ("rope?view=rotation", "", False),
    ],
)
def test_a_page_is_on_the_sent_address_when_it_shows_every_setting_the_address_names(place, sent, on):
    assert class_follow.on_address(place, sent) is on


def test_a_check_that_reads_an_older_send_does_not_pull_an_explorer_back_later(db_url, monkeypatch):
    """The follow state is cached half a second per server: a page on one process can read
    the class's previous send after following the newest (made through another process).
    That older send must change nothing: the student who has stepped away since stays."""
    teacher, code, key = start_class()
    student = join_class(code, "Cy")
    _teacher_on(teacher, ROPE, {"view": "rotation", "gap": "7"})
    button(teacher, "Send the class here").click().run()
    with class_store.open_store(db_url) as db:
        first = db.follow(code).address
    _teacher_on(teacher, ALIBI, {"view": "slopes"})
    button(teacher, "Send the class here").click().run()
    _check(student, goes_to=ALIBI)  # the newest send, the second
    student.switch_page(ROPE.path)  # the student steps away on their own
    _check(student)
    assert button(student, "Back to your class: 7. ALiBi and KERPLE · Slopes and biases")

    real = class_follow._follow_state
    monkeypatch.setattr(
        class_follow, "_follow_state", lambda code: (1, first, False, False)
    )  # the first send, not a practice
    student.run()
    assert not student.exception
    monkeypatch.setattr(class_follow, "_follow_state", real)
    _check(student)
    assert student.title[0].value.startswith(ROPE.title), "not pulled back to the class's view"
    assert button(student, "Back to your class: 7. ALiBi and KERPLE · Slopes and biases")


def test_a_student_who_moves_to_another_class_follows_its_first_send(db_url):
    """The send a page has followed belongs to its class: in the next class the student
    joins, that class's first send is new."""
    first_teacher, first_code, _ = start_class()
    student = join_class(first_code, "Di")
    _teacher_on(first_teacher, ROPE, {"view": "rotation", "gap": "7"})
    button(first_teacher, "Send the class here").click().run()
    _check(student, goes_to=ROPE)
    student.switch_page(course.CLASS.path)
    student.run()
    button(student, "Leave this class").click().run()
    assert classroom.MEMBER not in student.session_state

    teacher, code, _ = start_class()
    next(t for t in student.text_input if t.label == "Class code").set_value(code)
    button(student, "Join").click().run()
    assert not student.exception and student.session_state[classroom.MEMBER].code == code
    _teacher_on(teacher, ALIBI, {"view": "slopes"})
    button(teacher, "Send the class here").click().run()
    _check(student, goes_to=ALIBI)
