"""The exercises at the end of each lesson: the bank itself, and every exercise under AppTest
(hint first, a wrong answer with its own explanation, then the right one, counted on the home page).

A variant exercise is checked here as first written (``exercise_kinds.concrete`` at its
defaults: the values below) and, under AppTest, at the variant the session's seed draws;
``test_exercise_variants`` checks every variant."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from app_helpers import CHEAP, assert_clean, open_page
from test_exercise_variants import ORACLES

import posenc
from posenc_lab import course as lessons
from posenc_lab.course import BANK, LESSONS
from posenc_lab.lessons.rope import exercises as rope_exercises
from posenc_lab.ui import exercise_kinds
from posenc_lab.ui import progress as stored_progress
from posenc_lab.ui.exercise_kinds import Guided, MultipleChoice, Numeric, concrete

HOME = "posenc_lab/lessons/home/page.py"
TOTAL = len(lessons.all_exercises())

#: right answers, frozen from the formulas (not from posenc): what a student would type
RIGHT = {
    "sin_pe_value": round(math.sin(1), 4),
    "sin_wavelength": round(2 * math.pi * 10000 ** (510 / 512)),
    "learned_param_count": 2048 * 1024,
    "rel_t5_bucket": 10,
    "rope_slowest_turns": round(4096 * 10000 ** (-126 / 128) / (2 * math.pi), 4),
    "alibi_furthest_head": 8,
    "alibi_span_head8": 550,
    "images_mrope_resume": 5 + max(2, 3, 4),  # one past the video's largest position, 5 + 3
    # Llama 3.1's kept pairs: wavelength 2π·500,000^(2i/128) under 8,192 / high_freq_factor 4 (29 of 64)
    "models_llama31_unchanged": int((2 * math.pi * 500_000.0 ** (np.arange(0, 128, 2) / 128) < 8192 / 4).sum()),
}
#: a typical mistake per numeric exercise, and a word of the nudge it should get
WRONG = {
    "sin_pe_value": (round(math.sin(math.radians(1)), 4), "degrees"),
    "sin_wavelength": (62832, "2π · base"),
    "learned_param_count": (2048 + 1024, "You added"),
    "rel_t5_bucket": (26, "after"),
    "rope_slowest_turns": (0.473, "radians"),
    "alibi_furthest_head": (12, "extra heads"),
    "alibi_span_head8": (589, "approximation"),
    "images_mrope_resume": (5 + 2 * 3 * 4, "counts every patch"),
    "models_llama31_unchanged": (64, "Not all"),
}
FLAT = [(path, concrete(ex)) for path, exercises in BANK.items() for ex in exercises if not isinstance(ex, Guided)]
#: the bank's exercises as written, variant ones with their parameters
WRITTEN = {ex.key: ex for ex in lessons.all_exercises()}


# helpers


def _open(path: str):
    return open_page(path, CHEAP.get(path))


def _panel(at):
    return next(e for e in at.expander if e.label.startswith("Exercises"))


def _texts(elements) -> list[str]:
    return [e.value for e in elements]


def _answer(at, ex: MultipleChoice | Numeric, value) -> None:
    if isinstance(ex, MultipleChoice):
        at.radio(key=f"ex_{ex.key}_choice").set_value(value)
    else:
        at.number_input(key=f"ex_{ex.key}_value").set_value(value)
    at.button(key=f"ex_{ex.key}_check").click()
    at.run()
    assert_clean(at)


def _variant(at, ex: MultipleChoice | Numeric) -> dict:
    """The parameters of the variant the page shows at first (attempt 0 of the session's seed)."""
    written = WRITTEN.get(ex.key, ex)
    if not getattr(written, "params", ()):
        return {}
    return exercise_kinds.draw(written, at.session_state[stored_progress.SEED], 0)


def _right_value(ex: MultipleChoice | Numeric, at=None):
    if isinstance(ex, MultipleChoice):
        return ex.answer_index
    params = _variant(at, ex) if at is not None else {}
    return round(ORACLES[ex.key](**params)[0], 6) if params else RIGHT[ex.key]


def _wrong_value(ex: MultipleChoice | Numeric, at=None):
    """A wrong answer, and a phrase of its nudge (the option's why, for a choice)."""
    if isinstance(ex, MultipleChoice):
        index = next(i for i, c in enumerate(ex.choices) if not c.right)
        return index, ex.choices[index].why
    params = _variant(at, ex) if at is not None else {}
    return ORACLES[ex.key](**params)[1][0] if params else WRONG[ex.key]


def _home_progress(at) -> str:
    at.switch_page(HOME).run()
    assert_clean(at)
    bars = at.get("progress")
    return bars[0].proto.text if bars else ""


def _rights(at) -> int:
    """How many "Right." boxes the exercise panel shows."""
    return sum(text.startswith("**Right.**") for text in _texts(_panel(at).success))


def _toggle_keys(at) -> set[str]:
    return {t.key for t in at.toggle}


# the bank


def test_every_lesson_has_exercises_and_the_bank_has_no_stray_lesson():
    assert set(BANK) == {lesson.path for lesson in LESSONS}
    assert all(len(BANK[lesson.path]) >= 1 for lesson in LESSONS)


def test_the_required_exercises_are_there():
    kinds = {ex.key: type(ex) for ex in lessons.all_exercises()}
    assert kinds["sin_pe_value"] is Numeric
    assert kinds["learned_past_max_len"] is MultipleChoice
    assert kinds["sin_linear_shift"] is MultipleChoice
    assert kinds["rope_proof"] is Guided
    assert kinds["alibi_furthest_head"] is Numeric
    assert kinds["rel_t5_bucket"] is Numeric
    for path in (
        "posenc_lab/lessons/why_order/page.py",
        "posenc_lab/lessons/compare/page.py",
        "posenc_lab/lessons/experiments/page.py",
    ):
        assert any(isinstance(ex, MultipleChoice) for ex in BANK[path])


def test_every_choice_explains_itself_and_one_is_right():
    choices = [concrete(ex) for ex in lessons.all_exercises() if isinstance(ex, MultipleChoice)]
    choices += [s for ex in lessons.all_exercises() if isinstance(ex, Guided) for s in ex.steps]
    for ex in [c for c in choices if isinstance(c, MultipleChoice)]:
        assert sum(c.right for c in ex.choices) == 1, ex.key
        assert len(ex.choices) >= 3, ex.key
        assert all(len(c.why) > 20 for c in ex.choices), ex.key
        assert len({c.why for c in ex.choices}) == len(ex.choices), f"{ex.key}: each option has its own explanation"
        assert ex.hint, ex.key


def test_numeric_answers_match_the_formulas():
    numerics = {ex.key: ex for _, ex in FLAT if isinstance(ex, Numeric)}
    assert set(numerics) == set(RIGHT) == set(WRONG)
    for key, ex in numerics.items():
        ok, text, answer = exercise_kinds.numeric_feedback(ex, RIGHT[key], {})
        assert ok, f"{key}: {RIGHT[key]} vs {answer}: {text}"
        assert abs(answer - RIGHT[key]) <= max(ex.tolerance, 1e-9) + 5e-5
        value, word = WRONG[key]
        ok, text, _ = exercise_kinds.numeric_feedback(ex, value, {})
        assert not ok and word in text, f"{key}: {text}"
    assert RIGHT["sin_pe_value"] == pytest.approx(0.8415)


def test_the_answer_is_computed_by_posenc_when_checked(monkeypatch):
    ex = next(ex for _, ex in FLAT if ex.key == "sin_pe_value")
    monkeypatch.setattr(posenc, "sinusoidal", lambda positions, d_model: np.full((2, d_model), 0.25))
    ok, _, answer = exercise_kinds.numeric_feedback(ex, 0.25, {})
    assert ok and answer == 0.25


def test_far_off_answers_get_told_which_side():
    ex = next(ex for _, ex in FLAT if ex.key == "alibi_span_head8")
    assert exercise_kinds.numeric_feedback(ex, 10_000, {})[1].startswith("Too large")
    assert exercise_kinds.numeric_feedback(ex, 3, {})[1].startswith("Too small")


#: every numeric question, guided steps too, with the picks a student starts from
NUMERICS = [
    (concrete(ex), {p.name: p.default for p in ex.picks})
    for top in lessons.all_exercises()
    for ex in (top.steps if isinstance(top, Guided) else (top,))
    if isinstance(ex, Numeric)
]
#: the bare direction a numeric check can start with
DIRECTION = re.compile(r"Too (large|small)\b[.:;,]?\s*")


def _wrong_numbers(ex: Numeric, answer: float) -> list[float]:
    """Wrong answers on both sides, from just outside the tolerance to far off."""
    if ex.integer:
        offsets = [1, 2, 5, 20, 100, 1000]
        return [answer + sign * d for d in offsets for sign in (1, -1)]
    scale = max(abs(answer), 1.0)
    offsets = [ex.tolerance + scale * f for f in (0.01, 0.1, 1, 10, 100)]
    return [answer + sign * d for d in offsets for sign in (1, -1)]


@pytest.mark.parametrize("ex, picks", NUMERICS, ids=[ex.key for ex, _ in NUMERICS])
def test_a_wrong_number_gets_something_to_reconsider_not_only_a_direction(ex, picks):
    # the report: two exercises answered a wrong number with a bare "Too large."
    assert ex.hint.strip(), ex.key
    answer = float(ex.answer(**picks))
    for given in _wrong_numbers(ex, answer):
        ok, text, _ = exercise_kinds.numeric_feedback(ex, given, picks)
        assert not ok, (ex.key, given)
        side = DIRECTION.match(text)
        if side:
            # a stated direction is the true one
            assert (side.group(1) == "large") == (given > answer), (ex.key, given, text)
        rest = text[side.end() :] if side else text
        assert len(rest.split()) >= 5, f"{ex.key}: {given} gets only {text!r}"


# the verdict: said once, by the box ("Right." / "Not quite."), never again by the text after it

#: a verdict an explanation might open with
OWN_VERDICT = re.compile(r"\W*(right|correct|wrong|incorrect|not quite|no)\s*[.:!,;]", re.IGNORECASE)


def _feedback_texts() -> list[tuple[str, bool, str]]:
    """(key, right?, text) for every feedback the bank can give: each option's explanation,
    each numeric question's explanation of its answer and its nudge for a wrong one."""
    texts = []
    for top in lessons.all_exercises():
        for ex in top.steps if isinstance(top, Guided) else (concrete(top),):
            if isinstance(ex, MultipleChoice):
                texts += [(ex.key, c.right, c.why) for c in ex.choices]
            else:
                picks = {p.name: p.default for p in ex.picks}
                answer = float(ex.answer(**picks))
                texts.append((ex.key, True, exercise_kinds.numeric_feedback(ex, answer, picks)[1]))
                texts += [
                    (ex.key, False, exercise_kinds.numeric_feedback(ex, given, picks)[1])
                    for given in _wrong_numbers(ex, answer)
                ]
    return texts


def test_no_explanation_opens_with_a_verdict_of_its_own():
    # "Right: a whole row..." after the box's "Right." read "Right. Right:"; the text also
    # follows "Answer: <option>" when a student asks to see the answer
    doubled = [(key, text) for key, _, text in _feedback_texts() if OWN_VERDICT.match(text)]
    assert not doubled, doubled


def test_every_feedback_box_says_its_verdict_once():
    for key, right, text in _feedback_texts():
        verdict = exercise_kinds.VERDICTS[right]
        shown = exercise_kinds.feedback(right, text)
        assert shown.startswith(f"{verdict} "), (key, shown)
        assert not OWN_VERDICT.match(shown[len(verdict) :]), (key, shown)


def test_a_verdict_written_into_an_explanation_is_dropped():
    assert exercise_kinds.feedback(True, "Right: a whole row lies between them.") == (
        "**Right.** A whole row lies between them."
    )
    assert exercise_kinds.feedback(False, "No: that would make the outputs unrelated.") == (
        "**Not quite.** That would make the outputs unrelated."
    )
    # a word that only starts like a verdict stays
    assert exercise_kinds.feedback(False, "Right range, wrong bucket.") == "**Not quite.** Right range, wrong bucket."
    assert exercise_kinds.feedback(True, "Nothing moves.") == "**Right.** Nothing moves."


# every lesson page


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.url_path for lesson in LESSONS])
def test_each_lesson_ends_with_a_collapsed_exercise_expander(lesson):
    at = _open(lesson.path)
    assert_clean(at)
    panel = _panel(at)
    assert panel.label == f"Exercises (0 of {len(BANK[lesson.path])} solved)"
    assert not panel.proto.expanded
    # a hint switch for each open exercise; no answer is offered before a wrong attempt
    keys = _toggle_keys(at)
    first = BANK[lesson.path][0]
    first_key = first.steps[0].key if isinstance(first, Guided) else first.key
    assert f"ex_{first_key}_hint" in keys
    assert not any(k.endswith("_reveal") for k in keys)
    assert not panel.success and not panel.error
    # exercise widgets stay out of the URL
    assert not any(name.startswith("ex_") for name in at.query_params)


