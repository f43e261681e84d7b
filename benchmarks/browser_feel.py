"""How the app feels in a real browser: first chart after navigation, chart redrawn after a key press.

Run: ``python benchmarks/browser_feel.py`` (every lesson view; ``--pages home sinusoidal-heatmap``
for some, by view name or lesson; ``--loads 10 --moves 10`` by default; ``--url`` to use a
running server instead of starting one; ``--json out.json`` to keep the rows). ``--floor``
measures a bare Streamlit page beside them (``floor_app.py``; ``--floor-panels N`` also the
same page drawing N heatmap panels) and prints each page as times the floor's; ``--deploy N``
measures through the deployment docs/deploy.md recommends (N processes behind nginx), as a
student's link reaches it.

Playwright drives Debian's Chromium (``tests/browser_support.py``: ``chromium()`` with its
``FLAGS``, ``serve()`` for the app on a free loopback port), 1440 x 1000 px.

1. **Warm server**: one load of every measured page first, so the server's caches
   (``st.cache_data``, imports) are warm.
2. **First chart**, per page: a new browser context (empty HTTP cache); its first load is the
   **cold** load (Streamlit's ~10 MB of JavaScript fetched and compiled: a student's very first
   visit), reported but not budgeted (``--cold N``: N cold loads, each in a new context, and
   their median). Then ``--loads`` navigations (``page.goto``) of the page in that context, as
   a browser that has loaded the app before: each is a full page load and a
   new Streamlit session, with the JavaScript from the HTTP cache. **first chart ms** is measured
   inside the page: ``performance.now()`` (relative to ``performance.timeOrigin``, the
   navigation's start) at the first animation frame in which a ``.js-plotly-plot`` of the main
   area has its ``.main-svg`` and a drawn trace (an SVG trace group or a heatmap's image). A
   script added to every document (``INIT_JS``) polls for it with ``requestAnimationFrame``
   and wraps the page's ``WebSocket`` to note the time and size of every message
   (``performance.now()`` when the page handles it) and which ones are ``script_finished``
   (the top-level field of Streamlit's ``ForwardMsg``), so Playwright's round trips are not in
   any number.
3. **Redraw**: on the last loaded page, the first slider (main area before sidebar: here the
   sliders sit in the sidebar) is focused, and ``--moves`` times ArrowRight or ArrowLeft is
   pressed, alternating so values stay in range (ArrowLeft first at the maximum; ``--walk``
   keeps one direction, so each move asks for a value not computed yet). **redraw ms**, in the
   page: from the ``keydown`` (a capturing listener on ``window``) to the later of the last change
   of ``browser_support.SIGNATURE_JS`` (what every chart draws) and the ``script_finished`` of
   the run the key started, once neither has changed for ``--settle-ms``. Alternating moves
   visit two values, so after the first two the server's cache answers: this is the feel of a
   student going back and forth, not of new computations (``--walk`` for those). The
   experiments lesson's training sliders (``k``, length, width, steps, seed, fine-tune steps)
   train models for ~10 s: its views are measured for first chart only, except the
   translation view, whose ``shift`` slider is moved (reported, exempt from the budget). On
   design-train the first slider (the design's width) changes no chart, so its sin/cos pairs
   slider is moved (``REDRAW_SLIDER``).

Where the time of a warm load goes (medians): **boot** = navigation start to the websocket's
first message sent (HTML, JavaScript from cache, Streamlit's frontend starting, the socket
opening); **server** = from that message to the last websocket message the page handled before
the first chart (the script's run up to the first chart, including the wait of messages for a
busy main thread); **render** = the rest, up to the first chart drawn (React and Plotly).
boot + server + render = first chart. **run end** = the load's ``script_finished``. Also per
page: charts (Plotly charts in the main area), widgets (Streamlit input widgets anywhere),
elements (Streamlit elements), **ws kB** (websocket bytes received up to the load's run end:
the same payload bytes Playwright's ``framereceived`` gives), **http kB** (``transferSize`` of
the document and every resource of a warm load; ``cold kB`` for the cold one).

Percentiles are nearest-rank (p95 of 10 loads is the slowest). Budgets (issue 18): first chart
p95 <= 2000 ms on every page; redraw median <= 300 ms on every page but the experiments lesson's.
A page also misses when a load or a move fails (timeout, no chart, an exception box, a key
press that redrew nothing); a page with no slider (home) has no redraw to budget. Exit status
1 if any page misses. Run it on a quiet machine: the browser, the server and this script share
its cores (the load average is printed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

# importing the lessons outside a server: Streamlit warns "No runtime found" for every cached
# function (its config resets its loggers' levels, so filter the message instead)
logging.getLogger("streamlit.runtime.caching.cache_data_api").addFilter(
    lambda record: "No runtime found" not in record.getMessage()
)

import browser_support as bs  # noqa: E402
import classroom_load  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from posenc_lab.lessons.experiments import lesson as experiments  # noqa: E402

FIRST_CHART_BUDGET_MS = 2000.0
#: ``--floor``: a bare Streamlit page with one slider and one Plotly chart, measured in the same run
FLOOR_APP = ROOT / "benchmarks" / "floor_app.py"
FLOOR_NAME = "floor (bare Streamlit)"
REDRAW_BUDGET_MS = 300.0
VIEWPORT = {"width": 1440, "height": 1000}
#: the experiments lesson's views: training sliders retrain models, so no redraw budget
EXPERIMENT_PREFIX = experiments.LESSON.url_path
#: pages whose moved slider is named (its key without ``w:``); other experiments views: none.
#: design-train draws the model's input at the model's own width, so its first slider (the
#: design's width) changes a caption and no chart: its sin/cos pairs change the input drawn
REDRAW_SLIDER = {f"{EXPERIMENT_PREFIX}-translation": "shift", "design-train": "n_pairs"}

FINISHED_FIELD = ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].number
RUN_OVER = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)
COMPILE_ERROR = ForwardMsg.FINISHED_WITH_COMPILE_ERROR

#: Streamlit's input widgets, by data-testid (counted anywhere on the page)
WIDGETS = (
    "stSlider stSelectSlider stRadio stCheckbox stNumberInput stSelectbox stMultiSelect stTextInput "
    "stTextArea stButton stDownloadButton stFormSubmitButton stButtonGroup stDateInput stTimeInput "
    "stColorPicker stFileUploader stToggle"
).split()
#: a drawn trace of a Plotly chart: an SVG trace group or a heatmap's image (or a WebGL canvas)
TRACE = ".main-svg .trace, .main-svg .hm image, .main-svg .plot image, .gl-container canvas"

INIT_JS = """(() => {
  const FINISHED = $FINISHED;  // ForwardMsg.script_finished: a top-level varint field
  const feel = window.__feel = {sent: [], recv: [], finished: [], chart: null};
  // the status of a script_finished ForwardMsg, or -1: walk the top-level fields only
  const finishedStatus = buf => {
    const b = new Uint8Array(buf);
    let i = 0;
    const varint = () => {
      let v = 0, s = 1, x;
      do { x = b[i++]; v += (x & 127) * s; s *= 128; } while (x & 128 && i < b.length);
      return v;
    };
    while (i < b.length) {
      const tag = varint(), field = Math.floor(tag / 8), wire = tag & 7;
      if (wire === 0) { const v = varint(); if (field === FINISHED) return v; }
      else if (wire === 2) { const n = varint(); i += n; }  // not i += varint(): i is read first
      else if (wire === 1) i += 8;
      else if (wire === 5) i += 4;
      else return -1;
    }
    return -1;
  };
  const size = d => d instanceof ArrayBuffer ? d.byteLength : (d && d.size !== undefined ? d.size : (d ? d.length : 0));
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', e => {
        const t = performance.now();
        feel.recv.push([t, size(e.data)]);
        if (e.data instanceof ArrayBuffer) {
          const status = finishedStatus(e.data);
          if (status >= 0) feel.finished.push([t, status]);
        }
      });
    }
    send(d) { feel.sent.push([performance.now(), size(d)]); return super.send(d); }
  };
  const drawn = () => Array.from(document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot'))
    .some(gd => gd.querySelector('.main-svg') && gd.querySelector($TRACE));
  const poll = () => { if (drawn()) feel.chart = performance.now(); else requestAnimationFrame(poll); };
  requestAnimationFrame(poll);
})();""".replace("$FINISHED", str(FINISHED_FIELD)).replace("$TRACE", json.dumps(TRACE))

# done when the load's run is over and a chart is drawn, or the run has been over for `grace`
# ms without one (a page with no chart)
LOAD_DONE_JS = """([over, grace]) => {
  const f = window.__feel;
  if (!f) return null;
  const end = f.finished.find(x => over.includes(x[1]) || x[1] === $COMPILE);
  if (!end) return null;
  if (f.chart === null && performance.now() - end[0] < grace) return null;
  return true;
}""".replace("$COMPILE", str(COMPILE_ERROR))

LOAD_SNAPSHOT_JS = """() => {
  const f = window.__feel;
  const entries = performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'));
  return {sent: f.sent, recv: f.recv, finished: f.finished, chart: f.chart,
          exceptions: document.querySelectorAll('[data-testid="stException"]').length,
          http: entries.reduce((n, e) => n + (e.transferSize || 0), 0)};
}"""

# what a drawn page holds (counted once the page is ready: right after the first chart, the
# later charts of a long page are not there yet)
COUNTS_JS = """([widgets]) => {
  const q = s => document.querySelectorAll(s).length;
  return {charts: q('[data-testid="stMain"] [data-testid="stPlotlyChart"]'),
          widgets: widgets.reduce((n, w) => n + q(`[data-testid="${w}"]`), 0),
          elements: q('[data-testid="stElementContainer"]')};
}"""

# arm the measurement of one key press: a capturing keydown listener notes the press, an
# animation-frame poll notes every change of the charts' signature and the run's
# script_finished; resolves once neither changed for `settle` ms (or after `timeout` ms)
ARM_JS = """([over, settle, timeout]) => {
  const f = window.__feel;
  const sig = ($SIGNATURE);
  const m = f.move = {key: null, change: null, changes: 0, finished: null, status: null, timedOut: false};
  const seen = f.finished.length;
  let current = sig();
  if (!f.listening) {
    f.listening = true;
    const note = () => { if (f.move && f.move.key === null) f.move.key = performance.now(); };
    window.addEventListener('keydown', note, true);
  }
  f.moveDone = new Promise(resolve => {
    const t0 = performance.now();
    const tick = () => {
      const now = performance.now();
      const s = sig();
      if (s !== current) { current = s; m.change = now; m.changes++; }
      if (m.key !== null && m.finished === null) {
        const fin = f.finished.slice(seen).find(x => x[0] >= m.key && x[1] !== 2);
        if (fin) { m.finished = fin[0]; m.status = fin[1]; }
      }
      const last = Math.max(m.change === null ? -1 : m.change, m.finished === null ? -1 : m.finished);
      if (m.finished !== null && now - last >= (m.change === null ? Math.max(settle, 2000) : settle)) {
        resolve(m); return;
      }
      if (now - t0 > timeout) { m.timedOut = true; resolve(m); return; }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  return true;
}""".replace("$SIGNATURE", bs.SIGNATURE_JS)

SLIDER_INPUT = '[data-testid="stSlider"] input[type="range"], [data-testid="stSlider"] [role="slider"]'


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (p95 of 10 loads is the slowest)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else math.nan


def pick_pages(names: list[str] | None) -> list[tuple[str, str]]:
    """``browser_support.PAGES`` (name, path), or those named (a view, or a lesson's every view)."""
    if not names:
        return list(bs.PAGES)
    lesson = {name: (path.split("?")[0] or name) for name, path in bs.PAGES}
    chosen = [(n, p) for n, p in bs.PAGES if n in names or lesson[n] in names]
    unknown = [x for x in names if not any(x in (n, lesson[n]) for n, _ in bs.PAGES)]
    if unknown:
        raise SystemExit(f"unknown page(s) {unknown}; choose from {[n for n, _ in bs.PAGES]}")
    return chosen


# ---------------------------------------------------------------- one load


def load(page, url: str, timeout_s: float, *, chart: bool = True) -> dict:
    """Navigate ``page`` to ``url`` and wait for the run to end and the first chart: the load's
    numbers (ms from navigation start), or ``{"error": ...}``. A page that draws charts
    (``chart``) is waited for until its first chart, however long after the run's end a cold
    load takes to fetch and start Plotly on a busy machine; any other page 3 s past its run."""
    page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
    grace_ms = timeout_s * 1000 if chart else 3000
    try:
        page.wait_for_function(LOAD_DONE_JS, arg=[list(RUN_OVER), grace_ms], timeout=timeout_s * 1000, polling=50)
    except Exception as exc:  # a Playwright timeout: note it, go on with the next load
        return {"error": f"load did not finish in {timeout_s:.0f} s ({type(exc).__name__})"}
    s = page.evaluate(LOAD_SNAPSHOT_JS)
    end = next(t for t, status in s["finished"] if status in RUN_OVER or status == COMPILE_ERROR)
    status = next(status for t, status in s["finished"] if t == end)
    out = {
        "chart_ms": s["chart"],
        "run_end_ms": end,
        "boot_ms": s["sent"][0][0] if s["sent"] else None,
        "ws_bytes": sum(n for t, n in s["recv"] if t <= end),
        "ws_messages": sum(1 for t, _ in s["recv"] if t <= end),
        "http_bytes": s["http"],
        "exceptions": s["exceptions"],
    }
    if s["chart"] is not None and s["sent"]:
        before = [t for t, _ in s["recv"] if t <= s["chart"]]
        last = max(before) if before else out["boot_ms"]
        out["server_ms"] = last - out["boot_ms"]
        out["render_ms"] = s["chart"] - last
    errors = []
    if status == COMPILE_ERROR:
        errors.append("the script did not compile")
    if s["exceptions"]:
        errors.append(f"{s['exceptions']} exception box(es)")
    if errors:
        out["error"] = "; ".join(errors)
    return out


# ---------------------------------------------------------------- slider moves


def find_slider(page, name: str):
    """The slider to move on page ``name``: the named one (``REDRAW_SLIDER``), else the first of
    the main area, else of the sidebar; None on the experiments lesson's other views or when
    the page has no slider."""
    key = REDRAW_SLIDER.get(name)
    if key:
        loc = page.locator(", ".join(f".st-key-w-{key} {s}" for s in SLIDER_INPUT.split(", ")))
        return loc.first if loc.count() else None
    if name.startswith(EXPERIMENT_PREFIX):
        return None
    for area in ("stMain", "stSidebar"):
        loc = page.locator(", ".join(f'[data-testid="{area}"] {s}' for s in SLIDER_INPUT.split(", ")))
        if loc.count():
            return loc.first
    return None


def app_test_slider(at, name: str):
    """``find_slider``'s rule on an AppTest of page ``name`` (tests/test_app.py and
    plotly_alone.py step the same slider a student's key press moves here), or None."""
    key = REDRAW_SLIDER.get(name)
    if key:
        return at.slider(key=f"w:{key}")
    if name.startswith(EXPERIMENT_PREFIX):
        return None
    for area in (at.main, at.sidebar):
        if area.slider:
            return area.slider[0]
    return None


def step_app_test_slider(slider) -> None:
    """Move an AppTest slider one step, as one key press does (down at the maximum), and run."""
    step = slider.proto.step or 1
    value = slider.value + step if slider.value + step <= slider.max else slider.value - step
    slider.set_value(type(slider.value)(value)).run()


def slider_state(slider) -> dict:
    return slider.evaluate(
        """el => ({value: +(el.value !== undefined && el.value !== '' ? el.value : el.getAttribute('aria-valuenow')),
                   min: +(el.min || el.getAttribute('aria-valuemin')),
                   max: +(el.max || el.getAttribute('aria-valuemax')),
                   step: +(el.step || 1) || 1})"""
    )


def moves(page, name: str, count: int, *, walk: bool, settle_ms: float, timeout_s: float) -> tuple[list, list, str]:
    """``count`` key presses on the page's slider: (moves, errors, slider's label). Each move is
    ``{"redraw_ms", "server_ms", "ws_bytes", "value", "key"}``; server_ms runs from the
    websocket message the move sent to the last message handled before the charts' last change."""
    slider = find_slider(page, name)
    if slider is None:
        return [], [], "-"
    label = slider.evaluate(
        """el => { const c = el.closest('[data-testid="stElementContainer"]');
                   const k = c && Array.from(c.classList).find(x => x.startsWith('st-key-w-'));
                   return k ? k.slice(9) : (el.getAttribute('aria-label') || 'slider'); }"""
    )
    state = slider_state(slider)
    direction = -1 if state["value"] >= state["max"] else 1
    out, errors = [], []
    for _ in range(count):
        state = slider_state(slider)
        target = state["value"] + direction * state["step"]
        if target > state["max"] or target < state["min"]:
            direction = -direction
        key = "ArrowRight" if direction > 0 else "ArrowLeft"
        slider.focus()
        page.evaluate(ARM_JS, [list(RUN_OVER), settle_ms, timeout_s * 1000])
        page.keyboard.press(key)
        m = page.evaluate("() => window.__feel.moveDone", None)
        if m["timedOut"] or m["key"] is None or m["finished"] is None:
            errors.append(f"move {key}: no end of run within {timeout_s:.0f} s")
        elif m["change"] is None:
            errors.append(f"move {key} from {state['value']:g}: the run ended and no chart changed")
        else:
            feel = page.evaluate(
                "([a, b]) => ({recv: window.__feel.recv.filter(x => x[0] >= a && x[0] <= b),"
                " sent: window.__feel.sent.filter(x => x[0] >= a && x[0] <= b)})",
                [m["key"], max(m["change"], m["finished"])],
            )
            before_change = [t for t, _ in feel["recv"] if t <= m["change"]]
            server = (max(before_change) - feel["sent"][0][0]) if feel["sent"] and before_change else None
            out.append(
                {
                    "redraw_ms": max(m["change"], m["finished"]) - m["key"],
                    "server_ms": server,
                    "ws_bytes": sum(n for _, n in feel["recv"]),
                    "value": state["value"] + direction * state["step"],
                    "key": key,
                }
            )
        if not walk:
            direction = -direction
        if m["timedOut"]:
            break  # the page is stuck: the next moves would only time out too
    return out, errors, label


# ---------------------------------------------------------------- one page


def measure_page(browser, base: str, name: str, path: str, args) -> dict:
    url = f"{base}/{path}"
    chart = path.split("?")[0] not in bs.CHARTLESS
    colds, errors = [], []
    for _ in range(args.cold - 1):  # the first cold loads, each in a context of its own
        context = browser.new_context(viewport=VIEWPORT)
        context.add_init_script(INIT_JS)
        try:
            colds.append(load(context.new_page(), url, args.timeout, chart=chart))
        finally:
            context.close()
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(INIT_JS)
    try:
        page = context.new_page()
        colds.append(load(page, url, args.timeout, chart=chart))  # the last cold load, then the warm ones
        errors += [f"cold load: {c['error']}" for c in colds if c.get("error")]
        errors += ["cold load: no chart drawn" for c in colds if not c.get("error") and c.get("chart_ms") is None]
        cold = {
            "chart_ms": median([c["chart_ms"] for c in colds if c.get("chart_ms") is not None]),
            "http_bytes": colds[-1].get("http_bytes"),
            "charts": [c.get("chart_ms") for c in colds],
        }
        if math.isnan(cold["chart_ms"]):
            cold["chart_ms"] = None
        warm = []
        for _ in range(args.loads):
            result = load(page, url, args.timeout, chart=chart)
            if result.get("error"):
                errors.append(result["error"])
            if "chart_ms" in result:
                warm.append(result)
        moved, slider, counts = [], "-", {}
        if warm and warm[-1].get("run_end_ms") is not None:  # the last load ended: the page is there
            bs.wait_ready(page, charts=warm[-1]["chart_ms"] is not None, timeout_ms=int(args.timeout * 1000))
            counts = page.evaluate(COUNTS_JS, [list(WIDGETS)])
            if args.moves and warm[-1]["chart_ms"] is not None:
                moved, move_errors, slider = moves(
                    page, name, args.moves, walk=args.walk, settle_ms=args.settle_ms, timeout_s=args.timeout
                )
                errors += move_errors
    finally:
        context.close()
    return summary(name, path, cold, warm, moved, slider, counts, errors)


def summary(name: str, path: str, cold: dict, warm: list, moved: list, slider: str, counts: dict, errors: list) -> dict:
    def col(key: str, rows: list) -> list:
        return [r[key] for r in rows if r.get(key) is not None]

    charts = col("chart_ms", warm)
    if any(r.get("chart_ms") is None for r in warm):
        errors.append(f"{sum(r.get('chart_ms') is None for r in warm)} load(s) drew no chart")
    redraws = col("redraw_ms", moved)
    exempt = name.startswith(EXPERIMENT_PREFIX)
    first_ok = bool(charts) and percentile(charts, 95) <= FIRST_CHART_BUDGET_MS
    # a page without a slider (home) has nothing to redraw: "-", like a page without a chart
    redraw_ok = exempt or slider == "-" or (bool(redraws) and median(redraws) <= REDRAW_BUDGET_MS)
    return {
        "page": name,
        "path": path,
        "loads": len(warm),
        "first_chart_ms": charts,
        "first_chart_p50": median(charts),
        "first_chart_p95": percentile(charts, 95),
        "boot_p50": median(col("boot_ms", warm)),
        "server_p50": median(col("server_ms", warm)),
        "render_p50": median(col("render_ms", warm)),
        "run_end_p50": median(col("run_end_ms", warm)),
        "cold_first_chart_ms": cold.get("chart_ms"),
        "cold_first_chart_all": cold.get("charts", [cold.get("chart_ms")]),
        "cold_http_bytes": cold.get("http_bytes"),
        "http_bytes_p50": median(col("http_bytes", warm)),
        "ws_bytes_p50": median(col("ws_bytes", warm)),
        "ws_messages_p50": median(col("ws_messages", warm)),
        "charts": counts.get("charts"),
        "widgets": counts.get("widgets"),
        "elements": counts.get("elements"),
        "slider": slider,
        "moves": len(redraws),
        "redraw_ms": redraws,
        "redraw_p50": median(redraws),
        "redraw_p95": percentile(redraws, 95),
        "redraw_server_p50": median(col("server_ms", moved)),
        "move_ws_bytes_p50": median(col("ws_bytes", moved)),
        "redraw_exempt": exempt,
        "errors": errors,
        "ok": first_ok and redraw_ok and not errors,
    }


# ---------------------------------------------------------------- output


def ms(v) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.0f}"


def kb(v) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v / 1e3:.0f}"


HEADER = (
    f"{'page / view':<26} {'cold ms':>7} {'first chart p50/p95':>19} {'boot':>5} {'server':>6} {'render':>6} "
    f"{'run end':>7} {'redraw p50/p95':>14} {'srv':>5} {'slider':<9} {'charts':>6} {'widgets':>7} "
    f"{'elems':>5} {'ws kB':>6} {'http kB':>7} {'cold kB':>7} {'err':>3}  budget"
)


def count(v) -> str:
    return "-" if v is None else str(v)


def print_row(r: dict) -> None:
    if r["redraw_exempt"] and not r["moves"]:
        redraw = "exempt"
    elif r["slider"] == "-":
        redraw = "no slider"
    else:
        redraw = f"{ms(r['redraw_p50'])}/{ms(r['redraw_p95'])}"
    # the floor pages are what the pages are measured against, not pages with a budget
    verdict = "floor" if r["page"].startswith("floor") else "ok" if r["ok"] else "MISSED"
    if r["redraw_exempt"] and r["moves"]:
        redraw += "*"
    print(
        f"{r['page']:<26} {ms(r['cold_first_chart_ms']):>7} "
        f"{ms(r['first_chart_p50']) + '/' + ms(r['first_chart_p95']):>19} {ms(r['boot_p50']):>5} "
        f"{ms(r['server_p50']):>6} {ms(r['render_p50']):>6} {ms(r['run_end_p50']):>7} {redraw:>14} "
        f"{ms(r['redraw_server_p50']):>5} {r['slider']:<9} {count(r['charts']):>6} "
        f"{count(r['widgets']):>7} {count(r['elements']):>5} "
        f"{kb(r['ws_bytes_p50']):>6} {kb(r['http_bytes_p50']):>7} {kb(r['cold_http_bytes']):>7} "
        f"{len(r['errors']):>3}  {verdict}",
        flush=True,
    )


#: ``--navigate``: a click on the menu's link to a lesson, to its first chart drawn and its run over
NAVIGATE_BUDGET_MS = 2000.0
#: a page reached by the menu is there: its run is over, the address changed, a chart is drawn
ARRIVED_JS = """(old) => {
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.dataset.testScriptState === 'notRunning' && location.pathname !== old
    && !!document.querySelector('[data-testid="stMain"] .js-plotly-plot .main-svg');
}"""


def navigate(browser, base: str, lessons: list[str], args) -> list[dict]:
    """Each lesson in ``lessons`` reached ``args.navigate`` times by a click on its link in
    the side menu (no page load: Streamlit switches pages over its websocket), each from the
    lesson before it (the first from the start page): ms from the click to its first chart
    drawn and its run over, timed here (Playwright's round trip included: an upper bound)."""
    context = browser.new_context(viewport=VIEWPORT)
    times: dict[str, list[float]] = {lesson: [] for lesson in lessons}
    errors: dict[str, list[str]] = {lesson: [] for lesson in lessons}
    try:
        page = context.new_page()
        for _ in range(args.navigate):
            page.goto(base, wait_until="commit", timeout=args.timeout * 1000)
            bs.wait_idle(page)
            for lesson in lessons:
                old = page.evaluate("() => location.pathname")
                link = page.locator(f'[data-testid="stSidebar"] a[href="{lesson}"]').first
                try:
                    link.wait_for(timeout=args.timeout * 1000)
                    start = time.perf_counter()
                    link.click()
                    page.wait_for_function(ARRIVED_JS, arg=old, timeout=args.timeout * 1000, polling=20)
                except Exception as exc:  # a Playwright timeout: note it, go on from the start page
                    errors[lesson].append(f"navigation did not finish ({type(exc).__name__})")
                    break
                times[lesson].append((time.perf_counter() - start) * 1e3)
    finally:
        context.close()
    return [
        {
            "page": lesson,
            "navigations": len(times[lesson]),
            "navigate_p50": median(times[lesson]),
            "navigate_max": max(times[lesson], default=math.nan),
            "errors": errors[lesson],
            "ok": bool(times[lesson]) and max(times[lesson]) <= NAVIGATE_BUDGET_MS and not errors[lesson],
        }
        for lesson in lessons
    ]


def print_navigation(rows: list[dict]) -> None:
    print(f"# in-app navigation by the side menu (ms from the click; budget {NAVIGATE_BUDGET_MS:.0f} ms at most):")
    print(f"{'lesson':<26} {'times':>5} {'p50':>6} {'max':>6}  budget")
    for r in rows:
        verdict = "ok" if r["ok"] else "MISSED"
        print(f"{r['page']:<26} {r['navigations']:>5} {ms(r['navigate_p50']):>6} {ms(r['navigate_max']):>6}  {verdict}")


#: (label, row key) of what ``--floor`` compares
RATIOS = (("cold load", "cold_first_chart_ms"), ("first chart p50", "first_chart_p50"), ("redraw p50", "redraw_p50"))


def ratios(row: dict, floor: dict) -> dict:
    """The page's cold load, first chart and redraw (medians) as times the floor's (None
    where either has no sample)."""
    out = {"page": row["page"]}
    for _, key in RATIOS:
        value, base = row.get(key), floor.get(key)
        usable = all(isinstance(v, (int, float)) and not math.isnan(v) for v in (value, base)) and base
        out[key] = round(value / base, 2) if usable else None
    return out


def print_ratios(rows: list[dict], floor: dict) -> None:
    cells = "  ".join(f"{ms(floor[key])} ms {label}" for label, key in RATIOS)
    print(f"# as times the {floor['page']} page ({cells}; the same run):")
    print(f"{'page / view':<26} " + " ".join(f"{label:>16}" for label, _ in RATIOS))
    for row in rows:
        r = ratios(row, floor)
        print(f"{row['page']:<26} " + " ".join(f"{'-' if r[k] is None else f'{r[k]:.2f}':>16}" for _, k in RATIOS))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", help="a running server, e.g. http://127.0.0.1:8501; default: start one")
    p.add_argument("--pages", nargs="+", help="view names (sinusoidal-heatmap) or lessons (sinusoidal); default all")
    p.add_argument("--loads", type=int, default=10, help="warm loads per page (after the cold loads)")
    p.add_argument(
        "--cold", type=int, default=1, help="cold loads per page, each in a new browser context (the median)"
    )
    p.add_argument("--moves", type=int, default=10, help="slider key presses per page (0: none)")
    p.add_argument("--walk", action="store_true", help="move one way (new values) instead of back and forth")
    p.add_argument("--settle-ms", type=float, default=250.0, help="quiet time that ends a redraw")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds a load or a move may take")
    p.add_argument("--no-warm", action="store_true", help="skip the warm-up loads (the server is warm already)")
    p.add_argument("--json", type=Path, help="also write the rows as JSON here")
    p.add_argument(
        "--navigate",
        type=int,
        default=0,
        metavar="N",
        help="also reach each measured page's lesson N times by its link in the side menu, from the lesson "
        "before it: click to first chart, budget 2 s",
    )
    p.add_argument(
        "--floor",
        action="store_true",
        help="first measure benchmarks/floor_app.py (one slider, one Plotly chart) the same way, "
        "and print each page's cold load, first chart and redraw as times the floor's",
    )
    p.add_argument(
        "--floor-panels",
        type=int,
        default=0,
        metavar="N",
        help="with --floor, also measure the floor page drawing N heatmap panels (1-16) and print each "
        "page's times as times that one's too",
    )
    p.add_argument(
        "--deploy",
        type=int,
        default=0,
        metavar="N",
        help="measure through the deployment docs/deploy.md recommends: N warmed app processes behind "
        "nginx (deploy/run_two.sh), the floor behind an nginx of its own",
    )
    args = p.parse_args(argv)
    if args.loads < 1 or args.moves < 0 or args.cold < 1:
        p.error("need --loads >= 1, --cold >= 1 and --moves >= 0")
    if args.floor_panels and not (args.floor and 1 <= args.floor_panels <= 16):
        p.error("--floor-panels takes 1 to 16, with --floor")
    if args.deploy < 0 or (args.deploy and args.url):
        p.error("--deploy takes a number of processes, and no --url")
    return args


@contextlib.contextmanager
def floor_server(args):
    """The floor page's server: a Streamlit of its own, or (``--deploy``) one process behind
    an nginx of its own, configured as the app's."""
    if args.deploy:
        with classroom_load.deployment(1, app=FLOOR_APP, warm=False) as (url, _pids, _logs):
            yield url
    else:
        with bs.serve(script=FLOOR_APP) as url:
            yield url


def main(argv=None) -> int:
    args = parse_args(argv)
    chosen = pick_pages(args.pages)
    started = time.monotonic()
    before = os.getloadavg()
    rows = []
    with bs.chromium() as browser, contextlib.ExitStack() as stack:
        if args.url:
            base = args.url.rstrip("/")
        elif args.deploy:
            base = stack.enter_context(classroom_load.deployment(args.deploy))[0]
        else:
            base = stack.enter_context(bs.serve())
        warm_s = 0.0
        if not args.no_warm:
            t0 = time.monotonic()
            context = browser.new_context(viewport=VIEWPORT)
            context.add_init_script(INIT_JS)
            page = context.new_page()
            for _, path in chosen:
                load(page, f"{base}/{path}", args.timeout)
            context.close()
            warm_s = time.monotonic() - t0
        print(
            f"# {len(chosen)} page(s), {args.loads} warm loads and {args.moves} moves each; "
            f"{os.cpu_count()} cores, load average {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}; "
            f"warm-up {warm_s:.0f} s"
        )
        print(HEADER)
        floor = panels = None
        if args.floor:
            with floor_server(args) as floor_base:
                if not args.no_warm:  # its imports, as the app's warm-up pays the app's
                    context = browser.new_context(viewport=VIEWPORT)
                    context.add_init_script(INIT_JS)  # what `load` waits on
                    warmed = load(context.new_page(), floor_base, args.timeout)
                    context.close()
                    if warmed.get("error"):
                        raise SystemExit(f"the floor page did not load: {warmed['error']}")
                floor = measure_page(browser, floor_base, FLOOR_NAME, "", args)
                print_row(floor)
                if args.floor_panels:
                    name = f"floor, {args.floor_panels} panels"
                    panels = measure_page(browser, floor_base, name, f"?panels={args.floor_panels}", args)
                    print_row(panels)
        for name, path in chosen:
            rows.append(measure_page(browser, base, name, path, args))
            print_row(rows[-1])
        navigation = []
        if args.navigate:
            lessons = list(dict.fromkeys(path.split("?")[0] for _, path in chosen if path.split("?")[0]))
            navigation = navigate(browser, base, lessons, args)
            print_navigation(navigation)
    after = os.getloadavg()
    if floor is not None:
        print_ratios(rows, floor)
    if panels is not None:
        print_ratios(rows, panels)
    for r in [r for r in (floor, panels) if r] + rows:
        for e in r["errors"][:5]:
            print(f"# {r['page']}: {e}")
    print(
        f"# ms from navigation start (first chart) or key press (redraw); boot/server/render/run end and srv "
        f"(redraw's server part) are medians; * = exempt from the budget. "
        f"Load average after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}; {time.monotonic() - started:.0f} s in all"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
                    "rows": _finite(rows),
                    "floor": _finite(floor),
                    "navigation": _finite(navigation),
                    "ratios": _finite([ratios(r, floor) for r in rows]) if floor else None,
                    "floor_panels": _finite(panels),
                    "ratios_panels": _finite([ratios(r, panels) for r in rows]) if panels else None,
                },
                indent=1,
            )
        )
    for r in navigation:
        for e in r["errors"][:5]:
            print(f"# {r['page']} (navigation): {e}")
    return 0 if rows and all(r["ok"] for r in rows + navigation) else 1


def _finite(value):
    """``value`` with NaN (no sample) as None, so the file is plain JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


if __name__ == "__main__":
    raise SystemExit(main())
