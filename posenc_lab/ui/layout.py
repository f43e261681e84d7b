"""Page furniture shared by the lessons: headings, captions, charts, core errors, and
presenter mode (larger type and figures, explanations folded into speaker notes)."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re

import streamlit as st

from posenc_lab.figures import export, notation
from posenc_lab.ui import chart_tools, figcache, state

PRESENTING = "_presenting"
NOTES = "_speaker_notes"
#: chart key -> code snippet shown on this run (read by tests)
CODES = "_chart_code"


def presenting() -> bool:
    return bool(st.session_state.get(PRESENTING, False))


def start_page(present: bool) -> None:
    """Called by the shell (ui.shell) before a page runs."""
    st.session_state[PRESENTING] = present
    _start_body()


def _start_body() -> None:
    st.session_state[_STAGE] = []
    st.session_state[_FORMULAS] = 0
    st.session_state[NOTES] = []
    st.session_state[CODES] = {}


@st.fragment
def lesson_body(lesson) -> None:
    """A numbered lesson's intro and view, rerun alone when one of their widgets moves.

    A move then costs only the lesson's own work: the shell (menu links, presenter
    switch, class banner), the exercises and the previous / next links are neither run
    nor sent again: a run's fixed part (widgets, texts, messages) is most of a move's CPU
    (benchmarks/README.md, "CPU per cache miss"). The widgets may sit in the side
    panel's settings slot (``state.sidebar``): a fragment's writes there are redrawn in
    place. The speaker notes are drawn here, under the view, since the view writes them
    and the shell's own run is not repeated. Nothing outside reads the view's values: the
    exercises stand alone.
    """
    alone = state.start_fragment()
    # Streamlit keeps a place outside the fragment for its rerun only if the fragment wrote
    # there in the last full run; a view with no setting in the side panel (Design choices'
    # "Absolute plus relative") left none, and the view picker's rerun into one that has
    # settings stopped with StreamlitInvalidLayoutContextError. So every run writes there.
    state.sidebar().empty()
    _start_body()
    notice_area = st.container()
    lesson.draw()
    draw_speaker_notes()
    if alone:
        state.finish_run(notice_area)


#: the main-area slots for a view's key controls on this run
_STAGE = "_stage"
#: the lesson formulas drawn on this run (``lesson_formula`` numbers their containers)
_FORMULAS = "_formulas"
#: key controls a view may put above its figure
KEY_CONTROLS = 2
#: the key of the container that holds them (the page's CSS class ``st-key-key_controls``,
#: which the browser tests find)
KEY_CONTROLS_KEY = "key_controls"


def key_control():
    """Where a view's key control goes: in the main area above the figure, on every screen,
    so the chart can be watched while it moves (on a phone the sidebar covers the chart,
    on a laptop it sits below the menu, and in presenter mode it is collapsed).

    A view marks its one or two most telling controls with ``container=key_control()``;
    a third asks for a slot there is not and goes to the sidebar. The slots are side by side
    (Streamlit stacks them on a phone).
    """
    slots = st.session_state.setdefault(_STAGE, [])
    if not slots:
        with st.container(key=KEY_CONTROLS_KEY):
            # a large gap reads from the back of a room; stacked on a phone it would be a
            # large gap between the two sliders too
            slots.extend(st.columns(KEY_CONTROLS, gap="large" if presenting() else "small"))
        slots.append(0)  # slots taken
    taken = slots[-1]
    if taken >= KEY_CONTROLS:
        return state.sidebar()
    slots[-1] = taken + 1
    return slots[taken]


def navigation_links(home, lessons, reference, class_page=None, *, under_settings: bool = False) -> None:
    """The app's menu in the sidebar: the start page, the class page, the numbered lessons,
    the reference pages (Streamlit marks the current page's link). At the top, or under a
    lesson's settings (``under_settings``), set apart from them by a rule."""
    with st.sidebar.container(key="site_nav"):
        if under_settings:
            st.divider()
        st.page_link(home.page_file, label=home.title, icon=home.icon)
        if class_page is not None:
            st.page_link(class_page.page_file, label=class_page.title, icon=class_page.icon)
        st.markdown("**Lessons**")
        for number, lesson in enumerate(lessons, start=1):
            st.page_link(lesson.page_file, label=f"{number}. {lesson.title}", icon=lesson.icon)
        st.markdown("**Reference**")
        for ref in reference:
            st.page_link(ref.page_file, label=ref.title, icon=ref.icon)
        st.divider()


def speaker_notes() -> list[str]:
    return list(st.session_state.get(NOTES, []))


def draw_speaker_notes() -> None:
    """The explanations presenter mode folded away, in a closed expander; drawn once."""
    notes = st.session_state.get(NOTES, [])
    if notes:
        with st.expander("Speaker notes", icon=":material/speaker_notes:", expanded=False):
            for note in notes:
                st.markdown(note)
        st.session_state[NOTES] = []


def _explain(text: str, draw) -> None:
    """Explanatory text: on the page, or into the speaker notes when presenting."""
    if presenting():
        st.session_state.setdefault(NOTES, []).append(text)
    else:
        draw(text)


def explain(text: str) -> None:
    """An explanation under a figure, as a caption; in presenter mode it goes to the
    speaker notes (read by the teacher, not projected)."""
    _explain(text, st.caption)


#: the most sentences, and characters, of a lesson's lead or a notice shown before "More"
LEAD_SENTENCES = 2
LEAD_CHARS = 240
#: where a sentence ends: a full stop, question or exclamation mark, then a space and a
#: capital, a digit or Markdown's bold; not after an abbreviation ("et al.", "e.g.", "i.e.")
_SENTENCE_END = re.compile(r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)[.?!](?=\s+[A-Z0-9*(])")


def split_lead(text: str, *, sentences: int = LEAD_SENTENCES, chars: int = LEAD_CHARS) -> tuple[str, str]:
    """``text`` as (lead, rest): its first sentences, at most ``sentences`` of them and no
    more than ``chars`` characters unless the first alone is longer, then the rest ("" if
    none). Nothing is reworded: lead and rest joined by a space are ``text``."""
    # the last sentence ends where the text does (a full stop there is not followed by a capital)
    ends = [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    cut = ends[0]
    for count, end in enumerate(ends[1:], start=2):
        if count > sentences or end > chars:
            break
        cut = end
    lead, rest = text[:cut].strip(), text[cut:].strip()
    return lead, rest


def lesson(title: str, lead: str):
    """Title and a short lead: its first sentence or two on the page, the rest folded in
    an expander, so that a view's controls and chart reach the first screen of a phone.

    Returns where more of the intro may go (``with more: st.caption(...)``): that expander,
    or a container in place when there is no rest or when presenting (a projected lesson's
    explanations go to the speaker notes).
    """
    st.title(title)
    if presenting():
        _explain(lead, st.markdown)
        return st.container()
    shown, rest = split_lead(lead)
    st.markdown(shown)
    if not rest:
        return st.container()
    more = st.expander("More about this lesson", icon=":material/menu_book:")
    more.markdown(rest)
    return more


def lesson_formula(tex: str, more) -> None:
    """A lesson's formula under its lead: in place on a laptop and a projector; on a phone
    (app.css, 640 px or narrower) inside ``more``, the "More about this lesson" that
    ``lesson`` returned, so that a view's key controls and the top of its chart reach the
    phone's first screen. Both copies are sent; the screen's width shows one (where ``more``
    is a container in place, the two stand side by side in the page and one shows)."""
    n = st.session_state.get(_FORMULAS, 0) + 1
    st.session_state[_FORMULAS] = n
    st.container(key=f"lesson_formula_wide_{n}").latex(tex)
    more.container(key=f"lesson_formula_narrow_{n}").latex(tex)


#: how lesson text names the sidebar, where a view's finer settings are: open beside the page
#: on a laptop, behind the » button at the top left on a phone
SIDE_PANEL = "the side panel (» at the top left opens it on a phone)"

#: the heading of every "what to notice" text under a figure
NOTICE = "**What to notice:**"


def notice(text: str) -> None:
    """The "what to notice" caption under a figure: its first sentence or two, which a
    student can check on the chart, then the rest folded in an expander."""
    # a notice fills in numbers around its notation: M_k, θ_i written as Mₖ, θᵢ
    text = notation.plain_words_markdown(text)
    if presenting():
        _explain(f"{NOTICE} {text}", st.caption)
        return
    shown, rest = split_lead(text)
    st.caption(f"{NOTICE} {shown}")
    if rest:
        with st.expander("More to notice", icon=":material/visibility:"):
            st.caption(rest)


#: every snippet shown by chart(code=...) starts with these imports (``code_prelude``)
CODE_PRELUDE = "import numpy as np\nimport posenc\n"
#: a lesson's own measurements, by the name a snippet calls them (``claims.shift_linearity``)
SNIPPET_MODULES = {
    "claims": "posenc_lab.lessons.claims",
    "compare_lessons": "posenc_lab.lessons.compare",
    "custom": "posenc_lab.lessons.design",
    "models_lesson": "posenc_lab.lessons.models",
    "properties": "posenc_lab.lessons.choices",
    "rope_lessons": "posenc_lab.lessons.rope",
}


def code_prelude(code: str) -> str:
    """The imports ``code`` needs, as a notebook would run them: NumPy, posenc, the app's
    package where the snippet reads its stored data, and the ``measure`` module of each
    lesson whose name the snippet calls."""
    extra = ["import posenc_lab\n"] if re.search(r"(?<![\w.])posenc_lab\.", code) else []
    extra += [
        f"from {package} import measure as {name}\n"
        for name, package in SNIPPET_MODULES.items()
        if re.search(rf"(?<![\w.]){name}\.", code)
    ]
    return CODE_PRELUDE + "".join(extra) + "\n"


def _plain(text: str) -> str:
    """A Plotly title as Markdown text: tags dropped, Markdown's active characters escaped."""
    text = re.sub(r"<br\s*/?>", " ", text or "")
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"([\\`*_\[\]$#|<>])", r"\\\1", text).strip()


def _draw(fig, key: str, alt: str) -> None:
    st.plotly_chart(
        fig,
        key=key,
        width="stretch",
        # saving is done by the buttons under the chart; Plotly's toolbar covered the top
        # of a chart on a phone and cannot be reached from the keyboard
        config={"displaylogo": False, "displayModeBar": False},
        alt=alt,
    )


#: the part of the main column the current page column takes (``columns``); each session's
#: script runs in a thread of its own, which starts with the default
_SHARE: contextvars.ContextVar[float] = contextvars.ContextVar("posenc_column_share", default=1.0)


class _Column:
    """A Streamlit column that, while entered, tells ``chart`` the part of the main column
    it takes; anything else goes to the column itself."""

    def __init__(self, column, share: float):
        self._column, self.share = column, share
        self._tokens: list[contextvars.Token] = []

    def __enter__(self):
        self._column.__enter__()
        self._tokens.append(_SHARE.set(_SHARE.get() * self.share))
        return self

    def __exit__(self, *exc):
        _SHARE.reset(self._tokens.pop())
        return self._column.__exit__(*exc)

    def __getattr__(self, name):
        return getattr(self._column, name)


def columns(spec, **options) -> list[_Column]:
    """``st.columns(spec, **options)`` for charts: a chart drawn inside one is finished for
    that column's width (its legend's rows and its margins), not the main column's."""
    weights = [1.0] * spec if isinstance(spec, int) else [float(w) for w in spec]
    return [_Column(c, w / sum(weights)) for c, w in zip(st.columns(spec, **options), weights, strict=True)]


def chart(
    fig,
    *,
    key: str,
    filename: str,
    code: str | None = None,
    data=None,
    downloads: bool = True,
) -> None:
    """A Plotly figure, full width, its title as text above it, with SVG and PNG saving and,
    in a "Data and code" expander, the data as CSV and .npy, a standalone HTML file and,
    when ``code`` is given, the posenc call that made its data.

    A figure of several panels is drawn as one chart per panel, side by side in columns
    (which Streamlit stacks on a phone); the panel charts are keyed ``<key>__<n>``.

    ``code`` is runnable as it is in a notebook (after ``CODE_PRELUDE``) and leaves the
    plotted numbers in a variable ``data``: a 2-D array for a heatmap (rows x columns as
    drawn), a 1-D array for one line, or a 2-D (points x lines) array for several. A test
    runs every snippet and compares ``data`` with the figure.

    ``data`` (an array) replaces the figure's own table in the downloads and in that
    comparison, for figures whose traces are not a plain table (animations, arrows).
    A figure with frames gets buttons that play, pause and step it (also by keyboard),
    between its title and the chart.
    ``downloads=False`` leaves out the saving buttons (a chart redrawn every second, such
    as a class's live votes, whose numbers the gradebook gives). Inside ``columns`` the
    chart is finished for its column's width (its margins, its legend's rows).
    """
    title, rows = figcache.prepared(fig, presenting(), _SHARE.get())
    if title:
        st.markdown(f"**{_plain(title)}**")
    keys = [key] + [f"{key}__{n}" for n in range(1, sum(len(row) for row in rows))]
    animated, frame_ms, first_frame = figcache.animation(rows[0][0][0])
    if downloads and animated:
        # an animation's Play, Pause and Step sit between its title and its chart: pressed
        # with the whole chart in view below them, not after scrolling its top away; its
        # Save buttons go under it, as every chart's (a phone's first screen keeps the chart)
        chart_tools.tools(key, keys, filename, animated=True, frame_ms=frame_ms, first_frame=first_frame, save=False)
    drawn = iter(keys)
    for row in rows:
        # a lone panel goes where the chart is: a container of its own would be one more message
        columns = st.columns(len(row)) if len(row) > 1 else [contextlib.nullcontext()]
        for (panel, panel_title, alt), column in zip(row, columns, strict=True):
            with column:
                if panel_title:
                    st.markdown(_plain(panel_title))
                _draw(panel, next(drawn), alt)
    if not downloads:
        return
    chart_tools.tools(key, keys, filename)
    if code is not None:
        st.session_state.setdefault(CODES, {})[key] = (code, data)
    _data_and_code(fig, key=key, filename=filename, code=code, data=data)


#: the state key of a chart's "Data and code" expander is this prefix and the chart's key
DATA_AND_CODE = "data_"


def _data_and_code(fig, *, key: str, filename: str, code: str | None, data) -> None:
    """The chart's code and its downloads, in an expander whose content is drawn only while
    it is open (opening it reruns the page).

    Drawn on every run, the code block, the button row and three download buttons would be
    five of a chart's nine messages to the browser, and the server's per-message work (a
    wake-up of the event loop, a websocket frame) is about a third of its CPU with 200
    students exploring (py-spy). Closed, the expander is one message.
    """
    label = "Data and code" if code is not None else "Data"
    with st.expander(
        label, icon=":material/download:", key=f"{DATA_AND_CODE}{key}", on_change="rerun", expanded=False
    ) as more:
        if not more.open:
            return
        if code is not None:
            st.code(code_prelude(code) + code.strip() + "\n", language="python", wrap_lines=True)
        row = st.container(horizontal=True, gap="small")
        downloads = (
            ("CSV", "csv", "text/csv", "The numbers this figure draws.", _csv),
            (".npy", "npy", "application/octet-stream", "The same numbers for numpy.load.", _npy),
            ("HTML", "html", "text/html", "The interactive chart as one file that opens offline in a browser.", _html),
        )
        for button, ext, mime, tip, make in downloads:
            row.download_button(
                button,
                # generated only when clicked: no per-rerun cost, nothing kept per session
                data=functools.partial(make, fig, data),
                file_name=f"posenc-lab_{filename}.{ext}",
                mime=mime,
                key=f"{ext}_{key}",
                on_click="ignore",
                icon=":material/download:",
                help=tip,
            )


def _csv(fig, data) -> bytes:
    return export.to_csv(fig) if data is None else export.array_to_csv(data)


def _npy(fig, data) -> bytes:
    return export.to_npy(fig) if data is None else export.array_to_npy(data)


def _html(fig, data) -> bytes:
    return export.to_html(fig)


def table(data, *, index: str | None = None, rows_on_phone: str | None = None, **options) -> None:
    """``st.table`` of a small table given as rows (a list of dicts) or columns (a dict of
    lists), its first column the index when ``index`` names it.

    ``rows_on_phone`` (a container key) makes a wide table readable on a phone: at most
    ``PHONE_MAX_PX`` wide, each row is drawn as a block, its first cell in bold and every
    other cell behind its column's name, one under the other, words whole; a desktop and a
    projector keep the columns. Six columns squeezed into 390 px broke most words mid-word.

    Streamlit turns a table into pandas and then Arrow on every run, hits included (0.6-0.9
    ms a table, alone). Here the Arrow table is made once per content, by Streamlit's own
    conversion, so what is sent is the same; the index is shown only when ``index`` is
    given, as Streamlit does for a frame with ``set_index``. The cache key is the cells'
    ``repr``, exact for plain values (str, int, float, bool, None); other tables (a NumPy
    number's type is not in its repr) are converted on every run.
    """
    # a table shows its cells as plain text: its notation in Unicode (Mₖ, not M_k)
    if isinstance(data, list):
        data = [{_plain_cell(k): _plain_cell(v) for k, v in row.items()} for row in data]
    else:
        data = {_plain_cell(k): [_plain_cell(v) for v in column] for k, column in data.items()}
    if index is not None:
        index = _plain_cell(index)
    cells = (
        (v for row in data for v in row.values())
        if isinstance(data, list)
        else (v for column in data.values() for v in column)
    )
    if all(type(v) in _CELL_TYPES for v in cells):
        arrow = _arrow_table(repr((data, index)), data, index)
    else:  # not a safe key: converted on this run, as st.table would
        arrow = _to_arrow(data, index)
    if rows_on_phone is None:
        st.table(arrow, hide_index=index is None, **options)
        return
    names = list(data[0]) if isinstance(data, list) else list(data)
    if index is not None:
        names = [index] + [name for name in names if name != index]
    with st.container(key=rows_on_phone):
        st.html(_rows_on_phone_css(rows_on_phone, tuple(names)))
        st.table(arrow, hide_index=index is None, **options)


#: the widest screen on which a table drawn ``rows_on_phone`` is read row by row (app.css's phone)
PHONE_MAX_PX = 640


@functools.lru_cache(maxsize=16)
def _rows_on_phone_css(key: str, columns: tuple[str, ...]) -> str:
    """The style that draws the table under ``.st-key-<key>`` row by row on a phone: static,
    from the app's own column names (anything but plain text is dropped from a label)."""
    scope = f".st-key-{key} [data-testid='stTable']"
    names = [re.sub(r"[^\w .,()+-]", "", name) for name in columns]
    labels = "".join(
        f'  {scope} tbody tr > :nth-child({n})::before {{ content: "{name}: "; font-weight: 600; }}\n'
        for n, name in enumerate(names, start=1)
        if n > 1
    )
    return f"""<style>
@media (max-width: {PHONE_MAX_PX}px) {{
  {scope} table, {scope} tbody, {scope} tr, {scope} tr > * {{
    display: block; width: 100% !important; min-width: 0 !important;
  }}
  /* the column names move into every row, where screen readers read them too */
  {scope} thead {{ display: none; }}
  {scope} tr {{ padding: 0.5rem 0; border-bottom: 1px solid rgba(128, 128, 128, 0.35); }}
  {scope} tr > *, {scope} tr > * * {{
    border: none !important; padding: 0.05rem 0 !important;
    overflow-wrap: break-word !important; word-break: normal !important; hyphens: none;
  }}
  {scope} tr > :first-child {{ font-weight: 600; font-size: 1.05em; }}
  /* a cell's name and its text on one line, wrapping between words */
  {scope} tr > * > div, {scope} tr > * p {{ display: inline; }}
{labels}}}
</style>"""


#: what starts a Markdown block at the start of a cell: a list item ("-", "+", "*", "1."),
#: a heading, a quote. Streamlit draws a table's cells as Markdown: a lone "-" (a model
#: without a RoPE base) drew as an empty bullet
_BLOCK_START = re.compile(r"^(\s*)([-+*#>]|\d+)([.)]?)(?=\s|$)")


def _plain_cell(value):
    if not isinstance(value, str):
        return value
    return _BLOCK_START.sub(_escape_block_start, notation.plain(value, words=True))


def _escape_block_start(m: re.Match) -> str:
    """The cell's leading mark, escaped: ``\\-`` for a bullet, ``1\\.`` for a number."""
    lead, mark, dot = m.groups()
    if mark.isdigit():
        return lead + mark + ("\\" + dot if dot else "")
    return lead + "\\" + mark + dot


#: what a table cell may be: its repr is exact (a NumPy array's elides its middle)
_CELL_TYPES = (str, int, float, bool, type(None))


def _to_arrow(data, index: str | None):
    import pandas as pd
    from streamlit import dataframe_util

    frame = pd.DataFrame(data)
    return dataframe_util.convert_pandas_df_to_arrow_table(frame.set_index(index) if index else frame)


@st.cache_resource(max_entries=512, show_spinner=False)
def _arrow_table(key: str, _data, index: str | None):
    return _to_arrow(_data, index)


def core_error(exc: ValueError) -> None:
    """Show the core's message as it is: posenc writes its errors for people."""
    st.error(str(exc), icon=":material/warning:")


def view_picker(lesson) -> str:
    """The lesson's view chooser (one figure set at a time), mirrored in the URL as ``view``."""
    labels = lesson.view_labels
    return state.choice(
        "view", "Show", list(labels), next(iter(labels)), labels=labels, container=st, label_visibility="collapsed"
    )
