"""The class database (classroom.store) against a real SQLite file and a real PostgreSQL server.

Every test that takes ``class_db_url`` runs twice, once per database (tests/conftest.py;
the PostgreSQL server is tests/pg_support.py's throwaway cluster, a fresh database per test).
Time is injected (``Clock``) wherever expiry or rate limits matter, so nothing sleeps.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pg_support
import pytest

from posenc_lab import classroom
from posenc_lab.classroom import (
    CODE_ALPHABET,
    CODE_LENGTH,
    JOIN_FAILURE_WINDOW_S,
    JOIN_FAILURES_ALLOWED,
    MIGRATIONS,
    NICKNAME_CHARS,
    OWN_PREFIX,
    ClassPlan,
    JoinRefused,
    NotTeacher,
    PlanStep,
    Question,
    StoreUnavailable,
    clean_nickname,
    database_url,
    normalize_code,
    open_store,
)

ROOT = Path(__file__).resolve().parents[1]
T0 = pg_support.T0


def run_python(code: str, *args: str, timeout: float = 60) -> subprocess.Popen:
    """Start ``code`` in a new interpreter (another app process) with classroom importable."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen, timeout: float = 60) -> str:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return out


def class_with_students(store, n: int, ttl_hours: float = 12.0):
    new = store.create_class("Class", ttl_hours)
    students = [store.join(new.code, f"s{i}", client=f"c{i}") for i in range(n)]
    return new, students


# ------------------------------------------------------------------ the setting


def test_database_url_reads_the_setting_or_defaults_to_a_file_under_xdg_data_home(tmp_path):
    assert database_url({"POSENC_CLASS_DB": "  postgresql://u@h/db  "}) == "postgresql://u@h/db"
    url = database_url({"XDG_DATA_HOME": str(tmp_path / "data")})
    assert url == str(tmp_path / "data" / "posenc-lab" / "classes.sqlite3")
    assert (tmp_path / "data" / "posenc-lab").is_dir()  # created, so a first run needs no setup
    home = database_url({"HOME": "/unused"})
    assert home == str(Path.home() / ".local" / "share" / "posenc-lab" / "classes.sqlite3")


def test_open_store_reads_the_setting_when_no_url_is_given(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_CLASS_DB", str(tmp_path / "from-setting.sqlite3"))
    with open_store() as s:
        assert (s.kind, s.where) == ("sqlite", str(tmp_path / "from-setting.sqlite3"))
    assert (tmp_path / "from-setting.sqlite3").exists()


def test_sqlite_and_postgres_url_forms_are_accepted(tmp_path, postgres_server):
    for url in (f"sqlite://{tmp_path}/a.sqlite3", f"sqlite:///{tmp_path}/a.sqlite3"):  # sqlite:///abs, sqlite:////abs
        with open_store(url) as s:
            assert (s.kind, s.where) == ("sqlite", f"{tmp_path}/a.sqlite3")
    url = pg_support.fresh_database(postgres_server)
    with open_store("postgres://" + url.removeprefix("postgresql://")) as s:
        assert s.kind == "postgresql"
        assert s.create_class().code


@pytest.mark.parametrize(
    ("url", "match"),
    [
        ("mysql://u@h/db", r"url must be .*postgresql://.*mysql"),
        ("sqlite://relative.db", r"url: .*absolute path"),
        ("", r"url must be"),
        (42, r"url must be a string"),
    ],
)
def test_a_url_of_another_kind_is_refused_naming_it(url, match):
    with pytest.raises(ValueError, match=match):
        open_store(url)


# ------------------------------------------------------------------ migrations


def test_a_new_database_gets_the_schema(store, class_db_url):
    assert store.schema_versions() == [version for version, _ in MIGRATIONS]
    tables = {"classes", "students", "rounds", "answers", "attempts", "join_failures", "schema_migrations"}
    for table in tables:
        assert pg_support.rows(class_db_url, f"SELECT COUNT(*) FROM {table}")[0][0] >= 0


def test_reopening_applies_no_migration_twice(class_db_url):
    with open_store(class_db_url, clock=pg_support.Clock(T0)) as first:
        new = first.create_class("kept")
    with open_store(class_db_url, clock=pg_support.Clock(T0 + 3600)) as again:
        assert again.schema_versions() == [version for version, _ in MIGRATIONS]
        assert again.class_info(new.code).title == "kept"
    applied = pg_support.rows(class_db_url, "SELECT version, applied FROM schema_migrations ORDER BY version")
    assert applied == [(version, T0) for version, _ in MIGRATIONS]  # written once, by the first open


def test_two_processes_opening_a_new_database_at_once_both_succeed(class_db_url):
    code = """
        import sys, time
        from posenc_lab.classroom import open_store
        url, start = sys.argv[1], float(sys.argv[2])
        time.sleep(max(0.0, start - time.time()))
        with open_store(url) as s:
            print(s.create_class("from a process").code)
    """
    start = time.time() + 1.5  # both interpreters are up by then, and open the new database together
    procs = [run_python(code, class_db_url, str(start)) for _ in range(2)]
    codes = [finish(p).strip() for p in procs]
    assert len(set(codes)) == 2
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM schema_migrations") == [(len(MIGRATIONS),)]
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM classes") == [(2,)]


def test_sqlite_runs_in_wal_mode(tmp_path):
    path = tmp_path / "wal.sqlite3"
    with open_store(str(path)) as s:
        s.create_class()
        assert pg_support.rows(str(path), "PRAGMA journal_mode") == [("wal",)]


# ------------------------------------------------------------------ codes and expiry


def test_codes_are_short_unambiguous_and_distinct(store):
    codes = [store.create_class().code for _ in range(60)]
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)
    assert len(set(codes)) == len(codes)
    assert not set("01IO") & set(CODE_ALPHABET)


@pytest.mark.parametrize(
    ("typed", "code"),
    [("k7q-m3p", "K7QM3P"), ("  K7Q M3P\n", "K7QM3P"), ("k7q\u2013m3p", "K7QM3P"), ("", "")],
)
def test_normalize_code(typed, code):
    assert normalize_code(typed) == code


def test_a_code_is_found_however_it_was_typed(store):
    new = store.create_class("Typed")
    typed = (new.code[:3] + "-" + new.code[3:]).lower()
    assert store.class_info(typed).code == new.code
    assert store.join(" " + typed + " ").student_id


def test_an_unknown_code_is_refused_with_a_plain_message(store):
    store.create_class()
    with pytest.raises(JoinRefused) as info:
        store.join("abc-123", client="laptop")
    assert info.value.reason == "No class has the code ABC123. Check it on the teacher's screen."
    assert info.value.retry_after is None
    assert store.class_info("ABC123") is None and not store.is_open("ABC123")


def test_an_expired_class_refuses_joins_and_answers(store, clock):
    new, (ada,) = class_with_students(store, 1, ttl_hours=1.0)
    rnd = store.open_poll(new.code, new.teacher_key, "sin.extrapolate")
    assert store.is_open(new.code)
    clock.now += 3600.0
    assert not store.is_open(new.code)
    with pytest.raises(JoinRefused) as info:
        store.join(new.code, client="late")
    assert info.value.reason == f"Class {new.code} has ended."
    with pytest.raises(JoinRefused, match="has ended"):
        store.join(new.code, student_id=ada.student_id)
    assert store.answer(rnd.id, ada.student_id, "A", True) is False
    assert store.count(rnd.id) == 0
    # the teacher still reads the dashboard and exports after the end
    assert store.is_teacher(new.code, new.teacher_key)
    assert store.summary(new.code, new.teacher_key)[0].answered == 0


def test_ttl_hours_sets_the_expiry_within_bounds(store, clock):
    assert store.create_class().expires == T0 + 12 * 3600
    assert store.create_class(ttl_hours=168).expires == T0 + 168 * 3600
    assert store.create_class(ttl_hours=0.25).expires == T0 + 900
    for bad in (0, -1, 168.01, float("nan"), float("inf"), True, "12"):
        with pytest.raises(ValueError, match=r"ttl_hours must be a number in \(0, 168\]"):
            store.create_class(ttl_hours=bad)


def test_a_title_is_cleaned_like_a_nickname_and_cut_to_60(store):
    new = store.create_class("  **Week 3**\n<script>x</script>  " + "y" * 100)
    title = store.class_info(new.code).title
    assert title.startswith("**Week 3** <script>x</script> y")
    assert len(title) == 60


# ------------------------------------------------------------------ the teacher key


def test_only_the_teacher_key_controls_a_class(store):
    new, (ada,) = class_with_students(store, 1)
    other = store.create_class("another class")
    for key in ("", "wrong", other.teacher_key, new.teacher_key + "x", new.teacher_key.upper()):
        assert not store.is_teacher(new.code, key)
        with pytest.raises(NotTeacher, match=f"Only the teacher link of class {new.code} can do this"):
            store.open_poll(new.code, key, "q1")
        for action in (store.close_round, store.reveal, store.summary):
            with pytest.raises(NotTeacher):
                action(new.code, key)
        with pytest.raises(NotTeacher):
            store.class_record(new.code, key)
    assert store.current_round(new.code) is None  # nothing was opened
    assert not store.is_teacher("NOSUCH", new.teacher_key)
    assert store.is_teacher(new.code.lower(), new.teacher_key)
    rnd = store.open_poll(new.code, new.teacher_key, "q1")
    assert store.answer(rnd.id, ada.student_id, "A", True)
    store.reveal(new.code, new.teacher_key)
    assert store.current_round(new.code).revealed is not None
    assert issubclass(NotTeacher, PermissionError)


