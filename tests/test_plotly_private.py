"""figures.plotly_private: the private paths (the pinned Plotly) and the public fallback
(any other Plotly) give the same charts.

Each figure is built, split, finished and made ready to send once on each path, and what
plotly.js would read is compared: the JSON, with every base64 typed array decoded to the
numbers it holds (the public path leaves arrays to ``plotly.io.to_json``, which writes lists).
"""

from __future__ import annotations

import base64
import importlib
import json
import sys

import numpy as np
import plotly
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from posenc_lab import figures
from posenc_lab.figures import display, plotly_private
from posenc_lab.figures.theme import subplots
from posenc_lab.lessons.compare.figures import score_grid
from posenc_lab.lessons.relative.figures import offset_panels
from posenc_lab.lessons.rope import figures as rope_figures

RNG = np.random.default_rng(35)


def _decoded(spec: dict) -> list:
    """The numbers a ``{"dtype", "bdata"[, "shape"]}`` typed array holds, as nested lists."""
    dtype = {"f4": "<f4", "f8": "<f8", "i1": "i1", "u1": "u1", "i2": "<i2", "u2": "<u2", "i4": "<i4", "u4": "<u4"}
    values = np.frombuffer(base64.b64decode(spec["bdata"]), dtype=dtype[spec["dtype"]])
    if "shape" in spec:
        values = values.reshape([int(n) for n in spec["shape"].split(",")])
    return values.tolist()


#: lists of layout items a validated figure leaves out when they are empty
_ITEMS = ("annotations", "shapes", "images")


def _read(value):
    """A JSON tree as plotly.js reads it: typed arrays decoded, non-finite numbers as null
    (JSON has none; plotly.io writes NaN and infinity as null), and a property that is
    null, an empty object or an empty list of notes left out, as unset (a validated figure
    leaves them out)."""
    if isinstance(value, dict):
        if set(value) in ({"dtype", "bdata"}, {"dtype", "bdata", "shape"}):
            return _read(_decoded(value))
        read = {k: _read(v) for k, v in value.items()}
        return {k: v for k, v in read.items() if v is not None and v != {} and not (k in _ITEMS and v == [])}
    if isinstance(value, list):
        return [_read(v) for v in value]
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def _json(fig_or_spec) -> dict:
    return _read(json.loads(pio.to_json(fig_or_spec, validate=False)))


def _same_numbers(a, b, path="") -> None:
    """Equal trees; floats equal or the same once rounded to float32 (a float32 array's
    typed array holds its exact values, a list its shortest float32 spelling)."""
    assert type(a) is type(b) or {type(a), type(b)} == {int, float}, (path, a, b)
    if isinstance(a, dict):
        assert a.keys() == b.keys(), (path, sorted(a.keys() ^ b.keys()))
        for k in a:
            _same_numbers(a[k], b[k], f"{path}/{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same_numbers(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert a == b or np.float32(a) == np.float32(b), (path, a, b)
    else:
        assert a == b, (path, a, b)


def _figures():
    """A heatmap, a line chart (log axis, marker lines), bars, heatmap panels, make_subplots
    grids and an animation, as functions that build them (the same numbers on every call)."""
    z = RNG.standard_normal((12, 9))
    x = np.arange(1, 500)
    raw = np.subtract.outer(np.arange(8), np.arange(8))
    grid = [RNG.standard_normal((5, 5)) for _ in range(5)] + [None]
    return {
        "heatmap": lambda: figures.heatmap(z, title="a heatmap", x_title="key", y_title="query"),
        "small heatmap": lambda: figures.heatmap(np.arange(16).reshape(4, 4), title="cells", x_title="k", y_title="q"),
        "lines": lambda: figures.line_chart(
            x,
            {"a": x**0.5, "b": np.log(x).astype(np.float32)},
            title="lines",
            x_title="p",
            y_title="v",
            log_x=True,
            vlines={"L": 100},
        ),
        "bars": lambda: figures.grouped_bars(["x", "y"], {"s": [1e-16, 1.0]}, title="b", x_title="w", y_title="d"),
        "panels": lambda: figures.heatmap_panels(
            [z, -z, 2 * z], ["a", "b", "c"], title="three", x_title="k", y_title="q"
        ),
        "offset panels": lambda: offset_panels(raw, np.clip(raw, -3, 3), max_distance=3, annotate=True),
        "score grid": lambda: score_grid(
            grid,
            [f"m{i}" for i in range(6)],
            positions=np.arange(5),
            title="grid",
            missing=[""] * 5 + ["nothing here"],
        ),
        "animation": lambda: rope_figures.rotation_animation(*_rotation_input(), title="rotation"),
        # made with Plotly's own API: a title alone, panels without axis titles, frames of arrays
        "plotly's bars": lambda: go.Figure(go.Bar(y=x[:7] / 3), layout_title_text="t"),
        "plotly's panels": lambda: _plotly_panels(z),
        "plotly's animation": lambda: go.Figure(
            go.Scatter(y=x[:7] / 3), frames=[go.Frame(data=[go.Scatter(y=x[:7] * k)], name=str(k)) for k in range(3)]
        ),
    }


def _plotly_panels(z):
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=("left", "right"))
    fig.add_trace(go.Heatmap(z=z), row=1, col=1)
    fig.add_trace(go.Bar(y=z[0]), row=1, col=2)
    return fig.update_layout(title_text="two")


