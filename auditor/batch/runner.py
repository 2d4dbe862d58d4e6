"""One batch run: discover, hash, plan, audit (in-process, local processes or Dask), record.

Design (see ``docs/batch.md``): a file is identified by its content (SHA-256). Every new or
changed content is audited once, *authoritatively*: its findings replace whatever that
content held. Rules that span rounds compare a round with its table's previous round, so a
file is audited together with its *context*: for each of its tables, the other files whose
rounds of that table overlap its time span, and the file holding the table's round just
before it. Findings are kept only for the authoritative files of a task; context files
just provide the previous rounds. When a new file lands before or among earlier files of a
table, the files whose previous round changed (the overlapping ones and the next one) are
re-audited authoritatively too; their findings are fingerprinted, so nothing is counted
twice.
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

__all__ = ["BatchOptions", "BatchOutcome", "BatchError", "run_batch", "audit_task", "plan_tasks", "Task", "TaskFailed",
           "CHUNK", "TASK_BYTES", "EXIT_OK", "EXIT_NEW", "EXIT_ERROR", "EXIT_PARTIAL"]

EXIT_OK, EXIT_NEW, EXIT_ERROR, EXIT_PARTIAL = 0, 1, 2, 3
# A task: consecutive authoritative files (in time order, per game) up to TASK_BYTES of logs
# or CHUNK files, whichever comes first. Fixed by the files, not by the number of workers, so
# the same batch is cut into the same tasks whichever way it runs. Each task is a whole audit
# (its start, its context files read again): a month of daily exports (1,132 files of 0.45 MB)
# cut four files a task made 283 audits of 14,000 rows, 25 s of audit where one takes 6.
TASK_BYTES = 32 << 20
CHUNK = 256
LIMA = "America/Lima"


class BatchError(Exception):
    """A batch that cannot run (bad option, waiver, profile, ledger, scheduler): exit 2."""


@dataclass
class BatchOptions:
    paths: list[Path]
    out: Path = Path("reports")
    db: Path | None = None
    workers: int = 1
    scheduler: str | None = None
    profiles: list[Path] = field(default_factory=list)
    waivers: Path | None = None
    lang: str = "es"
    today: date | None = None
    chunk: int = CHUNK


@dataclass
class BatchOutcome:
    run_id: int
    exit_code: int
    files_seen: int
    audited: list[str]
    failed: list[tuple[str, str]]
    new: int
    open: int
    resolved: int
    waived: int
    repeated: int
    report_dir: Path
    index: Path
    audit_seconds: float = 0.0


@dataclass(frozen=True)
class Task:
    game: str | None
    files: tuple[str, ...]      # authoritative: findings kept
    context: tuple[str, ...]    # read for the tables' previous rounds only
    profiles: tuple = ()
    lang: str = "es"


@dataclass(frozen=True)
class TaskFailed:
    """A task that gave no result (on a Dask cluster: it raised, or its workers died running it):
    why, in the run's language. Its files are not audited (exit 3) and are tried again."""
    reason: str


# What a task's result holds (``audit_task``); a result without it is no result of this version's.
RESULT_KEYS = frozenset({"inputs", "findings", "rejected", "rules", "games", "file_totals",
                         "context_errors", "unaudited", "missing", "host", "judged_by"})


# --- the task (runs on a worker) ----------------------------------------------------------

def audit_task(task: Task) -> dict:
    """Audit the task's files with their context; keep what belongs to the task's files.
    Runs in a worker process or on a Dask worker: takes and returns plain, picklable data."""
    from ..engine import audit
    from ..logs.files import path_text

    # (the rules count the rounds of the task's files only: its context's are not audited by it)
    result = audit([Path(p) for p in (*task.files, *task.context)], profiles=list(task.profiles),
                   lang=task.lang, counted=[Path(p) for p in task.files])
    # (the audit names a file by its name as text: ``files.path_text``)
    mine = {path_text(p) for p in task.files}
    inputs = {i.path: i for i in result.inputs}
    context_errors = [(i.path, i.error) for p, i in inputs.items() if p not in mine and i.error]
    findings = result.findings[result.findings["file"].astype(str).isin(mine)].reset_index(drop=True)
    rejected = result.rejected[result.rejected["file"].astype(str).isin(mine)].reset_index(drop=True)
    # (the rounds, hands and stakes of the task's files only: its context's are not audited by it)
    return {"inputs": [inputs[p] for p in map(path_text, task.files) if p in inputs], "findings": findings,
            "rejected": rejected, "rules": list(result.rules), "games": list(result.games),
            "file_totals": {p: t for p, t in result.file_totals.items() if p in mine},
            "context_errors": context_errors,
            "unaudited": [p for p in result.unaudited if p in mine],
            # The files this machine does not have (on a cluster: a folder of logs not shared
            # with it), and which machine it is: the batch, which hashed them, says so.
            "missing": sorted(path_text(p) for p in (*task.files, *task.context) if not os.path.exists(p)),
            "host": socket.gethostname(),
            "judged_by": judged_by(task.profiles)}  # (by the worker's own code, on a cluster)


