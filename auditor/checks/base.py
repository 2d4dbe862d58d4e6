"""The shape every check returns, and helpers the game checks share.

A check is a pure function of a game's audit context returning a ``CheckResult``: which rows
of one of the context's frames (hands, rounds, profiles, card faults) the rule applies to,
which of them violate it, and, for money rules, what was expected and observed. Checks
never stop at a first failure and never loop over rows in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa

from ..cards import cards_text, format_cards
from ..compiled import kernel
from ..money import LARGEST_CENTS, cents_text
from ..rowwise import frame_rows, rows_text

__all__ = ["CheckResult", "Check", "GameContext", "DECK_FIELDS", "DECK_CASELESS", "reasons", "deck_alternation_result", "most_copies",
           "positions_result", "card_faults_result", "pay_limit_result", "capped_rounds",
           "capped_pay_mismatch", "capped_pay_result", "prizes_paid", "pays_less_above", "round_index",
           "previous_rounds", "sequence", "Sequence", "money_mismatch", "first_index", "group_sum", "group_max",
           "group_any", "cents_from_scaled", "categorical_objects", "text_codes",
           "unique_groups", "repeated", "seat_keys", "KEY_BASE", "limits_evidence", "copies_evidence"]


@dataclass(frozen=True)
class CheckResult:
    frame: pd.DataFrame           # rows the masks index; has table_id, round_id (+ seat, hand…)
    applies: np.ndarray           # bool: the rule was checked on this row
    violates: np.ndarray          # bool: the row breaks the rule (always within applies)
    expected: np.ndarray | None = None   # céntimos × scale
    observed: np.ndarray | None = None   # céntimos × scale
    scale: int = 1
    reason: np.ndarray | None = None     # int index into ``reasons``
    reasons: tuple[str, ...] = ()        # catalogue keys, e.g. "reason.plb.split_unequal"
    evidence: Callable[[np.ndarray], dict[str, list]] | None = None
    round_index: np.ndarray | None = None  # round of each row (counts rounds checked)
    note: str = ""                        # catalogue key explaining a not-applicable rule
    rounds_checked: int | None = None     # when the rows are not all the rounds checked
    per_profile: bool = False             # rows are the table profiles, not rounds: judged once
    # expected/observed are a bound and a total (a limit, a cap), not a payment: no money
    # impact, which another finding of the same fault already reports (no double counting).
    # Per row (a bool array) where only some rows are bounds (see ``capped_pay_mismatch``).
    bound_only: bool | np.ndarray = False
    # céntimos × scale: the money impact where it is not observed − expected (see
    # ``pay_limit_result``); rows that are bounds still carry none.
    impact: np.ndarray | None = None
    # A rule over consecutive rounds: where it applies to the round whatever the round before it
    # (``applies`` less the rounds with no known round before them), so that the engine can
    # judge a round again once a later file gives the round just before it (``engine._Ledger``).
    applies_alone: np.ndarray | None = None

    def __post_init__(self):
        object.__setattr__(self, "violates", self.violates & self.applies)


Check = Callable[..., CheckResult]


def reasons(*pairs: tuple[np.ndarray, str]) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """(violates, reason index, reason keys): the first matching reason names each row."""
    masks = [np.asarray(m, bool) for m, _ in pairs]
    violates = np.logical_or.reduce(masks)
    # From the last reason to the first, each row's index is replaced by i where mask i holds,
    # by arithmetic on the masks: a masked assignment per reason took 10-15 ms over a chunk's
    # 360,000 hands, most of them matching the first reason.
    reason = np.zeros(len(violates), dtype=np.int8)
    for i in range(len(masks) - 1, -1, -1):
        reason *= ~masks[i]
        if i:
            reason += masks[i].astype(np.int8) * np.int8(i)
    return violates, reason, tuple(k for _, k in pairs)


def round_index(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(round number 0..R-1 of each row, first row of each round) for rows sorted so that a
    round's rows are contiguous (the engine's order); ``_rkey`` identifies the round."""
    rkey = df["_rkey"].to_numpy()
    if not len(rkey):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    starts = np.r_[True, rkey[1:] != rkey[:-1]]
    return np.cumsum(starts) - 1, np.flatnonzero(starts)


