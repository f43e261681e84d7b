"""Class mode in real Chromium: a teacher and two students, each in a browser context of
their own, against a real server and a real class database (issue 13).

Every test starts its own server(s) (``browser_support.serve(env=...)``) on a fresh class
database: a SQLite file in tmp_path, and for the main flow also a fresh database on the
session's throwaway PostgreSQL server (tests/pg_support.py). One Chromium (the shared
``browser`` fixture) serves every test.

Nothing here reloads a page to see a change: a student's page follows the teacher through
its 2 s watcher, the teacher's count through its 1 s fragment. ``_Person.reloaded`` proves it
(a marker set in the window survives only if the document was never loaded again).

The last two tests: the same class through nginx (deploy/run_two.sh; skipped when nginx is not
installed), and the benchmark's protocol client (benchmarks/class_poll.py) on a class of 5,
counting answers only (it times nothing).
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import numpy as np
import pg_support
import pytest
from app_helpers import ROOT, free_port, nginx_pair_env
from browser_support import (
    FOLLOW_JS,
    SHOTS,
    WAIT_MS,
    ServerAnswers,
    ServerStartError,
    axe_serious,
    budget_ms,
    budget_s,
    budgeted,
    describe_page,
    serve,
    wait_for_text,
    wait_idle,
    wait_ready,
    wait_shown,
    wait_still,
    wait_until,
)
from playwright.sync_api import expect
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from posenc_lab import course as lessons
from posenc_lab.classroom import report
from posenc_lab.classroom import sketch as sketches
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom import views as class_views

pytestmark = pytest.mark.browser

#: the question the Class page offers first (a multiple choice): the tests open it as it is
POLL = lessons.all_polls()[0]
RIGHT = int(POLL.answer())
WRONG = (RIGHT + 1) % len(POLL.options)
#: the start of the question as the page shows it (its Markdown emphasis dropped)
POLL_HEADING = POLL.prompt.replace("*", "").split(",")[0]
#: a lesson with views (a student shares one)
LESSON = next(lesson for lesson in lessons.LESSONS if lesson.url_path == "learned")
#: a lesson whose first exercise is a multiple choice with fixed options (a variant question's
#: options are the student's own), as tests/test_browser_progress.py
SOLVED_LESSON = next(lesson for lesson in lessons.LESSONS if lesson.url_path == "why-order")
EXERCISE = SOLVED_LESSON.exercises[0]
#: the teacher's count must show a vote within this (1 s fragment, plus a loaded 2-core
#: machine), scaled to this machine's pace (browser_support.budget_ms)
COUNT_WITHIN_MS = budget_ms(6_000)
#: a student's page must follow the teacher within this (2 s watcher, 1 s server cache), scaled
FOLLOW_WITHIN_MS = budget_ms(10_000)
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1920, "height": 1080}
DESKTOP = {"width": 1366, "height": 900}


@contextlib.contextmanager
def class_server(db: str, *, port: int | None = None) -> Iterator[str]:
    try:
        with serve(env={class_store.SETTING: db}, port=port) as url:
            yield url
    except ServerStartError as exc:
        pytest.fail(str(exc))


class _Person:
    """One browser context (its own cookies and storage: one person) with one tab."""

    def __init__(self, browser, viewport: dict, *, mobile: bool = False):
        self.context = browser.new_context(
            viewport=viewport, is_mobile=mobile, has_touch=mobile, device_scale_factor=2 if mobile else 1
        )
        self.page = self.context.new_page()
        self.outside: list[str] = []
        #: the paths of the health checks Streamlit's frontend made (where it looked for the app)
        self.health: list[str] = []
        self.page.on("request", self._request)
        self.answers = ServerAnswers(self.page)  # ``click`` waits for the server's answer

    def _request(self, r) -> None:
        if not r.url.startswith(("http://127.0.0.1", "data:", "blob:")):
            self.outside.append(r.url)
        if r.url.endswith("/_stcore/health"):
            self.health.append(urlparse(r.url).path)

    def go(self, url: str) -> _Person:
        self.page.goto(url, wait_until="domcontentloaded")
        # idle, and the shell's CSS in: it moves the page up, and a click aimed before it
        # arrived landed 40 px too low (the "Continue teaching" press that seemed lost)
        wait_ready(self.page, charts=False)
        self.page.evaluate("() => { window.__notReloaded = true; }")
        return self

    def reloaded(self) -> bool:
        return not self.page.evaluate("() => window.__notReloaded === true")

    def text(self, text: str, timeout: int = WAIT_MS) -> None:
        """Wait until ``text`` shows, within ``timeout`` ms (a budget already scaled:
        ``WAIT_MS``, ``FOLLOW_WITHIN_MS``...); a timeout says what the page showed."""
        wait_for_text(self.page, text, timeout)

    def click(self, name: str) -> None:
        """Press the button and wait for the run it starts: until the server has answered
        (the page still looks idle before its run begins, longer so on a busy machine), then
        until the page is idle. A step that reads what the run changed still waits for that
        change itself (``text``, ``_new_teacher_key``)."""
        self.answers.run(self.page.get_by_role("button", name=name).click, f"the press of {name!r}")

    def presenting(self) -> bool:
        # presenter mode scales Streamlit's rem-sized text from the root (posenc_lab/ui/shell.py)
        return self.page.evaluate("() => getComputedStyle(document.documentElement).fontSize") != "16px"

    def shows(self, text: str) -> bool:
        return self.page.get_by_text(text).count() > 0

    def no_exception(self) -> None:
        assert self.page.locator('[data-testid="stException"]').count() == 0

    def shot(self, name: str, anchor: str | None = None) -> None:
        if anchor:  # to the top of the screen, as a teacher scrolls to what the room should see
            self.page.get_by_text(anchor).first.evaluate("e => e.scrollIntoView({block: 'start'})")
            wait_still(self.page)
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / name))

    def close(self) -> None:
        self.context.close()


@contextlib.contextmanager
def people(browser, *specs: tuple[dict, bool]) -> Iterator[list[_Person]]:
    made = [_Person(browser, viewport, mobile=mobile) for viewport, mobile in specs]
    try:
        yield made
    finally:
        for person in made:
            person.close()


def _start_class(teacher: _Person) -> str:
    """Start a class, as a teacher who has just typed its name does: Enter in the name box
    sends the form (a click on its button was once lost under load, the server never heard
    of it, as "Continue teaching" was: ``_continue_teaching``). Returns the join code read
    from the join link on the page."""
    name = teacher.page.get_by_role("textbox", name="Class name (optional)")
    wait_idle(teacher.page)
    teacher.answers.run(lambda: name.press("Enter"), "Enter in the class name (Start a class)")
    teacher.text("joined.")
    link = teacher.page.get_by_text(re.compile(r"/class\?class=")).first.inner_text()
    code = re.search(r"class=([A-Z0-9]+)", link).group(1)
    assert len(code) == class_store.CODE_LENGTH
    return code


def _new_teacher_key(teacher: _Person, old: str) -> str:
    """The key the page shows once "New teacher link" has replaced ``old``."""
    block = teacher.page.locator('[data-testid="stCode"]').first
    wait_until(
        teacher.page,
        "([old]) => { const b = document.querySelector('[data-testid=\"stCode\"]'); "
        "return !!b && b.innerText.trim() !== '' && b.innerText.trim() !== old; }",
        arg=[old],
        timeout_ms=FOLLOW_WITHIN_MS,
        what="a new teacher key",
    )
    return block.inner_text().strip()


def _teacher_key(teacher: _Person) -> str:
    """The teacher key, from the code block the "Show my teacher key" switch opens (desktop only)."""
    switch = teacher.page.get_by_text("Show my teacher key")
    if not teacher.page.locator('[data-testid="stCode"]').count():
        switch.click()
    block = teacher.page.locator('[data-testid="stCode"]').first
    wait_shown(block)
    return block.inner_text().strip()


def _continue_teaching(teacher: _Person, base: str, code: str, key: str, *, present: bool = False) -> None:
    """A returning teacher opens /class, opens "Continue teaching a class" and types the
    class's code and teacher key (the key never goes into a link)."""
    teacher.go(f"{base}/class" + ("?present=1" if present else ""))
    teacher.page.get_by_text("Continue teaching a class").click()
    code_box = teacher.page.get_by_role("textbox", name="Your class's code")
    key_box = teacher.page.get_by_label("Teacher key")
    code_box.fill(code)
    key_box.fill(key)
    # Enter in the key box sends the form, as a teacher typing it does: on a projector's screen
    # the form's button lies below the fold, and a click there had to scroll the page first
    # (two fresh-clone runs lost that click, the server never heard of it; the page showed
    # its top again). The wait is for the server's answer, then for the run it started.
    wait_idle(teacher.page)
    before = teacher.answers.count
    key_box.press("Enter")
    answered = teacher.answers.wait_after(before, budget_s(30))
    try:
        # not a latency check (FOLLOW_WITHIN_MS is the room's); it takes 0.3-0.4 s even beside
        # three busy loops; a failure prints the page's text
        teacher.text("joined")
    except Exception:
        boxes = (code_box.input_value() if code_box.count() else "-", "set" if key_box.count() else "-")
        teacher.shot(f"continue_teaching_failed_{code}.png")
        pytest.fail(
            f"Continue teaching did not open class {code} (server answered the press: {answered}; "
            f"boxes {boxes}); the page says:\n{_page_text(teacher)[-1500:]}"
        )
    wait_idle(teacher.page)


