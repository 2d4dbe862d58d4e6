"""The registry binds every spec code to exactly one check, and says so loudly otherwise."""

import dataclasses

import pytest
from typer.testing import CliRunner

from auditor import registry
from auditor.cli import app
from auditor.specs import SpecError


def test_every_code_has_a_check_and_every_check_a_code():
    registry.verify.cache_clear()
    registry.verify()
    for game, plugin in registry.GAMES.items():
        assert set(plugin.spec.codes) == set(plugin.checks), game
        for rule in plugin.spec.rule:
            assert rule.game == game and rule.directive
            assert rule.source in ("TEXT", "PERU", "STANDARD")
            if rule.source == "TEXT":
                assert rule.article.startswith("Art.") and rule.quote


@pytest.mark.parametrize("change", ["drop_check", "extra_check"])
def test_mismatch_fails_start_up(monkeypatch, change):
    game, plugin = next(iter(registry.GAMES.items()))
    checks = dict(plugin.checks)
    if change == "drop_check":
        checks.pop(next(iter(checks)))
    else:
        checks["PLB-NOT-IN-SPEC"] = next(iter(checks.values()))
    monkeypatch.setitem(registry.GAMES, game, dataclasses.replace(plugin, checks=checks))
    registry.verify.cache_clear()
    try:
        with pytest.raises(SpecError):
            registry.verify()
        result = CliRunner().invoke(app, ["rules"])
        assert result.exit_code == 2
        assert "Traceback" not in result.output
    finally:
        monkeypatch.undo()
        registry.verify.cache_clear()


def test_a_rule_that_needs_a_column_that_is_no_settlement_fails_start_up(monkeypatch, tmp_path):
    """``needs`` names optional settlement columns (``pool_paid``); a misspelt or required
    column in a spec stops the tool at start-up rather than leaving the rule checked everywhere."""
    game, plugin = "pot-luck-blackjack", registry.GAMES["pot-luck-blackjack"]
    from auditor.specs import SPEC_DIR

    text = (SPEC_DIR / plugin.spec_file).read_text(encoding="utf-8")
    assert 'needs = ["pool_paid"]' in text
    for wrong in ("pool_payd", "bet"):
        spec = tmp_path / f"{wrong}.toml"
        spec.write_text(text.replace('needs = ["pool_paid"]', f'needs = ["{wrong}"]', 1), encoding="utf-8")
        monkeypatch.setitem(registry.GAMES, game, dataclasses.replace(plugin, spec_file=str(spec)))
        registry.verify.cache_clear()
        try:
            with pytest.raises(SpecError, match=wrong):
                registry.verify()
        finally:
            monkeypatch.undo()
            registry.verify.cache_clear()
    registry.verify()
