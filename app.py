"""posenc-lab: the entry point. It only sets the page up and routes to the lessons.

The lessons live in ``lessons/``, not ``pages/``: with ``st.navigation``, a folder
named ``pages/`` next to this file makes Streamlit run its legacy auto-discovery on a
session's first run (and under AppTest on every run), which can start a lesson without
this file and so without its shared sidebar. See README, "Navigation".
"""

import streamlit as st

from ui import state
from ui.catalog import HOME, LESSONS

st.set_page_config(page_title="posenc-lab: how Transformers know word order", page_icon="🧭", layout="wide")

pages = [st.Page(HOME.path, title=HOME.title, icon=HOME.icon, default=True)] + [
    st.Page(lesson.path, title=lesson.title, icon=lesson.icon, url_path=lesson.url_path) for lesson in LESSONS
]
page = st.navigation({"posenc-lab": pages[:1], "Lessons": pages[1:]})

state.start_run(page.url_path)
notice_area = st.container()
page.run()
state.finish_run(notice_area)
