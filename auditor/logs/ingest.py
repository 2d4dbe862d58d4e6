"""Typing and validating the string rows of export files (read by ``sources``).

Every record read is either audited or rejected with its file, line, field and reason:
nothing is dropped. A record is a CSV or Parquet row (one hand) or a JSONL line (one round).
When any record of a round is rejected, the round's other records are rejected too (a round
is audited whole or not at all), each naming the line that caused it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..arrowtext import as_large_string, buffers
from ..cards import MIN_WIDTH, CardMatrix, parse_cards, widen
from ..compiled import kernel
from ..money import parse_money, too_large
from ..rowwise import columns_frame, count_per_row
from .schema import Column, Kind, columns_of

__all__ = ["HandTable", "detect_game", "type_rows", "collect_rejects", "same_text", "run_coded",
           "reader_fault", "LIMA_OFFSET"]

LIMA_OFFSET = "-05:00"


@dataclass
class HandTable:
    """Typed hands of one game: scalar columns in ``df``, card and action matrices beside it,
    row-aligned."""

    df: pd.DataFrame
    matrices: dict[str, CardMatrix]
    # Round-level columns as read: the run of equal neighbouring values each row is in, and
    # the text of each run (see ``_runs``).
    runs: dict[str, tuple[np.ndarray, pa.LargeStringArray]] = field(default_factory=dict)
    # Where each row was in the chunk as read, files in their reading order, where the rows
    # are no longer so (the audit's selection, ``engine._select``); None: they are.
    read_at: np.ndarray | None = None

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


def detect_game(columns) -> str | None:
    """The game whose required columns a file has (None when no game's, or several's)."""
    found = [g for g in _games() if {c.name for c in columns_of(g) if c.required} <= set(columns)]
    return found[0] if len(found) == 1 else None


def _games():
    from .schema import ROUND_MODELS

    return list(ROUND_MODELS)


def _json_scalar_to_str(value) -> str:
    if value is None:
        return ""
    # A boolean, an object, a list, NaN or Infinity (which Python's JSON reads as floats) is no
    # valid value of any field: marked (``JSON_MARK``), and rejected as such (``_marked``).
    if isinstance(value, (bool, dict, list)) or (isinstance(value, float) and not np.isfinite(value)):
        if type(value) is float:  # (not the reader's NaN or Infinity: a number beyond a float's range)
            return BEYOND_FLOAT
        return JSON_MARK + json.dumps(value)[:80]
    return str(value)


# Text that no export's field begins with: a CSV field that begins with a NUL byte is bad text
# (``reject.bad_text``), not a JSON value.
JSON_MARK = "\x00json\x00"
# A JSON number beyond a float's range (``1e400``), which Python reads as infinity: the JSONL
# reader gives it as its line writes it (``sources._beyond_floats``).
BEYOND_FLOAT = JSON_MARK + "\x00beyond"


# --- typing and validation -------------------------------------------------------------

# A round's time must fall in these years: a time in year 1 or 9999 is a corrupt value, not a
# round, and would overflow the arithmetic of dates and zones downstream.
TIME_WINDOW = (pd.Timestamp("1900-01-01", tz="UTC"), pd.Timestamp("2200-01-01", tz="UTC"))


def time_column(arrow: pa.LargeStringArray):
    """(UTC times, bad). Times that all carry a zone are read by Arrow's strict ISO 8601
    cast in one kernel; any other column (a time without zone is Lima time, blanks around
    a value) takes the careful path, which can also say which values are bad. A time
    outside ``TIME_WINDOW`` is bad (and NaT)."""
    parsed = None
    if len(arrow) and _all_zoned(arrow):
        try:
            parsed = pc.cast(arrow, pa.timestamp("us", tz="UTC")).to_pandas()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    if parsed is None:
        text = pd.Series(pd.arrays.ArrowStringArray(arrow)).str.strip()
        has_zone = text.str.contains(r"(?:Z|[+-]\d\d:?\d\d)$", regex=True)
        text = text.where(has_zone, text + LIMA_OFFSET)
        parsed = pd.to_datetime(text, utc=True, errors="coerce", format="ISO8601")
    outside = ((parsed < TIME_WINDOW[0]) | (parsed >= TIME_WINDOW[1])).to_numpy()
    if outside.any():
        parsed = parsed.mask(outside)
    return parsed, parsed.isna().to_numpy()


def _all_zoned(arrow: pa.LargeStringArray) -> bool:
    """Every value ends with a zone: ``Z``, ``±hh:mm`` or ``±hhmm``."""
    offsets, data = buffers(arrow)
    end = offsets[1:]
    if (np.diff(offsets) < 6).any():
        return False
    c6, c5, c3 = data[end - 6], data[end - 5], data[end - 3]
    sign6, sign5 = (c6 == 43) | (c6 == 45), (c5 == 43) | (c5 == 45)
    return bool(((data[end - 1] == 90) | (sign6 & (c3 == 58)) | sign5).all())


def type_rows(raw: pa.Table, game: str, letters: str = "") -> tuple[HandTable, pd.DataFrame]:
    """Type every column of ``raw`` (the concatenated string batches of one game, see
    ``sources.batch_schema``), reject what does not parse, and return (table of accepted
    rows, rejects).

    A round's fields repeat on each of its hand rows, so round-level columns are parsed once
    per run of equal neighbours and broadcast; the runs are kept (``HandTable.runs``) to
    check that the rows of a round agree."""
    columns = columns_of(game)
    typed = {"_file": raw.column("_file").to_pandas(), "_line": raw.column("_line").to_numpy(),
             "_record": raw.column("_record").to_numpy(), "_absent": raw.column("_absent").to_numpy()}
    matrices: dict[str, CardMatrix] = {}
    runs: dict[str, tuple[np.ndarray, pa.LargeStringArray]] = {}
    problems: list[tuple[np.ndarray, str, str]] = []
    for col in columns:
        column = raw.column(col.name)
        if col.round_level or pa.types.is_dictionary(column.type):
            # Typed once per run (a round's field) or per dictionary entry (a Parquet file's
            # repeating hand field), then given to the rows.
            index, arrow = _runs(column) if col.round_level else _entries(column)
            if col.round_level:
                runs[col.name] = index, arrow
            value, found = _type_column(col, arrow, letters)
            value = _broadcast(value, index)
            found = [(mask[index] if mask.any() else np.zeros(len(index), bool), f, r) for mask, f, r in found]
        else:
            value, found = _type_column(col, as_large_string(column), letters)
        problems.extend(found)
        if isinstance(value, CardMatrix):
            matrices[col.name] = value
        else:
            typed[col.name] = value
    # A record of another game is rejected for that alone: its fields are not this game's to
    # judge (a roulette round's cards are no Let It Ride card finding).
    other = _of_another_game(raw.column("game"), game)
    if other.any():
        problems = [(mask & ~other, f, r) for mask, f, r in problems]
    problems.append((other, "game", "reject.other_game"))
    # Each column its own block, as typed (pandas would otherwise copy the columns of a dtype
    # into one 2-D block, or take longer inserting them one by one).
    df = columns_frame(typed)
    table = HandTable(df=df, matrices=matrices, runs=runs)
    # A CSV row with the wrong number of fields, or a JSONL round whose hands cannot be read
    # (marked by the reader, see ``reader_fault``): rejected for that, with its text or the
    # reader's detail, and for nothing else (its fields may be shifted or cut off). Likewise a
    # line that repeats the header (exports joined into one file): no round's data.
    cut = pc.greater(pc.binary_length(raw.column("_bad")), 0).to_numpy()
    header = _names_itself(df["table_id"], "table_id") & _names_itself(df["round_id"], "round_id")
    forced = cut | header
    if not forced.any():
        return table, _typing_rejects(df, raw, problems)
    problems = [(mask & ~forced, f, r) for mask, f, r in problems]
    idx = np.flatnonzero(cut)
    faults = [_fault_of(text) for text in raw.column("_bad").take(pa.array(idx)).to_pylist()]
    structural = _rejects(_files_at(df, idx), df["_line"].to_numpy()[idx], [f for f, _, _ in faults],
                          [r for _, r, _ in faults], [d for _, _, d in faults], row=idx)
    idx = np.flatnonzero(header & ~cut)
    headers = _rejects(_files_at(df, idx), df["_line"].to_numpy()[idx], "", "reject.header_repeated", row=idx)
    return table, pd.concat([structural, headers, _typing_rejects(df, raw, problems)], ignore_index=True)


def reader_fault(field_: str, reason: str, detail: str) -> str:
    """A record's ``_bad`` for a fault the reader found (a JSONL hand that is not an object):
    the record is rejected for it alone, as a CSV row with the wrong number of fields is for
    that (whose ``_bad`` is its text, never starting with a NUL)."""
    return f"\x00{field_}\x00{reason}\x00{detail}"


# Excel's separator hint ("sep=;"), which a spreadsheet writes as the first line of an export.
SEPARATOR_HINT = re.compile(r'\ufeff?"?sep=([^\r\n])"?\r?\n?', flags=re.IGNORECASE)


def _fault_of(bad: str) -> tuple[str, str, str]:
    """(field, reason, detail) of a record's ``_bad``. A separator hint after the file's
    first line is another export's (two joined into one file): no round's data."""
    parts = bad.split("\x00", 3)
    if len(parts) == 4 and not parts[0] and parts[2].startswith("reject."):
        return parts[1], parts[2], parts[3]
    if SEPARATOR_HINT.fullmatch(bad):
        return "", "reject.separator_line_repeated", bad
    return "", "reject.bad_fields", bad


def _of_another_game(named: pa.ChunkedArray, game: str) -> np.ndarray:
    """Records that name a game other than the file's (``game`` in the log format is the
    game's id, or absent): a document of another game is not audited under this game's
    directive, even where its fields would fit it. Each distinct name is looked at once."""
    column = named.combine_chunks()  # (codes in every batch: sources.batch_schema)
    names = [(v or "").strip().lower() for v in column.dictionary.to_pylist()]
    other = np.array([name not in ("", game) for name in names] + [False])
    if not other.any():
        return np.zeros(len(column), bool)
    return other[column.indices.fill_null(len(names)).to_numpy()]


def _names_itself(values: pd.Series, name: str) -> np.ndarray:
    """Rows whose value is the column's own name, as a header spells it (a byte-order mark
    before it, as a spreadsheet writes one at the start of each export, and any case)."""
    if isinstance(values.dtype, pd.CategoricalDtype):  # each distinct value looked at once
        named = values.cat.categories.str.lstrip("\ufeff").str.lower() == name
        codes = values.cat.codes.to_numpy()
        return np.append(np.asarray(named, bool), False)[codes]  # (code -1, a missing value: no)
    return (values.str.lstrip("\ufeff").str.lower() == name).to_numpy(dtype=bool, na_value=False)


def _typing_rejects(df: pd.DataFrame, raw: pa.Table, problems) -> pd.DataFrame:
    """Rejects of the values that did not type (``problems``, each naming its column), with
    the value as the log gives it, cut at 80 characters, so that the report shows what was
    wrong (a blank value has nothing to show)."""
    rejects = collect_rejects(df, problems)
    shown = (rejects["reason"] != "reject.missing").to_numpy()
    for name in pd.unique(rejects["field"][shown]):
        at = np.flatnonzero(shown & (rejects["field"] == name).to_numpy())
        text = _text_at(raw.column(name), rejects["_row"].to_numpy()[at])
        rejects.loc[at, "detail"] = [v.removeprefix(JSON_MARK)[:80] if v is not None else "" for v in text]
    return rejects


def _text_at(column: pa.ChunkedArray, rows: np.ndarray) -> list[str | None]:
    """The text of ``column`` at ``rows``, taken from each of its arrays apart: a take over
    the whole column first joins its arrays, and a round field's dictionaries with them
    (6 ms for 160 rows of a 360,000-row chunk, against 0.3 ms)."""
    ends = np.cumsum([len(chunk) for chunk in column.chunks], dtype=np.int64)
    of_row = np.searchsorted(ends, rows, side="right")
    text: list[str | None] = [None] * len(rows)
    for k in np.unique(of_row).tolist():
        at = np.flatnonzero(of_row == k)
        chunk = column.chunk(k)
        values = chunk.take(pa.array(rows[at] - (ends[k] - len(chunk)))).cast(pa.large_string()).to_pylist()
        for i, value in zip(at.tolist(), values):
            text[i] = value
    return text


def _broadcast(value, index: np.ndarray):
    if isinstance(value, CardMatrix):
        return value.take(index)
    if isinstance(value, pd.Series) and pd.api.types.is_string_dtype(value.dtype):
        # Text repeated on a round's rows: a categorical whose categories sort like the text,
        # so rows hold small codes (cheap to reorder and compare), not strings.
        entry_codes, categories = pd.factorize(value, sort=True)
        return pd.Series(pd.Categorical.from_codes(entry_codes[index], categories=categories))
    if isinstance(value, pd.Series):
        return value.take(index).reset_index(drop=True)
    return value[index]


def _type_column(col: Column, arrow: pa.Array, letters: str):
    """(typed values, [(mask, field, reason)]) of one column. A JSON value of a kind no field
    takes (``_json_scalar_to_str``) is rejected for that alone."""
    value, found = _typed(col, arrow, letters)
    marked = _marked(arrow)
    if marked is None:
        return value, found
    return value, [(mask & ~marked, f, r) for mask, f, r in found] + [(marked, col.name, "reject.json_type")]


def _marked(arrow: pa.Array) -> np.ndarray | None:
    """Values that start with ``JSON_MARK``; None when none can (the text holds no NUL byte)."""
    if not _holds_nul(arrow):
        return None
    marked = np.asarray(pc.starts_with(arrow, JSON_MARK).to_numpy(zero_copy_only=False), bool)
    return marked if marked.any() else None


def _holds_nul(arr: pa.LargeStringArray) -> bool:
    """Whether any value's text holds a NUL byte (one pass over the bytes, not value by value)."""
    offsets, data = buffers(arr)
    body = data[offsets[0]:offsets[-1]]
    return bool(len(body)) and body.min() == 0


