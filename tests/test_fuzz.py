"""Fuzzing the reader: mutated sample logs (flipped bytes, cut lines, swapped columns, other
encodings and separators, duplicated lines, deleted fields) never raise, and every record
read is accounted for: read = audited + rejected, per file and in total.

More than 2,000 mutated files: most audited through ``engine.audit`` in groups (the reports
built and written for each group), a few through the command line.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor import engine
from auditor.cli import app
from auditor.reporting import build_report, write_csv, write_html, write_json, write_junit, write_sarif
from auditor.simulate import SIMULATORS, run

MUTANTS_PER_BASE = 2_100 // 6 + 1  # six base logs (three games, CSV and JSONL)
GROUP = 50


def _flip_bytes(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


def _cut(rng, data):
    return data[: rng.randrange(len(data))]


def _lines(data):
    return data.splitlines(keepends=True)


def _cut_lines(rng, data):
    lines = _lines(data)
    i = rng.randrange(len(lines))
    return b"".join(lines[:i] + [lines[i][: rng.randrange(len(lines[i]) + 1)]] + lines[i + 1:])


def _duplicate_lines(rng, data):
    lines = _lines(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return b"".join(lines)


def _shuffle_lines(rng, data):
    lines = _lines(data)
    head, body = lines[:1], lines[1:]
    rng.shuffle(body)
    return b"".join(head + body)


def _delete_fields(rng, data):
    lines = _lines(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        parts = lines[i].split(b",")
        if len(parts) > 1:
            del parts[rng.randrange(len(parts))]
        lines[i] = b",".join(parts)
    return b"".join(lines)


def _swap_columns(rng, data):
    """Swap two CSV columns in every line (header included), or two keys' values in JSON."""
    lines = [ln.rstrip(b"\r\n").split(b",") for ln in _lines(data)]
    width = len(lines[0])
    i, j = rng.randrange(width), rng.randrange(width)
    for parts in lines:
        if len(parts) == width:
            parts[i], parts[j] = parts[j], parts[i]
    swapped = b"\n".join(b",".join(p) for p in lines) + b"\n"
    if rng.random() < 0.5:  # the header keeps its order: the values move under other names
        swapped = _lines(data)[0] + b"".join(_lines(swapped)[1:])
    return swapped


def _reencode(rng, data):
    text = data.decode("utf-8", errors="replace").replace("CR-", rng.choice(["Peña-", "José-", "Ñ-", "CR-"]))
    encoding = rng.choice(["cp1252", "latin-1", "utf-16", "utf-8-sig"])
    return text.encode(encoding, errors="replace")


def _separator(rng, data):
    sep = rng.choice([b";", b"\t", b"|"])
    out = data.replace(b",", sep)
    return out.replace(b".", b",") if sep == b";" and rng.random() < 0.5 else out


def _crlf(rng, data):
    return data.replace(b"\n", b"\r\n") if rng.random() < 0.7 else data.replace(b"\n", b"\r")


def _garbage_line(rng, data):
    lines = _lines(data)
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(0, 80))) + b"\n"
    lines.insert(rng.randrange(len(lines) + 1), junk)
    return b"".join(lines)


def _json_types(rng, data):
    """Replace one JSON value by another type."""
    lines = _lines(data)
    i = rng.randrange(len(lines))
    try:
        doc = json.loads(lines[i])
    except ValueError:
        return data
    if isinstance(doc, dict) and doc:
        target = doc
        if doc.get("hands") and rng.random() < 0.6 and isinstance(doc["hands"], list):
            target = rng.choice(doc["hands"])
        if isinstance(target, dict) and target:
            key = rng.choice(sorted(target))
            target[key] = rng.choice([None, True, 1e308, -1, [], {}, "", "x" * 300, "<b>", "=1+1", 2**70])
    lines[i] = (json.dumps(doc) + "\n").encode()
    return b"".join(lines)


MUTATIONS = [_flip_bytes, _cut, _cut_lines, _duplicate_lines, _shuffle_lines, _delete_fields, _swap_columns,
             _reencode, _separator, _crlf, _garbage_line, _json_types]


def _mutate(rng, data: bytes) -> bytes:
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if not data:
            break
        data = rng.choice(MUTATIONS)(rng, data)
    return data


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bases")
    out = []
    for game in sorted(SIMULATORS):
        for suffix in (".csv", ".jsonl"):
            log, _ = run(game, rounds=20, seed=7, faults=0.2, out=folder / f"{game}{suffix}")
            out.append((game, suffix, log.read_bytes()))
    return out


def _mutants(bases, folder: Path, rng: random.Random) -> list[Path]:
    paths = []
    for b, (game, suffix, data) in enumerate(bases):
        for k in range(MUTANTS_PER_BASE):
            mutated = _mutate(rng, data)
            name = f"m{b}_{k:04d}_{game}{suffix}"
            if rng.random() < 0.1:
                mutated, name = gzip.compress(mutated), name + ".gz"
                if rng.random() < 0.2:
                    mutated = mutated[: rng.randrange(len(mutated))]
            path = folder / name
            path.write_bytes(mutated)
            paths.append(path)
    return paths


def _check_accounting(result, files):
    by_path = {i.path: i for i in result.inputs}
    assert set(by_path) == {str(f) for f in files}
    for item in result.inputs:
        assert item.records_read == item.records_audited + item.records_rejected, item
        assert min(item.records_read, item.records_audited, item.records_rejected) >= 0
        if item.error:
            assert item.records_read == item.records_audited + item.records_rejected
    rejected = result.rejected
    per_file = rejected.drop_duplicates(["file", "line"]).groupby("file").size().to_dict() if len(rejected) else {}
    for item in result.inputs:
        assert per_file.get(item.path, 0) == item.records_rejected, item.path


def test_fuzzed_logs_never_raise_and_always_balance(bases, tmp_path):
    rng = random.Random(20261101)
    (tmp_path / "in").mkdir()
    files = _mutants(bases, tmp_path / "in", rng)
    assert len(files) >= 2_000
    for start in range(0, len(files), GROUP):
        group = files[start:start + GROUP]
        try:
            result = engine.audit(group)
            report = build_report(result, generated_at="2026-01-01T00:00:00-05:00")
            out = tmp_path / "out"
            out.mkdir(exist_ok=True)
            for writer, name in ((write_json, "r.json"), (write_html, "r.html"), (write_csv, "r.csv"),
                                 (write_sarif, "r.sarif"), (write_junit, "r.xml")):
                writer(result, out / name, report=report)
        except Exception as exc:  # name the files of the group that broke
            raise AssertionError(f"audit of {[f.name for f in group]} raised {exc!r}") from exc
        _check_accounting(result, group)
        s = report["summary"]
        assert s["records_read"] == s["records_audited"] + s["records_rejected"]


def test_fuzzed_logs_through_the_cli(bases, tmp_path):
    rng = random.Random(7)
    folder = tmp_path / "in"
    folder.mkdir()
    files = _mutants(bases, folder, rng)[:: MUTANTS_PER_BASE // 5]
    runner = CliRunner()
    for f in files:
        out = tmp_path / "out" / f.name
        result = runner.invoke(app, ["audit", str(f), "--out", str(out), "--format", "html,json,csv,sarif,junit"])
        assert result.exception is None or isinstance(result.exception, SystemExit), (f.name, result.exc_info)
        assert result.exit_code in (0, 1, 2), (f.name, result.output)
        report = json.loads((out / "audit-report.json").read_text(encoding="utf-8"))
        s = report["summary"]
        assert s["records_read"] == s["records_audited"] + s["records_rejected"], f.name
