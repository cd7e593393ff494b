"""The policy registry: one entry per policy carries its traits (chunking, reservation, victim, defaults, start-up
refusals, fast-path eligibility and arrival absorption, the vLLM switch it models, labels), the engine, the CLI and
the app read them from there, no core module outside the registry compares a policy's name, and a new policy is one
function plus one entry (its labels included) that opts into the rest by keyword."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path

import pytest

from chunkviz.cli.main import main
from chunkviz.config import DEFAULT_POLICY
from chunkviz.errors import InputError
from chunkviz.simulator.engine import resolve_knobs, simulate
from chunkviz.simulator.policies import refusals, registry
from chunkviz.simulator.policies.registry import (BASELINE_POLICY, POLICY_NAMES, REGISTRY, PolicyEntry, policy_entry,
                                                  vllm_v1_policy)
from chunkviz.simulator.policies.vllm import schedule_chunked
from chunkviz.simulator.sched_common import Plan, SchedContext, admit_waiting, newest_victim, schedule_running
from tests.helpers import make_config, make_requests

CORE = Path(__file__).resolve().parents[1] / "chunkviz"


def test_every_policy_has_its_traits_and_both_labels():
    assert POLICY_NAMES == ("monolithic", "vllm-nochunk", "chunked", "sarathi", "sglang", "trtllm", "static",
                            "orca")
    for entry in REGISTRY.values():
        assert entry.label_en and entry.label_zh and entry.follows
    chunking = {name for name, e in REGISTRY.items() if e.chunks(make_config(name).scheduler)}
    assert chunking == {"chunked", "sarathi", "sglang"}  # trtllm: only with --trtllm-chunked-context
    assert REGISTRY["monolithic"].label_en == "prefill-first (vLLM V0)"


def test_traits_read_by_the_engine_come_from_the_registry():
    trt = make_config("trtllm", 512)
    assert not resolve_knobs(trt, 1000).chunks_prompts
    on = type(trt.scheduler)(policy="trtllm", max_num_batched_tokens=512, trtllm_chunked_context=True)
    assert REGISTRY["trtllm"].chunks(on)
    assert resolve_knobs(make_config("sarathi", 512), 1000).reserve_prompt
    assert not resolve_knobs(make_config("chunked", 512), 1000).reserve_prompt
    assert resolve_knobs(make_config("chunked", 512, allocation="reserve"), 1000).reserve_prompt


def test_unknown_policy_names_the_choices():
    with pytest.raises(ValueError, match="policy must be one of monolithic, vllm-nochunk"):
        policy_entry("vllm-v2")


def _schedule_decodes_only_then_fcfs(ctx: SchedContext) -> Plan:
    """A toy policy: decodes, then whole prompts FCFS (no chunking)."""
    plan = Plan()
    tokens_left = schedule_running(ctx, plan, ctx.max_num_batched_tokens)
    admit_waiting(ctx, plan, tokens_left, allow_chunk=False)
    return plan


def _toy_entry(**traits) -> PolicyEntry:
    """The whole entry a new policy needs (labels included); its optional traits come as keywords."""
    return PolicyEntry("toy", _schedule_decodes_only_then_fcfs, chunks_prompts=False, reserves_prompt=False,
                       victim=newest_victim, defaults=registry.d.vllm_v0_defaults, label_en="toy policy",
                       label_zh="玩具策略", follows="tests/test_policies.py", **traits)


def test_a_new_policy_is_one_function_plus_one_entry_with_its_labels(monkeypatch):
    # The whole change a new policy needs: the function above and this entry (labels included). The engine, the
    # rejection rule for prompts over the budget, the defaults and the app's label all follow from the entry.
    monkeypatch.setitem(REGISTRY, "toy", _toy_entry())
    trace = simulate(make_config("toy", 4096), make_requests([(0.0, 100, 3), (0.0, 5000, 2)]))
    assert trace.policy == "toy" and trace.requests[0].finish_s is not None
    assert "does not chunk" in trace.requests[1].rejected_reason  # read from chunks_prompts=False
    import ui.text_common

    texts = ui.text_common.policy_texts()
    assert texts["policy.toy"] == ("toy policy", "玩具策略")


def test_a_new_policy_opts_into_the_fast_path_by_its_entry(monkeypatch):
    # The toy runs its running list first, one decode token each, so with nothing waiting its plan is the fast
    # path's step: fast_path=True in its entry is all it takes, and the results stay those of the exact loop.
    reqs = make_requests([(0.0, 300, 120), (0.01, 200, 90), (0.02, 100, 150), (1.5, 50, 40)])
    config = make_config("toy", 4096, detail=False)
    monkeypatch.setitem(REGISTRY, "toy", _toy_entry())
    assert simulate(config, reqs).fast_forwarded_steps == 0  # left out by default
    monkeypatch.setitem(REGISTRY, "toy", _toy_entry(fast_path=True))
    fast = simulate(config, reqs)
    exact = simulate(replace(config, fast_forward=False), reqs)
    assert fast.fast_forwarded_steps > fast.num_steps // 2 and exact.fast_forwarded_steps == 0
    assert fast == exact and fast.to_json() == exact.to_json()


def test_arrival_absorption_is_a_trait_of_the_entry(monkeypatch):
    # An arrival during a steady stretch: with absorption the stretch takes it into a mixed step and goes on, without
    # it the fast path hands the step back to the exact loop; results are the same, only the skipped count differs.
    reqs = make_requests([(0.0, 100, 200), (0.001, 80, 150), (0.05, 1500, 50), (0.07, 1500, 50), (0.4, 10, 1)])
    config = make_config("toy", 4096, detail=False)
    runs = {}
    for absorbs in (False, True):
        monkeypatch.setitem(REGISTRY, "toy", _toy_entry(fast_path=True, fast_path_absorbs_arrivals=absorbs))
        runs[absorbs] = simulate(config, reqs)
    assert runs[True] == runs[False] == simulate(replace(config, fast_forward=False), reqs)
    assert runs[True].fast_forwarded_steps > runs[False].fast_forwarded_steps
    with pytest.raises(ValueError, match="fast_path_absorbs_arrivals needs fast_path"):
        _toy_entry(fast_path_absorbs_arrivals=True)


def test_start_up_refusals_are_listed_in_the_entry(monkeypatch):
    monkeypatch.setitem(REGISTRY, "toy", _toy_entry())
    assert resolve_knobs(make_config("toy", 2048), 1000).max_num_batched_tokens == 2048  # refuses nothing
    monkeypatch.setitem(REGISTRY, "toy", _toy_entry(refusals=refusals.VLLM_NO_CHUNK))
    with pytest.raises(InputError, match=r"max_num_batched_tokens \(2048\) is smaller than max_model_len \(8192\)"):
        resolve_knobs(make_config("toy", 2048), 1000)
    with pytest.raises(InputError, match=r"must be greater than or equal to max_num_seqs \(9000\)"):
        resolve_knobs(make_config("toy", 8192, max_num_seqs=9000), 1000)


def test_the_vllm_switch_and_the_defaults_name_registry_entries():
    assert vllm_v1_policy(True) == "chunked" and vllm_v1_policy(False) == "vllm-nochunk"
    assert DEFAULT_POLICY in REGISTRY and BASELINE_POLICY in REGISTRY
    assert not policy_entry(BASELINE_POLICY).chunks(make_config(BASELINE_POLICY).scheduler)
    assert [n for n, e in REGISTRY.items() if e.fast_path] == ["monolithic", "vllm-nochunk", "chunked", "sarathi",
                                                               "sglang", "trtllm", "static"]
    plain = {n: make_config(n).scheduler for n in REGISTRY}
    assert [n for n, e in REGISTRY.items() if e.absorbs(plain[n])] == ["vllm-nochunk", "chunked", "sglang", "trtllm"]
    # TensorRT-LLM's chunked context cuts prompts to whole blocks, which the absorption does not replay
    chunked_context = replace(plain["trtllm"], trtllm_chunked_context=True)
    assert not policy_entry("trtllm").absorbs(chunked_context)
    assert [n for n, e in REGISTRY.items() if e.fast_path_reserve is not None] == ["trtllm"]


def _policy_names_in_code(path: Path) -> list[str]:
    """String constants equal to a policy name, docstrings and the config's DEFAULT_POLICY value left out."""
    tree = ast.parse(path.read_text())
    skip = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}  # docstrings
    skip |= {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and [getattr(t, "id", None) for t in node.targets] == ["DEFAULT_POLICY"]}
    return [f"{path.relative_to(CORE.parent)}:{node.lineno} {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in REGISTRY and id(node) not in skip]


def test_no_core_module_outside_the_registry_names_a_policy():
    # Lessons may pick a policy for a teaching scenario (a scenario is "this policy": data, named once in
    # lessons/chapters.py); everything else asks the registry.
    registry_file = CORE / "simulator" / "policies" / "registry.py"
    files = [p for p in sorted(CORE.rglob("*.py")) if p != registry_file and "lessons" not in p.parts]
    assert [hit for path in files for hit in _policy_names_in_code(path)] == []
    assert _policy_names_in_code(registry_file)  # the check does see names where they are


def test_the_app_labels_come_from_the_registry():
    import ui.text_common

    texts = ui.text_common.policy_texts()
    assert {key.removeprefix("policy.") for key in texts} == set(POLICY_NAMES)
    assert texts["policy.vllm-nochunk"][0] == "vLLM V1, chunked prefill off"


def _cli_json(capsys, args: list[str]) -> dict:
    assert main(["simulate", "--num-requests", "6", "--qps", "20", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_enable_chunked_prefill_false_selects_vllm_nochunk_and_prints_the_resolved_knobs(capsys):
    out = _cli_json(capsys, ["--enable-chunked-prefill", "false"])
    assert out["policy"] == "vllm-nochunk"
    assert (out["budget_tokens"], out["max_num_seqs"]) == (8192, 1024)  # H100: max_model_len, get_batch_defaults
    out = _cli_json(capsys, ["--gpu", "a100-80gb"])
    assert (out["policy"], out["budget_tokens"], out["max_num_seqs"]) == ("chunked", 2048, 256)


def test_cli_flags_for_trtllm_and_parallel_sampling(capsys):
    out = _cli_json(capsys, ["--policy", "trtllm", "--trtllm-capacity-policy", "max-utilization",
                             "--trtllm-chunked-context", "true", "--max-num-batched-tokens", "512"])
    assert out["policy"] == "trtllm" and out["budget_tokens"] == 512 and out["max_num_seqs"] == 2048
    out = _cli_json(capsys, ["--workload", "synthetic", "--n-samples", "3", "--parallel-sampling", "v0-fork-cow", "--max-num-seqs", "4"])
    assert out["num_finished"] == 6


def test_threshold_under_a_policy_that_does_not_chunk_is_noted_and_ignored(capsys):
    assert main(["simulate", "--num-requests", "4", "--policy", "monolithic", "--long-prefill-token-threshold",
                 "256", "--json"]) == 0
    assert "long_prefill_token_threshold=256 is ignored: policy monolithic does not chunk prompts" in \
        capsys.readouterr().err


def test_the_run_resolves_its_knobs_once_and_its_trace_carries_the_notes(capsys, monkeypatch):
    # The CLI builds the config once and the engine resolves the knobs once; the notes ride in the trace (not in its
    # JSON, whose bytes the golden hashes fix), so neither the CLI nor the app resolves a second time.
    from chunkviz.analysis.scenario import Scenario
    from chunkviz.simulator import engine

    calls = {"resolve": 0, "config": 0}
    resolve, sim_config = engine.resolve_knobs, Scenario.sim_config

    def counted_resolve(*args):
        calls["resolve"] += 1
        return resolve(*args)

    def counted_config(self):
        calls["config"] += 1
        return sim_config(self)
    monkeypatch.setattr(engine, "resolve_knobs", counted_resolve)
    monkeypatch.setattr(Scenario, "sim_config", counted_config)
    assert main(["simulate", "--num-requests", "4", "--policy", "monolithic", "--long-prefill-token-threshold",
                 "256", "--json"]) == 0
    assert calls == {"resolve": 1, "config": 1}
    assert "note: long_prefill_token_threshold=256 is ignored" in capsys.readouterr().err
    trace = simulate(make_config("monolithic", None, threshold=256, detail=False), make_requests([(0.0, 10, 2)]))
    assert trace.knob_notes == ("long_prefill_token_threshold=256 is ignored: policy monolithic does not chunk "
                                "prompts",)
    assert "knob_notes" not in trace.to_json() and type(trace).from_json(trace.to_json()) == trace


def test_the_cli_refuses_what_vllm_refuses(capsys):
    code = main(["simulate", "--policy", "vllm-nochunk", "--max-num-batched-tokens", "2048", "--json"])
    assert code == 2
    assert "smaller than max_model_len (8192)" in capsys.readouterr().err


def test_schedule_chunked_is_the_registered_v1_function():
    assert REGISTRY["chunked"].schedule is schedule_chunked
