"""The Class page: start or join a class, and the two sides of a poll (peer instruction:
predict, vote, talk it over, vote again, reveal).

- The teacher sees the join code, link and QR code, picks a lesson's question, opens
  and closes the vote, opens a second vote, reveals, and watches the votes arrive: the
  histogram is a fragment that reruns every second on its own, without reloading the page.
  Below it, the class's results per question and per exercise, and a CSV for a gradebook.
- A student sees the open question, answers (a second answer replaces the first), and
  at the reveal the answer with the measurement that settles it. A small fragment checks
  every second whether the teacher moved on, and only then redraws the page; it also
  follows the teacher's sends (``class_follow``).

The state lives in the class database (``classroom.store``) and ``classroom.session`` says
who this session is; this module only draws.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import html
import time
import zoneinfo
from urllib.parse import parse_qsl

import pandas as pd
import streamlit as st

from posenc_lab.classroom import figures as vote_figures
from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import plan as class_plan
from posenc_lab.classroom import questions as class_questions
from posenc_lab.classroom import report, session, sketch_input, tally
from posenc_lab.classroom import sketch as sketches
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom.poll import Poll
from posenc_lab.figures import notation
from posenc_lab.ui import layout
from posenc_lab.ui.exercise_kinds import Guided
from posenc_lab.ui.lesson import Course

#: seconds between the teacher's live updates (a student's page checks every
#: ``class_follow.STUDENT_EVERY_S``)
TEACHER_EVERY_S = 1.0
#: the teacher's results table (not projected) refreshes itself this often
DASHBOARD_EVERY_S = 5.0
#: session keys
DRAWN = "_class:drawn"  # (class open, its round) as this student's page was drawn
VOTED = "_class:voted:"  # + round id: the vote this session sent
SEND = "class_send_"  # + round id: the vote form's submit button
SKETCH = "class_sketch_"  # + round id: a student's drawing area
JOIN_CODE = "_class:join_code"  # a join link's code, kept for the form
RESUME_CODE = "class_resume_code"  # the code box of "Continue teaching a class"
RESUME_OPEN = "_class:resume_open"  # an old teacher link arrived: the form opens for the key
SHOW_LINK = "class_show_key"  # the switch that shows the teacher key (off unless the teacher turns it on)
FLASH = "_class:flash"  # a teacher action's result, shown once
DELETED = "_class:deleted"  # "Class ... was deleted", shown once on the page that follows
PICKED_ROUND = "_class:picked_round"  # the round the question picker last followed
TEACHER_DRAWN = "_class:teacher_drawn"  # the round state the teacher's page was drawn with
SHOW_VOTES = "class_show_votes"  # the teacher's switch: the votes' chart while the vote is open
HOURS = (1, 2, 4, 8, 12, 24)

LEAD = (
    "Predict before you see it. Your teacher opens a question from a lesson; everyone votes on "
    "a phone or a laptop, and the votes appear on the projector as they arrive. Talk it over "
    "with a neighbour, vote again, and then the reveal shows the answer with the measurement that settles it."
)


# cached per server: every student asks the same things


@st.cache_data(ttl=1.0, show_spinner=False)
def _class_state(code: str) -> tuple | None:
    """(round id, poll key, round number, closed, revealed) of the class's current round.
    Cached a second per server, so 200 students checking every second cost one query a second."""
    db = session.database()
    if db is None:
        raise class_store.StoreUnavailable(session.problem())
    current = db.current_round(code)
    if current is None:
        return None
    return (current.id, current.poll_key, current.number, current.closed is not None, current.revealed is not None)


def _watch_state(code: str) -> tuple[bool, tuple | None]:
    """What a student's page is drawn from: whether the class is still open (the teacher
    may end it, or its time may run out, while the student waits), read from the database,
    and its current round as the page reads it (``_class_state``)."""
    db = session.database()
    if db is None:
        raise class_store.StoreUnavailable(session.problem())
    return db.is_open(code), _class_state(code)


@st.cache_data(ttl=1.0, show_spinner=False)
def _watched(code: str) -> tuple[bool, tuple | None]:
    """``_watch_state``, cached a second per server: 200 students checking every second
    cost one read a second."""
    return _watch_state(code)


# the course is not part of a cache key (a leading underscore): a process has one course,
# and hashing it would walk every lesson record
@st.cache_data(show_spinner=False)
def _answer(_course: Course, key: str) -> float:
    return float(_course.poll_by_key(key).answer())


@st.cache_data(show_spinner=False)
def _reveal_text(_course: Course, key: str) -> str:
    return _course.poll_by_key(key).reveal(_answer(_course, key))


@st.cache_resource(show_spinner=False, max_entries=64)
def _reveal_figure(_course: Course, key: str):
    poll = _course.poll_by_key(key)
    return poll.figure() if poll.figure is not None else None


def answer_of(course: Course, poll: Poll) -> float:
    return float(poll.answer()) if class_questions.is_own(poll) else _answer(course, poll.key)


def reveal_text_of(course: Course, poll: Poll) -> str:
    return poll.reveal(poll.answer()) if class_questions.is_own(poll) else _reveal_text(course, poll.key)


def reveal_figure_of(course: Course, poll: Poll):
    return None if class_questions.is_own(poll) else _reveal_figure(course, poll.key)


@st.cache_data(show_spinner=False)
def _measured(_course: Course, key: str):
    return _course.poll_by_key(key).measured()


def measured_of(course: Course, poll: Poll):
    """A sketch question's measured curve at the sketch's points (shares of the y range)."""
    return poll.measured() if class_questions.is_own(poll) else _measured(course, poll.key)


def vote_words(course: Course, poll: Poll, vote: str) -> str:
    """A student's own vote as their page says it: the option, the number with its unit, or
    "your sketch" (how far it lies from the measured curve is said at the reveal)."""
    if poll.sketch is not None:
        return "your sketch"
    return tally.vote_label(vote, poll.options, poll.unit)


def _answer_label(course: Course, poll: Poll) -> str:
    if poll.sketch is not None:
        return "the measured curve, dashed on the chart"
    answer = answer_of(course, poll)
    if poll.options:
        return poll.options[int(answer)]
    shown = str(int(round(answer))) if poll.integer else f"{answer:.4g}"
    return f"{shown} {poll.unit}".strip()


def _unavailable() -> None:
    st.error(
        f"Class mode is unavailable: {session.problem() or 'the class database cannot be reached right now'}. "
        "Every lesson still works, and exercises you solve are kept in this browser."
    )


# the page


def page(course: Course) -> None:
    old_teacher_link = session.TEACHER_PARAM in st.query_params
    if session.CODE_PARAM in st.query_params and session.STUDENT_PARAM not in st.query_params:
        code = class_store.normalize_code(st.query_params[session.CODE_PARAM])[:12]
        # an old teacher link's code goes to "Continue teaching", a join link's to the join form
        st.session_state[RESUME_CODE if old_teacher_link else JOIN_CODE] = code
    if old_teacher_link:
        st.session_state[RESUME_OPEN] = True
    refused = session.refuse_teacher_link()
    db = session.database()
    if db is not None:
        refused = refused or session.keep_teacher_in_tab() or _check_teacher(db)
    if db is None:
        st.title("Class mode")
        _unavailable()
        return
    # one container above the views at every state: what it holds (a title, a note) never
    # moves the views' fragments to another place in the page (``teacher_view``)
    with st.container():
        if session.teacher() is None:
            st.title("Class mode")
        if refused:
            st.error(session.plain(refused))
        deleted = st.session_state.pop(DELETED, None)
        if deleted:
            st.success(deleted)
    try:
        if session.teacher() is not None:
            teacher_view(course, db, *session.teacher())
        elif session.member() is not None:
            student_view(course, db, session.member())
        else:
            landing(db)
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        _unavailable()


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
                value=st.session_state.get(JOIN_CODE, ""),
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
        opened = bool(st.session_state.get(RESUME_OPEN))
        with st.expander("Continue teaching a class", icon=":material/key:", expanded=opened):
            with st.form("class_resume", border=False):
                code = st.text_input("Your class's code", key=RESUME_CODE, max_chars=12)
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


# the teacher's side


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
    current = db.current_round(code)
    st.session_state[TEACHER_DRAWN] = _round_state(current)
    # The page has one shape at every class state and setting: each part whose content
    # varies (a note, the join panel, the plan bar, the controls, the editor, the teacher's
    # private part) is one container, so the fragments that rerun every second or five (the
    # joined count, the votes, the roster, the results) keep their place in the page. A
    # fragment moved by a run is a new fragment to Streamlit, and a check of the old one
    # still on its way draws into whatever now stands where it stood: the frontend's
    # "'setIn' cannot be called on an ElementNode", and a blank projector.
    st.title(session.plain(info.title) if info.title else f"Class {session.plain(code)}")
    with st.container():
        if ended:
            st.warning(
                f"Class {session.plain(code)} has ended: students can no longer join or vote. Its results stay below."
            )
    with st.container():
        if current is None:
            # before the first question the room needs the way in, large
            _join_panel(base, code, info)
    if current is None:
        _joined_line(code, "", f". The class ends at {_clock(info.expires)}.")
    else:
        # during the questions the votes need the screen: the way in shrinks to a line
        _joined_line(code, f"Join with code **{_spaced(code)}** at {session.address_text(base)}/class: ", ".")
    with st.container():
        if current is not None:
            with st.expander("Join link and QR code", icon=":material/qr_code_2:"):
                _join_panel(base, code, info)
    with st.container():
        if not ended:
            class_plan.bar(course, "")
    with st.container():
        _question_controls(course, db, code, key, ended, current)
    with st.container():
        if not layout.presenting() and not ended:
            class_plan.editor(course, code, key)
    _live_results(course, code)
    with st.container():
        if not layout.presenting():
            # never on the projector: it shows right answers before their reveal, and nicknames
            st.divider()
            _roster(course, code, key)
            _dashboard(course, code, key)
            _files(course, db, code, key, asked=current is not None)
            _running(db, info, key, students, base, ended)


def _refused_note(info: class_store.ClassInfo) -> str:
    """ " Closed to new students; 3 joins refused." for the line under the join code ("" if neither)."""
    parts = ["closed to new students"] if info.locked else []
    if info.refused:
        parts.append(f"{info.refused} join{'s' if info.refused != 1 else ''} refused")
    return (" " + "; ".join(parts).capitalize() + ".") if parts else ""


@contextlib.contextmanager
def _teacher_call():
    """Around a teacher's callback (it runs before the page is drawn again): the class
    database, or a note of why the action was not done; the cached class state is dropped
    after, so the page draws what the action changed."""
    db = session.database()
    try:
        if db is None:
            raise class_store.StoreUnavailable(session.problem())
        yield db
    except class_store.NotTeacher:
        st.session_state[FLASH] = "Only the teacher link controls this class."
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        st.session_state[FLASH] = "Not done: " + session.said(exc) + "."
    _class_state.clear()
    _watched.clear()


def _admin(action: str, code: str, key: str, widget: str | None = None) -> None:
    """A teacher's class control."""
    with _teacher_call() as db:
        if action == "lock":
            db.set_locked(code, key, bool(st.session_state[widget]))
        elif action == "cap":
            db.set_cap(code, key, int(st.session_state[widget]))
        elif action == "remove":
            student_id = st.session_state.get(widget)
            if student_id and db.remove_student(code, key, student_id):
                st.session_state[FLASH + "ok"] = "Removed from the class, with their answers."
        elif action == "end":
            db.end_class(code, key)
        elif action == "extend":
            st.session_state[FLASH + "ok"] = f"The class now ends at {_clock(db.extend_class(code, key, 1.0))}."
        elif action == "delete":
            db.delete_class(code, key)
            session.stop_teaching()
            st.session_state[DELETED] = f"Class {session.plain(code)} and everything in it were deleted."
        elif action == "new_key":
            session.set_teacher(code, db.new_teacher_key(code, key))
            st.session_state[SHOW_LINK] = True


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
    done = st.session_state.pop(FLASH + "ok", None)
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
        help=f"The class ends at {_clock(info.expires)}; an ended class opens again for an hour.",
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
        f"({_day(info.expires + keep * 86400.0)})."
    )
    st.markdown("**Your teacher key**")
    st.caption(
        "It alone opens, closes and reveals questions and shows the results. It is shown only while the "
        "switch below is on, and presenter mode hides all of this. This tab remembers it while it is open. If it "
        "leaked, make a new one: the old key stops working at once."
    )
    shown = st.toggle("Show my teacher key", key=SHOW_LINK)
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


