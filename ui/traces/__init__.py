"""The real-traces page (`/traces`): uploads, validation, replay under both engines, the prefix-cache study.

A wing: it imports the core and the shared modules at ui/ top level, never another wing (tests/test_ui_architecture.py).
"""
