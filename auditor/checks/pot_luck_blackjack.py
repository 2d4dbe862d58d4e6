"""Pot Luck Black Jack checks (Reglamento of 11-08-2000, Arts. 8-18).

One pure function per rule code, each over all hands or rounds at once; the audit context
computes the shared arithmetic (totals, naturals, expected settlement, the pool) once.
Interpretations of the text are noted where a check makes one.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from ..games import blackjack as bj
from ..logs.ingest import HandTable
from ..profiles import ProfileSet
from ..rowwise import rows_at
from ..cards import cards_text
from .base import most_copies, reasons, GameContext, card_faults_result, pay_limit_result, capped_rounds, capped_pay_mismatch, capped_pay_result, prizes_paid, CheckResult, group_any, group_max, group_sum, letters_text, copies_evidence, limits_evidence, money_text, column_values, joined, unique_groups, seat_keys, KEY_BASE

__all__ = ["LETTERS", "validate", "Context", "CHECKS", "OUTCOME_CODE"]

# Action letters of the log format, in code order.
LETTERS = "IERPDHS"
INS, EVEN, SURR, SPLIT, DOUBLE, HIT, STAND = range(7)
PLAY = (SURR, SPLIT, DOUBLE, HIT, STAND)  # decisions of the voluntary deal (Art. 14)


def validate(table: HandTable) -> list[tuple[np.ndarray, str, str]]:
    """Rows whose data contradict themselves (not rule violations): (mask, field, reason)."""
    df = table.df
    cards = table.matrices["cards"]
    n = table.matrices["actions"].tally
    count = cards.count.astype(np.int16)
    out = [
        (count < 2, "cards", "reject.plb.too_few_cards"),
        ((count >= 2) & (count != 2 + n[HIT] + n[DOUBLE]), "actions", "reject.plb.cards_vs_actions"),
        (table.matrices["dealer_cards"].count < 2, "dealer_cards", "reject.plb.dealer_too_few"),
        ((df["double"].to_numpy() > 0) != (n[DOUBLE] > 0), "double", "reject.plb.double_vs_action"),
        ((df["insurance"].to_numpy() > 0) != (n[INS] > 0), "insurance", "reject.plb.insurance_vs_action"),
        ((df["hand"].to_numpy() > 0) & (df["pool_bet"].to_numpy() > 0), "pool_bet", "reject.plb.pool_on_split"),
        ((df["hand"].to_numpy() > 0) & (df["pool_paid"].to_numpy() > 0), "pool_paid", "reject.plb.pool_on_split"),
    ]
    hand = df["hand"].to_numpy()
    split_from = df["split_from"].to_numpy()
    out.append(((hand > 0) & ((split_from < 0) | (split_from >= hand)), "split_from", "reject.plb.bad_split_from"))
    out.append(((hand == 0) & (split_from >= 0), "split_from", "reject.plb.bad_split_from"))

    # Hands of a seat must be numbered 0..k with no gap or repeat, and a hand's number of
    # splits must equal the hands that name it as their parent. Keys are integers: the seat's
    # key, then the hand.
    seat_key = seat_keys(df)
    hand_key = seat_key * KEY_BASE + (hand.astype(np.int64) + 1)
    order = np.argsort(hand_key, kind="stable")  # sorts the seats too
    hands, of_hand, copies = unique_groups(hand_key, order)
    out.append((copies[of_hand] > 1, "hand", "reject.plb.duplicate_hand"))
    seats, of_seat, size = unique_groups(seat_key, order)
    hmax = group_max(hand, of_seat, len(seats), initial=np.int16(-1))
    out.append((hmax[of_seat] != size[of_seat] - 1, "hand", "reject.plb.hand_numbering"))
    is_child = split_from >= 0
    parent_key = seat_key[is_child] * KEY_BASE + (split_from[is_child].astype(np.int64) + 1)
    at = np.minimum(np.searchsorted(hands, parent_key), len(hands) - 1)
    named = hands[at] == parent_key
    have = np.bincount(at[named], minlength=len(hands))[of_hand]
    out.append((have != n[SPLIT], "actions", "reject.plb.splits_vs_hands"))
    return out


class Context(GameContext):
    """Everything the Pot Luck checks share, computed once over all accepted hands."""

    ROUND_COLUMNS = GameContext.ROUND_COLUMNS + ("shoe_id",)

    def __init__(self, table: HandTable, profiles: ProfileSet, card_faults: pd.DataFrame,
                 previous: list[dict], gaps: pd.DataFrame):
        super().__init__(table, profiles, card_faults, previous, gaps)
        df, first = table.df, self.first
        self.actions = table.matrices["actions"].cards
        self.dealer = rows_at(table.matrices["dealer_cards"].cards, first)
        self.dealer_count = table.matrices["dealer_cards"].count[first].astype(np.int16)
        self.n = table.matrices["actions"].tally
        self.hand = df["hand"].to_numpy()
        self.seat = df["seat"].to_numpy()
        self.bet = df["bet"].to_numpy()
        self.double = df["double"].to_numpy()
        self.insurance = df["insurance"].to_numpy()
        self.pool_bet = df["pool_bet"].to_numpy()
        self.pool_paid = df["pool_paid"].to_numpy()
        self.net_main = df["net_main"].to_numpy()
        self.net_insurance = df["net_insurance"].to_numpy()

    # --- per-round values broadcast to hands ------------------------------------------
    @cached_property
    def up(self) -> np.ndarray:
        return self.dealer[:, 0]

    @cached_property
    def up_is_ace(self) -> np.ndarray:
        return (self.up >> 2) == bj.ACE_RANK

    @cached_property
    def dealer_total(self) -> np.ndarray:
        return bj.totals(self.dealer)[0]

    @cached_property
    def dealer_natural(self) -> np.ndarray:
        return (bj.totals(self.dealer[:, :2])[0] == 21) & (self.dealer_count >= 2)

    @cached_property
    def player_total(self) -> np.ndarray:
        return bj.totals(self.cards)[0]

    @cached_property
    def has_children(self) -> np.ndarray:
        """Hand 0 of a seat that split (hands of a seat are consecutive rows 0..k)."""
        nxt = np.r_[self.hand[1:], 0]
        return (self.hand == 0) & (nxt == 1)

    @cached_property
    def in_split(self) -> np.ndarray:
        """Hands that are part of a split: the children and the parent hand 0."""
        return (self.hand > 0) | self.has_children

    @cached_property
    def two_card_21(self) -> np.ndarray:
        return (self.count == 2) & (self.player_total == 21)

    @cached_property
    def natural(self) -> np.ndarray:
        """A Black Jack: two-card 21 on an unsplit original hand (Art. 13); on split hands
        only when the profile says so ([STANDARD] option split_21_is_blackjack)."""
        split21 = self.param("split_21_is_blackjack")[self.rid].astype(bool)
        return self.two_card_21 & (~self.in_split | split21)

    @cached_property
    def decisions(self) -> np.ndarray:
        """The actions transposed: row j holds every hand's j-th decision (contiguous)."""
        return np.ascontiguousarray(self.actions.T)

    def after(self, code: int, among=PLAY, rows: np.ndarray | None = None) -> np.ndarray:
        """Hands (at ``rows``, or all) where decision ``code`` comes after the first of the
        decisions ``among``."""
        # (the decisions of the hands at ``rows`` gathered: a split's parents are few)
        steps = self.decisions if rows is None else np.ascontiguousarray(self.actions[rows].T)
        seen = np.zeros(steps.shape[1], bool)
        out = np.zeros(steps.shape[1], bool)
        for step in steps:
            out |= seen & (step == code)
            for a in among:
                seen |= step == a
        return out

    def before_first(self, code: int, among) -> np.ndarray:
        """Hands where one of the decisions ``among`` comes before the first ``code``."""
        seen = np.zeros(len(self.actions), bool)
        out = np.zeros(len(self.actions), bool)
        for step in self.decisions:
            for a in among:
                out |= ~seen & (step == a)
            seen |= step == code
        return out & seen

    @cached_property
    def surrender_faults(self) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
        """Art. 9: surrenders the reglamento does not allow (``checks.base.reasons``)."""
        n = self.n
        return reasons(
            (self.up_is_ace[self.rid], "reason.plb.surrender_dealer_ace"),
            (self.in_split | (n[HIT] + n[DOUBLE] + n[SPLIT] + n[STAND] > 0) | (n[SURR] > 1),
             "reason.plb.surrender_not_first"),
        )

    @cached_property
    def even_money_faults(self) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
        """Art. 13: even money the reglamento does not allow (``checks.base.reasons``)."""
        n = self.n
        return reasons(
            (~(self.natural & (self.hand == 0) & self.up_is_ace[self.rid]), "reason.plb.even_money_not_bj_ace"),
            ((n[HIT] + n[DOUBLE] + n[SPLIT] + n[SURR] > 0) | self.after(EVEN), "reason.plb.even_money_late"),
        )

    @cached_property
    def settlement(self) -> tuple[np.ndarray, np.ndarray]:
        r = self.rid
        surrendered, even_money = bj.lawful_choices(
            surrendered=self.n[SURR] > 0, surrender_void=self.surrender_faults[0],
            even_money=self.n[EVEN] > 0, even_money_void=self.even_money_faults[0],
            dealer_natural=self.dealer_natural[r], player_natural=self.natural)
        return bj.settle_main(
            player_total=self.player_total, player_natural=self.natural,
            dealer_total=self.dealer_total[r], dealer_natural=self.dealer_natural[r],
            bet=self.bet, double=self.double, surrendered=surrendered,
            even_money=even_money, original_hand=self.hand == 0)

    @cached_property
    def settlement_checked(self) -> tuple[np.ndarray, np.ndarray]:
        """(the main bet paid otherwise than ``settlement`` requires, what was paid in
        céntimos × SCALE)."""
        return (capped_pay_mismatch(self.net_main, self.settlement[0], bj.SCALE, self.capped_hands),
                self.net_main * bj.SCALE)

    @cached_property
    def settled_under(self) -> np.ndarray:
        """The main-bet rule that judges each hand's settlement (its index in ``_MAIN_RULES``)."""
        return _RULE_OF_OUTCOME[self.settlement[1]]

    @cached_property
    def capped_hands(self) -> np.ndarray:
        """Hand rows of the rounds over the payment limit (``capped``)."""
        return self.capped[self.rid]

    @cached_property
    def settlement_bound(self) -> np.ndarray:
        """Hand rows whose main bet, due to win in a capped round, may be paid less
        (``capped_pay_mismatch``): what is due there is a bound, not a payment."""
        return self.capped_hands & (self.settlement[0] > 0)

    @cached_property
    def insurance_due(self) -> np.ndarray:
        """What each hand's insurance is due (céntimos × SCALE): 2:1 on a ten-value hole card."""
        return bj.insurance_expected(self.insurance, bj.is_ten_value(self.dealer[:, 1])[self.rid])

    @cached_property
    def capped(self) -> np.ndarray:
        """Rounds whose winnings due (main bets, insurance, the pool handed to its winners)
        exceed the posted payment limit."""
        won = np.maximum(self.settlement[0], 0) + np.maximum(self.insurance_due, 0)
        won[self.first] += self.pool.expected_paid * bj.SCALE
        return capped_rounds(self, won, bj.SCALE)

    @cached_property
    def winnings_paid(self) -> np.ndarray:
        """What each hand row was paid in winnings: its main bet and insurance gains and its
        share of the pool."""
        return np.maximum(self.net_main, 0) + np.maximum(self.net_insurance, 0) + self.pool_paid

    @cached_property
    def prizes(self) -> np.ndarray:
        """What each hand row was paid on its bets due to win (``checks.base.prizes_paid``),
        and the pool at what its winners are due, on each round's first row: a pool paid
        otherwise is the pool rules' finding."""
        prizes = prizes_paid(((self.net_main, self.settlement[0]), (self.net_insurance, self.insurance_due)))
        prizes[self.first] += self.pool.expected_paid
        return prizes

    @cached_property
    def initial_score(self) -> np.ndarray:
        """Two-card score after the mandatory deal, on each seat's hand-0 row. When the seat
        split, its original second card is the first card of hand 1 (the first split is
        always made from hand 0)."""
        second = np.where(self.has_children, np.r_[self.cards[1:, 0], -1], self.cards[:, 1])
        pair = np.stack([self.cards[:, 0], second], axis=1)
        return bj.totals(pair)[0]

    @cached_property
    def pool(self) -> "_Pool":
        return _Pool(self)

    # --- evidence -----------------------------------------------------------------------
    def hand_evidence(self, idx: np.ndarray) -> dict[str, list]:
        r = self.rid[idx]
        return {
            "dealer_cards": cards_text(self.dealer[r]),
            "cards": cards_text(self.cards[idx]),
            "actions": letters_text(self.actions[idx], LETTERS),
            "bet": money_text(self.bet[idx]),
            "double": money_text(self.double[idx]),
            "insurance": money_text(self.insurance[idx]),
            "net_main": money_text(self.net_main[idx]),
            "shoe_id": column_values(self.rounds, "shoe_id", r),
        }

    def round_evidence(self, idx: np.ndarray) -> dict[str, list]:
        rows, bounds = self.hand_rows(idx)
        # each hand with what it was paid (the main bet, the insurance) and its pool bet and
        # share: a round's finding on its payments (the pool, the payment limit) is checked from them
        hands = [f"{s}.{h}: {c} [{a}] net {m}/{i} pool {b}/{p}" for s, h, c, a, m, i, b, p in zip(
            self.seat[rows].tolist(), self.hand[rows].tolist(), cards_text(self.cards[rows]),
            letters_text(self.actions[rows], LETTERS), money_text(self.net_main[rows]),
            money_text(self.net_insurance[rows]), money_text(self.pool_bet[rows]), money_text(self.pool_paid[rows]))]
        return {
            "dealer_cards": cards_text(self.dealer[idx]),
            "hands": joined(hands, bounds),
            "shoe_id": column_values(self.rounds, "shoe_id", idx),
        }


