"""Checks the start script's settings (environment variables and arguments of scripts/run-app.sh) before anything
is installed or started, and prints them back in a form bash reads line by line.

Invariant: a setting is either accepted whole (and printed back normalised, one `NAME=value` line each, no value
containing a control character) or refused with exactly one line on stderr and exit status 2; nothing is guessed
(`08080` is refused, not read as octal or as 8080). Needs only the standard library, so any python3 runs it before
the virtual environment exists.

Run: python3 scripts/launch_env.py [--backend HOST:PORT ...]   (reads CHUNKVIZ_* from the environment)
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import sys
from urllib.parse import urlsplit

MAX_WORKERS = 32  # each replica is a Streamlit process of ~200 MB; past a few per core they only queue on the CPU
MAX_BACKENDS = 32
ROOM_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read out loud and typed from a projector
ROOM_LENGTH = 6
_ROOM = re.compile(r"[A-Z2-9]{4,12}")
_KEY = re.compile(r"[A-Za-z0-9_-]{16,128}")  # URL-safe as is: the key is printed inside a URL
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_PORT = re.compile(r"[1-9][0-9]{0,4}")  # decimal, no sign, no leading zero (bash would read 08080 as octal)
_SECRET = re.compile(r"[\x21-\x7e]{16,256}")


class Refused(ValueError):
    """A setting the start script cannot use; str() is the one line shown."""


def shown(value: str, limit: int = 60) -> str:
    """The value as the refusal quotes it: on one line (control characters escaped), at most `limit` characters."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in value)
    return f"'{text[:limit]}…'" if len(text) > limit else f"'{text}'"


def is_host_name(value: str) -> bool:
    """An RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, the last one not all
    digits (so 1.2.3.4.5 and 999.999.999.999 are not taken for names)."""
    name = value[:-1] if value.endswith(".") else value
    labels = name.split(".")
    return (0 < len(name) <= 253 and all(_LABEL.fullmatch(label) for label in labels)
            and not labels[-1].isdigit())


def parse_ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(value)
    except ValueError:
        return None
    return None if getattr(ip, "scope_id", None) else ip  # fe80::1%eth0 cannot be written into a URL as is


def check_host(name: str, value: str) -> str:
    if parse_ip(value) is not None or is_host_name(value):
        return value
    hint = ""
    if re.fullmatch(r"[^:]+:[0-9]+", value) or re.fullmatch(r"\[.*\]:[0-9]+", value):
        hint = " (the port goes in CHUNKVIZ_PORT)" if name == "CHUNKVIZ_ADDRESS" else ""
    elif value.startswith("[") and value.endswith("]"):
        hint = " (write an IPv6 address without brackets)"
    raise Refused(f"{name} must be an IP address or host name such as 127.0.0.1 or 0.0.0.0, got {shown(value)}{hint}")


def check_port(name: str, value: str) -> int:
    if _PORT.fullmatch(value) and int(value) <= 65535:
        return int(value)
    raise Refused(f"{name} must be a port number from 1 to 65535, got {shown(value)}")


def url_host(host: str) -> str:
    """The host as written in a URL (and in an HAProxy address): IPv6 in brackets."""
    ip = parse_ip(host)
    return f"[{ip.compressed}]" if isinstance(ip, ipaddress.IPv6Address) else host


def check_workers(value: str) -> int:
    if _PORT.fullmatch(value) and int(value) <= MAX_WORKERS:
        return int(value)
    raise Refused(f"CHUNKVIZ_WORKERS must be a whole number of server processes from 1 to {MAX_WORKERS}, "
                  f"got {shown(value)}")


def check_redis_url(value: str) -> str:
    """redis://[[user]:password@]host[:port][/db], rediss:// the same over TLS, or unix:///absolute/path.sock."""
    usage = ("CHUNKVIZ_REDIS_URL must be redis://HOST:PORT/DB, rediss://HOST:PORT/DB or unix:///PATH, "
             f"got {shown(value)}")
    if not value or len(value) > 1000 or not all(c.isprintable() and not c.isspace() for c in value):
        raise Refused(usage)
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        raise Refused(usage) from None
    if parts.query or parts.fragment:
        raise Refused(usage)
    if parts.scheme == "unix":
        if parts.netloc or not parts.path.startswith("/") or parts.path.endswith("/"):
            raise Refused(usage)
        return value
    host = parts.hostname or ""
    db = parts.path.lstrip("/")
    if (parts.scheme not in ("redis", "rediss") or not (parse_ip(host) or is_host_name(host))
            or (port is not None and not 1 <= port <= 65535)
            or (db and not re.fullmatch(r"0|[1-9][0-9]{0,3}", db))):
        raise Refused(usage)
    return value


