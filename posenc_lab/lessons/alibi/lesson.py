"""Lesson: ALiBi (Press et al. 2021) and KERPLE (Chi et al. 2022), position as a price per step of distance."""

from typing import NamedTuple

import numpy as np
import streamlit as st

from posenc_lab import figures
from posenc_lab.lessons.alibi import compute
from posenc_lab.lessons.alibi import exercises as alibi_exercises
from posenc_lab.lessons.alibi import figures as alibi_figures
from posenc_lab.lessons.alibi.figures import slope_label
from posenc_lab.ui import controls, figcache, layout, state
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(
    __file__,
    "ALiBi and KERPLE",
    "alibi",
    question="How far does each head look when attention simply pays a price per step of distance?",
    icon=":material/straighten:",
    exercises=alibi_exercises.EXERCISES,
    skills=alibi_exercises.SKILLS,
    polls=alibi_exercises.POLLS,
    largest={"heads": "64", "n": "4096"},
)


@LESSON.intro
def intro() -> None:
    """The lead and ALiBi's score, with the sign convention of its penalty."""
    more = layout.lesson(
        "ALiBi and KERPLE",
        "ALiBi (Attention with Linear Biases) gives a Transformer no position vectors at all. "
        "Each head subtracts a penalty from its attention scores: its slope m times the distance "
        "between query and key. Nearby words win unless their content says otherwise. The slopes "
        "are fixed, one per head, so ALiBi adds **no parameters**; BLOOM and MPT use it, and "
        "Press et al. showed it keeps working on inputs longer than it was trained on. KERPLE "
        "learns the shape of the penalty instead, with two numbers per head.",
    )

    layout.lesson_formula(
        r"\text{score}_h(i, j) = \frac{q_i \cdot k_j}{\sqrt{d_h}} - m_h\,|i - j|,"
        r"\qquad m_h = 2^{-8h/H},\quad h = 1, \dots, H",
        more,
    )
    more.caption(
        "posenc writes the penalty as -m |i - j|, the same on both sides of the query. Press et "
        "al.'s code adds +m j instead; under a causal mask (j ≤ i) the two differ by m i, the same "
        "for every key of a row, and softmax ignores a constant added to a whole row: the attention "
        "is identical."
    )


class Heads(NamedTuple):
    """The heads a view draws and the sequence they attend over, as the sidebar sets them."""

    n_heads: int
    custom_head: int  # 1-based; 0: every slope as Press et al. set it
    custom_slope: float
    shown: list[int]  # the heads drawn, 1-based
    n: int  # positions
    causal: bool
    slopes: np.ndarray  # (H,)
    schedule_of: np.ndarray  # (H,)
    index_of: np.ndarray  # (H,)
    shown_titles: list[str]
    slopes_code: str  # the snippets' first lines: the slopes, as compute.head_slopes makes them
    heads_code: str


def sequence_length() -> int:
    state.sidebar().header("Sequence")
    return controls.n_positions(default=128)


def head_controls() -> Heads:
    """The heads, their slopes and the sequence, shared by the slopes and attention views."""
    custom_head, custom_slope = 0, 0.0
    state.sidebar().header("Heads")
    n_heads = state.int_slider(
        "heads",
        "Number of heads H",
        1,
        64,
        8,
        help="Any count: Press et al.'s rule also covers non-powers of two.",
        container=layout.key_control(),
    )
    schedule = state.choice(
        "slopes",
        "Slopes",
        ["paper", "custom"],
        "paper",
        labels={"paper": "Press et al.", "custom": "set one head by hand"},
    )
    if schedule == "custom":
        custom_head = state.int_slider("head", "Head to change", 1, n_heads, 1) if n_heads > 1 else 1
        custom_slope = float(
            state.choice_slider(
                "slope", "Its slope m", compute.SLOPE_OPTIONS, 2.0**-6, fmt=slope_label, help="Half powers of two."
            )
        )
    shown = state.int_list(
        "show",
        "Heads to draw (up to 8)",
        list(range(1, n_heads + 1)),
        compute.default_heads(n_heads),
        max_selections=8,
        fmt=lambda h: f"head {h}",
    )
    n = sequence_length()
    causal = state.toggle("causal", "Causal: each word sees only the past", True, help="As in a GPT-style model.")
    slopes, schedule_of, index_of = compute.head_slopes(n_heads, custom_head, custom_slope)
    shown_titles = [f"head {h}: m = {slope_label(slopes[h - 1])}" for h in shown]
    slopes_code = f"slopes = posenc.alibi_slopes({n_heads})  # (H,) Press et al.'s slopes, head 1 the steepest\n"
    if custom_head:
        slopes_code += f"slopes[{custom_head - 1}] = {custom_slope!r}  # head {custom_head}, set by hand\n"
    heads_code = f"heads = {list(shown)}  # the heads drawn (1-based)\n"
    return Heads(
        n_heads,
        custom_head,
        custom_slope,
        shown,
        n,
        causal,
        slopes,
        schedule_of,
        index_of,
        shown_titles,
        slopes_code,
        heads_code,
    )