_ANY_CARDS = 416  # eight decks: more cards than any field of a round could hold


def _typed(col: Column, arrow: pa.Array, letters: str):
    found: list[tuple[np.ndarray, str, str]] = []
    blank = _blank(arrow)
    if col.required and col.kind != Kind.ACTIONS:
        found.append((blank, col.name, "reject.missing"))
    if col.kind == Kind.TEXT:
        text, nul = _trimmed(arrow)
        found.append((nul, col.name, "reject.bad_text"))
        if col.max_length is not None:
            found.append((pc.greater(pc.utf8_length(text), col.max_length).to_numpy(zero_copy_only=False),
                          col.name, "reject.too_long"))
        return pd.Series(pd.arrays.ArrowStringArray(text)), found
    if col.kind == Kind.CHOICE:
        text, nul = _trimmed(arrow)
        found.append((nul, col.name, "reject.bad_text"))
        return _choice_codes(text, col.choices), found
    if col.kind == Kind.INT:
        ints, bad = _parse_ints(arrow, blank)
        found.append((bad, col.name, "reject.bad_int"))
        return ints, found
    if col.kind in (Kind.MONEY, Kind.SIGNED_MONEY):
        cents, bad = parse_money(arrow, signed=col.kind == Kind.SIGNED_MONEY)
        if bad.any():  # why, read from the text of the bad cells only
            idx = np.flatnonzero(bad)
            text = pc.utf8_trim_whitespace(arrow.take(pa.array(idx)))
            if col.kind == Kind.MONEY:
                negative = np.zeros(len(bad), bool)
                negative[idx] = pc.starts_with(text, "-").to_numpy(zero_copy_only=False)
                found.append((negative, col.name, "reject.negative_amount"))
                bad &= ~negative
            # (an amount the audit's int64 arithmetic does not take: money.LARGEST_CENTS)
            large = np.zeros(len(bad), bool)
            large[idx] = too_large(text)
            large &= bad
            found.append((large, col.name, "reject.amount_too_large"))
            bad &= ~large
        found.append((bad & ~blank, col.name, "reject.bad_amount"))
        return cents, found
    if col.kind == Kind.CARDS:
        m = parse_cards(arrow, col.width)
        bad = m.bad & ~blank
        if bad.any():
            # Cards of the deck, more than the field holds (six for a hand of three): a field
            # the format cannot take, not a card the deck lacks (the round's ``…-CARDS`` data
            # finding says which of the two it is).
            idx = np.flatnonzero(bad)
            over = np.zeros(len(bad), bool)
            over[idx[~parse_cards(arrow.take(pa.array(idx)), _ANY_CARDS).bad]] = True
            found.append((over, col.name, "reject.too_many_cards"))
            bad &= ~over
        found.append((bad, col.name, "reject.bad_cards"))
        return m, found
    if col.kind == Kind.ACTIONS:
        letter_codes, bad, tally = _letter_matrix(arrow, col.width, letters)
        found.append((bad, col.name, "reject.bad_actions"))
        count = count_per_row(letter_codes >= 0, np.int8)
        return CardMatrix(cards=letter_codes, count=count, bad=bad, tally=tally), found
    if col.kind == Kind.TIME:
        parsed, bad = time_column(arrow)
        found.append((bad & ~blank, col.name, "reject.bad_time"))
        return parsed, found
    raise ValueError(f"unknown column kind {col.kind!r}")


