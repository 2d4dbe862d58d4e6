"""Same inputs, same answer: two runs of the command line give byte-identical reports, but
for the generation time and, in JUnit, the suites' measured times (masked here), and open no
network connection. The two runs of the
first test are two processes with other seeds of Python's string hashing, so that no order
that comes from a set or a hash reaches a report."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import REPORT_FILES, app
from auditor.simulate import SIMULATORS, run

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile" / "files"


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"network connection attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _mask(name: str, data: bytes) -> bytes:
    text = data.decode("utf-8-sig")
    if name.endswith(".json"):
        text = re.sub(r'"generated_at": "[^"]*"', '"generated_at": "MASKED"', text)
    elif name.endswith(".sarif"):
        text = re.sub(r'"generatedAt": "[^"]*"', '"generatedAt": "MASKED"', text)
    elif name.endswith(".xml"):
        text = re.sub(r'timestamp="[^"]*"', 'timestamp="MASKED"', text)
        # (the suites' time is the audit's, measured: only a test case's is a constant 0)
        text = re.sub(r'(<testsuites? [^>]*)time="[^"]*"', r'\1time="MASKED"', text)
    elif name.endswith(".html"):
        # The generation time appears formatted in the page (header and print footer) and
        # inside the embedded JSON data.
        text = re.sub(r'"generated_at":\s*"[^"]*"', '"generated_at":"MASKED"', text)
        text = re.sub(r"\d{1,2}[ /.-]\w+[ /.-]\d{4},? \d{1,2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}",
                      "MASKED-TIME", text)
    return text.encode("utf-8")


def _run(logs: list[Path], out: Path) -> dict[str, bytes]:
    result = CliRunner().invoke(app, ["audit", *map(str, logs), "--profile", str(ROOT / "profiles"), "--out", str(out),
                                      "--format", "html,json,csv,sarif,junit"])
    assert result.exit_code in (0, 1), result.output
    return {name: (out / name).read_bytes() for name in REPORT_FILES.values()}


def _run_process(logs: list[Path], out: Path, hash_seed: int) -> dict[str, bytes]:
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    done = subprocess.run([sys.executable, "-m", "auditor", "audit", *map(str, logs), "--profile", str(ROOT / "profiles"),
                           "--out", str(out), "--format", "html,json,csv,sarif,junit"],
                          env=env, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return {name: (out / name).read_bytes() for name in REPORT_FILES.values()}


def test_two_runs_give_the_same_bytes(tmp_path):
    logs = [run(g, rounds=60, seed=11, faults=0.2, out=tmp_path / "logs" / f"{g}.csv")[0] for g in sorted(SIMULATORS)]
    logs += [HOSTILE / "xss_and_formulas.csv", HOSTILE / "cp1252_accents.csv", HOSTILE / "broken_json_lines.jsonl"]
    first = _run_process(logs, tmp_path / "a", hash_seed=1)
    second = _run_process(logs, tmp_path / "b", hash_seed=2)
    for name in first:
        masked = _mask(name, first[name])
        assert masked == _mask(name, second[name]), name
        if name.endswith(".csv"):  # no generation time in it at all
            assert first[name] == second[name], name
    assert b"MASKED" in _mask("audit-report.json", first["audit-report.json"])


def test_input_order_does_not_change_the_answer(tmp_path):
    logs = [run(g, rounds=40, seed=5, faults=0.2, out=tmp_path / "logs" / f"{g}.jsonl")[0] for g in sorted(SIMULATORS)]
    first = _run(logs, tmp_path / "a")
    second = _run(logs[::-1], tmp_path / "b")
    for name in first:
        assert _mask(name, first[name]) == _mask(name, second[name]), name
