"""Common claims about positional encodings, each reduced to a measurement.

Explanations of Transformers repeat a handful of statements about position; some hold,
some hold only in part, some are false. Each function here computes the numbers that
settle one of them, for any setting, so that the verdict is read off a measurement and
never written in advance. The lesson "Common claims, measured" draws them.

- attention and order: ``attention_order_errors``;
- the sinusoid (Vaswani et al. 2017, arXiv:1706.03762): ``sign_changes``,
  ``wavelength_ends``, ``shift_linearity`` (``shift_pair_fit``, ``fixed_shift_error``),
  ``neighbour_column_cosines``, ``difference_check``;
- RoPE (Su et al. 2021, arXiv:2104.09864): ``rope_factorisation``;
- biases: KERPLE against an RBF kernel (Chi et al. 2022, arXiv:2205.09921, sec. 4):
  ``kernel_comparison``, ``sum_zero_eigenvalues``; DeBERTa's scale (He et al. 2020,
  arXiv:2006.03654, eq. 4): ``deberta_scale``; ALiBi's slopes (Press et al. 2021,
  arXiv:2108.12409, and ``get_slopes`` in ofirpress/attention_with_linear_biases):
  ``naive_alibi_slopes``, ``alibi_slope_gap``, ``heads_where_naive_slopes_differ``; T5's
  buckets against Shaw's clipped table (Raffel et al. 2019, arXiv:1910.10683, sec. 2.1;
  Shaw et al. 2018, arXiv:1803.02155): ``t5_bucket_widths``, ``entry_by_distance``;
- parameters: ``relative_parameter_counts``;
- RoPE's cost and linear attention (Su et al. 2021, sec. 3.3): ``rope_operation_counts``,
  ``rope_linear_attention_gap``.

Shapes as in the package docstring (T, D, Dh, H, L); R is a number of distances or
(p, k) pairs, K Shaw's clipping distance.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from posenc._checks import MAX_HEADS, as_even_int, as_float, as_float_array, as_int, check_budget
from posenc.absolute import sinusoid_frequencies, sinusoidal
from posenc.alibi import alibi_slopes, kerple_from_distance
from posenc.analysis import permutation_error, rotation_blocks, rotation_matrix, wavelengths
from posenc.attention import self_attention
from posenc.relative import deberta_scores, t5_bucket, t5_bucket_ranges, t5_max_exact
from posenc.rope.analysis import rope_shift_error
from posenc.rope.rotation import apply_rope
from posenc.toy import projections
from posenc_lab.lessons.compare.measure import parameter_count

__all__ = [
    "RopeOperations",
    "rope_linear_attention_gap",
    "rope_operation_counts",
    "KERNEL_NAMES",
    "PARAMETER_METHODS",
    "DebertaScale",
    "DifferenceCheck",
    "KernelComparison",
    "NeighbourCosines",
    "OrderErrors",
    "RopeFactorisation",
    "ShiftFit",
    "ShiftLinearity",
    "SignChanges",
    "T5Widths",
    "alibi_slope_gap",
    "attention_order_errors",
    "deberta_scale",
    "difference_check",
    "entry_by_distance",
    "fixed_shift_error",
    "heads_where_naive_slopes_differ",
    "kerple_boundary_gap",
    "kernel_comparison",
    "naive_alibi_slopes",
    "neighbour_column_cosines",
    "relative_parameter_counts",
    "rope_factorisation",
    "shift_linearity",
    "shift_pair_fit",
    "sign_changes",
    "sum_zero_eigenvalues",
    "t5_bucket_widths",
    "wavelength_ends",
]

#: the kernels ``kernel_comparison`` sets side by side, in its order
KERNEL_NAMES = ("KERPLE log", "KERPLE power", "RBF")
#: the methods ``relative_parameter_counts`` counts, in its order
PARAMETER_METHODS = ("learned", "shaw", "shaw_unclipped", "t5", "transformer_xl", "kerple", "alibi", "rope")


class OrderErrors(NamedTuple):
    """Self-attention of X and of its rows reordered (PX), compared two ways."""

    out_invariance: float  # max |Attn(PX) - Attn(X)|: zero if attention ignored the order
    out_equivariance: float  # max |Attn(PX) - P Attn(X)|: zero if the outputs move with the rows
    weights_invariance: float  # max |W(PX) - W(X)|
    weights_equivariance: float  # max |W(PX) - P W(X) P^T|: rows and columns both move
    pooled_invariance: float  # max |mean_t Attn(PX)_t - mean_t Attn(X)_t|
    perm: np.ndarray  # (T,) int: row t of PX is row perm[t] of X


class SignChanges(NamedTuple):
    """Sign changes of one sine column of the sinusoid between consecutive positions."""

    changes: int  # measured: pairs (p, p + 1) with PE[p] * PE[p + 1] < 0
    steps: int  # n - 1, what "a flip at every position" would give
    expected: int  # floor((n - 1) w / pi): multiples of pi the angle passes


class ShiftLinearity(NamedTuple):
    """Three ways to write PE(p + k) from PE(p) and PE(k), each dimension's largest error."""

    concat: np.ndarray  # (D,) best affine map of [PE(p), PE(k)], fitted by least squares
    fixed_k: np.ndarray  # (D,) one matrix M_k for one k: PE(p) @ M_k.T
    bilinear: np.ndarray  # (D,) sin(a + b) = sin a cos b + cos a sin b, pair by pair
    unexplained: float  # share of the variance of PE(p + k) the affine map leaves
    n_pairs: int  # (p, k) pairs the fit and the formula were measured on


class ShiftFit(NamedTuple):
    """The parts of ``ShiftLinearity`` measured on random (p, k) pairs (they do not depend
    on the fixed map's k)."""

    concat: np.ndarray  # (D,)
    bilinear: np.ndarray  # (D,)
    unexplained: float
    n_pairs: int


