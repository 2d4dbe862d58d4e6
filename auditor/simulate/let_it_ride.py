"""Let It Ride round simulator with fault injection and ground truth.

Each round is dealt from a freshly shuffled 52-card deck; tables posted with two decks
alternate two decks of different back colours (Art. 2 c), the single-deck table always
deals its one deck, and worn decks are replaced by new ones. Players pull bets by the exact
optimal strategy (computed from every 3- and 4-card hand for the posted pay table), and every
bet is settled with the audit's own arithmetic (games.let_it_ride). A fraction ``faults`` of
the rounds carries exactly one injected fault; the codes it must raise go to the truth file.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import numpy as np
import pandas as pd

from ..cards import RANKS, SUITS
from ..checks.base import capped_pay_mismatch, group_sum
from ..games import let_it_ride as lir
from ..logs.schema import PULL_VALUES
from ..money import cents_text
from ..profiles import LetItRideProfile, ProfileSet

__all__ = ["simulate", "FAULT_KINDS", "deal_and_settle"]

GAME = "let-it-ride"
TABLES = ("LIR-01", "LIR-02", "LIR-03", "LIR-04")
DEALERS = ("CR-201", "CR-202", "CR-203", "CR-204", "CR-205", "CR-206")
BETS = (500, 1000, 2000, 2500, 5000, 10000, 20000, 50000)  # céntimos
COLOURS = ("rojo", "azul")
DECK_LIFE = 400  # rounds a deck is dealt before a new one replaces it
LIMA = timezone(timedelta(hours=-5))
EXTRA = 26       # position of the spare card in each round's shuffled deck
SEAT8 = 23       # positions 23..25: the cards of an eighth player (LIR-POSITIONS fault)

FAULT_KINDS = ("LIR-CARDS", "LIR-POSITIONS", "LIR-HAND", "LIR-ONE-DECK", "LIR-TWO-DECKS", "LIR-EQUAL-BETS",
               "LIR-BET-LIMITS", "LIR-PULL-1", "LIR-PULL-2", "LIR-DOLLAR", "LIR-PAY", "LIR-WITHDRAWN",
               "LIR-BONUS", "LIR-PAY-LIMIT", "LIR-PAY-CAPPED")
_CARD_TEXT = np.array([r + s for r in RANKS for s in SUITS])
NETS = ("net_1", "net_2", "net_dollar", "net_bonus")


def _shuffled(rng: np.random.Generator, n: int) -> np.ndarray:
    """The first 27 cards of ``n`` independently shuffled decks."""
    out = np.empty((n, 27), dtype=np.int8)
    step = 200_000
    for lo in range(0, n, step):
        hi = min(lo + step, n)
        out[lo:hi] = rng.permuted(np.tile(np.arange(52, dtype=np.int8), (hi - lo, 1)), axis=1)[:, :27]
    return out


def _seat_mask(rng, n_seats: np.ndarray, eighth: np.ndarray) -> np.ndarray:
    """(R, 8) occupied positions: a random set of ``n_seats`` of 1..7, all seven plus an
    eighth where ``eighth``."""
    order = np.argsort(np.argsort(rng.random((len(n_seats), 7)), axis=1), axis=1)
    mask = np.zeros((len(n_seats), 8), bool)
    mask[:, :7] = order < n_seats[:, None]
    mask[eighth, :] = True
    return mask


def _strategy_for(profile: LetItRideProfile):
    return lir.pull_strategy(tuple(profile.paytable.model_dump().items()), RANKS.index(profile.min_pair))


def deal_and_settle(rng: np.random.Generator, n_rounds: int, profiles: list[LetItRideProfile],
                    which: np.ndarray, n_seats: np.ndarray, *, eighth: np.ndarray | None = None,
                    bonus_rate: float = 0.3, before_settle=None) -> dict[str, np.ndarray]:
    """Deal ``n_rounds`` rounds (``which`` = profile index per round), let every player pull
    by the optimal strategy and settle every bet. ``before_settle(h)`` may alter the hands
    (play-time faults) before settlement. Returns hand-level arrays plus ``deck`` (R, 27)."""
    eighth = np.zeros(n_rounds, bool) if eighth is None else eighth
    deck = _shuffled(rng, n_rounds)
    mask = _seat_mask(rng, n_seats, eighth)
    rid, slot = np.nonzero(mask)
    seat = slot + 1
    pos = np.where(slot < 7, 3 * slot, SEAT8)
    cards = np.stack([deck[rid, pos], deck[rid, pos + 1], deck[rid, pos + 2]], axis=1)
    community = deck[:, 21:23].copy()
    w = which[rid]
    n = len(rid)

    bet = np.zeros(n, np.int64)
    bonus = np.zeros(n, np.int64)
    ride1 = np.zeros(n, bool)
    ride2 = np.zeros(n, bool)
    first4 = np.sort(np.concatenate([cards, community[rid, :1]], axis=1), axis=1)
    three = np.sort(cards, axis=1)
    for i, p in enumerate(profiles):
        rows = np.flatnonzero(w == i)
        if not len(rows):
            continue
        lo, hi = p.cents("min_bet") or 1000, p.cents("max_bet") or 50000
        allowed = np.array([b for b in BETS if lo <= b <= hi] or [lo])
        bet[rows] = allowed[rng.integers(0, len(allowed), len(rows))]
        stake = p.cents("bonus_stake") or 100
        bonus[rows] = np.where(rng.random(len(rows)) < bonus_rate, stake, 0)
        r1, r2 = _strategy_for(p)
        ride1[rows] = r1[lir.combo_index(three[rows])]
        ride2[rows] = r2[lir.combo_index(first4[rows])]
    h = {
        "rid": rid, "seat": seat, "cards": cards, "community": community, "deck": deck,
        "bet_1": bet.copy(), "bet_2": bet.copy(), "bet_dollar": bet.copy(), "bonus_bet": bonus,
        # Bet 1 is taken back after seeing the three cards, bet 2 after the first community card.
        "pulled_1": np.where(ride1, 0, 1).astype(np.int8), "pulled_2": np.where(ride2, 0, 2).astype(np.int8),
    }
    if before_settle is not None:
        before_settle(h)
    settle(h, profiles, which, n_rounds)
    return h


def settle(h: dict, profiles: list[LetItRideProfile], which: np.ndarray, n_rounds: int) -> None:
    """Settle every bet with the audit's arithmetic; in a round whose winnings exceed the
    posted payment limit, the winnings are paid pro rata up to the limit."""
    rid = h["rid"]
    cat, pair = lir.evaluate(lir.final_hands(h["cards"], h["community"], rid=rid))
    ratio, bratio = lir.posted_ratios(cat, pair, profiles, which[rid])
    limit = np.array([p.cents("payment_limit") if p.payment_limit is not None else -1 for p in profiles])[which]
    in1, in2 = lir.in_play(h["pulled_1"], h["pulled_2"])
    d1, d2, dd, db = lir.dues(ratio, bratio, h["bet_1"], h["bet_2"], h["bet_dollar"], h["bonus_bet"])
    # What each bet in play is due (a bet taken back when that is not allowed included), for
    # the rounds over the limit and the payout faults (see _after_settlement).
    due = {"net_1": np.where(in1, d1, 0), "net_2": np.where(in2, d2, 0), "net_dollar": dd, "net_bonus": db}
    total = group_sum(sum(np.maximum(d, 0) for d in due.values()), rid, n_rounds)
    capped = (limit >= 0) & (total > limit)
    c = capped[rid]

    def paid(due):
        cut = np.maximum(due * limit[rid] // np.maximum(total[rid], 1), 1)
        return np.where(c & (due > 0), cut, due)

    # A bet taken back is settled at 0, also where that was not allowed (a planted LIR-PULL fault).
    h["net_1"] = np.where(h["pulled_1"] == lir.NOT_PULLED, paid(d1), 0)
    h["net_2"] = np.where(h["pulled_2"] == lir.NOT_PULLED, paid(d2), 0)
    h["net_dollar"] = paid(dd)
    h["net_bonus"] = paid(db)
    h["_due_dollar"] = dd
    h["_capped"] = capped
    h["_limit"] = limit
    h["_due"] = due


def simulate(rounds: int, seed: int, faults: float, profiles: list,
             start: date | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(log rows, truth rows) for ``rounds`` rounds spread over the sample tables."""
    rng = np.random.default_rng(seed)
    pset = ProfileSet(GAME, profiles)
    profs = pset.profiles
    day = start or date(2026, 11, 1)
    start = datetime(day.year, day.month, day.day, 12, 0, tzinfo=LIMA)
    R = rounds
    t_of = np.arange(R) % len(TABLES)
    table_which = pset.assign(pd.Series(TABLES), pd.Series([pd.Timestamp(start)] * len(TABLES)))
    which = table_which[t_of]
    n_seats = rng.choice(np.array([1, 2, 3, 3, 4, 4, 5, 6, 7]), R)
    kinds = np.where(rng.random(R) < faults, rng.integers(0, len(FAULT_KINDS), R), -1)
    kind = np.array([FAULT_KINDS[k] if k >= 0 else "" for k in kinds], dtype=object)

    # Per table: time, round number, dealer, and the deck dealt.
    seq = np.zeros(R, np.int64)
    secs = rng.integers(45, 151, R)
    elapsed = np.zeros(R, np.int64)
    dealer = np.empty(R, dtype=object)
    deck_id = np.empty(R, dtype=object)
    colour = np.empty(R, dtype=object)
    for t, name in enumerate(TABLES):
        rows = np.flatnonzero(t_of == t)
        seq[rows] = np.arange(1, len(rows) + 1)
        elapsed[rows] = np.cumsum(secs[rows])
        shifts = rng.integers(0, len(DEALERS), len(rows) // 120 + 1)
        dealer[rows] = np.array(DEALERS, dtype=object)[shifts[np.arange(len(rows)) // 120]]
        two = profs[table_which[t]].decks_per_table == 2
        use = [0, 0]
        gen = [1, 1]
        current = 1
        prev_kind = None
        for i, r in enumerate(rows):
            if two:
                if kind[r] == "LIR-TWO-DECKS" and (i == 0 or prev_kind == "LIR-CARDS"):
                    kind[r] = "LIR-PAY"  # nothing to compare with: fall back to a payout fault
                if kind[r] != "LIR-TWO-DECKS":
                    current = 1 - current  # Art. 2 c.2: the decks alternate
            elif kind[r] == "LIR-TWO-DECKS":
                kind[r] = "LIR-PAY"
            use[current] += 1
            if use[current] > DECK_LIFE:
                use[current], gen[current] = 1, gen[current] + 1
            slot = current if two else 0
            deck_id[r] = f"{name}-{'AB'[slot]}{gen[current]:04d}"
            colour[r] = COLOURS[slot]
            prev_kind = kind[r]
    times = pd.Timestamp(start) + pd.to_timedelta(elapsed, unit="s")

    def play_time(h):
        _play_time_faults(rng, h, kind, profs, which)

    h = deal_and_settle(rng, R, profs, which, n_seats, eighth=kind == "LIR-POSITIONS", before_settle=play_time)
    truth, texts, community_text = _after_settlement(rng, h, kind)
    rid = h["rid"]
    tables = np.array(TABLES, dtype=object)[t_of]
    # Round ids carry the day, so the logs of different days never collide.
    round_ids = (day.strftime("%Y%m%d-") + pd.Series(seq).astype(str).str.zfill(6)).to_numpy()
    truth_rows = sorted({(tables[r], round_ids[r], c) for r, codes in truth.items() for c in codes})

    stamp = pd.DatetimeIndex(times).tz_convert("America/Lima").strftime("%Y-%m-%dT%H:%M:%S-05:00").to_numpy()
    card_text = _text3(h["cards"])
    for i, text in texts.items():
        card_text[i] = text
    comm = _text3(h["community"])
    for r, text in community_text.items():
        comm[r] = text
    pulled = np.array(PULL_VALUES, dtype=object)
    frame = pd.DataFrame({
        "table_id": tables[rid], "round_id": round_ids[rid], "started_at": stamp[rid], "dealer_id": dealer[rid],
        "deck_id": deck_id[rid], "deck_color": colour[rid], "community_cards": comm[rid],
        "seat": h["seat"], "cards": card_text,
        "bet_1": cents_text(h["bet_1"]), "bet_2": cents_text(h["bet_2"]), "bet_dollar": cents_text(h["bet_dollar"]),
        "pulled_1": pulled[h["pulled_1"]], "pulled_2": pulled[h["pulled_2"]], "bonus_bet": cents_text(h["bonus_bet"]),
        "net_1": cents_text(h["net_1"]), "net_2": cents_text(h["net_2"]), "net_dollar": cents_text(h["net_dollar"]),
        "net_bonus": cents_text(h["net_bonus"]),
    })
    return frame, pd.DataFrame(truth_rows, columns=["table_id", "round_id", "code"])


def _rows_of(rid: np.ndarray):
    """The hand rows of a round (its rows are contiguous), made only for the rounds asked."""
    starts = np.flatnonzero(np.r_[True, rid[1:] != rid[:-1]])
    ends = np.r_[starts[1:], len(rid)]
    span = dict(zip(rid[starts].tolist(), zip(starts.tolist(), ends.tolist())))
    return lambda r: np.arange(*span[int(r)])


def _play_time_faults(rng, h: dict, kind: np.ndarray, profs, which) -> None:
    """Faults made while dealing and betting, before settlement (settled as they stand)."""
    faulty = np.flatnonzero(np.isin(kind, ["LIR-ONE-DECK", "LIR-EQUAL-BETS", "LIR-BET-LIMITS",
                                           "LIR-PULL-1", "LIR-PULL-2", "LIR-PAY-CAPPED"]))
    if not len(faulty):
        return
    rows_of = _rows_of(h["rid"])
    for r in faulty:
        rows = rows_of(r)
        i = int(rng.choice(rows))
        p = profs[which[r]]
        lo, hi = p.cents("min_bet") or 1000, p.cents("max_bet") or 50000
        k = kind[r]
        if k == "LIR-ONE-DECK":
            h["cards"][i, int(rng.integers(0, 3))] = h["community"][r, int(rng.integers(0, 2))]
        elif k == "LIR-EQUAL-BETS":
            allowed = [b for b in BETS if lo <= b <= hi and b != h["bet_1"][i]]
            h["bet_2"][i] = int(rng.choice(allowed))
        elif k == "LIR-BET-LIMITS":
            if rng.random() < 0.5 or p.bonus_stake is None:
                over = hi + 10_000
                h["bet_1"][i] = h["bet_2"][i] = h["bet_dollar"][i] = over
            else:
                h["bonus_bet"][i] = 2 * p.cents("bonus_stake")
        elif k == "LIR-PULL-1":
            h["pulled_1"][i] = int(rng.choice([2, 3]))  # after a community card was shown
        elif k == "LIR-PULL-2":
            h["pulled_2"][i] = 3  # after the second community card was shown
        elif k == "LIR-PAY-CAPPED":
            # A round over the payment limit: a royal flush to one player, who rides the most
            # the table allows on all three bets (its payment is cut after settlement).
            top = max([b for b in BETS if lo <= b <= hi] or [lo])
            limit = p.cents("payment_limit")
            if limit is None or 3 * p.paytable.royal_flush * top <= limit:
                kind[r] = "LIR-PAY"  # no round of this table can exceed its limit
                continue
            suit = int(rng.integers(0, len(SUITS)))
            _give(h, rows, r, i, [RANKS.index(rank) * len(SUITS) + suit for rank in "AKQJT"])
            h["bet_1"][i] = h["bet_2"][i] = h["bet_dollar"][i] = top
            h["pulled_1"][i] = h["pulled_2"][i] = 0


def _give(h: dict, rows: np.ndarray, r: int, i: int, cards: list[int]) -> None:
    """Hand row ``i`` gets ``cards[:3]`` and its round ``r`` the community ``cards[3:]``; a
    card that another place of the round holds trades places with the card it replaces, so
    the round is still dealt from one deck."""
    places = [(h["cards"], j, c) for j in rows.tolist() for c in range(3)] + [(h["community"], r, c) for c in range(2)]
    targets = [(h["cards"], i, 0), (h["cards"], i, 1), (h["cards"], i, 2), (h["community"], r, 0), (h["community"], r, 1)]
    for (arr, a, b), card in zip(targets, cards):
        for other, a2, b2 in places:
            if other[a2, b2] == card:
                other[a2, b2] = arr[a, b]
                break
        arr[a, b] = card


def _after_settlement(rng, h: dict, kind: np.ndarray):
    """Faults in the records and payments; returns (codes per faulty round, card texts by
    hand row, community texts by round)."""
    truth: dict[int, list[str]] = {}
    texts: dict[int, str] = {}
    community_text: dict[int, str] = {}
    rows_of = _rows_of(h["rid"])
    limit, capped = h["_limit"], h["_capped"]
    paid = np.maximum(h["net_1"], 0) + np.maximum(h["net_2"], 0) + np.maximum(h["net_dollar"], 0) \
        + np.maximum(h["net_bonus"], 0)
    for r in np.flatnonzero(kind != ""):
        r = int(r)
        rows = rows_of(r)
        k = kind[r]
        i = int(rng.choice(rows))
        if k == "LIR-WITHDRAWN":
            pulled = rows[(h["pulled_1"][rows] > 0) | (h["pulled_2"][rows] > 0)]
            if len(pulled):
                i = int(pulled[0])
                col = "net_1" if h["pulled_1"][i] > 0 else "net_2"
                h[col][i] = -h[col.replace("net", "bet")][i]
            else:
                k = "LIR-PAY"
        if k == "LIR-BONUS":
            with_bonus = rows[h["bonus_bet"][rows] > 0]
            if len(with_bonus):
                i = int(with_bonus[0])
                h["net_bonus"][i] = -h["bonus_bet"][i] if h["net_bonus"][i] > 0 else 0
            else:
                k = "LIR-PAY"
        codes = [k]
        if k == "LIR-CARDS":
            texts[i] = str(rng.choice(["JK", "1X", "ZZ", "AS 0H", "AS KS QS JS TS 9S"]))
        elif k == "LIR-HAND":
            variant = int(rng.integers(0, 3)) if not capped[r] else 2
            extra = h["deck"][r, EXTRA]
            if variant == 0:
                texts[i] = " ".join(_CARD_TEXT[c] for c in h["cards"][i]) + " " + _CARD_TEXT[extra]
            elif variant == 1:
                texts[i] = " ".join(_CARD_TEXT[c] for c in h["cards"][i][:2])
            else:
                community_text[r] = " ".join(_CARD_TEXT[c] for c in h["community"][r]) + " " + _CARD_TEXT[extra]
        elif k == "LIR-DOLLAR":
            h["net_dollar"][i] = 0
        elif k == "LIR-PAY":
            in1 = h["pulled_1"][i] == 0
            col = "net_1" if in1 else "net_dollar"
            bet = int(h["bet_1"][i] if in1 else h["bet_dollar"][i])
            old = int(h[col][i])
            if capped[r]:
                new = -bet if old > 0 else old - 100
            else:
                new = old + int(rng.choice([-500, 500, bet, -(bet // 2)]))
                if new == old or new == 0:
                    new = old - 100 if old - 100 != 0 else old - 200
                if limit[r] >= 0 and paid[rows].sum() - max(old, 0) + max(new, 0) > limit[r]:
                    new = -bet if old > 0 else old - 100
            h[col][i] = new
        elif k == "LIR-PAY-LIMIT":
            h["net_dollar"][i] = max(int(limit[r]) + 10_000, int(h["_due_dollar"][i]) + 100)
            codes = ["LIR-PAY-LIMIT", "LIR-PAY"] if limit[r] >= 0 else ["LIR-PAY"]
        elif k == "LIR-PAY-CAPPED":  # every winning bet paid half its share of the limit
            for col in NETS:
                h[col][rows] = np.where(h[col][rows] > 0, np.maximum(h[col][rows] // 2, 1), h[col][rows])
        if k in ("LIR-PULL-1", "LIR-PULL-2", "LIR-DOLLAR"):
            # The bet withdrawn (or the "$" left unsettled) is still in play: settled at 0, it is
            # a payout finding too wherever its due is not (games.let_it_ride.in_play).
            c = np.full(len(rows), bool(capped[r]))
            if any(capped_pay_mismatch(h[col][rows], h["_due"][col][rows], 1, c).any() for col in NETS[:3]):
                codes.append("LIR-PAY")
        truth[r] = codes
    # Any round over the payment limit that now pays short of it in prizes (the cut above, or
    # a winning bet collected there by a payout fault) by a céntimo per winning bet or more.
    paid, winners = np.zeros(len(kind), np.int64), np.zeros(len(kind), np.int64)
    np.add.at(paid, h["rid"], sum(np.where(h["_due"][col] > 0, np.maximum(h[col], 0), 0) for col in NETS))
    np.add.at(winners, h["rid"], sum((h["_due"][col] > 0).astype(np.int64) for col in NETS))
    for r in np.flatnonzero(capped & (limit - paid >= np.maximum(winners, 1))).tolist():
        if kind[r] not in ("LIR-CARDS", "LIR-HAND") and "LIR-PAY-CAPPED" not in truth.get(r, []):
            truth.setdefault(r, []).append("LIR-PAY-CAPPED")
    return truth, texts, community_text


def _text3(cards: np.ndarray) -> np.ndarray:
    """Canonical card text of each row of an (N, k) matrix of valid cards."""
    parts = _CARD_TEXT[cards.astype(np.int64)]
    out = parts[:, 0].astype(object)
    for j in range(1, parts.shape[1]):
        out = out + " " + parts[:, j].astype(object)
    return out


