"""The link a prompt's KV cache crosses from a prefill instance to a decode instance, and how long that takes.

Invariant: a transfer's times are a pure function of (link, bytes, layers, the prefill's start and end, when the
sender's link is free); a transfer never ends before the prefill it carries (`ready_s >= prefill_end_s`), and one
sender's transfers never overlap on its link (each waits for the previous one's last byte).

Two ways of sending, named as the engines name them:
  - "layerwise": each layer's K and V leave as soon as that layer is computed, overlapped with the rest of the
    prefill (Splitwise ISCA'24 §4.3 "layer-wise KV-cache transfer ... overlapped with the computation"; vLLM's
    KVConnectorBase_V1.save_kv_layer / wait_for_layer_load; Mooncake's layer-wise store). After the last layer
    only that layer's share is still on the wire.
  - "after-prefill": the whole cache is sent once the prompt is done (DistServe OSDI'24 §4: the decoding instance
    pulls the KV cache after prefill; vLLM's NixlConnector reads the blocks when request_finished hands them over).
KV bytes: K and V of every layer, 2 · layers · kv_heads · head_dim · dtype bytes per token (ModelSpec.
kv_bytes_per_token). With tensor parallelism each GPU of the group holds kv_heads / tp heads and sends its own
shard over its own link at the same time (DistServe §4.2), so the group moves tp times the bytes per second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from chunkviz.errors import InputError

TRANSFER_MODES: tuple[str, ...] = ("layerwise", "after-prefill")
# The physical range a link given in GB/s must fall in, so that a transfer's time stays a real time (1e-300 GB/s made
# a 1 GB cache take 1e291 s, and the run ended blaming a request's arrival time). Low: 0.1 GB/s is 0.8 Gb/s, below the
# slowest NIC a KV connector runs over (1 GbE = 0.125 GB/s). High: 2,000 GB/s is above the fastest link shipped
# (NVLink 5 on B200/GB200: 1.8 TB/s bidirectional per GPU, 900 GB/s each way; NVIDIA Blackwell datasheet).
MIN_LINK_GB_PER_S = 0.1
MAX_LINK_GB_PER_S = 2_000.0


@dataclass(frozen=True, slots=True)
class KvLink:
    """One direction of a link. Bandwidths are the peak figures below, used as the effective rate (best case for
    disaggregation: NCCL/NIXL reach a large fraction of peak on big messages, never more); pass a measured GB/s
    instead of a preset for an effective figure. Latency is the link's own, not the connector's handshake."""

    name: str
    bytes_per_s: float
    latency_s: float
    source: str


# Latencies: ~1-2 us NVLink 4, ~2-5 us PCIe Gen5, ~1-5 us NDR InfiniBand (the H100 DGX interconnect table of
# fridayswithfaraday.com/posts/gpu-hw-nvlink-nvswitch-interconnect); github.com/lukealonso/p2pmark measures 4.1 us
# best-pair P2P latency over PCIe 5.0 x16 and 54.3 GB/s effective of its 63 GB/s peak (86%): effective < peak.
KV_LINKS: dict[str, KvLink] = {
    # NVLink 4 on H100 SXM: 900 GB/s per GPU, both directions together (NVIDIA H100 datasheet) = 450 GB/s each
    # way, as GPUS["h100-sxm"].interconnect_bytes_per_s; ~1-2 us GPU to GPU (NVSwitch hop).
    "nvlink": KvLink("nvlink", 450e9, 2e-6, "NVLink 4: 900 GB/s bidirectional per GPU (H100 datasheet), 450 GB/s "
                     "each way; ~2 us"),
    # PCIe Gen5 x16: 32 GT/s x 16 lanes with 128b/130b coding = 63 GB/s each way (PCI-SIG); ~2-5 us per transfer.
    "pcie": KvLink("pcie", 64e9, 5e-6, "PCIe Gen5 x16: ~64 GB/s each way (PCI-SIG 32 GT/s x16); ~5 us"),
    # 100 Gb/s RDMA (ConnectX-6, HDR100 InfiniBand or RoCE): 100 / 8 = 12.5 GB/s; 1-5 us point to point.
    "rdma-100": KvLink("rdma-100", 12.5e9, 5e-6, "100 Gb/s RDMA NIC: 12.5 GB/s; ~5 us"),
    # 400 Gb/s RDMA (ConnectX-7, NDR InfiniBand): 50 GB/s; the NIC Mooncake and SGLang's PD runs use per GPU.
    "rdma-400": KvLink("rdma-400", 50e9, 5e-6, "400 Gb/s RDMA NIC (NDR, ConnectX-7): 50 GB/s; ~5 us"),
}
CUSTOM_LINK_LATENCY_S = 5e-6  # a bandwidth given as a number gets the RDMA presets' latency


def parse_kv_link(text: str) -> KvLink:
    """A preset name, or a bandwidth in GB/s (one direction) such as `25`."""
    if text in KV_LINKS:
        return KV_LINKS[text]
    try:
        gb_per_s = float(text)
    except ValueError:
        gb_per_s = math.nan
    if not (math.isfinite(gb_per_s) and MIN_LINK_GB_PER_S <= gb_per_s <= MAX_LINK_GB_PER_S):
        raise InputError(f"--kv-link must be one of {', '.join(KV_LINKS)} or a bandwidth from {MIN_LINK_GB_PER_S:g} "
                         f"to {MAX_LINK_GB_PER_S:g} GB/s (1 GbE to above NVLink 5), got {text!r}")
    return KvLink(f"{gb_per_s:g}GB/s", gb_per_s * 1e9, CUSTOM_LINK_LATENCY_S, "given as a number (GB/s)")


@dataclass(frozen=True, slots=True)
class TransferTimes:
    start_s: float  # first byte on the wire
    wire_end_s: float  # last byte on the wire: the sender's link is free again
    ready_s: float  # the decode instance holds the whole cache (wire end + latency)


def transfer_times(link: KvLink, num_bytes: int, num_layers: int, tensor_parallel: int, mode: str,
                   prefill_start_s: float, prefill_end_s: float, link_free_s: float) -> TransferTimes:
    """When one prompt's KV crosses `link` (see the module docstring for the two modes).

    layerwise: the prefill's span is taken as L equal layer slices (chunked prefills too: every chunk runs all
    layers, so KV for the first layers exists early); layer l may leave at start + l·span/L, and the stream ends
    no earlier than the wire allows from the first layer on, nor than the last layer's share after the prefill."""
    wire_s = num_bytes / (link.bytes_per_s * tensor_parallel)
    if mode == "after-prefill":
        start_s = max(prefill_end_s, link_free_s)
        wire_end_s = start_s + wire_s
    elif mode == "layerwise":
        span_s = prefill_end_s - prefill_start_s
        start_s = max(prefill_start_s + span_s / num_layers, link_free_s)
        wire_end_s = max(start_s + wire_s, prefill_end_s + wire_s / num_layers)
    else:
        raise InputError(f"--kv-transfer must be one of {', '.join(TRANSFER_MODES)}, got {mode!r}")
    return TransferTimes(start_s, wire_end_s, wire_end_s + link.latency_s)
