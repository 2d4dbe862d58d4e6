"""Typing and validating the string rows of export files (read by ``sources``).

Every record read is either audited or rejected with its file, line, field and reason:
nothing is dropped. A record is a CSV or Parquet row (one hand) or a JSONL line (one round).
When any record of a round is rejected, the round's other records are rejected too (a round
is audited whole or not at all), each naming the line that caused it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..cards import CardMatrix, parse_cards
from ..money import parse_money
from .schema import Column, Kind, columns_of

__all__ = ["InputError", "HandTable", "detect_game", "type_rows", "collect_rejects", "LIMA_OFFSET"]

LIMA_OFFSET = "-05:00"


class InputError(Exception):
    """A file that cannot be read at all (exit code 2). ``key`` names the catalogue message."""

    def __init__(self, path: str, key: str, **params):
        super().__init__(f"{path}: {key} {params}")
        self.path = path
        self.key = key
        self.params = params


@dataclass
class HandTable:
    """Typed hands of one game: scalar columns in ``df``, card and action matrices beside it,
    row-aligned. Rows are sorted by table, time, round, seat and hand."""

    df: pd.DataFrame
    matrices: dict[str, CardMatrix]
    codes: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.df)


def _rejects(file, line, field_, reason, detail="", row=-1) -> pd.DataFrame:
    """Rejected records; ``row`` is the row in the typed table (-1 for a record that never
    became a row, such as an unreadable JSON line)."""
    n = len(line)
    return pd.DataFrame({"file": pd.Series(np.broadcast_to(np.asarray(file, dtype=object), n), dtype=object),
                         "line": pd.Series(line, dtype=np.int64),
                         "field": pd.Series(np.broadcast_to(np.asarray(field_, dtype=object), n), dtype=object),
                         "reason": pd.Series(np.broadcast_to(np.asarray(reason, dtype=object), n), dtype=object),
                         "detail": pd.Series(np.broadcast_to(np.asarray(detail, dtype=object), n), dtype=object),
                         "_row": pd.Series(np.broadcast_to(np.asarray(row, dtype=np.int64), n), dtype=np.int64)})


EMPTY_REJECTS = _rejects([], [], [], [], [])


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def detect_game(columns) -> str | None:
    """The game whose required columns a file has (None when no game's, or several's)."""
    found = [g for g in _games() if {c.name for c in columns_of(g) if c.required} <= set(columns)]
    return found[0] if len(found) == 1 else None


def _games():
    from .schema import ROUND_MODELS

    return list(ROUND_MODELS)


def _json_scalar_to_str(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "\x00bool"  # a boolean is no valid value of any field
    if isinstance(value, (dict, list)):
        return "\x00" + json.dumps(value)[:40]
    return str(value)


# --- typing and validation -------------------------------------------------------------

def _time_column(values: pd.Series):
    text = values.str.strip()
    has_zone = text.str.contains(r"(?:Z|[+-]\d\d:?\d\d)$", regex=True)
    text = text.where(has_zone, text + LIMA_OFFSET)
    parsed = pd.to_datetime(text, utc=True, errors="coerce", format="ISO8601")
    return parsed, parsed.isna().to_numpy()


def type_rows(raw: pd.DataFrame, game: str, letters: str = "") -> tuple[HandTable, pd.DataFrame]:
    """Type every column of ``raw`` (the concatenated string frames of one game), reject
    what does not parse, and return (table of accepted rows, rejects).

    A round's fields repeat on each of its hand rows, so round-level columns are parsed once
    per distinct value and broadcast; their dictionary codes are kept (``HandTable.codes``)
    to check that the rows of a round agree."""
    columns = columns_of(game)
    df = pd.DataFrame({"_file": raw["_file"].to_numpy(), "_line": raw["_line"].to_numpy(np.int64),
                       "_record": raw["_record"].to_numpy(np.int64)})
    matrices: dict[str, CardMatrix] = {}
    codes: dict[str, np.ndarray] = {}
    problems: list[tuple[np.ndarray, str, str]] = []
    for col in columns:
        arrow = _arrow_strings(raw[col.name])
        index = None
        if col.round_level:
            encoded = pc.dictionary_encode(arrow)
            index = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
            codes[col.name] = index
            arrow = encoded.dictionary.cast(pa.large_string())
        value, found = _type_column(col, arrow, letters)
        if index is not None:
            value = _broadcast(value, index)
            found = [(mask[index], f, r) for mask, f, r in found]
        problems.extend(found)
        if isinstance(value, CardMatrix):
            matrices[col.name] = value
        else:
            df[col.name] = value
    table = HandTable(df=df, matrices=matrices, codes=codes)
    if "_bad" not in raw.columns:
        return table, collect_rejects(df, problems)
    # A CSV row with the wrong number of fields (marked by the reader): rejected for that,
    # with its text, and for nothing else (its fields may be shifted or cut off).
    bad_text = raw["_bad"].to_numpy(dtype=object)
    forced = bad_text != ""
    if not forced.any():
        return table, collect_rejects(df, problems)
    problems = [(mask & ~forced, f, r) for mask, f, r in problems]
    idx = np.flatnonzero(forced)
    structural = _rejects(df["_file"].to_numpy()[idx], df["_line"].to_numpy()[idx], "", "reject.bad_fields",
                          bad_text[idx].astype(object), row=idx)
    return table, pd.concat([structural, collect_rejects(df, problems)], ignore_index=True)


def _broadcast(value, index: np.ndarray):
    if isinstance(value, CardMatrix):
        return CardMatrix(cards=value.cards[index], count=value.count[index], bad=value.bad[index])
    if isinstance(value, pd.Series):
        return value.take(index).reset_index(drop=True)
    return value[index]


def _type_column(col: Column, arrow: pa.Array, letters: str):
    """(typed values, [(mask, field, reason)]) of one column."""
    found: list[tuple[np.ndarray, str, str]] = []
    blank = np.asarray(pc.equal(pc.utf8_trim_whitespace(arrow), "").to_numpy(zero_copy_only=False), bool)
    if col.required and col.kind != Kind.ACTIONS:
        found.append((blank, col.name, "reject.missing"))
    if col.kind == Kind.TEXT:
        text = pc.utf8_trim_whitespace(arrow)
        nul = np.asarray(pc.match_substring(text, "\x00").to_numpy(zero_copy_only=False), bool)
        found.append((nul, col.name, "reject.bad_text"))
        return pd.Series(pd.arrays.ArrowStringArray(text)), found
    if col.kind == Kind.INT:
        ints, bad = _parse_ints(arrow, blank)
        found.append((bad, col.name, "reject.bad_int"))
        return ints, found
    if col.kind in (Kind.MONEY, Kind.SIGNED_MONEY):
        cents, bad = parse_money(arrow, signed=col.kind == Kind.SIGNED_MONEY)
        if col.kind == Kind.MONEY:
            negative = np.asarray(pc.starts_with(pc.utf8_trim_whitespace(arrow), "-")
                                  .to_numpy(zero_copy_only=False), bool)
            found.append((negative, col.name, "reject.negative_amount"))
            bad &= ~negative
        found.append((bad & ~blank, col.name, "reject.bad_amount"))
        return cents, found
    if col.kind == Kind.CARDS:
        m = parse_cards(arrow, col.width)
        found.append((m.bad & ~blank, col.name, "reject.bad_cards"))
        return m, found
    if col.kind == Kind.ACTIONS:
        letter_codes, bad = _letter_matrix(arrow, col.width, letters)
        found.append((bad, col.name, "reject.bad_actions"))
        count = (letter_codes >= 0).sum(axis=1).astype(np.int8)
        return CardMatrix(cards=letter_codes, count=count, bad=bad), found
    if col.kind == Kind.TIME:
        parsed, bad = _time_column(pd.Series(pd.arrays.ArrowStringArray(arrow)))
        found.append((bad & ~blank, col.name, "reject.bad_time"))
        return parsed, found
    raise ValueError(f"unknown column kind {col.kind!r}")


def _arrow_strings(values: pd.Series) -> pa.LargeStringArray:
    """The column as an Arrow string array (zero-copy for pandas' Arrow-backed strings)."""
    try:
        arr = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        arr = pa.array(values.astype(str).to_numpy(dtype=object))
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.large_string())
    return pc.fill_null(arr, "")


