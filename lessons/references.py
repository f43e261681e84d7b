"""Reference: the papers and reference code behind each method."""

import streamlit as st

from ui import layout
from ui.lesson import Lesson

LESSON = Lesson(
    __file__, "References", "references", question="Where do these methods come from?", icon=":material/library_books:"
)

PAPERS = (
    ("Vaswani et al. 2017", "Attention Is All You Need", "arXiv:1706.03762", "sinusoidal encoding"),
    ("Devlin et al. 2018", "BERT", "arXiv:1810.04805", "learned absolute positions"),
    (
        "Shaw et al. 2018",
        "Self-Attention with Relative Position Representations",
        "arXiv:1803.02155",
        "clipped relative positions",
    ),
    ("Dai et al. 2019", "Transformer-XL", "arXiv:1901.02860", "relative scores with global biases"),
    (
        "Raffel et al. 2019",
        "Exploring the Limits of Transfer Learning (T5)",
        "arXiv:1910.10683",
        "relative position buckets",
    ),
    ("He et al. 2020", "DeBERTa", "arXiv:2006.03654", "disentangled attention, log buckets"),
    ("Su et al. 2021", "RoFormer: Enhanced Transformer with Rotary Position Embedding", "arXiv:2104.09864", "RoPE"),
    ("Press et al. 2021", "Train Short, Test Long (ALiBi)", "arXiv:2108.12409", "linear biases"),
    ("Chi et al. 2022", "KERPLE", "arXiv:2205.09921", "kernelized relative positions"),
    ("Sun et al. 2022", "A Length-Extrapolatable Transformer (xPos)", "arXiv:2212.10554", "RoPE with decay"),
    (
        "Chen et al. 2023",
        "Extending Context Window via Positional Interpolation",
        "arXiv:2306.15595",
        "linear RoPE scaling",
    ),
    ("Peng et al. 2023", "YaRN", "arXiv:2309.00071", "RoPE scaling by frequency band"),
)
CODE = (
    (
        "Hugging Face transformers",
        "modeling_rope_utils.py (ROPE_INIT_FUNCTIONS), rotate_half, GPT-J's "
        "rotate_every_two, T5's _relative_position_bucket, DeBERTa-v2's make_log_bucket_position",
    ),
    ("ofirpress/attention_with_linear_biases", "get_slopes (ALiBi's slopes for any head count)"),
    ("microsoft/torchscale", "xpos_relative_position.py (xPos)"),
    ("kimiyoung/transformer-xl", "the relative attention and its sin-then-cos position embedding"),
)


@LESSON.page
def page() -> None:
    layout.lesson(
        "References",
        "The papers each lesson teaches from, and the reference code posenc is tested against "
        "(frozen values in tests/data/reference_snapshots.json).",
    )
    st.subheader("Papers")
    st.table(
        [{"Authors": a, "Title": t, "Where": w, "For": f} for a, t, w, f in PAPERS],
        hide_index=True,
    )
    st.subheader("Reference code")
    st.table([{"Repository": r, "What posenc matches": w} for r, w in CODE], hide_index=True)


if __name__ == "__main__":
    LESSON.show()
