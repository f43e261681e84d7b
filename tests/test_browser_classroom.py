"""Classroom-grade figures, measured in the real app in headless Chromium.

Every page and every view (``CLASSROOM_PAGES``: the lessons' views, home, glossary and
references), served by ``streamlit run app.py``:

- presenter mode (``present=1``) at 1920 px wide, in the light scheme: every visible chart
  text renders at 18 px or more, with a contrast of 4.5:1 or more against what is behind
  it (paper, plot area, heatmap cell or its own box);
- a phone, 390 px wide, in the dark scheme: no two chart texts overlap, no text overlaps the
  modebar, none reaches past its chart or the screen, nothing scrolls sideways, and every
  chart text contrasts 4.5:1 or more with what is behind it, as in presenter mode;
- axe-core: no serious or critical violation at 1280 px and in presenter mode (light) and on
  the phone (dark);
- a laptop (1280 x 800) and a phone (390 x 844): every view's key controls lie wholly on the
  first screen and its chart (or table) starts on it, at least ``FIGURE_PEEK_PX`` of it showing.

Each view is loaded once per mode, in that mode's scheme (``browser_support.SCHEME``), and
measured once (the ``measured`` fixture, browser_support.Measurements); the tests then read the numbers, and so do
tests/test_browser.py's checks that every page renders at 1280 px and on a phone, and
tests/test_browser_margins.py's. Screenshots: ``artifacts/screenshots/present_light_{name}.png``
(1920 x 1080), ``phone_{name}.png`` (390 x 844, dark), ``phone_tall_{name}.png`` (390 x 2400, dark)
and ``{name}.png`` (1280 x 2600).
``tools/measure_views.py`` prints the same measurements for every view in one go.
"""

from __future__ import annotations

from collections import Counter

import pytest
from browser_support import (
    CLASSROOM_PAGES,
    FIRST_SCREEN,
    PAGES,
    contrast_violations,
    describe_axe,
    describe_contrast,
    describe_overflow,
    describe_overlap,
    describe_scroll,
    describe_text,
    min_font_violations,
    overflow_violations,
    overlap_violations,
)

# `pytest -m classroom` runs these alone
pytestmark = [pytest.mark.browser, pytest.mark.classroom]

#: presenter mode: the smallest chart text a class can read from the back of the room
PRESENT_FLOOR_PX = 18
#: a phone held at reading distance: the smallest chart text still legible (heatmap cell
#: values are printed down to this size, or not at all)
PHONE_FLOOR_PX = 9
#: WCAG 2 AA for normal text
MIN_CONTRAST = 4.5
#: how much of a view's chart (or table) must show on the first screen, under its key controls
FIGURE_PEEK_PX = 100
#: the most offending items a failure message lists
SHOWN = 25

IDS = [name for name, _ in CLASSROOM_PAGES]


def _listing(title: str, items: list, describe) -> str:
    lines = [describe(item) for item in items[:SHOWN]]
    if len(items) > SHOWN:
        lines.append(f"... and {len(items) - SHOWN} more")
    return f"{len(items)} {title}:\n  " + "\n  ".join(lines)


def _by_layer(items: list[dict]) -> str:
    counts = Counter(t["layer"] for t in items)
    smallest = {}
    for t in items:
        smallest[t["layer"]] = min(smallest.get(t["layer"], 1e9), t["font_px"])
    return ", ".join(f"{layer} x{n} (min {smallest[layer]:g}px)" for layer, n in counts.most_common())


# ------------------------------------------------------------------ presenter mode, 1920 wide


@pytest.mark.parametrize(("name", "path"), CLASSROOM_PAGES, ids=IDS)
def test_presenter_mode_chart_text_is_at_least_18px(measured, name, path):
    result = measured(name, path, "present")
    small = min_font_violations(result["report"], PRESENT_FLOOR_PX)
    if small:
        pytest.fail(
            f"{name}, presenter mode: chart text under {PRESENT_FLOOR_PX}px [{_by_layer(small)}]\n"
            + _listing("texts", small, describe_text)
        )


@pytest.mark.parametrize("mode", ["present", "phone"])
@pytest.mark.parametrize(("name", "path"), CLASSROOM_PAGES, ids=IDS)
def test_chart_text_contrast_in_the_light_and_the_dark_scheme(measured, name, path, mode):
    """Presenter mode in the light scheme, the phone in the dark (``SCHEME``): both palettes,
    the projected page's large type and the phone's small type."""
    result = measured(name, path, mode)
    low = contrast_violations(result["report"], MIN_CONTRAST)
    if low:
        pytest.fail(
            f"{name}, {mode} ({result['scheme']}): contrast under {MIN_CONTRAST}:1\n"
            + _listing("texts", low, describe_contrast)
        )


