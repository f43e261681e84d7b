"""The questions a teacher opens in class: a lesson's, and the ones the teacher writes
(``classroom.store.Question``), asked alike as a ``Poll``; and the words a person reads for
each (the picker's label, the prompt as Markdown).

A teacher's text is plain text: ``prompt_markdown`` and ``own_poll``'s reveal escape it, so
nothing typed becomes a link, markup or maths on a student's screen or the projector.
"""

from __future__ import annotations

from posenc_lab.classroom import each, session
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom.poll import Poll
from posenc_lab.figures import notation
from posenc_lab.ui.lesson import Course


def is_own(poll: Poll) -> bool:
    return poll.key.startswith(class_store.OWN_PREFIX)


def own_poll(question: class_store.Question) -> Poll:
    """A question the teacher wrote, as a lesson's question is asked: its prompt and its
    explanation are plain text, drawn as written (``prompt_markdown``)."""
    why = session.plain(question.why)
    return Poll(
        key=question.key,
        prompt=question.prompt,
        answer=lambda: question.answer,
        reveal=lambda _answer: why,
        options=question.options,
        tolerance=question.tolerance,
        low=question.low,
        high=question.high,
        integer=question.integer,
        unit=question.unit,
        view=question.view,
    )


def own_polls(db: class_store.Store, code: str) -> list[Poll]:
    return [own_poll(q) for q in db.questions(code)]


def poll_of(course: Course, db: class_store.Store, code: str, key: str) -> Poll | None:
    """A lesson's question, an exercise asked with each student's own numbers, or one the
    class's teacher wrote (None: none of them)."""
    if key.startswith(class_store.OWN_PREFIX):
        return next((poll for poll in own_polls(db, code) if poll.key == key), None)
    if key.startswith(each.PREFIX):
        return each.poll_by_key(course, key)
    return course.poll_by_key(key)


def every_poll(course: Course, db: class_store.Store, code: str) -> list[Poll]:
    """Every question a teacher can open, in the picker's order: their own first (written
    for today's class), then the lessons', then the exercises each student answers with
    numbers of their own."""
    return [*own_polls(db, code), *course.all_polls(), *each.polls(course)]


def prompt_markdown(poll: Poll) -> str:
    """A question's prompt as Markdown: a lesson's as written (its maths renders), a
    teacher's as literal text (nothing typed becomes a link, markup or maths)."""
    return session.plain(poll.prompt) if is_own(poll) else poll.prompt


def lesson_title(course: Course, poll: Poll) -> str:
    if is_own(poll):
        return "Your question"
    lesson = each.lesson_of(course, poll.key) if each.is_each(poll) else course.lesson_of_poll(poll.key)
    return lesson.title if lesson is not None else ""


def poll_label(course: Course, poll: Poll, cut: bool = True) -> str:
    """The label "3. Lesson title: the question", its maths in plain words and its names as
    written (d_model, ``notation.plain_title``), or "Your question: ..." for one the teacher
    wrote; ``cut``: at 90 characters."""
    prompt = poll.prompt if is_own(poll) else notation.plain_title(poll.prompt)
    if cut and len(prompt) > 90:
        prompt = prompt[:90] + "..."
    if is_own(poll):
        return f"Your question: {prompt}"
    if each.is_each(poll):
        lesson = each.lesson_of(course, poll.key)
        number = course.lessons.index(lesson) + 1
        # a label is plain text (tables, files, the picker); a name keeps its "_": max_len, not "max len"
        title = notation.plain_title(each.exercise_of(course, poll.key).title)
        return f"{number}. {lesson.title}: {title} (each student their own numbers)"
    number = next(n for n, lesson in enumerate(course.lessons, 1) if poll in lesson.polls)
    return f"{number}. {lesson_title(course, poll)}: {prompt}"
