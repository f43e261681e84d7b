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
from copy import deepcopy

import numpy as np
import plotly.colors as pcolors
import plotly.graph_objects as go

from posenc_lab.figures import margins, notation, plotly_private
from posenc_lab.figures.arrays import as_array

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
#: the main column and the gap between Streamlit's columns (measured in Chromium): a desktop
#: at 1440 px (charts 980, 482, 316 and 233 px wide, one to four side by side) and presenter
#: mode at 1920 (1710, 844, 556 and 412 px)
DESKTOP_WIDTH, COLUMN_GAP = 980, 16
PRESENTER_WIDTH, PRESENTER_GAP = 1710, 22
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


# Everything below works on the figure's plain dict spec (``to_plotly_json()``), not on
# Plotly's objects: every property read or write through them parses a path, validates
# and copies, and ``prepare`` makes thousands of them (14-120 ms a figure through Plotly).
# Dicts are never changed in place below the level their owner copied: ``_merged``
# returns new dicts, so panels of one figure may share nested parts safely.


def _get(d, *path):
    """``d[a][b]...``, or None where a level is missing (as an unset Plotly property reads)."""
    for key in path:
        if not isinstance(d, dict):
            return None
        d = d.get(key)
    return d


def _apply(target: dict, changes: dict) -> None:
    """``obj.update(**changes)`` of Plotly on a dict: nested dicts are merged (into new
    dicts), None removes a key, and a missing level is created only to hold a value."""
    for key, value in changes.items():
        if isinstance(value, dict):
            sub = _merged(target.get(key), value)
            if sub or key in target:
                target[key] = sub
        elif value is None:
            target.pop(key, None)
        else:
            target[key] = value


def _merged(old: dict | None, changes: dict) -> dict:
    """A new dict: ``old`` with ``changes`` applied as :func:`_apply` does."""
    out = dict(old) if old else {}
    _apply(out, changes)
    return out


def _given(value) -> bool:
    """A text or template is set (a list or an array counts when it is not empty)."""
    if value is None:
        return False
    if isinstance(value, np.ndarray):
        return value.size > 0
    return bool(value)


def _size(existing, mode: int, present: bool, default: tuple[int, int] = TEXT) -> int:
    """A text's size in this mode: the builder's size on a desktop, at least the
    projector minimum (and scaled up with the rest) when presenting."""
    base = default[mode]
    if existing is None:
        return base
    if present:
        return max(PRESENT_MIN, round(existing * TEXT[1] / TEXT[0]), base if existing >= TEXT[0] else PRESENT_MIN)
    return int(existing)


def _font(font: dict | None, mode: int, present: bool, default=TEXT, *, colour: bool = True) -> dict:
    size = font.get("size") if isinstance(font, dict) else None
    out = dict(size=_size(size, mode, present, default))
    if colour:
        out["color"] = INK
    return out


def _axis_names(layout: dict, letter: str) -> list[str]:
    return [k for k in layout if k == f"{letter}axis" or k.startswith(f"{letter}axis")]


def _decade_ticks(spec: dict, axis_name: str) -> None:
    """On a log axis, label whole decades only (every k-th when there are many)."""
    layout = spec["layout"]
    axis = layout[axis_name]
    if axis.get("type") != "log":
        return
    letter, suffix = axis_name[0], axis_name[5:]
    ref = letter + suffix
    if axis.get("range") is not None:
        low, high = sorted(float(v) for v in axis["range"])
    else:
        values = []
        for trace in spec.get("data", ()):
            on = trace.get(f"{letter}axis")
            if on in (ref, None if suffix else ref, letter) or (not suffix and on is None):
                data = trace.get(letter)
                if data is not None:
                    arr = np.asarray(as_array(data), dtype=object)
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
        domain = axis.get("domain")
        height = (layout.get("height") or 450) * (domain[1] - domain[0] if domain else 1.0)
        room = max(2, int((height - 100) / (2.5 * (_get(axis, "tickfont", "size") or TEXT[0]))))
    step = max(1, math.ceil(decades / room))
    layout[axis_name] = _merged(axis, dict(dtick=step, minor=dict(showgrid=False), tickangle=0))


