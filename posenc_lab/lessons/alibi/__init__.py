"""The lesson "ALiBi and KERPLE", in one folder:

- ``compute``: its cached computations
- ``exercises``: its exercises and class-mode polls
- ``figures``: its figure builders (Plotly)
- ``lesson``: the record and its views (the page)
- ``page``: what Streamlit runs
"""
