"""Workloads: seeded request generators, named presets, and loaders and checks for real trace files.

Everything here turns a description (a preset, a distribution, a file) into a tuple of Request.
May import: chunkviz.errors, chunkviz.inputs, chunkviz.config, chunkviz.request. Never the simulator, cost model or
analysis.
"""
