"""Lesson: learned absolute positions, and where they stop."""

import numpy as np
import streamlit as st

import posenc
from posenc_lab import figures
from posenc_lab.lessons.learned import compute as learned_compute
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
    skills=learned_exercises.SKILLS,
    polls=learned_exercises.POLLS,
    largest={"d_model": "1024", "max_len": "2048", "seq_len": "4096", "dim": "1023", "task": "marker", "offset": "31"},
)


@LESSON.intro
def intro() -> None:
    """The lead: what a learned table is."""
    layout.lesson(
        "Learned positions",
        "BERT and GPT-2 do not use a formula: they keep a table with one trainable vector per "
        "position, from 0 to max_len - 1, and add row p to the word at position p. Training "
        "shapes the rows. Simple, flexible, and strictly limited to the rows that exist.",
    )


@LESSON.view("table", "The table and its end")
def table_view() -> None:
    state.sidebar().header("Table")
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
    state.sidebar().header("Sequence")
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

    height = 480
    grid, shown_pos, shown_dims, steps = compute.learned_grid(
        max_len, d_model, std, seed, seq_len, figures.pixel_rows(height)
    )
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
        height=height,
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

    # the table's end, told under its picture: the picture comes first, next to the two
    # sliders that move the orange line and the rows asked for
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


#: the panels' names, in the order of ``learned_compute.TABLES``
TABLE_NAMES = {"initial": "at the start", "trained": "after training", "sinusoid": "sinusoid, same size"}


