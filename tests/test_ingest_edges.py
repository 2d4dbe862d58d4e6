"""Edges of the Arrow ingest found in review: each once gave a traceback or a verdict that
depended on something else than the value itself."""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditor.engine import audit
from auditor.i18n import t
from auditor.logs.ingest import _blank, _choice_codes, _parse_ints, _runs, _text_at
from auditor.logs.files import _hashing, scan
from auditor.logs.sources import open_source
from pot_luck_rows import HEADER, hand, write_log


def _reasons(result) -> list[tuple[int, str, str]]:
    return sorted(zip(result.rejected["line"], result.rejected["field"], result.rejected["reason"]))


def test_an_extra_column_named_like_the_readers_own_is_not_audited(tmp_path):
    """A column "_line" or "_record" in an export is an extra column like any other."""
    rows = [dict(hand("R1"), _line="99", _record="x"), dict(hand("R2", minute=1), _line="", _record="")]
    csv_log = write_log(tmp_path / "extra.csv", rows, header=[*HEADER, "_line", "_record"])
    parquet_log = tmp_path / "extra.parquet"
    pq.write_table(pa.table({k: [r[k] for r in rows] for k in rows[0]}), parquet_log)
    for log in (csv_log, parquet_log):
        result = audit([log])
        assert result.totals["rounds"] == 2 and not len(result.rejected), log
        assert result.inputs[0].extra_columns == ("_line", "_record")


def test_a_control_character_alone_is_a_missing_value(tmp_path):
    """Arrow trims 0x1C-0x1F as whitespace: a bet of "\\x1f" is missing, not 0.00."""
    assert _blank(pa.array(["\x1f", "\x1c", " ", "", "5", "\x00"], pa.large_string())).tolist() == [
        True, True, True, True, False, False]
    result = audit([write_log(tmp_path / "ctl.csv", [hand("R1", bet="\x1f")])])
    assert ("bet", "reject.missing") in {(f, r) for _, f, r in _reasons(result)}


def test_a_choice_is_the_index_of_its_word_exactly_and_a_missing_value_is_the_blank_word():
    """Words of a choice field (a Let It Ride withdrawal) are compared whole and case-sensitive,
    after trimming; a missing value (null) is the blank word; anything else is -1."""
    words = ("", "cards", "first_community", "second_community")
    column = pa.array(["cards", "", None, "second_community", "Cards", "card", "cardss", "first_community",
                       "first_communitx", "second_communit"], pa.large_string())
    assert _choice_codes(column, words).tolist() == [1, 0, 0, 3, -1, -1, -1, 2, -1, -1]
    assert _choice_codes(column, ("cards",)).tolist() == [0, -1, -1, -1, -1, -1, -1, -1, -1, -1]


def test_a_whole_number_reads_alike_whatever_the_other_values():
    """"-0" and six-digit "000002" are bad in any column, not only beside another bad value."""
    for column in (["-0", "000002", "3"], ["-0", "000002", "3", "x"]):
        values, bad = _parse_ints(pa.array(column, pa.large_string()), _blank(pa.array(column, pa.large_string())))
        assert bad.tolist()[:3] == [True, True, False] and values.tolist()[:3] == [-1, -1, 3]
    column = pa.array(["7", " 8 ", "2.0", "10000", "10001", "", "  ", "1e2", "٣"], pa.large_string())
    values, bad = _parse_ints(column, _blank(column))
    assert values.tolist() == [7, 8, 2, 10000, -1, -1, -1, -1, -1]
    assert bad.tolist() == [False, False, False, False, True, False, False, True, True]


def test_a_row_with_the_wrong_number_of_fields_rejects_its_round_only(tmp_path):
    """Rows after it in the same batch are audited (once, a bad row in mid-batch made the
    whole batch look malformed)."""
    log = write_log(tmp_path / "fields.csv", [hand(f"R{i}", minute=i) for i in range(1, 6)])
    lines = log.read_text(encoding="utf-8").splitlines()
    lines[2] += ",surplus"  # R2
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = audit([log])
    assert result.totals["rounds"] == 4
    assert _reasons(result) == [(3, "", "reject.bad_fields")]


def test_utf8_split_across_gzip_members_is_still_utf8(tmp_path):
    """A character cut at the end of one member, an empty member, then the rest of it."""
    text = "table_id\nIñigo\n".encode("utf-8")
    cut = text.index("ñ".encode("utf-8")) + 1
    path = tmp_path / "split.csv.gz"
    path.write_bytes(gzip.compress(text[:cut]) + gzip.compress(b"") + gzip.compress(text[cut:]))
    found = scan(Path(path))
    assert found.utf8 and not found.utf8_but_tail


def test_round_fields_agree_when_equal_text_sits_in_separate_runs(tmp_path):
    """A round's fields are read once per run of equal neighbouring rows; rows of one round
    apart in the file, or a value that comes back (A B A), are still compared as text."""
    apart = [hand("R1", seat="1"), hand("R2", minute=1), hand("R1", seat="2")]
    result = audit([write_log(tmp_path / "apart.csv", apart)])
    assert result.totals["rounds"] == 2 and not len(result.rejected)
    back = [hand("R1", seat="1"), hand("R1", seat="2", dealer_id="D2"), hand("R1", seat="3")]
    result = audit([write_log(tmp_path / "back.csv", back)])
    assert [(line, f, r) for line, f, r in _reasons(result) if r != "reject.round_incomplete"] == [
        (3, "dealer_id", "reject.round_fields_differ")]


def test_runs_of_a_run_encoded_column_in_any_order_of_entries():
    """A round field's runs: neighbours under one dictionary entry are one run, whether the
    entries come in order (as the reader numbers them, sliced or not) or in any order (as a
    row reordering leaves them)."""
    text = pa.array(["a", "b", "c", "b"], pa.large_string())
    in_order = pa.DictionaryArray.from_arrays(pa.array([0, 0, 1, 2, 2, 3], pa.int32()), text)
    shuffled = pa.DictionaryArray.from_arrays(pa.array([2, 2, 0, 3, 1, 1], pa.int32()), text)
    column = pa.chunked_array([in_order, in_order.slice(3), shuffled])
    run, texts = _runs(column)
    assert run.tolist() == [0, 0, 1, 2, 2, 3] + [4, 4, 5] + [6, 6, 7, 8, 9, 9]
    assert texts.to_pylist() == ["a", "b", "c", "b"] + ["c", "b"] + ["c", "a", "b", "b"]


