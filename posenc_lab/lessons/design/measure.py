"""Design your own positional encoding from a menu of blocks, and measure it as the classics are measured.

A design is an ``EncodingSpec``: a handful of named choices and numbers, each checked
(``ValueError`` names the field, the value and what is allowed). Nothing in it is code,
so a design can come from sliders or a link and still be safe to build on a server.

Blocks (``kind``), each filling the first dimensions of a (T, D) table, the rest zero:

==========  ==================================================================================
"waves"     P sin/cos pairs, ``sin(p w_i + phi)``, ``cos(p w_i + phi)``, fastest pair first.
            ``spacing="base"``: ``w_i = base**(-2i/(2P))``, Vaswani et al.'s rule (with
            P = D/2 and phi = 0 this is ``posenc.sinusoidal`` exactly); ``"geometric"``:
            wavelengths from ``min_wavelength`` to ``max_wavelength`` in equal ratios;
            ``"linear"``: frequencies in equal steps from ``2 pi / min_wavelength`` down to
            ``2 pi / max_wavelength`` (harmonics of one period when the steps divide it).
"random"    random Fourier features (Rahimi and Recht 2007): P pairs as above with
            ``w_i ~ N(0, 1 / length_scale**2)`` drawn from ``seed``; their dot product
            approximates ``exp(-(p - q)**2 / (2 length_scale**2))``.
"binary"    the lowest ``bits`` binary digits of p as -1 / +1 (digit b in dimension b):
            a clock that counts to ``2**bits`` and starts again.
"ramp"      the same value in every dimension: ``p`` (``ramp="position"``) or
            ``p / (L - 1)`` for a sequence of length L (``ramp="length"``).
==========  ==================================================================================

Then, for an added table, every code may be scaled to length 1 (``normalise="unit"``; a
zero code stays zero) and every value is multiplied by ``amplitude``.

``placement="added"`` adds the table to the token vectors; ``placement="rotary"`` (waves
and random only) turns each pair of query and key dimensions by ``p w_i`` instead, as
RoPE does (Su et al. 2021, arXiv:2104.09864), with zero frequency for unused pairs. For a
rotary design the table is the code the rotation applies, ``[sin p w_i, cos p w_i]``;
phase, layout, normalisation and amplitude do not apply to a rotation and are ignored.
Fields a kind does not use are ignored too (``canonical()`` resets them).

Checks (any encoder: an ``EncodingSpec``, a ``LearnedTable``, ``classic(...)``):
``uniqueness``, ``norm_growth``, ``length_change``, ``shift_fit`` (least-squares M_k with
PE(p + k) = M_k PE(p), generalising ``posenc.linear_relation_error`` beyond the sinusoid,
through ``fit_shift_map``), ``similarity_by_distance`` and all of them as one verdict,
``check_encoding``. ``experiment_method`` turns a design into one more method of
``posenc.experiment``.

References: Vaswani et al. 2017, arXiv:1706.03762 (sec. 3.5); Rahimi and Recht 2007,
"Random Features for Large-Scale Kernel Machines", NeurIPS.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import astuple, dataclass, fields, replace

import numpy as np

from posenc._checks import as_choice, as_even_int, as_float, as_float_array, as_int, as_positions, check_budget
from posenc.absolute import (
    _BLOCKED_FROM,
    SINUSOIDAL_LAYOUTS,
    PositionOutOfRange,
    _sinusoid_blocked,
    learned_table,
    lookup_learned,
    sinusoid_frequencies,
)
from posenc.analysis import SIMILARITY_METRICS, position_similarity
from posenc.experiment import CustomMethod, ExperimentConfig

__all__ = [
    "CHECKS",
    "CLASSICS",
    "KINDS",
    "NORMALISATIONS",
    "PLACEMENTS",
    "RAMPS",
    "SPACINGS",
    "EncodingSpec",
    "LearnedTable",
    "check_encoding",
    "classic",
    "encode",
    "experiment_method",
    "fit_shift_map",
    "length_change",
    "nearest_distances",
    "norm_growth",
    "pair_frequencies",
    "rotary_frequencies",
    "shift_fit",
    "similarity_by_distance",
    "similarity_curve",
    "uniqueness",
]

KINDS = ("waves", "random", "binary", "ramp")
SPACINGS = ("base", "geometric", "linear")
RAMPS = ("length", "position")
NORMALISATIONS = ("none", "unit")
PLACEMENTS = ("added", "rotary")
#: kinds that have frequencies, so can rotate
ROTARY_KINDS = ("waves", "random")
CLASSICS = ("sinusoidal", "learned")

MAX_D_MODEL = 4096
MAX_BITS = 32
MAX_WAVELENGTH = 1e9

#: a pair of codes closer than this, relative to the largest code, counts as the same code
UNIQUE_TOL = 1e-6
#: a least-squares shift map whose worst miss is below this (relative to the largest code) is exact
SHIFT_TOL = 1e-6
#: similarities that vary by less than this over starting positions (relative) are the same
INVARIANT_TOL = 1e-6
#: the largest norm may grow by this factor from N to 8N positions and still count as bounded
GROWTH_TOL = 1e-9
#: a code may change by this (relative) between a text of N and of 8N and still count as the same
LENGTH_TOL = 1e-9
#: the lengths at which growth is measured, as multiples of N (those of the experiment)
MULTIPLIERS = (1, 2, 4, 8)
#: the names of the checks, in the order of the verdict
CHECKS = ("unique", "bounded", "same_at_any_length", "shift_linear", "falls_with_distance", "translation_invariant")


# the design


@dataclass(frozen=True)
class EncodingSpec:
    """A position encoding as a few named choices; validated on creation.

    Attributes
    ----------
    kind : {"waves", "random", "binary", "ramp"}
    d_model : int, even, 2..4096
        Width D of the table (for a rotary design: the head width Dh it rotates).
    n_pairs : int or None
        Sin/cos pairs P for "waves" and "random", 1..D/2; None means D/2.
    spacing : {"base", "geometric", "linear"}
        How "waves" spaces its frequencies.
    base : float, > 1
        "waves" with ``spacing="base"``: wavelengths ``2 pi base**(i/P)``.
    min_wavelength, max_wavelength : float, 2 <= min <= max <= 1e9
        "waves" with "geometric" or "linear" spacing, in positions. Below 2 positions a
        wave cannot be told from a slower one (it aliases).
    length_scale : float, 0.1..1e6
        "random": the width, in positions, of the similarity its features approximate.
    seed : int, >= 0
        "random": the draw of frequencies.
    bits : int, 1..32 (for "binary" at most D)
        "binary": how many binary digits.
    ramp : {"length", "position"}
        "ramp": divide p by L - 1 (L the sequence length) or not at all.
    layout : {"interleaved", "concat"}
        Where the sines and cosines go, as in ``posenc.sinusoidal``.
    phase_deg : float, -360..360
        A phase added to every angle, in degrees.
    normalise : {"none", "unit"}
        Scale every code to length 1 before the amplitude.
    amplitude : float, 0 < amplitude <= 100
        Multiplies every value of an added table.
    placement : {"added", "rotary"}
        Added to the token vectors, or rotating queries and keys ("waves", "random").
    """

    kind: str = "waves"
    d_model: int = 32
    n_pairs: int | None = None
    spacing: str = "base"
    base: float = 10000.0
    min_wavelength: float = 2 * math.pi
    max_wavelength: float = 2 * math.pi * 10000.0
    length_scale: float = 16.0
    seed: int = 0
    bits: int = 8
    ramp: str = "length"
    layout: str = "interleaved"
    phase_deg: float = 0.0
    normalise: str = "none"
    amplitude: float = 1.0
    placement: str = "added"

    def __post_init__(self):
        as_choice("kind", self.kind, KINDS)
        as_even_int("d_model", self.d_model, max_value=MAX_D_MODEL)
        if self.n_pairs is not None:
            as_int("n_pairs", self.n_pairs, min_value=1, max_value=self.d_model // 2)
        as_choice("spacing", self.spacing, SPACINGS)
        as_float("base", self.base, gt=1.0)
        as_float("min_wavelength", self.min_wavelength, ge=2.0, le=MAX_WAVELENGTH)
        as_float("max_wavelength", self.max_wavelength, ge=2.0, le=MAX_WAVELENGTH)
        if self.max_wavelength < self.min_wavelength:
            raise ValueError(
                f"max_wavelength must be >= min_wavelength ({self.min_wavelength:g}), got {self.max_wavelength:g}"
            )
        as_float("length_scale", self.length_scale, ge=0.1, le=1e6)
        as_int("seed", self.seed, min_value=0)
        # a kind that has no digits ignores bits, but it must still be a sensible number
        as_int(
            "bits", self.bits, min_value=1, max_value=min(self.d_model, MAX_BITS) if self.kind == "binary" else MAX_BITS
        )
        as_choice("ramp", self.ramp, RAMPS)
        as_choice("layout", self.layout, SINUSOIDAL_LAYOUTS)
        as_float("phase_deg", self.phase_deg, ge=-360.0, le=360.0)
        as_choice("normalise", self.normalise, NORMALISATIONS)
        as_float("amplitude", self.amplitude, gt=0.0, le=100.0)
        as_choice("placement", self.placement, PLACEMENTS)
        if self.placement == "rotary" and self.kind not in ROTARY_KINDS:
            raise ValueError(
                f"placement='rotary' needs frequencies to turn by: kind must be one of "
                f"{', '.join(repr(k) for k in ROTARY_KINDS)}, got {self.kind!r}"
            )

    @property
    def pairs(self) -> int:
        """P, the sin/cos pairs "waves" and "random" fill."""
        return self.d_model // 2 if self.n_pairs is None else self.n_pairs

    def used_fields(self) -> tuple[str, ...]:
        """The fields this design reads, in field order (the others are ignored)."""
        used = {"kind", "d_model", "placement"}
        if self.kind in ROTARY_KINDS:
            used |= {"n_pairs"}
            used |= {"length_scale", "seed"} if self.kind == "random" else {"spacing"}
            if self.kind == "waves":
                used |= {"base"} if self.spacing == "base" else {"min_wavelength", "max_wavelength"}
            if self.placement == "added":
                used |= {"layout", "phase_deg"}
        used |= {"bits"} if self.kind == "binary" else set()
        used |= {"ramp"} if self.kind == "ramp" else set()
        if self.placement == "added":
            used |= {"normalise", "amplitude"}
        return tuple(f.name for f in fields(self) if f.name in used)

    def canonical(self) -> EncodingSpec:
        """The same encoding with every ignored field at its default (equal designs compare equal)."""
        used = set(self.used_fields())
        defaults = EncodingSpec()
        return replace(self, **{f.name: getattr(defaults, f.name) for f in fields(self) if f.name not in used})

    def key(self) -> tuple:
        """The canonical design as a tuple of scalars (for caches; ``EncodingSpec(*key)`` rebuilds it)."""
        return astuple(self.canonical())

    def arguments(self) -> str:
        """The fields that matter, as keyword arguments (``EncodingSpec(<this>)`` rebuilds the design)."""
        return ", ".join(f"{name}={getattr(self, name)!r}" for name in self.used_fields())

    def at_width(self, d_model: int) -> EncodingSpec:
        """The same design at another width: as many of its pairs (or digits) as fit, spaced by the
        same rule (for "geometric" and "linear", over the same wavelengths; for "random", the first draws)."""
        d_model = as_even_int("d_model", d_model, max_value=MAX_D_MODEL)
        n_pairs = None if self.n_pairs is None else min(self.n_pairs, d_model // 2)
        return replace(self, d_model=d_model, n_pairs=n_pairs, bits=min(self.bits, d_model, MAX_BITS))

    def encode(self, positions, length: int | None = None) -> np.ndarray:
        """The design's table; see ``encode``."""
        return encode(self, positions, length)


