"""The class-mode polls of the first lessons (why_order, sinusoidal, learned, relative, rope,
images): each answer against a value worked out here another way (a plain formula, a loop,
the stored run read straight from disk), the option it picks, the reveal's numbers and the
figure's data. The generic checks over every poll (keys, views, ranges) are in test_polls.py."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

import posenc
from posenc_lab.classroom import sketch
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.images import exercises as images_exercises
from posenc_lab.lessons.images import lesson as images
from posenc_lab.lessons.learned import exercises as learned_exercises
from posenc_lab.lessons.learned import lesson as learned
from posenc_lab.lessons.relative import exercises as relative_exercises
from posenc_lab.lessons.relative import lesson as relative
from posenc_lab.lessons.rope import exercises as rope_exercises
from posenc_lab.lessons.rope import lesson as rope
from posenc_lab.lessons.rope import measure as rope_lessons
from posenc_lab.lessons.sinusoidal import exercises as sinusoidal_exercises
from posenc_lab.lessons.sinusoidal import lesson as sinusoidal
from posenc_lab.lessons.why_order import exercises as why_order_exercises
from posenc_lab.lessons.why_order import lesson as why_order

MODULES = {
    "why_order": (why_order, why_order_exercises),
    "sinusoidal": (sinusoidal, sinusoidal_exercises),
    "learned": (learned, learned_exercises),
    "relative": (relative, relative_exercises),
    "rope": (rope, rope_exercises),
    "images": (images, images_exercises),
}
POLLS: dict[str, Poll] = {poll.key: poll for _, ex in MODULES.values() for poll in ex.POLLS}
STORED = (
    Path(posenc.__file__).resolve().parents[1]
    / "posenc_lab"
    / "lessons"
    / "experiments"
    / "data"
    / "experiment_copy.npz"
)


def poll(key: str) -> Poll:
    return POLLS[key]


def option(key: str) -> str:
    p = poll(key)
    return p.options[int(p.answer())]


def trace(fig: go.Figure, name: str):
    return next(t for t in fig.data if t.name == name)


def numbers(text: str) -> list[str]:
    return re.findall(r"-?\d[\d,]*\.?\d*(?:e-?\d+)?%?", text)


# every poll of these lessons


@pytest.mark.parametrize("lesson", list(MODULES))
def test_each_lesson_has_two_or_three_polls_on_its_record(lesson):
    page, ex = MODULES[lesson]
    assert 2 <= len(ex.POLLS) <= 3
    assert page.LESSON.polls is ex.POLLS
    assert all(p.key.startswith(f"poll-{lesson}-") for p in ex.POLLS)


@pytest.mark.parametrize("key", list(POLLS))
def test_answer_is_right_and_reveal_states_it(key):
    p = poll(key)
    answer = p.answer()
    assert re.fullmatch(r"[a-z0-9][a-z0-9_.:-]{0,63}", p.key)
    text = p.reveal(answer)
    if p.sketch is not None:
        # a drawn prediction: the measured curve is its answer, drawn over the class's sketches
        # (tests/test_class_sketch.py); the reveal opens with what it shows, in bold
        assert p.figure is None and text.startswith("**") and len(text) < 700
        assert p.is_right_vote(sketch.encode([min(99, round(100 * v)) for v in p.measured()]))
        return
    assert p.is_right(answer)
    if p.options:
        assert float(answer).is_integer() and 0 <= answer < len(p.options)
        assert all(len(o) <= 60 for o in p.options)
        # the reveal opens with the right option, in bold
        assert text.startswith(f"**{p.options[int(answer)][0].upper()}{p.options[int(answer)][1:]}")
        for wrong in set(range(len(p.options))) - {int(answer)}:
            assert not p.is_right(wrong)
    else:
        assert p.low <= answer <= p.high
        assert not p.is_right(answer + 2 * p.tolerance + 1)
        assert not p.is_right(answer - 2 * p.tolerance - 1)
        assert p.is_right(answer + p.tolerance * 0.9)
    assert 2 <= text.count(". ") + text.count(": ") + 1 and len(text) < 700
    fig = p.figure()
    assert isinstance(fig, go.Figure) and len(fig.data) >= 1
    assert fig.layout.title.text and fig.layout.xaxis.title.text and fig.layout.yaxis.title.text


# why order matters


def _reversed_outputs(with_positions: bool) -> tuple[np.ndarray, np.ndarray]:
    """Outputs of dog bites man and of man bites dog, worked out with posenc's attention directly."""
    words = ["dog", "bites", "man"]
    x = posenc.word_embeddings(words, 16, seed=0)
    w_q, w_k, w_v = posenc.projections(16, seed=0)
    pe = posenc.sinusoidal(3, 16) if with_positions else None
    out, _ = posenc.self_attention(x, pe=pe, w_q=w_q, w_k=w_k, w_v=w_v)
    moved, _ = posenc.self_attention(x[::-1], pe=pe, w_q=w_q, w_k=w_k, w_v=w_v)
    return out, moved[::-1]  # both in the order dog, bites, man


