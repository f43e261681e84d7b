"""What every screen of the Class page shares (the page is ``lesson.py``; its screens are
``join.py``, ``teacher.py`` with ``question_form.py`` and ``dashboard.py``, and
``student.py``): the keys of its session state and widgets, the class's state as a page last
read it (cached a second), a question's answer, reveal and figure (computed once per
process), the wrapper of a teacher's actions, times in the teacher's zone, the votes' chart,
the reveal, and the results table.

The state lives in the class database (``classroom.store``) and ``classroom.session`` says
who this session is; these modules only draw.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import html
import zoneinfo
from urllib.parse import parse_qsl

import pandas as pd
import streamlit as st

from posenc_lab.classroom import each, report, session, tally
from posenc_lab.classroom import figures as vote_figures
from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import questions as class_questions
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
TIMER_SECONDS = "class_timer_seconds"  # the teacher's custom timer, in seconds
SHOW_VOTES = "class_show_votes"  # the teacher's switch: the votes' chart while the vote is open
SHOW_PICK = "class_show_pick"  # the student whose answer the teacher would show the room
OPEN_TIMER = "class_open_timer"  # the timer Open the vote and Vote again start with (0: none)


@st.cache_data(ttl=1.0, show_spinner=False)
def _class_state(code: str) -> tuple | None:
    """(round id, poll key, round number, closed, revealed, deadline) of the class's current
    round, closed first if its timer ran out (``Store.live_round``). Cached a second per
    server, so 200 students checking every second cost one query a second."""
    db = session.database()
    if db is None:
        raise class_store.StoreUnavailable(session.problem())
    current = db.live_round(code)
    if current is None:
        return None
    return (
        current.id,
        current.poll_key,
        current.number,
        current.closed is not None,
        current.revealed is not None,
        current.deadline,
    )


def countdown(deadline: float | None, now: float) -> str:
    """A vote's countdown as the screens show it (Markdown), or "" without a timer."""
    words = tally.countdown_words(tally.seconds_left(deadline, now))
    return f":material/timer: **{words}**" if words else ""


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
def _misconceptions(_course: Course, key: str) -> tuple[tuple[float, str], ...]:
    poll = _course.poll_by_key(key)
    return tuple((float(value), name) for value, name in poll.misconceptions()) if poll.misconceptions else ()


@st.cache_data(show_spinner=False)
def _reveal_text(_course: Course, key: str) -> str:
    return _course.poll_by_key(key).reveal(_answer(_course, key))


@st.cache_resource(show_spinner=False, max_entries=64)
def _reveal_figure(_course: Course, key: str):
    poll = _course.poll_by_key(key)
    return poll.figure() if poll.figure is not None else None


def _by_key(poll: Poll) -> bool:
    """Whether the question is a lesson's own, the same for everyone, whose answer and
    reveal are cached by its key (a teacher's is computed from the database's row, and a
    variant's for its numbers)."""
    return not class_questions.is_own(poll) and not each.is_each(poll)


def answer_of(course: Course, poll: Poll) -> float:
    return _answer(course, poll.key) if _by_key(poll) else float(poll.answer())


def misconceptions_of(course: Course, poll: Poll) -> tuple[tuple[float, str], ...]:
    """A numeric question's named wrong answers, ((value, name), ...) (``Poll.misconceptions``):
    a lesson's cached by its key like its answer; none for a teacher's own or a variant."""
    if not _by_key(poll) or not poll.numeric:
        return ()
    return _misconceptions(course, poll.key)


def named_words(course: Course, poll: Poll, vote: str) -> str:
    """A wrong vote as the results name it: "256 pairs (every pair turns)" within the
    question's tolerance of a misconception's value, else the vote in words."""
    value = tally.decode_number(vote) if poll.numeric else None
    names = () if value is None else poll.named(value, misconceptions_of(course, poll), answer_of(course, poll))
    return tally.with_names(tally.vote_label(vote, poll.options, poll.unit), names)


def reveal_text_of(course: Course, poll: Poll) -> str:
    return _reveal_text(course, poll.key) if _by_key(poll) else poll.reveal(poll.answer())


def reveal_figure_of(course: Course, poll: Poll):
    return _reveal_figure(course, poll.key) if _by_key(poll) else None


@st.cache_data(show_spinner=False)
def _measured(_course: Course, key: str):
    return _course.poll_by_key(key).measured()


def measured_of(course: Course, poll: Poll):
    """A sketch question's measured curve at the sketch's points (shares of the y range)."""
    return _measured(course, poll.key) if _by_key(poll) else poll.measured()


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
    return number_label(poll, answer)


def number_label(poll: Poll, value: float) -> str:
    """A numeric question's value in words: "123 pairs", "39.35 %"."""
    shown = str(int(round(value))) if poll.integer else f"{value:.4g}"
    return f"{shown} {poll.unit}".strip()


