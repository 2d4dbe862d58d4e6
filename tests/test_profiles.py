"""Tests of table profiles (auditor.profiles): what a profile file may hold, and which
profile applies to each round."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from auditor.i18n import t
from auditor.profiles import ProfileError, load_profiles

ROOT = Path(__file__).resolve().parent.parent


def refusal(tmp_path: Path, text: str) -> ProfileError:
    path = tmp_path / "p.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError) as info:
        load_profiles([path])
    return info.value


# A value TOML gives in another kind than the field's, which pydantic's lax mode converted
# (`decks = true` was one deck, "yes" was true, 0 was 1970-01-01).
LAX = [
    ("pot-luck-blackjack", "decks", "true", "config.whole"),
    ("pot-luck-blackjack", "decks", "2.5", "config.whole"),
    ("pot-luck-blackjack", "decks", "2.0", "config.whole"),
    ("pot-luck-blackjack", "decks", '"6"', "config.whole"),
    ("pot-luck-blackjack", "max_splits", "false", "config.whole"),
    ("pot-luck-blackjack", "split_21_is_blackjack", '"yes"', "config.yes_no"),
    ("pot-luck-blackjack", "split_21_is_blackjack", "1", "config.yes_no"),
    ("pot-luck-blackjack", "pool_commission_pct", "true", "config.decimal"),
    ("pot-luck-blackjack", "min_bet", "false", "config.decimal"),
    ("pot-luck-blackjack", "valid_from", "0", "config.date"),
    ("pot-luck-blackjack", "valid_until", "true", "config.date"),
    # (a number of seconds since 1970, also as text; a date-time at midnight, of any zone)
    ("pot-luck-blackjack", "valid_from", "86400", "config.date"),
    ("pot-luck-blackjack", "valid_from", '"0"', "config.date"),
    ("pot-luck-blackjack", "valid_until", "2026-11-01T00:00:00Z", "config.date"),
    ("pot-luck-blackjack", "valid_until", "2026-11-01T00:00:00", "config.date"),
    ("let-it-ride", "decks_per_table", "true", "config.whole"),
    ("let-it-ride", "decks_per_table", "2.0", "config.whole"),
    ("let-it-ride", "bonus_stake", "true", "config.decimal"),
    ("let-it-ride", "paytable", "{ royal_flush = true }", "config.whole"),
    ("let-it-ride", "bonus", "{ flush = 50.0 }", "config.whole"),
    ("triple-shot", "bj_pays", "[true, 2]", "config.whole"),
    ("triple-shot", "bj_pays", '["3", "2"]', "config.whole"),
    ("triple-shot", "dealer_hits_soft_17", '"true"', "config.yes_no"),
    ("triple-shot", "six_card_charlie", "0", "config.yes_no"),
    ("triple-shot", "caribbean", "{ royal_flush = 100.0 }", "config.whole"),
    ("triple-shot", "paytable", "{ high_card = false }", "config.whole"),
    ("triple-shot", "bonus", '{ royal_flush = "1000" }', "config.whole"),
    ("triple-shot", "max_war_bet", "true", "config.decimal"),
]


@pytest.mark.parametrize("game, field, value, key", LAX)
def test_a_value_of_another_kind_is_refused_not_converted(tmp_path, game, field, value, key):
    error = refusal(tmp_path, f'id = "x"\ngame = "{game}"\ntables = ["T-1"]\n{field} = {value}\n')
    assert error.key == "config.fields"
    assert {(f.split(".")[0], k) for f, k, _ in error.problems} == {(field, key)}, error.problems


def test_decks_true_is_refused_with_the_whole_number_message(tmp_path):
    error = refusal(tmp_path, 'id = "x"\ngame = "pot-luck-blackjack"\ndecks = true\n')
    assert error.text("es").endswith("valores no válidos (decks: se espera un número entero, no «true»)")
    assert error.text("en").endswith("invalid values (decks: a whole number is expected, not «true»)")


@pytest.mark.parametrize("game, field, value, want", [
    ("pot-luck-blackjack", "valid_from", "2026-12-01", date(2026, 12, 1)),
    ("pot-luck-blackjack", "valid_from", '"2026-12-01"', date(2026, 12, 1)),
    ("pot-luck-blackjack", "decks", "2", 2),
    ("pot-luck-blackjack", "split_21_is_blackjack", "true", True),
    ("pot-luck-blackjack", "pool_commission_pct", '"4.5"', 4.5),
    ("pot-luck-blackjack", "min_bet", "10", 10),
    ("pot-luck-blackjack", "min_bet", "10.5", 10.5),
    ("let-it-ride", "decks_per_table", "2", 2),
    ("triple-shot", "bj_pays", "[6, 5]", (6, 5)),
])
def test_values_of_their_own_kind_are_still_read(tmp_path, game, field, value, want):
    path = tmp_path / "p.toml"
    path.write_text(f'id = "x"\ngame = "{game}"\n{field} = {value}\n', encoding="utf-8")
    (profile,) = load_profiles([path])
    assert getattr(profile, field) == want


@pytest.mark.parametrize("pays, key, why", [
    ("[3, 0]", "config.bj_pays_per", "[3, 0] is no payout ratio: the second number, the stake the first is paid for, "
                                     "must be at least 1"),
    ("[3, -2]", "config.bj_pays_per", "[3, -2] is no payout ratio: the second number, the stake the first is paid "
                                      "for, must be at least 1"),
    ("[0, 1]", "config.bj_pays_paid", "[0, 1] does not pay the Black Jack: the first number, what is paid, must be at "
                                      "least 1 (a Black Jack wins a premio, Art. 13 of the Black Jack reglamento)"),
    ("[-3, 2]", "config.bj_pays_paid", "[-3, 2] does not pay the Black Jack: the first number, what is paid, must be "
                                       "at least 1 (a Black Jack wins a premio, Art. 13 of the Black Jack reglamento)"),
])
def test_a_black_jack_ratio_that_pays_nothing_or_for_no_stake_is_refused(tmp_path, pays, key, why):
    """[3, 0] was read, and the audit divided by it: a Black Jack was then settled at no
    defined amount. [0, 1] (or less) pays the winning hand nothing: no premio posted."""
    error = refusal(tmp_path, f'id = "x"\ngame = "triple-shot"\ntables = ["TS-01"]\nbj_pays = {pays}\n')
    assert error.key == "config.fields"
    assert [(f, k) for f, k, _ in error.problems] == [("bj_pays", key)]
    assert error.text("en") == f"{tmp_path / 'p.toml'}: invalid values (bj_pays: {why})"
    assert error.text("es").startswith(f"{tmp_path / 'p.toml'}: valores no válidos (bj_pays: {pays} no ")


def test_a_refused_profile_of_several_in_a_file_is_named(tmp_path):
    """A file of [[profile]] tables said which field was refused, not of which profile (the
    sample files hold two profiles of a game, the same fields in each)."""
    ts = 'game = "triple-shot"\n'
    error = refusal(tmp_path, f'[[profile]]\nid = "ts-sala"\n{ts}[[profile]]\nid = "ts-vip"\n{ts}tables = ["TS-01"]\n'
                              f'bj_pays = [3, 0]\n')
    assert error.key == "config.profile_fields"
    assert error.text("en").startswith(f"{tmp_path / 'p.toml'}: profile ts-vip: invalid values (bj_pays: [3, 0] is no")
    assert error.text("es").startswith(f"{tmp_path / 'p.toml'}: perfil ts-vip: valores no válidos (bj_pays: [3, 0] no")
    error = refusal(tmp_path, f'[[profile]]\nid = "ts-sala"\n{ts}[[profile]]\n{ts}decks = 6\n')
    assert error.text("en") == f"{tmp_path / 'p.toml'}: profile #2: invalid values (id: missing (it is required); " \
                               "decks: unknown field (misspelt?))"


@pytest.mark.parametrize("game, text, want", [
    ("triple-shot", "bj_pays = [3, 2, 1]", [("bj_pays", "config.too_many")]),
    ("triple-shot", "bj_pays = [3]", [("bj_pays.1", "config.missing")]),
    ("triple-shot", "caribbean = { flush = -5 }", [("caribbean.flush", "config.at_least")]),
    ("let-it-ride", "paytable = { one_pair = -1 }", [("paytable.one_pair", "config.at_least")]),
    ("pot-luck-blackjack", 'pool_commission_pct = "-1"', [("pool_commission_pct", "config.at_least")]),
    ("pot-luck-blackjack", 'pool_commission_pct = "101"', [("pool_commission_pct", "config.at_most")]),
    ("pot-luck-blackjack", 'max_bet = "-5"', [("max_bet", "config.at_least")]),
    ("pot-luck-blackjack", 'payment_limit = "-1"', [("payment_limit", "config.at_least")]),
    ("pot-luck-blackjack", 'min_pool_bet = "10"\nmax_pool_bet = "5"', [("", "config.min_above_max")]),
    ("triple-shot", 'min_bonus_bet = "10"\nmax_bonus_bet = "5"', [("", "config.min_above_max")]),
    ("triple-shot", 'min_bet = "10"\nmax_bj_bet = "5"', [("", "config.min_above_max")]),
])
def test_ratios_and_limits_no_table_could_post_are_refused(tmp_path, game, text, want):
    error = refusal(tmp_path, f'id = "x"\ngame = "{game}"\n{text}\n')
    assert error.key == "config.fields"
    assert [(f, k) for f, k, _ in error.problems] == want, error.problems


@pytest.mark.parametrize("game, text, field, want", [
    ("triple-shot", "bj_pays = [1, 1]", "bj_pays", (1, 1)),
    ("triple-shot", "bj_pays = [6, 5]", "bj_pays", (6, 5)),
    # A posted value the directive does not allow is a finding of its own (PLB-POSTED-COMMISSION,
    # LIR-PAYTABLE, TS-PAYTABLE), not a profile that cannot be read.
    ("pot-luck-blackjack", 'pool_commission_pct = "6"', "pool_commission_pct", 6),
    ("let-it-ride", "paytable = { one_pair = 0 }", "paytable.one_pair", 0),
    ("triple-shot", "bonus = { three_of_a_kind = 0 }", "bonus.three_of_a_kind", 0),
    ("triple-shot", 'max_bonus_bet = "0"', "max_bonus_bet", 0),
])
def test_ratios_and_limits_a_table_may_post_are_read(tmp_path, game, text, field, want):
    path = tmp_path / "p.toml"
    path.write_text(f'id = "x"\ngame = "{game}"\n{text}\n', encoding="utf-8")
    (value,) = load_profiles([path])
    for name in field.split("."):
        value = getattr(value, name)
    assert value == want


# The bounds where the audit's int64 arithmetic stays exact (auditor/money.py): an amount of a
# limit or stake above S/ 999,999,999.99, a ratio above 100,000 to 1. A payment limit of S/ 10^16
# (10^18 céntimos) was read, and times the audit's SCALE wrapped around: every round won was a
# false PLB-PAY-CAPPED finding of S/ 9,999,999,999,999,990 short; a royal flush at 10^18 to 1
# was a finding of a negative amount due, at 10^20 to 1 the pay rules ended in an error.
AMOUNT_FIELDS = [("pot-luck-blackjack", f) for f in ("min_bet", "max_bet", "payment_limit", "min_pool_bet",
                                                     "max_pool_bet")] + [
    ("let-it-ride", f) for f in ("min_bet", "max_bet", "payment_limit", "bonus_stake")] + [
    ("triple-shot", f) for f in ("min_bet", "max_bet", "payment_limit", "min_war_bet", "max_war_bet", "min_bj_bet",
                                 "max_bj_bet", "min_poker_bet", "max_poker_bet", "min_bonus_bet", "max_bonus_bet")]
RATIO_FIELDS = [("let-it-ride", "paytable", "royal_flush"), ("let-it-ride", "paytable", "one_pair"),
                ("let-it-ride", "bonus", "royal_flush"), ("triple-shot", "caribbean", "royal_flush"),
                ("triple-shot", "paytable", "high_card"), ("triple-shot", "bonus", "straight")]


@pytest.mark.parametrize("game, field", AMOUNT_FIELDS)
def test_a_limit_above_the_largest_amount_is_refused_and_the_largest_read(tmp_path, game, field):
    from auditor.money import LARGEST_AMOUNT

    for above in ('"1000000000.00"', '"10000000000000000"', '"1e30"', "1e300"):
        error = refusal(tmp_path, f'id = "x"\ngame = "{game}"\n{field} = {above}\n')
        assert [(f, k, p["le"]) for f, k, p in error.problems] == [(field, "config.amount_too_large", "999999999.99")]
    path = tmp_path / "p.toml"
    path.write_text(f'id = "x"\ngame = "{game}"\n{field} = "999999999.99"\n', encoding="utf-8")
    (profile,) = load_profiles([path])
    assert getattr(profile, field) == LARGEST_AMOUNT and profile.cents(field) == 99_999_999_999


@pytest.mark.parametrize("above", ["inf", "+inf", '"Infinity"', '"inf"'])
def test_a_limit_of_infinity_is_refused_with_the_bound(tmp_path, above):
    """TOML's inf (or "Infinity" as text), written for "no limit", is above every bound: refused
    as one, naming the bound, where it was an "invalid value" that said neither why nor what the
    field takes. NaN is no amount at all."""
    error = refusal(tmp_path, f'id = "x"\ngame = "let-it-ride"\npayment_limit = {above}\n')
    assert [(f, k, p["le"]) for f, k, p in error.problems] == [("payment_limit", "config.amount_too_large",
                                                               "999999999.99")]
    assert "999999999.99" in error.text("es") and "999999999.99" in error.text("en")
    for nan in ("nan", '"NaN"'):
        error = refusal(tmp_path, f'id = "x"\ngame = "let-it-ride"\nmax_bet = {nan}\n')
        assert [k for _, k, _ in error.problems] == ["config.invalid"]
    error = refusal(tmp_path, 'id = "x"\ngame = "let-it-ride"\nmin_bet = -inf\n')
    assert [k for _, k, _ in error.problems] != ["config.amount_too_large"]


@pytest.mark.parametrize("game, table, field", RATIO_FIELDS)
def test_a_ratio_above_the_largest_is_refused_and_the_largest_read(tmp_path, game, table, field):
    for above in ("100001", "1000000000000000000", "100000000000000000000"):
        error = refusal(tmp_path, f'id = "x"\ngame = "{game}"\n{table} = {{ {field} = {above} }}\n')
        assert [(f, k, p["le"]) for f, k, p in error.problems] == [(f"{table}.{field}", "config.ratio_too_large",
                                                                   "100000")]
    path = tmp_path / "p.toml"
    path.write_text(f'id = "x"\ngame = "{game}"\n{table} = {{ {field} = 100000 }}\n', encoding="utf-8")
    (profile,) = load_profiles([path])
    assert getattr(getattr(profile, table), field) == 100_000


@pytest.mark.parametrize("pays", ["[100001, 1]", "[3, 100001]", "[1000000000000000000000, 2]"])
def test_a_black_jack_ratio_of_terms_above_the_largest_is_refused(tmp_path, pays):
    error = refusal(tmp_path, f'id = "x"\ngame = "triple-shot"\nbj_pays = {pays}\n')
    assert [(f, k) for f, k, _ in error.problems] == [("bj_pays", "config.bj_pays_too_large")]
    assert error.text("en") == (f"{tmp_path / 'p.toml'}: invalid values (bj_pays: {pays}: each number must be at most "
                                "100000, as a pay table's ratio (3 to 2 is [3, 2]))")
    assert error.text("es") == (f"{tmp_path / 'p.toml'}: valores no válidos (bj_pays: {pays}: cada número debe ser "
                                "como mucho 100000, como la proporción de una tabla de pagos (3 a 2 es [3, 2]))")
    path = tmp_path / "p.toml"
    path.write_text('id = "x"\ngame = "triple-shot"\nbj_pays = [100000, 99999]\n', encoding="utf-8")
    assert load_profiles([path])[0].bj_pays == (100_000, 99_999)


def test_a_bound_is_said_with_the_field_and_the_profile_in_both_languages(tmp_path):
    text = ('[[profile]]\nid = "ts-sala"\ngame = "triple-shot"\n'
            '[[profile]]\nid = "ts-vip"\ngame = "triple-shot"\ntables = ["TS-01"]\npayment_limit = "1e16"\n'
            'bonus = { royal_flush = 250000 }\n')
    error = refusal(tmp_path, text)
    where = tmp_path / "p.toml"
    assert error.text("en") == (
        f"{where}: profile ts-vip: invalid values (payment_limit: must be at most 999999999.99, the largest amount a "
        "log may state, which the audit's 64-bit arithmetic holds exactly, not «1e16»; bonus.royal_flush: must be at "
        "most 100000 to 1, the largest ratio the audit's 64-bit arithmetic holds exactly with any amount (the largest "
        "of the published tables it knows is 20000, Let It Ride's bonus royal), not «250000»)")
    assert error.text("es") == (
        f"{where}: perfil ts-vip: valores no válidos (payment_limit: debe ser como mucho 999999999.99, el mayor "
        "importe que puede dar un registro, que la aritmética de 64 bits de la auditoría calcula con exactitud, no "
        "«1e16»; bonus.royal_flush: debe ser como mucho 100000 a 1, la mayor proporción que la aritmética de 64 bits "
        "de la auditoría calcula con exactitud con cualquier importe (la mayor de las tablas publicadas que conoce es "
        "20000, el royal del bono de Let It Ride), no «250000»)")


@pytest.mark.parametrize("game, field, key", [
    ("pot-luck-blackjack", "max_bet", "config.max_bet_zero"),
    ("pot-luck-blackjack", "payment_limit", "config.payment_limit_zero"),
    ("let-it-ride", "max_bet", "config.max_bet_zero"),
    ("let-it-ride", "payment_limit", "config.payment_limit_zero"),
    ("triple-shot", "max_bet", "config.max_bet_zero"),
    ("triple-shot", "payment_limit", "config.payment_limit_zero"),
    ("triple-shot", "max_war_bet", "config.max_bet_zero"),
    ("triple-shot", "max_bj_bet", "config.max_bet_zero"),
    ("triple-shot", "max_poker_bet", "config.max_bet_zero"),
])
def test_a_maximum_bet_or_payment_limit_of_0_is_refused(tmp_path, game, field, key):
    """A maximum of 0 (written for "no limit", say) made every round with a bet a bet-limit
    finding, a payment limit of 0 every round won a pay-limit finding."""
    for zero in ('"0"', '"0.00"', "0", "0.0"):
        error = refusal(tmp_path, f'id = "x"\ngame = "{game}"\n{field} = {zero}\n')
        assert [(f, k) for f, k, _ in error.problems] == [(field, key)]
    what = "a maximum of 0 takes no bet, and every round with one" if key == "config.max_bet_zero" else \
        "a payment limit of 0 pays no prize, and every round won"
    assert error.text("en").endswith(f"invalid values ({field}: cannot be 0: {what} would be a finding; if the table "
                                     f"posts no {'maximum' if 'bet' in key else 'payment limit'}, leave the field out)")
    assert error.text("es").startswith(f"{tmp_path / 'p.toml'}: valores no válidos ({field}: no puede ser 0: ")


@pytest.mark.parametrize("game, field", [
    ("pot-luck-blackjack", "min_bet"), ("pot-luck-blackjack", "min_pool_bet"), ("pot-luck-blackjack", "max_pool_bet"),
    ("let-it-ride", "min_bet"), ("let-it-ride", "bonus_stake"), ("triple-shot", "min_bet"),
    ("triple-shot", "min_war_bet"), ("triple-shot", "min_bonus_bet"), ("triple-shot", "max_bonus_bet"),
])
def test_a_minimum_or_a_side_bets_maximum_may_be_0(tmp_path, game, field):
    """A minimum of 0 posts none; a side bet's maximum (the pool, the bonus) or Let It Ride's
    bonus stake of 0 is a table that does not take that bet, a bet placed there a finding."""
    path = tmp_path / "p.toml"
    path.write_text(f'id = "x"\ngame = "{game}"\n{field} = "0"\n', encoding="utf-8")
    assert getattr(load_profiles([path])[0], field) == 0


def test_the_sample_profiles_still_load():
    assert len(load_profiles([ROOT / "profiles"])) == 6
    assert t("config.whole", "en", value="true")


def test_a_dated_table_profile_applies_on_its_days(tmp_path):
    """Under pandas' copy-on-write the table match is a read-only array: narrowing it to the
    profile's days in place ended every audit with a dated table profile in a ValueError."""
    import json

    from typer.testing import CliRunner

    from auditor.cli import app

    cli = CliRunner()
    log = tmp_path / "nov.csv"
    assert cli.invoke(app, ["simulate", "pot-luck-blackjack", "--rounds", "40", "--seed", "1", "--out", str(log)]).exit_code == 0
    profile = tmp_path / "p.toml"
    profile.write_text('id = "d"\ngame = "pot-luck-blackjack"\ntables = ["PLB-01"]\nvalid_from = 2026-11-02\n'
                       'pool_commission_pct = "3"\n', encoding="utf-8")
    out = tmp_path / "out"

    def commission_tables():
        res = cli.invoke(app, ["audit", str(log), "--profile", str(ROOT / "profiles"), "--profile", str(profile),
                               "--out", str(out), "--format", "json"])
        assert res.exit_code in (0, 1) and (res.exception is None or isinstance(res.exception, SystemExit)), res.output
        report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
        return {f["table_id"] for f in report["findings"] if f["code"] == "PLB-POOL-COMMISSION"}

    assert commission_tables() == set()  # the log's day, November 1st: not yet posted
    profile.write_text(profile.read_text().replace("2026-11-02", "2026-11-01"), encoding="utf-8")
    assert commission_tables() == {"PLB-01"}


