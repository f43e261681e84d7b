"""Issue 36: class mode a school can trust, at the level of the class database and of the
client address. Every test runs on a real SQLite file and on the throwaway PostgreSQL server
(``class_db_url``, tests/conftest.py); time is injected, so nothing sleeps.
"""

from __future__ import annotations

import pg_support
import pytest

from posenc_lab.classroom import store as class_store
from posenc_lab.classroom.store import JoinRefused, NotTeacher, PlanStep, open_store, schema

T0 = pg_support.T0


# ------------------------------------------------------------------ 1: the client address behind a proxy


def _address():
    # imported here, so that the store's tests below run (and fail on their own) without it
    from posenc_lab.classroom import address

    return address


@pytest.mark.parametrize(
    ("peer", "headers", "expected"),
    [
        # nginx on the same host: the peer is loopback, nginx's X-Real-IP names the student
        ("127.0.0.1", {"X-Real-Ip": "203.0.113.9"}, "203.0.113.9"),
        ("::1", {"X-Real-Ip": "2001:db8::7"}, "2001:db8::7"),
        # only X-Forwarded-For: its last address the proxy did not add itself
        ("127.0.0.1", {"X-Forwarded-For": "198.51.100.1, 203.0.113.9"}, "203.0.113.9"),
        ("127.0.0.1", {"X-Forwarded-For": "203.0.113.9, 127.0.0.1"}, "203.0.113.9"),
        # a browser straight on the app's port: its headers are not trusted
        ("198.51.100.4", {"X-Real-Ip": "10.9.9.9", "X-Forwarded-For": "10.9.9.9"}, "198.51.100.4"),
        # a loopback peer with no header (the app opened on the teacher's own computer)
        ("127.0.0.1", {}, "127.0.0.1"),
        # nonsense in the header falls back to the peer
        ("127.0.0.1", {"X-Real-Ip": "not an address"}, "127.0.0.1"),
        # no request at all (AppTest)
        ("", {}, ""),
    ],
)
def test_the_client_address_comes_from_a_trusted_proxy_only(peer, headers, expected):
    client_address = _address()
    loopback_only = client_address.trusted_proxies({})
    assert client_address.client_address(peer, headers, loopback_only) == expected


def test_the_trusted_proxies_are_one_setting():
    client_address = _address()
    nets = client_address.trusted_proxies({client_address.SETTING: "10.0.0.0/8, 192.0.2.5"})
    assert client_address.client_address("10.1.2.3", {"X-Real-Ip": "203.0.113.9"}, nets) == "203.0.113.9"
    assert client_address.client_address("192.0.2.5", {"X-Real-Ip": "203.0.113.9"}, nets) == "203.0.113.9"
    # loopback is no longer trusted once the setting names other proxies
    assert client_address.client_address("127.0.0.1", {"X-Real-Ip": "203.0.113.9"}, nets) == "127.0.0.1"
    with pytest.raises(ValueError, match=client_address.SETTING):
        client_address.trusted_proxies({client_address.SETTING: "not-a-network"})


# ------------------------------------------------------------------ 2: no room lockout


def test_a_right_code_is_never_refused_for_other_peoples_wrong_codes(store, clock):
    """500 typos from 50 sessions behind one school address: a classmate's right code, from
    a fresh session at that address, joins at once."""
    new = store.create_class()
    for i in range(500):
        clock.now = T0 + i * 0.1
        with pytest.raises(JoinRefused, match="No class has the code"):
            store.join("ZZZZZZ", client=f"203.0.113.9|s{i // 10}", network="203.0.113.9")
    student = store.join(new.code, "Kim", client="203.0.113.9|fresh", network="203.0.113.9")
    assert student.student_id and student.nickname == "Kim"


def test_a_wrong_code_is_answered_later_the_more_wrong_codes_an_address_sent(store, clock):
    """The network's wrong codes slow every further wrong code from it (a guesser's sessions
    wait, however many it opens); a class's few typos wait nothing."""
    delays = []
    for i in range(200):
        clock.now = T0 + i * 0.5
        with pytest.raises(JoinRefused) as info:
            store.join("ZZZZZZ", client=f"198.51.100.7|s{i // 5}", network="198.51.100.7")
        delays.append(info.value.delay)
    free = class_store.NETWORK_FREE_FAILURES
    assert delays[:free] == [0.0] * free
    assert all(b >= a for a, b in zip(delays, delays[1:], strict=False))
    assert delays[free] > 0 and delays[-1] == class_store.WRONG_CODE_DELAY_MAX_S
    # another address is not slowed
    with pytest.raises(JoinRefused) as info:
        store.join("ZZZZZZ", client="192.0.2.1|s", network="192.0.2.1")
    assert info.value.delay == 0.0
    # the delay goes as the wrong codes age out of the window
    clock.now += class_store.JOIN_FAILURE_WINDOW_S + 1
    with pytest.raises(JoinRefused) as info:
        store.join("ZZZZZZ", client="198.51.100.7|late", network="198.51.100.7")
    assert info.value.delay == 0.0


