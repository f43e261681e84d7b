"""figures.margins: the room Plotly's automargin asks for, reserved before the first draw.

The known values are what Chromium drew (Streamlit 1.67's chart theme, Plotly.js 4.2) for
the app's charts: the tick labels Plotly chose and the margins its automargin settled on.
"""

import contextlib
import math

import numpy as np
import pytest

import posenc
from posenc_lab import figures
from posenc_lab.figures import display, margins
from posenc_lab.lessons.alibi import figures as alibi_figures
from posenc_lab.lessons.compare import figures as compare_figures


@pytest.mark.parametrize(
    ("low", "high", "length", "letter", "expected"),
    [
        # a 64-position heatmap panel (y reversed, range -0.5 .. 63.5), 7 labels
        (-0.5, 63.5, 300, "y", ["0", "10", "20", "30", "40", "50", "60"]),
        # the sinusoidal heatmap's 256 positions on a 450 px tall axis
        (-0.5, 255.5, 330, "y", ["0", "50", "100", "150", "200", "250"]),
        # an accuracy axis padded past 1
        (-0.05, 1.05, 240, "y", ["0", "0.2", "0.4", "0.6", "0.8", "1"]),
        # an x axis gets a tick every 80 px at most
        (-0.5, 63.5, 0, "x", ["0", "20", "40", "60"]),
    ],
)
def test_automatic_ticks_are_the_ones_plotly_drew(low, high, length, letter, expected):
    assert margins.linear_labels(low, high, length, letter) == expected


def test_numbers_are_written_as_plotly_writes_them():
    assert margins.number_label(-15.0, 0, 0) == "−15"  # a true minus sign
    assert margins.number_label(0.4, 1, 0) == "0.4"
    assert margins.number_label(1.0, 1, 0) == "1"  # trailing zeros dropped
    assert margins.number_label(0.0005, 0, -6) == "500μ"  # SI suffix past 10^±3
    assert margins.linear_labels(0, 25_000, 300, "y")[-1] == "25k"
    assert margins.linear_labels(0, 1.05, 300, "y", ".0%") == ["0%", "20%", "40%", "60%", "80%", "100%"]


def test_log_axis_labels():
    assert margins.log_labels(-16, 0, 4, True) == [f"10<sup>{k}</sup>" for k in ("−16", "−12", "−8", "−4", "0")]
    assert margins.log_labels(0, 3, 1, False) == ["1", "10", "100", "1000"]
    assert margins.log_labels(-5, -4, 1, False) == ["10μ", "100μ"]


def test_text_width_counts_characters_superscripts_and_lines():
    digit = margins.text_width("8", 14)
    assert margins.text_width("88", 14) == pytest.approx(2 * digit)
    assert margins.text_width("1.5", 14) < margins.text_width("155", 14)  # a point is narrow
    # a superscript is drawn smaller; tags take no room; the widest line counts
    assert margins.text_width("10<sup>−16</sup>", 14) < margins.text_width("10−16", 14)
    assert margins.text_width("<b>88</b>", 14) == pytest.approx(2 * digit)
    assert margins.text_width("8<br>888", 14) == pytest.approx(3 * digit)


def _panel(present: bool) -> dict:
    panels = [np.random.default_rng(0).normal(size=(64, 64)) for _ in range(9)]
    fig = compare_figures.score_grid(
        panels, [f"m{i}" for i in range(9)], positions=np.arange(64), title="t", height=1020
    )
    _, rows, _ = display.prepare_specs(fig, present=present)
    return rows[0][0]


@pytest.mark.parametrize(("present", "left", "bottom"), [(False, 78, 76), (True, 101, 98)])
def test_a_heatmap_panel_has_the_room_chromium_gave_it(present, left, bottom):
    """Compare's 64 x 64 panel: Chromium's automargin settled on 78 px left and 76 px bottom
    on a desktop, 101 and 98 in presenter mode. The margin sent covers that (no second
    draw) and wastes at most 12 px."""
    margin = _panel(present)["layout"]["margin"]
    assert left <= margin["l"] <= left + 12
    assert bottom <= margin["b"] <= bottom + 12


