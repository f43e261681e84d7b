"""The page Streamlit runs for "Start here": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.home.lesson import LESSON

LESSON.show()
