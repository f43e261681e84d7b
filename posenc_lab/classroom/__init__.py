"""Class mode, in one folder shaped like a lesson's (README, "Layout"):

- ``lesson`` and ``page``: the Class page's record, which picks its screen, and what
  Streamlit runs; the screens ``join``, ``teacher`` (with ``question_form`` and
  ``dashboard``) and ``student``, and what they share, ``views``; ``follow`` (follow me),
  ``plan`` (a class plan), ``questions`` and ``poll`` (a class's questions and their kinds),
  ``sketch_input``, ``session`` (who a browser session is in a class) and ``hooks`` (class
  mode's part of every page, which ``ui`` reaches through the course);
- ``figures``: its Plotly builders;
- the pure part, no Streamlit and no Plotly (``tests/test_layers.py``): ``store`` (the class
  database: classes, join codes, poll rounds, votes and progress; SQLite from the standard
  library, psycopg 3 only for ``postgresql://`` URLs), ``report``, ``tally``, ``sketch``
  and ``address``.

This module re-exports the store's public API and imports nothing else, so importing the
package loads neither Streamlit nor Plotly.
"""

from posenc_lab.classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    JOIN_FAILURE_WINDOW_S,
    JOIN_FAILURES_ALLOWED,
    MIGRATIONS,
    NETWORK_FREE_FAILURES,
    NICKNAME_CHARS,
    OWN_PREFIX,
    SETTING,
    TTL_HOURS,
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
    Store,
    StoreUnavailable,
    Student,
    check_address,
    check_question,
    check_step,
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
    "OWN_PREFIX",
    "SETTING",
    "TTL_HOURS",
    "ClassInfo",
    "ClassPlan",
    "ClassRecord",
    "Follow",
    "ItemSummary",
    "Joined",
    "JoinRefused",
    "NewClass",
    "NotTeacher",
    "Place",
    "PlanStep",
    "Question",
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
