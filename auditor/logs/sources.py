"""Export files as streams of string batches, so that a log larger than memory is read in
pieces. Each batch holds whole rounds: the rows of a file's last round in a batch are held
back and start the next batch (a round's rows must be contiguous in a file, as table systems
export them). Every record read is counted; records that cannot even be split into fields
(a JSON line that does not parse) are rejected here with their line number; a CSV row with
the wrong number of fields is passed on with its fields as far as they go and a mark, so that
the ingest rejects it and, with it, the rest of its round.

Encodings and dialects (``docs/log-format.md``, "Accepted encodings and dialects"): one pass
over the bytes tells whether the text is UTF-8 (a BOM is allowed), else Windows-1252
(Latin-1), else neither (an error that names ``--encoding``); UTF-16 is recognised by its
BOM. A gzip stream is checked whole in that pass too. A CSV file whose first bytes are plain
ASCII (as exports are) is read at once, as UTF-8, while that pass runs beside the audit; the
first block that is not ASCII waits for its verdict (``Source._settle``). The CSV separator
is read off the header line (``,`` ``;`` tab ``|``): the one that splits it into known column
names. A decoding or separator other than UTF-8 and ``,`` is noted in the input summary;
``encoding`` and ``delimiter`` override the detection.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import dataclasses
import functools
import gzip
import hashlib
import io
import json
import os
import re
import zlib
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pv

from ..arrowtext import buffers
from .csvsplit import last_line_end, line_count, split_plain
from .files import (SUFFIXES, InputError, Scan, digest_job, first_line, line_at, path_text, read_failure, scan,
                    system_failure)
from .ingest import (BEYOND_FLOAT, JSON_MARK, SEPARATOR_HINT, _holds_nul, _json_scalar_to_str, _rejects, detect_game,
                     reader_fault, run_coded)
from .jsonnumbers import NUMBERS_KEPT, Number, json_of, real, whole
from .schema import Kind, columns_of, partners

__all__ = ["Source", "open_source", "csv_rows", "detected_encoding", "schema_names", "text_codec", "batch_schema",
           "absent_bits", "concat_batches", "SUFFIXES", "BATCH_ROWS", "DELIMITERS", "delimiter_option", "arrow_file"]

BATCH_ROWS = 250_000
DELIMITERS = (",", ";", "\t", "|")
_DELIMITER_NAMES = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}
_ENCODING_LABELS = {"utf-8": "UTF-8", "cp1252": "Windows-1252 (Latin-1)", "utf-16": "UTF-16"}
# The first bytes of a CSV file, read when it is opened: when they are ASCII, the file is read
# before its encoding is known (everything up to its first other byte reads the same in UTF-8
# and Windows-1252), and the pass that tells it runs with the SHA-256's, in one read of the file
# (a 1M-round log: the audit starts about 0.1 s sooner, and reads the file once less).
_HEAD = 1 << 16
_PROBE_ROWS = 4096  # of a Parquet file, to tell the columns whose values repeat
TEXT_CODES = pa.dictionary(pa.int32(), pa.large_string())


@dataclass
class Source:
    """One export file of one game. ``records_read`` and ``record_rejects`` are complete
    once ``batches()`` has been exhausted."""

    path: Path
    game: str
    kind: str  # csv | jsonl | parquet
    names: list[str]
    digest: Future  # of the file's SHA-256, computed beside the audit (see ``files.digest_job``)
    first_time: str = ""
    # (table, round) of a CSV or Parquet file's first row, as its text gives them: a file
    # that begins with the round another ends with is read right after it (``engine._ReadingOrder``).
    first_round: tuple[str, str] | None = None
    extra_columns: list[str] = field(default_factory=list)
    records_read: int = 0
    # Records that never became rows (JSONL lines that are no round), with their text's hash
    # (``_text``: a copy's lines are known for a copy's, see ``engine._GameRun.finish``).
    record_rejects: list[pd.DataFrame] = field(default_factory=list)
    encoding: str = "utf-8"  # Python codec of the text
    native: bool = True  # valid UTF-8: Arrow reads the bytes as they are
    # The encoding given (``--encoding``), or UTF-16 told by the text's byte order mark
    # (``mark``), the file found to be text in it throughout before it was read
    # (``_not_text``): no byte of it is read as another, not even a byte changed since
    # (``_not_text_since``).
    strict: bool = False
    mark: bool = False
    delimiter: str = ","
    notes: list[tuple[str, dict]] = field(default_factory=list)  # (catalogue key, params)
    # Of a CSV file read before its encoding was known (see ``_HEAD``): the pass that tells it
    # (a ``Scan``), and where the lines after the header begin.
    verdict: Future | None = None
    header_bytes: int = 0
    # Lines before a CSV file's header: Excel's separator hint ("sep=;"), blank lines (``_Top``).
    preamble: int = 0
    # The game's optional columns that a CSV or Parquet file leaves out (a JSONL document that
    # leaves out a field means its default, as the schema says). Read as their default too,
    # but marked on each row (``_absent``): where a round shows a bet whose settlement the file
    # has no column for, or the reverse, the rules that compare them are not checked.
    absent: tuple[str, ...] = ()
    # A Parquet file's columns of the log format that it names otherwise (``TABLE_ID``, see
    # ``schema_names``): the name in ``names`` -> the file's.
    stored: dict[str, str] = field(default_factory=dict)
    # The file's name as the rows, the rejects and the reports give it (``files.path_text``).
    name: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.name = path_text(self.path)

    @property
    def sha256(self) -> str:
        return self.digest.result()

    def unread(self) -> Source:
        """A copy of the source, for its file to be read again from the start, counted and
        noted afresh: taken before the source is read (its counts, notes and encoding are then
        those of its opening)."""
        return replace(self, notes=list(self.notes), record_rejects=list(self.record_rejects))

    def batches(self, rows: int = BATCH_ROWS) -> Iterator[pa.Table]:
        """Arrow tables of text with the game's columns plus _file, _line, _record and
        _bad (see ``batch_schema``), each holding whole rounds. The columns stay in Arrow:
        the ingest parses them from their buffers, so no field becomes a Python object."""
        reader = {"csv": self._csv, "jsonl": self._jsonl, "parquet": self._parquet}[self.kind]
        held: pa.Table | None = None
        for table in reader(rows):
            table = self._conform(table)
            if held is not None:
                table = concat_batches([held, table])
            cut = _last_round_start(table)
            # (not cut next to a row without readable ids; but a batch's worth held at most,
            # so that memory stays bounded in a file of such rows, rejected whole anyway)
            while 0 < cut and table.num_rows - cut < rows and (_unnamed_at(table, cut - 1) or _unnamed_at(table, cut)):
                cut = _last_round_start(table.slice(0, cut))
            held = table.slice(cut)
            if cut:
                yield table.slice(0, cut)
        if held is not None and held.num_rows:
            yield held

    @property
    def _repeated(self) -> list[int]:
        """Where the round's fields, repeated on each of its rows, are among the file's columns."""
        return [i for i, name in enumerate(self.names) if name in _round_level(self.game)]

    def _conform(self, table: pa.Table) -> pa.Table:
        n = table.num_rows
        empty = pa.LargeStringArray.from_buffers(n, pa.py_buffer(np.zeros(n + 1, np.int64)), pa.py_buffer(b""))
        columns = {"_file": _one_value(n, self.name)}
        # Every reader gives large strings (a round's fields maybe run-encoded already; a
        # Parquet file's hand fields maybe dictionary-encoded) and int64 line numbers; a
        # Parquet cell may be null.
        present = set(table.column_names)
        for col in [*columns_of(self.game), None]:
            name = col.name if col else "_bad"
            column = table.column(name) if name in present else empty
            if column.null_count:
                column = pc.fill_null(column, "")
            if col and col.round_level and not pa.types.is_dictionary(column.type):
                column = run_coded(column)
            columns[name] = column
        # The game a record names (a JSONL document's "game", a CSV column of that name), as
        # codes: the ingest rejects a record of another game (see ingest.type_rows).
        columns["game"] = (pc.fill_null(table.column("game"), "").cast(pa.large_string()).dictionary_encode()
                           if "game" in present else _one_value(n, ""))
        for name in ("_line", "_record"):
            columns[name] = table.column(name)
        columns["_absent"] = pa.array(np.full(n, absent_bits(self.game, self.absent), np.int32))
        schema = batch_schema(self.game)
        if any(pa.types.is_dictionary(columns[f.name].type) for f in schema if f.type == pa.large_string()):
            schema = pa.schema([f.with_type(TEXT_CODES) if pa.types.is_dictionary(columns[f.name].type) else f
                                for f in schema])
        return pa.table(columns, schema=schema)

    # --- readers ----------------------------------------------------------------------
    def _text_stream(self, start: int = 0):
        """The file's bytes as UTF-8 for Arrow: the file itself when it is valid UTF-8, else
        decoded with the file's encoding (undecodable bytes become U+FFFD, unless ``strict``),
        from ``start`` (a byte of the file, for a decoded stream)."""
        gz = self.path.name.lower().endswith(".gz")
        if self.native and not gz:
            return pa.input_stream(arrow_file(self.path))
        # (Python's gzip, not Arrow's: it reads past the zero bytes that some tools pad a
        # compressed file with, as gzip itself does, where Arrow's stream stops with an error)
        raw = gzip.open(self.path, "rb") if gz else open(self.path, "rb")
        if self.native:
            return raw
        raw.seek(start)
        return _Recoded(raw, self.encoding, "strict" if self.strict else "replace")

    def _settle(self) -> bool:
        """The encoding of a file read as UTF-8 on the strength of its first bytes, once a
        block of it is not ASCII: waits for the pass over the file (``verdict``); True when
        the rest of it must be decoded (the notes then say how). Raises InputError when the
        file is no text of a known encoding: the rows before were pure ASCII, read right
        whatever the encoding, and stay read."""
        found, self.verdict = self.verdict.result(), None
        self.encoding, self.native, notes = _choose_encoding(self.path, found, None)
        self.notes.extend(notes)
        return not self.native

    def _csv(self, rows: int) -> Iterator[pa.Table]:
        """The file in blocks of whole lines, about ``rows`` rows each: a plain block split by
        ``csvsplit``, any other by Arrow's parser. Rows are numbered by the file's lines (the
        header is line 1), rows with the wrong number of fields too."""
        try:
            stream = self._text_stream()
        except (pa.ArrowInvalid, OSError, EOFError, zlib.error, UnicodeError) as exc:
            key, params = (read_failure(exc, self.path, self.encoding)
                           or ("input.unparsable", {"error": first_line(exc)}))
            raise InputError(str(self.path), key, **params) from None
        next_line = 2 + self.preamble  # the header's line is 1, or later after a separator hint or blank lines
        size = max(1 << 14, min(rows * 128, 1 << 26))
        unended: list = []
        blocks = _line_blocks(stream, size, skip=1 + self.preamble, unended=unended)
        start = self.header_bytes  # of the next block, in the file (while it is read as it is)
        while True:
            try:
                block = next(blocks, None)
                if block is None:
                    break
                if self.verdict is not None and block.max(initial=0) >= 128 and self._settle():
                    stream.close()  # the rest is read again from this block on, decoded
                    stream = self._text_stream(start)
                    blocks = _line_blocks(stream, size, skip=0, unended=unended)
                    continue
                start += len(block)
                columns = split_plain(block, len(self.names), self.delimiter, self._repeated)
                if columns is not None:
                    table, invalid, count = pa.Table.from_arrays(columns, names=self.names), [], len(columns[0])
                else:
                    (table, invalid), count = self._parsed(block), line_count(block)
            except (pa.ArrowInvalid, OSError, EOFError, zlib.error, UnicodeError) as exc:
                changed = _not_text_since(self.path, self.encoding, self.mark) if (
                    self.strict and isinstance(exc, UnicodeDecodeError)) else None
                if changed is not None:
                    raise changed from None
                raise InputError(str(self.path), "input.unparsable_at", line=next_line,
                                 error=read_failure(exc, self.path, self.encoding) or first_line(exc, 200)) from None
            n = table.num_rows
            # Every line of a block is a row or an invalid row: the valid rows take the line
            # numbers that the invalid rows did not.
            lines = np.arange(next_line, next_line + n + len(invalid))
            if invalid:
                invalid = [(next_line - 1 + num, text) for num, text in invalid]
                lines = np.setdiff1d(lines, np.array([num for num, _ in invalid], np.int64), assume_unique=True)
            next_line += count
            line_numbers = pa.array(lines[:n], pa.int64())
            table = _own_columns(table).append_column("_line", line_numbers).append_column("_record", line_numbers)
            blank = _blank_rows(table, self.names)
            if blank.any():
                table = table.filter(pa.array(~blank))
            if invalid:
                table = pa.concat_tables([self._conform(table), self._conform(self._bad_rows(invalid))])
                table = table.take(pa.array(np.argsort(table.column("_line").to_numpy(), kind="stable")))
            self.records_read += table.num_rows
            if table.num_rows:
                yield table
        if unended:
            # An export ends its last line; a file whose last line has no end may have been cut
            # as it was copied, its last value short (19.00 read as 1): the report says so.
            self.notes.append(("input.last_line_unended", {"line": next_line - 1}))

    def _parsed(self, block: np.ndarray) -> tuple[pa.Table, list[tuple[int, str]]]:
        """(rows, invalid rows as (line in the block from 1, text)) of a block by Arrow's
        parser. Single-threaded, so that invalid rows have their line numbers; empty lines
        are read as rows of empty fields (and dropped by the caller), so that every line is
        a row or an invalid row. Arrow reads a quoted field on across line ends; a log has
        one row per line, so a block where that happened is read again line by line."""
        invalid: list[tuple[int, str]] = []

        def skip(row) -> str:
            invalid.append((row.number if row.number is not None else -1, row.text))
            return "skip"

        table = pv.read_csv(
            pa.BufferReader(block),
            read_options=pv.ReadOptions(column_names=self.names, use_threads=False, block_size=len(block) + 1),
            parse_options=pv.ParseOptions(delimiter=self.delimiter, newlines_in_values=False,
                                          ignore_empty_lines=False, invalid_row_handler=skip),
            convert_options=pv.ConvertOptions(column_types={n: pa.large_string() for n in self.names},
                                              strings_can_be_null=False, quoted_strings_can_be_null=False))
        if any("\n" in text or "\r" in text for _, text in invalid) or any(
                pc.any(pc.match_substring_regex(column, "[\r\n]")).as_py() for column in table.columns):
            return self._by_line(block)
        return table, invalid

    def _by_line(self, block: np.ndarray) -> tuple[pa.Table, list[tuple[int, str]]]:
        """``_parsed`` of a block whose quotes run across lines, one line at a time: a quote
        left open ends with its line, and only that line is invalid."""
        rows: list[list[str]] = []
        invalid: list[tuple[int, str]] = []
        lines = re.split(r"\r\n|\n|\r", block.tobytes().decode("utf-8", "replace"))[:-1]  # (each ends with a line end)
        for number, line in enumerate(lines, start=1):
            try:
                values = next(csv.reader([line], delimiter=self.delimiter), [""]) if line else [""] * len(self.names)
            except csv.Error:
                values = []
            if len(values) == len(self.names):
                rows.append(values)
            else:
                invalid.append((number, line))
        columns = [pa.array(list(values), pa.large_string()) for values in zip(*rows)] if rows else \
            [pa.array([], pa.large_string()) for _ in self.names]
        return pa.Table.from_arrays(columns, names=self.names), invalid

    def _bad_rows(self, invalid: list[tuple[int, str]]) -> pa.Table:
        """Rows with the wrong number of fields: their fields as far as they go (so that the
        row joins its round, which is then rejected whole) and ``_bad`` = the row's text."""
        records = []
        for num, text in invalid:
            try:
                values = next(csv.reader([text], delimiter=self.delimiter), [])
            except csv.Error:
                values = []
            row = dict.fromkeys(self.names, "")
            row.update(zip(self.names, (v[:200] for v in values)))
            # (a leading NUL would read as a reader's fault: see ingest.reader_fault)
            row.update({"_line": num, "_record": num, "_bad": (text.lstrip("\x00") or " ")[:120]})
            records.append(row)
        return _string_table(records, [*self.names, "_bad"])

    def _jsonl(self, rows: int) -> Iterator[pa.Table]:
        opener = gzip.open if self.path.name.endswith(".gz") else open
        buffered: list[dict] = []
        # The text of the batch's lines, by number: a number beyond a float's range is read
        # from it (``_json_table``), which the line's parse gives as infinity.
        texts: dict[int, str] = {}
        bad: list[tuple[int, str, str, str, int]] = []  # (line, field, reason, detail, its text's hash)
        errors = "strict" if self.native or self.strict else "replace"
        round_keys = _round_level(self.game) | {"game"}
        known = _json_keys()
        with opener(self.path, "rt", encoding=_python_codec(self.encoding), errors=errors) as fh:
            try:
                for number, line in enumerate(fh, start=1):
                    if not line.strip():
                        continue
                    self.records_read += 1
                    try:
                        doc = json_of(line)
                    except UnicodeEncodeError:
                        bad.append((number, "", "reject.bad_text", "", _line_hash(line)))
                        continue
                    except (ValueError, RecursionError) as exc:
                        bad.append((number, "", "reject.bad_json",  # (the detail: where it stops being JSON)
                                    str(exc.colno) if isinstance(exc, json.JSONDecodeError) else "", _line_hash(line)))
                        continue
                    alike = None
                    if isinstance(doc, dict) and not known.issuperset(doc):
                        doc, alike = _keys_folded(doc)
                    if not isinstance(doc, dict) or not isinstance(doc.get("hands"), list) or not doc["hands"]:
                        bad.append((number, "", "reject.not_a_round", "", _line_hash(line)))
                        continue
                    repeated = _repeated_key(line) if _keys_may_repeat(line, doc) else None
                    if repeated is None and alike is not None:
                        repeated = (alike[0], _spelled(alike[1]), True, "reject.keys_alike")
                    elif repeated is not None:
                        repeated = (*repeated, "reject.duplicate_key")
                    if repeated is not None and repeated[2] and repeated[0] in _IDENTITY:
                        # Which round the line is is not known: no round's, as a line that is no JSON.
                        bad.append((number, repeated[0], repeated[3], repeated[1], _line_hash(line)))
                        continue
                    base = {k: v for k, v in doc.items() if k != "hands"}
                    texts[number] = line
                    fault, hands = ((repeated[0], repeated[3], repeated[1]), None) if repeated is not None else \
                        _hands_fault(doc["hands"], base, round_keys, line)
                    if fault is not None:
                        # One row of the round's own fields, rejected for the fault: the round
                        # is known to the audit (its other rows rejected with it, and no rule
                        # compares across it), as a CSV row with the wrong number of fields is.
                        buffered.append({**base, "_line": number, "_record": number, "_bad": reader_fault(*fault)})
                        continue
                    for hand in hands:
                        buffered.append({**base, **hand, "_line": number, "_record": number})
                    if len(buffered) >= rows:
                        yield _json_table(buffered, texts)
                        buffered, texts = [], {}
            except UnicodeDecodeError:
                changed = _not_text_since(self.path, self.encoding, self.mark) if self.strict else None
                raise (changed or InputError(str(self.path), "input.bad_encoding")) from None
            except (OSError, EOFError, zlib.error) as exc:
                key, params = _text_failure(exc, self.path, self.encoding)
                raise InputError(str(self.path), key, **params) from None
        if buffered:
            yield _json_table(buffered, texts)
        if bad:
            lines, fields, reasons, details, texts = zip(*bad)
            rejected = _rejects(self.name, list(lines), list(fields), list(reasons), list(details))
            rejected["_text"] = np.array(texts, np.uint64)  # (see engine._GameRun.finish)
            self.record_rejects.append(rejected)

    def _parquet(self, rows: int) -> Iterator[pa.Table]:
        import pyarrow.parquet as pq
        first = 1  # the first row of the next batch
        try:
            # A column whose values repeat (a table, a dealer, a bet, a seat) is read as Parquet
            # keeps it, a dictionary of the values and an index per row, so that its text is
            # not made a string per row: a round's fields are run-encoded from the indices, and
            # a hand field is typed once per entry (``ingest.type_rows``) while its dictionary
            # stays small beside the batch. A column of values nearly all distinct (cards,
            # times, round ids) is read as text: Parquet writers store most of it plainly
            # once its dictionary grows large, and Arrow would hash every value to encode it
            # again (a third of the time of the read).
            # Only the game's columns are read: an extra column is ignored whatever its type
            # (a list, a struct, bytes that are no text).
            wanted = [self.stored.get(name, name) for name in self.names if name in _known_of(self.game)]
            named = {given: name for name, given in self.stored.items()}
            coded = _repeating_columns(self.path, wanted)
            parquet = pq.ParquetFile(arrow_file(self.path), read_dictionary=coded, pre_buffer=False)
            round_level, money = _round_level(self.game), _money_of(self.game)
            for batch in parquet.iter_batches(batch_size=rows, columns=wanted):
                table = pa.Table.from_batches([batch])
                columns, faults = {}, []
                for given, column in zip(table.column_names, table.columns):
                    name = named.get(given, given)
                    column = column.combine_chunks()
                    try:
                        if name in money and pa.types.is_decimal(column.type) and column.type.scale > 2:
                            column, fraction = _in_centimos(column)
                            if fraction.any():
                                shown = column.filter(pa.array(fraction)).to_pylist()
                                faults.append((fraction, [reader_fault(name, "reject.fraction_of_centimo", v)
                                                          for v in shown]))
                        if name in round_level and pa.types.is_dictionary(column.type):
                            column = run_coded(column)
                        elif _repeats(column):
                            column = column.cast(TEXT_CODES)
                        else:
                            column = column.cast(pa.large_string())
                    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                        if not (pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type)):
                            raise InputError(str(self.path), "input.parquet_column", column=name,
                                             type=str(column.type)[:60]) from None
                        # Bytes of which some values are no UTF-8 text: those rows are rejected
                        # for it (as a reader's fault: their rounds with them), the others read.
                        column, invalid, shown = _utf8_text(column)
                        faults.append((invalid, [reader_fault(name, "reject.bad_text", v) for v in shown]))
                    columns[name] = column
                if faults:
                    bad = np.full(table.num_rows, "", dtype=object)
                    for invalid, said in reversed(faults):  # a row's first faulty column is said
                        bad[invalid] = said
                    columns["_bad"] = pa.array(bad.tolist(), pa.large_string())
                table = pa.table(columns)
                lines = pa.array(np.arange(first, first + table.num_rows), pa.int64())
                table = table.append_column("_line", lines).append_column("_record", lines)
                first += table.num_rows
                self.records_read += table.num_rows
                yield table
        except _PARQUET_ERRORS as exc:
            key, params = parquet_failure(exc, self.path, first)
            raise InputError(str(self.path), key, **params) from None


