"""Money as integer céntimos, parsed in bulk from decimal strings in soles.

Floats never touch an amount that is compared with a payout: the log's text goes straight
to int64 céntimos, and ratios (3:2, a commission rate) are applied in integer arithmetic.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal, InvalidOperation

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrowtext import as_large_string, buffers
from .compiled import kernel, load8

__all__ = ["parse_money", "cents_to_decimal", "cents_text", "format_soles", "decimal_to_cents",
           "AMOUNT_DIGITS", "LARGEST_CENTS", "LARGEST_AMOUNT", "LARGEST_RATIO", "too_large"]

# The largest amount and ratio the audit takes. They are a data engineer's bounds, not the
# directives' (no text caps an amount or a ratio): amounts are int64 céntimos, which wrap around
# silently past 9.22 × 10^18, and the audit multiplies a stake by a posted ratio and by
# ``games.blackjack.SCALE`` (10: tenths of a céntimo) and sums what a round's rows are due and paid.
#
# - An amount has at most 9 integer digits (leading zeros aside): S/ 999 999 999,99, about
#   10^11 céntimos. A table's largest posted bet is some thousands of soles (S/ 1 500 at the
#   sample hall's VIP table), and a royal flush on S/ 10 000 at 1 000 to 1 pays S/ 10 000 000.
#   (The 13 digits taken before let a bonus bet's due at Let It Ride's 20 000 to 1 wrap around.)
# - A posted ratio, and each term of ``bj_pays``, is at most 100 000 (to 1): the largest of the
#   published tables the audit knows is that bonus royal's 20 000.
# - A posted limit or stake is an amount (at most S/ 999 999 999,99); a commission is at most
#   100 % (``profiles``).
#
# So one bet's due is at most 10^11 × 10 × 10^5 = 10^17, a 92nd of int64, and a row's four
# bets' 4 × 10^17. A round holds at most 10 000 rows (the seat numbers read; Pot Luck's 9 seats
# × 16 hands): what its rows were paid, 4 × 10^12 each in tenths, sums inside; what they are
# due is summed each row capped (``checks.base.capped_rounds``). A chunk's column sums
# (``wagered``) stay inside for 9 × 10^7 rows (a chunk is some 300 000); a report's totals are
# Decimal, of no bound.
AMOUNT_DIGITS = 9
LARGEST_CENTS = 10 ** (AMOUNT_DIGITS + 2) - 1
LARGEST_AMOUNT = Decimal(LARGEST_CENTS) / 100
LARGEST_RATIO = 100_000

# The text of an amount: up to 13 integer digits (leading zeros count), a comma accepted as
# the decimal mark (Spanish-locale spreadsheets) when no dot is present; its value at most
# LARGEST_CENTS. An amount above it, however long, is "too large", not malformed: at least
# AMOUNT_DIGITS + 1 digits from the first that is not 0 (``logs.ingest`` says which of the two).
_MONEY = r"^-?[0-9]{1,13}([.,][0-9]{1,2})?$"
_TOO_LARGE = rf"^-?0*[1-9][0-9]{{{AMOUNT_DIGITS},}}([.,][0-9]{{1,2}})?$"
# A number in exponent form ("1e+16", "-1.5E10"): no spelling of the format, but the text a
# large JSON number (Python writes a float of 10^16 or more so) or a Parquet column of floats
# (Arrow, from 10^10) reads as. Above LARGEST_CENTS it is too large as the same amount in digits is.
_EXPONENT = r"^-?[0-9]+(\.[0-9]+)?[eE][+-]?[0-9]+$"


def parse_money(values, *, signed: bool = False, blank_is_zero: bool = True):
    """Return (cents int64, bad bool). Blank cells are 0 when ``blank_is_zero``; an amount
    above LARGEST_CENTS (either sign) is bad.

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


def _parse_plain(arr: pa.LargeStringArray):
    """(cents, negative, blank, plain) of a large_string array without nulls, straight from
    its buffers: ``plain`` marks the cells of the documented dot-decimal form
    ``-?[0-9]{1,13}(.[0-9]{1,2})?`` of at most LARGEST_CENTS (``cents`` is 0 elsewhere) and
    ``negative`` those starting with '-'."""
    offsets, data = buffers(arr)
    return _plain_cells(offsets, data)


