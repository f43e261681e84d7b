"""Design choices, measured: add or concatenate, what a decoder's cache keeps, absolute plus
relative, and the properties a position code is commonly said to have (unique, bounded,
norm-preserving).

Each function measures one claim on explicit inputs (seeded random vectors stand in for
trained ones, and the docstrings say so); the "Design choices" lesson draws the numbers.

Shape letters as in ``posenc``: T positions, D model width, Dh head width, V vocabulary
(token vectors), P positions sampled, K widths, W weights of the absolute part.

References
----------
- Vaswani et al. 2017, arXiv:1706.03762: sec. 3.4 (embeddings multiplied by sqrt(d_model)),
  sec. 3.5 (the sinusoid).
- GPT-2 and BERT initialise embeddings from N(0, 0.02^2) (``initializer_range`` 0.02 in
  their configurations; karpathy/nanoGPT ``_init_weights``).
- Ke et al. 2021, "Rethinking Positional Encoding in Language Pre-training" (TUPE),
  arXiv:2006.15595: the word-position cross terms of an added encoding.
- Su et al. 2021 (RoPE), arXiv:2104.09864; Sun et al. 2022 (xPos), arXiv:2212.10554;
  Press et al. 2021 (ALiBi), arXiv:2108.12409; Raffel et al. 2019 (T5),
  arXiv:1910.10683; Dai et al. 2019 (Transformer-XL), arXiv:1901.02860.
- Dynamic NTK scaling and the KV cache: huggingface/transformers issue #25104
  ("Inconsistent Rotation Base for Dynamic NTK Scaling RoPE").
"""

from __future__ import annotations

import inspect
import math
from typing import NamedTuple

import numpy as np

from posenc._checks import as_choice, as_even_int, as_float, as_float_array, as_int, as_positions, check_budget
from posenc.absolute import learned_table, lookup_learned, sinusoid_frequencies, sinusoidal
from posenc.alibi import alibi_bias
from posenc.attention import sliding_window_mask
from posenc.relative import _xl_position_terms, t5_bias, t5_bucket
from posenc.rope.rotation import apply_rope, apply_xpos, xpos_scale

__all__ = [
    "CACHE_METHODS",
    "EMBEDDING_SCALES",
    "HYBRID_ABSOLUTE",
    "HYBRID_RELATIVE",
    "NORM_METHODS",
    "CacheStep",
    "HybridParts",
    "ScoreParts",
    "added_score_parts",
    "cache_step",
    "cached_position_state",
    "closest_pair",
    "concat_projection_params",
    "content_recovery",
    "embedding_std",
    "hybrid_parts",
    "hybrid_scores",
    "hybrid_translation_errors",
    "norm_by_width",
    "norm_ratio",
    "norm_ratios",
    "offset_distances",
    "rope_translation_error",
    "row_norms",
    "score_part_rms",
    "sinusoid_closest",
    "sinusoid_offset_distance",
    "table_distances",
    "token_embeddings",
    "window_reach",
]

#: how token vectors are scaled: "unit" N(0, 1/D) (norm about 1); "gpt2" N(0, 0.02^2), the
#: GPT-2 / BERT initialisation; "vaswani" N(0, 1/D) multiplied by sqrt(D), as the original
#: Transformer multiplies its embeddings (norm about sqrt(D))
EMBEDDING_SCALES = ("unit", "gpt2", "vaswani")

#: what a decoder keeps for position while it generates, one entry per method
CACHE_METHODS = (
    "absolute",
    "learned",
    "rope",
    "rope_yarn",
    "alibi",
    "t5",
    "transformer_xl",
    "rope_dynamic",
    "rope_pi_growing",
)

#: the relative part and the absolute part of a hybrid encoding
HYBRID_RELATIVE = ("none", "rope", "alibi", "t5")
HYBRID_ABSOLUTE = ("sinusoidal", "learned")

#: position-dependent maps whose effect on a vector's norm ``norm_ratio`` measures
NORM_METHODS = ("rope", "xpos_query", "xpos_key")


# add or concatenate


def embedding_std(scale: str, d_model: int) -> float:
    """Standard deviation of each entry of a token vector under ``scale``.

    Returns
    -------
    float: ``1/sqrt(D)`` ("unit"), ``0.02`` ("gpt2"), ``1/sqrt(D) * sqrt(D) = 1`` ("vaswani").
    """
    scale = as_choice("scale", scale, EMBEDDING_SCALES)
    d_model = as_int("d_model", d_model, min_value=1)
    return {"unit": 1 / math.sqrt(d_model), "gpt2": 0.02, "vaswani": 1.0}[scale]


