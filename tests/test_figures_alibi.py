"""figures.alibi: the builders of the ALiBi and KERPLE lesson, without Streamlit."""

from __future__ import annotations

import math

import numpy as np
import plotly.io as pio
import pytest

import posenc
from posenc import alibi
from posenc_lab.figures import figure_bytes
from posenc_lab.lessons.alibi import figures as fa

MB = 1_000_000


def _array(value) -> np.ndarray:
    """A trace array as the builder left it (NumPy, list or tuple)."""
    return np.asarray(value, dtype=np.float64)


def _slope_figure(n_heads, custom_head=0, custom=None):
    slopes = posenc.alibi_slopes(n_heads)
    if custom_head:
        slopes[custom_head - 1] = custom
    origin = alibi.slope_origin(n_heads)
    return fa.slope_chart(slopes, origin.schedule, origin.index, custom_head=custom_head), slopes


# slope_label


@pytest.mark.parametrize(
    ("slope", "text"),
    [(0.5, "1/2"), (2**-8, "1/256"), (1.0, "1"), (4.0, "4"), (2**-3.5, "2^-3.5 = 0.0884"), (0.3, "0.3")],
)
def test_slope_label(slope, text):
    assert fa.slope_label(slope) == text


# slope_chart


def test_slope_chart_power_of_two_has_one_group_on_a_log_axis():
    fig, slopes = _slope_figure(8)
    assert len(fig.data) == 1
    np.testing.assert_allclose(_array(fig.data[0].y), [2.0**-k for k in range(1, 9)], rtol=1e-6)
    assert fig.layout.yaxis.type == "log"
    assert "1/256" in fig.layout.yaxis.ticktext and "1/2" in fig.layout.yaxis.ticktext
    assert fig.layout.showlegend is True
    assert fig.layout.title.text and fig.layout.xaxis.title.text == "head h"


def test_slope_chart_colours_the_heads_taken_from_the_double_schedule():
    fig, _ = _slope_figure(12)
    first, extra = fig.data
    assert list(first.x) == list(range(1, 9)) and list(extra.x) == [9, 10, 11, 12]
    np.testing.assert_allclose(_array(extra.y), [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5], rtol=1e-6)
    assert first.marker.color != extra.marker.color
    assert "16-head" in extra.name and "8-head" in first.name
    # the hover names the rule: entry 3 of the 16-head schedule for head 10
    assert extra.customdata[1][0] == "2^(-8·3/16)"


def test_slope_chart_marks_a_custom_slope_apart():
    fig, _ = _slope_figure(8, custom_head=3, custom=2.0**-10)
    custom = next(t for t in fig.data if t.name == "set by hand")
    assert list(custom.x) == [3] and math.isclose(custom.y[0], 2.0**-10)
    assert custom.marker.symbol == "diamond"
    others = [x for t in fig.data if t.name != "set by hand" for x in t.x]
    assert 3 not in others and len(others) == 7
    # the ticks reach down to the custom slope
    assert "1/1024" in fig.layout.yaxis.ticktext


# bias_facets


def _facets(n_panels=8, length=64, causal=True):
    slopes = posenc.alibi_slopes(n_panels)
    positions = np.arange(length)
    grids = alibi.alibi_bias_at(slopes, positions, positions)
    if causal:
        grids[:, positions[None, :] > positions[:, None]] = np.nan
    titles = [f"head {h + 1}" for h in range(n_panels)]
    return fa.bias_facets(grids, positions, titles, title="bias"), grids


def test_bias_facets_share_one_scale_from_the_lowest_bias_to_zero():
    fig, grids = _facets()
    assert len(fig.data) == 8
    assert {t.coloraxis for t in fig.data} == {"coloraxis"}
    assert fig.layout.coloraxis.cmax == 0.0
    assert math.isclose(fig.layout.coloraxis.cmin, float(np.nanmin(grids)), rel_tol=1e-6)
    assert [a.text for a in fig.layout.annotations][:8] == [f"head {h}" for h in range(1, 9)]


