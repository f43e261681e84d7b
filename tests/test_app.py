"""The app under AppTest: every page at defaults, slider extremes, bad URLs, shared state."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from app_helpers import (
    CHEAP,
    GARBAGE,
    LESSON_PAGES,
    ROOT,
    VIEW_CASES,
    VIEW_IDS,
    assert_clean,
    chart_bytes,
    charts,
    default_view,
    open_page,
)

import posenc
from posenc_lab.course import lesson_by_path
from posenc_lab.figures.arrays import as_array
from posenc_lab.ui import state

MB = 1_000_000


def test_there_is_no_pages_folder_to_trigger_legacy_discovery():
    # with st.navigation, a pages/ folder beside the entry script makes Streamlit's first run
    # auto-discover it: neither entry script (a checkout's app.py, the installed
    # posenc_lab/app.py) has one
    assert not (ROOT / "pages").exists()
    assert not (ROOT / "posenc_lab" / "pages").exists()


def test_home_page_shows_the_path_and_the_method_table():
    at = open_page()
    assert_clean(at)
    assert at.title[0].value.startswith("How do Transformers know word order")
    links = [el.proto.label for el in at.main.get("page_link")]
    assert len(links) == len(LESSON_PAGES) + 1  # the lessons, then the class page
    assert links[0].startswith("1. Why order matters")
    assert links[-1] == "Class mode"
    table = at.table[0].value
    assert {"Sinusoidal (Vaswani et al. 2017)", "ALiBi (Press et al. 2021)", "Learned absolute"} <= set(table["Method"])
    assert {"Learned parameters", "Past the training length", "Used in", "Relative information"} <= set(table.columns)


@pytest.mark.parametrize(("page", "query"), VIEW_CASES, ids=VIEW_IDS)
def test_every_lesson_runs_at_defaults_with_a_chart_and_a_url(page, query):
    at = default_view(page, query)
    assert_clean(at)
    assert at.title, "a lesson has a title"
    assert charts(at), "a lesson has at least one chart"
    assert at.get("latex"), "a lesson states its formula"
    assert any("What to notice" in c.value for c in at.caption)
    # the app script ran around the page (the shared shell), not the page alone
    assert at.session_state["_page"] == page.split("/")[-2].replace("_", "-")
    # every control is mirrored in the URL
    assert at.query_params, "controls are written to the URL"


@pytest.mark.slow
@pytest.mark.parametrize(("page", "query"), VIEW_CASES, ids=VIEW_IDS)
def test_every_slider_at_its_minimum_and_maximum(page, query):
    """Each slider alone at each end, the others at their defaults: one session moves a
    slider to its minimum, then its maximum, then back to its default with the next
    slider's first move (one run for both)."""
    defaults = default_view(page, query)
    sliders = {s.key: s.value for s in defaults.slider}
    selects = {s.key: s.value for s in defaults.select_slider}
    assert sliders
    at = open_page(page, query)
    previous = None
    for key in [*sliders, *selects]:
        if previous is not None:
            (at.slider if previous in sliders else at.select_slider)(key=previous).set_value(
                {**sliders, **selects}[previous]
            )
        for end in (0, -1):
            if key in sliders:
                widget = at.slider(key=key)
                widget.set_value(int((widget.min, widget.max)[end]))
            else:
                # AppTest shows only the labels; ui.state keeps the values behind them
                at.select_slider(key=key).set_value(at.session_state["_options"][key.removeprefix("w:")][end])
            at.run()
            assert_clean(at)
            assert charts(at), (key, end)
            assert max(chart_bytes(at)) < MB, (key, end)
        previous = key


def _record_controls(monkeypatch) -> list[tuple]:
    """Every control the next runs draw, as ``ui.state`` builds it: (name, default, parse,
    fix, encode), the closures holding the control's real range, step and options."""
    drawn: list[tuple] = []
    control = state._control

    def recording(name, default, parse, fix, draw, encode=str, omit_default=False):
        drawn.append((name, default, parse, fix, encode))
        return control(name, default, parse, fix, draw, encode, omit_default)

    monkeypatch.setattr(state, "_control", recording)
    return drawn


def _repair(default, parse, fix, encode, raw: str) -> tuple[str, bool]:
    """What ``ui.state._control`` makes of ``raw`` in the URL: the value it writes back to
    the URL (encoded) and whether a notice says the value was replaced."""
    value, problem = parse(raw)
    try:
        value = fix(value)
    except (TypeError, ValueError):
        value = default
    return encode(value), problem is not None


#: one garbage value per view, in turn, for the run of the whole app (each value reaches
#: five or more views); every control of every view meets all of them through its own
#: parse, and tests/test_state.py runs ui.state's whole path for each kind of control
GARBAGE_CASES = [(page, query, GARBAGE[i % len(GARBAGE)]) for i, (page, query) in enumerate(VIEW_CASES)]


