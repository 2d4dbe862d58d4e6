"""The published JSON Schema of the report (docs/schema/audit-report.schema.json): the
committed file is what ``auditor.reporting.report_schema`` writes; the reports of the sample
logs in both languages, of odd inputs and of a batch run conform to it (the hostile corpus's
reports are checked in ``tests/test_hostile.py``); and a report it does not describe (a key
more or less, a float amount, a value outside a closed set) is refused."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.engine import SCHEMA_VERSION
from auditor.reporting.report_schema import schema_text
from auditor.simulate import run as simulate
from pot_luck_rows import hand, write_log
from report_schema_check import SCHEMA_FILE, schema_problems

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
# Round 2: a win of 10.00 not paid (PLB-WIN, impact -10.00); round 3: a card outside the deck
# (rejected, and a PLB-CARDS finding).
ROWS = [hand("1"), hand("2", minute=1, net_main="0"), hand("3", minute=2, cards="9S 7X 2C")]


def audited(*args) -> dict:
    """The JSON report that ``auditor audit ARGS`` writes to ``--out`` (the last two args)."""
    result = runner.invoke(app, ["audit", *map(str, args), "--format", "json"], catch_exceptions=False)
    assert result.exit_code in (0, 1, 2), result.output
    return json.loads((Path(args[-1]) / "audit-report.json").read_text(encoding="utf-8"))


def test_schema_file_is_what_the_module_writes():
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), \
        "regenerate with: python -m auditor.reporting.report_schema docs/schema"
    assert schema["properties"]["schema_version"]["const"] == SCHEMA_VERSION
    for doc in ("README.md", "docs/log-format.md"):
        assert "schema/audit-report.schema.json" in (ROOT / doc).read_text(encoding="utf-8"), doc


@pytest.mark.parametrize("lang", ["es", "en"])
def test_sample_reports_conform(tmp_path, lang):
    report = audited(ROOT / "sample_logs", "--profile", ROOT / "profiles", "--lang", lang,
                     "--operator", "Casino Ejemplo S.A.C.", "--hall", "Sala principal", "--out", tmp_path)
    assert report["lang"] == lang and len(report["games"]) == 3
    assert len(report["findings"]) > 50 and report["rejected"] and report["profiles"]
    assert schema_problems(report) == []


# --- odd inputs: each case says what makes it odd, so that it cannot stop being so unseen ---

def _all_rejected(tmp_path):
    log = write_log(tmp_path / "rechazos.csv", [hand("1", bet="1O.00"), hand("2", minute=1, bet="x")])
    report = audited(log, "--out", tmp_path / "out")
    assert report["summary"]["files_not_audited"] and report["summary"]["no_activity"]
    return report


def _unreadable(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "roto.csv").write_text("a,b,c\n1,2,3\n", encoding="utf-8")  # no log: its game unknown
    (folder / "gone.csv").symlink_to(tmp_path / "nowhere.csv")  # a link whose target is gone
    write_log(folder / "limpio.csv", [hand("1")])
    report = audited(folder, "--out", tmp_path / "out")
    assert len(report["summary"]["input_errors"]) == 2
    assert sorted(i["sha256"] == "" for i in report["inputs"]) == [False, True, True]
    return report


def _empty_folder(tmp_path):
    (tmp_path / "exports").mkdir()
    report = audited(tmp_path / "exports", "--out", tmp_path / "out")
    assert report["inputs"] == [] and report["summary"]["no_activity"] and report["summary"]["paths_without_logs"]
    assert report["period"] == {"first": None, "last": None}
    return report


def _profile_finding_filtered(tmp_path):
    """A posted table profile at fault (a finding of no round, file or line), a dated profile
    of one table, every filter and the operator and hall stated."""
    log, _ = simulate("let-it-ride", rounds=30, seed=3, faults=0.2, out=tmp_path / "lir.csv")
    profile = tmp_path / "perfil.toml"
    profile.write_text('[[profile]]\nid = "lir-jotas"\ngame = "let-it-ride"\nmin_pair = "J"\n'
                       'valid_from = 2026-10-01\nvalid_until = 2026-12-31\ntables = ["LIR-01"]\n', encoding="utf-8")
    report = audited(log, "--profile", profile, "--table", "LIR-01", "--from", "2026-11-01", "--to", "2026-11-30",
                     "--severity", "low", "--operator", "Op", "--hall", "Sala", "--lang", "en",
                     "--out", tmp_path / "out")
    (posted,) = [f for f in report["findings"] if f["code"] == "LIR-PAYTABLE"]
    assert posted["round_id"] == "" and posted["line"] is None and posted["started_at"] is None
    assert report["filters"]["active"] and report["scope"]["operator"] == "Op"
    assert any(p["valid_from"] for p in report["profiles"])
    return report


@pytest.mark.parametrize("case", [_all_rejected, _unreadable, _empty_folder, _profile_finding_filtered],
                         ids=lambda case: case.__name__.strip("_"))
def test_reports_of_odd_inputs_conform(tmp_path, case):
    assert schema_problems(case(tmp_path)) == []


def test_a_batch_runs_report_conforms(tmp_path):
    """``auditor batch`` writes each run's report with the audit's writer, from a result of
    its own making, its findings' evidence marked with their history."""
    exports = tmp_path / "exports"
    exports.mkdir()
    write_log(exports / "mesa.csv", ROWS)
    (exports / "roto.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    result = runner.invoke(app, ["batch", str(exports), "--out", str(tmp_path / "b")], catch_exceptions=False)
    assert result.exit_code == 3, result.output  # (a file not audited)
    report = json.loads((tmp_path / "b" / "runs" / "0001" / "audit-report.json").read_text(encoding="utf-8"))
    assert report["rejected"] and all(f["evidence"]["batch_history"] == "new" for f in report["findings"])
    assert report["findings"] and report["summary"]["input_errors"]
    assert schema_problems(report) == []


# --- the schema refuses what the report is not ------------------------------------------

@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A small conforming report with a finding of an amount, a rejected record and a file not
    audited."""
    tmp = tmp_path_factory.mktemp("report")
    log = write_log(tmp / "mesa.csv", ROWS)
    bad = write_log(tmp / "rechazos.csv", [hand("9", table="T9", bet="x")])
    report = audited(log, bad, "--out", tmp / "out")
    assert report["findings"][0]["impact"] == "-10.00" and report["rejected"] and report["summary"]["files_not_audited"]
    assert schema_problems(report) == []
    return report


def _at(report: dict, path: str):
    """The container and key that ``path`` (``findings/0/impact``) names in ``report``."""
    *parents, key = [int(k) if k.isdigit() else k for k in path.split("/")]
    for k in parents:
        report = report[k]
    return report, key


def _set(path: str, value):
    def change(report):
        target, key = _at(report, path)
        target[key] = value
    return change


def _drop(path: str):
    def change(report):
        target, key = _at(report, path)
        del target[key]
    return change


REFUSED = {
    "a key more in the report": _set("audited_by", "x"),
    "a key more in a finding": _set("findings/0/table", "T1"),
    "a key more in a rejected record": _set("rejected/0/column", "cards"),
    "a key more in the summary": _set("summary/findings_total", 1),
    "a key more in an input": _set("inputs/0/size", 120),
    "a float amount": _set("findings/0/impact", -10.0),
    "a whole amount as a number": _set("findings/0/expected", 10),
    "an amount without its céntimos": _set("findings/0/observed", "0"),
    "a float total": _set("summary/wagered", 20.5),
    "a float count": _set("summary/records_read", 3.5),
    "a float in the evidence": _set("findings/0/evidence/bet", 10.5),
    "a negative total": _set("summary/underpaid_total", "-10.00"),
    "the summary missing": _drop("summary"),
    "schema_version missing": _drop("schema_version"),
    "a finding without its code": _drop("findings/0/code"),
    "the summary without files_not_audited": _drop("summary/files_not_audited"),
    "another schema_version": _set("schema_version", "2.0"),
    "a severity of no scale": _set("findings/0/severity", "grave"),
    "a language of no catalogue": _set("lang", "fr"),
    "a game of no format": _set("games/0", "baccarat"),
    "a rule status of none": _set("rules/0/status", "skipped"),
    "a time without its zone": _set("period/first", "2026-11-01T20:00:00"),
    "a line 0": _set("rejected/0/line", 0),
}


@pytest.mark.parametrize("change", list(REFUSED.values()), ids=list(REFUSED))
def test_the_schema_refuses_what_the_report_is_not(report, change):
    changed = copy.deepcopy(report)
    change(changed)
    assert changed != report
    assert schema_problems(changed) != []
