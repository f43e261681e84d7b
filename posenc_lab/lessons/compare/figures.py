"""Figures of the "Compare them all" lesson: small multiples of score patterns, and the
translation-invariance bars on a log axis that can show a zero."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from posenc_lab.figures.builders import _base, _figure, _scale
from posenc_lab.figures.theme import PALETTE, SIGNED_SCALE, every_nth, thin

#: A panel of the small multiples shows at most this many rows and columns: nine panels
#: of 96 x 96 float32 cells stay near 450 kB of JSON.
PANEL_CELLS = 96
#: Values below this count as zero on the log axis of the bars...
ZERO_BELOW = 1e-15
#: ...and are drawn at this height, so a zero is a visible stub, not a missing bar.
FLOOR = 1e-16
#: Changes below this are rounding (float64 sines and cosines of angles up to ~1e3).
ROUNDING_BELOW = 1e-9


def _bound(z: np.ndarray) -> float:
    finite = z[np.isfinite(z)]
    return float(np.abs(finite).max()) if finite.size else 0.0


#: colour stops of a compressed scale: enough that its curve looks smooth on a colour bar
COMPRESSED_STOPS = 33


def _bar(title: str, bound: float | None) -> dict:
    """The colour bar: with a shared ``bound``, labelled at its ends and at 0 (the stretched
    scale's in-between values are uneven), so its labels never crowd a narrow panel's bar
    (five panels a row on a projector) into turning."""
    bar = dict(title=dict(text=title, side="right"))
    if bound is not None:
        bar.update(tickvals=[-bound, 0.0, bound], ticktext=[f"−{bound:.3g}", "0", f"{bound:.3g}"])
    return bar


def compressed_scale(bound: float, knee: float) -> tuple[list, float]:
    """The signed colour scale for values in [-bound, bound], stretched near 0: a value v
    takes the colour the linear scale gives asinh(v / knee) / asinh(bound / knee) (linear
    up to about ``knee``, logarithmic beyond), so a panel whose changes are a tenth of
    another's still shows its pattern. Returns the Plotly colour scale (stops on the value
    axis, as the colour bar reads them) and the stretch, asinh(bound / knee) / (bound /
    knee): 1 is the linear scale, smaller is more stretched."""
    from plotly.colors import sample_colorscale

    ratio = bound / knee
    values = np.linspace(-1.0, 1.0, COMPRESSED_STOPS)  # v / bound, at even steps of the bar
    shade = 0.5 + 0.5 * np.arcsinh(values * ratio) / np.arcsinh(ratio)
    colours = sample_colorscale([list(stop) for stop in _scale(SIGNED_SCALE)], [float(f) for f in shade])
    stops = [[float((v + 1) / 2), c] for v, c in zip(values, colours, strict=True)]
    return stops, float(np.arcsinh(ratio) / ratio)


def _grid_domains(n_rows: int, n_cols: int, h_gap: float, v_gap: float):
    """Paper-coordinate domains of each cell, row by row from the top."""
    width, height = (1 - h_gap * (n_cols - 1)) / n_cols, (1 - v_gap * (n_rows - 1)) / n_rows
    for k in range(n_rows * n_cols):
        row, col = divmod(k, n_cols)
        x0, y1 = col * (width + h_gap), 1 - row * (height + v_gap)
        # rounding may put the last edge a hair outside [0, 1], which Plotly refuses
        yield [max(0.0, x0), min(1.0, x0 + width)], [max(0.0, y1 - height), min(1.0, y1)]


def score_grid(
    panels: Sequence[np.ndarray | None],
    names: Sequence[str],
    *,
    positions,
    title: str,
    missing: Sequence[str] | None = None,
    n_cols: int = 3,
    value_name: str = "score change",
    position_step: int = 1,
    height: int | None = None,
    max_cells: int = PANEL_CELLS,
    shared_scale: bool = False,
) -> go.Figure:
    """One small (T, T) heatmap per method, centred at 0: on one shared colour scale
    with a colour bar (``shared_scale``), or each on its own scale.

    Parameters
    ----------
    panels : sequence of (T, T) arrays, or None for a method that produced no scores
    names : one title per panel; on separate scales the builder appends the panel's
        colour range (+-max), on a shared scale its largest value
    positions : (T,) the positions of the rows and columns (shared by all panels)
    missing : for each None panel, the text written in its place
    position_step : stride of ``positions`` if they were already thinned upstream (the
        title then says "showing every 8th position")

    Notes
    -----
    The axes are laid out by hand rather than with ``make_subplots``, and the figure is
    built from plain dicts (``builders._figure``): a new setting costs a few ms, not 60.
    """
    n = len(panels)
    if n == 0 or len(names) != n or (missing is not None and len(missing) != n):
        raise ValueError("panels, names and missing must be non-empty and of equal length")
    positions = np.asarray(positions)
    n_rows = math.ceil(n / n_cols)
    lo, hi = (float(positions.min()) - 0.5, float(positions.max()) + 0.5) if positions.size else (0.0, 1.0)
    data, layout, notes, steps = [], {}, [], (1, 1)
    domains = list(_grid_domains(n_rows, n_cols, 0.06, 0.08))[:n]
    thinned = [
        None if p is None else thin(p, positions, positions, max_rows=max_cells, max_cols=max_cells) for p in panels
    ]
    bounds = [_bound(t[0]) for t in thinned if t is not None]
    common = max(bounds, default=0.0) or 1.0
    # one scale for every panel: stretched near 0 so that the panel of the smallest changes
    # still spans a quarter of it or more, up to 30 times smaller (linear: a thirtieth, near white)
    smallest = min((b for b in bounds if b > 0), default=common)
    knee = min(common, smallest / 2)
    colours = compressed_scale(common, knee)[0] if shared_scale else _scale(SIGNED_SCALE)
    # the colour bar goes with the last panel drawn (beside or, on a phone, under it)
    last_drawn = max((k for k, t in enumerate(thinned) if t is not None), default=-1)
    for k, ((x_dom, y_dom), panel, name) in enumerate(zip(domains, panels, names, strict=True)):
        row, col = divmod(k, n_cols)
        suffix = "" if k == 0 else str(k + 1)
        layout[f"xaxis{suffix}"] = dict(domain=x_dom, anchor=f"y{suffix}", range=[lo, hi])
        layout[f"yaxis{suffix}"] = dict(domain=y_dom, anchor=f"x{suffix}", range=[hi, lo])
        if row == n_rows - 1:
            layout[f"xaxis{suffix}"]["title"] = dict(text="key j")
        if col == 0:
            layout[f"yaxis{suffix}"]["title"] = dict(text="query i")
        centre = dict(x=(x_dom[0] + x_dom[1]) / 2, xref="paper", xanchor="center", showarrow=False)
        if panel is None:
            notes.append(dict(centre, y=y_dom[1], yref="paper", yanchor="bottom", text=f"{name}: no scores"))
            text = missing[k] if missing is not None else "no scores"
            # paper coordinates: plotly.js draws no axes for a cell without a trace
            notes.append(
                dict(
                    centre,
                    y=(y_dom[0] + y_dom[1]) / 2,
                    yref="paper",
                    text=text.replace("; ", "<br>"),
                    font=dict(size=15, color=PALETTE[3]),
                )
            )
            continue
        z, xs, ys, steps = thinned[k]
        bound = _bound(z)
        if bound == 0:
            label = f"{name}: 0 everywhere"
        else:
            label = f"{name} (largest |value| {bound:.3g})" if shared_scale else f"{name} (colour range ±{bound:.3g})"
        notes.append(dict(centre, y=y_dom[1], yref="paper", yanchor="bottom", text=label))
        bound = common if shared_scale else (bound if bound > 0 else 1.0)
        data.append(
            dict(
                type="heatmap",
                z=z,
                x=xs,
                y=ys,
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                colorscale=colours,
                zmin=-bound,
                zmax=bound,
                zmid=0.0,
                # one colour bar where the scale is shared; separate scales have none
                showscale=shared_scale and k == last_drawn,
                colorbar=_bar(value_name, bound if shared_scale else None),
                name=name,
                hovertemplate=(
                    f"{name}<br>query position i %{{y}}<br>key position j %{{x}}"
                    f"<br>{value_name} %{{z:.4g}}<extra></extra>"
                ),
            )
        )
    shown = every_nth(position_step * steps[0], "position")
    scale = (
        f"one colour scale for every panel, stretched near 0 (asinh, knee {knee:.3g})"
        if shared_scale
        else "each panel on its own colour scale"
    )
    notes_text = "; ".join(t for t in (f"showing {shown}" if shown else "", scale) if t)
    layout.update(_base(f"{title} ({notes_text})", height), annotations=notes)
    layout["margin"] = dict(l=60, r=20, t=90, b=55)
    return _figure(data, layout)


def translation_bars(
    names: Sequence[str],
    errors,
    *,
    title: str,
    missing_text: str = "no row",
    floor: float = FLOOR,
    zero_below: float = ZERO_BELOW,
    rounding_below: float = ROUNDING_BELOW,
    height: int | None = None,
) -> go.Figure:
    """One bar per method: the largest score change under a shift, on a log axis.

    Parameters
    ----------
    names : (M,) method names
    errors : (M,) measured errors; NaN where the method produced no scores (drawn as
        ``missing_text``, no bar)
    floor, zero_below : errors below ``zero_below`` (exact zeros included) are drawn at
        ``floor``, so they stay visible on the log axis
    rounding_below : errors from ``zero_below`` up to this are coloured as rounding,
        larger ones as a real change
    """
    errors = np.asarray(errors, dtype=np.float64)
    if errors.shape != (len(names),):
        raise ValueError(f"errors must have one entry per name ({len(names)}), got shape {errors.shape}")
    if not 0 < floor < zero_below < rounding_below:
        raise ValueError(
            f"need 0 < floor < zero_below < rounding_below, got {floor}, {zero_below} and {rounding_below}"
        )
    names = list(names)
    present = np.isfinite(errors)
    classes = (
        (present & (errors < zero_below), f"below {zero_below:.0e}, drawn at {floor:.0e}", PALETTE[0]),
        (present & (errors >= zero_below) & (errors < rounding_below), "rounding error", PALETTE[2]),
        (present & (errors >= rounding_below), "real change", PALETTE[3]),
    )
    traces = []
    for mask, label, colour in classes:
        idx = np.flatnonzero(mask)
        traces.append(
            dict(
                type="bar",
                x=[names[i] for i in idx],
                y=np.maximum(errors[idx], floor).astype(np.float32),
                name=label,
                marker=dict(color=colour),
                customdata=errors[idx],
                text=["0" if errors[i] == 0 else f"{errors[i]:.1e}" for i in idx],
                textposition="outside",
                cliponaxis=False,
                hovertemplate="%{x}<br>largest score change %{customdata:.3e}<extra></extra>",
            )
        )
    top = float(errors[present].max()) if present.any() else zero_below
    low, high = math.log10(floor) - 1, math.log10(max(top, 1.0)) + 1.5
    layout = _base(title, height)
    layout.update(
        xaxis=dict(title=dict(text="method"), categoryorder="array", categoryarray=names),
        yaxis=dict(title=dict(text="largest |score change|"), type="log", range=[low, high], exponentformat="power"),
        barmode="overlay",
        bargap=0.35,
    )
    notes = [
        dict(x=names[i], y=math.log10(floor), text=missing_text, showarrow=False, yanchor="bottom", font=dict(size=14))
        for i in np.flatnonzero(~present)
    ]
    if notes:
        layout["annotations"] = notes
    return _figure(traces, layout)
