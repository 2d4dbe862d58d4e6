"""Scheduled batch audits (auditor.batch): incremental by content hash, cross-file rules,
history, waivers, exit codes, crash safety and the Dask fan-out. Small simulated Triple
Shot daily logs (a few hundred rounds each)."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import pandas as pd
import pytest
from markupsafe import escape
from typer.testing import CliRunner

from auditor.batch import BatchError, BatchOptions, run_batch
from auditor.batch.ledger import Ledger
from auditor.cli import app
from auditor.engine import audit
from auditor.i18n import t
from auditor.logs.files import sha256_of
from auditor.profiles import load_profiles
from auditor.simulate import run

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "profiles"
GAME = "triple-shot"
DAY0 = date(2026, 11, 1)


def day_log(folder: Path, n: int, *, rounds: int = 240, faults: float = 0.05) -> Path:
    """Day ``n`` (0-based) of Triple Shot in ``folder/YYYYMMDD/triple-shot.csv``; round ids
    carry the day so that days never collide."""
    day = DAY0 + timedelta(days=n)
    path = folder / f"{day:%Y%m%d}" / "triple-shot.csv"
    run(GAME, rounds=rounds, seed=100 + n, faults=faults, out=path, start=day)
    path.with_name("triple-shot.truth.csv").unlink()
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df["round_id"] = df["table_id"] + f"-{day:%Y%m%d}-" + df["round_id"].str.rsplit("-", n=1).str[-1]
    df.to_csv(path, index=False)
    return path


def batch(tmp: Path, logs, name: str = "out", **kw):
    opts = BatchOptions(paths=[Path(p) for p in (logs if isinstance(logs, list) else [logs])], out=tmp / name,
                        **{"profiles": [PROFILES], **kw})
    return run_batch(opts)


def open_findings(db: Path) -> set[tuple]:
    with Ledger(db) as ledger:
        recs = ledger.records(ledger.open_fingerprints())
    return {(r["table_id"], r["round_id"], r["code"], r["seat"], r["hand"]) for r in recs.values()}


def full_audit(files) -> set[tuple]:
    f = audit(files, profiles=load_profiles([PROFILES])).findings
    return {(r.table_id, r.round_id, r.code, None if pd.isna(r.seat) else int(r.seat),
             None if pd.isna(r.hand) else int(r.hand)) for r in f.itertuples()}


def dump(db: Path) -> dict:
    with Ledger(db) as ledger:
        return ledger.dump()


def test_second_run_audits_nothing_and_a_new_file_only_itself(tmp_path):
    logs = tmp_path / "logs"
    days = [day_log(logs, n) for n in range(3)]
    first = batch(tmp_path, logs)
    assert first.exit_code == 1 and first.new > 0
    assert first.audited == sorted(str(p.resolve()) for p in days)
    second = batch(tmp_path, logs)
    assert (second.exit_code, second.audited, second.new, second.resolved) == (0, [], 0, 0)
    assert second.open == first.new
    # A later day: only that file is audited (the day before is read as context only).
    days.append(day_log(logs, 3))
    third = batch(tmp_path, logs)
    assert third.audited == [str(days[3].resolve())]
    # The ledger holds exactly what one audit of everything finds, each finding once.
    db = tmp_path / "out" / "audit.db"
    assert open_findings(db) == full_audit(days)
    with Ledger(db) as ledger:
        fps = [r[0] for r in ledger.db.execute("SELECT fingerprint FROM findings")]
        assert len(fps) == len(set(fps)) == len(full_audit(days))
    assert (tmp_path / "out" / "index.html").read_text().count("batch.html") == 3
    for n in (1, 2, 3):
        run_dir = tmp_path / "out" / "runs" / f"{n:04d}"
        assert {p.name for p in run_dir.iterdir()} == {"audit-report.html", "audit-report.json", "batch.html",
                                                       "batch.json"}


def test_a_late_day_reaudits_its_dependant_and_counts_findings_once(tmp_path):
    logs = tmp_path / "logs"
    d0, d2 = day_log(logs, 0), day_log(logs, 2)
    batch(tmp_path, logs)
    d1 = day_log(logs, 1)  # arrives late, between the two
    late = batch(tmp_path, logs)
    # Day 2's first rounds now follow day 1's last ones: re-audited, recorded once.
    assert late.audited == sorted([str(d1.resolve()), str(d2.resolve())])
    db = tmp_path / "out" / "audit.db"
    assert open_findings(db) == full_audit([d0, d1, d2])
    assert batch(tmp_path, logs).audited == []


def _deck_repeated_across_days(folder: Path) -> tuple[Path, Path, str]:
    """Two daily files of Triple Shot where the first round of day 2 at TS-02 uses the deck
    (id and colour) of that table's last round of day 1."""
    one, two = day_log(folder, 0, faults=0.0), day_log(folder, 1, faults=0.0)
    a = pd.read_csv(one, dtype=str, keep_default_na=False)
    b = pd.read_csv(two, dtype=str, keep_default_na=False)
    last = a[a["table_id"] == "TS-02"].iloc[-1]
    t = b["table_id"] == "TS-02"
    first_round = b.loc[t, "round_id"].iloc[0]
    rows = t & (b["round_id"] == first_round)
    # Swap the table's two decks for the whole of day 2, so only its first round repeats.
    if b.loc[rows, "deck_id"].iloc[0] != last["deck_id"]:
        decks = b[t].drop_duplicates("deck_id").set_index("deck_id")["deck_color"]
        (x, cx), (y, cy) = decks.items()
        swapped = b.loc[t, "deck_id"].map({x: y, y: x})
        b.loc[t, "deck_color"] = swapped.map({x: cx, y: cy})
        b.loc[t, "deck_id"] = swapped
    assert b.loc[rows, "deck_id"].iloc[0] == last["deck_id"]
    b.to_csv(two, index=False)
    return one, two, first_round


def test_a_deck_repeated_across_two_files_of_a_table_is_found(tmp_path):
    logs = tmp_path / "logs"
    one, two, first_round = _deck_repeated_across_days(logs)
    assert full_audit([one]) == set() and full_audit([two]) == set()
    # Day 1 alone, then day 2 in the next run: found when day 2 arrives.
    (tmp_path / "hold").mkdir()
    two.parent.rename(tmp_path / "hold" / two.parent.name)
    assert batch(tmp_path, logs).exit_code == 0
    (tmp_path / "hold" / two.parent.name).rename(two.parent)
    second = batch(tmp_path, logs)
    assert second.exit_code == 1 and second.new == 1
    db = tmp_path / "out" / "audit.db"
    assert open_findings(db) == {("TS-02", first_round, "TS-TWO-DECKS", None, None)}
    # And both days in one run.
    assert batch(tmp_path, logs, name="together").new == 1
    assert open_findings(tmp_path / "together" / "audit.db") == open_findings(db)


def test_history_resolved_repeated_and_diff(tmp_path):
    logs = tmp_path / "logs"
    one, two, first_round = _deck_repeated_across_days(logs)
    original = two.read_bytes()
    batch(tmp_path, logs)                                       # run 1: the finding is new
    fixed = pd.read_csv(two, dtype=str, keep_default_na=False)
    fixed = fixed[~((fixed["table_id"] == "TS-02") & (fixed["round_id"] == first_round))]
    fixed.to_csv(two, index=False)                              # corrected export replaces day 2
    r2 = batch(tmp_path, logs)
    assert (r2.new, r2.resolved, r2.exit_code) == (0, 1, 0)
    two.write_bytes(original)                                   # the faulty export comes back
    r3 = batch(tmp_path, logs)
    assert (r3.new, r3.repeated, r3.exit_code) == (1, 1, 1)
    db = tmp_path / "out" / "audit.db"
    cli = CliRunner()
    res = cli.invoke(app, ["history", "--db", str(db), "--lang", "en"])
    assert res.exit_code == 0 and len(res.stdout.strip().splitlines()) == 4
    # each run's start in Lima time, as the runs index gives it (the ledger keeps UTC: it said +00:00)
    starts = [line.split()[1] for line in res.stdout.strip().splitlines()[1:]]
    assert all(s.endswith("-05:00") for s in starts), starts
    res = cli.invoke(app, ["diff", "1", "2", "--db", str(db), "--lang", "en"])
    assert res.exit_code == 0
    assert "1 resolved" in res.stdout and "0 new" in res.stdout and first_round in res.stdout
    res = cli.invoke(app, ["diff", "2", "3", "--db", str(db), "--lang", "en"])
    assert "1 new" in res.stdout
    assert cli.invoke(app, ["diff", "1", "9", "--db", str(db)]).exit_code == 2
    batch_json = (tmp_path / "out" / "runs" / "0003" / "batch.json").read_text()
    assert '"repeated": true' in batch_json


WAIVERS = """
[[waiver]]
id = "W-1"
code = "TS-TWO-DECKS"
tables = ["TS-02"]
from = 2026-11-01
until = 2026-11-30
justification = "Mesa con una sola baraja autorizada <temporal>"
approver = "Cumplimiento"
expires = {expires}
"""


def test_waivers_active_expired_and_refused(tmp_path):
    logs = tmp_path / "logs"
    _, _, first_round = _deck_repeated_across_days(logs)
    active = tmp_path / "active.toml"
    active.write_text(WAIVERS.format(expires="2027-01-31"))
    r = batch(tmp_path, logs, name="a", waivers=active, today=date(2026, 12, 15))
    assert (r.new, r.waived, r.exit_code) == (1, 1, 0)        # shown, waived, not alarming
    page = (tmp_path / "a" / "runs" / "0001" / "batch.html").read_text()
    assert "W-1" in page and "&lt;temporal&gt;" in page and "<temporal>" not in page
    report = json.loads((tmp_path / "a" / "runs" / "0001" / "audit-report.json").read_text())
    assert [f["evidence"]["batch_waiver"][:5] for f in report["findings"]] == ["W-1: "]
    # Expired on the run's day: no longer applies.
    r = batch(tmp_path, logs, name="b", waivers=active, today=date(2027, 2, 1))
    assert (r.new, r.waived, r.exit_code) == (1, 0, 1)
    # A waiver without an approver (or a blank justification) is refused: exit 2.
    refused = tmp_path / "refused.toml"
    refused.write_text(WAIVERS.format(expires="2027-01-31").replace('approver = "Cumplimiento"\n', ""))
    with pytest.raises(BatchError, match="approver"):
        batch(tmp_path, logs, name="c", waivers=refused)
    blank = tmp_path / "blank.toml"
    blank.write_text(WAIVERS.format(expires="2027-01-31").replace("Mesa con una sola baraja autorizada <temporal>",
                                                                  "  "))
    res = CliRunner().invoke(app, ["batch", str(logs), "--out", str(tmp_path / "d"), "--waivers", str(blank)])
    assert res.exit_code == 2 and "justification: no puede estar en blanco" in res.stderr
    assert not (tmp_path / "d" / "audit.db").exists() or dump(tmp_path / "d" / "audit.db")["runs"] == []
    # A code no game has (mistyped) would waive nothing, silently: refused too.
    typo = tmp_path / "typo.toml"
    typo.write_text(WAIVERS.format(expires="2027-01-31").replace("TS-TWO-DECKS", "TS-TWO-DECK"))
    res = CliRunner().invoke(app, ["--lang", "en", "batch", str(logs), "--out", str(tmp_path / "e"), "--waivers", str(typo)])
    assert res.exit_code == 2 and "waiver W-1: unknown rule code «TS-TWO-DECK»" in res.stderr, res.stderr


def test_a_waiver_file_with_a_byte_order_mark_is_read(tmp_path):
    from auditor.batch.waivers import load_waivers

    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + WAIVERS.format(expires="2027-01-31").encode("utf-8"))
    assert [w.id for w in load_waivers(path)] == ["W-1"]


