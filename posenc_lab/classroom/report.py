"""The teacher's exports of a class, read from its record (``Store.class_record``): the
gradebook (one row per student), the summary by question (each round, the shift between
the first round and the last, the most common wrong answers), and the gradebook for an LMS
(Canvas, Moodle, Google Classroom: each student's totals as that LMS's import reads them).

Pure Python, no database and no Streamlit. The caller names the columns (``classroom.views``
takes the titles and the options' text from the course), so a file reads as the students
saw the lesson: titles and answers in words, never keys or option numbers.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from posenc_lab.classroom import sketch, tally
from posenc_lab.classroom.store import ClassRecord, Round

# cells a spreadsheet would run as a formula (OWASP "CSV injection"), tab and CR included
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"-[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
#: the most common wrong answers listed per question
TOP_WRONG = 3


@dataclass(frozen=True)
class ExerciseColumn:
    """One exercise as the student saw it: ``keys`` is its own key, or a guided exercise's
    steps, and it counts as solved once every one of them is."""

    title: str
    keys: tuple[str, ...]


@dataclass(frozen=True)
class SkillColumn:
    """One skill a lesson names: its label, and how a student's practice record in the class
    (``ClassRecord.practice``) reads as mastery ("mastered", "1 of 3 in a row", "" before any
    practice). The caller gives the rule (the lessons' own, ``ui.mastery``), so this module
    counts nothing of it."""

    title: str
    mark: Callable[[frozenset[tuple[str, int, str, int]]], str]


@dataclass(frozen=True)
class QuestionColumn:
    """A question the teacher can open (a poll): its key, its title, and its options'
    text (multiple choice) or its unit (numeric), which turn a stored vote into words."""

    key: str
    title: str
    options: tuple[str, ...] = ()
    unit: str = ""
    #: a sketch question: the measured curve at the sketch's points (shares of the y range)
    measured: tuple[float, ...] | None = None
    #: asked with each student's own numbers (``classroom.each``): (student id, vote) -> the
    #: vote in the words of that student's own variant. Votes of different variants are not
    #: compared: no "most common wrong answers", only the share right
    words: Callable[[str, str], str] | None = None
    #: a numeric question's misconceptions, ((value, name), ...) (``Poll.misconceptions``), and
    #: its tolerance: a wrong answer within it of one is listed with its name
    misconceptions: tuple[tuple[float, str], ...] = ()
    tolerance: float = 0.0

    def label(self, vote: str) -> str:
        if self.measured is not None:
            return sketch_words(vote, self.measured)
        return tally.vote_label(vote, self.options, self.unit)

    def wrong_label(self, vote: str) -> str:
        """A wrong answer as the summary lists it: "256 pairs (every pair turns)" near a
        misconception, else as ``label`` says it."""
        if self.misconceptions and not self.options and self.measured is None:
            return tally.named_label(vote, self.misconceptions, self.tolerance, self.unit)
        return self.label(vote)


def sketch_words(vote: str, measured) -> str:
    """A sketch in a table: how far it lies from the measured curve, in bands of ten percent
    of the height ("a sketch 20-30% off"), so that the common misses group together."""
    off = sketch.error(vote, measured)
    if off is None:
        return vote
    band = min(9, int(off * 10))
    return f"a sketch {10 * band}-{10 * band + 10}% off"


@dataclass(frozen=True)
class RoundResult:
    number: int
    answered: int
    right: int
    wrong: tuple[tuple[str, int], ...]  # (answer in words, students), most common first

    @property
    def share(self) -> float | None:
        return self.right / self.answered if self.answered else None


@dataclass(frozen=True)
class Shift:
    """Peer instruction's measure: the students who voted in both the first round and the
    last, how many of them were right in each, and how many changed either way."""

    students: int
    right_first: int
    right_last: int
    to_right: int  # wrong in the first round, right in the last
    to_wrong: int  # right in the first round, wrong in the last


@dataclass(frozen=True)
class QuestionResult:
    key: str
    title: str
    rounds: tuple[RoundResult, ...]
    shift: Shift | None  # None with a single round


def spreadsheet_safe(cell: str) -> str:
    # a negative number ("-0.5", a numeric vote) is data, not a formula: it stays a number
    if cell.startswith(FORMULA_START) and not PLAIN_NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def _csv(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        writer.writerow([spreadsheet_safe(cell) for cell in row])
    return buffer.getvalue()


def _when(seconds: float, zone: dt.tzinfo) -> str:
    return dt.datetime.fromtimestamp(seconds, zone).isoformat(timespec="minutes")


def _rounds_by_question(
    record: ClassRecord, questions: Sequence[QuestionColumn]
) -> list[tuple[QuestionColumn, list[Round]]]:
    by_key: dict[str, list[Round]] = {}
    for rnd in record.rounds:
        by_key.setdefault(rnd.poll_key, []).append(rnd)
    return [(q, sorted(by_key[q.key], key=lambda r: r.number)) for q in questions if q.key in by_key]


def exercise_mark(record: ClassRecord, student_id: str, column: ExerciseColumn) -> str:
    """ "solved" (every key solved), "tried" (any key answered) or "" (none)."""
    marks = [record.marks.get((student_id, key)) for key in column.keys]
    if all(marks):
        return "solved"
    return "tried" if any(mark is not None for mark in marks) else ""


@dataclass(frozen=True)
class Totals:
    """One student's totals in the gradebook and the LMS files.

    ``answered``: the questions asked in class (each counted once, however many rounds it had)
    that the student answered in at least one round; ``right``: of those, the ones whose LAST
    round the student answered they got right (a student wrong in round 1 and right in round 2
    counts right; right in round 1 and away in round 2 counts right too, since round 1 is the
    last they answered); ``solved``: the exercises solved (a guided one once every step is)."""

    answered: int
    right: int
    solved: int


def _last_votes(
    record: ClassRecord, asked: list[tuple[QuestionColumn, list[Round]]], student_id: str
) -> list[tuple[str, bool]]:
    """Per question asked, the student's vote in the last round they answered (none: left out)."""
    last = []
    for _, rounds in asked:
        votes = [record.votes[rnd.id, student_id] for rnd in rounds if (rnd.id, student_id) in record.votes]
        if votes:
            last.append(votes[-1])
    return last


def totals(
    record: ClassRecord,
    exercises: Sequence[ExerciseColumn],
    questions: Sequence[QuestionColumn],
) -> dict[str, Totals]:
    """Each student's ``Totals``, by student id."""
    asked = _rounds_by_question(record, questions)
    out = {}
    for student in record.students:
        last = _last_votes(record, asked, student.student_id)
        solved = sum(exercise_mark(record, student.student_id, column) == "solved" for column in exercises)
        out[student.student_id] = Totals(len(last), sum(right for _, right in last), solved)
    return out


def gradebook_csv(
    record: ClassRecord,
    exercises: Sequence[ExerciseColumn],
    questions: Sequence[QuestionColumn],
    zone: dt.tzinfo = dt.UTC,
    skills: Sequence[SkillColumn] = (),
) -> str:
    """One row per student: their name, when they joined (in ``zone``), then the questions:
    each round's answer in words with whether it was right (only questions the class was asked,
    in the order of ``questions``), then their totals (``Totals``: questions answered and right
    out of those asked, exercises solved out of ``exercises``), each exercise's mark and their
    mastery of each of ``skills`` ("mastery: <skill>"). No student link or key is written: the
    file holds names, never credentials."""
    asked = _rounds_by_question(record, questions)
    header = ["student", "joined"]
    for question, rounds in asked:
        for rnd in rounds:
            header += [f"{question.title} (round {rnd.number})", f"{question.title} (round {rnd.number}): right"]
    header += [
        f"questions answered (of {len(asked)} asked)",
        f"questions right (of {len(asked)} asked)",
        f"exercises solved (of {len(exercises)})",
        *(c.title for c in exercises),
    ]
    header += [f"mastery: {skill.title}" for skill in skills]
    rows = [header]
    counted = totals(record, exercises, questions)
    for student in record.students:
        row = [student.nickname, _when(student.joined, zone)]
        for question, rounds in asked:
            for rnd in rounds:
                vote = record.votes.get((rnd.id, student.student_id))
                if vote is None:
                    row += ["", ""]
                else:
                    said = question.words(student.student_id, vote[0]) if question.words else question.label(vote[0])
                    row += [said, "yes" if vote[1] else "no"]
        mine = counted[student.student_id]
        row += [str(mine.answered), str(mine.right), str(mine.solved)]
        row += [exercise_mark(record, student.student_id, column) for column in exercises]
        practice = record.practice.get(student.student_id, frozenset())
        row += [skill.mark(practice) for skill in skills]
        rows.append(row)
    return _csv(rows)


# ------------------------------------------------------------------ files for an LMS's gradebook
#
# Each holds two grades per student, each a column the LMS takes as an assignment (Canvas) or
# a grade item (Moodle): the questions right and the exercises solved (``Totals``), in points
# out of the questions asked and the course's exercises. Students joined with a name only,
# which is the one identifier the files can hold: README.md, "The gradebook in an LMS", says
# what the teacher does with it in each LMS.

#: Canvas's student columns, in the order of its own export, which its import reads: the
#: first must say "Student", the second "ID", and the last "Section"
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
#: the row under Canvas's header that gives each new assignment its points
CANVAS_POINTS = "Points Possible"
#: Moodle maps a column of the file to a user field on import ("Map from" / "Map to")
MOODLE_COLUMNS = ("Name in class", "Email address")
#: Google Classroom names a student by email address
CLASSROOM_COLUMNS = ("Email address", "Name in class")


def lms_items(
    record: ClassRecord, exercises: Sequence[ExerciseColumn], questions: Sequence[QuestionColumn], label: str
) -> list[tuple[str, int]]:
    """The two grades' titles (``label``: what names the class, "posenc-lab ABC234") and their
    points possible."""
    asked = len(_rounds_by_question(record, questions))
    return [(f"{label}: questions right", asked), (f"{label}: exercises solved", len(exercises))]


def _scores(record, exercises, questions) -> list[tuple[str, list[str]]]:
    counted = totals(record, exercises, questions)
    return [
        (s.nickname, [str(counted[s.student_id].right), str(counted[s.student_id].solved)]) for s in record.students
    ]


def canvas_csv(
    record: ClassRecord,
    exercises: Sequence[ExerciseColumn],
    questions: Sequence[QuestionColumn],
    label: str = "posenc-lab",
) -> str:
    """Canvas's gradebook import: its five student columns, the name under "Student" and the
    IDs empty (Canvas then matches a row by the student's name, and lists the rows it cannot
    match for the teacher to pick the student), a "Points Possible" row, then one row per
    student with the two grades in points. Canvas takes any row whose name holds "Points
    Possible" (capitals as here) for that row: a name that does reads "Points possible"."""
    items = lms_items(record, exercises, questions, label)
    blank = [""] * (len(CANVAS_COLUMNS) - 1)
    rows = [[*CANVAS_COLUMNS, *(title for title, _ in items)], [CANVAS_POINTS, *blank, *(str(n) for _, n in items)]]
    for name, scores in _scores(record, exercises, questions):
        name = name.replace(CANVAS_POINTS, "Points possible")
        rows.append([name, *blank, *scores])
    return _csv(rows)


def _named_csv(columns, record, exercises, questions, label) -> str:
    items = lms_items(record, exercises, questions, label)
    rows = [[*columns, *(title for title, _ in items)]]
    for name, scores in _scores(record, exercises, questions):
        rows.append([name if column == "Name in class" else "" for column in columns] + scores)
    return _csv(rows)


def moodle_csv(
    record: ClassRecord,
    exercises: Sequence[ExerciseColumn],
    questions: Sequence[QuestionColumn],
    label: str = "posenc-lab",
) -> str:
    """Moodle's CSV grade import: the name in class, an email address column left empty for
    the teacher (a user is found by username, email or ID number: "Map from" a column "Map to"
    a user field), then the two grades in points, each mapped to a grade item on import."""
    return _named_csv(MOODLE_COLUMNS, record, exercises, questions, label)


def classroom_csv(
    record: ClassRecord,
    exercises: Sequence[ExerciseColumn],
    questions: Sequence[QuestionColumn],
    label: str = "posenc-lab",
) -> str:
    """Google Classroom: an email address column left empty for the teacher (Classroom names a
    student by email address), the name in class, then the two grades in points (Classroom's
    grade: a decimal number of points out of the assignment's points)."""
    return _named_csv(CLASSROOM_COLUMNS, record, exercises, questions, label)


def _top_wrong(question: QuestionColumn, votes: list[tuple[str, bool]]) -> tuple[tuple[str, int], ...]:
    if question.words is not None:
        return ()  # each student had numbers of their own: a 16 here and a 16 there differ
    counts = Counter(question.wrong_label(vote) for vote, right in votes if not right)
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP_WRONG])


