"""Lesson: the design choices behind a positional encoding, each measured live."""

import inspect

import numpy as np
import streamlit as st

from posenc_lab import figures
from posenc_lab.lessons.choices import compute
from posenc_lab.lessons.choices import exercises as choices_exercises
from posenc_lab.lessons.choices import measure as props
from posenc_lab.lessons.compare import figures as compare_figures
from posenc_lab.ui import controls, figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "Design choices",
    "choices",
    question="Add or concatenate, cache or recompute, absolute or relative or both: what does each choice cost?",
    icon=":material/tune:",
    exercises=choices_exercises.EXERCISES,
    polls=choices_exercises.POLLS,
    largest={
        "d_model": "1024",
        "t": "1024",
        "train_len": "512",
        "shift": "256",
        "n": "4096",
        "base": "1000000",
        "context": "8192",
        "heads": "64",
        "weight": "1",
        "window": "32",
        "sw_len": "64",
    },
    # "w" is the images lesson's patch columns
    renamed={"w": "weight"},
)

NORM_NAMES = {"unit": "tokens, std 1/sqrt(d)", "gpt2": "tokens, std 0.02", "vaswani": "tokens, times sqrt(d)"}
#: the parts of the score, named as in the formula above the chart
PART_NAMES = ["content", "cross", "position"]


@LESSON.intro
def intro() -> None:
    """The lead: five questions the earlier lessons leave open."""
    layout.lesson(
        "Design choices",
        "The earlier lessons showed how each method works. Five questions remain when you have to pick one: "
        "should a position code be added to the word vectors or placed beside them; which methods let a "
        "decoder keep its cache while it generates; what happens when a model uses an absolute code and a "
        "relative one at once; which of the properties a position code is often said to have (unique, bounded, "
        "norm-preserving) actually hold; and which method suits which job. Each view answers one question "
        "with a measurement made as you watch.",
    )