class NeighbourCosines(NamedTuple):
    """Cosine similarity of columns of the sinusoid over a window of positions."""

    sin_neighbours: np.ndarray  # (D/2 - 1,) cos(sine column of pair i, of pair i + 1)
    cos_neighbours: np.ndarray  # (D/2 - 1,) the same for the cosine columns
    max_off_diagonal: float  # largest |cos| between any two different columns


class DifferenceCheck(NamedTuple):
    """A wrong and a right test of the relative property, each dimension's error."""

    equal_differences: np.ndarray  # (D,) |(PE[2k] - PE[k]) - (PE[k] - PE[0])|
    rotation: np.ndarray  # (D,) max(|PE[k] M_k^T - PE[2k]|, |PE[0] M_k^T - PE[k]|)


class RopeFactorisation(NamedTuple):
    """RoPE scores of three (q, k) pairs against m - n, and the shift check that holds."""

    distances: np.ndarray  # (R,) m - n = 0..R-1
    scores: np.ndarray  # (3, R): pairs A and B (q . k = 1 each), pair C (q . k = 0)
    dots: np.ndarray  # (3,) q . k of each pair, before rotation
    spread: float  # max_r |score_A(r) - score_B(r)|: 0 if the score were (q . k) f(r)
    orthogonal: float  # max_r |score_C(r)|: 0 if the score were (q . k) f(r)
    shift_error: float  # max |score(m, n) - score(m + s, n + s)| over pair A


class KernelComparison(NamedTuple):
    """KERPLE's two biases and an RBF kernel on one grid of positions."""

    distance: np.ndarray  # (L,) |m - n| = 0..L-1
    profiles: np.ndarray  # (3, L) each kernel against distance, in KERNEL_NAMES order
    min_eigenvalue: np.ndarray  # (3,) of the (L, L) matrix k(|m - n|)
    max_eigenvalue: np.ndarray  # (3,)
    min_sum_zero: np.ndarray  # (3,) smallest c^T K c over unit c with sum(c) = 0


class DebertaScale(NamedTuple):
    """Standard deviation of attention logits for unit-variance inputs."""

    c2c_sqrt_d: float  # content to content alone / sqrt(d): ordinary attention, about 1
    sum_sqrt_d: float  # c2c + c2p + p2c over sqrt(d): about sqrt(3)
    sum_sqrt_3d: float  # the same over sqrt(3 d), as DeBERTa scales it: about 1


class T5Widths(NamedTuple):
    """How T5 spends its buckets on the keys behind a query (one direction)."""

    n_buckets: int  # num_buckets, both directions
    used: int  # buckets some offset lands in (bucket num_buckets // 2 never does)
    exact: int  # distances 0..exact-1 get a bucket each
    widths: np.ndarray  # (num_buckets // 2,) distances per bucket, nearest first; inf for the last
    last_from: int  # the last bucket holds every distance from here on


# helpers


def _rng(seed) -> np.random.Generator:
    return np.random.default_rng(as_int("seed", seed, min_value=0))


