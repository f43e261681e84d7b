"""Absolute positional encodings: a vector per position, added to the token embedding.

- Sinusoidal: Vaswani et al. 2017, "Attention Is All You Need", arXiv:1706.03762, sec. 3.5.
  tensor2tensor (``get_timing_signal_1d``) and fairseq (``SinusoidalPositionalEmbedding``)
  concatenate sin then cos instead of interleaving, and space their frequencies slightly
  differently, ``base**(-i/(D/2 - 1))`` (``tensor2tensor_frequencies``).
- Learned: a trainable table as in BERT (arXiv:1810.04805) and GPT-2.

Conventions: ``PE[p, 2i] = sin(p * w_i)``, ``PE[p, 2i+1] = cos(p * w_i)`` with
``w_i = base**(-2i/D)`` ("interleaved"); ``layout="concat"`` puts every sine first,
``PE[p, i] = sin(p * w_i)``, ``PE[p, D/2 + i] = cos(p * w_i)``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ._checks import (
    as_choice,
    as_even_int,
    as_float,
    as_float_array,
    as_int,
    as_positions,
    check_budget,
)

__all__ = [
    "PositionOutOfRange",
    "SINUSOIDAL_LAYOUTS",
    "learned_table",
    "lookup_learned",
    "sinusoid_frequencies",
    "sinusoidal",
    "tensor2tensor_frequencies",
]

SINUSOIDAL_LAYOUTS = ("interleaved", "concat")


class PositionOutOfRange(ValueError):
    """A position past the end of a learned table: there is no row to look up."""


# helpers


def sinusoid_frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequency of each sin/cos pair.

    Parameters
    ----------
    d_model : int, even, >= 2
    base : float, > 1

    Returns
    -------
    w : (D/2,) ndarray
        ``w_i = 1 / base**(2i/D)`` radians per position (written as transformers
        writes it, so the numbers agree to the last bit).
    """
    d_model = as_even_int("d_model", d_model)
    base = as_float("base", base, gt=1.0)
    # w_i = 1 / base^{2i/D}
    return 1.0 / base ** (np.arange(0, d_model, 2, dtype=np.float64) / d_model)


def tensor2tensor_frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """The frequencies tensor2tensor and fairseq use for their (concatenated) sinusoids.

    Parameters
    ----------
    d_model : int, even, >= 2
    base : float, > 1
        Their ``max_timescale`` (``min_timescale`` is 1).

    Returns
    -------
    w : (D/2,) ndarray
        ``w_i = base**(-i / max(D/2 - 1, 1))``: the exponent steps by
        ``ln(base) / (D/2 - 1)`` (their ``log_timescale_increment``), so the slowest pair
        has exactly ``1 / base``, where the paper's ``sinusoid_frequencies`` has
        ``base**(-(D - 2)/D)``. Not used by ``sinusoidal``; it is here to measure the gap.

    References
    ----------
    tensorflow/tensor2tensor ``common_attention.get_timing_signal_1d``;
    facebookresearch/fairseq ``SinusoidalPositionalEmbedding.get_embedding``.

    Examples
    --------
    >>> tensor2tensor_frequencies(6, 100.0)
    array([1.  , 0.1 , 0.01])
    """
    d_model = as_even_int("d_model", d_model)
    base = as_float("base", base, gt=1.0)
    half = d_model // 2
    # w_i = exp(-i * ln(base) / max(D/2 - 1, 1)), as their log_timescale_increment writes it
    return np.exp(-np.arange(half, dtype=np.float64) * (math.log(base) / max(half - 1, 1)))


#: from this many positions on, 0..n-1 is built by angle addition (see _sinusoid_blocked)
_BLOCKED_FROM = 256


