"""History across runs: what changed between two runs of the ledger."""

from __future__ import annotations

__all__ = ["diff_runs"]


def _sort_key(rec: dict):
    return (rec.get("game") or "", rec.get("table_id") or "", rec.get("started_at") or "", rec.get("round_id") or "",
            -1 if rec.get("seat") is None else rec["seat"], -1 if rec.get("hand") is None else rec["hand"],
            rec.get("code") or "")


def diff_runs(ledger, run_a: int, run_b: int, lang: str | None = None) -> dict[str, list[dict]]:
    """Findings open after ``run_b`` but not after ``run_a`` (new), the reverse (resolved),
    and those open after both (unchanged); each a sorted list of finding records (their
    messages in ``lang``, see ``Ledger.records``)."""
    a, b = ledger.open_at(run_a), ledger.open_at(run_b)
    recs = ledger.records(a | b, lang)
    out = {}
    for key, fps in (("new", b - a), ("resolved", a - b), ("unchanged", a & b)):
        out[key] = sorted(({**recs[fp], "fingerprint": fp} for fp in fps), key=_sort_key)
    return out
