"""Make a built figure fit the room it is shown in: a desktop, a projector, a phone.

Builders describe *what* a figure shows; :func:`finish` decides how its text looks, once
per figure, for one of two modes:

- ``present=False``: a desktop reader *and* a phone. The server cannot know the width,
  so everything must also fit a 390 px screen: heatmap cell values are printed only when
  they fit a panel about 340 px wide, and a multi-panel figure is later drawn as one
  chart per panel (``split_panels``), which Streamlit's columns stack on a phone.
- ``present=True``: a projector at 1920 x 1080 read from the back row. Every text
  element is at least :data:`PRESENT_MIN` px.

Every text element gets an explicit size and colour, because Streamlit's chart theme sets
its own (small, grey) sizes on ticks and axis titles, which win over ``layout.font``.
The colour is :data:`INK`, a placeholder Streamlit replaces with its strongest text
colour for the active theme (near black on light, near white on dark): the only way to
reach 4.5:1 contrast in both themes with one figure. A browser test measures it.

The figure's title is taken out of the chart and kept in ``layout.meta["title"]``: the
page prints it above the chart as text, where it wraps on a phone, scales with the page
in presenter mode and is never covered by Plotly's toolbar.
"""

from __future__ import annotations

import math
import re

import numpy as np
import plotly.colors as pcolors
import plotly.graph_objects as go

from .export import _array

#: Streamlit's chart theme swaps this colour for its "gray90" text colour of the active
#: theme (#262730 on light, #fafafa on dark); exported files keep it as a dark navy.
INK = "#000037"
#: ... and this one for the app's background colour (annotation boxes).
PAPER = "#000038"

#: presenter mode: figures this much taller (a projected chart fills the screen)
PRESENT_HEIGHT = 1.3
#: smallest chart text in presenter mode (a projector read from the back row)
PRESENT_MIN = 18
#: text sizes in px: (desktop and phone, presenter)
TEXT = (14, 20)
AXIS_TITLE = (14, 21)
PANEL_TITLE = (15, 22)

#: width in px a figure can count on: a phone's column (desktop is wider), a projector
PHONE_WIDTH = 340
PROJECTOR_WIDTH = 1800
#: a heatmap prints its values when it has at most this many rows and columns
MAX_LABELLED_CELLS = 16
#: Plotly draws <sup> text (10^-16 on a log axis) at this share of the font size
SUPERSCRIPT = 0.7
#: values printed in heatmap cells are black on a scale blended this far towards white:
#: Plotly's automatic black-or-white text falls to about 3:1 on mid-tone cells
CELL_TEXT = "#000000"
PASTEL = 0.5
#: width of a digit, as a share of the font size (sans-serif)
DIGIT_WIDTH = 0.62


def _size(existing, mode: int, present: bool, default: tuple[int, int] = TEXT) -> int:
    """A text's size in this mode: the builder's size on a desktop, at least the
    projector minimum (and scaled up with the rest) when presenting."""
    base = default[mode]
    if existing is None:
        return base
    if present:
        return max(PRESENT_MIN, round(existing * TEXT[1] / TEXT[0]), base if existing >= TEXT[0] else PRESENT_MIN)
    return int(existing)


def _font(font, mode: int, present: bool, default=TEXT, *, colour: bool = True) -> dict:
    size = font.size if font is not None else None
    out = dict(size=_size(size, mode, present, default))
    if colour:
        out["color"] = INK
    return out


def _axis_names(fig: go.Figure, letter: str) -> list[str]:
    return [k for k in fig.layout.to_plotly_json() if k == f"{letter}axis" or k.startswith(f"{letter}axis")]


def _decade_ticks(fig: go.Figure, axis_name: str) -> None:
    """On a log axis, label whole decades only (every k-th when there are many)."""
    axis = fig.layout[axis_name]
    if axis.type != "log":
        return
    letter, suffix = axis_name[0], axis_name[5:]
    ref = letter + suffix
    if axis.range is not None:
        low, high = sorted(float(v) for v in axis.range)
    else:
        values = []
        for trace in fig.data:
            if getattr(trace, f"{letter}axis", None) in (ref, None if suffix else ref, letter) or (
                not suffix and getattr(trace, f"{letter}axis", None) is None
            ):
                data = getattr(trace, letter, None)
                if data is not None:
                    arr = np.asarray(_array(data), dtype=object)
                    arr = np.array([v for v in arr.ravel() if isinstance(v, (int, float, np.number))], dtype=float)
                    arr = arr[np.isfinite(arr) & (arr > 0)]
                    if arr.size:
                        values.append(np.log10(arr))
        if not values:
            return
        all_values = np.concatenate(values)
        low, high = float(all_values.min()), float(all_values.max())
    decades = max(high - low, 1.0)
    # about five labels fit a phone's x axis; a y axis has room for one per 2.5 lines of text
    room = 5
    if letter == "y":
        height = (fig.layout.height or 450) * (axis.domain[1] - axis.domain[0] if axis.domain else 1.0)
        room = max(2, int((height - 100) / (2.5 * (axis.tickfont.size or TEXT[0]))))
    step = max(1, math.ceil(decades / room))
    fig.layout[axis_name].update(dtick=step, minor=dict(showgrid=False), tickangle=0)


