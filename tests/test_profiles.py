"""Tests of table profiles (auditor.profiles): what a profile file may hold, and which
profile applies to each round."""

from __future__ import annotations

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
