"""Room for the axes, colour bars and legends before Plotly draws, so that it draws a chart once.

Every axis has ``automargin`` (a tick label is never cut off). Plotly measures an axis's tick
labels and title only after it has drawn the chart, and when they need more room than
``layout.margin`` gave, it draws the whole chart again with the wider margin
(``Plots.doAutoMargin``). Streamlit mounts a new Plotly chart whenever a figure changes, so
a margin that is too small costs a second draw on every load and every slider move: in
Chromium, Plotly.js draws the ten charts of the compare page in 226 ms with the margins it
must widen, and in 91 ms with margins that already fit.

:func:`reserve` estimates the room Plotly's automargin will ask for: from the tick labels it
will write (given ones, categories, or the ones its automatic ticks choose for the axis's
range), the tick font, the ticks and the axis title; a heatmap's first and last row labels,
which stick out above and below the plot when their row is thin; the colour bars
(:func:`bar_room`); and a legend above, below or beside the plot (:func:`legend_room`). It
widens the margin on each side to that. Automargin stays on: where the estimate falls short,
Plotly still widens the margin and draws the chart twice. That is where the chart's width in the
browser decides, which the server does not know: long category labels that a phone's narrow
chart turns, and a legend that wraps onto more rows than on a desktop's or a projector's
column (a phone, or a chart that a lesson puts in a column of its own).

The constants were measured in Chromium on Streamlit 1.67's chart theme, which sets the axis
title's standoff (24 px on y, 20 px on x). Text widths are Arial's advance widths (Helvetica
and Liberation Sans have the same), the font the theme's list (Inter, Source Sans Pro,
Helvetica, Arial) falls back to when Inter is not installed; ``WIDTH_SLACK`` covers Inter,
which is about a tenth wider.
"""

from __future__ import annotations

import math
import re

import numpy as np

from posenc_lab.figures.arrays import as_array

#: advance width of a character as a share of the font size (Arial's metrics)
CHAR_WIDTH = {
    **dict.fromkeys("0123456789", 0.556),
    **dict.fromkeys(".,:;/'|!il", 0.278),
    **dict.fromkeys("ftIj", 0.278),
    **dict.fromkeys("-()r", 0.333),
    **dict.fromkeys("−+=×<>≤≥~", 0.584),
    **dict.fromkeys("%", 0.889),
    **dict.fromkeys("mMW", 0.833),
    **dict.fromkeys("w", 0.722),
    " ": 0.278,
    "\u200b": 0.0,
}
#: any other character: the width of a wide lower-case letter
OTHER_WIDTH = 0.6
#: estimated widths are this much wider than Arial's: Inter, where installed, is wider
WIDTH_SLACK = 1.12
#: superscripts (<sup>) are drawn at this share of the font size
SUPERSCRIPT = 0.7
#: pixels added to every estimate (rounding, a label a pixel wider than its advance)
PAD_PX = 2.0
#: the gap between the plot and the nearest tick label, as a share of the tick font: a y
#: label's width side and an x label's height side (measured: 8.8 px at 14 px, 12 at 20)
Y_LABEL_GAP = 0.63
X_LABEL_GAP = 0.72
#: an x tick label's line height, as a share of its font size (16 px at 14 px)
LINE_HEIGHT = 1.15
#: ticks drawn outside add their length and this share of the tick font
TICK_GAP = 0.2
#: an axis title needs its standoff (the theme's unless the figure sets one) and this many
#: times its font size (measured: 46 px for a 14 px y title, 58 px for 21 px)
TITLE_DEPTH = 1.65
THEME_STANDOFF = {"x": 20.0, "y": 24.0}
#: ``Plots.autoMargin`` adds this pad to every push (12 px, or the smallest margin if less)
PUSH_PAD = 12.0
#: Plotly's automargin adds it to an untitled axis's labels (a titled axis has it inside
#: ``TITLE_DEPTH``; measured: 73 px beside a 44.6 px label)
UNTITLED_PAD = PUSH_PAD
#: a colour bar's defaults: Plotly's for a trace's bar (a 30 px bar, 10 px pads, a 1 px
#: outline), and the ones Streamlit's chart theme sets for a colour axis's bar (a 16 px bar,
#: 24 px pads across it, an 8 px transparent outline; read off the theme's template in Chromium)
TRACE_BAR = {"thickness": 30.0, "xpad": 10.0, "ypad": 10.0, "outlinewidth": 1.0, "borderwidth": 0.0, "len": 1.0}
THEME_BAR = {"thickness": 16.0, "xpad": 24.0, "ypad": 10.0, "outlinewidth": 8.0, "borderwidth": 0.0, "len": 0.75}
#: Plotly's legend (``legend/constants``): an entry's symbol and the gaps around it take 40 px
#: before its name, entries stand 5 px apart and 5 px inside the legend's edges, and a row is
#: the name's lines (1.3 times the font size each, at least 16 px) and 3 px
LEGEND_SYMBOL = 40.0
LEGEND_GAP = 5.0
LEGEND_LINE = 1.3
LEGEND_MIN_ROW = 16.0
LEGEND_ROW_PAD = 3.0
LEGEND_GROUP_GAP = 10.0
#: Plotly turns a flat bar's labels when neighbours would overlap: by 30 degrees when they are
#: this far apart for their font (``autotickangles``: cos 30 <= d / hypot(d, 1.25 size)), by 90 below
TURN_30 = 1.25 * math.sqrt(3)
#: what a title under a flat bar's labels adds to the room a title on top takes (px), by
#: whether Plotly turned the labels
UNDER_TITLE_GAP = {False: 12.0, True: 8.0}
#: an automatic range is taken this much wider at each end than the data (Plotly pads by
#: 5%, and by the marker size on top for markers: a tick past the data may get a label)
AUTORANGE_PAD = 0.1
#: Plotly's default margins (left, right, top, bottom) and figure height
PLOTLY_MARGIN = {"l": 80, "r": 80, "t": 100, "b": 80}
PLOTLY_HEIGHT = 450
#: Plotly's SI suffixes for exponentformat "B" (its default)
SI = {-15: "f", -12: "p", -9: "n", -6: "μ", -3: "m", 0: "", 3: "k", 6: "M", 9: "B", 12: "T"}

