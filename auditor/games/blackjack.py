"""Black Jack arithmetic, shared by the Pot Luck and Triple Shot audits and the simulators.

Everything here works on whole card matrices at once (rows are hands, columns are cards in
dealt order, -1 pads). The scalar helpers at the end are for the simulators, which play one
hand at a time, and use the same tables so that the game is defined once.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from ..compiled import kernel

__all__ = [
    "Outcome",
    "SCALE",
    "card_values",
    "drew_on_21",
    "totals",
    "is_ten_value",
    "dealer_play_faults",
    "settle_main",
    "insurance_expected",
    "hand_value",
    "dealer_must_hit",
]

# Black Jack value of each rank index (2..9, T J Q K = 10, A = 1; the soft Ace is added
# by the total functions). Index 13 is the padding slot (-1 maps to it).
_VALUE_BY_RANK = np.array([2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1, 0], dtype=np.int8)
ACE_RANK = 12
# The same values by card code read as a byte: 0..51 are cards, the padding -1 reads as 255.
_VALUE_BY_BYTE = np.zeros(256, dtype=np.int8)
_VALUE_BY_BYTE[:52] = np.repeat(_VALUE_BY_RANK[:13], 4)

# Expected payouts are kept in tenths of a céntimo so that 3:2, 6:5 and half a bet stay
# exact integers; a log amount matches when it is within one céntimo of the exact value
# (the casino may round a fraction of a céntimo either way).
SCALE = 10


class Outcome(IntEnum):
    """How a hand's main bet must be settled (what a finding reports as the criterion)."""

    SURRENDER = 0
    EVEN_MONEY = 1
    BUST = 2
    BLACKJACK = 3
    BLACKJACK_PUSH = 4
    DEALER_BLACKJACK = 5
    WIN = 6
    PUSH = 7
    LOSE = 8


def card_values(cards: np.ndarray) -> np.ndarray:
    """Black Jack values (Ace = 1) of a card matrix; padding is 0."""
    return _VALUE_BY_BYTE.take(np.asarray(cards).astype(np.int8, copy=False).view(np.uint8))


