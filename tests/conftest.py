"""Shared fixtures and Hypothesis settings for the posenc test-suite.

The frozen reference values in ``data/reference_snapshots.json`` come from torch,
transformers and torchscale (see ``tools/make_reference_snapshots.py``); they are loaded
once per session. Tests that ask for one of the ``*_case`` fixtures below are
parametrized over every case of that section, with readable ids.

Hypothesis profiles (choose with ``HYPOTHESIS_PROFILE=...``):

- ``default``: 50 examples, derandomized, so CI runs are reproducible.
- ``thorough``: 1000 random examples, for a local bug hunt.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import calibration
import pytest
from hypothesis import settings

SNAPSHOT_PATH = Path(__file__).parent / "data" / "reference_snapshots.json"

# The class database of every app the tests start (AppTest sessions, servers, the installed
# app) unless a test names its own: a file of this test run's, never the user's default
# under ~/.local/share, nor a database the developer's own setting points at.
# Each pytest process (the controller and every worker) makes its own and removes it when it exits.
_CLASS_DB_DIR = tempfile.mkdtemp(prefix="posenc-class-tests-")
atexit.register(shutil.rmtree, _CLASS_DB_DIR, ignore_errors=True)
os.environ["POSENC_CLASS_DB"] = str(Path(_CLASS_DB_DIR) / "classes.sqlite3")

# derandomized runs replay the same examples, so there is no example database to keep
settings.register_profile("default", deadline=None, max_examples=50, derandomize=True, database=None)
settings.register_profile("thorough", deadline=None, max_examples=1000, derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@functools.cache
def _load_snapshots() -> dict:
    return json.loads(SNAPSHOT_PATH.read_text())


@pytest.fixture(scope="session")
def snapshots() -> dict:
    """The whole reference JSON (read once)."""
    return _load_snapshots()


# fixture name -> (cases, id of one case)
def _snapshot_sections() -> dict:
    data = _load_snapshots()
    deberta = data["deberta_log_bucket"]
    xpos = data.get("xpos") or {"cases": []}
    return {
        "alibi_case": (
            sorted(data["alibi_slopes"].items(), key=lambda kv: int(kv[0])),
            lambda kv: f"heads{kv[0]}",
        ),
        "t5_case": (
            data["t5_bucket"],
            lambda c: f"bi{c['bidirectional']}-nb{c['num_buckets']}-md{c['max_distance']}",
        ),
        "rope_init_case": (data["rope_init"], lambda c: c["name"]),
        "rope_half_case": (data["rope_apply_half"], lambda c: c["rope_scaling"]["rope_type"]),
        "deberta_bucket_case": (
            deberta["make_log_bucket_position"],
            lambda c: f"bs{c['bucket_size']}-mp{c['max_position']}",
        ),
        "build_rel_case": (
            deberta["build_relative_position"],
            lambda c: f"q{c['query_size']}-k{c['key_size']}-bs{c['bucket_size']}",
        ),
        "xpos_case": (xpos["cases"], lambda c: f"offset{c['offset']}"),
    }


def pytest_generate_tests(metafunc):
    for name, (cases, case_id) in _snapshot_sections().items():
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, cases, ids=[case_id(c) for c in cases])


# pytest-xdist (scripts/test.sh runs ``-n 2 --dist loadgroup``): tests that share something
# costly of their process run in one worker, in file order, as a group. The classroom
# measurements (the ``measured`` fixture) load each view once per mode for every test that
# reads it: each mode is a group (its tab follows links from view to view). Class mode's
# browser tests are one group, the other browser tests and the benchmarks' smoke tests
# another; the install tests one venv; a module's other tests the value of its module-scoped
# fixture. Every other test goes to whichever worker is free.
# The scheduler hands out the largest groups first, one to each worker.


#: modules of browser tests that serve class mode themselves (their own servers and databases)
CLASS_BROWSER = frozenset({"test_browser_class", "test_browser_class_soak", "test_class_attack"})


def _uses_a_module_fixture(item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(d.scope == "module" for defs in info.name2fixturedefs.values() for d in defs)


def _measured_mode(item) -> str:
    """The mode of the classroom measurement a ``measured`` test reads: its ``mode`` or
    ``setting`` parameter, else presenter mode or the phone for a test named for it, else
    the desktop."""
    params = item.callspec.params if hasattr(item, "callspec") else {}
    mode = params.get("mode") or params.get("setting")
    if mode is None:
        named = [m for m in ("presenter", "phone") if m in item.originalname]
        mode = named[0] if named else "desktop"
    return "present" if mode in ("present", "presenter") else mode


def _group(item) -> str | None:
    if item.get_closest_marker("install"):
        return "install"
    if "measured" in item.fixturenames:
        return f"measure-{_measured_mode(item)}"
    if item.get_closest_marker("browser") or {"server", "browser"} & set(item.fixturenames):
        # class mode's browser tests start servers of their own: a group beside the others
        return "browser-class" if Path(item.nodeid.split("::")[0]).stem in CLASS_BROWSER else "browser"
    if _uses_a_module_fixture(item):
        return Path(item.nodeid.split("::")[0]).stem
    return None


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = None if item.get_closest_marker("xdist_group") else _group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
    yield  # pytest-xdist's worker hook names each item's group in its nodeid (id@group) for the scheduler
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        _name_groups_in_ids(items)


def _name_groups_in_ids(items) -> None:
    """pytest-xdist 3.8.0 writes ``item._nodeid``, which pytest 9.2's structured ids no longer
    read: its nodeids keep no ``@group`` and every group is scattered over the workers
    (pytest-xdist issue #1386). Write the suffix where pytest 9.2 keeps the id; a pytest-xdist
    that does it itself leaves nothing to do here."""
    from _pytest.nodeid import coerce_node_id

    for item in items:
        names = sorted(
            {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
        )
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix):
            item._id = coerce_node_id(item.nodeid + suffix)


# browser tests: one streamlit server and one chromium for the whole session


@pytest.fixture(scope="session")
def server():
    import browser_support

    yield from browser_support.start_server()


@pytest.fixture(scope="session")
def browser():
    import browser_support

    yield from browser_support.launch_browser()


@pytest.fixture(scope="session")
def measured(server, browser):
    """``measured(name, path, mode)``: the view loaded once in that mode (and its scheme,
    ``browser_support.SCHEME``) and measured (browser_support.Measurements), for every test
    that reads it."""
    import browser_support

    measurements = browser_support.Measurements(browser, server)
    yield measurements
    measurements.close()


# the class database (classroom.store): real SQLite and a real, throwaway PostgreSQL server


@pytest.fixture(scope="session")
def postgres_cluster():
    """The session's PostgreSQL server (tests/pg_support.py); a missing install fails, never skips."""
    import pg_support

    try:
        server = pg_support.PostgresServer()
    except pg_support.PostgresMissing as error:
        pytest.fail(str(error), pytrace=False)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_server(postgres_cluster) -> str:
    """The base URL of the session's PostgreSQL server (its ``postgres`` database)."""
    return postgres_cluster.base_url


@pytest.fixture(params=["sqlite", "postgresql"])
def class_db_url(request, tmp_path) -> str:
    """A URL for an empty class database of each kind: a new SQLite file, a new PostgreSQL database."""
    import pg_support

    if request.param == "sqlite":
        return pg_support.fresh_sqlite_url(tmp_path)
    return pg_support.fresh_database(request.getfixturevalue("postgres_server"))


@pytest.fixture
def clock():
    """The hand-moved clock (pg_support.Clock) a ``store`` runs on."""
    import pg_support

    return pg_support.Clock()


@pytest.fixture
def store(class_db_url, clock):
    """An open class store on each kind of database (``class_db_url``), on ``clock``."""
    from posenc_lab.classroom.store import open_store

    with open_store(class_db_url, clock=clock) as s:
        yield s


@pytest.fixture
def db_url(class_db_url, monkeypatch):
    """``class_db_url`` as the app's class database (``POSENC_CLASS_DB``), for page tests."""
    from posenc_lab.classroom import store as class_store

    monkeypatch.setenv(class_store.SETTING, class_db_url)
    return class_db_url


# where the suite's time goes: printed at the end of every run (scripts/test.sh, CI)

#: seconds of setup, call and teardown per test id, and its group (the ``@group`` of its id
#: under --dist loadgroup, else "rest"); filled on the controller, which gets every report
_TEST_SECONDS: dict[str, float] = {}
_CALIBRATION: dict[str, float] = {}
#: the machine's CPU counters at the start of the run (``calibration.machine_sample``)
_MACHINE: dict[str, dict[str, float]] = {}


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist)
        # before pytest-xdist starts the workers, which read it from the environment
        _CALIBRATION["seconds"] = calibration.measure()
        _MACHINE["start"] = calibration.machine_sample()


