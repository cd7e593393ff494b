"""The deployment flags `simulate`, `sweep` and `capacity` share (simulator/deployment.py says what they model).

Invariant: without --deployment the flags build nothing, so a run without it is exactly the single-engine run.
"""

from __future__ import annotations

import argparse

from chunkviz.errors import InputError
from chunkviz.simulator.deployment import DEPLOYMENTS, DeploymentSpec
from chunkviz.simulator.kv_link import DEFAULT_SETUP_MS, KV_LINKS, TRANSFER_MODES, parse_kv_link
from chunkviz.simulator.routing import ROUTING_RULES


def add_deployment_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--deployment", choices=DEPLOYMENTS, default=None,
                   help="several instances: colocated (--instances N) or disagg (prefill and decode instances)")
    p.add_argument("--instances", type=int, default=1, help="colocated: engine instances (GPUs or TP groups)")
    p.add_argument("--prefill-instances", type=int, default=1, help="disagg: prefill instances")
    p.add_argument("--decode-instances", type=int, default=1, help="disagg: decode instances")
    p.add_argument("--kv-link", default="nvlink",
                   help=f"disagg: {', '.join(KV_LINKS)} (effective connector bandwidths; -peak: the wire's), or an "
                        f"effective bandwidth in GB/s")
    p.add_argument("--kv-setup-ms", type=float, default=None,
                   help=f"disagg: per-transfer setup latency of the connector, ms (default: the link's, "
                        f"{DEFAULT_SETUP_MS:g} ms; 0 for the -peak links)")
    p.add_argument("--kv-transfer", choices=TRANSFER_MODES, default=None,
                   help="disagg: after-prefill, per-chunk or layerwise (default: the engine's connector: vLLM and "
                        "TensorRT-LLM after the prefill, SGLang per chunk)")
    p.add_argument("--routing", choices=ROUTING_RULES, default="round-robin")


def deployment_from_args(args: argparse.Namespace) -> DeploymentSpec | None:
    """None unless --deployment is given (then a default run stays exactly what it was)."""
    kind = getattr(args, "deployment", None)
    _check_flags_fit(kind, args)
    if kind is None:
        return None
    return DeploymentSpec(kind=args.deployment, num_instances=args.instances,
                          num_prefill_instances=args.prefill_instances, num_decode_instances=args.decode_instances,
                          kv_link=parse_kv_link(args.kv_link, args.kv_setup_ms), transfer_mode=args.kv_transfer,
                          routing=args.routing)


# Flags that mean something only for one kind, with their defaults: given for another kind they would be ignored.
_ONLY_FOR = {"instances": ("colocated", 1), "prefill_instances": ("disagg", 1), "decode_instances": ("disagg", 1),
             "kv_link": ("disagg", "nvlink"), "kv_transfer": ("disagg", None), "kv_setup_ms": ("disagg", None)}


def _check_flags_fit(kind: str | None, args: argparse.Namespace) -> None:
    for name, (needs, default) in _ONLY_FOR.items():
        if getattr(args, name, default) != default and kind != needs:
            flag = "--" + name.replace("_", "-")
            raise InputError(f"{flag} needs --deployment {needs}")
    if kind is None and getattr(args, "routing", "round-robin") != "round-robin":
        raise InputError("--routing needs --deployment colocated or disagg")