# A JSON object that gives a key twice (``"table_id": "LIR-03", "table_id": "LIR-09"``) is read
# by Python with the last value, silently; a CSV or Parquet file that names a column twice is
# refused. Such a line is rejected, naming the key: as its round's own fault (the round rejected
# whole), or as no round's where the key is what tells the round (which of the two is unknown).
_IDENTITY = frozenset({"table_id", "round_id", "hands"})


def _keys_may_repeat(line: str, doc: dict) -> bool:
    """Whether the line may give a key twice: a cheap test, made on every line. Each key is
    followed by a colon, so a line with no more colons than the round document and its hands
    have keys, besides those of its time (``20:15:00-05:00``, as the line writes it where it
    has no escape), gives none twice; nor does one whose colons after a closing quote, or
    after blanks (``"bet": ``, ``"bet" :``), are no more than its keys. (A text value that holds
    such colons, or an object inside a value, only sends its line to ``_repeated_key``.)"""
    keys = len(doc) + sum(len(hand) for hand in doc["hands"] if isinstance(hand, dict))
    colons = line.count(":")
    started = doc.get("started_at")
    if isinstance(started, str) and "\\" not in line:
        colons -= started.count(":")
    return colons > keys and line.count('":') + line.count(" :") + line.count("\t:") > keys