def _unavailable() -> None:
    st.error(
        f"Class mode is unavailable: {session.problem() or 'the class database cannot be reached right now'}. "
        "Every lesson still works, and exercises you solve are kept in this browser."
    )


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


#: the widgets of "Write your own question" (their values are read by ``_add_question``)
Q = "class_q_"
Q_NOTE = "_class:q_note"  # (ok, text): what adding or removing a question did, shown once
Q_EDITING = "_class:q_editing"  # the key of the teacher's own question the form changes (None: a new one)
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


def sketch_figure(
    course: Course, poll: Poll, votes: list[str], revealed: bool, mine: str | None = None, title: str | None = None
):
    """A sketch question's chart: the sketches in ``votes`` and their median, the measured
    curve once ``revealed``, and ``mine`` (a student's own) drawn strong; ``title`` says
    whose it is when not the student's own."""
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
        title=title or (f"Sketches ({len(drawn)})" if votes else "Your sketch and the measured curve"),
        x_title=sk.x_title,
        y_title=sk.y_title,
        y_range=sk.y_range,
        median=None if median is None else to_units(median),
        measured=measured,
        mine=None if mine_heights is None else to_units(mine_heights),
    )


def draw_shown(course: Course, poll: Poll, code: str, current: class_store.Round, vote: str, key: str) -> None:
    """One student's answer that the teacher shows the room (``Store.show_answer``), without
    their name and without saying whether it is right: to talk over. A question of each
    student's own numbers shows that student's numbers with it; a sketch is drawn alone
    (over the measured curve once revealed)."""
    mine = poll.for_student(session.member_seed(code, current.shown)) if poll.each is not None else poll
    st.markdown("**One answer from the class**, to talk over:")
    if each.is_each(mine):
        st.markdown(f"Their numbers: {class_questions.prompt_markdown(mine)}")
    if poll.sketch is not None:
        layout.chart(
            sketch_figure(
                course,
                poll,
                [],
                revealed=current.revealed is not None,
                mine=vote,
                title="A sketch from the class" + (" and the measured curve" if current.revealed is not None else ""),
            ),
            key=key,
            filename=f"class_{poll.key}_shown",
            downloads=False,
        )
    else:
        st.markdown(f"**{session.plain(vote_words(course, mine, vote))}**")


def _with_unit(poll: Poll, labels: list[str]) -> list[str]:
    if not poll.unit:
        return labels
    unit = html.escape(poll.unit, quote=False)  # a teacher's unit, as typed (Plotly reads tags)
    return [f"{label} {unit}" for label in labels]


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
    elif revealed:
        # once revealed, the right bin is the right answers, all of them and nothing else, and
        # each misconception's bin the wrong answers it names, named by it
        named = misconceptions_of(course, poll)
        edges, right, held = tally.named_edges(
            poll.low, poll.high, answer, poll.tolerance, poll.integer, named=[value for value, _ in named]
        )
        labels = _with_unit(poll, tally.revealed_labels(edges, poll.integer))
        for at, ks in held.items():
            labels[at] += "<br>" + html.escape(" · ".join(named[k][1] for k in ks), quote=False)
        takes = {
            at: (lambda vote, near=[named[k] for k in ks]: bool(tally.named_near(vote, near, poll.tolerance)))
            for at, ks in held.items()
        }
        counted = [
            (name, tally.revealed_counts(votes, edges, right, functools.partial(poll.is_right, answer=answer), takes))
            for name, votes in rounds
        ]
    else:
        # before it, even bins over the input's range: bins drawn around the answer would show it
        edges = tally.numeric_edges(poll.low, poll.high, poll.integer)
        labels = _with_unit(poll, tally.numeric_labels(edges, poll.integer))
        counted = [(name, tally.numeric_counts(votes, edges)) for name, votes in rounds]
        right = None
    return vote_figures.vote_bars(labels, counted, title="Votes", right=right)


def rounds_figure(
    course: Course, poll: Poll, earlier: list, votes: dict[str, list[tuple[str, bool]]], revealed: bool, shares: bool
):
    """The chart of a question's last rounds (``earlier``, their votes by round id as
    ``Store.votes`` reads them). A question each student answered with their own numbers
    draws the right and the not-right answers per round when ``shares`` (the teacher's own
    screen, or once revealed), else None: its values are not comparable, and the share
    right is not shown to the room before the reveal."""
    if not each.is_each(poll):
        rounds = [(f"round {r.number}", [vote for vote, _ in votes[r.id]]) for r in earlier]
        return vote_figure(course, poll, rounds, revealed=revealed)
    if not shares:
        return None
    counted = [
        (f"round {r.number}", [sum(ok for _, ok in votes[r.id]), sum(not ok for _, ok in votes[r.id])]) for r in earlier
    ]
    # the bars' own labels say which is right: no "right (right)"
    return vote_figures.vote_bars(["right", "not right"], counted, title="Answers, each with their own numbers")