@LESSON.view("slopes", "Slopes and biases")
def slopes_and_biases() -> None:
    (
        n_heads,
        custom_head,
        custom_slope,
        shown,
        n,
        causal,
        slopes,
        schedule_of,
        index_of,
        shown_titles,
        slopes_code,
        heads_code,
    ) = head_controls()
    fig = figcache.figure(alibi_figures.slope_chart, slopes, schedule_of, index_of, custom_head=custom_head, height=420)
    code = (
        slopes_code
        + f"""# where each comes from: slope[h] = 2 ** (-8 * index[h] / schedule[h])
origin = posenc.alibi.slope_origin({n_heads})
data = slopes  # (H,): one point per head
"""
    )
    layout.chart(fig, key="alibi_slopes", filename="alibi_slopes", code=code, data=slopes)
    c = int(schedule_of.min())
    # the rule and its notice in one container: what they draw depends on H (a formula and
    # a longer notice when H is not a power of two), and the bias panels below keep their
    # place in the page, so a new H does not mount and draw them anew
    with st.container():
        if n_heads == c:
            st.markdown(
                f"**Press et al.'s rule.** For H = {n_heads} heads (a power of two) the slopes are a "
                f"geometric sequence: the first is 2^(-8/H) and each next one is 2^(-8/H) times the one before, "
                "so the last head always gets 2^-8 = 1/256."
            )
        else:
            rest = (
                f"The other {n_heads - c} heads take every other slope of the {2 * c}-head schedule (its 1st, "
                f"3rd, 5th...). The first of these, 2^(-4/{c}), is steeper than every slope of the {c}-head "
                "schedule; each further one falls halfway, on a log scale, between two neighbouring slopes of the "
                f"{c}-head schedule."
                if n_heads - c > 1
                else f"Head {n_heads} takes the first slope of the {2 * c}-head schedule, 2^(-4/{c}), which is "
                f"steeper than every slope of the {c}-head schedule."
            )
            st.markdown(
                f"**Press et al.'s rule.** H = {n_heads} is not a power of two. Take c = {c}, the largest "
                f"power of two below H, and give heads 1 to {c} the {c}-head schedule. " + rest
            )
            st.latex(
                r"m_h = \begin{cases} 2^{-8h/c} & h = 1, \dots, c \\"
                r" 2^{-8\,(2(h - c) - 1)/(2c)} & h = c + 1, \dots, H \end{cases}"
                r"\qquad c = 2^{\lfloor \log_2 H \rfloor}"
            )
        if n_heads == 1:
            text = "a single head gets the gentlest slope of the schedule, 2^-8 = 1/256."
        elif n_heads == c:
            text = (
                f"on the log axis Press et al.'s {n_heads} slopes sit on a straight line, from "
                f"{slope_label(2 ** (-8 / n_heads))} for head 1 down to 1/256 for head {n_heads}: "
                "a few heads look very locally, a few look far."
            )
        elif n_heads - c == 1:
            text = (
                f"the orange head does not continue the blue line: head {c + 1} gets 2^(-4/{c}) = "
                f"{slope_label(2 ** (-4 / c))}, steeper than any blue head. The schedule still ends at "
                f"1/256 (head {c})."
            )
        else:
            text = (
                f"the orange heads do not continue the blue line: head {c + 1} gets 2^(-4/{c}) = "
                f"{slope_label(2 ** (-4 / c))}, steeper than any "
                f"blue head, and each further orange slope falls between two neighbouring blue ones, so the "
                f"short-range end gets a finer grid of slopes. The schedule still ends at 1/256 (head {c})."
            )
        if custom_head:
            text += f" Head {custom_head} has a slope set by hand ({slope_label(custom_slope)}): the red diamond."
        layout.notice(text)

    grids, positions, step, far = compute.bias_panels(
        n_heads, custom_head, custom_slope, tuple(shown), n, causal, 128 if len(shown) <= 4 else 64
    )
    note = figures.every_nth(step, "position")
    fig = figcache.figure(
        alibi_figures.bias_facets,
        grids,
        positions,
        shown_titles,
        title=f"Bias -m |i - j| of {len(shown)} heads over {n} positions" + (f" (showing {note})" if note else ""),
        value_name="bias",
    )
    code = (
        slopes_code
        + heads_code
        + f"""positions = np.arange(0, {n}, {step})  # the positions drawn
grids = posenc.alibi.alibi_bias_at(slopes[np.array(heads) - 1], positions, positions)  # (P, r, r)
"""
    )
    if causal:
        code += "grids[:, positions[None, :] > positions[:, None]] = np.nan  # causal: future keys are masked\n"
    code += "data = np.hstack(grids)  # (r, P r): the heads side by side, -m |i - j|\n"
    layout.chart(fig, key="alibi_bias_facets", filename="alibi_bias_grids", code=code, data=np.hstack(grids))
    if causal:
        st.caption("Blank cells are future keys: the causal mask hides them (their score is -inf).")
    steep, gentle = int(np.argmin(far)), int(np.argmax(far))
    far_text = [f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}" for v in far]
    contrast = (
        f"On one shared colour scale, head {shown[steep]} pays {far_text[steep]} for the farthest key "
        f"({n - 1} positions away) while head {shown[gentle]} pays only {far_text[gentle]}"
        if len(shown) > 1
        else f"Head {shown[0]} pays {far_text[0]} for the farthest key ({n - 1} positions away)"
    )
    layout.notice(
        "every grid is 0 on its diagonal and constant along every diagonal: the penalty depends only "
        f"on the distance. {contrast}: a slope sets how fast a head forgets."
    )