def test_reverse_without_positions_changes_dog_by_rounding_only():
    key = "poll-why_order-reverse"
    out, moved = _reversed_outputs(False)
    change = np.abs(moved - out).max(axis=1)
    assert change.max() < 1e-12 and np.abs(out[0]).max() > 0.1
    assert option(key) == "Not at all (rounding only)"
    text = poll(key).reveal(poll(key).answer())
    assert f"{change[0]:.1e}" in text
    bars = poll(key).figure().data[0]
    assert list(bars.x) == ["dog", "bites", "man"]
    np.testing.assert_allclose(bars.customdata, change, atol=1e-15)


def test_with_positions_even_the_middle_word_changes():
    key = "poll-why_order-middle-word"
    out, moved = _reversed_outputs(True)
    change = np.abs(moved - out).max(axis=1)
    # "bites" keeps its slot and its position vector, and still changes: no option but the last is right
    assert change[1] > 0.01 and change.min() > 0.01
    assert option(key) == "none of them"
    assert not poll(key).is_right(1)  # "bites", the tempting answer
    text = poll(key).reveal(poll(key).answer())
    assert f"*bites* by {change[1]:.2f}" in text
    fig = poll(key).figure()
    np.testing.assert_allclose(trace(fig, "sinusoidal positions added").customdata, change, rtol=1e-9)
    assert trace(fig, "no positions").customdata.max() < 1e-12


# sinusoidal


def test_sinusoidal_similarity_cannot_tell_left_from_right():
    key = "poll-sinusoidal-left-right"
    pe = posenc.sinusoidal(101, 128)
    before, after, own = pe[40] @ pe[50], pe[60] @ pe[50], pe[50] @ pe[50]
    # sum over 64 pairs of cos(10 w_i): equal on both sides, well below the position itself
    oracle = sum(math.cos(10 * 10000 ** (-2 * i / 128)) for i in range(64))
    assert before == pytest.approx(oracle, abs=1e-9) and after == pytest.approx(oracle, abs=1e-9)
    assert own == pytest.approx(64) and before < own - 10
    assert option(key) == "exactly equally similar"
    text = poll(key).reveal(poll(key).answer())
    assert f"{before:.4f}" in text and f"{after:.4f}" in text
    y = poll(key).figure().data[0].y
    assert y[40] == pytest.approx(before, rel=1e-6) and y[60] == pytest.approx(after, rel=1e-6)


def test_sinusoidal_pairs_that_turn_within_512_positions():
    key = "poll-sinusoidal-full-turns"
    # a plain loop over the 256 pairs: wavelength 2 pi 10000^(2i/512) at most 512 positions
    oracle = sum(2 * math.pi * 10000 ** (2 * i / 512) <= 512 for i in range(256))
    assert oracle == 123
    p = poll(key)
    assert p.answer() == oracle and p.integer and p.unit == "pairs"
    assert p.is_right(oracle + 10) and not p.is_right(oracle + 11) and not p.is_right(256)
    text = p.reveal(p.answer())
    assert text.startswith(f"**{oracle} of 256 pairs") and f"other {256 - oracle} pairs" in text
    fig = p.figure()
    np.testing.assert_allclose(trace(fig, "wavelength").y, posenc.wavelengths(512), rtol=1e-6)
    assert set(trace(fig, "512 positions").y) == {512.0}


# learned


def _stored_accuracy(method: str) -> np.ndarray:
    with np.load(STORED) as f:
        return f[f"accuracy_{method}"]


