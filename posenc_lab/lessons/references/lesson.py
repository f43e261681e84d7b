"""Reference: the papers and reference code behind each method."""

import streamlit as st

from posenc_lab.ui import layout
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__, "References", "references", question="Where do these methods come from?", icon=":material/library_books:"
)

PAPERS = (
    ("Vaswani et al. 2017", "Attention Is All You Need", "arXiv:1706.03762", "sinusoidal encoding"),
    (
        "Radford et al. 2018",
        "Improving Language Understanding by Generative Pre-Training (GPT-1)",
        "OpenAI technical report",
        "learned position embeddings (sec. 4.1)",
    ),
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
    (
        "He, Liu, Gao, Chen 2020",
        "DeBERTa: Decoding-enhanced BERT with Disentangled Attention",
        "arXiv:2006.03654",
        "disentangled attention (relative positions clipped at k, no log buckets)",
    ),
    (
        "Microsoft 2021",
        "DeBERTa-v2 and v3 release (code and model cards, not a paper)",
        "github.com/microsoft/DeBERTa; model card of microsoft/deberta-v2-xlarge (Hugging Face)",
        "log buckets for relative positions, as in T5",
    ),
    ("Su et al. 2021", "RoFormer: Enhanced Transformer with Rotary Position Embedding", "arXiv:2104.09864", "RoPE"),
    ("Press et al. 2021", "Train Short, Test Long (ALiBi)", "arXiv:2108.12409", "linear biases"),
    ("Chi et al. 2022", "KERPLE", "arXiv:2205.09921", "kernelized relative positions"),
    ("Sun et al. 2022", "A Length-Extrapolatable Transformer (xPos)", "arXiv:2212.10554", "RoPE with decay"),
    (
        "Chen, Wong, Chen, Tian 2023",
        "Extending Context Window of Large Language Models via Positional Interpolation",
        "arXiv:2306.15595",
        "linear RoPE scaling (position interpolation, PI)",
    ),
    (
        "bloc97 2023",
        "NTK-Aware Scaled RoPE allows LLaMA models to have extended (8k+) context size without any "
        "fine-tuning and minimal perplexity degradation",
        "Reddit, r/LocalLLaMA (a post, not a paper)",
        "NTK-aware RoPE scaling (a larger base)",
    ),
    (
        "emozilla 2023",
        "Dynamically Scaled RoPE further increases performance of long context LLaMA with zero fine-tuning",
        "Reddit, r/LocalLLaMA (a post, not a paper)",
        "dynamic NTK scaling (the base grows with the sequence length)",
    ),
    ("Peng et al. 2023", "YaRN", "arXiv:2309.00071", "RoPE scaling by frequency band"),
    (
        "Llama Team 2024",
        "The Llama 3 Herd of Models",
        "arXiv:2407.21783",
        "Llama 3 and 3.1, whose RoPE scaling by frequency band is the llama3 rope_type (its formula is in "
        "Meta's released code, which transformers' _compute_llama3_parameters follows)",
    ),
    (
        "Ke, He, Liu 2020",
        "Rethinking Positional Encoding in Language Pre-training (TUPE)",
        "arXiv:2006.15595",
        "absolute and relative positions untied from content",
    ),
    (
        "Haviv et al. 2022",
        "Transformer Language Models without Positional Encodings Still Learn Positional Information",
        "arXiv:2203.16634",
        "NoPE: a causal model infers positions",
    ),
    (
        "Sinha et al. 2022",
        "The Curious Case of Absolute Position Embeddings",
        "arXiv:2210.12574",
        "what absolute positions do when a phrase moves",
    ),
    (
        "Kazemnejad et al. 2023",
        "The Impact of Positional Encoding on Length Generalization in Transformers",
        "arXiv:2305.19466",
        "NoPE generalises to longer inputs on small tasks",
    ),
    (
        "Ding et al. 2024",
        "LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens",
        "arXiv:2402.13753",
        "searched per-pair RoPE factors (the longrope rope_type, Phi-3)",
    ),
    (
        "Heo et al. 2024",
        "Rotary Position Embedding for Vision Transformer",
        "arXiv:2403.13298",
        "2-D axial RoPE for image patches",
    ),
    (
        "Wang et al. 2024",
        "Qwen2-VL: Enhancing Vision-Language Model's Perception of the World at Any Resolution",
        "arXiv:2409.12191",
        "M-RoPE: time, height and width positions",
    ),
    (
        "Barbero et al. 2024",
        "Round and Round We Go! What makes Rotary Positional Encodings useful?",
        "arXiv:2410.06205",
        "p-RoPE: only the fastest pairs turn (the proportional rope_type)",
    ),
    (
        "Meta 2025",
        "Llama 4 release (code and model cards, not a paper)",
        "transformers' Llama4TextConfig (no_rope_layers)",
        "iRoPE: a layer without positions every fourth layer",
    ),
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
    layout.table(
        [{"Authors": a, "Title": t, "Where": w, "For": f} for a, t, w, f in PAPERS],
    )
    st.subheader("Reference code")
    layout.table([{"Repository": r, "What posenc matches": w} for r, w in CODE])