@st.fragment(run_every=TEACHER_EVERY_S)
def _joined_line(code: str, before: str, after: str) -> None:
    """ "**12** joined", counted as students join (every second, without the teacher's click),
    with the refused joins; ``before`` and ``after`` are the line's own Markdown around it.
    One element at every state: the line, or an empty place when the class cannot be read."""
    line = st.empty()
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


def _zone() -> dt.tzinfo:
    """The viewer's time zone, as their browser reports it (UTC when it reports none or one
    this server does not know)."""
    name = st.context.timezone
    if name:
        try:
            return zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            pass
    return dt.UTC


def _day(epoch: float) -> str:
    """A date and time in the viewer's time zone: "04 December 2026, 10:21 (Europe/Paris)"."""
    return _in_zone(epoch, "%d %B %Y, %H:%M")


def _clock(epoch: float) -> str:
    """A time of day in the viewer's time zone: "10:21 (Europe/Paris)"."""
    return _in_zone(epoch, "%H:%M")


def _in_zone(epoch: float, pattern: str) -> str:
    zone = _zone()
    shown = dt.datetime.fromtimestamp(epoch, zone).strftime(pattern)
    return f"{shown} UTC" if zone is dt.UTC or str(zone) in ("UTC", "Etc/UTC") else f"{shown} ({zone})"


