"""bench-central end to end at a small scale: tables in worker processes, pits bridged into the NATS cluster,
archivers and a central subscriber; every alert accounted for, timed, and each process kind's cost read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewatch.bench.central import Load, report, run
from tests.central.conftest import skip_without_nats
from tests.support.postgres import DSN, connect_or_skip


@pytest.mark.slow
def test_six_tables_through_two_pits_every_alert_archived_and_timed(tmp_path: Path) -> None:
    skip_without_nats()
    connect_or_skip().close()
    load = Load(tables=6, pits=2, archivers=1, workers=2, seconds=6, alerts_per_min=60, events_per_s=10)
    result = run(load, DSN, tmp_path)
    assert result.alerts_sent >= 30  # an alert a second from each table
    assert result.alerts_archived == result.alerts_at_subscriber == result.alerts_sent
    assert result.missing == []
    assert result.out_of_order == (0, 0)  # each table's alerts in the order sent, at the archive and centrally
    assert len(result.archive_ms) == result.alerts_sent and all(0 < ms < 30_000 for ms in result.archive_ms)
    assert result.events_sent >= 6 * 10 * 5
    assert set(result.usage) == {"central node", "pit broker", "archiver", "table worker", "central subscriber + bench"}
    assert len(result.usage["central node"]) == 3 and all(u.rss_mib > 0 for u in result.usage["central node"])
    text = "\n".join(report(result))
    assert "table → archive: p50" in text and "0 lost to the archive" in text
    assert "out of order: 0 in the archive" in text
