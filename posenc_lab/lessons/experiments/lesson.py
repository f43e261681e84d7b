"""Lesson: measure the claims. Train a tiny attention model short, test it long."""

import numpy as np
import streamlit as st

from posenc import experiment as ex
from posenc import extension as xt
from posenc_lab import figures
from posenc_lab.lessons.experiments import claims, compute
from posenc_lab.lessons.experiments import exercises as experiments_exercises
from posenc_lab.ui import figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Experiments",
    "experiments",
    question="Train short, test long: which claims about extrapolation survive a measurement?",
    icon=":material/science:",
    exercises=experiments_exercises.EXERCISES,
    polls=experiments_exercises.POLLS,
    largest={"train_len": "128", "width": "32", "steps": "300", "seed": "9", "test_to": "10"},
    # "k" is the sinusoid's and the design lab's offset, "reach" RoPE's largest distance,
    # "show" ALiBi's heads to draw
    renamed={"k": "copy_k", "reach": "test_to", "show": "scores"},
)


@LESSON.intro
def intro() -> dict:
    """The lead, the task and training settings, and the run every view reads."""
    more = layout.lesson(
        "Experiments: train short, test long",
        "Three claims are common: sinusoidal encodings extrapolate perfectly, learned ones stop at "
        "max_len, and ALiBi works far beyond its training length. Here a one-layer "
        "attention model, written in NumPy with hand-derived gradients, is trained on short "
        "sequences with each kind of position, then tested on sequences 2, 4 and 8 (or up to 10) times longer. "
        "Every number below comes from that run.",
    )

    state.sidebar().header("Task")
    task = state.choice(
        "task",
        "Task",
        list(ex.EXPERIMENT_TASKS),
        "copy",
        labels={"copy": "copy k back", "marker": "latest marker"},
        help="copy: repeat the token k places back (an exact offset). "
        "marker: name the most recent of a few marker tokens (content plus recency).",
        container=layout.key_control(),
    )
    offset = state.int_slider("copy_k", "k (copy from k places back)", 1, 7, 3) if task == "copy" else 3
    state.sidebar().header("Training")
    train_len = state.int_slider(
        "train_len",
        "Training length",
        8,
        128,
        32,
        step=4,
        help="Above 32 tokens a batch holds fewer sequences (about 512 tokens) and training runs in float32.",
    )
    reach = int(
        state.choice(
            "test_to",
            "Test out to",
            [str(r) for r in compute.REACH],
            "8",
            labels={str(r): f"{r}x ({', '.join(f'{m}x' for m in compute.REACH[r])})" for r in compute.REACH},
            help="The test lengths, as multiples of the training length.",
        )
    )
    d_model = state.int_slider("width", "Model width", 16, 32, 32, step=8, help="4 heads of width / 4.")
    steps = state.int_slider("steps", "Training steps", 50, 300, 300, step=50)
    seed = state.int_slider("seed", "Seed", 0, 9, 0)
    settings = (task, train_len, d_model, steps, seed, offset)

    live_key = f"_live:{settings}"
    stored = compute.stored_or_none(*settings, reach)
    if stored is not None and state.sidebar().button(
        "Re-run these settings live", help="Train all six models again now."
    ):
        st.session_state[live_key] = True
    live = stored is None or st.session_state.get(live_key, False)
    summary = compute.summary_for(*settings, live=live, reach=reach)

    if task == "copy":
        layout.lesson_formula(r"y_t = x_{t-k}\qquad\text{(copy the token } k \text{ places back)}", more)
    else:
        layout.lesson_formula(r"y_t = \text{the most recent marker among } x_0, \dots, x_t", more)
    return {
        "task": task,
        "train_len": train_len,
        "steps": steps,
        "settings": settings,
        "live": live,
        "summary": summary,
        "reach": reach,
    }


def config_code(cfg: ex.ExperimentConfig) -> str:
    """``ExperimentConfig(...)`` with the page's settings and every other field that is not its default."""
    shown = ["task", "train_len", "d_model", "steps", "seed", "offset"]
    default = ex.ExperimentConfig()
    shown += [f for f in ("batch", "eval_batch", "multipliers") if getattr(cfg, f) != getattr(default, f)]
    return f"posenc.experiment.ExperimentConfig({', '.join(f'{f}={getattr(cfg, f)!r}' for f in shown)})"


