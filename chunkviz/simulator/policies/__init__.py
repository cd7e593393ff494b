"""Scheduling policies, one module per engine, and the registry that names them and carries their traits.

A new policy is one schedule function (here) plus one PolicyEntry in registry.py, whose English and Chinese labels
the app reads. Every engine rule cites the engine function it follows (docs/engines.md).
May import: chunkviz.errors, chunkviz.config, chunkviz.simulator.{sched_common, sequence, knobs, kv}.
"""
