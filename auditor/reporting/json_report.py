"""The JSON report: the complete record of an audit, and the data every other report uses.

Deterministic by construction: keys are sorted, lists keep the engine's stable order (inputs
by path, rules in spec order, findings by table, time, round, seat, hand and code, rejects
by file and line), amounts are decimal strings and no float is written. Two runs on the
same input differ only in ``generated_at``.
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime
from decimal import Decimal
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import orjson
import pandas as pd
from pydantic import TypeAdapter

from ..engine import LIMA, SCHEMA_VERSION
from ..findings import Finding
from ..i18n import catalogue, t
from ..logs.files import SUFFIXES
from ..money import cents_to_decimal
from ..profiles import default_profile
from ..specs import SEVERITIES
from .filters import NO_FILTERS, ReportFilters

__all__ = ["build_report", "write_json", "dumps", "plain", "finding_records", "rejected_records", "failed_inputs",
           "profile_records", "translate", "tables_covered"]


def plain(value: Any) -> Any:
    """A JSON-ready, float-free copy of ``value`` (numpy scalars, NaN, Decimals, timestamps
    and containers included)."""
    if type(value) is str:  # the usual value: first
        return value
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return int(value) if value.is_integer() else str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (pd.Timestamp, datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray, pd.Series)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=str)
    return str(value)


def translate(key: str, lang: str, **params) -> str:
    """The catalogue text of ``key``; the key itself when the catalogue lacks it (a report
    must never fail on one unknown reason code)."""
    if key in catalogue():
        return t(key, lang, **params)
    return key


_TEXT_FIELDS = ("table_id", "round_id", "code", "game", "directive", "article", "source", "severity", "message")
_OPTIONAL_TEXT_FIELDS = ("dealer_id", "file", "started_at")
# Each field of a finding validated as the model validates it, a column at a time: the model
# has no validator over several fields, so this is the same check as validating the rows
# (a test holds the rows equal to the model's dump of them), at a third of the cost
# (10,943 findings: 0.10 -> 0.04 s).
_FIELDS = {name: TypeAdapter(list[Annotated[(f.annotation, *f.metadata)]] if f.metadata else list[f.annotation])
           for name, f in Finding.model_fields.items()}


def _column(findings: pd.DataFrame, name: str, text: bool = False) -> list:
    """One column as plain Python values (None for missing), converted once per column
    (``text``: as text, "" for missing, whatever the column's name)."""
    if name not in findings:
        return [None] * len(findings)
    col = findings[name]
    if name == "evidence":
        return [v if type(v) is dict and all(type(k) is str and type(x) in _PLAIN for k, x in v.items())
                else _evidence(plain(v)) for v in col.tolist()]
    values = col.astype(object).where(col.notna(), None).tolist()
    if text or name in _TEXT_FIELDS:
        return ["" if v is None else str(v) for v in values]
    if name in _OPTIONAL_TEXT_FIELDS:
        return [None if v is None else str(v) for v in values]
    if all(v is None or type(v) in (int, str) for v in values):
        return values
    return [plain(v) for v in values]


_PLAIN = (str, int, bool, type(None))  # evidence values as the checks give them: nothing to convert


def _evidence(value) -> dict:
    return value if isinstance(value, dict) else {}


def finding_records(findings: pd.DataFrame) -> list[dict]:
    """Every finding row, validated by the fields of the frozen :class:`Finding` model.
    Columns are converted whole to their JSON form (amounts as decimal strings) and each is
    validated in one pass; the rows are the records, as the model's own JSON dump of them
    would be (``tests/test_samples.py`` holds the two equal)."""
    columns = {k: _column(findings, k) for k in _FIELDS}
    for name, values in columns.items():
        _FIELDS[name].validate_python(values)
    return [dict(zip(columns, values)) for values in zip(*columns.values())]


def rejected_records(rejected: pd.DataFrame, lang: str) -> list[dict]:
    """Every rejected record once, its first reason in ``lang`` and its other reasons in
    ``also`` (see ``engine._one_per_record``); converted a column at a time."""
    text = {k: _column(rejected, k, text=True) for k in ("file", "field", "reason", "detail")}
    more = [v if isinstance(v, tuple) else () for v in
            (rejected["also"].tolist() if "also" in rejected else [()] * len(rejected))]
    codes = set(text["reason"]) | {code for entries in more for _, code, _ in entries}
    reasons = {code: translate(code, lang) if code else "" for code in codes}
    return [{"file": file, "line": line, "field": field, "reason": reasons[code], "reason_code": code,
             "detail": detail,
             "also": [{"field": f, "reason": reasons[c], "reason_code": c, "detail": str(d)} for f, c, d in also]}
            for file, line, field, code, detail, also in zip(text["file"], _column(rejected, "line"), text["field"],
                                                             text["reason"], text["detail"], more)]


def profile_records(result) -> list[dict]:
    """The profiles the audit applied: the user's, plus the built-in standard profile of
    each audited game that has no undated default profile of its own (as the engine does: it
    holds on the days no dated default covers)."""
    profiles = list(result.profiles)
    for game in result.games:
        if not any(p.game == game and not p.tables and p.valid_from is None and p.valid_until is None
                   for p in profiles):
            profiles.append(default_profile(game))
    profiles.sort(key=lambda p: (p.game, bool(p.tables), p.valid_from is not None or p.valid_until is not None,
                                 p.valid_from or date.min, p.id))
    return [{"id": p.id, "game": p.game, "source": p.source, "tables": list(p.tables),
             "valid_from": plain(p.valid_from), "valid_until": plain(p.valid_until)} for p in profiles]


def _decimal(text) -> Decimal | None:
    if text is None:
        return None
    return Decimal(str(text))


_GROUPS = {"by_table": "table_id", "by_dealer": "dealer_id", "by_rule": "code", "by_day": "day"}


def _summary(result, inputs: list[dict], findings: list[dict]) -> dict:
    """Counts and totals of the findings, and the same by table, dealer, rule and Lima day of
    the round (``_GROUPS``), in one pass: each amount is read once, for every total."""
    by_severity = {s: 0 for s in SEVERITIES}
    by_code: dict[str, int] = {}
    totals_of = {group: {} for group in _GROUPS}  # group -> key -> [findings, over, under]
    zero = Decimal("0.00")
    for f in findings:
        by_severity[f["severity"]] = by_severity.get(f["severity"], 0) + 1
        by_code[f["code"]] = by_code.get(f["code"], 0) + 1
        impact = _decimal(f["impact"])  # (most findings have none: nothing is added for them)
        for group, field in _GROUPS.items():
            key = (f["started_at"] or "")[:10] if field == "day" else f.get(field) or ""
            totals = totals_of[group].get(key)
            if totals is None:
                totals = totals_of[group][key] = [0, zero, zero]
            totals[0] += 1
            if impact:
                totals[1 if impact > 0 else 2] += abs(impact)
    over_all = sum((t[1] for t in totals_of["by_rule"].values()), zero)
    under_all = sum((t[2] for t in totals_of["by_rule"].values()), zero)
    totals = result.totals or {}
    unaudited = set(getattr(result, "unaudited", ()) or ())
    rounds = int(totals.get("rounds", 0))
    return {
        "records_read": sum(i["records_read"] for i in inputs),
        "records_audited": sum(i["records_audited"] for i in inputs),
        "records_rejected": sum(i["records_rejected"] for i in inputs),
        "rounds_audited": rounds,
        "hands_audited": int(totals.get("hands", 0)),
        "wagered": str(cents_to_decimal(int(totals.get("wagered", 0)))),
        "findings": len(findings),
        "findings_by_severity": by_severity,
        "findings_by_code": dict(sorted(by_code.items())),
        "overpaid_total": str(over_all.quantize(Decimal("0.01"))),
        "underpaid_total": str(under_all.quantize(Decimal("0.01"))),
        "input_errors": [{"path": i["path"], "error": i["error"]} for i in inputs if i["error"]],
        # Files read whose every record was rejected for its own faults (exit 2, as an input
        # error; ``AuditResult.unaudited``): a reader of the report is told which, and why.
        "files_not_audited": [{"path": i["path"], "records_rejected": i["records_rejected"],
                               "error": t("report.nothing_audited", result.lang, rejected=i["records_rejected"])}
                              for i in inputs if i["path"] in unaudited],
        # The paths given, when no log file was found under any of them (exit 2, as above).
        "paths_without_logs": [{"path": p, "error": t("report.no_log_found", result.lang, suffixes=", ".join(SUFFIXES))}
                               for p in getattr(result, "searched_in_vain", ())],
        "no_activity": rounds == 0,
        **{group: [{"key": k, "findings": n, "overpaid": str(o.quantize(Decimal("0.01"))),
                    "underpaid": str(u.quantize(Decimal("0.01")))} for k, (n, o, u) in sorted(keys.items())]
           for group, keys in totals_of.items()},
    }


def failed_inputs(report: dict) -> list[dict]:
    """The inputs of a report that make the audit exit 2, each with its ``path`` and ``error``:
    the files that could not be read, those none of whose records could be audited, and the
    paths searched when no log file was found under any of them."""
    summary = report["summary"]
    return [*summary["input_errors"], *summary.get("files_not_audited", ()),
            *summary.get("paths_without_logs", ())]


def tables_covered(result, findings: list[dict]) -> tuple[list[str], str]:
    """The tables the audit covered and where the list comes from: ``engine`` when the audit
    result carries it, else ``findings`` (only the tables that have a finding)."""
    tables = getattr(result, "tables", None) or (result.totals or {}).get("tables")
    if tables:
        return sorted(map(str, tables)), "engine"
    return sorted({f["table_id"] for f in findings if f["table_id"]}), "findings"


def build_report(result, *, generated_at: str | None = None, filters: ReportFilters | None = None,
                 operator: str | None = None, hall: str | None = None) -> dict:
    """The whole report as plain JSON-ready data.

    ``filters`` narrow the findings written (see :mod:`auditor.reporting.filters`); the rules
    keep the engine's outcomes. ``operator`` and ``hall`` are what the user stated on the
    command line (the logs do not carry them)."""
    lang = result.lang
    filters = filters or NO_FILTERS
    inputs = [{**plain(i.model_dump(exclude={"notes"})), "extra_columns": list(i.extra_columns),
               **({"notes": list(i.notes)} if i.notes else {})} for i in result.inputs]
    findings = finding_records(filters.apply(result.findings))
    first, last = result.period
    tables, tables_source = tables_covered(result, findings)
    return {
        "filters": {**filters.to_json(), "findings_before_filters": int(len(result.findings))},
        "scope": {"operator": operator or None, "hall": hall or None, "tables": tables,
                  "tables_source": tables_source},
        "schema_version": SCHEMA_VERSION,
        "tool_version": result.tool_version,
        "generated_at": generated_at or pd.Timestamp.now(tz=LIMA).floor("s").isoformat(),
        "lang": lang,
        "games": list(result.games),
        "period": {"first": first, "last": last},
        "inputs": inputs,
        "profiles": profile_records(result),
        "rules": [plain(r.model_dump()) for r in result.rules],
        "findings": findings,
        "rejected": rejected_records(result.rejected, lang),
        "summary": _summary(result, inputs, findings),
    }


_FORMAT = {"ensure_ascii": False, "sort_keys": True, "allow_nan": False}
# The long lists: one record per line, compact. Python's JSON encoder is several times
# slower with indentation, and a line per finding also reads and diffs well.
_RECORD_LISTS = ("findings", "rejected")
# orjson writes them (five times faster than Python's encoder: 13,600 records in 0.02 s, not
# 0.1 s), byte for byte as ``json.dumps(record, separators=(",", ":"), **_FORMAT)`` would
# (``tests/test_reports.py``): keys sorted, text as UTF-8, the same escapes. (Every key is
# text, as ``plain`` and the records make them.)
def _record(record: dict) -> str:
    return orjson.dumps(record, option=orjson.OPT_SORT_KEYS).decode()


_PIECE = 1000


def _encoded(report: dict) -> Iterator[str]:
    """The report's JSON text in pieces: keys sorted, one space of indentation per level,
    each finding and rejected row on a line of its own."""
    yield "{"
    for i, key in enumerate(sorted(report)):
        value = report[key]
        yield ("," if i else "") + "\n " + json.dumps(key, ensure_ascii=False) + ": "
        if key in _RECORD_LISTS and value:
            # (a thousand records a piece: the text of 100,000 findings, a few hundred MB, is
            # never held whole, nor the list of their lines)
            for k in range(0, len(value), _PIECE):
                yield ("[\n  " if k == 0 else ",\n  ") + ",\n  ".join(map(_record, value[k:k + _PIECE]))
            yield "\n ]"
        else:  # a JSON text has no raw newline inside a string: every newline can take the indent
            yield json.dumps(value, indent=1, **_FORMAT).replace("\n", "\n ")
    yield "\n}\n"


def dumps(report: dict) -> str:
    return "".join(_encoded(report))


def write_json(result, path, *, report: dict | None = None) -> Path:
    """Write the JSON report of ``result`` to ``path`` (UTF-8); returns the path."""
    path = Path(path)
    with path.open("w", encoding="utf-8") as fh:  # written as encoded: no copy of the whole text
        fh.writelines(_encoded(report if report is not None else build_report(result)))
    return path
