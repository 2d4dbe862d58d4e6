"""What an audit produces: findings, per-rule outcomes and input accounting (frozen models)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["Finding", "RuleOutcome", "InputSummary", "Rejection", "Status"]

Status = Literal["passed", "failed", "not_applicable", "error"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Finding(_Frozen):
    """One violation: condition (observed), criterion (rule, article, expected), effect
    (impact: observed minus expected, > 0 means the player was over-paid)."""

    code: str
    game: str
    directive: str
    article: str
    source: str
    severity: str
    table_id: str
    round_id: str
    seat: int | None = None
    hand: int | None = None
    started_at: str | None = None
    dealer_id: str | None = None
    message: str
    expected: Decimal | None = None
    observed: Decimal | None = None
    impact: Decimal | None = None
    evidence: dict[str, Any] = {}
    file: str | None = None
    line: int | None = None


class RuleOutcome(_Frozen):
    code: str
    game: str
    article: str
    source: str
    severity: str
    title: str
    status: Status
    rounds_checked: int
    violations: int
    note: str = ""


class Rejection(_Frozen):
    file: str
    line: int
    field: str
    reason: str


class InputSummary(_Frozen):
    path: str
    sha256: str
    game: str | None
    records_read: int
    records_audited: int
    records_rejected: int
    error: str | None = None
    extra_columns: tuple[str, ...] = ()
    # How the file was read when it was not plain UTF-8 with ",": its decoding, its separator.
    notes: tuple[str, ...] = ()
