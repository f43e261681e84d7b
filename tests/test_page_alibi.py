"""The ALiBi and KERPLE lesson under AppTest: the numbers it draws are the formulas' numbers,
and every control moves what it should."""

from __future__ import annotations

import base64
import math
import re

import numpy as np
import pytest
from app_helpers import assert_clean, chart_bytes, charts, notices, open_page

PAGE = "posenc_lab/lessons/alibi/page.py"
MB = 1_000_000


def _array(spec) -> np.ndarray:
    """A Plotly array from the JSON Streamlit sent (plain list or base64 binary)."""
    if isinstance(spec, dict) and "bdata" in spec:
        arr = np.frombuffer(base64.b64decode(spec["bdata"]), dtype=np.dtype(spec["dtype"]))
        shape = spec.get("shape")
        return arr.reshape([int(s) for s in str(shape).split(",")]) if shape else arr
    return np.asarray(spec, dtype=np.float64)


def _press_slopes(n: int) -> list[float]:
    """Press et al.'s rule, written out again: 2^(-8h/c), then every other slope of 2c."""
    c = 2 ** math.floor(math.log2(n))
    first = [2.0 ** (-8 * h / c) for h in range(1, c + 1)]
    extra = [2.0 ** (-8 * k / (2 * c)) for k in range(1, 2 * c + 1)][0::2]
    return first + extra[: n - c]


def _alibi_weights(slope: float, visible: int) -> np.ndarray:
    """Equal content scores, causal, query at the end: w_d ∝ e^(-m d), d = distance back."""
    w = np.exp(-slope * np.arange(visible, dtype=np.float64))
    return w / w.sum()


def _span(weights_by_distance: np.ndarray, mass: float) -> int:
    return int(np.searchsorted(np.cumsum(weights_by_distance), mass - 1e-9))


def _notices(at) -> list[str]:
    return notices(at)


# slopes view


def test_slopes_view_draws_press_et_al_slopes_for_eight_heads():
    at = open_page(PAGE, {"view": "slopes"})
    assert_clean(at)
    slopes_fig, facets = charts(at)
    (trace,) = slopes_fig["data"]
    np.testing.assert_allclose(_array(trace["y"]), [2.0**-k for k in range(1, 9)], rtol=1e-6)
    assert len(facets["data"]) == 8
    assert "from 1/2 for head 1 down to 1/256 for head 8" in _notices(at)[0]


@pytest.mark.parametrize("n_heads", [3, 5, 12, 24, 48, 63])
def test_non_power_of_two_heads_interleave_slopes_from_the_double_schedule(n_heads):
    at = open_page(PAGE, {"view": "slopes", "heads": str(n_heads), "show": "1"})
    assert_clean(at)
    traces = charts(at)[0]["data"]
    c = 2 ** math.floor(math.log2(n_heads))
    assert len(traces) == 2
    got = np.concatenate([_array(t["y"]) for t in traces])
    heads = np.concatenate([_array(t["x"]) for t in traces]).astype(int)
    np.testing.assert_allclose(got[np.argsort(heads)], _press_slopes(n_heads), rtol=1e-6)
    assert _array(traces[1]["x"]).astype(int).tolist() == list(range(c + 1, n_heads + 1))
    assert f"{2 * c}-head schedule" in traces[1]["name"]
    assert any(f"Take c = {c}" in m.value for m in at.markdown)


@pytest.mark.parametrize(("n_heads", "further"), [(3, False), (5, False), (9, False), (6, True), (12, True)])
def test_rule_text_says_the_first_extra_slope_is_the_steepest(n_heads, further):
    at = open_page(PAGE, {"view": "slopes", "heads": str(n_heads)})
    assert_clean(at)
    c = 2 ** math.floor(math.log2(n_heads))
    rule = next(m.value for m in at.markdown if "Press et al.'s rule" in m.value)
    notice = " ".join(c.value for c in at.caption if "What to notice" in c.value)
    if further:
        assert f"The first of these, 2^(-4/{c}), is steeper than every slope of the {c}-head schedule" in rule
        assert f"The other {n_heads - c} heads take every other slope" in rule
        assert "the orange heads do not continue" in notice and "each further orange slope" in notice
    else:  # one extra head: said in the singular, with no "further" slopes
        assert f"Head {n_heads} takes the first slope of the {2 * c}-head schedule, 2^(-4/{c})" in rule
        assert f"steeper than every slope of the {c}-head schedule" in rule
        assert "the orange head does not continue" in notice and "further" not in notice
    assert "between the steepest slopes" not in rule
    assert ("each further one falls halfway" in rule) == further
    slopes = _press_slopes(n_heads)
    assert slopes[c] > max(slopes[:c])


