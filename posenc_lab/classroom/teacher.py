"""The teacher's screen of the Class page (``teacher_view``): the join code, link and QR code,
running the class (close it, cap it, remove a student, extend, end, a new key, delete), the
question picker with its preview, opening and closing a vote, a second vote, the reveal,
and the votes as they arrive: the console (plan bar, question controls, results) is a
fragment drawn from the database every second, so several teacher devices stay in step."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from posenc_lab.classroom import dashboard, question_form, session, tally, views
from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import plan as class_plan
from posenc_lab.classroom import questions as class_questions
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom.poll import Poll
from posenc_lab.ui import layout
from posenc_lab.ui.lesson import Course


def _spaced(code: str) -> str:
    """A class code as the room reads it off the projector, "K7Q M3P", as Markdown."""
    return session.plain(f"{code[:3]} {code[3:]}")


def teacher_view(course: Course, db: class_store.Store, code: str, key: str) -> None:
    info = db.class_info(code)
    if info is None:
        st.error(f"Class {session.plain(code)} no longer exists.")
        return
    base = session.public_base()
    ended = not db.is_open(code)
    students = db.students(code)
    current = db.live_round(code)
    # The page has one shape at every class state and setting: each part whose content
    # varies (the join panel, the forms, the teacher's private part) is one container, so the
    # fragments that rerun every second or five (the joined count, the console, the roster,
    # the results) keep their place in the page. A
    # fragment moved by a run is a new fragment to Streamlit, and a check of the old one
    # still on its way draws into whatever now stands where it stood: the frontend's
    # "'setIn' cannot be called on an ElementNode", and a blank projector.
    st.title(session.plain(info.title) if info.title else f"Class {session.plain(code)}")
    with st.container():
        if current is None:
            # before the first question the room needs the way in, large
            _join_panel(base, code, info)
    if current is None:
        _joined_line(code, "", f". The class ends at {views._clock(info.expires)}.")
    else:
        # during the questions the votes need the screen: the way in shrinks to a line
        _joined_line(code, f"Join with code **{_spaced(code)}** at {session.address_text(base)}/class: ", ".")
    with st.container():
        if current is not None:
            with st.expander("Join link and QR code", icon=":material/qr_code_2:"):
                _join_panel(base, code, info)
    _console(course, code, key)
    with st.container():
        if not layout.presenting() and not ended:
            question_form._write_question(course, code, key)
            class_plan.editor(course, code, key)
    with st.container():
        if not layout.presenting():
            # never on the projector: it shows right answers before their reveal, and nicknames
            st.divider()
            dashboard._roster(course, code, key)
            dashboard._dashboard(course, code, key)
            dashboard._files(course, db, code, key, asked=current is not None)
            _running(db, info, key, students, base, ended)


def _refused_note(info: class_store.ClassInfo) -> str:
    """ " Closed to new students; 3 joins refused." for the line under the join code ("" if neither)."""
    parts = ["closed to new students"] if info.locked else []
    if info.refused:
        parts.append(f"{info.refused} join{'s' if info.refused != 1 else ''} refused")
    return (" " + "; ".join(parts).capitalize() + ".") if parts else ""


def _admin(action: str, code: str, key: str, widget: str | None = None) -> None:
    """A teacher's class control."""
    with views._teacher_call() as db:
        if action == "lock":
            db.set_locked(code, key, bool(st.session_state[widget]))
        elif action == "cap":
            db.set_cap(code, key, int(st.session_state[widget]))
        elif action == "remove":
            student_id = st.session_state.get(widget)
            if student_id and db.remove_student(code, key, student_id):
                st.session_state[views.FLASH + "ok"] = "Removed from the class, with their answers."
        elif action == "end":
            db.end_class(code, key)
        elif action == "extend":
            st.session_state[views.FLASH + "ok"] = (
                f"The class now ends at {views._clock(db.extend_class(code, key, 1.0))}."
            )
        elif action == "delete":
            db.delete_class(code, key)
            session.stop_teaching()
            st.session_state[views.DELETED] = f"Class {session.plain(code)} and everything in it were deleted."
        elif action == "new_key":
            session.set_teacher(code, db.new_teacher_key(code, key))
            st.session_state[views.SHOW_LINK] = True