# --- which profile applies: dated default profiles -------------------------------------------

def _profiles(tmp_path: Path, text: str):
    path = tmp_path / "p.toml"
    path.write_text(text, encoding="utf-8")
    return load_profiles([path])


def _applied(profiles, rounds):
    import pandas as pd

    from auditor.profiles import ProfileSet

    pset = ProfileSet("pot-luck-blackjack", profiles)
    tables = pd.Series([t for t, _ in rounds])
    started = pd.to_datetime(pd.Series([f"{d}T12:00:00-05:00" for _, d in rounds]), utc=True)
    return [pset.profiles[i].id for i in pset.assign(tables, started)]


PLB = 'game = "pot-luck-blackjack"\n'


def test_a_dated_default_applies_on_its_days_only_under_the_table_profiles(tmp_path):
    """A default (no tables) with valid_from/valid_until holds on its days, over the undated
    default and under any table profile; its dates were ignored (it held every day)."""
    profiles = _profiles(tmp_path, (
        f'[[profile]]\nid = "base"\n{PLB}pool_commission_pct = "5"\n'
        f'[[profile]]\nid = "dic"\n{PLB}valid_from = 2026-12-01\nvalid_until = 2026-12-31\npool_commission_pct = "3"\n'
        f'[[profile]]\nid = "ene"\n{PLB}valid_from = 2027-01-01\npool_commission_pct = "4"\n'
        f'[[profile]]\nid = "vip"\n{PLB}tables = ["PLB-04"]\n'
        f'[[profile]]\nid = "vip-fiestas"\n{PLB}tables = ["PLB-04"]\nvalid_from = 2026-12-24\nvalid_until = 2026-12-25\n'))
    rounds = [("PLB-01", "2026-11-30"), ("PLB-01", "2026-12-01"), ("PLB-02", "2026-12-31"), ("PLB-01", "2027-01-01"),
              ("PLB-04", "2026-12-10"), ("PLB-04", "2026-12-24"), ("PLB-04", "2026-11-01")]
    assert _applied(profiles, rounds) == ["base", "dic", "dic", "ene", "vip", "vip-fiestas", "vip"]