def run_header(summary: dict, live: bool, settings: tuple, reach: int = 8) -> tuple[list[int], list[str], object, str]:
    """The caption above every view, and what its snippets start from: (test lengths, methods,
    the run's config, the code that makes the run)."""
    lengths = summary["lengths"]
    methods = list(summary["accuracy"])
    how = "run live" if live else "precomputed from these settings by tools/precompute_experiment.py"
    st.caption(f"Six models trained and tested in {summary['seconds']:.1f} s ({how}). Chance: {summary['chance']:.0%}.")
    cfg = compute.make_config(*settings, reach)
    if cfg.batch != ex.ExperimentConfig().batch:
        st.caption(
            f"Long run: {cfg.batch} sequences per batch and per test length (about {compute.TOKENS_PER_BATCH} "
            "tokens a step, half the defaults' 32 x 32), trained in float32 to keep within the time budget."
        )
    # the start of every snippet: the same run (the stored defaults are exactly what it gives)
    run_code = f"""
cfg = {config_code(cfg)}
run = posenc.experiment.run_experiment(cfg)  # trains six models, tests at lengths {lengths}
methods = {methods!r}
"""
    return lengths, methods, cfg, run_code


@LESSON.view("extrapolation", "Train short, test long")
def extrapolation(
    task: str, train_len: int, steps: int, settings: tuple, live: bool, summary: dict, reach: int = 8
) -> None:
    lengths, methods, cfg, run_code = run_header(summary, live, settings, reach)
    series = {claims.NAMES[m]: np.array([np.nan if a is None else a for a in summary["accuracy"][m]]) for m in methods}
    series["chance"] = np.full(len(lengths), summary["chance"])
    styles = {name: {"mode": "lines+markers", "size": 9} for name in series}
    styles["chance"] = {"mode": "lines", "dash": "dot", "color": "#777"}
    fig = figcache.figure(
        figures.line_chart,
        np.asarray(lengths),
        series,
        title=f"Accuracy when tested longer than trained (trained at {train_len} tokens)",
        x_title="test length (tokens, log scale)",
        y_title="accuracy",
        x_name="test length",
        value_name="accuracy",
        value_format=".1%",
        log_x=True,
        styles=styles,
        vlines={"training length": train_len},
        height=480,
        after=[("update_xaxes", dict(tickvals=lengths)), ("update_yaxes", dict(range=[0, 1.05], tickformat=".0%"))],
    )
    code = (
        run_code
        + """# accuracy per test length (rows) and method (columns); None (no embedding) -> nan
accuracy = np.array([[np.nan if a is None else a for a in run["accuracy"][m]] for m in methods]).T
chance = np.full(len(run["lengths"]), run["chance"])
data = np.column_stack([accuracy, chance])  # over run["lengths"]
"""
    )
    layout.chart(fig, key="exp_accuracy", filename="experiment_accuracy", code=code)
    first = {m: summary["accuracy"][m][0] for m in methods}
    last = {m: summary["accuracy"][m][-1] for m in methods if summary["accuracy"][m][-1] is not None}
    failed = [claims.NAMES[m] for m in methods if first[m] < claims.LEARNT]
    learnt = {m: a for m, a in last.items() if first[m] >= claims.LEARNT} or last
    best = max(learnt, key=learnt.get)
    layout.notice(
        (f"{' and '.join(failed)} never learn the task, even at the training length. " if failed else "")
        + f"Beyond the training length learned positions stop (no row); of the rest, {claims.NAMES[best]} keeps "
        f"the most at {lengths[-1]} tokens ({last[best]:.0%}, from {first[best]:.0%})."
    )
    table = [
        {
            "method": claims.NAMES[m],
            **{f"{n} tokens": claims.fmt_accuracy(a) for n, a in zip(lengths, summary["accuracy"][m], strict=True)},
        }
        for m in methods
    ]
    layout.table(table)
    losses = summary["losses"]
    fig = figcache.figure(
        figures.line_chart,
        np.arange(1, steps + 1),
        {claims.NAMES[m]: losses[m] for m in methods},
        title="Training loss (cross-entropy per answer)",
        x_title="step",
        y_title="loss (nats)",
        x_name="step",
        value_name="loss",
        log_y=True,
        height=380,
    )
    code = run_code + 'data = np.column_stack([run["losses"][m] for m in methods])  # (steps, methods)\n'
    layout.chart(fig, key="exp_losses", filename="experiment_losses", code=code)
    layout.notice("the loss falls for every model that can represent the task; a flat line means it cannot.")


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def translation_text(errors: dict[str, float | None], methods: list[str], shift: int) -> str:
    """What the bars show, in their own numbers: exact zeros, rounding, real changes, no rows."""
    moved = {m: errors[m] for m in methods if errors[m] is not None}
    exact = [claims.NAMES[m] for m, e in moved.items() if e == 0.0]
    # below 1e-9 is floating-point rounding on scores of size ~10 (the claims table's threshold too)
    rounding = [f"{e:.1e} for {claims.NAMES[m]}" for m, e in moved.items() if 0.0 < e < 1e-9]
    real = [f"{e:.3g} for {claims.NAMES[m]}" for m, e in moved.items() if e >= 1e-9]
    missing = [claims.NAMES[m] for m in methods if errors[m] is None]
    parts = [f"when the phrase moves {shift} places, the largest change of the scores is"]
    if exact:
        parts.append(f"exactly 0 for {_and(exact)}" + (";" if rounding else ":"))
    if rounding:
        parts.append(f"{_and(rounding)}, which is rounding:")
    if exact or rounding:
        parts.append("these scores depend on distances, not on where the phrase stands.")
    if real:
        parts.append(
            ("It is " if exact or rounding else "") + f"{_and(real)}: these scores see where the phrase stands."
        )
    if missing:
        parts.append(f"The {_and(missing)} table has no rows for a phrase moved past its end.")
    return " ".join(parts)