def _pastel(scale) -> list:
    """A Plotly colour scale blended PASTEL of the way towards white."""
    out = []
    for position, colour in pcolors.get_colorscale(scale) if isinstance(scale, str) else scale:
        rgb = pcolors.hex_to_rgb(colour) if str(colour).startswith("#") else pcolors.unlabel_rgb(colour)
        mixed = tuple(round(c + (255 - c) * PASTEL) for c in rgb[:3])
        out.append([position, pcolors.label_rgb(mixed)])
    return out


def _readable_cells(fig: go.Figure, trace, lightened: set[str]) -> None:
    """Black values on a lightened scale: at least 6:1 in every cell, in either theme.
    ``lightened`` names the colour axes done already (several traces may share one)."""
    trace.update(textfont=dict(color=CELL_TEXT))
    if trace.coloraxis:
        axis = fig.layout[trace.coloraxis]
        if axis.colorscale is not None and trace.coloraxis not in lightened:
            lightened.add(trace.coloraxis)
            axis.update(colorscale=_pastel(axis.colorscale))
    elif trace.colorscale is not None:
        trace.update(colorscale=_pastel(trace.colorscale))


def _title_on_top(bar) -> None:
    # a title turned along a vertical bar ran past the right edge of a phone's chart
    if bar.orientation != "h":
        bar.update(title=dict(side="top"))


def _has_colour_bar(fig: go.Figure, trace) -> bool:
    """True when a colour bar stands beside the plot (not under it)."""
    axis = fig.layout[trace.coloraxis] if trace.coloraxis else trace
    return axis.showscale is not False and axis.colorbar.orientation != "h"


def _cell_text(fig: go.Figure, trace, present: bool, columns: int) -> None:
    """Print a small heatmap's values in its cells when they fit the cell (also for a
    builder's own ``texttemplate``, which is dropped when it would smear on a phone)."""
    if trace.z is None:
        return
    z = np.asarray(_array(trace.z), dtype=float)
    finite = z[np.isfinite(z)]
    given = re.fullmatch(r"%\{z:([^}]*)\}", trace.texttemplate or "")
    if trace.texttemplate is not None and given is None:
        return  # a template that is not a plain value: the builder knows best
    if given is None and (z.ndim != 2 or max(z.shape) > MAX_LABELLED_CELLS):
        return
    if finite.size == 0 or z.ndim != 2:
        return
    if given is not None:
        fmt = given.group(1)
    elif np.allclose(finite, np.round(finite)):
        fmt = ".0f"
    else:
        biggest = float(np.max(np.abs(finite)))
        fmt = ".2f" if biggest < 10 else ".1f" if biggest < 100 else ".0f"
    chars = max(len(f"{v:{fmt}}") for v in finite)
    # the plot area of one panel: its share of the width, less the y ticks and a colour bar
    width = (PROJECTOR_WIDTH if present else PHONE_WIDTH) / max(columns, 1) - 60
    width -= 80 if _has_colour_bar(fig, trace) else 0
    cell = min(width / z.shape[1], (fig.layout.height or 450) * 0.8 / z.shape[0])
    size = math.floor(min(cell / (DIGIT_WIDTH * chars + 0.5), cell / 1.5, TEXT[1] + 4 if present else TEXT[0]))
    if size < (PRESENT_MIN if present else 9):
        trace.update(texttemplate=None)
        return
    trace.update(texttemplate=f"%{{z:{fmt}}}", textfont=dict(size=size))


