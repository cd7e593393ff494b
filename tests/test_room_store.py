"""The room store, in memory and in a real redis-server: rooms open only by the teacher, one vote per voter and
changeable until the reveal, closed after it, options checked, views hiding answers until revealed, changes
announced to listeners (across processes' connections for Redis), and the RESP client's bounds."""

from __future__ import annotations

import threading

import pytest

from tests.room_services import redis_server
from ui.components.room import resp
from ui.components.room import store as rs

Q = rs.Question("ch2", ("a", "b", "c"), "b", {"en": "B it is", "zh": "是 B"})


@pytest.fixture(scope="module")
def redis_url():
    with redis_server() as url:
        yield url


@pytest.fixture(params=["memory", "redis"])
def store(request):
    if request.param == "memory":
        return rs.MemoryStore()
    return rs.RedisStore(request.getfixturevalue("redis_url"), prefix=f"t{id(request)}:")


def test_a_room_exists_only_once_opened(store):
    assert not store.exists("ABCD")
    with pytest.raises(rs.RoomError) as err:
        store.view("ABCD")
    assert err.value.status == 404 and "no room ABCD" in str(err.value)
    store.open_room("ABCD")
    assert store.exists("ABCD") and store.view("ABCD").state["code"] == "ABCD"
    with pytest.raises(rs.RoomError) as bad:
        store.open_room("abcd")
    assert bad.value.status == 400 and "capital letters" in str(bad.value)


def test_votes_one_per_voter_changeable_until_the_reveal(store):
    store.open_room("VOTE")
    assert not store.vote("VOTE", "ch2", "v1", "a")  # no question held open yet
    store.open_question("VOTE", Q)
    assert store.vote("VOTE", "ch2", "v1", "a") and store.vote("VOTE", "ch2", "v2", "a")
    assert store.vote("VOTE", "ch2", "v1", "b")  # changed, not added
    view = store.view("VOTE")
    assert view.tally == {"a": 1, "b": 1} and not view.revealed
    with pytest.raises(rs.RoomError) as bad:
        store.vote("VOTE", "ch2", "v3", "z")
    assert bad.value.status == 400
    assert store.reveal("VOTE", "ch2") and not store.reveal("VOTE", "ch2")
    assert not store.vote("VOTE", "ch2", "v1", "c") and not store.vote("VOTE", "ch2", "v9", "c")
    assert store.view("VOTE").tally == {"a": 1, "b": 1} and store.view("VOTE").revealed


def test_reopening_the_same_question_keeps_its_votes_another_question_starts_empty(store):
    store.open_room("KEEP")
    store.open_question("KEEP", Q)
    store.vote("KEEP", "ch2", "v1", "c")
    store.open_question("KEEP", Q)
    assert store.view("KEEP").tally == {"c": 1}
    store.open_question("KEEP", rs.Question("ch5", ("x", "y"), "x"))
    assert store.view("KEEP").tally == {} and not store.vote("KEEP", "ch2", "v1", "a")


def test_public_view_hides_the_answer_and_tally_until_revealed(store):
    store.open_room("SEAL")
    store.open_question("SEAL", Q)
    store.vote("SEAL", "ch2", "v1", "a")
    student, teacher = rs.public(store.view("SEAL"), False), rs.public(store.view("SEAL"), True)
    assert student["question"]["tally"] is None and student["question"]["correct"] is None
    assert student["question"]["answer"] is None and student["question"]["votes"] == 1
    assert teacher["question"]["tally"] == {"a": 1, "b": 0, "c": 0} and teacher["question"]["correct"] is None
    store.reveal("SEAL", "ch2")
    student = rs.public(store.view("SEAL"), False)
    assert student["question"]["correct"] == "b" and student["question"]["answer"]["zh"] == "是 B"
    assert student["question"]["tally"] == {"a": 1, "b": 0, "c": 0}
    assert "v1" not in repr(student)  # who voted what never leaves the store


