"""Poker hand evaluation over whole card matrices (best five of 5, 6 or 7 cards).

Every hand is reduced to one integer *rank*: higher is stronger, equal means an exact tie
(suits never break ties). The rank is built as

    category << 26  |  primary << 13  |  kickers

where ``category`` indexes :data:`CATEGORIES`, and ``primary`` / ``kickers`` are 13-bit rank
masks (bit r set = rank r, 2..A as 0..12). Ranks that decide a hand are always distinct
within one of these masks, and comparing two masks with the same number of bits set as
integers is exactly comparing their ranks highest first, which is how poker breaks ties:

    ============== ============================== =====================================
    category       primary                        kickers
    ============== ============================== =====================================
    high card      --                             the five highest ranks
    one pair       the pair                       the three highest other ranks
    two pair       the two highest pairs          the highest other rank
    three of kind  the trips                      the two highest other ranks
    straight       the top card of the straight   --
    flush          --                             the five highest ranks of the suit
    full house     the highest trips              the highest other rank held twice
    four of kind   the quads                      the highest other rank
    straight flush the top card of the straight   --
    royal flush    the Ace                        --
    ============== ============================== =====================================

The Ace plays low only in A-2-3-4-5 (the "wheel", a 5-high straight: its top card is the
Five, so it ranks below 2-3-4-5-6). Royal flush is its own category because the Peruvian
directives rank "escalera real de color" above "escalera de color".

A hand is summarised by rank masks of the ranks held at least once, twice, three and four
times, plus the packed count of cards per suit; small lookup tables over the 8192 possible
rank masks then give straights, top-n ranks and flushes. With 6 or 7 cards this picks the
best five directly, without enumerating subsets. The tables are built by numpy at import;
the hands are evaluated by one compiled pass, a hand at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from auditor.cards import parse_cards
from auditor.compiled import kernel

__all__ = [
    "CATEGORIES",
    "HAND_SIZES",
    "category_names",
    "category_of_rank",
    "pair_rank",
    "evaluate_matrix",
    "evaluate",
]

CATEGORIES: tuple[str, ...] = (
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)
HAND_SIZES = (5, 6, 7)

(HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE,
 FOUR_OF_A_KIND, STRAIGHT_FLUSH, ROYAL_FLUSH) = range(len(CATEGORIES))

_CATEGORY_SHIFT = 26   # category sits above two 13-bit rank masks
_PRIMARY_SHIFT = 13
_ACE = 12
_ALL_MASKS = 1 << 13   # number of distinct 13-bit rank masks

# --------------------------------------------------------------------------------------
# Lookup tables over rank masks (built once at import, vectorised over all 8192 masks).
# --------------------------------------------------------------------------------------
_MASKS = np.arange(_ALL_MASKS, dtype=np.int32)
_POPCOUNT = ((_MASKS[:, None] >> np.arange(13)) & 1).sum(axis=1).astype(np.int8)


def _top_n(n: int) -> np.ndarray:
    """For every rank mask, the mask of its ``n`` highest ranks (all of them if fewer)."""
    top = _MASKS.copy()
    for _ in range(13):
        # Dropping the lowest set bit removes the lowest rank still held.
        too_many = _POPCOUNT[top] > n
        top[too_many] &= top[too_many] - 1
    return top.astype(np.int16)


_TOP = {n: _top_n(n) for n in (1, 2, 3, 5)}


def _straight_tops() -> np.ndarray:
    """For every rank mask, the top rank of its highest straight, or -1 if none.

    A straight is five consecutive ranks; the Ace also plays low in A-2-3-4-5, whose top
    card is the Five (rank 3), so the wheel is the lowest straight.
    """
    top = np.full(_ALL_MASKS, -1, dtype=np.int8)
    wheel = (1 << _ACE) | 0b1111
    windows = [(3, wheel)] + [(t, 0b11111 << (t - 4)) for t in range(4, 13)]
    for t, window in windows:  # ascending, so a higher straight overwrites a lower one
        top[(_MASKS & window) == window] = t
    return top


_STRAIGHT_TOP = _straight_tops()
_HAS_STRAIGHT = _STRAIGHT_TOP >= 0
_STRAIGHT_BIT = np.where(_HAS_STRAIGHT, 1 << _STRAIGHT_TOP.clip(0).astype(np.int32), 0)


def _key(category, primary=0, kickers=0):
    """Pack a category and its primary / kicker rank masks into one rank value."""
    category, primary, kickers = (np.asarray(v, dtype=np.int32) for v in (category, primary, kickers))
    return (category << _CATEGORY_SHIFT) | (primary << _PRIMARY_SHIFT) | kickers


# Straight candidate from the ranks held (0 when there is none). Taking the maximum with
# the pair-based rank picks whichever is better: a straight beats trips and below, a full
# house or quads (possible with 6-7 cards) beats the straight.
_STRAIGHT_KEY = np.where(_HAS_STRAIGHT, _key(STRAIGHT, _STRAIGHT_BIT), 0).astype(np.int32)

# Rank of the flush suit's rank mask (only looked up when that suit has five or more
# cards): a straight within the suit is a straight flush (royal if Ace-high), otherwise a
# flush played with the suit's five highest ranks. Both beat any straight; a full house or
# quads beats a plain flush, which the maximum again resolves.
_FLUSH_KEY = np.where(
    _HAS_STRAIGHT,
    np.where(_STRAIGHT_TOP == _ACE, _key(ROYAL_FLUSH, 1 << _ACE), _key(STRAIGHT_FLUSH, _STRAIGHT_BIT)),
    _key(FLUSH, 0, _TOP[5].astype(np.int32)),
).astype(np.int32)

# Cards per suit are packed 3 bits per suit (at most 7 cards, so no field overflows); this
# table gives the suit holding five or more cards, or -1. Two suits cannot both have five
# among at most seven cards.
_SUIT_FIELDS = (np.arange(1 << 12)[:, None] >> (3 * np.arange(4))) & 7
_FLUSH_SUIT = np.where(
    (_SUIT_FIELDS >= 5).any(axis=1), (_SUIT_FIELDS >= 5).argmax(axis=1), -1
).astype(np.int8)

# The pair-based categories follow from a small "shape" code:
#   min(number of ranks held twice or more, 2) + 3 * (some rank held 3+) + 6 * (some rank held 4)
# For each shape, the category and how many kicker ranks complete the five cards; the
# table row holds (category << 26 | the n highest ranks) for every kicker-source mask.
#   shape  0: high card        5 kickers from all ranks
#   shape  1: one pair         3 kickers from the other ranks
#   shape  2: two pair         1 kicker  (a third pair's rank may be that kicker)
#   shape  4: three of a kind  2 kickers
#   shape  5: full house       1 "kicker": the highest other rank held twice or more
#                              (with 6-7 cards that can be a second trips)
#   shape 10/11: four of a kind, 1 kicker from the other ranks (a pair or trips included)
# Shapes 3 and 6..9 cannot occur (a rank held 3+ times is also held 2+ times).
_SHAPES = {0: (HIGH_CARD, 5), 1: (ONE_PAIR, 3), 2: (TWO_PAIR, 1), 4: (THREE_OF_A_KIND, 2),
           5: (FULL_HOUSE, 1), 10: (FOUR_OF_A_KIND, 1), 11: (FOUR_OF_A_KIND, 1)}
_FULL_HOUSE_SHAPE = 5
_SHAPE_KEY = np.zeros((12, _ALL_MASKS), dtype=np.int32)
for _shape, (_cat, _n) in _SHAPES.items():
    _SHAPE_KEY[_shape] = _key(_cat, 0, _TOP[_n].astype(np.int32))
_SHAPE_KEY = _SHAPE_KEY.ravel()
_PAIR_LEVEL = np.minimum(_POPCOUNT, 2).astype(np.int8)

# --------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------
@kernel
def _evaluate_rows(cards, pair_level, top1, top2, shape_key, straight_key, flush_suit, flush_key):
    """Ranks (int64) of the hands of an (N, k) int8 card matrix, one hand at a time with the
    tables above."""
    n, k = cards.shape
    ranks = np.empty(n, np.int64)
    for i in range(n):
        # Ranks held at least once / twice / three times / four times, dealing card by card:
        # a card whose rank is already held once now makes it held twice, and so on.
        once, twice, thrice, four, suits = 0, 0, 0, 0, 0
        for j in range(k):
            card = cards[i, j]
            bit = 1 << (card >> 2)
            four |= thrice & bit
            thrice |= twice & bit
            twice |= once & bit
            once |= bit
            suits += 1 << (3 * (card & 3))
        # Shape of the pair structure (see _SHAPES); primary ranks: the quads, else the
        # highest trips, else the (up to two) highest pairs. Kickers come from the ranks not
        # already used by the primary; for a full house the second group must be a rank held
        # at least twice.
        shape = pair_level[twice] + 3 * (thrice != 0) + 6 * (four != 0)
        primary = four if four else (top1[thrice] if thrice else top2[twice])
        source = (twice if shape == _FULL_HOUSE_SHAPE else once) & ~primary
        key = shape_key[(shape << 13) | source] | (primary << _PRIMARY_SHIFT)
        # A straight in the ranks held beats trips and below.
        key = max(key, straight_key[once])
        # Flushes: only the (rare) hands with five cards of one suit need the suit's ranks.
        suit = flush_suit[suits]
        if suit >= 0:
            mask = 0
            for j in range(k):
                if cards[i, j] & 3 == suit:
                    mask |= 1 << (cards[i, j] >> 2)
            key = max(key, flush_key[mask])
        ranks[i] = key
    return ranks


def evaluate_matrix(cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate the best five-card poker hand of every row.

    ``cards`` is an (N, k) integer matrix, k in 5, 6 or 7, every entry a card ``rank*4+suit``
    (0..51, no padding; repeated cards within a row give meaningless results). Returns
    ``(category, rank)``: ``category`` int8 indices into :data:`CATEGORIES` and ``rank``
    int64 values where higher is stronger and equal is an exact tie.
    """
    cards = np.asarray(cards)
    if cards.ndim != 2 or cards.shape[1] not in HAND_SIZES:
        raise ValueError(f"expected an (N, k) card matrix with k in {HAND_SIZES}, got shape {cards.shape}")
    if not np.issubdtype(cards.dtype, np.integer):
        raise ValueError(f"card matrix must be integer, got {cards.dtype}")
    if cards.shape[0] == 0:
        return np.empty(0, dtype=np.int8), np.empty(0, dtype=np.int64)
    if cards.min() < 0 or cards.max() > 51:
        raise ValueError("card matrix entries must be cards 0..51 (no padding)")
    rank = _evaluate_rows(np.ascontiguousarray(cards, dtype=np.int8), _PAIR_LEVEL, _TOP[1], _TOP[2], _SHAPE_KEY,
                          _STRAIGHT_KEY, _FLUSH_SUIT, _FLUSH_KEY)
    return category_of_rank(rank), rank


