"""Tests of the pure Plotly figure builders in ``figures`` (no Streamlit involved).

Each builder takes arrays and labels and returns a ``go.Figure``; these tests read the
figure back (traces, layout, JSON payload) and check what a reader of the chart relies
on: the values shown, the thinning to the display budget and how the title reports it,
the colour scales, the titles, the hover text and the size of what is sent.
"""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc_lab import figures
from posenc_lab.figures.builders import MAX_POINTS
from posenc_lab.lessons.alibi import figures as alibi_figures
from posenc_lab.lessons.compare import figures as compare_figures
from posenc_lab.lessons.relative import figures as relative_figures
from posenc_lab.lessons.rope import figures as rope_figures

RNG = np.random.default_rng(1234)


def _signed_colorscale():
    return go.Heatmap(colorscale=figures.SIGNED_SCALE).colorscale


def _sequential_colorscale():
    return go.Heatmap(colorscale=figures.SEQUENTIAL_SCALE).colorscale


def _is_power_of_two(k: int) -> bool:
    return k >= 1 and (k & (k - 1)) == 0


def _small_heatmap(z=None, **kwargs):
    z = RNG.standard_normal((6, 5)) if z is None else z
    args = dict(title="PE matrix", x_title="dimension i", y_title="position p")
    args.update(kwargs)
    return figures.heatmap(z, **args)


# --------------------------------------------------------------------------- heatmap


def test_heatmap_single_trace_float32_titles():
    z = RNG.standard_normal((6, 5))
    fig = _small_heatmap(z, title="Sinusoidal PE", x_title="dimension i", y_title="position p")
    assert len(fig.data) == 1
    trace = fig.data[0]
    assert isinstance(trace, go.Heatmap)
    assert trace.z.dtype == np.float32
    np.testing.assert_array_equal(trace.z, z.astype(np.float32))
    assert fig.layout.title.text == "Sinusoidal PE"
    assert fig.layout.xaxis.title.text == "dimension i"
    assert fig.layout.yaxis.title.text == "position p"


def test_heatmap_hover_names_the_point():
    fig = _small_heatmap(x_name="key pos", y_name="query pos", value_name="bias b")
    hover = fig.data[0].hovertemplate
    assert "key pos" in hover
    assert "query pos" in hover
    assert "bias b" in hover
    for ref in ("%{x}", "%{y}", "%{z"):
        assert ref in hover
    # the default names are not left in when custom ones are given
    fig = _small_heatmap(x_name="alpha", y_name="beta", value_name="gamma")
    assert "value" not in fig.data[0].hovertemplate


def test_heatmap_signed_scale_is_symmetric_about_zero():
    z = np.array([[0.5, -3.0, 1.0], [2.0, 0.0, -0.25]])
    trace = _small_heatmap(z, signed=True).data[0]
    assert trace.colorscale == _signed_colorscale()
    assert trace.zmid == 0
    assert trace.zmax == pytest.approx(3.0)
    assert trace.zmin == pytest.approx(-3.0)


def test_heatmap_signed_zmax_override():
    z = np.array([[0.5, -3.0], [2.0, 0.0]])
    trace = _small_heatmap(z, signed=True, zmax=1.0).data[0]
    assert trace.colorscale == _signed_colorscale()
    assert trace.zmid == 0
    assert trace.zmax == pytest.approx(1.0)
    assert trace.zmin == pytest.approx(-1.0)


def test_heatmap_signed_all_zero_has_a_nonempty_range():
    trace = _small_heatmap(np.zeros((3, 3)), signed=True).data[0]
    assert trace.zmin < 0 < trace.zmax
    assert trace.zmin == -trace.zmax


def test_heatmap_unsigned_uses_sequential_scale():
    z = np.abs(RNG.standard_normal((4, 4)))
    trace = _small_heatmap(z, signed=False).data[0]
    assert trace.colorscale == _sequential_colorscale()
    assert trace.colorscale != _signed_colorscale()
    assert trace.zmid is None
    assert trace.zmin is None
    trace = _small_heatmap(z, signed=False, zmax=1.0).data[0]
    assert trace.colorscale == _sequential_colorscale()
    assert trace.zmax == pytest.approx(1.0)


def test_heatmap_y_reversed_by_default():
    assert _small_heatmap().layout.yaxis.autorange == "reversed"
    assert _small_heatmap(y_down=False).layout.yaxis.autorange != "reversed"


