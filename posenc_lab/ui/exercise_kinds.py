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


@dataclass(frozen=True)
class Poll:
    """A "predict before you see it" question that a teacher opens in class mode
    (``ui.classroom``): the class votes, may vote again after talking it over, and the
    reveal shows everyone the answer with the measurement that settles it.

    Multiple choice when ``options`` is given (``answer()`` is the right option's index),
    numeric otherwise (``answer()`` is the number; a vote within ``tolerance`` of it counts
    as right, and the teacher's histogram bins the votes between ``low`` and ``high``).
    The answer, the reveal text and the figure are computed with posenc when asked, like
    an exercise's: nothing the class is told is a stored literal.
    """

    key: str  # unique across every lesson's polls and exercises; names the class's votes
    prompt: str  # plain text, read from the back row and on a phone: one or two sentences
    answer: Callable[[], float]  # () -> the right option's index, or the number
    reveal: Callable[[float], str]  # (answer) -> markdown: the measurement that settles it
    figure: Callable[[], object] | None = None  # () -> a Plotly figure shown with the reveal
    options: tuple[str, ...] = ()  # plain text; empty for a numeric poll
    tolerance: float = 0.0  # numeric: |vote - answer| <= tolerance counts as right
    low: float = 0.0  # numeric: the smallest vote the input takes
    high: float = 1.0  # numeric: the largest
    integer: bool = False  # numeric: whole numbers only
    unit: str = ""  # numeric: shown after the input ("positions", "%")
    view: str = ""  # "<url_path>?view=<key>": where to explore it after the reveal

    def __post_init__(self):
        if self.options and len(self.options) < 2:
            raise ValueError(f"poll {self.key!r}: a multiple-choice poll needs two options or more")
        if not self.options and not self.low < self.high:
            raise ValueError(f"poll {self.key!r}: a numeric poll needs low < high")

    @property
    def numeric(self) -> bool:
        return not self.options

    def is_right(self, vote: float, answer: float | None = None) -> bool:
        """Whether a vote (an option's index, or a number) is right; ``answer`` saves
        computing the answer again when the caller holds it."""
        answer = float(self.answer() if answer is None else answer)
        if self.options:
            return int(vote) == int(answer)
        return close_to(float(vote), answer, self.tolerance)


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
