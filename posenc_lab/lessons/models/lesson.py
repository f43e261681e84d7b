"""Lesson: the positions of real models, computed by posenc from their config.json (a
catalogue of published models, one or two side by side, and the student's own config)."""

import contextlib
import json

import numpy as np
import streamlit as st

import posenc
from posenc_lab import figures
from posenc_lab.classroom.session import plain
from posenc_lab.lessons.models import compute, measure
from posenc_lab.lessons.models import exercises as models_exercises
from posenc_lab.lessons.models.catalogue import MODELS
from posenc_lab.ui import figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Real models",
    "models",
    question="What do the position settings in a model's config.json actually do?",
    icon=":material/fact_check:",
    exercises=models_exercises.EXERCISES,
    skills=models_exercises.SKILLS,
    polls=models_exercises.POLLS,
    largest={"k": "24"},
)

#: the catalogue's names, for the pickers
NAMES = {key: entry["name"] for key, entry in MODELS.items()}
#: the model the views open on: Llama 3.1's llama3 scaling shows every band
DEFAULT_MODEL = "llama-3.1"
#: what the "Your config" box holds until a student pastes over it: a released config
EXAMPLE = json.dumps(MODELS[DEFAULT_MODEL]["config"], indent=2)
#: the state key of the pasted text (not in the URL: a config is too long for a link)
TEXT_KEY = "models_config_text"
#: what the page calls the example when it shows it in place of the student's config
EXAMPLE_NAME = f"the example config ({NAMES[DEFAULT_MODEL]})"


@LESSON.intro
def intro() -> dict:
    more = layout.lesson(
        "Real models: what the config says about positions",
        "Every model on the Hugging Face Hub ships a config.json, and a handful of its keys decide "
        "positions: max_position_embeddings, rope_theta, rope_scaling, sliding_window, partial_rotary_factor, "
        "and for older models n_positions, relative_attention_num_buckets or alibi. The earlier lessons "
        "compute everything exactly as transformers does; here the same code reads published configs "
        "and yours, and shows what each setting does to every rotary pair.",
    )
    layout.lesson_formula(
        r"\lambda_i = \frac{2\pi}{\theta_i},\quad \theta_i = \text{rope\_theta}^{-2i/d},\qquad "
        r"\allowbreak \text{pair } i \text{ turns fully within } L \iff \lambda_i \le L",
        more,
    )
    more.caption(
        r"$\lambda_i$ is pair $i$'s wavelength in tokens and $d$ the number of rotated dims. A pair whose wavelength "
        "exceeds the training length never saw all its angles in training: that is why NTK-by-parts, "
        "YaRN and Llama 3 stretch those pairs and leave the fast ones alone."
    )
    k = state.int_slider(
        "k",
        "Sequence length L = 2^k tokens: k",
        9,
        24,
        15,
        help="9: 512 tokens; 13: 8,192; 15: 32,768; 17: 131,072; 20: about 1M; 24: about 16.8M.",
        container=layout.key_control(),
    )
    st.caption(f"L = 2^{k} = {2**k:,} tokens")
    return {"length": 2**k}


@LESSON.view("catalogue", "Catalogue")
def catalogue(length: int) -> None:
    shares = compute.turning_shares(length)
    # short names under the bars: "Qwen2.5 7B Instruct, with YaRN" -> "Qwen2.5 7B Instruct"
    names = [NAMES[key].split(" (")[0].split(",")[0] for key in compute.ROPE_KEYS]
    fig = figcache.figure(
        figures.grouped_bars,
        names,
        {f"pairs turning fully within {length:,} tokens": shares},
        title=f"Share of each RoPE model's rotary pairs that turn fully within L = {length:,} tokens (scaled)",
        x_title="model",
        y_title="share of pairs",
        value_format=".0%",
        y_range=(0.0, 1.05),
        height=420,
    )
    code = f"""from posenc_lab.lessons.models.catalogue import MODELS

keys = {list(compute.ROPE_KEYS)!r}
# each model's rope_inv_freq from its config, then the share of pairs with 2π/θ <= L
data = np.array([models_lesson.turning_share(MODELS[k]["config"], {length}) for k in keys])
"""
    layout.chart(fig, key="models_catalogue", filename="models_turning_share", code=code)
    layout.table(compute.catalogue_rows(), rows_on_phone="models_catalogue_table")
    most = int(np.argmax(shares))
    least = int(np.argmin(shares))
    layout.notice(
        f"at L = {length:,}, {names[most]} has {shares[most]:.0%} of its pairs turning fully and {names[least]} "
        f"{shares[least]:.0%}. A larger rope_theta stretches every wavelength but pair 0's (2π tokens whatever "
        "the base), a partial rotary turns fewer pairs over a shorter range (GPT-NeoX, Phi-2), and a scaling "
        "stretches wavelengths further: linear every pair's alike, llama3, YaRN and LongRoPE the slow pairs most. "
        "Models without RoPE have no pairs: a learned table stops at its "
        "last row, T5 and DeBERTa bucket distances, and ALiBi subtracts a slope per head. Each source names "
        "the released file the numbers come from."
    )


