"""The largest amounts and ratios the audit takes (``auditor/money.py``) are audited exactly, to
the céntimo, as Python's unbounded integers compute them: the int64 arithmetic of the rules must
not wrap around at its bounds. (What lies beyond them is refused: a log's amount in
``tests/test_ingest_edges.py``, a profile's value in ``tests/test_profiles.py``.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.engine import audit
from auditor.games.blackjack import SCALE
from auditor.money import LARGEST_AMOUNT, LARGEST_CENTS, LARGEST_RATIO
from auditor.profiles import PROFILE_MODELS
from test_rule_cases import write_log

MOST = str(LARGEST_AMOUNT)  # "999999999.99"


def soles(cents: int) -> str:
    """Céntimos as the reports write them, by Python's int arithmetic."""
    return f"{'-' if cents < 0 else ''}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def found(result) -> dict[str, tuple]:
    return {f.code: (f.expected, f.observed, f.impact) for f in result.findings.itertuples()}


def test_the_bounds_keep_the_worst_product_far_inside_int64():
    """One bet's due at the largest amount and ratio, in tenths of a céntimo, and a row's four:
    at least 20 times short of int64's largest (the reasoning in money.py)."""
    assert LARGEST_CENTS * SCALE * LARGEST_RATIO * 4 * 20 < 2**63 - 1


# A royal flush at each game, every bet at the largest amount, every ratio that pays it at the
# largest, nothing paid: each pay rule's finding is the whole due.
ROYAL = {
    "let-it-ride": (f"""
round_id,community_cards,seat,cards,bet_1,bet_2,bet_dollar,net_1,net_2,net_dollar,bonus_bet,net_bonus
1,JS TS,1,AS KS QS,{MOST},{MOST},{MOST},0,0,0,{MOST},0
""", {"paytable": {"royal_flush": LARGEST_RATIO}, "bonus": {"royal_flush": LARGEST_RATIO}},
        {"LIR-PAY": 3 * LARGEST_CENTS * LARGEST_RATIO, "LIR-BONUS": LARGEST_CENTS * LARGEST_RATIO}),
    # (the Black Jack hand is AS KS, a natural; the poker hand a royal flush beating the dealer's
    # pair of fours; the War card an Ace against a four)
    "triple-shot": (f"""
round_id,dealer_cards,dealer_bj_count,seat,cards,actions,bet_war,bet_bj,bet_poker,bonus_bet,net_war,net_bj,net_poker,net_bonus
1,4D 4C 9D 7C 5D 8H,3,1,AS KS QS JS TS 2C,S,{MOST},{MOST},{MOST},{MOST},0,0,0,0
""", {"bj_pays": (LARGEST_RATIO, 1), "caribbean": {"royal_flush": LARGEST_RATIO},
      "bonus": {"royal_flush": LARGEST_RATIO}},
        {"TS-WAR": LARGEST_CENTS, "TS-BJ-PAY": LARGEST_CENTS * LARGEST_RATIO,
         "TS-POKER": LARGEST_CENTS * LARGEST_RATIO, "TS-BONUS": LARGEST_CENTS * LARGEST_RATIO}),
    # (Pot Luck posts no ratio: its largest products are a win, and insurance at 2:1)
    "pot-luck-blackjack": (f"""
round_id,dealer_cards,seat,cards,actions,bet,insurance,net_main,net_insurance
1,AH KC,1,9S TD,I,{MOST},499999999.99,0,0
2,TH 7C,1,9S TD,S,{MOST},0,0,0
""", {}, {"PLB-INSURANCE-PAY": 2 * 49_999_999_999, "PLB-WIN": LARGEST_CENTS}),
}


@pytest.mark.parametrize("game", sorted(ROYAL))
def test_the_largest_amounts_at_the_largest_ratios_are_due_exactly(tmp_path: Path, game):
    rows, posted, dues = ROYAL[game]
    log = write_log(game, rows, tmp_path / "most.csv")
    result = audit([log], profiles=[PROFILE_MODELS[game](id="most", **posted)])
    (item,) = result.inputs
    assert item.records_rejected == 0 and not [r.code for r in result.rules if r.status == "error"]
    got = found(result)
    assert {code: got.get(code) for code in dues} == {
        code: (soles(due), "0.00", soles(-due)) for code, due in dues.items()}