def test_learned_model_cannot_run_at_twice_its_length():
    key = "poll-learned-twice-as-long"
    learned_acc, sinus = _stored_accuracy("learned"), _stored_accuracy("sinusoidal")
    assert learned_acc[0] > 0.9 and np.isnan(learned_acc[1])
    with pytest.raises(posenc.PositionOutOfRange):
        posenc.lookup_learned(posenc.learned_table(32, 8), np.arange(64))
    assert option(key) == "No answer: it cannot run at all"
    assert not poll(key).is_right(2)
    text = poll(key).reveal(poll(key).answer())
    assert f"{sinus[1]:.0%} at 64" in text
    # the Experiments lesson's poll asks about 8x: neither the text nor the figure gives it away
    assert f"{sinus[-1]:.0%}" not in text and "256" not in text
    fig = poll(key).figure()
    assert list(fig.data[0].x) == ["32 (trained)", "64 (2x)"]
    assert np.isnan(fig.data[0].customdata[1])
    np.testing.assert_allclose(trace(fig, "sinusoidal").customdata, sinus[:2])


def test_fresh_learned_rows_are_unrelated_neighbours():
    key = "poll-learned-neighbours"
    table = np.random.default_rng(0).normal(0.0, 0.02, (1024, 768))  # posenc.learned_table's draw
    np.testing.assert_array_equal(table, posenc.learned_table(1024, 768, std=0.02, seed=0))
    cosine = table[5] @ table[6] / np.linalg.norm(table[5]) / np.linalg.norm(table[6])
    p = poll(key)
    assert p.answer() == pytest.approx(cosine, abs=1e-12)
    # random 768-wide vectors: about +-1/sqrt(768) = 0.036, nowhere near the sinusoid's neighbours
    assert abs(cosine) < 0.15
    pe = posenc.sinusoidal(7, 768)
    assert pe[5] @ pe[6] / (pe[5] @ pe[5]) > 0.9
    assert p.is_right(0.0) and not p.is_right(0.9) and not p.is_right(0.5)
    text = p.reveal(p.answer())
    assert text.startswith(f"**{cosine:.2f}**")
    fig = p.figure()
    assert trace(fig, "learned table, before training").y[6] == pytest.approx(cosine, abs=1e-6)
    assert trace(fig, "sinusoidal").y[6] > 0.9


# relative


def test_most_pairs_read_an_edge_vector():
    key = "poll-relative-edge-vectors"
    # a plain loop over the 64 x 64 pairs
    edge = sum(abs(j - i) >= 3 for i in range(64) for j in range(64))
    p = poll(key)
    assert p.answer() == pytest.approx(100 * edge / 4096)
    assert 90 < p.answer() < 95
    assert p.is_right(90) and not p.is_right(50) and not p.is_right(10)
    assert f"**{100 * edge / 4096:.1f}%**" in p.reveal(p.answer())
    bars = p.figure().data[0]
    assert list(bars.x) == ["≤ -3", "-2", "-1", "0", "+1", "+2", "≥ +3"]
    counts = np.asarray(bars.customdata)
    assert counts.sum() == 4096 and counts[3] == 64 and counts[2] == 63
    assert 100 * (counts[0] + counts[-1]) / 4096 == pytest.approx(p.answer())


def _t5_encoder_bucket_of_key_before(distance: int) -> int:
    # T5's formula for a key before the query, bidirectional with 32 buckets: n = 16, e = 8
    if distance < 8:
        return distance
    return min(15, 8 + int(math.log(distance / 8) / math.log(128 / 8) * 8))


def test_t5_bucket_of_minus_50_holds_18_offsets():
    key = "poll-relative-t5-shared-bucket"
    bucket = _t5_encoder_bucket_of_key_before(50)
    held = [d for d in range(1, 129) if _t5_encoder_bucket_of_key_before(d) == bucket]
    assert bucket == 13 and (min(held), max(held), len(held)) == (46, 63, 18)
    p = poll(key)
    assert p.answer() == 18
    assert p.is_right(20) and not p.is_right(21) and not p.is_right(1)
    text = p.reveal(p.answer())
    assert text.startswith("**18 offsets**") and "-63 to -46" in text
    fig = p.figure()
    rel = np.concatenate([t.x for t in fig.data])
    buckets = np.concatenate([t.y for t in fig.data])
    # each region's trace leaves gaps (NaN) where another region's offsets are
    rel, buckets = rel[np.isfinite(buckets)], buckets[np.isfinite(buckets)]
    assert set(buckets[(rel >= -63) & (rel <= -46)]) == {13}
    assert 13 not in set(buckets[(rel < -63) | (rel > -46)])


