"""The exercises at the end of the lesson "Relative positions" (``lessons/relative.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import math

import numpy as np

import posenc
from ui.exercise_kinds import Choice, MultipleChoice, Numeric

T5_SETTINGS = dict(bidirectional=True, num_buckets=32, max_distance=128)


def _t5_answer() -> float:
    return float(posenc.t5_bucket(-20, **T5_SETTINGS))


def _t5_explain(answer: float) -> str:
    offsets = np.arange(-T5_SETTINGS["max_distance"], 1)
    shared = offsets[posenc.t5_bucket(offsets, **T5_SETTINGS) == int(answer)]
    inside = math.log(20 / 8) / math.log(128 / 8) * 8
    return (
        f"Bucket {answer:.0f} = 8 + ⌊log(20/8) / log(128/8) · 8⌋ = 8 + ⌊{inside:.2f}⌋. It holds the "
        f"{shared.size} offsets {shared.min()} to {shared.max()}: far apart, T5 stops telling neighbouring "
        "distances apart."
    )


def _t5_nudge(given: float, answer: float) -> str | None:
    if given == answer + 16:
        return "That is the bucket of a key 20 *after* the query. Here j − i = −20, a key before it: no + 16."
    if given == 20:
        return "Only distances below e = 8 get a bucket of their own; 20 is in the log-spaced range."
    if 8 <= given <= 15:
        return "Right range (the log-spaced buckets 8 to 15), wrong bucket: recompute the floor of the log formula."
    return "Keys before the query use buckets 0 to 15, and distances of 8 or more fall in the log-spaced 8 to 15."


EXERCISES = (
    Numeric(
        key="rel_t5_bucket",
        title="Predict a T5 bucket",
        question=(
            "T5's encoder (bidirectional, num_buckets = 32, max_distance = 128). A key 20 positions **before** "
            "the query, so $j - i = -20$: which bucket does it get?"
        ),
        latex=r"\mathrm{bucket}(r) = e + \left\lfloor \frac{\log(|r|/e)}{\log(\mathrm{max\_distance}/e)}\,(n-e)"
        r"\right\rfloor,\quad n = 16,\ e = 8",
        answer=_t5_answer,
        tolerance=0.0,
        hint=(
            "Bidirectional: n = 32 / 2 = 16 buckets per side and e = 8 exact ones. Keys before the query use "
            "buckets 0 to 15 (keys after it add n = 16). Use natural logarithms."
        ),
        explain=_t5_explain,
        nudge=_t5_nudge,
        integer=True,
        fmt="%d",
        step=1,
    ),
    MultipleChoice(
        key="rel_shaw_clip",
        title="Shaw's clipping",
        question=(
            "Shaw et al. with clipping distance K = 3. One query; a key 4 positions after it and another 40 "
            "positions after it. Which relative vectors do the two keys read?"
        ),
        choices=(
            Choice(
                "The same one, $w_3$.",
                "Both clip to +3: clip(4, −3, 3) = clip(40, −3, 3) = 3. Beyond K all keys on one side share the edge "
                "vector, so only their content can tell them apart.",
                right=True,
            ),
            Choice(
                "$w_4$ and $w_{40}$.",
                "Only 2K + 1 = 7 vectors exist, for offsets −3 to 3; larger offsets are clipped to ±3.",
            ),
            Choice(
                "$w_3$ and $w_{-3}$.",
                "Both keys come after the query (positive offsets), so both clip to +3. $w_{-3}$ serves keys "
                "3 or more positions before it.",
            ),
            Choice(
                "None: keys beyond K get no position at all.",
                "Clipping reuses the edge vector; it does not drop it. Far keys still read $w_3$.",
            ),
        ),
        hint="Apply clip(j − i, −K, K) to both offsets.",
    ),
)
