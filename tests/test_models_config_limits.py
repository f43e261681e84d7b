"""The "Your config" view against hostile configs: whatever a pasted config.json asks for,
one request costs at most ``measure.MEMORY_BUDGET`` of memory and a bounded time, keeps a
small entry in the cache (one per config read, however it is spaced), and a value out of
range is refused with a sentence naming the key and the range, never a traceback or a
warning in the server's log."""

from __future__ import annotations

import json
import pickle
import time
import tracemalloc
import warnings

import pytest
import streamlit as st
from app_helpers import assert_clean, charts, open_page

from posenc_lab.lessons.models import compute, measure
from posenc_lab.lessons.models.lesson import TEXT_KEY

PAGE = "posenc_lab/lessons/models/page.py"
#: the longest sequence the page asks about (k = 24)
LONGEST = 2**24
#: the most one request may take with everything measured and its figures (the issue's ask)
BUDGET = 50 * 2**20
#: the most one config's cache entry may hold (as st.cache_data stores it, pickled)
ENTRY_BYTES = 1 * 2**20

ROPE = {"model_type": "llama", "max_position_embeddings": 1_000_000_000}
#: per method the page reads, the most its keys may ask for, and more: (config, None when it
#: is shown, or the words its refusal must hold: the key and the allowed range)
HOSTILE = [
    # the config: 50 M offsets, 4.35 GB and 50 s before the fix
    pytest.param(
        {
            "model_type": "deberta-v2",
            "relative_attention": True,
            "position_buckets": 256,
            "max_relative_positions": 49_999_999,
            "max_position_embeddings": 512,
        },
        None,
        id="deberta-issue",
    ),
    pytest.param(
        {
            "model_type": "deberta-v2",
            "relative_attention": True,
            "position_buckets": 1_000_000,
            "max_relative_positions": 100_000_000,
            "max_position_embeddings": 100_000_000,
        },
        None,
        id="deberta-most-buckets",
    ),
    pytest.param(
        {
            "model_type": "deberta-v2",
            "relative_attention": True,
            "max_relative_positions": 100_000_000,
            "max_position_embeddings": 100_000_000,
        },
        None,
        id="deberta-no-buckets",
    ),
    pytest.param(
        {
            "model_type": "deberta-v2",
            "relative_attention": True,
            "position_buckets": 256,
            "max_relative_positions": 10**12,
        },
        "max_relative_positions must be -1 to 100,000,000",
        id="deberta-too-far",
    ),
    pytest.param({**ROPE, "hidden_size": 4096, "num_attention_heads": 32}, None, id="rope-longest-window"),
    pytest.param(
        {**ROPE, "hidden_size": 10_000_000, "num_attention_heads": 1},
        "hidden_size / num_attention_heads",
        id="rope-widest-heads",
    ),
    pytest.param({**ROPE, "head_dim": 10**6}, "head_dim must be 1 to 8,192", id="rope-head_dim-huge"),
    pytest.param(
        {**ROPE, "head_dim": 8192, "rope_scaling": {"rope_type": "dynamic", "factor": 1_000_000}},
        None,
        id="rope-most-pairs-dynamic",
    ),
    pytest.param(
        {
            **ROPE,
            "head_dim": 8192,
            "original_max_position_embeddings": 4096,
            "rope_scaling": {"rope_type": "longrope", "long_factor": [1.5] * 4096, "short_factor": [1.0] * 4096},
        },
        None,
        id="rope-longrope-4096-factors",
    ),
    pytest.param(
        {**ROPE, "head_dim": 128, "rope_scaling": {"rope_type": "yarn", "factor": 1e300}},
        "rope_scaling['factor'] is too large",
        id="rope-factor-huge",
    ),
    pytest.param(
        {**ROPE, "head_dim": 128, "rope_theta": 1e30, "rope_scaling": {"rope_type": "linear", "factor": 1_000_000}},
        None,
        id="rope-theta-largest",
    ),
    pytest.param(
        {
            **ROPE,
            "head_dim": 128,
            "rope_theta": 1e30,
            "rope_scaling": {"rope_type": "dynamic", "factor": 1_000_000, "original_max_position_embeddings": 1},
        },
        "the chart draws at most 1e+37",
        id="rope-dynamic-past-float32",
    ),
    pytest.param(
        {
            **ROPE,
            "head_dim": 128,
            "rope_theta": 1e30,  # the slow pairs' 1e300 x 1e30 overflows a float
            "original_max_position_embeddings": 4096,
            "rope_scaling": {"rope_type": "longrope", "long_factor": [1e300] * 64, "short_factor": [1e-300] * 64},
        },
        "gives pair 0 a wavelength of 6.28319e+300 tokens; the chart draws at most 1e+37",
        id="rope-longrope-overflow",
    ),
    pytest.param(
        {**ROPE, "head_dim": 128, "rope_theta": 1e31},
        "rope_theta is too large: it must be > 1 and at most 1e+30",
        id="rope-theta-too-large",
    ),
    pytest.param(
        {
            **ROPE,
            "head_dim": 8192,
            "num_hidden_layers": 10_000,
            "sliding_window": 1_000_000_000,
            "sliding_window_pattern": 2,
            "no_rope_layer_interval": 3,
            "attention_chunk_size": 1_000_000_000,
        },
        None,
        id="rope-most-layers",
    ),
    pytest.param(
        {**ROPE, "head_dim": 128, "num_hidden_layers": 10_000, "layer_types": ["sliding_attention"] * 10_000},
        None,
        id="rope-layer_types-10000",
    ),
    pytest.param(
        {**ROPE, "head_dim": 128, "num_hidden_layers": 10**9},
        "num_hidden_layers must be 1 to 10,000",
        id="rope-layers-huge",
    ),
    pytest.param(
        {
            "model_type": "t5",
            "relative_attention_num_buckets": 4096,
            "relative_attention_max_distance": 100_000,
            "num_heads": 1024,
        },
        None,
        id="t5-most",
    ),
    pytest.param(
        {"model_type": "t5", "relative_attention_num_buckets": 100_000, "num_heads": 8},
        "relative_attention_num_buckets must be 4 to 4,096",
        id="t5-buckets-huge",
    ),
    pytest.param(
        {"model_type": "t5", "relative_attention_max_distance": 1_000_000, "num_heads": 8},
        "relative_attention_max_distance must be 1 to 100,000",
        id="t5-distance-huge",
    ),
    pytest.param({"model_type": "bloom", "n_head": 1024}, None, id="alibi-most-heads"),
    pytest.param({"model_type": "bloom", "n_head": 10**6}, "n_head must be 1 to 1,024", id="alibi-heads-huge"),
    pytest.param(
        {"model_type": "mpt", "attn_config": {"alibi": True, "alibi_bias_max": 1e300}, "n_heads": 1024},
        "alibi_bias_max is too large",
        id="alibi-bias-huge",
    ),
    pytest.param({"n_positions": 100_000_000, "n_embd": 1_000_000}, None, id="learned-largest-table"),
    pytest.param({"n_positions": 10**12, "n_embd": 768}, "n_positions must be 1 to 100,000,000", id="learned-huge"),
]


