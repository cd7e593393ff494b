"""A measured cost profile (chunkviz.config.profile.CostProfile) to and from JSON, the file `chunkviz measure` writes.

Invariant: a CostProfile read here is valid (full grids of positive, finite times with p10 <= median <= p90);
a bad file becomes an InputError that names the offending key, e.g. "prefill[3].median_s".
"""

from __future__ import annotations

import json
import math
from typing import Any

from chunkviz.config import CostProfile, GpuSpec, MeasuredPoint, ModelSpec, PointKind
from chunkviz.errors import InputError
from chunkviz.inputs import parse_json_object

PROFILE_FORMAT = "chunkviz-cost-profile"
PROFILE_VERSION = 1
MAX_PROFILE_POINTS = 10_000
MAX_PROFILE_BYTES = 2_000_000
_MODEL_KEYS = ("num_layers", "hidden_size", "num_heads", "num_kv_heads", "intermediate_size", "vocab_size",
               "bytes_per_param", "max_model_len_tokens")
_GPU_FLOATS = ("peak_flops_per_s", "hbm_bytes_per_s", "memory_bytes", "interconnect_bytes_per_s")
# Plausible ranges: a measured step between 1 ns and an hour (outside it a time is a unit slip, and an enormous or
# subnormal one overflows the simulated clock or the rates derived from it); hardware peaks of 1 MFLOP/s-1 EFLOP/s.
_STEP_RANGE_S = (1e-9, 3600.0)
_RANGES = {"median_s": _STEP_RANGE_S, "p10_s": _STEP_RANGE_S, "p90_s": _STEP_RANGE_S,
           "peak_flops_per_s": (1e6, 1e18), "hbm_bytes_per_s": (1e6, 1e18), "memory_bytes": (1e6, 1e16),
           "interconnect_bytes_per_s": (1e3, 1e18)}
# JSON name of the "tokens" axis of each table: a prefill chunk's tokens, or a decode step's batch size.
_TOKENS_KEY = {"prefill": "chunk_tokens", "decode": "batch_size"}


def profile_to_json(profile: CostProfile) -> str:
    """The profile as indented JSON text (the file format that profile_from_json reads)."""
    model = {key: getattr(profile.model, key) for key in ("model_id",) + _MODEL_KEYS + ("source",)}
    hardware = {key: getattr(profile.hardware, key) for key in ("gpu_id",) + _GPU_FLOATS + ("source",)}
    obj = {
        "format": PROFILE_FORMAT, "version": PROFILE_VERSION, "device": profile.device,
        "device_name": profile.device_name, "dtype": profile.dtype, "model": model, "use_rope": profile.use_rope,
        "hardware": hardware, "versions": dict(profile.versions),
        "check": {"max_abs_diff": profile.check_max_abs_diff, "tolerance": profile.check_tolerance},
        "timing": {"method": profile.timing_method, "num_warmup": profile.num_warmup,
                   "num_repeats": profile.num_repeats},
    }
    for kind in ("prefill", "decode"):
        obj[kind] = [{_TOKENS_KEY[kind]: p.num_tokens, "context_tokens": p.context_tokens, "median_s": p.median_s,
                      "p10_s": p.p10_s, "p90_s": p.p90_s} for p in profile.points(kind)]
    return json.dumps(obj, indent=1)


def _get(obj: dict[str, Any], key: str, path: str) -> Any:
    if key not in obj:
        raise InputError(f"cost profile: missing key {path + key!r}")
    return obj[key]


def _int(obj: dict[str, Any], key: str, path: str, minimum: int = 1) -> int:
    value = _get(obj, key, path)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= 100_000_000:
        raise InputError(f"cost profile: {path + key!r} must be an integer >= {minimum}, got {value!r}")
    return value


def _float(obj: dict[str, Any], key: str, path: str, allow_zero: bool = False) -> float:
    value = _get(obj, key, path)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (value == 0 and not allow_zero):
        raise InputError(f"cost profile: {path + key!r} must be a finite number {'>=' if allow_zero else '>'} 0, "
                         f"got {value!r}")
    lo, hi = _RANGES.get(key, (0.0, 1e300))
    if value and not lo <= value <= hi:
        raise InputError(f"cost profile: {path + key!r} must be from {lo:g} to {hi:g}, got {value!r}")
    return float(value)


def _str(obj: dict[str, Any], key: str, path: str = "") -> str:
    value = _get(obj, key, path)
    if not isinstance(value, str) or not value or len(value) > 200:
        raise InputError(f"cost profile: {path + key!r} must be a non-empty string of at most 200 characters")
    return value


def _section(obj: dict[str, Any], key: str) -> dict[str, Any]:
    value = _get(obj, key, "")
    if not isinstance(value, dict):
        raise InputError(f"cost profile: {key!r} must be a JSON object, got {type(value).__name__}")
    return value