@LESSON.view("trained", "A trained table")
def trained_view() -> None:
    task = state.choice(
        "task",
        "Task it was trained on",
        list(learned_compute.TASK_LABELS),
        "copy",
        labels=learned_compute.TASK_LABELS,
        container=layout.key_control(),
        help="The experiments page's two tasks; its stored runs hold the trained tables.",
    )
    run = learned_compute.trained_table(task)
    if run is None:
        st.info(
            "The experiments page's stored run is missing from this installation, so there is no trained table to "
            "show; run tools/precompute_experiment.py to store it again.",
            icon=":material/info:",
        )
        return
    cfg = learned_compute.run_config(task)
    n, d = cfg.train_len, cfg.d_model
    offset = state.int_slider(
        "offset",
        "Offset k",
        1,
        n - 1,
        1,
        container=layout.key_control(),
        help="How far apart the two rows compared are.",
    )
    st.latex(
        r"S_{pq} = \frac{P_p \cdot P_q}{\lVert P_p \rVert\,\lVert P_q \rVert},"
        r"\qquad \bar S_k = \operatorname{mean}_p S_{p,\,p+k}"
    )
    fig = figcache.figure(
        figures.heatmap_panels,
        [run["similarity"][name] for name in learned_compute.TABLES],
        [TABLE_NAMES[name] for name in learned_compute.TABLES],
        title=f"Cosine similarity of every pair of rows: the learned table ({n} x {d}) before and after "
        f"{cfg.steps} steps, and the sinusoid",
        x_title="position q",
        y_title="position p",
        x_name="q",
        y_name="p",
        value_name="cosine",
        signed=True,
        zmax=1.0,
        height=420,
    )
    tables_code = f"""from pathlib import Path

# the experiments page's stored run (tools/precompute_experiment.py), installed with the app
stored = np.load(Path(posenc_lab.__file__).parent / "lessons" / "experiments" / "data" / "experiment_{task}.npz")
cfg = posenc.experiment.ExperimentConfig(
    task={task!r}, train_len={n}, d_model={d}, steps={cfg.steps}, seed={cfg.seed}, offset={cfg.offset}
)
initial = posenc.experiment.initial_params(cfg, "learned")["P"]  # ({n}, {d}): where training started
trained = stored["param_learned_P"]  # ({n}, {d}): after {cfg.steps} steps
sinus = posenc.sinusoidal({n}, {d})
sims = [posenc.position_similarity(t, "cosine") for t in (initial, trained, sinus)]
"""
    code = tables_code + "data = np.hstack(sims)  # (T, 3T): the three panels side by side\n"
    data = np.hstack([run["similarity"][name] for name in learned_compute.TABLES])
    layout.chart(fig, key="learned_trained_similarity", filename="learned_trained_similarity", code=code, data=data)
    fig = figcache.figure(
        figures.line_chart,
        np.arange(n),
        {TABLE_NAMES[name]: run["by_offset"][name] for name in learned_compute.TABLES},
        title="Mean cosine similarity of two rows k positions apart",
        x_title="offset k",
        y_title="mean cosine",
        x_name="k",
        value_name="cosine",
        value_format=".3f",
        vlines={f"k = {offset}": offset},
        height=380,
    )
    code = tables_code + f"data = np.column_stack([[np.diagonal(s, k).mean() for k in range({n})] for s in sims])\n"
    layout.chart(fig, key="learned_trained_offsets", filename="learned_trained_offsets", code=code)
    cols = st.columns(3)
    for col, name in zip(cols, learned_compute.TABLES, strict=True):
        col.metric(f"Mean cosine at k = {offset}, {TABLE_NAMES[name]}", f"{run['by_offset'][name][offset]:.2f}")
    rows = {
        "row norm at the start": run["norms"]["initial"],
        "row norm after training": run["norms"]["trained"],
        "distance moved": run["drift"],
    }
    fig = figcache.figure(
        figures.line_chart,
        np.arange(n),
        rows,
        title=f"What training did to each row (rows 0 to {n - 1}: the table ends where training did)",
        x_title="position p",
        y_title="length",
        x_name="position",
        value_name="length",
        value_format=".3f",
        styles={name: {"mode": "lines+markers", "size": 6} for name in rows},
        height=380,
    )
    code = tables_code + (
        "data = np.column_stack([np.linalg.norm(initial, axis=1), np.linalg.norm(trained, axis=1), "
        "np.linalg.norm(trained - initial, axis=1)])\n"
    )
    layout.chart(fig, key="learned_trained_rows", filename="learned_trained_rows", code=code)
    longer = run["lengths"][1]
    st.caption(
        f"The experiment gives the learned method max_len = train_len = {n}: there are no rows past the training "
        f"length, trained or untrained, and at {longer} tokens the model cannot run (the experiments page shows no "
        "accuracy for it there). In a table longer than every training text, the rows never looked up get no "
        "gradient; under plain Adam, as here, a weight whose gradients were all zero is never moved, so such rows "
        "keep their random start (weight decay, as in AdamW, would only shrink them towards zero). The starting "
        "table is drawn again from the run's seed (posenc.experiment.initial_params), not stored."
    )
    layout.notice(trained_notice(run, task, offset))


def trained_notice(run: dict, task: str, offset: int) -> str:
    """What the charts show for this task's stored run at this offset, in its own numbers."""
    start, trained, sinus = (run["by_offset"][name][offset] for name in learned_compute.TABLES)
    rows = "neighbouring rows" if offset == 1 else f"rows {offset} apart"
    if trained - start <= 0.1:
        alike = f"training did not make {rows} alike"
    elif trained < sinus:
        alike = f"training made {rows} alike, though less than the sinusoid's are"
    else:
        alike = f"training made {rows} at least as alike as the sinusoid's"
    return (
        f"trained to {learned_compute.TASK_LABELS[task]}, {rows} (k = {offset}) end with a mean cosine of "
        f"{trained:.2f}, against {start:.2f} at the start and {sinus:.2f} for the sinusoid: {alike}. Each row moved "
        f"{run['drift'].mean():.2f} on average, and the mean row norm went from {run['norms']['initial'].mean():.2f} "
        f"to {run['norms']['trained'].mean():.2f}. What a table learns depends on what the task needs; the "
        "sinusoid's smooth structure is given, not learned."
    )
