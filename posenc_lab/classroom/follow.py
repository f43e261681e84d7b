"""Follow me: the teacher sends the class to a lesson's view with its settings, and sees
where every student's page is.

- On a lesson page, the teacher (this session holds the teacher key) has a thin bar above
  the lesson: *Send the class here* sends every student to this view with these settings
  (the address bar holds them); *Hold the class here* brings back a student who steps away,
  and while it is on, the teacher's own moves are sent too (a demo the room watches on
  their own screens). The bar checks every ``TEACHER_EVERY_S``.
- A student's page (a lesson's class banner, or the class page) checks every
  ``STUDENT_EVERY_S``: a new send takes it to the address at once, without a reload; a
  student who moved away on their own sees where the class is and goes back with one
  click; each check says where the page is (the teacher's roster), written only when that
  changed or a while has passed.

The addresses are made by ``here``: the page's path and its settings in sorted order, the
class link's names and presenter mode left out, so the teacher's and a student's address
of one view with one set of values are the same string.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit

import streamlit as st

from posenc_lab.classroom import session
from posenc_lab.classroom import store as class_store
from posenc_lab.ui import exercises as lesson_exercises
from posenc_lab.ui import layout, mastery, state
from posenc_lab.ui.exercise_kinds import Guided
from posenc_lab.ui.lesson import Course, Lesson

#: seconds between a student's checks for a new send, and between the teacher bar's
STUDENT_EVERY_S = 1.0
TEACHER_EVERY_S = 2.0
#: a student's page writes where it is when that changes, and at least this often (the
#: roster's "last seen")
PLACE_EVERY_S = 30.0
#: URL names that are not a view's settings: a class link's, a teacher link's, a room screen's,
#: presenter mode
NOT_SETTINGS = frozenset(
    {session.CODE_PARAM, session.STUDENT_PARAM, session.TEACHER_PARAM, session.ROOM_PARAM, "present"}
)
#: session keys: the last send this page followed, and the last place it reported (place, when)
FOLLOWED = "_class:followed"
REPORTED = "_class:reported"
#: (class code, send number, the page's place, time.monotonic()): a send this page set out
#: to follow. The check records the send as followed before it switches pages; a rerun that
#: cuts the check short between the two (a press, the hand check) would leave the page where
#: it was with the send counted, so a check that finds itself still at that place goes again.
GOING = "_class:going"
#: seconds after setting out within which a page still at its place goes again
GOING_AGAIN_S = 10.0
#: the teacher bar's switch
HOLD = "class_hold"
#: (class code, address): where this teacher page was at its bar's last check
BAR_SEEN = "_class:bar_seen"
#: the plan step a teacher's Previous / Next press takes this page to on its run (the press's
#: callback cannot switch pages: ``classroom.plan``); set, the page is about to leave
PLAN_GOTO = "_plan:goto"


def places(course: Course) -> tuple[Lesson, ...]:
    """The pages a teacher can send the class to: the numbered lessons and the reference pages."""
    return (*course.lessons, *course.reference)


def here(url_path: str) -> str:
    """The running page's address as it is sent and compared: ``rope?gap=2&step=1&view=rotation``."""
    params = sorted((k, v) for k, v in st.query_params.to_dict().items() if k not in NOT_SETTINGS)
    return url_path + ("?" + urlencode(params) if params else "")


def on_address(place: str, sent: str) -> bool:
    """Whether a page at ``place`` shows the view ``sent`` names: the same page, and every
    setting the sent address names at its value. A page writes all its settings into its
    address, while an address from a plan or a pasted link may name only some: the rest are
    the view's defaults, which the page then writes in."""
    if not sent:
        return False
    path, _, query = place.partition("?")
    sent_path, _, sent_query = sent.partition("?")
    if path != sent_path:
        return False
    mine = dict(parse_qsl(query))
    return all(mine.get(name) == value for name, value in parse_qsl(sent_query))


def describe(course: Course, address: str) -> str:
    """What a person calls an address: "RoPE · Rotation" (the lesson, then its view)."""
    path, _, query = address.partition("?")
    if path == course.class_page.url_path:
        return "the class page"
    page = next((p for p in places(course) if p.url_path == path), None)
    if page is None:
        return path
    view = dict(parse_qsl(query)).get("view")
    label = page.views[view].label if view in page.views else ""
    title = f"{page.number}. {page.title}" if page.number is not None else page.title
    return f"{title} · {label}" if label else title


