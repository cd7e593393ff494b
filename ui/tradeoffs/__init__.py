"""The trade-offs page (`/tradeoffs`): the budget sweep, per-class SLOs and the capacity search.

A wing: it imports the core and the shared modules at ui/ top level, never another wing (tests/test_ui_architecture.py).
"""
