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

An exercise may have **variants** (``Param``): its question, choices, hint, answer,
explanation and nudges are then functions of parameters drawn from their allowed values,
the answer still computed with posenc. ``variants`` lists the fair combinations (those the
exercise's ``fair`` accepts), ``draw`` picks one from a student's seed and attempt number,
and ``concrete`` makes the exercise of one variant, with plain text, which is what is drawn
and checked. A variant exercise names the skill it practises (``skill``, one of its
lesson's ``skills``); ``ui.mastery`` counts a skill mastered from its right answers.

Options are written with the right one anywhere (often first); each student sees them in
an order of their own, drawn from a seed that stays with the student (``deal_orders`` for
the exercises, ``option_order`` for a poll), so that the place of an option says nothing
about it. An option is always named by its index in the question as written, never by
where a student saw it: that is what an answer check, a class's stored vote and the
teacher's chart use.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

#: text that may depend on a variant's parameters: a string, or (**params) -> the string
Text = str | Callable[..., str]


def option_order(count: int, seed: str, key: str, *, scale: bool = False) -> list[int]:
    """The order in which a student with ``seed`` sees the ``count`` options of the poll
    ``key``: the options' indices, top to bottom.

    The same seed and key give the same order on every run, in every process (a string
    seeds ``random.Random`` through SHA-512, not through Python's salted ``hash``), so a
    reload does not reorder a question; another key or another seed gives another order.
    With ``scale`` the options read as a scale (none, a little, a lot): a student sees it
    as written or reversed, never jumbled. (A poll's answer is computed when asked, so its
    place is not dealt as an exercise's is, ``deal_orders``; the answers of the polls as
    written already fall in every place.)
    """
    order = list(range(count))
    rng = random.Random(f"{seed}:{key}")
    if scale:
        return order[::-1] if rng.random() < 0.5 else order
    rng.shuffle(order)
    return order


@dataclass(frozen=True)
class Choice:
    text: str  # the option as shown (markdown)
    why: str  # why it is right, or why it is wrong
    right: bool = False


@dataclass(frozen=True)
class Param:
    """A parameter of a variant exercise: the keyword its functions receive, the values a
    variant may give it, and the value of the exercise as first written (``default``: the
    variant a class sees, and the one the tests of the fixed exercise used)."""

    name: str
    values: tuple[Any, ...]
    default: Any

    def __post_init__(self):
        if self.default not in self.values:
            raise ValueError(f"parameter {self.name!r}: its default {self.default!r} is not among its values")


@dataclass(frozen=True)
class MultipleChoice:
    key: str
    title: str
    question: Text  # markdown
    #: the options, or (**params) -> the options of a variant; the right one stays at the
    #: same index in every variant (the deal of places reads it, ``deal_orders``)
    choices: tuple[Choice, ...] | Callable[..., tuple[Choice, ...]]
    hint: Text
    latex: str = ""
    params: tuple[Param, ...] = ()
    #: (**params) -> whether a combination is a fair variant (None: every one is)
    fair: Callable[..., bool] | None = None
    skill: str = ""  # the skill a variant exercise practises (its lesson's ``skills``)
    #: the parameters of the variant this is (``concrete``): ((name, value), ...)
    chosen: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self):
        choices = concrete(self).choices if callable(self.choices) else self.choices
        if sum(c.right for c in choices) != 1:
            raise ValueError(f"exercise {self.key!r}: exactly one choice must be right")

    @property
    def answer_index(self) -> int:
        choices = concrete(self).choices if callable(self.choices) else self.choices
        return next(i for i, c in enumerate(choices) if c.right)


def deal_orders(questions: Sequence[MultipleChoice], seed: str) -> dict[str, list[int]]:
    """The order in which a student with ``seed`` sees the choices of every question of a
    bank: question key -> the choices' indices, top to bottom.

    The right choice's places are dealt across the bank rather than drawn question by
    question: among the questions with the same number of choices, each place holds the
    right choice equally often, give or take one, for every seed (drawn independently,
    one student in twenty would find half of their right answers in one place). The seed
    decides which question gets which place and the order of the wrong choices; the same
    seed gives the same orders on every run and in every process (a string seeds
    ``random.Random`` through SHA-512, not Python's salted ``hash``). A bank that gains or
    loses a question deals again.
    """
    by_key = {question.key: question for question in questions}
    rng = random.Random(f"{seed}:choices")
    # a fixed start (sorted keys), whatever order the lessons list them in, then the seed's
    keys = sorted(by_key)
    rng.shuffle(keys)
    dealt: dict[str, list[int]] = {}
    load: dict[tuple[int, int], int] = {}  # (number of choices, place) -> right choices dealt
    for key in keys:
        question = by_key[key]
        # a variant question's right choice keeps its index: the deal holds for every variant
        count, right = len(concrete(question).choices), question.answer_index
        least = min(load.get((count, place), 0) for place in range(count))
        place = rng.choice([p for p in range(count) if load.get((count, p), 0) == least])
        load[count, place] = least + 1
        wrong = [i for i in range(count) if i != right]
        rng.shuffle(wrong)
        dealt[key] = [*wrong[:place], right, *wrong[place:]]
    return dealt


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
    question: Text  # markdown
    #: (**picks, **params) -> the right value, computed with posenc
    answer: Callable[..., float]
    #: absolute: |given - answer| <= tolerance is right (or (**params) -> it, for variants
    #: whose answers differ in size)
    tolerance: float | Callable[..., float]
    hint: Text
    #: (answer, **picks, **params) -> why it is right: the worked solution of the variant
    explain: Callable[..., str]
    #: (given, answer, **picks, **params) -> a pointer, or None: then the side it fell on
    #: and the hint
    nudge: Callable[..., str | None]
    latex: str = ""
    integer: bool = False
    fmt: str = "%.4f"  # number_input format
    step: float = 0.0001
    picks: tuple[Pick, ...] = ()
    shown: Callable[..., str] | None = None  # (**picks) -> what the student is given to work from
    params: tuple[Param, ...] = ()
    #: (**params) -> whether a combination is a fair variant (None: every one is)
    fair: Callable[..., bool] | None = None
    skill: str = ""  # the skill a variant exercise practises (its lesson's ``skills``)
    #: the parameters of the variant this is (``concrete``): ((name, value), ...)
    chosen: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self):
        # the hint is also what a wrong answer is told to reconsider (``numeric_feedback``)
        hint = self.hint(**defaults(self)) if callable(self.hint) else self.hint
        if not hint.strip():
            raise ValueError(f"exercise {self.key!r}: a numeric exercise needs a hint")


