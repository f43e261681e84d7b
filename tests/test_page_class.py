"""The Class page under AppTest, against real databases (``class_db_url``: a SQLite file,
and a database on the test session's throwaway PostgreSQL server; tests/pg_support.py).

Each AppTest is one browser session: the teacher and every student have their own.
"""

from __future__ import annotations

from urllib.parse import parse_qs

import pyarrow as pa
import pytest
from app_helpers import button, class_texts, continue_teaching, join_class, open_page, start_class
from streamlit import dataframe_util

from posenc_lab import course as lessons
from posenc_lab.classroom import session as classroom
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom import views as class_views

PAGE = lessons.CLASS.path
#: a multiple-choice poll and a numeric one, the first of each in lesson order
CHOICE = next(poll for poll in lessons.all_polls() if poll.options)
NUMERIC = next(poll for poll in lessons.all_polls() if poll.numeric)


def _open(teacher, poll) -> None:
    teacher.selectbox(key="class_poll").set_value(poll.key).run()
    button(teacher, "Open the vote").click().run()
    assert not teacher.exception


def _vote_choice(student, index: int, label: str = "Send my answer") -> None:
    student.run()  # the page the student sees once the teacher has opened the vote
    student.radio[0].set_value(index)
    button(student, label).click().run()
    assert not student.exception


def test_start_join_vote_again_and_reveal(db_url):
    teacher, code, key = start_class("Week 3")
    assert len(code) == class_store.CODE_LENGTH
    assert "teacher" not in teacher.query_params  # the key never stays in the address bar
    assert teacher.get("image"), "a QR code is drawn"
    assert "0** joined" in class_texts(teacher) or "**0** joined" in class_texts(teacher)

    one, two = join_class(code, "Ada"), join_class(code)
    assert dict(one.query_params)["class"] == [code] or one.query_params["class"] == code
    _open(teacher, CHOICE)
    right = int(CHOICE.answer())
    wrong = (right + 1) % len(CHOICE.options)
    _vote_choice(one, wrong)
    _vote_choice(two, right)
    _vote_choice(one, right, label="Change my answer")  # a second answer replaces the first
    teacher.run()
    assert "2 of 2 students answered" in class_texts(teacher)

    button(teacher, "Close the vote").click().run()
    one.run()
    assert "Voting is closed" in class_texts(one)
    button(teacher, "Vote again").click().run()
    teacher.run()
    assert "0 of 2 students answered** in round 2" in class_texts(teacher)
    _vote_choice(one, wrong)
    teacher.run()
    bars = [el for el in teacher.get("plotly_chart") if str(el.key).startswith("class_votes")]
    assert not bars, "while the vote is open the room does not see how it is going"
    assert "The votes show here when you close the vote" in class_texts(teacher)
    teacher.toggle(key=class_views.SHOW_VOTES).set_value(True).run()  # the teacher chooses to show them
    bars = [el for el in teacher.get("plotly_chart") if str(el.key).startswith("class_votes")]
    assert bars, "the live histogram is drawn"

    button(teacher, "Reveal").click().run()
    teacher.run()
    one.run()
    assert "The answer" in class_texts(one) and CHOICE.options[right] in class_texts(one)
    assert "not this time" in class_texts(one)  # its round-2 vote was wrong

    assert "round 1: 2 of 2 right; round 2: 0 of 1 right" in class_texts(teacher)
    assert not teacher.exception and not one.exception

    # the teacher's summary by question: the shift from the first round to the last
    (summary,) = [t.value for t in teacher.dataframe if "shift, first round to last" in t.value.columns]
    (row,) = summary.to_dict("records")
    title = next(c.title for c in class_views.question_columns(lessons.COURSE) if c.key == CHOICE.key)
    assert (row["question"], row["rounds"], row["answered"], row["right by round"]) == (title, 2, "2 / 1", "100% -> 0%")
    assert row["shift, first round to last"] == (
        "of 1 who answered both: right 1 -> 0; 0 changed to the right answer, 1 away from it"
    )
    assert row["most common wrong answers, last round"] == f"{CHOICE.options[wrong]} (1)"
    files = [el.proto.label for el in teacher.get("download_button")]
    # the results' files; the plan editor has its own (Download as a file)
    lms = ["Gradebook for Canvas (CSV)", "Gradebook for Moodle (CSV)", "Gradebook for Google Classroom (CSV)"]
    assert [f for f in files if f.endswith("(CSV)")] == ["Gradebook (CSV)", "Summary by question (CSV)", *lms]
    assert files == ["Download as a file", "Gradebook (CSV)", "Summary by question (CSV)", *lms]


