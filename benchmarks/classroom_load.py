"""Classroom load: N students open a lesson at once and move its sliders, as browsers do.

Run: ``python benchmarks/classroom_load.py --all-pages`` (40 students on every lesson view in
turn; benchmarks/README.md has the other ways to run it and what the numbers mean).

Each simulated student speaks Streamlit's own protocol, like the browser's frontend:
HTTP GET of the page, ``/_stcore/host-config`` and ``/_stcore/health`` (which sets the
``_streamlit_xsrf`` cookie), then a websocket to ``/_stcore/stream`` (subprotocols
``streamlit`` and the XSRF token, the cookie, a same-origin ``Origin``) that sends
``BackMsg`` protobufs and receives ``ForwardMsg`` ones. A page load sends ``rerun_script``
with the page's ``page_name`` (its URL path) and query string, and ends at the
``script_finished`` message; a slider move sends ``rerun_script`` with the moved sliders'
widget states, the page's script hash and the hashes of the cached messages it holds (the
server then sends unchanged figures as references), and ends at ``script_finished`` too.

Students arrive spread over ``--window`` seconds (a class opening a link), then each makes
``--moves`` slider moves with a random think time between them. By default every student
moves the slider page_budget.py moves (the first one the page draws, main area before
sidebar) to one of ``--values`` evenly spaced values (a teacher says "try d_model 64");
``--values 0`` draws any value of the slider's grid (nearly every move a cache miss).

The experiments page trains six models when a training setting moves (its own 15 s budget,
``SLOW_PAGES`` in page_budget.py): its training sliders are left alone unless ``--slow``, so
only its translation view has a slider move (``shift``); with ``--slow`` those moves are
reported in their own row against the 15 s budget.

Students spread over the pages (not ``--same-page``): the moves are also split at the
moment the last student's page had loaded. During the arrival the loads, the most expensive
runs, still come in; the p95 of each 10 s of the run (each minute with ``--class-minutes``)
shows when the slow moves happened.

Budget (exit status 1 if missed): with every student on one page, p95 slider move <= 1 s,
no exception element, no session error (disconnect, timeout, failed run, wrong page,
traceback in the server log). Only loopback addresses are used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import logging
import math
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

# importing the lessons outside a server: Streamlit warns "No runtime found" for every cached
# function, a hundred lines before --help or a report (as benchmarks/browser_feel.py)
logging.getLogger("streamlit.runtime.caching.cache_data_api").addFilter(
    lambda record: "No runtime found" not in record.getMessage()
)

from page_budget import LARGEST, SLOW_PAGES  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.Slider_pb2 import Slider  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from posenc_lab.course import LESSONS  # noqa: E402
from posenc_lab.lessons.experiments import lesson as experiments  # noqa: E402
from posenc_lab.ui.layout import DATA_AND_CODE  # noqa: E402

#: sliders of the experiments page that retrain its six models (about 10 s by design)
TRAINING_SLIDERS = {experiments.LESSON.path: {"copy_k", "train_len", "width", "steps", "seed", "ft"}}
BUDGET_MS = 1000.0
#: CPU per cache-missing move a 2-core machine can afford for 200 explorers (issue 18:
#: 200 students moving every 4 s ask for 50 misses a second; two cores give 2 CPU-s a second)
MISS_TARGET_MS = 30.0
FINISHED_OK = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


class SessionError(Exception):
    """A student's session failed: disconnect, timeout, failed run, wrong page."""


@dataclass(frozen=True)
class Case:
    name: str  # url_path, or url_path-view
    page: str  # the lesson's page file (Lesson.path)
    url_path: str
    query: dict
    floor: bool = False  # benchmarks/floor_app.py: one page, no navigation


#: the floor's one case: a bare Streamlit page with one slider and one Plotly chart
FLOOR = Case("floor (bare Streamlit)", "benchmarks/floor_app.py", "", {}, floor=True)
FLOOR_APP = ROOT / "benchmarks" / "floor_app.py"
#: the two lecture-hall scenarios of benchmarks/README.md: 200 students on one page (each
#: lesson's default view in turn), arriving over 20 s, five moves of the first slider 2-6 s
#: apart; explorers pick any value of its grid, followers the teacher's values
SCENARIOS = {
    "explorers": {"values": 0, "follow": False, "budget_ms": 1000.0},
    "follow": {"values": 5, "follow": True, "budget_ms": 500.0},
}


@dataclass
class Stats:
    loads: list = field(default_factory=list)  # ms, first request to script_finished
    load_bytes: list = field(default_factory=list)  # HTTP + websocket bytes received per load
    moves: list = field(default_factory=list)  # ms, rerun_script sent to script_finished
    move_at: list = field(default_factory=list)  # s from the run's start to each move's send (as moves)
    load_done_at: list = field(default_factory=list)  # s from the run's start to each load's end
    move_bytes: list = field(default_factory=list)
    slow_moves: list = field(default_factory=list)  # moves of training sliders (own budget)
    downloads: list = field(default_factory=list)  # ms, deferred file request to HTTP 200 (expander already open)
    exceptions: list = field(default_factory=list)  # messages of exception elements
    errors: list = field(default_factory=list)  # session errors
    sliders: set = field(default_factory=set)  # keys of the sliders moved
    server_cpu_s: dict = field(default_factory=dict)  # pid -> CPU seconds during the run
    cpu_ms_per_run: float | None = None  # server CPU of the run / script runs in it (loads + moves)
    students: int = 0
    load_avg: tuple = ()
    seconds: float = 0.0
    started: float = 0.0  # perf_counter at the run's start


def cases() -> list[Case]:
    return [
        Case(f"{lesson.url_path}-{view}" if view else lesson.url_path, lesson.path, lesson.url_path, q)
        for lesson in LESSONS
        for view in (lesson.views or [None])
        for q in [{"view": view} if view else {}]
    ]


def default_cases() -> list[Case]:
    """Each lesson page as a link or QR code opens it: its default view, no query."""
    return [Case(lesson.url_path, lesson.path, lesson.url_path, {}) for lesson in LESSONS]


def pick_cases(names: list[str] | None, every: list[Case] | None = None) -> list[Case]:
    every = cases() if every is None else every
    if not names:
        return every
    chosen = [c for c in every if c.name in names or c.url_path in names]
    unknown = [n for n in names if not any(n in (c.name, c.url_path) for c in every)]
    if unknown:
        raise SystemExit(f"unknown page(s) {unknown}; choose from {[c.name for c in every]}")
    return chosen


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (p95 of 200 moves is the 190th smallest)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


