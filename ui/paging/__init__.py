"""The page-replacement page (`/replacement`): FIFO, LRU, OPT, Clock and LFU on a reference string, and on KV blocks.

A wing: it imports the core and the shared modules at ui/ top level, never another wing (tests/test_ui_architecture.py).
"""
