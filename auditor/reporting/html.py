"""The HTML report: one self-contained page an inspector can review, print and sign.

Nothing comes from the network: CSS, JS and the charts (SVG drawn here, on the server) are
inline. Every label comes from the message catalogue (``report.*``), Spanish by default.

Data from the logs is never trusted:

- in the HTML itself it is always autoescaped by Jinja (the template marks nothing from a log
  safe; the SVG charts escape their labels with ``markupsafe.escape``);
- the findings travel to the page's script as one JSON data block in a
  ``<script type="application/json">`` element, where ``<``, ``>`` and ``&`` are written as
  ``\\u003c``, ``\\u003e`` and ``\\u0026``, so that a ``</script>`` in a log cannot end the
  element; the script puts it in the page with ``textContent`` only, never as HTML.

The findings table is drawn by the script, a page (100 rows) at a time, with filtering and
sorting, so that a report of 100,000 findings stays responsive; the first page is also drawn
on the server, so that the page is readable without JavaScript.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from ..i18n import catalogue, t
from ..money import decimal_to_cents, format_soles
from ..registry import GAMES, plugin
from ..specs import SEVERITIES
from .json_report import build_report

__all__ = ["render_html", "write_html", "PAGE_SIZE", "json_for_script", "format_datetime", "format_count"]

PAGE_SIZE = 100
MAX_REJECTED = 2000
MAX_BREAKDOWN = 50
# A folder of a month's daily exports is a thousand files: beyond this many, their table
# comes folded under one line that counts them, so that the summary is not pages away.
FOLD_INPUTS = 12
STATUS_ORDER = {"failed": 0, "error": 1, "passed": 2, "not_applicable": 3}
SEVERITY_DESC = tuple(reversed(SEVERITIES))  # critical first
SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}
_MONEY = re.compile(r"-?[0-9]+\.[0-9]{2}")
_SEV_COLOURS = {"critical": "#7a0f0f", "high": "#c8382a", "medium": "#f0a830", "low": "#7fa3d1", "info": "#aab3bf"}


@cache
def _environment() -> Environment:
    return Environment(loader=PackageLoader("auditor.reporting", "templates"), autoescape=True,
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                       keep_trailing_newline=True)


# --- formatting ---------------------------------------------------------------------------

def _soles(text, lang: str) -> str:
    if text is None or text == "":
        return ""
    return format_soles(decimal_to_cents(Decimal(str(text))), lang)


def format_count(n: int, lang: str) -> str:
    """A whole number grouped for the language: ``1 234`` (es-PE), ``1,234`` (en)."""
    text = f"{int(n):,}"
    return text.replace(",", "\u202f") if lang == "es" else text


def format_datetime(iso: str | None, lang: str, *, seconds: bool = False) -> str:
    """An ISO 8601 time written as the catalogue's pattern for the language says
    (``01/11/2026 20:00`` in Spanish, ``1 Nov 2026 20:00`` in English); unchanged if unreadable."""
    if not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    key = "report.datetime_format_seconds" if seconds else "report.datetime_format"
    months = t("report.month_abbr", lang).split()
    return t(key, lang).format(d=moment.day, dd=f"{moment.day:02d}", mm=f"{moment.month:02d}",
                               mon=months[moment.month - 1], yyyy=moment.year, HH=f"{moment.hour:02d}",
                               MM=f"{moment.minute:02d}", SS=f"{moment.second:02d}")


def format_day(iso_day: str, lang: str) -> str:
    if not iso_day:
        return ""
    d = datetime.fromisoformat(iso_day)
    months = t("report.month_abbr", lang).split()
    return t("report.date_format", lang).format(d=d.day, dd=f"{d.day:02d}", mm=f"{d.month:02d}",
                                                mon=months[d.month - 1], yyyy=d.year)


def json_for_script(data) -> Markup:
    """``data`` as JSON that is safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return Markup(text)  # noqa: S704 - every character that could end the element is escaped above


# --- the parts of the page ----------------------------------------------------------------

def _games(report: dict) -> list[dict]:
    out = []
    for game in report["games"]:
        if game not in GAMES:
            continue
        spec = plugin(game).spec
        out.append({"game": game, "directive": spec.directive, "citation": spec.citation,
                    "version": spec.version, "rules": len(spec.rule)})
    return out