def finish(fig: go.Figure, *, present: bool, columns: int = 1) -> go.Figure:
    """Style ``fig`` in place for its room (see the module docstring) and return it.

    ``columns``: how many charts stand side by side with it in presenter mode (a panel
    of a split figure), for the room its heatmap cells have.
    """
    mode = 1 if present else 0
    title = fig.layout.title.text
    meta = dict(fig.layout.meta) if isinstance(fig.layout.meta, dict) else {}
    if title:
        meta["title"] = title
    top = fig.layout.margin.t
    fig.update_layout(
        title=dict(text=None),
        meta=meta or None,
        font=dict(size=TEXT[mode], color=INK),
        hoverlabel=dict(font=dict(size=TEXT[mode])),
        # the title's room is freed; a legend above the plot reserves its own
        margin=dict(t=max(12, (top if top is not None else 60) - 45) if title else top),
        legend=dict(font=_font(fig.layout.legend.font, mode, present), title=dict(font=_font(None, mode, present))),
    )
    if any(t.type == "bar" and t.text is not None for t in fig.data):
        # Plotly shrinks a value written on a bar to the bar's width: on a phone's narrow
        # bars it would be a 5 px smudge; hidden then (the hover and the CSV keep it)
        fig.update_layout(uniformtext=dict(minsize=PRESENT_MIN if present else 10, mode="hide"))
    if present and fig.layout.height:
        fig.update_layout(height=int(fig.layout.height * PRESENT_HEIGHT))
    for letter in "xy":
        for name in _axis_names(fig, letter):
            axis = fig.layout[name]
            axis.update(
                tickfont=_font(axis.tickfont, mode, present),
                title=dict(font=_font(axis.title.font, mode, present, AXIS_TITLE)),
                automargin=True,
            )
            _decade_ticks(fig, name)
            axis = fig.layout[name]
            superscripts = axis.type == "log" or axis.exponentformat == "power"
            superscripts = superscripts or any("<sup>" in str(t) for t in (axis.ticktext or ()))
            if present and superscripts:
                # Plotly sets exponents at 70% of the tick size: they must reach the minimum too
                axis.update(tickfont=dict(size=max(axis.tickfont.size, math.ceil(PRESENT_MIN / SUPERSCRIPT))))
    for name in [k for k in fig.layout.to_plotly_json() if k.startswith("coloraxis")]:
        bar = fig.layout[name].colorbar
        bar.update(tickfont=_font(bar.tickfont, mode, present), title=dict(font=_font(bar.title.font, mode, present)))
        _title_on_top(bar)
    for note in fig.layout.annotations:
        is_panel_title = note.yref == "paper" and note.y is not None and note.y >= 1 and note.yanchor == "bottom"
        note.update(font=_font(note.font, mode, present, PANEL_TITLE if is_panel_title else TEXT))
        if note.bgcolor is not None:
            note.update(bgcolor=PAPER)
    for menu in fig.layout.updatemenus:
        menu.update(font=_font(menu.font, mode, present))
    for slider in fig.layout.sliders:
        slider.update(
            font=_font(slider.font, mode, present),
            currentvalue=dict(font=_font(slider.currentvalue.font, mode, present)),
        )
    lightened: set[str] = set()
    for trace in fig.data:
        if hasattr(trace, "colorbar") and trace.colorbar is not None:
            bar = trace.colorbar
            bar.update(
                tickfont=_font(bar.tickfont, mode, present), title=dict(font=_font(bar.title.font, mode, present))
            )
            _title_on_top(bar)
        if trace.type == "heatmap":
            _cell_text(fig, trace, present, columns if present else 1)
            if trace.texttemplate is not None:
                _readable_cells(fig, trace, lightened)
        elif hasattr(trace, "textfont") and (trace.text is not None or getattr(trace, "texttemplate", None)):
            trace.update(textfont=_font(trace.textfont, mode, present))
    return fig


def title_of(fig: go.Figure) -> str:
    """The title a finished figure carries for the page to print."""
    meta = fig.layout.meta
    return (meta or {}).get("title", "") if isinstance(meta, dict) else ""


# multi-panel figures: one chart per panel


def _ref(axis_name: str) -> str:
    """'xaxis3' -> 'x3', 'xaxis' -> 'x'."""
    return axis_name[0] + axis_name[5:]


def _axis_name(ref: str) -> str:
    return f"{ref[0]}axis{ref[1:]}"


def is_multi_panel(fig: go.Figure) -> bool:
    """More than one pair of data axes, and no animation (frames move every panel at once)."""
    return len(_axis_names(fig, "x")) > 1 and not fig.frames


def _inside(value, domain, slack: float = 0.0) -> bool:
    return value is not None and domain[0] - slack <= float(value) <= domain[1] + slack


