"""The central archivers: every finished hand, alert revision and incident revision from the central tier into
PostgreSQL.

All archivers of a site share one durable JetStream consumer per kind (``tablewatch-archive-hand``,
``…-alert``, ``…-incident``) on the stream where NATS stores each QoS 1 MQTT message (``$MQTT_msgs``): the
consumer hands each message to one archiver, and a message whose archiver died before acknowledging it goes to
another after ``ack_wait_s``. The consumers are replicated like the stream, so they survive a node too.

An archiver writes a whole batch in one transaction and acknowledges it only after the commit: a crash
mid-batch leaves nothing half-written and everything unacknowledged. Rows are keyed by ``msg_id`` (a message
sent twice — a bridge resending after a lost PUBACK, a redelivery after an archiver's death — is written
once). ``stream_seq`` keeps the order the central tier received them in.

Every payload is hostile until its schema accepts it and its site and table are the topic's: anything else
is terminated (never redelivered), counted and logged.

    python -m tablewatch.central.archiver --nats nats://central-1:4222,nats://central-2:4222 \\
        --dsn postgresql://archive@db/tablewatch --name archive-1
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import ssl
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from tablewatch.alerts.archive import HAND_COLUMNS, HANDS_DDL, ArchiveError, hand_row
from tablewatch.alerts.payloads import PayloadError, parse
from tablewatch.central.access import nats_subject
from tablewatch.central.cluster import MQTT_STREAM, make_mqtt_streams
from tablewatch.config import StrictModel

if TYPE_CHECKING:
    from nats.aio.msg import Msg
    from nats.js.client import JetStreamContext

log = logging.getLogger(__name__)

KINDS = ("hand", "alert", "incident")
PREFIX = "$MQTT.msgs."  # NATS files a message published on MQTT topic a/b/c as $MQTT.msgs.a.b.c

ALERTS_DDL = """
CREATE TABLE IF NOT EXISTS {table} (
    msg_id TEXT PRIMARY KEY,
    site TEXT NOT NULL,
    table_id TEXT NOT NULL,
    alert_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    rule_id TEXT NOT NULL,
    severity TEXT NOT NULL,
    hand_no BIGINT,
    raised_at TIMESTAMPTZ NOT NULL,
    payload JSONB NOT NULL,
    stream_seq BIGINT NOT NULL,
    archived_by TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
)
"""
ALERT_COLUMNS = "msg_id, site, table_id, alert_id, revision, rule_id, severity, hand_no, raised_at, payload, " \
                "stream_seq, archived_by"
# Every revision of every incident: the floor's reviews (who acknowledged, resolved or dismissed, and why) last here.
INCIDENTS_DDL = """
CREATE TABLE IF NOT EXISTS {table} (
    msg_id TEXT PRIMARY KEY,
    site TEXT NOT NULL,
    table_id TEXT NOT NULL,
    incident_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    state TEXT NOT NULL,
    severity TEXT NOT NULL,
    hand_no BIGINT,
    opened_at TIMESTAMPTZ NOT NULL,
    payload JSONB NOT NULL,
    stream_seq BIGINT NOT NULL,
    archived_by TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
)
"""
INCIDENT_COLUMNS = "msg_id, site, table_id, incident_id, revision, state, severity, hand_no, opened_at, payload, " \
                   "stream_seq, archived_by"


class ArchiverConfig(StrictModel):
    nats: list[str] = Field(..., min_length=1, description="nats:// URL of each central node")
    dsn: str = Field(..., description="postgresql://user@host:5432/db")
    name: str = Field(default="archive-1", pattern=r"^[A-Za-z0-9_.-]+$", description="unique per archiver process")
    site: str = Field(default="*", pattern=r"^(\*|[A-Za-z0-9_.-]+)$", description="one site's messages, or all")
    hands_table: str = Field(default="mqtt_hands", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    alerts_table: str = Field(default="mqtt_alerts", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    incidents_table: str = Field(default="mqtt_incidents", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    batch: int = Field(default=64, ge=1, le=10_000, description="messages per transaction")
    ack_wait_s: float = Field(default=30.0, ge=1, le=3600, description="a message unacknowledged this long goes to "
                                                                       "another archiver")
    mqtt: list[str] = Field(default_factory=list, description="host:port of each node's MQTT listener: where the "
                            "archiver connects once to have NATS make its MQTT streams, when it finds none (else it "
                            "waits for the first MQTT client, and what that client sends first may go unarchived)")
    user: str | None = Field(default=None, description="this archiver's user name on the central tier")
    password_file: Path | None = Field(default=None, description="file whose first line is the password")
    ca_file: Path | None = Field(default=None, description="CA of the central tier: TLS when set")

    def connect_options(self) -> dict[str, Any]:
        """nats.connect's credentials and TLS; ArchiveError naming a file that can't be read."""
        options: dict[str, Any] = {}
        if self.user:
            options["user"] = self.user
        if self.password_file is not None:
            options["password"] = self.password()
        if self.ca_file is not None:
            try:
                options["tls"] = ssl.create_default_context(cafile=str(self.ca_file))
            except (OSError, ssl.SSLError) as exc:
                raise ArchiveError(f"ca_file {self.ca_file}: can't load a CA certificate from it ({exc})") from exc
        return options

    def password(self) -> str | None:
        if self.password_file is None:
            return None
        try:
            return self.password_file.read_text(encoding="utf-8").splitlines()[0].strip()
        except (OSError, IndexError) as exc:
            raise ArchiveError(f"password_file {self.password_file}: can't read a password from it") from exc

    def consumer(self, kind: str) -> str:
        site = "all" if self.site == "*" else self.site.replace(".", "_")  # a consumer's name holds no dot
        return f"tablewatch-archive-{site}-{kind}"

    def subject(self, kind: str) -> str:
        return PREFIX + nats_subject(f"tablewatch/{self.site.replace('*', '+')}/+/{kind}")


@dataclass
class Counts:
    written: int = 0
    repeats: int = 0
    rejected: int = 0
    batches: int = 0


class Rejected(ValueError):
    """A message that is not a payload of its topic's kind, site and table."""


