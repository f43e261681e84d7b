"""The length of a question's options says nothing about which is right (a learner's report:
the right option was the longest in 15 of 26 questions, once twice as long as any other).

Measured as a student reads an option: its Markdown and maths as plain text
(``figures.notation.plain_markdown``, the dashboard's words), so ``$\\theta$`` counts as
one character, as on screen."""

from __future__ import annotations

from collections import Counter

from posenc_lab import course as lessons
from posenc_lab.figures import notation
from posenc_lab.ui import exercises as ui_exercises
from posenc_lab.ui.exercise_kinds import MultipleChoice, concrete, variants

#: every multiple-choice question of the bank (the exercises and the steps of guided ones), a
#: variant question as first written (the variant a class sees)
BANK = ui_exercises.choice_questions(lessons.COURSE)
QUESTIONS = [concrete(q) for q in BANK]
#: the right option may be longer than the longest wrong one, but not by much: a few
#: characters of a number ("1e-16" against "0.05") are no tell, a clause of qualifiers is
MOST_LONGER = 1.2


def _lengths(question: MultipleChoice) -> tuple[int, list[int]]:
    """(the right option's length, the wrong ones'), in characters as shown."""
    shown = [len(notation.plain_markdown(choice.text)) for choice in question.choices]
    right = question.answer_index
    return shown[right], [n for i, n in enumerate(shown) if i != right]


def _fair_share() -> float:
    """How many questions would have their right option longest (or shortest) by chance:
    one in three for three options, one in four for four."""
    return sum(1 / len(q.choices) for q in QUESTIONS)


def test_the_bank_is_measured_whole():
    assert len(QUESTIONS) >= 26
    assert Counter(len(q.choices) for q in QUESTIONS).keys() <= {3, 4}


def test_no_right_option_is_much_longer_than_every_wrong_one():
    too_long = {}
    for q in QUESTIONS:
        right, wrong = _lengths(q)
        if right > MOST_LONGER * max(wrong):
            too_long[q.key] = f"{right} against at most {max(wrong)}"
    assert not too_long, too_long


def test_no_variant_makes_its_right_option_much_longer_than_every_wrong_one():
    # a variant's options are written from its numbers: the tell must not come back in one
    too_long = {}
    for q in BANK:
        for params in variants(q):
            right, wrong = _lengths(concrete(q, params))
            if right > MOST_LONGER * max(wrong):
                too_long.setdefault(q.key, []).append((params, f"{right} against at most {max(wrong)}"))
    assert not too_long, {key: found[:3] for key, found in too_long.items()}


def test_the_right_option_is_the_longest_no_more_often_than_by_chance():
    # a tie counts: a student cannot tell two options of the same length apart either
    longest = [q.key for q in QUESTIONS if _lengths(q)[0] >= max(_lengths(q)[1])]
    assert len(longest) <= _fair_share(), (len(longest), round(_fair_share(), 2), longest)


def test_nor_the_shortest():
    # cutting the right options down must not turn the tell around
    shortest = [q.key for q in QUESTIONS if _lengths(q)[0] <= min(_lengths(q)[1])]
    assert len(shortest) <= _fair_share(), (len(shortest), round(_fair_share(), 2), shortest)


def test_typically_the_right_option_is_no_longer_than_the_wrong_ones():
    # the report's median: the right option against the mean of the wrong ones (it was 1.41)
    ratios = sorted(right / (sum(wrong) / len(wrong)) for right, wrong in map(_lengths, QUESTIONS))
    median = (ratios[len(ratios) // 2] + ratios[(len(ratios) - 1) // 2]) / 2
    assert median <= 1.1, median