def test_only_a_hash_of_the_teacher_key_is_stored(store, class_db_url):
    new = store.create_class()
    ((stored,),) = pg_support.rows(class_db_url, "SELECT teacher_hash FROM classes")
    assert new.teacher_key not in stored and len(stored) == 64


# ------------------------------------------------------------------ guessing codes


def test_wrong_codes_are_rate_limited_per_client(store, clock):
    new = store.create_class()
    for i in range(JOIN_FAILURES_ALLOWED):
        clock.now = T0 + i
        with pytest.raises(JoinRefused, match="No class has the code"):
            store.join("ZZZZZZ", client="guesser")
    clock.now = T0 + 20
    with pytest.raises(JoinRefused) as info:
        store.join(new.code, client="guesser")  # even the right code, before it is looked up
    wait = JOIN_FAILURE_WINDOW_S - 20  # until the first failure, at T0, ages out
    assert info.value.retry_after == wait
    assert info.value.reason == f"Too many wrong codes from this device. Try again in {wait:.0f} s."
    # another device in the same room is unaffected
    assert store.join(new.code, client="neighbour").student_id
    # refusals do not extend the wait; once the oldest failure ages out, one more try is allowed
    clock.now = T0 + JOIN_FAILURE_WINDOW_S + 0.5
    assert store.join(new.code, client="guesser").student_id
    with pytest.raises(JoinRefused, match="No class has the code"):
        store.join("YYYYYY", client="guesser")
    with pytest.raises(JoinRefused) as info:
        store.join(new.code, client="guesser")
    assert info.value.retry_after == 1  # the failure at T0 + 1 ages out next


def test_the_rate_limit_is_shared_by_app_processes(class_db_url, clock):
    """Two stores on one URL stand for two app processes behind nginx."""
    with open_store(class_db_url, clock=clock) as one, open_store(class_db_url, clock=clock) as two:
        new = one.create_class()
        for i in range(JOIN_FAILURES_ALLOWED):
            with pytest.raises(JoinRefused, match="No class"):
                (one if i % 2 else two).join("QQQQQQ", client="10.0.0.7")
        with pytest.raises(JoinRefused, match="Too many wrong codes"):
            one.join(new.code, client="10.0.0.7")
        with pytest.raises(JoinRefused, match="Too many wrong codes"):
            two.join(new.code, client="10.0.0.7")


# ------------------------------------------------------------------ nicknames


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Ada", "Ada"),
        ("", ""),
        ("   ", ""),
        ("Ada\nLovelace", "Ada Lovelace"),
        ("Ada\r\n\t Lovelace", "Ada Lovelace"),
        ("evil\u202egnp.exe", "evilgnp.exe"),  # right-to-left override removed
        ("a\u200bb\u2066c\u2069", "abc"),  # zero-width space, bidi isolates
        ("bell\x07\x00nul", "bellnul"),
        ("**bold** _it_", "**bold** _it_"),  # Markdown stays as typed: the page escapes it
        ("<b>hi</b>", "<b>hi</b>"),
        ("<img src=x onerror=alert(1)>", "<img src=x onerror=alert"),
        ("x" * 1000, "x" * NICKNAME_CHARS),
        ("Zoë", "Zoë"),
        ("Zoe\u0308", "Zoë"),  # composed, so the limit counts what people see
    ],
)
def test_nicknames_are_plain_text_cut_to_24(typed, kept):
    assert clean_nickname(typed) == kept
    assert len(clean_nickname(typed)) <= NICKNAME_CHARS


def test_a_nickname_is_stored_cleaned_and_a_rejoin_keeps_the_student(store, clock):
    new = store.create_class()
    ada = store.join(new.code, "[click](http://x)\u202e\n" + "y" * 1000, client="a")
    clock.now += 1  # students() lists by join time
    assert ada.nickname == "[click](http://x) yyyyyy"
    assert store.student(new.code, ada.student_id) == ada
    again = store.join(new.code, "", student_id=ada.student_id)
    assert again == ada  # no new nickname: the old one stays
    renamed = store.join(new.code, "Ada", student_id=ada.student_id)
    assert renamed.student_id == ada.student_id and renamed.nickname == "Ada"
    stranger = store.join(new.code, "Bo", student_id="not-in-this-class")
    assert stranger.student_id != "not-in-this-class"
    assert [s.nickname for s in store.students(new.code)] == ["Ada", "Bo"]
    anonymous = store.join(new.code)
    assert anonymous.nickname == "Student 3" and len(anonymous.student_id) == 12
    # each anonymous student gets a name of their own, past any a classmate typed
    store.join(new.code, "Student 5")
    assert [store.join(new.code).nickname for _ in range(3)] == ["Student 6", "Student 7", "Student 8"]


# ------------------------------------------------------------------ votes and rounds


def test_one_vote_per_student_per_round_the_last_one_counts(store):
    new, (ada, bo) = class_with_students(store, 2)
    rnd = store.open_poll(new.code, new.teacher_key, "alibi.furthest-head")
    assert store.answer(rnd.id, ada.student_id, "head 1", False)
    assert store.answer(rnd.id, ada.student_id, "head 8", True)
    assert store.count(rnd.id) == 1
    assert store.votes(rnd.id) == [("head 8", True)]
    assert store.answer(rnd.id, bo.student_id, "head 1", False)
    assert store.count(rnd.id) == 2
    store.close_round(new.code, new.teacher_key)
    assert store.current_round(new.code).closed is not None
    assert store.answer(rnd.id, ada.student_id, "head 1", False) is False  # closed: nothing stored
    assert sorted(store.votes(rnd.id)) == [("head 1", False), ("head 8", True)]


def test_votes_are_refused_for_unknown_rounds_and_strangers(store):
    new, (ada,) = class_with_students(store, 1)
    other, (eve,) = class_with_students(store, 1)
    rnd = store.open_poll(new.code, new.teacher_key, "q1")
    assert store.answer("no-such-round", ada.student_id, "A", True) is False
    assert store.answer(rnd.id, "no-such-student", "A", True) is False
    assert store.answer(rnd.id, eve.student_id, "A", True) is False  # a student of another class
    assert store.count(rnd.id) == 0 and store.votes(rnd.id) == []


def test_rounds_number_per_poll_and_keep_earlier_votes(store, clock):
    new, students = class_with_students(store, 3)
    assert store.current_round(new.code) is None
    first = store.open_poll(new.code, new.teacher_key, "sin.shuffle")
    assert (first.number, first.is_open, first.revealed) == (1, True, None)
    for s, vote in zip(students, ["yes", "no", "no"], strict=True):
        store.answer(first.id, s.student_id, vote, vote == "no")
    clock.now += 60
    store.close_round(new.code, new.teacher_key)
    clock.now += 60
    second = store.open_poll(new.code, new.teacher_key, "sin.shuffle")  # the vote after discussion
    assert second.number == 2 and second.id != first.id
    assert store.count(second.id) == 0
    assert sorted(store.votes(first.id)) == [("no", True), ("no", True), ("yes", False)]
    store.answer(second.id, students[0].student_id, "no", True)
    # opening another question closes the open round, in the same clock tick too
    third = store.open_poll(new.code, new.teacher_key, "rope.relative")
    assert third.number == 1
    assert store.current_round(new.code) == third
    assert [r.number for r in store.rounds(new.code, "sin.shuffle")] == [1, 2]
    assert all(not r.is_open for r in store.rounds(new.code, "sin.shuffle"))
    assert store.rounds(new.code, "sin.shuffle")[0].closed == T0 + 60
    clock.now += 5
    store.reveal(new.code, new.teacher_key)
    current = store.current_round(new.code)
    assert current.id == third.id and current.revealed == T0 + 125 and current.closed == T0 + 125
    assert store.answer(third.id, students[1].student_id, "x", False) is False  # revealed is closed
    store.close_round(new.code, new.teacher_key)  # no open round: nothing changes
    assert store.current_round(new.code) == current


def test_40_students_answering_in_the_same_second_are_all_counted(class_db_url):
    with open_store(class_db_url) as teacher:
        new, students = class_with_students(teacher, 40)
        rnd = teacher.open_poll(new.code, new.teacher_key, "q1")
    barrier = threading.Barrier(40)
    results, errors = [], []

    def student(sid: str):
        try:
            with open_store(class_db_url) as own:  # each app session its own store and connection
                barrier.wait(timeout=30)
                results.append(own.answer(rnd.id, sid, "B", True))
        except Exception as error:  # collected: a thread's exception would otherwise vanish
            errors.append(error)

    threads = [threading.Thread(target=student, args=(s.student_id,)) for s in students]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors and results == [True] * 40
    with open_store(class_db_url) as teacher:
        assert teacher.count(rnd.id) == 40


