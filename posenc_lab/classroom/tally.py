"""Counting a class's votes for the teacher's histogram and the dashboard: pure Python,
no database and no Streamlit (``classroom.store`` keeps the votes, ``classroom.views``
draws them).

A vote is stored as text: a multiple-choice vote is the option's index (``"2"``), a
numeric vote the number (``"0.25"``). Text that is neither (a vote stored before a poll
changed its options, say) is counted nowhere rather than in the wrong bar.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

#: the most bars a numeric histogram gets: readable on a phone, fine enough to show a split
NUMERIC_BINS = 10


def encode_choice(index: int) -> str:
    return str(int(index))


def encode_number(value: float, integer: bool = False) -> str:
    """A numeric vote as stored: whole numbers without a decimal point, others to 6 digits."""
    if not math.isfinite(value):
        raise ValueError(f"value must be a finite number, got {value!r}")
    return str(int(round(value))) if integer else f"{value:.6g}"


def _as_index(vote: str, options: int) -> int | None:
    try:
        index = int(vote)
    except (TypeError, ValueError):
        return None
    return index if 0 <= index < options else None


def _as_number(vote: str) -> float | None:
    try:
        value = float(vote)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def decode_choice(vote: str | None, options: int) -> int | None:
    """The option index a stored choice vote names, or None (no vote, or not one of ``options``)."""
    return None if vote is None else _as_index(vote, options)


def decode_number(vote: str | None) -> float | None:
    """The number a stored numeric vote holds, or None."""
    return None if vote is None else _as_number(vote)


def choice_counts(votes: Iterable[str], options: int) -> list[int]:
    """Votes per option, in the options' order."""
    counts = [0] * options
    for vote in votes:
        index = _as_index(vote, options)
        if index is not None:
            counts[index] += 1
    return counts


def numeric_edges(low: float, high: float, integer: bool = False, bins: int = NUMERIC_BINS) -> list[float]:
    """Bin edges for a numeric poll between ``low`` and ``high``: one bin per whole number
    when a poll of whole numbers has few enough of them, else ``bins`` equal bins."""
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"low and high must be finite with low < high, got {low!r} and {high!r}")
    if integer and high - low + 1 <= bins:
        return [low - 0.5 + i for i in range(int(high - low) + 2)]
    step = (high - low) / bins
    return [low + i * step for i in range(bins)] + [high]


def _fmt(value: float) -> str:
    return f"{value:.3g}"


def numeric_labels(edges: Sequence[float], integer: bool = False) -> list[str]:
    """A label per bin: the whole number it holds, or its range."""
    if integer and all(abs(e - round(e) - 0.5) < 1e-9 or abs(e - round(e) + 0.5) < 1e-9 for e in edges):
        return [_fmt(edges[i] + 0.5) for i in range(len(edges) - 1)]
    return [f"{_fmt(edges[i])} to {_fmt(edges[i + 1])}" for i in range(len(edges) - 1)]


def numeric_counts(votes: Iterable[str], edges: Sequence[float]) -> list[int]:
    """Votes per bin; a bin holds its left edge, the last bin also its right edge, and
    votes outside the edges are not counted (the input does not allow them)."""
    counts = [0] * (len(edges) - 1)
    for vote in votes:
        value = _as_number(vote)
        if value is None or not edges[0] <= value <= edges[-1]:
            continue
        i = 0
        while i < len(counts) - 1 and value >= edges[i + 1]:
            i += 1
        counts[i] += 1
    return counts


def bin_of(value: float, edges: Sequence[float]) -> int | None:
    """The bin that holds ``value`` (as ``numeric_counts`` counts it), or None outside."""
    counts = numeric_counts([repr(float(value))], edges)
    return counts.index(1) if 1 in counts else None


def _split(start: float, stop: float, parts: int, integer: bool) -> list[float]:
    """Inner and outer edges of ``parts`` bins from ``start`` to ``stop``: equal widths, or,
    for whole numbers (``start`` and ``stop`` half-way between them), whole groups of them as
    even as they go (one a bin when there are few)."""
    if integer:
        count = round(stop - start)
        parts = min(parts, count)
        return [start + round(i * count / parts) for i in range(parts + 1)]
    return [start + (stop - start) * i / parts for i in range(parts)] + [stop]


