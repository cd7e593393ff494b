"""Host time per step (cost/host_time.py, cost/step_pricing.py) through `python -m chunkviz cost --policy P --json`:
scheduling grows with the requests held, input preparation with tokens and sequences, launches with depth and graph
mode; overlap hides the CPU work but not an eager step's launches; nothing is ever zero; the anchors reproduce the
measurements they were taken from."""

from __future__ import annotations

import json

import pytest

from chunkviz.cli.main import main
from chunkviz.cost import host_time as hc
from chunkviz.cost.catalogue import get_gpu, get_model
from chunkviz.config import CostConfig
from chunkviz.cost.roofline import StepCoster, shape_of
from chunkviz.simulator.policies.registry import POLICY_NAMES, REGISTRY

# Meta-Llama-3-70B's config.json (the fields chunkviz reads): 80 layers, the 70B class.
LLAMA_70B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
             "intermediate_size": 28672, "num_attention_heads": 64, "num_hidden_layers": 80,
             "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
             "torch_dtype": "bfloat16"}
HOST_KEYS = ("host_sched_s", "host_prep_s", "launch_s", "exposed_host_s")


@pytest.fixture(scope="module")
def model_flags(tmp_path_factory) -> dict[str, list[str]]:
    path = tmp_path_factory.mktemp("spec") / "config.json"
    path.write_text(json.dumps(LLAMA_70B))
    return {"llama-3-8b": ["--model", "llama-3-8b"], "llama-3-70b": ["--model-spec", str(path)]}


def _cost(capsys, *flags: str) -> dict:
    assert main(["cost", "--json", "--gpu", "h100-sxm", "--decode-context", "1000", *flags]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("model", ["llama-3-8b", "llama-3-70b"])
@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_host_time_is_positive_and_grows_with_the_decode_batch(capsys, model_flags, model, policy):
    work = []
    for batch in (1, 8, 64, 256):
        out = _cost(capsys, *model_flags[model], "--policy", policy, "--decode-batch", str(batch))
        assert all(out[key] > 0 for key in HOST_KEYS), (batch, {k: out[k] for k in HOST_KEYS})
        assert out["exposed_host_s"] == out["overhead_s"]
        work.append(out["host_sched_s"] + out["host_prep_s"])
    assert work == sorted(work) and work[0] < work[-1], work


@pytest.mark.parametrize("model", ["llama-3-8b", "llama-3-70b"])
@pytest.mark.parametrize("policy", [p for p in POLICY_NAMES if REGISTRY[p].overlap_scheduling])
def test_eager_and_full_graphs_differ_for_an_overlapped_engine_at_a_small_batch(capsys, model_flags, model, policy):
    graphs = _cost(capsys, *model_flags[model], "--policy", policy, "--decode-batch", "4")
    eager = _cost(capsys, *model_flags[model], "--policy", policy, "--decode-batch", "4", "--enforce-eager")
    assert graphs["graph_mode"] == "full" and eager["graph_mode"] == "eager"
    assert graphs["host_sched_s"] == eager["host_sched_s"] and graphs["host_prep_s"] == eager["host_prep_s"]
    # Overlap hides the scheduling and preparation in both, not the eager step's 11 launches per layer.
    layers = 32 if model == "llama-3-8b" else 80
    launches_s = (layers * 11 + 6) * hc.KERNEL_LAUNCH_S
    assert eager["exposed_host_s"] == pytest.approx(launches_s)
    assert graphs["exposed_host_s"] == pytest.approx(hc.GRAPH_LAUNCH_S)
    assert eager["total_s"] - graphs["total_s"] == pytest.approx(launches_s - hc.GRAPH_LAUNCH_S)


def test_the_eager_penalty_of_an_8b_decode_step_is_the_measured_one(capsys):
    graphs = _cost(capsys, "--policy", "chunked", "--decode-batch", "1", "--no-async-scheduling")
    eager = _cost(capsys, "--policy", "chunked", "--decode-batch", "1", "--no-async-scheduling", "--enforce-eager")
    assert eager["total_s"] - graphs["total_s"] == pytest.approx(3.3e-3)  # 8.4 ms eager vs 5.1 ms graphed


def test_scheduling_grows_with_the_waiting_requests_and_preparation_with_tokens(capsys):
    idle = _cost(capsys, "--policy", "chunked", "--decode-batch", "8")
    queued = _cost(capsys, "--policy", "chunked", "--decode-batch", "8", "--num-waiting", "100")
    assert queued["num_active"] == 108
    assert queued["host_sched_s"] - idle["host_sched_s"] == pytest.approx(100 * hc.VLLM_V1.sched_per_request_s)
    assert queued["host_prep_s"] == idle["host_prep_s"]
    chunk = _cost(capsys, "--policy", "chunked", "--decode-batch", "8", "--prefill-tokens", "2048")
    assert chunk["host_prep_s"] - idle["host_prep_s"] == pytest.approx(
        hc.VLLM_V1.prep_per_seq_s + 2048 * hc.VLLM_V1.prep_per_token_s)


@pytest.mark.parametrize("layers", [1, 2, 16, 32, 37, 80, 126, 200])
def test_host_time_is_never_zero_for_any_depth(layers):
    launches = hc.launch_times_s(layers)
    assert 0 < launches["full"] < launches["piecewise"] < launches["eager"]
    for host in (hc.VLLM_V0, hc.VLLM_V1, hc.SGLANG, hc.TRTLLM):
        assert host.sched_s(1) > 0 and host.prep_s(1, 1) > 0


def test_the_v0_anchor_reproduces_the_blogs_share():
    """vLLM's 2024 blog: scheduling + input preparation 29% and the GPU 38% of the execution time of Llama-3-8B on
    one H100; at the anchor's operating point (256 decodes, mean context 315) the CPU work is 29/38 of GPU time."""
    coster = StepCoster(get_model("llama-3-8b"), get_gpu("h100-sxm"), CostConfig(step_overhead_s=0.0))
    gpu_s = coster(shape_of((), (315,) * 256)).total_s
    work_s = hc.VLLM_V0.sched_s(256) + hc.VLLM_V0.prep_s(256, 256)
    assert work_s / gpu_s == pytest.approx(29 / 38, rel=0.02)


def test_tensorrt_llms_scheduling_is_its_design_docs_figure_at_256_requests():
    assert hc.TRTLLM.sched_s(256) == pytest.approx(2.89e-3)


def test_vllm_v0_decodes_slower_than_v1_on_the_default_scenario(capsys):
    def tbt_p50(policy: str) -> float:
        assert main(["simulate", "--json", "--policy", policy]) == 0
        return json.loads(capsys.readouterr().out)["tbt_s"]["p50"]
    assert tbt_p50("monolithic") > 1.1 * tbt_p50("chunked")  # no overlap and V0's heavier host work


@pytest.mark.parametrize(("flags", "message"), [
    (["--num-waiting", "-1"], "--num-waiting must be between 0 and"),
    (["--enforce-eager"], "need --policy"),
    (["--step-overhead-ms", "5000"], "--step-overhead-ms must be between 0 and 1000"),
])
def test_bad_cost_flags_are_refused_in_one_line(capsys, flags, message):
    assert main(["cost", "--decode-batch", "4", *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
