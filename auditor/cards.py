"""Cards as small integers, parsed in bulk from the log's card strings.

A card is ``rank * 4 + suit`` with rank 0..12 for ``2 3 4 5 6 7 8 9 T J Q K A`` and suit
0..3 for ``S H D C``; ``-1`` pads a row whose hand has fewer cards than the matrix is wide.
Parsing works on the Arrow string buffers, so a million card fields never become a million
Python objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrowtext import as_large_string, buffers
from .rowwise import any_per_row

__all__ = ["RANKS", "SUITS", "CardMatrix", "parse_cards", "widen", "MIN_WIDTH", "format_cards", "cards_text", "card_matrix", "rank_of", "suit_of"]

RANKS = "23456789TJQKA"
SUITS = "SHDC"
PAD = -1
MIN_WIDTH = 7  # narrowest card matrix: six-card hands (Triple Shot) and a second card always fit

# The card of two bytes read as one little-endian 16-bit word (rank in the low byte), -1 for
# any word that is no canonical card: one lookup per card instead of two and arithmetic.
_CARD_LUT = np.full(1 << 16, -1, dtype=np.int8)
for _r, _rc in enumerate(RANKS):
    for _s, _sc in enumerate(SUITS):
        _CARD_LUT[ord(_rc) | ord(_sc) << 8] = _r * 4 + _s

# Spellings the log format accepts besides the canonical "TS": "10S", any case, suit symbols.
_REWRITES = [("10", "T"), ("♠", "S"), ("♥", "H"), ("♦", "D"), ("♣", "C"),
             ("♤", "S"), ("♡", "H"), ("♢", "D"), ("♧", "C")]


@dataclass(frozen=True)
class CardMatrix:
    """Parsed card fields: ``cards`` (N, width) int8 padded with -1, ``count`` cards per
    row, ``bad`` rows whose text is not a list of valid cards (or longer than ``width``)."""

    cards: np.ndarray
    count: np.ndarray
    bad: np.ndarray


def _normalise(arr: pa.LargeStringArray) -> pa.LargeStringArray:
    arr = pc.utf8_upper(arr)
    for old, new in _REWRITES:
        arr = pc.replace_substring(arr, old, new)
    arr = pc.utf8_trim_whitespace(arr)
    arr = pc.replace_substring_regex(arr, r"[\s,]+", " ")
    return arr


def parse_cards(values, width: int) -> CardMatrix:
    """Parse space-separated card strings (``"AS KD 9C"``) into a padded int8 matrix.

    The canonical spelling is parsed straight from the buffers; only rows that fail are
    normalised (case, ``10``, suit symbols, extra blanks or commas) and parsed again, so the
    string rewriting costs nothing on a clean export. ``width`` is the most cards a field
    may hold; the matrix is only as wide as the longest field read (at least ``MIN_WIDTH``
    or ``width``), so that a twelve-card limit costs nothing when hands have five.
    """
    arr = as_large_string(values)
    parsed = _parse_canonical(arr, width)
    if not parsed.bad.any():
        return parsed
    retry = np.flatnonzero(parsed.bad)
    again = _parse_canonical(_normalise(arr.take(pa.array(retry))), width)
    wide = max(parsed.cards.shape[1], again.cards.shape[1])
    cards, count, bad = widen(parsed.cards, wide), parsed.count.copy(), parsed.bad.copy()
    cards[retry], count[retry], bad[retry] = widen(again.cards, wide), again.count, again.bad
    return CardMatrix(cards=cards, count=count, bad=bad)


def widen(cards: np.ndarray, width: int) -> np.ndarray:
    """A copy of a padded matrix at least ``width`` wide."""
    if cards.shape[1] >= width:
        return cards.copy()
    return np.concatenate([cards, np.full((len(cards), width - cards.shape[1]), PAD, np.int8)], axis=1)


def _parse_canonical(arr: pa.LargeStringArray, width: int) -> CardMatrix:
    offsets, raw = buffers(arr)
    # Padded so that positions past a short row's end still index inside the buffer.
    data = np.concatenate([raw[offsets[0]: offsets[-1]], np.zeros(3 * width + 3, np.uint8)])
    start = (offsets[:-1] - offsets[0]).astype(np.int64 if data.size > 2**31 - 1 else np.int32)
    length = (offsets[1:] - offsets[:-1]).astype(np.int32)
    count = (length + 1) // 3
    bad = (((length + 1) % 3 != 0) & (length > 0)) | (count > width)
    count = np.where(bad, 0, count).astype(np.int8)
    width = min(width, max(MIN_WIDTH, int(count.max(initial=0))))

    # The card starting at each byte of the buffer (-1 if none): one lookup per byte, then
    # one gather per card position.
    word = data[:-1].astype(np.uint16)
    word |= data[1:].astype(np.uint16) << 8
    card_at = _CARD_LUT[word]
    k = np.arange(width, dtype=start.dtype)
    present = k[None, :] < count[:, None]
    cards = np.where(present, card_at[start[:, None] + 3 * k[None, :]], PAD)
    # A row is canonical when every card is valid and its other bytes, as many as separators
    # are needed, are all blanks: no card holds a blank, so they are exactly the separators.
    blanks = np.r_[0, np.cumsum(data == 32, dtype=np.int32)]
    bad |= (blanks[start + length] - blanks[start]) != np.maximum(count.astype(np.int32) - 1, 0)
    bad |= any_per_row(present & (cards < 0))
    cards[bad] = PAD
    count[bad] = 0
    return CardMatrix(cards=cards, count=count, bad=bad)


def rank_of(cards: np.ndarray) -> np.ndarray:
    """Rank index 0..12 (2..A); -1 where padded."""
    return np.where(cards >= 0, cards >> 2, -1)


def suit_of(cards: np.ndarray) -> np.ndarray:
    return np.where(cards >= 0, cards & 3, -1)


def card_matrix(hands, width: int) -> np.ndarray:
    """Lists of card ints (one list per hand) as a padded matrix (for the simulators)."""
    out = np.full((len(hands), width), PAD, dtype=np.int8)
    for i, cards in enumerate(hands):
        out[i, : len(cards)] = cards
    return out


_CARD_TEXT = [RANKS[c >> 2] + SUITS[c & 3] for c in range(52)]


def format_cards(row) -> str:
    """Canonical text of one row of a card matrix (for evidence and the simulator)."""
    return " ".join([_CARD_TEXT[c] for c in row if c >= 0])


def cards_text(cards: np.ndarray) -> list[str]:
    """``format_cards`` of each row of a card matrix."""
    return [format_cards(row) for row in cards.tolist()]
