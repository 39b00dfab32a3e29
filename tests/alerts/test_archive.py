"""Hand archivers sharing a subscription write every finished hand to the real PostgreSQL once."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewatch.alerts.archive import ArchiveError, HandArchiver
from tablewatch.alerts.config import BrokerConfig
from tablewatch.events import HandEnded, HandStarted
from tablewatch.history.rollup import Rollup
from tests.alerts.test_publisher import make_publisher
from tests.support.mosquitto import Mosquitto
from tests.support.postgres import DSN, connect_or_skip


@pytest.fixture
def pg_table() -> Iterator[str]:
    db = connect_or_skip()
    name = f"test_hands_{uuid.uuid4().hex[:8]}"
    yield name
    for table in (name, *Rollup(db.execute, hands_table=name, mark="%s").table_names()):
        db.execute(f"DROP TABLE IF EXISTS {table}")
    db.close()


def test_shared_subscription_archives_each_hand_once(tmp_path: Path, mqtt_broker: Mosquitto, pg_table: str) -> None:
    import psycopg

    broker = BrokerConfig(url=mqtt_broker.url)
    archivers = [HandArchiver(broker, DSN, client_id=f"archive-{n}-{pg_table}", table=pg_table,
                              group=pg_table).start() for n in range(2)]
    publisher = make_publisher(tmp_path, mqtt_broker.url, table="TA").start()
    for hand in range(1, 41):
        publisher.publish_event(HandStarted(ts=hand, table="TA", source="sim", hand_no=hand, button=1, seats=(1, 2)))
        publisher.publish_event(HandEnded(ts=hand + 0.5, table="TA", source="sim", hand_no=hand))
        publisher.publish_hand(hand, phh=f"hand {hand}")
    assert publisher.link.drain(10)
    deadline = time.monotonic() + 10
    while sum(a.written for a in archivers) < 40 and time.monotonic() < deadline:
        time.sleep(0.05)
    publisher.stop()
    with psycopg.connect(DSN) as db:
        rows = db.execute(f"SELECT hand_no, archived_by, payload->>'phh' FROM {pg_table} ORDER BY hand_no").fetchall()
    for archiver in archivers:
        archiver.stop()
    assert [r[0] for r in rows] == list(range(1, 41))
    assert all(r[2] == f"hand {r[0]}" for r in rows)
    shares = {a.client_id: a.written for a in archivers}
    assert all(n > 0 for n in shares.values()), shares  # the broker spread the hands over both
    assert sum(shares.values()) == 40


def test_a_repeat_is_written_once(mqtt_broker: Mosquitto, pg_table: str) -> None:
    import paho.mqtt.client as mqtt

    archiver = HandArchiver(BrokerConfig(url=mqtt_broker.url), DSN, client_id=f"archive-r-{pg_table}",
                            table=pg_table, group=pg_table).start()
    message = mqtt.MQTTMessage(topic=b"tablewatch/casino/TA/hand")
    message.payload = (b'{"msg_id": "hd-1", "site": "casino", "table": "TA", "session": "s", "hand_no": 1,'
                       b' "time": "2027-01-15T08:00:00.000Z"}')
    archiver._on_message(archiver.client, None, message)
    archiver._on_message(archiver.client, None, message)
    archiver._on_message(archiver.client, None, mqtt.MQTTMessage(topic=b"tablewatch/casino/TA/hand"))
    archiver.stop()
    assert (archiver.written, archiver.repeats, archiver.rejected) == (1, 1, 1)


def test_an_unreachable_database_is_a_clear_error(mqtt_broker: Mosquitto) -> None:
    pytest.importorskip("psycopg", reason="psycopg is in the dev extra")
    archiver = HandArchiver(BrokerConfig(url=mqtt_broker.url), "postgresql://127.0.0.1:1/none")
    with pytest.raises(ArchiveError, match="can't use the archive database"):
        archiver.start()
