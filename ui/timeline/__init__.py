"""The timeline page (`/`): both engines on one time axis in a browser-side component, its lesson and downloads.

A wing: it imports the core and the shared modules at ui/ top level, never another wing (tests/test_ui_architecture.py).
"""
