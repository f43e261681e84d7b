"""Lesson: positions beyond one dimension (2-D RoPE for image patches, Qwen2-VL's M-RoPE),
and models that use no positions at all in some or every layer (NoPE, Llama 4's iRoPE)."""

import numpy as np
import streamlit as st

from posenc_lab import figures
from posenc_lab.lessons.experiments import claims
from posenc_lab.lessons.experiments import compute as experiment
from posenc_lab.lessons.images import compute
from posenc_lab.lessons.images import exercises as images_exercises
from posenc_lab.ui import figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Beyond one dimension",
    "images",
    question="How do models give positions to image patches and video frames, and can a model do without any?",
    icon=":material/grid_on:",
    exercises=images_exercises.EXERCISES,
    skills=images_exercises.SKILLS,
    polls=images_exercises.POLLS,
    largest={
        "rows": "32",
        "cols": "32",
        "dh": "128",
        "qr": "31",
        "qc": "31",
        "before": "16",
        "frames": "4",
        "h": "8",
        "w": "8",
        "after": "16",
        "layers": "128",
    },
)
#: the two kinds of layer in the NoPE map (Okabe-Ito orange and sky blue: black cell
#: numbers read on both)
NOPE_COLOUR, ROPE_COLOUR = "#E69F00", "#56B4E9"


@LESSON.intro
def intro() -> None:
    layout.lesson(
        "Beyond one dimension: images, video, and no positions at all",
        "Text is a line, but an image is a grid of patches and a video a stack of grids. Read row by row, "
        "the patch just below another sits a whole row away, so 1-D positions call close patches far. "
        "ViT, DeiT and CLIP do read them that way: each patch gets one index in reading order and a learned "
        "vector per index. Others give each patch its row and its column, as RoPE-ViT (Heo et al. 2024) and "
        "Qwen2-VL's vision encoder do with 2-D RoPE; Qwen2-VL's language model then gives every token three "
        "positions: time, height and width. And some models give some layers no positions at all.",
    )


@LESSON.view("patches", "Image patches (2-D RoPE)")
def patches() -> None:
    state.sidebar().header("Patch grid")
    rows = state.int_slider("rows", "Rows of patches", 2, 32, 8)
    cols = state.int_slider("cols", "Columns of patches", 2, 32, 12)
    head_dim = int(state.choice_slider("dh", "head_dim", (16, 32, 64, 128), 64, help="A multiple of 4."))
    theta = float(state.choice_slider("theta", "Base theta", (100, 10_000), 100, help="RoPE-ViT: 100; SAM 2: 10,000."))
    q_row = state.int_slider("qr", "Query patch: row", 0, 31, 3, container=layout.key_control())
    q_col = state.int_slider("qc", "Query patch: column", 0, 31, 5, container=layout.key_control())
    seed = state.int_slider("seed", "Seed of the patch content", 0, 99, 0)
    q_row, q_col = min(q_row, rows - 1), min(q_col, cols - 1)
    st.latex(
        # \allowbreak: where a phone may wrap the line (posenc_lab/ui/app.css lets KaTeX's runs wrap)
        r"\text{pairs } 0..\tfrac{d_h}{4}-1:\ \text{angle } c\,\theta_t,\qquad \allowbreak "
        r"\text{pairs } \tfrac{d_h}{4}..\tfrac{d_h}{2}-1:\ \text{angle } r\,\theta_t,\qquad \allowbreak "
        r"\theta_t = \text{theta}^{-4t/d_h}"
    )
    out = compute.patch_scores(rows, cols, head_dim, theta, q_row, q_col, seed)
    fig = figcache.figure(
        figures.heatmap_panels,
        [out["axial"], out["raster"]],
        ["2-D axial RoPE: row and column", "1-D RoPE, patches read row by row"],
        title=f"Score of patch ({q_row}, {q_col}) against every patch holding the same content, head_dim {head_dim}",
        x_title="column",
        y_title="row",
        x_name="column",
        y_name="row",
        value_name="score",
        height=460,
    )
    code = f"""
q, _ = rope_lessons.random_query_key({head_dim}, seed={seed})
r, c = np.divmod(np.arange({rows * cols}), {cols})  # row and column of each patch
keys = np.broadcast_to(q, ({rows * cols}, {head_dim}))  # the same content on every patch
axial = posenc.rope.axial_rope_2d(keys, r, c, theta={theta!r}) @ posenc.rope.axial_rope_2d(
    q[None], [{q_row}], [{q_col}], theta={theta!r}
)[0]
raster = posenc.apply_rope(keys, np.arange({rows * cols}), base={theta!r}) @ posenc.apply_rope(
    q[None], [{q_row * cols + q_col}], base={theta!r}
)[0]
data = axial.reshape({rows}, {cols})  # the left panel; raster.reshape({rows}, {cols}) is the right one
"""
    layout.chart(fig, key="images_patches", filename="images_2d_rope", code=code)
    below = q_row + 1 < rows
    c1, c2 = st.columns(2)
    c1.metric("Same offsets from patch (0, 0): largest score change", f"{out['shift_error']:.1e}")
    if below:
        gap_1d = out["raster"][q_row, q_col] - out["raster"][q_row + 1, q_col]
        gap_2d = out["axial"][q_row, q_col] - out["axial"][q_row + 1, q_col]
        c2.metric("Drop to the patch below: 2-D vs 1-D", f"{gap_2d:.2f} vs {gap_1d:.2f}")
    layout.notice(
        "with 2-D RoPE the score falls off around the query in both directions, the same way for the patch "
        "below as for the patch to the right, and it depends only on the row and column offsets: moving the "
        f"query to (0, 0) with every key changes no score by more than {out['shift_error']:.0e}. Read row by "
        f"row, the patch below is {cols} positions away, as far as a patch {cols} columns to the right, so "
        "1-D RoPE scores it like a distant patch and lets row ends touch the next row's start."
    )


