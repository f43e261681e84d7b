"""Lesson: learned absolute positions, and where they stop."""

import numpy as np
import streamlit as st

import posenc
from posenc_lab import figures
from posenc_lab.lessons.learned import exercises as learned_exercises
from posenc_lab.ui import compute, controls, figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Learned positions",
    "learned",
    question="What does a learned table buy, what does it cost, and why does it stop at max_len?",
    icon=":material/table_rows:",
    exercises=learned_exercises.EXERCISES,
    polls=learned_exercises.POLLS,
    largest={"d_model": "1024", "max_len": "2048", "seq_len": "4096", "dim": "1023"},
)


@LESSON.page
def page() -> None:
    layout.lesson(
        "Learned positions",
        "BERT and GPT-2 do not use a formula: they keep a table with one trainable vector per "
        "position, from 0 to max_len - 1, and add row p to the word at position p. Training "
        "shapes the rows. Simple, flexible, and strictly limited to the rows that exist.",
    )

    st.sidebar.header("Table")
    max_len = state.int_slider("max_len", "max_len (rows)", 16, 2048, 512, step=16, container=layout.key_control())
    d_model = controls.d_model()
    std = float(
        state.choice_slider(
            "std",
            "Initial std",
            controls.STDS,
            0.02,
            help="BERT draws its table with std 0.02 (its initializer_range, also Hugging Face's default for GPT-2). "
            "OpenAI's GPT-2 code draws its position table (wpe) with std 0.01.",
        )
    )
    seed = state.int_slider("seed", "Seed", 0, 99, 0)
    st.sidebar.header("Sequence")
    seq_len = state.int_slider(
        "seq_len",
        "Sequence length",
        1,
        4096,
        768,
        help="Ask for more positions than the table has.",
        container=layout.key_control(),
    )
    dim = state.int_slider("dim", "Dimension to follow", 0, d_model - 1, 0)

    st.latex(r"x_p = \mathrm{TokenEmb}(w_p) + P[p],\qquad P \in \mathbb{R}^{\text{max\_len} \times d}")

    c1, c2, c3 = st.columns(3)
    c1.metric("Parameters in the table", f"{max_len * d_model:,}", help="max_len x d_model")
    c2.metric("GPT-2 small, for scale", "786,432", help="1,024 positions x 768 dimensions")
    c3.metric("Positions asked for", f"{seq_len:,}", delta=f"{seq_len - max_len:+,} vs max_len", delta_color="inverse")

    table = posenc.learned_table(max_len, d_model, std=std, seed=seed)
    try:
        posenc.lookup_learned(table, seq_len)
    except posenc.PositionOutOfRange as exc:
        # the point of the lesson, not a crash: a panel of the lesson, not an error box
        with st.container(border=True, key="table_ends"):
            st.markdown(f"#### :material/table_rows: The table ends at row {max_len - 1}")
            st.markdown(
                f"You asked for {seq_len:,} positions; the table has {max_len:,} rows. A formula can be "
                f"evaluated anywhere; a table cannot. Rows {max_len:,} to {seq_len - 1:,} were never "
                "created, so nothing was ever learned for them. Real models either refuse the input, "
                "cut it to max_len, or fail silently if an index wraps around (NumPy's `table[-1]` is "
                "the *last* row, a classic bug posenc refuses to make)."
            )
            st.markdown(f"What `posenc.lookup_learned` says when asked (`PositionOutOfRange`): *{exc}*")
    else:
        st.success(f"All {seq_len} positions have a row: the table has {max_len}.", icon=":material/check_circle:")

    grid, shown_pos, shown_dims, steps = compute.learned_grid(max_len, d_model, std, seed, seq_len)
    # past the table's end: a line and a note on the figure
    missing_rows = (
        [
            ("add_hline", dict(y=max_len - 0.5, line=dict(color="#D55E00", width=3))),
            (
                "add_annotation",
                dict(
                    x=0.5,
                    xref="paper",
                    y=(max_len + seq_len) / 2,
                    text="no rows here",
                    showarrow=False,
                    font=dict(size=18),
                ),
            ),
        ]
        if seq_len > max_len
        else []
    )
    fig = figcache.figure(
        figures.heatmap,
        grid,
        x=shown_dims,
        y=shown_pos,
        title=f"The learned table (freshly initialised), {max_len} rows x {d_model} dimensions",
        x_title="dimension",
        y_title="position p",
        x_name="dimension",
        y_name="position",
        value_name="value",
        row_noun="position",
        col_noun="dimension",
        height=480,
        after=missing_rows,
    )
    table_code = f"table = posenc.learned_table({max_len}, {d_model}, std={std!r}, seed={seed})  # (max_len, D)"
    code = f"""
{table_code}
positions = np.arange(0, {max(seq_len, max_len)}, {steps[0]})  # the positions drawn
data = np.full((positions.size, {d_model}), np.nan)  # NaN: no row to draw
inside = positions < {max_len}
data[inside] = posenc.lookup_learned(table, positions[inside])
data = data[:, ::{steps[1]}]  # the dimensions drawn
"""
    layout.chart(fig, key="learned_heatmap", filename="learned_table", code=code)
    layout.notice(
        "before training the rows are noise: nothing says that row 5 is near row 6. Past the "
        "orange line (max_len) the picture is empty, because there is nothing to draw."
    )

    learned, sinus = compute.learned_vs_sinusoid(max_len, d_model, std, seed, seq_len, dim)
    series = {f"learned, dim {dim}": learned}
    if sinus is not None:
        series[f"sinusoidal, dim {dim} (x {std:g} to compare)"] = sinus * std
    fig = figcache.figure(
        figures.line_chart,
        np.arange(seq_len),
        series,
        title=f"Dimension {dim} along the sequence",
        x_title="position p",
        y_title="value",
        x_name="position",
        value_name="value",
        vlines={"max_len": max_len} if seq_len > max_len else None,
        height=380,
    )
    inside = min(seq_len, max_len)
    code = f"""
{table_code}
learned = np.full({seq_len}, np.nan)  # NaN past the last row
learned[:{inside}] = table[:{inside}, {dim}]  # dimension {dim} of rows 0..{inside - 1}
"""
    if sinus is None:
        code += "data = learned\n"
    else:
        code += f"""sinus = posenc.sinusoidal({seq_len}, {d_model})[:, {dim}]  # positions 0..{seq_len - 1}
data = np.stack([learned, sinus * {std!r}], axis=1)  # the sinusoid scaled to compare
"""
    layout.chart(fig, key="learned_line", filename="learned_vs_sinusoidal", code=code)
    layout.notice(
        "the learned line simply stops at max_len; the sinusoid goes on, because it is computed, "
        "not looked up. Going on is not the same as working well there: the sinusoidal lesson's "
        "numbers are defined everywhere, but a model trained on short inputs has never seen them."
    )
