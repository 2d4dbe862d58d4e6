"""The command line's own words (help pages and usage errors) in the user's language.

The commands' and options' help texts are keys of the message catalogue (``cli.help.…``),
put into words when the command line is parsed, in the language of its ``--lang`` (else of
the ``AUDITOR_LANG`` variable, else Spanish): ``auditor audit --help`` is in Spanish and
``auditor audit --help --lang en`` in English, as the reports are. Typer's and Click's own
words (the headings of a help page, ``--help``'s line) follow; a usage error (an unknown
option, a missing argument, a value of the wrong kind) is one message of the catalogue, with
the usage line and where to find help, exit 2, as every other error of the command line.
"""

from __future__ import annotations

import os
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, get_args, get_origin

import typer
import typer.core
from typer.core import TyperCommand, TyperGroup

from .i18n import LANGS, catalogue, t

__all__ = ["Command", "Group", "env_lang", "help_lang"]

# typer.rich_utils' words for a help page, each with its catalogue key.
_RICH_WORDS = {"ARGUMENTS_PANEL_TITLE": "cli.words.arguments", "OPTIONS_PANEL_TITLE": "cli.words.options",
               "COMMANDS_PANEL_TITLE": "cli.words.commands", "DEFAULT_STRING": "cli.words.default",
               "REQUIRED_LONG_STRING": "cli.words.required", "ENVVAR_STRING": "cli.words.envvar"}

# Typer's words for a help page without rich (typer.core's gettext calls), each with its key.
_PLAIN_WORDS = {"Arguments": "cli.words.arguments", "Options": "cli.words.options",
                "Commands": "cli.words.commands", "required": "cli.words.plain_required",
                "default: {default}": "cli.words.plain_default", "env var: {var}": "cli.words.plain_envvar"}

_lang = "es"  # of the command line being parsed (``Group.main``)


def env_lang() -> str | None:
    """``AUDITOR_LANG``'s language, where it is one the tool speaks (else None: ignored)."""
    value = os.environ.get("AUDITOR_LANG", "").strip().lower()
    return value if value in LANGS else None


def help_lang(args: list[str]) -> str:
    """The language of a command line: its last ``--lang`` (the command's own comes after
    the one given before the command's name), else ``AUDITOR_LANG``, else Spanish. A
    language the tool does not speak is passed over here (the command says it is wrong).
    Words after ``--`` are no options."""
    args = args[:args.index("--")] if "--" in args else args
    given = [arg.partition("=")[2] if arg.startswith("--lang=") else args[i + 1]
             for i, arg in enumerate(args) if arg.startswith("--lang=") or (arg == "--lang" and i + 1 < len(args))]
    for value in [*reversed(given), env_lang()]:
        if value in LANGS:
            return value
    return "es"


def _words(obj, attr: str) -> None:
    """``obj.attr``, where it is a catalogue key, put into words. The key is kept beside it,
    so that the same command put into words again (in another language) finds it."""
    key = getattr(obj, f"_{attr}_key", None) or getattr(obj, attr, None)
    if key in catalogue():
        setattr(obj, f"_{attr}_key", key)
        setattr(obj, attr, t(key, _lang))


def _put_into_words(command) -> None:
    for attr in ("help", "short_help"):
        _words(command, attr)
    for param in command.params:
        for attr in ("help", "metavar"):
            _words(param, attr)
        _kind_in_words(param)
    for sub in getattr(command, "commands", {}).values():
        _put_into_words(sub)


class _Words:
    """What the commands and the group share: the usage line and ``--help`` in words."""

    options_metavar: str

    def format_usage(self, ctx, formatter) -> None:
        formatter.write_usage(ctx.command_path, " ".join(self.collect_usage_pieces(ctx)),
                              prefix=t("cli.words.usage", _lang) + " ")

    def collect_usage_pieces(self, ctx) -> list[str]:
        self.options_metavar = t("cli.words.options_metavar", _lang)
        if hasattr(self, "subcommand_metavar"):
            self.subcommand_metavar = t("cli.words.command_metavar", _lang)
        return super().collect_usage_pieces(ctx)

    def format_help(self, ctx, formatter) -> None:
        # (typer's words for a help page come with rich, imported only for a help page: 0.1 s)
        import typer.rich_utils as rich_utils

        for name, key in _RICH_WORDS.items():
            if hasattr(rich_utils, name):
                setattr(rich_utils, name, t(key, _lang))
        typer.core._ = _plain_words
        super().format_help(ctx, formatter)

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        if option is not None:
            option.help = t("cli.words.help", _lang)
            _kind_in_words(option)
        return option


def _plain_words(text: str) -> str:
    return t(_PLAIN_WORDS[text], _lang) if text in _PLAIN_WORDS else text


def _kind_in_words(param) -> None:
    """Where typer shows the kind of value a parameter takes (0.29 on: ``<list[Path]>``,
    ``<%Y-%m-%d>``, ``<bool>`` beside ``--help``), it is said in words; nothing for a flag,
    which takes no value, nor for an argument, whose name (RUTAS) says it. A kind this module
    does not know keeps typer's label."""
    shown = getattr(type(param), "display_type", None)
    if shown is None:
        return
    kind = _kind(param)
    if (kind == "bool" or getattr(param, "is_flag", False) or getattr(param, "count", False)
            or getattr(param, "param_type_name", "") == "argument"):
        param.display_type = lambda ctx: None
    elif kind is None:
        param.display_type = lambda ctx: shown(param, ctx)
    else:
        param.display_type = lambda ctx: t(f"cli.words.type_{kind}", _lang)


class Command(_Words, TyperCommand):
    pass


