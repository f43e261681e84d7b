"""Charts are drawn once: the margins the server sends already hold the axes' labels and titles.

Plotly's automargin widens a margin that is too small for an axis and then draws the whole
chart again (``figures.margins``). After its draw, a chart whose left margin is wider than
the one sent was drawn twice. The bottom margin is checked where only the x axis pushes it:
not under a colour bar or a legend laid below the plot (Plotly places those before its first
draw), and not where Plotly turned the x labels because they did not fit side by side (that
depends on the chart's width in the browser, which the server does not know).
"""

from __future__ import annotations

import pytest
from browser_support import PAGES, open_in_browser, wait_idle

pytestmark = pytest.mark.browser

VIEWS = ["why-order", "sinusoidal-heatmap", "relative-xl", "alibi-slopes", "compare", "claims-sinusoids"]
SETTINGS = {"desktop": (1440, 1000, ""), "presenter": (1920, 1080, "present=1"), "phone": (390, 844, "")}

MARGINS_JS = """() => Array.from(document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')).map(gd => {
  const fl = gd._fullLayout, sent = (gd.layout && gd.layout.margin) || {};
  const turned = Array.from(gd.querySelectorAll('.xtick text'))
    .some(t => /rotate\\((?!0[,)])/.test(t.getAttribute('transform') || ''));
  const legendBelow = fl.showlegend && fl.legend && fl.legend.y < 0;
  return {title: String((fl.meta && (fl.meta.title || fl.meta.chart_title)) || ''),
          sent: {l: sent.l, b: sent.b}, drawn: {l: fl._size.l, b: fl._size.b},
          xOnly: !turned && !legendBelow && gd.querySelectorAll('.colorbar').length === 0};
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
