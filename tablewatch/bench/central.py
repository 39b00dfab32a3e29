"""Load test of the casino-scale path on one machine: simulated tables → pit brokers → the clustered central tier
→ archivers → PostgreSQL, and a central subscriber beside them.

Each table is a real ``Publisher`` (its own MQTT client, link thread and SQLite outbox), run in a few worker
processes; each pit is a mosquitto configured as the product configures one, bridged into a three-node NATS
cluster (``tablewatch.central.cluster``); the archivers are ``python -m tablewatch.central.archiver`` processes.
Everything runs on loopback. An alert is timed from the moment the table raised it (``epoch + ts`` of its
payload) to its row in PostgreSQL (``received_at``) and to its arrival at an MQTT 3.1.1 subscriber on a central
node. CPU and memory are read from ``/proc`` for each process over the loaded window.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

import click
import paho.mqtt.client as mqtt

from tablewatch.alerts.broker import BridgeSetup, EmbeddedBroker, bridged_broker, terminate
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.publisher import Publisher
from tablewatch.central.cluster import CentralCluster
from tablewatch.events import Tap, Violation

SITE = "bench"
CLOCK_HZ = 100  # /proc/<pid>/stat counts CPU time in these ticks on Linux


@dataclass(frozen=True)
class Load:
    tables: int = 500
    pits: int = 5
    archivers: int = 2
    workers: int = 4
    seconds: float = 60.0
    alerts_per_min: float = 1.0
    events_per_s: float = 10.0
    subscriber_qos: int = 1


@dataclass
class Usage:
    """CPU seconds and resident memory of one process over the loaded window."""

    cpu_s: float = 0.0
    rss_mib: float = 0.0


@dataclass
class Result:
    load: Load
    seconds: float
    events_sent: int
    alerts_sent: int
    alerts_archived: int
    alerts_at_subscriber: int
    archive_ms: list[float]
    subscriber_ms: list[float]
    usage: dict[str, list[Usage]] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)  # seen centrally, not archived
    out_of_order: tuple[int, int] = (0, 0)  # alerts after a later one of their table: in the archive, at the subscriber


def proc_usage(pid: int) -> Usage:
    """CPU seconds (user + system, its threads included) and resident memory of ``pid``; zeros once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return Usage()
    rss_kib = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return Usage(cpu_s=(int(fields[11]) + int(fields[12])) / CLOCK_HZ, rss_mib=rss_kib / 1024)


# --- the tables, in worker processes ---------------------------------------------------------------------


def _worker(tables: Sequence[tuple[str, str]], folder: str, epoch: float, load: Load, pipe: Connection) -> None:
    """Host the publishers of ``tables`` (name, its pit's URL); when told to, drive them for ``load.seconds`` and
    send back what they sent."""
    publishers = [Publisher(PublisherConfig(
        site=SITE, table=name, broker=BrokerConfig(url=pit_url, keepalive=30),
        outbox=OutboxConfig(path=Path(folder) / f"outbox-{name}.sqlite"), state_min_interval_s=1.0),
        session="bench", epoch=epoch).start() for name, pit_url in tables]
    connected = all(p.wait_connected(60) for p in publishers)
    pipe.send(connected)
    pipe.recv()  # go
    events, alerts = _drive(publishers, epoch, load)
    for publisher in publishers:
        publisher.link.drain(60)
    pipe.send((events, alerts))
    pipe.recv()  # done
    for publisher in publishers:
        publisher.stop(drain_s=0)


def _drive(publishers: list[Publisher], epoch: float, load: Load) -> tuple[int, int]:
    """Each table: an event every 1/events_per_s, an alert every 60/alerts_per_min s, staggered over the tables."""
    start = time.monotonic()
    alert_every = 60.0 / load.alerts_per_min
    spread = len(publishers) or 1
    next_alert = [start + alert_every * i / spread for i in range(len(publishers))]
    next_event = [start + i / spread / max(load.events_per_s, 1e-9) for i in range(len(publishers))]
    events = alerts = 0
    while (now := time.monotonic()) < start + load.seconds:
        for i, publisher in enumerate(publishers):
            table = publisher.config.table
            if load.events_per_s and now >= next_event[i]:
                publisher.publish_event(Tap(ts=time.time() - epoch, table=table, source="vision", seat=3))
                next_event[i] += 1 / load.events_per_s
                events += 1
            if now >= next_alert[i]:
                alerts += 1
                publisher.publish_violation(Violation(
                    ts=time.time() - epoch, table=table, source="rules", seat=3, rule_id="TDA-29",
                    title="A raise must go in with one motion", observed=f"bench alert {alerts}", hand_no=alerts,
                    ruling="the bet stands as a call", street="flop", seats=(3,)))
                next_alert[i] += alert_every
        time.sleep(0.005)
    return events, alerts


