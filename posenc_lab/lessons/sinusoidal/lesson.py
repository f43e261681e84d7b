"""Lesson: the sinusoidal encoding of Vaswani et al. (2017)."""

import numpy as np
import streamlit as st

import posenc
from posenc_lab import figures
from posenc_lab.lessons.sinusoidal import exercises as sinusoidal_exercises
from posenc_lab.ui import compute, controls, figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Sinusoidal encoding",
    "sinusoidal",
    question="How do sines and cosines of many wavelengths give every position a unique, shiftable code?",
    icon=":material/waves:",
    exercises=sinusoidal_exercises.EXERCISES,
    skills=sinusoidal_exercises.SKILLS,
    polls=sinusoidal_exercises.POLLS,
    largest={"d_model": "1024", "n": "4096", "anchor": "4095", "k": "512", "p": "4095"},
)


def encoding_args(d_model: int, base: float, pe_layout: str) -> str:
    """The encoding's arguments as the "Show the code" snippets write them."""
    return f"{d_model}, base={base!r}, layout={pe_layout!r}"


def layout_help(d_model: int, base: float) -> str:
    """The layout control's help: who uses which layout, and how far tensor2tensor's frequencies are."""
    ratio = posenc.absolute.tensor2tensor_frequencies(d_model, base) / posenc.sinusoid_frequencies(d_model, base)
    pair = int(np.argmax(np.abs(ratio - 1)))  # (D/2,) -> the pair where they differ most
    gap = abs(ratio[pair] - 1)
    how_far = (
        f"For d_model = {d_model} and base {base:,.0f} theirs are up to {gap:.1%} "
        f"{'lower' if ratio[pair] < 1 else 'higher'} (pair {pair}{', the slowest' if pair == ratio.size - 1 else ''})."
        if gap > 1e-12
        else f"For d_model = {d_model} the two agree."
    )
    return (
        "The paper interleaves sines and cosines. tensor2tensor and fairseq concatenate them (all sines, then all "
        "cosines), and with other frequencies: base^(−i/(d/2 − 1)) instead of base^(−2i/d). "
        + how_far
        + " This switch changes only the column order; the frequencies stay the paper's."
    )


@LESSON.intro
def intro() -> dict:
    """The lead, the encoding every view shares, and its formula."""
    more = layout.lesson(
        "Sinusoidal encoding",
        "The original Transformer adds a fixed vector to each word's embedding: sines and "
        "cosines of the position at wavelengths from about 6 positions up to about 60,000. "
        "Fast waves tell neighbours apart, slow waves tell the beginning from the end, and "
        "together they give every position its own code, with no parameter to learn.",
    )

    state.sidebar().header("Encoding")
    d_model = controls.d_model(container=layout.key_control())
    n = controls.n_positions()
    base = controls.base()
    pe_layout = state.choice(
        "layout",
        "Layout",
        list(posenc.SINUSOIDAL_LAYOUTS),
        "interleaved",
        labels={"interleaved": "sin, cos, sin, cos (paper)", "concat": "all sin, then all cos"},
        horizontal=False,
        help=layout_help(d_model, base),
    )

    layout.lesson_formula(
        r"PE_{(p,\,2i)} = \sin\!\left(\frac{p}{\text{base}^{2i/d}}\right),\qquad "
        r"PE_{(p,\,2i+1)} = \cos\!\left(\frac{p}{\text{base}^{2i/d}}\right)",
        more,
    )
    if pe_layout == "concat":
        st.caption("Concatenated layout: column i holds the sine of pair i, column d/2 + i its cosine.")

    return {"d_model": d_model, "n": n, "base": base, "pe_layout": pe_layout}


