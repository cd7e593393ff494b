"""chunkviz: a pure, deterministic simulator of LLM serving engines (no streamlit, no torch at import time).

Invariant: simulate(config, requests) is a function; the same inputs give an identical Trace on any machine.

Subsystems, in dependency order (a module imports only its own layer and those before it, type-only imports
included, and no import circle; tests/test_architecture.py checks both):
  0. base        errors, inputs (the gate every file passes), config/ (frozen knobs, model/GPU specs, measured cost
                 profiles), request (immutable specs), replacement/ (FIFO/LRU/LFU/Clock/OPT victim choosers behind
                 one Replacer interface)
  1. cost        model/GPU catalogue, roofline step cost, profile files and the step cost they give
  2. workloads   generators, presets, trace loaders and checks
  3. simulator   engine, scheduling policies, sequences, events, trace; kv/ the paged KV block manager
  4. analysis    scenario (config + workload → trace), metrics, sweeps, timeline, exports
  5. lessons     teaching-only models: page replacement, contiguous baseline, attention math, seed demo, quiz
  6. measure     optional torch timing (torch imported lazily)
  7. cli         one module per subcommand
Streamlit lives outside the package: ui/ (helpers, charts, texts) and pages/ (thin pages).
"""

from chunkviz.config import SimConfig
from chunkviz.simulator.engine import simulate
from chunkviz.simulator.trace import Trace

__all__ = ["SimConfig", "Trace", "simulate"]
