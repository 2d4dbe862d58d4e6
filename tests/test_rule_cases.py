"""Rule cases: one TOML file of small hand-written rounds per rule code, run by one driver.

``tests/cases/<game>/<CODE>.toml`` holds the cases of rule ``CODE`` of ``game``::

    rule = "PLB-WIN"
    [[case]]
    name = "win paid even money"
    expect = "pass"          # the rule passed; no finding of any code, no rejected record
    rows = '''
    round_id,dealer_cards,seat,cards,actions,bet,net_main
    1,TH 7C,1,9S TD,S,10.00,10.00
    '''
    [[case]]
    name = "win underpaid"
    expect = "fail"          # the rule failed ...
    codes = ["PLB-WIN"]      # ... and exactly these codes were found in the whole audit
    rows = '''...'''
    profile = { min_bet = "10.00" }   # optional: fields of the case's default profile
    rejected = 0             # optional (fail only): records the audit must reject
    xfail = "why"            # optional: a known auditor bug (strict xfail)

The driver fills the columns the rows omit with the game's defaults (``DEFAULTS``), dates
the rounds one minute apart in order of appearance, writes a CSV and audits it.
"""

from __future__ import annotations

import csv
import io
import tomllib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from auditor.engine import audit
from auditor.logs.schema import columns_of
from auditor.profiles import PROFILE_MODELS
from auditor.registry import GAMES

CASES_DIR = Path(__file__).parent / "cases"

# Values of the columns a case's rows may leave out, by game. ``started_at`` is generated.
DEFAULTS: dict[str, dict[str, str]] = {
    "pot-luck-blackjack": {
        "table_id": "T1",
        "dealer_id": "D1",
        "shoe_id": "S1",
        "hand": "0",
        "split_from": "",
        "actions": "",
        "double": "0",
        "insurance": "0",
        "pool_bet": "0",
        "net_insurance": "0",
        "pool_paid": "0",
    },
    "let-it-ride": {
        "table_id": "T1",
        "dealer_id": "D1",
        "deck_id": "DA",
        "deck_color": "rojo",
        "bet_1": "10.00",
        "bet_2": "10.00",
        "bet_dollar": "10.00",
        "pulled_1": "",
        "pulled_2": "",
        "bonus_bet": "0",
        "net_bonus": "0",
    },
    "triple-shot": {
        "table_id": "T1",
        "dealer_id": "D1",
        "deck_id": "DA",
        "deck_color": "rojo",
        "dealer_cards": "TH 7C 2D 3S 4H 9C",
        "dealer_bj_count": "2",
        "seat": "1",
        "actions": "",
        "bet_war": "10.00",
        "bet_bj": "10.00",
        "bet_poker": "10.00",
        "double": "0",
        "bonus_bet": "0",
        "net_bonus": "0",
    },
}
FIRST_ROUND_AT = datetime(2026, 11, 1, 20, 0, tzinfo=timezone(timedelta(hours=-5)))

CASE_KEYS = {"name", "expect", "codes", "rows", "profile", "rejected", "xfail"}


def case_files() -> list[tuple[str, Path]]:
    """(game, file) of every case file; the folder name is the game id."""
    return [(d.name, f) for d in sorted(p for p in CASES_DIR.iterdir() if p.is_dir())
            for f in sorted(d.glob("*.toml"))]


def load(path: Path) -> dict:
    with path.open("rb") as fh:
        return tomllib.load(fh)


def _params() -> list:
    out = []
    for game, path in case_files():
        data = load(path)
        code = data.get("rule", path.stem)
        for case in data.get("case", []):
            marks = []
            if case.get("xfail"):
                marks.append(pytest.mark.xfail(reason=case["xfail"], strict=True))
            out.append(pytest.param(game, code, case, id=f"{code}::{case.get('name', '?')}", marks=marks))
    return out


