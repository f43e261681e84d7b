"""A question the class answers in class mode (``Poll``): a lesson's "predict before you see
it" questions (beside its exercises, in ``lessons/<lesson>/exercises.py``) and the ones a
teacher writes (``classroom.questions``), asked alike. Its kinds: multiple choice
(``options``), a number (neither), a curve to draw (``sketch``, a ``Sketch``).

Data and arithmetic, no Streamlit: the pages draw it (``classroom.views``), the store keeps
its votes, ``classroom.report`` reads them. A new kind of question is a field here and its
parts in this folder: its input and reveal in ``views.py``, its chart in ``figures.py``, its
words in ``report.py`` and, for a teacher's own question, its rules in ``store/rules.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from posenc_lab.classroom import sketch as sketches
from posenc_lab.classroom import tally
from posenc_lab.ui.exercise_kinds import close_to, option_order


@dataclass(frozen=True)
class Sketch:
    """A curve students draw before they see it (``classroom.sketch``): its axes and ranges,
    and the measured curve that settles it, computed when asked."""

    x_title: str  # plain text, under the drawing area
    y_title: str
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    curve: Callable[[], tuple[object, object]]  # () -> (x, y) arrays of the measured curve

    def __post_init__(self):
        if not self.x_range[0] < self.x_range[1] or not self.y_range[0] < self.y_range[1]:
            raise ValueError(f"a sketch's ranges must rise, got {self.x_range!r} and {self.y_range!r}")


@dataclass(frozen=True)
class Poll:
    """A "predict before you see it" question that a teacher opens in class mode
    (``classroom.session``): the class votes, may vote again after talking it over, and the
    reveal shows everyone the answer with the measurement that settles it.

    Multiple choice when ``options`` is given (``answer()`` is the right option's index),
    numeric otherwise (``answer()`` is the number; a vote within ``tolerance`` of it counts
    as right, and the teacher's histogram bins the votes between ``low`` and ``high``).
    The answer, the reveal text and the figure are computed with posenc when asked, like
    an exercise's: nothing the class is told is a stored literal.

    A lesson's numeric poll names the wrong answers classes are known to give
    (``misconceptions``: () -> ((value, name), ...), computed when asked like the answer,
    each value outside ``tolerance`` of the answer and between ``low`` and ``high``, each
    name short plain text read beside a bar). Once revealed, the histogram gives each a bar
    of its own named by it, and the results name a wrong vote within ``tolerance`` of one
    (``named``); before the reveal nothing names them but the teacher's own preview. A
    teacher's own question has none.
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
    #: multiple choice: the options form a scale (or follow the question's own order), so a
    #: student sees them as written or reversed; otherwise in any order (``option_order``)
    scale: bool = False
    #: a drawn prediction: students sketch a curve; ``tolerance`` is then the mean distance
    #: from the measured curve, as a share of the y range, that counts as right
    sketch: Sketch | None = None
    #: asked with each student's own numbers (``classroom.each``): (a student's seed) -> the
    #: variant that student answers; None for a question everyone answers alike
    each: Callable[[str], Poll] | None = None
    #: the parameters of the variant this question asks, ((name, value), ...), for one of
    #: ``classroom.each``'s: its answer is computed for them, never read from a cache by key
    chosen: tuple = ()
    #: numeric: () -> ((value, name), ...), the wrong answers a class is known to give, each
    #: computed from the poll's own constants; None for none (a teacher's own question)
    misconceptions: Callable[[], tuple[tuple[float, str], ...]] | None = None

    def __post_init__(self):
        if self.options and len(self.options) < 2:
            raise ValueError(f"poll {self.key!r}: a multiple-choice poll needs two options or more")
        if not self.options and not self.low < self.high:
            raise ValueError(f"poll {self.key!r}: a numeric poll needs low < high")

    @property
    def numeric(self) -> bool:
        return not self.options and self.sketch is None

    def named(self, vote: float, misconceptions=None, answer: float | None = None) -> tuple[str, ...]:
        """The names of the misconceptions a wrong numeric vote is within ``tolerance`` of
        (none for a right vote); ``misconceptions`` and ``answer`` save computing them again."""
        if not self.numeric:
            return ()
        if misconceptions is None:
            misconceptions = self.misconceptions() if self.misconceptions is not None else ()
        if not misconceptions or self.is_right(vote, answer):
            return ()
        return tally.named_near(vote, misconceptions, self.tolerance)

    def for_student(self, seed: str | None) -> Poll:
        """The question a student with ``seed`` answers: their own variant when each student
        has their own numbers (the question as first written without a seed), else this one."""
        return self.each(seed) if self.each is not None and seed else self

    def order(self, seed: str) -> list[int]:
        """The options' indices in the order the student with ``seed`` sees them (the
        projector's chart keeps the order as written)."""
        return option_order(len(self.options), seed, self.key, scale=self.scale)

    def measured(self):
        """A sketch question's measured curve at the sketch's points, as shares of the y range."""
        x, y = self.sketch.curve()
        return sketches.target(self.sketch.x_range, self.sketch.y_range, x, y)

    def is_right_vote(self, vote: str, answer: float | None = None, measured=None) -> bool:
        """Whether a stored vote is right: a sketch within ``tolerance`` of the measured curve
        (``measured`` saves computing it again), else ``is_right`` of its number."""
        if self.sketch is not None:
            off = sketches.error(vote, self.measured() if measured is None else measured)
            return off is not None and off <= self.tolerance
        return self.is_right(float(vote), answer)

    def is_right(self, vote: float, answer: float | None = None) -> bool:
        """Whether a vote (an option's index, or a number) is right; ``answer`` saves
        computing the answer again when the caller holds it."""
        answer = float(self.answer() if answer is None else answer)
        if self.options:
            return int(vote) == int(answer)
        return close_to(float(vote), answer, self.tolerance)