def test_one_store_shared_by_many_threads_counts_every_answer(store):
    new, students = class_with_students(store, 30)
    rnd = store.open_poll(new.code, new.teacher_key, "q1")
    barrier = threading.Barrier(len(students))
    errors = []

    def student(sid: str):
        try:
            barrier.wait(timeout=30)
            assert store.answer(rnd.id, sid, "A", False)
            store.record_attempt(new.code, sid, "ex.one", "2", True)
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=student, args=(s.student_id,)) for s in students]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    assert store.count(rnd.id) == 30
    assert store.summary(new.code, new.teacher_key)[0].right == 30


def test_two_app_processes_see_the_same_class(class_db_url):
    with open_store(class_db_url) as teacher:
        new, students = class_with_students(teacher, 40)
        rnd = teacher.open_poll(new.code, new.teacher_key, "q1")
    code = """
        import sys, time
        from posenc_lab.classroom import open_store
        url, round_id, start, *ids = sys.argv[1:]
        with open_store(url) as s:
            time.sleep(max(0.0, float(start) - time.time()))
            print(sum(s.answer(round_id, sid, "C", False) for sid in ids))
    """
    ids = [s.student_id for s in students]
    start = str(time.time() + 1.5)
    procs = [run_python(code, class_db_url, rnd.id, start, *ids[i::2]) for i in range(2)]
    assert [int(finish(p)) for p in procs] == [20, 20]
    with open_store(class_db_url) as teacher:
        assert teacher.count(rnd.id) == 40
        assert teacher.votes(rnd.id) == [("C", False)] * 40


# ------------------------------------------------------------------ restart


def fill_a_class(store):
    new, (ada, bo) = class_with_students(store, 2)
    rnd = store.open_poll(new.code, new.teacher_key, "q1")
    store.answer(rnd.id, ada.student_id, "A", True)
    store.answer(rnd.id, bo.student_id, "B", False)
    store.record_attempt(new.code, ada.student_id, "ex.one", "7", True)
    store.record_attempt(new.code, bo.student_id, "ex.one", "8", False)
    return new, ada, bo, rnd


def check_the_class(store, new, ada, bo, rnd):
    assert store.is_teacher(new.code, new.teacher_key)
    assert store.students(new.code) == [ada, bo]
    assert store.current_round(new.code) == rnd
    assert sorted(store.votes(rnd.id)) == [("A", True), ("B", False)]
    assert store.solved(new.code, ada.student_id) == {"ex.one"}
    assert store.solved(new.code, bo.student_id) == set()


def test_a_restart_loses_no_answer_and_no_progress(class_db_url):
    with open_store(class_db_url) as before:
        saved = fill_a_class(before)
    with open_store(class_db_url) as after:
        check_the_class(after, *saved)


def test_a_postgresql_server_restart_mid_class_loses_nothing(postgres_cluster):
    url = pg_support.fresh_database(postgres_cluster.base_url)
    with open_store(url) as app:
        saved = fill_a_class(app)
        postgres_cluster.restart()  # the server process goes away and comes back
        # the app's pooled connection died with the old server; the store reconnects
        check_the_class(app, *saved)
        new, ada = saved[0], saved[1]
        assert app.answer(saved[3].id, ada.student_id, "C", False)
    with open_store(url) as reopened:
        assert sorted(reopened.votes(saved[3].id)) == [("B", False), ("C", False)]
        assert reopened.is_open(new.code)


# ------------------------------------------------------------------ the teacher's views


def test_summary_gives_success_rates_and_the_most_common_wrong_answers(store):
    new, students = class_with_students(store, 6)
    sid = [s.student_id for s in students]
    # exercise: 0 and 1 solve after a wrong try; 2..5 never do; retries count a student once
    attempts = [
        (0, "3", False),
        (0, "4", True),
        (1, "2", False),
        (1, "4", True),
        (2, "2", False),
        (2, "2", False),
        (3, "2", False),
        (3, "5", False),
        (4, "5", False),
        (5, "1", False),
        (5, "0", False),
    ]
    for i, answer, right in attempts:
        store.record_attempt(new.code, sid[i], "ex.period", answer, right)
    store.record_attempt(new.code, sid[0], "ex.another", "x", True)
    first = store.open_poll(new.code, new.teacher_key, "poll.b")
    for i, vote in enumerate(["A", "B", "B", "C", "C", "C"]):
        store.answer(first.id, sid[i], vote, vote == "A")
    store.open_poll(new.code, new.teacher_key, "poll.a")  # no votes yet
    second = store.open_poll(new.code, new.teacher_key, "poll.b")
    for i in range(4):
        store.answer(second.id, sid[i], "A", True)
    items = store.summary(new.code, new.teacher_key)
    assert [(i.kind, i.key, i.number) for i in items] == [
        ("exercise", "ex.another", 0),
        ("exercise", "ex.period", 0),
        ("poll", "poll.a", 1),
        ("poll", "poll.b", 1),
        ("poll", "poll.b", 2),
    ]
    another, period, empty, b1, b2 = items
    assert (another.answered, another.right, another.wrong) == (1, 1, ())
    # "2" by three students (1, 2, 3), "5" by two, then "0", "1", "3" by one each: the first by text
    assert (period.answered, period.right, period.wrong) == (6, 2, (("2", 3), ("5", 2), ("0", 1)))
    assert (empty.answered, empty.right, empty.wrong) == (0, 0, ())
    assert (b1.answered, b1.right, b1.wrong) == (6, 1, (("C", 3), ("B", 2)))
    assert (b2.answered, b2.right, b2.wrong) == (4, 4, ())


def test_a_vote_again_press_delivered_twice_opens_one_round(store, clock):
    """Issue 49: one "Vote again" press made round 2 and round 3 (a fresh-clone run with a
    busy loop beside it: the phone showed "round 3"). A press carries the round it was made
    on; delivered again, it gets the round the first delivery opened."""
    from posenc_lab.classroom.store.rounds import AGAIN_WITHIN_S

    new, _ = class_with_students(store, 1)
    first = store.open_poll(new.code, new.teacher_key, "sin.shuffle", after=None)
    again = store.open_poll(new.code, new.teacher_key, "sin.shuffle", after=None)  # "Open" delivered twice
    assert again == first and len(store.rounds(new.code, "sin.shuffle")) == 1
    store.close_round(new.code, new.teacher_key)
    clock.now += 1
    second = store.open_poll(new.code, new.teacher_key, "sin.shuffle", after=first.id)
    twice = store.open_poll(new.code, new.teacher_key, "sin.shuffle", after=first.id)
    assert second.number == 2 and twice == second
    assert [r.number for r in store.rounds(new.code, "sin.shuffle")] == [1, 2]
    # another question, or the same one pressed on a page that is long out of date, opens one
    other = store.open_poll(new.code, new.teacher_key, "rope.relative", after=first.id)
    assert other.number == 1 and other.poll_key == "rope.relative"
    clock.now += AGAIN_WITHIN_S + 1
    third = store.open_poll(new.code, new.teacher_key, "sin.shuffle", after=first.id)
    assert third.number == 3
    # without ``after`` (a plan's step, the store's other callers) a round always opens
    assert store.open_poll(new.code, new.teacher_key, "sin.shuffle").number == 4


def test_class_record_holds_students_marks_rounds_and_votes(store, clock):
    new = store.create_class("Tuesday")
    ada = store.join(new.code, "Ada", client="a")
    clock.now += 61
    bo = store.join(new.code, "", client="b")
    store.record_attempt(new.code, ada.student_id, "ex.a", "1", False)
    store.record_attempt(new.code, ada.student_id, "ex.a", "2", True)
    store.record_attempt(new.code, bo.student_id, "ex.b", "9", False)
    r1 = store.open_poll(new.code, new.teacher_key, "poll.q")
    store.answer(r1.id, ada.student_id, "-1", True)
    store.answer(r1.id, bo.student_id, "2", False)
    r2 = store.open_poll(new.code, new.teacher_key, "poll.q")
    store.answer(r2.id, bo.student_id, "3", True)
    r3 = store.open_poll(new.code, new.teacher_key, "poll.other")
    other = store.create_class()
    store.open_poll(other.code, other.teacher_key, "poll.q")

    record = store.class_record(new.code.lower(), new.teacher_key)
    assert (record.code, record.title) == (new.code, "Tuesday")
    assert [(s.student_id, s.nickname) for s in record.students] == [
        (ada.student_id, "Ada"),
        (bo.student_id, "Student 2"),
    ]
    assert record.students[1].joined - record.students[0].joined == 61
    assert record.marks == {(ada.student_id, "ex.a"): True, (bo.student_id, "ex.b"): False}
    assert [(r.id, r.poll_key, r.number) for r in record.rounds] == [
        (r1.id, "poll.q", 1),
        (r2.id, "poll.q", 2),
        (r3.id, "poll.other", 1),
    ]
    assert record.votes == {
        (r1.id, ada.student_id): ("-1", True),
        (r1.id, bo.student_id): ("2", False),
        (r2.id, bo.student_id): ("3", True),
    }


def test_exercise_progress_is_per_student_and_class(store):
    new, (ada, bo) = class_with_students(store, 2)
    other = store.create_class()
    store.record_attempt(new.code, ada.student_id, "ex.one", "1", False)
    assert store.solved(new.code, ada.student_id) == set()
    store.record_attempt(new.code, ada.student_id, "ex.one", "2", True)
    store.record_attempt(new.code, ada.student_id, "ex.two", "3", True)
    store.record_attempt(new.code, ada.student_id, "ex.one", "1", False)  # solved stays solved
    assert store.solved(new.code, ada.student_id) == {"ex.one", "ex.two"}
    assert store.solved(new.code, bo.student_id) == set()
    store.record_attempt(other.code, ada.student_id, "ex.three", "1", True)  # not in that class: ignored
    assert store.solved(other.code, ada.student_id) == set()
    assert store.summary(other.code, other.teacher_key) == []