@LESSON.view("model", "One model or two")
def one_model(length: int) -> None:
    state.sidebar().header("Models")
    first = state.select("model", "Model", list(MODELS), DEFAULT_MODEL, labels=NAMES, container=layout.key_control())
    second = state.select(
        "vs", "Side by side with", ["none", *MODELS], "none", labels={"none": "(none)", **NAMES}, help="A second model."
    )
    keys = [first] if second in ("none", first) else [first, second]
    outs = [compute.model_positions(key, length) for key in keys]
    # two models side by side (stacked on a phone); one model in the main column
    columns = layout.columns(len(keys)) if len(keys) > 1 else [contextlib.nullcontext()]
    for key, out, column in zip(keys, outs, columns, strict=True):
        with column:
            if len(keys) > 1:  # one model is named by the picker above its chart
                st.subheader(NAMES[key])
            draw_positions(out, f"models_{key}", length)
            st.caption(source_caption(key))
    layout.notice(_model_notice(outs, [NAMES[k] for k in keys], length))


def source_caption(key: str) -> str:
    """Where a catalogue entry's numbers come from, and its training length where one is published."""
    entry = MODELS[key]
    text = f"Source: {entry['source']}. Read in: {entry['read_in']}."
    if "trained" in entry:
        text += f" Trained with {entry['trained']}."
    return text


@LESSON.view("config", "Your config")
def your_config(length: int) -> None:
    st.caption(
        "The chart reads the config.json in the box under it, which starts with Llama 3.1 8B's position keys: "
        "paste or upload your own there."
    )
    # the chart first, the box under it: the chart is on the first screen, and it follows the box
    chart_area = st.container()
    st.markdown(
        "Paste a model's **config.json** here, or upload it. It is read as JSON only, never run, and only "
        "the position keys are used."
    )
    if TEXT_KEY not in st.session_state:
        st.session_state[TEXT_KEY] = EXAMPLE
    text = st.text_area("config.json", key=TEXT_KEY, height=220)
    # what is wrong with the text goes right under the box, where the student is typing (the
    # chart is a screen or more above it)
    message_area = st.container()
    # the browser refuses files over 1 MB; between 256 kB and 1 MB the page says why it reads none
    upload = st.file_uploader("Or upload a config.json", type=["json"], key="models_config_file", max_upload_size=1)
    result, instead = _read_box(text, upload, message_area, length)
    if result is not None:
        with st.expander("What was read", icon=":material/data_object:"):
            st.json(result["config"], expanded=1)
            for note in result["notes"]:
                st.text(note)
    with chart_area:
        if result is None:
            # the page still teaches: the example's numbers, said to be the example's
            st.caption(instead)
            result = compute.config_positions(EXAMPLE, length)
        out = result["out"]
        draw_positions(out, "models_config", length)
        layout.notice(_model_notice([out], ["this config" if instead is None else EXAMPLE_NAME], length))


def _read_box(text: str, upload, message_area, length: int) -> tuple[dict | None, str | None]:
    """The box's (or the upload's) config read and measured, or None and the chart's caption
    saying it shows the example instead; a message about the text goes in ``message_area``."""
    if upload is None and not (text or "").strip():
        # nothing to read is not an error: say what the chart shows instead
        message_area.info(f"The box is empty: showing {EXAMPLE_NAME}.")
        return None, f"Showing {EXAMPLE_NAME}: the box is empty; paste a config.json in it or upload one."
    problem = None
    if upload is not None:
        text, problem = upload_text(upload)
    result = compute.config_positions(text, length) if text is not None else {"error": problem}
    if result.get("error") is None:
        return result, None
    # the student's own text in the message is shown as typed: never as Markdown
    message_area.error(plain(result["error"]))
    return None, f"Showing {EXAMPLE_NAME} until yours can be read: the message under the box says why."