def _running(
    db: class_store.Store,
    info: class_store.ClassInfo,
    key: str,
    students: list[class_store.Student],
    base: str,
    ended: bool,
) -> None:
    """The class's controls, on the teacher's own screen (presenter mode hides them): who may
    join, removing a fake classmate, ending the class, and the private link."""
    code = info.code
    st.subheader("Running the class")
    done = st.session_state.pop(views.FLASH + "ok", None)
    if done:
        st.success(done)
    if info.refused:
        st.warning(
            f"{info.refused} join{'s were' if info.refused != 1 else ' was'} refused: the class was closed to new "
            "students or full, or too many students joined from one network address in a few minutes."
        )
    left, right = st.columns(2, gap="large")
    with left:
        st.toggle(
            "Closed to new students",
            value=info.locked,
            key="class_locked",
            disabled=ended,
            on_change=_admin,
            args=("lock", code, key, "class_locked"),
            help="Students in the class stay and come back with their link; nobody new can join.",
        )
        st.number_input(
            "Most students in the class",
            min_value=1,
            max_value=class_store.MAX_CLASS_CAP,
            value=info.cap,
            step=1,
            key="class_cap",
            disabled=ended,
            on_change=_admin,
            args=("cap", code, key, "class_cap"),
            help="Joins beyond it are refused; students already in stay.",
        )
    with right:
        ids = [s.student_id for s in students]
        names = {s.student_id: f"{s.nickname or 'anonymous'} ({s.student_id[:4]})" for s in students}
        st.selectbox(
            "Remove a student",
            ids,
            index=None,
            key="class_remove",
            format_func=lambda sid: names.get(sid, sid[:4]),
            placeholder="A fake classmate, or a duplicate",
            help="Removes them and their votes and exercises from the class; their link stops working.",
        )
        st.button(
            "Remove from the class",
            icon=":material/person_remove:",
            disabled=not ids,
            on_click=_admin,
            args=("remove", code, key, "class_remove"),
        )
    keep = class_store.RETENTION_DAYS
    try:
        keep = class_store.retention_days()
    except ValueError:
        pass  # purge_old logs it
    ends = st.container(horizontal=True, gap="small")
    ends.button(
        "Extend by an hour",
        icon=":material/more_time:",
        on_click=_admin,
        args=("extend", code, key),
        help=f"The class ends at {views._clock(info.expires)}; an ended class opens again for an hour.",
    )
    with ends.popover("End class now", icon=":material/stop_circle:", disabled=ended):
        st.write("Nobody can join or vote any more. The results stay on this page and in the gradebook.")
        st.button("End the class for everyone", type="primary", on_click=_admin, args=("end", code, key))
    with ends.popover("Delete the class", icon=":material/delete:"):
        st.write(
            "Deletes the class and everything in it now: names, votes, exercises. Download the gradebook first "
            "if you need it. Student and teacher links stop working."
        )
        st.button("Delete the class and its data", type="primary", on_click=_admin, args=("delete", code, key))
    st.caption(
        f"Otherwise everything in the class is deleted {keep:g} days after it ends "
        f"({views._day(info.expires + keep * 86400.0)})."
    )
    st.markdown("**Your teacher key**")
    st.caption(
        "It alone opens, closes and reveals questions and shows the results. It is shown only while the "
        "switch below is on, and presenter mode hides all of this. This tab remembers it while it is open. If it "
        "leaked, make a new one: the old key stops working at once."
    )
    shown = st.toggle("Show my teacher key", key=views.SHOW_LINK)
    if shown:
        held = session.teacher()
        st.code(held[1] if held else key, language=None)
        st.caption(
            f"On another device or in another tab: open {session.address_text(base)}/class, press *Continue "
            f"teaching a class*, and type the code {session.plain(code)} and this key. It never goes into a link, "
            "so no browser history and no server log keeps it."
        )
    row = st.container(horizontal=True, gap="small")
    row.button("New teacher link", icon=":material/autorenew:", on_click=_admin, args=("new_key", code, key))
    row.button(
        "Stop teaching on this device",
        icon=":material/logout:",
        on_click=session.stop_teaching,
        help="Back to the join page; the teacher key brings the teacher view back.",
    )


