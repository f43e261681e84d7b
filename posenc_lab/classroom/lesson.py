"""The lesson "Class mode" (``/class``): a teacher opens a lesson's question, the class votes,
votes again after talking it over, and the reveal shows the measurement that settles it
(peer instruction: predict, vote, talk it over, vote again, reveal).

- The teacher sees the join code, link and QR code, picks a lesson's question, opens
  and closes the vote, opens a second vote, reveals, and watches the votes arrive: the
  histogram is a fragment that reruns every second on its own, without reloading the page.
  Below it, the class's results per question and per exercise, and a CSV for a gradebook
  (``teacher``, ``question_form``, ``dashboard``).
- A student sees the open question, answers (a second answer replaces the first), and
  at the reveal the answer with the measurement that settles it (``student``).
- Anyone else starts a class, joins one or continues teaching one (``join``).
- The room screen (``?room=CODE``, the projector) follows the class by itself (``room``).

What the screens share is ``views``; ``draw`` picks the screen.
"""

from __future__ import annotations

import streamlit as st

from posenc_lab.classroom import join, room, session, student, teacher, views
from posenc_lab.classroom import store as class_store
from posenc_lab.ui.lesson import Course, Lesson

LESSON = Lesson(
    __file__,
    "Class mode",
    "class",
    question="Predict, vote and reveal with the whole room.",
    icon=":material/groups:",
)


@LESSON.page
def page() -> None:
    draw(LESSON.course)


def draw(course: Course) -> None:
    """The Class page: the screen this session's part in a class calls for."""
    if session.room() is not None:
        # the room screen's link (``?room=CODE``) is nobody's: whoever opens it (a projector,
        # the teacher's own browser) sees what the room sees, and the tab's key is not read
        room.room_view(course, session.room())
        return
    old_teacher_link = session.TEACHER_PARAM in st.query_params
    if session.CODE_PARAM in st.query_params and session.STUDENT_PARAM not in st.query_params:
        code = class_store.normalize_code(st.query_params[session.CODE_PARAM])[:12]
        # an old teacher link's code goes to "Continue teaching", a join link's to the join form
        st.session_state[views.RESUME_CODE if old_teacher_link else views.JOIN_CODE] = code
    if old_teacher_link:
        st.session_state[views.RESUME_OPEN] = True
    refused = session.refuse_teacher_link()
    db = session.database()
    if db is not None:
        refused = refused or session.keep_teacher_in_tab() or _check_teacher(db)
    if db is None:
        st.title("Class mode")
        views._unavailable()
        return
    # one container above the views at every state: what it holds (a title, a note) never
    # moves the views' fragments to another place in the page (``teacher_view``)
    with st.container():
        if session.teacher() is None:
            st.title("Class mode")
        if refused:
            st.error(session.plain(refused))
        deleted = st.session_state.pop(views.DELETED, None)
        if deleted:
            st.success(deleted)
    try:
        if session.teacher() is not None:
            teacher.teacher_view(course, db, *session.teacher())
        elif session.member() is not None:
            student.student_view(course, db, session.member())
        else:
            join.landing(db)
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        views._unavailable()


def _check_teacher(db: class_store.Store) -> str | None:
    """A teacher key that no longer opens its class (a new teacher link replaced it, or the
    class was deleted) ends the teacher view on this device."""
    held = session.teacher()
    if held is None:
        return None
    try:
        still = db.is_teacher(*held)
    except class_store.StoreUnavailable:
        return None  # the page says so below; the key is checked again on the next run
    if still:
        return None
    session.stop_teaching()
    return "This teacher link no longer works: a new teacher link replaced it, or the class was deleted."
