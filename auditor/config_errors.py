"""Why a table profile or a waiver file cannot be used, in the catalogue's words.

pydantic's own messages are English, name its error types and end in a link to its website (of
no use on an offline laptop): a file's user needs the field, what it should hold and what it
held, in the language of the command."""

from __future__ import annotations

import re
import tomllib
from datetime import date, datetime, time
from pathlib import Path
from typing import Annotated

from pydantic import BeforeValidator, ValidationError
from pydantic_core import PydanticCustomError

from .i18n import os_error_key, t

__all__ = ["ConfigError", "Day", "read_toml", "refused", "validation_problems"]


class ConfigError(Exception):
    """A file that cannot be used (exit code 2): ``key`` names the catalogue message (with its
    ``params``), ``problems`` the (field, key, params) of each field refused."""

    def __init__(self, path: Path | str | None, key: str, problems=(), **params):
        self.path, self.key, self.params, self.problems = path, key, params, list(problems)
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        text = t(self.key, lang, **self.params)
        if self.problems:
            text += " (" + "; ".join(f"{field}: {t(key, lang, **params)}" if field else t(key, lang, **params)
                                     for field, key, params in self.problems) + ")"
        return text if self.path is None else f"{self.path}: {text}"


def read_toml(path: Path, error: type[ConfigError]) -> dict:
    """A TOML file's tables, or ``error`` saying why the file cannot be read as one. A byte
    order mark (which Windows editors write at the start of UTF-8 files) is not part of the
    text."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise error(path, "config.not_found") from None
    except OSError as exc:
        key, params = os_error_key(exc)  # said in the language of the command, not the system's
        raise error(path, "config.unreadable", problems=[(None, key, params)]) from None
    except UnicodeDecodeError:
        raise error(path, "config.not_utf8") from None
    except tomllib.TOMLDecodeError as exc:
        # (Python 3.11's parser gives its position only inside its English message)
        at = re.search(r"at line (\d+), column (\d+)", str(exc))
        if at:
            raise error(path, "config.bad_toml_at", line=at[1], column=at[2]) from None
        raise error(path, "config.bad_toml") from None
    except RecursionError:  # (tomllib descends one Python call per level of nesting)
        raise error(path, "config.too_deep") from None


# pydantic's error types, by the catalogue message that says what the field should hold.
_KINDS = {
    "missing": "config.missing", "extra_forbidden": "config.unknown_field",
    "decimal_parsing": "config.decimal", "decimal_type": "config.decimal", "decimal_max_places": "config.places",
    "decimal_max_digits": "config.decimal", "decimal_whole_digits": "config.decimal",
    "int_parsing": "config.whole", "int_type": "config.whole", "int_from_float": "config.whole",
    "bool_parsing": "config.yes_no", "bool_type": "config.yes_no",
    "date_parsing": "config.date", "date_type": "config.date", "date_from_datetime_parsing": "config.date",
    "date_from_datetime_inexact": "config.date",
    "string_type": "config.text", "string_too_short": "config.empty", "too_short": "config.too_few",
    "too_long": "config.too_many",
    "tuple_type": "config.list", "list_type": "config.list", "dict_type": "config.table", "model_type": "config.table",
    "model_attributes_type": "config.table",
    "greater_than_equal": "config.at_least", "greater_than": "config.above",
    "less_than_equal": "config.at_most", "less_than": "config.below",
    "literal_error": "config.choice", "enum": "config.choice",
}


def refused(key: str, **params) -> PydanticCustomError:
    """What a validator of ours raises: its error type is the catalogue key, ``params`` its
    values."""
    return PydanticCustomError(key, key, params)


_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _a_day(value):
    """A day is a TOML date (``2026-11-01``) or that date as text. pydantic's lax mode read a
    number as seconds since 1970 (``0`` was 1970-01-01, any multiple of 86,400 a day after it,
    also as text: ``"0"``), and a date-time at midnight as its day, whatever its zone
    (``2026-11-01T00:00:00Z`` is still 31 October in Lima)."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, str) and _ISO_DAY.fullmatch(value):
        return value
    raise refused("config.date")


Day = Annotated[date, BeforeValidator(_a_day)]


def validation_problems(exc: ValidationError) -> list[tuple[str, str, dict]]:
    """(field, catalogue key, params) of each error of a validation."""
    out = []
    for error in exc.errors(include_url=False):
        kind, value = error["type"], error.get("input")
        key = kind if kind.startswith("config.") else _KINDS.get(kind, "config.invalid")
        params = {name: str(v) for name, v in (error.get("ctx") or {}).items()}
        if "expected" in params:  # ("'a', 'b' or 'c'": pydantic's English list)
            params["expected"] = params["expected"].replace(" or ", ", ")
        if isinstance(value, bool):  # (as TOML writes it)
            value = "true" if value else "false"
        elif isinstance(value, (date, time)):
            value = value.isoformat()
        params["value"] = value if isinstance(value, (str, int, float)) else str(value)[:80]
        out.append((".".join(map(str, error["loc"])), key, params))
    return out
