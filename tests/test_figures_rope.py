"""The RoPE lesson's figure builders (posenc_lab/lessons/rope/figures.py), without Streamlit.

Each figure is read back: what the traces draw, the animation's frames, buttons and
slider, the region colouring of the scaling chart, titles, hover text and payload.
"""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest

from posenc_lab.figures import figure_bytes
from posenc_lab.lessons.rope import figures as rf

MB = 1_000_000


def _frames_input(n_frames=10, pairs=(0, 3), gap=2, step=1, head_dim=8, base=100.0):
    """Rotated pairs of one vector (k = q content) written out by hand."""
    rng = np.random.default_rng(0)
    q = rng.standard_normal(head_dim)
    theta = np.array([base ** (-2 * i / head_dim) for i in pairs])
    n = np.arange(n_frames) * step
    m = n + gap
    a = np.array([q[2 * i] for i in pairs])
    b = np.array([q[2 * i + 1] for i in pairs])

    def rotated(p):
        t = p[:, None] * theta[None, :]
        return np.stack([a * np.cos(t) - b * np.sin(t), a * np.sin(t) + b * np.cos(t)], axis=-1)

    q_xy, k_xy = rotated(m), rotated(n)
    angles = m[:, None] * theta[None, :]
    shares = (q_xy * k_xy).sum(-1)
    return dict(q_xy=q_xy, k_xy=k_xy, angles=angles, shares=shares, m=m, n=n, pairs=list(pairs), theta=theta)


def _animation(**kwargs):
    d = _frames_input(**kwargs)
    fig = rf.rotation_animation(
        d["q_xy"], d["k_xy"], d["angles"], d["shares"], d["m"], d["n"], d["pairs"], d["theta"], title="Rotation"
    )
    return fig, d


def _tips(trace_x, trace_y):
    """Tips of the arrows drawn as [centre, tip, None] triples."""
    x, y = list(trace_x), list(trace_y)
    return [(x[i], y[i], x[i + 1], y[i + 1]) for i in range(0, len(x), 3)]


# rotation_animation


def test_animation_has_one_frame_per_position_named_for_the_page_buttons():
    fig, d = _animation(n_frames=12)
    assert len(fig.frames) == 12
    assert [f.name for f in fig.frames] == [
        f"query at m = {m}, key at n = {n}" for m, n in zip(d["m"], d["n"], strict=True)
    ]
    # played by the page's keyboard buttons (ui.chart_tools): no SVG buttons or slider
    assert not fig.layout.updatemenus and not fig.layout.sliders
    assert 80 <= fig.layout.meta["frame_ms"] <= 150


def test_planes_stand_two_to_a_row_and_four_on_a_projector():
    x, y = rf.plane_centres(4)
    assert list(x) == [0.0, rf.SPACING, 0.0, rf.SPACING]
    assert list(y) == [0.0, 0.0, -rf.ROW_SPACING, -rf.ROW_SPACING]
    x, y = rf.plane_centres(4, per_row=4)
    assert list(x) == [rf.SPACING * j for j in range(4)] and not y.any()


def test_frames_replace_only_the_arrows_and_the_texts():
    fig, _ = _animation(pairs=(0, 1, 3))
    for frame in fig.frames:
        assert list(frame.traces) == [2, 3, 4]
        assert len(frame.data) == 3
    names = [fig.data[i].name for i in (2, 3)]
    assert names == ["k at position n", "q at position m"]
    assert fig.data[4].mode == "text"


def test_arrows_turn_by_the_position_angle_and_keep_the_gap_angle():
    fig, d = _animation(n_frames=9, pairs=(0, 2, 3), gap=3)
    cx, cy = rf.plane_centres(3)
    for frame in fig.frames:
        k_tips = _tips(frame.data[0].x, frame.data[0].y)
        q_tips = _tips(frame.data[1].x, frame.data[1].y)
        for j in range(3):
            kx0, ky0, kx, ky = k_tips[j]
            qx0, qy0, qx, qy = q_tips[j]
            assert (kx0, ky0) == (qx0, qy0) == (pytest.approx(cx[j]), pytest.approx(cy[j]))
            kx, ky, qx, qy = kx - cx[j], ky - cy[j], qx - cx[j], qy - cy[j]
            # the key trails the query by gap * theta_i
            turn = math.atan2(qy, qx) - math.atan2(ky, kx)
            expected = 3 * d["theta"][j]
            assert math.remainder(turn - expected, 2 * math.pi) == pytest.approx(0.0, abs=1e-4)
            # same content: both tips on the unit circle
            assert math.hypot(qx, qy) == pytest.approx(1.0, abs=1e-5)


