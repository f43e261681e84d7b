"""The page Streamlit runs for "ALiBi and KERPLE": the record is imported once per process, and
every run draws it (``posenc_lab.ui.lesson``)."""

from posenc_lab.lessons.alibi.lesson import LESSON

LESSON.show()