def settings_of(address: str) -> str:
    """The settings an address holds, as a teacher reads them in a plan step's label:
    "head_dim 32, base 500, gap 7" in the address's order ("" for a view at its defaults);
    the view itself and the class's own names left out."""
    _, _, query = address.partition("?")
    pairs = [(k, v) for k, v in parse_qsl(query) if k != "view" and k not in NOT_SETTINGS]
    return ", ".join(f"{k} {v}" for k, v in pairs)


def address_of_link(course: Course, text: str) -> str:
    """The app address a pasted link names (``rope?base=500&view=rotation``; "" for none):
    a full URL or a path, the class's own names and presenter mode left out. ValueError,
    in words for the teacher, when it names no page of this app."""
    text = text.strip()
    if not text:
        return ""
    parts = urlsplit(text if "://" in text else "http://app/" + text.lstrip("/"))
    # the app may sit under a path prefix (behind a proxy): the page is the last part
    path = parts.path.strip("/").rsplit("/", 1)[-1]
    if next((p for p in places(course) if p.url_path == path), None) is None:
        raise ValueError("the view's address names no lesson of this app: open the view and copy its address")
    params = sorted((k, v) for k, v in parse_qsl(parts.query) if k not in NOT_SETTINGS)
    address = path + ("?" + urlencode(params) if params else "")
    try:
        return class_store.check_address(address, "the view's address")
    except ValueError:
        raise ValueError("the view's address holds characters a lesson's address never has") from None


def go(course: Course, address: str) -> None:
    """Take this page to ``address`` now (no reload), as a link opened afresh: the view's
    values are the address's. Nothing happens for an address this app does not have."""
    path, _, query = address.partition("?")
    # the class page: where a question is asked (a plan's question step sends the class there)
    page = course.class_page if path == course.class_page.url_path else None
    page = page or next((p for p in places(course) if p.url_path == path), None)
    if page is None:
        return
    params = dict(parse_qsl(query))
    me = session.member()
    if me is not None:
        params[session.CODE_PARAM], params[session.STUDENT_PARAM] = me.code, me.student_id
    # presenter mode is this screen's, not the address's: a projector stepping a plan stays
    # projected (the link was opened without it, and the teacher's private screen was shown)
    params.update(presenter_param())
    state.open_as_link()
    st.switch_page(page.page_file, query_params=params)


def presenter_param() -> dict[str, str]:
    """``{"present": "1"}`` on a page in presenter mode, else nothing: what a page switch
    adds to its address so that the screen stays in presenter mode."""
    return {"present": "1"} if layout.presenting() else {}


# cached per server: every student of a class asks the same thing


@st.cache_data(ttl=0.5, show_spinner=False)
def _follow_state(code: str) -> tuple[int, str, bool, bool] | None:
    """(send number, address, held, practice) of the class; cached half a second per server,
    so 200 students checking every second cost two queries a second."""
    db = session.database()
    if db is None:
        raise class_store.StoreUnavailable(session.problem())
    follow = db.follow(code)
    return None if follow is None else (follow.seq, follow.address, follow.held, follow.practice)


def clear_follow_state() -> None:
    """Forget the cached follow state, so this process's pages see a send at their next check."""
    _follow_state.clear()


# a student's page


