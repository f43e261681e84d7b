"""The page Streamlit runs for "Design choices": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.choices.lesson import LESSON

LESSON.show()