@LESSON.view("translation", "Translation invariance")
def translation(
    task: str, train_len: int, steps: int, settings: tuple, live: bool, summary: dict, reach: int = 8
) -> None:
    lengths, methods, cfg, run_code = run_header(summary, live, settings, reach)
    state.sidebar().header("Translation")
    shift = state.int_slider("shift", "Move the phrase by", 1, 200, 10, container=layout.key_control())
    errors, tokens, pairs = compute.translation(*settings, live, shift, reach)
    floor = 1e-17
    values = [np.nan if errors[m] is None else max(errors[m], floor) for m in methods]
    no_row = dict(y=0, yref="paper", text="no row past max_len", showarrow=False, yanchor="bottom")
    fig = figcache.figure(
        figures.grouped_bars,
        [claims.NAMES[m] for m in methods],
        {"max |scores(moved) - scores(at 0)|": values},
        title=f"How much the trained models' attention scores change when a phrase moves {shift} places",
        x_title="method",
        y_title="max difference (log scale)",
        log_y=True,
        height=440,
        after=[("add_annotation", dict(x=claims.NAMES[m], **no_row)) for m in methods if errors[m] is None],
    )
    phrase_code = run_code + "tokens = np.random.default_rng(cfg.seed).integers(0, cfg.vocab, 12)  # the phrase\n"
    code = (
        phrase_code
        + f"""errors = []
for m in methods:
    try:  # attention logits (heads, 12, 12) of the trained model, phrase at 0 and moved {shift} on
        at_0 = posenc.experiment.attention_scores(run["results"][m], cfg, m, tokens, 0)
        moved = posenc.experiment.attention_scores(run["results"][m], cfg, m, tokens, {shift})
    except posenc.PositionOutOfRange:  # learned: no row past max_len
        errors.append(np.nan)
        continue
    errors.append(max(np.abs(moved - at_0).max(), {floor!r}))  # exact zeros drawn at {floor:g}
data = np.array(errors)
"""
    )
    layout.chart(fig, key="exp_translation", filename="experiment_translation", code=code)
    st.caption(f"Differences below {floor:g} (exact zeros) are drawn at {floor:g} so they show on a log axis.")
    layout.notice(translation_text(errors, methods, shift))
    method = state.choice(
        "scores",
        "Scores of",
        list(pairs),
        "sinusoidal" if "sinusoidal" in pairs else list(pairs)[0],
        labels=claims.NAMES,
        horizontal=False,
    )
    at_start, moved = pairs[method]
    labels = [f"{i}:{t}" for i, t in enumerate(tokens)]
    fig = figcache.figure(
        figures.heatmap_panels,
        [at_start, moved, moved - at_start],
        ["at positions 0..11", f"at positions {shift}..{shift + 11}", "difference"],
        title=f"{claims.NAMES[method]}: attention logits of head 1 for the same phrase",
        x_title="key (index:token)",
        y_title="query (index:token)",
        labels=[labels, labels, labels],
        value_name="logit",
        height=420,
    )
    code = (
        phrase_code
        + f"""model = run["results"][{method!r}]  # a TrainResult
at_0 = posenc.experiment.attention_scores(model, cfg, {method!r}, tokens, 0)[0]  # head 1 (index 0)
moved = posenc.experiment.attention_scores(model, cfg, {method!r}, tokens, {shift})[0]
difference = moved - at_0
data = at_0  # the first panel (in the downloads too); moved and difference are the other two
"""
    )
    layout.chart(fig, key="exp_scores", filename="experiment_scores", code=code)
    layout.notice("the future (upper right) is masked in the model; the raw logits are shown here.")


