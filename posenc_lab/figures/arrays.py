"""Reading a trace attribute back as an array: a leaf module every figure module may import
(the exports, the display adapter and the margin measurements), so none imports another for it."""

from __future__ import annotations

import base64

import numpy as np


def as_array(values) -> np.ndarray:
    """A trace attribute as an array. Plotly 7 may hold a typed array as
    ``{'dtype', 'bdata', 'shape'}`` (base64 bytes); anything else goes through
    ``np.asarray`` (None becomes an empty array)."""
    if isinstance(values, dict) and "bdata" in values:
        out = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
        shape = values.get("shape")
        return out.reshape([int(s) for s in str(shape).split(",")]) if shape else out
    return np.asarray(values if values is not None else [])
