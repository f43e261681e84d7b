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
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from posenc_lab.classroom.address import limit_key

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

SETTING = "POSENC_CLASS_DB"
TTL_HOURS = 12.0
MAX_TTL_HOURS = 168.0  # a week: a class is a lesson or a course block, not a permanent room
NICKNAME_CHARS = 24
#: a student who gives no nickname is "Student 8" (``Store.join``)
ANONYMOUS = "Student"
TITLE_CHARS = 60
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
PLAN_SAVES_PER_ADDRESS = 60
ADDRESS_WINDOW_S = 3600.0
#: days a class's data is kept after it ends (POSENC_CLASS_RETENTION_DAYS), and how often a
#: process deletes what is older
RETENTION_SETTING = "POSENC_CLASS_RETENTION_DAYS"
RETENTION_DAYS = 7.0
PURGE_EVERY_S = 3600.0
#: students a class takes unless its teacher sets another cap (1 to MAX_CLASS_CAP)
CLASS_CAP = 200
MAX_CLASS_CAP = 1000
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
VOTE_CHARS = 64
ATTEMPT_CHARS = 200
ID_CHARS = 64
KEY_PATTERN = re.compile(r"[a-z0-9][a-z0-9_.:-]{0,63}")
#: a teacher-written question's key: this prefix and a random part (``Store.add_question``)
OWN_PREFIX = "own."
#: what a teacher may write: a question, its options, its explanation, its unit
PROMPT_CHARS = 300
OPTION_CHARS = 120
OPTIONS_MIN, OPTIONS_MAX = 2, 6
WHY_CHARS = 600
UNIT_CHARS = 20
#: questions one class may hold (a class is an hour or two; more is a script, not a teacher)
QUESTIONS_PER_CLASS = 60
#: a numeric question's bounds: finite and within this (the vote's input takes them as is)
NUMBER_LIMIT = 1e12
#: a class plan: its steps at most, a step's speaker notes, a saved plan's code and title
PLAN_STEPS = 40
NOTES_CHARS = 400
PLAN_CODE_LENGTH = 8  # longer than a class code: the two are never mistaken
PLAN_TITLE_CHARS = 60
#: a saved plan is kept this long after it was last saved or loaded (it holds no student data)
PLAN_RETENTION_DAYS = 180.0
POOL_IDLE = 4  # idle connections kept per Store; more concurrent users get extra, short-lived ones
CONNECT_TIMEOUT_S = 3
SQLITE_BUSY_MS = 10_000
# an arbitrary constant: the key of the PostgreSQL advisory lock that serializes migrations
MIGRATION_LOCK = 7_281_913_013

