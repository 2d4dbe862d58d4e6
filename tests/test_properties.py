"""Property-based tests (hypothesis) of card parsing, Black Jack arithmetic and settlement,
and of the money parser."""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.cards import RANKS, SUITS, cards_text, format_cards, parse_cards
from auditor.checks.base import _by_table_and_time, reasons, unique_groups
from auditor.games.blackjack import SCALE, Outcome, hand_value, settle_main, totals
from auditor.logs.schema import SIGNED_MONEY_PATTERN
from auditor.money import LARGEST_CENTS, parse_money
from auditor.rowwise import rows_text

CARD = st.integers(min_value=0, max_value=51)
SPELLINGS = {"T": ["T", "t", "10"], "S": ["S", "s", "♠"], "H": ["H", "h", "♥"], "D": ["D", "d", "♦"], "C": ["C", "c", "♣"]}
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])



@FAST
@given(st.integers(min_value=1, max_value=5).flatmap(
    lambda k: st.lists(st.lists(st.booleans(), min_size=k, max_size=k), max_size=40)))
def test_the_first_reason_that_holds_names_each_row(rows):
    k = len(rows[0]) if rows else 1
    masks = [np.array([row[i] for row in rows], bool) for i in range(k)]
    violates, reason, keys = reasons(*((m, f"reason.{i}") for i, m in enumerate(masks)))
    assert keys == tuple(f"reason.{i}" for i in range(k))
    assert violates.tolist() == [any(row) for row in rows]
    assert reason.tolist() == [row.index(True) if any(row) else 0 for row in rows]


@FAST
@given(st.lists(st.lists(st.integers(min_value=-1, max_value=51), min_size=3, max_size=3), max_size=6),
       st.sampled_from(["", " ", ", "]))
def test_rows_spelled_at_once_as_one_by_one(rows, sep):
    """The text of a code matrix spelled for all rows at once equals each row joined in
    Python, rows with a gap (a -1 before a code) too."""
    codes = np.array(rows, np.int8).reshape(len(rows), 3)
    symbols = [RANKS[c >> 2] + SUITS[c & 3] for c in range(52)]
    assert rows_text(codes, symbols, sep) == [sep.join(symbols[c] for c in row if c >= 0) for row in rows]
    assert cards_text(codes) == [format_cards(row) for row in codes]

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
@given(st.integers(min_value=-LARGEST_CENTS, max_value=LARGEST_CENTS), st.sampled_from([".", ","]), st.booleans())
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
@given(st.lists(st.text(alphabet="0123456789.-,a ", max_size=10), min_size=1, max_size=40))
def test_money_read_as_the_pattern_says_wherever_the_cell_lies(cells):
    """Cells read from one buffer, most with bytes after them (read eight at a time), give
    what the documented pattern gives, cell by cell."""
    pattern = re.compile(SIGNED_MONEY_PATTERN)
    cents, bad = parse_money(pa.array([*cells, "0" * 8], pa.large_string()), signed=True)
    for text, value, wrong in zip(cells, cents.tolist(), bad.tolist()):
        text = text.strip()
        assert wrong == (text != "" and not pattern.match(text)), text
        assert value == (0 if wrong or not text else int(Decimal(text.replace(",", ".")) * 100)), text


@FAST
@given(st.text(max_size=20))
def test_money_never_raises(text):
    value, bad = parse_money([text], signed=True)
    assert value.dtype == np.int64 and len(bad) == 1


# parse_money before it read plain cells from the Arrow buffers: regex checks, a decimal cast
# for all-plain columns and string rewriting otherwise. The reference the buffer parser must
# match cell for cell, with two changes: "-0.00" in an unsigned column is refused wherever it
# sits (the old cast let it through when every other cell was plain), and so is an amount
# above LARGEST_CENTS (the old parser took 13 digits, whose dues could wrap int64).
_OLD_MONEY = r"^-?[0-9]{1,13}([.,][0-9]{1,2})?$"
_OLD_PLAIN = r"^-?[0-9]{1,13}(\.[0-9]{1,2})?$"


