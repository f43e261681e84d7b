"""Reaching the class database: the setting (``POSENC_CLASS_DB``), its two backends (SQLite,
PostgreSQL), a transaction (``_Tx``: queries are written with ``?``, turned into psycopg's
``%s`` here), and ``Connections``, the store's part that pools connections, runs
transactions (retried once on a fresh connection when a pooled one was dead) and applies
the migrations (``schema``)."""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Self
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from posenc_lab.classroom.store import schema
from posenc_lab.classroom.store.rules import _require_str

SETTING = "POSENC_CLASS_DB"
POOL_IDLE = 4  # idle connections kept per Store; more concurrent users get extra, short-lived ones
CONNECT_TIMEOUT_S = 3
SQLITE_BUSY_MS = 10_000


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


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    line = text[0].strip().rstrip(".") if text else type(error).__name__
    return line[:200]


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


class Connections:
    """The store's plumbing: a pool of connections handed to one user at a time, transactions
    (``_tx``), the migrations, and closing."""

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

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

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
            self._backend.lock(tx, schema.MIGRATION_LOCK)
            tx.run(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                "version INTEGER PRIMARY KEY, applied DOUBLE PRECISION NOT NULL)"
            )
            done = {row[0] for row in tx.all("SELECT version FROM schema_migrations")}
            for version, statements in schema.MIGRATIONS:
                if version in done:
                    continue
                for statement in statements:
                    tx.run(statement)
                tx.run("INSERT INTO schema_migrations (version, applied) VALUES (?, ?)", version, self._clock())

    def schema_versions(self) -> list[int]:
        """The migrations applied to this database, in order."""
        with self._tx() as tx:
            return [row[0] for row in tx.all("SELECT version FROM schema_migrations ORDER BY version")]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                conn.close()
