"""How fast this machine runs now: the time of a fixed piece of CPU work, and the pace the
browser tests' budgets scale by (``browser_support.budget_ms``).

A test run measures it once, in its first process (pytest-xdist's controller, or the one
process of a run without workers), and hands it through the environment (``ENV``) to its
workers and to every process they start, so the time table at the end of the run
(tests/conftest.py) and every budget of the run read one number. A process started outside
a test run (tools/, benchmarks/) measures its own on first use.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import time

#: the environment variable that hands a run's calibration (seconds) to its other processes
ENV = "POSENC_TEST_CALIBRATION_S"
#: the calibration on the machine the browser tests' base budgets were tuned on: a 2-core
#: machine where, idle, it takes 18-22 ms
REFERENCE_S = 0.020
#: the most the budgets stretch: a machine (or a moment) more than this many times slower than
#: the reference is too slow to judge a page's pace by, and a stretched 30 s wait would hold a
#: run for many minutes; its waits then run out, saying what the page showed
MAX_PACE = 10.0


def calibrate() -> float:
    """Seconds a fixed piece of CPU work takes here (pure Python and NumPy, one core; the best
    of three): the suite's times divided by it tell a slow machine from a slow test."""
    import numpy as np

    rng = np.random.default_rng(0)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        total = 0
        for i in range(300_000):
            total += i % 7
        a = rng.standard_normal((256, 256))
        for _ in range(20):
            a = np.tanh(a @ a.T / 256)
        best = min(best, time.perf_counter() - start)
    return best


def measure() -> float:
    """Measure the calibration now and hand it to the processes this one starts (``ENV``)."""
    value = calibrate()
    os.environ[ENV] = repr(value)
    seconds.cache_clear()
    pace.cache_clear()
    return value


@functools.cache
def seconds() -> float:
    """The run's calibration: the one its first process measured, else one measured now."""
    try:
        return float(os.environ[ENV])
    except (KeyError, ValueError):
        return measure()


@functools.cache
def pace() -> float:
    """How many times slower than the reference machine (``REFERENCE_S``) this one runs: the
    factor every browser budget is multiplied by, never below 1 (a faster machine keeps the
    budgets tuned on the reference) and never above ``MAX_PACE``."""
    return min(MAX_PACE, max(1.0, seconds() / REFERENCE_S))


def machine_sample() -> dict[str, float]:
    """The machine's CPU time counters now (/proc/stat, seconds summed over its CPUs: ``busy``,
    ``idle``, ``iowait``, ``steal``, the time the hypervisor gave another guest), with the wall
    clock (``wall``); empty where /proc/stat cannot be read."""
    try:
        fields = open("/proc/stat", encoding="ascii").readline().split()
    except OSError:
        return {}
    tick = os.sysconf("SC_CLK_TCK")
    user, nice, system, idle, iowait, irq, softirq, steal = (int(v) / tick for v in fields[1:9])
    return {
        "wall": time.monotonic(),
        "busy": user + nice + system + irq + softirq,
        "idle": idle,
        "iowait": iowait,
        "steal": steal,
    }


def describe_machine(start: dict[str, float], end: dict[str, float]) -> list[str]:
    """Lines that tell a slow machine from a slow test, between two ``machine_sample``s: the
    CPUs this run may use, how their time was spent (busy, idle, waiting on the disk, stolen
    by the hypervisor), the load average and /dev/shm's size (Chromium's shared memory)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    lines = []
    if start and end:
        spent = {k: end[k] - start[k] for k in ("busy", "idle", "iowait", "steal")}
        total = sum(spent.values()) or 1.0
        wall = end["wall"] - start["wall"]
        lines.append(
            f"machine: {cpus} CPUs for this run; over its {wall:.0f} s they were busy {spent['busy'] / total:.0%},"
            f" idle {spent['idle'] / total:.0%}, waiting on the disk {spent['iowait'] / total:.0%},"
            f" stolen by the hypervisor {spent['steal'] / total:.0%}"
        )
    else:
        lines.append(f"machine: {cpus} CPUs for this run (no /proc/stat to say how they were spent)")
    with contextlib.suppress(OSError):
        one, five, _ = os.getloadavg()
        lines.append(f"load average at the end: {one:.1f} (1 min), {five:.1f} (5 min)")
    with contextlib.suppress(OSError):
        lines.append(f"/dev/shm: {shutil.disk_usage('/dev/shm').total / 2**30:.1f} GiB")
    return lines