# ------------------------------------------------------------------ 3: bots


def test_joins_from_one_address_are_limited(store, clock):
    new = store.create_class()
    store.set_cap(new.code, new.teacher_key, class_store.MAX_CLASS_CAP)  # the address's limit, not the class's
    for i in range(class_store.NETWORK_JOINS_ALLOWED):
        clock.now = T0 + i * 0.1
        store.join(new.code, f"bot {i}", client=f"203.0.113.9|s{i}", network="203.0.113.9")
    with pytest.raises(JoinRefused, match="Too many students joined from this network") as info:
        store.join(new.code, client="203.0.113.9|one-more", network="203.0.113.9")
    assert info.value.retry_after and info.value.retry_after > 0
    # a student elsewhere still gets in, and a student who already joined comes back
    assert store.join(new.code, client="198.51.100.2|s", network="198.51.100.2").student_id
    first = store.students(new.code)[0]
    assert store.join(new.code, client="203.0.113.9|back", network="203.0.113.9", student_id=first.student_id)
    assert store.class_info(new.code).refused == 1
    clock.now = T0 + class_store.JOIN_FAILURE_WINDOW_S + 60
    assert store.join(new.code, client="203.0.113.9|later", network="203.0.113.9").student_id


def test_a_class_has_a_cap_the_teacher_sets(store, clock):
    new = store.create_class()
    assert store.class_info(new.code).cap == class_store.CLASS_CAP
    store.set_cap(new.code, new.teacher_key, 3)
    ids = [store.join(new.code, client=f"c{i}", network=f"192.0.2.{i}").student_id for i in range(3)]
    with pytest.raises(JoinRefused, match="is full"):
        store.join(new.code, client="c9", network="192.0.2.9")
    # a student of the class still comes back
    assert store.join(new.code, client="c0b", network="192.0.2.0", student_id=ids[0]).student_id == ids[0]
    assert store.class_info(new.code).refused == 1
    with pytest.raises(NotTeacher):
        store.set_cap(new.code, "wrong key", 100)
    with pytest.raises(ValueError, match="cap"):
        store.set_cap(new.code, new.teacher_key, 0)
    store.set_cap(new.code, new.teacher_key, 4)
    assert store.join(new.code, client="c9", network="192.0.2.9").student_id


def test_a_locked_class_refuses_new_joins_and_counts_them(store, clock):
    new = store.create_class()
    kim = store.join(new.code, "Kim", client="a", network="192.0.2.1")
    store.set_locked(new.code, new.teacher_key, True)
    for i in range(3):
        with pytest.raises(JoinRefused, match="closed to new students"):
            store.join(new.code, client=f"b{i}", network="192.0.2.2")
    assert store.join(new.code, client="a2", network="192.0.2.1", student_id=kim.student_id) == kim
    info = store.class_info(new.code)
    assert info.locked and info.refused == 3
    with pytest.raises(NotTeacher):
        store.set_locked(new.code, "wrong key", False)
    store.set_locked(new.code, new.teacher_key, False)
    assert store.join(new.code, client="b9", network="192.0.2.2").student_id


def test_the_teacher_removes_a_student_and_their_votes(store, clock, class_db_url):
    new = store.create_class()
    bot = store.join(new.code, "bot", client="a", network="192.0.2.1")
    kim = store.join(new.code, "Kim", client="b", network="192.0.2.2")
    rnd = store.open_poll(new.code, new.teacher_key, "poll-one")
    assert store.answer(rnd.id, bot.student_id, "0", False)
    assert store.answer(rnd.id, kim.student_id, "1", True)
    store.record_attempt(new.code, bot.student_id, "ex-one", "7", False)
    with pytest.raises(NotTeacher):
        store.remove_student(new.code, "wrong key", bot.student_id)
    assert store.remove_student(new.code, new.teacher_key, bot.student_id) is True
    assert store.students(new.code) == [kim]
    assert store.count(rnd.id) == 1 and store.votes(rnd.id) == [("1", True)]
    assert store.solved(new.code, bot.student_id) == set()
    assert [s.answered for s in store.summary(new.code, new.teacher_key) if s.kind == "exercise"] == []
    # the removed student's link no longer votes
    assert store.answer(rnd.id, bot.student_id, "0", False) is False
    assert store.remove_student(new.code, new.teacher_key, bot.student_id) is False


