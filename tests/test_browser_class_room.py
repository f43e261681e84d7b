"""The room screen in real Chromium: a teacher, the room screen and a student, each in a browser
context of their own, against a real server on a fresh SQLite class database (issue 51).

The room screen is opened from the teacher's *Open the room screen* link and never touched
again: it follows the join screen, a vote (the question, its options, the count), the close
(the votes), the reveal (the answer first) and a view the teacher sends (the view's page in a
frame) by itself, without a reload; on every state its DOM holds no teacher key, no student's
nickname, no teacher control and, before Reveal, no answer. Screenshots at 1920x1080 and
1280x720 (and the teacher's link on a phone) go to artifacts/screenshots/.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pg_support
import pytest
from app_helpers import free_port
from browser_support import (
    SHOTS,
    budget_ms,
    chart_text_report,
    contrast_violations,
    describe_contrast,
    describe_text,
    horizontal_scroll,
    wait_shown,
    wait_until,
)
from test_browser_class import (
    PHONE,
    POLL,
    PROJECTOR,
    RIGHT,
    WRONG,
    _join_by_link,
    _no_serious_axe,
    _start_class,
    _teacher_key,
    class_server,
    people,
)

from posenc_lab import course as lessons
from posenc_lab.classroom import views as class_views

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 900}
SMALL_PROJECTOR = {"width": 1280, "height": 720}
#: the room screen checks every second; a loaded 2-core machine, scaled (browser_support.budget_ms)
FOLLOW_WITHIN_MS = budget_ms(10_000)
NICKNAME = "Zebedee"
#: what only the teacher's screen draws
TEACHER_ONLY = ("Close the vote", "Reveal", "Send the class here", "Show my teacher key", "Preview the question")


def _started(teacher, base: str) -> tuple[str, str, str]:
    """A class started on the teacher's page: (its code, the teacher key, the room screen's link)."""
    teacher.go(f"{base}/class")
    code = _start_class(teacher)
    key = _teacher_key(teacher)
    return code, key, teacher.page.get_by_role("link", name="Open the room screen").first.get_attribute("href")


def _room_has(room, text: str) -> None:
    wait_until(
        room.page,
        "(t) => document.body.innerText.includes(t)",
        arg=text,
        timeout_ms=FOLLOW_WITHIN_MS,
        what=f"the room screen showing {text!r}",
    )


def _nothing_private(room, key: str, *, answer_hidden: bool) -> None:
    """The room screen's whole DOM (its HTML, not only what shows) holds nothing private."""
    html = room.page.content()
    assert key not in html, "the teacher key"
    assert NICKNAME not in html, "a student's nickname"
    for control in TEACHER_ONLY:
        assert control not in html, control
    if answer_hidden:
        assert "The answer" not in html
        assert class_views.reveal_text_of(lessons.COURSE, POLL)[:40] not in html
    assert room.page.locator('[data-testid="stException"]').count() == 0
    assert not room.reloaded(), "the room screen follows without a reload"


#: the smallest text of each place, as a share of the screen's height (3% is 32 px at 1080, 22 px at 720)
SMALLEST = {"top": 0.03, "lead": 0.045, "main": 0.04, "foot": 0.035}
#: every text element of a place but a chart's (Plotly sizes those) and a framed view's
TEXT_SIZES_JS = """(place) => [...document.querySelectorAll(`.st-key-room_${place} :is(p, li, h1, span.katex)`)]
  .filter(e => !e.closest('[data-testid="stPlotlyChart"], iframe') && e.innerText.trim())
  .map(e => parseFloat(getComputedStyle(e).fontSize))"""


