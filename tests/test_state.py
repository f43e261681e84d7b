"""ui.state's repair of bad URL values, as a unit: every kind of control meets every garbage value.

Each case runs a one-control script under real Streamlit (``AppTest.from_string``) the way
ui.shell runs a page: ``start_run``, the control, ``finish_run``. tests/test_app.py opens
every view once with garbage in its URL and checks every control that view draws against
every garbage value through the control's own parse, fix and encode; this file runs the
whole path (URL -> kept value -> widget -> URL, the notice) for each kind of control.
"""

from __future__ import annotations

import pytest
from app_helpers import GARBAGE
from streamlit.testing.v1 import AppTest

SCRIPT = """
import streamlit as st
from posenc_lab.ui import state

state.start_run("lesson")
value = {control}
st.session_state["value"] = value
state.finish_run(st)
"""

BASES = [10, 100, 500, 1_000, 10_000, 100_000, 1_000_000]

#: kind -> (URL name, the control as the script calls it, a test of its value)
CONTROLS = {
    "int-even": (
        "d_model",
        'state.int_slider("d_model", "d_model", 2, 1024, 128, step=2)',
        lambda v: type(v) is int and 2 <= v <= 1024 and v % 2 == 0,
    ),
    "int-signed": (
        "offset",
        'state.int_slider("offset", "Offset", -64, 64, 0)',
        lambda v: type(v) is int and -64 <= v <= 64,
    ),
    "int-one-value": (
        "heads",
        'state.int_slider("heads", "Heads", 8, 8, 8)',
        lambda v: v == 8,
    ),
    "float": (
        "weight",
        'state.float_slider("weight", "Weight", 0.0, 2.0, 0.5, step=0.05)',
        lambda v: isinstance(v, float) and 0 <= v <= 2 and abs(v / 0.05 - round(v / 0.05)) < 1e-9,
    ),
    "float-signed": (
        "rho",
        'state.float_slider("rho", "rho", -1.0, 1.0, 0.0, step=0.25)',
        lambda v: isinstance(v, float) and -1 <= v <= 1 and v * 4 == round(v * 4),
    ),
    "choice-slider": (
        "base",
        f'state.choice_slider("base", "Base", {BASES}, 10_000)',
        lambda v: v in BASES,
    ),
    "choice": (
        "layout",
        'state.choice("layout", "Layout", ["interleaved", "concat"], "interleaved")',
        lambda v: v in ("interleaved", "concat"),
    ),
    "select": (
        "model",
        'state.select("model", "Model", ["llama", "qwen", "mistral"], "qwen")',
        lambda v: v in ("llama", "qwen", "mistral"),
    ),
    "toggle": (
        "causal",
        'state.toggle("causal", "Causal", True)',
        lambda v: v is True or v is False,
    ),
    "toggle-omitted-at-default": (
        "present",
        'state.toggle("present", "Presenter mode", False, omit_default=True)',
        lambda v: v is True or v is False,
    ),
    "text": (
        "sentence",
        'state.text("sentence", "Sentence", "the dog bites the man", max_chars=200)',
        lambda v: isinstance(v, str) and 1 <= len(v) <= 200 and v == v.strip(),
    ),
    "int-list": (
        "dims",
        'state.int_list("dims", "Dimensions", range(64), [0, 5], max_selections=6)',
        lambda v: isinstance(v, list) and 1 <= len(v) <= 6 and all(type(d) is int and 0 <= d < 64 for d in v),
    ),
}


def _open(kind: str, url: dict[str, str]) -> tuple[object, list[str], dict[str, str]]:
    """A fresh session opening ``url`` on a page with that one control: its value, the
    notices shown, the URL after the run."""
    at = AppTest.from_string(SCRIPT.format(control=CONTROLS[kind][1]), default_timeout=30)
    at.query_params.update(url)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at.session_state["value"], [w.value for w in at.warning], dict(at.query_params)


@pytest.mark.parametrize("junk", GARBAGE, ids=range(len(GARBAGE)))
@pytest.mark.parametrize("kind", list(CONTROLS))
def test_garbage_in_the_url_becomes_a_valid_value_a_notice_and_a_stable_link(kind, junk):
    name, _, valid = CONTROLS[kind]
    value, shown, repaired = _open(kind, {name: junk, "view": "heatmap"})
    assert valid(value), value
    # a value that was replaced is named in a notice; one that was used stays as written
    if repaired.get(name, "0" if kind == "toggle-omitted-at-default" else None) == junk:
        assert not shown, shown
    else:
        assert len(shown) == 1 and f"`{name}={junk[:40]}`" in shown[0], shown
    # names no control of the page owns leave the URL
    assert "view" not in repaired
    # the repaired link, opened in a new session: the same value, no notice, the same link
    again, shown_again, link_again = _open(kind, repaired)
    assert again == value
    assert not shown_again, shown_again
    assert link_again == repaired


@pytest.mark.parametrize("kind", list(CONTROLS))
def test_no_url_value_gives_the_default_without_a_notice(kind):
    value, shown, link = _open(kind, {})
    assert CONTROLS[kind][2](value) and not shown
    again, shown_again, link_again = _open(kind, link)
    assert again == value and not shown_again and link_again == link
