"""posenc: positional encodings for Transformers, in NumPy.

The core of posenc-lab and a library in its own right: ``import posenc`` in a
notebook gives the same numbers the app draws. Pure functions, arrays in and arrays
out (float64 unless said otherwise); nothing here imports Streamlit or Plotly.

Shape letters, used in every docstring and comment:

====  =========================================
T     positions (sequence length)
D     model width (d_model)
H     attention heads
Dh    head width (head_dim)
Tq    query positions
Tk    key positions (``Tk >= Tq``: queries are the last Tq of them)
====  =========================================

Families: absolute encodings (``absolute``), rotary (``rotary``), attention biases
and relative positions (``relative``), attention (``attention``) and measurements
(``analysis``); toy inputs (``toy``); the train-short-test-long experiment
(``experiment``); and the lessons' own helpers (``*_lessons`` modules).
Bad arguments raise ``ValueError`` naming the argument, the value and what is
allowed; outputs over ``MAX_ELEMENTS`` elements are refused before anything
is allocated.
"""

from . import alibi_lessons, compare_lessons, experiment, relative_lessons, rope_lessons
from ._checks import MAX_ELEMENTS
from .absolute import (
    SINUSOIDAL_LAYOUTS,
    PositionOutOfRange,
    learned_table,
    lookup_learned,
    sinusoid_frequencies,
    sinusoidal,
)
from .analysis import (
    SCORE_METHODS,
    SIMILARITY_METRICS,
    alibi_span,
    linear_relation_error,
    permutation_error,
    position_scores,
    position_similarity,
    rope_decay_bound,
    rope_frequency_ratio,
    rope_score_stats,
    rope_scores,
    rope_shift_error,
    rotation_blocks,
    rotation_matrix,
    similarity_to_position,
    translation_error,
    wavelengths,
)
from .attention import attention, causal_mask, self_attention, softmax
from .relative import (
    KERPLE_KINDS,
    DebertaTerms,
    ShawTerms,
    XLTerms,
    alibi_bias,
    alibi_slopes,
    deberta_log_bucket,
    deberta_scores,
    kerple_bias,
    kerple_from_distance,
    relative_positions,
    shaw_relative_embeddings,
    shaw_scores,
    t5_bias,
    t5_bucket,
    transformer_xl_scores,
)
from .rotary import (
    ROPE_INIT_FUNCTIONS,
    ROPE_LAYOUTS,
    apply_rope,
    apply_xpos,
    half_to_interleaved_permutation,
    rope_cos_sin,
    rope_inv_freq,
    xpos_scale,
)
from .toy import MAX_WORDS, projections, split_words, word_embeddings

__all__ = [
    # lesson helpers and the training experiment, as modules
    "alibi_lessons",
    "compare_lessons",
    "experiment",
    "relative_lessons",
    "rope_lessons",
    # limits and errors
    "MAX_ELEMENTS",
    "PositionOutOfRange",
    # absolute
    "SINUSOIDAL_LAYOUTS",
    "learned_table",
    "lookup_learned",
    "sinusoid_frequencies",
    "sinusoidal",
    # rotary
    "ROPE_INIT_FUNCTIONS",
    "ROPE_LAYOUTS",
    "apply_rope",
    "apply_xpos",
    "half_to_interleaved_permutation",
    "rope_cos_sin",
    "rope_inv_freq",
    "xpos_scale",
    # relative positions and biases
    "KERPLE_KINDS",
    "DebertaTerms",
    "ShawTerms",
    "XLTerms",
    "alibi_bias",
    "alibi_slopes",
    "deberta_log_bucket",
    "deberta_scores",
    "kerple_bias",
    "kerple_from_distance",
    "relative_positions",
    "shaw_relative_embeddings",
    "shaw_scores",
    "t5_bias",
    "t5_bucket",
    "transformer_xl_scores",
    # attention
    "attention",
    "causal_mask",
    "self_attention",
    "softmax",
    # toy inputs
    "MAX_WORDS",
    "projections",
    "split_words",
    "word_embeddings",
    # analysis
    "SCORE_METHODS",
    "SIMILARITY_METRICS",
    "alibi_span",
    "linear_relation_error",
    "permutation_error",
    "position_scores",
    "position_similarity",
    "rope_decay_bound",
    "rope_frequency_ratio",
    "rope_score_stats",
    "rope_scores",
    "rope_shift_error",
    "rotation_blocks",
    "rotation_matrix",
    "similarity_to_position",
    "translation_error",
    "wavelengths",
]