#: trace types whose axes get outside ticks by default (Plotly's "2dMap" traces)
HEATMAPS = ("heatmap", "contour", "histogram2d", "histogram2dcontour")

_TAG = re.compile(r"<[^>]*>")
_SUP = re.compile(r"<sup>(.*?)</sup>", re.IGNORECASE | re.DOTALL)


def text_width(text: str, size: float) -> float:
    """Width in px of ``text`` at font ``size`` (<sup> parts smaller, other tags dropped, the
    widest line of several)."""
    widest = 0.0
    for line in re.split(r"<br\s*/?>", str(text), flags=re.IGNORECASE):
        width, at = 0.0, 0
        for sup in _SUP.finditer(line):
            width += _plain_width(line[at : sup.start()], size) + _plain_width(sup.group(1), size * SUPERSCRIPT)
            at = sup.end()
        widest = max(widest, width + _plain_width(line[at:], size))
    return widest * WIDTH_SLACK


def _plain_width(text: str, size: float) -> float:
    return sum(CHAR_WIDTH.get(c, OTHER_WIDTH) for c in _TAG.sub("", text)) * size


def number_label(value: float, decimals: int, exponent: int) -> str:
    """How Plotly writes a linear axis's tick ``value``: ``decimals`` digits after the point
    with trailing zeros dropped, an SI suffix for ``exponent``, a true minus sign."""
    scaled = value / 10.0**exponent
    text = f"{abs(scaled):.{max(decimals, 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    sign = "−" if scaled < 0 and text.strip("0.") else ""
    return sign + text + SI.get(exponent, f"×10^{exponent}")


