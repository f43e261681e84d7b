"""Lesson: rotary position embedding (RoPE, Su et al. 2021), its pairings, its context
extensions (PI, NTK, YaRN, Llama 3) and xPos."""

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import streamlit as st

import posenc
from posenc_lab import figures
from posenc_lab.lessons.rope import compute as compute_rope
from posenc_lab.lessons.rope import exercises as rope_exercises
from posenc_lab.lessons.rope import figures as rope_figures
from posenc_lab.lessons.rope import measure as rope_lessons
from posenc_lab.ui import controls, figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "RoPE",
    "rope",
    question="How does rotating queries and keys make attention depend on distance only, "
    "and how do NTK and YaRN stretch it?",
    icon=":material/rotate_right:",
    exercises=rope_exercises.EXERCISES,
    skills=rope_exercises.SKILLS,
    polls=rope_exercises.POLLS,
    largest={
        "dh": "256",
        "n": "4096",
        "s": "2048",
        "anim_frames": "64",
        "step": "5000",
        "samples": "5000",
        "reach": "65536",
        "factor": "32",
    },
    # "p" is the sinusoid's start position, "frames" the frames of a video (images)
    renamed={"p": "p_rope", "frames": "anim_frames"},
)


@LESSON.intro
def intro() -> dict:
    """The lead, the head width and base every view shares, and RoPE's formula."""
    more = layout.lesson(
        "RoPE: rotary position embedding",
        "RoPE adds nothing to the word vectors. It **rotates** each query and key instead: the "
        "dimensions are taken in pairs, and pair i of the vector at position m is turned by the "
        "angle $m\\theta_i$, fast for the first pairs and slow for the last. A rotation keeps lengths, "
        "and the dot product of two rotated vectors sees only the difference of their angles, "
        "$(m - n)\\theta_i$: attention learns how far apart two words are, not where they are. "
        "GPT-J, GPT-NeoX, LLaMA, Mistral and Qwen all work this way.",
    )
    state.sidebar().header("RoPE")
    head_dim = state.int_slider(
        "dh", "head_dim (width of one head)", 4, 256, 64, step=2, help="Even: dimensions are rotated in pairs."
    )
    base = controls.base()
    layout.lesson_formula(
        r"\begin{pmatrix} q'_{2i} \\ q'_{2i+1} \end{pmatrix} = "
        r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}"
        r"\begin{pmatrix} q_{2i} \\ q_{2i+1} \end{pmatrix},\qquad \theta_i = \text{base}^{-2i/d_h},"
        r"\qquad q'_m \cdot k'_n = \mathrm{Re}\sum_{i} \tilde q_i\, \overline{\tilde k_i}\, e^{\,i (m-n)\theta_i}",
        more,
    )
    more.caption(
        r"$\tilde q_i = q_{2i} + i\,q_{2i+1}$ is pair $i$ read as a complex number; $d_h$ is head_dim. "
        r"Only $m - n$ is left in the score."
    )
    return {"head_dim": head_dim, "base": base}


