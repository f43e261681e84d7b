"""Train short, test long: a one-layer attention model in NumPy, with hand-written gradients.

The model is deliberately tiny so that every method can be trained in about a second:
token embedding (plus an added position vector for the absolute methods), one causal
multi-head attention layer (queries and keys with a bias term, so that a head can
look at a *place* regardless of what is there), and a linear read-out to the
vocabulary. Position enters in one of six ways:

=============  ==========================================================
"none"         nothing: attention sees a set (the control)
"learned"      a trained table of ``train_len`` rows added to the input
"sinusoidal"   Vaswani et al.'s fixed table added to the input
"rope"         queries and keys rotated by position (Su et al. 2021)
"alibi"        fixed bias ``-m_h |i - j|`` per head (Press et al. 2021)
"t5"           a trained scalar per bucket and head (Raffel et al. 2019)
=============  ==========================================================

and a seventh of the user's own, a ``CustomMethod``: a fixed table added to the input
or fixed rotary frequencies (``posenc_lab.lessons.design.measure.experiment_method`` makes one from a
design). It starts from the initial weights of the classic of its family (sinusoidal,
or RoPE) and sees the same batches, so the six classics run exactly as they do without it.

Two synthetic tasks need position:

- ``"copy"``: predict the token ``offset`` places back (an exact relative offset);
- ``"marker"``: predict which of a few marker tokens occurred most recently
  (content plus recency).

Everything is reproducible from ``seed``. Shapes: B batch, T positions, V vocabulary,
D model width, H heads, Dh = D / H.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from ._checks import as_choice, as_float, as_float_array, as_int
from .absolute import PositionOutOfRange, sinusoidal
from .alibi import alibi_slopes
from .relative import t5_bucket
from .rope.frequencies import rope_inv_freq
from .rope.rotation import _rotate_pairs, rope_cos_sin

__all__ = [
    "CustomMethod",
    "EXPERIMENT_METHODS",
    "EXPERIMENT_TASKS",
    "ExperimentConfig",
    "attention_scores",
    "compute_dtype",
    "evaluate",
    "evaluate_loss",
    "init_params",
    "initial_params",
    "loss_and_grads",
    "make_batch",
    "run_experiment",
    "train",
]

EXPERIMENT_METHODS = ("none", "learned", "sinusoidal", "rope", "alibi", "t5")
EXPERIMENT_TASKS = ("copy", "marker")
T5_BUCKETS = 32
T5_MAX_DISTANCE = 128
#: up to this training length the trainer runs in float64, as the stored runs were made;
#: longer runs (new settings) train in float32, about twice as fast (see ``compute_dtype``)
FLOAT64_MAX_TRAIN_LEN = 32
#: evaluation splits its sequences into chunks of at most this many attention scores,
#: so that a test at 10x a long training length fits in memory (smaller runs: one chunk)
EVAL_CHUNK_ELEMENTS = 16_000_000


@dataclass(frozen=True)
class ExperimentConfig:
    """Every setting of one experiment; validated on creation.

    Attributes
    ----------
    task : {"copy", "marker"}
    train_len : int, 8..256
        Sequence length seen in training (and the learned table's max_len). Above
        ``FLOAT64_MAX_TRAIN_LEN`` the trainer runs in float32 (``compute_dtype``).
    d_model : int, 8..128, a multiple of 2 * n_heads
    n_heads : int, 1..8
    steps : int, 10..3000
        Adam steps, one batch each.
    batch : int, 1..256
    lr : float
    seed : int
    vocab : int, 4..64
    offset : int
        "copy": how far back to copy (1 <= offset < train_len).
    n_markers : int
        "marker": how many distinct marker tokens (2 <= n_markers < vocab).
    marker_rate : float
        "marker": chance that a position holds a marker.
    eval_batch : int
        Sequences per evaluation length.
    """

    task: str = "copy"
    train_len: int = 32
    d_model: int = 32
    n_heads: int = 4
    steps: int = 300
    batch: int = 32
    lr: float = 0.02
    seed: int = 0
    vocab: int = 16
    offset: int = 3
    n_markers: int = 4
    marker_rate: float = 0.15
    eval_batch: int = 32
    multipliers: tuple[int, ...] = field(default=(1, 2, 4, 8))

    def __post_init__(self):
        as_choice("task", self.task, EXPERIMENT_TASKS)
        as_int("train_len", self.train_len, min_value=8, max_value=256)
        as_int("n_heads", self.n_heads, min_value=1, max_value=8)
        as_int("d_model", self.d_model, min_value=8, max_value=128)
        if self.d_model % (2 * self.n_heads):
            raise ValueError(f"d_model must be a multiple of 2 * n_heads = {2 * self.n_heads}, got {self.d_model}")
        as_int("steps", self.steps, min_value=1, max_value=3000)
        as_int("batch", self.batch, min_value=1, max_value=256)
        as_float("lr", self.lr, gt=0.0, le=1.0)
        as_int("seed", self.seed, min_value=0)
        as_int("vocab", self.vocab, min_value=4, max_value=64)
        as_int("offset", self.offset, min_value=1, max_value=self.train_len - 1)
        as_int("n_markers", self.n_markers, min_value=2, max_value=self.vocab - 1)
        as_float("marker_rate", self.marker_rate, gt=0.0, lt=1.0)
        as_int("eval_batch", self.eval_batch, min_value=1, max_value=256)
        if not self.multipliers or any(
            isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= 16 for m in self.multipliers
        ):
            raise ValueError(f"multipliers must be whole numbers from 1 to 16, got {self.multipliers!r}")

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads


@dataclass(frozen=True, eq=False)
class CustomMethod:
    """A position method made outside this module, trained as one more method.

    Give exactly one of:

    table : callable, positions (T,) int ndarray -> (T, D) ndarray
        A fixed encoding added to the token embeddings (nothing in it is trained).
    inv_freq : (Dh/2,) array_like
        Fixed rotary frequencies: queries and keys of every head turned pair by pair
        (dims 2i, 2i + 1) by ``p * inv_freq[i]``, as "rope" does with its own.

    attention_factor : float > 0, default 1
        With ``inv_freq``: multiplies cos and sin, as transformers applies a rope_type's
        attention factor (YaRN's temperature), so the attention logits are multiplied by
        its square. A table takes no attention factor.

    ``name`` labels its results and must not be one of ``EXPERIMENT_METHODS``. It is
    trained from the initial weights and on the batches of the classic it resembles
    (``shares``: "sinusoidal" for a table, "rope" for frequencies): a table equal to the
    experiment's sinusoid, or RoPE's frequencies, give exactly those methods' numbers.
    """

    name: str = "custom"
    table: Callable[[np.ndarray], np.ndarray] | None = None
    inv_freq: np.ndarray | None = None
    attention_factor: float = 1.0

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name or self.name in EXPERIMENT_METHODS:
            raise ValueError(
                f"name must be a non-empty string other than {', '.join(EXPERIMENT_METHODS)}, got {self.name!r}"
            )
        if (self.table is None) == (self.inv_freq is None):
            raise ValueError(
                "CustomMethod needs exactly one of table (an added encoding) or inv_freq (rotary frequencies)"
            )
        if self.table is not None and not callable(self.table):
            raise ValueError(f"table must be a function of the positions, got {type(self.table).__name__}")
        if self.inv_freq is not None:
            object.__setattr__(self, "inv_freq", as_float_array("inv_freq", self.inv_freq, ndim=1))
        object.__setattr__(self, "attention_factor", as_float("attention_factor", self.attention_factor, gt=0.0))
        if self.table is not None and self.attention_factor != 1.0:
            raise ValueError("attention_factor scales a rotation: give it with inv_freq, not with a table")

    @property
    def shares(self) -> str:
        """The classic whose initial weights and batches this method starts from."""
        return "sinusoidal" if self.table is not None else "rope"


def _method(method):
    """A classic's name, checked, or a CustomMethod as it is."""
    return method if isinstance(method, CustomMethod) else as_choice("method", method, EXPERIMENT_METHODS)


def _label(method) -> str:
    return method.name if isinstance(method, CustomMethod) else method


# data


def make_batch(cfg: ExperimentConfig, b: int, length: int, rng: np.random.Generator):
    """One batch of ``b`` sequences of the task.

    Returns
    -------
    x : (B, T) int tokens, y : (B, T) int targets, valid : (B, T) bool
        ``valid`` marks the positions that have an answer (for "copy", t >= offset;
        for "marker", a marker at or before t).
    """
    t = np.arange(length)
    if cfg.task == "copy":
        x = rng.integers(0, cfg.vocab, size=(b, length))
        y = np.roll(x, cfg.offset, axis=1)  # y[t] = x[t - offset]
        valid = np.broadcast_to(t >= cfg.offset, (b, length)).copy()
        return x, y, valid
    # markers are tokens 0..n_markers-1, the rest are filler
    x = rng.integers(cfg.n_markers, cfg.vocab, size=(b, length))
    is_marker = rng.random((b, length)) < cfg.marker_rate
    x = np.where(is_marker, rng.integers(0, cfg.n_markers, size=(b, length)), x)
    # index of the most recent marker at or before t (-1 if none): a running maximum
    last = np.maximum.accumulate(np.where(is_marker, t, -1), axis=1)
    y = np.take_along_axis(x, np.maximum(last, 0), axis=1)
    return x, y, last >= 0


# model


def init_params(cfg: ExperimentConfig, method: str, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Freshly initialised parameters (small normal weights, zero biases)."""
    method = _method(method)
    d, v = cfg.d_model, cfg.vocab
    params = {
        "E": rng.normal(0, 1.0, (v, d)),
        "Wq": rng.normal(0, d**-0.5, (d, d)),
        "Wk": rng.normal(0, d**-0.5, (d, d)),
        "Wv": rng.normal(0, d**-0.5, (d, d)),
        "bq": rng.normal(0, 0.5, d),
        "bk": rng.normal(0, 0.5, d),
        "Wo": rng.normal(0, d**-0.5, (d, v)),
        "bo": np.zeros(v),
    }
    if method == "learned":
        params["P"] = rng.normal(0, 0.5, (cfg.train_len, d))
    if method == "t5":
        params["T5"] = np.zeros((T5_BUCKETS, cfg.n_heads))
    return params


def initial_params(cfg: ExperimentConfig, method) -> dict[str, np.ndarray]:
    """The weights ``train(cfg, method)`` starts from, drawn again from ``cfg.seed``.

    Each method draws from a stream of its own (a ``CustomMethod`` from the stream of the
    classic it ``shares``), so a stored run's starting point, its learned table included,
    can be rebuilt without training.
    """
    method = _method(method)
    stream = method.shares if isinstance(method, CustomMethod) else method
    return init_params(cfg, method, np.random.default_rng([cfg.seed, EXPERIMENT_METHODS.index(stream)]))


def _positional_input(params, method, cfg, positions):
    """What the absolute methods add to the embeddings: (T, D) or 0, in the dtype of the
    parameters (a no-op cast for the float64 runs)."""
    added = _positional_input64(params, method, cfg, positions)
    return added if np.isscalar(added) else added.astype(params["E"].dtype, copy=False)


def _positional_input64(params, method, cfg, positions):
    if method == "learned":
        too_far = positions >= params["P"].shape[0]
        if too_far.any():
            raise PositionOutOfRange(
                f"positions: position {int(positions[too_far][0])} has no learned embedding "
                f"(max_len = train_len = {params['P'].shape[0]})"
            )
        return params["P"][positions]
    if method == "sinusoidal":
        # scaled like the unit-variance token embeddings: sin^2 + cos^2 = 1 per pair
        return math.sqrt(2.0) * sinusoidal(positions, cfg.d_model)
    if isinstance(method, CustomMethod) and method.table is not None:
        table = np.asarray(method.table(positions), dtype=np.float64)
        if table.shape != (positions.size, cfg.d_model) or not np.isfinite(table).all():
            raise ValueError(
                f"{method.name}: table(positions) must give finite values of shape "
                f"({positions.size}, {cfg.d_model}), got shape {table.shape}"
            )
        return table
    return 0.0


def _rotation(method, cfg, positions, dtype=np.float64):
    """(cos, sin), each (T, Dh/2), for the rotary methods, else None. A CustomMethod's
    attention factor multiplies both (transformers' convention)."""
    if method == "rope":
        inv_freq = rope_inv_freq(cfg.head_dim)[0]
    elif isinstance(method, CustomMethod) and method.inv_freq is not None:
        inv_freq = method.inv_freq
        if inv_freq.shape != (cfg.head_dim // 2,):
            raise ValueError(
                f"{method.name}: inv_freq must have head_dim / 2 = {cfg.head_dim // 2} entries, got {inv_freq.size}"
            )
    else:
        return None
    cos, sin = rope_cos_sin(positions.astype(np.float64), inv_freq)  # (T, Dh/2) each
    factor = method.attention_factor if isinstance(method, CustomMethod) else 1.0
    if factor != 1.0:
        cos, sin = cos * factor, sin * factor
    return cos.astype(dtype, copy=False), sin.astype(dtype, copy=False)


def _turn(x, cos, sin):
    """_rotate_pairs (interleaved) in the dtype of ``x``; float64 takes the shared routine."""
    if x.dtype == np.float64:
        return _rotate_pairs(x, cos, sin, "interleaved")
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty(x.shape, dtype=x.dtype)  # C order: the matmuls after it take the BLAS path
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


def _bias(params, method, cfg, positions):
    """Additive score bias (H, T, T) for the bias methods, else None."""
    if method == "alibi":
        distance = np.abs(positions[:, None] - positions[None, :]).astype(np.float64)
        return -alibi_slopes(cfg.n_heads)[:, None, None] * distance
    if method == "t5":
        buckets = _t5_buckets(positions)
        return np.moveaxis(params["T5"][buckets], -1, 0)
    return None


def _t5_buckets(positions):
    rel = positions[None, :] - positions[:, None]  # key minus query
    return t5_bucket(rel, bidirectional=False, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)


def _split(a, h):  # (B, T, D) -> (B, H, T, Dh)
    b, t, d = a.shape
    return a.reshape(b, t, h, d // h).transpose(0, 2, 1, 3)


def _merge(a):  # (B, H, T, Dh) -> (B, T, D)
    b, h, t, dh = a.shape
    return a.transpose(0, 2, 1, 3).reshape(b, t, h * dh)


def _forward(params, method, cfg, x, positions):
    h_in = params["E"][x] + _positional_input(params, method, cfg, positions)  # (B, T, D)
    q = _split(h_in @ params["Wq"] + params["bq"], cfg.n_heads)  # (B, H, T, Dh)
    k = _split(h_in @ params["Wk"] + params["bk"], cfg.n_heads)
    v = _split(h_in @ params["Wv"], cfg.n_heads)
    if h_in.dtype != np.float64:
        # the float32 path (long runs): contiguous heads, so the batched matmuls go to BLAS
        # (float64 keeps its original code path, bit for bit)
        q, k, v = np.ascontiguousarray(q), np.ascontiguousarray(k), np.ascontiguousarray(v)
    rot = _rotation(method, cfg, positions, h_in.dtype)  # (cos, sin) or None
    if rot is not None:
        cos, sin = rot
        q, k = _turn(q, cos, sin), _turn(k, cos, sin)
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(cfg.head_dim)  # (B, H, T, T)
    bias = _bias(params, method, cfg, positions)
    # keys after the query are masked with -inf; one additive (H or 1, T, T) term
    mask = np.where(positions[None, :] <= positions[:, None], 0.0, -np.inf)
    scores += mask if bias is None else bias + mask
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    out = _merge(weights @ v)  # (B, T, D)
    logits = out @ params["Wo"] + params["bo"]  # (B, T, V)
    cache = dict(h_in=h_in, q=q, k=k, v=v, weights=weights, out=out, rot=rot)
    return logits, cache


def flat(a):
    """(B, T, X) -> (B*T, X)."""
    return a.reshape(-1, a.shape[-1])


def _log_softmax(logits):
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def loss_and_grads(params, method: str, cfg: ExperimentConfig, x, y, valid):
    """Mean cross-entropy over valid positions and its gradient for every parameter.

    Returns
    -------
    loss : float, grads : dict with the keys of ``params``
    """
    positions = np.arange(x.shape[1])
    logits, c = _forward(params, method, cfg, x, positions)
    n_valid = max(int(valid.sum()), 1)
    logp = _log_softmax(logits)  # (B, T, V)
    loss = -np.take_along_axis(logp, y[..., None], axis=-1)[..., 0][valid].sum() / n_valid

    # d loss / d logits = softmax - one_hot, on valid positions
    dlogits = np.exp(logp)
    np.put_along_axis(dlogits, y[..., None], np.take_along_axis(dlogits, y[..., None], axis=-1) - 1.0, axis=-1)
    dlogits *= valid[..., None] / n_valid
    grads = {"Wo": flat(c["out"]).T @ flat(dlogits), "bo": dlogits.sum(axis=(0, 1))}
    dout = _split(dlogits @ params["Wo"].T, cfg.n_heads)  # (B, H, T, Dh)
    w = c["weights"]
    dv = w.transpose(0, 1, 3, 2) @ dout
    dw = dout @ c["v"].transpose(0, 1, 3, 2)  # (B, H, T, T)
    # softmax backward: ds = w * (dw - sum_j dw w)
    ds = w * (dw - (dw * w).sum(axis=-1, keepdims=True))
    if method == "t5":
        dbias = ds.sum(axis=0)  # (H, T, T)
        # scatter-add into the (bucket, head) table: one bincount over head * NB + bucket
        index = np.arange(cfg.n_heads)[:, None, None] * T5_BUCKETS + _t5_buckets(positions)[None]
        summed = np.bincount(index.ravel(), weights=dbias.ravel(), minlength=cfg.n_heads * T5_BUCKETS)
        grads["T5"] = summed.reshape(cfg.n_heads, T5_BUCKETS).T.astype(ds.dtype, copy=False)
    ds /= math.sqrt(cfg.head_dim)
    dq = ds @ c["k"]
    dk = ds.transpose(0, 1, 3, 2) @ c["q"]
    if c["rot"] is not None:
        cos, sin = c["rot"]
        # the rotation is orthogonal: its gradient is the rotation by the opposite angle
        # (with an attention factor a the map is a R, and its transpose a R^T: the same call)
        dq, dk = _turn(dq, cos, -sin), _turn(dk, cos, -sin)
    dq, dk, dv = _merge(dq), _merge(dk), _merge(dv)  # (B, T, D)
    h_t = flat(c["h_in"]).T  # (D, B*T)
    grads["Wq"], grads["Wk"], grads["Wv"] = h_t @ flat(dq), h_t @ flat(dk), h_t @ flat(dv)
    grads["bq"] = dq.sum(axis=(0, 1))
    grads["bk"] = dk.sum(axis=(0, 1))
    dh = dq @ params["Wq"].T + dk @ params["Wk"].T + dv @ params["Wv"].T  # (B, T, D)
    # rows of E receive the gradients of every place their token stands: one-hot^T @ dh
    one_hot = (x.ravel()[None, :] == np.arange(cfg.vocab)[:, None]).astype(dh.dtype)  # (V, B*T)
    grads["E"] = one_hot @ flat(dh)
    if method == "learned":
        grads["P"] = dh.sum(axis=0)
    return float(loss), grads


# training and evaluation


@dataclass
class TrainResult:
    """Parameters after training and the loss after every step."""

    params: dict[str, np.ndarray]
    losses: np.ndarray


def compute_dtype(cfg: ExperimentConfig) -> type:
    """The float type a fresh run trains in: float64 up to ``FLOAT64_MAX_TRAIN_LEN`` (the
    stored runs, bit for bit), float32 for the longer settings, where it halves the time
    (tests check both reach the same accuracy within noise)."""
    if not isinstance(cfg, ExperimentConfig):
        raise ValueError(f"cfg must be an ExperimentConfig, got {type(cfg).__name__}")
    return np.float64 if cfg.train_len <= FLOAT64_MAX_TRAIN_LEN else np.float32


def train(
    cfg: ExperimentConfig,
    method,
    *,
    on_step: Callable[[int], None] | None = None,
    params: dict[str, np.ndarray] | None = None,
    dtype=None,
) -> TrainResult:
    """Adam on fresh batches of length ``train_len``; reproducible from ``cfg.seed``.

    ``method`` is a name in ``EXPERIMENT_METHODS`` or a ``CustomMethod`` (whose initial
    weights are drawn from the stream of the classic it ``shares``).

    ``params`` continues training from these weights (a fine-tune: fresh Adam moments and
    its own stream of batches, not the first run's) instead of drawing new ones; they are
    copied, not changed. ``dtype`` (np.float32 or np.float64) overrides
    ``compute_dtype(cfg)`` (a continued run keeps the dtype of ``params``).
    """
    method = _method(method)
    if params is None:
        params = initial_params(cfg, method)
        data_rng = np.random.default_rng([cfg.seed, 1000])  # the same batches for every method
    else:
        if not isinstance(params, dict) or not {"E", "Wq", "Wk", "Wv", "bq", "bk", "Wo", "bo"} <= set(params):
            raise ValueError("params must be a dict of trained weights (TrainResult.params)")
        dtype = dtype or params["E"].dtype.type
        params = {k: np.array(v) for k, v in params.items()}
        data_rng = np.random.default_rng([cfg.seed, 3000])  # fine-tuning sees batches of its own
    dtype = dtype or compute_dtype(cfg)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be np.float32 or np.float64, got {dtype!r}")
    params = {k: p.astype(dtype, copy=False) for k, p in params.items()}
    m = {k: np.zeros_like(p) for k, p in params.items()}
    s = {k: np.zeros_like(p) for k, p in params.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    losses = np.empty(cfg.steps)
    for step in range(cfg.steps):
        x, y, valid = make_batch(cfg, cfg.batch, cfg.train_len, data_rng)
        losses[step], grads = loss_and_grads(params, method, cfg, x, y, valid)
        for name, g in grads.items():
            g = g.astype(dtype, copy=False)
            m[name] = beta1 * m[name] + (1 - beta1) * g
            s[name] = beta2 * s[name] + (1 - beta2) * g * g
            m_hat = m[name] / (1 - beta1 ** (step + 1))
            s_hat = s[name] / (1 - beta2 ** (step + 1))
            params[name] -= cfg.lr * m_hat / (np.sqrt(s_hat) + eps)
        if on_step is not None:
            on_step(step)
    return TrainResult(params, losses)


def _test_metrics(result: TrainResult, cfg: ExperimentConfig, method, length: int):
    """(accuracy, mean cross-entropy in nats) over the valid answers of the test sequences
    of ``length``, or None where the learned table has no row for some position."""
    method = _method(method)
    length = as_int("length", length, min_value=2, max_value=16 * 256)
    rng = np.random.default_rng([cfg.seed, 2000, length])  # the same test sequences for every method
    x, y, valid = make_batch(cfg, cfg.eval_batch, length, rng)
    # sequences are independent: split them so the (B, H, T, T) scores stay bounded
    per_chunk = max(1, EVAL_CHUNK_ELEMENTS // (cfg.n_heads * length * length))
    correct = nll = 0.0
    try:
        for lo in range(0, x.shape[0], per_chunk):
            part = slice(lo, lo + per_chunk)
            logits, _ = _forward(result.params, method, cfg, x[part], np.arange(length))
            ok = valid[part]
            correct += ((logits.argmax(axis=-1) == y[part]) & ok).sum()
            logp = np.take_along_axis(_log_softmax(logits), y[part][..., None], axis=-1)[..., 0]
            nll -= float(logp[ok].astype(np.float64).sum())
    except PositionOutOfRange:
        return None
    n = max(int(valid.sum()), 1)
    return float(correct / n), nll / n


def evaluate(result: TrainResult, cfg: ExperimentConfig, method, length: int) -> float | None:
    """Accuracy on fresh sequences of ``length``; None where the method has no
    embedding for some position (learned, past ``train_len``).

    ``method`` may be a rotary ``CustomMethod`` other than the one trained: the way to test
    a RoPE model with scaled frequencies (and an attention factor) it was not trained with.
    """
    metrics = _test_metrics(result, cfg, method, length)
    return None if metrics is None else metrics[0]


def evaluate_loss(result: TrainResult, cfg: ExperimentConfig, method, length: int) -> float | None:
    """Mean cross-entropy (nats per answer) on the sequences ``evaluate`` scores; None where
    it gives None. exp() of it is the perplexity over the answers."""
    metrics = _test_metrics(result, cfg, method, length)
    return None if metrics is None else metrics[1]


def attention_scores(result: TrainResult, cfg: ExperimentConfig, method, tokens, offset: int) -> np.ndarray:
    """The trained model's attention logits (H, T, T) for a phrase placed at ``offset``.

    Raises PositionOutOfRange for "learned" when the phrase runs past the table.
    """
    method = _method(method)
    tokens = np.asarray(tokens, dtype=np.int64)[None, :]
    positions = np.arange(offset, offset + tokens.shape[1])
    p = result.params
    h_in = p["E"][tokens] + _positional_input(p, method, cfg, positions)
    q = _split(h_in @ p["Wq"] + p["bq"], cfg.n_heads)
    k = _split(h_in @ p["Wk"] + p["bk"], cfg.n_heads)
    rot = _rotation(method, cfg, positions, h_in.dtype)
    if rot is not None:
        cos, sin = rot
        q, k = _turn(q, cos, sin), _turn(k, cos, sin)
    scores = (q @ k.transpose(0, 1, 3, 2))[0] / math.sqrt(cfg.head_dim)
    bias = _bias(p, method, cfg, positions)
    return scores if bias is None else scores + bias


def run_experiment(cfg: ExperimentConfig, methods=EXPERIMENT_METHODS, *, on_progress=None) -> dict:
    """Train every method at ``train_len`` and test at each multiple of it.

    Parameters
    ----------
    methods : sequence of names in ``EXPERIMENT_METHODS`` and ``CustomMethod`` objects
        The results are keyed by name (a CustomMethod's ``name``).
    on_progress : callable(fraction done in [0, 1], message) or None

    Returns
    -------
    dict with ``config`` (the settings), ``lengths`` (the test lengths),
    ``accuracy`` {method: [accuracy or None per length]}, ``losses``
    {method: per-step training loss}, ``chance`` (the accuracy of a uniform guess:
    1/vocab for copy, 1/n_markers for marker) and ``results`` {method: TrainResult}.
    """
    methods = [m if isinstance(m, CustomMethod) else as_choice("methods", m, EXPERIMENT_METHODS) for m in methods]
    names = [_label(m) for m in methods]
    if len(set(names)) != len(names):
        raise ValueError(f"methods must have distinct names, got {names}")
    lengths = [cfg.train_len * m for m in cfg.multipliers]
    accuracy, losses, results = {}, {}, {}
    total = len(methods) * cfg.steps
    for i, (method, name) in enumerate(zip(methods, names, strict=True)):
        if on_progress is not None:
            on_progress(i * cfg.steps / total, f"training {name}")
        report = None
        if on_progress is not None:

            def report(step, i=i, name=name):
                if step % 25 == 0:
                    on_progress((i * cfg.steps + step) / total, f"training {name}")

        results[name] = train(cfg, method, on_step=report)
        losses[name] = results[name].losses
        accuracy[name] = [evaluate(results[name], cfg, method, n) for n in lengths]
    if on_progress is not None:
        on_progress(1.0, "done")
    chance = 1 / cfg.vocab if cfg.task == "copy" else 1 / cfg.n_markers
    return dict(config=asdict(cfg), lengths=lengths, accuracy=accuracy, losses=losses, chance=chance, results=results)