@pytest.mark.parametrize("game", sorted(ROYAL))
def test_a_payment_limit_at_the_largest_amount_caps_exactly(tmp_path: Path, game):
    """A round due more than the largest payment limit (each round above; at Pot Luck, which
    posts no ratio, two seats' insurance at 2:1) that pays nothing is short of it by the whole
    limit: the limit times SCALE is compared exactly."""
    rows, posted, dues = ROYAL[game]
    if game == "pot-luck-blackjack":
        rows = f"""
round_id,dealer_cards,seat,cards,actions,bet,insurance,net_main,net_insurance
1,AH KC,1,9S TD,I,{MOST},499999999.99,0,0
1,AH KC,2,9S TD,I,{MOST},499999999.99,0,0
"""
    log = write_log(game, rows, tmp_path / "most.csv")
    result = audit([log], profiles=[PROFILE_MODELS[game](id="most", payment_limit=MOST, **posted)])
    code = {"let-it-ride": "LIR", "triple-shot": "TS", "pot-luck-blackjack": "PLB"}[game] + "-PAY-CAPPED"
    assert found(result)[code] == (MOST, "0.00", soles(-LARGEST_CENTS))


# --- a round's sums ------------------------------------------------------------------------
# A Let It Ride or Triple Shot round may hold 10,000 seats (the seat numbers read). At the
# largest amounts and ratios one Let It Ride row is due 4 × 10^16 céntimos, one Triple Shot row
# 3 × 10^17 tenths: what 300 or 40 such rows were due wrapped around int64 to a negative sum,
# and a round due far more than the payment limit was judged as one within it (no
# …-PAY-CAPPED finding, each bet's full due an impact).

def _seats(game: str, n: int) -> str:
    if game == "let-it-ride":
        head = "round_id,community_cards,seat,cards,bet_1,bet_2,bet_dollar,net_1,net_2,net_dollar,bonus_bet,net_bonus"
        row = f"JS TS,{{}},AS KS QS,{MOST},{MOST},{MOST},0,0,0,{MOST},0"
    else:
        head = ("round_id,dealer_cards,dealer_bj_count,seat,cards,actions,bet_war,bet_bj,bet_poker,bonus_bet,"
                "net_war,net_bj,net_poker,net_bonus")
        row = f"4D 4C 9D 7C 5D 8H,3,{{}},AS KS QS JS TS 2C,S,{MOST},{MOST},{MOST},{MOST},0,0,0,0"
    return "\n".join([head] + [f"1,{row.format(seat)}" for seat in range(1, n + 1)])


@pytest.mark.parametrize("game, seats, scale", [("let-it-ride", 300, 1), ("let-it-ride", 10_000, 1),
                                                ("triple-shot", 40, SCALE)])
def test_a_round_of_many_rows_due_the_most_is_over_the_payment_limit(tmp_path: Path, game, seats, scale):
    rows, posted, dues = ROYAL[game]
    log = write_log(game, _seats(game, seats), tmp_path / "many.csv")
    assert seats * sum(dues.values()) * scale > 2**63 - 1  # (the round's due, in Python's int)
    result = audit([log], profiles=[PROFILE_MODELS[game](id="most", payment_limit=MOST, **posted)])
    assert result.inputs[0].records_audited == seats
    prefix = {"let-it-ride": "LIR", "triple-shot": "TS"}[game]
    assert found(result)[f"{prefix}-PAY-CAPPED"] == (MOST, "0.00", soles(-LARGEST_CENTS))
    # (each winning bet of a capped round may be paid less than due: a bound, of no impact)
    assert {f.impact for f in result.findings.itertuples() if f.code == f"{prefix}-BONUS"} == {None}


def test_a_pool_of_the_largest_bets_of_every_seat_is_taken_its_commission_exactly(tmp_path: Path):
    """Pot Luck's round holds at most 9 seats: its pool of their largest bets, times the basis
    points of the commission, stays inside int64; commission and cap as Python's int gives them."""
    rows = "\n".join(["round_id,dealer_cards,seat,cards,actions,bet,pool_bet,net_main,pool_paid"]
                     + [f"1,TH 7C,{seat},9S 7D,S,10.00,{MOST},-10.00,0" for seat in range(1, 10)])
    log = write_log("pot-luck-blackjack", rows, tmp_path / "pool.csv")
    result = audit([log], profiles=[PROFILE_MODELS["pot-luck-blackjack"](id="pool", pool_commission_pct="4.99")])
    total = 9 * LARGEST_CENTS
    paid = total - total * 499 // 10_000  # (the commission truncated to the céntimo)
    got = found(result)
    assert got["PLB-POOL-COMMISSION"] == (soles(paid), "0.00", soles(-paid))
    assert got["PLB-POOL-CAP"] == (soles(total * 5 // 100), soles(total), None)