def token_embeddings(n_tokens: int, d_model: int, *, scale: str = "unit", seed: int = 0) -> np.ndarray:
    """Random token vectors as an embedding table holds them at initialisation.

    Parameters
    ----------
    n_tokens : int, >= 1
    d_model : int, >= 1
    scale : {"unit", "gpt2", "vaswani"}
        See ``EMBEDDING_SCALES``.
    seed : int, >= 0

    Returns
    -------
    E : (V, D) ndarray, entries N(0, embedding_std(scale, D)^2); row v is the same for
    any ``n_tokens > v``.

    Notes
    -----
    These are untrained vectors: trained embeddings have other norms and directions.
    """
    n_tokens = as_int("n_tokens", n_tokens, min_value=1)
    d_model = as_int("d_model", d_model, min_value=1)
    scale = as_choice("scale", scale, EMBEDDING_SCALES)
    seed = as_int("seed", seed, min_value=0)
    check_budget(n_tokens * d_model, "token_embeddings(n_tokens, d_model)")
    if scale == "vaswani":
        # drawn at std 1/sqrt(D), then multiplied by sqrt(D) (Vaswani et al., sec. 3.4)
        drawn = np.random.default_rng(seed).normal(0.0, 1 / math.sqrt(d_model), (n_tokens, d_model))
        return drawn * math.sqrt(d_model)
    return np.random.default_rng(seed).normal(0.0, embedding_std(scale, d_model), (n_tokens, d_model))


def row_norms(table) -> np.ndarray:
    """Euclidean norm of each row.

    Parameters
    ----------
    table : (T, D) array_like

    Returns
    -------
    (T,) ndarray; for ``sinusoidal(T, D)`` every entry is ``sqrt(D/2)`` (each sin/cos
    pair has norm 1).
    """
    table = as_float_array("table", table, ndim=2)
    return np.linalg.norm(table, axis=1)


def norm_by_width(d_models, *, scale: str | None, n_rows: int = 256, seed: int = 0, base: float = 10000.0):
    """Mean row norm of token vectors (``scale``) or of the sinusoid (``scale=None``) at each width.

    Parameters
    ----------
    d_models : (K,) array_like of ints
        Widths; each even when ``scale`` is None.
    scale : {"unit", "gpt2", "vaswani"} or None
    n_rows : int
        Token vectors drawn, or positions 0..n_rows-1 of the sinusoid.

    Returns
    -------
    (K,) ndarray: about ``1``, ``0.02 sqrt(D)``, ``sqrt(D)`` for the scales, exactly
    ``sqrt(D/2)`` for the sinusoid.
    """
    widths = as_positions("d_models", d_models, integer=True)
    n_rows = as_int("n_rows", n_rows, min_value=1)
    check_budget(int(n_rows * widths.max()), "norm_by_width(n_rows x largest width)")
    out = np.empty(widths.size)
    # one table per width: each has its own shape
    for i, d in enumerate(widths.tolist()):
        table = (
            sinusoidal(n_rows, as_even_int("d_models entry", d), base)
            if scale is None
            else token_embeddings(n_rows, as_int("d_models entry", d, min_value=1), scale=scale, seed=seed)
        )
        out[i] = row_norms(table).mean()
    return out


class ScoreParts(NamedTuple):
    """The three parts of ``(x_i + PE_i) . (x_j + PE_j)``, each (T, T)."""

    content: np.ndarray  # x_i . x_j
    cross: np.ndarray  # x_i . PE_j + PE_i . x_j
    position: np.ndarray  # PE_i . PE_j

    @property
    def total(self) -> np.ndarray:
        return self.content + self.cross + self.position


def _same_shape_pair(x, pe):
    x = as_float_array("x", x, ndim=2)  # (T, D)
    pe = as_float_array("pe", pe, ndim=2)  # (T, D)
    if x.shape != pe.shape:
        raise ValueError(f"x and pe must have the same shape, got {x.shape} and {pe.shape}")
    check_budget(x.shape[0] ** 2 * 3, "three (T, T) score parts")
    return x, pe


def added_score_parts(x, pe) -> ScoreParts:
    """Split the dot-product score of added encodings into content, cross and position parts.

    Parameters
    ----------
    x : (T, D) array_like
        Token vectors.
    pe : (T, D) array_like
        Position codes added to them.

    Returns
    -------
    ScoreParts(content, cross, position), each (T, T); ``.total`` is
    ``(x + pe) @ (x + pe).T``. The projections W_q, W_k are taken as the identity.

    Notes
    -----
    .. math:: (x_i + p_i)\\cdot(x_j + p_j) = x_i\\cdot x_j + (x_i\\cdot p_j + p_i\\cdot x_j) + p_i\\cdot p_j

    Ke et al. 2021 (TUPE) call the middle terms mixed word-position correlations.
    """
    x, pe = _same_shape_pair(x, pe)
    cross = x @ pe.T  # (T, T): x_i . PE_j
    return ScoreParts(x @ x.T, cross + cross.T, pe @ pe.T)


def score_part_rms(x, pe) -> np.ndarray:
    """Typical size of each part of the added score.

    Returns
    -------
    (3,) ndarray: root mean square over all (i, j) pairs of the content, cross and
    position parts of ``added_score_parts(x, pe)``.
    """
    parts = added_score_parts(x, pe)
    return np.sqrt(np.array([np.mean(part**2) for part in parts]))


