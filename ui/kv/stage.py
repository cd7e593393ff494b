"""The KV stage as /kv mounts it: the shared element (ui/components/kv_stage/mount.py, also mounted by chapter 4).

Invariant: nothing of its own; everything here is ui/components/kv_stage/mount.py's, registered once.
"""

from ui.components.kv_stage.mount import NAME, render_stage, start_step

__all__ = ["NAME", "render_stage", "start_step"]
