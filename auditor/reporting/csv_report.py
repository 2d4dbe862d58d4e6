"""The CSV report: one row per finding, safe to open in a spreadsheet.

A cell that a spreadsheet could take for a formula (it starts with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return) is neutralised with a leading single quote, so that a
dealer id such as ``=HYPERLINK(...)`` taken from a log stays text. Plain signed amounts in
the money columns (``-12.50``) are left as they are, so they stay numbers.

Encoding is UTF-8 with a byte-order mark, which spreadsheet programs need to show accents.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from ..engine import FINDING_COLUMNS
from .json_report import finding_records

__all__ = ["write_csv", "neutralise", "CSV_COLUMNS", "MONEY_COLUMNS"]

CSV_COLUMNS = list(FINDING_COLUMNS)
MONEY_COLUMNS = frozenset({"expected", "observed", "impact"})
_DANGEROUS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def neutralise(value: str, *, money: bool = False) -> str:
    """``value`` made inert for a spreadsheet (see the module docstring)."""
    if not value or not value.startswith(_DANGEROUS):
        return value
    if money and _PLAIN_NUMBER.fullmatch(value):
        return value
    return "'" + value


def _cell(name: str, value) -> str:
    if value is None:
        return ""
    if name == "evidence":
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    else:
        text = str(value)
    return neutralise(text, money=name in MONEY_COLUMNS)


def write_csv(result, path, *, report: dict | None = None) -> Path:
    """Write one row per finding of ``result`` (or of an already built ``report``)."""
    path = Path(path)
    rows = report["findings"] if report is not None else finding_records(result.findings)
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\r\n")
        writer.writerow(CSV_COLUMNS)
        for row in rows:
            writer.writerow([_cell(c, row.get(c)) for c in CSV_COLUMNS])
    return path
