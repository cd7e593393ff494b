"""Analysis: scenarios (config + workload → trace), metrics over a trace, sweeps, timelines and exports.

May import: the base modules, chunkviz.cost, chunkviz.workloads and chunkviz.simulator. Never lessons or cli.
"""
