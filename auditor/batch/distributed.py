"""Fan a batch out over a Dask distributed cluster (optional extra: ``pip install
casino-auditor[dask]``). Dask is imported only here, only when ``--scheduler`` is given.

The workers run :func:`auditor.batch.runner.audit_task`, so each needs casino-auditor
installed and the log files at the same paths (a shared folder); the ledger and the
reports stay with the process that runs ``auditor batch``. Results come back in task
order, so the ledger is the same as with local processes.
"""

from __future__ import annotations

__all__ = ["DaskExecutor"]


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
        except (OSError, TimeoutError, ValueError) as exc:
            raise BatchError(t("batch.scheduler_error", lang, address=address, error=exc)) from None
        self.name = f"dask:{address}"

    def map(self, fn, items):
        items = list(items)
        if not items:
            return []
        futures = self.client.map(fn, items, pure=False)
        return self.client.gather(futures)

    def close(self):
        self.client.close()