def text_codes(columns: list[pd.Series], *, sort: bool = False, lower: bool = False) -> list[np.ndarray]:
    """Codes of the values of several text columns in one vocabulary: equal text, equal code
    (with ``lower``, compared without regard to case; with ``sort``, codes sort like the
    text); -1 for a missing value. A categorical is converted through its categories, never
    row by row."""
    local, vocab = [], []
    for s in columns:
        if isinstance(s.dtype, pd.CategoricalDtype):
            codes, uniques = s.cat.codes.to_numpy(), s.cat.categories
        else:
            codes, uniques = pd.factorize(s)
            uniques = np.asarray(uniques, dtype=object)
        local.append(codes.astype(np.int64))
        # Arrow-backed categories may come in several chunks.
        vocab.append(pa.chunked_array(pa.array(uniques, pa.large_string())))
    text = pa.chunked_array([c for v in vocab for c in v.chunks], pa.large_string()).combine_chunks()
    if lower:
        text = pa.array(np.char.lower(text.to_numpy(zero_copy_only=False).astype(str)), pa.large_string())
    shared = pd.factorize(pd.arrays.ArrowStringArray(text), sort=sort)[0]
    out, at = [], 0
    for codes, v in zip(local, vocab):
        mapped = np.r_[shared[at:at + len(v)], -1]  # code -1 stays missing
        out.append(mapped[codes])
        at += len(v)
    return out


@dataclass(frozen=True)
class Sequence:
    """Each table's rounds in time order, as the rules over consecutive rounds read them
    (``sequence``): the entries are the carried rounds, then the chunk's audited rounds (in
    the order of ``rounds``), then its gaps, one frame each in ``parts``."""

    parts: list[pd.DataFrame]
    kind: np.ndarray      # of each entry: 0 carried, 1 the chunk's round, 2 a gap
    rejected: np.ndarray  # the entry is a round rejected for a fault of its own
    before: np.ndarray    # the entry just before it in its table's sequence, -1 for none

    def rows(self, at: np.ndarray, columns: list[str]) -> pd.DataFrame:
        """The entries at ``at``, in that order: their ``columns`` (None where a part has none)."""
        ends = np.cumsum([len(p) for p in self.parts])
        part = np.searchsorted(ends, at, side="right")
        pieces, taken = [], []
        for k, frame in enumerate(self.parts):
            mine = np.flatnonzero(part == k)
            if len(mine):
                local = at[mine] - (ends[k] - len(frame))
                got = frame_rows(frame[[c for c in columns if c in frame]], local)
                pieces.append(got.assign(**{c: None for c in columns if c not in frame})[columns])
                taken.append(mine)
        if not pieces:
            return pd.DataFrame(columns=columns)
        out = pd.concat(pieces, ignore_index=True)
        return out.iloc[np.argsort(np.concatenate(taken), kind="stable")].reset_index(drop=True)


def sequence(rounds: pd.DataFrame, gaps: pd.DataFrame, previous: list[dict]) -> Sequence:
    """The table's sequence of the audited ``rounds`` (in time, across files and earlier
    chunks). A round rejected for a fault of its own (``gaps``: an unreadable card, an amount
    that does not parse, …) sits in the sequence too. ``previous`` is the engine's carry:
    each table's last round of the earlier chunks, as records (see ``engine._last_per_table``),
    and the rounds it keeps beside a gap that a later copy may fill (``engine._Sequel``)."""
    parts = [(pd.DataFrame(previous), 0)] if previous else []
    parts.append((rounds, 1))
    if len(gaps):
        parts.append((gaps, 2))
    kind = np.concatenate([np.full(len(p), k, np.int8) for p, k in parts])
    rejected = np.concatenate([p["_rejected"].to_numpy(dtype=bool) if k == 0 else np.full(len(p), k == 2)
                               for p, k in parts])
    parts = [p for p, _ in parts]
    times = pd.to_datetime(pd.concat([p["started_at"] for p in parts], ignore_index=True), utc=True).array.asi8
    table = np.concatenate(text_codes([p["table_id"] for p in parts]))
    # In time order within each table; at equal times the carried round (earlier chunk) first,
    # then by round id (whose text is sorted only when two rounds of a table share a time).
    order, tie = _by_table_and_time(table, times, kind != 0)
    if tie:
        round_text = np.concatenate(text_codes([p["round_id"] for p in parts], sort=True))
        order = np.lexsort([round_text, kind != 0, times, table])
    before = np.full(len(kind), -1, np.int64)
    same = table[order[1:]] == table[order[:-1]]
    before[order[1:]] = np.where(same, order[:-1], -1)
    return Sequence(parts, kind, rejected, before)


