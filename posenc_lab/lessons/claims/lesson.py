"""Lesson: common claims about word order in Transformers, each settled by a live measurement."""

import re

import numpy as np
import streamlit as st

from posenc_lab import figures
from posenc_lab.lessons.claims import compute
from posenc_lab.lessons.claims import exercises as claims_exercises
from posenc_lab.ui import controls, figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Common claims, measured",
    "claims",
    question="Which common claims about word order in Transformers hold up when you measure them?",
    icon=":material/fact_check:",
    exercises=claims_exercises.EXERCISES,
    skills=claims_exercises.SKILLS,
    polls=claims_exercises.POLLS,
    largest={
        "tokens": "64",
        "d_model": "256",
        "draw": "99",
        "n": "1024",
        "base": "1000000",
        "offset": "64",
        "head_dim": "256",
        "span": "512",
        "kernel_len": "128",
        "sigma": "2",
        "heads": "64",
        "shaw_k": "64",
        "context": "4096",
        "cost_len": "8192",
    },
)

#: session key: the snippets shown beside numbers (not charts) on this run, key -> (code, data)
NUMBER_CODES = "_claims_number_code"
ICONS = {compute.HOLDS: ":material/check_circle:", compute.FALSE: ":material/cancel:", compute.HALF: ":material/rule:"}
#: drawn below this on a log axis (exact zeros included)
FLOOR = 1e-17
#: the stored run's settings as a snippet writes them (after ``task=``)
RUN_FIELDS = ", ".join(f"{name}={value}" for name, value in compute.RUN.items())


# controls: each view draws the ones it uses; a value is shared by every view that has it


def d_model(container=None) -> int:
    return state.int_slider(
        "d_model",
        "d_model (model width)",
        4,
        256,
        128,
        step=2,
        help="Even: sines and cosines come in pairs.",
        container=container,
    )


def positions(container=None) -> int:
    return state.int_slider("n", "Positions n (the window 0..n-1)", 64, 1024, 100, container=container)


def offset() -> int:
    return state.int_slider("offset", "Offset k", 1, 64, 5, help="A common check uses k = 5: PE[0], PE[5], PE[10].")


def draw(container=None) -> int:
    return state.int_slider(
        "draw",
        "Random draw (seed)",
        0,
        99,
        0,
        help="Picks the random inputs; the verdicts hold for every draw.",
        container=container,
    )


def head_dim(container=None) -> int:
    return state.int_slider(
        "head_dim", "Head size Dh", 2, 256, 64, step=2, help="Even: RoPE turns pairs.", container=container
    )


def heads(container=None) -> int:
    return state.int_slider("heads", "Heads H", 1, 64, 12, container=container)


def shaw_k(container=None) -> int:
    return state.int_slider(
        "shaw_k", "Shaw's clipping distance K", 1, 64, 16, help="Offsets beyond K share an entry.", container=container
    )


def tokens(container=None) -> int:
    return state.int_slider("tokens", "Tokens T", 2, 64, 6, container=container)


def span(container=None) -> int:
    return state.int_slider("span", "Distances m - n shown", 8, 512, 64, container=container)


def kernel_len() -> int:
    return state.int_slider("kernel_len", "Positions in the kernel matrices", 8, 128, 32)


def sigma(container=None) -> float:
    return state.float_slider("sigma", "RBF width sigma", 0.5, 2.0, 1.0, step=0.25, container=container)


def context(container=None) -> int:
    return state.int_slider("context", "Training length L", 16, 4096, 1024, step=16, container=container)


def settings() -> dict:
    """Every control, for the overview."""
    state.sidebar().header("Settings of every measurement")
    return dict(
        tokens=tokens(),
        # the two a teacher moves in front of the room: the width, and the random draw the verdicts survive
        d_model=d_model(container=layout.key_control()),
        draw=draw(container=layout.key_control()),
        n=positions(),
        base=controls.base(),
        offset=offset(),
        head_dim=head_dim(),
        span=span(),
        kernel_len=kernel_len(),
        sigma=sigma(),
        heads=heads(),
        shaw_k=shaw_k(),
        context=context(),
    )


# a claim's block: heading, figure, verdict, why


def md(text: str) -> str:
    """Computed text as literal Markdown (no emphasis, links, maths or HTML)."""
    return re.sub(r"([\\`*_\[\]$#|<>~])", r"\\\1", text)


def heading(key: str) -> None:
    claim = compute.CLAIMS[key]
    st.subheader(f"{claim.number}. “{md(claim.text)}”", anchor=f"claim-{claim.number}")


def verdict(finding: compute.Finding, why: str) -> None:
    """The verdict line, the numbers it was read from, and why."""
    st.markdown(f"{ICONS[finding.verdict]} **Verdict: {finding.verdict}.** {md(finding.statement)}")
    if finding.part:
        st.caption(f"**True in part:** {md(finding.part)}; the claim as stated is not.")
    if not finding.cited:
        st.caption(f"**Measured now:** {md(finding.measured)}")
    st.caption(f"**Why:** {md(why)}")


def numbers_code(key: str, code: str, data) -> None:
    """The "Show the code" expander of numbers printed outside a chart, as ``layout.chart`` has one."""
    st.session_state.setdefault(NUMBER_CODES, {})[key] = (code, np.asarray(data, dtype=np.float64))
    # drawn only while open, as a chart's "Data and code" (layout._data_and_code)
    with st.expander(
        "Show the code", icon=":material/code:", key=f"{layout.DATA_AND_CODE}{key}", on_change="rerun", expanded=False
    ) as more:
        if more.open:
            st.code(layout.code_prelude(code) + code.strip() + "\n", language="python", wrap_lines=True)


