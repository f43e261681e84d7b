"""``posenc-lab``: the app as a command, wherever the package is installed.

``posenc-lab [options]`` is ``streamlit run app.py [options]`` with this package's own entry
script, so every option of ``streamlit run`` passes through (``--server.port 8502``,
``--server.address 0.0.0.0``, ``--theme.base dark``).

The wheel installs ``app.py`` and ``.streamlit/config.toml`` beside the ``lessons`` and ``ui``
packages (pyproject.toml), the same layout as a checkout, because

- the pages are files named relative to the entry script's folder (``lessons/<name>.py``), and
- Streamlit reads the ``.streamlit/config.toml`` next to the entry script as well as the one in
  the working directory, and gives it precedence over that one and the user's global file:
  the theme and the server settings apply wherever the command is started, while
  environment variables (``STREAMLIT_SERVER_PORT``) and flags still override them.

So the command only has to find ``app.py``: one folder up from this file, in site-packages
as in a checkout (or an editable install).
"""

from __future__ import annotations

import sys
from pathlib import Path

import posenc

#: the folder holding app.py, .streamlit/, lessons/ and ui/
ROOT = Path(__file__).resolve().parent.parent
ENTRY = ROOT / "app.py"

USAGE = """\
usage: posenc-lab [--version] [STREAMLIT OPTIONS]

Starts the posenc-lab app (then open the address it prints, http://localhost:8501 by default).
Every option of `streamlit run` passes through, for example:

  posenc-lab --server.port 8502                 another port
  posenc-lab --server.address 0.0.0.0           reachable from other machines (a classroom)

`streamlit run --help` lists them all.
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if "--version" in args:
        print(f"posenc-lab {posenc.__version__}")
        return 0
    if args[:1] in (["-h"], ["--help"]):
        print(USAGE, end="")
        return 0
    if not ENTRY.is_file():
        print(f"posenc-lab: the app's entry script is missing ({ENTRY}); reinstall the package.", file=sys.stderr)
        return 1
    try:
        from streamlit.web import cli as streamlit_cli
    except ImportError:  # installed with --no-deps, for the library alone (README)
        print("posenc-lab: Streamlit is not installed; install the package with its dependencies", file=sys.stderr)
        return 1
    # click runs the command and exits with its status, as the `streamlit` command does
    return streamlit_cli.main(["run", str(ENTRY), *args], prog_name="posenc-lab")
