"""A class follows its teacher: a teacher and N students over Streamlit's own protocol.

Run: ``python benchmarks/class_follow.py`` (a class of 40, then one of 200, on a server it
starts with a fresh SQLite class database; ``--postgres`` for a throwaway PostgreSQL one;
``--url``/``--db`` for a running deployment such as deploy/run_two.sh; benchmarks/README.md
says what it prints).

Everything goes through the pages, as a browser would (the websocket client is
class_poll.py's ``PageClient``, which reruns a page's ``run_every`` fragments as the frontend does):

- the teacher loads ``/class`` and presses "Start a class"; each student loads the join link
  within ``--arrive`` seconds, submits the join form and waits on the class page, whose check
  (a fragment) reruns every second;
- once every student is in, the server's CPU is read over ``--idle`` seconds: what a waiting
  class's checks cost;
- send 1: the teacher opens RoPE's rotation view at r = 7 in the same session (as a menu link
  does) and presses "Send the class here" (a press inside the teacher bar's fragment: that
  fragment's rerun, as the frontend sends it). A student's screen shows the view when the
  server has navigated its page to the lesson and that run has finished; its address must
  hold the teacher's r = 7;
- send 2: the teacher opens ALiBi's slopes and sends again: now from a lesson (its class
  banner checks every second) to another lesson.

A room screen (``/class?room=CODE&present=1``, its own session, its check rerun every
second as the frontend does) watches the class throughout: for each send, and for
``--room-sends`` more sends that alternate between the two views, the time from the
teacher's press to the room screen's run that draws "The class is on <the view>".

Per send it prints the students there out of the class, p50/p95/max in ms from the press
to each student's page drawn at the view, session errors and the server's CPU seconds; the
CPU a second of the waiting class; and the room screen's p50/p95/max over every send. Exit
status 1 if a student does not arrive, a session fails, or (for a class of at most 40, the
issue's target) a send's p95 exceeds ``--target`` (2 s) or the room screen's p95 exceeds
``ROOM_TARGET_MS`` (1 s). Only loopback addresses are used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from class_poll import PageClient, checked_class_arguments, class_arguments, class_server, text_state, trigger  # noqa: E402
from classroom_load import SessionError, Stats, cpu_seconds, loopback_target, percentile, rss_mb  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from posenc_lab import course as lessons  # noqa: E402
from posenc_lab.classroom import follow as class_follow  # noqa: E402
from posenc_lab.classroom import store as class_store  # noqa: E402

TARGET_UP_TO = 40
#: the room screen: the teacher's press to the room drawn at the view, p95 (issue 51)
ROOM_TARGET_MS = 1000.0
#: the two sends: (the lesson's URL path, its query), the second from a lesson to another
SENDS = [("rope", "view=rotation&gap=7"), ("alibi", "view=slopes")]
SEND_BUTTON = "Send the class here"


class FollowClient(PageClient):
    """A page client that notes when the server takes its page to another page (a send
    followed), when that page's run finishes, and which fragment drew each button."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.arrived: dict[str, tuple[float, str]] = {}  # url path -> (perf_counter drawn, query)
        self._landing = ""  # the page hash the server navigated to, until its run finishes
        self.fragment_of_hash: dict[str, str] = {}  # message hash -> the fragment that drew it
        self.button_fragment: dict[str, str] = {}  # button label -> fragment id ("" for none)

    def handle(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            if element.WhichOneof("type") == "button":
                self.button_fragment[element.button.label] = msg.delta.fragment_id
                if msg.hash:
                    self.fragment_of_hash[msg.hash] = msg.delta.fragment_id
        elif kind == "ref_hash" and msg.ref_hash in self.fragment_of_hash:
            seen = self.element_of.get(msg.ref_hash)
            if seen is not None and seen[0] == "button":
                self.button_fragment[seen[1].label] = self.fragment_of_hash[msg.ref_hash]
        before = self.page_hash
        super().handle(msg)
        if self.page_hash != before:
            # the server took the page elsewhere (new_session names it first, then navigation):
            # the frontend drops the old page's fragment timers
            self.fragments = {}
            self._landing = self.page_hash
        if (
            kind == "script_finished"
            and self._landing
            and msg.script_finished
            in (
                ForwardMsg.FINISHED_SUCCESSFULLY,
                ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
            )
        ):
            self.arrived.setdefault(self.pages.get(self._landing, self._landing), (time.perf_counter(), self.query))
            self._landing = ""

    async def open_page(self, url_path: str, query: str) -> None:
        """Go to another page of the app in this session, as a menu link does."""
        by_path = {path: page_hash for page_hash, path in self.pages.items()}
        if url_path not in by_path:
            raise SessionError(f"the app has no page {url_path!r}")
        async with self.lock:
            self.page_hash, self.query, self.fragments = by_path[url_path], query, {}
            self._landing = ""
        await self.run_page()
        self.arrived.pop(url_path, None)

    async def press_in_fragment(self, label: str) -> float:
        """Press the button ``label`` as the frontend does (its fragment's rerun, or a full run
        for a button outside fragments); returns the perf_counter of sending the press."""
        proto = self.widget("button", label)
        fragment = self.button_fragment.get(label, "")
        async with self.lock:
            self.widget_states = {proto.id: trigger(proto)}
            sent = time.perf_counter()
            payload = self._rerun(first=False, fragment_id=fragment, auto=False)
            await self._run_script(payload, self.args.timeout)
        return sent


@dataclass
class Send:
    to: str
    pressed: float = 0.0
    latencies: list = field(default_factory=list)  # ms, press -> the student's page drawn at the view
    wrong: int = 0  # arrived with other settings than the teacher's
    cpu_s: float | None = None


@dataclass
class FollowRun:
    students: int
    joined: int = 0
    idle_cpu_per_s: float | None = None
    sends: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    seconds: float = 0.0
    room: list = field(default_factory=list)  # ms, each send's press -> the room screen drawn at the view
    room_missed: int = 0  # sends the room screen did not show within the timeout


class RoomWatch:
    """The room screen's session, noting when a text it draws first names what it waits for."""

    def __init__(self, client: PageClient):
        self.client, self.wanted, self.drawn = client, None, None
        client.on_text = self._text

    def _text(self, body: str) -> None:
        if self.wanted is not None and self.drawn is None and self.wanted in body:
            self.drawn = time.perf_counter()

    def expect(self, url_path: str, query: str) -> None:
        self.drawn = None
        self.wanted = f"The class is on **{class_follow.describe(lessons.COURSE, f'{url_path}?{query}')}**"

    async def wait(self, pressed: float, timeout: float) -> float | None:
        """ms from ``pressed`` to the room drawn at the view, or None past ``timeout``."""
        deadline = time.monotonic() + timeout
        while self.drawn is None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return None if self.drawn is None else max(0.0, self.drawn - pressed) * 1e3


async def _student(number: int, arrival: float, code: str, args, target, stats, ready, stop, clients: list) -> None:
    student = FollowClient(number, {"class": code}, args, target, stats)
    clients.append(student)
    try:
        await asyncio.sleep(arrival)
        await student.load()
        await student.run_page(
            [
                text_state(student.widget("text_input", "Class code"), code),
                text_state(student.widget("text_input", "Nickname (optional)"), f"student {number}"),
                trigger(student.widget("button", "Join")),
            ]
        )
        if "student=" not in student.query:
            raise SessionError(f"not in the class after joining: {student.texts[:3]}")
        ready(True)
        await student.keep_fragments(stop)
    except Exception as exc:  # this student's session error, not the script's
        stats.errors.append(f"student {number}: {type(exc).__name__}: {exc}")
        ready(False)
    finally:
        await student.close()


def _cpu(pids: list[int]) -> float | None:
    values = [cpu_seconds(pid) for pid in pids]
    return None if any(v is None for v in values) else sum(values)


async def one_class(size: int, args, target, pids: list[int]) -> FollowRun:
    run = FollowRun(size)
    stats = Stats()
    stop = asyncio.Event()
    teacher = FollowClient(-1, {}, args, target, stats)
    await teacher.load()
    await teacher.run_page([trigger(teacher.widget("button", "Start a class"))])
    found = re.search(rf"class=([A-Z2-9]{{{class_store.CODE_LENGTH}}})\b", "\n".join(teacher.texts))
    if not found:
        raise SessionError("the teacher's page shows no join link after Start a class")
    code = found.group(1)
    keeper = asyncio.create_task(teacher.keep_fragments(stop))
    room_client = PageClient(-2, {"room": code, "present": "1"}, args, target, stats)
    await room_client.load()
    room = RoomWatch(room_client)
    room_keeper = asyncio.create_task(room_client.keep_fragments(stop))
    all_in = asyncio.Event()
    waiting = [size]

    def ready(ok: bool) -> None:
        run.joined += ok
        waiting[0] -= 1
        if waiting[0] == 0:
            all_in.set()

    clients: list[FollowClient] = []
    rng = random.Random(args.seed + size)
    arrivals = sorted(rng.uniform(0, args.arrive) for _ in range(size))
    tasks = [
        asyncio.create_task(_student(i, t, code, args, target, stats, ready, stop, clients))
        for i, t in enumerate(arrivals)
    ]
    try:
        await asyncio.wait_for(all_in.wait(), args.arrive + 2 * args.timeout)
        # what a class waiting on the class page costs: every page's check, every second
        cpu0, t0 = _cpu(pids), time.perf_counter()
        await asyncio.sleep(args.idle)
        cpu1 = _cpu(pids)
        if cpu0 is not None and cpu1 is not None:
            run.idle_cpu_per_s = (cpu1 - cpu0) / (time.perf_counter() - t0)
        for url_path, query in SENDS:
            send = Send(f"{url_path}?{query}")
            await teacher.open_page(url_path, query)
            wanted = parse_qs(query)
            cpu0 = _cpu(pids)
            room.expect(url_path, query)
            send.pressed = await teacher.press_in_fragment(SEND_BUTTON)
            deadline = time.monotonic() + args.timeout
            present = [c for c in clients if "student=" in c.query]
            while time.monotonic() < deadline and not all(url_path in c.arrived for c in present):
                await asyncio.sleep(0.05)
            cpu1 = _cpu(pids)
            send.cpu_s = None if cpu0 is None or cpu1 is None else round(cpu1 - cpu0, 1)
            for c in present:
                if url_path in c.arrived:
                    at, their_query = c.arrived[url_path]
                    send.latencies.append(max(0.0, at - send.pressed) * 1e3)
                    theirs = parse_qs(their_query)
                    send.wrong += any(theirs.get(k) != v for k, v in wanted.items())
            run.sends.append(send)
            _room_drawn(run, await room.wait(send.pressed, args.timeout))
            await asyncio.sleep(1.5)  # the class settles on the view before the next send
        for n in range(args.room_sends):
            # more sends, the two views in turn, for the room screen's percentiles
            url_path, query = SENDS[n % len(SENDS)]
            await teacher.open_page(url_path, query)
            room.expect(url_path, query)
            pressed = await teacher.press_in_fragment(SEND_BUTTON)
            _room_drawn(run, await room.wait(pressed, args.timeout))
            await asyncio.sleep(1.5)
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        for task in (keeper, room_keeper):
            with contextlib.suppress(Exception):
                await task
        await teacher.close()
        await room_client.close()
    if keeper.done() and not keeper.cancelled() and keeper.exception() is not None:
        run.errors.append(f"teacher: {type(keeper.exception()).__name__}: {keeper.exception()}")
    run.errors += stats.errors + [f"exception element: {e}" for e in stats.exceptions]
    return run


def _room_drawn(run: FollowRun, ms: float | None) -> None:
    if ms is None:
        run.room_missed += 1
    else:
        run.room.append(ms)


def measure(size: int, args, target, pids: list[int], log: Path | None) -> FollowRun:
    log_start = log.stat().st_size if log else 0
    start = time.perf_counter()
    try:
        run = asyncio.run(one_class(size, args, target, pids))
    except (SessionError, TimeoutError) as exc:
        run = FollowRun(size, errors=[f"teacher: {type(exc).__name__}: {exc}"])
    run.seconds = time.perf_counter() - start
    if log:
        with log.open("rb") as f:
            f.seek(log_start)
            tracebacks = f.read().count(b"Traceback")
        if tracebacks:
            run.errors.append(f"{tracebacks} traceback(s) in the server log")
    return run


def ms3(values: list[float]) -> str:
    if not values:
        return "-"
    return "/".join(f"{v:.0f}" for v in (statistics.median(values), percentile(values, 95), max(values)))


def verdict(run: FollowRun, args) -> list[str]:
    missed = []
    if run.joined != run.students:
        missed.append(f"{run.joined} of {run.students} joined")
    if run.errors:
        missed.append(f"{len(run.errors)} session error(s)")
    for send in run.sends:
        if len(send.latencies) != run.joined:
            missed.append(f"{send.to}: {len(send.latencies)} of {run.joined} arrived")
        if send.wrong:
            missed.append(f"{send.to}: {send.wrong} arrived with other settings")
        if run.students <= TARGET_UP_TO and send.latencies and percentile(send.latencies, 95) > args.target:
            missed.append(f"{send.to}: p95 over {args.target / 1e3:g} s")
    if len(run.sends) != len(SENDS):
        missed.append("not every send was made")
    if run.room_missed:
        missed.append(f"the room screen missed {run.room_missed} send(s)")
    if run.students <= TARGET_UP_TO and run.room and percentile(run.room, 95) > ROOM_TARGET_MS:
        missed.append(f"room screen p95 over {ROOM_TARGET_MS / 1e3:g} s")
    return missed


COLUMNS = [
    ("students", 8),
    ("send", 26),
    ("there", 9),
    ("press->view ms p50/p95/max", 26),
    ("p95", 6),
    ("srv CPU s", 9),
]


def print_run(run: FollowRun, args) -> None:
    missed = verdict(run, args)
    idle = "-" if run.idle_cpu_per_s is None else f"{run.idle_cpu_per_s:.2f}"
    for send in run.sends or [Send("-")]:
        cells = [
            run.students,
            send.to,
            f"{len(send.latencies)} of {run.joined}",
            ms3(send.latencies),
            f"{percentile(send.latencies, 95) / 1e3:.2f}s" if send.latencies else "-",
            "-" if send.cpu_s is None else f"{send.cpu_s:.1f}",
        ]
        print(" ".join(f"{cell!s:>{width}}" for cell, (_, width) in zip(cells, COLUMNS, strict=True)))
    said = "MISSED: " + "; ".join(missed) if missed else "ok"
    if not missed and run.students > TARGET_UP_TO:
        said = f"ok (every student there; the {args.target / 1e3:g} s target is for <= {TARGET_UP_TO})"
    print(
        f"{'':8} room screen: press -> drawn at the view ms p50/p95/max {ms3(run.room)} over {len(run.room)} "
        f"sends ({run.room_missed} missed; target p95 <= {ROOM_TARGET_MS / 1e3:g} s)"
    )
    print(
        f"{'':8} waiting class: server CPU {idle} s a second; {len(run.errors)} errors; "
        f"wall {run.seconds:.1f} s; {said}"
    )
    for sample in run.errors[:5]:
        print(f"{'':8} ! {sample}")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    class_arguments(p)
    p.add_argument("--arrive", type=float, default=10.0, help="seconds over which the students arrive and join")
    p.add_argument("--idle", type=float, default=5.0, help="seconds the waiting class's CPU is read over")
    p.add_argument("--room-sends", type=int, default=18, help="sends after the two, for the room screen's percentiles")
    return checked_class_arguments(p, argv, "arrive", "idle", "room_sends")


def main(argv=None) -> int:
    args = parse_args(argv)
    runs = []
    with contextlib.ExitStack() as stack:
        url, db_url, pids, log = class_server(stack, args, "class-follow-")
        target = loopback_target(url)
        where = "PostgreSQL" if db_url.startswith("postgres") else "SQLite"
        print(
            f"# a teacher sends N students to a view, over Streamlit's websocket protocol; {url}, {where} class "
            f"database; students arrive within {args.arrive:g} s and wait on /class; {os.cpu_count()} cores, "
            "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
        )
        print(" ".join(f"{name:>{width}}" for name, width in COLUMNS))
        for size in args.students:
            runs.append(measure(size, args, target, pids, log))
            print_run(runs[-1], args)
            sys.stdout.flush()
        memory = [rss_mb(pid) for pid in pids]
    print(
        f"# load average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}; server RSS MB "
        f"{', '.join(f'{m:.0f}' for m in memory if m) or '-'}; client CPU {time.process_time():.1f} s"
    )
    return 0 if not any(verdict(run, args) for run in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
