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
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice, Numeric, Param

T5_SETTINGS = dict(bidirectional=True, num_buckets=32, max_distance=128)
#: T5's encoder: n = 16 buckets per direction, the first e = 8 of them exact
T5_PER_SIDE, T5_EXACT = 16, 8
#: the skills the exercises practise (the lesson's ``skills``)
SKILLS = {"t5_bucket": "Find a T5 bucket", "clip": "Clip an offset (Shaw et al.)"}
#: offsets j - i of the bucket question: in the log-spaced range, before or after the query,
#: short of bucket 8 and 15's edges (12 to 90 apart: buckets 9 to 14 on either side)
T5_OFFSETS = tuple(r for r in range(-90, 91) if abs(r) >= 12)
#: how close the log term may come to a whole number: a student working to two decimals
#: must not floor it to the other bucket (float32 in T5 itself lands on either side of 2.0)
T5_FLOOR_MARGIN = 0.05


def _t5_inside(r: int) -> float:
    # log(|r| / e) / log(max_distance / e) * (n - e), the term T5 floors
    return math.log(abs(r) / T5_EXACT) / math.log(T5_SETTINGS["max_distance"] / T5_EXACT) * (T5_PER_SIDE - T5_EXACT)


def _t5_answer(r: int) -> float:
    return float(posenc.t5_bucket(r, **T5_SETTINGS))


def _t5_side(r: int) -> int:
    # keys after the query (j - i > 0) take the upper n buckets
    return T5_PER_SIDE if r > 0 else 0


def _t5_turns(r: int) -> dict[str, float]:
    """The values the known wrong turns give (each nudge's own value)."""
    floor = math.floor(_t5_inside(r))
    side = _t5_side(r)
    return {
        "side": T5_PER_SIDE - side + T5_EXACT + floor,  # the other direction's bucket
        "distance": float(abs(r)),  # the distance taken as its own bucket
        "no_exact": side + floor,  # the log term without the e = 8 exact buckets before it
    }


def _t5_fair(r: int) -> bool:
    inside = _t5_inside(r)
    if abs(inside - round(inside)) < T5_FLOOR_MARGIN:
        return False
    answer = _t5_side(r) + T5_EXACT + math.floor(inside)
    values = [answer, *_t5_turns(r).values()]
    # each wrong turn gives its own number, none the answer: every nudge names the turn taken
    return len(set(values)) == len(values)


def _t5_where(r: int) -> str:
    return "before" if r < 0 else "after"


def _t5_question(r: int) -> str:
    return (
        f"T5's encoder (bidirectional, num_buckets = 32, max_distance = 128). A key {abs(r)} positions "
        f"**{_t5_where(r)}** the query, so $j - i = {r}$: which bucket does it get?"
    )


def _signed(r: int) -> str:
    return f"{r}".replace("-", "−")


def _t5_explain(answer: float, r: int) -> str:
    offsets = np.arange(-T5_SETTINGS["max_distance"], T5_SETTINGS["max_distance"] + 1)
    shared = offsets[posenc.t5_bucket(offsets, **T5_SETTINGS) == int(answer)]
    side = f"{T5_PER_SIDE} + " if r > 0 else ""
    inside = _t5_inside(r)
    return (
        f"Bucket {answer:.0f} = {side}8 + ⌊log({abs(r)}/8) / log(128/8) · 8⌋ = {side}8 + ⌊{inside:.2f}⌋. It holds "
        f"the {shared.size} offsets {_signed(int(shared.min()))} to {_signed(int(shared.max()))}: far apart, T5 "
        "stops telling neighbouring distances apart."
    )


def _t5_nudge(given: float, answer: float, r: int) -> str | None:
    turns = _t5_turns(r)
    if given == turns["side"]:
        if r < 0:
            return (
                f"That is the bucket of a key {-r} *after* the query. Here j − i = {_signed(r)}, a key before it: "
                "no + 16."
            )
        return f"That is the bucket of a key {r} *before* the query. Here j − i = {r}, a key after it: add n = 16."
    if given == turns["distance"]:
        return f"Only distances below e = 8 get a bucket of their own; {abs(r)} is in the log-spaced range."
    if given == turns["no_exact"]:
        return "That leaves out the 8 exact buckets: the log-spaced ones start at e = 8, so add 8."
    low = _t5_side(r) + T5_EXACT
    if low <= given < low + T5_PER_SIDE - T5_EXACT:
        return (
            f"Right range (the log-spaced buckets {low} to {low + T5_PER_SIDE - T5_EXACT - 1}), wrong bucket: "
            "recompute the floor of the log formula."
        )
    return (
        f"Keys {_t5_where(r)} the query use buckets {_t5_side(r)} to {_t5_side(r) + T5_PER_SIDE - 1}, and "
        f"distances of 8 or more fall in the log-spaced {low} to {low + T5_PER_SIDE - T5_EXACT - 1}."
    )


