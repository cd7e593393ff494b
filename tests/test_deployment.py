"""Deployments (simulator/deployment.py): a lone request's TTFT under disaggregation is its prefill plus the
transfer, priced by the cost model; decode instances never run prefill tokens; requests and tokens are conserved
across instances; runs are deterministic; routing follows its rules; a slow link shows in TTFT; one colocated
instance is exactly the single engine."""

from __future__ import annotations

from dataclasses import replace

import pytest

from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.cost.profiled import make_step_coster
from chunkviz.cost.roofline import shape_of
from chunkviz.errors import InputError
from chunkviz.request import Request
from chunkviz.simulator.deployment import DeploymentSpec, run_deployment
from chunkviz.simulator.engine import resolve_knobs, simulate
from chunkviz.simulator.kv_link import KV_LINKS, parse_kv_link
from chunkviz.simulator.policies.registry import POLICY_NAMES, REGISTRY
from chunkviz.simulator.routing import route_in_flight, route_prefill
from chunkviz.workloads.generators import WorkloadSpec

BASE = Scenario(workload=WorkloadSpec(num_requests=60, qps=8.0, prompt_tokens=300, output_tokens=40, seed=3),
                record_detail=True)


def _disagg(**kw) -> DeploymentSpec:
    return DeploymentSpec(kind="disagg", **kw)


@pytest.mark.parametrize("mode", ["after-prefill", "layerwise"])
def test_lone_request_ttft_is_prefill_plus_transfer(mode):
    config = BASE.with_policy("chunked", 8192).sim_config()
    prompt, link = 4000, KV_LINKS["rdma-100"]
    run = run_deployment(config, [Request(0, 0.25, prompt, 8)], _disagg(kv_link=link, transfer_mode=mode))
    pricing = resolve_knobs(config, 10_000).step_pricing  # the engine's CUDA graphs and overlap scheduling
    coster = make_step_coster(config, pricing)
    prefill_s = coster(shape_of(((prompt, 0),), ())).total_s  # one step: the budget holds it
    # vLLM's decode side: its first step recomputes the prompt's last token and samples the client's token 1
    first_decode_s = coster(shape_of(((1, prompt - 1),), ())).total_s
    wire_s = config.model.kv_bytes_per_token * prompt / link.bytes_per_s
    if mode == "after-prefill":  # the connector's setup starts when the prefill ends
        transfer_s = link.setup_s + wire_s + link.latency_s
    else:  # the first layer may leave after 1/L of the prefill and the setup (started with it); the wire decides
        layers = config.model.num_layers
        start_s = max(prefill_s / layers, link.setup_s)
        transfer_s = max(start_s + wire_s, prefill_s + wire_s / layers) - prefill_s + link.latency_s
    (result,) = run.trace.requests
    assert result.first_token_s - result.arrival_s == pytest.approx(prefill_s + transfer_s + first_decode_s,
                                                                    rel=1e-12)
    (transfer,) = run.transfers
    assert transfer.exposed_s == pytest.approx(transfer_s, rel=1e-12)
    assert result.num_generated_tokens == 8 and result.finish_s > result.first_token_s


def test_layerwise_hides_transfer_behind_the_prefill():
    config, requests = BASE.sim_config(), [Request(0, 0.0, 6000, 4)]
    after = run_deployment(config, requests, _disagg(kv_link=KV_LINKS["pcie-peak"], transfer_mode="after-prefill"))
    layer = run_deployment(config, requests, _disagg(kv_link=KV_LINKS["pcie-peak"], transfer_mode="layerwise"))
    assert layer.transfers[0].exposed_s < after.transfers[0].exposed_s / 10  # at the wire's peak: hidden
    # At a connector's measured 2.7 GB/s the wire outlasts the prefill: layer by layer still helps, hides no longer
    after = run_deployment(config, requests, _disagg(kv_link=KV_LINKS["pcie"], transfer_mode="after-prefill"))
    layer = run_deployment(config, requests, _disagg(kv_link=KV_LINKS["pcie"], transfer_mode="layerwise"))
    (t,) = layer.transfers
    wire_s = t.num_bytes / KV_LINKS["pcie"].bytes_per_s
    assert after.transfers[0].exposed_s > t.exposed_s >= wire_s - (t.prefill_end_s - t.prefill_start_s)


