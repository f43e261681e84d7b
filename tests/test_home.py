"""The home page's picture: where position enters attention, drawn from the catalog and the
lesson records, and its builder on its own."""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go
import pytest
from app_helpers import assert_clean, open_page, panel_specs

from posenc_lab import course as lessons
from posenc_lab.lessons.home import figures as story
from posenc_lab.lessons.home import lesson as home
from posenc_lab.ui.catalog import METHODS

#: the families as the lessons teach them (issue 12): where each method enters attention
EXPECTED_STAGE = {
    "Sinusoidal": "Added to the input",
    "Learned absolute": "Added to the input",
    "Shaw et al. relative": "In the keys (and values)",
    "RoPE": "A rotation of q and k",
    "RoPE + context extension": "A rotation of q and k",
    "xPos": "A rotation of q and k",
    "T5 buckets": "A bias on the logits",
    "ALiBi": "A bias on the logits",
    "KERPLE": "A bias on the logits",
    "Transformer-XL": "Extra score terms",
    "DeBERTa": "Extra score terms",
}
#: method -> (lesson url_path, view key or None)
EXPECTED_LESSON = {
    "Sinusoidal": ("sinusoidal", None),
    "Learned absolute": ("learned", None),
    "Shaw et al. relative": ("relative", None),
    "RoPE": ("rope", None),
    "RoPE + context extension": ("rope", "scaling"),
    "xPos": ("rope", "xpos"),
    "T5 buckets": ("relative", "t5"),
    "ALiBi": ("alibi", None),
    "KERPLE": ("alibi", "kerple"),
    "Transformer-XL": ("relative", "xl"),
    "DeBERTa": ("relative", "deberta"),
}


def _texts(spec: dict) -> list[str]:
    """Every text line a chart draws, tags removed."""
    out = []
    for trace in spec["data"]:
        out += [re.sub(r"<[^>]+>", "", t) for t in trace.get("text") or []]
    return out


# the data, from the records


def test_every_method_lands_where_it_enters_attention():
    stages = {}
    for row in METHODS:
        index = home.stage_of(row)
        stages[home.short_name(row["Method"])] = None if index is None else home.STAGES[index].title
    assert stages.pop("None") is None  # the bag of words has no position to put anywhere
    assert stages == EXPECTED_STAGE


def test_every_method_is_taught_by_the_lesson_whose_record_names_it():
    found = {}
    for row in METHODS:
        taught = home.lesson_of(row["Method"])
        if taught is not None:
            found[home.short_name(row["Method"])] = (taught[0].url_path, taught[1])
    assert found == EXPECTED_LESSON
    for url_path, view in found.values():
        lesson = lessons.lesson_by_url(url_path)
        assert lesson is not None and (view is None or view in lesson.views)


def test_story_data_draws_every_placed_method_once():
    panels, drawn = home.story_data()
    assert [p[0] for p in panels] == [part[0] for part in home.PARTS]
    rows = [row for _, _, stages, _ in panels for _, stage_rows in stages for row in stage_rows]
    methods = [name.strip() for row in rows for name in row[0].split(", ")]
    assert sorted(methods) == sorted(EXPECTED_STAGE)
    number = {lesson.url_path: n for n, lesson in enumerate(lessons.LESSONS, start=1)}
    titles = {lesson.url_path: lesson.title for lesson in lessons.LESSONS}
    for methods_text, lesson_text, _ in rows:
        url = EXPECTED_LESSON[methods_text.split(", ")[0]][0]
        assert lesson_text == f"Lesson {number[url]}: {titles[url]}"
    # the downloads: per method drawn, its stage (1..5) and its lesson's number
    assert drawn.shape == (len(EXPECTED_STAGE), 2)
    titles_of_stage = [s.title for s in home.STAGES]
    expected = [
        (
            titles_of_stage.index(EXPECTED_STAGE[home.short_name(r["Method"])]) + 1,
            number[EXPECTED_LESSON[home.short_name(r["Method"])][0]],
        )
        for r in METHODS
        if home.short_name(r["Method"]) in EXPECTED_STAGE
    ]
    np.testing.assert_array_equal(drawn, np.array(expected, dtype=float))


# the builder


def _panels():
    return [
        (
            "Into the vectors",
            "Token vectors x",
            [
                ("Added to the input", [("Sinusoidal", "Lesson 2: Sinusoidal encoding", "a")]),
                (
                    "A rotation",
                    [("RoPE, RoPE + context extension, xPos, and one more long name", "Lesson 5: RoPE", "b")],
                ),
            ],
            "Queries meet keys",
        ),
        ("Into the scores", "Scores", [("A bias", [("T5 buckets", "Lesson 4: Relative positions", "c")])], "Softmax"),
    ]


