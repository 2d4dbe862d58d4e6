"""Let It Ride arithmetic shared by the audit and the simulator.

The final hand is the player's three cards plus the two community cards (Directiva
Nº 05-99-MITINCI/VMT/DNT, Art. 1 j), ranked with the standard poker combinations (Art. 4).
Art. 4 i names two tens as the lowest "un par": a pair below tens is no paying combination.
Bets still in play are paid at the posted ratio for the hand; losing hands lose them.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from math import comb

import numpy as np

from ..cards import RANKS
from ..compiled import kernel
from ..rowwise import cells
from . import poker

__all__ = ["PAY_CATEGORIES", "DEFAULT_PAYTABLE", "DEFAULT_BONUS", "final_hands", "evaluate", "posted_ratios",
           "pay_ratio", "ratio_table", "pull_strategy", "combo_index"]

# Paying categories of the posted tables, strongest first (names of poker.CATEGORIES).
PAY_CATEGORIES = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
                  "straight", "three_of_a_kind", "two_pair", "one_pair")
# [STANDARD] The universal Let It Ride table (game-rules.md; reference-numbers.md 1c).
DEFAULT_PAYTABLE = {"royal_flush": 1000, "straight_flush": 200, "four_of_a_kind": 50, "full_house": 11,
                    "flush": 8, "straight": 5, "three_of_a_kind": 3, "two_pair": 2, "one_pair": 1}
# [STANDARD] A published "Let It Ride Bonus" side-bet table for a fixed 1-unit stake, paid on
# the final five-card hand: royal 20,000, straight flush 2,000, four 100, full 75, flush 50,
# straight 25, trips 9, two pair 6, nothing for a pair.
DEFAULT_BONUS = {"royal_flush": 20000, "straight_flush": 2000, "four_of_a_kind": 100, "full_house": 75,
                 "flush": 50, "straight": 25, "three_of_a_kind": 9, "two_pair": 6, "one_pair": 0}

# A placeholder for malformed hands: 2S 4H 6D 8C TS, a high card that pays nothing, so a
# malformed hand adds no winnings to its round (nor can it make the round look capped).
_DUMMY = np.array([0, 9, 18, 27, 32], dtype=np.int8)


def final_hands(player: np.ndarray, community: np.ndarray, ok: np.ndarray | None = None,
                rid: np.ndarray | None = None) -> np.ndarray:
    """(N, 5) final hands: three player cards then two community cards (``community`` per
    row, or per round with ``rid`` the round of each row). A malformed hand (not ``ok``, or
    missing a card) gets a placeholder hand, so that the evaluator can run on every row."""
    if rid is None:
        rid = np.arange(len(player))
    if ok is None:
        ok = np.ones(len(player), bool)
    return _final_hands(player, community, rid, ok, _DUMMY)


@kernel
def _final_hands(player, community, rid, ok, dummy):
    hands = np.empty((len(player), 5), np.int8)
    for i in range(len(player)):
        whole = ok[i]
        for k in range(5):
            if k < 3:
                card = player[i, k] if k < player.shape[1] else -1
            else:
                card = community[rid[i], k - 3] if k - 3 < community.shape[1] else -1
            hands[i, k] = card
            whole = whole and card >= 0
        if not whole:
            hands[i, :] = dummy
    return hands


def evaluate(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(category, pair rank) of every five-card hand; pair rank is the rank index 0..12 of
    the pair of a one_pair hand, -1 otherwise."""
    category, rank = poker.evaluate_matrix(hands)
    return category, poker.pair_rank(category, rank)


def ratio_table(table: dict[str, int]) -> np.ndarray:
    """Ratios indexed by poker category (high card and non-paying categories 0)."""
    out = np.zeros(len(poker.CATEGORIES), dtype=np.int64)
    for name in PAY_CATEGORIES:
        out[poker.CATEGORIES.index(name)] = int(table.get(name, 0))
    return out


def pay_ratio(category: np.ndarray, pair: np.ndarray, ratios: np.ndarray, min_pair: np.ndarray,
              which: np.ndarray | None = None) -> np.ndarray:
    """Ratio paid per unit bet, or -1 where the hand loses: no posted ratio for it, or a
    pair below the minimum (``min_pair``: rank index per row). ``ratios``: indexed by
    category, one table for every row, or one per pay table (P, 10) with ``which`` the table
    of each row."""
    r = ratios[category] if which is None else cells(ratios, which, category)
    short_pair = (category == poker.ONE_PAIR) & (pair < min_pair)
    return np.where((r > 0) & ~short_pair, r, -1)


