"""The exercises at the end of the lesson "Beyond one dimension" (``lessons/images.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

import posenc
from ui.exercise_kinds import Choice, MultipleChoice, Numeric


def _resume_answer() -> float:
    # text after a 2 x 3 x 4 image that follows 5 text tokens: its first position
    return float(posenc.rope.qwen2_vl_positions(5, (2, 3, 4), 1)[0, -1])


def _resume_nudge(given: float, answer: float) -> str | None:
    if given == 5 + 2 * 3 * 4:
        return "That counts every patch. The image's positions run over time, rows and columns at once."
    return None


EXERCISES = (
    MultipleChoice(
        key="images_raster_below",
        title="Read row by row",
        question=(
            "A 16 x 16 grid of patches is read row by row and given 1-D RoPE positions. How far apart are "
            "a patch and the patch just below it?"
        ),
        choices=(
            Choice("16 positions", "Right: a whole row of 16 patches lies between them in reading order.", right=True),
            Choice("1 position", "That is the patch to the right. The one below comes a whole row later."),
            Choice(
                "It depends on the patch's row",
                "Not in a fixed grid: every patch is exactly one row length before the one below it.",
            ),
        ),
        hint="Count the patches read between the two.",
    ),
    Numeric(
        key="images_mrope_resume",
        title="Where the text resumes",
        question=(
            "In Qwen2-VL, 5 text tokens are followed by a video of 2 frames of 3 x 4 merged patches and then "
            "text. What is the first position of the text after the video?"
        ),
        answer=_resume_answer,
        tolerance=0.0,
        integer=True,
        fmt="%d",
        step=1,
        hint="The video's tokens start at 5 on every axis; the text resumes one past the largest position used.",
        explain=lambda answer: (
            f"{answer:.0f}: the video used positions 5 + 0..max(2, 3, 4) - 1, so at most 8; the text "
            "resumes at 9, not at 5 + 24 = 29."
        ),
        nudge=_resume_nudge,
    ),
    MultipleChoice(
        key="images_nope_causal",
        title="Order without positions",
        question="A causal model with no positional encoding at all copies tokens far better than chance. Why can it?",
        choices=(
            Choice(
                "The causal mask leaks order",
                "Right: token t attends over t + 1 tokens, so what it sees depends on where it is.",
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
