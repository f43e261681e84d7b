"""The exercises at the end of the lesson "Why order matters" (``posenc_lab/lessons/why_order/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import numpy as np

from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.ui import compute
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice

EXERCISES = (
    MultipleChoice(
        key="why_equivariant",
        title="Reorder without positions",
        question=(
            "Take *dog bites man*, reverse it (a permutation $P$) and run self-attention **without** "
            "positions. About how large is $\\max\\,|\\mathrm{Attention}(PX) - P\\,\\mathrm{Attention}(X)|$?"
        ),
        choices=(
            Choice(
                "about 1e-16",
                "$PXW_Q(PXW_K)^\\top = P\\,(XW_Q(XW_K)^\\top)\\,P^\\top$, and softmax acts row by "
                "row, so $\\mathrm{Attention}(PX) = P\\,\\mathrm{Attention}(X)$ exactly. What is left is "
                "float64 rounding: attention alone sees a set of words.",
                right=True,
            ),
            Choice(
                "about 0.05",
                "A difference that size, small but far above rounding, would mean the reordered sentence got "
                "different outputs. Without positions every word carries the same vector wherever it stands, "
                "so the outputs are the old ones, reordered, up to rounding.",
            ),
            Choice(
                "about 1",
                "That would make the outputs unrelated. Reordering the rows of $X$ only reorders the rows "
                "and columns of the score matrix, so each word's output is unchanged, just moved.",
            ),
        ),
        hint="Write the scores for $PX$ and pull $P$ out on both sides. What does a row-wise softmax do to $P$?",
    ),
    MultipleChoice(
        key="why_positions_break",
        title="What positions change",
        question=("Now switch on *Add sinusoidal positions* and reorder again: the difference jumps to order 1. Why?"),
        choices=(
            Choice(
                "A position vector belongs to a slot, not a word: reordered words get other vectors.",
                "After reordering each word carries a different position vector: the input becomes "
                "$PX + PE$, not $P(X + PE)$. No permutation maps the old input onto the new one, so the "
                "outputs really change. That change is the information about order.",
                right=True,
            ),
            Choice(
                "Softmax is not linear, so reordering its inputs no longer just reorders its outputs.",
                "Softmax was there without positions too, and attention was still equivariant. Equivariance "
                "comes from applying the same function to every row, linear or not.",
            ),
            Choice(
                "Adding positions brings rounding error, and reordering the words amplifies it.",
                "Rounding error is about 1e-16. A change of order 1 is a real difference between the two "
                "inputs, not noise.",
            ),
            Choice(
                "The attention weights no longer sum to 1 once position vectors are added.",
                "Each row of softmax weights sums to 1 whatever its inputs; positions do not change that.",
            ),
        ),
        hint="Which part of the input moves with the words when you reorder them, and which part stays put?",
    ),
)


# class-mode polls: the lesson's own sentence, embedding width and seed, reversed

POLL_WORDS = ("dog", "bites", "man")
POLL_WIDTH = 16
#: rounding of a float64 sum of a few terms: below this two outputs are the same
ROUNDING = 1e-12


def _reversed(with_positions: bool) -> dict:
    # the lesson's cached run: "dog bites man" and "man bites dog", one head, seed 0
    order = tuple(range(len(POLL_WORDS)))[::-1]
    return compute.word_attention(POLL_WORDS, POLL_WIDTH, order, with_positions, 0)


def _change_by_word(with_positions: bool) -> np.ndarray:
    """(T,): largest change of each word's output when the sentence is reversed, in the
    original word order (row t of the reversed run belongs to word T - 1 - t)."""
    return _reversed(with_positions)["row_error"][::-1]


SHUFFLE_OPTIONS = ("Not at all (rounding only)", "A little (about 1%)", "A lot (as large as the output)")


def _shuffle_answer() -> float:
    change = float(_change_by_word(False)[0])  # the word "dog"
    out = float(np.abs(_reversed(False)["out"][0]).max())  # dog's output, first in "dog bites man"
    # the option whose size the measured change has, relative to the output itself
    return float(0 if change < ROUNDING else 1 if change < 0.1 * out else 2)


def _shuffle_reveal(answer: float) -> str:
    run = _reversed(False)
    return (
        f"**{SHUFFLE_OPTIONS[int(answer)]}.** The output of *dog* changes by {_change_by_word(False)[0]:.1e} "
        f"(its entries reach {np.abs(run['out'][0]).max():.2f}), and no word's by more than {run['error']:.1e}. "
        "Without positions a word carries the same vector wherever it stands, so attention sees the same set "
        "of words and gives each the same answer: on its own it cannot see order at all."
    )


def _change_figure(with_positions: bool):
    series = {"no positions": _change_by_word(False)}
    if with_positions:
        series["sinusoidal positions added"] = _change_by_word(True)
    return figures.grouped_bars(
        list(POLL_WORDS),
        series,
        title="How much each word's output changes: dog bites man -> man bites dog",
        x_title="word",
        y_title="max |change| (log scale)",
        # one fixed log axis: rounding (1e-16) at the bottom, a real change (about 1) near the top
        log_y=True,
        y_range=(1e-17, 10.0),
        show_values=True,
        value_format=".1e",
    )


#: the words of the sentence, then the answer that none keeps its output
STAYS_OPTIONS = (*POLL_WORDS, "none of them")


def _stays_answer() -> float:
    kept = np.flatnonzero(_change_by_word(True) < ROUNDING)
    # one word keeps its output: that word; none (or, impossibly, several): the last option
    return float(kept[0] if kept.size == 1 else len(POLL_WORDS))


def _stays_reveal(answer: float) -> str:
    change = _change_by_word(True)
    middle = POLL_WORDS[1]
    return (
        f"**{STAYS_OPTIONS[int(answer)].capitalize()}.** With sinusoidal positions added, reversing the sentence "
        f"changes the outputs of {', '.join(f'*{w}* by {c:.2f}' for w, c in zip(POLL_WORDS, change, strict=True))}. "
        f"*{middle}* stays in the middle slot and keeps its position vector, yet its output moves: it attends to "
        "*dog* and *man*, and they have swapped position vectors. A word's output depends on where every word "
        "stands, not only on its own place."
    )


POLLS = (
    Poll(
        key="poll-why_order-reverse",
        scale=True,
        prompt=(
            "Self-attention **without** positions reads *dog bites man*, then *man bites dog*. "
            "How much does the output of the word *dog* change?"
        ),
        options=SHUFFLE_OPTIONS,
        answer=_shuffle_answer,
        reveal=_shuffle_reveal,
        figure=lambda: _change_figure(False),
    ),
    Poll(
        key="poll-why_order-middle-word",
        prompt=(
            "Now **with** sinusoidal positions added, *dog bites man* is reversed to *man bites dog*. "
            "Which word's output stays exactly the same?"
        ),
        options=STAYS_OPTIONS,
        answer=_stays_answer,
        reveal=_stays_reveal,
        figure=lambda: _change_figure(True),
    ),
)