@dataclass(frozen=True)
class Guided:
    key: str
    title: str
    intro: str
    steps: tuple[MultipleChoice | Numeric, ...]
    conclusion: str
    latex: str = ""


Exercise = MultipleChoice | Numeric | Guided


# variants


def defaults(ex: MultipleChoice | Numeric) -> dict[str, Any]:
    """The parameters of the exercise as first written: the variant a class sees."""
    return {p.name: p.default for p in ex.params}


@functools.cache
def variants(ex: MultipleChoice | Numeric) -> tuple[dict[str, Any], ...]:
    """Every fair combination of the parameters' values, in a fixed order (``fair``
    decides; one empty combination for an exercise without parameters)."""
    names = [p.name for p in ex.params]
    combos = (dict(zip(names, values, strict=True)) for values in itertools.product(*(p.values for p in ex.params)))
    return tuple(c for c in combos if ex.fair is None or ex.fair(**c))


def draw(ex: MultipleChoice | Numeric, seed: str, attempt: int) -> dict[str, Any]:
    """The parameters of the variant a student with ``seed`` sees at ``attempt`` (0, 1, ...).

    The fair variants are dealt in an order of the student's own (``random.Random`` seeded
    by the string, through SHA-512: the same on every run and in every process), and
    attempt k takes the k-th: a reload shows the same variant, and "Try another" a variant
    the student has not seen yet, until all have been seen.
    """
    pool = variants(ex)
    order = list(range(len(pool)))
    random.Random(f"{seed}:{ex.key}:variants").shuffle(order)
    return dict(pool[order[attempt % len(order)]])


def concrete(ex: MultipleChoice | Numeric, params: dict[str, Any] | None = None) -> MultipleChoice | Numeric:
    """The exercise of one variant (``params``, by default the exercise as first written),
    with its texts filled in and its functions bound: what is drawn and checked. An
    exercise without parameters is itself."""
    if not ex.params:
        return ex
    params = defaults(ex) if params is None else params

    def text(value: Text) -> str:
        return value(**params) if callable(value) else value

    changes: dict[str, Any] = {
        "question": text(ex.question),
        "hint": text(ex.hint),
        "params": (),
        "fair": None,
        "chosen": tuple(params.items()),
    }
    if isinstance(ex, MultipleChoice):
        changes["choices"] = ex.choices(**params) if callable(ex.choices) else ex.choices
    else:
        changes.update(
            tolerance=float(ex.tolerance(**params)) if callable(ex.tolerance) else ex.tolerance,
            answer=functools.partial(ex.answer, **params),
            explain=functools.partial(ex.explain, **params),
            nudge=functools.partial(ex.nudge, **params),
        )
        if ex.shown is not None:
            changes["shown"] = functools.partial(ex.shown, **params)
    return dataclasses.replace(ex, **changes)


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
    side = too_far(given, answer)
    if not nudge or nudge == side:
        # "Too large." alone says where the answer fell, not what to reconsider: the hint does
        nudge = f"{side} {ex.hint}"
    return False, nudge, answer


#: the verdict that opens the feedback on a checked answer, right or not (``ui.exercises``)
VERDICTS = {True: "**Right.**", False: "**Not quite.**"}
#: a verdict an explanation opens with itself ("Right: a whole row..."): after the box's
#: own it would read "Right. Right:". A word that only starts like one ("Right range,
#: wrong bucket", "Nothing") is not one: the verdict ends in punctuation.
_OWN_VERDICT = {
    True: re.compile(r"(?:right|correct)\s*[.:!,;]\s*", re.IGNORECASE),
    False: re.compile(r"(?:no|not quite|wrong|incorrect)\s*[.:!,;]\s*", re.IGNORECASE),
}


def feedback(right: bool, text: str) -> str:
    """The feedback on a checked answer as shown: its verdict, then ``text`` (the explanation
    or the nudge) without a verdict of its own, so the verdict is said once."""
    own = _OWN_VERDICT[right].match(text)
    if own:
        text = text[own.end() :]
        text = text[:1].upper() + text[1:]
    return f"{VERDICTS[right]} {text}"
