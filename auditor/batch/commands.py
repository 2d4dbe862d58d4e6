"""The ``batch``, ``history`` and ``diff`` commands: thin wrappers over auditor.batch.

Exit codes of ``batch`` (for cron and systemd): 0 nothing new, 1 new findings (not waived),
2 error, 3 partial (some files could not be audited; listed on stderr with the reason).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]

DEFAULT_DB = Path("reports/audit.db")


def _cli():
    from .. import cli

    return cli


def batch(
    paths: Annotated[list[Path], typer.Argument(help="cli.help.batch.paths", metavar="cli.help.audit.paths_metavar")],
    out: Annotated[Path, typer.Option(help="cli.help.batch.out")] = Path("reports"),
    db: Annotated[Path | None, typer.Option(help="cli.help.batch.db")] = None,
    workers: Annotated[int, typer.Option(help="cli.help.batch.workers")] = 1,
    scheduler: Annotated[str | None, typer.Option(help="cli.help.batch.scheduler")] = None,
    profile: Annotated[list[Path] | None, typer.Option(help="cli.help.profile")] = None,
    waivers: Annotated[Path | None, typer.Option(help="cli.help.batch.waivers")] = None,
    lang: Annotated[str, typer.Option(help="cli.help.report_lang")] = "es",
) -> None:
    from ..i18n import os_error, t
    from .runner import BatchError, BatchOptions, run_batch

    cli = _cli()
    lang = cli._check_lang(lang)
    cli._verify(lang)
    opts = BatchOptions(paths=list(paths), out=out, db=db, workers=workers, scheduler=scheduler,
                        profiles=list(profile or []), waivers=waivers, lang=lang)
    try:
        outcome = run_batch(opts, say=cli._say)
    except BatchError as exc:
        cli._fail(str(exc))
    except OSError as exc:
        cli._fail(t("cli.cannot_write", lang, path=exc.filename or out, error=os_error(exc, lang)))
    except KeyboardInterrupt:  # Ctrl-C: the run's transaction was rolled back
        cli._say("auditor: " + t("batch.interrupted", lang))
        raise typer.Exit(130) from None
    for path, reason in outcome.failed:
        cli._say(t("batch.failed_file", lang, path=path, reason=reason))
    cli._say(t("batch.summary", lang, run=outcome.run_id, audited=len(outcome.audited), new=outcome.new,
               open=outcome.open, resolved=outcome.resolved, waived=outcome.waived))
    cli._say(t("batch.report", lang, path=outcome.report_dir))
    cli._say(t("batch.index", lang, path=outcome.index))
    raise typer.Exit(outcome.exit_code)


def _ledger(db: Path, lang: str):
    from ..i18n import t
    from .ledger import Ledger, LedgerError

    if not db.exists():
        _cli()._fail(t("batch.ledger_error", lang, error=t("batch.ledger_missing", lang, path=db)))
    try:
        return Ledger(db)
    except LedgerError as exc:
        _cli()._fail(t("batch.ledger_error", lang, error=exc.text(lang)))


def history(
    db: Annotated[Path, typer.Option(help="cli.help.db")] = DEFAULT_DB,
    lang: Annotated[str, typer.Option(help="cli.help.lang")] = "es",
) -> None:
    from ..i18n import t

    lang = _cli()._check_lang(lang)
    with _ledger(db, lang) as ledger:
        runs = ledger.runs()
    if not runs:
        _cli()._say(t("batch.no_runs", lang))
        return
    from .report import in_lima

    lines = [t("batch.history_header", lang)]
    for r in runs:  # its start in Lima time, as the runs index and every report give it (the ledger keeps UTC)
        lines.append(f"{r['run_id']:<10} {in_lima(r['started_at']):<26} {r['files_seen']:<7} {r['files_audited']:<10} "
                     f"{r['files_failed']:<9} {r['new']:<7} {r['open']:<9} {r['resolved']:<10} "
                     f"{r['waived']:<12} {r['exit_code']}")
    typer.echo("\n".join(lines))


def diff(
    run_a: Annotated[int, typer.Argument(help="cli.help.diff.run_a", metavar="cli.help.diff.run_a_metavar")],
    run_b: Annotated[int, typer.Argument(help="cli.help.diff.run_b", metavar="cli.help.diff.run_b_metavar")],
    db: Annotated[Path, typer.Option(help="cli.help.db")] = DEFAULT_DB,
    lang: Annotated[str, typer.Option(help="cli.help.lang")] = "es",
) -> None:
    from ..i18n import t
    from .history import diff_runs

    lang = _cli()._check_lang(lang)
    with _ledger(db, lang) as ledger:
        for run in (run_a, run_b):
            if ledger.run(run) is None:
                _cli()._fail(t("batch.unknown_run", lang, run=run))
        d = diff_runs(ledger, run_a, run_b, lang)
    lines = [t("batch.diff_counts", lang, a=run_a, b=run_b, new=len(d["new"]), resolved=len(d["resolved"]),
               unchanged=len(d["unchanged"]))]
    for key, label in (("new", "batch.diff_new"), ("resolved", "batch.diff_resolved")):
        if d[key]:
            lines += ["", t(label, lang) + ":"]
            lines += [f"  {f['code']:<16} {f['table_id']:<8} {f['round_id']:<22} {f['seat'] if f['seat'] is not None else '-':<3} "
                      f"{f['message']}" for f in d[key]]
    typer.echo("\n".join(lines))


def register(app: typer.Typer) -> None:
    from ..cli_text import Command

    for name, command in (("batch", batch), ("history", history), ("diff", diff)):
        app.command(name, cls=Command, help=f"cli.help.{name}.about")(command)
