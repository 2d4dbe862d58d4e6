"""Property-based tests (hypothesis) of card parsing, Black Jack arithmetic and settlement,
and of the money parser."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.cards import RANKS, SUITS, format_cards, parse_cards
from auditor.games.blackjack import SCALE, Outcome, hand_value, settle_main, totals
from auditor.money import parse_money

CARD = st.integers(min_value=0, max_value=51)
SPELLINGS = {"T": ["T", "t", "10"], "S": ["S", "s", "♠"], "H": ["H", "h", "♥"], "D": ["D", "d", "♦"], "C": ["C", "c", "♣"]}
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.lists(CARD, min_size=0, max_size=8), st.data())
def test_cards_round_trip_in_any_spelling(cards, data):
    """Any accepted spelling of a list of cards parses back to the same cards."""
    words = []
    for c in cards:
        rank, suit = RANKS[c >> 2], SUITS[c & 3]
        rank = data.draw(st.sampled_from(SPELLINGS.get(rank, [rank, rank.lower()])))
        suit = data.draw(st.sampled_from(SPELLINGS[suit]))
        words.append(rank + suit)
    text = data.draw(st.sampled_from([" ", "  ", ", "])).join(words)
    m = parse_cards([text], 8)
    assert not m.bad[0]
    assert m.count[0] == len(cards)
    assert list(m.cards[0][: len(cards)]) == cards
    assert format_cards(m.cards[0]) == " ".join(RANKS[c >> 2] + SUITS[c & 3] for c in cards)


@FAST
@given(st.text(max_size=30))
def test_card_parser_never_raises_and_flags_what_is_not_a_card_list(text):
    m = parse_cards([text], 6)
    assert m.cards.shape == (1, 6)
    if m.bad[0]:
        assert m.count[0] == 0 and (m.cards[0] == -1).all()
    else:
        assert 0 <= m.count[0] <= 6
        assert ((m.cards[0][: m.count[0]] >= 0) & (m.cards[0][: m.count[0]] < 52)).all()


def _drawn_hand(cards: list[int]) -> list[int]:
    """The first two cards, then draws while the total is below 21 (a hand as dealt)."""
    hand = cards[:2]
    for c in cards[2:]:
        if hand_value(hand)[0] >= 21:
            break
        hand.append(c)
    return hand


@FAST
@given(st.lists(CARD, min_size=2, max_size=10))
def test_black_jack_totals(cards):
    hand = _drawn_hand(cards)
    total, soft = hand_value(hand)
    assert 2 <= total <= 31
    if soft:
        assert total <= 21
    # The vectorised totals agree with the scalar one.
    matrix = np.full((1, 12), -1, np.int8)
    matrix[0, : len(hand)] = hand
    vt, vs = totals(matrix, np.array([len(hand)]))
    assert (int(vt[0]), bool(vs[0])) == (total, soft)


MONEY = st.integers(min_value=0, max_value=1_000_000)


@FAST
@given(st.lists(st.tuples(st.lists(CARD, min_size=2, max_size=6), st.lists(CARD, min_size=2, max_size=6),
                          MONEY, st.booleans(), st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=30))
def test_settlement_bounds(hands):
    rows = []
    for player, dealer, bet, doubled, surrendered, even_money, original in hands:
        p, d = _drawn_hand(player), _drawn_hand(dealer)
        rows.append((hand_value(p)[0], len(p) == 2 and hand_value(p)[0] == 21 and original,
                     hand_value(d)[0], len(d) == 2 and hand_value(d)[0] == 21,
                     bet, bet if doubled else 0, surrendered, even_money, original))
    cols = list(zip(*rows))
    pt, pn, dt, dn = (np.array(c) for c in cols[:4])
    bet, double = np.array(cols[4], np.int64), np.array(cols[5], np.int64)
    surrendered, even_money, original = (np.array(c, bool) for c in cols[6:])
    net, outcome = settle_main(player_total=pt, player_natural=pn, dealer_total=dt, dealer_natural=dn, bet=bet,
                               double=double, surrendered=surrendered, even_money=even_money, original_hand=original)
    stake = (bet + double) * SCALE
    # A player never loses more than the stake nor wins more than 3:2 on the bet or 1:1 on the stake.
    assert (net >= -stake).all()
    assert (net <= np.maximum(bet * SCALE * 3 // 2, stake)).all()
    pushes = np.isin(outcome, [Outcome.PUSH, Outcome.BLACKJACK_PUSH])
    assert (net[pushes] == 0).all()
    surrender = outcome == Outcome.SURRENDER
    assert (net[surrender] == -(bet[surrender] * SCALE // 2)).all()
    busted = outcome == Outcome.BUST
    assert (pt[busted] > 21).all() and (net[busted] == -stake[busted]).all()
    wins = outcome == Outcome.WIN
    assert (net[wins] == stake[wins]).all()


@FAST
@given(st.integers(min_value=-10**13 + 1, max_value=10**13 - 1), st.sampled_from([".", ","]), st.booleans())
def test_money_parses_to_exact_cents(cents, mark, pad):
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    text = f"{sign}{whole}{mark}{frac:02d}" if pad or frac else f"{sign}{whole}"
    value, bad = parse_money(pa.array([text, "12,50", ""], pa.large_string()), signed=True)
    assert not bad.any()
    assert list(value) == [cents, 1250, 0]
    if cents < 0:
        _, unsigned_bad = parse_money([text])
        assert unsigned_bad[0]


@FAST
@given(st.text(max_size=20))
def test_money_never_raises(text):
    value, bad = parse_money([text], signed=True)
    assert value.dtype == np.int64 and len(bad) == 1
