"""Figure builders of the RoPE lesson: the rotation animation, the score spread by
distance, the pairing of each layout, and the context-extension chart.

Pure functions, arrays in, ``go.Figure`` out; no Streamlit, no posenc.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from posenc_lab.figures import plotly_private
from posenc_lab.figures.builders import _base, _figure, _scale, line_chart
from posenc_lab.figures.theme import PALETTE, SEQUENTIAL_SCALE, subplot_layout

#: An animation holds at most this many frames (its JSON grows with each).
MAX_FRAMES = 64
#: Colours of the query and the key in the rotation planes.
Q_COLOUR, K_COLOUR = PALETTE[0], PALETTE[3]
#: Colour of each scaling region: kept, blended, interpolated.
REGION_COLOURS = (PALETTE[2], PALETTE[1], PALETTE[4])


def _f32(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)


#: Centre-to-centre distance of the planes, in units of a plane's radius: across, and
#: down (room for a plane's title above it and its numbers under it).
SPACING = 3.0
ROW_SPACING = 4.6
#: planes side by side before a new row starts (two: four planes still fit a phone;
#: a projector, which is wide, takes four in a row)
PLANES_PER_ROW = 2
#: px: the height of two rows of planes. With its title and the Play buttons above it, the
#: chart fits a laptop's 800 px screen whole; a phone's planes keep their size (its width,
#: not this height, limits them)
TWO_ROWS_HEIGHT = 640


def plane_centres(n_pairs: int, per_row: int = PLANES_PER_ROW) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) centres of the planes, row by row from the top: (P,), (P,)."""
    index = np.arange(n_pairs)
    return SPACING * (index % per_row), -ROW_SPACING * (index // per_row)


def _short(v) -> float:
    # 6 significant digits: what float32 keeps, and a short JSON number
    return float(f"{float(v):.6g}")


def _arrows(tips, centres) -> tuple[list, list]:
    """x and y of one arrow per plane, from each centre to centre + tip, split by None."""
    xs, ys = [], []
    for (dx, dy), cx, cy in zip(tips, *centres, strict=True):
        xs += [_short(cx), _short(cx + dx), None]
        ys += [_short(cy), _short(cy + dy), None]
    return xs, ys


def _arrow_trace(tips, centres, colour: str, name: str, dash: str | None = None) -> dict:
    xs, ys = _arrows(tips, centres)
    n = len(centres[0])
    return dict(
        type="scatter",
        x=xs,
        y=ys,
        mode="lines+markers",
        name=name,
        line=dict(color=colour, width=3, dash=dash),
        # an arrowhead at each tip, turned along the segment that leads to it
        marker=dict(symbol=["circle", "arrow", "circle"] * n, size=[4, 15, 0] * n, angleref="previous", color=colour),
        hoverinfo="skip",
    )


def _angle_text(angle: float, share: float) -> str:
    """The query's angle in radians and in degrees modulo 360, and the pair's share of q·k."""
    degrees = float(np.degrees(angle)) % 360.0
    rad = f"{angle:,.3f}" if angle >= 1 or angle == 0 else f"{angle:.3g}"
    deg = f"{degrees:.1f}" if degrees >= 1 or degrees == 0 else f"{degrees:.3g}"
    return f"mθ = {rad} rad<br>≡ {deg}°<br>q·k = {share:+.3f}"


def rotation_animation(
    q_xy,
    k_xy,
    angles,
    shares,
    positions_q,
    positions_k,
    pairs: Sequence[int],
    theta,
    *,
    title: str,
    frame_ms: int = 120,
    height: int | None = None,
    per_row: int = PLANES_PER_ROW,
) -> go.Figure:
    """Chosen pairs of a query and a key turning as the position advances, one plane per pair.

    Parameters
    ----------
    q_xy, k_xy : (F, P, 2) arrays
        The rotated pair (x_{2i}, x_{2i+1}) of the query and of the key in each frame.
    angles : (F, P) array
        The query's angle m theta_i in radians.
    shares : (F, P) array
        Each pair's share of the score q_m . k_n.
    positions_q, positions_k : (F,) arrays
        The query position m and the key position n of each frame.
    pairs : the P pair indices
    theta : (P,) array, radians per position of each pair
    frame_ms : duration of a frame when playing
    height : px; by default 560 for one row of planes, ``TWO_ROWS_HEIGHT`` for two
    per_row : planes side by side

    The planes sit two to a row (``plane_centres``) on one pair of square axes, each drawn
    at its own scale (radius 1 = the longer of the pair's q and k). Frames replace only
    three traces (q's arrows, k's arrows, the angle texts); the page plays them with
    ``redraw`` off and no transition (``layout.meta.frame_ms`` per frame), so playback
    stays smooth and the JSON small.
    """
    q_xy, k_xy = np.asarray(q_xy, dtype=float), np.asarray(k_xy, dtype=float)
    angles, shares = np.asarray(angles, dtype=float), np.asarray(shares, dtype=float)
    n_frames, n_pairs = angles.shape
    if not 1 <= n_frames <= MAX_FRAMES:
        raise ValueError(f"an animation holds 1 to {MAX_FRAMES} frames, got {n_frames}")
    if q_xy.shape != (n_frames, n_pairs, 2) or k_xy.shape != q_xy.shape or shares.shape != angles.shape:
        raise ValueError("q_xy, k_xy must be (F, P, 2) and angles, shares (F, P)")
    if len(pairs) != n_pairs or np.size(theta) != n_pairs:
        raise ValueError("pairs and theta need one entry per plane")
    theta = np.asarray(theta, dtype=float)
    # each plane at its own scale: rotation keeps lengths, so frame 0 fixes the radius
    radius = np.maximum(np.hypot(q_xy[0, :, 0], q_xy[0, :, 1]), np.hypot(k_xy[0, :, 0], k_xy[0, :, 1]))
    radius = np.where(radius > 0, radius, 1.0)  # (P,)
    q_unit, k_unit = q_xy / radius[None, :, None], k_xy / radius[None, :, None]  # (F, P, 2)
    cx, cy = centres = plane_centres(n_pairs, per_row)  # (P,), (P,)
    height = height or (560 if n_pairs <= per_row else TWO_ROWS_HEIGHT)
    text_y = -1.3

    circle = np.linspace(0, 2 * np.pi, 73)
    ring_x = np.concatenate([np.append(c + np.cos(circle), np.nan) for c in cx])
    ring_y = np.concatenate([np.append(c + np.sin(circle), np.nan) for c in cy])
    path_x = (cx[None, :] + q_unit[:, :, 0]).T.reshape(-1)  # plane by plane
    path_y = (cy[None, :] + q_unit[:, :, 1]).T.reshape(-1)
    path_m = np.tile(np.asarray(positions_q), n_pairs)
    # plain dicts, as builders._figure: Plotly's checked API (go.Scatter, add_annotation,
    # update_*axes, assigning the frames) costs 13-53 ms a figure, most of a rope-rotation
    # miss; tests/test_figures_rope.py compares the result with what the checked API builds
    data = [
        dict(
            type="scatter",
            x=_f32(ring_x),
            y=_f32(ring_y),
            mode="lines",
            line=dict(color="#bbbbbb", width=1, dash="dot"),
            hoverinfo="skip",
            showlegend=False,
        ),
        dict(
            type="scatter",
            x=_f32(path_x),
            y=_f32(path_y),
            mode="markers",
            name="q's tip in every frame",
            marker=dict(color=Q_COLOUR, size=5, opacity=0.35),
            customdata=path_m,
            hovertemplate="q's tip at m = %{customdata}<extra></extra>",
        ),
        _arrow_trace(k_unit[0], centres, K_COLOUR, "k at position n", dash="dash"),
        _arrow_trace(q_unit[0], centres, Q_COLOUR, "q at position m"),
        dict(
            type="scatter",
            x=_f32(cx),
            y=_f32(cy + text_y),
            mode="text",
            textposition="bottom center",
            text=[_angle_text(a, s) for a, s in zip(angles[0], shares[0], strict=True)],
            textfont=dict(size=13),
            hoverinfo="skip",
            showlegend=False,
        ),
    ]
    annotations = [
        dict(
            x=float(x),
            y=float(y + 1.12),
            text=f"<b>pair {i}</b> (dims {2 * i}, {2 * i + 1})<br>θ = {t:.3g} rad/pos<br>λ = {2 * np.pi / t:,.1f}",
            showarrow=False,
            yanchor="bottom",
            font=dict(size=13),
        )
        for i, t, x, y in zip(pairs, theta, cx, cy, strict=True)
    ]
    layout = _base(title, height)
    reach = 1.35
    layout.update(
        annotations=annotations,
        xaxis=dict(range=[-reach, float(cx.max() + reach)], visible=False, fixedrange=True),
        # room for each plane's three-line title above it and its three lines of numbers under it
        yaxis=dict(
            range=[float(cy.min() - 2.6), float(cy.max() + 2.3)],
            visible=False,
            fixedrange=True,
            scaleanchor="x",
            scaleratio=1,
        ),
        margin=dict(l=10, r=10, t=60, b=10),
        # played, paused and stepped by the page's keyboard buttons (ui.chart_tools), which
        # call plotly.js's animate with these frame names; Plotly's own buttons and slider
        # are SVG (no keyboard) and its slider labels every frame, unreadable on a phone
        meta=dict(frame_ms=frame_ms),
    )
    layout["legend"].update(x=0, xanchor="left")
    fig = _figure(data, layout)
    # the page's frame counter shows the name: which positions a frame draws, not only its number
    names = [f"query at m = {int(m)}, key at n = {int(n)}" for m, n in zip(positions_q, positions_k, strict=True)]
    # a frame holds only x, y or text of the three animated traces (Plotly merges each
    # entry into the trace it names). The frames are checked, once: unchecked ones cannot be
    # read back (plotly's Frame.data fails on them), and assigning ``fig.frames`` would
    # check every frame a second time
    frames = []
    for f in range(n_frames):
        kx, ky = _arrows(k_unit[f], centres)
        qx, qy = _arrows(q_unit[f], centres)
        texts = [_angle_text(a, s) for a, s in zip(angles[f], shares[f], strict=True)]
        data = [dict(type="scatter", x=kx, y=ky), dict(type="scatter", x=qx, y=qy), dict(type="scatter", text=texts)]
        frames.append(go.Frame(data=data, traces=[2, 3, 4], name=names[f]))
    plotly_private.set_frames(fig, frames)
    return fig


def _hline(y: float, line: dict, axis: str = "") -> dict:
    """The shape ``fig.add_hline(y, line=line)`` adds, across the width of axes ``x<axis>``."""
    return dict(type="line", x0=0, x1=1, xref=f"x{axis} domain", y0=y, y1=y, yref=f"y{axis}", line=line)


#: the theme puts the legend at the top right, where a long title runs into it
_UNDER_TITLE = dict(
    title=dict(y=0.98, yref="container", yanchor="top"),
    legend=dict(x=0, xanchor="left", y=1.01, yanchor="bottom"),
    margin=dict(t=95),
)


def _legend_under_title_dict(layout: dict) -> dict:
    """``layout`` (a plain dict from ``builders._base``) with the legend under the title."""
    for key, value in _UNDER_TITLE.items():
        layout[key] = dict(layout[key], **value)
    return layout


def score_spread(
    distances,
    mean,
    std,
    *,
    reference: float,
    reference_label: str,
    title: str,
    height: int | None = None,
) -> go.Figure:
    """Mean score and a band of one standard deviation either side, against distance (log x)."""
    distances = np.asarray(distances)
    mean, std = _f32(mean), _f32(std)
    traces = [
        dict(
            type="scatter",
            x=np.concatenate([distances, distances[::-1]]),
            y=np.concatenate([mean + std, (mean - std)[::-1]]),
            fill="toself",
            fillcolor="rgba(0, 114, 178, 0.18)",
            line=dict(width=0),
            name="mean ± std",
            hoverinfo="skip",
        ),
        dict(
            type="scatter",
            x=distances,
            y=std,
            mode="lines",
            name="std of the score",
            line=dict(color=PALETTE[3], width=2),
            hovertemplate="distance %{x}<br>std %{y:.3f}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=distances,
            y=mean,
            mode="lines",
            name="mean score",
            line=dict(color=PALETTE[0], width=2),
            hovertemplate="distance %{x}<br>mean %{y:.3f}<extra></extra>",
        ),
    ]
    layout = _legend_under_title_dict(_base(title, height))
    layout.update(
        # what fig.add_hline draws: a line across the plot's width at y
        shapes=[_hline(reference, dict(color="#555", dash="dot"))],
        annotations=[
            dict(
                x=1,
                xref="paper",
                y=reference,
                text=reference_label,
                showarrow=False,
                xanchor="right",
                yanchor="bottom",
                bgcolor="rgba(255, 255, 255, 0.85)",
            )
        ],
        xaxis=dict(title=dict(text="relative distance m - n (positions, log scale)"), type="log"),
        yaxis=dict(title=dict(text="score q_m · k_n")),
    )
    return _figure(traces, layout)


def pairing_map(rows: Mapping[str, np.ndarray], *, title: str, height: int | None = None) -> go.Figure:
    """One row of cells per layout, one cell per dimension, coloured by the pair it belongs to.

    ``rows`` maps a layout's label to its (Dh,) pair index of each dimension; dims that
    share a colour are rotated together. Cells carry their pair number when Dh <= 32.
    """
    labels = list(rows)
    z = np.stack([np.asarray(rows[label]) for label in labels])  # (L, Dh)
    head_dim = z.shape[1]
    trace = dict(
        type="heatmap",
        z=_f32(z),
        x=np.arange(head_dim),
        y=labels,
        colorscale=_scale(SEQUENTIAL_SCALE),
        colorbar=dict(title=dict(text="pair i", side="right")),
        texttemplate="%{z}" if head_dim <= 32 else None,
        textfont=dict(size=12),
        xgap=1,
        ygap=6,
        hovertemplate="%{y}<br>dimension %{x} belongs to pair %{z}<extra></extra>",
    )
    layout = _base(title, height)
    layout.update(xaxis=dict(title=dict(text="dimension of q or k (0 .. Dh - 1)")), yaxis=dict(autorange="reversed"))
    return _figure([trace], layout)


def _joined(labels: list[str]) -> str:
    """One label for lines that coincide: the value once when they share it.

    ["training length L = 2,048", "L/beta_slow = 2,048"] -> "training length L = L/beta_slow = 2,048";
    a phone's chart has room for the short form only (about 260 px of plot).
    """
    names = [label.rpartition(" = ")[0] for label in labels]
    values = [label.rpartition(" = ")[2] for label in labels]
    if len(labels) > 1 and all(names) and len(set(values)) == 1:
        return " = ".join(names) + " = " + values[0]
    return " and ".join(labels)


def scaling_chart(
    wavelength_before,
    wavelength_after,
    ratio,
    region,
    *,
    factor: float,
    original_length: int,
    guides: Mapping[str, float] | None = None,
    region_names: Sequence[str] = ("kept", "blended", "interpolated"),
    title: str,
    height: int | None = None,
) -> go.Figure:
    """Each pair's wavelength before and after a context extension, and its frequency ratio.

    Parameters
    ----------
    wavelength_before, wavelength_after : (Dh/2,) positions per turn
    ratio : (Dh/2,) scaled over original frequency
    region : (Dh/2,) ints indexing ``region_names`` (colour of each marker)
    factor : the extension factor s
    original_length : training length L (horizontal line, and s L)
    guides : label -> wavelength of further horizontal lines (band edges)
    """
    before, after, ratio = _f32(wavelength_before), _f32(wavelength_after), _f32(ratio)
    region = np.asarray(region)
    pairs = np.arange(before.size)
    # the grid's axes as make_subplots lays them out, then plain dicts (builders._figure)
    layout = subplot_layout(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.64, 0.36],
        vertical_spacing=0.06,
    )
    traces = [
        dict(
            type="scatter",
            x=pairs,
            y=before,
            mode="lines+markers",
            name="original wavelength",
            line=dict(color="#999999", width=1.5),
            marker=dict(color="#999999", size=5),
            hovertemplate="pair %{x}<br>original wavelength %{y:,.1f} positions<extra></extra>",
            xaxis="x",
            yaxis="y",
        )
    ]
    for r, name in enumerate(region_names):
        sel = region == r
        if not sel.any():
            continue
        colour = REGION_COLOURS[r % len(REGION_COLOURS)]
        traces.append(
            dict(
                type="scatter",
                x=pairs[sel],
                y=after[sel],
                mode="markers",
                name=f"{name} ({int(sel.sum())} pairs)",
                legendgroup=name,
                marker=dict(color=colour, size=8),
                customdata=ratio[sel],
                hovertemplate=(
                    f"pair %{{x}} ({name})<br>wavelength %{{y:,.1f}} positions"
                    "<br>frequency ratio %{customdata:.4f}<extra></extra>"
                ),
                xaxis="x",
                yaxis="y",
            )
        )
        traces.append(
            dict(
                type="scatter",
                x=pairs[sel],
                y=ratio[sel],
                mode="markers",
                name=name,
                legendgroup=name,
                showlegend=False,
                marker=dict(color=colour, size=7),
                hovertemplate=f"pair %{{x}} ({name})<br>ratio %{{y:.4f}}<extra></extra>",
                xaxis="x2",
                yaxis="y2",
            )
        )
    # one line per distinct wavelength; labels of equal ones are joined (L/beta_slow = L when beta_slow = 1)
    lines: dict[float, list[str]] = {float(original_length): [f"training length L = {original_length:,}"]}
    if factor > 1:
        lines.setdefault(float(factor * original_length), []).append(f"s·L = {factor * original_length:,.0f}")
    for label, at in (guides or {}).items():
        same = next((v for v in lines if np.isclose(v, at, rtol=1e-9)), None)
        lines.setdefault(float(at) if same is None else same, []).append(label)
    shapes, notes = [], []
    for at, labels in lines.items():
        main = any(label.startswith(("training", "s·L")) for label in labels)
        colour = "#555555" if main else PALETTE[5]
        shapes.append(_hline(at, dict(color=colour, dash="dash" if main else "dot", width=1)))
        # annotations on a log axis are placed in log10 units
        notes.append(
            dict(
                x=0,
                xref="x domain",
                y=float(np.log10(at)),
                yref="y",
                text=_joined(labels),
                showarrow=False,
                xanchor="left",
                yanchor="bottom",
                font=dict(size=12, color=colour),
            )
        )
    shapes.append(_hline(1.0 / factor, dict(color="#555555", dash="dot", width=1), axis="2"))
    notes.append(
        dict(
            x=1,
            xref="x2 domain",
            y=1.0 / factor,
            yref="y2",
            text=f"1/s = {1.0 / factor:.3g}",
            showarrow=False,
            xanchor="right",
            yanchor="bottom",
            font=dict(size=12),
        )
    )
    layout["annotations"] = layout.get("annotations", []) + notes
    layout["shapes"] = shapes
    layout.update(_legend_under_title_dict(_base(title, height)))
    layout["yaxis"].update(title=dict(text="wavelength (positions, log)"), type="log")
    layout["yaxis2"].update(title=dict(text="frequency after / before"), range=[0, 1.08])
    layout["xaxis2"]["title"] = dict(text="pair index i (fast → slow)")
    return _figure(traces, layout)