def _pastel(scale) -> list:
    """A Plotly colour scale blended PASTEL of the way towards white."""
    out = []
    for position, colour in pcolors.get_colorscale(scale) if isinstance(scale, str) else scale:
        rgb = pcolors.hex_to_rgb(colour) if str(colour).startswith("#") else pcolors.unlabel_rgb(colour)
        mixed = tuple(round(c + (255 - c) * PASTEL) for c in rgb[:3])
        out.append([position, pcolors.label_rgb(mixed)])
    return out


def _readable_cells(layout: dict, trace: dict, lightened: set[str]) -> None:
    """Black values on a lightened scale: at least 6:1 in every cell, in either theme.
    ``lightened`` names the colour axes done already (several traces may share one)."""
    _apply(trace, dict(textfont=dict(color=CELL_TEXT)))
    name = trace.get("coloraxis")
    if name:
        axis = layout.get(name) or {}
        if axis.get("colorscale") is not None and name not in lightened:
            lightened.add(name)
            layout[name] = dict(axis, colorscale=_pastel(axis["colorscale"]))
    elif trace.get("colorscale") is not None:
        trace["colorscale"] = _pastel(trace["colorscale"])


def _beside_plot(bar: dict) -> dict:
    """A vertical bar's title on top of it, and the bar at x = 1 unless placed."""
    # a title turned along a vertical bar ran past the right edge of a phone's chart;
    # at x = 1 (Plotly's default is 1.02 of the plot's width, 10 px pads) the room the bar
    # takes does not depend on the chart's width, so the server can give it (margins.py)
    if bar.get("orientation") != "h":
        return _merged(bar, dict(title=dict(side="top"), x=1.0 if bar.get("x") is None else bar["x"]))
    return bar


def _finished_bar(bar: dict | None, mode: int, present: bool) -> dict:
    bar = _merged(
        bar,
        dict(
            tickfont=_font(_get(bar, "tickfont"), mode, present),
            title=dict(font=_font(_get(bar, "title", "font"), mode, present)),
        ),
    )
    return _beside_plot(bar)


def _has_colour_bar(layout: dict, trace: dict) -> bool:
    """True when a colour bar stands beside the plot (not under it)."""
    axis = (layout.get(trace["coloraxis"]) or {}) if trace.get("coloraxis") else trace
    return axis.get("showscale") is not False and _get(axis, "colorbar", "orientation") != "h"


def _cell_text(layout: dict, trace: dict, present: bool, columns: int) -> None:
    """Print a small heatmap's values in its cells when they fit the cell (also for a
    builder's own ``texttemplate``, which is dropped when it would smear on a phone)."""
    if trace.get("z") is None:
        return
    z = np.asarray(as_array(trace["z"]), dtype=float)
    finite = z[np.isfinite(z)]
    template = trace.get("texttemplate")
    given = re.fullmatch(r"%\{z:([^}]*)\}", template or "")
    if template is not None and given is None:
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
    width -= 80 if _has_colour_bar(layout, trace) else 0
    cell = min(width / z.shape[1], (layout.get("height") or 450) * 0.8 / z.shape[0])
    size = math.floor(min(cell / (DIGIT_WIDTH * chars + 0.5), cell / 1.5, TEXT[1] + 4 if present else TEXT[0]))
    if size < (PRESENT_MIN if present else 9):
        trace.pop("texttemplate", None)
        return
    _apply(trace, dict(texttemplate=f"%{{z:{fmt}}}", textfont=dict(size=size)))


