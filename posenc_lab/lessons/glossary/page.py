"""The page Streamlit runs for "Glossary": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.glossary.lesson import LESSON

LESSON.show()
