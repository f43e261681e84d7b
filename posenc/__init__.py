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
Tk    key positions (in attention and biases ``Tk >= Tq``: queries are the last Tq of them)
P     chosen RoPE pairs (of the Dh/2)
R     relative distances
B     batch (independent samples)
L     a context length (a causal query sees distances ``0..L-1``)
====  =========================================

Families, one module (or package) each: absolute encodings (``absolute``); RoPE, its
context-extension variants and xPos (``rope``: ``rope.frequencies``, ``rope.rotation``,
``rope.analysis``, ``rope.multiaxis``); ALiBi and KERPLE (``alibi``); Shaw, T5,
Transformer-XL and DeBERTa (``relative``); attention (``attention``); measurements across
methods (``analysis``); toy inputs (``toy``); the train-short-test-long experiment
(``experiment``) and its context extension (``extension``). The app's lesson-specific
measurements live with their lessons (``posenc_lab.lessons.<lesson>.measure``).
Bad arguments raise ``ValueError`` naming the argument, the value and what is
allowed; outputs over ``MAX_ELEMENTS`` elements are refused before anything
is allocated.
"""

#: the version of posenc-lab (the library, the figures and the app ship together); the one
#: place it is written: the wheel's metadata and ``posenc-lab --version`` read it
__version__ = "0.1.0"

from . import alibi, experiment, extension, relative, rope
from ._checks import MAX_ELEMENTS
from .absolute import (
    SINUSOIDAL_LAYOUTS,
    PositionOutOfRange,
    learned_table,
    lookup_learned,
    sinusoid_frequencies,
    sinusoidal,
)
from .alibi import KERPLE_KINDS, alibi_bias, alibi_slopes, alibi_span, kerple_bias, kerple_from_distance
from .analysis import (
    SCORE_METHODS,
    SIMILARITY_METRICS,
    linear_relation_error,
    permutation_error,
    position_scores,
    position_similarity,
    rotation_blocks,
    rotation_matrix,
    similarity_to_position,
    translation_error,
    wavelengths,
)
from .attention import (
    attention,
    causal_mask,
    kv_cache_bytes,
    self_attention,
    sliding_window_mask,
    softmax,
    window_receptive_field,
)
from .relative import (
    DebertaTerms,
    ShawTerms,
    XLTerms,
    deberta_log_bucket,
    deberta_scores,
    relative_positions,
    shaw_relative_embeddings,
    shaw_scores,
    t5_bias,
    t5_bucket,
    transformer_xl_scores,
)
from .rope import (
    ROPE_INIT_FUNCTIONS,
    ROPE_LAYOUTS,
    ROPE_VARIANTS,
    apply_rope,
    apply_xpos,
    half_to_interleaved_permutation,
    rope_cos_sin,
    rope_decay_bound,
    rope_frequency_ratio,
    rope_inv_freq,
    rope_score_stats,
    rope_scores,
    rope_shift_error,
    xpos_scale,
)
from .toy import MAX_WORDS, projections, split_words, word_embeddings

__all__ = [
    # the families with more than their top-level names, and the training experiment, as modules
    "alibi",
    "experiment",
    "extension",
    "relative",
    "rope",
    # limits and errors
    "MAX_ELEMENTS",
    "PositionOutOfRange",
    # absolute
    "SINUSOIDAL_LAYOUTS",
    "learned_table",
    "lookup_learned",
    "sinusoid_frequencies",
    "sinusoidal",
    # RoPE (posenc.rope)
    "ROPE_INIT_FUNCTIONS",
    "ROPE_LAYOUTS",
    "ROPE_VARIANTS",
    "apply_rope",
    "apply_xpos",
    "half_to_interleaved_permutation",
    "rope_cos_sin",
    "rope_decay_bound",
    "rope_frequency_ratio",
    "rope_inv_freq",
    "rope_score_stats",
    "rope_scores",
    "rope_shift_error",
    "xpos_scale",
    # ALiBi and KERPLE (posenc.alibi)
    "KERPLE_KINDS",
    "alibi_bias",
    "alibi_slopes",
    "alibi_span",
    "kerple_bias",
    "kerple_from_distance",
    # relative positions (posenc.relative)
    "DebertaTerms",
    "ShawTerms",
    "XLTerms",
    "deberta_log_bucket",
    "deberta_scores",
    "relative_positions",
    "shaw_relative_embeddings",
    "shaw_scores",
    "t5_bias",
    "t5_bucket",
    "transformer_xl_scores",
    # attention
    "attention",
    "causal_mask",
    "kv_cache_bytes",
    "self_attention",
    "sliding_window_mask",
    "softmax",
    "window_receptive_field",
    # toy inputs
    "MAX_WORDS",
    "projections",
    "split_words",
    "word_embeddings",
    # measurements across methods (posenc.analysis)
    "SCORE_METHODS",
    "SIMILARITY_METRICS",
    "linear_relation_error",
    "permutation_error",
    "position_scores",
    "position_similarity",
    "rotation_blocks",
    "rotation_matrix",
    "similarity_to_position",
    "translation_error",
    "wavelengths",
]
