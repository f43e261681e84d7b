"""A lesson's record (what it is called, what it answers, its views and its exercises) and
the course that puts the records in order.

Each lesson is a folder of ``posenc_lab/lessons/``; its ``lesson.py`` makes one ``Lesson``
and registers its views on it::

    LESSON = Lesson(__file__, "RoPE", "rope", question="...", exercises=exercises.EXERCISES)

    @LESSON.intro
    def intro() -> dict:                   # drawn above every view
        head_dim = state.int_slider(...)
        return {"head_dim": head_dim}      # handed to the view as keyword arguments

    @LESSON.view("rotation", "Rotation")
    def rotation(head_dim: int) -> None:   # one figure set
        ...

and its ``page.py`` is what Streamlit runs: it imports the record and calls ``show()``, so
the views are defined once per process and a page run draws the very record the menu, the
view picker, the URL's ``view`` parameter, the home page, the exercises and the page budget
read. ``posenc_lab.course`` orders the records into a ``Course`` and hands it to each of
them (``lesson.course``, ``lesson.number``): the shell and the class page read the course
they are given, never import the lessons, so no import runs from ``ui`` back to a lesson.
Class mode is reached the same way: the course holds it (``Course.class_mode``, a
``ClassMode``), and the shell and the exercises call it there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from posenc_lab.ui import layout
from posenc_lab.ui.exercise_kinds import Exercise, Guided

#: the folder that holds the ``posenc_lab`` package (a checkout's root)
_PACKAGES = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class View:
    key: str  # the URL's ``view`` value
    label: str  # shown in the view picker
    draw: Callable[..., None]  # (**intro settings) -> None


@dataclass(eq=False)
class Lesson:
    file: str  # the lesson's ``__file__``
    title: str
    url_path: str
    question: str = ""  # what the lesson answers, on the home page
    icon: str = ""  # a Material icon (Streamlit serves its font itself; emoji need an emoji font)
    #: the lesson's exercises (``ui.exercise_kinds``), shown at the end of the page
    exercises: tuple = ()
    #: the skills its variant exercises practise, key -> label (an exercise's ``skill``);
    #: mastery is counted per skill (``ui.mastery``)
    skills: dict[str, str] = field(default_factory=dict)
    #: the lesson's "predict before you see it" questions for class mode (``classroom.poll.Poll``)
    polls: tuple = ()
    #: the largest URL settings the page allows (the page budget benchmark measures them)
    largest: dict[str, str] = field(default_factory=dict)
    #: URL names the lesson has renamed, old -> now: a link with an old name still opens
    #: with its value (``ui.state``), and the address bar then shows the name now
    renamed: dict[str, str] = field(default_factory=dict)
    #: key -> view, in the order of the picker; empty for a lesson of one figure set
    views: dict[str, View] = field(default_factory=dict)
    _intro: Callable[[], dict[str, Any] | None] | None = None
    #: the course this lesson belongs to, and its number on the path (None off the path);
    #: set by ``Course``
    course: Course | None = field(default=None, repr=False)
    number: int | None = None

    @property
    def name(self) -> str:
        """The lesson's folder name (``rope``)."""
        return Path(self.file).parent.name

    @functools.cached_property
    def page_file(self) -> str:
        """The absolute path of the page Streamlit runs (``st.Page``, ``st.page_link``):
        right from a checkout's ``app.py`` and from the installed ``posenc_lab/app.py``.
        Resolved once: every run's menu, navigation and links ask for it (a realpath each
        time was a fifth of the shell's CPU when a class followed its teacher)."""
        return str(Path(self.file).with_name("page.py").resolve())

    @functools.cached_property
    def path(self) -> str:
        """The page file relative to the folder that holds ``posenc_lab`` (a checkout's
        root, where ``app.py`` is): what AppTest's ``switch_page`` takes, and the lesson's
        identifier in the tests and benchmarks."""
        return Path(self.file).with_name("page.py").resolve().relative_to(_PACKAGES).as_posix()

    def intro(self, draw: Callable[[], dict[str, Any] | None]):
        """Register what is drawn above every view (or, in a lesson without views, the
        page). It returns the settings every view takes, as keyword arguments."""
        self._intro = draw
        return draw

    #: a lesson of one figure set registers its whole page the same way
    page = intro

    def view(self, key: str, label: str):
        """Register a view: ``@LESSON.view("key", "Label")`` above its function."""

        def register(draw: Callable[..., None]):
            if key in self.views:
                raise ValueError(f"lesson {self.title!r}: view {key!r} is registered twice")
            self.views[key] = View(key, label, draw)
            return draw

        return register

    @property
    def view_labels(self) -> dict[str, str]:
        return {key: view.label for key, view in self.views.items()}

    def show(self) -> None:
        """Draw the page. A numbered lesson is drawn as a fragment
        (``ui.layout.lesson_body``): a move of its controls reruns the lesson alone."""
        if self.number is not None:
            layout.lesson_body(self)
        else:
            self.draw()

    def draw(self) -> None:
        """The intro, then the view the URL (or the picker) names."""
        settings = (self._intro() if self._intro else None) or {}
        if self.views:
            self.views[layout.view_picker(self)].draw(**settings)


