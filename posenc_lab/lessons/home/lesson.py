"""Home: what the app teaches, one picture of where position enters attention, the path
through the lessons, and every method at a glance.

The picture is drawn from the records, not retyped: the methods and where each one
enters come from ``ui.catalog.METHODS``, and each method's lesson is the one whose
record (a view's label, its title or its question) names it (``lesson_of``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
import streamlit as st

from posenc_lab.lessons.home import figures as story
from posenc_lab.ui import exercises, figcache, layout, mastery
from posenc_lab.ui.catalog import METHODS
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Start here",
    "",
    question="What does this app teach, and in what order?",
    icon=":material/explore:",
)


class Stage(NamedTuple):
    title: str  # as the picture names it
    part: int  # 0: into the vectors, before queries meet keys; 1: into their scores
    pattern: str  # matches the catalog's "Where position enters" of its methods


#: where position can enter attention, in the order the picture draws them; a method
#: belongs to the first stage whose pattern its "Where position enters" matches
#: (\bbias\b leaves Transformer-XL's "global biases" to its score terms)
STAGES = (
    Stage("Added to the input", 0, r"\badded to\b"),
    Stage("In the keys (and values)", 0, r"\bin keys\b"),
    Stage("A rotation of q and k", 0, r"\brotat|\bRoPE\b"),
    Stage("A bias on the logits", 1, r"\bbias\b"),
    Stage("Extra score terms", 1, r"\bscore terms\b"),
)
#: each part of the picture: its title, the step it starts from and the one it leads to
PARTS = (
    ("Into the vectors, before queries meet keys", "Token vectors x", "Queries meet keys: q · k"),
    ("Into the scores, where queries meet keys", "Scores q · k", "Softmax, then the weighted sum of values"),
)


def short_name(method: str) -> str:
    """A catalog method without its citation: 'ALiBi (Press et al. 2021)' -> 'ALiBi'."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", method).strip()


def stage_of(row: dict) -> int | None:
    """Index in ``STAGES`` of a catalog row, or None where position enters nowhere."""
    where = row["Where position enters"]
    return next((i for i, stage in enumerate(STAGES) if re.search(stage.pattern, where)), None)


def lesson_of(method: str) -> tuple[Lesson, str | None] | None:
    """The lesson on the path that teaches ``method`` (a catalog name), and its view.

    From the most specific record to the least: a view whose label the method's name
    contains ('Context extension' in 'RoPE + context extension'); a lesson whose title
    names the method's first word; a view whose label names it ('Transformer-XL terms');
    a lesson whose question names it. None when no record names it.
    """
    name = short_name(method)
    word = re.escape(name.split()[0])
    names = lambda text: re.search(rf"(?<![\w-]){word}(?![\w-])", text) is not None  # noqa: E731
    views = [(lesson, key, view.label) for lesson in LESSON.course.lessons for key, view in lesson.views.items()]
    found = next(((lesson, key) for lesson, key, label in views if label.lower() in name.lower()), None)
    found = found or next(((lesson, None) for lesson in LESSON.course.lessons if names(lesson.title)), None)
    found = found or next(((lesson, key) for lesson, key, label in views if names(label)), None)
    return found or next(((lesson, None) for lesson in LESSON.course.lessons if names(lesson.question)), None)


def story_data() -> tuple[list[story.Panel], np.ndarray]:
    """The picture's panels, and per method drawn its (stage number, lesson number)."""
    number = {lesson: n for n, lesson in enumerate(LESSON.course.lessons, start=1)}
    # stage -> lesson -> its methods (names, hover lines), in catalog order
    found: dict[int, dict[Lesson, list[tuple[str, str]]]] = {i: {} for i in range(len(STAGES))}
    drawn = []
    for row in METHODS:
        stage, taught = stage_of(row), lesson_of(row["Method"])
        if stage is None or taught is None:
            continue
        name = short_name(row["Method"])
        found[stage].setdefault(taught[0], []).append((name, f"{name}: {row['Where position enters']}"))
        drawn.append((stage + 1, number[taught[0]]))
    panels = []
    for part, (title, start, end) in enumerate(PARTS):
        stages = []
        for i, stage in enumerate(STAGES):
            if stage.part != part or not found[i]:
                continue
            rows = [
                (
                    ", ".join(name for name, _ in methods),
                    f"Lesson {number[lesson]}: {lesson.title}",
                    "<br>".join(hover for _, hover in methods),
                )
                for lesson, methods in found[i].items()
            ]
            stages.append((stage.title, rows))
        panels.append((title, start, stages, end))
    return panels, np.array(drawn, dtype=np.float64).reshape(-1, 2)


