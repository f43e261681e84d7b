"""Reference: the symbols and words the lessons use, each with its formula and a link to
the lesson (or the view of it) where it matters most.

A term names its lesson by the lesson's record and, when one view shows it, that view's
key, so a link can never point at a page or a view that does not exist
(tests/test_glossary.py checks every one). The one number an entry quotes, where T5's
last bucket starts, is computed by posenc when the module loads.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import streamlit as st

import posenc
from posenc_lab.lessons.alibi import lesson as alibi
from posenc_lab.lessons.experiments import lesson as experiments
from posenc_lab.lessons.learned import lesson as learned
from posenc_lab.lessons.relative import lesson as relative
from posenc_lab.lessons.rope import lesson as rope
from posenc_lab.lessons.sinusoidal import lesson as sinusoidal
from posenc_lab.lessons.why_order import lesson as why_order
from posenc_lab.ui import layout
from posenc_lab.ui.lesson import Lesson

LESSON = Lesson(__file__, "Glossary", "glossary", question="What does each symbol mean?", icon=":material/menu_book:")

#: the T5 configuration the entries quote (T5's own: 32 buckets, max_distance 128, encoder)
T5_NUM_BUCKETS = 32
T5_MAX_DISTANCE = 128
#: narrowest card, in px: a formula line (at most about 30 symbols) fits without clipping
CARD_MIN_PX = 440


class Term(NamedTuple):
    name: str  # Markdown; short inline maths only (it must fit a phone's line)
    meaning: str  # Markdown
    lesson: Lesson  # the lesson record where the term matters most
    view: str | None = None  # a key of ``lesson.views``, when one view shows it
    formulas: tuple[str, ...] = ()  # LaTeX, each drawn with st.latex


def t5_last_bucket_start(num_buckets: int = T5_NUM_BUCKETS, max_distance: int = T5_MAX_DISTANCE) -> int:
    """Smallest distance |j - i| that lands in T5's last bucket (bidirectional).

    ``t5_bucket_ranges`` gives the offsets each bucket holds; the last bucket holds the
    keys ahead from its lower edge on (and, mirrored, bucket num_buckets / 2 - 1 the keys
    behind).
    """
    lo, _ = posenc.relative.t5_bucket_ranges(num_buckets, max_distance, bidirectional=True)
    return int(lo[num_buckets - 1])


def _t5_edge_formula(start: int) -> str:
    """The bucket of the offsets on either side of the last bucket's edge, from posenc."""
    before, at, far = posenc.t5_bucket([start - 1, start, T5_MAX_DISTANCE]).tolist()
    return (
        rf"\begin{{gathered}} \mathrm{{bucket}}({start - 1}) = {before} \\ "
        rf"\mathrm{{bucket}}({start}) = {at},\quad \mathrm{{bucket}}({T5_MAX_DISTANCE}) = {far} \end{{gathered}}"
    )


_T5_START = t5_last_bucket_start()

