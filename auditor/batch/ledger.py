"""The batch ledger: an embedded SQLite database (stdlib :mod:`sqlite3`, WAL mode).

Tables
------
``runs``           one row per committed run (counts, exit code, report folder).
``files``          every file content seen (by SHA-256): path, game, status (ok/error),
                   ``live`` (0 once the same path holds other content), ``judged_by`` (what
                   audited it: ``runner.judged_by``).
``paths``          the content last seen at each path.
``spans``          per file and table: first and last round time (UTC ns), for planning.
``findings``       every finding once, keyed by its fingerprint, with its JSON record: the
                   audit's finding, in the language of the run that found it, and its
                   ``messages`` in every language (``lang -> text``), by which ``history``,
                   ``diff`` and a later run show it in theirs. A record written before
                   2026-12-03 holds its run's text only, shown as it is in any language; it is
                   rewritten when its content is audited again (every content present, at the
                   first run of a version whose audit differs: ``runner.judged_by``).
``file_findings``  which file content holds which finding (replaced when re-audited, kept
                   when a re-audit fails, dropped when the content is replaced at its path).
``episodes``       a finding's open periods: opened in run A, resolved in run B (or open).
``run_waivers``    the open findings a run showed as waived, and by which waiver.
``meta``           the ledger's version.

A run is written in ONE transaction (:meth:`Ledger.commit_run`): a batch killed at any
moment leaves the ledger as it was before the run; run again, it redoes the whole run.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
from pathlib import Path

from ..config_errors import ConfigError
from ..i18n import os_error_key

__all__ = ["Ledger", "fingerprint", "LedgerError", "LedgerOvertaken"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  run_id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT NOT NULL,
  inputs TEXT NOT NULL, executor TEXT NOT NULL, files_seen INTEGER NOT NULL,
  files_audited INTEGER NOT NULL, files_failed INTEGER NOT NULL, new INTEGER NOT NULL,
  open INTEGER NOT NULL, resolved INTEGER NOT NULL, waived INTEGER NOT NULL,
  repeated INTEGER NOT NULL, exit_code INTEGER NOT NULL, report_dir TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
  sha256 TEXT PRIMARY KEY, path TEXT NOT NULL, game TEXT, records INTEGER NOT NULL,
  status TEXT NOT NULL, error TEXT, run_id INTEGER NOT NULL, live INTEGER NOT NULL, judged_by TEXT);
CREATE TABLE IF NOT EXISTS paths(path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, run_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS spans(
  sha256 TEXT NOT NULL, table_id TEXT NOT NULL, first_ns INTEGER NOT NULL, last_ns INTEGER NOT NULL,
  PRIMARY KEY(sha256, table_id));
CREATE TABLE IF NOT EXISTS findings(
  fingerprint TEXT PRIMARY KEY, game TEXT NOT NULL, code TEXT NOT NULL, table_id TEXT NOT NULL,
  round_id TEXT NOT NULL, seat INTEGER, hand INTEGER, severity TEXT NOT NULL, started_at TEXT,
  record TEXT NOT NULL, first_run INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS file_findings(
  sha256 TEXT NOT NULL, fingerprint TEXT NOT NULL, PRIMARY KEY(sha256, fingerprint));
CREATE TABLE IF NOT EXISTS episodes(
  fingerprint TEXT NOT NULL, opened_run INTEGER NOT NULL, resolved_run INTEGER,
  PRIMARY KEY(fingerprint, opened_run));
CREATE INDEX IF NOT EXISTS episodes_open ON episodes(resolved_run);
CREATE TABLE IF NOT EXISTS run_waivers(
  run_id INTEGER NOT NULL, fingerprint TEXT NOT NULL, waiver_id TEXT NOT NULL,
  PRIMARY KEY(run_id, fingerprint));
"""
LEDGER_VERSION = "1"

class LedgerError(ConfigError):
    """The ledger cannot be opened or is not a batch ledger (exit code 2); its words are the
    catalogue's (``text(lang)``)."""


# SQLite's reasons, by its result code: its own text is English ("file is not a database"). An
# extended code (SQLITE_IOERR_SHORT_READ) is its primary one's (SQLITE_IOERR).
_SQLITE_ERRORS = {"SQLITE_NOTADB": "NOTADB", "SQLITE_CORRUPT": "CORRUPT", "SQLITE_BUSY": "BUSY",
                  "SQLITE_LOCKED": "BUSY", "SQLITE_READONLY": "READONLY", "SQLITE_FULL": "FULL",
                  "SQLITE_CANTOPEN": "CANTOPEN", "SQLITE_IOERR": "IOERR"}