def test_explore_it_after_a_reveal_opens_the_questions_own_setting(db_url):
    """The d_model = 512 question's "Explore it" carries d_model 512 (tests/test_poll_views.py
    checks that each address opens its setting)."""
    poll = next(p for p in lessons.all_polls() if p.key == "poll-sinusoidal-full-turns")
    teacher, code, _ = start_class()
    student = join_class(code)
    _open(teacher, poll)
    button(teacher, "Reveal").click().run()
    student.run()
    link = next(el for el in student.get("page_link") if el.proto.label.startswith("Explore it"))
    query = parse_qs(link.proto.query_string)
    assert query == parse_qs(poll.view.partition("?")[2]) and query["d_model"] == ["512"]


def _bar_counts(teacher) -> dict[str, int]:
    """The teacher's live chart, first round: label -> votes."""
    import base64
    import json

    import numpy as np

    chart = next(el for el in teacher.get("plotly_chart") if str(el.key).startswith("class_votes"))
    bars = json.loads(chart.proto.spec)["data"][0]
    counts = bars["x"]
    if isinstance(counts, dict):  # a typed array, as the app sends numbers
        counts = np.frombuffer(base64.b64decode(counts["bdata"]), dtype=counts["dtype"]).tolist()
    return dict(zip(bars["y"], counts, strict=True))


def test_each_student_sees_an_order_of_their_own_and_votes_count_as_written(db_url):
    poll = next(p for p in lessons.all_polls() if len(p.options) >= 4 and not p.scale)
    right = int(poll.answer())
    teacher, code, _ = start_class()
    students = [join_class(code) for _ in range(3)]
    _open(teacher, poll)
    for student in students:
        student.run()
        me = student.session_state[classroom.MEMBER]
        radio = student.radio[0]
        # the student's own order (their id seeds it), as a reload shows it again
        assert radio.options == [poll.options[i] for i in poll.order(me.student_id)]
        again = open_page(PAGE, {"class": code, "student": me.student_id})
        assert again.radio[0].options == radio.options
        # the student clicks the option that reads right, wherever it is shown
        radio.set_value(next(v for v in range(len(poll.options)) if radio.format_func(v) == poll.options[right]))
        button(student, "Send my answer").click().run()
        assert not student.exception
        assert f"Counted: **{classroom.plain(poll.options[right])}**" in class_texts(student)
    db = class_store.open_store(db_url)
    round_id = db.current_round(code).id
    assert [vote for vote, _ in db.votes(round_id)] == [str(right)] * 3, "stored as the option's index as written"
    assert all(ok for _, ok in db.votes(round_id))
    db.close()
    button(teacher, "Close the vote").click().run()  # the votes' chart shows once the vote is closed
    counts = _bar_counts(teacher)
    assert list(counts) == list(poll.options), "the projector keeps the order as written"
    assert counts[poll.options[right]] == 3 and sum(counts.values()) == 3


def test_numeric_poll_counts_into_bins(db_url):
    teacher, code, _ = start_class()
    student = join_class(code)
    _open(teacher, NUMERIC)
    student.run()
    student.number_input[0].set_value(float(NUMERIC.answer()) if not NUMERIC.integer else int(NUMERIC.answer()))
    button(student, "Send my answer").click().run()
    assert not student.exception
    assert "Counted" in class_texts(student)
    teacher.run()
    assert "1 of 1 students answered" in class_texts(teacher)
    # a reload shows the counted number in the box, not an empty one
    me = student.session_state[classroom.MEMBER]
    again = open_page(PAGE, {"class": code, "student": me.student_id})
    assert again.number_input[0].value == pytest.approx(float(NUMERIC.answer()), rel=1e-5)


