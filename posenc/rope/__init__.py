"""Rotary position embedding (RoPE): its frequencies and context-extension variants, the
rotation itself, xPos, and the measurements of RoPE a notebook user calls.

===============  ============================================================================
``frequencies``  ``rope_inv_freq`` and the variant registry ``ROPE_VARIANTS`` (one
                 ``RopeVariant(init, keys)`` per rope_type: default, linear, ntk, dynamic,
                 yarn, llama3, longrope, proportional (p-RoPE); ``partial_rotary_factor``
                 for any of them), its read-only view ``ROPE_INIT_FUNCTIONS``, and
                 ``rope_frequency_ratio``
``rotation``     ``ROPE_LAYOUTS``, ``rope_cos_sin``, ``apply_rope``,
                 ``half_to_interleaved_permutation``, ``xpos_scale``, ``apply_xpos``
``analysis``     ``rope_scores``, ``rope_shift_error``, ``rope_decay_bound``,
                 ``rope_decay_summary`` (and its ``DecaySummary``), ``rope_score_stats``
``multiaxis``    2-D axial RoPE for image patches (``axial_rope_2d``), Qwen2-VL's M-RoPE
                 (``apply_mrope``, ``mrope_cos_sin``, ``qwen2_vl_positions``) and Llama 4's
                 interleaved NoPE layers (``irope_layer_types``)
===============  ============================================================================

Every public name of the four modules is also a name of this package
(``posenc.rope.apply_rope``, ``posenc.rope.rope_scores``, ...). Shape letters as in
``posenc``: T positions, Tq / Tk query / key positions, Dh head width, P chosen pairs,
R distances, B random samples.

References

- RoPE: Su et al. 2021, "RoFormer", arXiv:2104.09864. Reference code: GPT-J
  (``rotate_every_two``) and Hugging Face transformers (``rotate_half``,
  ``modeling_rope_utils.ROPE_INIT_FUNCTIONS``).
- Position interpolation ("linear"): Chen et al. 2023, arXiv:2306.15595.
- NTK-aware and dynamic NTK scaling: bloc97 / emozilla (2023), as in transformers.
- YaRN: Peng et al. 2023, arXiv:2309.00071.
- Llama 3.1 frequency bands: transformers' ``_compute_llama3_parameters``.
- LongRoPE: Ding et al. 2024, arXiv:2402.13753 (Phi-3's ``short_factor`` / ``long_factor``);
  transformers' ``_compute_longrope_parameters``.
- Partial rotary: GPT-NeoX (Black et al. 2022) rotates the first quarter of each head.
- p-RoPE: Barbero et al. 2024, "Round and round we go! What makes Rotary Positional
  Encodings useful?", arXiv:2410.06205; transformers' "proportional" rope_type.
- 2-D axial RoPE: Heo et al. 2024, arXiv:2403.13298; M-RoPE: Wang et al. 2024 (Qwen2-VL),
  arXiv:2409.12191; iRoPE: Meta's Llama 4 (2025), transformers ``Llama4TextConfig``.
- xPos: Sun et al. 2022, "A Length-Extrapolatable Transformer", arXiv:2212.10554;
  reference code microsoft/torchscale ``xpos_relative_position.py``.
"""

from . import analysis, frequencies, multiaxis, rotation
from .analysis import (
    DecaySummary,
    rope_decay_bound,
    rope_decay_summary,
    rope_score_stats,
    rope_scores,
    rope_shift_error,
)
from .frequencies import ROPE_INIT_FUNCTIONS, ROPE_VARIANTS, RopeVariant, rope_frequency_ratio, rope_inv_freq
from .multiaxis import (
    LAYER_TYPES,
    apply_mrope,
    axial_rope_2d,
    axial_rope_frequencies,
    irope_layer_types,
    mrope_cos_sin,
    qwen2_vl_positions,
)
from .rotation import (
    ROPE_LAYOUTS,
    apply_rope,
    apply_xpos,
    half_to_interleaved_permutation,
    rope_cos_sin,
    xpos_scale,
)

__all__ = [
    # the four modules
    "analysis",
    "frequencies",
    "multiaxis",
    "rotation",
    # their public names
    "DecaySummary",
    "LAYER_TYPES",
    "apply_mrope",
    "axial_rope_2d",
    "axial_rope_frequencies",
    "irope_layer_types",
    "mrope_cos_sin",
    "qwen2_vl_positions",
    "ROPE_INIT_FUNCTIONS",
    "ROPE_LAYOUTS",
    "ROPE_VARIANTS",
    "RopeVariant",
    "apply_rope",
    "apply_xpos",
    "half_to_interleaved_permutation",
    "rope_cos_sin",
    "rope_decay_bound",
    "rope_decay_summary",
    "rope_frequency_ratio",
    "rope_inv_freq",
    "rope_score_stats",
    "rope_scores",
    "rope_shift_error",
    "xpos_scale",
]
