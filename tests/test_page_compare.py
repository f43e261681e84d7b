"""The "Compare them all" page under AppTest: the numbers it shows are the ones the
formulas give, the 2L column is measured, and the controls move the figures."""

from __future__ import annotations

import base64
import math

import numpy as np
import pytest
from app_helpers import assert_clean, chart_bytes, charts, notices, open_page, panel_specs

import posenc
from posenc_lab.lessons.compare import measure as compare_lessons
from posenc_lab.ui.catalog import METHODS

PAGE = "posenc_lab/lessons/compare/page.py"
RELATIVE = ("Shaw", "T5 buckets", "ALiBi", "KERPLE (log)", "RoPE", "xPos")


def as_array(spec) -> np.ndarray:
    """A Plotly array from the JSON Streamlit sent (plain list or base64 binary)."""
    if isinstance(spec, dict) and "bdata" in spec:
        arr = np.frombuffer(base64.b64decode(spec["bdata"]), dtype=np.dtype(spec["dtype"]))
        shape = spec.get("shape")
        return arr.reshape([int(s) for s in str(shape).split(",")]) if shape else arr
    return np.asarray(spec)


def _panels(at) -> dict[str, dict]:
    """Heatmap traces of the small multiples by the start of their name."""
    return {t["name"]: t for t in charts(at)[0]["data"]}


def _panel(at, prefix: str) -> dict:
    return next(t for name, t in _panels(at).items() if name.startswith(prefix))


def _table(at):
    return at.table[0].value


def _runs_column(table) -> str:
    return next(c for c in table.columns if c.startswith("Runs at 2L"))


def _notices(at) -> str:
    return " ".join(notices(at))


# the small multiples


def test_defaults_draw_nine_methods_on_one_phrase():
    at = open_page(PAGE)
    assert_clean(at)
    assert not at.warning
    grid, bars = charts(at)
    assert len(grid["data"]) == 9
    assert grid["layout"]["title"]["text"].startswith("Scores with positions minus scores without, T = 64, Dh = 64")
    assert [t["type"] for t in bars["data"]] == ["bar"] * 3
    assert max(chart_bytes(at)) < 1_000_000


def test_alibi_panel_is_minus_its_slope_times_the_distance():
    # Press et al.: with 4 heads the slopes are 2^-2, 2^-4, ...; head 1 has m = 1/4
    at = open_page(PAGE, {"heads": "4", "seq_len": "40"})
    assert_clean(at)
    trace = _panel(at, "ALiBi")
    assert trace["name"] == "ALiBi, m = 0.25"
    pos = as_array(trace["x"]).astype(float)
    np.testing.assert_allclose(as_array(trace["z"]), -0.25 * np.abs(pos[:, None] - pos[None, :]), atol=1e-6)


def test_with_one_repeated_word_relative_methods_draw_stripes_and_absolute_ones_do_not():
    at = open_page(PAGE)
    for prefix in RELATIVE:
        z = as_array(_panel(at, prefix)["z"]).astype(float)
        np.testing.assert_allclose(z[1:, 1:], z[:-1, :-1], atol=1e-5, err_msg=prefix)
    for prefix in ("Sinusoidal", "Learned"):
        z = as_array(_panel(at, prefix)["z"]).astype(float)
        assert np.abs(z[1:, 1:] - z[:-1, :-1]).max() > 1e-2, prefix
    assert not as_array(_panel(at, "None")["z"]).any()


def test_with_random_words_rope_loses_its_stripes_but_the_biases_keep_them():
    at = open_page(PAGE, {"phrase": "random"})
    assert_clean(at)
    rope = as_array(_panel(at, "RoPE")["z"]).astype(float)
    assert np.abs(rope[1:, 1:] - rope[:-1, :-1]).max() > 1e-2
    for prefix in ("T5 buckets", "ALiBi", "KERPLE"):
        z = as_array(_panel(at, prefix)["z"]).astype(float)
        np.testing.assert_allclose(z[1:, 1:], z[:-1, :-1], atol=1e-5, err_msg=prefix)
    assert "with different words" in _notices(at)