#: the clipping question: clipping distance K, a near key just past it and a far one, on
#: one side of the query (+1: after, -1: before)
SHAW_CLIPS = tuple(range(2, 9))
SHAW_NEAR_PAST = (1, 2, 3)  # the near key lies K + 1 to K + 3 away
SHAW_FAR = (20, 30, 40, 50, 60)
SHAW_SIDES = (1, -1)


def _shaw_vector(offset: int, k: int) -> int:
    """The vector a key at ``offset`` = j - i reads: posenc's clipped offset of that (query, key) pair."""
    query, key = (0, offset) if offset >= 0 else (-offset, 0)
    # a square (T, T) grid of positions 0..T-1: entry [i, j] is j - i, clipped to [-K, K]
    return int(posenc.relative_positions(abs(offset) + 1, max_distance=k)[query, key])


def _w(index: int) -> str:
    return f"$w_{{{index}}}$"


def _shaw_question(k: int, past: int, far: int, side: int) -> str:
    where = "after" if side > 0 else "before"
    return (
        f"Shaw et al. with clipping distance K = {k}. One query; a key {k + past} positions {where} it and "
        f"another {far} positions {where} it. Which relative vectors do the two keys read?"
    )


def _shaw_choices(k: int, past: int, far: int, side: int) -> tuple[Choice, ...]:
    near, distant = side * (k + past), side * far
    edge, other = _shaw_vector(near, k), _shaw_vector(-near, k)
    sign, where = ("positive", "after") if side > 0 else ("negative", "before")
    opposite = "before" if side > 0 else "after"
    return (
        Choice(
            f"The same one, {_w(edge)}.",
            f"Both clip to {_signed(edge)}: clip({_signed(near)}, −{k}, {k}) = clip({_signed(distant)}, −{k}, {k}) = "
            f"{_signed(_shaw_vector(distant, k))}. Beyond K all keys on one side share the edge vector, so only "
            "their content can tell them apart.",
            right=True,
        ),
        Choice(
            f"{_w(near)} and {_w(distant)}.",
            f"Only 2K + 1 = {2 * k + 1} vectors exist, for offsets −{k} to {k}; larger offsets are clipped to ±{k}.",
        ),
        Choice(
            f"{_w(edge)} and {_w(other)}.",
            f"Both keys come {where} the query ({sign} offsets), so both clip to {_signed(edge)}. {_w(other)} serves "
            f"keys {k} or more positions {opposite} it.",
        ),
        Choice(
            "None: keys beyond K get no position at all.",
            f"Clipping reuses the edge vector; it does not drop it. Far keys still read {_w(edge)}.",
        ),
    )


EXERCISES = (
    Numeric(
        key="rel_t5_bucket",
        title="Predict a T5 bucket",
        question=_t5_question,
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
        params=(Param("r", T5_OFFSETS, -20),),
        fair=_t5_fair,
        skill="t5_bucket",
    ),
    MultipleChoice(
        key="rel_shaw_clip",
        title="Shaw's clipping",
        question=_shaw_question,
        choices=_shaw_choices,
        hint="Apply clip(j − i, −K, K) to both offsets.",
        params=(
            Param("k", SHAW_CLIPS, 3),
            Param("past", SHAW_NEAR_PAST, 1),
            Param("far", SHAW_FAR, 40),
            Param("side", SHAW_SIDES, 1),
        ),
        skill="clip",
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


def _edge_misconceptions() -> tuple[tuple[float, str], ...]:
    """Every one of the 2K + 1 vectors read equally often; the edge vectors read at offsets
    of exactly ±K alone (their own offsets, not the ones clipped to them)."""
    offsets, _ = _vector_counts()
    raw, _ = compute_relative.offsets(EDGE_LENGTH, EDGE_CLIP)
    return (
        (float(100 * 2 / offsets.size), f"all {offsets.size} vectors read alike"),
        (float(100 * (np.abs(raw) == EDGE_CLIP).sum() / raw.size), f"only pairs exactly ±{EDGE_CLIP} apart"),
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


def _shared_misconceptions() -> tuple[tuple[float, str], ...]:
    """What the reveal sets against T5's log spacing: a bucket for every offset (as the
    exact ones near the query have: offset -1's bucket), and buckets spaced evenly (the
    log-spaced ones' distances, from e to max_distance, shared alike)."""
    offsets = np.arange(-T5_SETTINGS["max_distance"], 1)
    buckets = posenc.t5_bucket(offsets, **T5_SETTINGS)
    own = int((buckets == posenc.t5_bucket(-1, **T5_SETTINGS)).sum())
    exact = posenc.relative.t5_max_exact(T5_SETTINGS["num_buckets"], T5_SETTINGS["bidirectional"])
    per_side = T5_SETTINGS["num_buckets"] // (2 if T5_SETTINGS["bidirectional"] else 1)
    even = (T5_SETTINGS["max_distance"] - exact) / (per_side - exact)
    return ((float(own), "a bucket for every offset"), (float(round(even)), "log buckets taken as even"))


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
        misconceptions=_edge_misconceptions,
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
        misconceptions=_shared_misconceptions,
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
