"""The lesson "Experiments", in one folder:

- ``claims``: the experiment's claims set against a run
- ``compute``: its cached computations
- ``exercises``: its exercises and class-mode polls
- ``lesson``: the record and its views (the page)
- ``page``: what Streamlit runs
- ``data/``: the stored default run (``tools/precompute_experiment.py``)
"""
