"""Drop a fragment rerun that belongs to a page the session has already left.

The browser sends a ``run_every`` fragment's timer tick with the page it was drawn on. When
that fragment moves the session to another page (class mode's follow check calls
``st.switch_page``), a tick sent while the check still ran reaches the server during the new
page's run, waits, and then runs after it, under the old page's script hash. Streamlit's
frontend reads a fragment run of another page as a page change: it clears the app and keeps
only that fragment's elements, so a student sent to a lesson view is left with the menu and
the exercises but no lesson (seen in 6 of 36 arrivals with two app processes and two busy
loops; the websocket trace shows the stale tick's ``new_session``).

The server knows which page the session is on when the queued rerun is about to start: the
page its last run resolved (``PagesManager.current_page_script_hash``). A rerun made of
fragments only whose page is another one can only redraw a page nobody sees, so
``install`` makes Streamlit's script runner skip it before it tells the browser anything.
Full runs, and fragment reruns of the page the session is on, run as before.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

_LOG = logging.getLogger(__name__)

#: marks ScriptRunner._run_script once wrapped, so a module reload does not wrap it twice
_MARK = "_posenc_drops_stale_fragment_runs"


def is_stale(rerun_data: Any, current_page: str) -> bool:
    """True if ``rerun_data`` reruns fragments only, of a page other than ``current_page``.

    An empty hash on either side (a session's first run, a request by page name) is never
    stale: there is nothing to compare.
    """
    fragments_only = bool(rerun_data.fragment_id_queue or rerun_data.fragment_id)
    requested = rerun_data.page_script_hash
    return fragments_only and bool(requested) and bool(current_page) and requested != current_page


def install() -> bool:
    """Wrap ``ScriptRunner._run_script`` (once per process); True if it is wrapped now."""
    original = getattr(ScriptRunner, "_run_script", None)
    if original is None:  # pragma: no cover - a Streamlit without the method
        _LOG.warning("Streamlit's ScriptRunner has no _run_script: stale fragment runs are not dropped")
        return False
    if getattr(original, _MARK, False):
        return True

    @functools.wraps(original)
    def run_script(self: ScriptRunner, rerun_data: Any) -> None:
        current = self._pages_manager.current_page_script_hash
        if is_stale(rerun_data, current):
            _LOG.debug(
                "Dropped a fragment rerun of page %s: the session is on page %s",
                rerun_data.page_script_hash,
                current,
            )
            return
        original(self, rerun_data)

    setattr(run_script, _MARK, True)
    ScriptRunner._run_script = run_script  # type: ignore[method-assign]
    return True


def installed() -> bool:
    """Whether this process's script runner drops stale fragment reruns."""
    return bool(getattr(ScriptRunner._run_script, _MARK, False))