def _finish_spec(spec: dict, *, present: bool, columns: int = 1, share: float = 1.0) -> None:
    """:func:`finish` on a figure's dict spec. It sets keys of ``spec["layout"]`` and of
    each trace dict; the values it replaces are left unchanged (they may be shared)."""
    mode = 1 if present else 0
    layout = spec.setdefault("layout", {})
    data = spec.setdefault("data", [])
    title = _get(layout, "title", "text")
    meta = dict(layout["meta"]) if isinstance(layout.get("meta"), dict) else {}
    if title:
        meta["title"] = title
    top = _get(layout, "margin", "t")
    # meta is a value, not a Plotly object: replaced, never merged
    if meta:
        layout["meta"] = meta
    else:
        layout.pop("meta", None)
    _apply(
        layout,
        dict(
            title=dict(text=None),
            font=dict(size=TEXT[mode], color=INK),
            hoverlabel=dict(font=dict(size=TEXT[mode])),
            # the title's room is freed; a legend above the plot reserves its own
            margin=dict(t=max(12, (top if top is not None else 60) - 45) if title else top),
            legend=dict(
                font=_font(_get(layout, "legend", "font"), mode, present),
                title=dict(font=_font(None, mode, present)),
            ),
        ),
    )
    if any(t.get("type") == "bar" and t.get("text") is not None for t in data):
        # Plotly shrinks a value written on a bar to the bar's width: on a phone's narrow
        # bars it would be a 5 px smudge; hidden then (the hover and the CSV keep it)
        _apply(layout, dict(uniformtext=dict(minsize=PRESENT_MIN if present else 10, mode="hide")))
    if present and layout.get("height"):
        layout["height"] = int(layout["height"] * PRESENT_HEIGHT)
    for letter in "xy":
        for name in _axis_names(layout, letter):
            axis = layout[name]
            title = dict(font=_font(_get(axis, "title", "font"), mode, present, AXIS_TITLE))
            if _get(axis, "title", "text") == "":
                # an empty title still gets its room from Plotly (46 px beside a phone's
                # one-row heatmap); an unset one gets none
                title["text"] = None
            layout[name] = _merged(
                axis,
                dict(tickfont=_font(_get(axis, "tickfont"), mode, present), title=title, automargin=True),
            )
            _decade_ticks(spec, name)
            axis = layout[name]
            ticktext = axis.get("ticktext")
            superscripts = axis.get("type") == "log" or axis.get("exponentformat") == "power"
            superscripts = superscripts or any("<sup>" in str(t) for t in (() if ticktext is None else ticktext))
            if present and superscripts:
                # Plotly sets exponents at 70% of the tick size: they must reach the minimum too
                size = max(axis["tickfont"]["size"], math.ceil(PRESENT_MIN / SUPERSCRIPT))
                layout[name] = _merged(axis, dict(tickfont=dict(size=size)))
    for name in [k for k in layout if k.startswith("coloraxis")]:
        layout[name] = dict(layout[name] or {}, colorbar=_finished_bar(_get(layout, name, "colorbar"), mode, present))
    if layout.get("annotations"):
        notes = []
        for note in layout["annotations"]:
            y = note.get("y")
            on_paper = note.get("yref") == "paper" and y is not None
            is_panel_title = on_paper and y >= 1 and note.get("yanchor") == "bottom"
            size = PANEL_TITLE if is_panel_title else TEXT
            note = _merged(note, dict(font=_font(note.get("font"), mode, present, size)))
            if note.get("bgcolor") is not None:
                note["bgcolor"] = PAPER
            notes.append(note)
        layout["annotations"] = notes
    if layout.get("updatemenus"):
        layout["updatemenus"] = [
            _merged(menu, dict(font=_font(menu.get("font"), mode, present))) for menu in layout["updatemenus"]
        ]
    if layout.get("sliders"):
        layout["sliders"] = [
            _merged(
                slider,
                dict(
                    font=_font(slider.get("font"), mode, present),
                    currentvalue=dict(font=_font(_get(slider, "currentvalue", "font"), mode, present)),
                ),
            )
            for slider in layout["sliders"]
        ]
    lightened: set[str] = set()
    for trace in data:
        kind = trace.get("type", "scatter")
        props = plotly_private.trace_props(kind)
        if "colorbar" in props:
            trace["colorbar"] = _finished_bar(trace.get("colorbar"), mode, present)
        if kind == "heatmap":
            _cell_text(layout, trace, present, columns if present else 1)
            if trace.get("texttemplate") is not None:
                _readable_cells(layout, trace, lightened)
        elif "textfont" in props and (trace.get("text") is not None or _given(trace.get("texttemplate"))):
            trace["textfont"] = _merged(trace.get("textfont"), _font(trace.get("textfont"), mode, present))
    # last: the room depends on every font set above, and on the chart's width: its share of
    # a projector's or a desktop's main column (a phone's, where columns stack, is narrower)
    width = chart_width(present, columns, share)
    margins.reserve(spec, width=width, narrowest=width if present else min(PHONE_WIDTH, width))