def _bar_below(bar: dict | None) -> dict:
    """A colour bar laid flat along the bottom of its chart."""
    bar = dict(bar or {})
    title = dict(bar.get("title") or {})
    title["side"] = "top"
    bar.update(
        orientation="h",
        yref="container",
        y=0.0,
        yanchor="bottom",
        x=0.5,
        xanchor="center",
        len=0.9,
        thickness=14,
        title=title,
    )
    return bar


def split_panels(fig: go.Figure) -> list[list[go.Figure]]:
    """A multi-panel figure as rows of one-panel figures, each titled by its subplot title.

    Every panel keeps its traces, its axes (renamed to x and y, with the axis titles of
    its row and column), the annotations and shapes that belong to it, and the shared
    colour axes; the colour bar is drawn beside the last panel only. The overall title
    stays with the caller. A figure with one panel comes back as ``[[fig]]``.
    """
    if not is_multi_panel(fig):
        return [[fig]]
    spec = fig.to_plotly_json()
    layout = spec["layout"]
    x_names = sorted(_axis_names(fig, "x"), key=lambda n: int(n[5:] or 1))
    panels = []
    for x_name in x_names:
        x_axis = dict(layout.get(x_name, {}))
        y_ref = x_axis.get("anchor") or "y" + x_name[5:]
        y_axis = dict(layout.get(_axis_name(y_ref), {}))
        panels.append((_ref(x_name), y_ref, x_axis, y_axis))
    # rows from the top, columns from the left
    x_domain = lambda p: tuple(p[2].get("domain", (0.0, 1.0)))  # noqa: E731
    y_domain = lambda p: tuple(p[3].get("domain", (0.0, 1.0)))  # noqa: E731
    row_tops = sorted({round(y_domain(p)[1], 3) for p in panels}, reverse=True)
    x_titles = {
        round(x_domain(p)[0], 3): p[2].get("title", {}).get("text") for p in panels if p[2].get("title", {}).get("text")
    }
    y_titles = {
        round(y_domain(p)[1], 3): p[3].get("title", {}).get("text") for p in panels if p[3].get("title", {}).get("text")
    }
    any_x = next(iter(x_titles.values()), None)
    any_y = next(iter(y_titles.values()), None)
    shared = {
        k: v
        for k, v in layout.items()
        if not k.startswith(("xaxis", "yaxis")) and k not in ("annotations", "shapes", "title", "meta")
    }
    height = layout.get("height")
    rows: list[list[go.Figure]] = [[] for _ in row_tops]
    last = {}
    for panel in panels:
        x_ref, y_ref, x_axis, y_axis = panel
        xd, yd = x_domain(panel), y_domain(panel)
        row = row_tops.index(round(yd[1], 3))
        last[row] = panel
    for panel in sorted(panels, key=lambda p: (row_tops.index(round(y_domain(p)[1], 3)), round(x_domain(p)[0], 3))):
        x_ref, y_ref, x_axis, y_axis = panel
        xd, yd = x_domain(panel), y_domain(panel)
        row = row_tops.index(round(yd[1], 3))
        own = {x_ref, y_ref}
        traces = [dict(t) for t in spec["data"] if t.get("xaxis", "x") == x_ref]
        for t in traces:
            t.pop("xaxis", None)
            t.pop("yaxis", None)
        title, notes, shapes = "", [], []
        for note in layout.get("annotations", []):
            xref, yref = note.get("xref", "paper"), note.get("yref", "paper")
            if xref.split(" ")[0] in own or yref.split(" ")[0] in own:
                note = dict(note)
                note["xref"] = xref.replace(x_ref, "x", 1) if xref.split(" ")[0] == x_ref else xref
                note["yref"] = yref.replace(y_ref, "y", 1) if yref.split(" ")[0] == y_ref else yref
                notes.append(note)
            elif xref == "paper" and yref == "paper" and _inside(note.get("x"), xd, 0.01):
                at_top = note.get("yanchor") == "bottom" and abs(float(note.get("y", 0)) - yd[1]) < 0.01
                if at_top and not title:
                    title = note.get("text", "")
                elif _inside(note.get("y"), yd) and not at_top:
                    note = dict(note)
                    note["x"] = (float(note["x"]) - xd[0]) / (xd[1] - xd[0])
                    note["y"] = (float(note["y"]) - yd[0]) / (yd[1] - yd[0])
                    notes.append(note)
        for shape in layout.get("shapes", []):
            xref = shape.get("xref", "x")
            if xref.split(" ")[0] == x_ref:
                shape = dict(shape)
                shape["xref"] = xref.replace(x_ref, "x", 1)
                shape["yref"] = shape.get("yref", "y").replace(y_ref, "y", 1)
                shapes.append(shape)
        x_axis = {k: v for k, v in x_axis.items() if k not in ("domain", "anchor", "matches")}
        y_axis = {k: v for k, v in y_axis.items() if k not in ("domain", "anchor", "matches")}
        if y_axis.get("scaleanchor"):
            y_axis["scaleanchor"] = "x"
        if x_axis.get("scaleanchor"):
            x_axis["scaleanchor"] = "y"
        # a panel stands alone on a phone: it names its own axes
        x_axis.setdefault("title", {})
        y_axis.setdefault("title", {})
        if not x_axis["title"].get("text"):
            x_axis["title"]["text"] = x_titles.get(round(xd[0], 3), any_x)
        if not y_axis["title"].get("text"):
            y_axis["title"]["text"] = y_titles.get(round(yd[1], 3), any_y)
        panel_layout = dict(shared, xaxis=x_axis, yaxis=y_axis, annotations=notes, shapes=shapes, meta={"title": title})
        # the panel's title is printed above it by the page
        panel_layout["margin"] = dict(shared.get("margin", {}), t=20)
        if height:
            # a panel keeps its share of the height (the scaling chart's rows are 64 : 36)
            panel_layout["height"] = max(260, int(height * (yd[1] - yd[0])) + 80)
        if last[row] is not panel:
            for key in [k for k in panel_layout if k.startswith("coloraxis")]:
                panel_layout[key] = dict(panel_layout[key], showscale=False)
            for t in traces:
                t["showscale"] = False if "colorbar" in t or t.get("type") == "heatmap" else t.get("showscale")
                if t["showscale"] is None:
                    t.pop("showscale")
        else:
            # under the panel, not beside it: the cells keep the full width of a phone
            for key in [k for k in panel_layout if k.startswith("coloraxis")]:
                panel_layout[key] = dict(panel_layout[key], colorbar=_bar_below(panel_layout[key].get("colorbar")))
            for t in traces:
                if t.get("type") == "heatmap" and not t.get("coloraxis") and t.get("showscale") is not False:
                    t["colorbar"] = _bar_below(t.get("colorbar"))
            panel_layout["margin"] = dict(panel_layout["margin"], b=(panel_layout["margin"].get("b") or 55) + 90)
        if len(rows[row]) and "showlegend" not in shared:
            panel_layout["showlegend"] = False
        # parts of a figure Plotly has validated already
        rows[row].append(go.Figure(dict(data=traces, layout=panel_layout), _validate=False))
    return rows


