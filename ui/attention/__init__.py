"""The attention-math page (`/attention`): chunked prefill against the KV cache equals one causal pass.

A wing: it imports the core and the shared modules at ui/ top level, never another wing (tests/test_ui_architecture.py).
"""
