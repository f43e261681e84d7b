"""An address the app did not write is a link, read as if opened in a new tab (ui.state).

The browser's Back and Forward, a class reveal's "Explore it" (a page link with settings) and
a link pasted into the running app change the address of a session that has kept values of
its own. The link wins: its page shows the view and values it names, the rest at their
defaults. A menu link names no settings, so the lesson's kept values come back; and a rerun
from an address a little behind the app's (a move made before the browser had the last run's
address) changes nothing.
"""

from __future__ import annotations

from app_helpers import assert_clean, open_page

SINUSOIDAL = "posenc_lab/lessons/sinusoidal/page.py"
LEARNED = "posenc_lab/lessons/learned/page.py"


def _follow(at, query: dict[str, str]):
    """The address changes to ``query`` without a widget moving (popstate, a page link)."""
    at.query_params.clear()
    at.query_params.update(query)
    return at.run()


def test_a_link_to_another_view_of_the_same_lesson_opens_that_view():
    at = open_page(SINUSOIDAL, {"view": "heatmap"})
    at.slider(key="w:n").set_value(512).run()
    _follow(at, {"view": "shift", "k": "7"})
    assert_clean(at)
    assert at.query_params["view"] == "shift"
    assert at.slider(key="w:k").value == 7
    # the link names no n: the default, as in a new tab, not the 512 moved before
    assert at.slider(key="w:n").value == 256
    assert at.query_params["n"] == "256"


def test_a_link_with_a_shared_value_wins_over_the_sessions():
    at = open_page(SINUSOIDAL, {"view": "heatmap", "d_model": "64"})
    at.switch_page(LEARNED)
    _follow(at, {"d_model": "256"})
    assert_clean(at)
    assert at.slider(key="w:d_model").value == 256


def test_a_link_without_a_shared_value_gives_its_default():
    at = open_page(SINUSOIDAL, {"view": "heatmap", "d_model": "64"})
    _follow(at, {"view": "waves"})
    assert at.slider(key="w:d_model").value == 128


def test_a_menu_link_brings_the_lessons_kept_values_back():
    at = open_page(SINUSOIDAL, {"view": "shift"})
    at.slider(key="w:k").set_value(9).run()
    at.switch_page(LEARNED)
    _follow(at, {})
    at.switch_page(SINUSOIDAL)
    _follow(at, {})
    assert at.query_params["view"] == "shift"
    assert at.slider(key="w:k").value == 9


def test_an_address_a_little_behind_the_apps_changes_nothing():
    at = open_page(SINUSOIDAL, {"view": "shift"})
    at.slider(key="w:k").set_value(9).run()
    behind = dict(at.query_params)
    at.slider(key="w:n").set_value(512).run()
    # a full run that starts from the address before the last move (the browser had not
    # yet received it): one of the app's own latest addresses, not a link
    _follow(at, behind)
    assert_clean(at)
    assert at.slider(key="w:n").value == 512
    assert at.slider(key="w:k").value == 9


def test_a_rerun_from_the_apps_own_address_keeps_every_value():
    at = open_page(SINUSOIDAL, {"view": "shift"})
    at.slider(key="w:k").set_value(9).run()
    at.radio(key="w:view").set_value("heatmap").run()
    at.run()
    at.radio(key="w:view").set_value("shift").run()
    assert at.slider(key="w:k").value == 9
