"""Measure every page and view of the running app for classroom-grade figures, quickly.

Starts ``streamlit run app.py`` on loopback and Debian's chromium (as the browser tests
do), opens every view of ``CLASSROOM_PAGES`` and prints one line per view and mode:

- ``present``: presenter mode at 1920 px: chart texts under 18 px, contrast under 4.5:1,
  and axe-core's serious or critical violations;
- ``phone``: 390 px: overlapping chart texts (or text under the modebar), texts past their
  chart or the screen, horizontal scrolling, axe;
- ``axe``: axe-core at 1280 px (desktop).

Each count is followed by the first three offenders. The measurements are those of
``tests/test_browser_classroom.py`` (``tests/browser_support.py``); a final table sums up
every view. Exit status 1 if anything was found.

    .venv/bin/python tools/measure_views.py [--only substring] [--mode present|phone|axe|all]
                                            [--scheme light|dark|both] [--shots] [--jobs 2]

One server, one browser and one browser context per scheme (its HTTP cache keeps the
Plotly bundle); ``--jobs`` views load at once (the next ones draw while one is measured).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import browser_support as bs  # noqa: E402

MODES = {"present": "present", "phone": "phone", "axe": "desktop"}
SHOWN = 3


def _first(items: list, describe) -> str:
    if not items:
        return "0"
    more = f" (+{len(items) - SHOWN})" if len(items) > SHOWN else ""
    return f"{len(items)} [" + "; ".join(describe(i) for i in items[:SHOWN]) + "]" + more


def violations(result: dict, floor_px: float, ratio: float) -> dict:
    """Every violation class that applies to the result's mode, as lists."""
    report, mode = result["report"], result["mode"]
    out: dict[str, list] = {}
    if mode == "present":
        out["font"] = bs.min_font_violations(report, floor_px)
        out["contrast"] = bs.contrast_violations(report, ratio)
    if mode == "phone":
        out["overlap"] = bs.overlap_violations(report, tol_px=1)
        out["overflow"] = bs.overflow_violations(report, report["viewport"]["w"])
        out["hscroll"] = bs.describe_scroll(result["hscroll"])
    if result["axe"] is not None:
        out["axe"] = result["axe"]
    if result["exceptions"]:
        out["exceptions"] = [f"{result['exceptions']} exception box(es)"]
    if result["outside"]:
        out["outside"] = result["outside"]
    return out


DESCRIBE = {
    "font": bs.describe_text,
    "contrast": bs.describe_contrast,
    "overlap": bs.describe_overlap,
    "overflow": bs.describe_overflow,
    "hscroll": str,
    "axe": bs.describe_axe,
    "exceptions": str,
    "outside": str,
}


