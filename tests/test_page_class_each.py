"""A question asked with each student's own numbers (``classroom.each``), under AppTest on
SQLite and PostgreSQL: the teacher opens a lesson's variant exercise as a class question,
each phone shows numbers of its own (the same after a reload), each vote is checked against
that student's own answer, and the teacher, the room screen and the files compare the share
right, never the values."""

from __future__ import annotations

import csv
import io

import pytest
from app_helpers import button, class_texts, join_class, open_page, start_class
from app_helpers import fresh_class_pages as _fresh

from posenc_lab import course as lessons
from posenc_lab.classroom import each, report, session
from posenc_lab.classroom import views as class_views
from posenc_lab.ui.exercise_kinds import MultipleChoice, Numeric

PAGE = lessons.CLASS.path
NUMBER = next(p for p in each.polls(lessons.COURSE) if p.key == "each:sin_pe_value")
CHOICE = next(p for p in each.polls(lessons.COURSE) if p.key == "each:rel_shaw_clip")


def _mine(at, poll):
    """The variant the student of ``at`` answers, as their page draws it."""
    me = at.session_state[session.MEMBER]
    return poll.for_student(session.member_seed(me.code, me.student_id)), me


def _heading(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("#### "))


def _right_figure(at) -> list[str]:
    """The bar labels of the teacher's or the room's chart of the votes, or []."""
    import json

    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        if spec["data"] and spec["data"][0].get("orientation") == "h":
            return list(spec["data"][0]["y"])
    return []


def _seeds_that_differ(code: str, poll, count: int) -> bool:
    return len({poll.for_student(session.member_seed(code, f"s{i}")).prompt for i in range(count)}) > 1


def test_every_variant_exercise_can_be_asked_with_each_students_own_numbers():
    """Every numeric and multiple-choice exercise with variants is a class question of this
    kind, its key a valid poll key, and a student's variant is the exercise's own variant."""
    from posenc_lab.classroom.store import rules
    from posenc_lab.ui import exercise_kinds

    exercises = [ex for lesson in lessons.COURSE.lessons for ex in lesson.exercises if each.eligible(ex)]
    assert len(exercises) >= 10
    assert [p.key for p in each.polls(lessons.COURSE)] == [each.key_of(ex) for ex in exercises]
    for ex in exercises:
        poll = each.poll_by_key(lessons.COURSE, each.key_of(ex))
        rules._check_key(poll.key, "poll_key")
        for n in range(40):
            seed = session.member_seed("ABCDEF", f"student-{n}")
            mine = poll.for_student(seed)
            variant = exercise_kinds.concrete(ex, exercise_kinds.draw(ex, f"{seed}:class-question", 0))
            assert mine.prompt == variant.question and mine.each is None and mine.chosen
            if isinstance(ex, MultipleChoice):
                assert (
                    mine.options == tuple(class_views.notation.plain_markdown(c.text) for c in variant.choices)
                    and int(mine.answer()) == variant.answer_index
                )
                assert mine.is_right(variant.answer_index) and not mine.is_right((variant.answer_index + 1) % 4)
            else:
                assert isinstance(ex, Numeric)
                answer = float(variant.answer())
                assert mine.answer() == answer and mine.tolerance == variant.tolerance
                assert mine.is_right(answer) and not mine.is_right(answer + 2 * variant.tolerance + 1)
                assert mine.reveal(answer) == variant.explain(answer)
        # neighbours get different numbers
        assert _seeds_that_differ("ABCDEF", poll, 8), ex.key


