"""What a model's config.json says about positions, computed by posenc: pure NumPy.

``parse_config(text)`` reads a pasted or uploaded config as JSON (never executes it), keeps
only the keys that decide positions and checks them, raising ``ValueError`` with a message
that names the key. ``positions(config)`` turns such a dict (or a catalogue entry's) into
what the lesson shows: the method, every rotary pair's wavelength before and after the
config's ``rope_scaling`` (``posenc.rope_inv_freq``), which pairs turn fully inside the length
the config names (original_max_position_embeddings, else max_position_embeddings) and the
extended window, the attention factor, ALiBi slopes, T5 buckets, the
learned table's size, the sliding window's receptive field, partial rotary, M-RoPE sections
and NoPE layers.

A config is a stranger's text: every count it gives is capped below (``MAX_*``), and only what
the page draws is computed (DeBERTa's buckets of the offsets its chart shows, not of all
``max_relative_positions`` of them), so that one config costs at most ``MEMORY_BUDGET``
(``tests/test_models_config_limits.py`` runs the largest each method may ask for).
"""

from __future__ import annotations

import json
import math

import numpy as np

import posenc
from posenc.rope.multiaxis import irope_layer_types
from posenc_lab.lessons.models import model_types

#: the most a pasted or uploaded config may hold: a real config.json is a few kB (Phi-3's,
#: with its 96 LongRoPE factors, about 6 kB); a bigger file is not a config
MAX_BYTES = 256 * 1024
#: the most memory reading and measuring one config may take, its figures included; the caps
#: below keep every array well inside it (the largest: T5's walk over its 2 x MAX_T5_DISTANCE
#: offsets, about 11 MB)
MEMORY_BUDGET = 50 * 2**20
#: the largest counts read, so that no figure or list grows without bound
MAX_LAYERS = 10_000
MAX_HEADS = 1024
MAX_HEAD_DIM = 8192
#: T5 uses 32 buckets and 128; its bucket ranges walk every offset up to the distance
MAX_T5_BUCKETS = 4096
MAX_T5_DISTANCE = 100_000
#: the largest real-valued key: a float ends near 1.8e308
MAX_FLOAT = 1e300
#: the largest rope_theta (real ones: 1e4 to 1e8): the chart draws wavelengths, up to 2π x the
#: base x MAX_FACTOR, as float32, which ends near 3.4e38
MAX_ROPE_THETA = 1e30
#: the longest wavelength the chart draws, in tokens: it draws float32, which ends near 3.4e38
#: (a dynamic scaling at its limits raises the base further still)
MAX_WAVELENGTH = 1e37
#: the largest rope_scaling factor (real ones: 4 to 64); YaRN's extended window is the original length times it
MAX_FACTOR = 1_000_000
#: the largest alibi_bias_max (MPT's is 8): the gentlest slope is 2^-alibi_bias_max, and
#: past about 1,000 it is 0, a head without positions
MAX_ALIBI_BIAS = 64
#: DeBERTa's chart draws offsets 0..this; its table reads the farthest one on its own
DEBERTA_OFFSETS_DRAWN = 2000

#: rope types transformers reads that posenc names otherwise: Qwen2-VL writes "mrope" for
#: plain RoPE frequencies split over three position axes (transformers maps it to "default")
ROPE_ALIASES = {"mrope": "default"}
#: every rope_type a config may name
ROPE_TYPES = (*posenc.ROPE_VARIANTS, *ROPE_ALIASES)

#: the keys read, in the spellings the model families use; everything else is ignored
POSITION_KEYS = (
    "model_type",
    "max_position_embeddings",
    "original_max_position_embeddings",
    "n_positions",
    "n_ctx",
    "max_seq_len",
    "position_embedding_type",
    "rope_theta",
    "rotary_emb_base",
    "rope_local_base_freq",
    "rope_scaling",
    "rope_parameters",
    "head_dim",
    "qk_rope_head_dim",
    "d_kv",
    "hidden_size",
    "n_embd",
    "d_model",
    "num_attention_heads",
    "n_head",
    "n_heads",
    "num_heads",
    "num_hidden_layers",
    "n_layer",
    "n_layers",
    "num_layers",
    "partial_rotary_factor",
    "rotary_pct",
    "rotary_dim",
    "sliding_window",
    "use_sliding_window",
    "max_window_layers",
    "sliding_window_pattern",
    "layer_types",
    "no_rope_layers",
    "no_rope_layer_interval",
    "attention_chunk_size",
    "relative_attention_num_buckets",
    "relative_attention_max_distance",
    "relative_attention",
    "position_buckets",
    "max_relative_positions",
    "position_biased_input",
    "alibi",
    "alibi_bias_max",
    "attn_config",
)
#: the same quantity under each family's name, first found wins
ALIASES = {
    "width": ("hidden_size", "n_embd", "d_model"),
    "heads": ("num_attention_heads", "n_head", "n_heads", "num_heads"),
    "layers": ("num_hidden_layers", "n_layer", "n_layers", "num_layers"),
}
#: what each method is called on the page
METHODS = {
    "learned": "learned absolute positions",
    "t5": "T5 relative buckets",
    "deberta": "DeBERTa relative positions (log buckets)",
    "alibi": "ALiBi",
    "rope": "RoPE",
}


# reading the text


def parse_config(text: str) -> tuple[dict, list[str]]:
    """A config.json's position keys, checked: ``(config, notes)``.

    ``config`` holds only ``POSITION_KEYS`` (a multimodal config's ``text_config`` read in
    place of the top level, MPT's ``attn_config`` kept for its ALiBi keys); ``notes`` says
    what was read from where and which keys were ignored. Raises ``ValueError`` naming the
    key for: text over ``MAX_BYTES``, malformed JSON (with the line and column), anything
    but a JSON object, an unknown ``rope_type``, a missing or contradictory key, a value out
    of its range.
    """
    config, notes = read_config(text)
    # check now, so that a bad config is refused with its message before anything is drawn
    checked_positions(config)
    return config, notes


