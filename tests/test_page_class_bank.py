"""The question bank on the teacher's screen, under AppTest on SQLite and PostgreSQL: any
lesson's question (or the teacher's own) copied into *Write your own question* to change
and add; the teacher's own changed in place while the class was never asked it, and
refused once it was (its votes are for the question as it was)."""

from __future__ import annotations

from urllib.parse import parse_qs

from app_helpers import button, class_texts, start_class

from posenc_lab import course as lessons
from posenc_lab.classroom import questions as class_questions
from posenc_lab.classroom import session
from posenc_lab.classroom import views as class_views
from posenc_lab.figures import notation

Q = class_views.Q
#: a lesson's multiple choice whose right option is not its first, and a lesson's number
CHOICE = next(p for p in lessons.all_polls() if len(p.options) >= 3 and int(p.answer()) != 0 and "**" in p.prompt)
NUMBER = next(p for p in lessons.all_polls() if p.numeric and p.view)


def _copy(teacher, poll) -> None:
    teacher.selectbox(key="class_poll").set_value(poll.key).run()
    button(teacher, "Copy it into your own questions").click().run()
    assert not teacher.exception


def test_a_lessons_question_is_copied_changed_and_added_as_the_teachers_own(db_url):
    teacher, code, key = start_class()
    _copy(teacher, CHOICE)
    assert "A copy is in the form below" in class_texts(teacher)
    prompt = teacher.text_area(key=Q + "prompt").value
    assert prompt == notation.plain_title(CHOICE.prompt) and "*" not in prompt, "Markdown as plain text"
    options = teacher.text_area(key=Q + "options").value.splitlines()
    right = CHOICE.options[int(CHOICE.answer())]
    assert options[0] == right and sorted(options) == sorted(CHOICE.options), "the right one first, as the form asks"
    assert teacher.radio(key=Q + "kind").value == class_views.CHOICE_KIND

    teacher.text_area(key=Q + "prompt").set_value(prompt + " (our version)")
    button(teacher, "Add the question").click().run()
    assert not teacher.exception
    (own,) = session.database().questions(code)
    assert own.prompt.endswith("(our version)") and own.answer == 0 and own.options[0] == right
    assert teacher.selectbox(key="class_poll").value == own.key, "chosen, ready to open"

    # a number keeps its answer, tolerance, range and unit, and its view's address
    _copy(teacher, NUMBER)
    assert teacher.radio(key=Q + "kind").value == class_views.NUMBER_KIND
    assert teacher.number_input(key=Q + "answer").value == float(NUMBER.answer())
    assert teacher.number_input(key=Q + "tolerance").value == NUMBER.tolerance
    assert (teacher.number_input(key=Q + "low").value, teacher.number_input(key=Q + "high").value) == (
        NUMBER.low,
        NUMBER.high,
    )
    assert teacher.text_input(key=Q + "view").value == f"/{NUMBER.view}"
    button(teacher, "Add the question").click().run()
    copied = session.database().questions(code)[-1]
    assert (copied.answer, copied.tolerance, copied.unit) == (float(NUMBER.answer()), NUMBER.tolerance, NUMBER.unit)
    # the same view and settings (the store writes an address's settings in its own order)
    path, _, query = copied.view.partition("?")
    assert (path, parse_qs(query)) == (NUMBER.view.partition("?")[0], parse_qs(NUMBER.view.partition("?")[2]))


def test_the_teachers_own_question_is_changed_in_place_until_the_class_is_asked_it(db_url):
    teacher, code, key = start_class()
    _copy(teacher, CHOICE)
    button(teacher, "Add the question").click().run()
    (own,) = session.database().questions(code)
    poll = class_questions.own_poll(own)

    button(teacher, "Change this question").click().run()
    assert "Your question is in the form below" in class_texts(teacher)
    assert teacher.text_area(key=Q + "prompt").value == own.prompt
    assert not any(b.label == "Add the question" for b in teacher.button)
    teacher.text_area(key=Q + "prompt").set_value("Which is it, after all?")
    button(teacher, "Save the changes").click().run()
    assert not teacher.exception
    (changed,) = session.database().questions(code)
    assert changed.key == own.key and changed.prompt == "Which is it, after all?"
    assert changed.options == own.options and changed.answer == own.answer
    assert any(b.label == "Add the question" for b in teacher.button), "the form is for a new one again"

    # once asked, it stays as it was: a copy is the way to ask it differently
    button(teacher, "Open the vote").click().run()
    button(teacher, "Change this question").click().run()
    teacher.text_area(key=Q + "prompt").set_value("Changed after the vote")
    button(teacher, "Save the changes").click().run()
    assert "Not saved: the class was asked this question" in class_texts(teacher)
    assert session.database().questions(code)[0].prompt == "Which is it, after all?"
    assert poll.key == own.key
