"""What a page draws for a class room: the room bar (element keyed `room`: who drives, the students' link and its QR
code (qr.py) on the teacher's page, detach / rejoin), a student's vote (keyed `room_vote`) and the teacher's live tally with its reveal button (keyed `tally`),
one browser component (room.{js,css}) that follows the room's stream, /_room/stream (routes.py).

Invariants: the room and role are read from the URL once per session (?room=CODE, &teacher_key=KEY) and kept in the
session (st.navigation drops the query string; it is written back); only a session that showed the right key is the
teacher, and only its page carries the key; a student's page carries a voter token signed for its session and room,
never the answer (the stream sends it at the reveal).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

import streamlit as st

from ui.components.loader import register
from ui.components.room import qr, routes
from ui.components.room import store as rs
from ui.i18n import current_lang, t, tr

NAME = "chunkviz_room"
_mount = register(NAME, Path(__file__).resolve().parent, "room")
_CODE, _TEACHER, _SEEN = "_room_code", "_room_teacher", "_room_seen"
_JS_TEXTS = ("teacher", "students_open", "following", "detached", "detach", "rejoin", "lost", "vote_help",
             "your_vote", "votes", "closed", "other_question", "right", "wrong", "reveal", "revealed", "tally_title",
             "share", "nobody", "no_room", "qr_hide", "qr_show", "qr_alt")


@dataclass(frozen=True)
class Membership:
    code: str
    teacher: bool


def _session_id() -> str:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "no-session"


def membership(notices=None) -> Membership | None:
    """This session's room, or None; a new ?room= / ?teacher_key= in the URL wins, each problem is one message in
    `notices` (a container; the page by default)."""
    say = notices or st
    raw, key = st.query_params.get("room"), st.query_params.get("teacher_key")
    if (raw, key) != st.session_state.get(_SEEN) and raw is not None:
        st.session_state[_SEEN] = (raw, key)
        st.session_state.pop(_CODE, None)
        if not routes.SERVED:
            say.info(t("room.off"))
            return None
        if not rs.ROOM_RE.fullmatch(raw):
            say.warning(t("room.bad_code", code=raw[:16]))
            return None
        teacher = key is not None and rs.key_ok(key, routes.teacher_key())
        if key is not None and not teacher:
            say.warning(t("room.bad_key") if routes.teacher_key() else t("room.no_key"))
        st.session_state[_CODE], st.session_state[_TEACHER] = raw, teacher
    code = st.session_state.get(_CODE)
    if code is None:
        return None
    teacher = bool(st.session_state.get(_TEACHER))
    if st.query_params.get("room") != code:  # page links and st.navigation drop it: keep the link joinable
        st.query_params["room"] = code
    if teacher and st.query_params.get("teacher_key") != routes.teacher_key():
        st.query_params["teacher_key"] = routes.teacher_key()
    return Membership(code, teacher)


def _texts() -> dict[str, str]:
    return {k: t(f"room.{k}") for k in _JS_TEXTS}


def students_link(code: str, page_url: str | None) -> str | None:
    """The link students open: the teacher's own origin (as its browser sees it, so behind a proxy the proxy's)
    and `/?room=CODE`, the same link room.js prints; None when the page's URL is unknown."""
    parts = urlsplit(page_url or "")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}/?room={code}"


@lru_cache(maxsize=64)
def link_qr(link: str) -> tuple[str | None, str | None]:
    """(the SVG of the link's QR code, None) or (None, the one-line reason it has none); cached: the teacher's page
    reruns often, the link seldom changes."""
    try:
        return qr.svg(qr.encode(link, "M"), label=link), None
    except ValueError as exc:
        return None, str(exc)


def _teacher_extra(code: str) -> dict:
    link = students_link(code, st.context.url)
    if link is None:
        return {}
    svg, why = link_qr(link)
    return {"link": link, "qr": svg, "qr_note": why}


def room_bar(slug: str | None, notices=None) -> Membership | None:
    """The bar on a page in a room; the teacher's session opens the room and, on a chapter (`slug`), announces it."""
    room = membership(notices)
    if room is None:
        return None
    say = notices or st
    try:
        if room.teacher:
            rs.store().open_room(room.code)
            if slug is not None:
                rs.store().set_teacher(room.code, {"chapter": slug})
        elif not rs.store().exists(room.code):
            say.info(t("room.no_room", code=room.code))
    except rs.RoomError as exc:
        say.error(t("room.store", error=str(exc)))
        return None
    extra = _teacher_extra(room.code) if room.teacher else {}
    _mount(data=_data(room, "bar", chapter=slug, **extra), key="room", height="content")
    return room


def _data(room: Membership, mode: str, **extra) -> dict:
    data = {"mode": mode, "room": room.code, "role": "teacher" if room.teacher else "student",
            "text": _texts(), "lang": current_lang(), **extra}
    if room.teacher:
        data["key"] = routes.teacher_key()
    return data


def room_question(number: int, option_ids: tuple[str, ...], correct: str, labels: dict[str, str],
                  answer_text: Callable[[str], str]) -> str | None:
    """The chapter's question in a room: a student votes (no verdict until the reveal), the teacher sees the tally
    (keyed `tally`) and reveals. None outside a room (the page asks as usual); "open" while the room votes;
    "revealed" once the teacher's room has revealed it (the teacher's page then shows the answer itself)."""
    code, teacher = st.session_state.get(_CODE), bool(st.session_state.get(_TEACHER))
    if code is None:
        return None
    room, qid = Membership(code, teacher), f"ch{number}"
    try:
        if teacher:
            rs.store().open_question(code, rs.Question(qid, tuple(option_ids), correct,
                                                       {lang: answer_text(lang) for lang in ("en", "zh")}))
        view = rs.store().view(code)
    except rs.RoomError as exc:
        st.error(t("room.store", error=str(exc)))
        return None
    revealed = view.revealed and view.state.get("question") == qid
    extra = {"question": qid, "options": list(option_ids), "labels": labels, "revealed": revealed}
    if teacher:
        _mount(data=_data(room, "tally", **extra), key="tally", height="content", on_revealed_change=lambda: None)
        return "revealed" if revealed else "open"
    extra["voter"] = rs.voter_token(routes.teacher_key() or "", code, _session_id())
    _mount(data=_data(room, "vote", **extra), key="room_vote", height="content")
    return "open"


def answer_texts(key: str, fields: dict) -> Callable[[str], str]:
    """The answer sentence in a given language (sealed in the store, sent to students at the reveal)."""
    return lambda lang: tr(key, lang, **fields)
