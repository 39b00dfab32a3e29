"""A broker crash (``kill -9``) loses nothing it acknowledged: the shipped broker settings keep every alert
queued for a persistent subscriber that is offline, and the subscriber gets them all after the restart."""

from __future__ import annotations

from pathlib import Path

from tablewatch.alerts.broker import EmbeddedBroker
from tablewatch.alerts.config import BrokerConfig
from tablewatch.bench.broker_persistence import messages_per_s
from tablewatch.events import HandEnded, HandStarted
from tests.alerts.helpers import Collector, violation
from tests.alerts.test_publisher import make_publisher
from tests.support.mosquitto import needs_mosquitto

pytestmark = needs_mosquitto

ALERT_TOPIC = "tablewatch/casino/T01/alert"


def test_kill_9_of_the_broker_loses_no_acknowledged_alert(tmp_path: Path) -> None:
    broker = EmbeddedBroker(tmp_path / "broker", ws_port=None).start()
    config = BrokerConfig(url=broker.url)
    offline = Collector(config, [ALERT_TOPIC], client_id="surveillance-1", persistent=True).start()
    offline.stop()  # its session stays on the broker: what comes meanwhile is queued for it
    publisher = make_publisher(tmp_path, broker.url).start()
    try:
        assert publisher.wait_connected(10)
        publisher.publish_event(HandStarted(ts=0.0, table="T01", source="sim", hand_no=1, button=1, seats=(1, 3)))
        ids = [publisher.publish_violation(violation(n, ts=0.1 + n)) for n in range(3)]
        publisher.publish_event(HandEnded(ts=9.0, table="T01", source="sim", hand_no=1))  # closes each: 6 revisions
        assert publisher.link.drain(30), "the broker did not acknowledge every alert"
        assert broker.process is not None
        broker.process.kill()  # the table has deleted them from its outbox: only the broker's disk has them now
        broker.process.wait()
        broker.start()
        with Collector(config, [ALERT_TOPIC], client_id="surveillance-1", persistent=True) as back:
            back.wait(lambda: len({m.json()["msg_id"] for m in back.on("/alert")}) >= 6, 30, "all 6 revisions")
            received = {m.json()["msg_id"]: m.json() for m in back.on("/alert")}
    finally:
        publisher.stop(drain_s=0)
        broker.stop()
    assert sorted((r["id"], r["type"]) for r in received.values()) == sorted(
        [(i, "new") for i in ids] + [(i, "end") for i in ids])


def test_the_persistence_cost_is_measured_both_ways(tmp_path: Path) -> None:
    for save in (False, True):  # python -m tablewatch.bench.broker_persistence, in small
        assert messages_per_s(tmp_path / str(save), save_every_change=save, messages=20, size=100) > 0
