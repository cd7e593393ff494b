"""Entry point for `python -m chunkviz`.

Invariant: the process runs the CLI (chunkviz.cli.main) with CPython's cyclic garbage collector made rarer, never
off; nothing the CLI computes depends on it.
"""

import gc

from chunkviz.cli.main import main

# A large run allocates millions of objects that never form cycles (sequences, results, per-step floats), and every
# full collection walks all of them: about a tenth of a 20,000-request `simulate` (3.34 -> 3.01 s, median of 5
# interleaved runs). What the imports built is frozen (modules are never collected anyway) and collections come
# every 50,000 allocations instead of 700, so a command that does make cycles still has them collected. Only the
# command-line process does this: tests and the app call main() or the package in processes of their own.
gc.freeze()
gc.set_threshold(50_000, 50, 50)
raise SystemExit(main())