# ------------------------------------------------------------------ 4: ending a class, a new teacher link


def test_the_teacher_ends_a_class_now(store, clock):
    new = store.create_class()
    kim = store.join(new.code, client="a", network="192.0.2.1")
    rnd = store.open_poll(new.code, new.teacher_key, "poll-one")
    with pytest.raises(NotTeacher):
        store.end_class(new.code, "wrong key")
    clock.now += 60
    store.end_class(new.code, new.teacher_key)
    assert not store.is_open(new.code)
    assert store.class_info(new.code).expires == clock.now
    assert store.answer(rnd.id, kim.student_id, "0", False) is False
    with pytest.raises(JoinRefused, match="has ended"):
        store.join(new.code, client="b", network="192.0.2.2")


def test_a_new_teacher_link_makes_the_old_one_useless(store, clock):
    new = store.create_class()
    with pytest.raises(NotTeacher):
        store.new_teacher_key(new.code, "wrong key")
    fresh = store.new_teacher_key(new.code, new.teacher_key)
    assert fresh != new.teacher_key and len(fresh) >= 32
    assert store.is_teacher(new.code, fresh) and not store.is_teacher(new.code, new.teacher_key)
    with pytest.raises(NotTeacher):
        store.open_poll(new.code, new.teacher_key, "poll-one")
    assert store.open_poll(new.code, fresh, "poll-one").number == 1


def test_joins_at_once_never_pass_the_cap(class_db_url):
    """Two stores (two app processes), 24 sessions joining at the same moment, cap 5."""
    import threading

    with open_store(class_db_url) as one, open_store(class_db_url) as two:
        new = one.create_class()
        one.set_cap(new.code, new.teacher_key, 5)
        start = threading.Barrier(24)
        outcomes: list[str] = []

        def join(i: int) -> None:
            start.wait()
            try:
                (one if i % 2 else two).join(new.code, client=f"c{i}", network=f"192.0.2.{i}")
                outcomes.append("in")
            except JoinRefused:
                outcomes.append("refused")

        threads = [threading.Thread(target=join, args=(i,)) for i in range(24)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes).count("in") == 5
        assert len(one.students(new.code)) == 5 and one.class_info(new.code).refused == 19


# ------------------------------------------------------------------ 6: a deleted SQLite file


def test_a_deleted_sqlite_file_is_said_plainly_not_written_to(tmp_path, clock):
    import os

    from posenc_lab.classroom.store import StoreUnavailable

    path = tmp_path / "classes.sqlite3"
    with open_store(str(path), clock=clock) as store:
        new = store.create_class()
        kim = store.join(new.code, client="a", network="192.0.2.1")
        rnd = store.open_poll(new.code, new.teacher_key, "poll-one")
        assert store.answer(rnd.id, kim.student_id, "0", False)  # the pool now holds a connection
        for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            if name.exists():
                os.unlink(name)
        with pytest.raises(StoreUnavailable, match="deleted while the app was running"):
            store.answer(rnd.id, kim.student_id, "1", True)
        with pytest.raises(StoreUnavailable, match="deleted while the app was running"):
            store.join(new.code, client="b", network="192.0.2.2")
        assert not path.exists()  # no new, empty file made in its place


# ------------------------------------------------------------------ 7: nothing kept forever


def _everything_of(url: str, code: str) -> list[int]:
    """Rows left of class ``code`` in each table."""
    return [
        pg_support.rows(url, f"SELECT COUNT(*) FROM {table} WHERE code = '{code}'")[0][0]
        for table in ("classes", "students", "rounds", "attempts")
    ] + [
        pg_support.rows(
            url, f"SELECT COUNT(*) FROM answers a JOIN rounds r ON r.id = a.round_id WHERE r.code = '{code}'"
        )[0][0]
    ]


def _busy_class(store):
    new = store.create_class(ttl_hours=1)
    kim = store.join(new.code, "Kim", client="a", network="192.0.2.1")
    rnd = store.open_poll(new.code, new.teacher_key, "poll-one")
    store.answer(rnd.id, kim.student_id, "0", True)
    store.record_attempt(new.code, kim.student_id, "ex-one", "3", True)
    return new


