"""The exercises at the end of the lesson "Real models" (``posenc_lab/lessons/models/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``. Every answer is computed from a
catalogue entry by ``measure`` (posenc underneath) when it is checked."""

from __future__ import annotations

import math

import numpy as np

from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.models import measure
from posenc_lab.lessons.models.catalogue import MODELS
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice, Numeric, Param, too_far

#: the catalogue keys of the models the polls ask about (the view's URL name ``model``)
LLAMA31, GPT_OSS = "llama-3.1", "gpt-oss"


def _llama31() -> dict:
    return measure.positions(MODELS[LLAMA31]["config"])


#: the skills the exercises practise (the lesson's ``skills``)
SKILLS = {"llama3_kept": "Count the pairs a scaling keeps", "window": "Follow a sliding window through layers"}
#: the kept-pairs question: Llama 3's rope_scaling (llama3, factor 8, low_freq_factor 1) on
#: other head widths, bases, cut-offs and training windows; Llama 3.1 8B's as first written
KEPT_HEAD_DIMS = (64, 128)
KEPT_THETAS = (10_000.0, 500_000.0, 1_000_000.0)
KEPT_HIGH = (2.0, 4.0, 8.0)
KEPT_WINDOWS = (4096, 8192, 16384)
LLAMA31_KEPT = dict(head_dim=128, theta=500_000.0, high=4.0, window=8192)
#: no pair's wavelength within this fraction of the cut-off window / high_freq_factor: a
#: student's rounding must not decide which side a pair falls on
KEPT_MARGIN = 0.02


def _kept_config(head_dim: int, theta: float, high: float, window: int) -> dict:
    """Llama 3.1 8B's config with these four numbers in place of its own."""
    config = MODELS[LLAMA31]["config"]
    scaling = {**config["rope_scaling"], "high_freq_factor": high, "original_max_position_embeddings": window}
    return {**config, "head_dim": head_dim, "rope_theta": theta, "rope_scaling": scaling}


