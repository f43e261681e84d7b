"""Figures of the ALiBi and KERPLE lesson: pure builders, arrays in, ``go.Figure`` out.

Heads are labelled 1..H, as in Press et al.'s formula ``m_h = 2^(-8h/H)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from .builders import line_chart
from .theme import PALETTE, SEQUENTIAL_SCALE, base_layout, subplots

#: colour of each slope's origin, and of a slope set by hand
ORIGIN_COLOURS = {"c": PALETTE[0], "2c": PALETTE[1], "custom": PALETTE[3]}
#: small multiples per row
FACETS_PER_ROW = 4


# helpers


def slope_label(slope: float) -> str:
    """1/8 for a power of two, 2^-2.5 = 0.177 for a half power, else the number."""
    if slope <= 0:
        return f"{slope:g}"
    exponent = math.log2(slope)
    if abs(exponent - round(exponent)) < 1e-9:
        k = round(exponent)
        return f"1/{2**-k}" if k < 0 else f"{2**k}"
    if abs(2 * exponent - round(2 * exponent)) < 1e-9:
        return f"2^{exponent:g} = {slope:.3g}"
    return f"{slope:.3g}"


def _power_of_two_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    ks = range(math.floor(math.log2(low)), math.ceil(math.log2(high)) + 1)
    return [2.0**k for k in ks], [slope_label(2.0**k) for k in ks]


def _origins(schedule, custom_head: int) -> np.ndarray:
    """'c', '2c' or 'custom' per head."""
    schedule = np.asarray(schedule)
    origin = np.where(schedule == schedule.min(), "c", "2c").astype(object)
    if custom_head:
        origin[custom_head - 1] = "custom"
    return origin


def _origin_names(schedule) -> dict[str, str]:
    c = int(np.min(schedule))
    if int(np.max(schedule)) == c:
        return {"c": f"2^(-8h/{c}): the {c}-head schedule", "custom": "set by hand"}
    return {
        "c": f"2^(-8h/{c}): the {c}-head schedule",
        "2c": f"every other slope of the {2 * c}-head schedule",
        "custom": "set by hand",
    }


# public API


def slope_colours(slopes) -> list[str]:
    """One colour per head, dark for the steepest slope to light for the gentlest (log scale).

    Viridis up to 0.85, so that no line is the pale yellow that vanishes on white.
    """
    logs = np.log2(np.asarray(slopes, dtype=np.float64))
    spread = logs.max() - logs.min()
    where = (logs.max() - logs) / spread if spread > 0 else np.zeros_like(logs)
    return sample_colorscale(SEQUENTIAL_SCALE, list(0.85 * where))


def slope_chart(slopes, schedule, index, *, custom_head: int = 0, height: int | None = None) -> go.Figure:
    """Each head's slope on a log axis, coloured by where Press et al.'s rule takes it from.

    Parameters
    ----------
    slopes : (H,) array_like, positive
    schedule, index : (H,) ints, the reference slope of head h is 2^(-8 index / schedule)
    custom_head : 1-based head whose slope was set by hand (0 for none)
    """
    slopes = np.asarray(slopes, dtype=np.float64)
    heads = np.arange(1, slopes.size + 1)
    origin = _origins(schedule, custom_head)
    fig = go.Figure()
    for key, name in _origin_names(schedule).items():
        pick = origin == key
        if not pick.any():
            continue
        rule = zip(np.asarray(index)[pick], np.asarray(schedule)[pick], strict=True)
        where = [f"2^(-8·{i}/{s})" if key != "custom" else "set by hand" for i, s in rule]
        fig.add_trace(
            go.Scatter(
                x=heads[pick],
                y=slopes[pick].astype(np.float32),
                customdata=np.array(
                    [[w, slope_label(v)] for w, v in zip(where, slopes[pick], strict=True)], dtype=object
                ),
                name=name,
                mode="markers",
                marker=dict(color=ORIGIN_COLOURS[key], size=11, symbol="diamond" if key == "custom" else "circle"),
                hovertemplate="head %{x}<br>slope m = %{customdata[0]} = %{customdata[1]}<extra></extra>",
            )
        )
    base_layout(fig, f"ALiBi slope of each of {slopes.size} heads (log scale)", height=height)
    fig.update_layout(showlegend=True)
    tickvals, ticktext = _power_of_two_ticks(slopes.min(), slopes.max())
    fig.update_yaxes(title_text="slope m (penalty per position of distance)", type="log")
    fig.update_yaxes(tickvals=tickvals, ticktext=ticktext)
    fig.update_xaxes(title_text="head h", dtick=1 if slopes.size <= 16 else None)
    return fig


def bias_facets(
    grids,
    positions,
    titles: Sequence[str],
    *,
    title: str,
    value_name: str = "bias",
    height_per_row: int = 300,
) -> go.Figure:
    """Small multiples of (query, key) grids on one shared sequential colour scale.

    Parameters
    ----------
    grids : (P, r, r) array_like, NaN where nothing is shown (masked future keys)
    positions : (r,) positions of the rows and columns
    titles : P subplot titles
    """
    grids = np.asarray(grids, dtype=np.float32)
    positions = np.asarray(positions)
    n = grids.shape[0]
    if n == 0 or len(titles) != n:
        raise ValueError("grids and titles must be non-empty and of equal length")
    cols = min(n, FACETS_PER_ROW)
    rows = -(-n // cols)
    height = 130 + height_per_row * rows
    # about 80 px between rows, for the tick labels above and the subplot title below
    fig = subplots(
        rows=rows,
        cols=cols,
        subplot_titles=list(titles),
        horizontal_spacing=0.05,
        vertical_spacing=min(0.3, 80 / (height - 150)),
    )
    low = float(np.nanmin(grids)) if np.isfinite(grids).any() else -1.0
    low = low if low < 0 else -1.0
    for p in range(n):
        r, c = divmod(p, cols)
        fig.add_trace(
            go.Heatmap(
                z=grids[p],
                x=positions,
                y=positions,
                coloraxis="coloraxis",
                hovertemplate=(
                    f"{titles[p]}<br>query i %{{y}}<br>key j %{{x}}<br>{value_name} %{{z:.3f}}<extra></extra>"
                ),
            ),
            row=r + 1,
            col=c + 1,
        )
        fig.update_yaxes(autorange="reversed", row=r + 1, col=c + 1)
        if r == rows - 1:
            fig.update_xaxes(title_text="key position j", row=r + 1, col=c + 1)
        if c == 0:
            fig.update_yaxes(title_text="query position i", row=r + 1, col=c + 1)
    fig.update_layout(
        coloraxis=dict(
            colorscale=SEQUENTIAL_SCALE, cmin=low, cmax=0.0, colorbar=dict(title=dict(text=value_name, side="right"))
        ),
        plot_bgcolor="#ffffff",
    )
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig.update_yaxes(showgrid=False, zeroline=False)
    base_layout(fig, title, height=height)
    # room between the figure title and the first row's subplot titles
    fig.update_layout(margin=dict(t=95))
    return fig


def weight_chart(
    x,
    series: Mapping[str, np.ndarray],
    *,
    title: str,
    x_title: str,
    x_name: str,
    log_y: bool = True,
    floor: float = 1e-12,
    vlines: Mapping[str, float] | None = None,
    colours: Sequence[str] | None = None,
    legend_right: bool = False,
    height: int | None = None,
) -> go.Figure:
    """Attention weights against position or distance, one line per head or method.

    On a log axis the view stops at ``floor``: weights far below it (e^-2000 and the like)
    would stretch the axis over hundreds of decades and flatten everything that matters.
    NaN entries (masked keys) leave a gap.
    """
    styles = {name: {"color": colours[i]} for i, name in enumerate(series)} if colours else None
    fig = line_chart(
        x,
        series,
        title=title,
        x_title=x_title,
        y_title="attention weight" + (" (log scale)" if log_y else ""),
        x_name=x_name,
        value_name="weight",
        value_format=".3g",
        log_y=log_y,
        styles=styles,
        vlines=vlines,
        height=height,
    )
    if log_y:
        values = np.concatenate([np.asarray(v, dtype=np.float64).ravel() for v in series.values()])
        positive = values[np.isfinite(values) & (values > 0)]
        low = max(float(positive.min()) if positive.size else floor, floor)
        bottom = math.log10(low) - 0.3
        # one tick per decade once the axis spans several (the 2 and 5 between them clutter it)
        fig.update_yaxes(range=[bottom, 0.1], exponentformat="power", dtick=1 if bottom < -2 else None)
    if legend_right:
        fig.update_layout(legend=dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.02))
    return fig


def span_bars(spans, slopes, schedule, *, context: int, mass_label: str, custom_head: int = 0, height=None):
    """Each head's reach as a bar, coloured by the origin of its slope.

    Parameters
    ----------
    spans : (H,) smallest distance holding ``mass_label`` of the attention
    slopes : (H,) the slopes, for the hover text
    schedule : (H,) schedule sizes (see ``slope_chart``)
    context : number of keys the query sees (a span is at most context - 1)
    """
    spans = np.asarray(spans, dtype=np.float64)
    slopes = np.asarray(slopes, dtype=np.float64)
    heads = np.arange(1, spans.size + 1)
    origin = _origins(schedule, custom_head)
    fig = go.Figure()
    for key, name in _origin_names(schedule).items():
        pick = origin == key
        if not pick.any():
            continue
        fig.add_trace(
            go.Bar(
                x=heads[pick],
                y=spans[pick],
                name=name,
                marker_color=ORIGIN_COLOURS[key],
                customdata=np.array([slope_label(s) for s in slopes[pick]], dtype=object),
                text=[f"{v:.0f}" for v in spans[pick]] if spans.size <= 16 else None,
                textposition="outside",
                hovertemplate=(
                    f"head %{{x}} (m = %{{customdata}})<br>{mass_label} of the attention within distance"
                    " d ≤ %{y}<extra></extra>"
                ),
            )
        )
    if context - 1 <= 3 * max(float(spans.max()), 1.0):
        fig.add_hline(
            y=context - 1,
            line=dict(color="#555", dash="dot"),
            annotation_text=f"whole sequence: d = {context - 1}",
            annotation_position="top left",
        )
    else:
        # a line far above every bar would squash them flat: name it instead
        fig.add_annotation(
            x=0,
            y=1,
            xref="paper",
            yref="paper",
            xanchor="left",
            yanchor="bottom",
            showarrow=False,
            text=f"whole sequence: d = {context - 1}, far above every bar",
        )
    base_layout(fig, f"Reach of each head: distance holding {mass_label} of the attention", height=height)
    fig.update_xaxes(title_text="head h", dtick=1 if spans.size <= 16 else None)
    fig.update_yaxes(title_text="distance d (positions)", rangemode="tozero")
    fig.update_layout(bargap=0.15)
    return fig
