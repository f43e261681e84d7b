"""The order in which a student sees a question's options (issue 37): dealt so that no
place holds the right answer more often than another, the same on every run for a seed,
and named by the option's index as written wherever an answer is checked or counted."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from app_helpers import assert_clean, open_page

from posenc_lab import course as lessons
from posenc_lab.ui import exercise_kinds as kinds
from posenc_lab.ui import exercises as ui_exercises
from posenc_lab.ui import progress
from posenc_lab.ui.exercise_kinds import Guided, MultipleChoice

#: every multiple-choice question of the bank: the exercises and the steps of guided ones, a
#: variant exercise as first written (its variants keep the number of choices and the right
#: one's index: the deal holds for each)
WRITTEN = ui_exercises.choice_questions(lessons.COURSE)
QUESTIONS = [kinds.concrete(q) for q in WRITTEN]
CHOICE_POLLS = [poll for poll in lessons.all_polls() if poll.options]
SEEDS = [f"{n:016x}" for n in range(2000)]


def _places(seed: str) -> dict[str, int]:
    """Question key -> where the student with ``seed`` sees its right choice (0: on top)."""
    orders = kinds.deal_orders(QUESTIONS, seed)
    return {q.key: orders[q.key].index(q.answer_index) for q in QUESTIONS}


def _chi_square(observed: Counter, expected: dict) -> float:
    return sum((observed[k] - e) ** 2 / e for k, e in expected.items())


def test_the_bank_is_every_multiple_choice_question():
    # the 24 multiple-choice questions the issue counted, and those written since (the real
    # models lesson's), each with the right choice written first (the trap the order undoes)
    assert len(QUESTIONS) >= 24
    steps = [s for ex in lessons.all_exercises() if isinstance(ex, Guided) for s in ex.steps]
    assert {q.key for q in QUESTIONS} == {
        ex.key for ex in [*lessons.all_exercises(), *steps] if isinstance(ex, MultipleChoice)
    }
    assert Counter(q.answer_index for q in QUESTIONS)[0] == len(QUESTIONS)


def test_each_order_shows_every_choice_once():
    for seed in SEEDS[:50]:
        orders = kinds.deal_orders(QUESTIONS, seed)
        assert set(orders) == {q.key for q in QUESTIONS}
        for q in QUESTIONS:
            assert sorted(orders[q.key]) == list(range(len(q.choices)))


def test_the_same_seed_gives_the_same_orders_and_another_seed_others():
    first = kinds.deal_orders(QUESTIONS, SEEDS[7])
    assert kinds.deal_orders(QUESTIONS, SEEDS[7]) == first
    # the lessons' order of the bank does not matter, only its content
    assert kinds.deal_orders(list(reversed(QUESTIONS)), SEEDS[7]) == first
    assert kinds.deal_orders(QUESTIONS, SEEDS[8]) != first


def test_for_every_seed_no_place_holds_more_than_its_share():
    for seed in SEEDS:
        places = _places(seed)
        # among the questions with as many choices, each place holds the right one equally
        # often, give or take one
        for count in {len(q.choices) for q in QUESTIONS}:
            group = Counter(places[q.key] for q in QUESTIONS if len(q.choices) == count)
            held = [group[place] for place in range(count)]
            assert max(held) - min(held) <= 1, (seed, count, held)
        # over the whole bank no place holds more than a third of the right answers (a fair
        # deal gives each of the top three places 6 or 7 of the 24, the fourth 4 or 5)
        overall = Counter(places.values())
        assert max(overall.values()) <= len(QUESTIONS) / 3, (seed, overall)


def test_over_many_seeds_every_question_puts_its_right_choice_in_every_place_alike():
    seen = {q.key: Counter() for q in QUESTIONS}
    for seed in SEEDS:
        for key, place in _places(seed).items():
            seen[key][place] += 1
    for q in QUESTIONS:
        count = len(q.choices)
        expected = {place: len(SEEDS) / count for place in range(count)}
        # chi-square with count - 1 degrees of freedom; 20 is beyond its 0.999 quantile
        # (16.3 for three degrees), and every one of the 24 questions must stay below it
        assert _chi_square(seen[q.key], expected) < 20, (q.key, seen[q.key])


def test_the_wrong_choices_are_shuffled_too():
    q = next(q for q in QUESTIONS if len(q.choices) == 4)
    orders = Counter(tuple(kinds.deal_orders(QUESTIONS, seed)[q.key]) for seed in SEEDS)
    assert len(orders) == math.factorial(4), "all 24 orders of four choices occur"


# polls: one order per student, the projector's as written


def test_a_poll_order_is_stable_and_differs_between_students():
    for poll in CHOICE_POLLS:
        assert poll.order("student-a") == poll.order("student-a")
        orders = {tuple(poll.order(f"student-{n}")) for n in range(200)}
        assert all(sorted(o) == list(range(len(poll.options))) for o in orders)
        if poll.scale:
            written = tuple(range(len(poll.options)))
            assert orders == {written, written[::-1]}, poll.key
        else:
            assert len(orders) >= min(math.factorial(len(poll.options)), 60), poll.key


def test_a_poll_puts_its_right_option_in_every_place_it_can():
    for poll in CHOICE_POLLS:
        right = int(poll.answer())
        places = Counter(poll.order(f"student-{n}").index(right) for n in range(400))
        count = len(poll.options)
        if poll.scale:
            # as written or reversed: two places, or one in the middle of an odd scale
            assert set(places) == {right, count - 1 - right}, poll.key
        else:
            assert set(places) == set(range(count)), poll.key


def test_option_order_is_seeded_by_the_string_not_by_python_hash():
    # the same order in every process: PYTHONHASHSEED (which salts hash()) plays no part
    assert kinds.option_order(5, "abc", "poll-x") == kinds.option_order(5, "abc", "poll-x")
    orders = {tuple(kinds.option_order(4, "abc", key)) for key in map(str, range(60))}
    assert len(orders) > 10, "another key, another order"


# the page: a student picks an option by its text


def _session_with_seed(seed: str, page: str):
    """A session whose browser reported ``seed`` from its storage, on ``page``."""
    from app_helpers import APP, TIMEOUT
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state[progress.COMPONENT_KEY] = {"stored": None, "seed": seed}
    at.run()
    at.switch_page(page).run()
    assert_clean(at)
    return at


def _drawn(ex: MultipleChoice, seed: str) -> MultipleChoice:
    """The question as a student with ``seed`` sees it first: its first variant, if it has variants."""
    written = next(q for q in WRITTEN if q.key == ex.key)
    return kinds.concrete(written, kinds.draw(written, seed, 0)) if written.params else written


def _shown(at, ex: MultipleChoice) -> list[str]:
    """The texts of the choices as the page lists them, top to bottom."""
    return at.radio(key=f"ex_{ex.key}_choice").options


def test_the_page_lists_the_choices_in_the_browsers_order_and_a_reload_keeps_it():
    seed = SEEDS[3]
    shown: dict[str, list[str]] = {}
    for lesson in lessons.LESSONS:
        mcs = [ex for ex in lesson.exercises if isinstance(ex, MultipleChoice)]
        if mcs:
            at = _session_with_seed(seed, lesson.path)
            again = _session_with_seed(seed, lesson.path)  # a reload: a new session, the same browser
            for ex in mcs:
                shown[ex.key] = _shown(at, ex)
                assert _shown(again, ex) == shown[ex.key], "a reload keeps the order"
    # what the student sees: the right choice is not always on top
    places = [
        shown[ex.key].index(_drawn(ex, seed).choices[ex.answer_index].text) for ex in QUESTIONS if ex.key in shown
    ]
    assert len(places) >= 15
    assert Counter(places)[0] <= len(places) / 2, places
    # the order is the one dealt from the seed the browser reported
    orders = kinds.deal_orders(QUESTIONS, seed)
    for ex in QUESTIONS:
        if ex.key in shown:
            assert shown[ex.key] == [_drawn(ex, seed).choices[i].text for i in orders[ex.key]]


def test_the_right_choice_picked_by_its_text_is_right_wherever_it_is_shown():
    lesson = lessons.lesson_by_path("posenc_lab/lessons/learned/page.py")
    ex = next(ex for ex in lesson.exercises if isinstance(ex, MultipleChoice))
    # a seed that shows the right choice below the top
    seed = next(s for s in SEEDS if kinds.deal_orders(QUESTIONS, s)[ex.key][0] != ex.answer_index)
    ex = _drawn(ex, seed)  # the variant that student sees
    right_text = ex.choices[ex.answer_index].text
    at = _session_with_seed(seed, lesson.path)
    radio = at.radio(key=f"ex_{ex.key}_choice")
    assert radio.options.index(right_text) > 0
    # the student clicks the option that reads right_text
    value = next(v for v in range(len(ex.choices)) if radio.format_func(v) == right_text)
    radio.set_value(value)
    at.button(key=f"ex_{ex.key}_check").click().run()
    assert_clean(at)
    assert any(s.value.startswith("**Right.**") for s in at.success)
    assert ex.key in at.session_state["_ex:solved"]
    # and the wrong one just above it is wrong
    above = at.radio(key=f"ex_{ex.key}_choice").options[0]
    wrong = next(v for v in range(len(ex.choices)) if radio.format_func(v) == above)
    at.radio(key=f"ex_{ex.key}_choice").set_value(wrong)
    at.button(key=f"ex_{ex.key}_check").click().run()
    assert any(e.value.startswith("**Not quite.**") for e in at.error)


def test_a_session_without_a_browser_seed_makes_one_and_hands_it_to_the_browser():
    at = open_page("posenc_lab/lessons/learned/page.py")
    seed = at.session_state[progress.SEED]
    assert progress.SEED_PATTERN.fullmatch(seed)
    data = next(
        json.loads(el.proto.json)
        for el in at.get("bidi_component")
        if el.proto.component_name.endswith("posenc_progress_store")
    )
    assert data["seed_key"] == progress.SEED_KEY and data["seed"] == seed
    at.run()
    assert at.session_state[progress.SEED] == seed, "a session keeps its seed from run to run"


@pytest.mark.parametrize("junk", ["", "short", "g" * 16, "0" * 17, None, 5, ["0" * 16]])
def test_a_malformed_seed_from_the_browser_is_not_taken(junk):
    at = _session_with_seed(junk, "posenc_lab/lessons/learned/page.py")
    assert at.session_state[progress.SEED] != junk
    assert progress.SEED_PATTERN.fullmatch(at.session_state[progress.SEED])