def test_bias_facets_keep_masked_keys_blank_and_send_float32():
    fig, grids = _facets(n_panels=2, length=5)
    z = np.asarray(fig.data[0].z)
    assert z.dtype == np.float32
    assert np.isnan(z[0, 1]) and not np.isnan(z[1, 0])
    np.testing.assert_allclose(z[4, 0], grids[0, 4, 0])


def test_bias_facets_lay_out_rows_of_four():
    fig, _ = _facets(n_panels=5, length=8)
    # 5 panels: two rows, so a second y axis row exists and the figure is taller than one row
    assert fig.layout.height > 130 + 300
    assert len(fig.data) == 5


def test_bias_facets_refuse_mismatched_titles():
    with pytest.raises(ValueError, match="titles"):
        fa.bias_facets(np.zeros((2, 3, 3)), np.arange(3), ["only one"], title="x")


def test_bias_facets_largest_payload_stays_small():
    fig, _ = _facets(n_panels=8, length=64, causal=False)
    assert figure_bytes(fig) < 400_000


# weight_chart


def test_weight_chart_log_axis_stops_at_the_floor():
    weights = posenc.softmax(-0.5 * np.arange(4096.0))
    fig = fa.weight_chart(np.arange(4096), {"steep": weights}, title="w", x_title="d", x_name="d", floor=1e-12)
    low, high = fig.layout.yaxis.range
    assert math.isclose(low, -12.3) and high > 0
    assert fig.layout.yaxis.type == "log"


def test_weight_chart_linear_axis_keeps_nans_as_gaps_and_takes_colours():
    y = np.array([0.2, 0.3, 0.5, np.nan])
    fig = fa.weight_chart(
        np.arange(4), {"a": y}, title="w", x_title="key", x_name="key", log_y=False, colours=["#123456"]
    )
    assert fig.layout.yaxis.type != "log"
    assert np.isnan(_array(fig.data[0].y)[3])
    assert fig.data[0].line.color == "#123456"


# span_bars


def test_span_bars_heights_and_the_sequence_line():
    slopes = posenc.alibi_slopes(8)
    spans = posenc.alibi_span(slopes, context=64, mass=0.9)
    origin = alibi.slope_origin(8)
    fig = fa.span_bars(spans, slopes, origin.schedule, context=64, mass_label="90%")
    np.testing.assert_array_equal(_array(fig.data[0].y), spans)
    assert fig.layout.shapes[0].y0 == 63
    assert list(fig.data[0].text) == [f"{v:.0f}" for v in spans]


def test_span_bars_name_a_far_away_sequence_end_instead_of_drawing_it():
    slopes = posenc.alibi_slopes(4)
    spans = posenc.alibi_span(slopes, context=4096, mass=0.5)
    origin = alibi.slope_origin(4)
    fig = fa.span_bars(spans, slopes, origin.schedule, context=4096, mass_label="50%")
    assert not fig.layout.shapes
    assert "4095" in fig.layout.annotations[0].text


def test_span_bars_colour_the_double_schedule_heads():
    slopes = posenc.alibi_slopes(6)
    origin = alibi.slope_origin(6)
    fig = fa.span_bars(np.arange(6.0), slopes, origin.schedule, context=10, mass_label="90%", custom_head=2)
    assert [list(t.x) for t in fig.data] == [[1, 3, 4], [5, 6], [2]]
    assert len({t.marker.color for t in fig.data}) == 3


# slope_colours


def test_slope_colours_run_dark_to_light_and_avoid_pale_yellow():
    colours = fa.slope_colours([0.5, 2**-8, 2**-4])

    def lightness(rgb):
        r, g, b = (int(v) for v in rgb.removeprefix("rgb(").removesuffix(")").split(","))
        return 0.299 * r + 0.587 * g + 0.114 * b

    assert lightness(colours[0]) < lightness(colours[2]) < lightness(colours[1])
    assert all(lightness(c) < 200 for c in colours)
    assert len(set(fa.slope_colours([0.25, 0.25]))) == 1


def test_every_builder_output_serialises():
    fig, _ = _slope_figure(64)
    assert pio.to_json(fig, validate=False)
    assert figure_bytes(fig) < MB
