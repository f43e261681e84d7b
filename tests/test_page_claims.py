"""The lesson "Common claims, measured" under AppTest: every view's numbers against
independent computations, verdicts that follow the settings, and the code beside numbers.

Expected values come from the formulas written out here, from the stored experiment run
(posenc_lab/lessons/experiments/data) or from posenc functions other than the one the page calls; never from a run of
the page.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.io as pio
import pytest
from app_helpers import ROOT, assert_clean, chart_bytes, charts, notices, open_page

import posenc
from posenc_lab.figures.arrays import as_array
from posenc_lab.figures.export import figure_table
from posenc_lab.lessons.claims import compute as compute_claims
from posenc_lab.lessons.claims import lesson
from posenc_lab.lessons.claims import measure as claims
from posenc_lab.ui.layout import CODES, code_prelude

PAGE = "posenc_lab/lessons/claims/page.py"
MB = 1_000_000
VERDICTS = ("holds", "false", "half true")


# helpers


def run(code: str) -> np.ndarray:
    namespace: dict = {}
    exec(compile(code_prelude(code) + code, "<snippet>", "exec"), namespace)  # noqa: S102 - the lesson's own snippets
    return np.asarray(namespace["data"], dtype=np.float64)


def bars(spec: dict) -> np.ndarray:
    """A bar chart's values (categories x series), as drawn (customdata holds them on a log axis)."""
    return np.column_stack([as_array(t["customdata"]).astype(float).reshape(-1) for t in spec["data"]])


def lines(spec: dict) -> np.ndarray:
    return np.column_stack([as_array(t["y"]).astype(float).reshape(-1) for t in spec["data"]])


def by_title(at, start: str) -> dict:
    return next(c for c in charts(at) if c["layout"]["title"]["text"].startswith(start))


def verdict_lines(at) -> list[str]:
    return [m.value for m in at.markdown if "**Verdict:" in m.value]


def verdict_of(at, number: int) -> str:
    """The verdict label of claim ``number`` on the page (views draw their claims in order)."""
    numbers = [int(h.value.split(".")[0]) for h in at.subheader if h.value[:1].isdigit()]
    line = verdict_lines(at)[numbers.index(number)]
    return line.split("**Verdict: ")[1].split(".**")[0]


def measured(at, number: int) -> str:
    numbers = [int(h.value.split(".")[0]) for h in at.subheader if h.value[:1].isdigit()]
    captions = [c.value for c in at.caption if c.value.startswith("**Measured now:**")]
    return captions[numbers.index(number)]


def softmax_rows(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def press_slopes(n):
    def power_of_2(m):
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start * start**i for i in range(m)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + power_of_2(2 * closest)[0::2][: n - closest]


def stored(task: str, method: str) -> list[float]:
    with np.load(ROOT / "posenc_lab" / "lessons" / "experiments" / "data" / f"experiment_{task}.npz") as f:
        return f[f"accuracy_{method}"].tolist()


# every view


GROUPS = {
    view: [c.number for c in compute_claims.CLAIMS.values() if c.group == view]
    for view in ("order", "sinusoids", "rope", "biases", "parameters")
}


@pytest.mark.parametrize("view", list(GROUPS))
def test_each_group_shows_its_claims_each_with_a_verdict(view):
    at = open_page(PAGE, {"view": view})
    assert_clean(at)
    assert not at.warning
    headings = [h.value for h in at.subheader if h.value[:1].isdigit()]
    assert [int(h.split(".")[0]) for h in headings] == GROUPS[view]
    assert all("“" in h and "”" in h for h in headings), "a claim is quoted as it is commonly put"
    lines = verdict_lines(at)
    assert len(lines) == len(GROUPS[view])
    assert all(any(f"**Verdict: {v}.**" in line for v in VERDICTS) for line in lines)
    assert len([c for c in at.caption if c.value.startswith("**Why:**")]) == len(GROUPS[view])


def test_the_views_are_registered_in_teaching_order():
    assert list(lesson.LESSON.views) == ["order", "sinusoids", "rope", "biases", "parameters", "models", "overview"]
    assert {c.group for c in compute_claims.CLAIMS.values()} == set(GROUPS)
    assert [c.number for c in compute_claims.CLAIMS.values()] == list(range(1, 16))


# 1. attention and order


def test_order_bars_against_a_plain_attention():
    at = open_page(PAGE, {"view": "order", "tokens": "5", "d_model": "8", "draw": "3"})
    assert_clean(at)
    values = bars(charts(at)[0])  # rows: outputs, weights; columns: unchanged?, permuted?
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 8))
    perm = rng.permutation(5)
    w_q, w_k, w_v = posenc.projections(8, seed=3)

    def attn(z):
        weights = softmax_rows((z @ w_q) @ (z @ w_k).T / math.sqrt(8))
        return weights @ (z @ w_v), weights

    out, weights = attn(x)
    out_p, weights_p = attn(x[perm])
    assert values[0, 0] == pytest.approx(np.abs(out_p - out).max(), rel=1e-6)
    assert values[1, 0] == pytest.approx(np.abs(weights_p - weights).max(), rel=1e-6)
    assert values[0, 1] < 1e-12 and values[1, 1] < 1e-12
    assert values[0, 0] > 0.1
    assert verdict_of(at, 1) == "false"
    assert "permutation-equivariant" in verdict_lines(at)[0]


