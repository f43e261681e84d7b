"""Exercise progress in the real app: it survives a reload (the browser's localStorage),
and a browser that blocks storage still works, for the session only.

Uses the shared ``server`` and ``browser`` fixtures (conftest.py: browser_support's
``serve()`` and ``chromium()``); each test has a browser context of its own, so its
storage starts empty.
"""

from __future__ import annotations

import json
import time

import pytest
from browser_support import budget_ms, budget_s, wait_for_text, wait_idle, wait_until
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from posenc_lab import course as lessons
from posenc_lab.ui import exercise_kinds, progress
from posenc_lab.ui import exercises as ui_exercises

pytestmark = pytest.mark.browser

PATH = "why-order"
EXERCISES = lessons.BANK["posenc_lab/lessons/why_order/page.py"]
FIRST = EXERCISES[0]  # a multiple choice with fixed options (a variant question's are the student's own)
TOTAL = len(lessons.all_exercises())

# makes every touch of window.localStorage throw, as a browser set to block site data does,
# and counts the progress store's touches (``_until_the_store_ran``: its script is named for
# it in the stack)
BLOCK_STORAGE = """
Object.defineProperty(window, 'localStorage', {
  configurable: true,
  get() {
    if (/posenc_progress_store/.test(new Error().stack)) window.__storeReads = (window.__storeReads || 0) + 1;
    throw new DOMException('The operation is insecure.', 'SecurityError');
  },
});
"""
# counts the reads of the solved exercises' key in the browser's storage (``_until_the_store_ran``)
COUNT_STORE_READS = f"""
const getItem = Storage.prototype.getItem;
Storage.prototype.getItem = function (key) {{
  if (key === {progress.STORAGE_KEY!r}) window.__storeReads = (window.__storeReads || 0) + 1;
  return getItem.call(this, key);
}};
"""


def _label(solved: int) -> str:
    return f"Exercises ({solved} of {len(EXERCISES)} solved)"


def _open(context, path: str):
    page = context.new_page()
    outside: list[str] = []
    page.on(
        "request",
        lambda r: outside.append(r.url) if not r.url.startswith(("http://127.0.0.1", "data:", "blob:")) else None,
    )
    page.goto(path, wait_until="domcontentloaded")
    wait_idle(page)
    return page, outside


def _until_the_store_ran(page) -> None:
    """Until the page's progress store (ui/progress.py) has run on this load, reading the
    browser's storage (or meeting it blocked: ``BLOCK_STORAGE``, ``COUNT_STORE_READS``), and
    the run its report would start is over: a restore from storage would show by then."""
    wait_until(page, "() => (window.__storeReads || 0) > 0", timeout_ms=budget_ms(15_000), what="the store's run")
    wait_idle(page)


def _solve_first(page) -> None:
    """Open the exercises, pick the right answer of the first and check it, one step at a time:
    each step waits for what it changes (the pick checked and its run over, the check's verdict),
    so no click lands on a page still redrawing the step before it."""
    page.get_by_text(_label(0)).click()
    chooser = page.locator(f".st-key-ex_{FIRST.key}_choice")
    chooser.get_by_text(FIRST.choices[FIRST.answer_index].text, exact=True).click()
    expect(chooser.locator("input[type=radio]:checked")).to_have_count(1, timeout=budget_ms(15_000))
    wait_idle(page)
    page.locator(f".st-key-ex_{FIRST.key}_check button").click()
    panel = page.locator('[data-testid="stExpander"]').filter(has_text="Exercises (")
    verdict = panel.get_by_text("Right.", exact=True)
    try:
        verdict.first.wait_for(timeout=budget_ms(30_000))
    except PlaywrightTimeout:
        shown = panel.first.inner_text()[:800]
        raise AssertionError(f"the check gave no verdict 'Right.'; the exercises show: {shown!r}") from None
    wait_for_text(page, _label(1))
    wait_idle(page)


def _stored(page):
    raw = page.evaluate(f"() => window.localStorage.getItem({progress.STORAGE_KEY!r})")
    return None if raw is None else json.loads(raw)


