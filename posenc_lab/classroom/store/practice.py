"""Each student's practice on the variant exercises: the entries of the practice record a
lesson keeps (``ui.mastery``: an exercise, its variant number, what happened, in what
order), so the teacher's roster and gradebook count each student's mastery per skill from
the class database, and the student's record comes back on another device."""

from __future__ import annotations

from collections.abc import Iterable

from posenc_lab.classroom.store.rules import _check_id, _check_key, normalize_code

#: what happened to a variant (``ui.mastery``): asked for, first check right / wrong, wrong again
PRACTICE_KINDS = frozenset("arwx")
#: a variant number and an order are whole numbers below these (the record's own bounds)
PRACTICE_N_LIMIT = 1_000_000
PRACTICE_SEQ_LIMIT = 1_000_000_000
#: entries one call may send: a run adds one or two, a session's backlog a few dozen
PRACTICE_BATCH = 200
#: the most recent variants of each exercise kept per student (more than a row of mastery
#: needs; the caller passes the record's own rule, at most this)
PRACTICE_KEEP_MAX = 50

Entry = tuple[str, int, str, int]


def _whole(value, name: str, limit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < limit:
        raise ValueError(f"{name} must be a whole number from 0 below {limit}, got {value!r:.40}")
    return value


def check_entry(entry) -> Entry:
    """One practice entry, (exercise key, variant number, kind, order), checked."""
    if not isinstance(entry, tuple | list) or len(entry) != 4:
        raise ValueError(f"a practice entry is (key, n, kind, seq), got {entry!r:.80}")
    key, n, kind, seq = entry
    if kind not in PRACTICE_KINDS:
        raise ValueError(f"a practice entry's kind must be one of a, r, w, x, got {kind!r:.20}")
    return (
        _check_key(key, "exercise_key"),
        _whole(n, "n", PRACTICE_N_LIMIT),
        kind,
        _whole(seq, "seq", PRACTICE_SEQ_LIMIT),
    )


class Practice:
    """The students' practice records (a part of ``Store``)."""

    def record_practice(self, code: str, student_id: str, entries: Iterable[Entry], keep: int) -> bool:
        """Add ``entries`` to a student's practice record (an entry already there is kept
        once), then drop the variants of each exercise older than its last ``keep``, as the
        lesson's record does. False if the student is not in the class (or it expired)."""
        code = normalize_code(code)
        _check_id(student_id, "student_id")
        checked = sorted({check_entry(e) for e in entries})
        if len(checked) > PRACTICE_BATCH:
            raise ValueError(f"at most {PRACTICE_BATCH} practice entries at once, got {len(checked)}")
        keep = _whole(keep, "keep", PRACTICE_KEEP_MAX + 1)
        if not checked:
            return True
        with self._tx(write=True) as tx:
            allowed = tx.one(
                "SELECT 1 FROM students s JOIN classes c ON c.code = s.code "
                "WHERE s.code = ? AND s.student_id = ? AND c.expires > ?",
                code,
                student_id,
                self._clock(),
            )
            if allowed is None:
                return False
            for key, n, kind, seq in checked:
                tx.run(
                    "INSERT INTO practice (code, student_id, exercise_key, n, kind, seq) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    code,
                    student_id,
                    key,
                    n,
                    kind,
                    seq,
                )
            for key in sorted({e[0] for e in checked}):
                newest = tx.value(
                    "SELECT MAX(n) FROM practice WHERE code = ? AND student_id = ? AND exercise_key = ?",
                    code,
                    student_id,
                    key,
                )
                tx.run(
                    "DELETE FROM practice WHERE code = ? AND student_id = ? AND exercise_key = ? AND n <= ?",
                    code,
                    student_id,
                    key,
                    int(newest) - keep,
                )
        return True

    def practice(self, code: str, student_id: str) -> set[Entry]:
        """A student's practice record in the class (empty for a student it does not have)."""
        code = normalize_code(code)
        _check_id(student_id, "student_id")
        with self._tx() as tx:
            rows = tx.all(
                "SELECT exercise_key, n, kind, seq FROM practice WHERE code = ? AND student_id = ?", code, student_id
            )
        return {(key, int(n), kind, int(seq)) for key, n, kind, seq in rows}

    def _class_practice(self, tx, code: str) -> dict[str, frozenset[Entry]]:
        """Every student's practice record in the class, by student id (inside a transaction
        whose caller checked the teacher key)."""
        out: dict[str, set[Entry]] = {}
        for sid, key, n, kind, seq in tx.all(
            "SELECT student_id, exercise_key, n, kind, seq FROM practice WHERE code = ?", code
        ):
            out.setdefault(sid, set()).add((key, int(n), kind, int(seq)))
        return {sid: frozenset(entries) for sid, entries in out.items()}