def read_config(text: str) -> tuple[dict, list[str]]:
    """``parse_config`` without measuring: the position keys as read, not yet checked.

    The page reads the text on every run (cheap: at most ``MAX_BYTES``) and measures the
    config it holds once, cached by these values, so that a text spaced differently reuses
    the measurement.
    """
    if not isinstance(text, str):
        raise ValueError(f"config.json: expected text, got {type(text).__name__}")
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_BYTES:
        raise ValueError(
            f"config.json: {size / 1024:,.0f} kB is too big; at most {MAX_BYTES // 1024} kB is read "
            "(a model's config.json is a few kB: was this the weights or the tokenizer?)"
        )
    if not text.strip():
        raise ValueError("config.json: the text is empty; paste a config.json or upload one")
    try:
        raw = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as err:
        raise ValueError(f"config.json is not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}") from None
    except RecursionError:
        raise ValueError("config.json: nested too deeply to be a config") from None
    except ValueError as err:
        # Python refuses integers of over 4,300 digits, and NaN / Infinity here (_refuse_constant)
        raise ValueError(f"config.json: {err}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"config.json must be a JSON object ({{...}}), got a JSON {_json_kind(raw)}")
    notes = []
    source = raw
    if isinstance(raw.get("text_config"), dict):
        # Llama 4, Gemma 3 and other multimodal models keep the language model's keys here
        source = {**{k: v for k, v in raw.items() if k != "text_config"}, **raw["text_config"]}
        notes.append("read the language model's keys from text_config")
    config = {key: source[key] for key in POSITION_KEYS if key in source}
    ignored = len(set(source) - set(config) - {"text_config"})
    if ignored:
        notes.append(f"ignored {ignored} keys that do not decide positions")
    if not config:
        raise ValueError(
            "config.json: none of the position keys is there (max_position_embeddings, rope_theta, "
            "rope_scaling, n_positions, relative_attention_num_buckets, ...)"
        )
    return config, notes


def checked_positions(config: dict, length: int | None = None) -> dict:
    """``positions``, with any error a config's values can cause given as a ``ValueError``."""
    try:
        return positions(config, length)
    except (OverflowError, TypeError, KeyError, IndexError) as err:
        # a value no check foresaw (a number too large for a float): still a message, never a traceback
        raise ValueError(f"config.json: a position key holds a value that cannot be used ({err})"[:300]) from None


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _json_kind(value) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


# reading the keys


def _get(config: dict, name: str):
    """The first of a quantity's spellings the config has, or None."""
    for key in ALIASES[name]:
        if config.get(key) is not None:
            return config[key], key
    return None, ALIASES[name][0]


def _number(value) -> bool:
    # JSON gives bools as True/False (refused); a number may be an integer too large for a
    # float, or a float too large to hold (1e400 reads as infinity): numbers all the same
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) or not math.isnan(value)


def _infinite(value) -> bool:
    return isinstance(value, float) and math.isinf(value)


def _shown(value) -> str:
    """A number as a message quotes it: never 400 digits, never "inf"."""
    if _infinite(value):
        return "a number too large for a float" if value > 0 else "a negative number too large for a float"
    if isinstance(value, int):
        digits = len(str(abs(value)))
        return f"{value:,}" if digits < 20 else f"a {digits}-digit number"
    return f"{value:g}"


def _int(key: str, value, *, low: int = 1, high: int | None = None) -> int:
    # whole floats such as 4096.0 are taken as the integer they are
    if not _number(value):
        raise ValueError(f"{key} must be a whole number, got {json.dumps(value)[:60]}")
    if not _infinite(value) and value != int(value):
        raise ValueError(f"{key} must be a whole number, got {value}")
    if value < low or (high is not None and value > high):
        raise ValueError(
            f"{key} must be {low:,} to {high:,}, got {_shown(value)}" if high else f"{key} must be >= {low}"
        )
    if _infinite(value):
        raise ValueError(f"{key} is too large: got {_shown(value)}")
    return int(value)


def _float(key: str, value, *, gt: float = 0.0, high: float = MAX_FLOAT) -> float:
    if not _number(value):
        raise ValueError(f"{key} must be a number, got {json.dumps(value)[:60]}")
    if not value > gt:
        raise ValueError(f"{key} must be > {gt:g}, got {_shown(value)}")
    if value > high:
        # a number, just not one this key can take: say the range rather than "not a number"
        raise ValueError(f"{key} is too large: it must be > {gt:g} and at most {high:g}, got {_shown(value)}")
    return float(value)


def _required(config: dict, name: str, method: str):
    value, key = _get(config, name)
    if value is None:
        spellings = " or ".join(ALIASES[name])
        raise ValueError(f"{spellings} is missing: {METHODS[method]} needs it")
    return value, key