#: what a chart of the votes says instead, for a question each student answered with their own numbers
OWN_NUMBERS_NOTE = "Each student has their own numbers: the share right shows at the reveal."


def words_of(course: Course, poll: Poll, code: str):
    """(student id, vote) -> the vote in words of that student's own variant (a question
    each student answers with their own numbers), or None for a question everyone shares."""
    if poll.each is None:
        return None

    def words(student_id: str, vote: str) -> str:
        return vote_words(course, poll.for_student(session.member_seed(code, student_id)), vote)

    return words


def exercise_columns(course: Course) -> list[report.ExerciseColumn]:
    """Every exercise as the students saw it, in the lessons' order: a guided exercise is
    one column, solved once every step is (the count a student's page shows)."""
    return [
        report.ExerciseColumn(
            f"{number}. {lesson.title}: {notation.plain_title(ex.title)}",
            tuple(step.key for step in ex.steps) if isinstance(ex, Guided) else (ex.key,),
        )
        for number, lesson in enumerate(course.lessons, 1)
        for ex in lesson.exercises
    ]


def skill_columns(course: Course) -> list[report.SkillColumn]:
    """Every skill the lessons name, in their order, each marked by the lesson's own rule of
    mastery (``class_follow.skill_mastery``), as the teacher's roster shows it."""
    return [
        report.SkillColumn(label, functools.partial(class_follow.skill_mastery, keys=keys))
        for label, keys in class_follow.skill_columns(course)
    ]


def question_columns(course: Course, own: list[Poll] = (), code: str = "") -> list[report.QuestionColumn]:
    """Every question a teacher can open, with its options' text: the teacher's own (``own``),
    the lessons' in their order, then the exercises asked with each student's own numbers
    (of class ``code``: a student's answer reads in their own variant's words)."""
    return [
        report.QuestionColumn(
            poll.key,
            class_questions.poll_label(course, poll, cut=False),
            poll.options,
            poll.unit,
            None if poll.sketch is None else tuple(measured_of(course, poll).tolist()),
            words_of(course, poll, code),
            misconceptions_of(course, poll),
            poll.tolerance,
        )
        for poll in [*own, *course.all_polls(), *each.polls(course)]
    ]


def results_table(course: Course, rows: list[class_store.ItemSummary], own: list[Poll] = ()) -> pd.DataFrame:
    """The teacher's results: one row per exercise and per round of a question.

    Each column holds one type, so that Arrow converts the frame as it is: a column that
    mixed a round's number with an exercise's empty cell made Streamlit log a failed
    conversion, with its traceback, on every refresh of the dashboard.
    """
    titles = _titles(course) | {poll.key: class_questions.poll_label(course, poll) for poll in own}
    polls = {poll.key: poll for poll in [*own, *course.all_polls(), *each.polls(course)]}
    return pd.DataFrame(
        [
            {
                "item": titles.get(row.key, row.key),
                # text: a question's round number, empty for an exercise (which has none)
                "round": str(row.number) if row.number else "",
                "answered": int(row.answered),
                "right": int(row.right),
                "success": row.right / row.answered if row.answered else 0.0,
                # each student's own numbers: their wrong values are not comparable
                "most common wrong answers": ""
                if row.key.startswith(each.PREFIX)
                else "; ".join(f"{_wrong_label(course, polls.get(row.key), answer)} ({n})" for answer, n in row.wrong),
            }
            for row in rows
        ],
        columns=["item", "round", "answered", "right", "success", "most common wrong answers"],
    )


def _titles(course: Course) -> dict[str, str]:
    titles = {poll.key: class_questions.poll_label(course, poll) for poll in [*course.all_polls(), *each.polls(course)]}
    for lesson in course.lessons:
        for ex in lesson.exercises:
            title = notation.plain_title(ex.title)
            titles[ex.key] = f"{lesson.title}: {title}"
            if isinstance(ex, Guided):
                for n, step in enumerate(ex.steps, 1):
                    titles[step.key] = f"{lesson.title}: {title}, step {n}"
    return titles


def _wrong_label(course: Course, poll: Poll | None, answer: str) -> str:
    if poll is not None and poll.sketch is not None:
        return report.sketch_words(answer, measured_of(course, poll))
    return named_words(course, poll, answer) if poll is not None else answer


def _reveal(course: Course, poll: Poll | None, vote: str | None, student: bool = True) -> None:
    if poll is None:
        return
    answer_text = session.plain(_answer_label(course, poll))
    if poll.each is not None:
        # the teacher's and the room's: every student had numbers of their own
        st.success(f"Each student had their own numbers. As first written, the answer is **{answer_text}**.")
    elif each.is_each(poll):
        st.success(f"The answer for your numbers: **{answer_text}**")
    else:
        st.success(f"The answer: **{answer_text}**")
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
        # an option that ends its sentence reads "You answered w7 and w40: ...", not "w40.:"
        mine = session.plain(tally.vote_label(vote, poll.options, poll.unit).rstrip("."))
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