def test_the_teacher_deletes_a_class_and_everything_in_it(store, class_db_url):
    gone, kept = _busy_class(store), _busy_class(store)
    with pytest.raises(NotTeacher):
        store.delete_class(gone.code, "wrong key")
    store.delete_class(gone.code, gone.teacher_key)
    assert _everything_of(class_db_url, gone.code) == [0, 0, 0, 0, 0]
    assert _everything_of(class_db_url, kept.code) == [1, 1, 1, 1, 1]
    assert not store.is_teacher(gone.code, gone.teacher_key)


def test_old_classes_are_purged_on_a_schedule_after_the_retention(store, clock, class_db_url):
    old = _busy_class(store)  # ends at T0 + 1 h
    clock.now = T0 + 3600 + 7 * 86400 - 1800  # half an hour before its retention ends
    recent = _busy_class(store)
    assert store.purge_if_due(7) == 0  # the first call purges (nothing is old enough yet)
    clock.now += 1860  # the retention has passed...
    assert store.purge_if_due(7) is None  # ...but the last purge was less than an hour ago
    clock.now += class_store.PURGE_EVERY_S
    assert store.purge_if_due(7) == 1
    assert _everything_of(class_db_url, old.code) == [0, 0, 0, 0, 0]
    assert _everything_of(class_db_url, recent.code) == [1, 1, 1, 1, 1]
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM join_failures")[0][0] == 0


@pytest.mark.parametrize(("value", "days"), [("", 7.0), ("0", 0.0), (" 30 ", 30.0), ("1.5", 1.5)])
def test_the_retention_is_one_setting(value, days):
    assert class_store.retention_days({class_store.RETENTION_SETTING: value}) == days


@pytest.mark.parametrize("value", ["-1", "soon", "nan", "inf"])
def test_a_bad_retention_is_refused_naming_the_setting(value):
    with pytest.raises(ValueError, match=class_store.RETENTION_SETTING):
        class_store.retention_days({class_store.RETENTION_SETTING: value})


# ------------------------------------------------------------------ low: names


@pytest.mark.parametrize(
    ("typed", "refused"),
    [
        ("\u3164", "visible letter"),  # Hangul filler
        ("\u2800\u2800\u2800", "visible letter"),  # blank Braille
        ("\u115f", "visible letter"),  # Hangul choseong filler
        ("\u3164 \u2800", "visible letter"),
        ("T\u0435acher", "kept for the teacher"),  # Cyrillic е
        ("TEACHER", "kept for the teacher"),
        ("Te\u0301acher", "kept for the teacher"),  # an accent on the e
        ("the teacher", "kept for the teacher"),
        ("\u03a4eacher", "kept for the teacher"),  # Greek Tau
    ],
)
def test_invisible_names_and_the_teachers_name_are_refused(store, typed, refused):
    new = store.create_class()
    with pytest.raises(JoinRefused, match=refused):
        store.join(new.code, typed, client="a", network="192.0.2.1")
    assert store.students(new.code) == []


def test_names_keep_their_accents_but_not_a_tower_of_them(store):
    new = store.create_class()
    tower = store.join(new.code, "Zo" + "\u0308" * 23, client="a", network="192.0.2.1")
    assert tower.nickname == "Zo\u0308\u0308".replace("o\u0308", "\u00f6")  # two marks on the o, composed
    assert store.join(new.code, "Zoë Nguyễn", client="b", network="192.0.2.1").nickname == "Zoë Nguyễn"
    assert store.join(new.code, "", client="c", network="192.0.2.1").nickname.startswith("Student ")  # anonymous
    assert store.join(new.code, "Kim 3", client="d", network="192.0.2.1").nickname == "Kim 3"


# ------------------------------------------------------------------ an existing database


