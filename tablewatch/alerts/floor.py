"""The floor's terminal console: live alerts, every table's status, and acknowledgements.

``FloorBoard`` is the plain model (fed MQTT messages, tested without a terminal); ``render`` draws it
with rich; ``FloorConsole`` connects, subscribes, and sends acks (``tablewatch/<site>/<table>/ack/<user>``).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from rich.console import Group
from rich.table import Table
from rich.text import Text

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.config import BrokerConfig, check_user
from tablewatch.alerts.connection import connect, make_client
from tablewatch.alerts.dedupe import SeenIds
from tablewatch.alerts.topics import TableTopics, all_tables, split_topic

log = logging.getLogger(__name__)
SEVERITY_STYLE = {"violation": "bold red", "advisory": "yellow", "system": "cyan"}


@dataclass
class TableView:
    status: str = "unknown"
    state: dict[str, Any] = field(default_factory=dict)


STATUSES = ("online", "offline")


@dataclass
class FloorBoard:
    tables: dict[str, TableView] = field(default_factory=dict)
    alerts: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> newest revision
    seen: SeenIds = field(default_factory=SeenIds)
    rejected: int = 0  # payloads skipped: not JSON, or not what their topic's schema says

    def apply(self, topic: str, payload: bytes) -> None:
        """Fold in one message; a payload its schema refuses is skipped, counted and logged."""
        site, table, leaf = split_topic(topic)
        try:
            if leaf == "status":
                status = payload.decode("utf-8", errors="replace")
                if status not in STATUSES:
                    raise pl.PayloadError(f"status {status[:40]!r} is not one of {', '.join(STATUSES)}")
                self._view(site, table).status = status
            elif leaf in ("state", "alert", "alerts"):
                body = pl.parse(leaf, payload)
                if leaf == "state":
                    self._view(site, table).state = body
                for alert in body["alerts"] if leaf == "alerts" else [body] if leaf == "alert" else []:
                    self._alert(alert)
                    self._view(site, table)
        except pl.PayloadError as exc:
            self.rejected += 1
            log.warning("skipped a message on %s (%d skipped so far): %s", topic, self.rejected, exc)

    def _view(self, site: str, table: str) -> TableView:
        return self.tables.setdefault(f"{site}/{table}", TableView())

    def _alert(self, body: dict[str, Any]) -> None:
        if not self.seen.first_time(str(body["msg_id"])):
            return
        known = self.alerts.get(body["id"])
        if known is None or known["revision"] < body["revision"]:
            self.alerts[body["id"]] = body

    def ordered(self) -> list[dict[str, Any]]:
        """Open alerts first, newest first within each group."""
        return sorted(self.alerts.values(), key=lambda a: (a["status"] != "open", _neg(a["time"])))

    def find(self, key: str) -> dict[str, Any]:
        """An alert by its row number on screen (1-based) or by a unique prefix of its id."""
        ordered = self.ordered()
        if key.isdigit() and 1 <= int(key) <= len(ordered):
            return ordered[int(key) - 1]
        matches = [a for a in ordered if a["id"].startswith(key)]
        if len(matches) != 1:
            raise KeyError(f"no single alert matches {key!r} ({len(matches)} match)")
        return matches[0]


def _neg(text: str) -> str:
    return "".join(chr(0x10FFFF - ord(c)) for c in text)


def render(board: FloorBoard, *, limit: int = 30) -> Group:
    """Every cell is a ``Text``: what the network sent is shown as it is, never read as rich markup."""
    tables = Table(title="Tables", expand=True)
    for column in ("table", "status", "hand", "street", "open alerts", "outbox", "problem"):
        tables.add_column(column)
    for key, view in sorted(board.tables.items()):
        state, monitor = view.state, view.state.get("monitor", {})
        style = "green" if view.status == "online" else "red"
        tables.add_row(Text(key), Text(view.status, style=style), Text(str(state.get("hand_no") or "")),
                       Text(state.get("street") or ""), Text(str(len(state.get("open_alerts", [])))),
                       Text(str(monitor.get("backlog", ""))), Text(monitor.get("problem") or ""))
    skipped = f"; {board.rejected} malformed message(s) skipped" if board.rejected else ""
    alerts = Table(title=Text(f"Alerts (acknowledge: type the row number and Enter; q quits){skipped}"), expand=True)
    for column in ("#", "time", "table", "hand", "rule", "seats", "what was seen", "ruling", "status"):
        alerts.add_column(column, overflow="fold")
    for n, alert in enumerate(board.ordered()[:limit], start=1):
        status = alert["status"] + (f" by {alert['acknowledged_by']}" if alert.get("acknowledged_by") else "")
        alerts.add_row(Text(str(n)), Text(alert["time"][11:19]), Text(f"{alert['site']}/{alert['table']}"),
                       Text(str(alert["hand_no"] or "")),
                       Text(alert["rule_id"], style=SEVERITY_STYLE.get(alert["severity"], "")),
                       Text(pl.seat_names(alert["seats"], alert.get("players", {}))), Text(alert["observed"]),
                       Text(alert["ruling"]),
                       Text(status))
    return Group(tables, alerts)


def acknowledging_as(broker: BrokerConfig, name: str | None) -> str:
    """Who our acknowledgements name: the broker's user name (the ACL holds us to it), else ``name``."""
    user, _ = broker.resolved_credentials()
    if user is not None and name not in (None, user):
        raise ValueError(f"acknowledgements go out as the broker user {user!r}, not as {name!r}")
    return check_user(user or name or "floor")


class FloorConsole:
    """Subscribes to every table of ``site`` (``+``: all sites) and keeps a FloorBoard up to date."""

    def __init__(self, broker: BrokerConfig, *, site: str = "+", by: str | None = None) -> None:
        self.broker = broker
        self.site = site
        self.by = acknowledging_as(broker, by)
        self.board = FloorBoard()
        self.changed = threading.Event()
        self._lock = threading.Lock()
        self.client = make_client(broker, f"tablewatch-floor-{self.by}-{int(time.time() * 1000) % 100000}")
        self.client.on_message = self._on_message
        self.client.on_connect = self._on_connect

    def start(self) -> FloorConsole:
        connect(self.client, self.broker)
        self._subscribe()
        return self

    def _subscribe(self) -> None:
        for leaf in ("alert", "alerts", "status", "state"):
            self.client.subscribe(all_tables(leaf, self.site), qos=1)

    def _on_connect(self, *_: object) -> None:  # after a reconnect: subscribe again (clean session)
        self._subscribe()

    def _on_message(self, _c: mqtt.Client, _u: object, message: mqtt.MQTTMessage) -> None:
        try:
            with self._lock:
                self.board.apply(message.topic, bytes(message.payload))
        except ValueError:
            log.warning("ignored a message on %s", message.topic)
        self.changed.set()

    def acknowledge(self, key: str, *, note: str = "") -> str:
        """Acknowledge an alert (row number or id prefix); returns its id. KeyError when none matches."""
        with self._lock:
            alert = self.board.find(key)
        topics = TableTopics(alert["site"], alert["table"])
        ack = pl.ack_payload(site=alert["site"], table=alert["table"], alert=alert["id"], by=self.by,
                             now=time.time(), note=note)
        self.client.publish(topics.ack_by(self.by), pl.dumps(ack), qos=1).wait_for_publish(5)
        return str(alert["id"])

    def snapshot(self) -> Group:
        with self._lock:
            return render(self.board)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