# Which rule a wrong main-bet settlement breaks, by how the hand had to be settled.
OUTCOME_CODE = {
    bj.Outcome.SURRENDER: "PLB-SURRENDER-PAY",
    bj.Outcome.EVEN_MONEY: "PLB-EVEN-MONEY-PAY",
    bj.Outcome.BUST: "PLB-LOSE",
    bj.Outcome.BLACKJACK: "PLB-BJ-PAY",
    bj.Outcome.BLACKJACK_PUSH: "PLB-DEALER-BJ",
    bj.Outcome.DEALER_BLACKJACK: "PLB-DEALER-BJ",
    bj.Outcome.WIN: "PLB-WIN",
    bj.Outcome.PUSH: "PLB-PUSH",
    bj.Outcome.LOSE: "PLB-LOSE",
}


# The rules of the main bet, and which of them judges each outcome (indexed by outcome).
_MAIN_RULES = sorted(set(OUTCOME_CODE.values()))
_RULE_OF_OUTCOME = np.array([_MAIN_RULES.index(OUTCOME_CODE[o]) for o in bj.Outcome], np.int8)


# --- the checks, one per code -----------------------------------------------------------

def check_cards(ctx: Context) -> CheckResult:
    """Every card of a round is one of the 52 of a deck (jokers and unreadable codes are a
    data finding; such a round is rejected for every other rule)."""
    return card_faults_result(ctx)


