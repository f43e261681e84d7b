"""The class database: classes, students, poll rounds, votes and exercise attempts.

One schema and one list of migrations serve SQLite (the embedded default: one file in WAL
mode, shared by every app process on the machine) and PostgreSQL (``postgresql://`` URLs,
psycopg 3, for app processes on several machines). The SQL is the subset both accept;
queries are written with ``?`` and turned into psycopg's ``%s`` in one place (``_Tx``).

Pure Python: no Streamlit, no Plotly. psycopg is imported only when a PostgreSQL URL is
opened, so SQLite needs nothing beyond the standard library.

Every public method of ``Store`` raises ``StoreUnavailable`` (a message for people) when
the database cannot be reached, never a raw driver error; bad arguments get a ValueError
naming them; teacher-only actions without the teacher key get ``NotTeacher``.

``Store`` is one class made of one part per concern, each a module of this package:

- ``schema``: the tables, as the list of migrations;
- ``connect``: the setting, the two backends, the pool, transactions and migrating
  (``Connections``);
- ``classes``: classes, joins and limits (``Classes``);
- ``follow``: follow me, where each student is, hands (``Following``);
- ``rounds``: rounds, votes, exercise attempts and the results (``Rounds``);
- ``plans``: class plans and the teacher's own questions (``Plans``);
- ``retention``: how long data is kept, the purge, deleting a class (``Retention``);
- ``records``: what the store returns and raises; ``rules``: what it accepts.

A new table is a migration at the end of ``schema.MIGRATIONS`` and its methods in the part
of its concern (or a new part, added to ``Store``'s bases below); the tests in
``tests/test_class_store.py`` run each on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# besides the public API (``__all__``), every limit, setting and check the pages, tests and
# benchmarks read as ``store.NAME`` (pyproject.toml lets this file import them unused)
from posenc_lab.classroom.store.classes import (
    ADDRESS_WINDOW_S,
    CLASSES_PER_ADDRESS,
    JOIN_FAILURE_WINDOW_S,
    JOIN_FAILURES_ALLOWED,
    MAX_TTL_HOURS,
    NETWORK_FREE_FAILURES,
    NETWORK_JOINS_ALLOWED,
    TTL_HOURS,
    WRONG_CODE_DELAY_MAX_S,
    WRONG_CODE_DELAY_STEP_S,
    Classes,
    wrong_code_delay,
)
from posenc_lab.classroom.store.connect import (
    DELETED_FILE,
    SETTING,
    Connections,
    StoreUnavailable,
    _backend_for,
    database_url,
    sqlite_file,
)
from posenc_lab.classroom.store.follow import Following
from posenc_lab.classroom.store.plans import (
    PLAN_CODE_LENGTH,
    PLAN_FILE_BYTES,
    PLAN_FILE_FORMAT,
    PLAN_RETENTION_DAYS,
    PLAN_SAVES_PER_ADDRESS,
    PLAN_TITLE_CHARS,
    QUESTIONS_PER_CLASS,
    Plans,
)
from posenc_lab.classroom.store.practice import Practice
from posenc_lab.classroom.store.records import (
    CLASS_CAP,
    MAX_CLASS_CAP,
    ClassInfo,
    ClassPlan,
    ClassRecord,
    Follow,
    ItemSummary,
    Joined,
    JoinRefused,
    NewClass,
    NotTeacher,
    Place,
    PlanStep,
    Question,
    Round,
    Student,
)
from posenc_lab.classroom.store.retention import (
    PURGE_EVERY_S,
    RETENTION_DAYS,
    RETENTION_SETTING,
    Retention,
    retention_days,
)
from posenc_lab.classroom.store.rounds import Rounds
from posenc_lab.classroom.store.rules import (
    CODE_ALPHABET,
    CODE_LENGTH,
    ID_CHARS,
    NICKNAME_CHARS,
    NOTES_CHARS,
    OPTION_CHARS,
    OPTIONS_MAX,
    OPTIONS_MIN,
    OWN_PREFIX,
    PLAN_STEPS,
    PROMPT_CHARS,
    TIMER_CHOICES_S,
    TIMER_MAX_S,
    TIMER_MIN_S,
    UNIT_CHARS,
    WHY_CHARS,
    _hash_key,
    check_address,
    check_nickname,
    check_question,
    check_step,
    check_timer,
    clean_nickname,
    normalize_code,
    skeleton,
)
from posenc_lab.classroom.store.schema import MIGRATIONS

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "JOIN_FAILURES_ALLOWED",
    "JOIN_FAILURE_WINDOW_S",
    "MIGRATIONS",
    "NETWORK_FREE_FAILURES",
    "NICKNAME_CHARS",
    "SETTING",
    "TTL_HOURS",
    "ClassInfo",
    "ClassRecord",
    "Follow",
    "ItemSummary",
    "ClassPlan",
    "Joined",
    "OWN_PREFIX",
    "Question",
    "JoinRefused",
    "NewClass",
    "NotTeacher",
    "Place",
    "PlanStep",
    "Round",
    "Store",
    "StoreUnavailable",
    "Student",
    "check_address",
    "check_question",
    "check_step",
    "clean_nickname",
    "database_url",
    "normalize_code",
    "open_store",
]


def open_store(url: str | None = None, *, clock: Callable[[], float] = time.time) -> Store:
    """Open (and migrate) the class database at ``url``; None reads the setting.

    Raises StoreUnavailable when it cannot be reached, ValueError for a URL of another kind.
    """
    store = Store(_backend_for(database_url() if url is None else url), clock)
    try:
        store._migrate()
    except BaseException:
        store.close()
        raise
    return store


class Store(Classes, Following, Rounds, Practice, Plans, Retention, Connections):
    """The class database behind one URL; thread-safe (Streamlit runs sessions in threads).

    Connections come from a small pool and are handed to one user at a time; a PostgreSQL
    connection that broke is thrown away, and a transaction that found its pooled connection
    dead (the server restarted) is retried once on a fresh one.
    """
