"""Lesson: relative positions (Shaw et al., T5, Transformer-XL, DeBERTa)."""

import numpy as np
import pandas as pd
import streamlit as st

from posenc_lab import figures
from posenc_lab.lessons.relative import compute
from posenc_lab.lessons.relative import exercises as relative_exercises
from posenc_lab.lessons.relative import figures as relfig
from posenc_lab.ui import figcache, layout, state
from posenc_lab.ui.lesson import Lesson

#: head widths offered for the random queries and keys
HEAD_WIDTHS = (4, 8, 16, 32, 64, 128)

LESSON = Lesson(
    __file__,
    "Relative positions",
    "relative",
    question="How do Shaw, T5, Transformer-XL and DeBERTa put the distance between two words into attention?",
    icon=":material/swap_horiz:",
    exercises=relative_exercises.EXERCISES,
    skills=relative_exercises.SKILLS,
    polls=relative_exercises.POLLS,
    largest={
        "len": "64",
        "clip": "32",
        "dh": "128",
        "nb": "128",
        "maxd": "512",
        "tlen": "256",
        "bsize": "512",
        "maxpos": "1024",
        "uv": "3",
    },
)


@LESSON.intro
def intro() -> None:
    """The lead, and the sign convention each method writes its offsets in."""
    layout.lesson(
        "Relative positions",
        "Absolute encodings give every word a coordinate. Relative methods hand attention the "
        "distance between two words instead, right where the query meets the key: a learned vector "
        "per offset (Shaw et al. 2018), a learned scalar per bucket of offsets (T5), extra score "
        "terms built from a sinusoid of the distance (Transformer-XL), or separate content and "
        "position projections (DeBERTa). The only positional input is the offset: two given words "
        "three apart get the same score wherever the pair sits in the sentence.",
    )
    st.caption(
        "Signs: Shaw et al. and T5 measure key minus query, j - i (negative: the key is earlier); "
        "Transformer-XL and DeBERTa write query minus key, i - j, as their papers do."
    )


def sequence_length() -> int:
    """T, shared by the offsets, Transformer-XL and DeBERTa views (one URL name, ``len``)."""
    return state.int_slider(
        "len",
        "Sequence length T",
        2,
        64,
        12,
        help="Queries and keys are positions 0..T-1.",
        container=layout.key_control(),
    )


def random_code(seed: int, rows: dict[str, tuple[str, str]]) -> str:
    """Snippet lines drawing the lesson's seeded random inputs, in the compute module's order:
    name -> (shape, comment)."""
    lines = [f"rng = np.random.default_rng({seed})"]
    lines += [f"{name} = rng.standard_normal({shape})  # {what}" for name, (shape, what) in rows.items()]
    return "\n".join(lines) + "\n"


