"""A lesson's controls rerun the lesson alone (``ui.layout.lesson_body``, an ``st.fragment``),
in the real app in headless Chromium: the browser asks for the fragment only, and what the
page shows and the address bar says is what a full run would give.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from browser_support import SIGNATURE_JS, budget_ms, wait_idle, wait_shown, wait_until
from streamlit.proto.BackMsg_pb2 import BackMsg

pytestmark = pytest.mark.browser

SIDEBAR_SLIDER = '[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]'


def _watch_reruns(page) -> list:
    """The ``rerun_script`` requests the page sends from now on."""
    sent: list = []

    def on_socket(ws):
        def on_frame(payload):
            if isinstance(payload, bytes):
                msg = BackMsg()
                msg.ParseFromString(payload)
                if msg.WhichOneof("type") == "rerun_script":
                    sent.append(msg.rerun_script)

        ws.on("framesent", on_frame)

    page.on("websocket", on_socket)
    return sent


def _open(browser, url: str, **size):
    page = browser.new_page(viewport=size or {"width": 1440, "height": 1000})
    reruns = _watch_reruns(page)
    page.goto(url, wait_until="domcontentloaded")
    wait_idle(page)
    wait_shown(page.locator(".js-plotly-plot .main-svg").first)
    return page, reruns


def _query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlparse(url).query)


def _move_first_sidebar_slider(page) -> None:
    before = page.evaluate(SIGNATURE_JS)
    thumb = page.locator(SIDEBAR_SLIDER).first
    thumb.focus()
    for _ in range(2):
        thumb.press("ArrowRight")
    wait_until(page, f"() => ({SIGNATURE_JS})() !== {before!r}", what="the charts redrawn")
    wait_idle(page)


def _assert_a_fresh_load_agrees(browser, page, query: dict) -> None:
    """The address bar names exactly what a fresh load of that address names, and that
    load draws the same charts: the fragment's rerun left nothing stale."""
    fresh, _ = _open(browser, page.url)
    try:
        assert _query(fresh.url) == query
        assert fresh.evaluate(SIGNATURE_JS) == page.evaluate(SIGNATURE_JS)
    finally:
        fresh.close()


def test_a_slider_reruns_the_lesson_alone_and_the_link_matches_a_full_run(server, browser):
    page, reruns = _open(browser, f"{server}/sinusoidal?view=similarity")
    try:
        # opened outside the fragment: a rerun of the fragment alone leaves it open
        exercises = page.locator('[data-testid="stExpander"]').filter(has_text="Exercises (")
        exercises.get_by_text("Exercises (", exact=False).first.click()
        wait_shown(exercises.locator("details[open]"), budget_ms(10_000))
        reruns.clear()
        _move_first_sidebar_slider(page)
        assert reruns, "the move sent a rerun"
        assert all(r.fragment_id for r in reruns), "the browser asked for the lesson's fragment only"
        assert page.locator('[data-testid="stException"]').count() == 0
        assert exercises.locator("details[open]").count() == 1
        # the menu and the previous / next links are still there, drawn once
        assert page.get_by_text("Next: ", exact=False).count() == 1
        moved = _query(page.url)
        assert moved["view"] == ["similarity"]
        _assert_a_fresh_load_agrees(browser, page, moved)
    finally:
        page.close()


def test_switching_views_in_the_fragment_keeps_the_link_exact(server, browser):
    page, reruns = _open(browser, f"{server}/sinusoidal?view=similarity&d_model=64")
    try:
        assert "anchor" in _query(page.url)  # a control of the similarity view only
        reruns.clear()
        page.locator('[data-testid="stMain"] [data-testid="stRadio"]').first.get_by_text("Heatmap", exact=True).click()
        wait_until(page, "() => location.search.includes('view=heatmap')")
        wait_idle(page)
        assert reruns and all(r.fragment_id for r in reruns)
        switched = _query(page.url)
        assert "anchor" not in switched, "the old view's control left the address bar"
        assert switched["d_model"] == ["64"], "the lesson's shared control kept its value"
        _assert_a_fresh_load_agrees(browser, page, switched)
    finally:
        page.close()


def test_presenter_mode_survives_fragment_reruns(server, browser):
    page, reruns = _open(browser, f"{server}/sinusoidal?view=similarity&present=1", width=1920, height=1080)
    try:
        key_sliders = page.locator('[data-testid="stMain"] [data-testid="stSlider"]')
        shown = key_sliders.count()
        assert shown >= 1, "presenter mode puts the key control above the figure"
        before = page.evaluate(SIGNATURE_JS)
        thumb = key_sliders.first.locator('input[type="range"]')
        thumb.focus()
        for _ in range(2):
            thumb.press("ArrowRight")
        wait_until(page, f"() => ({SIGNATURE_JS})() !== {before!r}", what="the charts redrawn")
        wait_idle(page)
        assert reruns and reruns[-1].fragment_id
        assert _query(page.url)["present"] == ["1"]
        # redrawn in place: no second set of key controls, one set of speaker notes
        assert key_sliders.count() == shown
        assert page.get_by_text("Speaker notes").count() == 1
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        page.close()