def decode(kind: str, subject: str, data: bytes) -> dict[str, Any]:
    """The payload of a message on ``subject``, checked against its schema and its topic; Rejected otherwise."""
    levels = [level.replace("//", ".") for level in subject.removeprefix(PREFIX).split(".")]
    if len(levels) != 4 or levels[0] != "tablewatch" or levels[3] != kind:
        raise Rejected(f"not a {kind} topic: {subject[:120]!r}")
    try:
        payload = parse(kind, data)
    except PayloadError as exc:
        raise Rejected(str(exc)) from None
    if (payload["site"], payload["table"]) != (levels[1], levels[2]):
        raise Rejected(f"payload of {payload['site']}/{payload['table']} on {levels[1]}/{levels[2]}'s topic")
    return payload


def one_line(exc: BaseException) -> str:
    """psycopg's messages run over several lines; a log line is one."""
    return " ".join(str(exc).split())


def alert_row(alert: dict[str, Any], stream_seq: int) -> tuple[object, ...]:
    return (alert["msg_id"], alert["site"], alert["table"], alert["id"], int(alert["revision"]), alert["rule_id"],
            alert["severity"], alert.get("hand_no"), alert["time"], json.dumps(alert), stream_seq)


def incident_row(incident: dict[str, Any], stream_seq: int) -> tuple[object, ...]:
    return (incident["msg_id"], incident["site"], incident["table"], incident["id"], int(incident["revision"]),
            incident["state"], incident["severity"], incident.get("hand_no"), incident["time"], json.dumps(incident),
            stream_seq)


ROWS = {"alert": alert_row, "incident": incident_row}  # the stream's order goes with them