def _method(config: dict, found: model_types.ModelType) -> str:
    attn = config.get("attn_config")
    if attn is not None and not isinstance(attn, dict):
        raise ValueError(f"attn_config must be an object, got {json.dumps(attn)[:60]}")
    if config.get("alibi") is True or (attn or {}).get("alibi") is True:
        return "alibi"  # Falcon and MPT read alibi as a switch
    if found.method == "alibi" and "attn_config" in found.defaults:
        raise ValueError(
            "attn_config['alibi'] is false: MptConfig without ALiBi has no position method transformers reads"
        )
    if found.method == "deberta" and config.get("relative_attention") is not True:
        # DeBERTa-v2 without relative attention adds a learned absolute table only
        return "learned"
    if found.method:
        return found.method
    model_type = str(config.get("model_type", "")).lower()
    if "relative_attention_num_buckets" in config or model_type in ("t5", "mt5", "umt5"):
        return "t5"
    if "position_buckets" in config or model_type.startswith("deberta"):
        return "deberta"
    rope_keys = ("rope_theta", "rope_scaling", "rope_parameters", "rotary_pct", "rotary_emb_base", "rotary_dim")
    if any(config.get(k) is not None for k in rope_keys):
        return "rope"
    if "n_positions" in config or "max_position_embeddings" in config:
        return "learned"
    raise ValueError(
        "cannot tell the position method: no rope_theta or rope_scaling (RoPE), alibi (ALiBi), "
        "relative_attention_num_buckets (T5), position_buckets (DeBERTa) or n_positions / "
        "max_position_embeddings (learned)"
    )


# the numbers


def positions(config: dict, length: int | None = None) -> dict:
    """Everything the lesson shows about one config's positions.

    The keys the file leaves out are first filled in as the config class of its ``model_type``
    does (``model_types.resolve``; ``notes`` names each default taken). Returns a dict:
    ``method`` (a key of ``METHODS``), ``rows`` (label, value) pairs for the table, ``notes``;
    for RoPE also ``pairs`` (P,), ``wavelength`` and ``scaled_wavelength`` (P,) in tokens,
    ``trained_wavelength`` (what runs up to ``train_len``: LongRoPE's short factors, else the
    unscaled one), ``ratio`` (P,), ``train_len`` and ``train_kind`` (what that length is: "max",
    "original" or "unscaled"), ``extended_len``, ``max_pos``, ``attention_factor``,
    ``rope_scaling`` (as posenc reads it), ``base``, ``head_dim`` and ``rotary_dim``; for ALiBi
    ``slopes`` (H,); for T5 ``bucket_lo`` / ``bucket_hi`` (num_buckets,) and
    ``last_bucket_start``; for DeBERTa ``buckets`` of the offsets 0..max_position;
    ``attention_kinds`` (each layer's "full", "sliding" or "chunked"), ``nope_layers`` and
    ``layer_kinds`` when layers differ (sliding / full / chunked / NoPE).

    ``length``, when given, is the sequence length L the page asks about: RoPE counts the
    pairs that turn fully within it (``in_length``), and the types that depend on the
    current length ("dynamic", "longrope") use it; otherwise they use the extended window.
    """
    if not isinstance(config, dict):
        raise ValueError("config must be a JSON object")
    # the keys the file leaves out, as the config class of its model_type fills them in
    filled, notes, found = model_types.resolve(config)
    method = _method(filled, found)
    out = {"method": method, "rows": [("Method", METHODS[method])], "notes": notes, "config": config}
    if found is model_types.UNKNOWN:
        # the page shows it above the numbers, as a notice: which reading was assumed
        out["assumed"] = notes.pop(0)
    if method == "rope":
        _rope(filled, out, length, found)
    else:
        {"learned": _learned, "t5": _t5, "deberta": _deberta, "alibi": _alibi}[method](filled, out, found)
    _layers(filled, out, found)
    return out


def _learned(config: dict, out: dict, found: model_types.ModelType) -> None:
    rows_key = "n_positions" if "n_positions" in config else "max_position_embeddings"
    max_pos = rows = _int(rows_key, config[rows_key], high=100_000_000)
    if "n_ctx" in config and "n_positions" in config and _int("n_ctx", config["n_ctx"]) != rows:
        raise ValueError(f"n_ctx ({config['n_ctx']}) contradicts n_positions ({rows}): GPT-2 keeps them equal")
    kind = config.get("position_embedding_type", "absolute")
    if kind != "absolute":
        raise ValueError(f"position_embedding_type {json.dumps(kind)[:40]} is not read here; only 'absolute' is")
    width, width_key = _required(config, "width", "learned")
    width = _int(width_key, width, high=1_000_000)
    # the positions the table gives a vector: OPT's table has rows before position 0's on top of
    # max_position_embeddings, RoBERTa's inside it
    before = found.rows_before
    readable = rows - before if found.rows_before_inside else rows
    rows = rows if found.rows_before_inside else rows + before
    if readable < 1:
        raise ValueError(
            f"{rows_key} ({max_pos}) leaves no position a vector: its first {before} rows are not positions"
        )
    out.update(table_rows=rows, readable=readable, max_pos=max_pos, width=width, parameters=rows * width)
    out["rows"] += [
        ("Rows of the table", f"{rows:,}" + (f" ({before} before position 0's)" if before else "")),
        ("Positions with a vector", f"0 to {readable - 1:,}"),
        ("Width (d_model)", f"{width:,}"),
        ("Learned position parameters", f"{rows * width:,}"),
        ("Past the last one", f"no vector: the model cannot read position {readable:,}"),
    ]