TERMS: tuple[Term, ...] = (
    # why order matters
    Term(
        "Position $p$; $m$, $n$; $i$, $j$",
        "Index of a token in the sequence, counted from 0. Queries sit at m (or i), keys at n (or j).",
        why_order.LESSON,
    ),
    Term(
        "Permutation-equivariant",
        "Reorder the input rows (a permutation matrix P) and the outputs come out reordered the same way, "
        "otherwise unchanged: attention alone cannot see word order.",
        why_order.LESSON,
        formulas=(r"\mathrm{Attention}(PX) = P\,\mathrm{Attention}(X)",),
    ),
    # sinusoidal
    Term(
        "d_model ($d$, D)",
        "Width of the token vectors. The sinusoidal table has d_model columns, in sin/cos pairs.",
        sinusoidal.LESSON,
        "heatmap",
        (
            r"\begin{gathered} PE_{(p,\,2i)} = \sin\!\big(p\,\text{base}^{-2i/d}\big) \\ "
            r"PE_{(p,\,2i+1)} = \cos\!\big(p\,\text{base}^{-2i/d}\big) \end{gathered}",
        ),
    ),
    Term(
        "base",
        "Sets the wavelengths of the sinusoid and of RoPE: pair i turns base^(-2i/d) radians per position, "
        "so the wavelengths run from 2π (pair 0) to almost 2π · base. 10,000 in the original "
        "Transformer; rope_theta in Hugging Face configs.",
        sinusoidal.LESSON,
        "wavelengths",
        (r"\lambda_i = 2\pi\,\text{base}^{\,2i/d}",),
    ),
    # learned
    Term(
        "max_len",
        "Rows of a learned position table: the longest input the model can take. Position max_len has no row.",
        learned.LESSON,
        formulas=(r"\text{parameters} = \text{max\_len} \times d",),
    ),
    # relative
    Term(
        "Offset, relative position",
        "Key minus query, j − i: negative for keys in the past (Shaw et al., T5, posenc.relative_positions). "
        "Transformer-XL and DeBERTa write query minus key, i − j.",
        relative.LESSON,
        "matrix",
        (r"r_{ij} = j - i",),
    ),
    Term(
        "Clipping distance $K$",
        "Shaw et al.: offsets beyond ±K share the edge vector, so 2K + 1 learned vectors cover "
        "every distance (one set for the keys, another for the values).",
        relative.LESSON,
        "matrix",
        (r"a^K_{ij} = w^K_{\mathrm{clip}(j-i,\,-K,\,K)}",),
    ),
    Term(
        "Bucket",
        "T5 and DeBERTa sort offsets into buckets: each small offset has its own, farther ones share "
        "logarithmically wider buckets. What a bucket holds differs. T5 learns one scalar per bucket and "
        "head, added to the attention logit; one table per stack (encoder, decoder), shared by all its "
        "layers (Raffel et al. 2020). DeBERTa learns a whole vector per bucketed offset instead (its relative "
        "embedding P).",
        relative.LESSON,
        "t5",
        (r"s_{ij} = q_i^\top k_j + b_{h,\,\mathrm{bucket}(j-i)}",),
    ),
    Term(
        "num_buckets, max_distance",
        "T5's bucket count (32, half of them for keys ahead in the encoder) and the distance where its "
        "logarithmic spacing ends. With n buckets per direction, each distance below n/2 has a bucket of "
        "its own; the other n/2 buckets split the distances from n/2 to max_distance in equal ratios, and "
        "every distance beyond lands in the last one. So the last bucket starts before max_distance: with "
        f"num_buckets = {T5_NUM_BUCKETS} and max_distance = {T5_MAX_DISTANCE} (bidirectional), every offset "
        f"with |j − i| of {_T5_START} or more shares it (posenc.relative.t5_bucket_ranges).",
        relative.LESSON,
        "t5",
        (_t5_edge_formula(_T5_START),),
    ),
    Term(
        "DeBERTa's relative embedding $P$",
        "DeBERTa learns a d-dimensional vector for each bucketed relative position: a table P of 2k rows "
        "(k: the largest distance it tells apart), "
        "shared by all heads and all layers (He et al. 2021). $W_{q,r}$ and $W_{k,r}$ project it into position "
        "queries and keys, which meet the content keys and queries in two extra score terms. DeBERTa writes "
        "query minus key: δ(i, j) is the bucket of i − j.",
        relative.LESSON,
        "deberta",
        (
            r"Q^r = P\,W_{q,r},\qquad K^r = P\,W_{k,r}",
            r"\begin{aligned} \tilde A_{ij} = {}& Q^c_i {K^c_j}^\top + Q^c_i {K^r_{\delta(i,j)}}^\top \\ "
            r"&+ K^c_j {Q^r_{\delta(j,i)}}^\top \end{aligned}",
        ),
    ),
    Term(
        "$u$, $v$ (Transformer-XL)",
        "Two learned vectors shared by every query: u scores a key's content and v its distance, whatever "
        "the query says (Dai et al. 2019). R is a sinusoid of the distance i − j.",
        relative.LESSON,
        "xl",
        (
            r"\begin{aligned} A_{ij} = {}& q_i^\top k_j + q_i^\top W_{k,R} R_{i-j} \\ "
            r"&+ u^\top k_j + v^\top W_{k,R} R_{i-j} \end{aligned}",
        ),
    ),
    # RoPE
    Term(
        "head_dim ($d_h$, Dh)",
        "Width of one attention head's queries and keys; RoPE rotates them in head_dim / 2 pairs.",
        rope.LESSON,
        "layouts",
    ),
    Term(
        r"$\theta_i$ (or $\omega_i$)",
        r"Angular frequency of pair $i$: the query at position $m$ is turned by $m\theta_i$, and a query-key "
        r"score depends on $(m - n)\theta_i$ only. Its wavelength is $2\pi / \theta_i$.",
        rope.LESSON,
        "rotation",
        (r"\theta_i = \text{base}^{-2i/d_h},\qquad \lambda_i = 2\pi/\theta_i",),
    ),
    Term(
        "factor $s$",
        "Context extension: how many times longer than the training context the model should reach. "
        "Position interpolation, the simplest variant, divides every angle by s.",
        rope.LESSON,
        "scaling",
        (r"m\,\theta_i \;\to\; \frac{m}{s}\,\theta_i",),
    ),
    Term(
        "original_max_position_embeddings ($L$)",
        "The training context length L that RoPE scaling is measured against: the target is s times L.",
        rope.LESSON,
        "scaling",
    ),
    Term(
        "Attention factor",
        "YaRN's multiplier on cos and sin, a temperature for the longer context (Peng et al. 2023).",
        rope.LESSON,
        "scaling",
        (r"\text{attention factor} = 0.1 \ln s + 1",),
    ),
    Term(
        r"$\gamma$, scale_base (xPos)",
        "xPos multiplies pair i of the query at m by ζ_i^(m / scale_base) and divides the key's at n by "
        "ζ_i^(n / scale_base); as ζ_i < 1, a score shrinks with the distance m − n, fastest for the first "
        "(fast-turning) pairs.",
        rope.LESSON,
        "xpos",
        (
            r"\begin{gathered} \zeta_i = \frac{2i/d_h + \gamma}{1 + \gamma} \\ "
            r"\text{pair } i \text{ of } q_m^\top k_n\ \times\ \zeta_i^{\,(m-n)/\text{scale\_base}} \end{gathered}",
        ),
    ),
    # ALiBi and KERPLE
    Term(
        "Slope $m_h$",
        "ALiBi's penalty per step of distance for head h = 1 ... H, for H a power of two; other head counts "
        "take the next smaller power's slopes plus every other slope of the power above.",
        alibi.LESSON,
        "slopes",
        (r"\text{bias}_{h,ij} = -m_h\,|i - j|,\qquad m_h = 2^{-8h/H}",),
    ),
    Term(
        "$r_1$, $r_2$ (KERPLE)",
        "KERPLE's two learned positive numbers per head, in its logarithmic or its power penalty.",
        alibi.LESSON,
        "kerple",
        (
            r"\begin{gathered} -r_1 \log\!\big(1 + r_2\,|i - j|\big) \\ "
            r"\text{or}\quad -r_1\,|i - j|^{r_2} \end{gathered}",
        ),
    ),
    # experiments
    Term(
        "Translation invariance",
        "Moving a whole phrase along the sequence leaves its attention scores unchanged.",
        experiments.LESSON,
        "translation",
        (r"s(i + t,\; j + t) = s(i,\, j)",),
    ),
)


