"""Toy inputs for the lessons: words turned into fixed pseudo-random vectors.

A word's vector depends on the word alone (not on where it stands), which is exactly
the situation in which attention cannot tell "dog bites man" from "man bites dog".
"""

from __future__ import annotations

import re
import zlib

import numpy as np

from ._checks import as_int, check_budget

__all__ = ["MAX_WORDS", "projections", "split_words", "word_embeddings"]

MAX_WORDS = 64


def split_words(sentence: str, *, max_words: int = MAX_WORDS) -> list[str]:
    """Lower-cased words of a sentence (letters, digits, apostrophes).

    Raises
    ------
    ValueError
        ``sentence`` is not a string, has no word, or more than ``max_words``.

    Examples
    --------
    >>> split_words("Dog bites man!")
    ['dog', 'bites', 'man']
    """
    if not isinstance(sentence, str):
        raise ValueError(f"sentence must be a string, got {type(sentence).__name__}")
    max_words = as_int("max_words", max_words, min_value=1)
    words = re.findall(r"[\w']+", sentence.lower())
    if not words:
        raise ValueError(f"sentence must contain at least one word, got {sentence[:40]!r}")
    if len(words) > max_words:
        raise ValueError(f"sentence must have at most {max_words} words, got {len(words)}")
    return words


def word_embeddings(words, d_model: int, *, seed: int = 0) -> np.ndarray:
    """A fixed N(0, 1) vector per word, the same wherever and whenever it appears.

    Parameters
    ----------
    words : sequence of str
    d_model : int, >= 1
    seed : int, >= 0
        Picks a different (but still fixed) vocabulary.

    Returns
    -------
    E : (T, D) ndarray; equal words get equal rows.
    """
    if isinstance(words, str) or not all(isinstance(w, str) for w in words):
        raise ValueError("words must be a sequence of strings (use split_words for a sentence)")
    words = list(words)
    if not words:
        raise ValueError("words must not be empty")
    d_model = as_int("d_model", d_model, min_value=1)
    seed = as_int("seed", seed, min_value=0)
    check_budget(len(words) * d_model, "word_embeddings(words, d_model)")
    vocab = sorted(set(words))
    # crc32 is stable across runs and machines (Python's hash() is salted per process)
    table = {w: np.random.default_rng([zlib.crc32(w.encode()), seed]).standard_normal(d_model) for w in vocab}
    return np.stack([table[w] for w in words])


def projections(d_model: int, head_dim: int | None = None, *, seed: int = 0):
    """Seeded query, key and value projections of one attention head.

    Returns
    -------
    w_q, w_k, w_v : (D, Dh) ndarrays, entries N(0, 1/D) so projected vectors keep
    roughly the scale of the input.
    """
    d_model = as_int("d_model", d_model, min_value=1, max_value=4096)
    head_dim = d_model if head_dim is None else as_int("head_dim", head_dim, min_value=1, max_value=4096)
    seed = as_int("seed", seed, min_value=0)
    rng = np.random.default_rng([seed, d_model, head_dim])
    w = rng.standard_normal((3, d_model, head_dim)) / np.sqrt(d_model)
    return w[0], w[1], w[2]
