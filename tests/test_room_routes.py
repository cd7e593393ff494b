"""The room's HTTP routes on a real uvicorn server (loopback, a free port): the stream follows the teacher, the
teacher's routes need the key (403), a student's stream never carries the live tally nor the answer before the
reveal, votes are signed, bounded in size (413) and rate (429), a bad or unknown code gets one clear line."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

from tests.room_services import free_port
from ui.components.room import routes
from ui.components.room import store as rs

KEY = "teacher-key-for-tests-0123"


@pytest.fixture(scope="module")
def base():
    import uvicorn
    from starlette.applications import Starlette

    old = os.environ.get("CHUNKVIZ_TEACHER_KEY")
    os.environ["CHUNKVIZ_TEACHER_KEY"] = KEY
    rs._STORE, routes._HUB = rs.MemoryStore(), None
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=routes.room_routes()), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    assert rs.wait_until(lambda: server.started, 20)
    rs.store().open_room("ROOM")
    rs.store().open_question("ROOM", rs.Question("ch1", ("a", "b"), "a", {"en": "A wins", "zh": "A 赢"}))
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)
    if old is None:
        os.environ.pop("CHUNKVIZ_TEACHER_KEY", None)
    else:
        os.environ["CHUNKVIZ_TEACHER_KEY"] = old


def post(base: str, path: str, body, raw: bytes | None = None) -> tuple[int, dict]:
    data = raw if raw is not None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class Stream:
    """A real SSE client on a socket: the `data:` payloads, read with a bounded wait."""

    def __init__(self, base: str, query: str):
        host, port = base.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=5)
        self.sock.sendall(f"GET /_room/stream?{query} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"
                          .encode())
        self.buf = b""
        head = self._until(b"\r\n\r\n")
        self.status = int(head.split(b" ")[1])
        self.body_if_refused = self.buf if self.status != 200 else b""

    def _until(self, marker: bytes) -> bytes:
        while marker not in self.buf:  # bounded by the socket's timeout
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        out, self.buf = self.buf.split(marker, 1)
        return out

    def next_state(self) -> dict:
        while True:  # bounded by the socket's timeout: the server pings every 15 s at most
            block = self._until(b"\n\n")
            for line in block.split(b"\n"):
                if b"data: " in line:  # (chunked transfer: a size line may precede it)
                    return json.loads(line.split(b"data: ", 1)[1])

    def state_where(self, predicate, max_events: int = 20) -> dict:
        """The first state that satisfies `predicate` (an earlier change, e.g. a vote count, may come first)."""
        for _ in range(max_events):
            state = self.next_state()
            if predicate(state):
                return state
        raise AssertionError(f"no such state in {max_events} events")

    def close(self):
        self.sock.close()


def test_followers_get_the_teachers_moves_and_only_the_teacher_the_tally(base):
    student, teacher = Stream(base, "room=ROOM"), Stream(base, f"room=ROOM&key={KEY}")
    assert student.status == teacher.status == 200
    first = student.next_state()
    assert first["code"] == "ROOM" and first["question"]["qid"] == "ch1"
    teacher.next_state()
    assert post(base, "/_room/teacher", {"room": "ROOM", "key": KEY, "cursor": 42.5, "element": "c1_lanes"})[0] == 200
    moved = student.next_state()
    assert (moved["cursor"], moved["element"]) == (42.5, "c1_lanes")
    voter = rs.voter_token(KEY, "ROOM", "session-a")
    assert post(base, "/_room/vote", {"room": "ROOM", "voter": voter, "question": "ch1", "option": "b"}) == \
        (200, {"counted": True})
    seen = teacher.state_where(lambda s: s["question"]["votes"] == 1)
    assert seen["question"]["tally"] == {"a": 0, "b": 1} and seen["question"]["correct"] is None
    counted = student.state_where(lambda s: s["question"]["votes"] == 1)
    assert counted["question"]["tally"] is None and counted["question"]["correct"] is None
    assert post(base, "/_room/reveal", {"room": "ROOM", "key": KEY, "question": "ch1"}) == (200, {"revealed": True})
    shown = student.state_where(lambda s: s["question"]["revealed"])
    assert shown["question"]["revealed"] and shown["question"]["correct"] == "a"
    assert shown["question"]["tally"] == {"a": 0, "b": 1} and shown["question"]["answer"]["zh"] == "A 赢"
    status, body = post(base, "/_room/vote", {"room": "ROOM", "voter": voter, "question": "ch1", "option": "a"})
    assert status == 409 and "closed" in body["error"]
    student.close()
    teacher.close()


def test_no_key_no_driving(base):
    for path, body in (("/_room/teacher", {"room": "ROOM", "cursor": 1}),
                       ("/_room/teacher", {"room": "ROOM", "key": "x" * 20, "cursor": 1}),
                       ("/_room/reveal", {"room": "ROOM", "question": "ch1"})):
        status, got = post(base, path, body)
        assert status == 403 and "teacher" in got["error"]
    wrong = Stream(base, "room=ROOM&key=" + "y" * 20)
    assert wrong.status == 403 and b"teacher key" in wrong.body_if_refused + wrong.sock.recv(4096)


def test_votes_must_be_signed_for_this_room(base):
    for voter in ("forged.0000", rs.voter_token(KEY, "OTHER", "s"), rs.voter_token("z" * 20, "ROOM", "s"), None):
        status, got = post(base, "/_room/vote", {"room": "ROOM", "voter": voter, "question": "ch1", "option": "a"})
        assert status == 403 and "session in this room" in got["error"]


def test_bad_codes_and_bodies_get_one_clear_line(base):
    assert post(base, "/_room/vote", {"room": "no!", "voter": "x"}) == \
        (400, {"error": "a room code is 4 to 12 capital letters and digits 2-9, got 'no!'"})
    missing = Stream(base, "room=ZZZZ")
    assert missing.status == 404
    assert post(base, "/_room/teacher", None, raw=b"{not json")[0] == 400
    assert post(base, "/_room/teacher", None, raw=b"[1, 2]")[0] == 400
    status, got = post(base, "/_room/teacher", None, raw=b'{"room": "ROOM", "pad": "' + b"x" * 2000 + b'"}')
    assert status == 413 and "at most 1024 bytes" in got["error"]
    status, got = post(base, "/_room/teacher", {"room": "ROOM", "key": KEY, "cursor": "far"})
    assert status == 400 and "cursor" in got["error"]


def test_votes_are_rate_limited_per_voter(base):
    rs.store().open_question("ROOM", rs.Question("ch9", ("a", "b"), "a"))
    voter = rs.voter_token(KEY, "ROOM", "session-fast")
    statuses = [post(base, "/_room/vote", {"room": "ROOM", "voter": voter, "question": "ch9", "option": "a"})[0]
                for _ in range(12)]
    assert statuses[0] == 200 and 429 in statuses
    other = rs.voter_token(KEY, "ROOM", "session-calm")
    assert post(base, "/_room/vote", {"room": "ROOM", "voter": other, "question": "ch9", "option": "b"})[0] == 200
    time.sleep(1.1)  # the bucket refills: 2 votes a second
    assert post(base, "/_room/vote", {"room": "ROOM", "voter": voter, "question": "ch9", "option": "b"})[0] == 200
    assert rs.store().view("ROOM").tally == {"b": 2}  # the fast voter changed to b; the calm one voted b
