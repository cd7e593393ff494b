#!/usr/bin/env bash
# Installs what the app needs and starts it on its embedded default scenario at http://127.0.0.1:8501
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh requirements.txt
PORT="${CHUNKVIZ_PORT:-8501}"
echo "chunkviz is starting at http://127.0.0.1:${PORT}  (Ctrl+C stops it)"
exec .venv/bin/python -m streamlit run app.py --server.address=127.0.0.1 --server.port="$PORT" \
  --server.headless=true --browser.gatherUsageStats=false --client.toolbarMode=minimal