# ------------------------------------------------------------------ faults


def test_an_unreachable_postgresql_server_is_reported_plainly(tmp_path):
    url = f"postgresql://posenc:s3cret@/classes?host={tmp_path}/no-such-dir&password=s3cret"
    start = time.perf_counter()
    with pytest.raises(StoreUnavailable) as info:
        open_store(url)
    assert time.perf_counter() - start < 5
    message = str(info.value)
    assert message.startswith(f"The class database (PostgreSQL at postgresql://posenc@/classes?host={tmp_path}")
    assert "cannot be reached: " in message and message.endswith(".")
    assert "s3cret" not in message and "Traceback" not in message
    assert (info.value.kind, info.value.where) == (
        "postgresql",
        f"postgresql://posenc@/classes?host={tmp_path}/no-such-dir",
    )


def test_an_unreachable_tcp_postgresql_server_fails_within_the_connect_timeout():
    # 192.0.2.0/24 is TEST-NET-1 (RFC 5737): nothing answers, so only the timeout ends the wait
    start = time.perf_counter()
    with pytest.raises(StoreUnavailable, match=r"^The class database \(PostgreSQL at postgresql://u@192\.0\.2\.1"):
        open_store("postgresql://u:pw@192.0.2.1:5432/db")
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("where", ["under-a-file", "missing-folder"])
def test_an_unusable_sqlite_path_is_reported_plainly(tmp_path, where):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    path = blocker / "classes.sqlite3" if where == "under-a-file" else tmp_path / "no" / "such" / "c.sqlite3"
    start = time.perf_counter()
    with pytest.raises(StoreUnavailable) as info:
        open_store(str(path))
    assert time.perf_counter() - start < 5
    assert str(info.value) == f"The class database (SQLite at {path}) cannot be reached: unable to open database file."


