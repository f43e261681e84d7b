"""The lesson "Learned positions", in one folder:

- ``compute``: the trained-table view's cached reads of the stored runs
- ``exercises``: its exercises and class-mode polls
- ``lesson``: the record, its intro and its views
- ``measure``: what training did to a table, NumPy only
- ``page``: what Streamlit runs
"""
