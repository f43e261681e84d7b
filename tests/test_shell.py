"""The shell around every lesson: presenter mode, speaker notes, previous / next links,
downloads, and the reference pages."""

from __future__ import annotations

import io

import numpy as np
import pytest
from app_helpers import LESSON_PAGES, ROOT, VIEW_CASES, VIEW_IDS, assert_clean, charts, default_view, open_page

import posenc
from posenc_lab import figures
from posenc_lab.course import LESSONS, REFERENCE
from posenc_lab.figures import export
from posenc_lab.ui import layout


def _links(at):
    return [el.proto.label for el in at.get("page_link")]


@pytest.mark.parametrize("index", range(len(LESSONS)))
def test_each_lesson_links_to_the_previous_and_next_one(index):
    at = open_page(LESSONS[index].path, {"train_len": "8", "steps": "50", "width": "16"})
    assert_clean(at)
    links = _links(at)
    if index == 0:
        assert "Back to the start" in links
    else:
        assert f"Previous: {LESSONS[index - 1].title}" in links
    if index + 1 < len(LESSONS):
        assert f"Next: {LESSONS[index + 1].title}" in links
    else:
        assert not any(link.startswith("Next:") for link in links)


def test_presenter_mode_from_the_url_folds_the_explanations_into_speaker_notes():
    normal = open_page("posenc_lab/lessons/sinusoidal/page.py")
    present = open_page("posenc_lab/lessons/sinusoidal/page.py", {"present": "1"})
    assert_clean(present)
    assert present.query_params["present"] == "1"
    lead = "The original Transformer adds a fixed vector"
    assert any(lead in m.value for m in normal.markdown)
    # once, and that once is inside the speaker notes
    assert sum(lead in m.value for m in present.markdown) == 1
    labels = [e.label for e in present.expander]
    # exactly one, under the view (it is redrawn with it) and above the exercises
    assert labels.count("Speaker notes") == 1
    exercises_at = next(i for i, label in enumerate(labels) if label.startswith("Exercises"))
    assert labels.index("Speaker notes") < exercises_at
    notes = present.expander[labels.index("Speaker notes")]
    assert any(lead in m.value for m in notes.markdown)
    assert any("What to notice" in m.value for m in notes.markdown)
    assert not any("What to notice" in c.value for c in present.caption)
    # larger type in the figures
    assert charts(present)[0]["layout"]["font"]["size"] == 20
    # as tall, and as wide as a projector: the heatmap asks for less so that 1.3 times it
    # still ends above 1080 px (test_browser.py, its x axis on the first screen)
    assert charts(present)[0]["layout"]["height"] >= charts(normal)[0]["layout"]["height"]


def test_presenter_mode_can_be_switched_off_again():
    at = open_page("posenc_lab/lessons/learned/page.py", {"present": "1"})
    at.toggle(key="w:present").set_value(False).run()
    assert_clean(at)
    assert "present" not in at.query_params, "links stay clean when presenter mode is off"
    assert any("What to notice" in c.value for c in at.caption)


@pytest.mark.parametrize("page", LESSON_PAGES[:3])
def test_every_chart_has_csv_npy_and_html_downloads_in_its_data_expander(page):
    at = open_page(page)
    expanders = [e for e in at.expander if e.proto.id.split("-", 2)[-1].startswith(layout.DATA_AND_CODE)]
    # one per chart (a figure of several panels is one chart), closed and empty until opened
    assert expanders and not at.get("download_button") and not at.code
    for e in expanders:
        assert e.label in ("Data and code", "Data") and not e.proto.expanded
        at.session_state[e.proto.id.split("-", 2)[-1]] = True
    at.run()
    assert_clean(at)
    labels = [el.proto.label for el in at.get("download_button")]
    assert labels == ["CSV", ".npy", "HTML"] * len(expanders)
    assert len(at.code) == sum(e.label == "Data and code" for e in expanders)
    assert all(c.value.startswith(layout.CODE_PRELUDE) for c in at.code)


@pytest.mark.parametrize("ref", REFERENCE, ids=[r.url_path for r in REFERENCE])
def test_reference_pages_run(ref):
    at = open_page(ref.path)
    assert_clean(at)
    assert at.title[0].value == ref.title
    assert len(at.table[0].value) >= 4


def test_heatmap_export_holds_the_drawn_numbers():
    pe = posenc.sinusoidal(12, 6)
    fig = figures.heatmap(pe, x=np.arange(6), y=np.arange(12), title="t", x_title="x", y_title="y")
    values = np.load(io.BytesIO(export.to_npy(fig)))
    np.testing.assert_allclose(values, pe, atol=1e-7)  # figures send float32
    lines = export.to_csv(fig).decode().splitlines()
    assert lines[0] == ",0,1,2,3,4,5"
    first = [float(v) for v in lines[2].split(",")[1:]]
    np.testing.assert_allclose(first, pe[1], atol=1e-7)
    assert lines[2].split(",")[0] == "1"