def test_a_database_of_the_previous_version_gains_the_new_columns_keeping_its_classes(class_db_url, monkeypatch):
    """A class database made before issue 36 (migration 1 only) opens: the later migrations
    add the cap, lock and refused count, where the class and each student's page is, hands,
    the teacher's questions and plans; its running class keeps its students and teacher key."""
    monkeypatch.setattr(schema, "MIGRATIONS", class_store.MIGRATIONS[:1])
    with open_store(class_db_url) as old:
        assert old.schema_versions() == [1]
    monkeypatch.undo()
    # a class as the previous version wrote it (no cap, locked or refused columns)
    import time as _time

    from posenc_lab.classroom.store import _hash_key

    key = "k" * 32
    _exec(
        class_db_url,
        "INSERT INTO classes (code, teacher_hash, title, created, expires) VALUES "
        f"('OLDCLS', '{_hash_key(key)}', 'Before', {_time.time()}, {_time.time() + 3600})",
    )
    _exec(
        class_db_url,
        f"INSERT INTO students (code, student_id, nickname, joined) VALUES ('OLDCLS', 's1', 'Kim', {_time.time()})",
    )
    with open_store(class_db_url) as store:
        assert store.schema_versions() == [version for version, _ in class_store.MIGRATIONS]
        info = store.class_info("OLDCLS")
        assert store.follow("OLDCLS") == class_store.Follow(0, "", False, None)
        assert [(p.nickname, p.place, p.seen) for p in store.roster("OLDCLS", key)] == [("Kim", "", None)]
        assert (info.cap, info.locked, info.refused) == (class_store.CLASS_CAP, False, 0)
        assert store.is_teacher("OLDCLS", key) and [s.nickname for s in store.students("OLDCLS")] == ["Kim"]
        assert store.join("OLDCLS", client="b", network="192.0.2.1").student_id
        # migration 5: no questions of its own, no plan
        assert store.questions("OLDCLS") == [] and store.class_plan("OLDCLS") == class_store.ClassPlan()


def _exec(url: str, sql: str) -> None:
    import sqlite3

    if url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(url) as conn:
            conn.execute(sql)
        return
    conn = sqlite3.connect(url)
    try:
        conn.execute(sql)
        conn.commit()
    finally:
        conn.close()


def test_a_database_before_vote_timers_gains_them_keeping_its_open_round(class_db_url, monkeypatch):
    """A database of migration 8 (before the vote timer) with a vote open: migration 9 adds
    the deadline, the open round has none, and a timer can be set on it and closes it."""
    monkeypatch.setattr(schema, "MIGRATIONS", class_store.MIGRATIONS[:8])
    clock = pg_support.Clock()
    with open_store(class_db_url, clock=clock) as old:
        assert old.schema_versions() == list(range(1, 9))
        new = old.create_class("Before timers")
        kim = old.join(new.code, "Kim", client="a")
        rnd = old.open_poll(new.code, new.teacher_key, "q1")
    monkeypatch.undo()
    with open_store(class_db_url, clock=clock) as store:
        assert store.schema_versions() == [version for version, _ in class_store.MIGRATIONS]
        assert store.current_round(new.code).deadline is None and store.live_round(new.code).is_open
        assert store.set_timer(new.code, new.teacher_key, 30).deadline == clock.now + 30
        assert store.answer(rnd.id, kim.student_id, "1", True)
        clock.now += 30
        assert store.live_round(new.code).closed == clock.now
        assert store.answer(rnd.id, kim.student_id, "0", False) is False


def test_identical_nicknames_get_a_number_so_the_teacher_tells_them_apart(store):
    new = store.create_class()
    names = [store.join(new.code, name, client=f"c{i}").nickname for i, name in enumerate(["Kim", "kim", "Kim", ""])]
    assert names == ["Kim", "kim 2", "Kim 3", "Student 4"]
    long = "x" * class_store.NICKNAME_CHARS
    assert store.join(new.code, long, client="d").nickname == long
    assert store.join(new.code, long, client="e").nickname == "x" * (class_store.NICKNAME_CHARS - 2) + " 2"


# ------------------------------------------------------------------ found under attack: look-alike names (2.5)

#: twenty names that read as "Teacher": other scripts, small capitals, digits for letters,
#: compatibility forms, invisible and punctuation separators
TEACHER_LOOKALIKES = [
    "\u0422eacher",  # Cyrillic capital Te
    "\u0422\u0415\u0410\u0421\u041d\u0415R",  # Cyrillic capitals, a Latin R
    "\u0442\u0435\u0430\u0441\u04bb\u0435\u0433",  # all Cyrillic small letters
    "\u0422\u0435\u0430\u0441\u04bb\u0435\u0433",  # all Cyrillic, a capital first
    "\u13a2\u13ac\u13aa\u13df\u13bb\u13ac\u13a1",  # Cherokee
    "\uab72\uab7c\uab7a\uabaf\uab8b\uab7c\uab71",  # Cherokee small letters
    "\u1d1b\u1d07\u1d00\u1d04\u029c\u1d07\u0280",  # small capitals
    "T\u1d07\u1d00\u1d04\u029c\u1d07\u0280",  # small capitals after a capital
    "T3acher",
    "7eacher",
    "Te4cher",
    "7E4CH3R",
    "teach3r",
    "\u03a4\u0395\u0391\u03f9\u0397\u0395R",  # Greek capitals, a lunate sigma for the C
    "\uff34\uff45\uff41\uff43\uff48\uff45\uff52",  # fullwidth
    "\U0001d413\U0001d41e\U0001d41a\U0001d41c\U0001d421\U0001d41e\U0001d42b",  # mathematical bold
    "T\u200be\u200ba\u200bc\u200bh\u200be\u200br",  # zero-width spaces
    "T.e.a.c.h.e.r",
    "\u1d40\u1d49\u1d43\u1d9c\u02b0\u1d49\u02b3",  # superscript letters
    "Mr T\u0435\u0430cher",  # Cyrillic e and a inside a longer name
]
ORDINARY_NAMES = [
    "Teach",
    "Tea",
    "Ana",
    "José",
    "Zoë",
    "Ted",
    "Rachel",
    "Heather",
    "Chen",
    "Kateřina",
    "王小明",
    "محمد",
    "Наташа",
    "Αλέξης",
    "प्रिया",
    "さくら",
    "Ana 3",
    "R2D2",
]


