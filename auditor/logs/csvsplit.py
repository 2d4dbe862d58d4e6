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

from ..compiled import byte_marks, kernel, load8, popcount, store8, trailing_zeros

__all__ = ["split_plain", "last_line_end", "line_count"]

def split_plain(block: np.ndarray, ncols: int, delimiter: str, repeated=()) -> list[pa.Array] | None:
    """The ``ncols`` columns of ``block`` (whole lines, each ended by ``\\n`` or
    ``\\r\\n``) as large strings, or None when the block is not plain. The columns whose
    index is in ``repeated`` (a round's fields, repeated on each of its rows) come
    run-encoded: a dictionary array whose entries are the runs of equal neighbouring values,
    so a value is copied once per round, not once per row."""
    ends = _field_ends(block, ncols, ord(delimiter))
    if ends is None:
        return None
    runs = np.zeros(ncols, np.bool_)
    runs[list(repeated)] = True
    offsets, data, bases, entries, index = _columns(block, ends, ncols, runs)
    columns: list[pa.Array] = []
    for c in range(ncols):
        size = offsets[c, entries[c]]
        values = pa.LargeStringArray.from_buffers(int(entries[c]), pa.py_buffer(offsets[c, :entries[c] + 1]),
                                                  pa.py_buffer(data[bases[c]:bases[c] + size]))
        columns.append(pa.DictionaryArray.from_arrays(pa.array(index[runs[:c].sum()], pa.int32()), values,
                                                      safe=False) if runs[c] else values)
    return columns


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
def _field_ends(block, ncols, delimiter):
    """Where each field ends (its separator or line end), field after field, or None when
    the block is not plain. The line structure is checked over the separators only: every
    ``ncols``-th is a line end, and so are no others."""
    ends = np.empty(len(block) // 4 + 8, np.int64)
    found, lines, cr, quote = _separators(block, delimiter, ends)
    if found > len(ends):  # fields shorter than four bytes on average: found again, all kept
        ends = np.empty(found, np.int64)
        found, lines, cr, quote = _separators(block, delimiter, ends)
    if quote or found != lines * ncols or (lines and ends[found - 1] != len(block) - 1):
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
def _separators(block, delimiter, ends):
    """(separators and line ends, line ends, carriage returns, whether a quote is found) in
    the block; where each separator or line end is, in ``ends`` as far as it holds them. The
    bytes are searched sixty-four at a time (``byte_marks``), the separators of each stretch
    then taken from its word of marks, lowest bit (first byte) first."""
    found, lines, cr, quote = 0, 0, 0, False
    stretches = len(block) // 64
    room = len(ends)
    for w in range(stretches):
        at = w * 64
        if byte_marks(block, at, 13, 34):  # rare: looked at byte by byte
            for i in range(at, at + 64):
                cr += block[i] == 13
                quote |= block[i] == 34
        lines += np.int64(popcount(byte_marks(block, at, 10, 10)))
        marks = byte_marks(block, at, delimiter, 10)
        while marks:
            if found < room:
                ends[found] = at + np.int64(trailing_zeros(marks))
            found += 1
            marks &= marks - np.uint64(1)
    for i in range(stretches * 64, len(block)):
        c = block[i]
        if c == delimiter or c == 10:
            if found < room:
                ends[found] = i
            found += 1
            lines += c == 10
        cr += c == 13
        quote |= c == 34
    return found, lines, cr, quote


# Bytes after each column's in the buffer of the split: a field is copied eight bytes at a
# time, and the last copy of a column may pass its end by up to seven.
_PAD = 16


@kernel
def _same_bytes(block, a, b, n):
    """Whether ``block[a:a + n]`` equals ``block[b:b + n]``, compared eight bytes at a time
    (the reads pass the ranges by up to seven bytes: the caller keeps them in the block)."""
    k = 0
    while k + 8 <= n:
        if load8(block, a + k) != load8(block, b + k):
            return False
        k += 8
    if k < n:
        differ = load8(block, a + k) ^ load8(block, b + k)
        return not differ & ((np.uint64(1) << np.uint64(8 * (n - k))) - np.uint64(1))
    return True


@kernel
def _columns(block, ends, ncols, runs):
    """(offsets of each column's entries, one row per column; the bytes of all columns,
    column after column; where each column's bytes begin; entries per column; entry of each
    row of each run-encoded column, one row per such column) of the fields ending at ``ends``.
    A column is run-encoded where ``runs`` says so (a value equal to the one above it is the
    same entry); elsewhere its entries are its rows. A first pass over the run-encoded columns
    compares each field with the one above it; the length of every other column is told by
    the sums of its field ends. A second pass copies the fields, eight bytes at a time. The
    rows whose line ends eight bytes or more before the block's end are read from the block;
    the others, and the row above them (which they are compared with), from a copy of the
    block's tail followed by eight zeros, so that no read passes an array's end and the loops
    hold no byte-by-byte alternative (with one, LLVM compiled them a third slower)."""
    rows = len(ends) // ncols
    size = len(block)
    fast = 0
    while fast < rows and ends[fast * ncols + ncols - 1] + 8 <= size:
        fast += 1
    shift = ends[(fast - 1) * ncols - 1] + 1 if fast >= 2 else 0  # where row fast - 1 begins
    tail = np.zeros(size - shift + 8, np.uint8)
    tail[:size - shift] = block[shift:]
    coded = np.flatnonzero(runs)
    slot = np.cumsum(runs) - 1  # of a run-encoded column, among those
    index = np.empty((len(coded), rows), np.int32)
    lengths = np.zeros(ncols, np.int64)
    entries = np.zeros(ncols, np.int64)
    above = np.zeros((len(coded), 2), np.int64)  # (start, length) of the field above
    for r in range(rows):
        src, base = (block, 0) if r < fast else (tail, shift)
        for j in range(len(coded)):
            c = coded[j]
            i = r * ncols + c
            start = ends[i - 1] + 1 if i else 0
            end = ends[i]
            n = (end - 1 if c == ncols - 1 and end > start and block[end - 1] == 13 else end) - start
            if not (r and n == above[j, 1] and _same_bytes(src, start - base, above[j, 0] - base, n)):
                lengths[c] += n
                entries[c] += 1
            index[j, r] = entries[c] - 1
            above[j, 0], above[j, 1] = start, n
    sums = np.zeros(ncols, np.int64)  # of each column's field ends
    for r in range(rows):
        for c in range(ncols):
            sums[c] += ends[r * ncols + c]
    for c in range(ncols):
        if runs[c]:
            continue
        entries[c] = rows
        if c:  # a field begins after the end of the one before it
            lengths[c] = sums[c] - sums[c - 1] - rows
        elif rows:  # and a row's first after the end of the row above
            lengths[c] = sums[0] - (sums[ncols - 1] - ends[rows * ncols - 1]) - (rows - 1)
    bases = np.zeros(ncols + 1, np.int64)
    for c in range(ncols):
        bases[c + 1] = bases[c] + lengths[c] + _PAD  # (a CRLF's CR counted in the last column's)
    offsets = np.empty((ncols, rows + 1), np.int64)
    data = np.empty(bases[ncols], np.uint8)
    at = bases[:ncols].copy()
    count = np.zeros(ncols, np.int64)
    start = 0
    for r in range(rows):
        src, base = (block, 0) if r < fast else (tail, shift)
        for c in range(ncols):
            end = ends[r * ncols + c]
            if not runs[c] or r == 0 or index[slot[c], r] != index[slot[c], r - 1]:
                stop = end - 1 if c == ncols - 1 and end > start and block[end - 1] == 13 else end
                offsets[c, count[c]] = at[c] - bases[c]
                count[c] += 1
                p = at[c]
                for k in range(0, stop - start, 8):
                    store8(data, p + k, load8(src, start - base + k))
                at[c] = p + stop - start
            start = end + 1
    for c in range(ncols):
        offsets[c, count[c]] = at[c] - bases[c]
    return offsets, data, bases, count, index
