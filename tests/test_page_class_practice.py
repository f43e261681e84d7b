"""Practice in a class under AppTest, on SQLite and PostgreSQL: each student draws the variant
exercises from a seed of their own in the class, their practice reaches the class database,
the teacher's roster shows each student's mastery per skill, the gradebook exports it, and
the class link brings a student's variants and mastery back on another device. (Two
students and the teacher in Chromium: tests/test_browser_class_practice.py.)"""

from __future__ import annotations

import csv
import datetime as dt
import io

from app_helpers import assert_clean, join_class, open_page, start_class
from test_exercise_variants import ORACLES

from posenc_lab import course
from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import report, views
from posenc_lab.classroom import session as classroom
from posenc_lab.classroom import store as class_store
from posenc_lab.course import BANK
from posenc_lab.lessons.sinusoidal import exercises as sinusoidal
from posenc_lab.ui import exercise_kinds as kinds
from posenc_lab.ui import progress as stored_progress

PAGE = "posenc_lab/lessons/sinusoidal/page.py"
EX = next(ex for ex in BANK[PAGE] if ex.key == "sin_pe_value")
LABEL = sinusoidal.SKILLS[EX.skill]
OTHER = sinusoidal.SKILLS["wavelength"]


def _class_seed(at) -> str:
    """The seed the student's session draws variants from, as the class gives it."""
    member = at.session_state[classroom.MEMBER]
    return classroom.member_seed(member.code, member.student_id)


def _shown(at, attempt: int) -> kinds.Numeric:
    return kinds.concrete(EX, kinds.draw(EX, _class_seed(at), attempt))


def _question(at) -> str:
    return next(m.value for m in at.markdown if "what is $PE_" in m.value)


def _skill_line(at) -> str:
    return next(c.value for c in at.caption if f"**{LABEL}**" in c.value)


def _check(at, value: float) -> None:
    at.number_input(key=f"ex_{EX.key}_value").set_value(value)
    at.button(key=f"ex_{EX.key}_check").click().run()
    assert_clean(at)


def _right(at, attempt: int) -> float:
    return round(ORACLES[EX.key](**dict(_shown(at, attempt).chosen))[0], 6)


def _another(at) -> None:
    at.button(key=f"ex_{EX.key}_another").click().run()
    assert_clean(at)


def _on_lesson(at):
    at.switch_page(PAGE).run()
    assert_clean(at)
    return at


def _roster_table(teacher) -> list[dict[str, str]]:
    """The roster as the teacher's class page draws it (its fragment runs with the page)."""
    teacher.run()
    assert_clean(teacher)
    frame = next(t.value for t in teacher.table if "mastery" in t.value.columns)
    return frame.to_dict("records")


def test_each_student_practises_their_own_variant_and_the_roster_shows_their_mastery(db_url):
    teacher, code, key = start_class()
    ada, bo = _on_lesson(join_class(code, "Ada")), _on_lesson(join_class(code, "Bo"))
    # each draws from their own seed in the class, not from the browser's
    assert _class_seed(ada) != _class_seed(bo)
    for student in (ada, bo):
        assert _class_seed(student) != student.session_state[stored_progress.SEED]
        assert _question(student) == _shown(student, 0).question
    # two students of one class: different numbers over their first variants
    assert [_shown(ada, n).chosen for n in range(3)] != [_shown(bo, n).chosen for n in range(3)]

    # Ada: three right in a row on new numbers; Bo: one wrong
    for attempt in range(3):
        _check(ada, _right(ada, attempt))
        _another(ada)
    assert "mastered" in _skill_line(ada)
    _check(bo, _right(bo, 0) + 0.5)
    assert _skill_line(bo) == f"**{LABEL}**: 0 of 3 right in a row"

    rows = {row["student"]: row for row in _roster_table(teacher)}
    assert rows["Ada"]["mastery"] == f"{LABEL}: mastered"
    assert rows["Bo"]["mastery"] == f"{LABEL}: 0 of 3 in a row"
    # a second skill practised shows beside the first, in the lessons' order
    wavelength = next(ex for ex in BANK[PAGE] if ex.key == "sin_wavelength")
    member = bo.session_state[classroom.MEMBER]
    with class_store.open_store(db_url) as db:
        # what the class holds of Bo: the attempt and the wrong first check, as the page sent them
        assert {(k, n, kind) for k, n, kind, _ in db.practice(code, member.student_id)} == {(EX.key, 0, "w")}
        db.record_practice(code, member.student_id, [(wavelength.key, 0, "r", 9)], keep=6)
    rows = {row["student"]: row for row in _roster_table(teacher)}
    assert rows["Bo"]["mastery"] == f"{LABEL}: 0 of 3 in a row; {OTHER}: 1 of 3 in a row"