def check_shoe(ctx: Context) -> CheckResult:
    """No card appears in a round more often than the posted number of decks holds."""
    decks = ctx.param("decks")
    return ctx.rounds_result(np.ones(ctx.n_rounds, bool), most_copies(ctx, ctx.dealer) > decks,
                             more_evidence=copies_evidence(ctx, ctx.dealer, decks))


def check_surrender(ctx: Context) -> CheckResult:
    """Art. 9: surrender only on the first two cards of the original hand, as the first
    decision, and never when the dealer's face-up card is an Ace."""
    violates, reason, keys = ctx.surrender_faults
    return ctx.hands_result(ctx.n[SURR] > 0, violates, reason=reason, reasons=keys)


def _settled(ctx: Context, code: str | None, *, insurance=False) -> CheckResult:
    """A bet settled otherwise than it is due: the insurance, or the main bet of the hands
    whose outcome falls under ``code`` (in a round over the payment limit, a winning bet may
    be paid less: ``capped_pay_mismatch``)."""
    capped = ctx.capped_hands
    if insurance:
        expected = ctx.insurance_due
        observed = ctx.net_insurance
        applies = (ctx.insurance > 0) | (observed != 0)  # nothing staked, nothing won or lost
        violates = capped_pay_mismatch(observed, expected, bj.SCALE, capped)
        observed = observed * bj.SCALE
        bound = capped & (expected > 0)
    else:  # the rules of the main bet share one comparison, each over its own outcomes
        (expected, _), (violates, observed) = ctx.settlement, ctx.settlement_checked
        applies = ctx.settled_under == _MAIN_RULES.index(code)
        bound = ctx.settlement_bound
    return ctx.hands_result(applies, violates, expected=expected, observed=observed, scale=bj.SCALE,
                            bound_only=bound)


