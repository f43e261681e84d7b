"""Page furniture shared by the lessons: headings, captions, charts, core errors, and
presenter mode (larger type and figures, explanations folded into speaker notes)."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from figures import export
from ui import state

PRESENTING = "_presenting"
NOTES = "_speaker_notes"
#: chart key -> code snippet shown on this run (read by tests)
CODES = "_chart_code"
#: presenter mode: how much larger fonts and figures get
PRESENT_FONT = 20
PRESENT_HEIGHT = 1.3


def presenting() -> bool:
    return bool(st.session_state.get(PRESENTING, False))


def start_page(present: bool) -> None:
    """Called by app.py before a page runs."""
    st.session_state[PRESENTING] = present
    st.session_state[NOTES] = []
    st.session_state[CODES] = {}


def speaker_notes() -> list[str]:
    return list(st.session_state.get(NOTES, []))


def _explain(text: str, draw) -> None:
    """Explanatory text: on the page, or into the speaker notes when presenting."""
    if presenting():
        st.session_state.setdefault(NOTES, []).append(text)
    else:
        draw(text)


def lesson(title: str, lead: str) -> None:
    """Title and a short lead paragraph."""
    st.title(title)
    _explain(lead, st.markdown)


def notice(text: str) -> None:
    """The "what to notice" caption under a figure."""
    _explain(f"**What to notice:** {text}", st.caption)


#: every snippet shown by chart(code=...) starts with these imports
CODE_PRELUDE = "import numpy as np\nimport posenc\n\n"


def chart(fig, *, key: str, filename: str, code: str | None = None, data=None) -> None:
    """A Plotly figure, full width, with PNG export (toolbar), the data as CSV and .npy,
    and, when ``code`` is given, the posenc call that made its data.

    ``code`` is runnable as it is in a notebook (after ``CODE_PRELUDE``) and leaves the
    plotted numbers in a variable ``data``: a 2-D array for a heatmap (rows x columns as
    drawn), a 1-D array for one line, or a 2-D (points x lines) array for several. A test
    runs every snippet and compares ``data`` with the figure.

    ``data`` (an array) replaces the figure's own table in the downloads and in that
    comparison, for figures whose traces are not a plain table (animations, arrows).
    """
    if presenting():
        # figures may be shared by every session (ui.figcache): resize a copy
        fig = go.Figure(fig)
        fig.update_layout(font_size=PRESENT_FONT, title_font_size=PRESENT_FONT + 6, hoverlabel_font_size=PRESENT_FONT)
        if fig.layout.height:
            fig.update_layout(height=int(fig.layout.height * PRESENT_HEIGHT))
    st.plotly_chart(
        fig,
        key=key,
        width="stretch",
        config={
            "displaylogo": False,
            "toImageButtonOptions": {
                "format": "png",
                "filename": f"posenc-lab_{filename}",
                # 1.5x the on-screen pixels: sharp on a slide without a huge file
                "scale": 3 if presenting() else 2,
            },
        },
    )
    if code is not None:
        st.session_state.setdefault(CODES, {})[key] = (code, data)
        with st.expander("🐍 Show the code", expanded=False):
            st.code(CODE_PRELUDE + code.strip() + "\n", language="python", wrap_lines=True)
    row = st.container(horizontal=True, gap="small")
    # generated only when clicked: no per-rerun cost, nothing kept per session
    row.download_button(
        "⬇ CSV",
        data=lambda: export.to_csv(fig) if data is None else export.array_to_csv(data),
        file_name=f"posenc-lab_{filename}.csv",
        mime="text/csv",
        key=f"csv_{key}",
        on_click="ignore",
        help="The numbers this figure draws.",
    )
    row.download_button(
        "⬇ .npy",
        data=lambda: export.to_npy(fig) if data is None else export.array_to_npy(data),
        file_name=f"posenc-lab_{filename}.npy",
        mime="application/octet-stream",
        key=f"npy_{key}",
        on_click="ignore",
        help="The same numbers for numpy.load.",
    )


def core_error(exc: ValueError) -> None:
    """Show the core's message as it is: posenc writes its errors for people."""
    st.error(str(exc), icon="⚠️")


def view_picker(lesson) -> str:
    """The lesson's view chooser (one figure set at a time), mirrored in the URL as ``view``."""
    views = lesson.views
    return state.choice(
        "view", "Show", list(views), next(iter(views)), labels=views, container=st, label_visibility="collapsed"
    )