@LESSON.view("add", "Add or concatenate")
def add_or_concat() -> None:
    d_model = controls.d_model(container=layout.key_control())
    scale = state.choice(
        "scale",
        "Token vectors",
        list(props.EMBEDDING_SCALES),
        "unit",
        labels=compute.SCALE_LABELS,
        horizontal=False,
        container=layout.key_control(),
        help="Random vectors as an embedding table holds them before training.",
    )
    st.latex(
        # \allowbreak: where a phone may wrap the line (posenc_lab/ui/app.css lets KaTeX's runs wrap)
        r"(x_i + p_i)\cdot(x_j + p_j) = \underbrace{x_i\cdot x_j}_{\text{content}} \allowbreak"
        r" + \underbrace{x_i\cdot p_j + p_i\cdot x_j}_{\text{cross}} \allowbreak"
        r" + \underbrace{p_i\cdot p_j}_{\text{position}}"
    )
    curves = compute.norm_curves()
    series = {NORM_NAMES[s]: curves[s] for s in props.EMBEDDING_SCALES} | {"sinusoid, sqrt(d/2)": curves["sinusoid"]}
    fig = figcache.figure(
        figures.line_chart,
        np.array(compute.WIDTHS),
        series,
        title="Mean norm of a token vector and of the sinusoid's code, by width",
        x_title="d_model (log scale)",
        y_title="mean norm (log scale)",
        x_name="d_model",
        value_name="norm",
        value_format=".3g",
        log_x=True,
        log_y=True,
        styles={name: {"mode": "lines+markers", "size": 7} for name in series},
        vlines={f"d = {d_model}": d_model},
        height=440,
    )
    code = f"""
widths = np.array({list(compute.WIDTHS)})
# token vectors: std 1/sqrt(d); std 0.02; std 1/sqrt(d) times sqrt(d). 256 rows each, seed 0
tokens = [properties.norm_by_width(widths, scale=s, seed=0) for s in ("unit", "gpt2", "vaswani")]
sinusoid = properties.norm_by_width(widths, scale=None)  # positions 0..255
data = np.column_stack(tokens + [sinusoid])  # (10, 4): one column per line
"""
    layout.chart(fig, key="choices_norms", filename="choices_norms", code=code)
    measured = compute.add_or_concat(d_model, scale)
    parts = measured["parts"]
    fig = figcache.figure(
        figures.grouped_bars,
        PART_NAMES,
        {"root mean square over all pairs": parts},
        title=f"The three parts of the score of a 64-token phrase, d = {d_model}, added sinusoid",
        x_title="part of (x_i + p_i)·(x_j + p_j)",
        y_title="typical size (log scale)",
        log_y=True,
        y_range=(1e-5, 1e4),
        show_values=True,
        height=420,
    )
    code = f"""
x = properties.token_embeddings(64, {d_model}, scale={scale!r}, seed=1)  # (T, D) a 64-token phrase
pe = posenc.sinusoidal(64, {d_model})  # positions 0..63
data = properties.score_part_rms(x, pe)  # (3,): content, cross, position
"""
    layout.chart(fig, key="choices_parts", filename="choices_score_parts", code=code)
    added, concat = measured["params"]
    cols = st.columns(3)
    cols[0].metric("Tokens read back, added", f"{measured['recovered']:.0%}")
    cols[1].metric("Tokens read back, concatenated", f"{measured['recovered_concat']:.0%}")
    cols[2].metric(
        "Query, key and value weights, concatenated",
        f"{concat:,}",
        f"+{concat - added:,} over added",
        delta_color="off",
        delta_arrow="off",
    )
    st.caption(
        f"Read back: each of {compute.VOCAB} random tokens is placed at {compute.READ_POSITIONS} positions spread over "
        f"0 to {compute.READ_SPAN - 1}, and a linear read-out picks the nearest token vector. Concatenated, the code "
        f"sits in {d_model} extra slots the read-out ignores; every projection that reads the input then needs "
        f"d x (d + d_pos) weights instead of d x d. All vectors here are random, as at initialisation, and the "
        "read-out is the simplest one: what trained models do is not measured here. Known from the papers: Vaswani "
        "et al. (2017, sec. 3.4) multiply their embeddings by sqrt(d_model); GPT-2 and BERT initialise theirs with "
        "std 0.02; Ke et al. (2021, TUPE) argue that the mixed word-position terms may bring unnecessary randomness "
        "into attention, and compute the word and the position terms with separate projections."
    )
    ratio = parts[2] / parts[0]
    layout.notice(
        f"at d = {d_model} with these token vectors the position part of the score is {ratio:.3g} times the content "
        f"part and the cross terms are {parts[1] / parts[0]:.3g} times it. Added, {measured['recovered']:.0%} of the "
        f"(token, position) pairs read back as the right token; concatenated, {measured['recovered_concat']:.0%}, at "
        f"the price of {concat - added:,} more weights in three projections. The sinusoid's norm is sqrt(d/2) at every "
        "width; only token vectors scaled by sqrt(d) keep up with it."
    )