@LESSON.view("matrix", "Offsets and clipping")
def matrix() -> None:
    state.sidebar().header("Offsets")
    length = sequence_length()
    clip = state.int_slider(
        "clip",
        "Clipping distance K",
        0,
        32,
        3,
        help="Shaw et al.: offsets beyond +-K share the edge vector.",
        container=layout.key_control(),
    )
    state.sidebar().header("Shaw scores")
    d_head = int(state.choice_slider("dh", "Head width d_head", HEAD_WIDTHS, 64))
    seed = state.int_slider("seed", "Seed", 0, 99, 0, help="Random queries, keys and relative vectors.")

    st.latex(
        r"a^K_{ij} = w^K_{\mathrm{clip}(j-i,\,-K,\,K)},\qquad "
        r"e_{ij} = \frac{q_i^\top k_j + q_i^\top a^K_{ij}}{\sqrt{d}},\qquad "
        r"z_i = \sum_j \alpha_{ij}\,\bigl(v_j + a^V_{ij}\bigr)"
    )
    raw, clipped = compute.offsets(length, clip)
    fig = figcache.figure(
        relfig.offset_panels,
        raw,
        clipped,
        max_distance=clip,
        title=f"Relative position of every (query, key) pair, T = {length}",
        height=520,
    )
    code = f"""
raw = posenc.relative_positions({length})  # (T, T): j - i, key minus query
clipped = posenc.relative_positions({length}, max_distance={clip})  # clip(j - i, -K, K)
data = np.hstack([raw, clipped])  # (T, 2T): the two panels side by side
"""
    layout.chart(fig, key="rel_offsets", filename="relative_offsets", code=code, data=np.hstack([raw, clipped]))
    st.caption(
        "One colour scale for both panels. Cell values are printed up to T = 16. "
        "Dashed: the border of the band |j - i| <= K."
    )
    if clip >= length - 1:
        clipped_note = (
            f"K = {clip} reaches the farthest pair (T - 1 = {length - 1}), so nothing is clipped and the "
            "two panels are equal; lower K to see the clipping."
        )
    else:
        clipped_note = (
            f"In the right panel every cell outside the dashed band holds {clip} or -{clip}: all those pairs "
            "read the same edge vector, so the model cannot tell a key "
            f"{clip + 1} steps away from one {length - 1} steps away."
        )
    layout.notice(
        "every diagonal holds one number: the offset depends on how far apart two words are, not on where "
        "they are. 0 on the main diagonal, positive to the right (keys after the query), negative to the "
        "left. " + clipped_note
    )

    vectors = 2 * clip + 1
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Learned offsets", f"{vectors}", help="2K + 1: the offsets -K..K")
    c2.metric("Key table a^K", f"{vectors * d_head:,}", help=f"(2K + 1) x d_head = {vectors} x {d_head}")
    c3.metric("Value table a^V", f"{vectors * d_head:,}", help="the same size again")
    c4.metric("Per layer", f"{2 * vectors * d_head:,}", help="keys and values; shared by the heads of a layer")
    st.caption(
        "Shaw et al. share the two tables across the heads of a layer. The sequence length appears nowhere: "
        "the same 2K + 1 vectors serve a sentence of any length, including lengths never seen in training."
    )

    content, position, total = compute.shaw_split(length, d_head, clip, seed)
    fig = figcache.figure(
        relfig.score_terms,
        [content, position, total],
        ["content: q_i . k_j", "position: q_i . a_ij", "sum (before / sqrt(d))"],
        title=f"Shaw et al.'s score, split (random q, k and a^K, d_head = {d_head}, seed {seed})",
    )
    code = random_code(
        seed,
        {
            "q": (f"({length}, {d_head})", "queries (T, d_head)"),
            "k": (f"({length}, {d_head})", "keys (T, d_head)"),
            "table": (f"({vectors}, {d_head})", "a^K: one vector per offset -K..K"),
        },
    )
    code += """terms = posenc.shaw_scores(q, k, table)  # content q_i . k_j, position q_i . a_ij
data = np.hstack([terms.content, terms.position, terms.content + terms.position])  # (T, 3T), before / sqrt(d)
"""
    layout.chart(
        fig,
        key="rel_shaw_split",
        filename="relative_shaw_split",
        code=code,
        data=np.hstack([content, position, total]),
    )
    st.caption("One colour scale for the three panels.")
    if clip == 0:
        shaw_note = (
            "with K = 0 there is a single vector, so the position part is the same for every key of a row, "
            "and softmax ignores a constant added to a whole row: no position information at all."
        )
    else:
        shaw_note = (
            f"the position part of row i takes at most 2K + 1 = {vectors} values; every key more than {clip} "
            f"steps to the right of the query gets the same one, and so does every key more than {clip} "
            "to the left. The content part has no such pattern: it depends on the words, not on where they are."
        )
    layout.notice(shaw_note)


@LESSON.view("t5", "T5 buckets")
def t5() -> None:
    state.sidebar().header("Buckets")
    num_buckets = state.int_slider(
        "nb", "num_buckets", 4, 128, 32, step=2, help="T5 uses 32.", container=layout.key_control()
    )
    max_distance = state.int_slider(
        "maxd", "max_distance", 1, 512, 128, help="T5 uses 128.", container=layout.key_control()
    )
    bidirectional = state.toggle(
        "bidir", "Bidirectional (encoder)", True, help="Off: the decoder's version, which only looks back."
    )
    state.sidebar().header("Bias grid")
    length = state.int_slider("tlen", "Sequence length T", 2, 256, 160)
    seed = state.int_slider("seed", "Seed", 0, 99, 0, help="The starting values of the bias table.")
    max_distance = t5_buckets(num_buckets, max_distance, bidirectional)
    t5_bias_grid(num_buckets, max_distance, bidirectional, length, seed)


