"""The class-mode polls of the later lessons (alibi, compare, choices, design, experiments,
claims): each answer against a value computed here another way (a formula, a plain NumPy
oracle, the stored run read straight from its file), the vote checking, the reveal's
numbers and the figure's data. The generic checks over every poll live in tests/test_polls.py."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest
from app_helpers import ROOT

import posenc
from posenc_lab.lessons.alibi import exercises as alibi_exercises
from posenc_lab.lessons.choices import compute as compute_choices
from posenc_lab.lessons.choices import exercises as choices_exercises
from posenc_lab.lessons.claims import exercises as claims_exercises
from posenc_lab.lessons.compare import exercises as compare_exercises
from posenc_lab.lessons.compare import measure as compare_lessons
from posenc_lab.lessons.design import exercises as design_exercises
from posenc_lab.lessons.experiments import exercises as experiments_exercises

POLLS = {
    poll.key: poll
    for module in (
        alibi_exercises,
        compare_exercises,
        choices_exercises,
        design_exercises,
        experiments_exercises,
        claims_exercises,
    )
    for poll in module.POLLS
}


# helpers


def _values(fig: go.Figure, trace: int = 0) -> np.ndarray:
    """A trace's values as measured: a bar's customdata (bars on a log axis draw zeros at a floor), else y."""
    data = fig.data[trace]
    values = data.customdata if isinstance(data, go.Bar) and data.customdata is not None else data.y
    return np.asarray(values, dtype=np.float64)


def _trace(fig: go.Figure, name: str):
    return next(t for t in fig.data if t.name == name)


def _stored(task: str) -> dict[str, np.ndarray]:
    """The stored default run, read with NumPy alone (not through ui.compute_experiment)."""
    with np.load(ROOT / "posenc_lab" / "lessons" / "experiments" / "data" / f"experiment_{task}.npz") as f:
        return {k: f[k] for k in f.files}


# every poll of these lessons


@pytest.mark.parametrize("key", list(POLLS))
def test_a_poll_accepts_its_answer_and_draws_a_titled_figure(key):
    poll = POLLS[key]
    answer = poll.answer()
    assert math.isfinite(answer)
    assert poll.is_right(answer)
    if poll.options:
        assert answer == int(answer) and 0 <= answer < len(poll.options)
        assert all(not poll.is_right(i) for i in range(len(poll.options)) if i != answer)
        assert poll.options[int(answer)] in poll.reveal(answer)
    else:
        assert poll.low <= answer <= poll.high
        assert not poll.is_right(answer + poll.tolerance + 1) and not poll.is_right(answer - poll.tolerance - 1)
    fig = poll.figure()
    assert isinstance(fig, go.Figure) and fig.data
    assert fig.layout.title.text and fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert poll.view.split("?")[0] == key.split("-")[1] or poll.view == ""


# ALiBi


def test_the_steepest_of_twelve_alibi_heads_is_head_9_the_first_extra_head():
    poll = POLLS["poll-alibi-steepest-head"]
    # Press et al. for H = 12: heads 1..8 take 2^-h, heads 9..12 take 2^-(2k - 1)/2, k = 1..4
    oracle = np.array([2.0**-h for h in range(1, 9)] + [2.0 ** (-(2 * k - 1) / 2) for k in range(1, 5)])
    np.testing.assert_allclose(posenc.alibi_slopes(12), oracle, rtol=1e-15)
    answer = poll.answer()
    assert alibi_exercises.POLL_HEADS[int(answer)] == int(np.argmax(oracle)) + 1 == 9
    assert not poll.is_right(alibi_exercises.POLL_HEADS.index(1))  # the belief: head 1 is the steepest
    text = poll.reveal(answer)
    assert "Head 9" in text and "2^-0.5 = 0.707" in text and "1/2" in text
    fig = poll.figure()
    points = {int(x): float(y) for t in fig.data for x, y in zip(t.x, t.y, strict=True)}
    assert max(points, key=points.get) == 9
    assert points[9] == pytest.approx(2**-0.5, rel=1e-6)


def test_alibis_steepest_head_keeps_only_about_39_percent_on_its_own_position():
    poll = POLLS["poll-alibi-own-share"]
    m, n = 0.5, 128
    # softmax of -m d over d = 0..n-1: the weight of d = 0 is (1 - e^-m) / (1 - e^-mn)
    oracle = 100 * (1 - math.exp(-m)) / (1 - math.exp(-m * n))
    answer = poll.answer()
    assert answer == pytest.approx(oracle, rel=1e-12)
    assert 39 < answer < 40
    assert poll.is_right(oracle + 4.9) and not poll.is_right(90.0) and not poll.is_right(100.0)
    assert f"{answer:.1f}%" in poll.reveal(answer)
    fig = poll.figure()
    assert len(fig.data) == len(alibi_exercises.SHARE_SHOWN)
    assert _values(fig, 0)[-1] == pytest.approx(answer / 100, rel=1e-6)
    # gentler heads keep less on their own position, and every row is a distribution
    own = [_values(fig, i)[-1] for i in range(len(fig.data))]
    assert own == sorted(own, reverse=True)
    for i in range(len(fig.data)):
        assert np.nansum(_values(fig, i)) == pytest.approx(1.0, rel=1e-5)


def _reach(weights: np.ndarray, mass: float) -> int:
    """Smallest d with weights[0..d] holding ``mass`` of the total: a plain loop."""
    total, running = weights.sum(), 0.0
    for d, w in enumerate(weights):
        running += w
        if running >= mass * total - 1e-12:
            return d
    return len(weights) - 1


def test_kerple_log_reaches_further_than_alibi_though_it_penalises_more_nearby():
    poll = POLLS["poll-alibi-kerple-reach"]
    d = np.arange(alibi_exercises.KERPLE_CONTEXT, dtype=np.float64)
    alibi = _reach(np.exp(-alibi_exercises.KERPLE_SLOPE * d), 0.9)
    kerple = _reach(1 / (1 + d), 0.9)  # e^{-log(1 + d)}
    assert alibi < kerple
    curves = alibi_exercises._kerple()
    assert curves["span"]["ALiBi"] == alibi and curves["span"]["KERPLE-log"] == kerple
    answer = poll.answer()
    assert answer == 1 and not poll.is_right(0)
    text = poll.reveal(answer)
    assert f"within {alibi} positions" in text and f"within {kerple} of" in text
    assert f"{-math.log(11):.2f}" in text and f"{-10 / 64:.2f}" in text and "Yet nearby" in text
    fig = poll.figure()
    np.testing.assert_allclose(_values(fig, 1), (1 / (1 + d)) / (1 / (1 + d)).sum(), rtol=1e-6)


# compare


def test_only_the_biases_add_the_same_change_to_every_pair_of_words():
    poll = POLLS["poll-compare-stripes"]
    changes = compare_exercises._diagonal_changes()
    assert {m for m, c in changes.items() if c < 1e-9} == {"t5", "alibi", "kerple"}
    assert all(changes[m] > 0.1 for m in ("sinusoidal", "learned", "shaw", "rope", "xpos"))
    # ALiBi's part is its bias itself: -m |i - j| with head 1's slope of 8 heads, 1/2
    x = compare_lessons.phrase(64, 64, "random", seed=0)
    i = np.arange(64)
    part = compare_lessons.positional_part(x, i, "alibi", slope=0.5)
    np.testing.assert_allclose(part, -0.5 * np.abs(i[:, None] - i[None, :]), atol=1e-12)
    answer = poll.answer()
    assert compare_exercises.STRIPES_OFFERED[int(answer)] == "alibi"
    assert not poll.is_right(compare_exercises.STRIPES_OFFERED.index("rope"))
    text = poll.reveal(answer)
    assert f"Sinusoidal {changes['sinusoidal']:.3g}" in text and f"RoPE {changes['rope']:.3g}" in text
    # the bars come in classes (exact zero, rounding, real change): gather them by method
    drawn = {x: float(v) for t in poll.figure().data for x, v in zip(t.x, t.customdata, strict=True)}
    assert drawn == pytest.approx({compare_exercises._name(m): c for m, c in changes.items()}, rel=1e-12)


def test_four_of_the_eight_methods_learn_no_parameter():
    poll = POLLS["poll-compare-free-methods"]
    counts = compare_exercises._parameter_counts()
    # L x d_model; Shaw 2 (2K + 1) Dh for keys and values; T5 32 buckets x H; KERPLE 2 per head
    assert counts["learned"] == 256 * 8 * 64
    assert counts["shaw"] == 2 * (2 * 16 + 1) * 64
    assert counts["t5"] == 32 * 8 and counts["kerple"] == 2 * 8
    assert {m for m, c in counts.items() if c == 0} == {"sinusoidal", "alibi", "rope", "xpos"}
    answer = poll.answer()
    assert answer == 4 and not poll.is_right(3) and not poll.is_right(5)
    text = poll.reveal(answer)
    assert "**4 of 8**" in text and "131,072" in text and "4,224" in text
    np.testing.assert_array_equal(_values(poll.figure()), list(counts.values()))


# design choices


def test_the_position_part_of_the_score_is_about_a_thousand_times_the_content_part():
    poll = POLLS["poll-choices-position-vs-content"]
    content, cross, position = choices_exercises._parts()
    # the numbers the lesson's view shows
    np.testing.assert_array_equal(
        [content, cross, position], compute_choices.add_or_concat(choices_exercises.PARTS_WIDTH, "unit")["parts"]
    )
    pe = posenc.sinusoidal(64, 512)
    # the RMS of p_i . p_j over every pair, straight from the table
    assert position == pytest.approx(np.sqrt(np.mean((pe @ pe.T) ** 2)), rel=1e-12)
    ratio = position / content
    # inside the band the answer names, by a margin: 10^2.5 .. 10^3.5
    assert 10**2.5 < ratio < 10**3.5
    assert content < cross < position
    answer = poll.answer()
    assert poll.options[int(answer)] == "About 1,000 times larger"
    assert not poll.is_right(1) and not poll.is_right(0)
    assert f"{ratio:,.0f} times" in poll.reveal(answer)
    np.testing.assert_allclose(_values(poll.figure()), [content, cross, position], rtol=1e-12)


def test_only_dynamic_ntk_must_turn_its_cached_keys_again():
    poll = POLLS["poll-choices-stale-cache"]
    # dynamic NTK's frequencies differ between 96 and 97 tokens past L = 64; plain RoPE's do not move
    scaling = {"rope_type": "dynamic", "factor": 4.0, "original_max_position_embeddings": 64}
    before, _ = posenc.rope_inv_freq(64, rope_scaling=scaling, seq_len=96)
    after, _ = posenc.rope_inv_freq(64, rope_scaling=scaling, seq_len=97)
    assert np.abs(after - before).max() > 1e-6
    steps = choices_exercises._cache()
    changed = dict(zip(steps["methods"], steps["changed"], strict=True))
    assert changed["rope"] == changed["rope_yarn"] == changed["alibi"] == 0
    assert 0 < changed["rope_dynamic"] <= 96 * 64
    answer = poll.answer()
    assert choices_exercises.CACHE_OFFERED[int(answer)] == "rope_dynamic"
    assert not poll.is_right(len(poll.options) - 1)  # "none of them"
    assert f"{changed['rope_dynamic']:,.0f} of the {96 * 64:,}" in poll.reveal(answer)
    np.testing.assert_array_equal(_values(poll.figure()), steps["changed"])


# design your own


def test_no_matrix_steps_a_binary_counter_on_but_one_steps_the_sinusoid():
    poll = POLLS["poll-design-binary-shift"]
    # the oracle: -1/+1 digits of p, and the least-squares map from code(p) to code(p + 1)
    p = np.arange(256)
    digits = np.where((p[:, None] >> np.arange(8)) & 1, 1.0, -1.0)  # (256, 8)
    m, *_ = np.linalg.lstsq(digits[:-1], digits[1:], rcond=None)
    assert np.abs(digits[:-1] @ m - digits[1:]).max() > 0.5
    binary = design_exercises._fit(design_exercises.BINARY)
    sinusoid = design_exercises._fit(design_exercises.SINUSOID)
    assert binary["linear"] is False and binary["relative"] > 0.5
    assert sinusoid["linear"] is True and sinusoid["relative"] < 1e-9
    answer = poll.answer()
    assert answer == 1 and not poll.is_right(0)
    assert f"{binary['relative']:.2f}" in poll.reveal(answer)
    fig = poll.figure()
    assert _values(fig, 0).max() == pytest.approx(binary["relative"], rel=1e-6)
    assert _values(fig, 1).max() < 1e-9


def test_one_sin_cos_pair_never_repeats_but_comes_within_two_hundredths():
    poll = POLLS["poll-design-one-pair"]
    # codes (sin p, cos p) of p and q are 2 |sin((p - q) / 2)| apart: the closest offset under 256
    offsets = np.arange(1, 256)
    distance = 2 * np.abs(np.sin(offsets / 2))
    closest = int(offsets[np.argmin(distance)])
    assert closest == 44 and 0.01 < distance.min() < 0.05
    found = design_exercises._pair()
    p, q = found["pair"]
    assert q - p == closest and found["distance"] == pytest.approx(distance.min(), rel=1e-9)
    answer = poll.answer()
    assert answer == 1 and not poll.is_right(0)
    assert f"{distance.min():.3f} apart" in poll.reveal(answer)
    fig = poll.figure()
    np.testing.assert_allclose(_values(fig), distance, rtol=1e-6)
    assert int(fig.data[0].x[np.argmin(_values(fig))]) == closest


# experiments


def test_the_sinusoidal_copier_falls_to_about_a_quarter_at_8x():
    poll = POLLS["poll-experiments-sinusoid-8x"]
    stored = _stored("copy")
    assert stored["config_train_len"] == 32 and list(stored["lengths"]) == [32, 64, 128, 256]
    oracle = 100 * float(stored["accuracy_sinusoidal"][-1])
    answer = poll.answer()
    assert answer == pytest.approx(oracle, abs=1e-9)
    # far below the training length's accuracy, far above chance (1/16)
    assert 100 * stored["accuracy_sinusoidal"][0] - answer > 50 and answer > 100 * float(stored["chance"])
    assert not poll.is_right(100.0)  # the belief: sinusoids extrapolate perfectly
    assert f"**{answer:.0f}%**" in poll.reveal(answer)
    fig = poll.figure()
    assert _values(fig, 0)[-1] == pytest.approx(oracle / 100, rel=1e-6)


def test_alibi_keeps_the_latest_marker_at_8x():
    poll = POLLS["poll-experiments-marker-8x"]
    stored = _stored("marker")
    at_8x = [float(stored[f"accuracy_{m}"][-1]) for m in experiments_exercises.MARKER_OFFERED]
    answer = poll.answer()
    assert experiments_exercises.MARKER_OFFERED[int(answer)] == "alibi" and int(answer) == int(np.argmax(at_8x))
    assert at_8x[int(answer)] > 0.9
    assert not poll.is_right(experiments_exercises.MARKER_OFFERED.index("sinusoidal"))
    assert f"{100 * at_8x[int(answer)]:.0f}% at 256 tokens" in poll.reveal(answer)
    np.testing.assert_allclose(_values(poll.figure(), 1), at_8x, rtol=1e-12)


# claims


def test_dimension_0_changes_sign_once_every_pi_positions_not_every_position():
    poll = POLLS["poll-claims-dim0-flips"]
    values = np.sin(np.arange(100))
    # a change between p - 1 and p: opposite strict signs (sin 0 = 0 has none)
    oracle = int(np.count_nonzero(values[1:] * values[:-1] < 0))
    assert oracle == math.floor(99 / math.pi) == 31
    answer = poll.answer()
    assert answer == oracle
    assert poll.is_right(33) and not poll.is_right(34) and not poll.is_right(99)
    assert "**31** sign changes in 99 steps" in poll.reveal(answer)
    np.testing.assert_allclose(_values(poll.figure()), np.sin(np.arange(48)), atol=1e-6)


def test_the_first_dimensions_of_the_sinusoid_turn_fastest():
    poll = POLLS["poll-claims-fast-dims"]
    answer = poll.answer()
    assert answer == 0 and not poll.is_right(1)
    text = poll.reveal(answer)
    # wavelength 2 pi base^(2i/d): 2 pi for pair 0, 2 pi 10000^(126/128) for the last
    assert f"{2 * math.pi:.2f} positions" in text and f"{2 * math.pi * 10000 ** (126 / 128):,.0f}" in text
    values = _values(poll.figure())
    assert values[0] == pytest.approx(2 * math.pi, rel=1e-6) and np.all(np.diff(values) > 0)


def test_equal_differences_fail_on_a_correct_sinusoid_while_one_rotation_holds():
    poll = POLLS["poll-claims-equal-differences"]
    pe = posenc.sinusoidal(np.array([0.0, 5.0, 10.0]), 128)
    wrong = np.abs((pe[2] - pe[1]) - (pe[1] - pe[0]))
    assert wrong[0] == pytest.approx(abs(math.sin(10) - 2 * math.sin(5)), rel=1e-12)  # 1.3738
    assert wrong.max() > 1
    answer = poll.answer()
    assert answer == 2 and not poll.is_right(0)
    r = claims_exercises._differences()
    assert r.rotation.max() < 1e-12
    text = poll.reveal(answer)
    assert f"off by up to {wrong.max():.2f}" in text and f"dimension {int(np.argmax(wrong))}" in text
    fig = poll.figure()
    np.testing.assert_allclose(_values(fig, 0), np.maximum(wrong, 1e-17), rtol=1e-6)
