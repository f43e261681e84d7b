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
    class_mode,
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
from ui.exercise_kinds import Exercise, Guided, Poll
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
#: the class page: live polls and a class's shared progress (``ui.class_views``)
CLASS: Lesson = class_mode.LESSON
#: pages to look things up in, outside the lesson path
REFERENCE: tuple[Lesson, ...] = (glossary.LESSON, references.LESSON)

#: lesson path -> its exercises, in the order shown
BANK: dict[str, tuple[Exercise, ...]] = {lesson.path: lesson.exercises for lesson in LESSONS}


def lesson_by_path(path: str) -> Lesson:
    return next(lesson for lesson in (HOME, CLASS, *LESSONS, *REFERENCE) if lesson.path == path)


def lesson_by_url(url_path: str) -> Lesson | None:
    return next((lesson for lesson in LESSONS if lesson.url_path == url_path), None)


def all_exercises() -> list[Exercise]:
    return [ex for exercises in BANK.values() for ex in exercises]


def all_polls() -> list[Poll]:
    """Every lesson's class-mode questions, in lesson order."""
    return [poll for lesson in LESSONS for poll in lesson.polls]


def poll_by_key(key: str) -> Poll | None:
    return next((poll for poll in all_polls() if poll.key == key), None)


def lesson_of_poll(key: str) -> Lesson | None:
    return next((lesson for lesson in LESSONS if any(poll.key == key for poll in lesson.polls)), None)


def _check_unique_keys() -> None:
    # a key names an exercise's widgets and its record of progress, a poll's the class's
    # votes: one per exercise and per poll, across both (the dashboard lists them together)
    keys = [poll.key for poll in all_polls()]
    for ex in all_exercises():
        keys.append(ex.key)
        if isinstance(ex, Guided):
            keys.extend(step.key for step in ex.steps)
    duplicates = {k for k in keys if keys.count(k) > 1}
    if duplicates:
        raise ValueError(f"exercise keys must be unique; repeated: {sorted(duplicates)}")


_check_unique_keys()