def test_a_solved_exercise_is_still_solved_after_a_reload_until_the_browser_forgets_it(server, browser):
    """Solved, reloaded: still solved, here and on the home page; then "Forget my progress"
    (a shared computer's next student) leaves nothing, even after a reload."""
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    context.add_init_script(COUNT_STORE_READS)
    try:
        page, outside = _open(context, f"{server}/{PATH}")
        wait_for_text(page, _label(0))
        _solve_first(page)
        # saved by the component on the run after the check
        wait_until(
            page,
            f"() => (window.localStorage.getItem({progress.STORAGE_KEY!r}) || '').includes({FIRST.key!r})",
            timeout_ms=budget_ms(15_000),
            what="the solved exercise stored",
        )
        assert _stored(page) == [FIRST.key]

        page.reload(wait_until="domcontentloaded")
        wait_idle(page)
        # restored on the session's second run, once the browser has reported
        wait_for_text(page, _label(1))
        assert page.get_by_text(_label(0)).count() == 0

        page.goto(f"{server}/", wait_until="domcontentloaded")
        wait_idle(page)
        wait_for_text(page, f"Exercises solved in this browser: 1 of {TOTAL}")

        # for a shared computer: after "Forget my progress" nothing is solved, even after a reload
        page.get_by_role("button", name="Forget my progress in this browser").click()
        wait_for_text(page, f"({TOTAL} in all); your progress shows here")
        wait_until(
            page,
            f"() => window.localStorage.getItem({progress.STORAGE_KEY!r}) === null",
            timeout_ms=budget_ms(15_000),
            what="the stored progress forgotten",
        )
        page.reload(wait_until="domcontentloaded")
        _until_the_store_ran(page)  # a (wrong) restore would show now: it must not
        assert page.get_by_text("Exercises solved in this browser").count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not outside, f"requests left localhost: {outside[:5]}"
    finally:
        context.close()


def test_unknown_keys_in_storage_are_ignored(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    stored = json.dumps([FIRST.key, "no_such_exercise", "<script>"])
    context.add_init_script(f"window.localStorage.setItem({progress.STORAGE_KEY!r}, {stored!r});")
    try:
        page, outside = _open(context, f"{server}/{PATH}")
        wait_for_text(page, _label(1))
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not outside
    finally:
        context.close()


def test_blocked_storage_keeps_progress_for_the_session_without_an_error(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    context.add_init_script(BLOCK_STORAGE)
    try:
        page, outside = _open(context, f"{server}/{PATH}")
        wait_for_text(page, _label(0))
        _solve_first(page)
        assert page.locator('[data-testid="stException"]').count() == 0

        page.reload(wait_until="domcontentloaded")
        wait_idle(page)
        wait_for_text(page, _label(0))
        _until_the_store_ran(page)  # a (wrong) restore would show now: it must not
        assert page.get_by_text(_label(0)).count() == 1
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not outside
    finally:
        context.close()


# the order of the choices: one seed per browser, kept beside the progress

SHOWN_JS = f"""() => Array.from(document.querySelectorAll('.st-key-ex_{FIRST.key}_choice [role="radiogroup"] label'))
  .map(label => label.innerText.trim())"""


def _starts(texts) -> list[str]:
    # the first words of each choice: enough to tell them apart, free of Markdown's marks
    return [" ".join(text.replace("`", "").replace("*", "").split())[:16] for text in texts]


def _dealt(seed: str) -> list[str]:
    """The first choices' starts in the order dealt from ``seed``."""
    order = exercise_kinds.deal_orders(ui_exercises.choice_questions(lessons.COURSE), seed)[FIRST.key]
    return _starts(FIRST.choices[i].text for i in order)


def _shown_once_dealt(page, seed: str) -> list[str]:
    """The first exercise's choices as the page lists them, once they are in the order dealt
    from ``seed`` (the session takes in the browser's seed on the run after its first)."""
    expected = _dealt(seed)
    shown: list[str] = []
    deadline = time.monotonic() + budget_s(30)
    while time.monotonic() < deadline:
        shown = _starts(page.evaluate(SHOWN_JS))
        if shown == expected:
            return shown
        page.wait_for_timeout(250)  # how often the list is read
    return shown


def _seed(page) -> str:
    """The browser's seed for the order of the options, once its storage holds one."""
    wait_until(
        page,
        f"() => /^[0-9a-f]{{16}}$/.test(window.localStorage.getItem({progress.SEED_KEY!r}) || '')",
        timeout_ms=budget_ms(15_000),
        what="a seed stored",
    )
    return page.evaluate(f"() => window.localStorage.getItem({progress.SEED_KEY!r})")


def test_the_order_of_the_choices_survives_a_reload_and_is_the_browsers_own(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    other = browser.new_context(viewport={"width": 1280, "height": 1600})
    try:
        page, outside = _open(context, f"{server}/{PATH}")
        page.get_by_text(_label(0)).click()
        seed = _seed(page)
        first = _shown_once_dealt(page, seed)
        assert first == _dealt(seed), "the choices are listed in the order dealt from the browser's seed"

        page.reload(wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text(_label(0)).click()
        assert _shown_once_dealt(page, seed) == first, "a reload keeps the order"
        assert page.evaluate(f"() => window.localStorage.getItem({progress.SEED_KEY!r})") == seed

        # another browser keeps a seed of its own
        elsewhere, _ = _open(other, f"{server}/{PATH}")
        elsewhere.get_by_text(_label(0)).click()
        assert _seed(elsewhere) != seed
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not outside
    finally:
        context.close()
        other.close()
