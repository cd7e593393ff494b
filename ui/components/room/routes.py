"""The room's HTTP endpoints beside the app (Starlette routes for `st.App`, served by serve.py): the class follows
the teacher over server-sent events, with no script rerun per student per message.

    GET  /_room/stream?room=CODE[&key=KEY]   text/event-stream: the room's state (store.public) on every change
    POST /_room/teacher {room, key, chapter?, element?, cursor?, playing?}   the teacher's position
    POST /_room/reveal  {room, key, question}                                reveal the question held open
    POST /_room/vote    {room, voter, question, option}                      a student's vote (voter: a signed token)

Invariants: one `Hub` per process reads a changed room once and hands the same bytes to every follower in this
process (a follower that misses an update gets the latest, never a backlog); the teacher's routes need the teacher
key (403 without it); bodies are at most MAX_BODY_BYTES, votes and teacher messages are rate-limited per voter and per
room, streams per process and their length are capped; every refusal is JSON `{"error": one line}` with its status.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import threading
import time

from ui.components.room import store as rs

MAX_BODY_BYTES = 1024
MAX_STREAMS = 2000  # per process: 200 students per replica with room to spare (bench/room_load.py)
STREAM_S = 3600.0  # a stream ends after an hour; EventSource reconnects by itself (retry below)
PING_S = 15.0  # a comment line every 15 s keeps proxies from closing a quiet stream, and finds closed ones
RETRY_MS = 1000
VOTE_RATE = (2.0, 6.0)  # per voter: 2 votes a second, bursts of 6
TEACHER_RATE = (30.0, 60.0)  # per room: a playing cursor is sent at most ~4 times a second
REFUSED_KEY_RATE = (5.0, 20.0)  # per process: wrong keys are not worth guessing
SERVED = False  # True once serve.py mounted these routes in this process (the app checks it before offering rooms)


def teacher_key() -> str | None:
    key = os.environ.get("CHUNKVIZ_TEACHER_KEY", "")
    return key if rs.KEY_RE.fullmatch(key) else None


class Bucket:
    """Token buckets by name, at most `max_names` remembered (the oldest forgotten first): bounded memory."""

    def __init__(self, rate_per_s: float, burst: float, max_names: int = 20_000):
        self.rate, self.burst, self.max_names = rate_per_s, burst, max_names
        self.level: dict[str, tuple[float, float]] = {}
        self.lock = threading.Lock()

    def take(self, name: str) -> bool:
        now = time.monotonic()
        with self.lock:
            tokens, then = self.level.pop(name, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            ok = tokens >= 1.0
            self.level[name] = (tokens - 1.0 if ok else tokens, now)
            while len(self.level) > self.max_names:
                del self.level[next(iter(self.level))]
            return ok


class Follower:
    """One open stream: the latest bytes for it, and an event its coroutine waits on."""

    def __init__(self, loop: asyncio.AbstractEventLoop, teacher: bool):
        self.loop, self.teacher = loop, teacher
        self.event = asyncio.Event()
        self.latest: bytes | None = None
        self.sent: bytes | None = None


class Hub:
    """Fans a room's changes out to this process's followers: one store read per change, not one per follower."""

    def __init__(self, room_store):
        self.store = room_store
        self.lock = threading.Lock()
        self.rooms: dict[str, set[Follower]] = {}
        self.events = 0  # updates handed to followers (the bench reads it)
        room_store.listen(self.changed)

    def count(self) -> int:
        with self.lock:
            return sum(len(f) for f in self.rooms.values())

    def payloads(self, code: str) -> dict[bool, bytes] | None:
        try:
            view = self.store.view(code)
        except rs.RoomError:
            return None
        return {t: json.dumps(rs.public(view, t), separators=(",", ":")).encode() for t in (False, True)}

    def add(self, code: str, follower: Follower) -> None:
        data = self.payloads(code)
        follower.latest = data[follower.teacher] if data else None
        with self.lock:
            self.rooms.setdefault(code, set()).add(follower)

    def remove(self, code: str, follower: Follower) -> None:
        with self.lock:
            room = self.rooms.get(code)
            if room is not None:
                room.discard(follower)
                if not room:
                    del self.rooms[code]

    def changed(self, code: str) -> None:
        """Called by the store after a change (any thread); "*" means every room."""
        with self.lock:
            codes = list(self.rooms) if code == "*" else [code] if code in self.rooms else []
        for c in codes:
            data = self.payloads(c)
            if data is None:
                continue
            with self.lock:
                followers = list(self.rooms.get(c, ()))
            woken: dict[asyncio.AbstractEventLoop, list[Follower]] = {}
            for f in followers:
                if data[f.teacher] != f.latest:
                    f.latest = data[f.teacher]
                    woken.setdefault(f.loop, []).append(f)
            for loop, group in woken.items():  # one wake-up per event loop, however many followers
                self.events += len(group)
                try:
                    loop.call_soon_threadsafe(_wake, group)
                except RuntimeError:  # that loop has closed (the server is stopping)
                    pass


def _wake(group: list[Follower]) -> None:
    for f in group:
        f.event.set()


_HUB: Hub | None = None
_HUB_LOCK = threading.Lock()


def hub() -> Hub:
    global _HUB
    with _HUB_LOCK:
        if _HUB is None:
            _HUB = Hub(rs.store())
        return _HUB


def _json(status: int, body: dict):
    from starlette.responses import JSONResponse

    return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


def _refuse(exc: rs.RoomError):
    return _json(exc.status, {"error": str(exc)})


async def _body(request) -> dict:
    """The JSON object of a POST, at most MAX_BODY_BYTES (read no further than that)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        raise rs.RoomError(413, f"a room message is at most {MAX_BODY_BYTES} bytes")
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY_BYTES:
            raise rs.RoomError(413, f"a room message is at most {MAX_BODY_BYTES} bytes")
    try:
        body = json.loads(data)
    except ValueError:
        raise rs.RoomError(400, "a room message is a JSON object") from None
    if not isinstance(body, dict):
        raise rs.RoomError(400, "a room message is a JSON object")
    return body


