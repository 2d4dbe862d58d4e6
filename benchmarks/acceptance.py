"""The issues' acceptance runs at full size, through the command line as a user would run them:
simulate N rounds with planted faults for each seed, audit the log, and compare the set of
(table_id, round_id, code) in the JSON findings with the truth file. Also checks that a clean
log (faults 0) yields no finding. Not part of `make test` (minutes, not seconds):

    .venv/bin/python benchmarks/acceptance.py [GAME ...]     # ROUNDS=200000 SEEDS=7,11,23,99
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ROUNDS = int(os.environ.get("ROUNDS", "200000"))
SEEDS = [int(s) for s in os.environ.get("SEEDS", "7,11,23,99").split(",")]


def _run(game: str, seed: int, faults: float, work: Path) -> tuple[int, int, int, float]:
    log = work / f"{game}-{seed}-{faults}.csv"
    subprocess.run([str(BIN / "auditor"), "simulate", game, "--rounds", str(ROUNDS), "--seed", str(seed),
                    "--faults", str(faults), "--out", str(log)], check=True, capture_output=True)
    out = work / f"out-{game}-{seed}-{faults}"
    t0 = time.perf_counter()
    proc = subprocess.run([str(BIN / "auditor"), "audit", str(log), "--profile", str(ROOT / "profiles"),
                           "--format", "json", "--out", str(out)], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        sys.exit(proc.stderr)
    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    found = {(f["table_id"], f["round_id"], f["code"]) for f in report["findings"]}
    with open(log.with_name(log.name[:-4] + ".truth.csv"), newline="", encoding="utf-8") as fh:
        truth = {(r["table_id"], r["round_id"], r["code"]) for r in csv.DictReader(fh)}
    return len(truth), len(truth - found), len(found - truth), seconds


def main(games: list[str]) -> int:
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for game in games:
            for seed in SEEDS:
                n, missed, extra, secs = _run(game, seed, 0.02, Path(tmp))
                ok = missed == 0 and extra == 0
                failed += not ok
                print(f"{game} seed {seed}: truth {n}, missed {missed}, extra {extra}, audit {secs:.1f} s"
                      f" -> {'OK' if ok else 'FAIL'}", flush=True)
            n, missed, extra, secs = _run(game, SEEDS[0], 0.0, Path(tmp))
            ok = n == 0 and extra == 0
            failed += not ok
            print(f"{game} faults 0: findings {extra} -> {'OK' if ok else 'FAIL'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    from auditor.simulate import SIMULATORS

    sys.exit(main(sys.argv[1:] or sorted(SIMULATORS)))
