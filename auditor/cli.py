"""The ``auditor`` command line: thin commands over the engine and the reports.

Reports go to files and catalogues to stdout; every diagnostic goes to stderr. A user error
(unreadable input, broken profile or spec, a bad value of an option) is a one-line message and
exit code 2, never a traceback; a usage error (an unknown option, a missing argument) is that
message after the usage line (``cli_text``). ``audit`` exits 1 when a finding reaches
``--fail-on``, else 0. The commands' help texts are keys of the message catalogue.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
import textwrap
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Annotated, Optional, NoReturn

import typer

from .cli_text import Command, Group, env_lang
from .i18n import LANGS, os_error, t
from .profiles import ProfileError
from .specs import SEVERITIES, SpecError

__all__ = ["app", "main"]

# Help texts are keys of the message catalogue, put into words in the command line's language
# (see cli_text).
app = typer.Typer(cls=Group, add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="cli.help.app")

FORMATS = ("html", "json", "csv", "sarif", "junit")
FAIL_ON = (*SEVERITIES, "none")
REPORT_FILES = {"html": "audit-report.html", "json": "audit-report.json", "csv": "audit-findings.csv",
                "sarif": "audit-report.sarif", "junit": "audit-junit.xml"}
RULE_FORMATS = ("text", "markdown")


def main() -> NoReturn:
    """The ``auditor`` command. When it is done and its output is flushed, the process ends
    at once: the interpreter's orderly teardown would spend about 0.2 s unloading numba's
    compiled code, after every report is written and every file closed."""
    try:
        app()
        code = 0
    except SystemExit as exc:
        code = exc.code
    if code is not None and not isinstance(code, int):  # sys.exit("message")
        print(code, file=sys.stderr)
        code = 1
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


# --- helpers ------------------------------------------------------------------------------

@contextmanager
def _start_up_frozen():
    """The objects made before the audit (modules, specs, profiles: a few hundred thousand)
    set aside from the garbage collector while it runs: each full collection of the audit's
    own objects would walk them all again, for nothing (0.2-0.4 s of a 1M-round audit). The
    audit makes its objects in bulk (the text of findings): collections come every 10,000
    new objects, not every 700 (a third of the collections, 0.1 s less). The collector is on
    while the audit runs, also when start-up had it off (``auditor.__main__``)."""
    thresholds, enabled = gc.get_threshold(), gc.isenabled()
    gc.freeze()
    gc.set_threshold(10_000, *thresholds[1:])
    gc.enable()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        if not enabled:
            gc.disable()


def _say(message: str) -> None:
    typer.echo(message, err=True)


def _fail(message: str) -> NoReturn:
    _say(f"auditor: {message}")
    raise typer.Exit(2)


def _check_lang(lang: str) -> str:
    if lang not in LANGS:
        _fail(t("cli.bad_lang", "es", lang=lang) + " / " + t("cli.bad_lang", "en", lang=lang))
    return lang


def _check_game(game: str | None, lang: str) -> str | None:
    from .registry import GAMES

    if game is not None and game not in GAMES:
        _fail(t("cli.bad_game", lang, game=game, games=", ".join(sorted(GAMES))))
    return game


def _verify(lang: str) -> None:
    from .registry import verify

    try:
        verify()
    except SpecError as exc:
        _fail(t("cli.spec_error", lang, error=exc.text(lang)))


def _formats(value: str, lang: str) -> list[str]:
    items: list[str] = []
    for item in value.split(","):
        item = item.strip().lower()
        if item not in FORMATS:
            _fail(t("cli.bad_format", lang, fmt=item, allowed=", ".join(FORMATS)))
        if item not in items:
            items.append(item)
    return items


def _filters(date_from, date_to, tables, severity, lang: str):
    from .reporting.filters import ReportFilters

    if severity is not None:
        severity = severity.strip().lower()
        if severity not in SEVERITIES:
            _fail(t("cli.bad_severity", lang, value=severity, allowed=", ".join(SEVERITIES)))
    first, last = (d.date() if d else None for d in (date_from, date_to))
    if first and last and first > last:
        _fail(t("cli.bad_period", lang, first=first.isoformat(), last=last.isoformat()))
    tables = tuple(dict.fromkeys(x.strip() for x in tables or () if x.strip()))
    return ReportFilters(date_from=first, date_to=last, tables=tables, severity_min=severity)


def _filters_beside_the_audit(filters, result, lang: str) -> None:
    """A report filter that no audited round can pass (a table none is of, a period outside the
    audited one) is said: a mistyped ``--table plb-01`` shows no finding and exits 0, which a
    nightly job would read as a clean audit."""
    for table_id in filters.tables:
        if table_id not in result.tables:
            _say(t("cli.filter_no_table", lang, table=table_id))
    first, last = (day[:10] if day else None for day in result.period)  # ISO in Lima time: the day first
    if first and ((filters.date_from and filters.date_from.isoformat() > last)
                  or (filters.date_to and filters.date_to.isoformat() < first)):
        _say(t("cli.filter_no_period", lang, first=first, last=last))


def _delimiter(value: str | None, lang: str) -> str | None:
    """``--delimiter`` as the separator it names, refused unless it is one a log may be split
    by: a letter, a digit or a word would split no header, and the audit would only say that
    the game is unknown."""
    from .logs.sources import DELIMITERS, _shown, delimiter_option

    chosen = delimiter_option(value)
    if chosen is not None and chosen not in DELIMITERS:
        _fail(t("cli.bad_delimiter", lang, value=value, allowed=" ".join(map(_shown, DELIMITERS))))
    return chosen


def _encoding(value: str | None, lang: str) -> str | None:
    """``--encoding``, refused before any file is read unless it names a text encoding (it was
    said of each file, with empty reports written)."""
    from .logs.sources import text_codec

    if value is not None and text_codec(value) is None:
        _fail(t("cli.bad_encoding", lang, value=value))
    return value


@contextmanager
def _progress(total: int, lang: str):
    """A progress callback for the engine: a rich bar on stderr when stderr is a terminal,
    nothing otherwise (pipes, CI, tests)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(t("cli.progress", lang), total=max(total, 1))
        seen = 0

        def step(path: str) -> None:
            nonlocal seen
            seen += 1
            # (a file's name is no markup: "[red]mesa.csv" is shown as it is)
            bar.update(task, completed=seen - 1, description=f"{t('cli.progress', lang)} {escape(Path(path).name)}")

        yield step