@dataclass(frozen=True)
class LearnedTable:
    """The classic learned table as initialised (``posenc.learned_table``): rows 0..max_len-1 only.

    Asking for a position past the table raises ``PositionOutOfRange``, as ``lookup_learned`` does.
    """

    max_len: int
    d_model: int
    std: float = 0.02
    seed: int = 0

    def encode(self, positions, length: int | None = None) -> np.ndarray:
        """(T, D) rows of the table; ``length`` is accepted for the encoder interface and unused."""
        pos = as_positions("positions", positions, integer=True, width=self.d_model)  # (T,)
        table = learned_table(self.max_len, self.d_model, std=self.std, seed=self.seed)  # (max_len, D)
        return lookup_learned(table, pos)


def classic(name: str, d_model: int, n: int):
    """A classic encoder to compare a design with, at width ``d_model`` for ``n`` positions.

    ``"sinusoidal"``: Vaswani et al.'s table (``EncodingSpec(d_model=d_model)``, equal to
    ``posenc.sinusoidal``); ``"learned"``: a freshly initialised learned table of ``n`` rows.
    """
    name = as_choice("name", name, CLASSICS)
    if name == "sinusoidal":
        return EncodingSpec(d_model=d_model)
    return LearnedTable(max_len=as_int("n", n, min_value=1), d_model=as_int("d_model", d_model, min_value=1))