def _join_panel(base: str, code: str, info: class_store.ClassInfo) -> None:
    link = session.join_link(base, code)
    show, qr = st.columns([3, 2], gap="large")
    with show:
        st.markdown(f"Scan the code, or open **{session.address_text(base)}/class** and type:")
        st.markdown(f"# {_spaced(code)}")
        st.caption(f"Join link: {session.address_text(link)}")
        st.link_button(
            "Open the room screen",
            session.room_link(base, code),
            icon=":material/cast:",
            help="For the projector: it follows the class by itself and shows only what the room sees "
            "(no key, no names, no answer before Reveal). Its link holds the class code alone.",
        )
    with qr:
        st.image(_qr_png(link), width=240, caption="Scan to join", alt=f"QR code of {link}")
    if session.is_local(base):
        guess = session.lan_guess()
        st.warning(
            f"{session.address_text(base)} works only on this computer: students' phones cannot open it. "
            "Start the app with "
            "`--server.address 0.0.0.0` and open it by this computer's network address"
            + (f" (probably http://{guess}:{st.get_option('server.port')})" if guess else "")
            + f", or set {session.PUBLIC_URL} to the address students use."
        )


@st.fragment(run_every=views.TEACHER_EVERY_S)
def _joined_line(code: str, before: str, after: str) -> None:
    """ "**12** joined", counted as students join (every second, without the teacher's click),
    with the refused joins; ``before`` and ``after`` are the line's own Markdown around it.
    One place at every state (a container: a check's run replaces the line in it, where an
    ``st.empty`` is first drawn empty and blanks the line for a moment, which moved the page
    under a teacher's open list and closed it)."""
    line = st.container()
    db = session.database()
    try:
        if db is None:
            raise class_store.StoreUnavailable(session.problem())
        info = db.class_info(code)
        joined = len(db.students(code))
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        return
    if info is not None:
        line.markdown(f"{before}**{joined}** joined{after}" + _refused_note(info))


@st.cache_data(show_spinner=False, max_entries=64)
def _qr_png(text: str) -> bytes:
    import io

    import segno

    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="png", scale=8, border=2, dark="#000000", light="#ffffff")
    return buffer.getvalue()


def _act(action: str, code: str, key: str, poll_key: str | None = None, after: str | None = None) -> None:
    """A teacher's button for the open question; ``after``: the class's round the button was
    drawn on (a press that reaches the server twice opens one round). The console's buttons
    run the console again; the class's first question runs the whole page again, whose join
    panel then folds to a line."""
    with views._teacher_call() as db:
        if action in ("open", "again"):
            opened = db.open_poll(code, key, poll_key, after=after)
            seconds = st.session_state.get(views.OPEN_TIMER, 0)
            # a press delivered twice returns the round it opened: its timer is set once
            if seconds and opened.deadline is None and opened.is_open:
                db.set_timer(code, key, seconds)
        elif action == "close":
            db.close_round(code, key)
        elif action == "reveal":
            db.reveal(code, key)
    if action == "open" and after is None:
        st.rerun()  # from a callback: the press's run is the whole page's


def _timer(code: str, key: str, seconds: int | None = None, widget: str | None = None) -> None:
    """A teacher's timer for the open vote: ``seconds`` (30 s, 1 min, 2 min), the custom
    number in ``widget``, or none (both None)."""
    if widget is not None:
        seconds = st.session_state.get(widget)
        if seconds is None:
            st.session_state[views.FLASH] = "Type a number of seconds for the timer first."
            return
    with views._teacher_call() as db:
        try:
            if db.set_timer(code, key, seconds) is None:
                st.session_state[views.FLASH] = "No vote is open: the timer starts with a vote."
        except ValueError as exc:
            st.session_state[views.FLASH] = f"No timer set. {exc}"


def _timer_controls(code: str, key: str, current: class_store.Round) -> None:
    """While a vote is open: set its timer (30 s, 1 min, 2 min, or a custom number of seconds),
    which closes it at zero, or take the timer away."""
    row = st.container(horizontal=True, gap="small", vertical_alignment="bottom", key="class_timer_bar")
    for seconds in class_store.TIMER_CHOICES_S:
        row.button(
            tally.timer_label(seconds),
            icon=":material/timer:",
            key=f"class_timer_{seconds}",
            on_click=_timer,
            args=(code, key, seconds),
            help=f"Closes the vote {tally.timer_label(seconds)} from now, on every screen.",
        )
    row.number_input(
        f"Custom timer, seconds ({class_store.TIMER_MIN_S} to {class_store.TIMER_MAX_S})",
        value=90,
        step=5,
        key=views.TIMER_SECONDS,
        width=220,
    )
    row.button(
        "Start the timer",
        key="class_timer_custom",
        on_click=_timer,
        args=(code, key, None, views.TIMER_SECONDS),
    )
    if current.deadline is not None:
        row.button("No timer", icon=":material/timer_off:", key="class_timer_off", on_click=_timer, args=(code, key))


