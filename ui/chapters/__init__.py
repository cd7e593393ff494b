"""The lecture (`/ch1-…` to `/ch8-…`, and `/split-kitchen`): each chapter's preset runs, lanes, chat windows, predictions and texts.

A wing: it imports the core and the shared modules at ui/ top level, never another wing (tests/test_ui_architecture.py).
"""
