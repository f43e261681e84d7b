"""Sidebar controls whose values live in the URL and outlive page switches.

Each control has a short URL name (``d_model``, ``base``...). Its value is kept in
session state (``kept(name)``, in one dict of every control's value), not only under
the widget's key: Streamlit drops a widget's state when a run does not draw it (as on
another page), so the kept copy is what brings it back. The first time a control is
drawn in a session its value comes from the URL when the URL has a usable one; an
unusable one is replaced by the nearest valid value and a notice says so. Every run
writes the values back to ``st.query_params``, so the address bar is always a link
to the exact view.

A value stays in its lesson: two lessons that name a control alike (``base``, ``n``,
``seed``) keep a value each, so a setting made for one concept never arrives in another
(RoPE does not open at the sinusoid's 4096 positions, which fill its waves chart solid).
Only the names in ``SHARED`` keep one value for the whole session. A name
means one thing across the app (tests/test_url_names.py); a lesson that renames one
lists the old name (``Lesson.renamed``), so an old link still opens with its value.

An address the app did not write itself is a link, read as if opened in a new tab: the
browser's Back and Forward, a link inside the app that carries settings (a class reveal's
"Explore it"), a link pasted into the running app. Its page's kept values and the shared
ones are forgotten, and every control takes the link's value or its default. A menu link
carries no settings, so the lesson's kept values come back.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

WIDGET = "w:"
#: session-state keys of three dicts keyed by URL name: each control's kept value, the page
#: it was last drawn on, and a choice slider's options. One key each, not one per control:
#: Streamlit's slider and radio copy the whole session state on every draw, so keys per
#: control (210 of 256 in a session that has opened every view) would make each run dearer
#: the more views the session has opened
_KEPT = "_kept"
_NOTICES = "_url_notices"
_OWNED = "_url_owned"
_PAGE = "_page"
#: set by a full run's start; taken by the lesson's fragment (``start_fragment``)
_FULL_RUN = "_full_run"
#: the URL names the shell owned before the lesson's fragment first ran
_SHELL_OWNED = "_shell_owned"
_DRAWN = "_drawn"
_OPTIONS = "_options"
#: the running lesson's renamed URL names: old name -> the name now
_RENAMED = "_url_renamed"
#: the addresses (their control names and values) the app left at the end of its latest runs,
#: newest last; and the URL names that are not controls (``own``: a class link's)
_LEFT = "_url_left"
_NOT_CONTROLS = "_url_not_controls"
#: set by ``open_as_link``: the next run's address is a link
_AS_LINK = "_url_as_link"
#: how many of the latest addresses count as the app's own: a rerun may start from an address
#: a little behind the app's (a move made before the browser had the previous run's address)
LEFT_KEPT = 8

#: URL names whose value is one for the whole session rather than one per lesson:
#: ``d_model``, the model's width, which every lesson that draws it means alike and a
#: student carries from page to page (an encoding of width 64 in one lesson is the same
#: encoding in the next); ``present``, presenter mode, a setting of the session, not of
#: a lesson. Every other name keeps a value per lesson.
SHARED = frozenset({"d_model", "present"})
#: the scope of the values of ``SHARED`` names (a lesson's scope is its URL path)
_SESSION = "*"
#: the side panel's slot for a lesson's settings, above the menu (set by the shell on a
#: lesson's full run; None elsewhere)
_SETTINGS = "_settings_slot"


def _dict(key: str) -> dict:
    return st.session_state.setdefault(key, {})


def _scope(name: str) -> str:
    """Where control ``name`` keeps its value: the session for a ``SHARED`` name, else the
    page that is running."""
    return _SESSION if name in SHARED else st.session_state.get(_PAGE, "")


def _kept_values(name: str) -> dict:
    """The dict that keeps ``name``'s value (its scope's)."""
    return _dict(_KEPT).setdefault(_scope(name), {})


def kept(name: str, default: Any = None) -> Any:
    """The value kept for control ``name`` of the running page in this session
    (``default`` before its first draw there)."""
    return st.session_state.get(_KEPT, {}).get(_scope(name), {}).get(name, default)


# run bookkeeping (called by ui.shell around every page)


def _address() -> dict[str, str]:
    """The address's control names and values (the class link's names left out)."""
    skip = st.session_state.get(_NOT_CONTROLS, ())
    return {name: value for name, value in st.query_params.to_dict().items() if name not in skip}


def _is_link() -> bool:
    """True when the address names settings that none of the app's latest addresses had:
    the browser went Back or Forward, or a link with settings was followed in the app."""
    left = st.session_state.get(_LEFT)
    now = _address()
    return left is not None and bool(now) and now not in left


def _forget_for_link(page_id: str) -> None:
    """Forget what a link replaces: the page's kept values and the shared ones, and which
    widgets were drawn (each is seeded afresh from its new value)."""
    kept = _dict(_KEPT)
    kept.pop(page_id, None)
    for name in SHARED:
        kept.get(_SESSION, {}).pop(name, None)
    _dict(_DRAWN).clear()


def open_as_link() -> None:
    """Read the next run's address as a link opened afresh, even one this session wrote
    before (a class sent to a view gets its settings, however the student had moved)."""
    st.session_state[_AS_LINK] = True


def start_run(page_id: str, renamed: dict[str, str] | None = None) -> None:
    """Note the page about to run and the URL names it has renamed (old -> now); forget
    the previous run's URL names and notices, and, when the address is a link from outside
    the app (``_is_link``, or ``open_as_link``), the values it replaces."""
    if st.session_state.pop(_AS_LINK, False) or _is_link():
        _forget_for_link(page_id)
    st.session_state[_PAGE] = page_id
    st.session_state[_RENAMED] = dict(renamed or {})
    st.session_state[_OWNED] = []
    st.session_state[_NOTICES] = []
    st.session_state[_FULL_RUN] = True


def finish_run(notice_area) -> None:
    """Drop URL names no control of this page owns, and show the notices."""
    owned = set(st.session_state.get(_OWNED, []))
    for name in [n for n in st.query_params.keys() if n not in owned]:  # noqa: SIM118 - keys() is a copy
        del st.query_params[name]
    # A run starts from the address the browser names in its request, and the browser may name
    # an older one than its address bar shows (its copy of the query string follows the bar a
    # render later). A control whose value equals that older address is not written, and after
    # quick presses the bar kept a value the slider had left (d_model=130 with the slider back
    # at 128). One message of the whole address ends every run: the bar holds this run's values.
    st.query_params.update()
    left = st.session_state.setdefault(_LEFT, [])
    address = _address()
    if address in left:
        left.remove(address)
    left.append(address)
    del left[:-LEFT_KEPT]
    notices = st.session_state.get(_NOTICES, [])
    if notices:
        notice_area.warning("Some values in the link could not be used:\n\n" + "\n".join(f"- {n}" for n in notices))


def set_sidebar(slot) -> None:
    """Make ``slot`` (a container at the top of the side panel, or None for the side panel
    itself) the place of this page's settings; the shell calls it at every full run."""
    st.session_state[_SETTINGS] = slot