def _show(code: str, key: str, widget: str | None = None) -> None:
    """Show the room one student's answer (the one picked in ``widget``), or none."""
    student = None if widget is None else st.session_state.get(widget)
    with views._teacher_call() as db:
        if not db.show_answer(code, key, student):
            st.session_state[views.FLASH] = "That answer cannot be shown: the vote is open again, or it is gone."


def _show_controls(
    course: Course, db: class_store.Store, code: str, key: str, current: class_store.Round, poll: Poll
) -> None:
    """Once the vote is closed: one student's answer on the room screen, without the name, to
    talk it over (as a Desmos snapshot is). Picked by name here, on the teacher's own screen."""
    rows = [(sid, name, vote) for sid, name, vote in db.answers_of(code, key, current.id) if vote is not None]
    if not rows:
        return
    names = tally.distinct_names((sid, name) for sid, name, _ in rows)

    def said(sid: str, vote: str) -> str:
        mine = poll.for_student(session.member_seed(code, sid)) if poll.each is not None else poll
        return views.vote_words(course, mine, vote)

    labels = {sid: f"{name}: {said(sid, vote)}" for name, (sid, _, vote) in zip(names, rows, strict=True)}
    if st.session_state.get(views.SHOW_PICK) not in labels:
        st.session_state[views.SHOW_PICK] = current.shown if current.shown in labels else next(iter(labels))
    row = st.container(horizontal=True, gap="small", vertical_alignment="bottom", key="class_show_bar")
    row.selectbox(
        "One answer for the room screen (shown there without the name)",
        list(labels),
        key=views.SHOW_PICK,
        format_func=labels.get,
        width=420,
    )
    row.button(
        "Show it to the room",
        icon=":material/co_present:",
        key="class_show_it",
        on_click=_show,
        args=(code, key, views.SHOW_PICK),
        help="The room screen shows this answer under the question, without the student's name, to talk it over.",
    )
    if current.shown is not None:
        row.button(
            "Stop showing it", icon=":material/hide_source:", key="class_show_none", on_click=_show, args=(code, key)
        )


def _question_controls(course: Course, db: class_store.Store, code: str, key: str, ended: bool, current) -> Poll:
    """The question picker (with its preview, off the projector) and the buttons that open,
    close, repeat and reveal a vote, drawn for the ``current`` round; the question picked."""
    # the teacher's own questions first: written for today's class
    polls = {poll.key: poll for poll in class_questions.every_poll(course, db, code)}
    keys = list(polls)
    if "class_poll" not in st.session_state or st.session_state["class_poll"] not in keys:
        st.session_state["class_poll"] = (
            current.poll_key if current is not None and current.poll_key in keys else keys[0]
        )
    # a round opened elsewhere (a plan's step, the teacher's other tab) brings the picker to
    # its question, so that Close, Vote again and Reveal act on it
    if current is not None and st.session_state.get(views.PICKED_ROUND) != current.id:
        st.session_state[views.PICKED_ROUND] = current.id
        if current.poll_key in keys:
            st.session_state["class_poll"] = current.poll_key
    # on the projector the controls fold to one row: the question picker behind a button
    row = st.container(horizontal=True, gap="small", vertical_alignment="center", key="class_question_bar")
    picker = row.popover("Question", icon=":material/list:") if layout.presenting() else st.container()
    chosen = picker.selectbox(
        "Question",
        keys,
        key="class_poll",
        format_func=lambda k: class_questions.poll_label(course, polls[k]),
        help="Two or three per lesson (questions to predict before seeing the figure), and the ones you write.",
    )
    if not layout.presenting():
        _preview(course, polls[chosen], code, key)
        row = st.container(horizontal=True, gap="small", vertical_alignment="center", key="class_question_buttons")
    is_current = current is not None and current.poll_key == chosen
    voting = is_current and current.closed is None
    # the round the Open / Vote again buttons are drawn on: a press delivered twice opens one
    drawn_on = current.id if current is not None else None
    row.selectbox(
        "Timer for the vote",
        (0, *class_store.TIMER_CHOICES_S),
        key=views.OPEN_TIMER,
        format_func=lambda s: f"Timer: {tally.timer_label(s)}" if s else "No timer",
        label_visibility="collapsed",
        width=150,
        help="Open the vote and Vote again start it with this timer, which closes the vote at zero on every screen.",
    )
    row.button(
        "Open the vote",
        type="primary",
        icon=":material/how_to_vote:",
        disabled=ended or voting,
        on_click=_act,
        args=("open", code, key, chosen, drawn_on),
        help="Shows this question on every student's screen and starts counting (a new round).",
    )
    row.button(
        "Close the vote",
        icon=":material/block:",
        disabled=not voting,
        on_click=_act,
        args=("close", code, key),
        help="Stops taking answers: time to talk it over.",
    )
    row.button(
        "Vote again",
        icon=":material/replay:",
        disabled=ended or not is_current or voting or current.revealed is not None,
        on_click=_act,
        args=("again", code, key, chosen, drawn_on),
        help="A second round on the same question after discussion; the chart shows both rounds.",
    )
    row.button(
        "Reveal",
        icon=":material/visibility:",
        disabled=not is_current or current.revealed is not None,
        on_click=_act,
        args=("reveal", code, key),
        help="Shows everyone the answer and the measurement that settles it.",
    )
    row.toggle(
        "Show the votes while voting",
        key=views.SHOW_VOTES,
        help="Off: the chart of the votes shows once you close the vote, so early answers do not sway the rest.",
    )
    return polls[chosen]


