#!/usr/bin/env bash
# Installs what the app needs and starts it on its embedded default scenario at http://127.0.0.1:8501.
#   CHUNKVIZ_PORT=8502 scripts/run-app.sh          another port
#   CHUNKVIZ_ADDRESS=0.0.0.0 scripts/run-app.sh    serve a room: every address of this machine (prints the URLs)
# The address defaults to 127.0.0.1 (this machine only); 0.0.0.0 or one of the machine's addresses opens it to the
# network, so only do that on a network you trust (the app has no login).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${CHUNKVIZ_PORT:-8501}"
ADDRESS="${CHUNKVIZ_ADDRESS:-127.0.0.1}"
if ! [[ "$PORT" =~ ^[0-9]{1,5}$ ]] || (( PORT < 1 || PORT > 65535 )); then
  echo "CHUNKVIZ_PORT must be a port number from 1 to 65535, got '$PORT'" >&2
  exit 2
fi
if ! [[ "$ADDRESS" =~ ^[0-9A-Za-z.:-]+$ ]]; then
  echo "CHUNKVIZ_ADDRESS must be an IP address or host name such as 127.0.0.1 or 0.0.0.0, got '$ADDRESS'" >&2
  exit 2
fi

# The addresses students type: for 0.0.0.0 (or ::) every IPv4 address of this machine but loopback. `hostname -I`
# is Debian/Ubuntu's; `ip` is the fallback, then Python's own resolver, so a missing tool never stops the start.
machine_addresses() {
  local found=""
  found="$(hostname -I 2>/dev/null || true)"
  if [[ -z "${found// /}" ]] && command -v ip >/dev/null 2>&1; then
    found="$(ip -4 -o addr show scope global 2>/dev/null | awk '{split($4, a, "/"); print a[1]}' || true)"
  fi
  if [[ -z "${found// /}" ]]; then
    found="$(python3 -c 'import socket; print(" ".join(sorted({a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)})))' 2>/dev/null || true)"
  fi
  for a in $found; do
    [[ "$a" == 127.* || "$a" == *:* ]] || echo "$a"
  done
}

print_urls() {
  if [[ "$ADDRESS" == "0.0.0.0" || "$ADDRESS" == "::" ]]; then
    local urls
    urls="$(machine_addresses)"
    if [[ -n "$urls" ]]; then
      echo "Students open one of these (same network as this machine):"
      for a in $urls; do echo "  http://${a}:${PORT}"; done
    else
      echo "Could not list this machine's addresses; students open http://<this machine's IP>:${PORT}"
    fi
    echo "On this machine: http://127.0.0.1:${PORT}"
  else
    echo "chunkviz is starting at http://${ADDRESS}:${PORT}"
  fi
  echo "(Ctrl+C stops it)"
}

if [[ "${1:-}" == "--print-urls" ]]; then  # what the start would print, without installing or starting anything
  print_urls
  exit 0
fi
bash scripts/setup.sh requirements.txt
print_urls
# maxUploadSize 10 MB: the largest upload the app takes (a trace, ui/traces/parts.py UPLOAD_MB); Streamlit holds an
# upload in memory for the session, and its default would let each student park 200 MB there.
# serve.py is app.py served by st.App with the class room's endpoints beside it (ui/components/room/routes.py).
exec .venv/bin/python -m streamlit run serve.py --server.address="$ADDRESS" --server.port="$PORT" \
  --server.headless=true --browser.gatherUsageStats=false --client.toolbarMode=minimal --server.maxUploadSize=10
