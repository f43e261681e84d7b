"""posenc-lab: the entry point. It sets the page up, routes to the lessons and draws the
shell around every lesson (presenter switch, speaker notes, previous / next links).

The lessons live in ``lessons/``, not ``pages/``: with ``st.navigation``, a folder
named ``pages/`` next to this file makes Streamlit run its legacy auto-discovery on a
session's first run (and under AppTest on every run), which can start a lesson without
this file and so without its shared shell. See README, "Navigation".
"""

# Import pandas completely before anything can draw a figure. Plotly checks for pandas by
# peeking into sys.modules, without waiting: on a fresh server, while one session's first
# run was still importing pandas (Streamlit does so lazily), others building figures found
# it half-initialised and failed (15 of 40 students opening the experiments page at once).
# A plain import here makes every session wait until pandas is whole.
import pandas  # noqa: F401  (imported for its side effect)
import streamlit as st

from ui import exercises, layout, state
from ui.catalog import HOME, LESSONS, REFERENCE

present_in_url = st.query_params.get("present") in ("1", "true")
st.set_page_config(
    page_title="posenc-lab: how Transformers know word order",
    # no page icon: a Material icon as favicon is fetched from Google's font host, and
    # an emoji needs an emoji font; Streamlit's own favicon is served locally
    layout="wide",
    # a projected lesson starts with the figures, not the controls
    initial_sidebar_state="collapsed" if present_in_url else "auto",
)

pages = {
    # no icons in the navigation: Streamlit makes the current page's icon the favicon, and a
    # Material icon there is fetched from Google's font host (an emoji needs an emoji font)
    lesson.path: st.Page(lesson.path, title=lesson.title, url_path=lesson.url_path)
    for lesson in (*LESSONS, *REFERENCE)
}
home = st.Page(HOME.path, title=HOME.title, default=True)
# Streamlit's own sidebar menu nests its list items in plain divs, which screen readers
# cannot read as a list (axe-core: list, listitem); the menu is drawn as links instead
page = st.navigation([home, *pages.values()], position="hidden")
layout.navigation_links(HOME, LESSONS, REFERENCE)

state.start_run(page.url_path)
present = state.toggle(
    "present",
    "Presenter mode",
    False,
    help="Larger type and figures; explanations fold into speaker notes.",
    omit_default=True,
)
layout.start_page(present)
# static CSS only (no user input): captions as dark as body text (Streamlit's grey is
# below 4.5:1), and formulas that fit a phone's width instead of scrolling sideways
st.html(
    "<style>[data-testid='stCaptionContainer'] { opacity: 1; }"
    "[data-testid='stCaptionContainer'], [data-testid='stCaptionContainer'] * { color: inherit; }"
    # KaTeX splits a formula into unbreakable runs at relations and operators: on a
    # phone the lines may wrap between them rather than run off the screen
    # a formula box must not become a scroll region (keyboard users could not scroll it)
    ".katex-display { overflow: visible !important; }"
    # the text on a selected chip is white: on the dark theme's light blue, dark instead
    "@media (prefers-color-scheme: dark) {"
    " [data-testid='stMultiSelect'] span:has(> span[title]),"
    " [data-testid='stMultiSelect'] span:has(> span[title]) * { color: #0e1117 !important; } }"
    "@media (max-width: 640px) {"
    " .katex-display { font-size: 0.7em; padding: 0 4px; overflow-x: clip !important; overflow-y: visible !important; }"
    " .katex-display > .katex { white-space: normal; }"
    " .katex-display > .katex > .katex-html { display: flex; flex-wrap: wrap; justify-content: center;"
    " row-gap: 0.4em; }"
    " [data-testid='stTable'] table { table-layout: fixed; width: 100% !important; min-width: 0 !important; }"
    " [data-testid='stTable'] th, [data-testid='stTable'] td, [data-testid='stTable'] td * {"
    " overflow-wrap: anywhere !important; word-break: break-word !important; padding-left: 0.2rem !important;"
    " padding-right: 0.2rem !important; }"
    "}</style>"
)
if present:
    # Streamlit sizes its text in rem, so the root size scales it all
    st.html("<style>html { font-size: 21px; } [data-testid='stMainBlockContainer'] { max-width: 100%; }</style>")
notice_area = st.container()
page.run()

lesson_paths = [lesson.path for lesson in LESSONS]
current = next((lesson for lesson in LESSONS if lesson.url_path == page.url_path), None)
if current is not None:
    exercises.render(current.path)
    index = lesson_paths.index(current.path)
    st.divider()
    back, _, forward = st.columns([2, 3, 2])
    if index > 0:
        before = LESSONS[index - 1]
        back.page_link(before.path, label=f"Previous: {before.title}", icon=":material/arrow_back:")
    else:
        back.page_link(HOME.path, label="Back to the start", icon=":material/arrow_back:")
    if index + 1 < len(LESSONS):
        after = LESSONS[index + 1]
        forward.page_link(after.path, label=f"Next: {after.title}", icon=":material/arrow_forward:")
if layout.speaker_notes():
    with st.expander("Speaker notes", icon=":material/speaker_notes:", expanded=False):
        for note in layout.speaker_notes():
            st.markdown(note)
state.finish_run(notice_area)