def _repeated_key(line: str) -> tuple[str, str, bool] | None:
    """(key, where: the key, or ``N: key`` for the N-th hand's, whether it is the round
    document's own) of the first key an object of the JSON line gives twice, or None."""
    repeated: dict[int, str] = {}  # id of each object that gives a key twice -> the key

    def pairs(items: list) -> dict:
        obj = dict(items)
        if len(obj) < len(items):
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    repeated[id(obj)] = key
                    break
                seen.add(key)
        return obj

    doc = json.loads(line, object_pairs_hook=pairs, parse_int=whole, parse_float=real)
    if not repeated:
        return None
    if id(doc) in repeated:
        return repeated[id(doc)], repeated[id(doc)], True
    hands = doc.get("hands") if isinstance(doc.get("hands"), list) else []
    for number, hand in enumerate(hands, start=1):
        if id(hand) in repeated:
            return repeated[id(hand)], f"{number}: {repeated[id(hand)]}", False
    key = next(iter(repeated.values()))  # (an object inside a value: a value of no field's kind anyway)
    return key, key, False


def _hands_fault(hands: list, base: dict, round_keys: frozenset[str],
                 line: str | None = None) -> tuple[tuple[str, str, str] | None, list]:
    """(fault, hands): the (field, reason, detail) of a round document whose hands cannot be
    read as its hands, or None and the hands, their keys as the format names them
    (``_keys_folded``). A hand cannot be read that is not an object, that gives two keys of
    one field (``bet`` and ``BET``), or that gives a field of the round (``table_id``,
    ``dealer_id``, …) another value than the round or another hand does. (A hand row takes
    the round's fields, then its own: a ``round_id`` of its own would make it a round apart,
    and the document a record audited in two rounds.) A hand may repeat a round field with
    the same value, or give one the round leaves out, as long as the hands agree."""
    given: dict[str, str] = {}
    known, folded = _json_keys(), hands
    for number, hand in enumerate(hands, start=1):
        if not isinstance(hand, dict):
            return ("hands", "reject.bad_hand", f"{number}: {json.dumps(hand)[:60]}"), hands
        if not known.issuperset(hand):  # (a key of no field, or a field's spelled otherwise)
            hand, alike = _keys_folded(hand)
            if alike is not None:
                return (alike[0], "reject.keys_alike", f"{number}: {_spelled(alike[1])}"), hands
            if hand is not hands[number - 1]:
                folded = folded if folded is not hands else list(hands)
                folded[number - 1] = hand
        for key in round_keys.intersection(hand):
            # Compared as read (7 and "7" are one round id; a game's id in any case is the game)
            value = _round_text(key, hand[key])
            if value == BEYOND_FLOAT and line is not None:
                # A number beyond a float's range, read as infinity (1e400 and 2e400 alike):
                # compared as the ``line`` writes it, the document read again so.
                doc = _keys_folded(NUMBERS_KEPT.decode(line))[0]
                return _hands_fault(doc["hands"], {k: v for k, v in doc.items() if k != "hands"}, round_keys)
            if (key in base and _round_text(key, base[key]) != value) or given.setdefault(key, value) != value:
                shown = str(hand[key]) if isinstance(hand[key], Number) else json.dumps(hand[key])
                return (key, "reject.hand_round_field", f"{number}: {shown[:60]}"), hands
    return None, folded


