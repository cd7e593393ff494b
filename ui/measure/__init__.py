"""The measurement page (`/measure`): timing runs on this machine, profiles, the cost model against public points.

A wing: it imports the core and the shared modules at ui/ top level, never another wing (tests/test_ui_architecture.py).
"""
