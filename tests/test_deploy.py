"""deploy/run_two.sh writes nginx's config for any number of app processes.

The processes themselves, behind that config, are tested in tests/test_browser_class.py
(a class through nginx); here the config, which nginx itself checks (``nginx -t``), and
what nginx alone, its backends down, writes to its logs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from app_helpers import ROOT

SCRIPT = ROOT / "deploy" / "run_two.sh"
TEMPLATE = ROOT / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
BACKEND = re.compile(r"^\s*server 127\.0\.0\.1:(\d+) ", re.MULTILINE)

pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (scripts/test.sh installs it)")


def _config(tmp_path: Path, ports: str, **env: str) -> str:
    run_dir = tmp_path / "run"
    done = subprocess.run(
        [str(SCRIPT), "config"],
        cwd=ROOT,
        env={**os.environ, "RUN_DIR": str(run_dir), "BACKEND_PORTS": ports, "NGINX": NGINX, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(run_dir / "nginx.conf")
    return (run_dir / "nginx.conf").read_text()


@pytest.mark.parametrize("ports", ["8601", "8601 8602", "8601 8602 8603 8604"])
def test_one_backend_line_per_port_in_order_and_nothing_else_changed(tmp_path, ports):
    config = _config(tmp_path, ports, PROXY_PORT="8099")
    assert BACKEND.findall(config) == ports.split()
    assert "listen 127.0.0.1:8099;" in config
    # every other line is the template's (the backend lines and the listen line aside)
    template = [line for line in TEMPLATE.read_text().splitlines() if not BACKEND.match(line) and "listen " not in line]
    written = [line for line in config.splitlines() if not BACKEND.match(line) and "listen " not in line]
    assert written == template
    # each backend keeps the template's failure settings
    assert config.count("max_fails=1 fail_timeout=10s;") == len(ports.split())


def test_sticky_picks_the_hash_line(tmp_path):
    assert "hash $remote_addr consistent;  # STICKY" in _config(tmp_path, "8601 8602", STICKY="addr")


def test_no_port_a_bad_port_or_an_unknown_sticky_is_refused(tmp_path):
    for env in ({"BACKEND_PORTS": " "}, {"BACKEND_PORTS": "8601 86o2"}, {"BACKEND_PORTS": "8601", "STICKY": "random"}):
        done = subprocess.run(
            [str(SCRIPT), "config"],
            cwd=ROOT,
            env={**os.environ, "RUN_DIR": str(tmp_path / "run"), "NGINX": NGINX, **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2
        assert "BACKEND_PORTS" in done.stderr or "STICKY" in done.stderr


@pytest.mark.slow
def test_no_key_or_student_id_reaches_nginxs_logs_when_a_backend_is_down(tmp_path):
    """With every app process down, nginx answers 502 and logged the full request line in
    its error log (``GET /class?class=...&teacher=KEY``, ``&student=ID``): the access log
    leaves the query out (``log_format posenc``), and the error log now keeps only what is
    critical, which no request line is."""
    import time
    import urllib.error
    import urllib.request

    from app_helpers import free_port

    proxy, down = free_port(), free_port()
    _config(tmp_path, str(down), PROXY_PORT=str(proxy))
    run_dir = tmp_path / "run"
    (run_dir / "logs").mkdir(exist_ok=True)
    subprocess.run([NGINX, "-p", f"{run_dir}/", "-c", str(run_dir / "nginx.conf")], check=True, timeout=30)
    try:
        secret = "SeCrEtKeY12345"
        status = None
        deadline = time.monotonic() + 30
        while status is None and time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{proxy}/class?class=ABCDEF&teacher={secret}", timeout=10)
            except urllib.error.HTTPError as exc:
                status = exc.code
            except OSError:  # nginx not listening yet
                time.sleep(0.1)
        assert status == 502
    finally:
        subprocess.run([NGINX, "-p", f"{run_dir}/", "-c", str(run_dir / "nginx.conf"), "-s", "stop"], timeout=30)
    logs = "".join(p.read_text(errors="replace") for p in (run_dir / "logs").glob("*.log"))
    assert "/class" in logs, "the access log has the request"
    assert secret not in logs
