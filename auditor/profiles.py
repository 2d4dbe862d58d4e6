"""Table profiles: what an operator posts at a table (limits, pay ratios, options).

A profile file is TOML. A profile with no ``tables`` is the default for its game; one that
names tables (and optionally a date range) applies to those tables on those dates, and the
most specific match wins. Without any profile, the built-in default of each game holds the
standard values of ``docs/rules.md`` and posts no limits (limit rules then do not apply).
"""

from __future__ import annotations

import tomllib
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["ProfileBase", "PotLuckProfile", "PROFILE_MODELS", "ProfileError", "load_profiles",
           "ProfileSet", "default_profile", "register_profile_model"]


class ProfileError(Exception):
    """A profile file that cannot be used (exit code 2)."""


class ProfileBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    game: str
    description: str = ""
    source: str = "built-in"
    tables: tuple[str, ...] = ()
    valid_from: date | None = None
    valid_until: date | None = None
    min_bet: Decimal | None = Field(default=None, ge=0, decimal_places=2)
    max_bet: Decimal | None = Field(default=None, ge=0, decimal_places=2)
    payment_limit: Decimal | None = Field(default=None, ge=0, decimal_places=2)

    def cents(self, name: str) -> int | None:
        value = getattr(self, name)
        return None if value is None else int(value * 100)


class PotLuckProfile(ProfileBase):
    game: Literal["pot-luck-blackjack"] = "pot-luck-blackjack"
    decks: int = Field(default=6, ge=1, le=8)
    max_splits: int = Field(default=3, ge=0, le=7)
    split_by: Literal["value", "rank"] = "value"
    split_21_is_blackjack: bool = False
    # Posted as a percentage; Art. 18 caps it at 5 %, and a profile above that is itself a
    # finding (PLB-POSTED-COMMISSION), so the model accepts it rather than refusing it.
    pool_commission_pct: Decimal = Field(default=Decimal("5"), ge=0, le=100, decimal_places=2)
    pool_tie: Literal["split", "carry_over"] = "split"
    min_pool_bet: Decimal | None = Field(default=None, ge=0, decimal_places=2)
    max_pool_bet: Decimal | None = Field(default=None, ge=0, decimal_places=2)


PROFILE_MODELS: dict[str, type[ProfileBase]] = {"pot-luck-blackjack": PotLuckProfile}


def register_profile_model(model: type[ProfileBase]) -> None:
    PROFILE_MODELS[model.model_fields["game"].default] = model


def default_profile(game: str) -> ProfileBase:
    return PROFILE_MODELS[game](id=f"{game}-estandar", description="standard values")


def _load_file(path: Path) -> list[ProfileBase]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"{path}: {exc}") from None
    entries = data.get("profile", [data])
    out = []
    for entry in entries:
        game = entry.get("game")
        if game not in PROFILE_MODELS:
            raise ProfileError(f"{path}: unknown game {game!r}")
        try:
            out.append(PROFILE_MODELS[game].model_validate({**entry, "source": str(path)}))
        except ValidationError as exc:
            raise ProfileError(f"{path}: {exc}") from None
    return out


def load_profiles(paths) -> list[ProfileBase]:
    """Profiles from files and folders (every ``*.toml`` inside, sorted)."""
    out: list[ProfileBase] = []
    for p in map(Path, paths):
        files = sorted(p.glob("*.toml")) if p.is_dir() else [p]
        for f in files:
            out.extend(_load_file(f))
    ids = [p.id for p in out]
    if len(ids) != len(set(ids)):
        raise ProfileError(f"duplicated profile ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    return out


class ProfileSet:
    """The profiles of one game and which applies to each round."""

    def __init__(self, game: str, profiles: list[ProfileBase]):
        mine = [p for p in profiles if p.game == game]
        defaults = [p for p in mine if not p.tables]
        if len(defaults) > 1:
            raise ProfileError(f"{game}: more than one default profile: {[p.id for p in defaults]}")
        self.game = game
        self.profiles: list[ProfileBase] = (defaults or [default_profile(game)]) + [p for p in mine if p.tables]

    def assign(self, table_id: pd.Series, started_at: pd.Series) -> np.ndarray:
        """Index into ``self.profiles`` for each round: the dated table match beats the
        undated one, which beats the default (index 0)."""
        which = np.zeros(len(table_id), dtype=np.int16)
        score = np.zeros(len(table_id), dtype=np.int8)
        day = started_at.dt.tz_convert("America/Lima").dt.date if len(started_at) else started_at
        for i, p in enumerate(self.profiles[1:], start=1):
            hit = table_id.isin(p.tables).to_numpy()
            if p.valid_from is not None:
                hit &= (day >= p.valid_from).to_numpy()
            if p.valid_until is not None:
                hit &= (day <= p.valid_until).to_numpy()
            rank = 2 if (p.valid_from or p.valid_until) else 1
            take = hit & (rank > score)
            which[take] = i
            score[take] = rank
        return which

    def column(self, which: np.ndarray, name: str, *, cents: bool = False, missing=-1) -> np.ndarray:
        """A profile parameter broadcast to every round (céntimos for money, ``missing``
        where the profile posts no value)."""
        values = []
        for p in self.profiles:
            v = p.cents(name) if cents else getattr(p, name)
            values.append(missing if v is None else v)
        return np.asarray(values)[which]