@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_decode_instances_run_no_prefill_and_prefill_instances_no_decode(policy):
    # 8192 tokens: the budget vLLM requires of a policy that does not chunk (max_model_len)
    scenario = replace(BASE, workload=replace(BASE.workload, num_requests=30)).with_policy(policy, 8192)
    run = run_deployment(scenario.sim_config(), scenario.requests(), _disagg(num_prefill_instances=2,
                                                                             num_decode_instances=2))
    assert sum(r.num_preemptions for r in run.trace.requests) == 0  # a preempted request would recompute
    recomputes = REGISTRY[policy].pd_first_token_from_decode  # vLLM's decode side recomputes the last prompt token
    for instance in run.instances:
        phases = {c.phase for step in instance.trace.steps for c in step.chunks}
        if instance.role == "prefill":
            assert phases == {"prefill"}
        elif recomputes:
            assert phases == {"decode", "prefill"}
            assert {c.num_tokens for step in instance.trace.steps for c in step.chunks if c.phase == "prefill"} == {1}
        else:
            assert phases == {"decode"}


def test_requests_and_tokens_are_conserved_across_instances():
    requests = BASE.requests()
    run = run_deployment(BASE.sim_config(), requests, _disagg(num_prefill_instances=2, num_decode_instances=3,
                                                              routing="least-loaded"))
    prefill_ids = [rid for i in run.instances if i.role == "prefill" for rid in i.request_ids]
    decode_ids = [rid for i in run.instances if i.role == "decode" for rid in i.request_ids]
    assert sorted(prefill_ids) == [r.request_id for r in requests]
    assert sorted(decode_ids) == sorted(r.request_id for r in requests if r.output_tokens > 1)
    chunks = [(i.role, c) for i in run.instances for step in i.trace.steps for c in step.chunks]
    assert sum(c.num_tokens for role, c in chunks if role == "prefill") == sum(r.prompt_tokens for r in requests)
    # vLLM (the default policy): the decode side computes every output token, the first by recomputing the prompt's
    # last token (PolicyEntry.pd_first_token_from_decode); requests of one output token end at the prefill.
    assert sum(c.num_tokens for role, c in chunks if role == "decode") == sum(r.output_tokens for r in requests
                                                                             if r.output_tokens > 1)
    assert [r.request_id for r in run.trace.requests] == [r.request_id for r in requests]
    assert [r.num_generated_tokens for r in run.trace.requests] == [r.output_tokens for r in requests]
    assert len(run.trace.tbt_gaps_s) == sum(r.output_tokens - 1 for r in requests)


def test_same_inputs_give_identical_runs_and_fast_forward_changes_nothing():
    spec = _disagg(num_prefill_instances=2, routing="least-loaded", kv_link=parse_kv_link("20"))
    metrics_only = replace(BASE, record_detail=False, deployment=spec)
    first = run_scenario(metrics_only)
    assert first.to_json() == run_scenario(metrics_only).to_json()
    assert first == run_scenario(replace(metrics_only, fast_forward=False))


def test_one_colocated_instance_is_the_single_engine_and_two_split_the_load():
    single = simulate(BASE.sim_config(), BASE.requests())
    assert run_scenario(replace(BASE, deployment=DeploymentSpec())) == replace(single, steps=())
    two = run_deployment(BASE.sim_config(), BASE.requests(), DeploymentSpec(num_instances=2))
    assert [len(i.request_ids) for i in two.instances] == [30, 30] and two.num_gpus == 2


def test_round_robin_and_least_loaded_routing():
    coster = make_step_coster(BASE.sim_config())
    # A long prompt, then two short ones, all at once: round-robin alternates; least-loaded sends both short
    # prompts to the instance that is not busy with the long one.
    burst = [Request(0, 0.0, 8000, 4), Request(1, 0.0, 100, 4), Request(2, 0.0, 100, 4)]
    assert route_prefill(burst, 2, "round-robin", coster) == [0, 1, 0]
    assert route_prefill(burst, 2, "least-loaded", coster) == [0, 1, 1]
    # In flight: a long generation holds instance 0; the next two go to 1 then (a tie broken by index) 0.
    decodes = [Request(0, 0.0, 100, 2000), Request(1, 0.1, 100, 2), Request(2, 5.0, 100, 2)]
    assert route_in_flight(decodes, 2, "least-loaded", coster, False) == [0, 1, 1]
    assert route_in_flight(decodes, 3, "round-robin", coster, False) == [0, 1, 2]


def test_a_slow_link_shows_in_ttft():
    requests = [r for r in BASE.requests()][:20]
    ttft = {}
    for name in ("nvlink", "rdma-100"):
        run = run_deployment(BASE.sim_config(), requests, _disagg(kv_link=KV_LINKS[name],
                                                                  transfer_mode="after-prefill"))
        ttft[name] = sorted(r.first_token_s - r.arrival_s for r in run.trace.requests)
        waits = [t.exposed_s for t in run.transfers]
        bytes_ = [t.num_bytes for t in run.transfers]
        assert min(w - b / KV_LINKS[name].bytes_per_s for w, b in zip(waits, bytes_)) >= KV_LINKS[name].latency_s * 0.999
    assert all(slow > fast for slow, fast in zip(ttft["rdma-100"], ttft["nvlink"]))


