"""A monkey on the lessons: random clicks, key presses, view picks and colour-scheme switches
for N minutes in headless Chromium, reporting every exception, console error from Streamlit,
blank page and lost session.

What it does, at random (seeded, so a run can be replayed): opens a lesson from the side
panel's menu, picks a view in the lesson's picker, presses bursts of arrow keys (one to six,
30-150 ms apart) on a slider, clicks a radio option or a switch, opens an expander, or
switches the browser's colour scheme (the page reloads itself in the new scheme). After each
action it waits for the page to settle, then checks it: the app's root is there (not blank),
the websocket is connected, no exception box, no console error from Streamlit's frontend
("Bad delta path", "'setIn' cannot be called", "Cached ForwardMsg MISS"...). The class page,
buttons and downloads are left alone (a monkey should not train models or start classes).

Against the app it starts itself (``tests/browser_support.serve``, whose log is read for
tracebacks when it stops), N warmed processes behind nginx as docs/deploy.md recommends
(``--deploy N``, ``deploy/run_two.sh``; their logs are read too), or a running deployment::

    .venv/bin/python tools/monkey.py --minutes 10
    .venv/bin/python tools/monkey.py --minutes 10 --deploy 2 --busy 1
    .venv/bin/python tools/monkey.py --minutes 10 --url http://127.0.0.1:8080

Prints one line per finding and a summary; exits 1 if it found anything.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]
import browser_support as bs  # noqa: E402

from posenc_lab.course import LESSONS  # noqa: E402

#: the page's state after an action: blank, connection, script state, exception boxes
STATE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return {blank: true};
  return {blank: false, connection: app.dataset.testConnectionState, state: app.dataset.testScriptState,
          exceptions: document.querySelectorAll('[data-testid="stException"]').length,
          title: !!document.querySelector('[data-testid="stMain"] h1')};
}"""
#: console errors that are Streamlit's frontend failing (the rest are logged, not counted)
STREAMLIT_ERRORS = ("delta path", "setIn", "ForwardMsg", "Failed to process a Websocket message", "Uncaught")
SIZES = {"desktop": (1366, 900), "phone": (390, 844), "projector": (1920, 1080)}


def settle(page, timeout_s: float = 60) -> dict:
    """The page once it is idle and unchanged over two samples 150 ms apart, or as it is
    when ``timeout_s`` runs out (``settled`` False)."""
    deadline, before = time.monotonic() + timeout_s, None
    while time.monotonic() < deadline:
        now = page.evaluate(STATE_JS)
        if now.get("blank") or now.get("connection") != "CONNECTED":
            page.wait_for_timeout(500)  # a reload in flight reconnects within this
            now = page.evaluate(STATE_JS)
            if now.get("blank") or now.get("connection") != "CONNECTED":
                return {**now, "settled": True}
        if now.get("state") == "notRunning" and now.get("title") and now == before:
            return {**now, "settled": True}
        before = now
        page.wait_for_timeout(150)
    return {**(before or {}), "settled": False}


class Monkey:
    def __init__(self, page, base_url: str, rng: random.Random):
        self.page, self.base, self.rng = page, base_url, rng
        self.scheme = "light"
        self.counts: dict[str, int] = {}

    def act(self) -> str:
        actions = [
            (self.open_lesson, 2),
            (self.pick_view, 4),
            (self.key_burst, 6),
            (self.click_option, 3),
            (self.open_expander, 1),
            (self.switch_scheme, 1),
        ]
        action = self.rng.choices([a for a, _ in actions], weights=[w for _, w in actions])[0]
        name = action.__name__
        self.counts[name] = self.counts.get(name, 0) + 1
        return f"{name}: {action()}"

    def open_lesson(self) -> str:
        lesson = self.rng.choice(LESSONS)
        links = self.page.locator(f'[data-testid="stSidebar"] a[href$="/{lesson.url_path}"]')
        if links.count() and links.first.is_visible():
            links.first.click()
        else:  # a phone's or a projector's folded side panel: the address, as a typed link
            self.page.goto(f"{self.base}/{lesson.url_path}", wait_until="domcontentloaded")
        return lesson.url_path

    def pick_view(self) -> str:
        pickers = self.page.locator('[data-testid="stMain"] [role="radiogroup"]')
        lesson = next((x for x in LESSONS if f"/{x.url_path}" in self.page.url.split("?")[0]), None)
        if lesson is None or len(lesson.view_labels) < 2:
            return "no picker"
        label = self.rng.choice(list(lesson.view_labels.values()))
        picker = pickers.filter(has_text=label).first
        if not picker.count():
            return "no picker"
        picker.get_by_text(label, exact=True).click()
        return label

    def key_burst(self) -> str:
        sliders = self.page.locator('[data-testid="stSlider"] input[type="range"]')
        visible = [i for i in range(sliders.count()) if sliders.nth(i).is_visible()]
        if not visible:
            return "no slider"
        thumb = sliders.nth(self.rng.choice(visible))
        thumb.focus()
        key = self.rng.choice(["ArrowRight", "ArrowLeft"])
        presses = self.rng.randint(1, 6)
        for _ in range(presses):
            self.page.keyboard.press(key)
            self.page.wait_for_timeout(self.rng.randint(30, 150))
        return f"{key} x{presses} on {thumb.get_attribute('aria-label')}"

    def click_option(self) -> str:
        options = self.page.locator(
            '[data-testid="stRadio"] label, [data-testid="stCheckbox"] label, [data-testid="stToggle"] label'
        )
        visible = [i for i in range(options.count()) if options.nth(i).is_visible()]
        if not visible:
            return "no option"
        option = options.nth(self.rng.choice(visible))
        text = option.inner_text().strip()[:40]
        if "Presenter" in text or "stuck" in text:  # a session setting, a class's hand: left alone
            return "skipped"
        option.click()
        return text

    def open_expander(self) -> str:
        summaries = self.page.locator('[data-testid="stMain"] [data-testid="stExpander"] summary')
        visible = [i for i in range(summaries.count()) if summaries.nth(i).is_visible()]
        if not visible:
            return "no expander"
        summary = summaries.nth(self.rng.choice(visible))
        text = summary.inner_text().strip()[:40]
        summary.click()
        return text

    def switch_scheme(self) -> str:
        self.scheme = "dark" if self.scheme == "light" else "light"
        with self.page.expect_navigation(timeout=30_000):
            self.page.emulate_media(color_scheme=self.scheme)
        return self.scheme