def previous_rounds(ctx: GameContext, columns: list[str],
                    lower: tuple[str, ...] = ()) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """For each audited round, whether the table's round just before it (in time, across
    files and earlier chunks: ``ctx.sequence``) is known, and whether each of ``columns``
    holds the same text in both (those in ``lower`` compared without regard to case).

    A round rejected for a fault of its own breaks the sequence: the round after it has no
    known predecessor (its deck, say, is not known to be right), so it is not compared across
    the gap, nor with the round before the gap."""
    seq = ctx.sequence
    parts, kind, rejected, before = seq.parts, seq.kind, seq.rejected, seq.before
    mine = np.flatnonzero(kind == 1)
    prev = before[mine]
    known = prev >= 0
    known[known] = ~rejected[prev[known]]
    equal = {}
    for c in columns:
        codes = np.concatenate(text_codes([p[c] if c in p else pd.Series(np.full(len(p), None, object))
                                           for p in parts], lower=c in lower))
        equal[c] = codes[mine] == codes[np.maximum(prev, 0)]
    return known, equal


def _by_table_and_time(table: np.ndarray, times: np.ndarray, later: np.ndarray) -> tuple[np.ndarray, bool]:
    """The order of ``np.lexsort([later, times, table])``, and whether two rows share a table
    and a time. By one stable sort of a single integer key where it fits in 63 bits (a span
    of a century of microseconds across a thousand tables does), twice as fast."""
    if not len(table):
        return np.arange(0), False
    low, span = int(times.min()), int(times.max()) - int(times.min()) + 1  # (as Python ints: no overflow)
    if span * (int(table.max()) + 1) * 2 >= 2**63:
        order = np.lexsort([later, times, table])
        return order, bool(((table[order][1:] == table[order][:-1]) & (times[order][1:] == times[order][:-1])).any())
    key = (table.astype(np.int64) * span + (times - low)) * 2 + later
    order = np.argsort(key, kind="stable")
    place = key[order] >> 1
    return order, bool((place[1:] == place[:-1]).any())


def most_copies(ctx: GameContext, shared: np.ndarray) -> np.ndarray:
    """The most copies of any one card in each round, over the hands' cards and the round's
    ``shared`` cards (dealer or community, one row per round)."""
    return _most_copies(ctx.first, ctx.cards, shared)


@kernel
def _most_copies(first, cards, shared):
    """Rows of round r are first[r] .. first[r + 1] - 1 (the engine's order). The counts are
    swept 64 wide into a local maximum, a loop the compiler vectorises (18 -> 9 ms a chunk)."""
    rounds = len(first)
    most, counts = np.zeros(rounds, np.int64), np.zeros(64, np.int32)
    for r in range(rounds):
        end = first[r + 1] if r + 1 < rounds else len(cards)
        for i in range(first[r], end):
            for k in range(cards.shape[1]):
                if cards[i, k] >= 0:
                    counts[cards[i, k]] += 1
        for k in range(shared.shape[1]):
            if shared[r, k] >= 0:
                counts[shared[r, k]] += 1
        m = 0
        for c in range(64):
            m = max(m, counts[c])
            counts[c] = 0
        most[r] = m
    return most


