"""Lesson: design a position encoding from a menu of blocks and measure it as the classics are measured."""

import math

import numpy as np
import streamlit as st

import posenc
from posenc import experiment as ex
from posenc_lab import figures
from posenc_lab.figures.builders import MAX_POINTS
from posenc_lab.lessons.design import compute
from posenc_lab.lessons.design import exercises as design_exercises
from posenc_lab.lessons.design import measure as custom
from posenc_lab.lessons.experiments import claims
from posenc_lab.ui import figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Design your own encoding",
    "design",
    question="Build an encoding from sines, clocks, ramps or random waves: is it unique, bounded, "
    "shiftable, and does a model trained with it read longer texts?",
    icon=":material/tune:",
    exercises=design_exercises.EXERCISES,
    skills=design_exercises.SKILLS,
    polls=design_exercises.POLLS,
    largest={"kind": "waves", "d_model": "256", "n_pos": "1024", "n_pairs": "128", "k": "64", "metric": "cosine"},
    # "pairs" is RoPE's list of pairs to show
    renamed={"pairs": "n_pairs"},
)

KIND_LABELS = {
    "waves": "waves: sin/cos pairs",
    "random": "random waves (random Fourier features)",
    "binary": "binary counter",
    "ramp": "ramp: the position itself",
}
PLACE_LABELS = {"added": "added to the word vectors", "rotary": "rotates queries and keys (as RoPE)"}
SPACING_LABELS = {
    "base": "base^(-i/P), as the paper",
    "geometric": "geometric: equal ratios",
    "linear": "linear: equal frequency steps",
}
CLASSIC_LABELS = {"sinusoidal": "sinusoidal (Vaswani et al.)", "learned": "learned table, as initialised"}
#: amplitude choices by URL value; sqrt2 is the experiment's own scaling of the sinusoid
AMPLITUDES = {"0.1": 0.1, "0.5": 0.5, "1": 1.0, "sqrt2": math.sqrt(2.0), "2": 2.0, "4": 4.0}
SHORTEST = (2, 3, 4, 6, 8, 16, 32, 64, 128, 256)
LONGEST = (4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 10_000, 100_000)
SCALES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
BASES = (10, 100, 1_000, 10_000, 100_000, 1_000_000)
YOURS = "your design"
#: differences below this are drawn at it on a log axis (exact zeros)
FLOOR = 1e-17


# the menu

#: views that put a control of their own above the figure in presenter mode
OWN_CONTROL = ("shift", "similarity", "train")


def _main_knob():
    """Where the block's main knob goes: the second presenter slot, unless the view needs it.

    The intro runs before the view picker, so the view is read from the picker's state,
    or, on the first run of a link, from the URL.
    """
    view = st.session_state.get(state.WIDGET + "view", state.kept("view"))
    if view is None:
        view = st.query_params.get("view")
    return state.sidebar() if view in OWN_CONTROL else layout.key_control()


def _waves_controls(kind: str, d_model: int) -> dict:
    """The controls of the two kinds made of sin/cos pairs."""
    fields = {}
    fields["placement"] = state.choice(
        "place",
        "Where it goes",
        list(custom.PLACEMENTS),
        "added",
        labels=PLACE_LABELS,
        horizontal=False,
        help="Added to the word vectors, as the sinusoid; or turning each pair of query and key "
        "dimensions by p times its frequency, as RoPE (then d is the head width).",
    )
    fields["n_pairs"] = state.int_slider(
        "n_pairs",
        "sin/cos pairs P",
        1,
        d_model // 2,
        d_model // 2,
        help="Dimensions beyond 2P stay zero (or, rotated, unturned).",
        container=_main_knob() if kind == "waves" else None,
    )
    if kind == "random":
        fields["length_scale"] = float(
            state.choice_slider(
                "sigma",
                "Length scale (positions)",
                SCALES,
                16,
                help="Frequencies drawn from N(0, 1/scale^2): the similarity they approximate "
                "falls to 0.6 at this distance.",
                container=_main_knob(),
            )
        )
        fields["seed"] = state.int_slider("seed", "Seed of the draw", 0, 9, 0)
        return fields
    spacing = state.choice(
        "spacing", "Frequencies", list(custom.SPACINGS), "base", labels=SPACING_LABELS, horizontal=False
    )
    fields["spacing"] = spacing
    if spacing == "base":
        fields["base"] = float(
            state.choice_slider(
                "base", "Base", BASES, 10_000, fmt=lambda v: f"{v:,.0f}", help=base_help(fields["n_pairs"])
            )
        )
    else:
        shortest = state.choice_slider("lmin", "Shortest wavelength (positions)", SHORTEST, 4)
        fields["min_wavelength"] = float(shortest)
        fields["max_wavelength"] = float(
            state.choice_slider(
                "lmax", "Longest wavelength (positions)", [v for v in LONGEST if v >= shortest], 1024, fmt=str
            )
        )
    return fields


