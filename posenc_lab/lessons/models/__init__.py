"""The lesson "Real models", in one folder:

- ``catalogue``: published models' position settings, copied from their config.json
- ``compute``: its cached computations
- ``exercises``: its exercises and class-mode polls
- ``figures``: its figure builders
- ``lesson``: the record and its views (the page)
- ``measure``: a config's positions, computed by posenc (pure NumPy)
- ``page``: what Streamlit runs
"""
