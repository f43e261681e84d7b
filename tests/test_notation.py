"""No raw TeX in front of a student (issue 37, item 4).

Streamlit renders ``$...$`` in Markdown (captions, labels, options) with KaTeX; Plotly in
the app does not load MathJax, so a figure's titles, axis titles, legend names and notes
show TeX as typed. Every view at its defaults is scanned: outside ``$...$`` and code spans
in Streamlit's text, and anywhere in a figure's text, nothing may look like TeX source
(``q_{2i}``, ``\\theta``, ``x^{2}``, ``θ_i``, ``d_h``, ``{model}``). The exercises' and the
class polls' texts are scanned from the course's records, and so is the plain text the
teacher's dashboard shows for an answer.
"""

from __future__ import annotations

import re

import pytest
from app_helpers import VIEW_CASES, VIEW_IDS, assert_clean, charts, open_page

from posenc_lab.course import COURSE
from posenc_lab.ui import exercises as exercise_ui
from posenc_lab.ui.exercise_kinds import Guided, MultipleChoice, Numeric, concrete, variants

#: what TeX source looks like when it is not rendered
RAW = re.compile(
    r"_\{"  # q_{2i}
    r"|\^\{"  # x^{2}
    r"|\\[A-Za-z]+"  # \theta, \top, \cdot
    r"|\{model\}"  # d{model}: d_{model} with its underscore eaten by Markdown
    r"|(?<![\w.])[A-Za-zα-ωΑ-Ω]_(?:[A-Za-z0-9]{1,2}|fast|slow)(?![\w])"  # θ_i, d_h, S_j, i_fast
)
#: rendered by KaTeX (display, then inline) and code, which shows names as they are in code
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]+\$|`[^`]*`", re.S)


def raw_notation(text: str, *, markdown: bool = True) -> list[str]:
    """The bits of ``text`` that look like unrendered TeX. In Markdown, maths between
    dollars and code spans are left out (KaTeX renders the one, the other shows code)."""
    if markdown:
        text = _MATH.sub(" ", text)
    return [m.group(0) for m in RAW.finditer(text)]


def test_the_scanner_finds_the_notation_the_issue_saw():
    for seen in ("q̃_i = q_{2i} + i·q_{2i+1}", "m·θ_i", "i_fast", "(2/d_h) Σ|S_j|", "d{model}", r"R((m + n)\theta)"):
        assert raw_notation(seen), seen
    for fine in (r"$\tilde q_i = q_{2i}$ is pair $i$", "d_model (model width)", "`rope_theta`", "max_len", "θᵢ"):
        assert not raw_notation(fine), fine


def _figure_texts(spec: dict) -> list[str]:
    layout = spec["layout"]
    texts = [(layout.get("title") or {}).get("text", "")]
    for name, axis in layout.items():
        if re.fullmatch(r"[xy]axis\d*", name) and isinstance(axis, dict):
            texts.append((axis.get("title") or {}).get("text", ""))
    texts += [(layout.get("legend") or {}).get("title", {}).get("text", "")]
    texts += [a.get("text", "") for a in layout.get("annotations", [])]
    for trace in spec["data"]:
        texts.append(trace.get("name") or "")
        bar = (trace.get("colorbar") or {}).get("title") or {}
        texts.append(bar.get("text", "") if isinstance(bar, dict) else str(bar))
    return [t for t in texts if t]


def _page_texts(at) -> list[str]:
    texts = [el.value for kind in ("caption", "markdown", "title", "header", "subheader") for el in at.get(kind)]
    for kind in ("slider", "select_slider", "radio", "selectbox", "multiselect", "toggle", "checkbox", "number_input"):
        for el in at.get(kind):
            texts.append(el.label or "")
            texts += [str(o) for o in (getattr(el, "options", None) or [])]
    for el in at.get("metric"):
        texts.append(el.label)
    for table in at.table:
        frame = table.value
        texts += [str(c) for c in frame.columns] + [str(v) for v in frame.to_numpy().ravel()]
    return texts


@pytest.mark.parametrize(("page", "query"), VIEW_CASES, ids=VIEW_IDS)
def test_no_raw_notation_on_any_view(page, query):
    at = open_page(page, query)
    assert_clean(at)
    found = {t: raw_notation(t) for t in _page_texts(at)}
    for spec in charts(at):
        # Plotly renders no TeX here: dollars do not protect anything
        found |= {t: raw_notation(t, markdown=False) for t in _figure_texts(spec)}
    found = {t[:80]: bits for t, bits in found.items() if bits}
    assert not found, found


def _exercise_texts(ex) -> list[str]:
    if isinstance(ex, Guided):
        return [ex.intro, ex.conclusion] + [t for step in ex.steps for t in _exercise_texts(step)]
    if ex.params:  # every variant's texts (``test_exercise_variants`` checks their numbers)
        return [t for params in variants(ex) for t in _exercise_texts(concrete(ex, params))]
    texts = [ex.title, ex.question, ex.hint]
    if isinstance(ex, MultipleChoice):
        texts += [t for c in ex.choices for t in (c.text, c.why)]
    if isinstance(ex, Numeric):
        texts += [p.label for p in ex.picks]
    return texts


def test_no_raw_notation_in_exercises_polls_or_the_dashboards_plain_answers():
    found = {}
    for ex in COURSE.all_exercises():
        found |= {t: raw_notation(t) for t in _exercise_texts(ex)}
        for step in ex.steps if isinstance(ex, Guided) else (ex,):
            for choice in concrete(step).choices if isinstance(step, MultipleChoice) else ():
                plain = exercise_ui._plain_text(choice.text)
                found[plain] = raw_notation(plain, markdown=False)
    for poll in COURSE.all_polls():
        # plain text, read on the class page and in the live chart of the votes
        found |= {t: raw_notation(t, markdown=False) for t in (poll.prompt, *poll.options)}
    found = {t[:80]: bits for t, bits in found.items() if bits}
    assert not found, found
