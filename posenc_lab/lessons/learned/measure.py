"""What training did to a learned position table, NumPy only: its similarity by offset and
how far each row moved from where it started."""

from __future__ import annotations

import numpy as np

from posenc._checks import as_float_array, check_budget

__all__ = ["mean_by_offset", "row_drift"]


def mean_by_offset(similarity) -> np.ndarray:
    """The mean of a (T, T) similarity over each offset.

    Parameters
    ----------
    similarity : (T, T) array_like
        E.g. ``posenc.position_similarity(table, "cosine")``.

    Returns
    -------
    (T,) ndarray: entry k is the mean of ``S[p, p + k]`` over ``p = 0 .. T - 1 - k``; entry 0
    is the mean self-similarity (1 for cosine).
    """
    sim = as_float_array("similarity", similarity, ndim=2)
    if sim.shape[0] != sim.shape[1]:
        raise ValueError(f"similarity must be square (T, T), got shape {sim.shape}")
    return np.array([np.diagonal(sim, k).mean() for k in range(sim.shape[0])])


def row_drift(trained, initial) -> np.ndarray:
    """How far training moved each row: ``|trained[p] - initial[p]|`` (Euclidean).

    Parameters
    ----------
    trained, initial : (T, D) array_like, the same shape

    Returns
    -------
    (T,) ndarray
    """
    trained = as_float_array("trained", trained, ndim=2)
    initial = as_float_array("initial", initial, ndim=2)
    if trained.shape != initial.shape:
        raise ValueError(f"trained and initial must have the same shape, got {trained.shape} and {initial.shape}")
    check_budget(trained.size, "row_drift(trained, initial)")
    return np.linalg.norm(trained - initial, axis=1)
