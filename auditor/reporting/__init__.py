"""Reports of an audit: JSON (the complete, machine-readable record), CSV (one row per
finding, safe to open in a spreadsheet) and a self-contained HTML page for people.

All three are built from :func:`build_report`, so they cannot disagree; only
``generated_at`` differs between two runs on the same input.
"""

from __future__ import annotations

from .csv_report import write_csv
from .html import render_html, write_html
from .json_report import build_report, write_json

__all__ = ["build_report", "write_json", "write_csv", "render_html", "write_html"]
