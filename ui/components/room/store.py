"""The room state a class shares: which chapter, element and cursor the teacher shows, the question held open, the
votes on it and whether it is revealed. Streamlit-free, so the room's HTTP routes (routes.py) and the app's sessions
use the same store.

Two stores with one interface: `MemoryStore` (one server process alone) and `RedisStore` (several replicas: every
mutation is one Lua script, so it is atomic across processes, and is announced on the channel CHANNEL). `make_store`
picks Redis when CHUNKVIZ_REDIS_URL is set.

Invariants: a room exists only once a teacher opened it (`open_room`); a vote counts only for the question the room
holds open and only until that question is revealed, one per voter (a later vote replaces it); an option not offered
is refused; everything is bounded (MAX_ROOMS rooms in memory, MAX_VOTERS voters a question, ROOM_TTL_S in Redis).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from ui.components.room.resp import Client, RedisError

ROOM_RE = re.compile(r"[A-Z2-9]{4,12}")  # the codes scripts/launch_env.py makes: no 0/O, 1/I/L
KEY_RE = re.compile(r"[A-Za-z0-9_-]{16,128}")  # CHUNKVIZ_TEACHER_KEY, as scripts/launch_env.py checks it
QUESTION_RE = re.compile(r"[a-z0-9_-]{1,32}")
OPTION_RE = re.compile(r"[a-z0-9_-]{1,32}")
ELEMENT_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_ROOMS = 256
MAX_VOTERS = 2000
MAX_QUESTIONS = 64
MAX_ANSWER_CHARS = 4000
ROOM_TTL_S = 12 * 3600  # a lecture day; refreshed by every teacher action
CHANNEL = "cv:rooms"
TEACHER_FIELDS = {"chapter", "element", "cursor", "playing"}


class RoomError(ValueError):
    """A request the room refuses: `status` is its HTTP status, str() the one line shown."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def check_code(code: object) -> str:
    if isinstance(code, str) and ROOM_RE.fullmatch(code):
        return code
    shown = repr(code)[:30] if isinstance(code, str) else type(code).__name__
    raise RoomError(400, f"a room code is 4 to 12 capital letters and digits 2-9, got {shown}")


def key_ok(given: object, expected: str | None) -> bool:
    """The teacher key, compared in constant time; nobody drives a room while no key is set."""
    return bool(expected) and isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


def voter_token(secret: str, code: str, session_id: str) -> str:
    """One voter per app session: `<id>.<signature>` (the route checks the signature, so a browser cannot mint ids
    and vote twice)."""
    ident = hashlib.sha256(session_id.encode()).hexdigest()[:20]
    return f"{ident}.{_sign(secret, code, ident)}"


def voter_of(secret: str, code: str, token: object) -> str | None:
    """The voter id inside a valid token for room `code`, else None."""
    if not isinstance(token, str) or len(token) > 80 or token.count(".") != 1:
        return None
    ident, sig = token.split(".")
    return ident if re.fullmatch(r"[0-9a-f]{20}", ident) and hmac.compare_digest(sig, _sign(secret, code, ident)) \
        else None


def _sign(secret: str, code: str, ident: str) -> str:
    return hmac.new(secret.encode(), f"voter:{code}:{ident}".encode(), hashlib.sha256).hexdigest()[:32]


@dataclass(frozen=True)
class Question:
    """What the teacher's session knows of the question: option ids, the simulator's answer, and the answer text
    in each language (sealed: sent to students only once revealed)."""
    qid: str
    options: tuple[str, ...]
    correct: str
    answer: dict = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"qid": self.qid, "options": list(self.options), "correct": self.correct,
                           "answer": self.answer})

    @staticmethod
    def from_json(raw: bytes | str) -> "Question":
        d = json.loads(raw)
        return Question(d["qid"], tuple(d["options"]), d["correct"], d.get("answer") or {})


def check_question(q: Question) -> Question:
    if not QUESTION_RE.fullmatch(q.qid) or not q.options or len(q.options) > 8 \
            or not all(OPTION_RE.fullmatch(o) for o in q.options) or q.correct not in q.options:
        raise RoomError(400, f"not a question: {q.qid!r}")
    if sum(len(str(v)) for v in q.answer.values()) > MAX_ANSWER_CHARS:
        raise RoomError(400, "the answer text is too long")
    return q