def _join_by_link(student: _Person, base: str, code: str, nickname: str) -> None:
    student.go(f"{base}/class?class={code}")
    box = student.page.get_by_role("textbox", name="Class code")
    wait_shown(box)
    try:  # the join link fills the code in
        expect(box).to_have_value(code, timeout=budget_ms(5_000))
    except AssertionError as exc:
        raise AssertionError(f"the join link did not fill the code in: {exc}\n{describe_page(student.page)}") from None
    student.page.get_by_role("textbox", name="Nickname (optional)").fill(nickname)
    student.click("Join")
    student.text(f"You are in class {code}")


def _join_by_typing(student: _Person, base: str, code: str) -> None:
    student.go(f"{base}/class")
    student.page.get_by_role("textbox", name="Class code").fill(code.lower())  # as typed from the projector
    student.click("Join")
    student.text(f"You are in class {code}")


def _student_params(student: _Person) -> dict[str, str]:
    query = parse_qs(urlparse(student.page.url).query)
    return {name: values[0] for name, values in query.items() if name in ("class", "student")}


def _vote(student: _Person, option: int, button: str = "Send my answer") -> None:
    wait_shown(student.page.get_by_role("button", name=button), FOLLOW_WITHIN_MS)
    student.page.locator('[data-testid="stRadio"]').get_by_text(POLL.options[option], exact=True).click()
    student.click(button)
    student.text("Counted:")


def _solve_first_exercise(student: _Person) -> None:
    label = f"Exercises (0 of {len(SOLVED_LESSON.exercises)} solved)"
    student.page.get_by_text(label).click()
    choice = EXERCISE.choices[EXERCISE.answer_index].text
    student.page.locator(f".st-key-ex_{EXERCISE.key}_choice").get_by_text(choice, exact=True).click()
    wait_idle(student.page)
    student.page.locator(f".st-key-ex_{EXERCISE.key}_check button").click()
    student.text(f"Exercises (1 of {len(SOLVED_LESSON.exercises)} solved)")
    wait_idle(student.page)


def _no_serious_axe(person: _Person, where: str) -> None:
    found = axe_serious(person.page)
    assert not found, f"axe-core on {where}: " + "; ".join(f"{v['id']} ({v['nodes']}): {v['targets']}" for v in found)


# 1. the main flow, on both databases


def test_teacher_and_two_students_open_vote_again_and_reveal_without_reloading(browser, postgres_server):
    # on PostgreSQL: SQLite's classes vote in the two-process, restart and follow-me tests below
    fresh_db = pg_support.fresh_database(postgres_server)
    sqlite = True  # the one run: its screenshots and axe checks
    with (
        class_server(fresh_db) as base,
        people(browser, (PROJECTOR, False), (PHONE, True), (DESKTOP, False)) as (
            teacher,
            phone,
            desk,
        ),
    ):
        teacher.go(f"{base}/class?present=1")
        code = _start_class(teacher)
        assert teacher.presenting()
        assert not teacher.shows("Your private teacher link")  # hidden from the projector
        if sqlite:
            teacher.shot("class_teacher_join_present.png")  # the way in, before the first question
        _join_by_link(phone, base, code, "Ada")
        _join_by_typing(desk, base, code)
        for student in (phone, desk):
            student.text("Waiting for your teacher to open a question")

        teacher.click("Open the vote")
        for student in (phone, desk):  # the watcher redraws their pages
            wait_shown(student.page.get_by_role("button", name="Send my answer"), FOLLOW_WITHIN_MS)
            student.text(POLL.options[0])
        if sqlite:
            phone.shot("class_student_phone.png", anchor=POLL.options[0])
            _no_serious_axe(phone, "the student's phone page, a question open")
        _vote(phone, WRONG)
        _vote(desk, RIGHT)
        # the fragment: no reload, no click on the teacher's side
        teacher.text("2 of 2 students answered", timeout=COUNT_WITHIN_MS)
        # while the vote is open the room sees the count, not how it voted
        assert teacher.shows("The votes show here when you close the vote")
        assert teacher.page.locator(".js-plotly-plot").count() == 0

        teacher.click("Close the vote")
        wait_shown(teacher.page.locator(".js-plotly-plot").first, COUNT_WITHIN_MS)  # now shown
        for student in (phone, desk):
            student.text("Voting is closed", timeout=FOLLOW_WITHIN_MS)
        teacher.click("Vote again")
        phone.text("Second thoughts: round 2", timeout=FOLLOW_WITHIN_MS)
        _vote(phone, RIGHT)
        teacher.text("1 of 2 students answered", timeout=COUNT_WITHIN_MS)
        assert teacher.presenting(), (
            "presenter mode must stay on through the teacher's clicks: "
            f"url {teacher.page.url}, reloaded {teacher.reloaded()}, "
            f"toggle {teacher.page.get_by_role('switch').evaluate_all('els => els.map(e => e.checked)')}"
        )
        if sqlite:
            teacher.shot("class_teacher_present.png", anchor=POLL_HEADING)
            _no_serious_axe(teacher, "the teacher's page in presenter mode")

        teacher.click("Reveal")
        teacher.text("Right answers: round 1: 1 of 2 right; round 2: 1 of 1 right", timeout=COUNT_WITHIN_MS)
        for student in (phone, desk):
            student.text("The answer:", timeout=FOLLOW_WITHIN_MS)
            student.text(POLL.options[RIGHT])
            wait_idle(student.page)
            wait_shown(student.page.locator(".js-plotly-plot .main-svg").first, budget_ms(15_000))
        # round 2: it changed to the right answer
        wait_for_text(phone.page, re.compile(r"You answered .+: right\."), budget_ms(5_000))
        assert not desk.shows("You answered")  # it sat out round 2
        if sqlite:
            phone.shot("class_student_reveal_phone.png", anchor="The answer:")
            teacher.shot("class_teacher_reveal_present.png", anchor=POLL_HEADING)  # the answer under the question
            _no_serious_axe(phone, "the student's phone page, revealed")
            _no_serious_axe(desk, "the student's desktop page, revealed")

        for person in (teacher, phone, desk):
            assert not person.reloaded(), "a page was loaded again: the live updates must not need it"
            person.no_exception()
            assert not person.outside, f"requests left localhost: {person.outside[:5]}"


# 2. a restart mid-class


