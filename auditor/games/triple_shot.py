"""Triple Shot arithmetic shared by the audit and the simulator.

Directiva Nº 004-2004-MINCETUR/VMT/DNT, Art. 1 a: three games on each participant's six
cards. Card 1 is the War card (Guerra, a.1) and the first Black Jack card (a.2); the Black
Jack hand is cards 1, 2 and the hits; the Póker hand (a.3) is the best five of all six.
Everything works on whole matrices; amounts are céntimos × ``SCALE`` (half a War bet stays
an exact integer).
"""

from __future__ import annotations

import numpy as np

from ..rowwise import any_per_row
from . import blackjack as bj
from . import poker

__all__ = ["SCALE", "CATEGORY_FIELDS", "ratio_table", "war_settle", "bj_count", "bj_settle",
           "evaluate_six", "dealer_qualifies", "poker_settle", "table_settle",
           "DUMMY_SIX"]

SCALE = bj.SCALE
# Profile table fields by poker category index (poker.CATEGORIES order, weakest first).
CATEGORY_FIELDS = ("high_card", "one_pair", "two_pair", "three_of_a_kind", "straight", "flush",
                   "full_house", "four_of_a_kind", "straight_flush", "royal_flush")
DUMMY_SIX = np.array([0, 5, 10, 15, 48, 22], dtype=np.int8)  # any six distinct cards


def ratio_table(table: dict[str, int]) -> np.ndarray:
    """Ratios "to 1" indexed by poker category."""
    return np.array([int(table[f]) for f in CATEGORY_FIELDS], dtype=np.int64)


def war_settle(player_first: np.ndarray, dealer_first: np.ndarray, bet: np.ndarray,
               tie_push: np.ndarray) -> np.ndarray:
    """Art. 1 a.1: the higher first card wins 1:1 (ranks by Art. 3, Ace high); a tie is a push
    or costs half the bet by the profile's war_tie."""
    bet = bet.astype(np.int64) * SCALE
    pr, dr = player_first >> 2, dealer_first >> 2
    tie = np.where(tie_push, 0, -bet // 2)
    return np.where(pr > dr, bet, np.where(pr < dr, -bet, tie))


def bj_count(hits: np.ndarray, doubles: np.ndarray) -> np.ndarray:
    """Cards in a player's Black Jack hand: the first two plus one per hit or double."""
    return (2 + hits + doubles).astype(np.int16)


def bj_settle(*, cards, count, dealer, dealer_count, bet, double, bj_pays, charlie, of_round=None):
    """(expected net céntimos × SCALE, bj.Outcome) of each Black Jack bet, by the Pot Luck
    settlement (bj.settle_main). A six-card hand of 21 or less wins 1:1 where the profile
    posts six_card_charlie, unless the dealer has Black Jack. ``dealer`` and
    ``dealer_count`` are of each round, ``of_round`` the round of each hand (None: they are
    of each hand): the dealer's hand is valued once per round."""
    total = bj.totals(cards, count)[0]
    natural = (count == 2) & (total == 21)
    dtotal = bj.totals(dealer, dealer_count)[0]
    dnatural = (bj.totals(dealer[:, :2])[0] == 21) & (dealer_count >= 2)
    if of_round is not None:
        dtotal, dnatural = dtotal[of_round], dnatural[of_round]
    zero = np.zeros(len(bet), dtype=bool)
    net, outcome = bj.settle_main(player_total=total, player_natural=natural, dealer_total=dtotal,
                                  dealer_natural=dnatural, bet=bet, double=double, surrendered=zero,
                                  even_money=zero, original_hand=~zero, bj_pays=bj_pays)
    auto = charlie & (count == 6) & (total <= 21) & ~dnatural
    stake = (bet.astype(np.int64) + double.astype(np.int64)) * SCALE
    net = np.where(auto, stake, net)
    outcome = np.where(auto, bj.Outcome.WIN, outcome).astype(np.int8)
    return net, outcome


def evaluate_six(cards: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(category, rank) of the best five of each row's six cards; rows not ``ok`` get a
    placeholder hand (their result is never used)."""
    six = np.array(cards[:, :6], dtype=np.int8)  # a copy: the placeholders go in it
    six[~ok] = DUMMY_SIX
    return poker.evaluate_matrix(six)


def dealer_qualifies(cards: np.ndarray, category: np.ndarray) -> np.ndarray:
    """[PERU] Póker Caribeño Art. 12: the dealer plays with A-K or better: any pair or more,
    or a high-card hand holding an Ace and a King (with six cards of six different ranks the
    Ace and the King are always among the best five)."""
    ranks = cards[:, :6] >> 2
    ace = any_per_row(ranks == 12)
    king = any_per_row(ranks == 11)
    return (category > poker.HIGH_CARD) | (ace & king)


def poker_settle(*, category, rank, pair, dealer_rank, dealer_ok, bet, caribbean, carib_ratio,
                 pay_ratio, min_pair):
    """Expected net of each Póker bet (céntimos × SCALE); ``carib_ratio`` and ``pay_ratio``
    are the ratios the hand's profile posts for the hand's category (``ratio_table``).

    caribbean mode: a dealer who does not qualify pays the bet 1:1; a qualifying dealer
    beaten pays the posted ratio of the player's hand; a higher dealer takes the bet; equal
    hands push. paytable mode: the player's hand alone is paid at the posted ratio (a pair
    only from ``min_pair`` up); a hand that pays nothing loses the bet."""
    bet = bet.astype(np.int64) * SCALE
    carib = np.where(~dealer_ok, bet,
                     np.where(rank > dealer_rank, bet * carib_ratio, np.where(rank < dealer_rank, -bet, 0)))
    pr = np.where((category == poker.ONE_PAIR) & (pair < min_pair), 0, pay_ratio)
    table = np.where(pr > 0, bet * pr, -bet)
    return np.where(caribbean, carib, table)


def table_settle(bet: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """A bet paid from a posted table on the hand alone (the bonus): ``ratio`` (posted for
    the hand's category) × bet, or lost when it is 0 (céntimos × SCALE)."""
    bet = bet.astype(np.int64) * SCALE
    return np.where(ratio > 0, bet * ratio, -bet)
