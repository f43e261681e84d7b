"""The table of methods: how each one gives attention a sense of position, what it costs,
what it knows, how it copes past the training length, and who uses it.

The home page shows it whole; the compare lesson reads its rows. The lessons themselves
are listed in ``lessons/__init__.py``.
"""

from __future__ import annotations

#: One row per method: how position gets in, what it costs, what it knows, how it
#: copes past the training length, and who uses it.
METHODS = (
    {
        "Method": "None (bag of words)",
        "Where position enters": "nowhere",
        "Learned parameters": "0",
        "Relative information": "none: attention is permutation-equivariant",
        "Past the training length": "nothing to extrapolate",
        "Used in": "Set Transformer, Perceiver latents",
    },
    {
        "Method": "Sinusoidal (Vaswani et al. 2017)",
        "Where position enters": "added to the token embedding",
        "Learned parameters": "0",
        "Relative information": "indirect: PE[p+k] is a fixed rotation of PE[p]",
        "Past the training length": "defined for any position, yet models trained short degrade soon after",
        "Used in": "the original Transformer, fairseq / tensor2tensor translation models",
    },
    {
        "Method": "Learned absolute",
        "Where position enters": "added to the token embedding",
        "Learned parameters": "max_len x d_model",
        "Relative information": "none built in",
        "Past the training length": "impossible: there is no row past max_len",
        "Used in": "BERT, GPT-2, GPT-3, OPT, ViT",
    },
    {
        "Method": "Shaw et al. relative (2018)",
        "Where position enters": "learned vector per clipped offset, in keys (and values)",
        "Learned parameters": "(2K+1) x d_head per layer, for keys and again for values",
        "Relative information": "yes, up to distance K",
        "Past the training length": "runs: farther offsets share the edge vector",
        "Used in": "Shaw et al.'s translation models, Music Transformer",
    },
    {
        "Method": "T5 buckets",
        "Where position enters": "scalar bias on the attention logits",
        "Learned parameters": "num_buckets x heads (32 x H) per stack, shared by its layers: "
        "the encoder and the decoder each learn their own",
        "Relative information": "yes, log-spaced buckets",
        "Past the training length": "runs: offsets past max_distance share the last bucket",
        "Used in": "T5, mT5, Flan-T5",
    },
    {
        "Method": "Transformer-XL",
        "Where position enters": "four score terms with a sinusoid of i - j and global biases u, v",
        "Learned parameters": "u, v and W_R (about d^2 per layer)",
        "Relative information": "yes",
        "Past the training length": "runs, and reuses a memory of past segments",
        "Used in": "Transformer-XL, XLNet",
    },
    {
        "Method": "DeBERTa",
        "Where position enters": "content-to-position and position-to-content score terms",
        "Learned parameters": "2k x d relative embeddings, shared by layers",
        "Relative information": "yes, log-bucketed far away",
        "Past the training length": "runs: far offsets share buckets",
        "Used in": "DeBERTa, DeBERTa-v3",
    },
    {
        "Method": "RoPE (Su et al. 2021)",
        "Where position enters": "rotates queries and keys",
        "Learned parameters": "0",
        "Relative information": "exact: q_m . k_n depends on m - n only",
        "Past the training length": "degrades quickly unless the frequencies are rescaled",
        "Used in": "GPT-J, GPT-NeoX, PaLM, LLaMA, Mistral, Qwen",
    },
    {
        "Method": "RoPE + context extension (PI, NTK, YaRN, Llama 3)",
        "Where position enters": "rotates queries and keys with rescaled frequencies",
        "Learned parameters": "0 (usually a short fine-tune)",
        "Relative information": "exact",
        "Past the training length": "its purpose: several times the original window",
        "Used in": "Code Llama (larger base), Llama 3.1 (Llama 3 scaling), Qwen2 and DeepSeek-V2 (YaRN)",
    },
    {
        "Method": "xPos (Sun et al. 2022)",
        "Where position enters": "RoPE plus a per-pair exponential decay",
        "Learned parameters": "0",
        "Relative information": "exact",
        "Past the training length": "better than RoPE in its paper's tests",
        "Used in": "LEX Transformer (RetNet uses a related per-distance decay)",
    },
    {
        "Method": "ALiBi (Press et al. 2021)",
        "Where position enters": "bias -m |i - j| on the logits, one slope per head",
        "Learned parameters": "0 (fixed geometric slopes)",
        "Relative information": "yes, linear in distance",
        "Past the training length": "perplexity stays flat at several times the length (mostly local attention)",
        "Used in": "BLOOM, MPT",
    },
    {
        "Method": "KERPLE (Chi et al. 2022)",
        "Where position enters": "bias -r1 log(1 + r2 |i - j|) or -r1 |i - j|^r2",
        "Learned parameters": "2 per head",
        "Relative information": "yes",
        "Past the training length": "good in its paper's tests (log variant best)",
        "Used in": "research models",
    },
)
