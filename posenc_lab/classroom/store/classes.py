"""Classes, joins and limits: starting a class (counted per network address), its cap, lock,
end and extension, the teacher key, students joining (a wrong code slowed per address, a
name made distinct) and leaving."""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets

from posenc_lab.classroom.address import limit_key
from posenc_lab.classroom.store.connect import _Tx
from posenc_lab.classroom.store.records import MAX_CLASS_CAP, ClassInfo, JoinRefused, NewClass, NotTeacher, Student
from posenc_lab.classroom.store.rules import (
    CODE_ALPHABET,
    CODE_LENGTH,
    NICKNAME_CHARS,
    TITLE_CHARS,
    _check_id,
    _clean_text,
    _hash_key,
    _name_keys,
    _new_id,
    _require_str,
    _shown_code,
    check_nickname,
    normalize_code,
)

TTL_HOURS = 12.0
MAX_TTL_HOURS = 168.0  # a week: a class is a lesson or a course block, not a permanent room
#: a student who gives no nickname is "Student 8" (``Store.join``)
ANONYMOUS = "Student"
JOIN_FAILURES_ALLOWED = 10
JOIN_FAILURE_WINDOW_S = 300.0
#: wrong codes from one network address (``join(network=...)``) in the window that are answered
#: at once: a class behind one school address makes fewer typos than this
NETWORK_FREE_FAILURES = 20
#: each wrong code beyond those is answered this much later than the one before, up to the
#: maximum: a guesser's sessions wait (however many it opens), while a right code is never
#: refused or slowed for other people's wrong codes
WRONG_CODE_DELAY_STEP_S = 0.25
WRONG_CODE_DELAY_MAX_S = 30.0
#: new students joining from one network address in the window: two lecture halls of 200
#: behind one school address stay under it; a script adding fake classmates across classes
#: does not (within one class, its cap and the teacher's lock hold it)
NETWORK_JOINS_ALLOWED = 400
#: classes started and plans saved from one network address in ADDRESS_WINDOW_S: more than a
#: school's teachers start or save in an hour, far less than a script filling the database
#: (a saved plan holds up to 90 kB and is kept PLAN_RETENTION_DAYS); a plan saved again as it
#: was is the one already kept, and counts nothing
CLASSES_PER_ADDRESS = 20
ADDRESS_WINDOW_S = 3600.0


def _limit_keys(client: str, network: str) -> tuple[str, str]:
    """A session and its address as the limits count them (an IPv6 address by its /64): the
    client is "address|session", the network an address."""
    address, bar, session = _require_str(client, "client")[:200].partition("|")
    return limit_key(address) + bar + session, limit_key(_require_str(network, "network")[:200])


def wrong_code_delay(earlier: int) -> float:
    """Seconds before a wrong code is answered, after ``earlier`` wrong codes from its address
    in the window: none for a class's typos, then a quarter second more for each, up to 30 s."""
    extra = earlier + 1 - NETWORK_FREE_FAILURES
    return 0.0 if extra <= 0 else min(WRONG_CODE_DELAY_MAX_S, WRONG_CODE_DELAY_STEP_S * extra)


