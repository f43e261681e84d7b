"""Rounds and votes: a question opened, answered, closed and revealed, round after round;
each student's exercise attempts; what the teacher reads of them (``summary``,
``class_record``)."""

from __future__ import annotations

from posenc_lab.classroom.store.connect import _Tx
from posenc_lab.classroom.store.records import ClassRecord, ItemSummary, Joined, Round
from posenc_lab.classroom.store.rules import (
    ATTEMPT_CHARS,
    VOTE_CHARS,
    _check_id,
    _check_key,
    _check_right,
    _check_text,
    _new_id,
    check_timer,
    normalize_code,
)


def _top_wrong(rows: list[tuple], item) -> tuple[tuple[str, int], ...]:
    """The three most common wrong answers of ``item`` from (item, answer, students) rows."""
    mine = sorted(((answer, int(n)) for key, answer, n in rows if key == item), key=lambda an: (-an[1], an[0]))
    return tuple(mine[:3])


#: seconds within which a teacher's press on a round that has since been replaced by a new
#: round of the same question is taken as that press delivered again (one press, one round)
AGAIN_WITHIN_S = 5.0


class Rounds:
    """Rounds, votes, exercise attempts and the results (a part of ``Store``)."""

    @staticmethod
    def _round(row) -> Round:
        rid, code, poll_key, number, opened, closed, revealed, deadline, shown = row
        return Round(rid, code, poll_key, int(number), float(opened), closed, revealed, deadline, shown)

    _ROUND_COLUMNS = "id, code, poll_key, number, opened, closed, revealed, deadline, shown"

    def open_poll(self, code: str, teacher_key: str, poll_key: str, *, after: str | None | bool = True) -> Round:
        """Open a new round of ``poll_key`` (closing any open one) and make it the current.

        ``after``: the id of the class's current round when the teacher pressed (None: no
        round yet). If another round of this question has been opened since, within
        ``AGAIN_WITHIN_S``, that round is returned and none is opened: a press that reaches
        the server twice opens one round. True (the default) always opens one."""
        _check_key(poll_key, "poll_key")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            # the row lock (PostgreSQL) serializes two teacher tabs opening polls at once;
            # SQLite's BEGIN IMMEDIATE already does
            tx.run("UPDATE classes SET expires = expires WHERE code = ?", code)
            now = self._clock()
            current = self._current_round_id(tx, code)
            if after is not True and current is not None and current != after:
                since = self._round(tx.one(f"SELECT {self._ROUND_COLUMNS} FROM rounds WHERE id = ?", current))
                if since.poll_key == poll_key and now - since.opened < AGAIN_WITHIN_S:
                    return since
            tx.run("UPDATE rounds SET closed = ? WHERE code = ? AND closed IS NULL", now, code)
            number = 1 + (
                tx.value("SELECT MAX(number) FROM rounds WHERE code = ? AND poll_key = ?", code, poll_key) or 0
            )
            seq = 1 + (tx.value("SELECT MAX(seq) FROM rounds WHERE code = ?", code) or 0)
            rid = _new_id(12)
            tx.run(
                "INSERT INTO rounds (id, code, poll_key, number, seq, opened) VALUES (?, ?, ?, ?, ?, ?)",
                rid,
                code,
                poll_key,
                number,
                seq,
                now,
            )
        return Round(rid, code, poll_key, number, now, None, None)

    def resume_poll(self, code: str, teacher_key: str, poll_key: str) -> Round:
        """Make the question ``poll_key`` the class's current one again, as it was: its latest
        round, with its answers, closed or revealed as it was left, and open again if no one
        had answered it and it was not revealed (a question the plan passed by). A question
        never asked opens its first round (``open_poll``). Previous and Next of a plan come
        here: a new round is what the teacher asks for, not what going back does (it made
        'round 2' of a question nobody answered, and a question reached round 6)."""
        _check_key(poll_key, "poll_key")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            tx.run("UPDATE classes SET expires = expires WHERE code = ?", code)  # serializes seq
            row = tx.one(
                f"SELECT {self._ROUND_COLUMNS} FROM rounds WHERE code = ? AND poll_key = ? "
                "ORDER BY number DESC LIMIT 1",
                code,
                poll_key,
            )
            if row is not None:
                last = self._round(row)
                now = self._clock()
                tx.run("UPDATE rounds SET closed = ? WHERE code = ? AND closed IS NULL AND id <> ?", now, code, last.id)
                unanswered = tx.value("SELECT COUNT(*) FROM answers WHERE round_id = ?", last.id) == 0
                if unanswered and last.revealed is None:
                    # open again as it was opened: without the timer that ran out
                    tx.run("UPDATE rounds SET closed = NULL, deadline = NULL WHERE id = ?", last.id)
                if self._current_round_id(tx, code) != last.id:
                    seq = 1 + (tx.value("SELECT MAX(seq) FROM rounds WHERE code = ?", code) or 0)
                    tx.run("UPDATE rounds SET seq = ? WHERE id = ?", seq, last.id)
                row = tx.one(f"SELECT {self._ROUND_COLUMNS} FROM rounds WHERE id = ?", last.id)
                return self._round(row)
        return self.open_poll(code, teacher_key, poll_key)

    def _current_round_id(self, tx: _Tx, code: str) -> str | None:
        return tx.value("SELECT id FROM rounds WHERE code = ? ORDER BY seq DESC LIMIT 1", code)

    def close_round(self, code: str, teacher_key: str) -> None:
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            rid = self._current_round_id(tx, code)
            if rid is not None:
                tx.run("UPDATE rounds SET closed = ? WHERE id = ? AND closed IS NULL", self._clock(), rid)

    def set_timer(self, code: str, teacher_key: str, seconds: float | None) -> Round | None:
        """Close the class's open round ``seconds`` from now (``rules.check_timer``: 5 s to
        10 min; a ValueError that says so otherwise), or take its timer away (None). The
        round as it is now, or None when no round is open (nothing is set)."""
        if seconds is not None:
            seconds = check_timer(seconds)
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            rid = self._current_round_id(tx, code)
            if rid is None:
                return None
            now = self._clock()
            tx.run(
                "UPDATE rounds SET deadline = ? WHERE id = ? AND closed IS NULL",
                None if seconds is None else now + seconds,
                rid,
            )
            current = self._round(tx.one(f"SELECT {self._ROUND_COLUMNS} FROM rounds WHERE id = ?", rid))
        return current if current.is_open else None

    def close_expired(self, code: str) -> bool:
        """Close the class's rounds whose timer ran out, as of their deadline; True when this
        call closed one. Any page may call it (no key: it only does what the teacher's timer
        asked); one UPDATE that finds only rounds still open, so two processes checking at
        once close a round once, and neither fails."""
        code = normalize_code(code)
        with self._tx(write=True) as tx:
            closed = tx.run(
                "UPDATE rounds SET closed = deadline "
                "WHERE code = ? AND closed IS NULL AND deadline IS NOT NULL AND deadline <= ?",
                code,
                self._clock(),
            )
        return closed > 0

    def live_round(self, code: str) -> Round | None:
        """``current_round``, closed first if its timer ran out (``close_expired``): what the
        pages that check every second read. A read alone unless a timer ran out."""
        current = self.current_round(code)
        if current is not None and current.is_open and current.deadline is not None:
            if current.deadline <= self._clock():
                self.close_expired(code)
                current = self.current_round(code)
        return current

    def now(self) -> float:
        """The store's clock (the time its deadlines are set and checked by)."""
        return self._clock()

    def reveal(self, code: str, teacher_key: str) -> None:
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            rid = self._current_round_id(tx, code)
            if rid is not None:
                now = self._clock()
                tx.run(
                    "UPDATE rounds SET closed = COALESCE(closed, ?), revealed = COALESCE(revealed, ?) WHERE id = ?",
                    now,
                    now,
                    rid,
                )

    def show_answer(self, code: str, teacher_key: str, student_id: str | None) -> bool:
        """Have the room screen show ``student_id``'s answer to the class's current round,
        without their name, to discuss it (None: show none). Only once the round is closed
        (the answer can no longer change under the room's eyes) and only an answer that
        exists; True when the round now shows what was asked."""
        if student_id is not None:
            _check_id(student_id, "student_id")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            rid = self._current_round_id(tx, code)
            if rid is None:
                return False
            if student_id is not None and (
                tx.one("SELECT 1 FROM rounds WHERE id = ? AND closed IS NOT NULL", rid) is None
                or tx.one("SELECT 1 FROM answers WHERE round_id = ? AND student_id = ?", rid, student_id) is None
            ):
                return False
            tx.run("UPDATE rounds SET shown = ? WHERE id = ?", student_id, rid)
        return True

    def shown_answer(self, current: Round) -> str | None:
        """The answer the room screen shows for ``current`` (``show_answer``), or None."""
        return None if current.shown is None else self.vote_of(current.id, current.shown)

    def current_round(self, code: str) -> Round | None:
        code = normalize_code(code)
        with self._tx() as tx:
            row = tx.one(
                f"SELECT {self._ROUND_COLUMNS} FROM rounds WHERE code = ? ORDER BY seq DESC LIMIT 1",
                code,
            )
        return None if row is None else self._round(row)

    def rounds(self, code: str, poll_key: str) -> list[Round]:
        code = normalize_code(code)
        _check_key(poll_key, "poll_key")
        with self._tx() as tx:
            rows = tx.all(
                f"SELECT {self._ROUND_COLUMNS} FROM rounds WHERE code = ? AND poll_key = ? ORDER BY number",
                code,
                poll_key,
            )
        return [self._round(row) for row in rows]

    def answer(self, round_id: str, student_id: str, vote: str, right: bool) -> bool:
        _check_id(round_id, "round_id")
        _check_id(student_id, "student_id")
        vote = _check_text(vote, "vote", VOTE_CHARS)
        right = _check_right(right)
        with self._tx(write=True) as tx:
            now = self._clock()
            allowed = tx.one(
                "SELECT 1 FROM rounds r JOIN classes c ON c.code = r.code "
                "JOIN students s ON s.code = r.code AND s.student_id = ? "
                "WHERE r.id = ? AND r.closed IS NULL AND c.expires > ? "
                "AND (r.deadline IS NULL OR r.deadline > ?)",
                student_id,
                round_id,
                now,
                now,
            )
            if allowed is None:
                return False
            tx.run(
                "INSERT INTO answers (round_id, student_id, vote, is_right, at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (round_id, student_id) DO UPDATE SET "
                "vote = excluded.vote, is_right = excluded.is_right, at = excluded.at",
                round_id,
                student_id,
                vote,
                int(right),
                now,
            )
        return True

    def answers_of(self, code: str, teacher_key: str, round_id: str) -> list[tuple[str, str, str | None]]:
        """Who answered round ``round_id`` and what, for its teacher alone: every student of
        the class in the order they joined, as (student id, nickname, vote or None)."""
        _check_id(round_id, "round_id")
        with self._tx() as tx:
            code = self._require_teacher(tx, code, teacher_key)
            rows = tx.all(
                "SELECT s.student_id, s.nickname, a.vote FROM students s "
                "LEFT JOIN answers a ON a.round_id = ? AND a.student_id = s.student_id "
                "JOIN rounds r ON r.id = ? AND r.code = s.code "
                "WHERE s.code = ? ORDER BY s.joined, s.student_id",
                round_id,
                round_id,
                code,
            )
        return [(sid, nickname, vote) for sid, nickname, vote in rows]

    def votes(self, round_id: str) -> list[tuple[str, bool]]:
        _check_id(round_id, "round_id")
        with self._tx() as tx:
            rows = tx.all("SELECT vote, is_right FROM answers WHERE round_id = ? ORDER BY at, student_id", round_id)
        return [(vote, bool(right)) for vote, right in rows]

    def count(self, round_id: str) -> int:
        _check_id(round_id, "round_id")
        with self._tx() as tx:
            return int(tx.value("SELECT COUNT(*) FROM answers WHERE round_id = ?", round_id))

    def vote_of(self, round_id: str, student_id: str) -> str | None:
        """A student's current vote in a round (None: no vote), so their page shows it
        again after a reload, on another device or after a restart."""
        _check_id(round_id, "round_id")
        _check_id(student_id, "student_id")
        with self._tx() as tx:
            return tx.value("SELECT vote FROM answers WHERE round_id = ? AND student_id = ?", round_id, student_id)

    def record_attempt(self, code: str, student_id: str, exercise_key: str, answer: str, right: bool) -> None:
        code = normalize_code(code)
        _check_id(student_id, "student_id")
        _check_key(exercise_key, "exercise_key")
        answer = _check_text(answer, "answer", ATTEMPT_CHARS)
        right = _check_right(right)
        with self._tx(write=True) as tx:
            tx.run(
                "INSERT INTO attempts (code, student_id, exercise_key, answer, is_right, at) "
                "SELECT code, student_id, ?, ?, ?, ? FROM students WHERE code = ? AND student_id = ?",
                exercise_key,
                answer,
                int(right),
                self._clock(),
                code,
                student_id,
            )

    def solved(self, code: str, student_id: str) -> set[str]:
        code = normalize_code(code)
        _check_id(student_id, "student_id")
        with self._tx() as tx:
            rows = tx.all(
                "SELECT DISTINCT exercise_key FROM attempts WHERE code = ? AND student_id = ? AND is_right = 1",
                code,
                student_id,
            )
        return {row[0] for row in rows}

    def summary(self, code: str, teacher_key: str) -> list[ItemSummary]:
        with self._tx() as tx:
            code = self._require_teacher(tx, code, teacher_key)
            exercise_rows = tx.all(
                "SELECT exercise_key, COUNT(DISTINCT student_id), "
                "COUNT(DISTINCT CASE WHEN is_right = 1 THEN student_id END) "
                "FROM attempts WHERE code = ? GROUP BY exercise_key ORDER BY exercise_key",
                code,
            )
            # a wrong answer counts once per student who gave it, however often they retried
            exercise_wrong = tx.all(
                "SELECT exercise_key, answer, COUNT(DISTINCT student_id) FROM attempts "
                "WHERE code = ? AND is_right = 0 GROUP BY exercise_key, answer",
                code,
            )
            round_rows = tx.all(
                "SELECT r.id, r.poll_key, r.number, COUNT(a.student_id), "
                "COALESCE(SUM(a.is_right), 0) FROM rounds r LEFT JOIN answers a ON a.round_id = r.id "
                "WHERE r.code = ? GROUP BY r.id, r.poll_key, r.number ORDER BY r.poll_key, r.number",
                code,
            )
            round_wrong = tx.all(
                "SELECT a.round_id, a.vote, COUNT(*) FROM answers a JOIN rounds r ON r.id = a.round_id "
                "WHERE r.code = ? AND a.is_right = 0 GROUP BY a.round_id, a.vote",
                code,
            )
        out = [
            ItemSummary(key, "exercise", 0, int(n), int(r), _top_wrong(exercise_wrong, key))
            for key, n, r in exercise_rows
        ]
        out += [
            ItemSummary(key, "poll", int(number), int(n), int(r), _top_wrong(round_wrong, rid))
            for rid, key, number, n, r in round_rows
        ]
        return out

    def class_record(self, code: str, teacher_key: str) -> ClassRecord:
        """Everything the class left for the teacher's exports (``classroom.report``): its
        students, each exercise key each student tried or solved, every round and every vote, and
        each student's practice record."""
        with self._tx() as tx:
            code = self._require_teacher(tx, code, teacher_key)
            title = tx.value("SELECT title FROM classes WHERE code = ?", code) or ""
            students = tuple(
                Joined(sid, nickname, float(joined))
                for sid, nickname, joined in tx.all(
                    "SELECT student_id, nickname, joined FROM students WHERE code = ? ORDER BY joined, student_id",
                    code,
                )
            )
            marks = {
                (sid, key): bool(right)
                for sid, key, right in tx.all(
                    "SELECT student_id, exercise_key, MAX(is_right) FROM attempts WHERE code = ? "
                    "GROUP BY student_id, exercise_key",
                    code,
                )
            }
            rounds = tuple(
                self._round(row)
                for row in tx.all(f"SELECT {self._ROUND_COLUMNS} FROM rounds WHERE code = ? ORDER BY seq", code)
            )
            votes = {
                (rid, sid): (vote, bool(right))
                for rid, sid, vote, right in tx.all(
                    "SELECT a.round_id, a.student_id, a.vote, a.is_right FROM answers a "
                    "JOIN rounds r ON r.id = a.round_id WHERE r.code = ?",
                    code,
                )
            }
            practice = self._class_practice(tx, code)
        return ClassRecord(code, title, students, marks, rounds, votes, practice)
