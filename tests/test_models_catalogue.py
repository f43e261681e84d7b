"""The real-models lesson's catalogue and config reader: every entry names its source, its
numbers agree with posenc and with the formulas written out here, and every bad config
gets a message naming its key."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

import posenc
from posenc_lab.lessons.models import measure
from posenc_lab.lessons.models.catalogue import MODELS

TWO_PI = 2 * math.pi
#: the models issue 38 asks for, by catalogue key
REQUIRED = {
    "gpt2", "bert", "t5", "deberta-v3", "bloom", "mpt", "gpt-neox", "phi-2", "llama-2", "code-llama",
    "llama-3.1", "llama-3.2", "llama-4", "mistral", "qwen2.5", "qwen2-vl", "deepseek-v3", "phi-3.5",
    "gemma-3", "gpt-oss",
}  # fmt: skip


def out(key: str, length: int | None = None) -> dict:
    return measure.positions(MODELS[key]["config"], length)


def inv_freq(key: str) -> np.ndarray:
    return out(key)["inv_freq"]


# the catalogue


def test_the_catalogue_holds_every_model_the_issue_names():
    assert REQUIRED <= set(MODELS)


@pytest.mark.parametrize("key", list(MODELS))
def test_each_entry_names_its_source_and_where_it_was_read(key):
    entry = MODELS[key]
    # "owner/name, config.json": the Hugging Face repository and the file
    assert re.match(r"[\w.-]+/[\w.-]+, config\.json", entry["source"]), entry["source"]
    assert len(entry["read_in"]) > 10 and entry["name"]
    # only position keys are stored, as the reader would keep them
    assert set(entry["config"]) <= set(measure.POSITION_KEYS)


@pytest.mark.parametrize("key", list(MODELS))
def test_each_entry_reads_back_through_the_json_reader(key):
    config, _ = measure.parse_config(json.dumps(MODELS[key]["config"]))
    assert config == MODELS[key]["config"]


# RoPE models: measure's frequencies are posenc's, for the config's values written out here

#: key -> (rotated dims, rope_theta, rope_scaling as transformers reads it, seq_len)
ROPE_CASES = {
    "gpt-neox": (24, 10000.0, None, None),  # 96-wide heads, rotary_pct 0.25
    "phi-2": (32, 10000.0, None, None),  # 80-wide heads, partial_rotary_factor 0.4
    "llama-2": (128, 10000.0, None, None),
    "code-llama": (128, 1e6, None, None),
    "mistral": (128, 10000.0, None, None),
    "qwen2-vl": (128, 1e6, None, None),
    "llama-3.1": (
        128,
        500000.0,
        {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        None,
    ),
    "llama-3.2": (
        64,
        500000.0,
        {
            "rope_type": "llama3",
            "factor": 32.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        None,
    ),
    "qwen2.5": (128, 1e6, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}, None),
    "deepseek-v3": (
        64,
        10000.0,
        {
            "rope_type": "yarn",
            "factor": 40,
            "beta_fast": 32,
            "beta_slow": 1,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 4096,
        },
        None,
    ),
    "gemma-3": (128, 1e6, {"rope_type": "linear", "factor": 8.0}, None),
    "gpt-oss": (
        64,
        150000.0,
        {
            "rope_type": "yarn",
            "factor": 32.0,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "truncate": False,
            "original_max_position_embeddings": 4096,
        },
        None,
    ),
}


@pytest.mark.parametrize("key", list(ROPE_CASES))
def test_rope_frequencies_are_posencs_for_the_configs_values(key):
    dims, base, scaling, seq = ROPE_CASES[key]
    expected, factor = posenc.rope_inv_freq(dims, base, scaling, seq)
    np.testing.assert_array_equal(inv_freq(key), expected)
    assert out(key)["attention_factor"] == factor


def test_partial_rotary_spreads_the_frequencies_over_the_rotated_dims_only():
    # Phi-2: 80-wide heads, 32 rotated dims, theta_i = 10000^(-2i/32)
    np.testing.assert_allclose(inv_freq("phi-2"), 10000.0 ** (-np.arange(0, 32, 2) / 32), rtol=1e-15)
    assert (out("phi-2")["rotary_dim"], out("phi-2")["head_dim"]) == (32, 80)
    assert (out("gpt-neox")["rotary_dim"], out("gpt-neox")["head_dim"]) == (24, 96)


def test_llama31_keeps_the_fast_pairs_and_divides_the_slow_ones_by_8():
    o = out("llama-3.1")
    lam = TWO_PI * 500000.0 ** (np.arange(0, 128, 2) / 128)  # the trained wavelengths
    np.testing.assert_allclose(o["wavelength"], lam, rtol=1e-13)
    kept, slow = lam < 8192 / 4, lam > 8192 / 1
    assert (kept.sum(), slow.sum()) == (29, 29)
    np.testing.assert_array_equal(o["ratio"][kept], 1.0)
    np.testing.assert_allclose(o["ratio"][slow], 1 / 8, rtol=1e-15)
    # the 6 pairs between are blended: s = (8192 / lam - 1) / (4 - 1)
    mid = ~kept & ~slow
    s = (8192 / lam[mid] - 1) / 3
    np.testing.assert_allclose(o["ratio"][mid], (1 - s) / 8 + s, rtol=1e-12)
    assert int(np.sum(o["wavelength"] <= o["train_len"])) == 35
    assert (o["train_len"], o["extended_len"], o["attention_factor"]) == (8192, 131072, 1.0)


def test_llama4_scout_has_no_middle_band_and_drops_rope_every_fourth_layer():
    # low_freq_factor == high_freq_factor == 1: kept up to 8,192 tokens, divided by 16 beyond
    o = out("llama-4")
    lam = TWO_PI * 500000.0 ** (np.arange(0, 128, 2) / 128)
    np.testing.assert_allclose(o["ratio"], np.where(lam > 8192, 1 / 16, 1.0), rtol=1e-15)
    assert o["nope_layers"] == list(range(3, 48, 4))
    assert o["extended_len"] == 10485760


def test_yarn_attention_factors_follow_the_paper_and_deepseeks_mscale():
    assert out("qwen2.5")["attention_factor"] == pytest.approx(0.1 * math.log(4) + 1)
    assert out("gpt-oss")["attention_factor"] == pytest.approx(0.1 * math.log(32) + 1)
    # DeepSeek-V3: mscale / mscale_all_dim = 1, and its attention scales the softmax by mscale(40)^2
    assert out("deepseek-v3")["attention_factor"] == 1.0
    assert out("deepseek-v3")["softmax_scale_factor"] == pytest.approx((0.1 * math.log(40) + 1) ** 2)
    assert (out("qwen2.5")["train_len"], out("qwen2.5")["extended_len"]) == (32768, 131072)
    assert (out("deepseek-v3")["train_len"], out("deepseek-v3")["extended_len"]) == (4096, 163840)


def test_phi35_longrope_switches_factors_past_its_training_length():
    rs = MODELS["phi-3.5"]["config"]["rope_scaling"]
    base = 10000.0 ** (np.arange(0, 96, 2) / 96)
    np.testing.assert_allclose(
        TWO_PI / out("phi-3.5", 131072)["scaled_wavelength"], 1 / (np.array(rs["long_factor"]) * base)
    )
    np.testing.assert_allclose(
        TWO_PI / out("phi-3.5", 4096)["scaled_wavelength"], 1 / (np.array(rs["short_factor"]) * base)
    )
    # factor 131072 / 4096 = 32: sqrt(1 + ln 32 / ln 4096)
    assert out("phi-3.5")["attention_factor"] == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))


def test_layers_windows_and_sections():
    mistral = out("mistral")
    assert (mistral["window"], mistral["sliding_layers"]) == (4096, 32)
    # one convention with the choices lesson's window view: (w - 1) x L + 1, following the masks
    assert (
        "Reach of the sliding layers alone, (window - 1) x layers + 1",
        "131,041 positions, the token's own included",
    ) in mistral["rows"]
    assert "window" not in out("mistral-v0.3") and out("mistral-v0.3")["base"] == 1e6
    assert out("gemma-2")["layer_kinds"] == ["sliding", "full"] * 21
    gemma = out("gemma-3")
    assert (gemma["layer_kinds"].count("full"), gemma["layer_kinds"].count("sliding")) == (10, 52)
    assert gemma["layer_kinds"][5] == "full" and gemma["local_base"] == 10000.0
    assert out("gpt-oss")["layer_kinds"] == ["sliding", "full"] * 12
    assert out("qwen2-vl")["mrope_section"] == (16, 24, 24)


# the other methods


def test_alibi_slopes_are_press_et_als():
    # BLOOM's 112 heads: the 64 of a power of two, then every other slope of 128
    bloom = out("bloom")["slopes"]
    np.testing.assert_array_equal(bloom, posenc.alibi_slopes(112))
    assert bloom[0] == pytest.approx(2 ** (-8 / 64)) and bloom[64] == pytest.approx(2 ** (-8 / 128))
    np.testing.assert_allclose(out("mpt")["slopes"], 2.0 ** (-8 * np.arange(1, 33) / 32))


def test_t5_deberta_and_learned_tables():
    t5 = out("t5")
    lo, hi = posenc.relative.t5_bucket_ranges(32, 128, bidirectional=True)
    np.testing.assert_array_equal(t5["bucket_lo"], lo)
    np.testing.assert_array_equal(t5["bucket_hi"], hi)
    deberta = out("deberta-v3")
    assert deberta["span"] == 256
    np.testing.assert_array_equal(deberta["buckets"][:129], np.arange(129))  # exact up to 256 / 2
    np.testing.assert_array_equal(
        deberta["buckets"], posenc.deberta_log_bucket(np.arange(513), bucket_size=256, max_position=512)
    )
    assert out("gpt2")["parameters"] == 1024 * 768
    assert out("bert")["parameters"] == 512 * 768


# the reader: every bad shape gets a message naming its key

LLAMA = MODELS["llama-3.1"]["config"]


def bad(changes: dict | None = None, drop: tuple = (), scaling: dict | None = None) -> str:
    config = {k: v for k, v in LLAMA.items() if k not in drop}
    config.update(changes or {})
    if scaling is not None:
        config["rope_scaling"] = {**LLAMA["rope_scaling"], **scaling}
    return json.dumps(config)


CASES = [
    pytest.param("x" * (measure.MAX_BYTES + 1), r"config\.json: 256 kB is too big", id="too-big"),
    pytest.param('{"rope_theta": 10000,', r"not valid JSON: .* line 1, column", id="malformed"),
    pytest.param('{"rope_theta": NaN}', "NaN", id="nan"),
    pytest.param("[1, 2]", r"JSON object.*array", id="not-an-object"),
    pytest.param("", "empty", id="empty"),
    pytest.param('{"vocab_size": 32000}', "none of the position keys", id="no-position-keys"),
    pytest.param(
        bad(scaling={"rope_type": "magic"}), r"rope_type'\]: unknown rope_type \"magic\"; valid: default, linear",
        id="unknown-rope_type",
    ),
    pytest.param(
        bad({"model_type": "my_llama"}, drop=("max_position_embeddings",)),
        "max_position_embeddings is missing",
        id="missing-max-pos",
    ),
    pytest.param(
        bad({"model_type": "my_llama"}, drop=("hidden_size",)),
        "hidden_size or n_embd or d_model is missing",
        id="missing-width",
    ),
    pytest.param(
        bad(scaling={"high_freq_factor": None}), "high_freq_factor", id="missing-high_freq_factor"
    ),
    pytest.param(
        bad({"max_position_embeddings": 4096}),
        r"original_max_position_embeddings \(8,192\) contradicts max_position_embeddings \(4,096\)",
        id="original-over-max",
    ),
    pytest.param(bad(scaling={"factor": 0}), r"rope_scaling\['factor'\] must be a number > 0", id="factor-zero"),
    pytest.param(bad(scaling={"factor": -2.0}), r"rope_scaling\['factor'\]", id="factor-negative"),
    pytest.param(bad(scaling={"type": "yarn"}), "'rope_type' .* contradicts 'type'", id="type-contradicts"),
    pytest.param(
        bad({"hidden_size": 4001}), r"hidden_size \(4001\) is not a multiple of num_attention_heads", id="width-heads"
    ),
    pytest.param(
        bad({"layer_types": ["full_attention"] * 3}), "layer_types has 3 entries, but num_hidden_layers is 32",
        id="layer-types",
    ),
    pytest.param(
        bad({"rotary_pct": 0.25, "partial_rotary_factor": 0.5}), "rotary_pct contradicts partial_rotary_factor",
        id="rotary-pct",
    ),
    pytest.param(bad({"rope_theta": True}), "rope_theta must be a number", id="theta-bool"),
    pytest.param(bad({"rope_theta": 1e400}), "Infinity is not a number JSON allows", id="theta-infinite"),
    pytest.param(bad({"rope_theta": 1.0}), "rope_theta must be > 1", id="theta-one"),
    pytest.param(
        bad({"rope_theta": 1e308}), r"rope_theta is too large: it must be > 1 and at most 1e\+30, got 1e\+308",
        id="theta-too-large",
    ),
    pytest.param(
        bad({"rope_theta": 10**400}), r"rope_theta is too large: .* got a 401-digit number", id="theta-huge-int"
    ),
    pytest.param(bad({"num_hidden_layers": 10**30}), "num_hidden_layers must be 1 to 10,000", id="layers-huge"),
    pytest.param(
        json.dumps({**MODELS["qwen2-vl"]["config"], "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 25]}}),
        r"mrope_section'\] \[16, 24, 25\] sums to 65, but the head has 64",
        id="mrope-sum",
    ),
    pytest.param(
        json.dumps({"n_positions": 1024, "n_ctx": 512, "n_embd": 768}), "n_ctx .* contradicts n_positions", id="n-ctx"
    ),
    pytest.param(
        json.dumps({"model_type": "my_bloom", "alibi": True, "hidden_size": 64}),
        "num_attention_heads or n_head",
        id="alibi-heads",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), CASES)
def test_each_bad_config_is_refused_with_a_message_naming_the_key(text, message):
    with pytest.raises(ValueError, match=message):
        measure.parse_config(text)


def test_only_the_position_keys_are_read_and_text_config_is_used():
    text = json.dumps({"architectures": ["X"], "vocab_size": 5, "text_config": dict(MODELS["gemma-3"]["config"])})
    config, notes = measure.parse_config(text)
    assert config == MODELS["gemma-3"]["config"]
    assert "read the language model's keys from text_config" in notes
    assert any("ignored 2 keys" in n for n in notes)


def test_a_config_without_rope_theta_gets_transformers_default_and_says_so():
    config, _ = measure.parse_config(json.dumps(MODELS["llama-2"]["config"]))
    o = measure.positions(config)
    assert o["base"] == 10000.0 and any("LlamaConfig's default 10,000" in n for n in o["notes"])


def test_a_head_dim_that_contradicts_the_width_is_used_with_a_note_saying_why():
    gemma = out("gemma-3")  # 5376 / 32 = 168, head_dim 128: transformers' Gemma3Attention uses 128
    assert gemma["head_dim"] == 128
    assert (
        "head_dim 128 is used, not hidden_size / num_attention_heads = 5376 / 32 = 168: transformers uses "
        "head_dim when the config gives it"
    ) in gemma["notes"]
    assert any("= 2880 / 64 = 45:" in n for n in out("gpt-oss")["notes"])
    # no note where they agree (Llama 3.2: 2048 / 32 = 64), nor for DeepSeek's separate rotary part
    for key in ("llama-3.2", "llama-4", "deepseek-v3", "llama-3.1"):
        assert not any("head_dim" in n for n in out(key)["notes"]), key
    uneven = measure.positions({**LLAMA, "hidden_size": 4001, "num_attention_heads": 32, "head_dim": 128})
    assert any("4001 / 32 = 125.03:" in n for n in uneven["notes"])


def test_deberta_measures_only_the_offsets_drawn_and_the_farthest_one():
    config = {
        "model_type": "deberta-v2",
        "relative_attention": True,
        "position_buckets": 256,
        "max_relative_positions": 49_999_999,
    }
    o = measure.positions(config)
    drawn = np.arange(measure.DEBERTA_OFFSETS_DRAWN + 1)
    np.testing.assert_array_equal(o["offsets"], drawn)
    np.testing.assert_array_equal(
        o["buckets"], posenc.deberta_log_bucket(drawn, bucket_size=256, max_position=49_999_999)
    )
    last = int(posenc.deberta_log_bucket(np.array([49_999_999]), bucket_size=256, max_position=49_999_999)[0])
    assert ("Offset max_relative_positions lands in bucket", f"{last}") in o["rows"]
    assert o["max_relative"] == 49_999_999
    assert any("offsets 0 to 2,000 of 0 to 49,999,999" in n for n in o["notes"])
