"""Cached computations of the "Design choices" lesson, keyed by scalars only.

Every number comes from ``posenc.properties`` (and, for the guide, from
``posenc.analysis``, ``posenc.compare_lessons`` and the stored experiment runs, read
through ``ui.compute_experiment`` without changing them).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc
from posenc_lab.lessons.choices import measure as props
from posenc_lab.lessons.compare import measure as compare_lessons
from posenc_lab.lessons.experiments import compute as compute_experiment
from posenc_lab.ui.compute import CACHE

# add or concatenate

#: widths of the norm curves: powers of two, 2 to 1024
WIDTHS = tuple(2**k for k in range(1, 11))
SCALE_LABELS = {
    "unit": "std 1/sqrt(d): norm about 1",
    "gpt2": "std 0.02 (GPT-2, BERT init)",
    "vaswani": "std 1/sqrt(d), times sqrt(d) (Vaswani et al.)",
}
#: the phrase whose score parts are measured, and the (token, position) pairs read back
PHRASE_TOKENS, VOCAB, READ_POSITIONS, READ_SPAN = 64, 128, 32, 512
SEED = 0


def read_positions() -> np.ndarray:
    """The positions at which every token is read back: 32 spread over 0..511."""
    return np.linspace(0, READ_SPAN - 1, READ_POSITIONS).round()


@st.cache_data(**CACHE)
def norm_curves() -> dict[str, np.ndarray]:
    """Mean row norm at each width of ``WIDTHS``: every token scale, then the sinusoid."""
    widths = np.array(WIDTHS)
    curves = {scale: props.norm_by_width(widths, scale=scale, seed=SEED) for scale in props.EMBEDDING_SCALES}
    curves["sinusoid"] = props.norm_by_width(widths, scale=None)
    return curves


@st.cache_data(**CACHE)
def add_or_concat(d_model: int, scale: str) -> dict:
    """What adding costs in interference and concatenating in width, at one width and scale.

    Returns a dict: ``parts`` (3,) RMS of the content, cross and position parts of the
    score of a 64-token phrase; ``recovered`` and ``recovered_concat`` the fraction of
    (token, position) pairs read back; ``params`` (added, concatenated) weights of W_q,
    W_k, W_v with a d_model-wide code.
    """
    x = props.token_embeddings(PHRASE_TOKENS, d_model, scale=scale, seed=SEED + 1)  # (T, D)
    parts = props.score_part_rms(x, posenc.sinusoidal(PHRASE_TOKENS, d_model))
    vocab = props.token_embeddings(VOCAB, d_model, scale=scale, seed=SEED)  # (V, D)
    pe = posenc.sinusoidal(read_positions(), d_model)  # (P, D)
    return dict(
        parts=parts,
        recovered=props.content_recovery(vocab, pe, mode="add"),
        recovered_concat=props.content_recovery(vocab, pe, mode="concat"),
        params=props.concat_projection_params(d_model, d_model),
    )


# caching during generation

#: short names: they label bars, and a phone has little room under a chart
CACHE_LABELS = {
    "absolute": "Sinusoid",
    "learned": "Learned",
    "rope": "RoPE",
    "rope_yarn": "RoPE + YaRN",
    "alibi": "ALiBi",
    "t5": "T5",
    "transformer_xl": "Transformer-XL",
    "rope_dynamic": "RoPE + dyn. NTK",
    "rope_pi_growing": "RoPE + PI grow",
}
CACHE_HEAD_DIM, CACHE_FACTOR = 64, 4.0


def cache_options(train_len: int) -> dict:
    """The settings every cache measurement here uses."""
    return dict(head_dim=CACHE_HEAD_DIM, train_len=train_len, factor=CACHE_FACTOR)


@st.cache_data(**CACHE)
def cache_steps(length: int, train_len: int) -> dict:
    """Appending token ``length`` + 1, for every method of ``properties.CACHE_METHODS``.

    Returns a dict: ``methods`` the methods that could append it (a learned table has no
    row past ``train_len``), and (M,) arrays over them: ``new`` entries, ``changed``
    cached entries and the ``max_change`` of any cached entry; ``missing`` the methods
    that could not.
    """
    steps, missing = {}, []
    for method in props.CACHE_METHODS:
        try:
            steps[method] = props.cache_step(method, length, **cache_options(train_len))
        except posenc.PositionOutOfRange:
            missing.append(method)
    return dict(
        methods=list(steps),
        new=np.array([s.new for s in steps.values()], dtype=float),
        changed=np.array([s.changed for s in steps.values()], dtype=float),
        max_change=np.array([s.max_change for s in steps.values()]),
        missing=missing,
    )


# sliding-window attention

#: Mistral 7B v0.1's published configuration (mistralai/Mistral-7B-v0.1 params.json, and
#: transformers' MistralConfig defaults): its window, layers, key-value heads and head width
MISTRAL = {"window": 4096, "layers": 32, "kv_heads": 8, "head_dim": 128}
#: the depths the receptive field is drawn at: 0 to Mistral's 32 layers
WINDOW_DEPTH = 32
#: the lengths the cache is measured at: 256 to 131,072 tokens, powers of two
CACHE_LENGTHS = tuple(2**k for k in range(8, 18))
#: how far RoPE's window is moved to check that its scores do not depend on where it is
WINDOW_ROPE_SHIFT, WINDOW_ROPE_DIM = 100_000, 64
GIB = 2**30


@st.cache_data(**CACHE)
def sliding_window(seq_len: int, window: int) -> dict:
    """The mask of ``seq_len`` tokens under a window of ``window``, the reach of the last
    token at depths 0..``WINDOW_DEPTH`` (closed form and followed through the mask), and
    how much RoPE's scores of ``window`` tokens move when the window moves
    ``WINDOW_ROPE_SHIFT`` positions on."""
    x = props.token_embeddings(window, WINDOW_ROPE_DIM, seed=SEED)  # (w, Dh) one window of tokens
    return dict(
        mask=posenc.sliding_window_mask(seq_len, seq_len, window).astype(float),
        formula=np.array([posenc.window_receptive_field(window, n, seq_len) for n in range(WINDOW_DEPTH + 1)]),
        measured=props.window_reach(seq_len, window, WINDOW_DEPTH),
        rope_error=props.rope_translation_error(x, WINDOW_ROPE_SHIFT),
    )


@st.cache_data(**CACHE)
def window_cache() -> dict[str, np.ndarray]:
    """Mistral 7B's key-value cache in GiB (bfloat16) at each of ``CACHE_LENGTHS``: full,
    and rolling over its window."""
    model = {k: MISTRAL[k] for k in ("layers", "kv_heads", "head_dim")}
    full = [posenc.kv_cache_bytes(t, **model) for t in CACHE_LENGTHS]
    rolling = [posenc.kv_cache_bytes(t, window=MISTRAL["window"], **model) for t in CACHE_LENGTHS]
    return {"full": np.array(full) / GIB, "rolling": np.array(rolling) / GIB}


@st.cache_data(**CACHE)
def mistral_window() -> tuple[int, dict[str, float]]:
    """Mistral 7B's reach after all its layers, and its cache at 32,768 tokens in GiB,
    ``full`` and ``rolling``."""
    model = {k: MISTRAL[k] for k in ("layers", "kv_heads", "head_dim")}
    reach = posenc.window_receptive_field(MISTRAL["window"], MISTRAL["layers"])
    memory = {
        "full": posenc.kv_cache_bytes(32_768, **model) / GIB,
        "rolling": posenc.kv_cache_bytes(32_768, window=MISTRAL["window"], **model) / GIB,
    }
    return reach, memory


# absolute plus relative

HYBRID_TOKENS, HYBRID_HEAD_DIM, LEARNED_ROWS, LEARNED_STD = 32, 64, 512, 0.5
#: the weights of the absolute part the curve is measured at: 0, 0.05, ..., 1
HYBRID_WEIGHTS = tuple(round(0.05 * i, 2) for i in range(21))
RELATIVE_LABELS = {"none": "none (absolute only)", "rope": "RoPE", "alibi": "ALiBi", "t5": "T5 buckets"}


def hybrid_options(absolute: str) -> dict:
    """The options every hybrid measurement here uses."""
    return dict(absolute=absolute, max_len=LEARNED_ROWS, std=LEARNED_STD, seed=SEED, slope=0.5)


@st.cache_data(**CACHE)
def hybrid_curves(absolute: str, shift: int) -> dict[str, np.ndarray]:
    """Translation error against the weight of the absolute part, per relative method: {method: (W,)}."""
    x = compare_lessons.phrase(HYBRID_TOKENS, HYBRID_HEAD_DIM, "random", seed=SEED)  # (T, Dh)
    return {
        rel: props.hybrid_translation_errors(x, shift, HYBRID_WEIGHTS, relative=rel, **hybrid_options(absolute))
        for rel in props.HYBRID_RELATIVE
    }


@st.cache_data(**CACHE)
def hybrid_change(absolute: str, relative: str, shift: int, weight: float) -> np.ndarray:
    """Scores of the moved phrase minus scores at 0..T-1, at one weight: (T, T)."""
    x = compare_lessons.phrase(HYBRID_TOKENS, HYBRID_HEAD_DIM, "random", seed=SEED)
    options = dict(relative=relative, **hybrid_options(absolute))
    moved = props.hybrid_scores(x, np.arange(shift, shift + HYBRID_TOKENS), weight=weight, **options)
    return moved - props.hybrid_scores(x, HYBRID_TOKENS, weight=weight, **options)


# unique, bounded, norm-preserving

LEARNED_STD_SMALL, CLOSE = 0.02, 0.1


@st.cache_data(**CACHE)
def code_distances(n: int, d_model: int, base: float) -> dict:
    """Distances between codes k apart and the closest pairs, sinusoid and a random learned table.

    Returns a dict: ``sinusoid`` (n-1,) distance at offsets 1..n-1, ``closest`` its running
    minimum, ``learned`` (n-1,) mean distance of the table's rows (NaN past its rows),
    ``sin_closest`` (distance, offset, pairs closer than CLOSE) over 0..n-1,
    ``two_closest`` the same at d = 2, ``learned_closest`` (distance, p, q) among the rows
    that exist, ``learned_rows`` and ``learned_max`` the largest row norm (here, where the
    table is drawn, rather than drawn again for the norms).
    """
    sinusoid = props.sinusoid_offset_distance(np.arange(1, n), d_model, base)  # (n-1,), drawn and searched
    distance, offset, n_close, running = props.sinusoid_closest(n, d_model, base, threshold=CLOSE, distances=sinusoid)
    rows = min(n, LEARNED_ROWS)
    table = posenc.learned_table(rows, d_model, std=LEARNED_STD_SMALL, seed=SEED)  # (rows, D)
    learned = np.full(n - 1, np.nan)
    learned[: rows - 1], learned_closest = props.table_distances(table)  # one Gram matrix for both
    return dict(
        sinusoid=sinusoid,
        closest=running,
        learned=learned,
        sin_closest=(distance, offset, n_close),
        two_closest=props.sinusoid_closest(n, 2, base, threshold=CLOSE)[:3],
        learned_closest=learned_closest,
        learned_rows=rows,
        learned_max=float(props.row_norms(table).max()),
    )


@st.cache_data(**CACHE)
def norms(n: int, d_model: int, base: float) -> dict:
    """Boundedness and norm preservation over positions 0..n-1.

    Returns a dict: ``ratios`` {method: (n,)} of |f_p(q)| / |q| for RoPE and xPos
    (queries, keys), ``sin_max`` the largest sinusoid row norm and ``sin_gap`` its largest
    distance from sqrt(D/2), ``rope_gap`` max |ratio - 1| for RoPE.
    """
    ratios = props.norm_ratios(n, d_model, seed=SEED, base=base)  # one rotation for the three
    sin_norms = props.row_norms(posenc.sinusoidal(n, d_model, base))
    return dict(
        ratios=ratios,
        sin_max=float(sin_norms.max()),
        sin_gap=float(np.abs(sin_norms - np.sqrt(d_model / 2)).max()),
        rope_gap=float(np.abs(ratios["rope"] - 1).max()),
    )


# which method should I choose?

#: the settings of the stored experiment runs (tools/precompute_experiment.py, the
#: experiments page's defaults); read, never re-run here
STORED = dict(train_len=32, d_model=32, steps=300, seed=0, offset=3)
GUIDE_ROWS = ("sinusoidal", "learned", "rope", "rope_yarn", "rope_dynamic", "alibi", "t5")
GUIDE_LABELS = {
    "sinusoidal": "Sinusoid",
    "learned": "Learned",
    "rope": "RoPE",
    "rope_yarn": "RoPE + YaRN",
    "rope_dynamic": "RoPE + dyn. NTK",
    "alibi": "ALiBi",
    "t5": "T5",
}
#: the guide's fixed measuring settings: a 32-token phrase moved 64 places (past L = 64,
#: so dynamic NTK rescales; the learned table gets 128 rows so that it has a row for
#: every moved position); the cache measured at T = 2 L with L = 64
GUIDE_TOKENS, GUIDE_SHIFT, GUIDE_LEARNED_ROWS, GUIDE_CACHE_LEN, GUIDE_CACHE_TRAIN = 32, 64, 128, 128, 64


def stored_run(task: str) -> dict | None:
    """The stored experiment summary of ``task`` ("copy" or "marker"), or None if it is missing."""
    return compute_experiment.stored_or_none(
        task, STORED["train_len"], STORED["d_model"], STORED["steps"], STORED["seed"], STORED["offset"]
    )


def _accuracy(run: dict | None, method: str) -> tuple[float, float] | None:
    """(accuracy at 1x, at 2x) of ``method`` in a stored run; NaN where there was no row."""
    if run is None or method not in run["accuracy"]:
        return None
    first, second = run["accuracy"][method][:2]
    return (np.nan if first is None else first, np.nan if second is None else second)


def _scaling(method: str) -> dict | None:
    rope_type = {"rope_yarn": "yarn", "rope_dynamic": "dynamic"}.get(method)
    if rope_type is None:
        return None
    return {"rope_type": rope_type, "factor": CACHE_FACTOR, "original_max_position_embeddings": GUIDE_CACHE_TRAIN}


def translation(method: str) -> float:
    """Largest score change of the guide's phrase moved GUIDE_SHIFT places; NaN with no row."""
    x = compare_lessons.phrase(GUIDE_TOKENS, CACHE_HEAD_DIM, "random", seed=SEED)  # (T, Dh)
    if method in ("rope_yarn", "rope_dynamic"):
        return props.rope_translation_error(x, GUIDE_SHIFT, rope_scaling=_scaling(method))
    options = dict(max_len=GUIDE_LEARNED_ROWS, std=LEARNED_STD, seed=SEED) if method == "learned" else {}
    if method == "alibi":
        options = dict(slope=0.5)
    return posenc.translation_error(x, GUIDE_SHIFT, method, **options)


