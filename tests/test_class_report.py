"""The teacher's exports (classroom.report): the gradebook and the summary by question,
from a class record built here (the store's side: test_class_store), and the course's
columns as the class page names them (titles and options in words, guided exercises whole)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zoneinfo

import pytest

from posenc_lab import course
from posenc_lab.classroom import each, report
from posenc_lab.classroom import views as class_views
from posenc_lab.classroom.store import ClassRecord, Joined, Round
from posenc_lab.figures import notation
from posenc_lab.ui.exercise_kinds import Guided

T0 = 1_795_000_000.0  # 2026-11-18T11:06:40Z


def _round(rid: str, key: str, number: int) -> Round:
    return Round(rid, "ABC234", key, number, T0 + number, T0 + number + 1, None)


def _record(votes: dict, marks: dict | None = None, rounds=None, students=("ada", "bo", "cy")) -> ClassRecord:
    return ClassRecord(
        code="ABC234",
        title="",
        students=tuple(
            Joined(sid, name, T0 + 60 * i)
            for i, (sid, name) in enumerate(zip(students, ["Ada", "=cmd()", "Student 3"], strict=False))
        ),
        marks=marks or {},
        rounds=tuple(rounds or (_round("r1", "q.choice", 1), _round("r2", "q.choice", 2), _round("n1", "q.number", 1))),
        votes=votes,
    )


CHOICE = report.QuestionColumn("q.choice", "1. Intro: which one?", ("left", "right", "@both"))
NUMBER = report.QuestionColumn("q.number", "2. Numbers: how far?", unit="positions")
NEVER = report.QuestionColumn("q.never", "3. Never asked")
EXERCISES = [
    report.ExerciseColumn("1. Intro: one", ("ex.one",)),
    report.ExerciseColumn("2. Numbers: proof", ("ex.step1", "ex.step2", "ex.step3")),
]


def _rows(text: str) -> list[list[str]]:
    assert text.endswith("\r\n")
    return list(csv.reader(io.StringIO(text)))


def test_gradebook_names_exercises_questions_and_answers_in_words():
    record = _record(
        votes={
            ("r1", "ada"): ("1", True),
            ("r1", "bo"): ("2", False),
            ("r2", "bo"): ("1", True),
            ("n1", "ada"): ("-12", False),
        },
        marks={
            ("ada", "ex.one"): True,
            ("ada", "ex.step1"): True,
            ("ada", "ex.step2"): True,
            ("ada", "ex.step3"): True,
            ("bo", "ex.step1"): True,  # one step of three: tried, not solved
            ("bo", "ex.one"): False,
        },
    )
    rows = _rows(report.gradebook_csv(record, EXERCISES, [CHOICE, NUMBER, NEVER]))
    assert rows[0] == [
        "student",
        "joined",
        "exercises solved (of 2)",
        "1. Intro: one",
        "2. Numbers: proof",
        "1. Intro: which one? (round 1)",
        "1. Intro: which one? (round 1): right",
        "1. Intro: which one? (round 2)",
        "1. Intro: which one? (round 2): right",
        "2. Numbers: how far? (round 1)",
        "2. Numbers: how far? (round 1): right",
    ]  # the question never asked has no column
    assert rows[1] == [
        "Ada",
        "2026-11-18T11:06+00:00",
        "2",
        "solved",
        "solved",
        "right",
        "yes",
        "",
        "",
        "'-12 positions",  # starts with "-" and is no plain number: defused
        "no",
    ]
    # a name and an option that a spreadsheet would run as formulas are quoted
    assert rows[2] == [
        "'=cmd()",
        "2026-11-18T11:07+00:00",
        "0",
        "tried",
        "tried",
        "'@both",
        "no",
        "right",
        "yes",
        "",
        "",
    ]
    assert rows[3] == ["Student 3", "2026-11-18T11:08+00:00", "0", "", "", "", "", "", "", "", ""]
    assert len(rows) == 4


def test_gradebook_times_are_in_the_teachers_zone():
    record = _record(votes={})
    paris = zoneinfo.ZoneInfo("Europe/Paris")
    rows = _rows(report.gradebook_csv(record, [], [], paris))
    assert [row[1] for row in rows[1:]] == [
        "2026-11-18T12:06+01:00",
        "2026-11-18T12:07+01:00",
        "2026-11-18T12:08+01:00",
    ]
    # to the minute, the instant itself
    assert dt.datetime.fromisoformat(rows[1][1]).timestamp() == T0 - T0 % 60


def test_the_gradebook_holds_no_student_link():
    record = _record(votes={("r1", "ada"): ("0", False)})
    text = report.gradebook_csv(record, EXERCISES, [CHOICE])
    for student in record.students:
        assert student.student_id not in text.replace(student.nickname, "")


def test_summary_counts_rounds_the_shift_and_the_common_wrong_answers():
    votes = {}
    # round 1: 2 right of 6; round 2: 5 right of 6 (a, b, c, d changed; e stays wrong; f went wrong)
    first = {"a": "0", "b": "0", "c": "2", "d": "2", "e": "0", "f": "1", "g": "2"}
    last = {"a": "1", "b": "1", "c": "1", "d": "1", "e": "0", "f": "0", "h": "1"}
    for sid, vote in first.items():
        votes["r1", sid] = (vote, vote == "1")
    for sid, vote in last.items():
        votes["r2", sid] = (vote, vote == "1")
    record = _record(votes=votes, students=())
    (result,) = report.question_results(record, [CHOICE, NEVER])
    assert [(r.number, r.answered, r.right) for r in result.rounds] == [(1, 7, 1), (2, 7, 5)]
    assert result.rounds[0].wrong == (("@both", 3), ("left", 3))  # ties in alphabetical order
    assert result.rounds[1].wrong == (("left", 2),)
    assert result.shift == report.Shift(students=6, right_first=1, right_last=4, to_right=4, to_wrong=1)
    (row,) = report.summary_rows([result])
    assert row["right by round"] == "14% -> 71%"
    assert row["answered"] == "7 / 7"
    assert row["shift, first round to last"] == (
        "of 6 who answered both: right 1 -> 4; 4 changed to the right answer, 1 away from it"
    )
    text = report.summary_csv([result])
    rows = _rows(text)
    assert rows[0] == list(report.SUMMARY_COLUMNS)
    first_wrong = rows[1][report.SUMMARY_COLUMNS.index("most common wrong answers, first round")]
    assert first_wrong == "'@both (3); left (3)"  # defused, as in the gradebook


def test_a_question_asked_once_has_no_shift_and_numeric_answers_read_with_their_unit():
    votes = {("n1", "a"): ("12", False), ("n1", "b"): ("12", False), ("n1", "c"): ("40", True)}
    record = _record(votes=votes, students=())
    (result,) = report.question_results(record, [NUMBER])
    assert result.shift is None
    (row,) = report.summary_rows([result])
    assert row["shift, first round to last"] == ""
    assert row["most common wrong answers, first round"] == "12 positions (2)"
    assert row["most common wrong answers, last round"] == ""
    assert report.shift_text(report.Shift(0, 0, 0, 0, 0)).startswith("no student answered both")


def test_an_empty_round_shows_no_percentage():
    record = _record(votes={}, rounds=[_round("r1", "q.choice", 1)], students=())
    (result,) = report.question_results(record, [CHOICE])
    assert report.right_by_round(result) == "-"


# ------------------------------------------------------------------ the course's columns


def test_every_exercise_is_one_column_in_the_lessons_order_guided_ones_whole():
    columns = class_views.exercise_columns(course.COURSE)
    exercises = course.COURSE.all_exercises()
    assert len(columns) == len(exercises) == len({c.title for c in columns})
    for column, ex in zip(columns, exercises, strict=True):
        assert column.title.endswith(": " + notation.plain_markdown(ex.title))
        assert column.keys == (tuple(s.key for s in ex.steps) if isinstance(ex, Guided) else (ex.key,))
        assert "$" not in column.title and "\\" not in column.title


@pytest.mark.parametrize("column", class_views.question_columns(course.COURSE), ids=lambda c: c.key)
def test_every_question_column_reads_in_words(column):
    poll = course.COURSE.poll_by_key(column.key) or each.poll_by_key(course.COURSE, column.key)
    assert column.options == poll.options
    assert not any(mark in column.title for mark in ("$", "\\", "{", "}", "_", "*", "`"))
    assert column.title.split(". ", 1)[0].isdigit()
    if poll.options:
        assert [column.label(str(i)) for i in range(len(poll.options))] == list(poll.options)
