"""Scheduled batch audits: incremental (by content hash), historical (a SQLite ledger of
runs and findings), waivable (authorised variations) and distributed (local processes or a
Dask cluster). See ``docs/batch.md``."""

from __future__ import annotations

import importlib

__all__ = ["run_batch", "BatchOptions", "BatchOutcome", "BatchError", "Waiver", "WaiverError", "load_waivers",
           "CHUNK", "EXIT_OK", "EXIT_NEW", "EXIT_ERROR", "EXIT_PARTIAL"]


def __getattr__(name: str):
    """Each name from its module when first used: the ``auditor`` command registers the batch
    commands on every run, and only ``auditor batch`` needs the runner."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = ".waivers" if name in ("Waiver", "WaiverError", "load_waivers") else ".runner"
    return getattr(importlib.import_module(module, __name__), name)
