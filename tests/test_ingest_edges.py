"""Edges of the Arrow ingest found in review: each once gave a traceback or a verdict that
depended on something else than the value itself."""

from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from auditor.engine import audit
from auditor.logs.ingest import _blank, _choice_codes, _parse_ints, _runs
from auditor.logs.sources import _scan
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
    scan = _scan(Path(path))
    assert scan.utf8 and not scan.utf8_but_tail


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
