"""Reports of an audit: JSON (the complete, machine-readable record), CSV (one row per
finding, safe to open in a spreadsheet), SARIF 2.1.0 and JUnit XML for pipelines, and a
self-contained HTML page for the inspector.

All of them are built from :func:`build_report`, so they cannot disagree; only
``generated_at`` differs between two runs on the same input.
"""

from __future__ import annotations

import importlib

__all__ = ["build_report", "failed_inputs", "write_json", "write_csv", "render_html", "write_html", "write_sarif",
           "write_junit", "ReportFilters"]

# Each name from its module, imported when first used: an audit that writes JSON alone does
# not load the HTML templates (jinja2) or the SARIF and JUnit writers.
_MODULE = {"build_report": "json_report", "failed_inputs": "json_report", "write_json": "json_report", "write_csv": "csv_report",
           "render_html": "html", "write_html": "html", "write_sarif": "sarif", "write_junit": "junit",
           "ReportFilters": "filters"}


def __getattr__(name: str):
    if name not in _MODULE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_MODULE[name]}", __name__), name)
