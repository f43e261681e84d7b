"""A class reveal's "Explore it" (``Poll.view``, ``classroom.views._reveal``) opens the view at
the question's own setting (issue 39): the address names every setting the question fixes, the
page takes each one as it is (no "could not be used" notice), its control shows it and the URL
keeps it; where the reveal states a number the view prints, the view prints the same one."""

from __future__ import annotations

import base64

import numpy as np
import pytest
from app_helpers import assert_clean, notices, open_page, panel_specs

from posenc_lab import course as lessons

#: every poll that has an "Explore it" address
POLLS = [poll for poll in lessons.all_polls() if poll.view]
IDS = [poll.key for poll in POLLS]
WARNING = "Some values in the link could not be used"


def settings(poll) -> dict[str, str]:
    """The address's URL names and values, as ``class_views._reveal`` passes them to the page link."""
    _, _, query = poll.view.partition("?")
    return dict(part.split("=", 1) for part in query.split("&") if "=" in part)


def as_shown(raw: str, shown):
    """The URL's value read as the control's type (a toggle's 1/0, a list's commas)."""
    if isinstance(shown, bool):
        return raw == "1"
    if isinstance(shown, list):
        return [int(v) for v in raw.split(",")]
    if isinstance(shown, int | float):
        return type(shown)(float(raw))
    return raw


def open_view(poll):
    lesson = lessons.lesson_of_poll(poll.key)
    return open_page(lesson.path, settings(poll))


@pytest.mark.parametrize("poll", POLLS, ids=IDS)
def test_explore_it_opens_the_question_s_setting(poll):
    at = open_view(poll)
    assert_clean(at)
    assert not [w.value for w in at.warning if WARNING in str(w.value)]
    for name, raw in settings(poll).items():
        assert at.query_params.get(name) == raw, (name, at.query_params.get(name), raw)
        if name == "view":
            continue
        shown = at.get_by_key("w:" + name).value
        assert shown == as_shown(raw, shown), (name, shown, raw)


# (c) the settings each question fixes, named here apart from the addresses: the bare addresses
# the polls had before issue 39 ("sinusoidal?view=wavelengths", which opened at d_model 128 and
# 256 positions for a question about d_model 512 and 512 positions) fail this test

#: polls whose view no control of which changes what the question asks about: a bare address
BARE = {"poll-images-no-positions"}  # the NoPE view reads the experiments page's one stored run


def expected() -> dict[str, dict[str, str]]:
    """Poll key -> the URL names and values its address must hold, from the constants its answer uses."""
    from posenc_lab.lessons.alibi import exercises as alibi
    from posenc_lab.lessons.choices import exercises as choices
    from posenc_lab.lessons.claims import exercises as claims
    from posenc_lab.lessons.design import exercises as design
    from posenc_lab.lessons.experiments import exercises as experiments
    from posenc_lab.lessons.images import exercises as images
    from posenc_lab.lessons.relative import exercises as relative
    from posenc_lab.lessons.rope import exercises as rope
    from posenc_lab.lessons.sinusoidal import exercises as sinusoidal

    rows, cols, _, _, q_row, q_col, _ = images.PATCH_SETTINGS
    head_dim, _, reach, rho, samples, _ = rope.DECAY_SETTINGS
    train_len, *_, copy_k = experiments.DEFAULTS
    return {
        "poll-sinusoidal-left-right": {"d_model": "128", "anchor": "50", "metric": "dot"},
        "poll-sinusoidal-full-turns": {"d_model": str(sinusoidal.TURNS_WIDTH), "n": str(sinusoidal.TURNS_CONTEXT)},
        "poll-sinusoidal-sketch-similarity": {
            "d_model": str(sinusoidal.SKETCH_WIDTH),
            "n": str(sinusoidal.SKETCH_SPAN + 1),
            "anchor": "0",
            "metric": "dot",
        },
        "poll-alibi-steepest-head": {"heads": str(alibi.ALIBI_HEADS), "show": "1,8,9,12"},
        "poll-alibi-own-share": {"heads": "8", "n": "128", "row": "127", "causal": "1", "show": "1,4,8"},
        "poll-alibi-kerple-reach": {"n": "1024", "m": str(alibi.KERPLE_SLOPE), "lr1": "1", "lr2": "1", "mass": "0.9"},
        "poll-choices-position-vs-content": {"d_model": str(choices.PARTS_WIDTH), "scale": "unit"},
        "poll-choices-stale-cache": {"t": str(choices.CACHE_T), "train_len": str(choices.CACHE_L)},
        "poll-claims-dim0-flips": {"n": str(claims.SIN_N)},
        "poll-claims-fast-dims": {"d_model": str(claims.SIN_WIDTH)},
        "poll-claims-equal-differences": {"d_model": str(claims.SIN_WIDTH), "offset": str(claims.DIFF_K)},
        "poll-design-binary-shift": {"kind": "binary", "d_model": str(design.POLL_WIDTH), "bits": "8", "k": "1"},
        "poll-design-one-pair": {"kind": "waves", "d_model": "2", "n_pos": str(design.POLL_N)},
        "poll-experiments-sinusoid-8x": {
            "task": "copy",
            "copy_k": str(copy_k),
            "train_len": str(train_len),
            "test_to": "8",
        },
        "poll-experiments-marker-8x": {"task": "marker", "train_len": str(train_len), "test_to": "8"},
        "poll-images-patch-below": {"rows": str(rows), "cols": str(cols), "qr": str(q_row), "qc": str(q_col)},
        "poll-models-llama31-turns": {"model": "llama-3.1"},
        "poll-models-gpt-oss-layers": {"model": "gpt-oss"},
        "poll-relative-edge-vectors": {"len": str(relative.EDGE_LENGTH), "clip": str(relative.EDGE_CLIP)},
        "poll-relative-t5-shared-bucket": {"nb": "32", "maxd": "128", "bidir": "1"},
        "poll-rope-shift-phrase": {"dh": str(rope.ROPE_HEAD_DIM), "s": str(rope.SHIFT_FAR), "added": "1"},
        "poll-rope-long-term-decay": {
            "dh": str(head_dim),
            "reach": str(reach),
            "rho": f"{rho:g}",
            "samples": str(samples),
        },
    }