@app.callback()
def _collector(ctx: typer.Context, lang: Annotated[Optional[str], typer.Option(help="cli.help.lang")] = None) -> None:
    # The garbage collector, off during start-up (see auditor.__main__), comes back on before
    # any command but ``audit``, whose start-up goes on with the loading of the checks and
    # ends in ``_start_up_frozen``.
    if ctx.invoked_subcommand != "audit":
        gc.enable()
    # The language of every command, unless its own --lang says another: this one
    # (``auditor --lang en audit …``), else AUDITOR_LANG's, else Spanish (as cli_text.help_lang).
    lang = _check_lang(lang) if lang is not None else env_lang()
    if lang is not None:
        ctx.default_map = {name: {"lang": lang} for name in ctx.command.commands}


# --- audit --------------------------------------------------------------------------------

@app.command(cls=Command, help="cli.help.audit.about")
def audit(
    paths: Annotated[list[Path], typer.Argument(help="cli.help.audit.paths", metavar="cli.help.audit.paths_metavar")],
    game: Annotated[str | None, typer.Option(help="cli.help.audit.game")] = None,
    profile: Annotated[list[Path] | None, typer.Option(help="cli.help.profile")] = None,
    out: Annotated[Path, typer.Option(help="cli.help.audit.out")] = Path("reports"),
    format: Annotated[str, typer.Option("--format", help="cli.help.audit.format")] = "html,json",
    lang: Annotated[str, typer.Option(help="cli.help.report_lang")] = "es",
    fail_on: Annotated[str, typer.Option(help="cli.help.audit.fail_on")] = "low",
    date_from: Annotated[Optional[datetime], typer.Option("--from", formats=["%Y-%m-%d"],
                                                          help="cli.help.audit.from")] = None,
    date_to: Annotated[Optional[datetime], typer.Option("--to", formats=["%Y-%m-%d"], help="cli.help.audit.to")] = None,
    table: Annotated[Optional[list[str]], typer.Option("--table", help="cli.help.audit.table")] = None,
    severity: Annotated[Optional[str], typer.Option("--severity", help="cli.help.audit.severity")] = None,
    operator: Annotated[Optional[str], typer.Option(help="cli.help.audit.operator")] = None,
    hall: Annotated[Optional[str], typer.Option(help="cli.help.audit.hall")] = None,
    encoding: Annotated[Optional[str], typer.Option(help="cli.help.audit.encoding")] = None,
    delimiter: Annotated[Optional[str], typer.Option(help="cli.help.audit.delimiter")] = None,
) -> None:
    lang = _check_lang(lang)
    game = _check_game(game, lang)
    formats = _formats(format, lang)
    fail_on = fail_on.strip().lower()
    if fail_on not in FAIL_ON:
        _fail(t("cli.bad_fail_on", lang, value=fail_on, allowed=", ".join(FAIL_ON)))
    filters = _filters(date_from, date_to, table, severity, lang)
    delimiter = _delimiter(delimiter, lang)
    encoding = _encoding(encoding, lang)
    _verify(lang)

    from . import engine, reporting
    from .profiles import load_profiles

    try:
        profiles = load_profiles(profile or [])
    except ProfileError as exc:
        _fail(t("cli.profile_error", lang, error=exc.text(lang)))

    files = engine.discover(paths, (out,))
    with _start_up_frozen():
        try:
            with _progress(len(files), lang) as step:
                result = engine.audit(paths, game=game, profiles=profiles, lang=lang, progress=step,
                                      encoding=encoding, delimiter=delimiter, exclude=(out,))
        except SpecError as exc:
            _fail(t("cli.spec_error", lang, error=exc.text(lang)))

        report = reporting.build_report(result, filters=filters, operator=operator, hall=hall)
        written: list[Path] = []
        try:
            out.mkdir(parents=True, exist_ok=True)
            for fmt in formats:  # each writer is write_<format>, loaded only when asked for
                written.append(getattr(reporting, f"write_{fmt}")(result, out / REPORT_FILES[fmt], report=report))
        except OSError as exc:
            _fail(t("cli.cannot_write", lang, path=exc.filename or out, error=os_error(exc, lang)))

    summary = report["summary"]
    failed = reporting.failed_inputs(report)
    for item in failed:
        _say(t("cli.input_error", lang, path=item["path"], error=item["error"]))
    if not profile:  # the built-in standard values may not be what a table posts (its pay table, its limits)
        _say(t("cli.no_profile", lang))
    _say(t("cli.summary", lang, rounds=summary["rounds_audited"], findings=summary["findings"],
           rejected=summary["records_rejected"]))
    if summary["no_activity"]:
        _say(t("cli.no_activity", lang))
    if filters.active:
        _say(t("cli.filtered", lang, shown=summary["findings"], total=report["filters"]["findings_before_filters"]))
        _filters_beside_the_audit(filters, result, lang)
    for path in written:
        _say(t("cli.written", lang, path=path))

    if failed:
        raise typer.Exit(2)
    if fail_on != "none":
        threshold = SEVERITIES.index(fail_on)
        rank = {s: i for i, s in enumerate(SEVERITIES)}
        if any(rank.get(f["severity"], len(SEVERITIES)) >= threshold for f in report["findings"]):
            raise typer.Exit(1)