def question_results(record: ClassRecord, questions: Sequence[QuestionColumn]) -> list[QuestionResult]:
    """Per question the class was asked (in the order of ``questions``): each round's
    answers, right ones and most common wrong ones, and the shift from the first round to
    the last among the students who voted in both."""
    out = []
    for question, rounds in _rounds_by_question(record, questions):
        per_round: list[dict[str, tuple[str, bool]]] = [
            {sid: vote for (rid, sid), vote in record.votes.items() if rid == rnd.id} for rnd in rounds
        ]
        results = tuple(
            RoundResult(
                rnd.number,
                len(votes),
                sum(right for _, right in votes.values()),
                _top_wrong(question, list(votes.values())),
            )
            for rnd, votes in zip(rounds, per_round, strict=True)
        )
        shift = None
        if len(rounds) > 1:
            first, last = per_round[0], per_round[-1]
            both = sorted(set(first) & set(last))
            shift = Shift(
                students=len(both),
                right_first=sum(first[sid][1] for sid in both),
                right_last=sum(last[sid][1] for sid in both),
                to_right=sum(not first[sid][1] and last[sid][1] for sid in both),
                to_wrong=sum(first[sid][1] and not last[sid][1] for sid in both),
            )
        out.append(QuestionResult(question.key, question.title, results, shift))
    return out


