"""An immutable float sequence backed by numpy, and the expansion of run-length-encoded token gaps into one.

Invariant: a FloatArray equals (==) any tuple or list holding the same floats in the same order, and
expand_runs(exact, runs) is exactly the list the exact step loop would have built: `exact` with each run's value
repeated `count` times, inserted before exact[position] (runs in the order they were recorded).

Why: a 20,000-request metrics-only run has millions of token gaps; a tuple of Python floats costs more to build and
to turn back into an array than the simulation of the steady steps that produced them.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

# (position in the exact gap list, gap seconds, number of copies) of each run, as three aligned arrays
GapRuns = tuple[np.ndarray, np.ndarray, np.ndarray]


class FloatArray:
    """A read-only float64 vector that behaves like a tuple of floats (len, iteration, indexing, ==, hash)."""

    __slots__ = ("_array",)

    def __init__(self, values: Any) -> None:
        array = np.array(values, dtype=np.float64)  # a private copy, so no caller can change it later
        array.flags.writeable = False
        self._array = array

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if dtype is None or np.dtype(dtype) == np.float64:
            return self._array
        return self._array.astype(dtype)

    def __len__(self) -> int:
        return int(self._array.size)

    def __iter__(self) -> Iterator[float]:
        return iter(self._array.tolist())

    def __getitem__(self, index: Any) -> Any:
        item = self._array[index]
        return FloatArray(item) if isinstance(item, np.ndarray) else float(item)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FloatArray):
            return bool(np.array_equal(self._array, other._array))
        if isinstance(other, (tuple, list)):
            return len(other) == self._array.size and self._array.tolist() == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._array.tobytes())

    def __repr__(self) -> str:
        return f"FloatArray(n={self._array.size})"

    def tolist(self) -> list[float]:
        return self._array.tolist()


def expand_runs(exact: Sequence[float], runs: GapRuns | None) -> np.ndarray:
    """`exact` with every run inserted (see the module invariant), built with a few vectorised passes."""
    exact_arr = np.array(exact, dtype=np.float64)
    if runs is None or not len(runs[0]):
        return exact_arr
    positions, values, counts = runs
    num_copies = int(counts.sum())
    copies_before = np.cumsum(counts) - counts  # run elements placed before each run
    # Run r starts at out index positions[r] + copies_before[r]; its copies follow one another.
    run_index = (np.repeat(positions + copies_before, counts)
                 + np.arange(num_copies, dtype=np.int64) - np.repeat(copies_before, counts))
    out = np.empty(exact_arr.size + num_copies, dtype=np.float64)
    is_exact = np.ones(out.size, dtype=bool)
    is_exact[run_index] = False
    out[run_index] = np.repeat(values, counts)
    out[is_exact] = exact_arr
    return out
