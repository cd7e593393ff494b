"""The paged-KV-cache page (`/kv`): controls, the block grid and block tables at the cursor, memory over time.

A wing: it imports the core and the shared modules at ui/ top level, never another wing (tests/test_ui_architecture.py).
"""