@pytest.mark.parametrize("field, value, shown", [
    ("from", "20261101", "20261101"),
    ("from", "0", "0"),                  # (was read as 1970-01-01: seconds since 1970)
    ("until", "86400", "86400"),         # (1970-01-02)
    ("expires", '"0"', "0"),             # (the same, as text)
    ("expires", "true", "true"),
    ("until", "2026-11-30T00:00:00Z", "2026-11-30T00:00:00+00:00"),  # (a UTC midnight: 29 November in Lima)
    ("from", "2026-11-01T00:00:00", "2026-11-01T00:00:00"),
])
def test_a_waiver_date_given_as_a_number_or_a_time_is_refused(tmp_path, field, value, shown):
    from auditor.batch.waivers import WaiverError, load_waivers

    path = tmp_path / "w.toml"
    path.write_text(re.sub(f"^{field} = .*$", f"{field} = {value}", WAIVERS.format(expires="2027-01-31"), flags=re.M),
                    encoding="utf-8")
    with pytest.raises(WaiverError) as info:
        load_waivers(path)
    assert info.value.text("en") == f"{path}: waiver W-1 ({field}: a date YYYY-MM-DD is expected, not «{shown}»)"
    assert info.value.text("es") == f"{path}: dispensa W-1 ({field}: se espera una fecha AAAA-MM-DD, no «{shown}»)"


def test_a_waiver_date_is_read_as_a_toml_date_or_as_its_text(tmp_path):
    from auditor.batch.waivers import load_waivers

    path = tmp_path / "w.toml"
    path.write_text(WAIVERS.format(expires='"2027-01-31"').replace("from = 2026-11-01", 'from = "2026-11-01"'),
                    encoding="utf-8")
    (waiver,) = load_waivers(path)
    assert (waiver.valid_from, waiver.valid_until, waiver.expires) == (date(2026, 11, 1), date(2026, 11, 30),
                                                                       date(2027, 1, 31))


def test_profiles_that_cannot_both_apply_stop_the_batch_before_it_runs(tmp_path):
    """Two default profiles of one game make the posted values ambiguous: the batch is
    refused with exit 2 and a message, as the audit is (it once ended in a traceback)."""
    logs = tmp_path / "logs"
    run("let-it-ride", rounds=50, seed=1, faults=0.0, out=logs / "day.csv")
    for name in ("a", "b"):
        (tmp_path / f"{name}.toml").write_text(f'id = "{name}"\ngame = "let-it-ride"\n', encoding="utf-8")
    res = CliRunner().invoke(app, ["batch", str(logs), "--out", str(tmp_path / "out"),
                                   "--profile", str(tmp_path / "a.toml"), "--profile", str(tmp_path / "b.toml")])
    assert res.exit_code == 2 and "más de un perfil sin mesas ni fechas (por omisión): a, b" in res.stderr, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)


def test_exit_codes_and_partial_runs(tmp_path):
    logs = tmp_path / "logs"
    day_log(logs, 0)
    broken = logs / "<b>broken.csv"
    broken.write_text("nothing,useful\n1,2\n")
    cli = CliRunner()
    out = tmp_path / "out"
    res = cli.invoke(app, ["batch", str(logs), "--out", str(out), "--profile", str(PROFILES), "--lang", "en"])
    assert res.exit_code == 3, res.stderr
    assert "broken.csv" in res.stderr and "not audited" in res.stderr
    page = (out / "runs" / "0001" / "batch.html").read_text()
    assert "&lt;b&gt;broken.csv" in page and "<b>broken" not in page
    broken.unlink()
    res = cli.invoke(app, ["batch", str(logs), "--out", str(out), "--profile", str(PROFILES)])
    assert res.exit_code == 0
    assert cli.invoke(app, ["batch", str(logs), "--out", str(out), "--workers", "0"]).exit_code == 2
    index = (out / "index.html").read_text()
    assert "runs/0001/batch.html" in index and "runs/0002/batch.html" in index
    # each run's start as every report's time: Lima's, written for the reader (the ledger keeps UTC)
    started = Ledger(out / "audit.db").runs()[0]["started_at"]
    lima = pd.Timestamp(started).tz_convert("America/Lima")
    assert started not in index and lima.strftime("<td>%d/%m/%Y %H:%M:%S</td>") in index
    assert "Inicio (hora de Lima)" in index


def test_a_file_none_of_whose_records_could_be_audited_fails_the_batch_and_keeps_its_rejects(tmp_path):
    logs = tmp_path / "logs"
    day_log(logs, 0)
    bad = day_log(logs, 1)
    df = pd.read_csv(bad, dtype=str, keep_default_na=False)
    df["bet_war"] = "diez"  # every record's amount unreadable: nothing of the file can be audited
    df.to_csv(bad, index=False)
    res = CliRunner().invoke(app, ["batch", str(logs), "--out", str(tmp_path / "out"), "--profile", str(PROFILES)])
    assert res.exit_code == 3, res.stderr  # partial, as for an unreadable file; not 0
    assert str(bad) in res.stderr and "ningún registro del archivo pudo auditarse" in res.stderr
    report = json.loads((tmp_path / "out" / "runs" / "0001" / "audit-report.json").read_text())
    item = next(i for i in report["inputs"] if i["path"] == str(bad))
    assert item["error"] and item["records_read"] == item["records_rejected"] == len(df) and not item["records_audited"]
    assert {r["reason_code"] for r in report["rejected"] if r["file"] == str(bad)} >= {"reject.bad_amount"}
    assert not any(f["file"] == str(bad) for f in report["findings"])
    with Ledger(tmp_path / "out" / "audit.db") as ledger:
        assert {f[1]: f[4] for f in ledger.dump()["files"]}[str(bad)] == "error"  # (path, status): tried again next run
    assert batch(tmp_path, logs).exit_code == 3


def _summary(out: Path, run: int) -> dict:
    return json.loads((out / "runs" / f"{run:04d}" / "audit-report.json").read_text())


def _audited_alone(files) -> tuple:
    """(rounds, hands, wagered, period) of an audit of ``files`` by themselves, as a report gives them."""
    from auditor.reporting import build_report

    report = build_report(audit(files, profiles=load_profiles([PROFILES])))
    s = report["summary"]
    return s["rounds_audited"], s["hands_audited"], s["wagered"], report["period"]


def _totals(report: dict) -> tuple:
    s = report["summary"]
    return s["rounds_audited"], s["hands_audited"], s["wagered"], report["period"]


@pytest.mark.parametrize("chunk", [1, 256])
def test_a_runs_report_counts_the_rounds_of_the_files_it_records_not_of_their_context(tmp_path, chunk):
    """A new day is audited with the day before it read as context: the run's report counted that
    day's rounds, hands and stakes too (and began its period there), as if audited again. It
    counts the files the run records, each once, as `auditor history` lists them."""
    logs = tmp_path / "logs"
    days = [day_log(logs, n, rounds=60) for n in range(3)]
    later = days[2].read_bytes()
    days[2].unlink()
    out = tmp_path / "out"
    batch(tmp_path, logs, chunk=chunk)
    assert _totals(_summary(out, 1)) == _audited_alone(days[:2])
    days[2].write_bytes(later)
    r = batch(tmp_path, logs, chunk=chunk)
    assert r.audited == [str(days[2].resolve())]
    report = _summary(out, 2)
    assert _totals(report) == _audited_alone([days[2]])
    assert [i["path"] for i in report["inputs"]] == r.audited
    assert Ledger(out / "audit.db").run(2)["files_audited"] == len(report["inputs"]) == 1
    # A night with nothing new audits nothing, and says so.
    batch(tmp_path, logs, chunk=chunk)
    assert _totals(_summary(out, 3)) == (0, 0, "0.00", {"first": None, "last": None})


def _checked(rules: list[dict]) -> dict[str, tuple[int, int]]:
    """(rounds checked, violations) of each rule judged over rounds (TS-PAYTABLE is judged over
    the profiles, once per audit, whatever its rounds)."""
    return {r["code"]: (r["rounds_checked"], r["violations"]) for r in rules if r["code"] != "TS-PAYTABLE"}


def test_a_runs_rule_counts_are_of_the_files_it_records_not_of_their_context(tmp_path):
    """A new day is audited with the day before it read as context: the rules counted that day's
    rounds as checked too (each rule's rounds checked of the run were its own and the day
    before's). Each run counts its own files' rounds: the runs add up to the audit of every day
    at once, rule by rule, as the findings and the rounds audited do."""
    logs = tmp_path / "logs"
    days = [day_log(logs, n, rounds=60) for n in range(3)]
    later = days[2].read_bytes()
    days[2].unlink()
    out = tmp_path / "out"
    batch(tmp_path, logs)
    days[2].write_bytes(later)
    batch(tmp_path, logs)
    profiles = load_profiles([PROFILES])
    two, three = (_checked([r.model_dump() for r in audit(days[:n], profiles=profiles).rules]) for n in (2, 3))
    first, second = (_checked(_summary(out, n)["rules"]) for n in (1, 2))
    assert first == two
    assert {code: (a + c, b + d) for code, (a, b) in first.items() for c, d in [second[code]]} == three
    assert any(checked for checked, _ in second.values()) and any(v for _, v in second.values())


def test_local_processes_give_the_same_ledger(tmp_path):
    logs = tmp_path / "logs"
    for n in range(6):
        day_log(logs, n, rounds=150)
    batch(tmp_path, logs, name="one", chunk=2)
    batch(tmp_path, logs, name="two", chunk=2, workers=2)
    assert dump(tmp_path / "one" / "audit.db") == dump(tmp_path / "two" / "audit.db")


def test_dask_local_cluster_gives_the_same_ledger(tmp_path):
    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed "
                                                                 "(pip install casino-auditor[dask])")
    logs = tmp_path / "logs"
    for n in range(4):
        day_log(logs, n, rounds=150)
    local = batch(tmp_path, logs, name="local", chunk=2)
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        remote = batch(tmp_path, logs, name="dask", chunk=2, scheduler=cluster.scheduler_address)
    assert (remote.new, remote.audited) == (local.new, local.audited)
    assert dump(tmp_path / "local" / "audit.db") == dump(tmp_path / "dask" / "audit.db")
    a = (tmp_path / "local" / "runs" / "0001" / "batch.json").read_text()
    b = (tmp_path / "dask" / "runs" / "0001" / "batch.json").read_text()
    assert a == b
    # The run's audit report too, findings in their order, but for when it was written.
    a, b = (json.loads((tmp_path / name / "runs" / "0001" / "audit-report.json").read_text()) for name in ("local", "dask"))
    assert a["findings"] and a.pop("generated_at") and b.pop("generated_at")
    assert a == b