def _sin_cos(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sine and cosine columns of an interleaved table, each (N, D/2)."""
    return table[:, 0::2], table[:, 1::2]


def _with_dot(q: np.ndarray, u: np.ndarray, dot: float) -> np.ndarray:
    """``u`` moved along ``q`` until ``q . k = dot`` (q must not be 0)."""
    # k = u + ((dot - q.u) / q.q) q  =>  q.k = q.u + dot - q.u
    return u + (dot - q @ u) / (q @ q) * q


# attention and order


def attention_order_errors(n_tokens: int, d_model: int, *, seed: int = 0) -> OrderErrors:
    """Does self-attention ignore the order of its inputs, or move with it?

    Parameters
    ----------
    n_tokens : int, 2..4096
        Rows of X (T), N(0, 1) entries drawn from ``seed``.
    d_model : int, 1..4096
        Width of X; one head with ``posenc.projections(d_model, seed=seed)``.
    seed : int, >= 0
        Also picks the reordering: a random permutation (reversed if it came out as the
        identity, so that something moves).

    Returns
    -------
    OrderErrors
        Invariance errors (Attn(PX) against Attn(X)) are of the order of the outputs;
        equivariance errors (against P Attn(X), and P W P^T for the weights) are at
        rounding level (about 1e-16); the mean over the rows is invariant.

    Notes
    -----
    With :math:`Q = PXW_Q` and :math:`K = PXW_K`, :math:`QK^\\top = P(XW_QW_K^\\top X^\\top)P^\\top`,
    and softmax acts row by row, so :math:`\\mathrm{Attn}(PX) = P\\,\\mathrm{Attn}(X)`:
    equivariance, not invariance. ``out_equivariance`` is ``posenc.permutation_error``.
    """
    n_tokens = as_int("n_tokens", n_tokens, min_value=2, max_value=4096)
    d_model = as_int("d_model", d_model, min_value=1, max_value=4096)
    check_budget(n_tokens * max(n_tokens, d_model), "attention_order_errors(n_tokens, d_model)")
    rng = _rng(seed)
    x = rng.standard_normal((n_tokens, d_model))  # (T, D)
    perm = rng.permutation(n_tokens)
    if np.array_equal(perm, np.arange(n_tokens)):
        perm = perm[::-1].copy()
    w_q, w_k, w_v = projections(d_model, seed=seed)
    kw = dict(w_q=w_q, w_k=w_k, w_v=w_v)
    out, weights = self_attention(x, **kw)  # (T, D), (T, T)
    out_p, weights_p = self_attention(x[perm], **kw)
    return OrderErrors(
        out_invariance=float(np.abs(out_p - out).max()),
        out_equivariance=permutation_error(x, perm, **kw),
        weights_invariance=float(np.abs(weights_p - weights).max()),
        # (P W P^T)_{ab} = W_{perm[a], perm[b]}
        weights_equivariance=float(np.abs(weights_p - weights[np.ix_(perm, perm)]).max()),
        pooled_invariance=float(np.abs(out_p.mean(axis=0) - out.mean(axis=0)).max()),
        perm=perm,
    )


# the sinusoid


def sign_changes(n: int, d_model: int = 2, base: float = 10000.0, *, dim: int = 0) -> SignChanges:
    """How often one sine column of the sinusoid changes sign from position to position.

    Parameters
    ----------
    n : int, 2..1_000_000
        Positions 0..n-1.
    d_model : int, even
    base : float, > 1
    dim : int, even, < d_model
        A sine column of the interleaved table (``PE[p, 2i] = sin(p w_i)``); dimension 0
        is ``sin(p)`` for every ``d_model`` and ``base``.

    Returns
    -------
    SignChanges
        ``changes`` counts the steps p -> p + 1 with ``PE[p] PE[p + 1] < 0`` (position 0,
        where ``sin 0 = 0``, has no sign). The angle ``p w`` passes a multiple of pi
        ``floor((n - 1) w / pi)`` times, and with ``w <= 1 < pi`` at most once per step,
        so ``changes == expected``: about one step in pi for dimension 0, not every step.

    Examples
    --------
    >>> sign_changes(10)
    SignChanges(changes=2, steps=9, expected=2)
    """
    n = as_int("n", n, min_value=2, max_value=1_000_000)
    d_model = as_even_int("d_model", d_model)
    dim = as_int("dim", dim, min_value=0, max_value=d_model - 1)
    if dim % 2:
        raise ValueError(f"dim must be even (a sine column sin(p w_i)), got {dim}")
    column = sinusoidal(n, d_model, base)[:, dim]  # (T,)
    w = sinusoid_frequencies(d_model, base)[dim // 2]
    changes = int(np.count_nonzero(column[:-1] * column[1:] < 0))
    return SignChanges(changes=changes, steps=n - 1, expected=int(math.floor((n - 1) * w / math.pi)))


def wavelength_ends(d_model: int, base: float = 10000.0) -> tuple[float, float]:
    """Wavelength, in positions, of the first (dims 0, 1) and the last sin/cos pair.

    Returns
    -------
    (first, last) : floats, ``2 pi`` and ``2 pi base**((D - 2) / D)``: the low dimensions
    turn fastest (highest frequency), the last ones slowest.

    Examples
    --------
    >>> [round(v, 2) for v in wavelength_ends(4, 100.0)]
    [6.28, 62.83]
    """
    lam = wavelengths(d_model, base)  # (D/2,)
    return float(lam[0]), float(lam[-1])


def shift_linearity(n: int, d_model: int, base: float = 10000.0, *, k: int = 5, seed: int = 0) -> ShiftLinearity:
    """Is PE(p + k) a linear function of PE(p) and PE(k)? Three answers, measured.

    Parameters
    ----------
    n : int
        p and k are drawn from positions 0..n-1; ``n**2`` must be at least
        ``4 (2 D + 1)``, so that the fit has four distinct (p, k) pairs per coefficient.
    d_model : int, even, 2..512
    base : float, > 1
    k : int, >= 0
        The offset of the fixed-k map, applied to every p in 0..n-1.
    seed : int, >= 0
        Which ``4 (2 D + 1)`` distinct pairs are drawn.

    Returns
    -------
    ShiftLinearity
        Per dimension, the largest error over the pairs (over p for ``fixed_k``):
        ``concat`` of the best affine map ``[PE(p), PE(k), 1] -> PE(p + k)`` fitted by
        least squares (of order 1 on the fast dimensions), ``fixed_k`` of
        ``PE(p) @ M_k.T`` and ``bilinear`` of the angle-addition formula (both at
        rounding level). ``unexplained`` is the residual sum of squares of the affine
        map over the total sum of squares of PE(p + k) about its mean.

    Notes
    -----
    Pair by pair, :math:`\\sin(a + b) = \\sin a\\cos b + \\cos a\\sin b` and
    :math:`\\cos(a + b) = \\cos a\\cos b - \\sin a\\sin b` with :math:`a = p w_i`,
    :math:`b = k w_i`: linear in PE(p) once k is fixed (the matrix :math:`M_k`),
    bilinear in (PE(p), PE(k)), and not linear in the two together.

    The two parts are also available alone: ``shift_pair_fit`` (the fit and the formula,
    which do not depend on ``k``) and ``fixed_shift_error`` (the one matrix, which does
    not depend on ``seed``).
    """
    as_int("k", k, min_value=0, max_value=100_000)  # refused before the fit, not after it
    fit = shift_pair_fit(n, d_model, base, seed=seed)
    return ShiftLinearity(
        concat=fit.concat,
        fixed_k=fixed_shift_error(n, d_model, base, k=k),
        bilinear=fit.bilinear,
        unexplained=fit.unexplained,
        n_pairs=fit.n_pairs,
    )


def shift_pair_fit(n: int, d_model: int, base: float = 10000.0, *, seed: int = 0) -> ShiftFit:
    """``shift_linearity``'s parts measured on random (p, k) pairs: the best affine map of
    ``[PE(p), PE(k), 1]`` to PE(p + k) and the angle-addition formula (arguments as there).

    The least-squares fit is an SVD of a (4 (2 D + 1), 2 D + 1) matrix, tens of ms at
    d_model 128 and over 100 at 256, and it does not depend on the fixed map's ``k``: a
    page that moves ``k`` keeps it (``ui.compute_claims``).
    """
    n = as_int("n", n, min_value=2, max_value=100_000)
    d_model = as_even_int("d_model", d_model, max_value=512)
    rng = _rng(seed)
    features = 2 * d_model + 1
    n_pairs = 4 * features
    if n * n < n_pairs:
        raise ValueError(
            f"n must be at least {math.isqrt(n_pairs - 1) + 1} for d_model={d_model} (the fit needs "
            f"{n_pairs} distinct (p, k) pairs among n^2), got {n}"
        )
    check_budget(n_pairs * (features + 2 * d_model), "shift_linearity: the pairs' table")
    picked = rng.choice(n * n, size=n_pairs, replace=False)
    p, kk = picked // n, picked % n  # (R,) each
    pe_p, pe_k = sinusoidal(p, d_model, base), sinusoidal(kk, d_model, base)  # (R, D)
    target = sinusoidal(p + kk, d_model, base)  # (R, D)

    # best affine map: min_W |[PE(p), PE(k), 1] W - PE(p + k)|^2
    design = np.hstack([pe_p, pe_k, np.ones((n_pairs, 1))])  # (R, 2D + 1)
    coef, *_ = np.linalg.lstsq(design, target, rcond=None)
    residual = target - design @ coef  # (R, D)
    spread = ((target - target.mean(axis=0)) ** 2).sum()

    # sin(a + b) = sin a cos b + cos a sin b; cos(a + b) = cos a cos b - sin a sin b
    s_p, c_p = _sin_cos(pe_p)
    s_k, c_k = _sin_cos(pe_k)
    formula = np.empty_like(target)
    formula[:, 0::2] = s_p * c_k + c_p * s_k
    formula[:, 1::2] = c_p * c_k - s_p * s_k
    return ShiftFit(
        concat=np.abs(residual).max(axis=0),
        bilinear=np.abs(formula - target).max(axis=0),
        unexplained=float((residual**2).sum() / spread),
        n_pairs=n_pairs,
    )


def fixed_shift_error(n: int, d_model: int, base: float = 10000.0, *, k: int = 5) -> np.ndarray:
    """``shift_linearity``'s ``fixed_k``: per dimension, the largest error of
    ``PE(p) @ M_k.T`` against PE(p + k) over p in 0..n-1; (D,) (arguments as there)."""
    n = as_int("n", n, min_value=2, max_value=100_000)
    d_model = as_even_int("d_model", d_model, max_value=512)
    k = as_int("k", k, min_value=0, max_value=100_000)
    # one matrix for one k, PE(p + k) = PE(p) @ M_k.T for every p, applied block by block
    # (M_k is 2x2 rotations on the diagonal: O(T D) rather than the dense O(T D^2))
    positions = np.arange(n, dtype=np.float64)
    s, c = _sin_cos(sinusoidal(positions, d_model, base))  # (T, D/2) each
    blocks = rotation_blocks(k, d_model, base)  # (D/2, 2, 2)
    shifted = np.empty((n, d_model))
    shifted[:, 0::2] = blocks[:, 0, 0] * s + blocks[:, 0, 1] * c
    shifted[:, 1::2] = blocks[:, 1, 0] * s + blocks[:, 1, 1] * c
    return np.abs(shifted - sinusoidal(positions + k, d_model, base)).max(axis=0)


def neighbour_column_cosines(n: int, d_model: int, base: float = 10000.0) -> NeighbourCosines:
    """Are the columns (frequency components) of the sinusoid orthogonal over n positions?

    Parameters
    ----------
    n : int, 2..100_000
        The window: positions 0..n-1.
    d_model : int, even, 4..4096
    base : float, > 1

    Returns
    -------
    NeighbourCosines
        ``sin_neighbours[i]`` is the cosine similarity of the sine columns of pairs i and
        i + 1 (dims 2i and 2i + 2), ``cos_neighbours[i]`` of their cosine columns (dims
        2i + 1 and 2i + 3); ``max_off_diagonal`` the largest |cosine| between any two
        different columns. With a large base (10,000) and a wide model, fast columns are
        close to orthogonal over a long window, and slow ones barely turn within it and are
        nearly parallel (cosine near 1); with a small base every column may turn many times.

    Notes
    -----
    Sines of different frequencies are orthogonal over a window that holds a whole number
    of periods of each; these wavelengths (2 pi base^{2i/D}) share no such window, and the
    slow ones are far longer than any window of text.
    """
    n = as_int("n", n, min_value=2, max_value=100_000)
    d_model = as_even_int("d_model", d_model, min_value=4, max_value=4096)
    check_budget(n * d_model + d_model * d_model, "neighbour_column_cosines(n, d_model)")
    table = sinusoidal(n, d_model, base)  # (T, D)
    # with n >= 2 no column is all zeros: sin(w) > 0 and cos(0) = 1
    unit = table / np.linalg.norm(table, axis=0, keepdims=True)
    gram = unit.T @ unit  # (D, D)
    off = np.abs(gram - np.diag(np.diag(gram)))
    return NeighbourCosines(
        sin_neighbours=np.diag(gram[0::2, 0::2], k=1).copy(),
        cos_neighbours=np.diag(gram[1::2, 1::2], k=1).copy(),
        max_off_diagonal=float(off.max()),
    )


def difference_check(k: int, d_model: int, base: float = 10000.0) -> DifferenceCheck:
    """The test "PE[2k] - PE[k] = PE[k] - PE[0]" against the test the relative property makes.

    Parameters
    ----------
    k : int, 1..1_000_000
        The offset (the common check uses k = 5: positions 0, 5 and 10).
    d_model : int, even
    base : float, > 1

    Returns
    -------
    DifferenceCheck
        ``equal_differences`` per dimension: on a correct sinusoid, pair i's two entries
        form a vector of length ``4 sin^2(k w_i / 2)`` (a rotation does not move a point
        by equal steps in a straight line), largest where ``k w_i`` is near an odd
        multiple of pi and 0 at multiples of 2 pi, not simply on the fastest pair;
        ``rotation``: the errors of ``PE[2k] = PE[k] M_k^T`` and ``PE[k] = PE[0] M_k^T``
        (the larger of the two), at rounding level.

    Examples
    --------
    >>> check = difference_check(5, 4)
    >>> round(float(check.equal_differences[0]), 4)  # |sin 10 - 2 sin 5 + sin 0|
    1.3738
    """
    k = as_int("k", k, min_value=1, max_value=1_000_000)
    d_model = as_even_int("d_model", d_model, max_value=4096)
    pe = sinusoidal(np.array([0.0, k, 2.0 * k]), d_model, base)  # (3, D)
    m_k = rotation_matrix(k, d_model, base)  # (D, D)
    wrong = np.abs((pe[2] - pe[1]) - (pe[1] - pe[0]))
    right = np.maximum(np.abs(pe[1] @ m_k.T - pe[2]), np.abs(pe[0] @ m_k.T - pe[1]))
    return DifferenceCheck(equal_differences=wrong, rotation=right)


# RoPE


def rope_factorisation(
    head_dim: int, base: float = 10000.0, *, reach: int = 64, seed: int = 0, shift: int = 1000
) -> RopeFactorisation:
    """Does RoPE's score factor as ``(q . k) f(m - n)``? Three pairs that say no.

    Parameters
    ----------
    head_dim : int, even, 2..4096
    base : float, > 1
    reach : int, 2..4096
        Distances m - n = 0..reach-1 (the query at m, the key at n = 0).
    seed : int, >= 0
        Draws N(0, 1) vectors; pair A and pair B are then adjusted so that q . k = 1,
        pair C so that q . k = 0.
    shift : int, >= 0
        For ``shift_error``: both positions moved by this much.

    Returns
    -------
    RopeFactorisation
        If the score were (q . k) f(m - n), pairs A and B would draw one curve
        (``spread`` = 0) and pair C would score 0 at every distance (``orthogonal`` = 0).
        Both are of the order of the vectors' size. What does hold: the score depends on
        the positions only through m - n (``shift_error`` at rounding level).

    Notes
    -----
    With pairs as complex numbers :math:`\\tilde q_i = q_{2i} + \\mathrm{i}\\,q_{2i+1}`,
    :math:`\\langle R_m q, R_n k\\rangle = \\mathrm{Re}\\sum_i \\tilde q_i\\,\\overline{\\tilde k_i}\\,
    e^{\\mathrm{i}(m - n)\\theta_i}` (RoFormer, eq. 16): a function of q, k and m - n in which
    each pair's product enters with its own phase, not :math:`\\langle q, k\\rangle` times a
    function of m - n.
    """
    head_dim = as_even_int("head_dim", head_dim, max_value=4096)
    reach = as_int("reach", reach, min_value=2, max_value=4096)
    shift = as_int("shift", shift, min_value=0, max_value=1_000_000)
    rng = _rng(seed)
    q = rng.standard_normal((3, head_dim))  # (3, Dh): pairs A, B, C
    u = rng.standard_normal((3, head_dim))
    dots = np.array([1.0, 1.0, 0.0])
    k = np.stack([_with_dot(q[i], u[i], dots[i]) for i in range(3)])  # (3, Dh)
    distances = np.arange(reach)
    rotated = apply_rope(np.broadcast_to(q[:, None, :], (3, reach, head_dim)), distances, base=base)  # (3, R, Dh)
    # the key stays at n = 0, where RoPE is the identity: score(m, 0) = R_m q . k
    scores = np.einsum("ard,ad->ar", rotated, k)  # (3, R)
    return RopeFactorisation(
        distances=distances,
        scores=scores,
        dots=np.einsum("ad,ad->a", q, k),
        spread=float(np.abs(scores[0] - scores[1]).max()),
        orthogonal=float(np.abs(scores[2]).max()),
        shift_error=rope_shift_error(q[0], k[0], reach, shift, base=base),
    )


# biases: KERPLE, DeBERTa, ALiBi, T5


def sum_zero_eigenvalues(matrix) -> np.ndarray:
    """Eigenvalues of a symmetric matrix on the vectors whose entries sum to zero.

    Parameters
    ----------
    matrix : (L, L) array_like, symmetric, L >= 2

    Returns
    -------
    (L - 1,) ndarray, ascending: the eigenvalues of :math:`Q^\\top K Q` for an orthonormal
    basis Q of :math:`\\{c : \\sum_i c_i = 0\\}`. All >= 0 means K is conditionally
    positive definite (CPD) on these points: :math:`c^\\top K c \\ge 0` whenever
    :math:`\\sum_i c_i = 0`; softmax ignores a constant added to every score, which is
    why a CPD bias is enough (Chi et al. 2022, sec. 3).

    Examples
    --------
    >>> d = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))
    >>> bool((sum_zero_eigenvalues(-d) > 0).all())  # -|m - n| is CPD
    True
    """
    matrix = as_float_array("matrix", matrix, ndim=2)
    size = matrix.shape[0]
    if matrix.shape != (size, size) or size < 2:
        raise ValueError(f"matrix must be square with at least 2 rows, got shape {matrix.shape}")
    if not np.allclose(matrix, matrix.T, rtol=1e-12, atol=1e-12):
        raise ValueError("matrix must be symmetric")
    check_budget(size * size, "sum_zero_eigenvalues(matrix)")
    # e_j - 1/L for j = 1..L-1 span the sum-zero vectors; QR makes them orthonormal
    spanning = np.eye(size)[:, 1:] - 1.0 / size  # (L, L-1)
    basis, _ = np.linalg.qr(spanning)
    return np.linalg.eigvalsh(basis.T @ matrix @ basis)


def kernel_comparison(
    length: int, *, sigma: float = 1.0, r1: float = 1.0, r2_log: float = 1.0, r2_power: float = 0.5
) -> KernelComparison:
    """KERPLE's biases against a Gaussian (RBF) kernel, as functions and as matrices.

    Parameters
    ----------
    length : int, 2..2048
        Positions 0..L-1; the matrices are (L, L) with entries k(|m - n|).
    sigma : float, > 0
        Width of the RBF kernel ``exp(-|m - n|^2 / (2 sigma^2))``.
    r1, r2_log, r2_power : floats
        KERPLE's per-head parameters: ``-r1 log(1 + r2_log |m - n|)`` (log variant) and
        ``-r1 |m - n|^r2_power`` (power variant, ``0 < r2_power <= 2``).

    Returns
    -------
    KernelComparison
        KERPLE's matrices have zero diagonals, so their eigenvalues sum to 0: some are
        negative and the matrix is not positive definite; on the sum-zero vectors they
        are >= 0 (conditionally positive definite). The RBF matrix is positive definite
        (every eigenvalue > 0) and its values stay in (0, 1], while KERPLE's fall
        without bound as the distance grows.

    References
    ----------
    Chi et al. 2022, arXiv:2205.09921, sec. 4 (power and logarithmic variants).
    """
    length = as_int("length", length, min_value=2, max_value=2048)
    sigma = as_float("sigma", sigma, gt=0.0)
    distance = np.arange(length, dtype=np.float64)  # (L,)
    grid = np.abs(distance[:, None] - distance[None, :])  # (L, L)
    log_bias = kerple_from_distance(grid, r1, r2_log, "log")[0]  # (L, L)
    power_bias = kerple_from_distance(grid, r1, r2_power, "power")[0]
    # exp(-|m - n|^2 / (2 sigma^2))
    rbf = np.exp(-(grid**2) / (2 * sigma**2))
    matrices = (log_bias, power_bias, rbf)
    spectra = [np.linalg.eigvalsh(m) for m in matrices]
    return KernelComparison(
        distance=distance,
        profiles=np.stack([m[0] for m in matrices]),
        min_eigenvalue=np.array([s[0] for s in spectra]),
        max_eigenvalue=np.array([s[-1] for s in spectra]),
        min_sum_zero=np.array([sum_zero_eigenvalues(m)[0] for m in matrices]),
    )


def kerple_boundary_gap(length: int, r1: float = 1.0) -> tuple[float, float]:
    """KERPLE's power variant at its boundary r2 = 2, through softmax, against a Gaussian RBF.

    Softmax turns an added bias b into the factor ``exp(b)`` on the weights. At r2 = 2
    the power bias is ``-r1 |m - n|^2``, so that factor is ``exp(-r1 |m - n|^2)``: a
    Gaussian RBF of width ``sigma = 1 / sqrt(2 r1)``. The bias itself stays conditionally
    positive definite and unbounded, not an RBF.

    Parameters
    ----------
    length : int, 2..2048
        Distances 0..L-1.
    r1 : float, > 0

    Returns
    -------
    (sigma, gap): the RBF's width and the largest ``|exp(bias) - exp(-d^2 / (2 sigma^2))|``
    over the distances, at rounding level.

    Examples
    --------
    >>> sigma, gap = kerple_boundary_gap(16, r1=0.5)
    >>> sigma, gap < 1e-15
    (1.0, True)
    """
    length = as_int("length", length, min_value=2, max_value=2048)
    r1 = as_float("r1", r1, gt=0.0)
    distance = np.arange(length, dtype=np.float64)
    factor = np.exp(kerple_from_distance(distance, r1, 2.0, "power")[0])  # exp(-r1 d^2)
    sigma = 1.0 / math.sqrt(2.0 * r1)
    rbf = np.exp(-(distance**2) / (2 * sigma**2))
    return sigma, float(np.abs(factor - rbf).max())


def deberta_scale(head_dim: int, *, n_tokens: int = 64, span: int = 32, seed: int = 0) -> DebertaScale:
    """How large DeBERTa's summed logits are for unit-variance inputs, under each scale.

    Parameters
    ----------
    head_dim : int, 1..4096
        d, the width of the content and position vectors.
    n_tokens : int, 2..1024
        Queries and keys (T each).
    span : int, 1..1024
        S: ``2 S`` relative position rows, as ``posenc.deberta_scores`` takes them.
    seed : int, >= 0
        Content queries and keys (T, d) and projected position rows (2S, d), all N(0, 1).

    Returns
    -------
    DebertaScale
        Standard deviations over the T x T logits: one dot product of unit-variance
        d-vectors has variance d, so ``c2c / sqrt(d)`` is about 1; the three terms are
        uncorrelated, so their sum has variance 3d: about sqrt(3) over sqrt(d), about 1
        over sqrt(3d), the scale DeBERTa uses.

    References
    ----------
    He et al. 2020, arXiv:2006.03654, eq. 4 (softmax of the sum over sqrt(3d)).
    """
    head_dim = as_int("head_dim", head_dim, min_value=1, max_value=4096)
    n_tokens = as_int("n_tokens", n_tokens, min_value=2, max_value=1024)
    span = as_int("span", span, min_value=1, max_value=1024)
    check_budget((2 * n_tokens + 4 * span) * head_dim + 3 * n_tokens**2, "deberta_scale")
    rng = _rng(seed)
    q_c, k_c = rng.standard_normal((2, n_tokens, head_dim))  # (T, d) each
    q_r, k_r = rng.standard_normal((2, 2 * span, head_dim))  # (2S, d) each
    terms = deberta_scores(q_c, k_c, q_r, k_r)
    total = terms.c2c + terms.c2p + terms.p2c  # (T, T)
    return DebertaScale(
        c2c_sqrt_d=float(terms.c2c.std() / math.sqrt(head_dim)),
        sum_sqrt_d=float(total.std() / math.sqrt(head_dim)),
        sum_sqrt_3d=float(total.std() / math.sqrt(3 * head_dim)),
    )


def naive_alibi_slopes(n_heads: int) -> np.ndarray:
    """The slopes ``2^(-8 h / H)``, h = 1..H, as they are often written for any H.

    Returns
    -------
    (H,) ndarray; equal to ``posenc.alibi_slopes(H)`` exactly when H is a power of two.

    Examples
    --------
    >>> naive_alibi_slopes(4).tolist()
    [0.25, 0.0625, 0.015625, 0.00390625]
    """
    n_heads = as_int("n_heads", n_heads, min_value=1, max_value=MAX_HEADS)
    # m_h = 2^{-8h/H}
    return 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)


def alibi_slope_gap(n_heads: int) -> float:
    """Largest relative difference between the naive slopes and Press et al.'s.

    Returns
    -------
    float, ``max_h |naive_h - reference_h| / reference_h``: 0 (to rounding) for a power
    of two, clearly non-zero otherwise (the reference takes the slopes of the nearest
    smaller power of two, then every other slope of the next one).
    """
    reference = alibi_slopes(n_heads)
    return float(np.max(np.abs(naive_alibi_slopes(n_heads) - reference) / reference))


def heads_where_naive_slopes_differ(max_heads: int = 64, *, tolerance: float = 1e-12) -> np.ndarray:
    """Head counts 1..max_heads for which the naive slopes are not ALiBi's.

    Returns
    -------
    int ndarray, the H with ``alibi_slope_gap(H) > tolerance``: every H that is not a
    power of two.
    """
    max_heads = as_int("max_heads", max_heads, min_value=1, max_value=MAX_HEADS)
    tolerance = as_float("tolerance", tolerance, gt=0.0)
    counts = np.arange(1, max_heads + 1)
    return counts[[alibi_slope_gap(int(h)) > tolerance for h in counts]]


def t5_bucket_widths(num_buckets: int = 32, max_distance: int = 128) -> T5Widths:
    """How many distances share each of T5's (bidirectional) buckets on one side.

    Parameters
    ----------
    num_buckets, max_distance : as for ``posenc.t5_bucket`` (T5 uses 32 and 128)

    Returns
    -------
    T5Widths
        For the defaults: 32 buckets (31 reachable), 16 per direction: 8 exact distances
        (0..7), then 7 buckets whose widths grow about geometrically (distances 8..90),
        and a last bucket for every distance from 91 on. max_distance (128) only sets
        the scale of the logarithm, which would give distance 128 a 17th bucket; the
        last one holds everything from 91.

    References
    ----------
    Raffel et al. 2019, arXiv:1910.10683, sec. 2.1.
    """
    lo, hi = t5_bucket_ranges(num_buckets, max_distance)  # key minus query, per bucket
    side = num_buckets // 2
    # buckets 0..side-1 hold the keys behind (offsets <= 0): distance -hi .. -lo
    widths = hi[:side] - lo[:side] + 1
    return T5Widths(
        n_buckets=num_buckets,
        used=int(np.count_nonzero(~np.isnan(lo))),
        exact=t5_max_exact(num_buckets),
        widths=widths,
        last_from=int(-hi[side - 1]),
    )


def entry_by_distance(
    reach: int, shaw_k: int, *, num_buckets: int = 32, max_distance: int = 128
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which table entry a key d places behind the query reads, in T5 and in Shaw et al.

    Parameters
    ----------
    reach : int, 1..100_000
        Distances d = 0..reach-1.
    shaw_k : int, >= 0
        Shaw's clipping distance K.
    num_buckets, max_distance : T5's (bidirectional)

    Returns
    -------
    distances : (R,) int
    t5 : (R,) int, ``t5_bucket(-d)``: one entry per distance up to the exact range, then
        ever wider buckets, the same entry from the last bucket's start on (91 for T5's
        defaults, ``t5_bucket_widths().last_from``; every distance from ``max_distance``
        on is in it too)
    shaw : (R,) int, ``min(d, K)``: one entry per distance up to K (counted from the
        query's own row K of the 2K + 1), then the edge entry
    """
    reach = as_int("reach", reach, min_value=1, max_value=100_000)
    shaw_k = as_int("shaw_k", shaw_k, min_value=0)
    distances = np.arange(reach)
    t5 = t5_bucket(-distances, num_buckets=num_buckets, max_distance=max_distance)
    return distances, t5, np.minimum(distances, shaw_k)


