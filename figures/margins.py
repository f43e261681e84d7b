"""Room for the axes before Plotly draws, so that it draws a chart once, not twice.

Every axis has ``automargin`` (a tick label is never cut off). Plotly measures an axis's tick
labels and title only after it has drawn the chart, and when they need more room than
``layout.margin`` gave, it draws the whole chart again with the wider margin
(``Plots.doAutoMargin``). Streamlit mounts a new Plotly chart whenever a figure changes, so
every chart was drawn twice on every load and every slider move: in Chromium, Plotly.js drew
the ten charts of the compare page in 226 ms as they were sent, and in 91 ms with margins that
already fitted (benchmarks/README.md, seventh round).

:func:`reserve` estimates the room Plotly's automargin will ask for: from the tick labels it
will write (given ones, categories, or the ones its automatic ticks choose for the axis's
range), the tick font, the ticks and the axis title. It widens the margin on the axis's side
to that. Automargin stays on: where the estimate falls short (long category labels that a
phone's narrow chart turns, a font wider than expected), Plotly still widens the margin, at
the old cost. Colour bars are not estimated yet: a bar beside the plot or under it still
widens its margin after the first draw (24 of the 25 charts with one, benchmarks/README.md).

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

from .export import _array

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
#: Plotly's automargin adds this to an untitled axis's labels (``Plots.autoMargin``'s pad;
#: a titled axis has it inside ``TITLE_DEPTH``; measured: 73 px beside a 44.6 px label)
UNTITLED_PAD = 12.0
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


def linear_labels(low: float, high: float, length_px: float, letter: str, tickformat: str | None = None) -> list[str]:
    """The tick labels Plotly's automatic ticks write on a linear axis from ``low`` to ``high``
    that is ``length_px`` long (``Axes.calcTicks`` and ``autoTicks``: about one tick per 40 px on
    y and 80 px on x, 4 to 9 of them, every 1, 2 or 5 times a power of ten)."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return []
    count = min(max(length_px / (40 if letter == "y" else 80), 4), 9) + 1
    rough = (high - low) / count
    base = 10.0 ** math.floor(math.log10(rough))
    dtick = base * next(m for m in (2, 5, 10) if m >= rough / base - 1e-9)
    first, last = math.ceil(low / dtick - 1e-9), math.floor(high / dtick + 1e-9)
    values = [k * dtick for k in range(first, last + 1)][:40]
    if tickformat and tickformat.endswith("%"):
        digits = int(re.sub(r"\D", "", tickformat) or 0)
        return [f"{v * 100:.{digits}f}%".replace("-", "−") for v in values]
    biggest = max(abs(low), abs(high))
    range_exp = math.floor(math.log10(biggest) + 0.01) if biggest > 0 else 0
    exponent = 3 * round((range_exp - 1) / 3) if abs(range_exp) > 3 else 0
    decimals = exponent - math.floor(math.log10(dtick) + 0.01)
    return [number_label(v, decimals, exponent) for v in values]


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
        z = _array(trace["z"])
        if z.ndim == 2:
            values = np.arange(z.shape[0] if letter == "y" else z.shape[1])
    if values is None:
        return None
    return _array(values)


def _axis_labels(layout: dict, data: list[dict], name: str, length_px: float) -> list[str]:
    """What Plotly will write along axis ``name`` (``xaxis``, ``yaxis2``, ...)."""
    axis = layout.get(name) or {}
    letter, ref = name[0], name[0] + name[5:]
    if axis.get("ticktext") is not None:
        return [str(t) for t in _array(axis["ticktext"]).ravel()]
    traces = [t for t in data if _on_axis(t, letter, ref)]
    columns = [c for c in (_coordinates(t, letter) for t in traces) if c is not None and c.size]
    if axis.get("tickvals") is not None and axis.get("type") != "log":
        values = np.asarray(_array(axis["tickvals"]), dtype=float).ravel()
        if values.size:
            step = float(np.min(np.diff(np.unique(values)))) if values.size > 1 else 1.0
            decimals = max(0, -math.floor(math.log10(step) + 0.01)) if step > 0 else 0
            return [number_label(float(v), decimals, 0) for v in values]
    texts = [c for c in columns if c.dtype.kind in "OUS"]
    if axis.get("type") == "category" or texts:
        return sorted({str(v) for c in texts for v in c.ravel()})[:200]
    numbers = [c.astype(float).ravel() for c in columns if c.dtype.kind in "iufb"]
    numbers = [c[np.isfinite(c)] for c in numbers]
    numbers = [c for c in numbers if c.size]
    given = axis.get("range")
    auto = axis.get("autorange")
    if given is not None and auto in (None, False) and all(v is not None for v in given):
        low, high = sorted(float(v) for v in given)
        padded = False
    elif numbers:
        low = min(float(c.min()) for c in numbers)
        high = max(float(c.max()) for c in numbers)
        padded = True
        if any(t.get("type") == "heatmap" for t in traces):
            cells = [np.diff(np.unique(c)) for c in numbers if c.size > 1]
            half = 0.5 * min((float(d.min()) for d in cells if d.size), default=1.0)
            low, high, padded = low - half, high + half, False
        if any(t.get("type") == "bar" for t in traces) or axis.get("rangemode") == "tozero":
            low, high = min(low, 0.0), max(high, 0.0)
    else:
        return []
    if axis.get("type") == "log":
        if given is None or auto not in (None, False):
            positive = [c[c > 0] for c in numbers]
            positive = [c for c in positive if c.size]
            if not positive:
                return []
            low = math.log10(min(float(c.min()) for c in positive))
            high = math.log10(max(float(c.max()) for c in positive))
        return log_labels(low, high, axis.get("dtick"), axis.get("exponentformat") == "power")
    if padded and high > low:
        # Plotly pads an automatic range at each end: about 5% for lines, more for markers
        pad = AUTORANGE_PAD * (high - low)
        low, high = low - pad, high + pad
    elif low == high:
        low, high = low - 1.0, high + 1.0
    return linear_labels(low, high, length_px, letter, axis.get("tickformat"))


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
    room, overhang = 0.0, 0.0
    if axis.get("showticklabels", True) is not False:
        labels = _axis_labels(layout, data, name, length_px)
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
    return [(side, room + PAD_PX if room else 0.0), ("r", overhang)]


def reserve(spec: dict) -> None:
    """Widen ``spec["layout"]["margin"]`` (a new dict) on each side to what its axes' automargin
    will ask for, so that Plotly's first draw is its last. Margins are only ever widened."""
    layout = spec.get("layout") or {}
    data = spec.get("data") or []
    names = [k for k in layout if re.fullmatch(r"[xy]axis\d*", k) and isinstance(layout[k], dict)]
    if not names:
        return
    margin = dict(layout.get("margin") or {})
    current = {s: float(margin[s]) if margin.get(s) is not None else float(PLOTLY_MARGIN[s]) for s in "lrtb"}
    height = float(layout.get("height") or PLOTLY_HEIGHT)
    plot_height = max(height - current["t"] - current["b"], 40.0)
    wider = {}
    for name in names:
        axis = layout[name]
        if axis.get("visible") is False or axis.get("automargin") is False or axis.get("overlaying"):
            continue
        domain = axis.get("domain") or (0.0, 1.0)
        length = plot_height * (domain[1] - domain[0]) if name[0] == "y" else 0.0
        for side, room in _axis_rooms(layout, data, name, length):
            if room > max(current[side], wider.get(side, 0)) + 1:
                wider[side] = math.ceil(room)
    if wider:
        layout["margin"] = {**margin, **wider}