def test_story_map_puts_every_line_on_its_own_row_and_within_the_wrap():
    fig = story.story_map(_panels(), title="Where position enters attention")
    assert isinstance(fig, go.Figure)
    assert fig.layout.title.text == "Where position enters attention"
    for axis in ("x", "x2"):
        texts, ys = [], []
        for trace in fig.data:
            if trace.xaxis == axis and trace.text is not None:
                texts += [re.sub(r"<[^>]+>", "", t) for t in trace.text]
                ys += list(trace.y)
        assert len(set(ys)) == len(ys), "two texts on one row would overlap"
        gaps = np.diff(sorted(ys))
        assert gaps.min() >= 1.0 - 1e-9
        assert max(len(t) for t in texts) <= story.WRAP
    all_texts = [re.sub(r"<[^>]+>", "", t) for trace in fig.data if trace.text is not None for t in trace.text]
    # the long method list wraps onto two lines, every word kept
    assert "RoPE, RoPE + context extension," in all_texts
    assert any(t.endswith("one more long name") for t in all_texts)
    # stages coloured in order across panels, from the colour-blind-safe palette
    stage_colours = [
        c
        for t in fig.data
        if t.text is not None and t.marker.symbol == "circle" and t.marker.opacity == 1
        for c in t.marker.color
    ]
    assert stage_colours == list(story.PALETTE[:3])
    # tall enough for a line every LINE_PX pixels
    assert fig.layout.height >= 9 * story.LINE_PX


def test_story_map_refuses_nothing_to_draw():
    with pytest.raises(ValueError, match="panels"):
        story.story_map([], title="t")


# the page


def test_home_page_draws_the_picture_with_every_family_and_its_lesson():
    at = open_page()
    assert_clean(at)
    specs = panel_specs(at)
    assert list(specs) == ["home_story"]
    panels = specs["home_story"]
    assert len(panels) == 2, "the vectors and the scores, one chart each (stacked on a phone)"
    texts = " ".join(t for spec in panels for t in _texts(spec))
    for name in EXPECTED_STAGE:
        assert name in texts, name
    for stage in home.STAGES:
        assert stage.title in texts
    for url, _ in set(EXPECTED_LESSON.values()):
        lesson = lessons.lesson_by_url(url)
        assert f"{lesson.title}" in texts
    # the path's links and the class page's are still the only page links in the main area
    assert len(at.main.get("page_link")) == len(lessons.LESSONS) + 1


# the path: each lesson's progress


def _path_progress(at) -> list[str]:
    return [c.value for c in at.main.caption if "exercises solved" in c.value]


def test_the_path_shows_each_lessons_progress_once_the_student_has_started():
    from app_helpers import APP, TIMEOUT
    from streamlit.testing.v1 import AppTest

    from posenc_lab.ui import progress as stored_progress
    from posenc_lab.ui.exercise_kinds import Guided

    assert not _path_progress(open_page()), "nothing solved: the path lists the lessons alone"
    rope, sinusoidal = lessons.lesson_by_url("rope"), lessons.lesson_by_url("sinusoidal")
    # RoPE: one of its two (the one that is not a guided proof); the sinusoid: all of them
    one = next(ex for ex in rope.exercises if not isinstance(ex, Guided))
    keys = [one.key] + [ex.key for ex in sinusoidal.exercises]
    assert not any(isinstance(ex, Guided) for ex in sinusoidal.exercises)
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    # this browser's storage reports what it holds, as the progress store does (ui.progress)
    at.session_state[stored_progress.COMPONENT_KEY] = {"stored": repr(keys).replace("'", '"')}
    at.run()
    assert_clean(at)
    shown = _path_progress(at)
    # one under each lesson's link, in the path's order
    assert len(shown) == len(lessons.LESSONS), shown
    said = dict(zip([lesson.url_path for lesson in lessons.LESSONS], shown, strict=True))
    assert said["rope"] == f"1 of {len(rope.exercises)} exercises solved" + "".join(
        f"  \n**{label}**: 0 of 3 right in a row" for label in rope.skills.values()
    )
    n_sin = len(sinusoidal.exercises)
    # a lesson with skills lists each one's mastery under the count (solved is not mastered)
    assert said["sinusoidal"] == f":material/check_circle: {n_sin} of {n_sin} exercises solved" + "".join(
        f"  \n**{label}**: 0 of 3 right in a row" for label in sinusoidal.skills.values()
    )
    learned = lessons.lesson_by_url("learned")
    assert said["learned"] == f"0 of {len(learned.exercises)} exercises solved" + "".join(
        f"  \n**{label}**: 0 of 3 right in a row" for label in learned.skills.values()
    )
    # beside its link: the caption sits in the link's column
    columns = [c for c in at.main.columns if c.get("page_link")]
    rope_column = next(c for c in columns if c.get("page_link")[0].proto.label.endswith(". RoPE"))
    assert [c.value for c in rope_column.caption] == [said["rope"]]
