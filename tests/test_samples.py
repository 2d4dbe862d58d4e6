"""The committed sample logs audit to exactly the faults their truth files list."""

from pathlib import Path

import pandas as pd
import pytest
from pydantic import TypeAdapter

from auditor.engine import audit
from auditor.findings import Finding
from auditor.profiles import load_profiles
from auditor.reporting.json_report import finding_records

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def result():
    return audit([ROOT / "sample_logs"], profiles=load_profiles([ROOT / "profiles"]))


def test_sample_logs_findings_equal_their_truth_files(result):
    found = set(map(tuple, result.findings[["table_id", "round_id", "code"]].astype(str).to_numpy()))
    truth = set()
    for path in sorted((ROOT / "sample_logs").rglob("*.truth.csv")):
        truth |= set(map(tuple, pd.read_csv(path, dtype=str)[["table_id", "round_id", "code"]].to_numpy()))
    assert set(result.games) == {"pot-luck-blackjack", "let-it-ride", "triple-shot"}
    assert len(truth) > 50 and found == truth
    assert all(i.records_read == i.records_audited + i.records_rejected for i in result.inputs)


def test_finding_records_are_what_the_model_dumps(result):
    """The report writes the validated rows as they are: they must equal the model's own JSON
    dump of them (no value that validation would have coerced)."""
    records = finding_records(result.findings)
    adapter = TypeAdapter(list[Finding])
    assert len(records) > 50
    assert adapter.dump_python(adapter.validate_python(records), mode="json") == records
