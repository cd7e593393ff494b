"""The link a prompt's KV cache crosses from a prefill instance to a decode instance, and how long that takes.

Invariant: a transfer's times are a pure function of (link, bytes, layers, pieces, the prefill's start and end, when
the sender's link is free); a transfer never ends before the prefill it carries (`ready_s >= prefill_end_s`), one
sender's transfers never overlap on its link (each waits for the previous one's last byte), and after the prefill
an "after-prefill" transfer takes at least the link's setup latency plus bytes / effective bandwidth.

Links as the connectors ship them, not at the wire's peak: each preset has an EFFECTIVE bandwidth (what measured
connector transfers reach) and a per-transfer SETUP latency (the control plane: the decode side learns the prefill
is done, looks the blocks up, posts the reads; issue 36's audit of measured NIXL/Mooncake transfers puts it at
58-90 ms). The wire-peak presets of the earlier model stay reachable as "<name>-peak" (no setup).

Three ways of sending, named as the engines name them (the engine's own is the default, registry
PolicyEntry.kv_transfer_default):
  - "after-prefill": the decode side pulls the whole cache once the prompt is done (vLLM's NixlConnector: the
    prefill's request_finished hands the blocks over and the decode worker reads them, vllm/distributed/
    kv_transfer/kv_connector/v1/nixl_connector.py; TensorRT-LLM's cache transceiver sends after the context phase;
    DistServe OSDI'24 §4). The setup starts when the prefill ends.
  - "per-chunk": each prefill chunk's KV leaves when that chunk is computed (SGLang's disaggregation prefill
    server sends per chunk, python/sglang/srt/disaggregation/prefill.py send_kv_chunk); the bootstrap handshake runs
    once per request alongside the prefill.
  - "layerwise": each layer's K and V leave as soon as that layer is computed (vLLM KVConnectorBase_V1.save_kv_layer,
    LMCache, Mooncake's layer-wise store, Splitwise ISCA'24 §4.3): opt-in, no engine ships it as its default.
KV bytes: K and V of every layer, 2 · layers · kv_heads · head_dim · dtype bytes per token (ModelSpec.
kv_bytes_per_token). With tensor parallelism each GPU of the group holds kv_heads / tp heads and sends its own
shard over its own link at the same time (DistServe §4.2), so the group moves tp times the bytes per second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from chunkviz.errors import InputError

TRANSFER_MODES: tuple[str, ...] = ("after-prefill", "per-chunk", "layerwise")
# The physical range a link given in GB/s must fall in, so that a transfer's time stays a real time (1e-300 GB/s made
# a 1 GB cache take 1e291 s, and the run ended blaming a request's arrival time). Low: 0.1 GB/s is 0.8 Gb/s, below the
# slowest NIC a KV connector runs over (1 GbE = 0.125 GB/s). High: 2,000 GB/s is above the fastest link shipped
# (NVLink 5 on B200/GB200: 1.8 TB/s bidirectional per GPU, 900 GB/s each way; NVIDIA Blackwell datasheet).
MIN_LINK_GB_PER_S = 0.1
MAX_LINK_GB_PER_S = 2_000.0
# Per-transfer setup (control plane), ms: the low end of the 58-90 ms floor of measured connector transfers (issue
# 36's audit); vllm-project/vllm#34054 logs 129 ms of "post time" per NIXL transfer between two GPUs of one host,
# vllm-project/vllm#23780 ~3 ms just to launch one. --kv-setup-ms sets it; 0 is the wire-peak model's.
DEFAULT_SETUP_MS = 58.0
MAX_SETUP_MS = 10_000.0


@dataclass(frozen=True, slots=True)
class KvLink:
    """One direction of a link: its effective bandwidth (what a connector reaches on it), the wire's latency, the
    connector's per-transfer setup, and where each figure comes from."""

    name: str
    bytes_per_s: float  # effective
    latency_s: float
    source: str
    setup_s: float = DEFAULT_SETUP_MS / 1e3
    peak_bytes_per_s: float | None = None  # the wire's, for reference (None: given as a number)


