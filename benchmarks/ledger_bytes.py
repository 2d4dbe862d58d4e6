"""The bytes ``engine._Ledger`` keeps per round, measured: audit a folder (or files) in this
process and, when each game's audit finishes, sum the sizes of what its ledger holds (every
array, Arrow array and byte string of its parts, and its frame of gaps).

    .venv/bin/python benchmarks/ledger_bytes.py benchmarks/data/triple-shot-1000000-days

Prints, per game with a ledger, the rounds kept, the bytes kept and the bytes per round, and
the bytes per round of each of its columns.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

from auditor import engine


def _size(value) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (pa.Array, pa.ChunkedArray, pa.Buffer)):
        return value.nbytes if not isinstance(value, pa.Buffer) else value.size
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value)
    if isinstance(value, dict):
        return sum(_size(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_size(v) for v in value)
    if hasattr(value, "nbytes_kept"):  # a packed column of the ledger
        return value.nbytes_kept()
    return 0


def main() -> None:
    measured = []
    finish = engine._GameRun.finish

    def measuring(self, *args, **kwargs):
        ledger = self.ledger
        if ledger is not None:
            rounds = sum(int(p["n"]) if "n" in p else len(p["t"]) for p in ledger.parts)
            parts = sum(_size(p) for p in ledger.parts)
            gaps = int(ledger.gaps.memory_usage(deep=True).sum())
            columns: dict[str, int] = {}
            for part in ledger.parts:
                for name, value in part.items():
                    columns[name] = columns.get(name, 0) + _size(value)
            measured.append((self.game, rounds, parts, gaps, len(ledger.gaps), columns))
        return finish(self, *args, **kwargs)

    engine._GameRun.finish = measuring
    engine.audit([Path(p) for p in sys.argv[1:]])
    for game, rounds, parts, gaps, n_gaps, columns in measured:
        print(f"{game}: {rounds:,} rounds kept, {parts:,} bytes ({parts / max(rounds, 1):.2f} a round); "
              f"{n_gaps:,} gaps, {gaps:,} bytes")
        print("  a round, by column: " + ", ".join(f"{name} {size / max(rounds, 1):.3f}"
                                                  for name, size in columns.items()))


if __name__ == "__main__":
    main()
