"""The exercises at the end of the lesson "Experiments" (``lessons/experiments.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

from ui.exercise_kinds import Choice, MultipleChoice

EXERCISES = (
    MultipleChoice(
        key="exp_copy_offset",
        title="Copy from k back",
        question=(
            "In the *copy k back* task (answer with the token exactly k places back), one position method fails "
            "even at the training length. Which one, and why?"
        ),
        choices=(
            Choice(
                "ALiBi: its only position signal is a penalty that grows with distance.",
                "−m·|i − j| always prefers nearer keys, and ALiBi puts no position into q or k. A head can "
                "make its attention fall off with distance, but never peak exactly k back, so this one-layer "
                "model has no way to single out the token to copy. (No positions at all fails too: it cannot tell "
                "where any key is.)",
                right=True,
            ),
            Choice(
                "RoPE: rotations blur exact offsets.",
                "RoPE's score depends on exactly m − n, so a head can learn a q and k whose score peaks at offset k.",
            ),
            Choice(
                "T5: its buckets are too coarse.",
                "Small distances get buckets of their own (the first 16 in the decoder's one-sided scheme), so "
                "T5 can learn its largest bias for offset −k exactly.",
            ),
            Choice(
                "Learned positions: they stop at max_len.",
                "That limits longer inputs, not the training length, where every position has a row that can "
                "learn to match the row k earlier.",
            ),
        ),
        hint="For each method ask: can some head put most of its attention on the key exactly k back, and "
        "not on k − 1?",
    ),
)
