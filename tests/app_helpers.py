"""Helpers for the AppTest-based page tests."""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
APP = ROOT / "app.py"
from posenc_lab.course import LESSONS  # noqa: E402

#: settings that keep a page cheap under the generic tests (the experiments page trains
#: six models for every new setting; the generic tests only need it to run)
CHEAP = {"posenc_lab/lessons/experiments/page.py": {"train_len": "8", "steps": "50", "width": "16"}}


LESSON_PAGES = tuple(lesson.path for lesson in LESSONS)
#: every (page, URL) that shows its own set of controls and figures
VIEW_CASES = tuple(
    (lesson.path, {**CHEAP.get(lesson.path, {}), **({"view": view} if view else {})})
    for lesson in LESSONS
    for view in (lesson.views or [None])
)
VIEW_IDS = [f"{page.split('/')[-2]}{'-' + q['view'] if 'view' in q else ''}" for page, q in VIEW_CASES]
TIMEOUT = 60
#: values no control accepts as they are (or only some kinds do): words, signs, huge numbers,
#: not-a-number, nothing, a fraction, an encoded NUL, 40 digits
GARBAGE = ["abc", "-5", "1e12", "nan", "", "0.5", "%00", "9" * 40]


def free_port() -> int:
    """A loopback port free now, for a server a test starts: ``classroom_load.free_port``,
    which under pytest-xdist keeps to a block of the worker's own, so servers started at
    once by two workers never share a port."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from classroom_load import free_port as benchmark_free_port

    return benchmark_free_port()


def nginx_pair_env(db: str, prefix: str) -> tuple[str, int, dict[str, str]]:
    """A run folder, a proxy port and the environment for ``deploy/run_two.sh``: two app
    processes on free ports behind nginx, on the class database ``db``, not warmed (a test
    measures what it does, not a first view's speed). The folder is readable by nginx's
    workers, which run as an unprivileged user when nginx is started as root."""
    import os
    import tempfile

    from posenc_lab.classroom import store as class_store

    run_dir = tempfile.mkdtemp(prefix=prefix)
    os.chmod(run_dir, 0o755)
    proxy = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k != "NGINX"},
        "RUN_DIR": run_dir,
        "PROXY_PORT": str(proxy),
        "BACKEND_PORTS": f"{free_port()} {free_port()}",
        "PYTHON": sys.executable,
        "WARM": "0",
        class_store.SETTING: db,
    }
    return run_dir, proxy, env


def open_page(page: str | None = None, query: dict[str, str] | None = None) -> AppTest:
    """Run the app as a fresh session, go to ``page`` and run it with ``query`` in the URL.

    AppTest must run the home page first; it gets the same URL, as if the link had opened
    there, so that shell controls (presenter mode) read it on their first draw too.
    """
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    if query:
        at.query_params.update(query)
    at.run()
    if page is not None:
        at.switch_page(page)
    if query:
        at.query_params.clear()
        at.query_params.update(query)
    if page is not None or query:
        at.run()
    return at


def default_view(page: str, query: dict[str, str]) -> AppTest:
    """``open_page(page, query)``, opened once per test process and shared by the checks that
    only read what a fresh session shows (a view at its defaults). It is never run again: a
    test that tries (``run``, a widget's ``set_value(...).run()``, ``switch_page(...).run()``)
    fails, so no check sees another's moves; a test that moves anything uses ``open_page``.
    """
    return _default_view(page, tuple(query.items()))


@functools.cache
def _default_view(page: str, query: tuple[tuple[str, str], ...]) -> AppTest:
    at = open_page(page, dict(query))

    def refuse(*args, **kwargs):
        raise AssertionError(f"default_view({page!r}) is shared and read-only: open_page gives a session to move")

    # every rerun (at.run, a widget's .run(), switch_page(...).run()) goes through AppTest._run
    at._run = refuse
    return at


def panel_specs(at: AppTest) -> dict[str, list[dict]]:
    """Chart key -> the Plotly specs of its panels, in page order (one for most charts;
    ``layout.chart`` draws a multi-panel figure as one chart per panel, keyed ``key__n``)."""
    out: dict[str, list[dict]] = {}
    for el in at.get("plotly_chart"):
        out.setdefault(str(el.key).split("__")[0], []).append(json.loads(el.proto.spec))
    return out


def charts(at: AppTest) -> list[dict]:
    """One spec per chart the page drew, read as the page shows it: its title (printed
    above the chart, kept in ``layout.meta``) back in ``layout.title``, and a chart drawn
    as several panels joined into one spec (their traces in order, each panel's title
    as an annotation)."""
    joined = []
    for panels in panel_specs(at).values():
        spec = panels[0]
        meta = spec["layout"].get("meta") or {}
        if len(panels) > 1:
            notes = []
            for panel in panels:
                notes += panel["layout"].get("annotations", [])
                notes.append({"text": (panel["layout"].get("meta") or {}).get("title", "")})
            for panel in panels[1:]:
                spec["data"] += panel["data"]
            spec["layout"]["annotations"] = notes
            title = meta.get("chart_title", "")
        else:
            title = meta.get("title", "")
        spec["layout"]["title"] = {"text": title}
        joined.append(spec)
    return joined


def chart_bytes(at: AppTest) -> list[int]:
    return [len(el.proto.spec.encode()) for el in at.get("plotly_chart")]


def assert_clean(at: AppTest) -> None:
    """No exception element and no error box (a core error shown on purpose is tested apart)."""
    assert not at.exception, [e.message for e in at.exception]


def notices(at: AppTest) -> list[str]:
    """Each "What to notice" text the page shows, whole: its lead (a caption) and the rest
    folded under it in a "More to notice" expander (``ui.layout.notice``), joined by a space."""
    rest = {id(c.proto) for e in at.expander if e.label == "More to notice" for c in e.caption}
    out: list[str] = []
    for c in at.caption:
        if c.value.startswith("**What to notice:**"):
            out.append(c.value)
        elif id(c.proto) in rest and out:
            out[-1] += " " + c.value
    return out


def continue_teaching(code: str, key: str, query: dict[str, str] | None = None) -> AppTest:
    """The class page as a returning teacher opens it: "Continue teaching a class" with the
    class's code and teacher key typed (the key is never carried in a link)."""
    from posenc_lab import course

    at = open_page(course.CLASS.path, query)
    at.text_input(key="class_resume_code").set_value(code)
    at.text_input(key="class_resume_key").set_value(key)
    next(b for b in at.button if b.label == "Continue teaching").click().run()
    return at


# the class page under AppTest (tests/test_page_class*.py)


def button(at: AppTest, label: str):
    """The page's button labelled ``label``."""
    return next(b for b in at.button if b.label == label)


def class_texts(at: AppTest, *, as_read: bool = False) -> str:
    """The page's Markdown sources, messages and captions; ``as_read`` adds its code blocks and
    drops the Markdown escapes of people's text (``classroom.plain``), as the page reads."""
    parts = [m.value for m in at.markdown] + [e.value for e in at.error] + [w.value for w in at.warning]
    parts += [i.value for i in at.info] + [s.value for s in at.success] + [c.value for c in at.caption]
    if not as_read:
        return "\n".join(str(p) for p in parts)
    parts += [c.value for c in at.code]
    return re.sub(r"\\(.)", r"\1", "\n".join(str(p) for p in parts))


def fresh_class_pages(*pages: AppTest) -> None:
    """Each class page at its next check, past the class state's one-second cache."""
    from posenc_lab.classroom import views

    for at in pages:
        views._class_state.clear()
        views._watched.clear()
        at.run()
        assert not at.exception, [e.message for e in at.exception]


def start_class(title: str = "") -> tuple:
    """A teacher's session that pressed "Start a class": (the AppTest, the code, the key)."""
    from posenc_lab import course
    from posenc_lab.classroom import session as classroom

    at = open_page(course.CLASS.path)
    assert not at.exception
    if title:
        next(t for t in at.text_input if t.label.startswith("Class name")).set_value(title)
    button(at, "Start a class").click().run()
    assert not at.exception
    code, key = at.session_state[classroom.TEACHER]
    return at, code, key


def join_class(code: str, nickname: str = "") -> AppTest:
    """A student's session that opened the join link of class ``code`` and pressed "Join"."""
    from posenc_lab import course

    at = open_page(course.CLASS.path, {"class": code})
    assert not at.exception
    code_box = next(t for t in at.text_input if t.label == "Class code")
    assert code_box.value == code  # the join link fills the form in
    if nickname:
        next(t for t in at.text_input if t.label.startswith("Nickname")).set_value(nickname)
    button(at, "Join").click().run()
    assert not at.exception
    return at