def test_a_custom_slope_changes_one_head_and_its_bias_grid():
    query = {"view": "slopes", "heads": "8", "slopes": "custom", "head": "3", "slope": str(2.0**-10), "show": "3"}
    at = open_page(PAGE, query)
    assert_clean(at)
    assert not at.warning
    slopes_fig, facets = charts(at)
    custom = next(t for t in slopes_fig["data"] if t["name"] == "set by hand")
    assert _array(custom["x"]).tolist() == [3] and math.isclose(_array(custom["y"])[0], 2.0**-10, rel_tol=1e-6)
    z = _array(facets["data"][0]["z"])
    # row 127, key 0: distance 127 at slope 2^-10
    assert math.isclose(z[-1, 0], -127 / 1024, rel_tol=1e-6)
    assert "head 3: m = 1/1024" in facets["layout"]["annotations"][0]["text"]


def test_a_single_head_needs_no_head_selector():
    at = open_page(PAGE, {"view": "slopes", "heads": "1", "slopes": "custom"})
    assert_clean(at)
    assert "w:head" not in [s.key for s in at.slider]
    custom = next(t for t in charts(at)[0]["data"] if t["name"] == "set by hand")
    assert _array(custom["x"]).tolist() == [1]


def test_bias_grids_mask_future_keys_only_when_causal():
    at = open_page(PAGE, {"view": "slopes", "n": "16", "show": "1,8"})
    z = _array(charts(at)[1]["data"][0]["z"])
    assert np.isnan(z[np.triu_indices(16, 1)]).all() and not np.isnan(z[np.tril_indices(16)]).any()
    # head 1 has m = 1/2: query 15 to key 3 is 12 positions away
    assert math.isclose(z[15, 3], -6.0)
    at.toggle(key="w:causal").set_value(False).run()
    assert_clean(at)
    z = _array(charts(at)[1]["data"][0]["z"])
    assert not np.isnan(z).any()
    np.testing.assert_array_equal(z, z.T)
    assert not any("Blank cells" in c.value for c in at.caption)


def test_long_sequences_are_thinned_and_say_so():
    at = open_page(PAGE, {"view": "slopes", "n": "4096", "heads": "64"})
    assert_clean(at)
    facets = charts(at)[1]
    z = _array(facets["data"][0]["z"])
    assert z.shape == (64, 64)
    assert "every 64th position" in facets["layout"]["title"]["text"]
    assert max(chart_bytes(at)) < MB


def test_the_farthest_penalties_in_the_caption_are_right():
    at = open_page(PAGE, {"view": "slopes", "n": "100", "show": "2,5"})
    text = _notices(at)[1]
    # head 2: -(1/4) * 99, head 5: -(1/32) * 99
    assert "head 2 pays -24.8" in text and "head 5 pays only -3.09" in text


# attention view


def test_row_weights_are_the_softmax_of_the_bias_with_equal_content():
    at = open_page(PAGE, {"view": "attention", "n": "40", "row": "30", "show": "1,4,8"})
    assert_clean(at)
    lines = charts(at)[0]["data"]
    for trace, slope in zip(lines, [2**-1, 2**-4, 2**-8], strict=True):
        y = _array(trace["y"])
        expected = _alibi_weights(slope, 31)[::-1]  # keys 0..30, the query at 30
        np.testing.assert_allclose(y[:31], expected, rtol=1e-5)
        assert np.isnan(y[31:]).all(), "keys after the query are masked"
    own = _alibi_weights(0.5, 31)[0]
    assert f"{own:.1%}" in _notices(at)[0]


def test_bidirectional_rows_look_both_ways():
    at = open_page(PAGE, {"view": "attention", "n": "21", "row": "10", "causal": "0", "show": "2"})
    y = _array(charts(at)[0]["data"][0]["y"])
    assert not np.isnan(y).any()
    np.testing.assert_allclose(y, y[::-1], rtol=1e-6)
    w = np.exp(-0.25 * np.abs(np.arange(21) - 10))
    np.testing.assert_allclose(y, w / w.sum(), rtol=1e-5)


