"""Home: what the app teaches, the path through the lessons, and every method at a glance."""

import streamlit as st

import lessons
from ui import exercises
from ui.catalog import METHODS
from ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Start here",
    "",
    question="What does this app teach, and in what order?",
    icon=":material/explore:",
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

    st.subheader("The path")
    solved, total = exercises.progress()
    if solved:
        st.progress(solved / total, text=f"Exercises solved in this session: {solved} of {total}")
    else:
        st.caption(f"Each lesson ends with exercises ({total} in all); your progress shows here.")
    for number, lesson in enumerate(lessons.LESSONS, start=1):
        col_link, col_question = st.columns([1, 2.2], vertical_alignment="center")
        col_link.page_link(lesson.path, label=f"{number}. {lesson.title}", icon=lesson.icon)
        col_question.markdown(lesson.question)

    st.subheader("Every method at a glance")
    st.caption(
        "How each method gives attention a sense of position. 'Past the training length' "
        "summarises what the papers report; the lessons let you measure it."
    )
    st.table(list(METHODS), border="horizontal", hide_index=True)


if __name__ == "__main__":
    LESSON.show()