def measured(config: dict) -> tuple[dict, float, int, list]:
    """``compute.config_positions`` of a config's text at the longest L: (result, seconds,
    peak bytes allocated, warnings raised)."""
    text = json.dumps(config)
    st.cache_data.clear()  # measure the work, not a cache hit
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tracemalloc.start()
        start = time.perf_counter()
        try:
            result = compute.config_positions(text, LONGEST)
            elapsed = time.perf_counter() - start
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    return result, elapsed, peak, [str(w.message) for w in caught]


def test_the_budget_is_the_one_stated():
    assert measure.MEMORY_BUDGET == BUDGET


@pytest.mark.parametrize(("config", "refusal"), HOSTILE)
def test_a_hostile_config_costs_at_most_the_budget_and_is_shown_or_refused_by_name(config, refusal):
    result, elapsed, peak, caught = measured(config)
    assert peak < BUDGET, f"allocated {peak / 2**20:.0f} MiB"
    assert elapsed < 2.0, f"took {elapsed:.1f} s"
    assert not caught, caught
    if refusal is None:
        assert "error" not in result, result["error"]
        assert result["out"]["rows"]
    else:
        assert refusal in result["error"]
        assert "Traceback" not in result["error"] and len(result["error"]) < 300
    # what the cache keeps for it is small: no table sized by the config's numbers
    assert len(pickle.dumps(result)) < ENTRY_BYTES


def test_the_cache_keeps_one_entry_per_config_read_however_it_is_spaced(monkeypatch):
    calls = []
    real = measure.positions

    def counted(config, length=None):
        calls.append(length)
        return real(config, length)

    monkeypatch.setattr(measure, "positions", counted)
    st.cache_data.clear()
    config = {
        "model_type": "deberta-v2",
        "relative_attention": True,
        "position_buckets": 256,
        "max_relative_positions": 4096,
    }
    texts = [json.dumps(config), json.dumps(config, indent=2), " " + json.dumps(config, indent=4) + "\n\n"]
    results = [compute.config_positions(text, 4096) for text in texts]
    assert len(calls) == 1, "each spacing of the same config was measured again"
    assert results[0]["out"]["rows"] == results[1]["out"]["rows"] == results[2]["out"]["rows"]


#: one config per method, the most each may ask for, and one refused: drawn on the page
ON_THE_PAGE = ["deberta-issue", "rope-longrope-4096-factors", "rope-most-layers", "rope-theta-largest", "t5-most"]
ON_THE_PAGE += ["alibi-most-heads", "learned-largest-table", "deberta-too-far", "rope-longrope-overflow"]


def test_the_page_draws_hostile_configs_within_the_budget_and_logs_no_traceback(capfd):
    cases = {p.id: p.values for p in HOSTILE}
    at = open_page(PAGE, {"view": "config", "k": "24"})
    assert_clean(at)
    with warnings.catch_warnings(record=True) as caught:
        # every warning, even one an earlier test raised at the same line (shown once by default)
        warnings.simplefilter("always")
        for name in ON_THE_PAGE:
            rerun(at, name, *cases[name])
    assert not caught, [f"{w.filename}:{w.lineno}: {w.message}" for w in caught]
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Warning:" not in err, err[-2000:]


def rerun(at, name: str, config: dict, refusal: str | None) -> None:
    """Paste ``config`` in the box and check what the rerun cost and what it shows."""
    at.text_area(key=TEXT_KEY).set_value(json.dumps(config))
    tracemalloc.start()
    start = time.perf_counter()
    try:
        at.run()
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert_clean(at)
    assert peak < BUDGET, f"{name}: the rerun allocated {peak / 2**20:.0f} MiB"
    assert elapsed < 20, f"{name}: the rerun took {elapsed:.1f} s"
    assert charts(at), name
    # read back as plain text: the page escapes Markdown marks and the colon of a would-be link
    errors = [e.value.replace("\\", "").replace("\u2060", "") for e in at.error]
    if refusal is None:
        assert not errors, (name, errors)
    else:
        assert len(errors) == 1 and refusal in errors[0], (name, errors)
