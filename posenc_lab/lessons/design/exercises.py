"""The exercises at the end of the lesson "Design your own encoding" (``posenc_lab/lessons/design/lesson.py``).

The kinds and how they are checked: ``ui.exercise_kinds``. The facts the explanations state
(the period of the harmonic waves, the checks a phase leaves alone, the ramp's verdicts)
are measured with ``posenc.custom`` in tests/test_custom.py."""

from __future__ import annotations

import functools

import numpy as np

from posenc_lab import figures
from posenc_lab.classroom.poll import Poll
from posenc_lab.lessons.choices import measure as props
from posenc_lab.lessons.design import compute as compute_design
from posenc_lab.lessons.design import measure as custom
from posenc_lab.ui.exercise_kinds import Choice, MultipleChoice, Param

#: misses below this are drawn at it on a log axis (exact zeros), as the lesson does
FLOOR = 1e-17

#: the skills the exercises practise (the lesson's ``skills``)
SKILLS = {"spacing": "Find when evenly spaced waves repeat"}
#: the harmonics question: how many pairs, and the longest wavelength (the shortest is
#: longest / pairs, a whole number of at least 3); the check runs over HARMONIC_SPAN periods
HARMONIC_PAIRS = (4, 6, 8, 12, 16)
HARMONIC_LONGEST = (24, 32, 48, 64, 96, 128)
HARMONIC_SPAN = 4