# parameters


def relative_parameter_counts(
    max_len: int, head_dim: int, n_heads: int, *, max_distance: int = 16, num_buckets: int = 32
) -> dict[str, int]:
    """Learned position parameters of each method, for a training length ``max_len``.

    Parameters
    ----------
    max_len : int, >= 2
        L, the training length.
    head_dim, n_heads : int, >= 1
        ``d_model = n_heads * head_dim``.
    max_distance : int, >= 0
        Shaw's clipping distance K.
    num_buckets : int, >= 1
        T5's buckets.

    Returns
    -------
    dict, ``PARAMETER_METHODS`` -> int
        From ``compare_lessons.parameter_count`` where it applies: learned
        ``L d`` (one table), Shaw ``2 (2K + 1) Dh`` per layer, T5 ``num_buckets H`` (all
        layers), KERPLE ``2 H`` per layer, ALiBi and RoPE 0. Added here:
        ``shaw_unclipped``, Shaw with K = L - 1 (every offset its own row,
        ``2 (2L - 1) Dh``), and ``transformer_xl``, one layer's ``W_{k,R}``
        (``d x H Dh``) plus the biases u and v (``2 H Dh``). u and v are one pair for
        the whole model only when ``untie_r`` is off, as in the PyTorch reference code;
        the reference TF scripts for WikiText-103 and One Billion Word, and XLNet's
        pretraining command, turn it on, and every layer has its own pair. One layer's
        count is the same either way. Only ``learned`` and ``shaw_unclipped`` grow with L.

    References
    ----------
    Shaw et al. 2018 (arXiv:1803.02155) sec. 3.3; Raffel et al. 2019 (arXiv:1910.10683)
    sec. 2.1; Dai et al. 2019 (arXiv:1901.02860) sec. 3.3 and kimiyoung/transformer-xl.
    """
    max_len = as_int("max_len", max_len, min_value=2)
    head_dim = as_int("head_dim", head_dim, min_value=1)
    n_heads = as_int("n_heads", n_heads, min_value=1)
    kw = dict(max_len=max_len, head_dim=head_dim, n_heads=n_heads, max_distance=max_distance, num_buckets=num_buckets)
    counts = {m: parameter_count(m, **kw) for m in ("learned", "shaw", "t5", "kerple", "alibi", "rope")}
    counts["shaw_unclipped"] = parameter_count("shaw", **{**kw, "max_distance": max_len - 1})
    width = n_heads * head_dim
    counts["transformer_xl"] = width * width + 2 * width
    return {m: counts[m] for m in PARAMETER_METHODS}


