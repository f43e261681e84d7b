"""ui.figcache: a figure is reused only for exactly the same inputs, and sharing it
between sessions changes nothing a student sees."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
from app_helpers import VIEW_CASES, VIEW_IDS, assert_clean, charts, open_page

from posenc_lab.figures import display
from posenc_lab.ui import figcache


def _digest(*args, **kwargs):
    return figcache.fingerprint(go.Figure, args, kwargs)


def test_every_byte_of_a_large_array_counts():
    # Streamlit's own hasher samples arrays of 500k elements or more: this one must not
    a = np.zeros(1_000_000)
    b = a.copy()
    b[777_777] = 1e-300
    assert _digest(a) != _digest(b)
    assert _digest(a) == _digest(a.copy())


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (1, 1.0),
        (1, True),
        (0.1 + 0.2, 0.3),
        ([1, 2], (1, 2)),
        (np.arange(4), np.arange(4).astype(np.float64)),
        (np.arange(6).reshape(2, 3), np.arange(6).reshape(3, 2)),
        ("ab", ["a", "b"]),
        (None, "None"),
        (np.float32(1.5), 1.5),
    ],
)
def test_values_that_print_alike_differ(one, other):
    assert _digest(one) != _digest(other)


def test_keyword_order_does_not_matter_but_names_do():
    assert _digest(x=1, y=2) == _digest(y=2, x=1)
    assert _digest(x=1, y=2) != _digest(x=2, y=1)
    assert figcache.fingerprint(go.Figure, (), {}) != figcache.fingerprint(go.Scatter, (), {})


def test_unreadable_arguments_are_refused():
    with pytest.raises(TypeError):
        _digest(object())
    with pytest.raises(TypeError):
        _digest(np.array([object()]))


def _bars(values, *, title):
    return go.Figure(go.Bar(y=values), layout_title_text=title)


def test_the_same_inputs_share_one_figure_and_after_runs_once():
    figcache._built.clear()
    mark = [("add_hline", dict(y=1.5))]
    first = figcache.figure(_bars, np.array([1.0, 2.0]), title="t", after=mark)
    again = figcache.figure(_bars, np.array([1.0, 2.0]), title="t", after=mark)
    assert again is first
    assert len(first.layout.shapes) == 1
    changed = figcache.figure(_bars, np.array([1.0, 2.5]), title="t", after=mark)
    assert changed is not first
    assert list(changed.data[0].y) == [1.0, 2.5]
    assert figcache.figure(_bars, np.array([1.0, 2.0]), title="t") is not first


def test_an_unreadable_argument_builds_without_the_cache():
    figcache.UNCACHED.clear()
    fig = figcache.figure(lambda values: go.Figure(go.Bar(y=list(values))), range(3))
    assert list(fig.data[0].y) == [0, 1, 2]
    assert figcache.UNCACHED == {f"{__name__}.test_an_unreadable_argument_builds_without_the_cache.<locals>.<lambda>"}
    figcache.UNCACHED.clear()


@pytest.mark.parametrize(("page", "query"), VIEW_CASES, ids=VIEW_IDS)
def test_every_view_caches_its_figures_and_reruns_draw_the_same(page, query):
    figcache.UNCACHED.clear()
    at = open_page(page, query)
    assert_clean(at)
    first = charts(at)
    at.run()
    # a figure changed in place after caching would grow (a second line, a bigger font)
    assert charts(at) == first
    assert not figcache.UNCACHED, "every builder call is keyed (ui.figcache.fingerprint reads its arguments)"


def test_presenter_mode_resizes_a_copy_not_the_shared_figure():
    plain = charts(open_page("posenc_lab/lessons/alibi/page.py", {"view": "slopes"}))
    presenting = charts(open_page("posenc_lab/lessons/alibi/page.py", {"view": "slopes", "present": "1"}))
    assert presenting[0]["layout"]["font"]["size"] == 20
    assert presenting[0]["layout"]["height"] > plain[0]["layout"]["height"]
    assert charts(open_page("posenc_lab/lessons/alibi/page.py", {"view": "slopes"})) == plain


def _drawn_json(panel) -> dict:
    """The spec st.plotly_chart sends for ``panel`` (streamlit/elements/plotly_chart.py),
    read back (Plotly's constructor orders the layout's keys its own way)."""
    import json

    import plotly.io
    import plotly.tools

    figure = plotly.tools.return_figure_from_figure_or_data(panel, validate_figure=True)
    return json.loads(plotly.io.to_json(figure, validate=False))


def _animated(values, *, title):
    fig = go.Figure(go.Scatter(x=np.arange(len(values)), y=values, uid="line"), layout_title_text=title)
    fig.frames = [go.Frame(data=[go.Scatter(y=values * k)], name=str(k)) for k in range(3)]
    return fig


def _two_panels(values, *, title):
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=("left", "right"))
    fig.add_trace(go.Heatmap(z=np.outer(values, values)), row=1, col=1)
    fig.add_trace(go.Bar(y=values), row=1, col=2)
    return fig.update_layout(title_text=title)


@pytest.mark.parametrize("builder", [_bars, _animated, _two_panels])
@pytest.mark.parametrize("present", [False, True])
def test_a_cached_panel_sends_what_plotly_would_and_is_not_changed_by_drawing(builder, present):
    figcache._built.clear()
    figcache._prepared.clear()
    values = np.linspace(-1.0, 2.0, 7)
    fig = figcache.figure(builder, values, title="t")
    # made now through Plotly's objects and their own to_dict
    fresh_title, fresh_panels = display.prepare(fig, present=present)
    several = sum(len(row) for row in fresh_panels) > 1
    fresh_rows = []
    for row in fresh_panels:
        titles = [display.title_of(panel) if several else "" for panel in row]
        fresh_rows.append([(p, t, display.describe(p, fresh_title, t)) for p, t in zip(row, titles, strict=True)])
    _, cached_rows = figcache.prepared(fig, present)
    fresh = [_drawn_json(panel) for row in fresh_rows for panel, _, _ in row]
    assert len(fresh) == (2 if builder is _two_panels else 1)
    for _ in range(2):  # a second draw sends the same: nothing read it destructively
        assert [_drawn_json(panel) for row in cached_rows for panel, _, _ in row] == fresh
    # titles and alt texts as the Plotly objects give them; the animation as the chart tools see it
    assert [[(t, alt) for _, t, alt in row] for row in cached_rows] == [
        [(t, alt) for _, t, alt in row] for row in fresh_rows
    ]
    panel = cached_rows[0][0][0]
    assert figcache.animation(panel)[:2] == figcache.animation(fresh_rows[0][0][0])[:2] == (builder is _animated, 120)
    assert figcache.animation(panel)[2] == figcache.animation(fresh_rows[0][0][0])[2]
    assert figcache.prepared(fig, present)[1][0][0][0] is panel
    # the shared figure's frames were not converted in place
    assert all(isinstance(frame.data[0].y, np.ndarray) for frame in fig.frames)
