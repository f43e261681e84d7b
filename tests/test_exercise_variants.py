"""The variant exercises: every variant's key against a plain-loop computation written here
(not posenc), every known wrong turn answered with its own nudge, and the draw from a
seed (the same again, another on the next attempt, only fair variants)."""

from __future__ import annotations

import math
import random

import pytest
from test_claims import press_slopes

from posenc_lab import course as lessons
from posenc_lab.ui import exercise_kinds as kinds
from posenc_lab.ui import mastery
from posenc_lab.ui.exercise_kinds import Guided, MultipleChoice, Numeric

#: seeds drawn per exercise: thousands of variants (each distinct one checked once)
DRAWS = 3000


# independent computations, one per exercise: the answer, and the wrong turns a student
# may take, each with the value it gives and a phrase of the nudge that names it


def _sinusoid_row(p: int, d_model: int) -> list[float]:
    row = []
    for j in range(d_model):
        angle = p / 10000.0 ** (2 * (j // 2) / d_model)
        row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
    return row


def _pe_entry(p, dim, d_model):
    angle = p / 10000.0 ** (2 * (dim // 2) / d_model)
    wave, other = (math.sin, math.cos) if dim % 2 == 0 else (math.cos, math.sin)
    turns = [
        (wave(math.radians(angle)), "degrees"),
        (other(angle), "That is " + ("cos" if dim % 2 == 0 else "sin")),
        (wave(0.0), "position 0"),
    ]
    if dim >= 2:
        turns.append((wave(p / 10000.0 ** (2 * dim / d_model)), f"pair i = {dim // 2}"))
    return _sinusoid_row(p, d_model)[dim], turns


def _wavelength(pair, d_model):
    # the positions it takes the pair's angle to grow by 2 pi, one position at a time
    step = 1 / 10000.0 ** (2 * pair / d_model)
    turn = 2 * math.pi / step
    turns = [
        (2 * math.pi * 10000.0, "2π · base"),
        (turn / (2 * math.pi), "inverse of the frequency"),
        (2 * math.pi * 10000.0 ** (pair / d_model), "i/d"),
        (2 * math.pi * 10000.0 ** (2 * (pair - 1) / d_model), "one pair off"),
    ]
    if pair + 1 < d_model // 2:
        turns.append((2 * math.pi * 10000.0 ** (2 * (pair + 1) / d_model), "one pair off"))
    return turn, turns


def _table_size(max_len, d_model):
    count = 0
    for _ in range(max_len):  # one row of d_model numbers per position
        count += d_model
    return count, [(max_len + d_model, "You added"), (max_len, "rows or columns"), (d_model, "rows or columns")]


def _furthest_head(heads):
    slopes = press_slopes(heads)
    best = min(range(heads), key=lambda h: slopes[h]) + 1
    assert 1 < best < heads, "no boundary: neither the first head nor the last"
    return best, [(heads, "extra heads"), (1, "a smaller slope"), (heads + 1, f"numbered 1 to {heads}")]


def _span(power, context):
    m = 2.0**-power
    weights = [math.exp(-m * j) for j in range(context)]
    total, running, d = sum(weights), 0.0, 0
    while True:  # the shortest distance that holds 90% of the weight
        running += weights[d]
        if running >= 0.9 * total:
            break
        d += 1
    assert 0 < d < context - 1
    return d, [(round(math.log(10) / m), "approximation")]


def _t5_bucket(r):
    # buckets per direction n = 16, the first e = 8 exact; log-spaced up to max_distance 128
    side, d = (16 if r > 0 else 0), abs(r)
    k = 0
    while k + 1 < 8 and d >= 8 * 16 ** ((k + 1) / 8):  # the log-spaced bucket whose range holds d
        k += 1
    assert 8 * 16 ** (k / 8) <= d, "the log-spaced range: no exact bucket"
    bucket = side + 8 + k
    assert bucket not in (side + 8, side + 15), "no edge bucket of the log range"
    other = bucket - 16 if r > 0 else bucket + 16
    return bucket, [(other, "before" if r > 0 else "after"), (d, "get a bucket of their own"), (side + k, "add 8")]


def _slowest_turns(head_dim, length):
    angle = 0.0
    for _ in range(length):  # the slowest pair, i = head_dim/2 - 1, turns by theta per position
        angle += 10000.0 ** (-2 * (head_dim // 2 - 1) / head_dim)
    turns = angle / (2 * math.pi)
    assert 0 < turns < 1
    return turns, [
        (angle, "radians"),
        (length * 10000.0 ** (-(head_dim // 2 - 1) / head_dim) / (2 * math.pi), "i/d"),
        (length / 10000.0 / (2 * math.pi), "does not exist"),
    ]


def _resume(before, t, h, w):
    used = set()
    for frame in range(t):  # every patch's three positions, each axis counting from the text before
        for row in range(h):
            for col in range(w):
                used.update((before + frame, before + row, before + col))
    first = max(used) + 1
    return first, [
        (before + t * h * w, "counts every patch"),
        (first - 1, "largest position"),
        (before + t + h + w, "end to end"),
    ]


def _kept(head_dim, theta, high, window):
    kept = blended = inverse = 0
    for i in range(head_dim // 2):
        wavelength = 2 * math.pi * theta ** (2 * i / head_dim)
        kept += wavelength < window / high
        blended += wavelength < window  # low_freq_factor 1: the blend ends at the window itself
        inverse += wavelength / (2 * math.pi) < window / high
    assert 0 < kept < head_dim // 2
    return kept, [(head_dim // 2, "Not all"), (0, "Some are kept"), (blended, "blended"), (inverse, "2π times")]


# the multiple choices: the right option's text and the wrong options' texts, each built here
# from a plain computation


def _shaw(k, past, far, side):
    read = []
    for distance in (k + past, far):  # both keys on one side of the query, clipped to [-K, K]
        offset = side * distance
        read.append(max(-k, min(k, offset)))
    assert read[0] == read[1] == side * k, "both read the edge vector"
    return f"The same one, $w_{{{read[0]}}}$.", [
        f"$w_{{{side * (k + past)}}}$ and $w_{{{side * far}}}$.",
        f"$w_{{{read[0]}}}$ and $w_{{{-read[0]}}}$.",
    ]


def _raster(rows, cols):
    order = {}
    for r in range(rows):  # read row by row: the n-th patch read gets position n
        for c in range(cols):
            order[r, c] = len(order)
    gaps = {order[r + 1, c] - order[r, c] for r in range(rows - 1) for c in range(cols)}
    assert len(gaps) == 1, "one distance for every patch"
    return f"{gaps.pop()} positions", ["1 position", f"{rows} positions"]


def _harmonics(pairs, longest):
    shortest, n = longest // pairs, 4 * longest
    codes = []
    for p in range(n):  # sin and cos of p times 1, 2, ..., pairs times 2 pi / longest
        codes.append([f(2 * math.pi * m * p / longest) for m in range(1, pairs + 1) for f in (math.sin, math.cos)])
    period = next(
        k
        for k in range(1, n)
        if all(abs(a - b) < 1e-9 for p in range(n - k) for a, b in zip(codes[p], codes[p + k], strict=True))
    )
    return f"Position p + {period} has the same code as position p: it repeats every {period}.", [
        f"The code repeats every {shortest} positions, the shortest wavelength.",
        f"The code repeats every {pairs} positions, one per pair.",
    ]


def _t5_table(buckets, max_distance, trained):
    return f"{buckets}, one per bucket, whatever the length", [
        f"2 x {trained} - 1 = {2 * trained - 1}, one per possible offset",
        f"2k + 1 = {2 * max_distance + 1} for a clipping distance k = {max_distance}",
    ]


def _window(window, layers):
    reach = 1  # the token itself; every layer adds the window's other window - 1 tokens
    for _ in range(layers):
        reach += window - 1
    return f"{reach:,} tokens", [f"{window:,} tokens", f"{8 * window:,} tokens", f"{window * layers:,} tokens"]


def _past(max_len, extra):
    missing = [p for p in range(max_len + extra) if p >= max_len]  # rows 0..max_len-1 exist
    return f"There is no row for positions {missing[0]} to {missing[-1]}: nothing was learned for them.", [
        f"It can: NumPy wraps index {missing[-1]} around to one of the existing rows."
    ]


ORACLES = {
    "sin_pe_value": _pe_entry,
    "sin_wavelength": _wavelength,
    "learned_param_count": _table_size,
    "alibi_furthest_head": _furthest_head,
    "alibi_span_head8": _span,
    "rel_t5_bucket": _t5_bucket,
    "rope_slowest_turns": _slowest_turns,
    "images_mrope_resume": _resume,
    "models_llama31_unchanged": _kept,
    "rel_shaw_clip": _shaw,
    "images_raster_below": _raster,
    "design_harmonics": _harmonics,
    "claims_t5_table": _t5_table,
    "models_mistral_window": _window,
    "learned_past_max_len": _past,
}


def _top_level():
    return [ex for ex in lessons.all_exercises() if not isinstance(ex, Guided)]


VARIANT_EXERCISES = [ex for ex in _top_level() if ex.params]


def test_every_numeric_exercise_has_variants():
    for ex in _top_level():
        if isinstance(ex, Numeric):
            assert ex.params, f"{ex.key}: a numeric exercise without variants"
    assert {ex.key for ex in VARIANT_EXERCISES} == set(ORACLES)


@pytest.mark.parametrize("ex", VARIANT_EXERCISES, ids=[ex.key for ex in VARIANT_EXERCISES])
def test_every_drawn_variant_is_fair_and_its_key_right(ex):
    pool = kinds.variants(ex)
    assert len(pool) >= 10, f"{ex.key}: too few fair variants to practise on"
    assert kinds.defaults(ex) in pool, f"{ex.key}: the variant a class sees is fair too"
    rng = random.Random(53)
    drawn = {}
    for _ in range(DRAWS):
        seed = f"{rng.getrandbits(64):016x}"
        attempt = rng.randrange(50)
        params = kinds.draw(ex, seed, attempt)
        assert params == kinds.draw(ex, seed, attempt), "the same seed and attempt give the same variant"
        assert params != kinds.draw(ex, seed, attempt + 1), "the next attempt gives another variant"
        drawn[tuple(sorted(params.items()))] = params
    assert len(drawn) >= min(len(pool), 10)
    for params in drawn.values():
        assert params in pool
        _check_variant(ex, params)


def _check_variant(ex, params):
    shown = kinds.concrete(ex, params)
    assert not shown.params and dict(shown.chosen) == params
    expected, turns = ORACLES[ex.key](**params)
    if isinstance(ex, Numeric):
        answer = float(shown.answer())
        assert abs(answer - expected) <= 1e-9 * max(1.0, abs(expected)), (ex.key, params, answer, expected)
        assert answer != 0, (ex.key, params)
        ok, text, _ = kinds.numeric_feedback(shown, expected, {})
        assert ok, (ex.key, params, text)
        for value, phrase in turns:
            ok, text, _ = kinds.numeric_feedback(shown, value, {})
            assert not ok, f"{ex.key} {params}: the wrong turn {phrase!r} ({value}) is told right"
            assert phrase in text, f"{ex.key} {params}: {value} should be told {phrase!r}, got {text!r}"
    else:
        assert isinstance(shown, MultipleChoice)
        texts = [c.text for c in shown.choices]
        assert len(set(texts)) == len(texts), (ex.key, params, texts)
        assert shown.answer_index == ex.answer_index, "the right choice keeps its index"
        assert texts[shown.answer_index] == expected, (ex.key, params, texts)
        assert {t for t in texts if t != expected} >= set(turns), (ex.key, params, texts)


def test_the_practice_record_counts_three_fresh_right_answers_in_a_row():
    record: set[str] = set()
    keys = ["a", "b"]
    for n, right in enumerate([True, True]):
        mastery.record_check(record, "a", n, right)
    assert mastery.streak(record, keys) == 2 and not mastery.mastered(record, keys)
    mastery.record_check(record, "b", 0, False)  # a wrong one in between breaks the row
    mastery.record_check(record, "b", 0, True)  # right after a miss: not fresh, not counted
    assert mastery.streak(record, keys) == 0
    assert mastery.wrong_count(record, "b", 0) == 1
    mastery.record_check(record, "b", 0, False)
    assert mastery.wrong_count(record, "b", 0) == mastery.WRONG_BEFORE_SOLUTION
    for n in (1, 2, 3):
        mastery.record_check(record, "b", n, True)
        mastery.record_check(record, "b", n, True)  # a second check of the same variant adds nothing
    assert mastery.streak(record, keys) == 3 and mastery.mastered(record, keys)


def test_one_skip_in_a_row_is_forgiven_and_a_second_breaks_it():
    record: set[str] = set()
    both = ["a", "b"]  # one skill's two exercises

    def check(key):
        mastery.record_check(record, key, mastery.attempt(record, key), True)

    check("a")
    mastery.try_another(record, "a")  # after a check: no skip
    assert mastery.row(record, both) == (1, 0)
    mastery.try_another(record, "a")  # variant 1 left unchecked: a skip, forgiven
    assert [(e.key, e.n, e.kind) for e in mastery.skips(record, both)] == [("a", 1, "s")]
    check("a")
    assert mastery.row(record, both) == (2, 1)
    mastery.try_another(record, "a")
    mastery.try_another(record, "a")  # variant 3 skipped: the second skip of the row breaks it
    assert mastery.row(record, both) == (0, 0), "a new row, with its own skip to forgive"
    for _ in range(mastery.IN_A_ROW):
        check("b")
        mastery.try_another(record, "b")
    assert mastery.row(record, both) == (mastery.IN_A_ROW, 0) and mastery.mastered(record, both)
    mastery.try_another(record, "a")  # a's variant 4 skipped: a skip of the skill's row
    assert mastery.row(record, both) == (mastery.IN_A_ROW, 1)
    mastery.try_another(record, "b")  # b's variant 3 skipped: the second
    assert mastery.row(record, both) == (0, 0) and not mastery.mastered(record, both)
    assert mastery.row(record, ["b"]) == (mastery.IN_A_ROW, 1), "a skill without a sees none of its skips"


def test_the_practice_record_keeps_the_last_variants_and_the_current_attempt():
    record: set[str] = set()
    for _ in range(20):
        mastery.try_another(record, "a")
        mastery.record_check(record, "a", mastery.attempt(record, "a"), True)
    kept = mastery.prune(record | {"junk", "a|x|r|1", "other|1|r|2"}, {"a"})
    assert mastery.attempt(kept, "a") == 20
    assert {e.n for e in mastery.parse(kept)} == set(range(20 - mastery.KEEP + 1, 21))
    assert mastery.mastered(kept, ["a"])
    # the oldest variant kept was asked for after one whose check is pruned: not a skip
    assert mastery.row(kept, ["a"]) == (mastery.KEEP, 0)
