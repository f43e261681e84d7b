"""The relative-positions lesson under AppTest: what each view draws, checked against posenc."""

from __future__ import annotations

import base64
import math

import numpy as np
import pytest
from app_helpers import assert_clean, charts, open_page
from app_helpers import notices as all_notices

import posenc

PAGE = "posenc_lab/lessons/relative/page.py"


def arr(value) -> np.ndarray:
    """A data array from a Plotly spec: plain lists or Plotly's base64 typed arrays."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = [int(s) for s in str(value.get("shape", out.size)).split(",")]
        return out.reshape(shape)
    return np.asarray([np.nan if v is None else v for v in value] if np.ndim(value) == 1 else value, dtype=float)


def heatmaps(spec) -> list[np.ndarray]:
    return [arr(t["z"]).astype(float) for t in spec["data"] if t["type"] == "heatmap"]


def notices(at) -> str:
    return " ".join(all_notices(at))


def step_points(spec) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of every non-gap point of the coloured region traces (not the dashed extra)."""
    xs, ys = [], []
    for trace in spec["data"]:
        if trace.get("line", {}).get("dash") == "dash":
            continue
        x, y = arr(trace["x"]), arr(trace["y"]).astype(float)
        keep = ~np.isnan(y)
        xs.append(x[keep])
        ys.append(y[keep])
    x, y = np.concatenate(xs), np.concatenate(ys)
    order = np.argsort(x)
    return x[order], y[order]


def key_minus_query(length):
    return np.arange(length)[None, :] - np.arange(length)[:, None]


# matrix


def test_matrix_draws_key_minus_query_and_its_clipped_copy():
    at = open_page(PAGE, {"view": "matrix", "len": "9", "clip": "2"})
    assert_clean(at)
    raw, clipped = heatmaps(charts(at)[0])
    expected = np.array([[j - i for j in range(9)] for i in range(9)])
    np.testing.assert_array_equal(raw, expected)
    np.testing.assert_array_equal(clipped, np.clip(expected, -2, 2))
    # every cell is printed at this size
    assert all(t.get("texttemplate") for t in charts(at)[0]["data"])
    assert "holds 2 or -2" in notices(at) and "3 steps away from one 8 steps away" in notices(at)


def test_moving_the_clip_slider_changes_only_the_clipped_panel():
    at = open_page(PAGE, {"view": "matrix", "len": "12", "clip": "3"})
    raw_before, clipped_before = heatmaps(charts(at)[0])
    at.slider(key="w:clip").set_value(5).run()
    raw_after, clipped_after = heatmaps(charts(at)[0])
    np.testing.assert_array_equal(raw_before, raw_after)
    assert np.abs(clipped_after).max() == 5 and np.abs(clipped_before).max() == 3


def test_long_sequences_are_not_annotated_and_large_k_clips_nothing():
    at = open_page(PAGE, {"view": "matrix", "len": "40", "clip": "32"})
    assert_clean(at)
    spec = charts(at)[0]
    assert not any(t.get("texttemplate") for t in spec["data"])
    raw, clipped = heatmaps(spec)
    assert np.abs(clipped).max() == 32 and np.abs(raw).max() == 39
    at = open_page(PAGE, {"view": "matrix", "len": "10", "clip": "9"})
    raw, clipped = heatmaps(charts(at)[0])
    np.testing.assert_array_equal(raw, clipped)
    assert "nothing is clipped" in notices(at)


def test_parameter_counts_are_2k_plus_1_times_d_head_for_keys_and_values():
    at = open_page(PAGE, {"view": "matrix", "clip": "5", "dh": "32"})
    values = {m.label: m.value for m in at.metric}
    assert values["Learned offsets"] == "11"
    assert values["Key table a^K"] == str(11 * 32)
    assert values["Value table a^V"] == str(11 * 32)
    assert values["Per layer"] == str(2 * 11 * 32)


@pytest.mark.parametrize("clip", [0, 2, 6])
def test_shaw_position_part_is_shared_by_every_key_beyond_k(clip):
    at = open_page(PAGE, {"view": "matrix", "len": "14", "clip": str(clip), "dh": "8"})
    assert_clean(at)
    content, position, total = heatmaps(charts(at)[1])
    np.testing.assert_allclose(total, content + position, rtol=1e-5, atol=1e-4)
    rel = key_minus_query(14)
    for i in range(14):
        row = position[i]
        for far in (rel[i] > clip, rel[i] < -clip):
            if far.any():
                np.testing.assert_allclose(row[far], row[far][0], rtol=1e-6)
        assert np.unique(row).size <= 2 * clip + 1
    # the content part has no such structure
    assert np.unique(content[0]).size == 14
    if clip == 0:
        assert "no position information at all" in notices(at)


