"""Scheduled batch audits: incremental (by content hash), historical (a SQLite ledger of
runs and findings), waivable (authorised variations) and distributed (local processes or a
Dask cluster). See ``docs/batch.md``."""

from __future__ import annotations

from .runner import (CHUNK, EXIT_ERROR, EXIT_NEW, EXIT_OK, EXIT_PARTIAL, BatchError, BatchOptions, BatchOutcome,
                     run_batch)
from .waivers import Waiver, WaiverError, load_waivers

__all__ = ["run_batch", "BatchOptions", "BatchOutcome", "BatchError", "Waiver", "WaiverError", "load_waivers",
           "CHUNK", "EXIT_OK", "EXIT_NEW", "EXIT_ERROR", "EXIT_PARTIAL"]