def t5_buckets(num_buckets: int, max_distance: int, bidirectional: bool) -> int:
    """Which bucket each offset falls in, and how wide the far buckets get; returns the
    max_distance drawn (the smallest allowed one when the chosen one is too small)."""
    try:
        curve = compute.t5_curve(num_buckets, max_distance, bidirectional)
    except ValueError as exc:
        layout.core_error(exc)
        max_distance = compute.t5_fallback_max_distance(num_buckets, bidirectional)
        st.caption(f"Showing max_distance = {max_distance} instead, the smallest these buckets allow.")
        curve = compute.t5_curve(num_buckets, max_distance, bidirectional)
    exact, per_side = curve["max_exact"], num_buckets // 2 if bidirectional else num_buckets
    vlines = [
        dict(x=-exact, text=f"-{exact} (max_exact)"),
        dict(x=-max_distance, text=f"-{max_distance} (max_distance)", level=1),
    ]
    if bidirectional:
        vlines += [
            dict(x=exact, text=f"+{exact} (max_exact)"),
            dict(x=max_distance, text=f"+{max_distance} (max_distance)", level=1),
        ]
    fig = figcache.figure(
        relfig.bucket_chart,
        curve["rel"],
        curve["bucket"],
        curve["region"],
        compute.T5_REGIONS,
        title=(
            f"T5 bucket of each relative position: num_buckets = {num_buckets}, max_distance = {max_distance}, "
            f"{'bidirectional' if bidirectional else 'unidirectional'}"
        ),
        x_title="relative position j - i (key minus query)",
        y_title="bucket",
        vlines=vlines,
        height=440,
    )
    code = f"""
rel = np.arange({-2 * max_distance}, {2 * max_distance + 1})  # relative positions j - i (key minus query)
bucket = posenc.t5_bucket(rel, bidirectional={bidirectional}, num_buckets={num_buckets}, max_distance={max_distance})
data = np.column_stack([rel, bucket])  # (offsets, 2): relative position, bucket
"""
    layout.chart(
        fig,
        key="t5_buckets",
        filename="relative_t5_buckets",
        code=code,
        data=np.column_stack([curve["rel"], curve["bucket"]]),
    )
    # the formula and its conventions under the chart they describe: the chart first
    st.latex(
        r"s_{ij} = q_i^\top k_j + b_{\,\mathrm{bucket}(j-i)},\qquad "
        r"\mathrm{bucket}(r) = e + \left\lfloor \frac{\log(|r|/e)}{\log(\mathrm{max\_distance}/e)}\,(n-e)"
        r"\right\rfloor \ \text{ for } e \le |r| < \mathrm{max\_distance}"
    )
    st.caption(
        "n buckets per direction (num_buckets / 2 bidirectional, num_buckets otherwise); distances below "
        "e = n / 2 are their own bucket, the log formula is capped at n - 1, and bidirectional keys ahead add n. "
        "T5's sign: relative_position = key - query (memory_position - context_position in its code)."
    )
    bucket, lo, hi, count = compute.t5_widest(num_buckets, max_distance, bidirectional, max_distance - 1, True)
    start = compute.t5_last_bucket_start(num_buckets, max_distance, bidirectional)
    spread = (
        f"so they cover more and more offsets (bucket {bucket} alone holds the {count} offsets {lo} to {hi})"
        if count > 1
        else "here so close together that every bounded bucket still holds one offset"
    )
    if start <= exact:
        spread = (
            "except that there is no room left for them: from "
            f"{exact} step{'' if exact == 1 else 's'} on, every offset is in the last bucket"
        )
    if bidirectional:
        own = (
            f"offsets -{exact - 1} to +{exact - 1} each get a bucket of their own"
            if exact > 1
            else "only offset 0 gets a bucket of its own"
        )
        layout.notice(
            f"{own}; from +-{exact} on, buckets are spaced logarithmically up to +-{max_distance}, {spread}. "
            f"Every offset at or beyond +-{max_distance} shares the last bucket of its side. Keys before the "
            f"query use buckets 0 to {per_side - 1}, keys after it {per_side} to {num_buckets - 1}; bucket "
            f"{per_side} is never used, since a key ahead is at least 1 away."
        )
    else:
        layout.notice(
            "the decoder only looks back: offset 0 and every key ahead share bucket 0 (future keys are masked "
            f"anyway), and the other buckets all go to keys before the query, exact down to -{exact - 1}, then "
            f"log-spaced down to -{max_distance}, {spread}."
        )
    return max_distance


