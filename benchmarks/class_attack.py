"""Attack class mode's join limits as students' browsers would: over Streamlit's websocket
(the page client of benchmarks/class_poll.py), against a running server, usually
``deploy/run_two.sh`` (two app processes behind nginx).

Run: ``python benchmarks/class_attack.py --url http://127.0.0.1:8080 --db DB`` (DB: the
servers' POSENC_CLASS_DB). It starts a class in DB, then:

1. **guessing**: ``--guessers`` browser sessions from one address each send ``--tries`` wrong
   codes, one after another as a page answers them (the per-session limit refuses the 11th);
   it prints how many were sent, how many were answered at once (under 1 s) and the longest
   wait, and the guessing rate the address reached;
2. **a classmate** at the same address types the right code: joined or not, and in how long;
3. **a join flood**: with the class's cap set to ``--cap``, ``--flood`` sessions join it; it
   prints how many got in, how many were refused, and the refused count the teacher sees.

Loopback only. Exit status 1 if the classmate was refused or the flood passed the cap.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from class_poll import PageClient, text_state, trigger  # noqa: E402
from classroom_load import SessionError, Stats, loopback_target  # noqa: E402

from posenc_lab.classroom import store as class_store  # noqa: E402

WRONG = "ZZZZZZ"  # Z is in the code alphabet, so this is a well-formed code no class has...
#: ...as long as no class has it (create_class draws at random; checked below)


@dataclass
class Attack:
    code: str = ""
    wrong: list = field(default_factory=list)  # (ms, message) per wrong code sent
    seconds: float = 0.0
    classmate_ms: float = 0.0
    classmate_joined: bool = False
    classmate_said: str = ""
    flood_joined: int = 0
    flood_refused: int = 0
    refused_shown: int = 0
    errors: list = field(default_factory=list)


def _client(number: int, query: dict, args, target, source_ip: str | None) -> PageClient:
    client = PageClient(number, query, args, target, Stats())
    client.local_ip = source_ip
    return client


async def _submit(client: PageClient, code: str) -> tuple[float, str, bool]:
    """Type ``code`` into the join form and press Join: (ms, what the page said, joined)."""
    box = client.widget("text_input", "Class code")
    ms = await client.run_page([text_state(box, code), trigger(client.widget("button", "Join"))])
    joined = "student=" in client.query
    said = next((t for t in client.texts if "code" in t or "class" in t.lower()), "")
    return ms, said, joined


async def guesser(number: int, args, target, run: Attack) -> None:
    client = _client(number, {}, args, target, args.source_ip)
    try:
        await client.load()
        for _ in range(args.tries):
            ms, said, joined = await _submit(client, WRONG)
            if joined:
                raise SessionError("a wrong code joined a class")
            run.wrong.append((ms, said))
    except Exception as exc:  # a failed session is counted, not fatal
        run.errors.append(f"guesser {number}: {type(exc).__name__}: {exc}")
    finally:
        await client.close()


async def joiner(number: int, code: str, args, target) -> tuple[float, str, bool]:
    client = _client(number, {"class": code}, args, target, args.source_ip)
    try:
        await client.load()
        return await _submit(client, code)
    finally:
        await client.close()


async def guess(args, target, run: Attack) -> None:
    """Step 1: ``args.guessers`` sessions send ``args.tries`` wrong codes each."""
    start = time.perf_counter()
    await asyncio.gather(*(guesser(i, args, target, run) for i in range(args.guessers)))
    run.seconds = time.perf_counter() - start


async def classmate(args, target, run: Attack) -> None:
    """Step 2: a classmate at the same address types the right code."""
    try:
        run.classmate_ms, run.classmate_said, run.classmate_joined = await joiner(1000, run.code, args, target)
    except Exception as exc:
        run.errors.append(f"classmate: {type(exc).__name__}: {exc}")


async def flood(args, target, run: Attack) -> None:
    """Step 3: ``args.flood`` sessions join a class whose cap the teacher set to ``args.cap``."""
    results = await asyncio.gather(
        *(joiner(2000 + i, run.code, args, target) for i in range(args.flood)), return_exceptions=True
    )
    for result in results:
        if isinstance(result, BaseException):
            run.errors.append(f"flood: {type(result).__name__}: {result}")
        elif result[2]:
            run.flood_joined += 1
        else:
            run.flood_refused += 1


def start_class(db_url: str) -> tuple[str, str]:
    """A class in the servers' database: (code, teacher key)."""
    with class_store.open_store(db_url) as store:
        new = store.create_class("Under attack")
        if store.class_info(WRONG) is not None:
            raise SystemExit(f"a class has the code {WRONG}; use a fresh database")
    return new.code, new.teacher_key


async def attack(args, target, db_url: str) -> Attack:
    run = Attack()
    run.code, key = start_class(db_url)
    await guess(args, target, run)
    await classmate(args, target, run)
    with class_store.open_store(db_url) as store:
        store.set_cap(run.code, key, args.cap)  # the classmate holds one of its places
    await flood(args, target, run)
    with class_store.open_store(db_url) as store:
        run.refused_shown = store.class_info(run.code).refused
    return run


def report(run: Attack, args) -> int:
    times = [ms for ms, _ in run.wrong]
    at_once = sum(ms < 1000 for ms in times)
    print(
        f"guessing from {args.source_ip or '127.0.0.1'}: {len(times)} wrong codes from {args.guessers} sessions "
        f"in {run.seconds:.1f} s ({len(times) / max(run.seconds, 1e-9):.2f} a second); {at_once} answered within "
        f"1 s, the longest wait {max(times, default=0) / 1e3:.1f} s; "
        f"{sum('No class has the code' in said for _, said in run.wrong)} said 'No class has the code'"
    )
    print(
        f"a classmate with the right code, same address: {'joined' if run.classmate_joined else 'REFUSED'} "
        f"in {run.classmate_ms / 1e3:.2f} s" + ("" if run.classmate_joined else f" ({run.classmate_said})")
    )
    print(
        f"join flood, cap {args.cap} (the classmate holds one place): {run.flood_joined} of {args.flood} joined, "
        f"{run.flood_refused} refused; the teacher sees {run.refused_shown} refused"
    )
    for error in run.errors[:5]:
        print(f"  ! {error}")
    bad = not run.classmate_joined or run.flood_joined > args.cap - 1 or run.errors
    return 1 if bad else 0


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True, help="a running server, loopback only (nginx: http://127.0.0.1:8080)")
    p.add_argument("--db", required=True, help="its class database (POSENC_CLASS_DB)")
    p.add_argument("--guessers", type=int, default=4, help="browser sessions guessing codes at once")
    p.add_argument("--tries", type=int, default=8, help="wrong codes per session (the session limit is 10)")
    p.add_argument("--cap", type=int, default=5, help="the class's cap during the join flood")
    p.add_argument("--flood", type=int, default=10, help="sessions joining in the flood")
    p.add_argument("--source-ip", help="bind every session to this loopback address (default 127.0.0.1)")
    p.add_argument("--timeout", type=float, default=90.0, help="seconds a page run may take")
    args = p.parse_args(argv)
    # the page client's own settings (classroom_load.Student), as class_poll.py sets them
    args.source_ips, args.slow_timeout, args.values, args.slider, args.slow = 0, args.timeout, 0, "first", False
    args.watch = False
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    random.seed(0)
    run = asyncio.run(attack(args, loopback_target(args.url), args.db))
    return report(run, args)


if __name__ == "__main__":
    raise SystemExit(main())