# 2-6. the sinusoid


def test_dimension_0_is_sin_p_and_changes_sign_floor_n_over_pi_times():
    at = open_page(PAGE, {"view": "sinusoids", "n": "200", "d_model": "64"})
    assert_clean(at)
    wave = by_title(at, "Dimension 0")
    y = as_array(wave["data"][0]["y"]).astype(float)
    np.testing.assert_allclose(y, [math.sin(p) for p in range(48)], atol=1e-6)
    signs = [math.sin(p) for p in range(200)]
    changes = sum(a * b < 0 for a, b in zip(signs, signs[1:], strict=False))
    assert changes == math.floor(199 / math.pi)
    assert f"{changes} sign changes in 199 steps" in measured(at, 2)
    assert verdict_of(at, 2) == "false"


def test_sinusoid_verdicts_and_their_numbers():
    at = open_page(PAGE, {"view": "sinusoids", "n": "100", "d_model": "128", "offset": "5"})
    assert_clean(at)
    assert [verdict_of(at, n) for n in (2, 3, 4, 5, 6)] == ["false", "false", "half true", "false", "false"]
    # 3: the wavelengths drawn are 2 pi base^(2i/d), shortest first
    lam = lines(by_title(at, "Wavelength"))[:, 0]
    np.testing.assert_allclose(lam, [2 * math.pi * 10000 ** (2 * i / 128) for i in range(64)], rtol=1e-6)
    # 4: the fixed-k and the formula lines sit at rounding, the linear map's at order 1 on fast dimensions
    errors = lines(by_title(at, "Largest error per dimension"))
    assert errors[:4, 0].min() > 0.5
    assert errors[:, 1:].max() < 1e-12
    # 6: |sin 10 - 2 sin 5 + sin 0| on dimension 0, written out
    diff = lines(by_title(at, "Two checks"))
    assert diff[0, 0] == pytest.approx(abs(math.sin(10) - 2 * math.sin(5)), rel=1e-6)
    assert diff[:, 1].max() < 1e-12

    # 5: the slowest neighbouring sine columns over 100 positions, by a plain loop
    def column(i):
        return np.array([math.sin(p / 10000 ** (2 * i / 128)) for p in range(100)])

    a, b = column(62), column(63)
    cos = lines(by_title(at, "Cosine similarity"))[-1, 0]
    assert cos == pytest.approx(a @ b / math.sqrt((a @ a) * (b @ b)), abs=1e-6)
    assert cos > 0.99999