def test_the_learned_panel_is_empty_past_the_training_length():
    at = open_page(PAGE, {"seq_len": "100", "train_len": "64"})
    assert_clean(at)
    grid = charts(at)[0]
    assert len(grid["data"]) == 8
    texts = [a["text"] for a in grid["layout"]["annotations"]]
    assert "no: no row past max_len = 64" in texts
    assert "Learned absolute: no scores" in texts
    assert "no rows past 63" in _notices(at)


def test_long_sequences_are_thinned_and_the_title_says_so():
    at = open_page(PAGE, {"seq_len": "512", "train_len": "512"})
    trace = _panel(at, "RoPE")
    assert list(as_array(trace["x"])[:3]) == [0, 8, 16]
    assert "every 8th position" in charts(at)[0]["layout"]["title"]["text"]


# the table


def test_parameter_counts_follow_the_formulas():
    h, dh, length, k = 12, 64, 1024, 16
    at = open_page(PAGE, {"heads": str(h), "head_dim": str(dh), "train_len": str(length), "shaw_k": str(k)})
    assert_clean(at)
    params = _table(at)["Learned parameters"]
    assert params["Learned absolute"].endswith(f"= {length * h * dh:,} (one table)")
    assert "786,432" in params["Learned absolute"]  # GPT-2 small: 1024 x 768
    assert params["T5 buckets"].startswith(f"buckets x H = 32 x {h} = {32 * h}")
    assert f"= {2 * (2 * k + 1) * dh:,} per layer" in params["Shaw et al. relative (2018)"]
    assert params["KERPLE (Chi et al. 2022)"] == f"2 x H = 2 x {h} = {2 * h} per layer"
    for zero in ("None (bag of words)", "Sinusoidal (Vaswani et al. 2017)", "RoPE (Su et al. 2021)"):
        assert params[zero] == "0"


def test_the_2l_column_is_measured_and_only_the_learned_table_stops():
    at = open_page(PAGE, {"train_len": "16"})
    assert_clean(at)
    table = _table(at)
    column = _runs_column(table)
    assert column == "Runs at 2L = 32? (measured)"
    runs = table[column]
    assert runs["Learned absolute"] == "no: no row past max_len = 16"
    assert (runs.drop("Learned absolute") == "yes").all()
    # the claim behind it, checked here directly against the core
    with pytest.raises(posenc.PositionOutOfRange):
        posenc.position_scores(np.ones((32, 4)), 32, "learned", max_len=16)
    captions = " ".join(c.value for c in at.caption)
    assert "every position from 0 to 31" in captions
    assert "only Learned absolute stopped: the learned table has no row for position 16" in _notices(at)


def test_the_2l_check_thins_long_ranges_but_keeps_position_l():
    at = open_page(PAGE, {"train_len": "2048"})
    captions = " ".join(c.value for c in at.caption)
    assert "every 8th position, plus 2048 and 4095" in captions
    assert _table(at)[_runs_column(_table(at))]["Learned absolute"] == "no: no row past max_len = 2048"


def test_table_texts_come_from_the_catalogue():
    at = open_page(PAGE)
    table = _table(at)
    alibi = next(m for m in METHODS if m["Method"].startswith("ALiBi"))
    assert table["Used in"][alibi["Method"]] == alibi["Used in"]
    assert table["Where position enters"]["RoPE (Su et al. 2021)"] == "multiplies (rotates) q, k"
    assert table["Where position enters"]["T5 buckets"] == "adds a bias to the logits"
    assert len(table) == 9


def test_shaw_mixes_in_only_the_query_word_rope_both():
    x = compare_lessons.phrase(16, 32, "random", seed=0)
    changed = x.copy()
    changed[5] = compare_lessons.phrase(1, 32, "random", seed=7)[0]  # another word at position 5 only
    positions = np.arange(16)
    others = np.arange(16) != 5
    shaw = [compare_lessons.positional_part(v, positions, "shaw", max_distance=4, seed=0) for v in (x, changed)]
    rope = [compare_lessons.positional_part(v, positions, "rope") for v in (x, changed)]
    # Shaw's q_i . a_(j-i): the key word at 5 changes nothing in the other rows, only row 5 (its query)
    np.testing.assert_allclose(shaw[0][others], shaw[1][others], rtol=0, atol=1e-12)
    assert np.abs(shaw[0][5] - shaw[1][5]).max() > 1e-3
    # RoPE's change depends on both words: column 5 moves in the other rows too
    assert np.abs(rope[0][others, 5] - rope[1][others, 5]).max() > 1e-3


