"""The shell around every page: page settings, the menu, presenter mode, static CSS, and
after a lesson its exercises, previous / next links and speaker notes.

``app.py`` routes (``st.navigation``) and hands the chosen page to ``run``.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

import streamlit as st
from threadpoolctl import threadpool_limits

from posenc_lab.ui import exercises, layout, stale_fragments, state
from posenc_lab.ui.lesson import Course, Lesson

#: BLAS threads per app process (``POSENC_BLAS_THREADS``, default 1). A server runs many
#: sessions' scripts at once and scales by processes (deploy/run_two.sh), and OpenBLAS's
#: own threads spin while they wait for work. On 2 quiet cores the experiments page's
#: default training takes 12.5 s (24 s of CPU) with two threads and 8.4 s with one, and a
#: (1029 x 512) least-squares fit 285 ms of CPU against 182 ms. With the cores busy the
#: gap widens (benchmarks/README.md, "Process settings the numbers assume").
BLAS_THREADS_ENV = "POSENC_BLAS_THREADS"


def blas_threads() -> int:
    """The BLAS thread count this process asks for: ``POSENC_BLAS_THREADS`` if it is a
    whole number from 1 up, otherwise 1."""
    value = os.environ.get(BLAS_THREADS_ENV, "1").strip()
    return int(value) if value.isdigit() and int(value) >= 1 else 1


#: set to 0 to keep Python's own garbage-collector settings (to measure what tune_gc saves)
GC_TUNING_ENV = "POSENC_GC_TUNING"
#: gen0 as Python's default; a full collection after 100 gen1 collections instead of 10
GC_THRESHOLDS = (700, 10, 100)


def tune_gc() -> bool:
    """Freeze what the process holds once everything is imported, and collect the oldest
    generation ten times less often; False if ``POSENC_GC_TUNING`` is 0.

    A full collection walks every tracked object, holding the GIL: every session waits. With
    40 students exploring one app process, Python's defaults run 14 in two minutes at a
    median 170 ms of CPU each (timed with gc.callbacks; benchmarks/README.md). Modules,
    Streamlit and Plotly's validators never die: frozen, they are not walked again. Garbage
    in a reference cycle (a Plotly figure evicted from a cache) still goes, at the next
    full collection.
    """
    if os.environ.get(GC_TUNING_ENV, "1").strip() == "0":
        return False
    # no gc.collect() first: it costs 80-520 ms of CPU in the first student's load, and the
    # imports leave about 17 unreachable objects to freeze with the rest
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    return True


# once per process: this module is imported once, app.py runs on every rerun
threadpool_limits(blas_threads(), user_api="blas")
tune_gc()
# a run_every fragment's late timer tick must not run after its page was left (see the module)
stale_fragments.install()

#: static CSS only (no user input): full-contrast captions, formulas and tables that fit a phone
CSS = "<style>" + (Path(__file__).with_name("app.css")).read_text(encoding="utf-8") + "</style>"
#: presenter mode: Streamlit sizes its text in rem, so the root size scales it all
PRESENTER_CSS = "<style>html { font-size: 21px; } [data-testid='stMainBlockContainer'] { max-width: 100%; }</style>"


#: session key: whether the previous run was in presenter mode
PRESENTED = "_shell:presented"

# Folds the sidebar away with Streamlit's own button, once, when presenter mode turns on.
# Streamlit follows ``initial_sidebar_state`` only until the person opens or closes the
# sidebar by hand, which it then remembers in this browser: a teacher who opened it to reach
# the switch would keep it open over the projected lesson. The button records the fold as
# the person's own choice, so turning presenter mode off leaves the sidebar as it is then.
_FOLD_JS = """
export default function () {
  let tries = 0;
  const fold = () => {
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    const button = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (sidebar && sidebar.getBoundingClientRect().right <= 1) return;  // folded already
    if (sidebar && button) { button.click(); return; }
    if (tries++ < 30) setTimeout(fold, 100);  // not drawn yet
  };
  fold();
}
"""
_FOLD = st.components.v2.component("posenc_fold_sidebar", js=_FOLD_JS)

# Reloads the page when the browser's colour scheme changes under it (a laptop's dark mode at
# dusk, a projector's setting). Streamlit themes a chart once, by swapping the figure's
# placeholder colours (figures.display.INK) for the theme's; on a live switch it re-themes
# the already swapped figure, so chart text stayed dark on dark, or white on white, until
# the page was loaded again. The address holds the view and its settings, so the reload
# shows the same view, now in the new scheme. One listener a page, however often it reruns.
_SCHEME_JS = """
export default function () {
  if (window.__posencSchemeWatch) return;
  window.__posencSchemeWatch = true;
  const dark = window.matchMedia('(prefers-color-scheme: dark)');
  dark.addEventListener('change', () => window.location.reload());
}
"""
_SCHEME = st.components.v2.component("posenc_scheme_watch", js=_SCHEME_JS)

# Says so, plainly and where anyone sees it, while the page has no connection to the server
# (a dropped network, a server restarting): "Connection lost: reconnecting...". Streamlit's
# own sign is a dialog meant for a developer ("Is Streamlit still running? ... streamlit run
# yourscript.py" on localhost) that dims the page; the watcher hides that dialog and shows
# this line instead (app.css), until Streamlit has reconnected by itself and closed its
# dialog. The browser's offline event shows it at once. One watcher a page.
_CONNECTION_JS = """
export default function () {
  if (window.__posencConnectionWatch) return;
  window.__posencConnectionWatch = true;
  const sign = document.createElement('div');
  sign.id = 'posenc-connection-sign';
  sign.setAttribute('role', 'status');
  sign.setAttribute('aria-live', 'assertive');
  sign.hidden = true;
  document.body.appendChild(sign);
  const check = () => {
    let lost = !navigator.onLine;
    for (const dialog of document.querySelectorAll('.stDialog')) {
      const title = dialog.querySelector('[role="dialog"] h2');
      if (title && title.textContent.trim() === 'Connection error') {
        dialog.classList.add('posenc-connection-lost');
        lost = true;
      }
    }
    const text = navigator.onLine
      ? 'Connection lost: reconnecting\u2026'
      : 'You are offline: the page reconnects once the network is back\u2026';
    if (sign.textContent !== text) sign.textContent = text;
    if (sign.hidden === lost) sign.hidden = !lost;
  };
  window.addEventListener('offline', check);
  window.addEventListener('online', check);
  setInterval(check, 500);
}
"""
_CONNECTION = st.components.v2.component("posenc_connection_watch", js=_CONNECTION_JS)


def configure() -> None:
    """Page settings; must come before anything else is drawn."""
    present_in_url = st.query_params.get("present") in ("1", "true")
    st.set_page_config(
        page_title="posenc-lab: how Transformers know word order",
        # no page icon: a Material icon as favicon is fetched from Google's font host, and
        # an emoji needs an emoji font; Streamlit's own favicon is served locally
        layout="wide",
        # a projected lesson starts with the figures, not the controls
        initial_sidebar_state="collapsed" if present_in_url else "auto",
    )


def pages(course: Course) -> list[st.Page]:
    """Every page of the course, the start page first (the default)."""
    # no icons in the navigation: Streamlit makes the current page's icon the favicon, and a
    # Material icon there is fetched from Google's font host (an emoji needs an emoji font)
    home = st.Page(course.home.page_file, title=course.home.title, default=True)
    return [
        home,
        *(
            st.Page(lesson.page_file, title=lesson.title, url_path=lesson.url_path)
            for lesson in (course.class_page, *course.lessons, *course.reference)
        ),
    ]


#: the key of the side panel's container of a lesson's settings (``st-key-lesson_settings``)
SETTINGS_KEY = "lesson_settings"


def run(page: st.Page, course: Course) -> None:
    """Draw the shell and run ``page`` (one of ``course``'s) inside it."""
    # the page's CSS first: it moves the page up (less room above the title), and elements
    # drawn before it arrives would jump under a reader's finger (a click made as it arrives
    # lands 40 px too low)
    st.html(CSS)
    current = course.lesson_by_url(page.url_path)
    # a lesson's settings come first in the side panel, above the menu: where a learner
    # looks for them, on a laptop's first screen and first in a phone's panel
    state.set_sidebar(st.sidebar.container(key=SETTINGS_KEY) if current is not None else None)
    # Streamlit's own sidebar menu nests its list items in plain divs, which screen readers
    # cannot read as a list (axe-core: list, listitem); the menu is drawn as links instead
    layout.navigation_links(
        course.home, course.lessons, course.reference, course.class_page, under_settings=current is not None
    )
    state.start_run(page.url_path, renamed=current.renamed if current is not None else None)
    # a student's class link is kept in the address bar on every page (class mode's, ``ClassMode``)
    course.class_mode.follow_link()
    present = state.toggle(
        "present",
        "Presenter mode",
        False,
        help="Larger type and figures; explanations fold into speaker notes.",
        omit_default=True,
        container=st.sidebar,
    )
    was = st.session_state.get(PRESENTED)
    if was is not None and present != was:
        # the switch moved: the sidebar's setting follows at once (``configure`` reads the
        # address, which the switch changes only later in this run); turning presenter mode
        # off gives the sidebar back, unless the person has opened or closed it by hand in
        # this browser (Streamlit remembers that, and keeps it)
        st.set_page_config(initial_sidebar_state="collapsed" if present else "auto")
    if present and not was:
        # just turned on, or a link opened in presenter mode: folded even if opened by hand
        with st.sidebar:
            _FOLD(data={"turned_on": True})
    st.session_state[PRESENTED] = present
    with st.sidebar:
        _SCHEME()
        _CONNECTION()
    layout.start_page(present)
    if present:
        st.html(PRESENTER_CSS)
    notice_area = st.container()
    class_area = st.container()
    page.run()
    if current is not None:
        exercises.render(current)
        course.class_mode.share_view()
        _neighbours(current)
    layout.draw_speaker_notes()
    state.finish_run(notice_area)
    # the class's bars, above the lesson, are drawn last (``ClassMode.bars``)
    with class_area:
        course.class_mode.bars(course, page.url_path)


#: the key of the container of the previous / next links (app.css: ``st-key-neighbours``)
NEIGHBOURS_KEY = "neighbours"


def _neighbours(current: Lesson) -> None:
    """Previous / next links at the foot of a lesson: one row, each link as wide as its
    label, the next one at the right (on a phone it wraps under the previous one); a label
    wider than the screen ends in an ellipsis (app.css)."""
    lessons = current.course.lessons
    index = lessons.index(current)
    st.divider()
    row = st.container(key=NEIGHBOURS_KEY, horizontal=True, horizontal_alignment="distribute", gap="medium")
    if index > 0:
        before = lessons[index - 1]
        row.page_link(before.page_file, label=f"Previous: {before.title}", icon=":material/arrow_back:")
    else:
        row.page_link(current.course.home.page_file, label="Back to the start", icon=":material/arrow_back:")
    if index + 1 < len(lessons):
        after = lessons[index + 1]
        row.page_link(
            after.page_file, label=f"Next: {after.title}", icon=":material/arrow_forward:", icon_position="right"
        )