def tick_values(low: float, high: float, length_px: float, letter: str) -> tuple[list[float], float]:
    """(values, dtick): where Plotly's automatic ticks fall on a linear axis from ``low`` to
    ``high`` that is ``length_px`` long (``Axes.calcTicks`` and ``autoTicks``: about one tick per
    40 px on y and 80 px on x, 4 to 9 of them, every 1, 2 or 5 times a power of ten)."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [], 0.0
    count = min(max(length_px / (40 if letter == "y" else 80), 4), 9) + 1
    rough = (high - low) / count
    base = 10.0 ** math.floor(math.log10(rough))
    dtick = base * next(m for m in (2, 5, 10) if m >= rough / base - 1e-9)
    first, last = math.ceil(low / dtick - 1e-9), math.floor(high / dtick + 1e-9)
    return [k * dtick for k in range(first, last + 1)][:40], dtick


def linear_labels(low: float, high: float, length_px: float, letter: str, tickformat: str | None = None) -> list[str]:
    """The tick labels Plotly's automatic ticks write on a linear axis from ``low`` to ``high``
    that is ``length_px`` long (see :func:`tick_values`)."""
    return _linear_ticks(low, high, length_px, letter, tickformat)[0]


def _linear_ticks(
    low: float, high: float, length_px: float, letter: str, tickformat: str | None = None
) -> tuple[list[str], list[float], float]:
    """(labels, values, dtick) of :func:`linear_labels`."""
    values, dtick = tick_values(low, high, length_px, letter)
    if not values:
        return [], [], 0.0
    if tickformat and tickformat.endswith("%"):
        digits = int(re.sub(r"\D", "", tickformat) or 0)
        return [f"{v * 100:.{digits}f}%".replace("-", "−") for v in values], values, dtick
    biggest = max(abs(low), abs(high))
    range_exp = math.floor(math.log10(biggest) + 0.01) if biggest > 0 else 0
    exponent = 3 * round((range_exp - 1) / 3) if abs(range_exp) > 3 else 0
    decimals = exponent - math.floor(math.log10(dtick) + 0.01)
    return [number_label(v, decimals, exponent) for v in values], values, dtick


def log_labels(low: float, high: float, dtick, power: bool) -> list[str]:
    """Labels of a log axis over decades ``low`` to ``high`` (log10 units): 10 with a
    superscript exponent (``exponentformat="power"``) or the number itself, SI-suffixed."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return []
    step = int(dtick) if isinstance(dtick, (int, float)) and dtick >= 1 else 1
    decades = range(math.ceil(low - 1e-9), math.floor(high + 1e-9) + 1, step)
    out = []
    for k in list(decades)[:40]:
        if power:
            out.append("10<sup>" + str(k).replace("-", "−") + "</sup>")
        else:
            exponent = 3 * math.floor(k / 3) if abs(k) > 3 else 0
            out.append(number_label(10.0**k, max(0, exponent - k), exponent))
    return out


def _on_axis(trace: dict, letter: str, ref: str) -> bool:
    on = trace.get(f"{letter}axis") or letter
    return on == ref


def _coordinates(trace: dict, letter: str):
    """A trace's coordinates along ``letter`` as an array, or None."""
    values = trace.get(letter)
    if values is None and trace.get("type") == "heatmap" and trace.get("z") is not None:
        z = as_array(trace["z"])
        if z.ndim == 2:
            values = np.arange(z.shape[0] if letter == "y" else z.shape[1])
    if values is None:
        return None
    return as_array(values)


def _axis_labels(layout: dict, data: list[dict], name: str, length_px: float) -> list[str]:
    """What Plotly will write along axis ``name`` (``xaxis``, ``yaxis2``, ...)."""
    return _axis_ticks(layout, data, name, length_px)[0]


