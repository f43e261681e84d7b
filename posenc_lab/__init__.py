"""posenc-lab, the app: interactive lessons on how Transformers know word order.

``posenc`` (beside this package) is the NumPy library; this package is everything above it:

- ``app``: the entry script (``posenc-lab`` runs it), and ``cli``, that command;
- ``course``: the pages in order, one ``Course`` handed to the shell;
- ``lessons/<name>/``: one folder per lesson (its page and views, cached computations,
  figures, measurements and exercises);
- ``ui``: the shell and the machinery every lesson shares (state in the URL, layout,
  exercises, figure cache, class mode's pages);
- ``figures``: the Plotly builders every lesson shares, and fitting a figure to a screen;
- ``classroom``: class mode's database (SQLite or PostgreSQL), no Streamlit.

Imports run one way: ``app`` -> ``course`` -> ``lessons`` -> ``ui`` -> ``figures`` /
``classroom`` -> ``posenc`` (tests/test_layers.py).
"""
