"""Cost model: what one engine step costs in seconds on a given model and GPU.

Owns model/GPU specs in the catalogue, the roofline step cost with its per-kernel dense model (kernels, fitted to
the public A100 points of public_points by fit), measured cost profiles and the profiled cost.
May import: chunkviz.errors, chunkviz.config, chunkviz.request. Never the simulator, workloads or anything above.
"""
