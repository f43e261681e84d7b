"""The course: every page of the app, in the order a student takes them.

Each lesson folder makes its own record (``posenc_lab.ui.lesson.Lesson``: title, question,
views, exercises) in its ``lesson.py``; this module only puts the records in order, as one
``Course`` that ``app.py`` hands to the shell. The benchmarks and tests read it here.
"""

from __future__ import annotations

from posenc_lab.classroom import hooks as class_hooks
from posenc_lab.classroom import lesson as class_mode
from posenc_lab.lessons.alibi import lesson as alibi
from posenc_lab.lessons.choices import lesson as choices
from posenc_lab.lessons.claims import lesson as claims
from posenc_lab.lessons.compare import lesson as compare
from posenc_lab.lessons.design import lesson as design
from posenc_lab.lessons.experiments import lesson as experiments
from posenc_lab.lessons.glossary import lesson as glossary
from posenc_lab.lessons.home import lesson as home
from posenc_lab.lessons.images import lesson as images
from posenc_lab.lessons.learned import lesson as learned
from posenc_lab.lessons.models import lesson as models
from posenc_lab.lessons.references import lesson as references
from posenc_lab.lessons.relative import lesson as relative
from posenc_lab.lessons.rope import lesson as rope
from posenc_lab.lessons.sinusoidal import lesson as sinusoidal
from posenc_lab.lessons.why_order import lesson as why_order
from posenc_lab.ui.exercise_kinds import Exercise
from posenc_lab.ui.lesson import Course, Lesson

#: the whole course: it numbers the lessons and hands itself to every record
COURSE = Course(
    home=home.LESSON,
    #: the class page: live polls and a class's shared progress (``classroom.lesson``)
    class_page=class_mode.LESSON,
    lessons=tuple(
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
            models,
            claims,
        )
    ),
    #: pages to look things up in, outside the lesson path
    reference=(glossary.LESSON, references.LESSON),
    #: what class mode adds to every page: the shell and the exercises call it here
    class_mode=class_hooks,
)

# the course's parts by name, for the benchmarks, tools and tests
HOME: Lesson = COURSE.home
LESSONS: tuple[Lesson, ...] = COURSE.lessons
CLASS: Lesson = COURSE.class_page
REFERENCE: tuple[Lesson, ...] = COURSE.reference
#: lesson path -> its exercises, in the order shown
BANK: dict[str, tuple[Exercise, ...]] = COURSE.bank
lesson_by_path = COURSE.lesson_by_path
lesson_by_url = COURSE.lesson_by_url
all_exercises = COURSE.all_exercises
all_polls = COURSE.all_polls
poll_by_key = COURSE.poll_by_key
lesson_of_poll = COURSE.lesson_of_poll