def _preview(course: Course, poll: Poll, code: str, key: str) -> None:
    """The chosen question in full, on the teacher's own screen (never in presenter mode: it
    holds the answer): what students read, the options as written, the answer, why, and the
    figure the reveal shows."""
    with st.expander("Preview the question, its answer and its figure", icon=":material/preview:"):
        st.markdown(f"**{class_questions.lesson_title(course, poll)}.** {class_questions.prompt_markdown(poll)}")
        if poll.each is not None:
            st.caption(
                "Each student's device draws numbers of its own (the same after a reload and in a second round): "
                "neighbours cannot copy a value. Their votes are checked against their own numbers; the chart "
                "shows the share right, not the values. Below: the question as first written."
            )
        if poll.options:
            st.markdown("\n".join(f"{i}. {session.plain(text)}" for i, text in enumerate(poll.options, 1)))
            st.caption("Each student sees the options in an order of their own; the projector keeps this one.")
        elif poll.sketch is not None:
            sk = poll.sketch
            st.caption(
                f"Students sketch {sk.y_title} against {sk.x_title} ({sk.x_range[0]:g} to {sk.x_range[1]:g}); a sketch "
                f"within {round(100 * poll.tolerance)}% of the height of the measured curve on average counts as right."
            )
            layout.chart(
                views.sketch_figure(course, poll, [], revealed=True),
                key=f"preview_sketch_{poll.key}",
                filename=f"class_{poll.key}",
                downloads=False,
            )
        else:
            unit = " " + session.plain(poll.unit) if poll.unit else ""
            st.caption(f"A number between {poll.low:g} and {poll.high:g}{unit}.")
        st.markdown(f"**The answer:** {session.plain(views._answer_label(course, poll))}")
        named = views.misconceptions_of(course, poll)
        if named:
            # here only: the room and the students see them named on the chart after Reveal
            lines = [f"- {session.plain(views.number_label(poll, v))}: {session.plain(name)}" for v, name in named]
            st.markdown("**Wrong answers classes give**, named on the chart after *Reveal*:\n" + "\n".join(lines))
        st.markdown(views.reveal_text_of(course, poll))
        fig = views.reveal_figure_of(course, poll)
        if fig is not None:
            layout.chart(fig, key=f"preview_{poll.key}", filename=f"class_{poll.key}", downloads=False)
        if views.explore_lesson(course, poll) is not None:
            st.caption(f"After the reveal, Explore it opens {class_follow.describe(course, poll.view)}.")
        # the question bank: any question but a sketch or a variant's copied into the form,
        # the teacher's own also changed in place or removed (while never asked)
        row = st.container(horizontal=True, gap="small")
        if poll.sketch is None and poll.each is None:
            row.button(
                "Copy it into your own questions",
                icon=":material/content_copy:",
                key=f"class_copy_{poll.key}",
                on_click=question_form.copy_into_form,
                args=(course, code, poll),
                help="Fills Write your own question with it: change its numbers, options or words, then add it.",
            )
        if class_questions.is_own(poll):
            row.button(
                "Change this question",
                icon=":material/edit:",
                key=f"class_edit_{poll.key}",
                on_click=question_form.edit_in_form,
                args=(course, code, poll),
                help="Only a question the class was never asked: its votes would be for the question as it was.",
            )
            row.button(
                "Remove this question",
                icon=":material/delete:",
                key=f"class_remove_{poll.key}",
                on_click=question_form._remove_question,
                args=(code, key, poll.key),
                help="Only a question the class was never asked: the votes of one asked stay in the results.",
            )