def _t5(config: dict, out: dict, found: model_types.ModelType) -> None:
    buckets = _int(
        "relative_attention_num_buckets", config.get("relative_attention_num_buckets", 32), low=4, high=MAX_T5_BUCKETS
    )
    distance = _int(
        "relative_attention_max_distance", config.get("relative_attention_max_distance", 128), high=MAX_T5_DISTANCE
    )
    exact = buckets // 4  # the encoder: half the buckets each way, half of those one offset each
    if distance <= exact:
        default = "" if "relative_attention_max_distance" in config else ", T5Config's default"
        raise ValueError(
            f"relative_attention_max_distance ({distance}{default}) must exceed {exact}: "
            f"relative_attention_num_buckets ({buckets}) keeps offsets up to {exact - 1} exact each way, and the "
            "log buckets start there"
        )
    if "relative_attention_max_distance" not in config:
        out["notes"].append("relative_attention_max_distance is not in the config: T5Config's default 128 applies")
    heads, heads_key = _required(config, "heads", "t5")
    heads = _int(heads_key, heads, high=MAX_HEADS)
    # the encoder's buckets: both directions, half the buckets each (transformers' T5Attention)
    lo, hi = posenc.relative.t5_bucket_ranges(buckets, distance, bidirectional=True)
    # the last bucket of the forward direction holds every offset from its start on (91 for T5's 32 and
    # 128: the log scale reaches max_distance inside it)
    start = int(lo[-1])
    out.update(buckets=buckets, max_distance=distance, heads=heads, bucket_lo=lo, bucket_hi=hi, last_bucket_start=start)
    exact = int(np.sum((lo == hi) & np.isfinite(lo)))
    out["rows"] += [
        ("Buckets (encoder: half each way)", f"{buckets}"),
        ("Offsets with a bucket of their own", f"{exact}"),
        ("Last bucket each way (every offset from here on)", f"±{start:,} (max_distance {distance:,})"),
        ("Learned biases per stack (buckets x heads, in its first layer, shared by all)", f"{buckets * heads:,}"),
    ]


def _deberta(config: dict, out: dict, found: model_types.ModelType) -> None:
    max_pos = _int("max_position_embeddings", config.get("max_position_embeddings", 512), high=100_000_000)
    bucket = config.get("position_buckets", -1)
    bucket = -1 if bucket is None else _int("position_buckets", bucket, low=-1, high=1_000_000)
    max_rel = config.get("max_relative_positions", -1)
    max_rel = -1 if max_rel is None else _int("max_relative_positions", max_rel, low=-1, high=100_000_000)
    if max_rel < 1:
        max_rel = max_pos  # transformers' DebertaV2: -1 means max_position_embeddings
    if bucket <= 0:
        out["rows"] += [("Relative offsets (no buckets)", f"±{max_rel:,}")]
        out.update(span=max_rel)
        return
    if max_rel <= bucket // 2 + 1:
        raise ValueError(
            f"max_relative_positions ({max_rel}) contradicts position_buckets ({bucket}): it must exceed "
            f"position_buckets / 2 + 1"
        )
    # only the offsets the chart draws, and the farthest on its own: a table of every offset
    # up to max_relative_positions (100 M allowed) would cost gigabytes to draw 2,001 points
    offsets = np.arange(0, min(max_rel, DEBERTA_OFFSETS_DRAWN) + 1)
    table = posenc.deberta_log_bucket(offsets, bucket_size=bucket, max_position=max_rel)
    last = int(posenc.deberta_log_bucket(np.array([max_rel]), bucket_size=bucket, max_position=max_rel)[0])
    # DeBERTa-v2: the relative embedding table has 2 x att_span rows, att_span = position_buckets
    out.update(span=bucket, offsets=offsets, buckets=table, max_relative=max_rel)
    out["rows"] += [
        ("Position buckets (att_span)", f"{bucket}"),
        ("Exact offsets", f"±{bucket // 2}"),
        ("Offset max_relative_positions lands in bucket", f"{last}"),
        ("Relative embedding rows (2 x att_span)", f"{2 * bucket}"),
    ]
    if max_rel > offsets[-1]:
        out["notes"].append(
            f"the chart shows offsets 0 to {offsets[-1]:,} of 0 to {max_rel:,}: the farther ones go on into "
            f"the log buckets, up to bucket {last} at max_relative_positions"
        )


def _alibi(config: dict, out: dict, found: model_types.ModelType) -> None:
    heads, heads_key = _required(config, "heads", "alibi")
    heads = _int(heads_key, heads, high=MAX_HEADS)
    attn = config.get("attn_config") or {}
    bias_max = attn.get("alibi_bias_max", config.get("alibi_bias_max", 8))
    bias_max = _float("alibi_bias_max", bias_max, high=MAX_ALIBI_BIAS)
    if bias_max == 8:
        slopes = posenc.alibi_slopes(heads)
    else:
        # MPT's generalisation: 2^(-bias_max k / H') over H' = next power of two, every other
        # slope first when H is not a power of two (llm-foundry's gen_slopes)
        padded = 2 ** math.ceil(math.log2(heads))
        all_slopes = 1.0 / 2.0 ** (np.arange(1, padded + 1) * bias_max / padded)
        slopes = all_slopes if padded == heads else np.concatenate([all_slopes[1::2], all_slopes[::2]])[:heads]
    out.update(heads=heads, slopes=slopes, bias_max=bias_max)
    out["rows"] += [
        ("Heads", f"{heads}"),
        ("Steepest slope (head 1)", f"{slopes[0]:.4g}"),
        ("Gentlest slope", f"{slopes.min():.4g}"),
        ("Distance where the gentlest head's bias reaches -1", f"{1 / slopes.min():,.0f} tokens"),
        ("Position parameters learned", "none: ALiBi has no position table and no length limit"),
    ]
    if "max_seq_len" in config:
        out["rows"].append(("Training length (max_seq_len)", f"{_int('max_seq_len', config['max_seq_len']):,}"))


