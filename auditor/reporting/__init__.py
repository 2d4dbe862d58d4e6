"""Reports of an audit: JSON (the complete, machine-readable record), CSV (one row per
finding, safe to open in a spreadsheet), SARIF 2.1.0 and JUnit XML for pipelines, and a
self-contained HTML page for the inspector.

All of them are built from :func:`build_report`, so they cannot disagree; only
``generated_at`` differs between two runs on the same input.
"""

from __future__ import annotations

from .csv_report import write_csv
from .filters import ReportFilters
from .html import render_html, write_html
from .json_report import build_report, write_json
from .junit import write_junit
from .sarif import write_sarif

__all__ = ["build_report", "write_json", "write_csv", "render_html", "write_html", "write_sarif", "write_junit",
           "ReportFilters"]
