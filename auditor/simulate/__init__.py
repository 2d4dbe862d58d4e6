"""Simulators: realistic round logs with injected faults and their ground truth."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

from ..profiles import load_profiles
from ..specs import SPEC_DIR

__all__ = ["run", "SIMULATORS", "PROFILE_DIR", "write_log", "SimulateError"]

PROFILE_DIR = SPEC_DIR.parent / "profiles"


class SimulateError(ValueError):
    """A simulation that cannot be run as asked (exit code 2): ``key`` names the catalogue
    message, with its ``params``."""

    def __init__(self, key: str, **params):
        self.key, self.params = key, params
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        from ..i18n import t

        return t(self.key, lang, **self.params)


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
    """Write hand rows as CSV, Parquet or canonical JSONL round documents (by suffix); a
    ``.gz`` suffix compresses the text (deterministically: no time in the gzip header)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    name = out.name.lower()
    if name.endswith(".parquet"):
        frame.to_parquet(out, index=False)
        return
    if name.endswith((".jsonl", ".jsonl.gz")):
        data = _jsonl_text(frame, game).encode("utf-8")
    else:
        data = _csv_text(frame)
    if name.endswith(".gz"):
        import gzip

        data = gzip.compress(data, mtime=0)
    out.write_bytes(data)


def _csv_text(frame: pd.DataFrame) -> bytes:
    """The frame as ``DataFrame.to_csv(index=False)`` writes it (minimal quoting, ``\n``,
    missing values empty; a carriage return is quoted too, which Python's writer leaves bare),
    joined by Arrow: pandas' writer took 10 s of the 20 s of a 200,000-round Let It Ride
    simulation."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def text(value: str) -> pa.Scalar:
        return pa.scalar(value, pa.large_string())

    structural = np.zeros(256, bool)
    structural[list(b',"\r\n')] = True

    def quoted(values: pa.Array) -> pa.Array:
        data = values.buffers()[2]
        if data is None or not structural[np.frombuffer(data, np.uint8)].any():
            return values  # the usual column: nothing to quote (one look at its bytes)
        needs = pc.match_substring_regex(values, '[,"\r\n]')
        inner = pc.replace_substring(values, '"', '""')
        return pc.if_else(needs, pc.binary_join_element_wise(text('"'), inner, text('"'), text("")), values)

    columns = []
    for name in frame.columns:
        column = frame[name]
        if column.dtype.kind not in "iuOT":  # only whole numbers and text are simulated
            raise TypeError(f"column {name}: {column.dtype} is not written by the simulator")
        columns.append(quoted(pa.array(column.astype("str").fillna(""), type=pa.large_string())))
    header = quoted(pa.array(list(map(str, frame.columns)), type=pa.large_string())).to_pylist()
    head = (",".join(header) + "\n").encode("utf-8")
    if not columns or not len(frame):
        return head
    lines = pc.binary_join_element_wise(pc.binary_join_element_wise(*columns, text(",")), text(""), text("\n"))
    offsets = np.frombuffer(lines.buffers()[1], np.int64)[lines.offset:lines.offset + len(lines) + 1]
    return head + memoryview(lines.buffers()[2])[offsets[0]:offsets[-1]]


def _jsonl_text(frame: pd.DataFrame, game: str) -> str:
    """One canonical JSON document per round, in the order the rounds first occur, each with
    its hands in row order; made from whole columns, 20,000 rounds at a time."""
    import json

    from ..logs.schema import columns_of

    round_cols = [c.name for c in columns_of(game) if c.round_level]
    hand_cols = [c.name for c in columns_of(game) if not c.round_level]
    group = frame.groupby(["table_id", "round_id"], sort=False).ngroup().to_numpy()
    order = np.argsort(group, kind="stable")
    order = order[group[order] >= 0]  # a row without a round key is not written (as groupby)
    starts = np.r_[np.flatnonzero(np.diff(group[order], prepend=-1)), len(order)]
    lines = []
    for first in range(0, len(starts) - 1, 20_000):
        bounds = starts[first:first + 20_001]
        rows = frame.take(order[bounds[0]:bounds[-1]])
        bounds = (bounds - bounds[0]).tolist()
        heads = {c: rows[c].to_numpy()[bounds[:-1]].tolist() for c in round_cols}
        hands = {c: rows[c].tolist() for c in hand_cols}
        for c in {"seat", "hand"} & hands.keys():
            hands[c] = [int(v) for v in hands[c]]
        if "split_from" in hands:
            hands["split_from"] = [None if v == "" else int(v) for v in hands["split_from"]]
        docs = [dict(zip(hand_cols, values)) for values in zip(*(hands[c] for c in hand_cols))]
        for n, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
            doc = {"game": game, **{c: heads[c][n] for c in round_cols}, "hands": docs[lo:hi]}
            lines.append(json.dumps(doc, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _previous_log(game: str, path: Path) -> pd.DataFrame:
    """The rows of the earlier CSV log that ``--continue-from`` names, which must be a log of
    the simulated game (one of another game once ended in a KeyError)."""
    from ..logs.schema import columns_of

    if game != "triple-shot":
        raise SimulateError("cli.continue_from_game", game=game)
    try:
        previous = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError):
        previous = pd.DataFrame()
    missing = [c.name for c in columns_of(game) if c.required and c.name not in previous.columns]
    if missing:
        raise SimulateError("cli.continue_from_other", path=path, game=game, columns=", ".join(missing))
    return previous


def run(game: str, *, rounds: int, seed: int, faults: float, out: Path,
        profiles: list[Path] | None = None, start: date | None = None,
        continue_from: Path | None = None) -> tuple[Path, Path]:
    """Simulate ``rounds`` rounds of ``game`` from day ``start``; write the log and
    ``<stem>.truth.csv``. ``continue_from`` (Triple Shot): an earlier CSV log whose tables
    this one continues (each table's deck sequence goes on across the two files)."""
    loaded = load_profiles(profiles or [PROFILE_DIR])
    extra = {"start": start} if start else {}
    if continue_from is not None:
        extra["previous"] = _previous_log(game, Path(continue_from))
    frame, truth = SIMULATORS[game](rounds, seed, faults, loaded, **extra)
    write_log(frame, out, game)
    tpath = truth_path(out)
    truth.to_csv(tpath, index=False)
    return out, tpath