def _rotation_input(n_frames: int = 6, pairs=(0, 2), gap: int = 2, theta=(1.0, 0.1)):
    """q and k of unit length turning by ``theta`` per position: the arguments of
    ``rotation_animation`` before its title."""
    theta = np.asarray(theta)
    n = np.arange(n_frames)
    m = n + gap
    angles = m[:, None] * theta[None, :]
    q_xy = np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    k_xy = np.stack([np.cos(n[:, None] * theta), np.sin(n[:, None] * theta)], axis=-1)
    shares = (q_xy * k_xy).sum(-1)
    return q_xy, k_xy, angles, shares, m, n, list(pairs), theta


FIGURES = _figures()


def test_the_pinned_plotly_takes_the_private_paths():
    assert plotly_private.proved(plotly.__version__)
    assert plotly_private.FAST, "requirements.txt pins a Plotly the private paths are proved on"


def test_the_pin_and_the_range_are_the_proved_release():
    import re
    import tomllib

    from app_helpers import ROOT

    (pinned,) = re.findall(r"^plotly==(\S+)$", (ROOT / "requirements.txt").read_text(), re.MULTILINE)
    assert plotly_private.proved(pinned)
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    major, minor = plotly_private.PROVED
    assert f"plotly>={major}.{minor},<{major}.{minor + 1}" in dependencies


@pytest.mark.parametrize(
    ("version", "proved"),
    [("7.1.0", True), ("7.1.12", True), ("7.1.0rc1", True), ("7.2.0", False), ("7.0.3", False), ("8.1.0", False)],
)
def test_only_the_tested_minor_release_counts_as_proved(version, proved):
    assert plotly_private.proved(version) is proved


@pytest.fixture
def reloaded(monkeypatch):
    """``plotly_private`` imported again under a patched Plotly (and back as it was after)."""
    yield lambda: importlib.reload(plotly_private)
    monkeypatch.undo()
    importlib.reload(plotly_private)
    assert plotly_private.FAST


def test_another_minor_release_or_a_moved_private_name_takes_the_public_api(monkeypatch, reloaded):
    monkeypatch.setattr(plotly, "__version__", "7.2.0")
    assert not reloaded().FAST
    monkeypatch.setattr(plotly, "__version__", "7.1.0")
    assert reloaded().FAST
    monkeypatch.setitem(sys.modules, "_plotly_utils.utils", None)  # the import fails
    assert not reloaded().FAST
    # and the app still draws
    _, rows = display.prepare(FIGURES["panels"](), present=False)
    assert len(rows[0]) == 3


def _both(build):
    """``build()`` on the private paths, then on the public ones (as with a Plotly the
    tests do not cover)."""
    assert plotly_private.FAST
    fast = build()
    plotly_private.FAST = False
    try:
        return fast, build()
    finally:
        plotly_private.FAST = True


@pytest.mark.parametrize("name", FIGURES)
def test_a_builders_figure_is_the_same_on_either_path(name):
    fast, public = _both(FIGURES[name])
    _same_numbers(_json(fast), _json(public))
    assert [f.name for f in fast.frames] == [f.name for f in public.frames]


@pytest.mark.parametrize("present", [False, True], ids=["desktop", "presenter"])
@pytest.mark.parametrize("name", FIGURES)
def test_prepared_charts_are_the_same_on_either_path(name, present):
    fig = FIGURES[name]()
    fast, public = _both(lambda: display.prepare_specs(fig, present=present))
    assert fast[0] == public[0], "the title"
    assert [len(row) for row in fast[1]] == [len(row) for row in public[1]]
    for a, b in zip(sum(fast[1], []), sum(public[1], []), strict=True):
        _same_numbers(_json(a), _json(b))
    assert fast[2] == public[2], "the animation's own frame objects"
    # the figures a page draws (display.prepare) and what a cached figure sends (ui.figcache)
    charts = _both(lambda: display.prepare(fig, present=present)[1])
    for a, b in zip(sum(charts[0], []), sum(charts[1], []), strict=True):
        _same_numbers(_json(a), _json(b))
        assert len(a.frames) == len(b.frames)
    from posenc_lab.ui import figcache

    drawn = _both(lambda: figcache._prepare_drawn(fig, present)[1])
    for (a, *a_text), (b, *b_text) in zip(sum(drawn[0], []), sum(drawn[1], []), strict=True):
        assert a_text == b_text
        _same_numbers(_json(a), _json(b))


