"""Live class mode's database layer: classes, join codes, poll rounds, votes and progress.

Pure Python (SQLite from the standard library; psycopg 3 only for ``postgresql://`` URLs).
The Streamlit pages live in ``ui.classroom``; this package knows nothing about them.
"""

from posenc_lab.classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    JOIN_FAILURE_WINDOW_S,
    JOIN_FAILURES_ALLOWED,
    MIGRATIONS,
    NETWORK_FREE_FAILURES,
    NICKNAME_CHARS,
    SETTING,
    TTL_HOURS,
    ClassInfo,
    ItemSummary,
    JoinRefused,
    NewClass,
    NotTeacher,
    Round,
    Store,
    StoreUnavailable,
    Student,
    clean_nickname,
    database_url,
    normalize_code,
    open_store,
)

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "JOIN_FAILURES_ALLOWED",
    "JOIN_FAILURE_WINDOW_S",
    "NETWORK_FREE_FAILURES",
    "MIGRATIONS",
    "NICKNAME_CHARS",
    "SETTING",
    "TTL_HOURS",
    "ClassInfo",
    "ItemSummary",
    "JoinRefused",
    "NewClass",
    "NotTeacher",
    "Round",
    "Store",
    "StoreUnavailable",
    "Student",
    "clean_nickname",
    "database_url",
    "normalize_code",
    "open_store",
]
