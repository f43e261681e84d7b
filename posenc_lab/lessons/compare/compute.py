"""Cached computations of the "Compare them all" lesson, keyed by scalars only.

Every method scores the same seeded phrase (``compare_lessons.phrase``) with the
options fixed here, so the heatmaps, the table and the bars describe one setting.

Two levels of cache: per method (so moving H recomputes ALiBi alone) and per setting
(so a setting already seen costs one lookup, not one per method: in a class, a lookup per
method would itself be about a tenth of this page's server time).

The phrase length T is the page's key control, and a lecture hall moves it to values of
its own: 200 students each asking for a new T would each pay nine score grids. The per-method
level is therefore computed for a *band* of lengths at once and each T served from it. A
panel shows every s-th position (s a power of two), so one (96, 96) block at stride s holds
every T drawn with that stride; and the largest change when the phrase moves is a running
maximum over the top-left blocks of one (T_b, T_b) grid (``translation_errors_by_length``).
Scores are pairwise and ``phrase``'s first t rows are the phrase of length t, so these are
the numbers a direct computation at T gives (a test holds them equal to rounding).
"""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

import posenc
from posenc_lab.figures import display_steps
from posenc_lab.lessons.compare import measure as compare_lessons
from posenc_lab.lessons.compare.figures import PANEL_CELLS, ROUNDING_BELOW
from posenc_lab.ui.catalog import METHODS
from posenc_lab.ui.compute import CACHE

SEED = 0
#: the training-length check scores at most this many positions (every s-th of 0..2L-1)
RUN_CHECK_POSITIONS = 512
#: the longest phrase the page's slider allows (a band of lengths ends here)
SEQ_LEN_MAX = 512
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128
KERPLE_R1, KERPLE_R2 = 1.0, 1.0
LEARNED_STD = 0.5

ORDER = compare_lessons.COMPARE_METHODS
SHORT = {
    "none": "None",
    "sinusoidal": "Sinusoidal",
    "learned": "Learned absolute",
    "shaw": "Shaw (clipped)",
    "t5": "T5 buckets",
    "alibi": "ALiBi",
    "kerple": "KERPLE (log)",
    "rope": "RoPE",
    "xpos": "xPos",
}
#: the start of each method's name in ui.catalog.METHODS, whose texts the table reuses
_CATALOG = {
    "none": "None",
    "sinusoidal": "Sinusoidal",
    "learned": "Learned absolute",
    "shaw": "Shaw",
    "t5": "T5",
    "alibi": "ALiBi",
    "kerple": "KERPLE",
    "rope": "RoPE (",
    "xpos": "xPos",
}
#: where the catalogue's text does not fit this table
USED_IN = {"xpos": "the LEX Transformer of its paper (torchscale)"}
WHERE = {
    "none": "nowhere",
    "sinusoidal": "adds to the input",
    "learned": "adds to the input",
    "shaw": "adds to the keys (a vector per clipped offset)",
    "t5": "adds a bias to the logits",
    "alibi": "adds a bias to the logits",
    "kerple": "adds a bias to the logits",
    "rope": "multiplies (rotates) q, k",
    "xpos": "multiplies (rotates and scales) q, k",
}
WHAT = {
    "none": "nothing: e_ij = q_i . k_j / sqrt(Dh)",
    "sinusoidal": "x_p + PE(p), sines and cosines of p",
    "learned": "x_p + P[p], row p of a table",
    "shaw": "k_j + a[clip(j - i, -K, K)]",
    "t5": "e_ij + b[bucket(j - i)], one scalar per bucket and head",
    "alibi": "e_ij - m |i - j|, a fixed slope m per head",
    "kerple": "e_ij - r1 log(1 + r2 |i - j|), r1 and r2 per head",
    "rope": "R(p) q, R(p) k: pair i turned by angle p theta_i",
    "xpos": "RoPE, with q scaled by zeta^(p/512) and k by zeta^(-p/512)",
}


