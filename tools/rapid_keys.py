"""Key presses faster than a lesson's fragment reruns: does the page survive?

Starts the app (tests/browser_support.serve), opens a view in headless Chromium, presses
ArrowRight three times in a row on a slider (its accessible name), and watches the app's
root for up to 15 s. Prints, per trial, whether the run ended ("ok") or the page went blank
("BLANK": Streamlit's root is gone; the browser console said "Bad delta path index" or
"Cannot set a node at a delta path"). On this 2-core machine with three busy processes
beside it, 4 to 7 of 14-16 trials on ALiBi's "Number of heads H" went blank; with the
lesson drawn without its fragment, 0 of 14.

    .venv/bin/python tools/rapid_keys.py --trials 14 --path alibi --label "Number of heads H"
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import browser_support as bs  # noqa: E402

STATE_JS = """() => { const a = document.querySelector('[data-testid="stApp"]');
  return a ? a.dataset.testScriptState : 'BLANK'; }"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=14)
    parser.add_argument("--path", default="alibi")
    parser.add_argument("--label", default="Number of heads H")
    args = parser.parse_args()
    blank = 0
    with bs.serve() as url, bs.chromium() as browser:
        for trial in range(args.trials):
            page, _ = bs.open_in_browser(browser, f"{url}/{args.path}")
            errors: list[str] = []
            page.on("console", lambda m, errors=errors: errors.append(m.text[:120]) if m.type == "error" else None)
            bs.wait_idle(page)
            thumb = page.locator(f'input[type="range"][aria-label="{args.label}"]').first
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
            print(trial, state, errors[-1] if errors and state != "ok" else "", flush=True)
            page.close()
    print(f"blank {blank} of {args.trials}")
    return 1 if blank else 0


if __name__ == "__main__":
    raise SystemExit(main())