@pytest.mark.parametrize("path", list(BANK), ids=[p.split("/")[-2] for p in BANK])
def test_hint_then_wrong_then_right_on_every_exercise(path):
    flat = [ex for p, ex in FLAT if p == path]
    if not flat:
        pytest.skip("only a guided exercise here (tested below)")
    at = _open(path)
    for done, ex in enumerate(flat):
        variant = _variant(at, ex)
        if variant:  # the variant the page shows
            ex = concrete(WRITTEN[ex.key], variant)
        # the hint comes first, on request
        assert ex.hint not in " ".join(_texts(at.info))
        at.toggle(key=f"ex_{ex.key}_hint").set_value(True).run()
        assert any(ex.hint in text for text in _texts(at.info)), ex.key
        assert f"ex_{ex.key}_reveal" not in _toggle_keys(at)

        wrong, phrase = _wrong_value(ex, at)
        _answer(at, ex, wrong)
        assert phrase in " ".join(_texts(_panel(at).error)), ex.key
        assert _rights(at) == done, f"{ex.key}: only the earlier exercises are right"
        if _variant(at, ex):
            # a variant's worked solution waits for a second wrong answer on it
            assert f"ex_{ex.key}_reveal" not in _toggle_keys(at)
            _answer(at, ex, wrong)
        # after a wrong attempt (two on a variant) the answer can be shown
        at.toggle(key=f"ex_{ex.key}_reveal").set_value(True).run()
        assert any(text.startswith("**Answer:**") for text in _texts(at.info)), ex.key

        _answer(at, ex, _right_value(ex, at))
        successes = " ".join(_texts(_panel(at).success))
        assert _rights(at) == done + 1, ex.key
        # the box says its verdict once (``exercise_kinds.feedback``), never "Right. Right:"
        assert not re.search(r"\*\*Right\.\*\*\W*Right\b", successes), (ex.key, successes)
        if isinstance(ex, MultipleChoice):
            assert ex.choices[ex.answer_index].why in successes
        assert _panel(at).label == f"Exercises ({done + 1} of {len(BANK[path])} solved)"
        assert not any(name.startswith("ex_") for name in at.query_params)
    assert _home_progress(at) == f"Exercises solved in this browser: {len(flat)} of {TOTAL}"


