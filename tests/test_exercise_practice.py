"""Practice on the variant exercises under AppTest: a reload shows the same variant, "Try
another" a new one, a skill is mastered after three right answers in a row (not with a
wrong one in between), a variant's worked solution after two misses, and "Forget my
progress" clears it all."""

from __future__ import annotations

import json

from app_helpers import APP, TIMEOUT, assert_clean
from streamlit.testing.v1 import AppTest
from test_exercise_variants import ORACLES

from posenc_lab.course import BANK
from posenc_lab.lessons.sinusoidal import exercises as sinusoidal
from posenc_lab.ui import exercise_kinds as kinds
from posenc_lab.ui import progress as stored_progress

PAGE = "posenc_lab/lessons/sinusoidal/page.py"
HOME = "posenc_lab/lessons/home/page.py"
EX = next(ex for ex in BANK[PAGE] if ex.key == "sin_pe_value")
LABEL = sinusoidal.SKILLS[EX.skill]
SEED = "0123456789abcdef"


def _session(seed: str = SEED, practice: list[str] | None = None) -> AppTest:
    """A session on the lesson whose browser reported ``seed`` and its stored ``practice``
    (the storage component's state, as the browser sets it): a reload, as the server sees it."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    state = {"seed": seed}
    if practice is not None:
        state["practice"] = json.dumps(practice)
    at.session_state[stored_progress.COMPONENT_KEY] = state
    at.run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    return at


def _question(at) -> str:
    return next(m.value for m in at.markdown if "what is $PE_" in m.value)


def _shown(at, attempt: int) -> kinds.Numeric:
    return kinds.concrete(EX, kinds.draw(EX, at.session_state[stored_progress.SEED], attempt))


def _check(at, value: float) -> None:
    at.number_input(key=f"ex_{EX.key}_value").set_value(value)
    at.button(key=f"ex_{EX.key}_check").click().run()
    assert_clean(at)


def _right(attempt: int, at) -> float:
    return round(ORACLES[EX.key](**dict(_shown(at, attempt).chosen))[0], 6)


def _another(at) -> None:
    at.button(key=f"ex_{EX.key}_another").click().run()
    assert_clean(at)


def _skill_line(at) -> str:
    return next(c.value for c in at.caption if f"**{LABEL}**" in c.value)


def _stored_practice(at) -> list[str]:
    """What the page last handed the browser to store as the practice record."""
    store = [el for el in at.get("bidi_component") if el.proto.component_name.endswith("posenc_progress_store")]
    return json.loads(store[0].proto.json)["practice"]


def test_a_reload_shows_the_same_variant_and_try_another_a_new_one():
    at = _session()
    first = _question(at)
    assert first == _shown(at, 0).question
    assert _question(_session()) == first, "the same browser (seed) sees the same variant after a reload"

    at.number_input(key=f"ex_{EX.key}_value").set_value(0.5).run()
    _another(at)
    second = _question(at)
    assert second == _shown(at, 1).question != first
    # the answer field starts blank for the new numbers
    assert at.number_input(key=f"ex_{EX.key}_value").value is None
    # a reload with what the browser stored keeps the second variant
    assert _question(_session(practice=_stored_practice(at))) == second


def test_three_right_in_a_row_master_the_skill():
    at = _session()
    assert _skill_line(at) == f"**{LABEL}**: 0 of 3 right in a row"
    for attempt in range(3):
        _check(at, _right(attempt, at))
        assert any(s.value.startswith("**Right.**") for s in at.success)
        if attempt < 2:
            assert _skill_line(at) == f"**{LABEL}**: {attempt + 1} of 3 right in a row"
            # the same variant again counts once: only new numbers count
            _check(at, _right(attempt, at))
            assert _skill_line(at) == f"**{LABEL}**: {attempt + 1} of 3 right in a row"
            _another(at)
    assert "mastered" in _skill_line(at)
    # a reload keeps the mastery, and the home page shows it
    again = _session(practice=_stored_practice(at))
    assert "mastered" in _skill_line(again)
    again.switch_page(HOME).run()
    assert any("Skills mastered: 1 of" in c.value for c in again.caption)
    assert any(f"**{LABEL}**: mastered" in c.value for c in again.caption)


def test_a_wrong_answer_in_between_breaks_the_row_and_two_offer_the_worked_solution():
    at = _session()
    _check(at, _right(0, at))
    _another(at)
    _check(at, _right(1, at))
    _another(at)
    wrong = _right(2, at) + 0.5
    _check(at, wrong)
    assert _skill_line(at) == f"**{LABEL}**: 0 of 3 right in a row"
    assert f"ex_{EX.key}_reveal" not in {t.key for t in at.toggle}
    _check(at, wrong + 0.1)
    # two misses on this variant: its worked solution, with its own numbers
    at.toggle(key=f"ex_{EX.key}_reveal").set_value(True).run()
    shown = _shown(at, 2)
    answer = float(shown.answer())
    assert any(i.value == f"**Answer:** {shown.fmt % answer}. {shown.explain(answer)}" for i in at.info)
    # right now, after the solution: not fresh, the row stays broken
    _check(at, _right(2, at))
    assert _skill_line(at) == f"**{LABEL}**: 0 of 3 right in a row"
    for attempt in (3, 4):
        _another(at)
        _check(at, _right(attempt, at))
    assert _skill_line(at) == f"**{LABEL}**: 2 of 3 right in a row"
    _another(at)
    _check(at, _right(5, at))
    assert "mastered" in _skill_line(at)


def test_one_skipped_variant_is_forgiven_and_a_second_breaks_the_row():
    at = _session()
    _check(at, _right(0, at))
    _another(at)
    _another(at)  # variant 1 left unanswered: forgiven, and the line says the next one is not
    assert _skill_line(at) == (
        f"**{LABEL}**: 1 of 3 right in a row (one variant skipped unanswered; skip another and the row starts again)"
    )
    _check(at, _right(2, at))
    assert _skill_line(at).startswith(f"**{LABEL}**: 2 of 3 right in a row (one variant skipped")
    _another(at)
    _another(at)  # variant 3 skipped too: the row starts again
    assert _skill_line(at) == f"**{LABEL}**: 0 of 3 right in a row"
    for attempt in (4, 5, 6):
        _check(at, _right(attempt, at))
        _another(at)  # after a check: practising more costs nothing
    assert "mastered" in _skill_line(at)


def test_forget_my_progress_clears_the_practice():
    first = _session()
    for attempt in range(3):
        _check(first, _right(attempt, first))
        _another(first)
    stored = _stored_practice(first)
    # a reload: the browser reports what it stored, and keeps resending that report
    at = _session(practice=stored)
    assert "mastered" in _skill_line(at)
    at.switch_page(HOME).run()
    next(b for b in at.button if "Forget my progress" in b.label).click().run()
    assert_clean(at)
    assert not any("Skills mastered" in c.value for c in at.caption)
    # the browser is told to forget, and the report it made before does not come back
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert _skill_line(at) == f"**{LABEL}**: 0 of 3 right in a row"
    assert _question(at) == _shown(at, 0).question
    assert _stored_practice(at) == []
