"""The exercises at the end of the lesson "Design choices" (``posenc_lab/lessons/choices/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``. The numbers quoted in the
explanations are measured with posenc when this module is imported, never typed in.
"""

from __future__ import annotations

import functools

import numpy as np

import posenc
from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.choices import compute as compute_choices
from posenc_lab.lessons.choices import measure as props
from posenc_lab.lessons.compare import measure as compare_lessons
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice

# what the explanations quote, measured on the lesson's own settings
_WIDTH = 512
_PARTS = props.score_part_rms(
    props.token_embeddings(64, _WIDTH, scale="unit", seed=1), posenc.sinusoidal(64, _WIDTH)
)  # content, cross, position
_DYNAMIC = props.cache_step("rope_dynamic", 96, head_dim=64, train_len=64, factor=4.0)
_FIXED = props.cache_step("rope", 96, head_dim=64, train_len=64)
_PHRASE = compare_lessons.phrase(32, 64, "random", seed=0)
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
                "The position part $p_i \\cdot p_j$.",
                f"Each sinusoid code has norm sqrt(d/2) = {np.sqrt(_WIDTH / 2):.0f} against about 1 for a token, so "
                f"the position part's typical size is {_PARTS[2] / _PARTS[0]:.0f} times the content part's (measured "
                "on a 64-token phrase). Vaswani et al. multiply their embeddings by sqrt(d_model), which brings a "
                "token's norm to about sqrt(d).",
                right=True,
            ),
            Choice(
                "The content part $x_i \\cdot x_j$: words matter more than places.",
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
                "They are stale: the new base gives other angles, so they must be turned again.",
                "The new, larger base would turn each of them by other angles. "
                f"Measured: {_DYNAMIC.changed:,} of the 96 x 64 cached entries differ from a fresh computation, by up "
                f"to {_DYNAMIC.max_change:.2f}. Only keys at position 0 and the fastest pair (its frequency is 1 at "
                "any base) stay put. A proposed fix caches the keys before the rotation (transformers issue #25104); "
                "transformers has not taken it, finding it too slow (PR #27227).",
                right=True,
            ),
            Choice(
                "Nothing happens: a RoPE key is turned once, at its own position, and stays valid.",
                f"True for fixed frequencies (measured: {_FIXED.changed} entries change), not for dynamic NTK, whose "
                "frequencies depend on the current length once it passes L.",
            ),
            Choice(
                "Only the newest key is affected; the cached ones keep their angles.",
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
                "RoPE's guarantee is for the vectors it rotates: $R_i q \\cdot R_j k$ depends on i - j when q and k "
                "do not depend on position. Here they do, because $x_i + w\\,p_i$ carries the absolute position i.",
            ),
            Choice(
                "Yes: the sinusoid's own dot products $p_i \\cdot p_j$ depend only on i - j.",
                "That part is relative, but the cross terms $x_i \\cdot p_j$ are not: they change when the same "
                "words move to other positions.",
            ),
        ),
        hint="Expand $(x_i + w\\,p_i) \\cdot (x_j + w\\,p_j)$ and ask which terms keep their value when i and j "
        "both grow by s.",
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


# class-mode polls ("predict before you see it"), computed when the teacher opens or reveals them

#: the width of the score-parts poll, and what it offers: the position part against the content part
PARTS_WIDTH = 512
#: its token vectors: std 1/sqrt(d), norm about 1 (the view's URL name ``scale``)
PARTS_SCALE = "unit"
RATIO_OPTIONS = (
    "The content part is larger",
    "About the same size",
    "About 10 times larger",
    "About 100 times larger",
    "About 1,000 times larger",
)
#: the cache poll: token T + 1 arrives with training length L (dynamic NTK has rescaled since L)
CACHE_T, CACHE_L = 96, 64
#: the methods the cache poll offers, in order; its last option is "none of them"
CACHE_OFFERED = ("rope", "rope_yarn", "rope_dynamic", "alibi")


@functools.lru_cache(maxsize=1)
def _parts() -> tuple[float, float, float]:
    """Typical size of the content, cross and position parts of the lesson's 64-token phrase:
    ``compute_choices.add_or_concat``'s, without the read-back test it also runs (a second, cold).
    Kept once per process, as floats: every student's reveal reads it."""
    tokens = props.token_embeddings(
        compute_choices.PHRASE_TOKENS, PARTS_WIDTH, scale=PARTS_SCALE, seed=compute_choices.SEED + 1
    )  # (T, D)
    parts = props.score_part_rms(tokens, posenc.sinusoidal(compute_choices.PHRASE_TOKENS, PARTS_WIDTH))
    return tuple(float(v) for v in parts)


