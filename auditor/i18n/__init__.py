"""The one message catalogue: every user-facing string, in Spanish (default) and English."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources

__all__ = ["t", "LANGS", "catalogue"]

LANGS = ("es", "en")


@cache
def catalogue() -> dict[str, dict[str, str]]:
    text = resources.files(__package__).joinpath("messages.toml").read_text(encoding="utf-8")
    flat: dict[str, dict[str, str]] = {}

    def walk(prefix: str, node: dict) -> None:
        for key, value in node.items():
            if isinstance(value, dict) and not {"es", "en"} <= value.keys():
                walk(f"{prefix}{key}.", value)
            else:
                flat[f"{prefix}{key}"] = value

    walk("", tomllib.loads(text))
    return flat


def t(key: str, lang: str = "es", /, **params) -> str:
    """The message ``key`` in ``lang``, formatted with ``params``."""
    entry = catalogue()[key]
    text = entry.get(lang) or entry["es"]
    return text.format(**params) if params else text
