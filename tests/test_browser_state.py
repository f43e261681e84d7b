"""A lesson's settings in the real app (issue 37): moving on through the menu, a setting
made in one lesson does not arrive in another that names a control alike, d_model does,
and coming back finds the lesson as it was left.

Uses the shared ``server`` and ``browser`` fixtures (conftest.py); each test has a
browser context of its own.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from browser_support import wait_idle, wait_shown, wait_until

from posenc_lab import course as lessons

pytestmark = pytest.mark.browser


def _query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def _menu(page, url_path: str) -> None:
    """Follow the sidebar menu's link to the lesson at ``url_path``, as a student does."""
    lesson = lessons.lesson_by_url(url_path)
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name=f"{lesson.number}. {lesson.title}").click()
    wait_until(page, f"() => location.pathname.endsWith('/{url_path}')")
    wait_idle(page)


def _wait_query(page, name: str, value: str) -> None:
    wait_until(page, f"() => new URLSearchParams(location.search).get({name!r}) === {value!r}")


def test_the_sinusoids_base_and_positions_stay_in_its_lesson_and_d_model_goes_on(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        page.goto(f"{server}/sinusoidal?base=1000&n=4096&d_model=64", wait_until="domcontentloaded")
        wait_idle(page)
        assert {"base": "1000", "n": "4096", "d_model": "64"}.items() <= _query(page).items()

        _menu(page, "rope")
        _wait_query(page, "base", "10000")  # RoPE's own base
        assert "n" not in _query(page)  # its first view has no positions slider
        page.locator('[data-testid="stMain"] [data-testid="stRadio"]').first.get_by_text(
            "Only m - n matters", exact=True
        ).click()
        _wait_query(page, "view", "relative")
        wait_idle(page)
        assert _query(page)["n"] == "128", "RoPE's own number of positions"

        _menu(page, "learned")
        _wait_query(page, "d_model", "64")  # the one shared setting goes on

        _menu(page, "sinusoidal")
        _wait_query(page, "base", "1000")
        assert _query(page)["n"] == "4096", "the lesson is as it was left"
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        context.close()


def test_the_sinusoids_offset_does_not_reach_the_experiments(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        page.goto(f"{server}/sinusoidal?view=shift&k=5", wait_until="domcontentloaded")
        wait_idle(page)
        assert _query(page)["k"] == "5"
        _menu(page, "experiments")
        _wait_query(page, "copy_k", "3")  # its own default: the stored run, no training
        wait_shown(page.get_by_role("button", name="Re-run these settings live"))
        assert "k" not in _query(page)
        assert page.get_by_text("Training ...").count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        context.close()