# T5


def test_t5_step_plot_is_posenc_t5_bucket_with_boundary_lines():
    at = open_page(PAGE, {"view": "t5", "nb": "32", "maxd": "128", "bidir": "1"})
    assert_clean(at)
    spec = charts(at)[0]
    x, y = step_points(spec)
    np.testing.assert_array_equal(x, np.arange(-256, 257))
    np.testing.assert_array_equal(y, posenc.t5_bucket(x.astype(int)))
    lines = sorted(s["x0"] for s in spec["layout"]["shapes"])
    assert lines == [-128, -8, 8, 128]
    text = notices(at)
    assert "offsets -7 to +7" in text and "bucket 16 is never used" in text
    # hand-derived: bucket 14 holds distances with floor(log(d / 8) / log(16) * 8) = 6, i.e. 64..90
    assert "bucket 14 alone holds the 27 offsets -90 to -64" in text


def test_t5_decoder_sends_every_key_ahead_to_bucket_0():
    at = open_page(PAGE, {"view": "t5", "nb": "16", "maxd": "40", "bidir": "0", "tlen": "50"})
    assert_clean(at)
    spec = charts(at)[0]
    names = [t["name"] for t in spec["data"]]
    assert "keys ahead (decoder): bucket 0" in names
    x, y = step_points(spec)
    assert (y[x >= 0] == 0).all()
    np.testing.assert_array_equal(
        y, posenc.t5_bucket(x.astype(int), bidirectional=False, num_buckets=16, max_distance=40)
    )
    assert sorted(s["x0"] for s in spec["layout"]["shapes"]) == [-40, -8]
    grid = heatmaps(charts(at)[1])[0]
    upper = np.triu_indices(50)
    assert np.unique(grid[upper]).size == 1


def test_t5_refused_combination_shows_the_core_error_and_a_fallback():
    at = open_page(PAGE, {"view": "t5", "nb": "128", "maxd": "10"})
    assert not at.exception
    assert "max_distance must be > 32" in at.error[0].value
    spec = charts(at)[0]
    assert "max_distance = 33" in spec["layout"]["title"]["text"]
    x, y = step_points(spec)
    np.testing.assert_array_equal(y, posenc.t5_bucket(x.astype(int), num_buckets=128, max_distance=33))
    assert len(charts(at)) == 2


def test_t5_grid_is_the_edited_table_looked_up_by_bucket():
    at = open_page(PAGE, {"view": "t5", "tlen": "40", "nb": "32", "seed": "3"})
    assert_clean(at)
    table = np.asarray(at.session_state["_t5_tables"][(32, 3)])
    editor = at.dataframe[0].value
    np.testing.assert_array_equal(editor["bias"].to_numpy(), table)
    assert list(editor.index) == list(range(32))
    assert editor["offsets j - i"].iloc[8] == "-11 to -8"
    grid = heatmaps(charts(at)[1])[0]
    buckets = posenc.t5_bucket(key_minus_query(40))
    np.testing.assert_allclose(grid, table[buckets], rtol=1e-6)
    # an edit (kept in session state) reaches the grid, and stays out of the URL
    edited = table.copy()
    edited[1] = 9.5
    at.session_state["_t5_tables"][(32, 3)] = tuple(edited)
    at.run()
    grid = heatmaps(charts(at)[1])[0]
    assert (grid[key_minus_query(40) == -1] == 9.5).all()
    assert at.dataframe[0].value["bias"].iloc[1] == 9.5
    assert all("9.5" not in v for v in at.query_params.values())
    # reset goes back to the seeded values
    at.button(key="t5_reset").click().run()
    assert_clean(at)
    np.testing.assert_allclose(heatmaps(charts(at)[1])[0], table[buckets], rtol=1e-6)


def test_t5_grid_is_constant_along_diagonals_at_any_setting():
    at = open_page(PAGE, {"view": "t5", "tlen": "256", "nb": "128", "maxd": "512"})
    assert_clean(at)
    grid = heatmaps(charts(at)[1])[0]
    np.testing.assert_array_equal(grid[1:, 1:], grid[:-1, :-1])


# Transformer-XL