def copies_evidence(ctx: GameContext, shared: np.ndarray, allowed: np.ndarray | int = 1):
    """Evidence of a rule on the copies of a card in a round (``most_copies``): the cards the
    round holds more often than ``allowed`` (per round, or one number), each with its count
    (``3D×2``). Built for the violating rounds only, a round at a time."""
    allowed = np.broadcast_to(np.asarray(allowed), (ctx.n_rounds,))

    def evidence(idx: np.ndarray) -> dict[str, list]:
        texts = []
        for r in idx.tolist():
            end = ctx.first[r + 1] if r + 1 < ctx.n_rounds else len(ctx.cards)
            codes = np.concatenate([ctx.cards[ctx.first[r]:end].ravel(), shared[r]])
            counts = np.bincount(codes[codes >= 0], minlength=64)
            over = np.flatnonzero(counts > allowed[r])
            names = format_cards(over.tolist()).split(" ")  # (one row: not worth a matrix's spelling)
            texts.append(" ".join(f"{name}×{counts[c]}" for name, c in zip(names, over.tolist())))
        return {"repeated_cards": texts}
    return evidence


def positions_result(ctx: GameContext, seats: int, too_many: str, outside: str) -> CheckResult:
    """At most ``seats`` player positions in a round, numbered 1..``seats`` (the reason keys
    name the two ways to break it)."""
    n = group_sum(np.ones(len(ctx.rid), np.int64), ctx.rid, ctx.n_rounds)
    off = group_any((ctx.seat < 1) | (ctx.seat > seats), ctx.rid, ctx.n_rounds)
    violates, reason, keys = reasons((n > seats, too_many), (off, outside))
    return ctx.rounds_result(np.ones(ctx.n_rounds, bool), violates, reason=reason, reasons=keys)


def deck_alternation_result(ctx, applies: np.ndarray) -> CheckResult:
    """Two decks alternate continuously (Let It Ride and Triple Shot, Art. 2 c.1-c.2): each
    round uses the other deck than the table's round before it (across files and chunks),
    with backs of the other colour (compared without regard to case)."""
    known, same = previous_rounds(ctx, list(DECK_FIELDS), lower=DECK_CASELESS)
    violates, reason, keys = reasons(*((same[name], key) for name, key in DECK_FIELDS.items()))
    return ctx.rounds_result(applies & known, violates, reason=reason, reasons=keys, applies_alone=applies)


# What the alternation of two decks compares with the round before (deck_color without regard to
# case), and the reason each names where it is the same, in the order the reasons are told.
DECK_FIELDS = {"deck_id": "reason.deck.not_alternated", "deck_color": "reason.deck.same_colour"}
DECK_CASELESS = ("deck_color",)


def money_mismatch(observed_cents: np.ndarray, expected_scaled: np.ndarray, scale: int) -> np.ndarray:
    """True where a logged amount is a céntimo or more away from the exact expected one."""
    return np.abs(observed_cents.astype(np.int64) * scale - expected_scaled) >= scale


def capped_pay_mismatch(observed_cents: np.ndarray, expected_scaled: np.ndarray, scale: int,
                        capped: np.ndarray) -> np.ndarray:
    """``money_mismatch``, except for a winning bet of a round whose winnings due exceed the
    posted payment limit (``capped``, per row; see ``capped_rounds``): the prizes are subject
    to the limit (Art. 2 a.5), so such a bet may be paid less than it is due, but something,
    and never more. How much the round pays in all is ``capped_pay_result``'s rule. What such
    a bet is due is then a bound, not its payment: the round's findings carry the money
    (``capped_pay_result`` what is short of the limit, ``pay_limit_result`` what is over it),
    so the pay rules' results give ``bound_only=capped & (expected > 0)``."""
    winning = capped & (expected_scaled > 0)
    observed = observed_cents.astype(np.int64) * scale
    return np.where(winning, (observed <= 0) | (observed - expected_scaled >= scale),
                    money_mismatch(observed_cents, expected_scaled, scale))


