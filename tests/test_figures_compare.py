"""Builders of the "Compare them all" lesson, tested without Streamlit: the small multiples
(one colour scale per panel, thinning, missing panels) and the log-axis bars that show zeros."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from posenc_lab import figures
from posenc_lab.lessons.compare import figures as compare

RNG = np.random.default_rng(7)


def _grid(panels, names=None, **kwargs):
    n = len(panels)
    names = names or [f"method {k}" for k in range(n)]
    size = next(p.shape[0] for p in panels if p is not None)
    args = dict(positions=np.arange(size), title="Scores with positions minus scores without")
    args.update(kwargs)
    return compare.score_grid(panels, names, **args)


# score_grid


def test_each_panel_has_its_own_symmetric_scale_and_says_its_range():
    small, large = RNG.standard_normal((5, 5)), 40 * RNG.standard_normal((5, 5))
    fig = _grid([small, large], ["A", "B"], n_cols=2)
    assert len(fig.data) == 2
    for trace, z in zip(fig.data, (small, large), strict=True):
        bound = np.abs(z.astype(np.float32)).max()
        assert trace.zmin == pytest.approx(-bound) and trace.zmax == pytest.approx(bound)
        assert trace.zmid == 0 and trace.showscale is False
        assert trace.z.dtype == np.float32
        np.testing.assert_array_equal(trace.z, z.astype(np.float32))
    titles = [a.text for a in fig.layout.annotations]
    assert titles[0] == f"A (colour range ±{np.abs(small.astype(np.float32)).max():.3g})"
    assert titles[1].startswith("B (colour range ±")


def test_an_all_zero_panel_says_so_and_stays_white():
    fig = _grid([np.zeros((4, 4)), RNG.standard_normal((4, 4))], ["None", "ALiBi"], n_cols=2)
    assert fig.layout.annotations[0].text == "None: 0 everywhere"
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-1.0, 1.0)


def test_a_missing_panel_writes_why_in_its_place():
    panels = [RNG.standard_normal((6, 6)), None, RNG.standard_normal((6, 6))]
    fig = _grid(panels, ["a", "learned", "c"], missing=["", "no: no row past max_len = 4", ""])
    assert len(fig.data) == 2
    texts = {a.text: a for a in fig.layout.annotations}
    assert "learned: no scores" in texts
    note = texts["no: no row past max_len = 4"]
    # in the middle of the second of three cells
    assert (note.xref, note.yref) == ("paper", "paper")
    assert 1 / 3 < note.x < 2 / 3 and note.y == pytest.approx(0.5)


def test_nine_panels_make_a_three_by_three_grid_with_outer_axis_titles():
    fig = _grid([RNG.standard_normal((8, 8)) for _ in range(9)])
    assert len(fig.data) == 9
    assert {t.xaxis for t in fig.data} == {"x"} | {f"x{k}" for k in range(2, 10)}
    # query on the left column, key on the bottom row, rows reversed so query 0 is on top
    assert fig.layout.yaxis.title.text == "query i" and fig.layout.yaxis2.title.text is None
    assert fig.layout.xaxis7.title.text == "key j" and fig.layout.xaxis.title.text is None
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]


def test_large_panels_are_thinned_and_the_title_says_by_how_much():
    t = 512
    fig = _grid([RNG.standard_normal((t, t)) for _ in range(9)], positions=np.arange(t))
    assert all(trace.z.shape[0] <= compare.PANEL_CELLS for trace in fig.data)
    assert fig.data[0].z.shape == (t // 8, t // 8)
    assert "every 8th position" in fig.layout.title.text
    assert figures.figure_bytes(fig) < 1_000_000


def test_positions_thinned_upstream_are_reported_in_the_title():
    fig = _grid([RNG.standard_normal((4, 4))], positions=np.arange(0, 16, 4), position_step=4, n_cols=1)
    assert "every 4th position" in fig.layout.title.text
    assert list(fig.data[0].x) == [0, 4, 8, 12]


def test_score_grid_hover_names_the_method_query_and_key():
    fig = _grid([RNG.standard_normal((3, 3))], ["RoPE"], n_cols=1)
    hover = fig.data[0].hovertemplate
    assert "RoPE" in hover and "query position i" in hover and "key position j" in hover


def test_score_grid_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="equal length"):
        compare.score_grid([np.zeros((2, 2))], ["a", "b"], positions=np.arange(2), title="t")
    with pytest.raises(ValueError, match="equal length"):
        compare.score_grid([], [], positions=np.arange(2), title="t")


# translation_bars


NAMES = ["None", "Sinusoidal", "Learned", "RoPE"]


def _bars(errors, **kwargs):
    return compare.translation_bars(NAMES, errors, title="Largest change", **kwargs)


def test_zeros_are_drawn_at_the_floor_with_their_true_value_in_hover_and_label():
    fig = _bars([0.0, 1.9, 8.5, 6e-15])
    by_name = {t.name: t for t in fig.data}
    zeros = by_name[f"below {compare.ZERO_BELOW:.0e}, drawn at {compare.FLOOR:.0e}"]
    assert list(zeros.x) == ["None"]
    assert zeros.y[0] == pytest.approx(compare.FLOOR)
    assert list(zeros.customdata) == [0.0] and list(zeros.text) == ["0"]
    rounding = by_name["rounding error"]
    assert list(rounding.x) == ["RoPE"] and rounding.y[0] == pytest.approx(6e-15)
    real = by_name["real change"]
    assert list(real.x) == ["Sinusoidal", "Learned"]
    np.testing.assert_allclose(real.customdata, [1.9, 8.5])
    assert list(real.text) == ["1.9e+00", "8.5e+00"]


def test_the_log_axis_reaches_below_the_floor_and_above_the_largest_bar():
    fig = _bars([0.0, 1.9, 850.0, 6e-15])
    assert fig.layout.yaxis.type == "log"
    low, high = fig.layout.yaxis.range
    assert low < math.log10(compare.FLOOR) and high > math.log10(850.0)
    assert fig.layout.xaxis.categoryarray == tuple(NAMES)


def test_a_method_without_scores_gets_a_note_and_no_bar():
    fig = _bars([0.0, 1.9, np.nan, 6e-15], missing_text="no row")
    drawn = [x for t in fig.data for x in t.x]
    assert "Learned" not in drawn and len(drawn) == 3
    (note,) = [a for a in fig.layout.annotations if a.text == "no row"]
    assert note.x == "Learned" and note.y == pytest.approx(math.log10(compare.FLOOR))


def test_bars_reject_bad_arguments():
    with pytest.raises(ValueError, match="one entry per name"):
        _bars([0.0, 1.0])
    with pytest.raises(ValueError, match="floor"):
        _bars([0.0] * 4, floor=1e-10)


def test_bars_are_bars_with_titles():
    fig = _bars([0.0, 1.0, 2.0, 3e-15])
    assert all(isinstance(t, go.Bar) for t in fig.data)
    assert fig.layout.title.text == "Largest change"
    assert fig.layout.yaxis.title.text and fig.layout.xaxis.title.text == "method"


def test_one_shared_scale_is_stretched_near_zero_so_small_panels_keep_their_pattern():
    small, large = RNG.standard_normal((6, 6)), 30 * RNG.standard_normal((6, 6))
    fig = _grid([small, large], ["T5", "ALiBi"], n_cols=2, shared_scale=True)
    common = float(np.abs(large.astype(np.float32)).max())
    # the numbers are the panels' own, on one range: the same colour is the same value
    for trace, z in zip(fig.data, (small, large), strict=True):
        np.testing.assert_array_equal(trace.z, z.astype(np.float32))
        assert (trace.zmin, trace.zmax) == (pytest.approx(-common), pytest.approx(common))
    assert fig.data[0].colorscale == fig.data[1].colorscale
    assert "one colour scale for every panel, stretched near 0" in fig.layout.title.text
    # the small panel's largest value takes a colour a quarter of the way or more from white to
    # the end of the scale (the knee is half the smallest panel's largest value), where the
    # linear scale gave it a thirtieth
    bound = float(np.abs(small.astype(np.float32)).max())
    knee = bound / 2
    assert f"knee {knee:.3g}" in fig.layout.title.text
    shade = np.arcsinh(bound / knee) / np.arcsinh(common / knee)
    assert shade > 0.25 > 3 * bound / common
    stops, stretch = compare.compressed_scale(common, knee)
    assert stretch < 1 and len(stops) == compare.COMPRESSED_STOPS
    assert [p for p, _ in stops] == sorted(p for p, _ in stops) and (stops[0][0], stops[-1][0]) == (0.0, 1.0)
    assert stops[len(stops) // 2][1] == "rgb(247, 247, 247)", "0 stays white"
    # a value of a sixteenth of the range is drawn well past white already
    first = [int(v) for v in stops[len(stops) // 2 + 1][1][4:-1].split(",")]
    assert min(first) < 200


def test_separate_scales_say_so_in_the_title():
    fig = _grid([RNG.standard_normal((4, 4)), RNG.standard_normal((4, 4))], n_cols=2, shared_scale=False)
    assert fig.layout.title.text.endswith("(each panel on its own colour scale)")
    assert fig.data[0].colorscale != compare.compressed_scale(1.0, 0.5)[0]
