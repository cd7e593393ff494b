"""Chapter 7's slide and sweep: chapter 2's workload on two GPUs, each instance of each deployment as its own engine
row in the shared comparison component, each KV transfer a band from the prefill GPU's lane to the decode GPU's
(its own colour, palette.TRANSFER, in the legend) with the document's as a note, then the question; after the
answer, goodput per GPU over document length × link.

Invariant: every number drawn or written comes from chunkviz.lessons.split (the runs); until the question is
answered the cursor cannot pass the document's first prompt step on any GPU.
"""

from __future__ import annotations

import streamlit as st

from chunkviz.lessons import split
from chunkviz.lessons.chapters import Chapter, bookmarks, long_request_id
from chunkviz.simulator.deployment import DeploymentRun
from chunkviz.simulator.kv_link import parse_kv_link
from chunkviz.simulator.trace import Trace
from ui import palette
from ui.chapters.common import engine_line, is_present, predict_then_reveal
from ui.chapters.lanes import answered, label_for, lecture_fit, metrics_line
from ui.components.comparison.mount import render_comparison
from ui.components.comparison.export import html_for
from ui.i18n import current_lang, t
from ui.components.offline.download import download_view
from ui.runs import CACHE_TTL_S

# The four GPUs in a 2 × 2 grid (comparison.js grid_cols): colocated's two over each other on the left, the prefill
# GPU over the decode GPU on the right (so a KV transfer moves straight down). A panel gets half the stage's height,
# not a quarter: lanes 12 px at 1280×720 once answered (were 3 px), 16 px before.
SLIDE_HEIGHT_PX = 330
GRID_COLS = 2


@st.cache_resource(max_entries=2, ttl=CACHE_TTL_S, show_spinner=False)
def deployment_runs() -> dict[str, DeploymentRun]:
    return {kind: split.split_run(kind) for kind in split.DEPLOYMENT_KINDS}


@st.cache_resource(max_entries=1, ttl=CACHE_TTL_S, show_spinner=False)
def _sweep() -> tuple[split.SweepCell, ...]:
    return split.sweep()


# The link presets (chunkviz/simulator/kv_link.py) by the names their makers print on them.
LINK_NAMES = {"nvlink": "NVLink", "pcie": "PCIe", "rdma-100": "RDMA 100 Gb/s", "rdma-400": "RDMA 400 Gb/s",
              **{f"{k}-peak": f"{v} peak" for k, v in (("nvlink", "NVLink"), ("pcie", "PCIe"),
                                                       ("rdma-100", "RDMA 100 Gb/s"), ("rdma-400", "RDMA 400 Gb/s"))}}


def link_label(link: str) -> str:
    """`PCIe (2.7 GB/s)`, `NVLink (10 GB/s) layer by layer`, `5 GB/s`: the link's name, the effective rate the run
    used (kv_link.py) and, when a sweep column overrides the engine's transfer mode, that mode."""
    name, mode = split.link_and_mode(link)
    gb = parse_kv_link(name).bytes_per_s / 1e9
    label = f"{gb:g} GB/s" if name[0].isdigit() else f"{LINK_NAMES.get(name, name)} ({gb:g} GB/s)"
    return label if mode is None else f"{label} {t(f'chx.split.mode.{mode}')}"


def short_link(link: str) -> str:
    """The winner column's name of a sweep column: the maker's name, and the mode when the column sets one."""
    name, mode = split.link_and_mode(link)
    label = LINK_NAMES.get(name, link_label(name))
    return label if mode is None else f"{label} {t(f'chx.split.mode.{mode}')}"


def link_caption() -> str:
    """The slide's link as the run used it: rate, per-transfer setup and how the engine's connector sends."""
    run = split.split_run("disagg")
    mode = run.spec.transfer_mode
    return t("chx.split.link", link=link_label(split.SLIDE_LINK), setup_ms=run.spec.kv_link.setup_s * 1e3,
             how=t(f"chx.split.how.{mode}"))


def engines(runs: dict[str, DeploymentRun]) -> list[tuple[str, Trace]]:
    """Every instance as (label, its own trace): colocated GPUs first, then the prefill and the decode GPU."""
    out = []
    for run in runs.values():
        for inst in run.instances:
            key = "chx.split.eng.colocated" if inst.role == "colocated" else f"chx.split.eng.{inst.role}"
            out.append((t(key, n=inst.index + 1), inst.trace))
    return out


