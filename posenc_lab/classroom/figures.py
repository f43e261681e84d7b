"""The class's votes as bars: the teacher's live histogram, round against round.

Pure Plotly (no Streamlit): ``classroom.views`` counts the votes (``classroom.tally``)
and draws this with ``layout.chart``, which sizes it for the projector and the phone.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from posenc_lab.figures.theme import PALETTE, base_layout

#: the label given to the right answer once it is revealed (text: read by everyone, no colour needed)
RIGHT = " (right)"
RIGHT_OUTLINE = "#000037"  # figures.display swaps it for the theme's strongest text colour
RIGHT_OUTLINE_PX = 4


def vote_bars(
    labels: Sequence[str],
    rounds: Sequence[tuple[str, Sequence[int]]],
    *,
    title: str,
    right: int | None = None,
    height: int | None = None,
) -> go.Figure:
    """Horizontal bars, one group per answer (first answer on top), one colour per round.

    ``rounds`` is ``[(name, counts per label), ...]`` in the order voted: the later round
    drawn below the earlier, so a shift after discussion reads downwards. ``right`` is the
    index of the right answer once revealed: its label says so.
    """
    if not rounds:
        raise ValueError("rounds must name at least one round of votes")
    for name, counts in rounds:
        if len(counts) != len(labels):
            raise ValueError(f"round {name!r} has {len(counts)} counts for {len(labels)} labels")
    shown = [label + (RIGHT if i == right else "") for i, label in enumerate(labels)]
    fig = go.Figure()
    for i, (name, counts) in enumerate(rounds):
        fig.add_trace(
            go.Bar(
                y=shown,
                x=list(counts),
                name=name,
                orientation="h",
                marker_color=PALETTE[i % len(PALETTE)],
                # the right answer's bars outlined, besides its label: seen from the back row
                marker_line=dict(
                    color=RIGHT_OUTLINE, width=[RIGHT_OUTLINE_PX if j == right else 0 for j in range(len(labels))]
                ),
                text=[str(c) for c in counts],
                textposition="outside",
                cliponaxis=False,
                hovertemplate=f"{name}<br>%{{y}}<br>%{{x}} votes<extra></extra>",
            )
        )
    # a label of two lines (a bin and the wrong answer it names) takes more of a row
    rows = sum(1 + 0.6 * label.count("<br>") for label in labels)
    base_layout(fig, title, height=height or max(240, round(60 + 44 * rows * len(rounds))))
    most = max((max(counts, default=0) for _, counts in rounds), default=0)
    fig.update_layout(barmode="group", showlegend=len(rounds) > 1, legend_traceorder="normal")
    # whole votes only, and room on the right for the count written after each bar
    fig.update_xaxes(title_text="votes", rangemode="tozero", range=[0, max(1, most) * 1.2], dtick=max(1, -(-most // 5)))
    # the first answer at the top, and each group's first round above its second
    fig.update_yaxes(autorange="reversed", automargin=True)
    return fig


#: the room screen's charts: their text this much larger than a page's chart's, before
#: presenter mode enlarges it again (ticks of 14 px become 21, then about 30 on a 1080p
#: projector: read from a lecture hall's back row, as the screen's words are)
ROOM_TEXT_SCALE = 1.5


def room_sized(fig: go.Figure, scale: float = ROOM_TEXT_SCALE) -> go.Figure:
    """A copy of ``fig`` with every text ``scale`` times larger: its font, title, axes' ticks
    and titles, legend and the numbers its bars print; its height grows by half as much (rows
    of larger labels need room, the bars need none)."""
    out = go.Figure(fig)
    layout = out.layout
    if layout.height:
        out.update_layout(height=round(layout.height * (1 + (scale - 1) / 2)))
    base = layout.font.size or 14  # what a text without a size of its own is drawn at
    size = lambda font, default=base: round((font.size or default) * scale)  # noqa: E731
    out.update_layout(
        font_size=size(layout.font),
        title_font_size=size(layout.title.font, 17),
        legend_font_size=size(layout.legend.font),
    )
    for axis in (*out.select_xaxes(), *out.select_yaxes()):
        axis.tickfont.size = size(axis.tickfont)
        axis.title.font.size = size(axis.title.font)
    for trace in out.data:
        if getattr(trace, "textfont", None) is not None:
            trace.textfont.size = size(trace.textfont)
    return out


#: a student's sketch on the projector: thin and light, so forty of them read as a cloud
SKETCH_LINE_PX = 1.5
SKETCH_OPACITY = 0.35


def sketch_overlay(
    x: Sequence[float],
    sketches: Sequence[Sequence[float]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    y_range: tuple[float, float],
    median: Sequence[float] | None = None,
    measured: tuple[Sequence[float], Sequence[float]] | None = None,
    mine: Sequence[float] | None = None,
    height: int | None = None,
) -> go.Figure:
    """The class's sketches over one x: each thin and light, their median bold, and once
    revealed the measured curve (x and y of its own) boldest, dashed so that it reads
    without colour. ``mine``: a student's own sketch, drawn strong. Heights in the y's units."""
    fig = go.Figure()
    for k, ys in enumerate(sketches):
        fig.add_trace(
            go.Scatter(
                x=list(x),
                y=list(ys),
                mode="lines",
                line=dict(color=PALETTE[0], width=SKETCH_LINE_PX),
                opacity=SKETCH_OPACITY,
                name="a sketch",
                legendgroup="sketches",
                showlegend=k == 0,
                hoverinfo="skip",
            )
        )
    # the strong lines, each named in the legend and in its hover: (name, x, y, style)
    strong = [
        ("the class's median", x, median, dict(mode="lines", line=dict(color=PALETTE[0], width=5))),
        ("your sketch", x, mine, dict(mode="lines+markers", line=dict(color=PALETTE[1], width=4), marker=dict(size=6))),
        (
            "measured",
            None if measured is None else measured[0],
            None if measured is None else measured[1],
            dict(mode="lines", line=dict(color=RIGHT_OUTLINE, width=5, dash="dash")),
        ),
    ]
    for name, xs, ys, style in strong:
        if ys is not None:
            fig.add_trace(
                go.Scatter(
                    x=list(xs),
                    y=list(ys),
                    name=name,
                    hovertemplate=f"{name}<br>%{{x:.4g}}: %{{y:.4g}}<extra></extra>",
                    **style,
                )
            )
    base_layout(fig, title, height=height or 420)
    fig.update_layout(showlegend=True)
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title, range=[float(y_range[0]), float(y_range[1])])
    return fig
