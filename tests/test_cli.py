"""Tests of the command line (auditor.cli): exit codes, written reports, diagnostics on
stderr, and the rules/explain catalogues."""

from __future__ import annotations

import csv
import json
import os
import re
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import typer.core
import typer.main
from typer.testing import CliRunner

from auditor.cli import app
from auditor.i18n import t
from pot_luck_rows import HEADER, hand, write_log


runner = CliRunner()


CLEAN = [hand("1", minute=0), hand("2", minute=1, cards="9S 7D", actions="S", net_main="-10.00")]
# The dealer drew on a soft 17: one high-severity finding (PLB-DEALER-PLAY).
HIGH_ONLY = [hand("1", minute=0), hand("2", minute=1, dealer="AH 6C QD", cards="8S 3D 9C")]


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def clean_log(tmp_path):
    return write_log(tmp_path / "clean.csv", CLEAN)


@pytest.fixture
def high_log(tmp_path):
    return write_log(tmp_path / "high.csv", HIGH_ONLY)


def test_clean_log_exits_0(clean_log, tmp_path):
    out = tmp_path / "out"
    result = run("audit", clean_log, "--out", out)
    assert result.exit_code == 0, result.output
    assert (out / "audit-report.html").is_file() and (out / "audit-report.json").is_file()
    assert not (out / "audit-findings.csv").exists()
    assert result.stdout == ""
    assert "2 partidas auditadas, 0 hallazgos, 0 registros rechazados" in result.stderr
    assert str(out / "audit-report.json") in result.stderr
    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    s = report["summary"]
    assert s["records_read"] == s["records_audited"] + s["records_rejected"] == 2
    assert report["findings"] == []


def test_findings_exit_1_and_fail_on(high_log, tmp_path):
    result = run("audit", high_log, "--out", tmp_path / "a")
    assert result.exit_code == 1, result.output
    assert "1 hallazgos" in result.stderr
    assert run("audit", high_log, "--out", tmp_path / "b", "--fail-on", "high").exit_code == 1
    assert run("audit", high_log, "--out", tmp_path / "c", "--fail-on", "critical").exit_code == 0
    assert run("audit", high_log, "--out", tmp_path / "d", "--fail-on", "none").exit_code == 0


def test_the_installed_command_keeps_exit_codes_and_output(clean_log, high_log, tmp_path):
    """``auditor`` (``python -m auditor``, ``cli.main``) ends the process without the
    interpreter's teardown: its exit codes and everything it printed must still arrive,
    through pipes too."""
    def command(*args):
        return subprocess.run([sys.executable, "-m", "auditor", *map(str, args)],
                              capture_output=True, text=True, timeout=120)
    clean = command("audit", clean_log, "--out", tmp_path / "a")
    high = command("audit", high_log, "--out", tmp_path / "b")
    assert (clean.returncode, high.returncode) == (0, 1), (clean.stderr, high.stderr)
    assert "1 hallazgos" in high.stderr and str(tmp_path / "b" / "audit-report.json") in high.stderr
    assert json.loads((tmp_path / "b" / "audit-report.json").read_text(encoding="utf-8"))["summary"]["findings"] == 1
    assert command("audit", tmp_path / "missing.csv", "--out", tmp_path / "c").returncode == 2
    catalogue = command("rules", "--lang", "en")
    assert catalogue.returncode == 0 and catalogue.stdout == run("rules", "--lang", "en").stdout


def test_start_up_leaves_the_garbage_collector_on_for_the_work(clean_log, tmp_path, monkeypatch):
    """Off while the command starts (``auditor.__main__``), the collector is on while an
    audit runs and once any other command starts."""
    import gc

    from auditor import engine

    seen = []
    real = engine.audit
    monkeypatch.setattr(engine, "audit", lambda *a, **k: seen.append(gc.isenabled()) or real(*a, **k))
    gc.disable()
    try:
        assert run("audit", clean_log, "--out", tmp_path / "out").exit_code == 0
        assert seen == [True] and not gc.isenabled()  # as it was before the command
        assert run("rules").exit_code == 0 and gc.isenabled()
    finally:
        gc.enable()


def test_all_formats_and_english(high_log, tmp_path):
    out = tmp_path / "out"
    result = run("audit", high_log, "--out", out, "--format", "html,json,csv", "--lang", "en")
    assert result.exit_code == 1
    assert "2 rounds audited, 1 findings, 0 records rejected" in result.stderr
    html = (out / "audit-report.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in html
    for label in ("Round audit report", "Rules checked", "Findings by severity", "Filter by rule",
                  "Text of the directive", "standard practice; not in the available text"):
        assert label in html
    assert "Hallazgos" not in html
    rows = list(csv.DictReader((out / "audit-findings.csv").open(encoding="utf-8-sig", newline="")))
    assert [r["code"] for r in rows] == ["PLB-DEALER-PLAY"]
    assert json.loads((out / "audit-report.json").read_text(encoding="utf-8"))["lang"] == "en"


def test_same_input_same_json(high_log, tmp_path):
    texts = []
    for name in ("a", "b"):
        assert run("audit", high_log, "--out", tmp_path / name, "--format", "json").exit_code == 1
        texts.append((tmp_path / name / "audit-report.json").read_text(encoding="utf-8"))
    a, b = (json.loads(x) for x in texts)
    assert a.pop("generated_at") and b.pop("generated_at")
    assert a == b
    assert ([x for x in texts[0].splitlines() if "generated_at" not in x]
            == [x for x in texts[1].splitlines() if "generated_at" not in x])


def test_csv_neutralises_dealer_formula_keeps_negative_amount(tmp_path):
    log = write_log(tmp_path / "f.csv", [
        hand("1", minute=0, dealer_id='=HYPERLINK("x")', net_main="0"),  # a win of 10.00 not paid
    ])
    out = tmp_path / "out"
    assert run("audit", log, "--out", out, "--format", "csv").exit_code == 1
    text = (out / "audit-findings.csv").read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(text.splitlines()))
    (win,) = [r for r in rows if r["code"] == "PLB-WIN"]
    assert win["dealer_id"] == "'=HYPERLINK(\"x\")"
    assert win["impact"] == "-10.00" and win["expected"] == "10.00" and win["observed"] == "0.00"
    assert ",-10.00," in text


