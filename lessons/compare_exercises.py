"""The exercises at the end of the lesson "Compare them all" (``lessons/compare.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

from ui.exercise_kinds import Choice, MultipleChoice

EXERCISES = (
    MultipleChoice(
        key="compare_no_parameters",
        title="Free of parameters",
        question="Which of these methods add **no** learned parameters for position?",
        choices=(
            Choice(
                "sinusoidal, RoPE and ALiBi",
                "The sinusoid and RoPE's angles are formulas, and ALiBi's slopes are fixed by the number of heads.",
                right=True,
            ),
            Choice(
                "sinusoidal, learned and RoPE",
                "The learned table is max_len × d_model trainable numbers.",
            ),
            Choice(
                "RoPE, ALiBi and T5",
                "T5 learns one scalar per bucket and head: 32 × H numbers.",
            ),
            Choice(
                "ALiBi and KERPLE",
                "KERPLE learns r1 and r2 for every head: 2 parameters per head.",
            ),
        ),
        hint="The *Learned parameters* column of the home page's table.",
    ),
    MultipleChoice(
        key="compare_translation",
        title="Move the phrase",
        question="Move a whole phrase several positions to the right. Whose attention scores change?",
        choices=(
            Choice(
                "The added encodings: sinusoidal and learned.",
                "They give each word its absolute position, so the terms mixing words with positions "
                "change. Relative methods see only j − i, which the move leaves alone.",
                right=True,
            ),
            Choice(
                "RoPE's, because each vector is rotated by its absolute position.",
                "Each vector is, but the score sees only the difference of the two angles: the RoPE lesson's "
                "proof, measured at rounding level in the bar chart.",
            ),
            Choice(
                "ALiBi's, because the penalty grows along the sequence.",
                "The penalty is −m·|i − j|: it grows with the distance between two words, not with where they stand.",
            ),
            Choice(
                "Nobody's: position never changes a score.",
                "The sinusoid and the learned table are added to the words, so moving a phrase changes its "
                "queries and keys and hence its scores.",
            ),
        ),
        hint="Which methods see where a word is, and which only how far apart two words are?",
    ),
)
