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

    @classmethod
    def adopt(cls, array: np.ndarray) -> "FloatArray":
        """Wrap a float64 array nobody else holds, without the copy (it is made read-only)."""
        self = cls.__new__(cls)
        array.flags.writeable = False
        self._array = array
        return self

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
    """`exact` with every run inserted (see the module invariant): exact gaps become runs of one, a stable sort by
    position puts each run before exact[position], and one np.repeat expands them (no other array of full size)."""
    exact_arr = np.array(exact, dtype=np.float64)
    if runs is None or not len(runs[0]):
        return exact_arr
    positions, values, counts = runs
    num_exact = exact_arr.size
    where = np.concatenate([positions, np.arange(num_exact, dtype=np.int64)])
    # Among equal positions the runs (kind 0, in recorded order) come before the exact gap (kind 1).
    kind = np.concatenate([np.zeros(len(positions), dtype=np.int8), np.ones(num_exact, dtype=np.int8)])
    recorded = np.arange(where.size, dtype=np.int64)  # runs at one position keep the order they were recorded in
    order = np.lexsort((recorded, kind, where))  # the last key is the primary one
    all_values = np.concatenate([values, exact_arr])[order]
    all_counts = np.concatenate([counts, np.ones(num_exact, dtype=np.int64)])[order]
    return np.repeat(all_values, all_counts)