class RopeOperations(NamedTuple):
    """Arithmetic operations of one head over T positions (multiplies and adds)."""

    rotation: int  # turning the queries and the keys: 2 multiplies and 1 add per element, twice
    scores: int  # Q K^T: T^2 dot products of Dh terms, Dh multiplies and Dh - 1 adds each
    ratio: float  # rotation / scores


def rope_operation_counts(seq_len: int, head_dim: int) -> RopeOperations:
    """What RoPE adds to one head's work, against the scores it already computes.

    Parameters
    ----------
    seq_len : int, >= 1
        T positions (every query sees every key: the full T x T scores).
    head_dim : int, even, >= 2

    Returns
    -------
    RopeOperations

    Notes
    -----
    Each rotated element is ``x_i cos(m theta) - x_j sin(m theta)`` (or ``+``): 2 multiplies
    and 1 add, with the cosines and sines made once per position and reused by every head
    and layer (not counted). Queries and keys: ``2 * 3 T Dh``, linear in T. The scores
    ``Q K^T``: ``T^2 (2 Dh - 1)``. The ratio is ``(3 / T) 2 Dh / (2 Dh - 1)``, a little over ``3 / T``.
    """
    seq_len = as_int("seq_len", seq_len, min_value=1)
    head_dim = as_even_int("head_dim", head_dim)
    rotation = 2 * 3 * seq_len * head_dim
    scores = seq_len * seq_len * (2 * head_dim - 1)
    return RopeOperations(rotation, scores, rotation / scores)


