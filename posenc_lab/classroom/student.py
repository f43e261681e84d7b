"""A student's screen of the Class page (``student_view``): the open question, the vote (an
option, a number or a sketch; answering again replaces the answer), and at the reveal the
answer with the measurement that settles it. A small fragment checks every second whether
the teacher moved on, and only then redraws the page; it also follows the teacher's sends
(``class_follow``). On a lesson, ``banner`` leads a student in a class back to the question."""

from __future__ import annotations

import math

import streamlit as st

from posenc_lab.classroom import each, session, sketch_input, tally, views
from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import questions as class_questions
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom.poll import Poll
from posenc_lab.ui.lesson import Course


def student_view(course: Course, db: class_store.Store, me: session.Member) -> None:
    info = db.class_info(me.code)
    if info is None:
        st.error(f"No class has the code {session.plain(me.code)}.")
        _leave_button()
        return
    if db.student(me.code, me.student_id) is None:
        st.warning(
            f"You are not in class {session.plain(me.code)} any more: your teacher removed this student link. "
            "Join again with the code if your teacher lets you."
        )
        _leave_button()
        return
    who = session.plain(me.nickname) if me.nickname else "anonymous"
    title = f" ({session.plain(info.title)})" if info.title else ""
    st.markdown(f"You are in class **{session.plain(me.code)}**{title} as **{who}**.")
    with st.expander("Your link", icon=":material/bookmark:"):
        st.code(session.student_link(session.public_base(), me.code, me.student_id), language=None, wrap_lines=True)
        st.caption(
            "Bookmark it: it brings back your answers and the exercises you solved, on this device or another, "
            "even after the app restarts. Anyone with it answers as you."
        )
        _leave_button()
    is_open = db.is_open(me.code)
    now = views._class_state(me.code)
    st.session_state[views.DRAWN] = (is_open, now)
    # watched when the class has ended too: a teacher who extends it opens it again, and the
    # page follows (phones showed "has ended" until reloaded)
    _watch(course, me.code)
    if not is_open:
        st.info(f"Class {session.plain(me.code)} has ended. The lessons are all still here.")
        return
    class_follow.hand_switch()
    if now is None:
        st.info(
            "Waiting for your teacher to open a question. Meanwhile the lessons are in the menu; "
            "exercises you solve count for the class."
        )
        return
    round_id, poll_key, number, closed, revealed, deadline = now
    poll = class_questions.poll_of(course, db, me.code, poll_key)
    if poll is None:
        st.warning("Your teacher opened a question this version of the app does not have.")
        return
    # a question each student answers with their own numbers: this student's variant
    poll = poll.for_student(session.member_seed(me.code, me.student_id))
    st.markdown(f"#### {class_questions.prompt_markdown(poll)}")
    if each.is_each(poll):
        st.caption(":material/casino: Your own numbers: your neighbours have others, so compare how, not what.")
    # what this student sent in this round: this session's, else the database's (a reload,
    # another device, a restarted server)
    sent = st.session_state.get(views.VOTED + round_id) or db.vote_of(round_id, me.student_id)
    if revealed:
        views._reveal(course, poll, vote=sent)
    elif closed:
        if deadline is not None:
            st.caption(":material/timer: Time is up, or your teacher closed the vote.")
        if st.session_state.get(views.SEND + round_id):
            # the student pressed Send on the open form, and the teacher closed the vote first
            st.warning("Your answer was not counted: voting closed before it arrived.")
        st.info(
            "Voting is closed"
            + (f"; you answered **{session.plain(views.vote_words(course, poll, sent))}**" if sent else "")
            + ". Talk it over with a neighbour: your teacher may open a second vote."
        )
    else:
        _vote_form(course, db, me, poll, round_id, number, sent)


def _leave_button() -> None:
    if st.button("Leave this class", icon=":material/logout:"):
        session.leave()
        st.rerun()


