"""posenc-lab: the entry point. It routes to the pages; the shell around them (menu,
presenter mode, exercises, previous / next links) is ``ui.shell``.

The lessons live in ``lessons/``, not ``pages/``: with ``st.navigation``, a folder
named ``pages/`` next to this file makes Streamlit run its legacy auto-discovery on a
session's first run (and under AppTest on every run), which can start a lesson without
this file and so without its shared shell. See README, "Navigation".
"""

# Import pandas completely before anything can draw a figure. Plotly checks for pandas by
# peeking into sys.modules, without waiting: on a fresh server, while one session's first
# run is still importing pandas (Streamlit does so lazily), others building figures would
# find it half-initialised and fail (a class opening the experiments page at once;
# tests/test_classroom_load.py). A plain import here makes every session wait for it whole.
import pandas  # noqa: F401  (imported for its side effect)
import streamlit as st

from ui import shell

shell.configure()
shell.run(st.navigation(shell.pages(), position="hidden"))
