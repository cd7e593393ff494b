"""Optional live measurement: time prefill chunks and decode steps of a Llama-shaped stack with PyTorch.

Invariant: importing this package never imports torch (only measure() does); without torch, measure() raises an
InputError that says how to enable the mode, and profiles can still be loaded and simulated.
"""

from chunkviz.measure.plan import PLAN_NAMES, MeasurePlan, measured_model, plan_for
from chunkviz.measure.profile import load_profile, save_profile
from chunkviz.measure.run import DEVICES, ENABLE_HINT, CheckFailedError, MeasureOutcome, measure, torch_available

__all__ = ["DEVICES", "ENABLE_HINT", "PLAN_NAMES", "CheckFailedError", "MeasureOutcome", "MeasurePlan", "load_profile",
           "measure", "measured_model", "plan_for", "save_profile", "torch_available"]
