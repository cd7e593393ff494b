#!/usr/bin/env bash
# One-shot GPU measurement, prepared for a session that has a CUDA machine (CI never runs it; it needs no network).
# It measures Llama-3-8B shapes (all 32 layers, bf16) with the quick plan, then the full plan, prints measured vs
# roofline for every point, and runs the simulator on the measured costs beside the roofline.
#
# Usage: bash bench/measure_gpu.sh [OUT_DIR]
# OUT_DIR defaults to $OUT when set (as on the device machine), else a fresh temporary folder (mktemp -d).
# Python: the project's .venv when its torch sees a GPU, else the machine's python3 (the GPU image ships torch,
# numpy and pandas, which is all `chunkviz measure` and `chunkviz simulate` need). Expected time on an H100/H200:
# under a minute for the quick plan, a few minutes for the full one; both stay far inside 10 minutes. It writes
# exactly 8 files (two profiles, two tables, four simulator summaries): the most a device run brings back.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-${OUT:-$(mktemp -d -t chunkviz-measure.XXXXXX)}}"
mkdir -p "$out"
echo "measure_gpu.sh: writing to $out"
export PYTHONUNBUFFERED=1

py=python3
if [ -x .venv/bin/python ] && .venv/bin/python -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' \
    2>/dev/null; then
  py=.venv/bin/python
fi
"$py" - <<'EOF'
import sys

import torch

if not torch.cuda.is_available():
    sys.exit("measure_gpu.sh: torch sees no CUDA device here")
print(f"python {sys.version.split()[0]}, torch {torch.__version__}, {torch.cuda.get_device_name()}")
EOF
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv 2>/dev/null || true

echo "== 1/3 quick plan: Llama-3-8B, 32 layers, bf16"
"$py" -m chunkviz measure --device cuda --model llama-3-8b --quick --out "$out/llama-3-8b-quick.json" \
  | tee "$out/quick.txt"

echo "== 2/3 full plan: Llama-3-8B, 32 layers, bf16"
"$py" -m chunkviz measure --device cuda --model llama-3-8b --out "$out/llama-3-8b-full.json" | tee "$out/full.txt"

# The catalogue GPU the profile was matched to (hardware.gpu_id), so the roofline run prices the same chip.
gpu=$("$py" -c 'import json, sys; from chunkviz.cost.catalogue import GPUS
g = json.load(open(sys.argv[1]))["hardware"]["gpu_id"]
print(g if g in GPUS else "h100-sxm")' "$out/llama-3-8b-full.json")

echo "== 3/3 simulator: roofline vs measured costs ($gpu), long prompts among chats, 64 requests at 16/s"
common=(simulate --json --gpu "$gpu" --workload long-among-chats --num-requests 64 --qps 16 --prompt-tokens 300
        --output-tokens 128 --slo-ttft-ms 500 --slo-tbt-ms 100)
for policy in monolithic chunked; do
  budget=()
  [ "$policy" = chunked ] && budget=(--max-num-batched-tokens 512)
  "$py" -m chunkviz "${common[@]}" --policy "$policy" "${budget[@]}" > "$out/sim-$policy-roofline.json"
  "$py" -m chunkviz "${common[@]}" --policy "$policy" "${budget[@]}" --profile "$out/llama-3-8b-full.json" \
    > "$out/sim-$policy-measured.json"
done
"$py" - "$out" <<'EOF'
import json
import sys

out = sys.argv[1]
print(f"{'engine':11} {'costs':9} {'TTFT p50':>10} {'TBT p50':>9} {'TBT p99':>9} {'tok/s':>7}  (ms)")
for policy in ("monolithic", "chunked"):
    for costs in ("roofline", "measured"):
        m = json.load(open(f"{out}/sim-{policy}-{costs}.json"))
        print(f"{policy:11} {costs:9} {m['ttft_s']['p50'] * 1e3:10.1f} {m['tbt_s']['p50'] * 1e3:9.1f} "
              f"{m['tbt_s']['p99'] * 1e3:9.1f} {m['throughput_output_tokens_per_s']:7.0f}")
EOF
echo "profiles and tables written to $out"
