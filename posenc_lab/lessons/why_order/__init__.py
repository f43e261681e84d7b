"""The lesson "Why order matters", in one folder:

- ``exercises``: its exercises and class-mode polls
- ``lesson``: the record and its views (the page)
- ``page``: what Streamlit runs
"""