@pytest.mark.parametrize(("present", "left"), [(False, 73), (True, 96)])
def test_an_untitled_axis_has_the_room_chromium_gave_it(present, left):
    """The NoPE view's one-row heatmap ("RoPE?" beside it, no y title): Chromium's
    automargin settled on 73 px on a desktop, 96 in presenter mode."""
    fig = figures.heatmap(np.ones((1, 24)), y=["RoPE?"], title="t", x_title="layer", y_title="", height=200)
    _, ((spec,),), _ = display.prepare_specs(fig, present=present)
    assert left <= spec["layout"]["margin"]["l"] <= left + 12


def test_room_grows_with_the_labels_and_the_title():
    spec = {
        "data": [{"type": "scatter", "x": [0, 1, 2], "y": [0.0, 1.0, 2.0]}],
        "layout": {
            "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
            "height": 400,
            "xaxis": {"tickfont": {"size": 14}},
            "yaxis": {"tickfont": {"size": 14}},
        },
    }
    margins.reserve(spec)
    short = spec["layout"]["margin"]
    wide = {"data": [dict(spec["data"][0], y=[0.0, 10_000.0, 20_000.0])], "layout": dict(spec["layout"])}
    margins.reserve(wide)
    assert wide["layout"]["margin"]["l"] > short["l"]
    titled = {"data": spec["data"], "layout": dict(spec["layout"], yaxis={"tickfont": {"size": 14}, "title": {}})}
    titled["layout"]["yaxis"]["title"] = {"text": "", "font": {"size": 14}}
    margins.reserve(titled)
    # an empty title still takes Plotly's room for a title (which holds automargin's pad);
    # an unset one takes none
    title_room = 24 + margins.TITLE_DEPTH * 14 - margins.UNTITLED_PAD
    assert titled["layout"]["margin"]["l"] >= short["l"] + title_room - 1  # rounding
    assert short["t"] == 10  # no axis on top
    # a number on the x axis's last tick sticks out to the right by half its width
    widest = max(margins.text_width(t, 14) for t in margins._axis_labels(spec["layout"], spec["data"], "xaxis", 0))
    assert short["r"] == max(10, math.ceil(widest / 2 + margins.PAD_PX))


def test_margins_are_only_widened():
    spec = {
        "data": [{"type": "scatter", "y": [0, 1]}],
        "layout": {"margin": {"l": 300, "b": 300}, "yaxis": {"tickfont": {"size": 14}}, "xaxis": {}},
    }
    margins.reserve(spec)
    assert spec["layout"]["margin"] == {"l": 300, "b": 300}


def test_heatmap_axes_count_plotlys_outside_ticks():
    z = np.zeros((8, 8))
    heat = {"data": [{"type": "heatmap", "z": z}], "layout": {"yaxis": {"tickfont": {"size": 14}}}}
    line = {"data": [{"type": "scatter", "y": np.arange(-0.5, 7.6)}], "layout": {"yaxis": {"tickfont": {"size": 14}}}}
    assert margins._ticks(heat["layout"], heat["data"], "yaxis") == "outside"
    assert margins._ticks(line["layout"], line["data"], "yaxis") == ""
    _, heat_room = margins.axis_room(heat["layout"], heat["data"], "yaxis", 300)
    _, line_room = margins.axis_room(line["layout"], line["data"], "yaxis", 300)
    assert heat_room == pytest.approx(line_room + 5 + margins.TICK_GAP * 14)


def test_category_labels_are_measured():
    spec = {
        "data": [{"type": "bar", "orientation": "h", "x": [1, 2], "y": ["no positions", "learned absolute"]}],
        "layout": {"yaxis": {"tickfont": {"size": 14}}},
    }
    side, room = margins.axis_room(spec["layout"], spec["data"], "yaxis", 300)
    assert side == "l"
    assert room >= margins.text_width("learned absolute", 14)


def test_every_finished_figure_gets_room(monkeypatch):
    """finish() reserves the room: a builder's figure comes back with wider margins."""
    fig = figures.heatmap(np.ones((4, 300)), title="t", x_title="dimension", y_title="position p", height=300)
    before = fig.layout.margin.l
    out = display.finish(fig, present=False)
    assert out.layout.margin.l > before


def _sinusoid_heatmap(present: bool) -> dict:
    table = posenc.sinusoidal(np.arange(256), 128)
    fig = figures.heatmap(table, title="t", x_title="dimension", y_title="position p", value_name="PE", height=520)
    _, ((spec,),), _ = display.prepare_specs(fig, present=present)
    return spec


