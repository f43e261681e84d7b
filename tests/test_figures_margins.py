"""figures.margins: the room Plotly's automargin asks for, reserved before the first draw.

The known values are what Chromium drew (Streamlit 1.67's chart theme, Plotly.js 4.2) for
the app's charts: the tick labels Plotly chose and the margins its automargin settled on.
"""

import math

import numpy as np
import pytest

import figures
from figures import compare as compare_figures
from figures import display, margins


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