_VOTES = Bucket(*VOTE_RATE)
_TEACHER = Bucket(*TEACHER_RATE)
_BAD_KEYS = Bucket(*REFUSED_KEY_RATE, max_names=1)


def _teacher_body(body: dict) -> str:
    code = rs.check_code(body.get("room"))
    if not rs.key_ok(body.get("key"), teacher_key()):
        if not _BAD_KEYS.take("all"):
            raise rs.RoomError(429, "too many wrong teacher keys; wait a few seconds")
        raise rs.RoomError(403, "only the teacher's link (with its key) can drive a room")
    if not _TEACHER.take(code):
        raise rs.RoomError(429, "too many teacher messages; at most 30 a second")
    return code


async def post_teacher(request):
    try:
        body = await _body(request)
        code = _teacher_body(body)
        fields = {k: v for k, v in body.items() if k not in ("room", "key")}
        return _json(200, {"seq": rs.store().set_teacher(code, fields)})
    except rs.RoomError as exc:
        return _refuse(exc)


async def post_reveal(request):
    try:
        body = await _body(request)
        code = _teacher_body(body)
        qid = body.get("question")
        if not isinstance(qid, str) or not rs.QUESTION_RE.fullmatch(qid):
            raise rs.RoomError(400, "question must name the question held open")
        return _json(200, {"revealed": rs.store().reveal(code, qid)})
    except rs.RoomError as exc:
        return _refuse(exc)


