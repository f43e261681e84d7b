"""The app process asks OpenBLAS for one thread unless POSENC_BLAS_THREADS says otherwise."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = (
    "import json, threadpoolctl, posenc_lab.ui.shell; "
    "print(json.dumps([posenc_lab.ui.shell.blas_threads(), "
    "[p['num_threads'] for p in threadpoolctl.threadpool_info() if p['user_api'] == 'blas']]))"
)

# each case starts a Python process of its own
pytestmark = pytest.mark.slow


def _probe(value: str | None) -> tuple[int, list[int]]:
    env = {k: v for k, v in os.environ.items() if k != "POSENC_BLAS_THREADS"}
    if value is not None:
        env["POSENC_BLAS_THREADS"] = value
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    asked, blas = json.loads(out.stdout.strip().splitlines()[-1])
    return asked, blas


@pytest.mark.parametrize(("value", "expected"), [(None, 1), ("1", 1), ("0", 1), ("two", 1), ("-3", 1), (" 1 ", 1)])
def test_one_blas_thread_by_default_and_for_bad_values(value, expected):
    asked, blas = _probe(value)
    assert asked == expected
    assert blas and all(n == expected for n in blas)


def test_a_larger_count_is_asked_for():
    asked, blas = _probe("2")
    assert asked == 2
    # OpenBLAS gives at most the threads it was built for on this machine, never fewer than 1
    assert blas and all(1 <= n <= 2 for n in blas)
