"""The wrong answers each numeric lesson poll names (``Poll.misconceptions``): genuinely
wrong, answerable, short enough for a bar's label, and computed from the poll's own
constants (each recomputed here on its own, and a constant changed moves it)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc_lab import course as lessons
from posenc_lab.classroom import questions as class_questions
from posenc_lab.classroom import report, tally
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom import views as class_views
from posenc_lab.classroom.poll import Poll

NUMERIC = [poll for poll in lessons.all_polls() if poll.numeric]
#: what a bar's label beside its range can hold, read on a projector
NAME_CHARS = 40


def _sinusoid_wavelengths(d_model: int) -> np.ndarray:
    i = np.arange(d_model // 2)
    return 2 * math.pi * 10000.0 ** (2 * i / d_model)


def _sinusoid_cosine(p: int, q: int, d_model: int) -> float:
    freq = 10000.0 ** (-2 * np.arange(d_model // 2) / d_model)
    row = lambda pos: np.concatenate([np.sin(pos * freq), np.cos(pos * freq)])  # noqa: E731 (order is irrelevant)
    a, b = row(p), row(q)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def _expected() -> dict[str, dict[float, str]]:
    """Each poll's misconceptions, recomputed from the question's own numbers without the
    lesson's code: {poll key: {value: a word of its name}}."""
    from posenc_lab.lessons.experiments import exercises as experiments

    lam = _sinusoid_wavelengths(512)
    run = experiments._run("copy")
    return {
        "poll-sinusoidal-full-turns": {
            256: "every pair",
            float((lam <= 1024).sum()): "half a wave",
            float((lam / (2 * math.pi) <= 512).sum()): "2π",
        },
        "poll-learned-neighbours": {_sinusoid_cosine(5, 6, 768): "alike"},
        "poll-relative-edge-vectors": {100 * 2 / 7: "alike", 100 * 2 * (64 - 3) / 64**2: "exactly ±3"},
        # T5's encoder: 16 buckets a side, the first 8 exact, the other 8 over distances 8 to 128
        "poll-relative-t5-shared-bucket": {1: "every offset", (128 - 8) / (16 - 8): "even"},
        "poll-alibi-own-share": {100 / 128: "uniform", 100: "hard window"},
        # free: sinusoidal, RoPE, ALiBi, xPos; T5 and KERPLE learn biases
        "poll-compare-free-methods": {3: "ALiBi", 6: "KERPLE"},
        "poll-experiments-sinusoid-8x": {
            100 * run["accuracy"]["sinusoidal"][0]: "as trained",
            100 * run["chance"]: "chance",
        },
        "poll-claims-dim0-flips": {99: "every position", 15: "per wave"},
    }


def test_every_numeric_lesson_poll_names_its_misconceptions_and_only_they():
    assert {poll.key for poll in NUMERIC} == set(_expected())
    assert all(poll.misconceptions is None for poll in lessons.all_polls() if not poll.numeric)


@pytest.mark.parametrize("poll", NUMERIC, ids=[poll.key for poll in NUMERIC])
def test_each_misconception_is_wrong_answerable_short_and_computed(poll):
    answer = float(poll.answer())
    named = poll.misconceptions()
    assert 1 <= len(named) <= 3
    assert len({name for _, name in named}) == len(named), "names tell them apart"
    expected = _expected()[poll.key]
    assert len(expected) == len(named)
    for (value, name), (want, word) in zip(named, expected.items(), strict=True):
        assert value == pytest.approx(want, rel=1e-9, abs=1e-9), (name, value, want)
        assert word in name
        assert 0 < len(name) <= NAME_CHARS and name == name.strip() and "\n" not in name
        assert poll.low <= value <= poll.high, (name, value)
        assert not poll.is_right(value, answer), f"{name}: {value} is within {poll.tolerance} of {answer}"
        if poll.integer:
            assert value == round(value)
        # a vote of it is named; the right answer never is
        assert name in poll.named(value)
    assert poll.named(answer) == ()


