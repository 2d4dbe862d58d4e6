"""Triple Shot round simulator with fault injection and ground truth.

Every table owns two decks with backs of different colours and deals each round from the
other deck than the round before, freshly shuffled (Art. 2 c). Each participant gets six
cards (Art. 1 i); players play the Black Jack hand by basic strategy on their own cards 3..6,
the dealer draws to 17; the War, Black Jack, Póker and bonus bets are settled by the audit's
own arithmetic (games.triple_shot). A fraction ``faults`` of the rounds carries exactly one
injected fault; the codes that fault must raise go to the truth file.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone

import numpy as np
import pandas as pd

from ..cards import RANKS, card_matrix, format_cards
from ..games import blackjack as bj
from ..games import poker
from ..games import triple_shot as ts
from ..money import cents_text
from ..profiles import ProfileSet, TripleShotProfile
from .pot_luck_blackjack import _wants_double, _wants_hit

__all__ = ["simulate", "FAULT_KINDS", "TABLES"]

TABLES = ("TS-01", "TS-02", "TS-03", "TS-04")
COLOURS = {"TS-01": ("rojo", "azul"), "TS-02": ("azul", "verde"), "TS-03": ("verde", "negro"),
           "TS-04": ("negro", "rojo")}
DEALERS = ("CR-201", "CR-202", "CR-203", "CR-204", "CR-205")
BETS = (500, 1000, 2000, 2500, 5000, 10000, 20000)  # céntimos
BONUS_BETS = (500, 1000, 2500)
LIMA = timezone(timedelta(hours=-5))

FAULT_KINDS = ("TS-CARDS", "TS-POSITIONS", "TS-SIX-CARDS", "TS-ONE-DECK", "TS-TWO-DECKS", "TS-WAR",
               "TS-BJ-PLAY", "TS-BJ-PAY", "TS-POKER", "TS-BONUS", "TS-BET-LIMITS", "TS-PAY-LIMIT")
_PAYOUT = {"TS-WAR": "net_war", "TS-BJ-PAY": "net_bj", "TS-POKER": "net_poker", "TS-BONUS": "net_bonus"}


def _value(card: int) -> int:
    """Strategy value of a card: 2..10, Ace 11."""
    r = card >> 2
    return 11 if r == 12 else min(r + 2, 10)


class _Table:
    def __init__(self, rng: random.Random, table_id: str, profile: TripleShotProfile, start: datetime):
        self.id = table_id
        self.profile = profile
        self.time = start
        self.day = start.strftime("%Y%m%d")
        self.seq = 0
        self.decks = [(f"{table_id}-B1", COLOURS[table_id][0]), (f"{table_id}-B2", COLOURS[table_id][1])]
        self.last = rng.randrange(2)  # index of the deck of the previous round
        self.last_kind: str | None = "start"
        self.dealer = DEALERS[TABLES.index(table_id) % len(DEALERS)]
        self.bets = {name: _allowed(profile, name, BETS, 500, 50000) for name in ("war", "bj", "poker")}
        self.bonus_bets = _allowed(profile, "bonus", BONUS_BETS, 500, 2500, general=False)


def _allowed(p: TripleShotProfile, name: str, amounts: tuple, lo: int, hi: int, general: bool = True) -> list[int]:
    """The stakes a player may place on a bet of the profile (its own limits, else the
    table's), or its minimum if none of ``amounts`` fits."""
    lo = p.cents(f"min_{name}_bet") or (p.cents("min_bet") if general else None) or lo
    hi = p.cents(f"max_{name}_bet") or (p.cents("max_bet") if general else None) or hi
    return [b for b in amounts if lo <= b <= hi] or [lo]


def _play_bj(cards: list[int], up: int) -> tuple[str, int]:
    """Basic strategy on the player's own six cards: (actions, cards in the Black Jack hand).
    Hits take cards 3, 4, … of the six; the hand cannot grow past six cards."""
    total, soft = bj.hand_value(cards[:2])
    upv = _value(up)
    if total == 21:
        return "", 2
    if _wants_double(total, soft, upv):
        return "D", 3
    n, actions = 2, ""
    while total < 21 and n < 6 and _wants_hit(total, soft, upv):
        actions += "H"
        n += 1
        total, soft = bj.hand_value(cards[:n])
    if total <= 21:
        actions += "S"
    return actions, n


def _dealer_count(cards: list[int], soft17: bool) -> int:
    n = 2
    while n < 6 and bj.dealer_must_hit(cards[:n], hit_soft_17=soft17):
        n += 1
    return n


def simulate(rounds: int, seed: int, faults: float, profiles: list,
             start: date | None = None, previous: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(log rows, truth rows) for ``rounds`` rounds spread over the sample tables, from
    noon of day ``start``. With ``previous`` (an earlier log of the same tables), each table
    goes on with the other deck than its last round there, as the next day of a real table."""
    rng = random.Random(seed)
    pset = ProfileSet("triple-shot", profiles)
    day = start or date(2026, 11, 1)
    start = datetime(day.year, day.month, day.day, 12, 0, tzinfo=LIMA)
    tables = []
    for t in TABLES:
        which = pset.assign(pd.Series([t]), pd.Series([pd.Timestamp(start)]))[0]
        tables.append(_Table(rng, t, pset.profiles[which], start))
    if previous is not None and len(previous):
        last = (previous.assign(_t=pd.to_datetime(previous["started_at"], utc=True))
                .sort_values(["table_id", "_t"]).drop_duplicates("table_id", keep="last")
                .set_index("table_id")["deck_id"])
        for table in tables:
            ids = [d for d, _ in table.decks]
            if last.get(table.id) in ids:
                table.last = ids.index(last[table.id])
    cols = ("table_id", "round_id", "started_at", "dealer_id", "deck_id", "deck_color", "dealer_cards",
            "dealer_bj_count", "seat", "cards", "actions", "bet_war", "bet_bj", "bet_poker", "double",
            "bonus_bet", "_round", "_bjc")
    rows: dict[str, list] = {k: [] for k in cols}
    plans: list[str | None] = []
    for n in range(rounds):
        table = tables[n % len(tables)]
        kind = rng.choice(FAULT_KINDS) if rng.random() < faults else None
        # A repeated deck is only seen against an audited round before it.
        if kind == "TS-TWO-DECKS" and table.last_kind in ("start", "TS-CARDS"):
            kind = "TS-WAR"
        table.seq += 1
        table.time += timedelta(seconds=rng.randint(60, 150))
        if table.seq % 150 == 0:
            table.dealer = rng.choice(DEALERS)
        kind = _round(rng, table, kind, rows, n)
        table.last_kind = kind
        plans.append(kind)
    frame = pd.DataFrame(rows)
    _settle(frame, pset)
    truth = _inject_after_settlement(rng, frame, plans, pset)
    return _to_text(frame), truth


def _round(rng: random.Random, table: _Table, kind: str | None, rows: dict, n: int) -> str | None:
    p = table.profile
    deck_index = table.last if kind == "TS-TWO-DECKS" else 1 - table.last
    table.last = deck_index
    deck_id, colour = table.decks[deck_index]
    deck = list(range(52))
    rng.shuffle(deck)  # each round is dealt from a freshly shuffled deck
    n_seats = 7 if kind == "TS-POSITIONS" else rng.choice((1, 2, 3, 3, 4, 4, 5, 6))
    seats = list(range(1, 8)) if kind == "TS-POSITIONS" else sorted(rng.sample(range(1, 7), n_seats))
    hands = [deck[6 * i: 6 * i + 6] for i in range(n_seats)]
    dealer = deck[6 * n_seats: 6 * n_seats + 6]
    rest = deck[6 * n_seats + 6:]
    dcount = _dealer_count(dealer, p.dealer_hits_soft_17)

    def bet(name: str) -> int:
        return rng.choice(table.bets[name])

    for i, (s, cards) in enumerate(zip(seats, hands)):
        actions, bjc = _play_bj(cards, dealer[0])
        b_bj = bet("bj")
        bonus = 0
        if rng.random() < 0.4:
            bonus = rng.choice(table.bonus_bets)
        rows["table_id"].append(table.id)
        rows["round_id"].append(f"{table.day}-{table.seq:06d}")  # day-stamped: daily logs never collide
        rows["started_at"].append(table.time.isoformat())
        rows["dealer_id"].append(table.dealer)
        rows["deck_id"].append(deck_id)
        rows["deck_color"].append(colour)
        rows["dealer_cards"].append(list(dealer))
        rows["dealer_bj_count"].append(dcount)
        rows["seat"].append(s)
        rows["cards"].append(list(cards))
        rows["actions"].append(actions)
        rows["bet_war"].append(bet("war"))
        rows["bet_bj"].append(b_bj)
        rows["bet_poker"].append(bet("poker"))
        rows["double"].append(b_bj if "D" in actions else 0)
        rows["bonus_bet"].append(bonus)
        rows["_round"].append(n)
        rows["_bjc"].append(bjc)
    first = len(rows["_round"]) - n_seats  # row of the round's first seat
    if kind == "TS-SIX-CARDS":
        rows["cards"][first].append(rest[0])  # a seventh card, outside the Black Jack hand
    elif kind == "TS-ONE-DECK":
        rows["cards"][first][5] = dealer[5]  # the dealer's sixth card dealt twice
    elif kind == "TS-BET-LIMITS":
        hi = p.cents("max_war_bet") or p.cents("max_bet") or 50000
        rows["bet_war"][first] = hi + 1000
    elif kind == "TS-BJ-PLAY":
        if dcount < 6 and rng.random() < 0.5:
            # The dealer drew on 17 or more.
            rows["dealer_bj_count"][first:] = [dcount + 1] * n_seats
        else:
            rows["actions"][first] = "P" + rows["actions"][first]  # a split, never allowed
    return kind


def _settle(frame: pd.DataFrame, pset: ProfileSet) -> None:
    """Settle every bet with the audit's own arithmetic (games.triple_shot)."""
    cards = card_matrix(frame["cards"], 8)
    dealer = card_matrix(frame["dealer_cards"], 8)
    which = pset.assign(frame["table_id"], pd.to_datetime(frame["started_at"], utc=True))
    profs = pset.profiles

    def per(fn, category=None):
        table = np.stack([np.asarray(fn(p)) for p in profs])
        return table[which] if category is None else table[which, category.astype(np.intp)]

    tie_push = per(lambda p: p.war_tie == "push")
    war = ts.war_settle(cards[:, 0], dealer[:, 0], frame["bet_war"].to_numpy(), tie_push)
    frame["net_war"] = war // ts.SCALE
    pays = per(lambda p: p.bj_pays)
    net, _ = ts.bj_settle(cards=cards, count=frame["_bjc"].to_numpy().astype(np.int16), dealer=dealer,
                          dealer_count=frame["dealer_bj_count"].to_numpy().astype(np.int16),
                          bet=frame["bet_bj"].to_numpy(), double=frame["double"].to_numpy(),
                          bj_pays=(pays[:, 0], pays[:, 1]), charlie=per(lambda p: p.six_card_charlie))
    # The casino rounds a fraction of a céntimo (3:2 of an odd amount) down.
    frame["net_bj"] = np.sign(net) * (np.abs(net) // ts.SCALE)
    ok = np.ones(len(frame), bool)
    cat, rank = ts.evaluate_six(cards, ok)
    dcat, drank = ts.evaluate_six(dealer, ok)
    expected = ts.poker_settle(
        category=cat, rank=rank, pair=poker.pair_rank(cat, rank), dealer_rank=drank,
        dealer_ok=ts.dealer_qualifies(dealer, dcat), bet=frame["bet_poker"].to_numpy(),
        caribbean=per(lambda p: p.poker_mode == "caribbean"),
        carib_ratio=per(lambda p: ts.ratio_table(p.caribbean.model_dump()), cat),
        pay_ratio=per(lambda p: ts.ratio_table(p.paytable.model_dump()), cat),
        min_pair=per(lambda p: RANKS.index(p.min_pair)))
    frame["net_poker"] = expected // ts.SCALE
    bonus = ts.table_settle(frame["bonus_bet"].to_numpy(), per(lambda p: ts.ratio_table(p.bonus.model_dump()), cat))
    frame["net_bonus"] = np.where(frame["bonus_bet"].to_numpy() > 0, bonus // ts.SCALE, 0)
    frame["_limit"] = per(lambda p: p.cents("payment_limit") if p.payment_limit is not None else 10**15)
    # What each hand wins (céntimos × SCALE), and on how many bets: a round whose winnings due
    # exceed the limit is paid in full all the same (TS-PAY-LIMIT), unless a fault cuts it.
    dues = (war, net, expected, np.where(frame["bonus_bet"].to_numpy() > 0, bonus, 0))
    frame["_won"] = sum(np.maximum(d, 0) for d in dues)
    for col, due in zip(_PAYOUT.values(), dues):
        frame[f"_due_{col}"] = due


def _inject_after_settlement(rng, frame: pd.DataFrame, plans, pset: ProfileSet) -> pd.DataFrame:
    truth: list[tuple[str, str, str]] = []
    by_round = frame.groupby("_round", sort=True).indices
    rounds = frame.groupby("_round")
    limit = rounds["_limit"].first().to_numpy()
    capped = rounds["_won"].sum().to_numpy() > limit * ts.SCALE
    nets = {c: frame[c].to_numpy().copy() for c in _PAYOUT.values()}
    cards_text: dict[int, str] = {}
    rejected = np.zeros(len(plans), bool)
    for n, kind in enumerate(plans):
        if kind is None:
            continue
        idx = by_round[n]
        table, rnd = frame.at[idx[0], "table_id"], frame.at[idx[0], "round_id"]
        if kind == "TS-BONUS" and not (frame["bonus_bet"].to_numpy()[idx] > 0).any():
            kind = "TS-POKER"
        if kind == "TS-CARDS":
            cards_text[int(idx[0])] = rng.choice(("JK 2C 3D 4H 5S 6C", "1X KD 9C 4H 2S 7D", "AS 0H"))
            rejected[n] = True
        elif kind in _PAYOUT:
            col = _PAYOUT[kind]
            rows = idx if kind != "TS-BONUS" else idx[frame["bonus_bet"].to_numpy()[idx] > 0]
            i = rng.choice(list(rows))
            bet = int(frame.at[i, {"net_war": "bet_war", "net_bj": "bet_bj", "net_poker": "bet_poker",
                                   "net_bonus": "bonus_bet"}[col]])
            delta = rng.choice((-500, 500, -bet // 2, bet, -2 * bet))
            if capped[n] and nets[col][i] > 0:
                nets[col][i] = -bet  # a lesser payment would be the lawful cut to the limit
            else:
                nets[col][i] += delta or 100
        elif kind == "TS-PAY-LIMIT":
            i = rng.choice(list(idx))
            # Above the limit and above what the bet is due (in a round over the limit a
            # payment up to the due is the lawful cut).
            nets["net_poker"][i] = max(int(frame.at[i, "_limit"]) + 10_000, int(nets["net_poker"][i]) + 100)
            kind = "TS-POKER"  # the overpaid bet itself; the limit is added below
        truth.append((table, rnd, kind))
    for col, values in nets.items():
        frame[col] = values
    # The payment limit, over every audited round (a planted overpayment or a rare round
    # of big hands alike); and a round over the limit that a fault cut short of it in prizes
    # (a winning bet collected) by a céntimo per winning bet or more, unless a hand of it
    # cannot be valued (TS-SIX-CARDS: the audit then counts no winnings of that hand).
    of_round = frame["_round"].to_numpy()
    paid = sum(np.maximum(frame[c].to_numpy(), 0) for c in _PAYOUT.values())
    total = pd.Series(paid).groupby(of_round).sum().to_numpy()
    due = {c: frame[f"_due_{c}"].to_numpy() for c in _PAYOUT.values()}
    prizes = sum(np.where(due[c] > 0, np.maximum(frame[c].to_numpy(), 0), 0) for c in _PAYOUT.values())
    winners = sum((d > 0).astype(np.int64) for d in due.values())
    short = capped & (limit - pd.Series(prizes).groupby(of_round).sum().to_numpy()
                      >= np.maximum(pd.Series(winners).groupby(of_round).sum().to_numpy(), 1))
    short &= np.array([plan != "TS-SIX-CARDS" for plan in plans], bool)
    for code, over in (("TS-PAY-LIMIT", total > limit), ("TS-PAY-CAPPED", short)):
        for n in np.flatnonzero(over & ~rejected):
            i = by_round[n][0]
            truth.append((frame.at[i, "table_id"], frame.at[i, "round_id"], code))
    frame["_bad_cards"] = ""
    for i, text in cards_text.items():
        frame.at[i, "_bad_cards"] = text
    return pd.DataFrame(sorted(set(truth)), columns=["table_id", "round_id", "code"])


def _to_text(frame: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({
        "table_id": frame["table_id"], "round_id": frame["round_id"], "started_at": frame["started_at"],
        "dealer_id": frame["dealer_id"], "deck_id": frame["deck_id"], "deck_color": frame["deck_color"],
        "dealer_cards": [format_cards(c) for c in frame["dealer_cards"]],
        "dealer_bj_count": pd.Series([int(v) for v in frame["dealer_bj_count"]], dtype=object),
        "seat": frame["seat"],
        "cards": [format_cards(c) for c in frame["cards"]], "actions": frame["actions"],
    })
    for col in ("bet_war", "bet_bj", "bet_poker", "double", "bonus_bet", "net_war", "net_bj", "net_poker",
                "net_bonus"):
        out[col] = cents_text(frame[col].to_numpy())
    bad = frame["_bad_cards"].to_numpy()
    has = bad != ""
    out.loc[has, "cards"] = bad[has]
    return out
