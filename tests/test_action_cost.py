"""Cheaper actions (issue 37): what made a student's own setting and a cached page open cost less server CPU keeps
the pages' output the same. The CPU figures themselves are bench/action_cpu.py's (speed is benchmarked, not timed
in tests); these tests check the mechanisms behind them:
- the per-trace memo (chunkviz/analysis/per_trace.py) returns what the undecorated view returns, computes it once per
  trace, never mixes two traces up and stays bounded;
- the timeline's metrics-only threshold run gives the same Metrics and notes as the detailed run;
- the collector pause around cached runs (ui/runs.py) restores the collector's state, also with sessions overlapping;
- Streamlit's after-every-run full collection is off for every server started in the repository root.
"""

from __future__ import annotations

import gc
import threading
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from chunkviz.analysis import per_trace
from chunkviz.analysis.bookmarks import find_bookmarks
from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
from chunkviz.analysis.timeline import lane_segments
from ui import runs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def traces():
    mono = run_scenario(DEFAULT_SCENARIO.with_policy("monolithic", None))
    chunked = run_scenario(DEFAULT_SCENARIO.with_policy("chunked", 512))
    return mono, chunked


def test_memoized_views_equal_a_fresh_computation_and_are_computed_once_per_trace(traces):
    mono, chunked = traces
    for view in (lane_segments, find_bookmarks):
        view.cache_clear()
        fresh = {id(t): view.__wrapped__(t) for t in traces}
        first = [view(t) for t in traces]
        assert [f == fresh[id(t)] for f, t in zip(first, traces)] == [True, True]
        assert first[0] != first[1]  # two different runs keep two different answers
        assert view(mono) is first[0] and view(chunked) is first[1]  # the second read is the memo's object


def test_the_memo_keys_by_identity_and_stays_bounded():
    calls = []

    @per_trace.per_trace
    def view(trace):
        calls.append(trace)
        return len(calls)

    class FakeTrace:  # distinct objects that compare equal: the memo must not treat them as one
        def __eq__(self, other):
            return True

        __hash__ = object.__hash__

    many = [FakeTrace() for _ in range(3 * per_trace.MAX_TRACES)]
    assert [view(t) for t in many] == list(range(1, len(many) + 1))  # every object computed on its own
    assert view(many[-1]) == len(many)  # the newest is remembered ...
    assert view(many[0]) == len(many) + 1  # ... the oldest was dropped: at most MAX_TRACES are held
    assert view.held() <= per_trace.MAX_TRACES


def test_the_threshold_suggestion_run_without_detail_gives_the_detailed_runs_metrics():
    for preset in ("long-among-chats", "shared-system-prompt"):
        base = replace(DEFAULT_SCENARIO, workload_preset=preset).with_policy("chunked", 512)
        s = replace(base, scheduler=replace(base.scheduler, long_prefill_token_threshold=256))
        detailed, lean = run_scenario(s), run_scenario(replace(s, record_detail=False))
        assert not lean.steps  # it is the cheap run ...
        assert summarize(lean) == summarize(detailed)  # ... and what the lesson prints from it is the same
        assert lean.knob_notes == detailed.knob_notes


def test_the_collector_pause_restores_the_collectors_state_across_overlapping_runs():
    pause = runs.CollectorPause()
    assert gc.isenabled()
    inside, release, both_in = [], threading.Event(), threading.Barrier(3)

    def session():
        with pause:
            both_in.wait(timeout=30)
            inside.append(gc.isenabled())
            release.wait(timeout=30)

    threads = [threading.Thread(target=session) for _ in range(2)]
    for th in threads:
        th.start()
    both_in.wait(timeout=30)  # both sessions are inside the pause now
    assert not gc.isenabled()
    release.set()
    for th in threads:
        th.join(timeout=30)
    assert inside == [False, False] and gc.isenabled()  # off while any ran, on once the last ended
    gc.disable()
    try:  # a collector someone else turned off stays off
        with pause:
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_cached_run_simulates_without_collector_passes_and_gives_the_collector_back():
    passes = []

    def note(phase, info):
        if phase == "start":
            passes.append(info["generation"])

    def seeded(seed):
        return replace(DEFAULT_SCENARIO, workload=replace(DEFAULT_SCENARIO.workload, seed=seed))

    gc.callbacks.append(note)
    try:
        run_scenario(seeded(424241))  # the control: a run allocates enough to start the collector
        unpaused = len(passes)
        passes.clear()
        trace = runs.cached_trace.__wrapped__(seeded(424242))  # what the shared cache calls on a miss
        paused = len(passes)
    finally:
        gc.callbacks.remove(note)
    assert unpaused > 0 and paused == 0
    assert gc.isenabled() and trace.steps  # the collector is back on and the run is a real, detailed one


def test_streamlits_full_collection_after_every_run_is_off_for_servers_started_here():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False


def test_a_payload_is_built_without_collector_passes(traces):
    from chunkviz.analysis import bookmarks, timeline
    from ui.components.comparison import export

    passes = []

    def note(phase, info):  # was a build running when the collector started?
        if phase == "start":
            passes.append(runs.COLLECTOR_PAUSE._running)

    runs_ = [("A", traces[0]), ("B", traces[1])]
    gc.callbacks.append(note)
    try:
        for present in (False, True):  # a new key each time: built, not read from the memo
            timeline.lane_segments.cache_clear()
            bookmarks.find_bookmarks.cache_clear()
            with runs.COLLECTOR_PAUSE:  # as ui/components/comparison/mount.py builds it
                data = export.build_payload(runs_, "en", present)
    finally:
        gc.callbacks.remove(note)
    assert [p for p in passes if p] == [] and gc.isenabled()  # passes only between builds (the allocations
    # made during a pause start one right after it)
    assert data["present"] is True and len(data["engines"]) == 2