@LESSON.view("cache", "Caching during generation")
def caching() -> None:
    length = state.int_slider(
        "t", "Tokens already cached T", 1, 1024, 96, container=layout.key_control(), help="Token T + 1 arrives next."
    )
    train_len = state.int_slider(
        "train_len",
        "Training length L",
        16,
        512,
        64,
        step=16,
        container=layout.key_control(),
        help="The length the scaled RoPE variants refer to, and the rows of the learned table.",
    )
    st.latex(
        r"\text{cache valid} \iff k_j^{(T+1)} = k_j^{(T)}\ \text{and}\ \allowbreak b_i^{(T+1)} = b_i^{(T)}"
        r"\ \text{for all}\ i, j \le T"
    )
    steps = compute.cache_steps(length, train_len)
    names = [compute.CACHE_LABELS[m] for m in steps["methods"]]
    loop = f"""data = []
for m in properties.CACHE_METHODS:
    try:  # position cache after {length} tokens and after {length + 1}, one head, Dh = 64
        step = properties.cache_step(m, {length}, head_dim=64, train_len={train_len}, factor=4.0)
    except posenc.PositionOutOfRange:  # learned: no row for token {length + 1}
        continue
"""
    fig = figcache.figure(
        figures.grouped_bars,
        names,
        {"new entries for token T + 1": steps["new"], "cached entries that change": steps["changed"]},
        title=f"Appending token {length + 1}: what is made and what must be redone (L = {train_len}, Dh = 64)",
        x_title="method",
        y_title="entries (log scale)",
        log_y=True,
        y_range=(0.5, 1e6),
        value_format=",.0f",
        show_values=True,
        height=460,
    )
    code = loop + "    data.append([step.new, step.changed])\ndata = np.array(data)  # (methods, 2)\n"
    layout.chart(fig, key="choices_cache_counts", filename="choices_cache_counts", code=code)
    fig = figcache.figure(
        figures.grouped_bars,
        names,
        {"largest change of a cached entry": steps["max_change"]},
        title=f"Largest change of any cached entry when token {length + 1} arrives",
        x_title="method",
        y_title="largest |change| (log scale)",
        log_y=True,
        y_range=(1e-17, 10.0),
        value_format=".1e",
        show_values=True,
        height=420,
    )
    code = loop + "    data.append(step.max_change)\ndata = np.array(data)  # (methods,)\n"
    layout.chart(fig, key="choices_cache_change", filename="choices_cache_change", code=code)
    if steps["missing"]:
        st.caption(f"Learned: no bars, its table has {train_len} rows and token {length + 1} has none.")
    st.caption(
        "What each keeps: added codes and RoPE keep keys made once per token (RoPE turns each key once, at its own "
        "position); ALiBi, T5 and Transformer-XL keep keys without position and make a new row of T + 1 entries "
        "for each new query (for Transformer-XL each entry is a Dh-wide product $q_i \\cdot W_R R_{i-j}$). Dynamic NTK "
        "raises RoPE's base once T + 1 passes L, so every key rotated earlier is off: Hugging Face transformers "
        "issue #25104 reports exactly this. A proposed fix caches the keys before the rotation and turns them all "
        "again at every step (the 'change' bars count that work); transformers has not taken it, a maintainer "
        "finding such fixes too slow (PR #27227). RoPE + PI grow is position interpolation whose factor T / L "
        "grows with the text (an illustration, not a published recipe); the scaled variants use factor 4. "
        f"{changed_rule()}"
    )
    changed = [compute.CACHE_LABELS[m] for m, c in zip(steps["methods"], steps["changed"], strict=True) if c > 0]
    kept = [compute.CACHE_LABELS[m] for m, c in zip(steps["methods"], steps["changed"], strict=True) if c == 0]
    layout.notice(
        f"at T = {length} the cache of {', '.join(kept)} stays valid: no cached entry moves beyond rounding. "
        + (
            f"{' and '.join(changed)} change up to {int(steps['changed'].max()):,} cached entries, by up to "
            f"{steps['max_change'].max():.2g}. "
            if changed
            else f"Nothing changes yet for the scaled variants: T + 1 = {length + 1} is within L = {train_len}; "
            "move T past L. "
        )
        + "RoPE with fixed or statically rescaled (YaRN) frequencies keeps every cached key exactly."
    )


def changed_rule() -> str:
    """When a cached entry counts as changed, in the words of ``cache_step``'s own tolerance."""
    rtol = inspect.signature(props.cache_step).parameters["rtol"].default
    return (
        f"A cached entry counts as changed when it moves by more than {rtol:g} x max(1, largest |cached entry|); "
        "smaller moves are floating-point rounding (a matrix product of another shape sums in another order)."
    )


