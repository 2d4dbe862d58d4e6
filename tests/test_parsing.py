"""Card and money fields: every accepted spelling, and what is refused."""

from hypothesis import given
from hypothesis import strategies as st

from auditor.cards import RANKS, SUITS, format_cards, parse_cards
from auditor.money import LARGEST_CENTS, format_soles, parse_money


def test_card_spellings():
    m = parse_cards(["AS KD 9C", "10♠ 2h", "as, kd", "", "1X AS", "AS  KD", "JK", "AS KD 9C 2C"], 3)
    assert m.bad.tolist() == [False, False, False, False, True, False, True, True]
    assert format_cards(m.cards[1]) == "TS 2H"
    assert m.count.tolist() == [3, 2, 2, 0, 0, 2, 0, 0]


@given(st.lists(st.tuples(st.sampled_from(RANKS), st.sampled_from(SUITS)), min_size=1, max_size=6))
def test_cards_round_trip(cards):
    text = " ".join(r + s for r, s in cards)
    m = parse_cards([text, text.lower()], 6)
    assert not m.bad.any()
    assert format_cards(m.cards[0]) == text == format_cards(m.cards[1])


def test_money_exact_cents():
    cents, bad = parse_money(["12.5", "3", "-4.25", "", "1,5", "abc", "1.234", "0.01"], signed=True)
    assert cents.tolist()[:5] == [1250, 300, -425, 0, 150]
    assert bad.tolist() == [False, False, False, False, False, True, True, False]
    cents, bad = parse_money(["-4.25", "7"], signed=False)
    assert bad.tolist() == [True, False]


@given(st.integers(min_value=-LARGEST_CENTS, max_value=LARGEST_CENTS))
def test_money_round_trip(c):
    text = f"{'-' if c < 0 else ''}{abs(c) // 100}.{abs(c) % 100:02d}"
    cents, bad = parse_money([text], signed=True)
    assert not bad[0] and int(cents[0]) == c


def test_soles_format():
    assert format_soles(123450) == "S/ 1\u202f234,50"
    assert format_soles(-5, "en") == "-S/ 0.05"


def test_money_refusals():
    cells = ["1e2", "+5", ".5", "5.", "1.230", " 5 ", "nan", "12345678901234", "123456789.45", "\x005", "٥",
             "5,5", "-", "--5", "1 000", None, " "]
    cents, bad = parse_money(cells, signed=True, blank_is_zero=False)
    assert bad.tolist() == [True, True, True, True, True, False, True, True, False, True, True,
                            False, True, True, True, True, True]
    assert cents.tolist() == [0, 0, 0, 0, 0, 500, 0, 0, 12345678945, 0, 0, 550, 0, 0, 0, 0, 0]


def test_money_above_the_largest_amount_is_bad_whatever_its_spelling():
    """S/ 999 999 999.99 is the largest amount (``money.LARGEST_CENTS``); a céntimo more is
    bad, of either sign, plain or not, with leading zeros up to the format's 13 digits. The
    13 digits once read let an amount reach 10^15 céntimos, and its due at 20 000 to 1 wrap."""
    fine = ["999999999.99", "-999999999.99", "0000999999999.99", " 999999999,99", "0000000000001"]
    cents, bad = parse_money(fine, signed=True)
    assert not bad.any() and cents.tolist() == [LARGEST_CENTS, -LARGEST_CENTS, LARGEST_CENTS, LARGEST_CENTS, 100]
    over = ["1000000000.00", "-1000000000", "1000000000,00", " 1000000000.0 ", "9999999999999.99",
            "0001000000000.00"]
    for signed in (True, False):
        cents, bad = parse_money(over, signed=signed)
        assert bad.all() and not cents.any(), signed


def test_money_negative_zero_in_an_unsigned_column():
    """"-0.00" is refused in an unsigned column like any other leading '-', whatever the
    other cells of the column (a verdict must not depend on where a chunk is cut)."""
    assert parse_money(["1.5", "5", "-0.00"])[1].tolist() == [False, False, True]
    assert parse_money(["1,5", "5", "-0.00"])[1].tolist() == [False, False, True]
