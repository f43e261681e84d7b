"""The page Streamlit runs for "Why order matters": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.why_order.lesson import LESSON

LESSON.show()