@LESSON.view("window", "Sliding-window attention")
def sliding_window() -> None:
    window = state.int_slider(
        "window",
        "Window w",
        1,
        32,
        4,
        container=layout.key_control(),
        help="Positions a token sees in one layer, itself included (Mistral 7B: 4096).",
    )
    seq_len = state.int_slider("sw_len", "Sequence length T", 2, 64, 16, container=layout.key_control())
    st.latex(
        r"\text{key } j \text{ visible to query } i \iff 0 \le i - j < w,"
        r"\qquad \text{reach after } L \text{ layers} = \min\big((w-1)L + 1,\ T\big)"
    )
    measured = compute.sliding_window(seq_len, window)
    fig = figcache.figure(
        figures.heatmap,
        measured["mask"],
        title=f"Which keys each query sees: window w = {window}, T = {seq_len}",
        x_title="key position j",
        y_title="query position i",
        x_name="key",
        y_name="query",
        value_name="seen",
        signed=False,
        zmax=1.0,
        value_format=".0f",
        row_noun="query",
        col_noun="key",
        height=460,
    )
    code = f"data = posenc.sliding_window_mask({seq_len}, {seq_len}, {window}).astype(float)  # (T, T): 1 = visible\n"
    layout.chart(fig, key="choices_window_mask", filename="sliding_window_mask", code=code)
    depths = np.arange(compute.WINDOW_DEPTH + 1)
    series = {"(w - 1) L + 1, capped at T": measured["formula"], "followed through the masks": measured["measured"]}
    fig = figcache.figure(
        figures.line_chart,
        depths,
        series,
        title=f"How many positions the last token can draw on, by depth (w = {window}, T = {seq_len})",
        x_title="layers L",
        y_title="positions within reach",
        x_name="layers",
        value_name="positions",
        value_format=".0f",
        styles={
            "(w - 1) L + 1, capped at T": {"mode": "lines"},
            "followed through the masks": {"mode": "markers", "size": 8},
        },
        height=400,
    )
    code = f"""
formula = [posenc.window_receptive_field({window}, layers, {seq_len}) for layers in range({compute.WINDOW_DEPTH + 1})]
measured = properties.window_reach({seq_len}, {window}, {compute.WINDOW_DEPTH})  # following the mask down each layer
data = np.column_stack([formula, measured])  # (depths, 2)
"""
    layout.chart(fig, key="choices_window_reach", filename="sliding_window_reach", code=code)
    memory = compute.window_cache()
    mistral = compute.MISTRAL
    fig = figcache.figure(
        figures.line_chart,
        np.array(compute.CACHE_LENGTHS),
        {"full cache": memory["full"], f"rolling cache, window {mistral['window']:,}": memory["rolling"]},
        title="Mistral 7B's key-value cache for one sequence, bfloat16",
        x_title="tokens T (log scale)",
        y_title="GiB",
        x_name="tokens",
        value_name="GiB",
        value_format=".3g",
        log_x=True,
        styles={
            name: {"mode": "lines+markers"} for name in ("full cache", f"rolling cache, window {mistral['window']:,}")
        },
        vlines={"window": mistral["window"]},
        height=400,
    )
    code = f"""
lengths = 2 ** np.arange(8, 18)  # 256 to 131,072 tokens
mistral = dict(layers={mistral["layers"]}, kv_heads={mistral["kv_heads"]}, head_dim={mistral["head_dim"]})  # bfloat16
full = [posenc.kv_cache_bytes(int(t), **mistral) for t in lengths]
rolling = [posenc.kv_cache_bytes(int(t), window={mistral["window"]}, **mistral) for t in lengths]
data = np.column_stack([full, rolling]) / 2**30  # GiB
"""
    layout.chart(fig, key="choices_window_cache", filename="sliding_window_cache", code=code)
    reach, at_32k = compute.mistral_window()
    cols = st.columns(3)
    cols[0].metric("Mistral 7B's reach after 32 layers", f"{reach:,} positions")
    cols[1].metric(
        "Its cache at 32,768 tokens",
        f"{at_32k['rolling']:.3g} GiB",
        f"full: {at_32k['full']:.3g} GiB",
        delta_color="off",
        delta_arrow="off",
    )
    cols[2].metric(
        f"RoPE scores, window moved {compute.WINDOW_ROPE_SHIFT:,} on",
        f"{measured['rope_error']:.1e}",
        "largest change",
        delta_color="off",
        delta_arrow="off",
    )
    st.caption(
        f"Mistral 7B v0.1: window {mistral['window']:,}, {mistral['layers']} layers, {mistral['kv_heads']} key-value "
        f"heads of width {mistral['head_dim']} (its published params.json; transformers' MistralConfig defaults). "
        "Gemma 2 alternates sliding-window layers with global ones, and Gemma 3 has five local layers per global "
        "one (the layer_types of its configurations): only the global layers' caches grow with the text. "
        "The rolling cache writes the token at "
        "position p into slot p mod w, over the one no query can see any more. Mistral applies RoPE before "
        "caching; since RoPE's scores depend only on i - j (the third number: the same window scored at positions "
        f"0..w-1 and {compute.WINDOW_ROPE_SHIFT:,} on, {compute.WINDOW_ROPE_DIM}-wide random queries and keys), "
        "keys kept in the buffer at their own positions stay valid. Backends have disagreed by one on the window "
        "(w or w + 1 keys: transformers issue #29623); this page counts the query itself among its w."
    )
    layout.notice(
        window_notice(window, seq_len) + f" A window of {mistral['window']:,} over {mistral['layers']} "
        f"layers reaches {reach:,} positions, yet the rolling cache stops growing at {mistral['window']:,} tokens "
        f"({at_32k['rolling']:.3g} GiB where a full cache of 32,768 tokens takes {at_32k['full']:.3g} GiB). Reach is "
        "not memory: what lies beyond one window arrives only as it was relayed through the layers in between."
    )


