"""The page Streamlit runs for "Common claims, measured": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.claims.lesson import LESSON

LESSON.show()
