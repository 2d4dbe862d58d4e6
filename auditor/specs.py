"""Rule specifications: the legal text and metadata of every rule, read from ``rule_specs/``.

Python holds no legal text: a rule's article, quote, grounding and severity live in one
TOML file per directive; the checks are bound to the codes by the registry.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .config_errors import ConfigError, read_toml, validation_problems

__all__ = ["RuleSpec", "DirectiveSpec", "SpecError", "load_spec", "SPEC_DIR", "SEVERITIES"]

SEVERITIES = ("info", "low", "medium", "high", "critical")
SPEC_DIR = Path(os.environ.get("AUDITOR_RULE_SPECS", Path(__file__).resolve().parent.parent / "rule_specs"))


class SpecError(ConfigError):
    """A broken or incomplete spec (exit code 2), a fault of the installation: said in the
    catalogue's words (``spec.*``, ``config.*``), as a profile's faults are."""


class Titles(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    es: str = Field(min_length=1)
    en: str = Field(min_length=1)


class RuleSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str = Field(pattern=r"^[A-Z]{2,4}(-[A-Z0-9]+)+$")
    article: str
    source: Literal["TEXT", "PERU", "STANDARD"]
    severity: Literal["info", "low", "medium", "high", "critical"]
    title: Titles
    check: Titles  # what the check verifies, for `auditor explain` ("Qué verifica")
    quote: str
    params: tuple[str, ...] = ()
    # Optional settlement columns of the log whose values the rule compares (``pool_paid``): in
    # a round from a file that lacks one of them, or the bet it settles, while the round shows
    # the other in use, the rule is not checked (see ``engine._unknown_rounds``).
    needs: tuple[str, ...] = ()
    # Filled from the directive header so that a rule carries its own citation.
    game: str = ""
    directive: str = ""

    def title_in(self, lang: str) -> str:
        return getattr(self.title, lang)

    def check_in(self, lang: str) -> str:
        return getattr(self.check, lang)


class DirectiveSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    game: str
    directive: str
    citation: str
    version: str
    rule: tuple[RuleSpec, ...]

    @property
    def codes(self) -> list[str]:
        return [r.code for r in self.rule]

    def get(self, code: str) -> RuleSpec:
        for r in self.rule:
            if r.code == code:
                return r
        raise KeyError(code)


@cache
def load_spec(filename: str) -> DirectiveSpec:
    path = SPEC_DIR / filename
    data = read_toml(path, SpecError)
    rules = data.get("rule", [])
    for rule in rules if isinstance(rules, list) else ():
        if not isinstance(rule, dict):
            continue  # (the model says what it should be)
        rule.setdefault("game", data.get("game", ""))
        rule.setdefault("directive", data.get("directive", ""))
        if rule.get("source") == "TEXT" and not (rule.get("article") and rule.get("quote")):
            raise SpecError(path, "spec.text_rule_unquoted", code=rule.get("code"))
    try:
        spec = DirectiveSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(path, "config.fields", validation_problems(exc)) from None
    codes = spec.codes
    if len(codes) != len(set(codes)):
        raise SpecError(path, "spec.duplicate_codes", codes=", ".join(sorted({c for c in codes if codes.count(c) > 1})))
    return spec
