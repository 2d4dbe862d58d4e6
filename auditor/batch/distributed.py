"""Fan a batch out over a Dask distributed cluster (optional extra: ``pip install
casino-auditor[dask]``). Dask is imported only here, only when ``--scheduler`` is given.

The workers run :func:`auditor.batch.runner.audit_task`, so each needs casino-auditor
installed and the log files at the same paths (a shared folder); the ledger and the
reports stay with the process that runs ``auditor batch``. Results come back in task
order, so the ledger is the same as with local processes. A task that failed on the cluster
(it raised, every worker that ran it died, or its result does not unpickle here: a worker of
another version) comes back as a ``runner.TaskFailed``, its files not audited (exit 3); a
scheduler lost while the tasks ran fails the run (exit 2, nothing recorded).
"""

from __future__ import annotations

import logging
import threading

__all__ = ["DaskExecutor"]


def _reason(exc: OSError | ValueError, lang: str, timeout: float) -> str:
    """Why Dask's client could not reach ``address``, in the catalogue's words: a ValueError is
    an address Dask cannot parse (no port, an unknown scheme); an OSError without the system's
    number is Dask's own timeout, whatever stopped the connection (refused, no such host:
    Dask retries them all until then)."""
    from ..i18n import os_error, t

    if isinstance(exc, ValueError):
        return t("scheduler_reason.bad_address", lang)
    if exc.errno is not None:
        return os_error(exc, lang)
    return t("scheduler_reason.unreachable", lang, seconds=f"{timeout:g}")


def _failure(exc: BaseException, lang: str):
    """Why a task failed on the cluster, in the catalogue's words: its workers died running it
    (Dask's KilledWorker: out of memory, killed), or it raised (a fault of the auditor or of the
    worker's installation, not of the log: the exception is quoted for whoever fixes it)."""
    from distributed import KilledWorker

    from ..i18n import t
    from .runner import TaskFailed

    if isinstance(exc, KilledWorker):
        return TaskFailed(t("batch.task_killed", lang))
    return TaskFailed(t("batch.task_error", lang, error=f"{type(exc).__name__}: {exc}"[:300]))


class _ClientLog(logging.Filter):
    """Dask's client's own log lines (``distributed.client``, in English) below CRITICAL while
    the batch waits for its tasks: held, and let through as they came once the tasks are back
    (nothing the batch does not say is hidden); dropped, from then on until the client is closed,
    where the batch says the scheduler lost, which is what they say («Failed to reconnect to
    scheduler after 20.00 seconds, closing client», the traceback of a reconnection cancelled)
    before the batch's line. (The client logs from its own thread.)"""

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
        self.held: list[logging.LogRecord] | None = None  # (None: let through)
        self.said = False

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.CRITICAL:
            return True
        with self.lock:
            if self.held is not None:
                self.held.append(record)
            return not self.said and self.held is None

    def hold(self) -> None:
        with self.lock:
            if not self.said:
                self.held = []

    def release(self) -> None:
        with self.lock:
            held, self.held = self.held or [], None
        for record in held:
            logging.getLogger(record.name).handle(record)

    def scheduler_lost(self) -> None:
        with self.lock:
            self.said, self.held = True, None


class _Undecoded(logging.Filter):
    """Dask's «Failed to deserialize» of a result that comes back while the batch gathers its
    tasks (``distributed.protocol.pickle``: INFO, with the pickled bytes;
    ``distributed.protocol.core``: CRITICAL, with the traceback of the unpickling): held;
    of each logger, as many dropped as the batch says results came back that this version
    cannot read (``batch.task_foreign``, which quotes the error), the others let through as
    they came. (Dask logs them from its client's own thread, before the task's result raises
    here.)"""

    LOGGERS = ("distributed.protocol.pickle", "distributed.protocol.core")

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
        self.held: list[logging.LogRecord] | None = None  # (None: let through)

    def filter(self, record: logging.LogRecord) -> bool:
        with self.lock:
            # (by the message's format: its arguments are the pickled bytes)
            if self.held is None or not (isinstance(record.msg, str) and record.msg.startswith("Failed to deserialize")):
                return True
            self.held.append(record)
            return False

    def hold(self) -> None:
        with self.lock:
            self.held = []

    def release(self, said: int) -> None:
        with self.lock:
            held, self.held = self.held or [], None
        dropped = dict.fromkeys(self.LOGGERS, 0)
        for record in held:
            if dropped[record.name] < said:
                dropped[record.name] += 1
                continue
            logging.getLogger(record.name).handle(record)


class DaskExecutor:
    def __init__(self, address, lang: str = "es", timeout: float = 20):
        from ..i18n import t
        from .runner import BatchError

        try:
            from dask.distributed import Client
        except ImportError:
            raise BatchError(t("batch.dask_missing", lang)) from None
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, ValueError) as exc:
            raise BatchError(t("batch.scheduler_error", lang, address=address,
                               error=_reason(exc, lang, timeout))) from None
        self.address, self.lang = address, lang
        self.name = f"dask:{address}"
        self.log, self.undecoded = _ClientLog(), _Undecoded()
        logging.getLogger("distributed.client").addFilter(self.log)
        for name in _Undecoded.LOGGERS:
            logging.getLogger(name).addFilter(self.undecoded)

    def map(self, fn, items):
        items = list(items)
        if not items:
            return []
        self.log.hold()
        self.undecoded.hold()
        foreign: list = []
        try:
            return self._gathered(self.client.map(fn, items, pure=False), foreign)
        finally:
            try:
                self.log.release()
            finally:
                self.undecoded.release(said=len(foreign))

    def _gathered(self, futures, foreign: list) -> list:
        """The futures' results, in order; ``foreign`` is given each that came back from another
        version."""
        from asyncio import CancelledError

        from ..i18n import t
        from .runner import BatchError, TaskFailed

        out = []
        for future in futures:  # (in task order)
            try:
                out.append(self.client.gather(future))
            except KeyboardInterrupt:
                # Ctrl-C: the client's waits, cancelled, are logged by asyncio as tracebacks
                # («Task exception was never retrieved … AllExit») after the batch's own line
                logging.getLogger("asyncio").setLevel(logging.CRITICAL)
                raise
            except (Exception, CancelledError) as exc:  # (Dask's FutureCancelledError is a CancelledError)
                if future.status == "finished" and not isinstance(exc, (CancelledError, OSError, TimeoutError)):
                    # The task ended on its worker, but its result does not unpickle here (a
                    # worker of another version gave back classes this one lacks): not the
                    # scheduler lost (Dask's comms fail with an OSError, CommClosedError)
                    out.append(TaskFailed(t("batch.task_foreign", self.lang, error=f"{type(exc).__name__}: {exc}"[:300])))
                    foreign.append(future)
                    continue
                if future.status != "error":  # cancelled: the client lost its scheduler
                    self.log.scheduler_lost()
                    raise BatchError(t("batch.scheduler_lost", self.lang, address=self.address)) from None
                out.append(_failure(exc, self.lang))
        return out

    def close(self):
        # (a client whose scheduler is gone closes without it; its reason was said)
        try:
            self.client.close()
        except (OSError, TimeoutError):
            pass
        logging.getLogger("distributed.client").removeFilter(self.log)
        for name in _Undecoded.LOGGERS:
            logging.getLogger(name).removeFilter(self.undecoded)