def test_a_file_that_is_not_a_database_is_reported_plainly(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("these are not the classes you are looking for\n" * 100)
    with pytest.raises(StoreUnavailable, match=r"SQLite at .*notes\.txt\) cannot be reached: file is not a database"):
        open_store(str(path))


def test_postgresql_going_away_mid_class_raises_store_unavailable():
    server = pg_support.PostgresServer().start()
    try:
        url = pg_support.fresh_database(server.base_url)
        app = open_store(url)
        new, students = class_with_students(app, 1)
        rnd = app.open_poll(new.code, new.teacher_key, "q1")
    finally:
        server.stop()
    calls = [
        lambda: app.count(rnd.id),
        lambda: app.answer(rnd.id, students[0].student_id, "A", True),
        lambda: app.join(new.code),
        lambda: app.summary(new.code, new.teacher_key),
    ]
    for call in calls:
        start = time.perf_counter()
        with pytest.raises(StoreUnavailable, match=r"^The class database \(PostgreSQL at .*cannot be reached: "):
            call()
        assert time.perf_counter() - start < 5
    app.close()


def test_a_page_may_raise_store_unavailable_with_its_own_sentence():
    error = StoreUnavailable("Class mode is switched off on this server.")
    assert str(error) == error.reason == "Class mode is switched off on this server."


def test_a_closed_store_says_so(tmp_path):
    s = open_store(str(tmp_path / "c.sqlite3"))
    s.close()
    with pytest.raises(StoreUnavailable, match="closed"):
        s.create_class()


# ------------------------------------------------------------------ housekeeping and input checks


def test_purge_deletes_classes_expired_long_enough_with_their_rows(store, clock, class_db_url):
    old, _, _, _ = fill_a_class(store)
    clock.now += 5 * 86400
    recent, _, _, _ = fill_a_class(store)
    clock.now += 30 * 86400 + 13 * 3600  # old ended 35 days ago, recent 30 days and 1 hour ago
    assert store.purge(older_than_days=31) == 1
    assert store.class_info(old.code) is None and store.class_info(recent.code) is not None
    # what is left is exactly the recent class: 2 students, 1 round, 2 votes, 2 attempts
    for table, left in (("students", 2), ("rounds", 1), ("answers", 2), ("attempts", 2)):
        assert pg_support.rows(class_db_url, f"SELECT COUNT(*) FROM {table}") == [(left,)]
    assert store.purge() == 1
    assert store.purge() == 0
    assert all(pg_support.rows(class_db_url, f"SELECT COUNT(*) FROM {t}") == [(0,)] for t in ("answers", "students"))
    with pytest.raises(ValueError, match="older_than_days"):
        store.purge(-1)


def test_bad_arguments_are_refused_naming_them(store):
    new, (ada,) = class_with_students(store, 1)
    rnd = store.open_poll(new.code, new.teacher_key, "q1")
    cases = [
        (lambda: store.answer(rnd.id, ada.student_id, "v" * 65, True), r"vote must be 1 to 64 characters"),
        (lambda: store.answer(rnd.id, ada.student_id, "", True), r"vote must be 1 to 64"),
        (lambda: store.answer(rnd.id, ada.student_id, "A", "yes"), r"right must be True or False"),
        (lambda: store.answer(rnd.id, "", "A", True), r"student_id must be 1 to 64 printable characters"),
        (lambda: store.answer("", ada.student_id, "A", True), r"round_id must be"),
        (lambda: store.open_poll(new.code, new.teacher_key, "Q1"), r"poll_key must be 1 to 64 characters of a-z"),
        (lambda: store.open_poll(new.code, new.teacher_key, "-q"), r"poll_key must"),
        (lambda: store.open_poll(new.code, new.teacher_key, "q" * 65), r"poll_key must"),
        (lambda: store.rounds(new.code, "bad key"), r"poll_key must"),
        (lambda: store.record_attempt(new.code, ada.student_id, "Ex", "1", True), r"exercise_key must"),
        (lambda: store.record_attempt(new.code, ada.student_id, "ex", "1" * 201, True), r"answer must be 1 to 200"),
        (lambda: store.record_attempt(new.code, "", "ex", "1", True), r"student_id must"),
        (lambda: store.join(new.code, student_id=""), r"student_id must"),
        (lambda: store.join(new.code, 42), r"nickname must be a string"),
        (lambda: store.join(None), r"code must be a string"),
        (lambda: store.create_class(None), r"title must be a string"),
        (lambda: clean_nickname(None), r"nickname must be a string"),
    ]
    for call, match in cases:
        with pytest.raises(ValueError, match=match):
            call()
    assert store.count(rnd.id) == 0  # nothing refused was stored


def test_the_package_reexports_the_public_api():
    from posenc_lab.classroom import store as module

    assert set(classroom.__all__) == set(module.__all__)
    assert all(getattr(classroom, name) is getattr(module, name) for name in module.__all__)


def test_a_students_own_vote_can_be_read_back(store):
    new = store.create_class()
    ada, bo = store.join(new.code, "Ada"), store.join(new.code, "Bo")
    first = store.open_poll(new.code, new.teacher_key, "poll-x-y")
    assert store.vote_of(first.id, ada.student_id) is None
    store.answer(first.id, ada.student_id, "2", False)
    store.answer(first.id, ada.student_id, "1", True)  # replaces
    store.answer(first.id, bo.student_id, "0", False)
    assert store.vote_of(first.id, ada.student_id) == "1"
    assert store.vote_of(first.id, bo.student_id) == "0"
    with pytest.raises(ValueError, match="round_id"):
        store.vote_of("", ada.student_id)


# ------------------------------------------------------------------ follow me and the roster


def test_the_teacher_sends_the_class_and_each_send_is_numbered(store, clock):
    new, (ada,) = class_with_students(store, 1)
    assert store.follow(new.code) == classroom.Follow(0, "", False, None)
    assert store.send_class(new.code, new.teacher_key, "rope?view=rotation&step=1&gap=2") == 1
    clock.now += 5
    assert store.send_class(new.code, new.teacher_key, "rope?view=rotation&step=1&gap=2") == 2  # sent again
    follow = store.follow(new.code)
    assert (follow.seq, follow.address, follow.held, follow.at) == (
        2,
        "rope?view=rotation&step=1&gap=2",
        False,
        clock.now,
    )
    store.hold_class(new.code, new.teacher_key, True)
    assert store.follow(new.code).held and store.follow(new.code).seq == 2  # holding sends nothing new
    store.hold_class(new.code, new.teacher_key, False)
    assert not store.follow(new.code).held
    assert store.follow("ZZZZZZ") is None
    with pytest.raises(NotTeacher):
        store.send_class(new.code, "not-the-key", "rope")
    with pytest.raises(NotTeacher):
        store.hold_class(new.code, ada.student_id, True)
    with pytest.raises(ValueError, match="held"):
        store.hold_class(new.code, new.teacher_key, "yes")


@pytest.mark.parametrize(
    "address",
    [
        "https://evil.example/rope",
        "//evil.example",
        "/rope",
        "rope#frag",
        "rope?view=<script>",
        "rope?view=a b",
        'rope?view="x"',
        "rope?=1",
        "rope?view",
        "Rope",
        "",
        "rope?" + "a=1&" * 200 + "a=1",
        None,
    ],
)
def test_only_an_app_address_can_be_sent(store, address):
    new, _ = class_with_students(store, 1)
    with pytest.raises(ValueError, match="address"):
        store.send_class(new.code, new.teacher_key, address)
    assert store.follow(new.code).seq == 0


def test_the_roster_says_where_each_students_page_is(store, clock):
    new = store.create_class()
    ada = store.join(new.code, "s0", client="a")
    clock.now += 1  # the roster lists students in the order they joined
    bo = store.join(new.code, "s1", client="b")
    assert [(p.nickname, p.place, p.seen) for p in store.roster(new.code, new.teacher_key)] == [
        ("s0", "", None),
        ("s1", "", None),
    ]
    assert store.report_place(new.code, ada.student_id, "alibi?view=slopes&heads=8")
    clock.now += 3
    assert store.report_place(new.code, bo.student_id, "")  # on the class page
    assert not store.report_place(new.code, "not-in-this-class", "alibi")
    roster = store.roster(new.code, new.teacher_key)
    assert [(p.student_id, p.place, p.seen) for p in roster] == [
        (ada.student_id, "alibi?view=slopes&heads=8", clock.now - 3),
        (bo.student_id, "", clock.now),
    ]
    with pytest.raises(ValueError, match="place"):
        store.report_place(new.code, ada.student_id, "javascript:alert(1)")
    with pytest.raises(NotTeacher):
        store.roster(new.code, "not-the-key")


def test_a_raised_hand_shows_on_the_roster_until_lowered(store, clock):
    new = store.create_class()
    ada = store.join(new.code, "Ada", client="a")
    clock.now += 1
    bo = store.join(new.code, "Bo", client="b")
    assert store.raise_hand(new.code, ada.student_id, True)
    raised = clock.now
    clock.now += 5
    assert store.raise_hand(new.code, ada.student_id, True)  # up again: it keeps its first time
    assert store.hand_of(new.code, ada.student_id) and not store.hand_of(new.code, bo.student_id)
    assert [p.hand for p in store.roster(new.code, new.teacher_key)] == [raised, None]
    assert store.raise_hand(new.code, bo.student_id, True)
    assert store.raise_hand(new.code, bo.student_id, False)  # Bo found it himself
    assert [p.hand for p in store.roster(new.code, new.teacher_key)] == [raised, None]
    assert store.hands_up(new.code) == 1
    assert store.lower_hands(new.code, new.teacher_key) == 1
    assert store.hands_up(new.code) == 0
    assert [p.hand for p in store.roster(new.code, new.teacher_key)] == [None, None]
    assert not store.raise_hand(new.code, "not-in-this-class", True)
    with pytest.raises(ValueError, match="up"):
        store.raise_hand(new.code, ada.student_id, 1)
    with pytest.raises(NotTeacher):
        store.lower_hands(new.code, ada.student_id)


def test_the_roster_counts_each_students_solved_exercises(store, clock):
    new = store.create_class()
    ada = store.join(new.code, "Ada", client="a")
    store.record_attempt(new.code, ada.student_id, "ex.a", "1", False)
    store.record_attempt(new.code, ada.student_id, "ex.a", "2", True)
    store.record_attempt(new.code, ada.student_id, "ex.a", "2", True)  # solved twice: one exercise
    store.record_attempt(new.code, ada.student_id, "ex.b", "9", False)
    assert store.roster(new.code, new.teacher_key)[0].solved == frozenset({"ex.a"})


def test_the_teacher_extends_a_class_by_an_hour_even_after_it_ended(store, clock):
    new = store.create_class(ttl_hours=1.0)
    end = store.extend_class(new.code, new.teacher_key)
    assert end == pytest.approx(clock.now + 2 * 3600) and store.class_info(new.code).expires == end
    store.end_class(new.code, new.teacher_key)
    assert not store.is_open(new.code)
    clock.now += 60
    assert store.extend_class(new.code, new.teacher_key) == pytest.approx(clock.now + 3600)  # an hour from now
    assert store.is_open(new.code)
    # never past a week after it was made
    assert store.extend_class(new.code, new.teacher_key, 168) == pytest.approx(
        store.class_info(new.code).created + 168 * 3600
    )
    with pytest.raises(ValueError, match="hours"):
        store.extend_class(new.code, new.teacher_key, 0)
    with pytest.raises(NotTeacher):
        store.extend_class(new.code, "not-the-key")


# ------------------------------------------------------------------ the teacher's own questions


def test_a_teachers_questions_are_kept_cleaned_in_order_and_per_class(store, clock):
    new, (ada,) = class_with_students(store, 1)
    other = store.create_class()
    choice = store.add_question(
        new.code,
        new.teacher_key,
        Question(
            "  Which one\nlooks <b>further</b>?  ",
            options=["**near**", "far ", "[link](http://x)"],
            answer=1,
            why="Because\tof $\\theta$.",
            view="rope?view=rotation&base=500",
        ),
    )
    number = store.add_question(
        new.code.lower(),
        new.teacher_key,
        Question("How many?", answer=12, low=0, high=100, tolerance=0.5, integer=True, unit="positions"),
    )
    assert choice.key.startswith(OWN_PREFIX) and number.key.startswith(OWN_PREFIX) and choice.key != number.key
    # text cleaned (spaces collapsed), never rewritten: markup stays as typed, shown as text
    assert (choice.prompt, choice.options, choice.answer) == (
        "Which one looks <b>further</b>?",
        ("**near**", "far", "[link](http://x)"),
        1.0,
    )
    assert (choice.why, choice.view) == ("Because of $\\theta$.", "rope?view=rotation&base=500")
    assert store.questions(new.code) == [choice, number]
    assert (number.low, number.high, number.integer, number.unit, number.options) == (0.0, 100.0, True, "positions", ())
    assert store.questions(other.code) == []
    # opened like a lesson's question; once asked it cannot be removed
    rnd = store.open_poll(new.code, new.teacher_key, number.key)
    assert store.answer(rnd.id, ada.student_id, "12", True)
    assert not store.remove_question(new.code, new.teacher_key, number.key)
    assert store.remove_question(new.code, new.teacher_key, choice.key)
    assert not store.remove_question(new.code, new.teacher_key, choice.key)
    assert not store.remove_question(other.code, other.teacher_key, number.key)
    assert store.questions(new.code) == [number]
    with pytest.raises(NotTeacher):
        store.add_question(new.code, other.teacher_key, Question("Hi?", options=["a", "b"]))
    with pytest.raises(NotTeacher):
        store.remove_question(new.code, "wrong", number.key)
    store.delete_class(new.code, new.teacher_key)
    assert store.questions(new.code) == []


def test_a_class_holds_a_limited_number_of_questions(store):
    new = store.create_class()
    for i in range(classroom.store.QUESTIONS_PER_CLASS):
        store.add_question(new.code, new.teacher_key, Question(f"Q{i}?", options=["yes", "no"]))
    with pytest.raises(ValueError, match="at most 60 questions"):
        store.add_question(new.code, new.teacher_key, Question("One more?", options=["yes", "no"]))
    assert len(store.questions(new.code)) == 60


def test_purge_takes_a_class_questions_with_it(store, clock, class_db_url):
    new = store.create_class(ttl_hours=1)
    store.add_question(new.code, new.teacher_key, Question("Q?", options=["yes", "no"]))
    clock.now += 40 * 86400
    assert store.purge(older_than_days=30) == 1
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM questions") == [(0,)]


@pytest.mark.parametrize(
    ("question", "match"),
    [
        (Question(""), r"prompt must be 1 to 300"),
        (Question("x" * 301, options=["a", "b"]), r"prompt must be 1 to 300"),
        (Question("Q?", options=["a"]), r"options must be 2 to 6, got 1"),
        (Question("Q?", options=list("abcdefg")), r"options must be 2 to 6, got 7"),
        (Question("Q?", options="ab"), r"options must be a list"),
        (Question("Q?", options=["a", " a "]), r"options must differ"),
        (Question("Q?", options=["a", ""]), r"each option must be 1 to 120"),
        (Question("Q?", options=["a", "b"], answer=2), r"answer must be an option's index, 0 to 1, got 2"),
        (Question("Q?", options=["a", "b"], answer=0.5), r"answer must be an option's index"),
        (Question("Q?", options=["a", "b"], answer=float("nan")), r"answer must be a finite number"),
        (Question("Q?", options=["a", "b"], answer=True), r"answer must be a finite number"),
        (Question("Q?", options=["a", "b"], why="w" * 601), r"why must be at most 600"),
        (Question("Q?", options=["a", "b"], view="http://evil.example/x"), r"view must be an app path"),
        (Question("Q?", options=["a", "b"], view="rope?view=<script>"), r"view must be an app path"),
        (Question("Q?", answer=5, low=10, high=1), r"low must be below high"),
        (Question("Q?", answer=50, low=0, high=10), r"answer must be between low and high"),
        (Question("Q?", answer=1, low=0, high=1e13), r"high must be between"),
        (Question("Q?", answer=1, low=0, high=10, tolerance=-1), r"tolerance must be 0 or more"),
        (Question("Q?", answer=1.5, low=0, high=10, integer=True), r"whole low, high and answer"),
        (Question("Q?", answer=1, low=0, high=10, integer="yes"), r"integer must be True or False"),
        (Question("Q?", answer=1, low=0, high=10, unit="u" * 21), r"unit must be at most 20"),
        ("not a question", r"question must be a Question"),
    ],
)
def test_a_bad_question_is_refused_naming_the_field(question, match):
    with pytest.raises(ValueError, match=match):
        classroom.check_question(question)


# ------------------------------------------------------------------ the class plan


def test_a_plan_steps_the_class_through_views_and_questions(store, clock):
    new, (ada,) = class_with_students(store, 1)
    own = store.add_question(new.code, new.teacher_key, Question("Ours?", options=["yes", "no"]))
    steps = [
        PlanStep("view", "rope?view=rotation&base=500", "  Ask what\nturns.  "),
        PlanStep("question", "poll-rope-period"),
        PlanStep("question", own.key, "our own"),
    ]
    plan = store.set_plan(new.code, new.teacher_key, steps)
    assert plan.at == -1 and [s.notes for s in plan.steps] == ["Ask what turns.", "", "our own"]
    assert store.class_plan(new.code.lower()) == plan

    assert store.plan_go(new.code, new.teacher_key, 0) == plan.steps[0]
    follow = store.follow(new.code)
    assert (follow.seq, follow.address) == (1, "rope?view=rotation&base=500")
    assert store.plan_go(new.code, new.teacher_key, 2).target == own.key
    assert store.current_round(new.code).poll_key == own.key
    assert store.class_plan(new.code).at == 2
    # a shorter plan keeps the class on its last step
    assert store.set_plan(new.code, new.teacher_key, steps[:1]).at == 0
    with pytest.raises(ValueError, match="at must be a step of the plan, 0 to 0, got 1"):
        store.plan_go(new.code, new.teacher_key, 1)
    with pytest.raises(NotTeacher):
        store.plan_go(new.code, "wrong", 0)
    with pytest.raises(NotTeacher):
        store.set_plan(new.code, "wrong", steps)
    with pytest.raises(ValueError, match="names a question this class does not have"):
        store.set_plan(new.code, new.teacher_key, [PlanStep("question", "own.000000000000")])
    assert store.class_plan("NOSUCH") == ClassPlan()


def test_previous_and_next_show_a_question_as_it_was_and_make_no_round(store, clock):
    """Going back and forth in a plan shows each question as it was: one nobody answered is
    open again in its first round (it became 'round 2', '0 of 0 right'), one answered and
    revealed comes back revealed with its answers; only the teacher's own 'ask again' makes
    a round."""
    new, (ada,) = class_with_students(store, 1)
    own = store.add_question(new.code, new.teacher_key, Question("Ours?", options=["yes", "no"]))
    steps = [PlanStep("question", "poll-rope-period"), PlanStep("view", "rope"), PlanStep("question", own.key)]
    store.set_plan(new.code, new.teacher_key, steps)
    go = functools.partial(store.plan_go, new.code, new.teacher_key)
    go(0)
    first = store.current_round(new.code)
    go(1)
    go(0)  # Previous, nobody answered: the same round, open
    again = store.current_round(new.code)
    assert (again.id, again.number, again.is_open) == (first.id, 1, True)
    assert store.answer(again.id, ada.student_id, "a", True)
    store.reveal(new.code, new.teacher_key)
    go(1)
    go(2)
    assert store.current_round(new.code).poll_key == own.key
    go(0)  # back to the revealed question: revealed, with its answer, still round 1
    back = store.current_round(new.code)
    assert (back.id, back.number, back.revealed is not None) == (first.id, 1, True)
    go(2)  # and forward to the own question: its round 1 again, open (nobody answered)
    own_round = store.current_round(new.code)
    assert (own_round.poll_key, own_round.number, own_round.is_open) == (own.key, 1, True)
    assert [r.number for r in store.rounds(new.code, "poll-rope-period")] == [1]
    assert [r.number for r in store.rounds(new.code, own.key)] == [1]
    # the first question was closed when the class moved on to the second
    assert all(not r.is_open for r in store.rounds(new.code, "poll-rope-period"))


def test_a_saved_plan_loads_into_another_class_with_its_questions(store, clock, class_db_url):
    first = store.create_class()
    own = store.add_question(
        first.code, first.teacher_key, Question("How far?", answer=4, low=0, high=10, unit="steps", why="Count.")
    )
    steps = [PlanStep("view", "alibi?view=bias", "start here"), PlanStep("question", own.key, "then ask")]
    store.set_plan(first.code, first.teacher_key, steps)
    plan_code = store.save_plan(first.code, first.teacher_key, " Week 3\n RoPE ")
    assert len(plan_code) == 8 and set(plan_code) <= set(CODE_ALPHABET)

    second = store.create_class()
    title, plan = store.load_plan(second.code, second.teacher_key, plan_code.lower()[:4] + " " + plan_code[4:])
    assert title == "Week 3 RoPE" and plan.at == -1
    (copied,) = store.questions(second.code)
    assert copied.key != own.key and (copied.prompt, copied.answer, copied.unit, copied.why) == (
        "How far?",
        4.0,
        "steps",
        "Count.",
    )
    assert plan.steps == (steps[0], PlanStep("question", copied.key, "then ask"))
    # the first class going away leaves the saved plan
    store.delete_class(first.code, first.teacher_key)
    third = store.create_class()
    assert store.load_plan(third.code, third.teacher_key, plan_code)[1].steps[0] == steps[0]
    with pytest.raises(ValueError, match="no saved plan has the code"):
        store.load_plan(third.code, third.teacher_key, "ZZZZZZZZ")
    empty = store.create_class()
    with pytest.raises(ValueError, match="no steps to save"):
        store.save_plan(empty.code, empty.teacher_key)
    # kept 180 days after it was last saved or loaded
    clock.now += 179 * 86400
    store.purge()
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM plans") == [(1,)]
    clock.now += 2 * 86400
    store.purge()
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM plans") == [(0,)]


def test_removing_a_question_takes_the_plan_steps_that_open_it(store):
    """A removed question's steps go with it: the plan stays one that adds and moves, and the
    class stays on the step it was on."""
    new = store.create_class()
    gone = store.add_question(new.code, new.teacher_key, Question("Gone?", options=["yes", "no"]))
    kept = store.add_question(new.code, new.teacher_key, Question("Kept?", options=["yes", "no"]))
    steps = [
        PlanStep("question", gone.key, "first"),
        PlanStep("view", "rope"),
        PlanStep("question", gone.key, "again"),
        PlanStep("view", "alibi"),
        PlanStep("question", kept.key),
    ]
    store.set_plan(new.code, new.teacher_key, steps)
    store.plan_go(new.code, new.teacher_key, 3)  # a view: the question was never asked
    assert store.remove_question(new.code, new.teacher_key, gone.key) is True
    plan = store.class_plan(new.code)
    assert plan.steps == (steps[1], steps[3], steps[4]) and plan.at == 1
    # adding and moving steps work as before
    added = store.set_plan(new.code, new.teacher_key, [*plan.steps, PlanStep("view", "relative")])
    assert len(added.steps) == 4
    moved = list(added.steps)
    moved[0], moved[1] = moved[1], moved[0]
    assert store.set_plan(new.code, new.teacher_key, moved).steps[0] == steps[3]


def test_a_plan_that_passes_the_question_cap_loads_whole_or_not_at_all(store):
    source = store.create_class()
    own = [
        store.add_question(source.code, source.teacher_key, Question(f"Q{i}?", options=["yes", "no"])) for i in range(3)
    ]
    store.set_plan(source.code, source.teacher_key, [PlanStep("question", q.key) for q in own])
    plan_code = store.save_plan(source.code, source.teacher_key, "Three questions")

    full = store.create_class()
    held = classroom.store.QUESTIONS_PER_CLASS - 2  # room for two of the three
    for i in range(held):
        store.add_question(full.code, full.teacher_key, Question(f"Mine {i}?", options=["yes", "no"]))
    store.set_plan(full.code, full.teacher_key, [PlanStep("view", "rope")])
    with pytest.raises(
        ValueError, match="brings 3 questions of its own and this class holds 58: a class holds at most 60"
    ):
        store.load_plan(full.code, full.teacher_key, plan_code)
    assert len(store.questions(full.code)) == held  # no orphan question
    assert store.class_plan(full.code).steps == (PlanStep("view", "rope"),)
    # a class with room loads it whole; a stranger loads nothing
    roomy = store.create_class()
    with pytest.raises(NotTeacher):
        store.load_plan(roomy.code, "wrong", plan_code)
    assert store.questions(roomy.code) == []
    assert len(store.load_plan(roomy.code, roomy.teacher_key, plan_code)[1].steps) == 3
    assert len(store.questions(roomy.code)) == 3


@pytest.mark.parametrize(
    ("steps", "match"),
    [
        ([PlanStep("film", "rope")], r"kind must be 'view' or 'question'"),
        ([PlanStep("view", "http://evil.example/")], r"a view step's address must be an app path"),
        ([PlanStep("question", "Bad Key")], r"a question step's key must"),
        ([PlanStep("view", "rope", "n" * 401)], r"notes must be at most 400"),
        ([PlanStep("view", "rope")] * 41, r"at most 40 steps, got 41"),
        ("rope", r"steps must be a list"),
        (["rope"], r"step must be a PlanStep"),
    ],
)
def test_a_bad_plan_is_refused_naming_what_is_wrong(store, steps, match):
    new = store.create_class()
    with pytest.raises(ValueError, match=match):
        store.set_plan(new.code, new.teacher_key, steps)
    assert store.class_plan(new.code) == ClassPlan()


# ------------------------------------------------------------------ practice on the variant exercises


def test_a_students_practice_record_is_kept_once_per_entry_and_read_by_the_teacher(store, clock):
    new, (ada, bo) = class_with_students(store, 2)
    entries = [("sin_pe_value", 0, "r", 1), ("sin_pe_value", 1, "a", 2), ("sin_pe_value", 1, "w", 3)]
    assert store.record_practice(new.code, ada.student_id, entries, keep=6)
    # the same entries again (a run that sent them before its answer came back) add nothing
    assert store.record_practice(new.code, ada.student_id, entries[1:], keep=6)
    assert store.record_practice(new.code, bo.student_id, [("sin_wavelength", 0, "r", 1)], keep=6)
    assert store.practice(new.code, ada.student_id) == set(entries)
    assert store.practice(new.code, bo.student_id) == {("sin_wavelength", 0, "r", 1)}
    roster = {p.nickname: p.practice for p in store.roster(new.code, new.teacher_key)}
    assert roster == {"s0": frozenset(entries), "s1": frozenset({("sin_wavelength", 0, "r", 1)})}
    record = store.class_record(new.code, new.teacher_key)
    assert record.practice == {ada.student_id: frozenset(entries), bo.student_id: frozenset(roster["s1"])}
    # another class's student with the same id reads nothing of this one
    other = store.create_class()
    assert store.practice(other.code, ada.student_id) == set()
    assert not store.record_practice(other.code, ada.student_id, entries, keep=6)
    assert store.practice(other.code, ada.student_id) == set()


def test_practice_keeps_each_exercises_last_variants_as_the_lessons_record_does(store):
    new, (ada,) = class_with_students(store, 1)
    for n in range(10):
        store.record_practice(new.code, ada.student_id, [("ex_a", n, "a", 2 * n), ("ex_a", n, "r", 2 * n + 1)], keep=3)
    store.record_practice(new.code, ada.student_id, [("ex_b", 0, "w", 100)], keep=3)
    kept = store.practice(new.code, ada.student_id)
    assert {n for key, n, _, _ in kept if key == "ex_a"} == {7, 8, 9}
    assert ("ex_b", 0, "w", 100) in kept and len(kept) == 7


def test_practice_is_refused_after_the_class_ends_and_goes_with_it(store, clock, class_db_url):
    new, (ada,) = class_with_students(store, 1, ttl_hours=1)
    assert store.record_practice(new.code, ada.student_id, [("ex_a", 0, "r", 1)], keep=6)
    clock.now += 2 * 3600
    assert not store.record_practice(new.code, ada.student_id, [("ex_a", 1, "r", 2)], keep=6)
    assert store.practice(new.code, ada.student_id) == {("ex_a", 0, "r", 1)}
    kept, (bo,) = class_with_students(store, 1)
    store.record_practice(kept.code, bo.student_id, [("ex_a", 0, "w", 1)], keep=6)
    store.delete_class(kept.code, kept.teacher_key)
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM practice") == [(1,)]
    clock.now += 40 * 86400
    store.purge()
    assert pg_support.rows(class_db_url, "SELECT COUNT(*) FROM practice") == [(0,)]


def test_practice_entries_out_of_shape_are_refused_naming_them(store):
    new, (ada,) = class_with_students(store, 1)

    def send(entries, keep=6):
        return lambda: store.record_practice(new.code, ada.student_id, entries, keep=keep)

    cases = [
        (send([("Ex", 0, "r", 1)]), r"exercise_key must"),
        (send([("ex", -1, "r", 1)]), r"n must be a whole number"),
        (send([("ex", True, "r", 1)]), r"n must be a whole number"),
        (send([("ex", 0, "s", 1)]), r"kind must be one of a, r, w, x"),
        (send([("ex", 0, "r", 10**9)]), r"seq must be a whole number"),
        (send([("ex", 0, "r")]), r"a practice entry is \(key, n, kind, seq\)"),
        (send([("ex", n, "a", n) for n in range(201)]), r"at most 200 practice entries"),
        (send([("ex", 0, "r", 1)], keep=0.5), r"keep must be a whole number"),
        (send([("ex", 0, "r", 1)], keep=51), r"keep must be a whole number"),
        (lambda: store.record_practice(new.code, "", [("ex", 0, "r", 1)], keep=6), r"student_id must"),
    ]
    for call, match in cases:
        with pytest.raises(ValueError, match=match):
            call()
    assert store.practice(new.code, ada.student_id) == set()  # nothing refused was stored


def test_a_send_may_set_the_class_to_practise_and_the_next_send_ends_it(store):
    new = store.create_class()
    assert store.follow(new.code).practice is False
    store.send_class(new.code, new.teacher_key, "sinusoidal?view=heatmap", practice=True)
    follow = store.follow(new.code)
    assert (follow.seq, follow.address, follow.practice) == (1, "sinusoidal?view=heatmap", True)
    store.hold_class(new.code, new.teacher_key, True)
    assert store.follow(new.code).practice is True  # holding is no send
    store.send_class(new.code, new.teacher_key, "rope")
    assert (store.follow(new.code).seq, store.follow(new.code).practice) == (2, False)
    with pytest.raises(ValueError, match="practice must be True or False"):
        store.send_class(new.code, new.teacher_key, "rope", practice=1)
    with pytest.raises(NotTeacher):
        store.send_class(new.code, "not-the-key", "rope", practice=True)
    assert store.follow(new.code).practice is False


# ------------------------------------------------------------------ a plan as a file


def test_a_plan_file_carries_a_plan_to_another_installation(store, tmp_path):
    """Download as a file / Import a plan file: the steps, notes and the class's own
    questions, read into a class of another database (another installation), whole."""
    import json

    from posenc_lab.classroom import store as class_store

    first = store.create_class()
    own = store.add_question(
        first.code, first.teacher_key, Question("How far?", answer=4, low=0, high=10, unit="steps", why="Count.")
    )
    steps = [
        PlanStep("view", "alibi?heads=4&view=slopes", "start here"),
        PlanStep("question", own.key, "then ask"),
        PlanStep("question", "poll-compare-free-methods", ""),
    ]
    store.set_plan(first.code, first.teacher_key, steps)
    text = store.export_plan(first.code, first.teacher_key, " Week 3\n RoPE ")
    body = json.loads(text)
    assert body["format"] == class_store.PLAN_FILE_FORMAT and body["title"] == "Week 3 RoPE"
    assert first.code not in text and first.teacher_key not in text  # nothing of the class but its plan

    with open_store(f"sqlite:///{tmp_path / 'elsewhere.db'}") as elsewhere:
        second = elsewhere.create_class()
        title, plan = elsewhere.import_plan(
            second.code, second.teacher_key, text.encode(), known={"poll-compare-free-methods"}
        )
        assert title == "Week 3 RoPE" and plan.at == -1
        (copied,) = elsewhere.questions(second.code)
        assert (copied.prompt, copied.answer, copied.unit, copied.why) == ("How far?", 4.0, "steps", "Count.")
        assert plan.steps == (steps[0], PlanStep("question", copied.key, "then ask"), steps[2])
        # the file read again adds the question again: a class may import a plan twice
        assert len(elsewhere.import_plan(second.code, second.teacher_key, text)[1].steps) == 3


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda body: b"\xff\xfe not text", "not text"),
        (lambda body: b"{not json", "not JSON"),
        (lambda body: b"[" * 100_000, "not JSON"),
        (lambda body: b" " * 600_000, "larger than a plan file"),
        (lambda body: {**body, "format": "something else"}, "not a posenc-lab class plan"),
        (lambda body: {**body, "version": 9}, "version 9"),
        (lambda body: {**body, "title": ["x"]}, "title must be text"),
        (lambda body: {**body, "steps": []}, "one step or more"),
        (lambda body: {**body, "steps": "view"}, "one step or more"),
        (lambda body: {**body, "steps": [{"kind": "view", "target": "rope", "extra": 1}]}, "step 1 of the plan"),
        (lambda body: {**body, "steps": [{"kind": "view", "target": "https://evil.example/x"}]}, "address"),
        (lambda body: {**body, "steps": [{"kind": "view", "target": "rope?a=<b>"}]}, "address"),
        (lambda body: {**body, "steps": [{"kind": "dance", "target": "rope"}]}, "kind must be"),
        (lambda body: {**body, "steps": [{"kind": "question", "target": "poll-nowhere"}]}, "does not have"),
        (
            lambda body: {**body, "steps": [{"kind": "question", "target": "x", "question": {"prompt": "?" * 5000}}]},
            "step 1's question",
        ),
        (
            lambda body: {**body, "steps": [{"kind": "question", "target": "x", "question": {"prompt": "a", "x": 1}}]},
            "fields a question does not have",
        ),
        (lambda body: {**body, "steps": [{"kind": "view", "target": "rope"}] * 5000}, "at most"),
    ],
)
def test_a_plan_file_that_is_not_a_plan_is_refused_and_nothing_changes(store, make, match):
    import json

    first = store.create_class()
    store.set_plan(first.code, first.teacher_key, [PlanStep("view", "rope?view=rotation")])
    body = json.loads(store.export_plan(first.code, first.teacher_key))
    second = store.create_class()
    before = [PlanStep("view", "sinusoidal")]
    store.set_plan(second.code, second.teacher_key, before)
    made = make(body)
    data = made if isinstance(made, bytes) else json.dumps(made).encode()
    with pytest.raises(ValueError, match=match):
        store.import_plan(second.code, second.teacher_key, data, known={"poll-compare-free-methods"})
    assert store.class_plan(second.code).steps == tuple(before) and store.questions(second.code) == []
    with pytest.raises(NotTeacher):
        store.import_plan(second.code, "not-the-key", json.dumps(body))