@LESSON.view("video", "Video and text (M-RoPE)")
def video() -> None:
    state.sidebar().header("Sequence")
    before = state.int_slider("before", "Text tokens before", 0, 16, 4)
    frames = state.int_slider(
        "frames",
        "Temporal patches t (grid_t)",
        1,
        4,
        2,
        help="Qwen2-VL merges every 2 frames into one temporal patch (temporal_patch_size = 2).",
        container=layout.key_control(),
    )
    height = state.int_slider("h", "Patch rows h", 1, 8, 3)
    width = state.int_slider("w", "Patch columns w", 1, 8, 4, container=layout.key_control())
    after = state.int_slider("after", "Text tokens after", 0, 16, 3)
    st.latex(
        r"\text{pair } i \text{ turns by } \begin{cases} t_m\,\theta_i & i < 16 \\ h_m\,\theta_i & 16 \le i < 40"
        r" \\ w_m\,\theta_i & 40 \le i < 64 \end{cases}\qquad(\text{Qwen2-VL: } d_h = 128,\ "
        r"\text{mrope\_section} = [16, 24, 24])"
    )
    out = compute.mrope_positions(before, frames, height, width, after)
    pos = out["positions"]
    fig = figcache.figure(
        figures.line_chart,
        np.arange(pos.shape[1]),
        {"time": pos[0], "height": pos[1], "width": pos[2]},
        title=f"The three positions of each token: {before} text, {frames}x{height}x{width} patches, {after} text",
        x_title="token",
        y_title="position",
        x_name="token",
        value_name="position",
        value_format=".0f",
        styles={name: {"mode": "lines+markers", "size": 7} for name in ("time", "height", "width")},
        height=380,
    )
    code = f"""
positions = posenc.rope.qwen2_vl_positions({before}, ({frames}, {height}, {width}), {after})  # (3, T)
data = positions.T  # one column per axis: time, height, width
"""
    layout.chart(fig, key="images_mrope", filename="images_mrope_positions", code=code)
    fig = figcache.figure(
        figures.heatmap,
        out["axis_of_pair"],
        y=["time", "height", "width"],
        title="Which position turns each of Qwen2-VL's 64 frequency pairs",
        x_title="pair i (fast to slow)",
        y_title="",
        x_name="pair",
        y_name="axis",
        value_name="turned by this axis",
        colorbar_title="used",  # short: a phone's colour bar has room for little beside its ticks
        signed=False,
        value_format=".0f",
        height=230,
    )
    code = """
axis = np.repeat(np.arange(3), [16, 24, 24])  # Qwen2-VL's mrope_section
data = (axis[None, :] == np.arange(3)[:, None]).astype(float)  # rows: time, height, width
"""
    layout.chart(fig, key="images_sections", filename="images_mrope_sections", code=code)
    resume = before + max(frames, height, width)
    layout.notice(
        f"the {before} text tokens count up on all three axes at once, which makes M-RoPE plain RoPE for text. "
        f"The patches of one temporal patch (2 frames in Qwen2-VL) share its time position, and take row and "
        f"column from {before} on. The text "
        f"after the image resumes at {resume}, one past the largest position the image used, not at "
        f"{before + frames * height * width}: an image costs max(t, h, w) positions, not t·h·w. The fast pairs "
        "follow time and the slow ones space."
    )