def _sqlite_reason(exc: sqlite3.Error) -> tuple[str, dict]:
    """The catalogue key (and its values) of why SQLite refused the ledger."""
    name = "_".join((getattr(exc, "sqlite_errorname", None) or "").split("_")[:2])
    if name in _SQLITE_ERRORS:
        return f"sqlite_error.{_SQLITE_ERRORS[name]}", {}
    return "sqlite_error.other", {"error": str(exc).strip() or name}


class LedgerOvertaken(LedgerError):
    """Another batch committed a run on the ledger after this one read it: nothing of this
    run is recorded (it was planned on what the ledger held before); run it again."""


def fingerprint(game: str, code: str, table_id: str, round_id: str, seat, hand) -> str:
    """Stable identity of a finding: what and where, never how it is worded (language,
    message, amounts or file path do not enter)."""
    def part(v):
        if v is None or (isinstance(v, float) and v != v):
            return ""
        if hasattr(v, "item"):  # numpy scalars
            v = v.item()
            if isinstance(v, float) and v != v:
                return ""
        return str(int(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)

    key = "|".join([game, code, table_id, round_id, part(seat), part(hand)])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _pause() -> None:
    """Test hook: AUDITOR_BATCH_PAUSE=<seconds> sleeps inside the run's open transaction,
    so a test can kill the batch while it is writing."""
    delay = os.environ.get("AUDITOR_BATCH_PAUSE")
    if delay:
        print("auditor-batch: ledger: writing", file=sys.stderr, flush=True)
        time.sleep(float(delay))


# Until 2026-12-03 under pandas 3 the first look wrote most spans in microseconds
# (``spans.scan``). A ledger without the mark of nanoseconds (``meta`` spans_unit) is of then:
# its spans below 10**17 (a time after March 1973 in nanoseconds, before the year 5138 in
# microseconds) are microseconds, made nanoseconds once.
_NS_FROM = 10**17


class Ledger:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            # What the file is, before anything is written to it: a ledger of a newer version
            # (whose tables this version would add to), or another program's database (its
            # tables of the same names read as ours ended in a traceback), is left as it is.
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            try:
                row = self.db.execute("SELECT value FROM meta WHERE key='version'").fetchone() \
                    if "meta" in tables else None
            except sqlite3.OperationalError:  # (a table named meta of other columns)
                row = None
            if (row is None and tables) or (row is not None and row[0] != LEDGER_VERSION):
                self.db.close()
                if row is None:
                    raise LedgerError(self.path, "batch.ledger_foreign")
                raise LedgerError(self.path, "batch.ledger_version", found=row[0], version=LEDGER_VERSION)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            # The tables and the version's row in one transaction: a first opening stopped
            # halfway leaves no tables without a version (which would read as a foreign database).
            self.db.executescript(f"BEGIN IMMEDIATE; {SCHEMA} INSERT OR IGNORE INTO meta VALUES('version', "
                                  f"'{LEDGER_VERSION}'); COMMIT;")
            self._bring_up_to_date()
        except sqlite3.DatabaseError as exc:
            raise LedgerError(self.path, "batch.ledger_sqlite", problems=[(None, *_sqlite_reason(exc))]) from None
        except OSError as exc:
            # (said in the command's language, as every reason of the system's: ``i18n.os_error``)
            raise LedgerError(self.path, "batch.ledger_unopenable", problems=[(None, *os_error_key(exc))]) from None

    def _bring_up_to_date(self) -> None:
        """What ledgers written before 2026-12-03 lack: files' ``judged_by`` (their contents,
        judged by what is unknown, are audited again at their next run) and spans known to be
        nanoseconds (see ``_NS_FROM``)."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            if "judged_by" not in {r[1] for r in db.execute("PRAGMA table_info(files)")}:
                db.execute("ALTER TABLE files ADD COLUMN judged_by TEXT")
            if db.execute("SELECT 1 FROM meta WHERE key='spans_unit'").fetchone() is None:
                db.execute("UPDATE spans SET first_ns = first_ns * 1000, last_ns = last_ns * 1000 "
                           "WHERE abs(last_ns) < ?", (_NS_FROM,))
                db.execute("INSERT INTO meta VALUES('spans_unit', 'ns')")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- reading --------------------------------------------------------------------------

    def next_run_id(self) -> int:
        return int(self.db.execute("SELECT COALESCE(MAX(run_id), 0) + 1 FROM runs").fetchone()[0])

    def path_hashes(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT path, sha256 FROM paths"))

    def files(self) -> dict[str, dict]:
        cur = self.db.execute("SELECT sha256, path, game, records, status, error, run_id, live, judged_by FROM files")
        cols = [d[0] for d in cur.description]
        return {r[0]: dict(zip(cols, r)) for r in cur}

    def spans(self) -> dict[str, dict[str, tuple[int, int]]]:
        out: dict[str, dict[str, tuple[int, int]]] = {}
        for sha, table, lo, hi in self.db.execute("SELECT sha256, table_id, first_ns, last_ns FROM spans"):
            out.setdefault(sha, {})[table] = (lo, hi)
        return out

    def open_fingerprints(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT fingerprint FROM episodes WHERE resolved_run IS NULL")}

    def ever_seen(self, fps) -> set[str]:
        fps = list(fps)
        seen: set[str] = set()
        for i in range(0, len(fps), 500):
            chunk = fps[i:i + 500]
            q = f"SELECT fingerprint FROM findings WHERE fingerprint IN ({','.join('?' * len(chunk))})"
            seen.update(r[0] for r in self.db.execute(q, chunk))
        return seen

    def had_episode_before(self, fps) -> set[str]:
        """Fingerprints with an earlier (resolved) open period."""
        fps = list(fps)
        out: set[str] = set()
        for i in range(0, len(fps), 500):
            chunk = fps[i:i + 500]
            q = (f"SELECT DISTINCT fingerprint FROM episodes WHERE resolved_run IS NOT NULL "
                 f"AND fingerprint IN ({','.join('?' * len(chunk))})")
            out.update(r[0] for r in self.db.execute(q, chunk))
        return out

    def records(self, fps, lang: str | None = None) -> dict[str, dict]:
        """The findings' records; with ``lang``, each one's ``message`` in that language (see
        ``findings`` above: a record written before 2026-12-03 has its run's text only)."""
        fps = list(fps)
        out: dict[str, dict] = {}
        for i in range(0, len(fps), 500):
            chunk = fps[i:i + 500]
            q = f"SELECT fingerprint, record FROM findings WHERE fingerprint IN ({','.join('?' * len(chunk))})"
            out.update((fp, json.loads(rec)) for fp, rec in self.db.execute(q, chunk))
        if lang is not None:
            for rec in out.values():
                rec["message"] = rec.get("messages", {}).get(lang, rec["message"])
        return out

    def runs(self) -> list[dict]:
        cur = self.db.execute("SELECT * FROM runs ORDER BY run_id")
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur]

    def run(self, run_id: int) -> dict | None:
        return next((r for r in self.runs() if r["run_id"] == run_id), None)

    def open_at(self, run_id: int) -> set[str]:
        """Findings open right after run ``run_id``."""
        q = ("SELECT fingerprint FROM episodes WHERE opened_run <= ? "
             "AND (resolved_run IS NULL OR resolved_run > ?)")
        return {r[0] for r in self.db.execute(q, (run_id, run_id))}

    def waived_at(self, run_id: int) -> dict[str, str]:
        return dict(self.db.execute("SELECT fingerprint, waiver_id FROM run_waivers WHERE run_id=?", (run_id,)))

    def dump(self) -> dict:
        """Everything but timestamps, sorted: two ledgers of the same history dump equal."""
        def rows(q):
            return [list(r) for r in self.db.execute(q)]

        return {
            "files": rows("SELECT sha256, path, game, records, status, error, run_id, live FROM files ORDER BY sha256"),
            "paths": rows("SELECT path, sha256, run_id FROM paths ORDER BY path"),
            "spans": rows("SELECT * FROM spans ORDER BY sha256, table_id"),
            "findings": rows("SELECT * FROM findings ORDER BY fingerprint"),
            "file_findings": rows("SELECT * FROM file_findings ORDER BY sha256, fingerprint"),
            "episodes": rows("SELECT * FROM episodes ORDER BY fingerprint, opened_run"),
            "run_waivers": rows("SELECT * FROM run_waivers ORDER BY run_id, fingerprint"),
            "runs": rows("SELECT run_id, inputs, files_seen, files_audited, files_failed, new, open, resolved, "
                         "waived, repeated, exit_code, report_dir FROM runs ORDER BY run_id"),
        }

    # --- writing --------------------------------------------------------------------------

    def commit_run(self, run: dict, *, files: list[dict], paths: dict[str, str], spans: dict,
                   superseded: list[str], audited: dict[str, list[dict]], waive=None,
                   before_commit=None) -> dict:
        """Write one run in one transaction and return its history figures.

        ``files``: rows for the files table (audited or failed this run); ``paths``: path ->
        sha of every file seen; ``spans``: sha -> {table: (lo, hi)}; ``superseded``: contents
        no longer at their path; ``audited``: sha -> finding records (with ``fingerprint``)
        now held by that content (authoritative); ``waive(records)``: fingerprint -> waiver
        id for the findings open after this run (their records given). ``before_commit(state)`` runs inside the
        transaction (the reports are written there, so a run that committed has them).
        """
        db = self.db
        run_id = run["run_id"]
        try:
            db.execute("BEGIN IMMEDIATE")
            if db.execute("SELECT 1 FROM runs WHERE run_id=?", (run_id,)).fetchone():
                raise LedgerOvertaken(None, "batch.overtaken", run=run_id)
            before = self.open_fingerprints()
            for sha in superseded:  # (replaced at its path: it holds nothing any longer)
                db.execute("UPDATE files SET live=0 WHERE sha256=?", (sha,))
                db.execute("DELETE FROM file_findings WHERE sha256=?", (sha,))
            for f in files:
                db.execute("INSERT INTO files(sha256, path, game, records, status, error, run_id, live, judged_by) "
                           "VALUES(:sha256, :path, :game, :records, :status, :error, :run_id, 1, :judged_by) "
                           "ON CONFLICT(sha256) DO UPDATE SET path=excluded.path, game=excluded.game, "
                           "records=excluded.records, status=excluded.status, error=excluded.error, "
                           "run_id=excluded.run_id, live=1, judged_by=excluded.judged_by",
                           {"judged_by": None, **f, "run_id": run_id})
                _pause()
            for path, sha in sorted(paths.items()):
                db.execute("INSERT INTO paths VALUES(?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
                           "sha256=excluded.sha256, run_id=excluded.run_id WHERE paths.sha256 != excluded.sha256",
                           (path, sha, run_id))
            for sha in sorted(spans):
                db.execute("DELETE FROM spans WHERE sha256=?", (sha,))
                db.executemany("INSERT INTO spans VALUES(?, ?, ?, ?)",
                               [(sha, t, lo, hi) for t, (lo, hi) in sorted(spans[sha].items())])
            for sha in sorted(audited):
                db.execute("DELETE FROM file_findings WHERE sha256=?", (sha,))
                for rec in audited[sha]:
                    db.execute(
                        "INSERT INTO findings VALUES(:fingerprint, :game, :code, :table_id, :round_id, :seat, "
                        ":hand, :severity, :started_at, :record, :run_id) ON CONFLICT(fingerprint) DO UPDATE "
                        "SET record=excluded.record",
                        {**{k: rec.get(k) for k in ("fingerprint", "game", "code", "table_id", "round_id",
                                                    "seat", "hand", "severity", "started_at")},
                         "record": json.dumps(rec, ensure_ascii=False, sort_keys=True), "run_id": run_id})
                    db.execute("INSERT OR IGNORE INTO file_findings VALUES(?, ?)", (sha, rec["fingerprint"]))
                _pause()
            # What the live contents hold. A content audited before whose audit fails now (it is
            # retried) keeps what it held: a failure is no correction.
            after = {r[0] for r in db.execute(
                "SELECT DISTINCT ff.fingerprint FROM file_findings ff JOIN files f USING(sha256) "
                "WHERE f.live=1")}
            new = sorted(after - before)
            resolved = sorted(before - after)
            still = sorted(after & before)
            repeated = sorted(self.had_episode_before(new))
            db.executemany("INSERT INTO episodes VALUES(?, ?, NULL)", [(fp, run_id) for fp in new])
            db.executemany("UPDATE episodes SET resolved_run=? WHERE fingerprint=? AND resolved_run IS NULL",
                           [(run_id, fp) for fp in resolved])
            waived = waive(self.records(after)) if waive is not None else {}
            db.executemany("INSERT INTO run_waivers VALUES(?, ?, ?)",
                           [(run_id, fp, w) for fp, w in sorted(waived.items())])
            state = {"new": new, "open": still, "resolved": resolved, "repeated": repeated, "waived": waived,
                     "after": after}
            if before_commit is not None:
                run = {**run, **before_commit(state)}
            db.execute("INSERT INTO runs VALUES(:run_id, :started_at, :finished_at, :inputs, :executor, "
                       ":files_seen, :files_audited, :files_failed, :new, :open, :resolved, :waived, :repeated, "
                       ":exit_code, :report_dir)",
                       {**run, "new": len(new), "open": len(still), "resolved": len(resolved),
                        "waived": len(waived), "repeated": len(repeated)})
            db.execute("COMMIT")
        except BaseException as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise LedgerError(self.path, "batch.ledger_sqlite", problems=[(None, *_sqlite_reason(exc))]) from None
            raise
        return state