def run_code(task: str) -> str:
    """The snippet lines that make the stored run's configuration and open its file."""
    return f"""from pathlib import Path

# the experiments page's stored default run (tools/precompute_experiment.py), installed with the app
stored = np.load(Path(posenc_lab.__file__).parent / "lessons" / "experiments" / "data" / "experiment_{task}.npz")
cfg = posenc.experiment.ExperimentConfig(task={task!r}, {RUN_FIELDS})
"""


def stored_model(method: str) -> str:
    """The snippet lines that rebuild a stored trained model (after ``run_code``)."""
    prefix = f"param_{method}_"
    return f"""params = {{k.removeprefix({prefix!r}): stored[k] for k in stored.files if k.startswith({prefix!r})}}
# the trained model, as posenc.experiment.train(cfg, {method!r}) made it
model = posenc.experiment.TrainResult(params, stored["losses_{method}"])
"""


@LESSON.intro
def intro() -> dict:
    """The lead; the settings are each view's own."""
    st.session_state[NUMBER_CODES] = {}
    layout.lesson(
        "Common claims, measured",
        "Explanations of position in Transformers repeat some claims that hold, some that hold in part "
        "and some that are false. Here each one is tested live: the claim as it is usually put, the "
        "measurement that settles it (with the code), a verdict read off the numbers, and why. Change the "
        f"settings above each chart or in {layout.SIDE_PANEL}: the verdicts are recomputed, never written "
        "in advance.",
    )
    return {}


# attention and order


@LESSON.view("order", "Attention and order")
def order() -> None:
    state.sidebar().header("Attention")
    count = tokens(container=layout.key_control())
    width = d_model()
    seed = draw(container=layout.key_control())
    heading("order")
    r = compute.order(count, width, seed)
    fig = figcache.figure(
        figures.grouped_bars,
        ["outputs", "attention weights"],
        {
            "unchanged? |f(PX) - f(X)|": [r.out_invariance, r.weights_invariance],
            "permuted? |f(PX) - P f(X)|": [r.out_equivariance, r.weights_equivariance],
        },
        title=f"Reorder {count} random inputs: largest difference from the unmoved and from the permuted result",
        x_title="what is compared",
        y_title="max |difference| (log scale)",
        log_y=True,
        y_range=(FLOOR, 1e3),
        show_values=True,
        value_format=".1e",
        height=380,
    )
    code = f"""
r = claims.attention_order_errors({count}, {width}, seed={seed})  # one head, random X (T, D)
# rows: outputs, weights; columns: against f(X) unmoved, against P f(X) (weights: P W P^T)
data = np.array([[r.out_invariance, r.out_equivariance], [r.weights_invariance, r.weights_equivariance]])
"""
    layout.chart(fig, key="claims_order", filename="claims_order", code=code)
    st.latex(
        r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X)\quad\text{(equivariant)},\qquad "
        r"\mathrm{Attn}(PX) \ne \mathrm{Attn}(X)"
    )
    verdict(
        compute.finding_order(count, width, seed),
        "the scores of PX are P (X W_Q)(X W_K)^T P^T and softmax works row by row, so every output moves "
        "with its input row and nothing else changes. 'Invariant' would mean the outputs stay where they were; "
        f"what is invariant is a symmetric summary such as the mean of the outputs (measured change "
        f"{compute.e(r.pooled_invariance)}).",
    )
    layout.notice(
        "the right-hand bars sit at rounding level (about 1e-16) for every T, width and draw, the left-hand "
        "ones at the size of the outputs. Explanations that say 'invariant' usually go on to describe "
        "equivariance ('the same output, just shuffled')."
    )


# the sinusoid


@LESSON.view("sinusoids", "Sinusoids")
def sinusoids() -> None:
    state.sidebar().header("Sinusoid")
    width = d_model(container=layout.key_control())
    n = positions(container=layout.key_control())
    base = controls.base()
    k = offset()
    seed = draw()
    args = f"{width}, base={base!r}"
    st.latex(
        r"PE_{(p,\,2i)} = \sin(p\,\omega_i),\quad PE_{(p,\,2i+1)} = \cos(p\,\omega_i),\quad "
        r"\omega_i = \text{base}^{-2i/d}"
    )
    dim0_block(n, width, base, args)
    lowfreq_block(width, base, args)
    linear_block(n, width, base, k, seed, args)
    orthogonal_block(n, width, base, args)
    differences_block(width, base, k, args)
    found = [
        compute.finding_dim0(n, width, base),
        compute.finding_lowfreq(width, base),
        compute.finding_linear(n, width, base, k, seed),
        compute.finding_orthogonal(n, width, base),
        compute.finding_differences(width, base, k),
    ]
    tally = ", ".join(f"{sum(f.verdict == v for f in found)} {v}" for v in (compute.HOLDS, compute.HALF, compute.FALSE))
    layout.notice(
        f"of the five claims about the sinusoid, at these settings: {tally}. {half_true(found)}Every verdict "
        "comes with a number you can recompute with the code."
    )


def half_true(found: list[compute.Finding]) -> str:
    """The sentence naming what holds of each half-true claim, or nothing when none is."""
    parts = [f.part for f in found if f.verdict == compute.HALF]
    if not parts:
        return ""
    return f"True in part: {'; '.join(parts)}. "