def test_checking_without_an_answer_asks_for_one():
    at = _open("posenc_lab/lessons/learned/page.py")
    at.button(key="ex_learned_past_max_len_check").click().run()
    at.button(key="ex_learned_param_count_check").click().run()
    assert "Type a number first." in _texts(at.warning)
    at.button(key="ex_learned_past_max_len_check").click().run()
    assert "Pick an answer first." in _texts(at.warning)
    assert _panel(at).label.startswith("Exercises (0 of")


def test_the_rope_proof_unlocks_step_by_step():
    at = _open("posenc_lab/lessons/rope/page.py")
    proof = next(ex for ex in BANK["posenc_lab/lessons/rope/page.py"] if isinstance(ex, Guided))
    s1, s2, s3, s4 = proof.steps
    radios = lambda: {r.key for r in at.radio}  # noqa: E731
    assert f"ex_{s1.key}_choice" in radios() and f"ex_{s2.key}_choice" not in radios()
    assert any("Step 2 of 4 opens" in c.value for c in at.caption)

    _answer(at, s1, _wrong_value(s1)[0])
    assert f"ex_{s2.key}_choice" not in radios()
    _answer(at, s1, s1.answer_index)
    assert f"ex_{s2.key}_choice" in radios()
    assert f"ex_{s3.key}_value" not in {n.key for n in at.number_input}

    _answer(at, s2, s2.answer_index)
    # step 3: the student's own m, n, s; the score shown is posenc's
    m, n, s = 7, 3, 50
    for name, value in zip("mns", (m, n, s), strict=True):
        at.number_input(key=f"ex_{s3.key}_{name}").set_value(value)
    at.run()
    shown = next(t for t in _texts(at.markdown) if t.startswith(f"score({m}, {n}) = "))
    score = float(re.search(r"\*\*(-?[\d.]+)\*\*", shown).group(1))
    assert f"ex_{s4.key}_choice" not in radios()
    _answer(at, s3, round(score + 1, 4))
    assert "leaves n − m = −4 unchanged" in " ".join(_texts(at.error))
    _answer(at, s3, score)
    assert f"score({m + s}, {n + s})" in " ".join(_texts(at.success))

    # the independent check: RoPE's score did not move (q, k as the bank draws them)
    q, k = np.random.default_rng(rope_exercises.ROPE_SEED).standard_normal((2, rope_exercises.ROPE_HEAD_DIM))
    grid = posenc.rope_scores(q, k, [m, m + s], [n, n + s])
    assert grid[1, 1] == pytest.approx(grid[0, 0], abs=1e-9) == pytest.approx(score, abs=1e-4)

    assert _panel(at).label.startswith("Exercises (0 of")
    _answer(at, s4, s4.answer_index)
    assert any("Proved" in text for text in _texts(at.success))
    assert _panel(at).label == f"Exercises (1 of {len(BANK['posenc_lab/lessons/rope/page.py'])} solved)"
    assert _home_progress(at) == f"Exercises solved in this browser: 1 of {TOTAL}"


