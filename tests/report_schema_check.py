"""A report checked against the published JSON Schema of the report
(``docs/schema/audit-report.schema.json``, the file a regulator's tooling reads)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import jsonschema

from auditor.reporting.report_schema import FILE_NAME

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "docs" / "schema" / FILE_NAME


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def schema_problems(report: dict) -> list[str]:
    """Where ``report`` departs from the schema and how, one line each ([] when it conforms)."""
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator().iter_errors(report)]
