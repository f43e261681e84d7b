"""The position settings of published models, copied from their released config.json.

Pure data. Each entry keeps only the keys that decide positions, spelled as in the
released file (``text_config`` flattened for the multimodal ones), with ``source`` naming
the upstream file and ``read_in`` saying where its values were read here: there is no
access to the Hugging Face Hub from this project, so some values were read in public
copies of the file (test fixtures, model ports) and checked against each other.
A key the released file leaves out is left out here too: ``model_types.resolve`` fills it from
the config class of the entry's ``model_type``, as transformers does, and ``read_in`` names it.
``measure.positions`` computes everything the lesson shows from ``config`` alone.
"""

from __future__ import annotations

from types import MappingProxyType

#: Phi-3.5-mini-instruct's LongRoPE factors, one per rotated pair (head_dim 96: 48 pairs)
_PHI35_LONG = [
    1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601, 1.5899999141693115,
    1.600000023841858, 1.6200000047683716, 2.620000123977661, 3.2300000190734863, 3.2300000190734863,
    4.789999961853027, 7.400000095367432, 7.700000286102295, 9.09000015258789, 12.199999809265137,
    17.670000076293945, 24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523,
    32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992, 50.340003967285156,
    50.45000457763672, 57.55000305175781, 57.93000411987305, 58.21000289916992, 60.1400032043457,
    62.61000442504883, 62.62000274658203, 62.71000289916992, 63.1400032043457, 63.1400032043457,
    63.77000427246094, 63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688,
    64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938, 64.4800033569336,
    64.51000213623047, 64.52999877929688, 64.83999633789062,
]  # fmt: skip
_PHI35_SHORT = [
    1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0699999332427979, 1.0999999046325684,
    1.1099998950958252, 1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378,
    1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083, 1.8499997854232788,
    1.8799997568130493, 1.9099997282028198, 1.9399996995925903, 1.9899996519088745, 2.0199997425079346,
    2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0799996852874756,
    2.0899996757507324, 2.189999580383301, 2.2199995517730713, 2.5899994373321533, 2.729999542236328,
    2.749999523162842, 2.8399994373321533,
]  # fmt: skip

_LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32}