def dim0_block(n: int, width: int, base: float, args: str) -> None:
    heading("dim0")
    counts, shown = compute.dim0(n, width, base)
    fig = figcache.figure(
        figures.line_chart,
        np.arange(shown.size),
        {"PE[p, 0] = sin(p)": shown},
        title=f"Dimension 0 at positions 0..{shown.size - 1}",
        x_title="position p",
        y_title="PE[p, 0]",
        x_name="position",
        value_name="PE",
        styles={"PE[p, 0] = sin(p)": {"mode": "lines+markers", "size": 7}},
        height=320,
        after=[("add_hline", dict(y=0, line=dict(color="#777", dash="dot")))],
    )
    code = f"""
counts = claims.sign_changes({n}, {args})  # sign changes over positions 0..{n - 1}
data = posenc.sinusoidal({shown.size}, {args})[:, 0]  # dimension 0 at the positions drawn
"""
    layout.chart(fig, key="claims_dim0", filename="claims_dim0", code=code)
    verdict(
        compute.finding_dim0(n, width, base),
        "with i = 0 the angle is p itself, 1 radian per position, and a sine keeps its sign for pi radians: "
        "runs of three or four positions of one sign. A flip at every step would need pi radians per position.",
    )


def lowfreq_block(width: int, base: float, args: str) -> None:
    heading("lowfreq")
    lam = compute.wavelengths(width, base)
    fig = figcache.figure(
        figures.line_chart,
        np.arange(lam.size),
        {"wavelength": lam},
        title="Wavelength of each sin/cos pair (log scale)",
        x_title="pair index i (dimensions 2i and 2i + 1)",
        y_title="wavelength (positions)",
        x_name="pair",
        value_name="wavelength",
        value_format=",.1f",
        log_y=True,
        height=320,
    )
    code = f"""
data = posenc.wavelengths({args})  # 2 pi base^(2i/d) for each pair i, in positions
"""
    layout.chart(fig, key="claims_lowfreq", filename="claims_wavelengths", code=code)
    verdict(
        compute.finding_lowfreq(width, base),
        "omega_i = base^(-2i/d) is largest at i = 0. The texts that get this wrong confuse the index of a "
        "dimension with its frequency; the texts that call dimensions 0-1 'high frequency' are right.",
    )


def linear_block(n: int, width: int, base: float, k: int, seed: int, args: str) -> None:
    heading("linear")
    r = compute.linear(n, width, base, k, seed)
    names = ("best linear map of [PE(p), PE(k)]", f"M_k PE(p), k = {k}", "angle-addition formula")
    fig = figcache.figure(
        figures.line_chart,
        np.arange(width),
        dict(zip(names, (compute.floor(v, FLOOR) for v in (r.concat, r.fixed_k, r.bilinear)), strict=True)),
        title=f"Largest error per dimension when PE(p + k) is written three ways ({r.n_pairs} pairs p, k < {n})",
        x_title="dimension",
        y_title="max |error| (log scale)",
        x_name="dimension",
        value_name="error",
        value_format=".1e",
        log_y=True,
        height=360,
    )
    code = f"""
r = claims.shift_linearity({n}, {args}, k={k}, seed={seed})
# least-squares affine map of [PE(p), PE(k), 1]; one matrix M_k; sin(a + b) = sin a cos b + cos a sin b
data = np.maximum(np.column_stack([r.concat, r.fixed_k, r.bilinear]), {FLOOR!r})  # zeros drawn at {FLOOR:g}
"""
    layout.chart(fig, key="claims_linear", filename="claims_linear", code=code)
    verdict(
        compute.finding_linear(n, width, base, k, seed),
        "sin(a + b) = sin a cos b + cos a sin b multiplies entries of PE(p) by entries of PE(k). Fix k and the "
        "cos b, sin b are constants: a matrix M_k. No matrix of the pair can make products; the slowest "
        "dimensions come close only because there sin x is nearly x.",
    )


def orthogonal_block(n: int, width: int, base: float, args: str) -> None:
    heading("orthogonal")
    r = compute.orthogonal(n, width, base)
    fig = figcache.figure(
        figures.line_chart,
        np.arange(r.sin_neighbours.size),
        {"sine columns of pairs i, i + 1": r.sin_neighbours, "cosine columns of pairs i, i + 1": r.cos_neighbours},
        title=f"Cosine similarity of neighbouring columns over positions 0..{n - 1}",
        x_title="pair index i",
        y_title="cosine similarity",
        x_name="pair",
        value_name="cosine",
        value_format=".6f",
        height=340,
    )
    code = f"""
r = claims.neighbour_column_cosines({n}, {args})  # the columns of PE over positions 0..{n - 1}
data = np.column_stack([r.sin_neighbours, r.cos_neighbours])  # r.max_off_diagonal: the worst pair of columns
"""
    layout.chart(fig, key="claims_orthogonal", filename="claims_orthogonal", code=code)
    slowest = compute.wavelengths(width, base)[-1]
    verdict(
        compute.finding_orthogonal(n, width, base),
        "two sines are orthogonal over a window that holds whole periods of both. Here the slowest pair's "
        f"wavelength is {slowest:,.0f} positions against a window of {n}: where a wavelength is much longer "
        "than the window, the column barely turns within it, and neighbouring columns point the same way.",
    )


def differences_block(width: int, base: float, k: int, args: str) -> None:
    heading("differences")
    r = compute.differences(width, base, k)
    fig = figcache.figure(
        figures.line_chart,
        np.arange(width),
        {
            f"equal differences: |(PE[{2 * k}] - PE[{k}]) - (PE[{k}] - PE[0])|": compute.floor(
                r.equal_differences, FLOOR
            ),
            f"rotation: PE[{2 * k}] = PE[{k}] M_k^T and PE[{k}] = PE[0] M_k^T": compute.floor(r.rotation, FLOOR),
        },
        title=f"Two checks of a correct sinusoid, k = {k}",
        x_title="dimension",
        y_title="|error| (log scale)",
        x_name="dimension",
        value_name="error",
        value_format=".1e",
        log_y=True,
        height=360,
    )
    code = f"""
r = claims.difference_check({k}, {args})  # positions 0, {k}, {2 * k}
data = np.maximum(np.column_stack([r.equal_differences, r.rotation]), {FLOOR!r})  # zeros drawn at {FLOOR:g}
"""
    layout.chart(fig, key="claims_differences", filename="claims_differences", code=code)
    verdict(
        compute.finding_differences(width, base, k),
        "the relative property says one rotation moves every position k steps on. Rotating a point twice by "
        "the same angle does not add equal vectors (it moves along a circle, not a line), so equal differences "
        f"fail. {compute.difference_peak(width, base, k)}",
    )