def _cli_batch(logs: Path, out: Path, env: dict | None = None) -> subprocess.Popen:
    cmd = [sys.executable, "-c", "from auditor.cli import app; app(prog_name='auditor')", "batch", str(logs), "--out", str(out),
           "--profile", str(PROFILES)]
    return subprocess.Popen(cmd, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_a_batch_killed_while_writing_and_rerun_loses_and_doubles_nothing(tmp_path):
    logs = tmp_path / "logs"
    for n in range(2):
        day_log(logs, n, rounds=150)
    ref, victim = tmp_path / "ref", tmp_path / "victim"
    for out in (ref, victim):
        assert _cli_batch(logs, out).wait(60) == 1
    for n in range(2, 6):
        day_log(logs, n, rounds=150)
    assert _cli_batch(logs, ref).wait(60) == 1
    # The victim is killed inside its run's transaction (the hook sleeps between writes).
    proc = _cli_batch(logs, victim, {"AUDITOR_BATCH_PAUSE": "0.2"})
    deadline = time.time() + 60
    for line in proc.stderr:
        if "ledger: writing" in line or time.time() > deadline:
            break
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert proc.returncode == -signal.SIGKILL
    assert len(dump(victim / "audit.db")["runs"]) == 1           # the killed run left nothing
    assert _cli_batch(logs, victim).wait(60) == 1
    assert dump(victim / "audit.db") == dump(ref / "audit.db")
    assert sorted(p.name for p in (victim / "runs").iterdir()) == ["0001", "0002"]


@pytest.mark.parametrize("lang, said", [("es", "no se encontró ningún archivo de registro"),
                                        ("en", "no log file was found")])
def test_a_folder_with_no_log_at_all_fails_a_night_with_no_new_file_does_not(tmp_path, lang, said):
    """A folder with no log in it (an export that did not arrive, a share not mounted) was a
    run of nothing recorded, exit 0 ("nothing new"): it is an error (exit 2, the folder named,
    nothing recorded), whether the folder never held a log or held those the ledger has. A
    night with no new file in a folder of files audited before is a run as it was (exit 0)."""
    def cli(*paths):
        return CliRunner().invoke(app, ["batch", *map(str, paths), "--out", str(tmp_path / "out"),
                                        "--profile", str(PROFILES), "--lang", lang])

    empty, logs = tmp_path / "vacia", tmp_path / "logs"
    empty.mkdir()
    res = cli(empty)
    assert res.exit_code == 2 and said in res.stderr and str(empty) in res.stderr, res.output
    assert not (tmp_path / "out").exists()  # no ledger, no run, no report
    day = day_log(logs, 0, rounds=60)
    assert cli(logs).exit_code == 1
    assert cli(logs, empty).exit_code == 0  # no new file: nothing new
    before = dump(tmp_path / "out" / "audit.db")
    assert len(before["runs"]) == 2
    day.rename(tmp_path / "aparte.csv")  # the folder as an unmounted share shows it: no log
    res = cli(logs, empty)
    assert res.exit_code == 2 and str(logs) in res.stderr and str(empty) in res.stderr, res.output
    assert dump(tmp_path / "out" / "audit.db") == before  # its findings still open, no run recorded


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_scheduler_that_cannot_be_reached_is_said_in_the_catalogues_words(tmp_path, lang):
    """Dask's reason was quoted in its English («no se pudo conectar con el planificador Dask
    nonsense: missing port number in address 'nonsense'», «… Timed out trying to connect to
    tcp://127.0.0.1:1 after 20 s»)."""
    pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed")
    from auditor.batch.distributed import DaskExecutor
    from auditor.i18n import t

    logs = tmp_path / "logs"
    day_log(logs, 0, rounds=30)
    for address in ("nonsense", "foo://x:1"):
        res = CliRunner().invoke(app, ["batch", str(logs), "--out", str(tmp_path / "out"), "--scheduler", address,
                                       "--lang", lang])
        said = t("batch.scheduler_error", lang, address=address, error=t("scheduler_reason.bad_address", lang))
        assert res.exit_code == 2 and res.stderr == f"auditor: {said}\n", res.stderr
    with pytest.raises(BatchError) as caught:
        DaskExecutor("tcp://127.0.0.1:1", lang, timeout=1)
    assert str(caught.value) == t("batch.scheduler_error", lang, address="tcp://127.0.0.1:1",
                                  error=t("scheduler_reason.unreachable", lang, seconds=1))
    assert "Timed out" not in str(caught.value)


def test_scheduler_without_dask_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails as if not installed
    logs = tmp_path / "logs"
    day_log(logs, 0, rounds=60)
    res = CliRunner().invoke(app, ["batch", str(logs), "--out", str(tmp_path / "out"),
                                   "--scheduler", "tcp://127.0.0.1:1", "--lang", "en"])
    assert res.exit_code == 2 and "casino-auditor[dask]" in res.stderr


def test_tasks_are_cut_by_size_and_count(tmp_path, monkeypatch):
    """Consecutive files go in one task until it holds TASK_BYTES of logs or CHUNK files: a
    month of small daily exports makes a few audits, not hundreds; large files one each."""
    from auditor.batch import runner

    monkeypatch.setattr(runner, "TASK_BYTES", 1000)
    entries = []
    for i, size in enumerate([400, 400, 400, 2500, 10, 10, 10, 10, 10]):
        path = tmp_path / f"f{i}.csv"
        path.write_bytes(b"x" * size)
        entries.append(runner._Entry(f"s{i}", str(path), "pot-luck-blackjack", {}))
    groups = [[int(e.sha[1:]) for e in g] for g in runner._cut(entries, chunk=4)]
    assert groups == [[0, 1, 2], [3], [4, 5, 6, 7], [8]]
    assert [len(g) for g in runner._cut(entries, chunk=100)] == [3, 1, 5]


@pytest.mark.parametrize("chunk", [1, 256])
def test_a_day_cut_in_two_files_inside_a_round_is_audited_as_the_day(tmp_path, chunk):
    """A day's export split in two files between two rows of one round: the round is one
    round, whether the two files are audited in one task or each in its own (the other then
    its context, the round's time being in both): the findings are the whole day's."""
    logs = tmp_path / "logs"
    day = day_log(logs, 0, faults=0.1)
    frame = pd.read_csv(day, dtype=str, keep_default_na=False)
    same = (frame["round_id"] == frame["round_id"].shift()).to_numpy()
    cut = int(same[len(frame) // 2:].argmax()) + len(frame) // 2
    assert same[cut]
    frame.loc[cut, "net_war"] = "999.00"  # a finding on a seat in the second file's part
    frame.to_csv(day, index=False)
    whole = full_audit([day])
    assert frame.loc[cut, "round_id"] in {f[1] for f in whole}
    day.unlink()
    frame.iloc[:cut].to_csv(day.with_name("part-a.csv"), index=False)
    frame.iloc[cut:].to_csv(day.with_name("part-b.csv"), index=False)
    outcome = batch(tmp_path, logs, chunk=chunk)
    assert len(whole) > 5 and open_findings(tmp_path / "out" / "audit.db") == whole
    assert outcome.exit_code == 1


@pytest.mark.parametrize("chunk", [1, 256])
def test_a_day_cut_across_three_files_inside_a_round_is_audited_as_the_day(tmp_path, chunk):
    """A day's export split in three files inside one round, the middle file made of a row of
    that round alone: the round is one round, whether the files are audited in one task or
    each in its own (the others its context): the findings are the whole day's."""
    logs = tmp_path / "logs"
    day = day_log(logs, 0, faults=0.1)
    frame = pd.read_csv(day, dtype=str, keep_default_na=False)
    same = (frame["round_id"] == frame["round_id"].shift()).to_numpy()
    three = same[1:-1] & same[2:]  # (row k+1 and k+2 go on with the round of row k)
    cut = int(three[len(frame) // 2:].argmax()) + len(frame) // 2 + 1
    assert same[cut] and same[cut + 1]
    frame.loc[cut + 1, "net_war"] = "999.00"  # a finding on a seat in the third file's part
    frame.to_csv(day, index=False)
    whole = full_audit([day])
    assert frame.loc[cut, "round_id"] in {f[1] for f in whole}
    day.unlink()
    frame.iloc[:cut].to_csv(day.with_name("part-a.csv"), index=False)
    frame.iloc[cut:cut + 1].to_csv(day.with_name("part-b.csv"), index=False)
    frame.iloc[cut + 1:].to_csv(day.with_name("part-c.csv"), index=False)
    outcome = batch(tmp_path, logs, chunk=chunk)
    assert len(whole) > 5 and open_findings(tmp_path / "out" / "audit.db") == whole
    assert outcome.exit_code == 1


def _audit_error(path: Path) -> str:
    (item,) = audit([path]).inputs
    assert item.error
    return item.error


@pytest.mark.parametrize("copy_name", ["a-copy.csv.gz", "z-copy.csv.gz", "z-copy.jsonl"])
def test_a_copy_under_a_suffix_that_does_not_read_it_fails_as_the_audit_says(tmp_path, copy_name):
    """The bytes of a CSV export under a name that reads them otherwise (`.gz`: no gzip
    stream; `.jsonl`: no JSON round) were one content with the export, audited once, where
    `auditor audit` reports the copy as a file it cannot read. The batch says so too (exit 3,
    tried again each run), whether the copy's name comes before the export's or after."""
    logs = tmp_path / "logs"
    day = day_log(logs, 0)
    copy = day.with_name(copy_name)
    copy.write_bytes(day.read_bytes())
    want = _audit_error(copy)
    first = batch(tmp_path, logs)
    assert (first.exit_code, first.audited, first.failed) == (3, [str(day.resolve())], [(str(copy.resolve()), want)])
    assert open_findings(tmp_path / "out" / "audit.db") == full_audit([day])
    again = batch(tmp_path, logs)
    assert (again.exit_code, again.audited, again.failed) == (3, [], [(str(copy.resolve()), want)])
    copy.unlink()
    assert batch(tmp_path, logs).exit_code == 0


def test_a_misnamed_copy_of_a_content_audited_before_fails_too(tmp_path):
    """The copy arrives after its content was audited (or stays after the export is removed:
    then the content is not read through it as another file's context either)."""
    logs = tmp_path / "logs"
    day, later = day_log(logs, 0), day_log(logs, 1)
    later.rename(tmp_path / "later.csv")
    assert batch(tmp_path, logs).exit_code == 1
    copy = day.with_name("copy.csv.gz")
    copy.write_bytes(day.read_bytes())
    run2 = batch(tmp_path, logs)
    assert (run2.exit_code, run2.audited, run2.failed) == (3, [], [(str(copy.resolve()), _audit_error(copy))])
    day.unlink()
    (tmp_path / "later.csv").rename(later)
    run3 = batch(tmp_path, logs)
    assert (run3.exit_code, run3.audited, [p for p, _ in run3.failed]) == (3, [str(later.resolve())],
                                                                          [str(copy.resolve())])


def test_each_copy_of_a_file_that_cannot_be_read_fails(tmp_path):
    """Two copies of a damaged gzip export were one content: the batch named the first as
    failed, where `auditor audit` names both; and a copy of a misnamed file too."""
    logs = tmp_path / "logs"
    day = day_log(logs, 0)
    damaged = [day.with_name(name) for name in ("x.csv.gz", "y.csv.gz")]
    for copy in damaged:
        copy.write_bytes(b"\x1f\x8b" + day.read_bytes())
    misnamed = [day.with_name(name) for name in ("m.csv.gz", "n.csv.gz")]
    for copy in misnamed:
        copy.write_bytes(day.read_bytes())
    want = sorted((str(c.resolve()), _audit_error(c)) for c in damaged + misnamed)
    outcome = batch(tmp_path, logs)
    assert (outcome.exit_code, outcome.audited, outcome.failed) == (3, [str(day.resolve())], want)
    assert batch(tmp_path, logs).failed == want


def test_the_first_look_reads_a_csv_header_as_the_audit_does(tmp_path):
    """The batch's first look at a file (its game and tables' spans, to choose the files it is
    audited with) finds the header where the audit finds it: past blank lines (empty, of spaces,
    of separators only) and Excel's separator hint, by any separator and line end, its names in
    capitals or with blanks around them, compressed or not; a Parquet file's column names alike."""
    import gzip

    import pyarrow as pa
    import pyarrow.parquet as pq

    from auditor.batch.spans import scan

    plain = day_log(tmp_path / "logs", 0, rounds=60)
    text = plain.read_text(encoding="utf-8")
    header, body = text.split("\n", 1)
    shouted = ",".join(f" {h.upper()} " if h == "started_at" else h.upper() for h in header.split(","))
    variants = {"blank.csv": f"\n   \n,,,\n{text}", "capitals.csv": f"{shouted}\n{body}",
                "hinted.csv": "\t\nsep=;\n;;\n" + f"{shouted}\n{body}".replace(",", ";"),
                "cr.csv": f" \n{shouted}\n{body}".replace("\n", "\r")}
    for name, content in variants.items():
        (tmp_path / name).write_text(content, encoding="utf-8", newline="")
    (tmp_path / "blank.csv.gz").write_bytes(gzip.compress(variants["blank.csv"].encode()))
    frame = pd.read_csv(plain, dtype=str, keep_default_na=False)
    pq.write_table(pa.Table.from_pandas(frame.rename(columns=str.upper), preserve_index=False),
                   tmp_path / "capitals.parquet")
    expected = scan((str(plain), "sha"))
    assert expected.game == GAME and expected.error is None and len(expected.spans) >= 2
    for name in [*variants, "blank.csv.gz", "capitals.parquet"]:
        got = scan((str(tmp_path / name), "sha"))
        assert (got.game, got.spans, got.error) == (expected.game, expected.spans, None), name


def test_spans_are_nanoseconds_whatever_the_times_text_and_the_ledgers_age(tmp_path):
    """The first look's spans are UTC nanoseconds (the ledger's ``first_ns``), also for a file
    whose times carry nine decimals (pandas 3 would give those nanoseconds and the others
    microseconds); a ledger written with microseconds is read as nanoseconds."""
    from auditor.batch.spans import scan

    plain = day_log(tmp_path / "logs", 0, rounds=60)
    frame = pd.read_csv(plain, dtype=str, keep_default_na=False)
    fine = frame.assign(started_at=frame["started_at"].str.replace(r"([+-]\d\d:\d\d|Z)$", r".000000000\1", regex=True))
    assert (fine["started_at"] != frame["started_at"]).all()
    fine.to_csv(tmp_path / "fine.csv", index=False)
    lima = min(pd.Timestamp(t).value for t in frame["started_at"])  # (nanoseconds)
    for path in (plain, tmp_path / "fine.csv"):
        spans = scan((str(path), "sha")).spans
        assert min(lo for lo, _ in spans.values()) == lima, path.name
    with Ledger(tmp_path / "old.db") as ledger:  # (as a ledger written before the mark of nanoseconds)
        ledger.db.execute("INSERT INTO spans VALUES('sha', 'TS-01', ?, ?)", (lima // 1000, lima // 1000 + 5))
        ledger.db.execute("INSERT INTO spans VALUES('sha', 'TS-02', ?, ?)", (lima, lima + 5000))
        ledger.db.execute("DELETE FROM meta WHERE key='spans_unit'")
    with Ledger(tmp_path / "old.db") as ledger:
        assert ledger.spans() == {"sha": {"TS-01": (lima, lima + 5000), "TS-02": (lima, lima + 5000)}}
        # Now marked: a span in nanoseconds of 1970 (a table's clock reset) is kept as it is.
        ledger.db.execute("INSERT INTO spans VALUES('sha', 'TS-03', 5, 6)")
    with Ledger(tmp_path / "old.db") as ledger:
        assert ledger.spans()["sha"]["TS-03"] == (5, 6)


@pytest.mark.parametrize("top", ["\n   \n,,,\n", "capitals"])
def test_a_file_with_blank_lines_before_its_header_or_its_header_in_capitals_is_audited_with_its_context(
        tmp_path, top):
    """Day 2's first round repeats the deck of day 1's last at its table: a finding only the two
    files audited together give. Day 2 exported with blank lines before its header, or with
    its header in capitals, is still audited with day 1 (it was audited by itself)."""
    logs = tmp_path / "logs"
    one, two, first_round = _deck_repeated_across_days(logs)
    text = two.read_text(encoding="utf-8")
    if top == "capitals":
        header, body = text.split("\n", 1)
        two.write_text(header.upper() + "\n" + body, encoding="utf-8")
    else:
        two.write_text(top + text, encoding="utf-8")
    assert batch(tmp_path, logs).new == 1
    assert open_findings(tmp_path / "out" / "audit.db") == {("TS-02", first_round, "TS-TWO-DECKS", None, None)}
def test_a_content_replaced_by_one_that_cannot_be_audited_resolves_nothing(tmp_path):
    """An export caught empty or damaged at its path (being written again, cut as it was
    copied) is no corrected export: the findings of the content it replaced stay open (they
    were all marked resolved, and new, flagged repeated, the next night), and are resolved
    only when a content that is audited replaces it."""
    logs = tmp_path / "logs"
    days = [day_log(logs, n) for n in range(3)]
    first = batch(tmp_path, logs)
    db = tmp_path / "out" / "audit.db"
    held = open_findings(db)
    original = days[1].read_bytes()
    for broken in (b"", original[: len(original) // 3].replace(b"\n", b"\x00", 1)):
        days[1].write_bytes(broken)
        r = batch(tmp_path, logs)
        assert (r.exit_code, r.new, r.resolved, r.open) == (3, 0, 0, first.new), broken[:20]
        assert [p for p, _ in r.failed] == [str(days[1].resolve())]
        assert open_findings(db) == held
    days[1].write_bytes(original)
    r = batch(tmp_path, logs)
    assert (r.exit_code, r.new, r.resolved, r.repeated) == (0, 0, 0, 0)
    # A corrected export (its day's first round dropped) does resolve what it no longer holds.
    fixed = pd.read_csv(days[1], dtype=str, keep_default_na=False)
    gone = fixed["round_id"].iloc[0]
    fixed[fixed["round_id"] != gone].to_csv(days[1], index=False)
    r = batch(tmp_path, logs)
    assert r.exit_code in (0, 1) and open_findings(db) == full_audit(days)
    assert r.resolved == len({f for f in held if f[1] == gone} - full_audit(days))


def _days_0_and_2_audited(tmp_path):
    """(the folder, day 0, day 2, the ledger, its open findings) once a batch has audited days
    0 and 2 of a table, one file a task: day 1 is to come late."""
    logs = tmp_path / "logs"
    d0, d2 = day_log(logs, 0), day_log(logs, 2)
    batch(tmp_path, logs, chunk=1)
    db = tmp_path / "out" / "audit.db"
    return logs, d0, d2, db, open_findings(db)


def test_a_file_audited_before_whose_audit_again_fails_keeps_its_findings_open(tmp_path):
    """A late day that the first look accepts but the audit refuses (a Parquet export whose
    dealer column is a list, which has no text; the first look reads its tables and times
    only) is the context of the day after it, re-audited for it in another task: that day
    fails too (exit 3, retried), but what it held is not resolved (it was, as if corrected).
    (The late day was a CSV holding a byte that is text in no encoding the audit knows: the
    first look read it as U+FFFD, and now refuses it as the audit does, see
    ``test_a_late_day_of_no_encoding_the_audit_knows_is_refused_by_the_first_look_too``.)"""
    import pyarrow as pa
    import pyarrow.parquet as pq

    logs, d0, d2, db, held = _days_0_and_2_audited(tmp_path)
    d1 = day_log(logs, 1)
    frame = pd.read_csv(d1, dtype=str, keep_default_na=False)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    at = table.schema.get_field_index("dealer_id")
    table = table.set_column(at, "dealer_id", pa.array([[v] for v in frame["dealer_id"]]))
    late = d1.with_suffix(".parquet")
    pq.write_table(table, late)
    d1.unlink()
    r = batch(tmp_path, logs, chunk=1)
    assert r.exit_code == 3 and sorted(p for p, _ in r.failed) == sorted(str(p.resolve()) for p in (late, d2))
    assert (r.new, r.resolved) == (0, 0) and open_findings(db) == held
    late.unlink()
    day_log(logs, 1)  # the export is made again, readable
    r = batch(tmp_path, logs, chunk=1)
    assert r.exit_code == 1 and r.repeated == 0 and open_findings(db) == full_audit([d0, d1, d2])


def test_a_late_day_of_no_encoding_the_audit_knows_is_refused_by_the_first_look_too(tmp_path):
    """A late day holding a byte that is text in no encoding the audit knows (0x81: neither
    UTF-8 nor Windows-1252): the first look read it as UTF-8 with the byte replaced, and
    planned the day with the day after it, which then failed for its context. It refuses it
    now as the audit does: the day is audited alone and fails (exit 3, retried), the day
    after keeps the previous round it had, and nothing is resolved."""
    logs, d0, d2, db, held = _days_0_and_2_audited(tmp_path)
    d1 = day_log(logs, 1)
    d1.write_bytes(d1.read_bytes().replace(b"CR-2", b"CR\x81", 1))
    r = batch(tmp_path, logs, chunk=1)
    assert r.exit_code == 3 and [p for p, _ in r.failed] == [str(d1.resolve())]
    assert (r.new, r.resolved) == (0, 0) and open_findings(db) == held
    day_log(logs, 1)  # the export is made again, readable
    r = batch(tmp_path, logs, chunk=1)
    assert r.exit_code == 1 and r.repeated == 0 and open_findings(db) == full_audit([d0, d1, d2])


def test_the_first_look_reads_a_text_in_the_encoding_the_audit_detects(tmp_path):
    """The first look read every CSV file as UTF-8, a byte that is none replaced: the tables
    «Tñ1» and «Té1» of a Windows-1252 export were both «T�1» (one table, and not the one of
    the same name in a UTF-8 export, so that a day was planned without the day before it);
    a Windows-1252 JSONL file was not looked at at all (audited alone). A text is read as the
    audit reads it: UTF-8, else the encoding it detects (Windows-1252, UTF-16 by its mark),
    its header past blank lines and a separator hint, compressed or not; one of no encoding
    it knows is left to the audit."""
    import gzip

    from auditor.batch.spans import scan

    plain = day_log(tmp_path / "logs", 0, rounds=60)
    text = plain.read_text(encoding="utf-8").replace("TS-01", "TS-ñ1").replace("TS-02", "TS-é2")
    rows = pd.read_csv(plain, dtype=str, keep_default_na=False).replace({"TS-01": "TS-ñ1", "TS-02": "TS-é2"})
    jsonl = "".join(json.dumps({**row, "hands": [{}]}, ensure_ascii=False) + "\n" for row in rows.to_dict("records"))
    files = {"utf8.csv": text.encode("utf-8"), "cp1252.csv": text.encode("cp1252"),
             "hinted.csv": ("sep=,\n" + text).encode("cp1252"), "cp1252.csv.gz": gzip.compress(text.encode("cp1252")),
             "utf16.csv": ("\ufeff" + text).encode("utf-16-le"),
             "utf8.jsonl": jsonl.encode("utf-8"), "cp1252.jsonl": jsonl.encode("cp1252"),
             "cp1252.jsonl.gz": gzip.compress(jsonl.encode("cp1252"))}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    expected = scan((str(tmp_path / "utf8.csv"), "sha"))
    assert {"TS-ñ1", "TS-é2"} <= expected.spans.keys() and expected.game == GAME
    for name in files:
        got = scan((str(tmp_path / name), "sha"))
        assert (got.game, got.spans, got.error) == (GAME, expected.spans, None), name
    (tmp_path / "x81.csv").write_bytes(text.replace("TS-é2", "TS-\x812", 1).encode("latin-1"))
    assert scan((str(tmp_path / "x81.csv"), "sha")).error is not None


def test_an_index_that_cannot_be_written_records_nothing(tmp_path):
    """Exit 2 says nothing was recorded: the index is written inside the run's transaction,
    as its reports are (it was written after the commit, and its failure exited 2 with the
    run recorded)."""
    logs = tmp_path / "logs"
    day_log(logs, 0, rounds=60)
    out = tmp_path / "out"
    (out / "index.html.tmp").mkdir(parents=True)  # the index cannot be written
    res = CliRunner().invoke(app, ["batch", str(logs), "--out", str(out), "--profile", str(PROFILES), "--lang", "en"])
    assert res.exit_code == 2 and "index.html" in res.stderr, res.output
    assert dump(out / "audit.db")["runs"] == []
    (out / "index.html.tmp").rmdir()
    res = CliRunner().invoke(app, ["batch", str(logs), "--out", str(out), "--profile", str(PROFILES)])
    assert res.exit_code == 1 and [r[0] for r in dump(out / "audit.db")["runs"]] == [1]
    assert "runs/0001/batch.html" in (out / "index.html").read_text()


def test_a_batch_that_another_one_overtook_on_its_ledger_records_nothing(tmp_path):
    """Two batches at once on one ledger: the one that commits second fails (exit 2) even
    when the first committed before it took its run's number (it recorded a run planned on
    what the ledger held before the other's)."""
    logs = tmp_path / "logs"
    day_log(logs, 0, rounds=60)
    other = []

    def say(message):  # the run is planned: another batch records its run now
        if not other:
            other.append(batch(tmp_path, logs))

    with pytest.raises(BatchError, match="otra de «auditor batch» guardó") as exc:
        run_batch(BatchOptions(paths=[logs], out=tmp_path / "out", profiles=[PROFILES]), say=say)
    assert "1" in str(exc.value)
    assert [r[0] for r in dump(tmp_path / "out" / "audit.db")["runs"]] == [1]
    assert batch(tmp_path, logs).run_id == 2


@pytest.mark.parametrize("lang, said", [("es", "no es un registro de auditorías"),
                                        ("en", "is not an audit ledger")])
@pytest.mark.parametrize("table", ["runs", "meta"])
def test_a_database_that_is_no_ledger_is_refused_and_left_as_it_was(tmp_path, lang, said, table):
    """Another program's database, also one with a table named as the ledger's ``meta``."""
    import sqlite3

    logs = tmp_path / "logs"
    day_log(logs, 0, rounds=60)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute(f"CREATE TABLE {table}(x)")
        db.execute(f"INSERT INTO {table} VALUES (1)")
    before = other.read_bytes()
    cli = CliRunner()
    for args in (["batch", str(logs), "--out", str(tmp_path / "out"), "--db", str(other)],
                 ["history", "--db", str(other)], ["diff", "1", "2", "--db", str(other)]):
        res = cli.invoke(app, [*args, "--lang", lang])
        assert res.exit_code == 2 and isinstance(res.exception, SystemExit), (args, res.output)
        assert said in res.stderr, res.stderr
    assert other.read_bytes() == before
    with sqlite3.connect(other) as db:
        assert [n for (n,) in db.execute("SELECT name FROM sqlite_master")] == [table]


@pytest.mark.parametrize("damage, reason", [("not_a_database", "sqlite_error.NOTADB"),
                                           ("malformed", "sqlite_error.CORRUPT")])
def test_a_ledger_sqlite_refuses_says_why_in_the_commands_language(tmp_path, damage, reason):
    """SQLite's reason was quoted as it gives it, in English, in a Spanish message («error de
    la base de datos SQLite: file is not a database»)."""
    import sqlite3

    from auditor.i18n import t

    ledger = tmp_path / "audit.db"
    if damage == "not_a_database":  # another file named as the ledger
        ledger.write_text("mesa;ronda\n", encoding="utf-8")
    else:  # a ledger whose first page (its tables' schema) was overwritten
        with sqlite3.connect(ledger) as db:
            db.execute("CREATE TABLE runs(x)")
        data = bytearray(ledger.read_bytes())
        data[100:400] = b"A" * 300
        ledger.write_bytes(bytes(data))
    for lang in ("en", "es"):
        res = CliRunner().invoke(app, ["history", "--db", str(ledger), "--lang", lang])
        assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.output
        said = f"{ledger}: {t('batch.ledger_sqlite', lang)} ({t(reason, lang)})"
        assert res.stderr.strip() == "auditor: " + t("batch.ledger_error", lang, error=said)


@pytest.mark.parametrize("lang, missing, newer", [
    ("es", "no existe", "versión 9 del registro; esta versión del auditor lee la 1"),
    ("en", "does not exist", "ledger version 9; this version of the auditor reads version 1")])
def test_a_ledger_missing_or_of_a_newer_version_is_said_in_the_commands_language(tmp_path, lang, missing, newer):
    import sqlite3

    cli = CliRunner()
    res = cli.invoke(app, ["history", "--db", str(tmp_path / "none.db"), "--lang", lang])
    assert res.exit_code == 2 and missing in res.stderr and "not found" not in res.stderr.replace(missing, "")
    logs = tmp_path / "logs"
    day_log(logs, 0, rounds=60)
    batch(tmp_path, logs)
    db = tmp_path / "out" / "audit.db"
    with sqlite3.connect(db) as con:
        con.execute("UPDATE meta SET value='9' WHERE key='version'")
    for args in (["history", "--db", str(db)], ["batch", str(logs), "--out", str(tmp_path / "out")]):
        res = cli.invoke(app, [*args, "--lang", lang])
        assert res.exit_code == 2 and newer in res.stderr, res.stderr


def test_a_link_to_a_log_that_is_gone_is_named_by_the_link(tmp_path):
    """The file not audited is the link in the folder of exports (it was named by the path
    it points to, which is in no folder the inspector gave)."""
    logs = tmp_path / "logs"
    day_log(logs, 0, rounds=60)
    link = logs / "today.csv"
    link.symlink_to(tmp_path / "elsewhere" / "gone.csv")
    r = batch(tmp_path, logs)
    assert r.exit_code == 3 and [p for p, _ in r.failed] == [str(link)]


def test_the_first_look_reads_times_as_the_audit_does(tmp_path):
    """A time without zone is Lima's, as the audit reads it (it was read as UTC: spans 5 h
    off); a time of no round (.NET's 0001-01-01 for no date) is none, and the batch goes on
    (it ended in a traceback, exit 1, every night)."""
    from auditor.batch.spans import scan

    logs = tmp_path / "logs"
    plain = day_log(logs, 0, rounds=60)
    frame = pd.read_csv(plain, dtype=str, keep_default_na=False)
    assert frame["started_at"].str.endswith("-05:00").all()
    frame.assign(started_at=frame["started_at"].str[:-6]).to_csv(tmp_path / "zoneless.csv", index=False)
    expected = scan((str(plain), "sha"))
    assert scan((str(tmp_path / "zoneless.csv"), "sha")).spans == expected.spans
    frame.loc[len(frame) - 1, "started_at"] = "0001-01-01T00:00:00"
    frame.to_csv(plain, index=False)
    got = scan((str(plain), "sha"))
    assert (got.game, got.error) == (GAME, None) and got.spans.keys() == expected.spans.keys()
    r = batch(tmp_path, logs)
    assert r.exit_code == 1 and r.audited == [str(plain.resolve())]


def test_spans_of_times_given_to_the_nanosecond_compare_with_the_others(tmp_path):
    """A day whose times carry a fraction of a second to the nanosecond: its spans were kept
    in nanoseconds and the others' in microseconds (the unit pandas chose for each file's
    times), so it seemed to come long after every day, and the next day was audited without
    it: the deck repeated across them was lost (tasks of one file each: large files)."""
    logs = tmp_path / "logs"
    one, two, first_round = _deck_repeated_across_days(logs)
    a = pd.read_csv(one, dtype=str, keep_default_na=False)
    a["started_at"] = a["started_at"].str.replace("-05:00", ".000000001-05:00")
    a.to_csv(one, index=False)
    expected = {("TS-02", first_round, "TS-TWO-DECKS", None, None)}
    assert full_audit([one, two]) == expected
    (tmp_path / "hold").mkdir()
    two.parent.rename(tmp_path / "hold" / two.parent.name)
    batch(tmp_path, logs, chunk=1)
    (tmp_path / "hold" / two.parent.name).rename(two.parent)
    r = batch(tmp_path, logs, chunk=1)
    assert (r.new, r.audited) == (1, [str(two.resolve())])
    assert open_findings(tmp_path / "out" / "audit.db") == expected
    with Ledger(tmp_path / "out" / "audit.db") as ledger:
        lo, hi = ledger.spans()[ledger.path_hashes()[str(one.resolve())]]["TS-02"]
    assert pd.Timestamp(lo, tz="UTC").date() == DAY0  # nanoseconds since 1970, as the ledger says


def test_spans_a_ledger_kept_in_microseconds_are_read_as_nanoseconds(tmp_path):
    """Ledgers written before spans were always nanoseconds hold microseconds (pandas 3's
    unit for times to the second): read as nanoseconds, a new day is planned among them."""
    logs = tmp_path / "logs"
    d0, d2 = day_log(logs, 0), day_log(logs, 2)
    batch(tmp_path, logs)
    db = tmp_path / "out" / "audit.db"
    with Ledger(db) as ledger:
        ledger.db.execute("UPDATE spans SET first_ns = first_ns / 1000, last_ns = last_ns / 1000")
        ledger.db.execute("DELETE FROM meta WHERE key='spans_unit'")
    d1 = day_log(logs, 1)  # a late day: the day after it is re-audited, as with spans in ns
    r = batch(tmp_path, logs)
    assert r.audited == sorted([str(d1.resolve()), str(d2.resolve())])
    assert open_findings(db) == full_audit([d0, d1, d2])


def test_a_batch_on_local_processes_interrupted_says_so_once_and_records_nothing(tmp_path):
    """Ctrl-C reaches the whole process group: each worker process printed a traceback of
    its own KeyboardInterrupt; the batch now says in one line that nothing was recorded."""
    logs = tmp_path / "logs"
    for n in range(4):
        day_log(logs, n, rounds=1500)
    out = tmp_path / "out"
    cmd = [sys.executable, "-c", "from auditor.cli import app; app(prog_name='auditor')", "batch", str(logs),
           "--out", str(out), "--profile", str(PROFILES), "--workers", "2", "--lang", "en"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    said = proc.stderr.readline()  # the plan: the audit begins
    assert "auditing" in said, said
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGINT)
    rest = proc.stderr.read()
    assert proc.wait(60) == 130, rest
    assert "Traceback" not in rest and rest.strip() == "auditor: interrupted: nothing of this run was recorded " \
                                                      "(the next one redoes it)", rest
    assert dump(out / "audit.db")["runs"] == []


@pytest.mark.parametrize("layout", ["semicolons", "excel-hint"])
def test_a_csv_with_another_separator_is_read_with_its_previous_day(tmp_path, layout):
    """A spreadsheet export separated by semicolons (with or without Excel's "sep=;" line),
    which the audit reads: the batch's first look told no game in it, so it was audited
    alone, its spans never known, and a deck repeated across the two days was lost."""
    logs = tmp_path / "logs"
    one, two, first_round = _deck_repeated_across_days(logs)
    text = pd.read_csv(two, dtype=str, keep_default_na=False).to_csv(index=False, sep=";")
    two.write_text(text if layout == "semicolons" else "sep=;\n" + text)
    expected = {("TS-02", first_round, "TS-TWO-DECKS", None, None)}
    assert full_audit([one, two]) == expected
    r = batch(tmp_path, logs)
    assert (r.exit_code, r.new) == (1, 1) and open_findings(tmp_path / "out" / "audit.db") == expected
    with Ledger(tmp_path / "out" / "audit.db") as ledger:
        assert len(ledger.spans()) == 2  # both days' tables, for the days that come after


def test_the_runs_day_is_limas_whatever_the_machines_zone(tmp_path, monkeypatch):
    """A waiver's ``expires`` is a day in Lima: at 19:30 Lima time on its last day (00:30 UTC
    the day after, the machine's day on a server kept in UTC) it still applies; from midnight
    in Lima it no longer does."""
    from datetime import datetime, timezone

    from auditor.batch import runner

    logs = tmp_path / "logs"
    _deck_repeated_across_days(logs)
    waivers = tmp_path / "w.toml"
    waivers.write_text(WAIVERS.format(expires="2026-11-30"))
    for name, utc, waived in (("evening", datetime(2026, 12, 1, 0, 30, tzinfo=timezone.utc), 1),
                              ("next-day", datetime(2026, 12, 1, 5, 0, tzinfo=timezone.utc), 0)):
        class Clock(datetime):
            @classmethod
            def now(cls, tz=None, at=utc):
                return at if tz is None or tz is timezone.utc else at.astimezone(tz)

        monkeypatch.setattr(runner, "datetime", Clock)
        assert batch(tmp_path, logs, name=name, waivers=waivers).waived == waived, name


def test_a_change_of_profile_audits_every_content_again(tmp_path):
    """Findings are what the profiles made of the rounds: after a table's limits are corrected,
    the contents audited before are audited again and the ledger holds what one audit under
    the new profiles finds (the bet-limit findings of the lower limit new, the others still
    open); a run under the same profiles again audits nothing."""
    import shutil

    logs = tmp_path / "logs"
    days = [day_log(logs, n) for n in range(2)]
    profiles = tmp_path / "profiles"
    shutil.copytree(PROFILES, profiles)
    db = tmp_path / "out" / "audit.db"
    assert batch(tmp_path, logs, profiles=[profiles]).exit_code == 1
    before = open_findings(db)
    text = (profiles / "triple-shot.toml").read_text(encoding="utf-8")
    assert 'max_bet = "500.00"' in text
    (profiles / "triple-shot.toml").write_text(text.replace('max_bet = "500.00"', 'max_bet = "40.00"'),
                                              encoding="utf-8")
    corrected = audit(days, profiles=load_profiles([profiles])).findings
    expected = {(r.table_id, r.round_id, r.code, None if pd.isna(r.seat) else int(r.seat),
                 None if pd.isna(r.hand) else int(r.hand)) for r in corrected.itertuples()}
    assert expected != before
    again = batch(tmp_path, logs, profiles=[profiles])
    assert again.audited == sorted(str(p.resolve()) for p in days)
    assert open_findings(db) == expected and again.new == len(expected - before)
    assert batch(tmp_path, logs, profiles=[profiles]).audited == []
    # A content away while the profiles change is judged again when it comes back.
    (tmp_path / "away").mkdir()
    days[1].parent.rename(tmp_path / "away" / days[1].parent.name)
    (profiles / "triple-shot.toml").write_text(text, encoding="utf-8")
    assert batch(tmp_path, logs, profiles=[profiles]).audited == [str(days[0].resolve())]
    (tmp_path / "away" / days[1].parent.name).rename(days[1].parent)
    assert batch(tmp_path, logs, profiles=[profiles]).audited == [str(days[1].resolve())]
    assert open_findings(db) == before


def test_a_corrected_export_supersedes_its_old_content_beside_a_misnamed_copy_of_it(tmp_path):
    """The export replaced by a corrected one (no finding), and a copy of the correction under a
    suffix that does not read it in another folder: the copy fails at its own path, and the
    correction still resolves the old content's findings (they stayed open while the copy was
    there, the old content kept at the export's path)."""
    import shutil

    logs, other = tmp_path / "logs", tmp_path / "other"
    day = day_log(logs, 0)
    first = batch(tmp_path, logs)
    assert first.new > 0
    fixed = day_log(tmp_path / "clean", 0, faults=0.0)
    assert full_audit([fixed]) == set()
    shutil.copy(fixed, day)
    other.mkdir()
    shutil.copy(fixed, other / "copy.csv.gz")
    second = batch(tmp_path, [logs, other])
    assert (second.exit_code, second.resolved, second.open) == (3, first.new, 0)
    assert [p for p, _ in second.failed] == [str((other / "copy.csv.gz").resolve())]
    assert open_findings(tmp_path / "out" / "audit.db") == set()
    with Ledger(tmp_path / "out" / "audit.db") as ledger:
        assert ledger.path_hashes()[str(day.resolve())] == sha256_of(day)


@pytest.mark.parametrize("lang, said", [("es", "no se puede abrir ni crear el registro de auditorías (ya existe"),
                                        ("en", "the audit ledger cannot be opened or created (a file of that")])
def test_a_ledger_that_cannot_be_created_is_said_in_the_commands_language(tmp_path, lang, said):
    """The system's reason (a file where the ledger's folder should be) in the catalogue's words,
    as for every file the tool cannot read or write: no English text of the system's."""
    from auditor.batch.ledger import LedgerError

    (tmp_path / "taken").write_text("")
    with pytest.raises(LedgerError) as exc:
        Ledger(tmp_path / "taken" / "audit.db")
    assert said in exc.value.text(lang) and "File exists" not in exc.value.text(lang)


def _messages(files, lang: str) -> dict[tuple, set[str]]:
    """(table, round, code, seat, hand) -> the messages one audit of ``files`` gives, in ``lang``."""
    out: dict[tuple, set[str]] = {}
    for r in audit(files, profiles=load_profiles([PROFILES]), lang=lang).findings.itertuples():
        key = (r.table_id, r.round_id, r.code, None if pd.isna(r.seat) else int(r.seat),
               None if pd.isna(r.hand) else int(r.hand))
        out.setdefault(key, set()).add(r.message)
    return out


def _run_findings(out: Path, run: int) -> list[dict]:
    return json.loads((out / "runs" / f"{run:04d}" / "batch.json").read_text(encoding="utf-8"))["findings"]


@pytest.mark.parametrize("found_in, asked", [("es", "en"), ("en", "es")])
def test_a_finding_is_shown_in_the_language_asked_whatever_the_run_that_found_it(tmp_path, found_in, asked):
    """The ledger keeps a finding's message in both languages: `diff` and a later run's
    batch.html/batch.json in the other language show it in that one (they showed the text of
    the run that found it)."""
    logs = tmp_path / "logs"
    days = [day_log(logs, 0, rounds=120)]
    out, db = tmp_path / "out", tmp_path / "out" / "audit.db"
    batch(tmp_path, logs, lang=found_in)
    days.append(day_log(logs, 1, rounds=120))
    second = batch(tmp_path, logs, lang=found_in)              # day 1's findings new, in `found_in`
    assert second.new > 0
    wanted, other = _messages(days, asked), _messages(days, found_in)
    assert all(wanted[k].isdisjoint(other[k]) for k in wanted)  # (each language's words its own)
    res = CliRunner().invoke(app, ["history", "--db", str(db), "--lang", asked])  # (no finding's text in it)
    assert res.exit_code == 0 and res.stdout.splitlines()[0] == t("batch.history_header", asked)
    res = CliRunner().invoke(app, ["diff", "1", "2", "--db", str(db), "--lang", asked])
    assert res.exit_code == 0, res.output
    shown = res.stdout.split("\n\n", 1)[1].splitlines()[1:]
    assert len(shown) == second.new
    for line in shown:
        code, table, round_id, seat, message = line.split(None, 4)
        key = next(k for k in wanted if k[:3] == (table, round_id, code) and str(k[3] if k[3] is not None else "-")
                   == seat)
        assert message in wanted[key], line
    # A later run in the other language: its history shows every finding open in that one.
    third = batch(tmp_path, logs, lang=asked)
    assert third.audited == [] and third.open == len(open_findings(db))
    findings = _run_findings(out, 3)
    assert len(findings) == third.open
    for f in findings:
        assert f["message"] in wanted[(f["table_id"], f["round_id"], f["code"], f["seat"], f["hand"])], f
    page = (out / "runs" / "0003" / "batch.html").read_text(encoding="utf-8")
    assert all(escape(f["message"]) in page for f in findings)
    assert not any(escape(m) in page for k in other for m in other[k])


def test_a_finding_recorded_by_the_previous_version_is_shown_as_it_was_written(tmp_path):
    """A ledger written before the findings' messages were kept in both languages holds the
    text of the run that found each: shown as it is, in either language, until its content is
    audited again."""
    logs = tmp_path / "logs"
    days = [day_log(logs, 0, rounds=120)]
    out, db = tmp_path / "out", tmp_path / "out" / "audit.db"
    batch(tmp_path, logs)
    with Ledger(db) as ledger:  # the record as the previous version wrote it
        ledger.db.execute("UPDATE findings SET record = json_remove(record, '$.messages')")
        assert not ledger.db.execute("SELECT 1 FROM findings WHERE record LIKE '%\"messages\"%'").fetchone()
    spanish = _messages(days, "es")
    again = batch(tmp_path, logs, lang="en")
    assert again.audited == [] and again.open > 0
    for f in _run_findings(out, 2):
        assert f["message"] in spanish[(f["table_id"], f["round_id"], f["code"], f["seat"], f["hand"])], f
    days.append(day_log(logs, 1, rounds=120))
    batch(tmp_path, logs, lang="en")                            # day 0 stays as it was written
    res = CliRunner().invoke(app, ["diff", "3", "2", "--db", str(db), "--lang", "en"])
    assert res.exit_code == 0, res.output
    english = _messages(days, "en")
    new_then = [f for f in _run_findings(out, 3) if f["state"] == "new"]
    assert new_then and all(f["message"] in english[(f["table_id"], f["round_id"], f["code"], f["seat"], f["hand"])]
                            for f in new_then)
    assert all(f["message"] in spanish[(f["table_id"], f["round_id"], f["code"], f["seat"], f["hand"])]
               for f in _run_findings(out, 3) if f["state"] == "open")


class _CommitFails:
    """A ledger's connection whose run's COMMIT fails (after its last write, the run's row)
    with ``exc``: what a disk that fills then, or Ctrl-C at that moment, does."""

    def __init__(self, db, exc):
        self._db, self._exc, self._run_written = db, exc, False

    def execute(self, sql, *args):
        self._run_written |= sql.startswith("INSERT INTO runs")
        if sql == "COMMIT" and self._run_written:
            raise self._exc
        return self._db.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._db, name)


def _a_day_audited_and_the_next_exported(tmp_path) -> tuple[Path, Path, str]:
    """(the logs folder, the batch's output, its index after the first day's run), the second
    day's log exported since."""
    logs = tmp_path / "logs"
    day_log(logs, 0, rounds=60)
    out = tmp_path / "out"
    batch(tmp_path, logs)
    before = (out / "index.html").read_text(encoding="utf-8")
    day_log(logs, 1, rounds=60)
    return logs, out, before


@pytest.mark.parametrize("exc", [sqlite3.OperationalError("disk I/O error"), KeyboardInterrupt()])
def test_a_run_whose_commit_fails_is_not_in_the_index(tmp_path, monkeypatch, exc):
    """The index is written inside the run's transaction, so that one that cannot be written
    records nothing, but put in place only once the run has committed: a commit that fails
    (or Ctrl-C at that moment) left an index naming a run the ledger does not have."""
    logs, out, before = _a_day_audited_and_the_next_exported(tmp_path)
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **kw: _CommitFails(connect(*a, **kw), exc))
    with pytest.raises(BatchError if isinstance(exc, sqlite3.Error) else KeyboardInterrupt):
        batch(tmp_path, logs)
    monkeypatch.undo()
    assert [r[0] for r in dump(out / "audit.db")["runs"]] == [1]
    assert (out / "index.html").read_text(encoding="utf-8") == before and "runs/0002" not in before
    assert not (out / "index.html.tmp").exists()
    assert batch(tmp_path, logs).run_id == 2 and "runs/0002/batch.html" in (out / "index.html").read_text()


def test_an_index_that_cannot_be_put_in_place_after_the_commit_is_said_stale(tmp_path, monkeypatch):
    """Past the commit the run is recorded: an index that cannot replace the old one then (its
    name taken by a folder meanwhile, say) leaves it naming the runs before, is said so, and the
    run ends as it would have; the next run writes it whole."""
    logs, out, before = _a_day_audited_and_the_next_exported(tmp_path)
    replace = os.replace

    def index_cannot_be_replaced(src, dst):
        if Path(dst).name == "index.html":
            raise PermissionError(13, "Permission denied", str(dst))
        replace(src, dst)

    monkeypatch.setattr(os, "replace", index_cannot_be_replaced)
    res = CliRunner().invoke(app, ["batch", str(logs), "--out", str(out), "--profile", str(PROFILES), "--lang", "en"])
    monkeypatch.undo()
    assert res.exit_code == 1, res.output
    assert "run 2 is recorded" in res.stderr and "index.html" in res.stderr and "permission" in res.stderr
    assert [r[0] for r in dump(out / "audit.db")["runs"]] == [1, 2]
    assert (out / "index.html").read_text(encoding="utf-8") == before
    assert batch(tmp_path, logs).run_id == 3 and "runs/0002/batch.html" in (out / "index.html").read_text()


def test_findings_of_a_worker_of_an_older_version_keep_their_one_text(tmp_path):
    """A worker of a version before the findings' reason keys (a cluster upgraded halfway) gives
    frames without them: its findings are recorded with their one text, the others in both
    languages (the batch did not fail on the mix)."""
    from auditor.batch import runner
    from auditor.engine import REASON_KEY

    logs = tmp_path / "logs"
    days = [day_log(logs, n, rounds=120) for n in range(2)]
    new = audit(days[:1], profiles=load_profiles([PROFILES])).findings
    old = audit(days[1:], profiles=load_profiles([PROFILES])).findings.drop(columns=REASON_KEY)
    assert len(new) and len(old)
    task = runner.Task(GAME, (), ())
    records = runner._records([(task, {"findings": new}), (task, {"findings": old})], set())
    assert len(records) == len(new) + len(old)
    english = _messages(days[:1], "en")
    for rec in records[:len(new)]:
        assert rec["messages"]["es"] == rec["message"]
        assert rec["messages"]["en"] in english[(rec["table_id"], rec["round_id"], rec["code"], rec["seat"],
                                                 rec["hand"])]
    assert not any("messages" in rec for rec in records[len(new):])


def test_findings_of_a_worker_of_another_version_with_a_rule_or_reason_unknown_here_keep_their_one_text(tmp_path):
    """A worker of another version may give a finding of a rule code, or a reason key, that this
    version does not know: it is recorded with its one text (it ended the run in a traceback,
    StopIteration, looking for the rule)."""
    from auditor.batch import runner
    from auditor.engine import REASON_KEY

    logs = tmp_path / "logs"
    findings = audit([day_log(logs, 0, rounds=120)], profiles=load_profiles([PROFILES])).findings
    assert len(findings) >= 2
    findings = findings.copy()
    findings.loc[findings.index[0], "code"] = "LIR-NOT-A-RULE-HERE"
    findings.loc[findings.index[1], REASON_KEY] = "reason.not.in.this.catalogue"
    records = runner._records([(runner.Task(GAME, (), ()), {"findings": findings})], set())
    by_text = {(r["code"], r["message"]): r for r in records}
    assert "messages" not in by_text[("LIR-NOT-A-RULE-HERE", findings["message"].iloc[0])]
    assert "messages" not in by_text[(findings["code"].iloc[1], findings["message"].iloc[1])]
    assert sum("messages" in r for r in records) == len(records) - 2


def _deck_of_the_day_before_yesterday(folder: Path) -> tuple[list[Path], str]:
    """Days 0, 1 and 2 of Triple Shot, no fault, where the first round of day 2 at TS-02 uses
    the deck of that table's last round of day 0, not of day 1: audited after day 1 it is
    right, after day 0 (day 1 missing) it repeats a deck. Returns the days and that finding."""
    days = [day_log(folder, n, faults=0.0) for n in range(3)]
    frames = [pd.read_csv(d, dtype=str, keep_default_na=False) for d in days]

    def rounds(df):
        return df[df["table_id"] == "TS-02"].drop_duplicates("round_id")

    def swap(df):  # the table's two decks (and their colours) swapped for the whole day
        t = df["table_id"] == "TS-02"
        decks = df[t].drop_duplicates("deck_id").set_index("deck_id")["deck_color"]
        (x, cx), (y, cy) = decks.items()
        swapped = df.loc[t, "deck_id"].map({x: y, y: x})
        df.loc[t, "deck_color"] = swapped.map({x: cx, y: cy})
        df.loc[t, "deck_id"] = swapped

    last0 = rounds(frames[0])["deck_id"].iloc[-1]
    if rounds(frames[1])["deck_id"].iloc[0] == last0:
        swap(frames[1])
    if rounds(frames[1])["deck_id"].iloc[-1] == last0:  # day 1 ends on the other deck
        frames[1] = frames[1][frames[1]["round_id"] != rounds(frames[1])["round_id"].iloc[-1]]
    if rounds(frames[2])["deck_id"].iloc[0] != last0:
        swap(frames[2])
    for day, df in zip(days, frames):
        df.to_csv(day, index=False)
    repeated = ("TS-02", rounds(frames[2])["round_id"].iloc[0], "TS-TWO-DECKS", None, None)
    assert repeated not in full_audit(days) and repeated in full_audit([days[0], days[2]])
    return days, repeated


@pytest.mark.parametrize("chunk", [1, 256])
def test_a_replacement_the_first_look_reads_but_the_audit_refuses_leaves_its_successor_as_it_was(tmp_path, chunk):
    """Day 1 replaced at its path by an export holding, near its end, a byte that is text in
    no encoding the audit knows: the first look (its tables and times) reads it, the audit
    does not. Day 1 before it stays live, holding its findings, as for a replacement the
    first look refuses; so day 2, whose first rounds follow day 1's, is not audited again: it
    was audited after day 1, and audited without it (after day 0) it was found repeating day
    0's deck (a new finding; in tasks of one file, failed for its context) until the export
    was whole again."""
    from auditor.batch.spans import scan

    logs = tmp_path / "logs"
    days, repeated = _deck_of_the_day_before_yesterday(logs)
    db = tmp_path / "out" / "audit.db"
    batch(tmp_path, logs, chunk=chunk)
    held = open_findings(db)
    assert held == full_audit(days)
    original = days[1].read_bytes()
    days[1].write_bytes(original[:-200] + b"\x81" + original[-199:])
    assert scan((str(days[1]), "")).spans and _audit_error(days[1])  # (the first look reads it)
    for _ in range(2):  # (and so the next night, the export still damaged)
        r = batch(tmp_path, logs, chunk=chunk)
        assert (r.exit_code, r.new, r.resolved, r.audited) == (3, 0, 0, [])
        assert [p for p, _ in r.failed] == [str(days[1].resolve())]
        assert open_findings(db) == held
        # Day 2, audited before the replanning, is not recorded: its rounds were counted still
        assert _totals(_summary(tmp_path / "out", r.run_id)) == (0, 0, "0.00", {"first": None, "last": None})
    days[1].write_bytes(original)
    r = batch(tmp_path, logs, chunk=chunk)
    assert (r.exit_code, r.new, r.resolved, r.repeated) == (0, 0, 0, 0) and open_findings(db) == held


def test_a_corrected_export_arriving_with_the_next_day_is_audited_with_it(tmp_path):
    """Day 1 replaced at its path by a corrected export that can be audited (its columns in
    another order), the night day 2 arrives: day 1's old content is superseded, not kept as
    one whose replacement cannot be audited, and day 2 is audited after the corrected day 1
    (it was failed for its context, the corrected content taken for a failure)."""
    logs = tmp_path / "logs"
    days, _ = _deck_of_the_day_before_yesterday(logs)
    later = days[2].read_bytes()
    days[2].unlink()
    db = tmp_path / "out" / "audit.db"
    assert batch(tmp_path, logs).exit_code in (0, 1)
    df = pd.read_csv(days[1], dtype=str, keep_default_na=False)
    df[list(reversed(df.columns))].to_csv(days[1], index=False)
    days[2].write_bytes(later)
    r = batch(tmp_path, logs)
    assert r.exit_code in (0, 1) and r.failed == []
    assert open_findings(db) == full_audit(days)


@pytest.mark.parametrize("damage", ["empty", "no encoding near its end"])
def test_a_day_after_a_replacement_that_cannot_be_audited_waits_for_the_export(tmp_path, damage):
    """Day 2 arrives the night day 1 is replaced by an export that cannot be audited (empty:
    the first look refuses it; a byte of no encoding near its end: the first look reads it,
    the audit does not). Day 1 as it was is live still, but its rounds are not there to be
    read: day 2, whose first rounds follow them, was audited after day 0's last rounds (a deck
    repeated across days found where there is none). It fails now, for its context (exit 3,
    tried again), and is audited after day 1 once the export is whole again."""
    logs = tmp_path / "logs"
    days, repeated = _deck_of_the_day_before_yesterday(logs)
    (tmp_path / "hold").mkdir()
    days[2].parent.rename(tmp_path / "hold" / days[2].parent.name)
    db = tmp_path / "out" / "audit.db"
    batch(tmp_path, logs)
    held = open_findings(db)
    original = days[1].read_bytes()
    days[1].write_bytes(b"" if damage == "empty" else original[:-200] + b"\x81" + original[-199:])
    (tmp_path / "hold" / days[2].parent.name).rename(days[2].parent)
    for _ in range(2):
        r = batch(tmp_path, logs)
        assert (r.exit_code, r.new, r.resolved, r.audited) == (3, 0, 0, [])
        failed = dict(r.failed)
        assert sorted(failed) == [str(days[1].resolve()), str(days[2].resolve())]
        assert failed[str(days[2].resolve())] == t("batch.context_error", "es",
                                                    error=f"{days[1].resolve()}: {failed[str(days[1].resolve())]}")
        assert open_findings(db) == held
    days[1].write_bytes(original)
    r = batch(tmp_path, logs)
    assert r.exit_code in (0, 1) and r.repeated == 0 and r.audited == [str(days[2].resolve())]
    assert open_findings(db) == full_audit(days) and repeated not in open_findings(db)


# --- Dask: what a nightly job meets on a cluster --------------------------------------------

@pytest.fixture(scope="module")
def dask_cluster():
    """One in-process LocalCluster for the tests below (its start-up is the slow part); each test
    breaks the audit on the worker through the worker's own modules, which are this process's."""
    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed "
                                                                 "(pip install casino-auditor[dask])")
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        yield cluster


def _three_days(tmp_path) -> list[Path]:
    return [day_log(tmp_path / "logs", n, rounds=60) for n in range(3)]


def _a_new_day_after_two_audited(tmp_path, scheduler: str) -> list[Path]:
    """Three days' logs, the first two audited by a batch run on ``scheduler``, the third then
    written: a new file for the next run, with the day before it as its context."""
    days = _three_days(tmp_path)
    later = days[2].read_bytes()
    days[2].unlink()
    assert batch(tmp_path, tmp_path / "logs", scheduler=scheduler).exit_code in (0, 1)
    days[2].write_bytes(later)
    return days


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_task_that_raises_on_a_dask_worker_fails_its_files_not_the_run(tmp_path, monkeypatch, dask_cluster, lang):
    """A task that raised on the worker (a fault of the worker's installation) ended the batch in
    Dask's traceback with exit 1, the code of new findings. Its files are not audited (exit 3),
    said in the catalogue's words, and the next run audits them."""
    import auditor.engine

    days = _three_days(tmp_path)
    audit_ = auditor.engine.audit

    def broken(files, **kw):
        raise RuntimeError("worker broken")

    monkeypatch.setattr(auditor.engine, "audit", broken)
    res = CliRunner().invoke(app, ["batch", str(tmp_path / "logs"), "--out", str(tmp_path / "out"),
                                   "--profile", str(PROFILES), "--lang", lang,
                                   "--scheduler", dask_cluster.scheduler_address], catch_exceptions=False)
    reason = t("batch.task_error", lang, error="RuntimeError: worker broken")
    assert res.exit_code == 3, res.output
    for d in days:
        assert t("batch.failed_file", lang, path=str(d.resolve()), reason=reason) in res.stderr
    assert "Traceback" not in res.output
    db = tmp_path / "out" / "audit.db"
    with Ledger(db) as ledger:
        assert {f["path"]: f["status"] for f in ledger.files().values()} == {str(d.resolve()): "error" for d in days}
    monkeypatch.setattr(auditor.engine, "audit", audit_)
    again = batch(tmp_path, tmp_path / "logs", scheduler=dask_cluster.scheduler_address)
    assert again.audited == sorted(str(d.resolve()) for d in days) and again.exit_code == 1
    assert open_findings(db) == full_audit(days)


def test_a_task_whose_dask_workers_die_fails_its_files_not_the_run(tmp_path):
    """Every worker that ran the task died (SIGKILL, as the system's out-of-memory killer does):
    Dask's KilledWorker ended the batch in a traceback, exit 1. The files fail (exit 3), said
    in the catalogue's words, nothing of them recorded as audited."""
    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed")
    import dask

    preload = tmp_path / "dies.py"
    preload.write_text("import os, signal\nimport auditor.engine\n"
                       "auditor.engine.audit = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)\n")
    days = _three_days(tmp_path)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None,
                                     preload=[str(preload)]) as cluster:
        out = batch(tmp_path, tmp_path / "logs", scheduler=cluster.scheduler_address, lang="en")
    assert out.exit_code == 3 and out.audited == []
    assert out.failed == [(str(d.resolve()), t("batch.task_killed", "en")) for d in days]


def test_a_dask_result_of_another_version_fails_its_files(tmp_path, monkeypatch, dask_cluster):
    """A worker of an older version gives a result without what judged it (`judged_by`): the batch
    ended in a KeyError's traceback. Its files are not audited, said so (exit 3)."""
    from auditor.batch import runner

    days = _three_days(tmp_path)
    task_ = runner.audit_task

    def older(task):
        res = task_(task)
        del res["judged_by"]
        return res

    monkeypatch.setattr(runner, "audit_task", older)
    out = batch(tmp_path, tmp_path / "logs", scheduler=dask_cluster.scheduler_address, lang="en")
    assert out.exit_code == 3 and out.audited == []
    assert out.failed == [(str(d.resolve()), t("batch.task_foreign", "en", error="judged_by")) for d in days]


def _of_a_module_this_version_lacks():
    raise ModuleNotFoundError("No module named 'auditor.newer'")


class _Undecodable:
    """A value as a worker of another version pickles it: this version cannot load it."""

    def __reduce__(self):
        return _of_a_module_this_version_lacks, ()


def test_a_dask_result_this_version_cannot_decode_fails_its_files_not_the_run(tmp_path, monkeypatch, caplog):
    """A worker of another version gives back a result whose unpickling fails on the client (a
    class this version lacks): the batch said the scheduler lost (exit 2, nothing recorded).
    The task's files fail as given back by another version, the error quoted (exit 3), the next
    run audits them; Dask's own «Failed to deserialize» (CRITICAL, a traceback before the
    batch's line) is not logged. (The cluster speaks TCP: in-process, Dask hands results over
    without pickling them.)"""
    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed")
    from auditor.batch import runner

    days = _three_days(tmp_path)
    task_ = runner.audit_task
    monkeypatch.setattr(runner, "audit_task", lambda task: {**task_(task), "judged_by": _Undecodable()})
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None,
                                  protocol="tcp://") as cluster:
        out = batch(tmp_path, tmp_path / "logs", scheduler=cluster.scheduler_address, lang="en")
        assert out.exit_code == 3 and out.audited == []
        error = "ModuleNotFoundError: No module named 'auditor.newer'"
        assert out.failed == [(str(d.resolve()), t("batch.task_foreign", "en", error=error)) for d in days]
        assert not [r for r in caplog.records if r.getMessage().startswith("Failed to deserialize")]
        monkeypatch.setattr(runner, "audit_task", task_)
        again = batch(tmp_path, tmp_path / "logs", scheduler=cluster.scheduler_address)
    assert again.exit_code == 1 and again.audited == sorted(str(d.resolve()) for d in days)
    assert open_findings(tmp_path / "out" / "audit.db") == full_audit(days)


@pytest.mark.parametrize("unseen", ["the day", "the day before it"])
def test_a_file_the_dask_workers_cannot_see_is_said_missing_there_not_here(tmp_path, monkeypatch, dask_cluster,
                                                                              unseen):
    """The folder of logs not mounted on the worker: the file, there on the batch machine (it was
    hashed), was said as the worker read it («no se pudo leer el archivo (no existe)»), as if the
    export were gone. It is said missing on the worker (which one), the folder to be shared; so
    is a context file the worker cannot see. Exit 3, and audited once the worker sees it."""
    import socket

    from auditor.batch import runner

    days = _a_new_day_after_two_audited(tmp_path, dask_cluster.scheduler_address)
    task_ = runner.audit_task
    hidden = days[2] if unseen == "the day" else days[1]
    aside = tmp_path / "aside"

    def unmounted(task):  # (the worker is this process's thread: it does not see the file while it audits)
        hidden.rename(aside)
        try:
            return task_(task)
        finally:
            aside.rename(hidden)

    monkeypatch.setattr(runner, "audit_task", unmounted)
    for lang in ("es", "en"):
        out = batch(tmp_path, tmp_path / "logs", scheduler=dask_cluster.scheduler_address, lang=lang)
        assert out.exit_code == 3 and out.audited == []
        missing = t("batch.not_on_worker", lang, host=socket.gethostname())
        reason = missing if unseen == "the day" else \
            t("batch.context_error", lang, error=f"{days[1].resolve()}: {missing}")
        assert out.failed == [(str(days[2].resolve()), reason)]
        assert t("os_error.ENOENT", lang) not in reason
    monkeypatch.setattr(runner, "audit_task", task_)
    out = batch(tmp_path, tmp_path / "logs", scheduler=dask_cluster.scheduler_address)
    assert out.exit_code in (0, 1) and out.audited == [str(days[2].resolve())]
    assert open_findings(tmp_path / "out" / "audit.db") == full_audit(days)


def test_a_first_look_that_fails_on_a_dask_worker_fails_its_file(tmp_path, monkeypatch, dask_cluster):
    """A new day's first look (its tables and times) that failed on the cluster left the file to
    be audited by itself, without the day before it, recorded as audited and without its spans
    (so never the context of the day after). It fails (exit 3), and the next run audits it."""
    from auditor.batch import spans

    days = _a_new_day_after_two_audited(tmp_path, dask_cluster.scheduler_address)
    scan_ = spans.scan

    def broken(item):
        if Path(item[0]).name == days[2].name and Path(item[0]).parent == days[2].parent:
            raise RuntimeError("worker broken")
        return scan_(item)

    monkeypatch.setattr(spans, "scan", broken)
    out = batch(tmp_path, tmp_path / "logs", scheduler=dask_cluster.scheduler_address, lang="en")
    assert out.exit_code == 3 and out.audited == []
    assert [p for p, _ in out.failed] == [str(days[2].resolve())]
    monkeypatch.setattr(spans, "scan", scan_)
    out = batch(tmp_path, tmp_path / "logs", scheduler=dask_cluster.scheduler_address)
    assert out.exit_code in (0, 1) and out.failed == [] and len(out.audited) == 1
    assert open_findings(tmp_path / "out" / "audit.db") == full_audit(days)


def test_a_dask_worker_of_another_version_is_said_and_its_contents_judged_again(tmp_path, monkeypatch,
                                                                                dask_cluster):
    from auditor.batch import runner

    days = _three_days(tmp_path)
    said: list[str] = []
    task_ = runner.audit_task
    monkeypatch.setattr(runner, "audit_task", lambda task: {**task_(task), "judged_by": "another version"})
    opts = BatchOptions(paths=[tmp_path / "logs"], out=tmp_path / "out", profiles=[PROFILES],
                        scheduler=dask_cluster.scheduler_address)
    first = run_batch(opts, say=said.append)
    assert first.exit_code == 1 and t("batch.judged_elsewhere", "es") in said
    monkeypatch.setattr(runner, "audit_task", task_)
    again = run_batch(opts)
    assert again.audited == sorted(str(d.resolve()) for d in days) and again.new == 0


def test_ctrl_c_during_a_dask_run_records_nothing_and_closes_the_client(tmp_path, monkeypatch, dask_cluster):
    import _thread
    import threading

    import auditor.engine

    _three_days(tmp_path)
    audit_ = auditor.engine.audit
    clients = set(dask_cluster.scheduler.clients)

    def slow(files, **kw):
        threading.Timer(0.2, _thread.interrupt_main).start()  # Ctrl-C while the batch waits for it
        time.sleep(1)
        return audit_(files, **kw)

    monkeypatch.setattr(auditor.engine, "audit", slow)
    with pytest.raises(KeyboardInterrupt):
        batch(tmp_path, tmp_path / "logs", scheduler=dask_cluster.scheduler_address)
    assert dump(tmp_path / "out" / "audit.db")["runs"] == []
    deadline = time.time() + 5
    while set(dask_cluster.scheduler.clients) != clients and time.time() < deadline:
        time.sleep(0.1)
    assert set(dask_cluster.scheduler.clients) == clients


def test_a_scheduler_lost_during_a_dask_run_fails_it_recording_nothing(tmp_path, monkeypatch, caplog):
    """The scheduler gone while the tasks ran (stopped, the network cut) ended the batch in Dask's
    traceback (FutureCancelledError), exit 1: it is an error, exit 2, nothing recorded. Dask's
    client logged its reconnection's failure in English before the batch's line (an ERROR, with
    a traceback): the batch's line says it alone."""
    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed")
    import threading

    import auditor.engine

    _three_days(tmp_path)
    audit_ = auditor.engine.audit
    cluster = distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None)

    def slow(files, **kw):
        threading.Thread(target=cluster.close).start()  # the scheduler goes away mid-task
        time.sleep(2)
        return audit_(files, **kw)

    monkeypatch.setattr(auditor.engine, "audit", slow)
    try:
        with pytest.raises(BatchError) as caught:
            batch(tmp_path, tmp_path / "logs", scheduler=cluster.scheduler_address, lang="en")
    finally:
        cluster.close()
    assert str(caught.value) == t("batch.scheduler_lost", "en", address=cluster.scheduler_address)
    assert dump(tmp_path / "out" / "audit.db")["runs"] == []
    assert [r for r in caplog.records if r.name == "distributed.client"] == []


def test_what_dasks_client_logs_during_a_run_the_batch_does_not_say_is_not_hidden(tmp_path, monkeypatch, caplog,
                                                                                  dask_cluster):
    import logging

    from auditor.batch import runner

    _three_days(tmp_path)
    task_ = runner.audit_task

    def logging_client(task):  # (the worker is this process's thread: logged while the batch waits)
        logging.getLogger("distributed.client").warning("Couldn't gather 1 keys, rescheduling")
        return task_(task)

    monkeypatch.setattr(runner, "audit_task", logging_client)
    assert batch(tmp_path, tmp_path / "logs", scheduler=dask_cluster.scheduler_address).exit_code == 1
    assert [r.getMessage() for r in caplog.records if r.name == "distributed.client"] == \
        ["Couldn't gather 1 keys, rescheduling"]
    assert logging.getLogger("distributed.client").filters == []


def test_ctrl_c_during_a_dask_run_says_one_line_and_exits_130(tmp_path, monkeypatch):
    """The command at Ctrl-C on Dask: after its line, asyncio logged Dask's client's cancelled
    waits as tracebacks («Task exception was never retrieved … distributed.client.AllExit»)."""
    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed")
    import auditor.engine

    _three_days(tmp_path)
    audit_ = auditor.engine.audit

    def slow(files, **kw):  # (the worker is this process's thread)
        time.sleep(3)
        return audit_(files, **kw)

    monkeypatch.setattr(auditor.engine, "audit", slow)
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None,
                                  protocol="tcp://") as cluster:
        cmd = [sys.executable, "-m", "auditor", "batch", str(tmp_path / "logs"), "--out", str(tmp_path / "out"),
               "--profile", str(PROFILES), "--lang", "en", "--scheduler", cluster.scheduler_address]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        first = proc.stderr.readline()
        assert "tasks" in first, first  # planned: the audit's tasks are on the cluster
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert rest == f"auditor: {t('batch.interrupted', 'en')}\n", rest
    assert dump(tmp_path / "out" / "audit.db")["runs"] == []
