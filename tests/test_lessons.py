"""The lesson records: one per page, each written once, and the lesson-side table of RoPE
scaling variants in step with the core's registry."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import lessons
import posenc
from lessons import HOME, LESSONS, REFERENCE
from lessons import rope as rope_lesson
from ui.lesson import Lesson

ROOT = Path(__file__).resolve().parents[1]
ALL = (HOME, *LESSONS, *REFERENCE)


@pytest.mark.parametrize("lesson", ALL, ids=[lesson.path for lesson in ALL])
def test_each_page_is_its_own_record(lesson):
    """The path comes from the file itself, and the module's record is the one listed."""
    assert (ROOT / lesson.path).is_file()
    module = importlib.import_module(lesson.path.removesuffix(".py").replace("/", "."))
    assert module.LESSON is lesson
    assert lesson._intro is not None, "a page draws something"
    # a page runs when Streamlit executes the file, never on import
    assert 'if __name__ == "__main__":\n    LESSON.show()' in (ROOT / lesson.path).read_text()


def test_paths_and_url_paths_are_unique():
    assert len({lesson.path for lesson in ALL}) == len(ALL)
    assert len({lesson.url_path for lesson in ALL}) == len(ALL)
    assert HOME.url_path == ""


def test_every_view_has_a_label_and_a_function():
    for lesson in ALL:
        for key, view in lesson.views.items():
            assert view.key == key and key.isidentifier()
            assert view.label and callable(view.draw)
        assert list(lesson.view_labels) == list(lesson.views)


def test_a_view_key_registers_once():
    lesson = Lesson(__file__, "T", "t")
    lesson.view("a", "A")(lambda: None)
    with pytest.raises(ValueError, match="'a' is registered twice"):
        lesson.view("a", "again")(lambda: None)


def test_exercises_and_the_largest_settings_belong_to_lessons():
    assert lessons.BANK == {lesson.path: lesson.exercises for lesson in LESSONS}
    assert all(lesson.exercises for lesson in LESSONS)
    assert not HOME.exercises and not any(ref.exercises for ref in REFERENCE)
    assert all(lesson.largest for lesson in LESSONS)


def test_the_rope_lesson_shows_every_scaling_variant_of_the_core():
    """A new variant is one entry in posenc.ROPE_VARIANTS and one in the lesson's table."""
    shown = set(rope_lesson.EXTENSIONS)
    core = set(posenc.ROPE_VARIANTS) - {"default"}  # unscaled RoPE is the baseline, not an extension
    assert shown == core, f"in the core only: {sorted(core - shown)}; in the lesson only: {sorted(shown - core)}"
    for name, extension in rope_lesson.EXTENSIONS.items():
        assert extension.label and extension.formula, name
        assert "factor" in posenc.ROPE_VARIANTS[name].keys, name
