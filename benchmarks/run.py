"""`make bench`: whole-process audit time and peak memory against a plain pandas read.

For each game with a simulator, a log of N rounds is simulated once and cached under
benchmarks/data/ (outside git). Each measurement runs in a fresh process, so start-up and
imports count, as they do for a user; peak RSS is the child's maximum resident set size.
Results are printed and written to benchmarks/results.json; docs/performance.md quotes them.
"""

from __future__ import annotations

import compileall
import json
import os
import platform
import subprocess
import sys
import tempfile
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


PART = 1_000_000  # rounds simulated at once (the simulator holds a log in memory)


def _simulate(game: str, n: int, log: Path) -> None:
    """A log of ``n`` rounds. Up to PART rounds are simulated; a larger log (a multiple of
    PART) is the PART-round log once per group of tables: copy k renames every table (and the
    shoe and deck ids, which carry the table's name) from "PLB-01" to "PLBk-01", so a 10M-round
    log is a hall of 40 tables instead of 4, each with its own whole history."""
    if n <= PART:
        subprocess.run([str(BIN / "auditor"), "simulate", game, "--rounds", str(n), "--seed", "1",
                        "--faults", "0.01", "--out", str(log)], check=True)
        return
    if n % PART:
        sys.exit(f"{n:,} rounds: a log larger than {PART:,} rounds must be a multiple of it")
    base = DATA / f"{game}-{PART}.csv"
    if not base.exists():
        _simulate(game, PART, base)
    with base.open("rb") as fh:
        header = fh.readline()
        prefix = fh.readline().split(b",")[header.split(b",").index(b"table_id")].split(b"-")[0] + b"-"
    with log.open("wb") as out:
        out.write(header)
        for k in range(n // PART):
            renamed = _renamed(prefix.decode(), k).encode()
            with base.open("rb") as fh:
                fh.readline()
                tail = b""
                while block := fh.read(1 << 24):
                    block = tail + block
                    cut = block.rfind(b"\n") + 1  # whole lines only: a name is never cut in two
                    block, tail = block[:cut], block[cut:]
                    block = (b"\n" + block).replace(b"\n" + prefix, b"\n" + renamed)
                    out.write(block[1:].replace(b"," + prefix, b"," + renamed))
                out.write(tail)


def _renamed(prefix: str, k: int) -> str:
    return f"{prefix[:-1]}{k}-" if k else prefix


def _profiles(game: str, n: int) -> Path:
    """The profiles a log of ``n`` rounds is audited under: the hall's, with each table list
    extended to the renamed tables of a log made of copies (see ``_simulate``)."""
    if n <= PART:
        return ROOT / "profiles"
    folder = DATA / f"profiles-{n}"
    folder.mkdir(exist_ok=True)
    for source in (ROOT / "profiles").glob("*.toml"):
        lines = []
        for line in source.read_text(encoding="utf-8").splitlines():
            if line.startswith("tables = ["):
                tables = json.loads(line.split("=", 1)[1])
                prefixes = {t.split("-")[0] + "-" for t in tables}
                tables += [t.replace(p, _renamed(p, k), 1) for k in range(1, n // PART) for t in tables
                           for p in prefixes if t.startswith(p)]
                line = "tables = " + json.dumps(tables)
            lines.append(line)
        (folder / source.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def main() -> None:
    from auditor.simulate import SIMULATORS

    results = {"machine": {"python": platform.python_version(), "platform": platform.platform(),
                           "cpus": os.cpu_count()}, "runs": []}
    import numpy
    import pandas
    import pyarrow

    results["machine"].update(pandas=pandas.__version__, numpy=numpy.__version__, pyarrow=pyarrow.__version__)
    DATA.mkdir(parents=True, exist_ok=True)
    # The tool's bytecode is compiled first, as any run after a user's first one finds it:
    # where PYTHONDONTWRITEBYTECODE is set (CI, this project's sandbox) an editable install
    # would otherwise compile every module of the package again at each start (~0.1 s).
    compileall.compile_dir(ROOT / "auditor", quiet=1)
    for game in GAMES or sorted(SIMULATORS):
        for n in SIZES:
            log = DATA / f"{game}-{n}.csv"
            if not log.exists():
                print(f"simulating {n:,} rounds of {game} (cached in {log}) …", flush=True)
                _simulate(game, n, log)
            rows = sum(1 for _ in log.open("rb")) - 1
            repeats = 2 if n <= PART else 1  # best of two, or one run for the large logs
            read_s, read_mb = min(_peak([sys.executable, "-c",
                                         f"import pandas as pd; pd.read_csv({str(log)!r})"]) for _ in range(repeats))
            with tempfile.TemporaryDirectory() as out:
                audit = [str(BIN / "auditor"), "audit", str(log), "--profile", str(_profiles(game, n)),
                         "--format", "json", "--out", out]
                audit_s, audit_mb = min(_peak(audit) for _ in range(repeats))
            run = {"game": game, "rounds": n, "rows": rows, "csv_mb": round(log.stat().st_size / 2**20, 1),
                   "pandas_read_s": round(read_s, 2), "pandas_read_peak_mb": round(read_mb),
                   "audit_s": round(audit_s, 2), "audit_peak_mb": round(audit_mb),
                   "rounds_per_s": round(n / audit_s), "ratio_to_read": round(audit_s / read_s, 2)}
            results["runs"].append(run)
            print(json.dumps(run), flush=True)
    # Runs of other games and sizes measured earlier are kept (a run replaces its own).
    path = ROOT / "benchmarks" / "results.json"
    measured = {(r["game"], r["rounds"]) for r in results["runs"]}
    if path.exists():
        earlier = json.loads(path.read_text())["runs"]
        results["runs"] += [r for r in earlier if (r["game"], r["rounds"]) not in measured]
    results["runs"].sort(key=lambda r: (r["rounds"], r["game"]))
    path.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
