"""A scripted class in Chromium, checked at every step (issue 49's class soak).

Two app processes behind nginx (deploy/run_two.sh) on one SQLite file; a projector tab in
presenter mode that drives the plan (its Previous / Next, Open, Vote again, Reveal), a teacher
laptop that closes votes, sets a timer, shows one answer to the room and downloads the files,
a second teacher console on a phone that only watches, the room screen
(``/class?room=CODE``) on a second projector, three students (two phones, a laptop) and a
late joiner. The plan: a view, a multiple-choice question, a view, a number question, a sketch
question; each question through ``rounds`` rounds, with reloads along the way; then End and
Extend, and both downloads.

After every press and every change of the class, each page is checked: its app is drawn (not
blank), it shows no exception, the browser said no error of Streamlit's (a delta path, setIn,
a cached message, a lost connection), the projector is in presenter mode and shows nothing of
the teacher's private screen, a student with an open question sees its heading, and the press
acted once (the plan's step, the class's sends and the question's rounds moved by exactly one).
The room screen's whole DOM holds no teacher key, no student's name, nothing of the teacher's
private screen and none of the teacher's controls, at every check; it follows each step by
itself (the view, the question, the countdown, the closed vote, the answer shown, the
reveal); and the phone console shows the plan's step and the round as the database has them
(two consoles in step, without a touch).

``tools/class_soak.py`` runs it from the command line (``--runs 3``); the suite runs one short
class (tests/test_browser_class_soak.py).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from app_helpers import ROOT, nginx_pair_env
from browser_support import wait_idle
from test_browser_class import (
    DESKTOP,
    FOLLOW_WITHIN_MS,
    LAPTOP,
    PHONE,
    PROJECTOR,
    _continue_teaching,
    _download,
    _join_by_link,
    _Person,
)

from posenc_lab import course as lessons
from posenc_lab.classroom import store as class_store

CHOICE = lessons.COURSE.poll_by_key("poll-why_order-reverse")
NUMBER = lessons.COURSE.poll_by_key("poll-sinusoidal-full-turns")
SKETCH = lessons.COURSE.poll_by_key("poll-sinusoidal-sketch-similarity")
PLAN = (
    class_store.PlanStep("view", "alibi?heads=4&view=slopes", "Ask which head looks furthest."),
    class_store.PlanStep("question", CHOICE.key, "Predict first."),
    class_store.PlanStep("view", "sinusoidal?view=waves"),
    class_store.PlanStep("question", NUMBER.key),
    class_store.PlanStep("question", SKETCH.key),
)
#: what the browser says when Streamlit's frontend breaks (a blank page, a lost session)
STREAMLIT_ERRORS = re.compile(
    r"setIn|delta path|Bad delta|Cannot set a node|ForwardMsg|Connection error|Uncaught|stale|"
    r"StreamlitAPIException|Maximum update depth",
    re.IGNORECASE,
)
#: what only the teacher's own screen may show
PRIVATE = ("Where your students are", "Results so far", "Show my teacher key", "Running the class", "Plan this class")
#: the teacher's controls, which the room screen never draws
CONTROLS = ("Open the vote", "Close the vote", "Vote again", "Reveal", "Send the class here", "Show it to the room")
#: every student's name starts so: none may reach the room screen
NAME = "Pupil"
BLANK_JS = """() => { const a = document.querySelector('[data-testid="stApp"]');
  return !a || a.dataset.testScriptState === undefined; }"""


def _heading(poll) -> str:
    """The start of a question's heading as the page shows it (its Markdown marks dropped)."""
    return poll.prompt.replace("*", "")[:40]


@dataclass
class Findings:
    steps: int = 0
    problems: list[str] = field(default_factory=list)
    last: str = "the start"  # the last step checked

    def add(self, where: str, what: str) -> None:
        self.problems.append(f"{where}: {what}")