# A JSONL document's keys are the format's fields whatever their case and the blanks around
# them, as a CSV header's names are (``schema_names``): an export may write them as its
# database spells its columns (``TABLE_ID``). Checked at C speed per object (``_json_keys``
# holds every field's name as the format spells it); only an object with another key is
# looked at key by key, and only at its other keys.
@functools.cache
def _json_keys() -> frozenset[str]:
    return _known_names() | {"hands"}


@functools.lru_cache(maxsize=4096)
def _key_named(key: str) -> str:
    """A JSON key as the format names it (``_folded``), or as written if it names no field."""
    name = _folded(key)
    return name if name in _json_keys() else key


def _keys_folded(obj: dict) -> tuple[dict, tuple[str, list[str]] | None]:
    """(``obj`` with its keys as the format names them, the first field two of its keys are
    so, with those two as written, or None): which of the two holds is unknown, as for a key
    given twice (``reject.keys_alike`` beside ``reject.duplicate_key``; the first one's value
    kept, for a line rejected anyway)."""
    renamed = {key: _key_named(key) for key in obj.keys() - _json_keys()}
    if all(key == name for key, name in renamed.items()):
        return obj, None
    out: dict = {}
    spelled: dict[str, str] = {}
    alike = None
    for key, value in obj.items():
        name = renamed.get(key, key)
        if name in out:
            alike = alike or (name, [spelled[name], key])
            continue
        out[name], spelled[name] = value, key
    return out, alike


def _spelled(names) -> str:
    """Names as the file spells them, each between «» (``«table_id», «TABLE_ID»``)."""
    return ", ".join(f"«{name}»" for name in names)


def _round_text(key: str, value) -> str:
    text = _json_scalar_to_str(value)
    return text.strip().lower() if key == "game" else text


def _one_value(n: int, text: str) -> pa.DictionaryArray:
    """``n`` rows of the same text, as codes (``TEXT_CODES``)."""
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([text], pa.large_string()))


@functools.cache
def batch_schema(game: str) -> pa.Schema:
    """The columns of every batch of ``game``: each field as text (a round's fields
    run-encoded, see ``ingest.run_coded``; a Parquet file's repeating hand fields may come
    dictionary-encoded instead, see ``Source._parquet``), the file it came from (dictionary-encoded: one
    value per file), its line (``_line``), its record (``_record``: the CSV row or JSON line),
    ``_bad`` (the text of a CSV row with the wrong number of fields, else empty) and ``game``
    (the game the record names, dictionary-encoded; empty where it names none) and ``_absent``
    (the game's columns that the record's file lacks, as bits: ``absent_bits``)."""
    return pa.schema([pa.field("_file", TEXT_CODES),
                      *[pa.field(c.name, TEXT_CODES if c.round_level else pa.large_string())
                        for c in columns_of(game)],
                      pa.field("_bad", pa.large_string()), pa.field("game", TEXT_CODES),
                      pa.field("_line", pa.int64()), pa.field("_record", pa.int64()),
                      pa.field("_absent", pa.int32())])


def absent_bits(game: str, names) -> int:
    """The columns ``names`` of ``game`` as bits, one per column in ``columns_of``'s order
    (the ``_absent`` of a batch's rows)."""
    order = [c.name for c in columns_of(game)]
    return sum(1 << order.index(name) for name in names)


def concat_batches(tables: list[pa.Table]) -> pa.Table:
    """The batches as one table. A hand field dictionary-encoded in some of them and text in
    others (a Parquet file's beside a CSV file's, or a Parquet batch whose dictionary was too
    large) is made text in all."""
    first = tables[0].schema
    differ = {f.name for t in tables[1:] for f, g in zip(t.schema, first) if f.type != g.type}
    if differ:
        tables = [t.cast(pa.schema([f.with_type(pa.large_string()) if f.name in differ else f for f in t.schema]))
                  for t in tables]
    return pa.concat_tables(tables)


@functools.cache
def _known_of(game: str) -> frozenset[str]:
    """The columns a file of ``game`` may hold that the reader reads."""
    return frozenset(c.name for c in columns_of(game)) | {"game"}


@functools.cache
def _round_level(game: str) -> frozenset[str]:
    return frozenset(c.name for c in columns_of(game) if c.round_level)


@functools.cache
def _money_of(game: str) -> frozenset[str]:
    return frozenset(c.name for c in columns_of(game) if c.kind in (Kind.MONEY, Kind.SIGNED_MONEY))


# A Parquet money column of a decimal type gives every value its column's scale: the
# DECIMAL(18,3) or DECIMAL(19,4) of a SQL Server or Oracle export writes S/ 10.10 as 10.100 or
# 10.1000, which is S/ 10.10 exactly, where the log's text takes two decimals at most. (A scale
# of 0 to 2 reads as text already: 10, 10.1, 10.10.) A value with a fraction of a céntimo
# (10.105) is no amount of the log: it rejects its row, and its round with it.
_DECIMAL_TYPES = {32: pa.decimal32, 64: pa.decimal64, 128: pa.decimal128, 256: pa.decimal256}


def _in_centimos(column: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """(values, which have a fraction of a céntimo) of a column of a decimal type of more
    than two places: the values cut to two places, those that the cut changed as text as the
    column writes them. By Arrow's decimal kernels: no value becomes a float or a Python number."""
    kind = column.type
    cents = column.cast(_DECIMAL_TYPES[kind.bit_width](kind.precision - kind.scale + 2, 2), safe=False)
    exact = pc.fill_null(pc.equal(cents.cast(kind), column), True).to_numpy(zero_copy_only=False)
    fraction = ~exact
    if not fraction.any():
        return cents, fraction
    return pc.if_else(pa.array(exact), cents.cast(pa.large_string()), column.cast(pa.large_string())), fraction


def _repeating_columns(path: Path, names: list[str]) -> list[str]:
    """The text columns among ``names`` of a Parquet file that repeat (``_repeats``) in its first
    ``_PROBE_ROWS`` rows read dictionary-encoded. Arrow gives those rows the dictionary of the
    values it has met so far, which for a column kept in dictionary pages is the first row
    group's whole dictionary: a column of more than an eighth of ``_PROBE_ROWS`` values in the
    first row group is read as text."""
    import pyarrow.parquet as pq
    text = [f.name for f in pq.read_schema(arrow_file(path)) if f.name in names
            and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))]
    if not text:
        return []
    first = next(pq.ParquetFile(arrow_file(path), read_dictionary=text).iter_batches(batch_size=_PROBE_ROWS, columns=text), None)
    if first is None:
        return []
    return [name for name, column in zip(first.schema.names, first.columns) if _repeats(column)]


def _parquet_first_row(path: Path, names: list[str], stored: dict[str, str]) -> tuple[str, tuple[str, str] | None]:
    """(first time, first round) of a Parquet file of columns ``names`` (``stored``: see
    ``Source.stored``): the time as Python writes it (as ``engine._in_time_order`` reads it),
    the table and round as the batches give them (Arrow's cast to text, see ``Source._parquet``),
    or None where either is missing or no text."""
    import pyarrow.parquet as pq
    wanted = [n for n in ("started_at", "table_id", "round_id") if names.count(n) == 1]
    named = {stored.get(n, n): n for n in wanted}
    try:
        batch = next(pq.ParquetFile(arrow_file(path)).iter_batches(batch_size=1, columns=list(named)))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError, StopIteration):
        return "", None
    row = {}
    for given, column in zip(batch.schema.names, batch.columns):
        name = named[given]
        if name == "started_at":
            value = column[0].as_py()
            row[name] = None if value is None else str(value)
            continue
        try:
            row[name] = column.cast(pa.large_string())[0].as_py()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            binary = pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type)
            row[name] = _utf8_text(column)[0][0].as_py() if binary else None
    first_round = (row["table_id"], row["round_id"]) if None not in (row.get("table_id"), row.get("round_id")) else None
    return row.get("started_at") or "", first_round


