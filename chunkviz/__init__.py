"""chunkviz: a pure, deterministic simulator of LLM serving engines (no streamlit, no torch at import time).

Invariant: simulate(config, requests) is a function; the same inputs give an identical Trace on any machine.
"""

from chunkviz.config import SimConfig
from chunkviz.engine import simulate
from chunkviz.trace import Trace

__all__ = ["SimConfig", "Trace", "simulate"]
