"""RoPE's rotation frequencies and the registry of context-extension variants.

Each variant is one entry of ``ROPE_VARIANTS``: the function that makes its frequencies
and the ``rope_scaling`` keys it accepts, so a new variant is one init function plus one
entry. ``ROPE_INIT_FUNCTIONS`` is the same registry seen as rope_type -> init function,
the shape of transformers' ``modeling_rope_utils.ROPE_INIT_FUNCTIONS``.

References are listed in ``posenc.rope``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .._checks import as_choice, as_even_int, as_float, as_int

__all__ = [
    "ROPE_INIT_FUNCTIONS",
    "ROPE_VARIANTS",
    "RopeVariant",
    "rope_frequency_ratio",
    "rope_inv_freq",
]


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
    if high_ff < low_ff:
        raise ValueError(f"rope_scaling['high_freq_factor'] must be >= low_freq_factor ({low_ff}), got {high_ff}")
    original = _original_len(cfg, "llama3")
    inv_freq = _default_inv_freq(head_dim, base)
    wavelen = 2 * math.pi / inv_freq
    low_freq_wavelen, high_freq_wavelen = original / low_ff, original / high_ff
    # long waves (longer than L/low_ff) are interpolated, short ones (below L/high_ff) kept
    scaled = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    if high_ff == low_ff:
        # no middle band: Llama 4 Scout ships low = high = 1, which transformers accepts (it only
        # warns) and which leaves every pair either kept or divided by the factor
        return scaled, 1.0
    # in between, blend smoothly: s = (L/lambda - low_ff) / (high_ff - low_ff)
    smooth = (original / wavelen - low_ff) / (high_ff - low_ff)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = (wavelen >= high_freq_wavelen) & (wavelen <= low_freq_wavelen)
    return np.where(medium, smoothed, scaled), 1.0


def _factor_list(cfg: Mapping, key: str, n_pairs: int) -> np.ndarray:
    if key not in cfg:
        raise ValueError(f"rope_scaling: rope_type 'longrope' needs the key {key!r}, which is missing")
    values = np.asarray(cfg[key], dtype=np.float64) if _is_number_list(cfg[key]) else None
    if values is None or values.ndim != 1 or values.size != n_pairs:
        raise ValueError(
            f"rope_scaling[{key!r}] must be a list of {n_pairs} numbers (one per rotated pair), got {cfg[key]!r:.80}"
        )
    if not (np.isfinite(values).all() and (values > 0).all()):
        raise ValueError(f"rope_scaling[{key!r}] must hold finite numbers > 0")
    return values


def _is_number_list(value) -> bool:
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return False
    return arr.dtype.kind in "iuf"


def _init_longrope(head_dim, base, cfg, seq_len):
    # Phi-3's LongRoPE: a searched rescale factor per pair, one list for short inputs and one
    # for inputs longer than the training context (transformers' _compute_longrope_parameters)
    original = _original_len(cfg, "longrope")
    if cfg.get("factor") is not None:
        factor = as_float("rope_scaling['factor']", cfg["factor"], gt=0.0)
    elif "max_position_embeddings" in cfg:
        longest = as_int("rope_scaling['max_position_embeddings']", cfg["max_position_embeddings"], min_value=1)
        factor = longest / original
    else:
        raise ValueError(
            "rope_scaling: rope_type 'longrope' needs 'factor' or 'max_position_embeddings' (the extended "
            "context length), which are missing"
        )
    attention_factor = cfg.get("attention_factor")
    if attention_factor is None:
        # sqrt(1 + ln(s) / ln(L_0)), as the LongRoPE paper suggests
        attention_factor = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))
    attention_factor = as_float("rope_scaling['attention_factor']", attention_factor, gt=0.0)
    key = "long_factor" if seq_len and seq_len > original else "short_factor"
    ext_factors = _factor_list(cfg, key, head_dim // 2)
    _factor_list(cfg, "short_factor" if key == "long_factor" else "long_factor", head_dim // 2)  # both must be valid
    return 1.0 / (ext_factors * base ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)), attention_factor


def _init_proportional(head_dim, base, cfg, seq_len):
    # p-RoPE (Barbero et al. 2024), transformers' "proportional" rope_type: only the fastest
    # fraction of the pairs turns; the slowest ones get frequency 0 and carry no position
    fraction = _partial_fraction(cfg, allow_zero=True)
    factor = as_float("rope_scaling['factor']", cfg.get("factor", 1.0), gt=0.0)
    rotated = int(fraction * head_dim // 2)
    inv_freq = np.zeros(head_dim // 2)
    inv_freq[:rotated] = 1.0 / base ** (np.arange(0, 2 * rotated, 2, dtype=np.float64) / head_dim)
    return inv_freq / factor, 1.0


def _partial_fraction(cfg: Mapping, *, allow_zero: bool = False) -> float:
    # p-RoPE may turn nothing at all (p = 0 is NoPE); a partial rotary needs a rotated pair
    bounds = {"ge": 0.0} if allow_zero else {"gt": 0.0}
    return as_float("rope_scaling['partial_rotary_factor']", cfg.get("partial_rotary_factor", 1.0), le=1.0, **bounds)


# the registry


@dataclass(frozen=True)
class RopeVariant:
    """One rope_type: how it makes the frequencies, and the keys its ``rope_scaling`` may hold.

    ``init(head_dim, base, rope_scaling, seq_len) -> (inv_freq (Dh/2,), attention_factor)``;
    ``keys`` (any iterable of names, kept as a frozenset) leaves out ``"rope_type"`` and its
    older name ``"type"``, and ``"partial_rotary_factor"``, which every variant takes.
    """

    init: Callable[[int, float, Mapping, int | None], tuple[np.ndarray, float]]
    keys: frozenset[str] = frozenset()
    #: True when the variant reads ``partial_rotary_factor`` itself (p-RoPE keeps every pair
    #: and zeroes the slow ones); otherwise only the first int(Dh * f) dims rotate
    own_partial: bool = False

    def __post_init__(self):
        object.__setattr__(self, "keys", frozenset(self.keys))


#: rope_type -> RopeVariant, in the order error messages list the types
ROPE_VARIANTS: Mapping[str, RopeVariant] = MappingProxyType(
    {
        "default": RopeVariant(_init_default),
        "linear": RopeVariant(_init_linear, {"factor"}),
        "ntk": RopeVariant(_init_ntk, {"factor"}),
        "dynamic": RopeVariant(_init_dynamic, {"factor", "original_max_position_embeddings"}),
        "yarn": RopeVariant(
            _init_yarn,
            {
                "factor",
                "original_max_position_embeddings",
                "beta_fast",
                "beta_slow",
                "attention_factor",
                "mscale",
                "mscale_all_dim",
                "truncate",
            },
        ),
        "llama3": RopeVariant(
            _init_llama3, {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}
        ),
        "longrope": RopeVariant(
            _init_longrope,
            {
                "factor",
                "original_max_position_embeddings",
                "max_position_embeddings",
                "short_factor",
                "long_factor",
                "attention_factor",
            },
        ),
        "proportional": RopeVariant(_init_proportional, {"factor"}, own_partial=True),
    }
)

#: rope_type -> function(head_dim, base, rope_scaling, seq_len) -> (inv_freq, attention_factor);
#: read-only, derived from ``ROPE_VARIANTS``
ROPE_INIT_FUNCTIONS: Mapping[str, Callable] = MappingProxyType(
    {rope_type: variant.init for rope_type, variant in ROPE_VARIANTS.items()}
)


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
        ``"dynamic"``, ``"yarn"``, ``"llama3"``, ``"longrope"`` (Phi-3: ``short_factor``
        and ``long_factor``, one number per pair) and ``"proportional"`` (p-RoPE) (see
        ``ROPE_VARIANTS``). ``original_max_position_embeddings`` is the training context
        length; it plays the role of transformers' ``max_position_embeddings`` for
        ``"dynamic"``. Any type takes ``partial_rotary_factor`` f in (0, 1]: only the
        first int(Dh f) dims rotate (GPT-NeoX, Pythia, Phi-2), except under
        ``"proportional"``, where every pair stays and the slowest ones get frequency 0.
    seq_len : int or None
        Current length (largest position + 1); ``"dynamic"`` rescales once it exceeds
        the training length, and ``"longrope"`` then switches to its long factors.

    Returns
    -------
    inv_freq : (Dr/2,) ndarray
        Radians per position of each rotated pair (Dr = int(Dh f) rotated dims, Dh
        without ``partial_rotary_factor``); default ``base**(-2i/Dh)``.
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
    rope_type = as_choice("rope_scaling['rope_type']", rope_type, tuple(ROPE_VARIANTS))
    variant = ROPE_VARIANTS[rope_type]
    unknown = set(rope_scaling) - variant.keys - {"rope_type", "type", "partial_rotary_factor"}
    if unknown:
        allowed = ", ".join(sorted(variant.keys)) or "none"
        raise ValueError(
            f"rope_scaling: unknown key(s) {', '.join(map(repr, sorted(unknown)))} for rope_type "
            f"{rope_type!r}; allowed: {allowed}"
        )
    rotary_dim = head_dim
    if "partial_rotary_factor" in rope_scaling and not variant.own_partial:
        # GPT-NeoX, Pythia, Phi-2: only the first int(Dh * f) dims rotate, with frequencies
        # spread over those dims alone (transformers: dim = int(head_dim * partial_rotary_factor))
        rotary_dim = int(head_dim * _partial_fraction(rope_scaling))
        if rotary_dim < 2 or rotary_dim % 2:
            raise ValueError(
                f"rope_scaling['partial_rotary_factor'] must leave an even number >= 2 of rotated dims; "
                f"head_dim {head_dim} x {rope_scaling['partial_rotary_factor']!r} gives {rotary_dim}"
            )
    inv_freq, attention_factor = variant.init(rotary_dim, base, rope_scaling, seq_len)
    return np.asarray(inv_freq, dtype=np.float64), float(attention_factor)


def rope_frequency_ratio(head_dim: int, base: float = 10000.0, rope_scaling=None, seq_len=None) -> np.ndarray:
    """How a context-extension method changes each pair's frequency.

    Returns
    -------
    ratio : (Dr/2,) ndarray, scaled over original ``inv_freq`` (of the same rotated
    dims): 1 means the pair is left alone (extrapolated), ``1/factor`` means fully
    interpolated, in between means blended (YaRN's ramp, Llama 3's middle band, LongRoPE's
    searched factors) or NTK's graded change, 0 means the pair no longer turns (p-RoPE).
    """
    scaled, _ = rope_inv_freq(head_dim, base, rope_scaling, seq_len)
    # compare with unscaled RoPE on the same rotated dims: a partial rotary spreads its
    # frequencies over its Dr dims alone, p-RoPE keeps all Dh/2 pairs
    original, _ = rope_inv_freq(2 * scaled.size, base)
    return scaled / original
