"""The exercises at the end of the lesson "Learned positions" (``posenc_lab/lessons/learned/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import functools

import numpy as np

import posenc
from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.experiments import compute as experiment
from posenc_lab.lessons.images import compute as compute_images
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice, Numeric, Param, too_far

#: the skill the exercises practise (the lesson's ``skills``)
SKILLS = {
    "table_size": "Count a learned table's parameters",
    "past_max_len": "Find the positions a table lacks",
}
MAX_LENS = (256, 512, 1024, 2048)
WIDTHS = (128, 256, 512, 768, 1024)


def _params_answer(max_len: int, d_model: int) -> float:
    # one trainable row of d_model numbers per position 0..max_len-1
    return float(posenc.learned_table(max_len, d_model).size)


def _params_nudge(given: float, answer: float, max_len: int, d_model: int) -> str | None:
    if given == max_len + d_model:
        return "You added. The table has max_len rows, and each row holds d_model numbers."
    if given in (max_len, d_model):
        return "That counts rows or columns only. The table is max_len × d_model."
    return too_far(given, answer) + " Count the entries of a max_len × d_model table."


def _params_explain(answer: float, max_len: int, d_model: int) -> str:
    return (
        f"{max_len} × {d_model} = {answer:,.0f}. Sinusoidal, RoPE and ALiBi add none; GPT-2 small's table is "
        "1,024 × 768 = 786,432."
    )


#: the past-max_len question: the text runs this many tokens past the table (fewer than max_len)
PAST_EXTRAS = (16, 50, 88, 100, 300)


def _past_choices(max_len: int, extra: int) -> tuple[Choice, ...]:
    # a table of max_len rows (posenc's), and a text whose positions run to max_len + extra - 1
    rows, last = posenc.learned_table(max_len, 1).shape[0], max_len + extra - 1
    return (
        Choice(
            f"There is no row for positions {rows} to {last}: nothing was learned for them.",
            "The table has max_len rows, and nothing was ever learned for later positions: a learned "
            "table is looked up, not computed. posenc.lookup_learned raises "
            "PositionOutOfRange; real models refuse the input or cut it to max_len.",
            right=True,
        ),
        Choice(
            "The rows past max_len are still random noise, since training never updated them.",
            "There are no rows past max_len at all. Random noise is what the rows that do exist hold before training.",
        ),
        Choice(
            f"It can: NumPy wraps index {last} around to one of the existing rows.",
            f"NumPy raises IndexError for {last} in a {rows}-row table; it wraps only negative indices, and "
            "table[-1] silently giving the last row is a classic bug, not a position.",
        ),
        Choice(
            "Its gradients explode on inputs longer than the ones it was trained on.",
            "Training has nothing to do with it: the lookup itself fails, since there is nothing to look up.",
        ),
    )


EXERCISES = (
    MultipleChoice(
        key="learned_past_max_len",
        title="Past max_len",
        question=lambda max_len, extra: (
            f"A model with learned positions and max_len = {max_len} gets a text of {max_len + extra} tokens. Why "
            "can't it use them?"
        ),
        choices=_past_choices,
        hint="What does the heatmap draw below the orange line, and why?",
        params=(Param("max_len", MAX_LENS, 512), Param("extra", PAST_EXTRAS, 88)),
        fair=lambda max_len, extra: extra < max_len,
        skill="past_max_len",
    ),
    Numeric(
        key="learned_param_count",
        title="What the table costs",
        question=lambda max_len, d_model: (
            f"How many trainable numbers does a learned position table with max_len = {max_len} and "
            f"$d_{{model}}$ = {d_model} add?"
        ),
        answer=_params_answer,
        tolerance=0.0,
        hint="One trainable vector per position, each as wide as the model.",
        explain=_params_explain,
        nudge=_params_nudge,
        integer=True,
        fmt="%d",
        step=1,
        params=(Param("max_len", MAX_LENS, 2048), Param("d_model", WIDTHS, 1024)),
        skill="table_size",
    ),
)


# class-mode polls

#: the experiments page's stored run (copy the token 3 places back, trained at 32 positions)
RUN_SETTINGS = compute_images.EXPERIMENT_DEFAULTS
LONGER_OPTIONS = (
    "About the same as at 32",
    "Lower, but better than chance",
    "Chance level: a random guess",
    "No answer: it cannot run at all",
)


def _run() -> dict:
    # loaded as the images and experiments pages load it: the stored run, or the same run live
    return experiment.summary_for(*RUN_SETTINGS)


def _longer_answer() -> float:
    run = _run()
    at_two = run["accuracy"]["learned"][1]  # the second length: twice the training length
    if at_two is None:  # no row to look up: the model was never run
        return 3.0
    trained = run["accuracy"]["learned"][0]
    return float(0 if at_two > 0.9 * trained else 2 if at_two < 1.5 * run["chance"] else 1)


def _longer_reveal(answer: float) -> str:
    run = _run()
    lengths, sinus = run["lengths"], run["accuracy"]["sinusoidal"]
    return (
        f"**{LONGER_OPTIONS[int(answer)]}.** The learned model scores {run['accuracy']['learned'][0]:.0%} at its "
        f"training length {lengths[0]}, but its table has {lengths[0]} rows, so for positions {lengths[0]} to "
        f"{lengths[1] - 1} there is nothing to look up and the model cannot be run. The sinusoidal model, "
        f"trained the same way, runs but falls from {sinus[0]:.0%} to {sinus[1]:.0%} at {lengths[1]} (chance: "
        f"{run['chance']:.0%}): a formula that runs everywhere is not a model that works everywhere."
    )


def _longer_figure():
    run = _run()
    # the training length and twice it, what the poll asks about; the Experiments lesson's own polls
    # ask about the longer lengths, so they are not shown (nor told) here
    lengths = run["lengths"][:2]
    return figures.grouped_bars(
        # words in every label: all-digit labels would make Plotly draw a numeric axis
        [f"{n} (trained)" if n == lengths[0] else f"{n} ({n // lengths[0]}x)" for n in lengths],
        {
            name: [np.nan if a is None else a for a in run["accuracy"][method][:2]]
            for method, name in (("learned", "learned positions (no bar: no row)"), ("sinusoidal", "sinusoidal"))
        },
        title=f"Copy the token 3 places back, trained at {lengths[0]} positions",
        x_title="test length (tokens)",
        y_title="accuracy",
        value_format=".0%",
        y_range=(0.0, 1.05),
    )


NEIGHBOUR = dict(max_len=1024, d_model=768, std=0.02, seed=0)  # GPT-2 small's shape, BERT's std
NEIGHBOUR_ROW = 5
NEIGHBOUR_SHOWN = 64


@functools.cache  # is_right asks for the answer once per vote: draw the 786,432 numbers once
def _neighbour_curves() -> tuple[np.ndarray, np.ndarray]:
    """Cosine similarity of rows 0..63 to row 5: (learned, freshly initialised), (sinusoidal), each (64,)."""
    table = posenc.learned_table(
        NEIGHBOUR["max_len"], NEIGHBOUR["d_model"], std=NEIGHBOUR["std"], seed=NEIGHBOUR["seed"]
    )
    rows = posenc.lookup_learned(table, np.arange(NEIGHBOUR_SHOWN))  # (64, D)
    learned = posenc.similarity_to_position(rows, NEIGHBOUR_ROW, "cosine")
    sinus = posenc.similarity_to_position(
        posenc.sinusoidal(NEIGHBOUR_SHOWN, NEIGHBOUR["d_model"]), NEIGHBOUR_ROW, "cosine"
    )
    return learned, sinus


def _neighbour_answer() -> float:
    return float(_neighbour_curves()[0][NEIGHBOUR_ROW + 1])


def _neighbour_reveal(answer: float) -> str:
    learned, sinus = _neighbour_curves()
    others = np.delete(learned, NEIGHBOUR_ROW)
    return (
        f"**{answer:.2f}**: rows 5 and 6 of a freshly drawn table are unrelated random vectors, no closer than "
        f"rows 5 and 60 (every other row of the first {NEIGHBOUR_SHOWN} is within ±{np.abs(others).max():.2f}). "
        f"The sinusoidal codes of positions 5 and 6 have cosine {sinus[NEIGHBOUR_ROW + 1]:.2f}. A learned table "
        "starts with no idea that 5 is next to 6: only training can put neighbours close."
    )


def _neighbour_misconceptions() -> tuple[tuple[float, str], ...]:
    """Neighbours close from the start, as the sinusoid's are (the reveal's comparison)."""
    _, sinus = _neighbour_curves()
    return ((float(sinus[NEIGHBOUR_ROW + 1]), "neighbours start alike"),)


def _neighbour_figure():
    learned, sinus = _neighbour_curves()
    return figures.line_chart(
        np.arange(NEIGHBOUR_SHOWN),
        {"learned table, before training": learned, "sinusoidal": sinus},
        title=f"Cosine similarity of every position to position {NEIGHBOUR_ROW} (d_model {NEIGHBOUR['d_model']})",
        x_title="position p",
        y_title="cosine similarity",
        x_name="position",
        value_name="cosine",
        value_format=".3f",
        styles={"learned table, before training": {"mode": "lines+markers", "size": 5}},
    )


POLLS = (
    Poll(
        key="poll-learned-twice-as-long",
        scale=True,
        prompt=(
            "A model with learned positions is trained on 32-token texts to copy the token 3 places back. "
            "What does it score on 64-token texts?"
        ),
        options=LONGER_OPTIONS,
        answer=_longer_answer,
        reveal=_longer_reveal,
        figure=_longer_figure,
    ),
    Poll(
        key="poll-learned-neighbours",
        prompt=(
            "A learned position table (768 wide, BERT's std 0.02) has just been initialised. What is the cosine "
            "similarity between the rows of positions 5 and 6?"
        ),
        answer=_neighbour_answer,
        reveal=_neighbour_reveal,
        figure=_neighbour_figure,
        misconceptions=_neighbour_misconceptions,
        tolerance=0.15,
        low=-1.0,
        high=1.0,
    ),
)
