"""The "Design choices" page under AppTest: each view's numbers against independent
computations (formulas written out here, the stored experiment files read directly),
never copied from a run of the page."""

from __future__ import annotations

import base64
import inspect
import math
from pathlib import Path

import numpy as np
import pytest
from app_helpers import assert_clean, chart_bytes, charts, notices, open_page

from posenc_lab.course import lesson_by_path
from posenc_lab.lessons.choices import measure as props

PAGE = "posenc_lab/lessons/choices/page.py"
DATA = Path(__file__).resolve().parents[1] / "posenc_lab" / "lessons" / "experiments" / "data"
MB = 1_000_000


def arr(value) -> np.ndarray:
    """A Plotly array from the JSON spec: typed (base64) or a plain list (None -> NaN)."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            out = out.reshape([int(s) for s in str(value["shape"]).split(",")])
        return out.astype(float)
    return np.array([np.nan if v is None else v for v in value], dtype=float)


def sinusoid(positions, d: int, base: float = 10_000.0) -> np.ndarray:
    """PE written out: column 2i is sin(p / base^(2i/d)), column 2i + 1 its cosine."""
    p = np.asarray(positions, dtype=float)[:, None]
    w = base ** (-np.arange(0, d, 2) / d)
    out = np.empty((p.shape[0], d))
    out[:, 0::2], out[:, 1::2] = np.sin(p * w), np.cos(p * w)
    return out


def tokens(n: int, d: int, scale: str, seed: int) -> np.ndarray:
    """Token vectors as the lesson says it draws them: N(0, s^2), seeded."""
    rng = np.random.default_rng(seed)
    if scale == "vaswani":
        return rng.normal(0.0, 1 / math.sqrt(d), (n, d)) * math.sqrt(d)
    return rng.normal(0.0, 0.02 if scale == "gpt2" else 1 / math.sqrt(d), (n, d))


def metric(at, start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(start))


def notice(at) -> str:
    return notices(at)[0]


def traces(spec) -> dict[str, dict]:
    return {t["name"]: t for t in spec["data"]}


# add or concatenate


def test_norm_curves_are_sqrt_half_d_for_the_sinusoid_and_follow_each_token_scale():
    at = open_page(PAGE, {"view": "add", "d_model": "64", "scale": "unit"})
    assert_clean(at)
    assert not at.warning
    lines = traces(charts(at)[0])
    widths = arr(lines["sinusoid, sqrt(d/2)"]["x"])
    np.testing.assert_array_equal(widths, 2 ** np.arange(1, 11))
    np.testing.assert_allclose(arr(lines["sinusoid, sqrt(d/2)"]["y"]), np.sqrt(widths / 2), rtol=1e-6)
    names = {"unit": "tokens, std 1/sqrt(d)", "gpt2": "tokens, std 0.02", "vaswani": "tokens, times sqrt(d)"}
    for scale, name in names.items():
        expected = [np.linalg.norm(tokens(256, int(d), scale, 0), axis=1).mean() for d in widths]
        np.testing.assert_allclose(arr(lines[name]["y"]), expected, rtol=1e-5)


@pytest.mark.parametrize("scale", ["unit", "vaswani"])
def test_score_parts_are_the_rms_of_the_three_terms(scale):
    at = open_page(PAGE, {"view": "add", "d_model": "128", "scale": scale})
    assert_clean(at)
    bars = charts(at)[1]
    (trace,) = bars["data"]
    x, pe = tokens(64, 128, scale, 1), sinusoid(range(64), 128)
    cross = x @ pe.T + pe @ x.T
    expected = [np.sqrt(np.mean((x @ x.T) ** 2)), np.sqrt(np.mean(cross**2)), np.sqrt(np.mean((pe @ pe.T) ** 2))]
    np.testing.assert_allclose(arr(trace["customdata"]).reshape(-1), expected, rtol=1e-6)
    ratio = expected[2] / expected[0]
    assert f"the position part of the score is {ratio:.3g} times the content part" in notice(at)
    assert metric(at, "Tokens read back, concatenated") == "100%"
    # 3 d x d weights added, 3 d x 2d concatenated
    assert metric(at, "Query, key and value weights") == f"{3 * 128 * 256:,}"


def test_unit_tokens_are_mostly_lost_under_the_code_and_scaled_ones_are_not():
    small = open_page(PAGE, {"view": "add", "d_model": "512", "scale": "unit"})
    big = open_page(PAGE, {"view": "add", "d_model": "512", "scale": "vaswani"})
    assert float(metric(small, "Tokens read back, added").rstrip("%")) < 50
    assert float(metric(big, "Tokens read back, added").rstrip("%")) > 99


# caching during generation


def test_cache_counts_follow_each_methods_rule():
    at = open_page(PAGE, {"view": "cache", "t": "96", "train_len": "64"})
    assert_clean(at)
    counts, change = charts(at)
    cats = list(counts["data"][0]["x"])
    new = dict(zip(cats, arr(counts["data"][0]["customdata"]).reshape(-1), strict=True))
    changed = dict(zip(cats, arr(counts["data"][1]["customdata"]).reshape(-1), strict=True))
    largest = dict(zip(cats, arr(change["data"][0]["customdata"]).reshape(-1), strict=True))
    assert "Learned" not in cats, "no row for token 97 in a 64-row table"
    assert any("Learned: no bars" in c.value for c in at.caption)
    for name in ("Sinusoid", "RoPE", "RoPE + YaRN"):
        assert new[name] == 64 and changed[name] == 0 and largest[name] == 0
    for name in ("ALiBi", "T5", "Transformer-XL"):
        assert new[name] == 97 and changed[name] == 0 and largest[name] < 1e-12
    # dynamic NTK past L: every cached entry moves but position 0 (64) and pair 0 (2 per row)
    assert changed["RoPE + dyn. NTK"] == 96 * 64 - 64 - 2 * 95
    assert changed["RoPE + PI grow"] == 95 * 64
    assert largest["RoPE + dyn. NTK"] > 1e-3
    assert "RoPE + dyn. NTK and RoPE + PI grow change up to 6,080" in notice(at)
    # the caption states the rule cache_step counts by: moves above rtol x max(1, |entry|), rtol = 1e-9
    rtol = inspect.signature(props.cache_step).parameters["rtol"].default
    assert rtol == 1e-9
    caption = " ".join(c.value for c in at.caption)
    assert "more than 1e-09 x max(1, largest |cached entry|)" in caption and "1e-12" not in caption
    assert "the fix is" not in caption and "A proposed fix" in caption and "PR #27227" in caption


def test_within_the_training_length_nothing_changes():
    at = open_page(PAGE, {"view": "cache", "t": "32", "train_len": "64"})
    counts = charts(at)[0]
    assert np.all(arr(counts["data"][1]["customdata"]) == 0)
    assert "Learned" in list(counts["data"][0]["x"])
    assert "move T past L" in notice(at)


# absolute plus relative


def test_hybrid_heatmap_is_the_score_change_of_x_plus_w_pe_with_alibi():
    at = open_page(
        PAGE, {"view": "hybrid", "weight": "0.5", "relative": "alibi", "absolute": "sinusoidal", "shift": "16"}
    )
    assert_clean(at)
    curve, heat = charts(at)
    x = np.random.default_rng(0).standard_normal((32, 64))  # the phrase: "random", seed 0

    def scores(start):
        h = x + 0.5 * sinusoid(range(start, start + 32), 64)
        pos = np.arange(start, start + 32)
        return h @ h.T / 8.0 - 0.5 * np.abs(pos[:, None] - pos[None, :])

    np.testing.assert_allclose(arr(heat["data"][0]["z"]), scores(16) - scores(0), atol=1e-4)
    lines = traces(curve)
    for name in ("RoPE", "ALiBi", "T5 buckets", "none (absolute only)"):
        y = arr(lines[name]["y"])
        assert y[0] < 1e-12, name
        assert y[20] == pytest.approx(2 * y[10], rel=1e-5), "the sinusoid's change is linear in w"
    assert arr(lines["ALiBi"]["y"])[10] == pytest.approx(np.abs(scores(16) - scores(0)).max(), rel=1e-5)
    assert "Doubling w from 0.5 to 1 multiplies the change by 2.00" in notice(at)


def test_a_learned_absolute_part_is_not_linear_in_w():
    at = open_page(PAGE, {"view": "hybrid", "absolute": "learned", "relative": "rope", "shift": "256"})
    assert_clean(at)
    y = arr(traces(charts(at)[0])["RoPE"]["y"])
    assert y[0] < 1e-9 and y[20] > 0.1
    assert abs(y[20] / y[10] - 2) > 0.01


# unique, bounded, norm-preserving


def test_two_dimensions_nearly_repeat_after_710_positions():
    at = open_page(PAGE, {"view": "properties", "d_model": "2", "n": "4096", "base": "10000"})
    assert_clean(at)
    assert metric(at, "Closest two of 4096") == f"{2 * abs(math.sin(355)):.3g}"
    distances = traces(charts(at)[0])
    k = arr(distances["sinusoid, d = 2"]["x"])
    np.testing.assert_allclose(arr(distances["sinusoid, d = 2"]["y"]), 2 * np.abs(np.sin(k / 2)), atol=1e-5)


def test_bounded_and_norm_preserving_are_measured():
    at = open_page(PAGE, {"view": "properties", "d_model": "64", "n": "2048", "base": "10000"})
    assert_clean(at)
    assert float(metric(at, "Largest |‖PE_p‖")) < 1e-12
    assert float(metric(at, "RoPE: largest")) < 1e-12
    ratios = traces(charts(at)[1])
    np.testing.assert_allclose(arr(ratios["RoPE"]["y"]), 1.0, atol=1e-6)
    query, key = arr(ratios["xPos, query"]["y"]), arr(ratios["xPos, key"]["y"])
    assert query[0] == pytest.approx(1.0) and query[-1] < 0.5 < 2 < key[-1]
    learned = arr(traces(charts(at)[0])["learned, std 0.02, 512 rows"]["y"])
    assert np.all(np.isnan(learned[511:])) and np.all(np.isfinite(learned[:511]))
    # random rows of std 0.02 in 64 dimensions lie about 0.02 sqrt(2 x 64) apart
    assert np.nanmean(learned) == pytest.approx(0.02 * math.sqrt(128), rel=0.05)


# which method should I choose?


def _stored(task: str, method: str) -> np.ndarray:
    with np.load(DATA / f"experiment_{task}.npz") as f:
        return f[f"accuracy_{method}"][:2]


def test_guide_table_quotes_the_stored_runs_and_measures_the_rest():
    at = open_page(PAGE, {"view": "choose", "d_model": "128", "context": "2048", "heads": "8"})
    assert_clean(at)
    table = at.table[0].value
    rows = {"sinusoidal": "Sinusoid", "rope": "RoPE", "alibi": "ALiBi", "t5": "T5"}
    for task, column in (("copy", "Copy, 1x → 2x"), ("marker", "Marker, 1x → 2x")):
        for method, row in rows.items():
            first, second = _stored(task, method)
            assert table[column][row] == f"{first:.0%} → {second:.0%}", (task, method)
        first, second = _stored(task, "learned")
        assert np.isnan(second) and table[column]["Learned"] == f"{first:.0%} → no row"
        assert table[column]["RoPE + YaRN"] == "not run"
    params = table["Parameters"]
    assert params["Learned"] == f"{2048 * 128:,}" and params["T5"] == f"{32 * 8:,}"
    assert params["RoPE"] == "0" and params["ALiBi"] == "0"
    assert any("learned ones at L = 2048, d = 128, H = 8" in c.value for c in at.caption)
    cache = table["Cache: entries changed"]
    assert cache["RoPE"] == "0" and cache["ALiBi"] == "0"
    assert cache["RoPE + dyn. NTK"] == f"{128 * 64 - 64 - 2 * 127:,}"
    assert cache["Learned"] == "no row"
    assert table["Cache: new per token"]["ALiBi"] == "129"
    advice = " ".join(m.value for m in at.markdown)
    assert "**Inputs longer than training:**" in advice and "transformers issue #25104" in advice
    # the count is the cache's at T = 2L = 128 (token 129), not at one step past L (token 65)
    options = dict(head_dim=64, train_len=64, factor=4.0)
    at_twice = props.cache_step("rope_dynamic", 128, **options).changed
    past_l = props.cache_step("rope_dynamic", 64, **options).changed
    assert at_twice == 128 * 64 - 64 - 2 * 127 != past_l
    assert f"changed {at_twice:,} cached entries when token 129 arrived with L = 64 (T = 2L)" in advice
    assert "one step past L" not in advice and "A proposed fix" in advice and "PR #27227" in advice


def test_guide_bars_show_which_methods_a_move_leaves_alone():
    at = open_page(PAGE, {"view": "choose"})
    moved = at.table[0].value["Moved 64: score change"]
    assert moved["ALiBi"] == "0" and moved["T5"] == "0"
    assert float(moved["Sinusoid"]) > 0.1 and float(moved["Learned"]) > 0.1
    # dynamic NTK: the moved phrase ends past L = 64, so its frequencies differ
    assert float(moved["RoPE + dyn. NTK"]) > 0.1
    assert float(moved["RoPE"]) < 1e-12 and float(moved["RoPE + YaRN"]) < 1e-12
    bars = {t["name"]: list(t["x"]) for t in charts(at)[0]["data"]}
    assert set(bars["real change"]) == {"Sinusoid", "Learned", "RoPE + dyn. NTK"}
    assert "RoPE, RoPE + YaRN, ALiBi, T5 keep both the cache and the scores" in notice(at)
    assert "RoPE + dyn. NTK keeps neither past L" in notice(at)


# every view


def test_every_view_stays_small_and_clean_at_its_largest_settings():
    largest = lesson_by_path(PAGE).largest
    for view in lesson_by_path(PAGE).views:
        at = open_page(PAGE, {**largest, "view": view})
        assert_clean(at)
        assert not at.warning, [w.value for w in at.warning]
        assert max(chart_bytes(at)) < MB


# sliding-window attention


def window_mask(t: int, w: int) -> np.ndarray:
    i, j = np.arange(t)[:, None], np.arange(t)[None, :]
    return ((i - j >= 0) & (i - j < w)).astype(float)


@pytest.mark.parametrize(("window", "seq_len"), [(4, 16), (1, 2), (32, 64), (2, 64), (7, 7)])
def test_window_view_mask_reach_and_mistral_numbers(window, seq_len):
    at = open_page(PAGE, {"view": "window", "window": str(window), "sw_len": str(seq_len)})
    assert_clean(at)
    mask, reach, cache = charts(at)
    np.testing.assert_array_equal(arr(mask["data"][0]["z"]).reshape(seq_len, seq_len), window_mask(seq_len, window))
    lines = traces(reach)
    expected = np.minimum((window - 1) * np.arange(33) + 1, seq_len)
    np.testing.assert_array_equal(arr(lines["(w - 1) L + 1, capped at T"]["y"]), expected)
    np.testing.assert_array_equal(arr(lines["followed through the masks"]["y"]), expected)
    memory = traces(cache)
    lengths = 2.0 ** np.arange(8, 18)
    per_token = 2 * 32 * 8 * 128 * 2  # K and V, 32 layers, 8 KV heads, head_dim 128, bfloat16
    np.testing.assert_allclose(arr(memory["full cache"]["y"]), per_token * lengths / 2**30, rtol=1e-6)
    np.testing.assert_allclose(
        arr(memory["rolling cache, window 4,096"]["y"]), per_token * np.minimum(lengths, 4096) / 2**30, rtol=1e-6
    )
    assert metric(at, "Mistral 7B's reach") == "131,041 positions"
    assert metric(at, "Its cache at 32,768") == "0.5 GiB"
    assert float(metric(at, "RoPE scores")) < 1e-9
    text = notice(at)
    if window == 1:
        assert "reach stays 1 at every depth" in text
    else:
        layers = 0  # the first depth that covers the sequence, counted up
        while (window - 1) * layers + 1 < seq_len:
            layers += 1
        assert ("within the depths drawn" in text) == (layers <= 32)
        assert f"can draw on all {seq_len} after {layers} layer" in text
        assert f"at most {min(window, seq_len)} visible keys" in text
    assert "0.5 GiB where a full cache of 32,768 tokens takes 4 GiB" in text
