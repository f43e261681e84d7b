"""House rules checked on the source itself."""

import re
import subprocess
import sys

from app_helpers import ROOT


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_core_imports_neither_streamlit_nor_plotly():
    pattern = re.compile(r"^\s*(import|from)\s+(streamlit|plotly)\b", re.MULTILINE)
    offenders = [p.name for p in (ROOT / "posenc").rglob("*.py") if pattern.search(p.read_text())]
    assert not offenders


def test_no_page_renders_raw_html():
    offenders = [
        str(p.relative_to(ROOT))
        for folder in ("lessons", "ui", "figures")
        for p in (ROOT / folder).rglob("*.py")
        if "unsafe_allow_html" in p.read_text()
    ]
    assert not offenders