#: key -> {"name", "source", "read_in", "config"}, and "trained" where a training length is published (with
#: its source: max_position_embeddings is the longest position a model accepts, not what it trained at);
#: in the order the catalogue lists them
MODELS = MappingProxyType(
    {
        "gpt2": {
            "name": "GPT-2 (124M)",
            "source": "openai-community/gpt2, config.json",
            "read_in": "transformers' GPT2Config defaults, which are the 124M model's values (not read in a copy here)",
            "config": {"model_type": "gpt2", "n_positions": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12},
        },
        "bert": {
            "name": "BERT base",
            "source": "google-bert/bert-base-uncased, config.json",
            "read_in": "transformers' BertConfig defaults, which are the base model's values (not read in a copy here)",
            "config": {
                "model_type": "bert",
                "max_position_embeddings": 512,
                "position_embedding_type": "absolute",
                "hidden_size": 768,
                "num_attention_heads": 12,
                "num_hidden_layers": 12,
            },
        },
        "t5": {
            "name": "T5 base",
            "source": "google-t5/t5-base, config.json",
            "read_in": (
                "the T5 paper's base size and the file's relative_attention_num_buckets 32; the file leaves out "
                "relative_attention_max_distance, so T5Config's default 128 applies (not read in a copy here)"
            ),
            "config": {
                "model_type": "t5",
                "d_model": 768,
                "d_kv": 64,
                "num_heads": 12,
                "num_layers": 12,
                "relative_attention_num_buckets": 32,
            },
        },
        "deberta-v3": {
            "name": "DeBERTa-v3 base",
            "source": "microsoft/deberta-v3-base, config.json",
            "read_in": "public copies of the file (model ports that load this checkpoint)",
            "config": {
                "model_type": "deberta-v2",
                "max_position_embeddings": 512,
                "relative_attention": True,
                "position_buckets": 256,
                "max_relative_positions": -1,
                "position_biased_input": False,
                "hidden_size": 768,
                "num_attention_heads": 12,
                "num_hidden_layers": 12,
            },
        },
        "bloom": {
            "name": "BLOOM (176B)",
            "source": "bigscience/bloom, config.json",
            "read_in": "public copies of the file (test fixtures); an ALiBi model has no position limit in it",
            "config": {"model_type": "bloom", "hidden_size": 14336, "n_head": 112, "n_layer": 70},
        },
        "mpt": {
            "name": "MPT-7B",
            "source": "mosaicml/mpt-7b, config.json",
            "read_in": "a public copy of the file (an MLC-LLM conversion note)",
            "config": {
                "model_type": "mpt",
                "d_model": 4096,
                "n_heads": 32,
                "n_layers": 32,
                "max_seq_len": 2048,
                "attn_config": {"alibi": True, "alibi_bias_max": 8},
            },
        },
        "gpt-neox": {
            "name": "GPT-NeoX-20B (Pythia's architecture)",
            "source": "EleutherAI/gpt-neox-20b, config.json",
            "read_in": "public copies of its values (a config converter's and a GPT-NeoX training config)",
            "config": {
                "model_type": "gpt_neox",
                "hidden_size": 6144,
                "num_attention_heads": 64,
                "num_hidden_layers": 44,
                "max_position_embeddings": 2048,
                "rotary_pct": 0.25,
                "rotary_emb_base": 10000,
            },
        },
        "phi-2": {
            "name": "Phi-2",
            "source": "microsoft/phi-2, config.json",
            "read_in": "a public copy of its values (gpt-fast's model table)",
            "config": {
                "model_type": "phi",
                "hidden_size": 2560,
                "num_attention_heads": 32,
                "num_hidden_layers": 32,
                "max_position_embeddings": 2048,
                "partial_rotary_factor": 0.4,
                "rope_theta": 10000.0,
            },
        },
        "llama-2": {
            "name": "Llama 2 7B",
            "source": "meta-llama/Llama-2-7b-hf, config.json",
            "read_in": "not read in a copy here; the file has no rope_theta, so transformers' default 10000 applies",
            "config": {**_LLAMA, "max_position_embeddings": 4096},
        },
        "code-llama": {
            "name": "Code Llama 7B",
            "source": "codellama/CodeLlama-7b-hf, config.json",
            "read_in": "the Code Llama paper's base 10^6 and 16,384-token length (not read in a copy here)",
            "config": {**_LLAMA, "max_position_embeddings": 16384, "rope_theta": 1000000.0},
        },
        "llama-3.1": {
            "name": "Llama 3.1 8B",
            "source": "meta-llama/Llama-3.1-8B, config.json",
            "read_in": "public copies of the file (test fixtures)",
            "config": {
                **_LLAMA,
                "max_position_embeddings": 131072,
                "rope_theta": 500000.0,
                "rope_scaling": {
                    "factor": 8.0,
                    "high_freq_factor": 4.0,
                    "low_freq_factor": 1.0,
                    "original_max_position_embeddings": 8192,
                    "rope_type": "llama3",
                },
            },
        },
        "llama-3.2": {
            "name": "Llama 3.2 1B",
            "source": "meta-llama/Llama-3.2-1B, config.json",
            "read_in": "public copies of its values (model ports)",
            "config": {
                "model_type": "llama",
                "hidden_size": 2048,
                "head_dim": 64,
                "num_attention_heads": 32,
                "num_hidden_layers": 16,
                "max_position_embeddings": 131072,
                "rope_theta": 500000.0,
                "rope_scaling": {
                    "factor": 32.0,
                    "high_freq_factor": 4.0,
                    "low_freq_factor": 1.0,
                    "original_max_position_embeddings": 8192,
                    "rope_type": "llama3",
                },
            },
        },
        "llama-4": {
            "name": "Llama 4 Scout",
            "source": "meta-llama/Llama-4-Scout-17B-16E, config.json (text_config)",
            "read_in": (
                "public copies of its text_config (test fixtures); its no_rope_layers is an empty list, which "
                "Llama4TextConfig reads as one NoPE layer in every no_rope_layer_interval = 4 (its default)"
            ),
            "config": {
                "model_type": "llama4_text",
                "hidden_size": 5120,
                "head_dim": 128,
                "num_attention_heads": 40,
                "num_hidden_layers": 48,
                "max_position_embeddings": 10485760,
                "rope_theta": 500000.0,
                "rope_scaling": {
                    "factor": 16.0,
                    "high_freq_factor": 1.0,
                    "low_freq_factor": 1.0,
                    "original_max_position_embeddings": 8192,
                    "rope_type": "llama3",
                },
                "attention_chunk_size": 8192,
                "no_rope_layers": [],
            },
        },
        "mistral": {
            "name": "Mistral 7B v0.1",
            "source": "mistralai/Mistral-7B-v0.1, config.json",
            "read_in": "public copies of the file",
            "trained": "a context length of 8,192 tokens (the Mistral 7B paper, Jiang et al. 2023, Table 1)",
            "config": {
                "model_type": "mistral",
                "hidden_size": 4096,
                "num_attention_heads": 32,
                "num_hidden_layers": 32,
                "max_position_embeddings": 32768,
                "rope_theta": 10000.0,
                "sliding_window": 4096,
            },
        },
        "mistral-v0.3": {
            "name": "Mistral 7B v0.3",
            "source": "mistralai/Mistral-7B-v0.3, config.json",
            "read_in": "public copies of the file: rope_theta 10^6 and sliding_window null (no window)",
            "config": {
                "model_type": "mistral",
                "hidden_size": 4096,
                "head_dim": 128,
                "num_attention_heads": 32,
                "num_hidden_layers": 32,
                "max_position_embeddings": 32768,
                "rope_theta": 1000000.0,
                "sliding_window": None,
            },
        },
        "gemma-2": {
            "name": "Gemma 2 9B",
            "source": "google/gemma-2-9b, config.json",
            "read_in": (
                "public copies of the file; it has no layer_types, and Gemma2Config makes layers 0, 2, 4, ... "
                "slide and 1, 3, 5, ... see everything"
            ),
            "config": {
                "model_type": "gemma2",
                "hidden_size": 3584,
                "head_dim": 256,
                "num_attention_heads": 16,
                "num_hidden_layers": 42,
                "max_position_embeddings": 8192,
                "rope_theta": 10000.0,
                "sliding_window": 4096,
            },
        },
        "qwen2.5": {
            "name": "Qwen2.5 7B Instruct, with YaRN",
            "source": (
                "Qwen/Qwen2.5-7B-Instruct, config.json, with the rope_scaling its model card (README.md) "
                "says to add for inputs over 32,768 tokens"
            ),
            "read_in": "public copies of the card's snippet and of the file's values",
            "config": {
                "model_type": "qwen2",
                "hidden_size": 3584,
                "num_attention_heads": 28,
                "num_hidden_layers": 28,
                "max_position_embeddings": 32768,
                "rope_theta": 1000000.0,
                "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"},
            },
        },
        "qwen2-vl": {
            "name": "Qwen2-VL 7B Instruct",
            "source": "Qwen/Qwen2-VL-7B-Instruct, config.json",
            "read_in": "public copies of the file (test fixtures)",
            "config": {
                "model_type": "qwen2_vl",
                "hidden_size": 3584,
                "num_attention_heads": 28,
                "num_hidden_layers": 28,
                "max_position_embeddings": 32768,
                "rope_theta": 1000000.0,
                "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
            },
        },
        "deepseek-v3": {
            "name": "DeepSeek-V3",
            "source": "deepseek-ai/DeepSeek-V3, config.json",
            "read_in": "public copies of the file",
            "config": {
                "model_type": "deepseek_v3",
                "hidden_size": 7168,
                "num_attention_heads": 128,
                "num_hidden_layers": 61,
                "qk_rope_head_dim": 64,
                "max_position_embeddings": 163840,
                "rope_theta": 10000,
                "rope_scaling": {
                    "beta_fast": 32,
                    "beta_slow": 1,
                    "factor": 40,
                    "mscale": 1.0,
                    "mscale_all_dim": 1.0,
                    "original_max_position_embeddings": 4096,
                    "type": "yarn",
                },
            },
        },
        "phi-3.5": {
            "name": "Phi-3.5-mini-instruct (LongRoPE)",
            "source": "microsoft/Phi-3.5-mini-instruct, config.json",
            "read_in": "public copies of its values (a model table and an NPU port that agree)",
            "config": {
                "model_type": "phi3",
                "hidden_size": 3072,
                "num_attention_heads": 32,
                "num_hidden_layers": 32,
                "max_position_embeddings": 131072,
                "original_max_position_embeddings": 4096,
                "rope_theta": 10000.0,
                "rope_scaling": {"long_factor": _PHI35_LONG, "short_factor": _PHI35_SHORT, "type": "longrope"},
            },
        },
        "gemma-3": {
            "name": "Gemma 3 27B",
            "source": "google/gemma-3-27b-it, config.json (text_config)",
            "trained": (
                "pre-trained on 32,768-token sequences, then its global layers' RoPE rescaled by 8 to reach 131,072 "
                "(the Gemma 3 technical report, 2025)"
            ),
            "read_in": (
                "public copies of its text_config, which leaves out rope_theta, max_position_embeddings, "
                "rope_local_base_freq and sliding_window_pattern: Gemma3TextConfig's defaults 1,000,000, 131,072, "
                "10,000 and 6 apply"
            ),
            "config": {
                "model_type": "gemma3_text",
                "hidden_size": 5376,
                "head_dim": 128,
                "num_attention_heads": 32,
                "num_hidden_layers": 62,
                "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                "sliding_window": 1024,
            },
        },
        "gpt-oss": {
            "name": "gpt-oss-20b",
            "source": "openai/gpt-oss-20b, config.json",
            "read_in": "public copies of the file",
            "config": {
                "model_type": "gpt_oss",
                "hidden_size": 2880,
                "head_dim": 64,
                "num_attention_heads": 64,
                "num_hidden_layers": 24,
                "max_position_embeddings": 131072,
                "rope_theta": 150000,
                "rope_scaling": {
                    "beta_fast": 32.0,
                    "beta_slow": 1.0,
                    "factor": 32.0,
                    "original_max_position_embeddings": 4096,
                    "rope_type": "yarn",
                    "truncate": False,
                },
                "sliding_window": 128,
                "layer_types": ["sliding_attention", "full_attention"] * 12,
            },
        },
    }
)
