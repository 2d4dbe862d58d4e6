"""The one message catalogue: every user-facing string, in Spanish (default) and English."""

from __future__ import annotations

import errno
import tomllib
from functools import cache
from importlib import resources

__all__ = ["t", "LANGS", "catalogue", "os_error", "os_error_key"]

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


# The operating system's reasons a file cannot be read or written, in the catalogue's words:
# its own text (``strerror``) is English whatever the report's language.
_OS_ERRORS = {errno.ENOENT: "ENOENT", errno.EACCES: "EACCES", errno.EPERM: "EACCES", errno.EISDIR: "EISDIR",
              errno.ENOTDIR: "ENOTDIR", errno.EEXIST: "EEXIST", errno.ENOSPC: "ENOSPC", errno.EROFS: "EROFS",
              errno.ENAMETOOLONG: "ENAMETOOLONG", errno.ELOOP: "ELOOP", errno.EIO: "EIO"}


def os_error_key(exc: OSError) -> tuple[str, dict]:
    """The catalogue key (and its values) of why ``exc`` stopped a read or a write."""
    name = _OS_ERRORS.get(exc.errno)
    if name is not None:
        return f"os_error.{name}", {}
    return "os_error.other", {"error": exc.strerror or type(exc).__name__}


def os_error(exc: OSError, lang: str = "es") -> str:
    """Why ``exc`` stopped a read or a write, in ``lang``."""
    key, params = os_error_key(exc)
    return t(key, lang, **params)
