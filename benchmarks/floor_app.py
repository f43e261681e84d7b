"""The floor: a bare Streamlit page with one slider and one Plotly chart, in a fragment as a
lesson's view is. ``classroom_load.py`` and ``browser_feel.py`` measure it in the same run
as the app, so each page's cost reads as a ratio to what Streamlit and Plotly cost alone.

``?panels=N`` (1-16) draws N heatmaps of 64 x 64 instead, three to a row, each changed by
the slider: what Streamlit and Plotly alone cost for a page of N panels (compare draws
nine score panels and a bar chart), ``browser_feel.py --floor-panels N``.

Run by the benchmarks (``streamlit run benchmarks/floor_app.py``); not part of the app.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

x = np.linspace(0.0, 1.0, 200)
distance = np.abs(np.subtract.outer(np.arange(64), np.arange(64))).astype(float)

st.title("Floor")
# the mark the browser measurements wait for once the app's own CSS has arrived (app.css)
st.html("<style>:root { --posenc-css: 1; }</style>")
try:
    panels = min(max(int(st.query_params.get("panels", "0")), 0), 16)
except ValueError:
    panels = 0


@st.fragment
def view() -> None:
    k = st.slider("Frequency", 1, 64, 8, key="w:k")
    if not panels:
        st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * k * x))), key="chart")
        return
    columns = st.columns(3)
    for i in range(panels):
        fig = go.Figure(go.Heatmap(z=-distance * (i + 1) / k, showscale=False))
        fig.update_layout(height=260, margin=dict(l=30, r=10, t=30, b=30), title=f"Panel {i + 1}")
        columns[i % 3].plotly_chart(fig, key=f"panel{i}")


view()
