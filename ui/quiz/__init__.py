"""The quiz page (`/quiz`): misconceptions, each answered by a run of the simulator.

A wing: it imports the core and the shared modules at ui/ top level, never another wing (tests/test_ui_architecture.py).
"""