def test_html_escapes_dealer_script(tmp_path):
    log = write_log(tmp_path / "x.csv", [hand("1", dealer_id="<script>alert(1)</script>", net_main="0")])
    out = tmp_path / "out"
    assert run("audit", log, "--out", out, "--format", "html").exit_code == 1
    html = (out / "audit-report.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_header_only_log_is_no_activity(tmp_path):
    log = write_log(tmp_path / "empty.csv", [])
    out = tmp_path / "out"
    result = run("audit", log, "--out", out)
    assert result.exit_code == 0, result.output
    assert "Sin actividad" in (out / "audit-report.html").read_text(encoding="utf-8")
    assert "sin actividad" in result.stderr
    assert json.loads((out / "audit-report.json").read_text(encoding="utf-8"))["summary"]["no_activity"] is True


def test_all_rounds_rejected_is_no_activity(tmp_path):
    """A file none of whose records could be audited: the reports are written (no activity),
    and the exit code is 2, as for an unreadable file, whatever --fail-on says: a scheduled
    job is not told that all went well."""
    log = write_log(tmp_path / "bad.csv", [hand("1", cards="9S 7X 2C")])
    out = tmp_path / "out"
    result = run("audit", log, "--out", out, "--fail-on", "none")
    assert result.exit_code == 2, result.output
    assert "1 registros rechazados" in result.stderr and "ningún registro del archivo pudo auditarse" in result.stderr
    html = (out / "audit-report.html").read_text(encoding="utf-8")
    assert "Sin actividad" in html
    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    assert report["summary"]["records_read"] == 1 == report["summary"]["records_rejected"]


def test_a_file_of_copies_and_unreadable_rounds_is_not_audited(tmp_path):
    """A file none of whose records was audited: one a copy of a round another file has,
    the other unreadable, is a file nothing of which was audited (exit 2); a file of copies
    only is not (the copies' rounds were audited)."""
    first = write_log(tmp_path / "a.csv", [hand("1")])
    mixed = write_log(tmp_path / "b.csv", [hand("1"), hand("2", cards="9S 7X 2C")])
    copies = write_log(tmp_path / "c.csv", [hand("1")])
    result = run("audit", first, mixed, "--out", tmp_path / "o1", "--fail-on", "none")
    assert result.exit_code == 2 and "b.csv" in result.stderr, result.output
    result = run("audit", first, copies, "--out", tmp_path / "o2", "--fail-on", "none")
    assert result.exit_code == 0, result.output


def test_missing_file_exits_2(tmp_path):
    result = run("audit", tmp_path / "nope.csv", "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert "nope.csv" in result.stderr and "Traceback" not in result.output
    report = json.loads((tmp_path / "out" / "audit-report.json").read_text(encoding="utf-8"))
    assert report["summary"]["input_errors"][0]["path"].endswith("nope.csv")


@pytest.mark.parametrize("lang", ["es", "en"])
def test_an_audit_without_profiles_says_it_applies_the_standard_values(clean_log, tmp_path, lang):
    """Without --profile every table is judged under its game's standard values (the sample
    logs give 1,521 findings so, 127 under the profiles their tables post): said, not left to
    the report's list of profiles."""
    result = run("audit", clean_log, "--out", tmp_path / "o1", "--lang", lang)
    assert result.exit_code == 0 and t("cli.no_profile", lang) in result.stderr
    profile = tmp_path / "mesa.toml"
    profile.write_text('game = "pot-luck-blackjack"\nid = "sala"\n', encoding="utf-8")
    result = run("audit", clean_log, "--out", tmp_path / "o2", "--lang", lang, "--profile", profile)
    assert result.exit_code == 0 and t("cli.no_profile", lang) not in result.stderr


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_report_filter_no_audited_round_can_pass_is_warned_about(high_log, tmp_path, lang):
    """A mistyped --table (`t1` for `T1`), or a period outside the log's, showed no finding and
    exited 0, as a clean audit does; it still does, and says why nothing is shown."""
    no_table = t("cli.filter_no_table", lang, table="t1")
    no_period = t("cli.filter_no_period", lang, first="2026-11-01", last="2026-11-01")
    result = run("audit", high_log, "--out", tmp_path / "o1", "--lang", lang, "--table", "t1", "--table", "T1",
                 "--to", "2026-10-31")
    assert result.exit_code == 0
    assert no_table in result.stderr and no_period in result.stderr
    assert t("cli.filter_no_table", lang, table="T1") not in result.stderr
    result = run("audit", high_log, "--out", tmp_path / "o2", "--lang", lang, "--table", "T1",
                 "--from", "2026-11-01", "--to", "2026-11-01")
    assert result.exit_code == 1  # the finding passes the filters, and nothing is said of them
    assert no_table.split("«")[0] not in result.stderr and no_period.split("(")[0] not in result.stderr
    result = run("audit", high_log, "--out", tmp_path / "o3", "--lang", lang, "--from", "2026-11-02")
    assert result.exit_code == 0 and no_period in result.stderr


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_path_that_does_not_exist_is_said_missing_not_of_another_type(tmp_path, lang):
    """A mistyped folder of exports (no log suffix, nothing there) was reported as «tipo de
    archivo no reconocido», sending the inspector to look at the file's type. It is said to be
    missing, as a missing log file is; a file that is there with another suffix still is of
    an unrecognised type."""
    result = run("audit", tmp_path / "exportaciones-novimebre", "--out", tmp_path / "out", "--lang", lang)
    assert result.exit_code == 2
    report = json.loads((tmp_path / "out" / "audit-report.json").read_text(encoding="utf-8"))
    missing = t("input.unreadable", lang, error=t("os_error.ENOENT", lang))
    assert report["summary"]["input_errors"][0]["error"] == missing and missing in result.stderr
    (tmp_path / "notas.txt").write_text("", encoding="utf-8")
    result = run("audit", tmp_path / "notas.txt", "--out", tmp_path / "out", "--lang", lang)
    assert result.exit_code == 2 and t("input.unknown_type", lang) in result.stderr


@pytest.mark.parametrize("lang, said", [("es", "no se pudo leer el archivo (no existe)"),
                                        ("en", "the file could not be read (no such file or directory)")])
def test_the_systems_reason_a_file_cannot_be_read_or_written_is_said_in_the_reports_language(tmp_path, lang, said):
    """The operating system's reason (its text is English whatever the report's language)
    was quoted as it is: a Spanish report said «no se pudo leer el archivo (No such file or
    directory)», a Spanish --out «no se pudo escribir …: File exists»."""
    result = run("audit", tmp_path / "nope.csv", "--out", tmp_path / "out", "--lang", lang)
    assert result.exit_code == 2
    report = json.loads((tmp_path / "out" / "audit-report.json").read_text(encoding="utf-8"))
    assert report["summary"]["input_errors"][0]["error"] == said and said in result.stderr
    (tmp_path / "taken").write_text("", encoding="utf-8")
    result = run("audit", tmp_path / "nope.csv", "--out", tmp_path / "taken", "--lang", lang)
    assert result.exit_code == 2
    assert result.stderr.strip() == "auditor: " + t("cli.cannot_write", lang, path=tmp_path / "taken",
                                                    error=t("os_error.EEXIST", lang))
    assert "File exists" not in result.stderr
    (tmp_path / "perfiles" / "mesa.toml").mkdir(parents=True)  # a profile folder's entry that is no file
    result = run("audit", tmp_path / "nope.csv", "--profile", tmp_path / "perfiles", "--out", tmp_path / "o2",
                 "--lang", lang)
    assert result.exit_code == 2 and result.stderr.rstrip().endswith(f"({t('os_error.EISDIR', lang)})")


# Words of the reasons zlib, Python's codecs and Arrow give (and of the classes of their
# exceptions): none of them may reach a Spanish report.
LIBRARY_WORDS = ("Error", "Invalid", "decompressing", "incorrect", "truncated", "gzipped", "end-of-stream",
                 "does not start", "stream", "Arrow", "magic bytes", "thrift", "footer")


def _pot_luck_parquet(rows, **columns) -> bytes:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.table({**{k: [r[k] for r in rows] for k in HEADER}, **columns}), sink)
    return sink.getvalue()


def _gzip(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data, mtime=0)


def _unreadable(tmp_path, case: str):
    """(the file's bytes, its name, the options, the catalogue key and values of why it cannot
    be read; a value given as (key,) is that message, in the report's language too)."""
    text = write_log(tmp_path / "plain.csv", CLEAN).read_bytes()
    if case == "not_gzip":  # an uncompressed export named .csv.gz
        return text, "mesa.csv.gz", [], ("input.not_gzip", {})
    if case == "gzip_truncated":  # a copy cut off: its last deflate bytes and its trailer missing
        return _gzip(text)[:-12], "mesa.csv.gz", [], ("input.gzip_truncated", {})
    if case == "gzip_truncated_jsonl":
        line = {"game": "pot-luck-blackjack", **{k: CLEAN[0][k] for k in HEADER[:6]},
                "hands": [{k: CLEAN[0][k] for k in HEADER[6:]}]}
        return _gzip((json.dumps(line) + "\n").encode() * 50)[:-12], "mesa.jsonl.gz", [], ("input.gzip_truncated", {})
    if case == "gzip_check_failed":  # a byte of the CRC-32 in the trailer changed
        data = bytearray(_gzip(text))
        data[-8] ^= 0xFF
        return bytes(data), "mesa.csv.gz", [], ("input.gzip_check_failed", {})
    if case == "gzip_damaged":  # a gzip header, then a deflate block of the type no deflate stream has
        return _gzip(b"")[:10] + b"\x07" + b"\x00" * 40, "mesa.csv.gz", [], ("input.gzip_damaged", {})
    if case == "encoding_mark_missing":  # UTF-16 as Windows writes it, but without its mark
        return (text.decode("utf-8").encode("utf-16-le"), "mesa.csv", ["--encoding", "utf-16"],
                ("input.encoding_mark_missing", {"encoding": "utf-16"}))
    if case == "not_parquet":
        return text, "mesa.parquet", [], ("input.not_parquet", {})
    if case == "parquet_cut":
        data = _pot_luck_parquet(CLEAN)
        return data[:len(data) // 2], "mesa.parquet", [], ("input.parquet_cut", {})
    if case == "parquet_damaged":  # its footer's length and its metadata are noise
        return b"PAR1" + bytes(range(200)) + b"PAR1", "mesa.parquet", [], ("input.parquet_damaged", {})
    if case == "parquet_column_names":  # an extra column named in Latin-1 (ended in a traceback)
        data = _pot_luck_parquet(CLEAN, observacion=["", ""]).replace(b"observacion", b"observaci\xf3n")
        return data, "mesa.parquet", [], ("input.parquet_column_names", {})
    assert case == "parquet_missing"  # (the system's reason: it was Python's FileNotFoundError)
    return None, "mesa.parquet", [], ("input.unreadable", {"error": ("os_error.ENOENT",)})


@pytest.mark.parametrize("case", ["not_gzip", "gzip_truncated", "gzip_truncated_jsonl", "gzip_check_failed",
                                  "gzip_damaged", "encoding_mark_missing", "not_parquet", "parquet_cut",
                                  "parquet_damaged", "parquet_column_names", "parquet_missing"])
def test_why_a_log_cannot_be_read_is_said_in_the_catalogues_words(tmp_path, case):
    """zlib's, a codec's and Arrow's reasons were quoted as they give them, in English, in a
    Spanish message and report: «el archivo comprimido está dañado (Error -3 while
    decompressing data: incorrect header check)», «… como utf-16: UTF-16 stream does not start
    with BOM», «no se pudo leer el archivo (ArrowInvalid)» (or «(FileNotFoundError)»). Each is
    said in the report's language, with what an inspector can do about it."""
    data, name, options, (key, params) = _unreadable(tmp_path, case)
    log = tmp_path / name
    if data is not None:
        log.write_bytes(data)
    for lang in ("en", "es"):
        out = tmp_path / lang
        result = run("audit", log, *options, "--out", out, "--format", "json", "--lang", lang)
        assert result.exit_code == 2, result.output
        said = t(key, lang, **{k: t(v[0], lang) if isinstance(v, tuple) else v for k, v in params.items()})
        report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
        assert report["summary"]["input_errors"] == [{"path": str(log), "error": said}]
        assert report["inputs"][0]["error"] == said
        assert t("cli.input_error", lang, path=log, error=said) in result.stderr.splitlines()
        if lang == "es":
            assert not [w for w in LIBRARY_WORDS if w in said], said


def test_a_parquet_file_damaged_past_its_first_rows_says_from_which_row(tmp_path, monkeypatch):
    """Arrow's reason names no row: the rows of the batches before the damaged one are read
    and audited, and the message says from which row on none could be."""
    import pyarrow.parquet as pq

    from auditor import engine
    from auditor.logs import sources

    monkeypatch.setattr(engine, "BATCH_ROWS", 1_000)  # (read in batches of 1,000 rows, its least)
    monkeypatch.setattr(sources, "_PROBE_ROWS", 10)
    log = tmp_path / "mesa.parquet"
    log.write_bytes(_pot_luck_parquet([hand(str(n), day=1 + n // 60, minute=n % 60) for n in range(1_500)]))
    pq.write_table(pq.read_table(log), log, row_group_size=500)
    data = bytearray(log.read_bytes())
    third = pq.ParquetFile(log).metadata.row_group(2)  # rows 1,001 to 1,500: each column's first page header
    for column in range(third.num_columns):
        start = third.column(column).dictionary_page_offset or third.column(column).data_page_offset
        data[start:start + 8] = b"\xff" * 8
    log.write_bytes(bytes(data))
    for lang in ("en", "es"):
        out = tmp_path / lang
        result = run("audit", log, "--out", out, "--format", "json", "--lang", lang)
        assert result.exit_code == 2, result.output
        said = t("input.parquet_damaged_at", lang, row=1001)
        report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
        assert report["summary"]["input_errors"] == [{"path": str(log), "error": said}]
        assert report["inputs"][0]["records_read"] == 1_000 and report["summary"]["rounds_audited"] >= 999
        assert t("cli.input_error", lang, path=log, error=said) in result.stderr.splitlines()


@pytest.mark.parametrize("kind, reason, said", [
    # (as Arrow says a Parquet file's compression or encoding is one it lacks)
    ("ArrowNotImplementedError", "Not yet implemented: only plain dictionary encoding has been implemented",
     ("input.parquet_unsupported", {})),
    ("OSError", "While LZO compression is supported by the Parquet format in general, it is currently not "
     "supported by the C++ implementation.", ("input.parquet_unsupported", {})),
    # (an error of another kind: it ended in a traceback)
    ("ArrowTypeError", "an odd reason of Arrow", ("input.unreadable", {"error": "an odd reason of Arrow"})),
    ("ArrowTypeError", "", ("input.unreadable", {"error": ("input.no_reason",)})),
])
def test_arrows_other_reasons_are_said_in_the_catalogues_words_or_quoted_never_as_a_class(tmp_path, monkeypatch,
                                                                                         kind, reason, said):
    """A reason the catalogue has no words for is quoted as Arrow gives it; without words,
    never as the name of its exception's class (the report said «(ArrowInvalid)»)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    log = tmp_path / "mesa.parquet"
    log.write_bytes(_pot_luck_parquet(CLEAN))

    def refuse(*args, **kwargs):
        raise (OSError if kind == "OSError" else getattr(pa, kind))(reason)

    monkeypatch.setattr(pq, "read_schema", refuse)
    key, params = said
    for lang in ("en", "es"):
        result = run("audit", log, "--out", tmp_path / lang, "--format", "json", "--lang", lang)
        assert result.exit_code == 2, result.output
        expected = t(key, lang, **{k: t(v[0], lang) if isinstance(v, tuple) else v for k, v in params.items()})
        assert t("cli.input_error", lang, path=log, error=expected) in result.stderr.splitlines()
        assert "Arrow" not in result.stderr.replace("of Arrow", "")


def test_missing_required_column_exits_2(tmp_path):
    header = [c for c in HEADER if c != "bet"]
    log = write_log(tmp_path / "nobet.csv", CLEAN, header=header)
    result = run("audit", log, "--out", tmp_path / "a")
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_missing_required_column_with_game_exits_2(tmp_path):
    header = [c for c in HEADER if c != "bet"]
    log = write_log(tmp_path / "nobet.csv", CLEAN, header=header)
    result = run("audit", log, "--out", tmp_path / "b", "--game", "pot-luck-blackjack")
    assert result.exit_code == 2
    assert "bet" in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize("args", [
    ("--format", "pdf"), ("--format", "html,xml"), ("--game", "roulette"), ("--lang", "fr"),
    ("--fail-on", "severe"),
])
def test_bad_options_exit_2(clean_log, tmp_path, args):
    result = run("audit", clean_log, "--out", tmp_path / "out", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("auditor: ")
    assert not (tmp_path / "out").exists()


def test_bad_profile_exits_2(clean_log, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('id = "x"\ngame = "pot-luck-blackjack"\ndecks = 99\n', encoding="utf-8")
    result = run("audit", clean_log, "--out", tmp_path / "out", "--profile", bad)
    assert result.exit_code == 2
    assert "perfil" in result.stderr and "Traceback" not in result.output
    result = run("audit", clean_log, "--out", tmp_path / "out", "--profile", tmp_path / "missing.toml")
    assert result.exit_code == 2


@pytest.mark.parametrize("text, es, en", [
    ('id = "x"\ngame = "pot-luck-blackjack"\nmin_bet = "diez"\n',
     'valores no válidos (min_bet: se espera un importe decimal, p. ej. "10.00", no «diez»)',
     'invalid values (min_bet: a decimal amount is expected, e.g. "10.00", not «diez»)'),
    ('id = "x"\ngame = "pot-luck-blackjack"\nmin_bet = "10.00"\nmax_bet = "5.00"\n',
     "valores no válidos (min_bet = 10.00 es mayor que max_bet = 5.00)",
     "invalid values (min_bet = 10.00 is greater than max_bet = 5.00)"),
    ('id = "x"\ngame = "pot-luck-blackjack"\ndecks = 99\nsplits = 2\n',
     "valores no válidos (decks: debe ser como mucho 8, no «99»; splits: campo desconocido (¿mal escrito?))",
     "invalid values (decks: must be at most 8, not «99»; splits: unknown field (misspelt?))"),
    ('id = \n', "no es TOML válido (línea 1, columna 6)", "not valid TOML (line 1, column 6)"),
    ('id = "x"\n', "valores no válidos (game: falta (es obligatorio))", "invalid values (game: missing (it is required))"),
    ('id = "x"\ngame = "triple-shot"\nmin_war_bet = "10.00"\nmax_bet = "5.00"\n',
     "valores no válidos (min_war_bet = 10.00 es mayor que max_bet = 5.00)",
     "invalid values (min_war_bet = 10.00 is greater than max_bet = 5.00)"),
    ('id = "x"\ngame = "let-it-ride"\nmin_pair = "1"\n',
     "valores no válidos (min_pair: valor no admitido «1» (se admite: '2', '3',",
     "invalid values (min_pair: value not allowed «1» (allowed: '2', '3',"),
    ('id = "x"\ngame = "blackjack"\n', "juego desconocido «blackjack»", "unknown game «blackjack»"),
    ('id = "x"\ngame = "let-it-ride"\ntables = ["LIR-01"]\nvalid_from = 2026-11-30\nvalid_until = 2026-11-01\n',
     "valores no válidos (valid_until = 2026-11-01 es anterior a valid_from = 2026-11-30)",
     "invalid values (valid_until = 2026-11-01 is before valid_from = 2026-11-30)"),
])
def test_a_profile_that_cannot_be_used_says_why_in_the_commands_language(clean_log, tmp_path, text, es, en):
    """The file, each field refused, what it should hold and what it held, from the
    catalogue: not pydantic's English text, its error types or its web links."""
    bad = tmp_path / "bad.toml"
    bad.write_text(text, encoding="utf-8")
    for lang, want in (("es", es), ("en", en)):
        result = run("--lang", lang, "audit", clean_log, "--out", tmp_path / "out", "--profile", bad)
        assert result.exit_code == 2 and f"{bad}: {want}" in result.stderr, result.stderr
        assert "pydantic" not in result.stderr and "Traceback" not in result.output


def test_a_profile_saved_with_a_byte_order_mark_is_read(clean_log, tmp_path):
    """Windows editors start UTF-8 files with a BOM; it is not part of the TOML (it was
    refused as invalid TOML at line 1, column 1)."""
    prof = tmp_path / "bom.toml"
    prof.write_bytes(b"\xef\xbb\xbf" + 'id = "casa"\ngame = "pot-luck-blackjack"\nmin_bet = "5.00"\n'.encode())
    out = tmp_path / "out"
    result = run("audit", clean_log, "--out", out, "--profile", prof)
    assert result.exit_code == 0, result.stderr
    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    assert [p["id"] for p in report["profiles"]] == ["casa"]


@pytest.mark.parametrize("value", ["[" * 5000 + "]" * 5000, "{a = " * 5000 + "1" + "}" * 5000])
def test_a_profile_nested_too_deeply_is_a_config_error_not_a_traceback(clean_log, tmp_path, value):
    prof = tmp_path / "deep.toml"
    prof.write_text(f'id = "x"\ngame = "pot-luck-blackjack"\nz = {value}\n', encoding="utf-8")
    for lang in ("es", "en"):
        result = run("--lang", lang, "audit", clean_log, "--out", tmp_path / "out", "--profile", prof)
        want = t("cli.profile_error", lang, error=f"{prof}: {t('config.too_deep', lang)}")
        assert result.exit_code == 2 and f"auditor: {want}" in result.stderr, result.stderr
        assert "Traceback" not in result.output and "Recursion" not in result.output


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_simulation_the_system_stops_says_why_in_the_catalogues_words(tmp_path, lang):
    """The system's reason a simulation could not write or read was quoted in its English
    (`la simulación falló: [Errno 17] File exists: '…'`, a file where the log's folder goes)."""
    (tmp_path / "archivo").write_text("", encoding="utf-8")
    cases = [(["triple-shot", "--out", tmp_path / "archivo" / "sim.csv"], tmp_path / "archivo", "os_error.EEXIST"),
             (["triple-shot", "--out", tmp_path / "x.csv", "--continue-from", tmp_path / "no.csv"], tmp_path / "no.csv",
              "os_error.ENOENT")]
    for args, path, reason in cases:
        result = run("--lang", lang, "simulate", *args, "--rounds", 5)
        said = t("cli.simulate_os_error", lang, path=path, error=t(reason, lang))
        assert result.exit_code == 2 and result.stderr == f"auditor: {said}\n", result.stderr
        assert "Errno" not in said and "File exists" not in said and "No such" not in said


def test_continuing_from_a_log_of_another_game_says_so_and_exits_2(tmp_path):
    """`simulate triple-shot --continue-from` a Pot Luck log once ended in a KeyError."""
    plb = tmp_path / "plb.csv"
    assert run("simulate", "pot-luck-blackjack", "--rounds", 5, "--seed", 1, "--out", plb).exit_code == 0
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    for previous in (plb, empty):
        for lang in ("es", "en"):
            result = run("--lang", lang, "simulate", "triple-shot", "--continue-from", previous, "--out", tmp_path / "x.csv")
            assert result.exit_code == 2 and "Traceback" not in result.output, result.output
            head = t("cli.continue_from_other", lang, path=previous, game="triple-shot", columns="").split("(")[0]
            assert result.stderr.startswith(f"auditor: {head}") and "deck_id" in result.stderr, result.stderr
    assert not (tmp_path / "x.csv").exists()
    result = run("--lang", "en", "simulate", "let-it-ride", "--continue-from", plb, "--out", tmp_path / "x.csv")
    assert result.exit_code == 2
    assert result.stderr == f"auditor: {t('cli.continue_from_game', 'en', game='let-it-ride')}\n"


def test_profile_is_reported(clean_log, tmp_path):
    prof = tmp_path / "mesa.toml"
    prof.write_text('id = "casa"\ngame = "pot-luck-blackjack"\nmin_bet = "5.00"\nmax_bet = "500.00"\n',
                    encoding="utf-8")
    out = tmp_path / "out"
    assert run("audit", clean_log, "--out", out, "--profile", prof).exit_code == 0
    report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
    assert [p["id"] for p in report["profiles"]] == ["casa"]
    assert {r["code"]: r["status"] for r in report["rules"]}["PLB-BET-LIMITS"] == "passed"


def test_rules_catalogue():
    result = run("rules")
    assert result.exit_code == 0
    line = next(x for x in result.stdout.splitlines() if "PLB-WIN" in x)
    assert "Art. 15" in line and "high" in line and "TEXT" in line
    md = run("rules", "--format", "markdown", "--lang", "en", "--game", "pot-luck-blackjack")
    assert md.exit_code == 0
    assert "## PLB-WIN" in md.stdout and "Art. 15" in md.stdout and "> «" in md.stdout
    assert run("rules", "--format", "pdf").exit_code == 2
    assert run("rules", "--game", "roulette").exit_code == 2


def test_explain():
    result = run("explain", "PLB-WIN")
    assert result.exit_code == 0
    for text in ("PLB-WIN", "Art. 15", "Texto del reglamento", "Qué verifica", "se paga 1 a 1"):
        assert text in result.stdout
    assert "paid 1 to 1" not in result.stdout
    en = run("explain", "PLB-WIN", "--lang", "en")
    assert "Text of the directive" in en.stdout and "What it checks" in en.stdout and "paid 1 to 1" in en.stdout
    nope = run("explain", "NOPE")
    assert nope.exit_code == 2
    assert "NOPE" in nope.stderr


def test_every_rule_says_what_it_checks_in_each_language():
    """What a rule checks comes from its spec, in the language asked (it was the check's
    English docstring in both)."""
    from auditor.registry import GAMES, plugin

    for game in sorted(GAMES):
        for rule in plugin(game).spec.rule:
            assert rule.check.es != rule.check.en, rule.code
            for lang in ("es", "en"):
                shown = " ".join(run("explain", rule.code, "--lang", lang).stdout.split())
                assert rule.check_in(lang) in shown, (rule.code, lang)


def test_simulate_unknown_game_exits_2(tmp_path):
    result = run("simulate", "roulette", "--rounds", "5", "--seed", "1", "--faults", "0.1",
                 "--out", tmp_path / "s.csv")
    assert result.exit_code == 2
    assert not (tmp_path / "s.csv").exists()


def test_simulate_then_audit(tmp_path):
    pytest.importorskip("auditor.simulate")
    out = tmp_path / "sim.csv"
    result = run("simulate", "pot-luck-blackjack", "--rounds", "20", "--seed", "7", "--faults", "0",
                 "--out", out)
    assert result.exit_code == 0, result.output
    assert str(out) in result.stderr and out.is_file()
    audited = run("audit", out, "--out", tmp_path / "rep", "--format", "json")
    assert audited.exit_code in (0, 1), audited.output
    report = json.loads((tmp_path / "rep" / "audit-report.json").read_text(encoding="utf-8"))
    assert report["summary"]["rounds_audited"] == 20


def test_simulated_logs_are_written_as_pandas_and_json_would_write_them(tmp_path):
    """The simulator joins its CSV with Arrow and its JSONL documents from whole columns: the
    CSV's bytes are those of ``DataFrame.to_csv``, values that must be quoted included, and the
    JSONL holds one document per round, its hands in order, a blank split as null."""
    import pandas as pd

    from auditor.simulate import write_log

    frame = pd.DataFrame({
        "table_id": ["T,1", "T,1", 'T"2', "T3"], "round_id": ["1", "1", "2", "3"],
        "started_at": ["a\nb", "a\nb", "", "c"], "dealer_id": ["D", "D", "E", "F"],
        "shoe_id": ["S", "S", "S", "S"], "dealer_cards": ["AS KS", "AS KS", "", "2C"],
        "seat": [1, 2, 1, 7], "hand": [0, 0, 1, 0], "split_from": ["", "", "0", ""],
        "cards": ["9S 7D", "TS", "", "2C 3C"], "actions": ["S", "", "H", "S"],
        "bet": pd.Series(["10.00", None, "5,00", "1.00"], dtype=object),
        **{c: ["0.00"] * 4 for c in ("double", "insurance", "pool_bet", "net_main", "net_insurance", "pool_paid")},
    })
    write_log(frame, tmp_path / "log.csv", "pot-luck-blackjack")
    assert (tmp_path / "log.csv").read_bytes() == frame.to_csv(index=False).encode()
    write_log(frame, tmp_path / "log.jsonl", "pot-luck-blackjack")
    docs = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(d["table_id"], d["round_id"], [(h["seat"], h["split_from"]) for h in d["hands"]]) for d in docs] == [
        ("T,1", "1", [(1, None), (2, None)]), ('T"2', "2", [(1, 0)]), ("T3", "3", [(7, None)])]
    assert docs[0]["started_at"] == "a\nb" and docs[0]["hands"][1]["bet"] is None


# --- the command line's own words (auditor.cli_text) ----------------------------------------

COMMANDS = ("audit", "rules", "explain", "simulate", "batch", "history", "diff")


def _page(result) -> str:
    """A help page's words, unwrapped from its boxes."""
    return " ".join(result.output.replace("│", " ").split())


@pytest.mark.parametrize("command", ("", *COMMANDS))
def test_help_pages_are_in_spanish_by_default_and_in_english_on_request(command):
    args = [command] if command else []
    es = run(*args, "--help")
    en = run(*args, "--help", "--lang", "en")
    assert es.exit_code == en.exit_code == 0
    assert "Uso:" in es.output and "Usage:" not in es.output and "Opciones" in es.output
    assert "Usage:" in en.output and "Uso:" not in en.output and "Options" in en.output
    for page in (es.output, en.output):
        assert "cli.help." not in page and "cli.words." not in page  # every key put into words
    assert "Muestra esta ayuda y termina." in _page(es) and "Show this message and exit." in _page(en)


@pytest.mark.parametrize("rich", (True, False))
def test_help_pages_say_the_kind_of_each_value_in_words(monkeypatch, rich):
    """Typer (0.29 on) labels each value by its Python type (<list[Path]>, <%Y-%m-%d>, <bool>
    beside --help); the pages say the kind in the user's language, and nothing for a flag."""
    monkeypatch.setattr(typer.core, "HAS_RICH", rich)
    for lang in ("es", "en"):
        for command in ("", *COMMANDS):
            page = run(*([command] if command else []), "--help", "--lang", lang).output
            assert not re.search(r"<[^>\s]+>|list\[|%Y|\bstr\b|\bbool\b", page), (command, lang, page)
    es = _page(run("simulate", "--help"))
    en = _page(run("simulate", "--help", "--lang", "en"))
    assert "--rounds ENTERO" in es and "--faults NÚMERO" in es and "--start AAAA-MM-DD" in es and "--out RUTA" in es
    assert "--rounds INTEGER" in en and "--start YYYY-MM-DD" in en and "--lang TEXT" in en
    assert re.search(r"--help\s+Muestra esta ayuda", es)
    if not rich:  # typer's own words of a plain page
        assert "Argumentos:" in es and "Opciones:" in es and "[obligatorio]" in es and "por omisión: 1000" in es
        assert "Arguments:" in en and "[required]" in en and "default: 1000" in en


def test_the_help_pages_say_the_catalogue_words():
    page = _page(run("audit", "--help"))
    for key in ("paths", "game", "out", "encoding"):
        assert t(f"cli.help.audit.{key}", "es") in page
    assert t("cli.help.audit.about", "en").split("\n")[0] in run("audit", "--help", "--lang=en").output


def test_the_language_can_come_from_the_environment_or_before_the_command(monkeypatch, tmp_path):
    english = t("cli.help.rules.about", "en")
    title = "Naipe que no pertenece a la baraja de 52 cartas"  # LIR-CARDS
    monkeypatch.setenv("AUDITOR_LANG", "en")
    assert "Usage:" in run("--help").output and english in _page(run("rules", "--help"))
    assert title not in run("rules").output  # the command's messages too, not only its help
    assert "Uso:" in run("--help", "--lang", "es").output and title in run("rules", "--lang", "es").output
    monkeypatch.delenv("AUDITOR_LANG")
    assert title not in run("--lang", "en", "rules").output  # given before the command
    assert title in run("--lang", "en", "rules", "--lang", "es").output  # the command's own wins
    result = run("--lang", "en", "simulate", "let-it-ride", "--rounds", "5", "--out", tmp_path / "s.csv")
    assert result.exit_code == 0 and "written:" in result.stderr
    for unknown in ("fr", "", "EN "):  # not a language of the tool: passed over, not an error
        monkeypatch.setenv("AUDITOR_LANG", unknown)
        assert "Uso:" in run("--help").output or unknown == "EN "
        assert run("explain", "PLB-WIN").exit_code == 0
        assert run("rules", "--lang", "en").exit_code == 0 and title not in run("rules", "--lang", "en").output


def test_the_same_command_put_into_words_twice_speaks_the_second_language(capsys, monkeypatch):
    monkeypatch.setattr(typer.core, "HAS_RICH", False)  # a plain page, written to the captured stdout
    command = typer.main.get_command(app)
    pages = []
    for lang in ("es", "en"):
        with pytest.raises(SystemExit):
            command.main(["audit", "--help", "--lang", lang], prog_name="auditor")
        pages.append(" ".join(capsys.readouterr().out.split()))
    assert t("cli.help.audit.out", "es") in pages[0] and t("cli.help.audit.out", "en") in pages[1]
    assert t("cli.help.audit.out", "es") not in pages[1]


def test_with_no_arguments_the_help_page_is_shown_with_or_without_rich(monkeypatch):
    for rich in (True, False):  # (TYPER_USE_RICH, as typer read it at its import)
        monkeypatch.setattr(typer.core, "HAS_RICH", rich)
        result = run()
        assert result.exit_code == 2 and "Uso:" in result.output, rich


@pytest.mark.parametrize("args, es, en", [
    (["audit", "x", "--nope"], "opción desconocida: --nope", "no such option: --nope"),
    (["audit"], "falta el argumento RUTAS", "missing argument PATHS"),
    (["audit", "x", "--out"], "la opción --out necesita un valor", "option --out needs a value"),
    (["audit", "x", "--from", "2026-13-01"], "valor no válido para --from: «2026-13-01» (se espera una fecha AAAA-MM-DD)",
     "invalid value for --from: «2026-13-01» (a date YYYY-MM-DD is expected)"),
    (["simulate", "let-it-ride", "--out", "x.csv", "--rounds", "abc"],
     "valor no válido para --rounds: «abc» (se espera un número entero de 1 o más)",
     "invalid value for --rounds: «abc» (a whole number of 1 or more is expected)"),
    (["simulate", "let-it-ride", "--out", "x.csv", "--faults=2"],
     "valor no válido para --faults: «2» (se espera un número de 0.0 a 1.0)",
     "invalid value for --faults: «2» (a number from 0.0 to 1.0 is expected)"),
    (["simulate", "let-it-ride"], "falta la opción --out", "missing option --out"),
    (["audti", "x"], "orden desconocida: audti", "no such command: audti"),
    (["rules", "extra"], "argumentos de más: extra", "unexpected extra arguments: extra"),
    (["diff", "a", "b"], "valor no válido para CORRIDA_A (se espera un número entero)",
     "invalid value for RUN_A (a whole number is expected)"),
])
def test_usage_errors_are_said_in_the_users_language_with_exit_2(tmp_path, monkeypatch, args, es, en):
    monkeypatch.chdir(tmp_path)
    for lang, expected in (("es", es), ("en", en)):
        result = run(*(["--lang", "en"] if lang == "en" else []), *args)
        assert result.exit_code == 2, result.output
        assert f"auditor: {expected}" in result.stderr
        assert "Traceback" not in result.output and "Error" not in result.output
    assert re.search(r"Vea '(root|auditor)( \w+)? --help' para la ayuda", run(*args).stderr)  # (root: the runner's name)
    assert not list(tmp_path.iterdir())


def test_a_usage_error_of_an_unknown_kind_keeps_clicks_text_after_the_catalogues_words(monkeypatch):
    from auditor import cli_text

    monkeypatch.setattr(cli_text, "_lang", "es")  # (the last command line's: a test's before may be English)

    strange = type("StrangeUsageError", (Exception,), {"exit_code": 2, "format_message": lambda self: "Odd thing."})
    assert cli_text._message(strange(), []) == t("cli.usage.other", "es", error="Odd thing.")


@pytest.mark.parametrize("args, said", [
    (["audit", "x", "--format", "html, xml"], "formato no admitido: «xml»"),
    (["audit", "x", "--format", "html,,json"], "formato no admitido: «»"),
    (["audit", "x", "--fail-on", ""], "gravedad no válida para --fail-on: «»"),
    (["audit", "x", "--severity", "grave"], "gravedad no válida para --severity: «grave»"),
    (["audit", "x", "--game", "poker"], "juego desconocido: «poker»"),
    (["audit", "x", "--lang", "fr"], "idioma no admitido: «fr»"),
    (["audit", "x", "--delimiter", "x"], "separador no válido para --delimiter: «x» (se admiten: ',' ';' tab '|')"),
    (["audit", "x", "--delimiter", "7"], "separador no válido para --delimiter: «7»"),
    (["audit", "x", "--delimiter", ";;"], "separador no válido para --delimiter: «;;»"),
    (["audit", "x", "--delimiter", "comma,"], "separador no válido para --delimiter: «comma,»"),
    (["explain", "PLB-NOPE"], "regla desconocida: «PLB-NOPE»"),
])
def test_a_value_given_wrongly_is_quoted_so_that_even_a_blank_one_shows(tmp_path, monkeypatch, args, said):
    """As in the usage errors: the value between «», so that an empty one is seen too."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x").mkdir()
    result = run(*args)
    assert result.exit_code == 2 and said in result.stderr, result.stderr


# "mesa-ñ" as a Latin-1 system names a file: bytes that are no UTF-8, which Python holds as a
# lone surrogate. Every report shows the byte escaped, as Python's backslashreplace does.
LATIN1_NAME = os.fsdecode(b"mesa-\xf1")
SHOWN_NAME = "mesa-\\xf1"


def _simulated(tmp_path, name: str, suffix: str):
    """A Let It Ride log with planted faults, in a folder of its own, named ``name + suffix``."""
    folder = tmp_path / "logs"
    folder.mkdir(exist_ok=True)
    made = tmp_path / f"made{suffix}"
    assert run("simulate", "let-it-ride", "--rounds", "30", "--seed", "3", "--faults", "0.3", "--out",
               made).exit_code == 0
    return made.rename(folder / f"{name}{suffix}")


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_a_log_whose_name_is_no_utf8_is_audited_and_named_escaped_in_every_report(tmp_path, suffix):
    log = _simulated(tmp_path, LATIN1_NAME, suffix)
    if suffix != ".parquet":  # a rejected record names its file too
        # (a JSONL line without its table: the file's lines are rounds, whatever its name)
        first = json.loads(log.read_text().splitlines()[0]) if suffix == ".jsonl" else None
        with log.open("a") as fh:
            fh.write("not,a,row\n" if first is None else json.dumps({**first, "table_id": ""}) + "\n")
    out = tmp_path / "out"
    result = run("audit", log.parent, "--out", out, "--format", "html,json,csv,sarif,junit")
    assert result.exit_code == 1, result.output  # findings; not an error
    shown = f"{SHOWN_NAME}{suffix}"
    # Every report is UTF-8 (read strictly) and names the file alike.
    texts = {p.name: p.read_bytes().decode("utf-8") for p in out.iterdir()}
    report = json.loads(texts["audit-report.json"])
    (item,) = report["inputs"]
    assert item["path"].endswith(shown) and item["error"] is None and item["records_audited"] > 0
    assert report["findings"] and {f["file"] for f in report["findings"]} == {item["path"]}
    assert {r["file"] for r in report["rejected"]} <= {item["path"]}
    assert len(report["rejected"]) == (suffix != ".parquet")
    assert {row["file"] for row in csv.DictReader(texts["audit-findings.csv"].lstrip("\ufeff").splitlines())} == \
        {item["path"]}
    assert shown in texts["audit-report.html"]
    sarif = json.loads(texts["audit-report.sarif"])
    assert sarif["runs"][0]["artifacts"][0]["location"]["uri"].endswith("mesa-%5Cxf1" + suffix)
    assert shown in ET.fromstring(texts["audit-junit.xml"].encode("utf-8")).find(".//failure").text


def test_batch_audits_a_log_whose_name_is_no_utf8_and_its_ledger_names_it_escaped(tmp_path):
    log = _simulated(tmp_path, LATIN1_NAME, ".csv")
    out = tmp_path / "batch"
    first = runner.invoke(app, ["batch", str(log.parent), "--out", str(out)])
    assert first.exit_code == 1, first.output  # new findings
    with sqlite3.connect(out / "audit.db") as db:
        paths = [p for (p,) in db.execute("SELECT path FROM paths")]
        files = db.execute("SELECT path, status FROM files").fetchall()
    assert [p.endswith(f"{SHOWN_NAME}.csv") for p in paths] == [True]
    assert files == [(paths[0], "ok")]
    # The next run finds the file the ledger knows under that name: nothing new.
    again = runner.invoke(app, ["batch", str(log.parent), "--out", str(out)])
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize("given", [",", ";", "tab", "TAB", "\t", "|", "semicolon"])
def test_delimiter_names_one_of_the_separators_a_log_may_use(tmp_path, given):
    """Each separator the help names, by itself or by name, splits the log it names."""
    sep = {"tab": "\t", "TAB": "\t", "\t": "\t", "semicolon": ";"}.get(given, given)
    log = tmp_path / "sep.csv"
    log.write_text(write_log(tmp_path / "plain.csv", CLEAN).read_text(encoding="utf-8").replace(",", sep),
                   encoding="utf-8")
    result = run("audit", log, "--out", tmp_path / "out", "--delimiter", given)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("given", ["bogus", "base64", ""])
def test_an_encoding_that_names_no_text_encoding_is_refused_up_front(tmp_path, given):
    """As a wrong --delimiter is: exit 2 before any file is read, no report written (it was
    said of each file, with empty reports)."""
    log = write_log(tmp_path / "plain.csv", CLEAN)
    result = run("audit", log, "--out", tmp_path / "out", "--encoding", given)
    assert result.exit_code == 2 and f"--encoding: «{given}»" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()
    assert run("audit", log, "--out", tmp_path / "ok", "--encoding", "cp1252").exit_code == 0


# Two tables whose ids differ in a letter that is no ASCII: read with that letter replaced
# (U+FFFD), they would be one table. The second round has a finding (PLB-DEALER-PLAY) at «Té1».
ACCENTED = [hand("1", table="Tñ1", minute=0), hand("2", table="Té1", minute=1, dealer="AH 6C QD", cards="8S 3D 9C")]


def _jsonl_of(rows) -> str:
    return "".join(json.dumps({"game": "pot-luck-blackjack", **{k: r[k] for k in HEADER[:6]},
                               "hands": [{k: r[k] for k in HEADER[6:]}]}, ensure_ascii=False) + "\n" for r in rows)


def _not_text_in(tmp_path, case: str):
    """(the bytes of a log that are no text in the encoding given, its name, that encoding,
    the line and the bytes first found so, and the same log as text in that encoding)."""
    text = write_log(tmp_path / "plain.csv", ACCENTED).read_text(encoding="utf-8")
    if case == "utf-8":  # a Windows-1252 export given as UTF-8: «ñ» is the byte F1
        return text.encode("cp1252"), "mesa.csv", "utf-8", 2, "0xF1", text.encode("utf-8")
    if case == "cp1252":  # a byte Windows-1252 leaves undefined, in the second round's dealer
        bad = text.replace("D1", "D\x81", 2).replace("D\x81", "D1", 1)
        return bad.encode("latin-1"), "mesa.csv", "cp1252", 3, "0x81", text.encode("cp1252")
    if case == "utf-16":  # a UTF-16 export cut off inside its last character: a byte too few (odd)
        data = ("\ufeff" + text).encode("utf-16-le")
        return data + b"x", "mesa.csv", "utf-16", 4, "0x78", data
    if case == "gzip":
        return (_gzip(text.encode("cp1252")), "mesa.csv.gz", "utf-8", 2, "0xF1", _gzip(text.encode("utf-8")))
    assert case == "jsonl"
    lines = _jsonl_of(ACCENTED)
    return lines.encode("cp1252"), "mesa.jsonl", "utf-8", 1, "0xF1", lines.encode("utf-8")


@pytest.mark.parametrize("case", ["utf-8", "cp1252", "utf-16", "gzip", "jsonl"])
def test_a_log_that_is_no_text_in_the_encoding_given_is_not_read(tmp_path, case):
    """--encoding X on a file holding bytes that are no text in X read them as U+FFFD, without
    an error or a note: the tables «Tñ1» and «Té1» of a Windows-1252 export given as UTF-8
    were both «T�1», one table to the rules over a table's consecutive rounds. The file is an
    input error now (exit 2), before any of its rows is read, saying where the first such
    bytes are and what to do, in the report's language; the same log as text in X is audited
    as before."""
    data, name, encoding, line, shown, valid = _not_text_in(tmp_path, case)
    log = tmp_path / name
    log.write_bytes(data)
    for lang in ("en", "es"):
        out = tmp_path / lang
        result = run("audit", log, "--encoding", encoding, "--out", out, "--format", "json", "--lang", lang)
        assert result.exit_code == 2, result.output
        said = t("input.not_text_in_encoding", lang, encoding=encoding,
                 where=t("input.not_text_byte", lang, line=line, bytes=shown, encoding=encoding))
        report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
        assert report["summary"]["input_errors"] == [{"path": str(log), "error": said}]
        assert report["inputs"][0]["error"] == said and report["inputs"][0]["records_read"] == 0
        assert report["findings"] == [] and report["summary"]["rounds_audited"] == 0
        assert t("cli.input_error", lang, path=log, error=said) in result.stderr.splitlines()
        assert "--encoding" in said and "\ufffd" not in said
        if lang == "es":
            python = ("codec", "decode", "position", "invalid", "continuation", "maps to", "surrogate")
            assert not [w for w in (*LIBRARY_WORDS, *python) if w in said], said
    log.write_bytes(valid)
    result = run("audit", log, "--encoding", encoding, "--out", tmp_path / "valid", "--format", "json")
    assert result.exit_code == 1, result.output
    report = json.loads((tmp_path / "valid" / "audit-report.json").read_text(encoding="utf-8"))
    assert report["summary"]["input_errors"] == [] and report["summary"]["rounds_audited"] == 2
    assert [(f["table_id"], f["code"]) for f in report["findings"]] == [("Té1", "PLB-DEALER-PLAY")]


def test_a_file_name_is_shown_as_it_is_on_the_progress_bar(monkeypatch):
    """The progress bar on a terminal reads its text as rich markup: a file's name is escaped
    (``[red]mesa.csv`` was shown as a red ``mesa.csv``)."""
    import io

    import rich.progress
    from rich.text import Text

    from auditor import cli

    terminal = io.StringIO()
    terminal.isatty = lambda: True
    monkeypatch.setattr(cli.sys, "stderr", terminal)
    shown = []
    monkeypatch.setattr(rich.progress.Progress, "update", lambda self, task, **kw: shown.append(kw["description"]))
    with cli._progress(1, "en") as step:
        step("/exports/[red]mesa.csv")
    assert [Text.from_markup(d).plain for d in shown] == ["Auditing [red]mesa.csv"]


def test_reports_written_into_the_folder_audited_are_not_read_as_logs(tmp_path):
    """A folder of exports that holds the reports folder: the last run's findings CSV is no log
    (it was read as one, and the second run exited 2)."""
    logs = tmp_path / "exports"
    write_log(logs.mkdir() or logs / "high.csv", HIGH_ONLY)
    first = run("audit", logs, "--out", logs / "reports", "--format", "csv,json")
    again = run("audit", logs, "--out", logs / "reports", "--format", "csv,json")
    assert first.exit_code == again.exit_code == 1, again.output
    report = json.loads((logs / "reports" / "audit-report.json").read_text(encoding="utf-8"))
    assert [os.path.basename(i["path"]) for i in report["inputs"]] == ["high.csv"]


def test_a_pipe_named_as_a_log_is_refused_not_waited_on(high_log, tmp_path):
    pipe = tmp_path / "mesa.csv"
    os.mkfifo(pipe)
    done = subprocess.run([sys.executable, "-m", "auditor", "audit", str(pipe), str(high_log),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "no es un archivo" in done.stderr and "1 hallazgos" in done.stderr


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_broken_rule_spec_is_said_in_the_catalogues_words(monkeypatch, tmp_path, lang):
    """A broken rule specification (a fault of the installation) was said in the English of
    tomllib, of pydantic (``1 validation error for DirectiveSpec … Field required [type=missing
    …]`` with a link to its website) or of the code's own strings (``a TEXT rule needs its
    article and quote``), in a Spanish message: it is said as a profile's faults are, naming
    the file and the field or the rule."""
    import dataclasses

    from auditor import registry
    from auditor.specs import SPEC_DIR, load_spec

    plugin = registry.GAMES["pot-luck-blackjack"]
    text = (SPEC_DIR / plugin.spec_file).read_text(encoding="utf-8")
    quoted = re.search(r'\nquote = "[^"\n]+"', text)
    code = re.findall(r'\ncode = "([^"]+)"', text[:quoted.start()])[-1]  # (the first rule that quotes the text)
    broken = {"toml": (text.replace("[[rule]]", "[[rule]", 1), [t("config.bad_toml_at", lang, line=0, column=0).split(" (")[0] + " ("]),
              "field": (text.replace("\nseverity = ", "\nseveridad = ", 1),
                        [f"rule.0.severidad: {t('config.unknown_field', lang)}",
                         f"rule.0.severity: {t('config.missing', lang)}"]),
              "quote": (text[:quoted.start()] + '\nquote = ""' + text[quoted.end():],
                        [t("spec.text_rule_unquoted", lang, code=code)])}
    for name, (body, said) in broken.items():
        spec = tmp_path / f"{name}.toml"
        spec.write_text(body, encoding="utf-8")
        monkeypatch.setitem(registry.GAMES, "pot-luck-blackjack", dataclasses.replace(plugin, spec_file=str(spec)))
        registry.verify.cache_clear()
        try:
            result = run("rules", "--lang", lang)
        finally:
            monkeypatch.undo()
            registry.verify.cache_clear()
            load_spec.cache_clear()
        assert result.exit_code == 2, (name, result.output)
        assert result.stderr.startswith(f"auditor: {t('cli.spec_error', lang, error='')}{spec}: "), result.stderr
        assert all(words in result.stderr for words in said), (name, result.stderr)
        for english in ("validation error", "Field required", "pydantic", "Invalid", "needs its", "[type="):
            assert english not in result.stderr, (name, result.stderr)
