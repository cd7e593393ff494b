"""Cost model: what one engine step costs in seconds on a given model and GPU.

Owns model/GPU specs in the catalogue, the roofline step cost, measured cost profiles and the profiled cost.
May import: chunkviz.errors, chunkviz.config, chunkviz.request. Never the simulator, workloads or anything above.
"""
