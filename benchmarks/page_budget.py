"""Server-side cost of every lesson page: rerun time and figure payload.

Run: ``python benchmarks/page_budget.py`` (``--repeat N`` reruns per setting).
For each page, at its default and at its largest settings, it prints:
- warm rerun: the median time of a rerun with nothing changed (everything cached);
- slider move: the median time of a rerun after moving the page's first slider to a
  value not seen before (the cached computations for it must be redone);
- the largest figure's JSON, as Streamlit sends it.
Budgets: a slider move under 150 ms at defaults and under 1 s at the largest
settings; no figure over 1 MB. Exit status 1 if one is missed.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from app_helpers import chart_bytes, open_page  # noqa: E402

from posenc_lab.course import LESSONS  # noqa: E402
from posenc_lab.lessons.experiments import lesson as experiments  # noqa: E402

#: the largest settings each page allows, as each lesson states them (``Lesson.largest``)
LARGEST = {lesson.path: lesson.largest for lesson in LESSONS}
#: a slider move on the experiments page trains six models: its own budget (issue 5)
SLOW_PAGES = {experiments.LESSON.path: 15_000.0}
BUDGET_MS = {"defaults": 150.0, "largest": 1000.0}
MB = 1_000_000


def measure(page: str, query: dict[str, str], repeat: int):
    at = open_page(page, query)
    assert not at.exception, [e.message for e in at.exception]
    warm = []
    for _ in range(repeat):
        start = time.perf_counter()
        at.run()
        warm.append(time.perf_counter() - start)
    slider = at.slider[0]
    low, high = int(slider.min), int(slider.max)
    step = max(1, int(getattr(slider.proto, "step", 1) or 1))
    moves = []
    value = int(slider.value)
    for i in range(repeat):
        # a fresh value each time, walking down from the current one
        value = value - step if value - step >= low else high - i * step
        start = time.perf_counter()
        at.slider(key=slider.key).set_value(value).run()
        moves.append(time.perf_counter() - start)
        assert not at.exception
    return statistics.median(warm) * 1e3, statistics.median(moves) * 1e3, max(chart_bytes(at)), slider.key


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    # AppTest runs outside a server, and Streamlit warns "missing ScriptRunContext" on every
    # page (its config resets the level of its loggers, so filter the message instead)
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: "missing ScriptRunContext" not in record.getMessage()
    )
    print(
        f"{'page / view':<24} {'setting':<9} {'warm ms':>8} {'move ms':>8} {'slider':<9} {'largest fig kB':>14}  budget"
    )
    missed = 0
    cases = [
        (lesson.path, {"view": view} if view else {}, f"{lesson.url_path}{'-' + view if view else ''}")
        for lesson in LESSONS
        for view in (lesson.views or [None])
    ]
    for page, view, name in cases:
        for setting, query in (("defaults", view), ("largest", {**LARGEST.get(page, {}), **view})):
            # a slow page trains models on every move: one move tells enough
            repeat = 1 if page in SLOW_PAGES else args.repeat
            warm, move, biggest, key = measure(page, query, repeat)
            ok = move <= SLOW_PAGES.get(page, BUDGET_MS[setting]) and biggest <= MB
            missed += not ok
            print(
                f"{name:<24} {setting:<9} {warm:8.0f} {move:8.0f} {key.removeprefix('w:'):<9} {biggest / 1e3:14.0f}"
                f"  {'ok' if ok else 'MISSED'}"
            )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
