"""posenc-lab's entry script: it routes to the pages; the shell around them (menu,
presenter mode, exercises, previous / next links) is ``posenc_lab.ui.shell``, and the pages
in order are ``posenc_lab.course``, which this script hands to the shell.

The installed ``posenc-lab`` command runs this file; a checkout's ``app.py`` calls ``main``.
Neither folder holds a ``pages/`` folder: with ``st.navigation``, a folder named ``pages/``
next to the entry script makes Streamlit run its legacy auto-discovery on a session's first
run (and under AppTest on every run), which can start a lesson without the shell. See
README, "Navigation".
"""

# Import pandas completely before anything can draw a figure. Plotly checks for pandas by
# peeking into sys.modules, without waiting: on a fresh server, while one session's first
# run is still importing pandas (Streamlit does so lazily), others building figures can find
# it half-initialised and fail. A plain import here makes every session wait until pandas
# is whole.
import pandas  # noqa: F401  (imported for its side effect)
import streamlit as st

from posenc_lab.course import COURSE
from posenc_lab.ui import shell


def main() -> None:
    """One run of the app: page settings, then the chosen page inside the shell."""
    shell.configure()
    shell.run(st.navigation(shell.pages(COURSE), position="hidden"), COURSE)


if __name__ == "__main__":
    main()
