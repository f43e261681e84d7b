"""The package as a user gets it: ``pip install .``, then ``import posenc`` or ``posenc-lab``.

A wheel built from this checkout is installed, with its dependencies from the package index
pip is configured with, into a fresh venv in a temporary folder, and every check runs from
another temporary folder, so nothing can come from the checkout: the library's known values,
the README's notebook example, the stored experiments, and the ``posenc-lab`` command serving
a lesson with the packaged config. One venv for the module (the install takes a minute or two).
"""

from __future__ import annotations

import http.cookiejar
import inspect
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from app_helpers import free_port
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NewSession_pb2 import Config
from websockets.sync.client import connect

import posenc
from posenc_lab.course import CLASS, HOME, LESSONS, REFERENCE
from posenc_lab.lessons.sinusoidal import lesson as sinusoidal

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
#: a flag given to posenc-lab that overrides one packaged setting: flags pass through to Streamlit
DARK_PRIMARY_FLAG = "#E69F00"

pytestmark = pytest.mark.install


def _run(cmd: list, *, cwd: Path, env: dict | None = None, timeout: float = 900) -> str:
    result = subprocess.run(
        [str(part) for part in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert result.returncode == 0, (
        f"{' '.join(map(str, cmd))} exited {result.returncode}:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    )
    return result.stdout


def _outside_env(**extra: str) -> dict[str, str]:
    """The environment without anything that could put the checkout on the path; pip keeps
    its configuration (PIP_*, the config files under HOME), so the install uses the same index."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return {**env, **extra}


@pytest.fixture(scope="module")
def workdir():
    # a plain temporary folder (not pytest's, which keeps the last three runs): the venv is ~600 MB
    with tempfile.TemporaryDirectory(prefix="posenc-lab-install-") as where:
        yield Path(where)


@pytest.fixture(scope="module")
def wheel(workdir) -> Path:
    out = workdir / "wheel"
    out.mkdir()
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", out, ROOT], cwd=workdir)
    (built,) = out.glob("posenc_lab-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, workdir) -> Path:
    where = workdir / "venv"
    _run([sys.executable, "-m", "venv", where], cwd=workdir, env=_outside_env())
    # --no-compile: the checks import a small part of what is installed, and byte-compiling all
    # of it writes (and the cleanup deletes) some 7000 more files than it saves
    _run(
        [where / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-compile", wheel],
        cwd=workdir,
        env=_outside_env(),
    )
    return where


@pytest.fixture
def outside(tmp_path) -> Path:
    """A working folder that is neither the checkout nor the venv."""
    return tmp_path


def _python(venv: Path, code: str, cwd: Path) -> dict:
    """Run ``code`` with the venv's Python; it prints one JSON line, returned as a dict."""
    return json.loads(_run([venv / "bin" / "python", "-c", code], cwd=cwd, env=_outside_env()).strip().splitlines()[-1])


# the library


def test_the_installed_library_computes_known_values(venv, wheel, outside):
    got = _python(
        venv,
        "import importlib.metadata, json, posenc\n"
        "print(json.dumps({'file': posenc.__file__, 'version': posenc.__version__,\n"
        "    'metadata': importlib.metadata.version('posenc-lab'), 'row': posenc.sinusoidal(2, 4)[1].tolist()}))",
        outside,
    )
    assert Path(got["file"]).is_relative_to(venv), got["file"]  # the install's, not the checkout's
    # the version is written once (posenc.__version__) and reaches the wheel's name and metadata
    assert got["version"] == got["metadata"] == posenc.__version__ == wheel.name.split("-")[1]
    # PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(...): position 1, D = 4
    expected = [math.sin(1.0), math.cos(1.0), math.sin(0.01), math.cos(0.01)]
    assert got["row"] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def _readme_notebook_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Install it as a package.*?(?=^## )", readme, re.MULTILINE | re.DOTALL)
    assert section, "README: the section '## Install it as a package ...' is gone"
    block = re.search(r"```python\n(.*?)```", section.group(0), re.DOTALL)
    assert block, "README: the install section has no python example"
    return block.group(1)


def test_the_readmes_notebook_example_runs_in_the_install(venv, outside):
    # as a notebook cell: the statements run, and the last expression is what Jupyter shows
    code = (
        "import ast, json\n"
        "import plotly.io as pio\n"
        f"tree = ast.parse({_readme_notebook_example()!r})\n"
        "shown = tree.body.pop()\n"
        "scope = {}\n"
        "exec(compile(tree, 'cell', 'exec'), scope)\n"
        "fig = eval(compile(ast.Expression(shown.value), 'cell', 'eval'), scope)\n"
        "spec = json.loads(pio.to_json(fig))\n"  # what a notebook's Plotly renderer is sent
        "print(json.dumps({'kind': type(fig).__module__ + '.' + type(fig).__name__,\n"
        "    'traces': [t['type'] for t in spec['data']], 'cells': [len(t.get('z', [])) for t in spec['data']]}))"
    )
    got = _python(venv, code, outside)
    assert got["kind"] == "plotly.graph_objs._figure.Figure"
    assert got["traces"] and all(n > 0 for n in got["cells"]), got


# what the wheel carries


def test_the_wheel_carries_every_lesson_the_entry_script_its_config_and_the_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    data = ROOT / "posenc_lab" / "lessons" / "experiments" / "data"
    expected = {
        "posenc_lab/app.py",
        "posenc_lab/.streamlit/config.toml",
        "posenc_lab/ui/app.css",
        *(p.relative_to(ROOT).as_posix() for p in (ROOT / "posenc_lab" / "lessons").rglob("*.py")),
        *(p.relative_to(ROOT).as_posix() for p in (ROOT / "posenc_lab" / "classroom").rglob("*.py")),
        *(p.relative_to(ROOT).as_posix() for p in data.iterdir() if p.is_file()),
    }
    assert not expected - names, f"missing from the wheel: {sorted(expected - names)}"
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(n for n in expected if n.startswith("posenc_lab/lessons/experiments/data/")):
            assert zf.read(name) == (ROOT / name).read_bytes(), name
        assert zf.read("posenc_lab/.streamlit/config.toml") == (ROOT / ".streamlit" / "config.toml").read_bytes()


def test_the_wheel_adds_only_its_own_names_to_site_packages(wheel):
    # site-packages is shared with every other project: the wheel adds the library, the app
    # and its own metadata, and no generic top-level name (ui, figures, app.py) to collide with
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    dist_info = {top for top in tops if top.endswith(".dist-info")}
    assert dist_info == {f"posenc_lab-{posenc.__version__}.dist-info"}, dist_info
    assert tops - dist_info == {"posenc", "posenc_lab"}, sorted(tops)


def test_the_installed_site_packages_holds_only_the_wheels_names(venv):
    # the same, measured where pip put the files: what the install added next to pip itself
    site = next((venv / "lib").glob("python3*/site-packages"))
    ours = {p.name for p in site.iterdir() if p.name.startswith(("posenc", "posenc_lab"))}
    assert ours == {"posenc", "posenc_lab", f"posenc_lab-{posenc.__version__}.dist-info"}, sorted(ours)
    assert not [p.name for p in site.iterdir() if p.name in ("ui", "figures", "lessons", "classroom", "app.py")]


def _stored_experiments(compute_experiment, tasks: list[str]) -> dict:
    """Each stored run read by the app's own loader, with the settings stored in it."""
    import numpy as np

    from posenc import experiment as ex

    out = {}
    for task in tasks:
        path = compute_experiment.precomputed_path(task)
        with np.load(path) as f:
            cfg = {k.removeprefix("config_"): f[k].tolist() for k in f.files if k.startswith("config_")}
        cfg = ex.ExperimentConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in cfg.items()})
        summary = compute_experiment.load(path, cfg)
        out[task] = {"path": str(path), "accuracy": summary["accuracy"], "lengths": summary["lengths"]}
    return out


def test_the_stored_experiments_load_from_the_install(venv, outside):
    from posenc_lab.lessons.experiments import compute as compute_experiment

    data = ROOT / "posenc_lab" / "lessons" / "experiments" / "data"
    tasks = sorted(p.stem.removeprefix("experiment_") for p in data.glob("experiment_*.npz"))
    assert tasks
    # the same function, run by the venv's Python on the installed files
    code = (
        "import json, textwrap\n"
        "from posenc_lab.lessons.experiments import compute as compute_experiment\n"
        f"exec(textwrap.dedent({inspect.getsource(_stored_experiments)!r}))\n"
        f"print(json.dumps(_stored_experiments(compute_experiment, {tasks!r})))"
    )
    installed = _python(venv, code, outside)
    here = _stored_experiments(compute_experiment, tasks)
    for task in tasks:
        assert Path(installed[task]["path"]).is_relative_to(venv), installed[task]["path"]
        assert len(installed[task]["accuracy"]) == 6  # none, learned, sinusoidal, RoPE, ALiBi, T5
        assert installed[task]["accuracy"] == here[task]["accuracy"]
        assert installed[task]["lengths"] == here[task]["lengths"]


# the command


def test_posenc_lab_prints_its_version(venv, outside):
    out = _run([venv / "bin" / "posenc-lab", "--version"], cwd=outside, env=_outside_env())
    assert out.strip() == f"posenc-lab {posenc.__version__}"


@dataclass
class Server:
    url: str
    log: Path


@pytest.fixture(scope="module")
def server(venv, workdir):
    """``posenc-lab`` started from a folder with no .streamlit/ and an empty HOME (so no config
    but the packaged one can apply), with Streamlit options on its command line."""
    cwd, home = workdir / "elsewhere", workdir / "home"
    cwd.mkdir()
    home.mkdir()
    port = free_port()
    log = workdir / "server.log"
    cmd = [
        venv / "bin" / "posenc-lab",
        "--server.port",
        port,
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--theme.dark.primaryColor",
        DARK_PRIMARY_FLAG,
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(c) for c in cmd], cwd=cwd, env=_outside_env(HOME=str(home)), stdout=out, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200 and r.read() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"posenc-lab did not answer its health check:\n{log.read_text(errors='replace')}")
            time.sleep(0.3)
        yield Server(url, log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


@dataclass
class Visit:
    """What the server sent one browser session that opened a page."""

    new_session: object = None
    pages: dict[str, str] = field(default_factory=dict)  # page script hash -> url path
    landed: str = ""
    status: str = ""
    elements: Counter = field(default_factory=Counter)
    headings: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)


def _open(url: str, url_path: str, timeout: float = 120) -> Visit:
    """Open a page as Streamlit's frontend does: the XSRF cookie from an HTTP request, then a
    websocket that asks for a run of the page by its URL path and reads until the run ends."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{url}/{url_path}", timeout=30) as r:
        assert r.status == 200
    with opener.open(f"{url}/_stcore/health", timeout=30) as r:
        r.read()
    cookies = {c.name: c.value for c in jar}
    xsrf = cookies.get("_streamlit_xsrf")
    visit = Visit()
    with connect(
        url.replace("http://", "ws://") + "/_stcore/stream",
        subprotocols=["streamlit", xsrf] if xsrf else ["streamlit"],
        origin=url,
        additional_headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())},
        max_size=None,
        open_timeout=30,
    ) as ws:
        back = BackMsg()
        back.rerun_script.page_name = url_path
        info = back.rerun_script.context_info
        info.timezone, info.locale, info.url = "UTC", "en-US", f"{url}/{url_path}"
        ws.send(back.SerializeToString())
        deadline = time.monotonic() + timeout
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(ws.recv(timeout=max(deadline - time.monotonic(), 0.1)))
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                visit.new_session = msg.new_session
            elif kind == "navigation":
                visit.pages = {p.page_script_hash: p.url_pathname for p in msg.navigation.app_pages}
                visit.landed = visit.pages.get(msg.navigation.page_script_hash, "")
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                etype = element.WhichOneof("type")
                visit.elements[etype] += 1
                if etype == "heading":
                    visit.headings.append(element.heading.body)
                elif etype == "exception":
                    visit.exceptions.append(f"{element.exception.type}: {element.exception.message}")
            elif kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                visit.status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
                return visit


@pytest.fixture(scope="module")
def lesson_visit(server) -> Visit:
    return _open(server.url, sinusoidal.LESSON.url_path)


def test_posenc_lab_serves_a_lesson_from_the_install(lesson_visit, venv):
    visit = lesson_visit
    assert visit.status == "FINISHED_SUCCESSFULLY"
    assert not visit.exceptions
    # the installed entry script ran, found its pages beside it, and ran the lesson asked for
    assert Path(visit.new_session.main_script_path).is_relative_to(venv)
    assert set(visit.pages.values()) == {
        HOME.url_path,
        CLASS.url_path,
        *(lesson.url_path for lesson in (*LESSONS, *REFERENCE)),
    }
    assert visit.landed == sinusoidal.LESSON.url_path
    assert sinusoidal.LESSON.title in visit.headings
    assert visit.elements["plotly_chart"] >= 1  # posenc computed, figures drew


def test_the_packaged_config_applies_and_flags_override_it(lesson_visit):
    theme = lesson_visit.new_session.custom_theme
    assert theme.light.primary_color == CONFIG["theme"]["light"]["primaryColor"]
    assert theme.dark.primary_color == DARK_PRIMARY_FLAG != CONFIG["theme"]["dark"]["primaryColor"]
    toolbar = Config.ToolbarMode.Name(lesson_visit.new_session.config.toolbar_mode)
    assert toolbar.lower() == CONFIG["client"]["toolbarMode"]


def test_the_server_log_has_no_traceback(lesson_visit, server):
    assert "Traceback" not in server.log.read_text(errors="replace")
