"""The explicit binding of rule codes (``rule_specs/``) to check functions.

Nothing registers itself by being imported: each game is listed here with its spec file,
its log letters, its structural validation, its context and its checks. ``verify`` fails
loudly when a spec code has no check or a check has no spec code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

from .checks import let_it_ride, pot_luck_blackjack
from .checks import triple_shot
from .checks.base import Check
from .logs.schema import columns_of
from .specs import DirectiveSpec, SpecError, load_spec

__all__ = ["GamePlugin", "GAMES", "verify", "plugin", "known_codes"]


@dataclass(frozen=True)
class GamePlugin:
    game: str
    spec_file: str
    letters: str
    validate: Callable
    context: Callable
    checks: Mapping[str, Check]
    # Money columns that are stakes placed (summed as "wagered" in the totals).
    wagers: tuple[str, ...] = ("bet", "double", "insurance", "pool_bet")
    # The rules that compare a round with its table's round before it
    # (``checks.base.previous_rounds``): judged again where a later copy fills a gap
    # (``engine._Sequel``).
    over_consecutive_rounds: tuple[str, ...] = ()

    @property
    def spec(self) -> DirectiveSpec:
        return load_spec(self.spec_file)


GAMES: dict[str, GamePlugin] = {
    "pot-luck-blackjack": GamePlugin(
        game="pot-luck-blackjack",
        spec_file="pot_luck_blackjack.toml",
        letters=pot_luck_blackjack.LETTERS,
        validate=pot_luck_blackjack.validate,
        context=pot_luck_blackjack.Context,
        checks=pot_luck_blackjack.CHECKS,
    ),
    "let-it-ride": GamePlugin(
        game="let-it-ride",
        spec_file="let_it_ride.toml",
        letters=let_it_ride.LETTERS,
        validate=let_it_ride.validate,
        context=let_it_ride.Context,
        checks=let_it_ride.CHECKS,
        wagers=("bet_1", "bet_2", "bet_dollar", "bonus_bet"),
        over_consecutive_rounds=("LIR-TWO-DECKS",),
    ),
    "triple-shot": GamePlugin(
        game="triple-shot",
        spec_file="triple_shot.toml",
        letters=triple_shot.LETTERS,
        validate=triple_shot.validate,
        context=triple_shot.Context,
        checks=triple_shot.CHECKS,
        wagers=("bet_war", "bet_bj", "bet_poker", "double", "bonus_bet"),
        over_consecutive_rounds=("TS-TWO-DECKS",),
    ),
}


@cache
def verify() -> None:
    """Raise SpecError unless every game's spec codes and checks match one to one."""
    for game, p in GAMES.items():
        spec = p.spec
        if spec.game != game:
            raise SpecError(p.spec_file, "spec.wrong_game", game=spec.game, expected=game)
        codes, bound = set(spec.codes), set(p.checks)
        if codes - bound:
            raise SpecError(None, "spec.codes_without_check", game=game, codes=", ".join(sorted(codes - bound)))
        if bound - codes:
            raise SpecError(None, "spec.checks_without_code", game=game, codes=", ".join(sorted(bound - codes)))
        if set(p.over_consecutive_rounds) - codes:
            raise SpecError(None, "spec.consecutive_without_code", game=game,
                            codes=", ".join(sorted(set(p.over_consecutive_rounds) - codes)))
        settlements = {c.name for c in columns_of(game) if c.settles}
        for rule in spec.rule:
            if set(rule.needs) - settlements:
                raise SpecError(None, "spec.needs_not_settlement", game=game, code=rule.code,
                                columns=", ".join(sorted(set(rule.needs) - settlements)))


def plugin(game: str) -> GamePlugin:
    verify()
    return GAMES[game]


def known_codes() -> frozenset[str]:
    """Every rule code of every game."""
    return frozenset(code for game in GAMES for code in plugin(game).spec.codes)
