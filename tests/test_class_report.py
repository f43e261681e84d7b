"""The teacher's exports (classroom.report): the gradebook and the summary by question,
from a class record built here (the store's side: test_class_store), and the course's
columns as the class page names them (titles and options in words, guided exercises whole)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
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
        # the questions first, right after the name and the join time
        "1. Intro: which one? (round 1)",
        "1. Intro: which one? (round 1): right",
        "1. Intro: which one? (round 2)",
        "1. Intro: which one? (round 2): right",
        "2. Numbers: how far? (round 1)",
        "2. Numbers: how far? (round 1): right",
        # then the totals
        "questions answered (of 2 asked)",
        "questions right (of 2 asked)",
        "exercises solved (of 2)",
        # then the exercises
        "1. Intro: one",
        "2. Numbers: proof",
    ]  # the question never asked has no column, and does not count among those asked
    assert rows[1] == [
        "Ada",
        "2026-11-18T11:06+00:00",
        "right",
        "yes",
        "",
        "",
        "'-12 positions",  # starts with "-" and is no plain number: defused
        "no",
        "2",  # both questions answered (the choice in round 1 only)
        "1",  # the choice right in its last round she answered (round 1), the number wrong
        "2",
        "solved",
        "solved",
    ]
    # a name and an option that a spreadsheet would run as formulas are quoted
    assert rows[2] == [
        "'=cmd()",
        "2026-11-18T11:07+00:00",
        "'@both",
        "no",
        "right",
        "yes",
        "",
        "",
        "1",
        "1",  # wrong in round 1, right in round 2: its last round counts
        "0",
        "tried",
        "tried",
    ]
    assert rows[3] == ["Student 3", "2026-11-18T11:08+00:00", *[""] * 6, "0", "0", "0", "", ""]
    assert len(rows) == 4


def test_questions_right_count_each_question_once_by_the_last_round_the_student_answered():
    rounds = [_round("r1", "q.choice", 1), _round("r2", "q.choice", 2), _round("r3", "q.choice", 3)]
    rounds += [_round("n1", "q.number", 1)]
    record = _record(
        votes={
            # Ada: right, then away from it in round 3 (round 2 skipped): the last counts, wrong
            ("r1", "ada"): ("1", True),
            ("r3", "ada"): ("0", False),
            ("n1", "ada"): ("40", True),
            # Bo: right in round 2, and no vote in round 3: round 2 is the last Bo answered
            ("r1", "bo"): ("0", False),
            ("r2", "bo"): ("1", True),
        },
        rounds=rounds,
    )
    counted = report.totals(record, EXERCISES, [CHOICE, NUMBER, NEVER])
    assert counted == {
        "ada": report.Totals(answered=2, right=1, solved=0),
        "bo": report.Totals(answered=1, right=1, solved=0),
        "cy": report.Totals(answered=0, right=0, solved=0),
    }


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
    assert not any(mark in column.title for mark in ("$", "\\", "{", "}", "*", "`", "_("))
    # an underscore is a name's, as code writes it (d_model, max_len), never a Markdown mark
    assert re.fullmatch(r"[^_]*(?:(?<=\w)_(?=\w)[^_]*)*", column.title), column.title
    assert column.title.split(". ", 1)[0].isdigit()
    if poll.options:
        assert [column.label(str(i)) for i in range(len(poll.options))] == list(poll.options)


def test_titles_keep_their_symbols_d_model_not_dmodel():
    """Issue 51: a title reads as the lesson writes it. The question titles of the gradebook and
    the summary keep a name's underscore (the lessons write d_model, max_distance, rope_theta as
    text), and a name in maths whose subscript Unicode cannot write small ($d_{model}$) reads
    d_model, not dmodel, d(model) or d_(model)."""
    titles = {c.key: c.title for c in class_views.question_columns(course.COURSE)}
    assert "Sinusoidal encodings, d_model = 128." in titles["poll-sinusoidal-left-right"]
    assert "max_distance 128" in titles["poll-relative-t5-shared-bucket"]
    assert "rope_theta 500,000" in titles["poll-models-llama31-turns"]
    assert titles["each:learned_past_max_len"].endswith("Past max_len (each student their own numbers)")
    for title in titles.values():
        assert not re.search(r"dmodel|d\(model\)|d_\(model\)|maxdistance|ropetheta|max len", title), title
    # a real text with maths in it, a variant exercise's prompt as the lessons write it
    prompt = each.poll_by_key(course.COURSE, "each:sin_pe_value").prompt
    assert "$d_{model} = 512$" in prompt
    assert "For d_model = 512 and base 10000" in notation.plain_title(prompt)
    assert "d_(model)" in notation.plain_markdown(prompt)  # the plain form a chart's title keeps
    # and the same in the gradebook's header, through the columns the dashboard hands it
    record = _record(votes={}, rounds=[_round("r1", "poll-sinusoidal-left-right", 1)], students=())
    header = _rows(report.gradebook_csv(record, [], class_views.question_columns(course.COURSE)))[0]
    assert any("d_model = 128" in cell for cell in header)


# ------------------------------------------------------------------ files for an LMS's gradebook
#
# Each file is checked against its LMS's documented import (README.md, "The gradebook in an
# LMS", gives the pages): its header names and order, its values' types, and CSV as RFC 4180
# writes it in UTF-8 (commas and quotes in a title quoted, CRLF line ends).

LMS_VOTES = {
    ("r1", "ada"): ("1", True),
    ("r1", "bo"): ("2", False),
    ("r2", "bo"): ("1", True),
    ("n1", "ada"): ("-12", False),
}
LMS_MARKS = {("ada", "ex.one"): True, **{("bo", k): True for k in ("ex.step1", "ex.step2", "ex.step3")}}
# a label as a teacher might see it: a comma and quotes, which CSV must quote
LABEL = 'posenc-lab ABC234, "RoPE"'


def _lms_record(students=("ada", "bo", "cy")) -> ClassRecord:
    return _record(votes=LMS_VOTES, marks=LMS_MARKS, students=students)


def _decoded(text: str) -> list[list[str]]:
    raw = text.encode("utf-8")
    assert not raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with no byte order mark
    return _rows(raw.decode("utf-8"))


def _canvas_read(rows: list[list[str]]) -> tuple[list[str], dict[str, str], dict[str, list[str]]]:
    """The file as Canvas's gradebook import reads it (GradebookImporter in canvas-lms): the
    header must have more than 3 columns, "Student" first, "ID" second, and its last student
    column "Section" (3 columns; 4 with "SIS Login ID" third; 5 with "SIS User ID" and "SIS
    Login ID"); a row whose first cell says "Points Possible" gives the new assignments' points;
    every other row is a student, matched by ID, SIS IDs, then name."""
    header = rows[0]
    assert len(header) > 3 and re.search("Student", header[0]) and re.search("ID", header[1])
    columns = 3
    if re.search(r"SIS\s+Login\s+ID", header[2]):
        columns = 4
    elif re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]):
        columns = 5
    assert re.search("Section", header[columns - 1])
    assignments = header[columns:]
    points, students = {}, {}
    for row in rows[1:]:
        assert len(row) == len(header)
        if re.search("Points Possible", row[0]):
            points = dict(zip(assignments, row[columns:], strict=True))
        else:
            assert row[0] not in students
            students[row[0]] = row[columns:]
    return assignments, points, students


def test_the_canvas_file_follows_canvas_gradebook_import():
    exercises = [*EXERCISES, report.ExerciseColumn("3. More: three", ("ex.three",))]
    text = report.canvas_csv(_lms_record(), exercises, [CHOICE, NUMBER, NEVER], LABEL)
    assert f'"{LABEL.replace(chr(34), chr(34) * 2)}: questions right"' in text  # RFC 4180 quoting
    rows = _decoded(text)
    assert rows[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        f"{LABEL}: questions right",
        f"{LABEL}: exercises solved",
    ]
    assignments, points, students = _canvas_read(rows)
    assert rows[1][0] == "Points Possible" and rows[1][1:5] == ["", "", "", ""]
    # points possible: the questions asked (the one never asked is not), the course's exercises
    assert points == {assignments[0]: "2", assignments[1]: "3"}
    # the name under Student, the IDs and section empty (Canvas matches by name, or the
    # teacher picks the student), each grade a whole number of points
    assert students == {"Ada": ["1", "1"], "'=cmd()": ["1", "1"], "Student 3": ["0", "0"]}
    for row in rows[2:]:
        assert row[1:5] == ["", "", "", ""]
    for scores in students.values():
        for score, assignment in zip(scores, assignments, strict=True):
            assert score.isdigit() and 0 <= int(score) <= int(points[assignment])


def test_a_name_canvas_would_read_as_its_points_row_reads_otherwise():
    record = _record(votes={}, students=("ada", "bo"))
    record = ClassRecord(**{**record.__dict__, "students": (Joined("ada", "My Points Possible", T0),)})
    _, points, students = _canvas_read(_decoded(report.canvas_csv(record, EXERCISES, [CHOICE])))
    assert list(students) == ["My Points possible"] and points


def test_the_moodle_file_follows_moodles_csv_grade_import():
    """Moodle's CSV import (docs.moodle.org, Grade import): a header row of any names, comma
    separated, UTF-8; on import "Map from" a column "Map to" a user field (username, email
    address, ID number), and each other column to a grade item (or a new one)."""
    rows = _decoded(report.moodle_csv(_lms_record(), EXERCISES, [CHOICE, NUMBER, NEVER], LABEL))
    assert rows[0] == ["Name in class", "Email address", f"{LABEL}: questions right", f"{LABEL}: exercises solved"]
    assert rows[1:] == [["Ada", "", "1", "1"], ["'=cmd()", "", "1", "1"], ["Student 3", "", "0", "0"]]
    assert len(set(rows[0])) == len(rows[0])  # each column maps once


def test_the_google_classroom_file_names_students_by_email_and_grades_in_points():
    """Google Classroom's grades (its API's documented model): a student named by email
    address, a grade a decimal number of points out of the assignment's points."""
    rows = _decoded(report.classroom_csv(_lms_record(), EXERCISES, [CHOICE, NUMBER, NEVER], LABEL))
    assert rows[0] == ["Email address", "Name in class", f"{LABEL}: questions right", f"{LABEL}: exercises solved"]
    assert rows[1:] == [["", "Ada", "1", "1"], ["", "'=cmd()", "1", "1"], ["", "Student 3", "0", "0"]]
    for row in rows[1:]:
        assert all(float(score) >= 0 for score in row[2:])


@pytest.mark.parametrize("make", [report.canvas_csv, report.moodle_csv, report.classroom_csv])
def test_no_lms_file_holds_a_student_link_or_id(make):
    record = _lms_record()
    text = make(record, EXERCISES, [CHOICE, NUMBER])
    for student in record.students:
        assert student.student_id not in text.replace(student.nickname, "")
    assert "student=" not in text and "teacher" not in text.lower()
