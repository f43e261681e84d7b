"""How transformers reads a config.json, per ``model_type``: one table, pure data and a reader.

A released config.json leaves keys out, and transformers fills them from the config class of its
``model_type`` (``LlamaConfig``, ``Gemma3TextConfig``, ...); some keys also mean different things
per family (GPT-NeoX's ``rotary_pct``, GPT-J's ``rotary_dim``, Llama 4's empty ``no_rope_layers``,
Qwen2's ``max_window_layers``). ``MODEL_TYPES`` holds, per model type, the defaults its config class
fills in for the keys the lesson reads and the rule that turns its keys into each layer's attention;
``resolve(config)`` returns the config with those defaults filled in, and notes naming each one.

The values were read in the config classes of transformers ``TRANSFORMERS_VERSION``;
``tests/test_models_types.py`` checks every entry against ``AutoConfig.for_model`` there. It needs
nothing beyond the standard library: the app never imports transformers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType

#: the transformers release whose config classes the table was read in (and is tested against)
TRANSFORMERS_VERSION = "5.23.0"

#: how a model type's layers attend when the file has no ``layer_types``:
#: "full": every layer sees the whole context (no sliding_window is read);
#: "every": a sliding_window, when set, in every layer (Mistral, Mixtral, Phi-3);
#: "from_max_window": with use_sliding_window, layers from max_window_layers on slide (Qwen2, Qwen3);
#: "alternate": layers 0, 2, 4, ... slide and 1, 3, 5, ... see everything (Gemma 2, gpt-oss);
#: "pattern": every sliding_window_pattern-th layer (1-based) sees everything, the others slide (Gemma 3);
#: "chunked": the RoPE layers attend within chunks of attention_chunk_size, the NoPE layers to everything
#: (Llama 4)
LAYER_RULES = ("full", "every", "from_max_window", "alternate", "pattern", "chunked")


@dataclass(frozen=True)
class ModelType:
    """One model type as its transformers config class reads it."""

    #: the config class, as transformers names it
    config_class: str
    #: the position method: "rope", "learned", "t5", "deberta" or "alibi" (Falcon: "rope" unless alibi)
    method: str
    #: the keys the lesson reads that the class fills in when a file leaves them out
    defaults: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    #: how the layers attend without layer_types (``LAYER_RULES``)
    layers: str = "full"
    #: True when head_dim is always hidden_size / num_attention_heads (a head_dim key is not read)
    head_dim_from_width: bool = False
    #: True when an empty or missing no_rope_layers means one NoPE layer every no_rope_layer_interval
    nope_interval: bool = False
    #: a learned table's rows before position 0's: OPT's table has max_position_embeddings + 2 rows and
    #: reads position p at row p + 2; RoBERTa's has max_position_embeddings rows and reads position p at
    #: row p + pad_token_id + 1 (pad_token_id 1: row p + 2)
    rows_before: int = 0
    #: True when those rows are inside max_position_embeddings (RoBERTa), False when added to it (OPT)
    rows_before_inside: bool = False


def _type(config_class: str, method: str, layers: str = "full", **kwargs) -> ModelType:
    names = ("head_dim_from_width", "nope_interval", "rows_before", "rows_before_inside")
    flags = {k: kwargs.pop(k) for k in names if k in kwargs}
    return ModelType(config_class, method, MappingProxyType(kwargs), layers, **flags)


def _learned(config_class: str, max_pos: int, width: int, heads: int, layers: int, **flags) -> ModelType:
    return _type(
        config_class,
        "learned",
        **flags,
        max_position_embeddings=max_pos,
        hidden_size=width,
        num_attention_heads=heads,
        num_hidden_layers=layers,
    )


def _llama_like(config_class: str, max_pos: int, base: float, layers: str = "full", **kwargs) -> ModelType:
    # Llama's shape: 4096 wide, 32 heads, 32 layers (each class may say otherwise)
    shape = {"hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32}
    return _type(
        config_class, "rope", layers, **{**shape, "max_position_embeddings": max_pos, "rope_theta": base, **kwargs}
    )


def _t5(config_class: str, heads: int, layers: int) -> ModelType:
    return _type(
        config_class,
        "t5",
        d_model=512,
        d_kv=64,
        num_heads=heads,
        num_layers=layers,
        relative_attention_num_buckets=32,
        relative_attention_max_distance=128,
    )


_GPT_J = {
    "n_positions": 2048,
    "n_embd": 4096,
    "n_head": 16,
    "n_layer": 28,
    "rotary_dim": 64,
    # GPT-J and CodeGen rotate with a fixed base: their configs have no key for it
    "rope_theta": 10000.0,
}
_QWEN_WINDOW = {"use_sliding_window": False, "sliding_window": 4096}
_QWEN_VL = _llama_like(
    "Qwen2VLTextConfig",
    32768,
    1000000.0,
    "from_max_window",
    hidden_size=8192,
    num_attention_heads=64,
    num_hidden_layers=80,
    max_window_layers=80,
    **_QWEN_WINDOW,
)

#: model_type -> how its config class reads a config.json; in the order of the catalogue's families
MODEL_TYPES = MappingProxyType(
    {
        "gpt2": _type("GPT2Config", "learned", n_positions=1024, n_embd=768, n_head=12, n_layer=12),
        "bert": _learned("BertConfig", 512, 768, 12, 12),
        "roberta": _learned("RobertaConfig", 512, 768, 12, 12, rows_before=2, rows_before_inside=True),
        "opt": _learned("OPTConfig", 2048, 768, 12, 12, rows_before=2),
        "t5": _t5("T5Config", 8, 6),
        "mt5": _t5("MT5Config", 6, 8),
        "umt5": _t5("UMT5Config", 6, 8),
        "deberta-v2": _type(
            "DebertaV2Config",
            "deberta",
            max_position_embeddings=512,
            hidden_size=1536,
            num_attention_heads=24,
            num_hidden_layers=24,
            relative_attention=False,
            position_buckets=-1,
            max_relative_positions=-1,
            position_biased_input=True,
        ),
        "bloom": _type("BloomConfig", "alibi", hidden_size=64, n_head=8, n_layer=2),
        "mpt": _type(
            "MptConfig",
            "alibi",
            d_model=2048,
            n_heads=16,
            n_layers=24,
            max_seq_len=2048,
            attn_config={"alibi": True, "alibi_bias_max": 8},
        ),
        "falcon": _type(
            "FalconConfig",
            "rope",
            head_dim_from_width=True,
            max_position_embeddings=2048,
            hidden_size=4544,
            num_attention_heads=71,
            num_hidden_layers=32,
            rope_theta=10000.0,
            alibi=False,
        ),
        "gpt_neox": _type(
            "GPTNeoXConfig",
            "rope",
            max_position_embeddings=2048,
            hidden_size=6144,
            num_attention_heads=64,
            num_hidden_layers=44,
            rope_theta=10000.0,
            partial_rotary_factor=0.25,
        ),
        "gptj": _type("GPTJConfig", "rope", **_GPT_J),
        "codegen": _type("CodeGenConfig", "rope", **_GPT_J),
        "phi": _type(
            "PhiConfig",
            "rope",
            max_position_embeddings=2048,
            hidden_size=2048,
            num_attention_heads=32,
            num_hidden_layers=24,
            rope_theta=10000.0,
            partial_rotary_factor=0.5,
        ),
        "phi3": _llama_like("Phi3Config", 4096, 10000.0, "every", hidden_size=3072, partial_rotary_factor=1.0),
        "stablelm": _llama_like("StableLmConfig", 4096, 10000.0, hidden_size=2560, partial_rotary_factor=0.25),
        "llama": _llama_like("LlamaConfig", 2048, 10000.0),
        "llama4_text": _type(
            "Llama4TextConfig",
            "rope",
            "chunked",
            nope_interval=True,
            max_position_embeddings=131072,
            hidden_size=5120,
            num_attention_heads=40,
            num_hidden_layers=48,
            rope_theta=500000.0,
            no_rope_layer_interval=4,
            attention_chunk_size=8192,
        ),
        "mistral": _llama_like("MistralConfig", 131072, 10000.0, "every", sliding_window=4096),
        "mixtral": _llama_like("MixtralConfig", 131072, 1000000.0, "every"),
        "qwen2": _llama_like("Qwen2Config", 32768, 10000.0, "from_max_window", max_window_layers=28, **_QWEN_WINDOW),
        "qwen3": _llama_like(
            "Qwen3Config", 32768, 10000.0, "from_max_window", head_dim=128, max_window_layers=28, **_QWEN_WINDOW
        ),
        "qwen2_vl_text": _QWEN_VL,
        # Qwen2.5-VL's text config has Qwen2-VL's defaults
        "qwen2_5_vl_text": replace(_QWEN_VL, config_class="Qwen2_5_VLTextConfig"),
        "gemma": _llama_like(
            "GemmaConfig", 8192, 10000.0, hidden_size=3072, num_attention_heads=16, num_hidden_layers=28, head_dim=256
        ),
        "gemma2": _llama_like(
            "Gemma2Config",
            8192,
            10000.0,
            "alternate",
            hidden_size=2304,
            num_attention_heads=8,
            num_hidden_layers=26,
            head_dim=256,
            sliding_window=4096,
        ),
        "gemma3_text": _llama_like(
            "Gemma3TextConfig",
            131072,
            1000000.0,
            "pattern",
            hidden_size=2304,
            num_attention_heads=8,
            num_hidden_layers=26,
            head_dim=256,
            sliding_window=4096,
            sliding_window_pattern=6,
            rope_local_base_freq=10000.0,
        ),
        "deepseek_v2": _llama_like("DeepseekV2Config", 2048, 10000.0, qk_rope_head_dim=64),
        "deepseek_v3": _llama_like(
            "DeepseekV3Config",
            4096,
            10000.0,
            hidden_size=7168,
            num_attention_heads=128,
            num_hidden_layers=61,
            qk_rope_head_dim=64,
        ),
        "gpt_oss": _llama_like(
            "GptOssConfig",
            131072,
            150000.0,
            "alternate",
            hidden_size=2880,
            num_attention_heads=64,
            num_hidden_layers=36,
            head_dim=64,
            sliding_window=128,
            rope_scaling={
                "rope_type": "yarn",
                "factor": 32.0,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "truncate": False,
                "original_max_position_embeddings": 4096,
            },
        ),
        "olmo": _llama_like("OlmoConfig", 2048, 10000.0),
        "olmo2": _llama_like("Olmo2Config", 2048, 10000.0),
    }
)

#: a multimodal model's outer model_type -> its language model's, read from text_config (or, as
#: Qwen2-VL's released file has them, from the top level)
TEXT_TYPES = MappingProxyType(
    {
        "llama4": "llama4_text",
        "gemma3": "gemma3_text",
        "qwen2_vl": "qwen2_vl_text",
        "qwen2_5_vl": "qwen2_5_vl_text",
    }
)

#: the spellings of one quantity: a default is filled in only when the file has none of them
SPELLINGS = MappingProxyType(
    {
        "max_position_embeddings": ("max_position_embeddings", "n_positions", "max_seq_len"),
        "n_positions": ("n_positions", "max_position_embeddings"),
        "max_seq_len": ("max_seq_len", "max_position_embeddings"),
        "hidden_size": ("hidden_size", "n_embd", "d_model"),
        "n_embd": ("n_embd", "hidden_size"),
        "d_model": ("d_model", "hidden_size"),
        "num_attention_heads": ("num_attention_heads", "n_head", "n_heads", "num_heads"),
        "n_head": ("n_head", "num_attention_heads"),
        "n_heads": ("n_heads", "num_attention_heads"),
        "num_heads": ("num_heads", "num_attention_heads"),
        "num_hidden_layers": ("num_hidden_layers", "n_layer", "n_layers", "num_layers"),
        "n_layer": ("n_layer", "num_hidden_layers"),
        "n_layers": ("n_layers", "num_hidden_layers"),
        "num_layers": ("num_layers", "num_hidden_layers"),
        "rope_theta": ("rope_theta", "rotary_emb_base"),
        "partial_rotary_factor": ("partial_rotary_factor", "rotary_pct"),
        "rope_local_base_freq": ("rope_local_base_freq",),
    }
)

#: what an unknown model type is read with (said in a note): no defaults filled in, its method told
#: from the keys it has, a sliding_window (if any) in every layer
UNKNOWN = _type("(unknown)", "", "every")


def text_type(model_type: str) -> str:
    """The model type whose config class reads the language model's keys."""
    name = str(model_type or "").lower()
    return TEXT_TYPES.get(name, name)