# RoPE


@LESSON.view("rope", "Rotary scores")
def rope() -> None:
    state.sidebar().header("RoPE's score")
    dh = head_dim(container=layout.key_control())
    reach = span(container=layout.key_control())
    base = controls.base()
    seed = draw()
    st.latex(
        r"\langle R_m q,\, R_n k\rangle = \mathrm{Re}\sum_i \tilde q_i\,\overline{\tilde k_i}\,"
        r"e^{\mathrm{i}(m-n)\theta_i},\qquad \tilde q_i = q_{2i} + \mathrm{i}\,q_{2i+1}"
    )
    rope_long_block()
    rope_factor_block(dh, reach, base, seed)
    found = {
        "rope_long": compute.finding_rope_long(),
        "rope_factor": compute.finding_rope_factor(dh, base, seed, reach),
    }
    layout.notice(rope_notice(found))


def rope_notice(found: dict[str, compute.Finding]) -> str:
    """What the two RoPE verdicts say together, read off the verdicts themselves."""
    said = []
    for key, f in found.items():
        claim = compute.CLAIMS[key]
        said.append(f"claim {claim.number} is {f.verdict}" + (f" (true in part: {f.part})" if f.part else ""))
    return (
        f"{' and '.join(said)}. Both rest on the same measured fact, a score that depends on the positions only "
        "through m - n (at rounding level, twice on this page); it neither carries a model to any length nor "
        "makes the score q.k times a function of the distance."
    )


def rope_long_block() -> None:
    heading("rope_long")
    r = compute.rope_run()
    lengths = np.asarray(r["lengths"])
    series = {"RoPE, copy task": np.asarray(r["accuracy"], dtype=float), "chance": np.full(lengths.size, r["chance"])}
    fig = figcache.figure(
        figures.line_chart,
        lengths,
        series,
        title=f"RoPE trained at {lengths[0]} tokens, tested longer (the experiments page's stored run)",
        x_title="test length (tokens, log scale)",
        y_title="accuracy",
        x_name="test length",
        value_name="accuracy",
        value_format=".1%",
        log_x=True,
        styles={"RoPE, copy task": {"mode": "lines+markers", "size": 9}, "chance": {"dash": "dot", "color": "#777"}},
        vlines={"training length": float(lengths[0])},
        height=340,
        after=[("update_xaxes", dict(tickvals=lengths.tolist())), ("update_yaxes", dict(range=[0, 1.15]))],
    )
    code = (
        run_code("copy")
        + """lengths = stored["lengths"]  # 1, 2, 4 and 8 times the training length
data = np.column_stack([stored["accuracy_rope"], np.full(len(lengths), stored["chance"])])  # with chance
# to train it again (about 2 s; another CPU may flip one test sequence in thousands):
# model = posenc.experiment.train(cfg, "rope")
# [posenc.experiment.evaluate(model, cfg, "rope", int(n)) for n in lengths]
"""
    )
    layout.chart(fig, key="claims_rope_long", filename="claims_rope_long", code=code)
    st.metric(
        f"Largest change of the trained RoPE model's scores when a phrase moves {compute.RUN_SHIFT} places",
        compute.e(r["shift_error"]),
    )
    numbers_code(
        "claims_rope_shift",
        run_code("copy")
        + stored_model("rope")
        + f"""tokens = np.random.default_rng(cfg.seed).integers(0, cfg.vocab, 12)  # the phrase
at_0 = posenc.experiment.attention_scores(model, cfg, "rope", tokens, 0)  # (heads, 12, 12)
moved = posenc.experiment.attention_scores(model, cfg, "rope", tokens, {compute.RUN_SHIFT})
data = np.abs(moved - at_0).max()
""",
        r["shift_error"],
    )
    verdict(
        compute.finding_rope_long(),
        "relative scores make a phrase look the same wherever it stands, but a longer input brings larger "
        "distances m - n and so rotation angles the model never met in training. Extending RoPE's reach takes "
        "changes such as position interpolation or YaRN (the RoPE lesson).",
    )


def rope_factor_block(dh: int, reach: int, base: float, seed: int) -> None:
    heading("rope_factor")
    r = compute.rope_factor(dh, base, seed, reach)
    names = ("pair A (q.k = 1)", "pair B (q.k = 1)", "pair C (q.k = 0)")
    fig = figcache.figure(
        figures.line_chart,
        r.distances,
        dict(zip(names, r.scores, strict=True)),
        title=f"RoPE scores of three (q, k) pairs against m - n, Dh = {dh}",
        x_title="m - n",
        y_title="score <R_m q, R_n k>",
        x_name="m - n",
        value_name="score",
        value_format=".3f",
        height=360,
    )
    code = f"""
r = claims.rope_factorisation({dh}, base={base!r}, reach={reach}, seed={seed}, shift={compute.ROPE_SHIFT})
data = r.scores.T  # (m - n, pair): A and B have q.k = 1, C has q.k = 0 (r.dots)
"""
    layout.chart(fig, key="claims_rope_factor", filename="claims_rope_factor", code=code)
    verdict(
        compute.finding_rope_factor(dh, base, seed, reach),
        "each pair of dimensions turns at its own speed theta_i, so each pair's share of q.k gets its own "
        "phase. If the score were q.k f(m - n), pairs A and B would draw one curve and pair C would stay at 0. "
        "The exact statement: the score is some function g(q, k, m - n).",
    )


