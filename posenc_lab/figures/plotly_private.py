"""Every use of Plotly's private API, behind small functions with a public fallback.

The app builds figures from plain dicts and reads them back as plain dicts, without
Plotly's per-property validation and copies (``builders._figure``, ``display.prepare_specs``,
``ui.figcache``): that takes private names (``_validate=False``, ``fig._data``,
``fig._frame_objs``, ``_plotly_utils``), which a minor Plotly release may rename or change.
This module is the only one that touches them (``tests/test_lint.py`` checks).

The private paths are taken only with a Plotly of the minor release the tests run on
(:data:`PROVED`; ``requirements.txt`` pins it) and when every private name imports. With any
other Plotly each function takes the public API instead: every figure is validated, the
plain trees come from ``to_dict``, and arrays Plotly's encoder would turn into base64 are
left as NumPy arrays for ``plotly.io.to_json`` (which ``st.plotly_chart`` calls) to write as
lists. The charts are the same, drawn more slowly. :data:`FAST` says which path is taken;
``tests/test_plotly_private.py`` sets it to compare the two.
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Iterable
from copy import deepcopy

import numpy as np
import plotly
import plotly.graph_objects as go

#: the (major, minor) release of Plotly the tests prove the private paths on
PROVED = (7, 1)

try:
    from _plotly_utils.basevalidators import is_homogeneous_array as _is_homogeneous_array
    from _plotly_utils.utils import is_skipped_key as _is_skipped_key
    from _plotly_utils.utils import plotlyjsShortTypes as _SHORT_TYPES
    from _plotly_utils.utils import to_typed_array_spec as _to_typed_array_spec
    from plotly.validator_cache import ValidatorCache as _ValidatorCache
except ImportError:  # a name moved: only the public API is left
    _IMPORTED = False
else:
    _IMPORTED = True


def proved(version: str) -> bool:
    """``version`` (``plotly.__version__``) is of the :data:`PROVED` minor release."""
    match = re.match(r"(\d+)\.(\d+)", version)
    return match is not None and (int(match[1]), int(match[2])) == PROVED


#: take the private paths (checked once, here); False: Plotly's public API only
FAST = _IMPORTED and proved(plotly.__version__)


# figures


def figure_unvalidated(spec: dict, *, checked_after: bool = False) -> go.Figure:
    """``go.Figure(spec)`` without validating ``spec``: its values are ones Plotly has
    checked already (a split or finished figure) or the tests check (a builder's dicts).

    ``checked_after``: what is added to the figure later (``add_trace``, ``update_layout``,
    a trace's ``update``) is validated as usual; otherwise the figure stays unvalidated
    (a figure that is only drawn)."""
    if not FAST:
        return go.Figure(spec)
    fig = go.Figure(spec, _validate=False)
    if checked_after:
        fig._validate = fig.layout._validate = True
        for trace in fig.data:
            trace._validate = True
    return fig


def figure_copy(fig: go.Figure) -> go.Figure:
    """A new, independent figure with ``fig``'s traces, layout and subplot grid (so
    ``add_trace(row=, col=)`` works on it), not validated again: ``fig`` was."""
    if not FAST:
        return go.Figure(fig)  # copies the grid too
    copy = go.Figure(fig.to_dict(), _validate=False)
    copy._validate = True
    copy._grid_ref, copy._grid_str = fig._grid_ref, fig._grid_str
    return copy


def figure_parts(fig: go.Figure) -> tuple[list[dict], dict]:
    """``fig``'s traces and layout as plain trees, read-only (they may be ``fig``'s own):
    what ``fig.to_dict()`` deep-copies and encodes, without the frames it also converts."""
    if not FAST:
        spec = fig.to_dict()
        return spec["data"], spec["layout"]
    return fig._data, fig._layout


def frames_of(fig: go.Figure) -> tuple[go.Frame, ...]:
    """``fig.frames``: its ``go.Frame`` objects (empty unless it is an animation)."""
    return fig._frame_objs if FAST else fig.frames


def set_frames(fig: go.Figure, frames: Iterable[go.Frame]) -> None:
    """``fig.frames = frames`` for frames that are checked already (``go.Frame`` objects),
    taken as they are rather than checked and copied again. They may be another figure's:
    both are read-only then."""
    if FAST:
        fig._frame_objs = tuple(frames)
    else:
        fig.frames = list(frames)


def frame_props(frame: go.Frame) -> dict:
    """A frame's plain tree, read-only (it may be the frame's own); arrays as they are."""
    return frame._props if FAST else frame.to_plotly_json()


# traces


@functools.cache
def _private_trace_props(kind: str) -> frozenset[str]:
    return frozenset(_ValidatorCache.get_validator("", "data").get_trace_class(kind)._valid_props)


@functools.cache
def _public_trace_props(kind: str) -> frozenset[str]:
    # iterating a Plotly object gives the names of the properties it has
    return frozenset(go.Figure(data=[{"type": kind}]).data[0])


def trace_props(kind: str) -> frozenset[str]:
    """The properties a trace type has (``"colorbar" in trace_props("heatmap")``)."""
    return _private_trace_props(kind) if FAST else _public_trace_props(kind)


# what fig.to_dict() sends: arrays as base64 typed arrays


def skipped_key(key) -> bool:
    """Plotly's ``to_dict`` encodes no array under this key (``range``, ``geojson``, ...).
    On the public path no array is encoded, so no key needs skipping."""
    return FAST and _is_skipped_key(key)


def homogeneous_array(value) -> bool:
    """``value`` is an array-like Plotly's ``to_dict`` encodes (checked after NumPy
    arrays, so: a pandas series, an xarray, ...). On the public path it is left for
    ``plotly.io.to_json`` to write."""
    return FAST and _is_homogeneous_array(value)


#: the smallest integer type Plotly's ``to_typed_array_spec`` moves a 64-bit array to
_NARROWER = {
    "int64": (np.int8, np.int16, np.int32),
    "uint64": (np.uint8, np.uint16, np.uint32),
}


def typed_array_spec(value):
    """Plotly's ``to_typed_array_spec(value)``: ``{"dtype", "bdata"[, "shape"]}`` with the
    same bytes, or a copy of ``value`` when Plotly leaves it an array. A numeric NumPy array
    is encoded here: Plotly's function first offers every array to narwhals (a dataframe
    library's type checks) and copies it, 0.1 ms an array, a third of preparing compare's
    ten panels. Anything else goes to Plotly's function.

    On the public path the result is a copy of ``value``: ``plotly.io.to_json`` writes it
    as a list."""
    if not FAST:
        return np.array(value) if isinstance(value, np.ndarray) else deepcopy(value)
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "iuf" or value.size == 0 or value.ndim == 0:
        return _to_typed_array_spec(value)
    narrower = _NARROWER.get(str(value.dtype))
    if narrower is not None:
        low, high = value.min(), value.max()
        fits = [t for t in narrower if np.iinfo(t).min <= low and high <= np.iinfo(t).max]
        if not fits:
            return _to_typed_array_spec(value)  # left as it is, as Plotly does
        value = value.astype(fits[0])
    short = _SHORT_TYPES.get(str(value.dtype))
    if short is None:
        return _to_typed_array_spec(value)
    spec = {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(value)).decode("ascii")}
    if value.ndim > 1:
        spec["shape"] = str(value.shape)[1:-1]
    return spec