def test_score_patterns_notice_says_shaw_depends_on_the_query_word_only():
    at = open_page(PAGE, {"phrase": "random"})
    assert_clean(at)
    text = notices(at)[0]
    assert "RoPE and xPos still depend on j - i, but mixed with both words" in text
    assert r"Shaw's change, $q_i \cdot a_{j-i}$, mixes in only the query word" in text
    assert "Shaw, RoPE" not in text


def test_t5_row_of_the_catalogue_says_each_stack_has_its_own_table():
    t5 = next(m for m in METHODS if m["Method"] == "T5 buckets")
    assert "shared by all layers" not in t5["Learned parameters"]
    assert "encoder and the decoder each learn their own" in t5["Learned parameters"]


# translation invariance


def _bars_by_method(at) -> dict[str, float]:
    bars = charts(at)[1]
    return {x: float(v) for t in bars["data"] for x, v in zip(t["x"], as_array(t["customdata"]), strict=True)}


def test_translation_errors_are_exact_zeros_for_relative_methods_and_real_for_the_sinusoid():
    at = open_page(PAGE, {"shift": "5"})
    errors = _bars_by_method(at)
    for name in ("None", "Shaw (clipped)", "T5 buckets", "ALiBi", "KERPLE (log)"):
        assert errors[name] == 0.0, name
    assert 0 < errors["RoPE"] < 1e-12 and 0 < errors["xPos"] < 1e-12
    # the sinusoid, recomputed here from its definition: (x + PE)(x + PE)^T / sqrt(Dh)
    x = compare_lessons.phrase(64, 64, "repeated", seed=0)

    def scores(start):
        h = x + posenc.sinusoidal(np.arange(start, start + 64), 64)
        return h @ h.T / math.sqrt(64)

    assert errors["Sinusoidal"] == pytest.approx(np.abs(scores(5) - scores(0)).max(), rel=1e-12)
    assert errors["Learned absolute"] > 1e-2
    notice = _notices(at)
    assert "give exactly 0" in notice and "Sinusoidal by" in notice


@pytest.mark.parametrize(
    ("seq_len", "train_len", "shift", "kind"),
    [
        (2, 256, 16, "repeated"),
        (96, 256, 16, "random"),
        (97, 256, 1, "repeated"),
        (150, 64, 3, "random"),
        (200, 256, 40, "repeated"),
        (384, 512, 100, "random"),
        (385, 2048, 7, "repeated"),
        (512, 256, 16, "random"),
    ],
)
def test_every_length_is_served_from_its_band_with_the_numbers_of_a_direct_computation(seq_len, train_len, shift, kind):
    # the page computes a band of lengths at once (compute.band_end); each length's panels and
    # bars are those the length alone gives, a learned table that ends inside the band included
    from posenc_lab.lessons.compare import compute

    head_dim, n_heads, shaw_k = 16, 8, 16
    patterns = compute.score_patterns(seq_len, head_dim, n_heads, train_len, shaw_k, kind)
    errors, missing = compute.translation_errors(seq_len, head_dim, n_heads, train_len, shaw_k, kind, shift)
    x = compare_lessons.phrase(seq_len, head_dim, kind, seed=compute.SEED)
    for i, method in enumerate(compute.ORDER):
        options = compute.options(method, train_len, n_heads, shaw_k)
        shown, _ = compute.pattern_positions(seq_len)
        try:  # the shown block of this length alone, from the definition
            alone = compare_lessons.positional_part(x[shown], shown, method, **options).astype(np.float32)
        except posenc.PositionOutOfRange:
            assert patterns["panels"][method] is None and "no row past max_len" in patterns["missing"][method]
        else:
            np.testing.assert_array_equal(patterns["panels"][method], alone)
        try:
            direct = compare_lessons.compare_translation_error(x, shift, method, **options)
        except posenc.PositionOutOfRange:
            assert math.isnan(errors[i]) and method in missing
            continue
        assert errors[i] == pytest.approx(direct, rel=1e-9, abs=1e-13), method