def t5_bias_grid(num_buckets: int, max_distance: int, bidirectional: bool, length: int, seed: int) -> None:
    """The bias table, editable, and the T x T bias it gives."""
    state.sidebar().header("Bias table (editable)")
    tables = st.session_state.setdefault("_t5_tables", {})
    resets = st.session_state.setdefault("_t5_resets", 0)
    if state.sidebar().button("Reset to the seeded values", key="t5_reset"):
        tables.pop((num_buckets, seed), None)
        resets = st.session_state["_t5_resets"] = resets + 1
    values = tables.get((num_buckets, seed), compute.t5_seeded_table(num_buckets, seed))
    editor_data = pd.DataFrame(
        {"offsets j - i": compute.t5_range_labels(num_buckets, max_distance, bidirectional), "bias": values},
        index=pd.RangeIndex(num_buckets, name="bucket"),
    )
    edited = state.sidebar().data_editor(
        editor_data,
        key=f"t5_table:{num_buckets}:{seed}:{resets}",
        num_rows="fixed",
        disabled=["offsets j - i"],
        column_config={
            "bias": st.column_config.NumberColumn("bias", min_value=-10.0, max_value=10.0, step=0.01, format="%.2f")
        },
    )
    state.sidebar().caption(
        "Edits stay in this browser session (st.session_state), not in the link: a shared URL shows the "
        "seeded table. A cleared cell counts as 0."
    )
    table = tuple(float(b) for b in edited["bias"].fillna(0.0))
    tables[(num_buckets, seed)] = table

    bias, buckets = compute.t5_grid(table, length, bidirectional, max_distance)
    left, right = layout.columns([3, 2])
    fig = figcache.figure(
        relfig.bucket_heatmap,
        bias,
        buckets,
        title=f"The bias each pair gets, T = {length} (one head)",
        value_name="bias b",
        height=560,
        # square: on a phone its side is 170 px, and more cells than pixels draw moiré stripes
        max_rows=figures.PHONE_CELLS,
        max_cols=figures.PHONE_CELLS,
    )
    step = figures.display_steps(length, length, figures.PHONE_CELLS, figures.PHONE_CELLS)[0]
    rows = [", ".join(repr(b) for b in table[at : at + 8]) for at in range(0, len(table), 8)]
    seeded = table == compute.t5_seeded_table(num_buckets, seed)
    origin = (
        f"np.random.default_rng({seed}).standard_normal({num_buckets}).round(2)" if seeded else "edited in the sidebar"
    )
    code = (
        f"# one bias per bucket (one head): {origin}\n"
        "table = np.array([\n" + "".join(f"    {row},\n" for row in rows) + "])\n"
        f"bias = posenc.t5_bias(table[:, None], {length}, bidirectional={bidirectional}, max_distance={max_distance})\n"
        "data = bias[0]  # (T, T): the bias of every (query, key) pair\n"
        + (f"data = data[::{step}, ::{step}]  # every {step}th query and key, as drawn\n" if step > 1 else "")
    )
    with left:
        layout.chart(fig, key="t5_bias_grid", filename="relative_t5_bias", code=code)
    with right:
        st.markdown(
            f"**The learned part.** One scalar per bucket and head: {num_buckets} x H numbers for H heads "
            "(32 x 12 = 384 in T5-base), learned in the first layer of each stack (encoder and decoder) "
            f"and reused by the others. Edit the table in {layout.SIDE_PANEL}: the grid follows."
        )
        st.markdown(
            "**Nothing to compute at run time** but a lookup: the bias is added to the logit, "
            "so a far-away offset costs the same as a near one."
        )
        bucket, lo, hi, count = compute.t5_widest(num_buckets, max_distance, bidirectional, length - 1, True)
        start = compute.t5_last_bucket_start(num_buckets, max_distance, bidirectional)
        corners = length - 1 >= start
        if count > 1:
            stripes = (
                f"Diagonals in one bucket share a colour: bucket {bucket} covers the {count} diagonals "
                f"j - i = {lo} to {hi}."
            )
        else:
            stripes = (
                f"{'Nearer than that' if corners else 'Up to this length'}, every diagonal has a bucket of its own."
            )
        if not corners:
            flat = ""
        elif bidirectional:
            flat = f"Where |j - i| >= {start} the corners are flat: the last bucket of each side. "
        else:
            flat = f"Where j - i <= -{start} the lower-left corner is flat: the last bucket. "
        layout.notice(
            "the grid is constant along every diagonal: the bias depends only on j - i. "
            + (flat + stripes if count == 1 else stripes + " " + flat).strip()
            + (" The upper triangle (keys ahead) is one colour: bucket 0." if not bidirectional else "")
        )