def upload_text(upload) -> tuple[str | None, str | None]:
    """An uploaded file's text, or None and why it cannot be read (too big, not UTF-8)."""
    if upload.size > measure.MAX_BYTES:
        return None, (
            f"config.json: the upload is {upload.size / 1024:,.0f} kB; at most {measure.MAX_BYTES // 1024} kB is "
            "read (a config.json is a few kB)"
        )
    try:
        return upload.getvalue().decode("utf-8"), None
    except UnicodeDecodeError:
        return None, "config.json: the upload is not UTF-8 text; a config.json is JSON text"


# one config's figures and numbers


def draw_positions(out: dict, key: str, length: int) -> None:
    """The chart for the config's method, with its code, then its numbers as a table."""
    if "assumed" in out:
        # a model type the table does not know: say which reading was assumed, before any number
        st.info(plain(out["assumed"]), icon=":material/help:")
    {"rope": _rope_chart, "alibi": _alibi_chart, "t5": _t5_chart, "deberta": _deberta_chart, "learned": _learned_chart}[
        out["method"]
    ](out, key, length)
    if "layer_grid" in out and out["layers"] <= MAX_LAYER_CELLS:
        _layers_chart(out, key)
    layout.table({"Setting": [r[0] for r in out["rows"]], "Value": [r[1] for r in out["rows"]]})
    for note in out["notes"]:
        st.text(note)


#: a layer chart shows every layer as a cell; past this many the table alone says it
MAX_LAYER_CELLS = 256


def _layers_chart(out: dict, key: str) -> None:
    grid = out["layer_grid"]
    fig = figcache.figure(
        figures.heatmap,
        grid,
        y=["sees all", "RoPE"],
        title=f"Its {grid.shape[1]} layers: 1 = sees the whole context / uses RoPE, 0 = a window / no positions",
        x_title="layer",
        y_title="",
        x_name="layer",
        y_name="",
        value_name="yes",
        colorbar_title="yes",
        signed=False,
        value_format=".0f",
        height=220,
    )
    code = f"""
config = {out["config"]!r}  # the position keys read
data = models_lesson.positions(config)["layer_grid"]  # rows: sees the whole context, uses RoPE
"""
    layout.chart(fig, key=f"{key}_layers", filename=f"{key}_layers", code=code)


def _finite(a: np.ndarray) -> np.ndarray:
    # p-RoPE's dropped pairs have an infinite wavelength: a chart draws no point for them
    a = np.asarray(a, dtype=np.float64).copy()
    a[~np.isfinite(a)] = np.nan
    return a


#: the chart's line at ``train_len``, named for what the config says it is
TRAIN_LINES = {
    "max": "max_position_embeddings",
    "original": "original_max_position_embeddings",
    "unscaled": "max_position_embeddings / factor",
}


