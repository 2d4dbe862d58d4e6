"""Arrow string arrays as numpy views of their buffers, for the parsers of cards, amounts and
fields, which read a million values without making a million Python strings."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["as_large_string", "buffers"]


def as_large_string(values) -> pa.LargeStringArray:
    """One large-string array without nulls (a null is an empty value) from a list, an array
    or a chunked array."""
    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values, type=pa.large_string())
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.large_string())
    return pc.fill_null(arr, "") if arr.null_count else arr


def buffers(arr: pa.LargeStringArray) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, data): value i is ``data[offsets[i]:offsets[i + 1]]``."""
    if len(arr) == 0:  # Arrow lets an empty array have an empty offsets buffer
        return np.zeros(1, np.int64), np.zeros(0, np.uint8)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64, count=len(arr) + 1, offset=arr.offset * 8)
    data = arr.buffers()[2]
    return offsets, (np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8))
