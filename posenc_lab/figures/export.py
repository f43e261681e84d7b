"""The data behind a figure, as CSV text or a NumPy .npy file, for the download buttons.

Exports hold exactly what the figure draws (after any thinning), with the axis values
alongside, so a slide or a notebook can redraw it.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import plotly.graph_objects as go

from posenc_lab.figures import display
from posenc_lab.figures.arrays import as_array


def figure_table(fig: go.Figure) -> tuple[list[str], np.ndarray, list]:
    """A 2-D table of a figure's data.

    Heatmap (first heatmap trace): rows are its y values, columns its x values.
    Lines, markers and bars: one column per trace over the first trace's x.

    Returns
    -------
    header : column names, values : (rows, cols) float ndarray, row_labels : one per row
    """
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    if heatmaps:
        t = heatmaps[0]
        z = np.asarray(as_array(t.z), dtype=np.float64)
        x = list(as_array(t.x)) if t.x is not None else list(range(z.shape[1]))
        y = list(as_array(t.y)) if t.y is not None else list(range(z.shape[0]))
        return [str(v) for v in x], z, y
    series = [t for t in fig.data if t.type in ("scatter", "bar") and t.y is not None]
    if not series:
        return [], np.zeros((0, 0)), []
    x = list(as_array(series[0].x)) if series[0].x is not None else list(range(len(as_array(series[0].y))))
    columns = []
    for t in series:
        y = np.asarray(as_array(t.y), dtype=np.float64)
        if t.type == "bar" and t.customdata is not None:
            # bars on a log axis are drawn from the axis floor; customdata holds the values
            y = np.asarray(as_array(t.customdata), dtype=np.float64).reshape(-1)
        column = np.full(len(x), np.nan)
        column[: min(len(x), y.size)] = y[: len(x)]
        columns.append(column)
    return [t.name or f"trace {i}" for i, t in enumerate(series)], np.stack(columns, axis=1), x


def to_csv(fig: go.Figure) -> bytes:
    """CSV: the first column names the row (y value or x value), the header the columns."""
    header, values, rows = figure_table(fig)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["", *header])
    for label, row in zip(rows, values, strict=True):
        # 9 significant digits hold a float32 exactly (figures send float32)
        writer.writerow([label, *(f"{v:.9g}" if np.isfinite(v) else "" for v in row)])
    return out.getvalue().encode()


def to_npy(fig: go.Figure) -> bytes:
    """The table's values as a float64 .npy file (NaN where nothing is drawn)."""
    _, values, _ = figure_table(fig)
    out = io.BytesIO()
    np.save(out, values.astype(np.float64), allow_pickle=False)
    return out.getvalue()


def array_to_csv(values) -> bytes:
    """CSV of a 1-D or 2-D array (rows numbered from 0)."""
    values = np.atleast_2d(np.asarray(values, dtype=np.float64).T).T if np.ndim(values) == 1 else np.asarray(values)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["", *range(values.shape[1])])
    for i, row in enumerate(values):
        writer.writerow([i, *(f"{v:.9g}" if np.isfinite(v) else "" for v in np.asarray(row, dtype=np.float64))])
    return out.getvalue().encode()


def array_to_npy(values) -> bytes:
    out = io.BytesIO()
    np.save(out, np.asarray(values, dtype=np.float64), allow_pickle=False)
    return out.getvalue()


def to_html(fig: go.Figure) -> bytes:
    """A standalone HTML page of the figure that works offline (plotly.js inlined, about
    4.7 MB), styled as on a desktop, on white, with its title; its camera button saves SVG."""
    page = display.finish(go.Figure(fig), present=False)
    page.update_layout(
        template="plotly_white",
        title=dict(text=display.title_of(page), x=0.0, xanchor="left", font=dict(size=17, color=display.INK)),
        margin=dict(t=90),
    )
    return page.to_html(
        include_plotlyjs=True,
        full_html=True,
        config={"displaylogo": False, "toImageButtonOptions": {"format": "svg"}},
    ).encode()