# ---------------------------------------------------------------- transport


class CountingConnection(ClientConnection):
    """A websocket client connection that counts the bytes it receives off the wire."""

    received = 0

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        super().data_received(data)


async def http_get(
    host: str, port: int, path: str, *, local_ip: str | None, cookies: dict[str, str], timeout: float
) -> tuple[int, list[tuple[str, str]], int]:
    """A minimal HTTP/1.1 GET: (status, headers, bytes received on the wire)."""

    async def go():
        reader, writer = await asyncio.open_connection(host, port, local_addr=(local_ip, 0) if local_ip else None)
        cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: posenc-lab-classroom-load\r\n"
            "Accept: */*\r\nAccept-Encoding: gzip\r\nConnection: close\r\n"
            + (f"Cookie: {cookie}\r\n" if cookie else "")
            + "\r\n"
        )
        writer.write(request.encode())
        try:
            data = await reader.read()
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        return data

    data = await asyncio.wait_for(go(), timeout)
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    if not head or len(head[0].split()) < 2:
        raise SessionError(f"GET {path}: no HTTP response")
    headers = [(k.strip().lower(), v.strip()) for k, _, v in (line.partition(":") for line in head[1:])]
    return int(head[0].split()[1]), headers, len(data)


# ---------------------------------------------------------------- one student