def xpos_factors(distances, zeta, pairs: Sequence[int], *, scale_base: float, height: int | None = None) -> go.Figure:
    """xPos's factor zeta_i^(r / scale_base) against distance r, one line per chosen pair.

    ``zeta`` is (R, Dh/2) (``posenc.xpos_scale`` at the distances); ``pairs`` picks columns.
    """
    zeta = np.asarray(zeta)
    return line_chart(
        distances,
        {f"pair {i}": zeta[:, i] for i in pairs},
        title=f"xPos's factor ζ_i^(r / {scale_base:,.0f}) on pair i's share of the score",
        x_title="distance r = m - n (positions)",
        y_title="factor",
        x_name="r",
        value_name="factor",
        height=height,
        layout_update=dict(_UNDER_TITLE, yaxis=dict(range=[0, 1.05])),
    )


def decay_bound(distances, bound, *, height: int | None = None) -> go.Figure:
    """RoFormer's bound (2/Dh) sum_j |S_j| against relative distance (log x)."""
    return line_chart(
        distances,
        {"(2/dₕ) Σⱼ |Sⱼ|": bound},
        title="RoFormer's bound on the score",
        x_title="relative distance m - n (positions, log scale)",
        y_title="(2/dₕ) Σⱼ |Sⱼ|",
        x_name="distance",
        value_name="bound",
        log_x=True,
        height=height,
        layout_update=_UNDER_TITLE,
    )


def xpos_score_chart(distances, rope, xpos, *, height: int | None = None) -> go.Figure:
    """The score of a word with itself at distance r, under RoPE and under xPos."""
    return line_chart(
        distances,
        {"RoPE": rope, "xPos": xpos},
        title="Score of a word with itself, r positions back",
        x_title="distance r = m - n (positions)",
        y_title="score q'_m · k'_n",
        x_name="r",
        value_name="score",
        height=height,
        layout_update=_UNDER_TITLE,
    )