@st.cache_data(show_spinner=False, max_entries=64)
def _qr_png(text: str) -> bytes:
    import io

    import segno

    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="png", scale=8, border=2, dark="#000000", light="#ffffff")
    return buffer.getvalue()


def _act(action: str, code: str, key: str, poll_key: str | None = None) -> None:
    """A teacher's button for the open question."""
    with _teacher_call() as db:
        if action in ("open", "again"):
            db.open_poll(code, key, poll_key)
        elif action == "close":
            db.close_round(code, key)
        elif action == "reveal":
            db.reveal(code, key)


def _question_controls(course: Course, db: class_store.Store, code: str, key: str, ended: bool, current) -> None:
    # the teacher's own questions first: written for today's class
    polls = {poll.key: poll for poll in [*class_questions.own_polls(db, code), *course.all_polls()]}
    keys = list(polls)
    if "class_poll" not in st.session_state or st.session_state["class_poll"] not in keys:
        st.session_state["class_poll"] = (
            current.poll_key if current is not None and current.poll_key in keys else keys[0]
        )
    # a round opened elsewhere (a plan's step, the teacher's other tab) brings the picker to
    # its question, so that Close, Vote again and Reveal act on it
    if current is not None and st.session_state.get(PICKED_ROUND) != current.id:
        st.session_state[PICKED_ROUND] = current.id
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
    row.button(
        "Open the vote",
        type="primary",
        icon=":material/how_to_vote:",
        disabled=ended or voting,
        on_click=_act,
        args=("open", code, key, chosen),
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
        args=("again", code, key, chosen),
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
        key=SHOW_VOTES,
        help="Off: the chart of the votes shows once you close the vote, so early answers do not sway the rest.",
    )
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.error(flash)
    if not layout.presenting() and not ended:
        _write_question(course, code, key)