# --- planning -----------------------------------------------------------------------------

@dataclass
class _Entry:
    sha: str
    path: str
    game: str
    spans: dict[str, tuple[int, int]]


def _start(e: _Entry) -> int:
    return min((lo for lo, _ in e.spans.values()), default=0)


def plan_tasks(universe: dict[str, _Entry], fresh: set[str], gone: list[tuple[str, dict]],
               chunk: int = CHUNK, unreadable: dict[str, _Entry] | None = None,
               ) -> tuple[set[str], list[tuple[str, list[str], list[str]]], dict[str, list[str]]]:
    """Which contents to audit authoritatively and in which tasks.

    ``universe``: every live content present now (sha -> entry), fresh ones included;
    ``fresh``: the new or changed contents; ``gone``: (game, spans) of contents no longer
    present at their path (their successors' previous round changed); ``unreadable``: live
    contents whose bytes are no longer at their path, replaced there by bytes that cannot be
    audited (they hold their rounds still, but cannot be read for them).
    Returns (authoritative shas, [(game, authoritative paths, context paths)], blocked): the
    files that would be audited but whose context holds an unreadable content, which are not
    (path -> the unreadable contents' paths).
    """
    unreadable = unreadable or {}
    by_table: dict[tuple[str, str], list[tuple[int, int, str]]] = {}
    for e in [*universe.values(), *unreadable.values()]:
        for t, (lo, hi) in e.spans.items():
            by_table.setdefault((e.game, t), []).append((lo, hi, e.sha))

    def touched(game: str, spans: dict, skip: str | None) -> set[str]:
        """Files whose rounds' previous round may change when rounds of ``spans`` appear or
        disappear: those overlapping the span, and the next one after it."""
        out: set[str] = set()
        for t, (a, b) in spans.items():
            rows = [r for r in by_table.get((game, t), []) if r[2] != skip]
            out.update(s for lo, hi, s in rows if lo <= b and hi >= a)
            later = [lo for lo, _, _ in rows if lo > b]
            if later:
                first = min(later)
                out.update(s for lo, _, s in rows if lo == first)
        return out

    def context_of(e: _Entry) -> set[str]:
        """Per table, the files overlapping ``e`` and the one holding the round just before it."""
        out: set[str] = set()
        for t, (a, b) in e.spans.items():
            rows = [r for r in by_table.get((e.game, t), []) if r[2] != e.sha]
            out.update(s for lo, hi, s in rows if lo <= b and hi >= a)
            before = [hi for _, hi, _ in rows if hi < a]
            if before:
                last = max(before)
                out.update(s for _, hi, s in rows if hi == last)
        return out

    auth = set(fresh)
    for sha in fresh:
        e = universe[sha]
        auth |= touched(e.game, e.spans, sha)
    for game, spans in gone:
        auth |= touched(game, spans, None)
    # (an unreadable content's rounds did not change: nothing after it is audited for it)
    auth -= set(unreadable)

    tasks = []
    blocked: dict[str, list[str]] = {}
    for game in sorted({universe[s].game for s in auth}):
        mine = sorted((universe[s] for s in auth if universe[s].game == game), key=lambda e: (_start(e), e.path))
        needs = {e.sha: context_of(e) for e in mine}
        readable = []
        for e in mine:
            cannot = needs[e.sha] & unreadable.keys()
            if cannot:
                blocked[e.path] = sorted(unreadable[s].path for s in cannot)
            else:
                readable.append(e)
        for group in _cut(readable, max(chunk, 1)):
            names = {e.sha for e in group}
            context = set().union(*(needs[e.sha] for e in group)) - names
            tasks.append((game, [e.path for e in group], sorted(universe[s].path for s in context)))
    return auth, tasks, blocked