def test_heatmap_thins_large_input_to_every_kth_row_and_column():
    n_rows, n_cols = 4096, 1024
    z = RNG.standard_normal((n_rows, n_cols))
    x = np.arange(n_cols) * 10 + 7  # labels that are not the indices, to see they follow
    y = np.arange(n_rows) + 100
    fig = figures.heatmap(
        z,
        x=x,
        y=y,
        title="PE",
        x_title="dimension i",
        y_title="position p",
        row_noun="position",
        col_noun="dimension",
    )
    trace = fig.data[0]
    shown_rows, shown_cols = trace.z.shape
    assert shown_rows <= figures.MAX_ROWS
    assert shown_cols <= figures.MAX_COLS

    k = int(trace.y[1] - trace.y[0])
    m = int(trace.x[1] - trace.x[0]) // 10
    assert _is_power_of_two(k) and _is_power_of_two(m)
    assert (k, m) == (16, 4)
    # the smallest power of two that fits: half the stride would not
    assert math.ceil(n_rows / (k // 2)) > figures.MAX_ROWS
    assert math.ceil(n_cols / (m // 2)) > figures.MAX_COLS

    np.testing.assert_array_equal(trace.z, z[::k, ::m].astype(np.float32))
    np.testing.assert_array_equal(trace.y, y[::k])
    np.testing.assert_array_equal(trace.x, x[::m])
    assert trace.y[0] == y[0] and trace.x[0] == x[0]
    assert len(trace.y) == shown_rows and len(trace.x) == shown_cols

    assert fig.layout.title.text == "PE (showing every 16th position and every 4th dimension)"


def test_heatmap_default_labels_are_thinned_indices():
    z = RNG.standard_normal((4096, 1024))
    trace = _small_heatmap(z).data[0]
    np.testing.assert_array_equal(trace.y, np.arange(0, 4096, 16))
    np.testing.assert_array_equal(trace.x, np.arange(0, 1024, 4))


@pytest.mark.parametrize(
    ("shape", "note"),
    [
        ((801, 10), " (showing every 4th row)"),
        ((10, 300), " (showing every 2nd column)"),
        ((400, 256), ""),
        ((1, 1), ""),
    ],
)
def test_heatmap_title_note_default_nouns(shape, note):
    fig = _small_heatmap(np.ones(shape), title="T")
    assert fig.layout.title.text == "T" + note


def test_heatmap_no_thinning_keeps_everything():
    z = RNG.standard_normal((figures.MAX_ROWS, figures.MAX_COLS))
    fig = _small_heatmap(z, title="Exact fit", row_noun="position", col_noun="dimension")
    assert fig.layout.title.text == "Exact fit"
    assert "showing" not in fig.layout.title.text
    np.testing.assert_array_equal(fig.data[0].z, z.astype(np.float32))


def test_heatmap_budget_arguments_are_respected():
    z = RNG.standard_normal((100, 100))
    trace = _small_heatmap(z, max_rows=10, max_cols=30).data[0]
    assert trace.z.shape == (len(range(0, 100, 16)), len(range(0, 100, 4)))
    np.testing.assert_array_equal(trace.z, z[::16, ::4].astype(np.float32))


@given(
    n_rows=st.integers(1, 300),
    n_cols=st.integers(1, 300),
    max_rows=st.integers(1, 64),
    max_cols=st.integers(1, 64),
)
def test_heatmap_thinning_property(n_rows, n_cols, max_rows, max_cols):
    z = np.arange(n_rows * n_cols, dtype=np.float64).reshape(n_rows, n_cols)
    trace = _small_heatmap(z, max_rows=max_rows, max_cols=max_cols).data[0]
    r, c = trace.z.shape
    assert r <= max_rows and c <= max_cols
    k, m = figures.display_steps(n_rows, n_cols, max_rows, max_cols)
    np.testing.assert_array_equal(trace.z, z[::k, ::m].astype(np.float32))


def test_heatmap_string_labels_stay_categorical():
    words = ["the", "cat", "sat"]
    fig = _small_heatmap(np.eye(3), x=words, y=words)
    trace = fig.data[0]
    assert list(trace.x) == words and list(trace.y) == words
    assert all(type(v) is str for v in trace.x)
    assert all(type(v) is str for v in trace.y)
    sent = json.loads(pio.to_json(fig, validate=False))["data"][0]
    assert sent["x"] == words and sent["y"] == words


def test_heatmap_string_labels_thinned_stay_str():
    labels = [f"dim {i}" for i in range(1024)]
    trace = _small_heatmap(np.zeros((2, 1024)), x=labels).data[0]
    assert list(trace.x) == labels[::4]
    assert all(type(v) is str for v in trace.x)


def test_heatmap_keeps_nan_padding():
    # the learned-table page pads positions past max_len with NaN
    table = RNG.standard_normal((10, 8))
    z = np.vstack([table, np.full((6, 8), np.nan)])
    trace = _small_heatmap(z, signed=True).data[0]
    assert np.isnan(trace.z[10:]).all()
    assert np.isfinite(trace.z[:10]).all()
    np.testing.assert_array_equal(trace.z[:10], table.astype(np.float32))
    # the colour range comes from the finite values
    assert trace.zmax == pytest.approx(float(np.abs(table).max()), rel=1e-6)
    assert trace.zmin == pytest.approx(-trace.zmax)


def test_heatmap_keeps_nan_padding_when_thinned():
    z = np.vstack([RNG.standard_normal((600, 8)), np.full((1400, 8), np.nan)])
    fig = _small_heatmap(z)
    trace = fig.data[0]
    k = int(trace.y[1] - trace.y[0])
    assert k == 8
    kept_rows = np.asarray(trace.y)
    assert np.isnan(trace.z[kept_rows >= 600]).all()
    assert np.isfinite(trace.z[kept_rows < 600]).all()
    assert figures.figure_bytes(fig) > 0  # NaN serializes


def test_thin_rejects_non_2d():
    with pytest.raises(ValueError):
        figures.thin(np.zeros(5))


# ---------------------------------------------------------- display_steps and every_nth


@pytest.mark.parametrize(
    ("n", "budget", "expected"),
    [
        (0, 400, 1),
        (1, 400, 1),
        (400, 400, 1),
        (401, 400, 2),
        (800, 400, 2),
        (801, 400, 4),
        (4096, 400, 16),
        (256, 256, 1),
        (257, 256, 2),
        (1024, 256, 4),
        (1025, 256, 8),
        (4096, 256, 16),
        (5, 1, 8),
    ],
)
def test_display_steps_values(n, budget, expected):
    assert figures.display_steps(n, 1, budget, 1) == (expected, 1)
    assert figures.display_steps(1, n, 1, budget) == (1, expected)


def test_display_steps_default_budget():
    assert figures.display_steps(4096, 1024) == (16, 4)
    assert figures.display_steps(figures.MAX_ROWS, figures.MAX_COLS) == (1, 1)
    assert figures.display_steps(figures.MAX_ROWS + 1, figures.MAX_COLS + 1) == (2, 2)


@given(n=st.integers(0, 10**7), budget=st.integers(1, 5000))
def test_display_steps_smallest_power_of_two_that_fits(n, budget):
    step, other = figures.display_steps(n, 1, budget, 1)
    assert other == 1
    assert _is_power_of_two(step)
    assert len(range(0, n, step)) <= budget
    if step > 1:  # minimal: half the stride would overflow the budget
        assert len(range(0, n, step // 2)) > budget


@pytest.mark.parametrize(
    ("step", "text"),
    [
        (0, ""),
        (1, ""),
        (2, "every 2nd position"),
        (3, "every 3rd position"),
        (4, "every 4th position"),
        (11, "every 11th position"),
        (12, "every 12th position"),
        (13, "every 13th position"),
        (21, "every 21st position"),
        (22, "every 22nd position"),
        (23, "every 23rd position"),
        (101, "every 101st position"),
        (111, "every 111th position"),
        (112, "every 112th position"),
        (1024, "every 1024th position"),
    ],
)
def test_every_nth_wording(step, text):
    assert figures.every_nth(step, "position") == text


# ------------------------------------------------------------------------ figure_bytes


def test_figure_bytes_of_a_large_heatmap_is_under_a_megabyte():
    fig = _small_heatmap(RNG.standard_normal((4096, 1024)))
    assert figures.figure_bytes(fig) < 1_000_000


def test_figure_bytes_grows_with_data():
    small = figures.figure_bytes(_small_heatmap(RNG.standard_normal((10, 10))))
    large = figures.figure_bytes(_small_heatmap(RNG.standard_normal((100, 100))))
    assert large > small + 100 * 100 * 2  # at least ~2 bytes per extra cell


def test_figure_bytes_is_the_json_length():
    fig = _small_heatmap(RNG.standard_normal((50, 40)), title="héatmap ✓")  # non-ASCII
    assert figures.figure_bytes(fig) == len(pio.to_json(fig, validate=False).encode())


# ---------------------------------------------------------------------- heatmap_panels


def _panels(panels, subtitles=None, **kwargs):
    subtitles = [f"panel {i}" for i in range(len(panels))] if subtitles is None else subtitles
    args = dict(title="Attention", x_title="key", y_title="query")
    args.update(kwargs)
    return figures.heatmap_panels(panels, subtitles, **args)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_panels_share_one_coloraxis(n):
    panels = [RNG.standard_normal((4, 4)) for _ in range(n)]
    fig = _panels(panels)
    assert len(fig.data) == n
    assert all(isinstance(t, go.Heatmap) for t in fig.data)
    assert {t.coloraxis for t in fig.data} == {"coloraxis"}
    assert fig.layout.coloraxis.colorscale is not None
    for t, p in zip(fig.data, panels, strict=True):
        np.testing.assert_array_equal(t.z, p.astype(np.float32))
    # each panel sits in its own subplot
    assert len({t.xaxis for t in fig.data}) == n


def test_panels_labels_and_subtitles():
    words = ["the", "cat", "sat"]
    moved = ["sat", "the", "cat"]
    subtitles = ["the cat sat", "sat the cat"]
    fig = _panels([np.eye(3), np.eye(3)], subtitles, labels=[words, moved])
    assert list(fig.data[0].x) == words and list(fig.data[0].y) == words
    assert list(fig.data[1].x) == moved and list(fig.data[1].y) == moved
    texts = [a.text for a in fig.layout.annotations]
    for s in subtitles:
        assert s in texts


def test_panels_hover_names():
    fig = _panels([np.eye(2), np.eye(2)], x_name="key", y_name="query", value_name="weight")
    for t in fig.data:
        assert "key" in t.hovertemplate and "query" in t.hovertemplate and "weight" in t.hovertemplate


@pytest.mark.parametrize(
    ("panels", "subtitles", "labels"),
    [
        ([np.eye(2), np.eye(2)], ["only one"], None),
        ([np.eye(2)], ["a", "b"], None),
        ([np.eye(2), np.eye(2)], ["a", "b"], [["x", "y"]]),
        ([], [], None),
    ],
)
def test_panels_mismatched_lengths_raise(panels, subtitles, labels):
    with pytest.raises(ValueError):
        figures.heatmap_panels(panels, subtitles, title="T", x_title="k", y_title="q", labels=labels)


def test_panels_signed_shared_scale_is_symmetric():
    a = np.array([[0.5, -2.0], [1.0, 0.0]])
    b = np.array([[0.1, 0.2], [-5.0, 3.0]])
    fig = _panels([a, b], signed=True)
    ca = fig.layout.coloraxis
    assert ca.colorscale == _signed_colorscale()
    assert ca.cmid == 0
    assert ca.cmax == pytest.approx(5.0)
    assert ca.cmin == pytest.approx(-5.0)


def test_panels_unsigned_with_zmax():
    w = np.array([[0.2, 0.8], [0.6, 0.4]])
    ca = _panels([w, w], signed=False, zmax=1.0).layout.coloraxis
    assert ca.colorscale == _sequential_colorscale()
    assert ca.cmax == pytest.approx(1.0)
    assert ca.cmid is None
    assert ca.cmin is None or ca.cmin >= 0


def test_panels_thinned_to_share_the_column_budget():
    panels = [RNG.standard_normal((1000, 1000)) for _ in range(2)]
    fig = _panels(panels, title="Big")
    total_cols = 0
    for t, p in zip(fig.data, panels, strict=True):
        rows, cols = t.z.shape
        assert rows <= figures.MAX_ROWS
        total_cols += cols
        k = int(t.y[1] - t.y[0])
        m = int(t.x[1] - t.x[0])
        np.testing.assert_array_equal(t.z, p[::k, ::m].astype(np.float32))
    assert total_cols <= figures.MAX_COLS
    assert fig.layout.title.text.startswith("Big (showing every ")


# -------------------------------------------------------------------------- line_chart


def _lines(x, series, **kwargs):
    args = dict(title="Waves", x_title="position p", y_title="PE value")
    args.update(kwargs)
    return figures.line_chart(x, series, **args)


def test_line_chart_one_scatter_per_series():
    x = np.arange(20)
    series = {"dim 0": np.sin(x), "dim 1": np.cos(x), "dim 2": np.sin(x / 2)}
    fig = _lines(x, series)
    assert [t.name for t in fig.data] == list(series)
    assert all(isinstance(t, go.Scatter) for t in fig.data)
    for t, y in zip(fig.data, series.values(), strict=True):
        np.testing.assert_array_equal(t.x, x)
        np.testing.assert_allclose(t.y, y, rtol=1e-6)
    assert fig.layout.title.text == "Waves"
    assert fig.layout.xaxis.title.text == "position p"
    assert fig.layout.yaxis.title.text == "PE value"


def test_line_chart_float_y_sent_as_float32():
    x = np.arange(10)
    fig = _lines(x, {"f": np.linspace(0, 1, 10)})
    assert fig.data[0].y.dtype == np.float32
    np.testing.assert_allclose(fig.data[0].y, np.linspace(0, 1, 10), rtol=1e-6)


def test_line_chart_hover_names_series_and_axes():
    fig = _lines(np.arange(5), {"sinusoid": np.zeros(5)}, x_name="position", value_name="PE")
    hover = fig.data[0].hovertemplate
    assert "sinusoid" in hover and "position" in hover and "PE" in hover


def test_line_chart_thins_long_series_to_every_kth_point():
    n = 10_000
    x = np.arange(n)
    y = RNG.standard_normal(n)
    fig = _lines(x, {"noise": y})
    t = fig.data[0]
    assert len(t.x) <= MAX_POINTS
    k = int(t.x[1] - t.x[0])
    assert k > 1 and len(range(0, n, k - 1)) > MAX_POINTS  # smallest stride that fits
    np.testing.assert_array_equal(t.x, x[::k])
    np.testing.assert_allclose(t.y, y[::k].astype(np.float32))
    assert "every" in fig.layout.title.text and str(k) in fig.layout.title.text


@pytest.mark.parametrize("n", [4097, 10_000, 4 * 4096])
def test_line_chart_thinning_note_wording(n):
    fig = _lines(np.arange(n), {"s": np.zeros(n)}, title="T")
    k = int(fig.data[0].x[1] - fig.data[0].x[0])
    # same ordinal wording as the heatmaps ("every 2nd", "every 3rd", "every 4th")
    assert fig.layout.title.text == f"T (showing {figures.every_nth(k, 'point')})"


def test_line_chart_no_note_at_the_budget():
    fig = _lines(np.arange(MAX_POINTS), {"s": np.zeros(MAX_POINTS)}, title="T")
    assert fig.layout.title.text == "T"
    assert len(fig.data[0].x) == MAX_POINTS


def test_line_chart_log_axes():
    x = np.arange(1, 50)
    fig = _lines(x, {"w": x.astype(float) ** 2}, log_x=True, log_y=True)
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.yaxis.type == "log"
    fig = _lines(x, {"w": x.astype(float) ** 2}, log_y=True)
    assert fig.layout.xaxis.type != "log"
    assert fig.layout.yaxis.type == "log"
    fig = _lines(x, {"w": x.astype(float)})
    assert fig.layout.xaxis.type != "log" and fig.layout.yaxis.type != "log"


def test_line_chart_styles():
    x = np.arange(8)
    series = {"actual": np.zeros(8), "predicted": np.ones(8), "plain": np.ones(8)}
    styles = {
        "actual": {"mode": "lines", "dash": "dash"},
        "predicted": {"mode": "markers", "symbol": "x", "size": 6},
    }
    fig = _lines(x, series, styles=styles)
    actual, predicted, plain = fig.data
    assert actual.mode == "lines" and actual.line.dash == "dash"
    assert predicted.mode == "markers" and predicted.marker.symbol == "x" and predicted.marker.size == 6
    assert plain.mode == "lines" and plain.line.dash is None
    # series get distinct palette colours
    colours = [t.line.color for t in fig.data]
    assert len(set(colours)) == 3 and set(colours) <= set(figures.PALETTE)


def test_line_chart_vlines_add_shape_and_annotation():
    fig = _lines(np.arange(100), {"s": np.zeros(100)}, vlines={"max_len": 64})
    assert len(fig.layout.shapes) == 1
    shape = fig.layout.shapes[0]
    assert shape.type == "line" and shape.x0 == 64 and shape.x1 == 64
    assert [a.text for a in fig.layout.annotations] == ["max_len"]
    assert fig.layout.annotations[0].x == 64
    assert len(_lines(np.arange(100), {"s": np.zeros(100)}).layout.shapes) == 0


def test_line_chart_vline_label_on_log_x_axis():
    # Plotly places shapes in data units but annotations on a log axis in log10 units
    # (plotly.js#1258, plotly.py#2580), so the label must sit at log10(x) to meet its line.
    x = np.arange(1, 1000)
    fig = _lines(x, {"s": np.ones(x.size)}, log_x=True, vlines={"x = 100": 100})
    shape = fig.layout.shapes[0]
    assert shape.x0 == 100
    assert fig.layout.annotations[0].x == pytest.approx(2.0)


# ------------------------------------------------------------------------ grouped_bars


def test_grouped_bars_one_bar_trace_per_series():
    cats = ["sinusoidal", "RoPE", "ALiBi"]
    series = {"params": [0, 0, 0.5], "error": [1e-3, 2e-7, 3.0]}
    fig = figures.grouped_bars(cats, series, title="Compare", x_title="method", y_title="value")
    assert [t.name for t in fig.data] == list(series)
    assert all(isinstance(t, go.Bar) for t in fig.data)
    for t, values in zip(fig.data, series.values(), strict=True):
        assert list(t.x) == cats
        np.testing.assert_allclose(t.y, values)
    assert fig.layout.xaxis.title.text == "method"
    assert fig.layout.yaxis.title.text == "value"
    assert fig.layout.yaxis.type != "log"
    assert len({t.marker.color for t in fig.data}) == 2


def test_grouped_bars_log_y():
    fig = figures.grouped_bars(["a", "b"], {"s": [1, 100]}, title="T", x_title="x", y_title="y", log_y=True)
    assert fig.layout.yaxis.type == "log"


# ------------------------------------------------------------------------ binary_clock


def _clock(n=16, n_bits=4, n_dims=3):
    positions = np.arange(n)
    bits = (positions[:, None] >> np.arange(n_bits)) & 1
    w = 1.0 / 10_000 ** (2 * np.arange(n_dims) / 8)
    signs = np.where(np.sin(positions[:, None] * w) >= 0, 1, -1)
    return (
        figures.binary_clock(
            positions,
            bits,
            signs,
            bit_labels=[f"{2**b}s" for b in range(n_bits)],
            sign_labels=[f"sin dim {2 * i}" for i in range(n_dims)],
        ),
        bits,
        signs,
    )


def test_binary_clock_two_heatmaps_with_bits_and_signs():
    fig, bits, signs = _clock()
    assert len(fig.data) == 2
    assert all(isinstance(t, go.Heatmap) for t in fig.data)
    bit_z, sign_z = (np.asarray(t.z) for t in fig.data)
    assert set(np.unique(bit_z)) <= {0.0, 1.0}
    assert set(np.unique(sign_z)) <= {-1.0, 1.0}
    np.testing.assert_array_equal(bit_z, bits)
    np.testing.assert_array_equal(sign_z, signs)
    assert (fig.data[0].zmin, fig.data[0].zmax) == (0, 1)
    assert (fig.data[1].zmin, fig.data[1].zmax) == (-1, 1)
    assert fig.data[0].xaxis in (None, "x") and fig.data[1].xaxis == "x2"
    assert list(fig.data[0].x) == ["1s", "2s", "4s", "8s"]


def test_binary_clock_axes_and_subtitles():
    fig, _, _ = _clock()
    assert fig.layout.yaxis.autorange == "reversed"
    assert fig.layout.yaxis2.autorange == "reversed"
    assert fig.layout.yaxis.title.text
    assert fig.layout.xaxis.title.text
    assert fig.layout.xaxis2.title.text
    texts = [a.text for a in fig.layout.annotations]
    assert "Binary digits of the position" in texts
    assert "Sign of sin(p * w_i)" in texts
    assert fig.layout.title.text


# --------------------------------------------------------------- generic, all builders


def _all_builders():
    x = np.arange(10)
    return {
        "heatmap": _small_heatmap(),
        "heatmap_thinned": _small_heatmap(RNG.standard_normal((1000, 600))),
        "heatmap_panels": _panels([np.eye(3), -np.eye(3)]),
        "heatmap_panels_3": _panels([np.eye(2)] * 3, labels=[["a", "b"], ["b", "a"], ["a", "b"]]),
        "line_chart": _lines(x, {"a": np.sin(x), "b": np.cos(x)}, vlines={"m": 3}),
        "grouped_bars": figures.grouped_bars(["a", "b"], {"s": [1, 2]}, title="T", x_title="x", y_title="y"),
        "binary_clock": _clock()[0],
    }


@pytest.mark.parametrize("name", list(_all_builders()))
def test_every_figure_has_title_and_axis_titles(name):
    fig = _all_builders()[name]
    assert fig.layout.title.text and fig.layout.title.text.strip()
    used = {(t.xaxis or "x", t.yaxis or "y") for t in fig.data}
    assert used
    for xref, _yref in used:
        xaxis = fig.layout[xref.replace("x", "xaxis", 1)]
        assert xaxis.title.text and xaxis.title.text.strip(), (name, xref)
    # Side-by-side panels share one y title, on the first panel of the row (all builders
    # lay panels out in a single row); every other axis with data has its own title.
    assert fig.layout.yaxis.title.text and fig.layout.yaxis.title.text.strip(), name
    assert ("x", "y") in {(x or "x", y or "y") for x, y in used}


def test_figures_use_the_palette_and_leave_the_background_to_the_app_theme():
    fig = _small_heatmap()
    assert tuple(fig.layout.colorway) == figures.PALETTE
    # no background of our own, and no template beyond plotly's current default (Streamlit
    # registers its own when imported): the app's light and dark themes colour the figure
    assert fig.layout.plot_bgcolor is None and fig.layout.paper_bgcolor is None
    import plotly.io as pio

    default = pio.templates[pio.templates.default] if pio.templates.default else None
    assert default is None or fig.layout.template == default


# ------------------------------------------------------------- colour-blind safety pin


def test_palette_is_okabe_ito():
    palette = [c.upper() for c in figures.PALETTE]
    assert len(palette) == 8
    assert len(set(palette)) == 8
    okabe_ito = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"}
    assert set(palette) == okabe_ito
    for known in ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7"):
        assert known in palette


def test_scales_are_the_documented_cvd_safe_ones():
    assert figures.SIGNED_SCALE == "RdBu_r"
    assert figures.SEQUENTIAL_SCALE == "Viridis"
    # a diverging scale has a light, neutral middle at 0
    mid = dict(_signed_colorscale())[0.5]
    assert mid in ("rgb(247,247,247)", "#f7f7f7")


# ---- the shared builders skip Plotly's per-property checks (issue 18): what they build
# must be exactly what the checked API builds from the same dicts


@pytest.mark.parametrize(
    "build",
    [
        lambda: figures.line_chart(
            np.arange(10), {"a": np.linspace(0, 1, 10), "b": np.arange(10)}, title="t", x_title="x", y_title="y"
        ),
        lambda: figures.line_chart(
            np.arange(1, 9000),
            {"a": np.log(np.arange(1, 9000))},
            title="t",
            x_title="x",
            y_title="y",
            log_x=True,
            log_y=True,
            styles={"a": {"mode": "markers", "dash": "dot", "color": "#123456", "size": 4}},
            vlines={"L": 64, "2L": 4000},
            height=300,
        ),
        lambda: figures.grouped_bars(
            ["p", "q"], {"a": [1e-17, 2.0], "b": [0.0, 3.0]}, title="t", x_title="x", y_title="y"
        ),
        lambda: figures.grouped_bars(
            ["p", "q"],
            {"a": [1e-17, 2.0]},
            title="t",
            x_title="x",
            y_title="y",
            log_y=True,
            y_range=(1e-18, 10.0),
            show_values=True,
        ),
        lambda: figures.heatmap(np.arange(12.0).reshape(3, 4) - 5, title="t", x_title="x", y_title="y"),
        lambda: figures.heatmap(
            np.ones((500, 300)), title="t", x_title="x", y_title="y", signed=False, zmax=2.0, y_down=False
        ),
        lambda: figures.heatmap(
            np.eye(3), title="t", x_title="x", y_title="y", x=np.array(["a", "b", "c"]), y=np.array(["d", "e", "f"])
        ),
        lambda: figures.heatmap_panels(
            [np.eye(4), -np.eye(4)], ["one", "two"], title="t", x_title="x", y_title="y", height=400
        ),
        lambda: figures.heatmap_panels(
            [np.eye(3)] * 3,
            ["a", "b", "c"],
            title="t",
            x_title="x",
            y_title="y",
            signed=False,
            labels=[["x", "y", "z"], ["u", "v", "w"], ["p", "q", "r"]],
        ),
        lambda: compare_figures.score_grid(
            [np.eye(4), None, np.zeros((4, 4)), -np.eye(4)],
            ["a", "b", "c", "d"],
            positions=np.arange(4),
            title="t",
            missing=["", "no row; really", "", ""],
            height=500,
            shared_scale=True,
        ),
        lambda: compare_figures.score_grid(
            [np.eye(3)] * 5, list("abcde"), positions=np.arange(3), title="t", position_step=4
        ),
        lambda: compare_figures.translation_bars(
            list("abcdef"), [0.0, 1e-17, 1e-12, 0.5, np.nan, 3.0], title="t", height=400
        ),
        lambda: alibi_figures.bias_facets(
            -np.arange(5 * 16, dtype=float).reshape(5, 4, 4), np.arange(4) * 2, list("abcde"), title="t"
        ),
        lambda: figures.binary_clock(
            np.arange(8),
            (np.arange(8)[:, None] >> np.arange(3)) & 1,
            np.sign(np.sin(np.arange(8)[:, None] * np.array([1.0, 0.2]))),
            bit_labels=["1s", "2s", "4s"],
            sign_labels=["fast", "slow"],
        ),
        lambda: alibi_figures.weight_chart(
            np.arange(30),
            {"a": np.exp(-np.arange(30) / 2.0), "b": np.r_[np.nan, np.exp(-np.arange(1, 30) / 9.0)]},
            title="t",
            x_title="x",
            x_name="p",
            vlines={"L": 12},
            colours=["#111111", "#222222"],
        ),
        lambda: alibi_figures.weight_chart(
            np.arange(30), {"a": np.linspace(0, 1, 30)}, title="t", x_title="x", x_name="p", log_y=False
        ),
        lambda: alibi_figures.slope_chart([0.5, 0.25, 0.3, 0.0625], [4, 4, 4, 8], [1, 2, 3, 1], custom_head=3),
        lambda: alibi_figures.span_bars(
            [2.0, 5.0, 9.0], [0.5, 0.25, 0.125], [3, 3, 3], context=20, mass_label="90%", height=300
        ),
        lambda: alibi_figures.span_bars([2.0, 5.0], [0.5, 0.25], [2, 4], context=5000, mass_label="50%", custom_head=2),
        lambda: relative_figures.offset_panels(
            np.subtract.outer(np.arange(6), np.arange(6)).T,
            np.clip(np.subtract.outer(np.arange(6), np.arange(6)).T, -2, 2),
            max_distance=2,
        ),
        lambda: relative_figures.bucket_chart(
            np.arange(-9, 10),
            np.abs(np.arange(-9, 10)) // 3,
            (np.abs(np.arange(-9, 10)) > 4).astype(int),
            ["exact", "log"],
            title="t",
            x_title="x",
            vlines=[dict(x=4, text="a"), dict(x=-4, text="b", level=1)],
            extra={"other": np.abs(np.arange(-9, 10)) // 2},
        ),
        lambda: relative_figures.bucket_heatmap(np.eye(5) - 0.5, np.arange(25).reshape(5, 5), title="t"),
        lambda: rope_figures.score_spread(
            np.arange(1, 50), np.cos(np.arange(1, 50)), np.ones(49), reference=0.5, reference_label="r", title="t"
        ),
        lambda: rope_figures.xpos_factors(
            np.arange(0, 400, 4), np.linspace(0.5, 1, 100 * 8).reshape(100, 8), [0, 3], scale_base=512
        ),
        lambda: rope_figures.decay_bound(np.arange(1, 300), np.linspace(1, 0.1, 299), height=300),
        lambda: rope_figures.xpos_score_chart(np.arange(50), np.cos(np.arange(50)), np.exp(-np.arange(50) / 9)),
        lambda: rope_figures.pairing_map({"a": np.repeat(np.arange(4), 2), "b": np.tile(np.arange(4), 2)}, title="t"),
        lambda: rope_figures.scaling_chart(
            np.geomspace(6, 60000, 16),
            np.geomspace(6, 240000, 16),
            np.linspace(1, 0.25, 16),
            np.minimum(np.arange(16) // 6, 2),
            factor=4.0,
            original_length=2048,
            guides={"L/beta": 2048.0, "L/alpha": 64.0},
            title="t",
        ),
    ],
)
def test_unchecked_builders_build_what_the_checked_api_builds(build):
    fig = build()
    checked = go.Figure(fig.to_dict())  # Plotly validates every property here
    assert json.loads(fig.to_json()) == json.loads(checked.to_json())
    # and later changes to the figure are checked as usual
    with pytest.raises(ValueError):
        fig.update_layout(not_a_property=1)


# ---- subplot_layout: make_subplots's grid, cached without its titles (issue 18)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(rows=1, cols=3, subplot_titles=["a", "b, K = 4", "c <b>bold</b>"], horizontal_spacing=0.06),
        dict(rows=1, cols=3, subplot_titles=["a", "", "c"], horizontal_spacing=0.06),
        dict(rows=2, cols=2, subplot_titles=("one", None, "three"), vertical_spacing=0.2),
        dict(rows=2, cols=2, subplot_titles=["p", "q", "r", "s", "beyond the grid"]),
        dict(rows=2, cols=1, shared_xaxes=True, row_heights=[0.64, 0.36], vertical_spacing=0.06),
        dict(rows=1, cols=2, subplot_titles=[]),
    ],
)
def test_subplot_layout_is_make_subplots_layout(kwargs):
    from plotly.subplots import make_subplots

    from posenc_lab.figures.theme import subplot_layout

    def expected(**kwargs):
        layout = make_subplots(**kwargs).to_dict()["layout"]
        del layout["template"]  # go.Figure adds the default one to the figure made from the layout
        return layout

    assert subplot_layout(**kwargs) == expected(**kwargs)
    # a second call (the cached grid) with other titles of the same count
    titles = kwargs.get("subplot_titles")
    if titles:
        other = [f"{t}!" if t else t for t in titles]
        assert subplot_layout(**{**kwargs, "subplot_titles": other}) == expected(**{**kwargs, "subplot_titles": other})


def test_subplot_layout_returns_a_new_dict_each_time():
    from posenc_lab.figures.theme import subplot_layout

    first = subplot_layout(rows=1, cols=2, subplot_titles=["a", "b"])
    first["xaxis"]["title"] = dict(text="changed")
    first["annotations"][0]["text"] = "changed"
    second = subplot_layout(rows=1, cols=2, subplot_titles=["a", "b"])
    assert "title" not in second["xaxis"]
    assert [a["text"] for a in second["annotations"]] == ["a", "b"]


# heatmaps with more rows than pixels


def test_block_means_average_each_run_of_rows_the_last_one_shorter():
    z = np.arange(10.0).reshape(5, 2)
    np.testing.assert_array_equal(figures.block_means(z, 2), [[1, 2], [5, 6], [8, 9]])
    np.testing.assert_array_equal(figures.block_means(z, 1), z)


def test_a_heatmap_never_draws_more_rows_than_its_pixel_rows():
    from posenc_lab.figures import theme

    fig = figures.heatmap(
        np.random.default_rng(0).standard_normal((1000, 8)), title="t", x_title="x", y_title="y", height=300
    )
    rows = np.asarray(fig.data[0].z).shape[0]
    assert rows <= 300 - theme.HEATMAP_MARGIN_PX, rows
    assert "showing every 8th row" in fig.layout.title.text


def test_a_4096_position_sinusoid_heatmap_draws_block_means_not_aliased_stripes():
    pe = posenc.sinusoidal(4096, 64)
    kw = dict(title="PE", x_title="dimension", y_title="position", height=520, row_noun="position")
    fig = figures.heatmap(pe, mean_rows=True, **kw)
    z = np.asarray(fig.data[0].z)
    assert z.shape == (256, 64), "at most the 405 rows of pixels of a 520 px heatmap, by whole runs of 16"
    np.testing.assert_allclose(z, pe.reshape(256, 16, 64).mean(axis=1), atol=1e-6)
    np.testing.assert_array_equal(np.asarray(fig.data[0].y), np.arange(0, 4096, 16))
    assert fig.layout.title.text == "PE (each row the mean of 16 positions)"
    # dimension 0 is sin(p), a wave of 6.3 positions: its mean over 16 positions stays near 0,
    # where every 16th position swings between -1 and 1 as a slow wave that is not there (moiré)
    assert np.abs(z[:, 0]).max() < 0.13
    strided = np.asarray(figures.heatmap(pe, **kw).data[0].z)
    assert np.abs(strided[:, 0]).max() > 0.99