def lesson_progress_text(lesson: Lesson) -> str:
    """What the path says under a lesson's link once a student has started: "1 of 3
    exercises solved", with a tick when all are."""
    done, count = exercises.lesson_progress(lesson)
    tick = ":material/check_circle: " if done == count else ""
    text = f"{tick}{done} of {count} exercises solved"
    skills = exercises.skill_progress(lesson)
    if skills:
        text += "  \n" + "  \n".join(exercises.mastery_text(*skill) for skill in skills)
    return text


def _story() -> None:
    panels, drawn = story_data()
    fig = figcache.figure(story.story_map, panels, title="Where position enters attention")
    layout.chart(fig, key="home_story", filename="home_where_position_enters", data=drawn)
    st.caption(
        "Each method sits where it gives attention its sense of position, above the lesson that teaches it "
        "(numbered as on the path below). The downloads hold each method's stage (1 to "
        f"{len(STAGES)}, top to bottom, left panel first) and lesson number."
    )


@LESSON.page
def page() -> None:
    st.title("How do Transformers know word order?")
    st.markdown(
        "Attention compares every word with every other word, but on its own it cannot tell "
        "*dog bites man* from *man bites dog*: shuffle the words and you get the same answers, "
        "shuffled. These lessons show why, and every way models have been given a sense of "
        "position: added vectors, learned tables, relative biases and rotations. Each claim "
        "comes with a control to move and a number to measure, computed live by the "
        "`posenc` library that you can also import in a notebook."
    )
    _story()

    st.subheader("The path")
    exercises.keep_progress(LESSON.course)
    solved, total = exercises.progress(LESSON.course)
    started = solved or exercises.practised(LESSON.course)
    if started:
        st.progress(solved / total, text=f"Exercises solved in this browser: {solved} of {total}")
        mastered, skills = exercises.mastered_count(LESSON.course)
        st.caption(
            f"Skills mastered: {mastered} of {skills} ({mastery.IN_A_ROW} right answers in a row, each on new "
            "numbers; each lesson lists its own)."
        )
        st.button(
            "Forget my progress in this browser",
            icon=":material/delete_history:",
            on_click=exercises.forget_progress,
            args=(LESSON.course,),
            help="On a shared computer: the next person starts with nothing solved. A student in a class keeps "
            "the progress the class holds (their class link brings it back).",
        )
    else:
        st.caption(f"Each lesson ends with exercises ({total} in all); your progress shows here.")
    for number, lesson in enumerate(LESSON.course.lessons, start=1):
        col_link, col_question = st.columns([1, 2.2], vertical_alignment="center")
        col_link.page_link(lesson.page_file, label=f"{number}. {lesson.title}", icon=lesson.icon)
        if started:
            # once a student has started, each lesson says how far they are in it, under its link
            col_link.caption(lesson_progress_text(lesson))
        col_question.markdown(lesson.question)

    st.subheader("In a classroom")
    col_link, col_question = st.columns([1, 2.2], vertical_alignment="center")
    col_link.page_link(
        LESSON.course.class_page.page_file, label=LESSON.course.class_page.title, icon=LESSON.course.class_page.icon
    )
    col_question.markdown(
        f"A teacher projects one of the lessons' {len(LESSON.course.all_polls())} questions; the class predicts "
        "on phones or laptops, votes again after talking it over, and sees the answer measured."
    )

    st.subheader("Every method at a glance")
    st.caption(
        "How each method gives attention a sense of position. 'Past the training length' "
        "summarises what the papers report; the lessons let you measure it."
    )
    layout.table(list(METHODS), border="horizontal", rows_on_phone="method_table")