class _Watched(_Person):
    """A person whose browser's console errors of Streamlit's are kept."""

    def __init__(self, browser, viewport: dict, name: str, *, mobile: bool = False):
        super().__init__(browser, viewport, mobile=mobile)
        self.name = name
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {str(e)[:200]}"))

    def _console(self, message) -> None:
        if message.type == "error" and STREAMLIT_ERRORS.search(message.text):
            self.errors.append(message.text[:200])


class Soak:
    def __init__(self, browser, base: str, db: str, rounds: int, findings: Findings, short: bool = False):
        self.browser, self.base, self.db, self.rounds, self.found = browser, base, db, rounds, findings
        self.short = short  # the suite's class: the sketch question and the lesson reload left out
        self.store = class_store.open_store(db)
        new = self.store.create_class("Soak")
        self.code, self.key = new.code, new.teacher_key
        self.store.set_plan(self.code, self.key, list(PLAN))
        self.people: list[_Watched] = []
        self.open_poll = None  # the question students should see, or None

    def person(self, viewport: dict, name: str, *, mobile: bool = False) -> _Watched:
        made = _Watched(self.browser, viewport, name, mobile=mobile)
        self.people.append(made)
        return made

    def close(self) -> None:
        for person in self.people:
            person.close()
        self.store.close()

    # the checks made after every step

    def check(self, step: str) -> None:
        self.found.steps += 1
        self.found.last = step
        for person in self.people:
            where = f"{step} / {person.name}"
            if person.page.evaluate(BLANK_JS):
                self.found.add(where, "blank page")
                continue
            if person.page.locator('[data-testid="stException"]').count():
                self.found.add(where, "an exception on the page")
            while person.errors:
                self.found.add(where, "browser console: " + person.errors.pop(0))
        projector = self.projector
        if not projector.presenting():
            self.found.add(f"{step} / projector", "presenter mode is off")
        shown = projector.page.evaluate("() => document.documentElement.innerText")
        for private in PRIVATE:
            if private in shown:
                self.found.add(f"{step} / projector", f"shows the teacher's {private!r}")
        # the room screen: its whole DOM, not only what shows (a hidden element is sent too)
        html = self.room.page.content()
        for secret, what in ((self.key, "the teacher key"), (NAME, "a student's name")):
            if secret in html:
                self.found.add(f"{step} / room screen", f"holds {what}")
        for private in (*PRIVATE, *CONTROLS):
            if private in html:
                self.found.add(f"{step} / room screen", f"holds the teacher's {private!r}")
        self._consoles_in_step(step)

    def _consoles_in_step(self, step: str) -> None:
        """The phone console shows the plan's step and the round's state as the database has
        them, whichever device moved them (its console is a check that draws the plan bar, the
        question controls and the results every second, in the same places at every state)."""
        plan = self.store.class_plan(self.code)
        # an ended class has no plan bar (nothing can be sent); Extend brings it back
        shown = plan.at >= 0 and self.store.is_open(self.code)
        want = [f"Step {plan.at + 1} of {len(plan.steps)}"] if shown else []
        current = self.store.current_round(self.code)
        if current is not None:
            status = "voting" if current.closed is None else ("revealed" if current.revealed else "closed")
            want.append(f"in round {current.number} ({status})")
        for text in want:
            try:
                self.phone_console.text(text, timeout=FOLLOW_WITHIN_MS)
            except Exception:  # noqa: BLE001 - a console out of step is the finding
                self.found.add(f"{step} / phone console", f"out of step: never showed {text!r}")

    def headings(self, step: str, students) -> None:
        """Each student on the class page with the open question sees its heading."""
        if self.open_poll is None:
            return
        for student in students:
            try:
                student.page.get_by_text(_heading(self.open_poll)).first.wait_for(timeout=FOLLOW_WITHIN_MS)
            except Exception:  # noqa: BLE001 - a missing heading is the finding
                self.found.add(f"{step} / {student.name}", f"no heading {_heading(self.open_poll)!r}")

    # the class's state, read from the database (what a press must change exactly once)

    def state(self) -> tuple[int, int, int]:
        """(the plan's step, the class's sends, the rounds of every question)."""
        plan = self.store.class_plan(self.code)
        follow = self.store.follow(self.code)
        rounds = sum(len(self.store.rounds(self.code, key)) for key in (CHOICE.key, NUMBER.key, SKETCH.key))
        return plan.at, follow.seq if follow is not None else 0, rounds

    def press(self, person: _Watched, name, step: str, moves: tuple[int, int, int], switch: bool = False) -> None:
        """Press the button ``name`` (or the switch, with ``switch``) on ``person``'s page, then
        check the class moved by ``moves`` exactly (the plan's step, the sends, the rounds),
        and every page."""
        before = self.state()
        try:
            if switch:
                answered = person.answers.count
                person.page.get_by_text(name).click()
                person.answers.wait_after(answered, 30)
                wait_idle(person.page)
            else:
                person.click(name)
        except Exception as exc:  # noqa: BLE001 - a press that could not be made is the finding
            self.found.add(f"{step} / {person.name}", f"could not press {name!r}: {str(exc).splitlines()[0]}")
            return
        # the press's own run has ended (``click`` waits for it); a second action of one press
        # (the 0.13 s double step) would come within the next check, so one more is waited for
        person.page.wait_for_timeout(1200)
        after = self.state()
        moved = tuple(a - b for a, b in zip(after, before, strict=True))
        if moved != moves:
            self.found.add(f"{step} / {person.name}", f"{name!r} moved (step, sends, rounds) by {moved}, not {moves}")
        self.check(f"{step}: {name}")

    # the scenario

    def run(self) -> None:
        self.projector = self.person(PROJECTOR, "projector")
        laptop = self.person(DESKTOP, "teacher laptop")
        self.phone_console = self.person(PHONE, "phone console", mobile=True)
        self.room = self.person(PROJECTOR, "room screen")
        students = [
            self.person(PHONE, "phone 1", mobile=True),
            self.person(PHONE, "phone 2", mobile=True),
            self.person(LAPTOP, "student laptop"),
        ]
        _continue_teaching(self.projector, self.base, self.code, self.key, present=True)
        _continue_teaching(laptop, self.base, self.code, self.key)
        _continue_teaching(self.phone_console, self.base, self.code, self.key)
        self.room.go(f"{self.base}/class?room={self.code}&present=1")
        for n, student in enumerate(students):
            _join_by_link(student, self.base, self.code, f"{NAME} {n + 1}")
        self._until_text([self.room], "joined", "the room's join screen")
        self.check("everyone in")

        # 1. a view: the class goes there
        self.press(self.projector, re.compile(r"^Next"), "step 1", (1, 1, 0))
        self._until_followed(students, "/alibi", "step 1")
        self._until_text([self.room], "The class is on", "step 1: the room")
        # the class held from the projector: the plan's Next must still send it once a press
        # (a held page sent the class back to itself before the step's view, a second move)
        self.press(self.projector, "Hold the class here", "step 1 held", (0, 1, 0), switch=True)

        # 2. the multiple choice, through the rounds
        self._question(self.projector, laptop, students, CHOICE, "step 2", self._choose)

        # 3. a view
        self.press(self.projector, re.compile(r"^Next"), "step 3", (1, 1, 0))
        self._until_followed(students, "/sinusoidal", "step 3")
        self._until_text([self.room], "The class is on", "step 3: the room")
        if not self.short:
            students[0].page.reload()  # a phone reloads on a lesson
            wait_idle(students[0].page)
            self.check("step 3: a phone reloaded")

        # 4. the number question; a late joiner comes in while it is open
        students.append(self._question(self.projector, laptop, students, NUMBER, "step 4", self._number, late=True))

        if not self.short:
            # 5. the sketch question
            self._question(self.projector, laptop, students, SKETCH, "step 5", self._sketch)

        # End and Extend: the students' pages follow both
        laptop.page.get_by_role("button", name="End class now").click()
        self.press(laptop, "End the class for everyone", "end", (0, 0, 0))
        self._until_text(students, "has ended", "end")
        self.press(laptop, "Extend by an hour", "extend", (0, 0, 0))
        for student in students:
            try:
                student.page.get_by_text("has ended").first.wait_for(state="detached", timeout=FOLLOW_WITHIN_MS)
            except Exception:  # noqa: BLE001
                self.found.add(f"extend / {student.name}", "still says the class has ended")
        self.check("extended")

        # both downloads, each a file
        for label in ("Gradebook (CSV)", "Summary by question (CSV)"):
            got = _download(laptop, label)
            if isinstance(got, str) or not got:
                self.found.add(f"download / {label}", got if isinstance(got, str) else "an empty file")
        self.check("downloads")

    def _question(self, projector, laptop, students, poll, step, answer, late: bool = False):
        """Open the plan's next step (``poll``), run its rounds, reveal it; the late joiner, if
        one comes in while it is open."""
        self.press(projector, re.compile(r"^Next"), f"{step} open", (1, 1, 1))
        self.open_poll = poll
        self._until_on_class_page(students, step)
        self._until_text([self.room], _heading(poll), f"{step}: the room")
        if late:
            late = self.person(PHONE, "late joiner", mobile=True)
            _join_by_link(late, self.base, self.code, f"{NAME} late")
            self._until_on_class_page([late], step)
            students = [*students, late]
        for number in range(1, self.rounds + 1):
            label = f"{step} round {number}"
            if number > 1:
                self.press(projector, "Vote again", label, (0, 0, 1))
            self.headings(label, students)
            for n, student in enumerate(students):
                answer(student, poll, n + number, label)
            if number == 1:
                students[-1].page.reload()  # a student reloads mid-vote: the answer stays counted
                wait_idle(students[-1].page)
                self._until_text(students[-1:], "Counted:", f"{label}: a student reloaded")
                if late:
                    # a timer from the laptop: the room counts it down by itself
                    self.press(laptop, "2 min", f"{label}: a timer", (0, 0, 0))
                    self._until_text([self.room], "left", f"{label}: the room's countdown")
            self.headings(label, students)
            self.press(laptop, "Close the vote", f"{label} closed", (0, 0, 0))
            self._until_text([self.room], "voting closed", f"{label}: the room")
            if late and number == 1:
                # one answer shown to the room, without its name
                self.press(laptop, "Show it to the room", f"{label}: an answer shown", (0, 0, 0))
                self._until_text([self.room], "One answer from the class", f"{label}: the room")
        projector.page.reload()  # the projector reloads: still presenting, still the teacher's
        wait_idle(projector.page)
        self.check(f"{step}: the projector reloaded")
        self.press(projector, "Reveal", f"{step} reveal", (0, 0, 0))
        self._until_text([*students, self.room], "The answer", f"{step} reveal")
        self.open_poll = None
        return late

    def _choose(self, student, poll, n: int, step: str) -> None:
        option = poll.options[n % len(poll.options)]
        try:
            student.page.locator('[data-testid="stRadio"]').get_by_text(option, exact=True).click(
                timeout=FOLLOW_WITHIN_MS
            )
        except Exception as exc:  # noqa: BLE001
            self.found.add(f"{step} / {student.name}", f"no option {option!r}: {str(exc).splitlines()[0]}")
            return
        self._send(student, step)

    def _number(self, student, poll, n: int, step: str) -> None:
        box = student.page.get_by_label(re.compile(r"^Your answer"))
        try:
            box.fill(str(100 + 10 * n), timeout=FOLLOW_WITHIN_MS)
        except Exception as exc:  # noqa: BLE001
            self.found.add(f"{step} / {student.name}", f"no answer box: {str(exc).splitlines()[0]}")
            return
        self._send(student, step)

    def _sketch(self, student, poll, n: int, step: str) -> None:
        area = student.page.locator(".posenc-sketch svg").first
        try:
            area.focus(timeout=FOLLOW_WITHIN_MS)
        except Exception as exc:  # noqa: BLE001
            self.found.add(f"{step} / {student.name}", f"no drawing area: {str(exc).splitlines()[0]}")
            return
        for key in ["Shift+ArrowUp"] * (1 + n % 3) + ["ArrowRight", "ArrowDown"]:
            student.page.keyboard.press(key)
        try:
            student.page.wait_for_function(
                """() => [...document.querySelectorAll('button')].some(b =>
                   /(Send|Change) my sketch/.test(b.innerText) && !b.disabled)""",
                timeout=FOLLOW_WITHIN_MS,
            )
        except Exception:  # noqa: BLE001
            self.found.add(f"{step} / {student.name}", "the sketch never reached the app")
            return
        self._send(student, step, sketch=True)

    def _send(self, student, step: str, sketch: bool = False) -> None:
        what = "sketch" if sketch else "answer"
        name = re.compile(rf"^(Send|Change) my {what}$")
        try:
            student.click(name)
            student.text("Counted:", timeout=FOLLOW_WITHIN_MS)
        except Exception as exc:  # noqa: BLE001
            self.found.add(f"{step} / {student.name}", f"answer not counted: {str(exc).splitlines()[0]}")

    def _until_followed(self, students, path: str, step: str) -> None:
        for student in students:
            deadline = time.monotonic() + FOLLOW_WITHIN_MS / 1000
            while f"{self.base}{path}" not in student.page.url and time.monotonic() < deadline:
                student.page.wait_for_timeout(100)
            if f"{self.base}{path}" not in student.page.url:
                self.found.add(f"{step} / {student.name}", f"not on {path}: {student.page.url}")
            else:
                wait_idle(student.page)
        self.check(f"{step}: followed")

    def _until_on_class_page(self, students, step: str) -> None:
        self._until_followed(students, "/class", step)

    def _until_text(self, people, text: str, step: str) -> None:
        for person in people:
            try:
                person.text(text, timeout=FOLLOW_WITHIN_MS)
            except Exception:  # noqa: BLE001
                self.found.add(f"{step} / {person.name}", f"never showed {text!r}")
        self.check(f"{step}: seen")


