"""The "Design your own encoding" lesson under AppTest: every block of the menu, the verdict
card against posenc.custom, each check's chart against independent computations, links,
bad URLs and the training button.

Expected values are computed here from the formulas or with posenc.custom called directly,
never read from a run of the page.
"""

from __future__ import annotations

import base64
import math
import re

import numpy as np
import pytest
from app_helpers import assert_clean, chart_bytes, charts, notices, open_page
from test_code_snippets import run_snippet

import posenc
from posenc import experiment as ex
from posenc_lab.lessons.design import measure as custom
from posenc_lab.ui.layout import CODES

PAGE = "posenc_lab/lessons/design/page.py"
MB = 1_000_000


def arr(value) -> np.ndarray:
    """A Plotly array from the JSON spec: typed (base64) or a plain list (None -> NaN)."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            out = out.reshape([int(s) for s in str(value["shape"]).split(",")])
        return out.astype(float)
    return np.array([np.nan if v is None else v for v in value], dtype=float)


def lines(spec: dict) -> dict[str, np.ndarray]:
    return {t["name"]: arr(t["y"]) for t in spec["data"]}


def notice(at) -> str:
    return notices(at)[0]


def card(at) -> dict[str, list[str]]:
    """The verdict table: check -> [your design, classic]."""
    table = at.table[0].value
    return {row["Check"]: [row[c] for c in table.columns[1:]] for _, row in table.iterrows()}


# every block of the menu


#: one URL per block choice, and the design it must build
BLOCKS = {
    "waves-base": ({"kind": "waves", "n_pairs": "6", "base": "100"}, dict(n_pairs=6, base=100.0)),
    "waves-geometric": (
        {"kind": "waves", "spacing": "geometric", "lmin": "8", "lmax": "512"},
        dict(spacing="geometric", min_wavelength=8.0, max_wavelength=512.0),
    ),
    "waves-linear": (
        {"kind": "waves", "spacing": "linear", "lmin": "4", "lmax": "64", "n_pairs": "16"},
        dict(spacing="linear", min_wavelength=4.0, max_wavelength=64.0, n_pairs=16),
    ),
    "waves-concat-phase": (
        {"kind": "waves", "layout": "concat", "phase": "90", "amp": "sqrt2", "normalise": "unit"},
        dict(layout="concat", phase_deg=90.0, amplitude=math.sqrt(2.0), normalise="unit"),
    ),
    "waves-rotary": ({"kind": "waves", "place": "rotary", "n_pairs": "8"}, dict(placement="rotary", n_pairs=8)),
    "random": (
        {"kind": "random", "sigma": "4", "seed": "2", "n_pairs": "12"},
        dict(kind="random", length_scale=4.0, seed=2, n_pairs=12),
    ),
    "random-rotary": ({"kind": "random", "place": "rotary"}, dict(kind="random", placement="rotary")),
    "binary": ({"kind": "binary", "bits": "5", "amp": "2"}, dict(kind="binary", bits=5, amplitude=2.0)),
    "ramp-length": ({"kind": "ramp"}, dict(kind="ramp")),
    "ramp-position": (
        {"kind": "ramp", "ramp": "position", "amp": "0.1"},
        dict(kind="ramp", ramp="position", amplitude=0.1),
    ),
}


@pytest.mark.parametrize("block", list(BLOCKS))
def test_every_block_builds_its_design_and_the_card_shows_posencs_verdicts(block):
    query, fields = BLOCKS[block]
    at = open_page(PAGE, {**query, "d_model": "32", "n_pos": "128", "view": "encoding"})
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    spec = custom.EncodingSpec(d_model=32, **fields)
    # the heatmap is the design's table (float32, every position and dimension at this size)
    z = arr(charts(at)[0]["data"][0]["z"])
    np.testing.assert_allclose(z, custom.encode(spec, 128), rtol=1e-6, atol=1e-6)
    expected = custom.check_encoding(spec, 128)
    theirs = custom.check_encoding(custom.classic("sinusoidal", 32, 128), 128)
    rows = card(at)
    assert len(rows) == len(custom.CHECKS)
    for (mine_text, their_text), name in zip(rows.values(), custom.CHECKS, strict=True):
        for text, checks in ((mine_text, expected), (their_text, theirs)):
            verdict = checks[name]["passed"]
            word = "cannot tell" if verdict is None else ("yes" if verdict else "no")
            assert text.startswith(word), (block, name, text)
    passes = sum(bool(expected[c]["passed"]) for c in custom.CHECKS)
    assert f"passes {passes} of 6 checks" in notice(at)


def test_the_default_design_is_the_papers_sinusoid_and_passes_everything():
    at = open_page(PAGE)
    assert_clean(at)
    assert at.session_state["_kept"]["design"]["kind"] == "waves"  # kept per lesson
    rows = card(at)
    assert all(mine.startswith("yes") and theirs.startswith("yes") for mine, theirs in rows.values())
    np.testing.assert_allclose(arr(charts(at)[0]["data"][0]["z"]), posenc.sinusoidal(256, 32), atol=1e-6)
    assert "passes 6 of 6 checks" in notice(at)


def test_a_design_is_a_link():
    query = {"kind": "binary", "bits": "5", "d_model": "16", "n_pos": "64", "view": "unique", "classic": "learned"}
    at = open_page(PAGE, query)
    assert_clean(at)
    assert not at.warning
    repaired = dict(at.query_params)
    assert {k: repaired[k] for k in query} == query
    again = open_page(PAGE, repaired)
    assert dict(again.query_params) == repaired and not again.warning


def test_a_longest_wavelength_below_the_shortest_is_replaced_with_a_notice():
    at = open_page(PAGE, {"kind": "waves", "spacing": "geometric", "lmin": "64", "lmax": "8"})
    assert_clean(at)
    assert "lmax" in at.warning[0].value
    assert at.query_params["lmax"] == "64"


@pytest.mark.parametrize("junk", ["abc", "-3", "1e9", ""])
def test_garbage_in_every_menu_value_gives_a_notice_and_a_working_design(junk):
    names = ["kind", "place", "n_pairs", "spacing", "base", "layout", "phase", "normalise", "amp", "d_model", "n_pos"]
    at = open_page(PAGE, {name: junk for name in names})
    assert_clean(at)
    assert at.warning
    assert charts(at)
    assert at.table, "the verdict card is drawn for the design the notice names"


@pytest.mark.parametrize("view", ["encoding", "unique", "bounded", "shift", "similarity", "train"])
def test_the_largest_and_smallest_settings_stay_under_a_megabyte(view):
    for query in (
        {"d_model": "256", "n_pos": "1024", "n_pairs": "128", "k": "64", "view": view},
        {"d_model": "2", "n_pos": "16", "k": "64", "view": view},
        {"kind": "binary", "d_model": "2", "bits": "1", "n_pos": "1024", "view": view, "classic": "learned"},
    ):
        at = open_page(PAGE, query)
        assert_clean(at)
        assert max(chart_bytes(at)) < MB


# each check against its formula


def test_uniqueness_view_finds_the_binary_clock_wrapping_after_two_to_the_bits():
    at = open_page(PAGE, {"view": "unique", "kind": "binary", "bits": "4", "d_model": "8", "n_pos": "64"})
    assert_clean(at)
    mine = lines(charts(at)[0])["your design"]
    # every position has its twin 16 away: distance 0
    assert mine.shape == (64,) and not mine.any()
    assert "closest two positions are 0 and 16" in notice(at)
    assert "cannot be told from 0" in notice(at)
    sin = lines(charts(at)[0])["sinusoidal (Vaswani et al.)"]
    # sinusoid: |PE(p) - PE(q)|^2 = sum_i 2 (1 - cos((p - q) w_i)); at d = 8 the fast pair comes back
    # after 6 positions, so p +- 6 is nearer than a neighbour
    w = posenc.sinusoid_frequencies(8)
    for p in (0, 10, 63):
        nearest = min(math.sqrt(sum(2 * (1 - math.cos((p - q) * wi)) for wi in w)) for q in range(64) if q != p)
        assert sin[p] == pytest.approx(nearest, rel=1e-5)
    assert sin[10] < math.sqrt(sum(2 * (1 - math.cos(wi)) for wi in w))


def test_bounded_view_shows_the_raw_ramp_growing_and_the_length_ramp_moving():
    at = open_page(PAGE, {"view": "bounded", "kind": "ramp", "ramp": "position", "d_model": "4", "n_pos": "16"})
    assert_clean(at)
    series = lines(charts(at)[0])
    mine = series["your design, in a text of 128"]
    np.testing.assert_allclose(mine, 2.0 * np.arange(128), rtol=1e-6)
    assert "it grows with the text" in notice(at)
    at = open_page(PAGE, {"view": "bounded", "kind": "ramp", "d_model": "4", "n_pos": "16"})
    series = lines(charts(at)[0])
    np.testing.assert_allclose(series["your design, in a text of 128"], 2.0 * np.arange(128) / 127, rtol=1e-6)
    short = series["your design, in a text of 16"]
    np.testing.assert_allclose(short[:16], 2.0 * np.arange(16) / 15, rtol=1e-6)
    assert np.isnan(short[16:]).all()
    assert "depends on the length of the text" in notice(at)


def test_bounded_view_marks_the_end_of_the_learned_table():
    at = open_page(PAGE, {"view": "bounded", "classic": "learned", "n_pos": "32", "d_model": "8"})
    theirs = lines(charts(at)[0])["learned table, as initialised"]
    np.testing.assert_allclose(theirs[:32], np.linalg.norm(posenc.learned_table(32, 8), axis=1), rtol=1e-6)
    assert np.isnan(theirs[32:]).all()
    assert "no code past position 31" in notice(at)


def test_shift_view_fits_the_rotation_matrix_and_fails_the_binary_clock():
    at = open_page(PAGE, {"view": "shift", "d_model": "8", "base": "10", "n_pos": "64", "k": "3"})
    assert_clean(at)
    mk, misses = charts(at)
    np.testing.assert_allclose(arr(mk["data"][0]["z"]), posenc.rotation_matrix(3, 8, base=10.0), atol=1e-6)
    assert np.nanmax(lines(misses)["your design"]) < 1e-9
    assert "one matrix moves every code" in notice(at)
    at = open_page(PAGE, {"view": "shift", "kind": "binary", "bits": "6", "d_model": "8", "k": "1"})
    assert_clean(at)
    assert np.nanmax(lines(charts(at)[1])["your design"]) > 0.1
    assert "your design misses" in notice(at) and "no single matrix does it" in notice(at)


def test_similarity_view_draws_the_sum_of_cosines_for_the_sinusoid():
    at = open_page(PAGE, {"view": "similarity", "d_model": "16", "n_pos": "64", "base": "100"})
    assert_clean(at)
    heat, curve = charts(at)
    z = arr(heat["data"][0]["z"])
    pe = posenc.sinusoidal(64, 16, base=100.0)
    np.testing.assert_allclose(z, pe @ pe.T, atol=1e-5)
    mean = lines(curve)["your design, mean over p"]
    w = posenc.sinusoid_frequencies(16, 100.0)
    expected = np.array([sum(math.cos(r * wi) for wi in w) for r in range(33)]) / 8
    np.testing.assert_allclose(mean, expected, atol=1e-6)
    # translation invariant: lowest and highest over the starting points sit on the mean
    np.testing.assert_allclose(lines(curve)["your design, highest"], expected, atol=1e-6)
    assert "the same from every start" in notice(at)


# training


@pytest.mark.slow
def test_train_view_shows_the_stored_classics_at_once_and_trains_the_design_on_request():
    query = {"view": "train", "kind": "binary", "bits": "8", "task": "copy"}
    at = open_page(PAGE, query)
    assert_clean(at)
    # at once: what the model gets (the design at width 32 over 8 x 32 positions) and the stored classics
    (heat,) = charts(at)
    spec = custom.EncodingSpec(kind="binary", bits=8)
    np.testing.assert_allclose(arr(heat["data"][0]["z"]), custom.encode(spec, 256), atol=1e-6)
    methods = at.table[0].value["method"].tolist()
    assert methods == ["no positions", "learned absolute", "sinusoidal", "RoPE", "ALiBi", "T5 buckets"]
    assert "Press Train" in notice(at)
    # two models of 300 steps each: about 3 s on an idle machine, allowed much longer on a busy one
    at.button(key="design_train").click().run(timeout=600)
    assert_clean(at)
    accuracy = lines(charts(at)[0])
    cfg = ex.ExperimentConfig(task="copy")
    method = custom.experiment_method(spec, cfg, name="yours")
    expected = ex.run_experiment(cfg, methods=("sinusoidal", method))["accuracy"]
    np.testing.assert_allclose(accuracy["your design"], expected["yours"], atol=1e-6)
    np.testing.assert_allclose(accuracy["sinusoidal"], expected["sinusoidal"], atol=1e-6)
    assert f"{expected['yours'][0]:.0%} at the training length" in notice(at)
    # the chart's code, run as it is, gives the drawn numbers (only drawn after the click)
    code, _ = at.session_state[CODES]["design_accuracy"]
    drawn = np.column_stack([accuracy["your design"], accuracy["sinusoidal"], accuracy["chance"]])
    np.testing.assert_allclose(run_snippet(code), drawn, rtol=2e-6, atol=2e-6)
    # a rerun keeps the trained design without a second click
    at.run()
    assert "your design" in lines(charts(at)[0])


def test_a_rotary_design_trains_beside_rope_and_is_rebuilt_at_the_head_width():
    at = open_page(PAGE, {"view": "train", "kind": "waves", "place": "rotary", "d_model": "64", "task": "marker"})
    assert_clean(at)
    z = arr(charts(at)[0]["data"][0]["z"])
    np.testing.assert_allclose(z, posenc.sinusoidal(256, 8), atol=1e-6)
    assert any("rebuilt at d = 8 (4 pairs" in c.value for c in at.caption)


# the base slider's help: the longest wavelength of P pairs


@pytest.mark.parametrize("pairs", range(1, 129))
def test_the_base_help_gives_the_longest_wavelength_at_every_p(pairs):
    from posenc_lab.lessons.design.lesson import base_help

    text = base_help(pairs)
    assert "about 2 pi x base" not in text and f"2π·base^({pairs - 1}/{pairs}) with P = {pairs}" in text
    for base in (10.0, 10_000.0, 1_000_000.0):
        spec = custom.EncodingSpec(kind="waves", d_model=2 * pairs, spacing="base", base=base)
        longest = float((2 * np.pi / custom.pair_frequencies(spec)).max())
        assert longest == pytest.approx(2 * math.pi * base ** ((pairs - 1) / pairs), rel=1e-12)
        assert longest / (2 * math.pi * base) == pytest.approx(base ** (-1 / pairs), rel=1e-12)
    if pairs == 16:  # about 0.56 of 2 pi x base at base 10,000
        assert round(10_000 ** (-1 / 16), 2) == 0.56


def test_the_base_slider_shows_the_help_of_its_pairs():
    from posenc_lab.lessons.design.lesson import base_help

    at = open_page(PAGE, {"kind": "waves", "d_model": "64", "pairs": "16", "spacing": "base"})
    assert_clean(at)
    assert at.select_slider(key="w:base").proto.help == base_help(16)


@pytest.mark.parametrize("width", [2, 4, 16, 128, 512])
def test_the_shared_base_help_gives_the_longest_wavelength(width):
    from posenc_lab.ui.controls import BASE_HELP

    assert "2π·base^((d−2)/d)" in BASE_HELP and "about 2 pi x base" not in BASE_HELP
    for base in (10.0, 10_000.0):
        longest = float(posenc.wavelengths(width, base)[-1])
        assert longest == pytest.approx(2 * math.pi * base ** ((width - 2) / width), rel=1e-12)
    said = float(re.search(r"\(([0-9.]+) at d = 128 and base 10,000\)", BASE_HELP).group(1))
    assert said == round(float(posenc.wavelengths(128, 10_000.0)[-1]) / (2 * math.pi * 10_000), 2)
