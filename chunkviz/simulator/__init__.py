"""The simulator: the step loop (engine), scheduling policies (policies/: one module per engine and the registry
that names them and carries their traits; knobs resolved per engine and GPU), sequences, events, the trace, and
the KV manager (kv/).

Invariant: a run is a pure function of (SimConfig, requests); the same inputs give an identical Trace.
May import: chunkviz.errors, chunkviz.config, chunkviz.request, chunkviz.replacement, chunkviz.cost.
"""
