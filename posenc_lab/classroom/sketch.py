"""A drawn prediction ("sketch the curve before you see it"): a student's curve as a class
stores it, and how far it lies from the measured one. Pure Python and NumPy.

A sketch is ``POINTS`` heights at evenly spaced x across the question's range, each a whole
number of hundredths of the y range (0 the bottom, 99 the top), stored as one string of two
digits per point: 48 characters, within a vote's 64. Its error is the mean distance from the
measured curve at the same x, as a share of the y range.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

#: heights per sketch: enough to show a bend, few enough to set one by one from a keyboard
POINTS = 24
#: levels per height (0 to LEVELS - 1)
LEVELS = 100
_VOTE = re.compile(rf"[0-9]{{{2 * POINTS}}}")


def encode(levels: Sequence[int]) -> str:
    """``POINTS`` levels (whole numbers 0 to LEVELS - 1) as a vote."""
    if len(levels) != POINTS:
        raise ValueError(f"levels must hold {POINTS} heights, got {len(levels)}")
    out = []
    for level in levels:
        if isinstance(level, bool) or not isinstance(level, int | np.integer) or not 0 <= level < LEVELS:
            raise ValueError(f"each level must be a whole number from 0 to {LEVELS - 1}, got {level!r:.20}")
        out.append(f"{int(level):02d}")
    return "".join(out)


def decode(vote: str) -> np.ndarray | None:
    """A vote's heights as shares of the y range, (POINTS,) in [0, 0.99]; None for text that
    is no sketch."""
    if not isinstance(vote, str) or not _VOTE.fullmatch(vote):
        return None
    return np.array([int(vote[i : i + 2]) for i in range(0, 2 * POINTS, 2)], dtype=float) / LEVELS


def is_sketch(vote: str) -> bool:
    return decode(vote) is not None


def xs(x_range: tuple[float, float]) -> np.ndarray:
    """The x of each point: (POINTS,), from the range's start to its end."""
    return np.linspace(float(x_range[0]), float(x_range[1]), POINTS)


def target(
    x_range: tuple[float, float], y_range: tuple[float, float], curve_x: np.ndarray, curve_y: np.ndarray
) -> np.ndarray:
    """The measured curve at the sketch's points, as shares of the y range (clipped to it): (POINTS,)."""
    low, high = float(y_range[0]), float(y_range[1])
    if not high > low:
        raise ValueError(f"y_range must rise, got {y_range!r}")
    at = np.interp(xs(x_range), np.asarray(curve_x, dtype=float), np.asarray(curve_y, dtype=float))
    return np.clip((at - low) / (high - low), 0.0, 1.0)


def error(vote: str, measured: np.ndarray) -> float | None:
    """Mean |sketch - measured| over the points, as a share of the y range (0: on the curve,
    1: as far as the range allows); None for a vote that is no sketch."""
    heights = decode(vote)
    if heights is None:
        return None
    return float(np.mean(np.abs(heights - np.asarray(measured, dtype=float))))


def median(votes: Sequence[str]) -> np.ndarray | None:
    """The class's median height at each point, (POINTS,), or None with no sketch among ``votes``."""
    drawn = [h for h in (decode(v) for v in votes) if h is not None]
    return np.median(np.vstack(drawn), axis=0) if drawn else None