def _utf8_text(column: pa.Array) -> tuple[pa.LargeStringArray, np.ndarray, list[str]]:
    """A Parquet binary column that does not cast to text: its values as text, those that are
    no UTF-8 blank; which those are; and each of them shown as escaped bytes. (Value by value
    in Python: only for a batch in which Arrow's cast has failed.)"""
    values = column.to_pylist()
    text, invalid, shown = [], np.zeros(len(values), bool), []
    for i, value in enumerate(values):
        try:
            text.append(None if value is None else value.decode("utf-8"))
        except UnicodeDecodeError:
            text.append("")
            invalid[i] = True
            shown.append(repr(value)[2:-1][:60])
    return pa.array(text, pa.large_string()), invalid, shown


def _repeats(column: pa.Array) -> bool:
    """A dictionary-encoded column of fewer entries than an eighth of its rows: typing each
    entry once then costs less than typing each row."""
    return pa.types.is_dictionary(column.type) and len(column.dictionary) * 8 <= len(column)


def _own_columns(table: pa.Table) -> pa.Table:
    """The table without columns named like the reader's own (``_line`` …): an export's extra
    column of that name is not the reader's, and is not audited."""
    return table.drop_columns([c for c in ("_file", "_line", "_record", "_bad") if c in table.column_names])


def _string_table(records: list[dict], names: list[str], text=lambda v: "" if v is None else v) -> pa.Table:
    """Records of fields (and _line, _record) as an Arrow table of ``text`` of each value."""
    columns = {n: pa.array([text(r.get(n)) for r in records], pa.large_string()) for n in names}
    for n in ("_line", "_record"):
        columns[n] = pa.array([r[n] for r in records], pa.int64())
    return pa.table(columns)


def _json_table(rows: list[dict], texts: dict[int, str]) -> pa.Table:
    """The rows of a batch of JSON lines as text; a number beyond a float's range, read as
    infinity, as the line writes it (``texts``: the text of the batch's lines, by number)."""
    names = list(dict.fromkeys(k for row in rows for k in row if not k.startswith("_")))
    if any("_bad" in row for row in rows):
        names.append("_bad")
    table = _string_table(rows, names, _json_scalar_to_str)
    # (a NUL byte is in no text but a marked value's: a pass over each column's bytes)
    beyond = [name for name in names if _holds_nul(table.column(name).chunk(0))
              and pc.any(pc.equal(table.column(name), BEYOND_FLOAT)).as_py()]
    return _beyond_floats(table, rows, beyond, texts) if beyond else table


def _beyond_floats(table: pa.Table, rows: list[dict], names: list[str], texts: dict[int, str]) -> pa.Table:
    """``table`` with each of its values in ``names`` that is a number beyond a float's range
    (``BEYOND_FLOAT``) as its line writes it (``jsonnumbers.Number``): the line parsed again,
    keeping such numbers, and each value found where the row took it, in its round's fields or
    in its hand (a row is the k-th of its line's, its hand the k-th). A value not found so is a
    JSON value of no field's kind, as infinity was."""
    at = {name: np.flatnonzero(pc.equal(table.column(name), BEYOND_FLOAT).to_numpy(zero_copy_only=False))
          for name in names}
    for name, idx in at.items():
        values = table.column(name).to_pylist()
        for i in idx.tolist():
            values[i] = _number_text(rows, i, name, texts[rows[i]["_line"]])
        table = table.set_column(table.schema.get_field_index(name), name, pa.array(values, pa.large_string()))
    return table


def _number_text(rows: list[dict], i: int, name: str, line: str) -> str:
    """The text of row ``i``'s field ``name`` in its JSON ``line``, where it is a number
    (``jsonnumbers.Number``)."""
    first = i
    while first and rows[first - 1]["_line"] == rows[i]["_line"]:
        first -= 1
    try:
        doc, _ = _keys_folded(NUMBERS_KEPT.decode(line))
        fields = {k: v for k, v in doc.items() if k != "hands"}
        if "_bad" not in rows[i]:  # (a row of a round's fields alone, rejected, takes no hand's)
            fields.update(_keys_folded(doc["hands"][i - first])[0])
    except (ValueError, RecursionError, TypeError, AttributeError, IndexError, KeyError):
        fields = {}
    value = fields.get(name)
    return str(value) if isinstance(value, Number) else JSON_MARK + "Infinity"


def _line_blocks(stream, size: int, skip: int = 1, unended: list | None = None) -> Iterator[np.ndarray]:
    """The text after its first ``skip`` lines (the header, and an Excel separator hint before
    it), in blocks of about ``size`` bytes of whole lines, read straight into place (each byte
    is copied once); the last line is given a line end if the file has none (and ``unended``,
    a list, is told so)."""
    carry = np.zeros(0, np.uint8)
    while True:
        buffer = np.empty(len(carry) + size, np.uint8)
        buffer[:len(carry)] = carry
        got = stream.readinto(memoryview(buffer)[len(carry):])
        text = buffer[:len(carry) + got]
        if not got:
            if len(text):
                if text[-1] != 10:
                    if unended is not None and text[-1] != 13:  # (a file of CR line ends ends with one)
                        unended.append(True)
                    text = np.append(text, np.uint8(10))
                text, skip = _past_lines(text, skip)
                if len(text):
                    yield text
            return
        end = last_line_end(text)
        carry = text[end:].copy()
        text, skip = _past_lines(text[:end], skip)
        if len(text):
            yield text


def _past_lines(text: np.ndarray, lines: int) -> tuple[np.ndarray, int]:
    """The whole lines of ``text`` after its first ``lines``, and how many of those it did not
    hold (to cut from the next block)."""
    while lines and len(text):
        # (a header line is short: looked for in the first 2 MB, not in a copy of the block)
        at = _after_first_line(text[:1 << 21].tobytes()) or _after_first_line(text.tobytes())
        text, lines = text[at:], lines - 1
    return text, lines


def _after_first_line(text: bytes) -> int:
    """Where the second line of the text starts (a line ends with \\n, \\r or \\r\\n)."""
    lf, cr = text.find(b"\n"), text.find(b"\r")
    if cr < 0 or 0 <= lf < cr:
        return lf + 1
    return cr + 2 if text[cr + 1:cr + 2] == b"\n" else cr + 1


@functools.cache
def _id_length() -> int:
    """The longest table or round id the log format allows, of any game (``logs.schema``)."""
    from .schema import ROUND_MODELS

    return max(c.max_length for g in ROUND_MODELS for c in columns_of(g) if c.name in ("table_id", "round_id"))


def unreadable_ids(values: pa.Array) -> np.ndarray:
    """Which ids (table or round) may name no round: missing, blank, longer than an id, or
    holding a control character. Said of more values than the ingest rejects, never fewer:
    the reader and the audit take a row with one to be of the rounds beside it
    (``engine._next_to_unnamed``)."""
    values = pc.cast(values, pa.large_string())
    out = pc.or_kleene(pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(values)), 0),
                       pc.or_kleene(pc.greater(pc.utf8_length(values), _id_length()),
                                    pc.match_substring_regex(values, "[\\x00-\\x1f]")))
    return np.asarray(pc.fill_null(out, True).to_numpy(zero_copy_only=False), bool)


def _unnamed_at(table: pa.Table, row: int) -> bool:
    """Whether the row's table or round id may be unreadable (``unreadable_ids``): no batch
    ends or begins with such a row, so that the audit finds the rounds beside it with it."""
    return any(unreadable_ids(table.column(name).slice(row, 1).combine_chunks().cast(pa.large_string()))[0]
               for name in ("table_id", "round_id"))


def _last_round_start(table: pa.Table) -> int:
    """Index where the table's trailing run of rows of one round begins (looked for in a
    window at the end, widened until it holds the start: a round has a few rows)."""
    n = table.num_rows
    # The round's fields come dictionary-encoded (``_conform``), so rows with one entry have
    # one text: in the last array of rows, after the last change of entry, all rows are one
    # round, which begins there if its text changes too (as it does where entries are runs
    # of equal neighbours, as the readers make them; else the window below finds it).
    last = [table.column(name).chunks[-1] for name in ("table_id", "round_id") if table.column(name).num_chunks]
    if len(last) == 2:
        entries = [chunk.indices.to_numpy() for chunk in last]
        changes = np.flatnonzero((entries[0][1:] != entries[0][:-1]) | (entries[1][1:] != entries[1][:-1]))
        at = int(changes[-1]) + 1 if len(changes) else 0
        if at and any(chunk[at - 1].as_py() != chunk[at].as_py() for chunk in last):
            return n - len(entries[0]) + at
    window = 64
    while n:
        start = max(0, n - window)
        other = None
        for name in ("table_id", "round_id"):
            values = table.column(name).slice(start)
            differs = pc.not_equal(values, values[len(values) - 1])
            other = differs if other is None else pc.or_(other, differs)
        idx = np.flatnonzero(other.to_numpy())
        if len(idx):
            return start + int(idx[-1]) + 1
        if start == 0:
            break
        window *= 4
    return 0