# ------------------------------------------------------------------ a phone, 390 wide


@pytest.mark.parametrize(("name", "path"), CLASSROOM_PAGES, ids=IDS)
def test_phone_chart_texts_do_not_overlap(measured, name, path):
    result = measured(name, path, "phone")
    overlaps = overlap_violations(result["report"], tol_px=1)
    if overlaps:
        pytest.fail(
            f"{name}, phone: chart texts overlap (each other or the modebar)\n"
            + _listing("overlaps", overlaps, describe_overlap)
        )


@pytest.mark.parametrize(("name", "path"), CLASSROOM_PAGES, ids=IDS)
def test_phone_chart_text_is_large_enough_to_read(measured, name, path):
    """Plotly shrinks some text to fit (a value on a narrow bar): not below PHONE_FLOOR_PX."""
    result = measured(name, path, "phone")
    small = min_font_violations(result["report"], PHONE_FLOOR_PX)
    if small:
        pytest.fail(f"{name}, phone: chart text below {PHONE_FLOOR_PX}px\n" + _listing("texts", small, describe_text))


@pytest.mark.parametrize(("name", "path"), CLASSROOM_PAGES, ids=IDS)
def test_phone_chart_texts_stay_inside_chart_and_screen(measured, name, path):
    result = measured(name, path, "phone")
    report = result["report"]
    outside = overflow_violations(report, report["viewport"]["w"])
    if outside:
        pytest.fail(
            f"{name}, phone: chart text past its chart or the screen\n" + _listing("texts", outside, describe_overflow)
        )


@pytest.mark.parametrize(("name", "path"), CLASSROOM_PAGES, ids=IDS)
def test_phone_nothing_scrolls_sideways(measured, name, path):
    result = measured(name, path, "phone")
    scroll = result["hscroll"]
    if scroll["any"]:
        pytest.fail(f"{name}, phone: horizontal scrolling\n" + _listing("scrolling", describe_scroll(scroll), str))


# ------------------------------------------------------------------ axe-core


#: (page, mode) where axe still finds a serious violation (measured 26 Nov 2026). Known, not
#: accepted: each is to be fixed, then taken off this list
AXE_NOT_YET = {
    # the dark theme's primary colour, sky blue #56B4E9, under a primary button's white label:
    # 2.3:1 (the "Join" button). Streamlit's theme has no option for that label's colour, and a
    # blue dark enough for white text is too dark for the slider values drawn in it
    ("class", "phone"): "white on the dark theme's sky-blue primary button, 2.3:1",
}


@pytest.mark.parametrize("mode", ["desktop", "present", "phone"])
@pytest.mark.parametrize(("name", "path"), CLASSROOM_PAGES, ids=IDS)
def test_axe_finds_no_serious_or_critical_violation(measured, name, path, mode, request):
    if (name, mode) in AXE_NOT_YET:
        # strict: a page that comes to pass fails here until it is taken off the list
        request.applymarker(pytest.mark.xfail(reason=AXE_NOT_YET[(name, mode)], strict=True))
    result = measured(name, path, mode)
    serious = result["axe"]
    if serious:
        pytest.fail(
            f"{name} ({mode}): axe-core, serious or critical\n"
            + "\n".join(f"  {describe_axe(v)}\n    {v['summaries'][0] if v['summaries'] else ''}" for v in serious)
        )


# ------------------------------------------------------------------ the first screen


@pytest.mark.parametrize("mode", ["desktop", "phone"])
@pytest.mark.parametrize(("name", "path"), [p for p in PAGES if p[0] != "home"], ids=[p[0] for p in PAGES[1:]])
def test_key_controls_and_chart_are_on_the_first_screen(measured, name, path, mode):
    """A student moves a view's key control while watching its chart, without scrolling
    and without the sidebar (a phone's covers the chart; there the key controls also stay
    pinned at the top while the page scrolls). What explains the chart (a view's formula,
    its conventions) comes under it, and on a phone the lesson's formula sits in "More
    about this lesson" (ui.layout.lesson_formula)."""
    result = measured(name, path, mode)
    screen = FIRST_SCREEN[mode]
    controls, figure = result["first_screen"]["controls"], result["first_screen"]["figure"]
    assert controls is not None, f"{name} ({mode}): no key controls in the main area"
    assert figure is not None, f"{name} ({mode}): no chart or table"
    assert 0 <= controls["top"] and controls["bottom"] <= screen, (
        f"{name} ({mode}): key controls at {controls['top']:.0f}-{controls['bottom']:.0f} px; "
        f"the first screen ends at {screen}"
    )
    assert figure["top"] <= screen - FIGURE_PEEK_PX, (
        f"{name} ({mode}): the chart starts at {figure['top']:.0f} px; the first screen ends at {screen}"
    )