def _rope_scaling(config: dict, notes: list[str]) -> dict | None:
    """The config's rope_scaling as posenc reads it, with the top-level keys some models keep
    beside it (Phi-3's original_max_position_embeddings) moved in; None for plain RoPE.
    Defaults taken from elsewhere in the config are added to ``notes``."""
    # transformers reads rope_scaling first, then rope_parameters (its newer name)
    key = "rope_scaling" if config.get("rope_scaling") else "rope_parameters"
    scaling = config.get(key)
    if scaling is None:
        return None
    if not isinstance(scaling, dict):
        raise ValueError(f"{key} must be an object or null, got {json.dumps(scaling)[:60]}")
    if isinstance(scaling.get("full_attention"), dict):
        # Gemma 3 in transformers v5's format: one dict per attention kind; the full layers' is the
        # scaled one (the sliding layers' base is read as the local base)
        scaling, key = scaling["full_attention"], f"{key}['full_attention']"
    scaling = dict(scaling)
    scaling.pop("partial_rotary_factor", None)  # read with rotary_pct and rotary_dim (_rotated_fraction)
    named = [scaling[k] for k in ("rope_type", "type") if k in scaling]
    if len(named) == 2 and named[0] != named[1]:
        raise ValueError(f"{key}: 'rope_type' ({named[0]!r}) contradicts 'type' ({named[1]!r})")
    rope_type = named[0] if named else "default"
    if rope_type not in ROPE_TYPES:
        raise ValueError(
            f"{key}['rope_type']: unknown rope_type {json.dumps(rope_type)[:40]}; valid: {', '.join(ROPE_TYPES)}"
        )
    scaling.pop("type", None)
    # transformers v5 keeps the base in rope_parameters; posenc takes it as an argument
    scaling.pop("rope_theta", None)
    scaling.pop("mrope_section", None)
    scaling.pop("mrope_interleaved", None)
    scaling["rope_type"] = kind = ROPE_ALIASES.get(rope_type, rope_type)
    if kind == "default" and len(scaling) == 1:
        return None  # {"rope_type": "default"} (transformers v5 writes it) is plain RoPE
    if kind in ("longrope", "yarn", "dynamic") and "original_max_position_embeddings" not in scaling:
        if "original_max_position_embeddings" in config:
            # Phi-3 keeps the training length beside rope_scaling, not in it
            scaling["original_max_position_embeddings"] = config["original_max_position_embeddings"]
        elif kind in ("yarn", "dynamic") and "max_position_embeddings" in config:
            # transformers' YaRN and dynamic NTK then take max_position_embeddings as the training length
            scaling["original_max_position_embeddings"] = config["max_position_embeddings"]
            notes.append(
                f"{key} has no original_max_position_embeddings: transformers takes max_position_embeddings as "
                "the training length"
            )
    if kind == "longrope" and "factor" not in scaling and "max_position_embeddings" in config:
        # transformers' Phi-3: factor = max_position_embeddings / original_max_position_embeddings
        scaling["max_position_embeddings"] = config["max_position_embeddings"]
    return scaling


def _rope_params(config: dict) -> tuple[dict, dict]:
    """The config's RoPE dicts as transformers reads them: (the full layers', the sliding layers')."""
    key = "rope_scaling" if config.get("rope_scaling") else "rope_parameters"
    params = config.get(key)
    if not isinstance(params, dict):
        return {}, {}
    if isinstance(params.get("full_attention"), dict):
        local = params.get("sliding_attention")
        return params["full_attention"], local if isinstance(local, dict) else {}
    return params, {}


def _base(config: dict, out: dict) -> tuple[float, str]:
    """rope_theta as transformers reads it: the RoPE dict's own first, then the top level."""
    params, _ = _rope_params(config)
    if params.get("rope_theta") is not None:
        return params["rope_theta"], "rope_theta (in rope_scaling / rope_parameters)"
    key = next((k for k in ("rope_theta", "rotary_emb_base") if config.get(k) is not None), None)
    if key is not None:
        return config[key], key
    out["notes"].append("rope_theta is not in the config: 10,000 applies, the default of most config classes")
    return 10000.0, "rope_theta"


def _rotated_fraction(config: dict, head_dim: int) -> float | None:
    """The share of each head's dims that rotate, from whichever key the family writes."""
    params, _ = _rope_params(config)
    named = {
        k: v
        for k, v in (
            ("partial_rotary_factor", params.get("partial_rotary_factor", config.get("partial_rotary_factor"))),
            ("rotary_pct", config.get("rotary_pct")),
        )
        if v is not None
    }
    if len(set(map(str, named.values()))) > 1:
        raise ValueError("rotary_pct contradicts partial_rotary_factor: they name the same fraction")
    if config.get("rotary_dim") is not None:
        # GPT-J and CodeGen rotate the first rotary_dim dims of each head
        rotary = _int("rotary_dim", config["rotary_dim"], high=MAX_HEAD_DIM)
        if rotary > head_dim or rotary % 2:
            raise ValueError(f"rotary_dim must be even and at most the head's {head_dim} dims, got {rotary}")
        return rotary / head_dim
    if not named:
        return None
    key, value = next(iter(named.items()))
    fraction = _float(key, value)
    if fraction > 1:
        raise ValueError(f"{key} must be at most 1, got {fraction:g}")
    return fraction


