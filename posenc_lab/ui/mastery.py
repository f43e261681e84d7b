"""A student's practice on the variant exercises: which variant each one shows, and which
skills are mastered. Pure data, no Streamlit: ``ui.exercises`` keeps the record in the
session and ``ui.progress`` in the browser.

The record is a set of short strings, ``"key|n|kind|seq"``: exercise ``key``, its variant
number ``n`` (the attempt, 0 first: ``exercise_kinds.draw``), what happened, and ``seq``,
the order it happened in. Kinds:

- ``a``: the student asked for variant ``n`` ("Try another");
- ``r`` / ``w``: the first check of variant ``n`` was right / wrong;
- ``x``: variant ``n`` was answered wrong a second time (its worked solution is offered).

A set of strings merges by union, as the solved keys do: two tabs, or a browser's stored
copy and a session that has just started, never erase each other's record. Only the last
``KEEP`` variants of each exercise are kept (``prune``, which the browser applies alike),
so the record stays a few kilobytes however long a student practises.

**Mastery.** A skill is mastered when the last ``IN_A_ROW`` variants whose first check
counted toward it (the exercises of the skill, in the order checked) were right at that
first check: three right answers in a row, on three different variants. A wrong first
check breaks the row, and a variant answered right only after a wrong try (or after its
worked solution) does not count, so after a miss the skill waits for three fresh ones.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

#: right answers in a row, each on a different variant, that master a skill
IN_A_ROW = 3
#: the last variants of each exercise kept in the record (more than IN_A_ROW: the newest
#: first checks of a skill are always among them)
KEEP = 6
#: wrong answers on one variant after which its worked solution is offered
WRONG_BEFORE_SOLUTION = 2
#: skipped variants a row forgives; one more breaks it
FREE_SKIPS = 1
ENTRY = re.compile(r"([a-z0-9_]{1,60})\|(\d{1,6})\|([arwx])\|(\d{1,9})")


@dataclass(frozen=True)
class Entry:
    key: str
    n: int
    kind: str
    seq: int

    def __str__(self) -> str:
        return f"{self.key}|{self.n}|{self.kind}|{self.seq}"


def parse(record: Iterable[str], keys: Collection[str] | None = None) -> list[Entry]:
    """The well-formed entries of ``record`` (of exercises in ``keys``, when given)."""
    entries = []
    for text in record:
        match = ENTRY.fullmatch(text) if isinstance(text, str) else None
        if match and (keys is None or match[1] in keys):
            entries.append(Entry(match[1], int(match[2]), match[3], int(match[4])))
    return entries


def prune(record: Iterable[str], keys: Collection[str] | None = None) -> set[str]:
    """The record without malformed entries and without the variants of an exercise older
    than its last ``KEEP`` (the browser's copy applies the same rule)."""
    entries = parse(record, keys)
    newest: dict[str, int] = {}
    for e in entries:
        newest[e.key] = max(newest.get(e.key, 0), e.n)
    return {str(e) for e in entries if e.n > newest[e.key] - KEEP}


def _next_seq(entries: list[Entry]) -> int:
    return max((e.seq for e in entries), default=0) + 1


def attempt(record: Iterable[str], key: str) -> int:
    """The variant number exercise ``key`` shows now: the last one asked for (0 at first)."""
    return max((e.n for e in parse(record) if e.key == key), default=0)


def try_another(record: set[str], key: str) -> None:
    """Move exercise ``key`` on to its next variant."""
    entries = parse(record)
    record.add(str(Entry(key, attempt(record, key) + 1, "a", _next_seq(entries))))


def wrong_count(record: Iterable[str], key: str, n: int) -> int:
    """Wrong answers on variant ``n`` of ``key``, up to ``WRONG_BEFORE_SOLUTION``."""
    kinds = {e.kind for e in parse(record) if e.key == key and e.n == n}
    return ("w" in kinds) + ("x" in kinds)


def record_check(record: set[str], key: str, n: int, right: bool) -> None:
    """Note a checked answer on variant ``n`` of ``key``: its first check, right or wrong,
    and a second wrong answer; later checks add nothing the record needs."""
    entries = parse(record)
    kinds = {e.kind for e in entries if e.key == key and e.n == n}
    if not kinds & {"r", "w"}:
        record.add(str(Entry(key, n, "r" if right else "w", _next_seq(entries))))
    elif "w" in kinds and "x" not in kinds and not right:
        record.add(str(Entry(key, n, "x", _next_seq(entries))))


def skips(record: Iterable[str], keys: Collection[str]) -> list[Entry]:
    """The skipped variants of the exercises ``keys``, each as its skip happened: an entry of
    kind ``s`` for variant n, with the seq of the "Try another" that left it unchecked."""
    entries = parse(record, keys)
    checked = {(e.key, e.n) for e in entries if e.kind in "rw"}
    newest: dict[str, int] = {}
    for e in entries:
        newest[e.key] = max(newest.get(e.key, 0), e.n)
    out = []
    for e in entries:
        left = e.n - 1  # the variant shown until this "Try another"
        # a variant older than the record keeps (``prune``) may have lost its check: not a skip
        if e.kind == "a" and left > newest[e.key] - KEEP and (e.key, left) not in checked:
            out.append(Entry(e.key, left, "s", e.seq))
    return out


def row(record: Iterable[str], keys: Collection[str]) -> tuple[int, int]:
    """The current row over the exercises ``keys`` (a skill's): (right first checks in it,
    skips it forgave). A wrong first check ends a row, and so does a skip beyond the
    ``FREE_SKIPS`` it forgives. Read from the variants the record keeps (``prune``), so the
    browser's pruned copy and the session's tell the same row."""
    record = prune(record, keys)
    firsts: dict[tuple[str, int], Entry] = {}
    for e in parse(record, keys):
        if e.kind in "rw":
            # two tabs may each have noted a first check: the earlier one is the first
            old = firsts.get((e.key, e.n))
            if old is None or e.seq < old.seq:
                firsts[e.key, e.n] = e
    count = skipped = 0
    # oldest first: a row runs from its start to the wrong answer or the skip too many that
    # ends it, and the next row starts afresh (no right answers, no skips forgiven yet)
    for e in sorted([*firsts.values(), *skips(record, keys)], key=lambda e: e.seq):
        if e.kind == "r":
            count += 1
        elif e.kind == "w" or skipped == FREE_SKIPS:
            count = skipped = 0
        else:
            skipped += 1
    return count, skipped


def streak(record: Iterable[str], keys: Collection[str]) -> int:
    """Right first checks in a row, newest last, over the exercises ``keys`` (a skill's)."""
    return row(record, keys)[0]


def mastered(record: Iterable[str], keys: Collection[str]) -> bool:
    return streak(record, keys) >= IN_A_ROW
