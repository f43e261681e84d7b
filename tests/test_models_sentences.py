"""Every sentence the real-models lesson shows is true of every model it is shown for.

The notices and the catalogue's rows depend on the model and on the length slider (k = 9 to 24):
each is checked for every catalogue entry at both ends of the slider, against numbers measured
here, not against the sentence's own arithmetic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import posenc
from posenc_lab.lessons.choices.measure import window_reach as window_reach_by_masks
from posenc_lab.lessons.models import compute, lesson, measure
from posenc_lab.lessons.models.catalogue import MODELS

#: the slider's ends: L = 2^9 and 2^24
ENDS = (2**9, 2**24)
CASES = [pytest.param(key, length, id=f"{key}-L{length}") for key in MODELS for length in ENDS]


def notice(key: str, length: int) -> str:
    return lesson._model_notice([measure.positions(MODELS[key]["config"], length)], [MODELS[key]["name"]], length)


def rows(key: str, length: int | None = None) -> dict:
    return dict(measure.positions(MODELS[key]["config"], length)["rows"])


def catalogue() -> dict:
    return {row["Model"]: row for row in compute.catalogue_rows()}


@pytest.mark.parametrize(("key", "length"), CASES)
def test_no_sentence_calls_max_position_embeddings_a_training_window(key, length):
    """Erratum 2: max_position_embeddings is the longest position accepted, not a training length."""
    text = notice(key, length)
    assert "training window" not in text and "training length" not in text
    out = measure.positions(MODELS[key]["config"], length)
    if out["method"] != "rope":
        return
    if out["train_kind"] == "max":
        assert f"max_position_embeddings ({out['max_pos']:,}, the longest position it accepts)" in text
    assert not any("Training window" in label for label in dict(out["rows"]))


def test_a_published_training_length_is_given_with_its_source():
    assert "8,192" in lesson.source_caption("mistral") and "Mistral 7B paper" in lesson.source_caption("mistral")
    assert "32,768" in lesson.source_caption("gemma-3") and "technical report" in lesson.source_caption("gemma-3")


@pytest.mark.parametrize(("key", "length"), CASES)
def test_the_scaling_sentence_is_said_only_of_a_scaled_model(key, length):
    """Erratum 6: no "a scaling stretches them" for Llama 2, Mistral, GPT-NeoX and the others without one;
    a scaled model's sentence gives the measured count of pairs it changes."""
    out = measure.positions(MODELS[key]["config"], length)
    if out["method"] != "rope":
        return
    text = notice(key, length)
    n = out["pairs"].size
    kind = (out["rope_scaling"] or {}).get("rope_type", "default")
    assert "stretches them" not in text
    if kind == "default":
        assert "The config has no rope_scaling" in text and "rope_scaling changes" not in text
    else:
        changed = int(np.sum(np.abs(out["inv_freq"] - _plain_inv(out)) > 1e-12 * _plain_inv(out)))
        assert f"its {kind} rope_scaling changes the frequency of {changed} of {n} pairs" in text
    in_length = int(np.sum(2 * np.pi / out["inv_freq"] <= length))
    assert f"At L = {length:,}, {in_length} of {n} turn fully" in text


def _plain_inv(out: dict) -> np.ndarray:
    fraction = (out["rope_scaling"] or {}).get("partial_rotary_factor")
    scaling = {"rope_type": "default", "partial_rotary_factor": fraction} if fraction else None
    return posenc.rope_inv_freq(out["head_dim"], out["base"], scaling)[0]


def test_llama3_context_is_max_position_embeddings_not_factor_times_original():
    """Erratum 1: Llama 3.2 1B's factor 32 over 8,192 is not a 262,144-token window."""
    for key, entry in MODELS.items():
        out = measure.positions(entry["config"])
        if out["method"] == "rope" and (out["rope_scaling"] or {}).get("rope_type") == "llama3":
            assert out["extended_len"] == out["max_pos"], key
    assert rows("llama-3.2")["Extended window"] == "131,072"
    assert catalogue()["Llama 3.2 1B"]["Context"] == "8,192 -> 131,072"
    assert catalogue()["Llama 3.1 8B"]["Context"] == "8,192 -> 131,072"


def test_gemma3_context_is_its_max_position_embeddings():
    """Erratum 7: 16,384 (131,072 / 8) is not a context; the table gives 131,072."""
    assert catalogue()["Gemma 3 27B"]["Context"] == "131,072"
    for row in compute.catalogue_rows():
        assert "16,384" not in row["Context"] or row["Model"] == "Code Llama 7B"


