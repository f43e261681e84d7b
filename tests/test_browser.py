"""The real app in headless Chromium: every page renders, charts draw, sliders redraw them.

The ``server`` and ``browser`` fixtures (conftest.py, browser_support.py) start
``streamlit run app.py`` on a free loopback port and Debian's chromium under Playwright.
Screenshots land in ``artifacts/screenshots``.
"""

from __future__ import annotations

import pytest
from browser_support import PAGES, SHOTS, SIGNATURE_JS, open_in_browser, wait_idle

from ui.catalog import LESSONS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("name", "path"), PAGES, ids=[p[0] for p in PAGES])
def test_page_renders_without_exception_and_draws_charts(server, browser, name, path):
    page, outside = open_in_browser(browser, f"{server}/{path}")
    try:
        wait_idle(page)
        if name != "home":
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
            assert page.locator(".js-plotly-plot").count() >= 1
        assert page.locator('[data-testid="stException"]').count() == 0
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
        assert not outside, f"requests left localhost: {outside[:5]}"
    finally:
        page.close()


@pytest.mark.parametrize("path", [lesson.url_path for lesson in LESSONS])
def test_moving_a_slider_with_the_keyboard_redraws_the_chart(server, browser, path):
    page, _ = open_in_browser(browser, f"{server}/{path}")
    try:
        wait_idle(page)
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
        before = page.evaluate(SIGNATURE_JS)
        url_before = page.url
        thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first
        thumb.focus()
        for _ in range(3):
            thumb.press("ArrowRight")
        page.wait_for_function(f"() => ({SIGNATURE_JS})() !== {before!r}", timeout=30_000)
        wait_idle(page)
        assert page.url != url_before, "the new value is mirrored in the URL"
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        page.close()
