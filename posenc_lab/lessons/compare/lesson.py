"""Lesson: every positional method side by side, on one phrase, measured live."""

import numpy as np
import streamlit as st

from posenc_lab import figures
from posenc_lab.lessons.compare import compute
from posenc_lab.lessons.compare import exercises as compare_exercises
from posenc_lab.lessons.compare import figures as compare_figures
from posenc_lab.lessons.compare import measure as compare_lessons
from posenc_lab.ui import figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Compare them all",
    "compare",
    question="Side by side: what each method adds, what it costs, and whether it runs at twice the training length.",
    icon=":material/balance:",
    exercises=compare_exercises.EXERCISES,
    polls=compare_exercises.POLLS,
    largest={
        "seq_len": "512",
        "head_dim": "256",
        "heads": "64",
        "train_len": "2048",
        "shaw_k": "64",
        "shift": "1024",
        "phrase": "random",
    },
)


def options_code(train_len: int, n_heads: int, shaw_k: int) -> str:
    """The snippets' ``options``: each method's settings, as compute.options gives them."""
    lines = []
    for method in compute.ORDER:
        if method == "alibi":
            lines.append(f"    'alibi': dict(slope=posenc.alibi_slopes({n_heads})[0]),  # head 1 of {n_heads}")
            continue
        chosen = compute.options(method, train_len, n_heads, shaw_k)
        if chosen:
            lines.append(f"    {method!r}: dict({', '.join(f'{k}={v!r}' for k, v in chosen.items())}),")
    return "options = {  # each method's settings; the others take none\n" + "\n".join(lines) + "\n}\n"


@LESSON.page
def page() -> None:
    """Three measurements of one phrase under every method, with the settings they share."""
    more = layout.lesson(
        "Compare them all",
        "Position can enter a Transformer in three places, and here every method scores the same "
        "phrase, so the differences you see come from position alone. The three places: added to the "
        "word vectors before attention (sinusoidal, learned), multiplied into the queries and keys as a "
        "rotation (RoPE, xPos), or added to the attention logits as a bias that depends on the distance "
        "(T5, ALiBi, KERPLE; Shaw et al. add a vector to the keys instead).",
    )

    state.sidebar().header("Sequence")
    seq_len = state.int_slider(
        "seq_len",
        "Sequence length T",
        2,
        compute.SEQ_LEN_MAX,
        64,
        help="The phrase sits at positions 0 to T - 1.",
        container=layout.key_control(),
    )
    head_dim = state.int_slider("head_dim", "Head size Dh", 2, 256, 64, step=2, help="Even: RoPE turns pairs.")
    n_heads = state.int_slider(
        "heads", "Heads H", 1, 64, 8, help="d_model = H x Dh. Sets ALiBi's slopes and the counts."
    )
    phrase_kind = state.choice(
        "phrase",
        "Phrase",
        list(compare_lessons.PHRASE_KINDS),
        "repeated",
        labels={"repeated": "one word, repeated", "random": "random words"},
        help="One word at every position isolates position; random words mix in content.",
    )
    state.sidebar().header("Training")
    train_len = state.int_slider(
        "train_len",
        "Training length L",
        16,
        2048,
        256,
        step=16,
        help="The longest sequence seen in training; also max_len, the rows of the learned table.",
    )
    shaw_k = state.int_slider(
        "shaw_k", "Shaw's clipping distance K", 1, 64, 16, help="Offsets beyond ±K share a vector."
    )
    state.sidebar().header("Translation")
    shift = state.int_slider(
        "shift",
        "Shift the phrase by",
        1,
        1024,
        16,
        help="Positions to move the whole phrase right.",
        container=layout.key_control(),
    )

    # the formula of every method's score, with the lesson's explanation: the charts come
    # first, next to the controls that move them
    more.latex(
        r"e_{ij} = \frac{\big(\underbrace{R_{p_i}}_{\text{rotate}} W_q(x_i + \underbrace{PE_{p_i}}_{\text{add}})\big)"
        r"\cdot\big(R_{p_j} W_k(x_j + PE_{p_j}) + \underbrace{a_{\mathrm{clip}(j-i)}}_{\text{Shaw}}\big)}{\sqrt{D_h}}"
        r" + \underbrace{b(j - i)}_{\text{bias}}"
    )
    more.caption(
        "Each method uses one of the marked slots and leaves the others empty (R = identity, PE = a = b = 0). "
        "The projections W are left out below (taken as identity): the phrase's vectors serve as queries and keys."
    )
    settings = dict(
        seq_len=seq_len,
        head_dim=head_dim,
        n_heads=n_heads,
        phrase_kind=phrase_kind,
        train_len=train_len,
        shaw_k=shaw_k,
        shift=shift,
    )
    score_patterns(**settings)
    method_table(**settings)
    translation(**settings)


