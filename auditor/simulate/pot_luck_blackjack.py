"""Pot Luck Black Jack round simulator with fault injection and ground truth.

Tables deal from real shoes (reshuffled at a cut card), players follow a close-to-basic
strategy (insurance, even money, surrender, splits, doubles and pool bets all occur), the
dealer plays by Art. 14 and every hand is settled by the same arithmetic the audit uses.
A fraction ``faults`` of the rounds carries exactly one injected fault; the codes that fault
must raise go to the truth file.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

import numpy as np
import pandas as pd

from ..cards import card_matrix, format_cards
from ..checks.pot_luck_blackjack import OUTCOME_CODE
from ..games import blackjack as bj
from ..money import cents_text
from ..profiles import PotLuckProfile, ProfileSet

__all__ = ["simulate", "FAULT_KINDS"]

TABLES = ("PLB-01", "PLB-02", "PLB-03", "PLB-04")
DEALERS = ("CR-101", "CR-102", "CR-103", "CR-104", "CR-105", "CR-106")
BETS = (1000, 2000, 2500, 5000, 10000, 20000, 50000)  # céntimos
POOL_BETS = (100, 200, 500, 1000)
LIMA = timezone(timedelta(hours=-5))

# Kinds of injected faults (each names the rule code it must raise).
FAULT_KINDS = (
    "PLB-DEALER-PLAY", "PLB-PLAY", "PLB-SPLIT", "PLB-SPLIT-ACES", "PLB-DOUBLE", "PLB-SURRENDER",
    "PLB-INSURANCE", "PLB-EVEN-MONEY", "PLB-BET-LIMITS", "PLB-SHOE", "PLB-CARDS", "payout",
    "PLB-INSURANCE-PAY", "PLB-EVEN-MONEY-PAY", "PLB-POOL-WINNER", "PLB-POOL-COMMISSION", "PLB-POOL-CAP", "PLB-PAY-LIMIT",
)
_PLAY_TIME = {"PLB-DEALER-PLAY", "PLB-PLAY", "PLB-SPLIT", "PLB-SPLIT-ACES", "PLB-DOUBLE", "PLB-SURRENDER",
              "PLB-INSURANCE", "PLB-EVEN-MONEY", "PLB-BET-LIMITS", "PLB-SHOE", "PLB-EVEN-MONEY-PAY"}


def _value(card: int) -> int:
    """Strategy value of a card: 2..10, Ace 11."""
    r = card >> 2
    return 11 if r == 12 else min(r + 2, 10)


def _wants_split(v: int, up: int) -> bool:
    return (v in (11, 8) or (v == 9 and up in (2, 3, 4, 5, 6, 8, 9)) or (v == 7 and up <= 7)
            or (v == 6 and up <= 6) or (v in (2, 3) and up <= 7) or (v == 4 and up in (5, 6)))


def _wants_double(total: int, soft: bool, up: int) -> bool:
    if soft:
        return 13 <= total <= 18 and up in (5, 6)
    return (total == 11 and up <= 10) or (total == 10 and up <= 9) or (total == 9 and 3 <= up <= 6)


def _wants_hit(total: int, soft: bool, up: int) -> bool:
    if soft:
        return total <= 17 or (total == 18 and up >= 9)
    if total <= 11:
        return True
    if total == 12:
        return up in (2, 3) or up >= 7
    return total <= 16 and up >= 7


@dataclass
class _Hand:
    cards: list[int]
    bet: int
    split_from: int = -1
    actions: str = ""
    double: int = 0


@dataclass
class _Seat:
    seat: int
    bet: int
    pool_bet: int
    hands: list[_Hand] = field(default_factory=list)
    insurance: int = 0


class _Shoe:
    def __init__(self, rng: random.Random, decks: int, table: str):
        self.rng, self.decks, self.table = rng, decks, table
        self.number = 0
        self.shuffle()

    def shuffle(self):
        self.cards = list(range(52)) * self.decks
        self.rng.shuffle(self.cards)
        self.pos = 0
        # The cut card leaves room for the largest round (7 seats, splits and draws).
        self.cut = min(int(len(self.cards) * 0.75), len(self.cards) - 70)
        self.number += 1
        self.id = f"{self.table}-Z{self.number:05d}"

    def draw(self) -> int:
        card = self.cards[self.pos]
        self.pos += 1
        return card

    def rig(self, want) -> bool:
        """Bring the next card matching ``want`` to the top (a swap: the shoe keeps its
        composition, only the order changes)."""
        for j in range(self.pos, len(self.cards)):
            if want(self.cards[j]):
                self.cards[self.pos], self.cards[j] = self.cards[j], self.cards[self.pos]
                return True
        return False


class _Table:
    def __init__(self, rng, table_id: str, profile: PotLuckProfile, start: datetime):
        self.id = table_id
        self.profile = profile
        self.shoe = _Shoe(rng, profile.decks, table_id)
        self.time = start
        self.seq = 0
        self.dealer = DEALERS[TABLES.index(table_id) % len(DEALERS)] if table_id in TABLES else DEALERS[0]


def _play_round(rng: random.Random, table: _Table, kind: str | None) -> tuple[list[int], list[_Seat], bool]:
    """Deal and play one round; returns (dealer cards, seats, whether ``kind`` was applied)."""
    p = table.profile
    shoe = table.shoe
    if shoe.pos > shoe.cut:
        shoe.shuffle()
    n_seats = rng.choice((1, 2, 3, 3, 4, 4, 5, 6, 7))
    seat_numbers = sorted(rng.sample(range(1, 8), n_seats))
    lo, hi = p.cents("min_bet") or 1000, p.cents("max_bet") or 100000
    plo, phi = p.cents("min_pool_bet") or 100, p.cents("max_pool_bet") or 5000
    seats = []
    for s in seat_numbers:
        bet = rng.choice([b for b in BETS if lo <= b <= hi] or [lo])
        pool = rng.choice([b for b in POOL_BETS if plo <= b <= phi] or [plo]) if rng.random() < 0.55 else 0
        seats.append(_Seat(seat=s, bet=bet, pool_bet=pool))
    applied = False
    if kind == "PLB-BET-LIMITS":
        seats[0].bet = hi + 50000
        applied = True

    # Mandatory deal (Art. 8): a card to each player, the dealer's face-up card, a second
    # card to each player, the dealer's hole card.
    # Rigged faults reorder the shoe (never add a card): split Aces need an Ace pair; an
    # even-money payment needs a Black Jack against a dealer Ace.
    is_ace, is_ten = (lambda c: c >> 2 == 12), (lambda c: 8 <= c >> 2 <= 11)
    rigged = {"PLB-SPLIT-ACES": (is_ace, None, is_ace), "PLB-EVEN-MONEY-PAY": (is_ace, is_ace, is_ten)}.get(kind)
    if rigged:
        applied = True
    first = []
    for s in seats:
        if rigged and s is seats[0]:
            applied &= shoe.rig(rigged[0])
        first.append(shoe.draw())
    if rigged and rigged[1]:
        applied &= shoe.rig(rigged[1])
    up = shoe.draw()
    second = []
    for i, s in enumerate(seats):
        if rigged and i == 0:
            applied &= shoe.rig(rigged[2])
        second.append(shoe.draw())
    hole = shoe.draw()
    if kind == "PLB-SHOE" and p.decks <= 2:
        # A third copy of one card in a round dealt from two decks.
        first[0] = second[0] = up = first[0]
        applied = True
    dealer = [up, hole]
    upv = _value(up)
    up_ace = upv == 11
    for s, a, b in zip(seats, first, second):
        s.hands.append(_Hand(cards=[a, b], bet=s.bet))

    # Which seat carries a play-time fault: the first seat without a natural.
    target = next((s for s in seats if bj.hand_value(s.hands[0].cards)[0] != 21), None)

    # Insurance and even money, before the voluntary deal (Arts. 10 and 13).
    for s in seats:
        h = s.hands[0]
        natural = bj.hand_value(h.cards)[0] == 21
        if s is seats[0] and kind == "PLB-EVEN-MONEY-PAY" and applied:
            h.actions = "E"
        elif s is target and kind == "PLB-EVEN-MONEY":
            h.actions = "E"
            applied = True
        elif s is target and kind == "PLB-INSURANCE":
            s.insurance = s.bet if up_ace else s.bet // 2
            h.actions = "I"
            applied = True
        elif up_ace and natural and rng.random() < 0.4:
            h.actions = "E"
        elif up_ace and not natural and (rng.random() < 0.1 or kind == "PLB-INSURANCE-PAY"):
            s.insurance = s.bet // 2
            h.actions = "I"
            applied = applied or kind == "PLB-INSURANCE-PAY"

    # The voluntary deal (Art. 14), seat by seat.
    for s in seats:
        _play_seat(rng, shoe, s, upv, up_ace, p, kind if s is target else None)
    if target is not None and kind in ("PLB-SPLIT", "PLB-SPLIT-ACES", "PLB-DOUBLE", "PLB-SURRENDER", "PLB-PLAY"):
        applied = target.hands[0].actions.find("!") >= 0
        for h in target.hands:
            h.actions = h.actions.replace("!", "")

    # The dealer turns the hole card and draws to 17 (Art. 14).
    while bj.dealer_must_hit(dealer):
        dealer.append(shoe.draw())
    if kind == "PLB-DEALER-PLAY":
        dealer.append(shoe.draw())
        applied = True
    return dealer, seats, applied


def _play_seat(rng, shoe: _Shoe, s: _Seat, upv: int, up_ace: bool, p: PotLuckProfile, kind: str | None):
    """Play a seat's hands; a fault ``kind`` forced on this seat marks hand 0 with '!'."""
    h0 = s.hands[0]
    if "E" in h0.actions:
        return
    total, soft = bj.hand_value(h0.cards)
    if total == 21:
        return  # a Black Jack stands
    if kind == "PLB-SURRENDER":
        if total < 21:
            h0.actions += "H"
            h0.cards.append(shoe.draw())
            h0.actions += "R!"
        return
    if not up_ace and ((total == 16 and not soft and upv in (9, 10)) or (total == 15 and not soft and upv == 10)) \
            and _value(h0.cards[0]) != 8 and rng.random() < 0.8:
        h0.actions += "R"
        return
    forced_split = kind == "PLB-SPLIT" and _value(h0.cards[0]) != _value(h0.cards[1])
    i = 0
    while i < len(s.hands):
        h = s.hands[i]
        a, b = h.cards[0], h.cards[1]
        pair = _value(a) == _value(b)
        may_split = len(s.hands) - 1 < p.max_splits and not (a >> 2 == 12 and i > 0 or a >> 2 == 12 and len(s.hands) > 1)
        if (pair and may_split and _wants_split(_value(a), upv)) or (forced_split and i == 0 and "P" not in h.actions):
            if forced_split and i == 0:
                h.actions += "!"
            child = _Hand(cards=[b], bet=h.bet, split_from=i)
            h.actions += "P"
            h.cards = [a, shoe.draw()]
            child.cards.append(shoe.draw())
            s.hands.append(child)
            continue  # the same hand may split again
        _play_hand(rng, shoe, h, upv, kind if i == 0 else None, s)
        i += 1


