"""Simulators: realistic round logs with injected faults and their ground truth."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd

from ..profiles import load_profiles
from ..specs import SPEC_DIR

__all__ = ["run", "SIMULATORS", "PROFILE_DIR", "write_log"]

PROFILE_DIR = SPEC_DIR.parent / "profiles"


def _pot_luck(rounds, seed, faults, profiles, **kw):
    from .pot_luck_blackjack import simulate

    return simulate(rounds, seed, faults, profiles, **kw)


def _let_it_ride(rounds, seed, faults, profiles, **kw):
    from .let_it_ride import simulate

    return simulate(rounds, seed, faults, profiles, **kw)


SIMULATORS = {"pot-luck-blackjack": _pot_luck}
SIMULATORS["let-it-ride"] = _let_it_ride


def _triple_shot(rounds, seed, faults, profiles, **kw):
    from .triple_shot import simulate

    return simulate(rounds, seed, faults, profiles, **kw)


SIMULATORS["triple-shot"] = _triple_shot


def truth_path(out: Path) -> Path:
    name = out.name
    for suffix in (".csv.gz", ".jsonl.gz", ".csv", ".jsonl", ".parquet"):
        if name.endswith(suffix):
            return out.with_name(name[: -len(suffix)] + ".truth.csv")
    return out.with_name(name + ".truth.csv")


def write_log(frame: pd.DataFrame, out: Path, game: str) -> None:
    """Write hand rows as CSV, Parquet or canonical JSONL round documents (by suffix)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    name = out.name.lower()
    if name.endswith(".parquet"):
        frame.to_parquet(out, index=False)
    elif name.endswith((".jsonl", ".jsonl.gz")):
        import json

        from ..logs.schema import columns_of

        round_cols = [c.name for c in columns_of(game) if c.round_level]
        hand_cols = [c.name for c in columns_of(game) if not c.round_level]
        lines = []
        for _, group in frame.groupby(["table_id", "round_id"], sort=False):
            head = group.iloc[0]
            doc = {"game": game, **{c: head[c] for c in round_cols}}
            doc["hands"] = [{c: (None if c == "split_from" and row[c] == "" else
                                 int(row[c]) if c in ("seat", "hand", "split_from") else row[c])
                             for c in hand_cols} for row in group.to_dict("records")]
            lines.append(json.dumps(doc, ensure_ascii=False))
        text = "\n".join(lines) + "\n"
        if name.endswith(".gz"):
            import gzip

            out.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
        else:
            out.write_text(text, encoding="utf-8")
    else:
        frame.to_csv(out, index=False, compression="infer")


def run(game: str, *, rounds: int, seed: int, faults: float, out: Path,
        profiles: list[Path] | None = None, start: date | None = None,
        continue_from: Path | None = None) -> tuple[Path, Path]:
    """Simulate ``rounds`` rounds of ``game`` from day ``start``; write the log and
    ``<stem>.truth.csv``. ``continue_from`` (Triple Shot): an earlier CSV log whose tables
    this one continues (each table's deck sequence goes on across the two files)."""
    loaded = load_profiles(profiles or [PROFILE_DIR])
    extra = {"start": start} if start else {}
    if continue_from is not None:
        if game != "triple-shot":
            raise ValueError(f"--continue-from is supported for triple-shot only, not {game}")
        extra["previous"] = pd.read_csv(continue_from, dtype=str, keep_default_na=False)
    frame, truth = SIMULATORS[game](rounds, seed, faults, loaded, **extra)
    write_log(frame, out, game)
    tpath = truth_path(out)
    truth.to_csv(tpath, index=False)
    return out, tpath