def test_every_address_names_the_settings_its_question_fixes():
    want = expected()
    assert set(want) | BARE == set(IDS), "a poll with a view is in neither list"
    for poll in POLLS:
        got = settings(poll)
        if poll.key in BARE:
            assert set(got) == {"view"}, (poll.key, got)
        else:
            assert {name: got.get(name) for name in want[poll.key]} == want[poll.key], poll.key
            assert set(got) == {"view", *want[poll.key]}, (poll.key, "names a setting the question does not fix")


def test_the_full_turns_poll_opens_at_d_model_512_and_512_positions():
    # the example: the old address, "sinusoidal?view=wavelengths", opened at d_model 128
    poll = lessons.poll_by_key("poll-sinusoidal-full-turns")
    assert settings(poll) == {"view": "wavelengths", "d_model": "512", "n": "512"}


# (3) where the reveal states a number the view prints or draws, the view at the address shows
# the same number


def _array(value) -> np.ndarray:
    """A Plotly array from the JSON Streamlit sent: typed (base64) or a plain list."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            out = out.reshape([int(n) for n in str(value["shape"]).split(",")])
        return out.astype(float)
    return np.array([np.nan if v is None else v for v in value], dtype=float)


def _trace(at, chart: str, name: str | None = None, panel: int = 0) -> dict:
    data = panel_specs(at)[chart][panel]["data"]
    return data[0] if name is None else next(t for t in data if t.get("name") == name)


def _texts(at) -> str:
    """What the page says in words: its notices, captions and markdown."""
    return "\n".join([*notices(at), *(c.value for c in at.caption), *(m.value for m in at.markdown)])


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label))


def _similarity(at, poll, answer):
    from posenc_lab.lessons.sinusoidal.exercises import SIMILARITY_ANCHOR as anchor
    from posenc_lab.lessons.sinusoidal.exercises import SIMILARITY_OFFSET as k

    curve = _array(_trace(at, "sin_similarity_curve")["y"])
    for p in (anchor - k, anchor + k):
        assert f"PE[{p}] · PE[{anchor}] = {curve[p]:.4f}" in poll.reveal(answer)


def _sketch_similarity(at, poll, answer):
    # the view draws the very curve the reveal draws over the class's sketches
    _, measured = poll.sketch.curve()
    np.testing.assert_allclose(_array(_trace(at, "sin_similarity_curve")["y"]), measured)
    assert f"{measured[4]:.1f} at p = 4" in poll.reveal(answer)


def _full_turns(at, poll, answer):
    assert f"{256 - int(answer)} of 256 pairs have a wavelength longer than the 512 positions" in _texts(at)


def _steepest(at, poll, answer):
    from posenc_lab.lessons.alibi.exercises import POLL_HEADS

    slope_of = {}  # head -> slope, over the chart's traces (the 8-head schedule, the extra heads)
    for trace in panel_specs(at)["alibi_slopes"][0]["data"]:
        slope_of.update(zip(_array(trace["x"]).astype(int), _array(trace["y"]), strict=True))
    assert sorted(slope_of) == list(range(1, 13))
    assert max(slope_of, key=slope_of.get) == POLL_HEADS[int(answer)]


def _own_share(at, poll, answer):
    assert f"Head 1 puts {answer:.1f}% of its attention on the query's own position" in _texts(at)


def _kerple(at, poll, answer):
    from posenc_lab.lessons.alibi.exercises import _kerple

    span = _kerple()["span"]
    for name in ("ALiBi", "KERPLE-log"):
        assert _metric(at, f"{name}: 90%") == f"d ≤ {span[name]:,}"
        assert f"{span[name]} positions" in poll.reveal(answer) or f"within {span[name]} of" in poll.reveal(answer)


def _parts(at, poll, answer):
    from posenc_lab.lessons.choices.exercises import _parts

    content, _, position = _parts()
    assert f"the position part of the score is {position / content:.3g} times the content part" in _texts(at)


def _cache(at, poll, answer):
    from posenc_lab.lessons.choices.exercises import _cache

    trace = _trace(at, "choices_cache_counts", "cached entries that change")
    changed = dict(zip(trace["x"], _array(trace["y"]), strict=True))["RoPE + dyn. NTK"]
    assert changed == _cache()["changed"][list(_cache()["methods"]).index("rope_dynamic")] > 0
    assert f"changes {changed:,.0f} of the" in poll.reveal(answer)


def _dim0(at, poll, answer):
    assert f"Measured now:** {answer:.0f} sign changes in 99 steps" in _texts(at)


def _fast(at, poll, answer):
    from posenc_lab.lessons.claims.exercises import _wavelengths

    lam = _wavelengths()
    assert f"of dims 126-127: {lam[-1]:,.0f}" in _texts(at)
    assert f"the last pair every {lam[-1]:,.0f}" in poll.reveal(answer)


def _differences(at, poll, answer):
    from posenc_lab.lessons.claims.exercises import _differences

    worst = float(_differences().equal_differences.max())
    assert f"= {worst:.2f};" in _texts(at) and f"off by up to {worst:.2f}" in poll.reveal(answer)


def _binary_shift(at, poll, answer):
    from posenc_lab.lessons.design.exercises import BINARY, _fit

    assert f"your design misses by at most {_fit(BINARY)['relative']:.1e} of the largest code" in _texts(at)


def _one_pair(at, poll, answer):
    from posenc_lab.lessons.design.exercises import _pair

    found = _pair()
    p, q = found["pair"]
    assert f"your closest two positions are {p} and {q}, {found['distance']:.3g} apart" in _texts(at)
    assert f"such as {p} and {q}" in poll.reveal(answer)


def _copy_8x(at, poll, answer):
    from posenc_lab.lessons.experiments import claims

    accuracy = _array(_trace(at, "exp_accuracy", claims.NAMES["sinusoidal"])["y"])
    assert accuracy[-1] * 100 == pytest.approx(answer)


def _marker_8x(at, poll, answer):
    from posenc_lab.lessons.experiments import claims
    from posenc_lab.lessons.experiments.exercises import MARKER_OFFERED

    trace = panel_specs(at)["exp_claims"][0]["data"][-1]  # at 8x
    assert "8x" in trace["name"]
    at_8x = dict(zip(trace["x"], _array(trace["y"]), strict=True))
    offered = [at_8x[claims.NAMES[m]] for m in MARKER_OFFERED]
    assert int(np.argmax(offered)) == int(answer)


def _patch_below(at, poll, answer):
    from posenc_lab.lessons.images.exercises import _neighbour_scores

    scores = _neighbour_scores()
    (same_1d, _, below_1d), (same_2d, _, below_2d) = scores["1-D"], scores["2-D"]
    assert _metric(at, "Drop to the patch below") == f"{same_2d - below_2d:.2f} vs {same_1d - below_1d:.2f}"


def _no_positions(at, poll, answer):
    from posenc_lab.lessons.images.exercises import _run

    none = _run()["accuracy"]["none"][0]
    assert f"reaches {none:.0%} at its training length" in _texts(at)
    assert f"copies {none:.0%} of tokens" in poll.reveal(answer)


def _llama31(at, poll, answer):
    from posenc_lab.lessons.models.exercises import _llama31

    out = _llama31()
    inside = int(np.sum(out["wavelength"] <= out["train_len"]))
    assert (
        f"{inside} of {out['pairs'].size} pairs turn fully within its original_max_position_embeddings (8,192, "
        "the length the scaling starts from)"
    ) in _texts(at)
    assert f"{inside} of Llama 3.1's" in poll.reveal(answer)


def _gpt_oss(at, poll, answer):
    from posenc_lab.lessons.models.exercises import _gpt_oss

    kinds = _gpt_oss()["layer_kinds"]
    trace = _trace(at, "models_gpt-oss_layers")
    sees_all = _array(trace["z"]).reshape(len(trace["y"]), -1)[trace["y"].index("sees all")]
    assert sees_all.size == len(kinds) == 24 and int(sees_all.sum()) == kinds.count("full")


def _edge_vectors(at, poll, answer):
    clipped = _array(_trace(at, "rel_offsets", panel=1)["z"])
    assert clipped.shape == (64, 64)
    assert 100 * np.mean(np.abs(clipped) == 3) == pytest.approx(answer)


def _shared_bucket(at, poll, answer):
    bucket_of = {}
    for trace in panel_specs(at)["t5_buckets"][0]["data"]:
        for x, y in zip(_array(trace["x"]), _array(trace["y"]), strict=True):
            if np.isfinite(y):
                bucket_of[int(x)] = int(y)
    before = [x for x in bucket_of if -128 <= x <= 0]
    assert len(before) == 129
    assert sum(bucket_of[x] == bucket_of[-50] for x in before) == int(answer)


def _shift_phrase(at, poll, answer):
    assert answer == 0  # "not at all": the view measures the same move at rounding level
    assert float(_metric(at, "RoPE: largest |S(m, n) − S(m + 1000, n + 1000)|")) < 1e-9


def _decay(at, poll, answer):
    from posenc_lab.lessons.rope.exercises import _decay_out

    table = at.table[0].value
    near = table[table.columns[1]].iloc[0]  # std measured here, distance 1
    assert table[table.columns[0]].iloc[0] == 1 and near == f"{_decay_out()['std'][0]:.2f}"
    assert f"std of q·k is {near} at distance 1" in poll.reveal(answer)


NUMBERS = {
    "poll-sinusoidal-left-right": _similarity,
    "poll-sinusoidal-full-turns": _full_turns,
    "poll-sinusoidal-sketch-similarity": _sketch_similarity,
    "poll-alibi-steepest-head": _steepest,
    "poll-alibi-own-share": _own_share,
    "poll-alibi-kerple-reach": _kerple,
    "poll-choices-position-vs-content": _parts,
    "poll-choices-stale-cache": _cache,
    "poll-claims-dim0-flips": _dim0,
    "poll-claims-fast-dims": _fast,
    "poll-claims-equal-differences": _differences,
    "poll-design-binary-shift": _binary_shift,
    "poll-design-one-pair": _one_pair,
    "poll-experiments-sinusoid-8x": _copy_8x,
    "poll-experiments-marker-8x": _marker_8x,
    "poll-images-patch-below": _patch_below,
    "poll-images-no-positions": _no_positions,
    "poll-models-llama31-turns": _llama31,
    "poll-models-gpt-oss-layers": _gpt_oss,
    "poll-relative-edge-vectors": _edge_vectors,
    "poll-relative-t5-shared-bucket": _shared_bucket,
    "poll-rope-shift-phrase": _shift_phrase,
    "poll-rope-long-term-decay": _decay,
}


@pytest.mark.parametrize("poll", POLLS, ids=IDS)
def test_the_view_at_the_address_shows_the_reveal_s_numbers(poll):
    at = open_view(poll)
    assert_clean(at)
    NUMBERS[poll.key](at, poll, float(poll.answer()))