def test_moving_the_offset_keeps_the_fit(monkeypatch):
    # the least-squares fit does not depend on k: a move of k must not fit again, a new draw must
    whole = claims.shift_linearity(90, 36, k=9, seed=41)  # before the count starts
    compute_claims.linear.clear()
    compute_claims._pair_fit.clear()
    fits = []
    real = claims.shift_pair_fit
    monkeypatch.setattr(claims, "shift_pair_fit", lambda *a, **kw: fits.append((a, kw)) or real(*a, **kw))
    at = open_page(PAGE, {"view": "sinusoids", "n": "90", "d_model": "36", "offset": "5", "draw": "41"})
    assert_clean(at)
    assert len(fits) == 1
    before = lines(by_title(at, "Largest error per dimension"))
    next(s for s in at.slider if s.label == "Offset k").set_value(9).run()
    assert_clean(at)
    assert len(fits) == 1
    after = lines(by_title(at, "Largest error per dimension"))
    # the same fit and formula; the fixed-k line is the one of k = 9
    np.testing.assert_array_equal(after[:, [0, 2]], before[:, [0, 2]])
    np.testing.assert_allclose(after[:, 1], np.maximum(whole.fixed_k, lesson.FLOOR), rtol=1e-6)
    next(s for s in at.slider if s.label.startswith("Random draw")).set_value(42).run()
    assert_clean(at)
    assert len(fits) == 2


# 7-8. RoPE


def test_rope_reads_the_stored_run_and_measures_the_relative_property():
    at = open_page(PAGE, {"view": "rope"})
    assert_clean(at)
    acc = lines(by_title(at, "RoPE trained at"))
    np.testing.assert_allclose(acc[:, 0], stored("copy", "rope"), atol=1e-6)
    assert acc[0, 0] == 1.0 and acc[-1, 0] < 0.5
    assert float(at.metric[0].value) < 1e-9
    assert verdict_of(at, 7) == "false"


def test_rope_pairs_with_equal_dot_products_differ():
    at = open_page(PAGE, {"view": "rope", "head_dim": "8", "span": "30", "draw": "4", "base": "100"})
    assert_clean(at)
    scores = lines(by_title(at, "RoPE scores"))  # (m - n, pair)
    np.testing.assert_allclose(scores[0], [1.0, 1.0, 0.0], atol=1e-6)
    assert np.abs(scores[:, 0] - scores[:, 1]).max() > 0.1
    assert np.abs(scores[:, 2]).max() > 0.1
    assert verdict_of(at, 8) == "half true"


def test_the_rope_notice_says_what_the_verdicts_say():
    at = open_page(PAGE, {"view": "rope"})
    assert_clean(at)
    notice = notices(at)[0]
    assert f"claim 7 is {verdict_of(at, 7)}" in notice
    assert f"claim 8 is {verdict_of(at, 8)}" in notice
    assert (verdict_of(at, 7), verdict_of(at, 8)) == ("false", "half true")
    assert "mix a true part" not in notice


# 9-13. biases