@contextlib.contextmanager
def busy_loops(n: int):
    procs = [subprocess.Popen(["sh", "-c", "exec yes > /dev/null"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def run(base_url: str, browser, minutes: float, seed: int, size: str) -> list[str]:
    rng = random.Random(seed)
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme="light")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text[:200]) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"Uncaught {str(e)[:200]}"))
    findings: list[str] = []
    monkey = Monkey(page, base_url, rng)
    page.goto(f"{base_url}/{rng.choice(LESSONS).url_path}", wait_until="domcontentloaded")
    settle(page)
    end, n = time.monotonic() + minutes * 60, 0
    while time.monotonic() < end:
        n += 1
        try:
            what = monkey.act()
        except Exception as exc:  # an element gone under the click: the page is checked below
            what = f"failed: {str(exc).splitlines()[0][:120]}"
        state = settle(page)
        bad = [e for e in errors if any(s in e for s in STREAMLIT_ERRORS)]
        problem = (
            "blank page"
            if state.get("blank")
            else "lost session"
            if state.get("connection") not in ("CONNECTED", None)
            else "exception shown"
            if state.get("exceptions")
            else "never settled"
            if not state.get("settled")
            else f"console: {bad[-1]}"
            if bad
            else None
        )
        errors.clear()
        if problem:
            findings.append(f"{n} {size} {page.url} after {what}: {problem}")
            print(findings[-1], flush=True)
            page.goto(f"{base_url}/{rng.choice(LESSONS).url_path}", wait_until="domcontentloaded")
            settle(page)
    context.close()
    print(f"{size}: {n} actions {monkey.counts}, {len(findings)} finding(s)", flush=True)
    return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--url", help="a running app or deployment (default: start one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sizes", default="desktop,phone,projector", help="screens, in turn, each a share of the time")
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside the browser")
    parser.add_argument("--deploy", type=int, default=0, help="N app processes behind nginx (deploy/run_two.sh)")
    args = parser.parse_args()
    sizes = [s for s in args.sizes.split(",") if s]
    findings: list[str] = []
    logs: list[Path] = []
    try:
        with contextlib.ExitStack() as stack:
            if args.url:
                url = args.url
            elif args.deploy:
                import classroom_load

                url, _pids, logs = stack.enter_context(classroom_load.deployment(args.deploy))
                logs = [Path(log) for log in logs]  # read below, before the deployment's folder goes
            else:
                url = stack.enter_context(bs.serve())
            browser = stack.enter_context(bs.chromium())
            stack.enter_context(busy_loops(args.busy))
            for i, size in enumerate(sizes):
                findings += run(url.rstrip("/"), browser, args.minutes / len(sizes), args.seed + i, size)
            if args.deploy:
                for log in logs:
                    findings += [f"{log.name}: {p}" for p in bs.log_problems(log.read_text(errors="replace"))]
    except bs.ServerLogError as exc:  # the server's own log, read as it stopped
        findings.append(str(exc))
    for finding in findings[-5:]:
        print(finding)
    print(f"monkey: {len(findings)} finding(s) in {args.minutes:g} minutes")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