def _axis_ticks(layout: dict, data: list[dict], name: str, length_px: float) -> tuple[list[str], list[float] | None]:
    """(labels, where): what Plotly will write along axis ``name``, and where each label
    stands as a share of the axis from its low end, when the range is known exactly (a
    heatmap's cells or a given range; ``None`` for an automatic range, which Plotly pads)."""
    axis = layout.get(name) or {}
    letter, ref = name[0], name[0] + name[5:]
    traces = [t for t in data if _on_axis(t, letter, ref)]
    heatmap = any(t.get("type") == "heatmap" for t in traces)
    columns = [c for c in (_coordinates(t, letter) for t in traces) if c is not None and c.size]
    texts = [c for c in columns if c.dtype.kind in "OUS"]
    numbers = [c.astype(float).ravel() for c in columns if c.dtype.kind in "iufb"]
    numbers = [c[np.isfinite(c)] for c in numbers]
    numbers = [c for c in numbers if c.size]
    given = axis.get("range")
    auto = axis.get("autorange")
    exact = None  # (low, high) when Plotly's range is known to the cell
    if given is not None and auto in (None, False) and all(v is not None for v in given) and not texts:
        exact = tuple(sorted(float(v) for v in given))
    elif heatmap and numbers and not texts:
        low = min(float(c.min()) for c in numbers)
        high = max(float(c.max()) for c in numbers)
        cells = [np.diff(np.unique(c)) for c in numbers if c.size > 1]
        half = 0.5 * min((float(d.min()) for d in cells if d.size), default=1.0)
        exact = (low - half, high + half)

    def where(values) -> list[float] | None:
        if exact is None or axis.get("type") == "log" or exact[1] <= exact[0]:
            return None
        return [(float(v) - exact[0]) / (exact[1] - exact[0]) for v in values]

    if axis.get("ticktext") is not None:
        labels = [str(t) for t in as_array(axis["ticktext"]).ravel()]
        values = axis.get("tickvals")
        if values is None:
            return labels, None
        values = np.asarray(as_array(values), dtype=float).ravel()
        return labels, where(values) if values.size == len(labels) else None
    if axis.get("tickvals") is not None and axis.get("type") != "log":
        values = np.asarray(as_array(axis["tickvals"]), dtype=float).ravel()
        if values.size:
            step = float(np.min(np.diff(np.unique(values)))) if values.size > 1 else 1.0
            decimals = max(0, -math.floor(math.log10(step) + 0.01)) if step > 0 else 0
            return [number_label(float(v), decimals, 0) for v in values], where(values)
    if axis.get("type") == "category" or texts:
        labels = sorted({str(v) for c in texts for v in c.ravel()})[:200]
        # a heatmap's categories stand in the middle of their cells
        return labels, [(i + 0.5) / len(labels) for i in range(len(labels))] if heatmap and labels else None
    if exact is not None:
        low, high = exact
        padded = False
    elif numbers:
        low = min(float(c.min()) for c in numbers)
        high = max(float(c.max()) for c in numbers)
        padded = True
        if any(t.get("type") == "bar" for t in traces) or axis.get("rangemode") == "tozero":
            low, high = min(low, 0.0), max(high, 0.0)
    else:
        return [], None
    if axis.get("type") == "log":
        if given is None or auto not in (None, False):
            positive = [c[c > 0] for c in numbers]
            positive = [c for c in positive if c.size]
            if not positive:
                return [], None
            low = math.log10(min(float(c.min()) for c in positive))
            high = math.log10(max(float(c.max()) for c in positive))
        return log_labels(low, high, axis.get("dtick"), axis.get("exponentformat") == "power"), None
    if padded and high > low:
        # Plotly pads an automatic range at each end: about 5% for lines, more for markers
        pad = AUTORANGE_PAD * (high - low)
        low, high = low - pad, high + pad
    elif low == high:
        low, high = low - 1.0, high + 1.0
    labels, values, _ = _linear_ticks(low, high, length_px, letter, axis.get("tickformat"))
    return labels, where(values)


def _title(axis: dict) -> tuple[bool, float]:
    """(has a title, its font size). Plotly makes room for any title text the figure sets,
    an empty one too; only an unset title (its placeholder) takes none."""
    title = axis.get("title")
    if not isinstance(title, dict):
        return title is not None, 14.0
    return title.get("text") is not None, float((title.get("font") or {}).get("size") or 14)


def _ticks(layout: dict, data: list[dict], name: str) -> str:
    """The axis's ``ticks``: Plotly draws them outside by default on the axes of a heatmap."""
    given = (layout.get(name) or {}).get("ticks")
    if given is not None:
        return given
    letter, ref = name[0], name[0] + name[5:]
    heatmap = any(t.get("type") in HEATMAPS for t in data if _on_axis(t, letter, ref))
    return "outside" if heatmap else ""


