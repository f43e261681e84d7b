"""Figure builders: each takes arrays and labels, returns a ``go.Figure``."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from posenc_lab.figures import plotly_private
from posenc_lab.figures.theme import (
    FONT,
    MAX_COLS,
    MAX_ROWS,
    PALETTE,
    SEQUENTIAL_SCALE,
    SIGNED_SCALE,
    every_nth,
    mean_of,
    pixel_rows,
    subplot_layout,
    thin,
)

#: Longest line a chart draws per series; longer ones keep every k-th point.
MAX_POINTS = 4096


def _plain(d: dict) -> dict:
    """``d`` without its None values, nested dicts too (Plotly's API reads None as unset)."""
    return {k: _plain(v) if isinstance(v, dict) else v for k, v in d.items() if v is not None}


@functools.lru_cache(maxsize=16)
def _scale(name: str) -> tuple:
    """A named colour scale as Plotly's validator spells it out (``RdBu_r`` exists only
    in Python: plotly.js needs the colours)."""
    return go.layout.Coloraxis(colorscale=name).colorscale


def _figure(data: list[dict], layout: dict) -> go.Figure:
    """A figure from plain trace and layout dicts, without Plotly's per-property checks
    (``plotly_private.figure_unvalidated``).

    Building through ``add_trace`` / ``update_layout`` walks Plotly's validated property
    tree on every call: 10-40 ms a figure, most of a cache miss's CPU on a page. The dicts
    here are the ones the checked calls would make (``tests/test_figures.py`` rebuilds
    every builder's figure with validation and compares).
    """
    # what callers add afterwards (``after=`` markers, display's styling) is checked as usual
    spec = dict(data=[_plain(t) for t in data], layout=_plain(layout))
    return plotly_private.figure_unvalidated(spec, checked_after=True)


def _base(title: str, height: int | None) -> dict:
    """The layout ``theme.base_layout`` sets, as a dict."""
    return dict(
        title=dict(text=title, x=0.0, xanchor="left", font=dict(size=17)),
        font=dict(FONT),
        margin=dict(l=60, r=20, t=60, b=55),
        colorway=list(PALETTE),
        hoverlabel=dict(font=dict(size=13)),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
        height=height,
    )


def _hover(x_name: str, y_name: str, value_name: str, fmt: str) -> str:
    return f"{y_name} %{{y}}<br>{x_name} %{{x}}<br>{value_name} %{{z:{fmt}}}<extra></extra>"


def _colour(z, signed: bool, zmax: float | None):
    if signed:
        bound = float(np.nanmax(np.abs(z))) if zmax is None else float(zmax)
        bound = bound if bound > 0 else 1.0
        return dict(colorscale=SIGNED_SCALE, zmid=0.0, zmin=-bound, zmax=bound)
    return dict(colorscale=SEQUENTIAL_SCALE) if zmax is None else dict(colorscale=SEQUENTIAL_SCALE, zmax=zmax)


def _thinning_note(steps, row_noun: str, col_noun: str, mean_rows: bool = False) -> str:
    if mean_rows and steps[0] > 1:
        parts = [mean_of(steps[0], row_noun), every_nth(steps[1], col_noun)]
        return f" ({', '.join(p for p in parts if p)})"
    parts = [p for p in (every_nth(steps[0], row_noun), every_nth(steps[1], col_noun)) if p]
    return f" (showing {' and '.join(parts)})" if parts else ""


def heatmap(
    z,
    *,
    title: str,
    x_title: str,
    y_title: str,
    x=None,
    y=None,
    x_name: str = "x",
    y_name: str = "y",
    value_name: str = "value",
    signed: bool = True,
    zmax: float | None = None,
    value_format: str = ".4f",
    colorbar_title: str | None = None,
    y_down: bool = True,
    height: int | None = None,
    max_rows: int = MAX_ROWS,
    max_cols: int = MAX_COLS,
    row_noun: str = "row",
    col_noun: str = "column",
    mean_rows: bool = False,
) -> go.Figure:
    """A heatmap of ``z`` (rows, cols), thinned to the display budget.

    Signed values use a diverging scale centred at 0; non-negative ones a
    sequential scale. When rows or columns are dropped the title says which
    ("showing every 4th position"). Rows are never more than the chart's rows of
    pixels (``theme.pixel_rows`` of ``height``): more rows than pixels draw moiré
    stripes. With ``mean_rows`` each drawn row is the mean of the rows it stands for,
    labelled by the first, and the title says so ("each row the mean of 16 positions"):
    a table whose values swing faster than the step (a sinusoid's fast dimensions)
    would otherwise show a slow pattern that is not there.
    """
    max_rows = min(max_rows, pixel_rows(height))
    z, xs, ys, steps = thin(z, x, y, max_rows=max_rows, max_cols=max_cols, mean_rows=mean_rows)
    colour = _colour(z, signed, zmax)
    colour["colorscale"] = _scale(colour["colorscale"])
    trace = dict(
        type="heatmap",
        z=z,
        x=xs if xs.dtype.kind in "iuf" else xs.tolist(),
        y=ys if ys.dtype.kind in "iuf" else ys.tolist(),
        hovertemplate=_hover(x_name, y_name, value_name, value_format),
        colorbar=dict(title=dict(text=colorbar_title or value_name, side="right")),
        **colour,
    )
    layout = _base(title + _thinning_note(steps, row_noun, col_noun, mean_rows), height)
    layout["xaxis"] = dict(title=dict(text=x_title))
    layout["yaxis"] = dict(title=dict(text=y_title), autorange="reversed" if y_down else True)
    return _figure([trace], layout)


def heatmap_panels(
    panels: Sequence[np.ndarray],
    subtitles: Sequence[str],
    *,
    title: str,
    x_title: str,
    y_title: str,
    labels: Sequence[Sequence[str]] | None = None,
    x_name: str = "x",
    y_name: str = "y",
    value_name: str = "value",
    signed: bool = True,
    zmax: float | None = None,
    value_format: str = ".3f",
    height: int | None = None,
    max_rows: int = MAX_ROWS,
    max_cols: int = MAX_COLS,
) -> go.Figure:
    """Several heatmaps side by side on one shared colour scale.

    ``labels``, if given, names the rows and columns of each (square) panel, e.g. the
    words of a sentence in that panel's order; use distinct strings per panel.
    """
    n = len(panels)
    if n == 0 or n != len(subtitles) or (labels is not None and len(labels) != n):
        raise ValueError("panels, subtitles and labels must be non-empty and of equal length")
    budget_cols = max(8, max_cols // n)
    thinned = [
        thin(
            p,
            None if labels is None else labels[i],
            None if labels is None else labels[i],
            max_rows=max_rows,
            max_cols=budget_cols,
        )
        for i, p in enumerate(panels)
    ]
    shared = max(float(np.nanmax(np.abs(t[0]))) for t in thinned) if zmax is None else zmax
    # the grid's axes and subplot titles as make_subplots lays them out, then plain dicts
    layout = subplot_layout(rows=1, cols=n, subplot_titles=list(subtitles), horizontal_spacing=0.06)
    traces = []
    for i, (z, xs, ys, _) in enumerate(thinned):
        suffix = str(i + 1) if i else ""
        traces.append(
            dict(
                type="heatmap",
                z=z,
                x=xs if xs.dtype.kind in "iuf" else xs.tolist(),
                y=ys if ys.dtype.kind in "iuf" else ys.tolist(),
                hovertemplate=_hover(x_name, y_name, value_name, value_format),
                coloraxis="coloraxis",
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
            )
        )
        layout[f"xaxis{suffix}"]["title"] = dict(text=x_title)
        layout[f"yaxis{suffix}"]["autorange"] = "reversed"
    layout["yaxis"]["title"] = dict(text=y_title)
    colour = _colour(np.array([shared]), signed, shared)
    colour.pop("zmid", None)
    low = -shared if signed else colour.pop("zmin", 0.0)
    layout["coloraxis"] = dict(
        colorscale=_scale(colour["colorscale"]),
        cmin=low if signed else None,
        cmax=shared if (signed or zmax is not None) else None,
        cmid=0.0 if signed else None,
        colorbar=dict(title=dict(text=value_name, side="right")),
    )
    note = _thinning_note(thinned[0][3], "row", "column")
    layout.update(_base(title + note, height))
    return _figure(traces, layout)


def line_chart(
    x,
    series: Mapping[str, np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str,
    x_name: str = "x",
    value_name: str = "value",
    value_format: str = ".4f",
    log_x: bool = False,
    log_y: bool = False,
    styles: Mapping[str, Mapping] | None = None,
    height: int | None = None,
    vlines: Mapping[str, float] | None = None,
    max_points: int = MAX_POINTS,
    layout_update: Mapping[str, Mapping] | None = None,
) -> go.Figure:
    """One line per series over a shared x, thinned to ``max_points`` per series.

    ``styles`` may give a series ``mode`` ("lines", "markers", "lines+markers") and
    ``dash``; ``vlines`` draws labelled vertical markers (e.g. the end of a table).
    ``layout_update`` updates the layout's parts before the figure is made, one level deep
    (``{"yaxis": {"range": [0, 1]}}`` keeps the axis title): what ``update_layout``
    would do afterwards, without its checks' few ms.
    """
    x = np.asarray(x)
    step = max(1, -(-x.size // max_points))
    styles = styles or {}
    traces = []
    for i, (name, y) in enumerate(series.items()):
        y = np.asarray(y)
        style = dict(styles.get(name, {}))
        mode = style.pop("mode", "lines")
        colour = style.pop("color", PALETTE[i % len(PALETTE)])
        traces.append(
            dict(
                type="scatter",
                x=x[::step],
                y=y[::step].astype(np.float32) if y.dtype.kind == "f" else y[::step],
                name=name,
                mode=mode,
                line=dict(color=colour, dash=style.pop("dash", None), width=style.pop("width", 2)),
                marker=dict(color=colour, size=style.pop("size", 7), symbol=style.pop("symbol", "circle")),
                hovertemplate=f"{name}<br>{x_name} %{{x}}<br>{value_name} %{{y:{value_format}}}<extra></extra>",
            )
        )
    note = every_nth(step, "point")
    layout = _base(title + (f" (showing {note})" if note else ""), height)
    layout["xaxis"] = dict(title=dict(text=x_title), type="log" if log_x else None)
    layout["yaxis"] = dict(title=dict(text=y_title), type="log" if log_y else None)
    finite = x[np.isfinite(x)] if x.dtype.kind == "f" else x
    middle = (float(np.min(finite)) + float(np.max(finite))) / 2 if finite.size else 0.0
    if log_x and finite.size:
        middle = float(np.sqrt(np.min(finite[finite > 0]) * np.max(finite)))
    shapes, notes = [], []
    for label, at in (vlines or {}).items():
        # the label reads away from the nearer edge: it never runs past the plot
        right = at > middle
        shapes.append(
            dict(type="line", x0=at, x1=at, xref="x", y0=0, y1=1, yref="y domain", line=dict(color="#555", dash="dot"))
        )
        # annotations on a log axis are placed in log10 units
        # inside the top of the plot: above it the legend sits, and a phone has no room
        notes.append(
            dict(
                x=np.log10(at) if log_x else at,
                y=1,
                yref="paper",
                text=label,
                showarrow=False,
                yanchor="top",
                xanchor="right" if right else "left",
                xshift=-3 if right else 3,
                bgcolor="rgba(255, 255, 255, 0.8)",
            )
        )
    if shapes:
        layout.update(shapes=shapes, annotations=notes)
    for key, value in (layout_update or {}).items():
        layout[key] = dict(layout.get(key) or {}, **value)
    return _figure(traces, layout)


def grouped_bars(
    categories: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    value_format: str = ".3g",
    log_y: bool = False,
    y_range: tuple[float, float] | None = None,
    show_values: bool = False,
    height: int | None = None,
) -> go.Figure:
    """Bars per category, one colour per series.

    ``y_range`` fixes the value axis (in data units, also on a log axis), so that a
    figure does not rescale itself: 1e-16 then looks as small as it is next to 1.
    ``show_values`` writes each bar's value on it; on a log axis a bar of 0 is drawn at
    the bottom of the range and labelled 0.
    """
    traces = []
    for i, (name, values) in enumerate(series.items()):
        values = np.asarray(values, dtype=np.float64)
        drawn = values
        if log_y and y_range is not None:
            drawn = np.where(values > y_range[0], values, y_range[0])
        traces.append(
            dict(
                type="bar",
                x=list(categories),
                y=drawn,
                name=name,
                marker=dict(color=PALETTE[i % len(PALETTE)]),
                text=[f"{v:{value_format}}" if v != 0 else "0" for v in values] if show_values else None,
                textposition="outside" if show_values else None,
                cliponaxis=False,
                customdata=values,
                hovertemplate=f"{name}<br>%{{x}}<br>{y_title} %{{customdata:{value_format}}}<extra></extra>",
            )
        )
    layout = _base(title, height)
    layout["xaxis"] = dict(title=dict(text=x_title))
    axis_range = None
    if y_range is not None:
        axis_range = [np.log10(y_range[0]), np.log10(y_range[1])] if log_y else list(y_range)
    # 10^-16 rather than SI prefixes (100µ, 10n), which name no rounding level anyone knows
    layout["yaxis"] = dict(
        title=dict(text=y_title),
        type="log" if log_y else None,
        range=axis_range,
        exponentformat="power" if log_y else None,
    )
    return _figure(traces, layout)


def binary_clock(positions, bits, signs, *, bit_labels: Sequence[str], sign_labels: Sequence[str], height=None):
    """Binary digits of each position beside the signs of chosen sine dimensions.

    Parameters
    ----------
    positions : (T,) ints
    bits : (T, B) 0/1, column b is bit b (the ones place first)
    signs : (T, K) -1/+1, column k is the sign of a sine dimension (fastest first)
    """
    positions = np.asarray(positions)
    layout = subplot_layout(
        rows=1,
        cols=2,
        subplot_titles=("Binary digits of the position", "Sign of sin(p * w_i)"),
        horizontal_spacing=0.1,
    )
    traces = [
        dict(
            type="heatmap",
            z=np.asarray(bits, dtype=np.float32),
            x=list(bit_labels),
            y=positions,
            colorscale=[[0, "#f7f7f7"], [1, "#0072B2"]],
            zmin=0,
            zmax=1,
            showscale=False,
            hovertemplate="position %{y}<br>%{x}: %{z}<extra></extra>",
            xaxis="x",
            yaxis="y",
        ),
        dict(
            type="heatmap",
            z=np.asarray(signs, dtype=np.float32),
            x=list(sign_labels),
            y=positions,
            colorscale=[[0, "#D55E00"], [0.5, "#f7f7f7"], [1, "#0072B2"]],
            zmin=-1,
            zmax=1,
            showscale=False,
            hovertemplate="position %{y}<br>%{x}: sign %{z}<extra></extra>",
            xaxis="x2",
            yaxis="y2",
        ),
    ]
    layout["yaxis"].update(autorange="reversed", title=dict(text="position p"))
    layout["yaxis2"]["autorange"] = "reversed"
    layout["xaxis"]["title"] = dict(text="bit (1s, 2s, 4s, ...)")
    layout["xaxis2"]["title"] = dict(text="sine dimension (fast to slow)")
    layout.update(_base("The binary clock: fast digits flip often, slow ones rarely", height))
    return _figure(traces, layout)
