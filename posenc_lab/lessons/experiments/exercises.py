"""The exercises at the end of the lesson "Experiments" (``posenc_lab/lessons/experiments/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import numpy as np

from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.experiments import claims
from posenc_lab.lessons.experiments import compute as compute_experiment
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice

EXERCISES = (
    MultipleChoice(
        key="exp_copy_offset",
        title="Copy from k back",
        question=(
            "In the *copy k back* task (answer with the token exactly k places back), one position method fails "
            "even at the training length. Which one, and why?"
        ),
        choices=(
            Choice(
                "ALiBi: its only position signal is a distance penalty.",
                "A penalty that grows with distance: −m·|i − j| always prefers nearer keys, and ALiBi puts no "
                "position into q or k. A head can make its attention fall off with distance, but never peak "
                "exactly k back, so this one-layer model has no way to single out the token to copy. (No "
                "positions at all fails too: it cannot tell where any key is.)",
                right=True,
            ),
            Choice(
                "RoPE: its rotations blur exact offsets, so no head can pick one out.",
                "RoPE's score depends on exactly m − n, so a head can learn a q and k whose score peaks at offset k.",
            ),
            Choice(
                "T5: its buckets are too coarse to single out one exact offset.",
                "Small distances get buckets of their own (the first 16 in the decoder's one-sided scheme), so "
                "T5 can learn its largest bias for offset −k exactly.",
            ),
            Choice(
                "Learned positions: the table has no rows past max_len.",
                "That limits longer inputs, not the training length, where every position has a row that can "
                "learn to match the row k earlier.",
            ),
        ),
        hint="For each method ask: can some head put most of its attention on the key exactly k back, and "
        "not on k − 1?",
    ),
)


# class-mode polls ("predict before you see it"): read from the stored runs of the lesson's defaults

#: the lesson's default settings after the task (training length, width, steps, seed, offset k)
DEFAULTS = (32, 32, 300, 0, 3)
#: tested out to 8 times the training length (the URL name ``test_to``)
REACH = 8
#: the methods the marker poll offers, in order
MARKER_OFFERED = ("sinusoidal", "rope", "alibi", "t5")


def _run(task: str) -> dict:
    """The stored default run of ``task`` (trained live and cached only if its file is missing)."""
    return compute_experiment.summary_for(task, *DEFAULTS, reach=REACH)


def _name(method: str) -> str:
    """The method's name as an option or a bar label, capitalised."""
    name = claims.NAMES[method]
    return name[0].upper() + name[1:]


def _accuracy(run: dict, method: str) -> np.ndarray:
    return np.array([np.nan if a is None else a for a in run["accuracy"][method]], dtype=float)


def _sinusoid_answer() -> float:
    return float(100 * _accuracy(_run("copy"), "sinusoidal")[-1])


def _sinusoid_reveal(answer: float) -> str:
    run = _run("copy")
    lengths, acc = run["lengths"], 100 * _accuracy(run, "sinusoidal")
    rope = 100 * _accuracy(run, "rope")
    why = (
        "The formula gives a code for every position, but the model learned what to do only with the positions "
        "it saw; further on, it meets combinations of sines it never met in training."
        if acc[-1] < acc[0] - 100 * claims.KEEPS
        else "Here the learned use of the sines carried over to the longer inputs."
    )
    return (
        f"**{answer:.0f}%**, from {acc[0]:.0f}% at {lengths[0]} tokens ({acc[1]:.0f}% at {lengths[1]}; chance is "
        f"{100 * run['chance']:.0f}%). {why} RoPE, trained the same way: {rope[-1]:.0f}% at {lengths[-1]}."
    )


def _sinusoid_misconceptions() -> tuple[tuple[float, str], ...]:
    """The two ends the reveal names: the accuracy at the training length kept (the sines
    give a code for every position, so it extrapolates), and chance."""
    run = _run("copy")
    return (
        (float(100 * _accuracy(run, "sinusoidal")[0]), "kept as trained: the sines extrapolate"),
        (float(100 * run["chance"]), "no better than chance"),
    )


