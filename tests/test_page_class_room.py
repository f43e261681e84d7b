"""The room screen under AppTest, on SQLite and PostgreSQL: opened by the class code alone, it
follows the class by itself (the join screen, a view the teacher sent, a vote with its
options and count, the votes once closed, the answer once revealed), with the same places
at every stage, and nothing of the teacher's or a student's in any of them. (In Chromium,
with a teacher and a student: tests/test_browser_class_room.py.)"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from app_helpers import button, class_texts, join_class, open_page, start_class

from posenc_lab import course as lessons
from posenc_lab.classroom import room, session
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom import views as class_views

POLL = next(p for p in lessons.all_polls() if len(p.options) >= 3 and p.figure is not None)


def _everything(at) -> str:
    """Every element the page holds, as its protos say it: what the browser is sent."""
    return "\n".join(str(getattr(node, "proto", "")) for node in at._tree)


def _check(at):
    """The room screen at its next check (its fragment, run with the page)."""
    class_views._class_state.clear()
    at.run()
    assert not at.exception
    # the same places at every stage
    for name in room.PLACES:
        at.get_by_key(f"room_{name}")
    return at


def _nothing_private(at, key: str, names: list[str], answer: str | None = None) -> None:
    text = _everything(at)
    assert key not in text, "the teacher key"
    for name in names:
        assert name not in text, "a student's name"
    for control in ("Close the vote", "Reveal", "Send the class here", "Show my teacher key", "Open the vote"):
        assert control not in text, control
    if answer is not None:
        assert answer not in text, "the answer before Reveal"


def test_stage_is_whatever_the_teacher_did_last():
    info = class_store.ClassInfo("ABCDEF", "", 0.0, 99.0)
    follow = class_store.Follow(1, "rope?view=rotation", False, 50.0)
    voting = class_store.Round("r1", "ABCDEF", "poll", 1, 40.0, None, None)
    assert room.stage(None, False, None, None, "class").kind == "missing"
    assert room.stage(info, False, follow, voting, "class").kind == "ended"
    assert room.stage(info, True, None, None, "class").kind == "join"
    assert room.stage(info, True, class_store.Follow(0, "", False, None), None, "class").kind == "join"
    assert room.stage(info, True, follow, None, "class") == room.Stage("view", address="rope?view=rotation")
    # sent after the vote opened: the view; a vote opened, closed or revealed after the send: the vote
    assert room.stage(info, True, follow, voting, "class").kind == "view"
    later = class_store.Round("r1", "ABCDEF", "poll", 1, 60.0, None, None)
    assert room.stage(info, True, follow, later, "class").kind == "voting"
    closed = class_store.Round("r1", "ABCDEF", "poll", 1, 40.0, 55.0, None)
    assert room.stage(info, True, follow, closed, "class").kind == "closed"
    revealed = class_store.Round("r1", "ABCDEF", "poll", 1, 40.0, 45.0, 70.0)
    assert room.stage(info, True, follow, revealed, "class") == room.Stage("revealed", round=revealed)
    # a plan's question step sends the class to the class page: the question shows
    to_class = class_store.Follow(2, "class", False, 80.0)
    assert room.stage(info, True, to_class, revealed, "class").kind == "revealed"


def test_the_room_screen_follows_the_class_and_shows_nothing_private(db_url):
    teacher, code, key = start_class("Room 101")
    link = next(b for b in teacher.get("link_button") if b.label == "Open the room screen").proto.url
    query = parse_qs(urlsplit(link).query)
    assert query == {"room": [code], "present": ["1"]}, "the code alone: no key, no student"
    screen = _check(open_page(lessons.CLASS.path, {k: v[0] for k, v in query.items()}))
    texts = class_texts(screen)
    assert session.plain(f"{code[:3]} {code[3:]}") in texts and "/class" in texts
    assert "**0** joined" in texts
    assert screen.get_by_key("room_qr").children[0].type == "imgs" or len(screen.get_by_key("room_qr").children) == 1
    assert dict(screen.query_params) == {"room": code, "present": "1"}, "kept for a reload"
    _nothing_private(screen, key, [])

    student = join_class(code, "Zebedee")
    _check(screen)
    assert "**1** joined" in class_texts(screen)
    _nothing_private(screen, key, ["Zebedee"])

    answer = POLL.options[int(POLL.answer())]
    with class_store.open_store(db_url) as db:
        db.open_poll(code, key, POLL.key)
    _check(screen)
    texts = class_texts(screen)
    assert POLL.prompt in texts
    assert all(session.plain(option) in texts for option in POLL.options)
    assert "**0** of 1 answered" in texts
    assert "The answer" not in texts and class_views.reveal_text_of(lessons.COURSE, POLL) not in texts
    _nothing_private(screen, key, ["Zebedee"])

    student.run()
    student.radio[0].set_value(int(POLL.answer()))
    button(student, "Send my answer").click().run()
    assert not student.exception
    _check(screen)
    assert "**1** of 1 answered" in class_texts(screen)
    assert not screen.get("plotly_chart"), "no votes while voting"

    with class_store.open_store(db_url) as db:
        db.close_round(code, key)
    _check(screen)
    assert [c.key for c in screen.get("plotly_chart")] == ["room_votes"]
    assert "The answer" not in class_texts(screen)
    _nothing_private(screen, key, ["Zebedee"])

    with class_store.open_store(db_url) as db:
        db.reveal(code, key)
    _check(screen)
    lead = screen.get_by_key("room_lead")
    assert f"The answer: **{session.plain(answer)}**" in [s.value for s in lead.success]
    main = screen.get_by_key("room_main")
    assert class_views.reveal_text_of(lessons.COURSE, POLL) in [m.value for m in main.markdown]
    charts = [c.key for c in screen.get("plotly_chart")]
    assert charts[0].startswith(f"room_reveal_{POLL.key}") and "room_votes" in charts, "the figure first"
    assert "**1** of 1 answered; 1 right" in class_texts(screen)
    _nothing_private(screen, key, ["Zebedee"])

    with class_store.open_store(db_url) as db:
        db.send_class(code, key, "rope?view=rotation&base=500")
    _check(screen)
    assert "RoPE" in class_texts(screen)
    frame = screen.get_by_key("room_main").get("iframe")
    src = frame[0].proto.src if frame else ""
    assert "/rope?" in src and "base=500" in src and "present=1" in src and f"room={code}" in src
    assert key not in src
    _nothing_private(screen, key, ["Zebedee"])

    with class_store.open_store(db_url) as db:
        db.end_class(code, key)
    _check(screen)
    assert "has ended" in class_texts(screen)


def test_a_room_screen_of_an_unknown_code_says_so_and_counts_it_as_a_wrong_code(db_url):
    screen = open_page(lessons.CLASS.path, {"room": "NOPE<b>", "present": "1"})
    assert not screen.exception
    assert "No class has the code" in class_texts(screen)
    assert "<b>" not in class_texts(screen)
    assert not screen.get_by_key("room_title").markdown and not screen.get("iframe")
    # a session's wrong codes are limited as a join's are: the room link guesses no faster
    for n in range(class_store.JOIN_FAILURES_ALLOWED):
        screen.query_params["room"] = f"WRONG{n}"
        screen.run()
        assert not screen.exception
    assert "Too many wrong codes from this device" in class_texts(screen)
    _, code, _ = start_class()
    screen.query_params["room"] = code
    screen.run()
    assert "Too many wrong codes from this device" in class_texts(screen), "the right code waits too"


@pytest.mark.parametrize("who", ["teacher", "student"])
def test_a_room_link_opened_by_a_teacher_or_a_student_shows_the_room_alone(db_url, who):
    teacher, code, key = start_class()
    at = teacher if who == "teacher" else join_class(code, "Zebedee")
    at.query_params.clear()
    at.query_params.update({"room": code})
    _check(at)
    assert not at.get("link_button") and not at.button
    _nothing_private(at, key, ["Zebedee"])


def test_the_room_screen_keeps_its_one_fragment_in_place_through_a_class(db_url):
    """Its check draws the same places at every stage (tests/test_page_class_shape.py), a
    view the class practises and one it is sent to included."""
    from test_page_class_shape import _same_fragments_at_every_state

    _, code, key = start_class()
    join_class(code, "Zebedee")
    screen = open_page(lessons.CLASS.path, {"room": code, "present": "1"})
    assert len(_same_fragments_at_every_state(screen, code, key, practise="rope?view=rotation")) == 1


SKETCH = next(p for p in lessons.all_polls() if p.sketch is not None)
NUMBER = next(p for p in lessons.all_polls() if p.numeric)
#: a teacher's own question whose every text reads as Markdown, HTML or a link if rendered so
OWN = class_store.Question(
    "Is **this** <b>bold</b> [a link](http://example.org) :material/home:?",
    ("*one* <i>x</i>", "www.example.org"),
    1,
    why="# not a heading <script>",
)


@pytest.mark.parametrize("kind", ["sketch", "number", "own"])
def test_every_kind_of_question_shows_on_the_room_screen_at_every_stage(db_url, kind):
    _, code, key = start_class()
    join_class(code, "Zebedee")
    screen = _check(open_page(lessons.CLASS.path, {"room": code, "present": "1"}))
    with class_store.open_store(db_url) as db:
        poll_key = {"sketch": SKETCH.key, "number": NUMBER.key}.get(kind) or db.add_question(code, key, OWN).key
        db.open_poll(code, key, poll_key)
    _check(screen)
    texts = class_texts(screen)
    if kind == "sketch":
        assert "on your device" in texts
    elif kind == "number":
        assert f"A number between {NUMBER.low:g} and {NUMBER.high:g}" in texts
    else:
        # a teacher's text as typed: no emphasis, tag, link or icon comes out of it
        assert session.plain(OWN.prompt) in texts and all(session.plain(o) in texts for o in OWN.options)
        assert "**this**" not in texts and "<b>" not in texts
    _nothing_private(screen, key, ["Zebedee"])
    with class_store.open_store(db_url) as db:
        db.close_round(code, key)
    assert [c.key for c in _check(screen).get("plotly_chart")] == ["room_votes"]
    with class_store.open_store(db_url) as db:
        db.reveal(code, key)
    _check(screen)
    assert any(s.value.startswith("The answer: ") for s in screen.get_by_key("room_lead").success)
    assert "room_votes" in [c.key for c in screen.get("plotly_chart")]
    if kind == "own":
        assert session.plain(OWN.why) in class_texts(screen) and "<script>" not in class_texts(screen)
    _nothing_private(screen, key, ["Zebedee"])
