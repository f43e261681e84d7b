"""RoPE's rotation of queries and keys, the two pair layouts, and xPos.

Conventions. Pair ``i`` (0 <= i < Dh/2) turns by ``t = p * inv_freq[i]``:
``(a, b) -> (a cos t - b sin t, a sin t + b cos t)``. ``layout="interleaved"`` pairs
dims (2i, 2i+1) as RoFormer and GPT-J do; ``layout="half"`` pairs dims (i, i + Dh/2)
as GPT-NeoX and LLaMA do in transformers. The two give the same scores once the dims
are permuted (``half_to_interleaved_permutation``).

References are listed in ``posenc.rope``.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import as_choice, as_even_int, as_float, as_float_array, as_positions, check_budget
from .frequencies import rope_inv_freq

__all__ = [
    "ROPE_LAYOUTS",
    "apply_rope",
    "apply_xpos",
    "half_to_interleaved_permutation",
    "rope_cos_sin",
    "xpos_scale",
]

ROPE_LAYOUTS = ("interleaved", "half")


def rope_cos_sin(positions, inv_freq):
    """Cosine and sine of every rotation angle.

    Parameters
    ----------
    positions : int or (T,) array_like
        Non-negative, finite positions (an int n means 0..n-1).
    inv_freq : (Dh/2,) array_like

    Returns
    -------
    cos, sin : (T, Dh/2) ndarray each, of the angle ``p * inv_freq[i]``.
    """
    inv_freq = as_float_array("inv_freq", inv_freq, ndim=1)  # (Dh/2,)
    pos = as_positions("positions", positions, width=2 * inv_freq.size)  # (T,)
    angles = pos[:, None] * inv_freq[None, :]  # (T, Dh/2)
    return np.cos(angles), np.sin(angles)


def _rotate_pairs(x, cos, sin, layout):
    """Turn each pair of x (..., T, Dh) by the angles behind cos, sin (T, Dh/2)."""
    half = x.shape[-1] // 2
    if layout == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]  # (..., T, Dh/2) each
    else:
        a, b = x[..., :half], x[..., half:]
    out = np.empty(x.shape)
    out_a, out_b = (out[..., 0::2], out[..., 1::2]) if layout == "interleaved" else (out[..., :half], out[..., half:])
    tmp = np.empty(a.shape)
    # (a, b) -> (a cos t - b sin t, a sin t + b cos t), with no temporaries beyond `tmp`
    np.multiply(a, cos, out=out_a)
    np.multiply(b, sin, out=tmp)
    np.subtract(out_a, tmp, out=out_a)
    np.multiply(a, sin, out=out_b)
    np.multiply(b, cos, out=tmp)
    np.add(out_b, tmp, out=out_b)
    return out


def _as_head_array(x, name="x"):
    x = as_float_array(name, x, min_ndim=2)  # (..., T, Dh)
    as_even_int(f"{name}.shape[-1] (head_dim)", x.shape[-1])
    check_budget(x.size, name)
    return x


def _rope_positions(positions, n):
    if positions is None:
        return np.arange(n, dtype=np.float64)
    pos = as_positions("positions", positions)
    if pos.size != n:
        raise ValueError(f"positions must have one entry per row of x (x.shape[-2] = {n}), got {pos.size}")
    return pos


def apply_rope(x, positions=None, *, base: float = 10000.0, layout: str = "interleaved", rope_scaling=None):
    """Rotate queries or keys by their positions.

    Parameters
    ----------
    x : (..., T, Dh) array_like
        Queries or keys; Dh even.
    positions : None, int or (T,) array_like
        Position of each row; default ``0..T-1``. With ``"dynamic"`` and
        ``"longrope"`` scaling the length used is the largest position + 1.
    base : float, default 10000
    layout : {"interleaved", "half"}
        Which dims form a pair: (2i, 2i+1) or (i, i + Dh/2).
    rope_scaling : dict or None
        As for ``rope_inv_freq``. With ``partial_rotary_factor`` f only the first
        Dr = int(Dh f) dims rotate (pairs formed within them by ``layout``); the others
        are returned unchanged.

    Returns
    -------
    (..., T, Dh) ndarray
        Norms are kept (times ``attention_factor`` under YaRN and LongRoPE), and
        ``apply_rope(q, m) . apply_rope(k, n)`` depends on ``m - n`` only.

    Notes
    -----
    .. math:: (a, b) \\mapsto (a\\cos t - b\\sin t,\\ a\\sin t + b\\cos t),\\quad t = p\\,\\theta_i

    References
    ----------
    Su et al. 2021, arXiv:2104.09864, eq. 34.

    Examples
    --------
    >>> apply_rope([[1.0, 0.0]], positions=[np.pi / 2], base=10.0).round(12)
    array([[0., 1.]])
    """
    layout = as_choice("layout", layout, ROPE_LAYOUTS)
    x = _as_head_array(x)
    pos = _rope_positions(positions, x.shape[-2])  # (T,)
    seq_len = int(math.floor(pos.max())) + 1
    inv_freq, attention_factor = rope_inv_freq(x.shape[-1], base, rope_scaling, seq_len=seq_len)
    angles = pos[:, None] * inv_freq[None, :]  # (T, Dr/2)
    cos, sin = np.cos(angles), np.sin(angles)
    if attention_factor != 1.0:
        cos *= attention_factor
        sin *= attention_factor
    rotary_dim = 2 * inv_freq.size
    if rotary_dim == x.shape[-1]:
        return _rotate_pairs(x, cos, sin, layout)
    # partial rotary: the first Dr dims turn (paired within themselves), the rest pass through,
    # as GPT-NeoX's and GPT-J's rotary_dim do
    out = x.copy()
    out[..., :rotary_dim] = _rotate_pairs(x[..., :rotary_dim], cos, sin, layout)
    return out


def half_to_interleaved_permutation(head_dim: int) -> np.ndarray:
    """Index array that reorders "half" dims into "interleaved" order.

    ``apply_rope(x[..., perm], layout="interleaved")`` equals
    ``apply_rope(x, layout="half")[..., perm]`` for ``perm`` from this function,
    so both layouts give the same scores once the weights are permuted.

    Returns
    -------
    perm : (Dh,) int ndarray, ``[0, Dh/2, 1, Dh/2 + 1, ...]``.
    """
    head_dim = as_even_int("head_dim", head_dim)
    half = head_dim // 2
    return np.stack([np.arange(half), np.arange(half) + half], axis=1).reshape(-1)


def xpos_scale(positions, head_dim: int, *, gamma: float = 0.4, scale_base: float = 512.0) -> np.ndarray:
    """xPos's per-pair scale for each position.

    Parameters
    ----------
    positions : int or (T,) array_like
    head_dim : int, even
    gamma : float, > 0, default 0.4
    scale_base : float, > 0, default 512

    Returns
    -------
    scale : (T, Dh/2) ndarray
        ``zeta_i ** (p / scale_base)`` with ``zeta_i = (2i/Dh + gamma) / (1 + gamma)``.
        Queries are multiplied by it, keys divided, so a score picks up
        ``zeta_i ** ((m - n) / scale_base)``: it decays with distance.
    """
    head_dim = as_even_int("head_dim", head_dim)
    gamma = as_float("gamma", gamma, gt=0.0)
    scale_base = as_float("scale_base", scale_base, gt=0.0)
    pos = as_positions("positions", positions, width=head_dim // 2)  # (T,)
    # zeta_i = (2i/Dh + gamma) / (1 + gamma)
    zeta = (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim + gamma) / (1 + gamma)
    # zeta_i^{p / scale_base}
    return zeta[None, :] ** (pos[:, None] / scale_base)


def apply_xpos(
    x,
    positions=None,
    *,
    role: str,
    base: float = 10000.0,
    gamma: float = 0.4,
    scale_base: float = 512.0,
    layout: str = "interleaved",
):
    """RoPE plus xPos's exponential decay.

    Parameters
    ----------
    x : (..., T, Dh) array_like
    positions : None, int or (T,) array_like
    role : {"query", "key"}
        Queries are scaled by ``xpos_scale``, keys by its inverse.
    base, layout : as for ``apply_rope``
    gamma, scale_base : as for ``xpos_scale``

    Returns
    -------
    (..., T, Dh) ndarray

    Notes
    -----
    torchscale centres the positions of the scale (``min_pos = -(T + offset) // 2``);
    that multiplies every query by the same factor and every key by its inverse, so
    the scores are the same as here.

    References
    ----------
    Sun et al. 2022, arXiv:2212.10554, eq. 10.
    """
    role = as_choice("role", role, ("query", "key"))
    layout = as_choice("layout", layout, ROPE_LAYOUTS)
    x = _as_head_array(x)
    pos = _rope_positions(positions, x.shape[-2])  # (T,)
    scale = xpos_scale(pos, x.shape[-1], gamma=gamma, scale_base=scale_base)  # (T, Dh/2)
    if role == "key":
        scale = 1.0 / scale
    inv_freq, _ = rope_inv_freq(x.shape[-1], base)
    angles = pos[:, None] * inv_freq[None, :]  # (T, Dh/2)
    return _rotate_pairs(x, np.cos(angles) * scale, np.sin(angles) * scale, layout)
