"""Export files as streams of string batches, so that a log larger than memory is read in
pieces. Each batch holds whole rounds: the rows of a file's last round in a batch are held
back and start the next batch (a round's rows must be contiguous in a file, as table systems
export them). Every record read is counted; records that cannot even be split into fields
(a CSV row with the wrong number of fields, a JSON line that does not parse) are rejected
here with their line number.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pv
import pyarrow.parquet as pq

from .ingest import EMPTY_REJECTS, InputError, _json_scalar_to_str, _rejects, _sha256, detect_game
from .schema import columns_of

__all__ = ["Source", "open_source", "SUFFIXES", "BATCH_ROWS"]

SUFFIXES = (".csv", ".csv.gz", ".jsonl", ".jsonl.gz", ".parquet")
BATCH_ROWS = 250_000


@dataclass
class Source:
    """One export file of one game. ``records_read`` and ``record_rejects`` are complete
    once ``batches()`` has been exhausted."""

    path: Path
    game: str
    kind: str  # csv | jsonl | parquet
    names: list[str]
    sha256: str
    first_time: str = ""
    extra_columns: list[str] = field(default_factory=list)
    records_read: int = 0
    record_rejects: list[pd.DataFrame] = field(default_factory=list)

    def batches(self, rows: int = BATCH_ROWS) -> Iterator[pd.DataFrame]:
        """String frames with the game's columns plus _file, _line and _record, each holding
        whole rounds."""
        reader = {"csv": self._csv, "jsonl": self._jsonl, "parquet": self._parquet}[self.kind]
        held: pd.DataFrame | None = None
        for frame in reader(rows):
            frame = self._conform(frame)
            if held is not None:
                frame = pd.concat([held, frame], ignore_index=True)
            cut = _last_round_start(frame)
            held = frame.iloc[cut:]
            if cut:
                yield frame.iloc[:cut].reset_index(drop=True)
        if held is not None and len(held):
            yield held.reset_index(drop=True)

    def _conform(self, frame: pd.DataFrame) -> pd.DataFrame:
        expected = [c.name for c in columns_of(self.game)]
        for name in expected:
            if name not in frame.columns:
                frame[name] = ""
        out = frame[expected + ["_line", "_record"]]
        out.insert(0, "_file", pd.Categorical.from_codes(np.zeros(len(out), np.int8), [str(self.path)]))
        return out

    # --- readers ----------------------------------------------------------------------
    def _csv(self, rows: int) -> Iterator[pd.DataFrame]:
        invalid: list[tuple[int, str]] = []

        def skip(row) -> str:
            invalid.append((row.number, row.text))
            return "skip"

        stream = pa.input_stream(str(self.path), compression="gzip" if self.path.name.endswith(".gz") else None)
        try:
            reader = pv.open_csv(
                stream,
                # Blocks of about ``rows`` rows (a hand row is ~130 bytes); single-threaded so
                # that skipped rows keep their line numbers.
                read_options=pv.ReadOptions(column_names=self.names, skip_rows=1, use_threads=False,
                                            block_size=max(1 << 14, min(rows * 128, 1 << 26))),
                parse_options=pv.ParseOptions(newlines_in_values=False, invalid_row_handler=skip),
                convert_options=pv.ConvertOptions(column_types={n: pa.string() for n in self.names},
                                                  strings_can_be_null=False, quoted_strings_can_be_null=False))
        except (pa.ArrowInvalid, OSError) as exc:
            raise InputError(str(self.path), "input.unparsable", error=str(exc).splitlines()[0]) from None
        next_line = 2  # line 1 is the header
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                break
            except (pa.ArrowInvalid, OSError) as exc:
                raise InputError(str(self.path), "input.unparsable_at", line=next_line,
                                 error=str(exc).splitlines()[0][:200]) from None
            n = batch.num_rows
            # Valid rows take the line numbers that the skipped rows did not (the handler has
            # seen every invalid row up to the end of this batch, and maybe beyond).
            skipped = np.array([num for num, _ in invalid if num is not None and num >= next_line], np.int64)
            candidates = np.arange(next_line, next_line + n + len(skipped))
            lines = np.setdiff1d(candidates, skipped, assume_unique=True)[:n] if len(skipped) else candidates[:n]
            next_line = int(lines[-1]) + 1 if n else next_line
            frame = batch.to_pandas()
            frame["_line"] = lines
            frame["_record"] = lines
            self.records_read += n
            yield frame
        if invalid:
            numbers = [num if num is not None else -1 for num, _ in invalid]
            self.records_read += len(invalid)
            self.record_rejects.append(_rejects(str(self.path), numbers, "", "reject.bad_fields",
                                                [text[:120] for _, text in invalid]))

    def _jsonl(self, rows: int) -> Iterator[pd.DataFrame]:
        opener = gzip.open if self.path.name.endswith(".gz") else open
        buffered: list[dict] = []
        bad_lines: list[int] = []
        bad_detail: list[str] = []
        with opener(self.path, "rt", encoding="utf-8-sig", errors="strict") as fh:
            try:
                for number, line in enumerate(fh, start=1):
                    if not line.strip():
                        continue
                    self.records_read += 1
                    try:
                        doc = json.loads(line)
                        if not isinstance(doc, dict) or not isinstance(doc.get("hands"), list) or not doc["hands"]:
                            raise ValueError("a round object with a non-empty 'hands' list is required")
                    except (ValueError, RecursionError) as exc:
                        bad_lines.append(number)
                        bad_detail.append(str(exc)[:200])
                        continue
                    base = {k: v for k, v in doc.items() if k != "hands"}
                    for hand in doc["hands"]:
                        if not isinstance(hand, dict):
                            hand = {"cards": "\x00"}  # rejected later as unreadable cards
                        buffered.append({**base, **hand, "_line": number, "_record": number})
                    if len(buffered) >= rows:
                        yield _json_frame(buffered)
                        buffered = []
            except UnicodeDecodeError:
                raise InputError(str(self.path), "input.bad_encoding") from None
        if buffered:
            yield _json_frame(buffered)
        if bad_lines:
            self.record_rejects.append(_rejects(str(self.path), bad_lines, "", "reject.bad_json", bad_detail))

    def _parquet(self, rows: int) -> Iterator[pd.DataFrame]:
        try:
            parquet = pq.ParquetFile(self.path)
            first = 1
            for batch in parquet.iter_batches(batch_size=rows):
                table = pa.Table.from_batches([batch])
                table = table.cast(pa.schema([pa.field(n, pa.string()) for n in table.column_names]))
                frame = table.to_pandas().fillna("")
                frame["_line"] = np.arange(first, first + len(frame))
                frame["_record"] = frame["_line"]
                first += len(frame)
                self.records_read += len(frame)
                yield frame
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
            raise InputError(str(self.path), "input.unreadable", error=type(exc).__name__) from None


def _json_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    cols = [c for c in frame.columns if not c.startswith("_")]
    frame[cols] = frame[cols].map(_json_scalar_to_str)
    return frame


def _last_round_start(frame: pd.DataFrame) -> int:
    """Index where the frame's trailing run of rows of one round begins."""
    if not len(frame):
        return 0
    t = frame["table_id"].to_numpy()
    r = frame["round_id"].to_numpy()
    other = np.flatnonzero((t != t[-1]) | (r != r[-1]))
    return int(other[-1]) + 1 if len(other) else 0


