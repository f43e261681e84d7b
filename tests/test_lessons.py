"""The lesson records: one per page, each written once, and the lesson-side table of RoPE
scaling variants in step with the core's registry."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import posenc
from posenc_lab import course as lessons
from posenc_lab.course import CLASS, COURSE, HOME, LESSONS, REFERENCE
from posenc_lab.lessons.rope import lesson as rope_lesson
from posenc_lab.ui.lesson import Lesson

ROOT = Path(__file__).resolve().parents[1]
ALL = (HOME, *LESSONS, *REFERENCE)


@pytest.mark.parametrize("lesson", ALL, ids=[lesson.name for lesson in ALL])
def test_each_page_draws_the_one_record_of_its_lesson_folder(lesson):
    """A lesson is one folder: ``lesson.py`` makes the record, ``page.py`` (what Streamlit runs)
    imports that record and shows it, so every run draws the record the course lists."""
    folder = ROOT / "posenc_lab" / "lessons" / lesson.name
    assert Path(lesson.file).resolve() == folder / "lesson.py"
    assert (ROOT / lesson.path).resolve() == folder / "page.py" == Path(lesson.page_file)
    module = importlib.import_module(f"posenc_lab.lessons.{lesson.name}.lesson")
    assert module.LESSON is lesson
    assert lesson._intro is not None, "a page draws something"
    page = ast.parse((folder / "page.py").read_text(encoding="utf-8"))
    statements = [
        node for node in page.body if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    ]
    assert [ast.unparse(node) for node in statements] == [
        f"from posenc_lab.lessons.{lesson.name}.lesson import LESSON",
        "LESSON.show()",
    ]
    # the record's module draws nothing on import
    assert "LESSON.show()" not in (folder / "lesson.py").read_text(encoding="utf-8")


def test_the_course_numbers_its_lessons_and_hands_itself_to_every_record():
    assert [lesson.number for lesson in LESSONS] == list(range(1, len(LESSONS) + 1))
    assert all(lesson.number is None for lesson in (HOME, CLASS, *REFERENCE))
    assert all(lesson.course is COURSE for lesson in (*ALL, CLASS))
    assert COURSE.pages == (HOME, CLASS, *LESSONS, *REFERENCE)


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
