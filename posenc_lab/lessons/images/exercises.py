"""The exercises at the end of the lesson "Beyond one dimension" (``posenc_lab/lessons/images/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import numpy as np

import posenc
from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.experiments import claims
from posenc_lab.lessons.experiments import compute as experiment
from posenc_lab.lessons.images import compute as compute_images
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice, Numeric, Param, too_far

#: the skills the exercises practise (the lesson's ``skills``)
SKILLS = {"raster": "Read a grid row by row", "mrope": "Place text after a video in M-RoPE"}
#: the resume question: text tokens before the video, and its grid of temporal patches x
#: rows x columns of merged patches
RESUME_BEFORE = tuple(range(3, 13))
RESUME_FRAMES = (2, 3, 4)
RESUME_SIDES = tuple(range(2, 9))


def _resume_answer(before: int, t: int, h: int, w: int) -> float:
    # the text after the video: its first position
    return float(posenc.rope.qwen2_vl_positions(before, (t, h, w), 1)[0, -1])


def _resume_turns(before: int, t: int, h: int, w: int) -> dict[str, int]:
    """The values the known wrong turns give (each nudge's own value)."""
    return {
        "every_patch": before + t * h * w,  # a position per patch, as 1-D RoPE gives
        "largest": before + max(t, h, w) - 1,  # the video's largest position itself
        "axes_added": before + t + h + w,  # the three axes laid end to end
    }


def _resume_fair(before: int, t: int, h: int, w: int) -> bool:
    values = [before + max(t, h, w), *_resume_turns(before, t, h, w).values()]
    # each wrong turn gives its own number, none the answer: every nudge names the turn taken
    return len(set(values)) == len(values)


def _resume_question(before: int, t: int, h: int, w: int) -> str:
    return (
        f"In Qwen2-VL, {before} text tokens are followed by a video of {t} temporal patches (grid_t = {t}, each "
        f"of 2 frames) of {h} x {w} merged patches, and then text. What is the first position of the text after "
        "the video?"
    )


def _resume_explain(answer: float, before: int, t: int, h: int, w: int) -> str:
    return (
        f"{answer:.0f}: the video used positions {before} + 0..max({t}, {h}, {w}) - 1, so at most {answer - 1:.0f}; "
        f"the text resumes at {answer:.0f}, not at {before} + {t * h * w} = {before + t * h * w}."
    )


def _resume_nudge(given: float, answer: float, before: int, t: int, h: int, w: int) -> str:
    turns = _resume_turns(before, t, h, w)
    if given == turns["every_patch"]:
        return "That counts every patch. The video's positions run over time, rows and columns at once."
    if given == turns["largest"]:
        return "That is the video's largest position. The text resumes one past it."
    if given == turns["axes_added"]:
        return (
            "That lays time, rows and columns end to end. They run side by side, each counting from "
            f"{before}: only the longest one sets how far the video reaches."
        )
    if given > answer:
        return too_far(given, answer) + (
            f" The video does not take a position per patch: its time, row and column indices each count "
            f"from {before}, so its longest axis sets how far its positions reach."
        )
    return too_far(given, answer) + (
        f" The text resumes one past the video's largest position on any axis: which of time ({t}), rows ({h}) "
        f"and columns ({w}) reaches furthest from {before}?"
    )


#: the raster question: a grid of rows x columns of patches, never square (a row's length and
#: the number of rows are two different options)
RASTER_SIDES = tuple(range(4, 25))


def _below_gaps(rows: int, cols: int) -> set[int]:
    """Every distance from a patch to the one below it, in 1-D positions read row by row (the
    lesson's raster order, row * cols + col)."""
    positions = np.arange(rows * cols).reshape(rows, cols)
    return {int(g) for g in np.unique(positions[1:] - positions[:-1])}


def _below_choices(rows: int, cols: int) -> tuple[Choice, ...]:
    (gap,) = _below_gaps(rows, cols)  # one distance for every patch: the grid is fixed
    return (
        Choice(
            f"{gap} positions",
            f"A whole row of {cols} patches lies between them in reading order.",
            right=True,
        ),
        Choice(
            f"{rows} positions",
            f"That is the number of rows. The patch below comes one row later, and a row holds {cols} patches.",
        ),
        Choice("1 position", "That is the patch to the right. The one below comes a whole row later."),
        Choice(
            "It depends on the patch's row",
            "Not in a fixed grid: every patch is exactly one row length before the one below it.",
        ),
    )


EXERCISES = (
    MultipleChoice(
        key="images_raster_below",
        title="Read row by row",
        question=lambda rows, cols: (
            f"A grid of {rows} rows of {cols} patches is read row by row and given 1-D RoPE positions. How far "
            "apart are a patch and the patch just below it?"
        ),
        choices=_below_choices,
        hint="Count the patches read between the two.",
        params=(Param("rows", RASTER_SIDES, 12), Param("cols", RASTER_SIDES, 16)),
        fair=lambda rows, cols: rows != cols,
        skill="raster",
    ),
    Numeric(
        key="images_mrope_resume",
        title="Where the text resumes",
        question=_resume_question,
        answer=_resume_answer,
        tolerance=0.0,
        integer=True,
        fmt="%d",
        step=1,
        hint=lambda before, t, h, w: (
            f"The video's tokens start at {before} on every axis; the text resumes one past the largest position used."
        ),
        explain=_resume_explain,
        nudge=_resume_nudge,
        params=(
            Param("before", RESUME_BEFORE, 5),
            Param("t", RESUME_FRAMES, 2),
            Param("h", RESUME_SIDES, 3),
            Param("w", RESUME_SIDES, 4),
        ),
        fair=_resume_fair,
        skill="mrope",
    ),
    MultipleChoice(
        key="images_nope_causal",
        title="Order without positions",
        question="A causal model with no positional encoding at all copies tokens far better than chance. Why can it?",
        choices=(
            Choice(
                "The causal mask leaks order",
                "Token t attends over t + 1 tokens, so what it sees depends on where it is.",
                right=True,
            ),
            Choice("Attention is not permutation-equivariant", "It is, without a mask: the mask is what breaks it."),
            Choice(
                "The embeddings store positions",
                "Token embeddings depend only on the token, not on where it stands.",
            ),
        ),
        hint="What differs between the first token and the tenth under a causal mask?",
    ),
)


# class-mode polls

#: the Image patches view's defaults: an 8 x 12 grid, head_dim 64, theta 100, query patch (3, 5), seed 0
PATCH_SETTINGS = (8, 12, 64, 100.0, 3, 5, 0)
BELOW_OPTIONS = ("The patch below scores much lower", "About the same", "The patch below scores higher")


def _neighbour_scores() -> dict[str, tuple[float, float, float]]:
    """Under 1-D and 2-D RoPE: (the query patch against itself, the patch to its right, the patch below)."""
    out = compute_images.patch_scores(*PATCH_SETTINGS)
    r, c = PATCH_SETTINGS[4], PATCH_SETTINGS[5]
    return {
        name: (float(grid[r, c]), float(grid[r, c + 1]), float(grid[r + 1, c]))
        for name, grid in (("1-D", out["raster"]), ("2-D", out["axial"]))
    }


def _below_answer() -> float:
    same, right, below = _neighbour_scores()["1-D"]
    # how far each neighbour's score falls below the query's own score
    drop_right, drop_below = same - right, same - below
    if drop_below > 2 * drop_right:
        return 0.0
    return 1.0 if drop_below > 0.5 * drop_right else 2.0


def _below_reveal(answer: float) -> str:
    scores = _neighbour_scores()
    (same, right, below), (_, right_2d, below_2d) = scores["1-D"], scores["2-D"]
    cols = PATCH_SETTINGS[1]
    return (
        f"**{BELOW_OPTIONS[int(answer)]}.** Read row by row, the patch to the right is 1 position away and scores "
        f"{right:.1f}, the patch below is {cols} positions away and scores {below:.1f} (the patch itself: "
        f"{same:.1f}). With 2-D RoPE, which gives each patch its row and its column, they score {right_2d:.1f} "
        f"and {below_2d:.1f}: both are neighbours again."
    )


def _below_figure():
    scores = _neighbour_scores()
    return figures.grouped_bars(
        ["patch itself", "patch to the right", "patch below"],
        {"1-D RoPE, read row by row": scores["1-D"], "2-D RoPE, row and column": scores["2-D"]},
        title="Score of patch (3, 5) against patches with the same content (8 x 12 grid)",
        x_title="key patch",
        y_title="score",
        value_format=".1f",
        show_values=True,
    )


NOPE_OPTIONS = ("At chance: a random guess", "Above chance, far from perfect", "Near perfect (over 90%)")


def _run() -> dict:
    # the experiments page's stored run, loaded as the NoPE view loads it
    return experiment.summary_for(*compute_images.EXPERIMENT_DEFAULTS)


def _nope_answer() -> float:
    run = _run()
    accuracy = run["accuracy"]["none"][0]  # at the training length
    return float(0 if accuracy <= claims.ABOVE_CHANCE * run["chance"] else 2 if accuracy > 0.9 else 1)


def _nope_reveal(answer: float) -> str:
    run = _run()
    none = run["accuracy"]["none"][0]
    return (
        f"**{NOPE_OPTIONS[int(answer)]}.** With no positions at all the model copies {none:.0%} of tokens right at "
        f"its training length, against {run['chance']:.0%} for a guess (RoPE: {run['accuracy']['rope'][0]:.0%}, "
        f"sinusoidal: {run['accuracy']['sinusoidal'][0]:.0%}). Under a causal mask token t "
        "spreads its attention over t + 1 tokens, so what it sees depends on where it stands: order leaks in."
    )


def _nope_figure():
    run = _run()
    methods = list(run["accuracy"])
    return figures.grouped_bars(
        [claims.NAMES[m] for m in methods],
        {f"at the training length ({run['lengths'][0]})": [run["accuracy"][m][0] for m in methods]},
        title=f"Copy the token 3 places back: accuracy by kind of position (chance {run['chance']:.0%})",
        x_title="method",
        y_title="accuracy",
        value_format=".0%",
        y_range=(0.0, 1.1),
        show_values=True,
    )


POLLS = (
    Poll(
        key="poll-images-patch-below",
        scale=True,
        prompt=(
            "Image patches read row by row get 1-D RoPE positions; every patch holds the same content. Against "
            "a query patch, how does the patch just below score compared with the patch just to the right?"
        ),
        options=BELOW_OPTIONS,
        answer=_below_answer,
        reveal=_below_reveal,
        figure=_below_figure,
        view=(
            f"images?view=patches&rows={PATCH_SETTINGS[0]}&cols={PATCH_SETTINGS[1]}&qr={PATCH_SETTINGS[4]}"
            f"&qc={PATCH_SETTINGS[5]}"
        ),
    ),
    Poll(
        key="poll-images-no-positions",
        scale=True,
        prompt=(
            "A causal model with **no** positional encoding at all is trained to copy the token 3 places back "
            "(16 possible tokens). How well does it do at its training length?"
        ),
        options=NOPE_OPTIONS,
        answer=_nope_answer,
        reveal=_nope_reveal,
        figure=_nope_figure,
        view="images?view=nope",
    ),
)
