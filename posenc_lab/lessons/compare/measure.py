"""Every method on one phrase: the measurements behind the "Compare them all" lesson.

``posenc.position_scores`` scores a phrase under eight methods; this module adds the
ninth, Shaw et al.'s clipped relative keys, at arbitrary positions, and the few
measurements the comparison needs: the position-only part of the scores, the change
when the phrase moves, and each method's parameter count.

References: Vaswani et al. 2017 (arXiv:1706.03762), Shaw et al. 2018
(arXiv:1803.02155), Raffel et al. 2019 (T5, arXiv:1910.10683), Su et al. 2021 (RoPE,
arXiv:2104.09864), Press et al. 2021 (ALiBi, arXiv:2108.12409), Chi et al. 2022
(KERPLE, arXiv:2205.09921), Sun et al. 2022 (xPos, arXiv:2212.10554). Reference code:
tensorflow/tensor2tensor (``_relative_attention_inner``) for Shaw's keys.
"""

from __future__ import annotations

import math

import numpy as np

from posenc._checks import as_choice, as_even_int, as_float_array, as_int, as_positions, check_budget
from posenc.analysis import position_scores

__all__ = [
    "COMPARE_METHODS",
    "PHRASE_KINDS",
    "compare_scores",
    "compare_translation_error",
    "translation_errors_by_length",
    "parameter_count",
    "phrase",
    "positional_part",
    "shaw_position_scores",
]

#: the methods compared, in the lesson's order: none, added absolute, relative, rotary
COMPARE_METHODS = ("none", "sinusoidal", "learned", "shaw", "t5", "alibi", "kerple", "rope", "xpos")
#: "repeated": one random word at every position; "random": a different random word at each
PHRASE_KINDS = ("repeated", "random")


# helpers


def _phrase_and_positions(x, positions):
    x = as_float_array("x", x, ndim=2)  # (T, Dh)
    as_even_int("x.shape[1] (head_dim)", x.shape[1])
    pos = as_positions("positions", positions, integer=True)  # (T,)
    if pos.size != x.shape[0]:
        raise ValueError(f"positions must have one entry per row of x ({x.shape[0]}), got {pos.size}")
    check_budget(pos.size**2, "a (T, T) score grid")
    return x, pos


# public API


def phrase(n_tokens: int, head_dim: int, kind: str = "repeated", *, seed: int = 0) -> np.ndarray:
    """A phrase of random word vectors, the same for every method.

    Parameters
    ----------
    n_tokens : int, >= 1
    head_dim : int, even
    kind : {"repeated", "random"}
        ``"repeated"``: one N(0, 1) vector at every position, so that any pattern in the
        scores comes from position alone. ``"random"``: an independent N(0, 1) vector
        per position (row t is the same for any ``n_tokens > t``).
    seed : int, >= 0

    Returns
    -------
    x : (T, Dh) ndarray
    """
    n_tokens = as_int("n_tokens", n_tokens, min_value=1)
    head_dim = as_even_int("head_dim", head_dim)
    kind = as_choice("kind", kind, PHRASE_KINDS)
    seed = as_int("seed", seed, min_value=0)
    check_budget(n_tokens * head_dim, "phrase(n_tokens, head_dim)")
    rng = np.random.default_rng(seed)
    if kind == "repeated":
        return np.broadcast_to(rng.standard_normal(head_dim), (n_tokens, head_dim)).copy()
    return rng.standard_normal((n_tokens, head_dim))


def shaw_position_scores(x, positions, *, max_distance: int = 16, seed: int = 0) -> np.ndarray:
    """Shaw et al.'s logits for a phrase at the given positions, with a random table.

    Parameters
    ----------
    x : (T, Dh) array_like
        Used as queries and keys; Dh even.
    positions : int or (T,) array_like of whole numbers
    max_distance : int, >= 0
        The clipping distance K: offsets beyond +-K share the edge rows.
    seed : int, >= 0
        Seed of the (2K + 1, Dh) table of relative key embeddings ``a^K``, N(0, 1): an
        untrained table, as ``position_scores`` uses for T5's bias.

    Returns
    -------
    S : (T, T) ndarray
        ``S[i, j] = (x_i . x_j + x_i . a^K[clip(p_j - p_i, -K, K) + K]) / sqrt(Dh)``:
        relative offsets are key minus query, as in ``posenc.relative_positions``.

    Notes
    -----
    .. math:: e_{ij} = \\frac{x_i \\cdot x_j + x_i \\cdot a^K_{\\mathrm{clip}(p_j - p_i, K)}}{\\sqrt{D_h}}

    Computed as ``x @ table.T`` then gathered, as ``posenc.shaw_scores`` does; with
    positions ``0..T-1`` the two agree.

    References
    ----------
    Shaw et al. 2018, arXiv:1803.02155, eqs. 4-5.
    """
    x, pos = _phrase_and_positions(x, positions)
    max_distance = as_int("max_distance", max_distance, min_value=0)
    seed = as_int("seed", seed, min_value=0)
    check_budget((2 * max_distance + 1) * x.shape[1], "the Shaw table (2K + 1, Dh)")
    table = np.random.default_rng(seed).standard_normal((2 * max_distance + 1, x.shape[1]))  # (2K+1, Dh)
    # r_ij = clip(p_j - p_i, -K, K) + K, key minus query
    index = pos[None, :] - pos[:, None]  # (T, T), clipped and offset in place
    np.clip(index, -max_distance, max_distance, out=index)
    index += max_distance
    per_offset = x @ table.T  # (T, 2K+1): x_i . a^K_r for every r
    scores = np.take_along_axis(per_offset, index, axis=1)  # (T, T): the position term
    scores += x @ x.T  # in place, as (x x^T + position) / sqrt(Dh) adds and divides
    scores /= math.sqrt(x.shape[1])
    return scores


