"""Money as integer céntimos, parsed in bulk from decimal strings in soles.

Floats never touch an amount that is compared with a payout: the log's text goes straight
to int64 céntimos, and ratios (3:2, a commission rate) are applied in integer arithmetic.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["parse_money", "cents_to_decimal", "cents_text", "format_soles", "decimal_to_cents"]

# Up to 13 integer digits keeps céntimos far inside int64; a comma is accepted as the
# decimal mark (Spanish-locale spreadsheets) when no dot is present.
_MONEY = r"^-?[0-9]{1,13}([.,][0-9]{1,2})?$"


def parse_money(values, *, signed: bool = False, blank_is_zero: bool = True):
    """Return (cents int64, bad bool). Blank cells are 0 when ``blank_is_zero``."""
    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values, type=pa.large_string())
    if not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
        arr = pc.cast(arr, pa.large_string())
    arr = pc.fill_null(arr, "")
    blank = np.asarray(pc.equal(arr, "").to_numpy(zero_copy_only=False), dtype=bool)
    fast = _parse_plain_decimals(arr, blank) if _all_plain(arr, blank) else None
    if fast is not None:
        bad = blank & (not blank_is_zero)
        if not signed:
            bad |= fast < 0
        return np.where(bad, 0, fast), bad
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


_PLAIN = r"^-?[0-9]{1,13}(\.[0-9]{1,2})?$"


def _all_plain(arr, blank) -> bool:
    """Every non-blank cell is a plain dot-decimal of the documented form (the decimal cast
    alone would also take "1e2", "+5" or ".5", which the format does not allow)."""
    plain = np.asarray(pc.match_substring_regex(arr, _PLAIN).to_numpy(zero_copy_only=False), dtype=bool)
    return bool((plain | blank).all())


def _parse_plain_decimals(arr, blank):
    """Arrow's decimal cast handles the common, clean case in one kernel; it refuses the
    whole column on any odd cell (a comma, a third decimal, text), which sends the column
    to the cell-by-cell path that can say which cells are bad."""
    try:
        dec = pc.cast(pc.if_else(pa.array(blank), "0", arr), pa.decimal128(17, 2))
        cents = pc.cast(pc.multiply(dec, pa.scalar(100, pa.decimal128(5, 0))), pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    return np.asarray(cents.to_numpy(zero_copy_only=False), dtype=np.int64)


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
