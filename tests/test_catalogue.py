"""docs/rules.md is the public rule catalogue: exactly what `auditor rules --format markdown`
writes. Regenerate it with `.venv/bin/auditor rules --format markdown > docs/rules.md`."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from auditor.cli import app
from auditor.registry import GAMES, plugin

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def catalogue() -> str:
    result = CliRunner().invoke(app, ["rules", "--format", "markdown"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_docs_rules_md_is_the_command_output():
    assert DOC.read_text(encoding="utf-8") == catalogue(), (
        "docs/rules.md is stale: run `.venv/bin/auditor rules --format markdown > docs/rules.md`")


def test_catalogue_lists_every_rule_of_every_game_in_full():
    text = catalogue()
    for game in GAMES:
        spec = plugin(game).spec
        assert f"## {spec.directive}" in text and spec.version in text
        for rule in spec.rule:
            assert f"### {rule.code} — {rule.title_in('es')}" in text
            assert f"| `{rule.code}` |" in text
            section = text.split(f"### {rule.code} — ", 1)[1].split("\n### ", 1)[0]
            assert f"(`{rule.severity}`)" in section and f"(`{rule.source}`)" in section
            if rule.article:
                assert rule.article in section
            if rule.quote:
                assert f"> «{rule.quote}»" in section
            for param in rule.params:
                assert f"`{param}`" in section
