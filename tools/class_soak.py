"""A scripted class, run again and again: does class mode ever glitch in front of a room?

Two app processes behind nginx (deploy/run_two.sh, so nginx must be installed) on a fresh
SQLite file for each class; a projector tab in presenter mode, a teacher laptop, three
students and a late joiner in Chromium. The plan (a view, a multiple choice, a view, a number
and a sketch question, each through ``--rounds`` rounds, with reloads, End and Extend, and both
downloads) is tests/class_soak.py's; every page is checked after every step. Prints each
finding and the count, and exits 1 if there was any.

    .venv/bin/python tools/class_soak.py --runs 3 [--busy 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import browser_support as bs  # noqa: E402
import class_soak  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="classes in a row (default 3)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each question (default 2)")
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside it, as on a loaded machine")
    args = parser.parse_args()
    if not class_soak.nginx_installed():
        print("nginx is not installed: the soak runs two processes behind it")
        return 2
    started = time.monotonic()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        with bs.chromium() as browser:
            found = class_soak.run_classes(browser, runs=args.runs, rounds=args.rounds)
    finally:
        for loop in busy:
            loop.kill()
    for problem in found.problems:
        print(problem)
    print(
        f"{args.runs} classes, {found.steps} checked steps, {len(found.problems)} findings "
        f"in {time.monotonic() - started:.0f} s"
    )
    return 1 if found.problems else 0


if __name__ == "__main__":
    sys.exit(main())