def test_a_changed_constant_moves_the_misconceptions(monkeypatch):
    """Computed when asked from the lesson's constants, never stored."""
    from posenc_lab.lessons.alibi import exercises as alibi
    from posenc_lab.lessons.sinusoidal import exercises as sinusoidal

    monkeypatch.setattr(sinusoidal, "TURNS_CONTEXT", 2048)
    lam = _sinusoid_wavelengths(512)
    values = [v for v, _ in sinusoidal._turns_misconceptions()]
    assert values == [256, (lam <= 4096).sum(), (lam / (2 * math.pi) <= 2048).sum()]
    monkeypatch.setattr(alibi, "SHARE_CONTEXT", 64)
    assert [v for v, _ in alibi._share_misconceptions()] == pytest.approx([100 / 64, 100])


@pytest.mark.parametrize("poll", NUMERIC, ids=[poll.key for poll in NUMERIC])
def test_the_histogram_names_the_misconceptions_bins_once_revealed_and_never_before(poll):
    answer = float(poll.answer())
    named = poll.misconceptions()
    votes = [tally.encode_number(answer, poll.integer)] + [tally.encode_number(v, poll.integer) for v, _ in named]
    rounds = [("round 1", votes)]
    before = class_views.vote_figure(lessons.COURSE, poll, rounds, revealed=False)
    assert not any(name in label for label in before.data[0].y for _, name in named)
    after = class_views.vote_figure(lessons.COURSE, poll, rounds, revealed=True)
    labels, counts = list(after.data[0].y), list(after.data[0].x)
    assert sum(counts) == len(votes)
    for _, name in named:
        (at,) = [i for i, label in enumerate(labels) if name in label]
        assert not labels[at].endswith(" (right)") and counts[at] >= 1
        # the bar holds exactly the votes within the tolerance of its value(s): one each here
        assert counts[at] == sum(n in labels[at] for _, n in named)
    (right,) = [i for i, label in enumerate(labels) if label.endswith(" (right)")]
    assert counts[right] == 1


def test_the_results_name_a_wrong_answer_near_a_misconception():
    poll = next(p for p in NUMERIC if p.key == "poll-sinusoidal-full-turns")
    (every, every_name), (half, half_name), _ = poll.misconceptions()
    assert class_views.named_words(lessons.COURSE, poll, "256") == f"256 pairs ({every_name})"
    # within the tolerance of it, the name too; the answer in words alone elsewhere
    near = str(int(half) + int(poll.tolerance))
    assert class_views.named_words(lessons.COURSE, poll, near) == f"{near} pairs ({half_name})"
    assert class_views.named_words(lessons.COURSE, poll, "1") == "1 pairs"
    assert class_views.named_words(lessons.COURSE, poll, str(int(poll.answer()))) == f"{int(poll.answer())} pairs"
    # the results table's "most common wrong answers"
    rows = [class_store.ItemSummary(poll.key, "poll", 1, 3, 1, (("256", 2), ("1", 1)))]
    table = class_views.results_table(lessons.COURSE, rows)
    assert table["most common wrong answers"][0] == f"256 pairs ({every_name}) (2); 1 pairs (1)"
    # the summary file's, through the question's column
    (column,) = [c for c in class_views.question_columns(lessons.COURSE) if c.key == poll.key]
    assert column.misconceptions == poll.misconceptions() and column.tolerance == poll.tolerance
    assert column.wrong_label("250") == f"250 pairs ({every_name})" and column.label("250") == "250 pairs"


def test_a_teachers_own_question_names_none():
    own = class_questions.own_poll(
        class_store.Question(
            "How many?", (), 5.0, tolerance=1.0, low=0.0, high=10.0, key=class_store.OWN_PREFIX + "abc"
        )
    )
    assert own.misconceptions is None and class_views.misconceptions_of(lessons.COURSE, own) == ()
    assert class_views.named_words(lessons.COURSE, own, "9") == "9"
    bare = Poll(key="q", prompt="How many?", answer=lambda: 5.0, reveal=str, low=0.0, high=10.0)
    assert bare.named(9.0) == ()


def test_the_summary_lists_a_misconceptions_name_beside_the_answer():
    column = report.QuestionColumn(
        "q.n", "Numbers", unit="pairs", misconceptions=((256.0, "every pair turns"),), tolerance=10.0
    )
    assert column.wrong_label("250") == "250 pairs (every pair turns)"
    assert column.wrong_label("200") == "200 pairs"
    plain = report.QuestionColumn("q.c", "Choice", ("a", "b"))
    assert plain.wrong_label("1") == "b"
