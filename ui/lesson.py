"""A lesson's record: what it is called, what it answers, its views and its exercises.

Each file in ``lessons/`` makes one ``Lesson`` and registers its views on it::

    LESSON = Lesson(__file__, "RoPE", "rope", question="...", exercises=rope_exercises.EXERCISES)

    @LESSON.intro
    def intro() -> dict:                   # drawn above every view
        head_dim = state.int_slider(...)
        return {"head_dim": head_dim}      # handed to the view as keyword arguments

    @LESSON.view("rotation", "Rotation")
    def rotation(head_dim: int) -> None:   # one figure set
        ...

    if __name__ == "__main__":             # Streamlit runs the file as the page
        LESSON.show()

The file is imported by ``lessons/__init__.py`` (which orders the lessons) for its record,
and run by Streamlit as the page: the navigation, the view picker, the URL's ``view``
parameter, the home page, the exercises and the page budget all read the same record,
so a lesson's path, its view keys and its labels are written once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


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
    #: the lesson's "predict before you see it" questions for class mode (``exercise_kinds.Poll``)
    polls: tuple = ()
    #: the largest URL settings the page allows (the page budget benchmark measures them)
    largest: dict[str, str] = field(default_factory=dict)
    #: key -> view, in the order of the picker; empty for a lesson of one figure set
    views: dict[str, View] = field(default_factory=dict)
    _intro: Callable[[], dict[str, Any] | None] | None = None

    @property
    def path(self) -> str:
        """The page file, relative to the app's folder (what ``st.Page`` and AppTest take)."""
        return f"lessons/{Path(self.file).name}"

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
        import lessons  # the record itself stays importable without a Streamlit run
        from ui import layout

        # the page run makes its own record (Streamlit runs the file as a script), so the
        # lesson path is matched by URL, not by identity
        if lessons.lesson_by_url(self.url_path) is not None:
            layout.lesson_body(self)
        else:
            self.draw()

    def draw(self) -> None:
        """The intro, then the view the URL (or the picker) names."""
        from ui import layout

        settings = (self._intro() if self._intro else None) or {}
        if self.views:
            self.views[layout.view_picker(self)].draw(**settings)
