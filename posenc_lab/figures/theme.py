"""Shared look and the display budget of every figure."""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from posenc_lab.figures import plotly_private

#: Diverging scale for signed values, centred at 0 (ColorBrewer RdBu, reversed so that
#: positive is red); ColorBrewer marks it safe for the common colour-vision deficiencies.
SIGNED_SCALE = "RdBu_r"
#: Sequential scale for non-negative values (perceptually uniform, CVD-safe).
SEQUENTIAL_SCALE = "Viridis"
#: Okabe-Ito qualitative palette (distinguishable with any common colour-vision deficiency).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")

#: A heatmap shows at most this many rows and columns: about what a projected screen
#: can resolve, and it keeps any one figure's JSON well under 1 MB.
MAX_ROWS = 400
MAX_COLS = 256
#: The most cells a heatmap draws across a phone's width: a chart there has 150 to 170 px of
#: plot (a square one as few rows), and more cells than pixels draw moiré stripes. Tables of
#: dimensions and square matrices of positions keep to it on every screen.
PHONE_CELLS = 128

FONT = dict(family="Inter, 'Source Sans Pro', Helvetica, Arial, sans-serif", size=14)


def _step(n: int, budget: int) -> int:
    # a power of two, so the kept positions are 0, 8, 16, ... rather than 0, 11, 22, ...
    need = max(1, math.ceil(n / budget))
    return 1 << (need - 1).bit_length()


def display_steps(n_rows: int, n_cols: int, max_rows: int = MAX_ROWS, max_cols: int = MAX_COLS) -> tuple[int, int]:
    """Stride along each axis (a power of two) so an (n_rows, n_cols) grid fits the budget."""
    return _step(n_rows, max_rows), _step(n_cols, max_cols)


def every_nth(step: int, noun: str) -> str:
    """ "every 4th position" style wording for captions ("" when nothing is dropped)."""
    if step <= 1:
        return ""
    suffix = "th" if 10 <= step % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(step % 10, "th")
    return f"every {step}{suffix} {noun}"


def mean_of(step: int, noun: str) -> str:
    """ "each row the mean of 16 positions" style wording ("" when rows are not merged)."""
    return f"each row the mean of {step} {noun}s" if step > 1 else ""


def block_means(z, step: int) -> np.ndarray:
    """The mean of each run of ``step`` rows of ``z`` (rows, ...): row i of the result is
    the mean of rows i * step to i * step + step - 1 (the last run may be shorter).

    Keeping every k-th row of a table whose values swing faster than k rows shows a false,
    slow pattern (aliasing: moiré stripes on a heatmap of 4096 sinusoid positions); the
    mean of each run is what a row of pixels can honestly show.
    """
    z = np.asarray(z, dtype=np.float64)
    if step <= 1:
        return z
    starts = np.arange(0, z.shape[0], step)
    counts = np.diff(np.append(starts, z.shape[0])).reshape(-1, *([1] * (z.ndim - 1)))
    return np.add.reduceat(z, starts, axis=0) / counts


#: px a heatmap's plot loses to its margins (builders._base: top 60, bottom 55): a heatmap
#: of height h has h - 115 rows of pixels, at most
HEATMAP_MARGIN_PX = 115


def pixel_rows(height: int | None) -> int:
    """The rows of pixels a heatmap of ``height`` px has for its cells (``MAX_ROWS`` when
    the height is Plotly's default)."""
    return MAX_ROWS if height is None else max(8, min(MAX_ROWS, int(height) - HEATMAP_MARGIN_PX))


def thin(z, x=None, y=None, *, max_rows: int = MAX_ROWS, max_cols: int = MAX_COLS, mean_rows: bool = False):
    """Keep every k-th row and column of ``z`` (rows, cols) so it fits the budget; with
    ``mean_rows``, each kept row is the mean of its k rows instead (``block_means``),
    labelled by the first of them.

    Returns
    -------
    z : (r, c) float32 ndarray, x : (c,) labels, y : (r,) labels, steps : (row_step, col_step)
    """
    z = np.asarray(z)
    if z.ndim != 2:
        raise ValueError(f"z must be 2-D, got shape {z.shape}")
    n_rows, n_cols = z.shape
    x = np.arange(n_cols) if x is None else np.asarray(x)
    y = np.arange(n_rows) if y is None else np.asarray(y)
    rs, cs = display_steps(n_rows, n_cols, max_rows, max_cols)
    rows = block_means(z[:, ::cs], rs) if mean_rows else z[::rs, ::cs]
    return np.ascontiguousarray(rows, dtype=np.float32), x[::cs], y[::rs], (rs, cs)


