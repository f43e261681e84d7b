"""benchmarks/browser_feel.py works end to end in Debian's Chromium: a smoke test, never a
timing test (its exit status may be 1 on a busy machine; the rows must be complete)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from app_helpers import ROOT
from browser_support import budget_s

# it drives Debian's chromium (benchmarks/browser_feel.py), like the other browser tests
pytestmark = pytest.mark.browser


def test_first_chart_and_redraw_are_measured_beside_the_floor(server, tmp_path):
    out = tmp_path / "feel.json"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "browser_feel.py"), "--url", server]
    cmd += ["--pages", "learned-table", "--loads", "1", "--moves", "2", "--floor", "--floor-panels", "2"]
    cmd += ["--navigate", "1", "--cold", "2"]
    cmd += ["--json", str(out)]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=budget_s(240), check=False)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    report = json.loads(out.read_text())
    (row,) = report["rows"]
    # the floor, a bare Streamlit page, measured the same way in the same run, and the ratios
    floor = report["floor"]
    assert floor["loads"] == 1 and floor["moves"] == 2 and not floor["errors"], floor["errors"]
    (ratio,) = report["ratios"]
    assert ratio["page"] == "learned-table"
    assert ratio["redraw_p50"] == round(row["redraw_p50"] / floor["redraw_p50"], 2) > 0
    assert ratio["first_chart_p50"] == round(row["first_chart_p50"] / floor["first_chart_p50"], 2) > 0
    # the floor drawing two heatmap panels, and the ratios to it
    panels = report["floor_panels"]
    assert panels["page"] == "floor, 2 panels" and panels["charts"] == 2 and not panels["errors"], panels["errors"]
    assert panels["moves"] == 2 and panels["redraw_p50"] > 0
    (ratio,) = report["ratios_panels"]
    assert ratio["redraw_p50"] == round(row["redraw_p50"] / panels["redraw_p50"], 2) > 0
    # the lesson reached once by its link in the side menu, from the start page
    (navigation,) = report["navigation"]
    assert navigation["page"] == "learned" and navigation["navigations"] == 1 and not navigation["errors"]
    assert navigation["navigate_p50"] == navigation["navigate_max"] > 0
    assert row["page"] == "learned-table" and not row["errors"], row["errors"]
    assert row["loads"] == 1 and row["moves"] == 2 and row["slider"] != "-"
    # two cold loads, each in a context of its own: the column is their median
    assert len(row["cold_first_chart_all"]) == 2 and all(t > 0 for t in row["cold_first_chart_all"])
    assert row["cold_first_chart_ms"] == sum(row["cold_first_chart_all"]) / 2
    assert 0 < row["first_chart_p50"] <= row["first_chart_p95"]
    assert 0 < row["redraw_p50"] <= row["redraw_p95"]
    assert row["charts"] >= 1 and row["widgets"] >= 1
    assert row["ws_bytes_p50"] > 0


def test_floor_panels_and_deploy_arguments():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import browser_feel

    assert browser_feel.parse_args(["--floor", "--floor-panels", "9"]).floor_panels == 9
    assert browser_feel.parse_args(["--deploy", "4"]).deploy == 4
    for bad in (
        ["--cold", "0"],
        ["--floor-panels", "9"],
        ["--floor", "--floor-panels", "17"],
        ["--deploy", "2", "--url", "http://x"],
    ):
        with pytest.raises(SystemExit):
            browser_feel.parse_args(bad)


@pytest.mark.parametrize(
    ("query", "charts"), [({}, 1), ({"panels": "9"}, 9), ({"panels": "40"}, 16), ({"panels": "x"}, 1)]
)
def test_the_floor_page_draws_one_chart_or_the_panels_asked_for(query, charts):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "benchmarks" / "floor_app.py"))
    at.query_params.update(query)
    at.run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == charts


def test_plotly_alone_redraws_a_pages_charts_beside_the_floor(tmp_path):
    """benchmarks/plotly_alone.py end to end: the page's charts before and after its key
    control's step, drawn by plotly.js alone both ways, beside the floor's chart."""
    out = tmp_path / "alone.json"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "plotly_alone.py"), "--pages", "alibi-slopes", "--reps", "2"]
    result = subprocess.run(
        [*cmd, "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=budget_s(240), check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    floor, page = report["rows"]
    assert report["plotly_js"].split(".")[0] == "4" and report["reps"] == 2
    assert (floor["page"], floor["charts"], floor["changed"]) == ("floor", 1, 1)
    # ALiBi's slopes: nine charts, and one more head changes only the chart of the slopes
    assert (page["page"], page["charts"], page["changed"]) == ("alibi-slopes", 9, 1)
    for row in (floor, page):
        assert len(row["newplot_all"]) == len(row["react_all"]) == 2
        assert all(t > 0 for t in row["newplot_all"] + row["react_all"])
        assert min(row["react_all"]) <= row["react_p50"] <= max(row["react_all"])


def test_plotly_alone_refuses_pages_it_cannot_move():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import plotly_alone

    assert "compare" in plotly_alone.default_views() and "home" not in plotly_alone.default_views()
    for bad in (["--pages", "home"], ["--pages", "nowhere"], ["--pages", "experiments-claims"], ["--reps", "0"]):
        with pytest.raises(SystemExit):
            plotly_alone.parse_args(bad)