@pytest.mark.parametrize(("present", "right", "top"), [(False, 90.9, 19.3), (True, 102.5, 21.9)])
def test_a_colour_bar_beside_the_plot_has_the_room_chromium_gave_it(present, right, top):
    """The sinusoidal heatmap (256 positions, values -1 to 1, a bar titled "PE"). In Chromium
    its bar, at x = 1, pushed the right margin to 90.9 px on a desktop and 102.5 in presenter
    mode; position 0's label, half a row below the top, pushed the top margin to 19.3 and
    21.9 px. The margins sent hold both (no second draw) and waste at most 12 px."""
    spec = _sinusoid_heatmap(present)
    margin = spec["layout"]["margin"]
    assert spec["data"][0]["colorbar"]["x"] == 1.0  # the room no longer depends on the width
    assert right <= margin["r"] <= right + 12
    assert top <= margin["t"] <= top + 12


def test_a_label_away_from_the_ends_asks_for_no_room_above():
    """A y label is centred on its tick: it sticks out above the plot only when its tick is
    nearer the top than half the label's height. Eight 38 px rows: the top label stands half
    a row (19 px) below the top, and the top margin stays as sent. Eight 5 px rows, first row
    at the top: "0" stands 2.5 px below it, and the margin makes room for its upper half."""
    spec = {
        "data": [{"type": "heatmap", "z": np.zeros((8, 8))}],
        "layout": {"height": 400, "margin": {"t": 15, "b": 80, "l": 80, "r": 80}, "yaxis": {"tickfont": {"size": 14}}},
    }
    margins.reserve(spec)
    assert spec["layout"]["margin"]["t"] == 15
    spec["layout"].update(height=135, yaxis={"tickfont": {"size": 14}, "autorange": "reversed"})
    margins.reserve(spec)
    overhang = 0.5 * margins.LINE_HEIGHT * 14 - 2.5
    assert spec["layout"]["margin"]["t"] == math.ceil(overhang + margins.PUSH_PAD + margins.PAD_PX)


@pytest.mark.parametrize(("present", "bottom", "over"), [(False, 160.7, 2), (True, 185.6, 14)])
def test_a_colour_bar_under_a_panel_has_the_room_chromium_gave_it(present, bottom, over):
    """Compare's last panel, its bar laid flat under it with its title under the labels: in
    Chromium the bar reserved 85.1 px on a desktop and Plotly added it to the x axis's 75.6:
    160.7 px; 185.6 px in presenter mode, where the estimate is 13 px over (a title under
    20 px labels keeps less of a gap than the one measured at 14 px)."""
    panels = [np.random.default_rng(0).normal(size=(64, 64)) for _ in range(9)]
    fig = compare_figures.score_grid(
        panels, [f"m{i}" for i in range(9)], positions=np.arange(64), title="t", height=1020, shared_scale=True
    )
    _, rows, _ = display.prepare_specs(fig, present=present)
    spec = rows[-1][-1]
    assert spec["data"][0]["colorbar"]["orientation"] == "h"
    assert bottom <= spec["layout"]["margin"]["b"] <= bottom + over


def test_a_flat_bar_keeps_room_for_labels_plotly_turns():
    """ALiBi's four bias panels side by side on a desktop (233 px each): the last one's bar,
    0.9 of its narrow heatmap (68 px), had its labels (-60 to 0) turned upright by Plotly and
    the bottom margin became 169.9 px in Chromium. The bar is 160 px now (``BAR_BELOW_PX``),
    its labels lie flat, as on a phone, where the margin was 161.6 px (the bar itself 86 px)."""
    positions = np.arange(64)
    grids = [-m * np.abs(positions[:, None] - positions[None, :]) for m in (1.0, 0.5, 0.25, 0.125)]
    fig = alibi_figures.bias_facets(grids, positions, ["h1", "h2", "h3", "h4"], title="t")
    _, rows, _ = display.prepare_specs(fig, present=False)
    assert len(rows[0]) == 4
    assert 161.6 <= rows[0][-1]["layout"]["margin"]["b"] <= 161.6 + 12
    room = margins.bar_room(rows[0][-1]["layout"]["coloraxis"]["colorbar"], margins.THEME_BAR, (-63, 0), 300, 1000)
    assert room is not None and room[0] == "b" and room[2]
    assert 86.0 <= room[1] < 169.9 - 75.6  # the labels lie flat