def _runs(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.LargeStringArray]:
    """(run of each row, text of each run) of a round-level column: a round's rows are
    contiguous and repeat its fields, so its values are typed once per run of equal
    neighbours, not once per row. The reader gives such columns run-encoded (``run_coded``):
    neighbours with the same entry are one run. (Equal text under two entries makes two
    runs, as at the edge of two blocks: a run is never longer than the stretch of equal
    values, which is all that typing once per run needs.)"""
    chunks = [chunk for chunk in column.chunks if len(chunk)]
    if not chunks:
        return np.zeros(0, np.int64), pa.array([], pa.large_string())
    entries = [chunk.indices.to_numpy(zero_copy_only=False) for chunk in chunks]
    # Usually each array's entries are in order, one per run (as the split and ``run_coded``
    # number them): then the entries are the runs, and their texts a slice of each
    # dictionary. Checked for all arrays at once (a chunk of a folder of small files holds
    # hundreds), numbering each array's runs on from the last one's.
    lengths = np.array([len(e) for e in entries])
    firsts = np.array([e[0] for e in entries], np.int64)
    used = np.array([e[-1] for e in entries], np.int64) - firsts + 1
    bases = np.cumsum(used) - used
    run = np.concatenate(entries).astype(np.int64) + np.repeat(bases - firsts, lengths)
    step = np.diff(run)
    if step.min(initial=0) >= 0 and step.max(initial=0) <= 1:
        texts = [chunk.dictionary.slice(f, n) for chunk, f, n in zip(chunks, firsts.tolist(), used.tolist())]
        return run, as_large_string(pa.chunked_array(texts, pa.large_string()))
    # Else (rows reordered: rare) each array's runs are found from its entries.
    runs, texts, base = [], [], 0
    for chunk, entry in zip(chunks, entries):
        run, text = _entry_runs(chunk, entry)
        runs.append(run + base)
        texts.append(text)
        base += len(text)
    return np.concatenate(runs), as_large_string(pa.chunked_array(texts, pa.large_string()))


