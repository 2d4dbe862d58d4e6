"""Reductions along the rows of narrow matrices (a hand's cards, a hand's decisions), and
their rows gathered.

numpy reduces a C-ordered (N, k) matrix along its short axis one row at a time; over the
transposed copy, whose k rows are long and contiguous, the same reduction is several times
faster (200,000 × 8: 0.7 ms against 4.8 ms for ``any``). Gathering rows, ``np.take`` along
the first axis is several times faster than indexing (240,000 × 8 int8: 0.2-0.8 ms against
3 ms).
"""

from __future__ import annotations

import numpy as np

__all__ = ["any_per_row", "all_per_row", "count_per_row", "rows_at"]


def any_per_row(mask: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(mask.T).any(axis=0)


def all_per_row(mask: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(mask.T).all(axis=0)


def count_per_row(mask: np.ndarray, dtype=np.int64) -> np.ndarray:
    return np.ascontiguousarray(mask.T).sum(axis=0, dtype=dtype)


def rows_at(matrix: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The rows of ``matrix`` at ``rows`` (integer positions)."""
    return np.take(matrix, rows, axis=0)