#: the places of the teacher's console, in order: each drawn at every run, filled or not
CONSOLE_PLACES = (
    "ended",
    "plan",
    "controls",
    "extra",
    "flash",
    "question",
    "reveal_first",
    "count",
    "timer",
    "shown",
    "who",
    "votes",
    "shares",
    "reveal_after",
)


@st.fragment(run_every=views.TEACHER_EVERY_S)
def _console(course: Course, code: str, key: str) -> None:
    """The teacher's console, drawn from the database every second and at each press in it:
    the plan bar, the question controls and the open question's results. Another device's
    Next, Open, Close or Reveal shows here within a second, and the buttons are drawn for
    the round the results show. A check never asks for a run of the whole page (a page run
    started by a check while a press's run was on its way blanked consoles and the
    projector): the same places at every state (no plan, no question, voting, closed,
    revealed, ended; projected or not), so a run never changes the fragment's shape under
    another on its way."""
    place = {name: st.container() for name in CONSOLE_PLACES}
    db = session.database()
    if db is None:
        with place["question"]:
            views._unavailable()
        return
    try:
        ended = not db.is_open(code)
        # closed here if its timer ran out and no other page has closed it yet
        current = db.live_round(code)
        if ended:
            place["ended"].warning(
                f"Class {session.plain(code)} has ended: students can no longer join or vote. Its results stay below."
            )
        else:
            with place["plan"]:
                class_plan.bar(course, "")
        with place["controls"]:
            chosen = _question_controls(course, db, code, key, ended, current)
        with place["extra"]:
            if current is not None and current.poll_key == chosen.key and not ended:
                if current.closed is None:
                    _timer_controls(code, key, current)
                elif not layout.presenting():
                    _show_controls(course, db, code, key, current, chosen)
        flash = st.session_state.pop(views.FLASH, None)
        if flash:
            place["flash"].error(flash)
        _results(course, db, code, key, current, place)
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        with place["question"]:
            views._unavailable()
    except class_store.NotTeacher:
        return  # the key was replaced: the page says so on its next full run