def test_split_panels_are_the_same_on_either_path():
    fig = FIGURES["panels"]()
    fast, public = _both(lambda: display.split_panels(fig))
    for a, b in zip(sum(fast, []), sum(public, []), strict=True):
        _same_numbers(_json(a), _json(b))


@pytest.mark.parametrize("kind", ["heatmap", "scatter", "bar", "scattergl", "contour", "histogram2dcontour", "table"])
def test_trace_props_are_the_same_on_either_path(kind):
    fast, public = _both(lambda: plotly_private.trace_props(kind))
    assert fast == public
    assert ("colorbar" in fast) == (kind in ("heatmap", "contour", "histogram2dcontour"))


#: every dtype branch of Plotly's typed arrays: narrowed int64 and uint64, ones left as
#: arrays (too wide, strings, booleans, empty, 0-d), 2-D with a shape, float32, a view
_ARRAYS = {
    "f8": np.linspace(-1.0, 1.0, 5),
    "f8 with nan": np.array([[1.5, np.nan], [np.inf, 0.0]]),
    "i8 2-D": np.arange(6).reshape(2, 3),
    "i8 to i2": np.array([1, 200, -300]),
    "i8 to i4": np.array([1, 40_000]),
    "i8 too wide": np.array([1, 2**40]),
    "u8 to u1": np.arange(4, dtype=np.uint64),
    "u8 to u4": np.array([2**31], dtype=np.uint64),
    "bool": np.array([True, False]),
    "str": np.array(["a", "bc"]),
    "empty": np.array([], dtype=float),
    "0-d": np.array(2.5),
    "f4": np.float32([1.5, 2.0, 0.1]),
    "i1": np.int8([1, -1]),
    "u2": np.uint16([7, 60_000]),
    "f4 transposed": np.arange(12, dtype=np.float32).reshape(3, 4).T,
    "f8 every other": np.linspace(0, 1, 9)[::2],
}


@pytest.mark.parametrize("name", _ARRAYS)
def test_a_typed_array_reads_the_same_as_the_public_paths_copy(name):
    value = _ARRAYS[name]
    before = value.copy()
    fast, public = _both(lambda: plotly_private.typed_array_spec(value))
    assert isinstance(public, np.ndarray) and public is not value and np.shares_memory(public, value) is False
    assert public.dtype == value.dtype
    _same_numbers(_json({"data": [{"y": fast}]}), _json({"data": [{"y": public}]}))
    np.testing.assert_array_equal(value, before)


def test_sendable_trees_read_the_same_on_either_path():
    tree = {
        "x": _ARRAYS["i8 to i2"],
        "marker": {"color": _ARRAYS["f4"], "size": [_ARRAYS["u8 to u1"], 3, None]},
        "range": _ARRAYS["f8"],
        "geojson": {"x": _ARRAYS["f8"]},
        "text": ["a", _ARRAYS["str"]],
        "z": (_ARRAYS["f8 with nan"], _ARRAYS["0-d"]),
    }
    fast, public = _both(lambda: display.sendable(tree))
    _same_numbers(_json({"data": [fast]}), _json({"data": [public]}))
    # the shared tree's arrays are not handed out on either path
    assert public["x"] is not tree["x"] and public["marker"]["color"] is not tree["marker"]["color"]


def test_a_copied_grid_takes_traces_by_row_and_column_on_either_path():
    def build():
        fig = subplots(rows=2, cols=2, subplot_titles=("a", "b", "c", "d"))
        fig.add_trace(go.Scatter(y=[1, 2]), row=2, col=1)
        fig.update_xaxes(title_text="x", row=2, col=1)
        return fig

    fast, public = _both(build)
    assert fast.data[0].xaxis == public.data[0].xaxis == "x3"
    _same_numbers(_json(fast), _json(public))
    # each call copies: the cached template is left as it was
    assert len(build().data) == 1


@pytest.mark.parametrize("path", ["private", "public"])
def test_a_builders_figure_checks_what_is_added_later(path, monkeypatch):
    monkeypatch.setattr(plotly_private, "FAST", path == "private")
    fig = figures.heatmap(RNG.standard_normal((3, 3)), title="t", x_title="k", y_title="q")
    with pytest.raises(ValueError):
        fig.update_layout(no_such_property=1)
    with pytest.raises(ValueError):
        fig.data[0].update(no_such_property=1)


def test_frames_are_read_and_set_alike_on_either_path():
    fig = FIGURES["animation"]()
    fast, public = _both(lambda: (plotly_private.frames_of(fig), [plotly_private.frame_props(f) for f in fig.frames]))
    assert fast[0] == public[0] == fig.frames
    for a, b in zip(fast[1], public[1], strict=True):
        _same_numbers(_read(json.loads(pio.to_json(a))), _read(json.loads(pio.to_json(b))))

    def moved():
        target = go.Figure()
        plotly_private.set_frames(target, fig.frames)
        return target

    fast, public = _both(moved)
    assert fast.frames == fig.frames and [f.name for f in public.frames] == [f.name for f in fig.frames]
    _same_numbers(_json(fast), _json(public))