class Classes:
    """Classes, joins and limits (a part of ``Store``)."""

    def _require_teacher(self, tx: _Tx, code: str, teacher_key: str) -> str:
        code = normalize_code(code)
        _require_str(teacher_key, "teacher_key")
        stored = tx.value("SELECT teacher_hash FROM classes WHERE code = ?", code)
        if stored is None or not hmac.compare_digest(stored, _hash_key(teacher_key)):
            raise NotTeacher(f"Only the teacher link of class {_shown_code(code)} can do this.")
        return code

    def _count_use(self, tx: _Tx, network: str, action: str, allowed: int, now: float, too_many: str) -> None:
        """Count one ``action`` ("class", "plan") by the address ``network`` (a ``limit_key``),
        or raise JoinRefused (``too_many``, the wait) when it did ``allowed`` in the window.
        No address (a script on the server, AppTest) is nobody to limit."""
        if not network:
            return
        # two app processes counting the same address at once count one after the other
        digest = hashlib.sha256(f"{action}|{network}".encode("utf-8", "surrogatepass")).digest()
        self._backend.lock(tx, int.from_bytes(digest[:8], "big", signed=True))
        tx.run("DELETE FROM address_uses WHERE at <= ?", now - ADDRESS_WINDOW_S)
        times = [
            row[0]
            for row in tx.all(
                "SELECT at FROM address_uses WHERE network = ? AND action = ? ORDER BY at", network, action
            )
        ]
        if len(times) >= allowed:
            wait = max(1, math.ceil(times[len(times) - allowed] + ADDRESS_WINDOW_S - now))
            minutes = math.ceil(wait / 60)
            raise JoinRefused(
                f"{too_many} from this network address: {allowed} in an hour. "
                f"Try again in {minutes} minute{'s' if minutes != 1 else ''}.",
                retry_after=wait,
            )
        tx.run("INSERT INTO address_uses (network, action, at) VALUES (?, ?, ?)", network, action, now)

    def create_class(self, title: str = "", ttl_hours: float = TTL_HOURS, *, network: str = "") -> NewClass:
        """A new class; ``network`` is the address of whoever starts it, which starts at most
        CLASSES_PER_ADDRESS in ADDRESS_WINDOW_S (then JoinRefused, with ``retry_after``)."""
        title = _clean_text(_require_str(title, "title"), TITLE_CHARS)
        network = limit_key(_require_str(network, "network")[:200])
        if (
            isinstance(ttl_hours, bool)
            or not isinstance(ttl_hours, int | float)
            or not math.isfinite(ttl_hours)
            or not 0 < ttl_hours <= MAX_TTL_HOURS
        ):
            raise ValueError(f"ttl_hours must be a number in (0, {MAX_TTL_HOURS:g}], got {ttl_hours!r}")
        teacher_key = secrets.token_urlsafe(24)
        with self._tx(write=True) as tx:
            now = self._clock()
            self._count_use(tx, network, "class", CLASSES_PER_ADDRESS, now, "Too many classes were started")
            expires = now + float(ttl_hours) * 3600.0
            for _ in range(20):
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                inserted = tx.run(
                    "INSERT INTO classes (code, teacher_hash, title, created, expires) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (code) DO NOTHING",
                    code,
                    _hash_key(teacher_key),
                    title,
                    now,
                    expires,
                )
                if inserted == 1:
                    return NewClass(code, teacher_key, expires)
        raise self._unavailable("no free class code was found; purge old classes")

    def class_info(self, code: str) -> ClassInfo | None:
        code = normalize_code(code)
        with self._tx() as tx:
            row = tx.one("SELECT code, title, created, expires, cap, locked, refused FROM classes WHERE code = ?", code)
        if row is None:
            return None
        return ClassInfo(row[0], row[1], float(row[2]), float(row[3]), int(row[4]), bool(row[5]), int(row[6]))

    def set_cap(self, code: str, teacher_key: str, cap: int) -> None:
        """The most students the class takes; those already in stay whatever the cap."""
        if isinstance(cap, bool) or not isinstance(cap, int) or not 1 <= cap <= MAX_CLASS_CAP:
            raise ValueError(f"cap must be a whole number from 1 to {MAX_CLASS_CAP}, got {cap!r:.40}")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            tx.run("UPDATE classes SET cap = ? WHERE code = ?", cap, code)

    def set_locked(self, code: str, teacher_key: str, locked: bool) -> None:
        """Close the class to new students (those in it stay, and come back with their link)."""
        if locked not in (True, False):
            raise ValueError(f"locked must be True or False, got {locked!r:.40}")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            tx.run("UPDATE classes SET locked = ? WHERE code = ?", int(locked), code)

    def end_class(self, code: str, teacher_key: str) -> None:
        """End the class now: no more joins or votes; its results stay for the teacher until
        they are deleted or purged."""
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            now = self._clock()
            tx.run("UPDATE classes SET expires = ? WHERE code = ? AND expires > ?", now, code, now)
            tx.run("UPDATE rounds SET closed = ? WHERE code = ? AND closed IS NULL", now, code)

    def new_teacher_key(self, code: str, teacher_key: str) -> str:
        """A new teacher key for the class; the old one (and every link with it) stops working."""
        fresh = secrets.token_urlsafe(24)
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            tx.run("UPDATE classes SET teacher_hash = ? WHERE code = ?", _hash_key(fresh), code)
        return fresh

    def is_open(self, code: str) -> bool:
        info = self.class_info(code)
        return info is not None and self._clock() < info.expires

    def is_teacher(self, code: str, teacher_key: str) -> bool:
        code = normalize_code(code)
        if not isinstance(teacher_key, str) or not teacher_key:
            return False
        with self._tx() as tx:
            stored = tx.value("SELECT teacher_hash FROM classes WHERE code = ?", code)
        return stored is not None and hmac.compare_digest(stored, _hash_key(teacher_key))

    def join(
        self, code: str, nickname: str = "", *, client: str = "", network: str = "", student_id: str | None = None
    ) -> Student:
        """Join class ``code`` (or come back, with ``student_id``).

        ``client`` is one browser session: its own wrong codes are limited (JOIN_FAILURES_ALLOWED
        in the window), then refused. ``network`` is the client's address (an IPv6 address
        counts as its /64, ``address.limit_key``), shared by a class behind one school
        address: its wrong codes are never a reason to refuse a right code; instead each
        further wrong code is answered later (``JoinRefused.delay``), so a guesser gains
        nothing by opening new sessions. New students per address are limited too
        (NETWORK_JOINS_ALLOWED), as they are per class (its cap) and by the teacher's lock.
        """
        normalized = normalize_code(code)
        try:
            nickname = check_nickname(_require_str(nickname, "nickname"))
        except ValueError as exc:
            if not isinstance(nickname, str):
                raise
            raise JoinRefused(str(exc)) from None
        client, network = _limit_keys(client, network)
        if student_id is not None:
            _check_id(student_id, "student_id")
        refusal: JoinRefused | None = None
        with self._tx(write=True) as tx:
            now = self._clock()
            tx.run("DELETE FROM network_joins WHERE at <= ?", now - JOIN_FAILURE_WINDOW_S)
            # a wrong code is counted, and committed below before refusing
            row, refusal = self._code_row(tx, normalized, client, network, now)
            if row is not None and now >= float(row[0]):
                refusal = JoinRefused(f"Class {normalized} has ended.")
            elif row is not None:
                if student_id is not None:
                    found = tx.one(
                        "SELECT nickname FROM students WHERE code = ? AND student_id = ?", normalized, student_id
                    )
                    if found is not None:
                        if nickname and nickname != found[0]:
                            nickname = self._distinct(tx, normalized, nickname, student_id)
                            tx.run(
                                "UPDATE students SET nickname = ? WHERE code = ? AND student_id = ?",
                                nickname,
                                normalized,
                                student_id,
                            )
                            return Student(student_id, nickname)
                        return Student(student_id, found[0])
                refusal = self._new_student_refusal(tx, normalized, network, now)
                if refusal is None:
                    nickname = self._distinct(tx, normalized, nickname or self._anonymous(tx, normalized))
                    new_id = _new_id(9)
                    tx.run(
                        "INSERT INTO students (code, student_id, nickname, joined) VALUES (?, ?, ?, ?)",
                        normalized,
                        new_id,
                        nickname,
                        now,
                    )
                    if network:
                        tx.run("INSERT INTO network_joins (network, at) VALUES (?, ?)", network, now)
                    return Student(new_id, nickname)
                # counted for the teacher, committed below before refusing
                tx.run("UPDATE classes SET refused = refused + 1 WHERE code = ?", normalized)
        raise refusal

    def look_up(self, code: str, *, client: str = "", network: str = "") -> None:
        """Whether class ``code`` exists, for a screen that shows a class by its code alone
        (the room screen): a wrong code is counted and refused as a join's is (``join``),
        so a screen's link is no faster way to guess codes. JoinRefused when it is wrong."""
        normalized = normalize_code(code)
        client, network = _limit_keys(client, network)
        with self._tx(write=True) as tx:
            _, refusal = self._code_row(tx, normalized, client, network, self._clock())
        if refusal is not None:
            raise refusal

    def _code_row(
        self, tx: _Tx, normalized: str, client: str, network: str, now: float
    ) -> tuple[tuple | None, JoinRefused | None]:
        """The class row of code ``normalized`` (its expiry), or None and the refusal of a
        wrong code, counted for the session and its address; a session with too many wrong
        codes in the window is refused at once (JoinRefused raised)."""
        tx.run("DELETE FROM join_failures WHERE at <= ?", now - JOIN_FAILURE_WINDOW_S)
        failures = [row[0] for row in tx.all("SELECT at FROM join_failures WHERE client = ? ORDER BY at", client)]
        if len(failures) >= JOIN_FAILURES_ALLOWED:
            # this session's own wrong codes: refused until enough age out to leave one more try
            oldest = failures[len(failures) - JOIN_FAILURES_ALLOWED]
            wait = max(1, math.ceil(oldest + JOIN_FAILURE_WINDOW_S - now))
            raise JoinRefused(f"Too many wrong codes from this device. Try again in {wait} s.", retry_after=wait)
        row = tx.one("SELECT expires FROM classes WHERE code = ?", normalized)
        if row is not None:
            return row, None
        buckets = [client] + (["net:" + network] if network else [])
        earlier = tx.value("SELECT COUNT(*) FROM join_failures WHERE client = ?", buckets[-1]) if network else 0
        for bucket in buckets:
            tx.run("INSERT INTO join_failures (client, at) VALUES (?, ?)", bucket, now)
        return None, JoinRefused(
            f"No class has the code {_shown_code(normalized)}. Check it on the teacher's screen.",
            delay=wrong_code_delay(int(earlier or 0)),
        )

    def _distinct(self, tx: _Tx, code: str, nickname: str, student_id: str | None = None) -> str:
        """``nickname``, or with a number after it ("Kim 2") when a classmate's name (other than
        ``student_id``'s own) looks the same (``_name_keys``: in any case or script), so that
        the teacher's list tells students apart."""
        if not nickname:
            return nickname
        taken: set[str] = set()
        for other, name in tx.all("SELECT student_id, nickname FROM students WHERE code = ?", code):
            if other != student_id:
                taken |= _name_keys(name)
        candidate, number = nickname, 1
        while _name_keys(candidate) & taken:
            number += 1
            suffix = f" {number}"
            candidate = nickname[: NICKNAME_CHARS - len(suffix)].rstrip() + suffix
        return candidate

    @staticmethod
    def _anonymous(tx: _Tx, code: str) -> str:
        """The name of a student who gave none: "Student 8" for the class's eighth (or the next
        free number), so the teacher's roster and the gradebook tell anonymous students apart."""
        taken = {row[0].casefold() for row in tx.all("SELECT nickname FROM students WHERE code = ?", code)}
        number = len(taken) + 1
        while f"{ANONYMOUS} {number}".casefold() in taken:
            number += 1
        return f"{ANONYMOUS} {number}"

    def _new_student_refusal(self, tx: _Tx, code: str, network: str, now: float) -> JoinRefused | None:
        # the class's row lock (PostgreSQL; SQLite's BEGIN IMMEDIATE already serializes) makes
        # joins at once count one after another, so that a flood cannot pass the cap
        tx.run("UPDATE classes SET cap = cap WHERE code = ?", code)
        cap, locked = tx.one("SELECT cap, locked FROM classes WHERE code = ?", code)
        cap = int(cap)
        if locked:
            return JoinRefused(f"Class {code} is closed to new students. Ask your teacher.")
        if int(tx.value("SELECT COUNT(*) FROM students WHERE code = ?", code)) >= cap:
            return JoinRefused(f"Class {code} is full ({cap} students). Ask your teacher.")
        if network:
            joins = [row[0] for row in tx.all("SELECT at FROM network_joins WHERE network = ? ORDER BY at", network)]
            if len(joins) >= NETWORK_JOINS_ALLOWED:
                oldest = joins[len(joins) - NETWORK_JOINS_ALLOWED]
                wait = max(1, math.ceil(oldest + JOIN_FAILURE_WINDOW_S - now))
                return JoinRefused(
                    f"Too many students joined from this network in a few minutes. Try again in {wait} s.",
                    retry_after=wait,
                )
        return None

    def student(self, code: str, student_id: str) -> Student | None:
        code = normalize_code(code)
        _check_id(student_id, "student_id")
        with self._tx() as tx:
            row = tx.one(
                "SELECT student_id, nickname FROM students WHERE code = ? AND student_id = ?", code, student_id
            )
        return None if row is None else Student(row[0], row[1])

    def remove_student(self, code: str, teacher_key: str, student_id: str) -> bool:
        """Take a student out of the class with their votes and exercise attempts (a fake
        classmate); their link stops working. False if no such student was in the class."""
        _check_id(student_id, "student_id")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            tx.run(
                "DELETE FROM answers WHERE student_id = ? AND round_id IN (SELECT id FROM rounds WHERE code = ?)",
                student_id,
                code,
            )
            tx.run("DELETE FROM attempts WHERE code = ? AND student_id = ?", code, student_id)
            return tx.run("DELETE FROM students WHERE code = ? AND student_id = ?", code, student_id) == 1

    def students(self, code: str) -> list[Student]:
        code = normalize_code(code)
        with self._tx() as tx:
            rows = tx.all("SELECT student_id, nickname FROM students WHERE code = ? ORDER BY joined, student_id", code)
        return [Student(sid, nick) for sid, nick in rows]

    def extend_class(self, code: str, teacher_key: str, hours: float = 1.0) -> float:
        """Keep the class open ``hours`` longer (from now, if it has ended), up to
        ``MAX_TTL_HOURS`` after it was made; returns the new end."""
        if isinstance(hours, bool) or not isinstance(hours, int | float) or not 0 < hours <= MAX_TTL_HOURS:
            raise ValueError(f"hours must be a number in (0, {MAX_TTL_HOURS:g}], got {hours!r:.40}")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            created, expires = tx.one("SELECT created, expires FROM classes WHERE code = ?", code)
            longest = float(created) + MAX_TTL_HOURS * 3600.0
            new_end = min(longest, max(float(expires), self._clock()) + hours * 3600.0)
            tx.run("UPDATE classes SET expires = ? WHERE code = ?", new_end, code)
            return new_end
