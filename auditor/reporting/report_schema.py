"""The JSON Schema of the JSON report (``audit-report.json``), published as
``docs/schema/audit-report.schema.json`` so that a regulator's tooling can validate a report.

Written out here, key by key, as :mod:`.json_report` builds the report (the report has no
model of its own to generate it from); the closed sets (games, languages, severities,
sources, rule statuses, the rule codes' form, ``schema_version``) are read from the code
that defines them: a new game or severity changes the schema, and the test that the
committed file is this module's text (``tests/test_report_schema.py``) asks for it again.
Every fixed structure refuses a key it does not list, so a field added to the report and
not here fails the tests that validate reports against it.

Amounts are exact decimal strings in soles with two places (céntimos), never JSON numbers;
counts and line numbers are integers. Texts (messages, reasons, titles, notes, errors) are
in the report's language and free. Regenerate with ``python -m auditor.reporting.report_schema
docs/schema``.
"""

from __future__ import annotations

import json
import typing

__all__ = ["report_schema", "schema_text", "FILE_NAME"]

FILE_NAME = "audit-report.schema.json"

# Amounts as ``cents_text`` and ``cents_to_decimal`` write them: "-12.50", "0.00", no exponent.
_MONEY = r"^-?(0|[1-9][0-9]*)\.[0-9]{2}$"
_TOTAL = r"^(0|[1-9][0-9]*)\.[0-9]{2}$"
_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
# A time as ``engine.lima_text`` and ``Timestamp.isoformat`` write it: to the second, with a
# fraction only where there is one, and the UTC offset of Lima then (-05:00; -05:08:36
# before 1908), never "Z".
_TIME = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?[+-][0-9]{2}:[0-9]{2}(:[0-9]{2})?$"


def _object(properties: dict, *, optional: tuple[str, ...] = (), description: str | None = None) -> dict:
    """A fixed structure: these keys, all of them but ``optional``, and no other."""
    schema = {"type": "object", "additionalProperties": False, "properties": properties,
              "required": sorted(set(properties) - set(optional))}
    if description:
        schema["description"] = description
    return schema


