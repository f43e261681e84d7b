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


#: every Python file of the app (the library's are checked above)
APP_FILES = sorted((ROOT / "posenc_lab").rglob("*.py")) + [ROOT / "app.py"]


def test_the_app_files_are_found():
    # the checks below read these files: an empty list would pass them all
    assert len(APP_FILES) > 50
    assert ROOT / "posenc_lab" / "ui" / "shell.py" in APP_FILES


def test_no_page_renders_raw_html():
    offenders = [str(p.relative_to(ROOT)) for p in APP_FILES if "unsafe_allow_html" in p.read_text()]
    assert not offenders


# pictographs, dingbats, arrows and media symbols that need an emoji font (a bare Debian
# Chromium draws them as empty boxes); Material icons come from Streamlit's own font
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u23e9-\u23fa\ufe0f]")


def test_no_text_the_app_shows_depends_on_an_emoji_font():
    offenders = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in APP_FILES
        for n, line in enumerate(p.read_text().splitlines(), start=1)
        if EMOJI.search(line)
    ]
    assert not offenders


def _plotly_private_names() -> set[str]:
    """The underscore attributes of Plotly's figure, layout, trace and frame objects."""
    import plotly.graph_objects as go

    objects = [go.Figure(data=[go.Heatmap(z=[[1]])], frames=[go.Frame(name="f")]), go.Layout(), go.Scatter()]
    objects += [go.Frame(), go.layout.XAxis(), go.layout.Annotation()]
    return {n for o in objects for n in dir(o) if n.startswith("_") and not n.startswith("__")}


def test_only_figures_plotly_private_touches_plotlys_private_api():
    # named anywhere: Plotly's private modules and their functions, the constructor's _validate
    named = re.compile(
        r"_plotly_utils|validator_cache|ValidatorCache|\b_validate\b|\b_valid_props\b|plotlyjsShortTypes"
        r"|to_typed_array_spec|convert_to_base64|is_skipped_key|is_homogeneous_array|copy_to_readonly_numpy_array"
        r"|from\s+plotly[\w.]*\s+import\s+_|\bplotly(\.\w+)*\._\w"
    )
    # read as an attribute (fig._data) or by name (getattr(fig, "_props")); an app's own
    # variable of the same name (a Streamlit cache argument ``_data``) is not Plotly's
    private = _plotly_private_names()
    attribute = re.compile(r"\.(_[A-Za-z]\w*)\b|[\"'](_[A-Za-z]\w*)[\"']")
    files = [*APP_FILES, *(ROOT / "posenc").rglob("*.py")]
    assert ROOT / "posenc_lab" / "figures" / "plotly_private.py" in files
    offenders = []
    for p in files:
        if p == ROOT / "posenc_lab" / "figures" / "plotly_private.py":
            continue
        for n, line in enumerate(p.read_text().splitlines(), start=1):
            found = [m[0] for m in named.finditer(line)]
            found += [m[1] or m[2] for m in attribute.finditer(line) if (m[1] or m[2]) in private]
            if found:
                offenders.append(f"{p.relative_to(ROOT)}:{n}: {', '.join(found)}")
    assert not offenders
