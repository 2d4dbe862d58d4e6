"""Money impact in a round whose winnings due exceed the posted payment limit: what a winning
bet is due is only a bound on its share of the limit, so the round's finding carries the money
(the prizes paid above the limit, or short of it), and a payment on a bet not due to win is its
own rule's impact, counted once (docs/interpretations.md)."""

from pathlib import Path

import pytest

from auditor.engine import audit
from auditor.profiles import PROFILE_MODELS
from test_rule_cases import write_log

CASES = [
    ("let-it-ride", "a losing seat paid beside a royal flush paid the limit", "100.00", """
round_id,community_cards,seat,cards,net_1,net_2,net_dollar
1,JS TS,1,AS KS QS,33.33,33.33,33.34
1,JS TS,2,2H 7D 9C,10.00,-10.00,-10.00
""", {("LIR-PAY-LIMIT", None): None, ("LIR-PAY", 2): "20.00"}),
    ("let-it-ride", "a royal flush paid above the limit, one bet above its due", "100.00", """
round_id,community_cards,seat,cards,net_1,net_2,net_dollar
1,JS TS,1,AS KS QS,30100.00,1.00,1.00
""", {("LIR-PAY-LIMIT", None): "30002.00", ("LIR-PAY", 1): None}),
    ("let-it-ride", "a royal flush paid short, a losing seat paid", "100.00", """
round_id,community_cards,seat,cards,net_1,net_2,net_dollar
1,JS TS,1,AS KS QS,30.00,30.00,30.00
1,JS TS,2,2H 7D 9C,10.00,-10.00,-10.00
""", {("LIR-PAY-CAPPED", None): "-10.00", ("LIR-PAY", 2): "20.00"}),
    ("pot-luck-blackjack", "insurance paid without a bet in a round over the limit", "20.00", """
round_id,dealer_cards,seat,cards,actions,bet,insurance,net_main,net_insurance
1,AH 7C,1,AS KD,,10.00,0,12.00,0
1,AH 7C,2,9S TD,S,10.00,0,8.00,10.00
""", {("PLB-PAY-LIMIT", None): None, ("PLB-INSURANCE-PAY", 2): "10.00"}),
    ("triple-shot", "a losing War bet paid beside a royal flush paid the limit", "100.00", """
round_id,dealer_cards,dealer_bj_count,seat,cards,actions,bonus_bet,net_war,net_bj,net_poker,net_bonus
1,4D 4C 9D 7C 5D 8H,3,1,AS KS QS JS TS 2C,S,5.00,10.00,15.00,50.00,25.00
1,4D 4C 9D 7C 5D 8H,3,2,2H 3D 7H 9S 6C 3C,S,0,10.00,-10.00,-10.00,0
""", {("TS-PAY-LIMIT", None): None, ("TS-WAR", 2): "20.00"}),
]


@pytest.mark.parametrize(("game", "name", "limit", "rows", "impacts"), CASES, ids=[c[1] for c in CASES])
def test_money_is_counted_once(tmp_path: Path, game, name, limit, rows, impacts):
    log = write_log(game, rows, tmp_path / "case.csv")
    result = audit([log], profiles=[PROFILE_MODELS[game](id="case", payment_limit=limit)])
    found = {(f.code, None if f.seat is None else int(f.seat)): f.impact for f in result.findings.itertuples()}
    assert {k: None if v is None else str(v) for k, v in found.items()} == impacts