def revealed_edges(
    low: float, high: float, answer: float, tolerance: float, integer: bool = False, bins: int = NUMERIC_BINS
) -> tuple[list[float], int]:
    """Bin edges for a numeric poll once its answer is revealed, and the index of the right
    bin: exactly the votes within ``tolerance`` of ``answer`` (for whole numbers, the whole
    numbers there), with the rest of ``low`` to ``high`` in ``bins - 1`` bins on its two
    sides, shared by their widths (one at least on a side that has room; fewer where there
    are fewer whole numbers). Before the reveal the bins must not point at the answer
    (``numeric_edges``); after it, a right bin that also held wrong answers, or left some
    right ones to its neighbour, told the room the wrong share."""
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"low and high must be finite with low < high, got {low!r} and {high!r}")
    if not (math.isfinite(answer) and math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"answer and tolerance must be finite, tolerance >= 0, got {answer!r} and {tolerance!r}")
    if integer:
        start, stop = low - 0.5, high + 0.5
        right_low = min(max(math.ceil(answer - tolerance - 1e-9), low), high) - 0.5
        right_high = max(min(math.floor(answer + tolerance + 1e-9), high), low) + 0.5
        right_high = max(right_high, right_low + 1)
    else:
        start, stop = low, high
        right_low, right_high = max(answer - tolerance, low), min(answer + tolerance, high)
        if right_high <= right_low:  # an exact answer: a bin as narrow as the input allows
            right_low, right_high = max(low, answer - 1e-9), min(high, answer + 1e-9)
    below, above = right_low - start, stop - right_high
    spare = max(bins - 1, 0)
    left = 0 if below <= 0 else max(1, min(spare - (above > 0), round(spare * below / (below + above))))
    right = 0 if above <= 0 else max(1, spare - left)
    edges = _split(start, right_low, left, integer)[:-1] if left else []
    at = len(edges)
    edges += [right_low, right_high]
    if right:
        edges += _split(right_high, stop, right, integer)[1:]
    return edges, at


def revealed_labels(edges: Sequence[float], integer: bool = False) -> list[str]:
    """A label per bin of ``revealed_edges``: "123", "113 to 133" (whole numbers, both ends
    held) or "0.1 to 0.25"."""
    if not integer:
        return numeric_labels(edges)
    labels = []
    for first, last in zip(edges[:-1], edges[1:], strict=True):
        lo, hi = round(first + 0.5), round(last - 0.5)  # whole numbers, written out in full
        labels.append(str(lo) if lo == hi else f"{lo} to {hi}")
    return labels


def revealed_counts(
    votes: Iterable[str], edges: Sequence[float], right: int, is_right: Callable[[float], bool]
) -> list[int]:
    """Votes per bin of ``revealed_edges``: the right bin holds the votes ``is_right`` takes,
    and only those (a vote on a bin's edge goes by the rule, not by rounding); the others go
    to the bin around them, beside the right one if they fall in it."""
    counts = [0] * (len(edges) - 1)
    for vote in votes:
        value = _as_number(vote)
        if value is None or not edges[0] <= value <= edges[-1]:
            continue
        if is_right(value):
            counts[right] += 1
            continue
        i = 0
        while i < len(counts) - 1 and value >= edges[i + 1]:
            i += 1
        if i == right:  # wrong, yet inside the right bin's edges: to the side it lies on
            i = right - 1 if value < (edges[right] + edges[right + 1]) / 2 else right + 1
        if 0 <= i < len(counts):
            counts[i] += 1
    return counts


def vote_label(vote: str, options: Sequence[str] = (), unit: str = "") -> str:
    """A vote as a person reads it: the option's text, or the number with its unit."""
    if options:
        index = _as_index(vote, len(options))
        return options[index] if index is not None else vote
    value = _as_number(vote)
    if value is None:
        return vote
    # a whole number in full (a table of 524,288 numbers, not 5.243e+05)
    shown = f"{int(value)}" if value == int(value) and abs(value) < 1e15 else f"{value:.4g}"
    return f"{shown} {unit}".strip()


# ------------------------------------------------------------------ a vote's timer, who answered


def seconds_left(deadline: float | None, now: float) -> int | None:
    """Whole seconds until a vote's ``deadline`` (rounded up: 0 only once it has passed),
    or None when the vote has no timer."""
    if deadline is None:
        return None
    return max(0, math.ceil(deadline - now - 1e-9))


def countdown_words(left: int | None) -> str:
    """A countdown as the screens say it: "0:30 left", "Time is up", or "" (no timer)."""
    if left is None:
        return ""
    if left <= 0:
        return "Time is up"
    return f"{left // 60}:{left % 60:02d} left"


def timer_label(seconds: int) -> str:
    """A timer choice as its button says it: "30 s", "1 min", "2 min", "1 min 30 s"."""
    minutes, rest = divmod(int(seconds), 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def who_answered(
    students: Iterable[tuple[str, str | None]],
) -> tuple[list[tuple[str, str]], list[str]]:
    """From (name, vote or None) per student, in the class's order: those who answered
    with their vote, and the names of those who have not."""
    answered, waiting = [], []
    for name, vote in students:
        if vote is None:
            waiting.append(name)
        else:
            answered.append((name, vote))
    return answered, waiting


def distinct_names(students: Iterable[tuple[str, str]]) -> list[str]:
    """Each (student id, nickname) as the teacher's list names them: the nickname, with the
    start of the id after a nickname two students share."""
    students = list(students)
    seen: dict[str, int] = {}
    for _, nickname in students:
        seen[nickname] = seen.get(nickname, 0) + 1
    return [nickname if seen[nickname] == 1 else f"{nickname} ({sid[:4]})" for sid, nickname in students]
