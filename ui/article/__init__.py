"""The article's demo page (`/article`): the seed article's toy reproduced, its flaws, and the realistic run.

A wing: it imports the core and the shared modules at ui/ top level, never another wing (tests/test_ui_architecture.py).
"""
