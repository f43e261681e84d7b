"""The exercises at the end of the lesson "Compare them all" (``posenc_lab/lessons/compare/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import numpy as np

from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.compare import compute as compute_compare
from posenc_lab.lessons.compare import figures as compare_figures
from posenc_lab.lessons.compare import measure as compare_lessons
from posenc_lab.lessons.compare.figures import ROUNDING_BELOW
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice

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


# class-mode polls ("predict before you see it"): the page's default settings, computed when asked

#: the page's defaults: a 64-token phrase, Dh = 64, H = 8, L = 256, K = 16
SEQ_LEN, HEAD_DIM, HEADS, TRAIN_LEN, SHAW_K = 64, 64, 8, 256, 16
#: the methods the stripes poll offers, in order
STRIPES_OFFERED = ("sinusoidal", "rope", "shaw", "alibi")


def _name(method: str) -> str:
    return compute_compare.SHORT[method]


def _diagonal_changes() -> dict[str, float]:
    """Per method (not "none"): max |P[i+1, j+1] - P[i, j]| of what position adds to the scores of
    a phrase of random words. 0 means the change depends on j - i alone: stripes along the diagonals."""
    x = compare_lessons.phrase(SEQ_LEN, HEAD_DIM, "random", seed=compute_compare.SEED)  # (T, Dh)
    out = {}
    for method in compute_compare.ORDER[1:]:
        options = compute_compare.options(method, TRAIN_LEN, HEADS, SHAW_K)
        part = compare_lessons.positional_part(x, np.arange(SEQ_LEN), method, **options)  # (T, T)
        out[method] = float(np.abs(part[1:, 1:] - part[:-1, :-1]).max())
    return out


def _stripes_answer() -> float:
    changes = _diagonal_changes()
    clean = [i for i, m in enumerate(STRIPES_OFFERED) if changes[m] < ROUNDING_BELOW]
    # exactly one offered method keeps clean stripes (the tests check): its index
    return float(clean[0]) if len(clean) == 1 else float("nan")


def _stripes_reveal(answer: float) -> str:
    changes = _diagonal_changes()
    method = STRIPES_OFFERED[int(answer)]
    clean = [_name(m) for m, c in changes.items() if c < ROUNDING_BELOW]
    others = ", ".join(f"{_name(m)} {changes[m]:.3g}" for m in STRIPES_OFFERED if changes[m] >= ROUNDING_BELOW)
    return (
        f"**{_name(method)}.** Along every diagonal, what position adds to its scores varies by at most "
        f"{changes[method]:.0e}, rounding; for the other options by up to: {others}. Only the biases, "
        f"{compute_compare.join(clean)}, leave the words out. RoPE and Shaw are relative too, but what they add "
        "is a product with the words' vectors, so it changes from word to word: relative is not content-free."
    )


def _stripes_figure():
    changes = _diagonal_changes()
    return compare_figures.translation_bars(
        [_name(m) for m in changes],
        list(changes.values()),
        title=f"Random words: how much the position part of the scores varies along its diagonals, T = {SEQ_LEN}",
        height=460,
    )


def _parameter_counts() -> dict[str, int]:
    """Learned parameters of each method that gives attention positions (not "none")."""
    return {
        method: compare_lessons.parameter_count(
            method,
            max_len=TRAIN_LEN,
            head_dim=HEAD_DIM,
            n_heads=HEADS,
            max_distance=SHAW_K,
            num_buckets=compute_compare.T5_BUCKETS,
        )
        for method in compute_compare.ORDER
        if method != "none"
    }


def _free_answer() -> float:
    return float(sum(count == 0 for count in _parameter_counts().values()))


def _free_reveal(answer: float) -> str:
    counts = _parameter_counts()
    free = [compute_compare.SHORT[m] for m, c in counts.items() if c == 0]
    return (
        f"**{answer:.0f} of {len(counts)}**: {compute_compare.join(free)} are formulas of the position or the "
        f"distance, fixed before training. The learned table costs {counts['learned']:,} numbers "
        f"(L x d_model = {TRAIN_LEN} x {HEADS * HEAD_DIM}), Shaw's vectors {counts['shaw']:,}, T5's buckets "
        f"{counts['t5']:,} and KERPLE {counts['kerple']:,} (two per head)."
    )


#: the learned biases the exercise "Free of parameters" offers as free (T5's buckets, KERPLE's r1, r2)
BIASES = ("t5", "kerple")


def _free_misconceptions() -> tuple[tuple[float, str], ...]:
    """The wrong counts the lesson names: ALiBi's slopes taken as learned (the common claims'
    "ALiBi adds h scalars"), and T5's and KERPLE's learned biases taken as formulas (the
    exercise's wrong choices)."""
    counts = _parameter_counts()
    free = [m for m, c in counts.items() if c == 0]
    return (
        (float(len(free) - ("alibi" in free)), "ALiBi's slopes taken as learned"),
        (float(len(free) + sum(m in counts for m in BIASES)), "T5's and KERPLE's biases taken as fixed"),
    )


def _free_figure():
    counts = _parameter_counts()
    return figures.grouped_bars(
        [compute_compare.SHORT[m] for m in counts],
        {"learned parameters": list(counts.values())},
        title=f"Learned parameters for position, L = {TRAIN_LEN}, H = {HEADS}, Dh = {HEAD_DIM}, K = {SHAW_K}",
        x_title="method",
        y_title="parameters (log scale)",
        value_format=",.0f",
        log_y=True,
        y_range=(0.5, 1e7),
        show_values=True,
        height=440,
    )


POLLS = (
    Poll(
        key="poll-compare-stripes",
        prompt=(
            f"A {SEQ_LEN}-word phrase of random words. Which method adds to the attention scores a change that "
            "depends only on the distance j - i, the same for every pair of words?"
        ),
        options=tuple(_name(m) for m in STRIPES_OFFERED),
        answer=_stripes_answer,
        reveal=_stripes_reveal,
        figure=_stripes_figure,
    ),
    Poll(
        key="poll-compare-free-methods",
        prompt=(
            f"This page compares {len(compute_compare.ORDER) - 1} ways of giving attention word positions. "
            "How many of them add no learned parameter at all?"
        ),
        answer=_free_answer,
        reveal=_free_reveal,
        figure=_free_figure,
        misconceptions=_free_misconceptions,
        integer=True,
        low=0.0,
        high=float(len(compute_compare.ORDER) - 1),
        unit="methods",
    ),
)
