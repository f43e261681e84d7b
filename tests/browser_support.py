"""Support for the browser tests: a streamlit server on loopback and Debian's chromium.

The fixtures ``server`` (base URL) and ``browser`` live in conftest.py and are shared by
every browser test of the session.
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

from ui.catalog import LESSONS

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


def start_server():
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


def launch_browser():
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.fail(f"Debian's chromium is needed at {CHROMIUM}: apt-get install chromium (scripts/test.sh does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


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
    page.wait_for_selector('[data-testid="stApp"]', timeout=30_000)
    return page, outside


def wait_idle(page) -> None:
    """Wait until the script run is over (Streamlit shows a running indicator meanwhile)."""
    page.wait_for_function(
        '() => !document.querySelector(\'[data-testid="stStatusWidget"] [data-testid="stStatusWidgetRunningIcon"]\')'
        " && document.querySelector('[data-testid=\"stMain\"] h1')",
        timeout=30_000,
    )
    page.wait_for_timeout(300)
