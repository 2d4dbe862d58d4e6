"""Broken and hostile input (tests/hostile): every file gets its expected outcome, never a
traceback; every record is accounted for; the JSON report conforms to the published schema of
the report (docs/schema/audit-report.schema.json); nothing from a log is executed, written
outside --out, or sent anywhere.

The corpus is written by ``tests/hostile/make_corpus.py``; ``tests/hostile/manifest.toml``
records, per file, the exit code and what the reports must say.
"""

from __future__ import annotations

import csv
import io
import json
import re
import socket
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.i18n import catalogue
from report_schema_check import schema_problems

HERE = Path(__file__).resolve().parent / "hostile"
MANIFEST = tomllib.loads((HERE / "manifest.toml").read_text(encoding="utf-8"))
FORMATS = "html,json,csv,sarif,junit"
REPORTS = {"audit-report.html", "audit-report.json", "audit-findings.csv", "audit-report.sarif", "audit-junit.xml"}
DANGEROUS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
runner = CliRunner()


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"network connection attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _message_pattern(key: str) -> re.Pattern:
    """The Spanish catalogue text of ``key`` with its {params} as wildcards."""
    text = re.escape(catalogue()[key]["es"])
    return re.compile(re.sub(r"\\\{[a-z_]+\\\}", ".*", text), re.S)


def test_corpus_is_complete():
    files = {p.name for p in (HERE / "files").iterdir()}
    assert files == set(MANIFEST), "every corpus file has a manifest entry and every entry a file"
    assert len(files) >= 30


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_hostile_file(name, tmp_path):
    expect = MANIFEST[name]
    source = tmp_path / "in" / name
    source.parent.mkdir()
    source.write_bytes((HERE / "files" / name).read_bytes())
    out = tmp_path / "out"
    result = runner.invoke(app, ["audit", str(source), "--out", str(out), "--format", FORMATS, *expect.get("args", [])])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    assert result.exit_code == expect["exit"], result.output

    # Nothing written but the reports, and only under --out.
    assert {p.name for p in out.iterdir()} == REPORTS
    assert {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()} == \
        {f"in/{name}"} | {f"out/{r}" for r in REPORTS}

    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    assert schema_problems(report) == []  # docs/schema/audit-report.schema.json
    (item,) = report["inputs"]
    assert item["records_read"] == item["records_audited"] + item["records_rejected"]
    s = report["summary"]
    assert s["records_read"] == s["records_audited"] + s["records_rejected"] == item["records_read"]
    # One entry per rejected record (its further reasons in "also"), except a count of records
    # that never reached the audit (reject.unread, the count in its detail).
    rejected_records = {(r["file"], r["line"]) for r in report["rejected"]}
    unread = sum(int(r["detail"]) - 1 for r in report["rejected"] if r["reason_code"] == "reject.unread")
    assert len(rejected_records) == len(report["rejected"]) == item["records_rejected"] - unread
    if "error" in expect:
        assert item["error"] and _message_pattern(expect["error"]).fullmatch(item["error"]), item["error"]
        assert item["records_read"] == 0
    else:
        assert item["error"] is None
        assert item["records_read"] == expect["read"]
        assert item["records_rejected"] == expect["rejected"]
        assert sorted({r["reason_code"] for r in report["rejected"]}
                      | {a["reason_code"] for r in report["rejected"] for a in r["also"]}) == expect["reasons"]
        assert all(r["file"] == str(source) and r["line"] >= 1 for r in report["rejected"])
        assert sorted({f["code"] for f in report["findings"]}) == expect["findings"]
        assert len(item.get("notes", [])) == expect["notes"]
        assert item["extra_columns"] == expect.get("extra_columns", [])
    text = json.dumps(report, ensure_ascii=False)
    for fragment in expect.get("contains", []):
        assert fragment in text

    html = (out / "audit-report.html").read_text(encoding="utf-8")
    for raw in ("<script>alert", "<img src=x"):
        assert raw not in html
    rows = list(csv.reader(io.StringIO((out / "audit-findings.csv").read_text(encoding="utf-8-sig"))))
    header = rows[0]
    for row in rows[1:]:
        for column, cell in zip(header, row):
            money = column in ("expected", "observed", "impact") and PLAIN_NUMBER.fullmatch(cell)
            assert money or not cell.startswith(DANGEROUS), (column, cell)