def axis_room(layout: dict, data: list[dict], name: str, length_px: float) -> tuple[str, float]:
    """(side, px): the margin axis ``name`` asks Plotly's automargin for on its side."""
    return _axis_rooms(layout, data, name, length_px)[0]


def _axis_rooms(layout: dict, data: list[dict], name: str, length_px: float) -> list[tuple[str, float]]:
    """The room axis ``name`` asks for: on its side, and for an x axis with numbers, half
    its widest label on the right (a label on the range's last tick sticks out of the plot)."""
    axis = layout.get(name) or {}
    letter = name[0]
    side = {"left": "l", "right": "r", "top": "t", "bottom": "b"}[
        axis.get("side") or ("left" if letter == "y" else "bottom")
    ]
    tick = float((axis.get("tickfont") or {}).get("size") or 12)
    room, overhang, ends = 0.0, 0.0, []
    if axis.get("showticklabels", True) is not False:
        labels, where = _axis_ticks(layout, data, name, length_px)
        if letter == "y" and where and length_px > 0 and (axis.get("domain") or (0, 1))[1] >= 0.999:
            ends = _label_ends(axis, where, 0.5 * LINE_HEIGHT * tick, length_px)
        if labels:
            numeric = all(re.fullmatch(r"[−\d.%kMμmBT]+", t) for t in labels)
            if letter == "x" and numeric:
                overhang = 0.5 * max(text_width(t, tick) for t in labels) + PAD_PX
            if letter == "y":
                room = max(text_width(t, tick) for t in labels) + Y_LABEL_GAP * tick
            else:
                superscript = any("<sup>" in t for t in labels)
                room = LINE_HEIGHT * tick * (1.3 if superscript else 1.0) + X_LABEL_GAP * tick
            if _ticks(layout, data, name) == "outside":
                room += float(axis.get("ticklen", 5)) + TICK_GAP * tick
    titled, size = _title(axis)
    if titled:
        standoff = (axis.get("title") or {}).get("standoff")
        room += float(standoff if standoff is not None else THEME_STANDOFF[letter]) + TITLE_DEPTH * size
    elif room:
        room += UNTITLED_PAD
    return [(side, room + PAD_PX if room else 0.0), ("r", overhang), *ends]


def _label_ends(axis: dict, where: list[float], half: float, length_px: float) -> list[tuple[str, float]]:
    """The room a y axis's first and last labels ask for above and below the plot: a label
    is centred on its tick, so one within ``half`` its height of an end sticks out (a
    heatmap's first row is half a cell from the edge)."""
    given = axis.get("range")
    flipped = axis.get("autorange") == "reversed" or (
        given is not None
        and axis.get("autorange") in (None, False)
        and all(v is not None for v in given)
        and float(given[0]) > float(given[1])
    )
    shown = [f for f in where if -1e-9 <= f <= 1 + 1e-9]
    if not shown:
        return []
    low_gap, high_gap = min(shown) * length_px, (1 - max(shown)) * length_px
    gaps = {"t": low_gap if flipped else high_gap, "b": high_gap if flipped else low_gap}
    return [(side, half - gap + PUSH_PAD + PAD_PX) for side, gap in gaps.items() if gap < half]


def _z_range(traces: list[dict], given: tuple, middle) -> tuple[float, float] | None:
    """The colour scale's range: ``given`` (min, max) when both are set, else the traces' z,
    made symmetric about ``middle`` when that is set (as Plotly does)."""
    if all(v is not None for v in given):
        return float(given[0]), float(given[1])
    values = [np.asarray(as_array(t["z"]), dtype=float).ravel() for t in traces if t.get("z") is not None]
    values = [v[np.isfinite(v)] for v in values]
    values = [v for v in values if v.size]
    if not values:
        return None
    low = float(given[0]) if given[0] is not None else min(float(v.min()) for v in values)
    high = float(given[1]) if given[1] is not None else max(float(v.max()) for v in values)
    if middle is not None:
        reach = max(abs(high - float(middle)), abs(low - float(middle)))
        low, high = float(middle) - reach, float(middle) + reach
    return low, high