def _rope_chart(out: dict, key: str, length: int) -> None:
    n = out["pairs"].size
    # the longer line, named for what it is: the window a scaling factor stretches the original
    # length to (YaRN and the others), or the longest position the model accepts (a llama3
    # factor is not a window); without scaling it is the training line's length again
    if out["train_kind"] == "max":
        reach = "the same, no scaling"
    elif out["extended_len"] == out["max_pos"]:
        reach = "max_position_embeddings"
    else:
        reach = "original × factor"
    series = {
        "wavelength, unscaled": _finite(out["wavelength"]),
        "wavelength, scaled": _finite(out["scaled_wavelength"]),
        TRAIN_LINES[out["train_kind"]]: np.full(n, float(out["train_len"])),
        reach: np.full(n, float(out["extended_len"])),
        "L": np.full(n, float(length)),
    }
    styles = {
        "wavelength, unscaled": {"mode": "lines+markers", "size": 5},
        "wavelength, scaled": {"mode": "lines+markers", "size": 5},
        TRAIN_LINES[out["train_kind"]]: {"dash": "dash"},
        reach: {"dash": "dot"},
        "L": {"dash": "dashdot"},
    }
    fig = figcache.figure(
        figures.line_chart,
        out["pairs"],
        series,
        title=f"Wavelength of each rotary pair in tokens ({n} pairs): below a window's line, the pair turns fully",
        x_title="pair i (fast to slow)",
        y_title="wavelength (tokens)",
        x_name="pair",
        value_name="tokens",
        value_format=",.0f",
        log_y=True,
        styles=styles,
        height=400,
    )
    scaling = out["rope_scaling"]
    plain_scaling = measure.plain_scaling(scaling)
    code = f"""
scaling = {scaling!r}  # the config's rope_scaling, as posenc reads it
inv0, _ = posenc.rope_inv_freq({out["head_dim"]}, {out["base"]!r}, {plain_scaling!r})  # as trained
inv, attention_factor = posenc.rope_inv_freq({out["head_dim"]}, {out["base"]!r}, scaling, seq_len={out["seq_len"]!r})
n = inv.size
with np.errstate(divide="ignore"):
    data = np.column_stack([2 * np.pi / inv0, 2 * np.pi / inv, np.full(n, {out["train_len"]}),
                            np.full(n, {out["extended_len"]}), np.full(n, {length})])
data[~np.isfinite(data)] = np.nan  # a pair that never turns has no point
"""
    layout.chart(fig, key=key, filename=f"{key}_wavelengths", code=code)


def _alibi_chart(out: dict, key: str, length: int) -> None:
    heads = out["heads"]
    fig = figcache.figure(
        figures.grouped_bars,
        [str(h + 1) for h in range(heads)],
        {"slope": out["slopes"]},
        title=f"ALiBi's slope per head ({heads} heads): the bias is -slope x distance",
        x_title="head",
        y_title="slope",
        value_format=".4g",
        log_y=True,
        height=360,
    )
    code = f"""
data = {_slopes_code(out)}
"""
    layout.chart(fig, key=key, filename=f"{key}_alibi_slopes", code=code)


def _slopes_code(out: dict) -> str:
    heads = out["heads"]
    if np.allclose(out["slopes"], posenc.alibi_slopes(heads), rtol=0, atol=0):
        return f"posenc.alibi_slopes({heads})"
    config = {"n_heads": heads, "alibi": True, "alibi_bias_max": out["bias_max"]}
    return f"models_lesson.positions({config!r})['slopes']  # MPT's slopes for alibi_bias_max != 8"


