"""`make bench`: whole-process audit time and peak memory against a plain pandas read.

For each game with a simulator, a log of N rounds is simulated once and cached under
benchmarks/data/ (outside git). Each measurement runs in a fresh process, so start-up and
imports count, as they do for a user; peak RSS is the child's maximum resident set size.
A log of up to a million rounds is also measured as a folder of daily exports (one file per
table and day, made from it once), against a pandas read of each file, and as one Parquet
file (made from it once), against a pandas read of that file; and the time its HTML report
adds to its audit is measured (``_html_run``). Results are printed
and written to benchmarks/results.json; docs/performance.md quotes them.
"""

from __future__ import annotations

import compileall
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data"
BIN = Path(sys.executable).parent
SIZES = [int(s) for s in os.environ.get("BENCH_ROUNDS", "1000000").split(",")]
GAMES = os.environ.get("BENCH_GAMES", "").split(",") if os.environ.get("BENCH_GAMES") else None
# Also the log of up to a million rounds as a folder of daily exports, one file per table and
# day (about 1,100 files): how a hall's exports arrive. BENCH_FOLDERS=0 leaves it out.
FOLDERS = os.environ.get("BENCH_FOLDERS", "1") != "0"
# Also the log of up to a million rounds as one Parquet file (every column text, as exports
# store them), against a pandas read of that file. BENCH_PARQUET=0 leaves it out.
PARQUET = os.environ.get("BENCH_PARQUET", "1") != "0"
# Also what the HTML report adds to the audit of that log (issue 8: under 2 s for 10,000
# findings). BENCH_HTML=0 leaves it out.
HTML = os.environ.get("BENCH_HTML", "1") != "0"
# Runs of each measurement of a log of up to a million rounds (BENCH_REPEATS); a run of this
# VM moves by 10-15 % with its spell, so one pair says little.
REPEATS = max(1, int(os.environ.get("BENCH_REPEATS", "3")))


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


def _daily_files(log: Path, folder: Path) -> list[Path]:
    """The log as a hall exports it: one file per table and day (its header on each), in
    ``folder`` (made once, cached)."""
    if not folder.exists():
        import numpy as np
        import pandas as pd

        keys = pd.read_csv(log, usecols=["table_id", "started_at"], dtype=str)
        name = keys["table_id"] + "_" + keys["started_at"].str[:10]
        codes, names = pd.factorize(name)
        header, _, body = log.read_bytes().partition(b"\n")
        lines = body.split(b"\n")[:len(codes)]
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(names) + 1))
        part = folder.with_name(folder.name + ".part")
        part.mkdir(parents=True, exist_ok=True)
        for i, file_name in enumerate(names):
            rows = [lines[j] for j in order[bounds[i]:bounds[i + 1]]]
            (part / f"{file_name}.csv").write_bytes(header + b"\n" + b"\n".join(rows) + b"\n")
        part.rename(folder)
    return sorted(folder.glob("*.csv"))


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


def _key(run: dict) -> tuple:
    return run["game"], run["rounds"], run.get("files", 1), run.get("form", "csv")


def _parquet_run(game: str, n: int, log: Path, repeats: int) -> dict:
    """The same rounds as one Parquet file (made once, cached), every column as text, in
    Arrow's default row groups; against a plain pandas read of that file."""
    target = log.with_suffix(".parquet")
    if not target.exists():
        import pyarrow as pa
        import pyarrow.csv as pv
        import pyarrow.parquet as pq

        names = log.open(encoding="utf-8").readline().strip().split(",")
        table = pv.read_csv(log, convert_options=pv.ConvertOptions(column_types=dict.fromkeys(names, pa.string())))
        pq.write_table(table, target.with_suffix(".part"))
        target.with_suffix(".part").rename(target)
    run = _measured(game, n, target, f"import pandas as pd; pd.read_parquet({str(target)!r})",
                    target.stat().st_size, repeats)
    run["parquet_mb"] = run.pop("csv_mb")
    return {"game": game, "rounds": n, "form": "parquet", **run}


