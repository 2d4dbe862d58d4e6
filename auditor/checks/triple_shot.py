"""Triple Shot checks (Directiva Nº 004-2004-MINCETUR/VMT/DNT, Arts. 1-4, and the rules the
directive borrows from Black Jack and Póker Caribeño).

One pure function per rule code, each over all hands or rounds at once; the audit context
evaluates every six-card hand once and computes what every bet is due. Interpretations of
the text are noted where a check makes one.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from ..cards import RANKS, cards_text
from ..games import blackjack as bj
from ..games import poker
from ..games import triple_shot as ts
from ..logs.ingest import HandTable
from ..profiles import ProfileSet
from ..rowwise import cells, rows_at
from .base import most_copies, positions_result, deck_alternation_result, reasons, GameContext, card_faults_result, pay_limit_result, capped_rounds, capped_pay_mismatch, capped_pay_result, prizes_paid, pays_less_above, CheckResult, group_any, letters_text, copies_evidence, limits_evidence, money_text, column_values, joined, repeated, seat_keys

__all__ = ["LETTERS", "validate", "Context", "CHECKS", "BET_CODE"]

# Black Jack decision letters of the log format, in code order. P is read so that a split,
# which the directive excludes (Art. 1 a.2), is reported rather than rejected.
LETTERS = "PDHS"
SPLIT, DOUBLE, HIT, STAND = range(4)
SEATS = 6  # Art. 2 a
CARDS = 6  # Art. 1 i
NO_REASON = 127

# Which rule a wrong settlement of each bet breaks (the simulator's truth uses it too).
BET_CODE = {"net_war": "TS-WAR", "net_bj": "TS-BJ-PAY", "net_poker": "TS-POKER", "net_bonus": "TS-BONUS"}


def validate(table: HandTable) -> list[tuple[np.ndarray, str, str]]:
    """Rows whose data contradict themselves (not rule violations): (mask, field, reason)."""
    df = table.df
    n = table.matrices["actions"].tally
    count = table.matrices["cards"].count.astype(np.int16)
    dcount = table.matrices["dealer_cards"].count.astype(np.int16)
    dbc = df["dealer_bj_count"].to_numpy().astype(np.int16)
    return [
        (repeated(seat_keys(df)), "seat", "reject.ts.duplicate_seat"),
        ((count >= 2) & (ts.bj_count(n[HIT], n[DOUBLE]) > count), "actions", "reject.ts.cards_vs_actions"),
        ((df["double"].to_numpy() > 0) != (n[DOUBLE] > 0), "double", "reject.ts.double_vs_action"),
        ((dbc < 2) | (dbc > np.maximum(dcount, 2)), "dealer_bj_count", "reject.ts.dealer_bj_count"),
    ]


class Context(GameContext):
    """Everything the Triple Shot checks share, computed once over all accepted hands."""

    ROUND_COLUMNS = GameContext.ROUND_COLUMNS + ("deck_id", "deck_color")

    def __init__(self, table: HandTable, profiles: ProfileSet, card_faults: pd.DataFrame,
                 previous: list[dict], gaps: pd.DataFrame):
        super().__init__(table, profiles, card_faults, previous, gaps)
        df, first = table.df, self.first
        self.dealer = rows_at(table.matrices["dealer_cards"].cards, first)
        self.dcount = table.matrices["dealer_cards"].count[first].astype(np.int16)
        self.dbc = df["dealer_bj_count"].to_numpy()[first].astype(np.int16)
        self.actions = table.matrices["actions"].cards
        self.n = table.matrices["actions"].tally
        self.bjc = ts.bj_count(self.n[HIT], self.n[DOUBLE])
        self.seat = df["seat"].to_numpy()
        for name in ("bet_war", "bet_bj", "bet_poker", "double", "bonus_bet",
                     "net_war", "net_bj", "net_poker", "net_bonus"):
            setattr(self, name, df[name].to_numpy())
        # Art. 1 i: the hand is six cards. A hand of another shape (TS-SIX-CARDS) cannot be
        # valued as the directive defines it, and no pay rule is checked on it.
        self.ok = (self.count == CARDS) & (self.dcount[self.rid] == CARDS)
        self.dealer_ok = self.dcount == CARDS

    def per_hand(self, fn, category: np.ndarray | None = None) -> np.ndarray:
        """``fn(profile)`` of each hand row's profile; with ``category``, the entry of each
        row's category in it (``fn`` gives a table of ratios by category)."""
        table, of_row = np.stack([np.asarray(fn(p)) for p in self.profiles.profiles]), self.profile_of_hand
        return rows_at(table, of_row) if category is None else cells(table, of_row, category)

    @cached_property
    def profile_of_hand(self) -> np.ndarray:
        return self.which[self.rid]

    # --- the three games ----------------------------------------------------------------
    @cached_property
    def war(self) -> np.ndarray:
        tie_push = (self.param("war_tie", missing="lose_half") == "push")[self.rid]
        return ts.war_settle(self.cards[:, 0], self.dealer[:, 0][self.rid], self.bet_war, tie_push)

    @cached_property
    def blackjack(self) -> tuple[np.ndarray, np.ndarray]:
        r = self.rid
        pays = self.per_hand(lambda p: p.bj_pays)
        charlie = self.param("six_card_charlie")[r].astype(bool)
        return ts.bj_settle(cards=self.cards, count=self.bjc, dealer=self.dealer, dealer_count=self.dbc, of_round=r,
                            bet=self.bet_bj, double=self.double, bj_pays=(pays[:, 0], pays[:, 1]),
                            charlie=charlie)

    @cached_property
    def player_hand(self) -> tuple[np.ndarray, np.ndarray]:
        return ts.evaluate_six(self.cards, self.ok)

    @cached_property
    def dealer_hand(self) -> tuple[np.ndarray, np.ndarray]:
        return ts.evaluate_six(self.dealer, self.dealer_ok)

    @cached_property
    def poker(self) -> np.ndarray:
        r = self.rid
        cat, rank = self.player_hand
        dcat, drank = self.dealer_hand
        carib = self.per_hand(lambda p: ts.ratio_table(p.caribbean.model_dump()), cat)
        pay = self.per_hand(lambda p: ts.ratio_table(p.paytable.model_dump()), cat)
        min_pair = self.per_hand(lambda p: RANKS.index(p.min_pair))
        qualifies = ts.dealer_qualifies(np.where(self.dealer >= 0, self.dealer, 0), dcat)
        return ts.poker_settle(category=cat, rank=rank, pair=poker.pair_rank(cat, rank), dealer_rank=drank[r],
                               dealer_ok=qualifies[r], bet=self.bet_poker,
                               caribbean=(self.param("poker_mode", missing="caribbean") == "caribbean")[r],
                               carib_ratio=carib, pay_ratio=pay, min_pair=min_pair)

    @cached_property
    def bonus(self) -> np.ndarray:
        ratio = self.per_hand(lambda p: ts.ratio_table(p.bonus.model_dump()), self.player_hand[0])
        return ts.table_settle(self.bonus_bet, ratio)

    @cached_property
    def settled(self) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per bet (War, Black Jack, Póker, bonus): how each hand row settled it, where its
        pay rule applies (a bet placed or settled on a hand that can be valued) and what it is
        due (céntimos × SCALE)."""
        ok = self.ok
        return {"war": (self.net_war, ok & ((self.bet_war > 0) | (self.net_war != 0)), self.war),
                "bj": (self.net_bj, ok & (self.bjc <= self.count) & ((self.bet_bj > 0) | (self.net_bj != 0)),
                       self.blackjack[0]),
                "poker": (self.net_poker, ok & ((self.bet_poker > 0) | (self.net_poker != 0)), self.poker),
                "bonus": (self.net_bonus, ok & ((self.bonus_bet > 0) | (self.net_bonus != 0)), self.bonus)}

    @cached_property
    def capped(self) -> np.ndarray:
        """Rounds whose winnings due exceed the posted payment limit (Art. 2 a.5, b)."""
        return capped_rounds(self, sum(np.maximum(due, 0) for _, due in self.due_to_win), ts.SCALE)

    @cached_property
    def winnings_paid(self) -> np.ndarray:
        """What each hand row was paid in winnings (every bet's gain, a loss counting nothing)."""
        return sum(np.maximum(net, 0) for net, _, _ in self.settled.values())

    @cached_property
    def due_to_win(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(settlement, due where its pay rule applies, else 0) of each bet."""
        return [(net, np.where(applies, due, 0)) for net, applies, due in self.settled.values()]

    @cached_property
    def prizes(self) -> np.ndarray:
        """What each hand row was paid on its bets due to win (``checks.base.prizes_paid``)."""
        return prizes_paid(self.due_to_win)

    # --- evidence -----------------------------------------------------------------------
    def hand_evidence(self, idx: np.ndarray) -> dict[str, list]:
        r = self.rid[idx]
        cat = self.player_hand[0]
        dcat = self.dealer_hand[0]
        categories = poker.CATEGORIES
        money = lambda v: money_text(v[idx])  # noqa: E731
        return {
            "cards": cards_text(self.cards[idx]),
            "dealer_cards": cards_text(self.dealer[r]),
            "actions": letters_text(self.actions[idx], LETTERS),
            "poker": [f"{categories[a]} / {categories[b]}" if ok else ""
                      for a, b, ok in zip(cat[idx].tolist(), dcat[r].tolist(), self.ok[idx].tolist())],
            "bets": [f"{a}/{b}+{d}/{c}/{e}" for a, b, c, d, e in zip(money(self.bet_war), money(self.bet_bj),
                                                                    money(self.bet_poker), money(self.double),
                                                                    money(self.bonus_bet))],
            "nets": [f"{a}/{b}/{c}/{d}" for a, b, c, d in zip(money(self.net_war), money(self.net_bj),
                                                              money(self.net_poker), money(self.net_bonus))],
            "deck_id": column_values(self.rounds, "deck_id", r),
        }

    def round_evidence(self, idx: np.ndarray) -> dict[str, list]:
        rows, bounds = self.hand_rows(idx)
        money = lambda v: money_text(v[rows])  # noqa: E731
        # each hand with what it was paid (war, black jack, poker, bonus): a round's finding on
        # its payments (the payment limit) is checked from them
        hands = [f"{s}: {c} [{a}] net {w}/{b}/{p}/{e}" for s, c, a, w, b, p, e in zip(
            self.seat[rows].tolist(), cards_text(self.cards[rows]), letters_text(self.actions[rows], LETTERS),
            money(self.net_war), money(self.net_bj), money(self.net_poker), money(self.net_bonus))]
        return {
            "dealer_cards": cards_text(self.dealer[idx]),
            "dealer_bj_count": self.dbc[idx].tolist(),
            "hands": joined(hands, bounds),
            "deck_id": column_values(self.rounds, "deck_id", idx),
            "deck_color": column_values(self.rounds, "deck_color", idx),
        }


# --- the checks, one per code -----------------------------------------------------------

def check_cards(ctx: Context) -> CheckResult:
    """Art. 1 h: every card is one of the 52 of a deck (jokers and unreadable codes are a
    data finding; such a round is rejected for every other rule)."""
    return card_faults_result(ctx)


def check_positions(ctx: Context) -> CheckResult:
    """Art. 2 a: six player positions; a round with more players, or a position number
    outside 1..6, breaks it."""
    return positions_result(ctx, SEATS, "reason.ts.too_many_seats", "reason.ts.seat_outside")


def check_six_cards(ctx: Context) -> CheckResult:
    """Art. 1 i: each player and the dealer receive six cards."""
    R = ctx.n_rounds
    violates, reason, keys = reasons((ctx.dcount != CARDS, "reason.ts.dealer_count"),
                                      (group_any(ctx.count != CARDS, ctx.rid, R), "reason.ts.player_count"))
    return ctx.rounds_result(np.ones(R, bool), violates, reason=reason, reasons=keys)


def check_one_deck(ctx: Context) -> CheckResult:
    """Art. 1 h and Art. 2 c.3: a round is dealt from one 52-card deck, so no card appears
    twice among the players' and the dealer's cards."""
    return ctx.rounds_result(np.ones(ctx.n_rounds, bool), most_copies(ctx, ctx.dealer) > 1,
                             more_evidence=copies_evidence(ctx, ctx.dealer))


def check_two_decks(ctx: Context) -> CheckResult:
    """Art. 2 c, c.1-c.2: every table uses two decks with backs of different colours,
    alternated continuously. Read over the table's whole history in time order (all files
    together): a round never uses the deck of the table's round before it, and its backs
    differ in colour from that round's. A deck may be replaced (a marked or missing card), so
    the ids seen over a day may be more than two. A round whose predecessor was rejected for
    a fault of its own is not compared across the gap (see ``checks.base.previous_rounds``)."""
    return deck_alternation_result(ctx, np.ones(ctx.n_rounds, bool))


def _paid_as_due(ctx: Context, bet: str) -> CheckResult:
    """The hand rows whose ``bet`` (see ``Context.settled``) was not settled as it is due."""
    net, applies, due = ctx.settled[bet]
    capped = ctx.capped[ctx.rid]
    violates = capped_pay_mismatch(net, due, ts.SCALE, capped)
    return ctx.hands_result(applies, violates, expected=due, observed=net * ts.SCALE, scale=ts.SCALE,
                            bound_only=capped & (due > 0))


def check_war(ctx: Context) -> CheckResult:
    """Art. 1 a.1: on the first cards, the higher card wins (Art. 3: A high) and is paid 1:1,
    the lower loses; a tie pushes or costs half the bet by the posted war_tie ([STANDARD])."""
    return _paid_as_due(ctx, "war")


def check_bj_play(ctx: Context) -> CheckResult:
    """Art. 1 a.2: Black Jack is played by its reglamento "salvo en la apertura de cartas
    iguales": a split is never allowed. A player receives cards one at a time only while
    under 21; a double is the first decision, for at most the bet, and one card; nothing is
    done after standing. The dealer stands on 17 or more (soft 17 by the profile) and draws
    below; the Black Jack hand cannot grow past the six cards of the hand (Art. 1 i), so a
    dealer who holds six cards below 17 has stood correctly."""
    rid, R = ctx.rid, ctx.n_rounds
    playable = ctx.bjc <= ctx.count
    hit_21 = bj.drew_on_21(ctx.cards, ctx.bjc)  # (the Black Jack hand: its first bjc cards)
    double_bad = (ctx.n[DOUBLE] > 0) & ((ctx.actions[:, 0] != DOUBLE) | (ctx.n[DOUBLE] > 1) | (ctx.n[HIT] > 0)
                                        | (ctx.double > ctx.bet_bj))
    stood = np.zeros(len(ctx.cards), bool)
    after_stand = np.zeros(len(ctx.cards), bool)
    for step in np.ascontiguousarray(ctx.actions.T):  # every hand's j-th decision
        after_stand |= stood & (step >= 0)
        stood |= step == STAND
    player, preason, pkeys = reasons((ctx.n[SPLIT] > 0, "reason.ts.split"),
                                      (playable & hit_21, "reason.ts.hit_on_21"),
                                      (double_bad, "reason.ts.double"),
                                      (after_stand, "reason.ts.after_stand"))
    dealer_ok = (ctx.dbc >= 2) & (ctx.dbc <= ctx.dcount)
    soft17 = ctx.param("dealer_hits_soft_17").astype(bool)
    drew = np.zeros(R, bool)
    stood = np.zeros(R, bool)
    for flag in (False, True):  # the two dealer rules a profile can post
        sel = soft17 == flag
        # (the dealer's Black Jack hand is the first dealer_bj_count cards: all it reads)
        d, s = bj.dealer_play_faults(ctx.dealer[sel], ctx.dbc[sel], hit_soft_17=flag)
        drew[sel], stood[sel] = d, s
    stood &= ctx.dbc < CARDS
    reason = np.full(R, NO_REASON, np.int8)
    np.minimum.at(reason, rid[player], preason[player])
    reason = np.where(dealer_ok & drew, len(pkeys), np.where(dealer_ok & stood, len(pkeys) + 1, reason))
    violates = reason != NO_REASON
    keys = pkeys + ("reason.ts.dealer_drew_on_17", "reason.ts.dealer_stood_below_17")
    return ctx.rounds_result(np.ones(R, bool), violates, reason=np.where(violates, reason, 0), reasons=keys)


def check_bj_pay(ctx: Context) -> CheckResult:
    """Art. 1 a.2: the Black Jack bet is settled by the Black Jack reglamento (Pot Luck,
    Arts. 13-17): a Black Jack pays the posted ratio (3:2 by default), a win 1:1 with its
    double, equal totals push, a bust or a lower total loses; a dealer Black Jack takes only
    the bet (the double is returned). A six-card hand of 21 or less wins where the profile
    posts six_card_charlie ([STANDARD])."""
    return _paid_as_due(ctx, "bj")


def check_poker(ctx: Context) -> CheckResult:
    """Art. 1 a.3: the Póker bet is played on the best five of six cards by the Póker
    Caribeño reglamento ([PERU] Arts. 12-14): a dealer below A-K does not qualify and the bet
    is paid 1:1; a qualifying dealer beaten pays the posted ratio; a higher dealer takes the
    bet; equal hands push. A profile posting poker_mode = paytable pays the player's hand
    alone from the posted table ([STANDARD])."""
    return _paid_as_due(ctx, "poker")


def check_bonus(ctx: Context) -> CheckResult:
    """Art. 2 a.2-a.3: the optional bonus bet is paid at the ratio posted for the player's
    best five of six ([STANDARD] table); a hand the table does not pay loses it; no bonus is
    paid without a bonus bet."""
    return _paid_as_due(ctx, "bonus")


def check_bet_limits(ctx: Context) -> CheckResult:
    """[STANDARD] Each of the three bets, and the bonus bet when placed, within the limits
    posted for it (a bet without its own posted limits uses the table's min_bet/max_bet)."""
    r = ctx.rid
    base_lo, base_hi = ctx.param("min_bet", cents=True), ctx.param("max_bet", cents=True)
    pairs, posted_limits, any_posted = [], [], np.zeros(len(r), bool)
    for bet, name, key in ((ctx.bet_war, "war", "reason.ts.bet_war"), (ctx.bet_bj, "bj", "reason.ts.bet_bj"),
                           (ctx.bet_poker, "poker", "reason.ts.bet_poker"),
                           (ctx.bonus_bet, "bonus", "reason.ts.bet_bonus")):
        lo, hi = ctx.param(f"min_{name}_bet", cents=True), ctx.param(f"max_{name}_bet", cents=True)
        if name != "bonus":
            lo, hi = np.where(lo >= 0, lo, base_lo), np.where(hi >= 0, hi, base_hi)
        lo, hi = lo[r], hi[r]
        posted_limits.append((f"{name} ", lo, hi))
        any_posted |= (lo >= 0) | (hi >= 0)
        placed = bet > 0
        pairs.append((placed & (((lo >= 0) & (bet < lo)) | ((hi >= 0) & (bet > hi))), key))
    violates, reason, keys = reasons(*pairs)
    return ctx.hands_result(any_posted, violates, reason=reason, reasons=keys,
                            note="" if any_posted.any() or not len(any_posted) else "note.no_limits_posted",
                            more_evidence=limits_evidence(*posted_limits))


def check_pay_limit(ctx: Context) -> CheckResult:
    """Art. 2 a.5, b: the total paid in a round stays within the posted payment limit."""
    return pay_limit_result(ctx, ctx.winnings_paid, ctx.capped, ctx.prizes)


def check_capped_pay(ctx: Context) -> CheckResult:
    """Art. 2 a.5, b: a round whose winnings due exceed the posted payment limit pays the
    limit (each winning bet something, none more than due: the pay rules)."""
    return capped_pay_result(ctx, ctx.capped, ctx.prizes, [due for _, due in ctx.due_to_win])


def check_paytable(ctx: Context) -> CheckResult:
    """The posted ratios themselves. [PERU] Póker Caribeño Arts. 12-14: against a
    qualifying dealer the royal flush pays 100:1 and the straight flush 50:1, which a profile
    in caribbean mode must post. Art. 4 ranks the combinations from highest to lowest, so no
    posted table (Póker in use, bonus) pays a combination more than a higher one."""
    profiles = ctx.profiles.profiles
    frame = pd.DataFrame({"table_id": [",".join(p.tables) or "*" for p in profiles], "round_id": "",
                          "profile": [p.id for p in profiles]})
    carib = np.array([p.poker_mode == "caribbean" for p in profiles], bool)
    peru = np.array([p.caribbean.royal_flush != 100 or p.caribbean.straight_flush != 50 for p in profiles], bool)
    order = np.array([pays_less_above(p.caribbean if p.poker_mode == "caribbean" else p.paytable)
                      or pays_less_above(p.bonus) for p in profiles], bool)
    violates, reason, keys = reasons((carib & peru, "reason.ts.caribbean_ratios"),
                                      (order, "reason.paytable.order"))
    used = np.zeros(len(profiles), bool)
    used[ctx.which] = True
    used |= np.array([bool(p.tables) or p.source != "built-in" for p in profiles])

    def evidence(idx):
        def table(p):
            t = p.caribbean if p.poker_mode == "caribbean" else p.paytable
            return " ".join(f"{k}={v}" for k, v in t.model_dump().items())
        return {"profile": frame["profile"].to_numpy()[idx].tolist(),
                "poker_mode": [profiles[i].poker_mode for i in idx],
                "poker_table": [table(profiles[i]) for i in idx],
                "bonus_table": [" ".join(f"{k}={v}" for k, v in profiles[i].bonus.model_dump().items()) for i in idx]}

    return CheckResult(frame=frame, applies=used, violates=violates, reason=reason, reasons=keys, per_profile=True,
                       evidence=evidence, round_index=np.zeros(len(frame), np.int64))


CHECKS = {
    "TS-CARDS": check_cards,
    "TS-POSITIONS": check_positions,
    "TS-SIX-CARDS": check_six_cards,
    "TS-ONE-DECK": check_one_deck,
    "TS-TWO-DECKS": check_two_decks,
    "TS-WAR": check_war,
    "TS-BJ-PLAY": check_bj_play,
    "TS-BJ-PAY": check_bj_pay,
    "TS-POKER": check_poker,
    "TS-BONUS": check_bonus,
    "TS-BET-LIMITS": check_bet_limits,
    "TS-PAY-LIMIT": check_pay_limit,
    "TS-PAY-CAPPED": check_capped_pay,
    "TS-PAYTABLE": check_paytable,
}
