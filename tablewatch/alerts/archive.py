"""The hand archive's MQTT consumer: finished hands from every table into PostgreSQL.

Several archivers share the load with an MQTT shared subscription (``$share/<group>/tablewatch/+/+/hand``):
the broker hands each message to one member of the group. Each row is keyed by ``msg_id``, so a hand
delivered twice (QoS 1 after an outage) is written once. paho acknowledges a QoS 1 message after
``on_message`` returns, and the row is committed inside it: an archiver that dies mid-write gets the
hand again (its session is persistent).

    archiver = HandArchiver(BrokerConfig(url=...), "postgresql://archive@db/tablewatch").start()
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt

from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.connection import connect, make_client
from tablewatch.alerts.topics import all_tables

if TYPE_CHECKING:
    from paho.mqtt.properties import Properties
    from paho.mqtt.reasoncodes import ReasonCode

log = logging.getLogger(__name__)

HANDS_DDL = """
CREATE TABLE IF NOT EXISTS {table} (
    msg_id TEXT PRIMARY KEY,
    site TEXT NOT NULL,
    table_id TEXT NOT NULL,
    session TEXT NOT NULL,
    hand_no BIGINT NOT NULL,
    ended_at TIMESTAMPTZ NOT NULL,
    payload JSONB NOT NULL,
    archived_by TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""


HAND_COLUMNS = "msg_id, site, table_id, session, hand_no, ended_at, payload, archived_by"


def hand_row(hand: Any) -> tuple[str, str, str, str, int, str, str]:
    """The columns of ``HANDS_DDL`` a hand payload fills (all but ``archived_by``); KeyError/TypeError/ValueError
    for anything that is not a hand payload."""
    return (hand["msg_id"], hand["site"], hand["table"], hand["session"], int(hand["hand_no"]), hand["time"],
            json.dumps(hand))


class ArchiveError(RuntimeError):
    """The database can't be reached or written; the message says which and why."""


class HandArchiver:
    def __init__(self, broker: BrokerConfig, dsn: str, *, group: str = "archive", site: str = "+",
                 client_id: str = "tablewatch-archive-1", table: str = "mqtt_hands") -> None:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", table):
            raise ValueError(f"table name {table!r} must be letters, digits and underscores")
        self.broker = broker
        self.dsn = dsn
        self.table = table
        self.client_id = client_id
        self.subscription = f"$share/{group}/{all_tables('hand', site)}"
        self.written = 0
        self.repeats = 0
        self.rejected = 0
        self._lock = threading.Lock()
        self._db: Any = None
        self.client = make_client(broker, client_id)
        self.client.on_message = self._on_message
        self.client.on_connect = self._on_connect

    def start(self) -> HandArchiver:
        try:
            import psycopg
        except ImportError as exc:
            raise ArchiveError("the hand archive needs psycopg: pip install 'psycopg[binary]'") from exc
        try:
            self._db = psycopg.connect(self.dsn, autocommit=True, connect_timeout=5)
            self._db.execute(HANDS_DDL.format(table=self.table))
        except psycopg.Error as exc:
            raise ArchiveError(f"can't use the archive database: {exc}".strip()) from exc
        connect(self.client, self.broker, clean_start=False, session_expiry_s=7 * 24 * 3600)
        self.client.subscribe(self.subscription, qos=1)
        return self

    def _on_connect(self, _c: mqtt.Client, _u: object, _flags: mqtt.ConnectFlags, _reason: ReasonCode,
                    _properties: Properties | None) -> None:
        self.client.subscribe(self.subscription, qos=1)

    def _on_message(self, _c: mqtt.Client, _u: object, message: mqtt.MQTTMessage) -> None:
        try:
            row = (*hand_row(json.loads(message.payload)), self.client_id)
        except (ValueError, KeyError, TypeError):
            self.rejected += 1
            log.warning("archive: not a hand payload on %s: %r", message.topic, message.payload[:200])
            return
        with self._lock:
            cur = self._db.execute(
                f"INSERT INTO {self.table} ({HAND_COLUMNS})"
                " VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb, %s) ON CONFLICT (msg_id) DO NOTHING", row)
            if cur.rowcount:
                self.written += 1
            else:
                self.repeats += 1

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        if self._db is not None:
            self._db.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m tablewatch.alerts.archive --url mqtts://pit:8883 --username archive-1 --dsn postgresql://…``"""
    import argparse
    import signal

    from tablewatch.alerts.connection import BrokerError

    parser = argparse.ArgumentParser(prog="python -m tablewatch.alerts.archive", description=main.__doc__)
    parser.add_argument("--url", default="mqtt://127.0.0.1:1883")
    parser.add_argument("--username")
    parser.add_argument("--password-file")
    parser.add_argument("--ca-file")
    parser.add_argument("--dsn", required=True, help="postgresql://user@host:5432/db")
    parser.add_argument("--client-id", default="tablewatch-archive-1", help="unique per archiver process")
    parser.add_argument("--group", default="archive", help="shared subscription group")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        broker = BrokerConfig(url=args.url, username=args.username, password_file=args.password_file,
                              ca_file=args.ca_file)
        archiver = HandArchiver(broker, args.dsn, group=args.group, client_id=args.client_id).start()
    except (ValueError, ArchiveError, BrokerError) as exc:
        print(f"error: {exc}")
        return 1
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(60):
            log.info("archived %d hand(s), %d repeat(s), %d rejected", archiver.written, archiver.repeats,
                     archiver.rejected)
    except KeyboardInterrupt:
        pass
    archiver.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
