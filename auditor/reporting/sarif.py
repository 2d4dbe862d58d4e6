"""The SARIF 2.1.0 report: the findings for code-scanning pipelines.

Every rule of every audited game is declared in ``tool.driver.rules`` (id, name, short and
full description — the directive's quote when there is one —, and ``properties`` with the
article, the grounding and the severity). Every finding is a result with its rule, a level
(``error`` for critical and high, ``warning`` for medium, ``note`` for low and info), its message,
the log file and line it came from, and a ``partialFingerprints`` entry that stays the same from
one run to the next: the SHA-256 of game|code|table|round|seat|hand.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePath
from urllib.parse import quote

from ..i18n import t
from ..registry import GAMES, plugin
from .json_report import build_report, failed_inputs

__all__ = ["build_sarif", "write_sarif", "LEVELS", "SARIF_SCHEMA", "fingerprint"]

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
FINGERPRINT_KEY = "casinoAuditorFinding/v1"


def fingerprint(f: dict) -> str:
    parts = [f["game"], f["code"], f["table_id"], f["round_id"],
             "" if f["seat"] is None else str(f["seat"]), "" if f["hand"] is None else str(f["hand"])]
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()


def _uri(path: str) -> str:
    p = PurePath(path)
    if p.is_absolute():
        return Path(path).as_uri()
    return quote(p.as_posix(), safe="/")


def _rules(report: dict, lang: str) -> list[dict]:
    rules = []
    seen = set()
    games = list(dict.fromkeys([*report["games"], *(r["game"] for r in report["rules"])]))
    for game in games:
        if game not in GAMES:
            continue
        spec = plugin(game).spec
        for r in spec.rule:
            if r.code in seen:
                continue
            seen.add(r.code)
            grounding = t(f"report.source_name.{r.source}", lang)
            title = r.title_in(lang)
            full = r.quote or t("report.sarif_full_description", lang, title=title, grounding=grounding)
            rules.append({
                "id": r.code,
                "name": r.code.replace("-", "_"),
                "shortDescription": {"text": title},
                "fullDescription": {"text": full},
                "defaultConfiguration": {"level": LEVELS[r.severity]},
                "properties": {"article": r.article, "source": r.source, "grounding": grounding,
                               "severity": r.severity, "game": game, "directive": spec.directive,
                               "citation": spec.citation, "params": list(r.params),
                               "tags": [game, r.source, r.severity]},
            })
    return rules


def build_sarif(report: dict) -> dict:
    lang = report["lang"]
    rules = _rules(report, lang)
    index = {r["id"]: i for i, r in enumerate(rules)}
    artifacts = [{"location": {"uri": _uri(i["path"])}, "hashes": {"sha-256": i["sha256"]}} if i["sha256"]
                 else {"location": {"uri": _uri(i["path"])}} for i in report["inputs"]]
    artifact_index = {i["path"]: n for n, i in enumerate(report["inputs"])}
    results = []
    for f in report["findings"]:
        result = {"ruleId": f["code"], "level": LEVELS.get(f["severity"], "warning"),
                  "message": {"text": f["message"]},
                  "partialFingerprints": {FINGERPRINT_KEY: fingerprint(f)},
                  "properties": {"severity": f["severity"], "article": f["article"], "table": f["table_id"],
                                 "round": f["round_id"], "seat": f["seat"], "hand": f["hand"],
                                 "startedAt": f["started_at"], "dealer": f["dealer_id"], "expected": f["expected"],
                                 "observed": f["observed"], "impact": f["impact"], "evidence": f["evidence"]}}
        if f["code"] in index:
            result["ruleIndex"] = index[f["code"]]
        if f["file"]:
            physical = {"artifactLocation": {"uri": _uri(f["file"])}}
            if f["file"] in artifact_index:
                physical["artifactLocation"]["index"] = artifact_index[f["file"]]
            if f["line"] is not None and f["line"] >= 1:
                physical["region"] = {"startLine": f["line"]}
            result["locations"] = [{"physicalLocation": physical}]
        results.append(result)
    notifications = [{"level": "error", "message": {"text": f"{r['code']}: {r['note'] or r['status']}"},
                      "descriptor": {"id": r["code"]}} for r in report["rules"] if r["status"] == "error"]
    notifications += [{"level": "error", "message": {"text": f"{e['path']}: {e['error']}"}}
                      for e in failed_inputs(report)]
    invocation = {"executionSuccessful": not notifications}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "casino-auditor", "version": report["tool_version"],
                                "semanticVersion": report["tool_version"], "rules": rules}},
            "invocations": [invocation],
            "language": "es-PE" if lang == "es" else "en",
            "artifacts": artifacts,
            "results": results,
            "properties": {"generatedAt": report["generated_at"], "period": report["period"],
                           "filters": report.get("filters"), "rules": [
                               {"id": r["code"], "status": r["status"], "roundsChecked": r["rounds_checked"],
                                "violations": r["violations"]} for r in report["rules"]]},
        }],
    }


def write_sarif(result, path, *, report: dict | None = None) -> Path:
    path = Path(path)
    data = build_sarif(report if report is not None else build_report(result))
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    return path
