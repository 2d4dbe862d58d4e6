"""Report-level filters: which findings a report shows and writes.

They never change the audit: every round is still audited and every rule keeps the outcome the
engine gave it. They only narrow the findings written to the reports (HTML, JSON, CSV, SARIF,
JUnit), and every report records them (JSON ``filters``, the HTML header), so that a reader can
tell a filtered report from a complete one.

- ``date_from`` / ``date_to``: the finding's round started on that day or after / before, in
  Lima time, both days included. A finding that belongs to no round (a posted table profile)
  has no date and is kept.
- ``tables``: the finding's table is one of these.
- ``severity_min``: the finding's severity is this one or graver.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from ..specs import SEVERITIES

__all__ = ["ReportFilters", "NO_FILTERS"]


@dataclass(frozen=True)
class ReportFilters:
    date_from: date | None = None
    date_to: date | None = None
    tables: tuple[str, ...] = ()
    severity_min: str | None = None

    def __post_init__(self):
        if self.severity_min is not None and self.severity_min not in SEVERITIES:
            raise ValueError(f"unknown severity: {self.severity_min}")

    @property
    def active(self) -> bool:
        return bool(self.date_from or self.date_to or self.tables or self.severity_min)

    def to_json(self) -> dict:
        return {"active": self.active,
                "from": self.date_from.isoformat() if self.date_from else None,
                "to": self.date_to.isoformat() if self.date_to else None,
                "tables": list(self.tables),
                "severity_min": self.severity_min}

    def apply(self, findings: pd.DataFrame) -> pd.DataFrame:
        """The rows of ``findings`` (the engine's frame) that pass every filter, in order."""
        if not self.active or not len(findings):
            return findings
        keep = np.ones(len(findings), dtype=bool)
        if self.tables:
            keep &= findings["table_id"].astype(str).isin(self.tables).to_numpy()
        if self.severity_min:
            rank = {s: i for i, s in enumerate(SEVERITIES)}
            sev = findings["severity"].map(rank).fillna(-1).to_numpy()
            keep &= sev >= rank[self.severity_min]
        if self.date_from or self.date_to:
            # started_at is ISO 8601 in Lima time: its first ten characters are the Lima day.
            day = findings["started_at"].astype(object).where(findings["started_at"].notna(), None)
            day = np.array([None if d is None else str(d)[:10] for d in day], dtype=object)
            dated = np.array([d is not None for d in day], dtype=bool)
            ok = np.ones(len(findings), dtype=bool)
            if self.date_from:
                lo = self.date_from.isoformat()
                ok &= np.array([d is None or d >= lo for d in day], dtype=bool)
            if self.date_to:
                hi = self.date_to.isoformat()
                ok &= np.array([d is None or d <= hi for d in day], dtype=bool)
            keep &= ok | ~dated
        return findings[keep].reset_index(drop=True)


NO_FILTERS = ReportFilters()
