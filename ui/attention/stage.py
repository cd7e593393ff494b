"""The attention stage as /attention mounts it: the shared element (ui/attention_stage.py, also mounted by
chapter 3).

Invariant: nothing of its own; everything here is ui/attention_stage.py's, registered once.
"""

from ui.attention_stage import render

__all__ = ["render"]
