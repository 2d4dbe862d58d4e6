"""A run's reports (OUT/runs/<run-id>/) and the index of all runs (OUT/index.html).

The audit report of a run is written by the existing writers (``audit-report.html`` and
``audit-report.json``) from the findings of the files the run audited; each finding's
evidence gains ``batch_history`` (new, open or repeated) and, when waived, ``batch_waiver``.
``batch.json``/``batch.html`` give the run's history: new, still open, resolved, waived,
and the files that could not be audited with the reason. Every page is self-contained and
all data is escaped (Jinja autoescape).
"""

from __future__ import annotations

import json
import os
import shutil
from functools import cache
from pathlib import Path

import pandas as pd
from jinja2 import Environment, StrictUndefined

from ..i18n import t
from ..engine import LIMA
from ..reporting.html import format_datetime

__all__ = ["write_run", "write_index", "publish_index", "assemble_result", "in_lima", "MAX_ROWS"]

MAX_ROWS = 2000
STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}th{background:#f3f3f3}
.new{color:#a40000;font-weight:600}.resolved{color:#2a7a2a}.waived{color:#7a5a00}.num{text-align:right}"""

RUN_PAGE = """<!DOCTYPE html>
<html lang="{{ lang }}"><head><meta charset="utf-8"><title>{{ L.run_title }} {{ run_id }}</title>
<style>{{ style }}</style></head><body>
<h1>{{ L.run_title }} {{ run_id }}</h1>
<p><a href="../../index.html">{{ L.index_title }}</a> · <a href="audit-report.html">{{ L.audit_report }}</a>
 · <a href="batch.json">batch.json</a></p>
<table>
<tr><th>{{ L.new }}</th><td class="num">{{ counts.new }}</td></tr>
<tr><th>{{ L.open }}</th><td class="num">{{ counts.open }}</td></tr>
<tr><th>{{ L.resolved }}</th><td class="num">{{ counts.resolved }}</td></tr>
<tr><th>{{ L.repeated }}</th><td class="num">{{ counts.repeated }}</td></tr>
<tr><th>{{ L.waived }}</th><td class="num">{{ counts.waived }}</td></tr>
<tr><th>{{ L.exit_code }}</th><td class="num">{{ exit_code }}</td></tr>
</table>
{% if failed %}<h2>{{ L.failed }}</h2><table><tr><th>{{ L.file }}</th><th>{{ L.reason }}</th></tr>
{% for path, reason in failed %}<tr><td>{{ path }}</td><td>{{ reason }}</td></tr>{% endfor %}</table>{% endif %}
{% if waivers %}<h2>{{ L.waivers }}</h2><table><tr><th>Id</th><th>{{ L.code }}</th><th>{{ L.tables }}</th>
<th>{{ L.period }}</th><th>{{ L.justification }}</th><th>{{ L.approver }}</th><th>{{ L.expires }}</th><th>{{ L.state }}</th></tr>
{% for w in waivers %}<tr><td>{{ w.id }}</td><td>{{ w.code }}</td><td>{{ w.tables }}</td><td>{{ w.period }}</td>
<td>{{ w.justification }}</td><td>{{ w.approver }}</td><td>{{ w.expires }}</td><td>{{ w.state }}</td></tr>{% endfor %}</table>{% endif %}
<h2>{{ L.findings }}</h2>
{% if truncated %}<p>{{ truncated }}</p>{% endif %}
<table><tr><th>{{ L.state }}</th><th>{{ L.code }}</th><th>{{ L.table }}</th><th>{{ L.round }}</th><th>{{ L.seat }}</th>
<th>{{ L.hand }}</th><th>{{ L.started_at }}</th><th>{{ L.message }}</th><th>{{ L.waiver }}</th></tr>
{% for f in rows %}<tr><td class="{{ f.cls }}">{{ f.state }}</td><td>{{ f.code }}</td><td>{{ f.table_id }}</td>
<td>{{ f.round_id }}</td><td>{{ f.seat }}</td><td>{{ f.hand }}</td><td>{{ f.started_at }}</td><td>{{ f.message }}</td>
<td class="waived">{{ f.waiver }}</td></tr>{% endfor %}</table>
</body></html>
"""

INDEX_PAGE = """<!DOCTYPE html>
<html lang="{{ lang }}"><head><meta charset="utf-8"><title>{{ L.index_title }}</title>
<style>{{ style }}</style></head><body>
<h1>{{ L.index_title }}</h1>
<table><tr><th>{{ L.run }}</th><th>{{ L.started }}</th><th>{{ L.files_seen }}</th><th>{{ L.files_audited }}</th>
<th>{{ L.files_failed }}</th><th>{{ L.new }}</th><th>{{ L.open }}</th><th>{{ L.resolved }}</th><th>{{ L.waived }}</th>
<th>{{ L.exit_code }}</th><th>{{ L.reports }}</th></tr>
{% for r in runs %}<tr><td>{{ r.run_id }}</td><td>{{ r.started_at }}</td><td class="num">{{ r.files_seen }}</td>
<td class="num">{{ r.files_audited }}</td><td class="num">{{ r.files_failed }}</td><td class="num new">{{ r.new }}</td>
<td class="num">{{ r.open }}</td><td class="num resolved">{{ r.resolved }}</td><td class="num waived">{{ r.waived }}</td>
<td class="num">{{ r.exit_code }}</td>
<td><a href="{{ r.href }}/batch.html">{{ L.history }}</a> · <a href="{{ r.href }}/audit-report.html">{{ L.audit_report }}</a>
 · <a href="{{ r.href }}/audit-report.json">JSON</a></td></tr>{% endfor %}
</table></body></html>
"""

LABELS = ("run_title", "index_title", "audit_report", "new", "open", "resolved", "repeated", "waived", "exit_code",
          "failed", "file", "reason", "waivers", "code", "tables", "period", "justification", "approver",
          "expires", "state", "findings", "table", "round", "seat", "hand", "started_at", "message", "waiver",
          "run", "started", "files_seen", "files_audited", "files_failed", "reports", "history", "truncated",
          "waiver_active", "waiver_expired")


@cache
def _env() -> Environment:
    return Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _labels(lang: str) -> dict:
    return {k: t(f"batch.page.{k}", lang) for k in LABELS if k != "truncated"}


def assemble_result(pieces, failed_paths: set[str], failed: dict[str, str], profiles, lang: str):
    """One AuditResult for the run from its tasks: authoritative files only, sorted. Of a
    failed file not in ``failed_paths`` (read, but none of its records audited) the summary
    and rejected records are kept, with its error; of no failed file the findings. The rounds,
    hands, stakes and period are the recorded files' own (``file_totals``), not their context's."""
    from ..engine import FINDING_COLUMNS, AuditResult
    from ..findings import InputSummary, RuleOutcome

    inputs = {}
    finding_frames, reject_frames = [], []
    rules: dict[tuple[str, str], list] = {}
    games: set[str] = set()
    totals = {"rounds": 0, "hands": 0, "wagered": 0}
    firsts, lasts = [], []
    for task, res in pieces:
        for item in res["inputs"]:
            if item.path not in failed_paths:
                inputs[item.path] = item
                if item.game:
                    games.add(item.game)
        finding_frames.append(res["findings"])
        reject_frames.append(res["rejected"])
        for r in res["rules"]:
            rules.setdefault((r.game, r.code), []).append(r)
        # What the run audited and records: each recorded file's own rounds, hands and stakes
        # (not its context's, read for the rounds before it; nor a failed file's)
        for path, counted in res["file_totals"].items():
            if path in failed:
                continue
            for k in totals:
                totals[k] += int(counted[k])
            firsts.append(pd.Timestamp(counted["first"]))
            lasts.append(pd.Timestamp(counted["last"]))
    for path, error in failed.items():
        inputs[path] = inputs[path].model_copy(update={"error": error}) if path in inputs else InputSummary(
            path=path, sha256="", game=None, records_read=0, records_audited=0, records_rejected=0, error=error)
    findings = pd.concat([f for f in finding_frames if len(f)], ignore_index=True) \
        if any(len(f) for f in finding_frames) else pd.DataFrame(columns=FINDING_COLUMNS)
    findings = findings[~findings["file"].astype(str).isin(set(failed))]
    findings = findings.sort_values(["game", "table_id", "started_at", "round_id", "seat", "hand", "code"],
                                    kind="stable", na_position="first").reset_index(drop=True)
    rejected = pd.concat(reject_frames, ignore_index=True) if reject_frames else None
    if rejected is None or not len(rejected):
        rejected = pd.DataFrame({"file": pd.Series(dtype=str), "line": pd.Series(dtype="int64"),
                                 "field": pd.Series(dtype=str), "reason": pd.Series(dtype=str),
                                 "detail": pd.Series(dtype=str)})
    else:
        rejected = rejected[~rejected["file"].astype(str).isin(failed_paths)]
        rejected = rejected.sort_values(["file", "line", "field", "reason"], kind="stable").reset_index(drop=True)
    counts = findings.groupby(["game", "code"]).size().to_dict() if len(findings) else {}
    merged = []
    for (game, code), outs in rules.items():
        if game not in games:
            continue
        checked = sum(o.rounds_checked for o in outs)
        violations = int(counts.get((game, code), 0))
        if any(o.status == "error" for o in outs):
            status = "error"
        else:
            status = "failed" if violations else ("passed" if checked else "not_applicable")
        notes = sorted({o.note for o in outs if o.note})
        merged.append(RuleOutcome(**{**outs[0].model_dump(), "status": status, "rounds_checked": checked,
                                     "violations": violations, "note": "; ".join(notes)}))
    period = (min(firsts).isoformat() if firsts else None, max(lasts).isoformat() if lasts else None)
    return AuditResult(inputs=[inputs[k] for k in sorted(inputs)], rules=merged, findings=findings,
                       rejected=rejected, games=sorted(games), profiles=list(profiles), lang=lang, period=period,
                       totals=totals)


def write_run(run_dir: Path, *, run_id: int, lang: str, pieces, failed_paths, failed, state, waivers, ledger,
              profiles, exit_code: int, today) -> None:
    from ..reporting import build_report, write_html, write_json
    from .ledger import fingerprint

    result = assemble_result(pieces, failed_paths, failed, profiles, lang)
    new, repeated, waived = set(state["new"]), set(state["repeated"]), state["waived"]
    by_id = {w.id: w for w in waivers}
    if len(result.findings):
        ev = []
        for row in result.findings.to_dict("records"):
            fp = fingerprint(row["game"], row["code"], str(row["table_id"]), str(row["round_id"]),
                             row["seat"], row["hand"])
            evidence = dict(row["evidence"]) if isinstance(row["evidence"], dict) else {}
            evidence["batch_history"] = ("repeated" if fp in repeated else "new") if fp in new else "open"
            if fp in waived:
                w = by_id[waived[fp]]
                evidence["batch_waiver"] = f"{w.id}: {w.justification} ({w.approver}, {w.expires.isoformat()})"
            ev.append(evidence)
        result.findings["evidence"] = ev

    tmp = run_dir.with_name(run_dir.name + ".partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    report = build_report(result)
    write_json(result, tmp / "audit-report.json", report=report)
    write_html(result, tmp / "audit-report.html", report=report)

    history = _history(run_id, state, ledger, lang)
    today_states = {w.id: w for w in waivers}
    doc = {
        "run_id": run_id,
        "exit_code": exit_code,
        "counts": {k: len(state[k]) for k in ("new", "open", "resolved", "repeated", "waived")},
        "failed": [{"path": p, "reason": r} for p, r in sorted(failed.items())],
        "waivers": [{**w.model_dump(mode="json", by_alias=True), "active": w.active(today)}
                    for w in sorted(waivers, key=lambda w: w.id)],
        "findings": history,
    }
    (tmp / "batch.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                                    encoding="utf-8")
    L = _labels(lang)
    rows = []
    for f in history[:MAX_ROWS]:
        rows.append({**f, "cls": f["state"], "state": L[f["state"]] + (f" ({L['repeated']})" if f["repeated"] else ""),
                     "waiver": f["waiver"] or "", "seat": "" if f["seat"] is None else f["seat"],
                     "hand": "" if f["hand"] is None else f["hand"],
                     "started_at": format_datetime(f["started_at"], lang, seconds=True)})
    truncated = t("batch.page.truncated", lang, shown=MAX_ROWS, total=len(history)) if len(history) > MAX_ROWS else ""
    wrows = [{"id": w.id, "code": w.code, "tables": ", ".join(w.tables),
              "period": f"{w.valid_from.isoformat()} – {w.valid_until.isoformat()}",
              "justification": w.justification, "approver": w.approver, "expires": w.expires.isoformat(),
              "state": L["waiver_active"] if w.active(today) else L["waiver_expired"]}
             for w in sorted(today_states.values(), key=lambda w: w.id)]
    html = _env().from_string(RUN_PAGE).render(
        lang=lang, L=L, style=STYLE, run_id=run_id, counts=doc["counts"], exit_code=exit_code,
        failed=sorted(failed.items()), waivers=wrows, rows=rows, truncated=truncated)
    (tmp / "batch.html").write_text(html, encoding="utf-8")
    if run_dir.exists():  # left by a run that was killed before it committed
        shutil.rmtree(run_dir)
    os.replace(tmp, run_dir)


def _history(run_id: int, state: dict, ledger, lang: str) -> list[dict]:
    """Every finding of the run's history view, its message in ``lang``: new and open ones,
    then resolved ones."""
    recs = ledger.records([*state["new"], *state["open"], *state["resolved"]], lang)
    out = []
    repeated = set(state["repeated"])
    for kind in ("new", "open", "resolved"):
        for fp in state[kind]:
            rec = recs[fp]
            out.append({"fingerprint": fp, "state": kind, "repeated": fp in repeated,
                        "waiver": state["waived"].get(fp) if kind != "resolved" else None,
                        **{k: rec.get(k) for k in ("game", "code", "severity", "table_id", "round_id", "seat",
                                                   "hand", "started_at", "message", "file", "line")}})
    order = {"new": 0, "open": 1, "resolved": 2}
    out.sort(key=lambda f: (order[f["state"]], f["game"] or "", f["table_id"] or "", f["started_at"] or "",
                            f["round_id"] or "", -1 if f["seat"] is None else f["seat"],
                            -1 if f["hand"] is None else f["hand"], f["code"]))
    return out


def in_lima(iso: str) -> str:
    """A run's start (the ledger keeps it in UTC) in Lima time, as the reports give every time."""
    try:
        return pd.Timestamp(iso).tz_convert(LIMA).isoformat()
    except (ValueError, TypeError):
        return iso


def write_index(out: Path, ledger, lang: str, pending: dict) -> Path:
    """OUT/index.html's next text: every run of the ledger, and ``pending``, the run being
    committed. Written inside the run's transaction, so that an index that cannot be written
    records nothing, to ``index.html.tmp``, whose path is returned: ``publish_index`` puts it
    in place once the run has committed (an index never names a run the ledger lacks)."""
    L = _labels(lang)
    runs = [{**r, "href": r["report_dir"].replace(os.sep, "/"),
             "started_at": format_datetime(in_lima(r["started_at"]), lang, seconds=True)}
            for r in reversed([*ledger.runs(), pending])]
    html = _env().from_string(INDEX_PAGE).render(lang=lang, L=L, style=STYLE, runs=runs)
    out.mkdir(parents=True, exist_ok=True)
    staged = out / "index.html.tmp"
    staged.write_text(html, encoding="utf-8")
    return staged


def publish_index(staged: Path) -> Path:
    """The index ``write_index`` staged, put in place (``os.replace``: whole or not at all)."""
    path = staged.with_suffix("")
    os.replace(staged, path)
    return path
