"""Registers a stepped-lesson stage: ui/components/stage_player/stage_player.{js,css} (the shared controls, keys, play
loop and URL cursor)
followed by the stage's own <stem>.{js,css} (a wing's stage.{js,css}, or a shared one at ui/ top level such as
ui/components/attention_stage/attention_stage.{js,css}), as one components-v2 element with no build step.

Invariant: each stage is registered once per process at import; its JS module is the player's code, then the
stage's, so the stage's `export default` can use StagePlayer and mountStage.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ui.components.loader import Mount, read_asset

_UI = Path(__file__).resolve().parent
SPEEDS_STEPS_PER_S = (1, 2, 5, 20, 60)
DEFAULT_SPEED = 1  # index into SPEEDS_STEPS_PER_S: 2 steps/s, slow enough to read each reason aloud


def parts(wing: Path, stem: str = "stage") -> tuple[tuple[Path, str], ...]:
    """The (folder, stem) of each file a stage's JS and CSS are joined from, in order (for the offline writer)."""
    return ((_UI, "stage_player"), (wing, stem))


def assets(wing: Path, suffix: str, stem: str = "stage") -> str:
    """The player's asset then the stage's own (`suffix` ".js" or ".css"), one text (also for an export)."""
    return read_asset(_UI, "stage_player", suffix) + "\n" + read_asset(wing, stem, suffix)


def register(name: str, wing: Path, stem: str = "stage") -> Mount:
    """The mount callable of stage `name` whose <stem>.js/<stem>.css live in the folder `wing`
    (ui/components/loader.py's
    register, with the shared player in front)."""
    import streamlit as st  # here, not at the top: the offline writer uses this module without it

    return st.components.v2.component(name, html="", css=assets(wing, ".css", stem), js=assets(wing, ".js", stem))


def with_version(data: dict) -> dict:
    """`data` plus `version`, a hash of everything drawn: the browser rebuilds only when it changes."""
    data["version"] = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
    return data


def start_cursor(param: str, num_positions: int, default: int = 0) -> int:
    """The cursor a link asks for (?param=N), clamped to the positions; a bad value is reported and ignored."""
    import streamlit as st

    from ui.url_state import int_parser, report_error

    raw = st.query_params.get(param)
    if raw is None:
        return default
    try:
        return min(int_parser(0, 10_000_000)(raw), num_positions - 1)
    except ValueError as exc:
        report_error(f"{param}={raw[:40]!r}: {exc}")
        return default
