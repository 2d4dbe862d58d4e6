"""The HTML report: one self-contained page (inline CSS and JS, nothing from the network).

Every label comes from the message catalogue (``report.*``), Spanish by default. Data from
the logs is always autoescaped by Jinja: the template never marks it safe.
"""

from __future__ import annotations

import json
from decimal import Decimal
from functools import cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from ..i18n import t
from ..money import decimal_to_cents, format_soles
from ..registry import GAMES, plugin
from ..specs import SEVERITIES
from .json_report import build_report

__all__ = ["render_html", "write_html", "MAX_ROWS"]

MAX_ROWS = 2000
STATUS_ORDER = {"failed": 0, "error": 1, "passed": 2, "not_applicable": 3}
SEVERITY_DESC = tuple(reversed(SEVERITIES))  # critical first


@cache
def _environment() -> Environment:
    return Environment(loader=PackageLoader("auditor.reporting", "templates"), autoescape=True,
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                       keep_trailing_newline=True)


def _soles(text, lang: str) -> str:
    if text is None or text == "":
        return ""
    return format_soles(decimal_to_cents(Decimal(str(text))), lang)


def _evidence_items(evidence: dict) -> list[tuple[str, str]]:
    items = []
    for key in sorted(evidence):
        value = evidence[key]
        if value is None:
            text = ""
        elif isinstance(value, str):
            text = value
        else:
            text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        items.append((key, text))
    return items


def _games(report: dict, lang: str) -> list[dict]:
    out = []
    for game in report["games"]:
        if game not in GAMES:
            continue
        spec = plugin(game).spec
        out.append({"game": game, "directive": spec.directive, "citation": spec.citation,
                    "version": spec.version})
    return out


def _rules(report: dict, lang: str) -> list[dict]:
    specs = {}
    for game in {r["game"] for r in report["rules"]}:
        if game in GAMES:
            specs[game] = plugin(game).spec
    rules = []
    for r in report["rules"]:
        spec = specs.get(r["game"])
        try:
            rule = spec.get(r["code"]) if spec else None
        except KeyError:
            rule = None
        rules.append({**r, "quote": rule.quote if rule else "", "params": list(rule.params) if rule else [],
                      "source_label": t(f"report.source_name.{r['source']}", lang),
                      "severity_label": t(f"report.severity_name.{r['severity']}", lang),
                      "status_label": t(f"report.status_name.{r['status']}", lang)})
    rules.sort(key=lambda r: STATUS_ORDER.get(r["status"], 9))  # stable: spec order within a status
    return rules


def _findings(report: dict, lang: str) -> list[dict]:
    out = []
    for f in report["findings"][:MAX_ROWS]:
        impact = f["impact"]
        sign = 0 if impact in (None, "") else (1 if Decimal(impact) > 0 else -1 if Decimal(impact) < 0 else 0)
        location = ""
        if f["file"]:
            location = f["file"] + (f":{f['line']}" if f["line"] is not None else "")
        out.append({**f, "expected_fmt": _soles(f["expected"], lang), "observed_fmt": _soles(f["observed"], lang),
                    "impact_fmt": _soles(impact, lang), "impact_sign": sign, "location": location,
                    "severity_label": t(f"report.severity_name.{f['severity']}", lang),
                    "evidence_items": _evidence_items(f["evidence"])})
    return out


def render_html(result, *, report: dict | None = None) -> str:
    """The report page as a string."""
    report = report if report is not None else build_report(result)
    lang = report["lang"] if report["lang"] in ("es", "en") else "es"
    summary = report["summary"]

    def label(key: str, **params) -> str:
        return t(f"report.{key}", lang, **params)

    severities = [(s, t(f"report.severity_name.{s}", lang), summary["findings_by_severity"].get(s, 0))
                  for s in SEVERITY_DESC]
    context = {
        "L": label,
        "lang": lang,
        "report": report,
        "summary": summary,
        "games": _games(report, lang),
        "rules": _rules(report, lang),
        "findings": _findings(report, lang),
        "findings_total": len(report["findings"]),
        "rejected": report["rejected"][:MAX_ROWS],
        "rejected_total": len(report["rejected"]),
        "max_rows": MAX_ROWS,
        "severities": severities,
        "codes": sorted(summary["findings_by_code"]),
        "wagered": _soles(summary["wagered"], lang),
        "overpaid": _soles(summary["overpaid_total"], lang),
        "underpaid": _soles(summary["underpaid_total"], lang),
    }
    return _environment().get_template("report.html.j2").render(**context)


def write_html(result, path, *, report: dict | None = None) -> Path:
    """Write the report page of ``result`` to ``path`` (UTF-8); returns the path."""
    path = Path(path)
    path.write_text(render_html(result, report=report), encoding="utf-8")
    return path