def prepare(fig: go.Figure, *, present: bool) -> tuple[str, list[list[go.Figure]]]:
    """What a page draws for ``fig``: its title, and rows of finished one-panel charts.

    ``fig`` is not changed (it may be shared by every session).
    """
    title = fig.layout.title.text or ""
    rows = split_panels(go.Figure(fig.to_plotly_json(), _validate=False))
    for row in rows:
        for panel in row:
            finish(panel, present=present, columns=len(row))
            if len(rows) * len(row) > 1:
                # each panel knows the chart it belongs to (for tests and exports)
                panel.layout.meta = dict(panel.layout.meta or {}, chart_title=title)
    if len(rows) == 1 and len(rows[0]) == 1:
        title = title_of(rows[0][0]) or title
    return title, rows


_KINDS = {"heatmap": "heatmap", "scatter": "line chart", "bar": "bar chart"}


def describe(fig: go.Figure, title: str, panel: str = "") -> str:
    """One sentence for a screen reader: what kind of chart, of what, against what.

    The numbers themselves are in the chart's CSV download, right under it.
    """
    kinds = sorted({_KINDS.get(t.type, t.type) for t in fig.data}) or ["chart"]
    x_title = _plain_text(fig.layout.xaxis.title.text)
    y_title = _plain_text(fig.layout.yaxis.title.text)
    what = _plain_text(title) + (f", panel {_plain_text(panel)}" if panel else "")
    axes = f" with {x_title} across and {y_title} down" if x_title and y_title else ""
    if "heatmap" not in kinds and x_title and y_title:
        axes = f" of {y_title} against {x_title}"
    names = [t.name for t in fig.data if t.name and t.showlegend is not False][:6]
    series = f"; series: {', '.join(_plain_text(n) for n in names)}" if len(names) > 1 else ""
    return f"{' and '.join(kinds).capitalize()}: {what}{axes}{series}. Its numbers are in the CSV download below."


def _plain_text(text) -> str:
    return re.sub(r"<[^>]+>", " ", str(text or "")).replace("  ", " ").strip()