def category_of_rank(rank: np.ndarray) -> np.ndarray:
    """Category index (int8) recovered from ranks returned by :func:`evaluate_matrix`."""
    return (np.asarray(rank) >> _CATEGORY_SHIFT).astype(np.int8)


# The rank of a mask holding one rank (a pair's primary), -1 for any other mask.
_RANK_OF_BIT = np.full(_ALL_MASKS, -1, np.int8)
_RANK_OF_BIT[1 << np.arange(13)] = np.arange(13)


def pair_rank(category: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Rank index 0..12 (int8) of the pair of each one-pair hand, -1 for any other hand
    (``category`` and ``rank`` as :func:`evaluate_matrix` returns them)."""
    primary = (np.asarray(rank) >> _PRIMARY_SHIFT) & (_ALL_MASKS - 1)
    return np.where(category == ONE_PAIR, _RANK_OF_BIT[primary], -1).astype(np.int8)


def category_names(idx) -> np.ndarray:
    """Category names (object array of str) for category indices."""
    return np.asarray(CATEGORIES, dtype=object)[np.asarray(idx, dtype=np.intp)]


def evaluate(hands: Sequence[str]) -> pd.DataFrame:
    """Evaluate card strings such as ``"AS KS QS JS TS"`` (one hand per entry).

    All hands must hold the same number of cards (5, 6 or 7), every card valid and none
    repeated; otherwise ``ValueError`` names the first offending row (row 0 sets the
    expected count). Returns a DataFrame with ``category`` (names from
    :data:`CATEGORIES`) and ``rank`` (int64), one row per hand, in input order.
    """
    parsed = parse_cards(hands, max(HAND_SIZES))
    n = parsed.cards.shape[0]
    if n == 0:
        return pd.DataFrame({"category": pa.array([], type=pa.string()).to_pandas(),
                             "rank": pd.Series([], dtype=np.int64)})
    k = int(parsed.count[0])
    cards = parsed.cards[:, :k] if k in HAND_SIZES else parsed.cards
    offending = parsed.bad | (parsed.count != k) | _repeats_a_card(cards)
    if k not in HAND_SIZES:
        offending[0] = True
    if offending.any():
        row = int(np.argmax(offending))
        if parsed.bad[row]:
            why = "is not a list of valid cards"
        elif k not in HAND_SIZES:
            why = f"has {k} cards; hands must have 5, 6 or 7"
        elif parsed.count[row] != k:
            why = f"has {int(parsed.count[row])} cards, expected {k} like row 0"
        else:
            why = "repeats a card"
        raise ValueError(f"poker hand at row {row} {why}")
    category, rank = evaluate_matrix(cards)
    # Names via Arrow: pandas gets its default string column without a per-row object pass.
    names = pa.array(CATEGORIES, type=pa.string()).take(pa.array(category)).to_pandas()
    return pd.DataFrame({"category": names, "rank": rank})


def _repeats_a_card(cards: np.ndarray) -> np.ndarray:
    """Rows of a padded card matrix in which some card appears twice (one bit per card of
    the 52-card deck, checked as the row's cards are dealt)."""
    seen = np.zeros(cards.shape[0], dtype=np.int64)
    repeated = np.zeros(cards.shape[0], dtype=bool)
    for col in np.ascontiguousarray(cards.T):
        bit = np.where(col >= 0, np.left_shift(np.int64(1), np.maximum(col, 0).astype(np.int64)), 0)
        repeated |= (seen & bit) != 0
        seen |= bit
    return repeated
