"""The simulator: the step loop (engine), scheduling policies, sequences, events, the trace, and the KV manager.

Invariant: a run is a pure function of (SimConfig, requests); the same inputs give an identical Trace.
May import: chunkviz.errors, chunkviz.config, chunkviz.request, chunkviz.replacement, chunkviz.cost.
"""