@LESSON.view("heatmap", "Heatmap")
def heatmap(d_model: int, n: int, base: float, pe_layout: str) -> None:
    pe_args = encoding_args(d_model, base, pe_layout)
    table, shown_pos, shown_dims, steps = compute.sinusoid_grid(n, d_model, base, pe_layout)
    notes = (figures.mean_of(steps[0], "position"), figures.every_nth(steps[1], "dimension"))
    thinned = ", ".join(note for note in notes if note)
    fig = figcache.figure(
        figures.heatmap,
        table,
        x=shown_dims,
        y=shown_pos,
        title=f"Positional encodings, {n} positions x {d_model} dimensions" + (f" ({thinned})" if thinned else ""),
        x_title="dimension",
        y_title="position p" + (f" (first of {steps[0]})" if steps[0] > 1 else ""),
        x_name="dimension",
        y_name="position" if steps[0] == 1 else f"mean of {steps[0]} positions from",
        value_name="PE",
        row_noun="position",
        col_noun="dimension",
        # presenter mode enlarges a chart by 1.3: 520 px from below the key controls, the
        # formula and the view picker would put the x axis under a projector's 1080 px
        height=400 if layout.presenting() else 520,
    )
    if steps[0] > 1:
        code = f"""
pe = posenc.sinusoidal({n}, {pe_args})[:, ::{steps[1]}]  # (T, D): the dimensions drawn
starts = np.arange(0, {n}, {steps[0]})  # row i: the mean of positions starts[i] to starts[i] + {steps[0] - 1}
data = np.add.reduceat(pe, starts, axis=0) / np.diff(np.append(starts, {n}))[:, None]
"""
    else:
        code = f"""
pe = posenc.sinusoidal({n}, {pe_args})  # (T, D)
data = pe[:, ::{steps[1]}]  # the dimensions drawn
"""
    layout.chart(fig, key="sin_heatmap", filename="sinusoidal_heatmap", code=code)
    if steps[0] > 1:
        st.caption(
            f"{n} positions are more than the chart's rows of pixels: each row is the mean of {steps[0]} "
            f"positions, so a dimension whose wave is shorter than {steps[0]} positions averages out near 0 "
            "(every k-th position alone would draw it as slow stripes that are not there)."
        )
    elif steps[1] > 1:
        st.caption(f"Showing {figures.every_nth(steps[1], 'dimension')} so the picture fits a screen.")
    layout.notice(
        "on the left the columns flicker from row to row (short wavelengths); to the right "
        "they change so slowly that they look constant. No two rows are the same."
    )


