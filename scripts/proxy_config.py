"""HAProxy configuration for Streamlit replicas: one frontend on the class's address, sticky sessions by cookie.

Invariant: with stickiness on (the default) every request of a browser after its first carries the cookie `CVSRV`
naming its replica and reaches that replica while it is up; a replica that fails its health check (three missed
`GET /_stcore/health`, 120 s each; a dead one fails them at once) gets no new sessions, and its browsers' next requests — the reconnecting
websocket included — are redispatched to a live replica, whose name the cookie then carries. Streamlit keeps a
session, its uploads and media in one process's memory (shared/guides/streamlit.md §9; Streamlit issues #4173, #2936,
#9976), which is why affinity is needed; `--no-cookie` writes the control that shows it: each request to a random replica (round robin can
# fall in step with a page's requests so that every upload meets its own session's replica: seen with serve.py).

Run: python scripts/proxy_config.py --bind 0.0.0.0:8501 --backend 10.0.0.2:8501 --backend 10.0.0.3:8501 > class.cfg
     haproxy -f class.cfg          (Debian: apt-get install haproxy; every replica needs the same
                                    STREAMLIT_SERVER_COOKIE_SECRET and CHUNKVIZ_REDIS_URL)
Replicas on other machines must already be warmed (shared/guides/streamlit.md §8): scripts/class_server.py
--backend does that before it starts HAProxy.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from launch_env import Refused, check_backend, shown, url_host  # noqa: E402

COOKIE = "CVSRV"
HEALTH_PATH = "/_stcore/health"  # Streamlit's own health endpoint; answers "ok" once the server is up
# Content-Length past the upload cap plus room for the multipart envelope (boundaries, headers): refused at the door
# with 413 instead of being streamed to a replica that refuses it anyway. Streamlit counts a MB as 2**20 bytes.
MULTIPART_SLACK_BYTES = 64 * 1024
# One hour: a lesson's websocket is idle while the students listen; HAProxy closes an idle tunnel after this.
TUNNEL_TIMEOUT = "1h"
MAX_CONNECTIONS = 4096  # a class of 200 holds one websocket each, plus their page loads


def upload_limit_bytes(max_upload_mb: int) -> int:
    return max_upload_mb * 2**20 + MULTIPART_SLACK_BYTES


def bind_line(bind: str) -> str:
    """`bind` for HOST:PORT; "::" listens on IPv6 and IPv4 alike (v4v6)."""
    host, port = bind.rsplit(":", 1)
    host = host[1:-1] if host.startswith("[") else host
    return f"bind {url_host(host)}:{port}" + (" v4v6" if host == "::" else "")


def render(bind: str, backends: list[str], max_upload_mb: int = 10, sticky: bool = True,
           stats_socket: str | None = None) -> str:
    """The configuration text. `backends` are HOST:PORT (IPv6 as [ADDR]:PORT), checked by check_backend."""
    lines = ["# Written by scripts/proxy_config.py: Streamlit replicas behind one address, sticky by cookie "
             f"{COOKIE}." if sticky else "# Written by scripts/proxy_config.py --no-cookie: random, NO "
             "stickiness (the control that shows why Streamlit needs it).",
             "global", f"    maxconn {MAX_CONNECTIONS}"]
    if stats_socket:  # scripts/class_server.py drains and reads the servers' states through it
        lines.append(f"    stats socket {stats_socket} mode 600 level admin")
    lines += ["", "defaults", "    mode http", "    timeout connect 5s", "    timeout client 1h",
              "    timeout server 1h", f"    timeout tunnel {TUNNEL_TIMEOUT}", "    timeout http-request 30s",
              "    timeout client-fin 30s",
              "    # A replica that refuses the connection (it died): retry, and on the last try another replica.",
              "    option redispatch", "    retries 3", "",
              "frontend class", f"    {bind_line(bind)}",
              f"    http-request deny deny_status 413 if {{ req.hdr_val(content-length) gt "
              f"{upload_limit_bytes(max_upload_mb)} }}",
              "    default_backend replicas", "", "backend replicas"]
    if sticky:
        lines += ["    balance leastconn",  # websockets are long-lived: count them, not requests
                  f"    cookie {COOKIE} insert indirect nocache httponly attr SameSite=Lax"]
    else:  # every request balanced on its own: HAProxy otherwise keeps a client connection's requests together
        lines += ["    balance random", "    option http-server-close"]
    lines += ["    option httpchk", f"    http-check send meth GET uri {HEALTH_PATH}",
              "    http-check expect string ok",
              # A replica serving 100 sessions answers its health check late (one GIL shared with every running
              # script). Measured at 200 sessions on 2 busy cores: with 10 s or 20 s per check both replicas went
              # DOWN while they worked through the students' settings, and HAProxy answered everyone 503 — an
              # overload turned into an outage. So 120 s per check, three misses in a row before DOWN (every 1 s
              # once one failed). A dead replica refuses connections at once: it fails its checks in about 7 s, and
              # `redispatch` moves its browsers at their very next request whatever the check says.
              "    timeout check 120s", "    default-server inter 5s fastinter 1s fall 3 rise 2"]
    for index, backend in enumerate(backends, start=1):
        lines.append(f"    server r{index} {backend} check" + (f" cookie r{index}" if sticky else ""))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bind", required=True, help="HOST:PORT the class connects to (IPv6 as [ADDR]:PORT)")
    parser.add_argument("--backend", action="append", default=[], help="HOST:PORT of a replica (repeat)")
    parser.add_argument("--max-upload-mb", type=int, default=10, help="Streamlit's server.maxUploadSize (MB)")
    parser.add_argument("--no-cookie", action="store_true", help="each request to a random replica, no stickiness (a control)")
    parser.add_argument("--stats-socket", help="path of HAProxy's admin socket (none when omitted)")
    parser.add_argument("-o", "--out", type=Path, help="write here instead of stdout")
    args = parser.parse_args(argv)
    try:
        bind = check_backend(args.bind)
    except Refused:
        parser.exit(2, f"--bind must be HOST:PORT (IPv6 as [ADDR]:PORT), got {shown(args.bind)}\n")
    try:
        backends = [check_backend(b) for b in args.backend]
    except Refused as refusal:
        parser.exit(2, f"{refusal}\n")
    if not backends:
        parser.exit(2, "at least one --backend HOST:PORT is needed\n")
    if len(set(backends)) != len(backends):
        parser.exit(2, "the same --backend is given twice\n")
    if not 1 <= args.max_upload_mb <= 1024:
        parser.exit(2, f"--max-upload-mb must be from 1 to 1024, got {args.max_upload_mb}\n")
    if args.stats_socket is not None and not (args.stats_socket.startswith("/") and args.stats_socket.isprintable()
                                              and " " not in args.stats_socket):
        parser.exit(2, "--stats-socket must be an absolute path without spaces\n")
    text = render(bind, backends, args.max_upload_mb, not args.no_cookie, args.stats_socket)
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