def _cache_cells(method: str) -> tuple[str, str]:
    """(cached entries that change, new entries) when token 129 arrives with L = 64."""
    cached = "absolute" if method == "sinusoidal" else method
    try:
        step = props.cache_step(cached, GUIDE_CACHE_LEN, **cache_options(GUIDE_CACHE_TRAIN))
    except posenc.PositionOutOfRange:
        return "no row", "no row"
    return f"{step.changed:,}", f"{step.new:,}"


@st.cache_data(**CACHE)
def guide(d_model: int, n_heads: int, train_len: int) -> dict:
    """Every cell of the guide, measured: per-row values in ``GUIDE_ROWS`` order.

    Returns a dict of lists: ``params`` learned parameters (a learned table of
    ``train_len`` x ``d_model``; T5's 32 buckets per head), ``copy`` and ``marker``
    (1x, 2x) accuracy of the stored runs or None, ``translation`` the largest score
    change, ``changed`` and ``new`` the cache cells at T = 128, L = 64.
    """
    runs = {task: stored_run(task) for task in ("copy", "marker")}
    out = dict(params=[], copy=[], marker=[], translation=[], changed=[], new=[])
    for method in GUIDE_ROWS:
        counted = method if method in compare_lessons.COMPARE_METHODS else "rope"
        # the learned table is one D-wide row per position: n_heads x head_dim = d_model
        out["params"].append(
            compare_lessons.parameter_count(counted, max_len=train_len, head_dim=d_model, n_heads=1)
            if counted == "learned"
            else compare_lessons.parameter_count(counted, max_len=train_len, head_dim=d_model, n_heads=n_heads)
        )
        out["copy"].append(_accuracy(runs["copy"], method))
        out["marker"].append(_accuracy(runs["marker"], method))
        out["translation"].append(translation(method))
        changed, new = _cache_cells(method)
        out["changed"].append(changed)
        out["new"].append(new)
    return out