def run_classes(browser, runs: int = 1, rounds: int = 2, short: bool = False) -> Findings:
    """``runs`` scripted classes in a row, each on two fresh app processes behind nginx and
    a fresh SQLite file; what went wrong, step by step. ``short``: without the sketch question
    and a phone's reload on a lesson (the suite's class)."""
    found = Findings()
    for _ in range(runs):
        folder = tempfile.mkdtemp(prefix="posenc-soak-db-")
        db = f"sqlite:///{folder}/class.db"
        run_dir, proxy, env = nginx_pair_env(db, "posenc-soak-")
        script = [str(ROOT / "deploy" / "run_two.sh")]
        soak = None
        try:
            subprocess.run([*script, "start"], cwd=ROOT, env=env, check=True, timeout=150, capture_output=True)
            soak = Soak(browser, f"http://127.0.0.1:{proxy}", db, rounds, found, short)
            try:
                soak.run()
            except Exception as exc:  # noqa: BLE001 - the class could not go on: said, with what came before
                # the whole message: a PageTimeout says which page and what it showed
                found.add(f"the class stopped after {found.last}", f"{type(exc).__name__}: {str(exc)[:1500]}")
        finally:
            if soak is not None:
                soak.close()
            subprocess.run([*script, "stop"], cwd=ROOT, env=env, check=False, timeout=60, capture_output=True)
            shutil.rmtree(run_dir, ignore_errors=True)
            shutil.rmtree(folder, ignore_errors=True)
    return found


def nginx_installed() -> bool:
    return shutil.which("nginx") is not None or Path("/usr/sbin/nginx").exists()