def test_options_override_detection(tmp_path):
    """--encoding and --delimiter name what detection would otherwise decide."""
    src = HERE / "files" / "cp1252_accents.csv"
    out = tmp_path / "out"
    result = runner.invoke(app, ["audit", str(src), "--out", str(out), "--format", "json",
                                 "--encoding", "latin-1", "--delimiter", ","])
    assert result.exit_code == 1, result.output
    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    assert "Iñigo Muñoz" in json.dumps(report, ensure_ascii=False)
    assert "notes" not in report["inputs"][0]
    # A wrong separator: the header is not a game's.
    result = runner.invoke(app, ["audit", str(src), "--out", str(out), "--format", "json", "--delimiter", "tab"])
    assert result.exit_code == 2
    result = runner.invoke(app, ["audit", str(src), "--out", str(out), "--format", "json", "--encoding", "klingon"])
    assert result.exit_code == 2 and "klingon" in result.stderr
    # An encoding the file is not in (UTF-16 without its mark), or a codec that is no text
    # encoding: a message naming it, exit 2, no traceback; CSV and JSONL alike.
    for name in ("clean.csv", "clean.jsonl"):
        for encoding, said in (("utf-16", "utf-16"), ("utf-32", "utf-32"), ("base64", "base64"), ("rot13", "rot13")):
            result = runner.invoke(app, ["audit", str(HERE / "files" / name), "--out", str(out), "--format", "json",
                                         "--encoding", encoding])
            assert result.exit_code == 2 and said in result.stderr, (name, encoding, result.output)
            assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


def test_table_ids_cannot_steer_output_paths(tmp_path):
    """Report file names are fixed: a table id of ``../../x`` in the log changes nothing."""
    from auditor.cli import REPORT_FILES

    assert all("/" not in name and ".." not in name for name in REPORT_FILES.values())


def test_a_dangling_link_in_a_folder_is_an_unreadable_input(tmp_path):
    """An export in a folder that is a link to a file gone is listed as unreadable (exit 2),
    not passed over; the folder's other files are audited."""
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "clean.csv").write_bytes((HERE / "files" / "clean.csv").read_bytes())
    (folder / "mesa2.csv").symlink_to(tmp_path / "gone.csv")
    out = tmp_path / "out"
    result = runner.invoke(app, ["audit", str(folder), "--out", str(out), "--format", "json"])
    assert result.exit_code == 2 and "mesa2.csv" in result.stderr, result.output
    inputs = {Path(i["path"]).name: i for i in json.loads((out / "audit-report.json").read_text(encoding="utf-8"))["inputs"]}
    assert inputs["mesa2.csv"]["error"] and inputs["clean.csv"]["records_audited"] > 0


def test_a_rejected_value_is_shown_as_the_log_gives_it(tmp_path):
    """A value that does not type is rejected with the text the log gives (cut at 80
    characters), so the inspector sees what was wrong; a missing value shows nothing."""
    out = tmp_path / "out"
    runner.invoke(app, ["audit", str(HERE / "files" / "non_numeric_amounts.csv"), str(HERE / "files" / "huge_field.csv"),
                        "--out", str(out), "--format", "json"])
    rejected = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))["rejected"]
    shown = {(Path(r["file"]).name, r["reason_code"], r["detail"]) for r in rejected}
    assert {("non_numeric_amounts.csv", "reject.bad_amount", "ten"),
            ("non_numeric_amounts.csv", "reject.bad_amount", "1.000,00"),
            ("huge_field.csv", "reject.bad_cards", ("AS " * 27)[:80])} <= shown, shown
