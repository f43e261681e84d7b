"""figures.display: a built figure fitted to a desktop, a phone or a projector, and the
HTML export. Pure Plotly, no Streamlit."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from posenc_lab import figures
from posenc_lab.figures import display, export, plotly_private
from posenc_lab.lessons.compare.figures import score_grid
from posenc_lab.lessons.relative.figures import offset_panels

RNG = np.random.default_rng(0)


def _sizes(fig: go.Figure) -> list[tuple[str, float]]:
    """Every explicit text size of a finished figure, with where it sits."""
    out = []
    layout = fig.layout
    for name in [k for k in layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))]:
        axis = layout[name]
        out += [(f"{name}.tickfont", axis.tickfont.size), (f"{name}.title", axis.title.font.size)]
    out += [(f"annotation {a.text!r}", a.font.size) for a in layout.annotations]
    out.append(("legend", layout.legend.font.size))
    for i, trace in enumerate(fig.data):
        if getattr(trace, "texttemplate", None) or getattr(trace, "text", None) is not None:
            out.append((f"trace {i} text", trace.textfont.size))
    return out


def _every_kind_of_figure():
    z = RNG.standard_normal((8, 8))
    yield figures.heatmap(z, title="one heatmap", x_title="key", y_title="query")
    yield figures.line_chart(
        np.arange(1, 1000),
        {"a": np.arange(1, 1000) ** 0.5, "b": np.log(np.arange(1, 1000))},
        title="lines",
        x_title="p",
        y_title="v",
        log_x=True,
        vlines={"L": 100},
    )
    yield figures.grouped_bars(["x", "y"], {"s": [1e-16, 1.0]}, title="bars", x_title="w", y_title="d", log_y=True)
    yield figures.heatmap_panels([z, -z], ["left", "right"], title="two", x_title="key", y_title="query")


@pytest.mark.parametrize("fig", list(_every_kind_of_figure()), ids=["heatmap", "lines", "bars", "panels"])
def test_presenter_mode_sets_every_text_to_at_least_18_px_in_the_ink_colour(fig):
    _, rows = display.prepare(fig, present=True)
    for row in rows:
        for panel in row:
            sizes = _sizes(panel)
            assert sizes and all(size is not None and size >= display.PRESENT_MIN for _, size in sizes), sizes
            assert panel.layout.font.color == display.INK
            for name in [k for k in panel.layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))]:
                assert panel.layout[name].tickfont.color == display.INK
                if panel.layout[name].type == "log":
                    # exponents are drawn at 70%: they reach the minimum too
                    assert panel.layout[name].tickfont.size * display.SUPERSCRIPT >= display.PRESENT_MIN


def test_a_desktop_figure_keeps_the_builders_sizes_and_loses_only_its_title():
    fig = figures.heatmap(RNG.standard_normal((30, 30)), title="the title", x_title="key", y_title="query")
    title, rows = display.prepare(fig, present=False)
    (panel,) = rows[0]
    assert title == "the title" == display.title_of(panel)
    assert not panel.layout.title.text
    assert panel.layout.xaxis.tickfont.size == display.TEXT[0]
    assert fig.layout.title.text == "the title", "the shared figure is not changed"


def test_panels_become_one_figure_each_with_their_titles_axes_and_one_colour_bar():
    z = RNG.standard_normal((6, 6))
    fig = figures.heatmap_panels([z, 2 * z, -z], ["a", "b", "c"], title="three", x_title="key", y_title="query")
    title, rows = display.prepare(fig, present=False)
    assert title == "three" and len(rows) == 1 and len(rows[0]) == 3
    assert [display.title_of(p) for p in rows[0]] == ["a", "b", "c"]
    for panel, source in zip(rows[0], (z, 2 * z, -z), strict=True):
        assert len(panel.data) == 1
        np.testing.assert_allclose(export.figure_table(panel)[1], source.astype(np.float32))
        # each panel names its axes: on a phone it stands alone
        assert panel.layout.xaxis.title.text == "key" and panel.layout.yaxis.title.text == "query"
    shown = [p.layout.coloraxis.showscale is not False for p in rows[0]]
    assert shown == [False, False, True]
    assert rows[0][-1].layout.coloraxis.colorbar.orientation == "h", "under the last panel, not beside it"


def test_stacked_panels_sharing_an_axis_each_read_alone_without_room_for_a_bar_they_lack():
    from posenc_lab.lessons.rope.figures import scaling_chart

    before = np.geomspace(4, 40000, 12)
    ratio = np.clip(np.linspace(1.3, -0.2, 12), 0.5, 1.0)
    region = np.select([ratio == 1, ratio > 0.5], [0, 1], 2)
    fig = scaling_chart(before, before / ratio, ratio, region, factor=2.0, original_length=1024, title="t", height=640)
    assert fig.layout.xaxis.showticklabels is False, "make_subplots hid the upper panel's shared labels"
    _, rows = display.prepare(fig, present=False)
    assert [len(row) for row in rows] == [1, 1]
    for (panel,) in rows:
        assert panel.layout.xaxis.showticklabels is not False
        assert panel.layout.xaxis.title.text == "pair index i (fast → slow)"
    # the scaling chart has no colour bar: neither panel keeps the 90 px one would need
    bottoms = [row[0].layout.margin.b for row in rows]
    z = RNG.standard_normal((6, 6))
    heatmaps = figures.heatmap_panels([z, -z], ["a", "b"], title="t", x_title="k", y_title="q")
    _, heat = display.prepare(heatmaps, present=False)
    assert heat[0][-1].layout.margin.b >= heat[0][0].layout.margin.b + 60, "the heatmaps' bar has its room"
    assert max(bottoms) <= heat[0][0].layout.margin.b + 10


def test_an_empty_axis_title_is_unset_so_plotly_keeps_no_room_for_it():
    z = RNG.standard_normal((1, 12))
    specs = {}
    for y_title in ("", "RoPE?"):
        fig = figures.heatmap(z, y=["RoPE?"], title="t", x_title="layer", y_title=y_title)
        _, ((specs[y_title],),), _ = display.prepare_specs(fig, present=False)
    assert "text" not in specs[""]["layout"]["yaxis"]["title"]
    assert specs["RoPE?"]["layout"]["yaxis"]["title"]["text"] == "RoPE?"
    # the margin holds the labels only: Plotly would draw no title, so none is reserved
    assert specs[""]["layout"]["margin"]["l"] <= specs["RoPE?"]["layout"]["margin"]["l"] - 30


def test_a_grid_of_panels_splits_into_rows_and_keeps_each_note_with_its_panel():
    panels = [RNG.standard_normal((5, 5)) for _ in range(5)] + [None]
    names = [f"m{i}" for i in range(6)]
    fig = score_grid(panels, names, positions=np.arange(5), title="grid", missing=[""] * 5 + ["nothing here"])
    _, rows = display.prepare(fig, present=False)
    assert [len(r) for r in rows] == [3, 3]
    titles = [display.title_of(p) for r in rows for p in r]
    assert [t.split(" ")[0] for t in titles] == ["m0", "m1", "m2", "m3", "m4", "m5:"]
    assert [a.text for a in rows[1][2].layout.annotations] == ["nothing here"]


def test_small_heatmaps_print_their_values_when_they_fit_and_black_on_a_lightened_scale():
    fig = figures.heatmap(np.arange(9.0).reshape(3, 3) - 4, title="3x3", x_title="k", y_title="q")
    for present in (False, True):
        ((panel,),) = display.prepare(fig, present=present)[1]
        trace = panel.data[0]
        assert trace.texttemplate == "%{z:.0f}"
        assert trace.textfont.color == display.CELL_TEXT
        assert trace.textfont.size >= (display.PRESENT_MIN if present else 9)
        # the darkest colour of the scale is light enough for black text (>= 4.5:1)
        darkest = min(_luminance(c) for _, c in trace.colorscale)
        assert (darkest + 0.05) / 0.05 >= 4.5
    big = figures.heatmap(RNG.standard_normal((17, 17)), title="17x17", x_title="k", y_title="q")
    ((panel,),) = display.prepare(big, present=False)[1]
    assert panel.data[0].texttemplate is None


def test_cell_values_that_would_smear_on_a_phone_are_dropped():
    raw = np.subtract.outer(np.arange(40), np.arange(40))
    fig = offset_panels(raw, np.clip(raw, -3, 3), max_distance=3, annotate=True)
    _, rows = display.prepare(fig, present=False)
    assert all(p.data[0].texttemplate is None for p in rows[0])


@pytest.mark.parametrize("present", [False, True])
def test_the_shared_figure_is_left_as_it_was(present):
    for fig in _every_kind_of_figure():
        before = fig.to_json()
        display.prepare(fig, present=present)
        assert fig.to_json() == before


def test_panels_sharing_parts_of_one_figure_are_each_styled_once():
    z = RNG.standard_normal((5, 5))
    fig = figures.heatmap_panels([z, 2 * z, -z], ["a", "b", "c"], title="three", x_title="key", y_title="query")
    _, rows = display.prepare(fig, present=True)
    sizes = [dict(_sizes(p)) for p in rows[0]]
    assert all(s == sizes[0] for s in sizes), sizes
    assert {p.layout.font.size for p in rows[0]} == {display.TEXT[1]}
    bars = [p.layout.coloraxis.colorbar.tickfont.size for p in rows[0]]
    assert bars == [display.TEXT[1]] * 3


def test_an_animation_keeps_its_frames_and_is_one_chart():
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]), layout=dict(title=dict(text="moving")))
    fig.frames = [go.Frame(data=[go.Scatter(x=[0, 1], y=[k, 1])], name=str(k)) for k in range(3)]
    title, ((chart,),) = display.prepare(fig, present=False)
    assert title == "moving"
    assert [f.to_plotly_json() for f in chart.frames] == [f.to_plotly_json() for f in fig.frames]


def test_finish_styles_the_figure_it_is_given():
    fig = figures.heatmap(RNG.standard_normal((12, 12)) * 1000, title="big numbers", x_title="k", y_title="q")
    fig.update_traces(texttemplate="%{z:.3f}")  # cannot fit a phone's cells
    trace = fig.data[0]
    assert display.finish(fig, present=False) is fig
    assert fig.data[0] is trace and trace.texttemplate is None
    assert display.title_of(fig) == "big numbers" and not fig.layout.title.text
    assert fig.layout.xaxis.tickfont.size == display.TEXT[0]


def _luminance(colour: str) -> float:
    r, g, b = (int(v) / 255 for v in colour[colour.index("(") + 1 : -1].split(","))
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_log_axes_label_whole_decades_only():
    fig = figures.line_chart(
        np.logspace(0, 12, 50), {"y": np.arange(50.0)}, title="t", x_title="x", y_title="y", log_x=True
    )
    ((panel,),) = display.prepare(fig, present=False)[1]
    step = panel.layout.xaxis.dtick
    assert step == math.ceil(12 / 5)


def test_every_chart_gets_a_sentence_for_screen_readers():
    fig = figures.heatmap(RNG.standard_normal((4, 4)), title="Scores <b>now</b>", x_title="key j", y_title="query i")
    _, rows = display.prepare(fig, present=False)
    text = display.describe(rows[0][0], "Scores <b>now</b>")
    assert text.startswith("Heatmap: Scores now with key j across and query i down")
    assert "CSV" in text


def test_html_export_is_standalone_and_titled():
    fig = figures.heatmap(RNG.standard_normal((4, 4)), title="A heatmap", x_title="k", y_title="q")
    page = export.to_html(fig).decode()
    assert "A heatmap" in page
    assert "<script src=" not in page.lower(), "plotly.js is inlined: the file works offline"
    assert len(page) > 1_000_000
    assert fig.layout.title.text == "A heatmap"


# display.sendable: Plotly's deepcopy + convert_to_base64, in one pass


def _plotly_sends(tree):
    """What Plotly's own ``to_dict`` makes of a plain tree: a deep copy, arrays as base64."""
    from copy import deepcopy

    from _plotly_utils.utils import convert_to_base64

    copy = deepcopy(tree)
    convert_to_base64(copy)
    return copy


