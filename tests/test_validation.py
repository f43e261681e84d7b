"""Every public function refuses bad arguments with a ValueError that names them.

One table of (callable, args, kwargs, pattern) rows: the pattern holds the argument's
name (and, where useful, the value received or what is allowed). Size requests over
``posenc.MAX_ELEMENTS`` must be refused quickly, before the big array is allocated.
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
import time
import tracemalloc

import numpy as np
import pytest

import posenc
from posenc_lab.classroom import store as class_store

# posenc.attention is the function; the module is reached through importlib
absolute, freqs, rotation, multiaxis, relative, alibi, attention, extension, experiment = (
    importlib.import_module(f"posenc.{name}")
    for name in (
        "absolute",
        "rope.frequencies",
        "rope.rotation",
        "rope.multiaxis",
        "relative",
        "alibi",
        "attention",
        "extension",
        "experiment",
    )
)
EXP_CFG = experiment.ExperimentConfig(train_len=8, steps=1)

nan, inf = math.nan, math.inf

x4 = np.ones((3, 4))  # a valid (T, Dh) array
table3 = np.ones((3, 4))  # a valid Shaw table, K = 1
LINEAR = {"rope_type": "linear", "factor": 2.0}
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}
LLAMA3 = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def without(cfg, key):
    return {k: v for k, v in cfg.items() if k != key}


def case(func, *args, match, id, **kwargs):
    return pytest.param(func, args, kwargs, match, id=f"{func.__name__}-{id}")


def bad_positions(func, *rest, name="positions", **kwargs):
    """The ways a positions argument can be wrong, for a function taking it first."""
    return [
        case(func, -1, *rest, match=name, id="positions-int-negative", **kwargs),
        case(func, 0, *rest, match=name, id="positions-int-zero", **kwargs),
        case(func, [0.0, -1.0], *rest, match=rf"{name}.*non-negative.*-1", id="positions-negative", **kwargs),
        case(func, [0.0, nan], *rest, match=rf"{name}.*finite", id="positions-nan", **kwargs),
        case(func, [inf], *rest, match=rf"{name}.*finite", id="positions-inf", **kwargs),
        case(func, [-inf], *rest, match=name, id="positions-minus-inf", **kwargs),
        case(func, [[0, 1], [2, 3]], *rest, match=rf"{name}.*1-D", id="positions-2d", **kwargs),
        case(func, [], *rest, match=rf"{name}.*non-empty", id="positions-empty", **kwargs),
        case(func, 2.5, *rest, match=name, id="positions-float-scalar", **kwargs),
        case(func, True, *rest, match=name, id="positions-bool", **kwargs),
        case(func, "abc", *rest, match=name, id="positions-string", **kwargs),
        case(func, [True, False], *rest, match=name, id="positions-bool-array", **kwargs),
    ]


def bad_ints(func, name, *, before=(), after=(), allow_none=False, **kwargs):
    """Wrong types for an integer argument at position len(before)."""
    values = [("string", "8"), ("bool", True), ("float", 8.0)]
    if not allow_none:
        values.append(("none", None))
    return [
        case(func, *before, value, *after, match=rf"{name}.*integer", id=f"{name}-{label}", **kwargs)
        for label, value in values
    ]


CASES = [
    # absolute: sinusoid_frequencies, sinusoidal, learned_table, lookup_learned
    case(absolute.sinusoid_frequencies, 7, match=r"d_model.*even.*7", id="odd"),
    case(absolute.sinusoid_frequencies, 0, match=r"d_model.*>= 2", id="zero"),
    case(absolute.sinusoid_frequencies, 8, 1.0, match=r"base.*> 1", id="base-one"),
    *bad_ints(absolute.sinusoid_frequencies, "d_model"),
    case(absolute.sinusoidal, 4, 5, match=r"d_model.*even.*5", id="odd-d_model"),
    case(absolute.sinusoidal, 4, 0, match="d_model", id="zero-d_model"),
    case(absolute.sinusoidal, 4, -2, match="d_model", id="negative-d_model"),
    *bad_ints(absolute.sinusoidal, "d_model", before=(4,)),
    case(absolute.sinusoidal, 4, 8, 1.0, match=r"base.*> 1", id="base-one"),
    case(absolute.sinusoidal, 4, 8, 0.5, match="base", id="base-below-one"),
    case(absolute.sinusoidal, 4, 8, -10.0, match="base", id="base-negative"),
    case(absolute.sinusoidal, 4, 8, nan, match=r"base.*finite", id="base-nan"),
    case(absolute.sinusoidal, 4, 8, inf, match="base", id="base-inf"),
    case(absolute.sinusoidal, 4, 8, "10000", match="base", id="base-string"),
    case(absolute.sinusoidal, 4, 8, True, match="base", id="base-bool"),
    case(absolute.sinusoidal, 4, 8, layout="half", match=r"layout.*'interleaved'.*'concat'", id="layout-unknown"),
    case(absolute.sinusoidal, 4, 8, layout=None, match="layout", id="layout-none"),
    *bad_positions(absolute.sinusoidal, 8),
    case(absolute.learned_table, 0, 4, match=r"max_len.*>= 1", id="max_len-zero"),
    case(absolute.learned_table, -3, 4, match="max_len", id="max_len-negative"),
    *bad_ints(absolute.learned_table, "max_len", after=(4,)),
    case(absolute.learned_table, 4, 0, match="d_model", id="d_model-zero"),
    *bad_ints(absolute.learned_table, "d_model", before=(4,)),
    case(absolute.learned_table, 4, 4, std=-0.1, match="std", id="std-negative"),
    case(absolute.learned_table, 4, 4, std=nan, match="std", id="std-nan"),
    case(absolute.learned_table, 4, 4, std="big", match="std", id="std-string"),
    case(absolute.learned_table, 4, 4, seed=-1, match="seed", id="seed-negative"),
    case(absolute.learned_table, 4, 4, seed=1.5, match="seed", id="seed-float"),
    case(absolute.lookup_learned, [1.0, 2.0], [0], match=r"table.*2 axes", id="table-1d"),
    case(absolute.lookup_learned, np.ones((2, 2, 2)), [0], match="table", id="table-3d"),
    case(absolute.lookup_learned, [[1.0, nan]], [0], match=r"table.*finite", id="table-nan"),
    case(absolute.lookup_learned, np.ones((0, 3)), [0], match="table", id="table-empty"),
    case(absolute.lookup_learned, "abc", [0], match="table", id="table-string"),
    case(absolute.lookup_learned, x4, [0, 1.5], match=r"positions.*whole.*1\.5", id="positions-fractional"),
    case(absolute.lookup_learned, x4, [-1], match=r"positions.*non-negative", id="positions-negative"),
    case(absolute.lookup_learned, x4, [-1.0], match=r"positions.*non-negative", id="positions-negative-float"),
    case(absolute.lookup_learned, x4, [nan], match=r"positions.*finite", id="positions-nan"),
    case(absolute.lookup_learned, x4, [[0]], match="positions", id="positions-2d"),
    case(absolute.lookup_learned, x4, [], match="positions", id="positions-empty"),
    case(absolute.lookup_learned, x4, [True], match="positions", id="positions-bool"),
    case(absolute.lookup_learned, x4, [0, 3], match=r"\b3\b.*max_len=3|max_len.*\b3\b", id="past-the-end"),
    case(absolute.lookup_learned, x4, 4, match="max_len", id="int-past-the-end"),
    # rope.frequencies: rope_inv_freq
    case(freqs.rope_inv_freq, 7, match=r"head_dim.*even.*7", id="odd"),
    case(freqs.rope_inv_freq, 0, match="head_dim", id="zero"),
    *bad_ints(freqs.rope_inv_freq, "head_dim"),
    case(freqs.rope_inv_freq, 8, 1.0, match=r"base.*> 1", id="base-one"),
    case(freqs.rope_inv_freq, 8, 0.0, match="base", id="base-zero"),
    case(freqs.rope_inv_freq, 8, nan, match="base", id="base-nan"),
    case(freqs.rope_inv_freq, 8, seq_len=0, match=r"seq_len.*>= 1", id="seq_len-zero"),
    case(freqs.rope_inv_freq, 8, seq_len=-5, match="seq_len", id="seq_len-negative"),
    case(freqs.rope_inv_freq, 8, seq_len=2.5, match="seq_len", id="seq_len-float"),
    case(freqs.rope_inv_freq, 8, seq_len=True, match="seq_len", id="seq_len-bool"),
    case(freqs.rope_inv_freq, 8, rope_scaling="linear", match="rope_scaling", id="scaling-not-a-dict"),
    case(freqs.rope_inv_freq, 8, rope_scaling={"factor": 2.0}, match="rope_type", id="rope_type-missing"),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling={"rope_type": "magic"},
        match=r"rope_type.*'default'.*'linear'.*'ntk'.*'dynamic'.*'yarn'.*'llama3'.*magic",
        id="rope_type-unknown",
    ),
    case(freqs.rope_inv_freq, 8, rope_scaling={"rope_type": 3}, match="rope_type", id="rope_type-int"),
    case(freqs.rope_inv_freq, 8, rope_scaling={"rope_type": "linear"}, match="'factor'", id="linear-no-factor"),
    case(freqs.rope_inv_freq, 8, rope_scaling={"rope_type": "ntk"}, match="'factor'", id="ntk-no-factor"),
    case(freqs.rope_inv_freq, 8, rope_scaling=dict(LINEAR, factor=0.5), match=r"factor.*>= 1", id="factor-below-1"),
    case(freqs.rope_inv_freq, 8, rope_scaling=dict(LINEAR, factor=-2.0), match="factor", id="factor-negative"),
    case(freqs.rope_inv_freq, 8, rope_scaling=dict(LINEAR, factor=nan), match="factor", id="factor-nan"),
    case(freqs.rope_inv_freq, 8, rope_scaling=dict(LINEAR, factor="2"), match="factor", id="factor-string"),
    case(freqs.rope_inv_freq, 8, rope_scaling={"rope_type": "ntk", "factor": 0.9}, match="factor", id="ntk-factor-low"),
    case(freqs.rope_inv_freq, 8, rope_scaling=dict(LINEAR, beta_fast=3), match="beta_fast", id="unknown-key"),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling={"rope_type": "default", "factor": 2.0},
        match="'factor'",
        id="default-unknown-key",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling=dict(YARN, low_freq_factor=1.0),
        match="low_freq_factor",
        id="yarn-unknown-key",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling={"rope_type": "dynamic", "factor": 2.0},
        match="original_max_position_embeddings",
        id="dynamic-no-original",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling={"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 0},
        match="original_max_position_embeddings",
        id="dynamic-original-zero",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling={"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 2048.5},
        match="original_max_position_embeddings",
        id="dynamic-original-float",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling=without(YARN, "original_max_position_embeddings"),
        match="original_max_position_embeddings",
        id="yarn-no-original",
    ),
    case(freqs.rope_inv_freq, 8, rope_scaling=without(YARN, "factor"), match="'factor'", id="yarn-no-factor"),
    case(freqs.rope_inv_freq, 8, rope_scaling=dict(YARN, beta_fast=0.0), match="beta_fast", id="yarn-beta_fast"),
    case(freqs.rope_inv_freq, 8, rope_scaling=dict(YARN, beta_slow=-1.0), match="beta_slow", id="yarn-beta_slow"),
    case(freqs.rope_inv_freq, 8, rope_scaling=dict(YARN, truncate="yes"), match="truncate", id="yarn-truncate"),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling=dict(YARN, attention_factor=0.0),
        match="attention_factor",
        id="yarn-attention_factor-zero",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling=dict(YARN, attention_factor=nan),
        match="attention_factor",
        id="yarn-attention_factor-nan",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling=dict(YARN, mscale=-1.0, mscale_all_dim=1.0),
        match="mscale",
        id="yarn-mscale",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling=without(LLAMA3, "low_freq_factor"),
        match="'low_freq_factor'",
        id="llama3-no-low",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling=without(LLAMA3, "high_freq_factor"),
        match="'high_freq_factor'",
        id="llama3-no-high",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling=without(LLAMA3, "original_max_position_embeddings"),
        match="original_max_position_embeddings",
        id="llama3-no-original",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling=dict(LLAMA3, high_freq_factor=0.5),
        match="high_freq_factor",
        id="llama3-high-below-low",
    ),
    case(
        freqs.rope_inv_freq,
        8,
        rope_scaling=dict(LLAMA3, low_freq_factor=0.0),
        match="low_freq_factor",
        id="llama3-low-zero",
    ),
    # rope.rotation: rope_cos_sin, apply_rope, half_to_interleaved_permutation, xpos_scale, apply_xpos
    *bad_positions(rotation.rope_cos_sin, [1.0, 0.1]),
    case(rotation.rope_cos_sin, 3, [[1.0, 0.1]], match=r"inv_freq.*1 axes", id="inv_freq-2d"),
    case(rotation.rope_cos_sin, 3, [1.0, nan], match=r"inv_freq.*finite", id="inv_freq-nan"),
    case(rotation.rope_cos_sin, 3, [], match="inv_freq", id="inv_freq-empty"),
    case(rotation.apply_rope, [1.0, 0.0], match=r"x.*axes", id="x-1d"),
    case(rotation.apply_rope, np.ones((3, 5)), match=r"head_dim.*even.*5", id="x-odd-head_dim"),
    case(rotation.apply_rope, [[1.0, nan]], match=r"x.*finite", id="x-nan"),
    case(rotation.apply_rope, np.ones((0, 4)), match="x", id="x-empty"),
    case(rotation.apply_rope, "abcd", match="x", id="x-string"),
    case(rotation.apply_rope, x4, [0, 1], match=r"positions.*3", id="positions-wrong-length"),
    case(rotation.apply_rope, x4, [0, 1, -2], match=r"positions.*non-negative", id="positions-negative"),
    case(rotation.apply_rope, x4, [0, 1, nan], match=r"positions.*finite", id="positions-nan"),
    case(rotation.apply_rope, x4, [0, 1, inf], match=r"positions.*finite", id="positions-inf"),
    case(rotation.apply_rope, x4, [[0, 1, 2]], match="positions", id="positions-2d"),
    case(rotation.apply_rope, x4, [], match="positions", id="positions-empty"),
    case(rotation.apply_rope, x4, layout="neox", match=r"layout.*'interleaved'.*'half'", id="layout-unknown"),
    case(rotation.apply_rope, x4, base=1.0, match="base", id="base-one"),
    case(rotation.apply_rope, x4, rope_scaling={"rope_type": "magic"}, match="rope_type", id="rope_type-unknown"),
    case(
        rotation.apply_rope,
        x4,
        rope_scaling={"rope_type": "dynamic", "factor": 2.0},
        match="original_max_position_embeddings",
        id="missing-key",
    ),
    case(rotation.half_to_interleaved_permutation, 5, match=r"head_dim.*even", id="odd"),
    case(rotation.half_to_interleaved_permutation, 0, match="head_dim", id="zero"),
    *bad_ints(rotation.half_to_interleaved_permutation, "head_dim"),
    case(rotation.xpos_scale, 4, 3, match=r"head_dim.*even", id="odd"),
    *bad_ints(rotation.xpos_scale, "head_dim", before=(4,)),
    case(rotation.xpos_scale, 4, 8, gamma=0.0, match="gamma", id="gamma-zero"),
    case(rotation.xpos_scale, 4, 8, gamma=nan, match="gamma", id="gamma-nan"),
    case(rotation.xpos_scale, 4, 8, scale_base=0.0, match="scale_base", id="scale_base-zero"),
    case(rotation.xpos_scale, 4, 8, scale_base=-512.0, match="scale_base", id="scale_base-negative"),
    *bad_positions(rotation.xpos_scale, 8),
    case(rotation.apply_xpos, x4, role="value", match=r"role.*'query'.*'key'", id="role-unknown"),
    case(rotation.apply_xpos, x4, role=None, match="role", id="role-none"),
    case(rotation.apply_xpos, x4, role="query", layout="neox", match="layout", id="layout-unknown"),
    case(rotation.apply_xpos, np.ones((3, 5)), role="key", match="head_dim", id="x-odd-head_dim"),
    case(rotation.apply_xpos, [1.0, 2.0], role="key", match="x", id="x-1d"),
    case(rotation.apply_xpos, x4, [0, 1, -1], role="key", match="positions", id="positions-negative"),
    case(rotation.apply_xpos, x4, [0, 1], role="key", match="positions", id="positions-wrong-length"),
    case(rotation.apply_xpos, x4, role="key", gamma=0.0, match="gamma", id="gamma-zero"),
    case(rotation.apply_xpos, x4, role="key", scale_base=0.0, match="scale_base", id="scale_base-zero"),
    case(rotation.apply_xpos, x4, role="key", base=0.5, match="base", id="base-below-one"),
    # alibi: ALiBi
    case(alibi.alibi_slopes, 0, match=r"n_heads.*>= 1", id="zero"),
    case(alibi.alibi_slopes, -4, match="n_heads", id="negative"),
    case(alibi.alibi_slopes, 1025, match=r"n_heads.*<= 1024.*1025", id="too-many"),
    *bad_ints(alibi.alibi_slopes, "n_heads"),
    case(alibi.alibi_bias, 0, 4, match="n_heads", id="n_heads-zero"),
    case(alibi.alibi_bias, 1025, 4, match="n_heads", id="n_heads-too-many"),
    *bad_ints(alibi.alibi_bias, "n_heads", after=(4,)),
    case(alibi.alibi_bias, 2, 0, match="q_len", id="q_len-zero"),
    *bad_ints(alibi.alibi_bias, "q_len", before=(2,)),
    case(alibi.alibi_bias, 2, 4, 3, match=r"k_len.*q_len", id="k_len-shorter"),
    case(alibi.alibi_bias, 2, 4, 0, match="k_len", id="k_len-zero"),
    case(alibi.alibi_bias, 2, 4, 4.0, match="k_len", id="k_len-float"),
    case(alibi.alibi_bias, 2, 4, slopes=[0.5], match=r"slopes.*2", id="slopes-too-few"),
    case(alibi.alibi_bias, 2, 4, slopes=[0.5, 0.25, 0.125], match="slopes", id="slopes-too-many"),
    case(alibi.alibi_bias, 2, 4, slopes=[0.5, -0.25], match=r"slopes.*-0\.25", id="slopes-negative"),
    case(alibi.alibi_bias, 2, 4, slopes=[0.5, nan], match="slopes", id="slopes-nan"),
    case(alibi.alibi_bias, 2, 4, slopes=[[0.5, 0.25]], match="slopes", id="slopes-2d"),
    case(alibi.alibi_bias, 2, 4, slopes="steep", match="slopes", id="slopes-string"),
    # alibi: KERPLE
    case(alibi.kerple_bias, 4, r1=1.0, r2=1.0, kind="gauss", match=r"kind.*'log'.*'power'", id="kind-unknown"),
    case(alibi.kerple_bias, 4, r1=0.0, r2=1.0, match=r"r1.*> 0", id="r1-zero"),
    case(alibi.kerple_bias, 4, r1=[1.0, -1.0], r2=1.0, match="r1", id="r1-negative"),
    case(alibi.kerple_bias, 4, r1=nan, r2=1.0, match="r1", id="r1-nan"),
    case(alibi.kerple_bias, 4, r1=[[1.0, 2.0]], r2=1.0, match="r1", id="r1-2d"),
    case(alibi.kerple_bias, 4, r1=1.0, r2=0.0, match="r2", id="r2-zero"),
    case(alibi.kerple_bias, 4, r1=1.0, r2=2.5, kind="power", match=r"r2.*<= 2", id="r2-above-2-power"),
    case(alibi.kerple_bias, 4, r1=[1.0, 2.0], r2=[1.0, 1.5, 2.0], match="r1 and r2", id="heads-mismatch"),
    case(alibi.kerple_bias, 0, r1=1.0, r2=1.0, match="q_len", id="q_len-zero"),
    case(alibi.kerple_bias, 4, 2, r1=1.0, r2=1.0, match="k_len", id="k_len-shorter"),
    case(alibi.kerple_bias, 4.0, r1=1.0, r2=1.0, match="q_len", id="q_len-float"),
    case(alibi.kerple_from_distance, [[0.0, -1.0]], 1.0, 1.0, match=r"distance.*-1", id="distance-negative"),
    case(alibi.kerple_from_distance, [0.0, nan], 1.0, 1.0, match="distance", id="distance-nan"),
    case(alibi.kerple_from_distance, [], 1.0, 1.0, match="distance", id="distance-empty"),
    case(alibi.kerple_from_distance, [1.0], 1.0, 1.0, kind="cosine", match="kind", id="kind-unknown"),
    case(alibi.kerple_from_distance, [1.0], 1.0, 3.0, kind="power", match="r2", id="r2-above-2-power"),
    # relative: positions, Shaw, T5
    case(relative.relative_positions, 0, match="q_len", id="q_len-zero"),
    case(relative.relative_positions, -2, match="q_len", id="q_len-negative"),
    *bad_ints(relative.relative_positions, "q_len"),
    case(relative.relative_positions, 4, 3, match=r"k_len.*q_len", id="k_len-shorter"),
    *bad_ints(relative.relative_positions, "k_len", before=(4,), allow_none=True),
    case(relative.relative_positions, 4, 4, -1, match=r"max_distance.*>= 0", id="max_distance-negative"),
    case(relative.relative_positions, 4, 4, 1.5, match="max_distance", id="max_distance-float"),
    case(relative.shaw_relative_embeddings, np.ones((4, 3)), 3, match=r"table.*odd", id="table-even-rows"),
    case(relative.shaw_relative_embeddings, np.ones(3), 3, match="table", id="table-1d"),
    case(relative.shaw_relative_embeddings, [[nan, 1.0]], 3, match="table", id="table-nan"),
    case(relative.shaw_relative_embeddings, table3, 0, match="q_len", id="q_len-zero"),
    case(relative.shaw_relative_embeddings, table3, 3, 2, match="k_len", id="k_len-shorter"),
    case(relative.shaw_scores, x4, np.ones((3, 3)), table3, match=r"k and table", id="k-width"),
    case(relative.shaw_scores, x4, x4, np.ones((3, 2)), match=r"k and table", id="table-width"),
    case(relative.shaw_scores, x4, x4, np.ones((2, 4)), match=r"table.*odd", id="table-even-rows"),
    case(relative.shaw_scores, x4, np.ones((2, 4)), table3, match=r"k_len.*q_len", id="k-shorter"),
    case(relative.shaw_scores, np.ones(4), x4, table3, match=r"\bq\b.*2 axes", id="q-1d"),
    case(relative.shaw_scores, x4, [[nan] * 4], table3, match=r"\bk\b.*finite", id="k-nan"),
    case(relative.t5_bucket, [1.5], match=r"relative_position.*integers", id="float-values"),
    case(relative.t5_bucket, [1.0, 2.0], match=r"relative_position.*integers", id="float-dtype"),
    case(relative.t5_bucket, 1.0, match="relative_position", id="float-scalar"),
    case(relative.t5_bucket, [True, False], match="relative_position", id="bool"),
    case(relative.t5_bucket, "3", match="relative_position", id="string"),
    case(relative.t5_bucket, [1], bidirectional="yes", match="bidirectional", id="bidirectional-string"),
    case(relative.t5_bucket, [1], bidirectional=1, match="bidirectional", id="bidirectional-int"),
    case(relative.t5_bucket, [1], num_buckets=3, match=r"num_buckets.*>= 4", id="num_buckets-too-few-bi"),
    case(
        relative.t5_bucket,
        [1],
        bidirectional=False,
        num_buckets=1,
        match=r"num_buckets.*>= 2",
        id="num_buckets-too-few-uni",
    ),
    case(relative.t5_bucket, [1], num_buckets=32.0, match="num_buckets", id="num_buckets-float"),
    case(relative.t5_bucket, [1], max_distance=8, match=r"max_distance.*> 8", id="max_distance-at-max_exact"),
    case(relative.t5_bucket, [1], max_distance=4, match="max_distance", id="max_distance-below-max_exact"),
    case(
        relative.t5_bucket,
        [1],
        bidirectional=False,
        max_distance=16,
        match=r"max_distance.*> 16",
        id="max_distance-at-max_exact-uni",
    ),
    case(relative.t5_bucket, [1], max_distance=0, match="max_distance", id="max_distance-zero"),
    case(relative.t5_bucket, [1], max_distance=128.0, match="max_distance", id="max_distance-float"),
    case(relative.t5_bias, np.ones(32), 4, match="table", id="table-1d"),
    case(relative.t5_bias, np.ones((3, 2)), 4, match="num_buckets|table", id="table-too-few-buckets"),
    case(relative.t5_bias, [[nan, 1.0]] * 32, 4, match="table", id="table-nan"),
    case(relative.t5_bias, np.ones((32, 2)), 4, max_distance=8, match="max_distance", id="max_distance-small"),
    case(relative.t5_bias, np.ones((32, 2)), 4, bidirectional="no", match="bidirectional", id="bidirectional"),
    case(relative.t5_bias, np.ones((32, 2)), 0, match="q_len", id="q_len-zero"),
    case(relative.t5_bias, np.ones((32, 2)), 4, 3, match="k_len", id="k_len-shorter"),
    # relative: Transformer-XL and DeBERTa
    case(
        relative.transformer_xl_scores, x4, np.ones((3, 3)), np.ones(4), np.ones(4), match=r"\bk\b.*width", id="k-width"
    ),
    case(relative.transformer_xl_scores, x4, x4, np.ones(3), np.ones(4), match=r"\bu\b.*width", id="u-width"),
    case(relative.transformer_xl_scores, x4, x4, np.ones(4), np.ones(5), match=r"\bv\b.*width", id="v-width"),
    case(relative.transformer_xl_scores, x4, x4, np.ones((1, 4)), np.ones(4), match=r"\bu\b", id="u-2d"),
    case(
        relative.transformer_xl_scores, x4, x4, np.ones(4), np.ones(4), w_r=np.ones((3, 4)), match="w_r", id="w_r-rows"
    ),
    case(
        relative.transformer_xl_scores,
        x4,
        x4,
        np.ones(4),
        np.ones(4),
        w_r=np.ones((4, 3)),
        match=r"w_r.*even",
        id="w_r-odd",
    ),
    case(relative.transformer_xl_scores, x4, x4, np.ones(4), np.ones(4), w_r=np.ones(4), match="w_r", id="w_r-1d"),
    case(
        relative.transformer_xl_scores,
        x4,
        np.ones((2, 4)),
        np.ones(4),
        np.ones(4),
        match=r"k_len.*q_len",
        id="k-shorter",
    ),
    case(relative.transformer_xl_scores, x4, x4, np.ones(4), np.ones(4), base=1.0, match="base", id="base-one"),
    case(relative.transformer_xl_scores, np.ones(4), x4, np.ones(4), np.ones(4), match=r"\bq\b", id="q-1d"),
    case(relative.transformer_xl_scores, [[nan] * 4], x4, np.ones(4), np.ones(4), match=r"\bq\b.*finite", id="q-nan"),
    case(relative.deberta_log_bucket, [0.5], match=r"relative_position.*integers", id="float"),
    case(relative.deberta_log_bucket, [True], match="relative_position", id="bool"),
    case(relative.deberta_log_bucket, [1], bucket_size=1, match=r"bucket_size.*>= 2", id="bucket_size-one"),
    case(relative.deberta_log_bucket, [1], bucket_size=2.5, match="bucket_size", id="bucket_size-float"),
    case(
        relative.deberta_log_bucket,
        [1],
        bucket_size=256,
        max_position=129,
        match=r"max_position.*>= 130",
        id="max_position-small",
    ),
    case(relative.deberta_log_bucket, [1], max_position=512.0, match="max_position", id="max_position-float"),
    case(
        relative.deberta_scores,
        x4,
        np.ones((3, 3)),
        np.ones((4, 4)),
        np.ones((4, 4)),
        match=r"k_c.*width",
        id="k_c-width",
    ),
    case(relative.deberta_scores, x4, x4, np.ones((4, 3)), np.ones((4, 4)), match=r"q_r.*width", id="q_r-width"),
    case(relative.deberta_scores, x4, x4, np.ones((4, 4)), np.ones((4, 5)), match=r"k_r.*width", id="k_r-width"),
    case(relative.deberta_scores, x4, x4, np.ones((4, 4)), np.ones((6, 4)), match="q_r and k_r", id="rows-differ"),
    case(relative.deberta_scores, x4, x4, np.ones((3, 4)), np.ones((3, 4)), match=r"q_r and k_r.*even", id="rows-odd"),
    case(
        relative.deberta_scores,
        x4,
        np.ones((2, 4)),
        np.ones((4, 4)),
        np.ones((4, 4)),
        match=r"k_len.*q_len",
        id="k_c-shorter",
    ),
    case(
        relative.deberta_scores,
        x4,
        x4,
        np.ones((8, 4)),
        np.ones((8, 4)),
        max_position=3,
        match="max_position",
        id="max_position-small",
    ),
    case(
        relative.deberta_scores,
        x4,
        x4,
        np.ones((8, 4)),
        np.ones((8, 4)),
        max_position=2.5,
        match="max_position",
        id="max_position-float",
    ),
    case(relative.deberta_scores, np.ones(4), x4, np.ones((4, 4)), np.ones((4, 4)), match="q_c", id="q_c-1d"),
    # attention: softmax, causal_mask, attention
    case(attention.softmax, [1.0, nan], match="scores", id="nan"),
    case(attention.softmax, [1.0, inf], match="scores", id="plus-inf"),
    case(attention.softmax, [[-inf, -inf], [0.0, 0.0]], match=r"scores.*row", id="row-all-masked"),
    case(attention.softmax, [], match="scores", id="empty"),
    case(attention.softmax, "abc", match="scores", id="string"),
    case(attention.causal_mask, 3, 2, match=r"k_len.*q_len|q_len.*k_len", id="k_len-shorter"),
    case(attention.causal_mask, 0, 3, match="q_len", id="q_len-zero"),
    case(attention.causal_mask, -1, 3, match="q_len", id="q_len-negative"),
    case(attention.causal_mask, 2.5, 4, match="q_len", id="q_len-float"),
    case(attention.causal_mask, True, 3, match="q_len", id="q_len-bool"),
    case(attention.causal_mask, 2, "4", match="k_len", id="k_len-string"),
    case(attention.sliding_window_mask, 3, 2, 2, match=r"k_len.*q_len|q_len.*k_len", id="k_len-shorter"),
    case(attention.sliding_window_mask, 2, 3, 0, match=r"window.*>= 1", id="window-zero"),
    case(attention.sliding_window_mask, 2, 3, 2.5, match="window", id="window-float"),
    case(attention.window_receptive_field, 0, 2, match=r"window.*>= 1", id="window-zero"),
    case(attention.window_receptive_field, 4, -1, match=r"layers.*>= 0", id="layers-negative"),
    case(attention.window_receptive_field, 4, 2, 0, match="seq_len", id="seq_len-zero"),
    case(attention.kv_cache_bytes, 0, layers=1, kv_heads=1, head_dim=1, match="seq_len", id="seq_len-zero"),
    case(attention.kv_cache_bytes, 4, layers=1, kv_heads=1, head_dim="8", match="head_dim", id="head_dim-string"),
    case(attention.kv_cache_bytes, 4, layers=1, kv_heads=1, head_dim=8, window=0, match="window", id="window-zero"),
    case(attention.attention, np.ones(4), x4, x4, match=r"\bq\b.*axes", id="q-1d"),
    case(attention.attention, x4, [[nan] * 4] * 3, x4, match=r"\bk\b.*finite", id="k-nan"),
    case(attention.attention, x4, x4, np.ones((0, 2)), match=r"\bv\b", id="v-empty"),
    case(attention.attention, x4, np.ones((3, 5)), x4, match=r"q and k", id="width-mismatch"),
    case(attention.attention, x4, x4, np.ones((2, 4)), match=r"k and v", id="rows-mismatch"),
    case(
        attention.attention,
        x4,
        np.ones((2, 4)),
        np.ones((2, 4)),
        causal=True,
        match=r"q_len.*k_len",
        id="causal-q-longer",
    ),
    case(attention.attention, x4, x4, x4, causal="yes", match="causal", id="causal-string"),
    case(attention.attention, x4, x4, x4, causal=None, match="causal", id="causal-none"),
    case(attention.attention, x4, x4, x4, bias=np.full((3, 3), nan), match="bias", id="bias-nan"),
    case(attention.attention, x4, x4, x4, bias=np.full((3, 3), inf), match="bias", id="bias-plus-inf"),
    case(attention.attention, x4, x4, x4, bias=np.ones((2, 3)), match="bias", id="bias-shape"),
    case(attention.attention, x4, x4, x4, bias="x", match="bias", id="bias-string"),
    case(
        attention.attention,
        np.ones((2, 3, 4)),
        np.ones((3, 3, 4)),
        np.ones((3, 3, 4)),
        match=r"q, k and v",
        id="batch-mismatch",
    ),
    case(attention.self_attention, np.ones(4), match=r"\bx\b.*axes", id="x-1d"),
    case(attention.self_attention, [[nan, 1.0]], match=r"\bx\b.*finite", id="x-nan"),
    case(attention.self_attention, x4, pe=np.ones((2, 4)), match=r"\bpe\b.*shape", id="pe-shape"),
    case(attention.self_attention, x4, pe=np.full((3, 4), inf), match=r"\bpe\b", id="pe-inf"),
    case(attention.self_attention, x4, w_q=np.ones((3, 2)), match=r"w_q.*rows", id="w_q-rows"),
    case(attention.self_attention, x4, w_k=np.full((4, 2), nan), match="w_k", id="w_k-nan"),
    case(attention.self_attention, x4, w_v=np.ones(4), match="w_v", id="w_v-1d"),
    case(attention.self_attention, x4, w_q=np.ones((4, 2)), w_k=np.ones((4, 3)), match="q and k", id="widths"),
    case(attention.self_attention, x4, causal="yes", match="causal", id="causal-string"),
    case(absolute.tensor2tensor_frequencies, 7, match=r"d_model.*even.*7", id="t2t-odd"),
    case(absolute.tensor2tensor_frequencies, 8, 1.0, match=r"base.*> 1", id="t2t-base"),
    *bad_ints(absolute.tensor2tensor_frequencies, "d_model"),
    # RoPE on more than one axis, and NoPE layers
    case(multiaxis.axial_rope_frequencies, 6, match=r"head_dim.*multiple of 4", id="axial-head_dim"),
    case(multiaxis.axial_rope_frequencies, 8, 1.0, match=r"theta.*> 1", id="axial-theta"),
    case(multiaxis.axial_rope_2d, np.ones((2, 8)), [0, 1], [0], match=r"rows and cols.*one entry", id="axial-cols"),
    case(multiaxis.axial_rope_2d, np.ones((2, 8)), [0, -1], [0, 1], match="rows", id="axial-negative-row"),
    case(multiaxis.mrope_cos_sin, np.zeros((2, 3)), np.ones(4), (1, 1, 2), match=r"positions.*3 rows", id="mrope-rows"),
    case(
        multiaxis.mrope_cos_sin,
        np.zeros((3, 3)),
        np.ones(4),
        (1, 1, 1),
        match=r"mrope_section.*summing to 4",
        id="mrope-sum",
    ),
    case(
        multiaxis.mrope_cos_sin,
        -np.ones((3, 3)),
        np.ones(4),
        (1, 1, 2),
        match="positions.*non-negative",
        id="mrope-negative",
    ),
    case(
        multiaxis.apply_mrope,
        np.ones((2, 8)),
        np.zeros((3, 3)),
        (1, 1, 2),
        match=r"positions.*one column",
        id="mrope-columns",
    ),
    case(multiaxis.qwen2_vl_positions, -1, (1, 1, 1), match=r"text_before.*>= 0", id="qwen-text"),
    case(multiaxis.qwen2_vl_positions, 0, (1, 2), match=r"grid.*three", id="qwen-grid"),
    case(multiaxis.irope_layer_types, 0, match=r"n_layers.*>= 1", id="irope-layers"),
    case(multiaxis.irope_layer_types, 4, 0, match=r"interval.*>= 1", id="irope-interval"),
    # posenc.extension, and the experiment's functions for long runs and test losses
    case(extension.extension_scaling, "rope", 2.0, 8, match=r"way must be one of", id="way"),
    case(extension.extension_scaling, "pi", 0.5, 8, match=r"factor must be >= 1", id="factor"),
    case(extension.extension_scaling, "yarn", 2.0, True, match=r"train_len must be an integer", id="train_len"),
    case(extension.extension_method, "pi", {"train_len": 8}, 2.0, match=r"cfg must be an ExperimentConfig", id="cfg"),
    case(extension.extension_method, "ntk", EXP_CFG, nan, match=r"factor must be finite", id="factor-nan"),
    case(extension.finetune_config, EXP_CFG, 0, match=r"finetune_steps must be >= 1", id="steps"),
    case(extension.finetune_config, None, 10, match=r"cfg must be an ExperimentConfig", id="cfg"),
    case(extension.run_extension, "cfg", match=r"cfg must be an ExperimentConfig", id="cfg"),
    case(extension.run_extension, EXP_CFG, trained=5, match=r"trained must be a TrainResult", id="trained"),
    case(extension.run_extension, EXP_CFG, finetune_steps=1.5, match=r"finetune_steps must be an integer", id="steps"),
    case(extension.paper_comparison, {}, match=r"run must be the dict run_extension returns", id="run"),
    case(experiment.compute_dtype, {"train_len": 64}, match=r"cfg must be an ExperimentConfig", id="cfg"),
    case(
        experiment.evaluate_loss,
        experiment.TrainResult({}, np.zeros(1)),
        EXP_CFG,
        "rope",
        1,
        match=r"length must be >= 2",
        id="length",
    ),
    # classroom.store's module functions (the Store methods' bad arguments are tested against
    # both databases in tests/test_class_store.py)
    case(class_store.normalize_code, 42, match=r"code must be a string", id="code-int"),
    case(class_store.normalize_code, None, match=r"code must be a string", id="code-none"),
    case(class_store.clean_nickname, None, match=r"nickname must be a string", id="nickname-none"),
    case(class_store.clean_nickname, b"Ada", match=r"nickname must be a string.*bytes", id="nickname-bytes"),
    case(class_store.check_address, None, match=r"address must be a string", id="address-none"),
    case(class_store.check_address, "https://evil.example/", match=r"address must be an app path", id="address-url"),
    case(class_store.check_address, "rope?" + "a=1&" * 300, match=r"at most 600", id="address-long"),
    case(class_store.check_question, "Q?", match=r"question must be a Question", id="question-text"),
    case(
        class_store.check_question,
        class_store.Question("Q?", options=("a",)),
        match=r"options must be 2 to 6, got 1",
        id="question-one-option",
    ),
    case(class_store.check_step, ("view", "rope"), match=r"step must be a PlanStep", id="step-tuple"),
    case(
        class_store.check_step,
        class_store.PlanStep("view", "https://evil.example/"),
        match=r"a view step's address must be an app path",
        id="step-address",
    ),
    case(class_store.database_url, None, match=r"environ must be a mapping", id="environ-none"),
    case(class_store.database_url, {"POSENC_CLASS_DB": 5}, match=r"POSENC_CLASS_DB.*must be a string", id="setting"),
    case(class_store.open_store, "mysql://u@h/db", match=r"url must be .*postgresql://.*mysql", id="url-scheme"),
    case(class_store.open_store, 42, match=r"url must be a string", id="url-int"),
    case(class_store.open_store, "sqlite://rel.db", match=r"url: .*must name an absolute path", id="url-relative"),
]


@pytest.mark.parametrize(("func", "args", "kwargs", "match"), CASES)
def test_bad_argument_raises_value_error_naming_it(func, args, kwargs, match):
    with pytest.raises(ValueError, match=match) as info:
        func(*args, **kwargs)
    # and it says what would be allowed, not just what went wrong
    assert re.search(r"must|needs|one of|allowed|valid positions", str(info.value)), str(info.value)


#: public functions that joined these modules with the lesson helpers and from posenc.analysis;
#: this table never had rows for them (the lesson helpers' bad arguments are tested with the
#: rest of their tests)
NOT_IN_THIS_TABLE = {
    "rope_frequency_ratio",
    "alibi_span",
    "alibi_bias_at",
    "mass_span",
    "slope_origin",
    "deberta_table_offset",
    "t5_bucket_ranges",
    "t5_max_exact",
}


def _public_functions():
    for module in (absolute, freqs, rotation, multiaxis, relative, alibi, attention, extension, class_store):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) and name not in NOT_IN_THIS_TABLE:
                yield obj


def test_every_public_function_has_validation_cases():
    covered = {param.values[0] for param in CASES}
    missing = [f.__name__ for f in _public_functions() if f not in covered]
    assert not missing, f"no validation cases for {missing}"


# size limits


BUDGET_CASES = [
    pytest.param(absolute.sinusoidal, (10**6, 1024), {}, id="sinusoidal"),
    pytest.param(absolute.sinusoidal, (np.zeros(10**5), 1024), {}, id="sinusoidal-array"),
    pytest.param(absolute.sinusoidal, (4 * 10**7, 2), {}, id="sinusoidal-many-positions"),
    pytest.param(absolute.learned_table, (10**5, 1024), {}, id="learned_table"),
    pytest.param(absolute.lookup_learned, (np.ones((2, 10**4)), np.zeros(10**4, dtype=int)), {}, id="lookup"),
    pytest.param(rotation.rope_cos_sin, (10**7, np.ones(64)), {}, id="rope_cos_sin"),
    pytest.param(rotation.xpos_scale, (10**6, 128), {}, id="xpos_scale"),
    pytest.param(alibi.alibi_bias, (64, 4096), {}, id="alibi_bias"),
    pytest.param(alibi.alibi_bias, (1, 10**4, 10**4), {}, id="alibi_bias-grid"),
    pytest.param(relative.relative_positions, (10**4,), {}, id="relative_positions"),
    pytest.param(alibi.kerple_bias, (8000, 8000), {"r1": 1.0, "r2": 1.0}, id="kerple-grid"),
    pytest.param(alibi.kerple_bias, (4000, 4000), {"r1": np.ones(4), "r2": 1.0}, id="kerple-heads"),
    pytest.param(relative.shaw_relative_embeddings, (np.ones((3, 1024)), 300, 300), {}, id="shaw"),
    pytest.param(relative.t5_bias, (np.ones((32, 64)), 1000, 1000), {}, id="t5_bias"),
    pytest.param(relative.t5_bucket, (np.broadcast_to(np.int64(0), (60_000_000,)),), {}, id="t5_bucket"),
    pytest.param(
        relative.deberta_log_bucket, (np.broadcast_to(np.int64(0), (60_000_000,)),), {}, id="deberta_log_bucket"
    ),
    pytest.param(attention.attention, (np.ones((8000, 2)), np.ones((8000, 2)), np.ones((8000, 1))), {}, id="attention"),
    pytest.param(
        attention.attention,
        (np.ones((1000, 1, 300, 1)), np.ones((300, 1)), np.ones((300, 1))),
        {},
        id="attention-batch",
    ),
]


@pytest.mark.parametrize(("func", "args", "kwargs"), BUDGET_CASES)
def test_size_requests_over_the_limit_are_refused_before_allocating(func, args, kwargs):
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(ValueError, match="MAX_ELEMENTS") as info:
            func(*args, **kwargs)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "limit" in str(info.value)
    assert f"{posenc.MAX_ELEMENTS:,}" in str(info.value)
    # refusing costs at most the (small) inputs, never the requested output
    assert peak < 32 * 2**20, f"allocated {peak / 2**20:.0f} MiB before refusing"
    assert elapsed < 0.5
