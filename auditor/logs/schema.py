"""The documented log format: one pydantic model per game's round document.

A round is a JSON object on one line of a ``.jsonl`` file, with its hands in ``hands``; the
flat CSV form has one row per hand carrying the round's fields too. These models are the
single definition of both: ``docs/log-format.md`` embeds the JSON Schema they generate, and
the ingest reads each column's kind and width from the ``x-kind``/``x-width`` annotations
here, so the documentation and the reader cannot drift apart.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Kind", "PotLuckHand", "PotLuckRound", "ROUND_MODELS", "columns_of", "Column"]


class Kind:
    TEXT = "text"
    INT = "int"
    MONEY = "money"
    SIGNED_MONEY = "signed_money"
    CARDS = "cards"
    ACTIONS = "actions"
    TIME = "time"


MONEY_PATTERN = r"^[0-9]{1,13}([.,][0-9]{1,2})?$"
SIGNED_MONEY_PATTERN = r"^-?[0-9]{1,13}([.,][0-9]{1,2})?$"
CARDS_PATTERN = r"^\s*((10|[2-9TJQKAtjqka])[SHDCshdc♠♥♦♣]\s*)*$"


def _col(kind: str, description: str, *, width: int | None = None, required: bool = True, **kw):
    extra = {"x-kind": kind, "x-required": required}
    if width is not None:
        extra["x-width"] = width
    return Field(description=description, json_schema_extra=extra, **kw)


Money = Annotated[str, Field(pattern=MONEY_PATTERN)]
SignedMoney = Annotated[str, Field(pattern=SIGNED_MONEY_PATTERN)]
Cards = Annotated[str, Field(pattern=CARDS_PATTERN)]


class _Doc(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PotLuckHand(_Doc):
    """One player hand. Hand 0 is the seat's original hand; each split adds a hand numbered
    in the order the splits were made, whose first card is the card moved off its parent."""

    seat: int = _col(Kind.INT, "Player position, 1 = the dealer's left.", ge=1, le=9)
    hand: int = _col(Kind.INT, "0 for the original hand; 1, 2, … for hands made by splits.", ge=0, le=15)
    split_from: int | None = _col(Kind.INT, "For a split hand, the hand it was split from; empty for hand 0.",
                                  required=False, default=None, ge=0, le=15)
    cards: Cards = _col(Kind.CARDS, "The hand's cards in dealt order, e.g. `AS KD`.", width=12)
    actions: str = _col(Kind.ACTIONS, "Decisions in order, one letter each: I insurance, E even money, "
                        "R surrender, P split, D double, H hit, S stand.", width=16, required=False,
                        default="", pattern=r"^[IERPDHS]*$")
    bet: Money = _col(Kind.MONEY, "Main bet (for a split hand, the bet placed on it).")
    double: Money = _col(Kind.MONEY, "Amount added by a double (incremento), 0 if none.", required=False, default="0")
    insurance: Money = _col(Kind.MONEY, "Insurance bet, 0 if none (hand 0 only).", required=False, default="0")
    pool_bet: Money = _col(Kind.MONEY, "Pool bet of the seat, 0 if none (hand 0 only).", required=False, default="0")
    net_main: SignedMoney = _col(Kind.SIGNED_MONEY, "Settlement of the main bet and its double: "
                                 "winnings paid (> 0), amount collected (< 0) or 0 for a push.")
    net_insurance: SignedMoney = _col(Kind.SIGNED_MONEY, "Settlement of the insurance bet (paid > 0, collected < 0).",
                                      required=False, default="0")
    pool_paid: Money = _col(Kind.MONEY, "Amount handed to this seat from the pool (its share of the pool "
                            "after commission), 0 if it did not win.", required=False, default="0")


class PotLuckRound(_Doc):
    """A Pot Luck Black Jack round (partida)."""

    game: Literal["pot-luck-blackjack"] = Field(default="pot-luck-blackjack", description="Game id.")
    table_id: str = _col(Kind.TEXT, "Table identifier, stable across exports.", min_length=1, max_length=64)
    round_id: str = _col(Kind.TEXT, "Round identifier, unique within the table.", min_length=1, max_length=64)
    started_at: datetime = _col(Kind.TIME, "Start of the round, ISO 8601 with time zone "
                                "(a time without zone is read as Lima time, UTC-5).")
    dealer_id: str = _col(Kind.TEXT, "Dealer (crupier) identifier.", min_length=1, max_length=64)
    shoe_id: str = _col(Kind.TEXT, "Identifier of the shuffled shoe in play (a new id at each shuffle).",
                        min_length=1, max_length=64)
    dealer_cards: Cards = _col(Kind.CARDS, "Dealer's cards in dealt order: face-up card first, then the hole "
                               "card, then the draws.", width=12)
    hands: list[PotLuckHand] = Field(min_length=1, description="The player hands of the round.")


ROUND_MODELS: dict[str, type[_Doc]] = {"pot-luck-blackjack": PotLuckRound}


class Column(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    kind: str
    required: bool
    width: int | None = None
    round_level: bool


def columns_of(game: str) -> list[Column]:
    """The flat (CSV) columns of a game: the round's fields, then the hand's."""
    round_model = ROUND_MODELS[game]
    hand_model = round_model.model_fields["hands"].annotation.__args__[0]
    out: list[Column] = []
    for model, round_level in ((round_model, True), (hand_model, False)):
        for name, info in model.model_fields.items():
            extra = info.json_schema_extra or {}
            if "x-kind" not in extra:
                continue
            out.append(Column(name=name, kind=extra["x-kind"], required=extra["x-required"],
                              width=extra.get("x-width"), round_level=round_level))
    return out


def json_schema(game: str) -> dict:
    """The JSON Schema of one round document (a JSONL line) of ``game``."""
    schema = ROUND_MODELS[game].model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://casino-auditor.example/schema/{game}.round.schema.json"
    return schema


def schema_text(game: str) -> str:
    import json

    return json.dumps(json_schema(game), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


if __name__ == "__main__":  # python -m auditor.logs.schema docs/schema
    import sys
    from pathlib import Path

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/schema")
    target.mkdir(parents=True, exist_ok=True)
    for g in ROUND_MODELS:
        (target / f"{g}.round.schema.json").write_text(schema_text(g), encoding="utf-8")