def _measured(game: str, n: int, target: Path, read: str, csv_bytes: int, repeats: int) -> dict:
    """The audit of ``target`` (a log or a folder) to JSON against the pandas read ``read``
    (Python code) of the same rows, each whole-process, ``repeats`` times each, taken in
    turn (read, audit, read, audit, …), so that a slow spell of the VM weighs on both sides:
    the best of each, the ratio of each pair and their median, and the highest peak of
    memory of each side over its runs."""
    reads, audits = [], []
    with tempfile.TemporaryDirectory() as out:
        audit = [str(BIN / "auditor"), "audit", str(target), "--profile", str(_profiles(game, n)),
                 "--format", "json", "--out", out]
        for _ in range(repeats):
            reads.append(_peak([sys.executable, "-c", read]))
            audits.append(_peak(audit))
    read_s, audit_s = min(r[0] for r in reads), min(a[0] for a in audits)
    pairs = [a[0] / r[0] for r, a in zip(reads, audits)]
    return {"csv_mb": round(csv_bytes / 2**20, 1),
            "pandas_read_s": round(read_s, 2), "pandas_read_peak_mb": round(max(r[1] for r in reads)),
            "audit_s": round(audit_s, 2), "audit_peak_mb": round(max(a[1] for a in audits)),
            "rounds_per_s": round(n / audit_s), "ratio_to_read": round(audit_s / read_s, 2),
            "pandas_read_runs_s": [round(r[0], 2) for r in reads], "audit_runs_s": [round(a[0], 2) for a in audits],
            "median_pair_ratio": round(statistics.median(pairs), 2)}


def _folder_run(game: str, n: int, log: Path, repeats: int) -> dict:
    """The same rounds as a folder of daily exports (``_daily_files``): the audit of the
    folder against a plain pandas read of each of its files."""
    files = _daily_files(log, DATA / f"{game}-{n}-days")
    read = (f"import glob, pandas as pd; [pd.read_csv(f) for f in sorted(glob.glob("
            f"{str(files[0].parent / '*.csv')!r}))]")
    return {"game": game, "rounds": n, "files": len(files),
            **_measured(game, n, files[0].parent, read, sum(f.stat().st_size for f in files), repeats)}


def _html_run(game: str, n: int, log: Path, repeats: int) -> dict:
    """What the HTML report adds to an audit of the log: the time to write it from the audit's
    result and the report data that every format shares (the JSON writes from the same), in a
    fresh process, ``repeats`` times; the best, every run, and the findings it shows."""
    code = f"""
import json, sys, tempfile, time
from pathlib import Path
from auditor import engine, reporting
from auditor.profiles import load_profiles
result = engine.audit([Path({str(log)!r})], profiles=load_profiles([Path({str(_profiles(game, n))!r})]))
report = reporting.build_report(result)
with tempfile.TemporaryDirectory() as out:
    start = time.perf_counter()
    reporting.write_html(result, Path(out) / "audit-report.html", report=report)
    print(json.dumps([len(report["findings"]), time.perf_counter() - start]))
"""
    runs = [json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                      cwd=ROOT).stdout) for _ in range(repeats)]
    return {"game": game, "rounds": n, "form": "html", "findings": runs[0][0],
            "html_s": round(min(r[1] for r in runs), 2), "html_runs_s": [round(r[1], 2) for r in runs]}


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
            repeats = REPEATS if n <= PART else 1  # one run for the large logs
            run = {"game": game, "rounds": n, "rows": rows,
                   **_measured(game, n, log, f"import pandas as pd; pd.read_csv({str(log)!r})",
                               log.stat().st_size, repeats)}
            results["runs"].append(run)
            print(json.dumps(run), flush=True)
            if n <= PART and FOLDERS:
                results["runs"].append(_folder_run(game, n, log, repeats))
                print(json.dumps(results["runs"][-1]), flush=True)
            if n <= PART and PARQUET:
                results["runs"].append(_parquet_run(game, n, log, repeats))
                print(json.dumps(results["runs"][-1]), flush=True)
            if n <= PART and HTML:
                results["runs"].append(_html_run(game, n, log, repeats))
                print(json.dumps(results["runs"][-1]), flush=True)
    # Runs of other games and sizes measured earlier are kept (a run replaces its own).
    path = ROOT / "benchmarks" / "results.json"
    measured = {_key(r) for r in results["runs"]}
    if path.exists():
        earlier = json.loads(path.read_text())["runs"]
        results["runs"] += [r for r in earlier if _key(r) not in measured]
    results["runs"].sort(key=lambda r: (r["rounds"], r["game"], r.get("files", 1), r.get("form", "csv")))
    path.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