def _rope(config: dict, out: dict, length: int | None, found: model_types.ModelType) -> None:
    base, base_key = _base(config, out)
    base = _float(base_key, base, gt=1.0, high=MAX_ROPE_THETA)
    if config.get("qk_rope_head_dim") is not None:
        # DeepSeek's MLA rotates a separate part of each head, qk_rope_head_dim wide
        head_dim = _int("qk_rope_head_dim", config["qk_rope_head_dim"], high=MAX_HEAD_DIM)
    elif config.get("head_dim") is not None and not found.head_dim_from_width:
        head_dim = _int("head_dim", config["head_dim"], high=MAX_HEAD_DIM)
        _head_dim_note(config, head_dim, out["notes"])
    else:
        width, width_key = _required(config, "width", "rope")
        heads, heads_key = _required(config, "heads", "rope")
        width, heads = _int(width_key, width, high=10_000_000), _int(heads_key, heads, high=MAX_HEADS)
        if width % heads:
            raise ValueError(f"{width_key} ({width}) is not a multiple of {heads_key} ({heads}): give head_dim")
        head_dim = width // heads
        if head_dim > MAX_HEAD_DIM:
            # the same cap as head_dim's: every pair is a point on the chart and a row of numbers
            raise ValueError(
                f"{width_key} / {heads_key} = {width:,} / {heads:,} gives heads of {head_dim:,} dims; a head "
                f"may have 2 to {MAX_HEAD_DIM:,} (or give head_dim)"
            )
    if head_dim % 2:
        raise ValueError(f"head_dim must be even (RoPE turns pairs of dimensions), got {head_dim}")
    scaling = _rope_scaling(config, out["notes"])
    fraction = _rotated_fraction(config, head_dim)
    if fraction is not None and fraction < 1:
        scaling = {**(scaling or {"rope_type": "default"}), "partial_rotary_factor": fraction}
    max_pos_key = next((k for k in ("max_position_embeddings", "max_seq_len", "n_positions") if k in config), None)
    if max_pos_key is None:
        raise ValueError("max_position_embeddings is missing: RoPE's window is read from it")
    max_pos = _int(max_pos_key, config[max_pos_key], high=1_000_000_000)
    rope_type = (scaling or {}).get("rope_type", "default")
    factor = None
    if scaling is not None and scaling.get("factor") is not None:
        factor = scaling["factor"]
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not factor > 0:
            raise ValueError(f"rope_scaling['factor'] must be a number > 0, got {json.dumps(factor)[:40]}")
        if factor > MAX_FACTOR:
            raise ValueError(
                f"rope_scaling['factor'] is too large: it must be > 0 and at most {MAX_FACTOR:,}, got {_shown(factor)}"
            )
    original = (scaling or {}).get("original_max_position_embeddings", config.get("original_max_position_embeddings"))
    if original is not None:
        original = _int("original_max_position_embeddings", original, high=1_000_000_000)
        if original > max_pos:
            raise ValueError(
                f"original_max_position_embeddings ({original:,}) contradicts max_position_embeddings "
                f"({max_pos:,}): the training length cannot exceed the model's longest input"
            )
    # the length the config names and the window the scaling reaches
    # "max": no scaling, the window is max_position_embeddings, the longest position the model accepts
    # (not a training length: Mistral 7B v0.1 accepts 32,768 and was trained at 8,192);
    # "original": the length the scaling starts from, original_max_position_embeddings
    train_len_stated, train_kind = True, "original"
    if rope_type in ("default", "proportional") or scaling is None:
        train_len, extended_len, train_kind = max_pos, max_pos, "max"
    elif original is not None:
        train_len = original
        # a llama3 factor is not a window: its context is max_position_embeddings (Llama 3.2 1B: 131,072,
        # with factor 32 over 8,192); YaRN's and the others' factor stretches the original length
        reach = original * float(factor) if factor and rope_type != "llama3" else max_pos
        extended_len = int(max(max_pos, reach))
    else:
        # linear or NTK without a training length: the scaled window spans what unscaled RoPE
        # reached at max_position_embeddings / factor
        train_len = max(1, int(max_pos / float(factor or 1.0)))
        extended_len, train_len_stated, train_kind = max_pos, False, "unscaled"
        out["notes"].append(
            f"the config gives no training length: {train_len:,} = max_position_embeddings / factor is the "
            "window unscaled RoPE would cover with the same angles"
        )
    # without a stated training length the window is only what the scaled angles map back to
    train_label = {
        "max": "Longest position accepted (max_position_embeddings)",
        "original": "Length the scaling starts from (original_max_position_embeddings)",
        "unscaled": "Unscaled window at the same angles (max / factor)",
    }[train_kind]
    seq = (length or extended_len) if rope_type in ("dynamic", "longrope") else None
    two_pi = 2 * np.pi
    # a base and scaling factors at their limits can overflow a float: computed without a
    # warning in the server's log, then refused by _check_drawable with the keys to change
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        inv_plain, _ = posenc.rope_inv_freq(head_dim, base, plain_scaling(scaling))
        inv, attention_factor = posenc.rope_inv_freq(head_dim, base, scaling, seq_len=seq)
        # a frequency of 0 (p-RoPE's dropped pairs) never turns: an infinite wavelength
        wavelength, scaled = two_pi / inv_plain, two_pi / inv
    _check_drawable(scaled, rope_type)
    pairs = np.arange(inv.size)
    ratio = inv / inv_plain
    rotary = 2 * inv.size
    out.update(
        pairs=pairs,
        wavelength=wavelength,
        scaled_wavelength=scaled,
        ratio=ratio,
        inv_freq=inv,
        train_len=train_len,
        train_stated=train_len_stated,
        train_kind=train_kind,
        extended_len=extended_len,
        max_pos=max_pos,
        attention_factor=attention_factor,
        rope_scaling=scaling,
        head_dim=head_dim,
        rotary_dim=rotary,
        base=base,
        seq_len=seq,
    )
    # what the model runs with up to its original length: plain RoPE, except LongRoPE's short_factor
    trained = wavelength
    if rope_type == "longrope":
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            trained = two_pi / posenc.rope_inv_freq(head_dim, base, scaling, seq_len=train_len)[0]
    out["trained_wavelength"] = trained
    in_train = int(np.sum(trained <= train_len))
    in_ext = int(np.sum(scaled <= extended_len))
    kept = int(np.sum(np.isclose(ratio, 1.0, rtol=1e-12, atol=0)))
    out["rows"] += [
        ("rope_type", rope_type + (" (M-RoPE: transformers reads it as default)" if "mrope" in _named(config) else "")),
        ("Base (rope_theta)", f"{base:,.0f}"),
        (
            "Rotated dims of a head",
            f"{rotary} of {head_dim}" if scaling and "partial_rotary_factor" in scaling else f"{rotary}",
        ),
        ("Rotary pairs", f"{inv.size}"),
        (train_label, f"{train_len:,}"),
        ("Extended window", f"{extended_len:,}"),
        (
            {
                "max": "Pairs that turn fully within max_position_embeddings",
                "original": "Pairs that turn fully within original_max_position_embeddings",
                "unscaled": "Pairs that turn fully in the unscaled window",
            }[train_kind]
            + (" (with short_factor, which LongRoPE uses up to that length)" if rope_type == "longrope" else ""),
            f"{in_train} of {inv.size}",
        ),
        ("Pairs that turn fully in the extended window, scaled", f"{in_ext} of {inv.size}"),
        ("Pairs the scaling leaves unchanged", f"{kept} of {inv.size}"),
        ("Longest wavelength, unscaled -> scaled", f"{wavelength.max():,.0f} -> {scaled.max():,.0f}"),
        ("Attention factor (multiplies cos and sin)", f"{attention_factor:.4f}"),
    ]
    model_type = str(config.get("model_type", "")).lower()
    scale_all = (
        (config.get("rope_scaling") or {}).get("mscale_all_dim")
        if isinstance(config.get("rope_scaling"), dict)
        else None
    )
    if model_type.startswith("deepseek") and scale_all and factor:
        # transformers' DeepseekV3Attention multiplies its softmax scale by mscale(factor, mscale_all_dim)^2
        extra = (0.1 * float(scale_all) * math.log(float(factor)) + 1.0) ** 2
        out["softmax_scale_factor"] = extra
        out["rows"].append(("Softmax scale also multiplied by (DeepSeek attention)", f"{extra:.4f}"))
    _, local_params = _rope_params(config)
    local = local_params.get("rope_theta", config.get("rope_local_base_freq"))
    if local is not None:
        local = _float("rope_local_base_freq", local, gt=1.0, high=MAX_ROPE_THETA)
        out["local_base"] = local
        out["rows"].append(("Sliding-window layers' base (unscaled)", f"{local:,.0f}"))
    if length is not None:
        out["in_length"] = int(np.sum(scaled <= length))
        out["rows"].append((f"Pairs that turn fully within L = {length:,}", f"{out['in_length']} of {inv.size}"))
    _mrope(config, out, inv.size)


