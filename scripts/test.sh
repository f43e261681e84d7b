#!/usr/bin/env bash
# Sets up everything the test suite needs on a fresh Debian machine, then runs all of it.
# Debian's chromium drives the browser tests (Playwright's own browser download is not
# used: it needs hosts outside the package registries).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's postgresql gives the class-database tests a real server: tests/pg_support.py runs
# its initdb and pg_ctl on a unix socket in a temp folder. A cluster the package may start
# itself listens elsewhere and is left alone.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if ! command -v initdb >/dev/null 2>&1 && ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  missing+=(postgresql)
fi
# nginx: the class-mode test of deploy/run_two.sh (two app processes behind it, one class).
# Its package starts a server on port 80 where it can; if that fails the install is not
# fatal, and that one test says it skipped (the two-process test without nginx still runs).
want_nginx=0
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || want_nginx=1
if [ "${#missing[@]}" -gt 0 ] || [ "$want_nginx" -eq 1 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  if [ "${#missing[@]}" -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  if [ "$want_nginx" -eq 1 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx >/dev/null ||
      echo "scripts/test.sh: nginx could not be installed; the test behind nginx will skip" >&2
  fi
fi

# .venv is made once and reused while it is up to date: its stamp holds a hash of the
# requirements files and of the Python that made it, and every pinned requirement must be
# installed at its version (pip check: with what it needs). Anything else makes it again.
stamp=.venv/.requirements.sha256
want="$({ python3 -VV; cat requirements*.txt; } | sha256sum | cut -d' ' -f1)"
venv_is_current() {
  [ -x .venv/bin/python ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] || return 1
  .venv/bin/python - <<'PY' >/dev/null 2>&1 || return 1
import glob
import re
import sys
from importlib.metadata import version

for name in sorted(glob.glob("requirements*.txt")):
    for line in open(name, encoding="utf-8"):
        pin = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^]]*\])?==(\S+)", line.split("#")[0].strip())
        if pin and version(pin[1]) != pin[3]:
            sys.exit(f"{pin[1]} {version(pin[1])} is not {pin[3]}")
PY
  .venv/bin/python -m pip check >/dev/null 2>&1
}
if ! venv_is_current; then
  rm -rf .venv
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
  echo "$want" >"$stamp"
fi

# Two workers (pytest-xdist): the tests that share a server and a browser, or the install's
# venv, run in one of them, in order (tests/conftest.py); the rest go to whichever is free.
# Arguments after these win (-n 0 runs it all in this process). pytest's own exit status is
# the script's: 5 (no test collected) fails like any other.
exec .venv/bin/python -m pytest -n 2 --dist loadgroup "$@"