def sidebar():
    """Where a lesson's settings go in the side panel: the slot the shell made above the
    menu, so that they are the first thing a learner sees in the panel (at 1366 x 900 they
    started below 17 menu links). A lesson's fragment rerun writes to the slot made by the
    last full run, which Streamlit keeps for it (``ui.layout.lesson_body``)."""
    slot = st.session_state.get(_SETTINGS)
    return st.sidebar if slot is None else slot


def start_fragment() -> bool:
    """Called first in a lesson's fragment (``ui.layout.lesson_body``); True when the
    fragment reruns alone (a move of one of its widgets), False inside a full run.

    A full run's shell has already claimed its URL names (presenter mode, a class link);
    they are remembered here, so that a rerun of the fragment alone, which does not run
    the shell, starts from them and ``finish_run`` keeps them.
    """
    if st.session_state.pop(_FULL_RUN, False):
        st.session_state[_SHELL_OWNED] = list(st.session_state.get(_OWNED, []))
        return False
    st.session_state[_OWNED] = list(st.session_state.get(_SHELL_OWNED, []))
    st.session_state[_NOTICES] = []
    return True


def own(*names: str) -> None:
    """Keep these URL names in the address bar at the end of this run (a page's own
    parameters that are not controls, such as a class link's)."""
    st.session_state.setdefault(_OWNED, []).extend(names)
    st.session_state.setdefault(_NOT_CONTROLS, set()).update(names)


def _note(text: str) -> None:
    st.session_state.setdefault(_NOTICES, []).append(text)


#: a page's own note about a URL value it could not use (shown with the controls' notes)
note = _note


# generic machinery


