"""The policy registry: one entry per policy carries its traits, the CLI and the app read them from there, and a
new policy is one function plus one entry (its labels included)."""

from __future__ import annotations

import importlib
import json

import pytest

from chunkviz.cli.main import main
from chunkviz.simulator.engine import resolve_knobs, simulate
from chunkviz.simulator.policies import registry
from chunkviz.simulator.policies.registry import POLICY_NAMES, REGISTRY, PolicyEntry, policy_entry
from chunkviz.simulator.policies.vllm import schedule_chunked
from chunkviz.simulator.sched_common import Plan, SchedContext, admit_waiting, newest_victim, schedule_running
from tests.helpers import make_config, make_requests


def test_every_policy_has_its_traits_and_both_labels():
    assert POLICY_NAMES == ("monolithic", "vllm-nochunk", "chunked", "sarathi", "sglang", "trtllm", "static")
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


def test_a_new_policy_is_one_function_plus_one_entry_with_its_labels(monkeypatch):
    # The whole change a new policy needs: the function above and this entry (labels included). The engine, the
    # rejection rule for prompts over the budget, the defaults and the app's label all follow from the entry.
    entry = PolicyEntry("toy", _schedule_decodes_only_then_fcfs, False, False, newest_victim,
                        registry.d.vllm_v0_defaults, "toy policy", "玩具策略", "tests/test_policies.py")
    monkeypatch.setitem(REGISTRY, "toy", entry)
    trace = simulate(make_config("toy", 4096), make_requests([(0.0, 100, 3), (0.0, 5000, 2)]))
    assert trace.policy == "toy" and trace.requests[0].finish_s is not None
    assert "does not chunk" in trace.requests[1].rejected_reason  # read from chunks_prompts=False
    import ui.text_policies

    texts = importlib.reload(ui.text_policies).TEXTS
    assert texts["policy.toy"] == ("toy policy", "玩具策略")


def test_the_app_labels_come_from_the_registry():
    import ui.text_policies

    texts = importlib.reload(ui.text_policies).TEXTS
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
    out = _cli_json(capsys, ["--n-samples", "3", "--parallel-sampling", "v0-fork-cow", "--max-num-seqs", "4"])
    assert out["num_finished"] == 6


def test_threshold_under_a_policy_that_does_not_chunk_is_noted_and_ignored(capsys):
    assert main(["simulate", "--num-requests", "4", "--policy", "monolithic", "--long-prefill-token-threshold",
                 "256", "--json"]) == 0
    assert "long_prefill_token_threshold=256 is ignored: policy monolithic does not chunk prompts" in \
        capsys.readouterr().err


def test_the_cli_refuses_what_vllm_refuses(capsys):
    code = main(["simulate", "--policy", "vllm-nochunk", "--max-num-batched-tokens", "2048", "--json"])
    assert code == 2
    assert "smaller than max_model_len (8192)" in capsys.readouterr().err


def test_schedule_chunked_is_the_registered_v1_function():
    assert REGISTRY["chunked"].schedule is schedule_chunked
