"""Figures of the ALiBi and KERPLE lesson: pure builders, arrays in, ``go.Figure`` out.

Heads are labelled 1..H, as in Press et al.'s formula ``m_h = 2^(-8h/H)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from posenc_lab.figures.builders import _base, _figure, _scale, line_chart
from posenc_lab.figures.theme import PALETTE, SEQUENTIAL_SCALE, subplot_layout

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
    traces = []
    for key, name in _origin_names(schedule).items():
        pick = origin == key
        if not pick.any():
            continue
        rule = zip(np.asarray(index)[pick], np.asarray(schedule)[pick], strict=True)
        where = [f"2^(-8·{i}/{s})" if key != "custom" else "set by hand" for i, s in rule]
        traces.append(
            dict(
                type="scatter",
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
    layout = _base(f"ALiBi slope of each of {slopes.size} heads (log scale)", height)
    tickvals, ticktext = _power_of_two_ticks(slopes.min(), slopes.max())
    layout.update(
        showlegend=True,
        yaxis=dict(
            title=dict(text="slope m (penalty per position of distance)"),
            type="log",
            tickvals=tickvals,
            ticktext=ticktext,
        ),
        xaxis=dict(title=dict(text="head h"), dtick=1 if slopes.size <= 16 else None),
    )
    return _figure(traces, layout)


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
    # about 80 px between rows, for the tick labels above and the subplot title below; the
    # grid's axes and titles as make_subplots lays them out, then plain dicts (builders._figure)
    layout = subplot_layout(
        rows=rows,
        cols=cols,
        subplot_titles=list(titles),
        horizontal_spacing=0.05,
        vertical_spacing=min(0.3, 80 / (height - 150)),
    )
    low = float(np.nanmin(grids)) if np.isfinite(grids).any() else -1.0
    low = low if low < 0 else -1.0
    traces = []
    for p in range(n):
        r, c = divmod(p, cols)
        suffix = str(p + 1) if p else ""  # make_subplots numbers the cells row by row
        traces.append(
            dict(
                type="heatmap",
                z=grids[p],
                x=positions,
                y=positions,
                coloraxis="coloraxis",
                hovertemplate=(
                    f"{titles[p]}<br>query i %{{y}}<br>key j %{{x}}<br>{value_name} %{{z:.3f}}<extra></extra>"
                ),
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
            )
        )
        layout[f"yaxis{suffix}"]["autorange"] = "reversed"
        if r == rows - 1:
            layout[f"xaxis{suffix}"]["title"] = dict(text="key position j")
        if c == 0:
            layout[f"yaxis{suffix}"]["title"] = dict(text="query position i")
    for name in [k for k in layout if k.startswith(("xaxis", "yaxis"))]:
        layout[name].update(showgrid=False, zeroline=False)
    layout["coloraxis"] = dict(
        colorscale=_scale(SEQUENTIAL_SCALE),
        cmin=low,
        cmax=0.0,
        colorbar=dict(title=dict(text=value_name, side="right")),
    )
    layout["plot_bgcolor"] = "#ffffff"
    layout.update(_base(title, height))
    # room between the figure title and the first row's subplot titles
    layout["margin"] = dict(layout["margin"], t=95)
    return _figure(traces, layout)


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
    height: int | None = None,
) -> go.Figure:
    """Attention weights against position or distance, one line per head or method.

    On a log axis the view stops at ``floor``: weights far below it (e^-2000 and the like)
    would stretch the axis over hundreds of decades and flatten everything that matters.
    NaN entries (masked keys) leave a gap.
    """
    styles = {name: {"color": colours[i]} for i, name in enumerate(series)} if colours else None
    update = {}
    if log_y:
        values = np.concatenate([np.asarray(v, dtype=np.float64).ravel() for v in series.values()])
        positive = values[np.isfinite(values) & (values > 0)]
        low = max(float(positive.min()) if positive.size else floor, floor)
        bottom = math.log10(low) - 0.3
        # one tick per decade once the axis spans several (the 2 and 5 between them clutter it)
        update["yaxis"] = dict(range=[bottom, 0.1], exponentformat="power", dtick=1 if bottom < -2 else None)
    return line_chart(
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
        layout_update=update,
    )


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
    traces = []
    for key, name in _origin_names(schedule).items():
        pick = origin == key
        if not pick.any():
            continue
        traces.append(
            dict(
                type="bar",
                x=heads[pick],
                y=spans[pick],
                name=name,
                marker=dict(color=ORIGIN_COLOURS[key]),
                customdata=np.array([slope_label(s) for s in slopes[pick]], dtype=object),
                text=[f"{v:.0f}" for v in spans[pick]] if spans.size <= 16 else None,
                textposition="outside",
                hovertemplate=(
                    f"head %{{x}} (m = %{{customdata}})<br>{mass_label} of the attention within distance"
                    " d ≤ %{y}<extra></extra>"
                ),
            )
        )
    layout = _base(f"Reach of each head: distance holding {mass_label} of the attention", height)
    whole = f"whole sequence: d = {context - 1}"
    if context - 1 <= 3 * max(float(spans.max()), 1.0):
        # what fig.add_hline(annotation_position="top left") draws
        layout["shapes"] = [
            dict(
                type="line",
                x0=0,
                x1=1,
                xref="x domain",
                y0=context - 1,
                y1=context - 1,
                yref="y",
                line=dict(color="#555", dash="dot"),
            )
        ]
        note = dict(x=0, xref="x domain", xanchor="left", y=context - 1, yref="y", yanchor="bottom", text=whole)
    else:
        # a line far above every bar would squash them flat: name it instead
        note = dict(x=0, y=1, xref="paper", yref="paper", xanchor="left", yanchor="bottom", text=whole)
        note["text"] += ", far above every bar"
    layout.update(
        annotations=[dict(note, showarrow=False)],
        xaxis=dict(title=dict(text="head h"), dtick=1 if spans.size <= 16 else None),
        yaxis=dict(title=dict(text="distance d (positions)"), rangemode="tozero"),
        bargap=0.15,
    )
    return _figure(traces, layout)