def check_surrender_pay(ctx: Context) -> CheckResult:
    """Art. 9: a surrendering player loses exactly half the bet."""
    return _settled(ctx, "PLB-SURRENDER-PAY")


def check_insurance(ctx: Context) -> CheckResult:
    """Art. 10: insurance only against a dealer Ace, only on original hands, before the
    voluntary deal, and at most half the original bet."""
    applies = ctx.insurance > 0
    violates, reason, keys = reasons(
        (~ctx.up_is_ace[ctx.rid], "reason.plb.insurance_no_ace"),
        (ctx.hand > 0, "reason.plb.insurance_not_original"),
        (2 * ctx.insurance > ctx.bet, "reason.plb.insurance_over_half"),
        (ctx.after(INS), "reason.plb.insurance_late"),
    )
    return ctx.hands_result(applies, violates, reason=reason, reasons=keys)


def check_insurance_pay(ctx: Context) -> CheckResult:
    """Art. 10: insurance pays 2:1 "por el monto apostado" when the hole card is a ten-value
    card, else is lost; no insurance is paid or collected without an insurance bet."""
    return _settled(ctx, None, insurance=True)


def check_split(ctx: Context) -> CheckResult:
    """Art. 11: split only two first cards of equal value, with a bet equal to the original,
    up to the posted number of splits. "Equal value" for 10-J-Q-K follows the profile
    option split_by ([STANDARD], default value)."""
    child = ctx.hand > 0
    at = np.flatnonzero(child)  # (the split hands alone: a few in a hundred)
    hand, rid = ctx.hand[at], ctx.rid[at]
    parent = at - (hand - ctx.hands["split_from"].to_numpy()[at])
    first = ctx.cards[:, 0]
    by_rank = (ctx.param("split_by", missing="value") == "rank")[rid]
    same_value = bj.card_values(first[parent]) == bj.card_values(first[at])
    same_rank = (first[parent] >> 2) == (first[at] >> 2)
    found, why, keys = reasons(
        (np.where(by_rank, ~same_rank, ~same_value), "reason.plb.split_unequal"),
        (ctx.after(SPLIT, (SURR, DOUBLE, HIT, STAND), rows=parent), "reason.plb.split_late"),
        (ctx.bet[at] != ctx.bet[at - hand], "reason.plb.split_bet"),
        (hand > ctx.param("max_splits")[rid], "reason.plb.split_too_many"),
    )
    violates, reason = np.zeros(len(child), bool), np.zeros(len(child), why.dtype)
    violates[at], reason[at] = found, why
    return ctx.hands_result(child, violates, reason=reason, reasons=keys)


