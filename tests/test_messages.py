"""Every message key the code names exists in the catalogue, in Spanish and English."""

import re
from pathlib import Path

from auditor.i18n import catalogue

PACKAGE = Path(__file__).resolve().parent.parent / "auditor"
KEY = re.compile(r"""["']((?:reject|reason|input|note|report|cli|batch)\.[a-z_.]+[a-z_])["']""")


def test_every_key_in_code_is_in_the_catalogue():
    keys = {k for f in PACKAGE.rglob("*.py") for k in KEY.findall(f.read_text(encoding="utf-8"))
            if k.rsplit(".", 1)[-1] not in ("html", "json", "csv", "xml", "sarif", "db")}  # file names
    assert len(keys) > 50
    missing = sorted(k for k in keys if k not in catalogue())
    assert missing == []


def test_every_entry_has_both_languages():
    for key, entry in catalogue().items():
        assert entry.get("es") and entry.get("en"), key