def cents_from_scaled(values: np.ndarray, scale: int) -> np.ndarray:
    """Exact céntimos × scale to céntimos, rounding half away from zero (for display)."""
    values = values.astype(np.int64)
    return np.sign(values) * ((np.abs(values) + scale // 2) // scale)


# Seats and hands are parsed into -1..10000: one more than that is the base of a key.
KEY_BASE = 10_003


def seat_keys(df: pd.DataFrame) -> np.ndarray:
    """An integer per row naming its round and seat, from the engine's ``_round``: the
    chunk's rounds numbered in the order it gives them, so that the keys of a log's rows,
    round after round and seat after seat, come in order, and a stable sort of them is one
    pass (0.26 ms for 360,000 rows; 6.4 ms by ``_rkey``, which sorts like the text, the
    tables of a hall interleaved)."""
    return df["_round"].to_numpy().astype(np.int64) * KEY_BASE + (df["seat"].to_numpy().astype(np.int64) + 1)


def repeated(keys: np.ndarray) -> np.ndarray:
    """Rows whose key another row also has (``duplicated(keep=False)``), by one sort: several
    times faster than pandas' or numpy's hashing of a few hundred thousand integers. The
    stable sort (a merge of runs) takes keys that come in order, as a log's seats do, in one
    pass: 0.15 ms against 13 ms for the default quicksort over 300,000 keys."""
    ordered = np.sort(keys, kind="stable")
    twice = ordered[1:][ordered[1:] == ordered[:-1]]
    return np.isin(keys, twice) if len(twice) else np.zeros(len(keys), bool)


def unique_groups(keys: np.ndarray, order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True, return_counts=True)`` by one stable sort, fast
    on keys that come mostly in order, as a log's do. ``order`` may be given: any order
    that sorts ``keys`` (keys of a coarser grouping are sorted by the order of a finer one)."""
    if order is None:
        order = np.argsort(keys, kind="stable")
    return _sorted_groups(keys, order)


@kernel
def _sorted_groups(keys, order):
    n = len(keys)
    distinct, inverse, counts = np.empty(n, keys.dtype), np.empty(n, np.int64), np.zeros(n, np.int64)
    group = -1
    for j in range(n):
        key = keys[order[j]]
        if group < 0 or key != distinct[group]:
            group += 1
            distinct[group] = key
        inverse[order[j]] = group
        counts[group] += 1
    return distinct[:group + 1], inverse, counts[:group + 1]


def first_index(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Row index of the first row of each group, for rows sorted by group."""
    starts = np.full(n_groups, -1, dtype=np.int64)
    idx = np.arange(len(group))
    starts[group[::-1]] = idx[::-1]
    return starts


def group_sum(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Exact int64 sums per group (a float bincount would lose céntimos past 2**53)."""
    out = np.zeros(n_groups, dtype=np.int64)
    np.add.at(out, group, _canonical(values.astype(np.int64, copy=False)))
    return out


def group_max(values: np.ndarray, group: np.ndarray, n_groups: int, initial) -> np.ndarray:
    out = np.full(n_groups, initial, dtype=values.dtype)
    np.maximum.at(out, group, _canonical(values))
    return out


def _canonical(values: np.ndarray) -> np.ndarray:
    """``values`` with numpy's own instance of their dtype. An array made by a compiled
    kernel loaded from numba's cache carries a dtype unpickled from it: equal to numpy's,
    but not the same object, and ``ufunc.at`` then misses its fast loop (16 ms instead of
    0.6 ms for 300,000 values; since numpy 1.25 the fast loop beats sorting into groups)."""
    return values.view(values.dtype.type)


def group_any(mask: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    out = np.zeros(n_groups, dtype=bool)
    out[group[mask]] = True
    return out


# --- evidence: the text of the violating rows only -------------------------------------
# A finding's evidence is built for the rows that violate a rule, a few per chunk: every
# helper takes the selected rows first and converts them, never a whole column.

def letters_text(actions: np.ndarray, letters: str) -> list[str]:
    """The log letters of each row of an action matrix ("HHS")."""
    return rows_text(actions, list(letters))


def money_text(cents: np.ndarray) -> list[str]:
    """Text in soles of amounts in céntimos ("12.50", "-3.00"), in integer arithmetic."""
    return cents_text(cents).tolist()


def limits_evidence(*limits: tuple[str, np.ndarray, np.ndarray]) -> Callable[[np.ndarray], dict[str, list]]:
    """The posted limits a bet-limit finding compares its bets with, as evidence: for each
    (label, minimum, maximum) in céntimos per row, ``label min–max`` ("—" where the profile
    posts no such limit), joined by "; "."""
    def evidence(idx: np.ndarray) -> dict[str, list]:
        texts = []
        for label, low, high in limits:
            lo, hi = money_text(low[idx]), money_text(high[idx])
            texts.append([f"{label}{a if x >= 0 else '—'}–{b if y >= 0 else '—'}"
                          for a, b, x, y in zip(lo, hi, low[idx].tolist(), high[idx].tolist())])
        return {"bet_limits": ["; ".join(parts) for parts in zip(*texts)]}
    return evidence


def column_values(frame: pd.DataFrame, name: str, rows: np.ndarray) -> list:
    """The values of a column at ``rows``: only those rows are converted to Python objects."""
    values = frame[name].array
    if isinstance(values, pd.Categorical):
        return categorical_objects(values, rows).tolist()
    return values.take(rows).to_numpy().tolist()


def categorical_objects(values: pd.Categorical, rows: np.ndarray) -> np.ndarray:
    """The values of a categorical at ``rows`` as an object array (NaN where missing), of
    which only the categories used there become Python objects: a chunk's round ids are
    tens of thousands of categories, and a rule has a few findings in it."""
    codes = values.codes[rows]
    used, inverse = np.unique(codes, return_inverse=True)
    out = values.categories.take(np.maximum(used, 0)).to_numpy(dtype=object)[inverse.reshape(-1)]
    out[codes < 0] = np.nan
    return out


def joined(parts: list[str], bounds: np.ndarray, sep: str = "; ") -> list[str]:
    """``parts`` (one per hand row of ``GameContext.hand_rows``) joined round by round."""
    b = bounds.tolist()
    return [sep.join(parts[lo:hi]) for lo, hi in zip(b[:-1], b[1:])]


class GameContext:
    """What every game's audit context offers the checks: the hands and rounds frames, the
    round of each hand, the profile of each round and its parameters, and results built over
    hands or rounds. A game's Context adds its arithmetic and defines ``hand_evidence`` and
    ``round_evidence``."""

    ROUND_COLUMNS: tuple[str, ...] = ("table_id", "round_id", "started_at", "dealer_id", "_file", "_line")

    def __init__(self, table, profiles, card_faults: pd.DataFrame, previous: list[dict], gaps: pd.DataFrame):
        df = table.df
        self.table = table
        self.profiles = profiles
        self.card_faults = card_faults
        self.previous = previous  # each table's last round in earlier chunks (engine carry)
        self.gaps = gaps  # the chunk's rounds rejected for a fault of their own (engine._gaps)
        self.rid, self.first = round_index(df)
        self.n_rounds = len(self.first)
        self.hands = df.reset_index(drop=True)
        self.rounds = frame_rows(df[list(self.ROUND_COLUMNS)], _cited_rows(table, self.rid, self.first))
        self.which = profiles.assign(self.rounds["table_id"], self.rounds["started_at"])
        self.cards = table.matrices["cards"].cards
        self.count = table.matrices["cards"].count.astype(np.int16)

    @cached_property
    def sequence(self) -> Sequence:
        """The tables' sequences of rounds (see ``sequence``), sorted once for the rules over
        consecutive rounds and for the engine, which keeps what stands beside a gap."""
        return sequence(self.rounds, self.gaps, self.previous)

    def hand_rows(self, rounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The hand rows of the given rounds, one round after another, and the bounds of each
        round's rows in them (one more than the rounds): round k is rows[bounds[k]:bounds[k+1]]."""
        rounds = np.asarray(rounds, dtype=np.int64)
        starts = self.first[rounds]
        after = rounds + 1
        ends = np.where(after < self.n_rounds, self.first[np.minimum(after, max(self.n_rounds - 1, 0))],
                        len(self.rid))
        lengths = ends - starts
        bounds = np.r_[0, np.cumsum(lengths)].astype(np.int64)
        rows = np.repeat(starts - bounds[:-1], lengths) + np.arange(bounds[-1])
        return rows, bounds

    def param(self, name: str, *, cents: bool = False, missing=-1) -> np.ndarray:
        """A profile parameter per round (céntimos for money; ``missing`` where the profile
        posts none)."""
        return self.profiles.column(self.which, name, cents=cents, missing=missing)

    def hands_result(self, applies, violates, *, more_evidence=None, **kw) -> CheckResult:
        """A result over the hand rows; ``more_evidence`` (rows -> dict of lists), what the
        rule adds to the evidence every rule of the game gives."""
        return CheckResult(frame=self.hands, applies=applies, violates=violates,
                           evidence=_joined_evidence(self.hand_evidence, more_evidence), round_index=self.rid, **kw)

    def rounds_result(self, applies, violates, *, more_evidence=None, **kw) -> CheckResult:
        return CheckResult(frame=self.rounds, applies=applies, violates=violates,
                           evidence=_joined_evidence(self.round_evidence, more_evidence),
                           round_index=np.arange(self.n_rounds), **kw)


def _joined_evidence(evidence, more):
    return evidence if more is None else (lambda idx: {**evidence(idx), **more(idx)})


def _cited_rows(table, rid: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The row of each round that a round's finding cites: its first line in the file. The
    audit orders a round's rows by seat and hand; where the log gives them in another order
    (seat 8 above seat 4), the first of them by seat is not where the round begins. Rows are
    placed by where they were read (``HandTable.read_at``), not by their line numbers: a round
    that an export cut in two files begins in the earlier file, whose lines have the larger
    numbers."""
    line = table.read_at
    if line is None or not len(line):  # (the rows as read: each round's first is where it begins)
        return first
    # (a round whose lines only grow from its first row begins there: one pass finds the others)
    drops = np.flatnonzero(line[1:] < line[:-1]) + 1
    drops = drops[rid[drops] == rid[drops - 1]]
    if not len(drops):
        return first
    moved = np.zeros(len(first), bool)
    moved[rid[drops]] = True
    rows = np.flatnonzero(moved[rid])
    rows = rows[np.lexsort((line[rows], rid[rows]))]  # each moved round's rows, its first line first
    at = first.copy()
    heads = np.r_[0, np.flatnonzero(np.diff(rid[rows])) + 1]
    at[rid[rows[heads]]] = rows[heads]
    return at


def card_faults_result(ctx: GameContext) -> CheckResult:
    """Rounds holding a card outside the 52-card deck, or a card field that cannot be read as
    the game's (more cards than it holds: ``reject.too_many_cards``), rejected for every other
    rule; here they are the findings, checked over every round read. The finding says which."""
    faults = ctx.card_faults
    too_many = (faults["reason"] == "reject.too_many_cards").to_numpy()
    return CheckResult(frame=faults, applies=np.ones(len(faults), bool), violates=np.ones(len(faults), bool),
                       reason=too_many.astype(np.int8), reasons=("reason.cards.not_in_deck", "reason.cards.too_many"),
                       evidence=lambda idx: {"cards": faults["text"].to_numpy()[idx].tolist(),
                                             "field": faults["field"].to_numpy()[idx].tolist()},
                       rounds_checked=ctx.n_rounds + len(faults))


def capped_rounds(ctx: GameContext, won: np.ndarray, scale: int = 1) -> np.ndarray:
    """Rounds whose winnings due (``won``: what each hand row wins, céntimos × ``scale``)
    exceed the posted payment limit; none where the profile posts no limit."""
    limit = ctx.param("payment_limit", cents=True)
    # Each row counted up to a céntimo above the largest limit (money.LARGEST_CENTS), which it
    # alone then exceeds: whether the sum does is unchanged, and the sum stays inside int64. A
    # row is due up to 3 × 10^17 (Triple Shot at the largest amounts and ratios), and a round of
    # Let It Ride or Triple Shot may hold 10 000 seats (the seat numbers read): the sum of a
    # few dozen such rows wrapped around to a negative one, a round due far more than the limit
    # judged as within it.
    won = np.minimum(won, (LARGEST_CENTS + 1) * scale)
    return (limit >= 0) & (group_sum(won, ctx.rid, ctx.n_rounds) > limit * scale)


def capped_pay_result(ctx: GameContext, capped: np.ndarray, prizes: np.ndarray, dues) -> CheckResult:
    """Rounds whose winnings due exceed the posted payment limit (``capped``) and which pay
    less than the limit in prizes: the prizes are subject to the limit, not forfeit, so such a
    round pays the limit. ``prizes``: what each hand row was paid on the bets due to win (a
    payment on another bet is its own rule's finding, and no prize). The limit shared among
    the round's winning bets (``dues``: what each bet of each hand row is due, at any scale;
    a bet due more than nothing wins), each share rounded down to the céntimo, comes short by
    less than a céntimo per bet: a shortfall of that size is not a finding."""
    limit = ctx.param("payment_limit", cents=True)
    # (summed over the hands of the capped rounds alone, the rounds the rule applies to: a
    # few in a chunk, where the sums over every hand took 6-9 ms)
    hands = np.flatnonzero(capped[ctx.rid])
    of_round = ctx.rid[hands]
    total = group_sum(prizes[hands], of_round, ctx.n_rounds)
    bets = group_sum(sum((due[hands] > 0).astype(np.int64) for due in dues), of_round, ctx.n_rounds)
    return ctx.rounds_result(capped, limit - total >= np.maximum(bets, 1), expected=limit, observed=total)


def prizes_paid(nets_and_dues) -> np.ndarray:
    """What each hand row was paid on its bets due to win, from (settlement in céntimos, due)
    pairs (due in céntimos × any scale): a payment on a bet not due to win is no prize."""
    return sum(np.where(due > 0, np.maximum(net, 0), 0) for net, due in nets_and_dues)


# A posted table's combinations, highest first (Art. 4 of the Let It Ride and Triple Shot
# directives: "ordenadas de mayor a menor"); ``high_card`` is Triple Shot's A-K.
RANKED = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
          "three_of_a_kind", "two_pair", "one_pair", "high_card")


def pays_less_above(table) -> bool:
    """Whether a posted table of ratios (a profile's paytable model) pays some combination
    more than a higher one, which Art. 4's ranking of the combinations forbids."""
    posted = table.model_dump()
    ratios = [posted[f] for f in RANKED if f in posted]
    return any(low > high for high, low in zip(ratios, ratios[1:]))


def pay_limit_result(ctx: GameContext, paid: np.ndarray, capped: np.ndarray | None = None,
                     prizes: np.ndarray | None = None) -> CheckResult:
    """Rounds whose total paid (``paid`` per hand row, summed by round) exceeds the posted
    payment limit; not applicable where the profile posts no limit. Only in a round whose
    winnings due exceed the limit (``capped``; see ``capped_pay_mismatch``) does the finding
    carry money: the prizes paid above the limit (``prizes``: see ``capped_pay_result``). In
    another round, and for a payment on a bet not due to win, the pay rules carry it."""
    limit = ctx.param("payment_limit", cents=True)
    applies = limit >= 0
    total = group_sum(paid, ctx.rid, ctx.n_rounds)
    bound, excess = True, None
    if capped is not None:
        excess = group_sum(prizes, ctx.rid, ctx.n_rounds) - limit
        bound = ~capped | (excess <= 0)
    return ctx.rounds_result(applies, total > limit, expected=limit, observed=total, bound_only=bound,
                             impact=excess,
                             note="" if applies.any() or not len(applies) else "note.no_limits_posted")
