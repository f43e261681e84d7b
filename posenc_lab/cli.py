"""``posenc-lab``: the app as a command, wherever the package is installed.

``posenc-lab [options]`` is ``streamlit run posenc_lab/app.py [options]`` with this
package's own entry script, so every option of ``streamlit run`` passes through
(``--server.port 8502``, ``--server.address 0.0.0.0``, ``--theme.base dark``).

The wheel installs the repository's ``.streamlit/config.toml`` as
``posenc_lab/.streamlit/config.toml``, beside the entry script (pyproject.toml): Streamlit
reads the ``.streamlit/config.toml`` next to the entry script as well as the one in the
working directory, and gives it precedence over that one and the user's global file, so the
theme and the server settings apply wherever the command is started, while environment
variables (``STREAMLIT_SERVER_PORT``) and flags still override them. The pages are given to
Streamlit as absolute paths (``Lesson.page_file``), so they resolve from either entry script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import posenc

#: the entry script, beside this file
ENTRY = Path(__file__).resolve().with_name("app.py")

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