def pytest_runtest_logreport(report):
    _TEST_SECONDS[report.nodeid] = _TEST_SECONDS.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if hasattr(config, "workerinput") or not _TEST_SECONDS:
        return
    groups: dict[str, list[float]] = {}
    for nodeid, seconds in _TEST_SECONDS.items():
        named = re.search(r"@([\w-]+)$", nodeid)  # the group pytest-xdist names in the id
        group = named[1] if named else "rest"
        groups.setdefault(group, []).append(seconds)
    write = terminalreporter.write_line
    calibrated = _CALIBRATION.get("seconds")
    terminalreporter.section("where the time went")
    if calibrated:
        # measured again now: a machine that slowed down during the run shows as a larger second number
        write(
            f"calibration: a fixed CPU task took {calibrated * 1000:.0f} ms here at the start,"
            f" {calibration.calibrate() * 1000:.0f} ms at the end (tests/calibration.py)"
        )
        write(
            f"browser budgets: x{calibration.pace():.2f} their base (the calibration over"
            f" {calibration.REFERENCE_S * 1000:.0f} ms, never below 1: browser_support.budget_ms)"
        )
    for line in calibration.describe_machine(_MACHINE.get("start", {}), calibration.machine_sample()):
        write(line)
    write(f"{'group':<20} {'tests':>6} {'seconds':>9}" + ("  x calibration" if calibrated else ""))
    for group, times in sorted(groups.items(), key=lambda kv: -sum(kv[1])):
        total = sum(times)
        ratio = f"  {total / calibrated:>13,.0f}" if calibrated else ""
        write(f"{group:<20} {len(times):>6} {total:>9.1f}{ratio}")
    write("slowest tests (setup + call + teardown):")
    for nodeid, seconds in sorted(_TEST_SECONDS.items(), key=lambda kv: -kv[1])[:10]:
        write(f"{seconds:>8.1f} s  {nodeid}")
