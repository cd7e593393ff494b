"""A tiny Redis client over RESP2 (the protocol of Debian's redis-server), standard library only: one blocking socket
per client, commands sent as RESP arrays of bulk strings, replies parsed whole.

Why not redis-py: the app's runtime dependencies are fixed (streamlit, plotly, numpy, pandas), and the room needs a
handful of commands (GET, SET, HSET, HGETALL, EVALSHA, PUBLISH, SUBSCRIBE).

Invariant: every read is bounded — a reply line by MAX_LINE_BYTES, a bulk string by MAX_BULK_BYTES, an array by
MAX_ARRAY_ITEMS, every socket operation by the client's timeout — so a wrong server or a broken connection raises
RedisError, never hangs. A client is used by one thread at a time (the store holds a lock around it).
"""

from __future__ import annotations

import socket
import ssl
from urllib.parse import unquote, urlsplit

MAX_LINE_BYTES = 64 * 1024
MAX_BULK_BYTES = 8 * 1024 * 1024
MAX_ARRAY_ITEMS = 100_000
DEFAULT_PORT = 6379


class RedisError(Exception):
    """The server answered an error, or the connection failed; str() is one line."""


def parse_url(url: str) -> dict:
    """redis://[[user]:password@]host[:port][/db], rediss:// (TLS), unix:///path → connection settings."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return {"unix": parts.path, "db": 0, "user": None, "password": None, "tls": False}
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise RedisError(f"not a Redis URL: {url[:80]!r}")
    db = parts.path.lstrip("/")
    return {"host": parts.hostname, "port": parts.port or DEFAULT_PORT, "db": int(db) if db else 0,
            "user": unquote(parts.username) if parts.username else None,
            "password": unquote(parts.password) if parts.password else None, "tls": parts.scheme == "rediss"}


def encode(*args: str | bytes | int | float) -> bytes:
    """One command as a RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class Client:
    """One connection. `call(*args)` sends a command and returns its reply (bytes, int, list, None);
    `pipeline([...])` sends several at once and returns their replies in order."""

    def __init__(self, url: str, timeout_s: float = 5.0):
        self.settings = parse_url(url)
        self.timeout_s = timeout_s
        self.sock: socket.socket | None = None
        self.buf = b""

    def connect(self) -> None:
        s = self.settings
        try:
            if "unix" in s:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(self.timeout_s)
                sock.connect(s["unix"])
            else:
                sock = socket.create_connection((s["host"], s["port"]), timeout=self.timeout_s)
                if s["tls"]:
                    sock = ssl.create_default_context().wrap_socket(sock, server_hostname=s["host"])
        except OSError as exc:
            raise RedisError(f"cannot reach Redis: {exc}") from None
        self.sock, self.buf = sock, b""
        if s["password"] is not None:
            self.call(*(["AUTH", s["user"], s["password"]] if s["user"] else ["AUTH", s["password"]]))
        if s["db"]:
            self.call("SELECT", s["db"])

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None

    def _recv(self) -> None:
        try:
            chunk = self.sock.recv(65536)
        except OSError as exc:
            self.close()
            raise RedisError(f"Redis connection failed: {exc}") from None
        if not chunk:
            self.close()
            raise RedisError("Redis closed the connection")
        self.buf += chunk

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:  # bounded: MAX_LINE_BYTES
            if len(self.buf) > MAX_LINE_BYTES:
                raise RedisError("Redis reply line too long")
            self._recv()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n: int) -> bytes:
        while len(self.buf) < n + 2:  # bounded: n <= MAX_BULK_BYTES
            self._recv()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read_reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest
        if kind == b"-":
            raise RedisError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            if n > MAX_BULK_BYTES:
                raise RedisError("Redis bulk reply too large")
            return self._exact(n)
        if kind == b"*":
            n = int(rest)
            if n < 0:
                return None
            if n > MAX_ARRAY_ITEMS:
                raise RedisError("Redis array reply too large")
            return [self.read_reply() for _ in range(n)]
        self.close()
        raise RedisError(f"not a RESP reply: {line[:40]!r}")

    def send(self, payload: bytes) -> None:
        if self.sock is None:
            self.connect()
        try:
            self.sock.sendall(payload)
        except OSError as exc:
            self.close()
            raise RedisError(f"Redis connection failed: {exc}") from None

    def call(self, *args):
        self.send(encode(*args))
        return self.read_reply()

    def pipeline(self, commands: list[tuple]) -> list:
        """Every command's reply in order; an error reply is returned as a RedisError, not raised."""
        self.send(b"".join(encode(*c) for c in commands))
        out = []
        for _ in commands:
            try:
                out.append(self.read_reply())
            except RedisError as exc:
                if self.sock is None:
                    raise
                out.append(exc)
        return out