#: the widgets of "Write your own question" (their values are read by ``_add_question``)
Q = "class_q_"
Q_NOTE = "_class:q_note"  # (ok, text): what adding or removing a question did, shown once
CHOICE_KIND, NUMBER_KIND = "Multiple choice", "A number"
OPTIONS_RANGE = f"{class_store.OPTIONS_MIN} to {class_store.OPTIONS_MAX}"
#: the form's empty state, put back once a question is added
Q_BLANK = {
    Q + "prompt": "",
    Q + "options": "",
    Q + "answer": None,
    Q + "tolerance": 0.0,
    Q + "low": 0.0,
    Q + "high": 100.0,
    Q + "integer": False,
    Q + "unit": "",
    Q + "why": "",
    Q + "view": "",
}


def _write_question(course: Course, code: str, key: str) -> None:
    """The teacher's own question: multiple choice or a number, in plain text, with what the
    reveal says and, if wanted, the view that settles it (its address, settings and all)."""
    note = st.session_state.pop(Q_NOTE, None)
    with st.expander("Write your own question", icon=":material/edit_note:", expanded=note is not None):
        if note is not None:
            (st.success if note[0] else st.error)(note[1])
        for name, value in Q_BLANK.items():
            st.session_state.setdefault(name, value)
        kind = st.radio("Kind", [CHOICE_KIND, NUMBER_KIND], horizontal=True, key=Q + "kind")
        with st.form("class_q_form", border=False, enter_to_submit=False):
            st.text_area(
                "Question",
                max_chars=class_store.PROMPT_CHARS,
                key=Q + "prompt",
                height=80,
                placeholder="What do you predict ...?",
                help="Plain text, shown as typed (no formatting).",
            )
            if kind == CHOICE_KIND:
                st.text_area(
                    f"Options, one per line ({OPTIONS_RANGE}): the right one first",
                    key=Q + "options",
                    height=130,
                    help="Each student sees the options in an order of their own; the projector keeps yours.",
                )
            else:
                cols = st.columns(4)
                cols[0].number_input("The answer", key=Q + "answer", format="%g", step=None)
                cols[1].number_input("Right within ±", min_value=0.0, key=Q + "tolerance", format="%g", step=None)
                cols[2].number_input("Lowest answer", key=Q + "low", format="%g", step=None)
                cols[3].number_input("Highest answer", key=Q + "high", format="%g", step=None)
                cols = st.columns([1, 3], vertical_alignment="bottom")
                cols[0].checkbox("Whole numbers", key=Q + "integer")
                cols[1].text_input("Unit (optional)", max_chars=class_store.UNIT_CHARS, key=Q + "unit")
            st.text_area(
                "Why: what the reveal says (optional)",
                max_chars=class_store.WHY_CHARS,
                key=Q + "why",
                height=80,
            )
            st.text_input(
                "The view that settles it (optional): its address",
                key=Q + "view",
                placeholder="/rope?view=rotation&base=500",
                help="Open the view in a lesson with the settings you want and copy the address bar here: "
                "after the reveal, Explore it opens it for everyone.",
            )
            st.form_submit_button(
                "Add the question", icon=":material/add:", on_click=_add_question, args=(course, code, key, kind)
            )


def question_from_form(course: Course, kind: str, values: dict) -> class_store.Question:
    """The teacher's question from the form's ``values`` (widget key -> value), checked:
    ValueError saying what to change."""
    view = class_follow.address_of_link(course, values[Q + "view"] or "")
    why = values[Q + "why"] or ""
    if kind == CHOICE_KIND:
        options = [line for line in (values[Q + "options"] or "").splitlines() if line.strip()]
        # the first is the right one; every student sees them shuffled
        question = class_store.Question(values[Q + "prompt"] or "", tuple(options), 0.0, why=why, view=view)
    else:
        answer = values[Q + "answer"]
        if answer is None:
            raise ValueError("type the answer")
        question = class_store.Question(
            values[Q + "prompt"] or "",
            (),
            float(answer),
            float(values[Q + "tolerance"] or 0.0),
            float(values[Q + "low"]),
            float(values[Q + "high"]),
            bool(values[Q + "integer"]),
            values[Q + "unit"] or "",
            why,
            view,
        )
    return class_store.check_question(question)


def _add_question(course: Course, code: str, key: str, kind: str) -> None:
    values = {name: st.session_state.get(name, blank) for name, blank in Q_BLANK.items()}
    try:
        question = question_from_form(course, kind, values)
    except ValueError as exc:
        st.session_state[Q_NOTE] = (False, f"Not added: {session.plain(str(exc))}.")
        return
    added = None
    with _teacher_call() as db:
        try:
            added = db.add_question(code, key, question)
        except ValueError as exc:  # the class holds as many as it may
            st.session_state[Q_NOTE] = (False, f"Not added: {session.plain(str(exc))}.")
    if added is not None:
        st.session_state.update(Q_BLANK)
        st.session_state["class_poll"] = added.key  # ready to open
        st.session_state[Q_NOTE] = (True, "Added, and chosen above: preview it, then open the vote.")


