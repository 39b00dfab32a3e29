"""A casino in miniature for the central tier's tests: pits (real mosquittos bridged to the NATS cluster),
tables (real publishers with their outboxes) sending alerts and hands at a steady rate, archivers as real
processes, and what the archive holds at the end."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt

from tablewatch.alerts.broker import BridgeSetup, EmbeddedBroker, bridged_broker
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.publisher import Publisher
from tablewatch.bench.central import ArchiverProcess
from tests.alerts.helpers import violation
from tests.support.postgres import DSN
from tests.support.wait import wait_until

if TYPE_CHECKING:
    from tests.central.conftest import Archive



def pit_broker(folder: Path, *, site: str, addresses: list[str], name: str) -> EmbeddedBroker:
    """A pit's mosquitto as the product configures one, bridged to ``addresses``; the bridge retries every 1-2 s
    instead of 2-30 s, so that a test's outage ends, and the bridge is back, sooner."""
    return bridged_broker(folder, BridgeSetup(addresses=addresses, site=site, client_id=f"bridge-{name}",
                                              restart_timeout_s=(1, 2)))


def archiver_process(folder: Path, nats_urls: list[str], *, name: str, site: str, tables: tuple[str, str, str],
                     dsn: str = DSN, **options: Any) -> ArchiverProcess:
    """An archiver for a test: the test database, and another archiver takes over after 3 s instead of 30."""
    return ArchiverProcess(folder, nats_urls, name=name, site=site, tables=tables, dsn=dsn,
                           **{"ack_wait_s": 3.0, **options})


@dataclass
class Traffic:
    """Tables publishing through a pit: each tick, every table raises an alert; every ``hand_every`` ticks, a
    finished hand. ``sent`` holds what each table handed its outbox, in order."""

    publishers: list[Publisher]
    rate_hz: float = 5.0
    hand_every: int = 5
    sent: dict[str, list[str]] = field(default_factory=dict)
    hands: set[str] = field(default_factory=set)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> Traffic:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        tick = 0
        while not self._stop.is_set():
            for table in self.publishers:
                ident = table.publish_violation(violation(tick, table=table.config.table, hand_no=tick // 5 + 1,
                                                          ts=tick / self.rate_hz))
                self.sent.setdefault(table.config.table, []).append(f"{ident}/0")
                if tick % self.hand_every == self.hand_every - 1:
                    self.hands.add(table.publish_hand(tick // self.hand_every + 1, phh=f"hand {tick}"))
            tick += 1
            time.sleep(1 / self.rate_hz)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    @property
    def alert_count(self) -> int:
        return sum(map(len, self.sent.values()))


def tables(folder: Path, pit: EmbeddedBroker, site: str, count: int) -> list[Publisher]:
    return [Publisher(PublisherConfig(site=site, table=f"T{n:02d}", broker=BrokerConfig(url=pit.url, keepalive=5),
                                      outbox=OutboxConfig(path=folder / f"outbox-{site}-{n}.sqlite"),
                                      reconnect_max_s=0.5), session="s1").start() for n in range(1, count + 1)]


def mqtt_client(address: str, client_id: str) -> mqtt.Client:
    """A bare MQTT 3.1.1 client on a central node, connected (as a pit's bridge or an intruder would be)."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    host, port = address.rsplit(":", 1)
    client.connect(host, int(port))
    client.loop_start()
    wait_until(f"{client_id} connected to {address}", client.is_connected, 10)
    return client


def new_site() -> str:
    return f"s{uuid.uuid4().hex[:8]}"


@dataclass
class BusySite:
    """A site under load: its archivers, its pit, its tables and their traffic."""

    site: str
    archivers: list[ArchiverProcess]
    pit: EmbeddedBroker
    publishers: list[Publisher]
    traffic: Traffic

    def finish(self, archive: Archive, timeout: float = 120) -> None:
        """Stop the traffic, let every table's outbox empty into the pit and the pit's queue into the archive."""
        self.traffic.stop()
        for table in self.publishers:
            assert table.link.drain(60), f"{table.config.table}'s outbox did not empty"
        sent = self.traffic.alert_count + len(self.traffic.hands)
        wait_until("the archive", lambda: archive.count(self.site) >= sent, timeout)


@contextmanager
def busy_site(folder: Path, nats_urls: list[str], archive: Archive, *, bridge_to: list[str], tables_count: int = 3,
              rate_hz: float = 10.0, archivers: int = 1, batch: int = 64, dsn: str = DSN) -> Iterator[BusySite]:
    """Archivers first (their consumers keep the messages), then the pit bridged to ``bridge_to``, then tables
    publishing at ``rate_hz``; everything stopped on the way out."""
    site = new_site()
    started = [archiver_process(folder, nats_urls, name=f"a{n}", site=site, tables=archive.tables, batch=batch,
                               dsn=dsn).start() for n in range(1, archivers + 1)]
    pit = pit_broker(folder / "pit", site=site, addresses=bridge_to, name=site).start()
    publishers = tables(folder, pit, site, tables_count)
    busy = BusySite(site, started, pit, publishers, Traffic(publishers, rate_hz=rate_hz).start())
    try:
        yield busy
    finally:
        busy.traffic.stop()
        for each in (*publishers, *busy.archivers, pit):
            each.stop()
