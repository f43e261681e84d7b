"""The app in a learner's hands, in headless Chromium against the running server: views
reached by clicking the view picker (not by their address), the side panel as a learner
first sees it, and what a chart's own buttons say after a slider moves.

A view opened by its address runs as a full run; one reached by its picker reruns the
lesson's fragment alone (``ui.layout.lesson_body``), which Streamlit treats differently
(a fragment may only write where it wrote in the last full run). The server's log is read
when the session's server stops (``browser_support.serve``): a traceback there fails too.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import time
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from app_helpers import CHEAP
from browser_support import (
    KEY_SLIDER,
    SIDEBAR_SLIDER,
    SIGNATURE_JS,
    PageTimeout,
    ViewTab,
    budget_ms,
    budget_s,
    chart_text_report,
    contrast_violations,
    describe_contrast,
    describe_page,
    open_in_browser,
    wait_idle,
    wait_ready,
    wait_shown,
    wait_until,
)
from streamlit.proto.BackMsg_pb2 import BackMsg

from posenc_lab.course import LESSONS

pytestmark = pytest.mark.browser

#: what Streamlit draws for an exception in a run (with the details redacted in the browser)
EXCEPTION = '[data-testid="stException"]'


def _view_in_address(page) -> str | None:
    return parse_qs(urlparse(page.url).query).get("view", [None])[0]


def _pick(page, picker, view: str, label: str, *, default: bool) -> None:
    """Click ``label`` in the view picker and wait for the run it starts to end: the address
    names the view at the end of that run (the lesson's first view's may name none)."""
    picker.get_by_text(label, exact=True).click()
    wait_until(
        page,
        """([view, isDefault]) => {
          const app = document.querySelector('[data-testid="stApp"]');
          const at = new URLSearchParams(location.search).get('view');
          return (at === view || (at === null && isDefault)) && app.dataset.testScriptState === 'notRunning';
        }""",
        arg=[view, default],
        what=f"the view {label!r} picked and its run over",
    )
    wait_idle(page)


@pytest.mark.parametrize("width, height", [(1366, 900), (390, 844)], ids=["laptop", "phone"])
def test_a_lessons_settings_come_first_in_the_side_panel(server, browser, width, height):
    """Sinusoidal's settings (positions, base) are the first thing in the side panel, above
    the menu, on a laptop's first screen (they started at y ~ 932, below 17 menu links) and
    first in a phone's opened panel."""
    page, _ = open_in_browser(browser, f"{server}/sinusoidal", width=width, height=height)
    try:
        wait_ready(page, charts=False)
        if width < 640:  # a phone's panel starts closed
            page.locator('[data-testid="stExpandSidebarButton"]').click()
            wait_until(
                page,
                """() => { const s = document.querySelector('[data-testid="stSidebar"]');
                  return !!s && s.getBoundingClientRect().right >= innerWidth * 0.6; }""",
                timeout_ms=budget_ms(10_000),
                what="the phone's side panel open",
            )
        wait_shown(page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').first)
        boxes = page.evaluate(
            """() => {
              const top = s => {
                const e = document.querySelector(s);
                return e ? e.getBoundingClientRect().top : null;
              };
              return {slider: top('[data-testid="stSidebar"] [data-testid="stSlider"]'),
                      menu: top('[data-testid="stSidebar"] .st-key-site_nav')};
            }"""
        )
        assert boxes["slider"] is not None and boxes["menu"] is not None, boxes
        assert boxes["slider"] < boxes["menu"], f"the menu comes before the settings: {boxes}"
        assert boxes["slider"] < height - 60, f"the first setting is off the first screen: {boxes}"
    finally:
        page.close()


def test_the_animation_counter_follows_the_key_offset(server, browser):
    """RoPE's rotation: the frame counter above the chart names the positions the chart
    draws. Moving r from 2 to 7 with the keyboard left it at "query at m = 2" while the chart
    drew m = 7 (its buttons were not mounted anew for the new frames)."""
    page, _ = open_in_browser(browser, f"{server}/rope?view=rotation", width=1366, height=900)
    try:
        wait_ready(page)
        status = page.locator('[role="status"]').filter(has_text="frame 1 of")
        wait_shown(status)
        assert "query at m = 2, key at n = 0" in status.inner_text()
        thumb = page.locator(KEY_SLIDER).nth(1)
        assert thumb.input_value() == "2"
        thumb.focus()
        for _ in range(5):
            thumb.press("ArrowRight")
        wait_until(
            page,
            "() => new URLSearchParams(location.search).get('gap') === '7'"
            " && document.querySelector('[data-testid=\"stApp\"]').dataset.testScriptState === 'notRunning'",
            what="r at 7 and its run over",
        )
        wait_ready(page)
        status = page.locator('[role="status"]').filter(has_text="frame 1 of")
        wait_shown(status.filter(has_text="query at m = 7"))
        assert "query at m = 7, key at n = 0" in status.inner_text()
    finally:
        page.close()


class _OlderAddress:
    """Stands between the tab and the server (Playwright's WebSocket route) and, once armed,
    names ``query`` in the tab's next rerun request: what a busy browser names, whose copy of
    the query string follows its address bar a render later."""

    def __init__(self, page):
        self.query: str | None = None
        self.sent = False
        page.route_web_socket(re.compile(r"/_stcore/stream$"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        ws.on_message(lambda message: server.send(self._rewritten(message)))
        server.on_message(ws.send)

    def _rewritten(self, message):
        if self.query is None or self.sent or not isinstance(message, bytes):
            return message
        back = BackMsg()
        back.ParseFromString(message)
        if back.WhichOneof("type") != "rerun_script":
            return message
        back.rerun_script.query_string = self.query
        self.sent = True
        return back.SerializeToString()


def test_the_address_follows_a_run_that_started_from_an_older_address(server, browser):
    """RoPE's r moved 2 -> 3 -> 2, the second move's request naming the address of r = 2 (the
    browser's copy of the query string lags its address bar under load): the run had nothing
    to write, and the bar kept gap=3 with the slider at 2 (seen in CI on Design choices'
    d_model: 130 in the bar, 128 on the slider). Every run now ends with its whole address."""
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    older = _OlderAddress(page)
    try:
        page.goto(f"{server}/rope?view=rotation", wait_until="domcontentloaded")
        wait_ready(page)
        thumb = page.locator(KEY_SLIDER).nth(1)
        assert thumb.input_value() == "2"
        start = urlparse(page.url).query
        thumb.focus()
        thumb.press("ArrowRight")
        wait_until(page, "() => new URLSearchParams(location.search).get('gap') === '3'", what="r at 3 in the address")
        wait_idle(page)
        older.query = start
        thumb.press("ArrowLeft")
        wait_until(page, "() => !!document.querySelector('[data-testid=\"stApp\"]')", what="the app")
        _settled(page)
        assert older.sent, "the press sent no run"
        assert thumb.input_value() == "2"
        assert parse_qs(urlparse(page.url).query).get("gap") == ["2"], f"the slider is at 2, the address: {page.url}"
    finally:
        page.close()


# ------------------------------------------------------------------ quick key presses

#: the page's state for a burst: the script state and connection, the charts drawn, whether
#: an exception or a connection error shows, and what the charts draw
WHOLE_JS = f"""() => {{
  const app = document.querySelector('[data-testid="stApp"]');
  return {{
    state: app ? app.dataset.testScriptState : 'BLANK',
    connection: app ? app.dataset.testConnectionState : 'BLANK',
    charts: document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot .main-svg').length,
    exception: document.querySelectorAll('{EXCEPTION}').length,
    signature: ({SIGNATURE_JS})(),
  }};
}}"""

#: from now on, on every animation frame, the fewest charts drawn (``WHOLE_JS``'s count) and
#: for how many frames in a row at most a chart was missing: a chart area that goes blank
#: mid-rerun shows here though the page is whole once the runs are over. The longest such
#: run is described (``seen``: what the page held on its frames, with their times in ms), so
#: that a failure says whether the charts' places were gone or their drawings not yet made
WATCH_JS = """() => {
  const q = s => document.querySelectorAll(s).length;
  const count = () => q('[data-testid="stPlotlyChart"] .js-plotly-plot .main-svg');
  const watch = window.__posencCharts = {start: count(), fewest: count(), missingFrames: 0, longest: 0, on: true,
    places: q('[data-testid="stPlotlyChart"]'), seen: [], run: []};
  const frame = () => {
    if (!watch.on) return;
    const now = count();
    watch.fewest = Math.min(watch.fewest, now);
    watch.missingFrames = now < watch.start ? watch.missingFrames + 1 : 0;
    if (watch.missingFrames === 1) watch.run = [];
    if (watch.missingFrames > 0 && watch.run.length < 8) {
      const app = document.querySelector('[data-testid="stApp"]');
      watch.run.push({ms: Math.round(performance.now()), drawn: now, places: q('[data-testid="stPlotlyChart"]'),
        plots: q('[data-testid="stPlotlyChart"] .js-plotly-plot'), skeletons: q('[data-testid="stSkeleton"]'),
        stale: q('[data-stale="true"]'), retained: q('[data-retained="true"]'),
        state: app ? app.dataset.testScriptState : 'BLANK'});
    }
    if (watch.missingFrames > watch.longest) { watch.longest = watch.missingFrames; watch.seen = watch.run; }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}"""
STOP_WATCH_JS = "() => { const w = window.__posencCharts; w.on = false; return w; }"


def _settled(page, timeout_s: float | None = None) -> dict:
    """The page once its runs are over and what it draws has stopped changing (the same
    state in samples 150 ms apart, idle and connected), within ``timeout_s``
    (``budget_s(60)``); a lost connection returns at once."""
    timeout_s = timeout_s or budget_s(60)
    deadline = time.monotonic() + timeout_s
    before = None
    while time.monotonic() < deadline:
        now = page.evaluate(WHOLE_JS)
        if now["connection"] != "CONNECTED":
            return now
        if now["state"] == "notRunning" and now == before:
            return now
        before = now
        page.wait_for_timeout(150)  # the samples' spacing: a redraw still under way shows between them
    raise AssertionError(f"the page did not settle within {timeout_s:.0f} s: {before}\n{describe_page(page)}")


@contextlib.contextmanager
def _busy_loop():
    """A process spinning on a core beside the browser and the server, as on a busy laptop."""
    proc = subprocess.Popen(["sh", "-c", "exec yes > /dev/null"])
    try:
        yield
    finally:
        proc.kill()
        proc.wait()


def _burst(thumb, key: str, presses: int) -> None:
    """``presses`` (up to five) presses of ``key`` within half a second."""
    for _ in range(presses):
        thumb.press(key, delay=10)
        thumb.page.wait_for_timeout(60)  # a quick learner's pace between presses


#: animation frames in a row a chart may be missing mid-rerun: Plotly redraws a changed figure
#: by replacing its drawing, which leaves one frame without it; a chart area left blank
#: for longer is what a learner sees as a chart that vanished
BLANK_FRAMES = 2


def _bursts_leave_the_page_whole(page) -> None:
    """The view's first key control (or first slider in the side panel), five presses one
    way then five back within half a second each, with a busy loop beside: after each burst
    the page is connected, shows no exception and every chart it had; after the way back it
    draws what it drew at the start, with the slider and the address at their starting values.
    No chart goes missing for more than ``BLANK_FRAMES`` frames in a row while the runs go on."""
    errors: list[str] = []
    listen = lambda m: errors.append(m.text[:200]) if m.type == "error" else None  # noqa: E731
    page.on("console", listen)
    start = _settled(page)
    address = page.url
    thumb = page.locator(KEY_SLIDER if page.locator(KEY_SLIDER).count() else SIDEBAR_SLIDER).first
    value = thumb.input_value()
    low, high, step = (float(thumb.get_attribute(a) or d) for a, d in (("min", 0), ("max", 0), ("step", 1)))
    # five presses where the slider has room for them (fewer on a short one), so that the
    # way back ends where it started
    up, down = round((high - float(value)) / step), round((float(value) - low) / step)
    first, back = ("ArrowRight", "ArrowLeft") if up >= min(5, max(up, down)) else ("ArrowLeft", "ArrowRight")
    presses = min(5, max(up, down))
    assert presses > 0, "the slider has one value"
    with _busy_loop():
        for key in (first, back):
            thumb.focus()
            page.evaluate(WATCH_JS)
            _burst(thumb, key, presses)
            now = _settled(page)
            watch = page.evaluate(STOP_WATCH_JS)
            assert watch["longest"] <= BLANK_FRAMES, (
                f"{key} x{presses}: the charts drawn fell from {watch['start']} to {watch['fewest']}"
                f" mid-rerun, for {watch['longest']} frames in a row; {watch['places']} chart places at the"
                f" start, and on those frames: {watch['seen']}"
            )
            if key == first:  # the presses reached the server: the chart and the address moved on
                assert now["signature"] != start["signature"] and page.url != address, (
                    f"{key} x{presses} changed nothing"
                )
            assert now["connection"] == "CONNECTED", f"the session ended after {key} x{presses}: {errors[-3:]}"
            assert now["exception"] == 0, f"an exception after {key} x{presses}"
            assert now["charts"] == start["charts"], f"charts after {key}: {now['charts']} of {start['charts']}"
    assert thumb.input_value() == value
    assert page.url == address, f"the slider is back at {value}, the address is not"
    # the charts of the starting values, awaited: a run is over once its messages are sent,
    # and the chart they carry is drawn after that; a chart left at another value never
    # comes back, and the message says what it drew (the sums of SIGNATURE_JS)
    try:
        wait_until(
            page,
            f"start => ({SIGNATURE_JS})() === start",
            arg=start["signature"],
            timeout_ms=budget_ms(15_000),
            what="the starting values' charts back",
        )
    except PageTimeout as exc:
        raise AssertionError(
            f"back at the start ({page.url}), the charts differ from the start's: "
            f"{page.evaluate(SIGNATURE_JS)} where the start drew {start['signature']}"
        ) from exc
    assert not [e for e in errors if "ForwardMsg" in e or "delta path" in e or "setIn" in e], errors
    page.remove_listener("console", listen)


def _every_view_from_its_picker(page, lesson) -> None:
    """Every view of the lesson, clicked in its picker one after another, and back to the
    first: none shows an exception, and the picker holds the view clicked."""
    labels = lesson.view_labels
    views = list(labels)
    picker = page.locator('[data-testid="stMain"] [role="radiogroup"]').filter(has_text=labels[views[1]]).first
    for view in [*views[1:], views[0]]:
        _pick(page, picker, view, labels[view], default=view == views[0])
        assert page.locator(EXCEPTION).count() == 0, f"{lesson.url_path}: the view {labels[view]!r} shows an exception"
        checked = picker.locator("label").filter(has=page.locator("input:checked"))
        assert checked.count() == 1 and checked.inner_text().strip() == labels[view]


@pytest.fixture(scope="module")
def lesson_tab(browser):
    """One laptop tab for the lessons in turn: the first loads the app, the next are links
    followed inside it (``ViewTab``), each drawn as a link opened afresh."""
    tab = ViewTab(browser)
    yield tab
    tab.close()


#: each lesson at settings whose neighbouring values are cheap (the experiments train six
#: models for a setting they have not stored)
QUICK_CASES = [(lesson, CHEAP.get(lesson.path, {})) for lesson in LESSONS]


@pytest.mark.parametrize(("lesson", "query"), QUICK_CASES, ids=[lesson.url_path for lesson, _ in QUICK_CASES])
def test_a_lesson_in_quick_hands(server, lesson_tab, lesson, query):
    """A learner's session on the lesson: bursts of key presses on its first view's key
    control (quick presses ended the session, "Cached ForwardMsg MISS": the browser had
    dropped a chart the server sent as a reference; or left the chart area blank), then
    every view reached by clicking its view picker (four crashed: Design choices' "Absolute
    plus relative", "Unique, bounded, norm-preserving" and "Which method should I choose?",
    and Real models' "One model or two", whose fragment wrote to the side panel where the
    view before had written nothing)."""
    lesson_tab.open(server, lesson.url_path + (f"?{urlencode(query)}" if query else ""), "desktop")
    page = lesson_tab.page
    try:
        wait_ready(page)
        _bursts_leave_the_page_whole(page)
        if len(lesson.view_labels) > 1:
            _every_view_from_its_picker(page, lesson)
        assert not lesson_tab.outside
    except Exception:
        lesson_tab.loaded = None  # the next lesson loads the app afresh
        raise


# ------------------------------------------------------------------ a live colour-scheme switch

#: a heatmap with its colour bar, and nine panels of lines (the one the report named)
SCHEME_VIEWS = ["sinusoidal", "alibi?view=attention"]


@pytest.mark.parametrize("path", SCHEME_VIEWS)
def test_chart_text_follows_a_live_switch_of_the_colour_scheme(server, browser, path):
    """The browser's colour scheme switched under an open page, light to dark and back: the
    chart text contrasts 4.5:1 in each scheme (it stayed dark on dark, or white on white:
    the page now reloads itself in the new scheme, at the same address)."""
    context = browser.new_context(viewport={"width": 1366, "height": 900}, color_scheme="light")
    page = context.new_page()
    try:
        page.goto(f"{server}/{path}", wait_until="domcontentloaded")
        wait_ready(page)
        assert not contrast_violations(chart_text_report(page))
        address = page.url
        for scheme in ("dark", "light"):
            with page.expect_navigation(timeout=budget_ms(30_000)):
                page.emulate_media(color_scheme=scheme)
            wait_ready(page)
            report = chart_text_report(page)
            assert sum(len(chart["texts"]) for chart in report["charts"]) > 0, "no chart text was read"
            bad = contrast_violations(report)
            assert not bad, f"in the {scheme} scheme: {[describe_contrast(v) for v in bad[:5]]}"
            assert page.url == address
    finally:
        context.close()
