"""The home page's one picture: where position enters attention, and which lesson teaches
each way.

A pure builder: labels in, ``go.Figure`` out. The figure is a route map drawn down the
page in the order attention computes, one panel for what happens to the vectors before
queries meet keys and one for what is added to their scores; ``layout.chart`` draws the
panels side by side on a wide screen and one under the other on a phone. Every text is
one line of its own (wrapped here, since Plotly does not wrap), so none can run into
another or off a 390 px screen.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import plotly.graph_objects as go

from posenc_lab.figures.theme import PALETTE, base_layout, subplots

#: longest line of text, in characters: fits a phone's 340 px chart at 14 px
WRAP = 34
#: vertical room per line of text, in px (a stage starts half a line lower)
LINE_PX = 24
STEP_GAP = 0.6  # lines between one stage (or step) and the next
#: a step of the computation (hollow, grey) and a place where position enters (filled)
STEP_COLOUR = "#767676"
MARKER = 13

#: one stage: its title and its rows, each (methods, the lesson that teaches them, hover text)
Stage = tuple[str, Sequence[tuple[str, str, str]]]
#: one panel: its title, the step it starts from, its stages, the step it leads to
Panel = tuple[str, str, Sequence[Stage], str]


def _lines(panel: Panel, first_colour: int) -> list[dict]:
    """Every line of a panel from the top: y (in lines), text, hover, kind and colour."""
    _, start, stages, end = panel
    out = [dict(y=0.0, text=start, hover="", kind="step", colour=STEP_COLOUR)]
    y = 0.0
    for n, (title, rows) in enumerate(stages):
        colour = PALETTE[(first_colour + n) % len(PALETTE)]
        y += 1 + STEP_GAP
        out.append(dict(y=y, text=title, hover="", kind="stage", colour=colour))
        for methods, lesson, hover in rows:
            for line in [*textwrap.wrap(methods, WRAP), *textwrap.wrap(lesson, WRAP)]:
                y += 1
                out.append(dict(y=y, text=line, hover=hover, kind="row", colour=colour))
    out.append(dict(y=y + 1 + STEP_GAP, text=end, hover="", kind="step", colour=STEP_COLOUR))
    return out


def story_map(panels: Sequence[Panel], *, title: str) -> go.Figure:
    """Where position enters attention, as a route map of one panel per part of it.

    Parameters
    ----------
    panels : sequence of (panel title, first step, stages, last step)
        ``stages``: (stage title, rows), a row being (methods, lesson, hover text), e.g.
        ``("Added to the input", [("Sinusoidal", "Lesson 2: Sinusoidal encoding", "added to ...")])``;
        the methods are drawn on a line, the lesson on the next. Stages are coloured in
        order across the panels.
    title : str

    Returns
    -------
    go.Figure
        One subplot per panel; each stage a filled dot on the panel's line, its rows
        under it, a line of text each (long ones wrapped at ``WRAP`` characters).
    """
    if not panels:
        raise ValueError("panels must not be empty")
    lines = []
    colour = 0
    for panel in panels:
        lines.append(_lines(panel, colour))
        colour += len(panel[2])
    depth = max(line[-1]["y"] for line in lines)  # lines in the tallest panel
    fig = subplots(rows=1, cols=len(panels), subplot_titles=[p[0] for p in panels], horizontal_spacing=0.04)
    for col, panel_lines in enumerate(lines, start=1):
        ys = [line["y"] for line in panel_lines]
        # the route itself, under its stops
        fig.add_trace(
            go.Scatter(
                x=[0.0, 0.0],
                y=[ys[0], ys[-1]],
                mode="lines",
                line=dict(color=STEP_COLOUR, width=2),
                hoverinfo="skip",
                showlegend=False,
            ),
            row=1,
            col=col,
        )
        for kind, symbol in (("step", "circle-open"), ("stage", "circle"), ("row", "circle")):
            chosen = [line for line in panel_lines if line["kind"] == kind]
            if not chosen:
                continue
            texts = [line["text"] for line in chosen]
            if kind == "stage":
                texts = [f"<b>{t}</b>" for t in texts]
            elif kind == "step":
                texts = [f"<i>{t}</i>" for t in texts]
            fig.add_trace(
                go.Scatter(
                    x=[0.0] * len(chosen),
                    y=[line["y"] for line in chosen],
                    mode="markers+text",
                    text=texts,
                    textposition="middle right",
                    textfont=dict(size=15 if kind == "stage" else 14),
                    # a row's dot is invisible: it only puts the text where the stage's starts
                    marker=dict(
                        size=MARKER,
                        symbol=symbol,
                        color=[line["colour"] for line in chosen],
                        opacity=0.0 if kind == "row" else 1.0,
                        line=dict(width=2, color=[line["colour"] for line in chosen]),
                    ),
                    hovertext=[line["hover"] or line["text"] for line in chosen],
                    hovertemplate="%{hovertext}<extra></extra>",
                    cliponaxis=False,
                    showlegend=False,
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(range=[0.0, 1.0], visible=False, fixedrange=True, row=1, col=col)
        # each panel spans its own lines: beside a taller one it spreads them a little
        fig.update_yaxes(range=[ys[-1] + 0.6, -0.6], visible=False, fixedrange=True, row=1, col=col)
    base_layout(fig, title, height=int((depth + 1.2) * LINE_PX) + 20)
    fig.update_layout(margin=dict(l=16, r=8, t=60, b=8), showlegend=False, hovermode="closest")
    return fig