def _vote_form(
    course: Course, db: class_store.Store, me: session.Member, poll: Poll, round_id: str, number: int, sent
) -> None:
    if number > 1:
        st.caption(f"Second thoughts: round {number}. Answer again, after talking it over.")
    if poll.sketch is not None:
        _sketch_form(course, db, me, poll, round_id, sent)
        return
    with st.form(f"vote_{round_id}", border=False):
        if poll.options:
            # each student sees the options in an order of their own (their student id seeds
            # it, so a reload or another device keeps it); the vote is the option's index as
            # written, which the projector's chart and the gradebook count
            order = poll.order(me.student_id)
            # the answer counted so far is the one picked: after a reload or on another device
            # too (an empty radio under "Counted" asked to "Pick an answer first")
            counted = tally.decode_choice(sent, len(poll.options))
            pick = st.radio(
                "Your answer",
                order,
                index=order.index(counted) if counted in order else None,
                format_func=lambda i: session.plain(poll.options[i]),
            )
            vote = None if pick is None else tally.encode_choice(pick)
        else:
            step, shown = _number_step(poll)
            counted = tally.decode_number(sent)
            if counted is not None and not poll.low <= counted <= poll.high:
                counted = None
            value = st.number_input(
                f"Your answer{' (' + session.plain(poll.unit) + ')' if poll.unit else ''}",
                min_value=int(poll.low) if poll.integer else float(poll.low),
                max_value=int(poll.high) if poll.integer else float(poll.high),
                value=None if counted is None else (int(counted) if poll.integer else counted),
                step=step,
                format=shown,
                # a question of each student's own numbers takes any number: its range is
                # the same for every variant, and says nothing of the answer
                placeholder="a number" if each.is_each(poll) else f"between {poll.low:g} and {poll.high:g}",
            )
            vote = None if value is None else tally.encode_number(float(value), poll.integer)
        pressed = st.form_submit_button(
            "Change my answer" if sent else "Send my answer", type="primary", key=views.SEND + round_id
        )
    if pressed:
        if vote is None:
            st.warning("Pick an answer first.")
        else:
            counted = _send(course, db, me, poll, round_id, vote, "answer")
            if counted is None:
                return
            sent = vote if counted else sent
    if sent:
        st.success(
            f"Counted: **{session.plain(views.vote_words(course, poll, sent))}**. "
            "You can change it until voting closes."
        )


def _number_step(poll: Poll) -> tuple[int | float, str | None]:
    """The step of a numeric answer's box and its format: whole numbers, or a tenth of the
    tolerance of a question each student answers with their own numbers (so that a right
    answer can be typed and shows as typed), or a thousandth of the input's range."""
    if poll.integer:
        return 1, None
    if each.is_each(poll):
        step = poll.tolerance / 10 if poll.tolerance > 0 else 1e-4
        places = max(0, -math.floor(math.log10(step)))
        return 10.0**-places, f"%.{places}f"
    return max((poll.high - poll.low) / 1000, 1e-6), None


def _send(
    course: Course, db: class_store.Store, me: session.Member, poll: Poll, round_id: str, vote: str, what: str
) -> bool | None:
    """Store a student's ``vote`` with whether it is right: True when counted, False when the
    vote had just closed, None when the student is no longer in the class (each said)."""
    if poll.sketch is not None:
        right = poll.is_right_vote(vote, measured=views.measured_of(course, poll))
    else:
        right = poll.is_right_vote(vote, answer=views.answer_of(course, poll))
    if db.answer(round_id, me.student_id, vote, right):
        st.session_state[views.VOTED + round_id] = vote
        return True
    if db.student(me.code, me.student_id) is None:
        st.warning(f"This {what} was not counted: you are not in this class any more.")
        return None
    st.warning(f"Voting has just closed (its time ran out, or your teacher closed it): this {what} was not counted.")
    return False