def score_patterns(
    seq_len: int, head_dim: int, n_heads: int, phrase_kind: str, train_len: int, shaw_k: int, shift: int
) -> None:
    """What position adds to the scores: one heatmap per method."""
    st.subheader("What position adds to the scores")
    shared_scale = state.toggle(
        "shared",
        "One colour scale for every method",
        True,
        help="The same colour means the same score change in every panel; switch off to give each panel "
        "its own range (then compare patterns, not sizes).",
        container=st,
    )
    patterns = compute.score_patterns(seq_len, head_dim, n_heads, train_len, shaw_k, phrase_kind)
    slope = compute.options("alibi", train_len, n_heads, shaw_k)["slope"]
    names = {**compute.SHORT, "alibi": f"ALiBi, m = {slope:.4g}", "shaw": f"Shaw, K = {shaw_k}"}
    fig = figcache.figure(
        compare_figures.score_grid,
        [patterns["panels"][m] for m in compute.ORDER],
        [names[m] for m in compute.ORDER],
        positions=patterns["positions"],
        missing=[patterns["missing"].get(m, "") for m in compute.ORDER],
        position_step=patterns["step"],
        title=f"Scores with positions minus scores without, T = {seq_len}, Dh = {head_dim}",
        value_name="score change",
        # three rows of three on a projector too: in rows of five the panel under the colour
        # bar kept a plot 120 px tall, and Plotly drew it twice to widen its margin
        height=1020,
        n_cols=3,
        shared_scale=shared_scale,
    )
    if shared_scale:
        scale = (
            "All panels share one colour scale, with its colour bar: the same colour is the same score change in "
            "every panel. The scale is stretched near 0 (asinh) so that small changes keep their pattern beside "
            "ALiBi's large ones; hover for values."
        )
    else:
        scale = (
            "Each panel has its own colour range (written in its title): equal colours in two panels do not "
            "mean equal score changes."
        )
    shown = patterns["positions"]
    code = (
        f"positions = np.arange(0, {seq_len}, {patterns['step']})  # the positions drawn\n"
        f"x = compare_lessons.phrase({seq_len}, {head_dim}, {phrase_kind!r}, seed={compute.SEED})[positions]\n"
        + options_code(train_len, n_heads, shaw_k)
        + """panels = []
for method in compare_lessons.COMPARE_METHODS:
    try:  # scores with positions minus scores without
        panels.append(compare_lessons.positional_part(x, positions, method, **options.get(method, {})))
    except ValueError:  # learned: no row at or past max_len
        panels.append(np.full((len(positions), len(positions)), np.nan))
data = np.hstack(panels)  # (r, 9 r): the panels side by side, in reading order
"""
    )
    drawn = [
        np.full((shown.size, shown.size), np.nan) if p is None else p
        for p in (patterns["panels"][m] for m in compute.ORDER)
    ]
    layout.chart(fig, key="compare_grid", filename="compare_score_patterns", code=code, data=np.hstack(drawn))
    word = "one random word repeated at every position" if phrase_kind == "repeated" else "a phrase of random words"
    # read, not projected: in presenter mode it goes to the speaker notes
    layout.explain(
        f"Each panel is the attention logit of {word} (Dh = {head_dim}, seed 0, the same for every method) minus the "
        "logit of the same phrase with no position: row i is the query, column j the key, 0 is white. "
        + scale
        + " Untrained parameters: "
        f"the learned table and Shaw's vectors are random, T5 has a random scalar per bucket ({compute.T5_BUCKETS} "
        f"buckets, max_distance {compute.T5_MAX_DISTANCE}), KERPLE uses r1 = r2 = 1, ALiBi shows head 1 of {n_heads}."
    )
    learned = (
        "the learned table, untrained, is random noise"
        if patterns["panels"]["learned"] is not None
        else f"the learned table has no rows past {train_len - 1}, so it draws nothing"
    )
    if phrase_kind == "repeated":
        layout.notice(
            "with the same word everywhere, the relative methods (Shaw, T5, ALiBi, KERPLE, RoPE, xPos) draw stripes "
            "parallel to the diagonal: the change depends on j - i only. The added encodings do not: the sinusoid's "
            f"pattern changes along the diagonal and {learned}. None adds nothing. Shaw's stripes stop changing beyond "
            "distance K, and T5's buckets widen with distance."
        )
    else:
        layout.notice(
            "with different words, only the biases (T5, ALiBi, KERPLE) keep clean stripes: they ignore the words. "
            "RoPE and xPos still depend on j - i, but mixed with both words, the query's at i and the key's at j. "
            r"Shaw's change, $q_i \cdot a_{j-i}$, mixes in only the query word: each row follows the offset "
            f"with its own pattern. {learned[0].upper() + learned[1:]}. None adds nothing."
        )


