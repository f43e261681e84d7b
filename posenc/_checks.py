"""Argument checks shared by every public function.

Each check raises ``ValueError`` with a message that names the argument, the value
received and what is allowed, so the app can show the message as it is.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

#: Largest number of elements any one array made by ``posenc`` may have (400 MB of
#: float64). Requests above it raise ``ValueError`` before anything is allocated, so
#: no slider or URL can make the server allocate gigabytes.
MAX_ELEMENTS = 50_000_000

#: Largest number of attention heads (slopes, per-head parameters) accepted.
MAX_HEADS = 1024


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_int(name: str, value, *, min_value: int | None = None, max_value: int | None = None) -> int:
    """``value`` as a Python int, or ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {_show(value)}")
    value = int(value)
    if min_value is not None and value < min_value:
        raise ValueError(f"{name} must be >= {min_value}, got {value}")
    if max_value is not None and value > max_value:
        raise ValueError(f"{name} must be <= {max_value}, got {value}")
    return value


def as_even_int(name: str, value, *, min_value: int = 2, max_value: int | None = None) -> int:
    value = as_int(name, value, min_value=min_value, max_value=max_value)
    if value % 2:
        raise ValueError(f"{name} must be even (dimensions come in sin/cos or rotation pairs), got {value}")
    return value


def as_float(
    name: str,
    value,
    *,
    gt: float | None = None,
    ge: float | None = None,
    le: float | None = None,
    lt: float | None = None,
) -> float:
    """``value`` as a finite Python float within the given bounds."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {_show(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if gt is not None and not value > gt:
        raise ValueError(f"{name} must be > {gt}, got {value}")
    if ge is not None and not value >= ge:
        raise ValueError(f"{name} must be >= {ge}, got {value}")
    if lt is not None and not value < lt:
        raise ValueError(f"{name} must be < {lt}, got {value}")
    if le is not None and not value <= le:
        raise ValueError(f"{name} must be <= {le}, got {value}")
    return value


def as_choice(name: str, value, choices) -> str:
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}, got {_show(value)}")
    return value


def check_budget(n_elements: int, what: str) -> None:
    """Refuse an output of more than MAX_ELEMENTS elements."""
    if n_elements > MAX_ELEMENTS:
        raise ValueError(
            f"{what} would hold {n_elements:,} elements; the limit is {MAX_ELEMENTS:,} "
            "(posenc.MAX_ELEMENTS): use fewer positions, heads or dimensions"
        )


def as_positions(name: str, positions, *, integer: bool = False, width: int = 1) -> np.ndarray:
    """Positions as a 1-D array: an int n means 0..n-1.

    Returns float64 (or int64 when ``integer``). Negative, NaN and infinite
    positions are refused. ``width`` is the number of output elements per position,
    so that an oversized request is refused before even the positions are made.
    """
    if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
        n = as_int(name, positions, min_value=1)
        check_budget(n * width, f"{name} x {width} values each")
        return np.arange(n, dtype=np.int64 if integer else np.float64)
    if isinstance(positions, (bool, str, bytes, numbers.Number)):
        raise ValueError(
            f"{name} must be an int n (positions 0..n-1) or a 1-D array of positions, got {_show(positions)}"
        )
    try:
        arr = np.asarray(positions)
    except Exception:  # noqa: BLE001 - ragged lists and the like
        raise ValueError(f"{name} must be a 1-D array of numbers, got {_show(positions)}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
    check_budget(arr.size * width, f"{name} x {width} values each")
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        bad = ~np.isfinite(arr)
        if bad.any():
            raise ValueError(f"{name} must be finite, got {arr[bad][0]!r} at index {int(np.argmax(bad))}")
    if (arr < 0).any():
        idx = int(np.argmax(arr < 0))
        raise ValueError(f"{name} must be non-negative, got {arr[idx]!r} at index {idx}")
    if integer:
        if np.issubdtype(arr.dtype, np.floating):
            frac = arr != np.floor(arr)
            if frac.any():
                idx = int(np.argmax(frac))
                raise ValueError(f"{name} must be whole numbers, got {arr[idx]!r} at index {idx}")
        return arr.astype(np.int64)
    return arr.astype(np.float64)


def as_float_array(name: str, value, *, ndim: int | None = None, min_ndim: int | None = None) -> np.ndarray:
    """A finite float64 array with a fixed or minimum number of axes."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of real numbers, got {_show(value)}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes, got shape {arr.shape}")
    if min_ndim is not None and arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} axes, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def as_head_vector(name: str, x) -> np.ndarray:
    """One query or key, (Dh,) float64 with Dh even."""
    x = as_float_array(name, x, ndim=1)  # (Dh,)
    as_even_int(f"{name}.size (head_dim)", x.size)
    return x


def as_query_key(q, k) -> tuple[np.ndarray, np.ndarray]:
    """One query and one key of the same even width, each (Dh,)."""
    q, k = as_head_vector("q", q), as_head_vector("k", k)
    if q.size != k.size:
        raise ValueError(f"q and k must have the same length, got {q.size} and {k.size}")
    return q, k


def as_per_head(name: str, value, *, gt=None, ge=None, le=None) -> np.ndarray:
    """A scalar or a 1-D array of per-head values, as a (H,) float array."""
    arr = as_float_array(name, value)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a number or a 1-D array (one per head), got shape {arr.shape}")
    arr = arr.reshape(-1)
    if arr.size > MAX_HEADS:
        raise ValueError(f"{name} must have at most {MAX_HEADS} entries (heads), got {arr.size}")
    for bound, ok, word in (
        (gt, lambda a, b: a > b, ">"),
        (ge, lambda a, b: a >= b, ">="),
        (le, lambda a, b: a <= b, "<="),
    ):
        if bound is not None and not ok(arr, bound).all():
            raise ValueError(f"{name} must be {word} {bound}, got {arr[~ok(arr, bound)][0]!r}")
    return arr


def as_lengths(q_len, k_len) -> tuple[int, int]:
    """``(q_len, k_len)`` of a query-key grid; ``k_len`` None means ``q_len``."""
    q_len = as_int("q_len", q_len, min_value=1)
    k_len = q_len if k_len is None else as_int("k_len", k_len, min_value=1)
    if k_len < q_len:
        raise ValueError(
            f"k_len must be >= q_len (queries are the last q_len of k_len positions), got k_len={k_len}, q_len={q_len}"
        )
    check_budget(q_len * k_len, "a (q_len, k_len) grid")
    return q_len, k_len