def test_frame_text_gives_the_angle_in_radians_and_degrees_mod_360():
    fig, d = _animation(n_frames=30, pairs=(0,), gap=5)
    for f, frame in enumerate(fig.frames):
        angle = d["m"][f] * d["theta"][0]  # theta_0 = 1
        text = frame.data[2].text[0]
        assert f"{angle:,.3f} rad" in text
        assert f"≡ {math.degrees(angle) % 360:.1f}°" in text
        assert f"{d['shares'][f, 0]:+.3f}" in text


def test_small_angles_keep_significant_digits():
    text = rf._angle_text(0.000267, 1.0)
    assert "0.000267 rad" in text and "0.0153°" in text


def test_axes_are_fixed_and_square():
    fig, _ = _animation(pairs=(0, 1, 2, 3))
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis.scaleratio == 1
    assert fig.layout.xaxis.fixedrange and fig.layout.yaxis.fixedrange
    lo, hi = fig.layout.xaxis.range
    assert lo < -1 and hi > rf.SPACING + 1
    low, high = fig.layout.yaxis.range
    assert low < -rf.ROW_SPACING - 1 and high > 1


def test_each_plane_is_titled_with_its_pair_and_frequency():
    fig, d = _animation(pairs=(0, 3))
    texts = [a.text for a in fig.layout.annotations]
    assert any("pair 3" in t and "dims 6, 7" in t and f"{d['theta'][1]:.3g}" in t for t in texts)


def test_animation_figure_is_valid_plotly_and_small_at_the_largest_setting():
    fig, _ = _animation(n_frames=rf.MAX_FRAMES, pairs=(0, 10, 60, 127), head_dim=256, step=5000)
    # the frames are built unvalidated for speed: validate the whole figure once here
    go.Figure(fig.to_dict())
    assert figure_bytes(fig) < MB / 4


@pytest.mark.parametrize(
    "kwargs", [dict(n_frames=10, pairs=(0, 3)), dict(n_frames=rf.MAX_FRAMES, pairs=(0, 10, 60, 127), head_dim=256)]
)
@pytest.mark.parametrize("per_row", [rf.PLANES_PER_ROW, 4])
def test_animation_built_as_dicts_is_what_the_checked_api_builds(kwargs, per_row):
    d = _frames_input(**kwargs)
    fig = rf.rotation_animation(
        d["q_xy"],
        d["k_xy"],
        d["angles"],
        d["shares"],
        d["m"],
        d["n"],
        d["pairs"],
        d["theta"],
        title="R",
        per_row=per_row,
    )
    checked = go.Figure(fig.to_dict())  # Plotly validates every property, frames included
    assert json.loads(fig.to_json()) == json.loads(checked.to_json())
    assert all(isinstance(f, go.Frame) for f in fig.frames) and len(fig.frames) == kwargs["n_frames"]
    assert [f.name for f in checked.frames] == [
        f"query at m = {m}, key at n = {n}" for m, n in zip(d["m"], d["n"], strict=True)
    ]
    # what is added later is checked as usual
    with pytest.raises(ValueError):
        fig.update_layout(not_a_property=1)


def test_too_many_frames_or_mismatched_shapes_are_refused():
    d = _frames_input(n_frames=rf.MAX_FRAMES + 1)
    with pytest.raises(ValueError, match="frames"):
        rf.rotation_animation(
            d["q_xy"], d["k_xy"], d["angles"], d["shares"], d["m"], d["n"], d["pairs"], d["theta"], title="x"
        )
    d = _frames_input()
    with pytest.raises(ValueError, match="pair"):
        rf.rotation_animation(d["q_xy"], d["k_xy"], d["angles"], d["shares"], d["m"], d["n"], [0], [1.0], title="x")


# score_spread and decay_bound


def test_score_spread_draws_a_band_of_one_std_and_the_reference():
    distances = np.array([1, 10, 100])
    mean, std = np.array([1.0, 0.5, 0.0]), np.array([2.0, 2.0, 3.0])
    fig = rf.score_spread(distances, mean, std, reference=2.0, reference_label="√Dh", title="Spread")
    band, std_line, mean_line = fig.data
    np.testing.assert_allclose(band.y, [3.0, 2.5, 3.0, -3.0, -1.5, -1.0])
    np.testing.assert_allclose(std_line.y, std)
    np.testing.assert_allclose(mean_line.y, mean)
    assert mean_line.y.dtype == np.float32
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.shapes[0].y0 == 2.0
    assert "distance" in mean_line.hovertemplate