def test_the_code_and_key_typed_alone_continue_the_class_and_a_wrong_key_is_refused(db_url):
    _, code, key = start_class()
    again = continue_teaching(code, key)
    assert again.session_state[classroom.TEACHER] == (code, key)
    assert any(b.label == "Open the vote" for b in again.button)
    forged = continue_teaching(code, key[:-2] + "xx")
    assert "do not open a class" in class_texts(forged)
    assert classroom.TEACHER not in forged.session_state
    assert not any(b.label == "Open the vote" for b in forged.button)


def test_a_link_that_carries_the_teacher_key_is_refused_and_the_key_leaves_the_address(db_url):
    _, code, key = start_class()
    old = open_page(PAGE, {"class": code, "teacher": key})
    assert classroom.TEACHER not in old.session_state
    assert not any(b.label == "Open the vote" for b in old.button)
    assert "no longer accepted" in class_texts(old)
    assert "teacher" not in old.query_params
    # the link's code waits in "Continue teaching", not in the students' join form
    assert old.text_input(key=class_views.RESUME_CODE).value == code
    assert next(t for t in old.text_input if t.label == "Class code").value == ""


def test_wrong_codes_get_a_message_and_are_rate_limited(db_url):
    at = open_page(PAGE)
    box = next(t for t in at.text_input if t.label == "Class code")
    for _ in range(class_store.JOIN_FAILURES_ALLOWED):
        box.set_value("ZZZZZZ")
        button(at, "Join").click().run()
        assert "No class has the code ZZZZZZ" in class_texts(at)
    button(at, "Join").click().run()
    assert "Too many wrong codes" in class_texts(at)
    assert not at.exception


def test_nicknames_are_plain_text(db_url):
    _, code, _ = start_class()
    nasty = "**x** [a](http://e) <b>"  # 23 characters: a longer one is refused with a reason
    student = join_class(code, nasty)
    shown = class_texts(student)
    assert "**x**" not in shown.replace("\\*", "")  # escaped: no bold, no link, no tag
    assert "](http" not in shown and "<b>" not in shown
    assert classroom.plain(class_store.clean_nickname(nasty)) in shown


def test_exercise_progress_follows_the_student_link(db_url):
    _, code, _ = start_class()
    student = join_class(code, "Lin")
    me = student.session_state[classroom.MEMBER]
    lesson = lessons.LESSONS[2]  # learned: its first exercise is multiple choice
    first = lesson.exercises[0]
    page = open_page(lesson.path, {"class": code, "student": me.student_id})
    assert page.session_state[classroom.MEMBER].student_id == me.student_id
    page.radio(key=f"ex_{first.key}_choice").set_value(first.answer_index)
    page.button(key=f"ex_{first.key}_check").click().run()
    assert not page.exception
    # a new session (another browser, or after a restart) with the same link
    fresh = open_page(lesson.path, {"class": code, "student": me.student_id})
    assert first.key in fresh.session_state["_ex:solved"]
    assert fresh.query_params["student"] == me.student_id  # the link stays in the address bar


def test_dashboard_lists_exercises_and_polls(db_url):
    teacher, code, key = start_class()
    student = join_class(code)
    me = student.session_state[classroom.MEMBER]
    _open(teacher, CHOICE)
    _vote_choice(student, (int(CHOICE.answer()) + 1) % len(CHOICE.options))
    db = class_store.open_store(db_url)
    db.record_attempt(code, me.student_id, "rope-decay", "0.5", False)
    teacher.run()
    # the results table (the who-answered table above it has a student and an answer column)
    frames = [frame for frame in teacher.dataframe if "item" in frame.value.columns]
    assert frames, "the results table is drawn"
    table = frames[0].value
    assert set(table["answered"]) == {1}
    assert any("rope" in str(item).lower() for item in table["item"])
    db.close()


