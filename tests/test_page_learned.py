"""The "Learned positions" page under AppTest: the trained-table view's numbers against
the stored runs read directly and the starting table drawn again from the seed."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pytest
from app_helpers import assert_clean, charts, notices, open_page

PAGE = "posenc_lab/lessons/learned/page.py"
DATA = Path(__file__).resolve().parents[1] / "posenc_lab" / "lessons" / "experiments" / "data"


def arr(value) -> np.ndarray:
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            out = out.reshape([int(s) for s in str(value["shape"]).split(",")])
        return out.astype(float)
    return np.array([np.nan if v is None else v for v in value], dtype=float)


def cosine(table: np.ndarray) -> np.ndarray:
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    return unit @ unit.T


def start_table(seed: int = 0, rows: int = 32, width: int = 32) -> np.ndarray:
    """The learned table's start as posenc.experiment.init_params draws it: the learned
    method's stream [seed, 1], after E (V x D), Wq, Wk, Wv (D x D), bq, bk (D), Wo (D x V)."""
    rng = np.random.default_rng([seed, 1])
    rng.normal(0, 1.0, (16, width))
    for _ in range(3):
        rng.normal(0, width**-0.5, (width, width))
    rng.normal(0, 0.5, width)
    rng.normal(0, 0.5, width)
    rng.normal(0, width**-0.5, (width, 16))
    return rng.normal(0, 0.5, (rows, width))


def sinusoid(n: int, d: int) -> np.ndarray:
    p = np.arange(n, dtype=float)[:, None]
    w = 10_000.0 ** (-np.arange(0, d, 2) / d)
    out = np.empty((n, d))
    out[:, 0::2], out[:, 1::2] = np.sin(p * w), np.cos(p * w)
    return out


def notice(at) -> str:
    return notices(at)[0]


def test_the_table_view_is_the_default_and_keeps_its_controls():
    at = open_page(PAGE)
    assert_clean(at)
    assert at.slider(key="w:max_len").value == 512
    assert any("The learned table (freshly initialised)" in spec["layout"]["title"]["text"] for spec in charts(at))


@pytest.mark.parametrize("task", ["copy", "marker"])
def test_trained_view_shows_the_stored_table_its_start_and_the_sinusoid(task):
    at = open_page(PAGE, {"view": "trained", "task": task})
    assert_clean(at)
    with np.load(DATA / f"experiment_{task}.npz") as stored:
        trained = stored["param_learned_P"]
        assert np.isnan(stored["accuracy_learned"][1])  # no row at twice the training length
    start = start_table()
    sims = [cosine(start), cosine(trained), cosine(sinusoid(32, 32))]
    panels, offsets, rows = charts(at)
    z = [arr(t["z"]).reshape(32, 32) for t in panels["data"]]
    for got, want in zip(z, sims, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-6)
    lines = {t["name"]: arr(t["y"]) for t in offsets["data"]}
    for name, sim in zip(["at the start", "after training", "sinusoid, same size"], sims, strict=True):
        by_offset = [np.mean([sim[p, p + k] for p in range(32 - k)]) for k in range(32)]
        np.testing.assert_allclose(lines[name], by_offset, atol=1e-6)
    lines = {t["name"]: arr(t["y"]) for t in rows["data"]}
    np.testing.assert_allclose(lines["row norm at the start"], np.linalg.norm(start, axis=1), rtol=1e-6)
    np.testing.assert_allclose(lines["row norm after training"], np.linalg.norm(trained, axis=1), rtol=1e-6)
    np.testing.assert_allclose(lines["distance moved"], np.linalg.norm(trained - start, axis=1), rtol=1e-6)
    text = notice(at)
    for k in (1,):
        for name, sim in zip(["at the start", "after training", "sinusoid, same size"], sims, strict=True):
            assert next(m.value for m in at.metric if m.label.endswith(name)) == f"{np.diagonal(sim, k).mean():.2f}"
    assert "(k = 1)" in text
    assert f"mean cosine of {np.diagonal(sims[1], 1).mean():.2f}" in text
    assert f"against {np.diagonal(sims[0], 1).mean():.2f} at the start" in text
    assert f"{np.diagonal(sims[2], 1).mean():.2f} for the sinusoid" in text
    alike = np.diagonal(sims[1], 1).mean() - np.diagonal(sims[0], 1).mean() > 0.1
    assert ("did not make neighbouring rows alike" in text) == (not alike)
    captions = " ".join(c.value for c in at.caption)
    assert "max_len = train_len = 32" in captions and "at 64 tokens the model cannot run" in captions


def test_the_two_tasks_leave_different_tables():
    # measured on the stored runs: the copy task leaves neighbours unrelated, the marker task makes them alike
    copy = open_page(PAGE, {"view": "trained", "task": "copy"})
    marker = open_page(PAGE, {"view": "trained", "task": "marker"})
    assert "did not make neighbouring rows alike" in notice(copy)
    assert "made neighbouring rows alike, though less than the sinusoid's" in notice(marker)


@pytest.mark.parametrize("offset", [1, 5, 31])
def test_the_notice_follows_the_offset(offset):
    at = open_page(PAGE, {"view": "trained", "task": "marker", "offset": str(offset)})
    assert_clean(at)
    with np.load(DATA / "experiment_marker.npz") as stored:
        trained = stored["param_learned_P"]
    start, after = np.diagonal(cosine(start_table()), offset).mean(), np.diagonal(cosine(trained), offset).mean()
    text = notice(at)
    assert f"(k = {offset}) end with a mean cosine of {after:.2f}, against {start:.2f}" in text
    assert ("did not make" in text) == (after - start <= 0.1)
