"""A light first look at a log file (whose content hash the runner has taken): its game and,
per table, the time of its first and last round. The batch planner uses it to choose which earlier files a new
file must be audited with (rules that compare a round with the table's previous round).

It reads only the header and the ``table_id``/``started_at`` columns; anything it cannot
read is left to the audit itself, which reports the reason. A text is read as the audit reads
it: as UTF-8 when it is (most files: nothing more is done), else in the encoding the audit
detects (Windows-1252, UTF-16), never as UTF-8 with bytes replaced (a table «Tñ1» of a
Windows-1252 file would be «T�1», another table than the same table's in a UTF-8 file, and
the day after it would be audited without it).
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

__all__ = ["FileScan", "scan"]


@dataclass(frozen=True)
class FileScan:
    path: str
    sha256: str
    game: str | None = None
    # table_id -> (first started_at, last started_at) in UTC nanoseconds
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    error: str | None = None


def _detect(columns) -> str | None:
    from ..logs.schema import ROUND_MODELS, columns_of

    cols = set(columns)
    found = [g for g in ROUND_MODELS if {c.name for c in columns_of(g) if c.required} <= cols]
    return found[0] if len(found) == 1 else None


def _read(path: Path) -> tuple[list[str], pd.DataFrame]:
    name = path.name.lower()
    if name.endswith(".parquet"):
        import pyarrow.parquet as pq

        from ..logs.sources import schema_names, arrow_file

        stored = pq.read_schema(arrow_file(path)).names
        columns = schema_names(path, stored)  # (as the audit names them: TABLE_ID is table_id)
        given = {name: was for name, was in zip(columns, stored) if name in ("table_id", "started_at")}
        frame = pq.read_table(arrow_file(path), columns=list(given.values())).to_pandas().astype(str)
        return columns, frame.rename(columns={was: name for name, was in given.items()})
    if name.endswith((".jsonl", ".jsonl.gz")):
        from ..logs.jsonnumbers import json_of
        from ..logs.sources import _document_names, _first_hand, _keys_folded, _python_codec, detected_encoding

        data = path.read_bytes()
        if name.endswith(".gz"):
            data = gzip.decompress(data)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:  # (not UTF-8: read as the audit reads it, see above)
            text = data.decode(_python_codec(detected_encoding(path)), "replace")
        columns: list[str] = []
        rows = []
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                doc = json_of(line)  # (as the audit reads it: an integer of 5,000 digits is a number)
            except (ValueError, RecursionError):
                continue
            if not isinstance(doc, dict):
                continue
            doc = _keys_folded(doc)[0]  # (as the audit reads its keys: TABLE_ID is table_id)
            hand = _first_hand(doc) if not columns else None
            if hand is not None:  # the first round's (as the audit tells the game: not an export's header object)
                columns = _document_names(doc, hand)
            rows.append((str(doc.get("table_id", "")), str(doc.get("started_at", ""))))
        return sorted(columns), pd.DataFrame(rows, columns=["table_id", "started_at"])
    from ..logs.sources import detected_encoding

    try:
        return _read_csv(path, "utf-8", "strict")
    except UnicodeDecodeError:  # (not UTF-8: read as the audit reads it, see above)
        return _read_csv(path, detected_encoding(path), "replace")


def _read_csv(path: Path, encoding: str, errors: str) -> tuple[list[str], pd.DataFrame]:
    from ..logs.sources import _python_codec, csv_rows

    # Exports put blank lines or Excel's separator hint before the header, or write it in
    # capitals: the header is found as the audit finds it.
    with csv_rows(path, encoding, errors) as (columns, delimiter, rows, before):
        use = [c for c in ("table_id", "started_at") if c in columns]
        # (a header on the first line, as most exports have it: pandas reads the file itself,
        # about a fifth faster than through the text stream; UTF-8 by its own decoder, which
        # skips a byte order mark)
        itself = {"encoding": "utf-8" if encoding == "utf-8" else _python_codec(encoding), "encoding_errors": errors}
        frame = pd.read_csv(rows if before else path, sep=delimiter, header=None if before else 0, names=columns,
                            usecols=use, index_col=False, dtype=str, keep_default_na=False,
                            **({} if before else itself))
    return columns, frame


def scan(item: tuple[str, str]) -> FileScan:
    """Game and per-table time span of one file, given as (path, its SHA-256 as hashed by the
    caller); never raises."""
    path, digest = item
    p = Path(path)
    try:
        columns, frame = _read(p)
    except Exception as exc:  # the audit reports the real reason
        return FileScan(path=str(path), sha256=digest, error=f"{type(exc).__name__}: {exc}"[:200])
    game = _detect(columns)
    try:
        spans = _spans(frame)
    except Exception as exc:  # (as above: never raises)
        return FileScan(path=str(path), sha256=digest, game=game, error=f"{type(exc).__name__}: {exc}"[:200])
    return FileScan(path=str(path), sha256=digest, game=game, spans=spans)


def _spans(frame: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """Each table's first and last time, UTC nanoseconds, the times read as the audit reads
    them (``ingest.time_column``: a time without zone is Lima's; one outside the years a round
    can have, such as .NET's 0001-01-01 for no date, is none)."""
    import pyarrow as pa

    from ..logs.ingest import time_column

    if "table_id" not in frame or "started_at" not in frame or not len(frame):
        return {}
    table_id, started_at = frame["table_id"].str.strip(), frame["started_at"].str.strip()
    # A round's rows repeat its table and time, one after the other: each is parsed once.
    first = (table_id != table_id.shift()) | (started_at != started_at.shift())
    table_id, started_at = table_id[first], started_at[first]
    times, bad = time_column(pa.array(started_at.to_numpy(dtype=object), type=pa.large_string()))
    ok = ~bad & (table_id != "").to_numpy()
    if not ok.any():
        return {}
    # In nanoseconds whatever the text: pandas 3 gives times the resolution their text needs
    # (microseconds, nanoseconds for a fraction of nine digits), so files would differ in unit.
    ns = pd.Series(times[ok].dt.as_unit("ns").array.asi8, index=table_id.index[ok])
    grouped = ns.groupby(table_id[ok])
    lo, hi = grouped.min(), grouped.max()
    return {str(t): (int(lo[t]), int(hi[t])) for t in sorted(lo.index)}
