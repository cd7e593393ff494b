"""Cost model: what one engine step costs in seconds on a given model and GPU.

Owns model/GPU specs in the catalogue, the roofline step cost with its per-kernel dense model (kernels, fitted to
the public A100 points of public_points by fit), measured cost profiles as JSON files (profile; the CostProfile type
is frozen config, chunkviz.config.profile) and the step cost they give (profiled).
May import: chunkviz.errors, chunkviz.inputs, chunkviz.config, chunkviz.request. Never the simulator, workloads or
anything above.
"""
