#!/usr/bin/env bash
# Installs everything the tests need (Python packages, Debian's chromium for the browser tests) and runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
# Chromium for the browser tests; a CJK font so the 中文 screenshots are readable.
if [ ! -x /usr/bin/chromium ] || [ ! -d /usr/share/fonts/truetype/wqy ] || ! command -v redis-server >/dev/null; then
  echo "Installing Debian's chromium, a CJK font (browser tests) and redis-server (room tests)..."
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq && $sudo_ apt-get install -y -qq chromium fonts-wqy-zenhei redis-server >/dev/null
fi
bash scripts/setup.sh requirements-dev.txt
exec .venv/bin/python -m pytest "$@"
