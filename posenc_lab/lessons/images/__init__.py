"""The lesson "Beyond one dimension", in one folder:

- ``compute``: its cached computations
- ``exercises``: its exercises and class-mode polls
- ``lesson``: the record and its views (the page)
- ``page``: what Streamlit runs
"""
