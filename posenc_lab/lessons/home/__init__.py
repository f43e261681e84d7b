"""The lesson "Start here", in one folder:

- ``figures``: its figure builders (Plotly)
- ``lesson``: the record and its views (the page)
- ``page``: what Streamlit runs
"""