def compare_scores(x, positions, method: str, **options) -> np.ndarray:
    """Self-attention logits of a phrase at the given positions, for any compared method.

    Parameters
    ----------
    x : (T, Dh) array_like
    positions : int or (T,) array_like of whole numbers
    method : str
        One of ``COMPARE_METHODS``: ``"shaw"`` (options ``max_distance``, ``seed``) or
        any method of ``posenc.position_scores`` (with its options).

    Returns
    -------
    S : (T, T) ndarray

    Raises
    ------
    PositionOutOfRange
        ``"learned"`` with a position at or past ``max_len``.
    """
    method = as_choice("method", method, COMPARE_METHODS)
    if method == "shaw":
        return shaw_position_scores(x, positions, **options)
    return position_scores(x, positions, method, **options)


def positional_part(x, positions, method: str, **options) -> np.ndarray:
    """What position adds to the scores: scores with positions minus scores without.

    Returns
    -------
    P : (T, T) ndarray, ``compare_scores(x, positions, method) - compare_scores(x, positions, "none")``.
    For the biases (T5, ALiBi, KERPLE) it is the bias itself; for added encodings it
    holds the cross terms ``x . PE`` as well; it is 0 for ``"none"``.
    """
    with_positions = compare_scores(x, positions, method, **options)
    return with_positions - position_scores(x, positions, "none")


def _change_when_moved(x, shift: int, method: str, options: dict) -> np.ndarray:
    """``|S(shift .. shift + T - 1) - S(0 .. T - 1)|``, (T, T): the phrase's score change."""
    x = as_float_array("x", x, ndim=2)
    shift = as_int("shift", shift, min_value=0)
    n = x.shape[0]
    moved = compare_scores(x, np.arange(shift, shift + n), method, **options)
    moved -= compare_scores(x, n, method, **options)  # in place: a (T, T) temporary costs as much as the product
    return np.abs(moved, out=moved)


def compare_translation_error(x, shift: int, method: str, **options) -> float:
    """Largest change in the phrase's scores when it moves ``shift`` positions right.

    Parameters
    ----------
    x : (T, Dh) array_like
    shift : int, >= 0
    method, options : as for ``compare_scores``

    Returns
    -------
    float, ``max |S(shift .. shift + T - 1) - S(0 .. T - 1)|``: exactly 0 or at rounding
    level for relative methods, clearly non-zero for added absolute encodings.

    Raises
    ------
    PositionOutOfRange
        ``"learned"`` when ``shift + T > max_len``.
    """
    return float(_change_when_moved(x, shift, method, options).max())


def translation_errors_by_length(x, shift: int, method: str, **options) -> np.ndarray:
    """``compare_translation_error`` of every prefix of the phrase at once.

    Parameters
    ----------
    x : (T, Dh) array_like
        A phrase whose first t rows are the phrase of length t (``phrase`` makes such).
    shift : int, >= 0
    method, options : as for ``compare_scores``

    Returns
    -------
    errors : (T,) ndarray
        ``errors[t - 1] = compare_translation_error(x[:t], shift, method)`` (to rounding):
        scores are pairwise, so the (t, t) grids are the top-left blocks of the (T, T) ones,
        and the largest change over each block is a running maximum down and across.

    Raises
    ------
    PositionOutOfRange
        ``"learned"`` when ``shift + T > max_len``.
    """
    moved = _change_when_moved(x, shift, method, options)
    np.maximum.accumulate(moved, axis=0, out=moved)
    np.maximum.accumulate(moved, axis=1, out=moved)
    return moved.diagonal().copy()


def parameter_count(
    method: str, *, max_len: int, head_dim: int, n_heads: int, max_distance: int = 16, num_buckets: int = 32
) -> int:
    """Learned parameters a method adds (before the q, k, v projections every method has).

    Parameters
    ----------
    method : str, one of ``COMPARE_METHODS``
    max_len : int, >= 1
        Rows of a learned table (the training length).
    head_dim, n_heads : int, >= 1
        ``d_model = n_heads * head_dim``.
    max_distance : int, >= 0
        Shaw's clipping distance K.
    num_buckets : int, >= 1
        T5's number of buckets.

    Returns
    -------
    int
        - none, sinusoidal, RoPE, xPos, ALiBi: 0 (formulas and fixed slopes);
        - learned: ``max_len * n_heads * head_dim``, one table for the whole model;
        - Shaw: ``2 (2K + 1) head_dim`` per layer, tables ``a^K`` and ``a^V`` shared by
          the heads (Shaw et al. 2018, sec. 3.3);
        - T5: ``num_buckets * n_heads``, one scalar per bucket and head, shared by the
          layers of one stack (the encoder and the decoder each learn their own);
        - KERPLE: ``2 * n_heads`` per layer (``r1`` and ``r2`` for each head).
    """
    method = as_choice("method", method, COMPARE_METHODS)
    max_len = as_int("max_len", max_len, min_value=1)
    head_dim = as_int("head_dim", head_dim, min_value=1)
    n_heads = as_int("n_heads", n_heads, min_value=1)
    max_distance = as_int("max_distance", max_distance, min_value=0)
    num_buckets = as_int("num_buckets", num_buckets, min_value=1)
    counts = {
        "learned": max_len * n_heads * head_dim,
        "shaw": 2 * (2 * max_distance + 1) * head_dim,
        "t5": num_buckets * n_heads,
        "kerple": 2 * n_heads,
    }
    return counts.get(method, 0)
