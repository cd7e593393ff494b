#!/usr/bin/env bash
# Installs what the app needs and starts it on its embedded default scenario at http://127.0.0.1:8501.
#   CHUNKVIZ_PORT=8502 scripts/run-app.sh          another port
#   CHUNKVIZ_ADDRESS=0.0.0.0 scripts/run-app.sh    serve a room: every address of this machine (prints the URLs)
#   CHUNKVIZ_WORKERS=4 scripts/run-app.sh          4 Streamlit processes behind HAProxy (sticky sessions) and a Redis
#                                                  for the room state, all on this machine (installs both from Debian)
#   scripts/run-app.sh --backend HOST:PORT ...     also put replicas already running on other machines behind it
#   scripts/run-app.sh --print-urls                print what a start would print; install and start nothing
# Also read: CHUNKVIZ_REDIS_URL (an existing Redis for the room state; none is started then), CHUNKVIZ_TEACHER_KEY
# (who may drive a room; generated and printed when unset), CHUNKVIZ_ROOM (the room code; a fresh one when unset),
# STREAMLIT_SERVER_COOKIE_SECRET (shared by every replica; generated when unset). scripts/launch_env.py checks them
# all before anything is installed; each refusal is one line and exit status 2.
# The address defaults to 127.0.0.1 (this machine only); 0.0.0.0 or one of the machine's addresses opens it to the
# network, so only do that on a network you trust (the teacher key guards the room, not the app).
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The validator needs only the standard library: the venv's python when it exists, else the system's python3;
# a machine with neither gets Python from setup.sh first (a --print-urls has nothing to run it with).
validator_python() {
  if [ -x .venv/bin/python ]; then echo .venv/bin/python
  elif command -v python3 >/dev/null 2>&1; then echo python3
  fi
}
PY="$(validator_python)"
if [[ -z "$PY" ]]; then
  for arg in "$@"; do
    if [[ "$arg" == "--print-urls" ]]; then echo "run-app.sh --print-urls needs python3 or .venv" >&2; exit 2; fi
  done
  bash scripts/setup.sh requirements.txt
  PY=.venv/bin/python
fi
SETTINGS="$("$PY" scripts/launch_env.py "$@")" || exit 2
while IFS='=' read -r name value; do  # one NAME=value a line, checked by launch_env.py: no newline in any value
  case "$name" in
    ADDRESS) ADDRESS="$value" ;; URL_HOST) URL_HOST="$value" ;; PORT) PORT="$value" ;;
    WORKERS) WORKERS="$value" ;; PROXY) PROXY="$value" ;; BACKENDS) BACKENDS="$value" ;;
    REDIS_URL) REDIS_URL="$value" ;; TEACHER_KEY) TEACHER_KEY="$value" ;; KEY_GENERATED) KEY_GENERATED="$value" ;;
    ROOM) ROOM="$value" ;; PRINT_ONLY) PRINT_ONLY="$value" ;;
  esac
done <<< "$SETTINGS"

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
  local first="http://${URL_HOST}:${PORT}"
  if [[ "$ADDRESS" == "0.0.0.0" || "$ADDRESS" == "::" ]]; then
    local urls
    urls="$(machine_addresses)"
    if [[ -n "$urls" ]]; then
      echo "Students open one of these (same network as this machine):"
      for a in $urls; do echo "  http://${a}:${PORT}"; done
      first="http://${urls%%$'\n'*}:${PORT}"
    else
      echo "Could not list this machine's addresses; students open http://<this machine's IP>:${PORT}"
      first="http://<this machine's IP>:${PORT}"
    fi
    echo "On this machine: http://127.0.0.1:${PORT}"
  else
    echo "chunkviz is starting at http://${URL_HOST}:${PORT}"
  fi
  echo "Room ${ROOM}: students open ${first}/?room=${ROOM}"
  echo "Teacher (keep this link to yourself): ${first}/?room=${ROOM}&teacher_key=${TEACHER_KEY}"
  if [[ "$KEY_GENERATED" == 1 ]]; then
    echo "(teacher key generated for this start; set CHUNKVIZ_TEACHER_KEY to keep one across starts)"
  fi
  if [[ "$PROXY" == 1 ]]; then
    echo "${WORKERS} server process(es) on this machine${BACKENDS:+ and ${BACKENDS}} behind HAProxy;" \
      "each is warmed up before the proxy opens"
  fi
  echo "(Ctrl+C stops it)"
}

if [[ "$PRINT_ONLY" == 1 ]]; then  # what the start would print, without installing or starting anything
  print_urls
  exit 0
fi
bash scripts/setup.sh requirements.txt
export CHUNKVIZ_TEACHER_KEY="$TEACHER_KEY" CHUNKVIZ_ROOM="$ROOM"
# maxUploadSize 10 MB: the largest upload the app takes (a trace, ui/traces/parts.py UPLOAD_MB); Streamlit holds an
# upload in memory for the session, and its default would let each student park 200 MB there.
UPLOAD_MB=10
if [[ "$PROXY" == 0 ]]; then
  if [[ -n "$REDIS_URL" ]]; then export CHUNKVIZ_REDIS_URL="$REDIS_URL"; fi
  print_urls
  # serve.py is app.py served by st.App with the class room's endpoints beside it (ui/components/room/routes.py).
  exec .venv/bin/python -m streamlit run serve.py --server.address="$ADDRESS" --server.port="$PORT" \
    --server.headless=true --browser.gatherUsageStats=false --client.toolbarMode=minimal \
    --server.maxUploadSize="$UPLOAD_MB"
fi

# Several replicas: HAProxy in front, and a Redis for the room state unless one is given. Debian keeps both in
# /usr/sbin, which a non-root PATH may lack.
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
missing=()
have haproxy || missing+=(haproxy)
if [[ -z "$REDIS_URL" ]] && ! have redis-server; then missing+=(redis-server); fi
if (( ${#missing[@]} )); then
  echo "Installing Debian's ${missing[*]}..."
  as_root apt-get update -qq && as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi
print_urls
args=(--workers "$WORKERS" --address "$ADDRESS" --port "$PORT" --max-upload-mb "$UPLOAD_MB")
for b in $BACKENDS; do args+=(--backend "$b"); done
if [[ -n "$REDIS_URL" ]]; then args+=(--redis-url "$REDIS_URL"); fi
exec .venv/bin/python scripts/class_server.py "${args[@]}"
