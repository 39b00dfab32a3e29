"""docs/mqtt.md documents every topic with example payloads that validate against the shipped schemas."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from tablewatch.alerts.payloads import SCHEMA_VERSIONS, load_schema
from tablewatch.alerts.topics import LEAVES
from tests.alerts.helpers import validate

DOC = Path(__file__).resolve().parents[2] / "docs" / "mqtt.md"
EXAMPLE = re.compile(r"<!-- schema: ([\w-]+) -->\n```json\n(.*?)\n```", re.S)


def test_every_topic_is_documented() -> None:
    text = DOC.read_text()
    missing = [leaf for leaf in LEAVES if f"`{leaf}`" not in text]
    assert missing == []


def test_every_schema_has_a_valid_example_in_the_docs() -> None:
    examples = EXAMPLE.findall(DOC.read_text())
    assert {name for name, _ in examples} == set(SCHEMA_VERSIONS)
    for name, body in examples:
        validate(name, json.loads(body))


@pytest.mark.parametrize("name", sorted(SCHEMA_VERSIONS))
def test_schemas_are_valid_and_reject_unknown_fields(name: str) -> None:
    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False
    example = next(json.loads(b) for n, b in EXAMPLE.findall(DOC.read_text()) if n == name)
    with pytest.raises(jsonschema.ValidationError, match="Additional properties"):
        validate(name, {**example, "surprise": 1})
    with pytest.raises(jsonschema.ValidationError):
        validate(name, {**example, "schema": f"tablewatch/{name}/99"})