def _reference_parse_money(values, *, signed=False, blank_is_zero=True):
    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values, type=pa.large_string())
    if not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
        arr = pc.cast(arr, pa.large_string())
    arr = pc.fill_null(arr, "")
    blank = np.asarray(pc.equal(arr, "").to_numpy(zero_copy_only=False), dtype=bool)
    plain = np.asarray(pc.match_substring_regex(arr, _OLD_PLAIN).to_numpy(zero_copy_only=False), dtype=bool)
    fast = None
    if (plain | blank).all():
        try:
            dec = pc.cast(pc.if_else(pa.array(blank), "0", arr), pa.decimal128(17, 2))
            fast = np.asarray(pc.cast(pc.multiply(dec, pa.scalar(100, pa.decimal128(5, 0))), pa.int64())
                              .to_numpy(zero_copy_only=False), dtype=np.int64)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    if fast is not None:
        bad = blank & (not blank_is_zero)
        if not signed:
            bad |= np.asarray(pc.starts_with(arr, "-").to_numpy(zero_copy_only=False), dtype=bool)
        bad |= np.abs(fast) > LARGEST_CENTS
        return np.where(bad, 0, fast), bad
    arr = pc.utf8_trim_whitespace(arr)
    blank = np.asarray(pc.equal(arr, "").to_numpy(zero_copy_only=False), dtype=bool)
    ok = np.asarray(pc.match_substring_regex(arr, _OLD_MONEY).to_numpy(zero_copy_only=False), dtype=bool)
    if not signed:
        neg = np.asarray(pc.starts_with(arr, "-").to_numpy(zero_copy_only=False), dtype=bool)
        ok &= ~neg
    norm = pc.replace_substring(arr, ",", ".")
    norm = pc.replace_substring_regex(norm, r"^(-?[0-9]+)$", r"\1.00")
    norm = pc.replace_substring_regex(norm, r"\.([0-9])$", r".\10")
    norm = pc.replace_substring(norm, ".", "")
    safe = pc.if_else(pa.array(ok), norm, "0")
    cents = np.array(pc.cast(safe, pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
    ok &= np.abs(cents) <= LARGEST_CENTS
    bad = ~ok & ~(blank & blank_is_zero)
    cents[~ok] = 0
    return cents, bad


# Characters that sit close to an amount: digits, both decimal marks, signs, exponent letters,
# the bytes just above '9' and below '0', whitespace (ASCII and Unicode), NUL, non-ASCII digits
# and a multi-byte letter.
ODD_CHARS = ".,-+eEnai:;?/ \t\n\r\x00\u00a0\u2007\u0665\uff15\u00f1"
HOSTILE = st.text(alphabet="0123456789" + ODD_CHARS, max_size=18)


@st.composite
def amounts(draw):
    """Amounts as logs spell them, plain or not: 0 to 3 decimals, a comma, leading zeros,
    padding, "-0", up to 15 integer digits (13 is the limit of the text, 9 of the value)."""
    whole = draw(st.one_of(st.integers(0, 99_999), st.integers(0, 10**15 - 1), st.integers(10**11, 10**15 - 1),
                           st.integers(10**8, 10**10)))
    text = draw(st.sampled_from(["", "0", "00"])) + str(whole)
    decimals = draw(st.sampled_from(["", "d", "dd", "dd", "dd", "ddd"]))
    if decimals:
        digits = draw(st.text(alphabet="0123456789", min_size=len(decimals), max_size=len(decimals)))
        text += draw(st.sampled_from([".", ".", ".", ","])) + digits
    if draw(st.booleans()):
        text = "-" + text
    return draw(st.sampled_from(["", "", "", " ", "\t"])) + text + draw(st.sampled_from(["", "", "", " "]))


@st.composite
def corrupted_amounts(draw):
    """An amount with one character replaced, inserted or deleted."""
    text = draw(amounts())
    at = draw(st.integers(0, len(text)))
    char = draw(st.sampled_from(ODD_CHARS + "0123456789"))
    how = draw(st.sampled_from(["replace", "insert", "delete"]))
    if how == "insert":
        return text[:at] + char + text[at:]
    return text[:at] + (char if how == "replace" else "") + text[at + 1:]


CELL = st.one_of(amounts(), corrupted_amounts(), HOSTILE, st.none(),
                 st.sampled_from(["", "-0", "-0.00", "-00.0", "5", "12.5", "-25.00", "12345678901234.00"]))


def _as_input(cells, kind):
    if kind == "list":
        return cells
    if kind == "chunked":
        half = len(cells) // 2
        return pa.chunked_array([pa.array(cells[:half], pa.string()), pa.array([], pa.string()),
                                 pa.array(cells[half:], pa.string())], pa.string())
    if kind == "sliced":
        return pa.array(["9.99", "x", *cells, "1.5"], pa.large_string()).slice(2, len(cells))
    return pa.array(cells, pa.string() if kind == "string" else pa.large_string())


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CELL, max_size=12), st.sampled_from(["list", "string", "large_string", "sliced", "chunked"]),
       st.booleans(), st.booleans())
