"""What saving the broker's persistence file at every change costs: QoS 1 messages per second into the embedded
mosquitto, saved at each change (the shipped setting) and every 30 s, while a persistent subscriber is offline
and every message is queued for it (the worst case: each save writes the whole queue).

    python -m tablewatch.bench.broker_persistence --messages 2000
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path

import click

from tablewatch.alerts.broker import BrokerSetup, EmbeddedBroker
from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.connection import connect, make_client

TOPIC = "tablewatch/bench/T01/alert"


def messages_per_s(workdir: Path, *, save_every_change: bool, messages: int, size: int) -> float:
    """Publish ``messages`` QoS 1 messages of ``size`` bytes (up to 100 in flight); messages per second until the
    broker has acknowledged the last."""
    setup = BrokerSetup(save_every_change=save_every_change)
    with EmbeddedBroker(workdir, ws_port=None, setup=setup) as broker:
        config = BrokerConfig(url=broker.url)
        subscriber = make_client(config, "bench-offline")
        connect(subscriber, config, clean_start=False, session_expiry_s=3600)
        subscribed = threading.Event()
        subscriber.on_subscribe = lambda *_: subscribed.set()
        subscriber.subscribe(TOPIC, qos=1)
        if not subscribed.wait(10):
            raise click.ClickException("the broker did not acknowledge the subscription")
        subscriber.disconnect()  # offline from here: every message is queued for it
        subscriber.loop_stop()
        acked = threading.Semaphore(0)
        publisher = make_client(config, "bench-table")
        publisher.on_publish = lambda *_: acked.release()
        publisher.max_inflight_messages_set(100)
        connect(publisher, config)
        payload = b"x" * size
        started = time.perf_counter()
        for _ in range(messages):
            publisher.publish(TOPIC, payload, qos=1)
        for _ in range(messages):
            if not acked.acquire(timeout=120):
                raise click.ClickException("the broker stopped acknowledging")
        elapsed = time.perf_counter() - started
        publisher.disconnect()
        publisher.loop_stop()
    return messages / elapsed


@click.command()
@click.option("--messages", default=2000, show_default=True, type=click.IntRange(1, 100_000))
@click.option("--size", default=1000, show_default=True, type=click.IntRange(1, 1_000_000),
              help="bytes per message (an alert is about 1 kB)")
def main(messages: int, size: int) -> None:
    for save in (False, True):
        with tempfile.TemporaryDirectory() as folder:
            rate = messages_per_s(Path(folder), save_every_change=save, messages=messages, size=size)
        click.echo(f"{'saved at every change' if save else 'saved every 30 s':>22}: {rate:8.0f} messages/s "
                   f"({messages} x {size} B queued for an offline subscriber)")


if __name__ == "__main__":
    main()