@functools.cache
def _harmonic_period(pairs: int, longest: int) -> int:
    """The fewest positions after which the design's code comes back: the smallest shift k
    with PE(p + k) = PE(p) for every p of the checked range (its codes computed by posenc.custom
    through the lesson's ``measure``)."""
    spec = custom.EncodingSpec(
        kind="waves",
        d_model=2 * pairs,
        spacing="linear",
        min_wavelength=float(longest // pairs),
        max_wavelength=float(longest),
    )
    pe = custom.encode(spec, np.arange(HARMONIC_SPAN * longest))  # (N, 2 pairs)
    return next(k for k in range(1, len(pe)) if np.allclose(pe[k:], pe[:-k], rtol=0, atol=1e-9))


def _harmonic_fair(pairs: int, longest: int) -> bool:
    shortest = longest // pairs
    # the shortest wavelength is whole (at least 3), and the options' periods differ
    return longest % pairs == 0 and shortest >= 3 and len({longest, shortest, pairs}) == 3


def _harmonic_choices(pairs: int, longest: int) -> tuple[Choice, ...]:
    period, shortest = _harmonic_period(pairs, longest), longest // pairs
    return (
        Choice(
            f"Position p + {period} has the same code as position p: it repeats every {period}.",
            f"Position p + {period} has exactly the code of position p. The frequencies are 1, 2, ..., {pairs} "
            f"times 2π/{longest}: every pair completes a whole number of turns in {longest} positions, so the whole "
            "code does. Geometric spacing avoids such a common period.",
            right=True,
        ),
        Choice(
            f"Every position is unique, because {pairs} different frequencies never line up.",
            "Different frequencies line up when they are whole multiples of one frequency, as evenly spaced "
            f"ones here are: after {longest} positions every pair is back where it started.",
        ),
        Choice(
            f"The code repeats every {shortest} positions, the shortest wavelength.",
            f"The fastest pair alone repeats every {shortest}, but the slower pairs have not come back yet; all of "
            f"them together come back only after their common period, {longest}.",
        ),
        Choice(
            f"The code repeats every {pairs} positions, one per pair.",
            f"The number of pairs sets no period; the frequencies do. The slowest pair turns once in {longest} "
            f"positions, so nothing repeats sooner than {longest}.",
        ),
    )


EXERCISES = (
    MultipleChoice(
        key="design_phase",
        title="A phase for every wave",
        question=(
            "Your design is the paper's sinusoid. You turn the **phase** from 0° to 90°, so every pair becomes "
            "$\\sin(p\\,\\omega_i + 90°),\\ \\cos(p\\,\\omega_i + 90°)$. What happens to the checks?"
        ),
        choices=(
            Choice(
                "Nothing changes: distances, norms and similarities stay the same (to rounding).",
                "Every distance, norm and similarity between codes stays as it was. Adding the same angle to a "
                "sin/cos pair turns that pair by a fixed rotation, and a rotation keeps lengths and dot products. "
                "Every number in the checks depends only on those, so none moves; only the values in the table do.",
                right=True,
            ),
            Choice(
                "Position 0 stops being special, so the codes become more unique and spread out.",
                "Uniqueness is about the distances between codes, and a fixed rotation of every pair keeps every "
                "distance: the closest pair and its distance are the same as before.",
            ),
            Choice(
                "The shift check fails: $M_k$ now has to undo the phase before it shifts.",
                "$M_k$ turns pair i by k·ωᵢ whatever angle the pair starts from, so the same matrix still moves every "
                "code k positions on; the phase cancels.",
            ),
            Choice(
                "The codes grow: sin and cos of a shifted angle can exceed 1.",
                "sin² + cos² = 1 for any angle, so every pair still has length 1 and every code the same norm.",
            ),
        ),
        hint="Write a pair as a point on the unit circle. What does adding 90° to its angle do to the point, "
        "and what does that do to distances between points?",
    ),
    MultipleChoice(
        key="design_harmonics",
        title="Evenly spaced frequencies",
        question=lambda pairs, longest: (
            f"Waves with **linear** spacing: {pairs} pairs whose frequencies step evenly from $2\\pi/{longest}$ up "
            f"to $2\\pi/{longest // pairs}$ (longest wavelength {longest}, shortest {longest // pairs}). Over "
            f"N = {HARMONIC_SPAN * longest} positions, what does the uniqueness check find?"
        ),
        choices=_harmonic_choices,
        hint=lambda pairs, longest: (
            f"Write each frequency as a multiple of 2π/{longest}. After how many positions has every pair made a "
            "whole number of turns?"
        ),
        params=(Param("pairs", HARMONIC_PAIRS, 16), Param("longest", HARMONIC_LONGEST, 64)),
        fair=_harmonic_fair,
        skill="spacing",
    ),
    MultipleChoice(
        key="design_ramp",
        title="The ramp p / (N - 1)",
        question=(
            "A tempting design: give position p the value $p/(N-1)$ in every dimension, so codes run from 0 to "
            "1 whatever the length N of the text. Which statement is true?"
        ),
        choices=(
            Choice(
                "Position 10's code depends on how long the text is.",
                "Position 10 gets a different code in a text of 100 tokens than in one of 1000 (10/99 against "
                "10/999): the code of a position depends on the length of the text it sits in, so what a model "
                "learns about 'position 10' does not carry over to a longer text.",
                right=True,
            ),
            Choice(
                "Two neighbouring positions share a code, as they differ so little.",
                "Every position has its own value p/(N - 1); the uniqueness check finds the closest codes 1/(N - 1) "
                "apart per dimension, small but not zero.",
            ),
            Choice(
                "Its codes grow without bound as the text gets longer.",
                "Dividing by N - 1 keeps every value between 0 and 1: that is the point of the ramp, and the "
                "boundedness check passes. Without the division (the ramp p) the codes do grow.",
            ),
            Choice(
                "Moving on by k positions is one fixed matrix, as for the sinusoid.",
                "Position 0 has the zero code, and any matrix maps zero to zero, never to the non-zero code of "
                "position k: the shift check fails.",
            ),
        ),
        hint="Compute the code of position 10 for N = 100 and for N = 1000.",
    ),
)


# class-mode polls ("predict before you see it"), computed when the teacher opens or reveals them

#: the lesson's default width and number of positions
POLL_WIDTH, POLL_N = 32, 256
#: the shift poll's step: from p to p + 1
SHIFT_K = 1
#: the binary counter of the shift poll: 8 digits, as the lesson's menu starts it
BINARY = custom.EncodingSpec(kind="binary", d_model=POLL_WIDTH, bits=8)
SINUSOID = custom.EncodingSpec(d_model=POLL_WIDTH)
SHIFT_OPTIONS = ("Yes: counting up is one fixed step", "No: no single matrix does it")
#: one sin/cos pair, wavelength 2 pi: the smallest sinusoid
ONE_PAIR = custom.EncodingSpec(d_model=2)
#: what the one-pair poll offers, split at CLOSE
CLOSE = 0.05
PAIR_OPTIONS = (
    "Two codes are identical",
    f"Closer than {CLOSE:g}, yet never identical",
    f"No two closer than {CLOSE:g}",
)


def _fit(spec: custom.EncodingSpec) -> dict:
    """The least-squares M_1 of ``spec`` over the lesson's positions (``custom.shift_fit``)."""
    return compute_design.shift(compute_design.design(spec), POLL_N, SHIFT_K)


def _shift_answer() -> float:
    return 0.0 if _fit(BINARY)["linear"] else 1.0


def _shift_reveal(answer: float) -> str:
    binary, sinusoid = _fit(BINARY), _fit(SINUSOID)
    return (
        f"**{SHIFT_OPTIONS[int(answer)]}.** The best single matrix M_1 has a worst miss of {binary['relative']:.2f} "
        f"of the largest binary code; for the sinusoid, {sinusoid['relative']:.0e}"
        + (" (rounding)" if sinusoid["linear"] else "")
        + ". Adding 1 to a binary number carries: whether digit b flips depends on every digit below it, "
        "a rule no matrix can apply. A sin/cos pair just turns by the same angle at every step."
    )


def _shift_figure():
    columns = {}
    for name, spec in (("binary counter, 8 digits", BINARY), ("sinusoid", SINUSOID)):
        fit = _fit(spec)
        # exact zeros drawn at FLOOR on the log axis
        columns[name] = np.maximum(fit["miss"] / fit["scale"], FLOOR)
    size = min(c.size for c in columns.values())
    fig = figures.line_chart(
        np.arange(size),
        {name: c[:size] for name, c in columns.items()},
        title=f"How far the best M_1 PE(p) lands from PE(p + 1), d = {POLL_WIDTH}",
        x_title="position p",
        y_title="miss / largest code (log scale)",
        x_name="position",
        value_name="miss",
        value_format=".1e",
        log_y=True,
        height=420,
    )
    fig.update_yaxes(exponentformat="power")
    return fig


def _pair() -> dict:
    return compute_design.uniqueness(compute_design.design(ONE_PAIR), POLL_N)


def _pair_answer() -> float:
    found = _pair()
    if not found["unique"]:
        return 0.0
    return 1.0 if found["distance"] < CLOSE else 2.0


def _pair_reveal(answer: float) -> str:
    found = _pair()
    p, q = found["pair"]
    return (
        f"**{PAIR_OPTIONS[int(answer)]}.** Any two positions {q - p} apart, such as {p} and {q}, have codes only "
        f"{found['distance']:.3f} apart: {q - p} positions are {(q - p) / (2 * np.pi):.3f} turns of the wave, "
        "almost a whole number. The wavelength "
        "2π is irrational, so the code never repeats exactly, yet far-apart positions can look alike: one pair "
        "cannot tell them apart reliably. Slower pairs are what separate them."
    )


def _pair_figure():
    found = _pair()
    p, q = found["pair"]
    offsets = np.arange(1, POLL_N)
    # the codes of p and p + k are the same distance apart for every p (a chord of the unit circle)
    distance = props.sinusoid_offset_distance(offsets, ONE_PAIR.d_model)
    fig = figures.line_chart(
        offsets,
        {"one pair, wavelength 2π": distance},
        title=f"Distance between the codes of two positions k apart, d = 2, k up to {POLL_N - 1}",
        x_title="offset k (positions)",
        y_title="distance (log scale)",
        x_name="k",
        value_name="distance",
        value_format=".3f",
        log_y=True,
        vlines={f"closest: {q - p} apart": q - p},
        height=420,
    )
    # down to the decade below the closest pair, so the axis names the scale of the deepest dip
    fig.update_yaxes(exponentformat="power", range=[np.floor(np.log10(distance.min())), np.log10(2.5)])
    return fig


POLLS = (
    Poll(
        key="poll-design-binary-shift",
        prompt=(
            "Encode position p by its binary digits (as -1/+1). For the sinusoid, one fixed matrix turns the code of "
            "p into the code of p + 1. Is there such a matrix for the binary counter?"
        ),
        options=SHIFT_OPTIONS,
        answer=_shift_answer,
        reveal=_shift_reveal,
        figure=_shift_figure,
        view=f"design?view=shift&kind={BINARY.kind}&d_model={BINARY.d_model}&bits={BINARY.bits}&k={SHIFT_K}",
    ),
    Poll(
        key="poll-design-one-pair",
        scale=True,
        prompt=(
            "The smallest sinusoid: one sin/cos pair, (sin p, cos p), wavelength 2π. Over positions 0 to "
            f"{POLL_N - 1}, how close do the two closest codes come?"
        ),
        options=PAIR_OPTIONS,
        answer=_pair_answer,
        reveal=_pair_reveal,
        figure=_pair_figure,
        view=f"design?view=unique&kind={ONE_PAIR.kind}&d_model={ONE_PAIR.d_model}&n_pos={POLL_N}",
    ),
)
