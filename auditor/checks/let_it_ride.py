"""Let It Ride checks (Directiva Nº 05-99-MITINCI/VMT/DNT, Arts. 1-4, and standard rules).

One pure function per rule code, each over all hands or rounds at once; the audit context
evaluates every final hand (three player cards + two community cards) once and computes
what every bet is due. Interpretations of the text are noted where a check makes one.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from ..cards import cards_text
from ..games import let_it_ride as lir
from ..games import poker
from ..logs.ingest import HandTable
from ..logs.schema import PULL_VALUES
from ..profiles import ProfileSet
from ..rowwise import rows_at
from .base import most_copies, positions_result, deck_alternation_result, reasons, GameContext, card_faults_result, pay_limit_result, capped_rounds, capped_pay_mismatch, capped_pay_result, prizes_paid, pays_less_above, CheckResult, group_any, copies_evidence, limits_evidence, money_text, column_values, joined, repeated, seat_keys

__all__ = ["LETTERS", "validate", "Context", "CHECKS"]

LETTERS = ""  # no actions column
NOT_PULLED = lir.NOT_PULLED
SEATS = 7  # Art. 2 a


def validate(table: HandTable) -> list[tuple[np.ndarray, str, str]]:
    """Rows whose data contradict themselves (not rule violations): (mask, field, reason)."""
    df = table.df
    return [
        (df["pulled_1"].to_numpy() < 0, "pulled_1", "reject.lir.bad_pull"),
        (df["pulled_2"].to_numpy() < 0, "pulled_2", "reject.lir.bad_pull"),
        (repeated(seat_keys(df)), "seat", "reject.lir.duplicate_seat"),
    ]


class Context(GameContext):
    """Everything the Let It Ride checks share, computed once over all accepted hands."""

    ROUND_COLUMNS = GameContext.ROUND_COLUMNS + ("deck_id", "deck_color")

    def __init__(self, table: HandTable, profiles: ProfileSet, card_faults: pd.DataFrame,
                 previous: list[dict], gaps: pd.DataFrame):
        super().__init__(table, profiles, card_faults, previous, gaps)
        df, first = table.df, self.first
        self.community = rows_at(table.matrices["community_cards"].cards, first)
        self.ccount = table.matrices["community_cards"].count[first].astype(np.int16)
        self.seat = df["seat"].to_numpy()
        self.bet_1 = df["bet_1"].to_numpy()
        self.bet_2 = df["bet_2"].to_numpy()
        self.bet_dollar = df["bet_dollar"].to_numpy()
        self.bonus_bet = df["bonus_bet"].to_numpy()
        self.net_1 = df["net_1"].to_numpy()
        self.net_2 = df["net_2"].to_numpy()
        self.net_dollar = df["net_dollar"].to_numpy()
        self.net_bonus = df["net_bonus"].to_numpy()
        self.pulled_1 = df["pulled_1"].to_numpy()  # index into PULL_VALUES, -1 for none (rejected)
        self.pulled_2 = df["pulled_2"].to_numpy()
        # Art. 1 j: the hand is three player cards and the two community cards; a hand of
        # another shape (LIR-HAND) cannot be valued and no pay rule is checked on it.
        self.ok = (self.count == 3) & (self.ccount[self.rid] == 2)

    @cached_property
    def hand_value(self) -> tuple[np.ndarray, np.ndarray]:
        """(poker category, pair rank) of every final hand, evaluated once."""
        return lir.evaluate(lir.final_hands(self.cards, self.community, self.ok, self.rid))

    @cached_property
    def settlement(self):
        ratio, bonus_ratio = lir.posted_ratios(*self.hand_value, self.profiles.profiles, self.which[self.rid])
        rid = self.rid
        in_1, in_2 = (self.ok & bet for bet in self.in_play)
        due_1, due_2, due_d, due_b = lir.dues(ratio, bonus_ratio, self.bet_1, self.bet_2, self.bet_dollar,
                                              self.bonus_bet)
        bets = ((self.net_1, np.where(in_1, due_1, 0)), (self.net_2, np.where(in_2, due_2, 0)),
                (self.net_dollar, due_d), (self.net_bonus, due_b))
        capped = capped_rounds(self, sum(np.maximum(due, 0) for _, due in bets))
        return {"due_1": due_1, "due_2": due_2, "due_dollar": due_d, "due_bonus": due_b, "capped": capped[rid],
                "capped_rounds": capped, "dues": [due for _, due in bets], "prizes": prizes_paid(bets),
                "ratio": ratio, "bonus_ratio": bonus_ratio}

    @cached_property
    def in_play(self) -> tuple[np.ndarray, np.ndarray]:
        """(bet 1, bet 2) not taken back, or taken back when that is not allowed (void)."""
        return lir.in_play(self.pulled_1, self.pulled_2)

    def wrong(self, net: np.ndarray, due: np.ndarray) -> np.ndarray:
        """A settlement that is not what the bet is due (a winning bet of a round over the
        payment limit may be paid less: ``capped_pay_mismatch``)."""
        return capped_pay_mismatch(net, due, 1, self.settlement["capped"])

    @cached_property
    def winnings_paid(self) -> np.ndarray:
        """What each hand row was paid in winnings (every bet's gain, a loss counting nothing)."""
        return (np.maximum(self.net_1, 0) + np.maximum(self.net_2, 0) + np.maximum(self.net_dollar, 0)
                + np.maximum(self.net_bonus, 0))

    # --- evidence -----------------------------------------------------------------------
    def hand_evidence(self, idx: np.ndarray) -> dict[str, list]:
        r = self.rid[idx]
        cat, _ = self.hand_value
        categories = poker.CATEGORIES
        pulls = lambda v: [PULL_VALUES[c] if c >= 0 else "?" for c in v[idx].tolist()]  # noqa: E731
        money = lambda v: money_text(v[idx])  # noqa: E731
        return {
            "cards": cards_text(self.cards[idx]),
            "community_cards": cards_text(self.community[r]),
            "hand": [categories[c] if ok else "" for c, ok in zip(cat[idx].tolist(), self.ok[idx].tolist())],
            "pulled_1": pulls(self.pulled_1),
            "pulled_2": pulls(self.pulled_2),
            "bets": [f"{a}/{b}/{c}" for a, b, c in zip(money(self.bet_1), money(self.bet_2), money(self.bet_dollar))],
            "nets": [f"{a}/{b}/{c}" for a, b, c in zip(money(self.net_1), money(self.net_2), money(self.net_dollar))],
            "bonus": [f"{a}/{b}" for a, b in zip(money(self.bonus_bet), money(self.net_bonus))],
            "deck_id": column_values(self.rounds, "deck_id", r),
        }

    def round_evidence(self, idx: np.ndarray) -> dict[str, list]:
        rows, bounds = self.hand_rows(idx)
        money = lambda v: money_text(v[rows])  # noqa: E731
        # each hand with what it was paid (bets 1, 2 and $, then the bonus): a round's
        # finding on its payments (the payment limit) is checked from them
        hands = [f"{s}: {c} net {a}/{b}/{d} bonus {e}" for s, c, a, b, d, e in zip(
            self.seat[rows].tolist(), cards_text(self.cards[rows]), money(self.net_1), money(self.net_2),
            money(self.net_dollar), money(self.net_bonus))]
        return {
            "community_cards": cards_text(self.community[idx]),
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
    """Art. 2 a: seven player positions; a round with more players, or a position number
    outside 1..7, breaks it."""
    return positions_result(ctx, SEATS, "reason.lir.too_many_seats", "reason.lir.seat_outside")


def check_hand(ctx: Context) -> CheckResult:
    """Art. 1 i, j: each player holds three cards and there are two community cards."""
    R = ctx.n_rounds
    violates, reason, keys = reasons((ctx.ccount != 2, "reason.lir.community_count"),
                                      (group_any(ctx.count != 3, ctx.rid, R), "reason.lir.player_count"))
    return ctx.rounds_result(np.ones(R, bool), violates, reason=reason, reasons=keys)


def check_one_deck(ctx: Context) -> CheckResult:
    """Art. 1 h: a round is dealt from one 52-card deck, so no card appears twice among the
    players' and the community cards."""
    return ctx.rounds_result(np.ones(ctx.n_rounds, bool), most_copies(ctx, ctx.community) > 1,
                             more_evidence=copies_evidence(ctx, ctx.community))


def check_two_decks(ctx: Context) -> CheckResult:
    """Art. 2 c.1-c.2: at a table posted with two decks (profile decks_per_table = 2),
    consecutive rounds use the two decks in turn (a round never uses the deck of the round
    before it) and the two decks' backs differ in colour (a round's back colour differs from
    the round before it). The posted profile says whether the table uses two decks ("Si se
    utilizan dos barajas"); a table posted with one deck is not checked. A round whose
    predecessor was rejected for a fault of its own is not compared across the gap (see
    ``checks.base.previous_rounds``)."""
    return deck_alternation_result(ctx, ctx.param("decks_per_table", missing=1) == 2)


def check_equal_bets(ctx: Context) -> CheckResult:
    """[STANDARD] The player places three equal base bets (1, 2 and "$")."""
    violates = (ctx.bet_1 != ctx.bet_2) | (ctx.bet_2 != ctx.bet_dollar)
    return ctx.hands_result(np.ones(len(ctx.rid), bool), violates)


def check_bet_limits(ctx: Context) -> CheckResult:
    """[STANDARD] Each base bet within the posted minimum and maximum; a bonus bet, when
    placed, is the posted fixed stake."""
    r = ctx.rid
    lo, hi = ctx.param("min_bet", cents=True)[r], ctx.param("max_bet", cents=True)[r]
    stake = ctx.param("bonus_stake", cents=True)[r]
    posted = (lo >= 0) | (hi >= 0) | (stake >= 0)
    base_bad = np.zeros(len(r), bool)
    for bet in (ctx.bet_1, ctx.bet_2, ctx.bet_dollar):
        base_bad |= ((lo >= 0) & (bet < lo)) | ((hi >= 0) & (bet > hi))
    bonus_bad = (stake >= 0) & (ctx.bonus_bet > 0) & (ctx.bonus_bet != stake)
    violates, reason, keys = reasons((base_bad, "reason.lir.bet_base"), (bonus_bad, "reason.lir.bet_bonus"))
    return ctx.hands_result(posted, violates, reason=reason, reasons=keys,
                            note="" if posted.any() or not len(posted) else "note.no_limits_posted",
                            more_evidence=limits_evidence(("", lo, hi), ("bonus ", stake, stake)))


def check_pull_1(ctx: Context) -> CheckResult:
    """[STANDARD] Bet 1 may be taken back only after the player has seen the three cards and
    before the first community card is shown."""
    # (a bet taken back and still in play: a withdrawal that is not allowed, see lir.in_play)
    return ctx.hands_result(ctx.pulled_1 != NOT_PULLED, ctx.in_play[0])


def check_pull_2(ctx: Context) -> CheckResult:
    """[STANDARD] Bet 2 may be taken back, whatever was done with bet 1, only before the
    second community card is shown."""
    return ctx.hands_result(ctx.pulled_2 != NOT_PULLED, ctx.in_play[1])


def check_dollar(ctx: Context) -> CheckResult:
    """[STANDARD] The "$" bet can never be taken back: it is always paid or collected, so a
    zero settlement means it was withdrawn or left unsettled."""
    applies = ctx.bet_dollar > 0
    return ctx.hands_result(applies, ctx.net_dollar == 0, observed=ctx.net_dollar)


def check_paytable(ctx: Context) -> CheckResult:
    """Art. 4 i: the lowest pair is a pair of tens, so the posted table pays from a pair of
    tens: it posts min_pair = T and pays one_pair at least 1 to 1. Art. 4 ranks the
    combinations from highest to lowest, so no posted table (the bets', the bonus) pays a
    combination more than a higher one: with one_pair paid, every combination above it is."""
    profiles = ctx.profiles.profiles
    frame = pd.DataFrame({"table_id": [",".join(p.tables) or "*" for p in profiles], "round_id": "",
                          "profile": [p.id for p in profiles]})
    violates, reason, keys = reasons(
        (np.array([p.min_pair != "T" for p in profiles], bool), "reason.lir.min_pair"),
        (np.array([p.paytable.one_pair < 1 for p in profiles], bool), "reason.lir.pair_not_paid"),
        (np.array([pays_less_above(p.paytable) or pays_less_above(p.bonus) for p in profiles], bool),
         "reason.paytable.order"))
    used = np.zeros(len(profiles), bool)
    used[ctx.which] = True
    used |= np.array([bool(p.tables) or p.source != "built-in" for p in profiles])
    return CheckResult(frame=frame, applies=used, violates=violates, reason=reason, reasons=keys, per_profile=True,
                       evidence=lambda idx: {"profile": frame["profile"].to_numpy()[idx].tolist(),
                                             "min_pair": [profiles[i].min_pair for i in idx],
                                             "one_pair": [profiles[i].paytable.one_pair for i in idx]},
                       round_index=np.zeros(len(frame), np.int64))


def check_pay(ctx: Context) -> CheckResult:
    """Arts. 2 a.4 and 4: every bet still in play is paid at the posted ratio for the final
    hand (a pair of tens or better); otherwise it is collected. A bet taken back when that
    is not allowed is still in play (``games.let_it_ride.in_play``), and so is the "$" bet,
    always: left unsettled, it is this rule's finding with its money as well as LIR-DOLLAR's."""
    s = ctx.settlement
    in_1, in_2 = (ctx.ok & bet for bet in ctx.in_play)
    in_d = ctx.ok
    bad_1 = in_1 & ctx.wrong(ctx.net_1, s["due_1"])
    bad_2 = in_2 & ctx.wrong(ctx.net_2, s["due_2"])
    bad_d = in_d & ctx.wrong(ctx.net_dollar, s["due_dollar"])
    violates, reason, keys = reasons((bad_1, "reason.lir.pay_bet_1"), (bad_2, "reason.lir.pay_bet_2"),
                                      (bad_d, "reason.lir.pay_dollar"))
    expected = np.where(in_1, s["due_1"], 0) + np.where(in_2, s["due_2"], 0) + np.where(in_d, s["due_dollar"], 0)
    observed = np.where(in_1, ctx.net_1, 0) + np.where(in_2, ctx.net_2, 0) + np.where(in_d, ctx.net_dollar, 0)
    return ctx.hands_result(in_1 | in_2 | in_d, violates, reason=reason, reasons=keys,
                            expected=expected, observed=observed, bound_only=s["capped"] & (expected > 0))


def check_withdrawn(ctx: Context) -> CheckResult:
    """[STANDARD] A bet taken back neither wins nor loses: its settlement is 0. (Taken back
    when that is not allowed, it is still in play: LIR-PAY judges it.)"""
    p1, p2 = (~bet for bet in ctx.in_play)
    violates, reason, keys = reasons((p1 & (ctx.net_1 != 0), "reason.lir.withdrawn_1"),
                                      (p2 & (ctx.net_2 != 0), "reason.lir.withdrawn_2"))
    observed = np.where(p1, ctx.net_1, 0) + np.where(p2, ctx.net_2, 0)
    return ctx.hands_result(p1 | p2, violates, reason=reason, reasons=keys,
                            expected=np.zeros(len(observed), np.int64), observed=observed)


def check_bonus(ctx: Context) -> CheckResult:
    """[STANDARD] The bonus bet is paid on the final hand from its own posted table (ratio
    per unit of stake), otherwise collected; no bonus is paid without a bonus bet."""
    s = ctx.settlement
    applies = ctx.ok & ((ctx.bonus_bet > 0) | (ctx.net_bonus != 0))
    violates = ctx.wrong(ctx.net_bonus, s["due_bonus"])
    return ctx.hands_result(applies, violates, expected=s["due_bonus"], observed=ctx.net_bonus,
                            bound_only=s["capped"] & (s["due_bonus"] > 0))


def check_pay_limit(ctx: Context) -> CheckResult:
    """Art. 2 a.5, b: the total paid in a round stays within the posted payment limit."""
    s = ctx.settlement
    return pay_limit_result(ctx, ctx.winnings_paid, s["capped_rounds"], s["prizes"])


def check_capped_pay(ctx: Context) -> CheckResult:
    """Art. 2 a.5, b: a round whose winnings due exceed the posted payment limit pays the
    limit (each winning bet something, none more than due: LIR-PAY, LIR-BONUS)."""
    s = ctx.settlement
    return capped_pay_result(ctx, s["capped_rounds"], s["prizes"], s["dues"])


CHECKS = {
    "LIR-CARDS": check_cards,
    "LIR-POSITIONS": check_positions,
    "LIR-HAND": check_hand,
    "LIR-ONE-DECK": check_one_deck,
    "LIR-TWO-DECKS": check_two_decks,
    "LIR-EQUAL-BETS": check_equal_bets,
    "LIR-BET-LIMITS": check_bet_limits,
    "LIR-PULL-1": check_pull_1,
    "LIR-PULL-2": check_pull_2,
    "LIR-DOLLAR": check_dollar,
    "LIR-PAYTABLE": check_paytable,
    "LIR-PAY": check_pay,
    "LIR-WITHDRAWN": check_withdrawn,
    "LIR-BONUS": check_bonus,
    "LIR-PAY-LIMIT": check_pay_limit,
    "LIR-PAY-CAPPED": check_capped_pay,
}
