"""RoPE since 2024 against frozen transformers outputs: LongRoPE, partial rotary, p-RoPE,
Qwen2-VL's M-RoPE and Llama 4's NoPE layers; plus 2-D axial RoPE's properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from posenc.rope import multiaxis


@pytest.fixture(scope="module")
def modern(snapshots):
    return snapshots["rope_modern"]


def _init_cases():
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "data" / "reference_snapshots.json").read_text())
    return data["rope_modern"]["init"]


@pytest.mark.parametrize("case", _init_cases(), ids=lambda c: c["name"])
def test_inv_freq_matches_transformers(case):
    inv, attention = posenc.rope_inv_freq(case["head_dim"], case["base"], case["rope_scaling"], case["seq_len"])
    # transformers' LongRoPE takes its exponents with Tensor.float(), float32 even in the float64
    # run, so only the other types can be held to float64 rounding
    rtol = 1e-6 if case["rope_scaling"]["rope_type"] == "longrope" else 1e-12
    np.testing.assert_allclose(inv, case["inv_freq_f64"], rtol=rtol, atol=0)
    np.testing.assert_allclose(inv, case["inv_freq"], rtol=2e-6, atol=0)
    assert attention == pytest.approx(case["attention_factor"], rel=1e-12)


def test_longrope_switches_to_long_factors_past_the_training_length():
    cfg = {
        "rope_type": "longrope",
        "short_factor": [1.0, 2.0],
        "long_factor": [4.0, 8.0],
        "original_max_position_embeddings": 100,
        "max_position_embeddings": 400,
    }
    short, att = posenc.rope_inv_freq(4, 10000.0, cfg, seq_len=100)
    long, _ = posenc.rope_inv_freq(4, 10000.0, cfg, seq_len=101)
    np.testing.assert_allclose(short, [1.0, 0.01 / 2])
    np.testing.assert_allclose(long, [1 / 4, 0.01 / 8])
    assert att == pytest.approx(np.sqrt(1 + np.log(4) / np.log(100)))
    # apply_rope takes the length from the largest position, as dynamic NTK does
    x = np.ones((1, 4))
    np.testing.assert_allclose(
        posenc.apply_rope(x, [150], rope_scaling=cfg, layout="half"),
        posenc.apply_rope(x, [150], rope_scaling={**cfg, "short_factor": cfg["long_factor"]}, layout="half"),
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"short_factor": [1.0]}, "short_factor'] must be a list of 2 numbers"),
        ({"long_factor": [1.0, -2.0]}, "long_factor'] must hold finite numbers > 0"),
        ({"long_factor": "fast"}, "long_factor'] must be a list of 2 numbers"),
        ({"max_position_embeddings": None}, "max_position_embeddings"),
    ],
)
def test_longrope_bad_factors_are_named(change, message):
    cfg = {"rope_type": "longrope", "short_factor": [1.0, 2.0], "long_factor": [1.0, 2.0]}
    cfg |= {"original_max_position_embeddings": 100, "max_position_embeddings": 400} | change
    if change.get("max_position_embeddings", 0) is None:
        del cfg["max_position_embeddings"]
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        posenc.rope_inv_freq(4, 10000.0, cfg, seq_len=500)


def test_partial_rotary_must_leave_an_even_number_of_dims():
    with pytest.raises(ValueError, match="partial_rotary_factor'] must leave an even number"):
        posenc.rope_inv_freq(8, rope_scaling={"rope_type": "default", "partial_rotary_factor": 0.375})
    with pytest.raises(ValueError, match="partial_rotary_factor"):
        posenc.rope_inv_freq(8, rope_scaling={"rope_type": "default", "partial_rotary_factor": 1.5})


def test_partial_rotary_matches_gpt_neox(modern):
    for case in modern["neox"]:
        x = np.asarray(case["x"])[0, 0]  # (T, Dh)
        out = posenc.apply_rope(
            x,
            case["positions"],
            layout="half",
            rope_scaling={"rope_type": "default", "partial_rotary_factor": case["partial_rotary_factor"]},
        )
        np.testing.assert_allclose(out, np.asarray(case["out"])[0, 0], rtol=1e-12, atol=1e-12)
        rotated = int(16 * case["partial_rotary_factor"])
        np.testing.assert_array_equal(out[:, rotated:], x[:, rotated:])


def test_p_rope_keeps_fast_pairs_and_stops_slow_ones():
    inv, _ = posenc.rope_inv_freq(16, rope_scaling={"rope_type": "proportional", "partial_rotary_factor": 0.5})
    full, _ = posenc.rope_inv_freq(16)
    np.testing.assert_array_equal(inv[:4], full[:4])
    np.testing.assert_array_equal(inv[4:], 0.0)
    # a pair with frequency 0 is position-free: the score of those dims ignores distance
    q = np.random.default_rng(1).standard_normal(16)
    rotated = posenc.apply_rope(
        np.tile(q, (50, 1)), rope_scaling={"rope_type": "proportional", "partial_rotary_factor": 0.5}
    )
    # pairs 4..7 are dims 8..15 in the interleaved layout
    np.testing.assert_array_equal(rotated[:, 8:], np.tile(q[8:], (50, 1)))
    assert not np.allclose(rotated[:, :8], np.tile(q[:8], (50, 1)))


def test_mrope_matches_qwen2_vl(modern):
    case = modern["mrope"]
    x = np.asarray(case["x"])[0, 0]
    out = posenc.rope.apply_mrope(x, case["positions"], case["mrope_section"], base=case["base"])
    np.testing.assert_allclose(out, np.asarray(case["out"])[0, 0], rtol=1e-12, atol=1e-12)


def test_mrope_on_text_is_plain_rope():
    x = np.random.default_rng(2).standard_normal((9, 32))
    text = np.tile(np.arange(9), (3, 1))
    np.testing.assert_allclose(
        posenc.rope.apply_mrope(x, text, (4, 6, 6)), posenc.apply_rope(x, layout="half"), rtol=0, atol=1e-12
    )


def test_qwen2_vl_positions():
    pos = posenc.rope.qwen2_vl_positions(3, (2, 2, 3), 2)
    assert pos.shape == (3, 3 + 12 + 2)
    np.testing.assert_array_equal(pos[:, :3], [[0, 1, 2]] * 3)
    image = pos[:, 3:15]
    assert image[0].min() == 3 and image[0].max() == 4  # two frames
    assert image[1].max() == 4 and image[2].max() == 5  # two rows, three columns
    np.testing.assert_array_equal(pos[:, 15:], [[6, 7]] * 3)  # resumes past the largest image position
    with pytest.raises(ValueError, match="grid sizes must be >= 1"):
        posenc.rope.qwen2_vl_positions(1, (0, 2, 2))


@pytest.mark.parametrize("bad", [(2, 3), (2, 2, 2), (-1, 5, 4), "abc"])
def test_mrope_section_is_checked(bad):
    with pytest.raises(ValueError, match="mrope_section"):
        posenc.rope.apply_mrope(np.ones((2, 16)), np.zeros((3, 2)), bad)


def test_nope_layers_match_llama4(modern):
    for case in modern["nope"]:
        types = posenc.rope.irope_layer_types(case["n_layers"], case["interval"])
        assert [int(t == "rope") for t in types] == case["no_rope_layers"]


@settings(max_examples=40, deadline=None)
@given(
    r=st.integers(0, 30), c=st.integers(0, 30), dr=st.integers(0, 20), dc=st.integers(0, 20), seed=st.integers(0, 99)
)
def test_axial_rope_sees_only_row_and_column_offsets(r, c, dr, dc, seed):
    q, k = np.random.default_rng(seed).standard_normal((2, 1, 16))

    def score(rows, cols):
        # query at (rows[0], cols[0]), key at (rows[1], cols[1])
        return float(
            multiaxis.axial_rope_2d(q, rows[:1], cols[:1])[0] @ multiaxis.axial_rope_2d(k, rows[1:], cols[1:])[0]
        )

    moved = score([r + dr, r], [c + dc, c])
    origin = score([dr, 0], [dc, 0])
    assert moved == pytest.approx(origin, abs=1e-9)


def test_axial_rope_halves_are_one_dimensional_rope():
    """theta^(-4t/Dh) on Dh/2 dims is 1-D RoPE of width Dh/2 with base theta: columns first, then rows."""
    x = np.random.default_rng(3).standard_normal((6, 16))
    rows, cols = np.array([0, 0, 1, 1, 2, 2]), np.array([0, 1, 0, 1, 0, 1])
    out = multiaxis.axial_rope_2d(x, rows, cols, theta=100.0)
    np.testing.assert_allclose(out[:, :8], posenc.apply_rope(x[:, :8], cols, base=100.0), atol=1e-12)
    np.testing.assert_allclose(out[:, 8:], posenc.apply_rope(x[:, 8:], rows, base=100.0), atol=1e-12)
    with pytest.raises(ValueError, match="multiple of 4"):
        multiaxis.axial_rope_2d(np.ones((1, 6)), [0], [0])