def test_progress_survives_page_switches():
    at = _open("posenc_lab/lessons/sinusoidal/page.py")
    sin = BANK["posenc_lab/lessons/sinusoidal/page.py"][0]
    _answer(at, sin, _right_value(sin, at))
    at.switch_page("posenc_lab/lessons/learned/page.py").run()
    learned = BANK["posenc_lab/lessons/learned/page.py"][0]
    _answer(at, learned, learned.answer_index)
    assert _home_progress(at) == f"Exercises solved in this browser: 2 of {TOTAL}"
    at.switch_page("posenc_lab/lessons/sinusoidal/page.py").run()
    assert_clean(at)
    assert _panel(at).label == f"Exercises (1 of {len(BANK['posenc_lab/lessons/sinusoidal/page.py'])} solved)"
    assert any(t.startswith(f"**1. {sin.title}** :material/check_circle: (solved)") for t in _texts(at.markdown))


def test_home_page_invites_before_anything_is_solved():
    at = open_page()
    assert not at.get("progress")
    assert any(f"({TOTAL} in all)" in c.value for c in at.caption)


# progress kept in the browser (ui.progress): the restore path, given what a browser stored


def _with_stored(raw, page: str | None = None):
    """A fresh session whose browser reported ``raw`` from its storage (the component's state,
    as the browser sets it), then ``page``."""
    from app_helpers import APP, TIMEOUT
    from streamlit.testing.v1 import AppTest

    from posenc_lab.ui import progress as stored_progress

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state[stored_progress.COMPONENT_KEY] = {"stored": raw}
    at.run()
    assert_clean(at)
    if page is not None:
        at.switch_page(page).run()
        assert_clean(at)
    return at