def _remove_question(code: str, key: str, poll_key: str) -> None:
    with _teacher_call() as db:
        # the plan's steps that open it go with it (Store.remove_question): named for the teacher
        steps = [i for i, step in enumerate(db.class_plan(code).steps, 1) if step.target == poll_key]
        if db.remove_question(code, key, poll_key):
            st.session_state.pop("class_poll", None)
            named = ", ".join(str(i) for i in steps)
            with_steps = (
                f", with step{'s' if len(steps) > 1 else ''} {named} of the plan, which opened it" if steps else ""
            )
            st.session_state[Q_NOTE] = (True, f"Removed{with_steps}.")
        else:
            st.session_state[FLASH] = "The class was asked this question: it stays, with its votes."


def _preview(course: Course, poll: Poll, code: str, key: str) -> None:
    """The chosen question in full, on the teacher's own screen (never in presenter mode: it
    holds the answer): what students read, the options as written, the answer, why, and the
    figure the reveal shows."""
    with st.expander("Preview the question, its answer and its figure", icon=":material/preview:"):
        st.markdown(f"**{class_questions.lesson_title(course, poll)}.** {class_questions.prompt_markdown(poll)}")
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
                sketch_figure(course, poll, [], revealed=True),
                key=f"preview_sketch_{poll.key}",
                filename=f"class_{poll.key}",
                downloads=False,
            )
        else:
            unit = " " + session.plain(poll.unit) if poll.unit else ""
            st.caption(f"A number between {poll.low:g} and {poll.high:g}{unit}.")
        st.markdown(f"**The answer:** {session.plain(_answer_label(course, poll))}")
        st.markdown(reveal_text_of(course, poll))
        fig = reveal_figure_of(course, poll)
        if fig is not None:
            layout.chart(fig, key=f"preview_{poll.key}", filename=f"class_{poll.key}", downloads=False)
        if explore_lesson(course, poll) is not None:
            st.caption(f"After the reveal, Explore it opens {class_follow.describe(course, poll.view)}.")
        if class_questions.is_own(poll):
            st.button(
                "Remove this question",
                icon=":material/delete:",
                key=f"class_remove_{poll.key}",
                on_click=_remove_question,
                args=(code, key, poll.key),
                help="Only a question the class was never asked: the votes of one asked stay in the results.",
            )


def sketch_figure(course: Course, poll: Poll, votes: list[str], revealed: bool, mine: str | None = None):
    """A sketch question's chart: the sketches in ``votes`` and their median, the measured
    curve once ``revealed``, and ``mine`` (a student's own) drawn strong."""
    sk = poll.sketch
    low, high = sk.y_range
    to_units = lambda shares: [low + (high - low) * v for v in shares]  # noqa: E731
    drawn = [h for h in (sketches.decode(v) for v in votes) if h is not None]
    median = sketches.median(votes)
    mine_heights = sketches.decode(mine) if mine else None
    measured = None
    if revealed:
        x, y = sk.curve()
        measured = (list(map(float, x)), list(map(float, y)))
    return vote_figures.sketch_overlay(
        sketches.xs(sk.x_range).tolist(),
        [to_units(h) for h in drawn],
        title=f"Sketches ({len(drawn)})" if votes else "Your sketch and the measured curve",
        x_title=sk.x_title,
        y_title=sk.y_title,
        y_range=sk.y_range,
        median=None if median is None else to_units(median),
        measured=measured,
        mine=None if mine_heights is None else to_units(mine_heights),
    )


def vote_figure(course: Course, poll: Poll, rounds: list[tuple[str, list[str]]], revealed: bool):
    """The histogram of one question's rounds (votes as stored), the right answer marked
    once revealed; for a sketch question, the last round's sketches over one another."""
    if poll.sketch is not None:
        return sketch_figure(course, poll, rounds[-1][1] if rounds else [], revealed)
    answer = answer_of(course, poll)
    if poll.options:
        # Plotly reads a label's tags (<b>, <a href>): a teacher's option is shown as typed
        labels = [html.escape(option, quote=False) for option in poll.options]
        counted = [(name, tally.choice_counts(votes, len(labels))) for name, votes in rounds]
        right = int(answer) if revealed else None
    else:
        edges = tally.numeric_edges(poll.low, poll.high, poll.integer)
        labels = tally.numeric_labels(edges, poll.integer)
        if poll.unit:
            unit = html.escape(poll.unit, quote=False)  # a teacher's unit, as typed (Plotly reads tags)
            labels = [f"{label} {unit}" for label in labels]
        counted = [(name, tally.numeric_counts(votes, edges)) for name, votes in rounds]
        right = tally.bin_of(answer, edges) if revealed else None
    return vote_figures.vote_bars(labels, counted, title="Votes", right=right)