# Wire latencies: ~1-2 us NVLink 4, ~2-5 us PCIe Gen5, ~1-5 us NDR InfiniBand (the H100 DGX interconnect table of
# fridayswithfaraday.com/posts/gpu-hw-nvlink-nvswitch-interconnect). Peaks: NVLink 4 450 GB/s each way (H100
# datasheet: 900 GB/s bidirectional), PCIe Gen5 x16 ~64 GB/s (PCI-SIG), 100 / 400 Gb/s RDMA NICs 12.5 / 50 GB/s.
_PEAK = {"nvlink": (450e9, 2e-6), "pcie": (64e9, 5e-6), "rdma-100": (12.5e9, 5e-6), "rdma-400": (50e9, 5e-6)}
# Effective bandwidths of connector transfers (GB/s), each from a measurement or named as an assumption:
_EFFECTIVE = {
    # vllm-project/vllm#50913 (3P1D over RDMA, NixlConnector): 167 MB per transfer, aggregate 4,319 MB/s.
    "rdma-400": (4.3, "NIXL over RDMA, measured 4.3 GB/s (vllm-project/vllm#50913: 167 MB per transfer)"),
    # The low end of measured connector transfers (3-10 GB/s, issue 36's audit), below the 12.5 GB/s wire.
    "rdma-100": (3.0, "100 Gb/s NIC, connector at 3 GB/s (low end of measured 3-10 GB/s; wire 12.5 GB/s)"),
    # vllm-project/vllm#34054 (1P1D on one host, NIXL without NVLink): 313 MB per transfer in 173.8 ms; with the
    # 58 ms setup that leaves 313 MB / 115.8 ms = 2.7 GB/s on the wire.
    "pcie": (2.7, "NIXL between GPUs of one host without NVLink: 2.7 GB/s (vllm-project/vllm#34054)"),
    # Assumption: the top of measured connector transfers (10 GB/s); NIXL over NVLink is bound by its per-block
    # descriptors, not the wire (vllm-project/vllm#55434: cuda_ipc slower than RDMA there).
    "nvlink": (10.0, "NVLink with a block-descriptor-bound connector: 10 GB/s (top of measured 3-10 GB/s)"),
}
KV_LINKS: dict[str, KvLink] = {}
for _name, (_peak, _lat) in _PEAK.items():
    _gb, _why = _EFFECTIVE[_name]
    KV_LINKS[_name] = KvLink(_name, _gb * 1e9, _lat, _why, peak_bytes_per_s=_peak)
    KV_LINKS[f"{_name}-peak"] = KvLink(f"{_name}-peak", _peak, _lat, f"{_name} at the wire's peak, no setup (the "
                                       f"best case for disaggregation)", setup_s=0.0, peak_bytes_per_s=_peak)
CUSTOM_LINK_LATENCY_S = 5e-6  # a bandwidth given as a number gets the RDMA presets' latency


def parse_kv_link(text: str, setup_ms: float | None = None) -> KvLink:
    """A preset name, or an effective bandwidth in GB/s (one direction) such as `25`; `setup_ms` (--kv-setup-ms)
    replaces the preset's setup latency (None: the preset's, or DEFAULT_SETUP_MS for a number)."""
    link = KV_LINKS.get(text)
    if link is None:
        try:
            gb_per_s = float(text)
        except ValueError:
            gb_per_s = math.nan
        if not (math.isfinite(gb_per_s) and MIN_LINK_GB_PER_S <= gb_per_s <= MAX_LINK_GB_PER_S):
            raise InputError(f"--kv-link must be one of {', '.join(KV_LINKS)} or a bandwidth from "
                             f"{MIN_LINK_GB_PER_S:g} to {MAX_LINK_GB_PER_S:g} GB/s (1 GbE to above NVLink 5), "
                             f"got {text!r}")
        link = KvLink(f"{gb_per_s:g}GB/s", gb_per_s * 1e9, CUSTOM_LINK_LATENCY_S, "given as a number (GB/s)")
    if setup_ms is None:
        return link
    if isinstance(setup_ms, bool) or not (isinstance(setup_ms, (int, float)) and math.isfinite(setup_ms)
                                          and 0 <= setup_ms <= MAX_SETUP_MS):
        raise InputError(f"--kv-setup-ms must be a number of milliseconds from 0 to {MAX_SETUP_MS:g}, got {setup_ms!r}")
    return replace(link, setup_s=setup_ms / 1e3)


@dataclass(frozen=True, slots=True)
class TransferTimes:
    start_s: float  # first byte on the wire
    wire_end_s: float  # last byte on the wire: the sender's link is free again
    ready_s: float  # the decode instance holds the whole cache (wire end + latency)


def transfer_times(link: KvLink, num_bytes: int, num_layers: int, tensor_parallel: int, mode: str,
                   prefill_start_s: float, prefill_end_s: float, link_free_s: float,
                   num_chunks: int = 1) -> TransferTimes:
    """When one prompt's KV crosses `link` (see the module docstring for the three modes).

    after-prefill: the setup starts at the prefill's end, then the whole cache crosses the wire.
    layerwise / per-chunk: the prefill's span is taken as equal pieces (L layers, or the prompt's `num_chunks`
    prefill chunks); piece k may leave at start + k·span/pieces and not before the setup (started with the prefill)
    is done; the stream ends no earlier than the wire allows from the first piece on, nor than the last piece's
    share after the prefill."""
    wire_s = num_bytes / (link.bytes_per_s * tensor_parallel)
    if mode == "after-prefill":
        start_s = max(prefill_end_s + link.setup_s, link_free_s)
        wire_end_s = start_s + wire_s
    elif mode in ("layerwise", "per-chunk"):
        pieces = num_layers if mode == "layerwise" else max(1, num_chunks)
        span_s = prefill_end_s - prefill_start_s
        start_s = max(prefill_start_s + max(span_s / pieces, link.setup_s), link_free_s)
        wire_end_s = max(start_s + wire_s, prefill_end_s + wire_s / pieces)
    else:
        raise InputError(f"--kv-transfer must be one of {', '.join(TRANSFER_MODES)}, got {mode!r}")
    return TransferTimes(start_s, wire_end_s, wire_end_s + link.latency_s)