def check_split_aces(ctx: Context) -> CheckResult:
    """Art. 11: each hand of split Aces receives exactly one more card."""
    ace_first = (ctx.cards[:, 0] >> 2) == bj.ACE_RANK
    applies = ace_first & ctx.in_split
    n = ctx.n
    allowed_splits = np.where(ctx.hand == 0, 1, 0)
    violates = (n[HIT] > 0) | (n[DOUBLE] > 0) | (n[SPLIT] > allowed_splits)
    return ctx.hands_result(applies, violates)


def check_double(ctx: Context) -> CheckResult:
    """Art. 12: double on the hand's first two cards (split hands too), by at most the
    original bet, for exactly one more card."""
    n = ctx.n
    applies = n[DOUBLE] > 0
    violates, reason, keys = reasons(
        (ctx.before_first(DOUBLE, (HIT, STAND, SURR)), "reason.plb.double_late"),
        (ctx.double > ctx.bet, "reason.plb.double_over_bet"),
        (ctx.after(HIT, (DOUBLE,)) | (n[DOUBLE] > 1), "reason.plb.double_more_cards"),
    )
    return ctx.hands_result(applies, violates, reason=reason, reasons=keys)


def check_bj_pay(ctx: Context) -> CheckResult:
    """Art. 13: a player Black Jack pays 3 to 2."""
    return _settled(ctx, "PLB-BJ-PAY")