def _ref(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


def _or_null(name: str) -> dict:
    return {"anyOf": [_ref(name), {"type": "null"}]}


def _text(description: str | None = None, **kw) -> dict:
    return {"type": "string", **kw, **({"description": description} if description else {})}


def _texts(description: str | None = None, **kw) -> dict:
    return {"type": "array", "items": {"type": "string"}, **kw, **({"description": description} if description else {})}


def _optional_text(description: str) -> dict:
    return {"type": ["string", "null"], "description": description}


def _defs() -> dict:
    from ..findings import Status
    from ..i18n import LANGS
    from ..logs.schema import ROUND_MODELS
    from ..specs import SEVERITIES, RuleSpec

    return {
        "count": {"type": "integer", "minimum": 0},
        "line": {"type": "integer", "minimum": 1, "description": "Line of the log file (1 is its first line)."},
        "money": _text("Soles, exact: a decimal string with two places (céntimos), e.g. \"-12.50\"; never a "
                       "JSON number.", pattern=_MONEY),
        "total": _text("A sum of soles, not negative, as `money`.", pattern=_TOTAL),
        "date": _text("A Lima calendar date, YYYY-MM-DD.", pattern=_DATE),
        "time": _text("ISO 8601 in Lima time with its UTC offset, e.g. 2026-11-01T12:00:47-05:00.", pattern=_TIME),
        "game": {"enum": sorted(ROUND_MODELS), "description": "A game the auditor knows."},
        "severity": {"enum": list(SEVERITIES), "description": "Severity, from the least to the gravest."},
        "source": {"enum": list(typing.get_args(RuleSpec.model_fields["source"].annotation)),
                   "description": "Grounding of the rule: TEXT (the directive's text), PERU (Peruvian "
                                  "practice), STANDARD (the game's standard practice); docs/rules.md."},
        "code": _text("A rule code, as `auditor rules` lists them.",
                      pattern=RuleSpec.model_json_schema()["properties"]["code"]["pattern"]),
        "lang": {"enum": list(LANGS), "description": "Language of the report's texts."},
        "status": {"enum": list(typing.get_args(Status)), "description": "A rule's outcome over the rounds "
                                                                         "audited."},
        "group": _object({
            "key": _text("The table, dealer, rule code or Lima day (YYYY-MM-DD); empty for findings that "
                         "have none (a posted profile's)."),
            "findings": {"type": "integer", "minimum": 1},
            "overpaid": _ref("total"),
            "underpaid": _ref("total"),
        }, description="Findings of one key, and the sums of their positive and (negated) negative impacts."),
        "failed_input": _object({
            "path": _text(),
            "error": _text("Why, in the report's language."),
        }),
        "reason": _object(_reason()),
        "rejected": _object({"file": _text(), "line": _ref("line"), **_reason(),
                             "also": {"type": "array", "items": _ref("reason"),
                                      "description": "The record's further reasons."}},
                            description="A rejected record and its first reason."),
    }


def _reason() -> dict:
    return {
        "field": _text("The field at fault; empty when the record is at fault as a whole."),
        "reason": _text("The reason, in the report's language."),
        "reason_code": _text("The reason's catalogue key (`reject.…`)."),
        "detail": _text("The value as the log gives it (cut at 80 characters), or a number the reason "
                        "names; may be empty."),
    }


def _finding() -> dict:
    return _object({
        "code": _ref("code"),
        "game": _ref("game"),
        "directive": _text("The directive the rule belongs to."),
        "article": _text("The article cited; empty where no article states the rule."),
        "source": _ref("source"),
        "severity": _ref("severity"),
        "table_id": _text(),
        "round_id": _text("Empty for a finding on a posted table profile."),
        "seat": {"type": ["integer", "null"]},
        "hand": {"type": ["integer", "null"]},
        "started_at": _or_null("time"),
        "dealer_id": _optional_text("As the log gives it; null where it gives none."),
        "message": _text("The rule's title and the reason, in the report's language."),
        "expected": _or_null("money"),
        "observed": _or_null("money"),
        "impact": {**_or_null("money"), "description": "Observed minus expected (> 0: the player was over-paid); "
                                                       "null where the finding fixes no amount owed."},
        "evidence": {"type": "object", "description": "What the log or profile shows, by name (open-ended, per "
                                                      "rule; a batch run adds batch_history and batch_waiver).",
                     "additionalProperties": {"type": ["string", "integer", "boolean", "null"]}},
        "file": _optional_text("The log file; null for a finding on a posted table profile."),
        "line": _or_null("line"),
    }, description="One violation of a rule (the frozen Finding model).")


def _summary() -> dict:
    from ..specs import SEVERITIES

    count = _ref("count")
    return _object({
        "records_read": count,
        "records_audited": count,
        "records_rejected": count,
        "rounds_audited": count,
        "hands_audited": count,
        "wagered": _ref("total"),
        "findings": count,
        "findings_by_severity": _object({s: count for s in SEVERITIES}),
        "findings_by_code": {"type": "object", "propertyNames": _ref("code"),
                             "additionalProperties": {"type": "integer", "minimum": 1}},
        "overpaid_total": _ref("total"),
        "underpaid_total": _ref("total"),
        "input_errors": {"type": "array", "items": _ref("failed_input"),
                         "description": "Files that could not be read (the audit exits 2)."},
        "files_not_audited": {"type": "array", "description": "Files read none of whose records could be audited "
                                                              "(the audit exits 2).",
                              "items": _object({"path": _text(), "records_rejected": count,
                                                "error": _text("Why, in the report's language.")})},
        "paths_without_logs": {"type": "array", "description": "The paths given, when no log file was found under "
                                                                "any of them (the audit exits 2).",
                               "items": _object({"path": _text(), "error": _text("Why, in the report's language.")})},
        "no_activity": {"type": "boolean", "description": "No round was audited."},
        **{group: {"type": "array", "items": _ref("group")}
           for group in ("by_table", "by_dealer", "by_rule", "by_day")},
    }, description="Counts and totals of the findings written (after the filters) and of the records read.")


def report_schema() -> dict:
    """The JSON Schema (draft 2020-12) of the report that ``build_report`` gives."""
    from ..engine import SCHEMA_VERSION

    count = _ref("count")
    report = _object({
        "schema_version": {"const": SCHEMA_VERSION, "description": "Version of the report's format, which this "
                                                                   "schema describes."},
        "tool_version": _text("Version of casino-auditor that wrote the report.", minLength=1),
        "generated_at": _ref("time"),
        "lang": _ref("lang"),
        "games": {"type": "array", "items": _ref("game"), "uniqueItems": True},
        "period": _object({"first": _or_null("time"), "last": _or_null("time")},
                          description="Start of the first and last round audited; null when none was."),
        "filters": _object({
            "active": {"type": "boolean"},
            "from": _or_null("date"),
            "to": _or_null("date"),
            "tables": _texts(),
            "severity_min": _or_null("severity"),
            "findings_before_filters": count,
        }, description="The report filters (--from, --to, --table, --severity): they narrow the findings "
                       "written, never the rules' outcomes."),
        "scope": _object({
            "operator": _optional_text("As stated on the command line (--operator)."),
            "hall": _optional_text("As stated on the command line (--hall)."),
            "tables": _texts(uniqueItems=True),
            "tables_source": {"enum": ["engine", "findings"],
                              "description": "engine: every table audited; findings: the tables that have a "
                                             "finding."},
        }),
        "inputs": {"type": "array", "items": _object({
            "path": _text(minLength=1),
            "sha256": _text("SHA-256 of the file's bytes; empty for a file that has an error.",
                            pattern="^([0-9a-f]{64})?$"),
            "game": _or_null("game"),
            "records_read": count,
            "records_audited": count,
            "records_rejected": count,
            "error": _optional_text("Why the file could not be read (in a batch run, or audited), in the "
                                    "report's language; null otherwise."),
            "extra_columns": _texts("Columns that the game's format does not define (ignored)."),
            "notes": _texts("How the file was read, when not plain UTF-8 with \",\" (present only when there "
                            "are notes).", minItems=1),
        }, optional=("notes",))},
        "profiles": {"type": "array", "items": _object({
            "id": _text(),
            "game": _ref("game"),
            "source": _text("The profile file, or built-in."),
            "tables": _texts("The tables it applies to; empty for every table."),
            "valid_from": _or_null("date"),
            "valid_until": _or_null("date"),
        }), "description": "The table profiles applied."},
        "rules": {"type": "array", "items": _object({
            "code": _ref("code"),
            "game": _ref("game"),
            "article": _text(),
            "source": _ref("source"),
            "severity": _ref("severity"),
            "title": _text("In the report's language."),
            "status": _ref("status"),
            "rounds_checked": count,
            "violations": count,
            "note": _text("Why the rule was not checked, or not on every round; may be empty."),
        })},
        "findings": {"type": "array", "items": _ref("finding")},
        "rejected": {"type": "array", "items": _ref("rejected"), "description": "Each rejected record once."},
        "summary": _ref("summary"),
    })
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://casino-auditor.example/schema/{FILE_NAME}",
        "title": "casino-auditor audit report",
        "description": f"The JSON report of `auditor audit` (audit-report.json, also of each `auditor batch` run), "
                       f"schema_version {SCHEMA_VERSION}.",
        **report,
        "$defs": {**_defs(), "finding": _finding(), "summary": _summary()},
    }


def schema_text() -> str:
    return json.dumps(report_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


if __name__ == "__main__":  # python -m auditor.reporting.report_schema docs/schema
    import sys
    from pathlib import Path

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/schema")
    target.mkdir(parents=True, exist_ok=True)
    (target / FILE_NAME).write_text(schema_text(), encoding="utf-8")