@LESSON.view("claims", "Claims vs measurement")
def claims_measured(
    task: str, train_len: int, steps: int, settings: tuple, live: bool, summary: dict, reach: int = 8
) -> None:
    lengths, methods, cfg, run_code = run_header(summary, live, settings, reach)
    shift = 10
    errors, _, _ = compute.translation(*settings, live, shift, reach)
    layout.table(claims.claims_table(summary, errors, shift))
    first, last = lengths[0], lengths[-1]
    fig = figcache.figure(
        figures.grouped_bars,
        [claims.NAMES[m] for m in methods],
        {
            f"at the training length ({first})": [
                np.nan if a[0] is None else a[0] for a in summary["accuracy"].values()
            ],
            f"at {cfg.multipliers[-1]}x ({last})": [
                np.nan if a[-1] is None else a[-1] for a in summary["accuracy"].values()
            ],
        },
        title=f"The evidence: accuracy at the training length and at {cfg.multipliers[-1]} times it",
        x_title="method",
        y_title="accuracy",
        value_format=".0%",
        height=380,
        after=[("update_yaxes", dict(range=[0, 1.05], tickformat=".0%"))],
    )
    code = (
        run_code
        + """# accuracy at the training length and at the longest test, per method; None (no embedding) -> nan
ends = [(run["accuracy"][m][0], run["accuracy"][m][-1]) for m in methods]
data = np.array([[np.nan if a is None else a for a in pair] for pair in ends])  # (methods, 2)
"""
    )
    layout.chart(fig, key="exp_claims", filename="experiment_claims", code=code)
    layout.notice(
        "a verdict is about this run: this task, these settings. Switch the task to see a claim "
        "fare differently (in this one-layer model ALiBi cannot copy from an exact offset, but tracks the "
        "latest marker at every length)."
    )


def extension_code(cfg: ex.ExperimentConfig, finetune_steps: int, live: bool) -> str:
    """The snippet lines that make the lab's run: on the stored RoPE model for the stored
    defaults (as the other stored snippets load it), else training it first."""
    start = f"cfg = {config_code(cfg)}\n"
    if live:
        return (
            start + f"lab = posenc.extension.run_extension(cfg, finetune_steps={finetune_steps})  # trains RoPE first\n"
        )
    return (
        "from pathlib import Path\n\n"
        + start
        + f"""# the RoPE model of the experiments page's stored default run (tools/precompute_experiment.py)
stored = np.load(Path(posenc_lab.__file__).parent / "lessons" / "experiments" / "data" / "experiment_{cfg.task}.npz")
params = {{k.removeprefix("param_rope_"): stored[k] for k in stored.files if k.startswith("param_rope_")}}
trained = posenc.experiment.TrainResult(params, stored["losses_rope"])  # = posenc.experiment.train(cfg, "rope")
lab = posenc.extension.run_extension(cfg, finetune_steps={finetune_steps}, trained=trained)
"""
    )


def extension_text(rows: list[dict], lab: dict) -> str:
    """The lab's verdicts against the papers, in its own numbers."""
    agree = [r["claim"].rstrip(".") for r in rows if r["verdict"] == "agrees"]
    disagree = [r["claim"].rstrip(".") for r in rows if r["verdict"] == "disagrees"]
    acc, last = lab["accuracy"], lab["lengths"][-1]
    ranked = sorted(("unchanged", "pi", "ntk", "yarn"), key=lambda w: -acc[w][-1])
    best = ", ".join(f"{xt.WAY_NAMES[w]} {acc[w][-1]:.0%}" for w in ranked)
    text = f"without fine-tuning, at {last} tokens: {best}. "
    text += f"This model agrees with the papers on {len(agree)} of {len(rows)} claims"
    if disagree:
        text += f" and disagrees on {len(disagree)}: " + "; ".join(d[0].lower() + d[1:] for d in disagree)
    return text + ". A disagreement is a finding about this small model and task, not a refutation."