def _cut(entries: list[_Entry], chunk: int) -> list[list[_Entry]]:
    """``entries`` in tasks of up to ``chunk`` files and about TASK_BYTES (see there)."""
    groups: list[list[_Entry]] = [[]]
    size = 0
    for e in entries:
        if groups[-1] and (len(groups[-1]) >= chunk or size >= TASK_BYTES):
            groups.append([])
            size = 0
        groups[-1].append(e)
        try:
            size += os.stat(e.path).st_size
        except OSError:  # gone since it was hashed: the audit says so
            pass
    return [g for g in groups if g]


# --- executors ----------------------------------------------------------------------------

class _InProcess:
    name = "in-process"

    def map(self, fn, items):
        return [fn(i) for i in items]

    def close(self):
        pass


class _Processes:
    def __init__(self, workers: int):
        from concurrent.futures import ProcessPoolExecutor

        self.pool = ProcessPoolExecutor(max_workers=workers, initializer=_quiet_on_interrupt)
        self.name = f"processes:{workers}"

    def map(self, fn, items):
        return list(self.pool.map(fn, items))

    def close(self):
        self.pool.shutdown(cancel_futures=True)


def _quiet_on_interrupt() -> None:
    """A worker process ends at Ctrl-C (SIGINT, sent to the whole process group) as by
    default, without a traceback of its own: the batch says it was interrupted and records
    nothing (each idle worker printed Python's KeyboardInterrupt traceback)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def make_executor(workers: int, scheduler: str | None, lang: str):
    if scheduler:
        from .distributed import DaskExecutor

        return DaskExecutor(scheduler, lang)
    if workers < 1:
        raise BatchError(_t("batch.bad_workers", lang, value=workers))
    return _InProcess() if workers == 1 else _Processes(workers)


def _t(key: str, lang: str, **params) -> str:
    from ..i18n import t

    return t(key, lang, **params)


def _os_error(exc: OSError, lang: str) -> str:
    from ..i18n import os_error

    return os_error(exc, lang)


# --- the run ------------------------------------------------------------------------------

def run_batch(opts: BatchOptions, say: Callable[[str], None] = lambda m: None) -> BatchOutcome:
    from ..engine import _the_file, discover
    from ..profiles import ProfileError, load_profiles
    from .ledger import Ledger, LedgerError, LedgerOvertaken
    from .report import publish_index
    from ..logs.files import SUFFIXES, path_text, sha256_of
    from .spans import scan
    from ..registry import known_codes
    from .waivers import WaiverError, load_waivers

    lang = opts.lang
    try:
        waivers = load_waivers(opts.waivers, known_codes())
    except WaiverError as exc:
        raise BatchError(_t("batch.waiver_error", lang, error=exc.text(lang))) from None
    try:
        profiles = tuple(load_profiles(opts.profiles or []))
    except ProfileError as exc:
        raise BatchError(_t("cli.profile_error", lang, error=exc.text(lang))) from None
    # Files are found, hashed and audited by their names; the audit's results, the ledger
    # and the reports name them as text (``files.path_text``), which they are keyed by from step 4 on.
    # (a link whose target is gone is named as the link: that is what is in the folder)
    files = sorted({str(_the_file(Path(p))) for p in discover(opts.paths, (opts.out,))})
    if not files:
        # No log at all under the folders given (an export that did not arrive, a share not
        # mounted) is no night without news: it fails, recording nothing (``auditor audit``
        # exits 2 for it). A folder whose files were all audited before still holds them.
        raise BatchError(_t("batch.no_logs", lang, paths=", ".join(map(path_text, opts.paths)),
                            suffixes=", ".join(SUFFIXES)))
    db_path = opts.db or (opts.out / "audit.db")
    try:
        ledger = Ledger(db_path)
    except LedgerError as exc:
        raise BatchError(_t("batch.ledger_error", lang, error=exc.text(lang))) from None
    today = opts.today or lima_today()
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    judge = judged_by(profiles)

    with ledger:
        # The run's number is taken with what the ledger holds: a run that another batch
        # commits after this read takes it, and this run then fails to commit (its plan was
        # made on the ledger as it was before the other's run).
        run_id = ledger.next_run_id()
        known = ledger.files()
        spans_db = ledger.spans()
        old_paths = ledger.path_hashes()

        # 1. Content hash of every file; which are new (or failed before: retried).
        failed: dict[str, str] = {}
        present: dict[str, str] = {}      # path -> sha
        for path in files:
            try:
                present[path] = sha256_of(Path(path))
            except OSError as exc:
                failed[path_text(path)] = _t("input.unreadable", lang, error=_os_error(exc, lang))
        live_ok = {s for s, f in known.items() if f["status"] == "ok" and f["live"]}
        failed.update(_misnamed(present, {s: known[s]["path"] for s in live_ok}, lang))
        first_path: dict[str, str] = {}
        for path, sha in sorted(present.items()):
            if path_text(path) not in failed:
                first_path.setdefault(sha, path)
        fresh_shas = sorted(s for s in first_path if s not in live_ok)
        present_shas = set(first_path)
        present_shown = {path_text(p): s for p, s in present.items()}  # as the ledger's paths are
        # Contents another one replaced at their path (old sha -> the paths). A content is
        # superseded (its findings resolved) only by one that is audited: an export caught
        # empty or damaged is no correction (see step 4).
        replaced: dict[str, list[str]] = {}
        for p, old in sorted(old_paths.items()):
            if p in present_shown and present_shown[p] != old and old not in present_shas and old in known \
                    and known[old]["live"]:
                replaced.setdefault(old, []).append(p)

        with _executor(opts, lang) as ex:
            # 2. A first look at the new contents: game and per-table spans.
            scans = {}
            for sha, sc in zip(fresh_shas, ex.map(scan, [(first_path[s], s) for s in fresh_shas])):
                if isinstance(sc, TaskFailed):  # (on a cluster: the file fails, tried again next run)
                    failed[path_text(first_path[sha])] = sc.reason
                else:
                    scans[sc.sha256 or sc.path] = sc
            universe: dict[str, _Entry] = {}
            for sha in live_ok & present_shas:
                if known[sha]["game"]:
                    universe[sha] = _Entry(sha, first_path[sha], known[sha]["game"], spans_db.get(sha, {}))
            singles: list[str] = []
            # Findings are what the profiles and the rules made of the rounds: a content audited
            # under others (a table limit corrected since, another version of the auditor) is
            # audited again, its findings replaced.
            again = sorted(sha for sha in universe if known[sha]["judged_by"] != judge)
            if again:
                say(_t("batch.judged_again", lang, files=len(again)))
            fresh: set[str] = set(again)
            for sha in fresh_shas:
                sc = scans.get(sha)
                if path_text(first_path[sha]) in failed:
                    continue
                if sc is None or sc.game is None:
                    singles.append(first_path[sha])   # the audit tells why (or audits it)
                    continue
                universe[sha] = _Entry(sha, first_path[sha], sc.game, sc.spans)
                fresh.add(sha)
            # (a content replaced by one whose first look fails is kept as it was: its
            # successors' previous round is the one they had)
            gone = {s: (known[s]["game"], spans_db.get(s, {})) for s, at in sorted(replaced.items())
                    if known[s]["game"] and any(present_shown[p] in universe for p in at)}
            auth, planned, _ = plan_tasks(universe, fresh, list(gone.values()), opts.chunk)
            tasks = [Task(game, tuple(a), tuple(c), profiles, lang) for game, a, c in planned]
            tasks += [Task(None, (p,), (), profiles, lang) for p in singles]
            say(_t("batch.planned", lang, files=len(files), new=len(fresh_shas),
                   audit=sum(len(t.files) for t in tasks), tasks=len(tasks)))

            # 3. The audit.
            t0 = time.perf_counter()
            pieces = _audited(ex, tasks, lang)
            sha_of = present_shown
            copies: dict[str, list[str]] = {}
            for path, sha in sorted(sha_of.items()):
                copies.setdefault(sha, []).append(path)
            # A content replaced by one that cannot be audited is kept as it was (see step 4),
            # though its bytes are gone: the files audited as if it were gone, or without its
            # rounds before theirs, are not what it makes of them (planned again).
            failures = _failures(pieces, copies, sha_of, lang)
            fails = set(failed) | {p for p, error in failures[0].items() if error}
            kept = {old: at for old, at in sorted(replaced.items())
                    if known[old]["game"] and all(p in fails for p in at)}
            blocked: dict[str, list[str]] = {}
            if kept:
                pieces, blocked = _replan(ex, pieces, kept, universe, fresh, gone, known, spans_db,
                                          present_shown, opts.chunk, profiles, lang)
                failures = _failures(pieces, copies, sha_of, lang)
            audit_seconds = time.perf_counter() - t0
            if any(not isinstance(res, TaskFailed) and res["judged_by"] != judge for _, res in pieces):
                # (workers of another version)
                say(_t("batch.judged_elsewhere", lang))

        # 4. What each authoritative content now holds.
        audited: dict[str, list[dict]] = {}
        file_rows: list[dict] = []
        spans_out: dict[str, dict] = {}
        errors, copy_errors, refused = failures
        for path, error in copy_errors.items():
            failed.setdefault(path, error)
        for task, res in pieces:
            by_path = {} if isinstance(res, TaskFailed) else {i.path: i for i in res["inputs"]}
            for path in map(path_text, task.files):
                sha = sha_of[path]
                item = by_path.get(path)
                if errors[path]:
                    failed[path] = errors[path]
                    file_rows.append({"sha256": sha, "path": path, "game": item.game if item else task.game,
                                      "records": 0, "status": "error", "error": errors[path]})
                    continue
                file_rows.append({"sha256": sha, "path": path, "game": item.game, "records": item.records_read,
                                  "status": "ok", "error": None, "judged_by": res["judged_by"]})
                audited[sha] = []
                sc = scans.get(sha)
                if sha in universe:
                    spans_out[sha] = universe[sha].spans
                elif sc is not None:
                    spans_out[sha] = sc.spans
        # A file whose rounds follow those of a content kept though its bytes are gone cannot be
        # audited: it fails (exit 3, tried again next run) until the export is whole again.
        for path, before in sorted(blocked.items()):
            path = path_text(path)
            error = _t("batch.context_error", lang, error="; ".join(
                f"{p}: {failed.get(p) or _t('batch.not_audited', lang)}" for p in before))
            failed[path] = error
            file_rows.append({"sha256": sha_of[path], "path": path, "game": universe[sha_of[path]].game,
                              "records": 0, "status": "error", "error": error})
        pieces = [(task, res) for task, res in pieces if not isinstance(res, TaskFailed)]  # (their files failed)
        failed_paths = set(failed)
        # (a path that failed keeps the content last audited there, which a content audited at
        # the path later supersedes; a copy of that content elsewhere under a suffix that does
        # not read it fails at its own path only)
        superseded = sorted(old for old, at in replaced.items() if any(p not in failed_paths for p in at))
        paths_now = {p: s for p, s in present_shown.items() if p not in failed_paths}
        records = _records(pieces, failed_paths)
        for rec in records:
            sha = sha_of.get(rec["file"])
            if sha in audited:
                audited[sha].append(rec)
        for sha in audited:
            audited[sha] = _dedupe(audited[sha])

        run_dir = opts.out / "runs" / f"{run_id:04d}"
        run = {"run_id": run_id, "started_at": started, "inputs": "\n".join(map(path_text, opts.paths)),
               "executor": ex.name, "files_seen": len(files),
               "files_audited": sum(1 for r in file_rows if r["status"] == "ok"), "files_failed": len(failed),
               "report_dir": str(Path("runs") / f"{run_id:04d}")}

        def waive(recs: dict[str, dict]) -> dict[str, str]:
            from .waivers import match_waiver

            out = {}
            for fp, rec in recs.items():
                w = match_waiver(waivers, rec["code"], rec["table_id"], _lima_day(rec.get("started_at")), today)
                if w is not None:
                    out[fp] = w.id
            return out

        staged: list[Path] = []  # the index written in the transaction, put in place after it

        def write_reports(state: dict) -> dict:
            new_unwaived = [fp for fp in state["new"] if fp not in state["waived"]]
            code = EXIT_PARTIAL if failed else EXIT_NEW if new_unwaived else EXIT_OK
            from .report import write_index, write_run

            write_run(run_dir, run_id=run_id, lang=lang, pieces=pieces, failed_paths=failed_paths - refused,
                      failed=failed, state=state, waivers=waivers, ledger=ledger, profiles=list(profiles),
                      exit_code=code, today=today)
            ending = {"exit_code": code, "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
            # The index too is written before the commit, so that a run that could not write it
            # records nothing (exit 2), as for its reports; but beside the index, which it
            # replaces only once the run has committed: an index never names a run the ledger
            # does not have (a commit that fails, Ctrl-C then), whose number the next run takes.
            staged.append(write_index(opts.out, ledger, lang, pending={
                **run, **ending, **{k: len(state[k]) for k in ("new", "open", "resolved", "repeated", "waived")}}))
            return ending

        try:
            ledger.commit_run(run, files=file_rows, paths=paths_now,
                              spans=spans_out, superseded=superseded, audited=audited, waive=waive,
                              before_commit=write_reports)
        except BaseException as exc:
            with contextlib.suppress(OSError):  # (no index of the ledger's)
                for path in staged:
                    path.unlink(missing_ok=True)
            if isinstance(exc, LedgerOvertaken):
                raise BatchError(exc.text(lang)) from None
            if isinstance(exc, LedgerError):
                raise BatchError(_t("batch.ledger_error", lang, error=exc.text(lang))) from None
            raise
        index = opts.out / "index.html"
        try:
            publish_index(staged[0])
        except OSError as exc:
            # The run is recorded, its reports written: the index stays as the run before left
            # it, every run it names in the ledger, until the next run writes it (said; the run
            # ends with its own exit code).
            say(_t("batch.index_stale", lang, run=run_id, path=index, error=_os_error(exc, lang)))
        row = ledger.run(run_id)

    return BatchOutcome(run_id=run_id, exit_code=row["exit_code"], files_seen=len(files),
                        audited=sorted(r["path"] for r in file_rows if r["status"] == "ok"),
                        failed=sorted(failed.items()), new=row["new"], open=row["open"],
                        resolved=row["resolved"], waived=row["waived"], repeated=row["repeated"],
                        report_dir=run_dir, index=index, audit_seconds=audit_seconds)


def _failures(pieces, copies: dict[str, list[str]], sha_of: dict[str, str], lang: str,
              ) -> tuple[dict[str, str | None], dict[str, str], set[str]]:
    """Why the tasks' authoritative files failed: (path -> error, None for a file audited; the
    copies of bytes that could not be read -> error; the failed files that were read, none of
    whose records could be audited)."""
    from ..logs.files import path_text, read_as

    errors: dict[str, str | None] = {}
    copied: dict[str, str] = {}
    refused: set[str] = set()
    for task, res in pieces:
        if isinstance(res, TaskFailed):
            errors.update((path, res.reason) for path in map(path_text, task.files))
            continue
        by_path = {i.path: i for i in res["inputs"]}
        why = _unseen(task, res, lang)
        for path in map(path_text, task.files):
            item = by_path.get(path)
            error = why(path, item.error) if item is not None else _t("batch.not_audited", lang)
            if item is not None and item.error:
                # Bytes that cannot be read under their suffix: `auditor audit` names each
                # copy of them. (Not so a copy of a file none of whose records could be
                # audited: its records' rejects are counted as the first file's.)
                for other in copies.get(sha_of[path], ()):
                    if other != path and read_as(other) == read_as(path):
                        copied.setdefault(other, error)
            if error is None and res["context_errors"]:
                error = _t("batch.context_error", lang,
                           error="; ".join(f"{p}: {why(p, e)}" for p, e in res["context_errors"]))
            if error is None and path in res["unaudited"]:
                # As `auditor audit` exits 2 for it: a file none of whose records could be
                # audited is no clean file for a nightly job. It fails (exit 3, tried again
                # next run); its rejected records stay in the run's report: they say why.
                error = _t("batch.nothing_audited", lang, rejected=item.records_rejected)
                refused.add(path)
            errors[path] = error
    return errors, copied, refused


def _unseen(task: Task, res: dict, lang: str) -> Callable[[str, str | None], str | None]:
    """Why a file of ``task`` could not be read: where the worker did not find it and this
    machine has it (it hashed it; a cluster's worker that does not see the folder of logs), that
    it is missing there, not the worker's «no existe», which says the export is gone."""
    here = dict(_named(task))
    unseen = {p for p in res["missing"] if p in here and os.path.exists(here[p])}
    said = _t("batch.not_on_worker", lang, host=res["host"]) if unseen else None
    return lambda path, error: said if error and path in unseen else error


def _named(task: Task) -> list[tuple[str, str]]:
    """(its name as the results give it, its path) of each file ``task`` reads."""
    from ..logs.files import path_text

    return [(path_text(p), p) for p in (*task.files, *task.context)]


def _replan(ex, pieces, kept: dict[str, list[str]], universe: dict[str, _Entry], fresh: set[str],
            gone: dict[str, tuple], known: dict, spans_db: dict, sha_at: dict[str, str], chunk: int,
            profiles: tuple, lang: str) -> tuple[list, dict[str, list[str]]]:
    """The run's tasks and results once the contents ``kept`` (sha -> the paths at which
    contents that cannot be audited replaced them) are known to be live still: planned again
    with them in place, their rounds unreadable. A result stands where the plan is the same
    for its file; the files whose plan changed are audited again, or not at all (a file audited
    only because a kept content seemed gone keeps what it held); the ones whose context holds
    a kept content are blocked (path -> the kept contents' paths). ``sha_at``: path -> the
    content there now, the paths as the ledger names them (``files.path_text``)."""
    from ..logs.files import path_text

    replacing = {sha_at[p] for at in kept.values() for p in at} & universe.keys()
    bad = {p for at in kept.values() for p in at} | {path_text(universe[s].path) for s in replacing}
    unreadable = {old: _Entry(old, at[0], known[old]["game"], spans_db.get(old, {})) for old, at in kept.items()}
    now = {s: e for s, e in universe.items() if s not in replacing}
    auth, planned, blocked = plan_tasks(now, fresh - replacing, [g for s, g in gone.items() if s not in kept],
                                        chunk, unreadable)
    wanted = {path_text(now[s].path) for s in auth if s in now} - set(map(path_text, blocked))

    def reads(task: Task) -> set[str]:
        return set(map(path_text, (*task.files, *task.context)))

    out, stands = [], set()
    for task, res in pieces:
        if task.game is None:  # (a file audited by itself: no context, its result is its own)
            out.append((task, res))
            continue
        clean = not reads(task) & bad
        keep = [f for f in task.files if path_text(f) in bad or (clean and path_text(f) in wanted)]
        stands.update(path_text(f) for f in keep)
        if len(keep) == len(task.files):
            out.append((task, res))
        elif keep:
            out.append((Task(task.game, tuple(keep), task.context, task.profiles, task.lang),
                        _only(res, set(map(path_text, keep)))))
    again = []
    for game, files, context in planned:
        mine = [f for f in files if path_text(f) in wanted - stands]
        if mine:  # (the task's other files read as context: the same rounds before each file)
            again.append(Task(game, tuple(mine), tuple(sorted({*context, *files} - set(mine))), profiles, lang))
    return out + _audited(ex, again, lang), blocked


def _only(res, paths: set[str]):
    """A task's result for some of its authoritative files only."""
    if isinstance(res, TaskFailed):
        return res
    return {**res, "inputs": [i for i in res["inputs"] if i.path in paths],
            "findings": res["findings"][res["findings"]["file"].astype(str).isin(paths)].reset_index(drop=True),
            "rejected": res["rejected"][res["rejected"]["file"].astype(str).isin(paths)].reset_index(drop=True),
            "file_totals": {p: t for p, t in res["file_totals"].items() if p in paths},
            "unaudited": [p for p in res["unaudited"] if p in paths]}


def _audited(ex, tasks: list[Task], lang: str) -> list[tuple]:
    """(task, its result) for each of ``tasks``, audited by ``ex``: a ``TaskFailed`` where the
    task failed on a cluster or gave a result of another version (``_whole``)."""
    return [(task, res if isinstance(res, TaskFailed) or _whole(res) else
             TaskFailed(_t("batch.task_foreign", lang, error=_unlike(res))))
            for task, res in zip(tasks, ex.map(audit_task, tasks))]


def _unlike(res) -> str:
    """How a task's result differs from this version's (see ``_whole``), for whoever mends it."""
    if not isinstance(res, dict):
        return type(res).__name__
    return ", ".join(sorted(RESULT_KEYS - res.keys()))


def _whole(res) -> bool:
    """A task's result as this version's ``audit_task`` gives it (a worker of an older version
    gave one without ``judged_by``, which ended the batch in a traceback)."""
    return isinstance(res, dict) and RESULT_KEYS <= res.keys()


def _misnamed(present: dict[str, str], audited_at: dict[str, str], lang: str) -> dict[str, str]:
    """Why the files that hold the bytes of another file under another suffix cannot be read,
    as ``auditor audit`` says it: path -> error. A content is its bytes as its name's suffix
    reads them (``files.read_as``): a copy named ``.csv.gz`` of a plain CSV file is no gzip
    stream, one named ``.jsonl`` of a CSV file holds no JSON round. Of a content audited
    before (``audited_at``: sha -> the path it was audited at), the other suffixes are tried;
    of a new one, every suffix, the files of one that opens being copies as before."""
    from ..engine import open_log
    from ..logs.files import path_text, read_as

    by_sha: dict[str, list[str]] = {}
    for path, sha in sorted(present.items()):
        by_sha.setdefault(sha, []).append(path)
    out: dict[str, str] = {}
    for sha, paths in by_sha.items():
        before = read_as(audited_at[sha]) if sha in audited_at else None
        kinds = sorted({read_as(p) for p in paths} - {before})
        if len(kinds) + (before is not None) < 2:
            continue
        for kind in kinds:
            named = [p for p in paths if read_as(p) == kind]
            _, error = open_log(Path(named[0]), lang=lang)
            if error is not None:
                out.update((path_text(p), error) for p in named)
    return out


class _executor:
    def __init__(self, opts: BatchOptions, lang: str):
        self.ex = make_executor(opts.workers, opts.scheduler, lang)

    def __enter__(self):
        return self.ex

    def __exit__(self, *exc):
        self.ex.close()


def judged_by(profiles) -> str:
    """A digest of what judges a log's rounds: the profiles (as read, not where they were read
    from), the code and rule specs of the audit, and the libraries it computes with. The
    ledger keeps it per content; a content judged otherwise is audited again."""
    import hashlib
    import json

    digest = hashlib.sha256(_code_digest().encode())
    for p in sorted(profiles, key=lambda p: (p.game, p.id)):
        digest.update(json.dumps(p.model_dump(mode="json", exclude={"source"}), sort_keys=True).encode())
    return digest.hexdigest()


# What of the package does not judge a round: the reports and the batch's own pages, the
# simulator, the command line.
_NOT_JUDGING = ("reporting", "batch", "simulate", "cli", "cli_text", "__main__", "allocator")


@functools.cache
def _code_digest() -> str:
    """The audit's code, rule specs and libraries, as this process first reads them (a
    long-lived Dask worker runs the code it imported, whatever is on disk later)."""
    import hashlib
    from importlib.metadata import version

    from ..specs import SPEC_DIR

    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    files = [(str(p.relative_to(package)), p) for p in [*package.rglob("*.py"), *package.rglob("*.toml")]
             if Path(p.relative_to(package).parts[0]).stem not in _NOT_JUDGING]
    files += [(f"rule_specs/{p.name}", p) for p in Path(SPEC_DIR).glob("*.toml")]
    for name, path in sorted(files):
        digest.update(name.encode() + b"\0" + path.read_bytes())
    for lib in ("numpy", "pandas", "pyarrow", "numba"):
        digest.update(f"{lib} {version(lib)}".encode())
    return digest.hexdigest()


def lima_today(now: datetime | None = None) -> date:
    """The run's day, by which a waiver expires: Lima's (UTC−5, no summer time), as the
    rounds' days are, not the machine's (a server kept in UTC is a day ahead from 19:00 Lima
    time)."""
    return (now or datetime.now(timezone.utc)).astimezone(timezone(timedelta(hours=-5))).date()


def _lima_day(started_at: str | None) -> date | None:
    if not started_at:
        return None
    try:
        return datetime.fromisoformat(started_at).date()  # the engine writes Lima times
    except ValueError:
        return None


def _records(pieces, failed_paths: set[str]) -> list[dict]:
    """JSON finding records (with fingerprint) of every authoritative, audited file."""
    import pandas as pd

    from ..reporting.json_report import finding_records
    from .ledger import fingerprint

    frames = [res["findings"] for task, res in pieces if len(res["findings"])]
    if not frames:
        return []
    df = pd.concat(frames, ignore_index=True)
    df = df[~df["file"].astype(str).isin(failed_paths)]
    out = []
    for rec, messages in zip(finding_records(df), _messages(df)):
        rec["fingerprint"] = fingerprint(rec["game"], rec["code"], rec["table_id"], rec["round_id"],
                                         rec["seat"], rec["hand"])
        if messages is not None:
            rec["messages"] = messages
        out.append(rec)
    return out


def _messages(df) -> list[dict[str, str] | None]:
    """Each finding's message in every language, which the ledger keeps so that `diff` and a
    later run show it in theirs: made from its rule's title and its reason's key. None for the
    findings of a worker of an older version, which gives no key (its one text is kept)."""
    from ..engine import REASON_KEY, finding_message
    from ..i18n import LANGS, catalogue
    from ..registry import plugin

    reasons = df[REASON_KEY].tolist() if REASON_KEY in df else [None] * len(df)
    made: dict[tuple, dict[str, str] | None] = {}
    out: list[dict[str, str] | None] = []
    for game, code, reason in zip(df["game"].tolist(), df["code"].tolist(), reasons):
        if not isinstance(reason, str):
            out.append(None)
            continue
        key = (game, code, reason)
        if key not in made:
            # (a worker of another version may give a rule or a reason this one does not know:
            # its one text is kept, as an older worker's)
            rule = next((r for r in plugin(game).spec.rule if r.code == code), None)
            made[key] = None if rule is None or (reason and reason not in catalogue()) else \
                {lang: finding_message(rule.title_in(lang), reason, lang) for lang in LANGS}
        out.append(made[key])
    return out


def _dedupe(recs: list[dict]) -> list[dict]:
    seen: dict[str, dict] = {}
    for rec in sorted(recs, key=lambda r: (r["fingerprint"], r.get("line") or 0)):
        seen.setdefault(rec["fingerprint"], rec)
    return [seen[k] for k in sorted(seen)]
