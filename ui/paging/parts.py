"""The page-replacement page's parts: cached runs, the reference-string input with its preset callbacks and the
rule controls (the stepping lives in the browser stage, stage.py). pages/paging_page.py only lays them out.

Invariant: every widget keeps the key (and so the URL parameter) the page has always used (pr_*); a bad reference
string never stops the page: the last good one (or the preset) is shown with the error.
"""

from __future__ import annotations

import streamlit as st

from chunkviz.errors import InputError
from chunkviz.lessons.paging import ALGORITHMS, LFU_TIE_BREAKS, PRESETS, parse_refs
from chunkviz.lessons.paging_bridge import REF_PRESETS, compare_algorithms, kv_hit_rate_curves, preset_refs, refs_text
from ui.i18n import labeler, t
from ui.plain import md_escape
from ui.url_state import choice, choice_parser, int_parser, publish, seed, stepped_choice, widget_key

ss = st.session_state


@st.cache_resource(max_entries=32, show_spinner=False)
def compare(refs: tuple[int, ...], frames: int, bit: bool, tie: str):
    return compare_algorithms(refs, frames, bit, tie)


@st.cache_data(max_entries=8, show_spinner=False)
def kv_curves(workload: str, block_tokens: int):
    return kv_hit_rate_curves(workload, block_tokens)


def _load_preset() -> None:
    refs = preset_refs(ss["pr_preset"], int(ss["pr_seed"]))
    if refs is not None:
        ss["pr_refs"] = refs_text(refs)


def _pick_preset(box_key: str) -> None:
    ss["pr_preset"] = ss[box_key]
    _load_preset()


def _reseed() -> None:
    ss["pr_preset"] = "random"
    _load_preset()


def load_belady() -> None:
    """The stage's "load Belady's string" button (a callback, so before the widgets are drawn)."""
    ss["pr_preset"] = "belady"
    _load_preset()


def _parsed_refs() -> tuple[tuple[int, ...], str | None]:
    """The reference string typed (or linked), else the last good one with the parse error."""
    fallback = ss.get("pr_last_good") or preset_refs(ss["pr_preset"], ss["pr_seed"]) or PRESETS["belady"]
    try:
        refs = parse_refs(ss["pr_refs"])
    except InputError as exc:
        return fallback, str(exc)
    ss["pr_last_good"] = refs
    if refs != preset_refs(ss["pr_preset"], ss["pr_seed"]):
        ss["pr_preset"] = "custom"  # the text was edited (or came from a link): say so in the preset box
    return refs, None


def reference_input() -> tuple[int, ...]:
    """Preset box, reference string and seed; returns the string to run (showing any parse error)."""
    seed("pr_preset", "belady", choice_parser(REF_PRESETS))
    seed("pr_seed", 0, int_parser(0, 1_000_000))
    seed("pr_refs", refs_text(preset_refs(ss["pr_preset"], ss["pr_seed"]) or PRESETS["belady"]), str)
    refs, error = _parsed_refs()
    c = st.columns([2, 4, 1.3])
    box = widget_key("pr_preset_box")  # one box per language fed from ss["pr_preset"], as url_state.choice does
    ss[box] = ss["pr_preset"]
    c[0].selectbox(t("pr.preset"), REF_PRESETS, key=box, format_func=labeler("pr.preset."),
                   on_change=_pick_preset, args=(box,))
    c[1].text_input(t("pr.refs"), key="pr_refs", help=t("pr.refs_help"))
    c[2].number_input(t("pr.seed"), 0, 1_000_000, step=1, key="pr_seed", on_change=_reseed)
    for key in ("pr_preset", "pr_refs", "pr_seed"):
        publish(key)
    if error:
        st.error(t("pr.bad_refs", error=md_escape(error), refs=md_escape(refs_text(refs))))
    return refs


def rule_controls() -> tuple[str, int, bool, str]:
    """(algorithm, frames, Clock's R bit on load, LFU's tie break)."""
    c = st.columns(4)
    alg = choice(c[0], t("pr.alg"), ALGORITHMS, "pr_alg", "fifo", labeler("pr.alg."))
    frames = int(stepped_choice(c[1], t("pr.frames"), tuple(range(1, 11)), "pr_frames", 3))
    bit = choice(c[2], t("pr.clock_bit"), ("1", "0"), "pr_clock_bit", "1", labeler("pr.clock_bit.")) == "1"
    tie = choice(c[3], t("pr.lfu_tie"), LFU_TIE_BREAKS, "pr_lfu_tie", "fifo", labeler("pr.lfu_tie."))
    if alg == "clock":
        st.caption(t("pr.clock_bit_help"))
    return alg, frames, bit, tie