def _fmt_accuracy(pair: tuple[float, float] | None, stored: bool) -> str:
    if not stored:
        return "stored run missing"
    if pair is None:
        return "not run"
    return " → ".join("no row" if np.isnan(a) else f"{a:.0%}" for a in pair)


def _fmt_change(value: float) -> str:
    return "0" if value == 0 else f"{value:.1e}"


def guide_table(cells: dict) -> list[dict[str, str]]:
    """The guide's rows as the page prints them, every cell from ``guide``."""
    stored = {task: stored_run(task) is not None for task in ("copy", "marker")}
    rows = []
    for i, method in enumerate(GUIDE_ROWS):
        rows.append(
            {
                "Method": GUIDE_LABELS[method],
                "Parameters": f"{cells['params'][i]:,}",
                "Copy, 1x → 2x": _fmt_accuracy(cells["copy"][i], stored["copy"]),
                "Marker, 1x → 2x": _fmt_accuracy(cells["marker"][i], stored["marker"]),
                f"Moved {GUIDE_SHIFT}: score change": _fmt_change(cells["translation"][i]),
                "Cache: entries changed": cells["changed"][i],
                "Cache: new per token": cells["new"][i],
            }
        )
    return rows


def _at_twice(cells: dict, task: str) -> dict[str, float]:
    """method -> accuracy at 2x, for the methods that learned the task (>= 80 % at 1x) in the stored run."""
    out = {}
    for method, pair in zip(GUIDE_ROWS, cells[task], strict=True):
        if pair is not None and pair[0] >= LEARNT and not np.isnan(pair[1]):
            out[method] = pair[1]
    return out