def _sinusoid_figure():
    run = _run("copy")
    lengths = np.asarray(run["lengths"])
    series = {_name(m): _accuracy(run, m) for m in ("sinusoidal", "rope")}
    series["chance"] = np.full(lengths.size, run["chance"])
    styles = {name: {"mode": "lines+markers", "size": 10} for name in series}
    styles["chance"] = {"mode": "lines", "dash": "dot", "color": "#777"}
    fig = figures.line_chart(
        lengths,
        series,
        title=f"Copy task: accuracy when tested longer than trained (trained at {lengths[0]} tokens)",
        x_title="test length (tokens, log scale)",
        y_title="accuracy",
        x_name="test length",
        value_name="accuracy",
        value_format=".1%",
        log_x=True,
        styles=styles,
        vlines={"training length": float(lengths[0])},
        height=420,
    )
    fig.update_xaxes(tickvals=lengths.tolist())
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    return fig


def _marker_answer() -> float:
    run = _run("marker")
    return float(np.nanargmax([_accuracy(run, m)[-1] for m in MARKER_OFFERED]))


def _marker_reveal(answer: float) -> str:
    run = _run("marker")
    lengths = run["lengths"]
    method = MARKER_OFFERED[int(answer)]
    acc = 100 * _accuracy(run, method)
    others = ", ".join(f"{_name(m)} {100 * _accuracy(run, m)[-1]:.0f}%" for m in MARKER_OFFERED if m != method)
    text = (
        f"**{_name(method)}**: {acc[-1]:.0f}% at {lengths[-1]} tokens, from {acc[0]:.0f}% at {lengths[0]} "
        f"(the others at {lengths[-1]}: {others}; chance {100 * run['chance']:.0f}%)."
    )
    if method == "alibi":
        copy = 100 * _accuracy(_run("copy"), "alibi")
        text += (
            " Naming the latest marker rewards preferring the nearest match, which a penalty per step of distance "
            f"gives at any length. Yet on the copy task ALiBi reaches only {copy[0]:.0f}%, even at the training "
            "length: whether a method extrapolates depends on the task."
        )
    return text


def _marker_figure():
    run = _run("marker")
    lengths = run["lengths"]
    return figures.grouped_bars(
        [_name(m) for m in MARKER_OFFERED],
        {
            f"at the training length ({lengths[0]})": [_accuracy(run, m)[0] for m in MARKER_OFFERED],
            f"at 8x ({lengths[-1]})": [_accuracy(run, m)[-1] for m in MARKER_OFFERED],
        },
        title="Latest-marker task: accuracy at the training length and at 8 times it",
        x_title="method",
        y_title="accuracy",
        value_format=".0%",
        show_values=True,
        y_range=(0.0, 1.15),
        height=420,
    )


POLLS = (
    Poll(
        key="poll-experiments-sinusoid-8x",
        prompt=(
            f"A tiny model learns to copy the token {DEFAULTS[4]} places back, trained on {DEFAULTS[0]}-token "
            "sequences with sinusoidal positions. What accuracy does it reach on sequences 8 times longer?"
        ),
        answer=_sinusoid_answer,
        reveal=_sinusoid_reveal,
        figure=_sinusoid_figure,
        misconceptions=_sinusoid_misconceptions,
        tolerance=10.0,
        low=0.0,
        high=100.0,
        unit="%",
        view=f"experiments?view=extrapolation&task=copy&copy_k={DEFAULTS[4]}&train_len={DEFAULTS[0]}&test_to={REACH}",
    ),
    Poll(
        key="poll-experiments-marker-8x",
        prompt=(
            f"Trained on {DEFAULTS[0]} tokens to name the latest marker token seen so far: which model keeps the "
            "highest accuracy on sequences 8 times longer?"
        ),
        options=tuple(_name(m) for m in MARKER_OFFERED),
        answer=_marker_answer,
        reveal=_marker_reveal,
        figure=_marker_figure,
        view=f"experiments?view=claims&task=marker&train_len={DEFAULTS[0]}&test_to={REACH}",
    ),
)
