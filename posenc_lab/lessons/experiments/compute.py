"""Cached runs of the train-short, test-long experiment (posenc.experiment).

A run is shared by every student who asks for the same settings (``st.cache_data``
computes a value once per key even when many sessions ask at the same moment). The
default settings are also stored in ``posenc_lab/lessons/experiments/data/experiment_<task>.npz``, made by
``tools/precompute_experiment.py`` from the same code, so the page opens with numbers;
a button re-runs them live.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import streamlit as st

from posenc import PositionOutOfRange
from posenc import experiment as ex
from posenc import extension as xt

DATA = Path(__file__).resolve().parent / "data"

#: "test out to": the test multiples of the training length
REACH = {8: (1, 2, 4, 8), 10: (1, 2, 4, 8, 10)}
#: past this training length a batch holds fewer sequences, about 512 tokens (at least 4
#: sequences), and each test length as many sequences, so that the largest setting (128
#: tokens, tested out to 1280) stays within the page's time budget; up to it every setting
#: is the plain ExperimentConfig's (the stored runs)
FULL_BATCH_MAX_LEN = 32
TOKENS_PER_BATCH = 512
#: the fine-tune steps of the context-extension lab, by default
EXTENSION_STEPS = 100


def make_config(
    task: str, train_len: int, d_model: int, steps: int, seed: int, offset: int, reach: int = 8
) -> ex.ExperimentConfig:
    long_run = {}
    if train_len > FULL_BATCH_MAX_LEN:
        sequences = max(4, TOKENS_PER_BATCH // train_len)
        long_run = dict(batch=sequences, eval_batch=sequences)
    return ex.ExperimentConfig(
        task=task,
        train_len=train_len,
        d_model=d_model,
        steps=steps,
        seed=seed,
        offset=min(offset, train_len - 1),
        multipliers=REACH[reach],
        **long_run,
    )


def precomputed_path(task: str) -> Path:
    return DATA / f"experiment_{task}.npz"


def summarize(run: dict, seconds: float) -> dict:
    """What the page needs from a run, as plain arrays (params kept for the score views)."""
    return dict(
        config=run["config"],
        lengths=list(run["lengths"]),
        accuracy={m: list(a) for m, a in run["accuracy"].items()},
        losses={m: np.asarray(v) for m, v in run["losses"].items()},
        chance=float(run["chance"]),
        params={m: r.params for m, r in run["results"].items()},
        seconds=float(seconds),
    )


def save(summary: dict, path: Path) -> None:
    """Store a summary as .npz (numbers only; the config as its field values)."""
    arrays = {"config_" + k: np.asarray(v) for k, v in summary["config"].items()}
    arrays["lengths"] = np.asarray(summary["lengths"])
    arrays["chance"] = np.asarray(summary["chance"])
    arrays["seconds"] = np.asarray(summary["seconds"])
    for method, accuracy in summary["accuracy"].items():
        arrays[f"accuracy_{method}"] = np.asarray([np.nan if a is None else a for a in accuracy])
        arrays[f"losses_{method}"] = summary["losses"][method]
        for name, value in summary["params"][method].items():
            arrays[f"param_{method}_{name}"] = value
    np.savez_compressed(path, **arrays)


def load(path: Path, cfg: ex.ExperimentConfig) -> dict | None:
    """The stored summary if it was made with exactly ``cfg``, else None."""
    if not path.exists():
        return None
    with np.load(path) as f:
        stored = {k.removeprefix("config_"): f[k] for k in f.files if k.startswith("config_")}
        if {k: np.asarray(v).tolist() for k, v in stored.items()} != {
            k: np.asarray(v).tolist() for k, v in asdict(cfg).items()
        }:
            return None
        methods = [k.removeprefix("accuracy_") for k in f.files if k.startswith("accuracy_")]
        return dict(
            config=asdict(cfg),
            lengths=f["lengths"].tolist(),
            accuracy={m: [None if np.isnan(a) else float(a) for a in f[f"accuracy_{m}"]] for m in methods},
            losses={m: f[f"losses_{m}"] for m in methods},
            chance=float(f["chance"]),
            params={
                m: {k.removeprefix(f"param_{m}_"): f[k] for k in f.files if k.startswith(f"param_{m}_")}
                for m in methods
            },
            seconds=float(f["seconds"]),
        )


def run_now(cfg: ex.ExperimentConfig, on_progress=None) -> dict:
    start = time.perf_counter()
    run = ex.run_experiment(cfg, on_progress=on_progress)
    return summarize(run, time.perf_counter() - start)


@st.cache_data(max_entries=32, show_spinner=False)
def experiment(task: str, train_len: int, d_model: int, steps: int, seed: int, offset: int, reach: int = 8) -> dict:
    """A full run (every method, every length) for these settings, with a progress bar.

    The bar is made inside the cached function: Streamlit replays a cached function's
    elements, and a bar made outside could not be replayed. It is emptied at the end,
    so a cache hit shows nothing.
    """
    bar = st.progress(0.0, text="Training ...")

    def report(fraction: float, message: str) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=f"{message} ({fraction:.0%})")

    summary = run_now(make_config(task, train_len, d_model, steps, seed, offset, reach), report)
    bar.empty()
    return summary


@st.cache_data(max_entries=16, show_spinner=False)
def stored_or_none(
    task: str, train_len: int, d_model: int, steps: int, seed: int, offset: int, reach: int = 8
) -> dict | None:
    """The precomputed summary when these are its settings, else None (read from disk once)."""
    return load(precomputed_path(task), make_config(task, train_len, d_model, steps, seed, offset, reach))


def summary_for(
    task: str, train_len: int, d_model: int, steps: int, seed: int, offset: int, *, live: bool = False, reach: int = 8
):
    """The stored summary for the default settings (unless ``live``), else a cached run."""
    stored = None if live else stored_or_none(task, train_len, d_model, steps, seed, offset, reach)
    return stored if stored is not None else experiment(task, train_len, d_model, steps, seed, offset, reach)


@st.cache_data(max_entries=64, show_spinner=False)
def translation(
    task: str, train_len: int, d_model: int, steps: int, seed: int, offset: int, live: bool, shift: int, reach: int = 8
):
    """Max |scores at offset s - scores at offset 0| of each trained model, for one test phrase.

    Returns ({method: float, or None where the learned table has no row}, tokens (T,),
    {method: (scores at 0, scores at s) of head 0, each (T, T)}).
    """
    summary = summary_for(task, train_len, d_model, steps, seed, offset, live=live, reach=reach)
    cfg = make_config(task, train_len, d_model, steps, seed, offset, reach)
    tokens = np.random.default_rng(cfg.seed).integers(0, cfg.vocab, 12)
    errors, pairs = {}, {}
    for method, params in summary["params"].items():  # the six methods
        result = ex.TrainResult(params=params, losses=summary["losses"][method])
        try:
            at_start = ex.attention_scores(result, cfg, method, tokens, 0)
            moved = ex.attention_scores(result, cfg, method, tokens, shift)
        except PositionOutOfRange:
            errors[method] = None
            continue
        errors[method] = float(np.abs(moved - at_start).max())
        pairs[method] = (at_start[0], moved[0])
    return errors, tokens, pairs


# the context-extension lab (posenc.extension): RoPE trained at L, tested longer four ways


def extension_path(task: str) -> Path:
    return DATA / f"extension_{task}.npz"


def extension_now(cfg: ex.ExperimentConfig, finetune_steps: int, trained=None, on_progress=None) -> dict:
    """A run of the lab as plain numbers (no parameters), with its time in seconds."""
    start = time.perf_counter()
    run = xt.run_extension(cfg, finetune_steps=finetune_steps, trained=trained, on_progress=on_progress)
    return dict(
        config=run["config"],
        finetune_steps=run["finetune_steps"],
        lengths=list(run["lengths"]),
        accuracy={w: list(v) for w, v in run["accuracy"].items()},
        loss={w: list(v) for w, v in run["loss"].items()},
        attention_factor={w: list(v) for w, v in run["attention_factor"].items()},
        finetune_losses={w: np.asarray(v) for w, v in run["finetune_losses"].items()},
        chance=float(run["chance"]),
        seconds=time.perf_counter() - start,
    )


def save_extension(summary: dict, path: Path) -> None:
    arrays = {"config_" + k: np.asarray(v) for k, v in summary["config"].items()}
    for key in ("finetune_steps", "lengths", "chance", "seconds"):
        arrays[key] = np.asarray(summary[key])
    for table in ("accuracy", "loss", "attention_factor"):
        for way, values in summary[table].items():
            arrays[f"{table}_{way}"] = np.asarray(values, dtype=np.float64)
    for way, values in summary["finetune_losses"].items():
        arrays[f"finetune_losses_{way}"] = values
    np.savez_compressed(path, **arrays)


def load_extension(path: Path, cfg: ex.ExperimentConfig, finetune_steps: int) -> dict | None:
    """The stored lab run if it was made with exactly ``cfg`` and ``finetune_steps``, else None."""
    if not path.exists():
        return None
    with np.load(path) as f:
        stored = {k.removeprefix("config_"): np.asarray(f[k]).tolist() for k in f.files if k.startswith("config_")}
        wanted = {k: np.asarray(v).tolist() for k, v in asdict(cfg).items()}
        if stored != wanted or int(f["finetune_steps"]) != finetune_steps:
            return None
        return dict(
            config=asdict(cfg),
            finetune_steps=finetune_steps,
            lengths=f["lengths"].tolist(),
            **{
                table: {w: f[f"{table}_{w}"].tolist() for w in xt.EXTENSION_WAYS}
                for table in ("accuracy", "loss", "attention_factor")
            },
            finetune_losses={w: f[f"finetune_losses_{w}"] for w in ("pi_finetuned", "yarn_finetuned")},
            chance=float(f["chance"]),
            seconds=float(f["seconds"]),
        )


@st.cache_data(max_entries=32, show_spinner=False)
def extension(
    task: str,
    train_len: int,
    d_model: int,
    steps: int,
    seed: int,
    offset: int,
    finetune_steps: int,
    live: bool,
    reach: int,
) -> dict:
    """The lab for the page's settings, on the RoPE model of the page's run, with a
    progress bar (made inside, as ``experiment``'s)."""
    settings = (task, train_len, d_model, steps, seed, offset)
    summary = summary_for(*settings, live=live, reach=reach)
    trained = ex.TrainResult(params=summary["params"]["rope"], losses=summary["losses"]["rope"])
    bar = st.progress(0.0, text="Fine-tuning and testing ...")

    def report(fraction: float, message: str) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=f"{message} ({fraction:.0%})")

    # the lab tests at 1x to 8x whatever the page's reach (its six-method run is only the source
    # of the RoPE model, the same for every reach)
    result = extension_now(make_config(*settings), finetune_steps, trained, report)
    bar.empty()
    return result


@st.cache_data(max_entries=16, show_spinner=False)
def stored_extension_or_none(
    task: str, train_len: int, d_model: int, steps: int, seed: int, offset: int, finetune_steps: int
) -> dict | None:
    cfg = make_config(task, train_len, d_model, steps, seed, offset)
    return load_extension(extension_path(task), cfg, finetune_steps)
