"""Class mode: a teacher opens a lesson's question, the class votes, votes again after
talking it over, and the reveal shows the measurement that settles it (``classroom.views``)."""

from __future__ import annotations

from posenc_lab.classroom import views
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Class mode",
    "class",
    question="Predict, vote and reveal with the whole room.",
    icon=":material/groups:",
)


@LESSON.page
def page() -> None:
    views.page(LESSON.course)