def _round_state(current: class_store.Round | None) -> tuple | None:
    """What the teacher's question buttons are drawn from: the round, and whether it is closed
    and revealed."""
    return None if current is None else (current.id, current.closed is not None, current.revealed is not None)


#: the places of the teacher's live results, in order: each drawn at every run, filled or not
LIVE_PLACES = ("question", "reveal_first", "count", "votes", "shares", "reveal_after")


@st.fragment(run_every=TEACHER_EVERY_S)
def _live_results(course: Course, code: str) -> None:
    # the same places at every state (no question, voting, closed, revealed; projected or
    # not): a run never changes the shape of the fragment under a check on its way
    place = {name: st.container() for name in LIVE_PLACES}
    db = session.database()
    if db is None:
        with place["question"]:
            _unavailable()
        return
    try:
        current = db.current_round(code)
        if _round_state(current) != st.session_state.get(TEACHER_DRAWN):
            # opened, closed or revealed elsewhere (the teacher's other device): the buttons
            # above were drawn for the round before, so the whole page is drawn again. A
            # press on this page runs the page first: this check runs after it, and finds
            # the state that run drew.
            st.rerun()
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
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        with place["question"]:
            _unavailable()
        return
    count = len(votes[current.id])
    revealed = current.revealed is not None
    status = "voting" if current.closed is None else ("revealed" if revealed else "closed")
    place["question"].markdown(f"#### {class_questions.prompt_markdown(poll)}")
    if revealed and layout.presenting():
        # on the projector the answer, why, and the figure that settles it come first
        with place["reveal_first"]:
            _reveal(course, poll, vote=None, student=False)
    place["count"].markdown(f"##### **{count} of {joined} students answered** in round {current.number} ({status})")
    if current.closed is None and not st.session_state.get(SHOW_VOTES, False):
        # peer instruction: the room sees how it voted once the vote is closed, so that
        # the first answers do not sway the rest
        place["votes"].caption(
            "The votes show here when you close the vote (or turn on *Show the votes while voting*)."
        )
        return
    rounds = [(f"round {r.number}", [vote for vote, _ in votes[r.id]]) for r in earlier]
    fig = vote_figure(course, poll, rounds, revealed=revealed)
    with place["votes"]:
        layout.chart(fig, key="class_votes", filename=f"class_{poll.key}", downloads=False)
    if revealed:
        shares = [f"round {r.number}: {sum(ok for _, ok in votes[r.id])} of {len(votes[r.id])} right" for r in earlier]
        place["shares"].markdown("Right answers: " + "; ".join(shares) + ".")
        if not layout.presenting():
            with place["reveal_after"]:
                _reveal(course, poll, vote=None, student=False)


@st.fragment(run_every=DASHBOARD_EVERY_S)
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


@st.fragment(run_every=DASHBOARD_EVERY_S)
def _dashboard(course: Course, code: str, key: str) -> None:
    # the same places at every state (a fragment that reruns every few seconds)
    head, table, by_question, joined = st.container(), st.empty(), st.container(), st.empty()
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
            results_table(course, rows, own),
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
    questions = question_columns(course, own)
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


def _files(course: Course, db: class_store.Store, code: str, key: str, asked: bool) -> None:
    """The gradebook and, once a question was asked, the summary by question, as CSV files made
    from the class database when pressed: they hold every answer up to the press.

    Drawn by the page's full runs only, outside the fragments that rerun every second or five
    seconds: each draw of a button gives it a new id for its file, and a press made with the
    id of the draw before (on its way as the fragment ran again) found nothing to make. What a
    press makes is kept for the browser to fetch (``classroom.kept_download``)."""
    questions = question_columns(course, class_questions.own_polls(db, code))
    exercises = exercise_columns(course)
    zone = _zone()
    files = st.container(horizontal=True)
    name = f"posenc-lab_class_{code}_gradebook.csv"
    files.download_button(
        "Gradebook (CSV)",
        data=session.kept_download(
            lambda: report.gradebook_csv(db.class_record(code, key), exercises, questions, zone), name, "text/csv"
        ),
        file_name=name,
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        help="One row per student: exercises solved, and each answer in words with whether it was right.",
    )
    if asked:
        name = f"posenc-lab_class_{code}_summary.csv"
        files.download_button(
            "Summary by question (CSV)",
            data=session.kept_download(
                lambda: report.summary_csv(report.question_results(db.class_record(code, key), questions)),
                name,
                "text/csv",
            ),
            file_name=name,
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
            help="The table above: each question's rounds, the shift between them, the common wrong answers.",
        )


def exercise_columns(course: Course) -> list[report.ExerciseColumn]:
    """Every exercise as the students saw it, in the lessons' order: a guided exercise is
    one column, solved once every step is (the count a student's page shows)."""
    return [
        report.ExerciseColumn(
            f"{number}. {lesson.title}: {notation.plain_markdown(ex.title)}",
            tuple(step.key for step in ex.steps) if isinstance(ex, Guided) else (ex.key,),
        )
        for number, lesson in enumerate(course.lessons, 1)
        for ex in lesson.exercises
    ]


