"""The page Streamlit runs for "Experiments": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.experiments.lesson import LESSON

LESSON.show()