def _percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "-"


def right_by_round(result: QuestionResult) -> str:
    """ "40% -> 75%": the share right in each round, of those who answered it."""
    return " -> ".join(_percent(r.right, r.answered) for r in result.rounds)


def shift_text(shift: Shift | None) -> str:
    """The shift in words, or "" for a question asked once."""
    if shift is None:
        return ""
    if not shift.students:
        return "no student answered both the first round and the last"
    return (
        f"of {shift.students} who answered both: right {shift.right_first} -> {shift.right_last}; "
        f"{shift.to_right} changed to the right answer, {shift.to_wrong} away from it"
    )


def wrong_text(wrong: tuple[tuple[str, int], ...]) -> str:
    return "; ".join(f"{answer} ({n})" for answer, n in wrong)


def summary_rows(results: Sequence[QuestionResult]) -> list[dict[str, str | int]]:
    """One row per question, as the teacher's table and the summary file show it."""
    return [
        {
            "question": result.title,
            "rounds": len(result.rounds),
            "answered": " / ".join(str(r.answered) for r in result.rounds),
            "right by round": right_by_round(result),
            "shift, first round to last": shift_text(result.shift),
            "most common wrong answers, first round": wrong_text(result.rounds[0].wrong),
            "most common wrong answers, last round": wrong_text(result.rounds[-1].wrong)
            if len(result.rounds) > 1
            else "",
        }
        for result in results
    ]


SUMMARY_COLUMNS = (
    "question",
    "rounds",
    "answered",
    "right by round",
    "shift, first round to last",
    "most common wrong answers, first round",
    "most common wrong answers, last round",
)


def summary_csv(results: Sequence[QuestionResult]) -> str:
    rows = summary_rows(results)
    return _csv([list(SUMMARY_COLUMNS), *([str(row[c]) for c in SUMMARY_COLUMNS] for row in rows)])