def chart_width(present: bool, columns: int = 1, share: float = 1.0) -> float:
    """The width in px of one of ``columns`` charts side by side in a page column that is
    ``share`` of the main column (a lesson's own ``st.columns``: 0.5 for one of two), on a
    projector or on a desktop; Streamlit's gap stands between columns at either level."""
    outer, gap = (PRESENTER_WIDTH, PRESENTER_GAP) if present else (DESKTOP_WIDTH, COLUMN_GAP)
    room = share * (outer + gap) - gap
    columns = max(columns, 1)
    return (room - gap * (columns - 1)) / columns


def finish(fig: go.Figure, *, present: bool, columns: int = 1, share: float = 1.0) -> go.Figure:
    """Style ``fig`` in place for its room (see the module docstring) and return it.

    ``columns``: how many charts stand side by side with it (a panel of a split figure),
    for the room its heatmap cells have in presenter mode and the width its margins are
    estimated at (``margins.reserve``); ``share``: the part of the main column the page
    gives it (``chart_width``).
    """
    spec = fig.to_plotly_json()
    layout, traces = dict(spec.get("layout", {})), [dict(t) for t in spec.get("data", [])]
    _finish_spec(spec, present=present, columns=columns, share=share)
    # only what changed goes back through Plotly's (validating) objects; the trace
    # objects stay the same ones
    fig.layout.update(_changes(layout, spec["layout"]), overwrite=True)
    for trace, before, after in zip(fig.data, traces, spec["data"], strict=True):
        trace.update(_changes(before, after), overwrite=True)
    return fig


def _changes(before: dict, after: dict) -> dict:
    """The keys ``_finish_spec`` set (it makes a new value for every key it sets), and
    None for the keys it removed."""
    out = {k: v for k, v in after.items() if before.get(k) is not v}
    out.update({k: None for k in before if k not in after})
    return out


def _title_in(layout: dict) -> str:
    meta = layout.get("meta")
    return (meta or {}).get("title", "") if isinstance(meta, dict) else ""


def title_of(fig: go.Figure) -> str:
    """The title a finished figure carries for the page to print."""
    return _title_in({"meta": fig.layout.meta})


def spec_title(spec: dict) -> str:
    """``title_of`` for a finished figure's plain spec."""
    return _title_in(spec["layout"])


# multi-panel figures: one chart per panel


def _ref(axis_name: str) -> str:
    """'xaxis3' -> 'x3', 'xaxis' -> 'x'."""
    return axis_name[0] + axis_name[5:]


def _axis_name(ref: str) -> str:
    return f"{ref[0]}axis{ref[1:]}"


def _multi_panel(layout: dict, frames) -> bool:
    return len(_axis_names(layout, "x")) > 1 and not frames


def is_multi_panel(fig: go.Figure) -> bool:
    """More than one pair of data axes, and no animation (frames move every panel at once)."""
    return _multi_panel(fig.layout.to_plotly_json(), fig.frames)


def _inside(value, domain, slack: float = 0.0) -> bool:
    return value is not None and domain[0] - slack <= float(value) <= domain[1] + slack