class Student:
    def __init__(self, number: int, case: Case, args, target: tuple[str, int], stats: Stats, rng: random.Random):
        self.number, self.case, self.args, self.stats, self.rng = number, case, args, stats, rng
        self.host, self.port = target
        self.local_ip = f"127.0.0.{2 + number % args.source_ips}" if args.source_ips else None
        self.cookies: dict[str, str] = {}
        self.ws: CountingConnection | None = None
        self.reader: asyncio.Task | None = None
        self.query = urlencode(case.query)
        self.page_hash = ""
        self.pages: dict[str, str] = {}  # page script hash -> url path
        self.session_id = ""
        self.max_age = 2  # runs a cached message stays in the frontend's cache (server config)
        self.cache: dict[str, tuple[int, object]] = {}  # hash -> (run it was last used, slider proto or None)
        self.run_no = 0
        #: (root container, order, proto, fragment id or "") of the sliders on the page now
        self.sliders: list[tuple[int, int, Slider, str]] = []
        self.downloads: list[str] = []  # deferred file ids of the last run
        self.data_expanders: list[str] = []  # widget ids of the last run's "Data and code" expanders
        self.widget_states: dict[str, WidgetState] = {}
        self.current: dict[str, float] = {}  # slider key -> value this student set
        self.waiter: asyncio.Future | None = None
        self.download_waiter: asyncio.Future | None = None
        self.leave_at = math.inf  # perf_counter time the class ends (--class-minutes)
        self.moves_made = 0

    # -- messages from the server

    def _slider_seen(self, root: int, proto: Slider, fragment: str) -> None:
        self.sliders.append((root, len(self.sliders), proto, fragment))

    def handle(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":  # a message we hold: the server sent only its hash
            if msg.ref_hash in self.cache:
                _, slider, fragment = self.cache[msg.ref_hash]
                self.cache[msg.ref_hash] = (self.run_no, slider, fragment)
                if slider is not None:
                    self._slider_seen(msg.metadata.delta_path[0] if msg.metadata.delta_path else 0, slider, fragment)
            else:
                self._fail(f"reference to a message not cached: {msg.ref_hash[:8]}")
            return
        slider, fragment = None, ""
        if kind == "delta" and msg.delta.WhichOneof("type") == "add_block":
            block = msg.delta.add_block
            if block.WhichOneof("type") == "expandable" and f"-{DATA_AND_CODE}" in block.expandable.id:
                self.data_expanders.append(block.expandable.id)
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            etype = element.WhichOneof("type")
            if etype == "exception":
                self.stats.exceptions.append(f"{element.exception.type}: {element.exception.message[:200]}")
            elif etype == "slider":
                # a widget drawn by a fragment reruns that fragment alone when it moves
                slider, fragment = element.slider, msg.delta.fragment_id
                self._slider_seen(msg.metadata.delta_path[0] if msg.metadata.delta_path else 0, slider, fragment)
            elif etype == "download_button" and element.download_button.deferred_file_id:
                self.downloads.append(element.download_button.deferred_file_id)
        elif kind == "new_session":
            self.page_hash = msg.new_session.page_script_hash or self.page_hash
            self.session_id = msg.new_session.initialize.session_id or self.session_id
            self.max_age = msg.new_session.config.max_cached_message_age or self.max_age
        elif kind == "navigation":
            self.page_hash = msg.navigation.page_script_hash or self.page_hash
            self.pages = {p.page_script_hash: p.url_pathname for p in msg.navigation.app_pages}
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "page_not_found":
            self._fail(f"page not found: {msg.page_not_found.page_name!r}")
        elif kind == "session_event" and msg.session_event.WhichOneof("type") == "script_compilation_exception":
            self._fail("script compilation exception")
        elif kind == "script_finished":
            status = msg.script_finished
            if status in FINISHED_OK:
                if self.waiter and not self.waiter.done():
                    self.waiter.set_result(None)
            elif status != ForwardMsg.FINISHED_EARLY_FOR_RERUN:  # early: a newer run follows
                self._fail(f"script finished with status {ForwardMsg.ScriptFinishedStatus.Name(status)}")
        elif kind == "backend_operation_response":
            if self.download_waiter and not self.download_waiter.done():
                self.download_waiter.set_result(msg.backend_operation_response)
        if msg.metadata.cacheable and msg.hash:
            self.cache[msg.hash] = (self.run_no, slider, fragment)

    def _fail(self, reason: str) -> None:
        for waiter in (self.waiter, self.download_waiter):
            if waiter and not waiter.done():
                waiter.set_exception(SessionError(reason))
                return
        self.stats.errors.append(f"student {self.number}: {reason} (between runs)")

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                msg = ForwardMsg()
                msg.ParseFromString(raw)
                self.handle(msg)
        except ConnectionClosed:
            pass
        self._fail(f"websocket closed ({self.ws.close_code})")

    # -- what the student does

    def _rerun(self, *, first: bool, fragment_id: str = "", auto: bool = True) -> bytes:
        """The BackMsg of a run; with ``fragment_id`` the rerun of that fragment only: as the
        frontend sends it every ``run_every`` (benchmarks/class_poll.py), or, with
        ``auto=False``, when a widget the fragment drew moves."""
        back = BackMsg()
        state = back.rerun_script
        state.query_string = self.query
        if first:  # the frontend's first run names the page by its URL path
            state.page_name = self.case.url_path
        else:
            state.page_script_hash = self.page_hash
        if fragment_id:
            state.fragment_id, state.is_auto_rerun = fragment_id, auto
        state.widget_states.widgets.extend(self.widget_states.values())
        state.cached_message_hashes.extend(h for h, (run, *_) in self.cache.items() if self.run_no - run < self.max_age)
        info = state.context_info
        info.timezone, info.timezone_offset, info.locale = "UTC", 0, "en-US"
        info.url = f"http://{self.host}:{self.port}/{self.case.url_path}" + (f"?{self.query}" if self.query else "")
        info.is_embedded, info.color_scheme = False, "light"
        self.run_no += 1
        # a fragment's rerun redraws its own elements only: the others stay on the page
        self.sliders = [s for s in self.sliders if fragment_id and s[3] != fragment_id]
        self.downloads, self.data_expanders = [], []
        return back.SerializeToString()

    async def _run_script(self, payload: bytes, timeout: float) -> None:
        self.waiter = asyncio.get_running_loop().create_future()
        await self.ws.send(payload)
        try:
            await asyncio.wait_for(self.waiter, timeout)
        except TimeoutError:
            raise SessionError(f"no script_finished within {timeout:.0f} s") from None

    async def _get(self, path: str) -> int:
        status, headers, size = await http_get(
            self.host, self.port, path, local_ip=self.local_ip, cookies=self.cookies, timeout=self.args.timeout
        )
        if status != 200:
            raise SessionError(f"GET {path}: HTTP {status}")
        for name, value in headers:
            if name == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key.strip()] = rest.split(";", 1)[0]
        return size

    async def load(self) -> None:
        start = time.perf_counter()
        path = f"/{self.case.url_path}" + (f"?{self.query}" if self.query else "")
        http_bytes = await self._get(path)
        http_bytes += await self._get("/_stcore/host-config")
        http_bytes += await self._get("/_stcore/health")
        xsrf = self.cookies.get("_streamlit_xsrf")
        self.ws = await connect(
            f"ws://{self.host}:{self.port}/_stcore/stream",
            subprotocols=["streamlit", xsrf] if xsrf else ["streamlit"],
            origin=f"http://{self.host}:{self.port}",
            additional_headers={"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())},
            compression=None,  # the server's default (server.enableWebsocketCompression = false)
            max_size=None,
            open_timeout=self.args.timeout,
            ping_interval=None,
            create_connection=CountingConnection,
            local_addr=(self.local_ip, 0) if self.local_ip else None,
        )
        self.reader = asyncio.create_task(self._read())
        await self._run_script(self._rerun(first=True), self.args.timeout)
        landed = self.pages.get(self.page_hash)
        if not self.case.floor and landed != self.case.url_path:
            raise SessionError(f"opened {landed!r} instead of {self.case.url_path!r}")
        self.stats.loads.append((time.perf_counter() - start) * 1e3)
        self.stats.load_done_at.append(time.perf_counter() - self.stats.started)
        self.stats.load_bytes.append(http_bytes + self.ws.received)

    def _eligible(self) -> list[Slider]:
        training = TRAINING_SLIDERS.get(self.case.page, set())
        ordered = [s[2] for s in sorted(self.sliders, key=lambda s: (s[0], s[1]))]
        if not self.args.slow:
            ordered = [s for s in ordered if key_of(s) not in training]
        if self.args.slider not in ("first", "random"):
            ordered = [s for s in ordered if key_of(s) == self.args.slider]
        return ordered

    async def move(self, *, unseen: set | None = None, revisit: bool = False) -> bool:
        """Move a slider and wait for the rerun; False if the page has no slider to move.

        ``unseen``: the (lesson, slider, value) and (view, slider, value) triples asked for so
        far on this server; the move picks a value no view of the lesson asked for (a cache
        miss) and adds it, or returns False when the slider has none left. With ``revisit`` it
        picks one this view asked for instead (a hit).
        """
        eligible = self._eligible()
        if not eligible:
            return False
        slider = eligible[0] if self.args.slider != "random" else self.rng.choice(eligible)
        key = key_of(slider)
        now = self.current.get(key, shown_value(slider))
        choices = [v for v in grid(slider, self.args.values) if v != now] or [now]
        if self.args.follow and unseen is None:
            # following the teacher: the k-th move of every student goes to the teacher's k-th value
            choices = [teacher_values(self.case, key, grid(slider, self.args.values), self.args)[self.moves_made]]
        if unseen is not None:
            # a miss: a value no view of this lesson asked for; a hit: one this view asked for
            if revisit:
                choices = [v for v in choices if (self.case.name, key, v) in unseen]
            else:
                choices = [v for v in choices if (self.case.url_path, key, v) not in unseen]
            if not choices:
                return False
        value = self.rng.choice(choices)
        if unseen is not None:
            unseen.update({(self.case.url_path, key, value), (self.case.name, key, value)})
        state = WidgetState(id=slider.id)
        if slider.type == Slider.SELECT_SLIDER:  # select sliders send the formatted option
            state.string_array_value.data.append(slider.options[int(value)])
        else:
            state.double_array_value.data.append(float(value))
        self.widget_states[slider.id] = state
        self.current[key] = value
        self.moves_made += 1
        slow = key in TRAINING_SLIDERS.get(self.case.page, set())
        before = self.ws.received
        start = time.perf_counter()
        # as the browser does: a slider a fragment drew reruns that fragment only
        fragment = next((s[3] for s in self.sliders if s[2].id == slider.id), "")
        payload = self._rerun(first=False, fragment_id=fragment, auto=False)
        await self._run_script(payload, self.args.slow_timeout if slow else self.args.timeout)
        elapsed = (time.perf_counter() - start) * 1e3
        (self.stats.slow_moves if slow else self.stats.moves).append(elapsed)
        if not slow:
            self.stats.move_at.append(start - self.stats.started)
        self.stats.move_bytes.append(self.ws.received - before)
        self.stats.sliders.add(key)
        return True

    async def download(self) -> None:
        """Open the first figure's "Data and code" expander (its buttons are drawn only while it
        is open), ask for its deferred CSV download and fetch that over HTTP."""
        if not self.data_expanders:
            return
        opened = WidgetState(id=self.data_expanders[0])
        opened.bool_value = True
        self.widget_states[opened.id] = opened
        await self._run_script(self._rerun(first=False), self.args.timeout)
        if not self.downloads:
            raise SessionError("an open 'Data and code' expander drew no download button")
        start = time.perf_counter()
        back = BackMsg()
        request = back.backend_operation_request
        request.request_id, request.session_id = str(uuid.uuid4()), self.session_id
        request.deferred_file.file_id = self.downloads[0]
        self.download_waiter = asyncio.get_running_loop().create_future()
        await self.ws.send(back.SerializeToString())
        try:
            response = await asyncio.wait_for(self.download_waiter, self.args.timeout)
        except TimeoutError:
            raise SessionError("no answer to the download request") from None
        if response.error_msg:
            raise SessionError(f"download: {response.error_msg}")
        url = urlparse(response.deferred_file.url)
        await self._get(url.path + (f"?{url.query}" if url.query else ""))
        self.stats.downloads.append((time.perf_counter() - start) * 1e3)

    async def run(self, arrival: float) -> None:
        await asyncio.sleep(arrival)
        try:
            await self.load()
            if self.args.downloads:
                await self.download()
            for _ in range(self.args.moves):
                await asyncio.sleep(self.rng.uniform(*self.args.think))
                if time.perf_counter() >= self.leave_at or not await self.move():
                    break
        except Exception as exc:  # any failure is this student's session error, not the script's
            self.stats.errors.append(f"student {self.number}: {type(exc).__name__}: {exc}")
        finally:
            self.waiter = self.download_waiter = None
            if self.reader is not None:
                self.reader.cancel()
            if self.ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.ws.close(), 5)