def _colour_bars(layout: dict, data: list[dict]) -> list[tuple[dict, dict, tuple[float, float]]]:
    """(bar, defaults, (low, high)) for each colour bar Plotly draws: a used colour axis's
    and each heatmap's own."""
    bars = []
    for name in [k for k in layout if re.fullmatch(r"coloraxis\d*", k) and isinstance(layout[k], dict)]:
        axis = layout[name]
        traces = [t for t in data if t.get("coloraxis") == name]
        if not traces or axis.get("showscale") is False:
            continue
        given = (None, None) if axis.get("cauto") else (axis.get("cmin"), axis.get("cmax"))
        span = _z_range(traces, given, axis.get("cmid"))
        if span is not None:
            bars.append((axis.get("colorbar") or {}, THEME_BAR, span))
    for trace in data:
        if trace.get("type") not in HEATMAPS or trace.get("coloraxis") or trace.get("showscale") is False:
            continue
        given = (None, None) if trace.get("zauto") else (trace.get("zmin"), trace.get("zmax"))
        span = _z_range([trace], given, trace.get("zmid"))
        if span is not None:
            bars.append((trace.get("colorbar") or {}, TRACE_BAR, span))
    return bars


def _bar_labels(bar: dict, span: tuple[float, float], length_px: float, letter: str) -> tuple[list[str], float]:
    """(labels, px between neighbours) on a colour bar ``length_px`` long."""
    if bar.get("ticktext") is not None:
        labels = [str(t) for t in as_array(bar["ticktext"]).ravel()]
        return labels, length_px / max(len(labels) - 1, 1)
    low, high = span
    if high <= low:
        low, high = low - 1.0, high + 1.0
    labels, _, dtick = _linear_ticks(low, high, length_px, letter, bar.get("tickformat"))
    return labels, length_px * dtick / (high - low)


def bar_room(
    bar: dict, defaults: dict, span: tuple[float, float], plot_height: float, plot_width: float | None
) -> tuple[str, float, bool] | None:
    """(side, px, reserved): the room a colour bar takes. A bar beside the plot at x = 1
    pushes the right margin to its width and the pad (``reserved`` False); a flat bar placed
    in the container's coordinates reserves its height, which Plotly adds to what the axes
    push on that side (``Plots.doAutoMargin``). ``plot_width`` is the narrowest plot the bar
    may stand under, for its labels, which Plotly turns when they overlap (None: not turned).
    None for a bar placed where this does not know its room."""
    opt = {k: float(bar[k]) if bar.get(k) is not None else v for k, v in defaults.items()}
    tick = float((bar.get("tickfont") or {}).get("size") or 12)
    title = bar.get("title") or {}
    titled = title.get("text") not in (None, "")
    title_size = float((title.get("font") or {}).get("size") or 14)
    ticklen = float(bar.get("ticklen", 5)) if bar.get("ticks") == "outside" else 0.0
    line = LINE_HEIGHT * tick
    if bar.get("orientation") == "h":
        if bar.get("yref") != "container" or bar.get("xref", "paper") != "paper":
            return None
        labels, height, overlap = [], line, False
        if plot_width is not None:
            along = opt["len"] if bar.get("lenmode") == "pixels" else opt["len"] * plot_width
            length = along - 2 * opt["xpad"]
            labels, spacing = _bar_labels(bar, span, length, "x")
            widths = [text_width(t, tick) for t in labels]
            overlap = any((a + b) / 2 + 2 > spacing for a, b in zip(widths, widths[1:], strict=False))
            if overlap and spacing >= TURN_30 * tick:
                height = max(0.5 * w + 0.87 * line for w in widths)
            elif overlap:
                height = max(widths)
        if titled and title.get("side") == "bottom":
            # a title under the labels keeps a gap to them, or is moved just clear of labels
            # Plotly turned, which stand further from the bar (Chromium, 14 px text)
            height += UNDER_TITLE_GAP[overlap]
        depth = 2 * opt["ypad"] + opt["thickness"] + opt["outlinewidth"] + opt["borderwidth"]
        stacked = titled and title.get("side", "top") in ("top", "bottom")  # a title on the right adds no height
        depth += height + ticklen + (LINE_HEIGHT * title_size if stacked else 0)
        return ("b" if float(bar.get("y", 0)) < 0.5 else "t"), depth + PAD_PX, True
    x = float(bar["x"]) if bar.get("x") is not None else 1.02
    if bar.get("xref", "paper") != "paper" or bar.get("xanchor", "left") != "left" or x < 1:
        return None
    length = opt["len"] * plot_height - 2 * opt["ypad"] - (LINE_HEIGHT * title_size if titled else 0)
    labels, _ = _bar_labels(bar, span, max(length, 40.0), "y")
    widest = max((text_width(t, tick) for t in labels), default=0.0)
    across = opt["thickness"] + opt["outlinewidth"] / 2 + ticklen + widest
    if titled and title.get("side", "top") == "top":
        across = max(across, text_width(title["text"], title_size))
    elif titled:
        across += LINE_HEIGHT * title_size
    width = 2 * opt["xpad"] + across + opt["outlinewidth"] / 2 + opt["borderwidth"]
    # past x = 1 the margin also holds (x - 1) of the plot's width, which the server does not know
    return "r", width + PUSH_PAD + PAD_PX, False


