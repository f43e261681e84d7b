"""A lesson's variant exercise asked as a class question, "each student their own numbers":
every student's device draws a variant of its own (from the student's seed in the class),
so neighbours cannot copy a number; each vote is checked against that student's own answer,
and the teacher, the room screen and the files compare the share right, never the values
(a 16 on one phone and a 32 on another may both be right).

The question the teacher picks (``template``) reads as the exercise was first written, with
``Poll.each`` set; ``Poll.for_student`` gives a student's own (``student_poll``), whose
answer and explanation are computed with posenc for that variant when asked, as an
exercise's are. Pure: no Streamlit, no database.
"""

from __future__ import annotations

import dataclasses
import functools

from posenc_lab.classroom.poll import Poll
from posenc_lab.figures import notation
from posenc_lab.ui.exercise_kinds import Guided, MultipleChoice, Numeric, concrete, defaults, draw
from posenc_lab.ui.lesson import Course

#: the key of an exercise asked this way: the prefix and the exercise's key (a poll key
#: takes 64 characters; the exercises' keys are far shorter, ``Course`` keeps them unique)
PREFIX = "each:"
#: what a numeric answer's box takes: wide enough for every variant's answer, and the same
#: for every variant, so that the box says nothing of the answer
WIDEST = 1e12


def eligible(ex) -> bool:
    """Whether an exercise can be asked with each student's own numbers: one with variants
    (``params``), multiple choice or a number, with nothing the student picks first."""
    return not isinstance(ex, Guided) and bool(ex.params) and not getattr(ex, "picks", ())


def key_of(ex: MultipleChoice | Numeric) -> str:
    return PREFIX + ex.key


def is_each(poll: Poll) -> bool:
    """A question asked with each student's own numbers: the teacher's (``each``) or one
    student's variant of it (``chosen``)."""
    return poll.key.startswith(PREFIX)


def _poll(ex: MultipleChoice | Numeric, params: dict, prompt: str) -> Poll:
    """The exercise's variant ``params`` as a poll: its question, its options in plain words
    (maths spelled out: a student's radio and the files show them as text), its answer,
    tolerance and explanation (the right option's why, or the worked solution)."""
    variant = concrete(ex, params)
    common = dict(key=key_of(ex), prompt=prompt, chosen=tuple(params.items()))
    if isinstance(variant, MultipleChoice):
        right = variant.answer_index
        why = variant.choices[right].why
        return Poll(
            **common,
            options=tuple(notation.plain_markdown(choice.text) for choice in variant.choices),
            answer=lambda: right,
            reveal=lambda _answer: why,
        )
    return Poll(
        **common,
        # computed once a variant: the teacher's screen checks every answer of the class each second
        answer=functools.cache(lambda: float(variant.answer())),
        reveal=lambda answer: variant.explain(answer),
        tolerance=float(variant.tolerance),
        low=-WIDEST,
        high=WIDEST,
        integer=variant.integer,
    )


@functools.lru_cache(maxsize=4096)  # a class's students, each drawn once a process
def student_poll(ex: MultipleChoice | Numeric, seed: str) -> Poll:
    """The variant a student with ``seed`` (``session.member_seed``) answers: the same on
    every device and in every round of the question (a second vote after discussion asks
    the same numbers), and not their first practice variant (``ui.mastery`` draws those
    from the seed alone)."""
    params = draw(ex, f"{seed}:class-question", 0)
    return _poll(ex, params, concrete(ex, params).question)


def template(ex: MultipleChoice | Numeric) -> Poll:
    """The question as the teacher picks it and the room reads it: the exercise as first
    written, said to be an example; ``for_student`` gives each student's own."""
    first = concrete(ex, defaults(ex))
    prompt = f"**{ex.title}**, with numbers of your own on each device. As first written: {first.question}"
    return dataclasses.replace(_poll(ex, defaults(ex), prompt), each=functools.partial(student_poll, ex))


@functools.cache  # a process has one course (compared by identity): its questions, made once
def _templates(course: Course) -> tuple[Poll, ...]:
    return tuple(template(ex) for lesson in course.lessons for ex in lesson.exercises if eligible(ex))


def polls(course: Course) -> list[Poll]:
    """Every exercise of the course that a class can answer with its own numbers, as the
    teacher picks it, in the lessons' order."""
    return list(_templates(course))


def poll_by_key(course: Course, key: str) -> Poll | None:
    return next((poll for poll in _templates(course) if poll.key == key), None)


def exercise_of(course: Course, key: str):
    """The exercise a question of this kind asks (None: no such exercise)."""
    if not key.startswith(PREFIX):
        return None
    name = key[len(PREFIX) :]
    return next((ex for lesson in course.lessons for ex in lesson.exercises if getattr(ex, "key", "") == name), None)


def lesson_of(course: Course, key: str):
    name = key[len(PREFIX) :]
    return next((lesson for lesson in course.lessons if any(ex.key == name for ex in lesson.exercises)), None)
