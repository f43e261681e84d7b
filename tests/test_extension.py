"""The context-extension lab: scaled RoPE from the registry, tested on a trained model."""

from __future__ import annotations

import numpy as np
import pytest
from finite_differences import assert_gradients_match

from posenc import experiment as ex
from posenc import extension as xt
from posenc.rope import rope_cos_sin, rope_inv_freq

SMALL = dict(train_len=8, d_model=8, n_heads=2, batch=3, vocab=6, offset=2, n_markers=2)
#: a run small enough for every test here (tiny model, few steps), fixed by its seed
TINY = ex.ExperimentConfig(train_len=8, steps=60, d_model=16)


@pytest.fixture(scope="module")
def lab():
    return xt.run_extension(TINY, finetune_steps=40)


# what comes from the registry


@pytest.mark.parametrize("head_dim", [4, 8, 16])
@pytest.mark.parametrize("factor", [1.0, 2.0, 4.0, 8.0, 10.0])
def test_each_way_uses_the_registrys_frequencies_and_attention_factor(head_dim, factor):
    cfg = ex.ExperimentConfig(d_model=4 * head_dim, n_heads=4, train_len=16)
    expected = {
        "pi": {"rope_type": "linear", "factor": factor},
        "ntk": {"rope_type": "ntk", "factor": factor},
        "yarn": {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": 16},
    }
    for way, scaling in expected.items():
        for name in (way, f"{way}_finetuned"):
            if name == "ntk_finetuned":
                continue
            method = xt.extension_method(name, cfg, factor)
            inv_freq, attention = rope_inv_freq(head_dim, rope_scaling=scaling)
            assert np.array_equal(method.inv_freq, inv_freq), name
            assert method.attention_factor == attention, name
    assert xt.extension_method("unchanged", cfg, factor) == "rope"


def test_yarns_attention_factor_is_the_papers_temperature():
    cfg = ex.ExperimentConfig(train_len=16)
    for s in (2.0, 4.0, 8.0):
        assert xt.extension_method("yarn", cfg, s).attention_factor == pytest.approx(0.1 * np.log(s) + 1, rel=1e-15)
        assert xt.extension_method("pi", cfg, s).attention_factor == 1.0


@pytest.mark.parametrize("factor", [2.0, 4.0, 8.0])
def test_ntk_is_transformers_dynamic_formula_at_the_test_length(factor):
    static, _ = rope_inv_freq(8, rope_scaling={"rope_type": "ntk", "factor": factor})
    dynamic, _ = rope_inv_freq(
        8,
        rope_scaling={"rope_type": "dynamic", "factor": 1.0, "original_max_position_embeddings": 32},
        seq_len=int(32 * factor),
    )
    np.testing.assert_allclose(static, dynamic, rtol=1e-15)
    # and it leaves the fastest pair alone while the slowest is slowed by the factor
    plain, _ = rope_inv_freq(8)
    assert static[0] == plain[0] and static[-1] == pytest.approx(plain[-1] / factor, rel=1e-12)


# properties


@pytest.mark.parametrize("head_dim", [4, 8, 16])
def test_at_factor_one_every_way_is_unchanged_rope(head_dim):
    cfg = ex.ExperimentConfig(d_model=4 * head_dim, n_heads=4, train_len=32)
    plain, _ = rope_inv_freq(head_dim)
    for way in ("pi", "ntk", "yarn"):
        method = xt.extension_method(way, cfg, 1.0)
        assert np.array_equal(method.inv_freq, plain) and method.attention_factor == 1.0, way


def test_at_the_training_length_every_scaled_way_scores_what_unchanged_does(lab):
    first = lab["accuracy"]["unchanged"][0]
    for way in ("pi", "ntk", "yarn"):
        assert lab["accuracy"][way][0] == first, way
        assert lab["loss"][way][0] == lab["loss"]["unchanged"][0], way


@pytest.mark.parametrize("s", [2, 4, 8])
def test_pi_turns_position_s_times_p_as_unchanged_turns_p(s):
    cfg = ex.ExperimentConfig(train_len=32)
    pi = xt.extension_method("pi", cfg, float(s))
    plain, _ = rope_inv_freq(cfg.head_dim)
    p = np.arange(32)
    for scaled, original in zip(rope_cos_sin(s * p, pi.inv_freq), rope_cos_sin(p, plain), strict=True):
        assert np.array_equal(scaled, original)  # powers of two: exactly the same angles


def test_unchanged_is_the_experiments_rope_row_and_the_run_is_deterministic(lab):
    run = ex.run_experiment(TINY, methods=("rope",))
    assert lab["accuracy"]["unchanged"] == run["accuracy"]["rope"]
    again = xt.run_extension(TINY, finetune_steps=40, trained=run["results"]["rope"])
    assert again["accuracy"] == lab["accuracy"] and again["loss"] == lab["loss"]
    for way in ("pi_finetuned", "yarn_finetuned"):
        assert np.array_equal(again["finetune_losses"][way], lab["finetune_losses"][way])


def test_measured_shapes_of_the_tiny_run(lab):
    acc, chance = lab["accuracy"], lab["chance"]
    assert lab["lengths"] == [8, 16, 32, 64] and lab["factors"] == [1.0, 2.0, 4.0, 8.0]
    assert acc["unchanged"][0] > 0.9  # the task is learnt at L
    # PI without fine-tuning squeezes the offset of 2 to 1 at 2L: near chance there
    assert acc["pi"][1] < 0.3 and acc["pi"][1] < acc["unchanged"][1] - 0.3
    assert acc["unchanged"][-1] < acc["unchanged"][0] - 0.3 and min(min(a) for a in acc.values()) > chance / 2
    # fine-tuning at 2L with YaRN recovers 2L; the fine-tune loss falls
    assert acc["yarn_finetuned"][1] > acc["yarn"][1] + 0.1
    for way in ("pi_finetuned", "yarn_finetuned"):
        losses = lab["finetune_losses"][way]
        assert losses[-5:].mean() < losses[:5].mean(), way
    assert lab["attention_factor"]["yarn"][0] == 1.0 and lab["attention_factor"]["yarn"][-1] > 1.2
    # loss is cross-entropy: positive, and worse where accuracy is worse
    assert all(v > 0 for values in lab["loss"].values() for v in values)
    assert lab["loss"]["pi"][1] > lab["loss"]["unchanged"][1]


def test_fine_tuning_starts_from_the_given_weights_and_leaves_them_alone():
    trained = ex.train(TINY, "rope")
    kept = {k: v.copy() for k, v in trained.params.items()}
    ft_cfg = xt.finetune_config(TINY, 3)
    assert (ft_cfg.train_len, ft_cfg.steps, ft_cfg.batch) == (16, 3, TINY.batch // 2)
    method = xt.extension_method("pi", TINY, 2.0)
    tuned = ex.train(ft_cfg, method, params=trained.params)
    assert all(np.array_equal(trained.params[k], kept[k]) for k in kept)
    # the first step's loss is the trained model's loss on the fine-tune's first batch
    x, y, valid = ex.make_batch(ft_cfg, ft_cfg.batch, 16, np.random.default_rng([TINY.seed, 3000]))
    first, _ = ex.loss_and_grads(trained.params, method, ft_cfg, x, y, valid)
    assert tuned.losses[0] == first


# the attention factor's gradient


@pytest.mark.parametrize("task", ex.EXPERIMENT_TASKS)
@pytest.mark.parametrize("attention_factor", [1.0, 1.3])
def test_gradients_with_an_attention_factor_match_finite_differences(task, attention_factor):
    cfg = ex.ExperimentConfig(task=task, **SMALL)
    inv_freq, _ = rope_inv_freq(cfg.head_dim, rope_scaling={"rope_type": "linear", "factor": 2.0})
    method = ex.CustomMethod(name="scaled", inv_freq=inv_freq, attention_factor=attention_factor)
    rng = np.random.default_rng(5)
    params = ex.init_params(cfg, method, rng)
    x, y, valid = ex.make_batch(cfg, 3, 8, rng)
    _, grads = ex.loss_and_grads(params, method, cfg, x, y, valid)
    assert_gradients_match(params, grads, lambda: ex.loss_and_grads(params, method, cfg, x, y, valid)[0], rng)


def test_the_attention_factor_multiplies_the_logits_by_its_square():
    cfg = ex.ExperimentConfig(train_len=16)
    result = ex.train(ex.ExperimentConfig(train_len=16, steps=5), "rope")
    inv_freq, _ = rope_inv_freq(cfg.head_dim)
    tokens = np.arange(10) % cfg.vocab
    plain = ex.attention_scores(result, cfg, ex.CustomMethod(inv_freq=inv_freq), tokens, 0)
    hot = ex.attention_scores(result, cfg, ex.CustomMethod(inv_freq=inv_freq, attention_factor=1.5), tokens, 0)
    np.testing.assert_allclose(hot, 2.25 * plain, rtol=1e-12)
    np.testing.assert_array_equal(plain, ex.attention_scores(result, cfg, "rope", tokens, 0))


# the comparison with the papers


def _run(**accuracy):
    base = dict(unchanged=[1.0, 0.3, 0.1], pi=[1.0, 0.2, 0.1], ntk=[1.0, 0.6, 0.4], yarn=[1.0, 0.7, 0.5])
    base |= dict(pi_finetuned=[0.9, 0.95, 0.3], yarn_finetuned=[0.95, 0.97, 0.6])
    base |= accuracy
    return dict(config={"train_len": 8}, lengths=[8, 16, 32], accuracy=base, chance=0.1, finetune_steps=50)


def test_paper_comparison_agrees_when_the_numbers_show_what_the_papers_report():
    rows = xt.paper_comparison(_run())
    assert [r["verdict"] for r in rows] == ["agrees"] * 5
    assert "20%" in rows[1]["measured"] and "95%" in rows[2]["measured"] and "50 steps" in rows[2]["measured"]


def test_the_fine_tuned_yarn_claim_cites_where_the_paper_compares_with_pi():
    # YaRN's abstract says it extrapolates past its fine-tuning data but does not compare with PI;
    # its sec. 4.3.1 (Table 1) does: both fine-tuned to 8k, perplexity at 10,240 of 8.07 (PI) and 6.04 (YaRN)
    row = next(r for r in xt.paper_comparison(_run()) if r["claim"].startswith("Fine-tuned with YaRN"))
    assert "abstract" not in row["source"]
    assert "sec. 4.3.1, Table 1" in row["source"] and "8.07" in row["source"] and "6.04" in row["source"]


def test_paper_comparison_says_disagrees_when_the_numbers_differ():
    rows = xt.paper_comparison(
        _run(
            unchanged=[1.0, 0.95, 0.9],  # keeps its accuracy: does not break down
            pi=[1.0, 0.99, 0.9],  # no loss at 2L without fine-tuning
            ntk=[1.0, 0.5, 0.4],  # worse than PI
            yarn_finetuned=[0.95, 0.97, 0.2],  # worse than PI after the fine-tune
        )
    )
    assert [r["verdict"] for r in rows] == ["disagrees"] * 5
    assert "nothing was lost" in rows[2]["measured"]


# bad input


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: xt.extension_scaling("rope", 2.0, 8), "way"),
        (lambda: xt.extension_scaling("pi", 0.5, 8), "factor"),
        (lambda: xt.extension_scaling("yarn", 2.0, 1), "train_len"),
        (lambda: xt.extension_method("pi", {"train_len": 8}, 2.0), "cfg"),
        (lambda: xt.finetune_config(TINY, 0), "finetune_steps"),
        (lambda: xt.run_extension(TINY, finetune_steps=2.5), "finetune_steps"),
        (lambda: xt.run_extension(TINY, trained={"E": 1}), "trained"),
        (lambda: xt.run_extension("cfg"), "cfg"),
        (lambda: xt.paper_comparison({"lengths": [8]}), "run"),
        (lambda: xt.paper_comparison(_run() | {"lengths": [16, 32, 64]}), "lengths"),
        (lambda: ex.CustomMethod(inv_freq=[1.0], attention_factor=0.0), "attention_factor"),
        (lambda: ex.CustomMethod(table=lambda p: p, attention_factor=2.0), "attention_factor"),
        (lambda: ex.train(TINY, "rope", params={"E": np.ones(2)}), "params"),
        (lambda: ex.train(TINY, "rope", dtype=np.float16), "dtype"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()
