"""Table profiles: what an operator posts at a table (limits, pay ratios, options).

A profile file is TOML. A profile with no ``tables`` is a default of its game, one that names
tables applies to those tables; either may have a date range (``valid_from``/``valid_until``,
Lima days, inclusive) and then applies only on those days. For each round the most specific
match wins: a dated table profile, an undated table profile, a dated default, the undated
default. Where none applies (no profile at all, or only dated defaults, on the other days), the
built-in default of the game holds the standard values of ``docs/rules.md`` and posts no limits
(limit rules then do not apply). See ``docs/profiles.md``.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, ClassVar, Literal

import numpy as np
import pandas as pd
from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, Strict, ValidationError,
                      field_validator, model_validator)

from .config_errors import ConfigError, Day, read_toml, refused, validation_problems
from .logs.files import path_text
from .money import LARGEST_AMOUNT, LARGEST_RATIO

__all__ = ["ProfileBase", "PotLuckProfile", "PROFILE_MODELS", "ProfileError", "load_profiles",
           "ProfileSet", "default_profile", "register_profile_model"]


class ProfileError(ConfigError):
    """A profile file that cannot be used (exit code 2)."""


# TOML gives every value its own kind, and a profile takes each value only in the kind its field
# holds: pydantic's lax mode would read `decks = true` as 1 deck, `2.0` or "6" as whole numbers,
# "yes" or 1 as true, and 0 as the day 1970-01-01 (days: ``config_errors.Day``). (Amounts stay
# lax: "10.00", 10 and 10.5 are all the amount they write; a boolean is no amount and pydantic
# refuses it.)
Whole = Annotated[int, Strict()]
YesNo = Annotated[bool, Strict()]


def _no_bool_or_float(value):
    if isinstance(value, (bool, float)):
        raise refused("config.whole")
    return value


# Amounts and ratios are bounded where the audit's int64 arithmetic stays exact (the reasoning is
# in ``money``): a limit or stake no log could state, or a ratio far above any published table's
# (a payment limit of S/ 10^16, a royal flush at 10^18 to 1: both wrapped around into findings of
# wrong amounts), is a profile mistake, refused with the bound.
def _an_amount(value: Decimal) -> Decimal:
    if value > LARGEST_AMOUNT:
        raise refused("config.amount_too_large", le=LARGEST_AMOUNT)
    return value


def _infinity_too_large(value):
    """TOML's ``inf`` (or "Infinity" as text), as a limit written for "no limit", is above the
    bound: refused as such, with the bound (pydantic only said it was no finite number)."""
    if isinstance(value, (float, str, Decimal)):
        try:
            if Decimal(str(value).strip()) == Decimal("Infinity"):
                raise refused("config.amount_too_large", le=LARGEST_AMOUNT)
        except InvalidOperation:
            pass
    return value


def _a_ratio(value: int) -> int:
    if value > LARGEST_RATIO:
        raise refused("config.ratio_too_large", le=LARGEST_RATIO)
    return value


def _not_zero(key: str):
    """A table's maximum bet, that of a bet the round is made of (Triple Shot's three, Art. 1 g),
    or a payment limit of 0 takes no bet or pays no prize: every round would be a finding, so it
    is a profile mistake (0 for "no limit", as some systems write it), not a posting. A side
    bet's maximum (the pool, the bonus) may be 0: the table does not take that bet."""
    def check(value: Decimal) -> Decimal:
        if value == 0:
            raise refused(key)
        return value
    return AfterValidator(check)


Amount = Annotated[Decimal, Field(ge=0, decimal_places=2), BeforeValidator(_infinity_too_large),
                   AfterValidator(_an_amount)]
MaxBet = Annotated[Amount, _not_zero("config.max_bet_zero")]
PaymentLimit = Annotated[Amount, _not_zero("config.payment_limit_zero")]
Ratio = Annotated[Whole, Field(ge=0), AfterValidator(_a_ratio)]


class ProfileBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    game: str
    description: str = ""
    source: str = "built-in"
    tables: tuple[str, ...] = ()
    valid_from: Day | None = None
    valid_until: Day | None = None
    min_bet: Amount | None = None
    max_bet: MaxBet | None = None
    payment_limit: PaymentLimit | None = None

    # Bets whose limits, where not posted, are the table's min_bet / max_bet (see each game's
    # check_bet_limits).
    FALL_BACK_TO_TABLE_LIMITS: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _bounds(self):
        """A posted minimum above its maximum is no posting a table could keep, also where one
        of them is the table's limit that a bet without its own uses."""
        def limit(name: str, bet: str):
            own = getattr(self, name, None)
            if own is None and bet in self.FALL_BACK_TO_TABLE_LIMITS:
                return name[:4] + "bet", getattr(self, name[:4] + "bet")
            return name, own
        for low_field in (f for f in type(self).model_fields if f.startswith("min_")):
            bet = low_field[4:-4] if low_field.endswith("_bet") else ""
            (low_field, low), (high_field, high) = limit(low_field, bet), limit("max_" + low_field[4:], bet)
            if low is not None and high is not None and low > high:
                raise refused("config.min_above_max", low_field=low_field, low=low, high_field=high_field, high=high)
        return self

    @model_validator(mode="after")
    def _period(self):
        """A period that ends before it begins covers no day: the profile would never apply."""
        if self.valid_from is not None and self.valid_until is not None and self.valid_until < self.valid_from:
            raise refused("config.period_reversed", valid_from=self.valid_from, valid_until=self.valid_until)
        return self

    def cents(self, name: str) -> int | None:
        value = getattr(self, name)
        return None if value is None else int(value * 100)


class PotLuckProfile(ProfileBase):
    game: Literal["pot-luck-blackjack"] = "pot-luck-blackjack"
    decks: Whole = Field(default=6, ge=1, le=8)
    max_splits: Whole = Field(default=3, ge=0, le=7)
    split_by: Literal["value", "rank"] = "value"
    split_21_is_blackjack: YesNo = False
    # Posted as a percentage; Art. 18 caps it at 5 %, and a profile above that is itself a
    # finding (PLB-POSTED-COMMISSION), so the model accepts it rather than refusing it.
    pool_commission_pct: Decimal = Field(default=Decimal("5"), ge=0, le=100, decimal_places=2)
    pool_tie: Literal["split", "carry_over"] = "split"
    min_pool_bet: Amount | None = None
    max_pool_bet: Amount | None = None


class LetItRidePaytable(BaseModel):
    """Ratios "to 1" per final hand; ``one_pair`` pays pairs from ``min_pair`` up."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    royal_flush: Ratio = 1000
    straight_flush: Ratio = 200
    four_of_a_kind: Ratio = 50
    full_house: Ratio = 11
    flush: Ratio = 8
    straight: Ratio = 5
    three_of_a_kind: Ratio = 3
    two_pair: Ratio = 2
    one_pair: Ratio = 1


class LetItRideBonusTable(LetItRidePaytable):
    """[STANDARD] Bonus side bet ratios per unit of the fixed stake (a published table:
    royal 20,000 … two pair 6, nothing for a pair)."""

    royal_flush: Ratio = 20000
    straight_flush: Ratio = 2000
    four_of_a_kind: Ratio = 100
    full_house: Ratio = 75
    flush: Ratio = 50
    straight: Ratio = 25
    three_of_a_kind: Ratio = 9
    two_pair: Ratio = 6
    one_pair: Ratio = 0


class LetItRideProfile(ProfileBase):
    game: Literal["let-it-ride"] = "let-it-ride"
    paytable: LetItRidePaytable = LetItRidePaytable()
    # Art. 4 i: two tens are the lowest pair. A profile posting another minimum is itself a
    # finding (LIR-PAYTABLE), so the model accepts any rank rather than refusing it.
    min_pair: Literal["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"] = "T"
    bonus: LetItRideBonusTable = LetItRideBonusTable()
    bonus_stake: Amount | None = None
    # Art. 2 c: one deck, or two decks of different back colours used alternately.
    decks_per_table: Annotated[Literal[1, 2], BeforeValidator(_no_bool_or_float)] = 1


PROFILE_MODELS: dict[str, type[ProfileBase]] = {"pot-luck-blackjack": PotLuckProfile}
PROFILE_MODELS["let-it-ride"] = LetItRideProfile


class TripleShotCaribbeanTable(BaseModel):
    """Ratios "to 1" of the Póker bet against a qualifying dealer who is beaten, by the
    player's hand. [PERU] Póker Caribeño Arts. 12-14: royal 100, straight flush 50; the rest
    [STANDARD]; ``high_card`` is A-K, the only high card that can beat a qualifying dealer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    royal_flush: Ratio = 100
    straight_flush: Ratio = 50
    four_of_a_kind: Ratio = 20
    full_house: Ratio = 7
    flush: Ratio = 5
    straight: Ratio = 4
    three_of_a_kind: Ratio = 3
    two_pair: Ratio = 2
    one_pair: Ratio = 1
    high_card: Ratio = 1


