"""The kv view of the offline export (ui/components/offline/writer.py's EXPORTS["kv"]): the shared KV stage's payload
and file
(ui/components/kv_stage/export.py), plus what only /kv's file says: its teaching scenario as a caption.

Invariant: streamlit-free; the payload and file are ui/components/kv_stage/export.py's, so /kv, chapter 4 and the
exported
file draw the same payload.
"""

from __future__ import annotations

from chunkviz.analysis.scenario import Scenario
from chunkviz.simulator.trace import Trace
from ui.i18n import tr
from ui.components.kv_stage.export import (COMPONENT, DEFAULT_SPEED, KEY, SPEEDS, START, URL_PARAM, build_payload,
                                           html_for)

__all__ = ["COMPONENT", "DEFAULT_SPEED", "KEY", "SPEEDS", "START", "URL_PARAM", "build_payload", "html_for",
           "offline_caption", "offline_html"]


def offline_caption(scenario: Scenario, lang: str) -> str:
    """What the file shows: the teaching workload, the engine, the cache's size and rules."""
    c = scenario.cache
    return " · ".join((tr(f"kv.scn.{scenario.workload_preset}", lang), tr(f"policy.{scenario.scheduler.policy}", lang),
                       tr("kvx.cache", lang, blocks=c.num_gpu_blocks, size=c.block_size),
                       tr(f"kv.evict.{c.eviction}", lang), tr(f"kv.alloc.{c.allocation}", lang),
                       tr("kvx.caching_on" if c.enable_prefix_caching else "kvx.caching_off", lang)))


def offline_html(lang: str, scenario: Scenario, trace: Trace) -> str:
    """The offline file for a detailed run of `scenario`, opening on its first step."""
    data = {**build_payload(trace, lang, scenario.cache.eviction), "step0": 0}
    return html_for(data, lang, offline_caption(scenario, lang))