@LESSON.view("extension", "Context extension")
def extension(
    task: str, train_len: int, steps: int, settings: tuple, live: bool, summary: dict, reach: int = 8
) -> None:
    run_header(summary, live, settings, reach)
    cfg = compute.make_config(*settings)  # the lab tests at 1x to 8x, whatever the reach above
    lengths = [cfg.train_len * m for m in cfg.multipliers]
    state.sidebar().header("Context extension")
    finetune_steps = state.int_slider(
        "ft",
        "Fine-tune steps at 2L",
        25,
        300,
        compute.EXTENSION_STEPS,
        step=25,
        help="Continue training the RoPE model at twice its length, once with PI and once with YaRN at factor 2.",
        container=layout.key_control(),
    )
    lab = None if live else compute.stored_extension_or_none(*settings, finetune_steps)
    how = "run live" if lab is None else "precomputed by tools/precompute_experiment.py"
    if lab is None:
        lab = compute.extension(*settings, finetune_steps, live, reach)
    series = {xt.WAY_NAMES[w]: np.asarray(lab["accuracy"][w]) for w in xt.EXTENSION_WAYS}
    series["chance"] = np.full(len(lengths), lab["chance"])
    styles = {name: {"mode": "lines+markers", "size": 9} for name in series}
    for w in ("pi_finetuned", "yarn_finetuned"):
        styles[xt.WAY_NAMES[w]]["dash"] = "dash"
    styles["chance"] = {"mode": "lines", "dash": "dot", "color": "#777"}
    fig = figcache.figure(
        figures.line_chart,
        np.asarray(lengths),
        series,
        title=f"RoPE trained at L = {train_len} tokens, tested longer: scaled without training, or fine-tuned at "
        f"2L = {2 * train_len}",
        x_title="test length (tokens, log scale)",
        y_title="accuracy",
        x_name="test length",
        value_name="accuracy",
        value_format=".1%",
        log_x=True,
        styles=styles,
        vlines={"L": train_len, "2L": 2 * train_len},  # short: the two labels sit close on a phone,
        height=480,
        after=[("update_xaxes", dict(tickvals=lengths)), ("update_yaxes", dict(range=[0, 1.05], tickformat=".0%"))],
    )
    code = (
        extension_code(cfg, finetune_steps, live)
        + """ways = posenc.extension.EXTENSION_WAYS  # unchanged, PI, NTK-aware, YaRN, then the two fine-tuned
# accuracy per test length (rows) and way (columns), then chance
data = np.column_stack([np.array([lab["accuracy"][w] for w in ways]).T, np.full(len(lab["lengths"]), lab["chance"])])
"""
    )
    layout.chart(fig, key="exp_extension", filename="experiment_extension", code=code)
    st.caption(
        f"The RoPE model above (trained at L = {train_len}), tested longer without training, then fine-tuned "
        f"{finetune_steps} steps at {2 * train_len}: {lab['seconds']:.1f} s ({how})."
    )
    st.latex(
        r"\begin{aligned}\text{PI:}\quad & \theta_i' = \theta_i / s, \qquad s = \text{test length} / L \\"
        r"\text{NTK-aware:}\quad & \text{base}' = \text{base} \cdot s^{D_h/(D_h-2)} \\"
        r"\text{YaRN:}\quad & \theta_i' = \gamma_i\,\theta_i + (1-\gamma_i)\,\theta_i / s \\"
        r"& q^\top k \;\times\; (0.1 \ln s + 1)^2\end{aligned}"
    )
    table = [
        {
            "way": xt.WAY_NAMES[w],
            **{
                f"{n} tokens": f"{a:.0%} ({loss:.2f})"
                for n, a, loss in zip(lengths, lab["accuracy"][w], lab["loss"][w], strict=True)
            },
        }
        for w in xt.EXTENSION_WAYS
    ]
    layout.table(table)
    st.caption(
        "Accuracy (mean cross-entropy per answer, in nats). Without fine-tuning each scaling uses the factor "
        "s = test length / L; the fine-tuned models keep factor 2 at every length, as they were trained. "
        "NTK-aware is the static formula at s (transformers' 'dynamic' type gives the same at factor 1). "
        "YaRN's weight gamma_i, as in the YaRN paper (sec. 3.2) and the RoPE lesson, is 1 for pairs that turn "
        "more than 32 times within L (frequency kept), 0 for those that turn less than once (frequency divided by "
        "s), a ramp between (transformers' defaults beta_fast = 32, beta_slow = 1; its linear_ramp_factor is "
        "1 - gamma_i)."
    )
    rows = xt.paper_comparison(lab)
    layout.table(rows)
    layout.notice(extension_text(rows, lab))