class _Recoded(io.RawIOBase):
    """A binary stream of text in ``encoding`` re-encoded as UTF-8 (for Arrow's reader); bytes
    that are no text in it read as U+FFFD, or raise UnicodeDecodeError (``errors``)."""

    def __init__(self, raw, encoding: str, errors: str = "replace"):
        self._text = io.TextIOWrapper(raw, encoding=_python_codec(encoding), errors=errors, newline="")
        self._pending = bytearray()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while len(self._pending) < len(buffer):
            chunk = self._text.read(1 << 16)
            if not chunk:
                break
            self._pending += chunk.encode("utf-8")
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        del self._pending[:n]
        return n

    def close(self) -> None:
        self._text.close()
        super().close()


def arrow_file(path: Path):
    """``path`` as pyarrow is given it: its name, or, where the name is no UTF-8 text (see
    ``files.path_text``), which pyarrow cannot hand to the system, the file opened by its bytes."""
    name = str(path)
    return name if path_text(name) == name else pa.OSFile(os.fsencode(name))


def _python_codec(encoding: str) -> str:
    """The codec Python reads the text with (a UTF-8 BOM is skipped)."""
    name = codecs.lookup(encoding).name
    return "utf-8-sig" if name in ("utf-8", "utf-8-sig") else name


def text_codec(requested: str) -> str | None:
    """The name of the text encoding ``requested`` names (``--encoding``), or None if it names
    none."""
    try:
        codec = codecs.lookup(requested)
    except LookupError:
        return None
    # (base64, rot13, zlib and the like are codecs of Python's, but no text encoding)
    return codec.name if getattr(codec, "_is_text_encoding", True) else None


def _choose_encoding(path: Path, scan: Scan, requested: str | None) -> tuple[str, bool, list]:
    """(codec, read natively by Arrow, notes). A ``requested`` codec is the one ``scan``
    checked the text against: a file that is not text in it throughout is refused."""
    if requested:
        name = text_codec(requested)
        if name is None:
            raise InputError(str(path), "input.unknown_encoding", encoding=requested) from None
        if scan.not_text is not None:
            raise _not_text(path, name, scan.not_text)
        native = name in ("utf-8", "utf-8-sig") and scan.utf8
        return name, native, []
    if scan.utf16_bom:
        # Broken UTF-16 (a lone surrogate, a byte too few at the end) is refused as it is
        # with --encoding utf-16: read replaced, «Tñ1» and «Té1» could both be «T�1».
        if scan.not_text is not None:
            raise _not_text(path, "utf-16", scan.not_text, mark=True)
        return "utf-16", False, [("input.decoded_as", {"encoding": _ENCODING_LABELS["utf-16"]})]
    if scan.utf8:
        return "utf-8", True, []
    if scan.utf8_but_tail:
        # Valid UTF-8 whose last character was cut off (a truncated file): still UTF-8.
        return "utf-8", False, []
    if scan.cp1252:
        return "cp1252", False, [("input.decoded_as", {"encoding": _ENCODING_LABELS["cp1252"]})]
    raise InputError(str(path), "input.undecodable")


def _not_text(path: Path, encoding: str, where: tuple[int, bytes], mark: bool = False) -> InputError:
    """The error of a file given (``--encoding``) as text in ``encoding``, or told UTF-16 by
    its byte order mark (``mark``), whose bytes at ``where`` (``Scan.not_text``) are none in
    it: it is not read with them replaced by U+FFFD (the table ids «Tñ1» and «Té1» in
    Windows-1252 read as UTF-8 would both be «T�1», and the rules over a table's consecutive
    rounds would judge the two tables as one). The line is the one the readers number (LF,
    CR or CRLF ends one): a CSV row's, a JSON line's."""
    at, found = where
    shown = " ".join(f"0x{b:02X}" for b in found[:4]) + (" …" if len(found) > 4 else "")
    said = (("input.not_text_byte" if len(found) == 1 else "input.not_text_bytes"),
            {"line": line_at(path, at, encoding), "bytes": shown, "encoding": encoding})
    key = "input.not_text_by_mark" if mark else "input.not_text_in_encoding"
    return InputError(str(path), key, encoding=encoding, where=said)


def _not_text_since(path: Path, encoding: str, mark: bool = False) -> InputError | None:
    """The error of a file given as text in ``encoding`` (or told so by its ``mark``), found
    to be so before it was read, whose reader then met bytes that are none in it (the file
    changed since): where they are, from a scan of it now (the reader's block does not say).
    As for a file damaged while it is read, the rows read before stay read. None if the scan
    now finds none."""
    found = scan(path, encoding=encoding).not_text
    return _not_text(path, encoding, found, mark) if found is not None else None


def delimiter_option(value: str | None) -> str | None:
    """A ``--delimiter`` value as the one character it names (``tab``, ``\\t``, ``;``, …)."""
    if value is None or value == "":
        return None
    value = _DELIMITER_NAMES.get(value.strip().lower(), value) if value.strip() else value
    return value


def _split_header(header: str, delimiter: str) -> list[str]:
    try:
        return [h.strip().lstrip("\ufeff") for h in next(csv.reader([header], delimiter=delimiter), [])]
    except csv.Error:
        return []


def _sniff_delimiter(path: Path, header: str) -> str:
    """The separator that splits the header into the most known column names (in any case); ``,`` when
    no separator gives two or more (the file is then told apart by its columns, or not)."""
    known = _known_names()
    scores = {d: sum(_folded(n) in known for n in _split_header(header, d)) for d in DELIMITERS}
    best = max(scores.values())
    winners = [d for d, v in scores.items() if v == best]
    if best >= 2 and len(winners) == 1:
        return winners[0]
    if best >= 2:
        raise InputError(str(path), "input.ambiguous_delimiter",
                         candidates=" ".join(_shown(d) for d in winners))
    return ","


@functools.cache
def _known_names() -> frozenset[str]:
    """Every column name of every game."""
    from .schema import ROUND_MODELS

    return frozenset(c.name for g in ROUND_MODELS for c in columns_of(g)) | {"game"}


def _shown(delimiter: str) -> str:
    return {"\t": "tab", " ": "space"}.get(delimiter, repr(delimiter))


# Excel's separator hint: a first line "sep=;" that some exporters write before the header
# (Excel then splits the file by that character). It is no row, and it names the separator.
def _separator_hint(line: str) -> str | None:
    """The separator a line names, when it is Excel's separator hint."""
    hint = SEPARATOR_HINT.fullmatch(line)
    return hint[1] if hint else None


@dataclass(frozen=True)
class _Top:
    """A CSV file's lines up to its first row: the header, and the lines before it (``before``
    of them, ``size`` characters in all), which are blank lines and maybe Excel's separator
    hint (``hint``, its line as the file gives it). ``unended``: the line read for the header
    has no line end within its first ``_LINE_LIMIT`` characters (``header`` holds those)."""
    header: str
    first: str = ""
    before: int = 0
    size: int = 0
    hint: str | None = None
    hint_line: int = 0
    unended: bool = False


# The most of a line before the first row that is read: a header is a short line (a few
# hundred characters), and a file that holds no line end so soon is no CSV log.
_LINE_LIMIT = 1 << 20


# Some exporters begin a file with an empty line (or one of spaces, or of separators only, a
# spreadsheet's blank first row) before the header, or put one after Excel's hint. No header
# is blank: such lines are passed over, as among the rows, and the rows keep their lines.
def _is_blank(line: str) -> bool:
    return not line.strip(" \t\r\n\x00\ufeff,;|")


def _up_to_header(reader) -> _Top:
    """The lines up to the header: blank lines, (the separator hint, blank lines,) the header;
    ``reader`` is left at the line after the header."""
    before = size = 0
    hint, hint_line = None, 0
    while True:
        line = reader.readline(_LINE_LIMIT)
        if len(line) == _LINE_LIMIT and not line.endswith(("\n", "\r")):
            return _Top(header=line, before=before, size=size, hint=hint, hint_line=hint_line, unended=True)
        if line and _is_blank(line):
            before, size = before + 1, size + len(line)
        elif line and hint is None and _separator_hint(line) is not None:
            hint, hint_line = line, before + 1
            before, size = before + 1, size + len(line)
        else:
            return _Top(header=line, before=before, size=size, hint=hint, hint_line=hint_line)


def _first_lines(reader) -> _Top:
    """The lines up to the first row: ``_up_to_header``, and the first row."""
    top = _up_to_header(reader)
    return top if top.unended else dataclasses.replace(top, first=reader.readline(_LINE_LIMIT))