def _check_drawable(scaled: np.ndarray, rope_type: str) -> None:
    """Refuse scaled wavelengths past ``MAX_WAVELENGTH`` (or not numbers): a base and a scaling
    whose product overflows what the chart can draw."""
    # p-RoPE's dropped pairs never turn (an infinite wavelength, drawn as no point); nothing else may
    never = np.isinf(scaled) & (rope_type == "proportional")
    too_long = ~never & ~(scaled <= MAX_WAVELENGTH)
    if too_long.any():
        pair = int(np.argmax(too_long))
        raise ValueError(
            f"rope_theta with this rope_scaling gives pair {pair} a wavelength of {_shown(float(scaled[pair]))} "
            f"tokens; the chart draws at most {MAX_WAVELENGTH:g}: lower rope_theta or the scaling's factors"
        )


def _head_dim_note(config: dict, head_dim: int, notes: list[str]) -> None:
    """Say which head size is used when head_dim contradicts hidden_size / num_attention_heads."""
    width, width_key = _get(config, "width")
    heads, heads_key = _get(config, "heads")
    try:
        width, heads = _int(width_key, width, high=10_000_000), _int(heads_key, heads, high=MAX_HEADS)
    except ValueError:
        return  # no width and heads to compare with (or none this lesson reads): nothing contradicts
    if width == head_dim * heads:
        return
    # Gemma 3 and gpt-oss do this on purpose: transformers' attention takes head_dim as given
    quotient = f"{width / heads:.2f}".rstrip("0").rstrip(".")
    notes.append(
        f"head_dim {head_dim} is used, not {width_key} / {heads_key} = {width} / {heads} = {quotient}: "
        "transformers uses head_dim when the config gives it"
    )


def _named(config: dict) -> str:
    scaling = config.get("rope_scaling")
    if isinstance(scaling, dict):
        return str(scaling.get("rope_type", scaling.get("type", "")))
    return ""


def plain_scaling(scaling: dict | None) -> dict | None:
    """The same rotated dims without any context extension: what the model trained with."""
    # p-RoPE keeps every pair (its slow ones stop turning): trained against plain RoPE on all of them
    if scaling and "partial_rotary_factor" in scaling and scaling.get("rope_type") != "proportional":
        return {"rope_type": "default", "partial_rotary_factor": scaling["partial_rotary_factor"]}
    return None


def _mrope(config: dict, out: dict, n_pairs: int) -> None:
    scaling = config.get("rope_scaling", config.get("rope_parameters"))
    section = scaling.get("mrope_section") if isinstance(scaling, dict) else None
    if section is None:
        return
    if not (isinstance(section, list) and len(section) == 3 and all(isinstance(s, int) and s >= 0 for s in section)):
        raise ValueError(f"rope_scaling['mrope_section'] must be 3 whole numbers, got {json.dumps(section)[:60]}")
    if sum(section) != n_pairs:
        raise ValueError(
            f"rope_scaling['mrope_section'] {section} sums to {sum(section)}, but the head has {n_pairs} rotary pairs"
        )
    out["mrope_section"] = tuple(section)
    t, h, w = section
    out["rows"].append(("M-RoPE: pairs turned by time, height, width", f"{t}, {h}, {w}"))