def _store_data(at) -> dict:
    """What the page last handed the storage component (its JSON data)."""
    import json

    elements = [el for el in at.get("bidi_component") if el.proto.component_name.endswith("posenc_progress_store")]
    assert len(elements) == 1
    return json.loads(elements[0].proto.json)


def test_restore_keeps_only_the_keys_of_real_exercises():
    from posenc_lab.ui import exercises as ui_exercises
    from posenc_lab.ui import progress as stored_progress

    valid = ui_exercises.progress_keys(lessons.COURSE)
    proof = next(ex for ex in lessons.all_exercises() if isinstance(ex, Guided))
    # a guided exercise is solved step by step: its steps' keys are what is stored
    assert {step.key for step in proof.steps} <= valid and proof.key not in valid
    assert len(valid) == sum(len(ex.steps) if isinstance(ex, Guided) else 1 for ex in lessons.all_exercises())
    raw = '["sin_pe_value", "no_such_exercise", 3, null, {"a": 1}, "sin_pe_value"]'
    assert stored_progress.restore(raw, valid) == {"sin_pe_value"}
    for junk in (None, "", "[", "not json", '{"sin_pe_value": true}', '"sin_pe_value"', 5, "[" + " " * 30_000 + "]"):
        assert stored_progress.restore(junk, valid) == set(), junk


