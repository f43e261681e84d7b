"""Charts are drawn once: the margins the server sends already hold the axes' labels and titles.

Plotly's automargin widens a margin that is too small for an axis and then draws the whole
chart again (``figures.margins``). After its draw, a chart whose left margin is wider than
the one sent was drawn twice. The bottom margin is checked where only the x axis pushes it
(not under a legend laid below the plot), and not where Plotly turned the x labels because
they did not fit side by side (that depends on the chart's width in the browser, which the
server does not know). A chart with a colour bar has its right, top and bottom margins checked,
and one with a legend above the plot its top margin (not on a phone, where it may wrap).

The margins are read on the classroom measurement's loads (tests/test_browser_classroom.py):
at 1280 px, in presenter mode at 1920 px (light scheme) and on a 390 px phone.
"""

from __future__ import annotations

import pytest
from browser_support import PAGES

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
#: each setting of the check and the classroom measurement's mode that loads it: 1280 px,
#: presenter mode at 1920 px, a 390 px phone (browser_support.MODES)
SETTINGS = {"desktop": "desktop", "presenter": "present", "phone": "phone"}


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("name", VIEWS)
def test_no_chart_is_drawn_twice_for_its_axes(measured, name, setting):
    """Read off the classroom measurement's load of the view (the ``measured`` fixture), once
    every visible chart is drawn and its text has stopped moving."""
    charts = measured(name, dict(PAGES)[name], SETTINGS[setting])["margins"]
    assert all(c["ready"] for c in charts), f"{name} ({setting}): a chart was not drawn: {charts}"
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