def test_spans_match_a_brute_force_count_and_follow_the_mass():
    at = open_page(PAGE, {"view": "attention", "n": "128", "heads": "12"})
    assert_clean(at)
    bars = charts(at)[1]["data"]
    got = np.zeros(12)
    for trace in bars:
        got[_array(trace["x"]).astype(int) - 1] = _array(trace["y"])
    expected = [_span(_alibi_weights(m, 128), 0.9) for m in _press_slopes(12)]
    assert got.tolist() == expected
    at.radio(key="w:mass").set_value("0.5").run()
    bars = charts(at)[1]["data"]
    half = np.zeros(12)
    for trace in bars:
        half[_array(trace["x"]).astype(int) - 1] = _array(trace["y"])
    assert half.tolist() == [_span(_alibi_weights(m, 128), 0.5) for m in _press_slopes(12)]
    assert (half <= got).all() and (half < got).any()


def test_span_caption_names_the_steepest_and_gentlest_heads():
    at = open_page(PAGE, {"view": "attention", "n": "64", "heads": "12"})
    text = _notices(at)[1]
    near = _span(_alibi_weights(2**-0.5, 64), 0.9)
    far = _span(_alibi_weights(2**-8, 64), 0.9)
    assert f"head 9 (m = 2^-0.5 = 0.707), holds 90% of its attention within d ≤ {near}" in text
    assert f"head 8 (m = 1/256), needs d ≤ {far} of at most 63" in text


def test_log_toggle_switches_the_weight_axis():
    at = open_page(PAGE, {"view": "attention"})
    assert charts(at)[0]["layout"]["yaxis"]["type"] == "log"
    at.toggle(key="w:logy").set_value(False).run()
    assert charts(at)[0]["layout"]["yaxis"].get("type") != "log"


def test_first_position_caption_is_true():
    at = open_page(PAGE, {"view": "attention", "row": "0"})
    assert_clean(at)
    assert "sees only itself" in _notices(at)[0]


# KERPLE view


def test_kerple_curves_are_the_papers_formulas():
    query = {"view": "kerple", "n": "50", "m": "0.25", "lr1": "1.5", "lr2": "0.5", "pr1": "0.7", "pr2": "1.5"}
    at = open_page(PAGE, query)
    assert_clean(at)
    assert not at.warning
    bias_fig, weight_fig = charts(at)
    d = np.arange(50.0)
    expected = {
        "ALiBi": -0.25 * d,
        "KERPLE-log": -1.5 * np.log(1 + 0.5 * d),
        "KERPLE-power": -0.7 * d**1.5,
    }
    for trace, (name, b) in zip(bias_fig["data"], expected.items(), strict=True):
        assert trace["name"].startswith(name)
        np.testing.assert_allclose(_array(trace["y"]), b, rtol=1e-6, atol=1e-6)
    for trace, b in zip(weight_fig["data"], expected.values(), strict=True):
        w = np.exp(b - b.max())
        # sent as float32: weights below ~1e-38 underflow
        np.testing.assert_allclose(_array(trace["y"]), w / w.sum(), rtol=1e-5, atol=1e-37)
    # the metrics give the brute-force spans
    for metric, b in zip(at.metric, expected.values(), strict=True):
        w = np.exp(b - b.max())
        assert metric.value == f"d ≤ {_span(w / w.sum(), 0.9)}"


def test_kerple_log_keeps_more_weight_far_away_at_the_defaults():
    at = open_page(PAGE, {"view": "kerple", "n": "512"})
    alibi, log, _ = charts(at)[1]["data"]
    assert _array(log["y"])[-1] > 100 * _array(alibi["y"])[-1]
    spans = [int(re.search(r"\d+", m.value.replace(",", "")).group()) for m in at.metric]
    assert spans[1] > spans[0]


def test_moving_r1_changes_the_kerple_log_curve():
    at = open_page(PAGE, {"view": "kerple"})
    before = _array(charts(at)[0]["data"][1]["y"])
    at.slider(key="w:lr1").set_value(3.0).run()
    assert_clean(at)
    after = _array(charts(at)[0]["data"][1]["y"])
    np.testing.assert_allclose(after, 3.0 * before, rtol=1e-5, atol=1e-6)


def test_power_exponent_is_capped_at_two():
    at = open_page(PAGE, {"view": "kerple", "pr2": "3"})
    assert_clean(at)
    assert at.slider(key="w:pr2").value == 2.0
    assert "`pr2=3`" in at.warning[0].value


@pytest.mark.parametrize("view", ["slopes", "attention", "kerple"])
def test_largest_settings_stay_under_one_megabyte(view):
    at = open_page(PAGE, {"view": view, "heads": "64", "n": "4096", "show": "1,9,18,27,36,45,54,64"})
    assert_clean(at)
    assert max(chart_bytes(at)) < MB