def base_help(pairs: int) -> str:
    """The base slider's help: the longest wavelength of P pairs, w_i = base^(-i/P) for i = 0..P-1."""
    return (
        f"Longest wavelength 2π·base^((P−1)/P), here 2π·base^({pairs - 1}/{pairs}) with P = {pairs}: "
        f"base^(−1/{pairs}) times 2π × base."
    )


def _added_controls(kind: str) -> dict:
    """Layout, phase, normalisation and amplitude: what an added table has and a rotation has not."""
    fields = {}
    if kind in ("waves", "random"):
        fields["layout"] = state.choice(
            "layout",
            "Layout",
            ["interleaved", "concat"],
            "interleaved",
            labels={"interleaved": "sin, cos, sin, cos", "concat": "all sin, then all cos"},
        )
        fields["phase_deg"] = float(state.int_slider("phase", "Phase (degrees)", 0, 345, 0, step=15))
    fields["normalise"] = state.choice(
        "normalise",
        "Normalise",
        list(custom.NORMALISATIONS),
        "none",
        labels={"none": "no", "unit": "each code to length 1"},
    )
    amplitude = state.choice(
        "amp",
        "Amplitude",
        list(AMPLITUDES),
        "1",
        labels={"sqrt2": "√2"},
        help="Multiplies every value. The experiment's sinusoidal model adds √2 x the table.",
    )
    fields["amplitude"] = AMPLITUDES[amplitude]
    return fields


def formula(spec: custom.EncodingSpec) -> str:
    """The design as one formula (LaTeX)."""
    if spec.placement == "rotary" or spec.amplitude == 1.0:
        amp = ""
    else:
        amp = r"\sqrt{2}\," if spec.amplitude == AMPLITUDES["sqrt2"] else f"{spec.amplitude:g}" + r"\,"
    if spec.kind == "binary":
        body = rf"PE_{{(p,\,b)}} = {amp}\bigl(2\,\mathrm{{bit}}_b(p) - 1\bigr),\quad b < {spec.bits}"
    elif spec.kind == "ramp":
        value = r"\frac{p}{N-1}" if spec.ramp == "length" else "p"
        body = rf"PE_{{(p,\,j)}} = {amp}{value}\quad\text{{for every dimension }} j"
    else:
        if spec.kind == "random":
            omega = rf"\omega_i \sim \mathcal{{N}}\!\left(0,\ 1/{spec.length_scale:g}^2\right)"
        elif spec.spacing == "base":
            omega = rf"\omega_i = {spec.base:g}^{{-i/{spec.pairs}}}"
        elif spec.spacing == "geometric":
            omega = r"\omega_i = 2\pi/\lambda_i,\ \lambda_i\ \text{in equal ratios}"
        else:
            omega = r"\omega_i\ \text{in equal steps}"
        if spec.placement == "rotary":
            return rf"q_p \mapsto R(p\,\omega)\,q_p,\quad k_p \mapsto R(p\,\omega)\,k_p,\qquad {omega}"
        phase = "" if spec.phase_deg == 0 else rf" + {spec.phase_deg:g}^\circ"
        body = (
            rf"PE_{{(p,\,2i)}} = {amp}\sin(p\,\omega_i{phase}),\ "
            rf"PE_{{(p,\,2i+1)}} = {amp}\cos(p\,\omega_i{phase}),\qquad {omega}"
        )
    if spec.normalise == "unit" and spec.placement == "added":
        body += r",\quad\text{then } PE_p / \lVert PE_p \rVert"
    return body