def question_columns(course: Course, own: list[Poll] = ()) -> list[report.QuestionColumn]:
    """Every question a teacher can open, with its options' text: the teacher's own (``own``),
    then the lessons' in their order."""
    return [
        report.QuestionColumn(
            poll.key,
            class_questions.poll_label(course, poll, cut=False),
            poll.options,
            poll.unit,
            None if poll.sketch is None else tuple(measured_of(course, poll).tolist()),
        )
        for poll in [*own, *course.all_polls()]
    ]


def results_table(course: Course, rows: list[class_store.ItemSummary], own: list[Poll] = ()) -> pd.DataFrame:
    """The teacher's results: one row per exercise and per round of a question.

    Each column holds one type, so that Arrow converts the frame as it is: a column that
    mixed a round's number with an exercise's empty cell made Streamlit log a failed
    conversion, with its traceback, on every refresh of the dashboard.
    """
    titles = _titles(course) | {poll.key: class_questions.poll_label(course, poll) for poll in own}
    polls = {poll.key: poll for poll in [*own, *course.all_polls()]}
    return pd.DataFrame(
        [
            {
                "item": titles.get(row.key, row.key),
                # text: a question's round number, empty for an exercise (which has none)
                "round": str(row.number) if row.number else "",
                "answered": int(row.answered),
                "right": int(row.right),
                "success": row.right / row.answered if row.answered else 0.0,
                "most common wrong answers": "; ".join(
                    f"{_wrong_label(course, polls.get(row.key), answer)} ({n})" for answer, n in row.wrong
                ),
            }
            for row in rows
        ],
        columns=["item", "round", "answered", "right", "success", "most common wrong answers"],
    )


def _titles(course: Course) -> dict[str, str]:
    titles = {poll.key: class_questions.poll_label(course, poll) for poll in course.all_polls()}
    for lesson in course.lessons:
        for ex in lesson.exercises:
            title = notation.plain_markdown(ex.title)
            titles[ex.key] = f"{lesson.title}: {title}"
            if isinstance(ex, Guided):
                for n, step in enumerate(ex.steps, 1):
                    titles[step.key] = f"{lesson.title}: {title}, step {n}"
    return titles


def _wrong_label(course: Course, poll: Poll | None, answer: str) -> str:
    if poll is not None and poll.sketch is not None:
        return report.sketch_words(answer, measured_of(course, poll))
    return tally.vote_label(answer, poll.options, poll.unit) if poll is not None else answer


