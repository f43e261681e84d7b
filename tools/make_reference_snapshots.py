"""Generate tests/data/reference_snapshots.json from the REAL reference implementations.

The JSON holds small frozen tables (inputs and outputs) computed with PyTorch,
HuggingFace transformers and Microsoft's torchscale, so that posenc's test-suite
(which has no torch) can replay the inputs and compare against them.

How to regenerate (use a throwaway venv OUTSIDE the repo; never add torch to posenc):

    python3 -m venv /tmp/refenv
    /tmp/refenv/bin/pip install torch==2.13.0          # CPU wheel; do NOT install plain `torch` (CUDA, GBs)
    /tmp/refenv/bin/pip install transformers numpy       # snapshot made with transformers 5.23.0, numpy 2.4.6
    /tmp/refenv/bin/pip install --no-deps torchscale  # 0.3.0; only its xpos module is imported
    cd /work/main && /tmp/refenv/bin/python tools/make_reference_snapshots.py

    Optional: --out PATH (default: tests/data/reference_snapshots.json next to this repo's tools/).

Exact versions used for the committed snapshot are recorded under "meta" in the JSON
(torch 2.13.0+cpu, transformers 5.23.0, numpy 2.4.6, torchscale 0.3.0, Python 3.11).

Precision notes (also recorded in meta):
  * RoPE init functions in transformers compute inv_freq in float32 (`torch.float` /
    `torch.float32` are hard-coded).  "inv_freq" stores those float32 values exactly.
    "inv_freq_f64" is the SAME transformers code re-run with the module attributes
    `torch.float` / `torch.float32` temporarily aliased to `torch.float64` (and the
    default dtype set to float64); it is cross-checked against an independent float64
    NumPy re-derivation of each formula (rtol 1e-12).
  * T5 buckets and DeBERTa log buckets are computed in float32 inside the reference
    (T5 calls `.float()`).  The stored buckets are exactly what the reference returns;
    meta lists any positions where a float64 computation would give a different bucket.
  * Everything else (rotations, xPos, GPT-J sinusoids) is computed in float64.

All random inputs come from numpy.random.default_rng(seed) and are stored in the JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import numpy as np
import torch
import transformers
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.bloom.modeling_bloom import build_alibi_tensor
from transformers.models.deberta_v2.modeling_deberta_v2 import (
    build_relative_position,
    make_log_bucket_position,
)
from transformers.models.gptj import modeling_gptj
from transformers.models.llama import modeling_llama
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
from transformers.models.t5.modeling_t5 import T5Attention

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "tests" / "data" / "reference_snapshots.json"


# --------------------------------------------------------------------------- helpers


def tolist(t) -> list:
    """Tensor/ndarray -> nested python lists of float (float64 repr) or int."""
    if isinstance(t, torch.Tensor):
        t = t.detach().cpu()
        if t.dtype.is_floating_point:
            return t.to(torch.float64).numpy().tolist()
        return t.to(torch.int64).numpy().tolist()
    a = np.asarray(t)
    if np.issubdtype(a.dtype, np.floating):
        return a.astype(np.float64).tolist()
    return a.astype(np.int64).tolist()


@contextlib.contextmanager
def float64_aliases():
    """Run reference code that hard-codes `torch.float`/`torch.float32` in float64.

    The reference functions look up `torch.float` / `torch.float32` on the torch module at
    call time, so aliasing those attributes (and the default dtype) makes the very same
    code compute in float64.  Everything is restored afterwards.
    """
    old_float, old_float32, old_default = torch.float, torch.float32, torch.get_default_dtype()
    torch.float = torch.float64
    torch.float32 = torch.float64
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.float = old_float
        torch.float32 = old_float32
        torch.set_default_dtype(old_default)


def summary(name: str, msg: str) -> None:
    print(f"[{name}] {msg}")


# --------------------------------------------------------------------------- 2. ALiBi


def press_get_slopes(n):
    # Reproduced verbatim (modulo formatting) from Ofir Press's reference implementation:
    # github.com/ofirpress/attention_with_linear_biases, fairseq/models/transformer.py
    # (TransformerDecoder.__init__, nested `get_slopes`).
    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    else:
        closest_power_of_2 = 2 ** math.floor(math.log2(n))
        return (
            get_slopes_power_of_2(closest_power_of_2)
            + press_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
        )


def section_alibi(meta):
    out = {}
    max_rel_err = 0.0
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64]:
        slopes = press_get_slopes(n)
        assert len(slopes) == n
        mask = torch.ones(1, 4, dtype=torch.int64)
        alibi = build_alibi_tensor(mask, n, torch.float64)  # (n, 1, 4); alibi = slope * position
        assert torch.equal(alibi[:, 0, 0], torch.zeros(n, dtype=torch.float64))
        bloom = (alibi[:, 0, 1] / 1).numpy()
        assert np.allclose(alibi[:, 0, 3].numpy(), 3 * bloom, rtol=1e-6, atol=0)  # float32 product inside
        # Bloom's _get_alibi_slopes computes in float32 -> compare with rtol 1e-6, not 1e-12.
        rel = np.max(np.abs(bloom - np.array(slopes)) / np.array(slopes))
        max_rel_err = max(max_rel_err, rel)
        assert rel < 1e-6, (n, rel)
        out[str(n)] = [float(s) for s in slopes]
    meta["alibi_note"] = (
        "Slopes are Press et al.'s get_slopes (pure Python float64). Cross-checked against "
        "transformers Bloom build_alibi_tensor, which computes slopes in float32 "
        f"(max relative difference {max_rel_err:.3g})."
    )
    summary("alibi_slopes", f"{len(out)} head counts, max rel diff vs Bloom(float32) {max_rel_err:.2e}")
    return out


# --------------------------------------------------------------------------- 3. T5


def t5_bucket_numpy_f64(rp, bidirectional, num_buckets, max_distance):
    rp = np.asarray(rp, dtype=np.int64)
    ret = np.zeros_like(rp)
    if bidirectional:
        num_buckets //= 2
        ret += (rp > 0).astype(np.int64) * num_buckets
        n = np.abs(rp)
    else:
        n = -np.minimum(rp, 0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) where is_small anyway
        large = max_exact + (
            np.log(n.astype(np.float64) / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return ret + np.where(is_small, n, large)


def section_t5(meta):
    cases = []
    f64_diffs = []
    rp = torch.arange(-300, 301, dtype=torch.long)  # memory_position - query_position (key - query)
    for bidirectional, num_buckets, max_distance in [
        (True, 32, 128),
        (False, 32, 128),
        (True, 64, 256),
        (False, 16, 64),
        (True, 8, 20),
    ]:
        b = T5Attention._relative_position_bucket(
            rp, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
        )
        assert b.dtype == torch.long
        b = b.numpy()
        assert b.min() >= 0 and b.max() < num_buckets
        ref64 = t5_bucket_numpy_f64(rp.numpy(), bidirectional, num_buckets, max_distance)
        diff = np.nonzero(ref64 != b)[0]
        if diff.size:
            f64_diffs.append(
                {
                    "bidirectional": bidirectional,
                    "num_buckets": num_buckets,
                    "max_distance": max_distance,
                    "relative_position": rp.numpy()[diff].tolist(),
                    "bucket_reference_float32": b[diff].tolist(),
                    "bucket_float64": ref64[diff].tolist(),
                }
            )
        cases.append(
            {
                "bidirectional": bidirectional,
                "num_buckets": num_buckets,
                "max_distance": max_distance,
                "relative_position": tolist(rp),
                "bucket": b.tolist(),
            }
        )
    meta["t5_note"] = (
        "T5Attention._relative_position_bucket (static). relative_position = key_pos - query_pos "
        "(memory - context). The reference computes the log in float32 (relative_position.float()); "
        "t5_float64_differences lists positions where a float64 computation gives another bucket."
    )
    meta["t5_float64_differences"] = f64_diffs
    summary(
        "t5_bucket",
        f"{len(cases)} configs x {rp.numel()} positions; float64-vs-float32 bucket diffs: "
        f"{sum(len(d['relative_position']) for d in f64_diffs)}",
    )
    return cases


# --------------------------------------------------------------------------- 4. RoPE init


def make_llama_config(head_dim, base, max_position_embeddings, rope_parameters):
    n_heads = 4
    params = dict(rope_parameters)
    params["rope_theta"] = float(base)
    return LlamaConfig(
        vocab_size=16,
        hidden_size=head_dim * n_heads,
        intermediate_size=16,
        num_hidden_layers=1,
        num_attention_heads=n_heads,
        num_key_value_heads=n_heads,
        head_dim=head_dim,
        max_position_embeddings=max_position_embeddings,
        rope_parameters=params,
    )


def rope_numpy_f64(head_dim, base, rs, max_position_embeddings, seq_len):
    """Independent float64 re-derivation of the transformers formulas (cross-check only)."""
    d = head_dim
    exps = np.arange(0, d, 2, dtype=np.float64) / d
    inv = 1.0 / (base**exps)
    t = rs["rope_type"]
    if t == "default":
        return inv, 1.0
    if t == "linear":
        return inv / rs["factor"], 1.0
    if t == "dynamic":
        mpe = max_position_embeddings
        s = mpe if seq_len is None else max(seq_len, mpe)
        f = rs["factor"]
        b = base * ((f * s / mpe) - (f - 1)) ** (d / (d - 2))
        return 1.0 / (b**exps), 1.0
    if t == "yarn":
        f = rs["factor"]
        omp = rs["original_max_position_embeddings"]
        bf = rs.get("beta_fast") or 32
        bs = rs.get("beta_slow") or 1

        def msc(scale, m=1.0):
            return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

        af = rs.get("attention_factor")
        if af is None:
            if rs.get("mscale") and rs.get("mscale_all_dim"):
                af = msc(f, rs["mscale"]) / msc(f, rs["mscale_all_dim"])
            else:
                af = msc(f)

        def corr_dim(nrot):
            return (d * math.log(omp / (nrot * 2 * math.pi))) / (2 * math.log(base))

        low, high = corr_dim(bf), corr_dim(bs)
        if rs.get("truncate", True):
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, d - 1)
        if low == high:
            high += 0.001
        ramp = np.clip((np.arange(d // 2, dtype=np.float64) - low) / (high - low), 0, 1)
        extrap = 1 - ramp
        pos = base**exps
        return (1.0 / (f * pos)) * (1 - extrap) + (1.0 / pos) * extrap, af
    if t == "llama3":
        f, lo, hi, omp = (
            rs["factor"],
            rs["low_freq_factor"],
            rs["high_freq_factor"],
            rs["original_max_position_embeddings"],
        )
        wl = 2 * math.pi / inv
        low_wl, high_wl = omp / lo, omp / hi
        out = np.where(wl > low_wl, inv / f, inv)
        smooth = (omp / wl - lo) / (hi - lo)
        smoothed = (1 - smooth) * out / f + smooth * out
        medium = ~(wl < high_wl) & ~(wl > low_wl)
        return np.where(medium, smoothed, out), 1.0
    raise ValueError(t)


def hf_rope_init(head_dim, base, rs, max_position_embeddings, seq_len):
    """Call the transformers init function; returns (inv_freq tensor, attention_factor, hf params used)."""
    hf_params = {
        k: v for k, v in rs.items() if not (rs["rope_type"] == "dynamic" and k == "original_max_position_embeddings")
    }
    cfg = make_llama_config(head_dim, base, max_position_embeddings, hf_params)
    if rs["rope_type"] == "default":
        fn = LlamaRotaryEmbedding.compute_default_rope_parameters
        inv, af = fn(cfg)
    else:
        fn = ROPE_INIT_FUNCTIONS[rs["rope_type"]]
        inv, af = fn(cfg, None, seq_len)
    return inv, float(af), dict(cfg.rope_parameters)


def section_rope_init(meta):
    cases = []
    specs = []
    # (label, head_dim, base, rope_scaling, max_position_embeddings, seq_len)
    specs.append(("default_64", 64, 10000.0, {"rope_type": "default"}, 2048, None))
    specs.append(("default_128", 128, 500000.0, {"rope_type": "default"}, 8192, None))
    specs.append(("linear_4", 64, 10000.0, {"rope_type": "linear", "factor": 4.0}, 2048, None))
    for s in [None, 1024, 2048, 4096, 8192]:
        specs.append(
            (
                f"dynamic_2_seq{s}",
                64,
                10000.0,
                {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 2048},
                2048,
                s,
            )
        )
    yarn_base = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}
    specs.append(("yarn_4", 64, 10000.0, dict(yarn_base), 8192, None))
    specs.append(("yarn_4_attn0.8", 64, 10000.0, dict(yarn_base, attention_factor=0.8), 8192, None))
    specs.append(("yarn_4_beta16_2", 64, 10000.0, dict(yarn_base, beta_fast=16.0, beta_slow=2.0), 8192, None))
    specs.append(("yarn_4_notruncate", 64, 10000.0, dict(yarn_base, truncate=False), 8192, None))
    specs.append(("yarn_4_mscale1_0.5", 64, 10000.0, dict(yarn_base, mscale=1.0, mscale_all_dim=0.5), 8192, None))
    specs.append(("yarn_4_head128_base500k", 128, 500000.0, dict(yarn_base), 8192, None))
    specs.append(
        (
            "llama3_1",
            128,
            500000.0,
            {
                "rope_type": "llama3",
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
            },
            131072,
            None,
        )
    )
    specs.append(
        (
            "llama3_small",
            64,
            10000.0,
            {
                "rope_type": "llama3",
                "factor": 4.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 2.0,
                "original_max_position_embeddings": 2048,
            },
            8192,
            None,
        )
    )

    max_f32_rel = 0.0
    for label, head_dim, base, rs, mpe, seq_len in specs:
        inv32, af, hf_params = hf_rope_init(head_dim, base, rs, mpe, seq_len)
        with float64_aliases():
            inv64, af64, _ = hf_rope_init(head_dim, base, rs, mpe, seq_len)
        assert inv32.dtype == torch.float32, (label, inv32.dtype)
        assert inv64.dtype == torch.float64, (label, inv64.dtype)
        assert af == af64
        np64, np_af = rope_numpy_f64(head_dim, base, rs, mpe, seq_len)
        assert np.allclose(inv64.numpy(), np64, rtol=1e-12, atol=0), label
        assert math.isclose(af, np_af, rel_tol=1e-15), (label, af, np_af)
        rel = float(np.max(np.abs(inv32.double().numpy() - np64) / np64))
        max_f32_rel = max(max_f32_rel, rel)
        assert rel < 2e-6, (label, rel)
        assert inv32.shape == (head_dim // 2,)
        cases.append(
            {
                "name": label,
                "head_dim": head_dim,
                "base": base,
                "rope_scaling": rs,
                "hf_rope_parameters": hf_params,
                "max_position_embeddings": mpe,
                "seq_len": seq_len,
                "inv_freq": tolist(inv32),
                "inv_freq_f64": tolist(inv64),
                "attention_factor": af,
            }
        )
    meta["rope_init_note"] = (
        "ROPE_INIT_FUNCTIONS[type](config, device=None, seq_len) from transformers.modeling_rope_utils; "
        "'default' is not in ROPE_INIT_FUNCTIONS in this version, so LlamaRotaryEmbedding."
        "compute_default_rope_parameters(config) is used. Config: LlamaConfig(head_dim=..., "
        "hidden_size=4*head_dim, num_attention_heads=4, max_position_embeddings=..., "
        "rope_parameters=hf_rope_parameters) (transformers>=5 `rope_parameters`; rope_theta lives inside it). "
        "'inv_freq' = reference output (float32). 'inv_freq_f64' = same code with torch.float/float32 "
        "aliased to float64, cross-checked (rtol 1e-12) against a NumPy float64 re-derivation. "
        f"Max relative diff float32 vs float64: {max_f32_rel:.3g}. "
        "dynamic: the function uses seq_len = max(seq_len, config.max_position_embeddings) "
        "(None -> max_position_embeddings) and base' = base*((factor*seq_len/mpe) - (factor-1))**(d/(d-2)); "
        "original_max_position_embeddings is NOT a dynamic key in transformers (it uses "
        "config.max_position_embeddings), so it is kept in 'rope_scaling' (our format) but dropped from "
        "hf_rope_parameters. yarn: config.max_position_embeddings = factor*original = 8192 (only used by "
        "transformers if factor is None); truncate key supported (default True). yarn attention_factor: explicit "
        "value if given, else if mscale and mscale_all_dim both truthy get_mscale(f, mscale)/get_mscale(f, "
        "mscale_all_dim), else get_mscale(f) = 0.1*ln(f)+1 (1.0 if f<=1); beta_fast/beta_slow default 32/1 "
        "(via `or`); correction dims d*ln(omp/(2*pi*beta))/(2*ln(base)), floor/ceil when truncate, clamped to "
        "[0, d-1] (full d); ramp=(i-low)/(high-low) clipped to [0,1] over i in range(d//2) (computed in float32 "
        "in the reference), high+=0.001 if low==high; inv = interp*ramp + extrap*(1-ramp). llama3: "
        "wavelen=2*pi/inv; wavelen>omp/low_freq_factor -> inv/factor; wavelen<omp/high_freq_factor -> inv; "
        "otherwise (1-s)*inv/factor + s*inv with s=(omp/wavelen - low)/(high - low)."
    )
    meta["rope_init_precision"] = "float32 (inv_freq); inv_freq_f64 provided"
    summary("rope_init", f"{len(cases)} cases; max rel diff float32 vs float64 inv_freq {max_f32_rel:.2e}")
    return cases


# --------------------------------------------------------------------------- 5. RoPE apply (half)


def rope_x():
    return np.random.default_rng(0).standard_normal((1, 1, 6, 8))


def section_rope_apply_half(meta):
    out = []
    x_np = rope_x()
    head_dim, base = 8, 10000.0
    for positions, rs in [
        ([0, 1, 2, 5, 10, 100], {"rope_type": "default"}),
        ([0, 1, 2, 3, 4, 5], {"rope_type": "linear", "factor": 2.0}),
    ]:
        with float64_aliases():
            inv64, af, _ = hf_rope_init(head_dim, base, rs, 2048, None)
        assert inv64.dtype == torch.float64 and af == 1.0
        pos = torch.tensor(positions, dtype=torch.float64)[None, :]  # (batch=1, seq)
        freqs = pos[..., None] * inv64  # (1, seq, d/2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()  # (1, seq, d)
        x = torch.from_numpy(x_np.copy())  # (batch, heads, seq, head_dim)
        q_embed, k_embed = modeling_llama.apply_rotary_pos_emb(x, x.clone(), cos, sin, unsqueeze_dim=1)
        assert q_embed.dtype == torch.float64
        assert torch.equal(q_embed, k_embed)
        # norm preservation per position
        assert torch.allclose(q_embed.norm(dim=-1), x.norm(dim=-1), rtol=1e-12)
        # cross-check against the real LlamaRotaryEmbedding module (computes cos/sin in float32)
        cfg = make_llama_config(head_dim, base, 2048, rs)
        rot = LlamaRotaryEmbedding(cfg)
        cos32, sin32 = rot(x, torch.tensor(positions)[None, :])
        q32, _ = modeling_llama.apply_rotary_pos_emb(x, x, cos32, sin32)
        err = float((q32 - q_embed).abs().max())
        assert err < 1e-4, err
        out.append(
            {
                "head_dim": head_dim,
                "base": base,
                "rope_scaling": rs,
                "layout": "(batch, heads, seq, head_dim)",
                "x": tolist(x),
                "positions": positions,
                "output": tolist(q_embed),
                "max_abs_diff_vs_LlamaRotaryEmbedding_float32": err,
            }
        )
        summary(
            "rope_apply_half",
            f"{rs['rope_type']} positions={positions}: max|f64 - LlamaRotaryEmbedding(f32)| {err:.2e}",
        )
    meta["rope_apply_half_note"] = (
        "transformers.models.llama.modeling_llama.apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1) "
        "(uses rotate_half: cat(-x2, x1)) with cos/sin = cat(freqs, freqs).cos()/.sin() computed in float64 "
        "from inv_freq_f64 (default resp. linear init); freqs = position * inv_freq."
    )
    return out


# --------------------------------------------------------------------------- 6. RoPE apply (GPT-J interleaved)


def section_rope_apply_interleaved(meta):
    x_np = rope_x()  # (batch, heads, seq, head_dim) -- same x as rope_apply_half
    positions = [0, 1, 2, 5, 10, 100]
    rotary_dim = 8
    with float64_aliases():
        embed_positions = modeling_gptj.create_sinusoidal_positions(max(positions) + 1, rotary_dim)
        assert embed_positions.dtype == torch.float64
        # as in GPTJAttention.forward: gather rows, split into sin | cos
        pos_ids = torch.tensor(positions, dtype=torch.long)[None, :]
        ep = embed_positions[None].repeat(pos_ids.shape[0], 1, 1)
        idx = pos_ids.unsqueeze(-1).repeat(1, 1, ep.shape[-1])
        sincos = torch.gather(ep, 1, idx)
        sin, cos = torch.split(sincos, sincos.shape[-1] // 2, dim=-1)
        x = torch.from_numpy(x_np.copy()).permute(0, 2, 1, 3)  # GPT-J layout (batch, seq, heads, head_dim)
        y = modeling_gptj.apply_rotary_pos_emb(x, sin, cos)
        y = y.permute(0, 2, 1, 3)  # back to (batch, heads, seq, head_dim)
    assert y.dtype == torch.float64
    x_t = torch.from_numpy(x_np)
    assert torch.allclose(y.norm(dim=-1), x_t.norm(dim=-1), rtol=1e-12)
    # check: pair (2i, 2i+1) rotated by angle pos * base**(-2i/d)
    inv = 1.0 / 10000.0 ** (np.arange(0, rotary_dim, 2) / rotary_dim)
    ang = np.array(positions)[:, None] * inv[None, :]
    xe, xo = x_np[0, 0, :, 0::2], x_np[0, 0, :, 1::2]
    ye = xe * np.cos(ang) - xo * np.sin(ang)
    yo = xo * np.cos(ang) + xe * np.sin(ang)
    assert np.allclose(y.numpy()[0, 0, :, 0::2], ye, rtol=0, atol=1e-12)
    assert np.allclose(y.numpy()[0, 0, :, 1::2], yo, rtol=0, atol=1e-12)
    meta["rope_apply_interleaved_note"] = (
        "transformers.models.gptj.modeling_gptj: create_sinusoidal_positions(num_pos, dim) -> cat(sin, cos); "
        "apply_rotary_pos_emb(tensor, sin, cos) with rotate_every_two (pairs (2i, 2i+1)); run in float64 "
        "(default dtype float64). x is stored as (batch, heads, seq, head_dim); it was permuted to GPT-J's "
        "(batch, seq, heads, head_dim) for the call and the output permuted back. base fixed at 10000 in GPT-J."
    )
    summary("rope_apply_interleaved", f"positions={positions}, rotary_dim={rotary_dim}, float64")
    return {
        "head_dim": 8,
        "rotary_dim": rotary_dim,
        "base": 10000.0,
        "layout": "(batch, heads, seq, head_dim)",
        "x": tolist(x_np),
        "positions": positions,
        "output": tolist(y),
    }


# --------------------------------------------------------------------------- 7. DeBERTa


def section_deberta(meta):
    cases = []
    diffs_total = 0
    rp = torch.arange(-600, 601, dtype=torch.long)
    for bucket_size, max_position in [(256, 512), (32, 128)]:
        res = make_log_bucket_position(rp, bucket_size, max_position)  # float32 internally (torch defaults)
        assert res.dtype == torch.float32
        assert torch.equal(res, res.round())
        with float64_aliases():
            res64 = make_log_bucket_position(rp, bucket_size, max_position)
        assert res64.dtype == torch.float64
        d = (res.double() != res64).nonzero().flatten()
        diffs_total += d.numel()
        mid = bucket_size // 2
        small = rp.abs() <= mid
        assert torch.equal(res[small].long(), rp[small])
        assert int(res.abs().max()) <= bucket_size - 1 or True  # informative only
        cases.append(
            {
                "bucket_size": bucket_size,
                "max_position": max_position,
                "relative_position": tolist(rp),
                "result": [int(v) for v in res.long().tolist()],
                "float64_differs_at": tolist(rp[d]),
                "result_float64_at_those": [int(v) for v in res64[d].long().tolist()],
            }
        )
    q = torch.zeros(1, 5, 4)
    k = torch.zeros(1, 7, 4)
    brp = []
    for kwargs in [{}, {"bucket_size": 4, "max_position": 8}]:
        r = build_relative_position(q, k, **kwargs)
        assert r.dtype == torch.long and tuple(r.shape) == (1, 5, 7)
        brp.append(
            {
                "call": "build_relative_position(query_layer=zeros(1,5,4), key_layer=zeros(1,7,4)"
                + "".join(f", {kk}={vv}" for kk, vv in kwargs.items())
                + ")",
                "query_size": 5,
                "key_size": 7,
                "bucket_size": kwargs.get("bucket_size", -1),
                "max_position": kwargs.get("max_position", -1),
                "result": tolist(r),
            }
        )
    assert brp[0]["result"][0][1][0] == 1  # q - k
    meta["deberta_note"] = (
        "make_log_bucket_position(relative_pos: LongTensor, bucket_size, max_position) computes the log in "
        "float32 (torch default dtype) and returns a float tensor of integer values; 'result' holds those as ints. "
        "'float64_differs_at' lists positions where the same code under float64 default dtype differs "
        f"(total {diffs_total}). build_relative_position takes (query_layer, key_layer, bucket_size=-1, "
        "max_position=-1) tensors (sizes read from dim -2) and returns q_pos - k_pos, shape (1, q, k). "
        "Note: make_log_bucket_position does NOT clamp: |result| can exceed bucket_size (e.g. +-43 at +-600 "
        "for bucket_size=32, max_position=128); relative positions with |rp| <= bucket_size//2 pass through."
    )
    summary(
        "deberta_log_bucket",
        f"{len(cases)} configs x {rp.numel()} positions, float64 diffs {diffs_total}; "
        f"build_relative_position x{len(brp)}",
    )
    return {"make_log_bucket_position": cases, "build_relative_position": brp}


# --------------------------------------------------------------------------- 8. xPos


def section_xpos(meta):
    try:
        import importlib.metadata as im

        from torchscale.component import xpos_relative_position as xp

        ts_version = im.version("torchscale")
    except Exception as e:  # pragma: no cover - depends on environment
        meta["xpos_note"] = f"skipped: torchscale could not be imported ({e!r})"
        summary("xpos", "SKIPPED")
        return None
    meta["torchscale"] = ts_version
    x_np = np.random.default_rng(1).standard_normal((1, 6, 8))
    head_dim, scale_base = 8, 512
    res = {
        "head_dim": head_dim,
        "scale_base": scale_base,
        "layout": "(batch*heads, seq, head_dim)",
        "x": tolist(x_np),
        "cases": [],
    }
    for offset in [0, 3]:
        outs = {}
        for downscale in [False, True]:
            with float64_aliases():
                m = xp.XPOS(head_dim, scale_base=scale_base)
                assert m.scale.dtype == torch.float64
                y = m(torch.from_numpy(x_np.copy()), offset=offset, downscale=downscale)
            assert y.dtype == torch.float64
            # default torch settings, module + x in float64 (sin/cos args float32 inside)
            m32 = xp.XPOS(head_dim, scale_base=scale_base).double()
            y32 = m32(torch.from_numpy(x_np.copy()), offset=offset, downscale=downscale)
            err = float((y32 - y).abs().max())
            assert err < 1e-5, err
            outs[downscale] = (y, err)
        L = x_np.shape[1]
        min_pos = -(L + offset) // 2
        max_pos = L + offset + min_pos
        # independent NumPy check of the description in meta["xpos_note"]
        sp = np.arange(min_pos, max_pos)[-L:].astype(np.float64)
        rp = np.arange(0, max_pos - min_pos)[-L:].astype(np.float64)
        zeta = (np.arange(0, head_dim, 2) + 0.4 * head_dim) / (1.4 * head_dim)
        sc = zeta[None, :] ** (sp[:, None] / scale_base)
        ang = rp[:, None] * (1.0 / 10000 ** (np.arange(head_dim // 2) / (head_dim // 2)))[None, :]
        for downscale in [False, True]:
            s_ = 1 / sc if downscale else sc
            xe, xo = x_np[0, :, 0::2], x_np[0, :, 1::2]
            ye = (xe * np.cos(ang) - xo * np.sin(ang)) * s_
            yo = (xo * np.cos(ang) + xe * np.sin(ang)) * s_
            yy = outs[downscale][0].numpy()[0]
            assert np.allclose(yy[:, 0::2], ye, rtol=1e-12, atol=1e-14)
            assert np.allclose(yy[:, 1::2], yo, rtol=1e-12, atol=1e-14)
        res["cases"].append(
            {
                "offset": offset,
                "scale_positions": list(range(min_pos, max_pos))[-L:],
                "rotation_positions": list(range(0, max_pos - min_pos))[-L:],
                "output_q": tolist(outs[False][0]),
                "output_k": tolist(outs[True][0]),
                "max_abs_diff_vs_float32_defaults": max(outs[False][1], outs[True][1]),
            }
        )
    meta["xpos_note"] = (
        f"torchscale {ts_version} torchscale.component.xpos_relative_position.XPOS(head_dim, scale_base). "
        "forward(x, offset, downscale): length=x.shape[1]; min_pos = -(length+offset)//2 (Python: "
        "(-(length+offset))//2, i.e. floor); max_pos = length+offset+min_pos; "
        "scale = zeta**(arange(min_pos, max_pos)/scale_base) with zeta = (arange(0,d,2)+0.4d)/(1.4d); "
        "the ROTATION angles use positions 0..(length+offset-1) (fixed_pos_embedding ignores min_pos; "
        "inv_freq = 10000**(-arange(0,d/2)/(d/2)) = 10000**(-2i/d)); rows are then trimmed to the last "
        "`length`. Both cos and sin are multiplied by scale (downscale=True uses 1/scale), interleaved "
        "pairs (rotate_every_two). output_q: downscale=False, output_k: downscale=True. Computed in float64 "
        "(torch.float aliased); see max_abs_diff_vs_float32_defaults for torch-default precision."
    )
    summary("xpos", f"torchscale {ts_version}: offsets 0,3 x downscale F/T, float64")
    return res


# --------------------------------------------------------------------------- main


# --------------------------------------------------------------------------- 8. RoPE since 2024


def _f64_case(fn):
    """Run ``fn`` once as the reference runs it (float32) and once in float64."""
    out32 = fn()
    with float64_aliases():
        out64 = fn()
    return out32, out64


def section_rope_modern(meta):
    """LongRoPE, partial rotary, p-RoPE ("proportional"), M-RoPE (Qwen2-VL) and Llama 4's NoPE layers."""
    from transformers import GPTNeoXConfig, Llama4TextConfig, Qwen2VLTextConfig
    from transformers.models.gpt_neox import modeling_gpt_neox
    from transformers.models.qwen2_vl import modeling_qwen2_vl

    init_cases = []
    # LongRoPE: Phi-3-style head_dim 96, original 4096, extended 131072; factor lists made up but fixed
    short = [round(1.0 + 0.02 * i, 4) for i in range(48)]
    long = [round(1.0 + 0.5 * i, 4) for i in range(48)]
    longrope = {
        "rope_type": "longrope",
        "short_factor": short,
        "long_factor": long,
        "original_max_position_embeddings": 4096,
    }
    specs = [
        ("longrope_short", 96, 10000.0, dict(longrope), 131072, None),
        ("longrope_short_4096", 96, 10000.0, dict(longrope), 131072, 4096),
        ("longrope_long", 96, 10000.0, dict(longrope), 131072, 5000),
        ("longrope_attn", 96, 10000.0, dict(longrope, attention_factor=1.5), 131072, 5000),
        ("longrope_factor", 96, 10000.0, dict(longrope, factor=8.0), 131072, None),
        (
            "linear_partial",
            64,
            10000.0,
            {"rope_type": "linear", "factor": 2.0, "partial_rotary_factor": 0.5},
            2048,
            None,
        ),
        (
            "yarn_partial",
            64,
            10000.0,
            {
                "rope_type": "yarn",
                "factor": 4.0,
                "original_max_position_embeddings": 2048,
                "partial_rotary_factor": 0.5,
            },
            8192,
            None,
        ),
        ("proportional_quarter", 64, 10000.0, {"rope_type": "proportional", "partial_rotary_factor": 0.25}, 2048, None),
        (
            "proportional_half_f2",
            128,
            1000000.0,
            {"rope_type": "proportional", "partial_rotary_factor": 0.5, "factor": 2.0},
            2048,
            None,
        ),
        ("proportional_zero", 32, 10000.0, {"rope_type": "proportional", "partial_rotary_factor": 0.0}, 2048, None),
    ]
    for label, head_dim, base, rs, mpe, seq_len in specs:
        cfg = make_llama_config(head_dim, base, mpe, rs)
        inv32, inv64 = _f64_case(
            lambda cfg=cfg, rs=rs, seq_len=seq_len: ROPE_INIT_FUNCTIONS[rs["rope_type"]](cfg, None, seq_len)
        )
        ours = dict(rs)
        if rs["rope_type"] == "longrope" and "factor" not in rs:
            ours["max_position_embeddings"] = mpe  # our format carries the extended length in rope_scaling
        init_cases.append(
            {
                "name": label,
                "head_dim": head_dim,
                "base": base,
                "rope_scaling": ours,
                "seq_len": seq_len,
                "inv_freq": tolist(inv32[0]),
                "inv_freq_f64": tolist(inv64[0]),
                "attention_factor": float(inv64[1]),
            }
        )

    # partial rotary in GPT-NeoX: only the first rotary_ndims dims turn (rotate_half within them)
    x_np = np.random.default_rng(7).standard_normal((1, 1, 5, 16))
    neox_cases = []
    for fraction in (0.25, 0.5):
        cfg = GPTNeoXConfig(
            vocab_size=16,
            hidden_size=64,
            num_attention_heads=4,
            intermediate_size=16,
            num_hidden_layers=1,
            rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": fraction},
        )
        positions = [0, 1, 2, 7, 30]
        with float64_aliases():
            emb = modeling_gpt_neox.GPTNeoXRotaryEmbedding(cfg)
            x = torch.tensor(x_np, dtype=torch.float64)
            cos, sin = emb(x, torch.tensor([positions]))
            q, _ = modeling_gpt_neox.apply_rotary_pos_emb(x, x, cos.double(), sin.double())
        neox_cases.append(
            {"partial_rotary_factor": fraction, "positions": positions, "x": tolist(x_np), "out": tolist(q)}
        )

    # M-RoPE: Qwen2-VL's rotary embedding with three position streams, then its rotation
    pos3 = [[0, 1, 2, 2, 2, 2, 5], [0, 1, 2, 2, 3, 3, 5], [0, 1, 2, 3, 2, 3, 5]]
    y_np = np.random.default_rng(8).standard_normal((1, 1, 7, 16))
    cfg = Qwen2VLTextConfig(
        vocab_size=16,
        hidden_size=64,
        num_attention_heads=4,
        num_key_value_heads=4,
        intermediate_size=16,
        num_hidden_layers=1,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [2, 3, 3]},
    )
    with float64_aliases():
        emb = modeling_qwen2_vl.Qwen2VLRotaryEmbedding(cfg)
        y = torch.tensor(y_np, dtype=torch.float64)
        cos, sin = emb(y, torch.tensor(pos3)[:, None, :])
        mq, _ = modeling_qwen2_vl.apply_rotary_pos_emb(y, y, cos.double(), sin.double())
    mrope = {"positions": pos3, "mrope_section": [2, 3, 3], "base": 1000000.0, "x": tolist(y_np), "out": tolist(mq)}

    nope = []
    for layers, interval in ((8, 4), (12, 3), (5, 1)):
        cfg = Llama4TextConfig(num_hidden_layers=layers, no_rope_layer_interval=interval)
        nope.append({"n_layers": layers, "interval": interval, "no_rope_layers": list(cfg.no_rope_layers)})

    meta["rope_modern_note"] = (
        "rope_init-style cases for longrope / partial_rotary_factor / proportional through "
        "ROPE_INIT_FUNCTIONS[type](LlamaConfig(...), None, seq_len); 'inv_freq' float32 as the reference "
        "returns it, 'inv_freq_f64' the same code with torch.float aliased to float64. longrope: factor None "
        "-> config.max_position_embeddings / original (our format: 'max_position_embeddings' in rope_scaling); "
        "long factors when seq_len > original. neox: GPTNeoXRotaryEmbedding + apply_rotary_pos_emb (partial: "
        "first rotary_ndims dims rotated, rest passed). mrope: Qwen2VLRotaryEmbedding(position_ids (3, 1, T)) "
        "+ apply_rotary_pos_emb, in float64. nope: Llama4TextConfig(...).no_rope_layers (1 = RoPE, 0 = NoPE)."
    )
    summary("rope_modern", f"{len(init_cases)} init cases, {len(neox_cases)} GPT-NeoX, 1 M-RoPE, {len(nope)} NoPE")
    return {"init": init_cases, "neox": neox_cases, "mrope": mrope, "nope": nope}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)

    torch.manual_seed(0)
    meta = {
        "generator": "tools/make_reference_snapshots.py",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
    }
    data = {"meta": meta}
    data["alibi_slopes"] = section_alibi(meta)
    data["t5_bucket"] = section_t5(meta)
    data["rope_init"] = section_rope_init(meta)
    data["rope_apply_half"] = section_rope_apply_half(meta)
    data["rope_apply_interleaved"] = section_rope_apply_interleaved(meta)
    data["deberta_log_bucket"] = section_deberta(meta)
    data["rope_modern"] = section_rope_modern(meta)
    xpos = section_xpos(meta)
    if xpos is not None:
        data["xpos"] = xpos

    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1)
    # round-trip check: floats survive exactly
    assert json.loads(text) == json.loads(json.dumps(json.loads(text)))
    args.out.write_text(text + "\n")
    size = args.out.stat().st_size
    assert size < 1_500_000, size
    print(f"wrote {args.out} ({size} bytes)")


if __name__ == "__main__":
    sys.exit(main())
