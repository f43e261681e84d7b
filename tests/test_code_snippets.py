"""Every chart shows the posenc call behind it, and that code, run as it is, gives the
numbers the chart draws."""

from __future__ import annotations

import numpy as np
import plotly.io as pio
import pytest
from app_helpers import VIEW_CASES, VIEW_IDS, default_view

from posenc_lab.figures.export import figure_table
from posenc_lab.ui.layout import CODES, code_prelude


def run_snippet(code: str) -> np.ndarray:
    namespace: dict = {}
    exec(compile(code_prelude(code) + code, "<snippet>", "exec"), namespace)  # noqa: S102 - our own snippets
    assert "data" in namespace, "a snippet leaves the plotted numbers in `data`"
    return np.asarray(namespace["data"], dtype=np.float64)


@pytest.mark.parametrize(("page", "query"), VIEW_CASES, ids=VIEW_IDS)
def test_every_chart_shows_code_that_reproduces_its_data(page, query):
    at = default_view(page, query)
    assert not at.exception
    # a chart drawn as several panels (keys key__1, key__2, ...) shows its code once
    specs = {}
    for el in at.get("plotly_chart"):
        specs.setdefault(str(el.key).split("__")[0], el.proto.spec)
    codes = at.session_state[CODES]
    assert set(codes) == set(specs), f"charts without code: {sorted(set(specs) - set(codes))}"
    for key, (code, declared) in codes.items():
        drawn = figure_table(pio.from_json(specs[key]))[1] if declared is None else np.asarray(declared, float)
        data = run_snippet(code)
        assert data.size == drawn.size, (key, data.shape, drawn.shape)
        # figures send float32: compare at its precision
        np.testing.assert_allclose(data.reshape(drawn.shape), drawn, rtol=2e-6, atol=2e-6, equal_nan=True, err_msg=key)


#: views whose figures change with a choice the default URL does not make
EXTRA_CASES = [
    (
        "posenc_lab/lessons/rope/page.py",
        {"view": "scaling", "method": "longrope", "dh": "96", "orig": "4096", "seq": "8192"},
    ),
    ("posenc_lab/lessons/rope/page.py", {"view": "scaling", "method": "proportional", "p_rope": "0.5", "factor": "1"}),
    ("posenc_lab/lessons/rope/page.py", {"view": "scaling", "method": "yarn", "rotary": "0.25", "head_dim": "64"}),
    # more positions than rows of pixels: each row the mean of 16 positions, every 8th dimension
    ("posenc_lab/lessons/sinusoidal/page.py", {"view": "heatmap", "n": "4096", "d_model": "1024"}),
    # more cells than a phone's chart has pixels across: PHONE_CELLS a side, every k-th as drawn
    ("posenc_lab/lessons/sinusoidal/page.py", {"view": "similarity", "n": "4096"}),
    ("posenc_lab/lessons/learned/page.py", {"view": "table", "d_model": "1024"}),
    ("posenc_lab/lessons/relative/page.py", {"view": "t5", "tlen": "256"}),
    ("posenc_lab/lessons/design/page.py", {"view": "encoding", "d_model": "256", "n_pos": "1024"}),
    ("posenc_lab/lessons/design/page.py", {"view": "shift", "d_model": "256"}),
    ("posenc_lab/lessons/design/page.py", {"view": "similarity", "n_pos": "1024"}),
]


@pytest.mark.parametrize(
    ("page", "query"), EXTRA_CASES, ids=lambda v: v.get("method", "") if isinstance(v, dict) else ""
)
def test_code_reproduces_the_less_common_choices(page, query):
    test_every_chart_shows_code_that_reproduces_its_data(page, query)