class ClassMode(Protocol):
    """Class mode's part of every page, as the shell and the exercises call it: the course
    holds it (``posenc_lab.classroom.hooks`` is the one), so ``ui`` imports nothing of class
    mode and the layers run one way (``tests/test_layers.py``)."""

    def follow_link(self) -> None:
        """Keep a student's class link in the address bar (early in every run)."""

    def share_view(self) -> None:
        """At the foot of a lesson: the view's own link, without the class."""

    def bars(self, course: Course, url_path: str) -> None:
        """Above the page at ``url_path``, last in the run: the class's bars, if any."""

    def restore_solved(self, solved: set[str], valid: set[str]) -> None:
        """Add to ``solved`` what the class holds of this student's exercises."""

    def record_attempt(self, key: str, answer: str, right: bool) -> None:
        """Send a checked answer to the class, if this session is in one."""

    def leave(self) -> None:
        """This session leaves its class."""

    def seed(self) -> str | None:
        """The seed a student in a class draws variants from (None: the browser's own)."""

    def restore_practice(self, practice: set[str], keys: set[str]) -> None:
        """Add to ``practice`` what the class holds of this student's practice record."""

    def record_practice(self, entries: set[str]) -> None:
        """Send the practice record's new ``entries`` to the class, if this session is in one."""


@dataclass(eq=False)
class Course:
    """The app's pages in order: the start page, the class page, the numbered lessons of the
    path and the reference pages. Made once (``posenc_lab.course.COURSE``); it numbers the
    lessons of the path and hands itself to every record."""

    home: Lesson
    class_page: Lesson
    lessons: tuple[Lesson, ...]
    reference: tuple[Lesson, ...]
    #: class mode's part of every page (``posenc_lab.classroom.hooks``)
    class_mode: ClassMode

    def __post_init__(self) -> None:
        for lesson in self.pages:
            lesson.course = self
        for number, lesson in enumerate(self.lessons, start=1):
            lesson.number = number
        self._check_unique_keys()
        self._check_skills()

    @property
    def pages(self) -> tuple[Lesson, ...]:
        """Every page, the start page first (the default)."""
        return (self.home, self.class_page, *self.lessons, *self.reference)

    @property
    def bank(self) -> dict[str, tuple[Exercise, ...]]:
        """Lesson path -> its exercises, in the order shown."""
        return {lesson.path: lesson.exercises for lesson in self.lessons}

    def lesson_by_path(self, path: str) -> Lesson:
        return next(lesson for lesson in self.pages if lesson.path == path)

    def lesson_by_url(self, url_path: str) -> Lesson | None:
        """The numbered lesson at ``url_path``, or None (a page off the path)."""
        return next((lesson for lesson in self.lessons if lesson.url_path == url_path), None)

    def all_exercises(self) -> list[Exercise]:
        return [ex for lesson in self.lessons for ex in lesson.exercises]

    def all_polls(self) -> list:
        """Every lesson's class-mode questions (``classroom.poll.Poll``: class mode's, above
        ``ui``), in lesson order."""
        return [poll for lesson in self.lessons for poll in lesson.polls]

    def poll_by_key(self, key: str):
        return next((poll for poll in self.all_polls() if poll.key == key), None)

    def lesson_of_poll(self, key: str) -> Lesson | None:
        return next((lesson for lesson in self.lessons if any(poll.key == key for poll in lesson.polls)), None)

    def _check_skills(self) -> None:
        # a variant exercise practises a skill its lesson names, and a named skill has one:
        # mastery is counted per skill, on variants
        for lesson in self.lessons:
            practised = set()
            for ex in lesson.exercises:
                if isinstance(ex, Guided):
                    continue
                if ex.params and ex.skill not in lesson.skills:
                    raise ValueError(f"exercise {ex.key!r}: its skill {ex.skill!r} is not among {lesson.title!r}'s")
                if ex.skill and not ex.params:
                    raise ValueError(f"exercise {ex.key!r}: a skill is practised on variants; it has none")
                practised.add(ex.skill)
            unpractised = set(lesson.skills) - practised
            if unpractised:
                raise ValueError(f"lesson {lesson.title!r}: no exercise practises {sorted(unpractised)}")

    def _check_unique_keys(self) -> None:
        # a key names an exercise's widgets and its record of progress, a poll's the class's
        # votes: one per exercise and per poll, across both (the dashboard lists them together)
        keys = [poll.key for poll in self.all_polls()]
        for ex in self.all_exercises():
            keys.append(ex.key)
            if isinstance(ex, Guided):
                keys.extend(step.key for step in ex.steps)
        duplicates = {k for k in keys if keys.count(k) > 1}
        if duplicates:
            raise ValueError(f"exercise keys must be unique; repeated: {sorted(duplicates)}")
