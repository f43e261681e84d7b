"""Charts are drawn once: the margins the server sends already hold the axes' labels and titles.

Plotly's automargin widens a margin that is too small for an axis and then draws the whole
chart again (``figures.margins``). After its draw, a chart whose left margin is wider than
the one sent was drawn twice. The bottom margin is checked where only the x axis pushes it
(not under a legend laid below the plot), and not where Plotly turned the x labels because
they did not fit side by side (that depends on the chart's width in the browser, which the
server does not know). A chart with a colour bar has its right, top and bottom margins checked,
and one with a legend above the plot its top margin (not on a phone, where it may wrap).
"""

from __future__ import annotations

import pytest
from browser_support import PAGES, open_in_browser, wait_idle

pytestmark = pytest.mark.browser

VIEWS = [
    "why-order",
    "sinusoidal-heatmap",
    "relative-xl",
    "alibi-slopes",
    "alibi-attention",
    "compare",
    "claims-sinusoids",
    # charts in a lesson's own columns (layout.columns)
    "choices-hybrid",
    "design-similarity",
    "rope-xpos",
]
SETTINGS = {"desktop": (1440, 1000, ""), "presenter": (1920, 1080, "present=1"), "phone": (390, 844, "")}

MARGINS_JS = """() => Array.from(document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')).map(gd => {
  const fl = gd._fullLayout, sent = (gd.layout && gd.layout.margin) || {};
  const turned = Array.from(gd.querySelectorAll('.xtick text'))
    .some(t => /rotate\\((?!0[,)])/.test(t.getAttribute('transform') || ''));
  const legendBelow = fl.showlegend && fl.legend && fl.legend.y < 0;
  const bar = gd.querySelectorAll('.colorbar').length > 0;
  return {title: String((fl.meta && (fl.meta.title || fl.meta.chart_title)) || ''),
          sent: {l: sent.l, b: sent.b, r: sent.r, t: sent.t},
          drawn: {l: fl._size.l, b: fl._size.b, r: fl._size.r, t: fl._size.t},
          xOnly: !turned && !legendBelow && !bar,
          barOnly: bar && !turned && !fl.showlegend,
          legendAbove: !bar && fl.showlegend && fl.legend && fl.legend.orientation === 'h' && fl.legend.y >= 1};
})"""


def _path(name: str) -> str:
    return dict(PAGES)[name]


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("name", VIEWS)
def test_no_chart_is_drawn_twice_for_its_axes(server, browser, name, setting):
    width, height, query = SETTINGS[setting]
    path = _path(name)
    url = f"{server}/{path}" + (("&" if "?" in path else "?") + query if query else "")
    page, _ = open_in_browser(browser, url, width=width, height=height)
    try:
        wait_idle(page)
        page.wait_for_function(
            "() => { const c = document.querySelectorAll('[data-testid=\"stMain\"] .js-plotly-plot');"
            " return c.length > 0 && Array.from(c).every(gd => gd._fullLayout && gd._fullLayout._size); }",
            timeout=30_000,
        )
        page.wait_for_timeout(500)
        charts = page.evaluate(MARGINS_JS)
    finally:
        page.close()
    assert charts
    widened = [c for c in charts if c["drawn"]["l"] > c["sent"]["l"] + 1]
    assert not widened, f"{name} ({setting}): Plotly widened the left margin (a second draw): {widened}"
    if setting != "phone":
        widened = [c for c in charts if c["xOnly"] and c["drawn"]["b"] > c["sent"]["b"] + 1]
        assert not widened, f"{name} ({setting}): Plotly widened the bottom margin (a second draw): {widened}"
    if setting != "phone":
        # a legend above the plot, in as many rows as it takes on a desktop's or a projector's
        # column (a phone's narrower chart may wrap it onto more)
        widened = [c for c in charts if c["legendAbove"] and c["drawn"]["t"] > c["sent"]["t"] + 1]
        assert not widened, f"{name} ({setting}): Plotly widened the top margin for a legend: {widened}"
    # a colour bar beside the plot (right), laid flat under it (bottom), and a heatmap's first
    # row label at the top: the margins sent hold them in every setting
    widened = [c for c in charts if c["barOnly"] and any(c["drawn"][s] > c["sent"][s] + 1 for s in "rtb")]
    assert not widened, f"{name} ({setting}): Plotly widened a margin for a colour bar (a second draw): {widened}"