@pytest.mark.slow
@pytest.mark.parametrize(("page", "query", "junk"), GARBAGE_CASES, ids=VIEW_IDS)
def test_garbage_in_the_url_becomes_a_notice_not_a_traceback(page, query, junk, monkeypatch):
    names = [name for name in default_view(page, query).query_params if name != "view"]
    drawn = _record_controls(monkeypatch)
    at = open_page(page, {**query, **{name: junk for name in names}})
    assert_clean(at)
    assert charts(at)
    assert at.warning, "a notice says which values were replaced"
    repaired = dict(at.query_params)
    again = open_page(page, repaired)
    assert_clean(again)
    assert not again.warning, [w.value for w in again.warning]
    assert dict(again.query_params) == repaired
    # every control the view drew, against every garbage value: a value that is replaced
    # gets a notice, one that is kept stays as written, and the repaired value is a fixed point
    assert drawn
    for name, default, parse, fix, encode in drawn:
        for raw in GARBAGE:
            written, noticed = _repair(default, parse, fix, encode, raw)
            assert noticed == (written != raw), (name, raw, written)
            assert _repair(default, parse, fix, encode, written) == (written, False), (name, raw, written)


@pytest.mark.parametrize("page", LESSON_PAGES)
def test_unknown_url_names_are_dropped_and_bad_views_fall_back(page):
    at = open_page(page, {"view": "nonsense", "foo": "bar", "d_model": "x" * 5000})
    assert_clean(at)
    assert charts(at)
    assert "foo" not in at.query_params
    assert all(len(v) < 300 for v in at.query_params.values())


def test_out_of_range_url_values_snap_to_the_nearest_valid_value_with_a_notice():
    at = open_page(
        "posenc_lab/lessons/sinusoidal/page.py", {"d_model": "33", "n": "999999", "base": "12345", "layout": "zigzag"}
    )
    assert_clean(at)
    assert at.slider(key="w:d_model").value == 32
    assert at.slider(key="w:n").value == 4096
    assert at.select_slider(key="w:base").value == 10_000
    assert at.radio(key="w:layout").value == "interleaved"
    notice = at.warning[0].value
    for name in ("d_model", "n", "base", "layout"):
        assert f"`{name}=" in notice


def test_a_link_reproduces_the_exact_view():
    query = {"d_model": "64", "n": "100", "base": "500", "layout": "concat", "view": "waves", "dims": "0,5"}
    at = open_page("posenc_lab/lessons/sinusoidal/page.py", query)
    assert_clean(at)
    assert not at.warning
    assert dict(at.query_params) == query
    assert at.slider(key="w:d_model").value == 64
    assert at.multiselect(key="w:dims").value == [0, 5]
    waves = charts(at)[0]
    assert [t["name"] for t in waves["data"]] == ["dim 0", "dim 5"]
    # dimension 0 is sin(p) for every p: drawn through 8 points a position, a smooth wave,
    # not a zig-zag of straight segments between whole positions
    x, y = (as_array(waves["data"][0][axis]) for axis in ("x", "y"))
    assert x.size == 99 * 8 + 1 and np.allclose(np.diff(x), 1 / 8)
    np.testing.assert_allclose(y, np.sin(x), atol=1e-6)
    at = open_page("posenc_lab/lessons/sinusoidal/page.py", {**query, "view": "heatmap"})
    assert "100 positions x 64 dimensions" in charts(at)[0]["layout"]["title"]["text"]


def test_controls_keep_their_values_across_pages():
    at = open_page("posenc_lab/lessons/sinusoidal/page.py", {"view": "shift"})
    at.slider(key="w:d_model").set_value(64).run()
    at.slider(key="w:k").set_value(9).run()
    at.switch_page("posenc_lab/lessons/learned/page.py").run()
    assert_clean(at)
    assert at.slider(key="w:d_model").value == 64, "d_model is shared by both lessons"
    assert at.query_params["d_model"] == "64"
    assert "k" not in at.query_params, "the URL names only this page's controls"
    at.switch_page("posenc_lab/lessons/sinusoidal/page.py").run()
    assert at.slider(key="w:d_model").value == 64
    assert at.slider(key="w:k").value == 9


def _go(at, page: str, view: str | None) -> None:
    """Move to ``page`` (and pick ``view``) as a student does, with the menu and the view
    picker: a control this session has kept reads no URL again."""
    at.switch_page(page).run()
    if view and at.radio(key="w:view").value != view:
        at.radio(key="w:view").set_value(view).run()


