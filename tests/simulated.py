"""Simulate a log with planted faults, audit it, and return both sides for comparison."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from auditor.engine import audit
from auditor.profiles import load_profiles
from auditor.simulate import run

PROFILES = Path(__file__).resolve().parent.parent / "profiles"


def finding_keys(result) -> set:
    """The (table_id, round_id, code) of every finding of an audit."""
    return set(map(tuple, result.findings[["table_id", "round_id", "code"]].astype(str).to_numpy()))


def audit_against_truth(tmp_path: Path, game: str, seed: int, faults: float, rounds: int, suffix: str = ".csv"):
    """(audit result, finding keys, truth keys) of a freshly simulated log."""
    log, truth_file = run(game, rounds=rounds, seed=seed, faults=faults, out=tmp_path / f"log{suffix}")
    result = audit([log], profiles=load_profiles([PROFILES]))
    truth = set(map(tuple, pd.read_csv(truth_file, dtype=str)[["table_id", "round_id", "code"]].to_numpy()))
    return result, finding_keys(result), truth
