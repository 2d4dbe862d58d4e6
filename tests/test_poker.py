"""Tests of the vectorised poker evaluator (auditor.games.poker).

Exhaustive enumerations check the category counts every poker text quotes; the independent
evaluator phevaluator is the oracle for the exact ordering of random 5-, 6- and 7-card hands.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from auditor.cards import format_cards, parse_cards
from auditor.games.poker import (
    CATEGORIES,
    category_names,
    category_of_rank,
    evaluate,
    evaluate_matrix,
    pair_rank,
)


def all_combinations(n: int, k: int) -> np.ndarray:
    """Every k-subset of range(n) in lexicographic order, as an int8 (C(n,k), k) matrix.

    Built column by column: each partial combination is extended by every larger value
    that still leaves room for the remaining columns.
    """
    combos = np.arange(n - k + 1, dtype=np.int8)[:, None]
    for j in range(1, k):
        last = combos[:, -1].astype(np.int64)
        counts = (n - k + j) - last                      # values last+1 .. n-k+j
        total = int(counts.sum())
        starts = np.cumsum(counts) - counts
        parent = np.repeat(np.arange(len(combos)), counts)
        offset = np.arange(total) - np.repeat(starts, counts)
        new = (last[parent] + 1 + offset).astype(np.int8)
        combos = np.column_stack([combos[parent], new])
    return combos


def random_hands(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n hands of k distinct cards each (int8)."""
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.int8)


def counts_by_name(category: np.ndarray) -> dict[str, int]:
    return dict(zip(CATEGORIES, np.bincount(category, minlength=len(CATEGORIES)).tolist()))


# --------------------------------------------------------------------------------------
# Exhaustive enumerations
# --------------------------------------------------------------------------------------
def test_combination_generator():
    from itertools import combinations

    expected = np.array(list(combinations(range(9), 4)), dtype=np.int8)
    np.testing.assert_array_equal(all_combinations(9, 4), expected)


def test_all_five_card_hands():
    hands = all_combinations(52, 5)
    assert hands.shape == (2_598_960, 5)
    category, rank = evaluate_matrix(hands)
    assert category.dtype == np.int8 and rank.dtype == np.int64
    assert counts_by_name(category) == {
        "high_card": 1_302_540,
        "one_pair": 1_098_240,
        "two_pair": 123_552,
        "three_of_a_kind": 54_912,
        "straight": 10_200,
        "flush": 5_108,
        "full_house": 3_744,
        "four_of_a_kind": 624,
        "straight_flush": 36,
        "royal_flush": 4,
    }
    assert len(np.unique(rank)) == 7_462
    # The category follows from the rank's order: sorted by rank, categories never go down.
    order = np.argsort(rank, kind="stable")
    assert np.all(np.diff(category[order]) >= 0)
    np.testing.assert_array_equal(category_of_rank(rank), category)


@pytest.mark.slow
def test_all_six_card_hands():
    hands = all_combinations(52, 6)
    assert hands.shape == (20_358_520, 6)
    category = np.empty(len(hands), dtype=np.int8)
    rank = np.empty(len(hands), dtype=np.int64)
    step = 2_000_000  # bounded temporaries (evaluate_matrix also works in blocks)
    for lo in range(0, len(hands), step):
        category[lo:lo + step], rank[lo:lo + step] = evaluate_matrix(hands[lo:lo + step])
    assert counts_by_name(category) == {
        "high_card": 6_612_900,
        "one_pair": 9_730_740,
        "two_pair": 2_532_816,
        "three_of_a_kind": 732_160,
        "straight": 361_620,
        "flush": 205_792,
        "full_house": 165_984,
        "four_of_a_kind": 14_664,
        "straight_flush": 1_656,
        "royal_flush": 188,
    }
    assert len(np.unique(rank)) == 6_075


# --------------------------------------------------------------------------------------
# Oracle: phevaluator (independent implementation; lower value is stronger there)
# --------------------------------------------------------------------------------------
# phevaluator's value ranges per category, strongest first: 1 is the royal flush, 2..10
# the other straight flushes, and so on down to 7462 (7-5-4-3-2 offsuit).
_PH_UPPER = [(1, "royal_flush"), (10, "straight_flush"), (166, "four_of_a_kind"),
             (322, "full_house"), (1599, "flush"), (1609, "straight"),
             (2467, "three_of_a_kind"), (3325, "two_pair"), (6185, "one_pair"),
             (7462, "high_card")]


def ph_category(values: np.ndarray) -> np.ndarray:
    bounds = np.array([b for b, _ in _PH_UPPER])
    names = np.array([c for _, c in _PH_UPPER], dtype=object)
    return names[np.searchsorted(bounds, values)]


