"""The attention stage as /attention mounts it: the shared element (ui/components/attention_stage/mount.py, also
mounted by
chapter 3).

Invariant: nothing of its own; everything here is ui/components/attention_stage/mount.py's, registered once.
"""

from ui.components.attention_stage.mount import render

__all__ = ["render"]