def test_a_restart_mid_class_loses_no_vote_and_no_solved_exercise(browser, tmp_path):
    db = pg_support.fresh_sqlite_url(tmp_path)
    with class_server(db) as base:
        port = urlparse(base).port
        with people(browser, (DESKTOP, False), (PHONE, True), (DESKTOP, False)) as (teacher, one, two):
            teacher.go(f"{base}/class")
            code = _start_class(teacher)
            key = _teacher_key(teacher)
            _no_serious_axe(teacher, "the teacher's desktop page")
            _join_by_link(one, base, code, "Lin")
            _join_by_typing(two, base, code)
            teacher.click("Open the vote")
            _vote(one, RIGHT)
            _vote(two, WRONG)
            teacher.text("2 of 2 students answered", timeout=COUNT_WITHIN_MS)
            link_one = _student_params(one)
            assert link_one["class"] == code and link_one["student"]
            one.go(f"{base}/{SOLVED_LESSON.url_path}?class={code}&student={link_one['student']}")
            _solve_first_exercise(one)
            for person in (teacher, one, two):
                person.no_exception()
                assert not person.outside, f"requests left localhost: {person.outside[:5]}"
    # the server is gone; the same port and database, a new process
    with class_server(db, port=port) as again:
        assert again == base
        # new contexts: nothing from the browser's storage, everything from the database
        with people(browser, (DESKTOP, False), (PHONE, True), (PHONE, True)) as (teacher, lesson_tab, class_tab):
            _continue_teaching(teacher, again, code, key)
            teacher.text("2 of 2 students answered", timeout=COUNT_WITHIN_MS)
            teacher.text("2 joined")
            assert "teacher=" not in teacher.page.url
            lesson_tab.go(f"{base}/{SOLVED_LESSON.url_path}?class={code}&student={link_one['student']}")
            lesson_tab.text(f"Exercises (1 of {len(SOLVED_LESSON.exercises)} solved)")
            class_tab.go(f"{base}/class?class={code}&student={link_one['student']}")
            class_tab.text(f"You are in class {code}")
            class_tab.text("Lin")
            # its vote comes back from the database: counted, and still open to change
            wait_shown(class_tab.page.get_by_role("button", name="Change my answer"), FOLLOW_WITHIN_MS)
            class_tab.text("Counted:")
            _no_serious_axe(class_tab, "the student's phone page after a restart")
            for person in (teacher, lesson_tab, class_tab):
                person.no_exception()
                assert not person.outside, f"requests left localhost: {person.outside[:5]}"


#: the sign a page shows while it has no connection to the server (ui/shell.py's watcher),
#: as the browser draws it: its text while shown, else None; and whether Streamlit's own
#: "Connection error" dialog is visible (the watcher hides it)
CONNECTION_SIGN_JS = """() => {
  const sign = document.getElementById('posenc-connection-sign');
  const dialogs = [...document.querySelectorAll('.stDialog')].filter(d => getComputedStyle(d).display !== 'none');
  return {
    text: sign && !sign.hidden && sign.offsetWidth > 0 ? sign.textContent : null,
    watching: !!sign,
    dialogs: dialogs.map(d => d.innerText.slice(0, 80)),
  };
}"""


def test_the_teacher_view_survives_a_reload_and_a_restart_in_its_own_tab_only(browser, tmp_path):
    """The key is kept in the tab's sessionStorage (never in the address bar): the same tab
    comes back as the teacher after a reload and after the server restarts; another browser
    opening /class gets a student's join page. While the server is down, a student's phone
    says the connection is lost; once it is back, the phone is in the class again by itself."""
    db = pg_support.fresh_sqlite_url(tmp_path)
    port = free_port()
    with people(browser, (DESKTOP, False), (DESKTOP, False), (PHONE, True)) as (teacher, other, student):
        with class_server(db, port=port) as base:
            teacher.go(f"{base}/class")
            code = _start_class(teacher)
            _join_by_link(student, base, code, "Lin")
            student.text(f"You are in class {code}")
            wait_until(student.page, f"() => ({CONNECTION_SIGN_JS})().watching", what="the connection watcher")
            assert student.page.evaluate(CONNECTION_SIGN_JS)["text"] is None, "no sign while connected"
            teacher.page.reload()
            wait_shown(teacher.page.get_by_role("button", name="Open the vote"), FOLLOW_WITHIN_MS)
            assert "teacher=" not in teacher.page.url
            other.go(f"{base}/class")
            other.text("Join a class")
            assert not other.shows("Open the vote")
        # the server is gone: the phone says so, and that it is reconnecting
        wait_until(
            student.page,
            f"() => !!({CONNECTION_SIGN_JS})().text",
            timeout_ms=budget_ms(20_000),
            what="the phone's connection-lost sign",
        )
        lost = student.page.evaluate(CONNECTION_SIGN_JS)
        assert lost["text"] == "Connection lost: reconnecting\u2026" and not lost["dialogs"], lost
        student.page.screenshot(path=str(SHOTS / "class_student_connection_lost_phone.png"))
        with class_server(db, port=port) as base:
            # the phone reconnects by itself, and is in the class again: no reload
            wait_until(
                student.page,
                f"() => ({CONNECTION_SIGN_JS})().text === null",
                timeout_ms=budget_ms(60_000),
                what="the phone reconnected (the sign gone)",
            )
            student.text(f"You are in class {code}")
            student.text("Waiting for your teacher to open a question")
            student.no_exception()
            teacher.page.reload()  # the same tab, a new server process
            wait_shown(teacher.page.get_by_role("button", name="Open the vote"), FOLLOW_WITHIN_MS)
            assert "teacher=" not in teacher.page.url
            # on a lesson too: reloaded there, the tab is the teacher's again (its bar is back)
            _follow_link(teacher, "/rope?view=rotation")
            wait_shown(teacher.page.get_by_role("button", name="Send the class here"), FOLLOW_WITHIN_MS)
            teacher.page.reload()
            wait_shown(teacher.page.get_by_role("button", name="Send the class here"), FOLLOW_WITHIN_MS)
            other.go(f"{base}/rope?view=rotation")
            assert not other.shows("Send the class here")
            teacher.no_exception()


# 3. two app processes on one SQLite file: behind nginx here; directly, with the students on
# the second process, in the follow-me test below (its plan's question is voted and revealed
# across the two)


def test_two_processes_behind_nginx_share_the_class(browser, tmp_path):
    """deploy/run_two.sh: two app processes behind nginx (sticky by cookie), one SQLite file.
    The teacher talks to process 1 directly; the students come through nginx."""
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        pytest.skip("nginx is not installed (the two-process test above runs without it)")
    db = pg_support.fresh_sqlite_url(tmp_path)
    new = _new_class(db, "Behind nginx")
    proxy, one_port, two_port = (free_port() for _ in range(3))
    # nginx started as root runs its workers as an unprivileged user, who must reach the run
    # folder's cache; pytest's tmp_path sits under a folder only root may enter
    run_dir = tempfile.mkdtemp(prefix="posenc-deploy-")
    os.chmod(run_dir, 0o755)
    env = {
        **os.environ,
        "RUN_DIR": run_dir,
        "PROXY_PORT": str(proxy),
        "BACKEND_PORTS": f"{one_port} {two_port}",
        "STICKY": "cookie",
        "PYTHON": sys.executable,
        class_store.SETTING: db,
    }
    script = [str(ROOT / "deploy" / "run_two.sh")]
    try:
        subprocess.run([*script, "start"], cwd=ROOT, env=env, check=True, timeout=budget_s(150), capture_output=True)
        front = f"http://127.0.0.1:{proxy}"
        with people(browser, (PROJECTOR, False), (PHONE, True), (DESKTOP, False)) as (teacher, one, two):
            _continue_teaching(teacher, f"http://127.0.0.1:{one_port}", new.code, new.teacher_key, present=True)
            _join_by_link(one, front, new.code, "Kim")
            _join_by_typing(two, front, new.code)
            teacher.click("Open the vote")
            _vote(one, WRONG)
            _vote(two, RIGHT)
            teacher.text("2 of 2 students answered", timeout=COUNT_WITHIN_MS)
            for person in (teacher, one, two):
                person.no_exception()
                assert not person.outside, f"requests left localhost: {person.outside[:5]}"
            # the students' deep links (/class?class=...) came through nginx, which tells the
            # page where the app is served: no health check at /class/_stcore/health first
            for student in (one, two):
                assert student.health and set(student.health) == {"/_stcore/health"}, student.health
    finally:
        subprocess.run([*script, "stop"], cwd=ROOT, env=env, check=False, timeout=budget_s(60), capture_output=True)
        shutil.rmtree(run_dir, ignore_errors=True)