# ------------------------------------------------------------------ a vote's timer, who answered


def test_a_vote_timer_sets_a_deadline_and_checks_its_bounds(store, clock):
    new, _ = class_with_students(store, 1)
    assert store.set_timer(new.code, new.teacher_key, 30) is None, "no round yet: nothing is set"
    rnd = store.open_poll(new.code, new.teacher_key, "q1")
    assert rnd.deadline is None and store.current_round(new.code).deadline is None
    timed = store.set_timer(new.code, new.teacher_key, 30)
    assert timed.id == rnd.id and timed.deadline == T0 + 30
    assert store.current_round(new.code).deadline == T0 + 30
    clock.now = T0 + 10
    assert store.set_timer(new.code, new.teacher_key, 120).deadline == T0 + 130, "set again: from now"
    assert store.set_timer(new.code, new.teacher_key, None).deadline is None, "No timer"
    for bad in (4, 601, 0, -30, 10**400, float("nan"), float("inf"), "30", True):
        with pytest.raises(ValueError, match="from 5 seconds to 10 minutes"):
            store.set_timer(new.code, new.teacher_key, bad)
    assert store.set_timer(new.code, new.teacher_key, 5).deadline == T0 + 15
    assert store.set_timer(new.code, new.teacher_key, 600).deadline == T0 + 610
    with pytest.raises(NotTeacher):
        store.set_timer(new.code, "not-the-key", 30)
    store.close_round(new.code, new.teacher_key)
    assert store.set_timer(new.code, new.teacher_key, 30) is None, "a closed vote gets no timer"
    assert store.current_round(new.code).deadline == T0 + 610


