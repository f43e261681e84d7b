"""The room screen of a class (``/class?room=CODE``): what the projector shows, following the
class by itself. The teacher opens it from the join panel (*Open the room screen*); its link
holds the class code alone, never the teacher key or a student's id, and the screen draws
only what the room may see: no control of the teacher's, no student's name, no note, no
answer before the reveal, no key.

It is one fragment that reads the class from the database every ``ROOM_EVERY_S`` and fills
the same six places at every stage (``stage``): before anything is asked, the way in (the
code, the address, a QR code as tall as the screen); on a view the teacher sent, that view
at the teacher's settings in presenter mode (the lesson's own page in a frame); during a
vote the question, its options, how many answered and the countdown of a timer the teacher
set; once closed, the votes; once revealed, the answer, why and the figure first, the votes
under them; and, once closed, one student's answer without the name when the teacher shows
one (``Store.show_answer``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import urlencode

import streamlit as st

from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import questions as class_questions
from posenc_lab.classroom import session, teacher, views
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom.figures import room_sized
from posenc_lab.classroom.poll import Poll
from posenc_lab.ui import layout
from posenc_lab.ui.lesson import Course

#: seconds between the room screen's checks of the class
ROOM_EVERY_S = 1.0
#: the screen's places, in order, each drawn at every check (``st-key-room_<name>``)
PLACES = ("top", "clock", "lead", "shown", "main", "foot")
#: static CSS (no one's text in it): sizes read from the back of a room, in units of the
#: screen's height, so that 1920x1080, 1280x720 and a 4K TV show the same page
CSS = """<style>
.st-key-room_title h1 { font-size: 3.6vh; padding: 0; }
.st-key-room_top p { font-size: 3.2vh; line-height: 1.3; margin: 0; }
.st-key-room_clock p { font-size: 6vh; line-height: 1.2; margin: 0; }
.st-key-room_lead p, .st-key-room_lead li { font-size: 5.6vh; line-height: 1.25; }
.st-key-room_main p, .st-key-room_main li { font-size: 4.8vh; line-height: 1.3; }
.st-key-room_foot p, .st-key-room_foot li { font-size: 4.2vh; line-height: 1.3; }
.st-key-room_shown p { font-size: 4.8vh; line-height: 1.3; }
.st-key-room_code p { font-size: 17vh; font-weight: 700; line-height: 1.05; letter-spacing: 0.06em;
  font-family: "Source Code Pro", ui-monospace, monospace; white-space: nowrap; margin: 0; }
