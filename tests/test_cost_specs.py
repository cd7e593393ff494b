"""`cost --model-spec / --gpu-spec`, and the MLP kind read from a Hugging Face config (gated or not, norms)."""

from __future__ import annotations

import json

import pytest

from chunkviz.cli.main import main
from chunkviz.config import ModelSpec
from chunkviz.cost.catalogue import get_gpu, get_model, model_from_hf_config
from chunkviz.cost.fitted import A100_DENSE
from chunkviz.cost.kernels import dense_layer_s
from chunkviz.cost.public_points import PROFILED_BY_ID, PROFILED_MODELS, load_public_points

# microsoft/phi-2 config.json (the keys that matter): fc1/gelu/fc2 MLP, one LayerNorm, null KV heads.
PHI2 = {"model_type": "phi", "hidden_act": "gelu_new", "num_hidden_layers": 32, "hidden_size": 2560,
        "num_attention_heads": 32, "num_key_value_heads": None, "intermediate_size": 10240, "vocab_size": 51200,
        "max_position_embeddings": 2048, "torch_dtype": "float16", "partial_rotary_factor": 0.4}
# meta-llama/Meta-Llama-3-8B config.json (the keys that matter).
LLAMA3 = {"model_type": "llama", "hidden_act": "silu", "num_hidden_layers": 32, "hidden_size": 4096,
          "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
          "max_position_embeddings": 8192, "torch_dtype": "bfloat16"}


def _cost_json(capsys, argv):
    assert main(["cost", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("config", "gated", "norms"), [
    (LLAMA3, True, 2),
    (PHI2, False, 1),
    ({**LLAMA3, "model_type": "gpt2", "hidden_act": "gelu"}, False, 2),
    ({**LLAMA3, "model_type": "mystery", "hidden_act": "gelu"}, False, 2),  # unknown type: gelu means plain MLP
    ({**LLAMA3, "model_type": "gemma", "hidden_act": "gelu_pytorch_tanh"}, True, 2),  # GeGLU is gated
    ({k: v for k, v in LLAMA3.items() if k not in ("model_type", "hidden_act")}, True, 2),  # Llama by default
])
def test_mlp_kind_from_hugging_face_keys(config, gated, norms):
    model = model_from_hf_config(json.dumps(config))
    assert (model.is_gated_mlp, model.num_norms_per_layer) == (gated, norms)


def test_phi2_config_matches_the_profiled_shape():
    model = model_from_hf_config(json.dumps(PHI2))
    profiled = PROFILED_BY_ID["phi-2"]
    for key in ("num_layers", "hidden_size", "num_heads", "num_kv_heads", "intermediate_size", "is_gated_mlp",
                "num_norms_per_layer"):
        assert getattr(model, key) == getattr(profiled, key), key
    # Two MLP matrices instead of three, one norm: 4·h² (q, k, v, o with 32 KV heads) + 2·h·inter + h.
    assert model.params_per_layer == 4 * 2560**2 + 2 * 2560 * 10240 + 2560


def test_ungated_mlp_is_cheaper_than_gated():
    gated = get_model("llama-3-8b")
    plain = ModelSpec(**{**{k: getattr(gated, k) for k in gated.__slots__}, "is_gated_mlp": False})
    a100 = get_gpu("a100-80gb")
    for tokens in (1, 512, 4096):
        assert dense_layer_s(tokens, plain, a100, 1, A100_DENSE) < dense_layer_s(tokens, gated, a100, 1, A100_DENSE)
    assert plain.num_dense_params < gated.num_dense_params


def test_profiled_models_cover_the_file():
    ids = {p.model_id for p in load_public_points()}
    assert ids == {m.model_id for m in PROFILED_MODELS}
    assert sum(not m.is_gated_mlp for m in PROFILED_MODELS) == 1  # phi-2


def test_cost_cli_with_model_and_gpu_files(capsys, tmp_path):
    model_path, gpu_path = tmp_path / "config.json", tmp_path / "gpu.json"
    model_path.write_text(json.dumps(PHI2))
    gpu_path.write_text(json.dumps({"name": "a100-like", "peak_tflops": 312, "hbm_tb_per_s": 2.039,
                                    "memory_gb": 80}))
    out = _cost_json(capsys, ["--model-spec", str(model_path), "--gpu-spec", str(gpu_path),
                              "--prefill-tokens", "1024"])
    assert out["gpu"] == "a100-like" and out["gated_mlp"] is False
    assert out["dense_per_layer_s"] == pytest.approx(out["dense_s"] / 32)
    # Same peaks as the catalogue's A100, so the same dense time as the profiled phi-2 on it.
    expected = dense_layer_s(1024, PROFILED_BY_ID["phi-2"], get_gpu("a100-80gb"), 1, A100_DENSE)
    assert out["dense_per_layer_s"] == pytest.approx(expected, rel=1e-12)


def test_cost_cli_model_spec_agrees_with_catalogue(capsys, tmp_path):
    model_path = tmp_path / "config.json"
    model_path.write_text(json.dumps(LLAMA3))
    argv = ["--gpu", "h100-sxm", "--prefill-tokens", "700", "--tensor-parallel", "2"]
    from_file = _cost_json(capsys, ["--model-spec", str(model_path), *argv])
    from_catalogue = _cost_json(capsys, ["--model", "llama-3-8b", *argv])
    assert from_file["total_s"] == pytest.approx(from_catalogue["total_s"], rel=1e-12)


@pytest.mark.parametrize(("flag", "content", "needle"), [
    ("--model-spec", "{not json", "not valid JSON"),
    ("--model-spec", json.dumps({**LLAMA3, "hidden_size": -1}), "hidden_size"),
    ("--gpu-spec", json.dumps({"peak_tflops": 1}), "hbm_tb_per_s"),
])
def test_cost_cli_bad_spec_is_one_line(capsys, tmp_path, flag, content, needle):
    path = tmp_path / "spec.json"
    path.write_text(content)
    assert main(["cost", flag, str(path), "--prefill-tokens", "10"]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_cost_cli_missing_spec_file(capsys, tmp_path):
    assert main(["cost", "--model-spec", str(tmp_path / "nope.json"), "--prefill-tokens", "10"]) == 2
    assert "nope.json" in capsys.readouterr().err
