#!/usr/bin/env bash
# Creates .venv with a Python >= 3.11 and installs the requirements file given as $1 (idempotent).
# Used by run-app.sh and test.sh; installs Debian's python3-venv only when venv is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
req="${1:-requirements.txt}"

pick_python() {
  for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  return 1
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

PY=$(pick_python || true)
if [ -z "$PY" ]; then
  echo "Installing Python 3 from Debian's packages..."
  as_root apt-get update -qq && as_root apt-get install -y -qq python3 python3-venv python3-pip >/dev/null
  PY=$(pick_python) || { echo "error: chunkviz needs Python >= 3.11" >&2; exit 1; }
fi
if [ ! -x .venv/bin/python ]; then
  if ! "$PY" -m venv .venv 2>/dev/null; then
    rm -rf .venv
    as_root apt-get update -qq && as_root apt-get install -y -qq python3-venv >/dev/null
    "$PY" -m venv .venv
  fi
fi
stamp=".venv/.installed-$(basename "$req")"
if [ ! -f "$stamp" ] || [ "$req" -nt "$stamp" ] || [ requirements.txt -nt "$stamp" ] ||
   [ requirements-measure.txt -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$req"
  touch "$stamp"
fi