class TripleShotPaytable(TripleShotCaribbeanTable):
    """[STANDARD] Póker bet paid on the player's hand alone (poker_mode = paytable); a pair
    pays from ``min_pair`` up (default queens)."""

    straight_flush: Ratio = 30
    four_of_a_kind: Ratio = 15
    high_card: Ratio = 0


class TripleShotBonusTable(TripleShotCaribbeanTable):
    """[STANDARD] Bonus (Pago Agregado) ratios per unit of the bonus bet, paid on the
    player's best five of six; categories paying 0 lose the bet."""

    royal_flush: Ratio = 1000
    straight_flush: Ratio = 200
    four_of_a_kind: Ratio = 50
    full_house: Ratio = 20
    flush: Ratio = 15
    straight: Ratio = 10
    three_of_a_kind: Ratio = 5
    two_pair: Ratio = 0
    one_pair: Ratio = 0
    high_card: Ratio = 0


class TripleShotProfile(ProfileBase):
    game: Literal["triple-shot"] = "triple-shot"
    # [STANDARD] War tie: the player loses half the War bet, or it is a push.
    war_tie: Literal["lose_half", "push"] = "lose_half"
    # [STANDARD] Black Jack options.
    bj_pays: tuple[Whole, Whole] = (3, 2)
    dealer_hits_soft_17: YesNo = False
    six_card_charlie: YesNo = False
    poker_mode: Literal["caribbean", "paytable"] = "caribbean"
    caribbean: TripleShotCaribbeanTable = TripleShotCaribbeanTable()
    paytable: TripleShotPaytable = TripleShotPaytable()
    min_pair: Literal["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"] = "Q"
    bonus: TripleShotBonusTable = TripleShotBonusTable()
    # Limits of each bet; a bet without its own limit uses min_bet / max_bet.
    FALL_BACK_TO_TABLE_LIMITS: ClassVar[tuple[str, ...]] = ("war", "bj", "poker")
    min_war_bet: Amount | None = None
    max_war_bet: MaxBet | None = None
    min_bj_bet: Amount | None = None
    max_bj_bet: MaxBet | None = None
    min_poker_bet: Amount | None = None
    max_poker_bet: MaxBet | None = None
    min_bonus_bet: Amount | None = None
    max_bonus_bet: Amount | None = None

    @field_validator("bj_pays")
    @classmethod
    def _a_payout(cls, pays: tuple[int, int]) -> tuple[int, int]:
        """Art. 1 a.2 plays the Black Jack by its reglamento, whose Art. 13 pays a Black Jack a
        premio "en proporción de 3 a 2": which ratio is posted is the operator's ([STANDARD]),
        but [n, 0] pays for no stake (no ratio at all) and [0, n] or less pays the winning hand
        nothing, so neither is a posting of a premio."""
        paid, per = pays
        if per < 1:
            raise refused("config.bj_pays_per", paid=paid, per=per)
        if paid < 1:
            raise refused("config.bj_pays_paid", paid=paid, per=per)
        if max(paid, per) > LARGEST_RATIO:  # (the bound of the pay tables' ratios, see _a_ratio)
            raise refused("config.bj_pays_too_large", paid=paid, per=per, le=LARGEST_RATIO)
        return pays


PROFILE_MODELS["triple-shot"] = TripleShotProfile


def register_profile_model(model: type[ProfileBase]) -> None:
    PROFILE_MODELS[model.model_fields["game"].default] = model


def default_profile(game: str) -> ProfileBase:
    return PROFILE_MODELS[game](id=f"{game}-estandar", description="standard values")