def _results(
    course: Course, db: class_store.Store, code: str, key: str, current: class_store.Round | None, place: dict
) -> None:
    """The open question's results in the console's places: the question, how many answered,
    the countdown, the answer shown to the room, who answered (never projected), the votes
    (hidden while voting unless the teacher shows them) and, after Reveal, the answer."""
    clock = db.now()
    if current is None:
        place["question"].info("No question is open yet. Pick one above and press Open the vote.")
        return
    poll = class_questions.poll_of(course, db, code, current.poll_key)
    if poll is None:
        place["question"].warning(
            f"The open question ({session.plain(current.poll_key)}) is not in this version of the app."
        )
        return
    earlier = [r for r in db.rounds(code, poll.key) if r.number <= current.number][-2:]
    votes = {r.id: db.votes(r.id) for r in earlier}
    joined = len(db.students(code))
    shown = db.shown_answer(current)
    # by name: never on the projector (presenter mode), never read for it
    who = None if layout.presenting() else db.answers_of(code, key, current.id)
    count = len(votes[current.id])
    # one element at every check: the countdown while the vote is open, else an empty line
    place["timer"].markdown(views.countdown(current.deadline, clock) if current.closed is None else "")
    if shown is not None:
        # what the room screen shows: the same block, without a name (on the projected
        # teacher page too)
        with place["shown"]:
            views.draw_shown(course, poll, code, current, shown, key="class_shown_answer")
    if who is not None:
        with place["who"]:
            _who_answered(course, poll, who, code)
    revealed = current.revealed is not None
    status = "voting" if current.closed is None else ("revealed" if revealed else "closed")
    place["question"].markdown(f"#### {class_questions.prompt_markdown(poll)}")
    if revealed and layout.presenting():
        # on the projector the answer, why, and the figure that settles it come first
        with place["reveal_first"]:
            views._reveal(course, poll, vote=None, student=False)
    place["count"].markdown(f"##### **{count} of {joined} students answered** in round {current.number} ({status})")
    if current.closed is None and not st.session_state.get(views.SHOW_VOTES, False):
        # peer instruction: the room sees how it voted once the vote is closed, so that
        # the first answers do not sway the rest
        place["votes"].caption(
            "The votes show here when you close the vote (or turn on *Show the votes while voting*)."
        )
        return
    # the share right of each student's own numbers: on the teacher's own screen at once, on
    # the projector at the reveal
    fig = views.rounds_figure(course, poll, earlier, votes, revealed, shares=revealed or not layout.presenting())
    with place["votes"]:
        if fig is None:
            st.caption(views.OWN_NUMBERS_NOTE)
        else:
            layout.chart(fig, key="class_votes", filename=f"class_{poll.key}", downloads=False)
    if revealed:
        shares = [f"round {r.number}: {sum(ok for _, ok in votes[r.id])} of {len(votes[r.id])} right" for r in earlier]
        place["shares"].markdown("Right answers: " + "; ".join(shares) + ".")
        if not layout.presenting():
            with place["reveal_after"]:
                views._reveal(course, poll, vote=None, student=False)


def _who_answered(course: Course, poll: Poll, rows: list[tuple[str, str, str | None]], code: str) -> None:
    """Who has answered the current round and what, and who has not yet, by name: on the
    teacher's own screen only (``_console`` never draws it in presenter mode). Names are
    students' text: escaped in the line (``session.plain``), plain cells in the table. A
    question each student answers with their own numbers says each answer in that student's
    variant, and whether it is right for it."""
    names = tally.distinct_names((sid, nickname) for sid, nickname, _ in rows)
    mine = {sid: poll.for_student(session.member_seed(code, sid)) for sid, _, _ in rows} if poll.each else {}
    answered, waiting = tally.who_answered(
        (name, (sid, vote) if vote is not None else None) for name, (sid, _, vote) in zip(names, rows, strict=True)
    )
    st.markdown(
        f"**Not answered yet ({len(waiting)}):** " + (session.plain(", ".join(waiting)) if waiting else "nobody")
    )
    st.caption(
        f"Answered ({len(answered)}), and what: on your screen only. Presenter mode and the room screen never "
        "show names."
    )
    table = {
        "student": [name for name, _ in answered],
        "answer": [views.vote_words(course, mine.get(sid, poll), vote) for _, (sid, vote) in answered],
    }
    if mine:
        table["right for their numbers"] = [
            "yes" if mine[sid].is_right_vote(vote, answer=views.answer_of(course, mine[sid])) else "no"
            for _, (sid, vote) in answered
        ]
    # drawn at every check, empty before the first answer: the fragment keeps its shape. The
    # columns' widths add up to what a 390 px phone's console shows (356 px), so the grid never
    # scrolls sideways there (a long name or answer is cut at its column's edge); on a wider
    # screen the rest of the width is shared out
    st.dataframe(
        pd.DataFrame(table, dtype=object),
        hide_index=True,
        width="stretch",
        # a header and a row at least: an empty grid draws its "empty" line in a row of its own
        height=min(36 * (max(len(answered), 1) + 1) + 2, 300),
        column_config={
            "student": st.column_config.TextColumn("student", width=WHO_WIDTHS[0]),
            "answer": st.column_config.TextColumn("answer", width=WHO_WIDTHS[1] if mine else sum(WHO_WIDTHS[1:])),
            "right for their numbers": st.column_config.TextColumn(
                "right", width=WHO_WIDTHS[2], help="Right for that student's own numbers"
            ),
        },
    )


#: the widths (px) of the "who answered" grid's columns: student, answer, right for their numbers
WHO_WIDTHS = (106, 188, 60)
