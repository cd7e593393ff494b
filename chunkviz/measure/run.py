"""Run a measurement plan: build the stack, check it, time every point, and return a CostProfile.

Invariant: torch is imported only inside measure(); without it, measure() raises an InputError that says how to
enable the mode. Cancelling (is_cancelled() returning True) stops between points and returns no profile.
"""

from __future__ import annotations

import importlib.util
import platform
from dataclasses import dataclass
from typing import Callable

from chunkviz.cost.catalogue import get_model
from chunkviz.config import CostProfile, MeasuredPoint, ModelSpec
from chunkviz.errors import InputError
from chunkviz.measure.plan import CPU_HIDDEN_SIZE, CPU_NUM_LAYERS, MeasurePlan, measured_model, plan_for

ENABLE_HINT = "pip install -r requirements-measure.txt"
DEVICES: tuple[str, ...] = ("auto", "cpu", "cuda")
ProgressFn = Callable[[int, int], None]


class CheckFailedError(ValueError):
    """The measured stack's chunked prefill disagrees with one causal pass; timing it would mean nothing."""


@dataclass(frozen=True, slots=True)
class MeasureOutcome:
    profile: CostProfile | None  # None when cancelled
    num_done: int
    num_total: int
    is_cancelled: bool


def torch_available() -> bool:
    """Whether torch can be imported, found without importing it (which takes seconds)."""
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def _import_torch():
    try:
        import torch
    except ImportError:
        raise InputError(f"live measurement needs PyTorch, which is not installed; enable it with "
                         f"`{ENABLE_HINT}`") from None
    return torch


def resolve_device(torch, device: str) -> str:
    if device not in DEVICES:
        raise InputError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError(f"CUDA is not available to torch {torch.__version__} here; use --device cpu")
    return device


def _point_fn(stack, kind: str, tokens: int, context: int):
    """A call that runs one prefill chunk or one decode step against a cache of the right size."""
    if kind == "prefill":
        cache, ids = stack.new_cache(1, context + tokens), stack.random_tokens(1, tokens)
        return lambda: stack.prefill(ids, cache, context)
    cache, ids = stack.new_cache(tokens, context + 1), stack.random_tokens(tokens, 1)[:, 0]
    contexts = [context] * tokens
    return lambda: stack.decode(ids, cache, contexts)


def measure(model: ModelSpec | str = "llama-3-8b", *, device: str = "auto", num_layers: int | None = None,
            hidden_size: int | None = None, plan: MeasurePlan | str = "quick", use_rope: bool = True,
            seed: int = 0, num_threads: int | None = None, progress: ProgressFn | None = None,
            is_cancelled: Callable[[], bool] | None = None) -> MeasureOutcome:
    """Measure step times of `model` on `device`. Defaults: on CUDA all layers in bf16; on CPU float32 with
    2 layers and hidden 512 (every width scaled by the same factor), so the quick plan takes seconds."""
    torch = _import_torch()
    threads_before = torch.get_num_threads()
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    try:
        return _measure(torch, model, device, num_layers, hidden_size, plan, use_rope, seed, progress, is_cancelled)
    finally:
        torch.set_num_threads(threads_before)


def _time_points(stack, plan: MeasurePlan, device: str, progress: ProgressFn | None,
                 is_cancelled: Callable[[], bool] | None) -> dict[str, list[MeasuredPoint]] | int:
    """Measured points by kind, or the number of points done when cancelled."""
    from chunkviz.measure.timing import time_call

    points = plan.points()
    measured: dict[str, list[MeasuredPoint]] = {"prefill": [], "decode": []}
    for done, (kind, tokens, context) in enumerate(points):
        if is_cancelled is not None and is_cancelled():
            return done
        median, p10, p90 = time_call(_point_fn(stack, kind, tokens, context), device, plan.num_warmup,
                                     plan.num_repeats)
        measured[kind].append(MeasuredPoint(tokens, context, median, p10, p90))
        if progress is not None:
            progress(done + 1, len(points))
    return measured


def _measure(torch, model: ModelSpec | str, device: str, num_layers: int | None, hidden_size: int | None,
             plan: MeasurePlan | str, use_rope: bool, seed: int, progress: ProgressFn | None,
             is_cancelled: Callable[[], bool] | None) -> MeasureOutcome:
    from chunkviz.measure.check import TOLERANCE, check_chunked_prefill
    from chunkviz.measure.hardware import device_name, probe_hardware
    from chunkviz.measure.model import DecoderStack

    base = get_model(model) if isinstance(model, str) else model
    device = resolve_device(torch, device)
    on_cpu = device == "cpu"
    dtype = torch.float32 if on_cpu else torch.bfloat16
    layers = num_layers or (min(CPU_NUM_LAYERS, base.num_layers) if on_cpu else base.num_layers)
    hidden = hidden_size or (min(CPU_HIDDEN_SIZE, base.hidden_size) if on_cpu else base.hidden_size)
    spec = measured_model(base, layers, hidden, 4 if on_cpu else 2)
    plan = plan_for(device, plan) if isinstance(plan, str) else plan
    num_points = len(plan.points())
    with torch.inference_mode():
        stack = DecoderStack(spec, device, dtype, seed, use_rope)
        max_abs_diff, tolerance = check_chunked_prefill(stack), TOLERANCE[dtype]
        if not max_abs_diff <= tolerance:
            raise CheckFailedError(f"correctness check failed: chunked prefill differs from one causal pass by "
                                   f"{max_abs_diff:.3g} (tolerance {tolerance:g}); nothing was timed")
        measured = _time_points(stack, plan, device, progress, is_cancelled)
        if isinstance(measured, int):
            return MeasureOutcome(None, measured, num_points, True)
        name = device_name(device)
        hardware = probe_hardware(device, dtype, name)
    versions = (("chunkviz", "0.1.0"), ("python", platform.python_version()), ("torch", torch.__version__))
    profile = CostProfile(
        device=device, device_name=name, dtype=str(dtype).removeprefix("torch."), model=spec, use_rope=use_rope,
        hardware=hardware, versions=versions, check_max_abs_diff=max_abs_diff, check_tolerance=tolerance,
        timing_method="perf_counter" if on_cpu else "cuda_events", num_warmup=plan.num_warmup,
        num_repeats=plan.num_repeats, prefill=tuple(measured["prefill"]), decode=tuple(measured["decode"]))
    return MeasureOutcome(profile, num_points, num_points, False)