@dataclass(frozen=True)
class RoomView:
    """One room as read at one moment (what the stream sends is made from it by `public`)."""
    state: dict
    question: Question | None
    tally: dict
    revealed: bool


def public(view: RoomView, teacher: bool) -> dict:
    """What a browser may see: the teacher's position always; the tally (counts per option, never who voted what)
    live for the teacher, for everyone once revealed; the simulator's answer only once revealed."""
    s = view.state
    out = {k: s.get(k) for k in ("code", "seq", "chapter", "element", "cursor", "playing")}
    q = view.question
    out["question"] = None
    if q is not None and s.get("question") == q.qid:
        shown = teacher or view.revealed
        out["question"] = {"qid": q.qid, "options": list(q.options), "revealed": view.revealed,
                           "votes": sum(view.tally.values()),
                           "tally": {o: view.tally.get(o, 0) for o in q.options} if shown else None,
                           "correct": q.correct if view.revealed else None,
                           "answer": q.answer if view.revealed else None}
    return out


def _fresh_state(code: str) -> dict:
    return {"code": code, "seq": 1, "chapter": None, "element": None, "cursor": None, "playing": False,
            "question": None}


def check_fields(fields: dict) -> dict:
    """The teacher's position fields, each checked (a room message is bounded and typed)."""
    out = {}
    for name, value in fields.items():
        if name not in TEACHER_FIELDS:
            raise RoomError(400, f"unknown field {name[:20]!r}")
        if name == "cursor":
            if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                      or not 0 <= value <= 1e9):
                raise RoomError(400, "cursor must be a number from 0 to 1e9")
        elif name == "playing":
            if not isinstance(value, bool):
                raise RoomError(400, "playing must be true or false")
        elif value is not None and not (isinstance(value, str) and ELEMENT_RE.fullmatch(value)):
            raise RoomError(400, f"{name} must be 1 to 64 letters, digits, '-' or '_'")
        out[name] = value
    return out


class MemoryStore:
    """The room state in this process's memory (one server alone); listeners are called after each change."""

    def __init__(self):
        self.lock = threading.Lock()
        self.rooms: dict[str, dict] = {}
        self.listeners: list[Callable[[str], None]] = []

    def listen(self, callback: Callable[[str], None]) -> None:
        self.listeners.append(callback)

    def _changed(self, code: str) -> None:
        for callback in list(self.listeners):
            callback(code)

    def _room(self, code: str) -> dict:
        room = self.rooms.get(check_code(code))
        if room is None:
            raise RoomError(404, f"no room {code}: check the code on the teacher's screen")
        return room

    def open_room(self, code: str) -> None:
        with self.lock:
            if check_code(code) not in self.rooms:
                if len(self.rooms) >= MAX_ROOMS:
                    raise RoomError(429, f"this server holds {MAX_ROOMS} rooms already")
                self.rooms[code] = {"state": _fresh_state(code), "questions": {}, "votes": {}, "revealed": set()}
        self._changed(code)

    def exists(self, code: str) -> bool:
        with self.lock:
            return code in self.rooms

    def set_teacher(self, code: str, fields: dict) -> int:
        fields = check_fields(fields)
        with self.lock:
            state = self._room(code)["state"]
            state.update(fields)
            state["seq"] += 1
            seq = state["seq"]
        self._changed(code)
        return seq

    def open_question(self, code: str, q: Question) -> None:
        check_question(q)
        with self.lock:
            room = self._room(code)
            if q.qid not in room["questions"]:
                if len(room["questions"]) >= MAX_QUESTIONS:
                    raise RoomError(429, "too many questions in this room")
                room["questions"][q.qid] = q
                room["votes"][q.qid] = {}
            if room["state"]["question"] == q.qid:
                return
            room["state"]["question"] = q.qid
            room["state"]["seq"] += 1
        self._changed(code)

    def vote(self, code: str, qid: str, voter: str, option: str) -> bool:
        """True if counted; False once the question is closed (revealed, or no longer the one held open)."""
        with self.lock:
            room = self._room(code)
            q = room["questions"].get(qid)
            if q is None or room["state"]["question"] != qid or qid in room["revealed"]:
                return False
            if option not in q.options:
                raise RoomError(400, f"option {option[:20]!r} is not one of {', '.join(q.options)}")
            votes = room["votes"][qid]
            if voter not in votes and len(votes) >= MAX_VOTERS:
                raise RoomError(429, f"this question has {MAX_VOTERS} voters already")
            votes[voter] = option
        self._changed(code)
        return True

    def reveal(self, code: str, qid: str) -> bool:
        with self.lock:
            room = self._room(code)
            if qid not in room["questions"] or qid in room["revealed"]:
                return False
            room["revealed"].add(qid)
            room["state"]["seq"] += 1
        self._changed(code)
        return True

    def view(self, code: str) -> RoomView:
        with self.lock:
            room = self._room(code)
            state = dict(room["state"])
            qid = state["question"]
            q = room["questions"].get(qid)
            tally: dict[str, int] = {}
            for option in room["votes"].get(qid, {}).values():
                tally[option] = tally.get(option, 0) + 1
            return RoomView(state, q, tally, qid in room["revealed"])


