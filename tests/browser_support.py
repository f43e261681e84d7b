"""Support for the browser tests: a streamlit server on loopback and Debian's chromium.

The fixtures ``server`` (base URL) and ``browser`` live in conftest.py and are shared by
every browser test of the session; ``serve()`` and ``chromium()`` are the same as plain
context managers (tools/measure_views.py).

Every wait's timeout is a budget: a base tuned on a 2-core machine, times how much slower this
machine runs now (``budget_ms``, ``calibration.pace``); a wait that runs out says what the page
showed (``PageTimeout``).

The second half measures classroom-grade figures in the page (chart text size, contrast,
overlaps, overflow, sideways scrolling, axe-core), returning plain data:
tests/test_browser_classroom.py and tools/measure_views.py use it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlparse

import calibration
import pytest
from app_helpers import ROOT, free_port
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from posenc_lab.course import CLASS, LESSONS, REFERENCE

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SHOTS = ROOT / "artifacts" / "screenshots"
PAGES = [("home", "")] + [
    (
        f"{lesson.url_path}-{view}" if view else lesson.url_path,
        f"{lesson.url_path}?view={view}" if view else lesson.url_path,
    )
    for lesson in LESSONS
    for view in (lesson.views or [None])
]


def budget_ms(base_ms: float) -> int:
    """A wait of ``base_ms`` (tuned on the reference machine, ``calibration.REFERENCE_S``)
    on this machine now: ``base_ms`` times ``calibration.pace()``, measured once per test run."""
    return round(base_ms * calibration.pace())


def budget_s(base_s: float) -> float:
    """``budget_ms`` in seconds."""
    return base_s * calibration.pace()


#: what a page waits for anything by default (Playwright's own default is a fixed 30 s):
#: every context and page of the session's browser (``BudgetedBrowser``) and the helpers below
WAIT_MS = budget_ms(30_000)


# a fingerprint of what the view currently draws: each chart's title and a weighted sum of
# its traces' values and labels, then the text of the main area's tables. The sum is kept
# per data array (a WeakMap on the page): Streamlit mounts a new chart for a new figure and
# no one changes a drawn chart's arrays in place, so an unchanged chart costs a lookup. Read
# on every animation frame by browser_feel, the full walk of ten charts took ~35 ms of the
# page's main thread a key press on compare, inside the redraw it measures.
SIGNATURE_JS = """() => {
  const sums = window.__signatureSums || (window.__signatureSums = new WeakMap());
  const sum = data => {
    let s = 0, c = 0;  // c: values read of the trace (5,000 at most each)
    const add = x => { s += (+x || 0) * (c % 97 + 1); c++; };
    const walk = a => {
      if (a === null || a === undefined || c > 5000) return;
      if (typeof a === 'string') { for (let i = 0; i < a.length && c <= 5000; i += 7) add(a.charCodeAt(i)); return; }
      if (typeof a !== 'object') { add(a); return; }
      if (a.bdata !== undefined) { walk(a.bdata); return; }  // Plotly's binary arrays, still encoded
      if (a.length !== undefined) { for (const e of a) walk(e); return; }
    };
    // every trace: a setting may change only a second line, a marker or a label trace
    for (const t of data || []) { c = 0; walk(t.z !== undefined ? t.z : t.y); walk(t.text); }
    return s;
  };
  return Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => {
    let s = gd.data ? sums.get(gd.data) : undefined;
    if (s === undefined) { s = sum(gd.data); if (gd.data) sums.set(gd.data, s); }
    // the page prints the title above the chart and keeps it in layout.meta
    const meta = (gd.layout && gd.layout.meta) || {};
    const title = meta.title || meta.chart_title || '';
    return title + ':' + s.toFixed(8);
  }).join('|') + '#' + Array.from(document.querySelectorAll('[data-testid="stMain"] [data-testid="stTable"]'))
    .map(t => t.innerText).join('|');
}"""


class ServerStartError(RuntimeError):
    """``streamlit run app.py`` did not answer its health check in time."""


class ServerLogError(AssertionError):
    """The server's log holds a traceback or a line logged at WARNING or above."""


#: the format of the server's log lines: the level and the logger's name make an error
#: recognisable (Streamlit's own default prints the time and the message alone)
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: log lines at WARNING or above that say nothing is wrong, each (logger, start of the
#: message, why it is harmless); anything else at those levels fails the browser tests
HARMLESS_LOG: tuple[tuple[str, str, str], ...] = ()
_LEVELS = ("WARNING", "ERROR", "CRITICAL")


def log_problems(text: str) -> list[str]:
    """The lines of a server log that report a problem: each traceback (its first line,
    up to the line naming the error) and each line logged at WARNING or above that
    ``HARMLESS_LOG`` does not list."""
    problems: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("Traceback (most recent call last)"):
            # the error's own line is the first unindented one after the frames
            end = i + 1
            while end < len(lines) and (lines[end].startswith(" ") or not lines[end].strip()):
                end += 1
            error = lines[end] if end < len(lines) else ""
            problems.append(f"{line} ... {error}".strip())
            i = end + 1
            continue
        parts = line.split(" ", 4)
        if len(parts) == 5 and parts[2] in _LEVELS:
            logger, message = parts[3].rstrip(":"), parts[4]
            if not any(logger == name and message.startswith(start) for name, start, _ in HARMLESS_LOG):
                problems.append(" ".join(parts[2:]))  # without the time: repeats read as one
        i += 1
    return problems


@contextlib.contextmanager
def serve(
    timeout: float | None = None,
    *,
    env: dict[str, str] | None = None,
    port: int | None = None,
    check_log: bool = True,
    script: Path | None = None,
) -> Iterator[str]:
    """``streamlit run app.py`` (or ``script``: benchmarks/floor_app.py) on a free loopback
    port: yields its base URL, stops it on exit.

    A plain context manager, usable outside pytest (``tools/measure_views.py``). The server's
    log goes to a temporary file (a pipe nobody reads would block the server once full) and
    is shown if it does not start. ``env`` adds to (or overrides) this process's environment
    for the server (``POSENC_CLASS_DB``); ``port`` picks the port (a restart on the same one).
    ``timeout``: seconds for the server to answer its health check (``budget_s(60)``).

    With ``check_log``, once the server has stopped its log is read (``log_problems``):
    a traceback or an unlisted warning raises ``ServerLogError``, or, when the block
    already raised, is added to that error as a note.
    """
    port = port or free_port()
    timeout = timeout or budget_s(60)
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(script or ROOT / "app.py"),
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--logger.messageFormat",
        LOG_FORMAT,
    ]
    with tempfile.TemporaryFile() as log:
        server_env = None if env is None else {**os.environ, **env}
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=server_env)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + timeout
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        log.seek(0)
                        raise ServerStartError(
                            f"streamlit did not start within {timeout:.0f} s:\n" + log.read().decode(errors="replace")
                        ) from None
                    time.sleep(0.3)
            yield url
        except BaseException as exc:
            _stop(proc)
            problems = _read_problems(log) if check_log else []
            if problems:
                exc.add_note("The server's log also holds:\n" + "\n".join(problems))
            raise
        _stop(proc)
        problems = _read_problems(log) if check_log else []
        if problems:
            raise ServerLogError(
                f"the server's log holds {len(problems)} problem(s):\n" + "\n".join(problems)
            ) from None


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _read_problems(log) -> list[str]:
    """``log_problems`` of the log file, each problem once, with how often it came."""
    log.seek(0)
    counts = Counter(log_problems(log.read().decode(errors="replace")))
    return [f"{problem} (x{n})" if n > 1 else problem for problem, n in counts.items()]


