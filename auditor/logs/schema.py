"""The documented log format: one pydantic model per game's round document.

A round is a JSON object on one line of a ``.jsonl`` file, with its hands in ``hands``; the
flat CSV form has one row per hand carrying the round's fields too. These models are the
single definition of both: ``docs/log-format.md`` embeds the JSON Schema they generate, and
the ingest reads each column's kind and width from the ``x-kind``/``x-width`` annotations
here, so the documentation and the reader cannot drift apart.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..money import AMOUNT_DIGITS

__all__ = ["Kind", "PotLuckHand", "PotLuckRound", "ROUND_MODELS", "columns_of", "Column", "partners"]


class Kind:
    TEXT = "text"
    INT = "int"
    MONEY = "money"
    SIGNED_MONEY = "signed_money"
    CARDS = "cards"
    ACTIONS = "actions"
    TIME = "time"
    CHOICE = "choice"  # one of a few words (``x-choices``), read as its index in them


# Up to 13 integer digits, of which at most AMOUNT_DIGITS after the leading zeros (the first
# 13 - AMOUNT_DIGITS of a longer one are zeros): no amount above S/ 999 999 999.99, the largest
# the audit's int64 arithmetic takes (see ``money``).
_AMOUNT = rf"0{{0,{13 - AMOUNT_DIGITS}}}[0-9]{{1,{AMOUNT_DIGITS}}}([.,][0-9]{{1,2}})?$"
MONEY_PATTERN = "^" + _AMOUNT
SIGNED_MONEY_PATTERN = "^-?" + _AMOUNT
CARDS_PATTERN = r"^\s*((10|[2-9TJQKAtjqka])[SHDCshdc♠♥♦♣]\s*)*$"


def _col(kind: str, description: str, *, width: int | None = None, required: bool = True,
         choices: tuple[str, ...] | None = None, settles: str | None = None, **kw):
    extra = {"x-kind": kind, "x-required": required}
    if width is not None:
        extra["x-width"] = width
    if choices is not None:
        extra["x-choices"] = list(choices)
    if settles is not None:
        extra["x-settles"] = settles
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
                                      required=False, default="0", settles="insurance")
    pool_paid: Money = _col(Kind.MONEY, "Amount handed to this seat from the pool (its share of the pool "
                            "after commission), 0 if it did not win.", required=False, default="0",
                            settles="pool_bet")


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


PULL_VALUES = ("", "cards", "first_community", "second_community")
_PULL_DOC = ("When the bet was withdrawn: empty = not withdrawn, `cards` = after seeing the player's "
             "three cards, `first_community` = after the first community card was shown, "
             "`second_community` = after the second community card was shown.")


class LetItRideHand(_Doc):
    """One player position of a Let It Ride round: its three cards and three base bets."""

    seat: int = _col(Kind.INT, "Player position, 1..7 (Art. 2 a: seven positions).", ge=1)
    cards: Cards = _col(Kind.CARDS, "The player's three cards, e.g. `AS KD 9C`.", width=5)
    bet_1: Money = _col(Kind.MONEY, "Bet 1 (first base bet).")
    bet_2: Money = _col(Kind.MONEY, "Bet 2 (second base bet).")
    bet_dollar: Money = _col(Kind.MONEY, "The \"$\" bet (third base bet, never withdrawn).")
    pulled_1: str = _col(Kind.CHOICE, "Withdrawal of bet 1. " + _PULL_DOC, required=False, default="",
                         choices=PULL_VALUES,
                         pattern=r"^(|cards|first_community|second_community)$")
    pulled_2: str = _col(Kind.CHOICE, "Withdrawal of bet 2. " + _PULL_DOC, required=False, default="",
                         choices=PULL_VALUES,
                         pattern=r"^(|cards|first_community|second_community)$")
    bonus_bet: Money = _col(Kind.MONEY, "Bonus side bet, 0 if none.", required=False, default="0")
    net_1: SignedMoney = _col(Kind.SIGNED_MONEY, "Settlement of bet 1: paid (> 0), collected (< 0), "
                              "0 when withdrawn.")
    net_2: SignedMoney = _col(Kind.SIGNED_MONEY, "Settlement of bet 2: paid (> 0), collected (< 0), "
                              "0 when withdrawn.")
    net_dollar: SignedMoney = _col(Kind.SIGNED_MONEY, "Settlement of the \"$\" bet: paid (> 0) or collected (< 0).")
    net_bonus: SignedMoney = _col(Kind.SIGNED_MONEY, "Settlement of the bonus bet: paid (> 0), collected (< 0).",
                                  required=False, default="0", settles="bonus_bet")


class LetItRideRound(_Doc):
    """A Let It Ride round (partida), Directiva Nº 05-99-MITINCI/VMT/DNT."""

    game: Literal["let-it-ride"] = Field(default="let-it-ride", description="Game id.")
    table_id: str = _col(Kind.TEXT, "Table identifier, stable across exports.", min_length=1, max_length=64)
    round_id: str = _col(Kind.TEXT, "Round identifier, unique within the table.", min_length=1, max_length=64)
    started_at: datetime = _col(Kind.TIME, "Start of the round, ISO 8601 with time zone "
                                "(a time without zone is read as Lima time, UTC-5).")
    dealer_id: str = _col(Kind.TEXT, "Dealer (crupier) identifier.", min_length=1, max_length=64)
    deck_id: str = _col(Kind.TEXT, "Identifier of the deck dealt in this round (a new id for a new deck).",
                        min_length=1, max_length=64)
    deck_color: str = _col(Kind.TEXT, "Colour of the deck's backs (revés), e.g. `rojo`.", min_length=1,
                           max_length=32)
    community_cards: Cards = _col(Kind.CARDS, "The two community cards, first shown first, e.g. `TH 2C`.",
                                  width=4)
    hands: list[LetItRideHand] = Field(min_length=1, description="The player positions of the round.")


ROUND_MODELS: dict[str, type[_Doc]] = {"pot-luck-blackjack": PotLuckRound}
ROUND_MODELS["let-it-ride"] = LetItRideRound

_TS_DEALT_ORDER = ("in dealt order (card 1 = the War card and the first Black Jack card; the Black Jack "
                   "hand is cards 1, 2 and then the hits; the cards after the Black Jack hand complete the "
                   "six-card hand; the Póker hand is the best five of all six)")


class TripleShotHand(_Doc):
    """One player position of a Triple Shot round: its six cards and its three independent
    bets (Guerra, Black Jack, Póker) plus the optional bonus bet."""

    seat: int = _col(Kind.INT, "Player position, 1..6 (Art. 2 a: six positions).", ge=1)
    cards: Cards = _col(Kind.CARDS, "The player's six cards " + _TS_DEALT_ORDER + ", e.g. `AS KD 9C 4H 2S 7D`.",
                        width=8)
    actions: str = _col(Kind.ACTIONS, "Black Jack decisions in order, one letter each: D double, H hit, "
                        "S stand; P (split) is never allowed and is reported. Every H and D adds one card "
                        "to the Black Jack hand.", width=8, required=False, default="", pattern=r"^[PDHS]*$")
    bet_war: Money = _col(Kind.MONEY, "Guerra (War) bet.")
    bet_bj: Money = _col(Kind.MONEY, "Black Jack bet.")
    bet_poker: Money = _col(Kind.MONEY, "Póker bet.")
    double: Money = _col(Kind.MONEY, "Amount added to the Black Jack bet by a double, 0 if none.",
                         required=False, default="0")
    bonus_bet: Money = _col(Kind.MONEY, "Bonus (Pago Agregado) bet, 0 if none.", required=False, default="0")
    net_war: SignedMoney = _col(Kind.SIGNED_MONEY, "Settlement of the War bet: paid (> 0), collected (< 0), "
                                "0 for a push.")
    net_bj: SignedMoney = _col(Kind.SIGNED_MONEY, "Settlement of the Black Jack bet and its double: paid (> 0), "
                               "collected (< 0), 0 for a push.")
    net_poker: SignedMoney = _col(Kind.SIGNED_MONEY, "Settlement of the Póker bet: paid (> 0), collected (< 0), "
                                  "0 for a push.")
    net_bonus: SignedMoney = _col(Kind.SIGNED_MONEY, "Settlement of the bonus bet: paid (> 0), collected (< 0).",
                                  required=False, default="0", settles="bonus_bet")


class TripleShotRound(_Doc):
    """A Triple Shot round (partida), Directiva Nº 004-2004-MINCETUR/VMT/DNT."""

    game: Literal["triple-shot"] = Field(default="triple-shot", description="Game id.")
    table_id: str = _col(Kind.TEXT, "Table identifier, stable across exports.", min_length=1, max_length=64)
    round_id: str = _col(Kind.TEXT, "Round identifier, unique within the table.", min_length=1, max_length=64)
    started_at: datetime = _col(Kind.TIME, "Start of the round, ISO 8601 with time zone "
                                "(a time without zone is read as Lima time, UTC-5).")
    dealer_id: str = _col(Kind.TEXT, "Dealer (crupier) identifier.", min_length=1, max_length=64)
    deck_id: str = _col(Kind.TEXT, "Identifier of the deck dealt in this round (each table has two decks, "
                        "used alternately).", min_length=1, max_length=64)
    deck_color: str = _col(Kind.TEXT, "Colour of the deck's backs (revés), e.g. `rojo`.", min_length=1,
                           max_length=32)
    dealer_cards: Cards = _col(Kind.CARDS, "The dealer's six cards " + _TS_DEALT_ORDER
                               + "; the dealer's hits are drawn by the dealer rule.", width=8)
    dealer_bj_count: int = _col(Kind.INT, "Number of the dealer's cards that form the dealer's Black Jack "
                                "hand (2 + the dealer's draws), 2..6.", ge=0, le=8)
    hands: list[TripleShotHand] = Field(min_length=1, description="The player positions of the round.")


ROUND_MODELS["triple-shot"] = TripleShotRound


class Column(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    kind: str
    required: bool
    width: int | None = None
    round_level: bool
    minimum: int | None = None  # bounds of a whole-number field (ge / le in the model)
    maximum: int | None = None
    choices: tuple[str, ...] = ()  # the words of a choice field
    max_length: int | None = None  # of a text field, in characters
    settles: str | None = None  # of an optional settlement, the optional bet it settles


@functools.cache
def columns_of(game: str) -> tuple[Column, ...]:
    """The flat (CSV) columns of a game: the round's fields, then the hand's. Made once per
    game (from the models, which do not change): opening a file asks for them several times,
    and a folder of a thousand daily exports spent 1.4 s building them again."""
    round_model = ROUND_MODELS[game]
    hand_model = round_model.model_fields["hands"].annotation.__args__[0]
    out: list[Column] = []
    for model, round_level in ((round_model, True), (hand_model, False)):
        for name, info in model.model_fields.items():
            extra = info.json_schema_extra or {}
            if "x-kind" not in extra:
                continue
            bounds = {type(m).__name__: getattr(m, "ge", getattr(m, "le", getattr(m, "max_length", None)))
                      for m in info.metadata}
            out.append(Column(name=name, kind=extra["x-kind"], required=extra["x-required"],
                              width=extra.get("x-width"), round_level=round_level,
                              minimum=bounds.get("Ge"), maximum=bounds.get("Le"),
                              choices=tuple(extra.get("x-choices", ())), max_length=bounds.get("MaxLen"),
                              settles=extra.get("x-settles")))
    return tuple(out)


@functools.cache
def partners(game: str) -> dict[str, str]:
    """The optional bets of ``game`` and their settlements, each named by the other (``pool_bet``
    and ``pool_paid``, ``insurance`` and ``net_insurance``, …): a file that has one of a pair
    and not the other shows a bet it does not settle, or a settlement of a bet it does not show."""
    pairs = {c.name: c.settles for c in columns_of(game) if c.settles}
    return pairs | {bet: settlement for settlement, bet in pairs.items()}


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