def join(methods: list[str]) -> str:
    """ "RoPE, xPos and T5 buckets" from method keys (or names)."""
    names = [SHORT.get(m, m) for m in methods]
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def catalog_entry(method: str) -> dict:
    """The row of ui.catalog.METHODS that describes ``method``."""
    return next(row for row in METHODS if row["Method"].startswith(_CATALOG[method]))


@functools.lru_cache(maxsize=64)
def _first_alibi_slope(n_heads: int) -> float:
    return float(posenc.alibi_slopes(n_heads)[0])


def options(method: str, train_len: int, n_heads: int, shaw_k: int) -> dict:
    """The options each method is scored with (head 1 where a method has per-head values)."""
    return {
        "learned": dict(max_len=train_len, std=LEARNED_STD, seed=SEED),
        "shaw": dict(max_distance=shaw_k, seed=SEED),
        "t5": dict(num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE, seed=SEED),
        "alibi": dict(slope=_first_alibi_slope(n_heads)),
        "kerple": dict(r1=KERPLE_R1, r2=KERPLE_R2, kind="log"),
    }.get(method, {})


@functools.lru_cache(maxsize=1024)
def settings(method: str, train_len: int, n_heads: int, shaw_k: int) -> tuple:
    """``options`` as a sorted tuple of pairs: a cache key that changes only when this
    method's own options do (moving H recomputes ALiBi alone)."""
    return tuple(sorted(options(method, train_len, n_heads, shaw_k).items()))


def _no_scores(exc: ValueError, method_settings: tuple) -> str:
    if isinstance(exc, posenc.PositionOutOfRange):
        return f"no: no row past max_len = {dict(method_settings)['max_len']}"
    return f"no: {exc}"


def pattern_positions(seq_len: int) -> tuple[np.ndarray, int]:
    """The positions a panel shows (every s-th of 0..T-1, s a power of two) and s."""
    step, _ = display_steps(seq_len, seq_len, PANEL_CELLS, PANEL_CELLS)
    return np.arange(0, seq_len, step), step


def band_end(seq_len: int) -> int:
    """The longest phrase drawn with the same stride as one of length ``seq_len`` (at most
    ``SEQ_LEN_MAX``, or ``seq_len`` itself past it): the lengths one batch serves."""
    _, step = pattern_positions(seq_len)
    return max(seq_len, min(PANEL_CELLS * step, SEQ_LEN_MAX))


@st.cache_data(**CACHE)
def method_pattern(method: str, seq_len: int, head_dim: int, phrase_kind: str, method_settings: tuple):
    """One method's positional part at the positions a panel of a length-``seq_len``
    phrase shows: ((r, r) float32 or None, why not)."""
    shown, _ = pattern_positions(seq_len)
    # scores are pairwise, so scoring the shown rows alone gives the shown block exactly
    x = compare_lessons.phrase(seq_len, head_dim, phrase_kind, seed=SEED)[shown]  # (r, Dh)
    try:
        part = compare_lessons.positional_part(x, shown, method, **dict(method_settings))  # (r, r)
    except ValueError as exc:
        return None, _no_scores(exc, method_settings)
    return part.astype(np.float32), None


def pattern_of(method: str, seq_len: int, head_dim: int, phrase_kind: str, method_settings: tuple):
    """``method_pattern`` of this length, cut from the block of its band's longest phrase
    (every shorter phrase drawn at the same stride is its top-left block); of this length
    alone when the band's phrase runs past a learned table and this one need not."""
    shown, _ = pattern_positions(seq_len)
    block, why = method_pattern(method, band_end(seq_len), head_dim, phrase_kind, method_settings)
    if why:
        return method_pattern(method, seq_len, head_dim, phrase_kind, method_settings)
    return block[: shown.size, : shown.size], None


@st.cache_data(**CACHE)
def score_patterns(seq_len: int, head_dim: int, n_heads: int, train_len: int, shaw_k: int, phrase_kind: str):
    """What position adds to each method's scores, at the positions a panel can show.

    Returns a dict: ``panels`` (method -> (r, r) float32, or None when the method
    raised), ``missing`` (method -> why not), ``positions`` (r,) and ``step`` (the stride
    of the shown positions).
    """
    shown, step = pattern_positions(seq_len)
    panels, missing = {}, {}
    for method in ORDER:
        key = settings(method, train_len, n_heads, shaw_k)
        panels[method], why = pattern_of(method, seq_len, head_dim, phrase_kind, key)
        if why:
            missing[method] = why
    return dict(panels=panels, missing=missing, positions=shown, step=step)


