"""The attention-math page's colours and its real-model table (the chunk-by-chunk view is the browser stage,
stage.py/stage.js).

Invariant: pure functions of the cost model's numbers; colours are the palette's, plus one cycle over chunks.
"""

from __future__ import annotations

from chunkviz.cost.prefill import PrefillCost
from ui.components.attention_stage.export import CHUNK_CYCLE, DONE  # the stage's colours, shared with chapter 3

__all__ = ["CHUNK_CYCLE", "DONE", "real_model_rows"]


def real_model_rows(costs: tuple[PrefillCost, ...], labels: dict[str, str]) -> list[dict[str, object]]:
    """Rows of the real-model table, one per chunk size, in display units (TFLOP, GB, ms)."""
    rows = []
    for c in costs:
        whole = c.num_steps == 1
        rows.append({labels["col.chunk"]: labels["col.whole"] if whole else f"{c.chunk_tokens:,}",
                     labels["col.steps"]: c.num_steps,
                     labels["col.flops"]: round(c.flops / 1e12, 2),
                     labels["col.attn_flops"]: round(c.attention_flops / 1e12, 2),
                     labels["col.weights"]: round(c.weight_read_bytes / 1e9, 1),
                     labels["col.kv"]: round(c.kv_read_bytes / 1e9, 2),
                     labels["col.time"]: round(c.time_s * 1e3, 1)})
    return rows