# the benchmark's protocol client, on a small class (benchmarks/class_poll.py; no timing asserted)


def test_class_poll_counts_every_answer_of_a_small_class(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import class_poll

    db = pg_support.fresh_sqlite_url(tmp_path)
    monkeypatch.setenv(class_store.SETTING, db)
    args = class_poll.parse_args(["--students", "5", "--arrive", "1", "--window", "0.5"])
    with class_poll.app_server() as (url, pid, log), ThreadPoolExecutor(1) as pool:
        # its own thread: Playwright's sync API may hold an event loop in this one
        run = pool.submit(class_poll.measure, 5, args, class_poll.loopback_target(url), db, [pid], log).result()
    assert run.errors == []
    assert (run.sent, run.counted, len(run.acked)) == (5, 5, 5)
    assert run.unseen == 0 and len(run.latencies) == 5
    # the teacher's view went from nobody to everybody, through the live fragment
    assert run.counts[0][1] == 0 and run.counts[-1][1] == 5


def test_class_follow_takes_every_student_of_a_small_class_there(tmp_path, monkeypatch):
    """benchmarks/class_follow.py's protocol client: a teacher's two sends reach all of a
    class of 4 with the teacher's settings (counting only; it times nothing)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import class_follow
    import class_poll

    db = pg_support.fresh_sqlite_url(tmp_path)
    monkeypatch.setenv(class_store.SETTING, db)
    args = class_follow.parse_args(["--students", "4", "--arrive", "1", "--idle", "0.5"])
    with class_poll.app_server() as (url, pid, log), ThreadPoolExecutor(1) as pool:
        run = pool.submit(class_follow.measure, 4, args, class_follow.loopback_target(url), [pid], log).result()
    assert run.errors == [] and run.joined == 4
    assert [(s.to, len(s.latencies), s.wrong) for s in run.sends] == [
        (f"{path}?{query}", 4, 0) for path, query in class_follow.SENDS
    ]


# issue 36: the teacher's key off the projected page, and the class's controls


LAPTOP = {"width": 1280, "height": 800}


def _page_text(person: _Person) -> str:
    # the whole document, scrolled into view or not
    return person.page.evaluate("() => document.documentElement.innerText")


def test_the_key_stays_off_the_projected_page_and_the_teacher_runs_the_class(browser, tmp_path):
    db = pg_support.fresh_sqlite_url(tmp_path)
    with (
        class_server(db) as base,
        people(browser, (PROJECTOR, False), (LAPTOP, False), (PHONE, True), (PHONE, True)) as (
            teacher,
            laptop,
            kim,
            late,
        ),
    ):
        # Start a class outside presenter mode on a projector-sized screen (the case)
        teacher.go(f"{base}/class")
        code = _start_class(teacher)
        code_, key = __import__("json").loads(
            teacher.page.evaluate("() => sessionStorage.getItem('posenc-lab:teacher:v1')")
        )
        assert code_ == code and len(key) >= 32
        assert key not in _page_text(teacher), "the teacher key is on the page"
        teacher.shot("h36_teacher_start_1920.png")
        teacher.shot("h36_teacher_running_1920.png", anchor="Running the class")
        # the same teacher on a laptop, and in presenter mode: no key, no controls on the projector
        _continue_teaching(laptop, base, code, key, present=True)
        laptop.text("joined")
        # presenter mode scales the root font (posenc_lab/ui/shell.py) once its style is in
        laptop.page.wait_for_function("() => getComputedStyle(document.documentElement).fontSize !== '16px'")
        assert laptop.presenting() and key not in _page_text(laptop)
        assert not laptop.shows("Running the class") and not laptop.shows("Show my teacher key")
        laptop.shot("h36_teacher_present_1280.png")

        _join_by_link(kim, base, code, "www.evil.example")
        # a name that looks like an address is shown as text, never as a link
        teacher.text("1 joined: www")
        for person in (kim, teacher):
            assert person.page.locator("a", has_text="evil").count() == 0
        teacher.page.get_by_text("Closed to new students").first.click()
        wait_idle(teacher.page)
        late.go(f"{base}/class?class={code}")
        late.page.get_by_role("textbox", name="Class code").fill(code)
        late.click("Join")
        late.text("is closed to new students")
        late.shot("h36_phone_join_refused.png")
        teacher.page.reload(wait_until="domcontentloaded")
        wait_idle(teacher.page)
        teacher.text("1 join refused")
        teacher.shot("h36_teacher_refused_1920.png", anchor="Running the class")

        teacher.click("Open the vote")
        # scrolled to first, then opened: the list opened while the long page still scrolls to
        # the box closes again
        box = teacher.page.get_by_role("combobox", name="Remove a student")
        box.scroll_into_view_if_needed()
        wait_still(teacher.page)
        box.focus()
        teacher.page.keyboard.press("ArrowDown")
        _list_stays_open_while_checks_run(teacher.page)
        teacher.page.get_by_role("option", name=re.compile(r"www\.evil\.example")).click()
        wait_idle(teacher.page)
        teacher.click("Remove from the class")
        teacher.text("Removed from the class")
        wait_shown(kim.page.get_by_role("button", name="Send my answer"), FOLLOW_WITHIN_MS)
        kim.page.locator('[data-testid="stRadio"]').get_by_text(POLL.options[0], exact=True).click()
        kim.click("Send my answer")
        kim.text("You are not in class")
        kim.shot("h36_phone_removed.png")

        assert _teacher_key(teacher) == key
        teacher.click("New teacher link")
        fresh = _new_teacher_key(teacher, key)
        assert fresh != key and len(fresh) >= 32
        laptop.page.reload(wait_until="domcontentloaded")
        laptop.text("no longer works")
        laptop.shot("h36_old_link_1280.png")

        end = teacher.page.get_by_role("button", name="End class now")
        wait_shown(end)  # else: what the page showed
        end.click()
        teacher.click("End the class for everyone")
        teacher.text(f"Class {code} has ended")
        teacher.shot("h36_teacher_ended_1920.png")
        for person in (teacher, laptop, kim, late):
            person.no_exception()
            assert not person.outside, f"requests left localhost: {person.outside[:5]}"


#: the page's runs counted as they end, and what moved: each scroll of the main column and
#: each time the open list's options went away (a drop-down closes when what it drops from scrolls)
WATCH_LIST_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const main = document.querySelector('[data-testid="stMain"]');
  const w = window.__listWatch = {runs: 0, scrolls: [], closed: 0, height: main.scrollHeight};
  new MutationObserver(() => { if (app.dataset.testScriptState === 'notRunning') w.runs++; })
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  main.addEventListener('scroll', () => w.scrolls.push([main.scrollTop, main.scrollHeight]));
  new MutationObserver(() => { if (!document.querySelector('[role="option"]')) w.closed++; })
    .observe(document.body, {childList: true, subtree: true});
}"""

#: runs of the teacher page's checks to watch an open list through: its one-second checks
#: run about twice a second together, so twenty take in the five-second ones more than once
CHECK_RUNS = 20


def _list_stays_open_while_checks_run(page) -> None:
    """A drop-down the teacher has opened stays open while the page's checks run. Each check
    drew an ``st.empty`` place empty before filling it: the page shrank for a moment, the
    main column (scrolled to its end) scrolled, and the list closed by itself within about
    two seconds, under the teacher's click."""
    wait_shown(page.get_by_role("option").first)
    page.evaluate(WATCH_LIST_JS)
    wait_until(page, f"() => window.__listWatch.runs >= {CHECK_RUNS}", what=f"{CHECK_RUNS} runs of the page's checks")
    watch = page.evaluate("() => window.__listWatch")
    assert not watch["closed"] and not watch["scrolls"], (
        f"while {watch['runs']} checks ran, the list closed {watch['closed']} times and the page scrolled "
        f"(top, height): {watch['scrolls'][:6]} (height {watch['height']} before)"
    )


def test_the_teacher_key_is_in_no_request_and_no_history(tmp_path):
    """The teacher continues a class on a second browser by typing the key: no request the
    browser sends, and nothing in its history file, carries it."""
    import sqlite3 as sqlite

    from browser_support import CHROMIUM, FLAGS
    from playwright.sync_api import sync_playwright

    db = pg_support.fresh_sqlite_url(tmp_path)
    with class_store.open_store(db) as store:
        new = store.create_class("History")
    profile = tmp_path / "profile"
    requests: list[str] = []

    def teach(base: str) -> None:
        # a browser of its own with a profile on disk (its history file), in a thread of its
        # own: the session's Playwright holds this thread's event loop
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(
                str(profile), executable_path=CHROMIUM, args=FLAGS, headless=True, viewport=LAPTOP
            )
            budgeted(context)
            try:
                page = context.pages[0] if context.pages else context.new_page()
                page.on("request", lambda r: requests.append(r.url + " " + (r.post_data or "")))
                page.goto(f"{base}/class", wait_until="domcontentloaded")
                wait_idle(page)
                page.get_by_text("Continue teaching a class").click()
                form = page.locator(".st-key-class_resume_code input")
                form.wait_for()
                form.fill(new.code)
                page.locator(".st-key-class_resume_key input").fill(new.teacher_key)
                page.get_by_role("button", name="Continue teaching").click()
                wait_shown(page.get_by_role("button", name="Open the vote"))
                wait_idle(page)
                page.goto(f"{base}/", wait_until="domcontentloaded")  # another page, so history is written
                wait_idle(page)
            finally:
                context.close()

    with class_server(db) as base, ThreadPoolExecutor(1) as pool:
        pool.submit(teach, base).result()
    assert requests and not [r for r in requests if new.teacher_key in r]
    copy = tmp_path / "History.copy"
    copy.write_bytes((profile / "Default" / "History").read_bytes())
    conn = sqlite.connect(copy)
    try:
        urls = [row[0] for row in conn.execute("SELECT url FROM urls")]
    finally:
        conn.close()
    assert any("/class" in url for url in urls), urls  # the history was written...
    assert not [url for url in urls if new.teacher_key in url]  # ...without the key


def test_a_student_shares_a_view_without_their_class_identity(browser, tmp_path):
    db = pg_support.fresh_sqlite_url(tmp_path)
    with class_store.open_store(db) as store:
        new = store.create_class("Share")
        kim = store.join(new.code, "Kim", client="a")
    with class_server(db) as base, people(browser, (PHONE, True), (LAPTOP, False)) as (phone, laptop):
        for person, name in ((phone, "phone"), (laptop, "laptop")):
            person.go(f"{base}/{LESSON.url_path}?class={new.code}&student={kim.student_id}")
            assert kim.student_id in person.page.url  # the address bar keeps the student in the class
            button = person.page.get_by_role("button", name="Link to this view, without your class")
            button.scroll_into_view_if_needed()
            button.click()
            field = person.page.get_by_role("textbox", name="Link to this view")
            field.wait_for()
            shared = field.input_value()
            assert shared.startswith(f"{base}/{LESSON.url_path}"), shared
            assert kim.student_id not in shared and new.code not in shared, shared
            person.shot(f"h36_share_{name}.png", anchor="Link to this view, without your class")
            _no_serious_axe(person, f"a lesson with the share link, {name}")
            person.no_exception()


# issue 39: follow me, with a teacher and three students (two phones, a laptop), the students
# on a second app process


ROPE = next(lesson for lesson in lessons.LESSONS if lesson.url_path == "rope")


#: the teacher's own question in the saved plan, markup and all (it must show as typed)
OWN_PROMPT = "Which pair turns <b>bold</b>ly faster: **pair 0** or pair 31?"
OWN_OPTIONS = ("pair 0", "pair 31")
OWN_WHY = "One radian per position against a ten-thousandth of one."


def _saved_plan(db: str) -> str:
    """A plan saved by another class on ``db`` (a teacher preparing last week); its code."""
    store = class_store.open_store(db)
    try:
        old = store.create_class("Last week")
        own = store.add_question(
            old.code, old.teacher_key, class_store.Question(OWN_PROMPT, OWN_OPTIONS, 0, why=OWN_WHY)
        )
        steps = [
            class_store.PlanStep("view", "alibi?heads=4&view=slopes", "Ask which head looks furthest."),
            class_store.PlanStep("question", own.key),
            class_store.PlanStep("view", "sinusoidal?view=waves"),
            class_store.PlanStep("question", POLL.key),
        ]
        store.set_plan(old.code, old.teacher_key, steps)
        return store.save_plan(old.code, old.teacher_key, "Week 3")
    finally:
        store.close()


def _next_step(teacher: _Person) -> None:
    """The teacher presses Next in the plan's bar, and waits for the run it starts."""
    teacher.answers.run(teacher.page.get_by_role("button", name=re.compile(r"^Next")).click, "the press of Next")


def _new_class(db: str, title: str) -> class_store.NewClass:
    """A class made on ``db`` as the app makes one (its code and teacher key)."""
    store = class_store.open_store(db)
    try:
        return store.create_class(title)
    finally:
        store.close()


def _follow_link(person: _Person, path: str) -> None:
    """Open ``path`` inside the running app, as a link or the browser's Back does (no page load)."""
    person.answers.run(lambda: person.page.evaluate(FOLLOW_JS, path), f"the link to {path}")


def _on(person: _Person, **params: str) -> bool:
    query = {name: values[0] for name, values in parse_qs(urlparse(person.page.url).query).items()}
    return all(query.get(name) == value for name, value in params.items())


def _until_on(person: _Person, within_ms: int = FOLLOW_WITHIN_MS, **params: str) -> None:
    """Wait until the person's address shows ``params`` (the page followed), then until it is drawn."""
    deadline = time.monotonic() + within_ms / 1000
    while not _on(person, **params):
        assert time.monotonic() < deadline, f"not on {params} within {within_ms} ms: {describe_page(person.page)}"
        person.page.wait_for_timeout(100)  # how often the address is read
    wait_idle(person.page)


def _gap_shown(person: _Person) -> str:
    return person.page.locator('.st-key-w-gap input[type="range"]').first.input_value()


def test_the_class_follows_the_teacher_steps_away_comes_back_and_is_held(browser, postgres_server):
    # on PostgreSQL: two processes on one SQLite file follow, step away and are held in the
    # class soak (tests/test_browser_class_soak.py), and follow me's reads and writes run on
    # both databases under AppTest (tests/test_page_class_follow.py)
    fresh_db = pg_support.fresh_database(postgres_server)
    new = _new_class(fresh_db, "Follow me")
    with (
        class_server(fresh_db) as first,
        class_server(fresh_db) as second,
        people(browser, (PROJECTOR, False), (PHONE, True), (PHONE, True), (LAPTOP, False)) as (
            teacher,
            ada,
            bo,
            cy,
        ),
    ):
        _continue_teaching(teacher, first, new.code, new.teacher_key, present=True)
        _join_by_link(ada, second, new.code, "Ada")
        _join_by_link(bo, second, new.code, "Bo")
        _join_by_typing(cy, second, new.code)
        # the projected count follows the joins on its own (students on the other process)
        teacher.text("3 joined", timeout=COUNT_WITHIN_MS)
        # the teacher opens RoPE's rotation at r = 7 in the same tab (a link; presenter mode stays)
        _follow_link(teacher, "/rope?view=rotation&gap=7&present=1")
        teacher.text("Send the class here")
        assert teacher.presenting() and _gap_shown(teacher) == "7"
        teacher.click("Send the class here")
        teacher.text(f"Class {new.code} is on this view.")
        for student in (ada, bo, cy):  # from the class page, without a reload
            _until_on(student, view="rotation", gap="7")
            assert _gap_shown(student) == "7", "the teacher's settings, not the view's defaults"
        teacher.shot("follow_teacher_present.png")
        ada.shot("follow_student_phone.png")

        # Ada explores: her own value stays, and the page says where the class is
        ada.page.locator('.st-key-w-gap input[type="range"]').first.focus()
        ada.answers.run(lambda: ada.page.keyboard.press("ArrowRight"), "the key ArrowRight on r")
        _until_on(ada, gap="8")
        wait_shown(ada.page.get_by_role("button", name="Back to your class: 5. RoPE · Rotation"), FOLLOW_WITHIN_MS)
        assert _on(ada, gap="8"), "an explorer is not pulled back while the class is not held"
        ada.shot("follow_student_away_phone.png")
        ada.click("Back to your class: 5. RoPE · Rotation")
        _until_on(ada, gap="7")
        assert _gap_shown(ada) == "7"

        # held: Bo opens another lesson and is brought back; the teacher's moves go to the class
        teacher.page.get_by_text("Hold the class here").click()
        wait_idle(teacher.page)
        _follow_link(bo, "/alibi")
        _until_on(bo, view="rotation", gap="7")
        _follow_link(teacher, "/rope?view=rotation&gap=11&present=1")
        for student in (ada, bo, cy):
            _until_on(student, view="rotation", gap="11")
        teacher.page.get_by_text("Hold the class here").click()
        wait_idle(teacher.page)

        # Cy, on the laptop, is stuck: the switch in the side panel raises a hand
        cy.page.get_by_text("I'm stuck").click()
        wait_idle(cy.page)
        teacher.text("1 hand up", timeout=FOLLOW_WITHIN_MS)  # the bar's next check

        # the roster on the teacher's class page, on the teacher's own screen (presenter mode
        # never shows students' names)
        _follow_link(teacher, "/class?present=0")
        try:
            teacher.text("3 of 3", timeout=FOLLOW_WITHIN_MS)
        except Exception:
            seen = class_store.open_store(fresh_db)
            info = (seen.follow(new.code), [(p.nickname, p.place) for p in seen.roster(new.code, new.teacher_key)])
            pytest.fail(f"no roster {info}; the teacher's page says:\n" + _page_text(teacher)[-2500:])
        teacher.text("1 hand up")
        teacher.shot("follow_teacher_roster_1920.png", anchor="Where your students are")
        teacher.click("Lower all hands")
        wait_until(
            cy.page,
            "() => { const t = [...document.querySelectorAll('[data-testid=stSidebar] input[type=checkbox]')];"
            " return t.length > 0 && t.every(e => !e.checked); }",
            timeout_ms=FOLLOW_WITHIN_MS,
            what="the hand lowered on Cy's page",
        )

        # a plan of four steps, saved with another class and loaded here by its code: a view
        # with its settings, the teacher's own question, another view, a lesson's question
        teacher.page.get_by_text("Plan this class").click()
        teacher.page.get_by_role("textbox", name="Plan code").fill(_saved_plan(fresh_db))
        teacher.click("Load the plan")
        try:
            teacher.text("Loaded the plan Week 3: 4 steps")
        except Exception:
            pytest.fail("no plan loaded; the teacher's page says:\n" + _page_text(teacher)[-3000:])
        _next_step(teacher)  # 1: the class and the teacher's page go to ALiBi's slopes at 4 heads
        for person in (teacher, ada, bo, cy):
            _until_on(person, view="slopes", heads="4")
        teacher.text("Step 1 of 4")
        # the plan's address names two settings, the pages write all of theirs: still this view
        teacher.text(f"Class {new.code} is on this view.", timeout=FOLLOW_WITHIN_MS)
        _next_step(teacher)  # 2: the own question opens; everyone is taken to the class page
        for student in (ada, bo, cy):
            student.text("Which pair turns", timeout=FOLLOW_WITHIN_MS)
        # as typed: no markup comes out of it (word joiners keep a link from being guessed)
        shown = ada.page.locator('[data-testid="stMain"] h4').first.inner_text().replace("\u2060", "")
        assert shown == OWN_PROMPT and ada.page.locator('[data-testid="stMain"] b').count() == 0
        ada.page.locator('[data-testid="stRadio"]').get_by_text(OWN_OPTIONS[0], exact=True).click()
        ada.click("Send my answer")
        try:
            ada.text("Counted:")
        except Exception:
            pytest.fail(f"no count at {ada.page.url}; the student's page says:\n" + _page_text(ada)[-2500:])
        teacher.text("1 of 3 students answered", timeout=COUNT_WITHIN_MS)
        teacher.click("Reveal")
        ada.text("The answer:", timeout=FOLLOW_WITHIN_MS)
        ada.text(OWN_WHY.split(" of ")[0])
        _next_step(teacher)  # 3: to the sinusoids' waves
        for person in (teacher, ada, bo, cy):
            _until_on(person, view="waves")
        _next_step(teacher)  # 4: a lesson's question, on the class page again
        for student in (ada, bo, cy):
            student.text(POLL.options[0], timeout=FOLLOW_WITHIN_MS)
        teacher.text("Step 4 of 4")
        for person in (teacher, ada, bo, cy):
            assert not person.reloaded(), "follow me works without loading a page again"
            person.no_exception()
            assert not person.outside, f"requests left localhost: {person.outside[:5]}"


# 8. a drawn prediction: by finger on a phone, by keyboard on a laptop

SKETCH_POLL = lessons.COURSE.poll_by_key("poll-sinusoidal-sketch-similarity")


def _touch_stroke(person: _Person, points: list[tuple[float, float]]) -> None:
    """A finger drawn across the page through ``points`` (CSS px), as the phone's touch screen
    sends it (Chromium turns the touches into pointer events of type touch)."""
    cdp = person.context.new_cdp_session(person.page)
    x, y = points[0]
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for x, y in points[1:]:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


SENDABLE_JS = """() => [...document.querySelectorAll('button')]
  .some(b => b.innerText.includes('Send my sketch') && !b.disabled)"""


def _until_sendable(student: _Person) -> None:
    """Until the sketch has reached the app: its Send button wakes up."""
    wait_until(student.page, SENDABLE_JS, timeout_ms=FOLLOW_WITHIN_MS, what="Send my sketch enabled")


def test_students_draw_a_prediction_by_finger_and_by_keyboard_and_the_reveal_draws_the_curve(browser, tmp_path):
    db = pg_support.fresh_sqlite_url(tmp_path)
    new = _new_class(db, "Sketch it")
    with (
        class_server(db) as base,
        people(browser, (PROJECTOR, False), (PHONE, True), (LAPTOP, False)) as (teacher, ada, bo),
    ):
        _continue_teaching(teacher, base, new.code, new.teacher_key, present=True)
        _join_by_link(ada, base, new.code, "Ada")
        _join_by_link(bo, base, new.code, "Bo")
        store = class_store.open_store(db)
        try:  # the question opened as the picker does (the picker itself: the other tests)
            store.open_poll(new.code, new.teacher_key, SKETCH_POLL.key)
        finally:
            store.close()
        for student in (ada, bo):
            student.text("Draw your curve here", timeout=FOLLOW_WITHIN_MS)

        # Ada draws with a finger: high on the left, falling to the right
        area = ada.page.locator(".posenc-sketch svg").first
        area.scroll_into_view_if_needed()
        box = area.bounding_box()
        left, top, w, h = box["x"], box["y"], box["width"], box["height"]
        stroke = [(left + w * (0.1 + 0.9 * k / 30), top + h * (0.08 + 0.7 * (k / 30) ** 0.5)) for k in range(31)]
        _touch_stroke(ada, stroke)
        ada.text("your curve is at")
        ada.shot("sketch_student_phone.png", anchor="Sketch PE[0]")
        _until_sendable(ada)
        ada.click("Send my sketch")
        ada.text("Counted:")

        # Bo draws with the keyboard: the area takes the focus, arrows set each point
        bo.page.locator(".posenc-sketch svg").first.focus()
        keys = ["Shift+ArrowUp"] * 4 + ["ArrowRight", "Shift+ArrowUp", "ArrowRight", "ArrowUp"]
        for n, key in enumerate(keys):
            bo.page.keyboard.press(key)
            if key.endswith("ArrowUp") and keys[n + 1 : n + 2] == ["ArrowRight"]:
                # at a person's pace: the value just sent comes back in a rerun before the next
                # key, which must keep the point picked and the presses since (it once reset them)
                bo.page.wait_for_timeout(700)
        bo.text("Point 3 of 24")
        _until_sendable(bo)
        bo.click("Send my sketch")
        bo.text("Counted:")

        teacher.text("2 of 2 students answered", timeout=COUNT_WITHIN_MS)
        teacher.click("Close the vote")
        teacher.text("Sketches (2)", timeout=COUNT_WITHIN_MS)
        teacher.click("Reveal")
        for student in (ada, bo):
            wait_for_text(student.page, re.compile(r"Your sketch lies \d+% of the height"), FOLLOW_WITHIN_MS)
        # the measured curve over the class's sketches, on the projector
        wait_shown(teacher.page.locator(".js-plotly-plot .legendtext", has_text="measured").first, COUNT_WITHIN_MS)
        teacher.shot("sketch_teacher_reveal_present.png", anchor="Sketch PE[0]")
        ada.shot("sketch_student_reveal_phone.png", anchor="The answer:")
        store = class_store.open_store(db)
        try:
            rnd = store.current_round(new.code)
            votes = [vote for vote, _ in store.votes(rnd.id)]
        finally:
            store.close()
        drawn = [sketches.decode(v) for v in votes]
        assert all(d is not None for d in drawn)
        finger = next(d for d in drawn if d[0] > 0.7)  # Ada's: high on the left, falling
        assert finger[0] > finger[-1] + 0.3 and np.all(np.diff(finger) <= 0.02)
        keys = next(d for d in drawn if d is not finger)
        assert list(np.round(keys[:3] * 100)) == [90.0, 60.0, 51.0]  # 50, then +40 / +10 / +1
        for person in (teacher, ada, bo):
            person.no_exception()
            assert not person.reloaded()
            assert not person.outside, f"requests left localhost: {person.outside[:5]}"


# issue 49: class mode that never glitches in front of a room


class _SlowFiles:
    """A TCP relay in front of the app that holds each request for a CSV file under /media/
    ``delay`` seconds before passing it on, as a classroom's wifi or a busy server delays the
    browser's fetch of a file after the press; everything else (the page, the websocket) goes
    through at once. ``url`` is its address; ``held`` counts the requests it held."""

    def __init__(self, port: int, delay: float):
        self.port, self.delay, self.held = port, delay, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self.port))
            except OSError:
                return  # closed
            self.sockets += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, requests: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                # a browser sends a request's head in one write: the first line names the file
                if requests and data.startswith(b"GET /media/") and b".csv" in data.split(b"\r\n", 1)[0]:
                    self.held += 1
                    time.sleep(self.delay)
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        for sock in (self.listener, *self.sockets):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes a pipe waiting on it (close alone does not)
            sock.close()


