"""Figure builders for the relative-positions lesson: arrays in, ``go.Figure`` out.

- ``offset_panels``: the key-minus-query matrix beside its clipped copy (Shaw et al.),
  one colour scale, the band of exact offsets outlined.
- ``bucket_chart``: bucket against relative position as a step plot, coloured by
  region (exact, logarithmic, ...), with labelled boundary lines (T5, DeBERTa).
- ``bucket_heatmap``: a (query, key) grid whose hover also names each cell's bucket.
- ``score_terms``: the terms of a relative score (Shaw, Transformer-XL, DeBERTa) side by
  side, queries down and keys across, on one colour scale.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from posenc_lab.figures.builders import _base, _figure, _scale, heatmap_panels
from posenc_lab.figures.theme import MAX_COLS, MAX_ROWS, PALETTE, SIGNED_SCALE, every_nth, subplot_layout, thin

#: a cell value is printed in the matrix up to this many rows (more would not be legible)
ANNOTATE_UP_TO = 16
#: markers on a step plot up to this many points
MARKERS_UP_TO = 160


# helpers


def _staircase(length: int, max_distance: int, *, above: bool) -> str:
    """SVG path along the cell borders that separate |j - i| <= K from the clipped cells.

    Cell (i, j) spans x in [j - 0.5, j + 0.5] and y in [i - 0.5, i + 0.5]. Above the
    diagonal the border in row i sits at x = i + K + 0.5, below it at x = i - K - 0.5;
    the path steps one row at a time. Empty when nothing is clipped (K >= T - 1).
    """
    edge = max_distance + 0.5
    if max_distance >= length - 1:
        return ""
    if above:
        rows = np.arange(0, length - max_distance - 1)  # rows with a cell at j - i > K
        points = [(i + edge, y) for i in rows for y in (i - 0.5, i + 0.5)]
        points.append((length - 0.5, rows[-1] + 0.5))
    else:
        rows = np.arange(max_distance + 1, length)  # rows with a cell at j - i < -K
        points = [(-0.5, max_distance + 0.5)] + [(i - edge, y) for i in rows for y in (i - 0.5, i + 0.5)]
    return "M " + " L ".join(f"{x:g},{y:g}" for x, y in points)


def _region_traces(x, y, region, names, colours, markers: bool):
    traces = []
    for code, name in enumerate(names):
        inside = region == code
        if not inside.any():
            continue
        traces.append(
            dict(
                type="scatter",
                x=x,
                y=np.where(inside, y, np.nan).astype(np.float32),
                name=name,
                mode="lines+markers" if markers else "lines",
                line=dict(color=colours[code % len(colours)], width=2.5, shape="hv"),
                marker=dict(color=colours[code % len(colours)], size=6),
                connectgaps=False,
                hovertemplate=f"{name}<br>relative position %{{x}}<br>bucket %{{y}}<extra></extra>",
            )
        )
    return traces


# public builders


def offset_panels(
    raw,
    clipped,
    *,
    max_distance: int,
    annotate: bool | None = None,
    title: str = "Relative positions, key minus query",
    height: int | None = None,
) -> go.Figure:
    """The relative-position matrix beside its clipped copy, on one diverging colour scale.

    Parameters
    ----------
    raw : (T, T) ints, ``j - i``
    clipped : (T, T) ints, ``clip(j - i, -K, K)``
    max_distance : int, K
    annotate : bool or None
        Print each cell's value; default: when ``T <= ANNOTATE_UP_TO``.

    The band of exact offsets ``|j - i| <= K`` is outlined on both panels (dashed);
    outside it every cell of the clipped panel holds +-K.
    """
    raw, clipped = np.asarray(raw), np.asarray(clipped)
    if raw.ndim != 2 or raw.shape != clipped.shape or raw.shape[0] != raw.shape[1]:
        raise ValueError(f"raw and clipped must be the same square (T, T) shape, got {raw.shape} and {clipped.shape}")
    length = raw.shape[0]
    annotate = length <= ANNOTATE_UP_TO if annotate is None else annotate
    bound = max(1.0, float(np.abs(raw).max()))
    # the grid's axes and titles as make_subplots lays them out, then plain dicts (builders._figure)
    layout = subplot_layout(
        rows=1,
        cols=2,
        subplot_titles=("j - i (every offset)", f"clip(j - i, -K, K), K = {max_distance}: the vector used"),
        horizontal_spacing=0.08,
    )
    traces, shapes = [], []
    for col, (z, what) in enumerate(((raw, "j - i"), (clipped, "clip(j - i, -K, K)")), start=1):
        suffix = str(col) if col > 1 else ""
        text = dict(texttemplate="%{z:.0f}", textfont=dict(size=13 if length <= 12 else 11)) if annotate else {}
        traces.append(
            dict(
                type="heatmap",
                z=z.astype(np.float32),
                x=np.arange(length),
                y=np.arange(length),
                coloraxis="coloraxis",
                hovertemplate=f"query i %{{y}}<br>key j %{{x}}<br>{what} = %{{z:.0f}}<extra></extra>",
                **text,
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
            )
        )
        for above in (True, False):
            path = _staircase(length, max_distance, above=above)
            if path:
                shapes.append(
                    dict(
                        type="path",
                        path=path,
                        line=dict(color="#000000", width=2.5, dash="dash"),
                        xref=f"x{suffix}",
                        yref=f"y{suffix}",
                    )
                )
        layout[f"xaxis{suffix}"].update(title=dict(text="key position j"), constrain="domain")
        layout[f"yaxis{suffix}"].update(autorange="reversed", scaleanchor=f"x{suffix}", constrain="domain")
    layout["yaxis"]["title"] = dict(text="query position i")
    if shapes:
        layout["shapes"] = shapes
    layout["coloraxis"] = dict(
        colorscale=_scale(SIGNED_SCALE),
        cmin=-bound,
        cmax=bound,
        cmid=0.0,
        colorbar=dict(title=dict(text="offset", side="right")),
    )
    layout.update(_base(title, height))
    return _figure(traces, layout)


def bucket_chart(
    rel,
    bucket,
    region,
    region_names: Sequence[str],
    *,
    title: str,
    x_title: str,
    y_title: str = "bucket",
    vlines: Sequence[Mapping] = (),
    extra: Mapping[str, np.ndarray] | None = None,
    height: int | None = None,
) -> go.Figure:
    """Bucket against relative position as a step plot, one colour per region.

    Parameters
    ----------
    rel : (N,) ints, the relative positions (x)
    bucket : (N,) ints
    region : (N,) ints, index into ``region_names`` of the region each offset is in
    vlines : dicts with ``x``, ``text`` and optionally ``level`` (0 or 1, staggers the
        labels); a label sits right of a line at x >= 0 and left of one at x < 0.
    extra : name -> (N,) ints, drawn as dashed black steps under the regions (so they
        show where they differ).
    """
    rel, bucket, region = np.asarray(rel), np.asarray(bucket), np.asarray(region)
    if not rel.shape == bucket.shape == region.shape or rel.ndim != 1:
        raise ValueError(f"rel, bucket and region must be 1-D of one length, got {rel.shape}, {bucket.shape}")
    markers = rel.size <= MARKERS_UP_TO
    # drawn first, so the regions cover it wherever the two agree
    traces = [
        dict(
            type="scatter",
            x=rel,
            y=np.asarray(values).astype(np.float32),
            name=name,
            mode="lines",
            line=dict(color="#000000", width=2, dash="dash", shape="hv"),
            hovertemplate=f"{name}<br>relative position %{{x}}<br>%{{y}}<extra></extra>",
        )
        for name, values in (extra or {}).items()
    ]
    traces += _region_traces(rel, bucket, region, list(region_names), PALETTE, markers)
    layout = _base(title, height)
    # boundary labels sit above the plot area, the legend below it
    layout["margin"] = dict(layout["margin"], t=100, b=120)
    layout["legend"] = dict(orientation="h", yanchor="top", y=-0.22, xanchor="center", x=0.5)
    layout["xaxis"] = dict(title=dict(text=x_title), zeroline=True)
    layout["yaxis"] = dict(title=dict(text=y_title))
    shapes, notes = [], []
    for line in vlines:
        at = line["x"]
        # what fig.add_vline draws: a line across the plot's height at x
        shapes.append(
            dict(
                type="line",
                x0=at,
                x1=at,
                xref="x",
                y0=0,
                y1=1,
                yref="y domain",
                line=dict(color="#555555", dash="dot", width=1.5),
            )
        )
        notes.append(
            dict(
                x=at,
                y=1.0 + 0.08 * line.get("level", 0),
                yref="paper",
                text=line["text"],
                showarrow=False,
                xanchor="left" if at >= 0 else "right",
                yanchor="bottom",
                font=dict(size=12),
            )
        )
    if shapes:
        layout.update(shapes=shapes, annotations=notes)
    return _figure(traces, layout)


def bucket_heatmap(
    z,
    buckets,
    *,
    title: str,
    x_title: str = "key position j",
    y_title: str = "query position i",
    value_name: str = "bias",
    height: int | None = None,
    max_rows: int = MAX_ROWS,
    max_cols: int = MAX_COLS,
) -> go.Figure:
    """A (query, key) grid of values on a diverging scale; the hover names each cell's bucket.

    Parameters
    ----------
    z : (Tq, Tk) floats, e.g. the bias each pair gets
    buckets : (Tq, Tk) ints, the bucket each pair falls in
    """
    z, buckets = np.asarray(z), np.asarray(buckets)
    if z.shape != buckets.shape or z.ndim != 2:
        raise ValueError(f"z and buckets must have the same 2-D shape, got {z.shape} and {buckets.shape}")
    shown, xs, ys, steps = thin(z, max_rows=max_rows, max_cols=max_cols)
    index = buckets[:: steps[0], :: steps[1]]
    index = index.astype(np.int8 if index.size and -128 <= index.min() and index.max() < 128 else np.int16)
    bound = float(np.nanmax(np.abs(shown))) if np.isfinite(shown).any() else 1.0
    bound = bound if bound > 0 else 1.0
    trace = dict(
        type="heatmap",
        z=shown,
        x=xs,
        y=ys,
        customdata=index,
        colorscale=_scale(SIGNED_SCALE),
        zmin=-bound,
        zmax=bound,
        zmid=0.0,
        colorbar=dict(title=dict(text=value_name, side="right")),
        hovertemplate=(
            f"query i %{{y}}<br>key j %{{x}}<br>bucket %{{customdata}}<br>{value_name} %{{z:.2f}}<extra></extra>"
        ),
    )
    parts = [p for p in (every_nth(steps[0], "query"), every_nth(steps[1], "key")) if p]
    layout = _base(title + (f" (showing {' and '.join(parts)})" if parts else ""), height)
    layout["xaxis"] = dict(title=dict(text=x_title), constrain="domain")
    layout["yaxis"] = dict(title=dict(text=y_title), autorange="reversed", scaleanchor="x", constrain="domain")
    return _figure([trace], layout)


def score_terms(terms: Sequence[np.ndarray], names: Sequence[str], *, title: str, height: int = 430) -> go.Figure:
    """The terms of an attention score, each a (T, T) grid of query i (rows) by key j."""
    return heatmap_panels(
        terms,
        names,
        title=title,
        x_title="key position j",
        y_title="query position i",
        x_name="key j",
        y_name="query i",
        value_name="score",
        value_format=".2f",
        height=height,
    )