def _model(obj: dict[str, Any]) -> ModelSpec:
    m = _section(obj, "model")
    values = {key: _int(m, key, "model.") for key in _MODEL_KEYS}
    try:
        return ModelSpec(model_id=_str(m, "model_id", "model."), source=_str(m, "source", "model."), **values)
    except ValueError as exc:
        raise InputError(f"cost profile: 'model': {exc}") from None


def _hardware(obj: dict[str, Any]) -> GpuSpec:
    h = _section(obj, "hardware")
    values = {key: _float(h, key, "hardware.") for key in _GPU_FLOATS}
    return GpuSpec(gpu_id=_str(h, "gpu_id", "hardware."), source=_str(h, "source", "hardware."), **values)


def _points(obj: dict[str, Any], kind: PointKind) -> tuple[MeasuredPoint, ...]:
    rows = _get(obj, kind, "")
    if not isinstance(rows, list) or not rows or len(rows) > MAX_PROFILE_POINTS:
        raise InputError(f"cost profile: {kind!r} must be a list of 1 to {MAX_PROFILE_POINTS} measured points")
    points = []
    for i, row in enumerate(rows):
        path = f"{kind}[{i}]."
        if not isinstance(row, dict):
            raise InputError(f"cost profile: {path[:-1]!r} must be a JSON object")
        point = MeasuredPoint(_int(row, _TOKENS_KEY[kind], path), _int(row, "context_tokens", path, minimum=0),
                              _float(row, "median_s", path), _float(row, "p10_s", path), _float(row, "p90_s", path))
        if not point.p10_s <= point.median_s <= point.p90_s:
            raise InputError(f"cost profile: {path[:-1]!r} needs p10_s <= median_s <= p90_s")
        points.append(point)
    _check_grid(points, kind)
    return tuple(sorted(points, key=lambda p: (p.context_tokens, p.num_tokens)))


def _check_grid(points: list[MeasuredPoint], kind: str) -> None:
    """Interpolation needs every (tokens, context) pair of the grid measured exactly once."""
    cells = {(p.num_tokens, p.context_tokens) for p in points}
    if len(cells) != len(points):
        raise InputError(f"cost profile: {kind!r} measures the same point twice")
    tokens, contexts = sorted({c[0] for c in cells}), sorted({c[1] for c in cells})
    missing = [(n, x) for x in contexts for n in tokens if (n, x) not in cells]
    if missing:
        n, x = missing[0]
        raise InputError(f"cost profile: {kind!r} must be a full grid of {_TOKENS_KEY[kind]} x context_tokens; "
                         f"missing {_TOKENS_KEY[kind]}={n}, context_tokens={x}")


def _parse(data: bytes | str) -> dict[str, Any]:
    # The input gate (chunkviz/inputs.py): size before parsing, bounded nesting, int digits, finite numbers.
    if len(data) > MAX_PROFILE_BYTES:
        raise InputError(f"cost profile is {len(data):,} bytes; the limit is {MAX_PROFILE_BYTES:,}")
    return parse_json_object(data, "cost profile")


def profile_from_json(data: bytes | str) -> CostProfile:
    """A validated CostProfile from the JSON text of a profile file."""
    obj = _parse(data)
    if obj.get("format") != PROFILE_FORMAT:
        raise InputError(f"cost profile: 'format' must be {PROFILE_FORMAT!r}, got {obj.get('format')!r}")
    if obj.get("version") != PROFILE_VERSION:
        raise InputError(f"cost profile: 'version' must be {PROFILE_VERSION}, got {obj.get('version')!r}")
    device = _str(obj, "device")
    if device not in ("cpu", "cuda"):
        raise InputError(f"cost profile: 'device' must be 'cpu' or 'cuda', got {device!r}")
    versions = _section(obj, "versions")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in versions.items()):
        raise InputError("cost profile: 'versions' must map names to version strings")
    check, timing = _section(obj, "check"), _section(obj, "timing")
    max_abs_diff = _float(check, "max_abs_diff", "check.", allow_zero=True)
    tolerance = _float(check, "tolerance", "check.")
    if max_abs_diff > tolerance:
        raise InputError(f"cost profile: 'check.max_abs_diff' ({max_abs_diff:.3g}) exceeds 'check.tolerance' "
                         f"({tolerance:.3g}): the measured model failed its correctness check")
    use_rope = _get(obj, "use_rope", "")
    if not isinstance(use_rope, bool):
        raise InputError(f"cost profile: 'use_rope' must be true or false, got {use_rope!r}")
    return CostProfile(
        device=device, device_name=_str(obj, "device_name"), dtype=_str(obj, "dtype"), model=_model(obj),
        use_rope=use_rope, hardware=_hardware(obj), versions=tuple(sorted(versions.items())),
        check_max_abs_diff=max_abs_diff, check_tolerance=tolerance, timing_method=_str(timing, "method", "timing."),
        num_warmup=_int(timing, "num_warmup", "timing.", minimum=0), num_repeats=_int(timing, "num_repeats", "timing."),
        prefill=_points(obj, "prefill"), decode=_points(obj, "decode"))