# the student's side


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
    now = _class_state(me.code)
    st.session_state[DRAWN] = (is_open, now)
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
    round_id, poll_key, number, closed, revealed = now
    poll = class_questions.poll_of(course, db, me.code, poll_key)
    if poll is None:
        st.warning("Your teacher opened a question this version of the app does not have.")
        return
    st.markdown(f"#### {class_questions.prompt_markdown(poll)}")
    # what this student sent in this round: this session's, else the database's (a reload,
    # another device, a restarted server)
    sent = st.session_state.get(VOTED + round_id) or db.vote_of(round_id, me.student_id)
    if revealed:
        _reveal(course, poll, vote=sent)
    elif closed:
        if st.session_state.get(SEND + round_id):
            # the student pressed Send on the open form, and the teacher closed the vote first
            st.warning("Your answer was not counted: voting closed before it arrived.")
        st.info(
            "Voting is closed"
            + (f"; you answered **{session.plain(vote_words(course, poll, sent))}**" if sent else "")
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
            step = 1 if poll.integer else max((poll.high - poll.low) / 1000, 1e-6)
            counted = tally.decode_number(sent)
            if counted is not None and not poll.low <= counted <= poll.high:
                counted = None
            value = st.number_input(
                f"Your answer{' (' + session.plain(poll.unit) + ')' if poll.unit else ''}",
                min_value=int(poll.low) if poll.integer else float(poll.low),
                max_value=int(poll.high) if poll.integer else float(poll.high),
                value=None if counted is None else (int(counted) if poll.integer else counted),
                step=step,
                placeholder=f"between {poll.low:g} and {poll.high:g}",
            )
            vote = None if value is None else tally.encode_number(float(value), poll.integer)
        pressed = st.form_submit_button(
            "Change my answer" if sent else "Send my answer", type="primary", key=SEND + round_id
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
            f"Counted: **{session.plain(vote_words(course, poll, sent))}**. You can change it until voting closes."
        )


def _send(
    course: Course, db: class_store.Store, me: session.Member, poll: Poll, round_id: str, vote: str, what: str
) -> bool | None:
    """Store a student's ``vote`` with whether it is right: True when counted, False when the
    vote had just closed, None when the student is no longer in the class (each said)."""
    if poll.sketch is not None:
        right = poll.is_right_vote(vote, measured=measured_of(course, poll))
    else:
        right = poll.is_right_vote(vote, answer=answer_of(course, poll))
    if db.answer(round_id, me.student_id, vote, right):
        st.session_state[VOTED + round_id] = vote
        return True
    if db.student(me.code, me.student_id) is None:
        st.warning(f"This {what} was not counted: you are not in this class any more.")
        return None
    st.warning(f"Voting has just closed: this {what} was not counted.")
    return False


def _sketch_form(course: Course, db: class_store.Store, me: session.Member, poll: Poll, round_id: str, sent) -> None:
    """A drawn prediction: the drawing area (finger, mouse or keyboard) and its Send button
    (outside a form: the drawing reaches the app as it is made)."""
    sk = poll.sketch
    vote = sketch_input.sketch_input(
        SKETCH + round_id,
        x_range=sk.x_range,
        y_range=sk.y_range,
        x_title=sk.x_title,
        y_title=sk.y_title,
        label=f"Your sketch of {sk.y_title} against {sk.x_title}",
    )
    if st.button(
        "Change my sketch" if sent else "Send my sketch", type="primary", key=SEND + round_id, disabled=vote is None
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
    sends (checked every second). One place at every state: the "Go to your class" line
    or nothing, so a check never changes the page's shape under a run the student started."""
    with st.container():
        class_follow.student_check(course, code, course.class_page.url_path)
    class_follow.hand_check()
    drawn = st.session_state.get(DRAWN)
    try:
        now = _watched(code)
        if now != drawn:
            # this cache is filled apart from the one the page drew from (``_class_state``),
            # and can be up to a second older: a page drawn just after the teacher opened a
            # question would run again and again for that second, and a run that "Send my
            # answer" started would end in the rerun, its press lost. Asked again as the page
            # reads it: the page is behind only if that differs too.
            now = _watch_state(code)
    except class_store.StoreUnavailable:
        return  # the next check tries again; the page drawn stays as it is
    if now != drawn:
        st.rerun()


def _reveal(course: Course, poll: Poll | None, vote: str | None, student: bool = True) -> None:
    if poll is None:
        return
    answer_text = _answer_label(course, poll)
    st.success(f"The answer: **{session.plain(answer_text)}**")
    if vote is not None and poll.sketch is not None:
        off = sketches.error(vote, measured_of(course, poll))
        right = off is not None and off <= poll.tolerance
        st.markdown(
            f"Your sketch lies {round(100 * (off or 0))}% of the height from the measured curve on average "
            f"({round(100 * poll.tolerance)}% or less counts): {'right' if right else 'not this time'}."
        )
        layout.chart(
            sketch_figure(course, poll, [], revealed=True, mine=vote),
            key=f"reveal_sketch_{poll.key}",
            filename=f"class_{poll.key}",
            downloads=False,
        )
    elif poll.sketch is not None and student:
        # no sketch sent: the measured curve alone (the teacher's chart draws it over the class's)
        layout.chart(
            sketch_figure(course, poll, [], revealed=True),
            key=f"reveal_sketch_{poll.key}",
            filename=f"class_{poll.key}",
            downloads=False,
        )
    elif vote is not None:
        right = poll.is_right_vote(vote, answer=answer_of(course, poll))
        mine = session.plain(tally.vote_label(vote, poll.options, poll.unit))
        st.markdown(f"You answered **{mine}**: {'right' if right else 'not this time'}.")
    st.markdown(reveal_text_of(course, poll))
    fig = reveal_figure_of(course, poll)
    if fig is not None:
        # no Save or Data buttons on the projected screen
        layout.chart(fig, key=f"reveal_{poll.key}", filename=f"class_{poll.key}", downloads=not layout.presenting())
    lesson = explore_lesson(course, poll)
    if lesson is not None:
        params = dict(parse_qsl(poll.view.partition("?")[2]))
        st.page_link(
            lesson.page_file, label=f"Explore it: {lesson.title}", icon=":material/arrow_forward:", query_params=params
        )


def explore_lesson(course: Course, poll: Poll):
    """The lesson page a question's "Explore it" opens (its ``view`` address): None when it
    names none, or a page this app does not have."""
    if not poll.view:
        return None
    path = poll.view.partition("?")[0]
    return next((page for page in class_follow.places(course) if page.url_path == path), None)


def banner(course: Course, code: str, url_path: str) -> None:
    """On a lesson page (``url_path``), for a student in a class: a link to the class page
    while the teacher has a question open, and the class's "follow me" (``class_follow``),
    checked every second."""
    if code:
        class_follow.hand_switch(st.sidebar)  # the side panel: the lesson's chart keeps its place
        _banner(course, code, url_path)


@st.fragment(run_every=class_follow.STUDENT_EVERY_S)
def _banner(course: Course, code: str, url_path: str) -> None:
    # the same places at every state (the "Back to your class" line or not; a link, a line,
    # nothing): a check that reruns every second never changes the shape of the page under
    # a run the student started
    back, slot = st.container(), st.empty()
    with back:
        class_follow.student_check(course, code, url_path)
    class_follow.hand_check()
    try:
        is_open, now = _watched(code)
    except class_store.StoreUnavailable:
        return
    if not is_open:
        # a student exploring a lesson learns the class has ended (they never did)
        slot.caption(f":material/event_busy: Class {session.plain(code)} has ended. The lessons are all still here.")
    elif now is not None and not now[3] and not st.session_state.get(VOTED + now[0]):
        slot.page_link(
            course.class_page.page_file,
            label="Your teacher has opened a question: answer it in Class mode",
            icon=":material/how_to_vote:",
        )