@LESSON.view("xl", "Transformer-XL terms")
def xl() -> None:
    state.sidebar().header("Scores")
    length = sequence_length()
    d = int(state.choice_slider("dh", "Head width d", HEAD_WIDTHS, 64))
    seed = state.int_slider("seed", "Seed", 0, 99, 0, help="Random q, k, u and v.")
    uv_scale = state.float_slider(
        "uv", "Size of u and v", 0.0, 3.0, 1.0, step=0.1, fmt="%.1f", help="0 switches terms (c) and (d) off."
    )
    causal = state.toggle("causal", "Hide future keys (causal mask)", False, help="Transformer-XL is a causal LM.")

    st.latex(
        r"A_{ij} = \underbrace{q_i^\top k_j}_{(a)} + \underbrace{q_i^\top W_R R_{i-j}}_{(b)} + "
        r"\underbrace{u^\top k_j}_{(c)} + \underbrace{v^\top W_R R_{i-j}}_{(d)}"
    )
    st.caption(
        r"$R_{i-j}$ is a fixed sinusoid of the distance $i - j$ (query minus key); $W_R$ is learned (the identity "
        r"here), $u$ and $v$ are two learned vectors shared by every position. The logit is $A_{ij} / \sqrt{d}$."
    )
    terms = compute.xl_terms(length, d, seed, uv_scale, causal)
    xl_code = random_code(
        seed,
        {
            "q": (f"({length}, {d})", "queries (T, d)"),
            "k": (f"({length}, {d})", "keys (T, d)"),
        },
    )
    xl_code += f"""u = {uv_scale!r} * rng.standard_normal({d})  # global content bias (d,)
v = {uv_scale!r} * rng.standard_normal({d})  # global position bias (d,)
terms = posenc.transformer_xl_scores(q, k, u, v)  # W_R = identity
"""
    if causal:
        xl_code += f"future = posenc.relative_positions({length}) > 0  # keys after the query, masked\n"
    fig = figcache.figure(
        relfig.score_terms,
        [terms["a"], terms["b"], terms["c"], terms["d"]],
        ["(a) content-content", "(b) content-position", "(c) content bias u", "(d) position bias v"],
        title=f"Transformer-XL's four terms (random q, k, u, v; d = {d}, seed {seed})",
        height=400,
    )
    code = xl_code + (
        "panels = [terms.content_content, terms.content_position, terms.global_content, terms.global_position]\n"
    )
    if causal:
        code += "panels = [np.where(future, np.nan, z) for z in panels]  # causal mask\n"
    code += "data = np.hstack(panels)  # (T, 4T): (a), (b), (c), (d) side by side\n"
    layout.chart(
        fig,
        key="xl_terms",
        filename="relative_xl_terms",
        code=code,
        data=np.hstack([terms[name] for name in "abcd"]),
    )
    st.caption("One colour scale for the four panels." + (" Blank: masked future keys." if causal else ""))
    if uv_scale == 0:
        layout.notice(
            "u and v are 0 here, so (c) and (d) vanish and only (a) and (b) remain. Raise their size to see "
            "what each global bias adds."
        )
    else:
        layout.notice(
            r"(c) $u \cdot k_j$ does not involve the query: each column is one colour. "
            r"(d) $v \cdot W_R R_{i-j}$ depends only on i - j: each diagonal is one colour. "
            "(a) and (b) both involve the query's content, so they change from row to row."
        )
    left, right = layout.columns([3, 2])
    fig = figcache.figure(
        figures.heatmap,
        terms["total"],
        x=list(range(length)),
        y=list(range(length)),
        title="Their sum A_ij",
        x_title="key position j",
        y_title="query position i",
        x_name="key j",
        y_name="query i",
        value_name="A_ij",
        value_format=".2f",
        height=460,
    )
    code = xl_code + (
        "data = np.where(future, np.nan, terms.total)  # (T, T): A_ij\n"
        if causal
        else "data = terms.total  # (T, T): A_ij\n"
    )
    with left:
        layout.chart(fig, key="xl_total", filename="relative_xl_total", code=code)
    with right:
        st.markdown(
            "**Why two global biases?** With absolute encodings the query would carry its own position; "
            "here the query's position is gone, so the paper replaces it with u and v: the same for every "
            "query. (c) lets the model prefer some keys whatever is asking, (d) lets it prefer some "
            "distances, like a T5 bias computed from a sinusoid."
        )
        st.markdown(
            "**Why relative?** Transformer-XL reuses the hidden states of the previous segment as memory. "
            "Absolute positions would collide across segments; i - j does not."
        )
        layout.notice(
            f"the sum, divided by sqrt(d) = sqrt({d}), is what the softmax sees. The softmax of a row ignores "
            "anything added to the whole row, so (c) and (d) matter through how they vary from key to key "
            "within a row, not through their overall level."
        )


