"""Tests of the reports (auditor.reporting): JSON content and determinism, CSV formula
neutralisation, HTML escaping and language, the no-activity case."""

from __future__ import annotations

import csv
import json

import pytest

from auditor.engine import SCHEMA_VERSION, audit
from auditor.findings import Finding
from auditor.reporting import build_report, render_html, write_csv, write_html, write_json
from auditor.reporting.csv_report import neutralise
from auditor.reporting.json_report import dumps
from pot_luck_rows import hand, write_log


# Round 1 is clean (18 beats the dealer's 17, paid 1 to 1); round 2: the dealer drew on a soft
# 17 (PLB-DEALER-PLAY); round 3: a win of 10.00 was not paid (PLB-WIN, impact -10.00);
# round 4: a win of 10.00 paid 15.00 (PLB-WIN, impact +5.00); round 5 has an unreadable
# card (rejected, and a PLB-CARDS data finding).
FAULTY = [
    hand("1", minute=0),
    hand("2", minute=1, dealer_id='=HYPERLINK("x")', dealer="AH 6C QD", cards="8S 3D 9C"),
    hand("3", minute=2, dealer_id="<script>alert(1)</script>", net_main="0"),
    hand("4", minute=3, net_main="15.00"),
    hand("5", minute=4, cards="9S 7X 2C"),
]


@pytest.fixture
def faulty(tmp_path):
    return audit([write_log(tmp_path / "faulty.csv", FAULTY)])


def test_json_has_every_key_and_balanced_accounting(faulty):
    report = build_report(faulty)
    assert {"schema_version", "tool_version", "generated_at", "lang", "period", "inputs", "profiles",
            "rules", "findings", "rejected", "summary"} <= report.keys()
    assert report["schema_version"] == SCHEMA_VERSION
    assert report["period"] == {"first": "2026-11-01T20:00:00-05:00", "last": "2026-11-01T20:03:00-05:00"}
    (inp,) = report["inputs"]
    assert set(inp) == {"path", "sha256", "game", "records_read", "records_audited", "records_rejected",
                        "error", "extra_columns"}
    assert len(inp["sha256"]) == 64
    s = report["summary"]
    assert s["records_read"] == 5 == s["records_audited"] + s["records_rejected"]
    assert s["records_rejected"] == 1
    assert s["rounds_audited"] == 4 and s["hands_audited"] == 4
    assert s["wagered"] == "40.00"
    assert s["no_activity"] is False and s["input_errors"] == []
    assert s["findings_by_code"] == {"PLB-CARDS": 1, "PLB-DEALER-PLAY": 1, "PLB-WIN": 2}
    assert s["findings_by_severity"]["high"] == 4 and s["findings_by_severity"]["critical"] == 0
    assert s["overpaid_total"] == "5.00" and s["underpaid_total"] == "10.00"

    rule = {r["code"]: r for r in report["rules"]}
    assert rule["PLB-WIN"]["status"] == "failed" and rule["PLB-WIN"]["violations"] == 2
    assert rule["PLB-WIN"]["article"] == "Art. 15" and rule["PLB-WIN"]["source"] == "TEXT"
    assert set(rule["PLB-WIN"]) == {"code", "game", "article", "source", "severity", "title", "status",
                                    "rounds_checked", "violations", "note"}

    (rej,) = report["rejected"]
    assert rej["reason_code"] == "reject.bad_cards" and rej["line"] == 6 and rej["field"] == "cards"
    assert rej["reason"].startswith("naipe no válido") and rej["also"] == []

    wins = [f for f in report["findings"] if f["code"] == "PLB-WIN"]
    assert sorted(f["impact"] for f in wins) == ["-10.00", "5.00"]
    for f in report["findings"]:
        assert set(f) == set(Finding.model_fields)
        Finding.model_validate(f)
    assert report["profiles"][0]["id"] == "pot-luck-blackjack-estandar"


def test_json_is_float_free_and_deterministic(tmp_path):
    log = write_log(tmp_path / "faulty.csv", FAULTY)
    texts = []
    for n in range(2):
        out = tmp_path / f"r{n}.json"
        write_json(audit([log]), out)
        texts.append(out.read_text(encoding="utf-8"))
    a, b = (json.loads(x) for x in texts)
    a.pop("generated_at"), b.pop("generated_at")
    assert a == b
    strip = [[line for line in x.splitlines() if '"generated_at"' not in line] for x in texts]
    assert strip[0] == strip[1]

    def no_floats(node):
        if isinstance(node, dict):
            return all(no_floats(v) for v in node.values())
        if isinstance(node, list):
            return all(no_floats(v) for v in node)
        return not isinstance(node, float)

    assert no_floats(a)