async def post_vote(request):
    try:
        body = await _body(request)
        code = rs.check_code(body.get("room"))
        secret = teacher_key()
        voter = rs.voter_of(secret, code, body.get("voter")) if secret else None
        if voter is None:
            raise rs.RoomError(403, "this vote does not come from a session in this room; reload the page")
        qid, option = body.get("question"), body.get("option")
        if not isinstance(qid, str) or not rs.QUESTION_RE.fullmatch(qid) \
                or not isinstance(option, str) or not rs.OPTION_RE.fullmatch(option):
            raise rs.RoomError(400, "a vote names a question and one of its options")
        if not _VOTES.take(voter):
            raise rs.RoomError(429, "too many votes; wait a moment")
        counted = rs.store().vote(code, qid, voter, option)
        return _json(200 if counted else 409, {"counted": counted} if counted else
                     {"error": "voting on this question is closed", "counted": False})
    except rs.RoomError as exc:
        return _refuse(exc)


async def get_stream(request):
    from starlette.responses import StreamingResponse

    try:
        code = rs.check_code(request.query_params.get("room"))
        key = request.query_params.get("key")
        teacher = key is not None and rs.key_ok(key, teacher_key())
        if key is not None and not teacher:
            raise rs.RoomError(403, "this teacher key does not open the room")
        room_hub = hub()
        if not rs.store().exists(code):
            raise rs.RoomError(404, f"no room {code}: check the code on the teacher's screen")
        if room_hub.count() >= MAX_STREAMS:
            raise rs.RoomError(503, "this server follows as many browsers as it can; try again in a minute")
    except rs.RoomError as exc:
        return _refuse(exc)
    follower = Follower(asyncio.get_running_loop(), teacher)
    room_hub.add(code, follower)

    async def events():
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            ends = time.monotonic() + STREAM_S
            while time.monotonic() < ends:  # bounded: the stream's length
                if follower.latest is not None and follower.latest != follower.sent:
                    follower.sent = follower.latest
                    yield b"data: " + follower.sent + b"\n\n"
                follower.event.clear()
                if follower.latest != follower.sent:
                    continue
                try:
                    await asyncio.wait_for(follower.event.wait(), PING_S)
                except asyncio.TimeoutError:
                    yield b": ping\n\n"
        finally:
            room_hub.remove(code, follower)

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def room_routes() -> list:
    """The routes serve.py hands to st.App; marks this process as serving rooms."""
    from starlette.routing import Route

    global SERVED
    SERVED = True
    return [Route("/_room/stream", get_stream, methods=["GET"]),
            Route("/_room/teacher", post_teacher, methods=["POST"]),
            Route("/_room/reveal", post_reveal, methods=["POST"]),
            Route("/_room/vote", post_vote, methods=["POST"])]


def prepare(env: dict | None = None, out=print) -> str | None:
    """At start: the teacher key (generated and shown when unset and this process runs alone; several replicas
    must share one, so with Redis and no key rooms stay off), and the room CHUNKVIZ_ROOM opened. Returns the key."""
    env = os.environ if env is None else env
    raw = env.get("CHUNKVIZ_TEACHER_KEY", "")
    if raw and not rs.KEY_RE.fullmatch(raw):
        raise SystemExit("CHUNKVIZ_TEACHER_KEY must be 16 to 128 letters, digits, '-' or '_'")
    if not raw:
        if env.get("CHUNKVIZ_REDIS_URL"):
            out("Rooms are off: several replicas share a room only with one CHUNKVIZ_TEACHER_KEY (scripts/run-app.sh "
                "sets it)", flush=True)
            return None
        env["CHUNKVIZ_TEACHER_KEY"] = raw = secrets.token_urlsafe(18)
        out(f"Teacher key (generated for this start): {raw}", flush=True)
    room = env.get("CHUNKVIZ_ROOM", "")
    if room:
        try:
            rs.store().open_room(rs.check_code(room))
        except rs.RoomError as exc:
            raise SystemExit(f"CHUNKVIZ_ROOM: {exc}") from None
        out(f"Room {room} is open: students add ?room={room} to any chapter's link", flush=True)
    return raw
