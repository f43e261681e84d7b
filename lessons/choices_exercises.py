"""The exercises at the end of the lesson "Design choices" (``lessons/choices.py``).

The kinds and how they are checked: ``ui.exercise_kinds``. The numbers quoted in the
explanations are measured with posenc when this module is imported, never typed in.
"""

from __future__ import annotations

import numpy as np

import posenc
from posenc import properties as props
from ui.exercise_kinds import Choice, MultipleChoice

# what the explanations quote, measured on the lesson's own settings
_WIDTH = 512
_PARTS = props.score_part_rms(
    props.token_embeddings(64, _WIDTH, scale="unit", seed=1), posenc.sinusoidal(64, _WIDTH)
)  # content, cross, position
_DYNAMIC = props.cache_step("rope_dynamic", 96, head_dim=64, train_len=64, factor=4.0)
_FIXED = props.cache_step("rope", 96, head_dim=64, train_len=64)
_PHRASE = posenc.compare_lessons.phrase(32, 64, "random", seed=0)
_HYBRID = props.hybrid_translation_errors(_PHRASE, 16, [0.0, 0.5], relative="rope")
_XPOS_KEY = float(props.norm_ratio("xpos_key", np.array([2047.0]), 64)[0])
_ROPE_GAP = float(np.abs(props.norm_ratio("rope", 2048, 64) - 1).max())


EXERCISES = (
    MultipleChoice(
        key="choices_what_dominates",
        title="Who wins the sum?",
        question=(
            f"Token vectors have entries of std $1/\\sqrt{{d}}$ (norm about 1) and the sinusoid is added, at "
            f"$d = {_WIDTH}$. Which part of the score $(x_i + p_i)\\cdot(x_j + p_j)$ is largest?"
        ),
        choices=(
            Choice(
                "The position part p_i · p_j.",
                f"Each sinusoid code has norm sqrt(d/2) = {np.sqrt(_WIDTH / 2):.0f} against about 1 for a token, so "
                f"the position part's typical size is {_PARTS[2] / _PARTS[0]:.0f} times the content part's (measured "
                "on a 64-token phrase). Vaswani et al. multiply their embeddings by sqrt(d_model), which brings a "
                "token's norm to about sqrt(d).",
                right=True,
            ),
            Choice(
                "The content part x_i · x_j: words matter more than places.",
                f"Not at this scale: the content part is the smallest, {_PARTS[0]:.3g} in typical size against "
                f"{_PARTS[2]:.3g} for the position part. A trained model can change the scales; this one has not.",
            ),
            Choice(
                "The cross terms, because there are two of them.",
                f"Two terms, but each is a product of a unit-size token with a code: together they measure "
                f"{_PARTS[1]:.3g}, far below the position part ({_PARTS[2]:.3g}).",
            ),
        ),
        hint="Compare the norms first: a token vector of norm about 1, a sinusoid code of norm sqrt(d/2).",
    ),
    MultipleChoice(
        key="choices_dynamic_cache",
        title="A cache that goes stale",
        question=(
            "A decoder rotates each key once with RoPE and caches the rotated keys. It uses dynamic NTK scaling "
            "(training length L = 64), and the text has just grown from 96 to 97 tokens. What about the 96 cached keys?"
        ),
        choices=(
            Choice(
                "They are stale: the new, larger base would turn them by other angles, so they must be turned again.",
                f"Measured: {_DYNAMIC.changed:,} of the 96 x 64 cached entries differ from a fresh computation, by up "
                f"to {_DYNAMIC.max_change:.2f}. Only keys at position 0 and the fastest pair (its frequency is 1 at "
                "any base) stay put. The fix is to cache keys before the rotation (transformers issue #25104).",
                right=True,
            ),
            Choice(
                "Nothing happens: a RoPE key is turned once, at its own position, and stays valid.",
                f"True for fixed frequencies (measured: {_FIXED.changed} entries change), not for dynamic NTK, whose "
                "frequencies depend on the current length once it passes L.",
            ),
            Choice(
                "Only the newest key is affected.",
                "The newest key is new, not cached. The change of base affects every cached key whose position is "
                "not 0, because each was turned by position times the old frequencies.",
            ),
        ),
        hint="A rotated key stores angle = position x frequency. Does the frequency stay the same as the text grows?",
    ),
    MultipleChoice(
        key="choices_hybrid_shift",
        title="Half absolute",
        question=(
            "A model rotates its queries and keys with RoPE and also adds half a sinusoid (w = 0.5) to its inputs. "
            "Does a phrase get the same scores wherever it sits in the text?"
        ),
        choices=(
            Choice(
                "No: the added code makes the scores depend on where the phrase sits.",
                f"Measured on a 32-token phrase moved 16 places: the largest score change is {_HYBRID[0]:.0e} with "
                f"RoPE alone and {_HYBRID[1]:.3g} with w = 0.5. The cross terms tie each word to its absolute place.",
                right=True,
            ),
            Choice(
                "Yes: RoPE makes every score depend on i - j only, whatever the input.",
                "RoPE's guarantee is for the vectors it rotates: R_i q · R_j k depends on i - j when q and k do not "
                "depend on position. Here they do, because x_i + w p_i carries the absolute position i.",
            ),
            Choice(
                "Yes: the sinusoid's own dot products p_i · p_j depend only on i - j.",
                "That part is relative, but the cross terms x_i · p_j are not: they change when the same words move "
                "to other positions.",
            ),
        ),
        hint="Expand (x_i + w p_i) · (x_j + w p_j) and ask which terms keep their value when i and j both grow by s.",
    ),
    MultipleChoice(
        key="choices_norm",
        title="Which keeps the norm?",
        question="Which of these leaves the norm of a query exactly as it was, at every position?",
        choices=(
            Choice(
                "RoPE.",
                f"Each pair is rotated, and rotations keep lengths: over positions 0 to 2047 the norm moved by at most "
                f"{_ROPE_GAP:.0e}, rounding.",
                right=True,
            ),
            Choice(
                "xPos.",
                f"xPos multiplies keys and queries by per-pair factors zeta_i^(+-p/512) on purpose, so that scores "
                f"decay with distance: at position 2047 a key's norm is {_XPOS_KEY:.3g} times what it was.",
            ),
            Choice(
                "Adding the sinusoid.",
                "Adding a vector of norm sqrt(d/2) changes the norm of almost any vector; only a rotation (or a "
                "reflection) keeps it.",
            ),
        ),
        hint="Which of them is a rotation, and which a rotation followed by a scaling?",
    ),
)