@LESSON.view("deberta", "DeBERTa")
def deberta() -> None:
    state.sidebar().header("Buckets")
    bucket_size = state.int_slider(
        "bsize", "bucket_size k", 4, 512, 8, step=2, help="DeBERTa-v3 uses 256 (position_buckets)."
    )
    max_position = state.int_slider(
        "maxpos",
        "max_position",
        4,
        1024,
        32,
        help="DeBERTa-v3 uses 512 (max_relative_positions).",
        container=layout.key_control(),
    )
    state.sidebar().header("Scores")
    length = sequence_length()
    d = int(state.choice_slider("dh", "Head width d", HEAD_WIDTHS, 64))
    seed = state.int_slider("seed", "Seed", 0, 99, 0, help="Random content and position vectors.")

    try:
        curve = compute.deberta_curve(bucket_size, max_position)
    except ValueError as exc:
        layout.core_error(exc)
        max_position = compute.deberta_fallback_max_position(bucket_size)
        st.caption(f"Showing max_position = {max_position} instead, the smallest this bucket_size allows.")
        curve = compute.deberta_curve(bucket_size, max_position)
    mid = bucket_size // 2
    fig = figcache.figure(
        relfig.bucket_chart,
        curve["rel"],
        curve["bucket"],
        curve["region"],
        compute.DEBERTA_REGIONS,
        title=f"DeBERTa's log bucket of each relative position: k = {bucket_size}, max_position = {max_position}",
        x_title="relative position i - j (query minus key)",
        y_title="bucket",
        vlines=[
            dict(x=-mid, text=f"-{mid} (k/2)"),
            dict(x=mid, text=f"+{mid} (k/2)"),
            dict(x=-max_position, text=f"-{max_position} (max_position)", level=1),
            dict(x=max_position, text=f"+{max_position} (max_position)", level=1),
        ],
        extra={f"offset read from the 2k = {2 * bucket_size} table rows": curve["used"]},
        height=440,
    )
    code = f"""
rel = np.arange({-2 * max_position}, {2 * max_position + 1})  # relative positions i - j (query minus key)
bucket = posenc.deberta_log_bucket(rel, bucket_size={bucket_size}, max_position={max_position})
# the offset the attention reads from the 2k-row table (the bucket clipped to -k..k-1)
used = posenc.relative.deberta_table_offset(rel, bucket_size={bucket_size}, max_position={max_position})
data = np.column_stack([rel, bucket, used])  # (offsets, 3)
"""
    layout.chart(
        fig,
        key="deberta_buckets",
        filename="relative_deberta_buckets",
        code=code,
        data=np.column_stack([curve["rel"], curve["bucket"], curve["used"]]),
    )
    st.latex(r"\delta(i,j) = \mathrm{clip}\bigl(\mathrm{bucket}(i-j),\,-k,\,k-1\bigr) + k")
    layout.notice(
        f"inside +-{mid} the bucket is the relative position itself; beyond, buckets grow logarithmically "
        f"and reach about +-{bucket_size - 1} near max_position. The function is not clamped: it keeps "
        "growing past max_position. What keeps the lookup inside the table is the attention, which clips "
        f"the index to its 2k rows, offsets -{bucket_size} to {bucket_size - 1} (dashed)."
    )

    st.latex(
        r"\tilde A_{ij} = \underbrace{Q^c_i K^{c\top}_j}_{\text{c2c}} + "
        r"\underbrace{Q^c_i K^{r\top}_{\delta(i,j)}}_{\text{c2p}} + "
        r"\underbrace{K^c_j Q^{r\top}_{\delta(i,j)}}_{\text{p2c}},\qquad "
        r"H = \mathrm{softmax}\!\left(\frac{\tilde A}{\sqrt{3d}}\right) V"
    )
    st.caption(
        "DeBERTa's relative position is query minus key, i - j. Three terms, so the scale is 1/sqrt(3d) "
        "instead of 1/sqrt(d). The paper writes delta(j, i) in the p2c term; the released code (and "
        "transformers) index both position terms by i - j, and posenc follows the code."
    )
    c2c, c2p, p2c = compute.deberta_terms(length, d, seed, bucket_size, max_position)
    fig = figcache.figure(
        relfig.score_terms,
        [c2c, c2p, p2c],
        ["c2c: content to content", "c2p: content to position", "p2c: position to content"],
        title=f"DeBERTa's three terms (random inputs, d = {d}, seed {seed}), before / sqrt(3d)",
    )
    code = random_code(
        seed,
        {
            "q_c": (f"({length}, {d})", "content queries (T, d)"),
            "k_c": (f"({length}, {d})", "content keys (T, d)"),
            "q_r": (f"({2 * bucket_size}, {d})", "position queries, one row per offset -k..k-1"),
            "k_r": (f"({2 * bucket_size}, {d})", "position keys, the same rows"),
        },
    )
    code += f"""terms = posenc.deberta_scores(q_c, k_c, q_r, k_r, max_position={max_position})
data = np.hstack([terms.c2c, terms.c2p, terms.p2c])  # (T, 3T), before / sqrt(3d)
"""
    layout.chart(
        fig,
        key="deberta_terms",
        filename="relative_deberta_terms",
        code=code,
        data=np.hstack([c2c, c2p, p2c]),
    )
    st.caption(f"One colour scale for the three panels. Here 1/sqrt(3d) = 1/sqrt({3 * d}) = {(3 * d) ** -0.5:.3f}.")
    offset, lo, hi, count = compute.deberta_widest(bucket_size, max_position, length - 1)
    layout.notice(
        "c2c has no positional pattern. c2p_ij = Q^c_i . K^r_delta(i,j) uses the query's content and the "
        "distance: within a row, keys whose i - j read the same table row get the same value. p2c_ij = "
        "K^c_j . Q^r_delta(i,j) does the same down a column."
        + (
            f" Here the offsets i - j = {lo} to {hi} all read offset {offset}: in c2p, each row from "
            f"i = {hi} on has {count} equal cells side by side, {lo} to {hi} steps left of the diagonal."
            if count > 1
            else f" At T = {length} every offset reads a table row of its own, so there are no such runs."
        )
    )
