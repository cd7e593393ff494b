"""Policy labels, read from the policy registry (one entry per policy carries its English and Chinese label)."""

from chunkviz.simulator.policies.registry import REGISTRY

TEXTS = {f"policy.{name}": (entry.label_en, entry.label_zh) for name, entry in REGISTRY.items()}
