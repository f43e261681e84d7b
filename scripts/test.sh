#!/usr/bin/env bash
# Sets up everything the test suite needs on a fresh Debian machine, then runs all of it.
# Debian's chromium drives the browser tests (Playwright's own browser download is not
# used: it needs hosts outside the package registries).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
exec .venv/bin/python -m pytest "$@"