def _rule_specs(report: dict) -> dict:
    """The specs of the report's rules, by code, in the order of the games' names then of
    each spec (the page's data holds them in this order: no set's order reaches the page)."""
    specs = {}
    for game in sorted({r["game"] for r in report["rules"]} | set(report["games"])):
        if game in GAMES:
            for rule in plugin(game).spec.rule:
                specs[rule.code] = rule
    return specs


def _rules(report: dict, lang: str, specs: dict) -> list[dict]:
    rules = []
    for r in report["rules"]:
        rule = specs.get(r["code"])
        rules.append({**r, "quote": rule.quote if rule else "", "check": rule.check_in(lang) if rule else "",
                      "params": list(rule.params) if rule else [],
                      "source_label": t(f"report.source_name.{r['source']}", lang),
                      "severity_label": t(f"report.severity_name.{r['severity']}", lang),
                      "status_label": t(f"report.rule_status.{r['status']}", lang)})
    rules.sort(key=lambda r: STATUS_ORDER.get(r["status"], 9))  # stable: spec order within a status
    return rules


_HAND_LABEL = re.compile(r"(?:^|(?<=; ))([0-9]+)\.([0-9]+):")  # a round's hand in ``hands``: 2.0: (seat 2, hand 0)
# Evidence that is text as the log or a profile gives it (a deck named "10.00", a card code
# "flush"): shown as given.
_AS_GIVEN = frozenset({"deck_id", "deck_color", "shoe_id", "profile", "field", "cards", "dealer_cards",
                       "community_cards"})


_NAMED = frozenset({"hand", "poker", "pulled_1", "pulled_2", "batch_history"})  # values the catalogue names
_LINES = frozenset({"hands", "bet_limits"})  # lines with hand labels and words (checks: round_evidence)
# the words of those lines, and the amounts in any value
_WORDS = {w: re.compile(rf"\b{w}\b") for w in ("net", "pool", "bonus", "war", "bj", "poker")}
_POINT = re.compile(r"(?<=[0-9])\.(?=[0-9]{2}(?![\w.]))")  # an amount's decimal point (a plain replacement: fast)
_GROUPED = re.compile(r"(?<![\w.,])-?[0-9]{4,}(?=[.,][0-9]{2}(?![\w.]))")


@lru_cache(maxsize=1 << 16)
def _shown(value: str, key_kind: str, lang: str) -> str:
    """One evidence value as the page shows it (see ``_evidence``); the same values recur
    finding after finding (amounts, hand names), so each is worked out once."""
    if key_kind == "amount":
        return format_soles(decimal_to_cents(value), lang)
    if key_kind == "named":
        named = catalogue()
        value = " / ".join(t(f"report.evidence_value.{p}", lang) if f"report.evidence_value.{p}" in named else p
                           for p in value.split(" / "))
    elif key_kind == "lines":
        value = _HAND_LABEL.sub(r"\1/\2:", value)  # (before the amounts: 2.10: is seat 2, hand 10)
        for word, pattern in _WORDS.items():
            if word in value:
                value = pattern.sub(t(f"report.evidence_word.{word}", lang), value)
    return _amounts(value, lang) if "." in value else value


def _amounts(text: str, lang: str) -> str:
    """The amounts within a value (``510.00/10.00+0.00``) in the language's decimals, as
    ``format_soles`` writes them but for the S/ (a line of a round's hands holds dozens: by
    patterns, not one call each)."""
    if lang == "es":
        text = _POINT.sub(",", text)
    if _GROUPED.search(text):
        text = _GROUPED.sub(lambda m: format_count(int(m[0]), lang), text)
    return text


def _evidence(evidence: dict, lang: str) -> dict:
    """Evidence as a reviewer reads it (the JSON and CSV keep the values as the checks give
    them): a value that is one amount in soles; amounts within a value (``510.00/10.00+0.00``)
    in the language's decimals; a value of the kinds the catalogue names (``_NAMED``), or each
    part of one (``high_card / one_pair``), by its name (``report.evidence_value.*``); a round's
    hands labelled seat/hand as the findings table writes them (``2/0:``, not ``2.0:``, which
    reads as a number), their words in the report's language. Text from the log or a profile
    (``_AS_GIVEN``) as given; other values as text."""
    out = {}
    for key, value in evidence.items():
        if value is None:
            text = ""
        elif isinstance(value, str):
            if key in _AS_GIVEN:
                text = value
            elif _MONEY.fullmatch(value):
                text = _shown(value, "amount", lang)
            else:
                text = _shown(value, "named" if key in _NAMED else "lines" if key in _LINES else "", lang)
        else:
            text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        out[key] = text
    return out


