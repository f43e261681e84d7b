"""Under the teacher's question: where each student is (``follow.roster``), the class's
results per question and per exercise (redrawn every few seconds), and the files: the
gradebook, the summary by question, and the gradebook for Canvas, Moodle or Google Classroom."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import questions as class_questions
from posenc_lab.classroom import report, session, views
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom.poll import Poll
from posenc_lab.ui.lesson import Course


@st.fragment(run_every=views.DASHBOARD_EVERY_S)
def _roster(course: Course, code: str, key: str) -> None:
    """Where each student's page is (``class_follow.roster``), on the teacher's own screen."""
    db = session.database()
    place = st.container()  # one place at every state
    if db is None:
        return
    try:
        with place:
            class_follow.roster(course, db, code, key)
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
    except class_store.NotTeacher:
        pass  # the key was replaced: the page says so on its next full run


@st.fragment(run_every=views.DASHBOARD_EVERY_S)
def _dashboard(course: Course, code: str, key: str) -> None:
    # the same places at every state (a fragment that reruns every few seconds), each a
    # container: what a run draws replaces what the run before drew in it, with no moment
    # empty in between (an st.empty place is; the page then shrank and scrolled)
    head, table, by_question, joined = st.container(), st.container(), st.container(), st.container()
    db = session.database()
    if db is None:
        return
    try:
        rows = db.summary(code, key)
        students = db.students(code)
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        return
    try:
        own = class_questions.own_polls(db, code)
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        return
    head.subheader("Results so far")
    head.caption("On your screen only: presenter mode hides it, since it shows right answers before their reveal.")
    if not rows:
        table.caption("Nothing answered yet: votes and the exercises students check in the lessons appear here.")
    else:
        table.dataframe(
            views.results_table(course, rows, own),
            hide_index=True,
            width="stretch",
            column_config={
                "success": st.column_config.ProgressColumn("success", format="percent", min_value=0.0, max_value=1.0),
                "round": st.column_config.TextColumn("round", help="A question's round; empty for an exercise."),
            },
        )
    with by_question:
        _by_question(course, db, code, key, own)
    if students:
        names = ", ".join(s.nickname or "anonymous" for s in students)
        joined.caption(f"{len(students)} joined: " + session.plain(names))


def _by_question(course: Course, db: class_store.Store, code: str, key: str, own: list[Poll]) -> None:
    """Peer instruction's summary: each question's rounds, the shift from the first to the
    last, the most common wrong answers (``_files`` makes it a CSV)."""
    try:
        record = db.class_record(code, key)
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        return
    questions = views.question_columns(course, own, code)
    results = report.question_results(record, questions)
    if results:
        st.markdown("**By question: the shift between rounds**")
        st.dataframe(
            pd.DataFrame(report.summary_rows(results), columns=list(report.SUMMARY_COLUMNS)),
            hide_index=True,
            width="stretch",
            column_config={
                "rounds": st.column_config.NumberColumn("rounds", help="How often the class voted on it."),
                "answered": st.column_config.TextColumn("answered", help="Votes in each round."),
            },
        )


#: the gradebook for an LMS: (the LMS, its file's maker, the file name's end)
LMS_FILES = (
    ("Canvas", report.canvas_csv, "canvas"),
    ("Moodle", report.moodle_csv, "moodle"),
    ("Google Classroom", report.classroom_csv, "google-classroom"),
)
LMS_HELP = (
    "Two grades per student, in points: the questions right (out of those asked) and the exercises solved "
    "(out of the course's). Students are named as they joined: the LMS matches the names it knows, and you "
    'match or fill in the rest (README, "The gradebook in an LMS").'
)


def _download(place, label: str, make, name: str, tip: str) -> None:
    place.download_button(
        label,
        data=session.kept_download(make, name, "text/csv"),
        file_name=name,
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        help=tip,
    )


def _files(course: Course, db: class_store.Store, code: str, key: str, asked: bool) -> None:
    """The gradebook, then, once a question was asked, the summary by question, and the
    gradebook for an LMS (Canvas, Moodle, Google Classroom) behind one button, as CSV files made
    from the class database when pressed: they hold every answer up to the press.

    Drawn by the page's full runs only, outside the fragments that rerun every second or five
    seconds: each draw of a button gives it a new id for its file, and a press made with the
    id of the draw before (on its way as the fragment ran again) found nothing to make. What a
    press makes is kept for the browser to fetch (``classroom.kept_download``)."""
    questions = views.question_columns(course, class_questions.own_polls(db, code), code)
    exercises = views.exercise_columns(course)
    skills = views.skill_columns(course)
    zone = views._zone()
    files = st.container(horizontal=True)
    _download(
        files,
        "Gradebook (CSV)",
        lambda: report.gradebook_csv(db.class_record(code, key), exercises, questions, zone, skills),
        f"posenc-lab_class_{code}_gradebook.csv",
        "One row per student: each answer in words with whether it was right, the questions right, the exercises "
        "solved, each exercise, and mastery per skill.",
    )
    if asked:
        _download(
            files,
            "Summary by question (CSV)",
            lambda: report.summary_csv(report.question_results(db.class_record(code, key), questions)),
            f"posenc-lab_class_{code}_summary.csv",
            "The table above: each question's rounds, the shift between them, the common wrong answers.",
        )
    lms = files.popover("Gradebook for an LMS", icon=":material/school:")
    lms.caption(LMS_HELP)
    for name, make, end in LMS_FILES:
        _download(
            lms,
            f"Gradebook for {name} (CSV)",
            lambda make=make: make(db.class_record(code, key), exercises, questions, f"posenc-lab {code}"),
            f"posenc-lab_class_{code}_{end}.csv",
            f"Columns as {name}'s grade import reads them.",
        )
