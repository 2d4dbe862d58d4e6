"""Money as integer céntimos, parsed in bulk from decimal strings in soles.

Floats never touch an amount that is compared with a payout: the log's text goes straight
to int64 céntimos, and ratios (3:2, a commission rate) are applied in integer arithmetic.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrowtext import as_large_string, buffers

__all__ = ["parse_money", "cents_to_decimal", "cents_text", "format_soles", "decimal_to_cents"]

# Up to 13 integer digits keeps céntimos far inside int64; a comma is accepted as the
# decimal mark (Spanish-locale spreadsheets) when no dot is present.
_MONEY = r"^-?[0-9]{1,13}([.,][0-9]{1,2})?$"


def parse_money(values, *, signed: bool = False, blank_is_zero: bool = True):
    """Return (cents int64, bad bool). Blank cells are 0 when ``blank_is_zero``.

    Plain cells (``-?digits(.d|.dd)?``, as exporters write amounts) are read straight from
    the Arrow buffers; only the other cells (a comma, blanks around the amount, text) go
    through the string kernels, which can say which of them are bad.
    """
    arr = as_large_string(values)
    if len(arr) == 0:  # Arrow lets an empty array have an empty offsets buffer
        return np.zeros(0, np.int64), np.zeros(0, bool)
    cents, negative, blank, plain = _parse_plain(arr)
    odd = np.flatnonzero(~(plain | blank))
    bad = np.zeros(len(arr), bool) if blank_is_zero else blank.copy()
    if not signed:  # any leading '-', "-0.00" too, whatever the other cells of the column
        bad |= negative
    cents[bad] = 0
    if len(odd):
        cents[odd], bad[odd] = _parse_careful(arr.take(pa.array(odd)), signed, blank_is_zero)
    return cents, bad


# Plain cells are parsed from the data buffer in blocks of rows, small enough that a block's
# temporaries stay in the processor's caches.
_BLOCK = 1 << 15  # 32,768 cells: measured fastest here (65,536: about 1.5× slower)
# The integer digits are read eight bytes at a time, as little-endian 64-bit words (a word's
# first character in its lowest byte), and checked and converted with word arithmetic.
_ZEROS = np.uint64(0x3030303030303030)  # "00000000"
_HIGH_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0)
# _KEEP[k] keeps a word's last k bytes.
_KEEP = np.array([(1 << 64) - (1 << (64 - 8 * k)) for k in range(9)], dtype=np.uint64)


def _all_digits(words):
    """Each word is eight ASCII digits (the high nibble is 3, and adding 6 does not carry)."""
    return (((words & _HIGH_NIBBLES) == _ZEROS)
            & (((words + np.uint64(0x0606060606060606)) & _HIGH_NIBBLES) == _ZEROS))


def _eight_digits(words):
    """The value of eight ASCII digits: pairs, then fours, then eights, each by one multiply."""
    words = ((words & np.uint64(0x0F0F0F0F0F0F0F0F)) * np.uint64(10 << 8 | 1)) >> np.uint64(8)
    words = ((words & np.uint64(0x00FF00FF00FF00FF)) * np.uint64(100 << 16 | 1)) >> np.uint64(16)
    return ((words & np.uint64(0x0000FFFF0000FFFF)) * np.uint64(10_000 << 32 | 1)) >> np.uint64(32)


def _parse_plain(arr: pa.LargeStringArray):
    """(cents, negative, blank, plain) of a large_string array without nulls, straight from
    its buffers: ``plain`` marks the cells of the documented dot-decimal form (``cents`` is 0
    elsewhere) and ``negative`` those starting with '-'."""
    n = len(arr)
    offsets, raw = buffers(arr)
    # 16 bytes in front, so that every cell has two whole words before its end, and one behind,
    # so that the first byte of a blank last cell can be read.
    data = np.concatenate([np.zeros(16, np.uint8), raw[offsets[0]:offsets[-1]], np.zeros(1, np.uint8)])
    cents = np.empty(n, np.int64)
    negative, blank, plain = np.empty(n, bool), np.empty(n, bool), np.empty(n, bool)
    for lo in range(0, n, _BLOCK):
        rows = slice(lo, lo + _BLOCK)
        cents[rows], negative[rows], blank[rows], plain[rows] = _parse_block(
            data, offsets[lo:lo + _BLOCK + 1] - offsets[0])
    return cents, negative, blank, plain


def _parse_block(data, bounds):
    """:func:`_parse_plain` of the cells between ``bounds``, offsets into ``data[16:]``."""
    start, end = bounds[:-1], bounds[1:]
    length = end - start
    blank = length == 0
    negative = (data[16:][start] == ord("-")) & ~blank
    # The cell less its sign (cut at 18 bytes: a longer cell is not plain anyway).
    body = np.minimum(length, 18).astype(np.int8) - negative
    # The last three bytes (some of the cells before, in a short cell): a dot two or one places
    # from the end, and the decimals after it.
    third, second, last = (data[16 - k:][end] for k in (3, 2, 1))
    two = (third == ord(".")) & (body >= 3)
    one = (second == ord(".")) & (body >= 2) & ~two
    second, last = second - np.uint8(ord("0")), last - np.uint8(ord("0"))  # a digit's value, or >= 10
    plain = ((last < 10) | ~(two | one)) & ((second < 10) | ~two)
    two, one = two.view(np.uint8), one.view(np.uint8)
    fraction = (second * np.uint8(10) + last) * two + last * np.uint8(10) * one
    skip = two * np.uint8(3) + one * np.uint8(2)  # the dot and the decimals
    whole = body - skip  # integer digits
    plain &= (whole >= 1) & (whole <= 13)

    # The integer digits, right-aligned in one word (or two, past eight digits), with '0' in
    # the bytes before them.
    count = 1 if (whole * plain).max(initial=0) <= 8 else 2
    at = np.ndarray((len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))  # at[i]: data[i:i + 8]
    digits_end = end - skip + 16  # in ``data``
    number = np.uint64(0)
    for k in range(count):
        word = at[digits_end - 8 * (count - k)].astype(np.uint64, copy=False)  # native byte order
        word ^= _ZEROS
        word &= _KEEP.take(np.clip(whole - 8 * (count - 1 - k), 0, 8).astype(np.intp))
        word ^= _ZEROS
        plain &= _all_digits(word)
        number = number * np.uint64(100_000_000) + _eight_digits(word)

    cents = number.view(np.int64) * 100
    cents += fraction
    cents *= plain.view(np.int8) - (plain & negative).view(np.int8) * np.int8(2)  # 1, -1 or 0
    return cents, negative, blank, plain


def _parse_careful(arr, signed: bool, blank_is_zero: bool):
    """Cell by cell with the string kernels: surrounding whitespace, a decimal comma, and
    which cells are bad."""
    arr = pc.utf8_trim_whitespace(arr)
    blank = np.asarray(pc.equal(arr, "").to_numpy(zero_copy_only=False), dtype=bool)
    ok = np.asarray(pc.match_substring_regex(arr, _MONEY).to_numpy(zero_copy_only=False), dtype=bool)
    if not signed:
        neg = np.asarray(pc.starts_with(arr, "-").to_numpy(zero_copy_only=False), dtype=bool)
        ok &= ~neg
    norm = pc.replace_substring(arr, ",", ".")
    norm = pc.replace_substring_regex(norm, r"^(-?[0-9]+)$", r"\1.00")
    norm = pc.replace_substring_regex(norm, r"\.([0-9])$", r".\10")
    norm = pc.replace_substring(norm, ".", "")
    safe = pc.if_else(pa.array(ok), norm, "0")
    cents = np.array(pc.cast(safe, pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
    bad = ~ok & ~(blank & blank_is_zero)
    cents[~ok] = 0
    return cents, bad


def cents_text(cents) -> np.ndarray:
    """Log text (``"12.50"``, ``"-3.00"``) of céntimos, for writing logs; each distinct
    amount is formatted once."""
    values, inverse = np.unique(np.asarray(cents, dtype=np.int64), return_inverse=True)
    text = np.array([f"{'-' if c < 0 else ''}{abs(c) // 100}.{abs(c) % 100:02d}" for c in values.tolist()],
                    dtype=object)
    return text[inverse.reshape(-1)]


def cents_to_decimal(cents: int) -> Decimal:
    return (Decimal(int(cents)) / 100).quantize(Decimal("0.01"))


def decimal_to_cents(value: Decimal | str) -> int:
    return int((Decimal(str(value)) * 100).to_integral_value(rounding=ROUND_DOWN))


def format_soles(cents: int | None, lang: str = "es") -> str:
    """``S/ 1 234,50`` in Spanish (Peru), ``S/ 1,234.50`` in English."""
    if cents is None:
        return ""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(int(cents)), 100)
    if lang == "es":
        grouped = f"{whole:,}".replace(",", "\u202f")
        return f"{sign}S/ {grouped},{frac:02d}"
    return f"{sign}S/ {whole:,}.{frac:02d}"