def test_line_export_has_one_column_per_series_and_blank_cells_for_gaps():
    fig = figures.line_chart(
        np.arange(4), {"a": np.array([1.0, 2.0, np.nan, 4.0]), "b": np.zeros(4)}, title="t", x_title="x", y_title="y"
    )
    lines = export.to_csv(fig).decode().splitlines()
    assert lines[0] == ",a,b"
    assert lines[3] == "2,,0"
    values = np.load(io.BytesIO(export.to_npy(fig)))
    assert values.shape == (4, 2) and np.isnan(values[2, 0])


@pytest.mark.parametrize(("page", "query"), VIEW_CASES, ids=VIEW_IDS)
def test_each_views_key_controls_sit_above_the_figure_in_every_mode(page, query):
    """A student moves the key control while watching the chart: on a phone the sidebar
    covers the chart, and in presenter mode it is collapsed; so the one or two telling
    controls are in the main area, in their own container, whether presenting or not."""
    kinds = ("slider", "select_slider", "radio", "toggle", "multiselect", "selectbox", "text_input")
    found = {}
    for mode, extra in (("normal", {}), ("present", {"present": "1"})):
        at = open_page(page, {**query, **extra}) if extra else default_view(page, query)
        assert_clean(at)
        stage = at.get_by_key(layout.KEY_CONTROLS_KEY)
        keys = [el.key for kind in kinds for el in stage.get(kind) if str(el.key).startswith("w:")]
        assert 1 <= len(keys) <= layout.KEY_CONTROLS, (mode, keys)
        side = {el.key for kind in kinds for el in at.sidebar.get(kind)}
        assert not side & set(keys), f"{mode}: a key control is also in the sidebar"
        found[mode] = keys
    assert found["normal"] == found["present"], "the same key controls in both modes"


@pytest.mark.parametrize(("page", "query"), VIEW_CASES, ids=VIEW_IDS)
def test_a_lessons_formula_is_under_its_lead_and_in_more_about_this_lesson(page, query):
    """``layout.lesson_formula``: app.css shows the copy in place on a wide screen and the
    one in "More about this lesson" on a phone, so each wide copy has its narrow twin,
    with the same formula, inside that expander when the lesson has one."""
    at = default_view(page, query)
    assert_clean(at)
    wide = {int(el.key.rsplit("_", 1)[1]): el for el in _keyed(at.main, "lesson_formula_wide_")}
    narrow = {int(el.key.rsplit("_", 1)[1]): el for el in _keyed(at.main, "lesson_formula_narrow_")}
    assert wide.keys() == narrow.keys() == set(range(1, len(wide) + 1))
    uses = "layout.lesson_formula(" in (ROOT / page).with_name("lesson.py").read_text()
    assert bool(wide) == uses, "the lesson draws its formula with layout.lesson_formula"
    more = [e for e in at.expander if e.label == "More about this lesson"]
    inside = {el.key for e in more for el in _keyed(e, "lesson_formula_narrow_")}
    for n in wide:
        assert [x.value for x in wide[n].latex] == [x.value for x in narrow[n].latex] != []
        assert not more or narrow[n].key in inside, f"formula {n} is not in More about this lesson"


def _keyed(node, prefix: str) -> list:
    """Every container under ``node`` whose key starts with ``prefix``, depth first."""
    found, todo = [], [node]
    while todo:
        block = todo.pop()
        for child in getattr(block, "children", {}).values():
            if str(getattr(child, "key", "") or "").startswith(prefix):
                found.append(child)
            todo.append(child)
    return found


#: the longest "What to notice" lead, and lesson lead, a view shows before its "More" expander
#: (characters, the heading left out): two sentences a student can check on the chart
LEAD_MAX_CHARS = 300


@pytest.mark.parametrize(("page", "query"), VIEW_CASES, ids=VIEW_IDS)
def test_every_view_leads_with_a_short_notice_and_folds_the_rest(page, query):
    at = default_view(page, query)
    assert_clean(at)
    folded = {id(el.proto) for e in at.expander for kind in ("caption", "markdown") for el in e.get(kind)}
    shown = [c.value for c in at.caption if id(c.proto) not in folded and c.value.startswith(layout.NOTICE)]
    assert shown, "a view ends with what to notice"
    for text in shown:
        lead = text.removeprefix(layout.NOTICE).strip()
        assert len(lead) <= LEAD_MAX_CHARS, f"{len(lead)} characters before the fold: {lead[:120]}..."
        assert len(layout.split_lead(lead, chars=10_000)[1]) == 0, f"more than two sentences shown: {lead[:120]}"
    # the lesson's own lead (the first paragraph under the title) is as short
    lead = next(m.value for m in at.markdown if id(m.proto) not in folded and m.value.strip())
    assert len(lead) <= LEAD_MAX_CHARS, f"the lesson's lead shows {len(lead)} characters: {lead[:120]}..."