def _sinusoid_blocked(n: int, w: np.ndarray, layout: str) -> np.ndarray:
    """PE for positions 0..n-1 by angle addition, (n, D).

    Position p = kB + b (block k, offset b < B): sin(p w) = sin(kBw) cos(bw) + cos(kBw) sin(bw),
    cos(p w) = cos(kBw) cos(bw) - sin(kBw) sin(bw). Only about 2 sqrt(n) D sines and cosines
    are evaluated instead of n D; the rest is multiply-adds. The error is that of
    sin(p * w) itself (a few 1e-13 at p ~ 8000, from rounding p * w), not larger.
    """
    half = w.size
    b = 1 << math.ceil(math.log2(math.sqrt(n)))  # block length, a power of two
    nb = -(-n // b)  # number of blocks
    off = np.arange(b, dtype=np.float64)[:, None] * w[None, :]  # (B, D/2)
    start = (np.arange(nb, dtype=np.float64) * b)[:, None] * w[None, :]  # (nb, D/2)
    sin_b, cos_b = np.sin(off), np.cos(off)
    sin_k, cos_k = np.sin(start)[:, None, :], np.cos(start)[:, None, :]  # (nb, 1, D/2)
    pe = np.empty((nb * b, 2 * half))
    if layout == "interleaved":
        grid = pe.reshape(nb, b, half, 2)
        sin_part, cos_part = grid[..., 0], grid[..., 1]  # (nb, B, D/2) views
    else:
        grid = pe.reshape(nb, b, 2, half)
        sin_part, cos_part = grid[:, :, 0, :], grid[:, :, 1, :]
    tmp = np.empty(sin_part.shape)
    np.multiply(sin_k, cos_b, out=sin_part)
    np.multiply(cos_k, sin_b, out=tmp)
    np.add(sin_part, tmp, out=sin_part)
    np.multiply(cos_k, cos_b, out=cos_part)
    np.multiply(sin_k, sin_b, out=tmp)
    np.subtract(cos_part, tmp, out=cos_part)
    return pe[:n]


# public API


def sinusoidal(positions, d_model: int, base: float = 10000.0, *, layout: str = "interleaved") -> np.ndarray:
    """Sinusoidal positional encoding table.

    Parameters
    ----------
    positions : int or (T,) array_like
        An int ``n`` means positions ``0..n-1``; an array gives any non-negative,
        finite positions (fractions allowed).
    d_model : int
        Model width D, even and >= 2.
    base : float, default 10000
        Wavelength scale, > 1.
    layout : {"interleaved", "concat"}
        ``"interleaved"`` as in the paper (sin, cos, sin, cos, ...); ``"concat"``
        puts all sines, then all cosines: the column order of tensor2tensor and fairseq,
        with the paper's frequencies (theirs differ: ``tensor2tensor_frequencies``).

    Returns
    -------
    PE : (T, D) ndarray

    Raises
    ------
    ValueError
        Bad ``positions``, odd or small ``d_model``, ``base <= 1``, unknown
        ``layout``, or more than ``MAX_ELEMENTS`` outputs.

    Notes
    -----
    .. math:: PE_{p,2i} = \\sin(p / base^{2i/D}), \\quad PE_{p,2i+1} = \\cos(p / base^{2i/D})

    Every value lies in [-1, 1]; row 0 is ``[0, 1, 0, 1, ...]``.

    References
    ----------
    Vaswani et al. 2017, arXiv:1706.03762.

    Examples
    --------
    >>> sinusoidal(2, 4)[1]
    array([0.84147098, 0.54030231, 0.00999983, 0.99995   ])
    """
    layout = as_choice("layout", layout, SINUSOIDAL_LAYOUTS)
    w = sinusoid_frequencies(d_model, base)  # (D/2,)
    pos = as_positions("positions", positions, width=w.size * 2)  # (T,)
    if isinstance(positions, numbers.Integral) and pos.size >= _BLOCKED_FROM:
        return _sinusoid_blocked(pos.size, w, layout)
    pe = np.empty((pos.size, d_model))  # (T, D)
    half = d_model // 2
    sin_part, cos_part = (pe[:, 0::2], pe[:, 1::2]) if layout == "interleaved" else (pe[:, :half], pe[:, half:])
    # the angle grid p * w_i is built in the sine slots and turned into sines last,
    # so no (T, D/2) temporary is allocated
    np.multiply(pos[:, None], w[None, :], out=sin_part)
    np.cos(sin_part, out=cos_part)
    np.sin(sin_part, out=sin_part)
    return pe


def learned_table(max_len: int, d_model: int, *, std: float = 0.02, seed: int = 0) -> np.ndarray:
    """A freshly initialised learned position table, as before training.

    Parameters
    ----------
    max_len : int, >= 1
        Number of rows: the longest sequence the model can ever see.
    d_model : int, >= 1
    std : float, >= 0, default 0.02
        Standard deviation of the N(0, std^2) initialisation (GPT-2 / BERT use 0.02).
    seed : int, >= 0

    Returns
    -------
    table : (max_len, D) ndarray
        ``max_len * D`` parameters, reproducible from ``seed``.

    Examples
    --------
    >>> learned_table(4, 8, seed=1).shape
    (4, 8)
    """
    max_len = as_int("max_len", max_len, min_value=1)
    d_model = as_int("d_model", d_model, min_value=1)
    std = as_float("std", std, ge=0.0)
    seed = as_int("seed", seed, min_value=0)
    check_budget(max_len * d_model, "learned_table(max_len, d_model)")
    return np.random.default_rng(seed).normal(0.0, std, size=(max_len, d_model))


def lookup_learned(table, positions) -> np.ndarray:
    """Rows of a learned table for the given positions.

    Parameters
    ----------
    table : (max_len, D) array_like
    positions : int or (T,) array_like of whole numbers

    Returns
    -------
    PE : (T, D) ndarray

    Raises
    ------
    PositionOutOfRange
        A position ``>= max_len``: the table has no row for it, and unlike a formula
        it cannot make one up. This is why learned positions do not extrapolate.
    ValueError
        Negative or fractional positions (NumPy would silently wrap a negative index
        around to the end of the table), or a table that is not 2-D.
    """
    table = as_float_array("table", table, ndim=2)
    max_len, d_model = table.shape
    pos = as_positions("positions", positions, width=d_model)  # (T,) float64
    fractional = pos != np.floor(pos)
    if fractional.any():
        raise ValueError(f"positions must be whole numbers, got {pos[fractional][0]!r}")
    too_far = pos >= max_len
    if too_far.any():
        bad = pos[too_far][0]
        raise PositionOutOfRange(
            f"positions: position {bad:.0f} is past the end of the learned table (max_len={max_len}, "
            f"so valid positions are 0..{max_len - 1}); there is no learned row to look up"
        )
    pos = pos.astype(np.int64)
    return table[pos]