@kernel
def _plain_cells(offsets, data):
    n = len(offsets) - 1
    cents = np.zeros(n, np.int64)
    negative, blank, plain = np.zeros(n, np.bool_), np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    for i in range(n):
        at, end = offsets[i], offsets[i + 1]
        if at == end:
            blank[i] = True
            continue
        if data[at] == 45:  # '-'
            negative[i] = True
            at += 1
        if 4 <= end - at <= 8 and data[end - 3] == 46 and at + 8 <= len(data):
            # The usual amount, one to five digits, a dot and two decimals: read as one word.
            value = _dotted_cents(load8(data, at), end - at)
            if value >= 0:
                plain[i] = True
                cents[i] = -value if negative[i] else value
            continue
        whole, digits = 0, 0
        while at < end and 48 <= data[at] <= 57 and digits <= 13:
            whole = whole * 10 + (data[at] - 48)
            at += 1
            digits += 1
        if digits < 1 or digits > 13:
            continue
        fraction = 0
        if at < end:  # a dot and one or two decimals, and nothing after them
            decimals = end - at - 1
            if data[at] != 46 or decimals < 1 or decimals > 2:
                continue
            first = data[at + 1] - 48
            second = data[at + 2] - 48 if decimals == 2 else 0
            if not (0 <= first <= 9 and 0 <= second <= 9):
                continue
            fraction = first * 10 + second
        value = whole * 100 + fraction
        if value > LARGEST_CENTS:  # (left to the careful parse, which says it is bad)
            continue
        plain[i] = True
        cents[i] = -value if negative[i] else value
    return cents, negative, blank, plain


_ZEROS = np.uint64(0x3030303030303030)  # eight '0'
_HIGH_NIBBLES, _LOW_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0), np.uint64(0x0F0F0F0F0F0F0F0F)


@kernel
def _dotted_cents(word, size):
    """The amount written in the first ``size`` bytes of ``word`` (4 to 8: digits, a dot, two
    digits), in céntimos; -1 if a byte that must be a digit is not. The dot is taken out,
    the digits are moved up and zeros put before them (the first digit is the word's lowest
    byte), then the eight digits are checked and read at once (pairs, quads, then the whole)."""
    whole = size - 3
    low_bits = np.uint64(8 * whole)
    digits = (word & ((np.uint64(1) << low_bits) - np.uint64(1))) | (
        ((word >> (low_bits + np.uint64(8))) & np.uint64(0xFFFF)) << low_bits)
    pad = np.uint64(8 * (9 - size))  # the bytes of the zeros in front (size - 1 digits)
    digits = (digits << pad) | (_ZEROS & ((np.uint64(1) << pad) - np.uint64(1)))
    if (digits & _HIGH_NIBBLES) != _ZEROS or ((digits + np.uint64(0x0606060606060606)) & _HIGH_NIBBLES) != _ZEROS:
        return -1
    v = digits & _LOW_NIBBLES
    v = (v * np.uint64(2561)) >> np.uint64(8)
    v = ((v & np.uint64(0x00FF00FF00FF00FF)) * np.uint64(6553601)) >> np.uint64(16)
    v = ((v & np.uint64(0x0000FFFF0000FFFF)) * np.uint64(42949672960001)) >> np.uint64(32)
    return np.int64(v)


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
    ok &= (cents <= LARGEST_CENTS) & (cents >= -LARGEST_CENTS)  # (13 digits fit int64: cast first)
    bad = ~ok & ~(blank & blank_is_zero)
    cents[~ok] = 0
    return cents, bad


def too_large(text: pa.Array) -> np.ndarray:
    """Which of ``text`` (amounts that ``parse_money`` found bad, blanks around them taken off)
    state an amount above LARGEST_CENTS, of either sign: in digits, however many (``_TOO_LARGE``),
    or as a number in exponent form (``_EXPONENT``), its value compared exactly (as a Decimal:
    no float)."""
    large = np.asarray(pc.match_substring_regex(text, _TOO_LARGE).to_numpy(zero_copy_only=False), dtype=bool)
    exponent = np.asarray(pc.match_substring_regex(text, _EXPONENT).to_numpy(zero_copy_only=False), dtype=bool)
    for i in np.flatnonzero(exponent).tolist():
        large[i] = _above_largest(text[i].as_py())
    return large


def _above_largest(number: str) -> bool:
    """Whether a number in exponent form (``_EXPONENT``) is above LARGEST_AMOUNT in size."""
    try:
        return Decimal(number).copy_abs() > LARGEST_AMOUNT
    except InvalidOperation:  # an exponent past any Decimal's (10^18): its size is the exponent's
        mantissa, _, power = number.lower().partition("e")
        return int(power) > 0 and mantissa.strip("-0.") != ""


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
