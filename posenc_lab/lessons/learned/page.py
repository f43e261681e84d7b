"""The page Streamlit runs for "Learned positions": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.learned.lesson import LESSON

LESSON.show()