def _feature(x: np.ndarray) -> np.ndarray:
    """elu(x) + 1: the positive feature map of Katharopoulos et al. (2020)."""
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def rope_linear_attention_gap(seq_len: int, head_dim: int, *, seed: int = 0) -> float:
    """RoPE inside causal linear attention: the running-sum form against the T x T form.

    Parameters
    ----------
    seq_len : int, 1..2048
    head_dim : int, even, >= 2
    seed : int
        Seeds the random queries, keys and values (T, Dh) standing in for trained ones.

    Returns
    -------
    float: the largest difference between the two forms' outputs (rounding when RoPE fits
    linear attention).

    Notes
    -----
    Su et al. 2021 (sec. 3.3, eq. 19) rotate the features, not the raw vectors, and leave
    the normaliser unrotated:

    .. math:: o_m = \\frac{\\sum_{n \\le m} (R_m \\phi(q_m))^\\top (R_n \\phi(k_n))\\, v_n}
              {\\sum_{n \\le m} \\phi(q_m)^\\top \\phi(k_n)}

    Since ``R_m^T R_n = R_{n-m}`` needs no pair (m, n) at once, the numerator is
    ``(R_m phi(q_m))^T S_m`` with the running sum ``S_m = sum_{n <= m} (R_n phi(k_n)) v_n^T``:
    O(T Dh^2) work and no T x T matrix, the form linear attention needs.
    """
    seq_len = as_int("seq_len", seq_len, min_value=1, max_value=2048)
    head_dim = as_even_int("head_dim", head_dim, max_value=256)
    seed = as_int("seed", seed, min_value=0)
    check_budget(seq_len * max(seq_len, head_dim * head_dim), "rope_linear_attention_gap (T x Dh x Dh running sums)")
    rng = np.random.default_rng(seed)
    q, k, v = (rng.normal(size=(seq_len, head_dim)) for _ in range(3))  # (T, Dh) each
    fq, fk = _feature(q), _feature(k)
    rq, rk = apply_rope(fq), apply_rope(fk)  # rotated features, positions 0..T-1
    causal = np.tril(np.ones((seq_len, seq_len)))
    quadratic = ((rq @ rk.T) * causal) @ v / ((fq @ fk.T) * causal).sum(axis=1, keepdims=True)
    running = np.cumsum(rk[:, :, None] * v[:, None, :], axis=0)  # (T, Dh, Dh): S_m
    norm = np.cumsum(fk, axis=0)  # (T, Dh): sum of phi(k_n) up to m
    linear = np.einsum("td,tde->te", rq, running) / (fq * norm).sum(axis=1, keepdims=True)
    return float(np.abs(linear - quadratic).max())
