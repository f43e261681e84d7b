"""The page Streamlit runs for "Real models": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.models.lesson import LESSON

LESSON.show()
