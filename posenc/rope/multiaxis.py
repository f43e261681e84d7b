"""RoPE for positions with more than one axis, and models that mix RoPE with no encoding.

- ``axial_rope_2d``: 2-D axial RoPE for image patches, as in RoPE-ViT (Heo et al. 2024,
  "Rotary Position Embedding for Vision Transformer", arXiv:2403.13298; naver-ai/rope-vit
  ``compute_axial_cis``) and SAM 2's memory attention: the first half of the pairs turn
  with the patch's column, the second half with its row, each at
  ``theta^(-4t/Dh)``, t = 0..Dh/4-1; pairs are neighbouring dims (2i, 2i+1).
- ``mrope_cos_sin`` / ``apply_mrope``: Qwen2-VL's multimodal RoPE (M-RoPE; Wang et al.
  2024, arXiv:2409.12191; transformers ``Qwen2VLRotaryEmbedding``). Every token has three
  positions (temporal, height, width); ``mrope_section`` splits the Dh/2 frequencies
  into three consecutive sections, each turned by one of the three positions, and the
  rotation pairs dims (i, i + Dh/2) as in LLaMA. For text all three positions are equal,
  which makes it plain 1-D RoPE. ``qwen2_vl_positions`` builds the three positions of a
  text-image-text sequence as transformers' ``get_rope_index`` does for one image.
- ``irope_layer_types``: Llama 4's interleaved layers ("iRoPE"): every
  ``interval``-th layer has no positional encoding at all (NoPE), the others use RoPE
  (transformers ``Llama4TextConfig.no_rope_layers``).

Shape letters as in ``posenc``, plus Hp x Wp patches in a grid.
"""

from __future__ import annotations

import numpy as np

from .._checks import as_float, as_float_array, as_int, as_positions, check_budget
from .frequencies import rope_inv_freq
from .rotation import _as_head_array, _rotate_pairs

__all__ = [
    "LAYER_TYPES",
    "apply_mrope",
    "axial_rope_2d",
    "axial_rope_frequencies",
    "irope_layer_types",
    "mrope_cos_sin",
    "qwen2_vl_positions",
]

#: what a layer of a model with interleaved RoPE does with positions
LAYER_TYPES = ("rope", "nope")


