"""A throwaway PostgreSQL server for the tests and benchmarks: real, local, unix socket only.

``PostgresServer`` runs ``initdb`` and ``pg_ctl`` from PATH or the newest
``/usr/lib/postgresql/*/bin`` (Debian's ``postgresql`` package; ``scripts/test.sh``
installs it) in a temporary folder, listening on a unix socket there and on no TCP port,
so it never clashes with a cluster the package started. initdb refuses to run as root,
so as root the server runs as the ``postgres`` user the package creates.

``fresh_database(base_url)`` makes an empty database on it and returns its URL, so tests
never see each other's rows; ``fresh_sqlite_url(folder)`` is the SQLite counterpart.
``rows(url, sql)`` reads either kind straight through its driver; ``Clock`` is the hand-moved
clock the class-store tests inject (the ``clock`` and ``store`` fixtures, conftest.py).

Outside pytest (a benchmark)::

    with pg_support.running_server() as base_url:
        url = pg_support.fresh_database(base_url)
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

INSTALL_HINT = "run scripts/test.sh (it installs Debian's postgresql package) or apt-get install postgresql"
SERVER_OPTIONS = "-c listen_addresses='' -c max_connections=300 -c shared_buffers=32MB"


class PostgresMissing(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


def find_bin_dir() -> Path:
    """The folder holding initdb and pg_ctl: on PATH, else the newest /usr/lib/postgresql/N/bin."""
    on_path = [shutil.which(name) for name in ("initdb", "pg_ctl")]
    if all(on_path):
        folder = Path(on_path[0]).resolve().parent
        if (folder / "pg_ctl").exists():
            return folder
    versions = []
    for folder in Path("/usr/lib/postgresql").glob("*/bin"):
        match = re.fullmatch(r"\d+(\.\d+)?", folder.parent.name)
        if match and (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            versions.append((float(folder.parent.name), folder))
    if not versions:
        raise PostgresMissing(
            f"PostgreSQL's initdb and pg_ctl were not found on PATH or in /usr/lib/postgresql: {INSTALL_HINT}"
        )
    return max(versions)[1]


class PostgresServer:
    """One cluster in a temporary folder; ``base_url`` reaches its ``postgres`` database."""

    def __init__(self):
        self.bin_dir = find_bin_dir()
        self.root = Path(tempfile.mkdtemp(prefix="posenc-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError as error:
                shutil.rmtree(self.root, ignore_errors=True)
                raise PostgresMissing(f"running as root needs the 'postgres' user: {INSTALL_HINT}") from error
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._as_user = ["runuser", "-u", "postgres", "--"]
        self.base_url = f"postgresql://posenc@/postgres?host={quote(str(self.root), safe='/')}"
        self.startup_seconds = float("nan")

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        cmd = [*self._as_user, *args]
        result = subprocess.run(cmd, cwd=self.root, capture_output=True, text=True, timeout=timeout, check=False)
        if result.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed ({result.returncode}): {result.stderr.strip()}\n{log}")
        return result

    def _pg_ctl(self, *args: str) -> None:
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", *args)

    def start(self) -> PostgresServer:
        started = time.perf_counter()
        self._run(
            str(self.bin_dir / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "posenc",
            "--no-instructions",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",  # a throwaway cluster: no need to flush the template files
        )
        self._pg_ctl("-o", f"{SERVER_OPTIONS} -k {self.root}", "start")
        self.wait_ready()
        self.startup_seconds = time.perf_counter() - started
        return self

    def wait_ready(self, timeout: float = 30.0) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.base_url, connect_timeout=3) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def restart(self) -> None:
        """Stop the server process (fast: sessions are cut) and start a new one on the same data."""
        self._pg_ctl("-m", "fast", "restart")
        self.wait_ready()

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._pg_ctl("-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


def fresh_database(base_url: str) -> str:
    """Create an empty database on the server at ``base_url``; return its URL."""
    import psycopg

    name = "t_" + secrets.token_hex(6)
    with psycopg.connect(base_url, autocommit=True, connect_timeout=3) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return base_url.replace("/postgres?", f"/{name}?", 1)


#: a fixed "now" for the injected clock (2026-11-18)
T0 = 1_795_000_000.0


class Clock:
    """A clock the test moves by hand (``clock.now = ...``)."""

    def __init__(self, now: float = T0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def rows(url: str, sql: str) -> list[tuple]:
    """Rows straight from the driver of a SQLite path or a ``postgresql://`` URL, not through
    the store under test."""
    if url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(url) as conn:
            return list(conn.execute(sql).fetchall())
    import sqlite3

    conn = sqlite3.connect(url)
    try:
        return list(conn.execute(sql).fetchall())
    finally:
        conn.close()


def fresh_sqlite_url(folder: str | os.PathLike) -> str:
    """A new SQLite file path in ``folder`` (the file is created when a store opens it)."""
    return str(Path(folder) / f"classes-{secrets.token_hex(4)}.sqlite3")


@contextlib.contextmanager
def running_server() -> Iterator[str]:
    """A server for the duration of the block; yields its base URL."""
    server = PostgresServer()
    try:
        server.start()
        yield server.base_url
    finally:
        server.stop()
