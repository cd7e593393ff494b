"""The KV stage as /kv mounts it: the shared element (ui/kv_stage.py, also mounted by chapter 4).

Invariant: nothing of its own; everything here is ui/kv_stage.py's, registered once.
"""

from ui.kv_stage import NAME, render_stage, start_step

__all__ = ["NAME", "render_stage", "start_step"]