def student_check(course: Course, code: str, url_path: str) -> None:
    """On a student's page (``url_path``: a lesson's, or the class page's): follow a new send,
    come back when the class is held, say where the class is, and report where this page is.
    Called from a fragment that reruns every ``STUDENT_EVERY_S``."""
    try:
        follow = _follow_state(code)
    except class_store.StoreUnavailable:
        return  # the next check tries again
    if follow is None:
        return
    seq, address, held, _ = follow
    # the class page has no settings: its place is its path, whatever the address holds
    mine = url_path if url_path == course.class_page.url_path else here(url_path)
    _report(code, mine)
    # the send this page has followed, in this class (a student may leave and join another)
    was = st.session_state.get(FOLLOWED)
    followed = was[1] if isinstance(was, tuple) and was[0] == code else None
    if followed is not None and seq < followed:
        # older than the send this page has followed: the half-second cache, filled before
        # a send made through another process. Taken as it is, it would make the next check
        # follow that send again and pull back a student who has stepped away since.
        return
    st.session_state[FOLLOWED] = (code, seq)
    if held and address:
        # said, not only done: a held student's moves go back to the teacher's settings at the
        # next check, and a slider that snapped back with no word read as a broken page
        st.info(
            f"**Your teacher is holding the class on {session.plain(describe(course, address))}.** Your own "
            "moves go back to your teacher's settings until your teacher lets the class go.",
            icon=":material/front_hand:",
        )
    if not address or on_address(mine, address):
        st.session_state.pop(GOING, None)  # arrived: a step back by hand is the student's own
        return
    if (followed is not None and seq > followed) or held or _cut_short(code, seq, mine):
        st.session_state[GOING] = (code, seq, mine, time.monotonic())
        go(course, address)
    elif st.button(
        f"{'Go to' if url_path == course.class_page.url_path else 'Back to'} your class: {describe(course, address)}",
        icon=":material/undo:",
        key="class_back",
        help="Your class is on this view, with your teacher's settings.",
    ):
        # moved away on their own: one line that says where the class is, and takes them there
        go(course, address)


def practice_note(course: Course, code: str, url_path: str) -> None:
    """On a student's lesson page (``url_path``): when the teacher has set the class to practise
    this lesson, a banner that says so and what it means. Called from the one-second check."""
    try:
        follow = _follow_state(code)
    except class_store.StoreUnavailable:
        return  # the next check tries again
    if follow is None or not follow[3] or follow[1].partition("?")[0] != url_path:
        return
    st.info(
        f"**Practice: {session.plain(describe(course, url_path))}.** Your teacher has set the class to practise "
        "this lesson. Open *Exercises* at the end of the page: your numbers are your own (*Try another* gives "
        "new ones), three right answers in a row master a skill, and your teacher sees your mastery.",
        icon=":material/fitness_center:",
    )


def has_variants(lesson: Lesson) -> bool:
    """Whether ``lesson`` has exercises with variants, which a class can practise."""
    return any(ex.params for ex in lesson.exercises if not isinstance(ex, Guided))


def _cut_short(code: str, seq: int, place: str) -> bool:
    """Whether this page set out to follow send ``seq`` from ``place`` moments ago and is
    still there: the check that went was cut short before its page switch."""
    going = st.session_state.get(GOING)
    return isinstance(going, tuple) and going[:3] == (code, seq, place) and time.monotonic() - going[3] < GOING_AGAIN_S


#: the student's "I'm stuck" switch, and when this page last asked whether the hand is still up
HAND = "class_hand"
HAND_CHECKED = "_class:hand_checked"
#: (class code, student id, up): the hand as this session last set or read it. A widget's value
#: does not survive a page switch that draws it elsewhere (a lesson's side panel, the class
#: page): the switch was drawn off there while the teacher's roster had the hand up
HAND_UP = "_class:hand_up"
#: a raised hand is read back this often (the teacher may have lowered every hand)
HAND_EVERY_S = 5.0


def _is_up(me: session.Member) -> bool:
    """This session's record of the student's hand, read from the class when it has none."""
    kept = st.session_state.get(HAND_UP)
    if not (isinstance(kept, tuple) and kept[:2] == (me.code, me.student_id)):
        kept = (me.code, me.student_id, _hand_up(me))
        st.session_state[HAND_UP] = kept
    return kept[2]


def _set_up(me: session.Member, up: bool) -> None:
    st.session_state[HAND_UP] = (me.code, me.student_id, up)


def hand_switch(where=st) -> None:
    """A student's "I'm stuck" switch (``where``: the page, or the sidebar on a lesson): up,
    it shows on the teacher's roster and bar until the student or the teacher lowers it.
    Drawn by a full run, from this session's record of the hand (``HAND_UP``); ``hand_check``,
    in the page's one-second check, notices a hand the teacher lowered and runs the page
    again, which draws the switch off."""
    me = session.member()
    if me is None:
        return
    if _lowered():
        _set_up(me, False)
    st.session_state[HAND] = _is_up(me)
    where.toggle(
        ":material/front_hand: I'm stuck",
        key=HAND,
        on_change=_hand,
        help="Raises your hand on your teacher's screen; turn it off when you are past it.",
    )


