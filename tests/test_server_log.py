"""browser_support.log_problems: what in a server's log fails the browser tests (a
traceback, a line at WARNING or above that HARMLESS_LOG does not list) and what does not."""

from __future__ import annotations

import browser_support
from browser_support import LOG_FORMAT, log_problems

# lines as the test servers write them (``LOG_FORMAT``)
STARTED = "2026-11-26 12:26:44.049 INFO streamlit.web.server.starlette.starlette_server: Uvicorn server started"
ARROW = "\n".join(
    [
        "2026-11-26 12:30:01.101 INFO streamlit.dataframe_util: Serialization of dataframe to Arrow table was "
        "unsuccessful. Applying automatic fixes for column types to make the dataframe Arrow-compatible.",
        "Traceback (most recent call last):",
        '  File "/venv/lib/python3.11/site-packages/streamlit/dataframe_util.py", line 967, in convert_pandas_df',
        "    return pa.Table.from_pandas(df, preserve_index=preserve_index)",
        "",
        "pyarrow.lib.ArrowTypeError: (\"Expected bytes, got a 'int' object\", "
        "'Conversion failed for column round with type object')",
        "2026-11-26 12:30:06.104 INFO streamlit.dataframe_util: Serialization of dataframe to Arrow table failed.",
    ]
)
UNCAUGHT = """2026-11-26 12:23:31.778 ERROR streamlit.error_util: Uncaught app execution
Traceback (most recent call last):
  File "/work/wt/learner/posenc_lab/ui/class_views.py", line 391, in _live_results
    fig = vote_figure(course, poll, rounds, revealed=current.revealed is not None)
RecursionError: maximum recursion depth exceeded while calling a Python object"""


def test_the_format_names_the_level_and_the_logger():
    assert "%(levelname)s" in LOG_FORMAT and "%(name)s" in LOG_FORMAT


def test_a_quiet_log_has_no_problem():
    assert log_problems(f"{STARTED}\n\n  You can now view your Streamlit app in your browser.\n\n  Stopping...\n") == []


def test_a_traceback_is_a_problem_even_in_a_line_logged_at_info():
    problems = log_problems(f"{STARTED}\n{ARROW}\n")
    assert len(problems) == 1
    assert problems[0].startswith("Traceback") and "Conversion failed for column round" in problems[0]


def test_an_error_line_and_its_traceback_are_problems():
    problems = log_problems(UNCAUGHT)
    assert problems[0] == "ERROR streamlit.error_util: Uncaught app execution"
    assert "RecursionError" in problems[1]


def test_a_warning_is_a_problem_unless_listed(monkeypatch):
    line = "2026-11-26 12:00:00.000 WARNING streamlit.some.module: Something odd happened"
    assert log_problems(line) == ["WARNING streamlit.some.module: Something odd happened"]
    monkeypatch.setattr(browser_support, "HARMLESS_LOG", (("streamlit.some.module", "Something odd", "a test"),))
    assert log_problems(line) == []
    other = line.replace("streamlit.some.module", "posenc_lab.ui")
    assert log_problems(other) == ["WARNING posenc_lab.ui: Something odd happened"], "the logger must match too"


def test_each_harmless_line_says_why():
    for name, start, why in browser_support.HARMLESS_LOG:
        assert name and start and len(why) > 20, (name, start)
