"""The lesson path: every page of the app, in the order a student takes them.

Each lesson file makes its own record (``ui.lesson.Lesson``: title, question, views,
exercises) and registers its views on it; this module only puts the records in order.
The navigation, the menu, the home page, the exercises and the benchmarks read them here.
"""

from __future__ import annotations

from lessons import (
    alibi,
    choices,
    claims,
    compare,
    design,
    experiments,
    glossary,
    home,
    images,
    learned,
    references,
    relative,
    rope,
    sinusoidal,
    why_order,
)
from ui.exercise_kinds import Exercise, Guided
from ui.lesson import Lesson

HOME: Lesson = home.LESSON
LESSONS: tuple[Lesson, ...] = tuple(
    lesson.LESSON
    for lesson in (
        why_order,
        sinusoidal,
        learned,
        relative,
        rope,
        images,
        alibi,
        compare,
        choices,
        design,
        experiments,
        claims,
    )
)
#: pages to look things up in, outside the lesson path
REFERENCE: tuple[Lesson, ...] = (glossary.LESSON, references.LESSON)

#: lesson path -> its exercises, in the order shown
BANK: dict[str, tuple[Exercise, ...]] = {lesson.path: lesson.exercises for lesson in LESSONS}


def lesson_by_path(path: str) -> Lesson:
    return next(lesson for lesson in (HOME, *LESSONS, *REFERENCE) if lesson.path == path)


def lesson_by_url(url_path: str) -> Lesson | None:
    return next((lesson for lesson in LESSONS if lesson.url_path == url_path), None)


def all_exercises() -> list[Exercise]:
    return [ex for exercises in BANK.values() for ex in exercises]


def _check_unique_keys() -> None:
    # a key names an exercise's widgets and its record of progress: one per exercise
    keys = []
    for ex in all_exercises():
        keys.append(ex.key)
        if isinstance(ex, Guided):
            keys.extend(step.key for step in ex.steps)
    duplicates = {k for k in keys if keys.count(k) > 1}
    if duplicates:
        raise ValueError(f"exercise keys must be unique; repeated: {sorted(duplicates)}")


_check_unique_keys()
