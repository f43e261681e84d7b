"""Build each figure once per server for every distinct input, and share it.

In a class, forty students ask for the same few settings; building a Plotly figure
(validating every trace and axis) on every rerun would be half of its CPU. ``figure(builder, ...)``
keys the figure on an exact fingerprint of the builder's arguments (every byte of
every array, not a sample), so any change in the numbers builds a new figure, and a
setting already seen reuses the one built for it, whichever student asked first.

A cached figure is shared by every session: treat it as read-only. What a page draws
of it (``figures.display.prepare``: title out, one chart per panel, text sized for the
desktop or the projector) is cached beside it, per mode; a page that adds a marker or a note to a
figure names the calls in ``after=`` (part of the key), never on the returned figure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from posenc_lab.figures import display, plotly_private

#: figures kept per server process; the largest is a few MB of Python objects
MAX_FIGURES = 128


def _feed(h, obj: Any) -> None:
    if isinstance(obj, np.ndarray):
        if obj.dtype.hasobject:
            raise TypeError("object arrays have no stable bytes")
        h.update(b"A" + obj.dtype.str.encode() + repr(obj.shape).encode())
        h.update(np.ascontiguousarray(obj).data)
    elif isinstance(obj, np.generic):
        h.update(b"N" + obj.dtype.str.encode() + obj.tobytes())
    elif obj is None or isinstance(obj, (bool, int, float, str, bytes, complex)):
        # repr is exact for floats (shortest round trip) and tells 1 from 1.0 from True
        h.update(b"S" + type(obj).__name__.encode() + b":" + repr(obj).encode() + b";")
    elif isinstance(obj, (list, tuple)):
        h.update(b"L" if isinstance(obj, list) else b"T")
        h.update(str(len(obj)).encode() + b"[")
        for item in obj:
            _feed(h, item)
        h.update(b"]")
    elif isinstance(obj, dict):
        h.update(b"D" + str(len(obj)).encode() + b"{")
        for key in sorted(obj, key=repr):
            _feed(h, key)
            _feed(h, obj[key])
        h.update(b"}")
    else:
        raise TypeError(f"cannot fingerprint {type(obj).__name__}")


def fingerprint(builder: Callable, args: tuple, kwargs: dict) -> str:
    """Digest of the builder's name and every argument's exact value.

    Raises TypeError for an argument it cannot read exactly (then the figure is not cached).
    """
    h = hashlib.blake2b(digest_size=20)
    h.update(f"{builder.__module__}.{builder.__qualname__}".encode())
    _feed(h, args)
    _feed(h, kwargs)
    return h.hexdigest()


#: builders called with an argument fingerprint() cannot read (so built on every run);
#: a test runs every view and expects none
UNCACHED: set[str] = set()


def _build(builder: Callable, args: tuple, kwargs: dict, after: Sequence[tuple[str, dict]]) -> go.Figure:
    fig = builder(*args, **kwargs)
    for method, options in after:
        getattr(fig, method)(**options)
    return fig


@st.cache_resource(max_entries=MAX_FIGURES, show_spinner=False)
def _built(digest: str, _builder: Callable, _args: tuple, _kwargs: dict, _after) -> go.Figure:
    fig = _build(_builder, _args, _kwargs, _after)
    # lets layout.chart cache what it draws of this figure under the same key
    fig._posenc_key = digest
    return fig


def key_of(fig: go.Figure) -> str | None:
    """The fingerprint a cached figure was built under (None for one built on every run)."""
    return getattr(fig, "_posenc_key", None)


class _Drawn(go.Figure):
    """A panel as ``st.plotly_chart`` reads it: nothing but its plain dict.

    ``st.plotly_chart`` asks a figure for ``to_dict()`` on every run that draws it: a deep
    copy of every trace and the conversion of its arrays to base64, paid again on each
    rerun. A cached panel is read-only, so its dict is made once, when it is cached,
    straight from the page's finished spec (``figures.display.prepare_specs``), without
    building the Plotly objects it would be read back from: with 200 students each asking
    for new values, preparing figures through those objects takes 18% of the server's CPU
    (py-spy), a third of it in Plotly's constructor and its copies. Nothing that reads the dict
    changes it: Plotly's ``to_json`` builds a new structure, and the trace ``uid`` it
    would pop is popped here.

    Only ``to_dict`` works on it (``animation`` reads the rest): it is made without
    Plotly's constructor.
    """

    def to_dict(self):
        return self._posenc_dict


def _drawn(spec: dict, frames: list | None) -> _Drawn:
    plain = {"data": spec["data"], "layout": spec["layout"]}
    if frames:
        # the frame objects belong to the shared figure: a new copy, as Plotly's to_dict makes
        plain["frames"] = display.sendable(
            [plotly_private.frame_props(f) if isinstance(f, go.Frame) else f for f in frames]
        )
    for trace in plain["data"]:
        trace.pop("uid", None)
    panel = object.__new__(_Drawn)
    object.__setattr__(panel, "_posenc_dict", plain)
    return panel


def _prepare_drawn(
    fig: go.Figure, present: bool, share: float = 1.0
) -> tuple[str, list[list[tuple[go.Figure, str, str]]]]:
    title, rows, frames = display.prepare_specs(fig, present=present, share=share)
    several = sum(len(row) for row in rows) > 1
    out = []
    for row in rows:
        out.append([])
        for spec in row:
            panel_title = display.spec_title(spec) if several else ""
            out[-1].append((_drawn(spec, frames), panel_title, display.describe_spec(spec, title, panel_title)))
    return title, out


@st.cache_resource(max_entries=2 * MAX_FIGURES, show_spinner=False)
def _prepared(digest: str, present: bool, share: float, _fig: go.Figure):
    return _prepare_drawn(_fig, present, share)


def animation(panel: go.Figure) -> tuple[bool, int, str]:
    """Whether a drawn panel is an animation, its frame time in ms (the builder's
    ``layout.meta["frame_ms"]``, 120 if it sets none) and its first frame's name ("" for
    none): the name says what the frame draws, so a new one is a new animation."""
    if isinstance(panel, _Drawn):
        plain = panel.to_dict()
        meta, frames = plain["layout"].get("meta"), plain.get("frames") or []
        first = frames[0].get("name", "") if frames else ""
    else:
        meta, frames = panel.layout.meta, panel.frames
        first = (frames[0].name or "") if frames else ""
    frame_ms = meta.get("frame_ms", 120) if isinstance(meta, dict) else 120
    return bool(frames), frame_ms, str(first)


def prepared(fig: go.Figure, present: bool, share: float = 1.0) -> tuple[str, list[list[tuple[go.Figure, str, str]]]]:
    """What a page draws of ``fig``: its title and rows of (one-panel chart, the panel's
    title or "" when the figure has one panel, its alt text), from
    ``figures.display.prepare``; once per figure, mode and ``share`` (the part of the main
    column the page gives it, ``display.chart_width``) for a cached figure."""
    digest = key_of(fig)
    if digest is None:
        return _prepare_drawn(fig, present, share)
    return _prepared(digest, present, share, fig)


def figure(
    builder: Callable[..., go.Figure], *args: Any, after: Sequence[tuple[str, dict]] = (), **kwargs: Any
) -> go.Figure:
    """``builder(*args, **kwargs)``, then each ``fig.<method>(**options)`` of ``after``
    (e.g. ``("add_hline", dict(y=10))``), built once per distinct values (read-only)."""
    try:
        digest = fingerprint(builder, args, {**kwargs, "(after)": after})
    except TypeError:
        UNCACHED.add(f"{builder.__module__}.{builder.__qualname__}")
        return _build(builder, args, kwargs, after)
    return _built(digest, builder, args, kwargs, after)