def key_of(slider: Slider) -> str:
    """The slider's URL name: its id ends in the widget key (``w:<name>``, see posenc_lab/ui/state.py)."""
    return slider.id.split("-", 2)[-1].removeprefix("w:")


def shown_value(slider: Slider) -> float:
    """The value a slider shows: the one the page set (a ``set_value`` may come with none,
    as RoPE's step does), else its default, else its minimum."""
    return ((slider.value if slider.set_value else None) or slider.default or [slider.min])[0]


def teacher_values(case: Case, key: str, values: list[float], args) -> list[float]:
    """The values a teacher sets the slider to, one per move (``--follow``): drawn from
    ``values`` by the run's seed, the page and the slider, each unlike the one before."""
    rng = random.Random(f"{args.seed}:{case.name}:{key}")
    picks: list[float] = []
    for _ in range(max(args.moves, 1)):
        options = [v for v in values if not picks or v != picks[-1]] or values
        picks.append(rng.choice(options))
    return picks


def grid(slider: Slider, count: int) -> list[float]:
    """``count`` evenly spaced values of the slider's grid (every value if count is 0)."""
    step = slider.step or 1
    n = round((slider.max - slider.min) / step)
    picks = range(n + 1) if count <= 0 or count > n else sorted({round(i * n / (count - 1)) for i in range(count)})
    return [round(slider.min + i * step, 10) for i in picks]


# ---------------------------------------------------------------- one run


async def run_students(plan: list[tuple[Case, float]], args, target, stats: dict[str, Stats], seed: int) -> None:
    students = [
        Student(i, case, args, target, stats[case.name], random.Random(seed * 1000 + i))
        for i, (case, _) in enumerate(plan)
    ]
    if args.class_minutes:
        # a class of fixed length: each student stops moving when it ends (not an error)
        for student in students:
            student.leave_at = time.perf_counter() + args.class_minutes * 60
    tasks = [asyncio.create_task(s.run(arrival)) for s, (_, arrival) in zip(students, plan, strict=True)]
    done, pending = await asyncio.wait(tasks, timeout=args.max_seconds)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for task, student in zip(tasks, students, strict=True):
        if task in pending:
            stats[student.case.name].errors.append(f"student {student.number}: still busy after {args.max_seconds} s")


def run(plan: list[tuple[Case, float]], args, target, pids: list[int], log: Path | list[Path] | None, seed: int):
    names = dict.fromkeys(case.name for case, _ in plan)
    stats = {name: Stats(load_avg=os.getloadavg()) for name in names}
    for case, _ in plan:
        stats[case.name].students += 1
    cpu0 = {pid: cpu_seconds(pid) for pid in pids}
    logs = [] if log is None else [log] if isinstance(log, Path) else list(log)
    log_start = {path: path.stat().st_size for path in logs}
    start = time.perf_counter()
    for s in stats.values():
        s.started = start
    asyncio.run(run_students(plan, args, target, stats, seed))
    seconds = time.perf_counter() - start
    cpu = {pid: round(cpu_seconds(pid) - cpu0[pid], 2) for pid in pids if cpu0[pid] is not None}
    tracebacks = 0
    for path in logs:
        with path.open("rb") as f:
            f.seek(log_start[path])
            tracebacks += f.read().count(b"Traceback")
    runs = sum(len(s.loads) + len(s.moves) + len(s.slow_moves) for s in stats.values())
    for s in stats.values():
        s.server_cpu_s, s.seconds = cpu, seconds
        s.cpu_ms_per_run = round(sum(cpu.values()) * 1e3 / runs, 1) if cpu and runs else None
        if tracebacks:  # shared by the run: charged to every page in it
            s.errors.append(f"{tracebacks} traceback(s) in the server log")
    return stats


async def _close(student: Student) -> None:
    if student.reader is not None:
        student.reader.cancel()
    if student.ws is not None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(student.ws.close(), 5)


