"""The teacher's files after class, under AppTest on both databases (``db_url``): the plain
gradebook first, then the summary by question, then the gradebook for an LMS (Canvas, Moodle,
Google Classroom) behind one button; each file as a press makes it, checked against the class.

The files' columns against each LMS's documented import: tests/test_class_report.py.
"""

from __future__ import annotations

import csv
import io

import pytest
from app_helpers import button, join_class, start_class
from streamlit.runtime.media_file_manager import MediaFileManager

from posenc_lab import course as lessons
from posenc_lab.classroom import report
from posenc_lab.classroom import session as classroom
from posenc_lab.classroom import views as class_views

#: a question whose title has a name in it (d_model), asked in class
POLL = next(poll for poll in lessons.all_polls() if poll.key == "poll-sinusoidal-left-right")
RESULTS = [
    "Gradebook (CSV)",
    "Summary by question (CSV)",
    "Gradebook for Canvas (CSV)",
    "Gradebook for Moodle (CSV)",
    "Gradebook for Google Classroom (CSV)",
]


#: file id -> (what a press runs, the file's name), as each download button registered them
DEFERRED: dict[str, tuple] = {}


@pytest.fixture(autouse=True)
def _deferred(monkeypatch):
    """Keep what each download button hands Streamlit's media file manager: AppTest's manager
    lasts one run, and a press runs the callable after it, as the server does."""
    DEFERRED.clear()
    add = MediaFileManager.add_deferred

    def kept(self, data, mimetype, coordinates, file_name=None, element_id=None):
        file_id = add(self, data, mimetype, coordinates, file_name=file_name, element_id=element_id)
        DEFERRED[file_id] = (data, file_name)
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", kept)


def _pressed(at, label: str) -> tuple[str, list[list[str]]]:
    """(file name, rows) of the file a press of the download button ``label`` makes: the
    callable the button holds, run as Streamlit's server runs it on a press."""
    (found,) = [b for b in at.get("download_button") if b.proto.label == label]
    make, name = DEFERRED[found.proto.deferred_file_id]
    return name, list(csv.reader(io.StringIO(make().decode("utf-8"))))


def test_the_plain_gradebook_comes_first_and_each_lms_file_is_made_on_a_press(db_url):
    teacher, code, key = start_class()
    ada, bo = join_class(code, "Ada"), join_class(code, "Bo")
    teacher.selectbox(key="class_poll").set_value(POLL.key).run()
    button(teacher, "Open the vote").click().run()
    right = int(POLL.answer())
    for student, vote in ((ada, right), (bo, (right + 1) % len(POLL.options))):
        student.run()
        student.radio[0].set_value(vote)
        button(student, "Send my answer").click().run()
        assert not student.exception
    button(teacher, "Close the vote").click().run()
    teacher.run()
    assert not teacher.exception

    # the plain gradebook first, the LMS files last, behind one button
    labels = [b.proto.label for b in teacher.get("download_button")]
    assert [label for label in labels if label in RESULTS] == RESULTS
    (lms,) = [p for p in teacher.get("popover") if p.proto.popover.label == "Gradebook for an LMS"]
    assert [b.proto.label for b in lms.get("download_button")] == RESULTS[2:]

    # the gradebook: the question's columns right after the name and the join time, then the totals
    name, rows = _pressed(teacher, "Gradebook (CSV)")
    assert name == f"posenc-lab_class_{code}_gradebook.csv"
    title = class_views.class_questions.poll_label(lessons.COURSE, POLL, cut=False)
    assert "d_model = 128" in title
    exercises = len(class_views.exercise_columns(lessons.COURSE))
    assert rows[0][:7] == [
        "student",
        "joined",
        f"{title} (round 1)",
        f"{title} (round 1): right",
        "questions answered (of 1 asked)",
        "questions right (of 1 asked)",
        f"exercises solved (of {exercises})",
    ]
    by_name = {row[0]: row for row in rows[1:]}
    assert by_name["Ada"][3:6] == ["yes", "1", "1"] and by_name["Bo"][3:6] == ["no", "1", "0"]

    # each LMS file: its own name, the two grades in points, no student link
    canvas = _pressed(teacher, "Gradebook for Canvas (CSV)")
    assert canvas[0] == f"posenc-lab_class_{code}_canvas.csv"
    assert canvas[1] == [
        [*report.CANVAS_COLUMNS, f"posenc-lab {code}: questions right", f"posenc-lab {code}: exercises solved"],
        ["Points Possible", "", "", "", "", "1", str(exercises)],
        ["Ada", "", "", "", "", "1", "0"],
        ["Bo", "", "", "", "", "0", "0"],
    ]
    moodle = _pressed(teacher, "Gradebook for Moodle (CSV)")
    assert moodle[0] == f"posenc-lab_class_{code}_moodle.csv"
    assert moodle[1][0][:2] == list(report.MOODLE_COLUMNS)
    assert moodle[1][1:] == [["Ada", "", "1", "0"], ["Bo", "", "0", "0"]]
    google = _pressed(teacher, "Gradebook for Google Classroom (CSV)")
    assert google[0] == f"posenc-lab_class_{code}_google-classroom.csv"
    assert google[1][1:] == [["", "Ada", "1", "0"], ["", "Bo", "0", "0"]]
    for label in RESULTS:
        text = repr(_pressed(teacher, label)[1])
        assert key not in text
        for student in (ada, bo):
            assert student.session_state[classroom.MEMBER].student_id not in text
    assert not teacher.exception


def test_before_any_question_the_gradebook_and_the_lms_files_are_offered(db_url):
    teacher, code, _ = start_class()
    join_class(code, "Ada")
    teacher.run()
    labels = [b.proto.label for b in teacher.get("download_button")]
    assert [label for label in labels if label in RESULTS] == [RESULTS[0], *RESULTS[2:]]
    _, rows = _pressed(teacher, "Gradebook for Canvas (CSV)")
    assert rows[1][-2:] == ["0", str(len(class_views.exercise_columns(lessons.COURSE)))]
    assert rows[2][0] == "Ada"
