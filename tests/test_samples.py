"""The committed sample logs audit to exactly the faults their truth files list."""

from pathlib import Path

import pandas as pd

from auditor.engine import audit
from auditor.profiles import load_profiles

ROOT = Path(__file__).resolve().parent.parent


def test_sample_logs_findings_equal_their_truth_files():
    result = audit([ROOT / "sample_logs"], profiles=load_profiles([ROOT / "profiles"]))
    found = set(map(tuple, result.findings[["table_id", "round_id", "code"]].astype(str).to_numpy()))
    truth = set()
    for path in sorted((ROOT / "sample_logs").rglob("*.truth.csv")):
        truth |= set(map(tuple, pd.read_csv(path, dtype=str)[["table_id", "round_id", "code"]].to_numpy()))
    assert set(result.games) == {"pot-luck-blackjack", "let-it-ride", "triple-shot"}
    assert len(truth) > 50 and found == truth
    assert all(i.records_read == i.records_audited + i.records_rejected for i in result.inputs)
