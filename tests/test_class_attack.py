"""Issue 36 through the shipped setup: ``deploy/run_two.sh`` (two app processes behind
nginx), students' sessions over Streamlit's websocket (benchmarks/class_attack.py, the page
client of benchmarks/class_poll.py), on SQLite and on PostgreSQL.

One test per database runs the whole attack on one pair of servers: wrong codes from several
sessions at one address (the limit must find the address through nginx and hold across both
processes), a classmate's right code at that address, a join flood against the class's cap,
and nginx's access log (no query string: no teacher key, no student id).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pg_support
import pytest
from app_helpers import ROOT, nginx_pair_env

from posenc_lab.classroom import store as class_store

sys.path.insert(0, str(ROOT / "benchmarks"))
import class_attack  # noqa: E402

pytestmark = pytest.mark.browser
SCRIPT = str(ROOT / "deploy" / "run_two.sh")


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_db(request, tmp_path):
    if request.param == "sqlite":
        return pg_support.fresh_sqlite_url(tmp_path)
    return pg_support.fresh_database(request.getfixturevalue("postgres_server"))


@pytest.fixture
def two_behind_nginx(fresh_db):
    """deploy/run_two.sh start on fresh ports: (nginx's URL, the access log, the database)."""
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        pytest.skip("nginx is not installed")
    # create the schema before two processes race to (they would, safely, but slower)
    class_store.open_store(fresh_db).close()
    run_dir, proxy, env = nginx_pair_env(fresh_db, "posenc-attack-")
    try:
        subprocess.run([SCRIPT, "start"], cwd=ROOT, env=env, check=True, timeout=150, capture_output=True)
        yield f"http://127.0.0.1:{proxy}", Path(run_dir) / "logs" / "access.log", fresh_db
    finally:
        subprocess.run([SCRIPT, "stop"], cwd=ROOT, env=env, check=False, timeout=60, capture_output=True)
        logs = list((Path(run_dir) / "logs").glob("app-*.log"))
        tracebacks = [log.name for log in logs if "Traceback" in log.read_text(errors="replace")]
        shutil.rmtree(run_dir, ignore_errors=True)
        assert not tracebacks, f"a traceback in the server log: {tracebacks}"


def _run(coroutine) -> None:
    """``asyncio.run`` in a thread of its own: Playwright's sync API (the browser tests of the
    same session) may hold an event loop in this one."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, coroutine).result()


def test_the_join_limits_hold_through_nginx_and_two_processes(two_behind_nginx):
    url, access_log, db = two_behind_nginx
    args = class_attack.parse_args(
        ["--url", url, "--db", db, "--guessers", "3", "--tries", "9", "--cap", "4", "--flood", "6"]
    )
    target = class_attack.loopback_target(url)
    run = class_attack.Attack()
    run.code, key = class_attack.start_class(db)

    _run(class_attack.guess(args, target, run))
    assert run.errors == []
    sent = args.guessers * args.tries
    assert len(run.wrong) == sent and all("No class has the code" in said for _, said in run.wrong)
    # nginx named the client (loopback here): every wrong code counts for its address, on
    # whichever process it arrived
    assert pg_support.rows(
        db, "SELECT client, COUNT(*) FROM join_failures WHERE client LIKE 'net:%' GROUP BY client"
    ) == [("net:127.0.0.1", sent)]
    # the wrong codes beyond the free ones waited: the last one at least its delay
    slowest = max(ms for ms, _ in run.wrong)
    assert slowest >= 1000 * class_store.wrong_code_delay(sent - 1) > 0

    _run(class_attack.classmate(args, target, run))
    assert run.classmate_joined, run.classmate_said  # never refused for the guessers' codes

    with class_store.open_store(db) as store:
        store.set_cap(run.code, key, args.cap)
    _run(class_attack.flood(args, target, run))
    assert run.errors == []
    assert (run.flood_joined, run.flood_refused) == (args.cap - 1, args.flood - args.cap + 1)
    with class_store.open_store(db) as store:
        assert store.class_info(run.code).refused == run.flood_refused
        assert len(store.students(run.code)) == args.cap

    # an old teacher link through nginx (the page refuses it): its key, and the students' ids,
    # stay out of the access log
    teacher = class_attack._client(-1, {"class": run.code, "teacher": key}, args, target, None)
    _run(_open_and_close(teacher))
    logged = access_log.read_text()
    assert '"GET /class HTTP/1.1"' in logged
    assert key not in logged and "?" not in logged
    for (student_id,) in pg_support.rows(db, "SELECT student_id FROM students"):
        assert student_id not in logged
    served = {line.split("upstream=")[1].split()[0] for line in logged.splitlines() if "/_stcore/stream" in line}
    assert len(served) == 2, f"both app processes served sessions: {served}"


async def _open_and_close(client) -> None:
    try:
        await client.load()
    finally:
        await client.close()
