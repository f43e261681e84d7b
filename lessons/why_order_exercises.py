"""The exercises at the end of the lesson "Why order matters" (``lessons/why_order.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

from ui.exercise_kinds import Choice, MultipleChoice

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
                "about 0.5",
                "No: a visible difference would mean the reordered sentence got different outputs. Without "
                "positions every word carries the same vector wherever it stands, so the outputs are the old "
                "ones, reordered, up to rounding.",
            ),
            Choice(
                "about 1",
                "No: that would make the outputs unrelated. Reordering the rows of $X$ only reorders the rows "
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
                "A position vector stays with its slot, not with its word, so after reordering each word "
                "carries a different position vector.",
                "The input becomes $PX + PE$, not $P(X + PE)$: no permutation maps the old input onto "
                "the new one, so the outputs really change. That change is the information about order.",
                right=True,
            ),
            Choice(
                "Softmax is not linear.",
                "Softmax was there without positions too, and attention was still equivariant. Equivariance "
                "comes from applying the same function to every row, linear or not.",
            ),
            Choice(
                "Adding positions brings rounding error.",
                "Rounding error is about 1e-16. A change of order 1 is a real difference between the two "
                "inputs, not noise.",
            ),
            Choice(
                "The attention weights no longer sum to 1.",
                "Each row of softmax weights sums to 1 whatever its inputs; positions do not change that.",
            ),
        ),
        hint="Which part of the input moves with the words when you reorder them, and which part stays put?",
    ),
)
