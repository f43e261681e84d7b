"""Rotary position embedding (RoPE), its context-extension variants, and xPos.

- RoPE: Su et al. 2021, "RoFormer", arXiv:2104.09864. Reference code: GPT-J
  (``rotate_every_two``) and Hugging Face transformers (``rotate_half``,
  ``modeling_rope_utils.ROPE_INIT_FUNCTIONS``).
- Position interpolation ("linear"): Chen et al. 2023, arXiv:2306.15595.
- NTK-aware and dynamic NTK scaling: bloc97 / emozilla (2023), as in transformers.
- YaRN: Peng et al. 2023, arXiv:2309.00071.
- Llama 3.1 frequency bands: transformers' ``_compute_llama3_parameters``.
- xPos: Sun et al. 2022, "A Length-Extrapolatable Transformer", arXiv:2212.10554;
  reference code microsoft/torchscale ``xpos_relative_position.py``.

Conventions. Pair ``i`` (0 <= i < Dh/2) turns by ``t = p * inv_freq[i]``:
``(a, b) -> (a cos t - b sin t, a sin t + b cos t)``. ``layout="interleaved"`` pairs
dims (2i, 2i+1) as RoFormer and GPT-J do; ``layout="half"`` pairs dims (i, i + Dh/2)
as GPT-NeoX and LLaMA do in transformers. The two give the same scores once the dims
are permuted (``half_to_interleaved_permutation``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

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
    "ROPE_INIT_FUNCTIONS",
    "ROPE_LAYOUTS",
    "apply_rope",
    "apply_xpos",
    "half_to_interleaved_permutation",
    "rope_cos_sin",
    "rope_inv_freq",
    "xpos_scale",
]

ROPE_LAYOUTS = ("interleaved", "half")


# helpers


def _default_inv_freq(head_dim: int, base: float) -> np.ndarray:
    # theta_i = base^{-2i/Dh}, written as transformers writes it
    return 1.0 / base ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)


def _key(cfg: Mapping, key: str, rope_type: str, *, ge: float | None = None, gt: float | None = None):
    if key not in cfg:
        raise ValueError(f"rope_scaling: rope_type {rope_type!r} needs the key {key!r}, which is missing")
    return as_float(f"rope_scaling[{key!r}]", cfg[key], ge=ge, gt=gt)


def _factor(cfg: Mapping, rope_type: str) -> float:
    return _key(cfg, "factor", rope_type, ge=1.0)


def _original_len(cfg: Mapping, rope_type: str) -> int:
    if "original_max_position_embeddings" not in cfg:
        raise ValueError(
            f"rope_scaling: rope_type {rope_type!r} needs the key 'original_max_position_embeddings' "
            "(the training context length), which is missing"
        )
    return as_int(
        "rope_scaling['original_max_position_embeddings']", cfg["original_max_position_embeddings"], min_value=1
    )


def _init_default(head_dim, base, cfg, seq_len):
    return _default_inv_freq(head_dim, base), 1.0


def _init_linear(head_dim, base, cfg, seq_len):
    # position interpolation: p -> p / factor, i.e. every frequency divided by factor
    return _default_inv_freq(head_dim, base) / _factor(cfg, "linear"), 1.0


def _init_ntk(head_dim, base, cfg, seq_len):
    factor = _factor(cfg, "ntk")
    # base' = base * factor^{Dh/(Dh-2)}: the slowest pair is interpolated by `factor`,
    # the fastest is left alone
    exponent = head_dim / (head_dim - 2) if head_dim > 2 else 1.0
    return _default_inv_freq(head_dim, base * factor**exponent), 1.0


def _init_dynamic(head_dim, base, cfg, seq_len):
    factor = _factor(cfg, "dynamic")
    original = _original_len(cfg, "dynamic")
    # no scaling until the sequence outgrows the training length
    length = original if seq_len is None else max(seq_len, original)
    # base' = base * (factor * L / L_train - (factor - 1))^{Dh/(Dh-2)}
    exponent = head_dim / (head_dim - 2) if head_dim > 2 else 1.0
    new_base = base * (factor * length / original - (factor - 1)) ** exponent
    return _default_inv_freq(head_dim, new_base), 1.0


def _yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def _init_yarn(head_dim, base, cfg, seq_len):
    factor = _factor(cfg, "yarn")
    original = _original_len(cfg, "yarn")
    beta_fast = as_float("rope_scaling['beta_fast']", cfg.get("beta_fast", 32.0), gt=0.0)
    beta_slow = as_float("rope_scaling['beta_slow']", cfg.get("beta_slow", 1.0), gt=0.0)
    truncate = cfg.get("truncate", True)
    if not isinstance(truncate, (bool, np.bool_)):
        raise ValueError(f"rope_scaling['truncate'] must be True or False, got {truncate!r}")
    attention_factor = cfg.get("attention_factor")
    if attention_factor is None:
        mscale, mscale_all_dim = cfg.get("mscale"), cfg.get("mscale_all_dim")
        if mscale and mscale_all_dim:
            m = as_float("rope_scaling['mscale']", mscale, gt=0.0)
            m_all = as_float("rope_scaling['mscale_all_dim']", mscale_all_dim, gt=0.0)
            attention_factor = _yarn_mscale(factor, m) / _yarn_mscale(factor, m_all)
        else:
            # sqrt(1/t) = 0.1 ln(s) + 1 (YaRN paper, eq. 22)
            attention_factor = _yarn_mscale(factor)
    attention_factor = as_float("rope_scaling['attention_factor']", attention_factor, gt=0.0)

    def correction_dim(rotations: float) -> float:
        # the dim index whose wavelength fits `rotations` times in the training length
        return head_dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, head_dim - 1)
    if low == high:
        high += 0.001  # transformers' guard against a zero-width ramp
    ramp = np.clip((np.arange(head_dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    extrapolation_weight = 1.0 - ramp  # 1: keep the frequency (fast pairs), 0: interpolate
    inv_freq = _default_inv_freq(head_dim, base)
    inv_freq = (inv_freq / factor) * (1 - extrapolation_weight) + inv_freq * extrapolation_weight
    return inv_freq, attention_factor


def _init_llama3(head_dim, base, cfg, seq_len):
    factor = _factor(cfg, "llama3")
    low_ff = _key(cfg, "low_freq_factor", "llama3", gt=0.0)
    high_ff = _key(cfg, "high_freq_factor", "llama3", gt=0.0)
    if not high_ff > low_ff:
        raise ValueError(f"rope_scaling['high_freq_factor'] must be > low_freq_factor ({low_ff}), got {high_ff}")
    original = _original_len(cfg, "llama3")
    inv_freq = _default_inv_freq(head_dim, base)
    wavelen = 2 * math.pi / inv_freq
    low_freq_wavelen, high_freq_wavelen = original / low_ff, original / high_ff
    # long waves (longer than L/low_ff) are interpolated, short ones (below L/high_ff) kept
    scaled = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    # in between, blend smoothly: s = (L/lambda - low_ff) / (high_ff - low_ff)
    smooth = (original / wavelen - low_ff) / (high_ff - low_ff)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = (wavelen >= high_freq_wavelen) & (wavelen <= low_freq_wavelen)
    return np.where(medium, smoothed, scaled), 1.0


#: rope_type -> function(head_dim, base, rope_scaling, seq_len) -> (inv_freq, attention_factor)
ROPE_INIT_FUNCTIONS = {
    "default": _init_default,
    "linear": _init_linear,
    "ntk": _init_ntk,
    "dynamic": _init_dynamic,
    "yarn": _init_yarn,
    "llama3": _init_llama3,
}

_ALLOWED_KEYS = {
    "default": set(),
    "linear": {"factor"},
    "ntk": {"factor"},
    "dynamic": {"factor", "original_max_position_embeddings"},
    "yarn": {
        "factor",
        "original_max_position_embeddings",
        "beta_fast",
        "beta_slow",
        "attention_factor",
        "mscale",
        "mscale_all_dim",
        "truncate",
    },
    "llama3": {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"},
}


# public API


def rope_inv_freq(head_dim: int, base: float = 10000.0, rope_scaling=None, seq_len=None):
    """RoPE's rotation frequencies, with optional context-extension scaling.

    Parameters
    ----------
    head_dim : int
        Dh, even and >= 2.
    base : float, default 10000
        ``rope_theta``, > 1.
    rope_scaling : dict or None
        Hugging Face transformers format, ``{"rope_type": ..., "factor": ..., ...}``.
        Types: ``"default"``, ``"linear"``, ``"ntk"`` (static NTK-aware),
        ``"dynamic"``, ``"yarn"``, ``"llama3"`` (see ``ROPE_INIT_FUNCTIONS``).
        ``original_max_position_embeddings`` is the training context length; it plays
        the role of transformers' ``max_position_embeddings`` for ``"dynamic"``.
    seq_len : int or None
        Current length (largest position + 1); only ``"dynamic"`` uses it, and a
        length at most the training length means no scaling.

    Returns
    -------
    inv_freq : (Dh/2,) ndarray
        Radians per position of each pair; default ``base**(-2i/Dh)``.
    attention_factor : float
        Multiplies cos and sin (YaRN's temperature); 1.0 for the other types.

    Raises
    ------
    ValueError
        Odd ``head_dim``, ``base <= 1``, an unknown ``rope_type``, a missing or
        unknown key, or an out-of-range value.

    Notes
    -----
    Linear: :math:`\\theta_i' = \\theta_i / s`. NTK: base' = base s^{Dh/(Dh-2)}.
    Dynamic: base' = base (s L / L_0 - (s - 1))^{Dh/(Dh-2)} for L > L_0.
    YaRN: blend :math:`\\theta_i` and :math:`\\theta_i/s` with a linear ramp over
    the dims whose number of turns in L_0 lies between beta_slow and beta_fast;
    attention factor 0.1 ln s + 1. Llama 3: wavelengths above L_0/low_freq_factor
    are divided by s, below L_0/high_freq_factor kept, smooth blend between.

    Examples
    --------
    >>> inv, att = rope_inv_freq(8, rope_scaling={"rope_type": "linear", "factor": 2.0})
    >>> inv
    array([0.5   , 0.05  , 0.005 , 0.0005])
    """
    head_dim = as_even_int("head_dim", head_dim)
    base = as_float("base", base, gt=1.0)
    if seq_len is not None:
        seq_len = as_int("seq_len", seq_len, min_value=1)
    if rope_scaling is None:
        return _default_inv_freq(head_dim, base), 1.0
    if not isinstance(rope_scaling, Mapping):
        raise ValueError(f"rope_scaling must be None or a dict, got {type(rope_scaling).__name__}")
    rope_type = rope_scaling.get("rope_type", rope_scaling.get("type"))
    if rope_type is None:
        raise ValueError("rope_scaling needs the key 'rope_type', which is missing")
    rope_type = as_choice("rope_scaling['rope_type']", rope_type, tuple(ROPE_INIT_FUNCTIONS))
    unknown = set(rope_scaling) - _ALLOWED_KEYS[rope_type] - {"rope_type", "type"}
    if unknown:
        allowed = ", ".join(sorted(_ALLOWED_KEYS[rope_type])) or "none"
        raise ValueError(
            f"rope_scaling: unknown key(s) {', '.join(map(repr, sorted(unknown)))} for rope_type "
            f"{rope_type!r}; allowed: {allowed}"
        )
    inv_freq, attention_factor = ROPE_INIT_FUNCTIONS[rope_type](head_dim, base, rope_scaling, seq_len)
    return np.asarray(inv_freq, dtype=np.float64), float(attention_factor)


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
        Position of each row; default ``0..T-1``. With ``"dynamic"`` scaling the
        length used is the largest position + 1.
    base : float, default 10000
    layout : {"interleaved", "half"}
        Which dims form a pair: (2i, 2i+1) or (i, i + Dh/2).
    rope_scaling : dict or None
        As for ``rope_inv_freq``.

    Returns
    -------
    (..., T, Dh) ndarray
        Norms are kept (times ``attention_factor`` under YaRN), and
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
    angles = pos[:, None] * inv_freq[None, :]  # (T, Dh/2)
    cos, sin = np.cos(angles), np.sin(angles)
    if attention_factor != 1.0:
        cos *= attention_factor
        sin *= attention_factor
    return _rotate_pairs(x, cos, sin, layout)


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
