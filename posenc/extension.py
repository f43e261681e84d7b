"""Context extension measured: a RoPE model trained at L, tested at 2L, 4L and 8L.

The model of ``posenc.experiment`` is trained with RoPE at ``train_len`` L, then tested
longer four ways without any further training:

==================  ===========================================================
"unchanged"         RoPE as trained (direct extrapolation)
"pi"                position interpolation (Chen et al. 2023): rope_type "linear",
                    factor s = test length / L, every frequency divided by s
"ntk"               NTK-aware scaling (bloc97 2023): rope_type "ntk", base times
                    s^(Dh/(Dh-2)); the same frequencies as transformers' "dynamic"
                    rope_type with factor 1 at seq_len = s L
"yarn"              YaRN (Peng et al. 2023): rope_type "yarn", factor s,
                    original_max_position_embeddings L; its attention factor
                    multiplies cos and sin (the logits by its square)
==================  ===========================================================

and two more after a short fine-tune: the trained weights trained on for a few steps at
length 2L with PI ("pi_finetuned") or YaRN ("yarn_finetuned") at factor 2, and tested
with that same factor 2 at every length, as a fine-tuned model is used.

Every scaled frequency and attention factor comes from ``posenc.rope.rope_inv_freq``
(the ``ROPE_VARIANTS`` registry, exact to transformers by its snapshot tests); nothing
is re-derived here. Shapes: Dh head width, as in ``posenc``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, replace

import numpy as np

from ._checks import as_choice, as_float, as_int
from .experiment import CustomMethod, ExperimentConfig, TrainResult, _test_metrics, train
from .rope.frequencies import rope_inv_freq

__all__ = [
    "EXTENSION_WAYS",
    "FINETUNE_FACTOR",
    "WAY_NAMES",
    "extension_method",
    "extension_scaling",
    "finetune_config",
    "paper_comparison",
    "run_extension",
]

#: the ways a trained RoPE model is tested longer, in table order
EXTENSION_WAYS = ("unchanged", "pi", "ntk", "yarn", "pi_finetuned", "yarn_finetuned")
#: display names
WAY_NAMES = {
    "unchanged": "unchanged",
    "pi": "PI",
    "ntk": "NTK-aware",
    "yarn": "YaRN",
    "pi_finetuned": "PI, fine-tuned at 2L",
    "yarn_finetuned": "YaRN, fine-tuned at 2L",
}
#: the fine-tune doubles the context: length 2L, scaling factor 2
FINETUNE_FACTOR = 2
_ROPE_TYPE = {"pi": "linear", "ntk": "ntk", "yarn": "yarn"}


def extension_scaling(way: str, factor: float, train_len: int) -> dict | None:
    """The ``rope_scaling`` dict (transformers' format) of a way at ``factor``.

    Parameters
    ----------
    way : one of ``EXTENSION_WAYS`` ("pi_finetuned" is "pi" at its factor, and so on)
    factor : float >= 1
    train_len : int >= 2, the training length L (YaRN's original_max_position_embeddings)

    Returns
    -------
    dict, or None for "unchanged" (plain RoPE).
    """
    way = as_choice("way", way, EXTENSION_WAYS)
    factor = as_float("factor", factor, ge=1.0)
    train_len = as_int("train_len", train_len, min_value=2)
    base_way = way.removesuffix("_finetuned")
    if base_way == "unchanged":
        return None
    scaling = {"rope_type": _ROPE_TYPE[base_way], "factor": factor}
    if base_way == "yarn":
        scaling["original_max_position_embeddings"] = train_len
    return scaling


def extension_method(way: str, cfg: ExperimentConfig, factor: float) -> CustomMethod | str:
    """The rotation a way uses at ``factor``: "rope" for "unchanged", else a CustomMethod
    whose inv_freq (Dh/2,) and attention_factor are ``rope_inv_freq``'s for
    ``extension_scaling(way, factor, cfg.train_len)``."""
    if not isinstance(cfg, ExperimentConfig):
        raise ValueError(f"cfg must be an ExperimentConfig, got {type(cfg).__name__}")
    scaling = extension_scaling(way, factor, cfg.train_len)
    if scaling is None:
        return "rope"
    inv_freq, attention_factor = rope_inv_freq(cfg.head_dim, rope_scaling=scaling)
    return CustomMethod(name=f"{way} x{factor:g}", inv_freq=inv_freq, attention_factor=attention_factor)


def finetune_config(cfg: ExperimentConfig, steps: int) -> ExperimentConfig:
    """The fine-tune's settings: length 2L, ``steps`` steps, half the sequences per batch
    (the same number of tokens per step), everything else as ``cfg``."""
    if not isinstance(cfg, ExperimentConfig):
        raise ValueError(f"cfg must be an ExperimentConfig, got {type(cfg).__name__}")
    steps = as_int("finetune_steps", steps, min_value=1, max_value=3000)
    return replace(
        cfg, train_len=FINETUNE_FACTOR * cfg.train_len, steps=steps, batch=max(1, cfg.batch // FINETUNE_FACTOR)
    )


def run_extension(
    cfg: ExperimentConfig,
    *,
    finetune_steps: int = 100,
    trained: TrainResult | None = None,
    on_progress: Callable[[float, str], None] | None = None,
) -> dict:
    """Train RoPE at ``cfg.train_len`` (or take ``trained``), test it at each multiple in
    ``cfg.multipliers`` every way, fine-tune at 2L, test again.

    Parameters
    ----------
    cfg : ExperimentConfig, the "rope" run's settings; ``multipliers`` are the test lengths
    finetune_steps : int, 1..3000, steps of each fine-tune at length 2L
    trained : TrainResult or None
        ``train(cfg, "rope")``'s result, when it has been made already (it is not checked
        against ``cfg``: pass the one made with it).
    on_progress : callable(fraction done in [0, 1], message) or None

    Returns
    -------
    dict with ``config`` (settings), ``finetune_steps``, ``lengths`` (test lengths),
    ``factors`` (test length / L, the no-fine-tune factor at each), ``accuracy`` and
    ``loss`` {way: [value per length]} (loss: mean cross-entropy in nats per answer),
    ``attention_factor`` {way: [value per length]}, ``finetune_losses`` {way: per-step
    loss}, ``chance`` and ``results`` {"rope", "pi_finetuned", "yarn_finetuned": TrainResult}.
    """
    if not isinstance(cfg, ExperimentConfig):
        raise ValueError(f"cfg must be an ExperimentConfig, got {type(cfg).__name__}")
    ft_cfg = finetune_config(cfg, finetune_steps)
    if trained is not None and not isinstance(trained, TrainResult):
        raise ValueError(f"trained must be a TrainResult or None, got {type(trained).__name__}")
    lengths = [cfg.train_len * m for m in cfg.multipliers]
    # work in units of one training step at L (a step at 2L costs about two, with half the batch)
    work = (0 if trained else cfg.steps) + 2 * 2 * finetune_steps + len(EXTENSION_WAYS) * len(lengths)
    done = 0

    def report(units: float, message: str) -> None:
        nonlocal done
        done += units
        if on_progress is not None:
            on_progress(min(done / work, 1.0), message)

    if trained is None:
        report(0, "training RoPE")
        trained = train(cfg, "rope", on_step=lambda step: step % 25 == 24 and report(25, "training RoPE"))
        done = cfg.steps
    results = {"rope": trained}
    finetune_losses = {}
    for way in ("pi_finetuned", "yarn_finetuned"):
        method = extension_method(way, cfg, FINETUNE_FACTOR)
        label = f"fine-tuning {WAY_NAMES[way].split(',')[0]} at {ft_cfg.train_len}"
        report(0, label)
        results[way] = train(
            ft_cfg, method, params=trained.params, on_step=lambda step, m=label: step % 10 == 9 and report(20, m)
        )
        finetune_losses[way] = results[way].losses
    accuracy, loss, attention = {}, {}, {}
    for way in EXTENSION_WAYS:
        accuracy[way], loss[way], attention[way] = [], [], []
        model = results.get(way, trained)
        for n in lengths:
            factor = FINETUNE_FACTOR if way in results else max(n / cfg.train_len, 1.0)
            method = extension_method(way, cfg, factor)
            acc, nll = _test_metrics(model, cfg, method, n)
            accuracy[way].append(acc)
            loss[way].append(nll)
            attention[way].append(1.0 if isinstance(method, str) else method.attention_factor)
            report(1, f"testing {WAY_NAMES[way]} at {n}")
    if on_progress is not None:
        on_progress(1.0, "done")
    return dict(
        config=asdict(cfg),
        finetune_steps=finetune_steps,
        lengths=lengths,
        factors=[n / cfg.train_len for n in lengths],
        accuracy=accuracy,
        loss=loss,
        attention_factor=attention,
        finetune_losses=finetune_losses,
        chance=1 / cfg.vocab if cfg.task == "copy" else 1 / cfg.n_markers,
        results=results,
    )


#: a difference of accuracy smaller than this is not called better or worse: test
#: sequences are a sample (the default run scores thousands of answers per length, where
#: a binomial standard error is under 1 point)
TIE = 0.02


def paper_comparison(run: dict) -> list[dict[str, str]]:
    """What the PI and YaRN papers report, set against this run's numbers.

    Parameters
    ----------
    run : dict from ``run_extension`` (or the same keys: lengths, accuracy, chance, config)
        Its lengths must start at the training length L and include 2L.

    Returns
    -------
    list of {"claim", "source", "measured", "verdict"}, verdict "agrees" or "disagrees";
    every figure in "measured" is taken from ``run``.
    """
    try:
        lengths, accuracy, chance = list(run["lengths"]), run["accuracy"], float(run["chance"])
    except (TypeError, KeyError) as err:
        raise ValueError(f"run must be the dict run_extension returns, missing {err}") from None
    train_len = int(run["config"]["train_len"])
    if not lengths or lengths[0] != train_len or FINETUNE_FACTOR * train_len not in lengths:
        raise ValueError(f"run['lengths'] must start at the training length {train_len} and include 2L, got {lengths}")
    i2 = lengths.index(FINETUNE_FACTOR * train_len)
    longer = list(range(1, len(lengths)))
    beyond = [i for i in longer if lengths[i] > FINETUNE_FACTOR * train_len] or [i2]
    at_l = accuracy["unchanged"][0]

    def mean(way, idx):
        return float(np.mean([accuracy[way][i] for i in idx]))

    def kept(a):  # share of the margin over chance at L that is left
        return (a - chance) / (at_l - chance) if at_l - chance > 1e-12 else 0.0

    def pct(a):
        return f"{a:.0%}"

    rows = []
    last = accuracy["unchanged"][-1]
    rows.append(
        dict(
            claim="Unchanged RoPE breaks down past the training length.",
            source="Chen et al. 2023 (PI), abstract: direct extrapolation fails",
            measured=f"{pct(at_l)} at {train_len}, {pct(accuracy['unchanged'][i2])} at {lengths[i2]}, "
            f"{pct(last)} at {lengths[-1]} (chance {pct(chance)}): it keeps {kept(last):.0%} of its margin over "
            "chance at the longest length",
            verdict="agrees" if kept(last) < 0.5 else "disagrees",
        )
    )
    pi2, ft2 = accuracy["pi"][i2], accuracy["pi_finetuned"][i2]
    rows.append(
        dict(
            claim="PI without fine-tuning loses accuracy at the longer length.",
            source="Chen et al. 2023 (PI), who fine-tune every extended model",
            measured=f"PI at {lengths[i2]} without fine-tuning: {pct(pi2)}, against {pct(at_l)} at {train_len}",
            verdict="agrees" if pi2 < at_l - TIE else "disagrees",
        )
    )
    steps = run.get("finetune_steps", "a few")
    recovered = pi2 < at_l - TIE and ft2 - pi2 >= 0.5 * (at_l - pi2)
    rows.append(
        dict(
            claim="A short fine-tune at the longer length recovers PI.",
            source="Chen et al. 2023 (PI), abstract: within 1000 steps",
            measured=f"PI at {lengths[i2]}: {pct(pi2)} before, {pct(ft2)} after {steps} steps at {lengths[i2]}"
            + ("" if pi2 < at_l - TIE else " (nothing was lost to recover)"),
            verdict="agrees" if recovered else "disagrees",
        )
    )
    pi_m, ntk_m, yarn_m = mean("pi", longer), mean("ntk", longer), mean("yarn", longer)
    rows.append(
        dict(
            claim="Without fine-tuning, NTK-aware scaling and YaRN do better than PI.",
            source="Peng et al. 2023 (YaRN), Sec. 3",
            measured=f"mean accuracy from {lengths[1]} to {lengths[-1]}: NTK-aware {pct(ntk_m)}, YaRN {pct(yarn_m)}, "
            f"PI {pct(pi_m)}",
            verdict="agrees" if min(ntk_m, yarn_m) > pi_m + TIE else "disagrees",
        )
    )
    yarn_b, pi_b = mean("yarn_finetuned", beyond), mean("pi_finetuned", beyond)
    past = ", ".join(str(lengths[i]) for i in beyond)
    rows.append(
        dict(
            claim="Fine-tuned with YaRN, a model holds up beyond its fine-tuning length better than with PI.",
            # the abstract claims extrapolation past the fine-tuning data but names no PI; sec. 4.3.1 compares
            source="Peng et al. 2023 (YaRN), sec. 4.3.1, Table 1: both fine-tuned to 8k, at 10,240 tokens PI's "
            "perplexity 8.07, YaRN's 6.04",
            measured=f"after fine-tuning at {lengths[i2]}, mean accuracy at {past}: YaRN {pct(yarn_b)}, PI {pct(pi_b)}",
            verdict="agrees" if yarn_b > pi_b + TIE else "disagrees",
        )
    )
    return rows
