"""The layers hold: imports run one way (app -> course -> lessons -> classroom -> ui ->
figures -> posenc, class mode's record keeping below its pages), no module imports itself back
through others, and the measurements (``posenc``, each lesson's ``measure`` and class mode's
record keeping) import neither Streamlit nor Plotly.

Every import counts, at the top of a module or inside a function: a lazy import is still an
edge of the graph (it only hides the cycle until the function runs)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("posenc", "posenc_lab")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The app's modules that ``name`` imports, anywhere in its body (relative imports resolved)."""
    is_package = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - node.level + 1]
                base = ".".join(here + ([base] if base else []))
            # ``from a import b`` imports the module a.b when there is one, else a name of a
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        out.update(t for t in targets if t in MODULES and t != name)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read():
    # the test reads real imports: the shell imports the layout, a lesson its compute module
    assert "posenc_lab.ui.layout" in GRAPH["posenc_lab.ui.shell"]
    assert "posenc_lab.lessons.rope.compute" in GRAPH["posenc_lab.lessons.rope.lesson"]
    assert "posenc._checks" in GRAPH["posenc.rope.frequencies"]  # a relative import, resolved


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_the_apps_modules():
    assert _cycles(GRAPH) == []


#: class mode's pure part (``posenc_lab/classroom/``, as a lesson's ``measure.py``): the class
#: database, the results, the tally, a sketch's maths, network addresses; no Streamlit, no
#: Plotly. The rest of the folder (its figures, pages and views) is the layer ``classroom``.
CLASS_RECORDS = ("store", "report", "tally", "sketch", "address")


def _layer(name: str) -> str:
    parts = name.split(".")
    if parts[0] == "posenc":
        return "posenc"
    if len(parts) == 1:
        return "posenc_lab"
    if parts[1] == "classroom" and (len(parts) == 2 or parts[2] in CLASS_RECORDS):
        return "class_records"  # the package's __init__ re-exports the store
    return parts[1]  # app, cli, course, lessons, classroom, ui, figures


#: what each layer may import (itself always)
ALLOWED = {
    "posenc": {"posenc"},
    "class_records": {"class_records"},
    "figures": {"figures", "posenc"},
    # ui imports nothing of class mode: it reaches class mode's part of every page through the
    # course (``ui.lesson.ClassMode``), and a poll is class mode's (``classroom.poll``)
    "ui": {"ui", "figures", "posenc"},
    # class mode's figures, pages, views and polls: above ui
    "classroom": {"classroom", "class_records", "ui", "figures", "posenc"},
    "lessons": {"lessons", "classroom", "ui", "figures", "class_records", "posenc"},
    "course": {"lessons", "classroom", "ui"},
    "app": {"course", "ui"},
    "cli": {"posenc"},
    "posenc_lab": set(),
}


@pytest.mark.parametrize("name", sorted(GRAPH), ids=sorted(GRAPH))
def test_imports_run_down_the_layers(name):
    layer = _layer(name)
    wrong = sorted(t for t in GRAPH[name] if _layer(t) not in ALLOWED[layer] | {layer})
    assert not wrong, f"{name} ({layer}) imports {wrong}"


MEASUREMENTS = sorted(n for n in MODULES if n.startswith("posenc_lab.lessons.") and n.endswith(".measure"))


def test_every_lesson_measurement_module_is_found():
    assert {n.split(".")[2] for n in MEASUREMENTS} >= {"claims", "choices", "compare", "design", "rope"}


CLASS_RECORD_MODULES = sorted(n for n in MODULES if _layer(n) == "class_records")


def test_class_modes_pure_part_is_found():
    assert {n.split(".")[2] for n in CLASS_RECORD_MODULES if n.count(".") >= 2} == set(CLASS_RECORDS)
    assert {"posenc_lab.classroom", "posenc_lab.classroom.store.schema"} <= set(CLASS_RECORD_MODULES)
    # and the rest of class mode is its own layer, above ui
    assert _layer("posenc_lab.classroom.views") == "classroom" and "posenc_lab.classroom.views" in MODULES


@pytest.mark.parametrize("name", ["posenc", *MEASUREMENTS, *CLASS_RECORD_MODULES])
def test_measurements_name_no_ui_library(name):
    # a package and its modules of the same layer (class mode's __init__, not its pages)
    inside = [p for n, p in MODULES.items() if n == name or (n.startswith(name + ".") and _layer(n) == _layer(name))]
    for path in inside:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            assert not [n for n in names if n.split(".")[0] in ("streamlit", "plotly")], f"{path}: {names}"


def test_measurements_import_with_numpy_alone():
    # what a notebook user gets: the library and every lesson's measurements, and neither
    # Streamlit nor Plotly loaded (a package's __init__ on the way in would count too); the
    # same for class mode's pure part (a script reading the class database)
    code = (
        "import importlib, json, sys\n"
        f"for name in {['posenc', *MEASUREMENTS, *CLASS_RECORD_MODULES]!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'streamlit', 'plotly', 'pandas'})))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
