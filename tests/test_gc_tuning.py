"""The app process freezes what it imported and collects its oldest generation less often,
unless POSENC_GC_TUNING=0 keeps Python's settings (to measure the difference)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = (
    "import gc, json; before = gc.get_threshold(); import posenc_lab.ui.shell; "
    "print(json.dumps([before, gc.get_threshold(), gc.get_freeze_count()]))"
)


def _probe(value: str | None) -> tuple[list[int], list[int], int]:
    env = {k: v for k, v in os.environ.items() if k != "POSENC_GC_TUNING"}
    if value is not None:
        env["POSENC_GC_TUNING"] = value
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    before, after, frozen = json.loads(out.stdout.strip().splitlines()[-1])
    return before, after, frozen


@pytest.mark.parametrize("value", [None, "1", " 1 ", "yes"])
def test_the_app_process_freezes_its_imports_and_collects_gen2_less_often(value):
    before, after, frozen = _probe(value)
    assert tuple(after) == (700, 10, 100) and tuple(after) != tuple(before)
    # the modules, Streamlit, Plotly and NumPy: far more objects than a bare interpreter holds
    assert frozen > 50_000


def test_zero_keeps_pythons_own_settings():
    before, after, frozen = _probe("0")
    assert after == before and frozen == 0