def check_even_money(ctx: Context) -> CheckResult:
    """Art. 13: even money only for a player Black Jack against a dealer Ace, chosen before
    the voluntary deal (it ends the hand)."""
    violates, reason, keys = ctx.even_money_faults
    return ctx.hands_result(ctx.n[EVEN] > 0, violates, reason=reason, reasons=keys)


def check_even_money_pay(ctx: Context) -> CheckResult:
    """Art. 13: even money pays 1 to 1."""
    return _settled(ctx, "PLB-EVEN-MONEY-PAY")


def check_dealer_bj(ctx: Context) -> CheckResult:
    """Art. 13: against a dealer Black Jack every player loses only the original bet
    (split hands and doubles are returned) and a player Black Jack pushes."""
    return _settled(ctx, "PLB-DEALER-BJ")


def check_play(ctx: Context) -> CheckResult:
    """Art. 14: a player receives cards one at a time only while holding less than 21, and
    "hasta que él determine que desea plantarse": a card dealt to a hand of 21 or more (a
    bust included), or asked for after standing, breaks the rule. (A double, split or
    surrender after standing is its own rule's finding.)"""
    violates, reason, keys = reasons((bj.drew_on_21(ctx.cards, ctx.count), "reason.plb.hit_on_21"),
                                     (ctx.after(HIT, (STAND,)), "reason.plb.hit_after_stand"))
    return ctx.hands_result(np.ones(len(ctx.hand), bool), violates, reason=reason, reasons=keys)


def check_dealer_play(ctx: Context) -> CheckResult:
    """Art. 14: the dealer stands on 17 or more (soft 17 included) and draws on 16 or less."""
    drew, stood = bj.dealer_play_faults(ctx.dealer, ctx.dealer_count)
    violates, reason, keys = reasons((drew, "reason.plb.dealer_drew_on_17"),
                                      (stood, "reason.plb.dealer_stood_below_17"))
    return ctx.rounds_result(np.ones(ctx.n_rounds, bool), violates, reason=reason, reasons=keys)