def _late_text(folder: Path, dealer: bytes, rounds: int = 2000) -> Path:
    """A log whose rows are ASCII but the last round's dealer, the bytes ``dealer``: about
    170 KB, so that the reader's first block (128 KB) is all ASCII."""
    folder.mkdir(exist_ok=True)
    rows = [hand(f"R{i}", minute=i % 60, day=1 + i // 60) for i in range(rounds)]
    rows[-1]["dealer_id"] = "DEALER-X"
    log = write_log(folder / "late.csv", rows)
    log.write_bytes(log.read_bytes().replace(b"DEALER-X", dealer))
    return log


def _audited(log: Path, deferred: bool, monkeypatch):
    """The audit of ``log`` read in small batches, its encoding checked beside the audit
    (``deferred``: the first bytes are ASCII) or before it (the whole file is the head)."""
    from auditor.logs import sources

    monkeypatch.setattr(sources, "_HEAD", 256 if deferred else 1 << 20)
    result = audit([log], chunk_rows=40)
    report = (result.totals, result.inputs[0].records_read, result.inputs[0].records_audited,
              result.inputs[0].error, result.inputs[0].notes, result.inputs[0].sha256,
              sorted(result.findings["dealer_id"].dropna().unique()), len(result.rejected))
    return report, result


def test_a_file_read_before_its_encoding_is_known_reads_as_one_checked_first(tmp_path, monkeypatch):
    """A log whose first bytes are ASCII is read at once as UTF-8; a later byte of another
    encoding (Windows-1252 here, or UTF-8 text, or a character cut at the very end) gives the
    report of a file whose encoding was known from the start."""
    cases = {"cp1252": _late_text(tmp_path / "a", "Peña".encode("cp1252")),
             "utf-8": _late_text(tmp_path / "b", "Peña".encode("utf-8"))}
    cut = _late_text(tmp_path / "c", "Peña".encode("utf-8"))
    cut.write_bytes(cut.read_bytes() + "ñ".encode("utf-8")[:1])
    cases["cut"] = cut
    for name, log in cases.items():
        deferred, result = _audited(log, True, monkeypatch)
        checked, _ = _audited(log, False, monkeypatch)
        assert deferred == checked, name
        assert result.inputs[0].records_read == 2000 + (name == "cut"), name


def test_a_file_found_undecodable_late_keeps_the_rows_read_and_says_why(tmp_path, monkeypatch):
    """Bytes that are neither UTF-8 nor Windows-1252 after ASCII first bytes: the file's error
    is the same as when it is checked first, and the rows read before them stay audited (the
    rest of the round they break off is counted as rejected: no row goes unseen)."""
    log = _late_text(tmp_path, b"Pe\x81a")  # 0x81: undefined in Windows-1252
    _, result = _audited(log, True, monkeypatch)
    (_, read, audited, error, *_), _ = _audited(log, False, monkeypatch)
    late = result.inputs[0]
    assert late.error and late.error == error and read == audited == 0
    assert 0 < late.records_audited < late.records_read < 2000
    assert late.records_read == late.records_audited + late.records_rejected
    assert result.totals["rounds"] == late.records_audited


def test_the_header_read_from_the_first_bytes_is_the_header_read_from_the_file(tmp_path, monkeypatch):
    """A CSV file's header and first row are taken from its first bytes (read for the ASCII
    check) when both end there: alike for every line end, for a semicolon, and for a first
    row that the first bytes cut off."""
    from auditor.logs import sources

    def opened(log: Path, head: int):
        monkeypatch.setattr(sources, "_HEAD", head)
        src = sources.open_source(log)
        return src.names, src.first_time, src.delimiter, src.game

    rows = [hand(f"R{i}", minute=i % 60) for i in range(40)]
    text = write_log(tmp_path / "log.csv", rows).read_text(encoding="utf-8")
    cases = {"lf": text, "crlf": text.replace("\n", "\r\n"), "cr": text.replace("\n", "\r"),
             "semicolon": text.replace(",", ";")}
    for name, body in cases.items():
        log = tmp_path / f"{name}.csv"
        log.write_bytes(body.encode("ascii"))
        header_end = len(body.splitlines(keepends=True)[0])
        for head in (256, header_end + 10):  # the first row whole in the head, then cut off
            assert opened(log, head) == opened(log, 1 << 20), (name, head)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a priority per thread is Linux's")
def test_the_hashing_thread_gives_way_to_the_audit_and_the_audit_keeps_its_priority(tmp_path):
    """The SHA-256 is needed only for the report: its thread runs at the lowest priority, and
    only it (the calling thread's priority is untouched). The digest is still the file's."""
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    log = write_log(tmp_path / "t.csv", [hand("R1")])
    source = open_source(log, None)
    assert source.sha256 == hashlib.sha256(log.read_bytes()).hexdigest()
    assert _hashing().submit(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result() == 19
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before


def test_start_up_begins_the_digest_of_the_logs_named_and_a_log_changed_since_is_hashed_again(
        tmp_path, monkeypatch):
    """``files.begin`` (before the imports) starts the SHA-256 and encoding pass of each log
    file an ``audit`` command line names, and only of those; opening the file takes that pass
    while the file is unchanged, and makes a new one once it has changed."""
    from auditor.logs import files, sources

    monkeypatch.setattr(files, "_EARLY", None)  # the jobs begun here end with the test
    monkeypatch.setattr(sources, "_HEAD", 256)  # read at once, its encoding checked beside
    log = write_log(tmp_path / "t.csv", [hand("R1"), hand("R2", minute=1), hand("R3", minute=2)])
    profile = tmp_path / "hall.toml"
    profile.write_text("")
    files.begin(["rules", str(log)])
    assert not files._EARLY[1]
    files.begin(["audit", "--profile", str(profile), str(log), str(tmp_path / "gone.csv"), "--format", "json"])
    (job, scanned), = files._EARLY[1].values()
    assert scanned
    source = open_source(log, None)
    assert not files._EARLY[1] and source.verdict is not None
    assert source.sha256 == job.result()[0] == hashlib.sha256(log.read_bytes()).hexdigest()

    files.begin(["audit", str(log)])
    log.write_bytes(log.read_bytes().replace(b"R3", b"R4"))
    os.utime(log, ns=(1, 1))
    assert open_source(log, None).sha256 == hashlib.sha256(log.read_bytes()).hexdigest()


def test_a_forked_process_does_not_wait_for_its_parents_early_digests(tmp_path, monkeypatch):
    """A process forked by the batch runner inherits the early jobs but not the thread that
    would finish them: it hashes the file itself."""
    from concurrent.futures import Future

    from auditor.logs import files

    log = write_log(tmp_path / "t.csv", [hand("R1")])
    never = Future()
    monkeypatch.setattr(files, "_EARLY", (os.getpid() + 1, {files._identity(log): (never, True)}))
    job = files.digest_job(log, scanned=False)
    assert job is not never and job.result(timeout=30)[0] == hashlib.sha256(log.read_bytes()).hexdigest()


def test_a_start_up_stopped_before_the_command_does_not_wait_for_the_hashing(tmp_path):
    """Stopped while the imports run (here a broken installation: the command's module cannot
    be imported), the process ends with the error at once, though the hashing thread is still
    reading a file named on the command line (here, forever)."""
    log = write_log(tmp_path / "t.csv", [hand("R1")])
    code = ("import sys, threading; import auditor.logs.files as files; "
            "files._digest_and_scan = lambda *args: threading.Event().wait(); "
            "sys.modules['auditor.cli'] = None; "
            f"sys.argv = ['auditor', 'audit', {str(log)!r}]; "
            "from auditor.__main__ import main; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "ModuleNotFoundError" in done.stderr


def test_the_module_start_up_hashes_with_imports_only_the_standard_library():
    """``auditor.__main__`` imports ``logs.files`` and ``allocator`` before pandas and numba
    (to begin hashing while they import, and to choose Arrow's allocator before it loads): they
    must not import them themselves."""
    code = ("import sys, auditor.logs.files, auditor.allocator; "
            "print(sorted({'numpy', 'pandas', 'pyarrow', 'numba', 'pydantic'} & set(sys.modules)))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "[]"


def test_a_parquet_files_repeating_text_columns_are_read_as_dictionaries(tmp_path):
    """Of a Parquet file's text columns, those whose values repeat (a bet) are read as
    Parquet keeps them, dictionary-encoded; those nearly all distinct (cards) and those that
    are not text are read as text."""
    from auditor.logs.sources import _repeating_columns

    n = 5000
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"bet": [f"{(i % 9) * 5}.00" for i in range(n)], "cards": [f"c{i}" for i in range(n)],
                             "seat": list(range(n))}), path)
    assert _repeating_columns(path, ["bet", "cards", "seat"]) == ["bet"]
    assert _repeating_columns(path, ["cards", "seat"]) == []  # (only the columns asked for)
    pq.write_table(pa.table({"bet": pa.array([], pa.string())}), path)
    assert _repeating_columns(path, ["bet"]) == []


def test_a_rule_over_a_settlement_column_the_file_lacks_is_not_checked_where_the_round_needs_it(tmp_path):
    """A CSV without ``pool_paid`` shows R1's pool bet but not what was paid from it: the pool
    rules are not checked on R1 (no false finding), and the report says why; with the
    column, the same pool paid without commission is a finding. A file without both pool
    columns has no pool bet to settle. A JSONL document that leaves the field out means its
    default, 0, as the schema says."""
    rows = [hand("R1", pool_bet="10.00", pool_paid="10.00"), hand("R2", minute=1)]
    pool_rules = {"PLB-POOL-WINNER", "PLB-POOL-COMMISSION", "PLB-POOL-CAP"}
    full = audit([write_log(tmp_path / "full.csv", rows)])
    assert set(full.findings["code"]) == {"PLB-POOL-COMMISSION"}
    lacking = audit([write_log(tmp_path / "lacking.csv", rows, header=[h for h in HEADER if h != "pool_paid"])])
    assert not len(lacking.findings) and not len(lacking.rejected)
    outcomes = {o.code: o for o in lacking.rules}
    for code in pool_rules:
        assert outcomes[code].status == "not_applicable" and outcomes[code].rounds_checked == 0
        assert "pool_paid" in outcomes[code].note and "1" in outcomes[code].note
    assert outcomes["PLB-WIN"].status == "passed" and outcomes["PLB-WIN"].rounds_checked == 2
    assert any("pool_paid" in note for note in lacking.inputs[0].notes)
    neither = audit([write_log(tmp_path / "neither.csv", [hand("R1"), hand("R2", minute=1)],
                               header=[h for h in HEADER if h not in ("pool_bet", "pool_paid")])])
    assert not len(neither.findings) and all(not {o.code: o for o in neither.rules}[c].note for c in pool_rules)
    doc = {"table_id": "T1", "round_id": "R1", "started_at": "2026-11-01T20:00:00-05:00", "dealer_id": "D1",
           "shoe_id": "S1", "dealer_cards": "TH 7C",
           "hands": [{k: v for k, v in rows[0].items() if k in HEADER[6:] and k not in ("pool_paid", "split_from")}]}
    log = tmp_path / "omits.jsonl"
    log.write_text(__import__("json").dumps(doc) + "\n", encoding="utf-8")
    # (the pool of 10.00 paid to nobody: 10.00 kept as commission, over its 5 % cap)
    assert set(audit([log]).findings["code"]) == {"PLB-POOL-COMMISSION", "PLB-POOL-CAP"}


def test_each_rejected_record_is_listed_once_with_all_its_reasons(tmp_path):
    """The rejected list counts what records_rejected counts: a CSV row with two bad fields is
    one entry, its second reason in ``also``; a JSONL record is one entry however many of its
    hands are rejected, and is not also "in a rejected round" because of itself."""
    rows = [hand("R1", bet="ten", seat="x"), hand("R2", minute=1),
            hand("R2", minute=1, seat="2", net_main="1O.00")]
    result = audit([write_log(tmp_path / "log.csv", rows)])
    listed = [(r.line, r.field, r.reason, r.detail, r.also) for r in result.rejected.itertuples()]
    assert listed == [(2, "bet", "reject.bad_amount", "ten", (("seat", "reject.bad_int", "x"),)),
                      (3, "", "reject.round_incomplete", "4", ()),
                      (4, "net_main", "reject.bad_amount", "1O.00", ())]
    assert len(listed) == result.inputs[0].records_rejected == 3
    doc = {"table_id": "T1", "round_id": "R1", "started_at": "2026-11-01T20:00:00-05:00", "dealer_id": "D1",
           "shoe_id": "S1", "dealer_cards": "TH 7C",
           "hands": [{k: v for k, v in hand("R1", bet="ten").items() if k in HEADER[6:]},
                     {k: v for k, v in hand("R1", seat="2", cards="JK 7D").items() if k in HEADER[6:]},
                     {k: v for k, v in hand("R1", seat="3").items() if k in HEADER[6:]}]}
    log = tmp_path / "log.jsonl"
    log.write_text(__import__("json").dumps(doc) + "\n", encoding="utf-8")
    result = audit([log])
    listed = [(r.line, r.field, r.reason, r.detail, r.also) for r in result.rejected.itertuples()]
    assert listed == [(1, "bet", "reject.bad_amount", "ten", (("cards", "reject.bad_cards", "JK 7D"),))]
    assert result.inputs[0].records_rejected == 1


def test_a_file_named_twice_is_read_once(tmp_path, monkeypatch):
    """By a relative and an absolute path, through a link, or in its folder given beside it:
    one file, read once under the first name given (not its rounds rejected as repeats)."""
    from auditor.engine import discover

    log = write_log(tmp_path / "log.csv", [hand("R1"), hand("R2", minute=1)])
    (tmp_path / "link.csv").symlink_to(log)
    monkeypatch.chdir(tmp_path)
    assert discover([Path("log.csv"), log, tmp_path / "link.csv", tmp_path]) == [Path("log.csv")]
    result = audit([Path("log.csv"), log])
    assert [i.path for i in result.inputs] == ["log.csv"] and not len(result.rejected)
    assert result.totals["rounds"] == 2
    # Two links to one file gone are two exports missing, each listed
    for name in ("gone1.csv", "gone2.csv"):
        (tmp_path / "d").mkdir(exist_ok=True)
        (tmp_path / "d" / name).symlink_to(tmp_path / "gone.csv")
    assert discover([tmp_path / "d"]) == [tmp_path / "d" / "gone1.csv", tmp_path / "d" / "gone2.csv"]


def test_a_jsonl_round_rejected_for_its_hands_is_a_gap_in_the_tables_sequence(tmp_path):
    """A round whose hand is null is rejected, and known to the audit as rejected: the next
    round of its table is not compared with the one before it (their decks alternate with the
    rejected one between), so no false TS-TWO-DECKS finding."""
    import json

    sample = Path(__file__).resolve().parent.parent / "sample_logs" / "triple-shot" / "ts-casino-ejemplo-dia2.jsonl"
    docs = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines()]
    fifth = [d for d in docs if d["table_id"] == "TS-01"][4]
    fifth["hands"][0] = None
    log = tmp_path / "gap.jsonl"
    log.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    result = audit([log])
    (rejected,) = result.rejected.itertuples()
    assert (rejected.reason, rejected.detail) == ("reject.bad_hand", "1: null")
    decks = result.findings[result.findings["code"] == "TS-TWO-DECKS"]
    assert fifth["round_id"] == "20261102-000005"
    assert not ((decks["table_id"] == "TS-01") & (decks["round_id"] == "20261102-000006")).any()


def test_one_entry_per_record_keeps_every_distinct_reason_once():
    """Of a record's rejects: the first by field and reason heads its entry; a reason given
    again (two hands of one JSONL record) is said once; "in a rejected round" after a fault of
    the record's own is dropped; records in file and line order."""
    import pandas as pd

    from auditor.engine import _one_per_record

    rejects = pd.DataFrame({"file": ["b", "a", "a", "a", "a", "a", "a", "a"],
                            "line": [1, 3, 1, 2, 2, 2, 3, 1],
                            "field": ["q", "", "seat", "y", "x", "x", "z", "bet"],
                            "reason": ["r6", "reject.round_incomplete", "r2", "r4", "r3", "r3", "r5", "r1"],
                            "detail": ["d", "9", "d", "d", "d", "d", "d", "d"]})
    out = _one_per_record(rejects)
    assert [(r.file, r.line, r.field, r.reason, r.also) for r in out.itertuples()] == [
        ("a", 1, "bet", "r1", (("seat", "r2", "d"),)), ("a", 2, "x", "r3", (("y", "r4", "d"),)),
        ("a", 3, "z", "r5", ()), ("b", 1, "q", "r6", ())]
    three = pd.concat([rejects.iloc[[4]]] * 2 + [rejects.iloc[[3]]] * 2 + [rejects.iloc[[2]].assign(line=2)])
    assert _one_per_record(three)["also"].tolist() == [(("x", "r3", "d"), ("y", "r4", "d"))]  # (seat first)


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_a_first_line_that_is_excels_separator_hint_is_read_as_excel_reads_it(tmp_path, monkeypatch, eol):
    """Excel's hint "sep=;" before the header names the separator and is no row: the log
    audits as the same log without it (its findings and rejects one line further down),
    whether its encoding is checked before the audit or beside it (and the rest of it read
    again, decoded, from a later block that is not ASCII), and whatever the chunks. A hint
    whose separator does not split the header is overruled by the header; ``--delimiter``
    has the last word."""
    from auditor.logs import sources

    rows = [hand(f"R{i}", minute=i % 60, day=1 + i // 60) for i in range(1700)]
    rows[7]["net_main"] = "25.00"  # a win of 10.00 over-paid: a PLB-WIN finding
    rows[11]["bet"] = "diez"  # rejected
    rows[1600].update(dealer_id="Peña", net_main="25.00")  # Windows-1252, past the first block (128 KB)
    plain = write_log(tmp_path / "plain.csv", rows).read_text(encoding="utf-8").replace(",", ";")
    plain = plain.replace("\n", eol)
    (tmp_path / "plain.csv").write_bytes(plain.encode("cp1252"))
    (tmp_path / "hinted.csv").write_bytes(f"sep=;{eol}{plain}".encode("cp1252"))
    (tmp_path / "wrong_hint.csv").write_bytes(f'"sep=|"{eol}{plain}'.encode("cp1252"))

    def seen(log: Path, head: int, shift: int, **options):
        monkeypatch.setattr(sources, "_HEAD", head)
        result = audit([log], chunk_rows=300, **options)
        item = result.inputs[0]
        return (item.records_read, item.records_audited, result.totals["rounds"],
                sorted(zip(result.findings["code"], result.findings["round_id"], result.findings["line"] - shift)),
                sorted(zip(result.rejected["reason"], result.rejected["line"] - shift)),
                sorted(result.findings["dealer_id"].unique())), item.notes

    for head in (256, 1 << 22):  # the encoding checked beside the audit, then before it
        expected, notes = seen(tmp_path / "plain.csv", head, 0)
        assert expected[3] and expected[4] and expected[0] == 1700 and "Peña" in expected[5]
        assert any("Windows-1252" in note for note in notes)
        hinted, hinted_notes = seen(tmp_path / "hinted.csv", head, 1)
        assert hinted == expected and len(hinted_notes) == len(notes) + 1
        assert any("«sep=;»" in note for note in hinted_notes)
        assert seen(tmp_path / "wrong_hint.csv", head, 1)[0] == expected
        assert seen(tmp_path / "wrong_hint.csv", head, 1, delimiter=";")[0] == expected


def test_a_parquet_bytes_column_with_a_value_that_is_no_text_in_a_later_batch_reads_every_row(tmp_path):
    """The game's column stored as bytes, one value no UTF-8 deep in the file: that row is
    rejected for it (its round with it), every other row is read and audited, as when the
    value is in the first batch."""
    rows = [hand(f"R{i}", minute=i % 60, day=1 + i // 60) for i in range(1500)]
    table = pa.table({k: [r[k] for r in rows] for k in HEADER})
    dealers = [r["dealer_id"].encode() for r in rows]
    dealers[1200] = b"CR-\xff\xfe"
    table = table.set_column(table.schema.get_field_index("dealer_id"), "dealer_id", pa.array(dealers, pa.binary()))
    log = tmp_path / "bytes.parquet"
    pq.write_table(table, log, row_group_size=500)
    result = audit([log], chunk_rows=300)
    item = result.inputs[0]
    assert item.error is None and item.records_read == 1500
    assert (item.records_audited, item.records_rejected) == (1499, 1)
    (reject,) = result.rejected.to_dict("records")
    assert (reject["line"], reject["field"], reject["reason"], reject["detail"]) == \
        (1201, "dealer_id", "reject.bad_text", "CR-\\xff\\xfe")


def test_the_text_of_a_few_rows_is_taken_from_each_array_of_a_column():
    """A rejected value's text (``_text_at``), from a column of several arrays, plain or
    run-encoded (a dictionary per array), at rows in any order: as a take over the whole."""
    plain = pa.chunked_array([pa.array(["a", None, "c"], pa.large_string()), pa.array([], pa.large_string()),
                              pa.array(["d", "e"], pa.large_string())])
    coded = pa.chunked_array([pa.DictionaryArray.from_arrays(pa.array([0, 0, 1], pa.int32()), pa.array(["x", "y"])),
                              pa.DictionaryArray.from_arrays(pa.array([1, 0], pa.int32()), pa.array(["z", "w"]))])
    rows = np.array([4, 0, 2, 1, 3, 4])
    for column in (plain, coded):
        assert _text_at(column, rows) == column.take(pa.array(rows)).cast(pa.large_string()).to_pylist()
    assert _text_at(plain, np.zeros(0, np.int64)) == []


def test_a_json_line_that_is_no_round_says_which_and_where_not_in_the_parsers_words(tmp_path):
    """A line that does not parse is unreadable JSON, its detail the column where it stops
    being JSON (the parser's own English message is no report's text); valid JSON that is no
    round (a list, null, an object without hands) says so; half a UTF-16 pair is bad text."""
    log = tmp_path / "mixed.jsonl"
    log.write_text('{"a": 1,,}\n[1, 2]\nnull\n{"game": "pot-luck-blackjack", "hands": []}\n"\\ud800"\n',
                   encoding="utf-8")
    rejected = audit([log], game="pot-luck-blackjack").rejected
    assert list(zip(rejected["line"], rejected["reason"], rejected["detail"])) == [
        (1, "reject.bad_json", "9"), (2, "reject.not_a_round", ""), (3, "reject.not_a_round", ""),
        (4, "reject.not_a_round", ""), (5, "reject.bad_text", "")]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_record_of_another_game_is_rejected_for_that_alone(tmp_path, suffix):
    """A round of another game (a roulette round in a Let It Ride export) is not this game's to
    judge: rejected for being another game's, with no card finding for a card this game's deck
    lacks, nor any other reason."""
    import json

    import pandas as pd

    from auditor.simulate import run

    log, _ = run("let-it-ride", rounds=20, seed=1, faults=0.0, out=tmp_path / f"lir{suffix}")
    if suffix == ".jsonl":
        lines = log.read_text().splitlines()
        doc = json.loads(lines[3])
        doc["game"], doc["hands"][0]["cards"], doc["hands"][0]["bet_1"] = "ruleta", "AS KD 1X", "diez"
        lines[3] = json.dumps(doc)
        log.write_text("\n".join(lines) + "\n")
    else:
        frame = pd.read_csv(log, dtype=str, keep_default_na=False)
        frame["game"] = ""
        frame.loc[3, ["game", "cards", "bet_1"]] = ["ruleta", "AS KD 1X", "diez"]
        frame.to_csv(log, index=False)
    result = audit([log])
    assert result.findings.empty, result.findings[["round_id", "code"]]
    own = result.rejected[result.rejected["reason"] != "reject.round_incomplete"]
    assert set(own["reason"]) == {"reject.other_game"} and set(own["field"]) == {"game"}


def test_more_cards_than_a_field_holds_is_said_to_be_so(tmp_path):
    """Cards of the deck, more than the field holds (six where Let It Ride's holds five), are
    rejected as too many, not as a card the deck lacks; the round's card finding (a field the
    audit cannot read as the game's) says so."""
    import pandas as pd

    from auditor.simulate import run

    log, _ = run("let-it-ride", rounds=20, seed=1, faults=0.0, out=tmp_path / "lir.csv")
    frame = pd.read_csv(log, dtype=str, keep_default_na=False)
    frame.loc[0, "cards"] = "JC 3H 7S 2D 5C 6C"
    frame.loc[len(frame) - 1, "cards"] = "JC 3H 1X"
    frame.to_csv(log, index=False)
    result = audit([log])
    own = result.rejected[result.rejected["reason"] != "reject.round_incomplete"]
    assert sorted(zip(own["line"], own["reason"])) == [(2, "reject.too_many_cards"), (len(frame) + 1, "reject.bad_cards")]
    found = result.findings.sort_values("line")
    assert list(found["code"]) == ["LIR-CARDS", "LIR-CARDS"] and list(found["line"]) == [2, len(frame) + 1]
    assert found["message"].str.endswith(("más naipes de los que admite el formato del registro",
                                          "un naipe ilegible o que no es de la baraja")).all()
    assert found["message"].iloc[0].endswith("formato del registro")


def test_a_number_out_of_range_is_rejected_with_the_number(tmp_path):
    rows = [hand("1", seat="0"), hand("2", minute=1, hand="99")]
    result = audit([write_log(tmp_path / "mesa.csv", rows)])
    own = result.rejected[result.rejected["reason"] == "reject.out_of_range"]
    assert sorted(zip(own["field"], own["detail"])) == [("hand", "99"), ("seat", "0")]


def _round_document(row: dict) -> dict:
    base = {k: row[k] for k in HEADER[:6]}
    hand_fields = {k: row[k] for k in HEADER[6:]}
    return {"game": "pot-luck-blackjack", **base, "hands": [hand_fields]}


@pytest.mark.parametrize("leading", ['{"export": "Casino Ejemplo", "version": 2}', "{}",
                                     '{"table_id": "T1", "round_id": "R0", "hands": []}', "null", "[]"])
def test_a_jsonl_file_is_told_by_its_rounds_past_leading_lines_that_are_none(tmp_path, leading):
    """An export's own header object, ``{}`` or a round without hands before the rounds is one
    line rejected as no round, as ``null`` is: the game is told by the first round."""
    log = tmp_path / "lead.jsonl"
    docs = [_round_document(hand("R1")), _round_document(hand("R2", minute=1))]
    log.write_text(leading + "\n" + "".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    assert open_source(log).game == "pot-luck-blackjack"
    result = audit([log])
    (item,) = result.inputs
    assert item.error is None and (item.records_read, item.records_audited, item.records_rejected) == (3, 2, 1)
    assert list(zip(result.rejected["line"], result.rejected["reason"])) == [(1, "reject.not_a_round")]


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_blank_lines_before_the_header_are_passed_over_and_the_rows_keep_their_lines(tmp_path, monkeypatch, eol):
    """An empty line, one of spaces or one of separators only before the header (or after
    Excel's hint) is no header: the log audits as the same log without them, its findings and
    rejects as many lines further down, whether its encoding is checked before the audit or
    beside it; a note says so. A file of such lines alone is still empty."""
    from auditor.logs import sources

    rows = [hand(f"R{i}", minute=i % 60, day=1 + i // 60) for i in range(300)]
    rows[7]["net_main"] = "25.00"  # over-paid: a PLB-WIN finding
    rows[11]["bet"] = "diez"  # rejected
    plain = write_log(tmp_path / "plain.csv", rows).read_text(encoding="utf-8").replace("\n", eol)
    (tmp_path / "plain.csv").write_bytes(plain.encode("ascii"))
    (tmp_path / "blank.csv").write_bytes(f"{eol}   {eol},,,{eol}{plain}".encode("ascii"))
    (tmp_path / "hinted.csv").write_bytes(f" {eol}sep=,{eol}{eol}{plain}".encode("ascii"))

    def seen(log: Path, head: int, shift: int):
        monkeypatch.setattr(sources, "_HEAD", head)
        result = audit([log], chunk_rows=100)
        item = result.inputs[0]
        return (item.error, item.records_read, item.records_audited, result.totals["rounds"],
                sorted(zip(result.findings["code"], result.findings["line"] - shift)),
                sorted(zip(result.rejected["reason"], result.rejected["line"] - shift))), item.notes

    for head in (256, 1 << 22):  # the encoding checked beside the audit, then before it
        expected, notes = seen(tmp_path / "plain.csv", head, 0)
        assert expected[0] is None and expected[4] and expected[5] and not notes
        blank, blank_notes = seen(tmp_path / "blank.csv", head, 3)
        assert blank == expected
        assert blank_notes == (t("input.blank_lines_before_header", "es", count=3, header=4),)
        hinted, hinted_notes = seen(tmp_path / "hinted.csv", head, 3)
        assert hinted == expected and len(hinted_notes) == 2 and "«sep=,»" in hinted_notes[0]
    (tmp_path / "blanks.csv").write_bytes(f"{eol} {eol}".encode("ascii"))
    assert audit([tmp_path / "blanks.csv"]).inputs[0].error == t("input.empty", "es")


def test_a_jsonl_key_given_twice_is_found_however_the_line_is_written_and_a_clean_line_costs_no_second_parse(tmp_path):
    """The cheap test before the exact one (``_keys_may_repeat``) never passes over a repeated
    key: with blanks before its colon, compact, escaped (a time's colon as ``\\u003a``), in a
    hand or the round; and it sends no line of a usual export to the second parse. Each such
    line is rejected naming the key: the round whole where the key is not what tells it."""
    from auditor.logs.sources import _keys_may_repeat, _repeated_key

    doc = _round_document(hand("R1"))
    for separators in ((", ", ": "), (",", ":"), (" , ", " : "), ("\t,", "\t:\t")):
        assert not _keys_may_repeat(json.dumps(doc, separators=separators), doc), separators
    plain = json.dumps(doc)
    repeats = {
        "round": plain.replace('"dealer_id": "D1"', '"dealer_id": "D9", "dealer_id": "D1"'),
        "blank before the colon": plain.replace('"dealer_id": "D1"', '"dealer_id"  :"D9",  "dealer_id"\t:  "D1"'),
        "compact": json.dumps(doc, separators=(",", ":")).replace('"bet":"10.00"', '"bet":"99","bet":"10.00"'),
        "escaped time": plain.replace('"bet": "10.00"', '"bet": "1", "bet": "10.00"').replace(
            "20:00:00", "20\\u003a00\\u003a00"),
        "a colon in a text": plain.replace('"dealer_id": "D1"', '"dealer_id": "D:1 :", "dealer_id": "D1"'),
    }
    for case, line in repeats.items():
        parsed = json.loads(line)
        assert _keys_may_repeat(line, parsed) and _repeated_key(line) is not None, case
    assert _repeated_key(repeats["compact"]) == ("bet", "1: bet", False)
    assert _repeated_key(repeats["round"]) == ("dealer_id", "dealer_id", True)

    log = tmp_path / "twice.jsonl"
    second = _round_document(hand("R2", minute=1))
    log.write_text(plain.replace('"table_id": "T1"', '"table_id": "T1", "table_id": "T2"') + "\n"
                   + repeats["compact"].replace('"R1"', '"R3"') + "\n" + json.dumps(second) + "\n", encoding="utf-8")
    result = audit([log])
    assert result.totals["rounds"] == 1 and result.inputs[0].records_rejected == 2
    assert list(zip(result.rejected["line"], result.rejected["field"], result.rejected["reason"],
                    result.rejected["detail"])) == [(1, "table_id", "reject.duplicate_key", "table_id"),
                                                   (2, "bet", "reject.duplicate_key", "1: bet")]


def _shouted(doc: dict, spell) -> dict:
    """A round document with its keys, and its hands', spelled by ``spell``."""
    return {spell(k): ([{spell(h): v for h, v in hand.items()} for hand in v] if k == "hands" else v)
            for k, v in doc.items()}


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_a_jsonl_documents_keys_are_its_fields_whatever_their_case_and_blanks(tmp_path, suffix):
    """A JSONL document whose keys are in capitals (``TABLE_ID``), or have blanks around them,
    in the round and in its hands (``HANDS`` too), was read as written: no field of the
    format (a file of them all named no game; a document of some, its fields left out). It
    audits as the same log with the format's keys, its game told by them and its first time
    read (the batch's first look finds its tables too); an extra key keeps its own spelling."""
    from auditor.batch.spans import scan as first_look

    rows = [hand(f"R{i}", minute=i % 60, day=1 + i // 60) for i in range(120)]
    rows[7]["net_main"] = "25.00"  # over-paid: a PLB-WIN finding
    rows[11]["bet"] = "diez"  # rejected
    docs = [{**_round_document(r), "Nota": "x"} for r in rows]
    spellings = {"plain": lambda k: k, "capitals": lambda k: k if k == "Nota" else k.upper(),
                 "spaced": lambda k: f" {k.title()} " if k in ("table_id", "hands", "seat") else k,
                 "mixed": lambda k: k.upper() if len(k) % 2 else k}
    seen = {}
    for name, spell in spellings.items():
        log = tmp_path / f"{name}{suffix}"
        text = "".join(json.dumps(_shouted(d, spell) if i % 3 or name != "mixed" else d) + "\n"
                       for i, d in enumerate(docs))
        log.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
        source = open_source(log)
        result = audit([log])
        (item,) = result.inputs
        seen[name] = (source.game, source.first_time, item.error, item.records_read, item.records_audited,
                      sorted(zip(result.findings["code"], result.findings["line"])),
                      sorted(zip(result.rejected["line"], result.rejected["field"], result.rejected["reason"])),
                      sorted(first_look((str(log), "-")).spans), first_look((str(log), "-")).game)
    assert seen["plain"][2] is None and seen["plain"][5] and seen["plain"][6] and seen["plain"][7] == ["T1"]
    for name in spellings:
        assert seen[name] == seen["plain"], name


def test_two_keys_of_one_field_in_a_jsonl_document_reject_its_line_naming_both(tmp_path):
    """``table_id`` and ``TABLE_ID`` in one object leave unknown which value holds, as a key
    given twice does (``reject.duplicate_key``): the line is rejected naming both as written
    (``reject.keys_alike``, a hand's with its number), as no round's where the key tells the
    round, else with its round. A hand that spells a round field otherwise gives that field:
    the same value is harmless, another is a hand's round field (``reject.hand_round_field``)."""
    docs = [_round_document(hand(f"R{i}", minute=i)) for i in range(1, 7)]
    docs[0] = {"TABLE_ID": "T2", **docs[0]}
    docs[1] = {**docs[1], " dealer_id": "D9"}
    docs[2]["hands"][0] = {**docs[2]["hands"][0], "BET": "10.00"}
    docs[3]["hands"][0] = {**docs[3]["hands"][0], "Table_Id": "T1"}  # (the round's own value)
    docs[4]["hands"][0] = {**docs[4]["hands"][0], "Round_Id": "R9"}
    log = tmp_path / "alike.jsonl"
    log.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    result = audit([log])
    (item,) = result.inputs
    assert (item.records_read, item.records_audited, item.records_rejected) == (6, 2, 4)
    assert sorted(zip(result.rejected["line"], result.rejected["field"], result.rejected["reason"],
                      result.rejected["detail"])) == [
        (1, "table_id", "reject.keys_alike", "«TABLE_ID», «table_id»"),
        (2, "dealer_id", "reject.keys_alike", "«dealer_id», « dealer_id»"),
        (3, "bet", "reject.keys_alike", "1: «bet», «BET»"),
        (5, "round_id", "reject.hand_round_field", '1: "R9"')]
    assert set(result.findings["round_id"]) <= {"R4", "R6"}
    assert result.totals["rounds"] == 2
    for lang in ("es", "en"):
        assert t("reject.keys_alike", lang) != t("reject.duplicate_key", lang)


def test_a_csv_whose_last_line_has_no_end_is_noted(tmp_path):
    """A last line without its line end may be a file cut as it was copied (its last value
    short): the file is audited, and its report says so; a file that ends its lines is not."""
    ended = write_log(tmp_path / "ended.csv", [hand("1"), hand("2", minute=1)])
    cut = tmp_path / "cut.csv"
    cut.write_bytes(ended.read_bytes().rstrip(b"\n"))
    result = audit([ended, cut])
    notes = {Path(i.path).name: i.notes for i in result.inputs}
    assert notes["ended.csv"] == ()
    assert len(notes["cut.csv"]) == 1 and "la última línea (3) no termina" in notes["cut.csv"][0]
    assert result.totals["rounds"] == 2


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_a_header_in_capitals_or_with_blanks_around_its_names_is_the_logs_header(tmp_path, monkeypatch, eol):
    """Some table systems write the header as their database spells the columns: in capitals
    (``TABLE_ID``), or with blanks around a name. The log audits as the same log with the
    format's names, CSV (by any separator, after Excel's hint) and Parquet alike, whether its
    encoding is checked before the audit or beside it; a line that repeats such a header is a
    repeated header; an extra column keeps its own spelling."""
    from auditor.logs import sources

    rows = [hand(f"R{i}", minute=i % 60, day=1 + i // 60) for i in range(300)]
    rows[7]["net_main"] = "25.00"  # over-paid: a PLB-WIN finding
    rows[11]["bet"] = "diez"  # rejected
    plain = write_log(tmp_path / "plain.csv", [{**r, "Nota": "x", "DECK_COLOR": "rojo"} for r in rows],
                      header=[*HEADER, "Nota", "DECK_COLOR"])
    text = plain.read_text(encoding="utf-8")
    header, body = text.split("\n", 1)
    shouted = ",".join(h.upper() for h in HEADER) + ",Nota,DECK_COLOR"
    spaced = ",".join(f" {h.title()} " if h in ("table_id", "dealer_id", "seat") else h.upper() for h in HEADER)
    spaced += ",Nota,DECK_COLOR"
    cases = {"capitals.csv": f"{shouted}\n{body}", "spaced.csv": f"{spaced}\n{body}",
             "semicolon.csv": f"{shouted}\n{body}".replace(",", ";"),
             "hinted.csv": "sep=;\n" + f"{shouted}\n{body}".replace(",", ";"),
             "repeated.csv": f"{shouted}\n{body}{spaced}\n"}
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content.replace("\n", eol).encode("ascii"))
    (tmp_path / "plain.csv").write_bytes(text.replace("\n", eol).encode("ascii"))
    table = pa.table({k: [r[k] for r in rows] for k in HEADER})
    pq.write_table(table, tmp_path / "plain.parquet")
    pq.write_table(table.rename_columns([f" {h.upper()}" if h == "round_id" else h.upper() for h in HEADER]),
                   tmp_path / "capitals.parquet")

    def seen(log: Path, head: int, shift: int = 0):
        monkeypatch.setattr(sources, "_HEAD", head)
        result = audit([log], chunk_rows=100)
        item = result.inputs[0]
        src = open_source(log)
        return (item.error, item.records_read, item.records_audited, result.totals["rounds"],
                sorted(zip(result.findings["code"], result.findings["round_id"], result.findings["line"] - shift)),
                sorted(zip(result.rejected["reason"], result.rejected["line"] - shift)),
                src.game, src.first_time, src.first_round), item

    for head in (256, 1 << 22):  # the encoding checked beside the audit, then before it
        expected, item = seen(tmp_path / "plain.csv", head)
        assert expected[0] is None and expected[4] and expected[5] and not item.notes
        assert item.extra_columns == ("Nota", "DECK_COLOR")  # (another game's column, as the file spells it)
        for name in ("capitals.csv", "spaced.csv", "semicolon.csv"):
            got, item = seen(tmp_path / name, head)
            assert got == expected, name
            assert item.extra_columns == ("Nota", "DECK_COLOR") and len(item.notes) == (name == "semicolon.csv"), name
        assert seen(tmp_path / "hinted.csv", head, shift=1)[0] == expected
        repeated, _ = seen(tmp_path / "repeated.csv", head)
        assert (repeated[0], repeated[1] - 1, *repeated[2:5]) == expected[:5]
        assert set(repeated[5]) - set(expected[5]) == {
            ("reject.header_repeated", len(rows) + 2)}
    expected, _ = seen(tmp_path / "plain.parquet", 256)
    assert expected[0] is None and expected[4] and expected[5]
    assert seen(tmp_path / "capitals.parquet", 256)[0] == expected


def test_two_names_of_one_column_but_for_their_case_are_refused_naming_them(tmp_path):
    """``table_id`` and ``TABLE_ID`` in one header (or Parquet file, ``round_id`` and
    `` Round_Id``): which of the two holds the field is unknown, so the file is not audited,
    and the error names both as the file spells them."""
    from typer.testing import CliRunner

    from auditor.cli import app

    rows = [{**hand("R1"), "TABLE_ID": "T9"}, {**hand("R2", minute=1), "TABLE_ID": "T9"}]
    log = write_log(tmp_path / "twice.csv", rows, header=[*HEADER, "TABLE_ID"])
    (item,) = audit([log]).inputs
    assert item.error == t("input.columns_alike", "es", columns="«table_id», «TABLE_ID»")
    table = pa.table({**{k: [r[k] for r in rows] for k in HEADER}, " Round_Id": ["X1", "X2"]})
    pq.write_table(table, tmp_path / "twice.parquet")
    (item,) = audit([tmp_path / "twice.parquet"]).inputs
    assert item.error == t("input.columns_alike", "es", columns="«round_id», « Round_Id»")
    result = CliRunner().invoke(app, ["--lang", "en", "audit", str(log), "--out", str(tmp_path / "out"),
                                      "--format", "json"])
    assert result.exit_code == 2 and "«table_id», «TABLE_ID»" in result.stderr, result.output


def test_a_header_line_too_long_to_be_one_is_said_to_be_so(tmp_path):
    """A header line with no line end in its first MB (a file without line ends, or no log)
    is said to be that, naming its line (after blank lines before it too), not reported as a
    header of no columns; so is a header of one name longer than the csv module reads."""
    rows = write_log(tmp_path / "rows.csv", [hand("R1"), hand("R2", minute=1)]).read_text().split("\n", 1)[1]
    cases = {"long.csv": ("table_id," + "x" * 2_000_000 + "\n" + rows, 1),
             "blank_first.csv": ("\n  \n" + ",".join(HEADER) + ",x" * 600_000 + "\n" + rows, 3)}
    for name, (content, line) in cases.items():
        (tmp_path / name).write_text(content)
        (item,) = audit([tmp_path / name]).inputs
        assert item.error == t("input.header_too_long", "es", line=line, limit=1 << 20), name
    with gzip.open(tmp_path / "long.csv.gz", "wt") as fh:
        fh.write(cases["long.csv"][0])
    (item,) = audit([tmp_path / "long.csv.gz"]).inputs
    assert item.error == t("input.header_too_long", "es", line=1, limit=1 << 20)
    (tmp_path / "name.csv").write_text(",".join(HEADER) + ',"' + "x" * 200_000 + '"\n' + rows)
    (item,) = audit([tmp_path / "name.csv"]).inputs
    assert item.error == t("input.header_name_too_long", "es", line=1, limit=csv.field_size_limit())


def test_an_amount_above_the_largest_is_rejected_as_too_large_not_audited_wrapped(tmp_path):
    """A bonus bet of S/ 9 999 999 999 999.99 (13 digits, which the format's text took) on a
    royal flush was audited: due 20 000 times it, 2 × 10^19 céntimos, it wrapped around int64 to
    a finding of S/ 15 532 559 262 904 283.84 due. An amount above S/ 999 999 999.99
    (``money.LARGEST_CENTS``), however written, is rejected as too large with its record (read =
    audited + rejected; a 19-digit one was "not a decimal"), and the largest is audited exactly."""
    from auditor.money import AMOUNT_DIGITS, LARGEST_AMOUNT, LARGEST_CENTS
    from test_rule_cases import write_log as write_case

    royal = "JS TS,1,AS KS QS,10000.00,10000.00,10000.00"  # bets of 10.00 paid 1 000 to 1
    log = write_case("let-it-ride", f"""
round_id,community_cards,seat,cards,net_1,net_2,net_dollar,bonus_bet,net_bonus
1,{royal},9999999999999.99,0
2,{royal},999999999.99,0
3,{royal},0,-1000000000.00
4,{royal},0001000000000.00,0
5,{royal},1234567890123456789,0
6,{royal},"1000000000,00",0
7,{royal},1.00,20000.00
""", tmp_path / "large.csv")
    result = audit([log])
    assert _reasons(result) == [(2, "bonus_bet", "reject.amount_too_large"), (4, "net_bonus", "reject.amount_too_large"),
                                (5, "bonus_bet", "reject.amount_too_large"), (6, "bonus_bet", "reject.amount_too_large"),
                                (7, "bonus_bet", "reject.amount_too_large")]
    (item,) = result.inputs
    assert (item.records_read, item.records_audited, item.records_rejected) == (7, 2, 5)
    (finding,) = result.findings.itertuples()
    due = LARGEST_CENTS * 20_000  # (céntimos, in Python's int)
    assert (finding.code, finding.round_id, finding.expected, finding.observed, finding.impact) == (
        "LIR-BONUS", "2", f"{due // 100}.{due % 100:02d}", "0.00", f"-{due // 100}.{due % 100:02d}")
    # A Parquet column of whole numbers is read as their text: 10^15 is too large too.
    import pyarrow.csv as pacsv

    text = pacsv.ConvertOptions(column_types={name: pa.string() for name in log.read_text().split("\n", 1)[0].split(",")})
    table = pacsv.read_csv(log, convert_options=text).slice(0, 2)
    table = table.set_column(table.schema.get_field_index("bonus_bet"), "bonus_bet", pa.array([10**15, 0], pa.int64()))
    pq.write_table(table, tmp_path / "large.parquet")
    assert _reasons(audit([tmp_path / "large.parquet"])) == [(1, "bonus_bet", "reject.amount_too_large")]
    for lang in ("es", "en"):  # (the message states the bound the code holds)
        assert str(LARGEST_AMOUNT) in t("reject.amount_too_large", lang)
        assert f" {AMOUNT_DIGITS} " in t("reject.amount_too_large", lang)


def test_an_amount_above_the_largest_written_as_a_number_in_exponent_form_is_too_large(tmp_path):
    """A JSON number of 10^16 or more reads as ``1e+16`` (Python's text of a float), and a
    Parquet column of floats writes ``1e+10`` from 10^10 (Arrow's): such an amount was rejected
    as "not a decimal in soles" where the same amount in digits is too large. It is too large
    however it is written; an exponent that leaves the amount within the bound (``1e2``), or one
    too small for céntimos, is still no amount of the format."""
    rows = [hand("R1"), hand("R2", minute=1), hand("R3", minute=2), hand("R4", minute=3), hand("R5", minute=4)]
    docs = []
    for row, bet in zip(rows, ["10.00", 1e16, 1.2345678901234567e19, -1e16, 1e15]):
        doc = {k: row[k] for k in HEADER[:6]}
        doc["hands"] = [{k: row[k] for k in HEADER[6:]}]
        doc["hands"][0]["bet"] = bet
        if bet == -1e16:  # (a settlement is signed: a negative amount too large is too large)
            doc["hands"][0]["bet"], doc["hands"][0]["net_main"] = "10.00", bet
        docs.append(json.dumps(doc))
    (tmp_path / "numbers.jsonl").write_text("\n".join(docs) + "\n", encoding="utf-8")
    result = audit([tmp_path / "numbers.jsonl"])
    assert _reasons(result) == [(2, "bet", "reject.amount_too_large"), (3, "bet", "reject.amount_too_large"),
                                (4, "net_main", "reject.amount_too_large"), (5, "bet", "reject.amount_too_large")]
    (item,) = result.inputs
    assert (item.records_read, item.records_audited, item.records_rejected) == (5, 1, 4)
    # A Parquet column of floats, as Arrow writes it as text: 1e+10, 1.5e+10, -1e+10.
    table = pa.table({k: [r[k] for r in rows[:4]] for k in HEADER})
    table = table.set_column(HEADER.index("bet"), "bet", pa.array([10.0, 1e10, 1.5e10, 10.0], pa.float64()))
    table = table.set_column(HEADER.index("net_main"), "net_main", pa.array([10.0, 0.0, 0.0, -1e10], pa.float64()))
    pq.write_table(table, tmp_path / "floats.parquet")
    assert _reasons(audit([tmp_path / "floats.parquet"])) == [
        (2, "bet", "reject.amount_too_large"), (3, "bet", "reject.amount_too_large"),
        (4, "net_main", "reject.amount_too_large")]
    # In a CSV, where no exponent is a spelling of the format: too large above the bound, not
    # an amount below it.
    log = write_log(tmp_path / "exp.csv", [hand("R1", bet="1e2"), hand("R2", minute=1, bet="1.5E+10"),
                                           hand("R3", minute=2, bet="1e-7"), hand("R4", minute=3, bet="10.00")])
    assert _reasons(audit([log])) == [(2, "bet", "reject.bad_amount"), (3, "bet", "reject.amount_too_large"),
                                      (4, "bet", "reject.bad_amount")]


def test_a_json_number_python_reads_as_none_is_its_fields_value_too_large_or_invalid(tmp_path):
    """A JSON number beyond a float's range (``1e400``), which Python reads as infinity, was a
    JSON value of no field's kind (``reject.json_type``), and an integer of more than 4,300
    digits (Python's limit on the digits it converts) made its line unreadable JSON
    (``reject.bad_json``). Each is read as the line writes it: an amount too large
    (``reject.amount_too_large``, as the same amount in digits), a seat that is no whole
    number of the format (``reject.bad_int``); the line stays its round's, whose other fields
    are judged (a card outside the deck is still a finding); in any hand of the round, and in
    a batch after the first (its line read again). ``NaN`` and ``Infinity`` stay no value of
    any field's kind."""
    digits = "9" * 5000
    docs = [_round_document(hand(f"R{i}", minute=i)) for i in range(1, 9)]
    docs[1]["hands"][0]["bet"] = "1e400"
    docs[1]["dealer_cards"] = "TH ZZ"
    docs[2]["hands"][0]["bet"] = digits
    docs[3]["hands"].append({**docs[3]["hands"][0], "seat": "2", "net_main": "-1e400"})
    docs[4]["hands"][0]["seat"] = "1e400"
    docs[5]["hands"][0]["seat"] = digits
    docs[6]["hands"][0]["bet"] = "Infinity"
    lines = [json.dumps(d) for d in docs]
    for value in ("1e400", "-1e400", digits, "Infinity"):
        lines = [line.replace(f'"{value}"', value) for line in lines]
    log = tmp_path / "numbers.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = audit([log])
    (item,) = result.inputs
    assert (item.records_read, item.records_audited, item.records_rejected) == (8, 2, 6)
    assert [(line, field, reason, detail[:12]) for line, field, reason, detail in zip(
        result.rejected["line"], result.rejected["field"], result.rejected["reason"], result.rejected["detail"])] == [
        (2, "bet", "reject.amount_too_large", "1e400"), (3, "bet", "reject.amount_too_large", "9" * 12),
        (4, "net_main", "reject.amount_too_large", "-1e400"), (5, "seat", "reject.bad_int", "1e400"),
        (6, "seat", "reject.bad_int", "9" * 12), (7, "bet", "reject.json_type", "Infinity")]
    assert list(result.rejected["also"])[0] == (("dealer_cards", "reject.bad_cards", "TH ZZ"),)
    assert list(zip(result.findings["code"], result.findings["line"])) == [("PLB-CARDS", 2)]
    source = open_source(log)
    bets = [b for batch in source.batches(rows=1) for b in batch.column("bet").to_pylist()]
    nets = [b for batch in source.batches(rows=1) for b in batch.column("net_main").to_pylist()]
    assert (bets[1], bets[2], nets[4]) == ("1e400", digits, "-1e400")


def test_a_hand_giving_its_round_another_number_beyond_a_floats_range_is_a_hand_round_field(tmp_path):
    """A hand whose ``round_id`` is ``2e400`` in a round whose own is ``1e400`` gives the round
    another id, as ``8`` in a round ``7`` does (``reject.hand_round_field``): both were read as
    infinity and compared equal, and the round was audited as ``2e400``, the id its document
    does not give. The same number in both is the round's, as ``7`` and ``"7"`` are."""
    docs = [_round_document(hand(f"R{i}", minute=i)) for i in range(1, 5)]
    docs[1]["round_id"], docs[1]["hands"][0]["round_id"] = "XX", "YY"
    docs[2]["round_id"], docs[2]["hands"][0]["round_id"] = "ZZ", "ZZ"
    lines = [json.dumps(d).replace('"XX"', "1e400").replace('"YY"', "2e400").replace('"ZZ"', "3e400") for d in docs]
    log = tmp_path / "ids.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = audit([log])
    (item,) = result.inputs
    assert (item.records_read, item.records_audited, item.records_rejected) == (4, 3, 1)
    assert list(zip(result.rejected["line"], result.rejected["field"], result.rejected["reason"],
                    result.rejected["detail"])) == [(2, "round_id", "reject.hand_round_field", "1: 2e400")]
    assert result.totals["rounds"] == 3


def _audited_as(log: Path, shift: int, **kw):
    """What a log's report says, its lines less ``shift`` (a CSV's first row is line 2, a
    Parquet file's row 1; a round rejected for another row names that row's line)."""
    result = audit([log], **kw)
    (item,) = result.inputs
    findings = result.findings.drop(columns=["file", "line"]).assign(line=result.findings["line"] - shift)
    rejected = result.rejected
    named = rejected["reason"] == "reject.round_incomplete"
    details = [str(int(d) - shift) if n else d for d, n in zip(rejected["detail"], named)]
    return (item.error, item.records_read, item.records_audited, item.records_rejected, result.totals,
            sorted(map(repr, findings.to_dict("records"))),
            sorted(zip(rejected["line"] - shift, rejected["field"], rejected["reason"], details)))


@pytest.mark.parametrize("sample", ["let-it-ride/lir-casino-ejemplo.csv", "pot-luck-blackjack/plb-casino-ejemplo.csv",
                                    "triple-shot/ts-casino-ejemplo-dia1.csv"])
def test_a_parquet_log_whose_amounts_are_decimals_of_any_scale_reports_as_its_csv(tmp_path, sample):
    """An export that stores money as DECIMAL(18,3) or DECIMAL(19,4) (SQL Server, Oracle)
    writes S/ 10.10 as 10.100 or 10.1000: every row was rejected as an invalid amount. The
    scale is the column's, not the value's: the sample log with its amounts as decimals of
    two, three or four places gives the report of the CSV, amount for amount."""
    import pyarrow.csv as pacsv

    from auditor.logs.schema import Kind, columns_of
    from auditor.profiles import load_profiles

    root = Path(__file__).resolve().parent.parent
    log = root / "sample_logs" / sample
    profiles = load_profiles([root / "profiles"])
    names = log.read_text(encoding="utf-8").split("\n", 1)[0].split(",")
    text = pacsv.read_csv(log, convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names}))
    src = open_source(log)
    money = [c.name for c in columns_of(src.game) if c.kind in (Kind.MONEY, Kind.SIGNED_MONEY) and c.name in names]
    expected = _audited_as(log, 1, profiles=profiles)
    assert expected[0] is None and expected[5] and expected[1] == expected[2] + expected[3]
    for kind in (pa.decimal128(12, 2), pa.decimal128(18, 3), pa.decimal128(19, 4)):
        table = text
        for name in money:
            table = table.set_column(names.index(name), name, table.column(name).cast(kind))
        pq.write_table(table, tmp_path / "decimals.parquet")
        assert _audited_as(tmp_path / "decimals.parquet", 0, profiles=profiles) == expected, kind


@pytest.mark.parametrize("kind", [pa.decimal128(18, 3), pa.decimal128(19, 4), pa.decimal64(18, 5),
                                  pa.decimal256(50, 8)])
def test_a_parquet_decimal_amount_with_a_fraction_of_a_centimo_rejects_its_round(tmp_path, kind):
    """A decimal of more than two places that is no whole number of céntimos (10.105) is no
    amount: its row is rejected for it, naming the value, and its round with it (the seat
    beside it), whatever the sign (-0.005 is not 0.00); the other values are read exactly,
    negative settlements, the largest amount audited and one above it too large."""
    from decimal import Decimal

    rows = [hand("R1"), hand("R1", seat="2"), hand("R2", minute=1), hand("R3", minute=2), hand("R4", minute=3),
            hand("R5", minute=4), hand("R6", minute=5), hand("R7", minute=6)]
    bets = ["10.10", "10.105", "10.10", "10.00", "999999999.99", "1000000000.00", None, "10.00"]
    nets = ["10.10", "10.105", "-10.10", "-10.00", "999999999.99", "0", "0", "-0.005"]
    table = pa.table({k: [r[k] for r in rows] for k in HEADER})
    for name, values in (("bet", bets), ("net_main", nets)):
        column = pa.array([None if v is None else Decimal(v) for v in values], kind)
        table = table.set_column(HEADER.index(name), name, column)
    pq.write_table(table, tmp_path / "decimals.parquet")
    result = audit([tmp_path / "decimals.parquet"])
    places = "0" * (kind.scale - 3)
    assert sorted(zip(result.rejected["line"], result.rejected["field"], result.rejected["reason"],
                      result.rejected["detail"])) == [
        (1, "", "reject.round_incomplete", "2"), (2, "bet", "reject.fraction_of_centimo", f"10.105{places}"),
        (6, "bet", "reject.amount_too_large", "1000000000.00"), (7, "bet", "reject.missing", ""),
        (8, "net_main", "reject.fraction_of_centimo", f"-0.005{places}")]
    (item,) = result.inputs
    assert (item.records_read, item.records_audited, item.records_rejected) == (8, 3, 5)
    assert sorted(zip(result.findings["code"], result.findings["line"], result.findings["expected"],
                      result.findings["observed"])) == [("PLB-WIN", 3, "10.10", "-10.10"), ("PLB-WIN", 4, "10.00", "-10.00")]
    assert result.totals["wagered"] == 1010 + 1000 + 99999999999
    for lang in ("es", "en"):
        assert "10.105" in t("reject.fraction_of_centimo", lang) and "céntimo" in t("reject.fraction_of_centimo", lang)


def test_a_parquet_decimal_amount_of_no_or_one_place_is_its_amount(tmp_path):
    """A decimal of 0 or 1 places is read as Arrow writes it (10, 10.5), a text of the log's:
    its amount, negative settlements and the bound as for text."""
    from decimal import Decimal

    rows = [hand("R1"), hand("R2", minute=1), hand("R3", minute=2)]
    for kind, bets, nets in ((pa.decimal128(12, 0), ["10", "10", "1000000000"], ["10", "-10", "0"]),
                             (pa.decimal128(12, 1), ["10.5", "10.5", "1000000000.0"], ["10.5", "-10.5", "0"])):
        table = pa.table({k: [r[k] for r in rows] for k in HEADER})
        for name, values in (("bet", bets), ("net_main", nets)):
            table = table.set_column(HEADER.index(name), name, pa.array([Decimal(v) for v in values], kind))
        pq.write_table(table, tmp_path / "decimals.parquet")
        result = audit([tmp_path / "decimals.parquet"])
        assert _reasons(result) == [(3, "bet", "reject.amount_too_large")], kind
        due = f"{Decimal(bets[1]):.2f}"
        assert list(zip(result.findings["code"], result.findings["line"], result.findings["expected"],
                        result.findings["observed"])) == [("PLB-WIN", 2, due, f"-{due}")], kind

def _where_not_text(exc) -> tuple[str, int, str]:
    """(encoding, line, bytes) an error of a file that is no text in the encoding given names."""
    assert exc.key == "input.not_text_in_encoding", exc.key
    key, values = exc.params["where"]
    assert key == ("input.not_text_byte" if " " not in values["bytes"] else "input.not_text_bytes")
    return exc.params["encoding"], values["line"], values["bytes"]


def test_the_encoding_given_is_checked_throughout_and_its_first_bytes_that_are_no_text_named(tmp_path, monkeypatch):
    """--encoding X: the pass over the bytes before the file is read checks them to be text
    in X (they were read as U+FFFD, unsaid), and names the line of the first that are not as
    the readers number lines (after CR, CRLF or LF), bytes held across the pass's blocks
    too (read here 5 bytes at a time); a codec in which every byte is a character (Latin-1,
    cp850) reads any file; valid text of a codec of several bytes a character is read."""
    import codecs

    from auditor.logs import files
    from auditor.logs.files import InputError

    monkeypatch.setattr(files, "_BLOCK", 5)
    rows = [hand("R1", dealer_id="Peña"), hand("R2", minute=1), hand("R3", minute=2, dealer_id="DX")]
    text = write_log(tmp_path / "plain.csv", rows).read_text(encoding="utf-8")
    surrogate = ("\ufeff" + text).encode("utf-16-le").replace("DX".encode("utf-16-le"), b"\x00\xd8X\x00")
    cases = {  # name: (bytes, encoding given, (line, bytes) of the error, or the third dealer read)
        "lone_surrogate.csv": (surrogate, "utf-16", (4, "0x00 0xD8")),
        "cut_at_the_end.csv": (text.encode("utf-8") + "ñ".encode("utf-8")[:1], "utf-8", (5, "0xC3")),
        "crlf.csv": (text.replace("\n", "\r\n").replace("DX", "D\x9d").encode("latin-1"), "cp1252", (4, "0x9D")),
        "cr.csv": (text.replace("\n", "\r").encode("utf-8").replace(b"DX", b"D\xe9"), "utf-8", (4, "0xE9")),
        "cp1252_cut.csv.gz": (gzip.compress(text.encode("utf-8")[:-30]) + gzip.compress(b"\x8f" + text.encode()[-29:]),
                              "cp1252", (4, "0x8F")),
        "sjis_lead_byte.jsonl": ("\n".join(json.dumps(_round_document(r), ensure_ascii=False) for r in rows).encode(
            "utf-8").replace(b'"DX"', b'"D\x81"'), "shift_jis", (3, "0x81")),
        "latin1.csv": (text.replace("DX", "D\x81").encode("latin-1"), "latin-1", "D\x81"),
        "cp850.csv": (text.replace("DX", "D\x81").encode("latin-1"), "cp850", "Dü"),
        "sjis.csv": (text.replace("DX", "山田").replace("ñ", "n").encode("shift_jis"), "shift_jis", "山田"),
        "utf16.csv": (("\ufeff" + text.replace("DX", "D\U0001F0A1")).encode("utf-16-le"), "utf-16", "D\U0001F0A1"),
    }
    for name, (data, encoding, want) in cases.items():
        log = tmp_path / name
        log.write_bytes(data)
        if isinstance(want, str):
            source = open_source(log, encoding=encoding)
            dealers = [d for b in source.batches() for d in b.column("dealer_id").to_pylist()]
            assert dealers[1:] == ["D1", want], name
            continue
        with pytest.raises(InputError) as exc:
            open_source(log, encoding=encoding)
        assert _where_not_text(exc.value) == (codecs.lookup(encoding).name, *want), name
    # Without --encoding the detection reads the file cut off (as UTF-8, the cut row rejected).
    assert open_source(tmp_path / "cut_at_the_end.csv").encoding == "utf-8"


@pytest.mark.parametrize("case", ["lone_surrogate.csv", "odd_byte.csv", "lone_surrogate.csv.gz",
                                  "odd_byte.csv.gz", "lone_surrogate.jsonl", "odd_byte.jsonl.gz"])
def test_a_text_read_as_utf16_by_its_mark_is_checked_to_be_utf16(tmp_path, monkeypatch, case):
    """A file that begins with UTF-16's byte order mark is read as UTF-16 by the detection,
    without --encoding: broken UTF-16 after it (a lone surrogate, a byte too few at the end)
    was read replaced (U+FFFD), so that two table ids differing there were one table. It is
    refused as it is with --encoding utf-16, before any row is read, naming the line and the
    bytes (the pass's blocks here of 5 bytes: a gzip member gives the mark's bytes apart);
    a file whose text is UTF-16 throughout is read, with characters beyond the BMP."""
    from auditor.logs import files
    from auditor.logs.files import InputError

    monkeypatch.setattr(files, "_BLOCK", 5)
    rows = [hand("R1", dealer_id="Peña"), hand("R2", minute=1), hand("R3", minute=2, dealer_id="DX")]
    if case.endswith((".jsonl", ".jsonl.gz")):
        text = "".join(json.dumps(_round_document(r), ensure_ascii=False) + "\n" for r in rows)
        last = 3
    else:
        text = write_log(tmp_path / "plain.csv", rows).read_text(encoding="utf-8")
        last = 4
    data = ("\ufeff" + text).encode("utf-16-le")
    if case.startswith("lone_surrogate"):
        data, want = data.replace("DX".encode("utf-16-le"), b"\x00\xd8X\x00"), (last, "0x00 0xD8")
    else:  # (the text's last line end is its line's: the byte after it is one line more)
        data, want = data + b"x", (last + 1, "0x78")
    log = tmp_path / case
    log.write_bytes(gzip.compress(data) if case.endswith(".gz") else data)
    with pytest.raises(InputError) as exc:
        open_source(log)
    assert exc.value.key == "input.not_text_by_mark"
    key, values = exc.value.params["where"]
    assert (exc.value.params["encoding"], values["line"], values["bytes"]) == ("utf-16", *want)
    (item,) = audit([log]).inputs
    assert item.error == t("input.not_text_by_mark", "es", encoding="utf-16", where=t(key, "es", **values))
    assert item.records_read == 0 and "\ufffd" not in item.error
    good = ("\ufeff" + text.replace("DX", "D\U0001F0A1")).encode("utf-16-le")
    log.write_bytes(gzip.compress(good) if case.endswith(".gz") else good)
    source = open_source(log)
    assert source.encoding == "utf-16" and source.strict
    assert [d for b in source.batches() for d in b.column("dealer_id").to_pylist()][1:] == ["D1", "D\U0001F0A1"]


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_utf16_log_changed_after_it_was_checked_is_not_read_with_bytes_replaced(tmp_path, suffix):
    """A UTF-16 file found to be so by the pass before it is read, then changed (a lone
    surrogate in its last round): its reader stops there, as for an encoding given."""
    from auditor.logs.files import InputError

    rows = [hand(f"R{i}", minute=i % 60, day=1 + i // 60) for i in range(300)]
    if suffix == ".jsonl":
        text = "".join(json.dumps(_round_document(r)) + "\n" for r in rows)
    else:
        text = write_log(tmp_path / "plain.csv", rows).read_text(encoding="utf-8")
    log = tmp_path / f"late{suffix}"
    data = ("\ufeff" + text).encode("utf-16-le")
    log.write_bytes(data)
    source = open_source(log)
    at = data.rindex("R299".encode("utf-16-le"))
    log.write_bytes(data[:at] + b"\x00\xd8" + data[at + 2:])
    with pytest.raises(InputError) as exc:
        list(source.batches(rows=50))
    assert exc.value.key == "input.not_text_by_mark"
    assert exc.value.params["where"][1]["line"] == len(rows) + (suffix == ".csv")


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_log_changed_after_its_encoding_given_was_checked_is_not_read_with_bytes_replaced(
        tmp_path, monkeypatch, suffix):
    """A file found to be text in the encoding given, then changed before its rows are all
    read (a byte Windows-1252 leaves undefined in its last round): the reader reads it as
    that encoding without replacing a byte, and stops where it meets one that is none, as at
    damage met while a file is read: the rows before audited, the file's error naming where."""
    from auditor import engine

    log = _late_text(tmp_path, b"DEALER-X")
    if suffix == ".jsonl":
        with log.open(newline="", encoding="utf-8") as fh:
            docs = [_round_document(r) for r in csv.DictReader(fh)]
        log = tmp_path / "late.jsonl"
        log.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    opened = engine.open_log

    def changed_once_opened(path, *args, **kwargs):
        source = opened(path, *args, **kwargs)
        path.write_bytes(path.read_bytes().replace(b"DEALER-X", b"DEALER-\x81"))
        return source

    monkeypatch.setattr(engine, "open_log", changed_once_opened)
    result = audit([log], chunk_rows=40, encoding="cp1252")
    (item,) = result.inputs
    last = 2001 if suffix == ".csv" else 2000  # (the CSV's header is line 1)
    where = t("input.not_text_byte", "es", line=last, bytes="0x81", encoding="cp1252")
    assert item.error == t("input.not_text_in_encoding", "es", encoding="cp1252", where=where)
    assert 0 < item.records_audited < item.records_read < 2000
    assert item.records_read == item.records_audited + item.records_rejected
