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
    # a gap a few floating-point steps wide (beside a bin of the rule's own edges) has fewer
    inner = sorted({start + (stop - start) * i / parts for i in range(1, parts)})
    return [start, *(e for e in inner if start < e < stop), stop]


def _held(centre: float, tolerance: float, low: float, high: float, integer: bool) -> tuple[float, float]:
    """The edges of a bin holding exactly the votes within ``tolerance`` of ``centre`` (for
    whole numbers, the whole numbers there, one at least), clipped to ``low`` to ``high``."""
    if integer:
        first = min(max(math.ceil(centre - tolerance - 1e-9), low), high) - 0.5
        last = max(min(math.floor(centre + tolerance + 1e-9), high), low) + 0.5
        return first, max(last, first + 1)
    first, last = max(centre - tolerance, low), min(centre + tolerance, high)
    # the first and last numbers the rule itself takes (|vote - centre| <= tolerance, in
    # floating point): centre - tolerance may round to a number just outside it
    for _ in range(4):
        if first < last and abs(first - centre) > tolerance:
            first = math.nextafter(first, math.inf)
        if first < last and abs(last - centre) > tolerance:
            last = math.nextafter(last, -math.inf)
    if last <= first:  # an exact value: a bin as narrow as the input allows
        first, last = max(low, centre - 1e-9), min(high, centre + 1e-9)
    return first, last


def _shares(widths: Sequence[float], parts: int) -> list[int]:
    """``parts`` bins shared out between gaps of ``widths`` by their widths, one at least each
    (largest remainders: the parts add up, more only when the gaps outnumber them)."""
    if not widths:
        return []
    out = [1] * len(widths)
    rest, total = max(parts - len(widths), 0), sum(widths)
    quotas = [rest * w / total for w in widths]
    out = [n + math.floor(q) for n, q in zip(out, quotas, strict=True)]
    left = rest - sum(math.floor(q) for q in quotas)
    for i in sorted(range(len(widths)), key=lambda i: (math.floor(quotas[i]) - quotas[i], i))[:left]:
        out[i] += 1
    return out


def named_edges(
    low: float,
    high: float,
    answer: float,
    tolerance: float,
    integer: bool = False,
    bins: int = NUMERIC_BINS,
    named: Sequence[float] = (),
) -> tuple[list[float], int, dict[int, tuple[int, ...]]]:
    """``revealed_edges`` with a bin of its own for each of ``named`` (the misconceptions' values,
    ``Poll.misconceptions``): the wrong votes within ``tolerance`` of it, and only those.
    Returns the edges, the right bin's index, and {bin: the indices in ``named`` of the values
    it holds} (two values whose bins overlap share one; a value outside ``low`` to ``high``, or
    whose every vote is right, has none). The right bin keeps its votes whole: a named bin
    beside it stops at its edge. The rest of ``low`` to ``high`` is shared out between the
    gaps, by their widths, in what is left of ``bins`` (one at least in each)."""
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"low and high must be finite with low < high, got {low!r} and {high!r}")
    if not (math.isfinite(answer) and math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"answer and tolerance must be finite, tolerance >= 0, got {answer!r} and {tolerance!r}")
    start, stop = (low - 0.5, high + 0.5) if integer else (low, high)
    right_low, right_high = _held(answer, tolerance, low, high, integer)
    # each named value's bin, on its side of the right one, those that overlap merged
    spans: list[tuple[float, float, tuple[int, ...]]] = []
    for k, value in enumerate(named):
        if not (math.isfinite(value) and low <= value <= high):
            continue
        first, last = _held(value, tolerance, low, high, integer)
        if last > right_low and first < right_high:
            first, last = (first, right_low) if value < answer else (right_high, last)
        if last > first:
            spans.append((first, last, (k,)))
    spans.sort()
    merged: list[tuple[float, float, tuple[int, ...]]] = []
    for first, last, ks in spans:
        if merged and first < merged[-1][1]:
            top = merged.pop()
            first, last, ks = top[0], max(top[1], last), top[2] + ks
        merged.append((first, last, ks))
    marked = sorted([(right_low, right_high, None), *merged], key=lambda span: span[0])
    # the gaps between them, and the bins each gets
    gaps, at = [], start
    for first, last, _ in marked:
        gaps.append((at, first))
        at = last
    gaps.append((at, stop))
    roomy = [i for i, (a, b) in enumerate(gaps) if b > a]
    parts = dict(zip(roomy, _shares([gaps[i][1] - gaps[i][0] for i in roomy], bins - len(marked)), strict=True))
    edges, right, held = [start], 0, {}
    for i, (a, b) in enumerate(gaps):
        if i in parts:
            edges += _split(a, b, parts[i], integer)[1:]
        if i < len(marked):
            edges.append(marked[i][1])
            if marked[i][2] is None:
                right = len(edges) - 2
            else:
                held[len(edges) - 2] = tuple(sorted(marked[i][2]))
    return edges, right, held