def test_a_vote_after_the_deadline_is_refused_by_the_store(store, clock):
    new, (ada, bo) = class_with_students(store, 2)
    rnd = store.open_poll(new.code, new.teacher_key, "q1")
    store.set_timer(new.code, new.teacher_key, 30)
    clock.now = T0 + 29.9
    assert store.answer(rnd.id, ada.student_id, "1", True)
    clock.now = T0 + 30
    # nobody has closed the round yet: the store refuses the vote all the same
    assert store.current_round(new.code).closed is None
    assert store.answer(rnd.id, bo.student_id, "0", False) is False
    assert store.answer(rnd.id, ada.student_id, "0", False) is False, "no change after the deadline either"
    assert store.votes(rnd.id) == [("1", True)]


def test_a_timer_closes_the_round_once_across_two_stores_on_one_database(class_db_url):
    clock = pg_support.Clock(T0)
    with open_store(class_db_url, clock=clock) as one, open_store(class_db_url, clock=clock) as two:
        new, _ = class_with_students(one, 1)
        rnd = one.open_poll(new.code, new.teacher_key, "q1")
        one.set_timer(new.code, new.teacher_key, 60)
        clock.now = T0 + 59
        assert two.live_round(new.code).is_open and not two.close_expired(new.code)
        clock.now = T0 + 75
        assert one.current_round(new.code).is_open, "a read alone closes nothing"
        assert two.live_round(new.code).closed == T0 + 60, "closed as of its deadline"
        assert one.close_expired(new.code) is False and two.close_expired(new.code) is False
        assert one.live_round(new.code).closed == T0 + 60
        # a second round has no timer; Vote again after a timer starts without one
        again = one.open_poll(new.code, new.teacher_key, "q1")
        assert again.id != rnd.id and one.live_round(new.code).deadline is None
        assert two.live_round(new.code).is_open


