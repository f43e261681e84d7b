"""The NumPy training experiment: gradients, learning, reproducibility, honesty."""

import math

import numpy as np
import pytest
from finite_differences import assert_gradients_match

from posenc import PositionOutOfRange
from posenc import experiment as ex
from posenc_lab.lessons.design import measure as custom

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
    assert_gradients_match(params, grads, lambda: ex.loss_and_grads(params, method, cfg, x, y, valid)[0], rng)


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


@pytest.mark.slow
def test_training_loss_falls_on_the_default_setting(default_run):
    for method in ("learned", "rope"):
        losses = default_run["losses"][method]
        assert losses[-10:].mean() < 0.5 * losses[:10].mean(), method


@pytest.mark.slow
def test_learned_positions_have_no_number_past_max_len(default_run):
    accuracy = default_run["accuracy"]["learned"]
    assert accuracy[0] is not None and accuracy[1:] == [None, None, None]


@pytest.mark.slow
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


# a seventh method of the user's own (posenc.custom makes them from a design)


def _custom_methods(cfg):
    return {
        "binary table": custom.experiment_method(custom.EncodingSpec(kind="binary", bits=3), cfg),
        "ramp table": custom.experiment_method(custom.EncodingSpec(kind="ramp", ramp="position"), cfg),
        "random rotary": custom.experiment_method(
            custom.EncodingSpec(kind="random", placement="rotary", length_scale=2.0), cfg
        ),
    }


@pytest.mark.parametrize("task", ex.EXPERIMENT_TASKS)
@pytest.mark.parametrize("which", ["binary table", "ramp table", "random rotary"])
def test_hand_written_gradients_match_finite_differences_for_custom_methods(task, which):
    cfg = ex.ExperimentConfig(task=task, **SMALL)
    method = _custom_methods(cfg)[which]
    rng = np.random.default_rng(11)
    params = ex.init_params(cfg, method, rng)
    assert set(params) == {"E", "Wq", "Wk", "Wv", "bq", "bk", "Wo", "bo"}, "a custom encoding has nothing to train"
    x, y, valid = ex.make_batch(cfg, 3, 8, rng)
    _, grads = ex.loss_and_grads(params, method, cfg, x, y, valid)
    assert_gradients_match(
        params, grads, lambda: ex.loss_and_grads(params, method, cfg, x, y, valid)[0], rng, label=(which,)
    )


def test_a_custom_copy_of_a_classic_gives_exactly_its_numbers():
    cfg = ex.ExperimentConfig(steps=20, train_len=16)
    copies = [
        # the experiment adds sqrt(2) times the paper's table; RoPE turns by base 10000
        custom.experiment_method(custom.EncodingSpec(amplitude=math.sqrt(2.0)), cfg, name="my sinusoid"),
        custom.experiment_method(custom.EncodingSpec(placement="rotary"), cfg, name="my rope"),
    ]
    run = ex.run_experiment(cfg, methods=("sinusoidal", "rope", *copies))
    for classic, mine in (("sinusoidal", "my sinusoid"), ("rope", "my rope")):
        assert np.array_equal(run["losses"][mine], run["losses"][classic]), classic
        assert run["accuracy"][mine] == run["accuracy"][classic]
    # another encoding from the same start gives other numbers
    other = custom.experiment_method(custom.EncodingSpec(kind="binary"), cfg, name="clock")
    clock = ex.run_experiment(cfg, methods=(other,))
    assert not np.array_equal(clock["losses"]["clock"], run["losses"]["sinusoidal"])
    assert list(clock["accuracy"]) == ["clock"]


def test_custom_methods_are_checked():
    cfg = ex.ExperimentConfig(**SMALL)
    with pytest.raises(ValueError, match="exactly one"):
        ex.CustomMethod()
    with pytest.raises(ValueError, match="exactly one"):
        ex.CustomMethod(table=lambda p: p, inv_freq=[1.0])
    with pytest.raises(ValueError, match="name"):
        ex.CustomMethod(name="rope", inv_freq=[1.0, 0.5])
    wrong_width = ex.CustomMethod(table=lambda p: np.zeros((p.size, 3)))
    x, y, valid = ex.make_batch(cfg, 2, 8, np.random.default_rng(0))
    params = ex.init_params(cfg, wrong_width, np.random.default_rng(0))
    with pytest.raises(ValueError, match="shape"):
        ex.loss_and_grads(params, wrong_width, cfg, x, y, valid)
    with pytest.raises(ValueError, match="head_dim"):
        ex.loss_and_grads(params, ex.CustomMethod(inv_freq=[1.0, 0.5, 0.2]), cfg, x, y, valid)
    twice = ex.CustomMethod(name="twice", inv_freq=[1.0, 0.5])
    with pytest.raises(ValueError, match="distinct"):
        ex.run_experiment(cfg, methods=(twice, twice))


def test_a_rotary_custom_method_is_translation_invariant_and_an_added_one_is_not():
    cfg = ex.ExperimentConfig(steps=10, train_len=16)
    tokens = np.arange(10) % cfg.vocab
    for spec, invariant in (
        (custom.EncodingSpec(kind="random", placement="rotary"), True),
        (custom.EncodingSpec(), False),
    ):
        method = custom.experiment_method(spec, cfg)
        result = ex.train(cfg, method)
        moved = ex.attention_scores(result, cfg, method, tokens, 13)
        change = np.abs(moved - ex.attention_scores(result, cfg, method, tokens, 0)).max()
        assert (change < 1e-9) == invariant, (spec.placement, change)