@LESSON.view("attention", "Attention and reach")
def attention_and_reach() -> None:
    (
        n_heads,
        custom_head,
        custom_slope,
        shown,
        n,
        causal,
        slopes,
        schedule_of,
        index_of,
        shown_titles,
        slopes_code,
        heads_code,
    ) = head_controls()
    state.sidebar().header("Attention")
    row = state.int_slider(
        "row", "Query position i", 0, n - 1, n - 1, help="The word doing the looking.", container=layout.key_control()
    )
    mass = float(
        state.choice(
            "mass",
            "Share of the attention",
            list(compute.MASSES),
            "0.9",
            labels=compute.MASSES,
            container=layout.key_control(),
        )
    )
    log_y = state.toggle("logy", "Log scale for the weights", True)

    st.markdown(
        "With **equal content scores** (every q · k the same) only the bias decides, and each row of "
        "attention is simply softmax(-m |i - j|): the weight falls by a factor e^-m per position."
    )
    weights = compute.row_weights(n_heads, custom_head, custom_slope, tuple(shown), n, row, causal)
    fig = figcache.figure(
        alibi_figures.weight_chart,
        np.arange(n),
        {title: weights[p] for p, title in enumerate(shown_titles)},
        title=f"Attention of the query at position {row} with equal content scores",
        x_title="key position j",
        x_name="key position",
        log_y=log_y,
        vlines={f"query i = {row}": row},
        colours=alibi_figures.slope_colours(slopes[[h - 1 for h in shown]]),
        height=460,
    )
    visible = f"{row + 1}  # causal: keys 0..i" if causal else f"{n}  # every key"
    code = (
        slopes_code
        + heads_code
        + f"""visible = {visible}
bias = posenc.alibi.alibi_bias_at(slopes[np.array(heads) - 1], [{row}], visible)[:, 0, :]  # (P, visible)
weights = np.full((len(heads), {n}), np.nan)  # NaN: masked keys
weights[:, :visible] = posenc.softmax(bias, axis=-1)  # equal content scores: softmax of the bias
data = weights.T  # (n, P): one column per head
"""
    )
    layout.chart(fig, key="alibi_row_weights", filename="alibi_attention_row", code=code)
    own = weights[:, row]
    steep, gentle = int(np.argmax(own)), int(np.argmin(own))
    shape = "straight lines whose steepness is the slope m" if log_y else "an exponential decay, e^-m per step"
    if causal and row == 0:
        text = "the first position sees only itself, so every head gives it all of its attention."
    elif len(shown) == 1:
        text = (
            f"the weights fall away from the query as {shape}. Head {shown[0]} puts {own[0]:.1%} of its "
            "attention on the query's own position."
        )
    else:
        text = (
            f"each head's weights fall away from the query as {shape}. Head {shown[steep]} puts "
            f"{own[steep]:.1%} of its attention on the query's own position; head {shown[gentle]} only "
            f"{own[gentle]:.2%}, spreading the rest over the other keys."
        )
    layout.notice(text)

    reach = compute.spans(n_heads, custom_head, custom_slope, n, mass)
    label = compute.MASSES[f"{mass:g}"]
    fig = figcache.figure(
        alibi_figures.span_bars,
        reach,
        slopes,
        schedule_of,
        context=n,
        mass_label=label,
        custom_head=custom_head,
        height=420,
    )
    code = (
        slopes_code
        + f"""# smallest distance d holding {label} of the last causal query's attention over {n} keys
data = posenc.alibi_span(slopes, context={n}, mass={mass!r})  # (H,): one bar per head
"""
    )
    layout.chart(fig, key="alibi_spans", filename="alibi_spans", code=code, data=reach)
    st.latex(
        r"d_p = \left\lceil \frac{\ln\!\left(1 - p\,(1 - e^{-mT})\right)}{-m} \right\rceil - 1"
        r"\;\approx\; \frac{\ln\frac{1}{1 - p}}{m}\ \text{ when } mT \gg 1"
    )
    st.caption(
        f"$d_p$: the smallest distance $d$ such that keys 0 to d positions back hold a share p of the "
        f"attention, for the last query of a causal sequence of T = {n} positions (weights ∝ e^(-m d))."
    )
    steep, gentle = int(np.argmax(slopes)), int(np.argmin(slopes))
    near, far = int(reach[steep]), int(reach[gentle])
    layout.notice(
        f"halving a slope roughly doubles the reach, until the sequence runs out. The steepest head, "
        f"head {steep + 1} (m = {slope_label(slopes[steep])}), holds {label} of its attention within "
        f"d ≤ {near}; the gentlest, head {gentle + 1} (m = {slope_label(slopes[gentle])}), needs "
        f"d ≤ {far} of at most {n - 1}."
    )
    st.info(
        "These reaches hold for equal content scores only. In a trained model q · k varies from key "
        "to key and shifts them: a strongly matching word far away can still win the attention of a "
        "steep head, and a gentle head may still look mostly nearby.",
        icon=":material/search:",
    )