def hand_check() -> None:
    """In a student's one-second check: a raised hand the teacher has lowered runs the page
    again (a widget's value is set before it is drawn, in ``hand_switch``)."""
    if _lowered():
        st.session_state[HAND_CHECKED] = 0.0  # read again, by the full run
        st.rerun(scope="app")


def _lowered() -> bool:
    """True when this student's hand is up here and the class says it is down (read back
    every ``HAND_EVERY_S``)."""
    me = session.member()
    now = time.monotonic()
    if me is None or not _is_up(me) or now - st.session_state.get(HAND_CHECKED, 0.0) < HAND_EVERY_S:
        return False
    st.session_state[HAND_CHECKED] = now
    db = session.database()
    try:
        return db is not None and not db.hand_of(me.code, me.student_id)
    except (class_store.StoreUnavailable, ValueError):
        return False


def _hand_up(me: session.Member) -> bool:
    """Whether the class has this student's hand up (False when it cannot be read)."""
    db = session.database()
    try:
        return db is not None and bool(db.hand_of(me.code, me.student_id))
    except (class_store.StoreUnavailable, ValueError):
        return False


def _hand() -> None:
    me = session.member()
    db = session.database()
    if me is None or db is None:
        st.toast("Your hand could not reach your teacher: the class cannot be reached right now.")
        return
    try:
        up = bool(st.session_state.get(HAND))
        db.raise_hand(me.code, me.student_id, up)
        _set_up(me, up)
        st.session_state[HAND_CHECKED] = time.monotonic()
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        st.toast("Your hand could not reach your teacher: the class cannot be reached right now.")


def _report(code: str, place: str) -> None:
    """Tell the class where this page is, when it moved or ``PLACE_EVERY_S`` have passed."""
    me = session.member()
    if me is None:
        return
    last = st.session_state.get(REPORTED)
    now = time.monotonic()
    if last is not None and last[0] == place and now - last[1] < PLACE_EVERY_S:
        return
    db = session.database()
    if db is None:
        return
    try:
        db.report_place(me.code, me.student_id, place)
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        return
    except ValueError:  # an address past the limit: the roster keeps the previous one
        return
    st.session_state[REPORTED] = (place, now)


# the teacher's bar on a lesson page


def teacher_bar(course: Course, url_path: str) -> None:
    """Above a lesson, for the teacher: send the class here, hold it here."""
    held = session.teacher()
    if held is None or url_path not in {p.url_path for p in places(course)}:
        return
    _bar(course, url_path, *held)


@st.fragment(run_every=TEACHER_EVERY_S)
def _bar(course: Course, url_path: str, code: str, key: str) -> None:
    # one place at every state (the bar, a line that the class cannot be reached, nothing
    # once the class has ended): a check every second never changes the page's shape
    with st.container():
        _bar_body(course, url_path, code, key)