def start_server():
    """The pytest fixture's body (conftest.py): ``serve()``, failing the test if it does not start."""
    try:
        with serve() as url:
            yield url
    except (ServerStartError, ServerLogError) as exc:
        pytest.fail(str(exc))


@contextlib.contextmanager
def chromium() -> Iterator:
    """Debian's chromium under Playwright (``FLAGS``), as a plain context manager."""
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        raise RuntimeError(
            f"Debian's chromium is needed at {CHROMIUM}: apt-get install chromium (scripts/test.sh does)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()


def launch_browser():
    """The pytest fixture's body (conftest.py): ``chromium()`` as a ``BudgetedBrowser``, failing
    the test if it is missing."""
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.fail(f"Debian's chromium is needed at {CHROMIUM}: apt-get install chromium (scripts/test.sh does)")
    with chromium() as b:
        yield BudgetedBrowser(b)


#: counts the page's websocket traffic for ``wait_idle``, from the document's first script on
#: (an init script of every context of ``BudgetedBrowser``) or from the first ``wait_idle`` on
#: a page made elsewhere: ``messages`` either way, and ``unanswered`` while the last message
#: the page sent has had no message back (a run asked for, not begun). Streamlit's socket is
#: watched from its first send, which comes before anything the server sends.
TRAFFIC_JS = """() => {
  if (window.__posencTraffic) return;
  const traffic = window.__posencTraffic = {messages: 0, unanswered: false};
  const watched = new WeakSet();
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (...args) {
    if (!watched.has(this)) {
      watched.add(this);
      this.addEventListener('message', () => { traffic.messages++; traffic.unanswered = false; });
    }
    const sent = send.apply(this, args);
    traffic.messages++;
    traffic.unanswered = true;
    return sent;
  };
}"""


def budgeted(context) -> None:
    """Give a browser context the session's budgets: ``WAIT_MS`` for every wait without a
    timeout of its own, and ``TRAFFIC_JS`` in every document."""
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(f"({TRAFFIC_JS})()")


class BudgetedBrowser:
    """The session's Browser, whose every new context and page is ``budgeted``; anything
    else is the Browser's own."""

    def __init__(self, browser):
        self._browser = browser

    def __getattr__(self, name: str):
        return getattr(self._browser, name)

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        budgeted(context)
        return context

    def new_page(self, **options):
        page = self._browser.new_page(**options)
        budgeted(page.context)  # a page of its own context, still blank: its first load has both
        return page


class PageTimeout(PlaywrightTimeout):
    """A wait that ran out, saying what the page showed then (``describe_page``); still a
    Playwright timeout for any caller that catches those."""


#: what the page shows: its script state and connection, its exceptions and its text
PAGE_STATE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return {script: app ? app.dataset.testScriptState : 'no app', connection: app ? app.dataset.testConnectionState : '-',
          exceptions: Array.from(document.querySelectorAll('[data-testid="stException"]'))
            .map(e => e.innerText.replace(/\\s+/g, ' ').slice(0, 300)),
          traffic: window.__posencTraffic ? JSON.stringify(window.__posencTraffic) : 'not watched',
          text: document.body ? document.body.innerText : ''};
}"""


def describe_page(page, *, tail: int = 1500) -> str:
    """What the page shows, for a failure message: its address, script state, connection,
    exceptions and the last ``tail`` characters of its text (blank lines dropped)."""
    try:
        state = page.evaluate(PAGE_STATE_JS)
    except Exception as exc:  # noqa: BLE001 - a closed or crashed page is what it showed
        return f"the page could not be read ({type(exc).__name__}: {str(exc).splitlines()[0]})"
    lines: list[str] = []
    for line in filter(None, (line.strip() for line in state["text"].splitlines())):
        if len(line) <= 2 and lines:  # a formula's symbols, one a line: read as one
            lines[-1] += line
        else:
            lines.append(line)
    text = "\n".join(lines)
    cut = "..." if len(text) > tail else ""
    exceptions = "".join(f"\n  exception: {e}" for e in state["exceptions"])
    return (
        f"the page at {page.url} (script {state['script']}, connection {state['connection']},"
        f" websocket traffic {state['traffic']}) shows"
        f"{exceptions}\n{cut}{text[-tail:]}"
    )


@contextlib.contextmanager
def saying_what_shows(page, waited_for: str) -> Iterator[None]:
    """A Playwright timeout in the block becomes a ``PageTimeout`` that names what was
    ``waited_for`` (and what Playwright was waiting for) and says what the page showed then."""
    try:
        yield
    except PageTimeout:
        raise
    except PlaywrightTimeout as exc:
        waiting = [line.strip(" -") for line in str(exc).splitlines() if line.strip(" -").startswith("waiting for")]
        said = f"{waited_for} ({waiting[0]})" if waiting else waited_for
        raise PageTimeout(f"{said}\n{describe_page(page)}") from None


def _short(js: str, width: int = 160) -> str:
    """A function's source on one line, cut to ``width``, for a message."""
    line = " ".join(js.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def open_in_browser(browser, url: str, *, width: int = 1440, height: int = 1000):
    page = browser.new_page(viewport={"width": width, "height": height})
    outside: list[str] = []
    page.on(
        "request",
        lambda r: (
            outside.append(r.url)
            if urlparse(r.url).hostname not in ("127.0.0.1", "localhost") and not r.url.startswith(("data:", "blob:"))
            else None
        ),
    )
    page.goto(url, wait_until="domcontentloaded")
    wait_shown(page.locator('[data-testid="stApp"]'))
    return page, outside


#: the app's root says whether a script run is going on (``data-test-script-state``: "initial"
#: before the first run, then "running", "rerunRequested", "notRunning"...) and whether its
#: websocket is up (``data-test-connection-state``); Streamlit's own end-to-end tests wait on them
IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.dataset.testScriptState === 'notRunning'
    && app.dataset.testConnectionState === 'CONNECTED'
    && !!document.querySelector('[data-testid="stMain"] h1');
}"""

# IDLE_JS, with nothing the page sent unanswered (``TRAFFIC_JS``), held across ``frames``
# animation frames with no websocket message either way. Evaluated on every frame; ``token``
# starts the count afresh for each wait.
QUIET_JS = f"""([token, frames]) => {{
  ({TRAFFIC_JS})();
  const traffic = window.__posencTraffic;
  if (traffic.token !== token || traffic.unanswered || traffic.seen !== traffic.messages || !({IDLE_JS})()) {{
    Object.assign(traffic, {{token, seen: traffic.messages, frames: 0}});
    return false;
  }}
  return ++traffic.frames >= frames;
}}"""

# a wait's own count on the page (QUIET_JS, STILL_JS)
_TOKENS = itertools.count(1)


def wait_idle(page, *, timeout_ms: int | None = None) -> None:
    """Wait until a script run has started and is over, the page has its title, and nothing
    the page asked of the server is still unanswered, across two animation frames in which no
    websocket message came or went (``QUIET_JS``). Within ``timeout_ms`` (``WAIT_MS``), else
    a ``PageTimeout`` says what the page showed.

    The running icon of Streamlit's status widget shows only after a delay, so a page whose
    title was drawn before the icon appeared looked idle while its first run went on (a key
    pressed then met a slider being redrawn); the root's script state is exact. It still
    reads "notRunning" between a run and the next one the page has asked for (a click, a
    widget's value, a component's report) until the server answers: the page's own traffic
    tells. A component whose script has not run yet (on a page's first load it runs about a
    second after the run, once Streamlit has fetched its code) has asked for nothing: a step
    that needs its report waits for what the report changes."""
    timeout_ms = timeout_ms or WAIT_MS
    with saying_what_shows(page, f"the page was not idle within {timeout_ms} ms"):
        page.wait_for_function(QUIET_JS, arg=[next(_TOKENS), 2], timeout=timeout_ms)


def wait_shown(locator, timeout_ms: int | None = None) -> None:
    """Wait until ``locator`` (its one element) is visible, within ``timeout_ms``
    (``WAIT_MS``), else a ``PageTimeout`` says what the page showed."""
    timeout_ms = timeout_ms or WAIT_MS
    with saying_what_shows(locator.page, f"not shown within {timeout_ms} ms"):
        locator.wait_for(timeout=timeout_ms)


def wait_for_text(page, text, timeout_ms: int | None = None) -> None:
    """Wait until ``text`` (a string, found inside an element's text, or a pattern) shows,
    within ``timeout_ms`` (``WAIT_MS``), else a ``PageTimeout`` says what the page showed."""
    wait_shown(page.get_by_text(text).first, timeout_ms)


def wait_until(page, js: str, *, arg=None, timeout_ms: int | None = None, what: str | None = None) -> None:
    """``page.wait_for_function(js, arg=arg)`` within ``timeout_ms`` (``WAIT_MS``), else a
    ``PageTimeout`` names ``what`` was awaited (the function) and says what the page showed."""
    timeout_ms = timeout_ms or WAIT_MS
    with saying_what_shows(page, f"{what or _short(js)} did not come true within {timeout_ms} ms"):
        page.wait_for_function(js, arg=arg, timeout=timeout_ms)


#: where the page stands scrolled (the window and Streamlit's own scroll containers)
SCROLL_JS = """() => [window.scrollY, ...Array.from(
  document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"]'), e => e.scrollTop)]"""

# the value of ``js`` (a function's source) the same on ``frames`` animation frames in a row;
# ``token`` starts the count afresh for each wait
STILL_JS = """([token, frames]) => {{
  const now = JSON.stringify(({js})());
  const still = window.__posencStill;
  if (!still || still.token !== token || still.value !== now) {{
    window.__posencStill = {{token, value: now, frames: 0}};
    return false;
  }}
  return ++still.frames >= frames;
}}"""


def wait_still(page, js: str = SCROLL_JS, *, frames: int = 2, timeout_ms: int | None = None) -> None:
    """Wait until ``js`` (a function's source; where the page stands scrolled, by default)
    gives the same value on ``frames`` animation frames in a row: a scroll or a slide over."""
    timeout_ms = timeout_ms or WAIT_MS
    with saying_what_shows(page, f"{_short(js)} did not hold still within {timeout_ms} ms"):
        page.wait_for_function(STILL_JS.format(js=js), arg=[next(_TOKENS), frames], timeout=timeout_ms)


# ------------------------------------------------------------------ classroom-grade measurements
#
# Everything below measures the real page and returns plain data (dicts, lists, numbers), so
# the tests (tests/test_browser_classroom.py) and the iteration script (tools/measure_views.py)
# share it. Rects are {x, y, w, h, r, b} in CSS px of the viewport (r = x + w, b = y + h).

#: every page the classroom checks visit: PAGES plus the reference pages (glossary, references)
#: and the class page as a visitor sees it (join or teach; tests/test_browser_class.py covers
#: the teacher's and the students' views)
CLASSROOM_PAGES = (
    PAGES
    + [(ref.url_path, ref.url_path) for ref in REFERENCE if ref.url_path not in dict(PAGES)]
    + [(CLASS.url_path, CLASS.url_path)]
)
#: pages that draw no chart (every other page must draw at least one visible chart)
CHARTLESS = frozenset({ref.url_path for ref in REFERENCE} | {CLASS.url_path})

#: measurement viewports: (width, height). Streamlit scrolls inside its own container, so the
#: height is tall to lay the whole lesson out at once; screenshots clip the top to ``shot``.
MODES = {
    "present": {"width": 1920, "height": 2600, "shot": (1920, 1080), "present": True},
    "phone": {"width": 390, "height": 2400, "shot": (390, 844), "present": False},
    "desktop": {"width": 1280, "height": 2600, "shot": None, "present": False},
}
#: the first screen of a laptop (1280 x 800) and of a phone (390 x 844): the measured
#: viewports are taller, and nothing above a view's chart depends on the viewport's height
FIRST_SCREEN = {"desktop": 800, "phone": 844, "present": 1080}


def with_query(path: str, **params: str) -> str:
    """``path`` with ``params`` added to its query string (``?`` or ``&`` as needed)."""
    extra = "&".join(f"{k}={v}" for k, v in params.items())
    if not extra:
        return path
    return f"{path}{'&' if '?' in path else '?'}{extra}"


CHARTS_READY_JS = """() => {
  const charts = Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]'))
    .filter(c => c.checkVisibility({visibilityProperty: true, opacityProperty: false}));
  if (document.fonts.status !== 'loaded') return false;
  return charts.every(c => {
    const gd = c.querySelector('.js-plotly-plot');
    return gd && gd._fullLayout && gd.querySelector('.main-svg') && !gd._transitioning;
  });
}"""

# rects of every visible chart text: two equal samples in a row mean Plotly has finished
# (Streamlit draws a chart, then redraws it at the width of its column)
_LAYOUT_SIGNATURE_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => {
  const r = gd.getBoundingClientRect();
  let s = r.width * 7 + r.height * 13, n = 0;
  for (const t of gd.querySelectorAll('text')) {
    const q = t.getBoundingClientRect();
    s += q.x * 3 + q.y * 5 + q.width;
    n++;
  }
  return n + ':' + s.toFixed(1);
}).join('|') + '#' + document.querySelectorAll('[data-testid="stPlotlyChart"]').length"""


#: the range input of a slider among a view's key controls, above its chart (ui.layout.key_control)
KEY_SLIDER = '[data-testid="stMain"] .st-key-key_controls [data-testid="stSlider"] input[type="range"]'
#: the range input of a slider in the sidebar (a view's finer settings)
SIDEBAR_SLIDER = '[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]'

# where a view's key controls (ui.layout.key_control) and its figure (the first chart or
# table after them) lie, top and bottom in CSS px from the top of the page, unscrolled
FIRST_SCREEN_JS = """() => {
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
  const controls = document.querySelector('[data-testid="stMain"] .st-key-key_controls');
  const figures = Array.from(document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stPlotlyChart"], [data-testid="stMain"] [data-testid="stTable"]'));
  const below = controls ? controls.getBoundingClientRect().bottom : 0;
  const after = figures.find(f => f.getBoundingClientRect().top >= below);
  return {controls: box(controls), figure: box(after || figures[0])};
}"""


def wait_ready(page, *, charts: bool = True, timeout_ms: int | None = None) -> None:
    """Wait until the Streamlit run is over (``wait_idle``) and, with ``charts``, every visible
    chart is drawn and its text has stopped moving (two samples 120 ms apart agree),
    each within ``timeout_ms`` (``WAIT_MS``); a wait that runs out says what the page showed."""
    timeout_ms = timeout_ms or WAIT_MS
    wait_idle(page, timeout_ms=timeout_ms)
    # the shell's CSS (posenc_lab/ui/app.css) arrives a little after the page's first elements:
    # a formula measured before it is unstyled (it scrolled sideways on a phone)
    wait_until(
        page,
        "() => getComputedStyle(document.documentElement).getPropertyValue('--posenc-css').trim() === '1'",
        timeout_ms=timeout_ms,
        what="the shell's CSS",
    )
    if not charts:
        return
    wait_shown(page.locator(".js-plotly-plot .main-svg").first, timeout_ms)
    wait_until(page, CHARTS_READY_JS, timeout_ms=timeout_ms, what="every visible chart drawn")
    deadline = time.monotonic() + timeout_ms / 1000
    before = page.evaluate(_LAYOUT_SIGNATURE_JS)
    while time.monotonic() < deadline:
        # Streamlit draws a chart, then draws it again at its column's width: no event says
        # the second draw is over, two samples apart do (a spacing, not a budget: scaled, it
        # would add seconds to every measured view on a slow machine)
        page.wait_for_timeout(120)
        now = page.evaluate(_LAYOUT_SIGNATURE_JS)
        if now == before:
            return
        before = now


CHART_TEXT_JS = r"""async () => {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  // any CSS colour -> [r, g, b, a] (0-255, alpha 0-1), via the canvas's own parser
  const rgba = c => {
    if (!c || c === 'none' || c === 'transparent') return [0, 0, 0, 0];
    ctx.fillStyle = '#00000000';
    ctx.fillStyle = c;
    const v = ctx.fillStyle;
    if (v[0] === '#') return [parseInt(v.slice(1, 3), 16), parseInt(v.slice(3, 5), 16), parseInt(v.slice(5, 7), 16), 1];
    const m = v.match(/[\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const over = (top, under) => {  // top composited over an opaque colour
    const a = top[3];
    return [0, 1, 2].map(i => Math.round(top[i] * a + under[i] * (1 - a))).concat([1]);
  };
  const rect = r => ({x: +r.x.toFixed(1), y: +r.y.toFixed(1), w: +r.width.toFixed(1), h: +r.height.toFixed(1),
                      r: +(r.x + r.width).toFixed(1), b: +(r.y + r.height).toFixed(1)});
  const opacityChain = el => {
    let o = 1;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity);
    return o;
  };
  // the opaque colour behind an element: the nearest backgrounds upward, composited
  const backdrop = el => {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let base = [255, 255, 255, 1];  // the canvas under everything
    for (const c of layers.reverse()) base = over(c, base);
    return base;
  };
  const LAYERS = [  // [class test, layer], by priority: the first that any ancestor (or the text) matches
    [c => c === 'slider-container' || c === 'slider-group', 'slider'],
    [c => c === 'updatemenu-container' || c === 'updatemenu-button', 'updatemenu'],
    [c => c === 'colorbar' || c === 'cbtitle', 'colorbar'],
    [c => c === 'legendtitletext', 'legendtitle'],
    [c => c === 'legendtext', 'legendtext'],
    [c => c === 'infolayer legend' || c === 'legend', 'legend'],
    [c => c === 'annotation', 'annotation'],
    [c => c === 'g-gtitle' || c === 'gtitle', 'gtitle'],
    [c => /^(g-)?[xy]\d*title$/.test(c), null],  // xtitle / ytitle (of any axis)
    [c => c === 'heatmaplayer' || c === 'hm' || /heatmap/.test(c), 'heatmap-text'],
    [c => c === 'textpoint', 'textpoint'],
    [c => c === 'bartext' || c.startsWith('bartext'), 'bartext'],
    [c => /^[xy]\d*tick$/.test(c), null],  // xtick / ytick
  ];
  const layerOf = (t, gd) => {
    const chain = [];
    for (let e = t; e && e !== gd; e = e.parentElement) {
      const cls = e.getAttribute && e.getAttribute('class');
      if (cls) chain.push(cls);
    }
    const tokens = chain.map(c => [c, ...c.split(/\s+/)]);
    for (const [test, name] of LAYERS) {
      for (const toks of tokens) {
        const hit = toks.find(test);
        if (hit) return name || hit.replace(/^g-/, '').replace(/\d+/, '');
      }
    }
    return chain.length ? chain[0] : '';
  };
  // heatmap images, decoded once, for sampling the cell colour under a text
  const images = [];
  for (const im of document.querySelectorAll('.js-plotly-plot g.hm image, .js-plotly-plot .heatmaplayer image')) {
    const href = im.getAttribute('href') || im.getAttribute('xlink:href');
    if (!href) continue;
    try {
      const img = new Image();
      img.src = href;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.naturalWidth; c.height = img.naturalHeight;
      const cx = c.getContext('2d', {willReadFrequently: true});
      cx.drawImage(img, 0, 0);
      images.push({el: im, rect: im.getBoundingClientRect(), ctx: cx, w: c.width, h: c.height});
    } catch (e) { /* not decodable: texts over it keep the plot background */ }
  }
  const inside = (r, x, y) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
  const vw = document.documentElement.clientWidth;
  const charts = [];
  const gds = Array.from(document.querySelectorAll('.js-plotly-plot'));
  gds.forEach((gd, index) => {
    const box = gd.getBoundingClientRect();
    if (!gd.checkVisibility({visibilityProperty: true}) || box.width <= 0 || box.height <= 0) return;
    const full = gd._fullLayout || {};
    const paperRaw = full.paper_bgcolor || '';
    const paperC = rgba(paperRaw);
    const under = backdrop(gd.parentElement);
    const paper = paperC[3] >= 1 ? paperC : over(paperC, under);
    // plot areas (one rect.bg per subplot), composited over the paper
    const plots = Array.from(gd.querySelectorAll('.bglayer rect.bg')).map(r => {
      const c = rgba(getComputedStyle(r).fill);
      c[3] *= parseFloat(getComputedStyle(r).fillOpacity);
      return {rect: r.getBoundingClientRect(), color: c[3] > 0 ? over(c, paper) : paper};
    });
    const mbEl = gd.querySelector('.modebar') || gd.querySelector('.modebar-container');
    const mbRect = mbEl && mbEl.getBoundingClientRect();
    const chart = {
      index, title: ((gd.layout && gd.layout.title && gd.layout.title.text) || '').replace(/<[^>]+>/g, '').slice(0, 60),
      rect: rect(box), paper_bgcolor: paperRaw, paper_bg: paper,
      modebar: mbRect && mbRect.width > 0 && mbRect.height > 0 ? rect(mbRect) : null,
      modebar_opacity: mbEl ? opacityChain(mbEl) : null, texts: [],
    };
    for (const t of gd.querySelectorAll('text')) {
      const lines = t.querySelectorAll('tspan.line');
      const label = (lines.length ? Array.from(lines, l => l.textContent).join(' / ') : t.textContent || '')
        .replace(/\s+/g, ' ').trim();
      if (!label) continue;
      const cs = getComputedStyle(t);
      if (cs.display === 'none' || cs.visibility === 'hidden') continue;
      if (!t.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
      const opacity = opacityChain(t);
      if (!(opacity > 0)) continue;
      const r = t.getBoundingClientRect();
      if (!(r.width > 0)) continue;
      const m = t.getScreenCTM();
      const scale = m ? Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) : 1;
      // the text's own box turned as drawn (rotated tick labels): four corners in the viewport
      const angle = m ? Math.atan2(m.b, m.a) * 180 / Math.PI : 0;
      let quad = null;
      if (m && Math.abs(angle) > 0.5) {
        const bb = t.getBBox();
        quad = [[bb.x, bb.y], [bb.x + bb.width, bb.y], [bb.x + bb.width, bb.y + bb.height], [bb.x, bb.y + bb.height]]
          .map(([x, y]) => [+(m.a * x + m.c * y + m.e).toFixed(1), +(m.b * x + m.d * y + m.f).toFixed(1)]);
      }
      // glyph runs: the text itself and every tspan that holds characters (sub/superscripts,
      // coloured spans); the smallest and every distinct colour count
      const runs = [];
      for (const e of [t, ...t.querySelectorAll('tspan')]) {
        const own = Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
        if (!own) continue;
        const es = getComputedStyle(e);
        const fill = rgba(es.fill);
        fill[3] *= parseFloat(es.fillOpacity) * opacity;
        runs.push({px: +(parseFloat(es.fontSize) * scale).toFixed(2), fill});
      }
      if (!runs.length || runs.every(u => !(u.fill[3] > 0))) continue;
      const layer = layerOf(t, gd);
      // what lies behind the text, at 3 x 3 points over its box: the paper, or a plot area,
      // then heatmap cells, then a box of its own (annotation bgcolor, legend, menu button)
      let own = null;
      for (let e = t.parentElement; e && e !== gd; e = e.parentElement) {
        const boxEl = Array.from(e.children).find(k => k.tagName === 'rect' &&
          /(^|\s)(bg|cbbg|updatemenu-item-rect)(\s|$)/.test(k.getAttribute('class') || ''));
        if (!boxEl) continue;
        const ks = getComputedStyle(boxEl);
        const c = rgba(ks.fill);
        c[3] *= parseFloat(ks.fillOpacity) * opacityChain(boxEl);
        if (c[3] > 0) own = {rect: boxEl.getBoundingClientRect(), color: c};
        break;
      }
      const seen = new Map(), sources = new Set();
      for (const fx of [1 / 6, 1 / 2, 5 / 6]) for (const fy of [1 / 6, 1 / 2, 5 / 6]) {
        const px = r.x + r.width * fx, py = r.y + r.height * fy;
        let bg = paper, src = 'paper';
        const plot = plots.find(q => inside(q.rect, px, py));
        if (plot) { bg = plot.color; src = 'plot'; }
        for (const im of images) {
          if (!gd.contains(im.el) || !inside(im.rect, px, py)) continue;
          const ix = Math.min(im.w - 1, Math.max(0, Math.floor((px - im.rect.left) / im.rect.width * im.w)));
          const iy = Math.min(im.h - 1, Math.max(0, Math.floor((py - im.rect.top) / im.rect.height * im.h)));
          const d = im.ctx.getImageData(ix, iy, 1, 1).data;
          bg = over([d[0], d[1], d[2], d[3] / 255], bg); src = 'heatmap';
        }
        if (own && inside(own.rect, px, py)) { bg = over(own.color, bg); src = 'box'; }
        seen.set(bg.join(','), bg);
        sources.add(src);
      }
      const bgs = Array.from(seen.values()), bgSource = Array.from(sources).join('+');
      const fontPx = Math.min(...runs.map(u => u.px));
      chart.texts.push({
        chart: index, text: label.slice(0, 80), layer,
        font_px: fontPx, font_px_css: +parseFloat(cs.fontSize).toFixed(2), bbox_h: +r.height.toFixed(1),
        fill: runs[0].fill, fills: Array.from(new Map(runs.map(u => [u.fill.join(','), u.fill])).values()),
        rect: rect(r), angle: +angle.toFixed(1), quad, bgs, bg_source: bgSource,
      });
    }
    charts.push(chart);
  });
  return {url: location.href, viewport: {w: vw, h: document.documentElement.clientHeight}, charts,
          chart_elements: document.querySelectorAll('[data-testid="stPlotlyChart"]').length};
}"""


def chart_text_report(page) -> dict:
    """Every visible text of every visible Plotly chart on ``page``, as plain data.

    Returns ``{"url", "viewport": {"w", "h"}, "chart_elements": n, "charts": [chart, ...]}``;
    a chart (only visible ones: a chart in a collapsed expander is left out) is
    ``{"index", "title", "rect", "paper_bgcolor" (as the layout says), "paper_bg" (resolved
    opaque [r, g, b, 1]: a transparent paper is composited over the nearest backgrounds of
    its ancestors), "modebar" (rect of ``.modebar``, even while hidden at opacity 0; None if
    there is none), "modebar_opacity", "texts": [text, ...]}``.

    A text is an SVG ``text`` with non-empty content, not display:none, not
    visibility:hidden, opacity > 0 counting its ancestors, and a box wider than 0:
    ``{"chart", "text", "layer", "font_px", "font_px_css", "bbox_h", "fill", "fills", "rect",
    "angle", "quad", "bgs", "bg_source"}``. ``rect`` is its bounding client rect; a rotated
    text (``angle`` in degrees, e.g. slanted tick labels) also has ``quad``, the four
    corners of its own box as drawn (None when not rotated). ``font_px`` is the smallest
    rendered size of its glyph runs (the ``text`` and every ``tspan`` holding characters,
    e.g. a superscript): computed font size times the SVG's screen scale; ``font_px_css``
    the ``text`` element's computed size; ``bbox_h`` its rendered box height. ``fill`` /
    ``fills`` (every distinct run colour) are [r, g, b, a], a including fill-opacity and
    every ancestor's opacity. ``layer`` is one of 'xtick',
    'ytick', 'xtitle', 'ytitle', 'gtitle', 'annotation', 'legendtext', 'legendtitle',
    'legend', 'colorbar', 'textpoint', 'bartext', 'heatmap-text', 'slider', 'updatemenu',
    else the class of its nearest classed ancestor. ``bgs`` are the distinct opaque colours
    behind it at 3 x 3 points over its box: at each point the paper, or a plot area's colour
    if the point lies in one, then the heatmap cell there (read from the heatmap's image),
    then a box of its own (annotation bgcolor, legend, colorbar, menu button), each
    composited over the one before. ``bg_source`` names what was found, joined by '+'
    ('paper', 'plot', 'heatmap', 'box'), e.g. 'paper+plot' for a title straddling the
    edge of a plot area.
    """
    return page.evaluate(CHART_TEXT_JS)


def _texts(report: dict):
    for chart in report["charts"]:
        yield from chart["texts"]


def min_font_violations(report: dict, floor_px: float) -> list[dict]:
    """Texts whose smallest glyph run renders below ``floor_px`` CSS px (``font_px``)."""
    return [t for t in _texts(report) if t["font_px"] < floor_px - 1e-6]


def _luminance(rgb) -> float:
    def lin(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(fg, bg) -> float:
    """WCAG 2 contrast of ``fg`` [r, g, b, a] drawn over the opaque ``bg`` [r, g, b, ...]."""
    a = fg[3] if len(fg) > 3 else 1.0
    mixed = [fg[i] * a + bg[i] * (1 - a) for i in range(3)]
    hi, lo = sorted((_luminance(mixed), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def contrast_violations(report: dict, ratio: float = 4.5) -> list[dict]:
    """Texts whose worst contrast, over every colour of the text (``fills``) against every
    colour behind it (``bgs``), is below ``ratio``. Each is the text's dict plus
    ``"contrast"`` (the worst ratio, rounded to 2 places) and ``"against"`` (that background).

    Backgrounds, as ``chart_text_report`` finds them at 3 x 3 points over the text's box:
    the chart's paper (a transparent paper resolves to the page behind it), a plot area's
    colour where a point lies in one, a box of its own (annotation bgcolor, legend,
    colorbar, menu button). Text inside heatmap cells (texttemplate text, or any text drawn
    over a heatmap) is checked against the colour of the cells under it, read from the
    heatmap's image; the worst point counts. Lines, bars and markers under a text are not
    taken into account (only heatmaps are).
    """
    out = []
    for t in _texts(report):
        worst, against = min(((contrast_ratio(f, b), b) for f in t["fills"] for b in t["bgs"]), key=lambda p: p[0])
        if worst < ratio - 1e-9:
            out.append({**t, "contrast": round(worst, 2), "against": against})
    return out


def _intersection(a: dict, b: dict) -> tuple[float, float]:
    return min(a["r"], b["r"]) - max(a["x"], b["x"]), min(a["b"], b["b"]) - max(a["y"], b["y"])


def _corners(box: dict) -> list[tuple[float, float]]:
    if box.get("quad"):
        return [tuple(c) for c in box["quad"]]
    r = box["rect"]
    return [(r["x"], r["y"]), (r["r"], r["y"]), (r["r"], r["b"]), (r["x"], r["b"])]


def _depth(a: dict, b: dict) -> float:
    """How far two boxes interpenetrate: the smallest overlap of their projections on the
    edge normals of both (separating axes); for two upright rects, min(dx, dy)."""
    pa, pb = _corners(a), _corners(b)
    depth = float("inf")
    for poly in (pa, pb):
        for i in range(len(poly)):
            (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % len(poly)]
            nx, ny = y0 - y1, x1 - x0
            norm = (nx * nx + ny * ny) ** 0.5
            if norm == 0:
                continue
            nx, ny = nx / norm, ny / norm
            ka = [x * nx + y * ny for x, y in pa]
            kb = [x * nx + y * ny for x, y in pb]
            depth = min(depth, min(max(ka), max(kb)) - max(min(ka), min(kb)))
    return depth


def overlap_violations(report: dict, tol_px: float = 1) -> list[dict]:
    """Pairs of texts of one chart whose boxes intersect by more than ``tol_px`` in both
    directions (a multi-line text is one box: Plotly puts its lines in ``tspan``s of one
    ``text``), plus texts that intersect the chart's modebar (even while it is hidden:
    it shows on hover and on touch). Upright texts compare their rects; a rotated text
    (slanted tick labels) its own turned box (``quad``), so that parallel slanted labels,
    whose upright bounding rects always overlap, count only if the text itself does.

    Each is ``{"chart", "kind": "texts" | "modebar", "a": text, "b": text (or
    ``{"text": "modebar", "layer": "modebar", "rect"}``), "dx", "dy" (overlap of the
    bounding rects), "depth" (how far the boxes interpenetrate, > tol_px)}``.
    """
    out = []
    for chart in report["charts"]:
        texts = chart["texts"]
        mb = {"text": "modebar", "layer": "modebar", "rect": chart["modebar"]} if chart["modebar"] else None
        for i, a in enumerate(texts):
            for b in texts[i + 1 :] + ([mb] if mb else []):
                dx, dy = _intersection(a["rect"], b["rect"])
                if dx <= tol_px or dy <= tol_px:
                    continue
                depth = _depth(a, b)
                if depth > tol_px:
                    kind = "modebar" if b is mb else "texts"
                    out.append(
                        {"chart": chart["index"], "kind": kind, "a": a, "b": b, "dx": dx, "dy": dy, "depth": depth}
                    )
    return out


def overflow_violations(report: dict, viewport_width: float | None = None, tol_px: float = 1) -> list[dict]:
    """Texts whose box reaches past their chart's box (any side) or past the viewport's
    left or right edge, by more than ``tol_px``. ``viewport_width`` defaults to the
    report's own. Each is the text's dict plus ``"past"``: the edges it crosses, with the
    amount, e.g. ``{"chart-right": 12.5, "viewport-right": 3.0}``."""
    width = report["viewport"]["w"] if viewport_width is None else viewport_width
    out = []
    for chart in report["charts"]:
        c = chart["rect"]
        for t in chart["texts"]:
            r = t["rect"]
            past = {
                "chart-left": c["x"] - r["x"],
                "chart-right": r["r"] - c["r"],
                "chart-top": c["y"] - r["y"],
                "chart-bottom": r["b"] - c["b"],
                "viewport-left": -r["x"],
                "viewport-right": r["r"] - width,
            }
            past = {k: round(v, 1) for k, v in past.items() if v > tol_px}
            if past:
                out.append({**t, "past": past})
    return out


HSCROLL_JS = r"""() => {
  const describe = el => {
    const part = e => {
      let s = e.tagName.toLowerCase();
      if (e.id) s += '#' + e.id;
      const tid = e.getAttribute('data-testid');
      if (tid) s += `[data-testid="${tid}"]`;
      const cls = (e.getAttribute('class') || '').split(/\s+/).filter(Boolean)[0];
      if (cls && !tid) s += '.' + cls;
      return s;
    };
    const parts = [part(el)];
    for (let e = el.parentElement; e && parts.length < 4; e = e.parentElement) {
      if (e.getAttribute('data-testid')) { parts.unshift(part(e)); break; }
    }
    return parts.join(' ');
  };
  const se = document.scrollingElement;
  const elements = [];
  for (const el of document.querySelectorAll('*')) {
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const ox = getComputedStyle(el).overflowX;
    // a formula or table too wide for the screen counts too when it is cut off instead
    const cut = (ox === 'hidden' || ox === 'clip')
      && (el.matches('.katex-display') || el.closest('[data-testid="stTable"]'));
    if (ox !== 'auto' && ox !== 'scroll' && !cut) continue;
    const r = el.getBoundingClientRect();
    // not on screen: nothing to scroll (a collapsed sidebar sits at x < 0)
    if (r.width <= 0 || r.height <= 0 || r.right <= 0 || r.left >= innerWidth) continue;
    if (!el.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    elements.push({selector: describe(el), testid: el.getAttribute('data-testid'),
                   scrollWidth: el.scrollWidth, clientWidth: el.clientWidth, overflowX: ox,
                   text: (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 40)});
  }
  return {document: {scrollWidth: se.scrollWidth, clientWidth: se.clientWidth,
                     scrolls: se.scrollWidth > se.clientWidth + 1},
          elements, any: se.scrollWidth > se.clientWidth + 1 || elements.length > 0};
}"""


# the margins each main-area chart was sent and those Plotly drew it with (``ready``: false
# for a chart not drawn yet); tests/test_browser_margins.py reads them
MARGINS_JS = """() => Array.from(document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')).map(gd => {
  const fl = gd._fullLayout, sent = (gd.layout && gd.layout.margin) || {};
  if (!fl || !fl._size) return {ready: false};
  const turned = Array.from(gd.querySelectorAll('.xtick text'))
    .some(t => /rotate\\((?!0[,)])/.test(t.getAttribute('transform') || ''));
  const legendBelow = fl.showlegend && fl.legend && fl.legend.y < 0;
  const bar = gd.querySelectorAll('.colorbar').length > 0;
  return {ready: true, title: String((fl.meta && (fl.meta.title || fl.meta.chart_title)) || ''),
          sent: {l: sent.l, b: sent.b, r: sent.r, t: sent.t},
          drawn: {l: fl._size.l, b: fl._size.b, r: fl._size.r, t: fl._size.t},
          xOnly: !turned && !legendBelow && !bar,
          barOnly: bar && !turned && !fl.showlegend,
          legendAbove: !bar && fl.showlegend && fl.legend && fl.legend.orientation === 'h' && fl.legend.y >= 1};
})"""


def horizontal_scroll(page) -> dict:
    """Whether anything scrolls sideways: ``{"any": bool, "document": {"scrollWidth",
    "clientWidth", "scrolls"}, "elements": [{"selector", "testid", "scrollWidth",
    "clientWidth", "overflowX", "text"}, ...]}`` where elements are those (Streamlit's own
    scroll containers included) with ``scrollWidth > clientWidth + 1`` and overflow-x auto
    or scroll (or a formula or table cut off with hidden or clip), that are visible and at
    least partly inside the viewport horizontally (a collapsed sidebar, parked at x < 0,
    cannot be scrolled by anyone)."""
    return page.evaluate(HSCROLL_JS)


def axe_serious(page, *, max_nodes: int = 3) -> list[dict]:
    """axe-core (bundled by axe-playwright-python) on the whole page: its violations of
    impact serious or critical, each ``{"id", "impact", "help", "nodes": count,
    "targets": [first selectors], "summaries": [first failure summaries]}``."""
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    # Judge the page a student settles on, not a frame of its first paint: while a run is
    # still arriving, Streamlit fills the sidebar with skeletons (a tall scrolling region with
    # nothing focusable yet), which axe flags as scrollable-region-focusable. A skeleton that
    # never goes away is still audited after the wait.
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            f"() => !document.querySelector('[data-testid=\"stSkeleton\"]') && ({IDLE_JS})()",
            timeout=budget_ms(10_000),
        )
    results = Axe().run(page).response
    out = []
    for v in results["violations"]:
        if v.get("impact") not in ("serious", "critical"):
            continue
        nodes = v["nodes"]
        out.append(
            {
                "id": v["id"],
                "impact": v["impact"],
                "help": v.get("help", ""),
                "nodes": len(nodes),
                "targets": [" ".join(map(str, n["target"])) for n in nodes[:max_nodes]],
                "summaries": [" ".join((n.get("failureSummary") or "").split())[:200] for n in nodes[:max_nodes]],
            }
        )
    return out


# ------------------------------------------------------------------ one view, measured


def view_url(base_url: str, path: str, mode: str) -> str:
    """The view's address in ``mode`` (presenter mode adds ``present=1`` to its query)."""
    return f"{base_url}/{with_query(path, present='1') if MODES[mode]['present'] else path}"


#: follow a link inside the running app, as the browser's Back and Forward do: the address
#: changes, and Streamlit runs the page it names with its query (the app reads such an address
#: as a link opened afresh: ui.state)
FOLLOW_JS = """(url) => {
  // a new page starts at its top, as a page load does
  window.scrollTo(0, 0);
  document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"]')
    .forEach(e => e.scrollTo(0, 0));
  history.pushState({}, '', url);
  window.dispatchEvent(new PopStateEvent('popstate'));
}"""


class ServerAnswers:
    """Counts the messages ``page`` receives from the server over Streamlit's websocket: a
    run the page asked for (a click, a followed link) has started once the server answers,
    even when its script state never shows as "running" in the page (a quick run's start and
    end can arrive in one batch), and the page looks idle until then."""

    def __init__(self, page):
        self.page = page
        self.count = 0
        page.on("websocket", lambda ws: ws.on("framereceived", self._one))

    def _one(self, _payload) -> None:
        self.count += 1

    def wait_after(self, before: int, seconds: float) -> bool:
        """Wait until a message has arrived since the count was ``before``; False after ``seconds``."""
        deadline = time.monotonic() + seconds
        while self.count == before and time.monotonic() < deadline:
            self.page.wait_for_timeout(25)  # Playwright delivers the websocket's events meanwhile
        return self.count > before

    def run(self, act: Callable[[], object], what: str) -> None:
        """Do ``act`` (a press, a key, a link followed) and wait for the run it starts: until the
        server has answered (``budget_s(30)``; else a ``PageTimeout`` names ``what`` and says
        what the page showed), then until the page is idle (``wait_idle``)."""
        before = self.count
        act()
        if not self.wait_after(before, budget_s(30)):
            raise PageTimeout(f"the server did not answer {what}\n{describe_page(self.page)}")
        wait_idle(self.page)


class ViewTab:
    """One browser tab in one colour scheme, reused for view after view.

    The first ``open`` in a mode is a full page load; the next views of that mode are
    followed as links inside the running app (``FOLLOW_JS``), which the app draws exactly
    as a link opened afresh (its values from the link or their defaults: ui.state) at a
    third of the CPU of a page load (no JavaScript to start again). A change of mode loads
    the page afresh: the sidebar's starting state depends on the first load's width and on
    presenter mode. ``target`` is a Browser (the tab gets a context of its own) or a
    BrowserContext. ``outside`` lists the requests of the current view that left localhost.
    """

    def __init__(self, target, scheme: str = "light"):
        self.scheme = scheme
        self._own = None
        if hasattr(target, "new_context"):
            self._own = target = target.new_context(color_scheme=scheme)
        self.page = target.new_page()
        self.page.emulate_media(color_scheme=scheme)
        self.outside: list[str] = []
        self.page.on("request", self._request)
        self.answers = ServerAnswers(self.page)
        #: the mode and server of the page load the tab holds (None before the first)
        self.loaded: tuple[str, str] | None = None
        #: views whose link, followed in the app, started no run (each was loaded afresh)
        self.followed_in_vain: list[str] = []

    def _request(self, r) -> None:
        if urlparse(r.url).hostname not in ("127.0.0.1", "localhost") and not r.url.startswith(("data:", "blob:")):
            self.outside.append(r.url)

    def open(self, base_url: str, path: str, mode: str) -> None:
        """Start showing the view in ``mode`` (viewport of ``MODES``): a page load, or a link
        followed in the app when the tab already holds one of this mode; returns while the app
        is still drawing (``measure`` waits for it)."""
        m = MODES[mode]
        url = view_url(base_url, path, mode)
        self.outside.clear()
        if self.loaded == (mode, base_url):
            before = self.answers.count
            self.page.evaluate(FOLLOW_JS, urlparse(url)._replace(scheme="", netloc="").geturl())
            if self.answers.wait_after(before, budget_s(10)):
                return
            # the server did not answer: the view is loaded afresh, as a link in a new tab is
            self.followed_in_vain.append(url)
        self.loaded = None
        if self.page.viewport_size != {"width": m["width"], "height": m["height"]}:
            self.page.set_viewport_size({"width": m["width"], "height": m["height"]})
        self.page.goto(url, wait_until="domcontentloaded")
        self.loaded = (mode, base_url)

    def measure(self, name: str, mode: str, **options) -> dict:
        """``measure_view`` on the view ``open`` loaded."""
        return measure_view(self.page, name, mode, self.scheme, outside=self.outside, **options)

    def close(self) -> None:
        (self._own or self.page).close()


def measure_view(
    page,
    name: str,
    mode: str,
    scheme: str = "light",
    *,
    outside: list[str] | None = None,
    axe: bool = False,
    shots: bool = False,
) -> dict:
    """Wait until the view (loading in ``page``, e.g. by ``ViewTab.open``) is drawn, then measure it.

    Returns ``{"name", "mode", "scheme", "url", "seconds" (load to measured), "exceptions"
    (count of Streamlit exception boxes), "outside" (requests that left localhost),
    "table_cells" (the text of every table cell), "root_px" (the root font size),
    "speaker_notes" (how many "Speaker notes" texts), "first_screen" (``FIRST_SCREEN_JS``: the
    key controls' and the figure's tops and bottoms), "report" (``chart_text_report``),
    "hscroll" (``horizontal_scroll``), "margins" (``MARGINS_JS``), "axe" (``axe_serious``,
    or None unless ``axe``), "shots" (paths written)}``. With ``shots``, writes the screenshots the classroom tests
    keep: presenter mode ``present_{scheme}_{name}.png`` (1920 x 1080), phone
    ``phone_{name}.png`` (390 x 844) and ``phone_tall_{name}.png`` (the whole tall
    viewport), desktop ``{name}.png`` (the whole page). Raises if a chart page draws no
    chart.
    """
    t0 = time.monotonic()
    wait_shown(page.locator('[data-testid="stApp"]'))
    wait_ready(page, charts=name not in CHARTLESS)
    result = {
        "name": name,
        "mode": mode,
        "scheme": scheme,
        "url": page.url,
        "exceptions": page.locator('[data-testid="stException"]').count(),
        "outside": list(outside or []),
        "table_cells": page.locator('[data-testid="stTable"] :is(th, td)').all_inner_texts(),
        "report": chart_text_report(page),
        "hscroll": horizontal_scroll(page),
        "margins": page.evaluate(MARGINS_JS),
        # the root font size (presenter mode enlarges it) and the "Speaker notes" expanders
        "root_px": page.evaluate("() => parseFloat(getComputedStyle(document.documentElement).fontSize)"),
        "speaker_notes": page.get_by_text("Speaker notes").count(),
        "first_screen": page.evaluate(FIRST_SCREEN_JS),
        "axe": None,
        "shots": [],
    }
    if name not in CHARTLESS and not result["report"]["charts"]:
        raise AssertionError(f"{name} ({mode}): no visible chart was drawn")
    if axe:
        result["axe"] = axe_serious(page)
    if shots:
        SHOTS.mkdir(parents=True, exist_ok=True)
        m = MODES[mode]
        files = []
        if mode == "present":
            files.append((SHOTS / f"present_{scheme}_{name}.png", m["shot"]))
        elif mode == "phone":
            files += [(SHOTS / f"phone_{name}.png", m["shot"]), (SHOTS / f"phone_tall_{name}.png", None)]
        elif mode == "desktop":
            files.append((SHOTS / f"{name}.png", "full page"))
        for path, size in files:
            if size == "full page":
                page.screenshot(path=str(path), full_page=True)
            else:
                clip = {"x": 0, "y": 0, "width": size[0], "height": size[1]} if size else None
                page.screenshot(path=str(path), clip=clip)
            result["shots"].append(str(path))
    result["seconds"] = round(time.monotonic() - t0, 2)
    return result


#: the colour scheme each mode is measured in: the laptop and the projector light, the phone
#: dark (many phones follow a dark system setting). What a phone load checks (overlaps, text
#: inside the chart and the screen, sideways scrolling, the first screen) is layout, the same
#: in either scheme, so the phone's load also measures chart-text contrast in the dark scheme
#: and no view is loaded a fourth time for it
SCHEME = {"present": "light", "desktop": "light", "phone": "dark"}
#: where axe-core runs: every setting, so in both schemes (the phone's is dark)
AXE = frozenset({("desktop", "light"), ("present", "light"), ("phone", "dark")})


class Measurements:
    """Every view measured once per mode (in its ``SCHEME``) in a test session, for every test
    that asks (the ``measured`` fixture, conftest.py): one tab per mode, whose first view is a
    page load and the next links followed in the app (``ViewTab``), each drawn as a link
    opened afresh. axe runs where ``AXE`` says, and the screenshots are taken on the same
    views.
    """

    def __init__(self, browser, base_url: str):
        self.browser = browser
        self.base_url = base_url
        # mode -> its tab
        self.tabs: dict[str, ViewTab] = {}
        # (mode, scheme, name) -> the measurement, or the message of the error that prevented it
        self.done: dict[tuple[str, str, str], dict | str] = {}

    def _tab(self, mode: str) -> ViewTab:
        if mode not in self.tabs:
            self.tabs[mode] = ViewTab(self.browser, SCHEME[mode])
        return self.tabs[mode]

    def _drop(self, mode: str) -> None:
        """Forget a tab that failed (it may have crashed); the next view gets a new one."""
        tab = self.tabs.pop(mode, None)
        if tab is not None:
            with contextlib.suppress(Exception):  # already gone
                tab.close()

    def __call__(self, name: str, path: str, mode: str) -> dict:
        """The view measured in ``mode`` and its ``SCHEME`` (``measure_view``), loaded the first
        time a test asks. Fails the test if it could not be measured, shows an exception, or
        (but for a chartless page) draws no visible chart."""
        scheme = SCHEME[mode]
        key = (mode, scheme, name)
        if key not in self.done:
            try:
                tab = self._tab(mode)
                tab.open(self.base_url, path, mode)
                self.done[key] = tab.measure(name, mode, axe=(mode, scheme) in AXE, shots=True)
            except Exception as exc:  # reported by every test of this view
                self.done[key] = f"{type(exc).__name__}: {exc}"
                self._drop(mode)
        result = self.done[key]
        if isinstance(result, str):
            pytest.fail(f"{name} ({mode}, {scheme}) could not be measured: {result}")
        assert result["exceptions"] == 0, f"{name} ({mode}, {scheme}) shows {result['exceptions']} exception(s)"
        if name not in CHARTLESS:
            assert result["report"]["charts"], f"{name} ({mode}, {scheme}): no visible chart"
        return result

    def close(self) -> None:
        for mode in list(self.tabs):
            self._drop(mode)


def _box(t: dict) -> str:
    r = t["rect"]
    return f"@{r['x']:.0f},{r['y']:.0f} {r['w']:.0f}x{r['h']:.0f}"


def _label(t: dict, width: int = 28) -> str:
    text = t["text"] if len(t["text"]) <= width else t["text"][: width - 1] + "…"
    return repr(text)


def describe_text(t: dict) -> str:
    """One offending text, compactly: text, size, layer, chart and box."""
    return f"{_label(t)} {t['font_px']:g}px {t['layer']} c{t['chart']} {_box(t)}"


def describe_contrast(v: dict) -> str:
    bg = "#{:02x}{:02x}{:02x}".format(*v["against"][:3])
    fg = "#{:02x}{:02x}{:02x}".format(*(round(c) for c in v["fills"][0][:3]))
    return f"{_label(v)} {v['contrast']}:1 {fg} on {bg} ({v['bg_source']}) {v['layer']} c{v['chart']} {_box(v)}"


def describe_overlap(o: dict) -> str:
    a, b = o["a"], o["b"]
    return (
        f"c{o['chart']} {_label(a, 20)} {a['layer']} {_box(a)} x {_label(b, 20)} {b['layer']} {_box(b)}"
        f" by {o['dx']:.0f}x{o['dy']:.0f}" + (f" (depth {o['depth']:.0f})" if a.get("quad") or b.get("quad") else "")
    )


def describe_overflow(v: dict) -> str:
    past = ", ".join(f"{k}+{d:g}" for k, d in v["past"].items())
    return f"{_label(v)} {v['layer']} c{v['chart']} {_box(v)} past {past}"


def describe_scroll(h: dict) -> list[str]:
    out = []
    d = h["document"]
    if d["scrolls"]:
        out.append(f"document {d['scrollWidth']}>{d['clientWidth']}")
    out += [f"{e['selector']} {e['scrollWidth']}>{e['clientWidth']} ({e['text']!r})" for e in h["elements"]]
    return out


def describe_axe(v: dict) -> str:
    return f"{v['id']} ({v['impact']}, {v['nodes']} nodes) e.g. {v['targets'][:2]}"