def axial_rope_frequencies(head_dim: int, theta: float = 100.0) -> np.ndarray:
    """Frequencies of one axis of 2-D axial RoPE.

    Returns
    -------
    freqs : (Dh/4,) ndarray, ``theta^(-4t/Dh)``: each axis gets Dh/4 pairs.
    """
    head_dim = as_int("head_dim", head_dim, min_value=4)
    if head_dim % 4:
        raise ValueError(f"head_dim must be a multiple of 4 (a quarter of the pairs per axis), got {head_dim}")
    theta = as_float("theta", theta, gt=1.0)
    return 1.0 / theta ** (np.arange(0, head_dim, 4, dtype=np.float64)[: head_dim // 4] / head_dim)


def axial_rope_2d(x, rows, cols, *, theta: float = 100.0) -> np.ndarray:
    """Rotate patch vectors by their row and column (2-D axial RoPE).

    Parameters
    ----------
    x : (..., T, Dh) array_like
        One vector per patch; Dh a multiple of 4.
    rows, cols : (T,) array_like
        Each patch's row and column (non-negative).
    theta : float, default 100
        RoPE-ViT's axial base (SAM 2 uses 10000).

    Returns
    -------
    (..., T, Dh) ndarray
        Pairs 0..Dh/4-1 turned by ``col * freqs``, pairs Dh/4..Dh/2-1 by
        ``row * freqs``; the score of two patches depends only on their row offset
        and column offset.
    """
    x = _as_head_array(x)
    freqs = axial_rope_frequencies(x.shape[-1], theta)  # (Dh/4,)
    rows = as_positions("rows", rows)
    cols = as_positions("cols", cols)
    if not rows.size == cols.size == x.shape[-2]:
        raise ValueError(
            f"rows and cols must have one entry per row of x (x.shape[-2] = {x.shape[-2]}), "
            f"got {rows.size} and {cols.size}"
        )
    # column first, then row, as rope-vit concatenates freqs_cis_x and freqs_cis_y
    angles = np.concatenate([cols[:, None] * freqs[None, :], rows[:, None] * freqs[None, :]], axis=1)  # (T, Dh/2)
    return _rotate_pairs(x, np.cos(angles), np.sin(angles), "interleaved")


def _sections(mrope_section, n_pairs: int) -> tuple[int, int, int]:
    try:
        sections = tuple(int(s) for s in mrope_section)
    except (TypeError, ValueError):
        raise ValueError(f"mrope_section must be three whole numbers, got {mrope_section!r}") from None
    if len(sections) != 3 or min(sections) < 0 or sum(sections) != n_pairs:
        raise ValueError(
            f"mrope_section must be three non-negative numbers summing to {n_pairs} (head_dim / 2), got {sections}"
        )
    return sections


def mrope_cos_sin(positions, inv_freq, mrope_section) -> tuple[np.ndarray, np.ndarray]:
    """Cosine and sine of M-RoPE's angles.

    Parameters
    ----------
    positions : (3, T) array_like
        Temporal, height and width position of each token.
    inv_freq : (Dh/2,) array_like
    mrope_section : three ints summing to Dh/2, e.g. Qwen2-VL's [16, 24, 24].

    Returns
    -------
    cos, sin : (T, Dh/2) ndarray each: pair i takes its angle from the temporal
        position in the first section, the height in the second, the width in the third.
    """
    inv_freq = as_float_array("inv_freq", inv_freq, ndim=1)  # (Dh/2,)
    pos = as_float_array("positions", positions, ndim=2)  # (3, T)
    if pos.shape[0] != 3:
        raise ValueError(f"positions must have 3 rows (temporal, height, width), got shape {pos.shape}")
    if not np.isfinite(pos).all() or (pos < 0).any():
        raise ValueError("positions must be finite and non-negative")
    check_budget(pos.shape[1] * inv_freq.size * 3, "positions x inv_freq")
    sections = _sections(mrope_section, inv_freq.size)
    axis_of_pair = np.repeat(np.arange(3), sections)  # (Dh/2,): 0 temporal, 1 height, 2 width
    angles = pos[axis_of_pair].T * inv_freq[None, :]  # (T, Dh/2)
    return np.cos(angles), np.sin(angles)


def apply_mrope(x, positions, mrope_section=(16, 24, 24), *, base: float = 10000.0, rope_scaling=None) -> np.ndarray:
    """Rotate queries or keys by M-RoPE (Qwen2-VL).

    Parameters
    ----------
    x : (..., T, Dh) array_like
    positions : (3, T) array_like
        Temporal, height and width positions (``qwen2_vl_positions`` makes them).
    mrope_section : three ints summing to Dh/2, default Qwen2-VL's (16, 24, 24).
    base : float, default 10000 (Qwen2-VL uses 1,000,000)
    rope_scaling : dict or None, as for ``rope_inv_freq``.

    Returns
    -------
    (..., T, Dh) ndarray, rotated with pairs (i, i + Dh/2) like transformers'
    ``apply_multimodal_rotary_pos_emb``.
    """
    x = _as_head_array(x)
    pos = as_float_array("positions", positions, ndim=2)
    if pos.shape[-1] != x.shape[-2]:
        raise ValueError(f"positions must have one column per row of x (x.shape[-2] = {x.shape[-2]}), got {pos.shape}")
    seq_len = int(np.floor(pos.max())) + 1 if pos.size else 1
    inv_freq, attention_factor = rope_inv_freq(x.shape[-1], base, rope_scaling, seq_len=seq_len)
    if inv_freq.size * 2 != x.shape[-1]:
        raise ValueError("apply_mrope rotates every dim: partial_rotary_factor is not supported with M-RoPE")
    cos, sin = mrope_cos_sin(pos, inv_freq, mrope_section)
    return _rotate_pairs(x, cos * attention_factor, sin * attention_factor, "half")


def qwen2_vl_positions(text_before: int, grid: tuple[int, int, int], text_after: int = 0) -> np.ndarray:
    """The three positions of ``text_before`` text tokens, one image (or video) of
    ``grid`` = (t, h, w) merged patches, then ``text_after`` text tokens.

    Text tokens count up on all three axes together. The image's tokens sit at
    (start + frame, start + row, start + column), where start is the next text
    position; the text after the image resumes one past the largest of those.

    Returns
    -------
    (3, T) int64 ndarray, T = text_before + t h w + text_after.
    """
    text_before = as_int("text_before", text_before, min_value=0)
    text_after = as_int("text_after", text_after, min_value=0)
    try:
        t, h, w = (int(v) for v in grid)
    except (TypeError, ValueError):
        raise ValueError(f"grid must be three whole numbers (t, h, w), got {grid!r}") from None
    if min(t, h, w) < 1:
        raise ValueError(f"grid sizes must be >= 1, got {(t, h, w)}")
    check_budget(3 * (text_before + t * h * w + text_after), "positions")
    before = np.broadcast_to(np.arange(text_before), (3, text_before))
    frame, row, col = np.meshgrid(np.arange(t), np.arange(h), np.arange(w), indexing="ij")
    image = np.stack([frame.ravel(), row.ravel(), col.ravel()]) + text_before  # (3, t h w)
    resume = text_before + max(t, h, w)
    after = np.broadcast_to(np.arange(resume, resume + text_after), (3, text_after))
    return np.concatenate([before, image, after], axis=1).astype(np.int64)


def irope_layer_types(n_layers: int, interval: int = 4) -> tuple[str, ...]:
    """Which layers of a Llama 4 style model use RoPE and which use no encoding (NoPE).

    Layer l (from 0) is NoPE when ``(l + 1) % interval == 0``: with the default interval
    4, layers 3, 7, 11, ... see no positions at all and must infer order from the causal
    mask and the RoPE layers below them.

    Returns
    -------
    tuple of ``"rope"`` / ``"nope"``, one per layer.
    """
    n_layers = as_int("n_layers", n_layers, min_value=1, max_value=10_000)
    interval = as_int("interval", interval, min_value=1)
    return tuple(LAYER_TYPES[int((layer + 1) % interval == 0)] for layer in range(n_layers))