#: how long the relay holds the browser's fetch of a file: longer than the two script runs
#: after which Streamlit deleted a file made on a press (the teacher's page runs twice a second)
SLOW_FETCH_S = 1.5
#: the presses of each download button: without the kept files every press failed (0 of 20
#: in a run of ten each), so five each in the suite tell the same
PRESSES = 5


def _download(person: _Person, label: str) -> list[list[str]] | str:
    """Press the download button ``label``: the rows of the CSV file the browser saved, or why
    there was no file."""
    try:
        with person.page.expect_download(timeout=budget_ms(20_000)) as info:
            person.page.get_by_role("button", name=label).click()
        path = info.value.path()  # once the file is whole; raises for a download that failed
    except Exception as exc:  # noqa: BLE001 - every way a press fails is a finding, said as it is
        return f"no file: {str(exc).splitlines()[0]}"
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.reader(file))


def test_the_teachers_files_download_every_time_through_nginx_and_a_slow_network(browser, tmp_path):
    """The gradebook and the summary, PRESSES presses each, by a teacher whose page runs its checks
    every second, through deploy/run_two.sh (two app processes behind nginx, sticky by cookie)
    and a network that takes SLOW_FETCH_S to bring each file's request to nginx: every press
    gives the whole file, served by the process that holds the teacher's session."""
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        pytest.skip("nginx is not installed")
    db = pg_support.fresh_sqlite_url(tmp_path)
    new = _new_class(db, "Gradebook")
    with class_store.open_store(db) as store:
        students = [store.join(new.code, name, client=name) for name in ("Ada", "Bo")]
        rnd = store.open_poll(new.code, new.teacher_key, POLL.key)
        for student, vote in zip(students, (RIGHT, WRONG), strict=True):
            store.answer(rnd.id, student.student_id, str(vote), vote == RIGHT)
        store.close_round(new.code, new.teacher_key)
    title = class_views.class_questions.poll_label(lessons.COURSE, POLL, cut=False)
    expected = {
        # the question's columns first, right after the name and the join time (the rest of the
        # header: tests/test_page_class_grades.py)
        "Gradebook (CSV)": (["student", "joined", f"{title} (round 1)"], 1 + len(students)),
        "Summary by question (CSV)": (list(report.SUMMARY_COLUMNS), 2),
    }
    run_dir, proxy, env = nginx_pair_env(db, "posenc-deploy-")
    script = [str(ROOT / "deploy" / "run_two.sh")]
    slow = None
    try:
        subprocess.run([*script, "start"], cwd=ROOT, env=env, check=True, timeout=budget_s(150), capture_output=True)
        slow = _SlowFiles(proxy, SLOW_FETCH_S)
        with people(browser, (DESKTOP, False)) as (teacher,):
            _continue_teaching(teacher, slow.url, new.code, new.teacher_key)
            teacher.text("Results so far")
            # the page's requests for files under /media/ that have had no answer yet
            waiting: set = set()
            teacher.page.on("request", lambda r: waiting.add(r) if "/media/" in r.url else None)
            for done in ("requestfinished", "requestfailed"):
                teacher.page.on(done, lambda r: waiting.discard(r))
            runs_before = teacher.answers.count
            found = []
            for label, (header, rows) in expected.items():
                for press in range(1, PRESSES + 1):
                    got = _download(teacher, label)
                    if isinstance(got, str) or got[0][: len(header)] != header or len(got) != rows:
                        found.append(f"{label}, press {press}: {got if isinstance(got, str) else got[:1]}")
            # the page ran its one-second checks meanwhile (each run's messages came in)
            assert teacher.answers.count > runs_before + 2 * PRESSES
            assert slow.held >= 2 * PRESSES, "the files' requests did not go through the slow network"
            assert found == [], f"{len(found)} of {2 * PRESSES} presses gave no whole file: " + "; ".join(found)
            teacher.no_exception()
            # the page's own check of the last file's address (Streamlit's frontend fetches it
            # beside the download) is still on the slow network: its answer comes before nginx's
            # log is read, where a request the closing tab dropped would say 499
            deadline = time.monotonic() + WAIT_MS / 1000
            while waiting and time.monotonic() < deadline:
                teacher.page.wait_for_timeout(50)  # Playwright delivers the requests' events meanwhile
            assert not waiting, f"requests still unanswered: {[r.url for r in waiting]}"
    finally:
        if slow is not None:
            slow.close()
        subprocess.run([*script, "stop"], cwd=ROOT, env=env, check=False, timeout=budget_s(60), capture_output=True)
        logged = (Path(run_dir) / "logs" / "access.log").read_text() if Path(run_dir, "logs").exists() else ""
        shutil.rmtree(run_dir, ignore_errors=True)
    # nginx's log: every file asked for was there, on the process that ran the teacher's session
    line = re.compile(r'"GET (\S+) HTTP/[\d.]+" (\d+) .*upstream=(\S+)')
    requests = [m.groups() for m in map(line.search, logged.splitlines()) if m]
    files = [(status, upstream) for path, status, upstream in requests if path.startswith("/media/")]
    sessions = {upstream for path, status, upstream in requests if path == "/_stcore/stream"}
    said = [line for line in logged.splitlines() if "/media/" in line or "/_stcore/stream" in line]
    assert len(files) >= 2 * PRESSES and len(sessions) == 1, said
    assert {status for status, _ in files} == {"200"} and {upstream for _, upstream in files} == sessions, said