MIGRATIONS: list[tuple[int, tuple[str, ...]]] = [
    (
        1,
        (
            """CREATE TABLE classes (
                code TEXT PRIMARY KEY,
                teacher_hash TEXT NOT NULL,
                title TEXT NOT NULL,
                created DOUBLE PRECISION NOT NULL,
                expires DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX classes_expires ON classes (expires)",
            """CREATE TABLE students (
                code TEXT NOT NULL,
                student_id TEXT NOT NULL,
                nickname TEXT NOT NULL,
                joined DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (code, student_id))""",
            # seq orders a class's rounds even when two are opened within one clock tick
            """CREATE TABLE rounds (
                id TEXT PRIMARY KEY,
                code TEXT NOT NULL,
                poll_key TEXT NOT NULL,
                number INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                opened DOUBLE PRECISION NOT NULL,
                closed DOUBLE PRECISION,
                revealed DOUBLE PRECISION)""",
            # the pages poll "the class's current round" every second
            "CREATE UNIQUE INDEX rounds_code_seq ON rounds (code, seq)",
            "CREATE UNIQUE INDEX rounds_code_poll_number ON rounds (code, poll_key, number)",
            # is_right: RIGHT is reserved in PostgreSQL; the primary key also serves count(round)
            """CREATE TABLE answers (
                round_id TEXT NOT NULL,
                student_id TEXT NOT NULL,
                vote TEXT NOT NULL,
                is_right INTEGER NOT NULL,
                at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (round_id, student_id))""",
            """CREATE TABLE attempts (
                code TEXT NOT NULL,
                student_id TEXT NOT NULL,
                exercise_key TEXT NOT NULL,
                answer TEXT NOT NULL,
                is_right INTEGER NOT NULL,
                at DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX attempts_code_key ON attempts (code, exercise_key)",
            "CREATE INDEX attempts_code_student ON attempts (code, student_id)",
            "CREATE TABLE join_failures (client TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX join_failures_client_at ON join_failures (client, at)",
            "CREATE INDEX join_failures_at ON join_failures (at)",
        ),
    ),
    (
        2,
        (
            # the teacher's cap on students, closing the class to new joins, and how many joins
            # were refused (locked, full, or too many from one address), shown to the teacher
            f"ALTER TABLE classes ADD COLUMN cap INTEGER NOT NULL DEFAULT {CLASS_CAP}",
            "ALTER TABLE classes ADD COLUMN locked INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE classes ADD COLUMN refused INTEGER NOT NULL DEFAULT 0",
            # new students per network address, kept only for the rate window
            "CREATE TABLE network_joins (network TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX network_joins_network_at ON network_joins (network, at)",
            "CREATE INDEX network_joins_at ON network_joins (at)",
        ),
    ),
    (
        3,
        (
            # follow me: the address the teacher last sent the class to (a lesson's view with
            # its settings, as its URL holds them), a number that grows with each send, and
            # whether the class is held there
            "ALTER TABLE classes ADD COLUMN follow_address TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE classes ADD COLUMN follow_seq INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE classes ADD COLUMN follow_held INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE classes ADD COLUMN follow_at DOUBLE PRECISION",
            # the roster: where each student's page is, when it last checked in
            "ALTER TABLE students ADD COLUMN place TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE students ADD COLUMN seen DOUBLE PRECISION",
        ),
    ),
    (
        4,
        (
            # a raised hand ("I'm stuck"): when it went up, NULL when down
            "ALTER TABLE students ADD COLUMN hand DOUBLE PRECISION",
        ),
    ),
    (
        5,
        (
            # questions the teacher writes for a class: plain text; options as a JSON list
            # ("[]": a number is asked), the answer (an option's index, or the number)
            """CREATE TABLE questions (
                key TEXT PRIMARY KEY,
                code TEXT NOT NULL,
                seq INTEGER NOT NULL,
                prompt TEXT NOT NULL,
                options TEXT NOT NULL,
                answer DOUBLE PRECISION NOT NULL,
                tolerance DOUBLE PRECISION NOT NULL,
                low DOUBLE PRECISION NOT NULL,
                high DOUBLE PRECISION NOT NULL,
                integer_only INTEGER NOT NULL,
                unit TEXT NOT NULL,
                why TEXT NOT NULL,
                view TEXT NOT NULL,
                created DOUBLE PRECISION NOT NULL)""",
            "CREATE UNIQUE INDEX questions_code_seq ON questions (code, seq)",
            # the class's plan (a JSON list of steps) and the step it is on (-1: not started)
            "ALTER TABLE classes ADD COLUMN plan TEXT NOT NULL DEFAULT '[]'",
            "ALTER TABLE classes ADD COLUMN plan_at INTEGER NOT NULL DEFAULT -1",
            # plans saved for reuse: steps as JSON, a teacher's own questions written out whole
            """CREATE TABLE plans (
                code TEXT PRIMARY KEY,
                title TEXT NOT NULL,
                steps TEXT NOT NULL,
                saved DOUBLE PRECISION NOT NULL,
                used DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX plans_used ON plans (used)",
        ),
    ),
    (
        6,
        (
            # what each network address stored (a class started, a plan saved), kept for the
            # rate window only
            "CREATE TABLE address_uses (network TEXT NOT NULL, action TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX address_uses_network_action_at ON address_uses (network, action, at)",
            "CREATE INDEX address_uses_at ON address_uses (at)",
            # a saved plan's fingerprint: the same plan saved again is the one already kept
            "ALTER TABLE plans ADD COLUMN digest TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX plans_digest ON plans (digest)",
        ),
    ),
]


# ------------------------------------------------------------------ errors and records


class StoreUnavailable(Exception):
    """The class database cannot be reached; ``str()`` is a sentence for people.

    The store raises ``StoreUnavailable.of(kind, where, reason)``, which writes the sentence
    and keeps its parts (``kind``, ``where``, ``reason``); a page that has no store at all
    may raise ``StoreUnavailable("its own sentence")``.
    """

    def __init__(self, message: str, *, kind: str = "", where: str = "", reason: str = ""):
        super().__init__(message)
        self.kind, self.where, self.reason = kind, where, reason or message

    @classmethod
    def of(cls, kind: str, where: str, reason: str) -> StoreUnavailable:
        label = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}.get(kind, kind)
        message = f"The class database ({label} at {where}) cannot be reached: {reason}."
        return cls(message, kind=kind, where=where, reason=reason)


class JoinRefused(Exception):
    """A join that cannot go ahead, or one more class or saved plan from an address that
    stored many (``Store.create_class``, ``Store.save_plan``): ``reason`` for people,
    ``retry_after`` in seconds or None, and ``delay``: the seconds the page waits before it
    answers (a wrong code from an address that sent many)."""

    def __init__(self, reason: str, retry_after: float | None = None, delay: float = 0.0):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.delay = delay


class NotTeacher(PermissionError):
    """A teacher-only action without the class's teacher key."""


@dataclass(frozen=True)
class NewClass:
    code: str
    teacher_key: str
    expires: float


@dataclass(frozen=True)
class ClassInfo:
    code: str
    title: str
    created: float
    expires: float
    cap: int = CLASS_CAP
    locked: bool = False
    refused: int = 0  # joins refused: class locked, full, or too many from one address


@dataclass(frozen=True)
class Student:
    student_id: str
    nickname: str


@dataclass(frozen=True)
class Follow:
    """Where the teacher sent the class (``Store.send_class``): ``seq`` grows with every
    send (0 before the first, when ``address`` is ""); ``held``: the teacher holds the
    class there (a student who steps away is brought back)."""

    seq: int
    address: str
    held: bool
    at: float | None


@dataclass(frozen=True)
class Place:
    """A student on the teacher's roster: where their page is and when it last checked in
    (None before it first did), when they raised their hand (None: down), and the exercise
    keys they solved in the class."""

    student_id: str
    nickname: str
    place: str
    seen: float | None
    hand: float | None = None
    solved: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Round:
    id: str
    code: str
    poll_key: str
    number: int
    opened: float
    closed: float | None
    revealed: float | None

    @property
    def is_open(self) -> bool:
        return self.closed is None


@dataclass(frozen=True)
class Question:
    """A question the teacher wrote (``Store.add_question``): multiple choice when
    ``options`` holds two or more (``answer`` is the right one's index), else a number
    between ``low`` and ``high`` (right within ``tolerance``; ``integer``: whole numbers).
    Every text is plain text, cleaned and limited; ``view`` is an app address or ""."""

    prompt: str
    options: tuple[str, ...] = ()
    answer: float = 0.0
    tolerance: float = 0.0
    low: float = 0.0
    high: float = 1.0
    integer: bool = False
    unit: str = ""
    why: str = ""
    view: str = ""
    key: str = ""  # given by the store


@dataclass(frozen=True)
class PlanStep:
    """One step of a class plan: ``kind`` "view" (``target`` is an app address, which the
    step sends the class to) or "question" (``target`` is a question's key, which the step
    opens); ``notes`` are the teacher's, shown on the teacher's own screen only."""

    kind: str
    target: str
    notes: str = ""


@dataclass(frozen=True)
class ClassPlan:
    steps: tuple[PlanStep, ...] = ()
    at: int = -1  # the step the class is on; -1 before the first


@dataclass(frozen=True)
class Joined:
    student_id: str
    nickname: str
    joined: float


@dataclass(frozen=True)
class ClassRecord:
    """A class as its exports read it (``Store.class_record``).

    ``marks[(student_id, exercise_key)]``: True once solved, False when only tried;
    ``rounds`` in the order they were opened; ``votes[(round_id, student_id)]``: (vote, right).
    """

    code: str
    title: str
    students: tuple[Joined, ...]
    marks: dict[tuple[str, str], bool]
    rounds: tuple[Round, ...]
    votes: dict[tuple[str, str], tuple[str, bool]]


@dataclass(frozen=True)
class ItemSummary:
    key: str
    kind: str  # "exercise" | "poll"
    number: int  # the poll's round number; 0 for an exercise
    answered: int
    right: int
    wrong: tuple[tuple[str, int], ...]


# ------------------------------------------------------------------ settings and text


def _default_sqlite_path(environ: Mapping[str, str]) -> Path:
    data_home = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "posenc-lab" / "classes.sqlite3"


def database_url(environ: Mapping[str, str] = os.environ) -> str:
    """The class database to use: ``$POSENC_CLASS_DB``, else the default SQLite file.

    The default is ``$XDG_DATA_HOME/posenc-lab/classes.sqlite3`` (``~/.local/share`` when
    XDG_DATA_HOME is unset); its folder is created here, so a first run needs no setup.
    """
    if not isinstance(environ, Mapping):
        raise ValueError(f"environ must be a mapping such as os.environ, got {type(environ).__name__}")
    value = environ.get(SETTING) or ""
    if not isinstance(value, str):
        raise ValueError(f"environ[{SETTING!r}] must be a string, got {type(value).__name__}")
    if value.strip():
        return value.strip()
    path = _default_sqlite_path(environ)
    # an uncreatable folder is reported by open_store, with the path, as StoreUnavailable
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
    return str(path)


def retention_days(environ: Mapping[str, str] = os.environ) -> float:
    """Days a class's data is kept after the class ends: ``$POSENC_CLASS_RETENTION_DAYS``
    (a number from 0; 0 deletes it within the hour after it ends), else RETENTION_DAYS."""
    text = (environ.get(RETENTION_SETTING) or "").strip()
    if not text:
        return RETENTION_DAYS
    try:
        days = float(text)
    except ValueError:
        days = -1.0
    if not math.isfinite(days) or days < 0:
        raise ValueError(f"{RETENTION_SETTING} must be a number of days from 0, got {text!r:.40}")
    return days


def _require_str(value, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {type(value).__name__}")
    return value


def normalize_code(text: str) -> str:
    """A join code as typed, made comparable: stripped, upper case, no spaces or dashes.

    >>> normalize_code(" k7q-m3p ")
    'K7QM3P'
    """
    _require_str(text, "code")
    return re.sub(r"[\s\-\u2010-\u2015\u2212]+", "", text).upper()


def _clean_text(text: str, limit: int) -> str:
    text = unicodedata.normalize("NFC", text)
    # line and paragraph breaks become spaces before the other invisible characters go
    text = "".join(" " if ch.isspace() else ch for ch in text)
    text = "".join(ch for ch in text if not unicodedata.category(ch).startswith("C"))
    return " ".join(text.split())[:limit].strip()


#: letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern, the
#: Mongolian vowel separator, ...): a name made of them looks empty, or like someone else's
BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5\u034f\ufffc")
#: combining marks kept on one letter: enough for any script's accents, not for a tower
MARKS_PER_LETTER = 2
RESERVED_NAMES = ("teacher",)
#: digits read as letters ("T3acher", "7eacher"): Unicode's confusables map 0 and 1 (to O and
#: l) and no other digit, so a name is also checked against the teacher's with these as letters
_DIGITS_AS_LETTERS = str.maketrans("0123456789", "olzeasbtbg")


def _bare(text: str) -> str:
    # the left-to-right marks the data keeps around right-to-left letters are not part of them
    return text.replace("\u200e", "").replace("\u200f", "")


@functools.cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusable mapping (UTS #39, confusables.txt): each character that looks like
    another to its prototype ("Ꭲ" -> "T", "т" -> "ᴛ", "m" -> "rn").

    confusable_homoglyphs ships the file's pairs both ways, without their direction. Each group
    is a prototype and the characters mapped to it (the mapping is idempotent: a prototype maps
    to nothing), so a character paired with a string of several, or with one that is paired with
    others, maps to it; in a group of two characters the one the file lists first maps to the
    other (each line is written source first, and the data keeps the file's order)."""
    from importlib.resources import files

    data = json.loads(files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8"))
    linked: dict[str, set[str]] = {}
    order: dict[str, int] = {}
    for key, entries in data.items():
        order.setdefault(_bare(key), len(order))
        for entry in entries:
            linked.setdefault(_bare(key), set()).add(_bare(entry["c"]))
            linked.setdefault(_bare(entry["c"]), set()).add(_bare(key))
    table = {}
    for text, others in linked.items():
        if len(text) != 1 or len(others) != 1:
            continue  # a prototype: several characters, or paired with several
        (other,) = others
        if len(other) > 1 or len(linked[other]) > 1 or order[text] < order[other]:
            table[text] = other
    return table


def skeleton(text: str) -> str:
    """The skeleton of ``text`` (UTS #39): decomposed (NFD), each character replaced by its
    confusable prototype, decomposed again. Strings with one skeleton look alike.

    >>> skeleton("\u13a2\u13ac\u13aa\u13df\u13bb\u13ac\u13a1")  # Cherokee
    'TEACHER'
    """
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in decomposed))


@functools.cache
def _small_capitals() -> dict[int, str]:
    """Small capitals as their letter ("ᴛ" -> "T"): UTS #39 keeps them apart from Latin letters
    (the prototype of "т" is "ᴛ"), but in a name they read as the letter."""
    letter = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])")
    table = {}
    for cp in range(0x10000):  # every small capital is in the Basic Multilingual Plane
        found = letter.fullmatch(unicodedata.name(chr(cp), ""))
        if found:
            table[cp] = found[1]
    return table


@functools.lru_cache(maxsize=8192)
def _name_keys(name: str) -> frozenset[str]:
    """Keys that two names which look alike share: the skeleton of the name as typed and in
    lower case (UTS #39 reads "ТЕАСНЕR" as "TEACHER" only in capitals, and a capital I as an
    l), and of its compatibility form (fullwidth, bold, superscript letters as plain ones);
    small capitals as their letters, case folded, accents and anything not a letter or digit
    dropped."""
    keys = set()
    # compatibility forms read as plain letters too, beside (not instead of) the name as typed:
    # the lunate sigma "Ϲ" looks like a C, its compatibility form "Σ" does not
    for base in {name, unicodedata.normalize("NFKD", name)}:
        for form in (base, base.casefold()):
            folded = skeleton(form).translate(_small_capitals()).casefold()
            keys.add("".join(ch for ch in folded if ch.isalnum()) or form.casefold())
    return frozenset(keys)


def _reads_as_reserved(name: str) -> bool:
    """Whether ``name`` reads as one of RESERVED_NAMES, in any script, case or spacing, with
    digits for letters, alone or within a longer name."""
    keys = _name_keys(name)
    keys |= {key.translate(_DIGITS_AS_LETTERS) for key in keys}
    return any(word in key for reserved in RESERVED_NAMES for word in _name_keys(reserved) for key in keys)


def clean_nickname(text: str) -> str:
    """Plain text for a nickname: control and format characters (bidi overrides, zero-width
    joiners) and blank-looking letters removed, at most MARKS_PER_LETTER accents on a letter,
    whitespace collapsed to single spaces, cut to NICKNAME_CHARS.

    Markdown and HTML are left as typed: the page shows the text escaped. "" is allowed
    (an anonymous student); ``check_nickname`` refuses the names a class must not have.

    >>> clean_nickname("  Ada\\n\\u202eLovelace  ")
    'Ada Lovelace'
    """
    # decomposed, so that an accent a letter carries counts as one of its marks
    text = unicodedata.normalize("NFD", _require_str(text, "nickname"))
    kept, marks = [], 0
    for ch in text:
        if ch in BLANK_LOOKING:
            continue
        marks = marks + 1 if unicodedata.combining(ch) else 0
        if marks <= MARKS_PER_LETTER:
            kept.append(ch)
    return _clean_text("".join(kept), NICKNAME_CHARS)


def check_nickname(typed: str) -> str:
    """The nickname to store for ``typed``, or ValueError (a sentence for the student) for a
    name with nothing visible in it or one that passes for the teacher's."""
    name = clean_nickname(typed)
    if typed.strip() and not any(ch.isalnum() or unicodedata.category(ch)[0] in "PS" for ch in name):
        raise ValueError("A nickname needs a visible letter or digit. Leave it empty to stay anonymous.")
    if _reads_as_reserved(name):
        raise ValueError("Pick another nickname: names that read as “Teacher” are kept for the teacher.")
    return name


#: the longest address the teacher can send (a lesson's path and every setting of a view)
ADDRESS_CHARS = 600
#: a page's path in the app, then its query: names of letters, digits and underscores, values
#: of URL-safe characters (percent-escapes included)
ADDRESS = re.compile(
    r"[a-z0-9][a-z0-9_-]{0,63}(\?[A-Za-z0-9_]{1,40}=[A-Za-z0-9_.~%+-]{0,200}(&[A-Za-z0-9_]{1,40}=[A-Za-z0-9_.~%+-]{0,200})*)?"
)


def check_address(value, name: str = "address") -> str:
    """An app address as the teacher sends it (``rope?view=rotation&step=1``): ValueError
    for anything else (another host, a scheme, a fragment, spaces, quotes, markup)."""
    _require_str(value, name)
    if len(value) > ADDRESS_CHARS or not ADDRESS.fullmatch(value):
        raise ValueError(
            f"{name} must be an app path with an optional query of name=value pairs, at most "
            f"{ADDRESS_CHARS} characters, got {value!r:.60}"
        )
    return value


def _finite(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r:.40}")
    if abs(value) > NUMBER_LIMIT:
        raise ValueError(f"{name} must be between -{NUMBER_LIMIT:g} and {NUMBER_LIMIT:g}, got {value!r:.40}")
    return float(value)


def check_question(question: Question) -> Question:
    """A teacher's question cleaned (plain text, spaces collapsed) and checked: ValueError
    naming the field and what it allows. Markup stays as typed: pages show it as text."""
    if not isinstance(question, Question):
        raise ValueError(f"question must be a Question, got {type(question).__name__}")
    prompt = _check_text(question.prompt, "prompt", PROMPT_CHARS)
    if isinstance(question.options, str) or not isinstance(question.options, tuple | list):
        raise ValueError("options must be a list of texts (none for a question that asks for a number)")
    options = tuple(_check_text(o, "each option", OPTION_CHARS) for o in question.options)
    why = _clean_text(_require_str(question.why, "why"), WHY_CHARS + 1)
    if len(why) > WHY_CHARS:
        raise ValueError(f"why must be at most {WHY_CHARS} characters, got {len(why)}")
    view = "" if question.view == "" else check_address(question.view, "view")
    answer = _finite(question.answer, "answer")
    if options:
        if not OPTIONS_MIN <= len(options) <= OPTIONS_MAX:
            raise ValueError(f"options must be {OPTIONS_MIN} to {OPTIONS_MAX}, got {len(options)}")
        if len(set(options)) != len(options):
            raise ValueError("options must differ from one another")
        if answer != int(answer) or not 0 <= answer < len(options):
            raise ValueError(f"answer must be an option's index, 0 to {len(options) - 1}, got {answer:g}")
        return Question(prompt, options, float(int(answer)), why=why, view=view)
    low, high = _finite(question.low, "low"), _finite(question.high, "high")
    tolerance = _finite(question.tolerance, "tolerance")
    if question.integer not in (True, False):
        raise ValueError(f"integer must be True or False, got {question.integer!r:.40}")
    integer = bool(question.integer)
    if not low < high:
        raise ValueError(f"low must be below high, got {low:g} and {high:g}")
    if not low <= answer <= high:
        raise ValueError(f"answer must be between low and high ({low:g} to {high:g}), got {answer:g}")
    if tolerance < 0:
        raise ValueError(f"tolerance must be 0 or more, got {tolerance:g}")
    if integer and not (low == int(low) and high == int(high) and answer == int(answer)):
        raise ValueError("a question of whole numbers needs whole low, high and answer")
    unit = _clean_text(_require_str(question.unit, "unit"), UNIT_CHARS + 1)
    if len(unit) > UNIT_CHARS:
        raise ValueError(f"unit must be at most {UNIT_CHARS} characters, got {len(unit)}")
    return Question(prompt, (), answer, tolerance, low, high, integer, unit, why, view)


def check_step(step: PlanStep) -> PlanStep:
    """A plan step checked (ValueError naming what is wrong), its notes cleaned."""
    if not isinstance(step, PlanStep):
        raise ValueError(f"step must be a PlanStep, got {type(step).__name__}")
    if step.kind == "view":
        target = check_address(step.target, "a view step's address")
    elif step.kind == "question":
        target = _check_key(step.target, "a question step's key")
    else:
        raise ValueError(f"a step's kind must be 'view' or 'question', got {step.kind!r:.40}")
    notes = _clean_text(_require_str(step.notes, "notes"), NOTES_CHARS + 1)
    if len(notes) > NOTES_CHARS:
        raise ValueError(f"notes must be at most {NOTES_CHARS} characters, got {len(notes)}")
    return PlanStep(step.kind, target, notes)


def _check_steps(steps) -> list[PlanStep]:
    """A plan's steps checked (``check_step``), at most PLAN_STEPS of them."""
    if isinstance(steps, str | PlanStep) or not isinstance(steps, list | tuple):
        raise ValueError("steps must be a list of PlanStep")
    steps = [check_step(step) for step in steps]
    if len(steps) > PLAN_STEPS:
        raise ValueError(f"a plan has at most {PLAN_STEPS} steps, got {len(steps)}")
    return steps


def _check_key(value, name: str) -> str:
    _require_str(value, name)
    if not KEY_PATTERN.fullmatch(value):
        raise ValueError(
            f"{name} must be 1 to 64 characters of a-z, 0-9 and _ . : - starting with a letter or digit, "
            f"got {value!r:.80}"
        )
    return value


def _check_id(value, name: str) -> str:
    _require_str(value, name)
    if not value or len(value) > ID_CHARS or not value.isprintable() or value != value.strip():
        raise ValueError(f"{name} must be 1 to {ID_CHARS} printable characters, got {value!r:.80}")
    return value


def _check_right(value) -> bool:
    if value not in (True, False):
        raise ValueError(f"right must be True or False, got {value!r:.40}")
    return bool(value)


def _check_text(value, name: str, limit: int) -> str:
    _require_str(value, name)
    cleaned = _clean_text(value, limit + 1)
    if not cleaned or len(cleaned) > limit:
        raise ValueError(f"{name} must be 1 to {limit} characters, got {len(value)}")
    return cleaned


def _new_id(nbytes: int) -> str:
    """A random URL-safe id that starts with a letter or digit (never "-": a CSV formula guard
    would prefix it in the gradebook, and a leading dash reads as an option in a shell)."""
    while True:
        token = secrets.token_urlsafe(nbytes)
        if token[0].isalnum():
            return token


def _hash_key(teacher_key: str) -> str:
    return hashlib.sha256(teacher_key.encode("utf-8", "surrogatepass")).hexdigest()


def _shown_code(code: str) -> str:
    """A code as it may appear in a message: short and printable whatever was typed."""
    shown = _clean_text(code, 16)
    return shown if len(shown) <= 12 else shown[:12] + "..."


def _float_or_none(value) -> float | None:
    return None if value is None else float(value)


def wrong_code_delay(earlier: int) -> float:
    """Seconds before a wrong code is answered, after ``earlier`` wrong codes from its address
    in the window: none for a class's typos, then a quarter second more for each, up to 30 s."""
    extra = earlier + 1 - NETWORK_FREE_FAILURES
    return 0.0 if extra <= 0 else min(WRONG_CODE_DELAY_MAX_S, WRONG_CODE_DELAY_STEP_S * extra)


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    line = text[0].strip().rstrip(".") if text else type(error).__name__
    return line[:200]


# ------------------------------------------------------------------ connections


def _postgres_where(url: str) -> str:
    """The URL without its password (in the netloc or as a query parameter)."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        netloc = userinfo.split(":", 1)[0] + "@" + host
    query = urlencode(
        [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if "password" not in k.lower()], safe="/"
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


class _Tx:
    """One transaction on one connection: ``?`` placeholders, fetch helpers."""

    def __init__(self, conn, postgres: bool):
        self._conn = conn
        self._postgres = postgres

    def _execute(self, sql: str, params: tuple):
        if self._postgres:
            sql = sql.replace("?", "%s")  # the one place queries change dialect
        return self._conn.execute(sql, params)

    def run(self, sql: str, *params) -> int:
        return self._execute(sql, params).rowcount

    def all(self, sql: str, *params) -> list[tuple]:
        return list(self._execute(sql, params).fetchall())

    def one(self, sql: str, *params) -> tuple | None:
        return self._execute(sql, params).fetchone()

    def value(self, sql: str, *params):
        row = self.one(sql, *params)
        return None if row is None else row[0]


class _Backend:
    kind = ""

    def connect(self): ...
    def begin(self, conn, write: bool) -> None: ...
    def is_unavailable(self, error: BaseException) -> bool: ...
    def is_broken(self, conn) -> bool: ...
    def lock(self, tx: _Tx, number: int) -> None: ...


DELETED_FILE = (
    "its file was deleted while the app was running, so what was saved in it is lost unless a backup has it; "
    "restore the file, or restart the app to begin with an empty one"
)


class _SQLiteConnection(sqlite3.Connection):
    """A connection that remembers which file (device, inode) it opened."""

    identity: tuple[int, int] | None = None


class _SQLite(_Backend):
    kind = "sqlite"

    def __init__(self, path: str):
        self.path = path
        self.where = path
        self.identity: tuple[int, int] | None = None  # (device, inode) of the file once opened
        if sqlite3.sqlite_version_info < (3, 24):  # INSERT ... ON CONFLICT DO UPDATE
            raise StoreUnavailable.of(self.kind, path, f"SQLite {sqlite3.sqlite_version} is too old (3.24 needed)")

    def _identity(self) -> tuple[int, int] | None:
        try:
            found = os.stat(self.path)
        except OSError:
            return None
        return (found.st_dev, found.st_ino)

    def connect(self):
        # a file this store made or opened that is gone now was deleted under the running app:
        # SQLite would quietly start a new, empty one; say so instead
        if self.identity is not None and self._identity() is None:
            raise sqlite3.OperationalError(DELETED_FILE)
        # autocommit (isolation_level=None) with explicit BEGIN IMMEDIATE for writes: the write
        # lock is taken up front, so two writers never deadlock upgrading a read lock
        conn = sqlite3.connect(
            self.path,
            timeout=SQLITE_BUSY_MS / 1000,
            isolation_level=None,
            check_same_thread=False,
            factory=_SQLiteConnection,
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_MS}")
            mode = self._set_wal(conn)
            if str(mode).lower() != "wal":
                raise sqlite3.OperationalError(f"the file cannot use WAL mode (journal_mode is {mode})")
            conn.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            conn.close()
            raise
        conn.identity = self._identity()
        if self.identity is None:
            self.identity = conn.identity
        return conn

    @staticmethod
    def _set_wal(conn) -> str:
        # switching a new file to WAL while another process does the same can report "database
        # is locked" at once, without waiting on busy_timeout: retry for as long as it would wait
        deadline = time.monotonic() + SQLITE_BUSY_MS / 1000
        while True:
            try:
                return conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01 + 0.04 * secrets.randbelow(100) / 100)

    def begin(self, conn, write: bool) -> None:
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    def is_unavailable(self, error: BaseException) -> bool:
        # IntegrityError and ProgrammingError are bugs here, not an unreachable database
        return isinstance(error, sqlite3.OperationalError) or type(error) is sqlite3.DatabaseError

    def is_broken(self, conn) -> bool:
        # checked as a pooled connection is handed out: one whose file was deleted or replaced
        # would write where nobody will read (checked again by connect)
        return conn.identity is None or conn.identity != self._identity()

    def lock(self, tx: _Tx, number: int) -> None:
        pass  # BEGIN IMMEDIATE already holds the only write lock


class _Postgres(_Backend):
    kind = "postgresql"

    def __init__(self, url: str):
        self.url = url
        self.where = _postgres_where(url)
        try:
            import psycopg
        except ImportError as error:
            raise StoreUnavailable.of(
                self.kind, self.where, 'psycopg is not installed (pip install "posenc-lab[postgresql]")'
            ) from error
        self.psycopg = psycopg

    def connect(self):
        return self.psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S, application_name="posenc-lab")

    def begin(self, conn, write: bool) -> None:
        pass  # psycopg opens a transaction with the first statement

    def is_unavailable(self, error: BaseException) -> bool:
        return isinstance(error, self.psycopg.OperationalError | self.psycopg.InterfaceError)

    def is_broken(self, conn) -> bool:
        return conn.closed or conn.broken

    def lock(self, tx: _Tx, number: int) -> None:
        """Serialize the transactions that take lock ``number``, until each ends."""
        tx.one("SELECT pg_advisory_xact_lock(?)", number)


def _backend_for(url: str) -> _Backend:
    _require_str(url, "url")
    text = url.strip()
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme in ("postgresql", "postgres"):
        return _Postgres(text)
    if scheme == "sqlite":
        path = text[len("sqlite://") :]
        if not path.startswith("/"):
            raise ValueError(f"url: a sqlite URL must name an absolute path (sqlite:///abs/path), got {url!r}")
        # sqlite:////abs/path (SQLAlchemy's spelling of an absolute path) names the same file
        return _SQLite("/" + path.lstrip("/"))
    if scheme:
        raise ValueError(
            f"url must be a SQLite file path, sqlite:///abs/path or a postgresql:// URL, got a {scheme}:// URL"
        )
    if not text:
        raise ValueError(f"url must be a SQLite file path or a postgresql:// URL (setting {SETTING}), got ''")
    return _SQLite(str(Path(text).expanduser().absolute()))


def sqlite_file(url: str) -> str | None:
    """The file a SQLite database URL names (absolute), or None for PostgreSQL."""
    backend = _backend_for(url)
    return backend.path if isinstance(backend, _SQLite) else None


# ------------------------------------------------------------------ the store


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


class Store:
    """The class database behind one URL; thread-safe (Streamlit runs sessions in threads).

    Connections come from a small pool and are handed to one user at a time; a PostgreSQL
    connection that broke is thrown away, and a transaction that found its pooled connection
    dead (the server restarted) is retried once on a fresh one.
    """

    def __init__(self, backend: _Backend, clock: Callable[[], float] = time.time):
        self._backend = backend
        self.kind: str = backend.kind
        self.where: str = backend.where
        self._clock = clock
        self._idle: list = []
        self._lock = threading.Lock()
        self._closed = False
        self._purged_at: float | None = None  # clock time of this store's last scheduled purge

    def __repr__(self) -> str:
        return f"<Store {self.kind} at {self.where}>"

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -------------------------------------------------------------- plumbing

    def _unavailable(self, reason: str) -> StoreUnavailable:
        return StoreUnavailable.of(self.kind, self.where, reason)

    def _checkout(self):
        with self._lock:
            if self._closed:
                raise self._unavailable("this connection to it was closed")
            while self._idle:
                conn = self._idle.pop()
                if not self._backend.is_broken(conn):
                    return conn, True
                with contextlib.suppress(Exception):
                    conn.close()
        try:
            return self._backend.connect(), False
        except Exception as error:
            if self._backend.is_unavailable(error):
                raise self._unavailable(_first_line(error)) from error
            raise

    def _checkin(self, conn, broken: bool) -> None:
        with self._lock:
            if not broken and not self._closed and len(self._idle) < POOL_IDLE:
                self._idle.append(conn)
                return
        with contextlib.suppress(Exception):
            conn.close()

    @contextlib.contextmanager
    def _tx(self, write: bool = False) -> Iterator[_Tx]:
        """A transaction; retried once on a fresh connection if a pooled one was dead."""
        for attempt in range(2):
            conn, reused = self._checkout()
            started = False  # whether the caller's code ran: after that a retry could repeat it
            try:
                self._backend.begin(conn, write)
                tx = _Tx(conn, self._backend.kind == "postgresql")
                if reused and self._backend.kind == "postgresql":
                    tx.one("SELECT 1")  # a dead pooled connection fails here, before any work
                started = True
                yield tx
                conn.commit()
            except BaseException as error:
                with contextlib.suppress(Exception):
                    conn.rollback()
                self._checkin(conn, broken=self._backend.is_unavailable(error) or self._backend.is_broken(conn))
                if self._backend.is_unavailable(error):
                    if reused and not started and attempt == 0:
                        continue
                    raise self._unavailable(_first_line(error)) from error
                raise
            else:
                self._checkin(conn, broken=False)
                return

    def _migrate(self) -> None:
        with self._tx(write=True) as tx:
            self._backend.lock(tx, MIGRATION_LOCK)
            tx.run(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                "version INTEGER PRIMARY KEY, applied DOUBLE PRECISION NOT NULL)"
            )
            done = {row[0] for row in tx.all("SELECT version FROM schema_migrations")}
            for version, statements in MIGRATIONS:
                if version in done:
                    continue
                for statement in statements:
                    tx.run(statement)
                tx.run("INSERT INTO schema_migrations (version, applied) VALUES (?, ?)", version, self._clock())

    def schema_versions(self) -> list[int]:
        """The migrations applied to this database, in order."""
        with self._tx() as tx:
            return [row[0] for row in tx.all("SELECT version FROM schema_migrations ORDER BY version")]

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

    @staticmethod
    def _round(row) -> Round:
        rid, code, poll_key, number, opened, closed, revealed = row
        return Round(rid, code, poll_key, int(number), float(opened), closed, revealed)

    _ROUND_COLUMNS = "id, code, poll_key, number, opened, closed, revealed"

    # -------------------------------------------------------------- classes

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

    # -------------------------------------------------------------- students

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
        # counted by address as the limits count one (an IPv6 address by its /64): the client
        # is "address|session", the network an address
        address, bar, session = _require_str(client, "client")[:200].partition("|")
        client = limit_key(address) + bar + session
        network = limit_key(_require_str(network, "network")[:200])
        if student_id is not None:
            _check_id(student_id, "student_id")
        refusal: JoinRefused | None = None
        with self._tx(write=True) as tx:
            now = self._clock()
            window_start = now - JOIN_FAILURE_WINDOW_S
            tx.run("DELETE FROM join_failures WHERE at <= ?", window_start)
            tx.run("DELETE FROM network_joins WHERE at <= ?", window_start)
            failures = [row[0] for row in tx.all("SELECT at FROM join_failures WHERE client = ? ORDER BY at", client)]
            if len(failures) >= JOIN_FAILURES_ALLOWED:
                # this session's own wrong codes: refused until enough age out to leave one more try
                oldest = failures[len(failures) - JOIN_FAILURES_ALLOWED]
                wait = max(1, math.ceil(oldest + JOIN_FAILURE_WINDOW_S - now))
                raise JoinRefused(f"Too many wrong codes from this device. Try again in {wait} s.", retry_after=wait)
            row = tx.one("SELECT expires FROM classes WHERE code = ?", normalized)
            if row is None:
                buckets = [client] + (["net:" + network] if network else [])
                earlier = tx.value("SELECT COUNT(*) FROM join_failures WHERE client = ?", buckets[-1]) if network else 0
                for bucket in buckets:
                    tx.run("INSERT INTO join_failures (client, at) VALUES (?, ?)", bucket, now)
                # committed below before refusing, so the failure counts
                refusal = JoinRefused(
                    f"No class has the code {_shown_code(normalized)}. Check it on the teacher's screen.",
                    delay=wrong_code_delay(int(earlier or 0)),
                )
            elif now >= float(row[0]):
                refusal = JoinRefused(f"Class {normalized} has ended.")
            else:
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

    # -------------------------------------------------------------- follow me and the roster

    def send_class(self, code: str, teacher_key: str, address: str) -> int:
        """Send every student of the class to ``address`` (``check_address``); returns the
        send's number (``Follow.seq``), which each student's page follows once."""
        address = check_address(address)
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            tx.run(
                "UPDATE classes SET follow_address = ?, follow_seq = follow_seq + 1, follow_at = ? WHERE code = ?",
                address,
                self._clock(),
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
            row = tx.one("SELECT follow_seq, follow_address, follow_held, follow_at FROM classes WHERE code = ?", code)
        if row is None:
            return None
        return Follow(int(row[0]), row[1], bool(row[2]), None if row[3] is None else float(row[3]))

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
        """Every student of the class with where their page is, their hand and what they
        solved, in the order they joined."""
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
        return [
            Place(sid, nick, place, _float_or_none(seen), _float_or_none(hand), frozenset(solved.get(sid, ())))
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

    # -------------------------------------------------------------- polls

    # -------------------------------------------------------------- the class plan

    def _plan_of(self, tx: _Tx, code: str) -> ClassPlan:
        row = tx.one("SELECT plan, plan_at FROM classes WHERE code = ?", code)
        if row is None:
            return ClassPlan()
        steps = tuple(PlanStep(s["kind"], s["target"], s.get("notes", "")) for s in json.loads(row[0]))
        return ClassPlan(steps, min(int(row[1]), len(steps) - 1))

    def class_plan(self, code: str) -> ClassPlan:
        """The class's plan and the step it is on (an empty plan for no such class)."""
        code = normalize_code(code)
        with self._tx() as tx:
            return self._plan_of(tx, code)

    def set_plan(self, code: str, teacher_key: str, steps) -> ClassPlan:
        """Replace the class's plan with ``steps`` (``check_step`` each; at most PLAN_STEPS).
        A question step names a lesson's question or one of the class's own; the class stays
        on the step it was on while there is one."""
        steps = _check_steps(steps)
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            return self._write_plan(tx, code, steps)

    def _write_plan(self, tx: _Tx, code: str, steps: list[PlanStep]) -> ClassPlan:
        """Make checked ``steps`` the class's plan; ValueError for a step that opens a
        question the class does not have."""
        own = {row[0] for row in tx.all("SELECT key FROM questions WHERE code = ?", code)}
        for step in steps:
            if step.kind == "question" and step.target.startswith(OWN_PREFIX) and step.target not in own:
                raise ValueError(f"a question step names a question this class does not have: {step.target}")
        tx.run(
            "UPDATE classes SET plan = ?, plan_at = CASE WHEN plan_at < ? THEN plan_at ELSE ? END WHERE code = ?",
            json.dumps([step.__dict__ for step in steps]),
            len(steps),
            len(steps) - 1,
            code,
        )
        return self._plan_of(tx, code)

    def plan_go(self, code: str, teacher_key: str, at: int, question_page: str = "") -> PlanStep:
        """Take the class to step ``at`` of its plan: a view step sends the class there, a
        question step shows the question (``resume_poll``: its latest round as it was, or its
        first) and, given ``question_page`` (the address where questions are answered), sends
        the class there. Returns the step.

        A step whose own question the class no longer has (a database of an earlier version)
        opens nothing: the class is on that step, so that Next goes past it, and a ValueError
        says so."""
        if isinstance(at, bool) or not isinstance(at, int):
            raise ValueError(f"at must be a step's index, got {at!r:.40}")
        with self._tx() as tx:
            code = self._require_teacher(tx, code, teacher_key)
            plan = self._plan_of(tx, code)
            if not 0 <= at < len(plan.steps):
                raise ValueError(f"at must be a step of the plan, 0 to {len(plan.steps) - 1}, got {at}")
            step = plan.steps[at]
            gone = (
                step.kind == "question"
                and step.target.startswith(OWN_PREFIX)
                and tx.one("SELECT 1 FROM questions WHERE code = ? AND key = ?", code, step.target) is None
            )
        if step.kind == "view":
            self.send_class(code, teacher_key, step.target)
        elif not gone:
            self.resume_poll(code, teacher_key, step.target)
            if question_page:
                self.send_class(code, teacher_key, question_page)
        with self._tx(write=True) as tx:
            tx.run("UPDATE classes SET plan_at = ? WHERE code = ?", at, code)
        if gone:
            raise ValueError(
                f"step {at + 1} opens a question this class no longer has, so nothing was opened; "
                "Next goes on to the step after it"
            )
        return step

    def save_plan(self, code: str, teacher_key: str, title: str = "", *, network: str = "") -> str:
        """Save the class's plan for reuse; returns its code (PLAN_CODE_LENGTH characters),
        which loads it into another class. The class's own questions go in whole.

        The same plan saved again (its steps, questions and title as they were) is the one
        already kept: its code, nothing stored. ``network`` is the address of whoever saves,
        which saves at most PLAN_SAVES_PER_ADDRESS plans in ADDRESS_WINDOW_S (then JoinRefused,
        with ``retry_after``)."""
        title = _clean_text(_require_str(title, "title"), PLAN_TITLE_CHARS)
        network = limit_key(_require_str(network, "network")[:200])
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            plan = self._plan_of(tx, code)
            if not plan.steps:
                raise ValueError("the plan has no steps to save")
            own = {
                q.key: q
                for q in (
                    self._question(r)
                    for r in tx.all(f"SELECT {self._QUESTION_COLUMNS} FROM questions WHERE code = ?", code)
                )
            }
            steps = []
            for step in plan.steps:
                saved = dict(step.__dict__)
                if step.target in own:
                    q = own[step.target]
                    saved["question"] = {**q.__dict__, "options": list(q.options), "key": ""}
                steps.append(saved)
            digest = hashlib.sha256(json.dumps([title, steps], sort_keys=True).encode()).hexdigest()
            now = self._clock()
            kept = tx.value("SELECT code FROM plans WHERE digest = ?", digest)
            if kept is not None:
                tx.run("UPDATE plans SET saved = ?, used = ? WHERE code = ?", now, now, kept)
                return kept
            self._count_use(tx, network, "plan", PLAN_SAVES_PER_ADDRESS, now, "Too many plans were saved")
            while True:
                plan_code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(PLAN_CODE_LENGTH))
                if tx.one("SELECT 1 FROM plans WHERE code = ?", plan_code) is None:
                    break
            tx.run(
                "INSERT INTO plans (code, title, steps, saved, used, digest) VALUES (?, ?, ?, ?, ?, ?)",
                plan_code,
                title,
                json.dumps(steps),
                now,
                now,
                digest,
            )
        return plan_code

    def load_plan(self, code: str, teacher_key: str, plan_code: str) -> tuple[str, ClassPlan]:
        """Load a saved plan into the class (its questions become the class's own; the class
        starts before the first step). Returns the plan's title and the class's new plan;
        ValueError when no saved plan has that code, or when its questions would take the
        class past QUESTIONS_PER_CLASS. It loads whole or not at all: one transaction."""
        # a plan code is typed as a class code is: spaces and case do not matter
        plan_code = normalize_code(_require_str(plan_code, "plan_code"))
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            row = tx.one("SELECT title, steps FROM plans WHERE code = ?", plan_code)
            if row is None or len(plan_code) != PLAN_CODE_LENGTH:
                raise ValueError(f"no saved plan has the code {_shown_code(plan_code)}")
            title, saved = row[0], json.loads(row[1])
            questions = {}
            for i, step in enumerate(saved):
                if "question" in step:
                    fields = {k: v for k, v in step["question"].items() if k != "key"}
                    fields["options"] = tuple(fields.get("options", ()))
                    questions[i] = check_question(Question(**fields))
            held = int(tx.value("SELECT COUNT(*) FROM questions WHERE code = ?", code))
            if held + len(questions) > QUESTIONS_PER_CLASS:
                raise ValueError(
                    f"the plan brings {len(questions)} questions of its own and this class holds {held}: "
                    f"a class holds at most {QUESTIONS_PER_CLASS}, so nothing was loaded"
                )
            steps = [
                PlanStep("question", self._insert_question(tx, code, questions[i]), step.get("notes", ""))
                if i in questions
                else PlanStep(step["kind"], step["target"], step.get("notes", ""))
                for i, step in enumerate(saved)
            ]
            self._write_plan(tx, code, _check_steps(steps))
            tx.run("UPDATE classes SET plan_at = -1 WHERE code = ?", code)
            tx.run("UPDATE plans SET used = ? WHERE code = ?", self._clock(), plan_code)
            return title, self._plan_of(tx, code)

    # -------------------------------------------------------------- the teacher's own questions

    _QUESTION_COLUMNS = "key, prompt, options, answer, tolerance, low, high, integer_only, unit, why, view"

    @staticmethod
    def _question(row) -> Question:
        key, prompt, options, answer, tolerance, low, high, integer, unit, why, view = row
        return Question(
            prompt,
            tuple(json.loads(options)),
            float(answer),
            float(tolerance),
            float(low),
            float(high),
            bool(integer),
            unit,
            why,
            view,
            key,
        )

    def add_question(self, code: str, teacher_key: str, question: Question) -> Question:
        """Keep a question the teacher wrote for the class; returns it cleaned, with its key
        (``OWN_PREFIX`` and a random part), which opens it like a lesson's question."""
        question = check_question(question)
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            key = self._insert_question(tx, code, question)
        return replace(question, key=key)

    def _insert_question(self, tx: _Tx, code: str, question: Question) -> str:
        """Write a checked question into the class; returns its key."""
        tx.run("UPDATE classes SET expires = expires WHERE code = ?", code)  # serializes seq
        held = int(tx.value("SELECT COUNT(*) FROM questions WHERE code = ?", code))
        if held >= QUESTIONS_PER_CLASS:
            raise ValueError(f"a class holds at most {QUESTIONS_PER_CLASS} questions of its own")
        seq = 1 + (tx.value("SELECT MAX(seq) FROM questions WHERE code = ?", code) or 0)
        key = OWN_PREFIX + secrets.token_hex(6)
        tx.run(
            f"INSERT INTO questions (code, seq, created, {self._QUESTION_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            code,
            seq,
            self._clock(),
            key,
            question.prompt,
            json.dumps(list(question.options)),
            question.answer,
            question.tolerance,
            question.low,
            question.high,
            int(question.integer),
            question.unit,
            question.why,
            question.view,
        )
        return key

    def questions(self, code: str) -> list[Question]:
        """The class's own questions, in the order they were written."""
        code = normalize_code(code)
        with self._tx() as tx:
            rows = tx.all(f"SELECT {self._QUESTION_COLUMNS} FROM questions WHERE code = ? ORDER BY seq", code)
        return [self._question(row) for row in rows]

    def remove_question(self, code: str, teacher_key: str, key: str) -> bool:
        """Remove a question the class was never asked, with the plan's steps that open it
        (the class stays on its step, or goes back to the one before it), so that the plan
        names no question the class lacks. False: it was asked, or is not the class's (the
        votes of a question asked stay readable in the results)."""
        _check_key(key, "key")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            removed = tx.run(
                "DELETE FROM questions WHERE code = ? AND key = ? AND NOT EXISTS "
                "(SELECT 1 FROM rounds WHERE rounds.code = questions.code AND rounds.poll_key = questions.key)",
                code,
                key,
            )
            if removed:
                plan = self._plan_of(tx, code)
                kept = [i for i, step in enumerate(plan.steps) if (step.kind, step.target) != ("question", key)]
                if len(kept) < len(plan.steps):
                    self._write_plan(tx, code, [plan.steps[i] for i in kept])
                    at = sum(1 for i in kept if i <= plan.at) - 1
                    tx.run("UPDATE classes SET plan_at = ? WHERE code = ?", at, code)
            return bool(removed)

    def open_poll(self, code: str, teacher_key: str, poll_key: str) -> Round:
        _check_key(poll_key, "poll_key")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            # the row lock (PostgreSQL) serializes two teacher tabs opening polls at once;
            # SQLite's BEGIN IMMEDIATE already does
            tx.run("UPDATE classes SET expires = expires WHERE code = ?", code)
            now = self._clock()
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
                    tx.run("UPDATE rounds SET closed = NULL WHERE id = ?", last.id)
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
                "WHERE r.id = ? AND r.closed IS NULL AND c.expires > ?",
                student_id,
                round_id,
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

    # -------------------------------------------------------------- exercises

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

    # -------------------------------------------------------------- the teacher's views

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
        students, each exercise key each student tried or solved, every round and every vote."""
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
        return ClassRecord(code, title, students, marks, rounds, votes)

    # -------------------------------------------------------------- housekeeping

    def purge(self, older_than_days: float = 30.0) -> int:
        if (
            isinstance(older_than_days, bool)
            or not isinstance(older_than_days, int | float)
            or not math.isfinite(older_than_days)
            or older_than_days < 0
        ):
            raise ValueError(f"older_than_days must be a finite number >= 0, got {older_than_days!r}")
        with self._tx(write=True) as tx:
            now = self._clock()
            cutoff = now - older_than_days * 86400.0
            old = "SELECT code FROM classes WHERE expires < ?"
            tx.run(f"DELETE FROM answers WHERE round_id IN (SELECT id FROM rounds WHERE code IN ({old}))", cutoff)
            for table in ("rounds", "students", "attempts", "questions"):
                tx.run(f"DELETE FROM {table} WHERE code IN ({old})", cutoff)
            deleted = tx.run("DELETE FROM classes WHERE expires < ?", cutoff)
            tx.run("DELETE FROM join_failures WHERE at <= ?", now - JOIN_FAILURE_WINDOW_S)
            tx.run("DELETE FROM network_joins WHERE at <= ?", now - JOIN_FAILURE_WINDOW_S)
            tx.run("DELETE FROM address_uses WHERE at <= ?", now - ADDRESS_WINDOW_S)
            tx.run("DELETE FROM plans WHERE used < ?", now - PLAN_RETENTION_DAYS * 86400.0)
        return int(deleted)

    def purge_if_due(self, retention_days: float = RETENTION_DAYS) -> int | None:
        """``purge(retention_days)`` at most once every PURGE_EVERY_S in this store (the app
        calls it whenever it uses the database); None when it was not due."""
        with self._lock:
            now = self._clock()
            if self._purged_at is not None and now - self._purged_at < PURGE_EVERY_S:
                return None
            self._purged_at = now
        return self.purge(retention_days)

    def delete_class(self, code: str, teacher_key: str) -> None:
        """Delete a class and everything in it (students, votes, exercises) now; its teacher
        and student links stop working."""
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            tx.run("DELETE FROM answers WHERE round_id IN (SELECT id FROM rounds WHERE code = ?)", code)
            for table in ("rounds", "students", "attempts", "questions", "classes"):
                tx.run(f"DELETE FROM {table} WHERE code = ?", code)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                conn.close()


def _top_wrong(rows: list[tuple], item) -> tuple[tuple[str, int], ...]:
    """The three most common wrong answers of ``item`` from (item, answer, students) rows."""
    mine = sorted(((answer, int(n)) for key, answer, n in rows if key == item), key=lambda an: (-an[1], an[0]))
    return tuple(mine[:3])
