"""A Streamlit session without a browser: the websocket protocol the browser speaks, for load benchmarks and tests.

Invariant: a session talks only to the loopback server it was given; every wait is bounded (a run that does not
finish within `timeout_s` counts as an error, it is never waited on forever).

How the browser client connects (Streamlit 1.67, read from the installed package):
- a websocket on /_stcore/stream whose Sec-WebSocket-Protocol header carries "streamlit" first
  (web/server/starlette/starlette_websocket.py `_parse_subprotocols`; the XSRF token and a session id to resume
  follow, both optional);
- it sends BackMsg{rerun_script: ClientState{page_name, query_string, widget_states}} (proto/BackMsg.proto): page_name
  is the st.Page url_path, widget_states the values of the widgets it has drawn (a button press is a trigger_value);
- the server answers with ForwardMsgs: new_session, deltas (each widget element carries its id, which ends in the
  widget's key for keyed widgets), and script_finished once the run is over (FINISHED_EARLY_FOR_RERUN when a newer
  rerun replaced it).
websockets ships with streamlit (a requirement of streamlit itself), so this needs no dependency of its own.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

FINISHED = ForwardMsg.ScriptFinishedStatus
# Element kinds whose proto carries the widget's id and current value.
WIDGET_KINDS = ("button", "slider", "number_input", "selectbox", "radio", "checkbox", "button_group", "text_input")


@dataclass(slots=True)
class RunResult:
    latency_s: float
    ok: bool
    reason: str = ""  # why not ok: an exception shown by the app, a compile error, a timeout, a lost connection
    num_messages: int = 0
    num_bytes: int = 0


@dataclass(slots=True)
class Session:
    """One browser tab: its websocket, the widgets its last run drew (id -> element proto) and its page."""

    url: str
    page_name: str = ""
    timeout_s: float = 300.0
    widgets: dict[str, object] = field(default_factory=dict)
    ws: object = None
    headers: dict[str, str] = field(default_factory=dict)  # e.g. a proxy's stickiness cookie

    async def open(self) -> None:
        self.ws = await connect(f"{self.url}/_stcore/stream", subprotocols=[Subprotocol("streamlit")],
                                max_size=None, open_timeout=self.timeout_s, ping_interval=None,
                                additional_headers=self.headers or None)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    def widget_id(self, key: str) -> str:
        """The id of the widget drawn with `key=key` in the last run (ids of keyed widgets end in -key)."""
        found = [wid for wid in self.widgets if wid.endswith(f"-{key}")]
        if len(found) != 1:
            raise LookupError(f"widget {key!r}: {len(found)} matches among {len(self.widgets)} widgets")
        return found[0]

    async def rerun(self, page_name: str | None = None, query_string: str = "", states=()) -> RunResult:
        """Ask for a run (a page open when page_name is given, else a rerun of the current page) and wait for it."""
        if page_name is not None:
            self.page_name = page_name
        msg = BackMsg()
        msg.rerun_script.page_name = self.page_name
        msg.rerun_script.query_string = query_string
        for state in states:
            msg.rerun_script.widget_states.widgets.add().CopyFrom(state)
        started = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        return await self._until_finished(started)

    async def click(self, key: str) -> RunResult:
        return await self.rerun(states=[WidgetState(id=self.widget_id(key), trigger_value=True)])

    async def choose(self, key: str, index: int) -> RunResult:
        """Pick option `index` of a radio: Streamlit 1.67 sends its formatted label as string_value (RadioSerde)."""
        wid = self.widget_id(key)
        options = list(self.widgets[wid].options)
        return await self.rerun(states=[WidgetState(id=wid, string_value=options[index % len(options)])])

    async def set_int(self, key: str, value: int) -> RunResult:
        wid = self.widget_id(key)
        # number_input sends int_value when declared with ints (NumberInput.DataType.INT = 1), else double_value
        is_int = getattr(self.widgets[wid], "data_type", 0) == 1
        state = WidgetState(id=wid, int_value=int(value)) if is_int else WidgetState(id=wid, double_value=value)
        return await self.rerun(states=[state])

    async def _until_finished(self, started: float) -> RunResult:
        result = RunResult(0.0, True)
        deadline = started + self.timeout_s
        while True:  # bounded by the deadline
            try:
                raw = await asyncio.wait_for(self.ws.recv(), max(0.001, deadline - time.perf_counter()))
            except (TimeoutError, asyncio.TimeoutError):
                return RunResult(time.perf_counter() - started, False, "timeout", result.num_messages)
            except Exception as exc:  # noqa: BLE001 -- a dropped connection is an outcome to count, not a crash
                return RunResult(time.perf_counter() - started, False, f"connection: {type(exc).__name__}")
            result.num_messages += 1
            result.num_bytes += len(raw)
            fwd = ForwardMsg.FromString(raw)
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.widgets.clear()
            elif kind == "delta":
                self._note(fwd, result)
            elif kind == "page_not_found":
                result.ok, result.reason = False, "page not found"
            elif kind == "script_finished" and fwd.script_finished != FINISHED.FINISHED_EARLY_FOR_RERUN:
                if fwd.script_finished == FINISHED.FINISHED_WITH_COMPILE_ERROR:
                    result.ok, result.reason = False, "compile error"
                result.latency_s = time.perf_counter() - started
                return result

    def _note(self, fwd: ForwardMsg, result: RunResult) -> None:
        if fwd.delta.WhichOneof("type") != "new_element":
            return
        element = fwd.delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            result.ok, result.reason = False, f"exception: {element.exception.message[:120]}"
        elif kind in WIDGET_KINDS:
            proto = getattr(element, kind)
            if proto.id:
                self.widgets[proto.id] = proto