def drew_on_21(cards: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Hands dealt a card, among their first ``count``, on a best total of 21 or more (a
    bust included): card j, from the third on, drawn on the total of the cards before it.

    An Ace counts 11 when that keeps the total at 21 or less (a "soft" total); at most one
    Ace can ever count 11.
    """
    return _drew_on_21(_int8(cards), np.asarray(count, np.int64), _VALUE_BY_BYTE)


def totals(cards: np.ndarray, count: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(best total, soft) of every hand, using its first ``count`` cards (all when None)."""
    cards = _int8(cards)
    dealt = np.full(len(cards), cards.shape[1], np.int64) if count is None else np.asarray(count, np.int64)
    return _totals(cards, dealt, _VALUE_BY_BYTE)


def _int8(cards: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(cards).astype(np.int8, copy=False))


# A hand at a time, its cards once (numpy would sweep the whole matrix a dozen times; the
# totals after each card as a matrix, then a pass per column, took four times longer).
@kernel
def _drew_on_21(cards, count, values):
    out = np.zeros(cards.shape[0], np.bool_)
    for i in range(cards.shape[0]):
        hard, ace = 0, False
        for j in range(min(count[i], cards.shape[1])):
            if j >= 2 and (hard + 10 if ace and hard + 10 <= 21 else hard) >= 21:
                out[i] = True
                break
            hard += values[np.uint8(cards[i, j])]
            ace |= cards[i, j] >> 2 == ACE_RANK
    return out


@kernel
def _totals(cards, dealt, values):
    best, soft = np.empty(cards.shape[0], np.int16), np.zeros(cards.shape[0], np.bool_)
    for i in range(cards.shape[0]):
        hard, ace = 0, False
        for j in range(min(max(dealt[i], 0), cards.shape[1])):
            hard += values[np.uint8(cards[i, j])]
            ace |= cards[i, j] >> 2 == ACE_RANK
        soft[i] = ace and hard + 10 <= 21
        best[i] = hard + 10 if soft[i] else hard
    return best, soft


def is_ten_value(cards: np.ndarray) -> np.ndarray:
    """10, J, Q, K (the cards that make insurance win, Art. 10)."""
    return (cards >= 0) & (card_values(cards) == 10)


def dealer_play_faults(dealer: np.ndarray, count: np.ndarray, *, stand_on: int = 17,
                       hit_soft_17: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(drew_when_standing, stood_when_hitting) for each dealer hand of ``count`` cards (the
    cards after them are not read).

    A dealer must draw while the total is below ``stand_on`` and stand from it on, soft
    totals included unless ``hit_soft_17`` (Pot Luck Art. 14: "17 o más puntos ... se
    plantará"): a card drawn on a total the dealer stands on, or a hand of two cards or more
    ended on a total of 21 or less it draws on, is a fault.
    """
    return _dealer_play(_int8(dealer), np.asarray(count, np.int64), _VALUE_BY_BYTE, stand_on, hit_soft_17)


# A hand at a time, its cards once: the dozen numpy passes over the narrow matrix took ten
# times longer (3.6 ms for a chunk's 98,000 dealer hands).
@kernel
def _dealer_play(cards, count, values, stand_on, hit_soft_17):
    n, width = cards.shape
    drew, stood = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    for i in range(n):
        dealt = count[i]
        final = min(max(dealt - 1, 0), width - 1)
        hard, ace = 0, False
        for j in range(final + 1):  # (the total before drawing card j+1)
            hard += values[np.uint8(cards[i, j])]
            ace |= cards[i, j] >> 2 == ACE_RANK
            best = hard + 10 if ace and hard + 10 <= 21 else hard
            must_hit = best < stand_on or (hit_soft_17 and ace and best == 17 and hard + 10 == 17)
            if 1 <= j <= dealt - 2 and not must_hit:
                drew[i] = True
            if j == final:
                stood[i] = must_hit and best <= 21 and dealt >= 2
    return drew, stood


def lawful_choices(*, surrendered, surrender_void, even_money, even_money_void, dealer_natural,
                   player_natural) -> tuple[np.ndarray, np.ndarray]:
    """(surrendered, even money) as the hand is to be settled. A surrender or even money
    the reglamento does not allow (Arts. 9 and 13) is void, and the hand is due what it
    would have been due without it where that is known whatever its play would have been:
    a surrendered hand against a dealer Black Jack (which takes the original bet of every
    hand, Art. 13), a player Black Jack surrendered or taken even money on (a push against a
    dealer Black Jack, else 3 to 2). Elsewhere the hand's play stopped, what it was due is
    unknown, and it is judged as settled by the choice it made (the choice is its own finding)."""
    return (surrendered & ~(surrender_void & (dealer_natural | player_natural)),
            even_money & ~(even_money_void & player_natural))


def settle_main(*, player_total, player_natural, dealer_total, dealer_natural, bet, double,
                surrendered, even_money, original_hand, bj_pays=(3, 2)):
    """Expected net result of each hand's main bet (plus its double), in céntimos × SCALE,
    and the Outcome that decided it.

    The order of the tests is the order of the rules: a surrender (Art. 9) or even money
    (Art. 13) ends the hand before anything else; a busted hand loses at once (Art. 14); a
    dealer Black Jack takes only the original bet of each player (Art. 13), so split hands
    and doubles are returned, and pushes a player Black Jack; otherwise a Black Jack pays
    ``bj_pays`` and totals are compared (Arts. 15-17).
    """
    n = len(bet)
    num, den = (np.broadcast_to(np.asarray(v, np.int64), n) for v in bj_pays)  # per hand, or one for all
    arrays = [np.asarray(a) for a in (player_total, player_natural, dealer_total, dealer_natural, bet, double,
                                      surrendered, even_money, original_hand)]
    return _settle_main(*[np.broadcast_to(a, n) for a in arrays], num, den)


@kernel
def _settle_main(player_total, player_natural, dealer_total, dealer_natural, bet, double, surrendered,
                 even_money, original_hand, num, den):
    net, outcome = np.empty(len(bet), np.int64), np.empty(len(bet), np.int8)
    for i in range(len(bet)):
        stake, main = (np.int64(bet[i]) + np.int64(double[i])) * SCALE, np.int64(bet[i]) * SCALE
        if surrendered[i]:
            outcome[i], net[i] = Outcome.SURRENDER, -main // 2
        elif even_money[i]:
            outcome[i], net[i] = Outcome.EVEN_MONEY, main
        elif dealer_natural[i] and player_natural[i]:
            outcome[i], net[i] = Outcome.BLACKJACK_PUSH, 0
        elif dealer_natural[i]:
            outcome[i], net[i] = Outcome.DEALER_BLACKJACK, -main if original_hand[i] else 0
        elif player_total[i] > 21:
            outcome[i], net[i] = Outcome.BUST, -stake
        elif player_natural[i]:
            outcome[i], net[i] = Outcome.BLACKJACK, main * num[i] // den[i]
        elif dealer_total[i] > 21 or player_total[i] > dealer_total[i]:
            outcome[i], net[i] = Outcome.WIN, stake
        elif player_total[i] == dealer_total[i]:
            outcome[i], net[i] = Outcome.PUSH, 0
        else:
            outcome[i], net[i] = Outcome.LOSE, -stake
    return net, outcome


def insurance_expected(insurance: np.ndarray, hole_is_ten: np.ndarray) -> np.ndarray:
    """Art. 10: insurance pays 2:1 when the hole card is a ten-value card, else it is lost
    (céntimos × SCALE)."""
    insurance = insurance.astype(np.int64)
    return np.where(hole_is_ten, 2 * insurance, -insurance) * SCALE


# --- scalar helpers for the simulators -------------------------------------------------

def hand_value(cards: list[int]) -> tuple[int, bool]:
    """(best total, soft) of one hand of card ints."""
    hard = 0
    ace = False
    for c in cards:
        v = _VALUE_BY_RANK[c >> 2]
        hard += v
        ace |= (c >> 2) == ACE_RANK
    if ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def dealer_must_hit(cards: list[int], *, stand_on: int = 17, hit_soft_17: bool = False) -> bool:
    total, soft = hand_value(cards)
    return total < stand_on or (hit_soft_17 and soft and total == 17)
