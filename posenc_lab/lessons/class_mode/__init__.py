"""The lesson "Class mode", in one folder:

- ``lesson``: the record and its views (the page)
- ``page``: what Streamlit runs
"""