def ph_strings(row) -> list[str]:
    """Our canonical "AS" spelling in phevaluator's ("As", lowercase suit letter)."""
    return [card[0] + card[1].lower() for card in format_cards(row).split()]


def test_phevaluator_encoding_assumptions():
    from phevaluator import evaluate_cards

    # Its integer encoding is rank*4 + suit with suits c, d, h, s: ours S H D C reversed.
    rng = np.random.default_rng(7)
    for row in random_hands(rng, 200, 7):
        via_strings = evaluate_cards(*ph_strings(row))
        via_ints = evaluate_cards(*[int(c >> 2) * 4 + 3 - int(c & 3) for c in row])
        assert via_strings == via_ints
    assert evaluate_cards("As", "Ks", "Qs", "Js", "Ts") == 1
    assert evaluate_cards("7c", "5d", "4h", "3s", "2c") == 7462
    assert ph_category(np.array([1, 2, 10, 11, 1600, 1609, 7462])).tolist() == [
        "royal_flush", "straight_flush", "straight_flush", "four_of_a_kind",
        "straight", "straight", "high_card"]


@pytest.mark.parametrize("k", [5, 6, 7])
def test_against_phevaluator(k):
    from phevaluator import evaluate_cards

    rng = np.random.default_rng(20240 + k)
    hands = random_hands(rng, 20_000, k)
    # Salt the sample with the rare categories so that they are compared too.
    rare = all_combinations(52, 5)
    cat5, _ = evaluate_matrix(rare)
    picks = [rng.choice(np.flatnonzero(cat5 == c), 40) for c in range(4, len(CATEGORIES))]
    salted = rare[np.concatenate(picks)]
    if k > 5:
        # Fill the extra cards with random cards not already in the hand.
        extra = np.empty((len(salted), k - 5), dtype=np.int8)
        for i, row in enumerate(salted):
            extra[i] = rng.choice(np.setdiff1d(np.arange(52), row), k - 5, replace=False)
        salted = np.hstack([salted, extra])
    hands = np.vstack([hands, salted])

    category, rank = evaluate_matrix(hands)
    ph = np.array([evaluate_cards(*ph_strings(row)) for row in hands])

    np.testing.assert_array_equal(category_names(category), ph_category(ph))

    # Orders agree: along our ranking, phevaluator's value strictly decreases exactly
    # where our rank increases and is equal exactly where ours ties (by transitivity this
    # covers every pair).
    order = np.argsort(rank, kind="stable")
    ours_step = np.diff(rank[order])
    ph_step = np.diff(ph[order])
    np.testing.assert_array_equal(np.sign(ours_step), -np.sign(ph_step))

    # And literally, on a sample of random pairs: sign(ours_i - ours_j) == sign(ph_j - ph_i).
    i, j = rng.integers(0, len(hands), (2, 200_000))
    np.testing.assert_array_equal(np.sign(rank[i] - rank[j]), np.sign(ph[j] - ph[i]))


def test_string_api_matches_matrix_api():
    rng = np.random.default_rng(3)
    hands = random_hands(rng, 3_000, 7)
    text = [format_cards(row) for row in hands]
    frame = evaluate(text)
    category, rank = evaluate_matrix(hands)
    np.testing.assert_array_equal(frame["rank"].to_numpy(), rank)
    assert frame["category"].tolist() == category_names(category).tolist()


# --------------------------------------------------------------------------------------
# Hand-written cases
# --------------------------------------------------------------------------------------
def ranks(*hands: str) -> list[int]:
    return evaluate(list(hands))["rank"].tolist()


def categories(*hands: str) -> list[str]:
    return evaluate(list(hands))["category"].tolist()


def test_wheel_is_lowest_straight():
    wheel, six_high, broadway = ranks("AS 2D 3H 4C 5S", "2D 3S 4H 5C 6S", "TS JD QH KC AS")
    assert categories("AS 2D 3H 4C 5S") == ["straight"]
    assert wheel < six_high < broadway
    # Ace-high no straight (A K Q J 9) is not a straight and is below the wheel.
    (ace_high,) = ranks("AS KD QH JC 9S")
    assert categories("AS KD QH JC 9S") == ["high_card"] and ace_high < wheel
    # No wrap-around: Q K A 2 3 is not a straight.
    assert categories("QS KD AH 2C 3S") == ["high_card"]