def _first_lines_in(head: bytes) -> _Top | None:
    """``_first_lines`` of the file's first bytes (ASCII), when they all end there."""
    if not head:
        return None
    text = io.StringIO(head.decode("ascii"), newline="")
    top = _first_lines(text)
    # (a line that ends where the head does may go on: a CR's LF may follow)
    return top if text.tell() < len(head) and (top.unended or top.first.endswith(("\n", "\r"))) else None


def _header_csv(path: Path, encoding: str, delimiter: str | None,
                top: _Top | None = None) -> tuple[list[str], str, _Top]:
    """(column names as the header spells them, separator, ``_Top``) of a CSV file, from its
    ``_first_lines`` (read here when not given). Excel's separator hint before the header is
    read as such: it names the separator, unless ``delimiter`` does or the hint's does not
    split the header into known column names (the separator is then told from the header, as
    without a hint). The names as the log format names them: ``schema_names``."""
    if top is None:
        opener = gzip.open if path.name.lower().endswith(".gz") else open
        try:
            with opener(path, "rt", encoding=_python_codec(encoding), errors="replace", newline="") as fh:
                top = _first_lines(fh)
        except (OSError, EOFError, zlib.error, UnicodeError) as exc:
            key, params = _text_failure(exc, path, encoding)
            raise InputError(str(path), key, **params) from None
    if top.unended:
        raise InputError(str(path), "input.header_too_long", line=top.before + 1, limit=_LINE_LIMIT)
    hint = _separator_hint(top.hint) if top.hint is not None else None
    header = top.header
    if not header.strip():  # (nothing but blank lines, and maybe a hint)
        raise InputError(str(path), "input.empty")
    if delimiter is None:
        named = {_folded(n) for n in _split_header(header, hint)} if hint is not None and hint != '"' else set()
        splits = len(_known_names() & named) >= 2
        delimiter = hint if splits else _sniff_delimiter(path, header)
    elif len(delimiter) != 1 or delimiter in "\r\n\"":
        raise InputError(str(path), "input.bad_delimiter", delimiter=repr(delimiter))
    names = _split_header(header, delimiter)
    if not names and len(header) > csv.field_size_limit():  # (the csv module refuses so long a field)
        raise InputError(str(path), "input.header_name_too_long", line=top.before + 1, limit=csv.field_size_limit())
    if len(set(names)) != len(names) or not all(names):
        raise InputError(str(path), "input.bad_header")
    return names, delimiter, top


# Table systems write a header as their database spells its columns: in capitals
# (``TABLE_ID``), or with blanks around a name. A name is the log format's column whatever its
# case and the blanks around it; two names that are so one column (``table_id`` and
# ``TABLE_ID``) leave unknown which of the two holds the field.
def _folded(name: str) -> str:
    return name.strip().casefold()


def schema_names(path: Path, names: list[str]) -> list[str]:
    """``names`` (a CSV header's, a Parquet file's columns), each that is a column of the log
    format but for its case or blanks around it as the format names it, the others as given.
    Raises InputError where two of them are one column so."""
    known = _known_names()
    read = [_folded(n) if _folded(n) in known else n for n in names]
    spellings: dict[str, list[str]] = {}
    for given, name in zip(names, read):
        if name in known and given not in spellings.setdefault(name, []):
            spellings[name].append(given)
    alike = [_spelled(given) for given in spellings.values() if len(given) > 1]
    if alike:
        raise InputError(str(path), "input.columns_alike", columns="; ".join(alike))
    return read


@contextlib.contextmanager
def csv_rows(path: Path, encoding: str = "utf-8-sig",
             errors: str = "strict") -> Iterator[tuple[list[str], str, io.TextIOBase, int]]:
    """(column names, separator, the text from the first row on, how many lines come before
    the header) of a CSV file, its header found as ``open_source`` finds it (past blank lines
    and Excel's separator hint), for a first look at a few of its columns (``batch.spans``).
    The text is read in ``encoding`` (UTF-8 first, as most files are; a byte that is none in
    it raises UnicodeDecodeError, and the file is looked at again in ``detected_encoding``'s);
    raises InputError as ``open_source`` does for the header."""
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rt", encoding=_python_codec(encoding), errors=errors, newline="") as fh:
        top = _up_to_header(fh)
        given, delimiter, _ = _header_csv(path, encoding, None, top)
        yield schema_names(path, given), delimiter, fh, top.before


def detected_encoding(path: Path) -> str:
    """The encoding the audit reads a CSV or JSONL file in when none is given, from a pass
    over its bytes (``files.scan``): for a first look at a file that is not UTF-8 (its text
    then read as the audit reads it, a byte that is none replaced only where the audit's is:
    a UTF-8 character cut off at the very end). Raises InputError as the audit does for a
    file of no encoding it knows, broken UTF-16 after its mark, or blank."""
    found = scan(path)
    if found.blank:
        raise InputError(str(path), "input.empty")
    return _choose_encoding(path, found, None)[0]


def _closest_game(names: list[str]) -> tuple[str, list[str]] | None:
    """The game most of whose required columns the file has (at least half, and more than
    any other game), with the ones it lacks: a file that is that game's with columns missing."""
    from .schema import ROUND_MODELS

    ranked = []
    for g in ROUND_MODELS:
        required = [c.name for c in columns_of(g) if c.required]
        have = sum(n in names for n in required)
        ranked.append((have / len(required), g, [n for n in required if n not in names]))
    ranked.sort(reverse=True)
    if ranked[0][0] >= 0.5 and (len(ranked) == 1 or ranked[0][0] > ranked[1][0]):
        return ranked[0][1], ranked[0][2]
    return None


def open_source(path: Path, game: str | None = None, *, encoding: str | None = None,
                delimiter: str | None = None) -> Source:
    """Open one export: tell its game from its columns (or check them against ``game``),
    its text encoding and (CSV) its separator. ``encoding`` and ``delimiter`` override the
    detection. Raises InputError when the file as a whole cannot be audited."""
    name = path.name.lower()
    if not name.endswith(SUFFIXES):
        # A name that stands for nothing (a folder of exports mistyped, or not there yet) is said
        # to be missing, as a missing log is (the OSError), not as a file of another type.
        os.stat(path)
        raise InputError(str(path), "input.unknown_type")
    first_time, first_round = "", None
    stored: dict[str, str] = {}
    notes: list[tuple[str, dict]] = []
    codec, native, sep, preamble = "utf-8", True, ",", 0
    deferred = False  # the encoding checked beside the audit (see ``_HEAD``)
    if name.endswith(".parquet"):
        import pyarrow.parquet as pq  # 10 ms of every start if imported above: loaded for Parquet only

        kind = "parquet"
        try:
            schema = pq.read_schema(arrow_file(path))
            has_rows = pq.ParquetFile(arrow_file(path)).metadata.num_rows > 0
        except _PARQUET_ERRORS as exc:
            key, params = parquet_failure(exc, path)
            raise InputError(str(path), key, **params) from None
        given = schema.names
        names = schema_names(path, given)
        stored = {name: was for name, was in zip(names, given) if name != was}
        if has_rows:
            first_time, first_round = _parquet_first_row(path, names, stored)
    else:
        head = _head(path) if name.endswith(".csv") and not encoding else b""
        top = _first_lines_in(head)
        header_bytes = top.size + len(top.header) if top else 0  # (ASCII: a byte a character)
        deferred = top is not None
        if not deferred:
            # A file of an encoding given is never read before the encoding is checked (its
            # first bytes are not taken for ASCII, see ``_head``): that scan checks the text
            # to be in it throughout, and a file holding bytes that are none in it is refused
            # here, before any of its rows is read, as one whose gzip stream the scan finds
            # damaged. (Not read with those bytes replaced, nor stopped where the reader
            # meets them: the rows before would be audited, and the report would hold the
            # rounds of a file whose encoding was wrong.)
            found = scan(path, encoding=text_codec(encoding) if encoding else None)
            if found.blank:
                raise InputError(str(path), "input.empty")
            codec, native, notes = _choose_encoding(path, found, encoding)
        if name.endswith((".jsonl", ".jsonl.gz")):
            kind, has_rows = "jsonl", True
            names, first_time = _jsonl_names(path, codec)
            given = names
        else:
            kind = "csv"
            given, sep, top = _header_csv(path, codec, delimiter_option(delimiter), top)
            names = schema_names(path, given)
            first, preamble = top.first, top.before
            if top.hint is not None:
                notes.append(("input.excel_separator_line", {"line": top.hint.rstrip("\r\n").lstrip("\ufeff"),
                                                              "number": top.hint_line, "header": preamble + 1}))
            blank = preamble - (top.hint is not None)
            if blank:
                notes.append(("input.blank_lines_before_header", {"count": blank, "header": preamble + 1}))
            if sep != ",":
                notes.append(("input.delimiter_used", {"delimiter": _shown(sep)}))
            has_rows = bool(first.strip())
            try:
                row = next(csv.reader([first], delimiter=sep)) if has_rows else []
            except (csv.Error, StopIteration):
                row = []
            if len(row) == len(names):
                first_time = row[names.index("started_at")] if "started_at" in names else ""
                if "table_id" in names and "round_id" in names:
                    first_round = row[names.index("table_id")], row[names.index("round_id")]
    if game is None:
        game = detect_game(names)
        if game is None:
            if not has_rows and not names:
                raise InputError(str(path), "input.empty")
            closest = _closest_game(names) if kind != "jsonl" else None
            if closest is not None:
                raise InputError(str(path), "input.missing_columns_of", game=closest[0],
                                 columns=", ".join(closest[1]))
            if kind == "jsonl" and not names:
                raise InputError(str(path), "input.no_round_documents")
            raise InputError(str(path), "input.unknown_game", columns=", ".join(n[:40] for n in names[:12]))
    expected = columns_of(game)
    if kind == "parquet":
        # (a list or a struct has no text: said now, not after the rows before it are read)
        for read, f in zip(names, schema):
            if read in _known_of(game) and pa.types.is_nested(f.type):
                raise InputError(str(path), "input.parquet_column", column=f.name, type=str(f.type)[:60])
    missing = [c.name for c in expected if c.required and c.name not in names]
    if missing and kind != "jsonl":
        raise InputError(str(path), "input.missing_columns", columns=", ".join(missing))
    # A column of the game named twice: which of the two holds the field is anyone's guess.
    twice = sorted({n for n in names if names.count(n) > 1 and n in {c.name for c in expected}})
    if twice:
        raise InputError(str(path), "input.duplicate_columns", columns=", ".join(twice))
    known = _known_of(game) | {"hands"}
    # (as the file spells them: another game's column in capitals is no column of this one's)
    extra = [spelled for c, spelled in zip(names, given) if c not in known]
    absent = tuple(c.name for c in expected if c.name not in names) if kind != "jsonl" else ()
    unsettled = [name for name in absent if name in partners(game)]
    if unsettled:
        notes.append(("input.columns_absent", {"columns": ", ".join(unsettled)}))
    digest, verdict = _parts(digest_job(path, scanned=deferred))
    mark = not encoding and codec == "utf-16"  # (the detection's UTF-16, checked as an encoding given is)
    if not deferred:
        verdict, header_bytes = None, 0
    return Source(path=path, game=game, kind=kind, names=names, digest=digest, first_time=first_time,
                  first_round=first_round,
                  extra_columns=extra, encoding=codec, native=native, delimiter=sep,
                  strict=bool(encoding) or mark, mark=mark,
                  notes=notes,
                  verdict=verdict, header_bytes=header_bytes, preamble=preamble, absent=absent, stored=stored)