def _doc_id(runs: dict[str, DeploymentRun]) -> int:
    return long_request_id(runs["colocated"].trace)


def notes(ch: Chapter, runs: dict[str, DeploymentRun]) -> list[dict]:
    """The document's first prompt step on each GPU that computes it (lanes.label_for), and its KV's arrival on the
    decode GPU."""
    doc, out = _doc_id(runs), []
    for eng, (_, trace) in enumerate(engines(runs)):
        # Only the document's prompt: the GPUs' longest gaps are the question's answer, and in rows this thin
        # their notes would cover the transfer's (the answer quotes them).
        for mark in bookmarks(trace, ch.bookmarks[:1]):
            if mark.request_id != doc:
                continue  # a chat's prompt on a GPU without the document: not the moment the chapter is about
            out.append({"t_ms": mark.end_s * 1e3, "x_ms": (mark.start_s + mark.end_s) / 2 * 1e3, "eng": eng,
                        "lane": mark.request_id if mark.request_id is not None else 0,
                        "text": label_for(mark, trace)})
    decode_eng = len(engines(runs)) - 1
    kv = next(x for x in runs["disagg"].transfers if x.request_id == doc)
    out.append({"t_ms": kv.ready_s * 1e3, "x_ms": kv.ready_s * 1e3, "eng": decode_eng, "lane": doc, "kv": True,
                "text": t("chx.split.lbl.kv", rid=doc, gb=kv.num_bytes / 1e9, link=link_label(split.SLIDE_LINK),
                          ms=kv.exposed_s * 1e3)})
    return out


def transfers(runs: dict[str, DeploymentRun]) -> list[dict]:
    """Every KV transfer of the 1P+1D run as the component draws it (ui/components/comparison/comparison.js
    drawTransfers): from the
    prefill GPU's row to the decode GPU's, over [first byte, cache whole at the decode GPU] (kv_link.py)."""
    where, eng = {}, 0
    for run in runs.values():
        for inst in run.instances:
            where[(run.spec.kind, inst.role, inst.index)] = eng
            eng += 1
    link = link_label(split.SLIDE_LINK)
    return [{"r": x.request_id, "from": where[("disagg", "prefill", x.prefill_instance)],
             "to": where[("disagg", "decode", x.decode_instance)], "s_ms": x.start_s * 1e3, "e_ms": x.ready_s * 1e3,
             "tip": t("chx.split.tip.kv", rid=x.request_id, gb=x.num_bytes / 1e9, link=link, a=x.start_s * 1e3,
                      b=x.ready_s * 1e3, ms=x.exposed_s * 1e3)}
            for x in runs["disagg"].transfers]


def hold_ms(ch: Chapter, runs: dict[str, DeploymentRun]) -> float:
    """The start of the document's first prompt step, the earliest over the GPUs that compute it."""
    doc = _doc_id(runs)
    starts = [m.start_s for _, tr in engines(runs) for m in bookmarks(tr, ch.bookmarks[:1]) if m.request_id == doc]
    return min(starts) * 1e3


def extras(ch: Chapter, runs: dict[str, DeploymentRun], done: bool) -> dict:
    """The comparison payload's additions: notes, a clicker stop at each note, the hold and the reveal."""
    drawn, names = notes(ch, runs), [label for label, _ in engines(runs)]
    # Labelled as chapters' stops are (lanes.stops): the engine's letter and the moment, the engine as the title.
    stops = sorted(({"t_ms": n["t_ms"], "title": names[n["eng"]], "eng": n["eng"],
                     "label": "ABCD"[n["eng"]] + ": " + (t("chx.split.bm.kv", rid=n["lane"]) if n.get("kv")
                                                         else t("chx.bm.long_prefill"))} for n in drawn),
                   key=lambda s: s["t_ms"])
    legend = [[t("chx.split.legend.kv"), palette.TRANSFER, "transfer"]]
    if is_present():  # lecture mode: the link line sits in the legend row, not under it (the lanes get its height)
        legend = [[t("chx.split.legend.kv_link", link=link_label(split.SLIDE_LINK),
                      setup_ms=runs["disagg"].spec.kv_link.setup_s * 1e3), palette.TRANSFER, "transfer"]]
    return {"slide": True, "notes": drawn, "stops": stops, "transfers": transfers(runs), "legend_extra": legend,
            "zoom_ms": 300.0, "height_px": SLIDE_HEIGHT_PX, "grid_cols": GRID_COLS,
            "hold_ms": None if done else hold_ms(ch, runs), "reveal_ms": max(n["t_ms"] for n in drawn),
            "question_ms": hold_ms(ch, runs),  # PageUp after the reveal returns to the question's moment
            **lecture_fit(SLIDE_HEIGHT_PX), **_fit_floor()}