def write_log(game: str, rows_text: str, path: Path) -> Path:
    """The case's rows with every omitted column filled in, as a CSV log file."""
    rows = list(csv.DictReader(io.StringIO(rows_text.strip())))
    assert rows, "a case needs at least one row"
    names = [c.name for c in columns_of(game)]
    unknown = set(rows[0]) - set(names)
    assert not unknown, f"unknown columns in rows: {sorted(unknown)}"
    defaults = DEFAULTS[game]
    order: dict[str, int] = {}
    for row in rows:
        order.setdefault(row.get("round_id", ""), len(order))
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=names, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            full = {}
            for name in names:
                if name in row:
                    full[name] = row[name]
                elif name == "started_at":
                    at = FIRST_ROUND_AT + timedelta(minutes=order[row.get("round_id", "")])
                    full[name] = at.isoformat()
                elif name in defaults:
                    full[name] = defaults[name]
                else:
                    raise AssertionError(f"rows lack column {name!r}, which has no default")
            writer.writerow(full)
    return path


def describe(result) -> str:
    """The audit's outcome in a few lines, for assertion messages."""
    lines = [f"rule {r.code}: {r.status} ({r.violations} of {r.rounds_checked}) {r.note}".rstrip()
             for r in result.rules if r.status in ("failed", "error")]
    for f in result.findings.itertuples():
        lines.append(f"finding {f.code} round={f.round_id} seat={f.seat} hand={f.hand} "
                     f"expected={f.expected} observed={f.observed}: {f.message}")
    for r in result.rejected.itertuples():
        lines.append(f"rejected line {r.line} {r.field}: {r.reason} {r.detail}")
    for i in result.input_errors:
        lines.append(f"input error {i.path}: {i.error}")
    return "\n".join(lines)


@pytest.mark.parametrize(("game", "code", "case"), _params())
def test_rule_case(game: str, code: str, case: dict, tmp_path: Path) -> None:
    assert set(case) <= CASE_KEYS, f"unknown case keys: {sorted(set(case) - CASE_KEYS)}"
    assert case.get("expect") in ("pass", "fail"), "expect must be 'pass' or 'fail'"
    if case["expect"] == "pass":
        assert "codes" not in case and "rejected" not in case, "a pass case takes no codes nor rejected"
    else:
        assert case.get("codes"), "a fail case lists the codes it must raise"

    log = write_log(game, case["rows"], tmp_path / "case.csv")
    profile = PROFILE_MODELS[game](id="case", **case.get("profile", {}))
    result = audit([log], profiles=[profile])
    info = describe(result)

    assert not result.input_errors, info
    outcome = {r.code: r for r in result.rules}
    assert code in outcome, f"the audit has no outcome for {code}"
    found = set(result.findings["code"])
    rejected = sum(i.records_rejected for i in result.inputs)
    status = f"{code} is {outcome[code].status} ({outcome[code].rounds_checked} rounds checked)\n{info}"
    if case["expect"] == "pass":
        assert outcome[code].status == "passed", status
        assert outcome[code].rounds_checked > 0, info
        assert not found, info
        assert rejected == 0, info
    else:
        assert outcome[code].status == "failed", status
        assert found == set(case["codes"]), info
        assert rejected == case.get("rejected", 0), info


# --- the case files themselves ----------------------------------------------------------

@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_rule_code_has_a_case_file(game: str) -> None:
    missing = [code for code in GAMES[game].spec.codes if not (CASES_DIR / game / f"{code}.toml").is_file()]
    assert not missing, f"{game}: rule codes without a case file in {CASES_DIR / game}: {missing}"


def test_case_files_name_known_games_and_codes() -> None:
    unknown = []
    for game, path in case_files():
        data = load(path)
        codes = GAMES[game].spec.codes if game in GAMES else []
        if game not in GAMES or path.stem not in codes or data.get("rule") != path.stem:
            unknown.append(f"{game}/{path.name} (rule = {data.get('rule')!r})")
        elif game not in DEFAULTS:
            unknown.append(f"{game}/{path.name} (no DEFAULTS entry for the game's columns)")
    assert not unknown, f"case files naming an unknown game or code: {unknown}"


def test_every_case_file_has_a_pass_and_a_fail_case() -> None:
    lacking = []
    for game, path in case_files():
        cases = load(path).get("case", [])
        kinds = {c.get("expect") for c in cases}
        if not {"pass", "fail"} <= kinds:
            lacking.append(f"{game}/{path.name}: {sorted(k for k in kinds if k)}")
        names = [c.get("name") for c in cases]
        if len(names) != len(set(names)) or None in names:
            lacking.append(f"{game}/{path.name}: case names missing or repeated")
    assert not lacking, f"case files without both a pass and a fail case: {lacking}"
