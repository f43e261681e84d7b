"""The RoPE lesson under AppTest: each view's numbers against independent computations.

Expected values are written out here from the formulas (rotation angles, complex-form
scores, the sinusoid, xPos's zeta) or taken from the frozen transformers snapshots,
never copied from a run of the page.
"""

from __future__ import annotations

import base64
import math
import re

import numpy as np
import pytest
from app_helpers import assert_clean, chart_bytes, charts, notices, open_page

import posenc
from posenc import rope_decay_bound
from posenc_lab.lessons.rope import measure as rope_lessons
from posenc_lab.lessons.rope.figures import plane_centres

PAGE = "posenc_lab/lessons/rope/page.py"
MB = 1_000_000


# helpers


def arr(value) -> np.ndarray:
    """A Plotly array from the JSON spec: typed (base64) or a plain list (None -> NaN)."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            out = out.reshape([int(s) for s in str(value["shape"]).split(",")])
        return out.astype(float)
    return np.array([np.nan if v is None else v for v in value], dtype=float)


def seeded_qk(head_dim: int, seed: int):
    # the lesson draws q, then independent k, from numpy's default generator
    rng = np.random.default_rng(seed)
    return rng.standard_normal(head_dim), rng.standard_normal(head_dim)


def theta(head_dim: int, base: float) -> np.ndarray:
    return np.array([base ** (-2 * i / head_dim) for i in range(head_dim // 2)])


def complex_pairs(x):
    return np.array([complex(x[2 * i], x[2 * i + 1]) for i in range(len(x) // 2)])


def rope_score(q, k, m, n, base=10_000.0):
    """Re sum_i q~_i conj(k~_i) e^{i (m - n) theta_i} (RoFormer, eq. 16), written out."""
    t = theta(len(q), base)
    return float(np.real(np.sum(complex_pairs(q) * np.conj(complex_pairs(k)) * np.exp(1j * (m - n) * t))))


def sinusoid(p, d, base=10_000.0):
    out = np.empty(d)
    for i in range(d // 2):
        w = base ** (-2 * i / d)
        out[2 * i], out[2 * i + 1] = math.sin(p * w), math.cos(p * w)
    return out


def metric(at, start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(start))


def notice(at) -> str:
    return notices(at)[0]


# rotation


ROTATION = {
    "view": "rotation",
    "dh": "16",
    "base": "100",
    "pairs": "0,3,7",
    "anim_frames": "20",
    "step": "5",
    "gap": "4",
}


def test_rotation_frames_turn_each_pair_by_m_theta():
    at = open_page(PAGE, ROTATION)
    assert_clean(at)
    assert not at.warning
    spec = charts(at)[0]
    frames = spec["frames"]
    ms = [4 + 5 * f for f in range(20)]
    # named for the positions they draw: the page's frame counter shows m and n (r = 4)
    assert [f["name"] for f in frames] == [f"query at m = {m}, key at n = {m - 4}" for m in ms]
    assert spec["layout"]["meta"]["frame_ms"] == 120
    q, _ = seeded_qk(16, 0)
    t = theta(16, 100.0)
    for f, frame in enumerate(frames):
        k_arrows, q_arrows, texts = frame["data"]
        cx, cy = plane_centres(3)
        for j, i in enumerate((0, 3, 7)):
            qx, qy = q_arrows["x"][3 * j + 1] - cx[j], q_arrows["y"][3 * j + 1] - cy[j]
            kx, ky = k_arrows["x"][3 * j + 1] - cx[j], k_arrows["y"][3 * j + 1] - cy[j]
            # q's pair starts at angle atan2(q_{2i+1}, q_{2i}) and has turned by m theta_i
            expected = math.atan2(q[2 * i + 1], q[2 * i]) + ms[f] * t[i]
            assert math.remainder(math.atan2(qy, qx) - expected, 2 * math.pi) == pytest.approx(0, abs=1e-4)
            # the key (same content, 4 positions earlier) trails by 4 theta_i
            assert math.remainder(math.atan2(qy, qx) - math.atan2(ky, kx) - 4 * t[i], 2 * math.pi) == pytest.approx(
                0, abs=1e-4
            )
            # angle written in degrees modulo 360, and the pair's share |q_i|^2 cos(4 theta_i)
            text = texts["text"][j]
            rad, deg = re.search(r"mθ = ([0-9.,e+-]+) rad<br>≡ ([0-9.e+-]+)°", text).groups()
            assert float(rad.replace(",", "")) == pytest.approx(ms[f] * t[i], rel=2e-3)
            assert float(deg) == pytest.approx(math.degrees(ms[f] * t[i]) % 360, rel=2e-3, abs=0.05)
            share = (q[2 * i] ** 2 + q[2 * i + 1] ** 2) * math.cos(4 * t[i])
            assert f"q·k = {share:+.3f}" in text


def test_rotation_is_played_by_keyboard_buttons_without_redraw():
    at = open_page(PAGE, {"view": "rotation"})
    spec = charts(at)[0]
    # Plotly's SVG buttons and slider cannot be reached by keyboard: the page's are used
    assert "updatemenus" not in spec["layout"] and "sliders" not in spec["layout"]
    assert spec["layout"]["meta"]["frame_ms"] == 120
    assert [f["name"] for f in spec["frames"]][:2] == ["query at m = 2, key at n = 0", "query at m = 3, key at n = 1"]


def test_rotation_defaults_show_fastest_middle_and_slowest_pairs():
    at = open_page(PAGE, {"view": "rotation"})
    titles = [a["text"] for a in charts(at)[0]["layout"]["annotations"]]
    assert [t.split("</b>")[0].removeprefix("<b>") for t in titles] == ["pair 0", "pair 8", "pair 16", "pair 31"]
    assert "pair 0 turns 57.3° per position" in notice(at)


def test_rotation_caps_frames_and_keeps_the_payload_small_at_the_largest_settings():
    at = open_page(PAGE, {"view": "rotation", "dh": "256", "anim_frames": "64", "step": "5000", "gap": "64"})
    assert_clean(at)
    spec = charts(at)[0]
    assert len(spec["frames"]) == 64
    assert max(chart_bytes(at)) < MB / 4
    # pair 0 at m = 64 + 63 * 5000: the angle text still carries the exact degrees
    m = 64 + 63 * 5000
    assert f"≡ {math.degrees(m) % 360:.1f}°" in spec["frames"][-1]["data"][2]["text"][0]


# only m - n matters


RELATIVE = {"view": "relative", "dh": "8", "n": "40", "seed": "3", "s": "5", "added": "1"}


def test_relative_heatmaps_match_the_complex_form_and_the_sinusoid_sum():
    at = open_page(PAGE, RELATIVE)
    assert_clean(at)
    rope_panel, added_panel = charts(at)[0]["data"]
    q, k = seeded_qk(8, 3)
    rope = arr(rope_panel["z"])
    added = arr(added_panel["z"])
    assert rope.shape == added.shape == (40, 40)
    for m in (0, 7, 39):
        for n in (0, 20, 39):
            assert rope[m, n] == pytest.approx(rope_score(q, k, m, n), abs=1e-4)
            assert added[m, n] == pytest.approx((q + sinusoid(m, 8)) @ (k + sinusoid(n, 8)), abs=1e-4)
    # constant along diagonals for RoPE, not with the sinusoid added
    assert np.abs(rope[1:, 1:] - rope[:-1, :-1]).max() < 1e-4
    assert np.abs(added[1:, 1:] - added[:-1, :-1]).max() > 0.1


def test_relative_shift_metrics_are_measured():
    at = open_page(PAGE, RELATIVE)
    assert float(metric(at, "RoPE: largest")) < 1e-12
    q, k = seeded_qk(8, 3)
    worst = max(
        abs((q + sinusoid(m, 8)) @ (k + sinusoid(n, 8)) - (q + sinusoid(m + 5, 8)) @ (k + sinusoid(n + 5, 8)))
        for m in range(40)
        for n in range(40)
    )
    assert float(metric(at, "Sinusoid added")) == pytest.approx(worst, rel=1e-2)


def test_relative_thins_long_ranges_and_stays_constant_on_diagonals():
    at = open_page(PAGE, {"view": "relative", "n": "4096", "added": "0", "dh": "16"})
    assert_clean(at)
    spec = charts(at)[0]
    assert "every 32nd position" in spec["layout"]["title"]["text"]
    trace = spec["data"][0]
    z, y = arr(trace["z"]), arr(trace["y"])
    assert z.shape == (128, 128)
    assert y[1] - y[0] == 32
    assert np.abs(z[1:, 1:] - z[:-1, :-1]).max() < 1e-3
    assert len(at.metric) == 1, "no sinusoid metric without the sinusoid panel"


# long-term decay


def test_decay_bound_matches_roformers_sum_and_the_spread_is_sqrt_head_dim():
    at = open_page(PAGE, {"view": "decay", "dh": "16", "samples": "5000", "rho": "0", "reach": "1024"})
    assert_clean(at)
    bound_chart, spread_chart = charts(at)
    x, bound = arr(bound_chart["data"][0]["x"]), arr(bound_chart["data"][0]["y"])
    t = theta(16, 10_000.0)
    for r in (1, 2, 3, int(x[len(x) // 2]), 1024):
        # (2/d) sum_j |sum_{i<j} e^{i r theta_i}|, j = 1..d/2
        expected = np.mean([abs(sum(np.exp(1j * r * t[:j]))) for j in range(1, 9)])
        assert bound[list(x).index(r)] == pytest.approx(expected, rel=1e-5)
    std = arr(next(tr for tr in spread_chart["data"] if tr["name"] == "std of the score")["y"])
    assert np.all(np.abs(std - 4.0) < 0.25), "independent q, k: std is sqrt(16) at every distance"
    table = at.table[0].value
    assert list(table["distance m − n"]) == [1, 2, 3]
    assert list(table["a RoPE tutorial's table (head_dim 16)"]) == ["3.83", "3.68", "4.57"]
    assert all(abs(float(v) - 4.0) < 0.25 for v in table["std measured here"])


def bound_by_definition(head_dim: int, r: int, base: float = 10_000.0) -> float:
    t = theta(head_dim, base)
    return float(np.mean([abs(sum(np.exp(1j * r * t[:j]))) for j in range(1, head_dim // 2 + 1)]))


def test_decay_notice_says_the_bound_is_not_monotone_with_its_numbers():
    at = open_page(PAGE, {"view": "decay", "dh": "64", "reach": "65536", "samples": "20"})
    assert_clean(at)
    text = notice(at)
    # every distance 1..65536, from the formula (posenc's direct sum, not the view's scan)
    b = rope_decay_bound(64, np.arange(1, 65_537))
    low = int(np.argmin(b))
    after = low + int(np.argmax(b[low:]))
    assert (low + 1, after + 1) == (28_018, 64_285), "the lowest value, and the highest past it"
    assert b[after] == pytest.approx(bound_by_definition(64, 64_285), rel=1e-9)
    assert "not monotone" in text and "falls as the distance grows" not in text
    assert f"{bound_by_definition(64, 1):.3g} at distance 1" in text
    assert f"its smallest value up to 65,536 is {b[low]:.3g}, at r = 28,018" in text
    assert f"climbs back to {b[after]:.3g} at r = 64,285" in text
    # the band means of the scan, and shrinking on average
    bands = [b[0:9].mean(), b[9:99].mean(), b[99:999].mean(), b[999:9999].mean(), b[9999:].mean()]
    assert (
        "it shrinks, with oscillations: "
        + ", ".join(
            f"{m:.3g} over {lo}"
            for m, lo in zip(bands, ["1–9", "10–99", "100–999", "1,000–9,999", "10,000–65,536"], strict=True)
        )
        in text
    )
    # the distances the text names are points of the chart, so hovering finds them
    x = arr(charts(at)[0]["data"][0]["x"])
    assert {1, 2, 3, 28_018, 64_285} <= set(x.astype(int).tolist())
    assert "A popular RoPE tutorial prints a table" in text and "lesson text" not in text


def test_decay_mean_falls_with_distance_when_k_resembles_q():
    at = open_page(PAGE, {"view": "decay", "dh": "64", "samples": "5000", "rho": "0.9", "reach": "4096"})
    spread = charts(at)[1]
    mean = arr(next(tr for tr in spread["data"] if tr["name"] == "mean score")["y"])
    # E[q_m . k_n] = 2 rho sum_i cos(r theta_i) with k = rho q + noise
    expected_at_1 = 2 * 0.9 * np.cos(theta(64, 10_000.0)).sum()
    assert mean[0] == pytest.approx(expected_at_1, abs=1.0)
    assert mean[-1] < mean[0] / 3
    assert "With k resembling q (rho = 0.9)" in notice(at)


# pairings


def test_layouts_show_each_pairing_and_measure_the_permutation():
    at = open_page(PAGE, {"view": "layouts", "dh": "10", "n": "50", "seed": "2"})
    assert_clean(at)
    pairing, scores = charts(at)
    z = arr(pairing["data"][0]["z"])
    np.testing.assert_array_equal(z[0], [d // 2 for d in range(10)])
    np.testing.assert_array_equal(z[1], [d % 5 for d in range(10)])
    q, k = seeded_qk(10, 2)
    curves = {tr["name"]: arr(tr["y"]) for tr in scores["data"]}
    half = curves["half (GPT-NeoX; LLaMA in transformers)"]
    t = theta(10, 10_000.0)
    for m in (0, 13, 49):
        # half layout: pair i is (x_i, x_{i+5}), turned by m theta_i; the key sits at 0
        qc = np.array([complex(q[i], q[i + 5]) for i in range(5)])
        kc = np.array([complex(k[i], k[i + 5]) for i in range(5)])
        assert half[m] == pytest.approx(float(np.real(np.sum(qc * np.conj(kc) * np.exp(1j * m * t)))), abs=1e-4)
        assert curves["interleaved on the same q, k"][m] == pytest.approx(rope_score(q, k, m, 0), abs=1e-4)
    np.testing.assert_allclose(curves["interleaved on permuted q, k"], half, atol=1e-5)
    assert float(metric(at, "half vs interleaved on permuted")) < 1e-12
    assert float(metric(at, "half vs interleaved on the same")) > 0.01
    assert "[0, 5, 1, 6, 2, 7, 3, 8, 4, 9]" in " ".join(c.value for c in at.caption)


# context extension: the plotted numbers are transformers' numbers


def _plotted_wavelengths(spec):
    """Scaled wavelength of each pair, gathered from the region traces of the top panel."""
    after = {}
    for tr in spec["data"]:
        if tr.get("yaxis", "y") == "y" and tr["name"] != "original wavelength" and "pairs)" in tr["name"]:
            after.update(zip(arr(tr["x"]).astype(int).tolist(), arr(tr["y"]).tolist(), strict=True))
    return np.array([after[i] for i in range(len(after))])


def _query_for(case):
    cfg = case["rope_scaling"]
    query = {"view": "scaling", "dh": str(case["head_dim"]), "base": f"{case['base']:g}", "method": cfg["rope_type"]}
    query["factor"] = f"{cfg['factor']:g}"
    if "original_max_position_embeddings" in cfg:
        query["orig"] = str(cfg["original_max_position_embeddings"])
    if cfg["rope_type"] == "dynamic":
        query["seq"] = str(case["seq_len"])
    if cfg["rope_type"] == "yarn":
        query["beta_fast"] = f"{cfg.get('beta_fast', 32):g}"
        query["beta_slow"] = f"{cfg.get('beta_slow', 1):g}"
    if cfg["rope_type"] == "llama3":
        query["low"] = f"{cfg['low_freq_factor']:g}"
        query["high"] = f"{cfg['high_freq_factor']:g}"
    return query


SNAPSHOT_CASES = ["linear_4", "dynamic_2_seq4096", "yarn_4", "yarn_4_beta16_2", "yarn_4_head128_base500k", "llama3_1"]


@pytest.mark.parametrize("name", SNAPSHOT_CASES)
def test_scaling_plots_exactly_transformers_wavelengths(snapshots, name):
    case = next(c for c in snapshots["rope_init"] if c["name"] == name)
    at = open_page(PAGE, _query_for(case))
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    spec = charts(at)[0]
    expected = 2 * np.pi / np.array(case["inv_freq_f64"])
    np.testing.assert_allclose(_plotted_wavelengths(spec), expected, rtol=1e-6)
    original = arr(next(tr for tr in spec["data"] if tr["name"] == "original wavelength")["y"])
    np.testing.assert_allclose(
        original, 2 * np.pi * case["base"] ** (np.arange(0, case["head_dim"], 2) / case["head_dim"]), rtol=1e-6
    )
    assert metric(at, "Attention factor") == f"{case['attention_factor']:.4f}"


def test_scaling_ntk_follows_its_formula_and_linear_interpolates_every_pair():
    at = open_page(PAGE, {"view": "scaling", "method": "ntk", "factor": "8", "dh": "32"})
    new_base = 10_000.0 * 8 ** (32 / 30)
    expected = 2 * np.pi * new_base ** (np.arange(0, 32, 2) / 32)
    np.testing.assert_allclose(_plotted_wavelengths(charts(at)[0]), expected, rtol=1e-6)
    at = open_page(PAGE, {"view": "scaling", "method": "linear", "factor": "4", "dh": "32"})
    assert metric(at, "Interpolated pairs") == "16" and metric(at, "Kept pairs") == "0"


def test_scaling_dynamic_changes_nothing_within_the_training_length():
    at = open_page(PAGE, {"view": "scaling", "method": "dynamic", "orig": "4096", "seq": "4096"})
    assert metric(at, "Kept pairs") == "32"
    ratio = [tr for tr in charts(at)[0]["data"] if tr.get("yaxis") == "y2"]
    assert all(np.allclose(arr(tr["y"]), 1.0) for tr in ratio)


def test_scaling_llama3_bands_are_drawn_and_counted():
    at = open_page(
        PAGE,
        {
            "view": "scaling",
            "method": "llama3",
            "dh": "128",
            "base": "500000",
            "orig": "8192",
            "factor": "8",
            "low": "1",
            "high": "4",
        },
    )
    texts = [a["text"] for a in charts(at)[0]["layout"]["annotations"]]
    assert "L/low_freq_factor = 8,192" in " ".join(texts) and "L/high_freq_factor = 2,048" in texts
    lam = 2 * np.pi * 500_000.0 ** (np.arange(0, 128, 2) / 128)
    assert metric(at, "Kept pairs") == str(int((lam < 2048).sum()))
    assert metric(at, "Interpolated pairs") == str(int((lam > 8192).sum()))


def test_scaling_bad_llama3_factors_show_the_core_error_and_a_fallback_chart():
    at = open_page(PAGE, {"view": "scaling", "method": "llama3", "low": "8", "high": "4"})
    assert_clean(at)
    assert "high_freq_factor" in at.error[0].value
    assert charts(at), "unscaled RoPE is shown instead"


# xPos


def test_xpos_factors_and_scores_follow_the_paper():
    at = open_page(PAGE, {"view": "xpos", "dh": "8", "gamma": "0.5", "scale_base": "64", "reach": "256", "seed": "1"})
    assert_clean(at)
    factors, scores = charts(at)
    r = arr(factors["data"][0]["x"])
    assert r[0] == 0 and r[-1] == 256
    zeta = np.array([(2 * i / 8 + 0.5) / 1.5 for i in range(4)])
    for tr in factors["data"]:
        i = int(tr["name"].removeprefix("pair "))
        np.testing.assert_allclose(arr(tr["y"]), zeta[i] ** (r / 64), rtol=1e-6)
    q, _ = seeded_qk(8, 1)
    power = np.abs(complex_pairs(q)) ** 2  # the key holds the same content as the query
    t = theta(8, 10_000.0)
    rope = (power[None, :] * np.cos(r[:, None] * t[None, :])).sum(1)
    xpos = (power[None, :] * np.cos(r[:, None] * t[None, :]) * zeta[None, :] ** (r[:, None] / 64)).sum(1)
    curves = {tr["name"]: arr(tr["y"]) for tr in scores["data"]}
    np.testing.assert_allclose(curves["RoPE"], rope, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(curves["xPos"], xpos, rtol=1e-5, atol=1e-5)
    assert f"ζ₀ = {0.5 / 1.5:.3f}" in notice(at)


def test_every_view_stays_small_at_its_largest_settings():
    largest = {
        "dh": "256",
        "base": "1000000",
        "n": "4096",
        "s": "2048",
        "anim_frames": "64",
        "step": "5000",
        "samples": "5000",
        "reach": "65536",
        "factor": "32",
        "scale_base": "64",
    }
    for view in ("rotation", "relative", "decay", "layouts", "scaling", "xpos"):
        at = open_page(PAGE, {**largest, "view": view})
        assert_clean(at)
        assert max(chart_bytes(at)) < MB


def test_scaling_longrope_shows_phi_3_5_factors_and_its_attention_factor():
    """At head_dim 96 the factors are Phi-3.5-mini's own; past L the long ones apply."""
    phi = rope_lessons.PHI_3_5_MINI_LONGROPE
    query = {"view": "scaling", "method": "longrope", "dh": "96", "orig": "4096", "factor": "32", "seq": "8192"}
    at = open_page(PAGE, query)
    assert_clean(at)
    expected = 2 * np.pi * 10_000.0 ** (np.arange(0, 96, 2) / 96) * np.asarray(phi["long_factor"])
    np.testing.assert_allclose(_plotted_wavelengths(charts(at)[0]), expected, rtol=1e-6)
    assert metric(at, "Attention factor") == f"{math.sqrt(1 + math.log(32) / math.log(4096)):.4f}"
    short = open_page(PAGE, {**query, "seq": "4096"})
    expected = 2 * np.pi * 10_000.0 ** (np.arange(0, 96, 2) / 96) * np.asarray(phi["short_factor"])
    np.testing.assert_allclose(_plotted_wavelengths(charts(short)[0]), expected, rtol=1e-6)


