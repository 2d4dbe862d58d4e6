"""Measure how many daily files one batch worker audits per second, on simulated Triple
Shot daily logs (round ids stamped with the day)::

    python -m auditor.batch.bench --files 32 --rounds 1000 [--workers N] [--scheduler tcp://…]

Prints the audit phase (the part that fans out) and the whole run (hashing, planning,
ledger and reports included), in files per second.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path


def make_days(folder: Path, files: int, rounds: int) -> list[Path]:
    import pandas as pd

    from ..simulate import run

    out = []
    for n in range(files):
        day = date(2026, 11, 1) + timedelta(days=n)
        path = folder / f"{day:%Y%m%d}" / "triple-shot.csv"
        run("triple-shot", rounds=rounds, seed=n, faults=0.01, out=path, start=day)
        path.with_name("triple-shot.truth.csv").unlink()
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
        df["round_id"] = df["table_id"] + f"-{day:%Y%m%d}-" + df["round_id"].str.rsplit("-", n=1).str[-1]
        df.to_csv(path, index=False)
        out.append(path)
    return out


def main(argv=None) -> None:
    from ..simulate import PROFILE_DIR
    from .runner import BatchOptions, run_batch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--scheduler")
    ap.add_argument("--dir", type=Path, help="Reuse/keep the logs here (default: a temporary folder).")
    args = ap.parse_args(argv)
    root = args.dir or Path(tempfile.mkdtemp(prefix="auditor-bench-"))
    logs = root / "logs"
    if not logs.exists():
        make_days(logs, args.files, args.rounds)
    paths = sorted(logs.rglob("*.csv"))
    size = sum(p.stat().st_size for p in paths) / len(paths)
    out = root / "out"
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    o = run_batch(BatchOptions(paths=[logs], out=out, workers=args.workers, scheduler=args.scheduler,
                               profiles=[PROFILE_DIR]))
    total = time.perf_counter() - t0
    n = len(o.audited)
    how = f"dask {args.scheduler}" if args.scheduler else f"{args.workers} local worker(s)"
    print(f"{n} files of {args.rounds} rounds ({size / 1e3:.0f} kB each), {how}: audit phase "
          f"{o.audit_seconds:.2f} s = {n / o.audit_seconds:.2f} files/s; whole run {total:.2f} s = "
          f"{n / total:.2f} files/s")
    if args.dir is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
