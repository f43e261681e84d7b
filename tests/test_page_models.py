"""The real-models page: its views at their defaults, two models side by side, and the
config box, which answers every bad config with a message naming its key, never a traceback."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio
import pytest
from app_helpers import assert_clean, charts, notices, open_page
from test_code_snippets import run_snippet, test_every_chart_shows_code_that_reproduces_its_data

import posenc
from posenc_lab.figures.arrays import as_array
from posenc_lab.figures.export import figure_table
from posenc_lab.lessons.models import measure
from posenc_lab.lessons.models.catalogue import MODELS
from posenc_lab.lessons.models.lesson import TEXT_KEY, upload_text
from posenc_lab.ui.layout import CODES

PAGE = "posenc_lab/lessons/models/page.py"


def table_cells(at) -> dict[str, str]:
    """Setting -> value of every settings table on the page."""
    cells = {}
    for table in at.table:
        frame = table.value
        if list(frame.columns) == ["Setting", "Value"]:
            cells.update(zip(frame["Setting"], frame["Value"], strict=True))
    return cells


def unescaped(text: str) -> str:
    # the page escapes Markdown in messages it did not write (a backslash before a mark, a word
    # joiner before a colon that could start a link); read them back as plain text
    return text.replace("\\", "").replace("\u2060", "")


def test_catalogue_lists_every_model_with_its_source():
    at = open_page(PAGE, {"view": "catalogue", "k": "13"})
    assert_clean(at)
    frame = at.table[0].value
    assert list(frame["Model"]) == [entry["name"] for entry in MODELS.values()]
    assert list(frame["Source"]) == [entry["source"] for entry in MODELS.values()]
    llama = frame[frame["Model"] == "Llama 3.1 8B"].iloc[0]
    assert (llama["Base"], llama["Context"], llama["Scaling"]) == ("500,000", "8,192 -> 131,072", "llama3, factor 8")
    # the bars: the share of Llama 3.1's 64 scaled pairs whose wavelength is at most 8,192 tokens
    bars = charts(at)[0]["data"][0]
    shares = dict(zip(bars["x"], as_array(bars["y"]).tolist(), strict=True))
    scaled, _ = posenc.rope_inv_freq(128, 500000.0, {"rope_type": "llama3", **LLAMA["rope_scaling"]})
    assert shares["Llama 3.1 8B"] == pytest.approx(np.mean(2 * np.pi / scaled <= 8192), abs=1e-6) == 0.5


@pytest.mark.parametrize("k", ["9", "24"])
def test_catalogue_notice_is_true_at_the_sliders_ends(k):
    """Its sentence on rope_theta and scalings holds for every model drawn, at either end of L."""
    at = open_page(PAGE, {"view": "catalogue", "k": k})
    assert_clean(at)
    text = " ".join(notices(at))
    # pair 0's wavelength is 2π whatever the base; linear scaling stretches every pair alike
    assert "stretches every wavelength but pair 0's (2π tokens whatever the base)" in text
    assert "linear every pair's alike" in text


def test_one_model_shows_its_numbers():
    at = open_page(PAGE, {"view": "model", "model": "llama-3.1", "k": "13"})
    assert_clean(at)
    cells = table_cells(at)
    assert cells["Pairs the scaling leaves unchanged"] == "29 of 64"
    assert cells["Pairs that turn fully within original_max_position_embeddings"] == "35 of 64"
    assert cells["Extended window"] == "131,072"
    assert (
        cells["Pairs that turn fully within L = 8,192"]
        == f"{measure.positions(MODELS['llama-3.1']['config'], 8192)['in_length']} of 64"
    )


def test_two_models_side_by_side_each_get_a_chart_and_a_table():
    at = open_page(PAGE, {"view": "model", "model": "gpt-oss", "vs": "bloom"})
    assert_clean(at)
    # gpt-oss: wavelengths and its layers; BLOOM: its slopes
    assert len(charts(at)) == 3 and len(at.table) == 2
    cells = table_cells(at)
    assert cells["Heads"] == "112"  # BLOOM's ALiBi
    assert cells["Sliding window"] == "128 tokens in 12 of 24 layers"  # gpt-oss


def test_the_config_box_opens_with_an_example_and_its_numbers():
    at = open_page(PAGE, {"view": "config"})
    assert_clean(at)
    assert not at.error
    assert json.loads(at.text_area(key=TEXT_KEY).value) == MODELS["llama-3.1"]["config"]
    assert table_cells(at)["Pairs the scaling leaves unchanged"] == "29 of 64"


def paste(text: str):
    at = open_page(PAGE, {"view": "config"})
    at.text_area(key=TEXT_KEY).set_value(text).run()
    return at


def test_a_pasted_released_gemma3_config_takes_gemma3_text_defaults():
    """Gemma 3's released file: no rope_theta, no max_position_embeddings, model_type "gemma3" outside."""
    released = {"model_type": "gemma3", "text_config": {k: v for k, v in MODELS["gemma-3"]["config"].items()}}
    del released["text_config"]["model_type"]
    at = paste(json.dumps(released))
    assert_clean(at)
    assert not at.error
    cells = table_cells(at)
    assert (cells["Base (rope_theta)"], cells["Extended window"]) == ("1,000,000", "131,072")
    texts = [t.value for t in at.text]
    assert "rope_theta is not in the file: Gemma3TextConfig's default 1,000,000 applies" in texts