async def _probe(
    case: Case, args, target, pids: list[int], seen: set, seed: int, moves: int, loads: int = 0
) -> tuple[list[float], list[float], list[float], str]:
    """One student at a time alone on ``case``: ``loads`` page loads, each a new session,
    then ``moves`` moves, each to a value nobody asked for before, then as many back to values
    asked for already; the server CPU each cost (ms), read from /proc around it, 0.3 s after
    the previous one (its clean-up over): (loads, misses, hits, sliders moved or the first
    error)."""
    stats = Stats()

    def cpu() -> float:
        return sum(cpu_seconds(pid) or 0.0 for pid in pids)

    load_costs: list[float] = []
    costs: list[float] = []
    hits: list[float] = []
    student = None
    try:
        for number in range(loads):
            visitor = Student(number + 1, case, args, target, stats, random.Random(seed + number + 1))
            try:
                await asyncio.sleep(0.3)
                before = cpu()
                await visitor.load()
                await asyncio.sleep(0.3)
                load_costs.append((cpu() - before) * 1e3)
            finally:
                await _close(visitor)
        student = Student(0, case, args, target, stats, random.Random(seed))
        await student.load()
        for revisit, out in ((False, costs), (True, hits)):
            for _ in range(moves):
                await asyncio.sleep(0.3)  # the previous run's clean-up (post-script GC) is over
                before = cpu()
                if not await student.move(unseen=seen, revisit=revisit):
                    break
                await asyncio.sleep(0.3)
                out.append((cpu() - before) * 1e3)
    except Exception as exc:
        stats.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        if student is not None:
            await _close(student)
    problems = stats.exceptions + stats.errors
    return load_costs, costs, hits, (f"{problems[0]}" if problems else ",".join(sorted(stats.sliders)))


def cpu_per_miss(chosen: list[Case], args, target, pids: list[int]) -> list[dict]:
    """Server CPU per cache-missing slider move, per view: one student at a time, so the
    process's CPU between sending a move and a moment after its ``script_finished`` is that
    move's (the run, the figures' serialisation and the post-run GC). /proc counts in ticks
    of 10 ms, hence the mean of several moves; the idle server costs ~0 over 0.6 s."""
    seen: set = set()
    rows = []
    print(
        f"{'page / view':<26} {'misses':>6} {'CPU ms/miss mean':>16} {'median':>7} {'max':>6} "
        f"{'hits':>5} {'ms/hit':>7}  slider"
    )
    for number, case in enumerate(chosen):
        probe = _probe(case, args, target, pids, seen, args.seed + number, args.cpu_per_miss)
        _, costs, hits, what = asyncio.run(probe)
        row = {
            "page": case.name,
            "moves": len(costs),
            "cpu_ms_mean": round(statistics.mean(costs), 1) if costs else None,
            "cpu_ms_median": round(statistics.median(costs), 1) if costs else None,
            "cpu_ms_max": round(max(costs), 1) if costs else None,
            "hits": len(hits),
            "cpu_ms_per_hit": round(statistics.mean(hits), 1) if hits else None,
            "slider": what,
        }
        rows.append(row)
        print(
            f"{case.name:<26} {row['moves']:6d} {row['cpu_ms_mean'] or 0:16.1f} {row['cpu_ms_median'] or 0:7.0f}"
            f" {row['cpu_ms_max'] or 0:6.0f} {row['hits']:5d} {row['cpu_ms_per_hit'] or 0:7.1f}  {what}"
        )
        sys.stdout.flush()
    measured = [r for r in rows if r["cpu_ms_mean"] is not None]
    if measured:
        worst = max(measured, key=lambda r: r["cpu_ms_mean"])
        print(f"# worst: {worst['page']} {worst['cpu_ms_mean']:.0f} ms per miss; target about {MISS_TARGET_MS:.0f} ms")
    return rows


def _mean(values: list[float]) -> float | None:
    return round(statistics.mean(values), 1) if values else None


def cost_row(case: Case, args, target, pids: list[int], seen: set, seed: int) -> dict:
    """Server CPU of one student alone on ``case`` (``_probe``): ``args.cost_samples`` page
    loads (each a new session), as many moves to new values (misses) and back (hits)."""
    n = args.cost_samples
    probe = argparse.Namespace(**{**vars(args), "values": 0, "follow": False})  # a miss: any value of the grid
    loads, misses, hits, what = asyncio.run(_probe(case, probe, target, pids, seen, seed, n, loads=n))
    return {
        "page": case.name,
        "cpu_ms_per_load": _mean(loads),
        "cpu_ms_per_miss": _mean(misses),
        "cpu_ms_per_hit": _mean(hits),
        "samples": [len(loads), len(misses), len(hits)],
        "slider": what,
    }


def floor_costs(args) -> dict:
    """``cost_row`` of benchmarks/floor_app.py on a server of its own, after one round that
    warms it (its imports), as the app's processes are warmed before a class."""
    seen: set = set()
    with app_server(args.option, script=FLOOR_APP) as (url, pid, _):
        cost_row(FLOOR, args, loopback_target(url), [pid], seen, args.seed)
        return cost_row(FLOOR, args, loopback_target(url), [pid], seen, args.seed + 1)


def print_costs(rows: list[dict], floor: dict) -> None:
    """CPU per load, per miss and per hit, each with its ratio to the floor's."""
    print("# server CPU, one student alone (ms, mean; /proc counts in 10 ms ticks); x: times the floor's")
    print(f"{'page':<26} {'per load':>8} {'x':>5} {'per miss':>8} {'x':>5} {'per hit':>8} {'x':>5}  slider")
    keys = ("cpu_ms_per_load", "cpu_ms_per_miss", "cpu_ms_per_hit")
    for row in [floor, *rows]:
        cells = []
        for key in keys:
            value, base = row[key], floor[key]
            ratio = f"{value / base:5.1f}" if value is not None and base else f"{'-':>5}"
            cells.append(f"{'-' if value is None else f'{value:.0f}':>8} {ratio}")
        print(f"{row['page']:<26} {' '.join(cells)}  {row['slider']}")
    sys.stdout.flush()


# ---------------------------------------------------------------- server