# biases


@LESSON.view("biases", "Biases")
def biases() -> None:
    state.sidebar().header("Biases")
    h = heads(container=layout.key_control())
    rbf_width = sigma(container=layout.key_control())
    length = kernel_len()
    dh = head_dim()
    seed = draw()
    k = shaw_k()
    st.latex(
        r"b_{\text{KERPLE}} = -r_1\log(1 + r_2|m-n|)\ \text{or}\ -r_1|m-n|^{r_2},\qquad "
        r"k_{\text{RBF}} = e^{-|m-n|^2/2\sigma^2}"
    )
    kerple_block(length, rbf_width)
    deberta_block(dh, seed)
    alibi_slopes_block(h)
    alibi_long_block()
    t5_block(k)
    layout.notice(
        "each bias claim confuses two things that are easy to tell apart once measured: a CPD kernel and a "
        "PD one, sqrt(d) and sqrt(3d), a power of two and any H, perplexity and accuracy, a clipped table "
        "and logarithmic buckets."
    )


def kerple_block(length: int, rbf_sigma: float) -> None:
    heading("kerple")
    r = compute.kernels(length, rbf_sigma)
    r1, r2_log, r2_pow = compute.KERPLE_R1, compute.KERPLE_R2_LOG, compute.KERPLE_R2_POWER
    names = (
        f"KERPLE log, r1 = {r1:g}, r2 = {r2_log:g}",
        f"KERPLE power, r1 = {r1:g}, r2 = {r2_pow:g}",
        f"RBF, sigma = {rbf_sigma:g}",
    )
    fig = figcache.figure(
        figures.line_chart,
        r.distance,
        dict(zip(names, r.profiles, strict=True)),
        title="The kernels against the distance |m - n|",
        x_title="|m - n|",
        y_title="kernel value (bias)",
        x_name="distance",
        value_name="value",
        value_format=".3f",
        height=340,
    )
    kernel_args = f"{length}, sigma={rbf_sigma!r}, r1={r1!r}, r2_log={r2_log!r}, r2_power={r2_pow!r}"
    code = f"""
r = claims.kernel_comparison({kernel_args})
data = r.profiles.T  # (distance, kernel): KERPLE log, KERPLE power, RBF
"""
    layout.chart(fig, key="claims_kerple", filename="claims_kerple", code=code)
    layout.table(
        [
            {
                "kernel": name.split(",")[0],
                f"smallest eigenvalue ({length} positions)": f"{lo:.3g}",
                "smallest on vectors summing to 0": f"{cpd:.3g}",
            }
            for name, lo, cpd in zip(names, r.min_eigenvalue, r.min_sum_zero, strict=True)
        ],
    )
    numbers_code(
        "claims_kerple_eigen",
        f"""
r = claims.kernel_comparison({kernel_args})
data = np.column_stack([r.min_eigenvalue, r.min_sum_zero])  # rows: KERPLE log, KERPLE power, RBF
""",
        np.column_stack([r.min_eigenvalue, r.min_sum_zero]),
    )
    verdict(
        compute.finding_kerple(length, rbf_sigma),
        "KERPLE (Chi et al. 2022) needs kernels that stay meaningful at any distance: its biases keep falling "
        "(log or power of |m - n|), and a CPD kernel only has to be positive on sum-zero vectors, because "
        "softmax ignores the constant that would make it PD. An RBF flattens to 0 a few sigma away. The "
        "boundary case: at r2 = 2, the top of the power variant's range, softmax turns the bias -r1|m - n|^2 "
        "into the factor exp(-r1|m - n|^2), a Gaussian RBF; below 2 that factor is not Gaussian.",
    )


def deberta_block(dh: int, seed: int) -> None:
    heading("deberta")
    r = compute.deberta(dh, seed)
    fig = figcache.figure(
        figures.grouped_bars,
        ["content only / sqrt(d)", "c2c + c2p + p2c / sqrt(d)", "c2c + c2p + p2c / sqrt(3d)"],
        {"std of the logits": [r.c2c_sqrt_d, r.sum_sqrt_d, r.sum_sqrt_3d]},
        title=f"Spread of the logits for unit-variance inputs, d = {dh}",
        x_title="logit",
        y_title="standard deviation",
        show_values=True,
        value_format=".2f",
        height=340,
    )
    code = f"""
# {compute.DEBERTA_TOKENS} queries and keys, {2 * compute.DEBERTA_SPAN} relative rows, N(0, 1), deberta_scores
r = claims.deberta_scale({dh}, n_tokens={compute.DEBERTA_TOKENS}, span={compute.DEBERTA_SPAN}, seed={seed})
data = np.array([r.c2c_sqrt_d, r.sum_sqrt_d, r.sum_sqrt_3d])
"""
    layout.chart(fig, key="claims_deberta", filename="claims_deberta", code=code)
    verdict(
        compute.finding_deberta(dh, seed),
        "a dot product of two d-vectors of unit-variance entries has variance d; sqrt(d) brings one back to "
        "1. DeBERTa adds three such terms that do not move together, variance 3d, hence sqrt(3d); with "
        "sqrt(d) the softmax would see logits sqrt(3) times too spread.",
    )


