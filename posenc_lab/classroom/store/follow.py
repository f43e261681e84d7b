"""Follow me: where the teacher sends the class and whether it is held there, where each
student's page is (the roster), and raised hands."""

from __future__ import annotations

from posenc_lab.classroom.store.records import Follow, Place
from posenc_lab.classroom.store.rules import _check_id, _float_or_none, check_address, normalize_code


class Following:
    """Follow me, the roster and hands (a part of ``Store``)."""

    def send_class(self, code: str, teacher_key: str, address: str, *, practice: bool = False) -> int:
        """Send every student of the class to ``address`` (``check_address``); returns the
        send's number (``Follow.seq``), which each student's page follows once. ``practice``:
        the class is to practise that lesson's exercises (``Follow.practice``) until the next
        send, which ends it unless it says so again."""
        address = check_address(address)
        if not isinstance(practice, bool):
            raise ValueError(f"practice must be True or False, got {practice!r:.40}")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            tx.run(
                "UPDATE classes SET follow_address = ?, follow_seq = follow_seq + 1, follow_at = ?, "
                "follow_practice = ? WHERE code = ?",
                address,
                self._clock(),
                int(practice),
                code,
            )
            return int(tx.value("SELECT follow_seq FROM classes WHERE code = ?", code))

    def hold_class(self, code: str, teacher_key: str, held: bool) -> None:
        """Hold the class at the address last sent (a demo: a student who steps away is
        brought back), or let students explore again."""
        if not isinstance(held, bool):
            raise ValueError(f"held must be True or False, got {held!r:.40}")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            tx.run("UPDATE classes SET follow_held = ? WHERE code = ?", int(held), code)

    def follow(self, code: str) -> Follow | None:
        """Where the teacher sent the class; None if there is no such class."""
        code = normalize_code(code)
        with self._tx() as tx:
            row = tx.one(
                "SELECT follow_seq, follow_address, follow_held, follow_at, follow_practice "
                "FROM classes WHERE code = ?",
                code,
            )
        if row is None:
            return None
        return Follow(int(row[0]), row[1], bool(row[2]), None if row[3] is None else float(row[3]), bool(row[4]))

    def report_place(self, code: str, student_id: str, place: str) -> bool:
        """A student's page checks in: where it is (an address, ``check_address``, or "" on
        the class page) and when. False if the student is not in the class."""
        code = normalize_code(code)
        _check_id(student_id, "student_id")
        if place:
            check_address(place, "place")
        with self._tx(write=True) as tx:
            return (
                tx.run(
                    "UPDATE students SET place = ?, seen = ? WHERE code = ? AND student_id = ?",
                    place,
                    self._clock(),
                    code,
                    student_id,
                )
                == 1
            )

    def roster(self, code: str, teacher_key: str) -> list[Place]:
        """Every student of the class with where their page is, their hand, what they
        solved and their practice record, in the order they joined."""
        with self._tx() as tx:
            code = self._require_teacher(tx, code, teacher_key)
            rows = tx.all(
                "SELECT student_id, nickname, place, seen, hand FROM students WHERE code = ? "
                "ORDER BY joined, student_id",
                code,
            )
            solved: dict[str, set[str]] = {}
            for sid, key in tx.all(
                "SELECT DISTINCT student_id, exercise_key FROM attempts WHERE code = ? AND is_right = 1", code
            ):
                solved.setdefault(sid, set()).add(key)
            practice = self._class_practice(tx, code)
        return [
            Place(
                sid,
                nick,
                place,
                _float_or_none(seen),
                _float_or_none(hand),
                frozenset(solved.get(sid, ())),
                practice.get(sid, frozenset()),
            )
            for sid, nick, place, seen, hand in rows
        ]

    def raise_hand(self, code: str, student_id: str, up: bool) -> bool:
        """A student's hand up ("I'm stuck") or down; False if the student is not in the class."""
        code = normalize_code(code)
        _check_id(student_id, "student_id")
        if not isinstance(up, bool):
            raise ValueError(f"up must be True or False, got {up!r:.40}")
        with self._tx(write=True) as tx:
            return (
                tx.run(
                    "UPDATE students SET hand = CASE WHEN ? = 1 THEN COALESCE(hand, ?) ELSE NULL END "
                    "WHERE code = ? AND student_id = ?",
                    int(up),
                    self._clock(),
                    code,
                    student_id,
                )
                == 1
            )

    def hand_of(self, code: str, student_id: str) -> bool:
        """Whether the student's hand is up."""
        code = normalize_code(code)
        _check_id(student_id, "student_id")
        with self._tx() as tx:
            return tx.value("SELECT hand FROM students WHERE code = ? AND student_id = ?", code, student_id) is not None

    def hands_up(self, code: str) -> int:
        """How many students of the class have their hand up."""
        code = normalize_code(code)
        with self._tx() as tx:
            return int(tx.value("SELECT COUNT(*) FROM students WHERE code = ? AND hand IS NOT NULL", code))

    def lower_hands(self, code: str, teacher_key: str) -> int:
        """The teacher lowers every raised hand; returns how many were up."""
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            return tx.run("UPDATE students SET hand = NULL WHERE code = ? AND hand IS NOT NULL", code)