def entry(model_type: str) -> ModelType | None:
    """The table's entry for a model type (a multimodal one's language model), or None."""
    return MODEL_TYPES.get(text_type(model_type))


def _rope_dict(config: dict) -> dict | None:
    # transformers reads rope_scaling first, then rope_parameters (its newer name)
    for key in ("rope_scaling", "rope_parameters"):
        if isinstance(config.get(key), dict) and config[key]:
            return config[key]
    return None


def _has(config: dict, key: str) -> bool:
    """Whether the file gives ``key`` in any of its spellings (rope_parameters included). A null is no
    value, and the default applies, except for sliding_window, where transformers keeps the null
    (Mistral 7B v0.3's "sliding_window": null: no window)."""
    if key == "sliding_window" and key in config:
        return True
    if any(config.get(k) is not None for k in SPELLINGS.get(key, (key,))):
        return True
    rope = _rope_dict(config)
    if rope is None or key not in ("rope_theta", "partial_rotary_factor", "rope_local_base_freq"):
        return False
    if key == "rope_local_base_freq":
        return isinstance(rope.get("sliding_attention"), dict) and "rope_theta" in rope["sliding_attention"]
    inner = rope.get("full_attention", rope) if isinstance(rope.get("full_attention"), dict) else rope
    return key in inner