def _sketch_form(course: Course, db: class_store.Store, me: session.Member, poll: Poll, round_id: str, sent) -> None:
    """A drawn prediction: the drawing area (finger, mouse or keyboard) and its Send button
    (outside a form: the drawing reaches the app as it is made)."""
    sk = poll.sketch
    vote = sketch_input.sketch_input(
        views.SKETCH + round_id,
        x_range=sk.x_range,
        y_range=sk.y_range,
        x_title=sk.x_title,
        y_title=sk.y_title,
        label=f"Your sketch of {sk.y_title} against {sk.x_title}",
    )
    if st.button(
        "Change my sketch" if sent else "Send my sketch",
        type="primary",
        key=views.SEND + round_id,
        disabled=vote is None,
    ):
        counted = _send(course, db, me, poll, round_id, vote, "sketch")
        if counted is None:
            return
        sent = vote if counted else sent
    if sent:
        st.success("Counted: **your sketch**. You can change it until voting closes.")
    elif vote is None:
        st.caption("Draw first: the button wakes up once there is a curve.")


@st.fragment(run_every=class_follow.STUDENT_EVERY_S)
def _watch(course: Course, code: str) -> None:
    """Redraw the page when the teacher opens, closes or reveals, or the class ends (a
    student waiting for a question is told the class has ended), and follow the teacher's
    sends (checked every second). Two places at every state: the "Go to your class" line
    or nothing, and the vote's countdown or an empty line, so a check never changes the
    page's shape under a run the student started."""
    with st.container():
        class_follow.student_check(course, code, course.class_page.url_path)
    timer = st.container(key="class_student_timer")
    class_follow.hand_check()
    drawn = st.session_state.get(views.DRAWN)
    try:
        db = session.database()
        if db is None:
            raise class_store.StoreUnavailable(session.problem())
        clock = db.now()
        now = views._watched(code)
        if _body(now) != _body(drawn):
            # this cache is filled apart from the one the page drew from (``_class_state``),
            # and can be up to a second older: a page drawn just after the teacher opened a
            # question would run again and again for that second, and a run that "Send my
            # answer" started would end in the rerun, its press lost. Asked again as the page
            # reads it: the page is behind only if that differs too.
            now = views._watch_state(code)
    except class_store.StoreUnavailable:
        return  # the next check tries again; the page drawn stays as it is
    is_open, state = now
    voting = is_open and state is not None and not state[3]
    # one element at every check: the countdown, or an empty line (no timer, or not voting)
    timer.markdown(views.countdown(state[5], clock) if voting else "")
    if _body(now) != _body(drawn):
        st.rerun()


def _body(watched: tuple | None) -> tuple | None:
    """What the page under ``_watch`` is drawn from: the class open or not, and its round's
    state without the timer's deadline (the countdown is ``_watch``'s own: a timer set or
    taken away redraws that line alone, not the page under a student's press)."""
    if watched is None:
        return None
    is_open, state = watched
    return is_open, None if state is None else state[:5]


def banner(course: Course, code: str, url_path: str) -> None:
    """On a lesson page (``url_path``), for a student in a class: a link to the class page
    while the teacher has a question open, and the class's "follow me" (``class_follow``),
    checked every second."""
    if code:
        class_follow.hand_switch(st.sidebar)  # the side panel: the lesson's chart keeps its place
        _banner(course, code, url_path)


@st.fragment(run_every=class_follow.STUDENT_EVERY_S)
def _banner(course: Course, code: str, url_path: str) -> None:
    # the same places at every state (a practice banner or not; the "Back to your class" line
    # or not; a link, a line, nothing): a check that reruns every second never changes the shape of the page under
    # a run the student started
    practice, back, slot = st.container(), st.container(), st.container()
    with back:
        class_follow.student_check(course, code, url_path)
    with practice:
        class_follow.practice_note(course, code, url_path)
    class_follow.hand_check()
    try:
        is_open, now = views._watched(code)
    except class_store.StoreUnavailable:
        return
    if not is_open:
        # a student exploring a lesson learns the class has ended (they never did)
        slot.caption(f":material/event_busy: Class {session.plain(code)} has ended. The lessons are all still here.")
    elif now is not None and not now[3] and not st.session_state.get(views.VOTED + now[0]):
        slot.page_link(
            course.class_page.page_file,
            label="Your teacher has opened a question: answer it in Class mode",
            icon=":material/how_to_vote:",
        )
