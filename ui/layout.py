"""Page furniture shared by the lessons: headings, captions, charts, core errors."""

from __future__ import annotations

import streamlit as st

from ui import state


def lesson(title: str, lead: str) -> None:
    """Title and a short lead paragraph."""
    st.title(title)
    st.markdown(lead)


def notice(text: str) -> None:
    """The "what to notice" caption under a figure."""
    st.caption(f"**What to notice:** {text}")


def chart(fig, *, key: str, filename: str) -> None:
    """A Plotly figure, full width, with a PNG export named for slides."""
    st.plotly_chart(
        fig,
        key=key,
        width="stretch",
        config={
            "displaylogo": False,
            "toImageButtonOptions": {"format": "png", "filename": f"posenc-lab_{filename}", "scale": 2},
        },
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