# --- rules and explain --------------------------------------------------------------------

def _source_label(source: str, lang: str) -> str:
    return t(f"report.source_name.{source}", lang)


def _severity_label(severity: str, lang: str) -> str:
    return t(f"report.severity_name.{severity}", lang)


def _md(text: str) -> str:
    """Text safe in a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown_game(game: str, spec, lang: str) -> list[str]:
    """One game's part of the public catalogue: a summary table, then every rule in full."""
    L = lambda key: t(f"report.{key}", lang)  # noqa: E731
    lines = [f"## {spec.directive}", "", f"{spec.citation} · `{game}` · {L('spec_version')} {spec.version}", "",
             f"| {L('code')} | {L('article')} | {L('severity')} | {L('grounding')} | {L('rule_title')} |",
             "| --- | --- | --- | --- | --- |"]
    for r in spec.rule:
        lines.append(f"| `{r.code}` | {_md(r.article or '—')} | {_md(_severity_label(r.severity, lang))} | "
                     f"{_md(_source_label(r.source, lang))} | {_md(r.title_in(lang))} |")
    lines.append("")
    for r in spec.rule:
        lines += [f"### {r.code} — {r.title_in(lang)}", "",
                  f"- {L('article')}: {r.article or '—'}",
                  f"- {L('severity')}: {_severity_label(r.severity, lang)} (`{r.severity}`)",
                  f"- {L('grounding')}: {_source_label(r.source, lang)} (`{r.source}`)",
                  f"- {L('params')}: {', '.join(f'`{p}`' for p in r.params) or '—'}"]
        if r.quote:
            lines += ["", f"> «{r.quote}»"]
        lines.append("")
    return lines