def posted_ratios(category: np.ndarray, pair: np.ndarray, profiles, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ratio of the base bets, ratio of the bonus bet) of each hand, by the pay tables of the
    profile ``which`` names for it (see ``pay_ratio``): the audit's and the simulator's one
    reading of a profile."""
    pay = np.stack([ratio_table(p.paytable.model_dump()) for p in profiles])
    bonus = np.stack([ratio_table(p.bonus.model_dump()) for p in profiles])
    min_pair = np.array([RANKS.index(p.min_pair) for p in profiles])
    return (pay_ratio(category, pair, pay, min_pair[which], which),
            pay_ratio(category, pair, bonus, np.zeros(len(which), np.int64), which))


def min_pair_index(letter: str) -> int:
    return RANKS.index(letter)


# --- optimal pulling strategy (simulator) ------------------------------------------------

def combo_index(sorted_cards: np.ndarray) -> np.ndarray:
    """Combinatorial-number-system index of rows of ascending distinct cards."""
    k = sorted_cards.shape[1]
    binom = np.array([[comb(n, j) for n in range(52)] for j in range(k + 1)], dtype=np.int64)
    out = np.zeros(len(sorted_cards), dtype=np.int64)
    for j in range(k):
        out += binom[j + 1][sorted_cards[:, j].astype(np.int64)]
    return out


@cache
def pull_strategy(paytable: tuple[tuple[str, int], ...], min_pair: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact optimal decisions for a pay table: (ride1 over 3-card combo indices, ride2 over
    4-card combo indices). A bet rides when its expectation over every completion is > 0
    (computed in integers; at exactly 0 the bet is taken back)."""
    ratios = ratio_table(dict(paytable))
    four = np.array(list(combinations(range(52), 4)), dtype=np.int8)
    present = np.zeros((len(four), 52), bool)
    np.put_along_axis(present, four.astype(np.int64), True, axis=1)
    rest = np.nonzero(~present)[1].reshape(len(four), 48).astype(np.int8)
    sums = np.zeros(len(four), dtype=np.int64)
    step = 20_000
    for lo in range(0, len(four), step):
        hi = min(lo + step, len(four))
        n = hi - lo
        hands = np.concatenate([np.repeat(four[lo:hi], 48, axis=0), rest[lo:hi].reshape(-1, 1)], axis=1)
        cat, pair = evaluate(hands)
        sums[lo:hi] = pay_ratio(cat, pair, ratios, np.full(len(cat), min_pair)).reshape(n, 48).sum(axis=1)
    by_index = np.empty_like(sums)
    by_index[combo_index(four)] = sums
    three = np.array(list(combinations(range(52), 3)), dtype=np.int8)
    present = np.zeros((len(three), 52), bool)
    np.put_along_axis(present, three.astype(np.int64), True, axis=1)
    rest3 = np.nonzero(~present)[1].reshape(len(three), 49).astype(np.int8)
    ext = np.concatenate([np.repeat(three, 49, axis=0), rest3.reshape(-1, 1)], axis=1)
    ext.sort(axis=1)
    sums3 = by_index[combo_index(ext)].reshape(len(three), 49).sum(axis=1)
    ride1 = np.empty(len(three), bool)
    ride1[combo_index(three)] = sums3 > 0
    return ride1, by_index > 0


# --- settlement ------------------------------------------------------------------------

# Where a bet was taken back (the log's ``pulled_1`` and ``pulled_2``, as indices into
# ``logs.schema.PULL_VALUES``: not pulled, after the player's cards, after the first
# community card, after the second).
NOT_PULLED, PULL_CARDS, PULL_FIRST, PULL_SECOND = range(4)


def in_play(pulled_1: np.ndarray, pulled_2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bet 1, bet 2) still in play. A bet is out only where it was taken back when that is
    allowed [STANDARD]: bet 1 after the player's three cards, bet 2 before the second community
    card. A withdrawal at another moment is void and the bet stays: what it is due is known,
    since no decision of the player changes the five cards of the final hand."""
    return pulled_1 != PULL_CARDS, (pulled_2 != PULL_CARDS) & (pulled_2 != PULL_FIRST)


def dues(ratio: np.ndarray, bonus_ratio: np.ndarray, bet_1, bet_2, bet_dollar, bonus_bet):
    """What each bet is due, in céntimos: ``bet × ratio`` for a paying hand, ``-bet`` for a
    losing one (``ratio`` is -1). (Whether a round's winnings exceed the posted payment
    limit is the audit's ``checks.base.capped_rounds``.)"""
    due_1 = bet_1.astype(np.int64) * ratio
    due_2 = bet_2.astype(np.int64) * ratio
    due_d = bet_dollar.astype(np.int64) * ratio
    due_b = bonus_bet.astype(np.int64) * np.where(bonus_ratio > 0, bonus_ratio, -1)
    return due_1, due_2, due_d, due_b