@LESSON.view("kerple", "KERPLE")
def kerple() -> None:
    n = sequence_length()
    state.sidebar().header("ALiBi")
    slope = float(
        state.choice_slider(
            "m",
            "Slope m",
            compute.SLOPE_OPTIONS,
            2.0**-3,
            fmt=slope_label,
            help="Half powers of 2.",
            container=layout.key_control(),
        )
    )
    state.sidebar().header("KERPLE-log")
    log_r1 = state.float_slider(
        "lr1", "r1 (log)", 0.1, 4.0, 1.0, step=0.1, fmt="%.1f", help="r1 > 0.", container=layout.key_control()
    )
    log_r2 = float(
        state.choice_slider(
            "lr2", "r2 (log)", compute.LOG_R2_OPTIONS, 1.0, help="r2 > 0: the scale of distance inside the log."
        )
    )
    state.sidebar().header("KERPLE-power")
    power_r1 = state.float_slider("pr1", "r1 (power)", 0.1, 4.0, 0.5, step=0.1, fmt="%.1f", help="r1 > 0.")
    power_r2 = state.float_slider(
        "pr2", "r2 (power)", 0.05, 2.0, 0.5, step=0.05, help="0 < r2 ≤ 2 (above 2 the kernel is no longer CPD)."
    )
    state.sidebar().header("Reach")
    mass = float(
        state.choice(
            "mass",
            "Share of the attention",
            list(compute.MASSES),
            "0.9",
            labels=compute.MASSES,
            container=layout.key_control(),
        )
    )
    log_y = state.toggle("logy", "Log scale for the weights", True)

    curves = compute.kerple_curves(n, slope, (log_r1, log_r2), (power_r1, power_r2), mass)
    names = list(curves["bias"])
    colours = [figures.PALETTE[0], figures.PALETTE[2], figures.PALETTE[4]]
    titles = {
        "ALiBi": f"ALiBi (m = {slope_label(slope)})",
        "KERPLE-log": f"KERPLE-log (r1 = {log_r1:g}, r2 = {log_r2:g})",
        "KERPLE-power": f"KERPLE-power (r1 = {power_r1:g}, r2 = {power_r2:g})",
    }
    fig = figcache.figure(
        figures.line_chart,
        np.arange(n),
        {titles[k]: curves["bias"][k] for k in names},
        title="Bias against distance",
        x_title="distance |i - j| (positions)",
        y_title="bias added to the score",
        x_name="distance",
        value_name="bias",
        value_format=".3f",
        styles={titles[k]: {"color": colours[i]} for i, k in enumerate(names)},
        height=420,
    )
    kerple_code = f"""# the query is the last of {n} causal positions: keys read backwards give distance 0, 1, ...
alibi = posenc.alibi_bias(1, 1, {n}, slopes=[{slope!r}])[0, 0, ::-1]
log = posenc.kerple_bias(1, {n}, r1={log_r1!r}, r2={log_r2!r}, kind="log")[0, 0, ::-1]
power = posenc.kerple_bias(1, {n}, r1={power_r1!r}, r2={power_r2!r}, kind="power")[0, 0, ::-1]
"""
    code = kerple_code + "data = np.column_stack([alibi, log, power])  # (n, 3): the bias against distance\n"
    layout.chart(fig, key="kerple_bias", filename="kerple_bias", code=code)
    st.latex(
        r"b_{\text{ALiBi}} = -m\,|i - j| \qquad b_{\text{log}} = -r_1 \log(1 + r_2\,|i - j|)"
        r"\qquad b_{\text{power}} = -r_1\,|i - j|^{r_2}"
        r"\qquad r_1 > 0,\ r_2 > 0\ (\le 2 \text{ for power})"
    )
    st.markdown(
        "KERPLE (Chi et al. 2022) builds the bias from a conditionally positive definite kernel and "
        "**learns r1 and r2 for each head**: 2 parameters per head, against ALiBi's 0. With r2 = 1 "
        "the power variant is ALiBi with slope r1. The paper found the log variant best at "
        "extrapolating. In these charts the query is the last of T causal positions, so it sees distances 0 to T - 1."
    )
    layout.notice(
        "ALiBi's penalty grows at the same rate m at every distance. KERPLE-log's grows at "
        "r1 r2 / (1 + r2 d), ever slower: far keys are told apart less and less. KERPLE-power grows at "
        "r1 r2 d^(r2 - 1): slower and slower for r2 < 1, faster for r2 > 1, like ALiBi at r2 = 1."
    )

    fig = figcache.figure(
        alibi_figures.weight_chart,
        np.arange(n),
        {titles[k]: curves["weights"][k] for k in names},
        title="Attention they produce with equal content scores (causal query, last position)",
        x_title="distance back from the query (positions)",
        x_name="distance",
        log_y=log_y,
        colours=colours,
        height=440,
    )
    code = kerple_code + (
        "# equal content scores: the attention is the softmax of the bias\n"
        "data = np.column_stack([posenc.softmax(b) for b in (alibi, log, power)])  # (n, 3)\n"
    )
    layout.chart(fig, key="kerple_weights", filename="kerple_weights", code=code)
    label = compute.MASSES[f"{mass:g}"]
    columns = st.columns(3)
    for column, k in zip(columns, names, strict=True):
        column.metric(f"{k}: {label} of the attention within", f"d ≤ {curves['span'][k]:,}")
    layout.notice(
        "the weights are e^(-m d) for ALiBi, a power law (1 + r2 d)^(-r1) for KERPLE-log and "
        "e^(-r1 d^r2) for KERPLE-power, each divided by its sum. A power law decays slower than any "
        "exponential: on the log axis the KERPLE-log curve keeps bending flatter while ALiBi's stays a "
        "straight line."
        if log_y
        else "the weights are e^(-m d) for ALiBi, a power law (1 + r2 d)^(-r1) for KERPLE-log and "
        "e^(-r1 d^r2) for KERPLE-power, each divided by its sum. Switch on the log scale to compare "
        "their tails: a power law decays slower than any exponential."
    )