def check_teacher_key(value: str) -> str:
    if _KEY.fullmatch(value):
        return value
    raise Refused("CHUNKVIZ_TEACHER_KEY must be 16 to 128 letters, digits, '-' or '_' (unset: one is generated), "
                  f"got {shown(value, 20)}")


def check_room(value: str) -> str:
    if _ROOM.fullmatch(value):
        return value
    raise Refused(f"CHUNKVIZ_ROOM must be 4 to 12 capital letters and digits 2-9, got {shown(value)}")


def check_cookie_secret(value: str) -> str:
    if _SECRET.fullmatch(value):
        return value
    raise Refused("STREAMLIT_SERVER_COOKIE_SECRET must be 16 to 256 printable characters without spaces "
                  "(unset: one is generated for the replicas)")


def check_backend(value: str) -> str:
    """HOST:PORT or [IPv6]:PORT of a replica on another machine, returned as HAProxy writes it."""
    match = re.fullmatch(r"\[([^\]]*)\]:([^:]*)|([^:\[\]]*):([^:]*)", value)
    usage = f"--backend must be HOST:PORT (IPv6 as [ADDR]:PORT), got {shown(value)}"
    if not match:
        raise Refused(usage)
    host, port = (match.group(1), match.group(2)) if match.group(1) is not None else (match.group(3), match.group(4))
    if match.group(1) is not None and not isinstance(parse_ip(host), ipaddress.IPv6Address):
        raise Refused(usage)
    if not (parse_ip(host) or is_host_name(host)):
        raise Refused(usage)
    if not (_PORT.fullmatch(port) and int(port) <= 65535):
        raise Refused(usage)
    return f"{url_host(host)}:{int(port)}"


def new_room_code() -> str:
    return "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_LENGTH))


def settings(env: dict[str, str], argv: list[str]) -> dict[str, str]:
    """The accepted settings (NAME -> value as printed), or Refused."""
    backends, print_only = [], False
    args = iter(argv)
    for arg in args:  # bounded by argv
        if arg == "--print-urls":
            print_only = True
        elif arg == "--backend":
            value = next(args, None)
            if value is None:
                raise Refused("--backend needs a value: --backend HOST:PORT")
            backends.append(check_backend(value))
        elif arg.startswith("--backend="):
            backends.append(check_backend(arg.split("=", 1)[1]))
        else:
            raise Refused(f"unknown argument {shown(arg)}; run-app.sh takes --print-urls and --backend HOST:PORT")
    if len(backends) > MAX_BACKENDS:
        raise Refused(f"at most {MAX_BACKENDS} --backend entries, got {len(backends)}")
    if len(set(backends)) != len(backends):
        raise Refused("the same --backend is given twice")
    env = {name: value for name, value in env.items() if value != ""}  # empty = unset, as ${VAR:-default} read it
    address = check_host("CHUNKVIZ_ADDRESS", env.get("CHUNKVIZ_ADDRESS", "127.0.0.1"))
    port = check_port("CHUNKVIZ_PORT", env.get("CHUNKVIZ_PORT", "8501"))
    workers = check_workers(env.get("CHUNKVIZ_WORKERS", "1"))
    redis_url = check_redis_url(env["CHUNKVIZ_REDIS_URL"]) if "CHUNKVIZ_REDIS_URL" in env else ""
    key = check_teacher_key(env["CHUNKVIZ_TEACHER_KEY"]) if "CHUNKVIZ_TEACHER_KEY" in env else ""
    room = check_room(env["CHUNKVIZ_ROOM"]) if "CHUNKVIZ_ROOM" in env else new_room_code()
    if "STREAMLIT_SERVER_COOKIE_SECRET" in env:
        check_cookie_secret(env["STREAMLIT_SERVER_COOKIE_SECRET"])
    return {"ADDRESS": address, "URL_HOST": url_host(address), "PORT": str(port), "WORKERS": str(workers),
            "PROXY": "1" if workers > 1 or backends else "0", "BACKENDS": " ".join(backends),
            "REDIS_URL": redis_url, "TEACHER_KEY": key or secrets.token_urlsafe(18),
            "KEY_GENERATED": "0" if key else "1", "ROOM": room, "PRINT_ONLY": "1" if print_only else "0"}


def main(argv: list[str]) -> int:
    try:
        accepted = settings(dict(os.environ), argv)
    except Refused as refusal:
        print(str(refusal), file=sys.stderr)
        return 2
    for name, value in accepted.items():
        print(f"{name}={value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