@st.cache_data(**CACHE)
def method_translation(method: str, seq_len: int, head_dim: int, phrase_kind: str, shift: int, method_settings: tuple):
    """One method's largest score change under the shift: (error or NaN, why not)."""
    x = compare_lessons.phrase(seq_len, head_dim, phrase_kind, seed=SEED)  # (T, Dh)
    try:
        return compare_lessons.compare_translation_error(x, shift, method, **dict(method_settings)), None
    except ValueError as exc:
        return float("nan"), _no_scores(exc, method_settings)


@st.cache_data(**CACHE)
def method_band_translation(
    method: str, band: int, head_dim: int, phrase_kind: str, shift: int, method_settings: tuple
):
    """One method's largest score change under the shift for every length 1..band: ((band,)
    errors, None), or (None, why not)."""
    x = compare_lessons.phrase(band, head_dim, phrase_kind, seed=SEED)  # (T_b, Dh)
    try:
        return compare_lessons.translation_errors_by_length(x, shift, method, **dict(method_settings)), None
    except ValueError as exc:
        return None, _no_scores(exc, method_settings)


@st.cache_data(**CACHE)
def translation_errors(
    seq_len: int, head_dim: int, n_heads: int, train_len: int, shaw_k: int, phrase_kind: str, shift: int
):
    """Largest score change of the phrase moved ``shift`` positions right, per method.

    Returns (errors (M,) with NaN where the method raised, method -> message).
    """
    errors, missing = np.full(len(ORDER), np.nan), {}
    for i, method in enumerate(ORDER):
        key = settings(method, train_len, n_heads, shaw_k)
        by_length, why = method_band_translation(method, band_end(seq_len), head_dim, phrase_kind, shift, key)
        if why:  # a learned table may end inside the band: this length alone
            errors[i], why = method_translation(method, seq_len, head_dim, phrase_kind, shift, key)
        else:
            errors[i] = by_length[seq_len - 1]
        if why:
            missing[method] = why
    return errors, missing


def run_check_positions(train_len: int) -> tuple[np.ndarray, int]:
    """Positions 0..2L-1 scored by the training-length check, and their stride.

    All of them up to ``RUN_CHECK_POSITIONS``; past that every s-th (s a power of two),
    with L (the first position past a learned table) and 2L - 1 always included.
    """
    step, _ = display_steps(2 * train_len, 1, RUN_CHECK_POSITIONS, 1)
    return np.union1d(np.arange(0, 2 * train_len, step), [train_len, 2 * train_len - 1]), step


@st.cache_data(**CACHE)
def method_runs(method: str, head_dim: int, train_len: int, phrase_kind: str, method_settings: tuple) -> str:
    """Does the method give finite scores for the phrase at positions up to 2L - 1? "yes" or "no: why"."""
    positions, _ = run_check_positions(train_len)
    x = compare_lessons.phrase(positions.size, head_dim, phrase_kind, seed=SEED)  # (P, Dh)
    try:
        scores = compare_lessons.compare_scores(x, positions, method, **dict(method_settings))  # (P, P)
    except ValueError as exc:
        return _no_scores(exc, method_settings)
    return "yes" if np.isfinite(scores).all() else "no: the scores overflow"


@st.cache_data(**CACHE)
def runs_at_twice(head_dim: int, n_heads: int, train_len: int, shaw_k: int, phrase_kind: str) -> dict[str, str]:
    """method -> "yes" or "no: why", measured at positions up to 2L - 1."""
    # cached whole as well: the page asks for the verdicts on every run, and nine lookups of
    # the per-method cache (kept, for a setting that changes one method only) cost more
    return {
        method: method_runs(method, head_dim, train_len, phrase_kind, settings(method, train_len, n_heads, shaw_k))
        for method in ORDER
    }


