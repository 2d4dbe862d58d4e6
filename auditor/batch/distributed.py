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

    def map(self, fn, items):
        from asyncio import CancelledError

        from ..i18n import t
        from .runner import BatchError, TaskFailed

        items = list(items)
        if not items:
            return []
        futures = self.client.map(fn, items, pure=False)
        out = []
        for future in futures:  # (in task order)
            try:
                out.append(self.client.gather(future))
            except KeyboardInterrupt:
                # Ctrl-C: the client's waits, cancelled, are logged by asyncio as tracebacks
                # («Task exception was never retrieved … AllExit») after the batch's own line
                import logging

                logging.getLogger("asyncio").setLevel(logging.CRITICAL)
                raise
            except (Exception, CancelledError) as exc:  # (Dask's FutureCancelledError is a CancelledError)
                if future.status == "finished" and not isinstance(exc, (CancelledError, OSError, TimeoutError)):
                    # The task ended on its worker, but its result does not unpickle here (a
                    # worker of another version gave back classes this one lacks): not the
                    # scheduler lost (Dask's comms fail with an OSError, CommClosedError)
                    out.append(TaskFailed(t("batch.task_foreign", self.lang)))
                    continue
                if future.status != "error":  # cancelled: the client lost its scheduler
                    raise BatchError(t("batch.scheduler_lost", self.lang, address=self.address)) from None
                out.append(_failure(exc, self.lang))
        return out

    def close(self):
        # (a client whose scheduler is gone closes without it; its reason was said)
        try:
            self.client.close()
        except (OSError, TimeoutError):
            pass
