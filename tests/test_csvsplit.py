"""The compiled splitter of plain CSV blocks gives Arrow's result or declines; the reader
numbers lines as the file does, whichever parser read a block."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.logs.csvsplit import _separators, last_line_end, line_count, split_plain
from auditor.logs.sources import open_source


def _arrow(block: bytes, ncols: int, delimiter: str):
    invalid = []

    def skip(row):
        invalid.append(row.number)
        return "skip"

    names = [f"c{i}" for i in range(ncols)]
    table = pv.read_csv(
        pa.BufferReader(block), read_options=pv.ReadOptions(column_names=names, use_threads=False),
        parse_options=pv.ParseOptions(delimiter=delimiter, newlines_in_values=False, ignore_empty_lines=False,
                                      invalid_row_handler=skip),
        convert_options=pv.ConvertOptions(column_types={n: pa.large_string() for n in names},
                                          strings_can_be_null=False, quoted_strings_can_be_null=False))
    return table, invalid


# Short fields of every length up to seven, and longer ones that differ only in their last
# bytes (the split compares and copies fields eight bytes at a time). Drawn from a fixed list:
# what a field holds matters to the split only through its length and its equality with its
# neighbours, and drawing a text character by character made this test the suite's slowest.
FIELD = st.sampled_from(
    ["", "a", "b", "1", " ", "-", "ab", "ba", "1.", "a b", "x-1", "abab", "1.00", " . ", "ab1 .", "-x.1 b",
     "aaaaaa", "aaaaab", "abcdefg", "abcdefh",
     "abcdefgh", "abcdefgi", "abcdefgh1", "abcdefgh2", "2026-11-01T12:00:50-05:00", "2026-11-01T12:00:51-05:00",
     "x" * 16, "x" * 15 + "y", "x" * 17])
ODD = st.text(alphabet='ab1 ,;|\t\r\n"', max_size=12)


@st.composite
def blocks(draw):
    ncols = draw(st.sampled_from([1, 2, 3, 18]))
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        line = delimiter.join(draw(st.lists(FIELD, min_size=ncols, max_size=ncols)))
        if lines and draw(st.integers(0, 2)) == 0:  # a round's fields repeat on its rows
            line = lines[-1].rstrip("\r\n")
        if draw(st.integers(0, 9)) == 0:  # now and then a line that is not plain
            line = draw(ODD)
        lines.append(line + draw(st.sampled_from(["\n", "\r\n"])))
    return "".join(lines).encode(), ncols, delimiter


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks(), st.data())
def test_a_plain_block_splits_as_arrow_parses_it(case, data):
    block, ncols, delimiter = case
    repeated = data.draw(st.sets(st.integers(0, ncols - 1)))  # run-encoded: the same values
    columns = split_plain(np.frombuffer(block, np.uint8), ncols, delimiter, sorted(repeated))
    table, invalid = _arrow(block, ncols, delimiter)
    if b'"' not in block:  # every line is a row or an invalid row
        assert line_count(np.frombuffer(block, np.uint8)) == table.num_rows + len(invalid)
    if columns is None:  # declined: Arrow's parser reads it
        return
    assert not invalid
    for c, column in enumerate(columns):
        column.validate(full=True)
        assert column.to_pylist() == table.column(c).to_pylist()
        if c in repeated:  # one entry per run of equal neighbours
            values = column.to_pylist()
            assert len(column.dictionary) == sum(i == 0 or v != values[i - 1] for i, v in enumerate(values))


def test_what_is_not_plain_is_declined():
    for block in [b'a,"b",c\n', b"a,b,c\n\n", b"a,b\rc,d\n", b"a,b\n", b"a,b,c,d\n", b"a,b,c\nd,e,f"]:
        assert split_plain(np.frombuffer(block, np.uint8), 3, ",") is None, block
    assert [c.to_pylist() for c in split_plain(np.frombuffer(b"a,b,c\r\n,,\n", np.uint8), 3, ",")] == [
        ["a", ""], ["b", ""], ["c", ""]]


def test_fields_shorter_than_the_room_first_made_for_them():
    """The split first makes room for a field per four bytes; a block of shorter fields is
    looked over again with room for all of them."""
    block = b"a,b\n" * 1000 + b",\n" * 500
    columns = split_plain(np.frombuffer(block, np.uint8), 2, ",", [1])
    assert [c.to_pylist() for c in columns] == [["a"] * 1000 + [""] * 500, ["b"] * 1000 + [""] * 500]
    assert len(columns[1].dictionary) == 2


def test_separators_found_64_bytes_at_a_time_are_every_one():
    """Each separator and line end in order, with the counts of line ends and carriage
    returns and whether a quote is there, at any length around the 64-byte stretches the
    search reads at once, as a byte-by-byte look finds them; ``ends`` filled only as far as
    it holds them."""
    rng = np.random.default_rng(2026)
    alphabet = np.frombuffer(b',;\n\r"a\x00\xff', np.uint8)
    for size in [*range(0, 200), 4095, 4096, 4097]:
        block = alphabet[rng.integers(0, len(alphabet), size)]
        for delimiter in b",;":
            marked = np.flatnonzero((block == delimiter) | (block == 10))
            for room in (0, len(marked) // 2, len(marked) + 3):
                ends = np.full(room, -1, np.int64)
                found, lines, cr, quote = _separators(block, delimiter, ends)
                assert (found, lines, cr, quote) == (len(marked), (block == 10).sum(), (block == 13).sum(),
                                                     (block == 34).any())
                held = min(room, found)
                assert (ends[:held] == marked[:held]).all() and (ends[held:] == -1).all()


def test_line_ends():
    def at(text: bytes) -> int:
        return last_line_end(np.frombuffer(text, np.uint8))
    assert (at(b"a\nb\nc"), at(b"a\r\nb"), at(b"abc"), at(b"a\rb"), at(b"a\r"), at(b"")) == (4, 3, 0, 2, 0, 0)
    assert line_count(np.frombuffer(b"a\r\nb\rc\n\nd\r", np.uint8)) == 5


def test_a_stray_quote_costs_only_its_line_and_lines_keep_their_numbers(tmp_path: Path):
    """A quote left open makes its line a bad row, and no more: Arrow's parser would read on
    to the end of its input, so such a block is read again line by line. Every line keeps its
    number, in that block and in the blocks after it."""
    header = "table_id,round_id,started_at,dealer_id,deck_id,deck_color,community_cards,seat,cards,bet_1,bet_2," \
             "bet_dollar,pulled_1,pulled_2,bonus_bet,net_1,net_2,net_dollar,net_bonus"
    row = "LIR-01,{r:06d},2026-11-01T12:00:00-05:00,CR-1,D1,rojo,2D 8S,1,5S AS 7S,10.00,10.00,10.00,,,0.00,0.00,0.00,0.00,0.00"
    lines = [row.format(r=i) for i in range(1000)]
    lines[10] = '"' + lines[10]
    lines[500] = lines[500].replace("CR-1", '"CR-1,x"')  # a quoted field: read as it should be
    path = tmp_path / "let-it-ride.csv"
    path.write_text("\n".join([header, *lines]) + "\n")
    src = open_source(path)
    table = pa.concat_tables(list(src.batches(100)))  # blocks of 16 KiB: about 130 lines each
    assert src.records_read == table.num_rows == 1000
    bad = table.column("_bad").to_pylist()
    assert [i for i, text in enumerate(bad) if text] == [10] and bad[10].startswith('"LIR-01,000010')
    kept = [(n, r) for n, r, b in zip(table.column("_line").to_pylist(), table.column("round_id").to_pylist(), bad)
            if not b]
    assert [n for n, _ in kept] == [int(r) + 2 for _, r in kept]  # every row keeps its own line
    assert table.column("dealer_id").to_pylist()[500] == "CR-1,x"
