"""The Class page before a class: start one, join one with its code (and a nickname, or
none), or continue teaching one with its code and teacher key (``landing``)."""

from __future__ import annotations

import time

import streamlit as st

from posenc_lab.classroom import session, views
from posenc_lab.classroom import store as class_store

HOURS = (1, 2, 4, 8, 12, 24)
LEAD = (
    "Predict before you see it. Your teacher opens a question from a lesson; everyone votes on "
    "a phone or a laptop, and the votes appear on the projector as they arrive. Talk it over "
    "with a neighbour, vote again, and then the reveal shows the answer with the measurement that settles it."
)
#: the longest nickname the join form takes as typed (or pasted); a class keeps NICKNAME_CHARS
NICKNAME_TYPED = 200


def join_problem(code: str, nickname: str) -> str | None:
    """What is wrong with a join form's code or nickname before the class is looked up, in
    words a student can act on; None when both can be tried."""
    typed = class_store.normalize_code(code or "")
    if typed and len(typed) != class_store.CODE_LENGTH:
        return (
            f"Class codes have {class_store.CODE_LENGTH} letters and digits, like K7Q M3P; "
            f"{session.plain(typed)} has {len(typed)}. Check the code on the board."
        )
    length = len(" ".join((nickname or "").split()))
    if length > class_store.NICKNAME_CHARS:
        return (
            f"Nicknames have at most {class_store.NICKNAME_CHARS} characters; yours has {length}. "
            "Shorten it, or leave it empty to join without one."
        )
    return None


def landing(db: class_store.Store) -> None:
    st.markdown(LEAD)
    join, teach = st.columns(2, gap="large")
    with join:
        st.subheader("Join a class")
        with st.form("class_join", border=True):
            code = st.text_input(
                "Class code",
                value=st.session_state.get(views.JOIN_CODE, ""),
                max_chars=12,
                placeholder="6 letters and digits",
            )
            nickname = st.text_input(
                # the label stays short and stable (the class benchmarks and tests find the box
                # by it); the limit is said in the box until the student types
                "Nickname (optional)",
                placeholder=f"up to {class_store.NICKNAME_CHARS} characters",
                # room for a longer paste: the browser would refuse it whole, and the student
                # would join as anonymous without a word; join_problem says what to shorten
                max_chars=NICKNAME_TYPED,
                help="Leave it empty to stay anonymous. Your teacher sees it next to your answers.",
            )
            joined = st.form_submit_button("Join", type="primary", icon=":material/login:")
        problem = join_problem(code, nickname) if joined else None
        if problem:
            st.error(problem, icon=":material/error:")
        elif joined:
            try:
                student = db.join(code, nickname, client=session.client_id(), network=session.network_address())
            except class_store.JoinRefused as exc:
                # a wrong code from an address that sent many waits here: the session cannot
                # try again before it is answered, however it is driven
                if exc.delay > 0:
                    time.sleep(exc.delay)
                st.error(session.plain(exc.reason))
            else:
                session.set_member(
                    session.Member(class_store.normalize_code(code), student.student_id, student.nickname)
                )
                st.rerun()
    with teach:
        st.subheader("Teach a class")
        with st.form("class_start", border=True):
            title = st.text_input("Class name (optional)", max_chars=60, placeholder="Transformers, week 3")
            hours = st.select_slider("The class lasts", options=HOURS, value=12, format_func=lambda h: f"{h} h")
            started = st.form_submit_button("Start a class", icon=":material/co_present:")
        if started:
            try:
                new = db.create_class(title, ttl_hours=float(hours), network=session.network_address())
            except class_store.JoinRefused as exc:
                st.error(session.plain(exc.reason))
            else:
                session.set_teacher(new.code, new.teacher_key)
                st.rerun()
        st.caption(
            "You get a join code, a link and a QR code for the room, and a private teacher key that alone "
            "controls the class. A class ends after the time you choose."
        )
        # the key is typed here, never carried in a link: no browser history, server or proxy
        # log keeps it
        opened = bool(st.session_state.get(views.RESUME_OPEN))
        with st.expander("Continue teaching a class", icon=":material/key:", expanded=opened):
            with st.form("class_resume", border=False):
                code = st.text_input("Your class's code", key=views.RESUME_CODE, max_chars=12)
                key = st.text_input("Teacher key", key="class_resume_key", type="password", max_chars=64)
                resumed = st.form_submit_button("Continue teaching", icon=":material/login:")
            if resumed:
                normalized = class_store.normalize_code(code)
                try:
                    ok = bool(key) and db.is_teacher(normalized, key.strip())
                except ValueError:
                    ok = False
                if ok:
                    session.set_teacher(normalized, key.strip())
                    st.rerun()
                st.error("This code and key do not open a class: check both against the teacher key you kept.")
