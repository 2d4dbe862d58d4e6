"""Black Jack arithmetic against exact references (reference-numbers.md section 4)."""

from functools import cache

import numpy as np
import pytest

from auditor.cards import parse_cards
from auditor.games import blackjack as bj

# Infinite deck, pre-peek, dealer stands on all 17s: (17, 18, 19, 20, 21, BJ, bust).
REFERENCE = {
    2: (0.139809, 0.134907, 0.129655, 0.124026, 0.117993, 0.0, 0.353608),
    6: (0.165438, 0.106267, 0.106267, 0.101715, 0.097163, 0.0, 0.423150),
    7: (0.368566, 0.137797, 0.078625, 0.078625, 0.074074, 0.0, 0.262312),
    10: (0.111424, 0.111424, 0.111424, 0.342194, 0.034501, 0.076923, 0.212109),
    11: (0.130789, 0.130789, 0.130789, 0.130789, 0.053866, 0.307692, 0.115286),
}
# One card of each rank 2..A (suit spades), each 1/13 as in an infinite deck.
RANK_CARDS = [r * 4 for r in range(13)]
P = {c: 1 / 13 for c in RANK_CARDS}


@cache
def _final(cards: tuple[int, ...]) -> dict:
    """Exact distribution of the dealer's final result from ``cards`` (the shared rule)."""
    if not bj.dealer_must_hit(list(cards)):
        total, _ = bj.hand_value(list(cards))
        key = "BJ" if len(cards) == 2 and total == 21 else ("bust" if total > 21 else total)
        return {key: 1.0}
    out: dict = {}
    for c, p in P.items():
        for k, v in _final(tuple(sorted(cards + (c,)))).items():
            out[k] = out.get(k, 0.0) + p * v
    return out


@pytest.mark.parametrize("up_value", sorted(REFERENCE))
def test_dealer_outcomes_match_published_table(up_value):
    rank = {11: 12, 10: 8}.get(up_value, up_value - 2)
    dist: dict = {}
    for hole, p in P.items():
        for k, v in _final(tuple(sorted((rank * 4, hole)))).items():
            dist[k] = dist.get(k, 0.0) + p * v
    got = [dist.get(k, 0.0) for k in (17, 18, 19, 20, 21, "BJ", "bust")]
    assert got == pytest.approx(REFERENCE[up_value], abs=1e-6)


def test_totals_soft_and_hard():
    m = parse_cards(["AS 6D", "AS 6D TC", "AS AH 9C", "KS QD", "AS KD"], 4)
    total, soft = bj.totals(m.cards)
    assert total.tolist() == [17, 17, 21, 20, 21]
    assert soft.tolist() == [True, False, True, False, True]


def test_dealer_play_faults_soft_17_stands():
    m = parse_cards(["AH 6C", "AH 6C 2D", "TH 6C", "TH 6C 5D", "TH 7C 2D"], 5)
    drew, stood = bj.dealer_play_faults(m.cards, m.count)
    assert drew.tolist() == [False, True, False, False, True]
    assert stood.tolist() == [False, False, True, False, False]


def test_settlement_orders_the_rules():
    n = 7
    z = np.zeros(n, bool)
    net, outcome = bj.settle_main(
        player_total=np.array([20, 21, 22, 18, 18, 21, 12]),
        player_natural=np.array([0, 1, 0, 0, 0, 1, 0], bool),
        dealer_total=np.array([19, 20, 21, 18, 21, 21, 21]),
        dealer_natural=np.array([0, 0, 0, 0, 1, 1, 1], bool),
        bet=np.full(n, 1000), double=np.array([0, 0, 1000, 0, 1000, 0, 0]),
        surrendered=z, even_money=z, original_hand=np.array([1, 1, 1, 1, 1, 1, 0], bool))
    assert (net // bj.SCALE).tolist() == [1000, 1500, -2000, 0, -1000, 0, 0]
    assert outcome.tolist() == [bj.Outcome.WIN, bj.Outcome.BLACKJACK, bj.Outcome.BUST, bj.Outcome.PUSH,
                                bj.Outcome.DEALER_BLACKJACK, bj.Outcome.BLACKJACK_PUSH,
                                bj.Outcome.DEALER_BLACKJACK]


def _random_hands(seed: int, lowest_count: int) -> tuple[np.ndarray, np.ndarray]:
    """20,000 random hands of up to seven cards (-1 pads), and a count of cards for each: the
    cards held, or one in five times any from ``lowest_count`` to two past the width."""
    rng = np.random.default_rng(seed)
    n, width = 20_000, 7
    cards = rng.integers(0, 52, (n, width)).astype(np.int8)
    held = rng.integers(0, width + 1, n)
    cards[np.arange(width)[None, :] >= held[:, None]] = -1
    return cards, np.where(rng.random(n) < 0.8, held, rng.integers(lowest_count, width + 2, n))


@pytest.mark.parametrize("hit_soft_17", [False, True])
def test_dealer_play_faults_agree_with_the_dealers_rule_hand_by_hand(hit_soft_17):
    """The compiled dealer-play check against the simulators' rule (``dealer_must_hit``),
    applied card by card to 20,000 random dealer hands, short, long, padded or not, and
    counts that say fewer or more cards than the hand holds."""
    cards, count = _random_hands(7, lowest_count=0)
    n, width = cards.shape
    drew, stood = bj.dealer_play_faults(cards, count, hit_soft_17=hit_soft_17)
    for i in range(n):
        hand, dealt = cards[i].tolist(), int(count[i])
        must_hit = [bj.dealer_must_hit(hand[:j + 1], hit_soft_17=hit_soft_17) for j in range(width)]
        final = min(max(dealt - 1, 0), width - 1)
        assert drew[i] == any(not must_hit[j] for j in range(1, min(dealt - 1, width)))
        assert stood[i] == (dealt >= 2 and must_hit[final] and bj.hand_value(hand[:final + 1])[0] <= 21)


def test_drew_on_21_agrees_with_the_hand_value_card_by_card():
    """A card dealt on a best total of 21 or more, from the third card on and among the
    hand's first ``count``: against ``hand_value`` of each prefix of 20,000 random hands."""
    cards, count = _random_hands(8, lowest_count=-1)
    n, width = cards.shape
    drew = bj.drew_on_21(cards, count)
    for i in range(n):
        hand = cards[i].tolist()
        assert drew[i] == any(bj.hand_value(hand[:j])[0] >= 21 for j in range(2, min(int(count[i]), width)))