def test_the_gradebook_exports_mastery_per_skill(db_url):
    teacher, code, key = start_class()
    ada = _on_lesson(join_class(code, "Ada"))
    join_class(code, "Bo")
    for attempt in range(3):
        _check(ada, _right(ada, attempt))
        _another(ada)
    with class_store.open_store(db_url) as db:
        text = report.gradebook_csv(
            db.class_record(code, key),
            views.exercise_columns(course.COURSE),
            views.question_columns(course.COURSE),
            dt.UTC,
            views.skill_columns(course.COURSE),
        )
    rows = list(csv.DictReader(io.StringIO(text)))
    skills = [label for label, _ in class_follow.skill_columns(course.COURSE)]
    assert [c for c in rows[0] if c.startswith("mastery: ")] == [f"mastery: {label}" for label in skills]
    by_name = {row["student"]: row for row in rows}
    assert by_name["Ada"][f"mastery: {LABEL}"] == "mastered"
    assert by_name["Ada"][f"mastery: {OTHER}"] == ""
    assert all(by_name["Bo"][f"mastery: {label}"] == "" for label in skills)


def test_the_class_link_brings_a_students_variant_and_mastery_back_on_another_device(db_url):
    _, code, _ = start_class()
    ada = _on_lesson(join_class(code, "Ada"))
    for attempt in range(3):
        _check(ada, _right(ada, attempt))
        _another(ada)
    question = _question(ada)
    assert question == _shown(ada, 3).question
    member = ada.session_state[classroom.MEMBER]
    # another browser (another seed, nothing stored) opens Ada's class link on the lesson
    other = open_page(PAGE, {"class": code, "student": member.student_id})
    assert_clean(other)
    assert other.session_state[stored_progress.SEED] != ada.session_state[stored_progress.SEED]
    assert _question(other) == question
    assert "mastered" in _skill_line(other)


def test_practice_outside_a_class_reaches_no_class(db_url):
    _, code, key = start_class()
    alone = _on_lesson(open_page())
    _check(alone, 0.5)
    with class_store.open_store(db_url) as db:
        assert db.class_record(code, key).practice == {}


def _teacher_on(teacher, path: str):
    teacher.switch_page(path)
    teacher.query_params.clear()
    teacher.run()
    assert_clean(teacher)
    return teacher


def _banner(at) -> list[str]:
    return [i.value for i in at.info if i.value.startswith("**Practice:")]


def test_the_teacher_sets_the_class_to_practise_a_lesson_and_students_see_a_banner(db_url):
    teacher, code, _ = start_class()
    student = join_class(code, "Ada")
    # a lesson without variant exercises has nothing to practise: its button is off
    why = next(lesson for lesson in course.LESSONS if lesson.url_path == "why-order")
    assert next(b for b in _teacher_on(teacher, why.path).button if b.label == "Practise here").disabled
    sinusoid = next(lesson for lesson in course.LESSONS if lesson.url_path == "sinusoidal")
    _teacher_on(teacher, sinusoid.path)
    practise = next(b for b in teacher.button if b.label == "Practise here")
    assert not practise.disabled
    practise.click().run()
    assert_clean(teacher)
    assert "is practising this lesson" in " ".join(c.value for c in teacher.get_by_key("teacher_bar").caption)

    # the student's page follows at its next check, and says what the class is doing
    class_follow.clear_follow_state()
    student.run()
    assert_clean(student)
    assert student.title[0].value.startswith(sinusoid.title)
    student.switch_page(sinusoid.path).run()  # the page the check went to, as a browser's address bar
    assert_clean(student)
    (banner,) = _banner(student)
    assert banner.startswith(f"**Practice: {classroom.plain(class_follow.describe(course.COURSE, 'sinusoidal'))}.**")
    assert "your numbers are your own" in banner
    # another view of the lesson is still the lesson practised
    student.query_params["view"] = "heatmap"
    student.run()
    assert _banner(student)

    # a plain send ends the practice: the banner goes at the next check
    next(b for b in teacher.button if b.label == "Send the class here").click().run()
    assert_clean(teacher)
    assert "practising" not in " ".join(c.value for c in teacher.get_by_key("teacher_bar").caption)
    class_follow.clear_follow_state()
    student.run()
    assert not _banner(student)
