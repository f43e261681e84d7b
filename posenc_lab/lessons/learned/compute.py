"""Cached computations of the "Learned positions" lesson's trained-table view, keyed by
scalars only. The trained tables are the experiments page's stored runs, read as that page
reads them; nothing is trained here."""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc
from posenc_lab.lessons.experiments import compute as experiment
from posenc_lab.lessons.images import compute as compute_images
from posenc_lab.lessons.learned import measure
from posenc_lab.ui.compute import CACHE

#: the stored runs' settings but the task: (train_len, d_model, steps, seed, offset)
RUN = compute_images.EXPERIMENT_DEFAULTS[1:]
TASK_LABELS = {"copy": "copy the token 3 back", "marker": "name the latest marker"}
#: the tables compared, in the order of the panels
TABLES = ("initial", "trained", "sinusoid")


def run_config(task: str) -> posenc.experiment.ExperimentConfig:
    return experiment.make_config(task, *RUN)


@st.cache_data(**CACHE)
def trained_table(task: str) -> dict | None:
    """The stored run's learned table for ``task`` beside its starting point and the sinusoid.

    Returns None when the stored run is missing (the page says so; it does not train).
    Else a dict: ``tables`` {name: (T, D)} for ``TABLES``; ``similarity`` {name: (T, T)}
    cosine similarities; ``by_offset`` {name: (T,)} their means by offset; ``norms``
    {initial, trained: (T,)} row norms; ``drift`` (T,) how far each row moved;
    ``accuracy`` the learned model's accuracy at each tested length (None: no row).
    """
    stored = experiment.stored_or_none(task, *RUN)
    if stored is None:
        return None
    cfg = run_config(task)
    trained = np.asarray(stored["params"]["learned"]["P"], dtype=float)  # (T, D)
    tables = {
        "initial": posenc.experiment.initial_params(cfg, "learned")["P"],
        "trained": trained,
        "sinusoid": posenc.sinusoidal(cfg.train_len, cfg.d_model),
    }
    similarity = {name: posenc.position_similarity(t, "cosine") for name, t in tables.items()}
    return dict(
        tables=tables,
        similarity=similarity,
        by_offset={name: measure.mean_by_offset(s) for name, s in similarity.items()},
        norms={name: np.linalg.norm(tables[name], axis=1) for name in ("initial", "trained")},
        drift=measure.row_drift(trained, tables["initial"]),
        accuracy=stored["accuracy"]["learned"],
        lengths=stored["lengths"],
        steps=cfg.steps,
    )
