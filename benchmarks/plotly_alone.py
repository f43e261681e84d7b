"""What Plotly.js alone takes to draw a page's charts again, with no Streamlit and no server.

Run: ``python benchmarks/plotly_alone.py`` (each lesson page's default view; ``--pages compare
alibi-slopes`` for some, by the names ``browser_feel.py`` takes; ``--reps 9``; ``--json out.json``).

``browser_feel.py`` measures a key press to every chart redrawn through Streamlit. This asks
what part of that no design of the page around its charts can remove: the drawing itself.
For each page, AppTest runs the view at its defaults and again with its key control (the
slider ``browser_feel.py`` moves) one step on, and keeps the Plotly specs and configs the
page sends. In Debian's Chromium (1440 x 1000), a page holding plotly.py's own plotly.js
(the same major version as Streamlit's bundle) draws them, and then alternates between the
two states ``--reps`` times, redrawing the charts the move changed (**moved**: Streamlit
keeps a chart whose spec is the same), two ways:

- **newPlot**: every chart purged and drawn anew, which is what Streamlit 1.67 does with a
  changed figure (a Plotly chart's element id hashes its spec, so a changed spec mounts a new
  chart);
- **react**: every chart updated in place with ``Plotly.react``, the cheapest redraw Plotly
  offers, which a chart kept mounted (a custom component, or the key control moved in the
  browser with no server round trip) could use.

A redraw is timed from its first call to the next animation frame after the last chart's
promise resolved (the frame that paints it). Charts sit where the page lays them out: one per
row at the main column's width, a figure split into panels (``layout.chart``, keys
``<key>__<n>``) three to a row. The floor (``floor_app.py``'s line chart, its slider one
step on) is drawn the same way in the same run, and each page's medians are printed beside
it. Medians of ``--reps``; run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
from pathlib import Path
from urllib.parse import parse_qsl

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

logging.getLogger("streamlit.runtime.caching.cache_data_api").addFilter(
    lambda record: "No runtime found" not in record.getMessage()
)

import app_helpers  # noqa: E402
import browser_feel  # noqa: E402
import browser_support as bs  # noqa: E402
import plotly  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from posenc_lab import course  # noqa: E402

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
#: the main column's width at 1440 px with the sidebar open, and a panel's in a row of three
MAIN_PX, PANEL_PX = 736, 240

PAGE_JS = r"""async ([pages, reps, mainPx, panelPx]) => {
  const painted = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const fit = (s, w) => Object.assign({}, s.layout, {width: w, height: (s.layout && s.layout.height) || 450});
  const out = {};
  for (const [name, before, after] of pages) {
    const host = document.createElement('div');
    host.style.cssText = `display:flex;flex-wrap:wrap;width:${mainPx}px`;
    document.body.appendChild(host);
    const divs = before.map(c => {
      const d = document.createElement('div');
      d.style.width = (c.panel ? panelPx : mainPx) + 'px';
      host.appendChild(d);
      return d;
    });
    const width = i => before[i].panel ? panelPx : mainPx;
    for (let i = 0; i < divs.length; i++) {
      await Plotly.newPlot(divs[i], before[i].spec.data, fit(before[i].spec, width(i)), before[i].config);
    }
    await painted();
    const draw = async (state, how) => {
      const t0 = performance.now();
      for (let i = 0; i < divs.length; i++) {
        const c = state[i];
        if (!c.changed) continue;  // Streamlit keeps a chart whose spec is the same
        if (how === 'newPlot') {
          Plotly.purge(divs[i]);
          await Plotly.newPlot(divs[i], c.spec.data, fit(c.spec, width(i)), c.config);
        } else {
          await Plotly.react(divs[i], c.spec.data, fit(c.spec, width(i)), c.config);
        }
      }
      await painted();
      return performance.now() - t0;
    };
    const times = {newPlot: [], react: []};
    for (let r = 0; r < reps; r++) {
      times.newPlot.push(await draw(r % 2 ? before : after, 'newPlot'));
      times.react.push(await draw(r % 2 ? after : before, 'react'));
    }
    out[name] = times;
    divs.forEach(d => Plotly.purge(d));
    host.remove();
  }
  return out;
}"""


def default_views() -> list[str]:
    """Each lesson page's default view (its first), by the name ``browser_feel.py`` gives it,
    but for the pages ``browser_feel.py`` moves no slider on (home; the experiments lesson's
    training views)."""
    names = [
        f"{lesson.url_path}-{next(iter(lesson.views))}" if lesson.views else lesson.url_path
        for lesson in course.LESSONS
    ]
    return [name for name in names if _moves_a_slider(name)]


def _moves_a_slider(name: str) -> bool:
    return name != "home" and (
        name in browser_feel.REDRAW_SLIDER or not name.startswith(browser_feel.EXPERIMENT_PREFIX)
    )


def _charts(at: AppTest) -> list[dict]:
    return [
        {
            "spec": json.loads(el.proto.spec),
            "config": json.loads(el.proto.config or "{}"),
            "panel": "__" in str(getattr(el, "key", "") or ""),
        }
        for el in at.get("plotly_chart")
    ]


def states(name: str) -> tuple[list[dict], list[dict]]:
    """The page's charts at its defaults and with its key control one step on."""
    url_path, _, query = dict(bs.PAGES)[name].partition("?")
    lesson = next(item for item in course.LESSONS if item.url_path == url_path)
    return _moved(app_helpers.open_page(lesson.path, dict(parse_qsl(query)) or None), name)