@LESSON.intro
def intro() -> dict:
    """The lead, the menu (every choice in the URL, so a design is a link) and its formula."""
    more = layout.lesson(
        "Design your own encoding",
        "Pick the parts of a position encoding with the building block above the chart and the rest in "
        f"{layout.SIDE_PANEL}: waves, a binary "
        "counter, a ramp or random waves, added to the word vectors or turning queries and keys. "
        "Each view runs one of the checks the classic encodings are judged by, on your design "
        "and on a classic side by side, and the last view trains a small model with it.",
    )
    state.sidebar().header("Your design")
    kind = state.choice(
        "kind",
        "Building block",
        list(custom.KINDS),
        "waves",
        labels=KIND_LABELS,
        horizontal=False,
        container=layout.key_control(),
    )
    d_model = state.int_slider("d_model", "Width d", 2, 256, 32, step=2, help="Dimensions per code (even).")
    n = state.int_slider(
        "n_pos", "Positions N", 16, 1024, 256, help="Positions 0 to N - 1; the checks also look at 2N, 4N, 8N."
    )
    fields = {"kind": kind, "d_model": d_model}
    if kind in ("waves", "random"):
        fields.update(_waves_controls(kind, d_model))
    elif kind == "binary":
        fields["bits"] = state.int_slider(
            "bits", "Binary digits", 1, min(d_model, 16), min(d_model, 8), container=_main_knob()
        )
    else:
        fields["ramp"] = state.choice(
            "ramp",
            "Ramp",
            list(custom.RAMPS),
            "length",
            labels={"length": "p / (N - 1): from 0 to 1", "position": "p: from 0 up"},
            container=_main_knob(),
        )
    if fields.get("placement", "added") == "added":
        fields.update(_added_controls(kind))
    state.sidebar().header("Compare with")
    classic = state.choice(
        "classic", "Classic", list(custom.CLASSICS), "sinusoidal", labels=CLASSIC_LABELS, horizontal=False
    )
    try:
        spec = custom.EncodingSpec(**fields)
    except ValueError as exc:
        layout.core_error(exc)
        spec = custom.EncodingSpec(d_model=d_model)
    layout.lesson_formula(formula(spec), more)
    return {"spec": spec, "n": n, "classic": classic}


def spec_code(spec: custom.EncodingSpec) -> str:
    return f"spec = custom.EncodingSpec({spec.arguments()})\n"


def classic_code(classic: str, d_model: int, n: int) -> str:
    return f"classic = custom.classic({classic!r}, {d_model}, {n})  # {CLASSIC_LABELS[classic]}\n"


def _yes(passed) -> str:
    return "n/a" if passed is None else ("yes" if passed else "no")


def verdict_rows(checks: dict) -> dict[str, str]:
    """One line per check: its verdict and the number behind it."""
    u, b, same = checks["unique"], checks["bounded"], checks["same_at_any_length"]
    s, f, t = checks["shift_linear"], checks["falls_with_distance"], checks["translation_invariant"]
    p, q = u["pair"]
    return {
        "unique": f"{_yes(u['passed'])}: closest are {p} and {q}, {u['distance']:.3g} apart",
        "bounded": "no: no code past N"
        if b["last"] is None
        else f"{_yes(b['passed'])}: largest norm {b['first']:.3g} at N, {b['last']:.3g} at 8N",
        "same_at_any_length": "no: no code past N"
        if same["value"] is None
        else f"{_yes(same['passed'])}: codes change by up to {same['value']:.2g} (relative)",
        "shift_linear": "cannot tell: too few positions for d"
        if s["passed"] is None
        else f"{_yes(s['passed'])}: worst miss {s['value']:.1e} of the largest code",
        "falls_with_distance": f"{_yes(f['passed'])}: {f['near']:.3g} at distance 1, up to {f['far']:.3g} farther",
        "translation_invariant": f"{_yes(t['passed'])}: varies by {t['value']:.1e} (relative) with the start",
    }