_MERGE = """
local raw = redis.call('GET', KEYS[1])
if not raw then return -1 end
local s = cjson.decode(raw)
local f = cjson.decode(ARGV[1])
for k, v in pairs(f) do s[k] = v end
s.seq = (s.seq or 0) + 1
redis.call('SET', KEYS[1], cjson.encode(s), 'EX', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return s.seq
"""

# KEYS: state, votes hash, revealed set, question. ARGV: qid, voter, option, ttl, channel, code, max voters.
_VOTE = """
local raw = redis.call('GET', KEYS[1])
if not raw then return -1 end
if cjson.decode(raw).question ~= ARGV[1] then return 0 end
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then return 0 end
local m = redis.call('GET', KEYS[4])
if not m then return 0 end
local ok = false
for _, o in ipairs(cjson.decode(m).options) do if o == ARGV[3] then ok = true end end
if not ok then return -3 end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[7]) then
  return -2
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1
"""

# KEYS: state, revealed set, question. ARGV: qid, ttl, channel, code.
_REVEAL = """
local raw = redis.call('GET', KEYS[1])
if not raw then return -1 end
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('EXPIRE', KEYS[2], ARGV[2])
local s = cjson.decode(raw)
s.seq = (s.seq or 0) + 1
redis.call('SET', KEYS[1], cjson.encode(s), 'EX', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
"""


