#!/usr/bin/env bash
# Installs everything the tests need (Python packages, Debian's chromium for the browser tests) and runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
  echo "Installing Debian's chromium for the browser tests..."
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi
fi
bash scripts/setup.sh requirements-dev.txt
exec .venv/bin/python -m pytest "$@"