#: a teacher's question with Streamlit's shortcodes in it: an icon, an emoji, a colour
SHORTCODE_PROMPT = "Which turns faster :material/home: or :smile: :red[pair 0]?"
SHORTCODE_OPTIONS = (":material/home: pair 0", ":smile: pair 31")


def test_a_teachers_question_shows_its_shortcodes_as_typed(browser, tmp_path):
    """Issue 49: ":material/home:" typed in a question showed as ":material_home:" on the
    projector and the students' screens."""
    db = pg_support.fresh_sqlite_url(tmp_path)
    new = _new_class(db, "Shortcodes")
    with class_store.open_store(db) as store:
        own = store.add_question(
            new.code, new.teacher_key, class_store.Question(SHORTCODE_PROMPT, SHORTCODE_OPTIONS, 0)
        )
        store.open_poll(new.code, new.teacher_key, own.key)
    with class_server(db) as base, people(browser, (PROJECTOR, False), (PHONE, True)) as (teacher, ada):
        _continue_teaching(teacher, base, new.code, new.teacher_key, present=True)
        _join_by_link(ada, base, new.code, "Ada")
        for person in (teacher, ada):
            heading = person.page.locator('[data-testid="stMain"] h4', has_text="Which turns").first
            wait_shown(heading, FOLLOW_WITHIN_MS)
            assert heading.inner_text().replace("\u2060", "") == SHORTCODE_PROMPT
            assert heading.locator('[role="img"]').count() == 0  # how Markdown draws an icon or the logo
        options = ada.page.locator('[data-testid="stRadio"] [role="radiogroup"] label')
        shown = sorted(options.nth(i).inner_text().replace("\u2060", "").strip() for i in range(options.count()))
        assert shown == sorted(SHORTCODE_OPTIONS)
        for person in (teacher, ada):
            person.no_exception()