def alibi_slopes_block(h: int) -> None:
    heading("alibi_slopes")
    r = compute.slopes(h)
    fig = figcache.figure(
        figures.grouped_bars,
        [str(i) for i in range(1, h + 1)],
        {"Press et al.'s get_slopes": r["reference"], "2^(-8h/H)": r["naive"]},
        title=f"ALiBi's slope per head, H = {h} (log scale)",
        x_title="head h",
        y_title="slope m_h",
        log_y=True,
        value_format=".4g",
        height=340,
    )
    code = f"""
data = np.column_stack([posenc.alibi_slopes({h}), claims.naive_alibi_slopes({h})])  # (H, 2)
wrong_for = claims.heads_where_naive_slopes_differ({compute.HEADS_CHECKED})  # H = 1..{compute.HEADS_CHECKED}
"""
    layout.chart(fig, key="claims_alibi_slopes", filename="claims_alibi_slopes", code=code)
    verdict(
        compute.finding_alibi_slopes(h),
        "Press et al. chose 2^(-8/H), 2^(-16/H), ..., 2^-8 for H a power of two. "
        f"{compute.slope_range(h)} The formula alone would spread the slopes differently.",
    )


def alibi_long_block() -> None:
    heading("alibi_long")
    r = compute.alibi_long()
    lengths = np.asarray(r["lengths"])
    series = {f"ALiBi, {task} task": np.asarray(acc, dtype=float) for task, acc in r["accuracy"].items()}
    series.update({f"chance, {task}": np.full(lengths.size, c) for task, c in r["chance"].items()})
    styles = {name: {"mode": "lines+markers", "size": 9} for name in series if name.startswith("ALiBi")}
    styles.update({name: {"dash": "dot"} for name in series if name.startswith("chance")})
    fig = figcache.figure(
        figures.line_chart,
        lengths,
        series,
        title=f"ALiBi trained at {lengths[0]} tokens, tested up to {lengths[-1]} ({lengths[-1] // lengths[0]}x)",
        x_title="times the training length (log scale)",
        y_title="accuracy",
        x_name="test length",
        value_name="accuracy",
        value_format=".1%",
        log_x=True,
        styles=styles,
        vlines={"training length": float(lengths[0])},
        height=360,
        # multiples as tick labels: 256 and 320 tokens sit too close on a phone for the numbers
        after=[
            ("update_xaxes", dict(tickvals=lengths.tolist(), ticktext=[f"{n // lengths[0]}x" for n in lengths])),
            ("update_yaxes", dict(range=[0, 1.15])),
        ],
    )
    code = f"""
from pathlib import Path

lengths = {lengths.tolist()}
accuracy, chance = [], []
for task in ("copy", "marker"):
    # the experiments page's stored default run (tools/precompute_experiment.py), installed with the app
    stored = np.load(Path(posenc_lab.__file__).parent / "lessons" / "experiments" / "data" / f"experiment_{{task}}.npz")
    cfg = posenc.experiment.ExperimentConfig(task=task, {RUN_FIELDS})
    params = {{k.removeprefix("param_alibi_"): stored[k] for k in stored.files if k.startswith("param_alibi_")}}
    model = posenc.experiment.TrainResult(params, stored["losses_alibi"])  # or posenc.experiment.train(cfg, "alibi")
    accuracy.append([posenc.experiment.evaluate(model, cfg, "alibi", n) for n in lengths])
    chance.append(1 / cfg.vocab if task == "copy" else 1 / cfg.n_markers)
data = np.column_stack([*accuracy, *(np.full(len(lengths), c) for c in chance)])
"""
    layout.chart(fig, key="claims_alibi_long", filename="claims_alibi_long", code=code)
    st.caption(
        "The models are the experiments page's stored default runs (trained at "
        f"{lengths[0]} tokens), evaluated just now at each length, {lengths[-1]} tokens included."
    )
    verdict(
        compute.finding_alibi_long(),
        "Press et al. trained language models on WikiText-103 at L = 512 or 1024 tokens and measured perplexity "
        "on longer validation inputs, where ALiBi's did not degrade (their Figure 1); a 1.3B model trained at "
        "1024 matched at 2048 a sinusoidal model trained at 2048. Perplexity rewards using recent context, "
        "which ALiBi's penalty favours; copying from an exact offset needs a peak at that offset.",
    )


def t5_block(k: int) -> None:
    heading("t5")
    r = compute.t5_entries(k)
    fig = figcache.figure(
        figures.line_chart,
        r["distances"],
        {
            f"T5 ({compute.T5_BUCKETS} buckets, max_distance {compute.T5_MAX_DISTANCE})": r["t5"],
            f"Shaw et al., K = {k}": r["shaw"],
        },
        title="Which entry of the table a key d places back reads",
        x_title="distance d (key behind the query)",
        y_title="entry, counted from d = 0",
        x_name="distance",
        value_name="entry",
        value_format="d",
        height=340,
    )
    code = f"""
distances, t5, shaw = claims.entry_by_distance({compute.ENTRY_REACH}, {k})  # T5: posenc.t5_bucket(-d)
widths = claims.t5_bucket_widths()  # distances per T5 bucket, nearest first
data = np.column_stack([t5, shaw])
"""
    layout.chart(fig, key="claims_t5", filename="claims_t5_vs_shaw", code=code)
    verdict(
        compute.finding_t5(k),
        "Shaw et al. clip the offset to [-K, K]: 2K + 1 entries, one per offset, the farthest shared. T5 spends "
        f"its {r['widths'].n_buckets} learned scalars (per head, shared by every layer) unevenly: every distance "
        f"below {r['widths'].exact} has its own, farther ones share ever wider buckets (Raffel et al. 2019, "
        "sec. 2.1).",
    )


# parameters


@LESSON.view("parameters", "Counting parameters")
def parameters() -> None:
    state.sidebar().header("Parameters")
    length = context(container=layout.key_control())
    h = heads(container=layout.key_control())
    dh = head_dim()
    k = shaw_k()
    st.latex(
        r"\underbrace{L\,d}_{\text{learned}}\quad \underbrace{2(2K+1)D_h}_{\text{Shaw}}\quad "
        r"\underbrace{32\,H}_{\text{T5}}\quad \underbrace{d^2 + 2d}_{\text{Transformer-XL}}\quad "
        r"\underbrace{0}_{\text{ALiBi, RoPE}}"
    )
    params_block(length, dh, h, k)
    layout.notice(
        "the bars for L and for 8L differ only for the learned absolute table and for a Shaw table that is "
        "not clipped: a relative method indexes by offset, and clipping or bucketing caps the offsets."
    )
    sources_block()


