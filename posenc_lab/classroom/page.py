"""The page Streamlit runs for "Class mode": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.classroom.lesson import LESSON

LESSON.show()