def _layers(config: dict, out: dict, found: model_types.ModelType) -> None:
    """Each layer's attention (full, sliding, chunked) and NoPE layers, as the model type reads
    them, and the sliding layers' reach."""
    layers, layers_key = _get(config, "layers")
    if layers is None:
        return
    n = _int(layers_key, layers, high=MAX_LAYERS)
    out["layers"] = n
    nope = _nope_layers(config, n, layers_key, found)
    types = config.get("layer_types")
    if types is not None:
        if not (isinstance(types, list) and all(isinstance(t, str) for t in types)):
            raise ValueError("layer_types must be a list of strings")
        if len(types) != n:
            raise ValueError(f"layer_types has {len(types)} entries, but {layers_key} is {n}")
        attention = [_kind(t) for t in types]
    elif found.layers == "chunked":
        # Llama 4: the RoPE layers attend within chunks, the NoPE layers to everything
        attention = ["full" if flag else "chunked" for flag in (nope or [False] * n)]
    else:
        if config.get("sliding_window_pattern") is not None:
            _int("sliding_window_pattern", config["sliding_window_pattern"], high=MAX_LAYERS)
        if found.layers == "from_max_window" and config.get("max_window_layers") is not None:
            _int("max_window_layers", config["max_window_layers"], low=0, high=MAX_LAYERS)
        attention = model_types.layer_attention(found, config, n) or ["full"] * n
        file_window = out["config"].get("sliding_window") is not None
        if found.layers == "from_max_window" and file_window and not config.get("use_sliding_window"):
            out["notes"].append("sliding_window is set but use_sliding_window is false: every layer sees everything")
    out["attention_kinds"] = attention
    window = config.get("sliding_window") if "sliding" in attention else None
    if window is not None:
        window = _int("sliding_window", window, high=1_000_000_000)
        sliding = attention.count("sliding")
        out.update(window=window, sliding_layers=sliding)
        out["rows"] += [
            ("Sliding window", f"{window:,} tokens in {sliding} of {n} layers"),
            (
                "Reach of the sliding layers alone, (window - 1) x layers + 1",
                f"{window_reach(window, sliding):,} positions, the token's own included"
                if sliding == n
                else f"{window:,} per sliding layer; the {n - sliding} full layers see everything",
            ),
        ]
    kinds = attention
    if nope is not None:
        out["nope_layers"] = [i for i, flag in enumerate(nope) if flag]
        out["rows"].append(("Layers without positions (NoPE)", f"{sum(nope)} of {n}"))
        kinds = ["NoPE" if flag else attention[i] for i, flag in enumerate(nope)]
    if "chunked" in attention:
        chunk = config.get("attention_chunk_size")
        chunk = "" if chunk is None else f" of {_int('attention_chunk_size', chunk, high=1_000_000_000):,} tokens"
        out["rows"].append(("Chunked attention in the RoPE layers", f"chunks{chunk}"))
    if kinds != ["full"] * n:
        out["layer_kinds"] = kinds
        if out["method"] == "rope":
            sees_all = [1.0 if a == "full" else 0.0 for a in attention]
            out["layer_grid"] = np.array([sees_all, [0.0 if k == "NoPE" else 1.0 for k in kinds]])


def window_reach(window: int, layers: int) -> int:
    """How many positions a token can draw on through ``layers`` sliding layers of ``window`` tokens
    each, itself included: (window - 1) x layers + 1, ``posenc.window_receptive_field``, the count the
    choices lesson's window view checks by following the masks (one convention across the app)."""
    return posenc.window_receptive_field(window, layers)


def _kind(layer_type: str) -> str:
    # transformers' names: "sliding_attention", "full_attention", "chunked_attention"
    if "sliding" in layer_type:
        return "sliding"
    return "chunked" if "chunked" in layer_type else "full"


def _nope_layers(config: dict, n: int, layers_key: str, found: model_types.ModelType) -> list[bool] | None:
    """Which layers have no positions, or None when the model type has no NoPE layers."""
    flags = config.get("no_rope_layers")
    if flags:
        if not (isinstance(flags, list) and len(flags) == n and all(v in (0, 1) for v in flags)):
            raise ValueError(f"no_rope_layers must hold {n} entries of 0 or 1 ({layers_key} is {n})")
        # transformers' Llama4TextConfig: 1 = this layer uses RoPE, 0 = NoPE
        return [not v for v in flags]
    if flags is not None and not isinstance(flags, list):
        raise ValueError(f"no_rope_layers must be a list of 0 or 1, got {json.dumps(flags)[:60]}")
    if config.get("no_rope_layer_interval") is None or not (found.nope_interval or found is model_types.UNKNOWN):
        return None
    # Llama4TextConfig: an empty or missing no_rope_layers means one NoPE layer every interval
    interval = _int("no_rope_layer_interval", config["no_rope_layer_interval"], high=MAX_LAYERS)
    return [t == "nope" for t in irope_layer_types(n, interval)]


def turning_share(config: dict, length: int) -> float:
    """The share of a RoPE model's rotary pairs that turn fully within ``length`` tokens, with
    the config's scaling (a pair turns fully when its wavelength 2π/θ is at most the length)."""
    out = positions(config, length)
    if out["method"] != "rope":
        raise ValueError("turning_share needs a RoPE config")
    return out["in_length"] / out["pairs"].size
