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


# pictographs, dingbats, arrows and media symbols that need an emoji font (a bare Debian
# Chromium draws them as empty boxes); Material icons come from Streamlit's own font
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u23e9-\u23fa\ufe0f]")


def test_no_text_the_app_shows_depends_on_an_emoji_font():
    offenders = [
        f"{p.relative_to(ROOT)}:{n}"
        for folder in ("lessons", "ui", "figures")
        for p in [*(ROOT / folder).rglob("*.py"), ROOT / "app.py"]
        for n, line in enumerate(p.read_text().splitlines(), start=1)
        if EMOJI.search(line)
    ]
    assert not offenders