def test_steel_wheel_is_lowest_straight_flush():
    steel, six_high, royal = ranks("AH 2H 3H 4H 5H", "2C 3C 4C 5C 6C", "TD JD QD KD AD")
    assert categories("AH 2H 3H 4H 5H", "TD JD QD KD AD") == ["straight_flush", "royal_flush"]
    assert steel < six_high < royal
    (quads,) = ranks("AS AD AH AC KS")
    assert quads < steel


def test_kickers_and_exact_ties():
    # Same pair, the third kicker decides.
    better, worse = ranks("9S 9D AH KC 7S", "9H 9C AD KS 6S")
    assert better > worse
    # Same ranks in different suits tie exactly; suits never break ties.
    a, b = ranks("9S 9D AH KC 7S", "9H 9C AS KD 7H")
    assert a == b
    a, b = ranks("AS KS 9S 7S 2S", "AH KH 9H 7H 2H")
    assert a == b
    # High card compared rank by rank down to the last card.
    a, b = ranks("AS KD 9H 7C 3S", "AD KH 9C 7S 2S")
    assert a > b



def test_pair_rank_names_the_pair_of_one_pair_hands_only():
    hands = ["9S 9D AH KC 7S", "2H 2C AD KS 6S", "AS AD KH QC 7S", "KS KD 4H 4C AS", "AS KD 9H 7C 3S"]
    m = parse_cards(hands, 5)
    category, rank = evaluate_matrix(m.cards)
    assert pair_rank(category, rank).tolist() == [7, 0, 12, -1, -1]

def test_two_pair_kicker():
    a, b, c = ranks("KS KD 4H 4C AS", "KH KC 4S 4D QS", "KH KC 5S 5D 2S")
    assert a > b          # same pairs, Ace kicker beats Queen
    assert c > a          # the second pair outranks any kicker
    # With three pairs among seven cards, the third pair's rank can be the kicker.
    (three_pairs,) = ranks("KS KD 4H 4C 3S 3D QS")
    (kq,) = ranks("KS KD 4H 4C QS")
    assert categories("KS KD 4H 4C 3S 3D QS") == ["two_pair"] and three_pairs == kq
    (three_pairs_no_single,) = ranks("KS KD 4H 4C 9S 9D 2S")
    (k9_4,) = ranks("KS KD 9S 9D 4H")
    assert three_pairs_no_single == k9_4


def test_full_house_ordered_by_trips_first():
    threes_full_of_aces, twos_full_of_kings, aces_full_of_twos = ranks(
        "3S 3D 3H AC AS", "2S 2D 2H KC KS", "AS AD AH 2C 2S")
    assert aces_full_of_twos > threes_full_of_aces > twos_full_of_kings
    # Two trips in seven cards: the higher trips play, the other as the pair.
    (two_trips,) = ranks("9S 9D 9H 5C 5S 5D 2H")
    (nines_full,) = ranks("9S 9D 9H 5C 5S")
    assert two_trips == nines_full
    # Trips plus two pairs: the higher pair completes the house (not a higher single card).
    (house,) = ranks("9S 9D 9H 5C 5S 7D 7H")
    (nines_full_of_sevens,) = ranks("9S 9D 9H 7C 7S")
    assert house == nines_full_of_sevens
    (with_ace,) = ranks("9S 9D 9H 5C 5S AD 3H")
    (nines_full_of_fives,) = ranks("9S 9D 9H 5C 5S")
    assert with_ace == nines_full_of_fives


def test_quads_kicker_uses_best_other_card():
    a, b = ranks("7S 7D 7H 7C KS 2D 2H", "7S 7D 7H 7C 9S 9D 9H")
    (sevens_k,) = ranks("7S 7D 7H 7C KS")
    assert a == sevens_k and b < a
    assert categories("7S 7D 7H 7C 9S 9D 9H") == ["four_of_a_kind"]


