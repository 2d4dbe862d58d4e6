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