def _bar_body(course: Course, url_path: str, code: str, key: str) -> None:
    db = session.database()
    try:
        if db is None:
            raise class_store.StoreUnavailable(session.problem())
        if not db.is_open(code):
            return
        follow = db.follow(code)
        mine = here(url_path)
        seen = st.session_state.get(BAR_SEEN)
        st.session_state[BAR_SEEN] = (code, mine)
        moved_here = seen != (code, mine)
        leaving = st.session_state.get(PLAN_GOTO) is not None
        if follow is not None and follow.held and moved_here and not leaving and not on_address(mine, follow.address):
            # held: the teacher's own moves on this page go to the class as they happen. Only
            # a move made here: a page left standing (the projector, a second laptop) while the
            # plan's Next or another device sent the class on would send it back, a second
            # step a fraction of a second after the press. Nor in the run of a Previous / Next
            # press, which has just sent the class on and leaves this page: whatever this
            # page's address became in that run, the press acts once.
            db.send_class(code, key, mine, practice=_practice_kept(follow, mine))
            _follow_state.clear()
            follow = db.follow(code)
        hands = db.hands_up(code)
    except (class_store.StoreUnavailable, class_store.NotTeacher, ValueError):
        st.caption(f"Class {session.plain(code)}: the class cannot be reached from this page right now.")
        return
    if follow is None:
        return
    with st.container(horizontal=True, vertical_alignment="center", gap="small", key="teacher_bar"):
        st.button(
            "Send the class here",
            icon=":material/group:",
            key="class_send_here",
            on_click=_send_here,
            args=(code, key, url_path),
            help="Every student's page opens this view with these settings, within about two seconds.",
        )
        lesson = next(p for p in places(course) if p.url_path == url_path)
        st.button(
            "Practise here",
            icon=":material/fitness_center:",
            key="class_practise_here",
            on_click=_practise_here,
            args=(code, key, url_path),
            disabled=not has_variants(lesson),
            help="Sends the class here to practise this lesson's exercises: each student gets numbers of their own, "
            "and the roster on the class page shows their mastery per skill. The next send ends it.",
        )
        st.toggle(
            "Hold the class here",
            value=follow.held,
            key=HOLD,
            on_change=_hold,
            args=(code, key, url_path),
            help="A student who steps away is brought back, and your own moves go to the class as you make them.",
        )
        shown = session.plain(code)
        practising = follow.practice and follow.address.partition("?")[0] == url_path
        if practising:
            said = f"Class {shown} is practising this lesson."
        elif on_address(mine, follow.address):
            said = f"Class {shown} is on this view."
        elif follow.address:
            said = f"Class {shown} is on {describe(course, follow.address)}."
        else:
            said = f"Class {shown}: not sent anywhere yet."
        if hands:
            plural = "s" if hands != 1 else ""
            said += f" :material/front_hand: **{hands} hand{plural} up** (the class page lists them)."
        st.caption(said)


def _practice_kept(follow: class_store.Follow | None, address: str) -> bool:
    """Whether a send to ``address`` keeps the class practising: a practice stays on while the
    teacher's moves (a held class, holding it) stay within its lesson."""
    return follow is not None and follow.practice and follow.address.partition("?")[0] == address.partition("?")[0]


def _send_here(code: str, key: str, url_path: str) -> None:
    with _teacher_action() as db:
        db.send_class(code, key, here(url_path))


def _practise_here(code: str, key: str, url_path: str) -> None:
    with _teacher_action() as db:
        db.send_class(code, key, here(url_path), practice=True)


def _hold(code: str, key: str, url_path: str) -> None:
    with _teacher_action() as db:
        held = bool(st.session_state[HOLD])
        if held:  # holding starts from where the teacher is
            mine = here(url_path)
            db.send_class(code, key, mine, practice=_practice_kept(db.follow(code), mine))
        db.hold_class(code, key, held)


@contextlib.contextmanager
def _teacher_action():
    """Around a teacher's callback: the class database, or a toast saying why the action was
    not done; the cached follow state is dropped after, so pages see the change at their next check."""
    try:
        db = session.database()
        if db is None:
            raise class_store.StoreUnavailable(session.problem())
        yield db
    except class_store.NotTeacher:
        st.toast("Only the teacher link controls this class.")
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        st.toast("Not done: " + session.said(exc) + ".")
    except ValueError:
        st.toast("Not sent: this page's address is longer than a class can be sent.")
    finally:
        _follow_state.clear()


# the roster on the teacher's class page


def _ago(now: float, then: float) -> str:
    seconds = max(0, int(now - then))
    return f"{seconds} s ago" if seconds < 120 else f"{seconds // 60} min ago"


def skill_columns(course: Course) -> list[tuple[str, tuple[str, ...]]]:
    """Every skill the course's lessons name, in their order: (its label, the keys of the
    exercises that practise it), as the lesson counts its mastery (``ui.exercises``)."""
    return [
        (label, tuple(lesson_exercises.skill_keys(lesson, skill)))
        for lesson in course.lessons
        for skill, label in lesson.skills.items()
    ]


