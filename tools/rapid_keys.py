"""Key presses faster than a lesson's fragment reruns: does the page survive?

Starts the app (tests/browser_support.serve), opens a view in headless Chromium, presses
ArrowRight three times in a row on a slider (its accessible name), and watches the app's
root for up to 15 s. Prints, per trial, whether the run ended ("ok") or the page went blank
("BLANK": Streamlit's root is gone; the browser console said "Bad delta path index" or
"Cannot set a node at a delta path"), and the count per lesson. ``--all`` takes every lesson
in turn, with its key control: the first slider of its first view (read with AppTest).
``--busy N`` runs N busy loops beside it, as on a loaded machine. Exits 1 if a page went blank.

    .venv/bin/python tools/rapid_keys.py --trials 14 --path alibi --label "Number of heads H"
    .venv/bin/python tools/rapid_keys.py --all --trials 20 --busy 3
    .venv/bin/python tools/rapid_keys.py --all --lessons design,models --trials 20 --busy 3
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import browser_support as bs  # noqa: E402

STATE_JS = """() => { const a = document.querySelector('[data-testid="stApp"]');
  return a ? a.dataset.testScriptState : 'BLANK'; }"""


def key_controls(only: set[str] | None = None) -> list[tuple[str, str]]:
    """(lesson path, its key control's label) for every lesson (or those whose address is in
    ``only``): the first slider of its first view."""
    from app_helpers import open_page

    from posenc_lab import course

    unknown = (only or set()) - {lesson.url_path for lesson in course.LESSONS}
    if unknown:
        raise SystemExit(f"no lesson at {', '.join(sorted(unknown))}")
    found = []
    for lesson in course.LESSONS:
        if only and lesson.url_path not in only:
            continue
        at = open_page(lesson.path)
        labels = [s.label for s in at.slider] + [s.label for s in at.select_slider]
        found.append((lesson.url_path, labels[0]))
    return found


def trials(browser, url: str, path: str, label: str, count: int) -> int:
    """``count`` trials on ``path``'s slider ``label``; how many ended on a blank page."""
    blank = 0
    for trial in range(count):
        page, _ = bs.open_in_browser(browser, f"{url}/{path}")
        errors: list[str] = []
        page.on("console", lambda m, errors=errors: errors.append(m.text[:120]) if m.type == "error" else None)
        bs.wait_idle(page)
        thumb = page.locator(f'input[type="range"][aria-label="{label}"]').first
        thumb.focus()
        state = "ok"
        try:
            for _ in range(3):
                thumb.press("ArrowRight", timeout=15_000)
            t0 = time.monotonic()
            while time.monotonic() - t0 < 15 and page.evaluate(STATE_JS) not in ("notRunning", "BLANK"):
                time.sleep(0.25)
            state = "BLANK" if page.evaluate(STATE_JS) == "BLANK" else "ok"
        except Exception as exc:  # the slider was gone: the page went blank mid-press
            state = "BLANK" if page.evaluate(STATE_JS) == "BLANK" else f"error: {str(exc)[:80]}"
        blank += state == "BLANK"
        print(path, trial, state, errors[-1] if errors and state != "ok" else "", flush=True)
        page.close()
    return blank


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=14)
    parser.add_argument("--path", default="alibi")
    parser.add_argument("--label", default="Number of heads H")
    parser.add_argument("--all", action="store_true", help="every lesson's key control in turn")
    parser.add_argument("--lessons", help="with --all: only these lessons (their addresses, comma-separated)")
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside it")
    args = parser.parse_args()
    only = set(args.lessons.split(",")) if args.lessons else None
    targets = key_controls(only) if args.all else [(args.path, args.label)]
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    counts = {}
    try:
        with bs.serve() as url, bs.chromium() as browser:
            for path, label in targets:
                counts[(path, label)] = trials(browser, url, path, label, args.trials)
    finally:
        for loop in busy:
            loop.kill()
    for (path, label), blank in counts.items():
        print(f"{path} ({label}): blank {blank} of {args.trials}")
    total = sum(counts.values())
    print(f"blank {total} of {args.trials * len(counts)} with {args.busy} busy loops")
    return 1 if total else 0


if __name__ == "__main__":
    raise SystemExit(main())
