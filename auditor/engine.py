"""The audit: files in, findings and per-rule outcomes out. Never prints, never exits.

Flow: read every file as strings → per game, type and validate every row → reject whole
rounds that have a bad row → sort the rest deterministically → run every registered check
on every round → collect findings, rule outcomes and the accounting of every record.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from . import __version__
from .checks.base import (DECK_CASELESS, DECK_FIELDS, KEY_BASE, CheckResult, categorical_objects, cents_from_scaled, group_any, round_index,
                          unique_groups)
from .allocator import release_freed_memory
from .arrowtext import as_large_string, buffers
from .compiled import kernel
from .findings import InputSummary, RuleOutcome
from .i18n import os_error, t
from .logs.files import InputError, path_text
from .logs.ingest import HandTable, collect_rejects, same_text, time_column, type_rows
from .logs.csvsplit import last_line_end
from .logs.sources import BATCH_ROWS, SUFFIXES, Source, absent_bits, batch_schema, concat_batches, open_source, unreadable_ids
from .logs.schema import columns_of, partners
from .money import cents_text
from .rowwise import frame_rows
from .profiles import ProfileBase, ProfileSet
from .registry import plugin

__all__ = ["AuditResult", "audit", "discover", "open_log", "SCHEMA_VERSION", "FINDING_COLUMNS", "REASON_KEY",
           "finding_message"]

SCHEMA_VERSION = "1.0"
# Rows per chunk: with a chunk of 300,000 hand rows audited and the next one read, a 1M-round
# audit peaks at about 0.8 GB (0.6 GB at 200,000 rows, for 0.1-0.3 s more of per-chunk
# work); a log of that size or less is audited in one pass.
CHUNK_ROWS = 300_000
FINDING_COLUMNS = ["code", "game", "directive", "article", "source", "severity", "table_id", "round_id",
                   "seat", "hand", "started_at", "dealer_id", "message", "expected", "observed", "impact",
                   "evidence", "file", "line"]
# Beside the reports' columns, the findings' frame keeps what their message is made of: the
# catalogue key of its reason ("" where the message is the rule's title alone). By it
# `auditor batch` keeps a finding's message in every language (``finding_message``).
REASON_KEY = "reason_key"
_FRAME_COLUMNS = [*FINDING_COLUMNS, REASON_KEY]
LIMA = "America/Lima"


@dataclass
class AuditResult:
    inputs: list[InputSummary]
    rules: list[RuleOutcome]
    findings: pd.DataFrame
    rejected: pd.DataFrame
    games: list[str]
    profiles: list[ProfileBase]
    lang: str
    period: tuple[str | None, str | None] = (None, None)
    totals: dict = field(default_factory=dict)
    tables: dict[str, int] = field(default_factory=dict)  # rounds audited per table
    # Per file: its rounds (a round cut across two files counted in the one of its first row),
    # hands and stakes audited, its first and last round's time. A batch audits a file with the
    # days before it read only as context: its report counts the files it records, not those.
    file_totals: dict[str, dict] = field(default_factory=dict)
    # Files of which nothing was audited for faults of their own (every record rejected, some
    # in rounds no other file's copy had audited, nor an earlier file's rejected): an audit
    # that did not look at them.
    unaudited: list[str] = field(default_factory=list)
    # The paths given, when no log file was found under any of them (an export that did not
    # arrive): an audit of nothing, which is no clean audit (exit 2).
    searched_in_vain: list[str] = field(default_factory=list)
    # How long the audit took, in seconds, whole and of each game (for JUnit's ``time``): the
    # only part of a result that differs from run to run on the same inputs, with the time a
    # report is made. Not known (0, empty) for a result that no audit timed.
    seconds: float = 0.0
    game_seconds: dict[str, float] = field(default_factory=dict)
    tool_version: str = __version__

    @property
    def input_errors(self) -> list[InputSummary]:
        return [i for i in self.inputs if i.error]


def discover(paths: Iterable[Path], exclude: Iterable[Path] = ()) -> list[Path]:
    """Every log file under the given files and folders, sorted, each once: a file named
    twice (by a relative and an absolute path, through a link, or in a folder given with
    one of its files) is read under the first name it is given. A link named as a log whose
    target is gone is listed too: opening it fails, and the report says so (an export
    missing from a folder is not passed over in silence). Files in a folder under
    ``exclude`` (where the reports are written: a folder of exports may hold it, and the
    findings' CSV of the last run is no log) are not looked for, unless named themselves."""
    found: dict[Path, Path] = {}  # the file itself -> the name it is read under
    skip = [_the_file(Path(e)) for e in exclude]
    for p in map(Path, paths):
        if p.is_dir():
            named = sorted((f for f in p.rglob("*") if (f.is_file() or f.is_symlink() and not f.exists())
                            and f.name.lower().endswith(SUFFIXES) and not f.name.lower().endswith(".truth.csv")
                            and not any(_the_file(f.parent).is_relative_to(e) for e in skip)),
                           key=str)
        else:
            named = [p]
        for f in named:
            found.setdefault(_the_file(f), f)
    return sorted(found.values(), key=lambda f: str(f))


def _the_file(path: Path) -> Path:
    """The file a name stands for (its absolute path, links followed); the absolute name
    itself where there is no file (a link whose target is gone, each listed as itself) or it
    cannot be told (a loop of links)."""
    try:
        return path.resolve() if path.exists() else path.absolute()
    except (OSError, RuntimeError):
        return path.absolute()


def audit(paths: Iterable[Path], *, game: str | None = None, profiles: list[ProfileBase] = (),
          lang: str = "es", progress: Callable[[str], None] | None = None,
          chunk_rows: int = CHUNK_ROWS, encoding: str | None = None, delimiter: str | None = None,
          exclude: Iterable[Path] = (), counted: Iterable[Path] | None = None) -> AuditResult:
    """Audit every log under ``paths``. Logs are read in chunks of about ``chunk_rows``
    rows holding whole rounds, so memory stays bounded whatever the size of the input; the
    result is the same as a single pass over everything (see ``_GameRun``). ``encoding`` and
    ``delimiter`` override what is detected in each file (see ``logs.sources``); ``exclude``:
    folders not looked in (see ``discover``); ``counted``: the files whose rounds the rules'
    counts (rounds checked, violations) count, where the others are read only for the rounds
    before them (a batch's context); None, every file."""
    # The first call of compiled code loads numba's runtime (0.02-0.03 s, see
    # ``compiled._MachineCode``): done beside the scan of the files, not ahead of the first rows.
    began = time.perf_counter()
    threading.Thread(target=last_line_end, args=(np.zeros(1, np.uint8),), daemon=True).start()
    inputs: dict[str, InputSummary] = {}
    sources: dict[str, list[Source]] = {}
    paths = list(paths)
    found = discover(paths, exclude)
    for path in found:
        src, error = open_log(path, game, lang=lang, encoding=encoding, delimiter=delimiter)
        if error is not None:
            inputs[path_text(path)] = _failed_input(path, error)
            continue
        sources.setdefault(src.game, []).append(src)

    rules: list[RuleOutcome] = []
    findings, rejected, firsts, lasts = [], [], [], []
    totals = {"rounds": 0, "hands": 0, "wagered": 0}
    tables: dict[str, int] = {}
    file_totals: dict[str, dict] = {}
    unaudited: list[str] = []
    games = sorted(sources) if game is None else [game]
    game_seconds: dict[str, float] = {}
    counted = None if counted is None else {path_text(Path(p)) for p in counted}
    for g in games:
        game_began = time.perf_counter()
        srcs = _in_time_order(sources.pop(g, []))
        by_name = {s.name: s.path for s in srcs}
        reread = lambda name, by_name=by_name, g=g: open_source(by_name[name], g, encoding=encoding,  # noqa: E731
                                                                 delimiter=delimiter).batches()
        unread = [s.unread() for s in srcs] if len(srcs) == 1 else None
        try:
            run, errors = _run_game(g, srcs, profiles, lang, chunk_rows, progress, reread, counted)
        except _Disorder:  # (a file of one game out of time order: see _Watch)
            run = None
        if run is None:  # (out of the handler, whose traceback holds the first pass's run)
            srcs = unread
            run, errors = _run_game(g, srcs, profiles, lang, chunk_rows, None, reread, counted, ledger=True)
        outcome = run.finish([r for s in srcs for r in s.record_rejects])
        rules.extend(outcome["rules"])
        findings.append(outcome["findings"])
        rejected.append(outcome["rejected"])
        if outcome["first"] is not None:
            firsts.append(outcome["first"])
            lasts.append(outcome["last"])
        for k in totals:
            totals[k] += outcome["totals"][k]
        for table_id, count in outcome["tables"].items():
            tables[table_id] = tables.get(table_id, 0) + count
        for path, (rounds, hands, wagered, first, last) in outcome["file_totals"].items():
            file_totals[path] = {"rounds": rounds, "hands": hands, "wagered": wagered,
                                 "first": _iso(first), "last": _iso(last)}
        for src in srcs:
            path = src.name
            bad = outcome["rejected_records"].get(path, 0)
            good = outcome["audited_records"].get(path, 0)
            lost = src.records_read - good - bad
            if lost > 0:
                # Records counted as read that reached neither the audit nor a reject (a file
                # that broke off mid-round): listed as rejected, so that no row goes unseen.
                bad += lost
                rejected.append(collect_rejects(pd.DataFrame({"_file": [path], "_line": [0]}),
                                                [(np.ones(1, bool), "", "reject.unread")]).assign(
                    detail=str(lost), _row=-1).drop(columns="_row"))
            if not good and (lost > 0 or path in outcome["refused_files"]):
                unaudited.append(path)
            inputs[path] = InputSummary(
                path=path, sha256=src.sha256, game=g, records_read=src.records_read,
                records_audited=good, records_rejected=bad,
                error=errors.get(src.name), extra_columns=tuple(src.extra_columns),
                notes=tuple(t(key, lang, **params) for key, params in src.notes))
        game_seconds[g] = time.perf_counter() - game_began
    release_freed_memory()  # the reading is over: what it kept freed for the next chunk is no one's
    all_findings = pd.concat(findings, ignore_index=True) if findings else pd.DataFrame(columns=_FRAME_COLUMNS)
    all_rejected = pd.concat(rejected, ignore_index=True) if rejected else _empty_rejects()
    period = (_iso(min(firsts)), _iso(max(lasts))) if firsts else (None, None)
    return AuditResult(inputs=[inputs[k] for k in sorted(inputs)], rules=rules, findings=all_findings,
                       rejected=all_rejected, games=games, profiles=list(profiles), lang=lang, period=period,
                       totals=totals, tables=dict(sorted(tables.items())), file_totals=dict(sorted(file_totals.items())),
                       unaudited=sorted(unaudited),
                       searched_in_vain=[] if found else list(dict.fromkeys(map(path_text, paths))),
                       seconds=time.perf_counter() - began, game_seconds=game_seconds)


def _run_game(game: str, srcs: list[Source], profiles, lang: str, chunk_rows: int, progress,
              reread: Callable[[str], Iterable[pa.Table]], counted: set[str] | None,
              ledger: bool = False) -> tuple[_GameRun, dict[str, str]]:
    """One game's files audited chunk by chunk: (the run, to be finished; each file's reading
    error). ``counted``, ``ledger``: see ``_GameRun``."""
    run = _GameRun(game, profiles, lang, line_rounds={s.name for s in srcs if s.kind == "jsonl"},
                   files=len(srcs), reread=reread, counted=counted, ledger=ledger)
    errors: dict[str, str] = {}
    chunks = _read_ahead(_chunks(srcs, chunk_rows, errors, lang, progress), run.prepare)
    try:
        for _ in iter(lambda: run.add_next(chunks), False):
            pass
    finally:  # stops the reader thread at once, also when the audit raised
        chunks.close()
    return run, errors


def open_log(path: Path, game: str | None = None, *, lang: str = "es", encoding: str | None = None,
             delimiter: str | None = None) -> tuple[Source | None, str | None]:
    """(the source, None) of one log, or (None, why it cannot be read at all, in ``lang``)."""
    if path.exists() and not path.is_file():  # a pipe or a device named as a log: reading it could wait forever
        return None, t("input.not_a_file", lang)
    try:
        return open_source(path, game, encoding=encoding, delimiter=delimiter), None
    except InputError as exc:
        return None, exc.text(lang)
    except OSError as exc:
        return None, t("input.unreadable", lang, error=path_text(os_error(exc, lang)))


def _failed_input(path: Path, error: str) -> InputSummary:
    return InputSummary(path=path_text(path), sha256="", game=None, records_read=0, records_audited=0,
                        records_rejected=0, error=error)


def _in_time_order(sources: list[Source]) -> list[Source]:
    """Files in time order of their first rounds (then by name; a file whose first time is
    missing or corrupt last), so that a table's rounds arrive in time order across the
    files of successive days, whatever order the command line gave."""
    # Read as the rows' times are (a time without zone is Lima's; a corrupt one is no time).
    ts, bad = time_column(pa.array([s.first_time for s in sources], pa.large_string()))
    keys = np.where(bad, np.iinfo(np.int64).max, ts.to_numpy("datetime64[ns]").view(np.int64))
    return [s for _, _, s in sorted(zip(keys.tolist(), [s.name for s in sources], sources),
                                    key=lambda k: k[:2])]


def _chunks(sources: list[Source], chunk_rows: int, errors: dict, lang: str, progress):
    """Concatenated batches of whole rounds, about ``chunk_rows`` rows each. The first is
    about an eighth of that, so that the auditing thread waits less for the reader to start.
    The last comes in halves of halves (down to a quarter of a chunk), so that less is left to
    audit once the reading ends: each piece is audited while the next is typed, and the
    auditing thread, which the reader stays up to two chunks ahead of, is left with small
    pieces. (A chunk is given once a quarter of one has been read after it: the last one is
    then known.) A round that one file ends and the next begins stays in one chunk (see
    ``_give``)."""
    pending: list[pa.Table] = []
    size, quarter, started = 0, max(1, chunk_rows // 4), False
    several = len(sources) > 1  # a chunk then leaves a batch after it: it may go on with its last round
    order = _ReadingOrder(sources)
    last = None  # (table, round) of the last row read
    while (src := order.take(last)) is not None:
        if progress:
            progress(src.name)
        try:
            for batch in src.batches(max(1_000, min(quarter, BATCH_ROWS))):
                if batch.num_rows:
                    last = _round_at(batch, batch.num_rows - 1)
                pending.append(batch)
                size += batch.num_rows
                after = batch.num_rows if several else 0
                if not started and size - after >= max(1, chunk_rows // 8):
                    if several:
                        given = yield from _give(pending, max(1, chunk_rows // 8))
                        size -= given
                        started = given > 0
                    else:
                        size, started = 0, True
                        yield _drain(pending)
                elif size - after >= chunk_rows + quarter:
                    size -= yield from _give(pending, chunk_rows)
        except InputError as exc:
            errors[src.name] = exc.text(lang)
    while size > quarter:  # the last chunk, in halves of halves
        size -= yield from _give(pending, size // 2, more=False)
        started = True
    if pending:
        yield _drain(pending)
    elif not started:  # nothing read: one empty chunk, so that every rule is still judged
        yield None


class _ReadingOrder:
    """The order the files are read in: time order, but for the file read after one whose
    last round another file begins with, which is that file (of several, the first in time
    order in the same folder as the one just read, else the first in time order). So a round
    an export cuts in two files is read whole (see ``_give``) whatever order time puts the
    files in: an export sorted by table and split by size interleaves the tables' files, a
    file whose first time is unreadable comes last, and in a cut export given twice each
    copy's file stands between the two parts of the other's. (Where the file taken is a
    copy of the whole round and not the rest of it, the round stays cut, as
    docs/known-problems.md says.)"""

    def __init__(self, sources: list[Source]):
        self.sources, self.read, self.next_unread, self.folder = sources, [False] * len(sources), 0, None
        self.starting: dict[tuple[str, str], list[int]] = {}  # the files that begin with each round
        for i, src in enumerate(sources):
            if src.first_round is not None:
                self.starting.setdefault(src.first_round, []).append(i)

    def take(self, last: tuple[str, str] | None) -> Source | None:
        """The next file to read (None when all are), ``last`` the round read last."""
        going_on = [i for i in self.starting.get(last, ()) if not self.read[i]]
        same_folder = [i for i in going_on if self.sources[i].path.parent == self.folder]
        if same_folder or going_on:
            i = (same_folder or going_on)[0]
        else:
            while self.next_unread < len(self.sources) and self.read[self.next_unread]:
                self.next_unread += 1
            if self.next_unread == len(self.sources):
                return None
            i = self.next_unread
        self.read[i] = True
        self.folder = self.sources[i].path.parent
        return self.sources[i]


def _round_at(batch: pa.Table, row: int) -> tuple[str, str]:
    return batch.column("table_id")[row].as_py(), batch.column("round_id")[row].as_py()


def _give(pending: list[pa.Table], rows: int, more: bool = True):
    """Yields the first batches of ``pending`` that hold at least ``rows`` rows, as one
    chunk (they leave ``pending``), and the batch after them while it goes on with their
    last round (a round cut in files: see ``_cut_rounds``); returns how many rows they
    held. Where the last batch pending is taken and goes on with that round, and batches are
    still to be read (``more``), nothing is given (0): the batch read next may go on with the
    round too (a file made of a part of one round alone, the next file going on with it), and
    the chunk waits for it. (A file's batches end where a round ends, and its last is its last round
    alone, ``Source.batches``: so a chunk waits only through files made of a part of one
    round, and a batch more.)"""
    k, held = 0, 0
    while held < rows or (0 < k < len(pending) and _goes_on(pending[k - 1], pending[k])):
        held += pending[k].num_rows
        k += 1
    if more and k == len(pending) and k > 1 and _goes_on(pending[k - 2], pending[k - 1]):
        return 0
    rest = pending[k:]
    del pending[k:]
    yield _drain(pending)
    pending.extend(rest)
    return held


# The states of a chunk read ahead (see _read_ahead).
_RAW, _TAKEN, _READY, _FAILED = "raw", "taken", "ready", "failed"
_AHEAD = 2  # chunks read ahead of the one audited
_END = object()


def _read_ahead(chunks: Iterator, prepare: Callable) -> Iterator:
    """The chunks, read ahead by a thread and prepared (see ``_GameRun.prepare``), in order:
    the compiled parsers, Arrow and numpy work on the next chunks mostly without holding the
    GIL while this one is audited, which puts the machine's second core to work.

    The two threads share the work as it comes. The reader reads the next chunk while fewer
    than ``_AHEAD`` wait, else it prepares the oldest that waits unprepared. The auditing
    thread audits the next chunk once it is prepared; until then it prepares that one itself
    if no one has taken it, else the next unprepared one, else it waits. So neither thread
    sits idle while there is work it can do, whatever a game's share of reading, typing and
    auditing. Besides the chunk being audited, at most ``_AHEAD`` are read (the last of
    them maybe still in the reading), so memory stays bounded. An error of the reader is
    raised here, in the auditing thread, after the chunks read before it; once a chunk's
    preparation has failed, the reader takes no more work. (The progress callback is called
    by the reader, as it opens each file.)

    The frames of this function that an error's traceback holds keep no chunk, nor the error
    itself (the reader's, kept in ``failure``, a list, is taken out to be raised): the chunks
    read ahead are freed as the error is raised, not at the next collection of cycles."""
    slots: deque[list] = deque()  # per chunk read, in order: [state, the chunk or its preparation or error]
    turn = threading.Condition()
    stopped = ended = broken = False  # (under ``turn``, as are the slots and ``failure``)
    failure: list[BaseException] = []  # the reader's error

    def unprepared() -> list | None:
        """The oldest slot whose chunk no one prepares yet, taken (the next one to audit first)."""
        for slot in slots:
            if slot[0] == _RAW:
                slot[0] = _TAKEN
                return slot
        return None

    def prepare_in(slot: list, here: bool = False) -> None:
        """The slot's chunk prepared, or its error kept, to be raised by the auditing thread
        when it comes to this chunk. ``here``: in the auditing thread, where what is not an
        error of the chunk (Ctrl-C) is raised at once."""
        nonlocal broken
        try:  # (the raw chunk is referenced by the call only: it is freed once typed)
            state, value = _READY, prepare(slot.pop())
        except BaseException as exc:
            if here and not isinstance(exc, Exception):
                raise
            state, value = _FAILED, exc
        with turn:
            slot[0] = state
            slot.append(value)
            broken |= state == _FAILED
            turn.notify_all()
        del slot, value

    def read() -> None:
        nonlocal ended
        exhausted = False
        try:
            while True:
                with turn:
                    while not (stopped or broken):
                        if not exhausted and len(slots) < _AHEAD:
                            slot = None  # room: read the next chunk
                            break
                        if (slot := unprepared()) is not None or exhausted:
                            break
                        turn.wait()
                    if stopped or broken or (exhausted and slot is None):
                        return
                if slot is not None:
                    prepare_in(slot)
                    del slot
                    continue
                chunk = next(chunks, _END)
                if chunk is _END:
                    exhausted = True
                    continue
                with turn:
                    slots.append([_RAW, chunk])
                    del chunk
                    turn.notify_all()
        except BaseException as exc:  # handed to the auditing thread, which raises it
            with turn:
                failure.append(exc)
        finally:
            with turn:
                ended = True
                turn.notify_all()

    reader = threading.Thread(target=read, name="auditor-reader", daemon=True)
    reader.start()
    try:
        while True:
            with turn:
                while True:
                    if slots and slots[0][0] in (_READY, _FAILED):
                        slot = slots.popleft()
                        turn.notify_all()  # room for the reader
                        break
                    if (slot := unprepared()) is not None:
                        break
                    if ended and not slots:
                        if failure:
                            raise failure.pop()
                        return
                    turn.wait()
            if slot[0] == _TAKEN:
                prepare_in(slot, here=True)
            elif slot[0] == _FAILED:
                raise slot.pop()
            else:  # (held by no local here: a chunk is freed as soon as the audit lets it go)
                yield slot.pop()
            del slot
    finally:  # also when the audit stops early: the reader is told to stop, not left blocked
        with turn:
            stopped = True
            turn.notify_all()
        reader.join()
        slots.clear()


def _goes_on(batch: pa.Table, after: pa.Table) -> bool:
    """Whether ``after``, of another file, begins with the round that ``batch`` ends with."""
    if not (batch.num_rows and after.num_rows):
        return False
    last = batch.num_rows - 1
    return (batch.column("_file")[last].as_py() != after.column("_file")[0].as_py()
            and _round_at(batch, last) == _round_at(after, 0))


def _drain(pending: list[pa.Table]) -> pa.Table:
    """One table of the pending batches, which are released (memory is bounded by one
    chunk, not two)."""
    table = concat_batches(pending)
    pending.clear()
    return table


def _empty_rejects() -> pd.DataFrame:
    return pd.DataFrame({"file": pd.Series(dtype=str), "line": pd.Series(dtype=np.int64),
                         "field": pd.Series(dtype=str), "reason": pd.Series(dtype=str),
                         "detail": pd.Series(dtype=str)})


def _iso(ts) -> str:
    return pd.Timestamp(ts).tz_convert(LIMA).isoformat()


def _with_values(rejects: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """Rejects of whole numbers out of range with the number as their detail (``seat 0``), as
    a value that does not parse has its text. (A few rows: each looked up by itself.)"""
    ranged = (rejects["reason"] == "reject.out_of_range").to_numpy()
    if ranged.any():
        rows, fields = rejects["_row"].to_numpy()[ranged], rejects["field"].to_numpy()[ranged]
        rejects.loc[ranged, "detail"] = [str(df[f].iat[r]) for f, r in zip(fields.tolist(), rows.tolist())]
    return rejects


def _out_of_range(table: HandTable, game: str) -> list[tuple[np.ndarray, str, str]]:
    """Whole numbers outside the bounds the log format gives them (a seat 0, a hand 40);
    blank optional fields (-1) are not out of range."""
    out = []
    for col in columns_of(game):
        if col.kind != "int" or (col.minimum is None and col.maximum is None):
            continue
        values = table.df[col.name].to_numpy()
        given = values >= 0
        low = given & (values < col.minimum) if col.minimum is not None else np.zeros(len(values), bool)
        high = given & (values > col.maximum) if col.maximum is not None else np.zeros(len(values), bool)
        out.append((low | high, col.name, "reject.out_of_range"))
    return out


def _round_consistency(table: HandTable, game: str, first: np.ndarray) -> list[tuple[np.ndarray, str, str]]:
    """Round fields repeated on each hand row must agree within the round (``first``: the
    first row of each row's round)."""
    out = []
    for col in columns_of(game):
        if not col.round_level or col.name in ("table_id", "round_id"):
            continue
        out.append((~same_text(table.runs[col.name], first), col.name, "reject.round_fields_differ"))
    return out


def _first_rows(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(the first row of each round; the round of each row, an index into it). A round's
    rows come together in an export: its first row is then where its run of rows starts,
    found without sorting. Otherwise (a round's rows apart) the rows are grouped by one
    stable sort."""
    rkey = df["_rkey"].to_numpy()
    of_run, starts = round_index(df)  # the runs of equal keys
    # (np.unique would be ten times slower: it hashes; a stable sort passes once over keys
    # in order, which the runs of a log's rounds are)
    keys = np.sort(rkey[starts], kind="stable")
    if (keys[1:] != keys[:-1]).all():
        return starts, of_run
    order = np.argsort(rkey, kind="stable")
    _, of_round, counts = unique_groups(rkey, order)
    return order[np.cumsum(counts) - counts], of_round


@dataclass
class _Prepared:
    """A chunk typed and examined (``_GameRun.prepare``), waiting to be audited."""

    table: HandTable
    rejects: pd.DataFrame
    card_faults: pd.DataFrame  # see _card_faults
    problems: list  # what the rows and rounds say of themselves, and the rest: see _examine
    parsed: np.ndarray
    order: np.ndarray
    rounds: tuple[np.ndarray, np.ndarray]
    parts: np.ndarray | None
    copies: np.ndarray | None  # see _copied_in_file


class _GameRun:
    """One game's audit, fed chunk by chunk. Everything a rule needs beyond its own round is
    carried between chunks: the rounds already seen (a round id seen again is rejected, not
    audited twice) and each table's last round (rules that compare a round with the table's
    previous one, such as the alternation of decks). ``counted``: the names of the files
    whose rounds the rules' counts count (see ``audit``), None for all."""

    def __init__(self, game: str, profiles, lang: str, line_rounds: set[str] = frozenset(), *, files: int,
                 reread: Callable[[str], Iterable[pa.Table]] | None = None, counted: set[str] | None = None,
                 ledger: bool = False):
        self.game, self.lang, self.counted = game, lang, counted
        self.line_rounds = line_rounds  # files whose every record (a JSONL line) is a round by itself
        self.plugin = plugin(game)
        self.profiles = ProfileSet(game, list(profiles))
        # per rule: rounds checked, violations, note, error (a check that raised)
        self.stats = {r.code: [0, 0, "", ""] for r in self.plugin.spec.rule}
        # per rule: rounds not checked for a column their file lacks, and the columns (_where_known)
        self.unchecked = {r.code: [0, set()] for r in self.plugin.spec.rule}
        self.findings: list[dict] = []  # columns of findings per chunk, see _findings
        self.rejects: list[pd.DataFrame] = []
        self.rejected_records: dict[str, int] = {}
        self.audited_records: dict[str, int] = {}
        # path -> [rounds, hands, wagered, first, last]; the game's totals and period are their sums
        self.file_totals: dict[str, list] = {}
        self.audited = np.zeros(0, np.uint64)  # hashes of the rounds audited (sorted)
        self.refused_files: set[str] = set()  # files with a record rejected for its own fault, of a round
        # that no copy had audited then nor an earlier file rejected (see AuditResult.unaudited)
        self.refused = np.zeros(0, np.uint64)  # of the rounds rejected, with their file's (sorted)
        self.refused_rounds = np.zeros(0, np.uint64)  # the same rounds' own hashes (sorted)
        self.unaudited_rounds = np.zeros(0, np.uint64)  # of the rounds rejected, no copy audited (sorted)
        self.card_faults_seen = np.zeros(0, np.uint64)  # see _new_card_faults (sorted)
        self.previous: list[dict] = []  # see _last_per_table
        self.in_file: dict = {}  # see _timed_in_file
        self.per_profile: dict[str, CheckResult] = {}
        self.tables: dict[str, int] = {}
        # Only a later file's copy fills a gap (a copy later in the same file is a repeat of a
        # round its file rejected): with one file there is nothing to keep beside the gaps. (Kept,
        # those few rows a chunk cost a 10M-round Triple Shot log 200-300 MB more at its peak,
        # small blocks left among the chunks' large ones in the heap.)
        consecutive = [r for r in self.plugin.spec.rule if r.code in self.plugin.over_consecutive_rounds]
        self.sequel = _Sequel(consecutive) if consecutive and files > 1 else None
        # A later file's round, or a round its own file gives out of time order, may come
        # between two rounds of chunks long audited: see _Ledger. (``reread``: a file's batches
        # read again, for a finding made then on such a round.) A game of one file is watched
        # instead, unless ``ledger``: see _Watch.
        self.ledger = ((_Ledger if files > 1 or ledger else _Watch)(consecutive)) if consecutive else None
        self.reread = reread

    def add_next(self, chunks) -> bool:
        """Audit the next prepared chunk; False when there is none. The chunk is referenced
        only here, so it is freed as soon as it is audited."""
        try:
            self.add(next(chunks))
        except StopIteration:
            return False
        return True

    def prepare(self, frame: pa.Table | None) -> _Prepared:
        """A chunk's rows typed, and what they say of themselves (``_examine``). Pure, so
        it runs in either thread (see ``_read_ahead``): mostly in the reader, while the chunk
        before is audited. (The rest of a chunk's work, which depends on the chunks before
        it, is the auditing thread's, in ``add``.)"""
        p, game = self.plugin, self.game
        if frame is None:
            frame = _empty_frame(game)
        table, rejects = type_rows(frame, game, p.letters)
        card_rejects = rejects[rejects["reason"].isin(_CARD_REASONS)]
        card_rows = _row_mask(card_rejects, len(frame))
        card_text = _card_text(frame, table, card_rows, card_rejects)
        del frame  # its strings are freed as soon as they are typed
        examined = self._examine(table, rejects)
        return _Prepared(table, rejects, _card_faults(table.df, card_text, card_rows), *examined)

    def _examine(self, table: HandTable, rejects: pd.DataFrame):
        """What a chunk's rows and rounds say of themselves: (problems as (rows, field,
        reason), rows whose every field parsed, the rows in the audit's order, the hashes of
        its rounds (see ``_round_hashes``), each row's file within the chunk where two of its
        files give the same round, else None, the rows of a later copy of a round in its own
        file, else None)."""
        _add_round_keys(table.df)
        # Structural checks speak only of rows whose fields all parsed: a row with an
        # unreadable card is not also reported for having "too few cards".
        parsed = ~_row_mask(rejects, len(table.df))
        first, of_round = _first_rows(table.df)
        lines = _of_files(table.df, self.line_rounds) if self.line_rounds else None  # (JSONL: see _copied_in_file)
        parts = _given_by_an_earlier_file(table.df, first[of_round], lines)
        if parts is not None:
            first, of_round = _first_rows(table.df)
        copies = _copied_in_file(table.df, len(first), lines)
        if copies is not None:
            first, of_round = _first_rows(table.df)
        # Each row's round, numbered as the chunk gives them (see checks.base.seat_keys).
        table.df["_round"] = pd.Series(of_round, index=table.df.index, copy=False)
        problems = (self.plugin.validate(table) + _round_consistency(table, self.game, first[of_round])
                    + _out_of_range(table, self.game))
        return ([(mask & parsed, f, r) for mask, f, r in problems], parsed,
                _audit_order(table.df, first[of_round]), _round_hashes(table.df, first, of_round), parts, copies)

    def add(self, prepared: _Prepared) -> None:
        p, game = self.plugin, self.game
        table, rejects, card_faults = prepared.table, prepared.rejects, prepared.card_faults
        problems, parsed, order, rounds, parts, copies = (prepared.problems, prepared.parsed, prepared.order,
                                                          prepared.rounds, prepared.parts, prepared.copies)
        del prepared
        df = table.df
        own = ~parsed  # rows with a fault of their own
        for mask, _, _ in problems:
            own |= mask
        # The rounds a row without a readable table or round id may belong to are not audited
        # (``_next_to_unnamed``): as if they had a fault of their own, so that a copy of one in
        # another file is audited instead, whatever the chunks.
        rkey, lines = df["_rkey"].to_numpy(), df["_line"].to_numpy()
        near, near_cause = _next_to_unnamed(df, rejects, self.line_rounds)
        if len(near):
            own |= np.isin(rkey, rkey[near])
        # (one search of the rounds audited serves both: none is added in between)
        seen = _among(self.audited, rounds[0])
        repeat = self._repeats(df, rounds, parts, copies, own, seen[0]) & parsed
        problems.append((repeat, "round_id", "reject.round_repeated"))
        rejects = pd.concat([rejects, _with_values(collect_rejects(df, problems), df)], ignore_index=True)
        bad_rows = _row_mask(rejects, len(df))
        # A round is audited whole or not at all: its other rows are rejected too, each
        # naming the first line that caused it; so are the rounds a row without a readable
        # table or round id may belong to.
        cause_keys, cause_lines = np.r_[rkey[bad_rows], rkey[near]], np.r_[lines[bad_rows], near_cause]
        in_bad_round = np.isin(rkey, np.unique(cause_keys))
        follow = in_bad_round & ~bad_rows
        if follow.any():
            cause = pd.Series(cause_lines).groupby(cause_keys).min()
            extra = collect_rejects(df, [(follow, "", "reject.round_incomplete")])
            extra["detail"] = cause.reindex(rkey[follow]).astype(str).to_numpy()
            rejects = pd.concat([rejects, extra], ignore_index=True)
        audited = self._remember(df, rounds, ~in_bad_round, seen)
        for file, count in _rejected_records(df, rejects).items():
            self.rejected_records[file] = self.rejected_records.get(file, 0) + count
        self.rejects.append(rejects)

        unaudited = own & ~audited[rounds[1]]  # of rounds that no copy has had audited
        waiting: list[pd.DataFrame] = []
        gaps = _gaps(df, unaudited, self.previous, self.in_file, waiting if self.ledger is not None else None)
        if self.ledger is not None and "waiting" in self.in_file:
            self._placed_again(df)
        self.in_file = _timed_in_file(df, self.in_file)
        if waiting:
            self.in_file["waiting"] = pd.concat([self.in_file.get("waiting"), *waiting], ignore_index=True)
        if unaudited.any():
            blamed = unaudited & ~self._refused_before(df, rounds, parts, unaudited)
            # (by the codes: the column as Python strings would be 40 ms a chunk)
            files = df["_file"].astype("category").array
            self.refused_files.update(files.categories[np.unique(files.codes[blamed])].tolist())
        accepted = _select(table, order[~in_bad_round[order]])
        for file, count in _records_per_file(accepted.df).items():
            self.audited_records[file] = self.audited_records.get(file, 0) + count
        del table, df
        # A round audited now that was a gap in an earlier chunk (a later file's copy of a round
        # rejected there for a fault of its own): see _Sequel. (Searched for only once a round
        # has been rejected so.)
        filled = np.zeros(0, np.uint64)
        if self.sequel is not None and len(self.unaudited_rounds):
            new = rounds[0][audited & ~seen[0]]
            filled = new[_held(self.unaudited_rounds, new)]
        previous = self.previous
        if len(filled):
            self.previous, previous = self.sequel.previous_for(filled, self.previous)
        faults = self._new_card_faults(card_faults)
        ctx = p.context(accepted, self.profiles, faults, previous, gaps)
        if self.ledger is not None:
            # A round of an earlier time than its table's latest so far (a later file's, or its
            # own file's, given out of time order): judged after the round just before it,
            # whichever chunk gave that one.
            entries = self.ledger.entries(pd.concat([ctx.rounds[["table_id", "started_at"]],
                                                     gaps[["table_id", "started_at"]]], ignore_index=True))
            if self.ledger.inserts(*entries):
                previous = self.ledger.before(ctx.rounds, gaps, previous)
                ctx = p.context(accepted, self.profiles, faults, previous, gaps)
        results = self._judge(ctx, p.spec.rule)
        if self.ledger is not None:  # (each round's hash, as the chunk's preparation gave it)
            at = ctx.first if accepted.read_at is None else accepted.read_at[ctx.first]
            self.ledger.keep(ctx, results, rounds[0][rounds[1][at]], entries)
        if self.sequel is not None:
            if len(filled):
                self.sequel.fill(ctx, filled)
            self.sequel.keep(ctx, accepted)

        table_ids = accepted.df["table_id"].astype("category").array
        per_table = np.bincount(table_ids.codes[ctx.first], minlength=len(table_ids.categories))
        for table_id, count in zip(table_ids.categories, per_table.tolist()):
            if count:
                self.tables[table_id] = self.tables.get(table_id, 0) + count
        for path, (rounds, hands, wagered, lo, hi) in _file_totals(accepted.df, ctx.first, p.wagers).items():
            seen = self.file_totals.get(path)
            if seen is None:
                self.file_totals[path] = [rounds, hands, wagered, lo, hi]
            else:
                seen[0] += rounds
                seen[1] += hands
                seen[2] += wagered
                seen[3], seen[4] = min(seen[3], lo), max(seen[4], hi)
        self.previous = _last_per_table(accepted.df, ctx.first, gaps, self.previous, game)

    def _placed_again(self, df: pd.DataFrame) -> None:
        """The gaps of the chunks before placed by the round before them in their file alone,
        the file going on (``_gaps``' ``waiting``), placed as in one chunk once the chunk gives
        the file's next timed round of their table: between the two, just after the earlier
        (in a file newest first, not just before the round before it in the file, which put
        another file's rounds between the two on the wrong side of the gap). Moved in the
        ledger, whose sequence the rules are judged again by at the end (``_Ledger.settle``)."""
        held = self.in_file["waiting"]
        files = df["_file"].astype("category").array
        code = files.categories.get_indexer([self.in_file["file"]])[0]
        if code < 0:
            return
        mine = np.flatnonzero((files.codes == code) & df["started_at"].notna().to_numpy())
        if not len(mine):
            return
        _, first = np.unique(df["_tcode"].to_numpy()[mine], return_index=True)
        rows = mine[first]
        nexts = pd.Series(_ns(df["started_at"].take(rows)), index=_plain_at(df["table_id"], rows).to_numpy())
        next_at = held["table_id"].map(nexts)
        found = next_at.notna().to_numpy()
        if not found.any():
            return
        at = np.minimum(next_at[found].to_numpy(np.int64), held["prev"].to_numpy()[found]) + held["step"].to_numpy()[found]
        moved = at != held["placed"].to_numpy()[found]
        if moved.any():
            self.ledger.move(held["_key"].to_numpy(np.uint64)[found][moved], at[moved])
        self.in_file["waiting"] = held[~found].reset_index(drop=True)

    def _judge(self, ctx, rules) -> dict[str, CheckResult]:
        """The ``rules`` judged over the context's rounds: each one's counts, note or error,
        and findings. Returns each rule's result (but a rule's that raised)."""
        p = self.plugin
        violated, results = [], {}
        unknown: dict[str, tuple[np.ndarray, set[str]] | None] = {}  # see _where_known
        inside = None if self.counted is None else _of_files(ctx.rounds, self.counted)  # see _count
        for rule in rules:
            try:
                result = p.checks[rule.code](ctx)
            except Exception as exc:  # a check that crashed is reported as error, never as passed
                self.stats[rule.code][3] = t("note.check_crashed", self.lang, detail=f"{type(exc).__name__}: {exc}")
                continue
            if rule.needs:
                result = self._where_known(rule, result, ctx, unknown, inside)
            results[rule.code] = result
            if result.per_profile:
                # The same profiles in every chunk: one verdict over all of them, at the end.
                seen = self.per_profile.get(rule.code)
                applies = result.applies if seen is None else seen.applies | result.applies
                self.per_profile[rule.code] = replace(result, applies=applies, violates=result.violates)
                continue
            checked, violations = self._count(result, inside)
            self.stats[rule.code][0] += checked
            self.stats[rule.code][1] += violations
            if result.note and not self.stats[rule.code][2]:
                self.stats[rule.code][2] = t(result.note, self.lang)
            if result.violates.any():
                violated.append((rule, result))
        if violated:
            self.findings.append(_findings(violated, self.lang))
        return results

    def _count(self, result: CheckResult, inside: np.ndarray | None) -> tuple[int, int]:
        """(rounds checked, violations) of ``result``: of the rounds of the files counted only,
        where ``inside`` (of each round of the result's context) says which those are. A
        violation is counted by the file of its row, as its finding is kept by it (a round cut
        across two files is the first file's round)."""
        if inside is None:
            return _rounds_checked(result), int(result.violates.sum())

        def counted_rows(mask: np.ndarray) -> int:
            return int(_of_files(result.frame, self.counted, np.flatnonzero(mask)).sum())

        violations = counted_rows(result.violates)
        if result.rounds_checked is not None:  # (the card faults': every round of the context and its rows)
            return int(inside.sum()) + counted_rows(result.applies), violations
        if result.round_index is None:  # (its rows are the rounds)
            return counted_rows(result.applies), violations
        return _rounds_checked(replace(result, applies=result.applies & inside[result.round_index])), violations

    def _settle(self) -> dict[str, dict]:
        """The rules over consecutive rounds judged again where a later file gave a round
        before its table's latest (``_Ledger.settle``): their counts corrected, and the
        findings on rounds now found at fault made (``_found_again``). Returns what
        ``_resettled`` changes in the findings."""
        settled = self.ledger.settle(self.counted)
        rules = {r.code: r for r in self.ledger.rules}
        for code, change in settled.items():
            self.stats[code][0] += change["checked"]
            self.stats[code][1] += change["violations"]
            if len(change["new"]):
                self._found_again(rules[code], change["new"])
        return settled

    def _found_again(self, rule, new: pd.DataFrame) -> None:
        """The findings of ``rule`` on the rounds ``new`` (table codes, round ids, file codes of
        ``_Ledger``), audited in earlier chunks and at fault once a later file gave the round
        before them: their rows read again from their files, and judged after that round."""
        p, ledger = self.plugin, self.ledger
        names = np.array(list(ledger.tables), dtype=object)
        files = {v: k for k, v in ledger.files.items()}
        no_gaps = pd.DataFrame({c: pd.Series(dtype=object) for c in ("table_id", "round_id", "started_at")})
        for code in np.unique(new["file"].to_numpy()).tolist():
            # (of the file's own rounds only: another file may hold a copy of one, rejected)
            own = new[new["file"].to_numpy() == code]
            wanted = _key_at(pd.DataFrame({"table_id": names[own["t"].to_numpy()], "round_id": own["round_id"].to_numpy()}))
            pieces = []
            try:
                for batch in self.reread(files[code]):  # (a few rows of each batch kept)
                    ids = [pc.utf8_trim_whitespace(_decoded(batch.column(c).combine_chunks())) for c in _ID_FIELDS]
                    keys = _mixed(*(_text_hashes(*buffers(as_large_string(i))) for i in ids))
                    pieces.append(batch.filter(pa.array(np.isin(keys, wanted))))
            except (InputError, OSError) as exc:
                # (a file gone or changed since it was read: its findings cannot be made, and the
                # rule is not reported as passed where it may have failed)
                why = exc.text(self.lang) if isinstance(exc, InputError) else os_error(exc, self.lang)
                self.stats[rule.code][3] = t("note.reread_failed", self.lang, rounds=len(own),
                                             file=files[code], error=why)
                continue
            table, rejects = type_rows(concat_batches(pieces), self.game, p.letters) if pieces else (None, None)
            if table is None or not len(table) or len(rejects):
                self._changed(rule, len(own), files[code])
                continue
            _add_round_keys(table.df)
            first, of_round = _first_rows(table.df)
            table.df["_round"] = pd.Series(of_round, index=table.df.index, copy=False)
            table = _select(table, _audit_order(table.df, first[of_round]))
            rounds = frame_rows(table.df[["table_id", "round_id", "started_at"]], round_index(table.df)[1])
            before = ledger.before(rounds, no_gaps, [], again=True)
            faults = _no_card_faults()
            ctx = p.context(table, self.profiles, faults, before, no_gaps)
            result = p.checks[rule.code](ctx)
            at_fault = result.violates & np.isin(_key_at(ctx.rounds), wanted)[result.round_index]
            if at_fault.any():
                self.findings.append(_findings([(rule, replace(result, violates=at_fault))], self.lang))
            made = len(np.unique(result.round_index[at_fault])) if result.round_index is not None else int(at_fault.sum())
            if made < len(own):
                self._changed(rule, len(own), files[code])

    def _changed(self, rule, rounds: int, file: str) -> None:
        """The rule left in error: a file read again at the end for ``rounds`` findings no longer
        gives them as it gave them when audited (emptied, cut or rewritten since): counted, their
        findings cannot all be made, and the rule is not reported as passed."""
        self.stats[rule.code][3] = t("note.reread_failed", self.lang, rounds=rounds, file=file,
                                     error=t("note.reread_changed", self.lang))

    def _resettled(self, found: pd.DataFrame, settled: dict[str, dict]) -> pd.DataFrame:
        """The findings without those of rounds no longer at fault, and with the reason of
        those at fault for another (see ``_Ledger.settle``)."""
        names = np.array(list(self.ledger.tables), dtype=object)
        keys = _key_at(found)
        titles = {r.code: r.title_in(self.lang) for r in self.ledger.rules}
        said = list(DECK_FIELDS.values())
        drop = np.zeros(len(found), bool)
        for code, change in settled.items():
            of_rule = (found["code"] == code).to_numpy()
            gone_t, gone_r = change["gone"]
            if len(gone_t):
                drop |= of_rule & np.isin(keys, _key_at(pd.DataFrame({"table_id": names[gone_t], "round_id": gone_r})))
            t, r, reason = change["reason"]
            if len(t):
                other = _key_at(pd.DataFrame({"table_id": names[t], "round_id": r}))
                order = np.argsort(other)
                hit, at = _among(other[order], keys)
                hit &= of_rule
                if hit.any():
                    key = np.array(said, dtype=object)[reason[order[at[hit]]]]
                    found.loc[hit, REASON_KEY] = key
                    found.loc[hit, "message"] = [finding_message(titles[code], k, self.lang) for k in key.tolist()]
        return found[~drop].reset_index(drop=True) if drop.any() else found

    def _where_known(self, rule, result: CheckResult, ctx, unknown: dict, inside: np.ndarray | None) -> CheckResult:
        """``result`` without the rounds whose file lacks a column the rule compares while the
        round shows it in use (``_unknown_rounds``), which are counted for the rule's note
        (see ``_count``). ``unknown`` holds each column's rounds for the chunk's other rules."""
        off = np.zeros(ctx.n_rounds, bool)
        for name in rule.needs:
            if name not in unknown:
                unknown[name] = _unknown_rounds(ctx, name, self.game)
            if unknown[name] is not None:
                rounds, lacking = unknown[name]
                if (result.applies & rounds[result.round_index]).any():
                    off |= rounds
                    self.unchecked[rule.code][1].update(lacking)
        if not off.any():
            return result
        skipped = result.applies & off[result.round_index]
        self.unchecked[rule.code][0] += self._count(replace(result, applies=skipped), inside)[0]
        return replace(result, applies=result.applies & ~skipped)

    def _refused_before(self, df: pd.DataFrame, rounds: tuple[np.ndarray, np.ndarray], parts: np.ndarray | None,
                        unaudited: np.ndarray) -> np.ndarray:
        """Which of the ``unaudited`` rows (rejected for a fault of their own, of rounds no
        copy has had audited) are of a round that an earlier file gave and had rejected too: in
        an earlier chunk, or an earlier file of this chunk (``parts``, see
        ``_given_by_an_earlier_file``). Such a round is the earlier file's: a copy of it does
        not make its own file one the audit did not look at (an export sent twice, faults and
        all). The chunk's unaudited rounds are remembered for the chunks after it. A row
        without its table or round id names no round (its hash is the blank text's): never
        another file's."""
        idx = np.flatnonzero(unaudited)
        unaudited = unaudited.copy()
        unaudited[idx] = _named(df["table_id"].take(idx)) & _named(df["round_id"].take(idx))
        keys, of_row = rounds
        mine = keys[of_row[unaudited]]
        before = np.zeros(len(of_row), bool)
        before[unaudited] = _among(self.unaudited_rounds, mine)[0]
        if parts is not None:
            first_part = np.full(len(keys), np.iinfo(np.int64).max)
            np.minimum.at(first_part, of_row[unaudited], parts[unaudited])
            before |= unaudited & (parts > first_part[of_row])
        new = np.unique(mine)
        self.unaudited_rounds, _ = _with_new(self.unaudited_rounds, new)
        return before

    def _new_card_faults(self, faults: pd.DataFrame) -> pd.DataFrame:
        """The chunk's rounds with a card outside the deck (``_card_faults``), less those that
        an earlier copy of the round gave already, in an earlier file of the chunk or an earlier
        chunk: the same table, round, time, field and text are one finding, cited at the first
        file that gave it, however many copies of an export are audited. A round without its
        table, id or time is kept: it names no round that a copy could give."""
        named = _named(faults["table_id"]) & _named(faults["round_id"]) & faults["started_at"].notna().to_numpy()
        if not named.any():
            return faults
        rows = np.flatnonzero(named)
        # One text per fault, its fields apart by a unit separator (as plain objects: hashing a
        # categorical would hash all of the chunk's tens of thousands of round ids).
        joined = np.full(len(rows), "", dtype=object)
        for name in ("table_id", "round_id", "started_at", "field", "text"):
            joined = joined + _plain_at(faults[name], rows).to_numpy().astype(str) + "\x1f"
        keys = _text_hashes(*buffers(pa.array(joined, pa.large_string())))
        distinct, first = np.unique(keys, return_index=True)
        self.card_faults_seen, found = _with_new(self.card_faults_seen, distinct)
        keep = ~named
        keep[rows[first[~found]]] = True  # (first: positions among ``rows``)
        return faults if keep.all() else faults[keep].reset_index(drop=True)

    def _repeats(self, df: pd.DataFrame, rounds: tuple[np.ndarray, np.ndarray], parts: np.ndarray | None,
                 copies: np.ndarray | None, own: np.ndarray, known: np.ndarray) -> np.ndarray:
        """Rows of a round audited already in an earlier chunk (its rows were not together in
        the export, or another file repeats it), or rejected in an earlier chunk from the
        same file (see ``_per_file``; the rest of a round is not audited as if it were the
        whole), or given by an earlier file of
        this chunk (``parts``, see ``_given_by_an_earlier_file``) in a copy that can be
        audited, or a later copy of it in its own file (``copies``, see ``_copied_in_file``).
        A copy rejected for a fault of its own (a row of it in ``own``) claims the
        round for its own file only, a later copy in that file included: the round is audited
        from the first other file's copy that can be, whichever chunk holds it. ``rounds``
        from ``_round_hashes``; ``known``: which of them were audited before (``_among``)."""
        keys, of_row = rounds
        repeat = known[of_row] if copies is None else known[of_row] | copies
        if len(self.refused):  # (hashed with their files only for the rows of a round refused)
            maybe = _held(self.refused_rounds, keys)[of_row]
            if maybe.any():
                repeat[maybe] |= _held(self.refused, _per_file(keys, of_row, df, maybe))
        if parts is not None:
            rkey = df["_rkey"].to_numpy()
            good = ~np.isin(rkey, np.unique(rkey[own])) & ~repeat
            first_good = np.full(len(keys), np.iinfo(np.int64).max)
            np.minimum.at(first_good, of_row[good], parts[good])
            repeat |= parts > first_good[of_row]
        return repeat

    def _remember(self, df: pd.DataFrame, rounds: tuple[np.ndarray, np.ndarray], audited: np.ndarray,
                  seen: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The chunk's rounds remembered: those of its ``audited`` rows as audited, the others
        as rejected from their file (see ``_repeats``). Returns, for each of the chunk's round
        hashes, whether the round is audited, in this chunk or before. ``seen``: the rounds'
        search among those audited before (``_among``)."""
        keys, of_row = rounds
        claimed = np.zeros(len(keys), bool)
        claimed[of_row[audited]] = True
        known, at = seen
        # Kept sorted by inserting, not re-sorting: the cost of a chunk does not grow with the log.
        self.audited = np.insert(self.audited, at[claimed & ~known], keys[claimed & ~known])
        refused = np.unique(_per_file(keys, of_row, df, ~audited))
        self.refused, _ = _with_new(self.refused, refused)
        self.refused_rounds, _ = _with_new(self.refused_rounds, np.unique(keys[of_row[~audited]]))
        return claimed | known

    def finish(self, record_rejects: list[pd.DataFrame]) -> dict:
        """``record_rejects``: each file's records that never became rows (JSONL lines), in the
        files' reading order, with a hash of each line's text (``_text``): a file whose every
        such line an earlier file rejected too (a copy of it) is not refused for them."""
        if self.sequel is not None:
            # The rounds that waited after a gap that a later copy filled: those that a copy
            # (or another round) now stands just before are judged, by the rules over
            # consecutive rounds alone (see _Sequel).
            p, gaps = self.plugin, pd.DataFrame(columns=list(_ID_FIELDS))
            for waiting, before in self.sequel.waiting():
                faults = _no_card_faults()
                again = p.context(waiting, self.profiles, faults, before, gaps)
                prev = again.sequence.before[again.sequence.kind == 1]
                known = prev >= 0
                known[known] = ~again.sequence.rejected[prev[known]]
                if known.any():
                    rows, _ = again.hand_rows(np.flatnonzero(known))
                    again = p.context(_select(waiting, rows), self.profiles, faults, before, gaps)
                    results = self._judge(again, self.sequel.rules)
                    if self.ledger is not None:
                        self.ledger.restate(again, results)
        settled = self._settle() if self.ledger is not None else {}
        seen = np.zeros(0, np.uint64)
        for rej in record_rejects:
            lines = rej["_text"].to_numpy(np.uint64)
            if not np.isin(lines, seen).all():
                self.refused_files.update(rej["file"].unique().tolist())
            seen = np.union1d(seen, lines)
            for file, count in rej.groupby("file").size().items():
                self.rejected_records[file] = self.rejected_records.get(file, 0) + count
        rejects = pd.concat(self.rejects + record_rejects, ignore_index=True) if self.rejects else _empty_rejects()
        rejects["detail"] = rejects["detail"].fillna("").astype(str)
        rejects = _one_per_record(rejects.drop(columns=["_row", "_text"], errors="ignore"))
        for rule in self.plugin.spec.rule:
            result = self.per_profile.get(rule.code)
            if result is not None and not self.stats[rule.code][3]:
                self.stats[rule.code][0] = int(result.applies.sum())
                self.stats[rule.code][1] = int(result.violates.sum())
                if result.violates.any():
                    self.findings.append(_findings([(rule, result)], self.lang))
        rules = []
        for rule in self.plugin.spec.rule:
            checked, violations, note, error = self.stats[rule.code]
            skipped, lacking = self.unchecked[rule.code]
            if skipped:
                said = t("note.columns_absent", self.lang, rounds=skipped, columns=", ".join(sorted(lacking)))
                note = f"{note}; {said}" if note else said
            status = ("error" if error else "not_applicable" if checked == 0
                      else "failed" if violations else "passed")
            rules.append(_outcome(rule, self.lang, status, checked, violations, note=error or note))
        found, self.findings = _finding_frame(self.findings), []  # the parts are freed at once
        kept = self.file_totals.values()
        if settled:
            found = self._resettled(found, settled)
        found = found.sort_values(
            ["table_id", "started_at", "round_id", "seat", "hand", "code"], kind="stable", na_position="first"
        ).reset_index(drop=True)
        return {"rules": rules, "findings": found, "rejected": rejects, "rejected_records": self.rejected_records,
                "audited_records": self.audited_records, "refused_files": self.refused_files,
                "tables": self.tables, "file_totals": self.file_totals,
                "first": min((f[3] for f in kept), default=None), "last": max((f[4] for f in kept), default=None),
                "totals": {k: sum(f[i] for f in kept) for i, k in enumerate(("rounds", "hands", "wagered"))}}


class _Sequel:
    """The rounds beside each gap in a table's sequence (a round rejected for a fault of its
    own that no copy had audited: ``_gaps``), kept for the rules over consecutive rounds.

    A later file's readable copy of such a round is audited as the round, and it is the round
    in its place in the sequence, as when every file is in one chunk: the audit knows the
    round from that copy, so the copy is compared with the round before it, and the round
    after it with the copy; the earlier file's broken copy is no gap (as a later broken copy
    of a round audited is none). An inspector's reading too: a deck used twice in a row is no
    less so because one file garbled the round's time. The copy stands at its own time, the
    gaps where their files place them (``_placed_by_the_file``), as in one chunk. Read in a
    later chunk, the copy finds the round that stood before the gap among the records kept
    here (``near``: each gap's own and its predecessor's, as the carry's records are, ``_key``
    the round's hash; a gap's is replaced by its copy's), and each audited round that stood
    after a gap, judged then with no known predecessor (``after``: its rows), is judged again
    by these rules alone once every file is read (a copy read later may stand between), where
    a table's gap was filled. So the answer does not depend on the chunks.

    Kept per gap: two records and a round's rows, until the end (any later file may give a
    copy), beside the reject records a gap has anyway, and the records of later chunks' rounds
    of its table between it and the round after it in time (``until``: a later file's round
    there stands between them); nothing where no round is rejected, and the rest is done only
    for a chunk that fills a gap and at the end for its table."""

    def __init__(self, rules: list):
        self.rules = rules
        self.near: list[pd.DataFrame] = []
        self.after: list[HandTable] = []
        self.tables: set[str] = set()  # where a gap was filled
        self.until: dict = {}  # of each table with rounds in ``after``: (earliest gap time, latest time)

    def keep(self, ctx, accepted: HandTable) -> None:
        """What stands beside the gaps of a chunk's sequence (``ctx.sequence``): the records
        of each gap and of the round before it, and the rows of each audited round whose
        predecessor is a gap, this chunk's or a carried one. Once rounds wait so, also the
        records of the chunk's rounds of their tables between their gaps and them in time
        (``_up_to``): one of those, given only by a later file, may stand between a waiting
        round and its gap, and is the round it is judged after at the end."""
        seq = ctx.sequence
        if self.until:
            near = self._up_to(ctx.rounds)
            if near.any():
                self.near.append(self._records(ctx, np.flatnonzero(seq.kind == 1)[near]))
        if not seq.rejected.any():
            return
        before = seq.before
        gaps = np.flatnonzero(seq.kind == 2)
        if len(gaps):
            self.near.append(self._records(ctx, np.r_[gaps, before[gaps][before[gaps] >= 0]]))
        after = np.flatnonzero((seq.kind == 1) & (before >= 0))
        after = after[seq.rejected[before[after]]]
        if len(after):
            audited = after - np.count_nonzero(seq.kind == 0)  # the chunk's rounds (the carried entries come first)
            rows, _ = ctx.hand_rows(audited)
            kept = _select(accepted, rows)
            self.after.append(replace(kept, df=_compacted(kept.df)))
            waiting = frame_rows(ctx.rounds, audited)[["table_id", "started_at"]]
            gap_at = pd.to_datetime(seq.rows(before[after], ["started_at"])["started_at"], utc=True)
            waiting["gap_at"] = gap_at.to_numpy()
            for table_id, part in waiting.groupby("table_id", observed=True):  # (a few tables)
                # (a gap whose time is not known bounds nothing: NaT, every earlier round)
                lo, hi = part["gap_at"].min(skipna=False), part["started_at"].max()
                held = self.until.get(table_id)
                if held is not None:
                    lo = pd.NaT if pd.isna(lo) or pd.isna(held[0]) else min(lo, held[0])
                    hi = max(hi, held[1])
                self.until[table_id] = (lo, hi)

    def _up_to(self, rounds: pd.DataFrame) -> np.ndarray:
        """Which of ``rounds`` are of a table with rounds waiting after a gap (``until``: the
        earliest time of their gaps, NaT for none known, and the latest of theirs) and between
        the two in time: one of those may stand between a waiting round and its gap."""
        ids = rounds["table_id"].astype(object)
        times = pd.to_datetime(rounds["started_at"], utc=True)
        lo = pd.to_datetime(ids.map({k: v[0] for k, v in self.until.items()}), utc=True)
        hi = pd.to_datetime(ids.map({k: v[1] for k, v in self.until.items()}), utc=True)
        inside = (times <= hi) & ((times >= lo) | (lo.isna() & hi.notna()))
        return inside.to_numpy(dtype=bool, na_value=False)

    def previous_for(self, filled: np.ndarray, previous: list[dict]) -> tuple[list[dict], list[dict]]:
        """(the carry without the records of the gaps ``filled`` now, the records a chunk that
        fills them is judged with: that carry and what is kept beside gaps of their tables)."""
        gone = set(filled.tolist())
        carried = [r for r, k in zip(previous, _key_at(pd.DataFrame(previous, columns=list(_ID_FIELDS))).tolist())
                   if k not in gone]
        near = self._near()
        gone_near = np.isin(near["_key"].to_numpy(np.uint64), filled)
        tables = near["table_id"][gone_near].unique()
        kept = near[near["table_id"].isin(tables).to_numpy() & ~gone_near]
        return carried, carried + kept.to_dict("records")

    def fill(self, ctx, filled: np.ndarray) -> None:
        """The copies of the gaps ``filled``, audited in this chunk (``ctx``), kept in the gaps'
        stead."""
        copies = np.flatnonzero(ctx.sequence.kind == 1)[np.isin(_key_at(ctx.rounds), filled)]
        near = self._near()
        added = self._records(ctx, copies)
        self.near = [pd.concat([near[~np.isin(near["_key"].to_numpy(np.uint64), filled)], added], ignore_index=True)]
        self.tables.update(added["table_id"].tolist())

    def waiting(self) -> Iterator[tuple[HandTable, list[dict]]]:
        """The rounds that waited after a gap in a table where a gap was filled, in parts, each
        with the records it is judged after (what is kept, the copies among it, less the
        rounds themselves)."""
        near = self._near()
        for table in self.after:
            rid, first = round_index(table.df)
            hit = _plain_at(table.df["table_id"], first).isin(self.tables).to_numpy()
            if hit.any():
                own = _key_at(table.df, first[hit])
                yield (_select(table, np.flatnonzero(hit[rid])),
                       near[~np.isin(near["_key"].to_numpy(np.uint64), own)].to_dict("records"))
        self.after = []

    def _near(self) -> pd.DataFrame:
        if len(self.near) != 1:
            self.near = [pd.concat(self.near, ignore_index=True) if self.near else
                         pd.DataFrame({c: pd.Series(dtype=object) for c in (*_ID_FIELDS, "_key")})]
        return self.near[0]

    @staticmethod
    def _records(ctx, at: np.ndarray) -> pd.DataFrame:
        """The entries at ``at`` of the context's sequence as the carry's records: the round
        fields the rules read, ``_rejected`` and ``_key``."""
        seq = ctx.sequence
        frame = seq.rows(at, [c for c in ctx.ROUND_COLUMNS if not c.startswith("_")])
        frame["_rejected"] = seq.rejected[at]
        frame["_key"] = _key_at(frame)
        return _compacted(frame)


class _Ledger:
    """Every round of a game's tables' sequences in a few bytes (table, time, round id, file,
    the fields the rules over consecutive rounds compare, and per rule whether it applies and
    what it found): a later file may give a round between two rounds of chunks long audited
    (a file of the rounds an export missed), and so may a file that gives its rounds out of
    time order (newest first, or a table's round after the round that follows it), while in one
    chunk the sequence is each table's rounds in time order. (A game of one file is audited
    with it once its file proves out of time order: see ``_Watch``. Without it, a chunk
    beginning between two such rounds made a false two-deck finding and a round checked
    fewer: the carry between chunks is each table's latest round only, so such a round had no
    known round before it, and the round after it in time had been judged, in its chunk,
    after the round before it, across it.)

    A chunk's round that comes at or before its table's latest round kept (``inserts``) is
    judged with the round just before it among those kept (``before``). Once every file is
    read, the rounds whose round before changed since they were judged are judged again
    (``settle``): the rules' counts are corrected, a finding no longer so is withdrawn, one of
    another reason says that one, and a finding on a round now at fault is made from its rows,
    read again from its file (``_GameRun._found_again``). None of this is done where no round
    comes before its table's latest (a folder of daily exports): only the bytes are kept, each
    chunk's columns compressed (``_Packed``), read back only for the above; a round id's text
    only for rounds that share their table's time with another (``_tie_ranks``), that a round
    is judged after, or whose finding changes.

    The rules are those of ``checks.base.deck_alternation_result`` (``DECK_FIELDS``); one that
    gives no ``applies_alone`` (or raised) is left as its chunks judged it."""

    def __init__(self, rules: list):
        self.rules = rules
        self.tables: dict[str, int] = {}
        self.files: dict[str, int] = {}
        self.words: dict[str, dict[str, int]] = {name: {} for name in DECK_FIELDS}
        self.parts: list[dict] = []  # per chunk, its audited rounds (see ``keep``)
        # The gaps (see ``gaps``): each chunk's as it gave them, the keys of all, sorted, and of
        # those the keys of the gaps a later chunk audited a copy of (sorted).
        self.gap_parts: list[pd.DataFrame] = [pd.DataFrame({
            "t": pd.Series(dtype=np.int64), "at": pd.Series(dtype=np.int64), "round_id": pd.Series(dtype=object),
            "_key": pd.Series(dtype=np.uint64)})]
        self.gap_keys = np.zeros(0, np.uint64)
        self.filled = np.zeros(0, np.uint64)
        self.latest = np.zeros(0, np.int64)  # per table: the latest time kept
        self.inserted = False  # a round came at or before its table's latest kept
        self.unjudged: set[str] = set()

    @property
    def gaps(self) -> pd.DataFrame:
        """The gaps kept (t, at, round_id, _key): the rounds rejected for a fault of their own
        that no later chunk audited a copy of. Joined only when asked for (a round at or before
        its table's latest, a gap placed again, the end): joined and filtered at every chunk, as
        they were, they were copied as often as there are chunks (1 s of 15.6 s where 30 % of
        the rounds are rejected, in 80 chunks)."""
        if len(self.gap_parts) > 1 or len(self.filled):
            joined = pd.concat(self.gap_parts, ignore_index=True)
            if len(self.filled):
                joined = joined[~np.isin(joined["_key"].to_numpy(np.uint64), self.filled)].reset_index(drop=True)
            self.gap_parts = [joined]
            self.gap_keys, self.filled = np.sort(joined["_key"].to_numpy(np.uint64)), np.zeros(0, np.uint64)
        return self.gap_parts[0]

    def entries(self, rounds: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """(table code, time in UTC nanoseconds) of each of ``rounds`` (table_id, started_at)."""
        t = _codes(rounds["table_id"], self.tables)
        if len(self.latest) < len(self.tables):
            self.latest = np.r_[self.latest, np.full(len(self.tables) - len(self.latest), _NO_TIME)]
        return t, _ns(rounds["started_at"])

    def _late(self, t: np.ndarray, at: np.ndarray) -> np.ndarray:
        return (self.latest[t] != _NO_TIME) & (at <= self.latest[t])

    def inserts(self, t: np.ndarray, at: np.ndarray) -> bool:
        """Whether an entry (table codes, times) comes at or before its table's latest kept."""
        found = bool(self._late(t, at).any())
        self.inserted |= found
        return found

    def before(self, rounds: pd.DataFrame, gaps: pd.DataFrame, previous: list[dict], again: bool = False) -> list[dict]:
        """``previous`` with the record of the round kept just before each of the chunk's
        ``rounds`` and ``gaps`` that comes at or before its table's latest kept round.
        ``again``: the ``rounds`` are kept themselves (judged again), not rounds before them."""
        cols = ["table_id", "round_id", "started_at"]
        queries = pd.concat([rounds[cols], gaps[cols]], ignore_index=True)
        t, at = self.entries(queries)
        late = self._late(t, at)
        filled = _key_at(rounds)  # (a gap whose copy the chunk audits is no round before another)
        kept = self._kept(np.unique(t[late]), filled, filled if again else None)
        if not len(kept):
            return previous
        q = np.flatnonzero(late)
        n = len(kept)
        times, tables = np.r_[kept["at"].to_numpy(), at[q]], np.r_[kept["t"].to_numpy(), t[q]]
        is_query = np.r_[np.zeros(n, bool), np.ones(len(q), bool)]
        order = np.lexsort((is_query, times, tables))
        tied = (times[order][1:] == times[order][:-1]) & (tables[order][1:] == tables[order][:-1])
        if tied.any():  # (in one chunk, a table's rounds of one time are in the order of their ids)
            rank = self._tie_ranks(order, tied, lambda rows: np.r_[
                self._round_ids(kept.iloc[rows[rows < n]]),
                _plain_at(queries["round_id"], q[rows[rows >= n] - n]).astype(str).to_numpy(dtype=object)])
            order = np.lexsort((is_query, rank, times, tables))
        # of each query, the last kept entry before it, where it is of the query's table
        last_kept = np.maximum.accumulate(np.where(~is_query[order], np.arange(len(order)), -1))
        at_query = np.flatnonzero(is_query[order])
        candidate = last_kept[at_query]
        has = candidate >= 0
        found, query = order[candidate[has]], order[at_query[has]]
        picked = kept.iloc[np.unique(found[tables[found] == tables[query]])].reset_index(drop=True)
        picked["round_id"] = self._round_ids(picked)
        names = np.array(list(self.tables), dtype=object)
        words = {name: np.array([*self.words[name], None], dtype=object) for name in DECK_FIELDS}
        records = pd.DataFrame({
            "table_id": names[picked["t"].to_numpy()], "round_id": picked["round_id"].to_numpy(dtype=object),
            "started_at": pd.DatetimeIndex(picked["at"].to_numpy().view("M8[ns]")).tz_localize("UTC"),
            **{name: words[name][picked[name].to_numpy()] for name in DECK_FIELDS},
            "_rejected": picked["_rejected"].to_numpy(bool)}).to_dict("records")
        held = {(r["table_id"], str(r["round_id"])) for r in previous}
        return previous + [r for r in records if (r["table_id"], r["round_id"]) not in held]

    def _kept(self, tables: np.ndarray, filled: np.ndarray, own: np.ndarray | None = None) -> pd.DataFrame:
        """The entries kept of ``tables`` (codes): audited rounds (but those ``own``; ``pos``,
        their place among all) and live gaps (but those ``filled``; ``pos`` -1, their
        ``round_id``): t, at, the compared fields' codes, _rejected."""
        pieces, start = [], 0
        for part in self.parts:
            t = part["t"].get()
            idx = np.flatnonzero(np.isin(t, tables))
            if own is not None and len(idx):
                idx = idx[~np.isin(self._keys(part, idx), own)]
            if len(idx):
                pieces.append(pd.DataFrame({"t": t[idx].astype(np.int64), "at": part["at"].get()[idx],
                                            **{name: part[name].get()[idx].astype(np.int64) for name in DECK_FIELDS},
                                            "_rejected": False, "pos": start + idx, "round_id": None}))
            start += part["n"]
        gaps = self.gaps[self.gaps["t"].isin(tables).to_numpy() & ~np.isin(self.gaps["_key"].to_numpy(np.uint64), filled)]
        if len(gaps):
            pieces.append(gaps.drop(columns="_key").assign(**{name: -1 for name in DECK_FIELDS}, _rejected=True, pos=-1))
        return pd.concat(pieces, ignore_index=True) if pieces else pd.DataFrame()

    def _round_ids(self, kept: pd.DataFrame) -> np.ndarray:
        """The round id of each entry of a frame of ``_kept``."""
        out = kept["round_id"].to_numpy(dtype=object).copy()
        pos = kept["pos"].to_numpy()
        audited = pos >= 0
        out[audited] = self._texts(pos[audited])
        return out

    @staticmethod
    def _tie_ranks(order: np.ndarray, tied: np.ndarray, texts: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Of each entry, the rank of its round id's text among the entries of a table and time
        shared with another (``tied``: of each pair of neighbours in ``order``), 0 for the rest,
        whose place the text does not change: ``texts`` (of entries, ascending) is asked only
        for those, so that a text is decompressed only for a round that shares its time."""
        among = np.zeros(len(order), bool)
        among[order[1:][tied]] = among[order[:-1][tied]] = True
        rows = np.flatnonzero(among)
        rank = np.zeros(len(order), np.int64)
        rank[rows] = pd.factorize(texts(rows), sort=True)[0]
        return rank

    def keep(self, ctx, results: dict[str, CheckResult], keys: np.ndarray,
             entries: tuple[np.ndarray, np.ndarray]) -> None:
        """The chunk's audited rounds (``ctx.rounds``, whose hashes are ``keys``: see
        ``_key_at``) and gaps kept, with what each rule found of each round: -1 not checked, 0
        passed, 1 + the index of its reason. ``entries``: the rounds' then the gaps' (table code,
        time), as the method ``entries`` gave them for the chunk."""
        rounds = ctx.rounds
        n = len(rounds)
        t, at = entries[0][:n], entries[1][:n]
        part = {"n": n, "t": _Packed(_small(t, self.tables)), "at": _Packed(at, delta=True),
                "round_id": _PackedText(_arrow_text(rounds["round_id"])),
                "file": _Packed(_small(_codes(rounds["_file"], self.files), self.files))}
        for name in DECK_FIELDS:
            part[name] = _Packed(_small(_codes(rounds[name], self.words[name], lower=name in DECK_CASELESS),
                                        self.words[name]))
        for rule in self.rules:
            result = results.get(rule.code)
            if result is None or result.applies_alone is None:
                self.unjudged.add(rule.code)
                continue
            part[rule.code] = _Packed(_state(result))
            part[rule.code + "/alone"] = _Packed(np.asarray(result.applies_alone, bool))
        if len(rounds):
            self.parts.append(part)
        # (the chunk's rounds searched among the gaps' sorted keys: np.isin took 13-23 ms a chunk)
        if len(self.gap_keys):
            copied = _among(self.gap_keys, keys)[0]
            if copied.any():
                self.filled, _ = _with_new(self.filled, np.unique(keys[copied]))
        gaps = ctx.gaps
        if len(gaps):
            gt, gat = entries[0][n:], entries[1][n:]
            new = pd.DataFrame({"t": gt, "at": gat, "round_id": _plain_at(gaps["round_id"], np.arange(len(gaps))).astype(str),
                                "_key": _key_at(gaps)})
            self.gap_parts.append(new)
            self.gap_keys, _ = _with_new(self.gap_keys, np.unique(new["_key"].to_numpy(np.uint64)))
            np.maximum.at(self.latest, gt, gat)
        np.maximum.at(self.latest, t, at)

    def move(self, keys: np.ndarray, at: np.ndarray) -> None:
        """The gaps ``keys`` placed at ``at`` (see ``_GameRun._placed_again``): every round is
        judged again at the end after the round now just before it."""
        gaps = self.gaps
        if not len(gaps):
            return
        where = pd.Series(at, index=keys)
        hit = np.isin(gaps["_key"].to_numpy(np.uint64), keys)
        if hit.any():
            gaps.loc[hit, "at"] = where.reindex(gaps["_key"].to_numpy(np.uint64)[hit]).to_numpy(np.int64)
            self.inserted = True

    def restate(self, ctx, results: dict[str, CheckResult]) -> None:
        """What the rules found of rounds judged again (``_Sequel.waiting``), in their entries' stead."""
        keys = _key_at(ctx.rounds)
        order = np.argsort(keys)
        for part in self.parts:
            hit, at = _among(keys[order], self._keys(part))
            if not hit.any():
                continue
            where = order[at[hit]]
            for rule in self.rules:
                result = results.get(rule.code)
                if rule.code in part and result is not None:
                    state = part[rule.code].get().copy()
                    state[hit] = _state(result)[where]
                    part[rule.code] = _Packed(state)

    def _keys(self, part: dict, idx: np.ndarray | None = None) -> np.ndarray:
        """The hashes of a part's rounds (at ``idx``), as ``_key_at`` gives them."""
        idx = np.arange(part["n"]) if idx is None else idx
        names = _text_hashes(*buffers(_large_text(pd.Index(list(self.tables), dtype=object))))
        ids = as_large_string(part["round_id"].get().take(pa.array(idx)))
        return _mixed(names[part["t"].get()[idx].astype(np.int64)], _text_hashes(*buffers(ids)))

    def settle(self, counted: set[str] | None = None) -> dict[str, dict]:
        """Per rule: the change of its rounds checked and violations (``checked``,
        ``violations``; of the rounds of the files ``counted`` only, unless None) once each
        round is judged after the round just before it among all kept, and the rounds whose
        finding is to be withdrawn (``gone``: table codes, round ids), said with another reason
        (``reason``: table codes, round ids, reason indices) or made (``new``: a frame of t,
        round_id, file). Empty where no round came at or before its table's latest."""
        if not self.inserted or not self.parts:
            return {}
        n = sum(p["n"] for p in self.parts)
        t = np.concatenate([p["t"].get() for p in self.parts] + [self.gaps["t"].to_numpy(np.int64)]).astype(np.int64)
        at = np.concatenate([p["at"].get() for p in self.parts] + [self.gaps["at"].to_numpy(np.int64)])
        rejected = np.r_[np.zeros(n, bool), np.ones(len(self.gaps), bool)]
        order = np.lexsort((at, t))
        tied = (t[order][1:] == t[order][:-1]) & (at[order][1:] == at[order][:-1])
        if tied.any():  # (in one chunk, a table's rounds of one time are in the order of their ids)
            rank = self._tie_ranks(order, tied, lambda rows: np.r_[
                self._texts(rows[rows < n]), self.gaps["round_id"].to_numpy(dtype=object)[rows[rows >= n] - n]])
            order = np.lexsort((rank, at, t))
        prev = np.full(len(t), -1, np.int64)
        prev[order[1:]] = np.where(t[order][1:] == t[order][:-1], order[:-1], -1)
        prev = prev[:n]
        known = prev >= 0
        known[known] = ~rejected[prev[known]]
        fields = {name: np.r_[np.concatenate([p[name].get() for p in self.parts]).astype(np.int64),
                              np.full(len(self.gaps), -1, np.int64)] for name in DECK_FIELDS}
        equal = [fields[name][:n] == fields[name][np.maximum(prev, 0)] for name in DECK_FIELDS]
        reason = np.argmax(np.stack(equal), axis=0)  # (the first reason that holds names it)
        file = np.concatenate([p["file"].get() for p in self.parts])
        out = {}
        for rule in self.rules:
            if rule.code in self.unjudged:
                continue
            was = np.concatenate([p[rule.code].get() for p in self.parts])
            alone = np.concatenate([p[rule.code + "/alone"].get() for p in self.parts])
            now = np.where(alone & known, np.where(np.logical_or.reduce(equal), 1 + reason, 0), -1)
            changed = np.flatnonzero(now != was)
            if not len(changed):
                continue
            w, v = was[changed], now[changed]
            rid = self._texts(changed)
            gone, other, new = (w >= 1) & (v < 1), (w >= 1) & (v >= 1), (w < 1) & (v >= 1)
            mine = (np.ones(len(changed), bool) if counted is None
                    else np.isin(file[changed], [self.files[f] for f in counted if f in self.files]))
            out[rule.code] = {
                "checked": int(((v >= 0) & mine).sum() - ((w >= 0) & mine).sum()),
                "violations": int(((v >= 1) & mine).sum() - ((w >= 1) & mine).sum()),
                "gone": (t[changed][gone], rid[gone]), "reason": (t[changed][other], rid[other], v[other] - 1),
                "new": pd.DataFrame({"t": t[changed][new], "round_id": rid[new], "file": file[changed][new]})}
        return out

    def _texts(self, rows: np.ndarray) -> np.ndarray:
        """The round ids of the audited entries at ``rows`` (places among all parts'), as objects."""
        bounds = np.cumsum([0] + [p["n"] for p in self.parts])
        part = np.searchsorted(bounds, rows, side="right") - 1
        out = np.empty(len(rows), dtype=object)
        for k in np.unique(part).tolist():  # (only the parts that hold one are decompressed)
            mine = part == k
            texts = self.parts[k]["round_id"].get()
            out[mine] = texts.take(pa.array(rows[mine] - bounds[k])).to_numpy(zero_copy_only=False)
        return out


class _Disorder(Exception):
    """A game's file gives a round (or a gap) at or before its table's latest of an earlier
    chunk, or places a gap of an earlier chunk again (see ``_Watch``)."""


class _Watch(_Ledger):
    """The ledger of a game of one file, which keeps nothing but each table's latest time: a
    file in time order (as exports are) needs no more, and keeping every round cost a 1M-round
    log 0.15-0.17 s of the auditing thread, and a 10M-round log 70 MB at its peak. Where the
    file gives a round (or a gap, ``_gaps``) at or before its table's latest in an earlier
    chunk, or a gap of an earlier chunk is placed elsewhere than where it was judged
    (``_GameRun._placed_again``), the audit stops (``_Disorder``) and begins again with a
    ``_Ledger`` from the file's first row: a file out of time order is read twice, up to the
    chunk where that shows (the second, for a file newest first)."""

    def inserts(self, t: np.ndarray, at: np.ndarray) -> bool:
        if self._late(t, at).any():
            raise _Disorder
        return False

    def keep(self, ctx, results: dict[str, CheckResult], keys: np.ndarray,
             entries: tuple[np.ndarray, np.ndarray]) -> None:
        np.maximum.at(self.latest, *entries)

    def move(self, keys: np.ndarray, at: np.ndarray) -> None:
        if len(keys):
            raise _Disorder


_NO_TIME = np.iinfo(np.int64).min
_ZSTD = pa.Codec("zstd", compression_level=1)


class _Packed:
    """One column of a chunk's entries in the ledger, compressed (zstd): read back whole
    (``get``) only where a later file gives a round at or before its table's latest, and at
    the end. A chunk's entries are its tables' rounds in time order, so the codes (table,
    file, deck, colour, what a rule found) come in long runs and the times, kept as the
    differences between neighbours (``delta``), in a few distinct steps: the 1M-round Triple
    Shot log as daily files keeps 1.65 bytes a round where plain arrays took 37 (the times 1.4
    where they took 8, the round id's text, ``_PackedText``, 0.22 where it took 19)."""

    __slots__ = ("blob", "dtype", "n", "delta")

    def __init__(self, values: np.ndarray, delta: bool = False):
        values = np.ascontiguousarray(values)
        self.dtype, self.n, self.delta = values.dtype, len(values), delta
        if delta and len(values):
            # (an unreadable time is the earliest integer: its difference wraps, and the sum back
            # wraps again, exactly)
            values = np.diff(values, prepend=values.dtype.type(0))
        self.blob = _ZSTD.compress(pa.py_buffer(values), asbytes=True) if len(values) else b""

    def get(self) -> np.ndarray:
        """The column (read-only unless ``delta``)."""
        if not self.n:
            return np.zeros(0, self.dtype)
        raw = np.frombuffer(_ZSTD.decompress(self.blob, self.n * self.dtype.itemsize, asbytes=True), self.dtype)
        return np.cumsum(raw, dtype=self.dtype) if self.delta else raw

    def nbytes_kept(self) -> int:
        return len(self.blob)


class _PackedText:
    """A column of texts (a chunk's round ids) compressed, as its values' lengths
    (``_Packed``) and their bytes one after another; ``get`` gives them back as Arrow text."""

    __slots__ = ("lengths", "blob", "size", "nulls")

    def __init__(self, values: pa.Array):
        offsets, data = buffers(values.cast(pa.large_string()))
        self.lengths = _Packed(np.diff(offsets).astype(np.int32))
        self.size = int(offsets[-1] - offsets[0])
        data = data[offsets[0]:offsets[-1]]
        self.blob = _ZSTD.compress(pa.py_buffer(data), asbytes=True) if self.size else b""
        self.nulls = _Packed(values.is_null().to_numpy(zero_copy_only=False)) if values.null_count else None

    def get(self) -> pa.LargeStringArray:
        lengths = self.lengths.get()
        offsets = np.zeros(len(lengths) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        data = _ZSTD.decompress(self.blob, self.size) if self.size else pa.py_buffer(b"")
        valid = pa.array(~self.nulls.get()).buffers()[1] if self.nulls is not None else None
        return pa.LargeStringArray.from_buffers(len(lengths), pa.py_buffer(offsets), data, valid)

    def nbytes_kept(self) -> int:
        return self.lengths.nbytes_kept() + len(self.blob) + (self.nulls.nbytes_kept() if self.nulls else 0)


def _codes(values: pd.Series, vocab: dict[str, int], lower: bool = False) -> np.ndarray:
    """Each value's code in ``vocab`` (new texts added to it), -1 for a missing one: through
    the categories, never row by row."""
    values = values if isinstance(values.dtype, pd.CategoricalDtype) else values.astype("category")
    texts = [str(c) for c in values.cat.categories.tolist()]
    mapped = np.array([vocab.setdefault(c.lower() if lower else c, len(vocab)) for c in texts] + [-1], np.int64)
    return mapped[values.cat.codes.to_numpy().astype(np.int64)]


def _small(codes: np.ndarray, vocab: dict) -> np.ndarray:
    """Codes in the smallest integers that hold every code of ``vocab`` (and -1)."""
    return codes.astype(np.int16 if len(vocab) < 2**15 - 1 else np.int32)


def _arrow_text(values: pd.Series) -> pa.Array:
    """The values as Arrow text, 4-byte offsets (a categorical's taken from its categories)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        texts = _large_text(values.cat.categories).take(pa.array(codes, mask=codes < 0))
    else:
        texts = _large_text(values)
    return texts.cast(pa.string())


def _ns(values: pd.Series) -> np.ndarray:
    """Times as UTC nanoseconds (a missing one the earliest, as ``checks.base.sequence`` reads it)."""
    return pd.DatetimeIndex(pd.to_datetime(values, utc=True)).as_unit("ns").asi8


def _decoded(values: pa.Array) -> pa.Array:
    """A text column as plain text (a Parquet file's may be dictionary-encoded)."""
    return values.dictionary_decode() if pa.types.is_dictionary(values.type) else values


def _state(result: CheckResult) -> np.ndarray:
    """Of each round of a result over rounds: -1 not checked, 0 passed, 1 + its reason's index."""
    reason = result.reason if result.reason is not None else np.zeros(len(result.applies), np.int8)
    return np.where(result.applies, np.where(result.violates, 1 + reason.astype(np.int8), 0), -1).astype(np.int8)


def _compacted(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (a few rows kept past their chunk) with each categorical holding only the
    categories its rows use: a chunk's categories are every id of the chunk, which a kept frame
    would otherwise keep alive to the end (a 10M-round Triple Shot log audited with what its
    gaps keep: a peak of 1.90 GB, 1.68-1.78 GB with the categories so compacted)."""
    return frame.assign(**{name: frame[name].cat.remove_unused_categories() for name in frame.columns
                           if isinstance(frame[name].dtype, pd.CategoricalDtype)})


def _key_at(frame: pd.DataFrame, rows: np.ndarray | None = None) -> np.ndarray:
    """The hash of the round at each of ``rows`` of ``frame`` (all rows if None), by its table and
    round id's text, as ``_round_hashes`` gives it."""
    rows = np.arange(len(frame)) if rows is None else rows
    if not len(rows):
        return np.zeros(0, np.uint64)
    return _mixed(_hashed(frame["table_id"], rows), _hashed(frame["round_id"], rows))


def _mixed(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """One 64-bit hash of two (a table's and a round id's, a round's and its file's)."""
    return first * np.uint64(1_000_003) ^ second


def _one_per_record(rejects: pd.DataFrame) -> pd.DataFrame:
    """The rejects, one per record (file and line): its first reason, and in ``also`` its
    others, as (field, reason, detail), so that the list counts what ``records_rejected``
    counts. A record rejected for a fault of its own is not also said to be in a round
    rejected for another row: in JSONL, where a record's hands are its rows, the fault is
    its own. Sorted by file, line, field and reason, a record's own faults before the rest
    (the rest in the order found, which is the same at every run). By integer codes: a file
    of a million rejected rows is sorted in a fraction of a second."""
    if not len(rejects):
        return rejects.assign(also=pd.Series(dtype=object))
    codes = [pd.factorize(rejects[name], sort=True)[0] for name in ("file", "field", "reason")]
    line = rejects["line"].to_numpy()
    follow = (rejects["reason"] == "reject.round_incomplete").to_numpy()
    order = np.lexsort((codes[2], codes[1], follow, line, codes[0]))  # (stable)
    file_code, line, follow = codes[0][order], line[order], follow[order]
    first = np.r_[True, (file_code[1:] != file_code[:-1]) | (line[1:] != line[:-1])]
    keep = first | ~follow  # (a follow-on reason after the record's own fault is dropped)
    rejects, first = rejects.iloc[order[keep]], first[keep]
    out = rejects[first].reset_index(drop=True)
    also = np.empty(len(out), dtype=object)
    also.fill(())
    if not first.all():
        rest = rejects[~first]
        at = (np.cumsum(first) - 1)[~first]  # of each further reason, its record's entry
        # A further reason the same as the record's first (two hands of a JSONL record with
        # the same fault) is said once.
        same = np.ones(len(at), bool)
        for name in ("field", "reason", "detail"):
            same &= rest[name].to_numpy(dtype=object) == out[name].to_numpy(dtype=object)[at]
        rest, at = rest[~same], at[~same]
        entries = list(zip(*(rest[c].tolist() for c in ("field", "reason", "detail"))))
        starts = np.flatnonzero(np.r_[True, at[1:] != at[:-1]]) if len(at) else np.zeros(0, np.int64)
        ends = np.r_[starts[1:], len(at)]
        alone = ends - starts == 1
        # (one further reason, as most records with more than one have: no loop in Python)
        also[at[starts[alone]]] = pd.Series([(entries[i],) for i in starts[alone].tolist()], dtype=object).to_numpy()
        for lo, hi in zip(starts[~alone].tolist(), ends[~alone].tolist()):
            also[at[lo]] = tuple(dict.fromkeys(entries[lo:hi]))
    out["also"] = also
    return out


def _unknown_rounds(ctx, name: str, game: str) -> tuple[np.ndarray, set[str]] | None:
    """(the rounds whose settlement ``name`` is not known, the columns their files lack) or
    None when there are none: rounds from a file that lacks the settlement column while a hand
    shows its bet, or lacks the bet column while a hand shows a settlement. (A file without
    both has no such bet: read as 0, as the format's default, it is right.)"""
    absent = ctx.hands["_absent"].to_numpy()
    if not absent.any():
        return None
    bet = partners(game)[name]
    unknown, lacking = np.zeros(len(absent), bool), set()
    for missing, shown in ((name, bet), (bet, name)):
        rows = ((absent & absent_bits(game, [missing])) != 0) & (ctx.hands[shown].to_numpy() != 0)
        if rows.any():
            unknown |= rows
            lacking.add(missing)
    return (group_any(unknown, ctx.rid, ctx.n_rounds), lacking) if lacking else None


def _round_hashes(df: pd.DataFrame, first: np.ndarray, of_round: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct 64-bit hashes of the chunk's rounds, the hash of each row's round
    as an index into them): a round is hashed once, at its first row, not per row."""
    if not len(df):
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    keys, of_hash = np.unique(_key_at(df, first), return_inverse=True)
    return keys, of_hash[of_round]


def _hashed(values: pd.Series, rows: np.ndarray) -> np.ndarray:
    """64-bit hashes of the text of the values at ``rows``: equal text, equal hash, whatever
    the dtype and the chunk. A categorical's categories are hashed, each once (but for a few
    rows of many categories: those rows' values)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()[rows]
        if (codes >= 0).all() and len(codes) >= len(values.cat.categories) // 8:
            return _text_hashes(*buffers(_large_text(values.cat.categories)))[codes]
    return _text_hashes(*buffers(_large_text(values.take(rows))))


def _large_text(values: pd.Index | pd.Series) -> pa.LargeStringArray:
    """The values as Arrow text; Arrow-backed ones as they are, not made Python strings."""
    if isinstance(values.array, pd.arrays.ArrowStringArray):
        return as_large_string(pa.array(values.array))
    return as_large_string(pa.array(np.asarray(values, dtype=object), pa.large_string(), from_pandas=True))


@kernel
def _text_hashes(offsets, data):
    """FNV-1a of each value's bytes, its bits then mixed by MurmurHash3's finaliser."""
    hashes = np.empty(len(offsets) - 1, np.uint64)
    for i in range(len(hashes)):
        h = np.uint64(0xCBF29CE484222325)
        for k in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(data[k])) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xFF51AFD7ED558CCD)
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xC4CEB9FE1A85EC53)
        hashes[i] = h ^ (h >> np.uint64(33))
    return hashes


def _last_per_table(df: pd.DataFrame, first: np.ndarray, gaps: pd.DataFrame, previous: list[dict],
                    game: str) -> list[dict]:
    """Each table's latest round so far (audited, or rejected for a fault of its own: ``gaps``), with
    the round-level fields, one record per table in the order of the tables: the carry that
    lets a chunk compare its first round of a table with the one before it (see
    ``checks.base.previous_rounds``). ``df`` is in the audit's order (see ``_audit_order``);
    ``first``: the first row of each of its rounds. The latest is the one of the latest
    time, then of the greatest round id, then the last offered: carried, audited, rejected."""
    cols = [c.name for c in columns_of(game) if c.round_level and c.name in df.columns
            and c.name not in ("table_id", "round_id", "started_at")]
    offers = list(previous)
    if len(df):
        last = first[_latest(df["_tcode"].to_numpy()[first], df["started_at"].array.asi8[first],
                             df["_rcode"].to_numpy()[first])]
        offers += _records(df, last, ["table_id", "round_id", "started_at", *cols], rejected=False)
    if len(gaps):
        latest_gap = _latest(_sorted_codes(gaps["table_id"])[0], gaps["started_at"].array.asi8,
                             _sorted_codes(gaps["round_id"])[0])
        offers += _records(gaps, latest_gap, ["table_id", "round_id", "started_at"], rejected=True)
    latest: dict[str, dict] = {}
    for offer in offers:  # a few per table
        held = latest.get(offer["table_id"])
        # Times as integers: a rejected round's unreadable time (NaT) is the earliest.
        if held is None or (offer["started_at"].value, offer["round_id"]) >= (held["started_at"].value,
                                                                             held["round_id"]):
            latest[offer["table_id"]] = offer
    return [latest[table_id] for table_id in sorted(latest)]


def _records(frame: pd.DataFrame, rows: np.ndarray, columns: list[str], rejected: bool) -> list[dict]:
    """The rows at ``rows`` (one per table) as plain Python records, marked ``_rejected``."""
    arrays = [frame[c].array for c in columns]
    return [{**{c: a[i] for c, a in zip(columns, arrays)}, "_rejected": rejected} for i in rows.tolist()]


@kernel
def _latest(table, time, rank):
    """Each table's latest round, in the order of the tables' codes: the one of the latest
    time, then of the greatest round id (``rank``: codes that sort like the ids), then the
    last given."""
    best = np.full(table.max() + 1 if len(table) else 0, -1, np.int64)
    for i in range(len(table)):
        b = best[table[i]]
        if b < 0 or time[i] > time[b] or (time[i] == time[b] and rank[i] >= rank[b]):
            best[table[i]] = i
    return best[best >= 0]


def _objects_at(values: pd.Series, rows: np.ndarray) -> np.ndarray:
    """The values at ``rows`` as an object array; a categorical's as ``_plain_at`` gives them
    (without the Series around them, a few hundred microseconds a call)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return categorical_objects(values.array, rows)
    return values.take(rows).to_numpy(dtype=object)


def _plain_at(values: pd.Series, rows: np.ndarray) -> pd.Series:
    """The values at ``rows``; a categorical's as plain objects (see ``categorical_objects``)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return pd.Series(_objects_at(values, rows), dtype=object)
    return values.take(rows).reset_index(drop=True)


def _add_round_keys(df: pd.DataFrame) -> None:
    """Integer codes that sort like the text: ``_tcode`` (table), ``_rcode`` (round id) and
    ``_rkey`` (the round: table and round id together)."""
    tcode, _ = _sorted_codes(df["table_id"])
    rcode, runiq = _sorted_codes(df["round_id"])
    # Given as Series: pandas copies an array given as a column (0.5 ms each, a chunk).
    for name, codes in (("_tcode", tcode), ("_rcode", rcode), ("_rkey", tcode * (runiq + 1) + rcode)):
        df[name] = pd.Series(codes, index=df.index, copy=False)


def _given_by_an_earlier_file(df: pd.DataFrame, round_start: np.ndarray,
                              line_rounds: np.ndarray | None = None) -> np.ndarray | None:
    """Each row's file within the chunk (0, 1, …, in the order they are read) where a
    round of the chunk is given by two files, else None (``round_start``: the first row of
    each row's round). The same table and round id in two files (an export sent twice) are
    two copies of a round: the rows of each later copy are given a round key of their own,
    one per file and round, so that each copy is judged by itself, and the round is audited
    from one copy only (``_GameRun._repeats``), as it is when the files fall in different
    chunks, so the answer does not depend on the chunks. (``line_rounds``: the rows of JSONL
    files, whose lines are whole rounds, never a part of a cut one: see ``_cut_rounds``.)"""
    files = df["_file"].astype("category").array.codes
    part = np.r_[0, np.cumsum(files[1:] != files[:-1])]  # a chunk holds each file's rows together
    again = part != part[round_start]
    if not again.any():
        return None
    cut, joined = _cut_rounds(df, part, again, line_rounds)
    if len(cut):  # one round, read from two files: the earlier file's
        part[cut] = joined
        again = part != part[round_start]
        if not again.any():
            return None
    rkey = df["_rkey"].to_numpy().copy()
    fresh = rkey.max() + 1  # the new keys come after every key of the chunk
    _, own = np.unique(part[again] * fresh + rkey[again], return_inverse=True)
    rkey[again] = fresh + own
    df["_rkey"] = pd.Series(rkey, index=df.index, copy=False)
    return part


def _copied_in_file(df: pd.DataFrame, rounds: int, line_rounds: np.ndarray | None = None) -> np.ndarray | None:
    """The rows of each later copy of a round within its own file, else None (``rounds``:
    how many the chunk holds). Of a round given by two files of the chunk, each file's copy
    (``_given_by_an_earlier_file`` keys them apart, but a cut round's rest, which is its
    first file's) is looked at by itself: a later file that gives the round twice gives a
    copy of its copy, as when a chunk falls between the two, whatever the earlier file's copy
    (rejected for a fault of its own, it leaves the round to the later file's first copy). A
    round's rows come together in an export; rows of it given
    again further on in its file that repeat a seat (and hand) of it are a copy of it (the
    round sent twice, maybe with an amount changed), as they are when a chunk falls between
    the two: rejected as repeats (``_GameRun.add``), the first audited. Each copy is given
    a round key of its own, so that it is not taken for part of the round (a seat given twice,
    which would reject both). Rows apart that give seats the round has not (two tables'
    rounds interleaved) still join it, as a cut round's next part does (``_cut_rounds``). But
    a JSONL line is a whole round (``line_rounds``: the rows of such files): a later line of
    a round is a copy of it whatever seats it gives, next to it or further on, as it is in a
    later chunk. Only a round given in two runs of rows (or lines) or more is looked at."""
    rkey = df["_rkey"].to_numpy()
    if not len(rkey):
        return None
    ends = rkey[1:] != rkey[:-1]
    if line_rounds is not None:  # (a line ends where the next row is of another line or file)
        record, files = df["_record"].to_numpy(), df["_file"].astype("category").array.codes
        ends |= line_rounds[1:] & ((record[1:] != record[:-1]) | (files[1:] != files[:-1]))
    if np.count_nonzero(ends) + 1 <= rounds:  # (each round one run: the usual)
        return None
    run_start = np.r_[True, ends]
    of_run, starts = np.cumsum(run_start) - 1, np.flatnonzero(run_start)
    run_key = rkey[starts]
    by_key = np.argsort(run_key, kind="stable")  # each round's runs, in the file's order
    sorted_keys = run_key[by_key]
    again = np.r_[False, sorted_keys[1:] == sorted_keys[:-1]]  # a later run of the round before
    many = again | np.r_[again[1:], False]
    runs, follows = by_key[many], again[many]
    piece_of_run = np.full(len(starts), -1, np.int64)
    piece_of_run[runs] = np.arange(len(runs))
    rows = np.flatnonzero(piece_of_run[of_run] >= 0)
    piece = piece_of_run[of_run[rows]]
    latest = _latest_shared(df, rows, rkey[rows], piece, len(runs))
    if line_rounds is not None:  # (as if it shared a seat with the line before it)
        line = follows & line_rounds[starts[runs]]
        latest[line] = np.flatnonzero(line) - 1
    first = _joined_to(follows, latest)[piece]
    copy = follows[first]  # (a copy begins with a later run of its round)
    if not copy.any():
        return None
    rkey = rkey.copy()
    _, own = np.unique(first[copy], return_inverse=True)
    rkey[rows[copy]] = rkey.max() + 1 + own  # the new keys come after every key of the chunk
    df["_rkey"] = pd.Series(rkey, index=df.index, copy=False)
    copies = np.zeros(len(df), bool)
    copies[rows[copy]] = True
    return copies


def _cut_rounds(df: pd.DataFrame, part: np.ndarray, again: np.ndarray,
                line_rounds: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(rows, the file each belongs to) of the rounds that an export cut in two files or more
    (a log split by size as it was written, some files maybe made of a part of one round
    alone), among the rounds given by two files of the chunk (``again``): where one file's rows
    of a round and the next file's follow each other in the chunk, the last of the one and the
    first of the other, and no seat (and hand) is in both, as it would be in a copy of the
    round, the later file's rows belong to the earlier one's; and so on along the files that
    follow, each part joining the round while it gives no seat that any part before it in the
    round gave (one that does begins a copy, which the parts after it may go on with). So a
    cut round is one round, audited whole, and so is each cut copy of it (each file's copy is
    judged as the round: see ``_given_by_an_earlier_file``). A JSONL line (``line_rounds``:
    the rows of such files) is a whole round: never the rest of a cut round, nor its first
    part (an export split by size cuts a JSONL file between lines)."""
    rkey = df["_rkey"].to_numpy()
    rows = np.flatnonzero(np.isin(rkey, np.unique(rkey[again])))  # (in the chunk's order)
    rows = rows[np.lexsort((rows, rkey[rows]))]
    keys, parts = rkey[rows], part[rows]
    # Pieces: a round's runs of rows in one file (a chunk holds each file's rows together).
    # Only a run that ends its file and the run that begins the next are a cut: a file's other
    # rows of the round, further on in it, are a copy (the round sent again), as they are
    # where a chunk falls between them and the cut.
    starts = np.flatnonzero(np.r_[True, (keys[1:] != keys[:-1]) | (parts[1:] != parts[:-1])
                                  | (rows[1:] != rows[:-1] + 1)])
    counts = np.diff(np.r_[starts, len(rows)])
    ends = starts + counts - 1
    piece = np.repeat(np.arange(len(starts)), counts)
    follows = np.r_[False, (keys[starts][1:] == keys[starts][:-1])
                    & (rows[starts][1:] == rows[ends][:-1] + 1)]  # piece k goes on from piece k-1
    if line_rounds is not None:
        line = line_rounds[rows[starts]]
        follows &= ~line & ~np.r_[False, line[:-1]]
    # A seat (and hand) that a piece gives and an earlier piece of the round gave: a copy, not a
    # cut. (One given twice within a file is that file's fault, found as in any round.)
    first = _joined_to(follows, _latest_shared(df, rows, keys, piece, len(starts)))
    joined = (first != np.arange(len(starts)))[piece]  # rows of a piece that joins the ones before
    return rows[joined], parts[starts][first[piece[joined]]]


def _latest_shared(df: pd.DataFrame, rows: np.ndarray, keys: np.ndarray, piece: np.ndarray, pieces: int) -> np.ndarray:
    """Of each of ``pieces`` pieces of rounds (``piece`` of each of the ``rows``, whose round
    keys are ``keys``; a round's pieces numbered in order): the latest earlier piece of its
    round that gives a seat (and hand) it gives too, -1 for none."""
    seats = [df[name].to_numpy()[rows].astype(np.int64) for name in ("seat", "hand") if name in df]
    by_seat = np.lexsort((piece, *reversed(seats), keys))
    a, b = by_seat[:-1], by_seat[1:]
    shared = piece[b] > piece[a]
    for values in (keys, *seats):
        shared &= values[b] == values[a]
    latest = np.full(pieces, -1, np.int64)
    np.maximum.at(latest, piece[b][shared], piece[a][shared])
    return latest


@kernel
def _joined_to(follows, latest_shared):
    """The first piece of the round (or copy) that each piece belongs to: the one before's,
    where it goes on from that one (``follows``) and shares no seat with any piece from that
    first one on (``latest_shared``: the latest earlier piece it shares a seat with, -1 for
    none), else itself."""
    first = np.empty(len(follows), np.int64)
    for k in range(len(follows)):
        first[k] = first[k - 1] if follows[k] and latest_shared[k] < first[k - 1] else k
    return first


def _sorted_codes(values: pd.Series) -> tuple[np.ndarray, int]:
    """(codes that sort like the text, how many distinct values). A round field is typed as a
    categorical of sorted categories, every one used (``ingest``): its codes are those."""
    if isinstance(values.dtype, pd.CategoricalDtype) and values.cat.categories.is_monotonic_increasing:
        codes = values.cat.codes.to_numpy().astype(np.int64)
        if not len(codes) or codes.min() >= 0:
            return codes, len(values.cat.categories)
    codes, uniques = pd.factorize(values, sort=True)
    return codes.astype(np.int64), len(uniques)


def _named(values: pd.Series) -> np.ndarray:
    """Where a text field holds something: neither missing nor blank (a row rejected for
    another fault keeps its blank id as text)."""
    if isinstance(values.dtype, pd.CategoricalDtype):  # (by its categories, each once, as Arrow
        # text: a chunk's 75,000 round ids made Python strings took 4 ms, their lengths 0.05 ms)
        held = pc.binary_length(_large_text(values.cat.categories)).to_numpy() > 0
        return np.r_[held, False][values.cat.codes.to_numpy()]
    plain = _plain_at(values, np.arange(len(values)))
    return (plain.notna() & (plain != "")).to_numpy(dtype=bool)


_ID_FIELDS = ("table_id", "round_id")


def _next_to_unnamed(df: pd.DataFrame, rejects: pd.DataFrame, line_rounds: set[str]) -> tuple[np.ndarray, np.ndarray]:
    """(rows, the line of the row that makes each one's round unauditable): for each rejected
    row whose table or round id may name no round (``sources.unreadable_ids``: missing, blank,
    too long; a row rejected for its shape too, a CSV line with a field too many), the nearest
    row before it and the nearest after it whose ids are readable, in the same file, where they
    agree with the id the row has. An export gives a round's rows together, so such a row is
    most likely of the round beside it, which is then not audited without it: a hand left
    out would change the round's pool, shoe or payments into false findings. (A JSONL line,
    ``line_rounds``, is a whole round by itself: rejected whole, it leaves no round short.)
    The readers never cut a file's rows between such a row and the rows beside it
    (``logs.sources``), so this does not depend on the chunks."""
    rejected = np.unique(rejects["_row"].to_numpy())
    rejected = rejected[rejected >= 0]
    n = len(df)
    bad = {f: np.zeros(n, bool) for f in _ID_FIELDS}
    for f in _ID_FIELDS:
        if len(rejected):
            bad[f][rejected] = unreadable_ids(pa.array(_plain_at(df[f], rejected).tolist(), pa.large_string()))
    unnamed = bad["table_id"] | bad["round_id"]
    files = df["_file"].astype("category").array
    if line_rounds and unnamed.any():
        unnamed &= ~np.isin(files.codes, np.flatnonzero(files.categories.isin(list(line_rounds))))
    if not unnamed.any():
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    before, after = _nearest(~unnamed)  # the readable rows around each row
    u = np.flatnonzero(unnamed)
    codes = {"table_id": df["_tcode"].to_numpy(), "round_id": df["_rcode"].to_numpy()}
    lines_u = df["_line"].to_numpy()[u]
    out_rows, out_lines = [], []
    for side in (before[u], after[u]):
        j = np.clip(side, 0, n - 1)
        ok = (side >= 0) & (side < n) & (files.codes[j] == files.codes[u])
        for f in _ID_FIELDS:
            ok &= bad[f][u] | (codes[f][j] == codes[f][u])
        out_rows.append(j[ok])
        out_lines.append(lines_u[ok])
    return np.concatenate(out_rows), np.concatenate(out_lines)


def _nearest(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each position, the last position at or before it where ``mask`` holds (-1 if none)
    and the first at or after it (``len(mask)`` if none)."""
    n, at = len(mask), np.arange(len(mask))
    return (np.maximum.accumulate(np.where(mask, at, -1)),
            np.minimum.accumulate(np.where(mask, at, n)[::-1])[::-1])


def _row_mask(rejects: pd.DataFrame, n: int) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    rows = rejects["_row"].to_numpy()
    mask[rows[rows >= 0]] = True
    return mask


def _records_per_file(df: pd.DataFrame) -> dict[str, int]:
    """Distinct records (CSV rows, JSONL lines) among the rows, per file."""
    if not len(df):
        return {}
    files = df["_file"].astype("category").array
    record = df["_record"].to_numpy()
    base = int(record.max()) + 1
    pairs = files.codes.astype(np.int64) * base + record
    if (pairs[1:] >= pairs[:-1]).all():  # in the order of the files, as a chunk's rows come
        pairs = pairs[np.r_[True, pairs[1:] != pairs[:-1]]]
    else:
        pairs = pd.unique(pairs)
    counts = np.bincount(pairs // base, minlength=len(files.categories))
    return {str(f): int(c) for f, c in zip(files.categories, counts) if c}


def _rejected_records(df: pd.DataFrame, rejects: pd.DataFrame) -> dict[str, int]:
    """Distinct records (CSV rows, JSONL lines) rejected, per file."""
    rows = rejects["_row"].to_numpy()
    on_rows = rows >= 0
    records = np.where(on_rows, df["_record"].to_numpy()[np.where(on_rows, rows, 0)] if len(df) else 0,
                       rejects["line"].to_numpy())
    return _records_per_file(pd.DataFrame({"_file": rejects["file"].to_numpy(), "_record": records}))


def _wagered(df: pd.DataFrame, wagers=("bet", "double", "insurance", "pool_bet")) -> int:
    """The stakes of a chunk, summed exactly: int64 within a column (``money.LARGEST_CENTS``
    each), Python's int across them and across chunks."""
    return sum(int(df[c].sum()) for c in wagers if c in df)


def _file_totals(df: pd.DataFrame, first: np.ndarray, wagers) -> dict[str, tuple]:
    """Of a chunk's audited rows, per file: (rounds, hands, stakes, first time, last time). A
    round is its first row's file's (``first``: each round's first row). Stakes summed exactly:
    int64 within a column and a file, Python's int across columns."""
    if not len(df):
        return {}
    files = df["_file"].astype("category").array
    codes = files.codes
    n = len(files.categories)
    rounds = np.bincount(codes[first], minlength=n).tolist()
    hands = np.bincount(codes, minlength=n).tolist()
    times = df["started_at"]
    if n == 1:  # (a chunk of one file, as a large log's are)
        return {str(files.categories[0]): (rounds[0], hands[0], _wagered(df, wagers), times.min(), times.max())}
    wagered = [0] * n
    if (codes[1:] >= codes[:-1]).all() and not times.isna().any() and all(
            df[c].dtype == np.int64 for c in wagers if c in df):
        # (a chunk's rows in the order of its files, as they come: each file's rows one run)
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        used = codes[starts].tolist()
        for c in wagers:
            if c in df:
                for code, total in zip(used, np.add.reduceat(df[c].to_numpy(), starts).tolist()):
                    wagered[code] += total
        ns = times.array.asi8
        los, his = np.minimum.reduceat(ns, starts), np.maximum.reduceat(ns, starts)
        unit, tz = times.array.unit, times.dt.tz
        return {str(files.categories[code]): (rounds[code], hands[code], wagered[code],
                                              pd.Timestamp(lo, unit=unit, tz=tz), pd.Timestamp(hi, unit=unit, tz=tz))
                for code, lo, hi in zip(used, los.tolist(), his.tolist())}
    for c in wagers:
        if c in df:
            for code, total in df[c].groupby(codes).sum().items():
                wagered[code] += int(total)
    spans = times.groupby(codes).agg(["min", "max"])
    return {str(files.categories[code]): (rounds[code], hands[code], wagered[code], lo, hi)
            for code, lo, hi in zip(spans.index.tolist(), spans["min"].tolist(), spans["max"].tolist())}


def _empty_frame(game: str) -> pa.Table:
    return batch_schema(game).empty_table()


def _audit_order(df: pd.DataFrame, round_start: np.ndarray) -> np.ndarray:
    """The rows in the audit's order: each round's rows together, by seat and hand, the
    rounds in the order they start in the chunk (``round_start``: the first row of each
    row's round). That is the order of a log as exporters write it, which is then kept as
    it is. Nothing else needs an order: a rule that compares a round with the table's round
    before it sorts the rounds by time itself (``checks.base.previous_rounds``), and the
    findings are sorted at the end."""
    key = round_start.astype(np.int64)
    for c in ("seat", "hand"):  # -1 (blank) .. 10000: a digit of base KEY_BASE each
        if c in df:
            key = key * KEY_BASE + (df[c].to_numpy().astype(np.int64) + 1)
    if not len(key) or (key[1:] >= key[:-1]).all():
        return np.arange(len(key))
    return np.argsort(key, kind="stable")


def _select(table: HandTable, rows: np.ndarray) -> HandTable:
    """The given rows (one gather for the frame and each matrix), each with its place as read
    (``HandTable.read_at``). When they are all the rows, in order (a chunk with no row
    rejected, as a clean log's are), nothing is gathered."""
    if len(rows) == len(table) and (rows == np.arange(len(rows))).all():
        return HandTable(df=table.df, matrices=table.matrices, read_at=table.read_at)
    return HandTable(df=frame_rows(table.df, rows), matrices={k: m.take(rows) for k, m in table.matrices.items()},
                     read_at=rows if table.read_at is None else table.read_at[rows])


# A card field the audit cannot read as the game's: a card outside the deck, or more cards than
# the field holds (ingest); either is the round's ``…-CARDS`` data finding, which says which.
_CARD_REASONS = ("reject.bad_cards", "reject.too_many_cards")


def _card_text(raw: pa.Table, table: HandTable, card_rows: np.ndarray,
               card_rejects: pd.DataFrame) -> tuple[list[str], list[str], list[str]]:
    """(field, text, reason) of the first unreadable card field of each row with one, the
    reason as the ingest rejected it (``_CARD_REASONS``)."""
    idx = np.flatnonzero(card_rows)
    names = [name for name, m in table.matrices.items() if name != "actions"]
    if not len(idx):
        return [], [], []
    which = np.stack([table.matrices[name].bad[idx] for name in names], axis=1).argmax(axis=1)
    said = dict(zip(zip(card_rejects["_row"].tolist(), card_rejects["field"].tolist()), card_rejects["reason"].tolist()))
    return ([names[w] for w in which], [str(raw.column(names[w])[int(i)].as_py())[:80] for w, i in zip(which, idx)],
            [said.get((int(i), names[w]), _CARD_REASONS[0]) for w, i in zip(which, idx)])


def _among(known: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(which of ``keys`` the sorted array ``known`` holds, where each goes in it)."""
    at = np.searchsorted(known, keys)
    if not len(known):
        return np.zeros(len(keys), bool), at
    return (at < len(known)) & (known[np.minimum(at, len(known) - 1)] == keys), at


def _with_new(known: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the sorted array ``known`` with those of ``keys`` (distinct, sorted) it lacked, which of
    ``keys`` it held). Kept sorted by inserting, not re-sorting: the cost of a chunk does not
    grow with the log."""
    found, at = _among(known, keys)
    return np.insert(known, at[~found], keys[~found]), found


_BITS = 1 << 20  # of the bitmap that ``_held`` tells most keys absent by (a megabyte)


def _held(known: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Which of ``keys`` (hashes in no order) the sorted array ``known`` holds. When it holds
    few (the rounds rejected so far, looked up for each row of a chunk), a bitmap of the keys'
    low bits sets most keys aside at once, and only the others are searched (a chunk's 200,000
    rows among 2,000 keys: 12.7 -> 1.0 ms)."""
    if len(known) > _BITS // 16:
        return np.isin(keys, known)
    bits = np.zeros(_BITS, bool)
    bits[known & np.uint64(_BITS - 1)] = True
    maybe = np.flatnonzero(bits[keys & np.uint64(_BITS - 1)])
    found = np.zeros(len(keys), bool)
    found[maybe] = _among(known, keys[maybe])[0]
    return found


def _per_file(keys: np.ndarray, of_row: np.ndarray, df: pd.DataFrame, rows: np.ndarray | None = None) -> np.ndarray:
    """The round of each row (of the ``rows``, a mask, or all), with its file: its round's hash
    (``keys[of_row]``, see ``_round_hashes``) combined with a hash of its file's name. A
    round that an export cut across files is the file's it begins in, its rest included (the
    file of its first row: ``_given_by_an_earlier_file`` keys the rounds of later files apart
    but a cut round's rest), as it is where a chunk holds the first file's part alone."""
    idx = np.arange(len(df)) if rows is None else np.flatnonzero(rows)
    at = idx
    files = df["_file"].astype("category").array.codes
    if len(idx) and (files[1:] != files[:-1]).any():
        first, of_round = _first_rows(df)
        at = first[of_round[idx]]
    return _mixed(keys[of_row[idx]], _hashed(df["_file"], at))


def _gaps(df: pd.DataFrame, rows: np.ndarray, previous: list[dict] = (), in_file: dict | None = None,
          waiting: list | None = None) -> pd.DataFrame:
    """(table_id, round_id, started_at) of each round of the ``rows`` (rejected for a fault
    of their own, of rounds not audited from another copy): such a round sits in its
    table's sequence (``checks.base.previous_rounds``). A round whose time is unreadable is
    placed where its file has it (``_placed_by_the_file``). (A row whose table or id is
    unreadable names no round of its own: the rounds beside it in its file are not audited,
    ``_next_to_unnamed``, and are gaps themselves.)"""
    at = _first_of_each_round(df, rows)
    found = frame_rows(df[["table_id", "round_id", "started_at"]], at)
    untimed = found["started_at"].isna().to_numpy()
    if untimed.any():
        found["started_at"], open_after, prev = _placed_by_the_file(df, at, untimed, found, previous, in_file or {})
        if waiting is not None and open_after.any():
            # (placed by the round before it in its file alone, the file going on in the next
            # chunk: placed again once its next timed round is read, _GameRun._placed_again)
            rows_open = np.flatnonzero(untimed)[open_after]
            unit = df["started_at"].dt.unit
            waiting.append(pd.DataFrame({
                "table_id": _objects_at(found["table_id"], rows_open), "_key": _key_at(found, rows_open),
                "prev": prev[open_after], "placed": _ns(found["started_at"].take(rows_open)),
                "step": np.full(len(rows_open), int(pd.Timedelta(1, unit=unit).value), np.int64)}))
    placed = found["table_id"].notna() & found["round_id"].notna() & found["started_at"].notna()
    return found if placed.all() else found[placed].reset_index(drop=True)


def _timed_in_file(df: pd.DataFrame, held: dict) -> dict:
    """What a round with an unreadable time in the next chunk may need of its file's rounds
    read so far: of the chunk's last file (the only one that may go on in the next chunk: files
    are read one after another), per table, the time of its first and of its last row read
    with a readable time (its direction and the round before in the file, see
    ``_placed_by_the_file``): ``{"file": name, "tables": {table_id: (first, last)}}``, the
    chunk's rows added to ``held`` where the file goes on from it. (A pass over one file's
    rows of the chunk, for every chunk: which chunk will hold such a round is not known.)"""
    if not len(df):
        return held
    files = df["_file"].astype("category").array
    last = files.codes[-1]
    name = files.categories[last]
    going_on = held.get("file") == name
    tables = dict(held["tables"]) if going_on else {}
    when = df["started_at"]
    mine = np.flatnonzero((files.codes == last) & when.notna().to_numpy())
    if len(mine):
        tcode = df["_tcode"].to_numpy()[mine]
        first = _first_of_each(tcode)
        ends = mine[len(mine) - 1 - _first_of_each(tcode[::-1])]
        ids, times = df["table_id"].array, when.array
        for i, j in zip(mine[first].tolist(), ends.tolist()):  # (one per table)
            table_id = ids[i]
            begun = tables.get(table_id)
            tables[table_id] = (times[i] if begun is None else begun[0], times[j])
    out = {"file": name, "tables": tables}
    if going_on and "waiting" in held and len(held["waiting"]):
        out["waiting"] = held["waiting"]
    return out


def _first_of_each(codes: np.ndarray) -> np.ndarray:
    """The position of each code's first occurrence, in the order of the codes: from a
    growing head of ``codes`` (a chunk's tables interleave, so a short one holds them all),
    not a sort of the whole."""
    wanted = int(np.count_nonzero(np.bincount(codes)))
    size = 4096
    while True:
        _, first = np.unique(codes[:size], return_index=True)
        if len(first) == wanted or size >= len(codes):
            return first
        size *= 4


def _placed_by_the_file(df: pd.DataFrame, at: np.ndarray, untimed: np.ndarray, found: pd.DataFrame,
                        previous: list[dict], in_file: dict) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """The times of the rounds ``found`` (their first rows are ``at``), those ``untimed`` (an
    unreadable start) given one from their file, by the clock's least step: between the
    timed rounds of their table next to them in their file (just after the earlier of the
    two), else beside the one there is, on the side the table's rounds run in the file (an
    export newest first runs back), else just after the table's round carried from the
    chunks before (``previous``). (Not by another file's rounds, which depend on the chunks.)
    The round before it in its file is its neighbour whatever chunk it fell in (``in_file``,
    the file's rows read in the chunks before, see ``_timed_in_file``), and so is the file's
    direction; placed by that round alone while its file goes on in the next chunk, it is
    placed again by the round after it there (returned: which rounds are so, and the time
    of the round before each, UTC nanoseconds; see ``_GameRun._placed_again``). A file gives a table's rounds in order, so the
    round keeps its place in the table's sequence and the round after it is not compared
    across it (with the round before it: a false two-deck finding)."""
    times = found["started_at"]
    when = df["started_at"]
    unit, tz = when.dt.unit, when.dt.tz
    vals = when.array.asi8
    none = np.iinfo(np.int64).min  # (NaT)
    n = len(df)
    order = np.lexsort((np.arange(n), df["_tcode"].to_numpy()))  # each table's rows, in reading order
    table, timed = df["_tcode"].to_numpy()[order], vals[order] != none
    place = np.empty(n, np.int64)
    place[order] = np.arange(n)
    prv, nxt = _nearest(timed)
    k = place[at[untimed]]
    after, before = np.minimum(nxt[k], n - 1), np.maximum(prv[k], 0)
    files = df["_file"].astype("category").array
    file = files.codes[order]
    has_after = (nxt[k] < n) & (table[after] == table[k]) & (file[after] == file[k])
    has_before = (prv[k] >= 0) & (table[before] == table[k]) & (file[before] == file[k])
    ids = found["table_id"].to_numpy()[untimed].tolist()

    def ns(value) -> int:
        return int(pd.Timestamp(value).as_unit(unit).asm8.astype(np.int64))

    carried = {r["table_id"]: r["started_at"] for r in previous if r["started_at"] is not pd.NaT}
    last_known = np.array([ns(carried[t]) + 1 if t in carried else none for t in ids], np.int64)
    # The file's rows of the table read in the chunks before, where the file goes on in this
    # chunk (``in_file``, see ``_timed_in_file``): a file's round before it is its neighbour
    # whatever chunk it fell in.
    held_first, held_last = np.full(len(k), none), np.full(len(k), none)
    going_on = files.categories.get_indexer([in_file.get("file")])[0] if in_file else -1
    if going_on >= 0:
        held = in_file["tables"]
        mine = np.flatnonzero((file[k] == going_on) & np.isin(np.array(ids, dtype=object), list(held)))
        for i in mine.tolist():  # (a few: the file's untimed rounds before its first timed one here)
            held_first[i], held_last[i] = ns(held[ids[i]][0]), ns(held[ids[i]][1])
    # Each table's direction in its file (from its first row read to its last): +1 where its
    # timed rounds run forward, -1 back. (A table's rows of one file are one run in ``order``.)
    ends = np.flatnonzero(timed)
    group = table * (int(file.max()) + 1) + file
    first_t, last_t = held_first.copy(), held_last.copy()
    if len(ends):
        runs = group[ends]
        starts = np.r_[0, np.flatnonzero(runs[1:] != runs[:-1]) + 1]
        stops = np.r_[starts[1:], len(ends)] - 1
        keys, by_key = runs[starts], np.argsort(runs[starts])
        at = np.minimum(np.searchsorted(keys[by_key], group[k]), len(keys) - 1)
        run = by_key[at]
        in_run = keys[run] == group[k]
        first_t = np.where(in_run & (held_first == none), vals[order[ends[starts[run]]]], first_t)
        last_t = np.where(in_run, vals[order[ends[stops[run]]]], last_t)
    way = np.where((first_t != none) & (last_t < first_t), -1, 1)
    next_t = vals[order[after]]
    from_before = ~has_before & (held_last != none)
    prev_t = np.where(from_before, held_last, vals[order[before]])
    has_before |= from_before
    out = times.array.asi8.copy()
    # (where its file gives no timed round of its table so far, nor after it in the chunk:
    # just after the table's round carried from the chunks before)
    out[untimed] = np.where(has_after & has_before, np.minimum(next_t, prev_t) + 1,
                            np.where(has_after, next_t - way, np.where(has_before, prev_t + way, last_known)))
    placed = pd.DatetimeIndex(out.view(f"M8[{unit}]")).tz_localize("UTC").tz_convert(tz)
    # Placed by the round before it alone while its file goes on (the chunk's last file): the
    # next chunk may give the file's round after it, between which it sits (see _placed_again).
    open_after = has_before & ~has_after & (file[k] == files.codes[-1])
    prev_ns = pd.DatetimeIndex(np.where(has_before, prev_t, 0).view(f"M8[{unit}]")).as_unit("ns").asi8
    return pd.Series(placed, index=times.index), open_after, prev_ns


def _card_faults(df: pd.DataFrame, card_text, card_rows: np.ndarray) -> pd.DataFrame:
    """One row per round that holds a card field the audit cannot read, with the field, its
    text and the reason it was rejected for."""
    if not card_rows.any():
        return _no_card_faults()
    idx = np.flatnonzero(card_rows)
    at = _first_of_each_round(df, card_rows)
    faults = frame_rows(df[list(_CARD_FAULT_COLUMNS[:6])], at)
    keep = np.searchsorted(idx, at)  # where those rows are among the card rows
    faults["field"], faults["text"], faults["reason"] = [np.asarray(v, dtype=object)[keep] for v in card_text]
    return faults


_CARD_FAULT_COLUMNS = ("table_id", "round_id", "started_at", "dealer_id", "_file", "_line", "field", "text", "reason")


def _no_card_faults() -> pd.DataFrame:
    """``_card_faults`` of rows none of which holds such a field."""
    return pd.DataFrame({c: pd.Series(dtype=object) for c in _CARD_FAULT_COLUMNS})


def _first_of_each_round(df: pd.DataFrame, rows: np.ndarray) -> np.ndarray:
    """The first of the ``rows`` (a mask) of each round that has some, in the chunk's order."""
    idx = np.flatnonzero(rows)
    _, first = np.unique(df["_rkey"].to_numpy()[idx], return_index=True)
    return idx[np.sort(first)]


def _of_files(frame: pd.DataFrame, names: set[str], rows: np.ndarray | None = None) -> np.ndarray:
    """Which rows of ``frame`` (those at ``rows``, or all) are of the files ``names`` (by its
    ``_file`` column)."""
    files = frame["_file"].astype("category").array
    codes = files.codes if rows is None else files.codes[rows]
    return np.r_[files.categories.isin(list(names)), False][codes]


def _rounds_checked(result: CheckResult) -> int:
    """Rounds with a row the rule applied to."""
    if result.rounds_checked is not None:
        return result.rounds_checked
    idx = result.round_index
    if idx is None or not len(idx):
        return int(result.applies.sum())
    count = _runs_with(idx, result.applies)
    if count >= 0:
        return count
    seen = np.zeros(int(idx.max()) + 1, dtype=bool)
    seen[idx[result.applies]] = True
    return int(seen.sum())


@kernel
def _runs_with(idx, mask):
    """Distinct values of ``idx`` where ``mask`` holds, for ``idx`` sorted (as the rows of a
    chunk come); -1 if it is not. (Without a branch on ``mask``, which is as often true as
    not.)"""
    count, seen, prev = 0, 0, -1
    for i in range(len(idx)):
        if idx[i] < prev:
            return -1
        held = np.int64(mask[i])
        before = seen * (idx[i] == prev)  # a row of this value held already
        count += held * (1 - before)
        seen = before | held
        prev = idx[i]
    return count


def _outcome(rule, lang, status, checked, violations, note="") -> RuleOutcome:
    return RuleOutcome(code=rule.code, game=rule.game, article=rule.article, source=rule.source,
                       severity=rule.severity, title=rule.title_in(lang), status=status,
                       rounds_checked=checked, violations=violations, note=note)


def _money(values: np.ndarray | None, idx: np.ndarray, scale: int) -> np.ndarray:
    """Text in soles ("12.50", "-3.00", "0.00") of the amounts at ``idx`` (céntimos × scale),
    or None for each where the result has none. Only the selected amounts are rounded to
    céntimos and formatted, with integer arithmetic (never a float, never a Decimal each)."""
    if values is None:
        return np.full(len(idx), None, dtype=object)
    return cents_text(cents_from_scaled(values[idx], scale)).astype(object)


def finding_message(title: str, reason: str, lang: str) -> str:
    """A finding's message: its rule's title (in ``lang``), then its reason's, where it has one."""
    return f"{title}: {t(reason, lang)}" if reason else title


def _findings(results: list[tuple], lang: str) -> dict[str, np.ndarray]:
    """The columns of one row per violation of each (rule, result), in that order. Only the
    violating rows are converted to text, so the cost follows the number of findings, not of
    rounds; the rows of a frame that several rules share are gathered together, one pass per
    column."""
    parts = [(rule, result, np.flatnonzero(result.violates)) for rule, result in results]
    frames: dict[int, tuple[pd.DataFrame, list[np.ndarray]]] = {}
    for _, result, idx in parts:
        frames.setdefault(id(result.frame), (result.frame, []))[1].append(idx)
    located = {key: _located(f, np.concatenate(idxs)) for key, (f, idxs) in frames.items()}
    # Evidence too: rules that share an evidence function (a bound method of the context
    # compares equal to itself) have it computed once, over all their rows.
    shared: dict = {}
    for _, result, idx in parts:
        if result.evidence:
            shared.setdefault(result.evidence, []).append(idx)
    evidence: dict = {}
    for explain, idxs in shared.items():
        values = explain(np.concatenate(idxs))
        evidence[explain] = [dict(zip(values, row)) for row in zip(*values.values())] if values else None
    taken = dict.fromkeys(frames, 0)
    used = dict.fromkeys(evidence, 0)
    out: dict[str, list] = {c: [] for c in _FRAME_COLUMNS}
    for rule, result, idx in parts:
        n = len(idx)
        key = id(result.frame)
        at = slice(taken[key], taken[key] + n)
        taken[key] += n
        cols = located[key]
        title = rule.title_in(lang)
        if result.reason is not None and result.reasons:
            texts = np.array([finding_message(title, k, lang) for k in result.reasons], dtype=object)
            message = texts[result.reason[idx]]
            reason_key = np.array(result.reasons, dtype=object)[result.reason[idx]]
        else:
            message = np.full(n, title, dtype=object)
            reason_key = np.full(n, "", dtype=object)
        impact = np.full(n, None, dtype=object)
        if result.expected is not None and result.observed is not None and result.bound_only is not True:
            impact = _money(result.impact[idx].astype(np.int64) if result.impact is not None else
                            result.observed[idx].astype(np.int64) - result.expected[idx].astype(np.int64),
                            slice(None), result.scale)
            if result.bound_only is not False:  # per row
                impact[result.bound_only[idx]] = None
        ev_rows = np.empty(n, dtype=object)
        if result.evidence and evidence[result.evidence] is not None:
            ev_rows[:] = evidence[result.evidence][used[result.evidence]:used[result.evidence] + n]
            used[result.evidence] += n
        else:
            ev_rows[:] = [{} for _ in range(n)]
        constant = {"code": rule.code, "game": rule.game, "directive": rule.directive, "article": rule.article,
                    "source": rule.source, "severity": rule.severity}
        for k, v in constant.items():
            out[k].append(np.full(n, v, dtype=object))
        for k in ("table_id", "round_id", "seat", "hand", "dealer_id"):
            out[k].append(cols[k][at])
        out["started_at"].append(cols["started_at"][at])
        out["message"].append(message)
        out[REASON_KEY].append(reason_key)
        out["expected"].append(_money(result.expected, idx, result.scale))
        out["observed"].append(_money(result.observed, idx, result.scale))
        out["impact"].append(impact)
        out["evidence"].append(ev_rows)
        out["file"].append(cols["_file"][at])
        out["line"].append(cols["_line"][at])
    return {c: np.concatenate(v) for c, v in out.items()}


def _located(f: pd.DataFrame, rows: np.ndarray) -> dict[str, np.ndarray]:
    """Where the findings at ``rows`` of ``f`` happened, as Python values: table, round,
    seat, hand, dealer, file, line and the time (Lima ISO 8601 text)."""
    n = len(rows)
    cols = {name: _objects_at(f[name], rows) if name in f else np.full(n, default, dtype=object)
            for name, default in (("table_id", ""), ("round_id", ""), ("dealer_id", None), ("_file", None))}
    for name in ("seat", "hand", "_line"):
        if name in f and pd.api.types.is_integer_dtype(f[name].dtype):  # as they come: Python ints
            cols[name] = f[name].to_numpy()[rows].astype(object)
            continue
        values = _objects_at(f[name], rows) if name in f else np.full(n, None, dtype=object)
        cols[name] = np.array([None if v is None or pd.isna(v) else int(v) for v in values], dtype=object)
    cols["started_at"] = lima_text(_utc_at(f["started_at"], rows)) if "started_at" in f else np.full(n, None, dtype=object)
    return cols


def _utc_at(values: pd.Series, rows: np.ndarray):
    """The times at ``rows`` as a UTC datetime array (as typed already, unless given as text)."""
    if isinstance(values.dtype, pd.DatetimeTZDtype) and str(values.dtype.tz) == "UTC":
        return values.array.take(rows)
    return pd.to_datetime(values.take(rows), utc=True).array


def lima_text(times) -> np.ndarray:
    """``Timestamp.isoformat()`` of each time in Lima (None for NaT), formatted a column at
    a time: the wall-clock time to the second (with the fraction, in micro- or nanoseconds,
    where there is one), then the zone's offset at that moment (written once per distinct
    offset: -05:00 today, -04:00 in some summers up to 1994, -05:08:36 before 1908).
    ``times``: UTC times, a pandas Series or its array."""
    times = pd.array(times).as_unit("ns")
    out = np.full(len(times), None, dtype=object)
    known = ~times.isna()
    if not known.any():
        return out
    utc = times[known].asi8.view("datetime64[ns]")
    local = times[known].tz_convert(LIMA).tz_localize(None).asi8.view("datetime64[ns]")
    text = np.empty(len(local), dtype=object)
    fraction = local.astype(np.int64) % 1_000_000_000
    for unit, where in (("s", fraction == 0), ("us", (fraction != 0) & (fraction % 1000 == 0)),
                        ("ns", fraction % 1000 != 0)):
        if where.any():
            text[where] = np.datetime_as_string(local[where], unit=unit).astype(object)
    offset = (local - utc).astype("timedelta64[s]").astype(np.int64)
    distinct, inverse = np.unique(offset, return_inverse=True)
    zones = np.array([_offset_text(int(o)) for o in distinct], dtype=object)
    out[known] = text + zones[inverse.reshape(-1)]
    return out


def _offset_text(seconds: int) -> str:
    """A UTC offset as ``datetime.isoformat`` writes it: ±hh:mm, with :ss when not whole minutes."""
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{sign}{hours:02d}:{minutes:02d}" + (f":{secs:02d}" if secs else "")


def _finding_frame(parts: list[dict]) -> pd.DataFrame:
    """One frame of the findings' columns of every chunk."""
    if not parts:
        return pd.DataFrame(columns=_FRAME_COLUMNS)
    return pd.DataFrame({c: np.concatenate([p[c] for p in parts]) for c in _FRAME_COLUMNS},
                        columns=_FRAME_COLUMNS, dtype=object)