def check_win(ctx: Context) -> CheckResult:
    """Art. 15: a winning hand is paid 1 to 1 (its double included)."""
    return _settled(ctx, "PLB-WIN")


def check_lose(ctx: Context) -> CheckResult:
    """Arts. 14 and 16: a busted hand, or one below the dealer, loses its whole stake."""
    return _settled(ctx, "PLB-LOSE")


def check_push(ctx: Context) -> CheckResult:
    """Art. 17: equal totals, whatever the number of cards, neither win nor lose."""
    return _settled(ctx, "PLB-PUSH")


class _Pool:
    """The pool of each round (Art. 18), from the hand-0 rows."""

    def __init__(self, ctx: Context):
        r, R = ctx.rid, ctx.n_rounds
        self.total = group_sum(ctx.pool_bet, r, R)
        self.paid = group_sum(ctx.pool_paid, r, R)
        eligible = (ctx.hand == 0) & (ctx.pool_bet > 0)
        score = np.where(eligible, ctx.initial_score, -1).astype(np.int16)
        self.best = group_max(score, r, R, initial=np.int16(-1))
        self.winner = eligible & (score == self.best[r])
        self.k = group_sum(self.winner.astype(np.int64), r, R)
        # Commission in basis points, applied in integers and truncated to the céntimo
        # (in the player's favour, so a correctly posted rate never breaks the 5 % cap).
        bp = np.array([int(p.pool_commission_pct * 100) for p in ctx.profiles.profiles], np.int64)[ctx.which]
        self.commission = self.total * bp // 10_000
        carry = ctx.param("pool_tie", missing="split") == "carry_over"
        self.carried = carry & (self.k > 1)
        self.expected_paid = np.where(self.carried, 0, self.total - self.commission)


def check_pool_winner(ctx: Context) -> CheckResult:
    """Art. 18: the pool goes to the pool bettor with the highest two-card score after the
    mandatory deal; equal highest scores share it equally (profile pool_tie: split) or
    leave it for the next round (carry_over)."""
    pool = ctx.pool
    r = ctx.rid
    wrong_hand = (~pool.winner & (ctx.pool_paid > 0)) | (pool.carried[r] & (ctx.pool_paid > 0))
    uneven = pool.winner & ~pool.carried[r] & (pool.paid[r] > 0) & (
        np.abs(ctx.pool_paid * pool.k[r] - pool.paid[r]) >= pool.k[r])
    violates = group_any(wrong_hand | uneven, r, ctx.n_rounds)
    # A pool payment in a round without pool bets is a payment to a non-winner too.
    return ctx.rounds_result((pool.total > 0) | (pool.paid > 0), violates)


def check_pool_commission(ctx: Context) -> CheckResult:
    """Art. 18: the commission taken is the rate posted at the table."""
    pool = ctx.pool
    applies = (pool.total > 0) & ~pool.carried
    violates = pool.paid != pool.expected_paid
    return ctx.rounds_result(applies, violates, expected=pool.expected_paid, observed=pool.paid)


def check_pool_cap(ctx: Context) -> CheckResult:
    """Art. 18: the commission is at most five per cent of the pool."""
    pool = ctx.pool
    applies = (pool.total > 0) & ~pool.carried
    taken = pool.total - pool.paid
    violates = taken * 100 > pool.total * 5
    cap = pool.total * 5 // 100
    return ctx.rounds_result(applies, violates, expected=cap, observed=taken, bound_only=True)