def floor_states() -> tuple[list[dict], list[dict]]:
    at = AppTest.from_file(str(ROOT / "benchmarks" / "floor_app.py"), default_timeout=60)
    at.run()
    return _moved(at, "floor")


def _moved(at: AppTest, name: str) -> tuple[list[dict], list[dict]]:
    if at.exception:
        raise RuntimeError(f"{name}: the page raised {at.exception[0].value}")
    before = _charts(at)
    slider = browser_feel.app_test_slider(at, name)
    if slider is None or not before:
        raise RuntimeError(f"{name}: no chart, or no slider to move")
    browser_feel.step_app_test_slider(slider)
    after = _charts(at)
    if len(after) != len(before):
        raise RuntimeError(f"{name}: {len(before)} charts before the move, {len(after)} after")
    for one, other in zip(before, after, strict=True):
        one["changed"] = other["changed"] = (one["spec"], one["config"]) != (other["spec"], other["config"])
    return before, after


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pages", nargs="+", help="view names (compare, alibi-slopes); default each lesson's first")
    p.add_argument("--reps", type=int, default=9, help="redraws of each kind per page (the median)")
    p.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = p.parse_args(argv)
    if args.reps < 1:
        p.error("--reps must be at least 1")
    known = dict(bs.PAGES)
    unknown = [name for name in args.pages or [] if name not in known]
    if unknown:
        p.error(f"unknown page(s): {', '.join(unknown)}; known: {', '.join(known)}")
    still = [name for name in args.pages or [] if not _moves_a_slider(name)]
    if still:
        p.error(f"no slider is moved on {', '.join(still)} (browser_feel.py's rule)")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    names = args.pages or default_views()
    pages = [["floor", *floor_states()]] + [[name, *states(name)] for name in names]
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "page.html"
        html.write_text(
            f'<!doctype html><html><head><script src="{PLOTLY_JS.as_uri()}"></script></head><body></body></html>'
        )
        with bs.chromium() as browser:
            tab = browser.new_page(viewport={"width": 1440, "height": 1000})
            tab.goto(html.as_uri())
            version = tab.evaluate("() => Plotly.version")
            times = tab.evaluate(PAGE_JS, [pages, args.reps, MAIN_PX, PANEL_PX])
    rows = []
    for name, before, _ in pages:
        t = times[name]
        rows.append(
            {
                "page": name,
                "charts": len(before),
                "changed": sum(c["changed"] for c in before),
                "newplot_p50": round(statistics.median(t["newPlot"]), 1),
                "react_p50": round(statistics.median(t["react"]), 1),
                "newplot_all": [round(x, 1) for x in t["newPlot"]],
                "react_all": [round(x, 1) for x in t["react"]],
            }
        )
    floor = rows[0]
    print(f"plotly.js {version} alone in Chromium, {args.reps} redraws of each kind, medians in ms")
    heads = ("charts", "moved", "newPlot", "react", "x floor newPlot", "x floor react")
    print(f"{'page':24s} " + " ".join(f"{h:>{max(len(h), 6)}s}" for h in heads))
    for row in rows:
        print(
            f"{row['page']:24s} {row['charts']:6d} {row['changed']:6d} {row['newplot_p50']:7.1f} "
            f"{row['react_p50']:6.1f} {row['newplot_p50'] / floor['newplot_p50']:15.2f} "
            f"{row['react_p50'] / floor['react_p50']:13.2f}"
        )
    if args.json:
        args.json.write_text(json.dumps({"plotly_js": version, "reps": args.reps, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
