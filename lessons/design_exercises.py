"""The exercises at the end of the lesson "Design your own encoding" (``lessons/design.py``).

The kinds and how they are checked: ``ui.exercise_kinds``. The facts the explanations state
(the period of the harmonic waves, the checks a phase leaves alone, the ramp's verdicts)
are measured with ``posenc.custom`` in tests/test_custom.py."""

from __future__ import annotations

from ui.exercise_kinds import Choice, MultipleChoice

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
                "Nothing changes: every distance, norm and similarity between codes stays the same (to rounding).",
                "Adding the same angle to a sin/cos pair turns that pair by a fixed rotation, and a rotation keeps "
                "lengths and dot products. Every number in the checks depends only on those, so none moves; "
                "only the values in the table do.",
                right=True,
            ),
            Choice(
                "Position 0 stops being special, so the codes become more unique.",
                "Uniqueness is about the distances between codes, and a fixed rotation of every pair keeps every "
                "distance: the closest pair and its distance are the same as before.",
            ),
            Choice(
                "The shift check fails: M_k now has to undo the phase.",
                "M_k turns pair i by k·ωᵢ whatever angle the pair starts from, so the same matrix still moves every "
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
        question=(
            "Waves with **linear** spacing: 16 pairs whose frequencies step evenly from $2\\pi/64$ up to "
            "$2\\pi/4$ (longest wavelength 64, shortest 4). Over N = 256 positions, what does the uniqueness "
            "check find?"
        ),
        choices=(
            Choice(
                "Position p + 64 has exactly the code of position p: the code repeats every 64 positions.",
                "The frequencies are 1, 2, ..., 16 times 2π/64: every pair completes a whole number of turns in 64 "
                "positions, so the whole code does. Geometric spacing avoids such a common period.",
                right=True,
            ),
            Choice(
                "Every position is unique, because 16 different frequencies never line up.",
                "Different frequencies line up when they are whole multiples of one frequency, as evenly spaced "
                "ones here are: after 64 positions every pair is back where it started.",
            ),
            Choice(
                "The code repeats every 4 positions, the shortest wavelength.",
                "The fastest pair alone repeats every 4, but the slower pairs have not come back yet; all of them "
                "together come back only after their common period, 64.",
            ),
            Choice(
                "The code repeats every 16 positions, one per pair.",
                "The number of pairs sets no period; the frequencies do. The slowest pair turns once in 64 "
                "positions, so nothing repeats sooner than 64.",
            ),
        ),
        hint="Write each frequency as a multiple of 2π/64. After how many positions has every pair made a whole "
        "number of turns?",
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
                "Position 10 gets a different code in a text of 100 tokens than in a text of 1000.",
                "10/99 is not 10/999: the code of a position depends on the length of the text it sits in, so what "
                "a model learns about 'position 10' does not carry over to a longer text.",
                right=True,
            ),
            Choice(
                "Two positions share a code.",
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