def test_many_threads_and_two_processes_close_an_expired_round_once(class_db_url):
    with open_store(class_db_url) as teacher:
        new, _ = class_with_students(teacher, 1)
        teacher.open_poll(new.code, new.teacher_key, "q1")
        teacher.set_timer(new.code, new.teacher_key, 5)
    code = """
        import sys, threading, time
        from posenc_lab.classroom import open_store
        url, class_code, start = sys.argv[1:]
        # a clock a minute ahead: the 5 s timer has run out
        with open_store(url, clock=lambda: time.time() + 60) as s:
            time.sleep(max(0.0, float(start) - time.time()))
            closed = []
            threads = [threading.Thread(target=lambda: closed.append(s.close_expired(class_code))) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            print(sum(closed))
    """
    start = str(time.time() + 1.5)
    procs = [run_python(code, class_db_url, new.code, start) for _ in range(2)]
    assert sum(int(finish(p)) for p in procs) == 1, "one of eight checks closes it, none fails"
    with open_store(class_db_url) as teacher:
        current = teacher.current_round(new.code)
        assert current.closed == current.deadline


def test_the_teacher_reads_who_answered_and_what_by_name(store, clock):
    new, (ada, bo, cy) = class_with_students(store, 3)
    rnd = store.open_poll(new.code, new.teacher_key, "q1")
    assert sorted(store.answers_of(new.code, new.teacher_key, rnd.id)) == sorted(
        [(ada.student_id, "s0", None), (bo.student_id, "s1", None), (cy.student_id, "s2", None)]
    )
    store.answer(rnd.id, bo.student_id, "2", True)
    store.answer(rnd.id, bo.student_id, "1", False)
    votes = {name: vote for _, name, vote in store.answers_of(new.code, new.teacher_key, rnd.id)}
    assert votes == {"s0": None, "s1": "1", "s2": None}
    with pytest.raises(NotTeacher):
        store.answers_of(new.code, "not-the-key", rnd.id)
    other, _ = class_with_students(store, 1)
    assert store.answers_of(other.code, other.teacher_key, rnd.id) == [], "another class's round: nothing"


def test_the_room_shows_one_answer_once_the_vote_is_closed(store):
    """``show_answer``: the teacher's pick of one student's answer for the room screen, only
    once the round is closed, only an answer that exists, and a new round shows none."""
    new = store.create_class()
    ada, bo = store.join(new.code, "Ada"), store.join(new.code, "Bo")
    rnd = store.open_poll(new.code, new.teacher_key, "sin_wavelength")
    store.answer(rnd.id, ada.student_id, "62", True)
    assert not store.show_answer(new.code, new.teacher_key, ada.student_id), "not while the vote is open"
    store.close_round(new.code, new.teacher_key)
    assert not store.show_answer(new.code, new.teacher_key, bo.student_id), "Bo did not answer"
    assert store.current_round(new.code).shown is None
    with pytest.raises(NotTeacher):
        store.show_answer(new.code, "not-the-key", ada.student_id)
    with pytest.raises(ValueError, match="student_id"):
        store.show_answer(new.code, new.teacher_key, "")
    assert store.show_answer(new.code, new.teacher_key, ada.student_id)
    current = store.current_round(new.code)
    assert current.shown == ada.student_id and store.shown_answer(current) == "62"
    store.reveal(new.code, new.teacher_key)
    assert store.shown_answer(store.current_round(new.code)) == "62", "kept through the reveal"
    assert store.show_answer(new.code, new.teacher_key, None)
    assert store.shown_answer(store.current_round(new.code)) is None
    store.show_answer(new.code, new.teacher_key, ada.student_id)
    again = store.open_poll(new.code, new.teacher_key, "sin_wavelength")
    assert again.shown is None and store.current_round(new.code).shown is None, "a new round shows none"


def test_a_teachers_own_question_changes_only_while_never_asked(store):
    new = store.create_class()
    own = store.add_question(new.code, new.teacher_key, Question("Which?", ("a", "b"), 0.0))
    changed = store.update_question(new.code, new.teacher_key, own.key, Question("Which one?", ("b", "a", "c"), 2.0))
    assert changed is not None and changed.key == own.key
    (kept,) = store.questions(new.code)
    assert (kept.prompt, kept.options, kept.answer) == ("Which one?", ("b", "a", "c"), 2.0)
    with pytest.raises(NotTeacher):
        store.update_question(new.code, "not-the-key", own.key, Question("x?", ("a", "b"), 0.0))
    with pytest.raises(ValueError, match="answer"):
        store.update_question(new.code, new.teacher_key, own.key, Question("x?", ("a", "b"), 5.0))
    assert store.update_question(new.code, new.teacher_key, "own.nosuch", Question("x?", ("a", "b"), 0.0)) is None
    store.open_poll(new.code, new.teacher_key, own.key)
    assert store.update_question(new.code, new.teacher_key, own.key, Question("Later?", ("a", "b"), 0.0)) is None
    assert store.questions(new.code)[0].prompt == "Which one?"