class CentralArchiver:
    def __init__(self, config: ArchiverConfig) -> None:
        self.config = config
        self.counts = Counts()
        self._dbs: dict[str, Any] = {}
        self._nats_trouble = False

    async def run(self, stop: asyncio.Event, *, ready: asyncio.Event | None = None) -> Counts:
        """Archive until ``stop`` is set; ArchiveError when the database can't be used at the start."""
        import nats

        options = self.config.connect_options()
        self._dbs = {kind: await self._open_db() for kind in KINDS}  # one each: the kinds archive side by side
        client = await nats.connect(servers=self.config.nats, name=self.config.name, max_reconnect_attempts=-1,
                                    reconnect_time_wait=0.5, connect_timeout=5, error_cb=self._nats_error,
                                    disconnected_cb=self._nats_lost, reconnected_cb=self._nats_back, **options)
        self._nats_trouble = False  # connected: a later loss is news again
        try:
            js = client.jetstream(timeout=10)
            subs = {kind: await self._subscribe(js, kind) for kind in KINDS}
            if ready is not None:
                ready.set()
            await asyncio.gather(*(self._archive(kind, sub, stop) for kind, sub in subs.items()))
        finally:
            await client.close()
            for db in self._dbs.values():
                await db.close()
        return self.counts

    async def _nats_error(self, exc: Exception) -> None:
        """Said once until the connection is back: a central tier away for an hour is one line, not thousands."""
        if not self._nats_trouble:
            self._nats_trouble = True
            log.error("archive: the central tier (%s): %s; trying again", ", ".join(self.config.nats),
                      one_line(exc) or type(exc).__name__)

    async def _nats_lost(self) -> None:
        log.warning("archive: lost the central tier; reconnecting")

    async def _nats_back(self) -> None:
        self._nats_trouble = False
        log.info("archive: back on the central tier")

    async def _open_db(self) -> Any:
        try:
            import psycopg
        except ImportError as exc:
            raise ArchiveError("the archive needs psycopg: pip install 'tablewatch[central]'") from exc
        try:
            db = await psycopg.AsyncConnection.connect(self.config.dsn, connect_timeout=5)
            async with db.transaction():
                await db.execute(HANDS_DDL.format(table=self.config.hands_table))
                await db.execute(ALERTS_DDL.format(table=self.config.alerts_table))
                await db.execute(INCIDENTS_DDL.format(table=self.config.incidents_table))
        except psycopg.Error as exc:
            raise ArchiveError(f"can't use the archive database: {one_line(exc)}") from exc
        return db

    async def _subscribe(self, js: JetStreamContext, kind: str) -> Any:
        """Bind to the kind's shared durable consumer, making it when this is the first archiver."""
        import nats.errors
        from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
        from nats.js.errors import APIError, NotFoundError

        name = self.config.consumer(kind)
        while True:
            try:
                await js.add_consumer(MQTT_STREAM, ConsumerConfig(
                    durable_name=name, filter_subject=self.config.subject(kind), ack_policy=AckPolicy.EXPLICIT,
                    deliver_policy=DeliverPolicy.ALL, ack_wait=self.config.ack_wait_s, max_ack_pending=20_000))
                return await js.pull_subscribe_bind(durable=name, stream=MQTT_STREAM)
            except NotFoundError:  # made by NATS at its first MQTT connection: no bridge has connected yet
                await self._make_mqtt_streams()
            except (nats.errors.TimeoutError, nats.errors.NoRespondersError, APIError) as exc:
                log.warning("archive: JetStream is not ready (%s); trying again", one_line(exc) or type(exc).__name__)
                await asyncio.sleep(2)

    async def _make_mqtt_streams(self) -> None:
        """Have NATS make its MQTT streams by connecting to an MQTT listener (``mqtt``), or wait for a client to."""
        if not self.config.mqtt:
            log.warning("archive: the central tier has no %s stream yet; waiting for the first MQTT client "
                        "(--mqtt would make it)", MQTT_STREAM)
            await asyncio.sleep(2)
            return
        user = (self.config.user, self.config.password() or "") if self.config.user else None
        for address in self.config.mqtt:
            if await asyncio.to_thread(make_mqtt_streams, address, user=user, ca_file=self.config.ca_file,
                                       client_id=f"{self.config.name}-init", timeout=5.0):
                log.info("archive: had NATS make its MQTT streams through %s", address)
                return
        log.warning("archive: no MQTT listener took a connection (%s); trying again", ", ".join(self.config.mqtt))
        await asyncio.sleep(2)

    async def _archive(self, kind: str, sub: Any, stop: asyncio.Event) -> None:
        import nats.errors
        import psycopg

        while not stop.is_set():
            try:
                good = await self._sort_out(kind, await self._next_batch(sub))
            except nats.errors.Error as exc:  # a node going or coming: what was not acknowledged comes again
                log.warning("archive: reading %ss: %s; trying again", kind, one_line(exc) or type(exc).__name__)
                await asyncio.sleep(1)
                continue
            if not good:
                continue
            try:
                await self._write(kind, [row for _, row in good])
            except psycopg.Error as exc:  # the database went away: the batch waits in the cluster meanwhile
                log.error("archive: can't write %d %s(s) to the database (%s); they go back to the cluster",
                          len(good), kind, one_line(exc))
                with contextlib.suppress(nats.errors.Error):  # unanswered, they come back after ack_wait_s
                    for message, _ in good:
                        await message.nak(delay=2)
                self._dbs[kind] = await self._reopen_db(self._dbs[kind], stop)
                continue
            try:
                for message, _ in good:
                    await message.ack()
            except nats.errors.Error as exc:  # written already: a redelivery is a repeat the key absorbs
                log.warning("archive: acknowledging %ss: %s", kind, one_line(exc) or type(exc).__name__)
            self.counts.batches += 1

    async def _reopen_db(self, old: Any, stop: asyncio.Event) -> Any:
        with contextlib.suppress(Exception):
            await old.close()
        said = float("-inf")
        while not stop.is_set():
            try:
                return await self._open_db()
            except ArchiveError as exc:
                if time.monotonic() - said > 60:  # a line a minute while the database is away
                    said = time.monotonic()
                    log.error("archive: %s; trying again every 2 s", exc)
                await asyncio.sleep(2)
        return old

    async def _next_batch(self, sub: Any) -> list[Msg]:
        """The next message as soon as it comes (at most a second's wait), with whatever else is ready behind it:
        a batch never waits to fill up."""
        import nats.errors

        try:
            messages: list[Msg] = await sub.fetch(1, timeout=1.0)
        except nats.errors.TimeoutError:
            return []
        if self.config.batch > 1:
            with contextlib.suppress(nats.errors.TimeoutError):  # nothing else was ready
                messages += await sub.fetch(self.config.batch - 1, timeout=0.005)
        return messages

    async def _sort_out(self, kind: str, messages: list[Msg]) -> list[tuple[Msg, tuple[object, ...]]]:
        """Each message with its row; a message that is not a payload of its topic is terminated (never
        redelivered), counted and logged."""
        good: list[tuple[Msg, tuple[object, ...]]] = []
        for message in messages:
            try:
                payload = decode(kind, message.subject, message.data)
            except Rejected as exc:
                self.counts.rejected += 1
                log.warning("archive: refused a message on %s: %s", message.subject[:120], exc)
                await message.term()
                continue
            seq = message.metadata.sequence.stream
            row = hand_row(payload) if kind == "hand" else ROWS[kind](payload, seq)
            good.append((message, (*row, self.config.name)))
        return good

    async def _write(self, kind: str, rows: list[tuple[object, ...]]) -> None:
        table, columns = {"hand": (self.config.hands_table, HAND_COLUMNS),
                          "alert": (self.config.alerts_table, ALERT_COLUMNS),
                          "incident": (self.config.incidents_table, INCIDENT_COLUMNS)}[kind]
        marks = ", ".join("%s::jsonb" if column == "payload" else "%s" for column in columns.split(", "))
        sql = f"INSERT INTO {table} ({columns}) VALUES ({marks}) ON CONFLICT (msg_id) DO NOTHING"
        db = self._dbs[kind]
        written = 0
        async with db.transaction():  # the whole batch or none of it
            for row in rows:
                written += (await db.execute(sql, row)).rowcount
        self.counts.written += written
        self.counts.repeats += len(rows) - written


