"""The relative-positions lesson's figure builders (figures.relative), without Streamlit."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from posenc_lab import figures
from posenc_lab.lessons.relative import figures as relfig


def _offsets(length, clip):
    j, i = np.meshgrid(np.arange(length), np.arange(length))
    raw = j - i
    return raw, np.clip(raw, -clip, clip)


def _points(path: str):
    """The path's points as (x, y) pairs."""
    return [tuple(float(v) for v in p.split(",")) for p in path.removeprefix("M ").split(" L ")]


# offset_panels


def test_offset_panels_show_both_matrices_on_one_symmetric_scale():
    raw, clipped = _offsets(7, 2)
    fig = relfig.offset_panels(raw, clipped, max_distance=2)
    heatmaps = [t for t in fig.data if isinstance(t, go.Heatmap)]
    assert len(heatmaps) == 2
    np.testing.assert_array_equal(heatmaps[0].z, raw)
    np.testing.assert_array_equal(heatmaps[1].z, clipped)
    assert all(t.z.dtype == np.float32 for t in heatmaps)
    assert {t.coloraxis for t in heatmaps} == {"coloraxis"}
    axis = fig.layout.coloraxis
    assert axis.cmin == -6 and axis.cmax == 6 and axis.cmid == 0
    assert axis.colorscale == go.Heatmap(colorscale=figures.SIGNED_SCALE).colorscale


def test_offset_panels_titles_and_hover_name_the_cell():
    raw, clipped = _offsets(5, 1)
    fig = relfig.offset_panels(raw, clipped, max_distance=1, title="Offsets")
    assert fig.layout.title.text == "Offsets"
    assert fig.layout.xaxis.title.text == "key position j"
    assert fig.layout.xaxis2.title.text == "key position j"
    assert fig.layout.yaxis.title.text == "query position i"
    assert "K = 1" in fig.layout.annotations[1].text
    for trace in fig.data:
        assert "query i" in trace.hovertemplate and "key j" in trace.hovertemplate
    assert "clip" in fig.data[1].hovertemplate


@pytest.mark.parametrize(("length", "annotated"), [(2, True), (16, True), (17, False), (64, False)])
def test_offset_panels_print_cell_values_only_when_legible(length, annotated):
    raw, clipped = _offsets(length, 3)
    fig = relfig.offset_panels(raw, clipped, max_distance=3)
    assert all(bool(t.texttemplate) == annotated for t in fig.data)
    forced = relfig.offset_panels(raw, clipped, max_distance=3, annotate=True)
    assert all(t.texttemplate for t in forced.data)


def test_offset_panels_outline_the_band_along_cell_borders():
    # T = 5, K = 1: above the diagonal the clipped cells are (0, 2..4), (1, 3..4), (2, 4)
    raw, clipped = _offsets(5, 1)
    fig = relfig.offset_panels(raw, clipped, max_distance=1)
    paths = [s.path for s in fig.layout.shapes]
    assert len(paths) == 4  # two borders on each panel
    above = _points(paths[0])
    assert above == [(1.5, -0.5), (1.5, 0.5), (2.5, 0.5), (2.5, 1.5), (3.5, 1.5), (3.5, 2.5), (4.5, 2.5)]
    below = _points(paths[1])
    assert below == [(-0.5, 1.5), (0.5, 1.5), (0.5, 2.5), (1.5, 2.5), (1.5, 3.5), (2.5, 3.5), (2.5, 4.5)]
    assert {s.xref for s in fig.layout.shapes} == {"x", "x2"}


@pytest.mark.parametrize(("length", "clip"), [(6, 3), (9, 0), (30, 7)])
def test_band_border_separates_exact_from_clipped_cells(length, clip):
    raw, clipped = _offsets(length, clip)
    fig = relfig.offset_panels(raw, clipped, max_distance=clip)
    above = _points(fig.layout.shapes[0].path)
    # in each row the vertical segment sits between the last exact and the first clipped key
    for x, y in above[1:-1:2]:
        row = int(round(y - 0.5))
        assert raw[row, int(x - 0.5)] == clip and raw[row, int(x + 0.5)] == clip + 1


@pytest.mark.parametrize(("length", "clip"), [(5, 4), (5, 9), (2, 1)])
def test_offset_panels_draw_no_border_when_nothing_is_clipped(length, clip):
    raw, clipped = _offsets(length, clip)
    assert not relfig.offset_panels(raw, clipped, max_distance=clip).layout.shapes


def test_offset_panels_refuse_mismatched_arrays():
    raw, clipped = _offsets(5, 1)
    with pytest.raises(ValueError, match="square"):
        relfig.offset_panels(raw, clipped[:4], max_distance=1)
    with pytest.raises(ValueError, match="square"):
        relfig.offset_panels(raw[:3], clipped[:3], max_distance=1)


def test_offset_panels_largest_payload_is_small():
    raw, clipped = _offsets(64, 0)
    assert figures.figure_bytes(relfig.offset_panels(raw, clipped, max_distance=0)) < 100_000


# bucket_chart