def resolve(config: dict) -> tuple[dict, list[str], ModelType]:
    """``config`` with its model type's defaults filled in: ``(filled, notes, entry)``.

    ``notes`` names every default taken ("rope_theta is not in the file: Gemma3TextConfig's
    default 1,000,000 applies"), and for a model type the table does not know, which reading was
    assumed. The file's own values are never changed.
    """
    model_type = str(config.get("model_type") or "").lower()
    found = entry(model_type)
    notes: list[str] = []
    if found is None:
        found = UNKNOWN
        # a stranger's text: quoted short
        said = f"model_type {model_type[:60]!r}" if model_type else "the config has no model_type, so it"
        notes.append(
            f"{said} is not in this lesson's table (transformers {TRANSFORMERS_VERSION}'s config classes): read "
            "with no defaults filled in (a RoPE model without rope_theta gets 10,000, transformers' usual base), "
            "head_dim = hidden_size / num_attention_heads unless given, a sliding_window (if any) in every "
            "layer, and no NoPE layers"
        )
    filled = dict(config)
    for key, value in found.defaults.items():
        if _has(config, key):
            continue
        if key == "attn_config" and isinstance(config.get("attn_config"), dict):
            # MPT's attention config: the keys it leaves out take MptAttentionConfig's defaults
            filled["attn_config"] = {**value, **config["attn_config"]}
            continue
        if key == "rope_scaling" and _rope_dict(config) is not None:
            continue
        if key in ("rope_theta", "partial_rotary_factor", "rope_scaling", "rope_local_base_freq") and (
            found.method != "rope" or config.get("alibi") is True
        ):
            continue  # a RoPE default means nothing to a model without RoPE (Falcon with alibi)
        filled[key] = value
        if key in _WINDOW_KEYS and found.layers == "from_max_window" and not filled.get("use_sliding_window"):
            continue  # Qwen's window keys change nothing while use_sliding_window is false
        if key == "partial_rotary_factor" and value == 1.0:
            continue  # every dim rotates, as when the key is absent
        notes.append(f"{key} is not in the file: {found.config_class}'s default {_said(value)} applies")
    return filled, notes, found