def test_shifting_past_the_table_shows_no_row_for_the_learned_table():
    at = open_page(PAGE, {"shift": "300", "train_len": "256"})
    assert_clean(at)
    bars = charts(at)[1]
    assert "Learned absolute" not in [x for t in bars["data"] for x in t["x"]]
    assert [a["text"] for a in bars["layout"]["annotations"]] == ["no row"]
    assert any(c.value.startswith("**No row:**") and "up to 363" in c.value for c in at.caption)


# controls


def test_moving_the_sliders_changes_the_figures():
    at = open_page(PAGE)
    grid, bars = charts(at)
    at.slider(key="w:seq_len").set_value(32).run()
    grid2, _ = charts(at)
    assert "T = 32" in grid2["layout"]["title"]["text"]
    assert as_array(_panel(at, "RoPE")["z"]).shape == (32, 32)
    at.slider(key="w:shift").set_value(100).run()
    assert "moves 100 positions" in charts(at)[1]["layout"]["title"]["text"]
    at.slider(key="w:shaw_k").set_value(3).run()
    assert _panel(at, "Shaw")["name"] == "Shaw, K = 3"
    assert at.query_params["shaw_k"] == "3"


def test_largest_settings_stay_clean_and_small():
    largest = {"seq_len": "512", "head_dim": "256", "heads": "64", "train_len": "2048", "shaw_k": "64"}
    at = open_page(PAGE, {**largest, "shift": "1024", "phrase": "random"})
    assert_clean(at)
    assert not at.warning
    assert max(chart_bytes(at)) < 1_000_000


def test_score_patterns_share_one_colour_scale_with_a_colour_bar_by_default():
    at = open_page(PAGE)
    assert_clean(at)
    heatmaps = [t for spec in panel_specs(at)["compare_grid"] for t in spec["data"] if t["type"] == "heatmap"]
    assert len(heatmaps) >= 6
    assert len({(t["zmin"], t["zmax"]) for t in heatmaps}) == 1, "one scale"
    assert sum(t.get("showscale") is True for t in heatmaps) == 1, "one colour bar"
    assert not any("own colour range" in c.value for c in at.caption)
    at.toggle(key="w:shared").set_value(False).run()
    heatmaps = [t for spec in panel_specs(at)["compare_grid"] for t in spec["data"] if t["type"] == "heatmap"]
    assert len({t["zmax"] for t in heatmaps}) > 1, "each panel on its own range"
    assert not any(t.get("showscale") for t in heatmaps)
    assert any("own colour range" in c.value for c in at.caption), "the page says the scales differ"


def test_presenter_mode_folds_the_table_and_the_reading():
    """On a projector the table of text is one click away and the long caption goes to the
    speaker notes (the page was 5,000 px tall); the grid keeps rows of three (in rows of five
    the panel under the colour bar had a plot 120 px tall)."""
    normal, present = open_page(PAGE), open_page(PAGE, {"present": "1"})
    assert_clean(present)
    # a row of n panels is n columns of weight 1 / n
    rows = {
        mode: [round(1 / c.weight) for c in at.main.columns if c.get("plotly_chart")]
        for mode, at in (("normal", normal), ("present", present))
    }
    heading = "Where it enters, what it costs, whether it runs at twice the training length"
    table = next(e for e in present.expander if e.label == heading)
    assert table.table and not table.proto.expanded
    assert heading in [h.value for h in normal.subheader]
    notes = next(e for e in present.expander if e.label == "Speaker notes")
    assert any(m.value.startswith("Each panel is the attention logit") for m in notes.markdown)
    assert not any(c.value.startswith("Each panel is the attention logit") for c in present.caption)
    # the scale the chart uses is said on it, in both modes
    title = [m.value for m in present.markdown if m.value.startswith("**Scores with positions")]
    assert title and "one colour scale for every panel" in title[0]
    assert rows == {"normal": [3] * 9, "present": [3] * 9}, rows