def _control(
    name: str,
    default: Any,
    parse: Callable[[str], tuple[Any, str | None]],
    fix: Callable[[Any], Any],
    draw: Callable[[str], Any],
    encode: Callable[[Any], str] = str,
    omit_default: bool = False,
) -> Any:
    """Value of one control: URL (first time) -> kept value -> widget -> URL.

    With ``omit_default`` the URL names the control only when it differs from its
    default (for shell switches such as presenter mode, which every page has).
    """
    widget, kept_values, drawn = WIDGET + name, _kept_values(name), _dict(_DRAWN)
    if name not in kept_values:
        raw, given = _from_url(name)
        value = default
        if raw is not None:
            value, problem = parse(raw)
            if problem:
                _note(f"`{given}={raw[:40]}`: {problem}")
        kept_values[name] = value
    # a kept value may lie outside this widget's range (a shared d_model of 1024 on a page
    # whose width stops at 256; another view of the lesson with other options under the
    # same name), or not be read at all by it: then the nearest valid value, or the default
    try:
        value = fix(kept_values[name])
    except (TypeError, ValueError):
        value = default
    # the widget's own state wins (it holds the user's latest move) unless this page has
    # not drawn it yet: after a page switch Streamlit gives a widget a fresh identity, and
    # a leftover value may not even fit its range
    page = st.session_state.get(_PAGE, "")
    fresh = drawn.get(name) != page
    if fresh or widget not in st.session_state or not _fits(fix, st.session_state[widget]):
        st.session_state[widget] = value
    drawn[name] = page
    value = draw(widget)
    kept_values[name] = value
    if omit_default and value == default:
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get(name) != (encoded := encode(value)):
        # each write sends the browser a message, even of the value it has: writing every
        # control on every run would add 4-9 messages to a slider move
        st.query_params[name] = encoded
    st.session_state.setdefault(_OWNED, []).append(name)
    return value


def _from_url(name: str) -> tuple[str | None, str]:
    """The URL's value for control ``name`` (None if it has none) and the name it came
    under: its own, else a name the lesson has renamed to it, so an old link still opens
    with its value (the old name then leaves the address bar, as any name no control owns)."""
    raw = st.query_params.get(name)
    if raw is not None:
        return raw, name
    for old, new in st.session_state.get(_RENAMED, {}).items():
        raw = st.query_params.get(old) if new == name else None
        if raw is not None:
            return raw, old
    return None, name


def _fits(fix: Callable[[Any], Any], value: Any) -> bool:
    try:
        return fix(value) == value
    except (TypeError, ValueError):
        return False


def _as_number(raw: str) -> float | None:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


# controls


def int_slider(
    name: str,
    label: str,
    min_value: int,
    max_value: int,
    default: int,
    *,
    step: int = 1,
    help: str | None = None,
    container=None,
) -> int:
    """An integer slider; with ``step=2`` and an even minimum every value is even."""
    where = container or sidebar()

    def fix(value) -> int:
        value = int(min(max(int(value), min_value), max_value))
        # snap onto the slider's grid min, min + step, ...
        return min_value + (value - min_value) // step * step

    def parse(raw: str):
        number = _as_number(raw)
        if number is None:
            return default, f"not a number; using {default}"
        value = fix(round(number))
        if value != number:
            allowed = f"{min_value} to {max_value}" + (f" in steps of {step}" if step > 1 else "")
            return value, f"allowed values are {allowed}; using {value}"
        return value, None

    def draw(widget: str) -> int:
        if max_value <= min_value:
            # a slider needs two values; show the only one there is
            where.caption(f"{label}: {min_value}")
            return min_value
        return where.slider(label, min_value, max_value, step=step, key=widget, help=help)

    return _control(name, fix(default), parse, fix, draw)


def float_slider(
    name: str,
    label: str,
    min_value: float,
    max_value: float,
    default: float,
    *,
    step: float,
    fmt: str = "%.2f",
    help: str | None = None,
    container=None,
) -> float:
    """A float slider on the grid min, min + step, ...; URL values snap to that grid."""
    where = container or sidebar()
    n_steps = round((max_value - min_value) / step)

    def fix(value) -> float:
        value = min(max(float(value), min_value), max_value)
        # round onto the grid, then to a short decimal so 0.1 + 0.2 shows as 0.3
        return round(min_value + round((value - min_value) / step) * step, 10)

    def parse(raw: str):
        number = _as_number(raw)
        if number is None:
            return fix(default), f"not a number; using {fix(default):g}"
        value = fix(number)
        if abs(value - number) > 1e-9 * max(1.0, abs(number)):
            return value, f"allowed values are {min_value:g} to {max_value:g} in steps of {step:g}; using {value:g}"
        return value, None

    def draw(widget: str) -> float:
        return fix(
            where.slider(label, float(min_value), float(max_value), step=float(step), key=widget, format=fmt, help=help)
        )

    if n_steps < 1:
        raise ValueError(f"float_slider {name!r}: the range must hold at least two steps")
    return _control(name, fix(default), parse, fix, draw, encode=lambda v: f"{v:.10g}")


