"""How much of a run a measured cost profile covered: the share of its steps inside the profile's measured grid.

Invariant: a pure function of the config and the trace; None where there is nothing to measure (no profile, or a
metrics-only trace without steps), never a made-up share. Lives in analysis because it reads a Trace (layer 3),
which the cost model (layer 1) may not.
"""

from __future__ import annotations

from chunkviz.config import SimConfig
from chunkviz.cost.profiled import ProfiledStepCoster
from chunkviz.cost.roofline import StepCoster, shape_of
from chunkviz.simulator.trace import Trace


def measured_step_share(config: SimConfig, trace: Trace) -> float | None:
    """Fraction of a detailed trace's steps that fell inside the profile's measured grid (None: no profile/steps)."""
    if config.cost_profile is None or not trace.steps:
        return None
    coster = ProfiledStepCoster(config.cost_profile, StepCoster(config.model, config.gpu, config.cost))
    inside = 0
    for record in trace.steps:
        # A decode is a 1-token chunk after its context, so one formula rebuilds the engine's StepShape.
        inside += coster.is_measured(shape_of(tuple((c.num_tokens, c.start_token) for c in record.chunks)))
    return inside / len(trace.steps)
