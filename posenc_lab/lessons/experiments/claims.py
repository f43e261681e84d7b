"""Common claims about positions and extrapolation, set against a run's numbers.

Each claim is one that circulates in tutorials and courses (paraphrased); the measurement
and the verdict are computed from the run handed in, never written in advance.
"""

from __future__ import annotations

NAMES = {
    "none": "no positions",
    "learned": "learned absolute",
    "sinusoidal": "sinusoidal",
    "rope": "RoPE",
    "alibi": "ALiBi",
    "t5": "T5 buckets",
}

#: the column of the claims (each one a common claim, not what this app's lessons say)
CLAIM = "Common claim"
#: how close to its 1x accuracy a method must stay at the longest length to "extrapolate"
KEEPS = 0.05
#: accuracy at the training length above which a method counts as having learned the task
LEARNT = 0.8
#: accuracy above this multiple of chance counts as above chance (a model that cannot use
#: order sits at chance); the NoPE poll of "Beyond one dimension" reads it too
ABOVE_CHANCE = 1.5

HOLDS_HERE, FAILS_HERE = "holds in this run", "does not hold in this run"


def without_positions_verdict(task: str, accuracy: float, chance: float) -> str:
    """The verdict on "without positional information the model cannot use word order".

    A model that cannot use order scores at chance; far above it, the run shows order in
    use. The causal mask leaks it: token t attends over t + 1 tokens. On the marker task a
    score above chance does not settle it, since counting markers needs no order.
    """
    if accuracy <= ABOVE_CHANCE * chance:
        return HOLDS_HERE
    if task == "marker":
        return "not settled by this task: above chance, but counting markers needs no order"
    return f"{FAILS_HERE}: {accuracy / chance:.1f} times chance"


def fmt_accuracy(a: float | None) -> str:
    return "no embedding" if a is None else f"{a:.0%}"


def _span(summary: dict, method: str) -> str:
    acc = summary["accuracy"][method]
    lengths = summary["lengths"]
    return f"{fmt_accuracy(acc[0])} at {lengths[0]} tokens, {fmt_accuracy(acc[-1])} at {lengths[-1]}"


def claims_table(summary: dict, translation: dict[str, float | None], shift: int) -> list[dict[str, str]]:
    """Rows of (claim, what this run measured, verdict, why)."""
    acc = summary["accuracy"]
    task = summary["config"]["task"]
    longest = summary["lengths"][-1]
    chance = summary["chance"]
    rows = []

    sin_first, sin_last = acc["sinusoidal"][0], acc["sinusoidal"][-1]
    holds = sin_last >= sin_first - KEEPS
    rows.append(
        {
            CLAIM: "Sinusoidal encodings extrapolate perfectly to lengths never seen in training.",
            "Measured here": _span(summary, "sinusoidal"),
            "Verdict": "holds in this run" if holds else "does not hold in this run",
            "Why": (
                "The formula gives a vector for every position, but the model learned what to do only "
                "with the positions it saw; far positions bring combinations of sines it never met."
                if not holds
                else "Here the learned use of the sines carried over to the longer inputs."
            ),
        }
    )
    learned_past = acc["learned"][1:]
    rows.append(
        {
            CLAIM: "Learned positions fail beyond max_len.",
            "Measured here": _span(summary, "learned"),
            "Verdict": "holds, by construction" if all(a is None for a in learned_past) else "check the run",
            "Why": "The table has train_len rows; a longer input has positions with no row to add (posenc raises "
            "PositionOutOfRange rather than wrap around).",
        }
    )
    alibi_first, alibi_last = acc["alibi"][0], acc["alibi"][-1]
    alibi_keeps = alibi_last >= alibi_first - KEEPS
    learnt = alibi_first >= LEARNT
    rows.append(
        {
            CLAIM: "ALiBi extrapolates: it keeps working at many times the training length.",
            "Measured here": _span(summary, "alibi"),
            "Verdict": (
                "holds in this run"
                if alibi_keeps and learnt
                else f"steady, but it never learned the task ({fmt_accuracy(alibi_first)} when trained)"
                if alibi_keeps
                else "does not hold in this run"
            ),
            "Why": (
                "ALiBi only pushes attention towards nearby tokens, the same way at every length, so what it learns "
                "short still applies long."
                + (
                    " But this one-layer model cannot single out one exact offset: its tokens carry no position, so "
                    "ALiBi's penalty is its only sign of place, and a penalty that grows with distance peaks at "
                    "distance 0, not k. The limit is this model's, not ALiBi's: in a deeper model the earlier layers "
                    "change what each token carries."
                    if task == "copy"
                    else ""
                )
            ),
        }
    )
    rope_err = translation.get("rope")
    rows.append(
        {
            CLAIM: "With RoPE the score depends only on the relative position m - n.",
            "Measured here": f"max change of the trained model's scores when a phrase moves {shift} places: "
            f"{rope_err:.1e}"
            if rope_err is not None
            else "not measured",
            "Verdict": "holds" if rope_err is not None and rope_err < 1e-9 else "does not hold",
            "Why": "Rotating q by m and k by n leaves their dot product a function of m - n; only rounding remains. "
            f"Relative does not mean unlimited: RoPE's accuracy here was {_span(summary, 'rope')}.",
        }
    )
    none_first = acc["none"][0]
    best = max(a[0] for m, a in acc.items() if a[0] is not None)
    rows.append(
        {
            CLAIM: "Without positional information the model cannot use word order.",
            "Measured here": f"{fmt_accuracy(none_first)} without positions against {chance:.0%} for a uniform "
            f"guess (the best method: {fmt_accuracy(best)})",
            "Verdict": without_positions_verdict(task, none_first, chance),
            "Why": (
                "Copying needs the token k places back: a model that cannot use order can only guess, near chance. "
                if task == "copy"
                else ""
            )
            + "Attention without positions sees a set, but a causal mask leaks order: token t attends over t + 1 "
            "tokens, so what it sees depends on where it stands"
            + (
                ". Here the most recent marker is often also the most common one, so counting alone beats chance "
                "and the score cannot tell which the model did."
                if task == "marker"
                else "."
            ),
        }
    )
    learned_first, sin_first = acc["learned"][0], acc["sinusoidal"][0]
    rows.append(
        {
            CLAIM: "Learned positions perform slightly better than sinusoidal within max_len.",
            "Measured here": f"learned {fmt_accuracy(learned_first)}, sinusoidal {fmt_accuracy(sin_first)} "
            f"at {summary['lengths'][0]} tokens",
            "Verdict": "holds in this run"
            if learned_first > sin_first + 0.01
            else "no difference here"
            if abs(learned_first - sin_first) <= 0.01
            else "the reverse in this run",
            "Why": "The original Transformer paper found the two about equal: learned position embeddings gave "
            "nearly identical results to the sinusoids (Vaswani et al. 2017, sec. 3.5, Table 3 row E). A small "
            f"synthetic task like this one is easy for both. Longest length tested: {longest} tokens.",
        }
    )
    return rows