def test_every_name_that_reads_as_teacher_is_refused_and_ordinary_names_are_not(store):
    assert len(TEACHER_LOOKALIKES) == 20 and len(set(TEACHER_LOOKALIKES)) == 20
    new = store.create_class()
    accepted = []
    for i, typed in enumerate(TEACHER_LOOKALIKES):
        try:
            accepted.append(store.join(new.code, typed, client=f"t{i}", network="192.0.2.1").nickname)
        except JoinRefused as exc:
            assert "kept for the teacher" in exc.reason
    assert accepted == []
    joined = [
        store.join(new.code, name, client=f"o{i}", network="192.0.2.1").nickname
        for i, name in enumerate(ORDINARY_NAMES)
    ]
    assert joined == ORDINARY_NAMES


def test_the_skeleton_is_unicode_tr39s():
    skeleton = class_store.skeleton
    assert skeleton("\u13a2\u13ac\u13aa\u13df\u13bb\u13ac\u13a1") == "TEACHER"  # Cherokee
    assert skeleton("\u0422\u0415\u0410\u0421\u041d\u0415R") == "TEACHER"  # Cyrillic
    assert skeleton("K\u0456m") == skeleton("Kim")  # Cyrillic i
    assert skeleton("0") == "O" and skeleton("1") == skeleton("l") == skeleton("I") == "l"
    assert skeleton("m") == "rn"  # TR39 maps to the prototype, however many letters it has
    assert skeleton("\u00e9") == "e\u0301"  # NFD before and after the mapping
    for text in ("Teacher", "K\u0456m", "\u1d1b\u1d07\u1d00\u1d04\u029c\u1d07\u0280", "王小明"):
        assert skeleton(skeleton(text)) == skeleton(text)  # a prototype maps to itself


def test_a_classmates_look_alike_name_gets_a_number(store):
    new = store.create_class()
    names = [
        store.join(new.code, typed, client=f"c{i}", network="192.0.2.1").nickname
        for i, typed in enumerate(["Kim", "K\u0456m", "KIM", "\u039aim", "Ana"])
    ]
    assert names == ["Kim", "K\u0456m 2", "KIM 3", "\u039aim 4", "Ana"]
    # a student who comes back under a classmate's look-alike name gets a number too
    (ana,) = [student for student in store.students(new.code) if student.nickname == "Ana"]
    back = store.join(new.code, "K\u0456m", client="c9", network="192.0.2.1", student_id=ana.student_id)
    assert back == class_store.Student(ana.student_id, "K\u0456m 5")
    # and a student keeps their own name when they come back under it
    (kim,) = [student for student in store.students(new.code) if student.nickname == "Kim"]
    assert store.join(new.code, "Kim", client="c0", network="192.0.2.1", student_id=kim.student_id) == kim


# ------------------------------------------------------------------ found under attack: storage per address (2.7)


def test_classes_started_from_one_address_are_limited(store, clock, class_db_url):
    allowed = class_store.CLASSES_PER_ADDRESS
    for i in range(allowed):
        clock.now = T0 + i * 0.3
        store.create_class(f"class {i}", network="203.0.113.9")
    with pytest.raises(JoinRefused, match="Too many classes were started from this network address") as info:
        store.create_class("one more", network="203.0.113.9")
    assert 0 < info.value.retry_after <= class_store.ADDRESS_WINDOW_S
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM classes") == [(allowed,)]
    # another address, and a page with no address (a test, a script on the server), start classes
    assert store.create_class(network="198.51.100.2").code and store.create_class().code
    clock.now = T0 + class_store.ADDRESS_WINDOW_S + 1
    assert store.create_class(network="203.0.113.9").code


