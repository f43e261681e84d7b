"""Helpers for the AppTest-based page tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
APP = ROOT / "app.py"
from ui.catalog import LESSONS  # noqa: E402

#: settings that keep a page cheap under the generic tests (the experiments page trains
#: six models for every new setting; the generic tests only need it to run)
CHEAP = {"lessons/experiments.py": {"train_len": "8", "steps": "50", "width": "16"}}


LESSON_PAGES = tuple(lesson.path for lesson in LESSONS)
#: every (page, URL) that shows its own set of controls and figures
VIEW_CASES = tuple(
    (lesson.path, {**CHEAP.get(lesson.path, {}), **({"view": view} if view else {})})
    for lesson in LESSONS
    for view in (lesson.views or [None])
)
VIEW_IDS = [
    f"{page.split('/')[1].removesuffix('.py')}{'-' + q['view'] if 'view' in q else ''}" for page, q in VIEW_CASES
]
TIMEOUT = 60


def open_page(page: str | None = None, query: dict[str, str] | None = None) -> AppTest:
    """Run the app as a fresh session, go to ``page`` and run it with ``query`` in the URL.

    AppTest must run the home page first; it gets the same URL, as if the link had opened
    there, so that shell controls (presenter mode) read it on their first draw too.
    """
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    if query:
        at.query_params.update(query)
    at.run()
    if page is not None:
        at.switch_page(page)
    if query:
        at.query_params.clear()
        at.query_params.update(query)
    if page is not None or query:
        at.run()
    return at


def charts(at: AppTest) -> list[dict]:
    """The Plotly specs the page sent, parsed."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def chart_bytes(at: AppTest) -> list[int]:
    return [len(el.proto.spec.encode()) for el in at.get("plotly_chart")]


def assert_clean(at: AppTest) -> None:
    """No exception element and no error box (a core error shown on purpose is tested apart)."""
    assert not at.exception, [e.message for e in at.exception]