def _play_hand(rng, shoe: _Shoe, h: _Hand, upv: int, kind: str | None, s: _Seat):
    split_aces = (h.cards[0] >> 2 == 12) and (h.split_from >= 0 or "P" in h.actions)
    total, soft = bj.hand_value(h.cards)
    if split_aces:
        if kind == "PLB-SPLIT-ACES" and total < 21:
            h.actions += "H!"
            h.cards.append(shoe.draw())
        return
    if kind == "PLB-DOUBLE" and total < 21:
        h.actions += "D!"
        h.double = 2 * h.bet
        h.cards.append(shoe.draw())
        return
    if total < 21 and _wants_double(total, soft, upv) and kind != "PLB-PLAY":
        h.actions += "D"
        h.double = h.bet if rng.random() < 0.85 else h.bet // 2
        h.cards.append(shoe.draw())
        return
    while total < 21 and (_wants_hit(total, soft, upv) or (kind == "PLB-PLAY")):
        h.actions += "H"
        h.cards.append(shoe.draw())
        total, soft = bj.hand_value(h.cards)
    if kind == "PLB-PLAY":
        h.actions += "H!"
        h.cards.append(shoe.draw())
        return
    if total <= 21:
        h.actions += "S"


def simulate(rounds: int, seed: int, faults: float, profiles: list[PotLuckProfile],
             start: date = date(2026, 11, 1)) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(log rows, truth rows) for ``rounds`` rounds spread over the sample tables, from
    noon of ``start``; round ids carry the day, so logs of different days never collide."""
    rng = random.Random(seed)
    pset = ProfileSet("pot-luck-blackjack", profiles)
    day = start.strftime("%Y%m%d")
    start = datetime(start.year, start.month, start.day, 12, 0, tzinfo=LIMA)
    tables = []
    for t in TABLES:
        which = pset.assign(pd.Series([t]), pd.Series([pd.Timestamp(start)]))[0]
        tables.append(_Table(rng, t, pset.profiles[which], start))
    rows: dict[str, list] = {k: [] for k in ("table_id", "round_id", "started_at", "dealer_id", "shoe_id",
                                             "dealer_cards", "seat", "hand", "split_from", "cards", "actions",
                                             "bet", "double", "insurance", "pool_bet", "_round")}
    plans: list[str | None] = []
    for n in range(rounds):
        table = tables[n % len(tables)]
        kind = rng.choice(FAULT_KINDS) if rng.random() < faults else None
        table.seq += 1
        table.time += timedelta(seconds=rng.randint(45, 150))
        if table.seq % 120 == 0:
            table.dealer = rng.choice(DEALERS)
        dealer, seats, applied = _play_round(rng, table, kind if kind in _PLAY_TIME else None)
        if kind in _PLAY_TIME and not applied:
            kind = "payout"  # the forced situation did not arise: fall back to a payout fault
        plans.append(kind)
        round_id = f"{day}-{table.seq:06d}"
        for s in seats:
            for hi, h in enumerate(s.hands):
                rows["table_id"].append(table.id)
                rows["round_id"].append(round_id)
                rows["started_at"].append(table.time.isoformat())
                rows["dealer_id"].append(table.dealer)
                rows["shoe_id"].append(table.shoe.id)
                rows["dealer_cards"].append(dealer)
                rows["seat"].append(s.seat)
                rows["hand"].append(hi)
                rows["split_from"].append(h.split_from)
                rows["cards"].append(h.cards)
                rows["actions"].append(h.actions)
                rows["bet"].append(h.bet)
                rows["double"].append(h.double)
                rows["insurance"].append(s.insurance if hi == 0 else 0)
                rows["pool_bet"].append(s.pool_bet if hi == 0 else 0)
                rows["_round"].append(n)
    frame = pd.DataFrame(rows)
    _settle(frame, pset)
    truth = _inject_after_settlement(rng, frame, plans, pset)
    return _to_text(frame), truth


def _settle(frame: pd.DataFrame, pset: ProfileSet) -> None:
    """Settle every hand with the audit's own arithmetic (games.blackjack)."""
    cards = card_matrix(frame["cards"], 12)
    dealer = card_matrix(frame["dealer_cards"], 12)
    count = np.array([len(c) for c in frame["cards"]])
    actions = frame["actions"]
    hand = frame["hand"].to_numpy()
    nxt = np.r_[hand[1:], 0]
    in_split = (hand > 0) | ((hand == 0) & (nxt == 1))
    total = bj.totals(cards)[0]
    natural = (count == 2) & (total == 21) & ~in_split
    dealer_natural = bj.totals(dealer[:, :2])[0] == 21
    # A planted surrender or even money the reglamento does not allow is settled as the audit
    # settles it (games.blackjack.lawful_choices): the log pays what the hand is due. What is
    # void is read here from the decision letters, apart from the audit's own reading of them
    # (checks.pot_luck_blackjack: Context.surrender_faults, even_money_faults), which the
    # truth files then test.
    up_ace = dealer[:, 0] >> 2 == bj.ACE_RANK
    surrendered, even_money = bj.lawful_choices(
        surrendered=actions.str.contains("R").to_numpy(),
        surrender_void=up_ace | in_split | actions.str.contains("[HDPS]").to_numpy()
        | (actions.str.count("R") > 1).to_numpy(),
        even_money=actions.str.contains("E").to_numpy(),
        even_money_void=~(natural & (hand == 0) & up_ace) | actions.str.contains("[HDPR]|[RPDHS].*E").to_numpy(),
        dealer_natural=dealer_natural, player_natural=natural)
    expected, outcome = bj.settle_main(
        player_total=total, player_natural=natural, dealer_total=bj.totals(dealer)[0],
        dealer_natural=dealer_natural, bet=frame["bet"].to_numpy(), double=frame["double"].to_numpy(),
        surrendered=surrendered, even_money=even_money, original_hand=hand == 0)
    frame["net_main"] = expected // bj.SCALE
    frame["_outcome"] = outcome
    ins = bj.insurance_expected(frame["insurance"].to_numpy(), bj.is_ten_value(dealer[:, 1]))
    frame["net_insurance"] = ins // bj.SCALE

    # The pool (Art. 18): highest two-card score among pool bettors, split on ties, minus
    # the posted commission truncated to the céntimo.
    frame["pool_paid"] = 0
    second = np.where((hand == 0) & (nxt == 1), np.r_[cards[1:, 0], -1], cards[:, 1])
    score = bj.totals(np.stack([cards[:, 0], second], axis=1))[0]
    frame["_score"] = np.where((hand == 0) & (frame["pool_bet"].to_numpy() > 0), score, -1)
    which = pset.assign(frame["table_id"], pd.to_datetime(frame["started_at"], utc=True))
    bp = np.array([int(p.pool_commission_pct * 100) for p in pset.profiles])[which]
    frame["_bp"] = bp
    paid = np.zeros(len(frame), dtype=np.int64)
    pool_bet, scores = frame["pool_bet"].to_numpy(), frame["_score"].to_numpy()
    for idx in frame.groupby("_round", sort=False).indices.values():
        pool = int(pool_bet[idx].sum())
        if not pool:
            continue
        sc = scores[idx]
        winners = idx[sc == sc.max()]
        net = pool - pool * int(bp[idx[0]]) // 10_000
        share, rest = divmod(net, len(winners))
        paid[winners] = share
        paid[winners[:rest]] += 1
    frame["pool_paid"] = paid
    # What each hand wins (céntimos × SCALE) and on how many bets: a round whose winnings due
    # exceed the payment limit is paid in full all the same (PLB-PAY-LIMIT), unless a fault
    # cuts it (see _inject_after_settlement).
    frame["_won"] = np.maximum(expected, 0) + np.maximum(ins, 0) + paid * bj.SCALE
    frame["_due_main"], frame["_due_ins"], frame["_due_pool"] = expected, ins, paid


