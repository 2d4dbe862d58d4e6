"""Rule specifications: the legal text and metadata of every rule, read from ``rule_specs/``.

Python holds no legal text: a rule's article, quote, grounding and severity live in one
TOML file per directive; the checks are bound to the codes by the registry.
"""

from __future__ import annotations

import os
import tomllib
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["RuleSpec", "DirectiveSpec", "SpecError", "load_spec", "SPEC_DIR", "SEVERITIES"]

SEVERITIES = ("info", "low", "medium", "high", "critical")
SPEC_DIR = Path(os.environ.get("AUDITOR_RULE_SPECS", Path(__file__).resolve().parent.parent / "rule_specs"))


class SpecError(Exception):
    """A broken or incomplete spec (exit code 2)."""


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
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for rule in data.get("rule", []):
            rule.setdefault("game", data.get("game", ""))
            rule.setdefault("directive", data.get("directive", ""))
            if rule["source"] == "TEXT" and not (rule.get("article") and rule.get("quote")):
                raise SpecError(f"{path}: {rule.get('code')}: a TEXT rule needs its article and quote")
        spec = DirectiveSpec.model_validate(data)
    except (OSError, tomllib.TOMLDecodeError, ValidationError) as exc:
        raise SpecError(f"{path}: {exc}") from None
    codes = spec.codes
    if len(codes) != len(set(codes)):
        raise SpecError(f"{path}: duplicated rule codes")
    return spec
