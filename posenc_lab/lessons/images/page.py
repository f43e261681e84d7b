"""The page Streamlit runs for "Beyond one dimension": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.images.lesson import LESSON

LESSON.show()