def window_notice(window: int, seq_len: int) -> str:
    """What the mask and the reach chart show at this window and length, true at every value."""
    if window == 1:
        return (
            "with w = 1 each token sees only itself, and stacking layers adds nothing: the reach stays 1 at every "
            "depth, and the markers sit on the line."
        )
    layers = -(-(seq_len - 1) // (window - 1))  # the fewest L with (w - 1) L + 1 >= T
    where = "within the depths drawn" if layers <= compute.WINDOW_DEPTH else "deeper than the chart goes"
    seen = (
        f"itself and up to {window - 1} tokens before it"
        if window < seq_len
        else "every earlier token (the window covers T)"
    )
    return (
        f"each row of the mask holds at most {min(window, seq_len)} visible keys: a token sees {seen}. Stacked, the "
        f"layers reach {window - 1} positions further each, so the last token can draw on all {seq_len} after "
        f"{layers} layer{'s' if layers != 1 else ''} ({where}); the markers, found by following the masks, sit on "
        "the line."
    )


@LESSON.view("hybrid", "Absolute plus relative")
def hybrid() -> None:
    weight = state.float_slider(
        "weight", "Weight w of the absolute part", 0.0, 1.0, 0.5, step=0.05, container=layout.key_control()
    )
    relative = state.choice(
        "relative",
        "Relative part",
        list(props.HYBRID_RELATIVE),
        "rope",
        labels=compute.RELATIVE_LABELS,
        container=layout.key_control(),
    )
    absolute = state.choice(
        "absolute", "Absolute part", list(props.HYBRID_ABSOLUTE), "sinusoidal", labels={"learned": "learned (random)"}
    )
    shift = state.int_slider("shift", "Move the phrase by", 1, 256, 16, help="Positions to move the 32-token phrase.")
    st.latex(r"s_{ij}(w) = \frac{r(x_i + w\,p_i)\cdot r(x_j + w\,p_j)}{\sqrt{D_h}} + b(j - i)")
    curves = compute.hybrid_curves(absolute, shift)
    weights = np.array(compute.HYBRID_WEIGHTS)
    options = f"absolute={absolute!r}, max_len=512, std=0.5, seed=0, slope=0.5"
    left, right = layout.columns(2)
    fig = figcache.figure(
        figures.line_chart,
        weights,
        {compute.RELATIVE_LABELS[r]: curves[r] for r in props.HYBRID_RELATIVE},
        title=f"Largest score change when the phrase moves {shift} places, by weight w",
        x_title="weight w of the absolute part",
        y_title="largest |score change|",
        x_name="w",
        value_name="change",
        value_format=".3g",
        vlines={f"w = {weight:g}": weight},
        # the lines may lie on one another: width and dashes keep each visible
        styles={
            compute.RELATIVE_LABELS["none"]: {"width": 7},
            compute.RELATIVE_LABELS["rope"]: {"dash": "dash", "width": 4},
            compute.RELATIVE_LABELS["alibi"]: {"dash": "dot", "width": 3},
        },
        height=440,
    )
    code = f"""
x = compare_lessons.phrase(32, 64, "random", seed=0)  # (T, Dh)
weights = np.round(np.linspace(0, 1, 21), 2)
data = np.column_stack([
    properties.hybrid_translation_errors(x, {shift}, weights, relative=r, {options})
    for r in ("none", "rope", "alibi", "t5")
])  # (21, 4)
"""
    with left:
        layout.chart(fig, key="choices_hybrid_curve", filename="choices_hybrid_curve", code=code)
    change = compute.hybrid_change(absolute, relative, shift, weight)
    fig = figcache.figure(
        figures.heatmap,
        change,
        title=f"Scores moved {shift} places minus scores in place, w = {weight:g}, {compute.RELATIVE_LABELS[relative]}",
        x_title="key j",
        y_title="query i",
        x_name="key",
        y_name="query",
        value_name="change",
        row_noun="query",
        col_noun="key",
        height=440,
    )
    code = f"""
x = compare_lessons.phrase(32, 64, "random", seed=0)
options = dict(relative={relative!r}, {options})
moved = properties.hybrid_scores(x, np.arange({shift}, {shift + 32}), weight={weight!r}, **options)
data = moved - properties.hybrid_scores(x, 32, weight={weight!r}, **options)  # (T, T)
"""
    with right:
        layout.chart(fig, key="choices_hybrid_change", filename="choices_hybrid_change", code=code)
    at_zero, at_w = curves[relative][0], curves[relative][int(np.argmin(np.abs(weights - weight)))]
    half, full = curves[relative][10], curves[relative][20]
    st.caption(
        "Real hybrids: TUPE (Ke et al. 2021) adds a T5-style relative bias to a separately projected absolute term "
        "in its TUPE-R variant; DeBERTa (He et al. 2021) uses relative positions in every layer and adds absolute "
        "positions only in its enhanced mask decoder, to predict masked words. Shaw et al. (2018) found that "
        "combining relative and absolute representations gave no further gain in translation, and Sinha et al. "
        "(2022) found models with absolute embeddings degrade when a sentence starts at a later position."
    )
    growth = f"Doubling w from 0.5 to 1 multiplies the change by {full / half:.2f}. " if half > 0 else ""
    why = (
        "With the sinusoid, p_i·p_j depends on i - j alone, so the change grows in step with w: it comes from the "
        "cross terms x·p, which tie each word to its absolute place."
        if absolute == "sinusoidal"
        else "A learned table's own products p_i·p_j also depend on the place, so the change grows faster than w."
    )
    spread = float(np.max(np.ptp(np.stack(list(curves.values())), axis=0)))
    overlap = (
        f"The four lines lie on one another (they differ by at most {spread:.1e}): whichever relative part is used, "
        "the change comes from the absolute part. "
        if spread < 1e-9 * max(1.0, float(curves["none"].max()))
        else ""
    )
    layout.notice(
        f"with w = 0 the relative part alone moves the scores by {at_zero:.1e}: the phrase may sit anywhere. At "
        f"w = {weight:g} the absolute part moves them by {at_w:.3g}. " + overlap + growth + why
    )


@LESSON.view("properties", "Unique, bounded, norm-preserving")
def properties() -> None:
    d_model = controls.d_model(container=layout.key_control())
    n = controls.n_positions(default=1024, container=layout.key_control())
    base = controls.base()
    st.latex(
        r"\lVert PE_p - PE_{p+k}\rVert = 2\sqrt{\textstyle\sum_i \sin^2(k\,\omega_i/2)},"
        r"\qquad \allowbreak \lVert PE_p\rVert = \sqrt{d/2},\qquad \allowbreak \lVert R_p\,q\rVert = \lVert q\rVert"
    )
    dist = compute.code_distances(n, d_model, base)
    rows = dist["learned_rows"]
    offsets = np.arange(1, n)
    fig = figcache.figure(
        figures.line_chart,
        offsets,
        {
            f"sinusoid, d = {d_model}": dist["sinusoid"],
            "closest pair within 0..k (sinusoid)": dist["closest"],
            f"learned, std 0.02, {rows} rows": dist["learned"],
        },
        title="Distance between the codes of two positions k apart",
        x_title="offset k",
        y_title="distance |code_p - code_(p+k)|",
        x_name="k",
        value_name="distance",
        value_format=".3g",
        styles={"closest pair within 0..k (sinusoid)": {"dash": "dash"}},
        height=440,
    )
    code = f"""
k = np.arange(1, {n})  # offsets
sinusoid = properties.sinusoid_offset_distance(k, {d_model}, base={base!r})  # the same for every p
closest = properties.sinusoid_closest({n}, {d_model}, base={base!r})[3]  # running minimum
table = posenc.learned_table({rows}, {d_model}, std=0.02, seed=0)  # no row past {rows - 1}
learned = np.full({n - 1}, np.nan)
learned[: {rows - 1}] = properties.offset_distances(table)  # mean over p
data = np.column_stack([sinusoid, closest, learned])
"""
    layout.chart(fig, key="choices_distances", filename="choices_code_distances", code=code)
    held = compute.norms(n, d_model, base)
    fig = figcache.figure(
        figures.line_chart,
        np.arange(n),
        {
            "RoPE": held["ratios"]["rope"],
            "xPos, query": held["ratios"]["xpos_query"],
            "xPos, key": held["ratios"]["xpos_key"],
        },
        title="How the position changes a vector's norm: |f_p(q)| / |q|",
        x_title="position p",
        y_title="norm ratio (log scale)",
        x_name="position",
        value_name="ratio",
        value_format=".4g",
        log_y=True,
        height=420,
    )
    code = f"""
methods = ("rope", "xpos_query", "xpos_key")  # xPos: gamma 0.4, scale_base 512
data = np.column_stack([properties.norm_ratio(m, {n}, {d_model}, seed=0, base={base!r}) for m in methods])
"""
    layout.chart(fig, key="choices_norm_ratio", filename="choices_norm_ratio", code=code)
    (d_min, k_min, close), (two_min, two_k, _) = dist["sin_closest"], dist["two_closest"]
    cols = st.columns(4)
    quiet = dict(delta_color="off", delta_arrow="off")
    apart = f"{k_min} position{'s' if k_min != 1 else ''} apart"
    cols[0].metric(f"Closest two of {n} sinusoid codes", f"{d_min:.3g}", apart, **quiet)
    cols[1].metric("The same at d = 2", f"{two_min:.2g}", f"{two_k} positions apart", **quiet)
    cols[2].metric("Largest |‖PE_p‖ − sqrt(d/2)|", f"{held['sin_gap']:.1e}")
    cols[3].metric("RoPE: largest | ‖Rₚq‖ / ‖q‖ − 1 |", f"{held['rope_gap']:.1e}")
    learned_d, p, q = dist["learned_closest"]
    st.caption(
        f"The learned table (random, std 0.02, as initialised) has rows 0 to {rows - 1} only: its closest two rows "
        f"({p} and {q}) are {learned_d:.3g} apart, its largest norm is {dist['learned_max']:.3g}, and past its last "
        f"row there is no code at all. {close:,} pairs of the first {n} sinusoid codes are closer than {compute.CLOSE}."
    )
    layout.notice(
        f"unique: no two of the first {n} codes coincide, but with d = {d_model} and base {base:,.0f} the closest are "
        f"{d_min:.3g} apart, and with d = 2 two codes {two_k} positions apart are only {two_min:.1e} apart. Bounded: "
        f"every sinusoid code has norm sqrt(d/2) = {np.sqrt(d_model / 2):.4g} to {held['sin_gap']:.0e}. "
        f"Norm-preserving: RoPE keeps |q| to {held['rope_gap']:.0e}; xPos does not, by design: it shrinks queries and "
        f"grows keys, here to {held['ratios']['xpos_query'][-1]:.3g} and {held['ratios']['xpos_key'][-1]:.3g} times "
        f"at p = {n - 1}."
    )


@LESSON.view("choose", "Which method should I choose?")
def choose() -> None:
    d_model = controls.d_model(container=layout.key_control())
    context = state.int_slider(
        "context",
        "Context length L",
        64,
        8192,
        2048,
        step=64,
        container=layout.key_control(),
        help="Rows of a learned table.",
    )
    n_heads = state.int_slider("heads", "Heads H", 1, 64, 8, help="T5 learns one scalar per bucket and head.")
    st.latex(
        r"\text{learned: } L \times d_{model},\qquad \allowbreak \text{T5: } 32 \times H,\qquad \allowbreak "
        r"\text{sinusoid, RoPE, ALiBi: } 0"
    )
    cells = compute.guide(d_model, n_heads, context)
    runs = {task: compute.stored_run(task) for task in ("copy", "marker")}
    errors = np.array(cells["translation"])
    fig = figcache.figure(
        compare_figures.translation_bars,
        [compute.GUIDE_LABELS[m] for m in compute.GUIDE_ROWS],
        errors,
        title=f"Largest change in a 32-token phrase's scores when it moves {compute.GUIDE_SHIFT} positions right",
        height=460,
    )
    code = f"""
x = compare_lessons.phrase(32, 64, "random", seed=0)  # (T, Dh)
s = {compute.GUIDE_SHIFT}  # positions moved
scaled = lambda kind: {{"rope_type": kind, "factor": 4.0, "original_max_position_embeddings": 64}}
data = np.array([
    posenc.translation_error(x, s, "sinusoidal"),
    posenc.translation_error(x, s, "learned", max_len=128, std=0.5, seed=0),
    posenc.translation_error(x, s, "rope"),
    properties.rope_translation_error(x, s, rope_scaling=scaled("yarn")),
    properties.rope_translation_error(x, s, rope_scaling=scaled("dynamic")),
    posenc.translation_error(x, s, "alibi", slope=0.5),
    posenc.translation_error(x, s, "t5"),
])  # one bar per method, in the table's order
"""
    layout.chart(fig, key="choices_guide_translation", filename="choices_guide_translation", code=code, data=errors)
    layout.table(compute.guide_table(cells), index="Method")
    st.caption(
        f"Parameters: learned ones at L = {context}, d = {d_model}, H = {n_heads}. Copy and Marker: accuracy at the "
        "training length and at twice it, from the stored runs of the Experiments lesson (its default settings, one "
        "seed; 'not run': not in that experiment). The other columns were measured just now. Moved: the largest "
        f"change in the scores of a 32-token phrase moved {compute.GUIDE_SHIFT} places (the learned table with "
        f"{compute.GUIDE_LEARNED_ROWS} random rows; the scaled RoPE variants with factor 4 and "
        f"L = {compute.GUIDE_CACHE_TRAIN}). Cache: when token {compute.GUIDE_CACHE_LEN + 1} arrives with "
        f"L = {compute.GUIDE_CACHE_TRAIN}, the cached entries that change and the entries made for the new token "
        "('no row': the learned table ends at L)."
        + ("" if all(runs.values()) else " A stored run is missing: its cells say so.")
        + f" On the log axis an exact 0 is drawn as a short bar at {compare_figures.FLOOR:.0e} and labelled 0."
    )
    st.markdown("\n".join(f"{i}. {text}" for i, text in enumerate(compute.recommendations(cells), start=1)))
    layout.notice(compute.guide_notice(cells))