def test_teacher_fields_are_checked_and_counted(store):
    store.open_room("MOVE")
    seq0 = store.view("MOVE").state["seq"]
    assert store.set_teacher("MOVE", {"chapter": "ch2-long-prefill", "element": "c2_lanes", "cursor": 12.5,
                                      "playing": False}) == seq0 + 1
    s = store.view("MOVE").state
    assert (s["chapter"], s["element"], s["cursor"]) == ("ch2-long-prefill", "c2_lanes", 12.5)
    for bad in ({"cursor": -1}, {"cursor": "1"}, {"playing": "yes"}, {"chapter": "../x"}, {"seq": 9}):
        with pytest.raises(rs.RoomError):
            store.set_teacher("MOVE", bad)
    with pytest.raises(rs.RoomError) as missing:
        store.set_teacher("NONE", {"cursor": 1})
    assert missing.value.status == 404


def test_listeners_hear_every_change(store):
    heard, got = [], threading.Event()

    def on_change(code):
        heard.append(code)
        if code == "HEAR":
            got.set()
    store.listen(on_change)
    store.open_room("HEAR")
    got.wait(5)
    got.clear()
    store.set_teacher("HEAR", {"cursor": 3})
    assert got.wait(5) and "HEAR" in heard


def test_two_redis_stores_share_one_room(redis_url):
    """Two replicas: a vote through one is tallied by the other, and the other's listener hears it."""
    one, two = rs.RedisStore(redis_url, prefix="share:"), rs.RedisStore(redis_url, prefix="share:")
    ready, heard = threading.Event(), threading.Event()
    two.listen(lambda code: ready.set() if code == "*" else heard.set() if code == "BOTH" else None)
    assert ready.wait(5)  # subscribed (the subscriber announces every room once it listens)
    one.open_room("BOTH")
    one.open_question("BOTH", Q)
    one.vote("BOTH", "ch2", "v1", "a")
    assert heard.wait(5)
    two.vote("BOTH", "ch2", "v2", "a")
    assert one.view("BOTH").tally == {"a": 2} == two.view("BOTH").tally


def test_voter_tokens_are_signed_per_room():
    token = rs.voter_token("k" * 20, "ROOM", "session-1")
    assert rs.voter_of("k" * 20, "ROOM", token) == token.split(".")[0]
    assert rs.voter_of("k" * 20, "ROOM2", token) is None and rs.voter_of("x" * 20, "ROOM", token) is None
    assert rs.voter_of("k" * 20, "ROOM", token.split(".")[0] + ".00") is None
    assert rs.voter_of("k" * 20, "ROOM", None) is None
    assert rs.voter_token("k" * 20, "ROOM", "session-1") == token != rs.voter_token("k" * 20, "ROOM", "session-2")


def test_resp_client_round_trips_and_reports_errors(redis_url):
    c = resp.Client(redis_url)
    assert c.call("SET", "r:k", "a\r\nb") == b"OK" and c.call("GET", "r:k") == b"a\r\nb"
    assert c.call("GET", "r:none") is None and c.call("INCR", "r:n") == 1
    assert c.pipeline([("RPUSH", "r:l", "x", "y"), ("LRANGE", "r:l", 0, -1)]) == [2, [b"x", b"y"]]
    with pytest.raises(resp.RedisError):
        c.call("NOSUCHCOMMAND")
    assert c.call("PING") == b"PONG"  # the connection survives an error reply
    with pytest.raises(resp.RedisError):
        resp.Client(redis_url.rsplit(":", 1)[0] + ":1/0", timeout_s=1).call("PING")
    assert resp.parse_url("redis://:pw@127.0.0.1:7000/2") == {"host": "127.0.0.1", "port": 7000, "db": 2,
                                                              "user": None, "password": "pw", "tls": False}


def test_make_store_follows_the_environment(redis_url):
    assert isinstance(rs.make_store({}), rs.MemoryStore)
    assert isinstance(rs.make_store({"CHUNKVIZ_REDIS_URL": redis_url}), rs.RedisStore)