def test_english_reasons(tmp_path):
    result = audit([write_log(tmp_path / "faulty.csv", FAULTY)], lang="en")
    report = build_report(result)
    assert report["lang"] == "en"
    assert report["rejected"][0]["reason"].startswith("invalid card")


def test_csv_neutralises_formulas_keeps_amounts(faulty, tmp_path):
    path = write_csv(faulty, tmp_path / "f.csv")
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 4
    dealer = next(r for r in rows if r["code"] == "PLB-DEALER-PLAY")
    assert dealer["dealer_id"] == "'=HYPERLINK(\"x\")"
    assert json.loads(dealer["evidence"])["dealer_cards"] == "AH 6C QD"
    impacts = sorted(r["impact"] for r in rows if r["code"] == "PLB-WIN")
    assert impacts == ["-10.00", "5.00"]
    assert not any(cell.startswith(("=", "+", "@")) for r in rows for cell in r.values())


@pytest.mark.parametrize(("value", "money", "expected"), [
    ("=1+2", False, "'=1+2"), ("+1", False, "'+1"), ("-1", False, "'-1"), ("@SUM(A1)", False, "'@SUM(A1)"),
    ("\tx", False, "'\tx"), ("\rx", False, "'\rx"), ("-12.50", True, "-12.50"), ("-1+2", True, "'-1+2"),
    ("=1", True, "'=1"), ("D1", False, "D1"), ("", False, ""),
])
def test_neutralise(value, money, expected):
    assert neutralise(value, money=money) == expected


