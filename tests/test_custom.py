"""posenc.custom: designs from a menu, and the checks the design lesson runs on them.

Known values come from the formulas (written out here with plain loops), from the
existing core (``posenc.sinusoidal``, ``rotation_matrix``, ``rope_inv_freq``) or from
arithmetic on the blocks (a binary clock of b digits repeats after 2**b positions).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import posenc
from posenc import experiment as ex
from posenc_lab.lessons.design import measure as custom
from posenc_lab.lessons.design.measure import EncodingSpec

# building


@pytest.mark.parametrize("n", [1, 7, 255, 256, 600])
@pytest.mark.parametrize("d_model", [2, 8, 64])
@pytest.mark.parametrize("layout", posenc.SINUSOIDAL_LAYOUTS)
def test_the_default_waves_are_the_papers_sinusoid_exactly(n, d_model, layout):
    spec = EncodingSpec(d_model=d_model, layout=layout)
    assert np.array_equal(custom.encode(spec, n), posenc.sinusoidal(n, d_model, layout=layout))
    positions = np.array([0, 3, 17.5, 1000.0])
    assert np.array_equal(custom.encode(spec, positions), posenc.sinusoidal(positions, d_model, layout=layout))


def test_fewer_pairs_are_the_sinusoid_of_a_narrower_model_padded_with_zeros():
    pe = custom.encode(EncodingSpec(d_model=16, n_pairs=3, base=100.0), 40)
    assert np.array_equal(pe[:, :6], posenc.sinusoidal(40, 6, base=100.0))
    assert not pe[:, 6:].any()


def plain_waves(p, w, phase_deg=0.0, layout="interleaved"):
    """One code, written out pair by pair."""
    half = len(w)
    out = np.zeros(2 * half)
    for i, wi in enumerate(w):
        angle = p * wi + math.radians(phase_deg)
        j_sin, j_cos = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, half + i)
        out[j_sin], out[j_cos] = math.sin(angle), math.cos(angle)
    return out


def test_geometric_and_linear_spacing_and_phase_against_a_plain_loop():
    geo = EncodingSpec(d_model=10, spacing="geometric", min_wavelength=4.0, max_wavelength=400.0)
    lam = 2 * np.pi / custom.pair_frequencies(geo)
    np.testing.assert_allclose(lam, [4.0, 4.0 * 10**0.5, 40.0, 40.0 * 10**0.5, 400.0], rtol=1e-12)
    lin = EncodingSpec(d_model=8, spacing="linear", min_wavelength=4.0, max_wavelength=64.0, phase_deg=30.0)
    w = custom.pair_frequencies(lin)
    np.testing.assert_allclose(w, 2 * np.pi / 64 * np.array([16, 11, 6, 1]), rtol=1e-12)
    for layout in posenc.SINUSOIDAL_LAYOUTS:
        spec = replace(lin, layout=layout)
        pe = custom.encode(spec, 50)
        for p in (0, 1, 13, 49):
            np.testing.assert_allclose(pe[p], plain_waves(p, w, 30.0, layout), atol=1e-12)


def test_random_features_are_seeded_and_approximate_a_gaussian_kernel():
    spec = EncodingSpec(kind="random", d_model=4000, length_scale=16.0, seed=3)
    w = custom.pair_frequencies(spec)
    assert np.array_equal(w, np.random.default_rng(3).normal(0.0, 1 / 16, 2000))
    assert not np.array_equal(w, custom.pair_frequencies(replace(spec, seed=4)))
    pe = custom.encode(spec, 80)
    # E[sin(pw) sin(qw) + cos(pw) cos(qw)] = E[cos((p - q) w)] = exp(-(p - q)^2 / (2 sigma^2))
    for r, expected in ((0, 1.0), (16, math.exp(-0.5)), (32, math.exp(-2.0)), (64, math.exp(-8.0))):
        assert pe[5] @ pe[5 + r] / 2000 == pytest.approx(expected, abs=0.05), r


def test_binary_digits_and_ramps_against_their_formulas():
    pe = custom.encode(EncodingSpec(kind="binary", d_model=6, bits=4, amplitude=0.5), 20)
    for p in range(20):
        digits = [(p >> b) & 1 for b in range(4)]
        assert pe[p].tolist() == [0.5 * (2 * d - 1) for d in digits] + [0.0, 0.0]
    ramp = custom.encode(EncodingSpec(kind="ramp", d_model=4), 11)
    np.testing.assert_array_equal(ramp, np.repeat(np.arange(11)[:, None] / 10, 4, axis=1))
    raw = custom.encode(EncodingSpec(kind="ramp", ramp="position", d_model=4), 11)
    np.testing.assert_array_equal(raw, np.repeat(np.arange(11.0)[:, None], 4, axis=1))
    # an array of positions sits in a sequence as long as its last position + 1, unless told
    np.testing.assert_allclose(custom.encode(EncodingSpec(kind="ramp", d_model=2), [0, 5], length=11)[1], [0.5, 0.5])


def test_unit_normalisation_and_amplitude():
    pe = custom.encode(EncodingSpec(d_model=8, n_pairs=2, normalise="unit", amplitude=3.0), 30)
    np.testing.assert_allclose(np.linalg.norm(pe, axis=1), 3.0, rtol=1e-12)
    ramp = custom.encode(EncodingSpec(kind="ramp", d_model=4, normalise="unit"), 5)
    assert not ramp[0].any(), "a zero code stays zero"
    np.testing.assert_allclose(ramp[1:], 0.5)


def test_rotary_designs_give_ropes_frequencies_and_ignore_the_added_options():
    spec = EncodingSpec(d_model=8, placement="rotary")
    assert np.array_equal(custom.rotary_frequencies(spec), posenc.rope_inv_freq(8)[0])
    padded = custom.rotary_frequencies(EncodingSpec(d_model=8, n_pairs=2, placement="rotary"))
    assert padded[2:].tolist() == [0.0, 0.0]
    fancy = EncodingSpec(d_model=8, placement="rotary", amplitude=4.0, phase_deg=90.0, layout="concat")
    assert np.array_equal(custom.encode(fancy, 9), posenc.sinusoidal(9, 8))
    assert fancy.key() == spec.key()


# the design as data


def test_ignored_fields_do_not_change_the_key_and_the_key_rebuilds_the_design():
    a = EncodingSpec(kind="binary", d_model=16, bits=5, base=77.0, seed=4, spacing="linear")
    b = EncodingSpec(kind="binary", d_model=16, bits=5)
    assert a.key() == b.key() and a != b
    assert EncodingSpec(*a.key()) == b.canonical()
    assert b.arguments() == "kind='binary', d_model=16, bits=5, normalise='none', amplitude=1.0, placement='added'"
    assert "base" in EncodingSpec().arguments() and "min_wavelength" not in EncodingSpec().arguments()


def test_at_width_keeps_what_fits():
    spec = EncodingSpec(d_model=64, n_pairs=20, spacing="geometric", min_wavelength=4.0, max_wavelength=1000.0)
    small = spec.at_width(8)
    assert small.pairs == 4 and small.min_wavelength == 4.0 and small.max_wavelength == 1000.0
    assert EncodingSpec(kind="binary", d_model=32, bits=12).at_width(8).bits == 8
    assert EncodingSpec(d_model=64).at_width(32).pairs == 16


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"kind": "spiral"}, "kind"),
        ({"d_model": 7}, "d_model"),
        ({"d_model": 8192}, "d_model"),
        ({"n_pairs": 17}, "n_pairs"),
        ({"n_pairs": 0}, "n_pairs"),
        ({"spacing": "log"}, "spacing"),
        ({"base": 1.0}, "base"),
        ({"min_wavelength": 1.0}, "min_wavelength"),
        ({"min_wavelength": 100.0, "max_wavelength": 10.0}, "max_wavelength"),
        ({"length_scale": 0.0}, "length_scale"),
        ({"seed": -1}, "seed"),
        ({"bits": 33}, "bits"),
        ({"bits": 40, "d_model": 64}, "bits"),
        ({"ramp": "log"}, "ramp"),
        ({"layout": "zigzag"}, "layout"),
        ({"phase_deg": float("nan")}, "phase_deg"),
        ({"normalise": "l1"}, "normalise"),
        ({"amplitude": 0.0}, "amplitude"),
        ({"amplitude": "big"}, "amplitude"),
        ({"placement": "bias"}, "placement"),
        ({"kind": "ramp", "placement": "rotary"}, "placement"),
    ],
)
def test_every_field_is_validated_and_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        EncodingSpec(**kwargs)


def test_sizes_and_positions_are_checked_before_anything_is_built():
    with pytest.raises(ValueError, match="MAX_ELEMENTS"):
        custom.encode(EncodingSpec(d_model=4096), 20_000)
    with pytest.raises(ValueError, match="whole numbers"):
        custom.encode(EncodingSpec(kind="binary"), [0.5, 1.0])
    with pytest.raises(ValueError, match="length"):
        custom.encode(EncodingSpec(kind="ramp"), [0, 9], length=5)
    with pytest.raises(ValueError, match="spec"):
        custom.encode({"kind": "waves"}, 4)
    with pytest.raises(ValueError, match="name"):
        custom.classic("alibi", 8, 16)


# checks on tables


@given(hnp.arrays(np.float64, st.tuples(st.integers(2, 9), st.integers(1, 4)), elements=st.integers(-3, 3)))
def test_nearest_distances_against_a_plain_loop(table):
    dist, partner = custom.nearest_distances(table)
    for p in range(table.shape[0]):
        others = [np.linalg.norm(table[p] - table[q]) for q in range(table.shape[0]) if q != p]
        assert dist[p] == pytest.approx(min(others), abs=1e-12)
        assert partner[p] != p
        assert np.linalg.norm(table[p] - table[partner[p]]) == dist[p]


@pytest.mark.parametrize("layout", posenc.SINUSOIDAL_LAYOUTS)
@pytest.mark.parametrize("k", [1, 3, 10])
def test_the_fitted_shift_map_of_the_sinusoid_is_its_rotation_matrix(layout, k):
    # base 10 and 64 positions: every pair turns enough that the fit has a single answer
    pe = posenc.sinusoidal(64, 8, base=10.0, layout=layout)
    m, miss, rank = custom.fit_shift_map(pe, k)
    assert rank == 8
    np.testing.assert_allclose(m, posenc.rotation_matrix(k, 8, base=10.0, layout=layout), atol=1e-9)
    assert miss.max() < 1e-12


def test_similarity_by_distance_of_the_sinusoid_is_a_sum_of_cosines():
    w = posenc.sinusoid_frequencies(16, 100.0)
    s = custom.similarity_by_distance(posenc.sinusoidal(40, 16, base=100.0), 12)
    assert s.shape == (28, 13)
    for r in (0, 1, 5, 12):
        np.testing.assert_allclose(s[:, r], sum(math.cos(r * wi) for wi in w), atol=1e-12)


def test_table_checks_refuse_what_they_cannot_measure():
    with pytest.raises(ValueError, match="at least 2 rows"):
        custom.nearest_distances(np.ones((1, 3)))
    with pytest.raises(ValueError, match="k"):
        custom.fit_shift_map(np.ones((4, 2)), 4)
    with pytest.raises(ValueError, match="max_distance"):
        custom.similarity_by_distance(np.ones((4, 2)), 4)


# checks on designs: the verdicts the lesson shows


def passed(checks: dict) -> dict:
    return {name: checks[name]["passed"] for name in custom.CHECKS}


def test_the_sinusoid_passes_every_check():
    checks = custom.check_encoding(EncodingSpec(d_model=32), 256)
    assert passed(checks) == dict.fromkeys(custom.CHECKS, True)
    # neighbours are the closest codes; the norms are sqrt(D/2) exactly at every length
    assert checks["unique"]["pair"][1] - checks["unique"]["pair"][0] == 1
    assert checks["bounded"]["first"] == pytest.approx(4.0, rel=1e-12)
    assert checks["bounded"]["last"] == pytest.approx(4.0, rel=1e-12)
    assert checks["shift_linear"]["value"] < 1e-9
    assert checks["translation_invariant"]["value"] < 1e-12


@pytest.mark.parametrize("bits", [3, 6])
def test_a_binary_clock_is_unique_up_to_two_to_the_bits_and_not_shift_linear(bits):
    spec = EncodingSpec(kind="binary", d_model=8, bits=bits)
    period = 2**bits
    assert custom.uniqueness(spec, period)["unique"]
    wrapped = custom.uniqueness(spec, period + 1)
    assert not wrapped["unique"] and wrapped["pair"] == (0, period) and wrapped["distance"] == 0.0
    fit = custom.shift_fit(spec, 64, 1)
    assert fit["determined"] and fit["linear"] is False
    assert fit["relative"] > 0.1
    assert custom.check_encoding(spec, 64)["bounded"]["passed"]


def test_a_single_binary_digit_is_shift_linear():
    # one digit flips sign at every step: PE(p + 1) = -PE(p)
    fit = custom.shift_fit(EncodingSpec(kind="binary", d_model=2, bits=1), 32, 1)
    assert fit["linear"] and fit["m"][0, 0] == pytest.approx(-1.0)


def test_the_ramp_over_the_length_is_unique_and_bounded_but_depends_on_the_length():
    n, d = 100, 4
    checks = custom.check_encoding(EncodingSpec(kind="ramp", d_model=d), n)
    assert checks["unique"]["passed"]
    # neighbours differ by 1/(N - 1) in each of the d dimensions
    assert checks["unique"]["distance"] == pytest.approx(math.sqrt(d) / (n - 1), rel=1e-12)
    assert checks["bounded"]["passed"]
    assert not checks["same_at_any_length"]["passed"]
    # position N - 1: 1 in a text of N, (N - 1)/(8N - 1) in one of 8N; the largest code is sqrt(d)
    assert checks["same_at_any_length"]["value"] == pytest.approx(1 - (n - 1) / (8 * n - 1), rel=1e-12)
    assert not checks["shift_linear"]["passed"], "PE(0) = 0 cannot be mapped to PE(k)"
    assert not checks["translation_invariant"]["passed"]


def test_the_raw_ramp_grows_with_the_text():
    growth = custom.norm_growth(EncodingSpec(kind="ramp", ramp="position", d_model=4), 50)
    assert growth["max_norm"] == pytest.approx([2 * (50 * m - 1) for m in (1, 2, 4, 8)])
    assert not growth["bounded"]
    assert custom.length_change(EncodingSpec(kind="ramp", ramp="position", d_model=4), 50) == 0.0


def test_a_normalised_ramp_gives_every_position_after_0_the_same_code():
    u = custom.uniqueness(EncodingSpec(kind="ramp", d_model=4, normalise="unit"), 10)
    assert not u["unique"] and u["distance"] == 0.0 and 0 not in u["pair"]


def test_evenly_spaced_frequencies_repeat_after_their_common_period():
    spec = EncodingSpec(d_model=32, spacing="linear", min_wavelength=4.0, max_wavelength=64.0)
    u = custom.uniqueness(spec, 256)
    assert not u["unique"]
    # every position has a twin 64 away (rounding only), and none closer than 64
    assert (u["nearest"] < 1e-9 * u["max_norm"]).all()
    assert np.abs(u["partner"] - np.arange(256)).min() == 64
    assert custom.uniqueness(spec, 64)["unique"]
    geometric = EncodingSpec(d_model=32, spacing="geometric", min_wavelength=4.0, max_wavelength=64.0)
    assert custom.uniqueness(geometric, 256)["unique"]


def test_phase_and_layout_change_no_check():
    base = custom.check_encoding(EncodingSpec(d_model=16), 64, k=3)
    for change in ({"phase_deg": 90.0}, {"layout": "concat"}, {"phase_deg": -45.0, "layout": "concat"}):
        other = custom.check_encoding(EncodingSpec(d_model=16, **change), 64, k=3)
        assert passed(other) == passed(base)
        for name in ("unique", "bounded", "falls_with_distance"):
            assert other[name]["value"] == pytest.approx(base[name]["value"], rel=1e-9, abs=1e-12), (change, name)


def test_one_fast_pair_is_not_highest_one_step_away():
    # wavelength 2 pi: cos(6) = 0.96 > cos(1) = 0.54, the wave comes back
    curve = custom.similarity_curve(EncodingSpec(d_model=2), 64)
    assert not curve["falls"] and curve["invariant"]
    assert curve["mean"][6] == pytest.approx(math.cos(6)) and curve["mean"][1] == pytest.approx(math.cos(1))


def test_the_learned_classic_has_no_code_past_its_table():
    learned = custom.classic("learned", 16, 64)
    checks = custom.check_encoding(learned, 64)
    assert checks["unique"]["passed"]
    assert checks["bounded"]["passed"] is False and checks["bounded"]["last"] is None
    assert checks["same_at_any_length"]["value"] is None
    assert checks["shift_linear"]["passed"] is False
    assert not checks["translation_invariant"]["passed"]
    norms = custom.norm_growth(learned, 64)["norms"]
    assert norms.size == 512 and np.isnan(norms[64:]).all() and np.isfinite(norms[:64]).all()
    np.testing.assert_array_equal(learned.encode(64), posenc.learned_table(64, 16))


def test_too_few_positions_cannot_judge_a_shift():
    fit = custom.shift_fit(custom.classic("learned", 32, 16), 16, 1)
    assert not fit["determined"] and fit["linear"] is None
    assert custom.check_encoding(custom.classic("learned", 32, 16), 16)["shift_linear"]["passed"] is None


# the experiment


def test_an_added_design_is_rebuilt_at_the_models_width():
    cfg = ex.ExperimentConfig()
    method = custom.experiment_method(EncodingSpec(d_model=128, amplitude=2.0), cfg)
    positions = np.arange(10)
    assert method.inv_freq is None
    np.testing.assert_array_equal(method.table(positions), 2.0 * posenc.sinusoidal(positions, 32))
    rotary = custom.experiment_method(EncodingSpec(kind="random", d_model=64, placement="rotary"), cfg)
    assert rotary.table is None and rotary.inv_freq.shape == (cfg.head_dim // 2,)
    assert rotary.shares == "rope" and method.shares == "sinusoidal"


@given(
    d_model=st.sampled_from([2, 4, 8, 16]),
    spacing=st.sampled_from(custom.SPACINGS),
    shortest=st.sampled_from([2.0, 3.0, 6.0, 16.0]),
    ratio=st.sampled_from([1.0, 4.0, 100.0, 1e4]),
    phase=st.sampled_from([0.0, 45.0, 180.0]),
    k=st.integers(1, 20),
)
def test_any_waves_shift_by_one_matrix_and_depend_on_distance_only(d_model, spacing, shortest, ratio, phase, k):
    # each pair turns by k w_i wherever it starts: a fixed rotation, and dot products of cos((p - q) w_i)
    spec = EncodingSpec(
        d_model=d_model,
        spacing=spacing,
        min_wavelength=shortest,
        max_wavelength=shortest * ratio,
        phase_deg=phase,
    )
    fit = custom.shift_fit(spec, 64, k)
    assert fit["determined"] and fit["linear"], fit["relative"]
    assert custom.similarity_curve(spec, 64)["invariant"]