def test_the_results_table_goes_to_arrow_as_it_is(db_url, monkeypatch):
    # Streamlit "fixes" a frame Arrow refuses and logs the failure with its traceback; the
    # dashboard refreshes every 5 s, so a table that needs fixing fills the server's log
    fixed = []
    real_fix = dataframe_util.fix_arrow_incompatible_column_types

    def fix(df, *args, **kwargs):
        fixed.append(list(df.columns))
        return real_fix(df, *args, **kwargs)

    monkeypatch.setattr(dataframe_util, "fix_arrow_incompatible_column_types", fix)
    teacher, code, key = start_class()
    student = join_class(code)
    me = student.session_state[classroom.MEMBER]
    _open(teacher, CHOICE)
    _vote_choice(student, int(CHOICE.answer()))
    db = class_store.open_store(db_url)
    db.record_attempt(code, me.student_id, "rope-decay", "0.5", False)
    db.record_attempt(code, me.student_id, "sin_pe_value", "0.8415", True)
    teacher.run()
    assert not teacher.exception
    table = next(frame for frame in teacher.dataframe if "round" in frame.value.columns).value
    assert set(table["round"]) == {"", "1"}, "exercise rows and a poll's round, in one table"
    assert fixed == [], f"Streamlit had to fix the columns of {fixed}"

    rows = db.summary(code, key)
    db.close()
    assert {row.kind for row in rows} == {"exercise", "poll"}
    frame = class_views.results_table(lessons.COURSE, rows)
    arrow = pa.Table.from_pandas(frame, preserve_index=False)
    types = {field.name: field.type for field in arrow.schema}
    text = (pa.string(), pa.large_string())  # pandas 3 keeps str columns as large strings
    assert types["round"] in text and types["item"] in text and types["most common wrong answers"] in text
    assert types["answered"] == pa.int64() and types["right"] == pa.int64() and types["success"] == pa.float64()