class _Dict:
    """Values stored once, rows refer to them by index (keeps the data block small)."""

    def __init__(self):
        self.values: list = []
        self.index: dict = {}

    def __call__(self, value) -> int:
        i = self.index.get(value)
        if i is None:
            i = self.index[value] = len(self.values)
            self.values.append(value)
        return i


def _findings_data(findings: list[dict], lang: str) -> dict:
    """The data block of the findings: one compact row per finding (see ``COLUMNS`` in the
    template's script)."""
    codes, tables, dealers, messages, files, times = _Dict(), _Dict(), _Dict(), _Dict(), _Dict(), _Dict()
    rows = []
    for f in findings:
        impact = f["impact"]
        cents = None if impact in (None, "") else decimal_to_cents(impact)
        started = f["started_at"] or ""
        rows.append([
            SEVERITY_RANK.get(f["severity"], 0), codes(f["code"]), tables(f["table_id"]), f["round_id"],
            f["seat"], f["hand"], started, times(format_datetime(started, lang)) if started else -1,
            dealers(f["dealer_id"] or ""), messages(f["message"]),
            _soles(f["expected"], lang), _soles(f["observed"], lang), _soles(impact, lang), cents,
            files(f["file"] or ""), f["line"], _evidence(f["evidence"], lang),
        ])
    return {"codes": codes.values, "tables": tables.values, "dealers": dealers.values,
            "messages": messages.values, "files": files.values, "times": times.values, "rows": rows}


def _first_page(findings: list[dict], lang: str) -> list[dict]:
    """The first page of findings, drawn on the server for readers without JavaScript."""
    out = []
    for f in findings[:PAGE_SIZE]:
        impact = f["impact"]
        sign = 0 if impact in (None, "") else (1 if Decimal(impact) > 0 else -1 if Decimal(impact) < 0 else 0)
        out.append({**f, "expected_fmt": _soles(f["expected"], lang), "observed_fmt": _soles(f["observed"], lang),
                    "impact_fmt": _soles(impact, lang), "impact_sign": sign,
                    "started_fmt": format_datetime(f["started_at"], lang),
                    "location": (f["file"] or "") + (f":{f['line']}" if f["file"] and f["line"] is not None else ""),
                    "severity_label": t(f"report.severity_name.{f['severity']}", lang),
                    "evidence_items": [(evidence_label(k, f["game"], lang), v)
                                       for k, v in sorted(_evidence(f["evidence"], lang).items())]})
    return out


def evidence_label(key: str, game: str | None, lang: str) -> str:
    """The name of an evidence key: the game's own (its bets' slots), else the common one,
    else the key itself."""
    named = catalogue()
    for entry in (f"report.evidence_key.{game}.{key}", f"report.evidence_key.{key}"):
        if entry in named:
            return t(entry, lang)
    return key


_SCRIPT_LABELS = ("expected", "observed", "impact", "expected_vs_paid", "directive_quote", "no_quote", "location",
                  "show_evidence", "hide_evidence", "page_of", "shown", "print_page", "print_note",
                  "print_screen_filters", "severity", "code", "table_id", "round_id", "seat", "hand", "dealer_id",
                  "evidence", "filter_date_from", "filter_date_to", "date_format", "month_abbr")


def _labels(lang: str) -> dict:
    """The catalogue texts the page's script needs (``report.*`` in the report's language)."""
    out = {key: t(f"report.{key}", lang) for key in _SCRIPT_LABELS}
    for key in catalogue():
        if key.startswith(("report.action.", "report.evidence_key.")):
            out[key[len("report."):]] = t(key, lang)
    return out


# --- charts (inline SVG) ------------------------------------------------------------------