def test_days_no_dated_default_covers_take_the_built_in_standard_values(tmp_path):
    profiles = _profiles(tmp_path, f'id = "dic"\n{PLB}valid_from = 2026-12-01\npool_commission_pct = "3"\n')
    assert _applied(profiles, [("PLB-01", "2026-11-30"), ("PLB-01", "2026-12-01")]) == [
        "pot-luck-blackjack-estandar", "dic"]


@pytest.mark.parametrize("second, key", [
    ('valid_from = 2026-12-31\n', "config.overlap_defaults"),                 # open-ended: meets December
    ('valid_from = 2026-11-01\nvalid_until = 2026-12-01\n', "config.overlap_defaults"),
    ("", None),                                                                # undated + dated: fine
    ('valid_from = 2027-01-01\n', None),                                       # one after the other: fine
])
def test_two_defaults_on_one_day_are_refused(tmp_path, second, key):
    text = (f'[[profile]]\nid = "a"\n{PLB}valid_from = 2026-12-01\nvalid_until = 2026-12-31\n'
            f'[[profile]]\nid = "b"\n{PLB}{second}')
    if key is None:
        assert len(_profiles(tmp_path, text)) == 2
        return
    error = refusal(tmp_path, text)
    assert error.key == key
    assert error.text("en") == "pot-luck-blackjack: the profiles without tables (default) «a» and «b» both apply on the same days"