def base_layout(fig: go.Figure, title: str, *, height: int | None = None) -> go.Figure:
    # one update: each update_layout call walks Plotly's property tree (a few ms apiece)
    fig.update_layout(
        title=dict(text=title, x=0.0, xanchor="left", font=dict(size=17)),
        font=FONT,
        margin=dict(l=60, r=20, t=60, b=55),
        colorway=list(PALETTE),
        hoverlabel=dict(font=dict(size=13)),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
        **({} if height is None else {"height": height}),
    )
    return fig


#: make_subplots results by their arguments (a grid of a few shapes per builder)
_SUBPLOTS: dict[str, go.Figure] = {}
_MAX_SUBPLOTS = 256


def subplots(**kwargs) -> go.Figure:
    """``plotly.subplots.make_subplots(**kwargs)``, built once per distinct arguments.

    make_subplots costs 8-15 ms of CPU (it lays out the grid through Plotly's validated
    property tree); a figure for a new slider value reuses the grid of the last one. The
    copy is a new, independent figure with the same grid, so ``add_trace(row=, col=)`` and
    ``update_xaxes(row=, col=)`` work on it as on make_subplots's own.
    """
    key = repr(sorted(kwargs.items()))
    template = _SUBPLOTS.get(key)
    if template is None:
        template = make_subplots(**kwargs)
        if len(_SUBPLOTS) >= _MAX_SUBPLOTS:
            _SUBPLOTS.clear()
        _SUBPLOTS[key] = template
    # the template was validated when make_subplots built it: copied without re-validating
    return plotly_private.figure_copy(template)


#: subplot_layout's grids, keyed without their titles
_LAYOUTS: dict[str, dict] = {}
#: stands for title i in a cached grid (no title starts with a NUL)
_MARK = "\x00"


def subplot_layout(*, subplot_titles: Sequence[str | None] = (), **grid) -> dict:
    """The layout ``make_subplots(subplot_titles=..., **grid)`` makes, as a new plain dict,
    without its template (the figure made from it gets the default one).

    Titles often change with a slider (``clip(j - i, -K, K), K = 4``): caching
    ``subplots`` by its arguments would miss on every move, and make_subplots costs 8-15 ms.
    Here the grid is made once per ``grid`` and number of titles, with marks where the
    titles go, and each call fills them in. An empty title gets no annotation, as in
    make_subplots. (tests/test_figures.py compares with make_subplots.)
    """
    titles = list(subplot_titles)
    key = repr((sorted(grid.items()), len(titles)))
    cached = _LAYOUTS.get(key)
    if cached is None:
        marks = [f"{_MARK}{i}" for i in range(len(titles))]
        cached = make_subplots(subplot_titles=marks or None, **grid).to_dict()["layout"]
        # go.Figure adds the default template (a large dict, the same for every figure)
        cached.pop("template", None)
        if len(_LAYOUTS) >= _MAX_SUBPLOTS:
            _LAYOUTS.clear()
        _LAYOUTS[key] = cached
    layout = copy.deepcopy(cached)
    notes = []
    for note in layout.get("annotations", ()):
        text = note.get("text")
        if isinstance(text, str) and text.startswith(_MARK):
            title = titles[int(text[1:])]
            if not title:
                continue
            note["text"] = title
        notes.append(note)
    if "annotations" in layout:
        layout["annotations"] = notes
    return layout


def figure_bytes(fig: go.Figure) -> int:
    """Size of the JSON Streamlit sends for this figure (``plotly.io.to_json``)."""
    return len(pio.to_json(fig, validate=False).encode())
