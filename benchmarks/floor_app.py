"""The floor: a bare Streamlit page with one slider and one Plotly chart, in a fragment as a
lesson's view is. ``classroom_load.py`` and ``browser_feel.py`` measure it in the same run
as the app, so each page's cost reads as a ratio to what Streamlit and Plotly cost alone.

Run by the benchmarks (``streamlit run benchmarks/floor_app.py``); not part of the app.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

x = np.linspace(0.0, 1.0, 200)

st.title("Floor")
# the mark the browser measurements wait for once the app's own CSS has arrived (app.css)
st.html("<style>:root { --posenc-css: 1; }</style>")


@st.fragment
def view() -> None:
    k = st.slider("Frequency", 1, 64, 8, key="w:k")
    st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * k * x))), key="chart")


view()