def _header_csv(path: Path) -> tuple[list[str], str]:
    """(column names, first data line) of a CSV file."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:
            header = fh.readline()
            first = fh.readline()
    except UnicodeDecodeError:
        raise InputError(str(path), "input.bad_encoding") from None
    except (OSError, EOFError) as exc:
        raise InputError(str(path), "input.bad_gzip", error=str(exc)) from None
    if not header.strip():
        raise InputError(str(path), "input.empty")
    try:
        names = [h.strip() for h in next(csv.reader([header]))]
    except csv.Error as exc:
        raise InputError(str(path), "input.unparsable", error=str(exc)) from None
    if len(set(names)) != len(names) or not all(names):
        raise InputError(str(path), "input.bad_header")
    return names, first


def open_source(path: Path, game: str | None = None) -> Source:
    """Open one export: tell its game from its columns (or check them against ``game``).
    Raises InputError when the file as a whole cannot be audited."""
    name = path.name.lower()
    if not name.endswith(SUFFIXES):
        raise InputError(str(path), "input.unknown_type")
    first_time = ""
    if name.endswith((".jsonl", ".jsonl.gz")):
        kind, names, has_rows = "jsonl", _jsonl_names(path), True
        first_time = ""
    elif name.endswith(".parquet"):
        kind = "parquet"
        try:
            schema = pq.read_schema(path)
            has_rows = pq.ParquetFile(path).metadata.num_rows > 0
        except (pa.ArrowInvalid, OSError) as exc:
            raise InputError(str(path), "input.unreadable", error=type(exc).__name__) from None
        names = list(schema.names)
    else:
        kind = "csv"
        names, first = _header_csv(path)
        has_rows = bool(first.strip())
        if has_rows and "started_at" in names:
            try:
                row = next(csv.reader([first]))
                first_time = row[names.index("started_at")] if len(row) == len(names) else ""
            except (csv.Error, StopIteration):
                first_time = ""
    if game is None:
        game = detect_game(names)
        if game is None:
            if not has_rows and not names:
                raise InputError(str(path), "input.empty")
            raise InputError(str(path), "input.unknown_game", columns=", ".join(names[:12]))
    expected = columns_of(game)
    missing = [c.name for c in expected if c.required and c.name not in names]
    if missing and has_rows and kind != "jsonl":
        raise InputError(str(path), "input.missing_columns", columns=", ".join(missing))
    known = {c.name for c in expected} | {"game", "hands"}
    extra = [c for c in names if c not in known]
    return Source(path=path, game=game, kind=kind, names=names, sha256=_sha256(path),
                  first_time=first_time, extra_columns=extra)


def _jsonl_names(path: Path) -> list[str]:
    """Field names of the first readable round document (round and hand fields)."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8-sig") as fh:
            for _, line in zip(range(1000), fh):
                try:
                    doc = json.loads(line)
                except ValueError:
                    continue
                if isinstance(doc, dict):
                    hands = doc.get("hands") if isinstance(doc.get("hands"), list) else []
                    hand = hands[0] if hands and isinstance(hands[0], dict) else {}
                    return [k for k in doc if k != "hands"] + list(hand)
    except UnicodeDecodeError:
        raise InputError(str(path), "input.bad_encoding") from None
    except (OSError, EOFError) as exc:
        raise InputError(str(path), "input.bad_gzip", error=str(exc)) from None
    return []