def revealed_edges(
    low: float, high: float, answer: float, tolerance: float, integer: bool = False, bins: int = NUMERIC_BINS
) -> tuple[list[float], int]:
    """Bin edges for a numeric poll once its answer is revealed, and the index of the right
    bin: exactly the votes within ``tolerance`` of ``answer`` (for whole numbers, the whole
    numbers there), with the rest of ``low`` to ``high`` in ``bins - 1`` bins on its two
    sides, shared by their widths (one at least on a side that has room; fewer where there
    are fewer whole numbers). Before the reveal the bins must not point at the answer
    (``numeric_edges``); after it, a right bin that also held wrong answers, or left some
    right ones to its neighbour, told the room the wrong share. ``named_edges`` also gives
    the misconceptions bins of their own."""
    edges, right, _ = named_edges(low, high, answer, tolerance, integer, bins)
    return edges, right


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
    votes: Iterable[str],
    edges: Sequence[float],
    right: int,
    is_right: Callable[[float], bool],
    held: dict[int, Callable[[float], bool]] | None = None,
) -> list[int]:
    """Votes per bin of ``revealed_edges`` (or ``named_edges``): the right bin holds the votes
    ``is_right`` takes, and only those, and each bin of ``held`` the wrong votes its rule takes
    (a misconception's: within the tolerance of its value), and only those (a vote on a
    bin's edge goes by the rule, not by rounding); the others go to the bin around them, or,
    when that is one of these, to the nearest other bin on the side they lie on."""
    held = held or {}
    counts = [0] * (len(edges) - 1)
    marked = {right, *held}
    for vote in votes:
        value = _as_number(vote)
        if value is None or not edges[0] <= value <= edges[-1]:
            continue
        if is_right(value):
            counts[right] += 1
            continue
        taken = next((i for i, takes in sorted(held.items()) if takes(value)), None)
        if taken is not None:
            counts[taken] += 1
            continue
        i = 0
        while i < len(counts) - 1 and value >= edges[i + 1]:
            i += 1
        if i in marked:  # inside a marked bin's edges, yet not its: to the side it lies on
            free = [j for j in range(len(counts)) if j not in marked]
            below = value < (edges[i] + edges[i + 1]) / 2
            side = [j for j in free if j < i] if below else [j for j in free if j > i]
            # the nearest on its side; then the other side's; every bin marked: where it lies
            i = (max(side) if below else min(side)) if side else min(free, key=lambda j: abs(j - i), default=i)
        counts[i] += 1
    return counts


def named_near(value: float, misconceptions: Iterable[tuple[float, str]], tolerance: float) -> tuple[str, ...]:
    """The names of the misconceptions ((value, name), ...) whose value lies within
    ``tolerance`` of a vote's ``value``."""
    return tuple(name for named, name in misconceptions if abs(float(value) - float(named)) <= tolerance)


def named_label(vote: str, misconceptions: Iterable[tuple[float, str]], tolerance: float, unit: str = "") -> str:
    """A wrong numeric vote as the results list it: "256 pairs (every pair turns)" within
    ``tolerance`` of a misconception's value, else as ``vote_label`` says it."""
    value = _as_number(vote)
    names = named_near(value, misconceptions, tolerance) if value is not None else ()
    return with_names(vote_label(vote, unit=unit), names)


def with_names(words: str, names: Sequence[str]) -> str:
    """A vote in words with the misconceptions it matches: "256 pairs (every pair turns)"."""
    return f"{words} ({'; '.join(names)})" if names else words


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