def test_saved_plans_from_one_address_are_limited_and_a_plan_saved_again_keeps_its_code(store, clock, class_db_url):
    new = store.create_class()
    store.set_plan(new.code, new.teacher_key, [PlanStep("view", "rope")])
    first = store.save_plan(new.code, new.teacher_key, "Week 3", network="203.0.113.9")
    # the same plan saved again is the plan already kept: its code, no copy
    assert store.save_plan(new.code, new.teacher_key, "Week 3", network="203.0.113.9") == first
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM plans") == [(1,)]
    allowed = class_store.PLAN_SAVES_PER_ADDRESS
    for i in range(1, allowed):
        clock.now = T0 + i * 0.3
        store.save_plan(new.code, new.teacher_key, f"Week 3, take {i}", network="203.0.113.9")
    with pytest.raises(JoinRefused, match="Too many plans were saved from this network address") as info:
        store.save_plan(new.code, new.teacher_key, "one more", network="203.0.113.9")
    assert 0 < info.value.retry_after <= class_store.ADDRESS_WINDOW_S
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM plans") == [(allowed,)]
    # a plan already kept is still given back, and other addresses still save
    assert store.save_plan(new.code, new.teacher_key, "Week 3", network="203.0.113.9") == first
    assert store.save_plan(new.code, new.teacher_key, "elsewhere", network="198.51.100.2")


def _as_from(monkeypatch, where: str) -> None:
    """The page's sessions come from ``where`` (AppTest has no request, so no address)."""
    from posenc_lab.classroom import session as classroom

    monkeypatch.setattr(classroom, "network_address", lambda: where)


def test_the_page_says_when_an_address_started_too_many_classes(db_url, monkeypatch):
    from app_helpers import button, class_texts, open_page

    from posenc_lab import course

    _as_from(monkeypatch, "203.0.113.9")
    with open_store(db_url) as db:
        for _ in range(class_store.CLASSES_PER_ADDRESS):
            db.create_class(network="203.0.113.9")
    at = open_page(course.CLASS.path)
    button(at, "Start a class").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert [e.value for e in at.error if "Too many classes were started from this network address" in e.value]
    assert "Running the class" not in class_texts(at)  # still the landing page: no class was started
    assert pg_support.rows(db_url, "SELECT COUNT(*) FROM classes") == [(class_store.CLASSES_PER_ADDRESS,)]


def test_the_page_says_when_an_address_saved_too_many_plans(db_url, monkeypatch):
    from app_helpers import button, class_texts, start_class

    from posenc_lab.classroom import plan as class_plan

    _as_from(monkeypatch, "203.0.113.9")
    teacher, code, key = start_class()
    with open_store(db_url) as db:
        db.set_plan(code, key, [PlanStep("view", "rope")])
        for i in range(class_store.PLAN_SAVES_PER_ADDRESS):
            db.save_plan(code, key, f"take {i}", network="203.0.113.9")
    teacher.run()
    teacher.text_input(key=class_plan.P + "title").set_value("Week 3")
    button(teacher, "Save the plan").click().run()
    assert not teacher.exception, [e.message for e in teacher.exception]
    assert "Not done: Too many plans were saved from this network address" in class_texts(teacher)
    assert pg_support.rows(db_url, "SELECT COUNT(*) FROM plans") == [(class_store.PLAN_SAVES_PER_ADDRESS,)]


# ------------------------------------------------------------------ found under attack: IPv6 (2.8)


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::7", "2001:db8:1:2::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),  # an IPv4 client of a dual-stack socket is its IPv4 address
        ("192.0.2.7", "192.0.2.7"),
        ("", ""),
        ("not an address", "not an address"),
    ],
)
def test_an_ipv6_address_is_limited_by_its_64(address, key):
    assert _address().limit_key(address) == key


