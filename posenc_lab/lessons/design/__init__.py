"""The lesson "Design your own encoding", in one folder:

- ``compute``: its cached computations
- ``exercises``: its exercises and class-mode polls
- ``lesson``: the record and its views (the page)
- ``measure``: its measurements (NumPy only: no Streamlit, no Plotly)
- ``page``: what Streamlit runs
"""