def test_decay_bound_is_a_log_x_line():
    fig = rf.decay_bound([1, 2, 4], [3.0, 2.0, 1.0])
    assert fig.layout.xaxis.type == "log"
    np.testing.assert_allclose(fig.data[0].y, [3.0, 2.0, 1.0])
    assert fig.layout.legend.x == 0 and fig.layout.legend.y > 1


# pairing_map


def test_pairing_map_colours_dims_by_pair_and_writes_numbers_when_few():
    rows = {"interleaved": np.array([0, 0, 1, 1]), "half": np.array([0, 1, 0, 1])}
    fig = rf.pairing_map(rows, title="Pairs")
    trace = fig.data[0]
    np.testing.assert_array_equal(trace.z, [[0, 0, 1, 1], [0, 1, 0, 1]])
    assert list(trace.y) == ["interleaved", "half"]
    assert trace.texttemplate == "%{z}"
    assert "belongs to pair" in trace.hovertemplate
    wide = rf.pairing_map({"a": np.arange(64) // 2}, title="Pairs")
    assert wide.data[0].texttemplate is None


# scaling_chart


def _scaling(**kwargs):
    before = np.array([6.28, 62.8, 628.0, 6280.0])
    ratio = np.array([1.0, 0.6, 0.25, 0.25])
    args = dict(factor=4.0, original_length=1000, region_names=("kept", "blended", "interpolated"), title="Scaling")
    args.update(kwargs)
    return rf.scaling_chart(before, before / ratio, ratio, np.array([0, 1, 2, 2]), **args)


def test_scaling_chart_colours_each_region_and_counts_it():
    fig = _scaling()
    names = [t.name for t in fig.data if t.showlegend is not False]
    assert names == ["original wavelength", "kept (1 pairs)", "blended (1 pairs)", "interpolated (2 pairs)"]
    interpolated = next(t for t in fig.data if t.name == "interpolated (2 pairs)")
    np.testing.assert_array_equal(interpolated.x, [2, 3])
    np.testing.assert_allclose(interpolated.y, [2512.0, 25120.0], rtol=1e-6)
    assert interpolated.y.dtype == np.float32
    assert "frequency ratio" in interpolated.hovertemplate
    assert fig.layout.yaxis.type == "log"


def test_scaling_chart_lines_training_and_target_length_with_log_placed_labels():
    fig = _scaling(guides={"L/beta = 250": 250.0, "L/beta_slow = 1,000": 1000.0})
    hlines = sorted(s.y0 for s in fig.layout.shapes if s.yref == "y")
    assert hlines == [250.0, 1000.0, 4000.0]
    labels = {a.text: a.y for a in fig.layout.annotations if a.yref == "y"}
    # a guide equal to L shares its line and label
    assert labels["training length L = L/beta_slow = 1,000"] == pytest.approx(3.0)
    assert labels["s·L = 4,000"] == pytest.approx(math.log10(4000))
    assert labels["L/beta = 250"] == pytest.approx(math.log10(250))


def test_scaling_chart_joins_coinciding_labels_by_what_they_share():
    # same value: said once; a label without " = " or another value: joined with "and"
    fig = _scaling(guides={"L/beta_slow = 1,000": 1000.0, "L/low = 1,000.0": 1000.0})
    texts = [a.text for a in fig.layout.annotations if a.yref == "y"]
    assert "training length L = 1,000 and L/beta_slow = 1,000 and L/low = 1,000.0" in texts
    fig = _scaling(guides={"L/beta_slow = 1,000": 1000.0, "edge": 4000.0})
    texts = [a.text for a in fig.layout.annotations if a.yref == "y"]
    assert "training length L = L/beta_slow = 1,000" in texts
    assert "s·L = 4,000 and edge" in texts


def test_scaling_chart_without_extension_has_no_target_line():
    fig = _scaling(factor=1.0)
    assert not any("s·L" in a.text for a in fig.layout.annotations)


# xPos charts


def test_xpos_factors_one_line_per_pair():
    zeta = np.array([[1.0, 1.0, 1.0], [0.5, 0.7, 0.9]])
    fig = rf.xpos_factors([0, 100], zeta, [0, 2], scale_base=512)
    assert [t.name for t in fig.data] == ["pair 0", "pair 2"]
    np.testing.assert_allclose(fig.data[1].y, [1.0, 0.9])
    assert "512" in fig.layout.title.text
    assert tuple(fig.layout.yaxis.range) == (0, 1.05)


def test_xpos_score_chart_has_rope_and_xpos():
    fig = rf.xpos_score_chart([0, 1], [2.0, 1.0], [2.0, 0.5])
    assert [t.name for t in fig.data] == ["RoPE", "xPos"]
    assert fig.layout.xaxis.title.text.startswith("distance")
