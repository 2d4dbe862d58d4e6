"""Hand-written Pot Luck rows for the CLI and report tests: one clean hand by default, any
field overridable, written as a CSV log."""

from __future__ import annotations

import csv
from pathlib import Path

HEADER = ("table_id,round_id,started_at,dealer_id,shoe_id,dealer_cards,seat,hand,split_from,cards,"
          "actions,bet,double,insurance,pool_bet,net_main,net_insurance,pool_paid").split(",")


def hand(round_id: str, *, table: str = "T1", day: int = 1, minute: int = 0, dealer_id: str = "D1",
         dealer: str = "TH 7C", cards: str = "9S 7D 2C", actions: str = "HS", bet: str = "10.00",
         net_main: str = "10.00", **kw) -> dict:
    """A hand of 18 (9, 7, 2 after a hit) against the dealer's 17, paid 1 to 1."""
    row = {"table_id": table, "round_id": round_id, "started_at": f"2026-11-{day:02d}T20:{minute:02d}:00-05:00",
           "dealer_id": dealer_id, "shoe_id": "S1", "dealer_cards": dealer, "seat": "1", "hand": "0",
           "split_from": "", "cards": cards, "actions": actions, "bet": bet, "double": "0", "insurance": "0",
           "pool_bet": "0", "net_main": net_main, "net_insurance": "0", "pool_paid": "0"}
    row.update(kw)
    return row


def write_log(path: Path, rows: list[dict], header=HEADER) -> Path:
    """The rows as a CSV log; a ``header`` without some columns leaves them out."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=header, lineterminator="\n",
                                extrasaction="raise" if header is HEADER else "ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path