@pytest.mark.slow
def test_a_session_that_opens_every_view_in_turn_never_fails():
    at = open_page(
        "posenc_lab/lessons/experiments/page.py", CHEAP["posenc_lab/lessons/experiments/page.py"]
    )  # its cheap settings, kept
    for page, query in [*VIEW_CASES, *reversed(VIEW_CASES)]:
        _go(at, page, query.get("view"))
        assert not at.exception, (page, query, [e.message for e in at.exception])


def _chart_places(at) -> dict[str, tuple[int, ...]]:
    """Each chart of the main area by its key: its place in the page, the indices of the
    blocks and elements that lead to it. Streamlit's frontend keeps an element's component
    by its place, so a chart that changes place is mounted and drawn anew even when its
    figure is the same."""
    places: dict[str, tuple[int, ...]] = {}

    def walk(node, path: tuple[int, ...]) -> None:
        for i, child in enumerate(getattr(node, "children", {}).values()):
            if getattr(child, "type", None) == "plotly_chart":
                places[str(child.key)] = (*path, i)
            walk(child, (*path, i))

    walk(at.main, ())
    return places


def _view_name(page: str, view: str | None) -> str:
    """A view's name as the benchmarks give it: ``alibi-slopes``, ``compare``."""
    return f"{page.split('/')[-2].replace('_', '-')}{'-' + view if view else ''}"


@pytest.mark.slow
def test_a_step_of_the_key_control_leaves_every_chart_in_its_place():
    """A key control's step (the slider benchmarks/browser_feel.py moves) redraws only the
    charts it changed: nothing it adds or removes above a chart (a formula, a longer notice)
    may move the charts below to another place (ALiBi's slopes at a non-power-of-two H drew
    all eight bias panels anew)."""
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))
    import browser_feel

    at = open_page(
        "posenc_lab/lessons/experiments/page.py", CHEAP["posenc_lab/lessons/experiments/page.py"]
    )  # its cheap settings, kept
    stepped = 0
    for page, query in VIEW_CASES:
        _go(at, page, query.get("view"))
        slider = browser_feel.app_test_slider(at, _view_name(page, query.get("view")))
        if slider is None:
            continue
        before = _chart_places(at)
        browser_feel.step_app_test_slider(slider)
        assert not at.exception, (page, query, [e.message for e in at.exception])
        after = _chart_places(at)
        moved = sorted(key for key in before.keys() & after.keys() if before[key] != after[key])
        assert not moved, (page, query, slider.key, moved)
        stepped += 1
    assert stepped >= len(VIEW_CASES) - 6, stepped  # all but the experiments' training views


def test_moving_a_slider_changes_the_figure_data():
    at = open_page("posenc_lab/lessons/sinusoidal/page.py")
    before = charts(at)
    at.slider(key="w:d_model").set_value(32).run()
    after = charts(at)
    assert before[0]["data"][0]["z"] != after[0]["data"][0]["z"]
    assert "32 dimensions" in after[0]["layout"]["title"]["text"]


def test_why_order_measures_equivariance_and_its_failure_with_positions():
    at = open_page("posenc_lab/lessons/why_order/page.py", {"sentence": "dog bites man"})
    assert_clean(at)
    without = float(at.metric[0].value)
    assert without < 1e-12
    at.toggle(key="w:positions").set_value(True).run()
    with_pe = float(at.metric[0].value)
    assert with_pe > 1e-3
    weights = charts(at)[0]["data"]
    assert weights[1]["x"] == ["1. man", "2. bites", "3. dog"]


def test_why_order_recovers_from_an_empty_sentence():
    at = open_page("posenc_lab/lessons/why_order/page.py")
    at.text_input(key="w:sentence").set_value("   ").run()
    assert_clean(at)
    assert charts(at)