def content_recovery(vocab, pe, *, mode: str = "add") -> float:
    """How often the token can be read back from token + position.

    Every token v of ``vocab`` is placed at every position p of ``pe``, either added
    (``x_v + PE_p``, width D) or concatenated (``[x_v, PE_p]``, width D + Dp). A
    linear read-out that knows the vocabulary and where the token's slots are picks the
    nearest token vector: ``argmax_u  x_u . c - |x_u|^2 / 2``, where c is the part of
    the input the read-out weights see (all of it when added, the first D slots when
    concatenated).

    Parameters
    ----------
    vocab : (V, D) array_like
    pe : (P, Dp) array_like
        ``Dp == D`` for ``mode="add"``.
    mode : {"add", "concat"}

    Returns
    -------
    float in [0, 1]: the fraction of the V x P (token, position) pairs read back as the
    right token. Concatenated, the read-out weights are zero on the position slots, so
    the code cannot disturb it.
    """
    mode = as_choice("mode", mode, ("add", "concat"))
    vocab = as_float_array("vocab", vocab, ndim=2)  # (V, D)
    pe = as_float_array("pe", pe, ndim=2)  # (P, Dp)
    n_vocab, d = vocab.shape
    n_pos, d_pos = pe.shape
    if mode == "add" and d_pos != d:
        raise ValueError(f"pe must have the width of vocab ({d}) to be added, got {d_pos}")
    check_budget(n_vocab * n_pos * n_vocab, "content_recovery (V x P x V)")
    # the read-out's logit of token u for token v at position p, x_u . (x_v + PE_p) -
    # |x_u|^2 / 2, splits into a content part (V, V) and a position part (P, V), so the
    # V x P inputs never need building: O((V + P) V D) multiplications, not O(V P V D)
    content = vocab @ vocab.T - 0.5 * np.sum(vocab**2, axis=1)  # (V, V): [v, u]
    if mode == "concat":
        # the read-out weights are zero on the position slots: the code adds nothing
        read = np.broadcast_to(np.argmax(content, axis=1)[:, None], (n_vocab, n_pos))  # (V, P)
    else:
        position = pe @ vocab.T  # (P, V): [p, u]
        read = np.argmax(content[:, None, :] + position[None, :, :], axis=-1)  # (V, P)
    return float(np.mean(read == np.arange(n_vocab)[:, None]))


def concat_projection_params(d_model: int, d_pos: int, *, n_projections: int = 3) -> tuple[int, int]:
    """Weights of the projections that read the input, added versus concatenated.

    Parameters
    ----------
    d_model : int, >= 1
        D, the width of a token vector and of each projection's output.
    d_pos : int, >= 1
        Width of the concatenated position code.
    n_projections : int, >= 1
        3 for W_q, W_k, W_v.

    Returns
    -------
    (added, concatenated): ``n * D * D`` and ``n * D * (D + Dp)``.
    """
    d_model = as_int("d_model", d_model, min_value=1)
    d_pos = as_int("d_pos", d_pos, min_value=1)
    n_projections = as_int("n_projections", n_projections, min_value=1)
    return n_projections * d_model * d_model, n_projections * d_model * (d_model + d_pos)


# caching during generation


def _causal_rows(grid: np.ndarray) -> np.ndarray:
    """Entries (i, j <= i) of a (T, T) grid, row after row: row i is made when token i arrives."""
    # a boolean mask walks the grid in row-major order, as tril_indices does, without the
    # two (T (T + 1) / 2,) index arrays
    return grid[np.tri(grid.shape[0], dtype=bool)]


def cached_position_state(
    method: str,
    length: int,
    *,
    head_dim: int = 64,
    train_len: int = 64,
    factor: float = 4.0,
    slope: float = 0.5,
    num_buckets: int = 32,
    max_distance: int = 128,
    seed: int = 0,
) -> np.ndarray:
    """What a causal decoder keeps for position after ``length`` tokens, one head, as a flat array.

    Parameters
    ----------
    method : str, one of ``CACHE_METHODS``
        - "absolute": keys ``x_j + PE_j`` (the sinusoid added before the projections);
        - "learned": keys ``x_j + P_j`` with a learned table of ``train_len`` rows
          (N(0, 0.02^2)); past them it raises ``PositionOutOfRange``;
        - "rope": keys rotated once at their own position;
        - "rope_yarn": the same with YaRN's fixed rescaled frequencies (``factor``,
          ``train_len``);
        - "rope_dynamic": dynamic NTK, whose base grows with the length once it passes
          ``train_len``;
        - "rope_pi_growing": position interpolation with ``factor = max(1, T / train_len)``,
          a factor that grows with the text (an illustration, not a published recipe);
        - "alibi", "t5": the bias row of each query, ``-slope |i - j|`` or T5's
          causal bucket table (one random scalar per bucket);
        - "transformer_xl": the position terms of each query's row,
          ``q_i . R_{i-j} + v . R_{i-j}`` (W_R the identity).
    length : int, >= 1
        T, the tokens so far.
    head_dim : int, even
    train_len : int, >= 1
        L, the training length the scaled RoPE variants refer to.
    factor : float, >= 1
    slope, num_buckets, max_distance, seed
        ALiBi's slope, T5's table, and the seed of the random keys, queries and tables.

    Returns
    -------
    state : 1-D ndarray
        Keys ``(T, Dh)`` flattened row by row (absolute, learned and RoPE variants), or
        the causal rows ``(i, j <= i)`` of a ``(T, T)`` grid, ``T (T + 1) / 2`` entries,
        row by row (ALiBi, T5, Transformer-XL). Row t is the same data for every length
        that contains it exactly when the method's cache stays valid.

    Raises
    ------
    PositionOutOfRange
        "learned" with ``length > train_len``: the table has no row for the new token.
    """
    method, length, options = _cache_arguments(
        method, length, head_dim, train_len, factor, slope, num_buckets, max_distance, seed
    )
    return _position_state(method, length, _cache_inputs(method, length, options), options)


