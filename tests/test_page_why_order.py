"""The "Why order matters" page under AppTest: the table of phenomena and the shuffle
button, its orders against seeded permutations and its measurements against attention
computed here."""

from __future__ import annotations

import numpy as np
import pytest
from app_helpers import assert_clean, notices, open_page

import posenc
from posenc_lab.lessons.why_order.lesson import PHENOMENA

PAGE = "posenc_lab/lessons/why_order/page.py"


def metric(at, start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(start))


def notice(at) -> str:
    return notices(at)[-1]


def moved_error(words: list[str], perm: np.ndarray, with_positions: bool) -> float:
    """max |Attn(PX) - P Attn(X)| written out: one head, width 16, seed 0."""
    x = posenc.word_embeddings(words, 16, seed=0)
    w_q, w_k, w_v = posenc.projections(16, seed=0)
    pe = posenc.sinusoidal(len(words), 16) if with_positions else 0.0
    q, k, v = ((x + pe) @ w for w in (w_q, w_k, w_v))
    qm, km, vm = ((x[perm] + pe) @ w for w in (w_q, w_k, w_v))

    def attend(q, k, v):
        s = q @ k.T / np.sqrt(16)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)) @ v

    return float(np.abs(attend(qm, km, vm) - attend(q, k, v)[perm]).max())


@pytest.mark.parametrize("key", list(PHENOMENA))
def test_each_pair_holds_exactly_the_same_words_in_another_order(key):
    _name, first, second, _what = PHENOMENA[key]
    assert sorted(first.split()) == sorted(second.split())
    assert first != second


def test_the_table_lists_every_phenomenon_with_its_pair():
    at = open_page(PAGE)
    assert_clean(at)
    table = at.table[0].value
    assert list(table["Phenomenon"]) == [row[0] for row in PHENOMENA.values()]
    assert list(table["Same words, another order"]) == [row[2] for row in PHENOMENA.values()]


@pytest.mark.parametrize("key", ["roles", "negation"])
def test_shuffle_button_draws_seeded_orders_of_the_same_words(key):
    at = open_page(PAGE, {"phenomenon": key})
    assert_clean(at)
    words = PHENOMENA[key][1].split()
    for presses in (0, 1, 2):
        if presses:
            at.button(key="why_shuffle").click().run()
            assert_clean(at)
        perm = np.random.default_rng(presses).permutation(len(words))
        shuffled = [words[i] for i in perm]
        shown = " ".join(m.value for m in at.markdown)
        assert f"*{' '.join(shuffled)}* (shuffle seed {presses})" in shown
        assert metric(at, "Same bag of words") == "yes"
        plain, placed = moved_error(words, perm, False), moved_error(words, perm, True)
        assert float(metric(at, "Attention without positions")) < 1e-12
        assert plain < 1e-12
        assert float(metric(at, "With sinusoidal positions")) == pytest.approx(placed, rel=0.06)
        text = notice(at)
        if shuffled == words:
            assert "gives back the same sentence" in text
        else:
            assert placed > 1e-3  # positions make a real difference
            assert f"same {len(words)} words" in text and f"by {placed:.1e}." in text