def test_scaling_p_rope_stops_the_slowest_pairs():
    at = open_page(PAGE, {"view": "scaling", "method": "proportional", "p_rope": "0.25", "dh": "64", "factor": "1"})
    assert_clean(at)
    assert metric(at, "Stopped pairs") == "24" and metric(at, "Kept pairs") == "8"


@pytest.mark.parametrize(("p", "factor"), [("0.75", "1"), ("0.75", "4"), ("0.125", "32"), ("1.0", "4")])
def test_p_rope_sentence_reads_the_ratios_drawn(p, factor):
    # the pairs p-RoPE keeps turn at theta_i / s: their own frequencies only at s = 1
    at = open_page(PAGE, {"view": "scaling", "method": "proportional", "p": p, "dh": "64", "factor": factor})
    assert_clean(at)
    _, table = at.session_state["_chart_code"]["rope_scaling"]  # before, after, ratio, region per pair
    ratio = table[:, 2]
    turning = int((ratio > 0).sum())
    assert turning == int(float(p) * 32)
    np.testing.assert_allclose(ratio[ratio > 0], 1 / float(factor), rtol=1e-12)
    said = (
        f"p-RoPE here: {turning} of 32 pairs turn, each at {1 / float(factor):.4g} of its frequency "
        f"(θ_i / s with s = {float(factor):g}), and {32 - turning} stop."
    )
    captions = " ".join(c.value for c in at.caption)
    assert said in captions and "keep their frequencies" not in captions