def _t5_chart(out: dict, key: str, length: int) -> None:
    reach = min(out["max_distance"] + out["max_distance"] // 2, 1500)
    offsets = np.arange(-reach, reach + 1)
    buckets = posenc.t5_bucket(
        offsets, bidirectional=True, num_buckets=out["buckets"], max_distance=out["max_distance"]
    )
    fig = figcache.figure(
        figures.line_chart,
        offsets,
        {"bucket": buckets.astype(np.float64)},
        title=f"T5's bucket for each offset ({out['buckets']} buckets, max_distance {out['max_distance']})",
        x_title="key position - query position",
        y_title="bucket",
        x_name="offset",
        value_name="bucket",
        value_format=".0f",
        height=360,
    )
    code = f"""
offsets = np.arange({-reach}, {reach + 1})
data = posenc.t5_bucket(offsets, bidirectional=True, num_buckets={out["buckets"]}, max_distance={out["max_distance"]})
"""
    layout.chart(fig, key=key, filename=f"{key}_t5_buckets", code=code)


def _deberta_chart(out: dict, key: str, length: int) -> None:
    if "offsets" not in out:
        span = out["span"]
        offsets = np.arange(0, min(2 * span, 2000) + 1)
        buckets = np.clip(offsets, -span, span)
        code = f"""
offsets = np.arange(0, {offsets[-1] + 1})
data = np.clip(offsets, -{span}, {span})  # no log buckets: offsets are clipped at max_relative_positions
"""
    else:
        # measure computes only the offsets drawn (0 to 2,000 at most), not every one up to max_position
        offsets, buckets = out["offsets"], out["buckets"]
        code = f"""
offsets = np.arange(0, {offsets[-1] + 1})
data = posenc.deberta_log_bucket(offsets, bucket_size={out["span"]}, max_position={out["max_relative"]})
"""
    fig = figcache.figure(
        figures.line_chart,
        offsets,
        {"bucket": np.asarray(buckets, dtype=np.float64)},
        title="DeBERTa's relative position for each offset: exact near, log-bucketed far",
        x_title="query position - key position",
        y_title="relative position used",
        x_name="offset",
        value_name="bucket",
        value_format=".0f",
        height=360,
    )
    layout.chart(fig, key=key, filename=f"{key}_deberta_buckets", code=code)


def _learned_chart(out: dict, key: str, length: int) -> None:
    rows = out["readable"]
    step = max(1, rows // 256)
    positions = np.arange(0, 2 * rows + 1, step)
    fig = figcache.figure(
        figures.line_chart,
        positions,
        {"has a learned vector": (positions < rows).astype(np.float64)},
        title=(
            f"Which positions have a learned vector: 0..{rows - 1:,}, in a {out['table_rows']:,} x {out['width']} table"
        ),
        x_title="position",
        y_title="has a vector (1 = yes)",
        x_name="position",
        value_name="has a vector",
        value_format=".0f",
        height=320,
    )
    code = f"""
positions = np.arange(0, {2 * rows + 1}, {step})
data = (positions < {rows}).astype(float)  # posenc.lookup_learned refuses a position past the table
"""
    layout.chart(fig, key=key, filename=f"{key}_learned_rows", code=code)


def _model_notice(outs: list[dict], names: list[str], length: int) -> str:
    parts = []
    for out, name in zip(outs, names, strict=True):
        if out["method"] == "rope":
            parts.append(_rope_notice(out, name, length))
        elif out["method"] == "alibi":
            parts.append(
                f"{name}: {out['heads']} heads, slopes from {out['slopes'][0]:.3g} down to {out['slopes'].min():.3g}; "
                "no position table, so no length limit in the config"
            )
        elif out["method"] == "t5":
            far, start = out["max_distance"], out["last_bucket_start"]
            parts.append(
                f"{name}: every offset from ±{start:,} on shares the last bucket of its direction (the log buckets "
                f"are sized to reach max_distance {far:,} there), so T5 cannot tell {2 * far:,} from "
                f"{20 * far:,} tokens apart"
            )
        elif out["method"] == "deberta":
            parts.append(f"{name}: offsets within ±{out['span'] // 2} stay exact, farther ones share log buckets")
        else:
            parts.append(
                f"{name}: {out['table_rows']:,} learned rows of {out['width']} numbers give positions 0 to "
                f"{out['readable'] - 1:,} a vector each; position {out['readable']:,} has none at all"
            )
    return ". ".join(parts) + "."


def _rope_notice(out: dict, name: str, length: int) -> str:
    """One RoPE config's sentence, true with or without a scaling: every count in it is measured."""
    n = out["pairs"].size
    in_train = int(np.sum(out["trained_wavelength"] <= out["train_len"]))
    window = {
        "max": f"its max_position_embeddings ({out['train_len']:,}, the longest position it accepts)",
        "original": f"its original_max_position_embeddings ({out['train_len']:,}, the length the scaling starts from)",
        "unscaled": f"{out['train_len']:,} tokens (max_position_embeddings / factor; no original length is stated)",
    }[out["train_kind"]]
    text = f"{name}: {in_train} of {n} pairs turn fully within {window}"
    if in_train < n:
        text += f", and the other {n - in_train} never complete a turn there"
    scaling = out["rope_scaling"] or {}
    kind = scaling.get("rope_type", "default")
    if kind == "longrope":
        text += (
            f" (counted with short_factor, which LongRoPE uses up to {out['train_len']:,} tokens; long_factor beyond)"
        )
    changed = int(np.sum(~np.isclose(out["ratio"], 1.0, rtol=1e-12, atol=0)))
    if kind in ("default", "proportional"):
        text += ". The config has no rope_scaling: every pair keeps one frequency at every length"
    else:
        text += f". At L = {length:,} its {kind} rope_scaling changes the frequency of {changed} of {n} pairs"
    text += (
        f". At L = {length:,}, {out['in_length']} of {n} turn fully, and the attention factor, which multiplies cos "
        f"and sin, is {out['attention_factor']:.3f}"
    )
    if "softmax_scale_factor" in out:
        text += (
            f"; DeepSeek's attention also multiplies its softmax scale (1/sqrt of the query-key head dim) by "
            f"{out['softmax_scale_factor']:.4f}"
        )
    return text