@pytest.mark.parametrize("poll", [NUMBER, CHOICE], ids=["number", "choice"])
def test_each_student_answers_their_own_numbers_and_the_room_compares_shares(db_url, poll):
    teacher, code, key = start_class("Own numbers")
    ada = join_class(code, "Ada")
    ada_poll, ada_me = _mine(ada, poll)
    # Bo: the first of a few students whose numbers differ from Ada's (student ids are
    # drawn at random, and two of ~200 variants may coincide)
    for n in range(4):
        bo = join_class(code, "Bo" if n == 0 else f"Bo {n}")
        bo_poll, _ = _mine(bo, poll)
        if bo_poll.prompt != ada_poll.prompt:
            break
    bo_name = bo.session_state[session.MEMBER].nickname
    assert bo_poll.prompt != ada_poll.prompt
    teacher.selectbox(key="class_poll").set_value(poll.key).run()
    assert not teacher.exception
    assert "(each student their own numbers)" in teacher.selectbox(key="class_poll").format_func(poll.key)
    assert "neighbours cannot copy a value" in class_texts(teacher), "the preview says how it is asked"
    button(teacher, "Open the vote").click().run()
    screen = open_page(PAGE, {"room": code, "present": "1"})
    _fresh(ada, bo, screen)

    # each phone shows its own numbers, the room the question as first written
    assert _heading(ada) == f"#### {ada_poll.prompt}" and _heading(bo) == f"#### {bo_poll.prompt}"
    assert "Your own numbers" in class_texts(ada)
    room_text = class_texts(screen)
    assert (
        "with numbers of your own on each device" in room_text
        and "Work it out for the numbers on your device" in room_text
    )
    for mine in (ada_poll, bo_poll):
        if mine.prompt != poll.for_student(None).prompt.rpartition("As first written: ")[2]:
            assert mine.prompt not in room_text

    # a reload (the student's link opened afresh) shows the same numbers
    again = open_page(PAGE, {"class": code, "student": ada_me.student_id})
    _fresh(again)
    assert _heading(again) == f"#### {ada_poll.prompt}"

    # Ada answers her own question right; Bo answers with Ada's answer, wrong for his numbers
    def answer(at, mine, value):
        if mine.options:
            at.radio[0].set_value(value)
        else:
            at.number_input[0].set_value(value)
        button(at, "Send my answer").click().run()
        assert not at.exception

    ada_answer = ada_poll.answer()
    if poll.options:
        answer(ada, ada_poll, int(ada_answer))
        wrong = next(i for i in range(len(bo_poll.options)) if i != int(bo_poll.answer()))
        answer(bo, bo_poll, wrong)
    else:
        answer(ada, ada_poll, round(ada_answer, 4))
        assert not bo_poll.is_right(round(ada_answer, 4)), "Ada's answer is wrong for Bo's numbers"
        answer(bo, bo_poll, round(ada_answer, 4))
    db = session.database()
    current = db.current_round(code)
    assert sorted(right for _, right in db.votes(current.id)) == [False, True]
    assert "Counted:" in class_texts(ada)

    # the teacher's own screen: each answer in its student's numbers, right or not, and the share
    _fresh(teacher)
    who = next(f.value for f in teacher.dataframe if "right for their numbers" in f.value.columns)
    assert dict(zip(who["student"], who["right for their numbers"], strict=True)) == {"Ada": "yes", bo_name: "no"}

    # closed: the teacher's own screen draws the right and not-right answers; the room says
    # the share comes at the reveal, and draws no chart of values
    button(teacher, "Close the vote").click().run()
    assert _right_figure(teacher) == ["right", "not right"]
    _fresh(screen)
    assert class_views.OWN_NUMBERS_NOTE in class_texts(screen)
    assert _right_figure(screen) == []

    # revealed: each student reads the answer for their own numbers; the room the share right
    button(teacher, "Reveal").click().run()
    _fresh(ada, bo, screen)
    shown = class_views._answer_label(lessons.COURSE, ada_poll)
    assert f"The answer for your numbers: **{session.plain(shown)}**" in class_texts(ada)
    assert "not this time" in class_texts(bo)
    assert "Each of you had your own numbers" in class_texts(screen)
    assert _right_figure(screen) == ["right", "not right"]
    assert "1 right" in class_texts(screen)

    # the files: each answer in its student's own words, no "most common wrong answer" of values
    record = db.class_record(code, key)
    columns = class_views.question_columns(lessons.COURSE, [], code)
    rows = list(csv.reader(io.StringIO(report.gradebook_csv(record, [], columns))))
    by_name = {row[0]: row for row in rows[1:]}
    mine = rows[0].index(f"{class_views.class_questions.poll_label(lessons.COURSE, poll, cut=False)} (round 1)")
    assert by_name["Ada"][mine : mine + 2] == [
        class_views.vote_words(lessons.COURSE, ada_poll, db.vote_of(current.id, ada_me.student_id)),
        "yes",
    ]
    assert by_name[bo_name][mine + 1] == "no"
    (result,) = report.question_results(record, columns)
    assert result.rounds[0].wrong == () and report.right_by_round(result) == "50%"


def test_a_plan_file_may_hold_a_question_of_each_students_own_numbers(db_url):
    """A plan naming such a question is exported and imported like a lesson's question."""
    from posenc_lab.classroom.store import PlanStep

    _, code, key = start_class()
    db = session.database()
    db.set_plan(code, key, [PlanStep("question", NUMBER.key, "")])
    data = db.export_plan(code, key)
    _, target, other = start_class()
    known = {p.key for p in [*lessons.all_polls(), *each.polls(lessons.COURSE)]}
    _, imported = db.import_plan(target, other, data, known=known)
    assert [s.target for s in imported.steps] == [NUMBER.key]