def _fit_floor() -> dict:
    """Lecture mode: the fit never shrinks the grid below 10 px lanes (two rows of panels, each a title line, a thin
    steps strip and the decode GPU's six lanes, over the time axis: comparison.js drawEngine)."""
    if not is_present():
        return {}
    title_px, strip_px, axis_px, lanes = 18 + 5, 8 + 4 + 4, 16 + 12, 6
    return {"fit_min_px": 2 * (title_px + strip_px + lanes * 10) + axis_px + 8}


def slide(ch: Chapter) -> None:
    """The stage (keyed `stage`) with all four GPUs on one time axis, then the question (keyed `predict`)."""
    runs = deployment_runs()
    with st.container(key="stage"):
        mounted = render_comparison(engines(runs), key=f"c{ch.number}_lanes", present=is_present(),
                                    extras=extras(ch, runs, answered(ch)), start_ms=hold_ms(ch, runs))
        if not is_present():  # lecture mode: the legend names the link (extras)
            st.caption(link_caption())
    results = [engine_line(t(f"chx.split.run.{kind}"), metrics_line(run.trace)) for kind, run in runs.items()]
    predict_then_reveal(ch, results)
    if not is_present():
        st.caption(t("chx.preset_note", preset=t(f"chx.preset.{ch.preset}")))
    lang = current_lang()  # "Download this view" under the question, as every chapter (lanes.slide)
    download_view(lambda: html_for(mounted, lang), f"chunkviz-chapter-{ch.number}", f"c{ch.number}_dl_view")


def sweep_lesson() -> None:
    """Goodput per GPU, document length × deployment, and the winner of each row (a tie within the search's
    tolerance)."""
    cells = _sweep()
    st.subheader(t("chx.split.sweep.title"))
    st.markdown(t("chx.split.sweep.body", n=split.SWEEP_NUM_REQUESTS, ttft_ms=split.SWEEP_SLO.ttft_p90_s * 1e3,
                  tbt_ms=split.SWEEP_SLO.tbt_p99_s * 1e3))
    names = {"colocated": t("chx.split.sweep.colocated"),
             **{link: t("chx.split.sweep.disagg", link=link_label(link)) for link in split.SWEEP_LINKS}}
    table: dict[str, list] = {t("chx.split.sweep.doc"): list(split.SWEEP_DOC_TOKENS)}
    for dep, name in names.items():
        table[name] = [c.goodput_per_gpu for c in cells if c.deployment == dep]
    # The winner column names a link by its maker's name alone (the columns carry the rates), so a tie fits 1280 px.
    short = {"colocated": names["colocated"], **{link: short_link(link) for link in split.SWEEP_LINKS}}
    table[t("chx.split.sweep.winner")] = [_winner([c for c in cells if c.doc_tokens == doc], short)
                                          for doc in split.SWEEP_DOC_TOKENS]
    st.dataframe(table, hide_index=True,
                 column_config={n: st.column_config.NumberColumn(format="%.1f") for n in names.values()})
    st.markdown(_verdict(cells, short))


def _verdict(cells: tuple[split.SweepCell, ...], names: dict[str, str]) -> str:
    """Which link assumptions let 1P+1D reach colocated's goodput at some length (split.reaching_colocated)."""
    reach = split.reaching_colocated(cells)
    none = t("chx.split.sweep.none")
    wins = "; ".join(f"{names[dep]} ({', '.join(f'{d:,}' for d in docs)})" for dep, docs in reach.items() if docs)
    loses = ", ".join(names[dep] for dep, docs in reach.items() if not docs)
    return t("chx.split.sweep.verdict", wins=wins or none, loses=loses or none)


def _winner(row: list[split.SweepCell], names: dict[str, str]) -> str:
    ranked = sorted(row, key=lambda c: -c.goodput_per_gpu)
    best, second = ranked[0], ranked[1]
    if best.goodput_per_gpu <= second.goodput_per_gpu * (1 + split.SWEEP_TOLERANCE):
        return f"{t('chx.split.sweep.tie')}: {names[best.deployment]} / {names[second.deployment]}"
    return names[best.deployment]