#: the length of a colour bar laid under its panel
BAR_BELOW_PX = 160


def _bar_below(bar: dict | None) -> dict:
    """A colour bar laid flat along the bottom of its chart."""
    bar = dict(bar or {})
    title = dict(bar.get("title") or {})
    # under the labels: on top, a bar placed in the container's coordinates gets its title
    # drawn over the bar (Plotly.js's colorbar mixes plot and container units there)
    title["side"] = "bottom"
    bar.update(
        orientation="h",
        yref="container",
        y=0.0,
        yanchor="bottom",
        x=0.5,
        xanchor="center",
        # in pixels: a heatmap of square cells may be far narrower than its panel, and a bar
        # 0.9 of its width (45 px under ALiBi's panels) turned its labels on their side, into
        # each other; 160 px fits a phone's panel and a quarter of a laptop's column
        lenmode="pixels",
        len=BAR_BELOW_PX,
        thickness=14,
        title=title,
    )
    return bar


def split_panels(fig: go.Figure) -> list[list[go.Figure]]:
    """A multi-panel figure as rows of one-panel figures, each titled by its subplot title.

    Every panel keeps its traces, its axes (renamed to x and y, with the axis titles of
    its row and column), the annotations and shapes that belong to it, and the shared
    colour axes; the colour bar is laid flat under the last panel only. The overall title
    stays with the caller. A figure with one panel comes back as ``[[fig]]``.
    """
    if not is_multi_panel(fig):
        return [[fig]]
    # parts of a figure Plotly has validated already
    return [[plotly_private.figure_unvalidated(panel) for panel in row] for row in _split_spec(fig.to_plotly_json())]


def _split_spec(spec: dict) -> list[list[dict]]:
    """:func:`split_panels` on a dict spec: rows of panel specs (``[[spec]]`` for a figure
    of one panel). Panels share nested parts with ``spec`` and with each other."""
    layout = spec.get("layout", {})
    if not _multi_panel(layout, spec.get("frames")):
        return [[spec]]
    x_names = sorted(_axis_names(layout, "x"), key=lambda n: int(n[5:] or 1))
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
    rows: list[list[dict]] = [[] for _ in row_tops]
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
        traces = [dict(t) for t in spec.get("data", []) if t.get("xaxis", "x") == x_ref]
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
        for axis in (x_axis, y_axis):
            # make_subplots hides a shared axis's labels on all panels but one; a panel
            # drawn as a chart of its own needs them (its title alone reads nothing)
            if axis.get("matches") and axis.get("showticklabels") is False:
                axis.pop("showticklabels")
        x_axis = {k: v for k, v in x_axis.items() if k not in ("domain", "anchor", "matches")}
        y_axis = {k: v for k, v in y_axis.items() if k not in ("domain", "anchor", "matches")}
        if y_axis.get("scaleanchor"):
            y_axis["scaleanchor"] = "x"
        if x_axis.get("scaleanchor"):
            x_axis["scaleanchor"] = "y"
        # a panel stands alone on a phone: it names its own axes
        x_axis["title"] = dict(x_axis.get("title", {}))
        y_axis["title"] = dict(y_axis.get("title", {}))
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
            # under the panel, not beside it: the cells keep the full width of a phone (the
            # margin for it is margins.reserve's, when the panel is finished)
            for key in [k for k in panel_layout if k.startswith("coloraxis")]:
                panel_layout[key] = dict(panel_layout[key], colorbar=_bar_below(panel_layout[key].get("colorbar")))
            for t in traces:
                if t.get("type") == "heatmap" and not t.get("coloraxis") and t.get("showscale") is not False:
                    t["colorbar"] = _bar_below(t.get("colorbar"))
        if len(rows[row]) and "showlegend" not in shared:
            panel_layout["showlegend"] = False
        rows[row].append(dict(data=traces, layout=panel_layout))
    return rows