@pytest.mark.parametrize("kwargs, fragment", [
    ({"kind": "split"}, "--deployment"), ({"num_prefill_instances": 0}, "--prefill-instances"),
    ({"num_instances": 65}, "--instances"), ({"routing": "random"}, "--routing"),
    ({"transfer_mode": "bulk"}, "--kv-transfer"),
])
def test_bad_specs_are_named(kwargs, fragment):
    with pytest.raises(InputError, match=fragment):
        DeploymentSpec(**kwargs)
    for bad in ("fast", "0", "-3", "nan", "inf", "1e-300", "5e-324", "1e-9", "0.09", "2000.5", "1e5"):
        with pytest.raises(InputError, match="--kv-link"):
            parse_kv_link(bad)


def test_the_link_range_ends_run_and_the_slowest_link_still_ends_in_real_time():
    assert parse_kv_link("2000").bytes_per_s == 2e12
    slowest = _disagg(kv_link=parse_kv_link("0.1"), transfer_mode="after-prefill")
    run = run_deployment(BASE.sim_config(), [Request(0, 0.0, 8000, 4)], slowest)
    (transfer,) = run.transfers  # 8,000 tokens x 128 KiB at 0.1 GB/s: about 10.5 s on the wire, after the setup
    assert transfer.exposed_s == pytest.approx(slowest.kv_link.setup_s + transfer.num_bytes / 1e8, rel=1e-3)
    assert run.trace.requests[0].finish_s is not None


@pytest.mark.parametrize("link", ["nvlink", "pcie", "rdma-100", "rdma-400", "7.5"])
def test_a_disaggregated_transfer_takes_at_least_setup_plus_bytes_over_effective_bandwidth(link):
    """vLLM's connector as shipped (after the prefill, simulator/kv_link.py): each request's kv_transfer_s is at
    least the link's setup latency plus bytes / effective bandwidth, on the CLI's JSON as on the run."""
    spec = _disagg(kv_link=parse_kv_link(link))
    run = run_deployment(BASE.sim_config(), BASE.requests()[:20], spec)
    assert run.spec.transfer_mode == "after-prefill"  # the engine's default (PolicyEntry.kv_transfer_default)
    setup_s, bw = spec.kv_link.setup_s, spec.kv_link.bytes_per_s
    assert setup_s >= 0.058 and bw <= 10e9  # measured connector transfers: 3-10 GB/s, a 58-90 ms floor
    for t in run.transfers:
        assert t.exposed_s >= setup_s + t.num_bytes / bw


def test_kv_setup_ms_sets_the_floor_and_sglang_sends_per_chunk(capsys):
    import json

    from chunkviz.cli.main import main

    base = ["simulate", "--json", "--num-requests", "12", "--deployment", "disagg", "--kv-link", "rdma-400"]
    assert main([*base, "--kv-setup-ms", "90"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deployment"]["kv_link"]["setup_s"] == 0.09 and out["kv_transfer_s"]["p50"] >= 0.09
    assert main([*base, "--policy", "sglang"]) == 0
    assert json.loads(capsys.readouterr().out)["deployment"]["kv_link"]["transfer"] == "per-chunk"
    for bad in ("-1", "nan", "1e9"):
        assert main([*base, "--kv-setup-ms", bad]) == 2
        assert "--kv-setup-ms must be a number of milliseconds from 0 to 10000" in capsys.readouterr().err
    assert main(["simulate", "--num-requests", "4", "--kv-setup-ms", "5"]) == 2
    assert "--kv-setup-ms needs --deployment disagg" in capsys.readouterr().err


def test_vllm_first_token_comes_from_the_decode_sides_first_step():
    """vLLM: the client's token 1 is sampled by the decode side's first step (it recomputes the prompt's last
    token); SGLang's decode side returns the prefill's token when the KV is there."""
    request = [Request(0, 0.0, 2000, 8)]
    link = _disagg(kv_link=KV_LINKS["rdma-400"], transfer_mode="after-prefill")
    for policy, after_ready in (("chunked", True), ("sglang", False)):
        config = BASE.with_policy(policy, 8192).sim_config()
        run = run_deployment(config, request, link)
        (t,), (r,) = run.transfers, run.trace.requests
        assert (r.first_token_s > t.ready_s) is after_ready and r.first_token_s >= t.ready_s
        assert r.num_generated_tokens == 8