# --- the central side ------------------------------------------------------------------------------------


class CentralSubscriber:
    """An MQTT 3.1.1 client on a central node (as a surveillance room's would be), timing each alert's arrival."""

    def __init__(self, address: str, epoch: float, qos: int) -> None:
        self.epoch = epoch
        self.latencies_ms: list[float] = []
        self.seen: set[str] = set()
        self.out_of_order = 0  # alerts that came after a later one of their table
        self._last_ts: dict[str, float] = {}
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-central-{uuid.uuid4().hex[:6]}",
                                  protocol=mqtt.MQTTv311)
        self.client.on_message = self._on_message
        host, port = address.rsplit(":", 1)
        self.client.connect(host, int(port), keepalive=30)
        self.client.subscribe(f"tablewatch/{SITE}/+/alert", qos=qos)
        self.client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, message: mqtt.MQTTMessage) -> None:
        now = time.time()
        body = json.loads(message.payload)
        if body["msg_id"] in self.seen:
            return
        self.seen.add(body["msg_id"])
        self.latencies_ms.append((now - (self.epoch + body["ts"])) * 1000)
        if body["ts"] < self._last_ts.get(body["table"], float("-inf")):
            self.out_of_order += 1
        self._last_ts[body["table"]] = max(body["ts"], self._last_ts.get(body["table"], float("-inf")))

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@contextmanager
def archive_tables(dsn: str) -> Iterator[tuple[object, tuple[str, str, str]]]:
    """The archive's tables (hands, alerts, incidents) of one run, dropped after it."""
    import psycopg

    db = psycopg.connect(dsn, autocommit=True, connect_timeout=5)
    suffix = uuid.uuid4().hex[:8]
    tables = (f"bench_hands_{suffix}", f"bench_alerts_{suffix}", f"bench_incidents_{suffix}")
    try:
        yield db, tables
    finally:
        for table in tables:
            db.execute(f"DROP TABLE IF EXISTS {table}")
        db.close()