def skill_mastery(practice: Iterable[tuple[str, int, str, int]], keys: tuple[str, ...]) -> str:
    """A student's mastery of one skill from their practice record in the class (the
    store's entries), by the lesson's own rule (``ui.mastery.row``): "mastered", how far
    the row of right answers has got ("2 of 3 in a row"), or "" when never practised."""
    record = {str(mastery.Entry(*entry)) for entry in practice if entry[0] in keys}
    if not record:
        return ""
    streak = mastery.streak(record, keys)
    return "mastered" if streak >= mastery.IN_A_ROW else f"{streak} of {mastery.IN_A_ROW} in a row"


def mastery_cell(practice: Iterable[tuple[str, int, str, int]], skills: list[tuple[str, tuple[str, ...]]]) -> str:
    """The roster's mastery cell: each skill the student practised in the class, with how
    far they got ("Find a pair's wavelength: mastered; Count a pair's turns: 1 of 3 in a
    row"); "" before any practice."""
    practice = frozenset(practice)
    words = ((label, skill_mastery(practice, keys)) for label, keys in skills)
    return "; ".join(f"{label}: {word}" for label, word in words if word)


def roster_rows(
    course: Course,
    places_: list[class_store.Place],
    sent: str,
    now: float,
    exercises: tuple[frozenset[str], ...] = (),
    skills: list[tuple[str, tuple[str, ...]]] | None = None,
) -> list[dict[str, str]]:
    """The roster as a table a teacher reads, raised hands first (longest up first): name, the
    hand, where (lesson and view; "with the class" on the address sent), when the page last
    checked in, how many of the course's ``exercises`` the student solved (each the keys
    it needs solved: ``exercise_keys``) and their mastery of each skill they practised
    (``mastery_cell``; ``skills`` defaults to the course's)."""
    skills = skill_columns(course) if skills is None else skills
    rows = []
    for p in sorted(places_, key=lambda p: (p.hand is None, p.hand or 0.0)):
        if p.seen is None:
            where, seen = "not seen yet", ""
        else:
            where = "the class page" if not p.place else describe(course, p.place)
            if on_address(p.place, sent):
                where += " (with the class)"
            seen = _ago(now, p.seen)
        rows.append(
            {
                "student": session.plain(p.nickname),
                "hand": "" if p.hand is None else "raised " + _ago(now, p.hand),
                "where": session.plain(where),
                "last seen": seen,
                "exercises solved": f"{sum(keys <= p.solved for keys in exercises)} of {len(exercises)}",
                "mastery": mastery_cell(p.practice, skills),
            }
        )
    return rows


def exercise_keys(course: Course) -> tuple[frozenset[str], ...]:
    """Each exercise of the course as the keys it needs solved, as the student's own count
    has it (``ui.exercises.is_solved``): a guided proof is one exercise, solved once every
    step is (a step alone is not a solved exercise)."""
    return tuple(
        frozenset(step.key for step in ex.steps) if isinstance(ex, Guided) else frozenset({ex.key})
        for ex in course.all_exercises()
    )


def roster(course: Course, db: class_store.Store, code: str, key: str) -> None:
    """Who is where: raised hands, a count of students with the class, then one row per student."""
    follow = db.follow(code)
    sent = follow.address if follow is not None else ""
    rows = db.roster(code, key)
    # drawn in a fragment that reruns every few seconds: the same places at every state
    st.subheader("Where your students are")
    hands_place, sent_place, table_place = st.container(), st.container(), st.container()
    hands = sum(1 for p in rows if p.hand is not None)
    if hands:
        line = hands_place.container(horizontal=True, vertical_alignment="center", gap="small")
        line.markdown(f"**:material/front_hand: {hands} hand{'s' if hands != 1 else ''} up**")
        line.button("Lower all hands", key="class_lower_hands", on_click=_lower_hands, args=(code, key))
    if sent:
        with_class = sum(1 for p in rows if on_address(p.place, sent))
        sent_place.markdown(f"**{with_class} of {len(rows)}** on the view you sent: {describe(course, sent)}.")
    else:
        sent_place.caption(
            "Open a lesson in this tab and press *Send the class here* above it: every student's page follows."
        )
    if rows:
        with table_place:
            layout.table(roster_rows(course, rows, sent, time.time(), exercise_keys(course)))


def _lower_hands(code: str, key: str) -> None:
    with _teacher_action() as db:
        db.lower_hands(code, key)