def _shots(room, name: str) -> None:
    """Screenshots at 1920x1080 and 1280x720, each checked for text read from the back row."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size in (PROJECTOR, SMALL_PROJECTOR):
        room.page.set_viewport_size(size)
        room.page.wait_for_timeout(600)
        room.page.screenshot(path=str(SHOTS / f"room_{name}_{size['width']}x{size['height']}.png"))
        measured = 0
        for place, share in SMALLEST.items():
            sizes = room.page.evaluate(TEXT_SIZES_JS, place)
            assert all(px >= share * size["height"] - 0.5 for px in sizes), (name, size, place, sizes)
            measured += len(sizes)
        assert measured, f"the room screen's text was found ({name})"
    room.page.set_viewport_size(PROJECTOR)


#: the smallest chart text on the room screen: a lesson's presenter mode asks 18 px
#: (``figures.display.PRESENT_MIN``); the room's votes are read from a lecture hall's back row
ROOM_CHART_MIN_PX = 24


def _chart_text_for_the_back_row(room, where: str) -> None:
    """Every chart text on the room screen at least ROOM_CHART_MIN_PX and 4.5:1 against what
    is behind it (the lessons' projector checks, with a larger minimum)."""
    report = chart_text_report(room.page)
    texts = [t for chart in report["charts"] for t in chart["texts"]]
    assert texts, f"{where}: no chart text was read"
    small = [t for t in texts if t["font_px"] < ROOM_CHART_MIN_PX]
    assert not small, f"{where}: chart text under {ROOM_CHART_MIN_PX} px: {[describe_text(t) for t in small[:5]]}"
    bad = contrast_violations(report)
    assert not bad, f"{where}: {[describe_contrast(v) for v in bad[:5]]}"


def test_the_room_screen_follows_the_class_by_itself_and_shows_nothing_private(browser, tmp_path):
    db = pg_support.fresh_sqlite_url(tmp_path)
    port = free_port()
    server = class_server(db, port=port)
    base = server.__enter__()
    try:
        with people(browser, (DESKTOP, False), (PROJECTOR, False), (PHONE, True)) as (teacher, room, student):
            code, key, href = _started(teacher, base)
            link = teacher.page.get_by_role("link", name="Open the room screen").first
            assert parse_qs(urlparse(href).query) == {"room": [code], "present": ["1"]}, "the code alone"
            assert key not in href
            # the link on a phone, as a teacher with a phone finds it
            teacher.page.set_viewport_size(PHONE)
            link.scroll_into_view_if_needed()
            teacher.page.wait_for_timeout(400)
            teacher.page.screenshot(path=str(SHOTS / "room_teacher_link_phone_390x844.png"))
            teacher.page.set_viewport_size(DESKTOP)

            # the join screen: the code, the address, the QR code most of the screen's height
            room.go(href)
            _room_has(room, f"{code[:3]} {code[3:]}")
            _room_has(room, "0 joined")
            qr = room.page.locator(".st-key-room_qr img")
            wait_shown(qr)
            assert qr.bounding_box()["height"] >= 0.7 * PROJECTOR["height"]
            _nothing_private(room, key, answer_hidden=True)
            _shots(room, "join")
            _no_serious_axe(room, "the room screen's join screen")

            _join_by_link(student, base, code, NICKNAME)
            _room_has(room, "1 joined")
            _nothing_private(room, key, answer_hidden=True)

            # a vote: the question and its options, and how many answered
            teacher.click("Open the vote")
            for option in POLL.options:
                _room_has(room, option)
            _room_has(room, "0 of 1 answered")
            _nothing_private(room, key, answer_hidden=True)
            _shots(room, "voting")
            wait_shown(student.page.get_by_role("button", name="Send my answer"), FOLLOW_WITHIN_MS)
            student.page.locator('[data-testid="stRadio"]').get_by_text(POLL.options[WRONG], exact=True).click()
            student.click("Send my answer")
            student.text("Counted:")
            _room_has(room, "1 of 1 answered")
            _nothing_private(room, key, answer_hidden=True)

            # closed: the votes, their chart's text read from the back row and in contrast
            teacher.click("Close the vote")
            wait_shown(room.page.locator('.st-key-room_main [data-testid="stPlotlyChart"]'), FOLLOW_WITHIN_MS)
            _nothing_private(room, key, answer_hidden=True)
            _shots(room, "closed")
            _chart_text_for_the_back_row(room, "the votes once closed")
            # the teacher's console on a phone: the page does not scroll sideways, nor anything in
            # it but the data grids (who answered, the results, the roster), which scroll within
            # their own frame as a wide table does
            teacher.page.set_viewport_size(PHONE)
            teacher.page.wait_for_timeout(400)
            sideways = horizontal_scroll(teacher.page)
            grids = [e for e in sideways["elements"] if "stDataFrame" in e["selector"]]
            assert not sideways["document"]["scrolls"] and len(grids) == len(sideways["elements"]), sideways
            teacher.page.screenshot(path=str(SHOTS / "room_teacher_console_closed_phone_390x844.png"))
            teacher.page.set_viewport_size(DESKTOP)

            # revealed: the answer first
            teacher.click("Reveal")
            _room_has(room, "The answer")
            answer = room.page.locator(".st-key-room_lead")
            assert POLL.options[RIGHT] in answer.inner_text()
            assert answer.bounding_box()["y"] < PROJECTOR["height"] / 3, "the answer above the fold"
            _nothing_private(room, key, answer_hidden=False)
            _shots(room, "revealed")
            _no_serious_axe(room, "the room screen after Reveal")

            # a view the teacher sends: its page, framed, in presenter mode, no teacher bar in it
            teacher.go(f"{base}/rope?view=rotation")
            wait_shown(teacher.page.get_by_role("button", name="Send the class here"), FOLLOW_WITHIN_MS)
            teacher.click("Send the class here")
            frame = room.page.locator(".st-key-room_main iframe")
            wait_shown(frame, FOLLOW_WITHIN_MS)
            _room_has(room, "The class is on")
            assert "/rope?" in frame.get_attribute("src") and "present=1" in frame.get_attribute("src")
            inner = room.page.frame_locator(".st-key-room_main iframe")
            wait_shown(inner.locator('[data-testid="stPlotlyChart"]').first, FOLLOW_WITHIN_MS)
            room.page.wait_for_timeout(800)
            handle = frame.element_handle().content_frame()
            handle.evaluate("() => { window.__frameKept = true; }")
            room.page.wait_for_timeout(3500)  # three checks of the room screen
            assert handle.evaluate("() => window.__frameKept === true"), "the framed view is not loaded again"
            inner_html = handle.content()
            assert key not in inner_html and "Send the class here" not in inner_html
            _nothing_private(room, key, answer_hidden=False)
            _shots(room, "view")

            # a reload brings the same screen back; so does a restarted server, with no one touching it
            room.page.reload()
            wait_shown(room.page.locator(".st-key-room_main iframe"), FOLLOW_WITHIN_MS)
            room.page.evaluate("() => { window.__notReloaded = true; }")
            server.__exit__(None, None, None)
            server = class_server(db, port=port)
            assert server.__enter__() == base
            teacher.go(f"{base}/class")
            wait_shown(teacher.page.get_by_role("button", name="Open the vote"), FOLLOW_WITHIN_MS)
            teacher.click("Open the vote")
            _room_has(room, ": voting.")
            _room_has(room, "0 of 1 answered")
            _nothing_private(room, key, answer_hidden=True)
    finally:
        server.__exit__(None, None, None)


#: the grids whose drawing is taller than their place on the page, by how many pixels
GRIDS_OVERFLOWING_JS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
  .map(g => {
    const drawn = g.querySelector('[data-testid="stDataFrameResizable"]');
    return drawn ? Math.round(drawn.getBoundingClientRect().height - g.getBoundingClientRect().height) : 0;
  })
  .filter(over => over > 1)"""


def test_a_vote_timer_closes_the_vote_on_every_screen_and_names_stay_on_the_teachers(browser, tmp_path):
    """The teacher sees who has not answered and who has, by name; sets a custom 8 s timer;
    the room screen and the student's phone count it down by themselves; at zero all three
    show the vote closed, and the room screen's DOM never held the student's name."""
    db = pg_support.fresh_sqlite_url(tmp_path)
    server = class_server(db, port=free_port())
    base = server.__enter__()
    try:
        with people(browser, (DESKTOP, False), (PROJECTOR, False), (PHONE, True)) as (teacher, room, student):
            code, key, href = _started(teacher, base)
            room.go(href)
            _join_by_link(student, base, code, NICKNAME)
            _room_has(room, "1 joined")

            teacher.click("Open the vote")
            teacher.text("Not answered yet (1):", FOLLOW_WITHIN_MS)
            line = teacher.page.locator('[data-testid="stMarkdownContainer"]', has_text="Not answered yet (1):")
            assert NICKNAME in line.first.inner_text()
            # the empty grid of who answered keeps its drawing within its place (its "empty" row
            # overlapped the caption under it: the place was one row high)
            wait_shown(teacher.page.locator('[data-testid="stDataFrame"]').first, FOLLOW_WITHIN_MS)
            assert not teacher.page.evaluate(GRIDS_OVERFLOWING_JS)
            wait_shown(student.page.get_by_role("button", name="Send my answer"), FOLLOW_WITHIN_MS)
            student.page.locator('[data-testid="stRadio"]').get_by_text(POLL.options[WRONG], exact=True).click()
            student.click("Send my answer")
            student.text("Counted:")
            teacher.text("Not answered yet (0):", FOLLOW_WITHIN_MS)
            table = teacher.page.locator('[data-testid="stDataFrame"]').first
            wait_shown(table, FOLLOW_WITHIN_MS)

            box = teacher.page.get_by_label("Custom timer, seconds (5 to 600)")
            box.fill("8")
            box.press("Enter")
            teacher.page.wait_for_timeout(500)
            teacher.click("Start the timer")
            _room_has(room, " left")
            student.text(" left", FOLLOW_WITHIN_MS)
            _nothing_private(room, key, answer_hidden=True)
            assert "Not answered yet" not in room.page.content()

            closes_within = budget_ms(25_000)
            wait_until(
                room.page,
                "() => document.body.innerText.includes('voting closed')",
                timeout_ms=closes_within,
                what="the room screen showing the vote closed at zero",
            )
            student.text("Voting is closed", closes_within)
            teacher.text("in round 1 (closed)", closes_within)
            _nothing_private(room, key, answer_hidden=True)
            for person in (teacher, room, student):
                person.no_exception()
            assert not room.reloaded() and not student.reloaded(), "followed without a reload"
    finally:
        server.__exit__(None, None, None)