def test_an_unknown_model_type_says_which_reading_was_assumed():
    config = {"model_type": "my_model", "hidden_size": 1024, "num_attention_heads": 8, "rope_theta": 10000.0,
              "max_position_embeddings": 4096}  # fmt: skip
    at = paste(json.dumps(config))
    assert_clean(at)
    assert any("'my_model' is not in this lesson's table" in unescaped(i.value) for i in at.info)


def test_a_pasted_config_shows_its_numbers_and_what_was_read():
    gemma = {"architectures": ["Gemma3ForConditionalGeneration"], "text_config": MODELS["gemma-3"]["config"]}
    at = paste(json.dumps(gemma))
    assert_clean(at)
    assert not at.error
    cells = table_cells(at)
    assert cells["rope_type"] == "linear" and cells["Sliding window"] == "1,024 tokens in 52 of 62 layers"
    assert "read the language model's keys from text_config" in [t.value for t in at.text]
    assert at.json and json.loads(at.json[0].proto.body) == MODELS["gemma-3"]["config"]


LLAMA = MODELS["llama-3.1"]["config"]
BAD = [
    pytest.param("x" * (measure.MAX_BYTES + 1), "too big", id="too-big"),
    pytest.param('{"rope_theta": 10000,', "not valid JSON", id="malformed"),
    pytest.param("[1, 2]", "must be a JSON object", id="not-an-object"),
    pytest.param(json.dumps({**LLAMA, "rope_scaling": {"rope_type": "magic"}}), "unknown rope_type", id="unknown-type"),
    pytest.param(
        json.dumps({k: v for k, v in {**LLAMA, "model_type": "my_llama"}.items() if k != "max_position_embeddings"}),
        "max_position_embeddings is missing",
        id="missing-key",
    ),
    pytest.param(
        json.dumps({**LLAMA, "max_position_embeddings": 4096}),
        "original_max_position_embeddings (8,192) contradicts max_position_embeddings (4,096)",
        id="contradiction",
    ),
    pytest.param(
        json.dumps({**LLAMA, "rope_scaling": {**LLAMA["rope_scaling"], "factor": 0}}), "factor", id="factor-0"
    ),
    pytest.param("<b>not json</b> [link](http://x)", "not valid JSON", id="markup"),
    pytest.param(
        json.dumps({**LLAMA, "rope_theta": 1e308}),
        "rope_theta is too large: it must be > 1 and at most 1e+30, got 1e+308",
        id="theta-too-large",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_each_bad_config_shows_an_error_naming_the_key_and_no_traceback(text, message):
    at = paste(text)
    assert_clean(at)
    assert len(at.error) == 1
    assert message in unescaped(at.error[0].value)
    # the page goes on with the example, and says so: never as "this config"
    assert charts(at)
    assert any("Showing the example config" in c.value for c in at.caption)
    assert all("this config" not in n for n in notices(at))
    assert notices(at)[0].startswith("**What to notice:** the example config (Llama 3.1 8B): ")


def drawn(node) -> list:
    """The page's elements in the order they are drawn, containers opened."""
    out = []
    for child in getattr(node, "children", {}).values():
        if getattr(child, "children", None):
            out += drawn(child)
        else:
            out.append(child)
    return out


def test_a_bad_configs_message_is_right_under_the_box_not_above_the_chart():
    at = paste('{"rope_theta": 10000,')
    assert_clean(at)
    order = drawn(at.main)
    box = next(i for i, el in enumerate(order) if el.type == "text_area")
    chart = next(i for i, el in enumerate(order) if el.type == "plotly_chart")
    # the learner is typing in the box: the message is the next thing under it
    assert order[box + 1].type == "error" and "not valid JSON" in unescaped(order[box + 1].value)
    assert [el.type for el in order].count("error") == 1
    # the chart above still says whose numbers it shows
    caption = next(el for el in order[:chart] if el.type == "caption" and "Showing the example" in el.value)
    assert "under the box" in caption.value


@pytest.mark.parametrize("text", ["", "  \n\t  "], ids=["empty", "blank"])
def test_an_empty_box_says_it_shows_the_example_and_never_calls_it_this_config(text):
    at = paste(text)
    assert_clean(at)
    assert not at.error
    order = drawn(at.main)
    box = next(i for i, el in enumerate(order) if el.type == "text_area")
    assert order[box + 1].value == "The box is empty: showing the example config (Llama 3.1 8B)."
    assert any(c.value.startswith("Showing the example config (Llama 3.1 8B): the box is empty") for c in at.caption)
    assert all("this config" not in n for n in notices(at))
    assert notices(at)[0].startswith("**What to notice:** the example config (Llama 3.1 8B): 35 of 64 pairs")


def test_a_head_dim_that_contradicts_the_width_is_used_and_the_page_says_why():
    config = {**LLAMA, "hidden_size": 4096, "num_attention_heads": 16, "head_dim": 128}
    at = paste(json.dumps(config))
    assert_clean(at)
    assert not at.error
    assert table_cells(at)["Rotary pairs"] == "64"
    note = (
        "head_dim 128 is used, not hidden_size / num_attention_heads = 4096 / 16 = 256: transformers uses "
        "head_dim when the config gives it"
    )
    assert note in [t.value for t in at.text]


@pytest.mark.parametrize(
    "query",
    [
        {"view": "model", "model": "llama-4", "vs": "gemma-3"},
        {"view": "model", "model": "gpt-oss", "vs": "phi-3.5"},
        {"view": "model", "model": "t5", "vs": "deberta-v3"},
        {"view": "model", "model": "mpt", "vs": "gpt2"},
    ],
    ids=lambda q: f"{q['model']}-{q['vs']}",
)
def test_every_method_and_layer_chart_shows_code_that_reproduces_it(query):
    # the generic snippet test, on views the default URL does not reach
    test_every_chart_shows_code_that_reproduces_its_data(PAGE, query)


def test_layers_chart_marks_llama4s_nope_layers_and_gemmas_global_ones():
    at = open_page(PAGE, {"view": "model", "model": "llama-4", "vs": "gemma-3"})
    assert_clean(at)
    grids = {
        spec["layout"]["meta"]["title"]: as_array(spec["data"][0]["z"]) for spec in charts(at) if "layers" in str(spec)
    }
    llama, gemma = (g for t, g in grids.items() if "layers" in t)
    # Llama 4 Scout: layers 3, 7, ... have no RoPE and see everything; the others attend in chunks
    np.testing.assert_array_equal(llama[1], [0.0 if (i + 1) % 4 == 0 else 1.0 for i in range(48)])
    np.testing.assert_array_equal(llama[0], 1 - llama[1])
    # Gemma 3 27B: every 6th layer global
    np.testing.assert_array_equal(gemma[0], [1.0 if (i + 1) % 6 == 0 else 0.0 for i in range(62)])


class Upload:
    """What st.file_uploader hands the page: a size and the bytes."""

    def __init__(self, data: bytes):
        self.size, self._data = len(data), data

    def getvalue(self) -> bytes:
        return self._data


def test_an_upload_is_read_as_text_or_refused_with_a_reason():
    good = json.dumps(MODELS["mistral"]["config"]).encode()
    assert upload_text(Upload(good)) == (good.decode(), None)
    text, problem = upload_text(Upload(b"{" + b" " * measure.MAX_BYTES + b"}"))
    assert text is None and "at most 256 kB is read" in problem
    text, problem = upload_text(Upload(b'{"rope_theta": "\xff"}'))
    assert text is None and "not UTF-8" in problem


@pytest.mark.parametrize(
    "scaling",
    [
        {"type": "dynamic", "factor": 2.0},
        {"rope_type": "yarn", "factor": 4.0},
        {"rope_type": "proportional", "partial_rotary_factor": 0.25},
    ],
    ids=lambda s: s.get("rope_type", s.get("type")),
)
def test_a_pasted_configs_chart_code_reproduces_it(scaling):
    config = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "max_position_embeddings": 4096,
        "rope_scaling": scaling,
    }
    at = paste(json.dumps(config))
    assert_clean(at)
    assert not at.error
    specs = {str(el.key): el.proto.spec for el in at.get("plotly_chart")}
    code, _ = at.session_state[CODES]["models_config"]
    drawn = figure_table(pio.from_json(specs["models_config"]))[1]
    np.testing.assert_allclose(run_snippet(code).reshape(drawn.shape), drawn, rtol=2e-6, equal_nan=True)


def test_a_far_deberta_configs_chart_code_reproduces_the_offsets_drawn():
    # the config: max_relative_positions 49,999,999, of which the chart draws 0..2,000
    config = {
        "model_type": "deberta-v2",
        "relative_attention": True,
        "position_buckets": 256,
        "max_relative_positions": 49_999_999,
    }
    at = paste(json.dumps(config))
    assert_clean(at)
    assert not at.error
    assert table_cells(at)["Offset max_relative_positions lands in bucket"] == str(
        int(posenc.deberta_log_bucket(np.array([49_999_999]), bucket_size=256, max_position=49_999_999)[0])
    )
    specs = {str(el.key): el.proto.spec for el in at.get("plotly_chart")}
    code, _ = at.session_state[CODES]["models_config"]
    drawn = figure_table(pio.from_json(specs["models_config"]))[1]
    assert drawn.shape[0] == measure.DEBERTA_OFFSETS_DRAWN + 1
    np.testing.assert_allclose(run_snippet(code).reshape(drawn.shape), drawn)
