"""Lessons: teaching-only models (page replacement, the contiguous baseline, attention math, the seed article's
demo, the quiz, the KV view) that the pages draw; none of them is needed to simulate.

May import: anything below it (base, cost, workloads, simulator, analysis). Never cli, measure, ui or pages.
"""