def _parse_ints(arrow: pa.Array, blank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Small whole numbers (seat, hand); blank gives -1. Bad = not a whole number in
    0..10000."""
    try:  # the clean column: one cast kernel
        values = pc.cast(pc.if_else(pa.array(blank), "-1", arrow), pa.int64()).to_numpy(zero_copy_only=False)
        ok = ~blank & (values >= 0)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        text = pc.utf8_trim_whitespace(arrow)
        ok = np.asarray(pc.match_substring_regex(text, r"^[0-9]{1,5}(\.0+)?$").to_numpy(zero_copy_only=False), bool)
        digits = pc.replace_substring_regex(text, r"\.0+$", "")
        values = pc.cast(pc.if_else(pa.array(ok), digits, "-1"), pa.int64()).to_numpy(zero_copy_only=False)
    bad = (~ok & ~blank) | (values > 10_000)
    return np.where(ok & ~bad, values, -1).astype(np.int16), bad


def collect_rejects(df: pd.DataFrame, problems) -> pd.DataFrame:
    """Rejects from (mask, field, reason-key) triples over the rows of ``df``."""
    parts = []
    files, lines = df["_file"].to_numpy(), df["_line"].to_numpy()
    for mask, field_, reason in problems:
        idx = np.flatnonzero(mask)
        if len(idx):
            parts.append(_rejects(files[idx], lines[idx], field_, reason, row=idx))
    return pd.concat(parts, ignore_index=True) if parts else EMPTY_REJECTS.copy()


def _letter_matrix(arrow: pa.Array, width: int, letters: str) -> tuple[np.ndarray, np.ndarray]:
    """One code per letter (its index in ``letters``), -1 padded; bad = unknown letter or
    more letters than ``width``."""
    text = pc.utf8_upper(pc.replace_substring_regex(arrow, r"[\s,]+", ""))
    text = text.cast(pa.large_string())
    n = len(text)
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64, count=n + 1, offset=text.offset * 8)
    buf = text.buffers()[2]
    raw = np.frombuffer(buf, dtype=np.uint8) if buf is not None else np.zeros(0, np.uint8)
    data = np.concatenate([raw[: offsets[-1]], np.zeros(width + 1, np.uint8)])
    length = offsets[1:] - offsets[:-1]
    lut = np.full(256, -1, np.int8)
    for i, ch in enumerate(letters):
        lut[ord(ch)] = i
    k = np.arange(width)
    present = k[None, :] < length[:, None]
    codes = lut[data[offsets[:-1, None] + k[None, :]]]
    bad = (length > width) | (present & (codes < 0)).any(axis=1)
    codes = np.where(present & ~bad[:, None], codes, -1).astype(np.int8)
    return codes, bad