def test_database_unreachable_is_said_plainly_and_lessons_go_on(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(class_store.SETTING, str(blocker / "classes.sqlite3"))
    at = open_page(PAGE)
    assert not at.exception
    assert "Class mode is unavailable" in class_texts(at)
    lesson = open_page(lessons.LESSONS[1].path, {"class": "K7QM3P", "student": "abc"})
    assert not lesson.exception
    assert lesson.get("plotly_chart")


def test_vote_figure_marks_the_right_bin_only_after_the_reveal():
    answer = float(NUMERIC.answer())
    votes = [("round 1", [str(answer), str(NUMERIC.low)])]
    hidden = class_views.vote_figure(lessons.COURSE, NUMERIC, votes, revealed=False)
    shown = class_views.vote_figure(lessons.COURSE, NUMERIC, votes, revealed=True)
    assert not any(label.endswith(" (right)") for label in hidden.data[0].y)
    assert sum(label.endswith(" (right)") for label in shown.data[0].y) == 1
    assert sum(hidden.data[0].x) == 2


GARBAGE = [
    {"class": "x" * 5000},
    {"class": "<b>!</b>", "student": "'; DROP TABLE students;--"},
    {"class": "K7QM3P", "teacher": ""},
    {"class": "", "student": "abc"},
    {"teacher": "abc"},
    {"class": "\x00\u202e", "student": "\x00"},
    {"class": "K7QM3P", "student": "y" * 3000, "teacher": "z" * 3000},
]


@pytest.mark.parametrize("query", GARBAGE, ids=range(len(GARBAGE)))
def test_garbage_class_links_get_a_message_not_a_traceback(db_url, query):
    at = open_page(PAGE, query)
    assert not at.exception
    assert at.session_state[classroom.MEMBER] is None if classroom.MEMBER in at.session_state else True
    assert classroom.TEACHER not in at.session_state
    lesson = open_page(lessons.LESSONS[0].path, query)
    assert not lesson.exception
    if "student" in query:
        assert "student" not in lesson.query_params  # a link naming nobody is not kept


def test_a_student_on_a_lesson_page_is_told_when_a_question_opens(db_url):
    teacher, code, _ = start_class()
    student = join_class(code)
    me = student.session_state[classroom.MEMBER]
    lesson = open_page(lessons.LESSONS[3].path, {"class": code, "student": me.student_id})
    label = "Your teacher has opened a question: answer it in Class mode"
    assert label not in [link.label for link in lesson.get("page_link")]
    _open(teacher, CHOICE)
    class_views._class_state.clear()
    lesson.run()
    assert label in [link.label for link in lesson.get("page_link")]
    assert not lesson.exception


def test_an_answer_sent_while_the_cached_check_is_behind_is_counted(db_url, monkeypatch):
    """The page's one-second check reads a cache up to a second old. Just after the teacher
    opens a question, it can still hold the state from before, while the page (its own read)
    already shows the question: the check must not run the page again then, or the run that
    "Send my answer" started ends there and the answer is lost."""
    teacher, code, _ = start_class()
    student = join_class(code)
    _open(teacher, CHOICE)
    student.run()  # the question, with its form
    real, stale = class_views._watched, []

    def behind(code: str):  # what a cache filled just before the vote opened still holds
        if not stale:
            stale.append(code)
            return True, None
        return real(code)

    monkeypatch.setattr(class_views, "_watched", behind)
    student.radio[0].set_value(0)
    button(student, "Send my answer").click().run()
    assert stale, "the send's run read the stale check"
    assert not student.exception
    assert f"Counted: **{classroom.plain(CHOICE.options[0])}**" in class_texts(student)


def test_a_students_vote_shows_again_after_a_reload(db_url):
    teacher, code, _ = start_class()
    student = join_class(code)
    me = student.session_state[classroom.MEMBER]
    _open(teacher, CHOICE)
    _vote_choice(student, 0)
    again = open_page(PAGE, {"class": code, "student": me.student_id})  # a new session, the same link
    assert f"Counted: **{classroom.plain(CHOICE.options[0])}**" in class_texts(again)
    assert any(b.label == "Change my answer" for b in again.button)
    # the counted answer is the one picked (the radio was empty: "Pick an answer first")
    (radio,) = again.radio
    assert radio.value == 0


def test_the_results_table_is_not_projected(db_url):
    teacher, code, key = start_class()
    projected = continue_teaching(code, key, {"present": "1"})
    assert projected.session_state[classroom.TEACHER] == (code, key)
    assert "Results so far" not in [h.value for h in projected.subheader]
    assert "Results so far" in [h.value for h in teacher.subheader]


def test_forgetting_progress_on_a_shared_computer_also_leaves_the_class(db_url):
    _, code, _ = start_class()
    student = join_class(code)
    me = student.session_state[classroom.MEMBER]
    lesson = lessons.LESSONS[2]
    first = lesson.exercises[0]
    page = open_page(lesson.path, {"class": code, "student": me.student_id})
    page.radio(key=f"ex_{first.key}_choice").set_value(first.answer_index)
    page.button(key=f"ex_{first.key}_check").click().run()
    page.switch_page(lessons.HOME.path).run()
    button(page, "Forget my progress in this browser").click().run()
    assert not page.exception
    assert page.session_state[classroom.MEMBER] is None if classroom.MEMBER in page.session_state else True
    assert "student" not in page.query_params
    assert first.key not in page.session_state["_ex:solved"]


def test_a_long_nickname_is_refused_with_a_reason_not_turned_anonymous(db_url):
    _, code, _ = start_class()
    pasted = "Ada Lovelace of the Analytical Engine"  # 37 characters
    student = join_class(code, pasted)
    assert f"Nicknames have at most {class_store.NICKNAME_CHARS} characters; yours has {len(pasted)}" in class_texts(
        student
    )
    assert classroom.MEMBER not in student.session_state, "not joined as anonymous"
    fine = join_class(code, pasted[:20])
    assert "Nicknames have at most" not in class_texts(fine)
    assert fine.session_state[classroom.MEMBER].nickname == pasted[:20].strip()


@pytest.mark.parametrize("typed", ["K7Q", "k7q-m3", "K7QM3PX"])
def test_a_code_of_the_wrong_length_gets_a_hint_of_six_characters(db_url, typed):
    at = open_page(PAGE)
    next(t for t in at.text_input if t.label == "Class code").set_value(typed)
    button(at, "Join").click().run()
    assert not at.exception
    length = len(class_store.normalize_code(typed))
    assert f"Class codes have 6 letters and digits, like K7Q M3P; {class_store.normalize_code(typed)} has {length}" in (
        class_texts(at)
    )
    assert "No class has the code" not in class_texts(at)


def test_extend_by_an_hour_and_times_in_the_teachers_time_zone(db_url, monkeypatch):
    teacher, code, key = start_class()
    with class_store.open_store(db_url) as db:
        before = db.class_info(code).expires
    button(teacher, "Extend by an hour").click().run()
    assert not teacher.exception
    with class_store.open_store(db_url) as db:
        assert db.class_info(code).expires == pytest.approx(before + 3600, abs=5)
    assert "The class now ends at" in class_texts(teacher)
    # the teacher's browser says its zone; without one (AppTest), UTC and said so
    assert class_views._clock(0.0) == "00:00 UTC"
    import zoneinfo

    monkeypatch.setattr(class_views, "_zone", lambda: zoneinfo.ZoneInfo("Europe/Paris"))
    assert class_views._clock(0.0) == "01:00 (Europe/Paris)"
    assert class_views._day(1_800_000_000.0) == "15 January 2027, 09:00 (Europe/Paris)"


def test_a_waiting_student_is_told_live_that_the_class_has_ended(db_url):
    """The student's page checks every second (the ``_watch`` fragment) whether what it was
    drawn from has changed, and only then redraws: the end of the class is such a change,
    also while no question is open (once, a waiting student went on waiting)."""
    teacher, code, _ = start_class()
    student = join_class(code)
    assert "Waiting for your teacher" in class_texts(student)
    drawn = student.session_state[class_views.DRAWN]
    class_views._watched.clear()
    assert class_views._watched(code) == drawn, "nothing changed: the check leaves the page as it is"
    button(teacher, "End the class for everyone").click().run()
    assert not teacher.exception
    class_views._watched.clear()  # the cache lasts a second; the teacher's process dropped it already
    assert class_views._watched(code) != drawn, "the check sees the class has ended and redraws the page"
    student.run()  # the redraw the check asks for (st.rerun), not a reload
    assert f"Class {code} has ended" in class_texts(student)
    assert "Waiting for your teacher" not in class_texts(student)
    assert not student.exception


def test_the_teacher_previews_a_question_in_full_before_opening_it(db_url):
    """The chosen question's text, options as written, answer, why and figure, on the
    teacher's screen before the vote opens; never in presenter mode (it holds the answer)."""
    teacher, code, key = start_class()
    poll = next(p for p in lessons.all_polls() if p.options and p.figure is not None)
    teacher.selectbox(key="class_poll").set_value(poll.key).run()
    preview = next(e for e in teacher.expander if e.label.startswith("Preview the question"))
    texts = " ".join(str(m.value) for m in preview.markdown)
    assert poll.prompt in texts
    assert all(classroom.plain(option) in texts for option in poll.options)
    assert f"**The answer:** {classroom.plain(poll.options[int(poll.answer())])}" in texts
    assert any(str(el.key).startswith(f"preview_{poll.key}") for el in preview.get("plotly_chart"))
    assert not teacher.exception
    presenting = continue_teaching(code, key, {"present": "1"})
    assert not any(e.label.startswith("Preview the question") for e in presenting.expander)