def sources_block() -> None:
    heading("sources")
    st.markdown(
        ":material/menu_book: **This one is a citation, not a measurement:** what a published model used is "
        "read in its paper, and no computation here could show it."
    )
    st.markdown(
        "- **GPT-1** (Radford et al. 2018, *Improving Language Understanding by Generative Pre-Training*, "
        "sec. 4.1): learned position embeddings, used instead of the sinusoidal version of the original "
        "Transformer.\n"
        "- **T5** (Raffel et al. 2019, arXiv:1910.10683, sec. 2.1): no position vectors at all; a learned "
        "scalar per relative-position bucket and head is added to the attention logits, shared by the layers."
    )
    verdict(
        compute.finding_sources(),
        "the sinusoid of Vaswani et al. 2017 came first, and many explanations carry it forward; GPT-1 and BERT "
        "(Devlin et al. 2018) learned their position tables instead, and T5 put position into the logits, as "
        "the biases of the Biases view do.",
    )


def params_block(context: int, dh: int, h: int, k: int) -> None:
    heading("params")
    r = compute.parameters(context, dh, h, k)
    methods = list(r["short"])
    long = compute.GROWTH * context
    fig = figcache.figure(
        figures.grouped_bars,
        [compute.NAMES[m] for m in methods],
        {f"L = {context}": [r["short"][m] for m in methods], f"L = {long}": [r["long"][m] for m in methods]},
        title=f"Learned position parameters, H = {h}, Dh = {dh}, d = {h * dh} (log scale; 0 at the bottom)",
        x_title="method",
        y_title="parameters",
        log_y=True,
        y_range=(0.5, 10 * max(max(r["long"].values()), 1)),
        show_values=True,
        value_format=",.0f",
        height=400,
    )
    code = f"""
kw = dict(max_distance={k})  # Shaw's K; T5 has 32 buckets
short = claims.relative_parameter_counts({context}, {dh}, {h}, **kw)  # L = {context}
long = claims.relative_parameter_counts({long}, {dh}, {h}, **kw)  # L = {long}
data = np.array([[short[m], long[m]] for m in claims.PARAMETER_METHODS])  # (methods, 2)
"""
    layout.chart(fig, key="claims_params", filename="claims_parameters", code=code)
    verdict(
        compute.finding_params(context, dh, h, k),
        "per layer for Shaw (tables a^K and a^V shared by the heads), KERPLE (r1, r2 per head) and "
        "Transformer-XL (W_R, and u and v: one pair for the whole model only when untie_r is off, as in its "
        "PyTorch reference code; its TF scripts for WikiText-103 and XLNet's pretraining turn untie_r on, and "
        "each layer has its own pair; one layer's count is d^2 + 2d either way); T5's table serves all layers, "
        "the learned table the whole model. The O(L) cost belongs to absolute tables and to an unclipped relative "
        "table (2L - 1 offsets); clipping, buckets or a formula remove it.",
    )


# who uses what


def cost_len(container=None) -> int:
    return state.int_slider("cost_len", "Sequence length T", 16, 8192, 4096, step=16, container=container)