.st-key-room_joined p { font-size: 5vh; }
.st-key-room_qr img { height: 78vh !important; width: auto !important; max-width: 100%; }
.st-key-room_main iframe { height: 82vh !important; border: 0; }
.st-key-room_main [data-testid="stAlert"] p, .st-key-room_lead [data-testid="stAlert"] p { font-size: 5.6vh; }
</style>"""


@dataclass(frozen=True)
class Stage:
    """What the room screen shows: ``kind`` is "missing" (no such class), "ended", "join"
    (nothing asked or sent yet), "view" (the class was sent to ``address``), "voting",
    "closed" or "revealed" (``round``, the class's current round)."""

    kind: str
    address: str = ""
    round: class_store.Round | None = None


def _changed(current: class_store.Round) -> float:
    """When the teacher last moved a round: opened, closed or revealed it."""
    return max(t for t in (current.opened, current.closed, current.revealed) if t is not None)


def stage(
    info: class_store.ClassInfo | None,
    is_open: bool,
    follow: class_store.Follow | None,
    current: class_store.Round | None,
    class_path: str,
) -> Stage:
    """What the room screen shows, from the class as the database holds it (no Streamlit):
    whichever the teacher did last, a send to a view or a move of the current round; the
    join screen before either."""
    if info is None:
        return Stage("missing")
    if not is_open:
        return Stage("ended")
    sent = follow.address if follow is not None else ""
    if (
        sent
        and sent.partition("?")[0] != class_path
        and (current is None or (follow.at is not None and follow.at >= _changed(current)))
    ):
        return Stage("view", address=sent)
    if current is None:
        return Stage("join")
    if current.revealed is not None:
        return Stage("revealed", round=current)
    return Stage("closed" if current.closed is not None else "voting", round=current)


def frame_link(base: str, code: str, address: str) -> str:
    """The sent view's own page as the room screen frames it: at the teacher's settings, in
    presenter mode, without Streamlit's toolbar, and marked as a room screen's (no class bar,
    nobody's key taken from the tab)."""
    extra = urlencode({"present": "1", "embed": "true", session.ROOM_PARAM: code})
    return f"{base}/{address}{'&' if '?' in address else '?'}{extra}"


def room_view(course: Course, code: str) -> None:
    """The room screen of class ``code`` (the page ``classroom.lesson`` draws for ``?room=``)."""
    st.html(CSS)
    # the page's heading, the same at every stage (the code as the address names it)
    st.container(key="room_title").title(f"Class {teacher._spaced(code)}" if code else "Class mode")
    db = session.database()
    try:
        if db is None:
            raise class_store.StoreUnavailable(session.problem())
        # a wrong code is counted and slowed as a join's is: a room link guesses no faster
        db.look_up(code, client=session.client_id(), network=session.network_address())
    except class_store.JoinRefused as exc:
        if exc.delay > 0:
            time.sleep(exc.delay)
        st.error(
            f"{session.plain(exc.reason)} Open the room screen from the teacher's class page: *Open the room screen*."
        )
        return
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        views._unavailable()
        return
    _screen(course, code)


@st.fragment(run_every=ROOM_EVERY_S)
def _screen(course: Course, code: str) -> None:
    # the same places at every stage and every check: a check never changes the page's shape
    place = {name: st.container(key=f"room_{name}") for name in PLACES}
    db = session.database()
    try:
        if db is None:
            raise class_store.StoreUnavailable(session.problem())
        info = db.class_info(code) if code else None
        now = stage(
            info,
            info is not None and db.is_open(code),
            db.follow(code) if info is not None else None,
            # closed here if its timer ran out and no other page has closed it yet
            db.live_round(code) if info is not None else None,
            course.class_page.url_path,
        )
        _draw(course, db, code, info, now, place)
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        with place["lead"]:
            views._unavailable()


def _draw(course: Course, db: class_store.Store, code: str, info, now: Stage, place: dict) -> None:
    base = session.public_base()
    shown = teacher._spaced(code)
    if now.kind == "missing":
        place["lead"].error(
            f"No class has the code {session.plain(code) or '(none)'}. Open the room screen from the teacher's "
            "class page: *Open the room screen*."
        )
        return
    name = f"{session.plain(info.title)} · " if info.title else ""
    if now.kind == "ended":
        place["lead"].info(f"{name}Class {shown} has ended.")
        return
    join_line = f"{name}Join at {session.address_text(base)}/class with the code **{shown}**"
    if now.kind == "join":
        place["top"].markdown(f"{name}Join the class: scan the code, or open this address and type the code.")
        left, right = place["main"].columns([1, 1], gap="large", vertical_alignment="center")
        with left:
            st.container(key="room_code").markdown(shown)
            st.markdown(f"**{session.address_text(base)}/class**")
            st.container(key="room_joined").markdown(f"**{len(db.students(code))}** joined")
        link = session.join_link(base, code)
        right.container(key="room_qr").image(teacher._qr_png(link), alt=f"QR code of {link}")
        return
    if now.kind == "view":
        place["top"].markdown(f"{join_line}. The class is on **{class_follow.describe(course, now.address)}**.")
        place["main"].iframe(frame_link(base, code, now.address), height=800, alt="The view the class is on")
        return
    current = now.round
    poll = class_questions.poll_of(course, db, code, current.poll_key)
    if poll is None:
        place["lead"].warning("The open question is not in this version of the app.")
        return
    earlier = [r for r in db.rounds(code, poll.key) if r.number <= current.number][-2:]
    votes = {r.id: db.votes(r.id) for r in earlier}
    count, joined = len(votes[current.id]), len(db.students(code))
    status = {"voting": "voting", "closed": "voting closed", "revealed": "the answer"}[now.kind]
    place["top"].markdown(f"{join_line}. Round {current.number}: {status}.")
    shown = db.shown_answer(current)
    if shown is not None and now.kind != "voting":
        with place["shown"]:
            views.draw_shown(course, poll, code, current, shown, key="room_shown_answer")
    answered = f"**{count}** of {joined} answered"
    if now.kind == "voting":
        # the vote's countdown, when the teacher set a timer (the clock place stays empty otherwise)
        place["clock"].markdown(views.countdown(current.deadline, db.now()))
        place["lead"].markdown(class_questions.prompt_markdown(poll))
        place["main"].markdown(_options(poll))
        place["foot"].markdown(answered + ". Answer on your phone or laptop.")
    elif now.kind == "closed":
        place["lead"].markdown(class_questions.prompt_markdown(poll))
        # a question of each student's own numbers shows its share right at the reveal only
        fig = views.rounds_figure(course, poll, earlier, votes, revealed=False, shares=False)
        with place["main"]:
            if fig is None:
                st.markdown(views.OWN_NUMBERS_NOTE)
            else:
                layout.chart(room_sized(fig), key="room_votes", filename=f"class_{poll.key}", downloads=False)
        place["foot"].markdown(answered + ". Talk it over with a neighbour.")
    else:
        # the answer, why and the figure that settles it first, above the fold
        with place["lead"]:
            shown = session.plain(views._answer_label(course, poll))
            if poll.each is not None:
                st.success(f"Each of you had your own numbers. As first written, the answer is **{shown}**.")
            else:
                st.success(f"The answer: **{shown}**")
        with place["main"]:
            st.markdown(views.reveal_text_of(course, poll))
            fig = views.reveal_figure_of(course, poll)
            if fig is not None:
                layout.chart(fig, key=f"room_reveal_{poll.key}", filename=f"class_{poll.key}", downloads=False)
        with place["foot"]:
            st.markdown(class_questions.prompt_markdown(poll))
            layout.chart(
                room_sized(views.rounds_figure(course, poll, earlier, votes, revealed=True, shares=True)),
                key="room_votes",
                filename=f"class_{poll.key}",
                downloads=False,
            )
            right = sum(ok for _, ok in votes[current.id])
            st.markdown(f"{answered}; {right} right.")


def _options(poll: Poll) -> str:
    """What a student answers with, as the room reads it: the options as written (each
    student's device orders them its own way), the range of a number, or what to sketch."""
    if poll.each is not None:
        return "Work it out for the numbers on your device" + (", and pick from its options." if poll.options else ".")
    if poll.options:
        return "\n".join(f"- {session.plain(option)}" for option in poll.options)
    if poll.sketch is not None:
        sk = poll.sketch
        return f"Sketch {session.plain(sk.y_title)} against {session.plain(sk.x_title)} on your device."
    unit = " " + session.plain(poll.unit) if poll.unit else ""
    return f"A number between {poll.low:g} and {poll.high:g}{unit}."