def choice_slider(
    name: str,
    label: str,
    options: Sequence[float],
    default: float,
    *,
    fmt: Callable[[float], str] = lambda v: f"{v:g}",
    help: str | None = None,
    container=None,
) -> float:
    """A slider over fixed, typically log-spaced, values (e.g. base 10 ... 1e6).

    A URL value between two options snaps to the nearest in log distance.
    """
    where = container or sidebar()
    options = list(options)

    def nearest(value: float) -> float:
        if value <= 0:
            return options[0]
        return min(options, key=lambda o: abs(math.log(o) - math.log(value)))

    def fix(value):
        return value if value in options else nearest(float(value))

    def parse(raw: str):
        number = _as_number(raw)
        if number is None:
            return default, f"not a number; using {fmt(default)}"
        value = nearest(number)
        if value != number:
            return value, f"allowed values run from {fmt(options[0])} to {fmt(options[-1])}; using {fmt(value)}"
        return value, None

    def draw(widget: str):
        return where.select_slider(label, options=options, key=widget, format_func=fmt, help=help)

    # kept so that tests (and anyone) can name the options behind the formatted labels
    _dict(_OPTIONS)[name] = options

    return _control(name, fix(default), parse, fix, draw, encode=lambda v: f"{v:.10g}")


def choice(
    name: str,
    label: str,
    options: Sequence[str],
    default: str,
    *,
    labels: dict[str, str] | None = None,
    horizontal: bool = True,
    help: str | None = None,
    container=None,
    label_visibility: str = "visible",
) -> str:
    """One of a few named options, as radio buttons."""
    where = container or sidebar()
    options = list(options)
    labels = labels or {}

    def parse(raw: str):
        if raw in options:
            return raw, None
        return default, f"not one of {', '.join(options)}; using {default}"

    def draw(widget: str) -> str:
        return where.radio(
            label,
            options,
            key=widget,
            horizontal=horizontal,
            format_func=lambda o: labels.get(o, o),
            help=help,
            label_visibility=label_visibility,
        )

    return _control(name, default, parse, lambda v: v if v in options else default, draw)


def select(
    name: str,
    label: str,
    options: Sequence[str],
    default: str,
    *,
    labels: dict[str, str] | None = None,
    help: str | None = None,
    container=None,
) -> str:
    """One of many named options, as a drop-down (radio buttons for a few: ``choice``)."""
    where = container or sidebar()
    options = list(options)
    labels = labels or {}

    def parse(raw: str):
        if raw in options:
            return raw, None
        return default, f"not one of the {len(options)} options; using {default}"

    def draw(widget: str) -> str:
        return where.selectbox(label, options, key=widget, format_func=lambda o: labels.get(o, o), help=help)

    return _control(name, default, parse, lambda v: v if v in options else default, draw)


def toggle(
    name: str, label: str, default: bool, *, help: str | None = None, container=None, omit_default: bool = False
) -> bool:
    """An on/off switch; the URL says 1 or 0."""
    where = container or sidebar()

    def parse(raw: str):
        low = raw.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True, None
        if low in ("0", "false", "no", "off"):
            return False, None
        return default, f"use 1 or 0; using {int(default)}"

    def draw(widget: str) -> bool:
        return where.toggle(label, key=widget, help=help)

    return _control(name, default, parse, bool, draw, encode=lambda v: str(int(v)), omit_default=omit_default)


def text(
    name: str,
    label: str,
    default: str,
    *,
    max_chars: int = 200,
    help: str | None = None,
    container=None,
) -> str:
    """A line of text (at most ``max_chars``); an empty one falls back to the default."""
    where = container or sidebar()

    def fix(value) -> str:
        value = str(value).strip()[:max_chars]
        return value or default

    def parse(raw: str):
        value = fix(raw)
        if value != raw.strip():
            return value, f"must be 1 to {max_chars} characters; using {value[:40]!r}"
        return value, None

    def draw(widget: str) -> str:
        return fix(where.text_input(label, key=widget, max_chars=max_chars, help=help))

    return _control(name, fix(default), parse, fix, draw)


def int_list(
    name: str,
    label: str,
    options: Sequence[int],
    default: Sequence[int],
    *,
    max_selections: int = 6,
    fmt: Callable[[int], str] = str,
    help: str | None = None,
    container=None,
) -> list[int]:
    """Several integers picked from ``options``; the URL holds them comma-separated."""
    where = container or sidebar()
    options = list(options)
    allowed = set(options)

    def fix(value) -> list[int]:
        kept = [v for v in dict.fromkeys(value) if v in allowed][:max_selections]
        return kept or [v for v in default if v in allowed][:max_selections] or options[:1]

    def parse(raw: str):
        picked, bad = [], []
        for part in raw.split(","):
            number = _as_number(part.strip())
            if number is not None and number == int(number) and int(number) in allowed:
                picked.append(int(number))
            else:
                bad.append(part.strip())
        value = fix(picked)
        if bad or len(picked) > max_selections:
            return value, f"allowed are up to {max_selections} of {options[0]}..{options[-1]}; using {value}"
        return value, None

    def draw(widget: str) -> list[int]:
        return fix(
            where.multiselect(label, options, key=widget, max_selections=max_selections, format_func=fmt, help=help)
        )

    return _control(name, fix(default), parse, fix, draw, encode=lambda v: ",".join(map(str, v)))