# RoPE


def test_rope_score_ignores_a_shift_of_both_positions():
    key = "poll-rope-shift-phrase"
    q, k = rope_lessons.random_query_key(64, seed=0)
    near = posenc.apply_rope(q[None], [5])[0] @ posenc.apply_rope(k[None], [2])[0]
    far = posenc.apply_rope(q[None], [1005])[0] @ posenc.apply_rope(k[None], [1002])[0]
    assert abs(near - far) < 1e-9 * abs(near) and abs(near) > 1
    # the sinusoid added instead does move: the contrast the reveal draws
    added = rope_lessons.added_scores(q, k, [5, 1005], [2, 1002])
    assert abs(added[0, 0] - added[1, 1]) > 1
    assert option(key) == "Not at all (rounding only)"
    text = poll(key).reveal(poll(key).answer())
    assert f"{near:.4f}" in text
    fig = poll(key).figure()
    rope_y, added_y = trace(fig, "RoPE").y, trace(fig, "sinusoid added").y
    assert np.ptp(rope_y) < 1e-4 and rope_y[0] == pytest.approx(near, rel=1e-6)
    assert f"between {added_y.min():.1f} and {added_y.max():.1f}" in text


def test_rope_score_spread_does_not_decay():
    key = "poll-rope-long-term-decay"
    out = rope_exercises._decay_out()
    near, far = out["std"][0], out["std"][-1]
    # independent q and k with unit entries: std of q.k is sqrt(64) = 8 at every distance
    assert out["distances"][0] == 1 and out["distances"][-1] == 4096
    assert near == pytest.approx(8, rel=0.1) and far == pytest.approx(8, rel=0.1)
    # the bound does fall: the myth's source
    assert out["bound"][-1] < out["bound"][0] / 2
    assert option(key) == "It stays about the same"
    assert not poll(key).is_right(0)  # "It shrinks a lot"
    text = poll(key).reveal(poll(key).answer())
    assert f"{near:.2f}" in text and f"{far:.2f}" in text
    std_trace = trace(poll(key).figure(), "std of q·k, measured")
    np.testing.assert_allclose(std_trace.y, out["std"], rtol=1e-6)


# images


def test_patch_below_is_far_in_1d_and_near_in_2d():
    key = "poll-images-patch-below"
    q, _ = rope_lessons.random_query_key(64, seed=0)
    row, col, cols = 3, 5, 12

    def score_1d(position: int) -> float:
        return float(
            posenc.apply_rope(q[None], [row * cols + col], base=100.0)[0]
            @ posenc.apply_rope(q[None], [position], base=100.0)[0]
        )

    def score_2d(r: int, c: int) -> float:
        a = posenc.rope.axial_rope_2d(q[None], [row], [col], theta=100.0)[0]
        return float(a @ posenc.rope.axial_rope_2d(q[None], [r], [c], theta=100.0)[0])

    itself, right, below = score_1d(row * cols + col), score_1d(row * cols + col + 1), score_1d((row + 1) * cols + col)
    assert itself - below > 5 * (itself - right)
    assert abs(score_2d(row + 1, col) - score_2d(row, col + 1)) < 0.05 * itself
    assert option(key) == "The patch below scores much lower"
    text = poll(key).reveal(poll(key).answer())
    assert f"scores {below:.1f}" in text and f"scores {right:.1f}" in text
    fig = poll(key).figure()
    np.testing.assert_allclose(trace(fig, "1-D RoPE, read row by row").customdata, [itself, right, below], rtol=1e-9)


def test_no_positions_beats_chance_but_not_by_much():
    key = "poll-images-no-positions"
    none = _stored_accuracy("none")[0]
    with np.load(STORED) as f:
        chance = float(f["chance"])
    assert chance == pytest.approx(1 / 16)
    assert 2 * chance < none < 0.5
    assert option(key) == "Above chance, far from perfect"
    assert not poll(key).is_right(0)
    text = poll(key).reveal(poll(key).answer())
    assert f"copies {none:.0%}" in text and f"{chance:.0%} for a guess" in text
    bars = poll(key).figure().data[0]
    assert bars.customdata[list(bars.x).index("no positions")] == pytest.approx(none)