# building


def pair_frequencies(spec: EncodingSpec) -> np.ndarray:
    """Angular frequency of each sin/cos pair, fastest first ("waves" and "random").

    Returns
    -------
    w : (P,) ndarray, radians per position.

    Notes
    -----
    base: :math:`w_i = base^{-2i/(2P)}`; geometric: :math:`\\lambda_i = \\lambda_{min}
    (\\lambda_{max}/\\lambda_{min})^{i/(P-1)}`, :math:`w_i = 2\\pi/\\lambda_i`; linear: equal
    steps from :math:`2\\pi/\\lambda_{min}` to :math:`2\\pi/\\lambda_{max}`; random:
    :math:`w_i \\sim N(0, 1/\\sigma^2)`.
    """
    if spec.kind not in ROTARY_KINDS:
        raise ValueError(f"kind: only 'waves' and 'random' have frequencies, got {spec.kind!r}")
    p = spec.pairs
    if spec.kind == "random":
        return np.random.default_rng(spec.seed).normal(0.0, 1.0 / spec.length_scale, p)
    if spec.spacing == "base":
        # the table of a model of width 2P, written as posenc.sinusoid_frequencies writes it
        return sinusoid_frequencies(2 * p, spec.base)
    if spec.spacing == "geometric":
        return 2 * np.pi / np.geomspace(spec.min_wavelength, spec.max_wavelength, p)
    return np.linspace(2 * np.pi / spec.min_wavelength, 2 * np.pi / spec.max_wavelength, p)