def test_bias_charts_against_their_formulas():
    at = open_page(PAGE, {"view": "biases", "heads": "12", "kernel_len": "16", "sigma": "1.5", "shaw_k": "10"})
    assert_clean(at)
    slopes = bars(by_title(at, "ALiBi's slope per head"))
    np.testing.assert_allclose(slopes[:, 0], press_slopes(12), rtol=1e-6)
    np.testing.assert_allclose(slopes[:, 1], [2 ** (-8 * h / 12) for h in range(1, 13)], rtol=1e-6)
    # the why reads its range off the bars drawn: 2^-8 to 2^-0.5 at H = 12 (c = 8)
    why = next(c.value for c in at.caption if c.value.startswith("**Why:** Press et al. chose"))
    assert f"from 2^{np.log2(slopes[:, 0].min()):.6g} to 2^{np.log2(slopes[:, 0].max()):.6g}" in why
    kernels = lines(by_title(at, "The kernels"))
    d = np.arange(16)
    np.testing.assert_allclose(kernels[:, 0], -np.log1p(d), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(kernels[:, 1], -np.sqrt(d), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(kernels[:, 2], np.exp(-(d**2) / (2 * 1.5**2)), rtol=1e-6, atol=1e-12)
    entries = lines(by_title(at, "Which entry"))
    np.testing.assert_allclose(entries[:, 1], np.minimum(np.arange(160), 10))
    np.testing.assert_allclose(entries[:, 0], posenc.t5_bucket(-np.arange(160)))
    spread = bars(by_title(at, "Spread of the logits"))[:, 0]
    assert spread[1] / spread[2] == pytest.approx(math.sqrt(3), rel=1e-5)
    assert 0.85 < spread[2] < 1.15
    assert [verdict_of(at, n) for n in (9, 10, 11, 13)] == ["false", "false", "half true", "false"]
    assert "31 reachable" in measured(at, 13) and "from 91 on" in measured(at, 13)


def test_the_slope_verdict_is_one_for_every_head_count():
    # the claim is about every H: the slider picks the chart, not the verdict (tests/test_claim_verdicts.py
    # sweeps H = 1..64)
    for heads in ("8", "6"):
        at = open_page(PAGE, {"view": "biases", "heads": heads})
        assert verdict_of(at, 11) == "half true"
        assert any(c.value.startswith("**True in part:** 2^(-8h/H) is right") for c in at.caption)


def test_alibi_at_ten_times_uses_the_stored_models():
    at = open_page(PAGE, {"view": "biases"})
    acc = lines(by_title(at, "ALiBi trained at"))  # columns: copy, marker, chance copy, chance marker
    assert as_array(by_title(at, "ALiBi trained at")["data"][0]["x"]).astype(int).tolist() == [32, 64, 128, 256, 320]
    np.testing.assert_allclose(acc[:4, 0], stored("copy", "alibi"), atol=1e-6)
    np.testing.assert_allclose(acc[:4, 1], stored("marker", "alibi"), atol=1e-6)
    np.testing.assert_allclose(acc[:, 2:], [[1 / 16, 1 / 4]] * 5, atol=1e-7)
    assert acc[4, 1] > 0.8 and acc[4, 0] < 0.5
    assert verdict_of(at, 12) == "half true"
    statement = verdict_lines(at)[[int(h.value.split(".")[0]) for h in at.subheader if h.value[:1].isdigit()].index(12)]
    assert "one-layer model cannot single out one exact offset" in statement and "not ALiBi's" in statement
    assert "perplexity" in " ".join(c.value for c in at.caption)


# 14-15. parameters


def test_parameter_bars_against_the_formulas():
    at = open_page(PAGE, {"view": "parameters", "context": "512", "head_dim": "32", "heads": "6", "shaw_k": "8"})
    assert_clean(at)
    values = bars(charts(at)[0])
    d = 6 * 32
    for length, column in ((512, 0), (8 * 512, 1)):
        expected = [length * d, 2 * 17 * 32, 2 * (2 * length - 1) * 32, 32 * 6, d * d + 2 * d, 12, 0, 0]
        np.testing.assert_array_equal(values[:, column], expected)
    assert verdict_of(at, 15) == "false"
    # the chart's unclipped Shaw grows with L: the claim's declared part holds, not the claim as stated
    assert verdict_of(at, 14) == "half true"
    # one layer of Transformer-XL: W_R (d x d) and u, v (2d), whether u and v are shared or per layer
    why = next(c.value for c in at.caption if c.value.startswith("**Why:** per layer for Shaw")).replace("\\", "")
    assert "untie_r is off" in why and "untie_r on" in why and "reference code shares them" not in why
    text = " ".join(m.value for m in at.markdown)
    assert "citation, not a measurement" in text and "Radford et al. 2018" in text and "Raffel et al. 2019" in text


# the overview


def test_overview_lists_every_claim_and_the_experiment_claims():
    at = open_page(PAGE, {"view": "overview"})
    assert_clean(at)
    claims_table, experiment_table = at.table[0].value, at.table[1].value
    assert len(claims_table) == 15
    assert [int(c[1:].split(")")[0]) for c in claims_table["Claim"]] == list(range(1, 16))
    assert all(v.split(":")[0] in VERDICTS for v in claims_table["Verdict"])
    assert len(experiment_table) == 6
    board = bars(charts(at)[0])
    assert board[:, 0].min() > 0.5 and board[:, 1].max() < 1e-9


def test_overview_verdicts_match_the_group_views():
    query = {"n": "300", "d_model": "32", "heads": "16", "base": "1000"}
    overview = open_page(PAGE, {**query, "view": "overview"}).table[0].value
    verdicts = {
        int(c[1:].split(")")[0]): v.split(":")[0] for c, v in zip(overview["Claim"], overview["Verdict"], strict=True)
    }
    for view, numbers in GROUPS.items():
        at = open_page(PAGE, {**query, "view": view})
        for number in numbers:
            assert verdict_of(at, number) == verdicts[number], number


# code shown beside numbers (charts: tests/test_code_snippets.py)


@pytest.mark.parametrize("view", ["rope", "biases"])
def test_code_beside_numbers_reproduces_them(view):
    at = open_page(PAGE, {"view": view, "kernel_len": "12"})
    codes = at.session_state[lesson.NUMBER_CODES]
    assert codes
    for key, (code, shown) in codes.items():
        np.testing.assert_allclose(run(code), shown, rtol=1e-9, atol=1e-12, err_msg=key)
    if view == "biases":
        table = at.table[0].value
        data = codes["claims_kerple_eigen"][1]
        assert [float(v) for v in table.iloc[:, 1]] == pytest.approx(data[:, 0], rel=6e-3)


def test_every_chart_snippet_reproduces_its_chart_at_other_settings():
    # the defaults are covered by tests/test_code_snippets.py; here the settings a teacher changes
    at = open_page(PAGE, {"view": "sinusoids", "d_model": "40", "n": "70", "base": "500", "offset": "3", "draw": "7"})
    specs = {}
    for el in at.get("plotly_chart"):
        specs.setdefault(str(el.key).split("__")[0], el.proto.spec)
    assert set(specs) == set(at.session_state[CODES])
    for key, (code, declared) in at.session_state[CODES].items():
        drawn = figure_table(pio.from_json(specs[key]))[1] if declared is None else np.asarray(declared, float)
        np.testing.assert_allclose(run(code).reshape(drawn.shape), drawn, rtol=2e-6, atol=2e-6, err_msg=key)


# rooms and links


def test_presenter_mode_puts_the_key_controls_above_the_figures():
    at = open_page(PAGE, {"view": "sinusoids", "present": "1"})
    assert_clean(at)
    main = {s.key for s in at.main.slider}
    assert {"w:d_model", "w:n"} <= main
    assert "w:offset" not in main


def test_a_link_reproduces_the_view():
    query = {"view": "rope", "head_dim": "16", "span": "100", "base": "500", "draw": "12"}
    at = open_page(PAGE, query)
    assert_clean(at)
    assert not at.warning
    assert dict(at.query_params) == query


@pytest.mark.parametrize("view", list(lesson.LESSON.views))
def test_the_largest_settings_stay_small(view):
    at = open_page(PAGE, {**lesson.LESSON.largest, "view": view})
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    assert max(chart_bytes(at)) < MB


# who uses what


@pytest.mark.parametrize(("length", "dh", "h"), [(4096, 64, 12), (16, 2, 1), (8192, 256, 64), (1000, 128, 6)])
def test_models_view_states_the_counted_costs_zero_alibi_parameters_and_the_stored_accuracies(length, dh, h):
    at = open_page(PAGE, {"view": "models", "cost_len": str(length), "head_dim": str(dh), "heads": str(h)})
    assert_clean(at)
    length = at.slider(key="w:cost_len").value  # snapped onto the slider's steps of 16
    (cost_chart,) = charts(at)
    lines = {t["name"]: as_array(t["y"]) for t in cost_chart["data"]}
    t = 2.0 ** np.arange(4, 18)
    np.testing.assert_allclose(lines["RoPE's rotation of q and k"], 6 * t * dh, rtol=1e-6)
    np.testing.assert_allclose(lines["the scores Q Kᵀ"], t * t * (2 * dh - 1), rtol=1e-6)
    table = at.table[0].value
    measured = dict(zip(table["Claim"], table["Measured here"], strict=True))
    rotation, scores = 6 * length * dh, length * length * (2 * dh - 1)
    cost = measured["RoPE is expensive."]
    assert f"T = {length:,}, Dh = {dh}: {rotation:,} operations against {scores:,}" in cost
    assert f"({rotation / scores:.2%})" in cost
    alibi = measured["ALiBi adds h scalars, one per head."]
    assert alibi.startswith("learned parameters: 0;")
    first = 2.0 ** (-8.0 / h) if math.log2(h).is_integer() else None
    if first is not None:  # a power of two: Press et al.'s geometric sequence starting at 2^(-8/H)
        assert f"slopes for H = {h}: {first:.3g}" in alibi
    assert float(measured["RoPE cannot be used with linear attention."].rsplit(" ", 1)[1]) < 1e-12
    with np.load(ROOT / "posenc_lab" / "lessons" / "experiments" / "data" / "experiment_copy.npz") as stored:
        rope, alibi_acc = stored["accuracy_rope"], stored["accuracy_alibi"]
    relative = measured["The field converged on relative positions for length generalisation."]
    assert f"at 64: RoPE {rope[1]:.0%}" in relative and f"ALiBi {alibi_acc[1]:.0%}" in relative
    known = dict(zip(table["Claim"], table["What is known"], strict=True))
    assert known["GPT-4, Claude and Gemini use RoPE (or ALiBi, or ...)."].startswith("Nobody outside their makers")
    text = notices(at)[0]
    assert f"at T = {length:,} RoPE's rotation is {rotation / scores:.2%}" in text
    assert f"ALiBi's learned parameters are 0 at H = {h}" in text


@pytest.mark.parametrize(
    ("heads", "words"),
    [
        (1, "a geometric sequence"),
        (9, "then its 1st slope of the 16-head one"),
        (10, "then its 1st and 3rd slopes of the 16-head one"),
        (12, "then its 1st, 3rd, ..., 7th slopes of the 16-head one"),
        (16, "a geometric sequence"),
        (64, "a geometric sequence"),
    ],
)
def test_alibi_slopes_are_one_geometric_sequence_only_for_a_power_of_two(heads, words):
    """H = 12: the 8-head sequence, then every other slope of the 16-head one (two that interleave)."""
    said = compute_claims.slope_sequences(heads)
    assert words in said
    slopes = posenc.alibi_slopes(heads)
    ratios = slopes[1:] / slopes[:-1]
    one_sequence = np.allclose(ratios, ratios[0]) if heads > 2 else True
    assert one_sequence == ("two geometric sequences" not in said)


@pytest.mark.parametrize("appended", [1, 2, 3, 4, 7])
def test_the_appended_slopes_are_named_by_their_places(appended):
    c = 8
    text = compute_claims.odd_places(appended)
    from_16 = posenc.alibi_slopes(16)[::2][:appended]
    assert np.array_equal(posenc.alibi_slopes(c + appended)[c:], from_16)
    assert text.endswith(("slope", "slopes")) and ("3rd" in text) == (appended > 1)


@pytest.mark.parametrize(("heads", "context"), [("1", "16"), ("64", "4096"), ("12", "1024")])
def test_who_uses_what_is_true_at_the_sliders_ends(heads, context):
    at = open_page(PAGE, {"view": "models", "heads": heads, "context": context})
    assert_clean(at)
    table = " ".join(str(v) for v in at.table[0].value.to_dict("list")["What is known"])
    assert compute_claims.slope_sequences(int(heads)) in table
    text = " ".join(notices(at))
    assert "about 3 / T" not in text and "(3 / T) x 2 Dh / (2 Dh - 1) exactly" in text