#: cached_position_state's keyword defaults, read off its signature (cache_step fills them in)
_CACHE_DEFAULTS = {
    name: p.default
    for name, p in inspect.signature(cached_position_state).parameters.items()
    if p.kind is p.KEYWORD_ONLY
}


def _cache_arguments(method, length, head_dim, train_len, factor, slope, num_buckets, max_distance, seed):
    """``cached_position_state``'s arguments checked, and its budget for ``length``."""
    method = as_choice("method", method, CACHE_METHODS)
    length = as_int("length", length, min_value=1)
    options = dict(
        head_dim=as_even_int("head_dim", head_dim),
        train_len=as_int("train_len", train_len, min_value=1),
        factor=as_float("factor", factor, ge=1.0),
        slope=as_float("slope", slope, ge=0.0) if method == "alibi" else slope,
        num_buckets=as_int("num_buckets", num_buckets, min_value=2) if method == "t5" else num_buckets,
        max_distance=max_distance,
        seed=as_int("seed", seed, min_value=0),
    )
    if method in ("alibi", "t5", "transformer_xl"):
        check_budget(4 * length * length, f"cached_position_state({method!r}) (T, T) grids")
    else:
        check_budget(length * options["head_dim"], f"cached_position_state({method!r}) keys")
    return method, length, options


def _cache_inputs(method: str, length: int, options: dict) -> dict:
    """The random parts of ``method``'s state for up to ``length`` tokens: the keys (and
    queries) ``x`` (T, Dh), and the learned table, T5's bucket scalars or Transformer-XL's
    ``v``. Row j of ``x`` is the same for every length (the generator fills rows in order),
    so a shorter state reads the first rows of a longer draw."""
    head_dim, seed = options["head_dim"], options["seed"]
    if method == "alibi":
        return {}  # a bias of the distance alone: nothing random
    if method == "t5":
        return dict(table=np.random.default_rng(seed + 1).standard_normal((options["num_buckets"], 1)))
    inputs = dict(x=np.random.default_rng(seed).standard_normal((length, head_dim)))  # (T, Dh)
    if method == "learned":
        inputs["table"] = learned_table(options["train_len"], head_dim, std=0.02, seed=seed + 3)  # (L, Dh)
    elif method == "transformer_xl":
        inputs["v"] = np.random.default_rng(seed + 2).standard_normal(head_dim)  # (Dh,) the global position bias
    return inputs


