"""The page Streamlit runs for "Compare them all": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.compare.lesson import LESSON

LESSON.show()
