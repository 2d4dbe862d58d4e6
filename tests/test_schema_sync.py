"""The published JSON Schema files are exactly what the pydantic models generate."""

import json
from pathlib import Path

import jsonschema
import pytest

from auditor.logs.schema import ROUND_MODELS, json_schema, schema_text

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("game", sorted(ROUND_MODELS))
def test_schema_file_matches_models(game):
    path = DOCS / "schema" / f"{game}.round.schema.json"
    assert path.read_text(encoding="utf-8") == schema_text(game), \
        "regenerate with: python -m auditor.logs.schema docs/schema"
    assert f"schema/{game}.round.schema.json" in (DOCS / "log-format.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("game", sorted(ROUND_MODELS))
def test_simulated_jsonl_validates_against_schema(tmp_path, game):
    from auditor.simulate import SIMULATORS, run

    if game not in SIMULATORS:
        pytest.skip("no simulator")
    out, _ = run(game, rounds=50, seed=1, faults=0.0, out=tmp_path / "x.jsonl")
    schema = json_schema(game)
    for line in out.read_text(encoding="utf-8").splitlines():
        jsonschema.validate(json.loads(line), schema)


@pytest.mark.parametrize("game", sorted(ROUND_MODELS))
def test_every_field_is_documented(game):
    from auditor.logs.schema import columns_of

    text = (DOCS / "log-format.md").read_text(encoding="utf-8")
    missing = [c.name for c in columns_of(game) if f"`{c.name}`" not in text]
    assert missing == []
