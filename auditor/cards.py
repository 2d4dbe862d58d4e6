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
from .compiled import kernel
from .rowwise import rows_at, rows_text

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
    row, ``bad`` rows whose text is not a list of valid cards (or longer than ``width``).
    A matrix of action letters (codes for cards) also has ``tally``: (letters, N) int16, how
    many of each letter each row holds."""

    cards: np.ndarray
    count: np.ndarray
    bad: np.ndarray
    tally: np.ndarray | None = None

    def take(self, rows: np.ndarray) -> CardMatrix:
        """The rows at ``rows`` (integer positions)."""
        return CardMatrix(cards=rows_at(self.cards, rows), count=self.count[rows], bad=self.bad[rows],
                          tally=None if self.tally is None else np.take(self.tally, rows, axis=1))


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
    """Rows in the canonical spelling (two-byte cards joined by single blanks) parsed, the
    others marked bad."""
    offsets, data = buffers(arr)
    return CardMatrix(*_canonical_rows(offsets, data, width, MIN_WIDTH, _CARD_LUT))


@kernel
def _canonical_rows(offsets, data, width, min_width, lut):
    n = len(offsets) - 1
    count, bad = np.zeros(n, np.int8), np.zeros(n, np.bool_)
    wide = min_width
    for i in range(n):
        length = offsets[i + 1] - offsets[i]
        if length > 0 and ((length + 1) % 3 != 0 or (length + 1) // 3 > width):
            bad[i] = True
        else:
            count[i] = (length + 1) // 3
            wide = max(wide, count[i])
    wide = min(width, wide)
    cards = np.full((n, wide), -1, np.int8)
    for i in range(n):
        at = offsets[i]
        for k in range(count[i]):
            card = lut[data[at + 3 * k] | (np.uint16(data[at + 3 * k + 1]) << 8)]
            if card < 0 or (k + 1 < count[i] and data[at + 3 * k + 2] != 32):
                bad[i] = True
                break
            cards[i, k] = card
        if bad[i]:
            cards[i, :] = -1
            count[i] = 0
    return cards, count, bad


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
    return rows_text(cards, _CARD_TEXT, " ")