#: accuracy at the training length from which a method counts as having learned a task
LEARNT = 0.8


def recommendations(cells: dict) -> list[str]:
    """Plain advice, each sentence tied to a measured column of the guide (or a cited paper)."""
    by = dict(zip(GUIDE_ROWS, range(len(GUIDE_ROWS)), strict=True))
    advice = []
    best = {task: _at_twice(cells, task) for task in ("copy", "marker")}
    if all(best.values()):
        tops = {task: max(best[task], key=best[task].get) for task in best}
        measured = "; ".join(
            f"on {task}, {GUIDE_LABELS[tops[task]]} kept the most ({best[task][tops[task]]:.0%})" for task in tops
        )
        advice.append(
            "**Inputs longer than training:** do not use a learned table (no row at 2x, measured). In the stored runs, "
            f"among methods that learned the task, {measured}. At scale the published routes are ALiBi (Press et al. "
            "2021: a model trained on 1,024 tokens matched, at 2,048, a sinusoidal model trained on 2,048) and RoPE "
            "with rescaled frequencies such as YaRN (Peng et al. 2023, after a short fine-tune)."
        )
    dynamic = cells["changed"][by["rope_dynamic"]]
    kept = [GUIDE_LABELS[m] for m in GUIDE_ROWS if cells["changed"][by[m]] == "0"]
    if dynamic != "0" and kept:
        times = GUIDE_CACHE_LEN / GUIDE_CACHE_TRAIN
        advice.append(
            "**Generating text with a KV cache:** prefer a method whose cached entries never change (measured 0: "
            f"{', '.join(kept)}). RoPE with dynamic NTK changed {dynamic} cached entries when token "
            f"{GUIDE_CACHE_LEN + 1} arrived with L = {GUIDE_CACHE_TRAIN} (T = {times:g}L): transformers issue #25104 "
            "reports it. A proposed fix caches the keys before the rotation and turns them all again at every "
            "step; transformers has not taken it, a maintainer finding such fixes too slow (PR #27227)."
        )
    invariant = [GUIDE_LABELS[m] for m in GUIDE_ROWS if cells["translation"][by[m]] < 1e-9]
    absolute = [m for m in ("sinusoidal", "learned") if cells["translation"][by[m]] >= 1e-9]
    if invariant and absolute:
        advice.append(
            "**When the same phrase should mean the same anywhere:** a relative method. Moving a phrase changed the "
            f"scores of {', '.join(invariant)} by less than 1e-9, and of the added codes by "
            + " and ".join(f"{cells['translation'][by[m]]:.2g} ({GUIDE_LABELS[m]})" for m in absolute)
            + "."
        )
    learned_params = cells["params"][by["learned"]]
    learned_ok = [cells[task][by["learned"]] for task in ("copy", "marker")]
    if all(pair is not None for pair in learned_ok):
        within = ", ".join(f"{pair[0]:.0%}" for pair in learned_ok)
        advice.append(
            f"**Short inputs of bounded length (an encoder that never sees more than L tokens):** a learned table is "
            f"simple and learned both tasks at the training length ({within}); it costs {learned_params:,} parameters "
            "here and nothing past L. The sinusoid, RoPE and ALiBi cost none."
        )
    return advice


def guide_notice(cells: dict) -> str:
    """The "what to notice" under the guide, from its measured cells."""
    by = dict(zip(GUIDE_ROWS, range(len(GUIDE_ROWS)), strict=True))
    zero_params = [GUIDE_LABELS[m] for m in GUIDE_ROWS if cells["params"][by[m]] == 0]
    both = [
        GUIDE_LABELS[m] for m in GUIDE_ROWS if cells["changed"][by[m]] == "0" and cells["translation"][by[m]] < 1e-9
    ]
    neither = [
        GUIDE_LABELS[m]
        for m in GUIDE_ROWS
        if cells["changed"][by[m]] not in ("0", "no row") and cells["translation"][by[m]] >= 1e-9
    ]
    return (
        f"no single column decides. {len(zero_params)} of the {len(GUIDE_ROWS)} methods cost no parameter; "
        f"{', '.join(both)} keep both the cache and the scores of a moved phrase"
        + (f", while {' and '.join(neither)} keeps neither past L" if neither else "")
        + "; only the learned table stops at its last row. The accuracies come from one seed of a tiny model: read "
        "them as a measurement of this setting, not a ranking of methods at scale."
    )
