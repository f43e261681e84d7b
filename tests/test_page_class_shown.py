"""One student's answer shown to the room (as a Desmos snapshot), under AppTest on SQLite
and PostgreSQL: once the vote is closed the teacher picks an answer by name on their own
screen; the room screen and the projected teacher page show it without the name, a choice
or a number in words, a sketch as a chart, a variant with its student's numbers; "Stop
showing it" takes it away, and a new round shows none."""

from __future__ import annotations

from app_helpers import button, class_texts, continue_teaching, join_class, open_page, start_class
from app_helpers import fresh_class_pages as _fresh

from posenc_lab import course as lessons
from posenc_lab.classroom import each, session
from posenc_lab.classroom import sketch as sketches
from posenc_lab.classroom import views as class_views

PAGE = lessons.CLASS.path
NUMBER = next(p for p in lessons.all_polls() if p.numeric)
SKETCH = next(p for p in lessons.all_polls() if p.sketch is not None)
OWN_NUMBERS = next(p for p in each.polls(lessons.COURSE) if not p.options)
#: names that must never reach the room: one would draw bold text if taken as Markdown
NAMES = ("Ada Quill", "Bo **Loud**")


def _everything(at) -> str:
    return "\n".join(str(getattr(node, "proto", "")) for node in at._tree)


def _shown_place(at, key: str) -> str:
    return "\n".join(str(getattr(node, "proto", "")) for node in at.get_by_key(key))


def _class_with_answers(poll, votes):
    teacher, code, key = start_class()
    students = [join_class(code, name) for name in NAMES]
    teacher.selectbox(key="class_poll").set_value(poll.key).run()
    button(teacher, "Open the vote").click().run()
    db = session.database()
    rnd = db.current_round(code)
    for at, vote in zip(students, votes, strict=True):
        me = at.session_state[session.MEMBER]
        assert db.answer(rnd.id, me.student_id, vote, False)
    return teacher, code, key, students


def test_the_teacher_shows_one_number_to_the_room_without_the_name(db_url):
    teacher, code, key, students = _class_with_answers(NUMBER, ["7", "19"])
    screen = open_page(PAGE, {"room": code, "present": "1"})
    _fresh(teacher)
    assert not any(b.label == "Show it to the room" for b in teacher.button), "not while the vote is open"
    button(teacher, "Close the vote").click().run()
    pick = teacher.selectbox(key=class_views.SHOW_PICK)
    assert list(pick.options) == [
        f"{NAMES[0]}: 7 {NUMBER.unit}".strip(),
        f"{NAMES[1]}: 19 {NUMBER.unit}".strip(),
    ]
    bo = students[1].session_state[session.MEMBER].student_id
    pick.set_value(bo).run()
    button(teacher, "Show it to the room").click().run()
    assert not teacher.exception

    _fresh(screen)
    shown = _shown_place(screen, "room_shown")
    assert "One answer from the class" in shown and "19" in shown
    everything = _everything(screen)
    for name in ("Ada", "Quill", "Loud"):
        assert name not in everything, "no name on the room screen"
    assert "7 " + NUMBER.unit not in shown

    # the teacher's own screen shows the same block; the projected teacher page too, no names
    _fresh(teacher)
    assert "One answer from the class" in class_texts(teacher)
    projected = continue_teaching(code, key, {"present": "1"})
    assert not projected.exception
    assert "One answer from the class" in class_texts(projected)
    assert "Show it to the room" not in _everything(projected), "the pick is the teacher's own"
    for name in ("Quill", "Loud"):
        assert name not in _everything(projected)

    # Stop showing it: the room's place is empty again; Vote again opens a round that shows none
    _fresh(teacher)
    button(teacher, "Stop showing it").click().run()
    _fresh(screen)
    assert "One answer from the class" not in _shown_place(screen, "room_shown")
    button(teacher, "Show it to the room").click().run()
    button(teacher, "Vote again").click().run()
    _fresh(screen)
    assert "One answer from the class" not in _everything(screen)


def test_a_sketch_is_shown_as_a_chart_and_a_variant_with_its_students_numbers(db_url):
    vote = sketches.encode([50] * sketches.POINTS)
    teacher, code, key, students = _class_with_answers(SKETCH, [vote, vote])
    button(teacher, "Close the vote").click().run()
    button(teacher, "Show it to the room").click().run()
    screen = open_page(PAGE, {"room": code, "present": "1"})
    _fresh(screen)
    assert [c.key for c in screen.get("plotly_chart") if c.key == "room_shown_answer"] == ["room_shown_answer"]

    teacher, code, key, students = _class_with_answers(OWN_NUMBERS, ["1", "2"])
    button(teacher, "Close the vote").click().run()
    ada = students[0].session_state[session.MEMBER]
    teacher.selectbox(key=class_views.SHOW_PICK).set_value(ada.student_id).run()
    button(teacher, "Show it to the room").click().run()
    screen = open_page(PAGE, {"room": code, "present": "1"})
    _fresh(screen)
    mine = OWN_NUMBERS.for_student(session.member_seed(code, ada.student_id))
    assert f"Their numbers: {mine.prompt}" in class_texts(screen)
