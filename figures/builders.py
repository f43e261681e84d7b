"""Figure builders: each takes arrays and labels, returns a ``go.Figure``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from .theme import MAX_COLS, MAX_ROWS, PALETTE, SEQUENTIAL_SCALE, SIGNED_SCALE, base_layout, every_nth, subplots, thin

#: Longest line a chart draws per series; longer ones keep every k-th point.
MAX_POINTS = 4096


def _hover(x_name: str, y_name: str, value_name: str, fmt: str) -> str:
    return f"{y_name} %{{y}}<br>{x_name} %{{x}}<br>{value_name} %{{z:{fmt}}}<extra></extra>"


def _colour(z, signed: bool, zmax: float | None):
    if signed:
        bound = float(np.nanmax(np.abs(z))) if zmax is None else float(zmax)
        bound = bound if bound > 0 else 1.0
        return dict(colorscale=SIGNED_SCALE, zmid=0.0, zmin=-bound, zmax=bound)
    return dict(colorscale=SEQUENTIAL_SCALE) if zmax is None else dict(colorscale=SEQUENTIAL_SCALE, zmax=zmax)


def _thinning_note(steps, row_noun: str, col_noun: str) -> str:
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
) -> go.Figure:
    """A heatmap of ``z`` (rows, cols), thinned to the display budget.

    Signed values use a diverging scale centred at 0; non-negative ones a
    sequential scale. When rows or columns are dropped the title says which
    ("showing every 4th position").
    """
    z, xs, ys, steps = thin(z, x, y, max_rows=max_rows, max_cols=max_cols)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=xs if xs.dtype.kind in "iuf" else list(xs),
            y=ys if ys.dtype.kind in "iuf" else list(ys),
            hovertemplate=_hover(x_name, y_name, value_name, value_format),
            colorbar=dict(title=dict(text=colorbar_title or value_name, side="right")),
            **_colour(z, signed, zmax),
        )
    )
    base_layout(fig, title + _thinning_note(steps, row_noun, col_noun), height=height)
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title, autorange="reversed" if y_down else True)
    return fig


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
    fig = subplots(rows=1, cols=n, subplot_titles=list(subtitles), horizontal_spacing=0.06)
    for i, (z, xs, ys, _) in enumerate(thinned):
        fig.add_trace(
            go.Heatmap(
                z=z,
                x=xs if xs.dtype.kind in "iuf" else list(xs),
                y=ys if ys.dtype.kind in "iuf" else list(ys),
                hovertemplate=_hover(x_name, y_name, value_name, value_format),
                coloraxis="coloraxis",
            ),
            row=1,
            col=i + 1,
        )
        fig.update_xaxes(title_text=x_title, row=1, col=i + 1)
        fig.update_yaxes(autorange="reversed", row=1, col=i + 1)
    fig.update_yaxes(title_text=y_title, row=1, col=1)
    colour = _colour(np.array([shared]), signed, shared)
    colour.pop("zmid", None)
    low = -shared if signed else colour.pop("zmin", 0.0)
    fig.update_layout(
        coloraxis=dict(
            colorscale=colour["colorscale"],
            cmin=low if signed else None,
            cmax=shared if (signed or zmax is not None) else None,
            cmid=0.0 if signed else None,
            colorbar=dict(title=dict(text=value_name, side="right")),
        )
    )
    note = _thinning_note(thinned[0][3], "row", "column")
    return base_layout(fig, title + note, height=height)


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
) -> go.Figure:
    """One line per series over a shared x, thinned to ``max_points`` per series.

    ``styles`` may give a series ``mode`` ("lines", "markers", "lines+markers") and
    ``dash``; ``vlines`` draws labelled vertical markers (e.g. the end of a table).
    """
    x = np.asarray(x)
    step = max(1, -(-x.size // max_points))
    styles = styles or {}
    fig = go.Figure()
    for i, (name, y) in enumerate(series.items()):
        y = np.asarray(y)
        style = dict(styles.get(name, {}))
        mode = style.pop("mode", "lines")
        colour = style.pop("color", PALETTE[i % len(PALETTE)])
        fig.add_trace(
            go.Scatter(
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
    base_layout(fig, title + (f" (showing {note})" if note else ""), height=height)
    fig.update_xaxes(title_text=x_title, type="log" if log_x else None)
    fig.update_yaxes(title_text=y_title, type="log" if log_y else None)
    finite = x[np.isfinite(x)] if x.dtype.kind == "f" else x
    middle = (float(np.min(finite)) + float(np.max(finite))) / 2 if finite.size else 0.0
    if log_x and finite.size:
        middle = float(np.sqrt(np.min(finite[finite > 0]) * np.max(finite)))
    for label, at in (vlines or {}).items():
        # the label reads away from the nearer edge: it never runs past the plot
        right = at > middle
        fig.add_vline(x=at, line=dict(color="#555", dash="dot"))
        # annotations on a log axis are placed in log10 units
        # inside the top of the plot: above it the legend sits, and a phone has no room
        fig.add_annotation(
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
    return fig


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
    fig = go.Figure()
    for i, (name, values) in enumerate(series.items()):
        values = np.asarray(values, dtype=np.float64)
        drawn = values
        if log_y and y_range is not None:
            drawn = np.where(values > y_range[0], values, y_range[0])
        fig.add_trace(
            go.Bar(
                x=list(categories),
                y=drawn,
                name=name,
                marker_color=PALETTE[i % len(PALETTE)],
                text=[f"{v:{value_format}}" if v != 0 else "0" for v in values] if show_values else None,
                textposition="outside" if show_values else None,
                cliponaxis=False,
                customdata=values,
                hovertemplate=f"{name}<br>%{{x}}<br>{y_title} %{{customdata:{value_format}}}<extra></extra>",
            )
        )
    base_layout(fig, title, height=height)
    fig.update_xaxes(title_text=x_title)
    axis_range = None
    if y_range is not None:
        axis_range = [np.log10(y_range[0]), np.log10(y_range[1])] if log_y else list(y_range)
    # 10^-16 rather than SI prefixes (100µ, 10n), which name no rounding level anyone knows
    fig.update_yaxes(
        title_text=y_title,
        type="log" if log_y else None,
        range=axis_range,
        exponentformat="power" if log_y else None,
    )
    return fig


def binary_clock(positions, bits, signs, *, bit_labels: Sequence[str], sign_labels: Sequence[str], height=None):
    """Binary digits of each position beside the signs of chosen sine dimensions.

    Parameters
    ----------
    positions : (T,) ints
    bits : (T, B) 0/1, column b is bit b (the ones place first)
    signs : (T, K) -1/+1, column k is the sign of a sine dimension (fastest first)
    """
    positions = np.asarray(positions)
    fig = subplots(
        rows=1,
        cols=2,
        subplot_titles=("Binary digits of the position", "Sign of sin(p * w_i)"),
        horizontal_spacing=0.1,
    )
    fig.add_trace(
        go.Heatmap(
            z=np.asarray(bits, dtype=np.float32),
            x=list(bit_labels),
            y=positions,
            colorscale=[[0, "#f7f7f7"], [1, "#0072B2"]],
            zmin=0,
            zmax=1,
            showscale=False,
            hovertemplate="position %{y}<br>%{x}: %{z}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Heatmap(
            z=np.asarray(signs, dtype=np.float32),
            x=list(sign_labels),
            y=positions,
            colorscale=[[0, "#D55E00"], [0.5, "#f7f7f7"], [1, "#0072B2"]],
            zmin=-1,
            zmax=1,
            showscale=False,
            hovertemplate="position %{y}<br>%{x}: sign %{z}<extra></extra>",
        ),
        row=1,
        col=2,
    )
    fig.update_yaxes(autorange="reversed", title_text="position p", row=1, col=1)
    fig.update_yaxes(autorange="reversed", row=1, col=2)
    fig.update_xaxes(title_text="bit (1s, 2s, 4s, ...)", row=1, col=1)
    fig.update_xaxes(title_text="sine dimension (fast to slow)", row=1, col=2)
    return base_layout(fig, "The binary clock: fast digits flip often, slow ones rarely", height=height)