CHECK_NAMES = {
    "unique": "Every position has its own code",
    "bounded": "Codes stay bounded from N to 8N positions",
    "same_at_any_length": "A position keeps its code in a text 8 times longer",
    "shift_linear": "Moving on by k = 1 is one fixed matrix",
    "falls_with_distance": "Similarity (dot product) is highest one step away",
    "translation_invariant": "Similarity depends on the distance only",
}


@LESSON.view("encoding", "Your encoding")
def encoding(spec: custom.EncodingSpec, n: int, classic: str) -> None:
    key = spec.key()
    table, shown_pos, shown_dims, (rs, cs) = compute.table_grid(key, n)
    what = "the code its rotation applies" if spec.placement == "rotary" else "the table added to the word vectors"
    fig = figcache.figure(
        figures.heatmap,
        table,
        x=shown_dims,
        y=shown_pos,
        title=f"Your encoding, {what}: {n} positions x {spec.d_model} dimensions",
        x_title="dimension",
        y_title="position p",
        x_name="dimension",
        y_name="position",
        value_name="PE",
        row_noun="position",
        col_noun="dimension",
        height=480,
    )
    code = spec_code(spec) + f"pe = custom.encode(spec, {n})  # (T, D), a sequence of {n}\n"
    code += f"data = pe[::{rs}, ::{cs}]  # the positions and dimensions drawn\n"
    layout.chart(fig, key="design_table", filename="design_table", code=code)
    mine = compute.verdict(compute.design(spec), n, 1, "dot")
    theirs = compute.verdict(compute.classic(classic, spec.d_model, n), n, 1, "dot")
    rows_mine, rows_theirs = verdict_rows(mine), verdict_rows(theirs)
    st.markdown(f"**The checks, over positions 0 to {n - 1}** (`custom.check_encoding(spec, {n})`)")
    layout.table(
        [
            {"Check": CHECK_NAMES[c], "Your design": rows_mine[c], CLASSIC_LABELS[classic]: rows_theirs[c]}
            for c in custom.CHECKS
        ],
    )
    passed = [c for c in custom.CHECKS if mine[c]["passed"]]
    failed = [CHECK_NAMES[c].lower() for c in custom.CHECKS if not mine[c]["passed"]]
    layout.notice(
        f"your design passes {len(passed)} of {len(custom.CHECKS)} checks, the {classic} classic "
        f"{sum(bool(theirs[c]['passed']) for c in custom.CHECKS)}. "
        + (
            f"It misses: {'; '.join(failed)}. The next views show why."
            if failed
            else "Now change one part and watch a check fail."
        )
    )


@LESSON.view("unique", "Unique?")
def unique(spec: custom.EncodingSpec, n: int, classic: str) -> None:
    mine = compute.uniqueness(compute.design(spec), n)
    theirs = compute.uniqueness(compute.classic(classic, spec.d_model, n), n)
    p, q = mine["pair"]
    fig = figcache.figure(
        figures.line_chart,
        np.arange(n),
        {YOURS: mine["nearest"], CLASSIC_LABELS[classic]: theirs["nearest"]},
        title="Distance from each position's code to the nearest other code",
        x_title="position p",
        y_title="distance",
        x_name="position",
        value_name="distance",
        vlines={f"closest: {p} and {q}": p},
        height=440,
    )
    code = (
        spec_code(spec)
        + classic_code(classic, spec.d_model, n)
        + f"""mine = custom.uniqueness(spec, {n})  # positions 0..{n - 1}
theirs = custom.uniqueness(classic, {n})
data = np.column_stack([mine["nearest"], theirs["nearest"]])  # (T, 2)
"""
    )
    layout.chart(fig, key="design_unique", filename="design_uniqueness", code=code)
    st.latex(r"\text{nearest}(p) = \min_{q \ne p}\ \lVert PE_p - PE_q \rVert")
    tp, tq = theirs["pair"]
    verdict = (
        "different codes"
        if mine["unique"]
        else f"the same code to rounding (closer than {custom.UNIQUE_TOL:g} of the largest): "
        f"position {q} cannot be told from {p}"
    )
    layout.notice(
        f"your closest two positions are {p} and {q}, {mine['distance']:.3g} apart, {mine['relative']:.2g} of "
        f"the largest code: {verdict}. The {classic} classic's closest are {tp} and {tq}, "
        f"{theirs['distance']:.3g} apart. A line that touches 0 marks a position that repeats an earlier one."
    )


