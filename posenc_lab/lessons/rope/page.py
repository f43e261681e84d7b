"""The page Streamlit runs for "RoPE": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.rope.lesson import LESSON

LESSON.show()