def test_money_parser_matches_the_reference(cells, kind, signed, blank_is_zero):
    """Cell for cell the same cents and the same bad flags as the regex-and-cast parser, for
    any column."""
    cents, bad = parse_money(_as_input(cells, kind), signed=signed, blank_is_zero=blank_is_zero)
    want_cents, want_bad = _reference_parse_money(_as_input(cells, kind), signed=signed, blank_is_zero=blank_is_zero)
    assert cents.dtype == np.int64 and bad.dtype == bool
    assert cents.tolist() == want_cents.tolist() and bad.tolist() == want_bad.tolist()


@st.composite
def plain_amounts(draw):
    """Amounts in the plain form (a dot and up to two decimals), up to 13 integer digits and
    past them, about the largest amount, and the spellings of a negative zero."""
    cents = draw(st.one_of(st.integers(min_value=-10**16 + 1, max_value=10**16 - 1),
                           st.integers(min_value=-LARGEST_CENTS - 2, max_value=-LARGEST_CENTS + 1),
                           st.integers(min_value=LARGEST_CENTS - 1, max_value=LARGEST_CENTS + 2)))
    whole, frac = divmod(abs(cents), 100)
    forms = [f"{whole}.{frac:02d}"] + [f"{whole}.{frac // 10}"] * (frac % 10 == 0) + [f"{whole}"] * (frac == 0)
    text = ("-" if cents < 0 else "") + draw(st.sampled_from(forms))
    return draw(st.sampled_from([text] * 6 + ["-0", "-0.0", "-00.00", ""]))


@FAST
@given(st.lists(plain_amounts(), min_size=1, max_size=12), st.booleans())
def test_money_parser_matches_the_reference_on_plain_columns(cells, signed):
    """Columns of plain amounts only, which the reference reads with one decimal cast."""
    got = parse_money(cells, signed=signed)
    want = _reference_parse_money(cells, signed=signed)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_money_parser_matches_the_reference_on_a_long_column():
    """Many realistic amounts with odd cells here and there, and the edge cases
    of a column: nothing (even without an offsets buffer), all blank, all null, null slots
    over text."""
    rng = np.random.default_rng(7)
    cents = rng.integers(-500_000, 5_000_000, 150_000)
    cells = [f"{'-' if c < 0 else ''}{abs(c) // 100}.{abs(c) % 100:02d}" for c in cents.tolist()]
    for i, odd in zip(range(0, len(cells), 9_973), ["12,50", " 7 ", "1e2", "", "-0", "abc", "5.", "1234567890123.45"] * 3):
        cells[i] = odd
    texts = pa.array(["1.00", "12.50", "-3.00", "7"], pa.large_string())
    null_over_text = pa.LargeStringArray.from_buffers(4, texts.buffers()[1], texts.buffers()[2],
                                                      pa.py_buffer(bytes([0b1001])), null_count=2)
    no_offsets = pa.LargeStringArray.from_buffers(0, pa.py_buffer(b""), pa.py_buffer(b""))
    for column in (cells, cells[:-1], [], no_offsets, [""] * 5, [None] * 3,
                   pa.array(cells, pa.string()).slice(65_000), null_over_text):
        for signed in (False, True):
            got, want = parse_money(column, signed=signed), _reference_parse_money(column, signed=signed)
            assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


@FAST
@given(st.lists(st.integers(-3, 40), max_size=60), st.integers(1, 7))
def test_unique_groups_is_numpy_unique(values, coarse):
    """The groups of a key, and of a coarser key sorted by the finer key's order, as
    ``np.unique`` gives them."""
    keys = np.array(values, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    for got, want in ((unique_groups(keys), np.unique(keys, return_inverse=True, return_counts=True)),
                      (unique_groups(keys // coarse, order),
                       np.unique(keys // coarse, return_inverse=True, return_counts=True))):
        assert all(g.tolist() == w.tolist() for g, w in zip(got, want))


@FAST
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0, 1, 2, 10**6, 3 * 10**15, 2**62, -2**62,
                                                               -2**63, 2**63 - 1]),
                          st.booleans()), max_size=40))
def test_table_and_time_order_is_lexsort(rows):
    """The rounds' order by table, time and earlier-chunk-first, and whether two share a table
    and a time, as ``np.lexsort`` gives them: by one integer key where it fits, by lexsort
    where the span of times would overflow it (2**62 microseconds; nanoseconds over centuries,
    a missing time's int64 minimum)."""
    table = np.array([r[0] for r in rows], np.int64)
    times = np.array([r[1] for r in rows], np.int64)
    later = np.array([r[2] for r in rows], bool)
    order, tie = _by_table_and_time(table, times, later)
    assert order.tolist() == np.lexsort([later, times, table]).tolist()
    assert tie == (len({(t, u) for t, u, _ in rows}) < len(rows))