@LESSON.view("models", "Who uses what")
def models() -> None:
    state.sidebar().header("Myths")
    length = cost_len(container=layout.key_control())
    dh = head_dim(container=layout.key_control())
    h = heads()
    st.latex(
        r"\underbrace{2 \cdot 3\,T D_h}_{\text{RoPE: turn } q \text{ and } k} \quad\text{vs}\quad "
        r"\underbrace{T^2 (2 D_h - 1)}_{\text{scores } QK^\top}"
    )
    m = compute.myths(length, dh, h)
    cost = m["cost"]
    costs = compute.rope_costs(dh)
    fig = figcache.figure(
        figures.line_chart,
        np.array(compute.COST_LENGTHS),
        {"RoPE's rotation of q and k": costs["rotation"], "the scores Q K^T": costs["scores"]},
        title=f"Operations of one head, Dh = {dh}: RoPE's rotation against the scores it feeds",
        x_title="tokens T (log scale)",
        y_title="multiplies and adds (log scale)",
        x_name="T",
        value_name="operations",
        value_format=",.0f",
        log_x=True,
        log_y=True,
        styles={name: {"mode": "lines+markers"} for name in ("RoPE's rotation of q and k", "the scores Q K^T")},
        vlines={f"T = {length:,}": length},
        height=400,
    )
    code = f"""
lengths = 2 ** np.arange(4, 18)  # 16 to 131,072 tokens
counts = [claims.rope_operation_counts(int(t), {dh}) for t in lengths]
data = np.array([[c.rotation, c.scores] for c in counts], dtype=float)  # (lengths, 2)
"""
    layout.chart(fig, key="claims_rope_cost", filename="claims_rope_cost", code=code)
    slopes = ", ".join(f"{x:.3g}" for x in m["slopes"][:3]) + (
        f", ..., {m['slopes'][-1]:.3g}" if len(m["slopes"]) > 3 else ""
    )
    twice = m["lengths"][1]
    at_twice = ", ".join(f"{compute.LONG_METHODS[k]} {compute.pct(v[1])}" for k, v in m["accuracy"].items())
    trained_at = ", ".join(f"{compute.LONG_METHODS[k]} {compute.pct(v[0])}" for k, v in m["accuracy"].items())
    layout.table(
        [
            {
                "Claim": "Most open LLMs use RoPE.",
                "What is known": "GPT-J, GPT-NeoX, LLaMA, Mistral and Qwen use RoPE; BLOOM and MPT use ALiBi; BERT, "
                "GPT-2 and OPT learned tables (the home page's table). 'Most' is a count over a list of models "
                "nobody has fixed.",
                "Measured here": "nothing: a citation, not a measurement",
            },
            {
                "Claim": "GPT-4, Claude and Gemini use RoPE (or ALiBi, or ...).",
                "What is known": "Nobody outside their makers knows: none of them has published its position "
                "encoding, and GPT-4's technical report withholds its architecture.",
                "Measured here": "nothing can be",
            },
            {
                "Claim": "ALiBi adds h scalars, one per head.",
                "What is known": "It adds no parameters: its h slopes are fixed by the number of heads "
                f"({compute.slope_sequences(h)}) and never trained.",
                "Measured here": f"learned parameters: {m['alibi_params']}; slopes for H = {h}: {slopes}",
            },
            {
                "Claim": "The field converged on relative positions for length generalisation.",
                "What is known": "RoPE, which the open decoders above use most, is relative in its scores, yet "
                "RoPE alone does not carry a model past its training length: long-context models are extended "
                "with a larger base, PI, YaRN or Llama 3's scaling, and a fine-tune (Code Llama, Llama 3.1, "
                "Qwen2).",
                "Measured here": f"copy task trained at {m['lengths'][0]} tokens ({trained_at}); at {twice}: "
                f"{at_twice} (chance {compute.pct(m['chance'])})",
            },
            {
                "Claim": "RoPE is expensive.",
                "What is known": "It turns each query and key once, elementwise: 2 multiplies and 1 add per "
                "element, linear in T, while the scores it feeds grow as T².",
                "Measured here": f"T = {length:,}, Dh = {dh}: {cost.rotation:,} operations against "
                f"{cost.scores:,} for the scores ({cost.ratio:.2%})",
            },
            {
                "Claim": "RoPE cannot be used with linear attention.",
                "What is known": "Su et al. 2021 (sec. 3.3) combine them: rotate the feature maps of q and k, "
                "leave the normaliser unrotated; the sums run over n once, as linear attention needs.",
                "Measured here": f"running-sum form against the T x T form, T = {compute.LINEAR_LEN}, "
                f"Dh = {compute.LINEAR_DH}: largest difference {m['linear_gap']:.1e}",
            },
        ]
    )
    st.caption(
        "The accuracies are the experiments page's stored one-layer models, a toy: they show that a relative "
        "method can fail past its training length, not how large models behave. The operation counts leave out "
        "the cosines and sines (made once per position, shared by every head and layer) and count every (query, "
        "key) pair; a causal mask halves the scores, not their growth."
    )
    layout.notice(
        f"at T = {length:,} RoPE's rotation is {cost.ratio:.2%} of the arithmetic of the scores, (3 / T) x 2 Dh / "
        "(2 Dh - 1) exactly, a little over 3 / T: the longer the text, the smaller its share. ALiBi's learned "
        f"parameters are {m['alibi_params']} at H = {h}; "
        f"its {h} slope{'s are' if h > 1 else ' is'} computed, not trained. What closed models use is not "
        "published, so no table, this one included, can say."
    )


# the overview


@LESSON.view("overview", "All claims")
def overview() -> None:
    s = settings()
    st.latex(r"\text{error} = \max\,\lvert\,\text{left-hand side} - \text{right-hand side}\,\rvert")
    board = compute.scoreboard(s)
    fig = figcache.figure(
        figures.grouped_bars,
        list(board),
        {
            "the claim as stated": [a for a, _ in board.values()],
            "the precise statement": [b for _, b in board.values()],
        },
        title="The identities: error of the claim against error of the precise statement",
        x_title="claim",
        y_title="error (log scale)",
        log_y=True,
        y_range=(FLOOR, 1e4),
        show_values=True,
        value_format=".1e",
        height=400,
    )
    code = f"""
order = claims.attention_order_errors({s["tokens"]}, {s["d_model"]}, seed={s["draw"]})
shift = claims.shift_linearity({s["n"]}, {s["d_model"]}, base={s["base"]!r}, k={s["offset"]}, seed={s["draw"]})
diff = claims.difference_check({s["offset"]}, {s["d_model"]}, base={s["base"]!r})
rope = claims.rope_factorisation(
    {s["head_dim"]}, base={s["base"]!r}, reach={s["span"]}, seed={s["draw"]}, shift={compute.ROPE_SHIFT}
)
data = np.array([
    [order.out_invariance, order.out_equivariance],
    [shift.concat.max(), max(shift.fixed_k.max(), shift.bilinear.max())],
    [diff.equal_differences.max(), diff.rotation.max()],
    [max(rope.spread, rope.orthogonal), rope.shift_error],
])
"""
    layout.chart(fig, key="claims_overview", filename="claims_overview", code=code)
    found = compute.findings(s)
    layout.table(
        [
            {
                # "(1)", not "1.": a cell starting "1." is drawn as a numbered list
                "Claim": f"({compute.CLAIMS[key].number}) {compute.CLAIMS[key].text}",
                "Measured now": f.measured,
                "Verdict": f"{f.verdict}: {f.statement}",
            }
            for key, f in found.items()
        ],
    )
    st.subheader("The experiments page's claims, on its stored default run")
    layout.table(compute.experiment_table())
    counts = {v: sum(f.verdict == v for f in found.values()) for v in (compute.HOLDS, compute.HALF, compute.FALSE)}
    layout.notice(
        f"at these settings {counts[compute.FALSE]} claims are false, {counts[compute.HALF]} half true and "
        f"{counts[compute.HOLDS]} hold as stated. On the chart, each claim's error is of the size of the "
        "numbers involved, its precise statement's error is rounding."
    )