class RedisStore:
    """The room state in Redis, shared by every replica; a thread per process turns the channel's messages into
    listener calls (the routes' hub then reads each changed room once for all its followers)."""

    def __init__(self, url: str, prefix: str = "cv:room:"):
        self.url, self.prefix = url, prefix
        self.client = Client(url)
        self.lock = threading.Lock()
        self.listeners: list[Callable[[str], None]] = []
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()

    def _k(self, code: str, *parts: str) -> str:
        return ":".join([self.prefix + check_code(code), *parts])

    def _call(self, *args):
        with self.lock:
            try:
                return self.client.call(*args)
            except RedisError:
                if self.client.sock is not None:  # the server's own error reply: a bug here, not the network
                    raise
            try:
                return self.client.call(*args)  # one reconnect, then give up with one line
            except RedisError as again:
                raise RoomError(503, f"the room store (Redis) is unreachable: {again}") from None

    def _pipeline(self, commands: list[tuple]) -> list:
        with self.lock:
            try:
                return self.client.pipeline(commands)
            except RedisError:
                try:
                    return self.client.pipeline(commands)
                except RedisError as again:
                    raise RoomError(503, f"the room store (Redis) is unreachable: {again}") from None

    def listen(self, callback: Callable[[str], None]) -> None:
        self.listeners.append(callback)
        if self.thread is None:
            self.thread = threading.Thread(target=self._subscribe, name="room-subscriber", daemon=True)
            self.thread.start()

    def _subscribe(self) -> None:
        """Runs for the life of the process (a daemon thread): reconnects after a failure, at most once a second,
        and then announces every room ("*"), since messages sent meanwhile are lost."""
        while not self.stopping.is_set():
            sub = Client(self.url, timeout_s=5.0)
            try:
                sub.connect()
                sub.sock.settimeout(None)  # a subscriber waits for messages however long the room is quiet
                sub.send(b"*2\r\n$9\r\nSUBSCRIBE\r\n$%d\r\n%s\r\n" % (len(CHANNEL), CHANNEL.encode()))
                sub.read_reply()
                self._announce("*")
                while not self.stopping.is_set():
                    msg = sub.read_reply()
                    if isinstance(msg, list) and len(msg) == 3 and msg[0] == b"message":
                        self._announce(msg[2].decode(errors="replace"))
            except (RedisError, OSError, ValueError):
                sub.close()
                self.stopping.wait(1.0)

    def _announce(self, code: str) -> None:
        for callback in list(self.listeners):
            callback(code)

    def open_room(self, code: str) -> None:
        state = json.dumps(_fresh_state(check_code(code)))
        self._pipeline([("SET", self._k(code), state, "NX", "EX", ROOM_TTL_S),
                        ("EXPIRE", self._k(code), ROOM_TTL_S), ("PUBLISH", CHANNEL, code)])

    def exists(self, code: str) -> bool:
        return bool(self._call("EXISTS", self._k(code)))

    def _missing(self, code: str) -> RoomError:
        return RoomError(404, f"no room {code}: check the code on the teacher's screen")

    def set_teacher(self, code: str, fields: dict) -> int:
        fields = check_fields(fields)
        seq = self._call("EVAL", _MERGE, 1, self._k(code), json.dumps(fields), ROOM_TTL_S, CHANNEL, code)
        if seq == -1:
            raise self._missing(code)
        return seq

    def open_question(self, code: str, q: Question) -> None:
        check_question(q)
        self._pipeline([("SET", self._k(code, "q", q.qid), q.to_json(), "NX", "EX", ROOM_TTL_S),
                        ("EXPIRE", self._k(code, "q", q.qid), ROOM_TTL_S)])
        raw = self._call("GET", self._k(code))
        if raw is None:
            raise self._missing(code)
        if json.loads(raw).get("question") != q.qid:
            self._call("EVAL", _MERGE, 1, self._k(code), json.dumps({"question": q.qid}), ROOM_TTL_S, CHANNEL, code)

    def vote(self, code: str, qid: str, voter: str, option: str) -> bool:
        got = self._call("EVAL", _VOTE, 4, self._k(code), self._k(code, "votes", qid), self._k(code, "revealed"),
                         self._k(code, "q", qid), qid, voter, option, ROOM_TTL_S, CHANNEL, code, MAX_VOTERS)
        if got == -1:
            raise self._missing(code)
        if got == -2:
            raise RoomError(429, f"this question has {MAX_VOTERS} voters already")
        if got == -3:
            raise RoomError(400, f"option {option[:20]!r} is not offered")
        return got == 1

    def reveal(self, code: str, qid: str) -> bool:
        got = self._call("EVAL", _REVEAL, 3, self._k(code), self._k(code, "revealed"), self._k(code, "q", qid),
                         qid, ROOM_TTL_S, CHANNEL, code)
        if got == -1:
            raise self._missing(code)
        return got == 1

    def view(self, code: str) -> RoomView:
        raw = self._call("GET", self._k(code))
        if raw is None:
            raise self._missing(code)
        state = json.loads(raw)
        qid = state.get("question")
        if not qid:
            return RoomView(state, None, {}, False)
        meta, votes, revealed = self._pipeline([("GET", self._k(code, "q", qid)),
                                                ("HGETALL", self._k(code, "votes", qid)),
                                                ("SISMEMBER", self._k(code, "revealed"), qid)])
        tally: dict[str, int] = {}
        for option in (votes or [])[1::2]:
            tally[option.decode()] = tally.get(option.decode(), 0) + 1
        return RoomView(state, Question.from_json(meta) if meta else None, tally, revealed == 1)


_STORE: MemoryStore | RedisStore | None = None
_STORE_LOCK = threading.Lock()


def make_store(env: dict | None = None) -> MemoryStore | RedisStore:
    env = os.environ if env is None else env
    url = env.get("CHUNKVIZ_REDIS_URL", "")
    return RedisStore(url) if url else MemoryStore()


def store() -> MemoryStore | RedisStore:
    """The process's one store (the routes and every session share it)."""
    global _STORE
    with _STORE_LOCK:
        if _STORE is None:
            _STORE = make_store()
        return _STORE


def wait_until(predicate: Callable[[], bool], timeout_s: float, poll_s: float = 0.02) -> bool:
    """Polls `predicate` until true or `timeout_s` (tests and the bench use it; bounded)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(poll_s)
    return predicate()
