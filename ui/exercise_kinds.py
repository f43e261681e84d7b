"""The kinds of exercise a lesson ends with, and how an answer is checked.

Pure data and arithmetic, no Streamlit: ``ui.exercises`` draws them. Three kinds:

- ``MultipleChoice``: options, each with its own explanation (why it is right, or why not);
- ``Numeric``: a number to type, checked against an answer that is *computed with posenc
  when the student presses Check*, never a stored literal, within a stated tolerance;
- ``Guided``: a proof in small steps (multiple-choice or numeric), each unlocked by the last.

A lesson's own exercises sit beside it, in ``lessons/<lesson>_exercises.py``, and join its
record (``ui.lesson.Lesson.exercises``). Every key is unique across the lessons
(``lessons.all_exercises`` checks): it names the exercise's widgets (``ex_<key>_...``)
and its record of progress.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Choice:
    text: str  # the option as shown (markdown)
    why: str  # why it is right, or why it is wrong
    right: bool = False


@dataclass(frozen=True)
class MultipleChoice:
    key: str
    title: str
    question: str  # markdown
    choices: tuple[Choice, ...]
    hint: str
    latex: str = ""

    def __post_init__(self):
        if sum(c.right for c in self.choices) != 1:
            raise ValueError(f"exercise {self.key!r}: exactly one choice must be right")

    @property
    def answer_index(self) -> int:
        return next(i for i, c in enumerate(self.choices) if c.right)


@dataclass(frozen=True)
class Pick:
    """An integer the student chooses before answering (the question depends on it)."""

    name: str
    label: str
    default: int
    min_value: int
    max_value: int


@dataclass(frozen=True)
class Numeric:
    """A number to type. The callables receive the student's picks as keyword arguments."""

    key: str
    title: str
    question: str  # markdown
    answer: Callable[..., float]  # (**picks) -> the right value, computed with posenc
    tolerance: float  # absolute: |given - answer| <= tolerance is right
    hint: str
    explain: Callable[..., str]  # (answer, **picks) -> why it is right
    nudge: Callable[..., str | None]  # (given, answer, **picks) -> a pointer, or None for too large / small
    latex: str = ""
    integer: bool = False
    fmt: str = "%.4f"  # number_input format
    step: float = 0.0001
    picks: tuple[Pick, ...] = ()
    shown: Callable[..., str] | None = None  # (**picks) -> what the student is given to work from


@dataclass(frozen=True)
class Guided:
    key: str
    title: str
    intro: str
    steps: tuple[MultipleChoice | Numeric, ...]
    conclusion: str
    latex: str = ""


Exercise = MultipleChoice | Numeric | Guided


def close_to(value: float, target: float, tolerance: float) -> bool:
    return abs(value - target) <= tolerance


def tolerance_text(ex: Numeric) -> str:
    if ex.integer:
        return "Whole number; checked exactly."
    return f"Checked to within ±{ex.tolerance:g}."


def too_far(given: float, answer: float) -> str:
    """The generic nudge: which side the answer fell on."""
    return "Too large." if given > answer else "Too small."


def numeric_feedback(ex: Numeric, given: float, picks: dict[str, int]) -> tuple[bool, str, float]:
    """Check ``given``: (right?, the explanation or the nudge, the computed answer)."""
    answer = float(ex.answer(**picks))
    if close_to(given, answer, ex.tolerance):
        return True, ex.explain(answer, **picks), answer
    nudge = ex.nudge(given, answer, **picks)
    return False, nudge or too_far(given, answer), answer