def prepare_specs(fig: go.Figure, *, present: bool, share: float = 1.0) -> tuple[str, list[list[dict]], list | None]:
    """``prepare`` as plain specs: the title, rows of one-panel ``{"data", "layout"}``
    dicts (new, the caller's own), and the animation's frames as ``fig`` holds them
    (Plotly frame objects, read-only) or ``None``. ``share``: the part of the main column
    the page gives the chart (``chart_width``).

    ``fig`` is not changed (it may be shared by every session).
    """
    # Plotly's to_dict would also deep-copy and convert the frames, which are dropped below
    data, layout = plotly_private.figure_parts(fig)
    spec = {"data": sendable(data), "layout": sendable(layout)}
    _plain_notation(spec)
    title = _get(spec, "layout", "title", "text") or ""
    rows = _split_spec(spec)
    for row in rows:
        for panel in row:
            _finish_spec(panel, present=present, columns=len(row), share=share)
            if len(rows) * len(row) > 1:
                # each panel knows the chart it belongs to (for tests and exports)
                panel["layout"]["meta"] = dict(panel["layout"].get("meta") or {}, chart_title=title)
        _level(row)
    if len(rows) == 1 and len(rows[0]) == 1:
        title = _title_in(rows[0][0]["layout"]) or title
    frames = list(plotly_private.frames_of(fig))  # only an animation has them, and it is one panel
    return title, rows, frames or None


def _level(row: list[dict]) -> None:
    """Panels side by side with plot areas of one height and cell numbers of one size: the
    panel that carries the row's colour bar under it (``_split_spec``) grows by the bar's
    room, instead of drawing its cells smaller than its neighbours' (ALiBi's and Compare's
    last panel was squashed)."""
    if len(row) < 2:
        return

    def sides(layout: dict) -> float:
        margin = layout.get("margin") or {}
        return sum(float(margin.get(s, margins.PLOTLY_MARGIN[s])) for s in "tb")

    heights = [float(p["layout"].get("height") or margins.PLOTLY_HEIGHT) for p in row]
    plot = max(h - sides(p["layout"]) for h, p in zip(heights, row, strict=True))
    for panel in row:
        panel["layout"]["height"] = int(round(plot + sides(panel["layout"])))
    # cell numbers of one size across the row: each panel sized its own to its widest number
    # (Relative's offsets -11 beside the clipped -3 drew 7 px beside 13 px)
    labelled = [
        t for p in row for t in p["data"] if t.get("type") == "heatmap" and _get(t, "textfont", "size") is not None
    ]
    if len(labelled) > 1:
        size = min(float(t["textfont"]["size"]) for t in labelled)
        for trace in labelled:
            trace["textfont"] = dict(trace["textfont"], size=size)


def _plain_notation(spec: dict) -> None:
    """The notation in a figure's words (``M_k``, ``θ_i``, ``q_{2i}``) as Unicode (``Mₖ``,
    ``θᵢ``, ``q₂ᵢ``): the app loads no MathJax, and Plotly shows TeX as it is typed. Titles,
    axis titles, notes, legend entries and colour-bar titles; ``spec`` is the caller's copy."""

    def fix(holder: dict, key: str) -> None:
        if isinstance(holder.get(key), str):
            holder[key] = notation.plain(holder[key], words=True)

    layout = spec["layout"]
    for name, value in layout.items():
        if name == "title" or re.fullmatch(r"[xy]axis\d*|legend|coloraxis\d*", name):
            box = value.get("colorbar", value) if name.startswith("coloraxis") else value
            title = box.get("title") if isinstance(box, dict) else None
            if isinstance(title, dict):
                fix(title, "text")
            elif name == "title" and isinstance(value, dict):
                fix(value, "text")
    for note in layout.get("annotations") or []:
        fix(note, "text")
    for trace in spec["data"]:
        fix(trace, "name")
        bar_title = (trace.get("colorbar") or {}).get("title")
        if isinstance(bar_title, dict):
            fix(bar_title, "text")