def yarn_with_the_lessons_gamma(head_dim, base, original, factor, beta_fast, beta_slow):
    """theta' = gamma theta + (1 - gamma) theta / s, gamma = clip((i_slow - i) / (i_slow - i_fast), 0, 1),
    i_fast and i_slow the pairs that turn beta_fast and beta_slow times within L, rounded down and up."""
    theta = base ** (-np.arange(0, head_dim, 2) / head_dim)

    def turning(times):  # the pair index whose wavelength fits `times` turns in L
        return head_dim * math.log(original / (times * 2 * math.pi)) / (2 * math.log(base))

    fast, slow = max(math.floor(turning(beta_fast)), 0), min(math.ceil(turning(beta_slow)), head_dim - 1)
    gamma = np.clip((slow - np.arange(head_dim // 2)) / (slow - fast), 0.0, 1.0)
    return gamma * theta + (1 - gamma) * theta / factor


@pytest.mark.parametrize(
    ("head_dim", "base", "original", "factor", "beta_fast", "beta_slow"),
    [(64, 10_000.0, 2048, 4.0, 32, 1), (128, 500_000.0, 8192, 16.0, 32, 1), (64, 10_000.0, 4096, 2.5, 8, 0.5)],
)
def test_the_lessons_yarn_gamma_is_the_papers_and_gives_posencs_frequencies(
    head_dim, base, original, factor, beta_fast, beta_slow
):
    cfg = dict(rope_type="yarn", factor=factor, original_max_position_embeddings=original)
    cfg |= dict(beta_fast=float(beta_fast), beta_slow=float(beta_slow))
    inv_freq, _ = posenc.rope_inv_freq(head_dim, base, cfg)
    expected = yarn_with_the_lessons_gamma(head_dim, base, original, factor, beta_fast, beta_slow)
    np.testing.assert_allclose(inv_freq, expected, rtol=1e-12)


def test_yarn_gamma_is_one_convention_in_both_lessons():
    # gamma_i = 1 keeps a pair's frequency (the YaRN paper's gamma), in the RoPE lesson and in the experiments
    at = open_page(PAGE, {"view": "scaling", "method": "yarn"})
    assert_clean(at)
    formula = next(e.value for e in at.latex if "gamma" in e.value)
    assert r"\gamma_i\,\theta_i + (1-\gamma_i)\,\frac{\theta_i}{s}" in formula
    assert r"\frac{i_{\text{slow}} - i}{i_{\text{slow}} - i_{\text{fast}}}" in formula
    assert any(r"linear_ramp_factor is $1 - \gamma_i$" in c.value for c in at.caption)
    experiments = open_page("posenc_lab/lessons/experiments/page.py", {"view": "extension"})  # the stored default lab
    assert_clean(experiments)
    assert any(r"\theta_i' = \gamma_i\,\theta_i + (1-\gamma_i)" in e.value for e in experiments.latex)
    assert any("linear_ramp_factor is 1 - gamma_i" in c.value for c in experiments.caption)


def test_scaling_view_takes_a_partial_rotary_factor():
    """GPT-NeoX's partial rotary as a control: a quarter of a 64-dim head turns, so 8 pairs."""
    from app_helpers import open_page, panel_specs

    at = open_page(
        "posenc_lab/lessons/rope/page.py", {"view": "scaling", "head_dim": "64", "method": "yarn", "rotary": "0.25"}
    )
    assert not at.exception
    assert at.query_params["rotary"] == "0.25"
    assert panel_specs(at)["rope_scaling"]
    _, table = at.session_state["_chart_code"]["rope_scaling"]  # what the chart draws, one row per pair
    assert table.shape == (8, 4)
    assert any("only the first 16 of 64 dims turn" in c.value for c in at.caption)