def _load_file(path: Path) -> list[ProfileBase]:
    data = read_toml(path, ProfileError)
    entries = data.get("profile", [data])
    listed = "profile" in data  # several profiles: each error names the one it is of
    out = []
    for n, entry in enumerate(entries if isinstance(entries, list) else [entries], start=1):
        if not isinstance(entry, dict):
            raise ProfileError(path, "config.fields", [("profile", "config.table", {})])
        label = entry["id"] if isinstance(entry.get("id"), str) and entry["id"] else f"#{n}"
        key, of = ("config.profile_fields", {"label": label}) if listed else ("config.fields", {})
        game = entry.get("game")
        if game is None:
            raise ProfileError(path, key, [("game", "config.missing", {})], **of)
        if game not in PROFILE_MODELS:
            raise ProfileError(path, "config.unknown_game", game=game, games=", ".join(sorted(PROFILE_MODELS)))
        try:
            out.append(PROFILE_MODELS[game].model_validate({**entry, "source": path_text(path)}))
        except ValidationError as exc:
            raise ProfileError(path, key, validation_problems(exc), **of) from None
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
        raise ProfileError(None, "config.duplicate_profiles", ids=", ".join(sorted({i for i in ids if ids.count(i) > 1})))
    for game in sorted({p.game for p in out}):  # two defaults, or overlapping tables: refused now
        ProfileSet(game, out)
    return out


def _dated(p: ProfileBase) -> bool:
    return p.valid_from is not None or p.valid_until is not None


def _meet(a: ProfileBase, b: ProfileBase) -> bool:
    """Whether the periods of two profiles share a day (no date: every day)."""
    return (a.valid_from or date.min) <= (b.valid_until or date.max) and (b.valid_from or date.min) <= (a.valid_until or date.max)


def _refuse_overlaps(assigned: list[ProfileBase]) -> None:
    """Two profiles that would both apply, with the same precedence, to one table on one day
    make the posted values ambiguous: refused, rather than settled by file order."""
    for i, a in enumerate(assigned):
        for b in assigned[i + 1:]:
            if _dated(a) != _dated(b) or not set(a.tables) & set(b.tables):
                continue
            if _meet(a, b):
                raise ProfileError(None, "config.overlap", a=a.id, b=b.id,
                                   tables=", ".join(sorted(set(a.tables) & set(b.tables))))


class ProfileSet:
    """The profiles of one game and which applies to each round."""

    def __init__(self, game: str, profiles: list[ProfileBase]):
        mine = [p for p in profiles if p.game == game]
        undated = [p for p in mine if not p.tables and not _dated(p)]
        if len(undated) > 1:
            raise ProfileError(None, "config.two_defaults", game=game, ids=", ".join(p.id for p in undated))
        dated = [p for p in mine if not p.tables and _dated(p)]
        for i, a in enumerate(dated):  # two dated defaults on one day: ambiguous too
            for b in dated[i + 1:]:
                if _meet(a, b):
                    raise ProfileError(None, "config.overlap_defaults", game=game, a=a.id, b=b.id)
        self.game = game
        # Index 0 is the undated default (the built-in one without it): it holds where nothing
        # else does. Then the dated defaults, then the table profiles.
        self.profiles: list[ProfileBase] = (undated or [default_profile(game)]) + dated + [p for p in mine if p.tables]
        _refuse_overlaps([p for p in self.profiles if p.tables])

    def assign(self, table_id: pd.Series, started_at: pd.Series) -> np.ndarray:
        """Index into ``self.profiles`` for each round: a dated table match beats an undated
        one, which beats a dated default, which beats the undated default (index 0). (As
        ``intp``: an index of another type is converted at each of a chunk's lookups.)"""
        which = np.zeros(len(table_id), dtype=np.intp)
        score = np.zeros(len(table_id), dtype=np.int8)
        dated = any(_dated(p) for p in self.profiles[1:])
        day = started_at.dt.tz_convert("America/Lima").dt.date if dated and len(started_at) else started_at
        for i, p in enumerate(self.profiles[1:], start=1):
            # (the table match is read-only under copy-on-write: not updated in place)
            hit = table_id.isin(p.tables).to_numpy() if p.tables else np.ones(len(table_id), bool)
            if p.valid_from is not None:
                hit = hit & (day >= p.valid_from).to_numpy()
            if p.valid_until is not None:
                hit = hit & (day <= p.valid_until).to_numpy()
            rank = (2 if p.tables else 0) + _dated(p)  # (1 to 3: index 0 is the only undated default)
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