def main(argv: list[str] | None = None) -> int:
    """``python -m tablewatch.central.archiver --nats nats://c1:4222,nats://c2:4222 --dsn postgresql://…``"""
    parser = argparse.ArgumentParser(prog="python -m tablewatch.central.archiver", description=main.__doc__)
    parser.add_argument("--nats", required=True, help="comma-separated nats:// URLs of the central nodes")
    parser.add_argument("--dsn", required=True, help="postgresql://user@host:5432/db")
    parser.add_argument("--name", default="archive-1", help="unique per archiver process")
    parser.add_argument("--site", default="*", help="archive one site only (default: every site)")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--ack-wait", type=float, default=30.0, help="seconds before another archiver takes over")
    parser.add_argument("--mqtt", default="", help="comma-separated host:port of the nodes' MQTT listeners, to have "
                        "NATS make its MQTT streams before the first bridge connects")
    parser.add_argument("--user", help="this archiver's user name on the central tier")
    parser.add_argument("--password-file", type=Path, help="file whose first line is the password")
    parser.add_argument("--ca-file", type=Path, help="CA of the central tier (TLS)")
    parser.add_argument("--hands-table", default="mqtt_hands")
    parser.add_argument("--alerts-table", default="mqtt_alerts")
    parser.add_argument("--incidents-table", default="mqtt_incidents")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        config = ArchiverConfig(nats=args.nats.split(","), mqtt=[a for a in args.mqtt.split(",") if a], dsn=args.dsn,
                                name=args.name, site=args.site,
                                batch=args.batch, ack_wait_s=args.ack_wait, hands_table=args.hands_table,
                                alerts_table=args.alerts_table,
                                incidents_table=args.incidents_table, user=args.user, password_file=args.password_file,
                                ca_file=args.ca_file)
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    try:
        counts = asyncio.run(_serve(config))
    except ArchiveError as exc:
        print(f"error: {exc}")
        return 1
    print(f"archived {counts.written}, repeats {counts.repeats}, refused {counts.rejected}", flush=True)
    return 0


async def _serve(config: ArchiverConfig) -> Counts:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    ready = asyncio.Event()
    task = asyncio.create_task(CentralArchiver(config).run(stop, ready=ready))
    await asyncio.wait([task, asyncio.create_task(ready.wait())], return_when=asyncio.FIRST_COMPLETED)
    if not task.done():
        print(f"{config.name}: archiving {', '.join(KINDS)} from {', '.join(config.nats)}", flush=True)
    return await task


if __name__ == "__main__":
    raise SystemExit(main())
