"""A fragment rerun of a page the session has left is dropped (``posenc_lab.ui.stale_fragments``).

The scenario as the browser makes it, over Streamlit's websocket against the real app: a
session on one page moves to another, and while the new page's run is in progress a fragment
rerun of the old page arrives (a ``run_every`` timer tick sent before the browser knew it had
left). Streamlit alone runs that fragment after the new page, under the old page's hash, and
the browser then clears the new page (class mode's students left without a lesson).
"""

from __future__ import annotations

import urllib.request
from types import SimpleNamespace
from urllib.parse import urlparse

import pytest
from browser_support import budget_s
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

from posenc_lab.ui import stale_fragments


def _rerun(fragment: str, requested: str) -> SimpleNamespace:
    """What the script runner reads of a rerun request (``RerunData``)."""
    return SimpleNamespace(
        fragment_id_queue=[fragment] if fragment else [], fragment_id=None, page_script_hash=requested
    )


@pytest.mark.parametrize(
    ("fragment", "requested", "current", "stale"),
    [
        ("f1", "A", "B", True),  # a fragment of page A while the session is on B
        ("f1", "B", "B", False),  # a fragment of the page the session is on
        ("", "A", "B", False),  # a full run of A: a page change, never dropped
        ("f1", "", "B", False),  # no page named: nothing to compare
        ("f1", "A", "", False),  # a session's first run: nothing to compare
    ],
)
def test_only_a_fragment_rerun_of_another_page_is_stale(fragment, requested, current, stale):
    rerun = _rerun(fragment, requested)
    assert stale_fragments.is_stale(rerun, current) is stale


def test_the_app_installs_the_guard_in_its_process():
    import posenc_lab.ui.shell  # noqa: F401  (installs it on import, as a server's first run does)

    assert stale_fragments.installed()
    assert stale_fragments.install() is True  # a second call does not wrap it twice


class _Session:
    """One browser tab as Streamlit's websocket protocol sees it."""

    def __init__(self, url: str):
        parts = urlparse(url)
        self.base = url
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=budget_s(30)):
            pass
        self.ws = connect(
            f"ws://{parts.hostname}:{parts.port}/_stcore/stream",
            subprotocols=["streamlit"],
            origin=url,
            max_size=None,
            open_timeout=budget_s(30),
        )
        self.pages: dict[str, str] = {}  # url path -> page script hash
        self.fragments: dict[str, set[str]] = {}  # page script hash -> fragment ids drawn there
        self.page_hash = ""
        self.new_sessions: list[tuple[str, tuple[str, ...]]] = []  # (page hash, fragment ids)

    def send(self, *, page_name: str = "", page_hash: str = "", fragment: str = "", query: str = "") -> None:
        back = BackMsg()
        state = back.rerun_script
        state.query_string = query
        state.page_name, state.page_script_hash = page_name, page_hash
        if fragment:
            state.fragment_id, state.is_auto_rerun = fragment, True
        self.ws.send(back.SerializeToString())

    def until(self, kind: str, *, fragment: str = "") -> ForwardMsg:
        """Reads messages up to the next ``kind`` (of a run of ``fragment``, if given)."""
        running: tuple[str, ...] = ()
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(self.ws.recv(timeout=budget_s(60)))
            got = msg.WhichOneof("type")
            if got == "new_session":
                running = tuple(msg.metadata.run.fragment_ids)
                self.new_sessions.append((msg.new_session.page_script_hash, running))
            elif got == "navigation":
                self.page_hash = msg.navigation.page_script_hash
                self.pages = {p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages}
            elif got == "delta" and msg.delta.fragment_id:
                self.fragments.setdefault(self.page_hash, set()).add(msg.delta.fragment_id)
            if got == kind and (not fragment or fragment in running):
                return msg

    def close(self) -> None:
        self.ws.close()


def test_a_late_fragment_rerun_of_the_page_left_never_runs(server):
    tab = _Session(server)
    try:
        tab.send(page_name="sinusoidal")
        tab.until("script_finished")
        left = tab.page_hash
        old_fragment = sorted(tab.fragments[left])[0]  # the lesson's body, drawn in a fragment
        arrived = tab.pages["rope"]

        tab.send(page_hash=arrived)
        # the new page's run has started (its fragments of the old page are still stored):
        # the old page's timer tick arrives now
        tab.until("new_session")
        tab.send(page_hash=left, fragment=old_fragment)
        tab.until("script_finished")
        assert tab.page_hash == arrived

        # a rerun of one of the new page's fragments: it runs after anything queued before it
        new_fragment = sorted(tab.fragments[arrived])[0]
        tab.send(page_hash=arrived, fragment=new_fragment)
        tab.until("script_finished", fragment=new_fragment)
    finally:
        tab.close()

    after_switch = tab.new_sessions[tab.new_sessions.index((arrived, ())) :]
    assert [hash_ for hash_, _ in after_switch] == [arrived, arrived], after_switch
