"""Reference: the symbols the lessons use, in one place."""

import streamlit as st

from ui import layout
from ui.lesson import Lesson

LESSON = Lesson(__file__, "Glossary", "glossary", question="What does each symbol mean?", icon=":material/menu_book:")

TERMS = (
    (
        "d_model (d, D)",
        "Width of the token vectors. The sinusoidal table has d_model columns, in sin/cos pairs.",
        "Sinusoidal encoding",
    ),
    (
        "head_dim (d_h, Dh)",
        "Width of one attention head's queries and keys; RoPE rotates them in head_dim / 2 pairs.",
        "RoPE",
    ),
    (
        "position p, m, n",
        "Index of a token in the sequence, from 0. Queries sit at m (or i), keys at n (or j).",
        "Why order matters",
    ),
    (
        "offset, relative position",
        "Key minus query, j - i: negative for keys in the past (T5, relative_positions). "
        "Transformer-XL and DeBERTa write query minus key.",
        "Relative positions",
    ),
    (
        "base",
        "Sets the wavelengths of the sinusoid and of RoPE: pair i turns base^(-2i/d) radians per position. "
        "10,000 in the original Transformer; rope_theta in Hugging Face configs.",
        "Sinusoidal encoding",
    ),
    ("theta_i, omega_i", "Angular frequency of pair i: base^(-2i/d). Its wavelength is 2 pi / theta_i.", "RoPE"),
    ("max_len", "Rows of a learned position table: the longest input the model can take.", "Learned positions"),
    (
        "K (clipping distance)",
        "Shaw et al.: offsets beyond +-K share the edge embedding, 2K + 1 vectors in all.",
        "Relative positions",
    ),
    (
        "bucket",
        "T5 and DeBERTa group offsets: exact for small ones, logarithmically wider far away; "
        "one learned value per bucket (and head).",
        "Relative positions",
    ),
    (
        "num_buckets, max_distance",
        "T5's bucket count and the offset from which every farther key shares the last bucket.",
        "Relative positions",
    ),
    (
        "slope m_h",
        "ALiBi's penalty per step of distance for head h: 2^(-8h/H) for H heads (a power of two).",
        "ALiBi and KERPLE",
    ),
    ("r1, r2", "KERPLE's two learned numbers per head: -r1 log(1 + r2 |i - j|) or -r1 |i - j|^r2.", "ALiBi and KERPLE"),
    (
        "factor (s)",
        "Context extension: how many times longer than the training context the model should reach.",
        "RoPE",
    ),
    (
        "original_max_position_embeddings",
        "The training context length L that RoPE scaling is measured against.",
        "RoPE",
    ),
    (
        "attention factor",
        "YaRN's multiplier on cos and sin (0.1 ln s + 1), a temperature for the longer context.",
        "RoPE",
    ),
    (
        "gamma, scale_base",
        "xPos: per-pair decay zeta_i = (2i/d + gamma) / (1 + gamma), applied as zeta_i^(distance / scale_base).",
        "RoPE",
    ),
    (
        "permutation-equivariant",
        "Attention(PX) = P Attention(X): reorder the inputs and the outputs reorder the same way.",
        "Why order matters",
    ),
    ("translation invariance", "Moving a whole phrase along the sequence leaves its scores unchanged.", "Experiments"),
)


@LESSON.page
def page() -> None:
    layout.lesson("Glossary", "The symbols and words the lessons use, with the lesson where each one matters most.")
    st.table(
        [{"Symbol or term": term, "Meaning": meaning, "Lesson": where} for term, meaning, where in TERMS],
        hide_index=True,
    )


if __name__ == "__main__":
    LESSON.show()