def test_html_escapes_log_data(faulty, tmp_path):
    html = write_html(faulty, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert '<html lang="es">' in html
    for label in ("Informe de auditoría", "Reglas verificadas", "Hallazgos", "Registros rechazados",
                  "Texto del reglamento", "práctica estándar; no consta en el texto disponible", "Art. 15"):
        assert label in html
    assert "S/ 40,00" in html  # total wagered
    assert "Sin actividad" not in html
    assert "<details>" in html and "http://" not in html and "https://" not in html
    # failed rules come before passed ones
    assert html.index("PLB-DEALER-PLAY</td>") < html.index("PLB-SHOE</td>")


def test_html_in_english(tmp_path):
    result = audit([write_log(tmp_path / "faulty.csv", FAULTY)], lang="en")
    html = render_html(result)
    assert '<html lang="en">' in html
    for label in ("Round audit report", "Rules checked", "Findings", "Rejected records", "Text of the directive",
                  "Filter by severity", "S/ 40.00"):
        assert label in html
    assert "Reglas verificadas" not in html
    assert '<blockquote lang="es">«' in html  # the directive's words stay Spanish, and say so


def test_html_folds_a_long_list_of_files_under_a_line_that_counts_them(tmp_path):
    """A folder of daily exports is a thousand files: their table comes folded (every file
    still in the page, and in print), so the summary is not pages away; a few files are
    listed open."""
    from auditor.reporting.html import FOLD_INPUTS

    logs = [write_log(tmp_path / f"day{d:02d}.csv", [hand(f"R{d}", day=d)]) for d in range(1, FOLD_INPUTS + 2)]
    (tmp_path / "broken.csv").write_bytes(b"")
    html = render_html(audit([*logs, tmp_path / "broken.csv"]))
    folded = html.index('<details id="inputs"><summary>Ver los 14 archivos (13 registros leídos; con error: 1)')
    assert folded < html.index("day01.csv") < html.index("day13.csv") < html.index("</details>", folded)
    assert '<details id="inputs">' not in render_html(audit(logs[:FOLD_INPUTS]))


# Known engine bug: a header-only file makes engine._audit_game raise ValueError (see
# ENGINE_EMPTY_BUG in test_cli.py). Strict: remove this marker once the engine is fixed.
def test_no_activity(tmp_path):
    log = write_log(tmp_path / "empty.csv", [])
    result = audit([log])
    report = build_report(result)
    assert report["summary"]["no_activity"] is True
    assert report["summary"]["records_read"] == 0
    assert report["period"] == {"first": None, "last": None}
    assert "Sin actividad" in render_html(result, report=report)
    assert json.loads(dumps(report))["findings"] == []


def test_no_activity_when_every_round_is_rejected(tmp_path):
    result = audit([write_log(tmp_path / "bad.csv", [hand("1", cards="9S 7X 2C")])])
    report = build_report(result)
    s = report["summary"]
    assert s["no_activity"] is True and s["rounds_audited"] == 0
    assert s["records_read"] == 1 == s["records_rejected"] and s["records_audited"] == 0
    html = render_html(result, report=report)
    assert "Sin actividad" in html and "S/ 0,00" in html


def test_finding_times_are_written_as_isoformat_writes_them():
    """``lima_text`` formats a column of times at once; each must read as the time's own
    ``isoformat()`` in Lima: whole seconds, micro- and nanosecond fractions, NaT, and the
    offsets Lima has had (-05:08:36 before 1908, -04:00 in some summers up to 1994)."""
    import numpy as np
    import pandas as pd

    from auditor.engine import LIMA, lima_text

    rng = np.random.default_rng(3)
    lo, hi = pd.Timestamp("1900-01-01", tz="UTC").value, pd.Timestamp("2199-12-31", tz="UTC").value
    ns = rng.integers(lo, hi, 20_000)
    ns[::3] -= ns[::3] % 1_000_000_000
    ns[1::3] -= ns[1::3] % 1000
    ns[:4] = [pd.Timestamp(t, tz="UTC").value for t in
              ("1905-06-01T12:00:00", "1987-01-15T12:00:00", "2026-11-01T17:00:50.5", "2026-11-01T17:00:50")]
    times = pd.Series(pd.to_datetime(ns, utc=True))
    times[7] = pd.NaT
    expected = [None if pd.isna(t) else t.isoformat() for t in times.dt.tz_convert(LIMA)]
    assert lima_text(times).tolist() == expected
    assert expected[:4] == ["1905-06-01T06:51:24-05:08:36", "1987-01-15T08:00:00-04:00",
                            "2026-11-01T12:00:50.500000-05:00", "2026-11-01T12:00:50-05:00"]


@pytest.mark.parametrize("record", [
    {"message": "Pago: 3 a 2", "dealer_id": "Iñigo Muñoz ☃ 𝄞", "seat": 3, "hand": None, "flag": True},
    {"detail": "".join(map(chr, range(0, 0x80))) + "\u2028\u2029\ufeff\u00a0", "line": 2 ** 62},
    {"evidence": {"z": "1", "a": ["x", None, False], "m": {"b": 1, "a": -2}}, "": ""},
])
def test_a_record_line_is_what_the_standard_encoder_writes(record):
    """Each finding and rejected row is written by orjson, byte for byte as Python's own
    encoder writes it with the report's options."""
    from auditor.reporting.json_report import _FORMAT, _record

    assert _record(record) == json.dumps(record, separators=(",", ":"), **_FORMAT)


@pytest.mark.parametrize("piece", [1, 2, 3, 1000])
def test_the_record_lists_written_in_pieces_read_as_one(monkeypatch, piece):
    """The findings and rejected rows are written a piece of records at a time (the text of
    100,000 findings is never held whole): the same text whatever the size of the pieces."""
    import auditor.reporting.json_report as jr
    from auditor.reporting.json_report import _FORMAT, _record

    report = {"findings": [{"n": i, "t": "ñ" * i} for i in range(7)], "rejected": [{"line": 2}], "summary": {"a": 1}}
    monkeypatch.setattr(jr, "_PIECE", piece)
    text = dumps(report)
    assert json.loads(text) == report
    lines = text.splitlines()
    assert lines[lines.index(' "findings": [') + 1:][:7] == [
        "  " + _record(r) + ("," if i < 6 else "") for i, r in enumerate(report["findings"])]
    assert text == "{\n \"findings\": [\n  " + ",\n  ".join(
        json.dumps(r, separators=(",", ":"), **_FORMAT) for r in report["findings"]) + "\n ],\n \"rejected\": [\n  " \
        + _record(report["rejected"][0]) + "\n ],\n \"summary\": {\n  \"a\": 1\n }\n}\n"


def test_a_record_rejected_for_two_reasons_is_one_entry_with_both(tmp_path):
    """The JSON entry holds the second reason in ``also``, translated; the HTML shows both."""
    result = audit([write_log(tmp_path / "log.csv", [hand("1", bet="ten", seat="x")])], lang="en")
    (rej,) = build_report(result)["rejected"]
    assert (rej["field"], rej["reason_code"]) == ("bet", "reject.bad_amount")
    assert rej["also"] == [{"field": "seat", "reason": "not a valid whole number", "reason_code": "reject.bad_int",
                            "detail": "x"}]
    html = render_html(result)
    section = html[html.index('<section id="rejected">'):]
    assert "reject.bad_amount" in section and "reject.bad_int" in section and "not a valid whole number" in section


@pytest.mark.parametrize("column, value", [("seat", 1.5), ("line", "siete"), ("expected", "12,5x"),
                                            ("hand", "dos")])
def test_a_finding_the_model_would_refuse_stops_the_report(faulty, column, value):
    """The findings are validated by the Finding model's fields, a column at a time: a value
    of the wrong kind in any row is refused, as validating the rows would refuse it."""
    from pydantic import ValidationError

    from auditor.reporting.json_report import finding_records

    findings = faulty.findings.copy()
    assert len(findings) >= 3
    findings[column] = findings[column].astype(object)
    findings.at[len(findings) - 1, column] = value
    with pytest.raises(ValidationError):
        finding_records(findings)
    finding_records(faulty.findings)  # the findings as the engine gives them pass


def test_the_finding_model_has_nothing_that_validating_a_column_at_a_time_would_miss():
    """``finding_records`` validates each field of the findings a column at a time, which is
    validating the rows only while the model has no validator of its own and no setting that
    changes how its fields are read: should one be added, this says so."""
    decorators = Finding.__pydantic_decorators__
    assert not (decorators.validators or decorators.field_validators or decorators.root_validators
                or decorators.model_validators)
    assert set(Finding.model_config) <= {"frozen", "extra"}


@pytest.mark.parametrize("lang, key, value, shown", [
    ("es", "hand", "one_pair", "un par"),  # the names of Art. 4 of the poker directives
    ("es", "poker", "high_card / four_of_a_kind", "sin combinación (carta alta) / póker"),
    ("en", "poker", "high_card / four_of_a_kind", "no combination (high card) / four of a kind"),
    ("es", "pulled_1", "first_community", "tras mostrarse la primera carta comunitaria"),
    ("es", "batch_history", "new", "nuevo"),
    ("es", "bets", "510.00/10.00+0.00/-1000.00", "510,00/10,00+0,00/-1\u202f000,00"),
    ("en", "bets", "510.00/10.00+0.00/-1000.00", "510.00/10.00+0.00/-1,000.00"),
    ("es", "hands", "1.0: 9H QH [S] pool 1.00/5.70; 2.1: 9H", "1/0: 9H QH [S] pool 1,00/5,70; 2/1: 9H"),
    ("es", "bet", "10.00", "S/ 10,00"),
    ("es", "hands", "2.10: 9H [S] net 10.00/0.00 pool 1.00/5.70", "2/10: 9H [S] resultado 10,00/0,00 pool 1,00/5,70"),
    ("es", "bet_limits", "war 10.00–500.00; bj —–500.00", "guerra 10,00–500,00; black jack —–500,00"),
    ("es", "unknown_key", "one_pair", "one_pair"),  # named only where the checks give such values
    # text as the log or a profile gives it stays as given, whatever it looks like
    ("es", "deck_id", "10.00", "10.00"),
    ("es", "deck_color", "flush", "flush"),
    ("es", "cards", "ZZ 9H", "ZZ 9H"),
    ("es", "hand", "two_pairs", "two_pairs"),  # not a value the catalogue names
])
def test_html_evidence_reads_as_the_reviewer_reads(lang, key, value, shown):
    from auditor.reporting.html import _evidence

    assert _evidence({key: value}, lang) == {key: shown}


def test_a_filtered_html_says_which_figures_the_filters_narrow(tmp_path):
    from auditor.reporting.filters import ReportFilters

    result = audit([write_log(tmp_path / "faulty.csv", FAULTY)])
    whole = render_html(result)
    assert 'id="filtered-banner"' not in whole and "Sin los filtros del informe" not in whole
    report = build_report(result, filters=ReportFilters(severity_min="critical"))
    html = render_html(result, report=report)
    total = len(result.findings)
    shown = len(report["findings"])
    assert shown < total
    assert (f"cuentan los {shown} hallazgos que pasan los filtros del informe, de {total}" in html
            and f"toda la auditoría ({total} hallazgos)" in html)


@pytest.mark.parametrize("span", [1, 2, 3, 4, 5, 8, 15, 31, 400])
def test_the_day_chart_labels_keep_clear_of_each_other(span):
    import re
    from datetime import date, timedelta

    from auditor.reporting.html import _bar_chart_days

    first = date(2026, 11, 1)
    days = [(first.isoformat(), 2), ((first + timedelta(span - 1)).isoformat(), 3)] if span > 1 else [(first.isoformat(), 2)]
    svg = str(_bar_chart_days(days, title="x", lang="es"))
    width = 66  # a label "01/11/2026" at 11 px
    extents = []
    for x, anchor in re.findall(r'<text x="([\d.]+)" y="\d+" text-anchor="(\w+)" class="chart-label">\d', svg):
        left = float(x) - {"start": 0, "middle": width / 2, "end": width}[anchor]
        extents.append((left, left + width))
    assert extents and extents[0][0] >= 0 and extents[-1][1] <= 640
    assert all(a[1] + 4 <= b[0] for a, b in zip(extents, extents[1:])), extents


def test_a_bet_limit_finding_shows_the_limits_it_compares(tmp_path):
    from auditor.profiles import PotLuckProfile

    posted = PotLuckProfile(id="mesa", max_bet="500.00", min_pool_bet="1.00", max_pool_bet="50.00")
    result = audit([write_log(tmp_path / "mesa.csv", [hand("1", bet="600.00", net_main="600.00")])],
                   profiles=[posted])
    (finding,) = [f for f in build_report(result)["findings"] if f["code"] == "PLB-BET-LIMITS"]
    assert finding["evidence"]["bet_limits"] == "—–500.00; pool 1.00–50.00"  # no minimum posted
    assert finding["evidence"]["bet"] == "600.00"


def test_a_shoe_finding_names_the_cards_dealt_too_often(tmp_path):
    from auditor.profiles import PotLuckProfile

    rows = [hand("1", dealer="TH 7C", cards="TH 9D", actions="S", net_main="10.00"),
            hand("1", seat="2", dealer="TH 7C", cards="7C 7C TH", actions="HS", net_main="-10.00")]
    result = audit([write_log(tmp_path / "mesa.csv", rows)], profiles=[PotLuckProfile(id="mesa", decks=2)])
    (finding,) = [f for f in build_report(result)["findings"] if f["code"] == "PLB-SHOE"]
    assert finding["evidence"]["repeated_cards"] == "7C×3 TH×3"  # two decks hold two of each


def test_a_round_finding_cites_the_line_its_round_begins_on(tmp_path):
    """The audit orders a round's rows by seat; a finding of the round cites where the log
    gives its first row (here seat 8 above seat 4), not the row first by seat."""
    import pandas as pd

    from auditor.simulate import run

    log, _ = run("let-it-ride", rounds=10, seed=1, faults=0.0, out=tmp_path / "lir.csv")
    frame = pd.read_csv(log, dtype=str, keep_default_na=False)
    assert frame.loc[0, "round_id"] == frame.loc[1, "round_id"] and int(frame.loc[1, "seat"]) < 8
    frame.loc[0, "seat"] = "8"
    frame.to_csv(log, index=False)
    (finding,) = build_report(audit([log]))["findings"]
    assert (finding["code"], finding["seat"], finding["line"]) == ("LIR-POSITIONS", None, 2)


def test_a_round_finding_shows_what_each_hand_was_paid(tmp_path):
    """A round's finding on its payments is checked from its hands' payments: each hand of the
    round's evidence gives what it was paid and its pool bet and share."""
    rows = [hand("1", pool_bet="5.00", pool_paid="0"),  # 9 7 = 16 on the deal: the pool's winner
            hand("1", seat="2", cards="5S 2D TC", pool_bet="5.00", pool_paid="9.50")]  # 7 paid it
    (finding,) = [f for f in build_report(audit([write_log(tmp_path / "mesa.csv", rows)]))["findings"]
                  if f["code"] == "PLB-POOL-WINNER"]
    assert finding["evidence"]["hands"] == ("1.0: 9S 7D 2C [HS] net 10.00/0.00 pool 5.00/0.00; "
                                            "2.0: 5S 2D TC [HS] net 10.00/0.00 pool 5.00/9.50")


def test_evidence_is_labelled_by_its_game_in_the_page(tmp_path):
    """Triple Shot's bets are named with their slots' order, in the script's data and in the
    first page drawn on the server (readable without JavaScript: no raw keys)."""
    from auditor.reporting.html import evidence_label

    assert evidence_label("bets", "triple-shot", "es") == "Apuestas (guerra / black jack + incremento / póker / bonus)"
    assert evidence_label("bets", "let-it-ride", "en") == "Bets (1 / 2 / $)"
    assert evidence_label("cards", "triple-shot", "es") == "Cartas del jugador"
    assert evidence_label("no_such_key", "triple-shot", "es") == "no_such_key"
    result = audit([write_log(tmp_path / "faulty.csv", FAULTY)])
    html = render_html(result)
    assert "<dt>Cartas del dealer</dt>" in html and "<dt>dealer_cards</dt>" not in html
