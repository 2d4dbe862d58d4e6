"""Waivers: authorised variations of a rule at some tables over a period.

A waiver file is TOML, read with :mod:`tomllib` (data only, nothing executed) into frozen
pydantic models::

    [[waiver]]
    id = "W-2026-001"
    code = "TS-TWO-DECKS"
    tables = ["TS-02"]            # or ["*"] for every table of the rule's game
    from = 2026-11-01             # period of the rounds covered (Lima dates, inclusive)
    until = 2026-11-30
    justification = "Mesa con una sola baraja autorizada durante la remodelación"
    approver = "Gerencia de cumplimiento (J. Pérez)"
    expires = 2026-12-31          # after this day (the run's day) the waiver no longer applies

A waiver without a justification or an approver, with a date that is no TOML date (or its
text; ``config_errors.Day``), or of a rule code no game has, is refused (:class:`WaiverError`,
exit 2).
A waived finding is still reported, marked as waived; an expired waiver waives nothing.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..config_errors import ConfigError, Day, read_toml, refused, validation_problems

__all__ = ["Waiver", "WaiverError", "load_waivers", "match_waiver"]


class WaiverError(ConfigError):
    """A waiver file that cannot be used (exit code 2)."""


class Waiver(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    id: str = Field(min_length=1)
    code: str = Field(min_length=1)
    tables: tuple[str, ...] = Field(min_length=1)
    valid_from: Day = Field(alias="from")
    valid_until: Day = Field(alias="until")
    justification: str
    approver: str
    expires: Day

    @field_validator("justification", "approver")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise refused("config.blank")
        return value.strip()

    @field_validator("code")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.strip().upper()

    @model_validator(mode="after")
    def _period(self) -> "Waiver":
        if self.valid_until < self.valid_from:
            raise refused("config.until_before_from")
        return self

    def active(self, today: date) -> bool:
        return today <= self.expires

    def covers(self, code: str, table_id: str, day: date | None) -> bool:
        if code != self.code:
            return False
        if "*" not in self.tables and table_id not in self.tables:
            return False
        return day is not None and self.valid_from <= day <= self.valid_until


def load_waivers(path: Path | str | None, codes: frozenset[str] | None = None) -> list[Waiver]:
    """Every waiver of a TOML file (``[[waiver]]`` tables); none without a path. A waiver of a
    code not among ``codes`` (a mistyped code would waive nothing, silently) is refused."""
    if path is None:
        return []
    path = Path(path)
    data = read_toml(path, WaiverError)
    unknown = sorted(set(data) - {"waiver"})
    if unknown:
        raise WaiverError(path, "config.unknown_sections", sections=", ".join(unknown))
    items = data.get("waiver", [])
    if not isinstance(items, list):
        raise WaiverError(path, "config.waiver_not_array")
    out: list[Waiver] = []
    for n, item in enumerate(items, start=1):
        try:
            out.append(Waiver.model_validate(item))
        except ValidationError as exc:
            label = item.get("id", f"#{n}") if isinstance(item, dict) else f"#{n}"
            raise WaiverError(path, "config.waiver", validation_problems(exc), label=label) from None
    for w in out:
        if codes is not None and w.code not in codes:
            raise WaiverError(path, "config.unknown_code", label=w.id, code=w.code)
    ids = [w.id for w in out]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise WaiverError(path, "config.duplicate_waivers", ids=", ".join(dup))
    return out


def match_waiver(waivers: list[Waiver], code: str, table_id: str, day: date | None, today: date) -> Waiver | None:
    """The first active waiver (by id) that covers the finding, or None."""
    for w in sorted(waivers, key=lambda w: w.id):
        if w.active(today) and w.covers(code, table_id, day):
            return w
    return None