def _ratio_answer() -> float:
    content, _, position = _parts()
    ratio = position / content
    if ratio < 1:
        return 0.0
    # the option whose power of ten is nearest on a log scale: 1, 10, 100, 1000
    return float(min(1 + round(np.log10(ratio)), len(RATIO_OPTIONS) - 1))


def _ratio_reveal(answer: float) -> str:
    content, cross, position = _parts()
    return (
        f"**{RATIO_OPTIONS[int(answer)]}**: {position / content:,.0f} times. At d = {PARTS_WIDTH} the sinusoid's "
        f"code has norm sqrt(d/2) = {np.sqrt(PARTS_WIDTH / 2):.0f} against about 1 for a token vector of std "
        f"1/sqrt(d), so in typical size the position part p_i·p_j ({position:.3g}) dwarfs the cross terms "
        f"({cross:.3g}) and the content part x_i·x_j ({content:.3g}). Vaswani et al. multiply their embeddings "
        "by sqrt(d_model), which brings a token's norm to about sqrt(d)."
    )


def _ratio_figure():
    return figures.grouped_bars(
        ["content", "cross", "position"],
        {"root mean square over all pairs": list(_parts())},
        title=f"The three parts of the score of a 64-token phrase, d = {PARTS_WIDTH}, added sinusoid",
        x_title="part of (xᵢ + pᵢ)·(xⱼ + pⱼ)",
        y_title="typical size (log scale)",
        log_y=True,
        y_range=(1e-5, 1e4),
        show_values=True,
        height=420,
    )


def _cache() -> dict:
    return compute_choices.cache_steps(CACHE_T, CACHE_L)


def _changed(steps: dict) -> dict[str, float]:
    return dict(zip(steps["methods"], steps["changed"], strict=True))


def _cache_answer() -> float:
    changed = _changed(_cache())
    stale = [i for i, m in enumerate(CACHE_OFFERED) if changed[m] > 0]
    # one offered method must redo its cache, or none: two would make the poll ambiguous (the tests check)
    return float(stale[0] if len(stale) == 1 else len(CACHE_OFFERED))


def _cache_options() -> tuple[str, ...]:
    return (*(compute_choices.CACHE_LABELS[m] for m in CACHE_OFFERED), "None of them")


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _cache_reveal(answer: float) -> str:
    steps = _cache()
    changed = _changed(steps)
    change = dict(zip(steps["methods"], steps["max_change"], strict=True))
    kept = [compute_choices.CACHE_LABELS[m] for m in CACHE_OFFERED if changed[m] == 0]
    cached = CACHE_T * compute_choices.CACHE_HEAD_DIM
    return (
        f"**{_cache_options()[int(answer)]}.** When token {CACHE_T + 1} arrives, RoPE with dynamic NTK changes "
        f"{changed['rope_dynamic']:,.0f} of the {cached:,} cached key entries, by up to "
        f"{change['rope_dynamic']:.2f}: past L = {CACHE_L} it raises RoPE's base with every new token, so the keys "
        f"turned earlier are off and must be turned again. "
    ) + (f"{_and(kept)} change none: what they cache does not depend on the text's length." if kept else "")


def _cache_figure():
    steps = _cache()
    return figures.grouped_bars(
        [compute_choices.CACHE_LABELS[m] for m in steps["methods"]],
        {"cached entries that change": steps["changed"]},
        title=f"Appending token {CACHE_T + 1}: cached entries that must be redone (L = {CACHE_L}, Dh = 64)",
        x_title="method",
        y_title="entries (log scale)",
        log_y=True,
        y_range=(0.5, 1e5),
        value_format=",.0f",
        show_values=True,
        height=440,
    )


POLLS = (
    Poll(
        key="poll-choices-position-vs-content",
        scale=True,
        prompt=(
            f"Token vectors of norm about 1, plus the sinusoid, at d = {PARTS_WIDTH}. In the score "
            "(xᵢ + pᵢ)·(xⱼ + pⱼ), how does the position part pᵢ·pⱼ compare with the content part xᵢ·xⱼ?"
        ),
        options=RATIO_OPTIONS,
        answer=_ratio_answer,
        reveal=_ratio_reveal,
        figure=_ratio_figure,
        view=f"choices?view=add&d_model={PARTS_WIDTH}&scale={PARTS_SCALE}",
    ),
    Poll(
        key="poll-choices-stale-cache",
        prompt=(
            f"A decoder caches its position-encoded keys. Trained at L = {CACHE_L}, it has {CACHE_T} tokens and "
            f"token {CACHE_T + 1} arrives. Which method must recompute keys it already cached?"
        ),
        options=_cache_options(),
        answer=_cache_answer,
        reveal=_cache_reveal,
        figure=_cache_figure,
        view=f"choices?view=cache&t={CACHE_T}&train_len={CACHE_L}",
    ),
)