# longer runs: float32 above FLOAT64_MAX_TRAIN_LEN, chunked evaluation, the loss per answer


def test_runs_up_to_32_tokens_stay_float64_and_longer_ones_train_in_float32():
    assert ex.compute_dtype(ex.ExperimentConfig(train_len=32)) is np.float64
    assert ex.compute_dtype(ex.ExperimentConfig(train_len=36)) is np.float32
    long = ex.train(ex.ExperimentConfig(train_len=100, batch=4, steps=2, offset=3), "rope")
    assert long.params["Wq"].dtype == np.float32
    assert ex.train(ex.ExperimentConfig(train_len=32, steps=2), "rope").params["Wq"].dtype == np.float64


@pytest.mark.parametrize("task", ex.EXPERIMENT_TASKS)
@pytest.mark.parametrize("method", ex.EXPERIMENT_METHODS)
def test_float32_gradients_agree_with_the_checked_float64_ones(task, method):
    cfg = ex.ExperimentConfig(task=task, **SMALL)
    rng = np.random.default_rng(3)
    params = ex.init_params(cfg, method, rng)
    if method == "t5":
        params["T5"] = rng.normal(0, 1, params["T5"].shape)
    x, y, valid = ex.make_batch(cfg, 3, 8, rng)
    loss64, grads64 = ex.loss_and_grads(params, method, cfg, x, y, valid)
    single = {k: v.astype(np.float32) for k, v in params.items()}
    loss32, grads32 = ex.loss_and_grads(single, method, cfg, x, y, valid)
    assert loss32 == pytest.approx(loss64, rel=1e-5)
    for name, g in grads64.items():
        assert grads32[name].dtype == np.float32, name
        np.testing.assert_allclose(grads32[name], g, rtol=1e-3, atol=1e-6, err_msg=name)


def test_float32_training_reaches_the_float64_accuracy_within_noise():
    cfg = ex.ExperimentConfig(train_len=16, d_model=16, steps=150)
    for method in ("rope", "alibi", "t5", "learned"):
        doubles, singles = ex.train(cfg, method, dtype=np.float64), ex.train(cfg, method, dtype=np.float32)
        for n in (16, 32):
            a64, a32 = ex.evaluate(doubles, cfg, method, n), ex.evaluate(singles, cfg, method, n)
            if a64 is None:
                assert a32 is None
                continue
            # 32 sequences of 16 or 32 answers: a few answers may flip, not the result
            assert a32 == pytest.approx(a64, abs=0.03), (method, n)
        np.testing.assert_allclose(singles.losses[:20], doubles.losses[:20], rtol=1e-4)


def test_evaluation_in_chunks_gives_the_numbers_of_one_pass(monkeypatch):
    cfg = ex.ExperimentConfig(train_len=8, d_model=16, steps=20)
    result = ex.train(cfg, "alibi")
    whole = [(ex.evaluate(result, cfg, "alibi", n), ex.evaluate_loss(result, cfg, "alibi", n)) for n in (8, 40)]
    monkeypatch.setattr(ex, "EVAL_CHUNK_ELEMENTS", 4 * 40 * 40 * 3)  # 3 sequences a chunk at 40
    parts = [(ex.evaluate(result, cfg, "alibi", n), ex.evaluate_loss(result, cfg, "alibi", n)) for n in (8, 40)]
    for (a, la), (b, lb) in zip(whole, parts, strict=True):
        assert a == b and la == pytest.approx(lb, rel=1e-12)


def test_the_test_loss_of_a_model_that_says_nothing_is_log_vocab():
    cfg = ex.ExperimentConfig(train_len=8, steps=1)
    result = ex.train(cfg, "rope")
    result.params["Wo"][:] = 0.0
    result.params["bo"][:] = 0.0  # every logit 0: a uniform guess
    assert ex.evaluate_loss(result, cfg, "rope", 24) == pytest.approx(math.log(cfg.vocab), rel=1e-12)
    assert ex.evaluate_loss(ex.train(cfg, "learned"), cfg, "learned", 16) is None


def test_train_at_100_test_at_200_is_a_setting():
    cfg = ex.ExperimentConfig(train_len=100, batch=4, eval_batch=4, steps=3, multipliers=(1, 2, 10))
    run = ex.run_experiment(cfg, methods=("alibi", "learned"))
    assert run["lengths"] == [100, 200, 1000]
    assert all(0.0 <= a <= 1.0 for a in run["accuracy"]["alibi"])
    assert run["accuracy"]["learned"][1:] == [None, None]


def test_initial_params_are_where_training_starts():
    # Adam moves each weight by at most about lr per step, so after 10 steps the trained table
    # lies within 10 lr of its start; another seed's start is a fresh draw, far away
    cfg = ex.ExperimentConfig(task="copy", train_len=8, d_model=8, n_heads=2, steps=10, seed=3)
    start = ex.initial_params(cfg, "learned")
    trained = ex.train(cfg, "learned").params
    assert set(start) == set(trained)
    assert np.abs(trained["P"] - start["P"]).max() <= 10 * cfg.lr * 1.001
    other = ex.initial_params(ex.ExperimentConfig(task="copy", train_len=8, d_model=8, n_heads=2, steps=10), "learned")
    assert np.abs(other["P"] - start["P"]).max() > 10 * cfg.lr
    # each method has its stream: the same seed gives another table to another method
    np.testing.assert_array_equal(ex.initial_params(cfg, "learned")["P"], start["P"])
    assert not np.allclose(ex.initial_params(cfg, "sinusoidal")["E"], start["E"])