def _position_state(method: str, length: int, inputs: dict, options: dict) -> np.ndarray:
    """``cached_position_state`` of checked arguments, from ``_cache_inputs`` for this
    length or a longer one."""
    head_dim, train_len, factor = options["head_dim"], options["train_len"], options["factor"]
    x = inputs["x"][:length] if "x" in inputs else None  # (T, Dh)
    scaling = {
        "rope": None,
        "rope_yarn": {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": train_len},
        "rope_dynamic": {"rope_type": "dynamic", "factor": factor, "original_max_position_embeddings": train_len},
        "rope_pi_growing": {"rope_type": "linear", "factor": max(1.0, length / train_len)},
    }
    if method == "absolute":
        return (x + sinusoidal(length, head_dim)).reshape(-1)
    if method == "learned":
        return (x + lookup_learned(inputs["table"], np.arange(length))).reshape(-1)
    if method in scaling:
        # apply_rope takes the length as the largest position + 1, as a decoder does
        return apply_rope(x, rope_scaling=scaling[method]).reshape(-1)
    if method == "alibi":
        return _causal_rows(alibi_bias(1, length, slopes=[options["slope"]])[0])
    if method == "t5":
        # a decoder's buckets are one-sided (bidirectional=False), as in T5's decoder
        grid = t5_bias(inputs["table"], length, bidirectional=False, max_distance=options["max_distance"])[0]
        return _causal_rows(grid)
    # transformer_xl_scores(x, x, 0, v)'s two position terms, without its two content terms
    content_position, global_position = _xl_position_terms(x, length, inputs["v"], np.eye(head_dim), 10000.0)
    # global_position is new: summed into it, not into a third (T, T) array (a + b == b + a exactly)
    return _causal_rows(np.add(global_position, content_position, out=global_position))


class CacheStep(NamedTuple):
    """What appending one token costs a method's position cache."""

    new: int  # entries made for the new token
    changed: int  # entries already cached that a fresh computation makes differently (beyond rounding)
    max_change: float  # largest |fresh value - cached value| over all cached entries (0.0 when none)


def cache_step(method: str, length: int, *, rtol: float = 1e-9, **options) -> CacheStep:
    """Measure what appending token ``length`` does to the position cache of ``method``.

    Parameters
    ----------
    method : str, one of ``CACHE_METHODS``
    length : int, >= 1
        T, the tokens already cached; the step makes it T + 1.
    rtol : float, > 0
        A cached entry counts as changed when it moved by more than
        ``rtol * max(1, max |cached entry|)``; smaller moves are floating-point rounding
        (a matrix product of another shape sums in another order).
    **options
        As for ``cached_position_state``.

    Returns
    -------
    CacheStep(new, changed, max_change): entries added (Dh for keys; T + 1 for a new
    row of biases or position terms), cached entries that are no longer what a fresh
    computation gives (they would have to be recomputed), and the largest move of any
    cached entry. Nothing changes for RoPE with fixed frequencies, ALiBi, T5 and
    Transformer-XL; every cached key (but those at position 0) changes for dynamic NTK
    once T + 1 passes ``train_len``.
    """
    rtol = as_float("rtol", rtol, gt=0.0)
    unknown = sorted(set(options) - set(_CACHE_DEFAULTS))
    if unknown:
        raise TypeError(f"cache_step() got unexpected keyword arguments {unknown}; allowed: {sorted(_CACHE_DEFAULTS)}")
    args = {**_CACHE_DEFAULTS, **options}
    method, length, checked = _cache_arguments(method, length, **args)
    _cache_arguments(method, length + 1, **args)  # the longer state's budget, before any work
    # the T + 1 tokens are drawn once; the state at T reads the first T of them, exactly the
    # draw cached_position_state(method, T) makes (rows are drawn in order)
    inputs = _cache_inputs(method, length + 1, checked)
    before = _position_state(method, length, inputs, checked)
    after = _position_state(method, length + 1, inputs, checked)
    diff = np.subtract(after[: before.size], before)
    np.abs(diff, out=diff)  # in place: at T = 1000 the rows are 4 MB
    tol = rtol * max(1.0, float(np.abs(before).max()))
    return CacheStep(int(after.size - before.size), int(np.count_nonzero(diff > tol)), float(diff.max(initial=0.0)))


# absolute plus relative


class HybridParts(NamedTuple):
    """The parts of a hybrid score, each (T, T); ``scores(w)`` puts them together."""

    content: np.ndarray  # rel(x_i) . rel(x_j)
    cross: np.ndarray  # rel(x_i) . rel(PE_j) + rel(PE_i) . rel(x_j)
    position: np.ndarray  # rel(PE_i) . rel(PE_j)
    bias: np.ndarray  # b(i, j), added after the 1/sqrt(Dh) scale
    head_dim: int

    def scores(self, weight: float) -> np.ndarray:
        """Logits with the absolute part weighted by ``weight``: (T, T).

        ``(content + w cross + w^2 position) / sqrt(Dh) + bias``, which equals the score
        of ``x + w PE`` under the relative method.
        """
        w = as_float("weight", weight)
        return (self.content + w * self.cross + w * w * self.position) / math.sqrt(self.head_dim) + self.bias


def _absolute_codes(absolute: str, pos: np.ndarray, width: int, opts: dict) -> np.ndarray:
    if absolute == "sinusoidal":
        return sinusoidal(pos.astype(np.float64), width, opts["base"])
    table = learned_table(opts["max_len"], width, std=opts["std"], seed=opts["seed"])
    return lookup_learned(table, pos)


def hybrid_parts(
    x,
    positions,
    *,
    relative: str = "rope",
    absolute: str = "sinusoidal",
    slope: float = 0.5,
    num_buckets: int = 32,
    max_distance: int = 128,
    max_len: int = 512,
    std: float = 0.5,
    seed: int = 0,
    base: float = 10000.0,
) -> HybridParts:
    """Split a hybrid score: an absolute code added to the inputs, a relative method inside attention.

    Parameters
    ----------
    x : (T, Dh) array_like
        The phrase's vectors, used as queries and keys (projections taken as identity).
    positions : int or (T,) array_like of whole numbers
    relative : {"none", "rope", "alibi", "t5"}
        "rope" rotates ``x + w PE`` by its position; "alibi" adds ``-slope |i - j|``;
        "t5" adds a random scalar per (bidirectional) bucket of ``j - i`` (``seed``).
    absolute : {"sinusoidal", "learned"}
        The added code: the sinusoid (``base``) or a random learned table (``max_len``
        rows, entries N(0, std^2), ``seed``).

    Returns
    -------
    HybridParts(content, cross, position, bias, head_dim); ``.scores(w)`` is the (T, T)
    logit grid with the absolute part weighted by w (w = 0: the relative method alone).

    Raises
    ------
    PositionOutOfRange
        ``absolute="learned"`` with a position at or past ``max_len``.

    Notes
    -----
    .. math:: s_{ij}(w) = \\frac{r(x_i + w p_i)\\cdot r(x_j + w p_j)}{\\sqrt{D_h}} + b(j - i)

    with r the rotation (RoPE) or the identity; expanding in w gives the parts.
    """
    relative = as_choice("relative", relative, HYBRID_RELATIVE)
    absolute = as_choice("absolute", absolute, HYBRID_ABSOLUTE)
    x = as_float_array("x", x, ndim=2)  # (T, Dh)
    head_dim = as_even_int("x.shape[1] (head_dim)", x.shape[1])
    pos = as_positions("positions", positions, integer=True)  # (T,)
    if pos.size != x.shape[0]:
        raise ValueError(f"positions must have one entry per row of x ({x.shape[0]}), got {pos.size}")
    check_budget(5 * pos.size**2, "five (T, T) hybrid parts")
    opts = dict(
        base=as_float("base", base, gt=1.0),
        max_len=as_int("max_len", max_len, min_value=1),
        std=as_float("std", std, ge=0.0),
        seed=as_int("seed", seed, min_value=0),
    )
    pe = _absolute_codes(absolute, pos, head_dim, opts)  # (T, Dh)
    if relative == "rope":
        angles_at = pos.astype(np.float64)
        x, pe = apply_rope(x, angles_at, base=opts["base"]), apply_rope(pe, angles_at, base=opts["base"])
    cross = x @ pe.T  # (T, T): r(x_i) . r(PE_j)
    offsets = pos[None, :] - pos[:, None]  # (T, T) key minus query
    if relative == "alibi":
        # b = -m |i - j|
        bias = -as_float("slope", slope, ge=0.0) * np.abs(offsets).astype(np.float64)
    elif relative == "t5":
        num_buckets = as_int("num_buckets", num_buckets, min_value=2)
        table = np.random.default_rng(opts["seed"]).standard_normal(num_buckets)  # one head
        bias = table[t5_bucket(offsets, num_buckets=num_buckets, max_distance=max_distance)]
    else:
        bias = np.zeros(offsets.shape)
    return HybridParts(x @ x.T, cross + cross.T, pe @ pe.T, bias, head_dim)


def hybrid_scores(x, positions, *, weight: float, **options) -> np.ndarray:
    """Logits of ``x + weight * PE`` under a relative method: (T, T). Options as for ``hybrid_parts``."""
    return hybrid_parts(x, positions, **options).scores(weight)


def hybrid_translation_errors(x, shift: int, weights, **options) -> np.ndarray:
    """Largest change of a phrase's hybrid scores when it moves ``shift`` positions right, per weight.

    Parameters
    ----------
    x : (T, Dh) array_like
    shift : int, >= 0
    weights : (W,) array_like
        Weights of the absolute part.
    **options
        As for ``hybrid_parts``.

    Returns
    -------
    (W,) ndarray: ``max |s_at_shift(w) - s_at_0(w)|``. The relative part alone (w = 0)
    gives 0 up to rounding; any w > 0 brings the absolute code's dependence on where the
    phrase sits.
    """
    x = as_float_array("x", x, ndim=2)
    shift = as_int("shift", shift, min_value=0)
    weights = as_float_array("weights", weights, ndim=1)  # (W,)
    n = x.shape[0]
    check_budget(weights.size * n * n, "hybrid_translation_errors (W x T x T)")
    start = hybrid_parts(x, n, **options)
    moved = hybrid_parts(x, np.arange(shift, shift + n), **options)
    w = weights[:, None, None]  # (W, 1, 1)
    scale = math.sqrt(start.head_dim)
    # s_moved(w) - s_start(w) = (dC + w dX + w^2 dP) / sqrt(Dh) + dB
    change = (
        (moved.content - start.content) + w * (moved.cross - start.cross) + w * w * (moved.position - start.position)
    ) / scale + (moved.bias - start.bias)  # (W, T, T)
    return np.abs(change).max(axis=(1, 2))


# unique, bounded, norm-preserving


def sinusoid_offset_distance(offsets, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Distance between the sinusoid's codes of two positions ``k`` apart.

    Parameters
    ----------
    offsets : int or (R,) array_like
        Offsets k >= 0 (an int n means 0..n-1).
    d_model : int, even
    base : float

    Returns
    -------
    (R,) ndarray, ``|PE_p - PE_{p+k}|`` for any p (it does not depend on p).

    Notes
    -----
    Each sin/cos pair is a point on the unit circle turned by ``k w_i``; its chord is
    ``2 |sin(k w_i / 2)|``, so

    .. math:: |PE_p - PE_{p+k}| = 2 \\sqrt{\\textstyle\\sum_i \\sin^2(k w_i / 2)}
    """
    k = as_positions("offsets", offsets, width=max(1, as_even_int("d_model", d_model) // 2))
    w = sinusoid_frequencies(d_model, base)  # (D/2,)
    # chord of each pair: 2 |sin(k w_i / 2)|
    return 2.0 * np.sqrt(np.sum(np.sin(k[:, None] * w[None, :] / 2.0) ** 2, axis=1))


def sinusoid_closest(n_positions: int, d_model: int, base: float = 10000.0, *, threshold: float = 0.1, distances=None):
    """The closest two codes of the sinusoid among positions 0..N-1.

    Parameters
    ----------
    n_positions : int, >= 2
    d_model : int, even
    threshold : float, > 0
    distances : (N-1,) array_like or None
        ``sinusoid_offset_distance(np.arange(1, N), d_model, base)`` when the caller has
        it already (a page that draws it too); computed here when None.

    Returns
    -------
    (distance, offset, n_close, running):
        the smallest ``|PE_p - PE_q|`` over p != q, the offset ``|p - q|`` where it
        occurs, the number of pairs (p < q) closer than ``threshold``, and ``running``
        (N-1,) whose entry n-2 is the smallest distance among positions 0..n-1.

    Notes
    -----
    The distance depends on ``k = q - p`` only, and N - k pairs are k apart.
    """
    n_positions = as_int("n_positions", n_positions, min_value=2)
    threshold = as_float("threshold", threshold, gt=0.0)
    if distances is None:
        dist = sinusoid_offset_distance(np.arange(1, n_positions), d_model, base)  # (N-1,) offsets 1..N-1
    else:
        dist = as_float_array("distances", distances, ndim=1)
        if dist.size != n_positions - 1:
            raise ValueError(
                f"distances must hold the {n_positions - 1} offsets 1..n_positions-1, got {dist.size} values"
            )
    k = int(np.argmin(dist)) + 1
    n_close = int(np.sum((n_positions - np.arange(1, n_positions))[dist < threshold]))
    return float(dist[k - 1]), k, n_close, np.minimum.accumulate(dist)


def _squared_distances(table: np.ndarray) -> np.ndarray:
    """|row_p - row_q|^2 for every pair of rows of (T, D): (T, T), in place on the Gram
    matrix (fresh (T, T) temporaries cost as much as the product at T = 512)."""
    sq = np.sum(table**2, axis=1)  # (T,)
    d2 = table @ table.T
    d2 *= -2.0
    d2 += sq[:, None]
    d2 += sq[None, :]
    return d2


def offset_distances(table) -> np.ndarray:
    """Mean distance between rows ``k`` apart, for every offset k, of any code table.

    Parameters
    ----------
    table : (T, D) array_like

    Returns
    -------
    (T-1,) ndarray, entry k-1 is the mean of ``|row_p - row_{p+k}|`` over p = 0..T-1-k.
    For the sinusoid every such pair has the same distance
    (``sinusoid_offset_distance``); for a random table they scatter around
    ``std sqrt(2 D)`` whatever k.
    """
    table = _pair_table(table, "offset_distances")
    return _offset_means(_squared_distances(table))


def closest_pair(table) -> tuple[float, int, int]:
    """The two closest rows of a table: (distance, p, q) with p < q.

    Parameters
    ----------
    table : (T, D) array_like, T >= 2
    """
    table = _pair_table(table, "closest_pair")
    return _closest_in(_squared_distances(table), table)


def table_distances(table) -> tuple[np.ndarray, tuple[float, int, int]]:
    """``offset_distances(table)`` and ``closest_pair(table)`` from one Gram matrix (the
    (T, T, D) product both are made of): ``((T-1,) mean distances, (distance, p, q))``."""
    table = _pair_table(table, "table_distances")
    d2 = _squared_distances(table)  # (T, T)
    closest = _closest_in(d2, table)  # sets the entries p >= q to inf, which _offset_means drops
    return _offset_means(d2), closest


def _pair_table(table, caller: str) -> np.ndarray:
    table = as_float_array("table", table, ndim=2)  # (T, D)
    n = table.shape[0]
    if n < 2:
        raise ValueError(f"table must have at least 2 rows, got {n}")
    check_budget(n * n, f"{caller} (T, T) distances")
    return table


def _offset_means(d2: np.ndarray) -> np.ndarray:
    """Per offset k = 1..T-1, the mean of sqrt(d2[p, p + k]), square roots taken in place;
    what d2 holds at p >= q (inf after ``_closest_in``) does not reach the result."""
    n = d2.shape[0]
    np.maximum(d2, 0.0, out=d2)  # clipped at 0 against rounding
    np.sqrt(d2, out=d2)
    # (p, p + k) sits at p (T + 1) + k of the flattened matrix, so rows of T + 1 put every
    # offset k in column k; a row's entries past p + k = T - 1 belong to the next rows
    by_offset = d2.reshape(-1)[: (n - 1) * (n + 1)].reshape(n - 1, n + 1)  # (T-1, T+1)
    inside = np.arange(n - 1)[:, None] + np.arange(n + 1)[None, :] < n  # (T-1, T+1)
    totals = np.where(inside, by_offset, 0.0).sum(axis=0)[1:n]
    return totals / (n - np.arange(1, n))


def _closest_in(d2: np.ndarray, table: np.ndarray) -> tuple[float, int, int]:
    """The pair p < q of least d2 (whose entries p >= q become inf), at its exact distance."""
    n = d2.shape[0]
    d2[np.tri(n, dtype=bool)] = np.inf  # each pair once, p < q
    flat = int(np.argmin(d2))
    p, q = divmod(flat, n)
    # the exact distance of the chosen pair, not the Gram form's rounding
    return float(np.linalg.norm(table[p] - table[q])), p, q


def norm_ratio(
    method: str,
    positions,
    head_dim: int,
    *,
    seed: int = 0,
    base: float = 10000.0,
    gamma: float = 0.4,
    scale_base: float = 512.0,
) -> np.ndarray:
    """How a position-dependent map changes the norm of one random vector.

    Parameters
    ----------
    method : {"rope", "xpos_query", "xpos_key"}
    positions : int or (T,) array_like
    head_dim : int, even
    seed : int
        Seed of the vector q, N(0, 1) entries.
    base, gamma, scale_base
        RoPE's base; xPos's decay settings.

    Returns
    -------
    (T,) ndarray, ``|f_p(q)| / |q|``: 1 up to rounding for RoPE (a rotation), and
    xPos's per-pair scale ``zeta_i^{+-p/scale_base}`` for its queries and keys.
    """
    method = as_choice("method", method, NORM_METHODS)
    head_dim = as_even_int("head_dim", head_dim)
    pos = as_positions("positions", positions, width=head_dim)  # (T,)
    seed = as_int("seed", seed, min_value=0)
    q = np.random.default_rng(seed).standard_normal(head_dim)  # (Dh,)
    stacked = np.broadcast_to(q, (pos.size, head_dim))  # (T, Dh): the same q at every position
    if method == "rope":
        moved = apply_rope(stacked, pos, base=base)
    else:
        role = "query" if method == "xpos_query" else "key"
        moved = apply_xpos(stacked, pos, role=role, base=base, gamma=gamma, scale_base=scale_base)
    return np.linalg.norm(moved, axis=1) / np.linalg.norm(q)


def norm_ratios(
    positions, head_dim: int, *, seed: int = 0, base: float = 10000.0, gamma: float = 0.4, scale_base: float = 512.0
) -> dict[str, np.ndarray]:
    """:func:`norm_ratio` for every method of ``NORM_METHODS`` at once, the rotation shared.

    xPos turns each pair as RoPE does and then scales it, so the pair's squared norm after
    RoPE is taken once and multiplied by xPos's squared scale (queries) or divided by it
    (keys), instead of rotating the vector three times.

    Parameters
    ----------
    As for :func:`norm_ratio`.

    Returns
    -------
    dict {method: (T,) ndarray}, equal to ``norm_ratio(method, ...)`` up to rounding.
    """
    head_dim = as_even_int("head_dim", head_dim)
    pos = as_positions("positions", positions, width=head_dim)  # (T,)
    seed = as_int("seed", seed, min_value=0)
    q = np.random.default_rng(seed).standard_normal(head_dim)  # (Dh,)
    moved = apply_rope(np.broadcast_to(q, (pos.size, head_dim)), pos, base=base)  # (T, Dh)
    pairs = moved[:, 0::2] ** 2 + moved[:, 1::2] ** 2  # (T, Dh/2): each pair's squared norm
    squared = xpos_scale(pos, head_dim, gamma=gamma, scale_base=scale_base) ** 2  # (T, Dh/2)
    length = np.linalg.norm(q)
    return {
        "rope": np.sqrt(pairs.sum(axis=1)) / length,
        "xpos_query": np.sqrt((pairs * squared).sum(axis=1)) / length,
        "xpos_key": np.sqrt((pairs / squared).sum(axis=1)) / length,
    }


def rope_translation_error(x, shift: int, *, rope_scaling=None, base: float = 10000.0) -> float:
    """Largest change of a phrase's RoPE scores when it moves ``shift`` positions right.

    Parameters
    ----------
    x : (T, Dh) array_like
        Queries and keys (the same vectors).
    shift : int, >= 0
    rope_scaling : dict or None
        As for ``apply_rope``; with "dynamic" the frequencies follow the largest
        position, so a moved phrase may be turned at other frequencies.

    Returns
    -------
    float: ``max |s(positions + shift) - s(positions)|`` with ``s = R q . R k / sqrt(Dh)``;
    rounding level for fixed frequencies (default, linear, YaRN), larger for dynamic
    NTK once the moved phrase passes the training length.
    """
    x = as_float_array("x", x, ndim=2)  # (T, Dh)
    head_dim = as_even_int("x.shape[1] (head_dim)", x.shape[1])
    shift = as_int("shift", shift, min_value=0)
    n = x.shape[0]
    check_budget(2 * n * n, "rope_translation_error (T, T) scores")

    def scores(start: int) -> np.ndarray:
        rotated = apply_rope(x, np.arange(start, start + n, dtype=np.float64), base=base, rope_scaling=rope_scaling)
        return rotated @ rotated.T / math.sqrt(head_dim)  # (T, T)

    return float(np.abs(scores(shift) - scores(0)).max())


def window_reach(seq_len: int, window: int, max_layers: int) -> np.ndarray:
    """How many positions the last of ``seq_len`` tokens can draw on after 0, 1, ...,
    ``max_layers`` sliding-window layers, found by following the mask, not by the formula.

    Parameters
    ----------
    seq_len, window : int, >= 1
    max_layers : int, >= 0

    Returns
    -------
    (max_layers + 1,) int ndarray: entry L counts the positions with a path of at most L
    visible (query, key) steps down to the last token; ``posenc.window_receptive_field``
    gives the same count in closed form.
    """
    seq_len = as_int("seq_len", seq_len, min_value=1)
    window = as_int("window", window, min_value=1)
    max_layers = as_int("max_layers", max_layers, min_value=0, max_value=10_000)
    mask = sliding_window_mask(seq_len, seq_len, window)  # (T, T)
    reached = np.zeros(seq_len, dtype=bool)
    reached[-1] = True  # layer 0: the token itself
    counts = [1]
    for _ in range(max_layers):
        # one layer down: every key a reached query sees
        reached = reached | mask[reached].any(axis=0)
        counts.append(int(reached.sum()))
    return np.array(counts)
