"""The real-models lesson reads a config.json as transformers' config class for its model_type does.

For every model type of ``model_types.MODEL_TYPES`` (at its class defaults and with a released
file's keys) and every catalogue entry, what ``measure.positions`` reads equals what
``transformers.AutoConfig.for_model(model_type, **config)`` holds: the base, the rotated dims,
head_dim, the longest position, the scaling dict, each layer's attention and the NoPE layers.
transformers (without torch) is a test requirement (requirements-dev.txt), pinned at
``model_types.TRANSFORMERS_VERSION``; the app never imports it.
"""

from __future__ import annotations

import copy
import json
import logging
import warnings

import pytest

from posenc_lab.lessons.models import measure, model_types
from posenc_lab.lessons.models.catalogue import MODELS

transformers = pytest.importorskip("transformers")

#: the model types whose config class is a multimodal one: compared with its text config
COMPOSITE = {"llama4", "gemma3", "qwen2_vl", "qwen2_5_vl"}
#: keys transformers keeps in its RoPE dict that posenc takes elsewhere (or not at all)
NOT_SCALING = {"rope_theta", "partial_rotary_factor", "type", "mrope_section", "mrope_interleaved"}


def _hf(model_type: str, config: dict):
    """transformers' reading of ``config`` (its text config for a multimodal type)."""
    # transformers writes into the dicts it is given (rope_type into rope_scaling): a copy
    kwargs = copy.deepcopy({k: v for k, v in config.items() if k != "model_type"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.disable(logging.WARNING)
        try:
            if model_type in COMPOSITE:
                return transformers.AutoConfig.for_model(model_type, text_config=kwargs).get_text_config()
            return transformers.AutoConfig.for_model(model_type, **kwargs)
        finally:
            logging.disable(logging.NOTSET)


def _hf_reading(hf, model_type: str) -> dict:
    """The quantities the lesson shows, read off transformers' config object."""
    found = model_types.entry(model_type)
    layers = hf.num_hidden_layers
    out = {"layers": layers}
    rope = getattr(hf, "rope_parameters", None)
    if found.method == "rope" and not getattr(hf, "alibi", False):
        local = None
        if isinstance(rope, dict) and "full_attention" in rope:
            rope, local = rope["full_attention"], rope["sliding_attention"]["rope_theta"]
        if model_type in ("gptj", "codegen"):
            # GPT-J's rotary embedding has a fixed base of 10,000 (no config key)
            rope = {"rope_theta": 10000.0, "rope_type": "default"}
        width, heads = hf.hidden_size, hf.num_attention_heads
        head_dim = getattr(hf, "qk_rope_head_dim", None) or getattr(hf, "head_dim", None) or width // heads
        if model_type == "falcon":
            head_dim = width // heads
        rotary = getattr(hf, "rotary_dim", None) or int(head_dim * rope.get("partial_rotary_factor", 1.0))
        scaling = {k: v for k, v in rope.items() if k not in NOT_SCALING}
        out.update(
            base=float(rope["rope_theta"]),
            head_dim=head_dim,
            rotary_dim=rotary - rotary % 2,
            max_pos=hf.max_position_embeddings,
            scaling=None if scaling == {"rope_type": "default"} else scaling,
            local_base=local,
        )
    elif found.method == "learned" or (found.method == "deberta" and not hf.relative_attention):
        out["max_pos"] = getattr(hf, "n_positions", None) or hf.max_position_embeddings
    elif found.method == "t5":
        out.update(buckets=hf.relative_attention_num_buckets, max_distance=hf.relative_attention_max_distance)
    types = getattr(hf, "layer_types", None)
    if types is None:
        window = getattr(hf, "sliding_window", None)
        every = found.layers == "every" and window is not None
        types = ["sliding_attention" if every else "full_attention"] * layers
    out["attention"] = [t.removesuffix("_attention") for t in types]
    flags = getattr(hf, "no_rope_layers", None)
    out["nope"] = [i for i, v in enumerate(flags) if not v] if flags is not None else []
    return out


def _lesson_reading(config: dict) -> dict:
    out = measure.positions(config)
    reading = {"layers": out.get("layers"), "attention": out.get("attention_kinds"), "nope": out.get("nope_layers", [])}
    if out["method"] == "rope":
        scaling = out["rope_scaling"]
        if scaling is not None:
            scaling = {k: v for k, v in scaling.items() if k != "partial_rotary_factor"}
            if scaling == {"rope_type": "default"}:
                scaling = None
        reading.update(
            base=out["base"],
            head_dim=out["head_dim"],
            rotary_dim=out["rotary_dim"],
            max_pos=out["max_pos"],
            scaling=scaling,
            local_base=out.get("local_base"),
        )
    elif out["method"] == "learned":
        reading["max_pos"] = out["max_pos"]
    elif out["method"] == "t5":
        reading.update(buckets=out["buckets"], max_distance=out["max_distance"])
    return reading


def _same(lesson: dict, hf: dict) -> None:
    for key, want in hf.items():
        got = lesson.get(key)
        if key == "scaling" and want is not None and got is not None:
            # posenc also names the length YaRN / dynamic / LongRoPE scale from, where transformers
            # takes max_position_embeddings at run time: the same number, written into the dict
            extra = {k: v for k, v in got.items() if k not in want}
            assert set(extra) <= {"original_max_position_embeddings", "max_position_embeddings"}, extra
            got = {k: v for k, v in got.items() if k in want}
        assert got == want, f"{key}: the lesson reads {got!r}, transformers {want!r}"


#: a plausible released file for each model type: the keys that decide positions, as released
RELEASED = {
    "gpt2": {"n_positions": 1024, "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12},
    "bert": {"max_position_embeddings": 512, "hidden_size": 768, "num_attention_heads": 12},
    "roberta": {"max_position_embeddings": 514, "hidden_size": 768, "num_attention_heads": 12},
    "opt": {"max_position_embeddings": 2048, "hidden_size": 2048, "num_attention_heads": 32, "num_hidden_layers": 24},
    "t5": {"d_model": 768, "num_heads": 12, "num_layers": 12, "relative_attention_num_buckets": 32},
    "mt5": {"d_model": 768, "num_heads": 12, "num_layers": 12},
    "umt5": {"d_model": 768, "num_heads": 12, "num_layers": 12},
    "deberta-v2": {"relative_attention": True, "position_buckets": 256, "position_biased_input": False},
    "bloom": {"hidden_size": 1024, "n_head": 16, "n_layer": 24},
    "mpt": {"d_model": 4096, "n_heads": 32, "n_layers": 32, "attn_config": {"alibi": True}},
    "falcon": {"hidden_size": 4544, "num_attention_heads": 71, "num_hidden_layers": 32, "alibi": False},
    "gpt_neox": {"hidden_size": 2048, "num_attention_heads": 16, "rotary_pct": 0.25, "rotary_emb_base": 10000},
    "gptj": {"n_embd": 4096, "n_head": 16, "n_layer": 28, "n_positions": 2048, "rotary_dim": 64},
    "codegen": {"n_embd": 1024, "n_head": 16, "n_layer": 20, "n_positions": 2048, "rotary_dim": 32},
    "phi": {"hidden_size": 2560, "num_attention_heads": 32, "partial_rotary_factor": 0.4},
    "phi3": {"hidden_size": 3072, "num_attention_heads": 32, "sliding_window": 2047},
    "stablelm": {"hidden_size": 2560, "num_attention_heads": 32, "rope_theta": 10000},
    "llama": {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096},
    "llama4_text": {"no_rope_layers": [], "rope_theta": 500000.0, "num_hidden_layers": 48},
    "mistral": {"max_position_embeddings": 32768, "sliding_window": 4096, "rope_theta": 10000.0},
    "mixtral": {"max_position_embeddings": 32768, "rope_theta": 1000000.0, "sliding_window": None},
    "qwen2": {"sliding_window": 131072, "use_sliding_window": False, "max_window_layers": 28},
    "qwen3": {"sliding_window": 4096, "use_sliding_window": True, "max_window_layers": 20, "num_hidden_layers": 28},
    "qwen2_vl_text": {
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "num_hidden_layers": 28,
    },  # fmt: skip
    "qwen2_5_vl_text": {
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "num_hidden_layers": 28,
    },  # fmt: skip
    "gemma": {"hidden_size": 3072, "num_attention_heads": 16, "head_dim": 256},
    "gemma2": {"hidden_size": 3584, "num_attention_heads": 16, "num_hidden_layers": 42, "sliding_window": 4096},
    "gemma3_text": {
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
        "hidden_size": 5376,
        "head_dim": 128,
        "num_attention_heads": 32,
        "num_hidden_layers": 62,
    },  # fmt: skip
    "deepseek_v2": {
        "qk_rope_head_dim": 64,
        "max_position_embeddings": 163840,
        "rope_scaling": {
            "type": "yarn",
            "factor": 40,
            "original_max_position_embeddings": 4096,
            "beta_fast": 32,
            "beta_slow": 1,
            "mscale": 0.707,
            "mscale_all_dim": 0.707,
        },
    },  # fmt: skip
    "deepseek_v3": {"max_position_embeddings": 163840},
    # a null rope_scaling is no value: GptOssConfig's YaRN default applies
    "gpt_oss": {"num_hidden_layers": 24, "rope_scaling": None},
    "olmo": {"max_position_embeddings": 4096},
    "olmo2": {"max_position_embeddings": 4096, "rope_theta": 500000},
}


def test_every_model_type_has_a_released_example():
    assert set(RELEASED) == set(model_types.MODEL_TYPES)
    assert model_types.TRANSFORMERS_VERSION == transformers.__version__


@pytest.mark.parametrize("model_type", list(model_types.MODEL_TYPES))
def test_defaults_are_the_config_class_defaults(model_type):
    """A file with its model_type alone reads as the config class's defaults."""
    config = {"model_type": model_type}
    _same(_lesson_reading(config), _hf_reading(_hf(model_type, config), model_type))


@pytest.mark.parametrize("model_type", list(RELEASED))
def test_released_keys_read_as_transformers_does(model_type):
    config = {"model_type": model_type, **RELEASED[model_type]}
    _same(_lesson_reading(config), _hf_reading(_hf(model_type, config), model_type))


@pytest.mark.parametrize("key", list(MODELS))
def test_catalogue_reads_as_transformers_does(key):
    config = MODELS[key]["config"]
    model_type = config["model_type"]
    _same(_lesson_reading(config), _hf_reading(_hf(model_type, config), model_type_of(model_type)))


def model_type_of(name: str) -> str:
    return model_types.text_type(name) if name not in COMPOSITE else name


def test_llama4_scout_empty_no_rope_layers_is_every_fourth_layer():
    """Llama 4 Scout's released text_config has "no_rope_layers": [], which Llama4TextConfig reads as
    one NoPE layer in every 4 (layers 3, 7, ..., 47)."""
    config = {"model_type": "llama4_text", "num_hidden_layers": 48, "no_rope_layers": [], "rope_theta": 500000.0}
    out = measure.positions(config)
    assert out["nope_layers"] == list(range(3, 48, 4))
    assert out["attention_kinds"].count("chunked") == 36
    hf = _hf("llama4_text", config)
    assert out["nope_layers"] == [i for i, v in enumerate(hf.no_rope_layers) if v == 0]


def test_gemma3_text_config_without_theta_or_max_positions():
    """Gemma 3's released text_config has neither rope_theta nor max_position_embeddings:
    Gemma3TextConfig's 1,000,000 and 131,072 apply, and the local base 10,000."""
    # the catalogue's entry holds the released text_config's position keys, as released
    text = {"model_type": "gemma3", "text_config": MODELS["gemma-3"]["config"]}
    config, _ = measure.parse_config(json.dumps(text))
    out = measure.positions(config)
    assert out["base"] == 1_000_000.0 and out["max_pos"] == 131_072 and out["local_base"] == 10_000.0
    assert out["rotary_dim"] == 128 and out["attention_kinds"].count("full") == 10
    notes = " ".join(out["notes"])
    assert "rope_theta is not in the file: Gemma3TextConfig's default 1,000,000 applies" in notes
    assert "max_position_embeddings is missing" not in notes
    _same(_lesson_reading(config), _hf_reading(_hf("gemma3_text", config), "gemma3_text"))


@pytest.mark.parametrize(
    ("model_type", "sliding"),
    [("mistral", 32), ("phi3", 32), ("qwen2", 0), ("gemma2", 16), ("gpt_oss", 16), ("gemma3_text", 27)],
)
def test_sliding_window_without_layer_types_follows_the_model_type(model_type, sliding):
    """sliding_window with no layer_types / sliding_window_pattern slides where the model type says."""
    config = {"model_type": model_type, "num_hidden_layers": 32, "sliding_window": 4096}
    out = measure.positions(config)
    assert out["attention_kinds"].count("sliding") == sliding
    _same(_lesson_reading(config), _hf_reading(_hf(model_type, config), model_type))


def test_unknown_model_type_says_what_was_assumed():
    out = measure.positions({"model_type": "my_llama", "hidden_size": 1024, "num_attention_heads": 8,
                             "max_position_embeddings": 4096, "rope_theta": 10000.0})  # fmt: skip
    assert "'my_llama' is not in this lesson's table" in out["assumed"]
    assert "head_dim = hidden_size / num_attention_heads" in out["assumed"]
    assert out["base"] == 10000.0 and out["head_dim"] == 128


def test_falcon_with_alibi_reads_as_alibi_without_rope_defaults():
    config = {"model_type": "falcon", "hidden_size": 8192, "num_attention_heads": 128, "alibi": True}
    out = measure.positions(config)
    assert out["method"] == "alibi" and out["heads"] == 128
    assert not any("rope" in note for note in out["notes"])
    assert _hf("falcon", config).alibi is True


def test_opt_and_roberta_tables_have_rows_before_position_0():
    """OPT's table has max_position_embeddings + 2 rows; RoBERTa's 514 rows give 512 positions a vector."""
    opt = measure.positions({"model_type": "opt", "max_position_embeddings": 2048, "hidden_size": 768})
    assert (opt["table_rows"], opt["readable"]) == (2050, 2048)
    roberta = measure.positions({"model_type": "roberta", "max_position_embeddings": 514, "hidden_size": 768})
    assert (roberta["table_rows"], roberta["readable"]) == (514, 512)
    gpt2 = measure.positions({"model_type": "gpt2"})
    assert (gpt2["table_rows"], gpt2["readable"]) == (1024, 1024)


#: configs written as transformers v5 saves them: the base and the scaling inside rope_parameters
V5_FORMAT = [
    pytest.param(
        "llama",
        {"rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
                             "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
         "max_position_embeddings": 131072},
        id="llama3-in-rope_parameters",
    ),
    pytest.param(
        "gemma3_text",
        {"rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                             "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}},
         "num_hidden_layers": 62, "sliding_window": 1024},
        id="gemma3-nested",
    ),
    pytest.param(
        "phi",
        {"rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.4},
         "hidden_size": 2560, "num_attention_heads": 32},
        id="phi-partial-inside",
    ),
    pytest.param(
        "qwen2",
        {"rope_theta": 10000.0, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "rope_theta": 1000000.0,
                                                 "original_max_position_embeddings": 32768}},
        id="theta-inside-wins",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("model_type", "config"), V5_FORMAT)
def test_rope_parameters_read_as_transformers_does(model_type, config):
    config = {"model_type": model_type, **config}
    _same(_lesson_reading(config), _hf_reading(_hf(model_type, config), model_type))
