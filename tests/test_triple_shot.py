"""Triple Shot end to end: simulated logs with planted faults (both Póker modes); the audit
must find exactly the truth. A table's deck alternation is one sequence across files."""

from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from auditor.engine import audit
from auditor.profiles import load_profiles
from auditor.simulate import run
from simulated import audit_against_truth, finding_keys

PROFILES = Path(__file__).resolve().parent.parent / "profiles"
GAME = "triple-shot"


@pytest.mark.parametrize("seed", [7, 11, 23, 99])
def test_triple_shot_findings_equal_truth(tmp_path, seed):
    result, found, truth = audit_against_truth(tmp_path, GAME, seed, 0.02, 20_000)
    assert len(truth) > 300
    assert found - truth == set(), "findings the truth does not list"
    assert truth - found == set(), "planted faults the audit missed"
    assert not [r for r in result.rules if r.status == "error"]
    # Both Póker modes are dealt (caribbean at TS-01/02, paytable at TS-03/04) and both
    # carry planted Póker faults.
    poker_tables = {t for t, _, c in truth if c == "TS-POKER"}
    assert poker_tables & {"TS-01", "TS-02"} and poker_tables & {"TS-03", "TS-04"}


def test_triple_shot_every_fault_kind_occurs(tmp_path):
    _, _, truth = audit_against_truth(tmp_path, GAME, 5, 0.05, 20_000)
    from auditor.registry import GAMES

    # TS-PAY-CAPPED is not planted: at the simulator's stakes a round exceeds the sample
    # tables' payment limits (S/ 50,000-100,000) only with several royal flushes at once; its
    # case file covers it.
    expected = set(GAMES[GAME].spec.codes) - {"TS-PAYTABLE", "TS-PAY-CAPPED"}
    assert expected - {c for _, _, c in truth} == set()


def test_triple_shot_clean_log_has_nofinding_keys(tmp_path):
    result, found, truth = audit_against_truth(tmp_path, GAME, 3, 0.0, 10_000)
    assert truth == set() and found == set()
    assert result.rejected.empty
    # No round of the sample tables exceeds its payment limit (see above): nothing to check.
    assert {r.code: r.status for r in result.rules if r.status != "passed"} == {"TS-PAY-CAPPED": "not_applicable"}


def test_triple_shot_jsonl_gives_the_samefinding_keys(tmp_path):
    _, found, truth = audit_against_truth(tmp_path, GAME, 13, 0.05, 3_000, ".jsonl")
    assert found == truth


def test_deck_repeated_across_the_file_boundary(tmp_path):
    """Art. 2 c.2: a table's history split over two files (one per day) is audited as one
    sequence sorted by time: a deck repeated across midnight is found whatever the order of
    the files, and neither file alone shows it."""
    log, _ = run(GAME, rounds=2_400, seed=4, faults=0.0, out=tmp_path / "all.csv", start=date(2026, 11, 1))
    df = pd.read_csv(log, dtype=str, keep_default_na=False)
    day = pd.to_datetime(df["started_at"], utc=True).dt.tz_convert("America/Lima").dt.date
    assert day.nunique() == 2
    first_day = day == day.min()
    t = df["table_id"] == "TS-02"
    last = df[t & first_day]["round_id"].max()
    nxt = df[t & ~first_day]["round_id"].min()
    # The second day opens with the deck that closed the first: swap the table's two decks
    # (ids and colours) for the whole day, so only the first round of the day repeats one.
    last_deck = df.loc[t & (df["round_id"] == last), "deck_id"].iloc[0]
    assert df.loc[t & (df["round_id"] == nxt), "deck_id"].iloc[0] != last_deck
    decks = df[t].drop_duplicates("deck_id").set_index("deck_id")["deck_color"]
    assert len(decks) == 2
    (a, ca), (b, cb) = decks.items()
    later = t & ~first_day
    swapped = df.loc[later, "deck_id"].map({a: b, b: a})
    df.loc[later, "deck_color"] = swapped.map({a: ca, b: cb})
    df.loc[later, "deck_id"] = swapped
    one, two = tmp_path / "dia1.csv", tmp_path / "dia2.csv"
    df[first_day].to_csv(one, index=False)
    df[~first_day].to_csv(two, index=False)
    profiles = load_profiles([PROFILES])
    for order in ([one, two], [two, one]):
        found = finding_keys(audit(order, profiles=profiles))
        assert found == {("TS-02", nxt, "TS-TWO-DECKS")}
    for alone in (one, two):
        assert finding_keys(audit([alone], profiles=profiles)) == set()
