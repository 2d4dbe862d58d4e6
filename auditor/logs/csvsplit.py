"""A block of CSV lines split into Arrow columns by one compiled pass, for the plain case.

Exports are plain: no quotes, one line per row, as many fields on each line as the header
names. Such a block is split here at about a quarter of the cost of Arrow's CSV parser, with
exactly its result (the strings of each field). Anything else in a block (a quote, a bare
carriage return, an empty line, a line with too few or too many fields) makes ``split_plain``
decline, and the block goes to Arrow's parser, which knows every dialect and reports every
invalid row (``sources.Source._csv``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..compiled import kernel

__all__ = ["split_plain", "last_line_end", "line_count"]

def split_plain(block: np.ndarray, ncols: int, delimiter: str) -> list[pa.LargeStringArray] | None:
    """The ``ncols`` columns of ``block`` (whole lines, each ended by ``\\n`` or
    ``\\r\\n``) as large strings, or None when the block is not plain."""
    lines = int(np.count_nonzero(block == 10))
    ends = _field_ends(block, ncols, ord(delimiter), lines)
    if ends is None:
        return None
    offsets, data, bases = _columns(block, ends, ncols)
    return [pa.LargeStringArray.from_buffers(lines, pa.py_buffer(offsets[c]),
                                             pa.py_buffer(data[bases[c]:bases[c + 1]]))
            for c in range(ncols)]


def last_line_end(block: np.ndarray) -> int:
    """Length of the block up to and with its last complete line end (0 if none): the last
    ``\\n``, else the last ``\\r`` that is not the block's last byte (a ``\\n`` may follow)."""
    return _last_line_end(block) + 1


@kernel
def line_count(block):
    """Lines in the block, as Arrow's parser ends them: at ``\\n``, ``\\r\\n`` or a lone
    ``\\r``."""
    count = 0
    for i in range(len(block)):
        count += block[i] == 10 or (block[i] == 13 and (i + 1 == len(block) or block[i + 1] != 10))
    return count


@kernel
def _last_line_end(block):
    cr = -1
    for i in range(len(block) - 1, -1, -1):
        if block[i] == 10:
            return i
        if block[i] == 13 and cr < 0 and i < len(block) - 1:
            cr = i
    return cr


@kernel
def _field_ends(block, ncols, delimiter, lines):
    """Where each field ends (its separator or line end), field after field, or None when
    the block is not plain. Branch-free over the bytes; the line structure is then checked
    over the separators only: every ``ncols``-th is a line end, and so are no others."""
    full = lines * ncols  # a plain block has exactly so many
    ends = np.empty(full + 1, np.int64)
    found, cr, quote = 0, 0, False
    for i in range(len(block)):
        c = block[i]
        ends[min(found, full)] = i  # past ``full``, the block is not plain: no need to keep more
        found += (c == delimiter) | (c == 10)
        cr += c == 13
        quote |= c == 34
    if quote or found != full or (lines and ends[found - 1] != len(block) - 1):
        return None
    start = 0
    for r in range(lines):
        end = ends[r * ncols + ncols - 1]
        if block[end] != 10:
            return None
        if end > start and block[end - 1] == 13:  # the CR of a CRLF belongs to no field
            cr -= 1
        if ncols == 1 and end - (block[end - 1] == 13 if end > start else 0) == start:
            return None  # an empty line
        start = end + 1
    if cr:  # a CR that does not end a line
        return None
    return ends[:found]


@kernel
def _columns(block, ends, ncols):
    """(offsets of each column, one row per column; the bytes of all columns, column after
    column; where each column's bytes begin) of the fields ending at ``ends``."""
    rows = len(ends) // ncols
    lengths = np.zeros(ncols, np.int64)
    start = 0
    for r in range(rows):
        for c in range(ncols):
            end = ends[r * ncols + c]
            stop = end - 1 if c == ncols - 1 and end > start and block[end - 1] == 13 else end
            lengths[c] += stop - start
            start = end + 1
    bases = np.zeros(ncols + 1, np.int64)
    for c in range(ncols):
        bases[c + 1] = bases[c] + lengths[c]
    offsets = np.empty((ncols, rows + 1), np.int64)
    data = np.empty(bases[ncols], np.uint8)
    at = bases[:ncols].copy()
    start = 0
    for r in range(rows):
        for c in range(ncols):
            end = ends[r * ncols + c]
            stop = end - 1 if c == ncols - 1 and end > start and block[end - 1] == 13 else end
            offsets[c, r] = at[c] - bases[c]
            p = at[c]
            for k in range(start, stop):
                data[p] = block[k]
                p += 1
            at[c] = p
            start = end + 1
    for c in range(ncols):
        offsets[c, rows] = at[c] - bases[c]
    return offsets, data, bases
