"""The suite's short class soak (tests/class_soak.py; ``tools/class_soak.py --runs 3`` runs the
whole one): a projector in presenter mode, a teacher laptop, three students and a late joiner,
through two app processes behind nginx, a plan of two views and two questions (a multiple
choice and a number) of one round each, with the class held, reloads, End and Extend, and both
downloads. Every page is checked after every step (issue 49)."""

from __future__ import annotations

import class_soak
import pytest

pytestmark = pytest.mark.browser


def test_a_scripted_class_through_two_processes_behind_nginx_never_glitches(browser):
    if not class_soak.nginx_installed():
        pytest.skip("nginx is not installed")
    found = class_soak.run_classes(browser, runs=1, rounds=1, short=True)
    assert found.problems == [], f"{len(found.problems)} findings in {found.steps} checked steps:\n" + "\n".join(
        found.problems
    )
    assert found.steps >= 25, "the class ran to its end"