def test_two_undated_defaults_are_still_refused(tmp_path):
    error = refusal(tmp_path, f'[[profile]]\nid = "a"\n{PLB}[[profile]]\nid = "b"\n{PLB}')
    assert error.text("es") == "pot-luck-blackjack: más de un perfil sin mesas ni fechas (por omisión): a, b"


def test_the_reviewers_dated_default_raises_no_finding_on_the_days_before_it(tmp_path):
    """The posted 3 % from 2026-12-01 once applied to November too: 24 false
    PLB-POOL-COMMISSION findings. November is audited against the built-in 5 %, December
    against the 3 %, and the report lists both profiles."""
    import json

    from typer.testing import CliRunner

    from auditor.cli import app

    cli = CliRunner()
    nov, dec = tmp_path / "nov.csv", tmp_path / "dec.csv"
    for log, start in ((nov, "2026-11-01"), (dec, "2026-12-01")):
        res = cli.invoke(app, ["simulate", "pot-luck-blackjack", "--rounds", "40", "--seed", "1",
                               "--start", start, "--out", str(log)])
        assert res.exit_code == 0, res.output
    text = (ROOT / "profiles" / "pot-luck-blackjack.toml").read_text(encoding="utf-8")
    profile = tmp_path / "p5.toml"
    profile.write_text(text.replace('pool_commission_pct = "5"', 'pool_commission_pct = "3"\nvalid_from = 2026-12-01'),
                       encoding="utf-8")
    out = tmp_path / "out"
    res = cli.invoke(app, ["audit", str(nov), str(dec), "--profile", str(profile), "--out", str(out), "--format", "json,html"])
    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    days = {f["round_id"][:8] for f in report["findings"] if f["code"] == "PLB-POOL-COMMISSION"}
    assert days == {"20261201"}, res.output
    assert [(p["id"], p["valid_from"]) for p in report["profiles"]] == [
        ("pot-luck-blackjack-estandar", None), ("plb-sala-principal", "2026-12-01"), ("plb-mesa-vip-doble-baraja", None)]
    html = (out / "audit-report.html").read_text(encoding="utf-8")
    assert "<td>todas (perfil predeterminado) (2026-12-01 – …)</td>" in html
