#!/usr/bin/env bash
# Installs everything the tests need (Python packages, Debian's chromium for the browser tests, haproxy and
# redis-server for the class tests) and runs them all. Nothing is skipped for a missing tool: it is installed here.
set -euo pipefail
cd "$(dirname "$0")/.."
# Chromium for the browser tests; a CJK font so the 中文 screenshots are readable; HAProxy and Redis for the
# replicas behind a proxy (tests/test_class_proxy.py, tests/e2e/test_class_proxy_browser.py); zbarimg (zbar-tools)
# reads back the room link's QR code (tests/test_room_qr.py).
if [ ! -x /usr/bin/chromium ] || [ ! -d /usr/share/fonts/truetype/wqy ] || [ ! -x /usr/sbin/haproxy ] ||
   [ ! -x /usr/bin/redis-server ] || [ ! -x /usr/bin/zbarimg ]; then
  echo "Installing Debian's chromium, a CJK font, haproxy, redis-server and zbar-tools for the tests..."
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq && $sudo_ apt-get install -y -qq chromium fonts-wqy-zenhei haproxy redis-server zbar-tools \
    >/dev/null
fi
bash scripts/setup.sh requirements-dev.txt
exec .venv/bin/python -m pytest "$@"
