"""The exercises at the end of the lesson "Relative positions" (``posenc_lab/lessons/relative/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import math

import numpy as np

import posenc
from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.relative import compute as compute_relative
from posenc_lab.lessons.relative import figures as relfig
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice, Numeric

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


# class-mode polls

EDGE_LENGTH = 64
EDGE_CLIP = 3


def _vector_counts() -> tuple[np.ndarray, np.ndarray]:
    """Shaw et al. with K = 3 on 64 positions: the offsets -K..K (2K+1,) and how many of the
    64 x 64 (query, key) pairs read each offset's vector (2K+1,)."""
    _, clipped = compute_relative.offsets(EDGE_LENGTH, EDGE_CLIP)  # (T, T) in -K..K
    offsets = np.arange(-EDGE_CLIP, EDGE_CLIP + 1)
    return offsets, np.bincount((clipped + EDGE_CLIP).ravel(), minlength=offsets.size)


def _edge_answer() -> float:
    offsets, counts = _vector_counts()
    edge = np.abs(offsets) == EDGE_CLIP
    return float(100 * counts[edge].sum() / counts.sum())


def _edge_reveal(answer: float) -> str:
    offsets, counts = _vector_counts()
    inner = int(counts[np.abs(offsets) < EDGE_CLIP].sum())
    return (
        f"**{answer:.1f}%** of the {counts.sum():,} pairs read one of the two edge vectors $w_{{-3}}$ or "
        f"$w_{{3}}$; only {inner} pairs, those within 2 of the query, get a vector of their own offset. "
        "With a small K the position part of the score only tells near keys apart: for most pairs of a long "
        "text it says just 'somewhere before' or 'somewhere after', and the rest must come from the words."
    )


def _edge_figure():
    offsets, counts = _vector_counts()
    labels = [f"{o:+d}" if o else "0" for o in offsets]
    labels[0], labels[-1] = f"≤ {labels[0]}", f"≥ {labels[-1]}"  # the edge vectors
    fig = figures.grouped_bars(
        labels,
        {"(query, key) pairs": counts},
        title=f"Which relative vector each pair reads: Shaw et al., K = {EDGE_CLIP}, T = {EDGE_LENGTH}",
        x_title="offset j - i, clipped (the vector read)",
        y_title="pairs",
        value_format=",.0f",
        show_values=True,
    )
    # labels such as "+1" would otherwise make Plotly draw a numeric axis and drop the edge labels
    return fig.update_xaxes(type="category")


SHARED_OFFSET = -50


def _shared() -> tuple[int, np.ndarray]:
    """T5's encoder buckets: the bucket of offset -50 and every offset -128..0 in it."""
    offsets = np.arange(-T5_SETTINGS["max_distance"], 1)
    buckets = posenc.t5_bucket(offsets, **T5_SETTINGS)
    bucket = int(posenc.t5_bucket(SHARED_OFFSET, **T5_SETTINGS))
    return bucket, offsets[buckets == bucket]


def _shared_answer() -> float:
    return float(_shared()[1].size)


def _shared_reveal(answer: float) -> str:
    bucket, held = _shared()
    exact = posenc.relative.t5_max_exact(T5_SETTINGS["num_buckets"], T5_SETTINGS["bidirectional"])
    return (
        f"**{answer:.0f} offsets**: bucket {bucket} holds every offset from {held.min()} to {held.max()}, and "
        f"one learned bias serves them all. T5 gives offsets −{exact - 1} to {exact - 1} a bucket each, then "
        f"spaces the buckets logarithmically up to {T5_SETTINGS['max_distance']}: the farther a key, the coarser "
        f"its distance, so {-held.max()} and {-held.min()} words back are the same place to this bias."
    )


def _shared_figure():
    bucket, held = _shared()
    curve = compute_relative.t5_curve(T5_SETTINGS["num_buckets"], T5_SETTINGS["max_distance"], True)
    # keys before the query, out to max_distance: the side the question is about, wide enough to read
    before = (curve["rel"] <= 0) & (curve["rel"] >= -T5_SETTINGS["max_distance"])
    return relfig.bucket_chart(
        curve["rel"][before],
        curve["bucket"][before],
        curve["region"][before],
        compute_relative.T5_REGIONS,
        title=f"T5's encoder buckets (32 buckets, max_distance 128): bucket {bucket} runs {held.min()} to {held.max()}",
        x_title="relative position j - i (key minus query)",
        vlines=[dict(x=int(held.min()), text=str(held.min())), dict(x=int(held.max()), text=str(held.max()), level=1)],
    )


POLLS = (
    Poll(
        key="poll-relative-edge-vectors",
        prompt=(
            "Shaw et al. clip offsets to ±3: offsets beyond share the edge vector w₋₃ or w₃. In a 64-token "
            "text, what percentage of the 64 × 64 (query, key) pairs read an edge vector?"
        ),
        answer=_edge_answer,
        reveal=_edge_reveal,
        figure=_edge_figure,
        tolerance=5.0,
        low=0.0,
        high=100.0,
        unit="%",
        view=f"relative?view=matrix&len={EDGE_LENGTH}&clip={EDGE_CLIP}",
    ),
    Poll(
        key="poll-relative-t5-shared-bucket",
        prompt=(
            "T5's encoder (32 buckets, max_distance 128) puts the offset $j - i = -50$ in a bucket. How many "
            "offsets share that bucket, −50 included?"
        ),
        answer=_shared_answer,
        reveal=_shared_reveal,
        figure=_shared_figure,
        tolerance=2.0,
        low=1.0,
        high=64.0,
        integer=True,
        unit="offsets",
        view=(
            f"relative?view=t5&nb={T5_SETTINGS['num_buckets']}&maxd={T5_SETTINGS['max_distance']}"
            f"&bidir={int(T5_SETTINGS['bidirectional'])}"
        ),
    ),
)