@pytest.mark.parametrize("model_type", ["gptj", "codegen"])
def test_gpt_j_and_codegen_rotate_and_have_no_position_table(model_type):
    """Erratum 3: GPT-J rotates 64 of each head's 256 dims; it has no learned position table."""
    config = {"model_type": model_type, "n_embd": 4096, "n_head": 16, "n_layer": 28, "n_positions": 2048,
              "rotary_dim": 64}  # fmt: skip
    out = measure.positions(config)
    assert out["method"] == "rope" and (out["rotary_dim"], out["head_dim"]) == (64, 256)
    assert dict(out["rows"])["Rotated dims of a head"] == "64 of 256"
    assert not any("Learned" in label for label, _ in out["rows"])


def test_one_window_reach_across_the_app():
    """Erratum 8: the models lesson, its exercise and the choices lesson's window view give one reach."""
    from posenc_lab.lessons.models.exercises import EXERCISES
    from posenc_lab.ui.exercise_kinds import concrete

    by_masks = int(window_reach_by_masks(20, 4, 6)[-1])
    assert measure.window_reach(4, 6) == by_masks == 19
    assert measure.window_reach(4096, 32) == posenc.window_receptive_field(4096, 32) == 131_041
    assert rows("mistral")["Reach of the sliding layers alone, (window - 1) x layers + 1"].startswith("131,041 ")
    # as first written: Mistral 7B v0.1's window and layers (test_exercise_variants checks every variant)
    exercise = concrete(next(e for e in EXERCISES if e.key == "models_mistral_window"))
    right = [c.text for c in exercise.choices if c.right]
    assert right == ["131,041 tokens"]


@pytest.mark.parametrize("length", ENDS)
def test_deepseek_says_both_factors_and_what_each_multiplies(length):
    """Erratum 9: YaRN's attention factor (cos and sin) and DeepSeek's softmax scale, both."""
    text = notice("deepseek-v3", length)
    mscale = 0.1 * 1.0 * math.log(40) + 1.0
    assert "the attention factor, which multiplies cos and sin, is 1.000" in text
    assert f"multiplies its softmax scale (1/sqrt of the query-key head dim) by {mscale**2:.4f}" in text


@pytest.mark.parametrize("length", ENDS)
def test_phi35_counts_with_the_short_factors_it_runs_with(length):
    """Erratum 10: up to 4,096 tokens Phi-3.5 runs with short_factor (1.00-2.84), not plain RoPE."""
    config = MODELS["phi-3.5"]["config"]
    short = np.array(config["rope_scaling"]["short_factor"])
    plain = 2 * np.pi / (10000.0 ** -(np.arange(48) * 2 / 96))
    inside = int(np.sum(plain * short <= 4096))
    assert inside != int(np.sum(plain <= 4096))  # the two readings differ: the test tells them apart
    label = "Pairs that turn fully within original_max_position_embeddings (with short_factor, which LongRoPE uses"
    assert rows("phi-3.5", length)[label + " up to that length)"] == f"{inside} of 48"
    assert f"{inside} of 48 pairs turn fully within its original_max_position_embeddings (4,096" in notice(
        "phi-3.5", length
    )


@pytest.mark.parametrize("length", ENDS)
def test_catalogue_notice_says_pair_0_keeps_its_wavelength(length):
    """Erratum 12: a larger rope_theta stretches every wavelength but pair 0's (2π)."""
    out = measure.positions(MODELS["code-llama"]["config"], length)
    assert out["wavelength"][0] == pytest.approx(2 * np.pi)


def test_t5_says_where_its_last_bucket_starts():
    """Erratum 12: T5's last bucket each way starts at ±91 (32 buckets, max_distance 128), not at ±128."""
    buckets = posenc.t5_bucket(np.arange(0, 200), bidirectional=True, num_buckets=32, max_distance=128)
    start = int(np.argmax(buckets == buckets.max()))
    assert start == 91
    assert rows("t5")["Last bucket each way (every offset from here on)"] == "±91 (max_distance 128)"
    assert catalogue()["T5 base"]["Context"] == "no limit (one last bucket each way from ±91 on)"
    assert "every offset from ±91 on shares the last bucket" in notice("t5", 512)


def test_catalogue_sources_say_which_keys_are_defaults():
    """Erratum 13: Gemma 3's four keys and T5's max distance are defaults, not in the released files."""
    gemma = MODELS["gemma-3"]
    for key in ("rope_theta", "max_position_embeddings", "rope_local_base_freq", "sliding_window_pattern"):
        assert key not in gemma["config"] and key in gemma["read_in"]
    t5 = MODELS["t5"]
    assert (
        t5["config"]["relative_attention_num_buckets"] == 32 and "relative_attention_max_distance" not in t5["config"]
    )
    assert "file's relative_attention_num_buckets 32" in t5["read_in"]
    assert MODELS["llama-4"]["config"]["no_rope_layers"] == []
    v03 = measure.positions(MODELS["mistral-v0.3"]["config"])
    assert (v03["base"], v03.get("window")) == (1e6, None)
    gemma2 = measure.positions(MODELS["gemma-2"]["config"])
    assert gemma2["attention_kinds"] == ["sliding", "full"] * 21 and gemma2["window"] == 4096