def method_table(
    seq_len: int, head_dim: int, n_heads: int, phrase_kind: str, train_len: int, shaw_k: int, shift: int
) -> None:
    """Where position enters, what it costs, whether it runs at twice the training length."""
    heading = "Where it enters, what it costs, whether it runs at twice the training length"
    rows = compute.method_table(head_dim, n_heads, train_len, shaw_k, phrase_kind)
    if layout.presenting():
        # seven columns of text are read, not projected: a click opens them (700 px less to scroll)
        with st.expander(heading, icon=":material/table:", expanded=False):
            layout.table(rows, index="Method")
    else:
        st.subheader(heading)
        layout.table(rows, index="Method")
    checked, check_step = compute.run_check_positions(train_len)
    how = (
        f"every position from 0 to {2 * train_len - 1}"
        if check_step == 1
        else f"{checked.size} positions from 0 to {2 * train_len - 1} ({figures.every_nth(check_step, 'position')}, "
        f"plus {train_len} and {2 * train_len - 1})"
    )
    layout.explain(
        f"**Runs** was measured just now: posenc scored the phrase at {how} with each method; 'yes' means it returned "
        "finite scores. Running is not working well: sinusoidal and RoPE models produce scores at any position yet "
        "degrade past the length they were trained on; the literature column says how each fares. Parameters are for "
        f"d_model = H x Dh = {n_heads * head_dim}, beyond the q, k, v projections every method has."
    )
    layout.notice(
        compute.runs_notice(compute.runs_at_twice(head_dim, n_heads, train_len, shaw_k, phrase_kind), train_len)
    )


def translation(
    seq_len: int, head_dim: int, n_heads: int, phrase_kind: str, train_len: int, shaw_k: int, shift: int
) -> None:
    """Move the whole phrase: how much each method's scores change."""
    st.subheader("Move the whole phrase: do the scores change?")
    errors, missing = compute.translation_errors(seq_len, head_dim, n_heads, train_len, shaw_k, phrase_kind, shift)
    fig = figcache.figure(
        compare_figures.translation_bars,
        [compute.SHORT[m] for m in compute.ORDER],
        errors,
        title=f"Largest change in the T = {seq_len} phrase's scores when it moves {shift} positions right",
        missing_text="no row",
        height=460,
    )
    code = (
        f"x = compare_lessons.phrase({seq_len}, {head_dim}, {phrase_kind!r}, seed={compute.SEED})  # (T, Dh)\n"
        + options_code(train_len, n_heads, shaw_k)
        + f"""data = []
for method in compare_lessons.COMPARE_METHODS:
    try:  # max |scores at positions {shift}..{shift + seq_len - 1} - scores at 0..{seq_len - 1}|
        data.append(compare_lessons.compare_translation_error(x, {shift}, method, **options.get(method, {{}})))
    except ValueError:  # learned: no row at or past max_len
        data.append(np.nan)
data = np.array(data)  # (9,): one bar per method, NaN for "no row"
"""
    )
    layout.chart(fig, key="compare_translation", filename="compare_translation", code=code, data=errors)
    if missing:
        st.caption(
            f"**No row:** the learned table has {train_len} rows, and the moved phrase needs positions up to "
            f"{shift + seq_len - 1}."
        )
    st.caption(
        f"The log axis cannot show 0: changes below {compare_figures.ZERO_BELOW:.0e}, exact zeros included, are drawn "
        f"as short blue bars at {compare_figures.FLOOR:.0e}; every bar is labelled with the measured value. Green "
        f"bars, below {compare_figures.ROUNDING_BELOW:.0e}, are floating-point rounding.".replace("e-0", "e-")
    )
    layout.notice(compute.translation_notice(errors))
