"""The lesson "Beyond one dimension": sentences filled in from its sliders, checked against
the numbers its charts draw, at every value the sliders allow."""

from __future__ import annotations

import numpy as np
import pytest
from app_helpers import assert_clean, notices, open_page, panel_specs

import posenc
from posenc_lab.figures.arrays import as_array
from posenc_lab.lessons.images import compute
from posenc_lab.lessons.images import exercises as images_exercises
from posenc_lab.ui.exercise_kinds import concrete

PAGE = "posenc_lab/lessons/images/page.py"


def test_ordinals():
    said = [compute.ordinal(n) for n in (1, 2, 3, 4, 8, 11, 12, 13, 21, 22, 23, 101, 111, 112)]
    assert said == ["1st", "2nd", "3rd", "4th", "8th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st"] + [
        "111th",
        "112th",
    ]


@pytest.mark.parametrize("interval", range(1, 9))
@pytest.mark.parametrize("n_layers", [4, 5, 7, 8, 48, 127, 128])
def test_the_nope_sentence_counts_the_layers_the_chart_draws(interval, n_layers):
    layers = compute.irope_layers(n_layers, interval)
    text = compute.nope_count_sentence(layers, interval)
    nope = posenc.rope.irope_layer_types(n_layers, interval).count("nope")
    assert nope == n_layers // interval
    if nope == 0:
        assert f"none of the {n_layers} layers" in text and f"the first would be layer {interval}" in text
    elif nope == n_layers:
        assert text == f"every layer drops RoPE: all {n_layers} have no positions"
    else:
        assert f"{compute.every(interval)} drops RoPE, {nope} of the {n_layers} layers" in text
    assert "2th" not in text and "3th" not in text and "1th" not in text


@pytest.mark.parametrize(("interval", "n_layers"), [(2, 48), (8, 4), (1, 4)])
def test_the_nope_notice_names_llama_4_and_then_the_slider(interval, n_layers):
    at = open_page(PAGE, {"view": "nope", "interval": str(interval), "layers": str(n_layers)})
    assert_clean(at)
    notice = notices(at)[0]
    # Llama 4's interval is 4 whatever the slider says; the slider's own sentence follows
    assert "it drops RoPE in every 4th layer" in notice
    heat = panel_specs(at)["images_irope"][0]["data"][0]
    drawn = as_array(heat["z"]).astype(float).reshape(-1)
    assert drawn.size == n_layers
    assert f"Here, {compute.nope_count_sentence(drawn[None, :], interval)}." in notice
    assert "2th" not in notice and "far above" not in notice


def test_the_intro_names_which_vision_models_use_rows_and_columns():
    at = open_page(PAGE, {"view": "patches"})
    assert_clean(at)
    text = " ".join(m.value for m in at.markdown)
    assert "Vision models give each patch its row and its column" not in text
    assert "ViT, DeiT and CLIP" in text and "RoPE-ViT" in text and "Qwen2-VL's vision encoder" in text


def test_the_video_exercise_counts_temporal_patches():
    # as first written: the variant a class sees (test_exercise_variants checks every variant)
    exercise = concrete(next(e for e in images_exercises.EXERCISES if e.key == "images_mrope_resume"))
    assert "grid_t = 2" in exercise.question and "video of 2 frames" not in exercise.question
    # 2 temporal patches of 3 x 4 after 5 text tokens: the text resumes at 5 + max(2, 3, 4) = 9
    assert exercise.answer() == 9.0 == posenc.rope.qwen2_vl_positions(5, (2, 3, 4), 1)[0, -1]
    assert np.array_equal(posenc.rope.qwen2_vl_positions(5, (2, 3, 4), 1)[:, -1], [9, 9, 9])


def test_the_layer_map_has_two_colours_named_nope_and_rope():
    """A layer either uses RoPE or no positions: the map has two colours and its bar names
    them (it had a continuous bar from 0 to 1 titled "yes")."""
    from app_helpers import charts

    at = open_page(PAGE, {"view": "nope"})
    (layers,) = [t for c in charts(at) for t in c["data"] if t.get("type") == "heatmap"]
    scale = layers["colorscale"]
    assert len({colour for _, colour in scale}) == 2
    assert (layers["zmin"], layers["zmax"]) == (0, 1)
    assert layers["colorbar"]["ticktext"] == ["NoPE", "RoPE"]
    # each name in its colour's band: NoPE (0) in the lower half of the bar, RoPE (1) in the upper
    low, high = layers["colorbar"]["tickvals"]
    assert 0 < low < 0.5 < high < 1
    assert scale[0][1] != scale[-1][1]