def line(result: dict, found: dict) -> str:
    texts = [t for c in result["report"]["charts"] for t in c["texts"]]
    smallest = min((t["font_px"] for t in texts), default=None)
    head = (
        f"{result['mode']:<7} {result['scheme']:<5} {result['name']:<24} {result['seconds']:4.1f}s "
        f"charts={len(result['report']['charts'])} texts={len(texts)}"
        + (f" min={smallest:g}px" if smallest is not None else "")
    )
    parts = [f"{kind}={_first(items, DESCRIBE[kind])}" for kind, items in found.items()]
    return head + "  " + "  ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="only views whose name or path contains this")
    parser.add_argument("--mode", choices=["present", "phone", "axe", "all"], default="all")
    parser.add_argument("--scheme", choices=["light", "dark", "both"], default="light")
    parser.add_argument("--shots", action="store_true", help="also write the screenshots the tests write")
    parser.add_argument("--no-axe", action="store_true", help="skip axe in presenter mode and on the phone")
    parser.add_argument("--jobs", type=int, default=2, help="views loading at once (default 2)")
    parser.add_argument("--floor", type=float, default=18.0, help="smallest chart text in presenter mode, px")
    parser.add_argument("--ratio", type=float, default=4.5, help="smallest contrast")
    parser.add_argument("--json", type=Path, help="also write every measurement here")
    args = parser.parse_args(argv)

    pages = [(n, p) for n, p in bs.CLASSROOM_PAGES if args.only in n or args.only in p]
    if not pages:
        parser.error(f"no view matches {args.only!r}")
    modes = ["present", "phone", "axe"] if args.mode == "all" else [args.mode]
    schemes = ["light", "dark"] if args.scheme == "both" else [args.scheme]
    jobs = [(s, m, n, p) for s in schemes for m in modes for n, p in pages]

    t0 = time.monotonic()
    results, summary = [], {}
    failed = False
    with bs.serve() as url, bs.chromium() as browser:
        # one context per scheme (its HTTP cache keeps the Plotly bundle), ``--jobs`` tabs in each
        contexts = {s: browser.new_context(color_scheme=s) for s in schemes}
        idle = {s: [bs.ViewTab(contexts[s], s) for _ in range(max(1, args.jobs))] for s in schemes}
        pending: deque = deque()
        todo = deque(jobs)

        def broken(tab, mode: str, name: str, exc: Exception) -> None:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            print(f"{MODES[mode]:<7} {tab.scheme:<5} {name:<24} ERROR {type(exc).__name__}: {first}", flush=True)
            summary.setdefault(name, {})[(MODES[mode], tab.scheme)] = {"error": True}
            with contextlib.suppress(Exception):  # it may have crashed: a new tab for the next view
                tab.close()
            idle[tab.scheme].append(bs.ViewTab(contexts[tab.scheme], tab.scheme))

        while todo or pending:
            # start loading while a tab is free: the browser draws these while one is measured
            while todo and idle[todo[0][0]]:
                scheme, mode, name, path = todo.popleft()
                tab = idle[scheme].pop()
                try:
                    tab.open(url, path, MODES[mode])
                except Exception as exc:  # one broken view must not hide the others
                    failed = True
                    broken(tab, mode, name, exc)
                    continue
                pending.append((tab, mode, name))
            if not pending:
                continue
            tab, mode, name = pending.popleft()
            try:
                axe = mode == "axe" or not args.no_axe
                result = tab.measure(name, MODES[mode], axe=axe, shots=args.shots)
            except Exception as exc:
                failed = True
                broken(tab, mode, name, exc)
                continue
            idle[tab.scheme].append(tab)
            scheme = tab.scheme
            found = violations(result, args.floor, args.ratio)
            failed |= any(found.values())
            print(line(result, found), flush=True)
            results.append(result)
            summary.setdefault(name, {})[(result["mode"], scheme)] = {
                "min_px": min((t["font_px"] for c in result["report"]["charts"] for t in c["texts"]), default=None),
                **{k: len(v) for k, v in found.items()},
                "axe_ids": [v["id"] for v in found.get("axe", [])],
            }
        for tabs in idle.values():
            for tab in tabs:
                tab.close()
        for context in contexts.values():
            context.close()

    print(f"\n{len(jobs)} view loads in {time.monotonic() - t0:.0f} s")
    print(
        f"{'view':<24} {'present: min px / <floor / contrast':<36} {'phone: overlap / overflow / hscroll':<36} axe ids"
    )
    for name, _ in pages:
        rows = summary.get(name, {})
        cells = []
        for scheme in schemes:
            p = rows.get(("present", scheme))
            if p and not p.get("error"):
                cells.append(f"{scheme[0]}:{p['min_px'] or '-'}/{p.get('font', 0)}/{p.get('contrast', 0)}")
            elif p:
                cells.append(f"{scheme[0]}:ERROR")
        ph = [rows.get(("phone", s)) for s in schemes if rows.get(("phone", s))]
        phone = " ".join(
            "ERROR"
            if r.get("error")
            else f"{r.get('overlap', 0)}/{r.get('overflow', 0)}/{'yes' if r.get('hscroll') else 'no'}"
            for r in ph
        )
        axe_ids = sorted({i for r in rows.values() for i in r.get("axe_ids", [])})
        print(f"{name:<24} {' '.join(cells) or '-':<36} {phone or '-':<36} {','.join(axe_ids) or '-'}")

    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