def _head(path: Path) -> bytes:
    """The first ``_HEAD`` bytes of a file when they are ASCII, not all blank, and the file is
    longer (else b"": the file is checked whole before it is read)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        return b""
    if len(head) < _HEAD or not head.isascii() or not head.strip():
        return b""
    return head


def _parts(job: Future) -> tuple[Future, Future]:
    """The two results of ``files.digest_job`` as two futures."""
    digest, verdict = Future(), Future()

    def done(finished: Future) -> None:
        error = finished.exception()
        for part, i in ((digest, 0), (verdict, 1)):
            if error is not None:
                part.set_exception(error)
            else:
                part.set_result(finished.result()[i])

    job.add_done_callback(done)
    return digest, verdict


def _jsonl_names(path: Path, encoding: str = "utf-8") -> tuple[list[str], str]:
    """Field names (round and hand fields) of the first round document among the file's first
    lines, and its start time (to put the files of a table in time order). The lines that the
    reader rejects as no round are passed over: an export may begin with a header object of
    its own (``{"export": …, "version": 2}``), ``{}`` or a round without hands. Where none
    of the first lines is a round, the names of the first object: they name no game, and the
    error lists them."""
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    first: dict | None = None
    try:
        with opener(path, "rt", encoding=_python_codec(encoding), errors="replace") as fh:
            for _, line in zip(range(1000), fh):
                try:
                    doc = json_of(line)
                except (ValueError, RecursionError):
                    continue
                if not isinstance(doc, dict):
                    continue
                doc = _keys_folded(doc)[0]
                hand = _first_hand(doc)
                if hand is not None:
                    return _document_names(doc, hand), str(doc.get("started_at") or "")
                if first is None:
                    first = doc
    except (OSError, EOFError, zlib.error, UnicodeError) as exc:
        key, params = _text_failure(exc, path, encoding)
        raise InputError(str(path), key, **params) from None
    return (_document_names(first, {}), str(first.get("started_at") or "")) if first is not None else ([], "")


def _text_failure(exc: BaseException, path: Path, encoding: str) -> tuple[str, dict]:
    """Why the first lines of a CSV or JSONL file could not be read (``files.read_failure``),
    else the library's words: of a gzip stream, or of an encoding given that the file is not in."""
    fallback = "input.not_in_encoding" if isinstance(exc, UnicodeError) else "input.bad_gzip"
    return read_failure(exc, path, encoding) or (fallback, {"encoding": encoding, "error": first_line(exc)})


# Arrow says that a Parquet file's bytes are not as the format has them with an ArrowInvalid or
# an error of its IO status (a Python OSError without errno), in English: "Parquet magic bytes
# not found in footer", "Couldn't deserialize thrift: …", "Corrupt snappy compressed data"; a
# compression or an encoding it lacks is "not supported" or "not implemented". A column name
# that is no UTF-8 fails pyarrow's own decoding of it.
_PARQUET_UNSUPPORTED = re.compile(r"not (yet )?(supported|implemented)|unsupported", re.I)
# (not Arrow's cancellation by a signal, Ctrl-C, nor its memory running out: no fault of a file)
_PARQUET_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowIndexError,
                   pa.ArrowKeyError, pa.ArrowCapacityError, pa.ArrowSerializationError, OSError, UnicodeDecodeError)


def parquet_failure(exc: BaseException, path: Path, row: int = 1) -> tuple[str, dict]:
    """The catalogue key (and its values) of why a Parquet file cannot be read, its rows
    from ``row`` on (the first row of the batch that failed); ``input.unreadable`` quoting
    Arrow for a reason of another kind."""
    said = system_failure(exc)
    if said is not None:
        return said
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(0)
            head = fh.read(4)
            fh.seek(max(0, size - 4))
            tail = fh.read(4)
    except OSError:  # (its bytes unknown: the reason is Arrow's alone)
        size, head, tail = -1, b"PAR1", b"PAR1"
    if size == 0:
        return "input.empty", {}
    if head != b"PAR1":
        return "input.not_parquet", {}
    if tail != b"PAR1" or size < 12:
        return "input.parquet_cut", {}
    if isinstance(exc, UnicodeDecodeError):
        return "input.parquet_column_names", {}
    if isinstance(exc, pa.ArrowNotImplementedError) or _PARQUET_UNSUPPORTED.search(str(exc)):
        return "input.parquet_unsupported", {}
    if isinstance(exc, (pa.ArrowInvalid, OSError)):
        return ("input.parquet_damaged_at", {"row": row}) if row > 1 else ("input.parquet_damaged", {})
    return "input.unreadable", {"error": first_line(exc)}


def _first_hand(doc: dict) -> dict | None:
    """The first hand of a JSON object that is a round (a ``hands`` list holding an object),
    else None; its keys as written (``doc``'s as the format names them: ``_keys_folded``)."""
    hands = doc.get("hands")
    return next((h for h in hands if isinstance(h, dict)), None) if isinstance(hands, list) else None


def _document_names(doc: dict, hand: dict) -> list[str]:
    """The fields a round document and its hand give, as the format names them (``_key_named``)."""
    return list(dict.fromkeys([_key_named(str(k)) for k in doc if k != "hands"] + [_key_named(str(k)) for k in hand]))


def _blank_rows(table: pa.Table, names: list[str]) -> np.ndarray:
    """Rows whose every field (of the columns named ``names``) is empty: blank lines, not
    records."""
    names = set(names)
    columns = [table.column(i) for i, n in enumerate(table.column_names) if n in names]
    if not table.num_rows or not columns:
        return np.zeros(table.num_rows, bool)
    blank = np.ones(table.num_rows, bool)
    for column in columns:
        at = 0
        for chunk in column.chunks:  # large strings without nulls, maybe run-encoded
            coded = pa.types.is_dictionary(chunk.type)
            offsets, _ = buffers(chunk.dictionary if coded else chunk)
            empty = offsets[1:] == offsets[:-1]
            blank[at:at + len(chunk)] &= empty[chunk.indices.to_numpy()] if coded else empty
            at += len(chunk)
        if not blank.any():
            break
    return blank


def _line_hash(line: str) -> int:
    """A 64-bit hash of a line's text, the same in every process (see ``Source.record_rejects``)."""
    return int.from_bytes(hashlib.blake2b(line.rstrip("\r\n").encode("utf-8", "surrogatepass"), digest_size=8).digest(),
                          "little")