def _legend_groups(layout: dict, data: list[dict]) -> list[list[str]] | None:
    """The names Plotly's legend lists, in its groups (each trace its own group unless the
    legend groups them: its entries then stand in a column), or None when it draws none."""
    entries = []
    for i, trace in enumerate(data):
        shown = trace.get("showlegend")
        if trace.get("visible") is False or shown is False or (shown is None and trace.get("type") in HEATMAPS):
            continue
        name = str(trace.get("name") if trace.get("name") is not None else f"trace {i}")
        entries.append((trace.get("legendgroup") or f"~{i}", name))
    show = layout.get("showlegend")
    if show is False or not entries or (show is None and len(entries) < 2):
        return None
    order = (layout.get("legend") or {}).get("traceorder")
    grouped = "grouped" in order if order else any(not key.startswith("~") for key, _ in entries)
    if not grouped:
        return [[name] for _, name in entries]
    groups: dict[str, list[str]] = {}
    for key, name in entries:
        groups.setdefault(key, []).append(name)
    return list(groups.values())


def legend_room(
    layout: dict, data: list[dict], plot_width: float | None, height: float, margin: dict
) -> tuple[str, float] | None:
    """(side, px): the margin a legend beside the plot pushes (``legend/draw.js``): one laid
    flat above or below the plot, its entries in rows as wide as the plot (``plot_width``;
    None: one row), or one standing at x = 1 to the right of it. None for other places."""
    groups = _legend_groups(layout, data)
    legend = layout.get("legend") or {}
    if groups is None or legend.get("xref", "paper") != "paper" or legend.get("yref", "paper") != "paper":
        return None
    size = float((legend.get("font") or {}).get("size") or (layout.get("font") or {}).get("size") or 12)
    names = [n for group in groups for n in group]

    def row(name: str) -> float:
        lines = len(re.split(r"<br\s*/?>", name, flags=re.IGNORECASE))
        return max(LEGEND_LINE * size * lines, LEGEND_MIN_ROW) + LEGEND_ROW_PAD

    if legend.get("orientation", "v") == "h":
        widths = [max(LEGEND_SYMBOL + text_width(n, size) for n in group) for group in groups]
        depths = [sum(row(n) for n in group) for group in groups]
        if len(groups) < len(names):
            # grouped: each group a column of its entries, groups side by side, wrapping onto
            # rows 10 px apart (``tracegroupgap``)
            rows, at, deepest = [], 0.0, 0.0
            for width, depth in zip(widths, depths, strict=True):
                if at > 0 and plot_width is not None and at + width + LEGEND_GAP > plot_width:
                    rows.append(deepest)
                    at, deepest = 0.0, 0.0
                at += width + LEGEND_GAP
                deepest = max(deepest, depth)
            depth = sum(rows) + deepest + LEGEND_GROUP_GAP * len(rows)
        else:
            count = 1
            if plot_width is not None and sum(widths) + LEGEND_GAP * (len(widths) - 1) >= plot_width:
                # entries wrap into columns as wide as the widest
                widest = max(widths)
                per_row = max(1, math.floor((plot_width - widest) / (widest + LEGEND_GAP) - 1e-9) + 1)
                count = math.ceil(len(names) / per_row)
            depth = count * max(depths)
        depth = math.ceil(depth + 2 * LEGEND_GAP) + PUSH_PAD
        y, anchor = legend.get("y"), legend.get("yanchor")
        if y is None:
            return None
        y = float(y)
        if anchor == "bottom" and y >= 1:
            # the legend stands (y - 1) of the plot's height above it
            return "t", (depth + (y - 1) * (height - margin["b"])) / y + PAD_PX
        if anchor == "top" and y <= 0:
            return "b", (depth - y * (height - margin["t"])) / (1 - y) + PAD_PX
        return None
    x = legend.get("x")
    if x is None or float(x) != 1.0 or legend.get("xanchor") != "left":
        return None
    # Arial's widths without the slack for Inter: the room comes out of the plot's width, and
    # on a phone a few px too many squeeze it (a short estimate costs a second draw instead)
    widest = max(LEGEND_SYMBOL + text_width(n, size) / WIDTH_SLACK for n in names)
    return "r", math.ceil(widest + LEGEND_GAP + 2 * (legend.get("borderwidth") or 0)) + PUSH_PAD + PAD_PX


