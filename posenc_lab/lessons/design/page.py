"""The page Streamlit runs for "Design your own encoding": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.design.lesson import LESSON

LESSON.show()
