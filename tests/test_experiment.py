"""The NumPy training experiment: gradients, learning, reproducibility, honesty."""

import numpy as np
import pytest

from posenc import PositionOutOfRange
from posenc import experiment as ex

SMALL = dict(train_len=8, d_model=8, n_heads=2, batch=3, vocab=6, offset=2, n_markers=2)


@pytest.mark.parametrize("task", ex.EXPERIMENT_TASKS)
@pytest.mark.parametrize("method", ex.EXPERIMENT_METHODS)
def test_hand_written_gradients_match_finite_differences(task, method):
    cfg = ex.ExperimentConfig(task=task, **SMALL)
    rng = np.random.default_rng(7)
    params = ex.init_params(cfg, method, rng)
    if method == "t5":  # start away from zero so every bucket matters
        params["T5"] = rng.normal(0, 1, params["T5"].shape)
    x, y, valid = ex.make_batch(cfg, 3, 8, rng)
    _, grads = ex.loss_and_grads(params, method, cfg, x, y, valid)
    assert set(grads) == set(params)
    eps = 1e-6
    for name, value in params.items():
        flat = value.reshape(-1)
        for idx in rng.choice(flat.size, min(6, flat.size), replace=False):
            old = flat[idx]
            flat[idx] = old + eps
            up, _ = ex.loss_and_grads(params, method, cfg, x, y, valid)
            flat[idx] = old - eps
            down, _ = ex.loss_and_grads(params, method, cfg, x, y, valid)
            flat[idx] = old
            numeric = (up - down) / (2 * eps)
            assert grads[name].reshape(-1)[idx] == pytest.approx(numeric, rel=1e-4, abs=1e-7), (name, idx)


def test_batches_have_the_right_answers():
    cfg = ex.ExperimentConfig(task="copy", offset=3)
    x, y, valid = ex.make_batch(cfg, 4, 20, np.random.default_rng(0))
    assert np.array_equal(y[:, 3:], x[:, :-3]) and not valid[:, :3].any() and valid[:, 3:].all()
    cfg = ex.ExperimentConfig(task="marker", n_markers=3)
    x, y, valid = ex.make_batch(cfg, 4, 50, np.random.default_rng(0))
    for b in range(4):
        for t in range(50):
            seen = [tok for tok in x[b, : t + 1] if tok < 3]
            assert valid[b, t] == bool(seen)
            if seen:
                assert y[b, t] == seen[-1]


@pytest.fixture(scope="module")
def default_run():
    return ex.run_experiment(ex.ExperimentConfig(steps=150), methods=("none", "learned", "rope", "alibi"))


def test_training_loss_falls_on_the_default_setting(default_run):
    for method in ("learned", "rope"):
        losses = default_run["losses"][method]
        assert losses[-10:].mean() < 0.5 * losses[:10].mean(), method


def test_learned_positions_have_no_number_past_max_len(default_run):
    accuracy = default_run["accuracy"]["learned"]
    assert accuracy[0] is not None and accuracy[1:] == [None, None, None]


def test_without_positions_copying_stays_near_chance_and_with_them_it_is_learned(default_run):
    assert default_run["accuracy"]["none"][0] < 0.4
    assert default_run["accuracy"]["rope"][0] > 0.9


def test_results_are_identical_for_the_same_seed_and_differ_for_another():
    cfg = ex.ExperimentConfig(steps=30, train_len=16)
    a = ex.run_experiment(cfg, methods=("rope", "t5"))
    b = ex.run_experiment(cfg, methods=("rope", "t5"))
    c = ex.run_experiment(ex.ExperimentConfig(steps=30, train_len=16, seed=1), methods=("rope", "t5"))
    assert a["accuracy"] == b["accuracy"]
    assert np.array_equal(a["losses"]["rope"], b["losses"]["rope"])
    assert not np.array_equal(a["losses"]["rope"], c["losses"]["rope"])


def test_attention_scores_are_translation_invariant_only_for_relative_methods(default_run):
    cfg = ex.ExperimentConfig(steps=150)
    tokens = np.arange(10) % cfg.vocab
    for method in ("none", "rope", "alibi"):
        result = default_run["results"][method]
        moved = ex.attention_scores(result, cfg, method, tokens, 17)
        assert np.abs(moved - ex.attention_scores(result, cfg, method, tokens, 0)).max() < 1e-9
    learned = default_run["results"]["learned"]
    at_start = ex.attention_scores(learned, cfg, "learned", tokens, 0)
    assert np.abs(ex.attention_scores(learned, cfg, "learned", tokens, 5) - at_start).max() > 1e-3
    with pytest.raises(PositionOutOfRange):
        ex.attention_scores(learned, cfg, "learned", tokens, cfg.train_len)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"task": "sort"}, "task"),
        ({"train_len": 4}, "train_len"),
        ({"d_model": 30, "n_heads": 4}, "d_model"),
        ({"offset": 32}, "offset"),
        ({"n_markers": 16}, "n_markers"),
        ({"lr": 0.0}, "lr"),
        ({"multipliers": (1, 0)}, "multipliers"),
        ({"steps": 1.5}, "steps"),
    ],
)
def test_config_validation_names_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        ex.ExperimentConfig(**kwargs)