def _wavelengths(head_dim: int, theta: float) -> list[float]:
    # lambda_i = 2 pi theta^{2i/d}, pair by pair
    return [2 * math.pi * theta ** (2 * i / head_dim) for i in range(head_dim // 2)]


def _unchanged_answer(head_dim: int, theta: float, high: float, window: int) -> float:
    # pairs whose frequency the llama3 scaling leaves exactly as trained
    ratio = measure.positions(_kept_config(head_dim, theta, high, window))["ratio"]
    return float(np.sum(np.isclose(ratio, 1.0, rtol=1e-12, atol=0)))


def _kept_turns(head_dim: int, theta: float, high: float, window: int) -> dict[str, int]:
    """The values the known wrong turns give (each nudge's own value)."""
    wavelengths = _wavelengths(head_dim, theta)
    return {
        "all": head_dim // 2,
        "none": 0,
        # the pairs under the window itself (window / low_freq_factor): the blended ones counted as kept
        "blended": sum(w < window for w in wavelengths),
        # theta^{2i/d}, the inverse frequency, taken for the wavelength
        "no_two_pi": sum(w / (2 * math.pi) < window / high for w in wavelengths),
    }


def _kept_fair(head_dim: int, theta: float, high: float, window: int) -> bool:
    wavelengths, cut = _wavelengths(head_dim, theta), window / high
    if any(abs(w / cut - 1) < KEPT_MARGIN for w in wavelengths):
        return False
    values = [sum(w < cut for w in wavelengths), *_kept_turns(head_dim, theta, high, window).values()]
    # each wrong turn gives its own count, none the answer: every nudge names the turn taken
    return len(set(values)) == len(values)


def _kept_model(head_dim: int, theta: float, high: float, window: int) -> str:
    if dict(head_dim=head_dim, theta=theta, high=high, window=window) == LLAMA31_KEPT:
        return "Llama 3.1 8B"
    return "A Llama 3 style model"


def _kept_question(head_dim: int, theta: float, high: float, window: int) -> str:
    return (
        f"{_kept_model(head_dim, theta, high, window)}: head_dim {head_dim} ({head_dim // 2} rotary pairs), "
        f"rope_theta {theta:,.0f}, rope_scaling llama3 with factor 8, low_freq_factor 1, high_freq_factor "
        f"{high:g}, original_max_position_embeddings {window:,}. How many of the {head_dim // 2} pairs keep "
        "their trained frequency?"
    )


def _kept_hint(head_dim: int, theta: float, high: float, window: int) -> str:
    return (
        f"A pair is kept when its wavelength 2π · {theta:,.0f}^(2i/{head_dim}) is under {window:,} / high_freq_factor."
    )


def _kept_explain(answer: float, head_dim: int, theta: float, high: float, window: int) -> str:
    cut = window / high
    return (
        f"{answer:.0f}: the pairs with a wavelength under {window:,} / {high:g} = {cut:,.0f} tokens turn at least "
        f"{high:g} times in the training window and are kept; the pairs longer than {window:,} are divided by 8, "
        "and those between are blended."
    )


def _unchanged_nudge(given: float, answer: float, head_dim: int, theta: float, high: float, window: int) -> str:
    turns, cut = _kept_turns(head_dim, theta, high, window), window / high
    if given == turns["all"]:
        return f"Not all: the slow pairs, whose wavelength exceeds {window:,} / low_freq_factor, are divided by 8."
    if given == turns["none"]:
        return f"Some are kept: every pair whose wavelength is under {window:,} / high_freq_factor = {cut:,.0f} tokens."
    if given == turns["blended"]:
        return (
            f"That counts every pair under {window:,} tokens. Only those under {window:,} / high_freq_factor = "
            f"{cut:,.0f} keep their frequency; those between are blended towards the divided one, so they change."
        )
    if given == turns["no_two_pi"]:
        return (
            f"That compares {theta:,.0f}^(2i/{head_dim}), the inverse of the frequency, with {cut:,.0f}. A "
            "wavelength is 2π times it."
        )
    if given > answer:
        return too_far(given, answer) + (
            f" Only the pairs with a wavelength under {window:,} / high_freq_factor = {cut:,.0f} tokens keep their "
            f"frequency; those between {cut:,.0f} and {window:,} are blended towards the divided one, so they change "
            "too."
        )
    return too_far(given, answer) + (
        f" Count every pair i whose wavelength 2π · {theta:,.0f}^(2i/{head_dim}) is under {cut:,.0f} tokens: the "
        "fast pairs, from i = 0 up."
    )


#: the window question: a model whose every layer slides a window (Mistral 7B v0.1's as first
#: written); its longest input is 8 windows, as Mistral's 32,768 is
WINDOWS = (512, 1024, 2048, 4096, 8192)
WINDOW_LAYERS = (12, 16, 24, 32, 40, 48)
MISTRAL = MODELS["mistral"]["config"]
#: max_position_embeddings in windows (Mistral 7B v0.1: 32,768 = 8 x 4,096)
WINDOW_INPUT = MISTRAL["max_position_embeddings"] // MISTRAL["sliding_window"]


def _window_model(window: int, layers: int) -> str:
    if (window, layers) == (MISTRAL["sliding_window"], MISTRAL["num_hidden_layers"]):
        return MODELS["mistral"]["name"]
    return "A model"


def _window_question(window: int, layers: int) -> str:
    return (
        f"{_window_model(window, layers)} lets each of its {layers} layers attend to the last {window:,} tokens "
        f"only (sliding_window {window}; max_position_embeddings {WINDOW_INPUT * window:,}). How far back can "
        "information reach the last layer's output?"
    )


def _window_choices(window: int, layers: int) -> tuple[Choice, ...]:
    reach = measure.window_reach(window, layers)
    return (
        Choice(
            f"{reach:,} tokens",
            f"({window:,} - 1) x {layers} + 1: the window counts the token itself, so each layer passes on what it "
            f"saw {window - 1:,} tokens back, and the reach adds up layer by layer (the choices lesson's window "
            "view follows the masks to the same number).",
            right=True,
        ),
        Choice(
            f"{window:,} tokens",
            "That is one layer's reach; the next layer reads tokens that already saw further.",
        ),
        Choice(
            f"{WINDOW_INPUT * window:,} tokens",
            "That is max_position_embeddings, the longest input, not the window's reach.",
        ),
        Choice(
            f"{window * layers:,} tokens",
            f"That counts all {window:,} tokens of the window again in every layer. The token itself is in each "
            f"layer's window, so a layer adds only {window - 1:,}.",
        ),
    )


def _window_answer() -> float:
    out = measure.positions(MODELS["mistral"]["config"])
    return float(measure.window_reach(out["window"], out["sliding_layers"]))


EXERCISES = (
    Numeric(
        key="models_llama31_unchanged",
        title="What the llama3 scaling leaves alone",
        question=_kept_question,
        answer=_unchanged_answer,
        tolerance=0.0,
        integer=True,
        fmt="%d",
        step=1,
        hint=_kept_hint,
        explain=_kept_explain,
        nudge=_unchanged_nudge,
        params=(
            Param("head_dim", KEPT_HEAD_DIMS, LLAMA31_KEPT["head_dim"]),
            Param("theta", KEPT_THETAS, LLAMA31_KEPT["theta"]),
            Param("high", KEPT_HIGH, LLAMA31_KEPT["high"]),
            Param("window", KEPT_WINDOWS, LLAMA31_KEPT["window"]),
        ),
        fair=_kept_fair,
        skill="llama3_kept",
    ),
    MultipleChoice(
        key="models_mistral_window",
        title="How far a sliding window reaches",
        question=_window_question,
        choices=_window_choices,
        hint=lambda window, layers: (
            f"Token t sees t - {window - 1:,} in one layer; what did t - {window - 1:,} see in the layer below?"
        ),
        params=(
            Param("window", WINDOWS, MISTRAL["sliding_window"]),
            Param("layers", WINDOW_LAYERS, MISTRAL["num_hidden_layers"]),
        ),
        fair=lambda window, layers: layers != WINDOW_INPUT,
        skill="window",
    ),
    MultipleChoice(
        key="models_yarn_which_pairs",
        title="Which pairs YaRN stretches",
        question=(
            "Qwen2.5's model card adds rope_scaling YaRN with factor 4 and original_max_position_embeddings "
            "32,768. Which rotary pairs does it change most?"
        ),
        choices=(
            Choice(
                "The slow pairs",
                "Those whose wavelength exceeds the training window: they never completed a turn in training, so "
                "YaRN interpolates them (divides by 4).",
                right=True,
            ),
            Choice(
                "The fast pairs",
                "They turn many times within 32,768 tokens and already saw every angle: YaRN keeps them.",
            ),
            Choice("Every pair by the same factor", "That is linear position interpolation, not YaRN."),
        ),
        hint="Which pairs never saw all their angles during training?",
    ),
)


# class-mode polls

TURN_OPTIONS = ("Fewer than a quarter", "About half", "Nearly all (over 90%)")


def _turn_answer() -> float:
    out = _llama31()
    share = float(np.mean(out["wavelength"] <= out["train_len"]))
    return 0.0 if share < 0.25 else 2.0 if share > 0.9 else 1.0


def _turn_reveal(answer: float) -> str:
    out = _llama31()
    n, inside = out["pairs"].size, int(np.sum(out["wavelength"] <= out["train_len"]))
    return (
        f"**{TURN_OPTIONS[int(answer)]}.** {inside} of Llama 3.1's {n} pairs have a wavelength of at most 8,192 "
        f"tokens and turn fully in training; the slowest has a wavelength of {out['wavelength'].max():,.0f} tokens. "
        "Those slow pairs never saw all their angles, so the llama3 scaling divides their frequency by 8 and "
        f"keeps the {int(_unchanged_answer(**LLAMA31_KEPT))} fastest as they were."
    )


def _turn_figure():
    out = _llama31()
    return figures.line_chart(
        out["pairs"],
        {
            "wavelength": out["wavelength"],
            "training window (8,192)": np.full(out["pairs"].size, float(out["train_len"])),
        },
        title="Llama 3.1 8B: each rotary pair's wavelength against its training window",
        x_title="pair i (fast to slow)",
        y_title="wavelength (tokens)",
        x_name="pair",
        value_name="tokens",
        value_format=",.0f",
        log_y=True,
    )


LAYER_OPTIONS = ("None: every layer slides", "Half of them", "All of them: the window is a cache trick")


def _gpt_oss() -> dict:
    return measure.positions(MODELS[GPT_OSS]["config"])


def _layer_answer() -> float:
    kinds = _gpt_oss()["layer_kinds"]
    full = kinds.count("full")
    return 0.0 if full == 0 else 2.0 if full == len(kinds) else 1.0


def _layer_reveal(answer: float) -> str:
    out = _gpt_oss()
    kinds = out["layer_kinds"]
    return (
        f"**{LAYER_OPTIONS[int(answer)]}.** gpt-oss-20b's layer_types alternate: {kinds.count('sliding')} of its "
        f"{len(kinds)} layers attend to the last {out['window']} tokens only, and {kinds.count('full')} see the "
        f"whole context, up to {out['extended_len']:,} tokens with YaRN (factor 32 on a 4,096-token training "
        "window). The sliding layers keep a short cache; the full ones carry the long-range reading."
    )


def _layer_figure():
    kinds = _gpt_oss()["layer_kinds"]
    return figures.grouped_bars(
        ["sliding window (128 tokens)", "full attention"],
        {"layers": [kinds.count("sliding"), kinds.count("full")]},
        title="gpt-oss-20b: its 24 layers by what they attend to (config.json's layer_types)",
        x_title="layer kind",
        y_title="layers",
        value_format=".0f",
        show_values=True,
    )


POLLS = (
    Poll(
        key="poll-models-llama31-turns",
        prompt=(
            "Llama 3.1 8B trains on 8,192 tokens with rope_theta 500,000 and 64 rotary pairs. How many of its "
            "pairs complete a full turn within those 8,192 tokens?"
        ),
        options=TURN_OPTIONS,
        answer=_turn_answer,
        reveal=_turn_reveal,
        figure=_turn_figure,
        view=f"models?view=model&model={LLAMA31}",
    ),
    Poll(
        key="poll-models-gpt-oss-layers",
        prompt=(
            "gpt-oss-20b has a sliding window of 128 tokens and 24 layers. How many of its layers see the whole "
            "context rather than the last 128 tokens?"
        ),
        options=LAYER_OPTIONS,
        answer=_layer_answer,
        reveal=_layer_reveal,
        figure=_layer_figure,
        view=f"models?view=model&model={GPT_OSS}",
    ),
)