@app.command(cls=Command, help="cli.help.rules.about")
def rules(
    game: Annotated[str | None, typer.Option(help="cli.help.rules.game")] = None,
    lang: Annotated[str, typer.Option(help="cli.help.lang")] = "es",
    format: Annotated[str, typer.Option("--format", help="cli.help.rules.format")] = "text",
) -> None:
    lang = _check_lang(lang)
    game = _check_game(game, lang)
    fmt = format.strip().lower()
    if fmt not in RULE_FORMATS:
        _fail(t("cli.bad_format", lang, fmt=fmt, allowed=", ".join(RULE_FORMATS)))
    _verify(lang)
    from .registry import GAMES, plugin

    lines: list[str] = []
    if fmt == "markdown":
        lines += [f"# {t('report.catalogue_title', lang)}", "", t("report.catalogue_intro", lang), ""]
    for g in sorted(GAMES) if game is None else [game]:
        spec = plugin(g).spec
        if fmt == "markdown":
            lines += _markdown_game(g, spec, lang)
        else:
            lines += [f"{spec.directive} — {spec.citation} ({g})"]
            width = max((len(r.code) for r in spec.rule), default=0)
            awidth = max((len(r.article or "—") for r in spec.rule), default=0)
            for r in spec.rule:
                lines.append(f"  {r.code:<{width}}  {r.article or '—':<{awidth}}  {r.severity:<8}  "
                             f"{r.source:<8}  {r.title_in(lang)}")
            lines.append("")
    typer.echo("\n".join(lines).rstrip("\n"))


@app.command(cls=Command, help="cli.help.explain.about")
def explain(
    code: Annotated[str, typer.Argument(help="cli.help.explain.code", metavar="cli.help.explain.code_metavar")],
    lang: Annotated[str, typer.Option(help="cli.help.lang")] = "es",
) -> None:
    lang = _check_lang(lang)
    _verify(lang)
    from .registry import GAMES, plugin

    wanted = code.strip().upper()
    for g in sorted(GAMES):
        spec = plugin(g).spec
        if wanted not in spec.codes:
            continue
        r = spec.get(wanted)
        lines = [
            f"{r.code} — {r.title_in(lang)}",
            "",
            f"{t('report.directive', lang)}: {spec.directive} ({spec.citation})",
            f"{t('report.game', lang)}: {g}",
            f"{t('report.article', lang)}: {r.article or '—'}",
            f"{t('report.grounding', lang)}: {_source_label(r.source, lang)} ({r.source})",
            f"{t('report.severity', lang)}: {_severity_label(r.severity, lang)} ({r.severity})",
            f"{t('report.params', lang)}: {', '.join(r.params) or '—'}",
        ]
        if r.quote:
            lines += ["", f"{t('report.quote', lang)}:", f"  «{r.quote}»"]
        lines += ["", f"{t('report.check', lang)}:",
                  *textwrap.wrap(r.check_in(lang), 92, initial_indent="  ", subsequent_indent="  ",
                                 break_on_hyphens=False, break_long_words=False)]  # (rule codes whole)
        typer.echo("\n".join(lines))
        return
    _fail(t("cli.unknown_code", lang, code=code))


# --- simulate -----------------------------------------------------------------------------

@app.command(cls=Command, help="cli.help.simulate.about")
def simulate(
    game: Annotated[str, typer.Argument(help="cli.help.simulate.game", metavar="cli.help.simulate.game_metavar")],
    out: Annotated[Path, typer.Option(help="cli.help.simulate.out")],
    rounds: Annotated[int, typer.Option(min=1, help="cli.help.simulate.rounds")] = 1000,
    seed: Annotated[int, typer.Option(help="cli.help.simulate.seed")] = 0,
    faults: Annotated[float, typer.Option(min=0.0, max=1.0, help="cli.help.simulate.faults")] = 0.0,
    start: Annotated[Optional[datetime], typer.Option(formats=["%Y-%m-%d"], help="cli.help.simulate.start")] = None,
    continue_from: Annotated[Optional[Path], typer.Option(help="cli.help.simulate.continue_from")] = None,
    lang: Annotated[str, typer.Option(help="cli.help.lang")] = "es",
) -> None:
    lang = _check_lang(lang)
    _check_game(game, lang)
    from . import simulate as simulator

    if game not in simulator.SIMULATORS:
        _fail(t("cli.simulate_unavailable", lang, error=game))
    try:
        paths = simulator.run(game, rounds=rounds, seed=seed, faults=faults, out=Path(out),
                              start=start.date() if start else None, continue_from=continue_from)
    except simulator.SimulateError as exc:
        _fail(exc.text(lang))
    except OSError as exc:  # (the system's reason, in the catalogue's words)
        _fail(t("cli.simulate_os_error", lang, path=exc.filename or out, error=os_error(exc, lang)))
    except ValueError as exc:  # (a library's, for which the catalogue has no words)
        _fail(t("cli.simulate_failed", lang, error=exc))
    for path in paths:
        _say(t("cli.written", lang, path=path))


# --- batch, history, diff (scheduled audits; the logic is in auditor/batch) ---------------

from .batch.commands import register as _register_batch  # noqa: E402

_register_batch(app)