def _inject_after_settlement(rng, frame: pd.DataFrame, plans, pset: ProfileSet) -> pd.DataFrame:
    truth: list[tuple[str, str, str]] = []
    by_round = frame.groupby("_round", sort=True).indices
    net = frame["net_main"].to_numpy().copy()
    net_ins = frame["net_insurance"].to_numpy().copy()
    pool_paid = frame["pool_paid"].to_numpy().copy()
    cards_text: dict[int, str] = {}
    which = pset.assign(frame["table_id"], pd.to_datetime(frame["started_at"], utc=True))
    limit = np.array([p.cents("payment_limit") or 10**12 for p in pset.profiles])[which]
    of_round = frame["_round"].to_numpy()
    round_limit = pd.Series(limit).groupby(of_round).first().to_numpy()
    capped = frame.groupby("_round")["_won"].sum().to_numpy() > round_limit * bj.SCALE
    for n, kind in enumerate(plans):
        if kind is None:
            continue
        idx = by_round[n]
        table, rnd = frame.at[idx[0], "table_id"], frame.at[idx[0], "round_id"]
        pool_rows = idx[frame["pool_bet"].to_numpy()[idx] > 0]
        winners = idx[pool_paid[idx] > 0]
        if kind == "PLB-INSURANCE-PAY" and not (frame["insurance"].to_numpy()[idx] > 0).any():
            kind = "payout"
        if kind == "PLB-EVEN-MONEY-PAY":
            idx = idx[frame["actions"].to_numpy()[idx] == "E"][:1]
            kind = "payout"
        if kind in ("PLB-POOL-WINNER", "PLB-POOL-COMMISSION", "PLB-POOL-CAP") and (len(winners) != 1 or len(pool_rows) < 2):
            kind = "payout"
        codes: list[str] = []
        if kind == "PLB-CARDS":
            cards_text[int(idx[0])] = rng.choice(("JK", "1X", "ZZ", "AS 0H"))
            codes = ["PLB-CARDS"]
        elif kind == "payout":
            i = rng.choice(list(idx))
            delta = rng.choice((-500, 500, -frame.at[i, "bet"] // 2, frame.at[i, "bet"]))
            if capped[n] and net[i] > 0:
                net[i] = -frame.at[i, "bet"]  # a lesser payment would be the lawful cut to the limit
            else:
                net[i] += delta or 100
            codes = [OUTCOME_CODE[bj.Outcome(frame.at[i, "_outcome"])]]
        elif kind == "PLB-INSURANCE-PAY":
            i = idx[frame["insurance"].to_numpy()[idx] > 0][0]
            net_ins[i] = -net_ins[i] if net_ins[i] else 100
            codes = [kind]
        elif kind == "PLB-POOL-WINNER":
            w = winners[0]
            loser = next(j for j in pool_rows if j != w)
            pool_paid[loser], pool_paid[w] = pool_paid[w], 0
            codes = [kind]
        elif kind in ("PLB-POOL-COMMISSION", "PLB-POOL-CAP"):
            w = winners[0]
            pool = int(frame["pool_bet"].to_numpy()[idx].sum())
            pct = 2 if kind == "PLB-POOL-COMMISSION" else 10
            if pool * pct // 100 == pool * int(frame.at[w, "_bp"]) // 10_000:
                pct = 0
            pool_paid[w] = pool - pool * pct // 100
            codes = ["PLB-POOL-COMMISSION"] + (["PLB-POOL-CAP"] if kind == "PLB-POOL-CAP" else [])
        elif kind == "PLB-PAY-LIMIT":
            i = rng.choice(list(idx))
            net[i] = max(limit[i] + 10_000, net[i] + 100)  # above the limit and above the due
            codes = ["PLB-PAY-LIMIT", OUTCOME_CODE[bj.Outcome(frame.at[i, "_outcome"])]]
        else:
            codes = [kind]
        truth.extend((table, rnd, c) for c in codes)
    frame["net_main"] = net
    frame["net_insurance"] = net_ins
    frame["pool_paid"] = pool_paid
    # Every round paid over the limit (a planted overpayment, or a round of big hands paid in
    # full); and a round over the limit that a fault cut short of it in prizes (a winning bet
    # collected; the pool counted at what it is due, its faults being its own rules') by a
    # céntimo per winning bet or more.
    total = pd.Series(np.maximum(net, 0) + np.maximum(net_ins, 0) + pool_paid).groupby(of_round).sum().to_numpy()
    due_main, due_ins = frame["_due_main"].to_numpy(), frame["_due_ins"].to_numpy()
    prizes = (np.where(due_main > 0, np.maximum(net, 0), 0) + np.where(due_ins > 0, np.maximum(net_ins, 0), 0)
              + frame["_due_pool"].to_numpy())
    winners = (due_main > 0).astype(np.int64) + (due_ins > 0)
    short = capped & (round_limit - pd.Series(prizes).groupby(of_round).sum().to_numpy()
                      >= np.maximum(pd.Series(winners).groupby(of_round).sum().to_numpy(), 1))
    kept = np.array([plan != "PLB-CARDS" for plan in plans], bool)
    for code, hit in (("PLB-PAY-LIMIT", total > round_limit), ("PLB-PAY-CAPPED", short)):
        for n in np.flatnonzero(hit & kept):
            i = by_round[n][0]
            truth.append((frame.at[i, "table_id"], frame.at[i, "round_id"], code))
    frame["_bad_cards"] = ""
    for i, text in cards_text.items():
        frame.at[i, "_bad_cards"] = text
    return pd.DataFrame(sorted(set(truth)), columns=["table_id", "round_id", "code"])


def _to_text(frame: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({
        "table_id": frame["table_id"], "round_id": frame["round_id"], "started_at": frame["started_at"],
        "dealer_id": frame["dealer_id"], "shoe_id": frame["shoe_id"],
        "dealer_cards": [format_cards(c) for c in frame["dealer_cards"]],
        "seat": frame["seat"], "hand": frame["hand"],
        "split_from": ["" if v < 0 else str(v) for v in frame["split_from"]],
        "cards": [format_cards(c) for c in frame["cards"]],
        "actions": frame["actions"],
    })
    for col in ("bet", "double", "insurance", "pool_bet", "net_main", "net_insurance", "pool_paid"):
        out[col] = cents_text(frame[col].to_numpy())
    bad = frame["_bad_cards"].to_numpy()
    has = bad != ""
    out.loc[has, "cards"] = bad[has]
    return out