_WINDOW_KEYS = ("sliding_window", "use_sliding_window", "max_window_layers")


def _said(value) -> str:
    if isinstance(value, bool) or isinstance(value, dict):
        return str(value).lower() if isinstance(value, bool) else str(value)
    if isinstance(value, float) and value.is_integer():
        return f"{int(value):,}"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:g}" if isinstance(value, float) else repr(value)


def layer_attention(found: ModelType, config: dict, layers: int) -> list[str] | None:
    """Each layer's attention, "full", "sliding" or "chunked", as the model type reads ``config``
    (already resolved) when it has no layer_types; None when every layer sees everything."""
    window = config.get("sliding_window")
    rule = found.layers
    if rule == "from_max_window":
        # Qwen2 and Qwen3 ignore sliding_window unless use_sliding_window is true
        if not config.get("use_sliding_window") or window is None:
            return None
        start = config.get("max_window_layers", layers)
        return ["sliding" if i >= start else "full" for i in range(layers)]
    if rule == "chunked":
        return None  # decided with the NoPE layers (nope_layers)
    if window is None or rule == "full":
        return None
    if rule == "every":
        return ["sliding"] * layers
    if rule == "alternate":
        return ["sliding" if i % 2 == 0 else "full" for i in range(layers)]
    pattern = config.get("sliding_window_pattern")
    return ["full" if (i + 1) % pattern == 0 else "sliding" for i in range(layers)]