def free_port() -> int:
    """A loopback port free now. Run by a pytest-xdist worker (the test suite), it keeps to
    a block of ports of the worker's own (as tests/app_helpers.free_port), so servers
    started at once by two workers never collide."""
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if count <= 1 or not worker[2:].isdigit():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    # the worker's own block of 20000 // count ports from 10000, below Linux's ephemeral
    # range (32768-60999) where the kernel hands out ports of its own; bind(0) cannot be
    # asked for a block (and prefers even ports for bind, leaving odd ones for connect)
    span = 20_000 // count
    low = 10_000 + int(worker[2:]) % count * span
    for port in random.sample(range(low, low + span), 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {low}..{low + span - 1}")


@contextlib.contextmanager
def app_server(options: list[str] = (), script: Path = ROOT / "app.py"):
    """The app (or ``script``) on a free loopback port, as tests/browser_support.py starts
    it; its log in a temp file.

    ``options`` are extra ``section.name=value`` config options (``runner.postScriptGC=false``).
    """
    port = free_port()
    log = Path(tempfile.mkstemp(prefix="classroom-load-", suffix=".log")[1])
    cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port)]
    cmd += ["--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    for option in options:
        name, _, value = option.partition("=")
        cmd += [f"--{name}", value]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("streamlit did not start:\n" + log.read_text(errors="replace")) from None
                time.sleep(0.3)
        yield url, proc.pid, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.contextmanager
def deployment(processes: int, *, app: Path | None = None, warm: bool = True):
    """``processes`` warmed app processes behind nginx, as docs/deploy.md recommends for one
    machine (``deploy/run_two.sh start`` on free loopback ports, in a directory of its own):
    (proxy URL, the processes' pids, their logs). Stopped when the block ends. ``app``: another
    script than the app (``browser_feel.py --deploy`` runs its floor page so); ``warm``: False
    skips the warm-up (which opens the app's lesson views)."""
    run_dir = Path(tempfile.mkdtemp(prefix="classroom-load-deploy-"))
    # nginx started as root runs its workers as an unprivileged user, who must reach the
    # static files' cache in this folder (mkdtemp makes it private to its owner)
    run_dir.chmod(0o755)
    ports = []
    while len(ports) < processes + 1:
        port = free_port()
        if port not in ports:
            ports.append(port)
    env = {
        **os.environ,
        "RUN_DIR": str(run_dir),
        "PROXY_PORT": str(ports[0]),
        "BACKEND_PORTS": " ".join(map(str, ports[1:])),
        "PYTHON": sys.executable,
        "WARM": "1" if warm else "0",
    }
    if app is not None:
        env["APP"] = str(app)
    script = ["bash", str(ROOT / "deploy" / "run_two.sh")]
    started = subprocess.run([*script, "start"], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    try:
        if started.returncode != 0:
            raise SystemExit(f"deploy/run_two.sh start failed:\n{started.stdout}{started.stderr}")
        if warm:
            print("# " + " / ".join(line for line in started.stdout.splitlines() if line.startswith("warmed")))
        pids = [int(p.read_text()) for p in sorted(run_dir.glob("app-*.pid"))]
        logs = sorted((run_dir / "logs").glob("app-*.log"))
        yield f"http://127.0.0.1:{ports[0]}", pids, logs
    finally:
        subprocess.run([*script, "stop"], cwd=ROOT, env=env, capture_output=True, check=False)
        shutil.rmtree(run_dir, ignore_errors=True)  # its tracebacks are counted in the rows


def loopback_target(url: str) -> tuple[str, int]:
    parsed = urlparse(url)
    if parsed.scheme != "http" or not parsed.hostname or parsed.path not in ("", "/"):
        raise SystemExit(f"--url must look like http://127.0.0.1:PORT, not {url!r}")
    address = socket.gethostbyname(parsed.hostname)
    if not ipaddress.ip_address(address).is_loopback:
        raise SystemExit(f"--url must be a loopback address; {parsed.hostname} is {address}")
    return parsed.hostname, parsed.port or 80


# ---------------------------------------------------------------- report


def summary(name: str, case: Case, s: Stats, args) -> dict:
    slow_budget = SLOW_PAGES.get(case.page, BUDGET_MS)
    row = {
        "page": name,
        "students": s.students,
        "load_avg_1_5_15": [round(x, 2) for x in s.load_avg],
        "loads": len(s.loads),
        "load_ms": [round(f(s.loads), 1) if s.loads else None for f in (statistics.median, _p95, max)],
        "moves": len(s.moves),
        "move_ms": [round(f(s.moves), 1) if s.moves else None for f in (statistics.median, _p95, max)],
        "slow_moves": len(s.slow_moves),
        "slow_move_ms": [round(f(s.slow_moves), 1) if s.slow_moves else None for f in (statistics.median, _p95, max)],
        "slow_budget_ms": slow_budget,
        "downloads": len(s.downloads),
        "download_ms": [round(f(s.downloads), 1) if s.downloads else None for f in (statistics.median, _p95, max)],
        "kb_per_load": round(statistics.mean(s.load_bytes) / 1e3, 1) if s.load_bytes else None,
        "kb_per_move": round(statistics.mean(s.move_bytes) / 1e3, 1) if s.move_bytes else None,
        "sliders": sorted(s.sliders),
        "exceptions": len(s.exceptions),
        "errors": len(s.errors),
        "error_samples": (s.exceptions + s.errors)[:5],
        "server_cpu_s": s.server_cpu_s,
        "cpu_ms_per_run": s.cpu_ms_per_run,
        "seconds": round(s.seconds, 1),
    }
    row["ok"] = (
        row["errors"] == 0
        and row["exceptions"] == 0
        and row["loads"] > 0
        and (not s.moves or _p95(s.moves) <= args.budget_ms)
        and (not s.slow_moves or _p95(s.slow_moves) <= slow_budget)
    )
    return row


def phases(stats: dict[str, Stats], window_s: float = 10.0, budget_ms: float = BUDGET_MS) -> dict:
    """The moves of one run split at the moment the last student's page had loaded: the
    arrival (loads, the most expensive runs, still coming in) and after it, and the p95 of the
    moves sent in each ``window_s`` of the run (when the slow moves happened)."""
    done = [t for s in stats.values() for t in s.load_done_at]
    arrived = max(done) if done else 0.0
    moves = [(at, ms, name) for name, s in stats.items() for at, ms in zip(s.move_at, s.moves, strict=True)]

    def describe(sample):
        ms = [m for _, m, _ in sample]
        views = {}
        for _, m, name in sample:
            views.setdefault(name, []).append(m)
        return {
            "moves": len(ms),
            "ms": [round(f(ms), 1) if ms else None for f in (statistics.median, _p95, max)],
            "views": len(views),
            "views_over_budget": sum(_p95(v) > budget_ms for v in views.values()),
        }

    buckets = {}
    for at, ms, _ in moves:
        buckets.setdefault(int(at // window_s), []).append(ms)
    return {
        "arrived_s": round(arrived, 1),
        "during_arrival": describe([m for m in moves if m[0] < arrived]),
        "after_arrival": describe([m for m in moves if m[0] >= arrived]),
        "window_s": window_s,
        "budget_ms": budget_ms,
        "p95_by_window": [[k * window_s, len(v), round(_p95(v), 1)] for k, v in sorted(buckets.items())],
    }


def print_phases(phase: dict) -> None:
    print(f"# every page had loaded {phase['arrived_s']:.1f} s after the first student came")
    for label, key in (("moves during the arrival", "during_arrival"), ("moves after it", "after_arrival")):
        d = phase[key]
        print(
            f"#   {label:<25} {d['moves']:5d} moves, ms p50/p95/max {fmt(d['ms'])}; "
            f"views with p95 > {phase['budget_ms'] / 1e3:g} s: {d['views_over_budget']} of {d['views']}"
        )
    cells = ", ".join(f"{t:g}-{t + phase['window_s']:g} s: {p:.0f} ({n})" for t, n, p in phase["p95_by_window"])
    print(f"#   p95 of the moves sent in each {phase['window_s']:g} s (moves): {cells}")


def _p95(values):
    return percentile(values, 95)


def fmt(ms: list) -> str:
    return "/".join("-" if v is None else f"{v:.0f}" for v in ms) if ms[0] is not None else "-"


def print_header(args, baseline) -> None:
    following = ", the teacher's values in order" if args.follow else ""
    print(
        f"# {args.students} students{' per page' if args.same_page else ''}, arriving within {args.window:g} s, "
        f"{args.moves} slider moves each, think {args.think[0]:g}-{args.think[1]:g} s, "
        f"slider {args.slider}, values {args.values or 'any'}{following}"
        f"{', training sliders too' if args.slow else ''}{', largest settings' if args.largest else ''}; "
        f"{os.cpu_count()} cores, load average before {baseline[0]:.2f} {baseline[1]:.2f} {baseline[2]:.2f}"
    )
    print(
        f"{'page / view':<26} {'load1':>5} {'loads':>5} {'load ms p50/p95/max':>20} {'moves':>5} "
        f"{'move ms p50/p95/max':>20} {'kB/load':>8} {'kB/move':>8} {'exc':>4} {'err':>4} {'srv CPU s':>10} "
        f"{'ms/run':>6}  budget (p95 move <= {args.budget_ms:.0f} ms)"
    )


def print_row(row: dict) -> None:
    cpu = "+".join(f"{v:.1f}" for v in row["server_cpu_s"].values()) or "-"
    print(
        f"{row['page']:<26} {row['load_avg_1_5_15'][0]:5.2f} {row['loads']:5d} {fmt(row['load_ms']):>20} "
        f"{row['moves']:5d} {fmt(row['move_ms']):>20} {row['kb_per_load'] or 0:8.0f} {row['kb_per_move'] or 0:8.0f} "
        f"{row['exceptions']:4d} {row['errors']:4d} {cpu:>10} {row['cpu_ms_per_run'] or 0:6.0f}  "
        f"{'ok' if row['ok'] else 'MISSED'}"
    )
    if row["slow_moves"]:
        print(
            f"{'  training sliders':<26} {'':>5} {'':>5} {'':>20} {row['slow_moves']:5d} {fmt(row['slow_move_ms']):>20}"
            f"  (own budget: p95 <= {row['slow_budget_ms'] / 1e3:.0f} s)"
        )
    if row["downloads"]:
        print(f"{'  downloads':<26} {row['downloads']:5d} deferred CSV downloads, ms {fmt(row['download_ms'])}")
    for sample in row["error_samples"]:
        print(f"{'':<26} ! {sample}")


# ---------------------------------------------------------------- main


def _scenario_in(argv) -> str | None:
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--scenario")
    return pre.parse_known_args(argv)[0].scenario


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", help="a running server (loopback only), e.g. http://127.0.0.1:8501; default: start one")
    p.add_argument("--option", action="append", default=[], help="config option for the started server: NAME=VALUE")
    p.add_argument("--server-pid", type=int, action="append", default=[], help="with --url: count this CPU time")
    p.add_argument("--pages", nargs="+", help="page names (sinusoidal-heatmap) or lessons (sinusoidal); default all")
    p.add_argument("--all-pages", action="store_true", help="every lesson view in turn, all students on each")
    p.add_argument("--same-page", action="store_true", help="all students on one page, each page in turn")
    p.add_argument("--students", "--users", type=int, default=40)
    p.add_argument("--window", type=float, default=10.0, help="seconds over which the students arrive")
    p.add_argument("--moves", type=int, default=5, help="slider moves per student")
    p.add_argument("--think", type=float, nargs=2, default=(1.0, 4.0), metavar=("MIN", "MAX"))
    p.add_argument("--slider", default="first", help="first (as page_budget.py), random, or a URL name (d_model)")
    p.add_argument("--values", type=int, default=5, help="values the students pick from (0: any grid value)")
    p.add_argument("--slow", action="store_true", help="also move the experiments page's training sliders")
    p.add_argument("--largest", action="store_true", help="open pages at page_budget.py's LARGEST settings")
    p.add_argument("--downloads", action="store_true", help="each student also downloads one figure's CSV")
    p.add_argument("--source-ips", type=int, default=0, help="bind student i to 127.0.0.(2 + i %% N) (for ip hash)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds a page load or slider move may take")
    p.add_argument("--slow-timeout", type=float, default=300.0, help="the same for a training slider move")
    p.add_argument("--max-seconds", type=float, help="hard limit per run (default: from the settings)")
    p.add_argument(
        "--class-minutes",
        type=float,
        metavar="M",
        help="a class of M minutes: students keep making moves (up to --moves) until it ends, "
        "then leave; for memory over a whole class (set --moves high)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, help="also write the rows as JSON here")
    p.add_argument(
        "--cpu-per-miss",
        type=int,
        default=0,
        metavar="N",
        help="instead of a class: one student per view, N moves to values nobody chose, server CPU per move",
    )
    p.add_argument(
        "--warm",
        action="store_true",
        help="warm a fresh server before a class (deploy/run_two.sh): one student per view opens it "
        "and moves its first slider once; prints one line, exit status 1 on any error",
    )
    p.add_argument(
        "--scenario",
        choices=sorted(SCENARIOS),
        help="a lecture hall (benchmarks/README.md): 200 students on each lesson's default view in turn, "
        "arriving over 20 s, five moves 2-6 s apart, on --processes warmed processes behind nginx; "
        "explorers: any value of the grid (p95 <= 1 s), follow: the teacher's values (p95 <= 0.5 s); "
        "then the CPU table against the floor",
    )
    p.add_argument("--follow", action="store_true", help="every student moves to the teacher's values, in order")
    p.add_argument(
        "--processes", type=int, default=4, help="with --scenario and no --url: app processes behind nginx (4)"
    )
    p.add_argument(
        "--cost-samples",
        type=int,
        default=10,
        metavar="N",
        help="with --scenario: loads, misses and hits per page for the CPU table (0: no table)",
    )
    scenario = SCENARIOS.get(_scenario_in(argv))
    if scenario:  # the scenario's settings, unless a flag says otherwise
        p.set_defaults(
            students=200,
            window=20.0,
            moves=5,
            think=(2.0, 6.0),
            same_page=True,
            values=scenario["values"],
            follow=scenario["follow"],
        )
    args = p.parse_args(argv)
    args.budget_ms = scenario["budget_ms"] if scenario else BUDGET_MS
    if args.all_pages:
        args.same_page, args.pages = True, None
    if args.warm:  # one student per view, whatever else was asked
        args.same_page = args.slow = args.downloads = False
        args.moves, args.values, args.think = 1, 5, (0.2, 0.5)
    if not 1 <= args.students <= 500 or args.moves < 0 or args.window < 0 or not 0 <= args.think[0] <= args.think[1]:
        p.error("need 1..500 students, moves >= 0, window >= 0 and 0 <= think MIN <= MAX")
    if not 0 <= args.source_ips <= 250:
        p.error("--source-ips must be 0..250")
    if args.class_minutes is not None and args.class_minutes <= 0:
        p.error("--class-minutes must be above 0")
    if args.max_seconds is None:
        per_move = args.think[1] + (args.slow_timeout if args.slow else args.timeout)
        args.max_seconds = args.window + args.timeout * 2 + args.moves * per_move + 30
        if args.class_minutes:
            args.max_seconds = min(args.max_seconds, args.class_minutes * 60 + args.timeout * 2 + 30)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    chosen = pick_cases(args.pages, default_cases() if args.scenario else None)
    if args.largest:
        chosen = [Case(c.name, c.page, c.url_path, {**LARGEST.get(c.page, {}), **c.query}) for c in chosen]
    by_name = {c.name: c for c in chosen}
    baseline = os.getloadavg()
    rng = random.Random(args.seed)

    def arrivals(n):
        return sorted(rng.uniform(0, args.window) for _ in range(n))

    if args.warm:
        args.students = len(chosen)

    if args.same_page:  # the classroom: everybody on one page, each page in turn
        plans = [[(c, t) for t in arrivals(args.students)] for c in chosen]
    else:  # the students spread over the pages
        plans = [[(chosen[i % len(chosen)], t) for i, t in enumerate(arrivals(args.students))]]

    floor = None
    if args.scenario and args.cost_samples and (args.server_pid or not args.url):
        floor = floor_costs(args)  # before the app's processes start: a quiet machine

    with contextlib.ExitStack() as stack:
        if args.url:
            url, pids, log = args.url, args.server_pid, None
        elif args.scenario:
            url, pids, log = stack.enter_context(deployment(args.processes))
        else:
            url, pid, log = stack.enter_context(app_server(args.option))
            pids = [pid]
        target = loopback_target(url)
        if args.warm:
            return warm(plans[0], args, target, pids, log)
        if args.cpu_per_miss:
            if not pids:
                raise SystemExit("--cpu-per-miss needs the server's pid (--server-pid with --url)")
            print(
                f"# CPU per cache miss: {args.cpu_per_miss} moves per view, slider {args.slider}; "
                f"{os.cpu_count()} cores, load average {baseline[0]:.2f}"
            )
            args.values = 0  # any value of the grid, each once
            rows = cpu_per_miss(chosen, args, target, pids)
            if args.json:
                args.json.write_text(json.dumps({"args": _jsonable(vars(args)), "cpu_per_miss": rows}, indent=1))
            return 0
        print_header(args, baseline)
        rows, phase_rows, cost_rows = [], [], []
        seen: set = set()
        for number, plan in enumerate(plans):
            if floor:  # one student alone first: CPU per load, miss and hit on this page
                cost_rows.append(cost_row(plan[0][0], args, target, pids, seen, args.seed + number))
            stats = run(plan, args, target, pids, log, args.seed + number)
            for name, s in stats.items():
                rows.append(summary(name, by_name[name], s, args))
                print_row(rows[-1])
            if not args.same_page or args.scenario:  # when were the slow moves: during the arrival?
                window = 60.0 if args.class_minutes else 10.0
                phase_rows.append(phases(stats, window_s=window, budget_ms=args.budget_ms))
                print_phases(phase_rows[-1])
            sys.stdout.flush()
        after = os.getloadavg()
        memory = {pid: rss_mb(pid) for pid in pids}
    if floor:
        print_costs(cost_rows, floor)
    print(
        f"# load average after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}; "
        f"server RSS MB {', '.join(f'{m:.0f}' for m in memory.values() if m) or '-'}; "
        f"client CPU {time.process_time():.1f} s"
    )
    if args.json:
        report = {"args": _jsonable(vars(args)), "rows": rows, "phases": phase_rows}
        if floor:
            report |= {"floor": floor, "costs": cost_rows}
        args.json.write_text(json.dumps(report, indent=1))
    return 0 if all(row["ok"] for row in rows) else 1


def warm(plan: list[tuple[Case, float]], args, target, pids: list[int], log: Path | None) -> int:
    """Open every view of ``plan`` once and move its first slider once: a fresh process
    imports what its pages import lazily (pandas, pyarrow, Plotly's trace classes) and
    builds each view's default figures, before a class arrives rather than under it."""
    stats = run(plan, args, target, pids, log, args.seed)
    loads = sum(len(s.loads) for s in stats.values())
    moves = sum(len(s.moves) for s in stats.values())
    problems = [p for s in stats.values() for p in s.exceptions + s.errors]
    seconds = max((s.seconds for s in stats.values()), default=0.0)
    print(
        f"warmed {target[0]}:{target[1]}: {loads} of {len(plan)} views opened, {moves} slider moves, "
        f"{len(problems)} errors, {seconds:.0f} s"
    )
    for problem in problems[:5]:
        print(f"  ! {problem}")
    return 0 if not problems and loads == len(plan) else 1


def _jsonable(d: dict) -> dict:
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in d.items()}


if __name__ == "__main__":
    raise SystemExit(main())
