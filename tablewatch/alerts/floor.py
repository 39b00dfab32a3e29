"""The floor's terminal console: incidents to review, every table's status and alerting switches.

``FloorBoard`` is the plain model (fed MQTT messages, tested without a terminal); ``render`` draws it
with rich; ``FloorConsole`` connects, subscribes, and sends the floor's commands: reviews of incidents
(``…/review/<user>``), alerting switches (``…/alerting/set/<user>``) and acks of single alerts (``…/ack/<user>``).
``command`` reads one typed line (``help`` lists them).
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
    incidents: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> newest revision
    switches: dict[str, dict[str, Any]] = field(default_factory=dict)  # "site/table" -> its alerting/state
    seen: SeenIds = field(default_factory=SeenIds)
    rejected: int = 0  # payloads skipped: not JSON, or not what their topic's schema says
    rings: int = 0  # incident revisions that asked to notify, as they came live (not from a retained snapshot)

    def apply(self, topic: str, payload: bytes) -> None:
        """Fold in one message; a payload its schema refuses is skipped, counted and logged."""
        site, table, leaf = split_topic(topic)
        try:
            if leaf == "status":
                status = payload.decode("utf-8", errors="replace")
                if status not in STATUSES:
                    raise pl.PayloadError(f"status {status[:40]!r} is not one of {', '.join(STATUSES)}")
                self._view(site, table).status = status
            elif leaf in ("state", "alert", "alerts", "incident", "incidents", "alerting/state"):
                body = pl.parse(leaf.replace("/state", ""), payload)
                self._view(site, table)
                if leaf == "state":
                    self._view(site, table).state = body
                elif leaf == "alerting/state":
                    self.switches[f"{site}/{table}"] = body
                for alert in body["alerts"] if leaf == "alerts" else [body] if leaf == "alert" else []:
                    self._alert(alert)
                for incident in body["incidents"] if leaf == "incidents" else [body] if leaf == "incident" else []:
                    self._incident(incident, live=leaf == "incident")
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

    def _incident(self, body: dict[str, Any], *, live: bool) -> None:
        if not self.seen.first_time(str(body["msg_id"])):
            return
        known = self.incidents.get(body["id"])
        if known is None or known["revision"] < body["revision"]:
            self.incidents[body["id"]] = body
            self.rings += live and body["notify"]

    def ordered(self) -> list[dict[str, Any]]:
        """Open alerts first, newest first within each group."""
        return sorted(self.alerts.values(), key=lambda a: (a["status"] != "open", _neg(a["time"])))

    def ordered_incidents(self) -> list[dict[str, Any]]:
        """Incidents to act on (open, then acknowledged) before those closed, newest first within each state."""
        rank = {"open": 0, "acknowledged": 1}
        return sorted(self.incidents.values(), key=lambda i: (rank.get(i["state"], 2), _neg(i["time"])))

    def loose_alerts(self) -> list[dict[str, Any]]:
        """Open alerts no incident holds (a table not yet sending incidents); muted ones are left out."""
        held = {a for i in self.incidents.values() for a in i["alerts"]}
        return [a for a in self.ordered() if a["status"] == "open" and a["id"] not in held and not a.get("muted")]

    def find_incident(self, key: str) -> dict[str, Any]:
        """An incident by its row number on screen (1-based) or by a unique prefix of its id."""
        return _pick(self.ordered_incidents(), key, "incident")

    def find(self, key: str) -> dict[str, Any]:
        """An alert by its row number on screen (1-based) or by a unique prefix of its id."""
        return _pick(self.ordered(), key, "alert")


def _pick(ordered: list[dict[str, Any]], key: str, what: str) -> dict[str, Any]:
    """Row ``key`` (1-based) of ``ordered``, or the one item whose id starts with it; KeyError otherwise."""
    if key.isdigit() and 1 <= int(key) <= len(ordered):
        return ordered[int(key) - 1]
    matches = [item for item in ordered if item["id"].startswith(key)]
    if len(matches) != 1:
        raise KeyError(f"no single {what} matches {key!r} ({len(matches)} match)")
    return matches[0]


def _neg(text: str) -> str:
    return "".join(chr(0x10FFFF - ord(c)) for c in text)


def render(board: FloorBoard, *, limit: int = 30) -> Group:
    """Every cell is a ``Text``: what the network sent is shown as it is, never read as rich markup."""
    tables = Table(title="Tables", expand=True)
    for column in ("table", "status", "hand", "street", "open alerts", "alerting", "outbox", "problem"):
        tables.add_column(column)
    for key, view in sorted(board.tables.items()):
        state, monitor = view.state, view.state.get("monitor", {})
        style = "green" if view.status == "online" else "red"
        tables.add_row(Text(key), Text(view.status, style=style), Text(str(state.get("hand_no") or "")),
                       Text(state.get("street") or ""), Text(str(len(state.get("open_alerts", [])))),
                       Text(_alerting(board.switches.get(key))), Text(str(monitor.get("backlog", ""))),
                       Text(monitor.get("problem") or ""))
    skipped = f"; {board.rejected} malformed message(s) skipped" if board.rejected else ""
    incidents = Table(title=Text(f"Incidents (type help and Enter for the commands; q quits){skipped}"), expand=True)
    for column in ("#", "time", "table", "hand", "rule", "seats", "alerts", "what was seen", "ruling", "state"):
        incidents.add_column(column, overflow="fold")
    for n, incident in enumerate(board.ordered_incidents()[:limit], start=1):
        incidents.add_row(Text(str(n)), Text(incident["time"][11:19]), Text(f"{incident['site']}/{incident['table']}"),
                          Text(",".join(map(str, incident["hands"]))),
                          Text(incident["rule_id"], style=SEVERITY_STYLE.get(incident["severity"], "")),
                          Text(pl.seat_names(incident["seats"], incident.get("players", {}))),
                          Text(str(incident["count"])), Text(incident["observed"]), Text(incident["ruling"]),
                          Text(_review_state(incident)))
    shown: list[Table] = [tables, incidents]
    loose = board.loose_alerts()
    if loose:
        shown.append(_alerts_table(loose[:limit]))
    return Group(*shown)


def _alerts_table(alerts: list[dict[str, Any]]) -> Table:
    table = Table(title="Alerts outside incidents (a table of an older version; ack ID acknowledges)", expand=True)
    for column in ("time", "id", "table", "hand", "rule", "seats", "what was seen", "ruling"):
        table.add_column(column, overflow="fold")
    for alert in alerts:
        table.add_row(Text(alert["time"][11:19]), Text(alert["id"]), Text(f"{alert['site']}/{alert['table']}"),
                      Text(str(alert["hand_no"] or "")),
                      Text(alert["rule_id"], style=SEVERITY_STYLE.get(alert["severity"], "")),
                      Text(pl.seat_names(alert["seats"], alert.get("players", {}))), Text(alert["observed"]),
                      Text(alert["ruling"]))
    return table


def _review_state(incident: dict[str, Any]) -> str:
    last = incident["reviews"][-1] if incident["reviews"] else None
    said = f" by {last['by']}" + (f": {last['note']}" if last["note"] else "") if last else ""
    return incident["state"] + said + (" · kept" if incident["keep"] else "")


def _alerting(switches: dict[str, Any] | None) -> str:
    """``off`` / ``muted to 08:45`` for the table, then the rules switched off or muted."""
    if switches is None:
        return ""
    parts = [] if switches["enabled"] else ["off"]
    if switches["muted_until"]:
        parts.append(f"muted to {switches['muted_until'][11:16]}")
    for rule, switch in switches["rules"].items():
        parts.append(f"{rule} " + ("off" if not switch["enabled"] else f"muted to {switch['muted_until'][11:16]}"))
    return "; ".join(parts) or "on"


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
        self.client.on_subscribe = self._on_subscribe
        self._waiting: set[int] = set()  # subscriptions the broker has not granted yet
        self.subscribed = threading.Event()  # every one granted: what the tables send from now on arrives

    def start(self) -> FloorConsole:
        connect(self.client, self.broker)
        self._subscribe()
        return self

    def _subscribe(self) -> None:
        self.subscribed.clear()
        for leaf in ("alert", "alerts", "incident", "incidents", "alerting/state", "status", "state"):
            _, mid = self.client.subscribe(all_tables(leaf, self.site), qos=1)
            if mid is not None:
                self._waiting.add(mid)

    def _on_subscribe(self, _c: mqtt.Client, _u: object, mid: int, *_: object) -> None:
        self._waiting.discard(mid)
        if not self._waiting:
            self.subscribed.set()

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

    def review(self, key: str, action: str, *, note: str = "") -> str:
        """Review an incident (row number or id prefix); returns its id. KeyError when none matches; ValueError for a
        dismissal with no reason (the table would refuse it)."""
        if action == "dismiss" and not note.strip():
            raise ValueError("a dismissal needs a reason: d ROW REASON")
        with self._lock:
            incident = self.board.find_incident(key)
        topics = TableTopics(incident["site"], incident["table"])
        body = pl.review_payload(site=incident["site"], table=incident["table"], incident=incident["id"], action=action,
                                 by=self.by, now=time.time(), note=note)
        self.client.publish(topics.review_by(self.by), pl.dumps(body), qos=1).wait_for_publish(5)
        return str(incident["id"])

    def set_alerting(self, table: str, *, rule: str | None = None, enabled: bool | None = None,
                     mute_for_s: float | None = None) -> None:
        """Switch or mute ``table``'s alerting (``site/table``), or one rule's. KeyError for a table not seen."""
        with self._lock:
            if table not in self.board.tables:
                raise KeyError(f"no table {table!r} seen (site/table, as in the Tables list)")
        site, name = table.split("/", 1)
        body = pl.alerting_set_payload(site=site, table=name, by=self.by, now=time.time(), rule_id=rule,
                                       enabled=enabled, mute_for_s=mute_for_s)
        self.client.publish(TableTopics(site, name).alerting_set_by(self.by), pl.dumps(body),
                            qos=1).wait_for_publish(5)

    def snapshot(self) -> Group:
        with self._lock:
            return render(self.board)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


COMMANDS_HELP = """commands (ROW: a row of Incidents, or an id prefix; TABLE: site/table as in Tables):
  ROW [NOTE] | a ROW [NOTE]   acknowledge        r ROW [NOTE]   resolve        d ROW REASON   dismiss as false
  o ROW NOTE                  reopen             k ROW / u ROW  keep / release its evidence   x ROW  export the case
  mute TABLE [RULE] MINUTES   mute (0 unmutes)   off TABLE [RULE] / on TABLE [RULE]   switch alerting
  ack ALERT_ID                acknowledge one alert of a table that sends no incidents      q  quit"""
_REVIEWS = {"a": "acknowledge", "r": "resolve", "d": "dismiss", "o": "reopen", "k": "keep", "u": "release",
            "x": "export"}


def command(console: FloorConsole, line: str) -> str:
    """Carry out one typed line; returns what to show (``help`` lists the commands). Never raises for bad input."""
    words = line.split()
    if not words:
        return ""
    head, rest = words[0].lower(), words[1:]
    try:
        if head == "help":
            return COMMANDS_HELP
        if head.isdigit() or head.startswith("in-"):
            return f"acknowledged {console.review(words[0], 'acknowledge', note=' '.join(rest))}"
        if head in _REVIEWS and rest:
            action = _REVIEWS[head]
            return f"{action}: {console.review(rest[0], action, note=' '.join(rest[1:]))}"
        if head in ("mute", "off", "on") and rest:
            return _switch(console, head, rest)
        if head == "ack" and len(rest) == 1:
            return f"acknowledged {console.acknowledge(rest[0])}"
    except (KeyError, ValueError) as exc:
        return str(exc.args[0])
    return f"not a command: {line.strip()[:60]!r} (type help)"


def _switch(console: FloorConsole, head: str, words: list[str]) -> str:
    table, rule = words[0], None
    if head == "mute":
        if len(words) not in (2, 3):
            raise ValueError("mute TABLE [RULE] MINUTES")
        rule = words[1] if len(words) == 3 else None
        try:
            minutes = float(words[-1])
        except ValueError:
            raise ValueError(f"minutes must be a number, not {words[-1]!r}") from None
        if not 0 <= minutes <= 1440:
            raise ValueError("mute for 0 (unmute) to 1440 minutes")
        console.set_alerting(table, rule=rule, mute_for_s=minutes * 60)
        return f"{table} {rule or 'all rules'}: " + (f"muted for {minutes:g} min" if minutes else "unmuted")
    rule = words[1] if len(words) > 1 else None
    console.set_alerting(table, rule=rule, enabled=head == "on")
    return f"{table} {rule or 'all rules'}: alerting {head}"