def test_six_cards_flush_and_straight_picks_best():
    # 5-6-7-8-9 straight and five hearts among the same six cards: the flush wins, played
    # with the hearts only.
    assert categories("5H 6D 7H 8H 9H KH") == ["flush"]
    (flush_of_six,) = ranks("5H 6D 7H 8H 9H KH")
    (hearts_only,) = ranks("KH 9H 8H 7H 5H")
    assert flush_of_six == hearts_only
    # All five straight cards suited: a straight flush, not the King-high flush.
    assert categories("5H 6H 7H 8H 9H KH") == ["straight_flush"]
    (sf_of_six,) = ranks("5H 6H 7H 8H 9H KH")
    (nine_high_sf,) = ranks("5S 6S 7S 8S 9S")
    assert sf_of_six == nine_high_sf
    # A straight flush beats the higher plain straight alongside it (5-9 suited, 6-T not).
    sf, plain = ranks("5S 6S 7S 8S 9S TD", "5S 6D 7S 8S 9S TD")
    assert categories("5S 6S 7S 8S 9S TD", "5S 6D 7S 8S 9S TD") == ["straight_flush", "straight"]
    (ten_high,) = ranks("6D 7S 8S 9S TD")
    assert sf == nine_high_sf and plain == ten_high
    # Six suited cards: the five highest make the flush.
    (six_suited,) = ranks("2C 4C 6C 8C TC QC")
    (top_five,) = ranks("4C 6C 8C TC QC")
    assert six_suited == top_five
    # Two straights in six cards: the higher one plays.
    (two_straights,) = ranks("4S 5D 6H 7C 8S 9D")
    (nine_high,) = ranks("5D 6H 7C 8S 9D")
    assert two_straights == nine_high
    # Seven cards: a flush beats trips held alongside it (a full house and a flush cannot
    # share seven cards: the five suited cards have five different ranks).
    assert categories("AH KH 9H 5H 2H 2S 2D") == ["flush"]
    # Seven cards: a straight beats two pair held alongside it.
    assert categories("4S 5D 6H 7C 8S 4D 5H") == ["straight"]


def test_evaluate_output_dtypes_and_order():
    hands = ["2S 3D 4H 5C 7S", "AS KS QS JS TS", "9S 9D 8H 8C 2S", "AS 2S 3S 4S 5S"]
    frame = evaluate(hands)
    assert list(frame.columns) == ["category", "rank"]
    assert len(frame) == 4
    assert frame["rank"].dtype == np.int64
    assert frame["category"].tolist() == ["high_card", "royal_flush", "two_pair", "straight_flush"]
    assert all(isinstance(c, str) for c in frame["category"])
    assert frame["rank"].is_unique
    # Other sequence types give the same result.
    pd.testing.assert_frame_equal(evaluate(pd.Series(hands)), frame)
    pd.testing.assert_frame_equal(evaluate(pa.array(hands)), frame)
    # An empty input gives an empty frame with the same columns.
    empty = evaluate([])
    assert list(empty.columns) == ["category", "rank"] and len(empty) == 0
    assert empty["rank"].dtype == np.int64


def test_evaluate_rejects_bad_rows():
    with pytest.raises(ValueError, match="row 2"):
        evaluate(["AS KS QS JS TS", "2S 3D 4H 5C 7S", "2S 3D 4H 5C 7S 9D"])
    with pytest.raises(ValueError, match="row 1"):
        evaluate(["AS KS QS JS TS", "2S 3D 4H 5C 5C"])          # repeated card
    with pytest.raises(ValueError, match="row 3"):
        evaluate(["AS KS QS JS TS"] * 3 + ["AS KS QS JS XX"])     # unparseable
    with pytest.raises(ValueError, match="row 0"):
        evaluate(["AS KS QS JS", "2S 3D 4H 5C"])                  # four cards
    with pytest.raises(ValueError, match="row 0"):
        evaluate(["AS KS QS JS TS 9S 8S 7S"])                     # eight cards
    with pytest.raises(ValueError, match="row 1"):
        evaluate(["AS KS QS JS TS", ""])


def test_evaluate_matrix_rejects_bad_input():
    with pytest.raises(ValueError):
        evaluate_matrix(np.zeros((3, 4), dtype=np.int8))
    with pytest.raises(ValueError):
        evaluate_matrix(np.array([[0, 1, 2, 3, -1]]))
    with pytest.raises(ValueError):
        evaluate_matrix(np.array([[0, 1, 2, 3, 52]]))
    category, rank = evaluate_matrix(np.empty((0, 5), dtype=np.int8))
    assert category.shape == rank.shape == (0,)


def test_matrix_dtype_and_layout_independent():
    rng = np.random.default_rng(11)
    hands = random_hands(rng, 100_000, 7)
    _, rank8 = evaluate_matrix(hands)
    _, rank64 = evaluate_matrix(np.asfortranarray(hands.astype(np.int64)))
    np.testing.assert_array_equal(rank8, rank64)
    # The order of the cards within a hand does not matter.
    shuffled = np.take_along_axis(hands, np.argsort(rng.random(hands.shape), axis=1), axis=1)
    np.testing.assert_array_equal(evaluate_matrix(shuffled)[1], rank8)


def test_parse_cards_round_trip_for_matrix():
    # evaluate_matrix accepts parse_cards output once trimmed to the hand size.
    parsed = parse_cards(["AS KS QS JS TS", "2S 3D 4H 5C 7S"], 5)
    category, _ = evaluate_matrix(parsed.cards)
    assert category_names(category).tolist() == ["royal_flush", "high_card"]
