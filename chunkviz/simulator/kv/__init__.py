"""The paged KV cache: blocks with ref counts and chained prefix keys, the free queue and its eviction rule.

Invariant: allocated blocks = blocks in use + free blocks; a block's ref_count is the number of tables holding it.
May import: chunkviz.errors, chunkviz.config, chunkviz.request, chunkviz.replacement, chunkviz.simulator.events.
"""
