"""Cached computations of the "Design your own encoding" lesson, keyed by scalars and tuples.

A design travels as ``EncodingSpec.key()``, a tuple of its canonical field values, so two
links that differ only in fields the design ignores share one computation. Each function
returns what its figure shows, for the design and for the classic it is compared with.

The training experiment runs the design as one more method of ``posenc.experiment`` at the
experiments lesson's default settings, next to the six classics stored in ``posenc_lab/lessons/experiments/data``.
"""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

import posenc
from posenc import experiment as ex
from posenc_lab.figures import PHONE_CELLS, display_steps
from posenc_lab.lessons.design import measure as custom
from posenc_lab.lessons.experiments import compute as compute_experiment
from posenc_lab.ui.compute import CACHE

#: the experiment's settings: the experiments lesson's defaults, whose classics are stored
TRAIN_LEN, WIDTH, STEPS, SEED, OFFSET = 32, 32, 300, 0, 3


def spec_of(key: tuple) -> custom.EncodingSpec:
    return custom.EncodingSpec(*key)


def design(spec: custom.EncodingSpec) -> tuple:
    """The cache key of a design: ("design", its canonical fields)."""
    return ("design", spec.key())


def classic(name: str, d_model: int, n: int) -> tuple:
    """The cache key of a classic: ("classic", name, width, positions)."""
    return ("classic", name, d_model, n)


def encoder(source: tuple):
    """The encoder a cache key names (``design`` or ``classic``)."""
    if source[0] == "design":
        return spec_of(source[1])
    return custom.classic(*source[1:])


# the table and the verdict (design and classic cached apart: moving the design keeps the classic's)


@st.cache_data(**CACHE)
def table_grid(key: tuple, n: int):
    """The design's table at the positions and dimensions a heatmap can show.

    Returns (table (r, c) float32, positions (r,), dims (c,), (row_step, col_step)).
    """
    spec = spec_of(key)
    rs, cs = display_steps(n, spec.d_model, max_cols=PHONE_CELLS)
    table = custom.encode(spec, n)[::rs, ::cs]  # a sequence of n: the ramp divides by n - 1
    return table.astype(np.float32), np.arange(0, n, rs), np.arange(0, spec.d_model, cs), (rs, cs)


@st.cache_data(**CACHE)
def verdict(source: tuple, n: int, k: int, metric: str) -> dict:
    """``custom.check_encoding`` (numbers only)."""
    return custom.check_encoding(encoder(source), n, k, metric)


@st.cache_data(**CACHE)
def uniqueness(source: tuple, n: int) -> dict:
    """``custom.uniqueness``: nearest-code distance per position, the closest pair."""
    return custom.uniqueness(encoder(source), n)


@st.cache_data(**CACHE)
def growth(source: tuple, n: int) -> dict:
    """``custom.norm_growth`` (norms in a sequence of 8n, NaN past a learned table), with
    ``change`` (``custom.length_change`` to 8n) and ``short`` (norms in a sequence of n)."""
    enc = encoder(source)
    out = custom.norm_growth(enc, n)
    out["change"] = custom.length_change(enc, n, max(custom.MULTIPLIERS))
    out["short"] = np.linalg.norm(enc.encode(n), axis=1)
    return out


@st.cache_data(**CACHE)
def shift(source: tuple, n: int, k: int) -> dict:
    """``custom.shift_fit``: the map M_k and the misses per position."""
    return custom.shift_fit(encoder(source), n, k)


@st.cache_data(**CACHE)
def similarity(source: tuple, n: int, metric: str) -> dict:
    """Similarity of every shown pair of positions, and the curves against distance.

    Returns a dict: ``matrix`` (r, r) float32 at ``shown`` positions, ``row_step``, and
    ``custom.similarity_curve`` without its matrix (``mean``, ``low``, ``high``, ...).
    """
    enc = encoder(source)
    rs, _ = display_steps(n, n, PHONE_CELLS, PHONE_CELLS)  # a square chart in a narrow column
    shown = np.arange(0, n, rs)
    curve = custom.similarity_curve(enc, n, metric)
    curve.pop("S")
    matrix = posenc.position_similarity(enc.encode(n)[shown], metric).astype(np.float32)
    return dict(matrix=matrix, shown=shown, row_step=rs, **curve)


# the experiment


def experiment_config(task: str) -> ex.ExperimentConfig:
    return compute_experiment.make_config(task, TRAIN_LEN, WIDTH, STEPS, SEED, OFFSET)


def classics(task: str) -> dict | None:
    """The six classics at the experiment's settings as stored in ``posenc_lab/lessons/experiments/data``, or None.

    Only shown as a table: a stored run may differ from a fresh one in the last digits
    (the CPU's BLAS kernels), so the charts draw live runs only.
    """
    return compute_experiment.stored_or_none(task, TRAIN_LEN, WIDTH, STEPS, SEED, OFFSET)


@st.cache_data(**CACHE)
def model_input(key: tuple, task: str) -> tuple[np.ndarray, int, int]:
    """The design as the model gets it: at the model's width, over 8x the training length.

    Returns (table (8L, width) float32, width, test length 8L): the added table at
    d_model, or the rotation code at head_dim.
    """
    cfg = experiment_config(task)
    spec = spec_of(key)
    width = cfg.head_dim if spec.placement == "rotary" else cfg.d_model
    length = cfg.train_len * max(cfg.multipliers)
    return custom.encode(spec.at_width(width), length).astype(np.float32), width, length


@st.cache_data(max_entries=64, show_spinner=False)
def train_design(task: str, key: tuple) -> dict:
    """Train the design and its twin classic, test both at 1x to 8x (a progress bar meanwhile).

    The twin is the classic whose initial weights and batches the design shares
    (sinusoidal for an added table, RoPE for a rotation), trained in the same run so
    that the two lines differ by the encoding alone.

    Returns a dict: ``accuracy`` and ``losses`` {"yours", twin: ...}, ``lengths``,
    ``chance``, ``seconds``, ``twin``.
    """
    cfg = experiment_config(task)
    method = custom.experiment_method(spec_of(key), cfg, name="yours")
    bar = st.progress(0.0, text="Training ...")

    def report(fraction: float, message: str) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=f"{message.replace('yours', 'your design')} ({fraction:.0%})")

    start = time.perf_counter()
    run = ex.run_experiment(cfg, methods=(method.shares, method), on_progress=report)
    bar.empty()
    return dict(
        accuracy=run["accuracy"],
        losses=run["losses"],
        lengths=run["lengths"],
        chance=run["chance"],
        seconds=time.perf_counter() - start,
        twin=method.shares,
    )