@LESSON.view("rotation", "Rotation")
def rotation(head_dim: int, base: float) -> None:
    half = head_dim // 2  # pairs
    state.sidebar().header("Animation")
    default_pairs = sorted({0, half // 4, half // 2, half - 1})
    pairs = sorted(
        state.int_list(
            "pairs",
            "Pairs to show (up to 4)",
            list(range(half)),
            default_pairs,
            max_selections=4,
            help="Pair 0 turns fastest; the last pair slowest.",
        )
    )
    n_frames = state.int_slider("anim_frames", "Frames", 8, rope_figures.MAX_FRAMES, 48)
    step = int(
        state.choice_slider(
            "step",
            "Positions per frame",
            (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000),
            1,
            fmt=lambda v: f"{v:,.0f}",
            help="Larger steps make the slow pairs move, and the fast ones jump.",
            container=layout.key_control(),
        )
    )
    gap = state.int_slider("gap", "Key sits r positions before the query", 0, 64, 2, container=layout.key_control())
    frames = compute_rope.rotation_frames(head_dim, base, tuple(pairs), n_frames, step, gap, 0)
    fig = figcache.figure(
        rope_figures.rotation_animation,
        frames["q_xy"],
        frames["k_xy"],
        frames["angles"],
        frames["shares"],
        frames["m"],
        frames["n"],
        pairs,
        frames["theta"],
        title=f"Pairs of q (solid) and k (dashed) as the position advances (head_dim {head_dim}, r = {gap})",
        # a projector is wide: one row of planes; a phone fits two a row
        per_row=4 if layout.presenting() else 2,
    )
    code = f"""
q, _ = rope_lessons.random_query_key({head_dim}, seed=0)  # the word; the key holds the same content
n = np.arange({n_frames}) * {step}  # key position in each frame
m = n + {gap}  # query position: r = {gap} positions later
q_xy, angles = rope_lessons.pair_trajectory(q, m, {pairs!r}, base={base!r})  # (F, P, 2), (F, P)
k_xy, _ = rope_lessons.pair_trajectory(q, n, {pairs!r}, base={base!r})
shares = rope_lessons.pair_scores(q, q, m, n, base={base!r})[:, {pairs!r}]  # each pair's share of q.k
data = angles  # (frames x pairs) angle m * theta_i of q, in radians
"""
    layout.chart(fig, key="rope_rotation", filename="rope_rotation", code=code, data=frames["angles"])
    st.caption(
        "Press Play, or step frame by frame with the buttons (Tab reaches them; the arrow keys step). "
        "The key holds the same content as the query (the same word, "
        f"r = {gap} positions earlier); the dots mark where q's tip is in every frame."
    )
    fast, slow = pairs[0], pairs[-1]
    theta_fast, theta_slow = frames["theta"][0], frames["theta"][-1]
    span = (n_frames - 1) * step
    turns = span * frames["theta"] / (2 * math.pi)
    speeds = (
        f"pair {fast} turns {math.degrees(theta_fast):.3g}° per position and makes {turns[0]:,.3g} turns over these "
        f"{span:,} positions"
        if len(pairs) == 1
        else f"pair {fast} turns {math.degrees(theta_fast):.3g}° per position and pair {slow} only "
        f"{math.degrees(theta_slow):.3g}°: over these {span:,} positions the first makes {turns[0]:,.3g} turns, "
        f"the last {turns[-1]:.3g}"
    )
    layout.notice(
        f"{speeds}. Both arrows of a plane turn together, so the angle between them stays r·θ_i and the pair's "
        "share of q·k, printed under each plane, is the same in every frame."
    )


@LESSON.view("relative", "Only m - n matters")
def relative(head_dim: int, base: float) -> None:
    state.sidebar().header("Scores")
    n = controls.n_positions(default=128, container=layout.key_control())
    seed = state.int_slider("seed", "Seed of q and k", 0, 99, 0)
    shift = state.int_slider("s", "Shift both positions by s", 0, 2048, 10, container=layout.key_control())
    contrast = state.toggle("added", "Beside it: the sinusoid added instead", True)
    rope_grid, added_grid, shown, stride = compute_rope.relative_grids(head_dim, base, n, seed, contrast)
    rope_err, added_err, window = compute_rope.shift_errors(head_dim, base, n, shift, seed)
    note = figures.every_nth(stride, "position")
    suffix = f" (showing {note})" if note else ""
    if contrast:
        fig = figcache.figure(
            figures.heatmap_panels,
            [rope_grid, added_grid],
            ["RoPE: rope(q, m) · rope(k, n)", "sinusoid added: (q + PE_m) · (k + PE_n)"],
            labels=[shown, shown],
            title=f"Score of one query at m and one key at n, head_dim {head_dim}{suffix}",
            x_title="key position n",
            y_title="query position m",
            x_name="n",
            y_name="m",
            value_name="score",
            height=520,
        )
    else:
        fig = figcache.figure(
            figures.heatmap,
            rope_grid,
            x=shown,
            y=shown,
            title=f"RoPE score rope(q, m) · rope(k, n), head_dim {head_dim}{suffix}",
            x_title="key position n",
            y_title="query position m",
            x_name="n",
            y_name="m",
            value_name="score",
            row_noun="position",
            col_noun="position",
            height=560,
        )
    code = f"""
q, k = rope_lessons.random_query_key({head_dim}, seed={seed})
positions = np.arange(0, {n}, {stride})  # the positions drawn
data = posenc.rope_scores(q, k, positions, positions, base={base!r})  # (m, n) RoPE scores
"""
    if contrast:
        code += f"""added = rope_lessons.added_scores(q, k, positions, positions, base={base!r})  # right panel
"""
    layout.chart(fig, key="rope_relative", filename="rope_relative", code=code)
    c1, c2 = st.columns(2)
    where = f", m, n < {window}" if window < n else ""
    c1.metric(
        f"RoPE: largest |S(m, n) − S(m + {shift}, n + {shift})|{where}",
        f"{rope_err:.1e}",
        help=f"over every m, n < {window}, measured with posenc.rope_shift_error",
    )
    if contrast:
        c2.metric(
            f"Sinusoid added: the same, s = {shift}{where}", f"{added_err:.3g}", help=f"over every m, n < {window}"
        )
    if shift == 0:
        moved = "Pick a shift s above 0 to move both words and measure the change."
    else:
        moved = f"Moving both words {shift} positions on changes it by at most {rope_err:.0e}, rounding error." + (
            f" With the sinusoid added instead, the same move changes scores by up to {added_err:.3g}: "
            "the terms q · PE_n and PE_m · k still know where the words are."
            if contrast
            else ""
        )
    layout.notice(
        "in RoPE's heatmap every diagonal (fixed m − n) keeps one colour: the score sees only the distance. " + moved
    )


@LESSON.view("decay", "Long-term decay")
def decay(head_dim: int, base: float) -> None:
    state.sidebar().header("Random q and k")
    rho = state.float_slider(
        "rho",
        "Correlation of k with q (rho)",
        0.0,
        1.0,
        0.0,
        step=0.05,
        help="0: independent; 1: k = q.",
        container=layout.key_control(),
    )
    n_samples = int(
        state.choice_slider(
            "samples", "Samples (q, k pairs)", (20, 50, 100, 200, 500, 1000, 2000, 5000), 2000, fmt=lambda v: f"{v:,}"
        )
    )
    seed = state.int_slider("seed", "Seed", 0, 99, 0)
    max_distance = int(
        state.choice_slider(
            "reach",
            "Largest distance",
            (256, 1024, 4096, 16384, 65536),
            4096,
            fmt=lambda v: f"{v:,}",
            container=layout.key_control(),
        )
    )
    out = compute_rope.decay(head_dim, base, max_distance, rho, n_samples, seed)
    summary = compute_rope.decay_summary(head_dim, base, max_distance)
    distances_code = f"""
# the bound at every distance 1..{max_distance:,}: its value at 1, its lowest, its largest climb back up
s = posenc.rope.rope_decay_summary({head_dim}, {max_distance}, {base!r})
# log-spaced distances 1..{max_distance:,}, plus 1, 2, 3 (the tutorial's table) and those the text names
distances = np.unique(np.geomspace(1, {max_distance}, 160).round().astype(np.int64))
distances = np.union1d(distances, [1, 2, 3, s.lowest_at, s.climb_from, s.climb_to])
"""
    left, right = layout.columns(2)
    fig = figcache.figure(rope_figures.decay_bound, out["distances"], out["bound"], height=430)
    with left:
        code = (
            distances_code
            + f"""data = posenc.rope_decay_bound({head_dim}, distances, {base!r})  # RoFormer's bound
"""
        )
        layout.chart(fig, key="rope_bound", filename="rope_decay_bound", code=code)
    root = math.sqrt(head_dim)
    fig = figcache.figure(
        rope_figures.score_spread,
        out["distances"],
        out["mean"],
        out["std"],
        reference=root,
        reference_label=f"√head_dim = {root:.2f}",
        title=f"Measured scores, {n_samples:,} random pairs, rho = {rho:g}",
        height=430,
    )
    with right:
        code = (
            distances_code
            + f"""mean, std = posenc.rope_score_stats(
    {head_dim}, distances, n_samples={n_samples}, rho={rho!r}, seed={seed}, base={base!r}
)
data = np.column_stack([distances, mean, std])  # the band is mean +- std
"""
        )
        spread = np.column_stack([out["distances"], out["mean"], out["std"]])
        layout.chart(fig, key="rope_spread", filename="rope_score_spread", code=code, data=spread)
    # the bound's formula under the charts: they come first, next to the controls that move them
    st.latex(
        r"|q'_m\cdot k'_n| \le \Big(\max_i |h_{i+1}-h_i|\Big) \sum_{j=1}^{d_h/2} |S_j|,\quad "
        r"S_j=\sum_{i<j} e^{\,i (m-n)\theta_i},\quad h_i = \tilde q_i \overline{\tilde k_i}"
    )
    tutorial = compute_rope.TUTORIAL_STD
    layout.table(
        {
            "distance m − n": list(tutorial),
            "std measured here": [f"{out['near'][d]:.2f}" for d in tutorial],
            "√head_dim": [f"{root:.2f}"] * len(tutorial),
            "a RoPE tutorial's table (head_dim 16)": [f"{v:.2f}" for v in tutorial.values()],
        }
    )
    mean_near, mean_far = out["mean"][0], out["mean"][-1]
    if rho == 0:
        mean_text = (
            f"With rho = 0 the mean stays near 0 (here {mean_near:.2f} at distance 1, {mean_far:.2f} at "
            f"{max_distance:,}); raise rho and it starts near rho·head_dim and falls with distance."
        )
    else:
        mean_text = (
            f"With k resembling q (rho = {rho:g}) the decay shows in the mean: {mean_near:.2f} at distance 1, "
            f"{mean_far:.2f} at {max_distance:,}."
        )
    tutorial_values = ", ".join(f"{v:.2f}" for v in tutorial.values())
    tutorial_at = ", ".join(map(str, tutorial))
    layout.notice(
        bound_text(summary, max_distance)
        + f" For independent q and k (rho = 0) the spread of the score stays at √head_dim = {root:.2f} at every "
        "distance, because rotating k does not change its spread. A popular RoPE tutorial prints a table of the "
        f"std of q·k for head_dim 16 at distances {tutorial_at}, each measured over a few dozen random pairs: "
        f"{tutorial_values}. It shows no decay either: its values scatter around √16 = {math.sqrt(16):g} by about "
        "as much as the std of a few dozen samples moves from seed to seed (try head_dim 16 with 50 samples and "
        "change the seed). " + mean_text
    )


def bound_text(summary: posenc.rope.DecaySummary, max_distance: int) -> str:
    """What RoFormer's bound does up to ``max_distance``, in the scan's own numbers."""
    edges = summary.band_edges
    bands = [
        f"{mean:.3g} over {lo:,}–{hi - 1:,}"
        for lo, hi, mean in zip(edges[:-1], edges[1:], summary.band_means, strict=True)
    ]
    steps = np.diff(summary.band_means)
    trend = (
        "it shrinks, with oscillations"
        if np.all(steps < 0)
        else "it shrinks overall, though not from every band to the next"
        if steps.sum() < 0
        else "it does not shrink at all here"
    )
    shrinks = f"Averaged over bands of distances {trend}: " + ", ".join(bands) + "." if len(bands) > 1 else ""
    lowest = f"its smallest value up to {max_distance:,} is {summary.lowest:.3g}, at r = {summary.lowest_at:,}"
    if summary.climb_high <= summary.climb_low:
        climb = f"Over these distances it never rises: {lowest}."
    elif summary.climb_from == summary.lowest_at:
        climb = (
            f"It is not monotone: {lowest}, and past that it climbs back to {summary.climb_high:.3g} at "
            f"r = {summary.climb_to:,}."
        )
    else:
        climb = (
            f"It is not monotone: it dips to {summary.climb_low:.3g} at r = {summary.climb_from:,} and is "
            f"back up to {summary.climb_high:.3g} at r = {summary.climb_to:,}; {lowest}."
        )
    return (
        f"the bound (left) is RoFormer's 'long-term decay': {summary.at_one:.3g} at distance 1. {shrinks} {climb} "
        "It is a ceiling on the score, not what a score does."
    )


@LESSON.view("layouts", "Pairings")
def layouts(head_dim: int, base: float) -> None:
    half = head_dim // 2  # pairs
    state.sidebar().header("Scores")
    n = controls.n_positions(default=256, container=layout.key_control())
    seed = state.int_slider("seed", "Seed of q and k", 0, 99, 0)
    out = compute_rope.layouts(head_dim, base, n, seed)
    fig = figcache.figure(
        rope_figures.pairing_map,
        {
            # short labels, two lines: a phone has no room for more beside the cells
            "interleaved<br>(RoFormer, GPT-J)": out["pairs"]["interleaved"],
            "half<br>(GPT-NeoX, LLaMA)": out["pairs"]["half"],
        },
        title=f"Which dimensions turn together (same colour = same pair), head_dim {head_dim}",
        height=260,
    )
    code = f"""
# the pair each dimension belongs to, one row per layout
interleaved = rope_lessons.dim_pairs({head_dim}, "interleaved")  # (q_2i, q_2i+1)
half = rope_lessons.dim_pairs({head_dim}, "half")  # (q_i, q_i+{half})
data = np.stack([interleaved, half])
"""
    layout.chart(fig, key="rope_pairing", filename="rope_pairing", code=code)
    st.latex(
        # \allowbreak: where a phone may wrap the line (posenc_lab/ui/app.css lets KaTeX's runs wrap)
        r"\text{interleaved: } (q_{2i},\, q_{2i+1}) \qquad\qquad \allowbreak \text{half: } (q_i,\, q_{i + d_h/2})"
        r"\qquad\qquad \allowbreak \text{perm} = [0,\ \tfrac{d_h}{2},\ 1,\ \tfrac{d_h}{2}+1,\ \dots]"
    )
    perm = out["perm"]
    shown_perm = ", ".join(map(str, perm[:12])) + (", ..." if perm.size > 12 else "")
    st.caption(f"posenc.half_to_interleaved_permutation({head_dim}) = [{shown_perm}]")
    fig = figcache.figure(
        figures.line_chart,
        out["positions"],
        out["curves"],
        title="Score of q at m against k at 0 under each pairing",
        x_title="query position m (key at 0)",
        y_title="score q'_m · k'_0",
        x_name="m",
        value_name="score",
        styles={
            "interleaved on permuted q, k": {"mode": "markers", "size": 5, "symbol": "x"},
            "interleaved on the same q, k": {"dash": "dot"},
        },
        height=420,
    )
    code = f"""
q, k = rope_lessons.random_query_key({head_dim}, seed={seed})
perm = posenc.half_to_interleaved_permutation({head_dim})
# q at m = 0..{n - 1} against k at 0
half = posenc.rope_scores(q, k, {n}, 1, base={base!r}, layout="half")[:, 0]
permuted = posenc.rope_scores(q[perm], k[perm], {n}, 1, base={base!r}, layout="interleaved")[:, 0]
same = posenc.rope_scores(q, k, {n}, 1, base={base!r}, layout="interleaved")[:, 0]
data = np.column_stack([half, permuted, same])
"""
    layout.chart(fig, key="rope_layout_scores", filename="rope_layout_scores", code=code)
    c1, c2 = st.columns(2)
    c1.metric(
        "half vs interleaved on permuted dims: largest |difference|",
        f"{out['permuted']:.1e}",
        help=f"every score with m, n < {out['window']}",
    )
    c2.metric(
        "half vs interleaved on the same vectors: largest |difference|",
        f"{out['unpermuted']:.3g}",
        help=f"every score with m, n < {out['window']}",
    )
    layout.notice(
        "the two pairings are the same method with the dimensions in another order: after the fixed "
        f"permutation the scores agree to {out['permuted']:.0e} (the crosses sit on the line). Without it they "
        f"differ by up to {out['unpermuted']:.3g}: weights trained with one pairing must be permuted before "
        "code with the other can use them. transformers' LLaMA conversion script does exactly that to the q and "
        "k projections, because Meta's original code pairs neighbouring dims and transformers' rotate_half pairs "
        "i with i + d_h/2."
    )


class Extension(NamedTuple):
    """How the lesson shows one of the core's RoPE scaling variants (``posenc.ROPE_VARIANTS``)."""

    label: str
    formula: str  # LaTeX
    #: (training length L, head_dim) -> (extra rope_scaling keys, seq_len, guide lines {label:
    #: wavelength}); draws the variant's own sidebar controls
    controls: Callable[[int, int], tuple[dict, int | None, dict[str, float]]] = lambda original, head_dim: (
        {},
        None,
        {},
    )
    caption: str = ""


def _current_length(help_text: str) -> int:
    return int(
        state.choice_slider(
            "seq",
            "Current length (seq_len)",
            tuple(2**k for k in range(9, 19)),
            8192,
            fmt=lambda v: f"{v:,}",
            help=help_text,
        )
    )


def _dynamic_controls(original: int, head_dim: int):
    seq_len = _current_length("Dynamic NTK rescales only once the text outgrows L.")
    return {}, seq_len, {f"current length = {seq_len:,}": seq_len}


def _longrope_controls(original: int, head_dim: int):
    seq_len = _current_length("LongRoPE uses its long factors once the text outgrows L.")
    phi = rope_lessons.PHI_3_5_MINI_LONGROPE
    factors = {
        key: tuple(float(f) for f in rope_lessons.resample_factors(phi[key], head_dim // 2))
        for key in ("short_factor", "long_factor")
    }
    if head_dim != rope_lessons.PHI_3_5_MINI_HEAD_DIM:
        st.caption(
            f"Phi-3.5-mini's factors belong to head_dim {rope_lessons.PHI_3_5_MINI_HEAD_DIM}; at head_dim "
            f"{head_dim} they are resampled to {head_dim // 2} pairs by each pair's place from fastest to slowest."
        )
    return factors, seq_len, {f"current length = {seq_len:,}": seq_len}


def _p_rope_controls(original: int, head_dim: int):
    p = state.choice_slider(
        "p_rope",
        "Fraction p of the pairs that turn",
        # p = 0 would be NoPE, which the slider's log spacing cannot hold; 1/8 is its nearest
        (0.125, 0.25, 0.5, 0.75, 0.875, 1.0),
        0.75,
        help="The fastest p of the pairs keep turning, at their frequencies divided by the factor s; the others "
        "stop turning.",
    )
    return {"partial_rotary_factor": float(p)}, None, {}


def _yarn_controls(original: int, head_dim: int):
    beta_fast = state.choice_slider("beta_fast", "beta_fast (turns in L)", (4, 8, 16, 32, 64, 128), 32)
    beta_slow = state.choice_slider("beta_slow", "beta_slow (turns in L)", (0.25, 0.5, 1, 2), 1)
    guides = {
        f"L/beta_fast = {original / beta_fast:,.0f}": original / beta_fast,
        f"L/beta_slow = {original / beta_slow:,.0f}": original / beta_slow,
    }
    return {"beta_fast": float(beta_fast), "beta_slow": float(beta_slow)}, None, guides


def _llama3_controls(original: int, head_dim: int):
    low_ff = state.float_slider("low", "low_freq_factor", 0.5, 8.0, 1.0, step=0.5, fmt="%.1f")
    high_ff = state.float_slider("high", "high_freq_factor", 1.0, 32.0, 4.0, step=1.0, fmt="%.0f")
    guides = {
        f"L/low_freq_factor = {original / low_ff:,.0f}": original / low_ff,
        f"L/high_freq_factor = {original / high_ff:,.0f}": original / high_ff,
    }
    return {"low_freq_factor": low_ff, "high_freq_factor": high_ff}, None, guides


#: rope_type -> how the "Context extension" view shows it, in the order of its picker. A
#: test checks every entry against the core's registry (``posenc.ROPE_VARIANTS``).
EXTENSIONS = {
    "linear": Extension("linear (PI)", r"\theta_i' = \theta_i / s \quad\text{(every position squeezed: } m \to m/s)"),
    "ntk": Extension(
        "NTK-aware",
        r"\text{base}' = \text{base}\cdot s^{\,d_h/(d_h-2)} \;\Rightarrow\; \theta_0' = \theta_0,\ "
        r"\theta_{d_h/2-1}' = \theta_{d_h/2-1}/s",
    ),
    "dynamic": Extension(
        "dynamic NTK",
        r"\text{base}' = \text{base}\cdot\Big(\frac{s\,L_{\text{now}}}{L} - (s-1)\Big)^{d_h/(d_h-2)}"
        r"\quad\text{when } L_{\text{now}} > L",
        _dynamic_controls,
    ),
    "yarn": Extension(
        "YaRN",
        r"\theta_i' = \gamma_i\,\theta_i + (1-\gamma_i)\,\frac{\theta_i}{s},\quad "
        r"\gamma_i = \mathrm{clip}\Big(\frac{i_{\text{slow}} - i}{i_{\text{slow}} - i_{\text{fast}}}, 0, 1\Big),"
        r"\quad \sqrt{1/t} = 0.1\ln s + 1",
        _yarn_controls,
        r"$\gamma_i$ is the YaRN paper's weight (Peng et al. 2023, sec. 3.2), as in the experiments lesson: 1 keeps "
        r"pair $i$'s frequency, 0 divides it by $s$; transformers' linear_ramp_factor is $1 - \gamma_i$. "
        r"$i_\text{fast}$ and $i_\text{slow}$: the "
        "pairs that turn beta_fast and beta_slow times within L (rounded down and up). t is YaRN's attention "
        "temperature: cos and sin are multiplied by the attention factor √(1/t).",
    ),
    "llama3": Extension(
        "Llama 3",
        r"\theta_i' = \begin{cases}\theta_i & \lambda_i < L/\text{high} \\ \theta_i/s & \lambda_i > "
        r"L/\text{low} \\ (1-\sigma_i)\,\theta_i/s + \sigma_i\,\theta_i & \text{between},\ "
        r"\sigma_i = \frac{L/\lambda_i - \text{low}}{\text{high} - \text{low}}\end{cases}",
        _llama3_controls,
    ),
    "longrope": Extension(
        "LongRoPE (Phi-3)",
        r"\theta_i' = \theta_i / \lambda_i,\quad \lambda = \begin{cases}\text{short\_factor} & L_{\text{now}} \le L"
        r" \\ \text{long\_factor} & L_{\text{now}} > L\end{cases},\quad \sqrt{1/t} = \sqrt{1 + \ln s / \ln L}",
        _longrope_controls,
        "λ_i: a factor per pair, found by search (Ding et al. 2024); shown are Phi-3.5-mini-instruct's, "
        "from its config (L = 4,096, extended to 131,072). t: the attention temperature, as in YaRN.",
    ),
    "proportional": Extension(
        "p-RoPE",
        r"\theta_i' = \begin{cases}\theta_i / s & i < p\,d_h/2 \\ 0 & \text{otherwise}\end{cases}",
        _p_rope_controls,
        "Barbero et al. (2024) keep only the fastest fraction p of the frequencies; the slowest pairs stop "
        "turning and carry meaning without position. transformers calls it rope_type 'proportional' and divides "
        "the frequencies it keeps by the factor s: they keep their own only at s = 1.",
    ),
}


def p_rope_sentence(ratio: np.ndarray, factor: float) -> str:
    """What p-RoPE does to each pair, read off the frequency ratios the chart draws."""
    turning = ratio[ratio > 0]
    stopped = ratio.size - turning.size
    if turning.size == 0:
        return f"p-RoPE here: all {ratio.size} pairs stop turning."
    low, high = turning.min(), turning.max()
    speed = f"{low:.4g} of its frequency" if np.isclose(low, high) else f"{low:.4g} to {high:.4g} of their frequencies"
    return (
        f"p-RoPE here: {turning.size} of {ratio.size} pairs turn, each at {speed} (θ_i / s with s = {factor:g}), "
        f"and {stopped} stop."
    )


@LESSON.view("scaling", "Context extension")
def scaling(head_dim: int, base: float) -> None:
    half = head_dim // 2  # pairs
    state.sidebar().header("Context extension")
    labels = {key: extension.label for key, extension in EXTENSIONS.items()}
    method = state.choice("method", "Method", list(labels), "yarn", labels=labels, container=layout.key_control())
    factor = state.float_slider(
        "factor", "Factor s", 1.0, 32.0, 4.0, step=0.5, fmt="%.1f", container=layout.key_control()
    )
    original = int(
        state.choice_slider(
            "orig",
            "Training length L (original_max_position_embeddings)",
            (512, 1024, 2048, 4096, 8192),
            2048,
            fmt=lambda v: f"{v:,}",
        )
    )
    rotary = state.choice_slider(
        "rotary",
        "Rotated fraction of each head (partial_rotary_factor)",
        (0.25, 0.5, 0.75, 1.0),
        1.0,
        fmt=lambda v: f"{v:g}",
        help="GPT-NeoX-20B and Pythia rotate the first 25% of each head, StableLM-3B too, Phi-2 40% (of 80 "
        "dims); the rest carry no position at all.",
    )
    extension = EXTENSIONS[method]
    cfg = {"rope_type": method, "factor": factor}
    if rotary != 1.0:
        cfg["partial_rotary_factor"] = float(rotary)
    if "original_max_position_embeddings" in posenc.ROPE_VARIANTS[method].keys:
        cfg["original_max_position_embeddings"] = original
    extra, seq_len, guides = extension.controls(original, head_dim)
    cfg.update(extra)
    shown = extension.label
    try:
        out = compute_rope.scaling(head_dim, base, tuple(sorted(cfg.items())), seq_len)
    except ValueError as exc:
        shown = "unscaled RoPE"
        layout.core_error(exc)
        st.caption("Showing unscaled RoPE instead.")
        cfg, guides = {"rope_type": "linear", "factor": 1.0}, {}
        out = compute_rope.scaling(head_dim, base, tuple(sorted(cfg.items())), None)
    effective = float(cfg["factor"])
    fig = figcache.figure(
        rope_figures.scaling_chart,
        out["before"],
        out["after"],
        out["ratio"],
        out["region"],
        factor=effective,
        original_length=original,
        guides=guides,
        region_names=("kept, extrapolated", "blended", "interpolated", "stopped"),
        title=f"{shown}, s = {effective:g}: what happens to each pair (head_dim {head_dim}, base {base:,.0f})",
        height=640,
    )
    code = f"""
rope_scaling = {dict(sorted(cfg.items()))!r}
scaled, attention_factor = posenc.rope_inv_freq({head_dim}, {base!r}, rope_scaling, seq_len={seq_len!r})
inv_freq, _ = posenc.rope_inv_freq(2 * scaled.size, {base!r})  # unscaled, on the rotated dims
ratio = posenc.rope_frequency_ratio({head_dim}, {base!r}, rope_scaling, seq_len={seq_len!r})
region = rope_lessons.scaling_regions(ratio, {effective!r})  # 0 kept, 1 blended, 2 interpolated, 3 stopped
after = np.divide(2 * np.pi, scaled, out=np.full(scaled.shape, np.nan), where=scaled > 0)  # NaN: stopped
# one row per pair: wavelength before, after (positions per turn), frequency ratio, region
data = np.column_stack([2 * np.pi / inv_freq, after, ratio, region])
"""
    table = np.column_stack([out["before"], out["after"], out["ratio"], out["region"]])
    layout.chart(fig, key="rope_scaling", filename=f"rope_scaling_{method}", code=code, data=table)
    # the method's formula under its chart: the chart is what moves with the key controls
    st.latex(extension.formula)
    if extension.caption:
        st.caption(extension.caption)
    counts = np.bincount(out["region"], minlength=len(rope_lessons.SCALING_REGIONS))
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Attention factor", f"{out['attention_factor']:.4f}", help="multiplies cos and sin (YaRN and LongRoPE)")
    c2.metric("Kept pairs", int(counts[0]), help="frequency ratio 1: they turn as in training")
    c3.metric("Blended pairs", int(counts[1]), help="ratio strictly between 1/s and 1")
    c4.metric("Interpolated pairs", int(counts[2]), help="ratio 1/s: positions squeezed s times")
    if counts[3]:
        st.metric("Stopped pairs", int(counts[3]), help="frequency 0: they no longer turn (p-RoPE)")
    if method == "proportional":
        st.caption(p_rope_sentence(out["ratio"], effective))
    st.caption(
        "Frequencies from posenc.rope_inv_freq, the same numbers as transformers' ROPE_INIT_FUNCTIONS for "
        "linear, dynamic, yarn, llama3, longrope and proportional (checked against frozen transformers outputs in the "
        "test suite). "
        "'NTK-aware' is bloc97's static formula, not a transformers rope_type."
    )
    longer = int((out["before"] > original).sum())
    rotated = out["before"].size  # pairs that turn: all of them unless a partial rotary is set
    if rotated < half:
        st.caption(
            f"partial_rotary_factor {cfg['partial_rotary_factor']:g}: only the first {2 * rotated} of {head_dim} "
            f"dims turn, so the chart has {rotated} pairs, spread over the same range of frequencies; the other "
            f"{head_dim - 2 * rotated} dims are the same at every position and no scaling touches them."
        )
    layout.notice(
        f"{longer} of {rotated} pairs have a wavelength longer than the training length L = {original:,}: they never "
        "completed a turn in training, so angles past L are new to the model. Linear interpolation slows every "
        "pair; NTK, YaRN and Llama 3 leave the fastest pairs (which turned many times in training) alone or "
        "nearly so, and slow mostly the slow ones, and dynamic NTK does nothing until the text is longer than L."
    )


@LESSON.view("xpos", "xPos")
def xpos(head_dim: int, base: float) -> None:
    half = head_dim // 2  # pairs
    state.sidebar().header("xPos")
    gamma = state.float_slider(
        "gamma", "gamma", 0.05, 1.0, 0.4, step=0.05, help="torchscale uses 0.4.", container=layout.key_control()
    )
    scale_base = float(
        state.choice_slider(
            "scale_base", "scale_base", (64, 128, 256, 512, 1024, 2048, 4096), 512, fmt=lambda v: f"{v:,.0f}"
        )
    )
    max_distance = int(
        state.choice_slider(
            "reach",
            "Largest distance",
            (256, 512, 1024, 2048, 4096, 8192),
            2048,
            fmt=lambda v: f"{v:,.0f}",
            container=layout.key_control(),
        )
    )
    seed = state.int_slider("seed", "Seed of q", 0, 99, 0)
    st.latex(
        r"\hat q_m = q'_m\, \zeta^{\,m/\text{scale\_base}},\quad \hat k_n = k'_n\, \zeta^{-n/\text{scale\_base}}"
        r"\;\Rightarrow\; \hat q_m\cdot\hat k_n = \mathrm{Re}\sum_i \tilde q_i\overline{\tilde k_i}\,"
        r"e^{\,i(m-n)\theta_i}\,\zeta_i^{(m-n)/\text{scale\_base}},\quad \zeta_i = \frac{2i/d_h + \gamma}{1+\gamma}"
    )
    out = compute_rope.xpos(head_dim, base, gamma, scale_base, max_distance, seed)
    picked = sorted({0, half // 4, half // 2, (3 * half) // 4, half - 1})
    fig = figcache.figure(
        rope_figures.xpos_factors, out["distances"], out["zeta"], picked, scale_base=scale_base, height=420
    )
    left, right = layout.columns(2)
    with left:
        code = f"""
distances = np.arange(0, {max_distance + 1}, {out["stride"]})  # r = m - n
zeta = posenc.xpos_scale(distances, {head_dim}, gamma={gamma!r}, scale_base={scale_base!r})  # (R, Dh/2)
data = zeta[:, {picked!r}]  # the pairs drawn
"""
        layout.chart(fig, key="xpos_zeta", filename="xpos_scale", code=code)
    fig = figcache.figure(rope_figures.xpos_score_chart, out["distances"], out["rope"], out["xpos"], height=420)
    with right:
        code = f"""
q, _ = rope_lessons.random_query_key({head_dim}, seed={seed})  # k = q: the same word
distances = np.arange(0, {max_distance + 1}, {out["stride"]})  # query at m = r, key at n = 0
rope = posenc.rope_scores(q, q, distances, [0], base={base!r})[:, 0]
xpos = rope_lessons.xpos_scores(
    q, q, distances, [0], base={base!r}, gamma={gamma!r}, scale_base={scale_base!r}
)[:, 0]
data = np.column_stack([rope, xpos])
"""
        layout.chart(fig, key="xpos_scores", filename="xpos_scores", code=code)
    if out["stride"] > 1:
        st.caption(f"Showing {figures.every_nth(out['stride'], 'distance')}.")
    zeta_fast, zeta_slow = out["zeta"][-1, 0], out["zeta"][-1, -1]
    layout.notice(
        f"the fastest pair gets ζ_0 = {gamma / (1 + gamma):.3f}, so at distance {int(out['distances'][-1]):,} "
        f"its share is multiplied by {zeta_fast:.2g}, while the slowest pair keeps {zeta_slow:.3f} of its own: "
        "xPos damps the fast, jittery pairs most and leaves the slow ones nearly alone. Both curves start at "
        "|q|² at r = 0. xPos is meant for causal attention (n ≤ m): for a key after the query the factor would "
        "grow instead."
    )
