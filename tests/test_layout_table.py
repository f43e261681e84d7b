"""ui.layout.table: the Arrow table made once per content is what st.table sends for the
same data given as a frame, rows or columns (issue 18)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script():
    import sys

    sys.path.insert(0, ".")
    import pandas as pd
    import streamlit as st

    from posenc_lab.ui import layout

    rows = [{"Method": "RoPE", "Cost": "0", "Runs": "yes"}, {"Method": "ALiBi", "Cost": "H", "Runs": "yes"}]
    columns = {"distance": [1, 2, 4], "std": ["1.00", "0.71", "0.50"]}
    numbers = [{"a": 1.5, "b": 2}, {"a": float("nan"), "b": -3}]
    # each pair: what the lessons drew before, then the helper
    st.table(pd.DataFrame(rows).set_index("Method"))
    layout.table(rows, index="Method")
    st.table(rows, hide_index=True)
    layout.table(rows)
    st.table(columns)
    layout.table(columns)
    st.table(numbers, hide_index=True, border="horizontal")
    layout.table(numbers, border="horizontal")
    # the same content again: the cached Arrow table, drawn again
    layout.table(rows, index="Method")
    # a NumPy number (its repr would not tell 1.5 from float32's 1.5): converted each run
    import numpy as np

    odd = [{"a": np.float32(1.5), "b": "x"}]
    st.table(odd, hide_index=True)
    layout.table(odd)


def test_the_helper_sends_what_st_table_sends():
    at = AppTest.from_function(_script, default_timeout=60).run()
    assert not at.exception
    protos = [t.proto for t in at.table]
    assert len(protos) == 11
    for before, after in zip(protos[0:8:2], protos[1:8:2], strict=True):
        assert after == before
    assert protos[8] == protos[1]
    assert protos[10] == protos[9]
    # the index is drawn when named, hidden otherwise
    assert not protos[1].hide_index and protos[3].hide_index and protos[5].hide_index


def test_a_cell_that_would_start_a_markdown_block_reads_as_typed():
    """Streamlit draws table cells as Markdown: a lone "-" (Real models' base of a model
    without RoPE) drew as an empty bullet, "1. x" would draw as a numbered list. The mark
    is escaped; a dash or a number inside a cell, or a negative number, is left alone."""
    from posenc_lab.ui import layout

    cells = {"-": "\\-", "- a": "\\- a", "1. x": "1\\. x", "3) y": "3\\) y", "#": "\\#", "> q": "\\> q"}
    for cell, sent in cells.items():
        assert layout._plain_cell(cell) == sent
    for cell in ("a - b", "-3.5", "1.5", "12", "x*y"):
        assert layout._plain_cell(cell) == cell
