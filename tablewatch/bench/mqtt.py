"""Load test: N simulated tables publishing at once on one broker; alert latency and message rate.

Each table is a real ``Publisher`` (its own client, link thread and SQLite outbox) raising alerts (each
closed by the end of its hand, so every alert is two QoS 1 revisions plus the retained state) and a
stream of QoS 0 events; one subscriber receives everything and times each alert from the moment it was
raised (``epoch + ts`` of the payload) to its arrival.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import click
import paho.mqtt.client as mqtt

from tablewatch.alerts.broker import BrokerStartError, EmbeddedBroker
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.connection import BrokerError, connect, make_client
from tablewatch.alerts.publisher import Publisher
from tablewatch.events import HandEnded, Tap, Violation

SITE = "bench"


@dataclass(frozen=True, kw_only=True)
class BenchResult:
    tables: int
    seconds: float
    alerts_sent: int
    alerts_received: int
    messages_received: int
    latency_median_ms: float
    latency_p99_ms: float
    latency_max_ms: float

    @property
    def messages_per_s(self) -> float:
        return self.messages_received / self.seconds

    def lines(self) -> list[str]:
        return [f"tables: {self.tables}, {self.seconds:.1f} s of load",
                f"alerts: {self.alerts_sent} sent, {self.alerts_received} received "
                f"({self.alerts_sent - self.alerts_received} missing)",
                f"alert latency: median {self.latency_median_ms:.1f} ms, p99 {self.latency_p99_ms:.1f} ms, "
                f"max {self.latency_max_ms:.1f} ms",
                f"messages received: {self.messages_received} ({self.messages_per_s:.0f} messages/s)"]


class _Receiver:
    def __init__(self, broker: BrokerConfig, epoch: float) -> None:
        self.broker = broker
        self.epoch = epoch
        self.latencies: list[float] = []
        self.alert_ids: set[str] = set()
        self.messages = 0
        self.client = make_client(broker, f"tablewatch-bench-receiver-{int(time.time())}")
        self.client.on_message = self._on_message

    def start(self) -> None:
        connect(self.client, self.broker)
        self.client.subscribe(f"tablewatch/{SITE}/#", qos=1)

    def _on_message(self, _c: mqtt.Client, _u: object, message: mqtt.MQTTMessage) -> None:
        now = time.time()
        self.messages += 1
        if message.topic.endswith("/alert"):
            body = json.loads(message.payload)
            if body["type"] == "new" and body["id"] not in self.alert_ids:
                self.alert_ids.add(body["id"])
                self.latencies.append(now - (self.epoch + body["ts"]))


def run_bench(broker: BrokerConfig, workdir: Path, *, tables: int = 100, seconds: float = 10.0,
              alert_rate: float = 1.0, event_rate: float = 10.0, drivers: int = 4) -> BenchResult:
    """Run the load and return the figures; ``alert_rate`` and ``event_rate`` are per table per second."""
    if tables < 1 or seconds <= 0 or alert_rate <= 0 or event_rate < 0:
        raise ValueError("tables >= 1, seconds > 0, alert rate > 0 and event rate >= 0 are needed")
    epoch = time.time()
    receiver = _Receiver(broker, epoch)
    receiver.start()
    publishers = [_table(broker, workdir, n, epoch) for n in range(tables)]
    try:
        for publisher in publishers:
            if not publisher.wait_connected(15):
                raise RuntimeError(f"table {publisher.config.table} could not connect: {publisher.health().problem}")
        time.sleep(0.5)  # let the retained state of the start settle
        receiver.messages = 0
        sent = [0] * drivers
        stop_at = time.monotonic() + seconds
        threads = [threading.Thread(target=_drive, args=(publishers[d::drivers], epoch, stop_at, alert_rate,
                                                         event_rate, sent, d)) for d in range(drivers)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        deadline = time.monotonic() + 15
        while len(receiver.alert_ids) < sum(sent) and time.monotonic() < deadline:
            time.sleep(0.05)
        messages = receiver.messages
    finally:
        for publisher in publishers:
            publisher.stop(drain_s=0)
        receiver.client.disconnect()
        receiver.client.loop_stop()
    lat = sorted(receiver.latencies) or [float("nan")]
    return BenchResult(tables=tables, seconds=elapsed, alerts_sent=sum(sent), alerts_received=len(receiver.alert_ids),
                       messages_received=messages, latency_median_ms=statistics.median(lat) * 1000,
                       latency_p99_ms=lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
                       latency_max_ms=lat[-1] * 1000)


def _table(broker: BrokerConfig, workdir: Path, n: int, epoch: float) -> Publisher:
    config = PublisherConfig(site=SITE, table=f"T{n:03d}", broker=broker,
                             outbox=OutboxConfig(path=workdir / f"outbox-T{n:03d}.sqlite"), state_min_interval_s=1.0)
    return Publisher(config, epoch=epoch).start()


def _drive(publishers: list[Publisher], epoch: float, stop_at: float, alert_rate: float, event_rate: float,
           sent: list[int], slot: int) -> None:
    """One driver thread: its tables raise an alert every 1/alert_rate s and an event every 1/event_rate s."""
    next_alert = {id(p): time.monotonic() + (i / max(1, len(publishers))) / alert_rate
                  for i, p in enumerate(publishers)}
    next_event = dict(next_alert)
    count = 0
    while (now := time.monotonic()) < stop_at:
        for publisher in publishers:
            key = id(publisher)
            if event_rate and now >= next_event[key]:
                publisher.publish_event(Tap(ts=time.time() - epoch, table=publisher.config.table, source="vision",
                                            seat=3))
                next_event[key] += 1 / event_rate
            if now >= next_alert[key]:
                count += 1
                publisher.publish_violation(Violation(
                    ts=time.time() - epoch, table=publisher.config.table, source="rules", seat=3, rule_id="TDA-29",
                    title="A raise must go in with one motion", observed=f"bench alert {count}",
                    ruling="the bet stands as a call", hand_no=count, street="flop", seats=(3,)))
                # each alert's hand ends at once: its `end` revision goes out and the open set stays small
                publisher.publish_event(HandEnded(ts=time.time() - epoch, table=publisher.config.table,
                                                  source="sim", hand_no=count))
                next_alert[key] += 1 / alert_rate
        time.sleep(0.002)
    sent[slot] = count


@click.command("bench-mqtt")
@click.option("--tables", default=100, show_default=True, type=click.IntRange(1, 2000))
@click.option("--seconds", default=10.0, show_default=True, type=click.FloatRange(0.5, 3600))
@click.option("--alert-rate", default=1.0, show_default=True, type=click.FloatRange(0.01, 100),
              help="alerts per table per second")
@click.option("--event-rate", default=10.0, show_default=True, type=click.FloatRange(0, 1000),
              help="QoS 0 events per table per second")
@click.option("--url", help="an existing broker (default: start an embedded mosquitto)")
def bench_mqtt(tables: int, seconds: float, alert_rate: float, event_rate: float, url: str | None) -> None:
    """N simulated tables publishing at once on one broker: alert latency (median, p99) and messages/s."""
    with tempfile.TemporaryDirectory(prefix="tablewatch-bench-") as tmp:
        folder = Path(tmp)
        try:
            embedded = None if url else EmbeddedBroker(folder / "broker", ws_port=None).start()
        except BrokerStartError as exc:
            raise click.ClickException(str(exc)) from exc
        try:
            target = BrokerConfig(url=url or (embedded.url if embedded else ""))
            click.echo(f"{tables} tables on {target.shown_url}, {alert_rate}/s alerts and {event_rate}/s events "
                       "each ...")
            result = run_bench(target, folder, tables=tables, seconds=seconds, alert_rate=alert_rate,
                               event_rate=event_rate)
        except (BrokerError, RuntimeError) as exc:
            raise click.ClickException(str(exc)) from exc
        finally:
            if embedded is not None:
                embedded.stop()
    for line in result.lines():
        click.echo(line)