class ArchiverProcess:
    """``python -m tablewatch.central.archiver`` as a process of its own (so that it can be killed), logging to
    ``folder/<name>.log``."""

    def __init__(self, folder: Path, nats_urls: list[str], *, name: str, site: str, tables: tuple[str, str, str],
                 dsn: str, batch: int = 64, ack_wait_s: float = 30.0, extra: Sequence[str] = ()) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.name, self.log = name, folder / f"{name}.log"
        self.command = [sys.executable, "-m", "tablewatch.central.archiver", "--nats", ",".join(nats_urls),
                        "--dsn", dsn, "--name", name, "--site", site, "--batch", str(batch),
                        "--ack-wait", str(ack_wait_s), "--hands-table", tables[0], "--alerts-table", tables[1],
                        "--incidents-table", tables[2], *extra]
        self.process: subprocess.Popen[bytes] | None = None

    def launch(self) -> ArchiverProcess:
        """Start it, without waiting for anything."""
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT,
                                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        return self

    def start(self, timeout: float = 60.0) -> ArchiverProcess:
        """Start it and wait until it has bound its consumers; RuntimeError with its log's end if it does not."""
        self.launch()
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while "archiving" not in self.log.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"archiver {self.name} did not start: {self.log.read_text()[-500:]}")
            time.sleep(0.1)
        return self

    def kill(self) -> None:
        """``kill -9``: no goodbye, nothing acknowledged that was not yet."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        terminate(self.process, timeout=15)


def _pit(folder: Path, cluster: CentralCluster, n: int) -> EmbeddedBroker:
    addresses = cluster.mqtt_addresses[n % 3:] + cluster.mqtt_addresses[:n % 3]  # the pits spread over the nodes
    return bridged_broker(folder / f"pit-{n}", BridgeSetup(addresses=addresses, site=SITE,
                                                          client_id=f"bridge-pit-{n}")).start()


def run(load: Load, dsn: str, folder: Path) -> Result:
    epoch = time.time()
    with ExitStack() as stack, archive_tables(dsn) as (db, tables):
        alerts = tables[1]
        cluster = stack.enter_context(CentralCluster(folder / "central"))
        archivers = [ArchiverProcess(folder, cluster.nats_urls, name=f"archive-{n}", site=SITE,
                                     tables=tables, dsn=dsn).start() for n in range(load.archivers)]
        for archiver in archivers:
            stack.callback(archiver.stop)
        pits = [_pit(folder, cluster, n) for n in range(load.pits)]
        for pit in pits:
            stack.callback(pit.stop)
        subscriber = CentralSubscriber(cluster.mqtt_addresses[0], epoch, load.subscriber_qos)
        stack.callback(subscriber.stop)
        workers = _start_workers(load, [p.url for p in pits], folder, epoch)
        for worker, _ in workers:
            stack.callback(worker.terminate)
        procs = {"central node": [n.process.pid for n in cluster.nodes if n.process],
                 "pit broker": [p.process.pid for p in pits if p.process],
                 "archiver": [a.process.pid for a in archivers if a.process],
                 "table worker": [w.pid for w, _ in workers if w.pid], "central subscriber + bench": [os.getpid()]}
        before = {kind: [proc_usage(pid) for pid in pids] for kind, pids in procs.items()}
        started = time.monotonic()
        for _, pipe in workers:
            pipe.send("go")
        sent = [pipe.recv() for _, pipe in workers]
        seconds = time.monotonic() - started
        after = {kind: [proc_usage(pid) for pid in pids] for kind, pids in procs.items()}
        alerts_sent = sum(a for _, a in sent)
        _wait_archived(db, alerts, alerts_sent)
        for _, pipe in workers:
            pipe.send("done")
        rows = db.execute(  # type: ignore[attr-defined]
            f"SELECT msg_id, extract(epoch FROM received_at) - (%s + (payload->>'ts')::float8) FROM {alerts}",
            (epoch,)).fetchall()
        unordered = db.execute(  # type: ignore[attr-defined]  # alerts the centre stored after a later one of theirs
            "SELECT count(*) FROM (SELECT (payload->>'ts')::float8 < max((payload->>'ts')::float8) OVER (PARTITION BY "
            f"table_id ORDER BY stream_seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS late FROM {alerts})"
            " AS ordered WHERE late").fetchone()[0]
        archive_ms = [float(seconds) * 1000 for _, seconds in rows]
        usage = {kind: [Usage(a.cpu_s - b.cpu_s, a.rss_mib) for a, b in zip(after[kind], before[kind], strict=True)]
                 for kind in procs}
        return Result(load, seconds, sum(e for e, _ in sent), alerts_sent, len(archive_ms),
                      len(subscriber.seen), archive_ms, list(subscriber.latencies_ms), usage,
                      missing=sorted(subscriber.seen - {msg_id for msg_id, _ in rows}),
                      out_of_order=(int(unordered), subscriber.out_of_order))


def _start_workers(load: Load, pit_urls: list[str], folder: Path, epoch: float
                   ) -> list[tuple[BaseProcess, Connection]]:
    tables = [(f"T{n:04d}", pit_urls[n % len(pit_urls)]) for n in range(load.tables)]
    context = multiprocessing.get_context("spawn")
    workers: list[tuple[BaseProcess, Connection]] = []
    for w in range(load.workers):
        mine, theirs = context.Pipe()
        process = context.Process(target=_worker, args=(tables[w::load.workers], str(folder), epoch, load, theirs),
                                  daemon=True)
        process.start()
        workers.append((process, mine))
    if not all(pipe.recv() for _, pipe in workers):
        raise RuntimeError("some tables could not connect to their pit broker")
    return workers


def _wait_archived(db: object, table: str, count: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = db.execute(f"SELECT count(*) FROM {table}").fetchone()  # type: ignore[attr-defined]
        if row[0] >= count:
            return
        time.sleep(0.2)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values) or [float("nan")]
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def report(result: Result) -> list[str]:
    load = result.load
    lines = [f"{load.tables} tables through {load.pits} pit brokers into a 3-node NATS cluster, {load.archivers} "
             f"archivers; {result.seconds:.0f} s of load",
             f"events: {result.events_sent} sent ({result.events_sent / result.seconds:.0f}/s)",
             f"alerts: {result.alerts_sent} sent, {result.alerts_archived} archived, {result.alerts_at_subscriber} at "
             f"the central subscriber ({result.alerts_sent - result.alerts_archived} lost to the archive)"]
    if result.missing:
        lines.append(f"seen centrally and not archived: {', '.join(result.missing[:5])}")
    for name, values in (("table → archive", result.archive_ms), ("table → central subscriber", result.subscriber_ms)):
        lines.append(f"{name}: p50 {statistics.median(values or [float('nan')]):.0f} ms, p99 "
                     f"{percentile(values, 0.99):.0f} ms, max {max(values or [float('nan')]):.0f} ms")
    lines.append(f"each table's alerts out of order: {result.out_of_order[0]} in the archive (by the centre's "
                 f"sequence), {result.out_of_order[1]} at the central subscriber")
    for kind, usages in result.usage.items():
        cpu = [u.cpu_s / result.seconds * 100 for u in usages]
        rss = [u.rss_mib for u in usages]
        each = f" ({', '.join(f'{c:.0f} %' for c in cpu)}; {', '.join(f'{m:.0f}' for m in rss)} MiB)" \
            if kind == "central node" else ""
        lines.append(f"{kind} ×{len(usages)}: CPU {sum(cpu):.0f} % of a core, memory {sum(rss):.0f} MiB{each}")
    per_table = sum(u.cpu_s for u in result.usage.get("table worker", [])) / result.seconds / load.tables * 100
    central = sum(u.cpu_s for u in result.usage.get("central node", [])) / result.seconds / load.tables * 100
    lines.append(f"per table: {per_table:.2f} % of a core at the table's box, {central:.3f} % of a core at the centre")
    return lines


@click.command("bench-central")
@click.option("--tables", default=500, show_default=True, type=click.IntRange(1, 5000))
@click.option("--pits", default=5, show_default=True, type=click.IntRange(1, 50))
@click.option("--archivers", default=2, show_default=True, type=click.IntRange(1, 16))
@click.option("--workers", default=4, show_default=True, type=click.IntRange(1, 64),
              help="processes the simulated tables run in")
@click.option("--seconds", default=60.0, show_default=True, type=click.FloatRange(5, 3600))
@click.option("--alerts-per-min", default=1.0, show_default=True, type=click.FloatRange(0.1, 600))
@click.option("--events-per-s", default=10.0, show_default=True, type=click.FloatRange(0, 1000))
@click.option("--subscriber-qos", default=1, show_default=True, type=click.IntRange(0, 1),
              help="the central subscriber's QoS (1: NATS keeps a consumer of its own for it)")
@click.option("--dsn", default="postgresql://127.0.0.1:5432/test", show_default=True,
              help="PostgreSQL the archivers write to (tables of their own, dropped afterwards)")
def bench_central(tables: int, pits: int, archivers: int, workers: int, seconds: float, alerts_per_min: float,
                  events_per_s: float, subscriber_qos: int, dsn: str) -> None:
    """Many tables through pit brokers into the clustered central tier: alert latency to the archive and to a
    central subscriber, loss, CPU and memory per process kind."""
    load = Load(tables=tables, pits=pits, archivers=archivers, workers=min(workers, tables), seconds=seconds,
                alerts_per_min=alerts_per_min, events_per_s=events_per_s, subscriber_qos=subscriber_qos)
    with tempfile.TemporaryDirectory(prefix="tablewatch-central-") as tmp:
        try:
            result = run(load, dsn, Path(tmp))
        except (OSError, RuntimeError, ImportError) as exc:
            raise click.ClickException(str(exc)) from exc
    for line in report(result):
        click.echo(line)