def _entry_runs(values: pa.DictionaryArray, entries: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """(run of each value, text of each run) of a dictionary-encoded array whose entries
    (``entries``, its indices) are given: a run is a stretch of one entry."""
    run, starts = _equal_ints(entries)
    return run, values.dictionary.take(pa.array(entries[starts]))


def _entries(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.LargeStringArray]:
    """(entry of each row, text of each entry) of a dictionary-encoded column, the entries of
    its arrays numbered on from one array to the next."""
    chunks = [chunk for chunk in column.chunks if len(chunk)]
    if not chunks:
        return np.zeros(0, np.int64), pa.array([], pa.large_string())
    sizes = np.array([len(chunk.dictionary) for chunk in chunks], np.int64)
    bases = np.cumsum(sizes) - sizes
    index = np.concatenate([chunk.indices.to_numpy().astype(np.int64) + base for chunk, base in zip(chunks, bases)])
    return index, as_large_string(pa.chunked_array([chunk.dictionary for chunk in chunks], pa.large_string()))


def run_coded(values: pa.Array | pa.ChunkedArray) -> pa.DictionaryArray:
    """A column of text run-encoded: one dictionary entry per run of equal neighbours (of
    neighbours with the same entry, for text already dictionary-encoded, as Parquet keeps it)."""
    if pa.types.is_dictionary(values.type):
        if values.null_count:
            values = pc.fill_null(values, "")
        run, text = _entry_runs(values, values.indices.to_numpy())
        return pa.DictionaryArray.from_arrays(pa.array(run.astype(np.int32)), as_large_string(text), safe=False)
    arr = as_large_string(values)
    run, starts = _equal_neighbours(*buffers(arr))
    return pa.DictionaryArray.from_arrays(pa.array(run.astype(np.int32)), arr.take(pa.array(starts)), safe=False)


@kernel
def _equal_ints(values):
    """(run of each value, first value of each run): a run is a stretch of equal values."""
    n = len(values)
    run, starts = np.empty(n, np.int64), np.empty(n, np.int64)
    runs = 0
    for i in range(n):
        if i == 0 or values[i] != values[i - 1]:
            starts[runs] = i
            runs += 1
        run[i] = runs - 1
    return run, starts[:runs]


@kernel
def _equal_neighbours(offsets, data):
    """(run of each value, first value of each run): a run is a stretch of equal values."""
    n = len(offsets) - 1
    run, starts = np.empty(n, np.int64), np.empty(n, np.int64)
    runs = 0
    for i in range(n):
        same = i > 0 and offsets[i] - offsets[i - 1] == offsets[i + 1] - offsets[i]
        if same:
            for k in range(offsets[i + 1] - offsets[i]):
                if data[offsets[i - 1] + k] != data[offsets[i] + k]:
                    same = False
                    break
        if not same:
            starts[runs] = i
            runs += 1
        run[i] = runs - 1
    return run, starts[:runs]


def same_text(runs: tuple[np.ndarray, pa.LargeStringArray], other: np.ndarray) -> np.ndarray:
    """Whether each row of a round-level column holds the same text as row ``other`` (one
    per row)."""
    run, text = runs
    same = run == run[other]
    check = np.flatnonzero(~same)  # equal text may sit in two runs (A B A, or a round's rows apart)
    if len(check):
        a, b = (text.take(pa.array(run[r])) for r in (check, other[check]))
        same[check] = pc.equal(a, b).to_numpy(zero_copy_only=False)
    return same


def _choice_codes(arrow: pa.Array, choices: tuple[str, ...]) -> np.ndarray:
    """The index of each value in ``choices`` (a missing value is the blank one), -1 for a
    value that is none of them: the game's validation rejects those."""
    words = pa.array(choices, pa.large_string())
    codes = _word_index(*buffers(arrow), *buffers(words))
    if arrow.null_count:
        codes[arrow.is_null().to_numpy(zero_copy_only=False)] = choices.index("") if "" in choices else -1
    return codes


@kernel
def _word_index(offsets, data, word_offsets, words):
    codes = np.full(len(offsets) - 1, -1, np.int8)
    for i in range(len(codes)):
        at, size = offsets[i], offsets[i + 1] - offsets[i]
        for w in range(len(word_offsets) - 1):
            if word_offsets[w + 1] - word_offsets[w] != size:
                continue
            k = 0
            while k < size and data[at + k] == words[word_offsets[w] + k]:
                k += 1
            if k == size:
                codes[i] = w
                break
    return codes


def _parse_ints(arrow: pa.Array, blank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Small whole numbers (seat, hand); blank gives -1. Bad = not a whole number in
    0..10000. Values of one to five plain digits are read from the buffer; only the others
    (blanks around, "2.0", text) take the careful path, value by value."""
    offsets, data = buffers(arrow)
    values, ok = _plain_ints(offsets, data)
    careful = np.flatnonzero(~ok & ~blank)
    if len(careful):
        text = pc.utf8_trim_whitespace(arrow.take(pa.array(careful)))
        fine = np.asarray(pc.match_substring_regex(text, r"^[0-9]{1,5}(\.0+)?$").to_numpy(zero_copy_only=False), bool)
        digits = pc.replace_substring_regex(text, r"\.0+$", "")
        ok[careful] = fine
        values[careful] = pc.cast(pc.if_else(pa.array(fine), digits, "-1"), pa.int64()).to_numpy(zero_copy_only=False)
    bad = (~ok & ~blank) | (ok & (values > 10_000))
    return np.where(ok & ~bad, values, -1).astype(np.int16), bad


@kernel
def _plain_ints(offsets, data):
    """(value, plain) of each value of one to five digits (0, False elsewhere)."""
    n = len(offsets) - 1
    values, plain = np.zeros(n, np.int64), np.zeros(n, np.bool_)
    for i in range(n):
        at, end = offsets[i], offsets[i + 1]
        if not 1 <= end - at <= 5:
            continue
        value, k = 0, at
        while k < end and 48 <= data[k] <= 57:
            value = value * 10 + (data[k] - 48)
            k += 1
        if k == end:
            values[i], plain[i] = value, True
    return values, plain


def collect_rejects(df: pd.DataFrame, problems) -> pd.DataFrame:
    """Rejects from (mask, field, reason-key) triples over the rows of ``df``."""
    parts = []
    lines = df["_line"].to_numpy()
    for mask, field_, reason in problems:
        idx = np.flatnonzero(mask)
        if len(idx):
            parts.append(_rejects(_files_at(df, idx), lines[idx], field_, reason, row=idx))
    return pd.concat(parts, ignore_index=True) if parts else EMPTY_REJECTS.copy()


def _files_at(df: pd.DataFrame, idx: np.ndarray) -> np.ndarray:
    """The file names of the rows at ``idx`` (only those become Python strings)."""
    return df["_file"].array.take(idx).to_numpy(dtype=object)


def _trimmed(arr: pa.LargeStringArray) -> tuple[pa.LargeStringArray, np.ndarray]:
    """(the values without surrounding whitespace, which values hold a NUL). Only values
    that start or end with a blank, a control or a non-ASCII byte can change when trimmed,
    so only those few are trimmed; a buffer without a NUL byte is not searched value by value."""
    offsets, data = buffers(arr)
    nul = np.zeros(len(arr), bool)
    if _holds_nul(arr):
        nul = np.asarray(pc.match_substring(arr, "\x00").to_numpy(zero_copy_only=False), bool)
    if offsets[0] == offsets[-1]:
        return arr, nul
    first = data[np.minimum(offsets[:-1], len(data) - 1)]
    last = data[np.maximum(offsets[1:] - 1, 0)]
    edge = (np.diff(offsets) > 0) & ((first <= 32) | (first >= 0x80) | (last <= 32) | (last >= 0x80))
    if not edge.any():
        return arr, nul
    trimmed = pc.utf8_trim_whitespace(arr.take(pa.array(np.flatnonzero(edge))))
    return as_large_string(pc.replace_with_mask(arr, pa.array(edge), trimmed)), nul


def _blank(arr: pa.LargeStringArray) -> np.ndarray:
    """Empty or whitespace-only values. Only values that start with a blank or a non-ASCII
    byte can be whitespace-only, so only those few are trimmed."""
    blank, maybe = _blank_or_maybe(*buffers(arr))
    maybe = np.flatnonzero(maybe)
    if len(maybe):
        blank[maybe] = pc.equal(pc.utf8_trim_whitespace(arr.take(pa.array(maybe))), "").to_numpy(
            zero_copy_only=False)
    return blank


@kernel
def _blank_or_maybe(offsets, data):
    """(empty, starts with a blank, a control or a non-ASCII byte): Arrow trims 0x1C-0x1F and
    Unicode spaces too."""
    n = len(offsets) - 1
    blank, maybe = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    for i in range(n):
        if offsets[i] == offsets[i + 1]:
            blank[i] = True
        else:
            maybe[i] = data[offsets[i]] <= 32 or data[offsets[i]] >= 0x80
    return blank, maybe


def _letter_matrix(arrow: pa.Array, width: int, letters: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes, bad, tally): one code per letter (its index in ``letters``, either case), -1
    padded; bad = unknown letter or more letters than ``width``; how many of each letter
    each value holds, (letters, N) (none in a bad value). Blanks and commas between letters
    are allowed: the few values holding anything but letters are cleaned and read again."""
    lut = np.full(256, -1, np.int8)
    for i, ch in enumerate(letters):
        lut[ord(ch)] = lut[ord(ch.lower())] = i
    codes, bad, odd, tally = _letter_codes(arrow, width, lut, len(letters))
    retry = np.flatnonzero(odd)
    if len(retry):
        clean = pc.utf8_upper(pc.replace_substring_regex(arrow.take(pa.array(retry)), r"[\s,]+", ""))
        again, bad[retry], _, tally[:, retry] = _letter_codes(clean, width, lut, len(letters))
        wide = max(codes.shape[1], again.shape[1])
        codes = widen(codes, wide)
        codes[retry] = widen(again, wide)
    return codes, bad, tally


def _letter_codes(text: pa.LargeStringArray, width: int, lut: np.ndarray, letters: int):
    """(codes, bad, odd, tally): odd = the value holds a byte that is no letter of ``lut``."""
    offsets, data = buffers(text)
    return _letter_rows(offsets, data, width, MIN_WIDTH, lut, letters)


@kernel
def _letter_rows(offsets, data, width, min_width, lut, letters):
    n = len(offsets) - 1
    bad, odd = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    tally = np.zeros((letters, n), np.int16)
    # As wide as the longest value (a sixteen-letter limit costs nothing when hands have four).
    wide = min_width
    for i in range(n):
        length = offsets[i + 1] - offsets[i]
        if length > width:
            bad[i] = odd[i] = True  # a long value may hold separators: cleaned, it may fit
        else:
            wide = max(wide, length)
    wide = min(width, wide)
    codes = np.full((n, wide), -1, np.int8)
    for i in range(n):
        at, end = offsets[i], offsets[i + 1]
        for k in range(end - at):
            if lut[data[at + k]] < 0:
                bad[i] = odd[i] = True
                break
        if bad[i]:
            continue
        for k in range(end - at):
            code = lut[data[at + k]]
            codes[i, k] = code
            tally[code, i] += 1
    return codes, bad, odd, tally
