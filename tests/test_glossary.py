"""The glossary: its corrected entries, its links into the lessons, its formulas.

The T5 numbers are checked against the bucket formula written out here (T5's
``_relative_position_bucket``), not against the page's own call into posenc.
"""

from __future__ import annotations

import math
from urllib.parse import parse_qs

import pytest
from app_helpers import assert_clean, open_page

import posenc
from posenc_lab import course as lessons
from posenc_lab.lessons.glossary import lesson as glossary
from posenc_lab.lessons.glossary.lesson import TERMS

PAGE = "posenc_lab/lessons/glossary/page.py"


def t5_bucket_by_hand(r: int, num_buckets: int = 32, max_distance: int = 128) -> int:
    """T5's bidirectional bucket of one offset r = key - query, in plain Python floats."""
    n = num_buckets // 2
    bucket = n if r > 0 else 0
    distance, exact = abs(r), n // 2
    if distance < exact:
        return bucket + distance
    large = exact + int(math.log(distance / exact) / math.log(max_distance / exact) * (n - exact))
    return bucket + min(large, n - 1)


def _formulas() -> list[str]:
    return [glossary.shown(formula) for term in TERMS for formula in term.formulas]


def _drawn(at) -> list[str]:
    """The formulas st.latex drew (it sends each as a $$ ... $$ block)."""
    return [latex.value.removeprefix("$$\n").removesuffix("\n$$") for latex in at.get("latex")]


@pytest.fixture(scope="module")
def page():
    at = open_page(PAGE)
    assert_clean(at)
    return at


# the corrected entries


def test_t5s_last_bucket_starts_at_91_not_at_max_distance():
    start = glossary.t5_last_bucket_start(32, 128)
    assert start == 91
    # the formula by hand agrees: 90 is the last offset before it, and the bucket runs on
    # for ever, through max_distance itself
    assert [t5_bucket_by_hand(r) for r in (90, 91, 127, 128, 10_000)] == [30, 31, 31, 31, 31]
    assert [t5_bucket_by_hand(r) for r in (-90, -91, -128)] == [14, 15, 15]
    assert posenc.t5_bucket([90, 91, 128, -90, -91]).tolist() == [30, 31, 31, 14, 15]


def test_the_last_bucket_start_moves_with_max_distance():
    # more room for the log buckets pushes the edge out, and it always lies below max_distance
    starts = [glossary.t5_last_bucket_start(32, d) for d in (64, 128, 256, 512)]
    assert starts == sorted(starts) and len(set(starts)) == 4
    assert all(s < d for s, d in zip(starts, (64, 128, 256, 512), strict=True))
    for d, s in zip((64, 128, 256, 512), starts, strict=True):
        assert t5_bucket_by_hand(s, 32, d) == 31 and t5_bucket_by_hand(s - 1, 32, d) == 30


def test_the_max_distance_entry_quotes_the_computed_edge(page):
    entry = next(t for t in TERMS if t.name.startswith("num_buckets"))
    assert "|j − i| of 91 or more" in entry.meaning
    assert "bucket}(90) = 30" in entry.formulas[0] and "bucket}(91) = 31" in entry.formulas[0]
    assert any("|j − i| of 91 or more" in m.value for m in page.markdown)
    assert glossary.shown(entry.formulas[0]) in _drawn(page)


def test_only_t5_has_a_scalar_per_bucket_and_deberta_a_shared_vector():
    bucket = next(t for t in TERMS if t.name == "Bucket")
    assert "T5 learns one scalar per bucket and head" in bucket.meaning
    assert "(and head)" not in bucket.meaning
    deberta = next(t for t in TERMS if t.name.startswith("DeBERTa"))
    assert "d-dimensional vector" in deberta.meaning
    assert "shared by all heads and all layers" in deberta.meaning
    assert r"K^r = P\,W_{k,r}" in deberta.formulas[0] and r"Q^r = P\,W_{q,r}" in deberta.formulas[0]


# links and formulas


def test_every_term_names_a_lesson_on_the_path_and_a_view_it_has():
    for term in TERMS:
        assert term.lesson in lessons.LESSONS, term.name
        assert term.view is None or term.view in term.lesson.views, (term.name, term.view)
    # a reference page: the terms follow the path, lesson by lesson
    order = [lessons.LESSONS.index(term.lesson) for term in TERMS]
    assert order == sorted(order)


def test_every_term_links_to_its_lesson_or_view(page):
    links = [el.proto for el in page.main.get("page_link")]
    assert len(links) == len(TERMS)
    by_url = {lesson.url_path: lesson for lesson in lessons.LESSONS}
    for term, link in zip(TERMS, links, strict=True):
        # the link leads to an existing lesson, with the view in the URL when there is one
        assert link.page in by_url, link.page
        assert by_url[link.page] is term.lesson
        query = parse_qs(link.query_string)
        if term.view is None:
            assert not query and link.label == term.lesson.title
        else:
            assert query == {"view": [term.view]}
            assert query["view"][0] in by_url[link.page].views
            assert link.label == f"{term.lesson.title}: {term.lesson.views[term.view].label}"


def test_every_formula_is_drawn_as_latex(page):
    drawn = _drawn(page)
    assert drawn == _formulas()
    assert len(drawn) >= 15
    assert page.table[0].value.shape[0] >= 8  # the shape letters, from posenc's docstring


def test_the_shape_letters_come_from_posencs_table(page):
    rows = dict(zip(page.table[0].value["Letter"], page.table[0].value["Meaning"], strict=True))
    assert rows["T"].startswith("positions") and rows["Dh"].startswith("head width")
    assert {"T", "D", "H", "Dh", "Tq", "Tk"} <= set(rows)


def test_the_filter_keeps_matching_terms_and_says_when_none_match():
    at = open_page(PAGE)
    at.text_input(key="glossary_find").input("bucket").run()
    assert_clean(at)
    names = {t.name for t in TERMS if glossary.matches(t, "bucket")}
    assert {"Bucket", "num_buckets, max_distance"} <= names and "Slope $m_h$" not in names
    assert _drawn(at) == [glossary.shown(f) for t in TERMS if glossary.matches(t, "bucket") for f in t.formulas]
    assert len(at.main.get("page_link")) == len(names)
    # a symbol as a reader types it, without the maths markup
    assert glossary.matches(next(t for t in TERMS if t.name.startswith(r"$\theta_i")), "theta")
    at.text_input(key="glossary_find").input("zzz no such word").run()
    assert_clean(at)
    assert not at.get("latex") and any("No entry mentions" in i.value for i in at.info)


@pytest.mark.browser
def test_every_formula_renders_with_katex(server, browser):
    from browser_support import open_in_browser, wait_idle, wait_shown

    page, outside = open_in_browser(browser, f"{server}/glossary", width=390, height=2400)
    try:
        wait_idle(page)
        wait_shown(page.locator('[data-testid="stMain"] .katex-display').first)
        assert page.locator('[data-testid="stMain"] .katex-display').count() == len(_formulas())
        assert page.locator(".katex-error").count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not outside
    finally:
        page.close()
