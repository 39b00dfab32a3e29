"""Fixtures of the central tier's tests: a real three-node NATS cluster, and archive tables in the real
PostgreSQL, dropped afterwards."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tablewatch.central.cluster import CentralCluster, ClusterStartError, nats_binary
from tests.support.postgres import connect_or_skip


def skip_without_nats() -> None:
    try:
        nats_binary()
    except ClusterStartError as exc:
        pytest.skip(f"{exc} (the dev extra installs it)")


@pytest.fixture(scope="module")
def central(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CentralCluster]:
    skip_without_nats()
    with CentralCluster(tmp_path_factory.mktemp("central")) as cluster:
        yield cluster


@dataclass
class Archive:
    """The archive tables of one test, read back."""

    db: Any
    hands: str
    alerts: str
    incidents: str

    @property
    def tables(self) -> tuple[str, str, str]:
        return self.hands, self.alerts, self.incidents

    def incident_rows(self, site: str) -> list[tuple[str, str, int, str]]:
        """(table, incident id, revision, state) of ``site``'s archived incident revisions, in the central's order."""
        return [tuple(row) for row in self.db.execute(
            f"SELECT table_id, incident_id, revision, state FROM {self.incidents} WHERE site = %s ORDER BY stream_seq",
            (site,)).fetchall()]

    def alert_rows(self, site: str) -> list[tuple[str, str, int, float, str]]:
        """(table, msg_id, stream_seq, ts, archived_by) of ``site``'s archived alerts, in the central's order."""
        return [tuple(row) for row in self.db.execute(
            f"SELECT table_id, msg_id, stream_seq, (payload->>'ts')::float8, archived_by FROM {self.alerts}"
            " WHERE site = %s ORDER BY stream_seq", (site,)).fetchall()]

    def hand_ids(self, site: str) -> set[str]:
        return {row[0] for row in self.db.execute(f"SELECT msg_id FROM {self.hands} WHERE site = %s", (site,))}

    def count(self, site: str) -> int:
        return int(self.db.execute(f"SELECT (SELECT count(*) FROM {self.alerts} WHERE site = %s)"
                                   f" + (SELECT count(*) FROM {self.hands} WHERE site = %s)", (site, site))
                   .fetchone()[0])


@pytest.fixture
def archive() -> Iterator[Archive]:
    db = connect_or_skip()
    suffix = uuid.uuid4().hex[:8]
    tables = Archive(db, f"central_hands_{suffix}", f"central_alerts_{suffix}", f"central_incidents_{suffix}")
    yield tables
    for table in tables.tables:
        db.execute(f"DROP TABLE IF EXISTS {table}")
    db.close()