# issue 49, 1.3: a late timer tick of the page a student left


class _LateTick:
    """Stands between one tab and the server (Playwright's WebSocket route) and, once armed,
    sends the server what a busy browser sends: the left page's ``run_every`` timer tick,
    arriving while the server already runs the page the student was sent to."""

    def __init__(self, page):
        self.page_hash = ""  # the page the server's last navigation resolved
        self.ticking: dict[str, str] = {}  # page hash -> a run_every fragment drawn there
        self.last_rerun = None  # the tab's last rerun_script (its query string and widgets)
        self.left = ""  # once armed: the page the tick is from
        self.sent_at: int | None = None  # the index in ``runs`` at the injection
        self.runs: list[tuple[str, tuple[str, ...]]] = []  # (page hash, fragments) of each run
        self.finished: list[tuple[str, ...]] = []  # the fragments of each finished run
        page.route_web_socket(re.compile(r"/_stcore/stream$"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        ws.on_message(lambda message: self._from_page(message, server))
        server.on_message(lambda message: self._from_server(message, ws, server))

    def _from_page(self, message, server) -> None:
        if isinstance(message, bytes):
            back = BackMsg()
            back.ParseFromString(message)
            if back.WhichOneof("type") == "rerun_script":
                self.last_rerun = back.rerun_script
        server.send(message)

    def _from_server(self, message, ws, server) -> None:
        msg = ForwardMsg()
        msg.ParseFromString(message)
        kind = msg.WhichOneof("type")
        if kind == "navigation":
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "auto_rerun":
            self.ticking[self.page_hash] = msg.auto_rerun.fragment_id
        elif kind == "script_finished":
            self.finished.append(tuple(msg.metadata.run.fragment_ids))
        elif kind == "new_session":
            run = (msg.new_session.page_script_hash, tuple(msg.metadata.run.fragment_ids))
            self.runs.append(run)
            if self.left and self.sent_at is None and not run[1] and run[0] != self.left:
                self.sent_at = len(self.runs) - 1
                server.send(self._tick())
        ws.send(message)

    def _tick(self) -> bytes:
        back = BackMsg()
        tick = back.rerun_script
        tick.CopyFrom(self.last_rerun)
        tick.page_script_hash, tick.page_name = self.left, ""
        tick.fragment_id, tick.is_auto_rerun = self.ticking[self.left], True
        return back.SerializeToString()

    def arm(self) -> None:
        """From now on, the first full run of another page gets this page's late tick."""
        assert self.page_hash in self.ticking, "no run_every fragment on this page"
        self.left = self.page_hash

    def stale_runs(self) -> list[tuple[str, tuple[str, ...]]]:
        return [run for run in self.runs[self.sent_at :] if run[0] == self.left] if self.sent_at is not None else []


def _until(page, ready, what: str, seconds: float = 30) -> None:
    """Until ``ready()`` (a condition on what the route saw), within a scaled budget. The
    short waits let Playwright deliver the route's messages; none decides a verdict."""
    deadline = time.monotonic() + budget_s(seconds)
    while not ready():
        assert time.monotonic() < deadline, f"never: {what}\n{describe_page(page)}"
        page.wait_for_timeout(50)


def test_a_late_tick_of_the_page_left_never_clears_the_page_a_student_was_sent_to(browser, tmp_path):
    """A student's class page checks every second (a ``run_every`` fragment) and follows a
    send with ``st.switch_page``. On a busy machine the browser's next tick for that check
    reaches the server while the lesson's run is in progress; Streamlit ran it after the
    lesson, under the class page's hash, and the frontend cleared the lesson: the menu and
    the exercises without the lesson (issue 49, 1.3; posenc_lab/ui/stale_fragments.py). The
    tick is sent here at that moment, on a quiet machine too."""
    db = pg_support.fresh_sqlite_url(tmp_path)
    with class_store.open_store(db) as store:
        new = store.create_class("Late ticks")
    with class_server(db) as base, people(browser, (PHONE, True)) as (kim,):
        late = _LateTick(kim.page)
        _join_by_link(kim, base, new.code, "Kim")
        _until(kim.page, lambda: late.page_hash in late.ticking, "the class page's check drawn")
        late.arm()
        with class_store.open_store(db) as store:
            store.send_class(new.code, new.teacher_key, "rope?view=rotation&gap=3")
        _until(kim.page, lambda: late.sent_at is not None, "the lesson's run started (the late tick sent)")

        # the page's own next check on the lesson, answered: the server has run everything
        # queued before it, the late tick included
        def lesson_checked() -> bool:
            check = late.ticking.get(late.page_hash) if late.page_hash != late.left else None
            return check is not None and any(check in run for run in late.finished)

        _until(kim.page, lesson_checked, "the lesson's own check answered")
        assert kim.page.url.split("?")[0].endswith("/rope")
        # before the fix: the menu, the exercises and Previous / Next, and no lesson
        headings = kim.page.locator('[data-testid="stMain"] h1')
        assert headings.count() == 1 and "RoPE" in headings.first.inner_text(), describe_page(kim.page)
        assert late.stale_runs() == [], "the server ran the class page's check after the lesson"
        wait_ready(kim.page)
        kim.shot("h49_late_tick_phone.png")