class Group(_Words, TyperGroup):
    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra) -> Any:
        """Parse and run in the language of ``args``. A usage error is said in it (exit 2)."""
        global _lang
        given = list(sys.argv[1:] if args is None else args)
        _lang = help_lang(given)
        _put_into_words(self)
        try:  # (``args`` as given: None lets typer expand wildcards on Windows)
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.Abort:
            if not standalone_mode:
                raise
            sys.exit(1)
        except Exception as exc:
            if not (hasattr(exc, "exit_code") and hasattr(exc, "format_message")) or not standalone_mode:
                raise  # not an error of Click's (its exceptions are those of typer's own copy of it)
            if type(exc).__name__ == "NoArgsIsHelpError":  # the help page (rich has shown it already)
                if exc.format_message().strip():
                    typer.echo(exc.format_message(), err=True)
            else:
                command = next((a for a in given if a in self.commands), "")
                _usage_error(exc, given, f"auditor {command}".strip())
            sys.exit(exc.exit_code)
        if standalone_mode:
            sys.exit(code if isinstance(code, int) else 0)
        return code


def _usage_error(exc, args: list[str], command: str) -> None:
    """The usage line (where the error knows its command), where the help is (``command``
    where it does not), and the error in words."""
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        typer.echo(ctx.get_usage(), err=True)
    typer.echo(t("cli.usage.try_help", _lang, command=ctx.command_path if ctx is not None else command), err=True)
    try:
        message = _message(exc, args)
    except Exception:  # words this module could not find must not become a traceback
        message = t("cli.usage.other", _lang, error=exc.format_message())
    typer.echo(f"auditor: {message}", err=True)


def _name(param) -> str:
    """An option by its long name, an argument by its name in the usage line."""
    if getattr(param, "param_type_name", "") == "option" and param.opts:
        return max(param.opts, key=len)
    return (getattr(param, "metavar", None) or getattr(param, "name", None) or "?").upper()


def _given(param, args: list[str]) -> str | None:
    """The text a user gave for ``param`` on the command line (the last one), if it shows."""
    found = None
    for i, arg in enumerate(args):
        for opt in getattr(param, "opts", None) or []:
            if arg == opt and i + 1 < len(args):
                found = args[i + 1]
            elif arg.startswith(opt + "="):
                found = arg[len(opt) + 1:]
    return found


def _kind(param) -> str | None:
    """What kind of value ``param`` takes: int, number, date, bool, path or text; None where
    this module does not know. Typer's own copy of Click (0.2x) keeps the Python type on the
    parameter; Click keeps a type object."""
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    while get_origin(annotation) is list:  # a repeatable option or an argument of several values
        annotation = get_args(annotation)[0]
    kind = {int: "int", float: "number", datetime: "date", bool: "bool", str: "text"}.get(annotation)
    if kind is None and isinstance(annotation, type) and issubclass(annotation, Path):
        kind = "path"
    if kind is None:
        kind = {"IntParamType": "int", "IntRange": "int", "FloatParamType": "number", "FloatRange": "number",
                "DateTime": "date", "BoolParamType": "bool", "StringParamType": "text",
                "Path": "path"}.get(type(getattr(param, "type", None)).__name__)
    return kind


def _expected(param) -> str:
    """What kind of value ``param`` takes, in words ("" for text or a path)."""
    kind = _kind(param)
    click_type = getattr(param, "type", None)
    low, high = (getattr(param, bound, None) if getattr(param, bound, None) is not None
                 else getattr(click_type, bound, None) for bound in ("min", "max"))
    if kind not in ("int", "number", "date", "bool"):
        return ""
    what = t(f"cli.usage.kind_{kind}", _lang)
    if low is not None and high is not None:
        return t("cli.usage.expected_between", _lang, kind=what, low=low, high=high)
    if low is not None or high is not None:
        return t("cli.usage.expected_from" if low is not None else "cli.usage.expected_to", _lang, kind=what,
                 bound=low if low is not None else high)
    return t("cli.usage.expected", _lang, kind=what)


def _message(exc, args: list[str]) -> str:
    """The usage error in words: by its kind, with what the error holds; a kind this module
    does not know keeps Click's English text after the catalogue's words."""
    kind, param = type(exc).__name__, getattr(exc, "param", None)
    if kind == "NoSuchOption":
        message = t("cli.usage.no_such_option", _lang, option=exc.option_name)
        if exc.possibilities:
            message += " " + t("cli.usage.did_you_mean", _lang, options=", ".join(sorted(exc.possibilities)))
        return message
    if kind == "MissingParameter":
        key = "cli.usage.missing_argument" if getattr(param, "param_type_name", "") == "argument" else "cli.usage.missing_option"
        return t(key, _lang, name=_name(param))
    if kind == "BadParameter" and param is not None:
        given = _given(param, args)
        if given is None:  # an argument's: Click's message quotes it
            found = re.match(r"'(.*?)' is not", exc.format_message().split(": ", 1)[-1])
            given = found[1] if found else None
        expected = _expected(param)
        return t("cli.usage.bad_value", _lang, name=_name(param)) + ("" if given is None else f": «{given}»") + (
            f" ({expected})" if expected else "")
    if kind == "BadOptionUsage" and re.search(r"requires an argument", exc.message):
        return t("cli.usage.needs_value", _lang, option=exc.option_name)
    text = exc.format_message()
    found = re.match(r"No such command '(.*?)'", text)
    if found:
        return t("cli.usage.no_such_command", _lang, name=found[1])
    found = re.match(r"Got unexpected extra argument(?:s|\(s\))? \((.*)\)", text)
    if found:
        return t("cli.usage.extra_arguments", _lang, given=found[1])
    if text.startswith("Missing command"):
        return t("cli.usage.missing_command", _lang)
    return t("cli.usage.other", _lang, error=text)
