"""The durable outbox: cap and drop policy, coalescing, and nothing lost while the broker is away."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.outbox import Outbox, OutboxError
from tablewatch.alerts.publisher import Publisher
from tests.alerts.helpers import Collector, violation
from tests.alerts.test_publisher import make_publisher
from tests.support.mosquitto import Mosquitto, free_port


def put(box: Outbox, msg_id: str, kind: str, **extra: object) -> bool:
    return box.put(msg_id=msg_id, topic=f"t/{kind}", payload=msg_id.encode(), kind=kind, **extra)  # type: ignore[arg-type]


def test_rows_come_back_in_order_after_reopening(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite")
    for n in range(5):
        assert put(box, f"a{n}", "alert")
    assert not put(box, "a3", "alert")  # the same msg_id waiting already: a harmless repeat
    box.close()
    again = Outbox(tmp_path / "o.sqlite")
    rows = again.after(0, limit=10)
    assert [r.msg_id for r in rows] == ["a0", "a1", "a2", "a3", "a4"]
    again.delete([rows[0].seq, rows[1].seq])
    assert [r.msg_id for r in again.after(0, limit=10)] == ["a2", "a3", "a4"]
    assert again.backlog().rows == 3


def test_cap_drops_the_least_important_oldest_rows_first(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite", max_rows=10)
    for n in range(4):
        put(box, f"alert{n}", "alert")
    for n in range(3):
        put(box, f"hand{n}", "hand")
    for n in range(3):
        put(box, f"event{n}", "holecards")
    put(box, "alert4", "alert")  # 11 rows: the oldest hole-card row goes
    put(box, "alert5", "alert")
    assert [r.msg_id for r in box.after(0, limit=20)] == [
        "alert0", "alert1", "alert2", "alert3", "hand0", "hand1", "hand2", "event2", "alert4", "alert5"]
    for n in range(6, 16):
        put(box, f"alert{n}", "alert")  # only alerts left to drop: the oldest alerts go last of all
    kept = [r.msg_id for r in box.after(0, limit=20)]
    assert kept == [f"alert{n}" for n in range(6, 16)]
    assert box.backlog().dropped == 12


def test_coalesced_state_keeps_only_the_newest_and_delay_holds_rows(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite")
    for n in range(3):
        put(box, f"state{n}", "state", retain=True, coalesce="state")
    put(box, "later", "broadcast", not_before=time.time() + 60)
    assert [r.msg_id for r in box.after(0, limit=10)] == ["state2"]
    assert box.backlog().rows == 2 and box.next_due() is not None


def test_a_broker_that_is_down_neither_blocks_nor_loses_alerts(tmp_path: Path) -> None:
    port = free_port()
    publisher = make_publisher(tmp_path, f"mqtt://127.0.0.1:{port}").start()
    started = time.monotonic()
    ids = [publisher.publish_violation(violation(n)) for n in range(20)]
    assert time.monotonic() - started < 1.0  # 20 alerts queued without waiting for any broker
    time.sleep(0.5)
    health = publisher.health()
    assert not health.connected and health.backlog >= 20
    assert "connection refused" in (health.problem or "")
    with Mosquitto(tmp_path / "broker", port=port) as broker:
        with Collector(BrokerConfig(url=broker.url), ["tablewatch/casino/T01/alert"]) as sub:
            alerts = sub.wait_count("/alert", 20, timeout=15)
        assert publisher.link.drain(5)
        assert publisher.health().problem is None
        publisher.stop()
    assert [m.json()["id"] for m in alerts] == ids


def test_alerts_queued_before_a_restart_of_the_monitor_are_delivered_after_it(tmp_path: Path) -> None:
    port = free_port()
    first = make_publisher(tmp_path, f"mqtt://127.0.0.1:{port}").start()
    ids = [first.publish_violation(violation(n)) for n in range(5)]
    first.stop(drain_s=0)  # the monitor goes down with the broker still away
    broker_url = f"mqtt://127.0.0.1:{port}"
    with Mosquitto(tmp_path / "broker", port=port), Collector(BrokerConfig(url=broker_url), ["tablewatch/#"]) as sub:
        second = make_publisher(tmp_path, broker_url).start()  # same outbox file
        alerts = sub.wait_count("/alert", 5)
        second.stop()
    assert [m.json()["id"] for m in alerts] == ids


MONITOR = """
import sys, time
from pathlib import Path
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.publisher import Publisher
config = PublisherConfig(site="casino", table="TK", broker=BrokerConfig(url=sys.argv[1], keepalive=5),
                         outbox=OutboxConfig(path=Path(sys.argv[2])))
publisher = Publisher(config).start()
assert publisher.wait_connected(5)
print("ready", flush=True)
time.sleep(60)
"""


def test_last_will_says_offline_when_the_monitor_is_killed(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/TK/status"]) as sub:
        monitor = subprocess.Popen([sys.executable, "-c", MONITOR, mqtt_broker.url, str(tmp_path / "o.sqlite")],
                                   stdout=subprocess.PIPE, text=True)
        try:
            assert monitor.stdout is not None and monitor.stdout.readline().strip() == "ready"
            sub.wait(lambda: [m.payload for m in sub.on("/status")][-1:] == [b"online"], 5, "online")
            monitor.kill()  # SIGKILL: no clean disconnect, the broker sends the will
            sub.wait(lambda: [m.payload for m in sub.on("/status")][-1:] == [b"offline"], 10, "the last will")
        finally:
            monitor.kill()
            monitor.wait()
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/TK/status"]) as late:
        retained = late.wait_count("/status", 1)[0]
    assert retained.retain and retained.payload == b"offline"


def test_bad_configuration_fails_at_once_with_a_sentence(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="'casino/1' can't be an MQTT topic level"):
        PublisherConfig(site="casino/1", table="T01")
    with pytest.raises(ValidationError, match="must look like mqtt://host:1883"):
        BrokerConfig(url="http://broker")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OutboxError, match=re.escape(f"can't open the outbox {blocker}/o.sqlite")):
        Publisher(PublisherConfig(site="casino", table="T01", outbox=OutboxConfig(path=blocker / "o.sqlite")))
    broker = BrokerConfig(url="mqtt://127.0.0.1:1883", username="t", password_file=tmp_path / "missing")
    with pytest.raises(ValueError, match=r"password_file .*missing: can.t read a password"):
        Publisher(PublisherConfig(site="casino", table="T01", broker=broker,
                                  outbox=OutboxConfig(path=tmp_path / "o.sqlite")))