def rotary_frequencies(spec: EncodingSpec) -> np.ndarray:
    """The frequencies a rotary design turns its D/2 pairs by: (D/2,), zero for the unused pairs."""
    w = np.zeros(spec.d_model // 2)
    w[: spec.pairs] = pair_frequencies(spec)
    return w


def _waves(positions, pos: np.ndarray, w: np.ndarray, layout: str, phase: float) -> np.ndarray:
    """sin/cos table (T, 2P) of frequencies ``w`` in ``layout``, built as posenc.sinusoidal builds it."""
    if isinstance(positions, numbers.Integral) and pos.size >= _BLOCKED_FROM and phase == 0.0:
        return _sinusoid_blocked(pos.size, w, layout)
    half = w.size
    out = np.empty((pos.size, 2 * half))  # (T, 2P)
    sin_part, cos_part = (out[:, 0::2], out[:, 1::2]) if layout == "interleaved" else (out[:, :half], out[:, half:])
    # angle p w_i (+ phi), built in the sine slots and turned into sines last
    np.multiply(pos[:, None], w[None, :], out=sin_part)
    if phase != 0.0:
        sin_part += phase
    np.cos(sin_part, out=cos_part)
    np.sin(sin_part, out=sin_part)
    return out


def encode(spec: EncodingSpec, positions, length: int | None = None) -> np.ndarray:
    """The table of a design: one code per position.

    Parameters
    ----------
    spec : EncodingSpec
    positions : int or (T,) array_like
        An int n means positions 0..n-1 (and a sequence of length n); an array gives any
        non-negative positions (whole numbers for "binary").
    length : int or None
        The length L of the sequence the positions sit in; only ``ramp="length"`` reads
        it. None: n for an int, the largest position + 1 for an array.

    Returns
    -------
    PE : (T, D) ndarray
        For a rotary design, the code its rotation applies: ``[sin p w_i, cos p w_i]``
        interleaved.

    Raises
    ------
    ValueError
        Bad positions or length, or more than ``MAX_ELEMENTS`` outputs.

    Examples
    --------
    >>> import posenc
    >>> bool((encode(EncodingSpec(d_model=8), 3) == posenc.sinusoidal(3, 8)).all())
    True
    """
    if not isinstance(spec, EncodingSpec):
        raise ValueError(f"spec must be an EncodingSpec, got {type(spec).__name__}")
    d = spec.d_model
    pos = as_positions("positions", positions, integer=spec.kind == "binary", width=d)  # (T,)
    if length is None:
        length = int(pos.max()) + 1
    length = as_int("length", length, min_value=1)
    if pos.max() >= length:
        raise ValueError(f"length must exceed every position, got length={length} and position {pos.max():g}")
    pe = np.zeros((pos.size, d))  # (T, D)
    if spec.kind in ROTARY_KINDS:
        added = spec.placement == "added"
        phase = math.radians(spec.phase_deg) if added else 0.0
        layout = spec.layout if added else "interleaved"
        pe[:, : 2 * spec.pairs] = _waves(positions, pos, pair_frequencies(spec), layout, phase)
    elif spec.kind == "binary":
        # digit b of p, as -1 or +1
        digits = (pos[:, None] >> np.arange(spec.bits)[None, :]) & 1  # (T, bits)
        pe[:, : spec.bits] = 2.0 * digits - 1.0
    else:
        value = pos.astype(np.float64)
        if spec.ramp == "length":
            value = value / (length - 1) if length > 1 else np.zeros_like(value)
        pe[:] = value[:, None]
    if spec.placement == "rotary":
        return pe
    if spec.normalise == "unit":
        norms = np.linalg.norm(pe, axis=1, keepdims=True)
        pe /= np.where(norms == 0, 1.0, norms)
    if spec.amplitude != 1.0:
        pe = spec.amplitude * pe
    return pe


def _table(enc, n: int, length: int | None = None):
    """Rows 0..n-1 of an encoder, or None past the end of a learned table."""
    try:
        return enc.encode(n, length)
    except PositionOutOfRange:
        return None


def _encoder(enc):
    if not (hasattr(enc, "encode") and hasattr(enc, "d_model")):
        raise ValueError(f"enc must be an EncodingSpec, a LearnedTable or classic(...), got {type(enc).__name__}")
    return enc


# checks on a table


def nearest_distances(pe) -> tuple[np.ndarray, np.ndarray]:
    """Distance from each code to the nearest other code.

    Parameters
    ----------
    pe : (T, D) array_like, T >= 2

    Returns
    -------
    dist : (T,) ndarray, ``min over q != p of |PE[p] - PE[q]|``
    partner : (T,) int ndarray, that q (the smallest one on a tie)

    Notes
    -----
    The partner is found from the Gram matrix, :math:`|a-b|^2 = |a|^2 + |b|^2 - 2 a.b`
    (one (T, T) product), and the distance to it is then taken directly, so that equal
    codes come out at exactly 0 rather than at the Gram form's rounding (about 1e-8 of
    the norm).
    """
    pe = as_float_array("pe", pe, ndim=2)  # (T, D)
    t = pe.shape[0]
    if t < 2:
        raise ValueError(f"pe must have at least 2 rows (positions) to compare, got {t}")
    gram = position_similarity(pe, "dot")  # (T, T), checks the budget
    sq = np.diag(gram)
    d2 = sq[:, None] + sq[None, :] - 2.0 * gram  # (T, T)
    np.fill_diagonal(d2, np.inf)
    partner = np.argmin(d2, axis=1)  # (T,)
    dist = np.linalg.norm(pe - pe[partner], axis=1)  # (T,)
    return dist, partner


def fit_shift_map(pe, k: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The matrix that best moves every code k positions on, by least squares.

    Parameters
    ----------
    pe : (T, D) array_like
        Codes of positions 0..T-1.
    k : int, 1 <= k < T

    Returns
    -------
    M : (D, D) ndarray
        Minimises :math:`\\sum_p |M\\,PE_p - PE_{p+k}|^2` over p = 0..T-1-k (the smallest
        such M when several fit equally well).
    miss : (T - k,) ndarray
        :math:`|M\\,PE_p - PE_{p+k}|` per p: at rounding level when one fixed matrix does it.
    rank : int
        Numerical rank of the codes PE_0..PE_{T-1-k}. With no more pairs than this (T - k
        <= rank) any codes can be fitted exactly, and a zero miss proves nothing.

    Notes
    -----
    For the sinusoid M is made of 2x2 rotations (``posenc.rotation_matrix``): a
    generalisation of ``posenc.linear_relation_error`` to any table.
    """
    pe = as_float_array("pe", pe, ndim=2)  # (T, D)
    t, d = pe.shape
    k = as_int("k", k, min_value=1, max_value=t - 1)
    check_budget(d * d, "fit_shift_map: the (D, D) map")
    a, b = pe[: t - k], pe[k:]  # (T-k, D): PE_p and PE_{p+k}
    x, _, rank, _ = np.linalg.lstsq(a, b, rcond=None)  # a @ x ~ b, (D, D)
    miss = np.linalg.norm(a @ x - b, axis=1)  # (T-k,)
    return x.T, miss, int(rank)


def similarity_by_distance(pe, max_distance: int, metric: str = "dot") -> np.ndarray:
    """Similarity of each code to the code r positions later, for r = 0..R.

    Parameters
    ----------
    pe : (T, D) array_like
    max_distance : int, 1 <= R < T
    metric : {"dot", "cosine"}

    Returns
    -------
    S : (T - R, R + 1) ndarray, ``S[p, r] = sim(PE[p], PE[p + r])`` for p = 0..T-1-R.
        Columns that are constant mean the similarity depends on the distance only
        (translation invariance); for the sinusoid ``S[p, r] = sum_i cos(r w_i)``.
    """
    pe = as_float_array("pe", pe, ndim=2)  # (T, D)
    t = pe.shape[0]
    r = as_int("max_distance", max_distance, min_value=1, max_value=t - 1)
    gram = position_similarity(pe, metric)  # (T, T)
    p = np.arange(t - r)[:, None]  # (T-R, 1)
    return gram[p, p + np.arange(r + 1)[None, :]]  # (T-R, R+1)


# checks on an encoder


def uniqueness(enc, n: int) -> dict:
    """Is every position's code its own, over positions 0..n-1?

    Returns
    -------
    dict: ``nearest`` (n,) distance to the nearest other code and ``partner`` (n,) that
    position; ``pair`` the closest two positions (p < q) and ``distance`` between them;
    ``max_norm``; ``relative`` = distance / max_norm; ``unique`` = relative > UNIQUE_TOL.
    """
    enc = _encoder(enc)
    n = as_int("n", n, min_value=2)
    pe = enc.encode(n)  # (n, D)
    nearest, partner = nearest_distances(pe)
    p = int(np.argmin(nearest))
    max_norm = float(np.linalg.norm(pe, axis=1).max())
    distance = float(nearest[p])
    relative = distance / max_norm if max_norm > 0 else 0.0
    return dict(
        nearest=nearest,
        partner=partner,
        pair=tuple(sorted((p, int(partner[p])))),
        distance=distance,
        max_norm=max_norm,
        relative=relative,
        unique=bool(relative > UNIQUE_TOL),
    )


def _growth(enc, n: int, multipliers) -> tuple[dict, np.ndarray | None, np.ndarray | None]:
    """norm_growth's dict, and the tables at n and at the longest length (None: no code)."""
    lengths = [n * as_int("multipliers", m, min_value=1, max_value=16) for m in multipliers]
    top, bottom, tables = [], [], {}
    for length in sorted(set(lengths)):
        tables[length] = _table(enc, length)  # (L, D) or None
    for length in lengths:
        norms = None if tables[length] is None else np.linalg.norm(tables[length], axis=1)
        top.append(None if norms is None else float(norms.max()))
        bottom.append(None if norms is None else float(norms.min()))
    longest, shortest = max(lengths), min(lengths)
    if tables[longest] is None:  # a learned table: the norms of the rows it has, NaN after its end
        norms = np.full(longest, np.nan)
        norms[: enc.max_len] = np.linalg.norm(enc.encode(enc.max_len), axis=1)
    else:
        norms = np.linalg.norm(tables[longest], axis=1)  # (L,)
    last, first = top[lengths.index(longest)], top[lengths.index(shortest)]
    bounded = last is not None and first is not None and last <= first * (1 + GROWTH_TOL)
    out = dict(norms=norms, lengths=lengths, max_norm=top, min_norm=bottom, bounded=bool(bounded))
    return out, tables[shortest], tables[longest]


def norm_growth(enc, n: int, multipliers=MULTIPLIERS) -> dict:
    """How large the codes get as the sequence grows from n to ``max(multipliers) * n``.

    Returns
    -------
    dict: ``norms`` (L,) the norm of every code in a sequence of L = max(multipliers) * n
    positions (NaN past the end of a learned table); ``lengths``; ``max_norm`` and
    ``min_norm`` per length (None where the encoder has no code); ``bounded``: the largest
    norm at the longest length is at most ``1 + GROWTH_TOL`` times that at n (False when
    there is no code there).
    """
    enc = _encoder(enc)
    n = as_int("n", n, min_value=1)
    return _growth(enc, n, multipliers)[0]


def _change(short, long) -> float | None:
    if short is None or long is None:
        return None
    scale = float(np.linalg.norm(short, axis=1).max()) or 1.0
    return float(np.linalg.norm(long[: short.shape[0]] - short, axis=1).max() / scale)


def length_change(enc, n: int, multiplier: int = 8) -> float | None:
    """Largest change of a code of positions 0..n-1 between a sequence of n and of ``multiplier * n``.

    Returns
    -------
    float, relative to the largest code at n (0 when a position's code does not depend on
    the length), or None when the encoder has no code for the longer sequence.
    """
    enc = _encoder(enc)
    n = as_int("n", n, min_value=1)
    multiplier = as_int("multiplier", multiplier, min_value=2, max_value=16)
    return _change(_table(enc, n), _table(enc, n * multiplier))


def shift_fit(enc, n: int, k: int) -> dict:
    """Is a shift by k one fixed matrix? ``fit_shift_map`` on enough positions to tell.

    The fit uses positions 0..T-1 with T = max(n, 2D) + k (a learned table: at most its
    rows), so that it has more (p, p + k) pairs than unknowns per output; a sequence
    of length T.

    Returns
    -------
    dict: ``m`` (D, D) the fitted map, ``miss`` (T-k,) per position, ``positions`` T,
    ``scale`` the largest code's norm, ``relative`` worst miss / scale, ``rank``,
    ``determined`` (more pairs than the codes' rank), ``linear`` (determined and relative
    < SHIFT_TOL; None when not determined).
    """
    enc = _encoder(enc)
    n = as_int("n", n, min_value=2)
    k = as_int("k", k, min_value=1)
    t = max(n, 2 * enc.d_model) + k
    if hasattr(enc, "max_len"):
        t = min(t, enc.max_len)
    if k >= t:
        raise ValueError(f"k must be < the {t} positions fitted, got {k}")
    check_budget(t * enc.d_model, "shift_fit: the table")
    pe = enc.encode(t)  # (T, D)
    m, miss, rank = fit_shift_map(pe, k)
    max_norm = float(np.linalg.norm(pe, axis=1).max()) or 1.0
    relative = float(miss.max() / max_norm)
    determined = t - k > rank
    return dict(
        m=m,
        miss=miss,
        positions=t,
        scale=max_norm,
        relative=relative,
        rank=rank,
        determined=bool(determined),
        linear=bool(relative < SHIFT_TOL) if determined else None,
    )


def similarity_curve(enc, n: int, metric: str = "dot") -> dict:
    """Similarity against distance over positions 0..n-1 (R = n // 2, so at least R starting points).

    Returns
    -------
    dict: ``S`` (n-R, R+1) from ``similarity_by_distance``; ``mean``, ``low``, ``high``
    (R+1,) its mean, min and max over starting positions; ``spread`` = max(high - low)
    relative to max |S|; ``invariant`` = spread < INVARIANT_TOL; ``falls``: on average the
    code one step away is more alike than any farther one (mean[1] > max(mean[2:])).
    """
    enc = _encoder(enc)
    n = as_int("n", n, min_value=4)
    metric = as_choice("metric", metric, SIMILARITY_METRICS)
    s = similarity_by_distance(enc.encode(n), n // 2, metric)  # (n-R, R+1)
    mean, low, high = s.mean(axis=0), s.min(axis=0), s.max(axis=0)
    scale = float(np.abs(s).max()) or 1.0
    spread = float((high - low).max() / scale)
    return dict(
        S=s,
        mean=mean,
        low=low,
        high=high,
        spread=spread,
        invariant=bool(spread < INVARIANT_TOL),
        falls=bool(mean[1] > mean[2:].max()),
    )


def check_encoding(enc, n: int, k: int = 1, metric: str = "dot") -> dict:
    """Every check at once: the verdict card.

    Parameters
    ----------
    enc : EncodingSpec, LearnedTable or classic(...)
    n : int, >= 4
        Positions 0..n-1 (the sequence the encoding is meant for).
    k : int, >= 1
        The shift of the linear-map check.
    metric : {"dot", "cosine"}
        The similarity of the last two checks.

    Returns
    -------
    dict name -> dict(passed=bool or None, value=float or None, ...), one per ``CHECKS``:
    "unique" (value: closest distance / largest code, ``pair``), "bounded" (value: largest
    norm at 8n / at n), "same_at_any_length" (value: ``length_change``),
    "shift_linear" (value: worst relative miss; passed None when there are too few
    positions to tell), "falls_with_distance" (value: mean similarity at distance 1,
    ``near``, minus the largest mean beyond, ``far``), "translation_invariant" (value: relative spread).
    """
    enc = _encoder(enc)
    n = as_int("n", n, min_value=4)
    u = uniqueness(enc, n)
    # the growth and the length change read the same two tables
    g, short, long = _growth(enc, n, MULTIPLIERS)
    change = _change(short, long)
    s = shift_fit(enc, n, k)
    c = similarity_curve(enc, n, metric)
    first, last = g["max_norm"][0], g["max_norm"][-1]
    return {
        "unique": dict(passed=u["unique"], value=u["relative"], distance=u["distance"], pair=u["pair"]),
        "bounded": dict(
            passed=g["bounded"],
            value=None if last is None or not first else last / first,
            first=first,
            last=last,
        ),
        "same_at_any_length": dict(passed=change is not None and change <= LENGTH_TOL, value=change),
        "shift_linear": dict(passed=s["linear"], value=s["relative"], positions=s["positions"], k=k),
        "falls_with_distance": dict(
            passed=c["falls"],
            value=float(c["mean"][1] - c["mean"][2:].max()),
            near=float(c["mean"][1]),
            far=float(c["mean"][2:].max()),
        ),
        "translation_invariant": dict(passed=c["invariant"], value=c["spread"]),
    }


# the experiment


def experiment_method(spec: EncodingSpec, cfg: ExperimentConfig, name: str = "custom") -> CustomMethod:
    """A design as one more method of ``posenc.experiment``, at the model's width.

    An added design is rebuilt at ``cfg.d_model`` and added to the token vectors (as it is:
    the experiment's own sinusoidal method adds sqrt(2) times the table, so amplitude
    sqrt(2) reproduces it); a rotary one is rebuilt at ``cfg.head_dim`` and turns the
    queries and keys of every head. ``EncodingSpec.at_width`` keeps as many pairs or digits
    as fit.

    Returns
    -------
    CustomMethod, trained by ``posenc.experiment.train`` from the initial weights and
    batches of the classic of its family (sinusoidal for added, RoPE for rotary), so a
    difference in accuracy comes from the encoding alone.
    """
    if not isinstance(spec, EncodingSpec):
        raise ValueError(f"spec must be an EncodingSpec, got {type(spec).__name__}")
    if spec.placement == "rotary":
        return CustomMethod(name=name, inv_freq=rotary_frequencies(spec.at_width(cfg.head_dim)))
    model_spec = spec.at_width(cfg.d_model)
    return CustomMethod(name=name, table=model_spec.encode)
