"""Cached calls into ``measure`` for the lesson on real models' positions.

Keyed by scalars only (a catalogue key, a length, a pasted config's values as JSON); each
returns what the page shows.
"""

from __future__ import annotations

import json

import streamlit as st

from posenc_lab.lessons.models import measure
from posenc_lab.lessons.models.catalogue import MODELS
from posenc_lab.ui.compute import CACHE

#: the lengths L the page asks about: powers of two from 512 to 16M tokens
LENGTHS = tuple(2**k for k in range(9, 25))


@st.cache_data(**CACHE)
def model_positions(key: str, length: int) -> dict:
    """``measure.positions`` of one catalogue entry at sequence length ``length``."""
    return measure.positions(MODELS[key]["config"], length)


def config_positions(text: str, length: int) -> dict:
    """A pasted config, read and measured: ``{"config", "notes", "out"}``, or ``{"error"}``
    with the message naming the bad key (a ValueError from ``measure``, never a traceback).

    Reading runs on every call (it is cheap: at most ``measure.MAX_BYTES`` of JSON); the
    measuring is cached by the values read, not by the text, so that the same config spaced
    differently (one more space as the student types) shares one cache entry.
    """
    try:
        config, notes = measure.read_config(text)
    except ValueError as err:
        return {"error": str(err)}
    except Exception as err:  # noqa: BLE001 - a student's file must never show a traceback
        return {"error": _unreadable(err)}
    measured = _config_measured(json.dumps(config), length)
    if "error" in measured:
        return measured
    return {"config": config, "notes": notes, "out": measured["out"]}


@st.cache_data(**CACHE)
def _config_measured(config_json: str, length: int) -> dict:
    """``measure.positions`` of the position keys read (``json.dumps`` of them, one spelling
    per config): ``{"out"}``, or ``{"error"}`` naming the bad key."""
    try:
        return {"out": measure.checked_positions(json.loads(config_json), length)}
    except ValueError as err:
        return {"error": str(err)}
    except Exception as err:  # noqa: BLE001 - a student's file must never show a traceback
        return {"error": _unreadable(err)}


def _unreadable(err: Exception) -> str:
    return f"config.json could not be read ({type(err).__name__}); check its position keys"


@st.cache_data(**CACHE)
def catalogue_rows() -> list[dict]:
    """One row per catalogue model: method, base, windows, scaling and the source."""
    rows = []
    for entry in MODELS.values():
        out = measure.positions(entry["config"])
        cfg = entry["config"]
        if out["method"] == "rope":
            scaling = out["rope_scaling"] or {}
            kind = scaling.get("rope_type", "default")
            factor = scaling.get("factor")
            if kind == "longrope" and factor is None:
                factor = out["extended_len"] / out["train_len"]
            base = f"{out['base']:,.0f}"
            # the longest position accepted; with a stated original length, the length it was scaled from
            context = (
                f"{out['train_len']:,} -> {out['extended_len']:,}"
                if out["train_kind"] == "original" and out["train_len"] != out["extended_len"]
                else f"{out['extended_len']:,}"
            )
            scale = "none" if kind == "default" else f"{kind}, factor {factor:g}"
            if "partial_rotary_factor" in scaling:
                scale += f"; rotates {out['rotary_dim']} of {out['head_dim']} dims"
        else:
            base, scale = "-", "-"
            context = _unbounded_context(out, cfg)
        rows.append(
            {
                "Model": entry["name"],
                "Method": measure.METHODS[out["method"]],
                "Base": base,
                "Context": context,
                "Scaling": scale,
                "Source": entry["source"],
            }
        )
    return rows


def _unbounded_context(out: dict, cfg: dict) -> str:
    """The context of a model without RoPE, as its config states it."""
    if out["method"] == "learned":
        return f"{out['readable']:,}"
    if out["method"] == "t5":
        return f"no limit (one last bucket each way from ±{out['last_bucket_start']:,} on)"
    if out["method"] == "deberta":
        return f"{cfg.get('max_position_embeddings', 512):,}"
    return f"no limit (trained at {cfg['max_seq_len']:,})" if "max_seq_len" in cfg else "no limit"


#: the catalogue's RoPE models, in its order
ROPE_KEYS = tuple(key for key, entry in MODELS.items() if measure.positions(entry["config"])["method"] == "rope")


@st.cache_data(**CACHE)
def turning_shares(length: int) -> list[float]:
    """Per RoPE model of the catalogue: the share of its pairs that turn fully within ``length``."""
    return [measure.turning_share(MODELS[key]["config"], length) for key in ROPE_KEYS]