@LESSON.view("waves", "Waves")
def waves(d_model: int, n: int, base: float, pe_layout: str) -> None:
    half = d_model // 2  # sin/cos pairs
    pe_args = encoding_args(d_model, base, pe_layout)
    state.sidebar().header("Waves")
    default_dims = [d for d in (0, 1, 2 * (half // 4), 2 * (half // 2)) if d < d_model]
    dims = state.int_list("dims", "Dimensions to plot", list(range(d_model)), default_dims, max_selections=6)
    columns = compute.sinusoid_columns(n, d_model, base, pe_layout, tuple(dims))
    # drawn as curves between whole positions too (the formula holds for any p); the table,
    # its downloads and the code are the values at whole positions
    x, curves = compute.sinusoid_curves(n, d_model, base, pe_layout, tuple(dims))
    fig = figcache.figure(
        figures.line_chart,
        x,
        {f"dim {d}": curves[:, j] for j, d in enumerate(dims)},
        title="Each dimension is a wave over positions",
        x_title="position p",
        y_title="PE value",
        x_name="position",
        value_name="PE",
        height=460,
    )
    code = f"""
pe = posenc.sinusoidal({n}, {pe_args})  # (T, D), positions 0..{n - 1}
data = pe[:, {list(dims)}]  # the dimensions plotted, one column per line
"""
    layout.chart(fig, key="sin_waves", filename="sinusoidal_waves", code=code, data=columns)
    layout.notice(
        "dimension 0 is sin(p): it repeats every 2 pi = 6.28 positions. Higher dimensions are "
        "slower copies. A sine and the cosine beside it share a wavelength, a quarter turn apart."
    )


@LESSON.view("wavelengths", "Wavelengths")
def wavelengths(d_model: int, n: int, base: float, pe_layout: str) -> None:
    half = d_model // 2  # sin/cos pairs
    lam = posenc.wavelengths(d_model, base)
    fig = figcache.figure(
        figures.line_chart,
        np.arange(half),
        {"wavelength": lam},
        title="Wavelength of each sin/cos pair (log scale)",
        x_title="pair index i (dimensions 2i and 2i + 1)",
        y_title="wavelength (positions)",
        x_name="pair",
        value_name="wavelength",
        value_format=",.1f",
        log_y=True,
        styles={"wavelength": {"mode": "lines+markers", "size": 5}},
        height=440,
        after=[
            ("add_hline", dict(y=n, line=dict(color="#D55E00", dash="dash"))),
            # an annotation on a log axis is placed in log10 units (a shape in data units): with
            # y=n the label sat at 10^n and stretched the axis to 10^264
            (
                "add_annotation",
                dict(
                    x=1,
                    xref="x domain",
                    xanchor="right",
                    y=float(np.log10(n)),
                    yanchor="bottom",
                    text=f"{n} positions shown",
                    showarrow=False,
                ),
            ),
        ],
    )
    code = f"""
# wavelength 2 pi base**(2i/d) of each sin/cos pair i, in positions
data = posenc.wavelengths({d_model}, base={base!r})  # (D/2,)
"""
    layout.chart(fig, key="sin_wavelengths", filename="sinusoidal_wavelengths", code=code)
    st.latex(r"\lambda_i = 2\pi \cdot \text{base}^{2i/d}")
    longer = int((lam > n).sum())
    layout.notice(
        f"a straight line on a log axis: wavelengths grow geometrically from 2 pi to "
        f"{lam[-1]:,.0f} positions. {longer} of {half} pairs have a wavelength longer than the "
        f"{n} positions shown, so within this range they never repeat."
    )


@LESSON.view("clock", "Binary clock")
def clock(d_model: int, n: int, base: float, pe_layout: str) -> None:
    pe_args = encoding_args(d_model, base, pe_layout)
    positions, bits, signs, pairs = compute.sinusoid_binary_clock(n, d_model, base, pe_layout)
    fig = figcache.figure(
        figures.binary_clock,
        positions,
        bits,
        signs,
        bit_labels=[f"2^{b}" for b in range(bits.shape[1])],
        sign_labels=[f"pair {i}" for i in pairs],
        height=600,
    )
    sine_cols = "2 * pairs" if pe_layout == "interleaved" else "pairs"
    code = f"""
positions = np.arange({positions.size})
# left panel: binary digits of each position, the ones place first
bits = (positions[:, None] >> np.arange({bits.shape[1]})) & 1
# right panel: the sign of sin(p * w_i) for {pairs.size} pairs, fast to slow (sin 0 counts as +)
pairs = np.array({pairs.tolist()})
pe = posenc.sinusoidal(positions, {pe_args})  # (T, D)
signs = np.where(pe[:, {sine_cols}] >= 0, 1, -1)  # the sine columns of those pairs
data = np.hstack([bits, signs])  # both panels side by side
"""
    layout.chart(fig, key="sin_clock", filename="sinusoidal_binary_clock", code=code, data=np.hstack([bits, signs]))
    layout.notice(
        "like binary counting, the first columns flip often and later ones rarely. Unlike a "
        "binary counter, the waves change smoothly, so nearby positions get nearby codes, and "
        "their wavelengths are not powers of two."
    )


@LESSON.view("similarity", "Similarity")
def similarity(d_model: int, n: int, base: float, pe_layout: str) -> None:
    pe_args = encoding_args(d_model, base, pe_layout)
    state.sidebar().header("Similarity")
    metric = state.choice("metric", "Measure", list(posenc.SIMILARITY_METRICS), "dot")
    anchor = state.int_slider(
        "anchor", "Compare with position", 0, n - 1, min(32, n - 1), container=layout.key_control()
    )
    matrix, shown, curve, row_step = compute.sinusoid_similarity(n, d_model, base, pe_layout, metric, anchor)
    what = "PE[p] . PE[q]" if metric == "dot" else "cos(PE[p], PE[q])"
    left, right = layout.columns([5, 6])
    fig = figcache.figure(
        figures.heatmap,
        matrix,
        x=shown,
        y=shown,
        title=f"Similarity of every pair of positions: {what}",
        x_title="position q",
        y_title="position p",
        x_name="q",
        y_name="p",
        value_name=metric,
        row_noun="position",
        col_noun="position",
        height=480,
    )
    # the heatmap keeps every col_step-th column when the positions are too many for its width
    col_step = figures.display_steps(shown.size, shown.size)[1]
    code = f"""
positions = np.arange(0, {n}, {row_step})  # the positions drawn
pe = posenc.sinusoidal(positions, {pe_args})
data = posenc.position_similarity(pe, metric={metric!r})  # (T, T)
"""
    if col_step > 1:
        code += f"data = data[:, ::{col_step}]  # {figures.every_nth(col_step, 'column')}, as drawn\n"
    with left:
        layout.chart(fig, key="sin_similarity", filename="sinusoidal_similarity", code=code)
    fig = figcache.figure(
        figures.line_chart,
        np.arange(n),
        {f"similarity to position {anchor}": curve},
        title=f"Similarity of every position to position {anchor}",
        x_title="position p",
        y_title=metric,
        x_name="position",
        value_name=metric,
        vlines={f"p = {anchor}": anchor},
        height=480,
    )
    code = f"""
# positions 0..{n - 1}
pe = posenc.sinusoidal({n}, {pe_args})
# row {anchor} of the similarity matrix: every position against position {anchor}
data = posenc.similarity_to_position(pe, {anchor}, metric={metric!r})  # (T,)
"""
    with right:
        layout.chart(fig, key="sin_similarity_curve", filename="sinusoidal_similarity_curve", code=code)
    layout.notice(
        "the pattern is the same along every diagonal: the dot product of two positions "
        "depends only on their distance (it is a sum of cos((p - q) w_i)). It peaks at the "
        "position itself and falls, with ripples, as the distance grows; it cannot tell left from right."
    )


@LESSON.view("shift", "Shift = rotation")
def shift(d_model: int, n: int, base: float, pe_layout: str) -> None:
    pe_args = encoding_args(d_model, base, pe_layout)
    state.sidebar().header("Shift")
    k = state.int_slider("k", "Offset k", 0, 512, 5, container=layout.key_control())
    p = state.int_slider("p", "Start position p", 0, n - 1, min(10, n - 1))
    shift = compute.sinusoid_shift(n, d_model, base, pe_layout, k, p)
    st.latex(
        r"\begin{pmatrix}\sin((p+k)\omega_i)\\ \cos((p+k)\omega_i)\end{pmatrix} = "
        r"\begin{pmatrix}\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i\end{pmatrix}"
        r"\begin{pmatrix}\sin p\omega_i\\ \cos p\omega_i\end{pmatrix}"
        r"\quad\Longrightarrow\quad PE_{p+k} = PE_p\, M_k^\top"
    )
    left, right = layout.columns([2, 3])
    labels = [str(d) for d in shift["dims"]]
    fig = figcache.figure(
        figures.heatmap,
        shift["corner"],
        x=labels,
        y=labels,
        title=f"M_k for k = {k}, first {len(labels) // 2} pairs",
        x_title="input dimension",
        y_title="output dimension",
        x_name="input dim",
        y_name="output dim",
        value_name="M_k",
        zmax=1.0,
        height=440,
    )
    code = f"""
# M_k (D, D): PE[p + {k}] = PE[p] @ M_k.T for every p
m_k = posenc.rotation_matrix({k}, {pe_args})
dims = {shift["dims"].tolist()}  # the first {len(labels) // 2} sin/cos pairs
data = m_k[np.ix_(dims, dims)]
"""
    with left:
        layout.chart(fig, key="sin_mk", filename="sinusoidal_rotation_matrix", code=code)
    fig = figcache.figure(
        figures.line_chart,
        np.arange(d_model),
        {f"PE[{p + k}]": shift["actual"], f"PE[{p}] @ M_k.T": shift["predicted"]},
        title=f"PE[{p}] rotated by M_k lands on PE[{p + k}]",
        x_title="dimension",
        y_title="PE value",
        x_name="dimension",
        value_name="value",
        styles={f"PE[{p}] @ M_k.T": {"mode": "markers", "size": 6, "symbol": "x"}},
        height=440,
    )
    code = f"""
m_k = posenc.rotation_matrix({k}, {pe_args})  # (D, D)
positions = np.array([{p}, {p + k}], dtype=float)  # p and p + k
pe = posenc.sinusoidal(positions, {pe_args})
# the line PE[{p + k}] and the crosses PE[{p}] @ M_k.T
data = np.stack([pe[1], pe[0] @ m_k.T], axis=1)  # (D, 2)
"""
    with right:
        layout.chart(fig, key="sin_shift_overlay", filename="sinusoidal_shift", code=code)
    st.metric(f"Largest |PE[p] Mₖᵀ − PE[p+k]| over p = 0..{n - 1}", f"{shift['error']:.1e}")
    layout.notice(
        "M_k is made of 2x2 rotations and contains no p: one matrix moves every position k "
        "steps on. The crosses sit on the line to rounding error. This is what the paper "
        "means by 'PE[p+k] is a linear function of PE[p]', and the seed of RoPE."
    )