_LEAVES = (str, int, float, bool, type(None))
_BRANCHES = (dict, list, tuple)


def sendable(value):
    """A new copy of a figure's plain tree (dicts, lists, tuples) with the arrays Plotly
    encodes as base64 typed arrays encoded: what ``deepcopy`` then Plotly's
    own base64 conversion gives (``fig.to_dict()``), in one pass. That pair walks every value
    twice and copies each array before encoding it: 11% of a server's CPU with 200 students
    exploring (py-spy). ``value`` is not changed (it may be shared by every session). With a Plotly the tests
    do not cover, the arrays are copied, not encoded (``plotly_private.typed_array_spec``)."""
    if isinstance(value, dict):
        return {k: _sendable_entry(k, v) for k, v in value.items()}
    if isinstance(value, list):
        return [sendable(v) for v in value]
    if isinstance(value, tuple):
        return tuple(sendable(v) for v in value)
    return value if isinstance(value, _LEAVES) else deepcopy(value)


def _sendable_entry(key: str, value):
    # as Plotly's to_dict: only a dict's values are encoded, and nothing under its skipped keys
    if isinstance(value, _LEAVES):
        return value
    if plotly_private.skipped_key(key):
        return deepcopy(value)
    if isinstance(value, _BRANCHES):
        return sendable(value)
    if isinstance(value, np.ndarray) or plotly_private.homogeneous_array(value):
        return plotly_private.typed_array_spec(value)
    return deepcopy(value)


def prepare(fig: go.Figure, *, present: bool) -> tuple[str, list[list[go.Figure]]]:
    """What a page draws for ``fig``: its title, and rows of finished one-panel charts.

    ``fig`` is not changed (it may be shared by every session).
    """
    title, rows, frames = prepare_specs(fig, present=present)
    # parts of a figure Plotly has validated already
    charts = [[plotly_private.figure_unvalidated(panel) for panel in row] for row in rows]
    if frames and isinstance(frames[0], go.Frame):
        # an animation's frames are not restyled: its chart takes the frame objects of
        # ``fig`` (read-only, like ``fig``) rather than rebuild them through Plotly, which
        # costs 8-10 ms for the rotation's 64 frames even unvalidated
        plotly_private.set_frames(charts[0][0], frames)
    elif frames:
        charts[0][0].frames = frames
    return title, charts


_KINDS = {"heatmap": "heatmap", "scatter": "line chart", "bar": "bar chart"}


def describe(fig: go.Figure, title: str, panel: str = "") -> str:
    """One sentence for a screen reader: what kind of chart, of what, against what.

    The numbers themselves are in the chart's CSV download, right under it.
    """
    return describe_spec(fig.to_plotly_json(), title, panel)


def describe_spec(spec: dict, title: str, panel: str = "") -> str:
    """``describe`` of a figure's plain ``{"data", "layout"}`` spec."""
    traces = spec.get("data") or []
    kinds = sorted({_KINDS.get(t.get("type", "scatter"), t.get("type", "scatter")) for t in traces}) or ["chart"]
    x_title = _plain_text(_get(spec, "layout", "xaxis", "title", "text"))
    y_title = _plain_text(_get(spec, "layout", "yaxis", "title", "text"))
    what = _plain_text(title) + (f", panel {_plain_text(panel)}" if panel else "")
    axes = f" with {x_title} across and {y_title} down" if x_title and y_title else ""
    if "heatmap" not in kinds and x_title and y_title:
        axes = f" of {y_title} against {x_title}"
    names = [t["name"] for t in traces if t.get("name") and t.get("showlegend") is not False][:6]
    series = f"; series: {', '.join(_plain_text(n) for n in names)}" if len(names) > 1 else ""
    return f"{' and '.join(kinds).capitalize()}: {what}{axes}{series}. Its numbers are in the CSV download below."


def _plain_text(text) -> str:
    return re.sub(r"<[^>]+>", " ", str(text or "")).replace("  ", " ").strip()