def _same(a, b) -> bool:
    """Equal trees, numpy arrays compared by dtype, shape and values (not just ``==``)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        )
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (a != a and b != b)  # NaN is its own equal here


#: every dtype branch of Plotly's typed arrays: narrowed int64 and uint64, ones left as
#: arrays (too wide, strings, booleans, empty), 2-D with a shape, float32
_ARRAYS = [
    np.linspace(-1.0, 1.0, 5),
    np.array([[1.5, np.nan], [np.inf, 0.0]]),
    np.arange(6).reshape(2, 3),
    np.array([1, 200]),
    np.array([1, 40_000]),
    np.array([1, 2**40]),
    np.arange(4, dtype=np.uint64),
    np.array([2**33], dtype=np.uint64),
    np.array([True, False]),
    np.array(["a", "bc"]),
    np.array([], dtype=float),
    np.float32([1.5, 2.0]),
    np.int8([1, -1]),
]


def _trees():
    from hypothesis import strategies as hst

    leaves = (
        hst.sampled_from(range(len(_ARRAYS))).map(lambda i: _ARRAYS[i].copy())
        | hst.integers(-5, 5)
        | hst.floats(allow_nan=True)
        | hst.text(max_size=3)
        | hst.none()
        | hst.booleans()
        | hst.just(np.float64(2.5))
    )
    keys = hst.sampled_from(["x", "y", "z", "marker", "range", "layer", "layers", "geojson", "text"])
    return hst.recursive(
        leaves,
        lambda kids: (
            hst.lists(kids, max_size=3)
            | hst.lists(kids, max_size=3).map(tuple)
            | hst.dictionaries(keys, kids, max_size=4)
        ),
        max_leaves=12,
    )


def test_sendable_is_what_plotly_makes_of_any_tree_and_leaves_the_tree_alone():
    from copy import deepcopy

    from hypothesis import given

    @given(_trees())
    def check(tree):
        before = deepcopy(tree)
        assert _same(display.sendable(tree), _plotly_sends(tree))
        assert _same(tree, before)

    check()


def test_typed_array_is_plotlys_encoding_of_any_array():
    from _plotly_utils.utils import to_typed_array_spec
    from hypothesis import given
    from hypothesis import strategies as hst
    from hypothesis.extra import numpy as hnp

    dtypes = hst.sampled_from(
        ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", ">f8", ">i4", "?", "c16", "U2", "M8[s]"]
    )
    arrays = hnp.arrays(dtypes, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    # int64 values that fit in each narrower integer type, and ones that fit in none
    wide = hnp.arrays("i8", hnp.array_shapes(max_dims=2), elements=hst.sampled_from([0, -128, 127, 40_000, -(2**40)]))
    views = hst.sampled_from(["as is", "every other", "transposed"])

    @given(arrays | wide, views)
    def check(value, view):
        if view == "every other" and value.ndim:
            value = value[::2]
        elif view == "transposed":
            value = value.T
        assert _same(plotly_private.typed_array_spec(value), to_typed_array_spec(value))

    check()


@pytest.mark.parametrize("fig", list(_every_kind_of_figure()), ids=["heatmap", "lines", "bars", "panels"])
def test_sendable_of_a_built_figure_is_plotlys_to_dict(fig):
    sent = fig.to_dict()
    data, layout = plotly_private.figure_parts(fig)
    assert _same({"data": display.sendable(data), "layout": display.sendable(layout)}, sent)
    # the arrays did go out as base64, so the comparison above compared encodings
    assert any("bdata" in str(trace) for trace in sent["data"])


@pytest.mark.parametrize("present", [False, True])
def test_panels_side_by_side_have_plot_areas_of_one_height(present):
    """The last panel of a row carries the row's colour bar under it: it grows by the bar's
    room, and its cells are drawn as large as its neighbours' (ALiBi's fourth head was
    squashed); the bar is long enough for its labels to lie flat (160 px, not 0.9 of a
    narrow heatmap's width)."""
    z = np.tril(-np.abs(np.subtract.outer(np.arange(64), np.arange(64))).astype(float))
    fig = figures.heatmap_panels([z, z / 2, z / 4, z / 8], list("abcd"), title="t", x_title="k", y_title="q")
    _, rows, _ = display.prepare_specs(fig, present=present)
    (row,) = rows
    assert len(row) == 4

    def plot_height(layout):
        margin = layout.get("margin") or {}
        return layout["height"] - margin.get("t", 100) - margin.get("b", 80)

    assert len({plot_height(p["layout"]) for p in row}) == 1
    assert row[-1]["layout"]["height"] > row[0]["layout"]["height"]
    last = row[-1]["layout"]
    bars = [last[k]["colorbar"] for k in last if k.startswith("coloraxis") and "colorbar" in last[k]]
    bars += [t["colorbar"] for t in row[-1]["data"] if t.get("showscale") is not False and "colorbar" in t]
    assert bars and bars[0]["lenmode"] == "pixels" and bars[0]["len"] == display.BAR_BELOW_PX


@pytest.mark.parametrize("present", [False, True])
def test_cell_numbers_side_by_side_are_one_size(present):
    """Relative's offsets beside their clipped copy: each panel sized its numbers to its own
    widest (-11 beside -3), 7 px beside 13 px on a desktop; the row takes the smaller."""
    import posenc

    raw = posenc.relative_positions(12, 12)
    fig = offset_panels(raw, np.clip(raw, -3, 3), max_distance=3)
    _, rows, _ = display.prepare_specs(fig, present=present)
    sizes = [t["textfont"]["size"] for row in rows for p in row for t in p["data"] if t.get("texttemplate")]
    # on a desktop both panels print their numbers; a projector prints none that small
    assert (len(sizes) == 2 and sizes[0] == sizes[1]) if not present else len(sizes) in (0, 2) and len(set(sizes)) <= 1