@LESSON.view("bounded", "Bounded?")
def bounded(spec: custom.EncodingSpec, n: int, classic: str) -> None:
    mine = compute.growth(compute.design(spec), n)
    theirs = compute.growth(compute.classic(classic, spec.d_model, n), n)
    length = max(custom.MULTIPLIERS) * n
    series = {f"{YOURS}, in a text of {length}": mine["norms"], CLASSIC_LABELS[classic]: theirs["norms"]}
    changes = mine["change"] is not None and mine["change"] > custom.LENGTH_TOL
    if changes:
        short = np.full(length, np.nan)
        short[:n] = mine["short"]
        series[f"{YOURS}, in a text of {n}"] = short
    fig = figcache.figure(
        figures.line_chart,
        np.arange(length),
        series,
        title=f"Length of each code, positions 0 to {length - 1}",
        x_title="position p",
        y_title="norm of PE(p)",
        x_name="position",
        value_name="norm",
        vlines={f"N = {n}": n},
        height=440,
    )
    step = max(1, -(-length // MAX_POINTS))
    code = (
        spec_code(spec)
        + classic_code(classic, spec.d_model, n)
        + f"""# norms in a text of {length} positions (NaN past the end of a learned table)
mine = custom.norm_growth(spec, {n})["norms"]
theirs = custom.norm_growth(classic, {n})["norms"]
columns = [mine, theirs]
"""
    )
    if changes:
        code += f"""short = np.full({length}, np.nan)  # the same positions in a text of {n}
short[:{n}] = np.linalg.norm(custom.encode(spec, {n}), axis=1)
columns.append(short)
"""
    code += "data = np.column_stack(columns)" + (
        f"[::{step}]  # {figures.every_nth(step, 'position')}, as drawn\n" if step > 1 else "\n"
    )
    layout.chart(fig, key="design_norms", filename="design_norms", code=code)
    st.latex(r"\lVert PE_p \rVert = \sqrt{\textstyle\sum_j PE_{p,j}^2}")
    theirs_text = (
        f"the {classic} classic has no code past position {n - 1}"
        if theirs["max_norm"][-1] is None
        else f"the {classic} classic's from {theirs['max_norm'][0]:.3g} to {theirs['max_norm'][-1]:.3g}"
    )
    moved = (
        f" And a position's code depends on the length of the text: it moves by up to {mine['change']:.2g} "
        f"of the largest code between a text of {n} and one of {length}."
        if changes
        else ""
    )
    layout.notice(
        f"your largest norm goes from {mine['max_norm'][0]:.3g} at N = {n} to {mine['max_norm'][-1]:.3g} at "
        f"{length} ({'bounded' if mine['bounded'] else 'it grows with the text'}); {theirs_text}.{moved}"
    )


@LESSON.view("shift", "Shift = one matrix?")
def shift(spec: custom.EncodingSpec, n: int, classic: str) -> None:
    state.sidebar().header("Shift")
    k = state.int_slider("k", "Shift k", 1, 64, 1, container=layout.key_control())
    mine = compute.shift(compute.design(spec), n, k)
    theirs = compute.shift(compute.classic(classic, spec.d_model, n), n, k)
    rows = mine["positions"]
    st.latex(r"M_k = \arg\min_M \sum_p \lVert M\,PE_p - PE_{p+k} \rVert^2")
    left, right = layout.columns([1, 1])
    fig = figcache.figure(
        figures.heatmap,
        mine["m"],
        title=f"Your best M_k for k = {k}, fitted on {rows} positions",
        x_title="input dimension",
        y_title="output dimension",
        x_name="input dim",
        y_name="output dim",
        value_name="M_k",
        height=440,
        # in half the page (170 px on a phone): more cells than pixels draw moiré stripes
        max_rows=figures.PHONE_CELLS,
        max_cols=figures.PHONE_CELLS,
    )
    step = figures.display_steps(spec.d_model, spec.d_model, figures.PHONE_CELLS, figures.PHONE_CELLS)[0]
    code = (
        spec_code(spec)
        + f"""pe = custom.encode(spec, {rows})  # positions 0..{rows - 1}
m_k, miss, rank = custom.fit_shift_map(pe, {k})  # PE[p + {k}] ~ m_k @ PE[p]
data = m_k
"""
        + (f"data = data[::{step}, ::{step}]  # every {step}th dimension, as drawn\n" if step > 1 else "")
    )
    with left:
        layout.chart(fig, key="design_mk", filename="design_shift_map", code=code)
        st.caption(
            "When several matrices fit equally well (a slow wave barely moves over these positions, and "
            "unused dimensions are zero), least squares returns the smallest of them."
        )
    size = max(mine["miss"].size, theirs["miss"].size)
    columns = []
    for fit in (mine, theirs):
        column = np.full(size, np.nan)
        column[: fit["miss"].size] = np.maximum(fit["miss"] / fit["scale"], FLOOR)
        columns.append(column)
    fig = figcache.figure(
        figures.line_chart,
        np.arange(size),
        {YOURS: columns[0], CLASSIC_LABELS[classic]: columns[1]},
        title="How far M_k PE(p) lands from PE(p + k), relative to the largest code",
        x_title="position p",
        y_title="miss (log scale)",
        x_name="position",
        value_name="miss",
        value_format=".1e",
        log_y=True,
        height=440,
    )
    code = (
        spec_code(spec)
        + classic_code(classic, spec.d_model, n)
        + f"""fits = [custom.shift_fit(e, {n}, {k}) for e in (spec, classic)]
data = np.full(({size}, 2), np.nan)
for j, fit in enumerate(fits):  # each miss over its largest code; exact zeros drawn at {FLOOR:g}
    data[: fit["miss"].size, j] = np.maximum(fit["miss"] / fit["scale"], {FLOOR!r})
"""
    )
    with right:
        layout.chart(fig, key="design_miss", filename="design_shift_miss", code=code)

    def said(fit, who):
        if fit["linear"] is None:
            return f"{who} cannot be judged: {fit['positions']} positions are too few for d = {spec.d_model}"
        how = "one matrix moves every code" if fit["linear"] else "no single matrix does it"
        return f"{who} misses by at most {fit['relative']:.1e} of the largest code: {how}"

    layout.notice(
        f"{said(mine, 'your design')}; {said(theirs, 'the ' + classic + ' classic')}. Waves pass at any k: each "
        "pair turns by the same angle k w_i wherever it starts, which is what lets attention find 'k back'."
    )


@LESSON.view("similarity", "Similar when near?")
def similarity(spec: custom.EncodingSpec, n: int, classic: str) -> None:
    state.sidebar().header("Similarity")
    metric = state.choice("metric", "Measure", list(posenc.SIMILARITY_METRICS), "dot", container=layout.key_control())
    mc = compute.similarity(compute.design(spec), n, metric)
    tc = compute.similarity(compute.classic(classic, spec.d_model, n), n, metric)
    shown, rs = mc["shown"], mc["row_step"]
    left, right = layout.columns([5, 6])
    fig = figcache.figure(
        figures.heatmap,
        mc["matrix"],
        x=shown,
        y=shown,
        title=f"Your design: {metric} similarity of every pair of positions",
        x_title="position q",
        y_title="position p",
        x_name="q",
        y_name="p",
        value_name=metric,
        row_noun="position",
        col_noun="position",
        height=460,
    )
    col_step = figures.display_steps(shown.size, shown.size)[1]
    code = (
        spec_code(spec)
        + f"""positions = np.arange(0, {n}, {rs})  # the positions drawn, in a text of {n}
pe = custom.encode(spec, {n})[positions]
data = posenc.position_similarity(pe, metric={metric!r})  # (T, T)
"""
    )
    if col_step > 1:
        code += f"data = data[:, ::{col_step}]  # {figures.every_nth(col_step, 'column')}, as drawn\n"
    with left:
        layout.chart(fig, key="design_similarity", filename="design_similarity", code=code)
    name = CLASSIC_LABELS[classic]
    fig = figcache.figure(
        figures.line_chart,
        np.arange(mc["mean"].size),
        {
            f"{YOURS}, mean over p": mc["mean"] / mc["mean"][0],
            f"{YOURS}, lowest": mc["low"] / mc["mean"][0],
            f"{YOURS}, highest": mc["high"] / mc["mean"][0],
            f"{name}, mean": tc["mean"] / tc["mean"][0],
        },
        title="Similarity of PE(p) and PE(p + r) against the distance r, over every start p",
        x_title="distance r",
        y_title="similarity / mean at r = 0",
        x_name="r",
        value_name="similarity",
        styles={f"{YOURS}, lowest": {"dash": "dot"}, f"{YOURS}, highest": {"dash": "dot"}},
        height=460,
    )
    code = (
        spec_code(spec)
        + classic_code(classic, spec.d_model, n)
        + f"""mine = custom.similarity_curve(spec, {n}, metric={metric!r})  # distances 0..{n // 2}
theirs = custom.similarity_curve(classic, {n}, metric={metric!r})
# each divided by its mean at distance 0
yours = np.column_stack([mine["mean"], mine["low"], mine["high"]]) / mine["mean"][0]
data = np.column_stack([yours, theirs["mean"] / theirs["mean"][0]])
"""
    )
    with right:
        layout.chart(fig, key="design_similarity_curve", filename="design_similarity_curve", code=code)
    falls = "is highest one step away" if mc["falls"] else "is not highest one step away (a farther code is as alike)"
    same = (
        "the same from every start (the dotted lines sit on the mean)"
        if mc["invariant"]
        else f"different from start to start (by up to {mc['spread']:.2g} of its largest value)"
    )
    layout.notice(
        f"your design's similarity {falls}, and it is {same}. The {classic} classic: "
        f"{'highest' if tc['falls'] else 'not highest'} one step away, "
        f"{'the same from every start' if tc['invariant'] else 'different from start to start'}. "
        "Stripes parallel to the diagonal of the heatmap are that invariance."
    )


@LESSON.view("train", "Train it")
def train(spec: custom.EncodingSpec, n: int, classic: str) -> None:
    task = state.choice(
        "task",
        "Task",
        list(ex.EXPERIMENT_TASKS),
        "copy",
        labels={"copy": "copy k back", "marker": "latest marker"},
        help="copy: repeat the token 3 places back. marker: name the latest of a few marker tokens.",
        container=layout.key_control(),
    )
    cfg = compute.experiment_config(task)
    key = spec.key()
    twin = "rope" if spec.placement == "rotary" else "sinusoidal"
    trained = f"_design_trained:{task}:{key}"
    if st.button(
        "Train your design",
        key="design_train",
        icon=":material/play_arrow:",
        help=f"Trains your design and the {claims.NAMES[twin]} model, about 3 seconds.",
    ):
        st.session_state[trained] = True
    start = f"cfg = posenc.experiment.ExperimentConfig(task={task!r})  # the experiments lesson's defaults\n"
    start += spec_code(spec)
    if st.session_state.get(trained):
        _accuracy_chart(compute.train_design(task, key), cfg, start)
    table, width, length = compute.model_input(key, task)
    rs, cs = figures.display_steps(length, width)
    what = "rotation code of every head" if spec.placement == "rotary" else "table added to the word vectors"
    fig = figcache.figure(
        figures.heatmap,
        table,
        x=np.arange(width),
        y=np.arange(length),
        title=f"What the model gets: your {what} at d = {width}, positions 0 to {length - 1} "
        f"(trained above the dashed line)",
        x_title="dimension",
        y_title="position p",
        x_name="dimension",
        y_name="position",
        value_name="PE",
        row_noun="position",
        col_noun="dimension",
        height=440,
        after=[("add_hline", dict(y=cfg.train_len - 0.5, line=dict(color="#555", dash="dash", width=2)))],
    )
    code = (
        start + f"pe = custom.encode(spec.at_width({width}), {length})  # the model's width, 8x its training length\n"
    )
    code += f"data = pe[::{rs}, ::{cs}]  # the positions and dimensions drawn\n"
    layout.chart(fig, key="design_model_input", filename="design_model_input", code=code)
    if spec.d_model != width:
        rebuilt = spec.at_width(width)
        kept = {"binary": f"{rebuilt.bits} digits", "ramp": "the same ramp"}.get(
            spec.kind, f"{rebuilt.pairs} pairs, spaced by the same rule"
        )
        st.caption(
            f"The model is {cfg.d_model} wide, in {cfg.n_heads} heads of {cfg.head_dim}: your design is "
            f"rebuilt at d = {width} ({kept})."
        )
    stored = compute.classics(task)
    if stored is not None:
        st.markdown(
            f"**The six classics on this task** (stored run of the experiments lesson, trained at {cfg.train_len})"
        )
        layout.table(
            [
                {
                    "method": claims.NAMES[m],
                    **{f"{n} tokens": claims.fmt_accuracy(a) for n, a in zip(stored["lengths"], acc, strict=True)},
                }
                for m, acc in stored["accuracy"].items()
            ],
        )
    if not st.session_state.get(trained):
        layout.notice(
            f"the model is trained on positions 0 to {cfg.train_len - 1} (the top eighth of the heatmap) and "
            f"tested on up to {length}. Press Train: your design and the {claims.NAMES[twin]} model start from "
            "the same weights and see the same batches, so a difference between them comes from the encoding alone."
        )


def _accuracy_chart(run: dict, cfg, start: str) -> None:
    """Accuracy of the design and its twin classic at 1x to 8x the training length."""
    twin, lengths = run["twin"], run["lengths"]
    mine, theirs = run["accuracy"]["yours"], run["accuracy"][twin]
    name = claims.NAMES[twin]
    fig = figcache.figure(
        figures.line_chart,
        np.asarray(lengths),
        {
            YOURS: np.asarray(mine, float),
            name: np.asarray(theirs, float),
            "chance": np.full(len(lengths), run["chance"]),
        },
        title=f"Accuracy when tested longer than trained (trained at {cfg.train_len} tokens)",
        x_title="test length (tokens, log scale)",
        y_title="accuracy",
        x_name="test length",
        value_name="accuracy",
        value_format=".1%",
        log_x=True,
        styles={
            YOURS: {"mode": "lines+markers", "size": 11, "width": 3},
            name: {"mode": "lines+markers", "size": 8},
            "chance": {"mode": "lines", "dash": "dot", "color": "#777"},
        },
        vlines={"training length": cfg.train_len},
        height=440,
        after=[("update_xaxes", dict(tickvals=lengths)), ("update_yaxes", dict(range=[0, 1.05], tickformat=".0%"))],
    )
    code = (
        start
        + f"""mine = custom.experiment_method(spec, cfg, name='yours')
run = posenc.experiment.run_experiment(cfg, methods=[{twin!r}, mine])  # same start, same batches
data = np.column_stack([run["accuracy"]["yours"], run["accuracy"][{twin!r}], np.full(4, run["chance"])])
"""
    )
    layout.chart(fig, key="design_accuracy", filename="design_accuracy", code=code)
    layout.notice(
        f"your design reaches {mine[0]:.0%} at the training length and {mine[-1]:.0%} at {lengths[-1]} tokens; "
        f"the {name} model, from the same start, {theirs[0]:.0%} and {theirs[-1]:.0%} (chance "
        f"{run['chance']:.0%}; both trained in {run['seconds']:.1f} s)."
    )
