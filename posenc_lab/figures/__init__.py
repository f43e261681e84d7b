"""Plotly figure builders for posenc-lab: pure functions, arrays in, ``go.Figure`` out.

Kept apart from the math (``posenc`` never imports Plotly) and from the pages (no
Streamlit here), so each builder is testable on its own. Every figure has a title and
axis labels with units, hover text that names what a point is, a colour-blind-safe
palette, and a payload kept small: heatmaps are thinned to a cell budget and sent as
float32.
"""

from posenc_lab.figures.builders import binary_clock, grouped_bars, heatmap, heatmap_panels, line_chart
from posenc_lab.figures.theme import (
    MAX_COLS,
    MAX_ROWS,
    PALETTE,
    PHONE_CELLS,
    SEQUENTIAL_SCALE,
    SIGNED_SCALE,
    block_means,
    display_steps,
    every_nth,
    figure_bytes,
    mean_of,
    pixel_rows,
    thin,
)

__all__ = [
    "MAX_COLS",
    "MAX_ROWS",
    "PALETTE",
    "PHONE_CELLS",
    "SEQUENTIAL_SCALE",
    "SIGNED_SCALE",
    "binary_clock",
    "block_means",
    "display_steps",
    "every_nth",
    "figure_bytes",
    "grouped_bars",
    "heatmap",
    "line_chart",
    "heatmap_panels",
    "mean_of",
    "pixel_rows",
    "thin",
]