def check_posted_commission(ctx: Context) -> CheckResult:
    """Art. 18: the commission rate a profile posts is itself at most 5 %."""
    profiles = ctx.profiles.profiles
    frame = pd.DataFrame({"table_id": [",".join(p.tables) or "*" for p in profiles], "round_id": "",
                          "profile": [p.id for p in profiles]})
    pct = np.array([p.pool_commission_pct for p in profiles], dtype=object)
    violates = np.array([p > 5 for p in pct], dtype=bool)
    used = np.zeros(len(profiles), bool)
    used[ctx.which] = True
    used |= np.array([bool(p.tables) or p.source != "built-in" for p in profiles])
    return CheckResult(frame=frame, applies=used, violates=violates, per_profile=True,
                       evidence=lambda idx: {"profile": frame["profile"].to_numpy()[idx].tolist(),
                                             "pool_commission_pct": [str(pct[i]) for i in idx]},
                       round_index=np.zeros(len(frame), np.int64))


def check_bet_limits(ctx: Context) -> CheckResult:
    """[STANDARD] Bets within the minimum and maximum posted at the table (main bet of the
    original hand, and the pool bet when one is placed)."""
    r = ctx.rid
    lo, hi = ctx.param("min_bet", cents=True)[r], ctx.param("max_bet", cents=True)[r]
    plo, phi = ctx.param("min_pool_bet", cents=True)[r], ctx.param("max_pool_bet", cents=True)[r]
    original = ctx.hand == 0
    posted = (lo >= 0) | (hi >= 0) | (plo >= 0) | (phi >= 0)
    main_bad = ((lo >= 0) & (ctx.bet < lo)) | ((hi >= 0) & (ctx.bet > hi))
    pool = ctx.pool_bet > 0
    pool_bad = pool & (((plo >= 0) & (ctx.pool_bet < plo)) | ((phi >= 0) & (ctx.pool_bet > phi)))
    violates, reason, keys = reasons((main_bad, "reason.plb.bet_main"), (pool_bad, "reason.plb.bet_pool"))
    return ctx.hands_result(original & posted, violates, reason=reason, reasons=keys,
                            note="" if posted.any() or not len(posted) else "note.no_limits_posted",
                            more_evidence=limits_evidence(("", lo, hi), ("pool ", plo, phi)))


def check_pay_limit(ctx: Context) -> CheckResult:
    """[PERU] The total paid in a round stays within the posted payment limit."""
    return pay_limit_result(ctx, ctx.winnings_paid, ctx.capped, ctx.prizes)


def check_capped_pay(ctx: Context) -> CheckResult:
    """[PERU] A round whose winnings due exceed the posted payment limit pays the limit: its
    winning main bets and insurance may be cut, each paid something and none more than due
    (the pay rules); the pool is the players' and is paid as Art. 18 says."""
    return capped_pay_result(ctx, ctx.capped, ctx.prizes, [ctx.settlement[0], ctx.insurance_due])


CHECKS = {
    "PLB-CARDS": check_cards,
    "PLB-SHOE": check_shoe,
    "PLB-SURRENDER": check_surrender,
    "PLB-SURRENDER-PAY": check_surrender_pay,
    "PLB-INSURANCE": check_insurance,
    "PLB-INSURANCE-PAY": check_insurance_pay,
    "PLB-SPLIT": check_split,
    "PLB-SPLIT-ACES": check_split_aces,
    "PLB-DOUBLE": check_double,
    "PLB-BJ-PAY": check_bj_pay,
    "PLB-EVEN-MONEY": check_even_money,
    "PLB-EVEN-MONEY-PAY": check_even_money_pay,
    "PLB-DEALER-BJ": check_dealer_bj,
    "PLB-PLAY": check_play,
    "PLB-DEALER-PLAY": check_dealer_play,
    "PLB-WIN": check_win,
    "PLB-LOSE": check_lose,
    "PLB-PUSH": check_push,
    "PLB-POOL-WINNER": check_pool_winner,
    "PLB-POOL-COMMISSION": check_pool_commission,
    "PLB-POOL-CAP": check_pool_cap,
    "PLB-POSTED-COMMISSION": check_posted_commission,
    "PLB-BET-LIMITS": check_bet_limits,
    "PLB-PAY-LIMIT": check_pay_limit,
    "PLB-PAY-CAPPED": check_capped_pay,
}
