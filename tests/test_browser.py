"""The real app in headless Chromium: every page renders, charts draw, sliders redraw them.

Starts ``streamlit run app.py`` on a free loopback port and drives Debian's chromium
through Playwright (no browser download). Screenshots land in ``artifacts/screenshots``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest
from app_helpers import ROOT

from ui.catalog import LESSONS, SINUSOIDAL_VIEWS

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SHOTS = ROOT / "artifacts" / "screenshots"
PAGES = (
    [("home", "")]
    + [(lesson.url_path, lesson.url_path) for lesson in LESSONS if lesson.url_path != "sinusoidal"]
    + [(f"sinusoidal-{view}", f"sinusoidal?view={view}") for view in SINUSOIDAL_VIEWS]
)

# a fingerprint of what every chart currently draws (title + a weighted sum of its first trace)
SIGNATURE_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => {
  const t = (gd.data || [])[0] || {};
  let s = 0, c = 0;
  const add = x => { s += (+x || 0) * (c % 97 + 1); c++; };
  const walk = a => {
    if (a === null || a === undefined || c > 5000) return;
    if (typeof a === 'string') { for (let i = 0; i < a.length && c <= 5000; i += 7) add(a.charCodeAt(i)); return; }
    if (typeof a !== 'object') { add(a); return; }
    if (a.bdata !== undefined) { walk(a.bdata); return; }  // Plotly's binary arrays, still encoded
    if (a.length !== undefined) { for (const e of a) walk(e); return; }
  };
  walk(t.z !== undefined ? t.z : t.y);
  const title = (gd.layout && gd.layout.title && gd.layout.title.text) || '';
  return title + ':' + s.toFixed(8);
}).join('|')"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("streamlit did not start within 60 s:\n" + proc.stdout.read().decode(errors="replace"))
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser():
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.fail(f"Debian's chromium is needed at {CHROMIUM}: apt-get install chromium (scripts/test.sh does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def _open(browser, url: str, *, width: int = 1440, height: int = 1000):
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
    page.wait_for_selector('[data-testid="stApp"]', timeout=30_000)
    return page, outside


def _wait_idle(page) -> None:
    """Until the script run is over (Streamlit shows a running indicator meanwhile)."""
    page.wait_for_function(
        '() => !document.querySelector(\'[data-testid="stStatusWidget"] [data-testid="stStatusWidgetRunningIcon"]\')'
        " && document.querySelector('[data-testid=\"stMain\"] h1')",
        timeout=30_000,
    )
    page.wait_for_timeout(300)


@pytest.mark.parametrize(("name", "path"), PAGES, ids=[p[0] for p in PAGES])
def test_page_renders_without_exception_and_draws_charts(server, browser, name, path):
    page, outside = _open(browser, f"{server}/{path}")
    try:
        _wait_idle(page)
        if name != "home":
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
            assert page.locator(".js-plotly-plot").count() >= 1
        assert page.locator('[data-testid="stException"]').count() == 0
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
        assert not outside, f"requests left localhost: {outside[:5]}"
    finally:
        page.close()


@pytest.mark.parametrize("path", [lesson.url_path for lesson in LESSONS])
def test_moving_a_slider_with_the_keyboard_redraws_the_chart(server, browser, path):
    page, _ = _open(browser, f"{server}/{path}")
    try:
        _wait_idle(page)
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
        before = page.evaluate(SIGNATURE_JS)
        url_before = page.url
        thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first
        thumb.focus()
        for _ in range(3):
            thumb.press("ArrowRight")
        page.wait_for_function(f"() => ({SIGNATURE_JS})() !== {before!r}", timeout=30_000)
        _wait_idle(page)
        assert page.url != url_before, "the new value is mirrored in the URL"
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        page.close()
