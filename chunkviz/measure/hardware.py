"""The peaks the roofline comparison uses: a catalogue GPU when the device name matches one, else measured ones.

Invariant: the returned GpuSpec's source says which it is; micro-benchmarked peaks are achieved rates (a large
matmul and a large copy), so they sit below datasheet peaks.
"""

from __future__ import annotations

import os

import torch

from chunkviz.cost.catalogue import GPUS
from chunkviz.config import GpuSpec
from chunkviz.measure.timing import time_call

# Substrings of torch.cuda.get_device_name() and the catalogue entry they mean (first match wins).
_NAME_TO_GPU = (("H200", "h200"), ("H100", "h100-sxm"), ("A100", "a100-80gb"), ("L40S", "l40s"))


def device_name(device: str) -> str:
    if device == "cuda":
        return torch.cuda.get_device_name()
    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    return f"CPU {cpu or 'unknown'} ({torch.get_num_threads()} threads)"[:200]


def catalogue_gpu(name: str) -> GpuSpec | None:
    for needle, gpu_id in _NAME_TO_GPU:
        if needle in name:
            return GPUS[gpu_id]
    return None


def probe_hardware(device: str, dtype: torch.dtype, name: str) -> GpuSpec:
    """Datasheet peaks for a known GPU; otherwise the FLOP/s of a square matmul and the bytes/s of a copy."""
    known = catalogue_gpu(name) if device == "cuda" else None
    if known is not None:
        return known
    n, copy_bytes = (8192, 1 << 30) if device == "cuda" else (1024, 1 << 26)
    a = torch.randn(n, n, device=device, dtype=dtype)
    gemm_s, _, _ = time_call(lambda: a @ a, device, 1, 3)
    buf = torch.empty(copy_bytes // a.element_size(), device=device, dtype=dtype)
    dst = torch.empty_like(buf)
    copy_s, _, _ = time_call(lambda: dst.copy_(buf), device, 1, 3)
    if device == "cuda":
        memory = float(torch.cuda.get_device_properties(0).total_memory)
    else:
        memory = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    bandwidth = 2 * copy_bytes / copy_s  # a copy reads and writes every byte
    return GpuSpec(gpu_id=name[:40], peak_flops_per_s=2 * n ** 3 / gemm_s, hbm_bytes_per_s=bandwidth,
                   memory_bytes=memory, interconnect_bytes_per_s=bandwidth,
                   source=f"micro-benchmark on this device: {n}x{n} {str(dtype).removeprefix('torch.')} matmul, "
                          f"{copy_bytes >> 20} MiB copy")