def test_stored_progress_comes_back_in_a_new_session():
    sin, learned = BANK["posenc_lab/lessons/sinusoidal/page.py"][0], BANK["posenc_lab/lessons/learned/page.py"][0]
    at = _with_stored(f'["{sin.key}", "{learned.key}", "made_up_key"]')
    assert _home_progress(at) == f"Exercises solved in this browser: 2 of {TOTAL}"
    at.switch_page("posenc_lab/lessons/sinusoidal/page.py").run()
    assert_clean(at)
    assert _panel(at).label == f"Exercises (1 of {len(BANK['posenc_lab/lessons/sinusoidal/page.py'])} solved)"


def test_unreadable_storage_restores_nothing_and_shows_no_error():
    at = _with_stored("{this is not json", "posenc_lab/lessons/learned/page.py")
    assert _panel(at).label == f"Exercises (0 of {len(BANK['posenc_lab/lessons/learned/page.py'])} solved)"
    assert not at.error


def test_every_run_hands_the_browser_the_solved_and_the_valid_keys():
    from posenc_lab.ui import exercises as ui_exercises
    from posenc_lab.ui import progress as stored_progress

    # a first run knows nothing of the browser's storage: the browser adds, it never replaces
    at = _open("posenc_lab/lessons/learned/page.py")
    data = _store_data(at)
    assert data["key"] == stored_progress.STORAGE_KEY
    assert data["save"] == [] and data["valid"] == sorted(ui_exercises.progress_keys(lessons.COURSE))
    learned = BANK["posenc_lab/lessons/learned/page.py"][0]
    _answer(at, learned, learned.answer_index)
    assert _store_data(at)["save"] == [learned.key]
    at.switch_page(HOME).run()
    assert _store_data(at)["save"] == [learned.key]