def _waves(present: bool) -> dict:
    positions = np.arange(128)
    table = posenc.sinusoidal(positions, 128)
    series = {f"dim {d}": table[:, d] for d in (0, 1, 32, 64)}
    fig = figures.line_chart(positions, series, title="t", x_title="position p", y_title="PE value", height=460)
    _, ((spec,),), _ = display.prepare_specs(fig, present=present)
    return spec


@pytest.mark.parametrize(("present", "top"), [(False, 44), (True, 51)])
def test_a_legend_above_the_plot_has_the_room_chromium_gave_it(present, top):
    """The sinusoidal waves chart (four dimensions): its legend, one row above the plot,
    pushed the top margin to 44 px on a desktop and 51 in presenter mode in Chromium."""
    margin = _waves(present)["layout"]["margin"]
    assert top <= margin["t"] <= top + 12


def test_a_legend_wraps_into_rows_as_wide_as_its_widest_entry():
    """Entries that do not fit beside each other stand in columns as wide as the widest, as
    many as fit the plot: four entries in a plot a little over two entries wide make two
    rows. Chromium drew a two-row legend at 14 px (choices-hybrid beside its heatmap) with a
    65 px top margin, a one-row one with 44 px."""
    name = "x" * 10
    data = [{"type": "scatter", "y": [0, 1], "name": name} for _ in range(4)]
    layout = {"legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "font": {"size": 14}}}
    margin = {"l": 80, "r": 20, "t": 15, "b": 72}
    entry = margins.LEGEND_SYMBOL + margins.text_width(name, 14)
    assert margins.legend_room(layout, data, 4 * entry + 16, 440, margin) == ("t", 44 + margins.PAD_PX)
    assert margins.legend_room(layout, data, 2 * entry + 10, 440, margin) == ("t", 65 + margins.PAD_PX)
    assert margins.legend_room(layout, data, entry, 440, margin)[1] > 65 + margins.PAD_PX  # one a row
    # one trace draws no legend; a legend placed inside the plot pushes nothing
    assert margins.legend_room(layout, data[:1], 250, 440, margin) is None
    inside = {"legend": {"orientation": "h", "y": 0.5, "yanchor": "bottom"}}
    assert margins.legend_room(inside, data, 250, 440, margin) is None


def test_chart_width_is_the_width_chromium_drew_charts_side_by_side():
    """One to four charts side by side were 980, 482, 316 and 233 px wide on a desktop and
    1710, 844, 556 and 412 in presenter mode; one chart in one of a lesson's two columns is
    as wide as one of two panels."""
    for present, widths in ((False, (980, 482, 316, 233)), (True, (1710, 844, 556, 412))):
        for n, width in enumerate(widths, start=1):
            assert display.chart_width(present, n) == pytest.approx(width, abs=1)
            assert display.chart_width(present, 1, 1 / n) == pytest.approx(width, abs=1)
    assert display.chart_width(False, 2, 0.5) == pytest.approx((482 - 16) / 2)


def test_a_legend_in_a_lesson_column_gets_the_rows_it_wraps_into_there():
    """The same chart in half the main column: its legend's five entries no longer fit in
    one row, so the top margin holds more rows."""
    positions = np.arange(64)
    series = {f"a longer series name {i}": np.sin(positions / (i + 1)) for i in range(5)}
    fig = figures.line_chart(positions, series, title="t", x_title="x", y_title="y", height=420)
    full = display.prepare_specs(fig, present=False)[1][0][0]["layout"]["margin"]["t"]
    half = display.prepare_specs(fig, present=False, share=0.5)[1][0][0]["layout"]["margin"]["t"]
    assert half > full


def test_a_chart_inside_layout_columns_is_finished_for_that_column():
    from posenc_lab.ui import layout

    assert layout._SHARE.get() == 1.0
    outer, inner = layout._Column(contextlib.nullcontext(), 0.5), layout._Column(contextlib.nullcontext(), 0.4)
    with outer:
        assert layout._SHARE.get() == 0.5
        with inner:
            assert layout._SHARE.get() == pytest.approx(0.2)
        assert layout._SHARE.get() == 0.5
    assert layout._SHARE.get() == 1.0
    with outer:  # entered again, as a lesson may
        assert layout._SHARE.get() == 0.5
    assert layout._SHARE.get() == 1.0