def _chart(n=21, **kwargs):
    rel = np.arange(-(n // 2), n // 2 + 1)
    bucket = np.abs(rel) // 2
    region = (np.abs(rel) >= 4).astype(int)
    args = dict(title="Buckets", x_title="relative position j - i")
    args.update(kwargs)
    return rel, bucket, region, relfig.bucket_chart(rel, bucket, region, ["near", "far"], **args)


def test_bucket_chart_one_step_trace_per_region_with_gaps_elsewhere():
    rel, bucket, region, fig = _chart()
    assert [t.name for t in fig.data] == ["near", "far"]
    for code, trace in enumerate(fig.data):
        assert trace.line.shape == "hv"
        y = np.asarray(trace.y, dtype=float)
        inside = region == code
        np.testing.assert_array_equal(y[inside], bucket[inside])
        assert np.isnan(y[~inside]).all()
        assert "bucket" in trace.hovertemplate and "relative position" in trace.hovertemplate
    assert fig.layout.title.text == "Buckets"
    assert fig.layout.xaxis.title.text == "relative position j - i"
    assert fig.layout.yaxis.title.text == "bucket"


def test_bucket_chart_skips_empty_regions_and_keeps_palette_by_region():
    rel = np.arange(-3, 4)
    fig = relfig.bucket_chart(rel, rel * 0, np.full(7, 2), ["a", "b", "c"], title="t", x_title="x")
    assert [t.name for t in fig.data] == ["c"]
    assert fig.data[0].line.color == figures.PALETTE[2]


def test_bucket_chart_labels_boundaries_outwards_and_staggers_levels():
    vlines = [dict(x=-4, text="-4 (e)"), dict(x=4, text="+4 (e)"), dict(x=8, text="+8 (max)", level=1)]
    *_, fig = _chart(vlines=vlines)
    assert [s.x0 for s in fig.layout.shapes] == [-4, 4, 8]
    notes = {a.text: a for a in fig.layout.annotations}
    assert notes["-4 (e)"].xanchor == "right" and notes["+4 (e)"].xanchor == "left"
    assert notes["+8 (max)"].y > notes["+4 (e)"].y >= 1.0  # above the plot area


def test_bucket_chart_draws_extra_series_first_and_dashed():
    rel, bucket, region, _ = _chart()
    used = np.minimum(bucket, 3)
    fig = relfig.bucket_chart(rel, bucket, region, ["near", "far"], title="t", x_title="x", extra={"used": used})
    assert fig.data[0].name == "used" and fig.data[0].line.dash == "dash"
    np.testing.assert_array_equal(fig.data[0].y, used)


def test_bucket_chart_markers_only_when_few_points():
    *_, small = _chart(n=41)
    *_, large = _chart(n=401)
    assert small.data[0].mode == "lines+markers"
    assert large.data[0].mode == "lines"


def test_bucket_chart_refuses_mismatched_arrays():
    with pytest.raises(ValueError, match="1-D"):
        relfig.bucket_chart(np.arange(5), np.arange(4), np.zeros(5, int), ["a"], title="t", x_title="x")


# bucket_heatmap


def test_bucket_heatmap_hover_names_the_bucket_of_each_cell():
    rng = np.random.default_rng(0)
    z = rng.standard_normal((6, 6))
    buckets = rng.integers(0, 32, (6, 6))
    fig = relfig.bucket_heatmap(z, buckets, title="Bias", value_name="bias b")
    trace = fig.data[0]
    np.testing.assert_array_equal(trace.z, z.astype(np.float32))
    np.testing.assert_array_equal(trace.customdata, buckets)
    assert trace.customdata.dtype == np.int8
    assert "%{customdata}" in trace.hovertemplate and "bias b" in trace.hovertemplate
    assert trace.zmid == 0 and trace.zmin == -trace.zmax == pytest.approx(-np.abs(z).max(), rel=1e-6)
    assert fig.layout.title.text == "Bias"
    assert fig.layout.yaxis.autorange == "reversed"


def test_bucket_heatmap_thins_values_and_buckets_alike():
    n = 512
    z = np.add.outer(np.arange(n), np.arange(n) * 1000.0)
    buckets = np.add.outer(np.arange(n) % 7, np.arange(n) % 5)
    fig = relfig.bucket_heatmap(z, buckets, title="Bias")
    trace = fig.data[0]
    assert trace.z.shape == trace.customdata.shape == (256, 256)
    np.testing.assert_array_equal(trace.customdata, buckets[::2, ::2])
    np.testing.assert_array_equal(trace.z, z[::2, ::2].astype(np.float32))
    assert "every 2nd query" in fig.layout.title.text and "every 2nd key" in fig.layout.title.text


def test_bucket_heatmap_keeps_large_buckets_and_an_all_zero_grid():
    fig = relfig.bucket_heatmap(np.zeros((3, 3)), np.full((3, 3), 300), title="t")
    assert fig.data[0].customdata.dtype == np.int16
    assert fig.data[0].zmax == 1.0


def test_bucket_heatmap_largest_grid_stays_under_one_megabyte():
    rng = np.random.default_rng(1)
    fig = relfig.bucket_heatmap(rng.standard_normal((256, 256)), rng.integers(0, 128, (256, 256)), title="t")
    size = figures.figure_bytes(fig)
    assert size < 600_000
    assert json.loads(fig.to_json())["data"][0]["customdata"]["dtype"] == "i1"


def test_bucket_heatmap_refuses_mismatched_arrays():
    with pytest.raises(ValueError, match="same 2-D shape"):
        relfig.bucket_heatmap(np.zeros((3, 3)), np.zeros((3, 4)), title="t")