def _bar_chart_h(items: list[tuple[str, int]], *, title: str, colour: str = "#2f5d8a", lang: str) -> Markup:
    """Horizontal bars, one per item (label, count)."""
    if not items:
        return Markup("")
    row, label_w, bar_w, pad = 20, 170, 380, 6
    height = row * len(items) + 2 * pad + 18
    width = label_w + bar_w + 70
    top = max(n for _, n in items) or 1
    parts = [f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" aria-label="{escape(title)}"><title>{escape(title)}</title>',
             f'<text x="0" y="13" class="chart-title">{escape(title)}</text>']
    for i, (label, n) in enumerate(items):
        y = 18 + pad + i * row
        w = max(1.0, bar_w * n / top)
        short = label if len(label) <= 26 else label[:25] + "…"
        parts.append(f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end" class="chart-label">'
                     f'<title>{escape(label)}</title>{escape(short)}</text>'
                     f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row - 6}" fill="{colour}"/>'
                     f'<text x="{label_w + w + 4:.1f}" y="{y + 14}" class="chart-value">{escape(format_count(n, lang))}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))  # noqa: S704 - every text above went through escape()


def _bar_chart_days(days: list[tuple[str, int]], *, title: str, lang: str) -> Markup:
    """Vertical bars, one per day, over the whole span (days without findings drawn empty)."""
    if not days:
        return Markup("")
    from datetime import date, timedelta

    first, last = date.fromisoformat(days[0][0]), date.fromisoformat(days[-1][0])
    span = (last - first).days + 1
    counts = dict(days)
    series = [((first + timedelta(n)).isoformat(), counts.get((first + timedelta(n)).isoformat(), 0))
              for n in range(min(span, 732))]
    width, height, left, bottom, top_pad = 640, 200, 46, 34, 24
    plot_w, plot_h = width - left - 10, height - bottom - top_pad
    top = max(n for _, n in series) or 1
    # A day's label is about 65 px wide: a short span's bars are drawn wide enough that the
    # first and last day's labels (anchored at the ends, facing each other) do not meet.
    step = min(plot_w / len(series), max(48.0, 150.0 / max(len(series) - 1, 1)))
    parts = [f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" aria-label="{escape(title)}"><title>{escape(title)}</title>',
             f'<text x="0" y="13" class="chart-title">{escape(title)}</text>',
             f'<line x1="{left}" y1="{top_pad + plot_h}" x2="{width - 10}" y2="{top_pad + plot_h}" class="axis"/>',
             f'<text x="{left - 4}" y="{top_pad + 8}" text-anchor="end" class="chart-value">{escape(format_count(top, lang))}</text>',
             f'<text x="{left - 4}" y="{top_pad + plot_h}" text-anchor="end" class="chart-value">0</text>']
    for i, (day, n) in enumerate(series):
        h = plot_h * n / top
        x = left + i * step
        parts.append(f'<rect x="{x + step * 0.1:.1f}" y="{top_pad + plot_h - h:.1f}" width="{max(step * 0.8, 0.5):.1f}" '
                     f'height="{h:.1f}" fill="#2f5d8a"><title>{escape(format_day(day, lang))}: '
                     f'{escape(format_count(n, lang))}</title></rect>')
    last, middle = len(series) - 1, (len(series) - 1) // 2
    # the middle day only where its label (centred) keeps clear of both ends' labels
    ticks = sorted({0, last} | ({middle} if min(middle, last - middle) * step >= 110 else set()))
    for i in ticks:
        x = left + i * step + step / 2
        anchor = "start" if i == 0 and len(ticks) > 1 else ("end" if i == len(series) - 1 and i else "middle")
        parts.append(f'<text x="{x:.1f}" y="{height - 14}" text-anchor="{anchor}" class="chart-label">'
                     f'{escape(format_day(series[i][0], lang))}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))  # noqa: S704 - every text above went through escape()


def _top(items: list[dict], n: int, other: str) -> list[tuple[str, int]]:
    ranked = sorted(items, key=lambda r: (-r["findings"], r["key"]))
    out = [(r["key"] or "—", r["findings"]) for r in ranked[:n]]
    rest = sum(r["findings"] for r in ranked[n:])
    if rest:
        out.append((other, rest))
    return out


def _charts(summary: dict, lang: str) -> dict:
    other = t("report.chart_other", lang)
    days = [(r["key"], r["findings"]) for r in summary["by_day"] if r["key"]]
    return {
        "by_day": _bar_chart_days(days, title=t("report.chart_by_day", lang), lang=lang),
        "by_table": _bar_chart_h(_top(summary["by_table"], 15, other), title=t("report.chart_by_table", lang),
                                 lang=lang),
        "by_rule": _bar_chart_h(_top(summary["by_rule"], 20, other), title=t("report.chart_by_rule", lang),
                                colour="#a3261a", lang=lang),
    }


def _breakdown(rows: list[dict], lang: str) -> list[dict]:
    ranked = sorted(rows, key=lambda r: (-r["findings"], r["key"]))[:MAX_BREAKDOWN]
    return [{"key": r["key"], "findings": format_count(r["findings"], lang), "overpaid": _soles(r["overpaid"], lang),
             "underpaid": _soles(r["underpaid"], lang)} for r in ranked]


# --- the page -----------------------------------------------------------------------------

def render_html(result, *, report: dict | None = None) -> str:
    """The report page as a string."""
    report = report if report is not None else build_report(result)
    lang = report["lang"] if report["lang"] in ("es", "en") else "es"
    summary = report["summary"]

    def label(key: str, **params) -> str:
        return t(f"report.{key}", lang, **params)

    specs = _rule_specs(report)
    rules = _rules(report, lang, specs)
    severities = [(s, t(f"report.severity_name.{s}", lang), summary["findings_by_severity"].get(s, 0))
                  for s in SEVERITY_DESC]
    rule_info = {code: {"title": r.title_in(lang), "article": r.article, "quote": r.quote,
                        "source": t(f"report.source_name.{r.source}", lang), "directive": r.directive,
                        "game": r.game}
                 for code, r in specs.items()}
    data = {"lang": lang, "page_size": PAGE_SIZE, "severities": list(SEVERITIES),
            "severity_labels": {s: t(f"report.severity_name.{s}", lang) for s in SEVERITIES},
            "rules": rule_info, "labels": _labels(lang), **_findings_data(report["findings"], lang)}
    filters = report.get("filters") or {"active": False}
    scope = report.get("scope") or {"operator": None, "hall": None, "tables": [], "tables_source": "findings"}
    context = {
        "L": label,
        "lang": lang,
        "report": report,
        "summary": summary,
        "scope": scope,
        "filters": filters,
        "filter_from": format_day(filters.get("from") or "", lang),
        "filter_to": format_day(filters.get("to") or "", lang),
        "filter_severity": t(f"report.severity_name.{filters['severity_min']}", lang) if filters.get("severity_min") else "",
        "generated": format_datetime(report["generated_at"], lang, seconds=True),
        "period_first": format_datetime(report["period"]["first"], lang, seconds=True),
        "period_last": format_datetime(report["period"]["last"], lang, seconds=True),
        "games": _games(report),
        "rules": rules,
        "rules_failed": sum(r["status"] == "failed" for r in rules),
        "rules_error": sum(r["status"] == "error" for r in rules),
        "first_page": _first_page(report["findings"], lang),
        "findings_total": len(report["findings"]),
        "page_size": PAGE_SIZE,
        "rejected": report["rejected"][:MAX_REJECTED],
        "rejected_total": len(report["rejected"]),
        "max_rejected": MAX_REJECTED,
        "severities": severities,
        "codes": sorted(summary["findings_by_code"]),
        "n": lambda v: format_count(v, lang),
        "wagered": _soles(summary["wagered"], lang),
        "overpaid": _soles(summary["overpaid_total"], lang),
        "underpaid": _soles(summary["underpaid_total"], lang),
        "by_table": _breakdown(summary["by_table"], lang),
        "by_dealer": _breakdown(summary["by_dealer"], lang),
        "by_rule": _breakdown(summary["by_rule"], lang),
        "by_table_total": len(summary["by_table"]),
        "by_dealer_total": len(summary["by_dealer"]),
        "max_breakdown": MAX_BREAKDOWN,
        "inputs_folded": len(report["inputs"]) > FOLD_INPUTS,
        "charts": _charts(summary, lang),
        "data": json_for_script(data),
    }
    return _environment().get_template("report.html.j2").render(**context)


def write_html(result, path, *, report: dict | None = None) -> Path:
    """Write the report page of ``result`` to ``path`` (UTF-8); returns the path."""
    path = Path(path)
    path.write_text(render_html(result, report=report), encoding="utf-8")
    return path
