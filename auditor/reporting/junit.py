"""The JUnit XML report: one test suite per game, one test case per rule.

A rule with findings in the report is a ``failure`` that lists its findings (the first
``MAX_LISTED``, then how many more); a rule that did not apply is ``skipped``; a check that
crashed is an ``error``; a rule that passed is a plain test case. A log that could not be
read, or none of whose records could be audited, and a path under which no log was found
(each exits 2), is an ``error`` test case of a suite of its own ("archivos de registro"), so
that the run is not shown green. Text that XML 1.0 cannot hold (a control character in a file
name) is written escaped (``\x01``). CI systems that read JUnit show the audit as a test run.

Every suite gives its ``hostname`` (the machine's) and ``time``, as Ant's XSD, the strictest,
requires: a game's suite the seconds its audit took, the root the whole audit's, and 0 where
the time is not known (the suite of the logs at fault; a report rendered without the audit's
result). So two runs on the same inputs differ in the times, as in the generation time.
"""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET
from pathlib import Path

from ..i18n import t
from ..registry import GAMES, plugin
from .json_report import build_report, failed_inputs
from ..specs import SEVERITIES

__all__ = ["build_junit", "write_junit", "MAX_LISTED"]

MAX_LISTED = 50


def _line(f: dict, lang: str) -> str:
    """One finding as a line of its rule's failure, in the report's language."""
    L = lambda key: t(f"report.{key}", lang).lower()  # noqa: E731
    where = f["file"] + (f":{f['line']}" if f["line"] is not None else "") if f["file"] else ""
    seat = "" if f["seat"] is None else f" {L('seat')} {f['seat']}" + ("" if f["hand"] is None else f"/{f['hand']}")
    money = ""
    if f["expected"] is not None or f["observed"] is not None:
        amounts = ", ".join(f"{L(k)} {'—' if f[k] is None else f[k]}" for k in ("expected", "observed", "impact"))
        money = f" ({amounts})"
    severity = t(f"report.severity_name.{f['severity']}", lang) if f["severity"] in SEVERITIES else f["severity"]
    return f"[{severity}] {f['table_id']} {f['round_id']}{seat} {f['started_at'] or ''}: {f['message']}{money} {where}".strip()


def _seconds(value: float | None) -> str:
    return f"{value:.3f}" if value else "0"


def build_junit(report: dict, *, seconds: float | None = None, game_seconds: dict[str, float] | None = None) -> ET.Element:
    """The JUnit document of ``report``; ``seconds`` and ``game_seconds``: how long the audit
    took, whole and of each game (0 where not given)."""
    lang = report["lang"]
    game_seconds = game_seconds or {}
    host = socket.gethostname() or "localhost"
    by_code: dict[str, list[dict]] = {}
    for f in report["findings"]:
        by_code.setdefault(f["code"], []).append(f)
    suites = ET.Element("testsuites", name="casino-auditor", time=_seconds(seconds))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    games = list(dict.fromkeys([*report["games"], *(r["game"] for r in report["rules"])]))
    for game in games:
        rules = [r for r in report["rules"] if r["game"] == game]
        suite = ET.SubElement(suites, "testsuite", name=game, timestamp=report["generated_at"][:19], hostname=host,
                              time=_seconds(game_seconds.get(game)))
        props = ET.SubElement(suite, "properties")
        if game in GAMES:
            spec = plugin(game).spec
            for name, value in (("directive", spec.directive), ("citation", spec.citation),
                                ("spec_version", spec.version)):
                ET.SubElement(props, "property", name=name, value=value)
        ET.SubElement(props, "property", name="tool_version", value=report["tool_version"])
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for r in rules:
            counts["tests"] += 1
            case = ET.SubElement(suite, "testcase", name=f"{r['code']}: {r['title']}", classname=game, time="0")
            found = by_code.get(r["code"], [])
            if r["status"] == "error":
                counts["errors"] += 1
                ET.SubElement(case, "error", message=r["note"] or "error", type="CheckError").text = r["note"]
            elif found:
                counts["failures"] += 1
                text = [_line(f, lang) for f in found[:MAX_LISTED]]
                if len(found) > MAX_LISTED:
                    text.append(t("report.junit_more", lang, count=len(found) - MAX_LISTED))
                failure = ET.SubElement(case, "failure", type=r["severity"],
                                        message=t("report.junit_findings", lang, count=len(found)))
                failure.text = "\n".join(text)
            elif r["status"] == "not_applicable":
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=r["note"] or t("report.rule_status.not_applicable", lang))
            elif r["status"] == "failed":  # every finding of the rule is outside the report filters
                ET.SubElement(case, "system-out").text = t("report.junit_filtered_out", lang, count=r["violations"])
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
    # A log that could not be read, or none of whose records could be audited, and a path with
    # no log under it, exit 2: each is an error here too (a CI shows the run red), one test case per file in a suite of its own.
    failed = [(e["path"], e["error"]) for e in failed_inputs(report)]
    if failed:
        suite = ET.SubElement(suites, "testsuite", name=t("report.junit_inputs", lang),
                              timestamp=report["generated_at"][:19], hostname=host, time="0", tests=str(len(failed)),
                              failures="0",
                              errors=str(len(failed)), skipped="0")
        for path, error in failed:
            case = ET.SubElement(suite, "testcase", name=path, classname="inputs", time="0")
            ET.SubElement(case, "error", message=error, type="InputError").text = error
        totals["tests"] += len(failed)
        totals["errors"] += len(failed)
    for k, v in totals.items():
        if k != "skipped":
            suites.set(k, str(v))
    _xml_safe(suites)
    return suites


# The characters XML 1.0 has no place for (most control characters, lone surrogates, U+FFFE
# and U+FFFF): a file name may hold them, and ElementTree writes them as they are, making the
# document one that no parser reads. They are written escaped, as Python shows them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escaped(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                        text)


def _xml_safe(root: ET.Element) -> None:
    for element in root.iter():
        if element.text and _NOT_XML.search(element.text):
            element.text = _escaped(element.text)
        for name, value in element.attrib.items():
            if _NOT_XML.search(value):
                element.set(name, _escaped(value))


def write_junit(result, path, *, report: dict | None = None) -> Path:
    path = Path(path)
    root = build_junit(report if report is not None else build_report(result), seconds=getattr(result, "seconds", None),
                       game_seconds=getattr(result, "game_seconds", None))
    ET.indent(root)
    path.write_bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")
    return path