def test_xl_terms_have_the_structure_the_caption_claims():
    at = open_page(PAGE, {"view": "xl", "len": "16", "dh": "16", "uv": "2"})
    assert_clean(at)
    a, b, c, d = heatmaps(charts(at)[0])
    # (c) u . k_j: the same down each column
    np.testing.assert_allclose(c, np.broadcast_to(c[0], c.shape), rtol=1e-6)
    assert np.unique(c[0]).size == 16
    # (d) v . W_R R_{i-j}: the same along each diagonal, different across diagonals
    np.testing.assert_allclose(d[1:, 1:], d[:-1, :-1], rtol=1e-5, atol=1e-5)
    assert np.unique(np.round(d[:, 0], 4)).size == 16
    # (a) and (b) vary along rows and columns
    for term in (a, b):
        assert not np.allclose(term[1:, 1:], term[:-1, :-1])
    total = heatmaps(charts(at)[1])[0]
    np.testing.assert_allclose(total, a + b + c + d, rtol=1e-5, atol=1e-4)


def test_xl_without_u_and_v_keeps_only_the_content_terms_and_causal_hides_the_future():
    at = open_page(PAGE, {"view": "xl", "len": "10", "uv": "0", "causal": "1"})
    assert_clean(at)
    a, b, c, d = heatmaps(charts(at)[0])
    future = key_minus_query(10) > 0
    for term in (a, b, c, d):
        assert np.isnan(term[future]).all() and not np.isnan(term[~future]).any()
    assert (c[~future] == 0).all() and (d[~future] == 0).all()
    assert "vanish" in notices(at)


# DeBERTa


def test_deberta_bucket_plot_is_posenc_with_the_table_clip_dashed():
    at = open_page(PAGE, {"view": "deberta", "bsize": "8", "maxpos": "32"})
    assert_clean(at)
    spec = charts(at)[0]
    x, y = step_points(spec)
    np.testing.assert_array_equal(x, np.arange(-64, 65))
    np.testing.assert_array_equal(y, posenc.deberta_log_bucket(x.astype(int), bucket_size=8, max_position=32))
    dashed = next(t for t in spec["data"] if t.get("line", {}).get("dash") == "dash")
    np.testing.assert_array_equal(arr(dashed["y"]), np.clip(y, -8, 7))
    # linear inside +-k/2, not clamped at max_position
    inside = np.abs(x) <= 4
    np.testing.assert_array_equal(y[inside], x[inside])
    assert y.max() > 7
    assert sorted(s["x0"] for s in spec["layout"]["shapes"]) == [-32, -4, 4, 32]


def test_deberta_terms_repeat_where_offsets_share_a_table_row():
    at = open_page(PAGE, {"view": "deberta", "bsize": "8", "maxpos": "32", "len": "20", "dh": "8"})
    assert_clean(at)
    c2c, c2p, p2c = heatmaps(charts(at)[1])
    rel = np.arange(20)[:, None] - np.arange(20)[None, :]  # i - j, DeBERTa's sign
    row = np.clip(posenc.deberta_log_bucket(rel, bucket_size=8, max_position=32), -8, 7)
    for i in range(20):
        for offset in np.unique(row[i]):
            same = row[i] == offset
            np.testing.assert_allclose(c2p[i, same], c2p[i, same][0], rtol=1e-6)
    for j in range(20):
        for offset in np.unique(row[:, j]):
            same = row[:, j] == offset
            np.testing.assert_allclose(p2c[same, j], p2c[same, j][0], rtol=1e-6)
    assert np.unique(c2c[19]).size == 20
    # by hand, bucket = ceil(log(r / 4) / log(31 / 4) * 3) + 4: 5 for r = 5..7, 6 for r = 8..15
    # (log(r / 4) <= 2 log(31 / 4) / 3 means r <= 15.7), 7 for r = 16..19: the widest run is 8..15
    assert "offsets i - j = 8 to 15 all read offset 6" in notices(at)
    assert "each row from i = 15 on has 8 equal cells" in notices(at)
    scale = f"1/sqrt({3 * 8}) = {1 / math.sqrt(24):.3f}"
    assert any(scale in c.value for c in at.caption)


def test_deberta_refused_combination_shows_the_core_error_and_a_fallback():
    at = open_page(PAGE, {"view": "deberta", "bsize": "512", "maxpos": "4"})
    assert not at.exception
    assert "max_position" in at.error[0].value
    spec = charts(at)[0]
    assert "max_position = 258" in spec["layout"]["title"]["text"]
    assert len(charts(at)) == 2


@pytest.mark.parametrize("nb", ["4", "128"])
def test_t5_notice_counts_steps_in_good_english_at_the_sliders_ends(nb):
    """At 4 buckets (bidirectional: one exact offset a side) the notice says "from 1 step on"."""
    at = open_page(PAGE, {"view": "t5", "nb": nb, "maxd": "1"})
    assert_clean(at)
    text = notices(at)
    assert "from 1 steps on" not in text
    if nb == "4":
        assert "from 1 step on, every offset is in the last bucket" in text
