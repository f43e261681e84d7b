"""The exercises at the end of the lesson "Learned positions" (``lessons/learned.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import posenc
from ui.exercise_kinds import Choice, MultipleChoice, Numeric, too_far


def _params_answer() -> float:
    # one trainable row of d_model numbers per position 0..max_len-1
    return float(posenc.learned_table(2048, 1024).size)


def _params_nudge(given: float, answer: float) -> str | None:
    if given == 2048 + 1024:
        return "You added. The table has max_len rows, and each row holds d_model numbers."
    if given in (2048, 1024):
        return "That counts rows or columns only. The table is max_len × d_model."
    return too_far(given, answer) + " Count the entries of a max_len × d_model table."


EXERCISES = (
    MultipleChoice(
        key="learned_past_max_len",
        title="Past max_len",
        question="A model with learned positions and max_len = 512 gets a text of 600 tokens. Why can't it use them?",
        choices=(
            Choice(
                "There is no row for positions 512 to 599: the table has max_len rows, and nothing was ever "
                "learned for later ones.",
                "A learned table is looked up, not computed. posenc.lookup_learned raises "
                "PositionOutOfRange; real models refuse the input or cut it to max_len.",
                right=True,
            ),
            Choice(
                "The rows past max_len are still random noise.",
                "There are no rows past max_len at all. Random noise is what the rows that do exist hold "
                "before training.",
            ),
            Choice(
                "It can: NumPy wraps index 600 around to an existing row.",
                "NumPy raises IndexError for 600 in a 512-row table; it wraps only negative indices, and "
                "table[-1] silently giving the last row is a classic bug, not a position.",
            ),
            Choice(
                "Its gradients explode on long inputs.",
                "Training has nothing to do with it: the lookup itself fails, since there is nothing to look up.",
            ),
        ),
        hint="What does the heatmap draw below the orange line, and why?",
    ),
    Numeric(
        key="learned_param_count",
        title="What the table costs",
        question="How many trainable numbers does a learned position table with max_len = 2048 and "
        "$d_{model}$ = 1024 add?",
        answer=_params_answer,
        tolerance=0.0,
        hint="One trainable vector per position, each as wide as the model.",
        explain=lambda answer: (
            f"2048 × 1024 = {answer:,.0f}. Sinusoidal, RoPE and ALiBi add none; GPT-2 small's table is "
            "1,024 × 768 = 786,432."
        ),
        nudge=_params_nudge,
        integer=True,
        fmt="%d",
        step=1,
    ),
)