@LESSON.view("nope", "No positions (NoPE, iRoPE)")
def nope() -> None:
    state.sidebar().header("Layers")
    n_layers = state.int_slider("layers", "Layers", 4, 128, 48, help="Llama 4 Scout: 48 layers.")
    interval = state.int_slider(
        "interval", "One NoPE layer every", 1, 8, compute.LLAMA4_NOPE_INTERVAL, container=layout.key_control()
    )
    st.latex(
        r"\text{NoPE: } a_{tj} = \mathrm{softmax}_{j \le t}\Big(\frac{q_t \cdot k_j}{\sqrt{d_h}}\Big)"
        r"\qquad \allowbreak \text{equal scores} \Rightarrow a_{tj} = \frac{1}{t+1}"
    )
    summary = experiment.summary_for(*compute.EXPERIMENT_DEFAULTS)
    methods = list(summary["accuracy"])
    first, last = summary["lengths"][0], summary["lengths"][-1]
    fig = figcache.figure(
        figures.grouped_bars,
        [claims.NAMES[m] for m in methods],
        {
            f"trained length ({first})": [np.nan if a[0] is None else a[0] for a in summary["accuracy"].values()],
            f"8x ({last})": [np.nan if a[-1] is None else a[-1] for a in summary["accuracy"].values()],
        },
        title="Copy the token 3 places back: accuracy with each kind of position (the experiments page's run)",
        x_title="method",
        y_title="accuracy",
        value_format=".0%",
        y_range=(0.0, 1.05),
        height=380,
    )
    code = f"""from pathlib import Path

# the experiments page's stored run, in the posenc-lab folder; to train it again (about 10 s; the
# last digits depend on the CPU's BLAS kernels):
# run = posenc.experiment.run_experiment(posenc.experiment.ExperimentConfig(task="copy", train_len=32,
#     d_model=32, steps=300, seed=0, offset=3))
stored = np.load(Path(posenc_lab.__file__).parent / "lessons" / "experiments" / "data" / "experiment_copy.npz")
methods = {methods!r}
data = np.array([[stored["accuracy_" + m][0], stored["accuracy_" + m][-1]] for m in methods])  # (methods, 2)
"""
    layout.chart(fig, key="images_nope", filename="images_nope_accuracy", code=code)
    layers = compute.irope_layers(n_layers, interval)
    fig = figcache.figure(
        figures.heatmap,
        layers,
        y=["RoPE?"],
        title=f"{n_layers} layers, {compute.every(interval)} without positions: 1 = RoPE, 0 = NoPE",
        x_title="layer",
        y_title="",
        x_name="layer",
        y_name="",
        value_name="uses RoPE (1) or no positions (0)",
        signed=False,
        value_format=".0f",
        height=200,
        # two kinds of layer, two colours: a continuous bar from 0 to 1 read as if a layer
        # could half use RoPE
        after=[
            (
                "update_traces",
                dict(
                    zmin=0,
                    zmax=1,
                    colorscale=[[0, NOPE_COLOUR], [0.5, NOPE_COLOUR], [0.5, ROPE_COLOUR], [1, ROPE_COLOUR]],
                    colorbar=dict(tickvals=[0.25, 0.75], ticktext=["NoPE", "RoPE"], title=dict(text="layer")),
                ),
            )
        ],
    )
    code = f"""
types = posenc.rope.irope_layer_types({n_layers}, {interval})  # Llama 4: interval 4
data = np.array([[1.0 if t == "rope" else 0.0 for t in types]])
"""
    layout.chart(fig, key="images_irope", filename="images_irope_layers", code=code)
    none, chance = summary["accuracy"]["none"][0], summary["chance"]
    layout.notice(
        f"with no positions at all the model reaches {none:.0%} at its training length, {none / chance:.1f} "
        f"times the {chance:.0%} of a guess: under a causal mask a token sees how many tokens come before it "
        "(its attention is spread over fewer), and from that a model can rebuild positions (Haviv et al. 2022; "
        f"Kazemnejad et al. 2023). Llama 4 leans on this: it drops RoPE in "
        f"{compute.every(compute.LLAMA4_NOPE_INTERVAL)}, and these layers can attend across the whole context "
        "without RoPE's rotations, which it pairs with chunked local attention in the RoPE layers. Here, "
        f"{compute.nope_count_sentence(layers, interval)}."
    )