def reserve(spec: dict, width: float | None = None, narrowest: float | None = None) -> None:
    """Widen ``spec["layout"]["margin"]`` (a new dict) on each side to what its axes' automargin,
    its colour bars and its legend will ask for, so that Plotly's first draw is its last.
    Margins are only ever widened. ``width``: the chart's width in px on a desktop or a
    projector, for the rows a legend wraps into (None: one row); ``narrowest``: the narrowest
    it may be drawn, for a flat colour bar's labels (None: ``width``; both None: they are taken
    to fit side by side)."""
    layout = spec.get("layout") or {}
    data = spec.get("data") or []
    names = [k for k in layout if re.fullmatch(r"[xy]axis\d*", k) and isinstance(layout[k], dict)]
    if not names:
        return
    margin = dict(layout.get("margin") or {})
    current = {s: float(margin[s]) if margin.get(s) is not None else float(PLOTLY_MARGIN[s]) for s in "lrtb"}
    height = float(layout.get("height") or PLOTLY_HEIGHT)
    plot_height = max(height - current["t"] - current["b"], 40.0)
    rooms: dict[str, float] = {}
    for name in names:
        axis = layout[name]
        if axis.get("visible") is False or axis.get("automargin") is False or axis.get("overlaying"):
            continue
        domain = axis.get("domain") or (0.0, 1.0)
        length = plot_height * (domain[1] - domain[0]) if name[0] == "y" else 0.0
        for side, room in _axis_rooms(layout, data, name, length):
            rooms[side] = max(rooms.get(side, 0.0), room)
    sides = {s: max(current[s], rooms.get(s, 0.0)) for s in "lrtb"}

    def plot_width(chart: float | None) -> float | None:
        return None if chart is None else max(chart - sides["l"] - sides["r"], 40.0)

    legend = legend_room(layout, data, plot_width(width), height, sides)
    if legend is not None:
        rooms[legend[0]] = max(rooms.get(legend[0], 0.0), legend[1])
    held: dict[str, float] = {}
    for bar, defaults, span in _colour_bars(layout, data):
        room = bar_room(bar, defaults, span, plot_height, plot_width(width if narrowest is None else narrowest))
        if room is None:
            continue
        side, px, reserved = room
        if reserved:
            held[side] = max(held.get(side, 0.0), px)
        else:
            rooms[side] = max(rooms.get(side, 0.0), px)
    for side, px in held.items():
        # Plotly keeps a reserved room clear of every push on that side
        rooms[side] = rooms.get(side, 0.0) + px
    wider = {side: math.ceil(room) for side, room in rooms.items() if room > current[side] + 1}
    if wider:
        layout["margin"] = {**margin, **wider}