@pytest.mark.parametrize(("d_model", "pair", "gap"), [("64", 31, "25.0% lower"), ("512", 255, "3.5% lower")])
def test_sinusoidal_layout_help_measures_tensor2tensors_other_frequencies(d_model, pair, gap):
    d = int(d_model)
    # tensor2tensor's get_timing_signal_1d: log_timescale_increment = ln(max / min) / (num_timescales - 1)
    increment = math.log(10_000.0) / (d // 2 - 1)
    theirs = np.array([math.exp(-i * increment) for i in range(d // 2)])
    paper = np.array([10_000.0 ** (-2 * i / d) for i in range(d // 2)])
    np.testing.assert_allclose(posenc.absolute.tensor2tensor_frequencies(d), theirs, rtol=1e-13)
    ratio = theirs / paper
    assert int(np.argmax(np.abs(ratio - 1))) == pair == d // 2 - 1
    assert f"{1 - ratio[pair]:.1%} lower" == gap, "the slowest pair: 1 - base^(-2/d)"
    at = open_page("posenc_lab/lessons/sinusoidal/page.py", {"d_model": d_model})
    assert_clean(at)
    help_text = next(r for r in at.radio if r.label == "Layout").proto.help
    assert "Same numbers" not in help_text
    assert f"theirs are up to {gap} (pair {pair}, the slowest)" in help_text
    assert "concatenate them" in help_text and "base^(−i/(d/2 − 1))" in help_text


def test_learned_std_help_gives_each_model_its_own_initial_std():
    at = open_page("posenc_lab/lessons/learned/page.py")
    std = at.select_slider(key="w:std")
    assert std.value == 0.02
    help_text = std.proto.help
    # BERT's initializer_range is 0.02; OpenAI's GPT-2 draws wpe with stddev 0.01
    assert "BERT draws its table with std 0.02" in help_text and "(wpe) with std 0.01" in help_text
    assert "GPT-2 and BERT start at 0.02" not in help_text


def test_learned_page_shows_the_core_error_past_max_len_and_none_within():
    at = open_page("posenc_lab/lessons/learned/page.py", {"max_len": "64", "seq_len": "100"})
    assert_clean(at)
    # a panel of the lesson, not an error box
    assert not at.error
    message = " ".join(m.value for m in at.markdown)
    assert "The table ends at row 63" in message
    assert "PositionOutOfRange" in message and "max_len=64" in message and "position 64" in message
    at.slider(key="w:seq_len").set_value(64).run()
    assert not at.error
    assert at.success


@pytest.mark.parametrize("view", list(lesson_by_path("posenc_lab/lessons/sinusoidal/page.py").views))
def test_largest_settings_keep_every_figure_under_one_megabyte(view):
    largest = {"d_model": "1024", "n": "4096", "anchor": "4095", "p": "4095", "k": "512", "view": view}
    at = open_page("posenc_lab/lessons/sinusoidal/page.py", largest)
    assert_clean(at)
    assert not at.warning
    assert max(chart_bytes(at)) < MB


def test_largest_learned_table_keeps_every_figure_under_one_megabyte():
    at = open_page(
        "posenc_lab/lessons/learned/page.py", {"d_model": "1024", "max_len": "2048", "seq_len": "4096", "dim": "1023"}
    )
    assert_clean(at)
    assert max(chart_bytes(at)) < MB


def _log_axes_data(spec: dict) -> dict[str, list[float]]:
    """axis reference ("x", "y2") -> the positive values the traces put on it, for log axes."""
    layout, found = spec["layout"], {}
    for trace in spec["data"]:
        for letter in ("x", "y"):
            ref = trace.get(f"{letter}axis", letter)
            axis = layout.get(f"{letter}axis{ref[1:]}", {})
            if axis.get("type") != "log" or letter not in trace:
                continue
            values = as_array(trace[letter]).astype(float).ravel()
            found.setdefault(ref, []).extend(values[np.isfinite(values) & (values > 0)].tolist())
    return found


@pytest.mark.parametrize(("page", "query"), VIEW_CASES, ids=VIEW_IDS)
def test_labels_on_log_axes_sit_among_the_data(page, query):
    # Plotly places an annotation on a log axis in log10 units (a shape in data units): a
    # label given the data value y = 256 sat at 10^256 and stretched the axis to 10^264
    for spec in charts(default_view(page, query)):
        data = _log_axes_data(spec)
        for note in spec["layout"].get("annotations", []):
            for letter in ("x", "y"):
                ref = note.get(f"{letter}ref", "")
                if ref in data and data[ref]:
                    low, high = np.log10(min(data[ref])), np.log10(max(data[ref]))
                    assert low - 3 <= float(note[letter]) <= high + 3, (note.get("text"), note[letter], low, high)


def test_why_order_bars_stay_on_one_fixed_log_axis_with_their_values_written():
    """Rounding (1e-16) must look small next to a real difference (about 1), in both settings."""
    ranges = []
    for positions in ("0", "1"):
        at = open_page("posenc_lab/lessons/why_order/page.py", {"positions": positions})
        assert_clean(at)
        bars = charts(at)[-1]
        axis = bars["layout"]["yaxis"]
        assert axis["type"] == "log"
        ranges.append(tuple(axis["range"]))
        (trace,) = bars["data"]
        values = as_array(trace["customdata"]).reshape(-1)
        assert trace["text"] == [f"{v:.1e}" if v != 0 else "0" for v in values]
        if positions == "0":
            assert values.max() < 1e-12
        else:
            assert values.max() > 1e-3
    assert ranges[0] == ranges[1] == (-17.0, 1.0)


@pytest.mark.parametrize(("page", "query"), VIEW_CASES, ids=VIEW_IDS)
def test_every_chart_has_a_sentence_for_screen_readers(page, query):
    at = default_view(page, query)
    for el in at.get("plotly_chart"):
        assert el.proto.alt.endswith("Its numbers are in the CSV download below."), el.proto.alt
        assert len(el.proto.alt) > 60, el.proto.alt