def error_groups(errors: np.ndarray, *, rounding: float = ROUNDING_BELOW) -> dict[str, list[str]]:
    """Methods by measured translation error: "zero" (exactly 0), "rounding" (below
    ``rounding``), "moved" (a real change) and "missing" (no scores)."""
    groups = {"zero": [], "rounding": [], "moved": [], "missing": []}
    for method, err in zip(ORDER, errors, strict=True):
        key = "missing" if not np.isfinite(err) else "zero" if err == 0 else "rounding" if err < rounding else "moved"
        groups[key].append(method)
    return groups


def translation_notice(errors: np.ndarray) -> str:
    """The "what to notice" under the bars, written from the measured errors."""
    groups, by_method = error_groups(errors), dict(zip(ORDER, errors, strict=True))
    sentences = []
    if groups["zero"]:
        sentences.append(
            f"{join(groups['zero'])} give exactly 0: they read only the offset j - i (or no position at all), "
            "which the shift does not change."
        )
    if groups["rounding"]:
        worst = max(by_method[m] for m in groups["rounding"])
        sentences.append(
            f"{join(groups['rounding'])} change by at most {worst:.0e}: floating-point rounding in the sines and "
            "cosines of larger positions, not a real change."
        )
    if groups["moved"]:
        values = ", ".join(f"{SHORT[m]} by {by_method[m]:.2g}" for m in groups["moved"])
        sentences.append(
            f"The added absolute encodings really change ({values}): the same phrase scores differently at a "
            "different place."
        )
    return " ".join(sentences)


def runs_notice(verdicts: dict[str, str], train_len: int) -> str:
    """The "what to notice" under the table, written from the measured verdicts."""
    stopped = [m for m, verdict in verdicts.items() if verdict != "yes"]
    if not stopped:
        return "every method gave scores at twice the training length."
    text = f"only {join(stopped)} stopped"
    if "learned" in stopped:
        text += f": the learned table has no row for position {train_len} or any later one"
    return (
        text + ". The others are formulas of the position or of the offset j - i, so they give a number at any "
        "position, and five of the nine cost no parameter at all."
    )


def parameters(method: str, train_len: int, head_dim: int, n_heads: int, shaw_k: int) -> str:
    """The parameter count with its formula, for the table."""
    count = compare_lessons.parameter_count(
        method, max_len=train_len, head_dim=head_dim, n_heads=n_heads, max_distance=shaw_k, num_buckets=T5_BUCKETS
    )
    formula = {
        "learned": f"L x H·Dh = {train_len} x {n_heads * head_dim} = {count:,} (one table)",
        "shaw": f"2 x (2K+1) x Dh = 2 x {2 * shaw_k + 1} x {head_dim} = {count:,} per layer (keys and values)",
        "t5": f"buckets x H = {T5_BUCKETS} x {n_heads} = {count:,} (shared by the layers of a stack)",
        "kerple": f"2 x H = 2 x {n_heads} = {count:,} per layer",
        "alibi": "0 (fixed slopes)",
    }
    return formula.get(method, f"{count:,}")


@st.cache_data(**CACHE)
def method_table(head_dim: int, n_heads: int, train_len: int, shaw_k: int, phrase_kind: str) -> list[dict]:
    """One row per method: where position enters, what it does, its cost, the 2L check, who uses it."""
    runs = runs_at_twice(head_dim, n_heads, train_len, shaw_k, phrase_kind)
    rows = []
    for method in ORDER:
        entry = catalog_entry(method)
        rows.append(
            {
                "Method": entry["Method"],
                "Where position enters": WHERE[method],
                "What it adds or multiplies": WHAT[method],
                "Learned parameters": parameters(method, train_len, head_dim, n_heads, shaw_k),
                f"Runs at 2L = {2 * train_len}? (measured)": runs[method],
                "Past the training length (literature)": entry["Past the training length"],
                "Used in": USED_IN.get(method, entry["Used in"]),
            }
        )
    return rows
