"""`make bench`: whole-process audit time and peak memory against a plain pandas read.

For each game with a simulator, a log of N rounds is simulated once and cached under
benchmarks/data/ (outside git). Each measurement runs in a fresh process, so start-up and
imports count, as they do for a user; peak RSS is the child's maximum resident set size.
Results are printed and written to benchmarks/results.json; docs/performance.md quotes them.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data"
BIN = Path(sys.executable).parent
SIZES = [int(s) for s in os.environ.get("BENCH_ROUNDS", "1000000").split(",")]
GAMES = os.environ.get("BENCH_GAMES", "").split(",") if os.environ.get("BENCH_GAMES") else None


def _peak(cmd: list[str]) -> tuple[float, float]:
    """Wall time and peak RSS measured by a wrapper process of its own."""
    probe = ("import resource,subprocess,sys,time;t=time.perf_counter();"
             "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL).returncode;"
             "w=time.perf_counter()-t;"
             "print(w, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024, r)")
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True, check=True).stdout
    wall, peak, code = out.split()
    if int(code) not in (0, 1):
        sys.exit(f"failed ({code}): {' '.join(cmd)}")
    return float(wall), float(peak)


PART = 1_000_000  # rounds simulated at once: a larger log is written in parts, one after another


def _simulate(game: str, n: int, log: Path) -> None:
    """A log of ``n`` rounds, simulated in parts of at most PART rounds (the simulator holds
    a part in memory). Part k starts 400 days after part k-1 (a million rounds of four tables
    span about ten months), so round ids and times follow on; a Triple Shot part continues
    the decks of the part before it."""
    from datetime import date, timedelta

    parts = []
    for k, lo in enumerate(range(0, n, PART)):
        part = log.with_name(f"{log.stem}.part{k}.csv")
        cmd = [str(BIN / "auditor"), "simulate", game, "--rounds", str(min(PART, n - lo)), "--seed", str(1 + k),
               "--faults", "0.01", "--out", str(part),
               "--start", (date(2026, 11, 1) + timedelta(days=400 * k)).isoformat()]
        if parts and game == "triple-shot":
            cmd += ["--continue-from", str(parts[-1])]
        subprocess.run(cmd, check=True)
        parts.append(part)
    if len(parts) == 1:
        parts[0].rename(log)
        parts[0].with_name(parts[0].stem + ".truth.csv").rename(log.with_name(log.stem + ".truth.csv"))
        return
    with log.open("wb") as out:
        for k, part in enumerate(parts):
            with part.open("rb") as fh:
                if k:
                    fh.readline()  # the header, written once
                while block := fh.read(1 << 24):
                    out.write(block)
    for part in parts:
        part.unlink()
        part.with_name(part.stem + ".truth.csv").unlink()


def main() -> None:
    from auditor.simulate import SIMULATORS

    results = {"machine": {"python": platform.python_version(), "platform": platform.platform(),
                           "cpus": os.cpu_count()}, "runs": []}
    import numpy
    import pandas
    import pyarrow

    results["machine"].update(pandas=pandas.__version__, numpy=numpy.__version__, pyarrow=pyarrow.__version__)
    DATA.mkdir(parents=True, exist_ok=True)
    for game in GAMES or sorted(SIMULATORS):
        for n in SIZES:
            log = DATA / f"{game}-{n}.csv"
            if not log.exists():
                print(f"simulating {n:,} rounds of {game} (cached in {log}) …", flush=True)
                _simulate(game, n, log)
            rows = sum(1 for _ in log.open("rb")) - 1
            read_s, read_mb = min(_peak([sys.executable, "-c",
                                         f"import pandas as pd; pd.read_csv({str(log)!r})"]) for _ in range(2))
            with tempfile.TemporaryDirectory() as out:
                audit = [str(BIN / "auditor"), "audit", str(log), "--profile", str(ROOT / "profiles"),
                         "--format", "json", "--out", out]
                audit_s, audit_mb = min(_peak(audit) for _ in range(2))
            run = {"game": game, "rounds": n, "rows": rows, "csv_mb": round(log.stat().st_size / 2**20, 1),
                   "pandas_read_s": round(read_s, 2), "pandas_read_peak_mb": round(read_mb),
                   "audit_s": round(audit_s, 2), "audit_peak_mb": round(audit_mb),
                   "rounds_per_s": round(n / audit_s), "ratio_to_read": round(audit_s / read_s, 2)}
            results["runs"].append(run)
            print(json.dumps(run), flush=True)
    (ROOT / "benchmarks" / "results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
