"""The payloads' TypedDicts name exactly the fields of their shipped schemas, required and optional alike (a field
added within a version is optional: a consumer still reads the payloads of tables not yet updated)."""

from __future__ import annotations

import pytest

from tablewatch.alerts import payloads as pl
from tablewatch.history.cli import StatsPage

TYPES = {
    "alert": pl.AlertPayload,
    "alerts": pl.OpenAlertsPayload,
    "event": pl.EventPayload,
    "hand": pl.HandPayload,
    "state": pl.StatePayload,
    "holecards": pl.HoleCardsPayload,
    "ack": pl.AckPayload,
    "incident": pl.IncidentPayload,
    "incidents": pl.OpenIncidentsPayload,
    "review": pl.ReviewPayload,
    "alerting": pl.AlertingPayload,
    "alerting-set": pl.AlertingSetPayload,
    "stats": StatsPage,  # a file beside the page, written by `tablewatch stats --web`
}


def test_every_schema_has_a_type() -> None:
    assert set(TYPES) == set(pl.SCHEMA_VERSIONS)


@pytest.mark.parametrize("name", sorted(TYPES))
def test_a_payload_type_has_the_fields_of_its_schema(name: str) -> None:
    schema = pl.load_schema(name)
    kind = TYPES[name]
    assert kind.__required_keys__ == set(schema["required"])
    assert kind.__required_keys__ | kind.__optional_keys__ == set(schema["properties"])


def test_the_evidence_type_has_the_fields_of_evidence() -> None:
    assert pl.EvidenceDict.__required_keys__ == set(pl.Evidence().as_dict())
