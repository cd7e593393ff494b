"""Step pricing as the engines run a step (cost/step_pricing.py, simulator/policies/pricing.py): a decode-only step
replayed as a CUDA graph is cheaper than the eager one by exactly the modelled launch time, a batch between captured
sizes pays for its padding (or runs eager where the engine does not pad), overlap hides the CPU work (not the
launches) up to the GPU time, each engine's switch turns its behaviour off, and the fast path prices the same way."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from chunkviz.cli.main import main
from chunkviz.config import CostConfig
from chunkviz.cost.catalogue import get_gpu, get_model
from chunkviz.cost.roofline import StepCoster, shape_of
from chunkviz.cost import host_time as hc
from chunkviz.cost.step_pricing import (ATTENTION_KERNELS_PER_LAYER, DENSE_KERNELS_PER_LAYER, EAGER,
                                        GRAPH_LAUNCH_S, KERNEL_LAUNCH_S, KERNELS_PER_STEP, StepPricing, step_mode)
from chunkviz.errors import InputError
from chunkviz.simulator.engine import resolve_knobs
from chunkviz.simulator.policies import pricing as pr
from chunkviz.simulator.policies.registry import POLICY_NAMES, REGISTRY
from tests.helpers import make_config

MODEL, GPU = get_model("llama-3-8b"), get_gpu("h100-sxm")
VLLM_SIZES = pr.vllm_v1_graphs(pr.GraphQuery(GPU.memory_bytes, 1, 256, None))
FULL_NO_OVERLAP = StepPricing(decode_sizes=VLLM_SIZES.decode_sizes, piecewise_sizes=VLLM_SIZES.piecewise_sizes)


def _decode(n: int, context: int = 1000):
    return shape_of((), (context,) * n)


def test_a_graph_replay_saves_exactly_the_modelled_launch_time_on_a_decode_step():
    eager, graphs = StepCoster(MODEL, GPU), StepCoster(MODEL, GPU, pricing=FULL_NO_OVERLAP)
    a, b = eager(_decode(8)), graphs(_decode(8))  # 8 is a captured size: no padding
    kernels = MODEL.num_layers * (DENSE_KERNELS_PER_LAYER + ATTENTION_KERNELS_PER_LAYER) + KERNELS_PER_STEP
    saved_s = kernels * KERNEL_LAUNCH_S - GRAPH_LAUNCH_S  # 358 launches of ~9.25 µs become one graph launch
    assert (a.dense_s, a.attention_s, a.lm_head_s) == (b.dense_s, b.attention_s, b.lm_head_s)
    work_s = hc.VLLM_V0.sched_s(8) + hc.VLLM_V0.prep_s(8, 8)  # the default pricing's CPU work: the same in both
    assert a.overhead_s == pytest.approx(work_s + kernels * KERNEL_LAUNCH_S)
    assert a.total_s - b.total_s == pytest.approx(saved_s, rel=1e-9)
    assert saved_s == pytest.approx(3.3e-3)  # the measured eager penalty of an 8B decode step


def test_a_mixed_step_is_piecewise_keeping_the_attention_launches():
    graphs = StepCoster(MODEL, GPU, pricing=FULL_NO_OVERLAP)
    mixed = shape_of(((56, 0),), (1000,) * 8)  # 64 tokens: a captured size
    assert step_mode(FULL_NO_OVERLAP, mixed.num_tokens, mixed.num_seqs) == ("piecewise", 64)
    launches = hc.launch_times_s(MODEL.num_layers)
    attention_s = MODEL.num_layers * ATTENTION_KERNELS_PER_LAYER * KERNEL_LAUNCH_S
    pieces_s = (MODEL.num_layers + 1) * GRAPH_LAUNCH_S
    work_s = hc.VLLM_V0.sched_s(9) + hc.VLLM_V0.prep_s(64, 9)
    assert graphs(mixed).overhead_s == pytest.approx(work_s + attention_s + pieces_s)
    assert launches["full"] < launches["piecewise"] < launches["eager"]


def test_a_decode_batch_between_captured_sizes_pays_for_its_padding():
    eager, graphs = StepCoster(MODEL, GPU), StepCoster(MODEL, GPU, pricing=FULL_NO_OVERLAP)
    assert step_mode(FULL_NO_OVERLAP, 9, 9) == ("full", 16)
    assert graphs(_decode(9)).dense_s == eager(_decode(16)).dense_s > eager(_decode(9)).dense_s
    assert graphs(_decode(9)).flops == eager(_decode(9)).flops  # padded rows are no useful work


def test_beyond_the_largest_captured_size_a_step_runs_eager():
    largest = FULL_NO_OVERLAP.decode_sizes[-1]
    assert largest == 512  # min(2 · max_num_seqs, 512) with max_num_seqs 256
    assert step_mode(FULL_NO_OVERLAP, largest + 1, largest + 1) == ("eager", largest + 1)
    assert step_mode(FULL_NO_OVERLAP, 8192, 4) == ("eager", 8192)  # a big mixed step: no piecewise graph either


def test_tensorrt_llm_does_not_pad_so_an_uncaptured_batch_runs_eager():
    g = pr.trtllm_graphs(pr.GraphQuery(GPU.memory_bytes, 1, 2048, None))
    assert g.decode_sizes == tuple(range(1, 33)) + (64, 128) and not g.pads_decode
    trt = StepPricing(decode_sizes=g.decode_sizes, pads_decode=False)
    assert step_mode(trt, 32, 32) == ("full", 32)
    assert step_mode(trt, 33, 33) == ("eager", 33)


def test_sglang_captures_up_to_its_memory_tier_and_pads():
    g = pr.sglang_graphs(pr.GraphQuery(GPU.memory_bytes, 1, 4096, None))
    assert g.decode_sizes[:6] == (1, 2, 4, 8, 12, 16) and g.decode_sizes[-1] == 256 and g.pads_decode
    assert g.piecewise_sizes == ()  # no chunked_prefill_size given: extend batches eager
    assert pr.sglang_graphs(pr.GraphQuery(GPU.memory_bytes, 4, 4096, None)).decode_sizes[-1] == 512
    assert pr.sglang_graphs(pr.GraphQuery(GPU.memory_bytes, 1, 4096, 64)).decode_sizes[-1] == 64


def test_sglang_runs_extend_batches_as_piecewise_graphs_up_to_chunked_prefill_size():
    # SGLang >= 0.5.10 (PR #16331): disable_piecewise_cuda_graph=False, piecewise_cuda_graph_max_tokens =
    # chunked_prefill_size, sizes from server_args.py _generate_piecewise_cuda_graph_tokens
    g = pr.sglang_graphs(pr.GraphQuery(GPU.memory_bytes, 1, 256, None, 8192))
    assert g.piecewise_sizes[:9] == (4, 8, 12, 16, 20, 24, 28, 32, 48)
    assert {320, 1024, 1280, 4096, 4608, 8192} <= set(g.piecewise_sizes) and not {300, 1088} & set(g.piecewise_sizes)
    assert g.piecewise_sizes[-1] == 8192 and not g.piecewise_decodes
    assert g.decode_sizes[-1] == 256 and 264 not in pr.sglang_graphs(
        pr.GraphQuery(GPU.memory_bytes, 1, 256, 512, 8192)).decode_sizes  # 16-apart above 256: 272, 288, ...
    knobs = resolve_knobs(make_config("sglang", budget=2048), 1000)
    sg = knobs.step_pricing
    assert sg.piecewise_sizes[-1] == 2048  # chunked_prefill_size, the resolved budget
    assert step_mode(sg, 300, 2) == ("piecewise", 320)  # an extend batch, padded to the next captured size
    assert step_mode(sg, 2049, 3) == ("eager", 2049)  # beyond the largest: eager
    assert step_mode(sg, 8, 8) == ("full", 8)  # decodes keep their FULL graphs
    assert step_mode(sg, 300, 300) == ("eager", 300)  # a decode batch past cuda_graph_max_bs: the piecewise runner
    vllm_like = StepPricing(decode_sizes=(8,), piecewise_sizes=(8, 512))  # ... takes extend only; vLLM's takes all
    assert step_mode(vllm_like, 300, 300) == ("piecewise", 512)
    assert step_mode(replace(vllm_like, piecewise_decodes=False), 300, 300) == ("eager", 300)
    exposed = replace(sg, overlap=False)  # overlap would hide the host time of a step this long
    prefill = StepCoster(MODEL, GPU, pricing=exposed)(shape_of(((300, 0),)))
    eager = StepCoster(MODEL, GPU, pricing=replace(exposed, piecewise_sizes=()))(shape_of(((300, 0),)))
    assert prefill.overhead_s < eager.overhead_s  # the launches a piecewise graph saves
    assert prefill.dense_s > eager.dense_s  # ... while the dense kernels run the padded 320 tokens


def test_overlap_hides_the_cpu_work_up_to_the_gpu_time_but_not_the_launches():
    overlap = StepPricing(overlap=True)
    short = StepCoster(MODEL, GPU, pricing=overlap)(_decode(8))
    eager_launch_s = hc.launch_times_s(MODEL.num_layers)["eager"]
    assert short.overhead_s == pytest.approx(eager_launch_s)  # ~0.6 ms of CPU work under a longer GPU step
    assert short.total_s == pytest.approx(short.dense_s + short.attention_s + short.lm_head_s + eager_launch_s)
    slow_host = CostConfig(step_overhead_s=0.5)  # a flat 0.5 s of CPU work: only the excess over the GPU's shows
    cost = StepCoster(MODEL, GPU, slow_host, pricing=overlap)(_decode(8))
    gpu_s = cost.dense_s + cost.attention_s + cost.lm_head_s
    assert cost.overhead_s == pytest.approx(0.5 - gpu_s)
    assert cost.total_s == pytest.approx(0.5)
    no_overlap = StepCoster(MODEL, GPU, slow_host)(_decode(8))
    assert no_overlap.total_s == pytest.approx(0.5 + gpu_s)


def _pricing(policy: str, **cost) -> StepPricing:
    config = replace(make_config(policy, budget=None), cost=CostConfig(**cost))
    return resolve_knobs(config, 10_000).step_pricing


@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_enforce_eager_without_overlap_runs_eagerly_with_the_engines_own_cpu_costs(policy):
    pricing = _pricing(policy, enforce_eager=True, overlap_scheduling=False)
    assert pricing == replace(EAGER, host=REGISTRY[policy].host_costs)


def test_each_engine_runs_as_shipped():
    for policy in ("chunked", "vllm-nochunk", "sglang", "trtllm"):
        p = _pricing(policy)
        assert p.overlap and p.decode_sizes, policy
    assert _pricing("chunked").piecewise_sizes and _pricing("sglang").piecewise_sizes  # SGLang >= 0.5.10: extend
    v0 = _pricing("monolithic")  # vLLM V0: decode graphs up to 256, no async scheduling
    assert not v0.overlap and v0.decode_sizes[-1] == 256 and not v0.piecewise_sizes
    for policy in ("sarathi", "static", "orca"):  # the research systems: eager, no overlap, vLLM V0's CPU costs
        assert _pricing(policy) == EAGER
        assert not REGISTRY[policy].overlap_scheduling and REGISTRY[policy].cuda_graphs is None


def test_each_switch_turns_off_one_thing():
    assert not _pricing("chunked", overlap_scheduling=False).overlap
    assert _pricing("chunked", overlap_scheduling=False).decode_sizes
    assert _pricing("sglang", enforce_eager=True) == StepPricing(overlap=True, rule="eager, overlap scheduling",
                                                                 host=hc.SGLANG)
    assert _pricing("chunked", cuda_graph_max_bs=8).decode_sizes == (1, 2, 4, 8)


@pytest.mark.parametrize(("policy", "cost", "message"), [
    ("monolithic", {"overlap_scheduling": True}, "has no overlap scheduler"),
    ("orca", {"cuda_graph_max_bs": 8}, "runs every step eagerly"),
])
def test_a_switch_the_engine_lacks_is_refused(policy, cost, message):
    with pytest.raises(InputError, match=message):
        _pricing(policy, **cost)


def test_cli_flags_use_the_engines_names(capsys):
    def run(*flags: str) -> dict:
        assert main(["simulate", "--json", "--num-requests", "20", "--qps", "8", *flags]) == 0
        return json.loads(capsys.readouterr().out)
    default, eager = run(), run("--enforce-eager", "--no-async-scheduling")
    assert run("--disable-cuda-graph", "--disable-overlap-schedule") == eager
    assert default["makespan_s"] < eager["makespan_s"]
    assert main(["simulate", "--policy", "static", "--async-scheduling"]) == 2
    assert "static batching has no overlap scheduler" in capsys.readouterr().err


@pytest.mark.parametrize("flags", [[], ["--no-async-scheduling"], ["--cuda-graph-max-bs", "12"],
                                   ["--enforce-eager"]])
@pytest.mark.parametrize("policy", [p for p in POLICY_NAMES if REGISTRY[p].fast_path and REGISTRY[p].cuda_graphs])
def test_fast_path_prices_steps_as_the_exact_path(capsys, policy, flags):
    """Decode batches cross captured sizes (padding) and the largest one (eager) inside fast stretches."""
    argv = ["simulate", "--json", "--policy", policy, "--workload", "synthetic", "--prompt-tokens", "512",
            "--num-requests", "60", "--qps", "30", "--output-tokens", "96",
            "--no-enable-prefix-caching", *flags]  # the fast path's cover: caching off (pricing is what is checked)
    assert main(argv) == 0
    fast = json.loads(capsys.readouterr().out)
    assert main([*argv, "--no-fast-forward"]) == 0
    exact = json.loads(capsys.readouterr().out)
    assert fast.pop("fast_forwarded_steps") > 0 and exact.pop("fast_forwarded_steps") == 0
    assert fast == exact