def test_wrong_codes_from_one_ipv6_64_are_limited_as_one_address(store, clock):
    """A host of an IPv6 network picks any of 2^64 addresses: eleven wrong codes from eleven
    of them are refused as eleven from one address would be, and slowed alike."""
    for i in range(class_store.JOIN_FAILURES_ALLOWED):
        clock.now = T0 + i
        with pytest.raises(JoinRefused, match="No class has the code"):
            store.join("ZZZZZZ", client=f"2001:db8:1:2::{i + 1:x}", network=f"2001:db8:1:2::{i + 1:x}")
    with pytest.raises(JoinRefused, match="Too many wrong codes from this device"):
        store.join("ZZZZZZ", client="2001:db8:1:2:ffff::1", network="2001:db8:1:2:ffff::1")
    # the network's wrong codes, from a new address of the /64 each, are slowed as one address's
    delays = []
    for i in range(2 * class_store.NETWORK_FREE_FAILURES):
        clock.now = T0 + 20 + i
        with pytest.raises(JoinRefused) as info:
            store.join("ZZZZZZ", client=f"2001:db8:1:2::{i + 100:x}|s{i}", network=f"2001:db8:1:2::{i + 100:x}")
        delays.append(info.value.delay)
    assert delays[-1] > 0
    # another /64 is not slowed, and an IPv4 address counts as itself, mapped or not
    with pytest.raises(JoinRefused) as info:
        store.join("ZZZZZZ", client="2001:db8:1:3::1|s", network="2001:db8:1:3::1")
    assert info.value.delay == 0.0
    for i in range(class_store.JOIN_FAILURES_ALLOWED):
        with pytest.raises(JoinRefused, match="No class has the code"):
            store.join("ZZZZZZ", client="::ffff:192.0.2.7" if i % 2 else "192.0.2.7", network="192.0.2.7")
    with pytest.raises(JoinRefused, match="Too many wrong codes from this device"):
        store.join("ZZZZZZ", client="::ffff:192.0.2.7", network="::ffff:192.0.2.7")


# ------------------------------------------------------------------ found under attack: the plan's integrity (2.9)


def test_the_page_removes_a_question_with_its_plan_steps_and_says_so(db_url):
    from app_helpers import class_texts, start_class

    teacher, code, key = start_class()
    with open_store(db_url) as db:
        own = db.add_question(code, key, class_store.Question("Which grows faster?", options=["fast", "slow"]))
        db.set_plan(code, key, [PlanStep("view", "rope"), PlanStep("question", own.key)])
    teacher.run()
    teacher.selectbox(key="class_poll").set_value(own.key).run()
    next(b for b in teacher.button if b.key == f"class_remove_{own.key}").click().run()
    assert not teacher.exception, [e.message for e in teacher.exception]
    assert "Removed, with step 2 of the plan, which opened it." in class_texts(teacher)
    with open_store(db_url) as db:
        assert db.questions(code) == [] and db.class_plan(code).steps == (PlanStep("view", "rope"),)


def test_next_on_a_step_whose_question_is_gone_says_so_and_opens_no_round(store, class_db_url):
    """A plan whose own question is missing (a database of an earlier version, or a step
    added while another tab removed it): the step opens nothing and says so, and Next goes on."""
    new = store.create_class()
    own = store.add_question(new.code, new.teacher_key, class_store.Question("Ours?", options=["yes", "no"]))
    store.set_plan(
        new.code, new.teacher_key, [PlanStep("view", "rope"), PlanStep("question", own.key), PlanStep("view", "alibi")]
    )
    store.plan_go(new.code, new.teacher_key, 0)
    _exec(class_db_url, f"DELETE FROM questions WHERE key = '{own.key}'")
    with pytest.raises(ValueError, match="step 2 opens a question this class no longer has"):
        store.plan_go(new.code, new.teacher_key, 1)
    assert store.current_round(new.code) is None and store.rounds(new.code, own.key) == []
    assert store.follow(new.code).address == "rope"  # the class stays where it was
    assert store.class_plan(new.code).at == 1  # so that Next goes past it
    assert store.plan_go(new.code, new.teacher_key, 2).target == "alibi"


def test_the_page_says_next_found_a_step_whose_question_is_gone(db_url):
    from app_helpers import class_texts, start_class

    teacher, code, key = start_class()
    with open_store(db_url) as db:
        own = db.add_question(code, key, class_store.Question("Ours?", options=["yes", "no"]))
        db.set_plan(code, key, [PlanStep("question", own.key), PlanStep("view", "rope")])
    _exec(db_url, f"DELETE FROM questions WHERE key = '{own.key}'")
    teacher.run()
    next(b for b in teacher.button if b.key == "plan_next").click().run()
    assert not teacher.exception, [e.message for e in teacher.exception]
    assert "Not done: step 1 opens a question this class no longer has" in class_texts(teacher)
    with open_store(db_url) as db:
        assert db.current_round(code) is None and db.class_plan(code).at == 0
