"""The page Streamlit runs for "References": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.references.lesson import LESSON

LESSON.show()
