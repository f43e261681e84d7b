"""The page Streamlit runs for "Sinusoidal encoding": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.sinusoidal.lesson import LESSON

LESSON.show()