def _plain(text: str) -> str:
    """A term as a reader types it: maths markers and backslashes dropped, lower case."""
    return re.sub(r"[$\\{}]", "", text).lower()


def matches(term: Term, query: str) -> bool:
    """Whether every word of ``query`` occurs in the term's name, meaning or lesson."""
    haystack = _plain(f"{term.name} {term.meaning} {term.lesson.title}")
    return all(word in haystack for word in _plain(query).split())


def link_of(term: Term) -> tuple[str, dict[str, str] | None]:
    """The label of the term's link and the URL query that opens its view (None: the lesson)."""
    if term.view is None:
        return term.lesson.title, None
    return f"{term.lesson.title}: {term.lesson.views[term.view].label}", {"view": term.view}


def shown(formula: str) -> str:
    """The formula as drawn: KaTeX lets a final subscript reach 2 px past the formula's box,
    which a phone clips and axe-core takes for a scroll region; a thin space keeps it inside."""
    return formula + r"\,"


def _draw_term(term: Term) -> None:
    st.markdown(f"**{term.name}**")
    st.markdown(term.meaning)
    for formula in term.formulas:
        st.latex(shown(formula))
    label, query = link_of(term)
    st.page_link(term.lesson.page_file, label=label, icon=":material/arrow_forward:", query_params=query)


def _shape_letters() -> list[dict[str, str]]:
    """The shape letters of posenc's package docstring (its ``====`` table), as rows."""
    rows, rules = [], 0
    for line in (posenc.__doc__ or "").splitlines():
        if line.startswith("===="):
            rules += 1  # the table lies between the first two rules
            continue
        if rules == 1 and line.strip():
            letter, _, meaning = line.strip().partition(" ")
            rows.append({"Letter": letter, "Meaning": meaning.strip().replace("``", "")})
    return rows


@LESSON.page
def page() -> None:
    layout.lesson(
        "Glossary",
        "The symbols and words the lessons use, grouped by the lesson where each one matters most; "
        "every entry links to that lesson, or straight to the view that shows it.",
    )
    query = st.text_input(
        "Find a term", key="glossary_find", max_chars=60, placeholder="for example: bucket, slope, theta"
    )
    shown = [term for term in TERMS if matches(term, query)]
    if not shown:
        st.info(f"No entry mentions {query.strip()!r}. Clear the box to see all of them.", icon=":material/search:")
    for number, lesson in enumerate(LESSON.course.lessons, start=1):
        group = [term for term in shown if term.lesson is lesson]
        if not group:
            continue
        st.subheader(f"{number}. {lesson.title}", divider="gray")
        # two cards a row where both have room for a formula, one on a phone or a narrow window
        grid = st.grid(2, min_column_width=CARD_MIN_PX, border=True)
        for term in group:
            with grid.cell():
                _draw_term(term)

    st.subheader("Shape letters in the code", divider="gray")
    st.caption("The letters in the shapes of every posenc docstring and code snippet (from the package's own table).")
    layout.table(_shape_letters())
