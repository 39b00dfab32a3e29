"""The JSON payloads of every topic, built from ``tablewatch.events``; each names its schema and version.

Schemas live beside this module in ``schemas/<name>-<version>.json`` (JSON Schema 2020-12); a consumer
checks ``schema`` first (``"tablewatch/alert/1"``). A new optional field keeps the version; removing or
changing a field bumps it.

Message ids (``msg_id``) are derived from the content (site, table, session, what happened), never from a
counter in memory, so a message replayed from the outbox after a restart carries the same id and a
consumer that has seen it drops it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any, Literal, TypedDict

import jsonschema
from referencing import Registry, Resource

from tablewatch.alerts.handclips import HandClip
from tablewatch.events import CardDealt, Event, Violation

SCHEMA_VERSIONS = {"alert": 1, "alerts": 1, "event": 1, "hand": 1, "state": 1, "holecards": 1, "ack": 1, "stats": 1,
                   "incident": 1, "incidents": 1, "review": 1, "alerting": 1, "alerting-set": 1}
ChangeType = Literal["new", "update", "end"]
AlertStatus = Literal["open", "closed", "acknowledged"]


# --- The payloads' JSON form, as their schemas (``schemas/<name>-1.json``) define it -------------------


class Head(TypedDict):
    """What every payload starts with."""

    schema: str
    msg_id: str
    site: str
    table: str


class EvidenceDict(TypedDict):
    still_path: str | None
    still_url: str | None
    clip_path: str | None
    clip_url: str | None
    clip_ready: bool
    clip_from_ts: float | None
    clip_to_ts: float | None
    frame_ts: list[float]


class _Named(TypedDict, total=False):
    """Fields added within version 1, so optional: a consumer still reads a table not yet updated. (A base of
    its own: ``NotRequired`` is not seen in a TypedDict's postponed annotations before Python 3.12.)"""

    players: dict[str, str]  # seat (as text) → the player's name, where the console named them


class _Muted(TypedDict, total=False):
    muted: bool  # raised while its rule or table was muted or switched off: archived, no incident, no notification


class AlertPayload(Head, _Named, _Muted):
    type: ChangeType
    id: str
    revision: int
    time: str
    ts: float
    hand_no: int | None
    street: str | None
    seats: list[int]
    rule_id: str
    rule_title: str
    observed: str
    ruling: str
    severity: str
    confidence: float
    source: str
    evidence: EvidenceDict
    status: AlertStatus
    acknowledged_by: str | None


class EventPayload(Head):
    time: str
    redacted: bool
    event: dict[str, Any]  # ``Event.to_dict()``


class HoleCardsPayload(Head):
    time: str
    ts: float
    hand_no: int | None
    seat: int | None
    card: str | None


class HandClipPayload(TypedDict):
    path: str
    url: str | None  # None: the evidence folder is not served
    from_ts: float  # the recording's time 0 on the table's clock
    to_ts: float


class _Recorded(TypedDict, total=False):
    clip: HandClipPayload  # the hand's recording (``handclips``), when the table records hands


class HandPayload(Head, _Recorded):
    hand_no: int
    session: str
    time: str
    started_ts: float | None
    ended_ts: float
    phh: str | None
    hole_cards: dict[str, list[str]]  # seat -> hole cards seen by the cameras
    summary: dict[str, object]  # free form: winnings, violations…
    alerts: list[str]  # the ids of the hand's alerts


class LiveTable(_Named):
    """The live table (``state.LiveState``) as the state payload shows it."""

    hand_no: int | None
    street: str | None
    button: int | None
    seats: list[int]
    active: list[int]
    board: list[str | None]
    pot: int | None
    open_alerts: list[str]
    devices: dict[str, bool]
    last_ts: float | None


class MonitorHealth(TypedDict):
    """The publisher's own health (``publisher.Health``) in the state payload."""

    connected: bool
    backlog: int
    oldest_s: float
    dropped: int
    denied: int
    events_dropped: int
    problem: str | None


class StatePayload(Head, LiveTable):
    time: str
    monitor: MonitorHealth


class OpenAlertsPayload(Head):
    time: str
    alerts: list[AlertPayload]


class AckPayload(Head):
    alert_id: str
    by: str
    time: str
    note: str


class ReviewEntry(TypedDict):
    action: str
    by: str
    note: str
    time: str


class IncidentPayload(Head, _Named):
    type: ChangeType
    id: str
    revision: int
    notify: bool
    severity: str
    escalated_from: str | None
    state: str
    time: str
    ts: float
    last_ts: float
    hand_no: int | None
    hands: list[int]
    seats: list[int]
    rule_id: str
    rule_ids: list[str]
    rule_title: str
    observed: str
    ruling: str
    alerts: list[str]
    count: int
    evidence: EvidenceDict
    keep: bool
    reviews: list[ReviewEntry]
    bundles: list[str]


class OpenIncidentsPayload(Head):
    time: str
    incidents: list[IncidentPayload]


class ReviewPayload(Head):
    incident_id: str
    action: str
    by: str
    time: str
    note: str


class RuleSwitch(TypedDict):
    enabled: bool
    muted_until: str | None


class AlertingPayload(Head):
    time: str
    enabled: bool
    muted_until: str | None
    rules: dict[str, RuleSwitch]
    changed_by: str | None
    suppressed: dict[str, int]


class AlertingSetPayload(Head):
    by: str
    time: str
    rule_id: str | None
    enabled: bool | None
    mute_for_s: float | None
    note: str


Payload = AlertPayload | EventPayload | HoleCardsPayload | HandPayload | StatePayload | OpenAlertsPayload | AckPayload \
    | IncidentPayload | OpenIncidentsPayload | ReviewPayload | AlertingPayload | AlertingSetPayload


def schema_id(name: str) -> str:
    return f"tablewatch/{name}/{SCHEMA_VERSIONS[name]}"


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of payload ``name`` (``alert``, ``event``, ``hand``, ``state``, ``holecards``, ``ack``)."""
    if name not in SCHEMA_VERSIONS:
        raise ValueError(f"no schema named {name!r}; known: {', '.join(SCHEMA_VERSIONS)}")
    text = resources.files("tablewatch.alerts").joinpath(f"schemas/{name}-{SCHEMA_VERSIONS[name]}.json").read_text()
    return dict(json.loads(text))


class PayloadError(ValueError):
    """A payload read from the network that is not what its schema says; the message says what is wrong."""


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    registry: Registry[Any] = Registry().with_resources(
        (load_schema(n)["$id"], Resource.from_contents(load_schema(n))) for n in SCHEMA_VERSIONS)
    return jsonschema.Draft202012Validator(load_schema(name), registry=registry,
                                           format_checker=jsonschema.FormatChecker())


def parse(name: str, data: bytes) -> dict[str, Any]:
    """A payload of schema ``name`` read from the network: PayloadError unless it is JSON that the schema accepts."""
    try:
        body = json.loads(data)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise PayloadError(f"not JSON ({exc})") from None
    error = jsonschema.exceptions.best_match(_validator(name).iter_errors(body))
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "the payload"
        raise PayloadError(f"not a {schema_id(name)} payload: {where}: {error.message[:200]}")
    return dict(body)


def stable_id(prefix: str, *parts: object) -> str:
    digest = hashlib.sha1("|".join(map(str, parts)).encode(), usedforsecurity=False).hexdigest()[:16]
    return f"{prefix}-{digest}"


def iso_time(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Evidence:
    """Where the proof of an alert is. Paths are local files; URLs are set when the folder is served."""

    still_path: str | None = None
    still_url: str | None = None
    clip_path: str | None = None
    clip_url: str | None = None
    clip_ready: bool = False  # the clip is written only after the "after" seconds have been recorded
    clip_from_ts: float | None = None
    clip_to_ts: float | None = None
    frame_ts: tuple[float, ...] = ()

    def as_dict(self) -> EvidenceDict:
        return EvidenceDict(still_path=self.still_path, still_url=self.still_url, clip_path=self.clip_path,
                            clip_url=self.clip_url, clip_ready=self.clip_ready, clip_from_ts=self.clip_from_ts,
                            clip_to_ts=self.clip_to_ts, frame_ts=list(self.frame_ts))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Context:
    """What every payload of one table shares: where, and when the session's clock started."""

    site: str
    table: str
    session: str  # an id of the monitor's session: hand numbers repeat across sessions
    epoch: float  # wall-clock time (UNIX seconds) of ts == 0

    def time(self, ts: float) -> str:
        return iso_time(self.epoch + ts)

    def head(self, name: str, msg_id: str) -> Head:
        return {"schema": schema_id(name), "msg_id": msg_id, "site": self.site, "table": self.table}


def alert_id(ctx: Context, violation: Violation) -> str:
    return stable_id("al", ctx.site, ctx.table, ctx.session, violation.hand_no, violation.rule_id,
                     f"{violation.ts:.3f}", violation.seats)


def alert_payload(ctx: Context, violation: Violation, *, change: ChangeType = "new", revision: int = 0,
                  evidence: Evidence | None = None, acknowledged_by: str | None = None,
                  players: Mapping[int, str] | None = None) -> AlertPayload:
    """One alert revision. ``revision`` grows with each update; ``msg_id`` is ``<id>/<revision>``."""
    ident = alert_id(ctx, violation)
    evidence = evidence or Evidence(frame_ts=violation.evidence_ts)
    status: AlertStatus = "acknowledged" if acknowledged_by else ("closed" if change == "end" else "open")
    return {
        **ctx.head("alert", f"{ident}/{revision}"),
        "type": change,
        "id": ident,
        "revision": revision,
        "time": ctx.time(violation.ts),
        "ts": violation.ts,
        "hand_no": violation.hand_no,
        "street": violation.street,
        "seats": list(violation.seats),
        "rule_id": violation.rule_id,
        "rule_title": violation.title,
        "observed": violation.observed,
        "ruling": violation.ruling,
        "severity": str(violation.severity),
        "confidence": violation.confidence,
        "source": violation.source,
        "evidence": evidence.as_dict(),
        "status": status,
        "acknowledged_by": acknowledged_by,
        "players": names_payload(players or {}, violation.seats),
    }


NAME_SHOWN = re.compile(r".{1,40}")  # what the schemas take: one line, at most 40 characters (as the console keys)


def names_payload(players: Mapping[int, str], seats: Iterable[int] | None = None) -> dict[str, str]:
    """Seat (as text) → name, for ``seats`` (all when None); a name the schemas would refuse (a hand history's long
    or multi-line name) is left out rather than sinking the whole payload."""
    wanted = players.keys() if seats is None else seats
    return {str(seat): name for seat in sorted(wanted) if (name := players.get(seat)) and NAME_SHOWN.fullmatch(name)}


def seat_names(seats: Sequence[int], players: Mapping[str, str]) -> str:
    """``3 (Bo Chan), 5``: an alert's seats, each with its player's name where the table sent one."""
    return ", ".join(f"{seat} ({players[str(seat)]})" if str(seat) in players else str(seat) for seat in seats)


def event_payload(ctx: Context, event: Event, *, redacted: bool) -> EventPayload:
    body = event.to_dict()
    ident = stable_id("ev", ctx.site, ctx.table, ctx.session, json.dumps(body, sort_keys=True))
    return {**ctx.head("event", ident), "time": ctx.time(event.ts), "redacted": redacted, "event": body}


def holecards_payload(ctx: Context, event: CardDealt, *, hand_no: int | None) -> HoleCardsPayload:
    ident = stable_id("hc", ctx.site, ctx.table, ctx.session, hand_no, event.seat, event.card, f"{event.ts:.3f}")
    return {**ctx.head("holecards", ident), "time": ctx.time(event.ts), "ts": event.ts, "hand_no": hand_no,
            "seat": event.seat, "card": event.card}


def hand_id(ctx: Context, hand_no: int) -> str:
    return stable_id("hd", ctx.site, ctx.table, ctx.session, hand_no)


def hand_payload(ctx: Context, *, hand_no: int, started_ts: float | None, ended_ts: float, phh: str | None,
                 summary: Mapping[str, object], alert_ids: Sequence[str],
                 hole_cards: Mapping[int, Sequence[str]] | None = None, clip: HandClip | None = None) -> HandPayload:
    payload: HandPayload = {
        **ctx.head("hand", hand_id(ctx, hand_no)), "hand_no": hand_no, "session": ctx.session,
        "time": ctx.time(ended_ts), "started_ts": started_ts, "ended_ts": ended_ts, "phh": phh,
        "hole_cards": {str(seat): list(cards) for seat, cards in (hole_cards or {}).items()},
        "summary": dict(summary), "alerts": list(alert_ids)}
    if clip is not None:
        payload["clip"] = {"path": str(clip.path), "url": clip.url, "from_ts": clip.from_ts, "to_ts": clip.to_ts}
    return payload


def state_payload(ctx: Context, *, seq: int, state: LiveTable, monitor: MonitorHealth, now: float) -> StatePayload:
    ident = stable_id("st", ctx.site, ctx.table, ctx.session, seq)
    return {**ctx.head("state", ident), "time": iso_time(now), **state, "monitor": monitor.copy()}


def open_alerts_payload(ctx: Context, *, seq: int, alerts: Sequence[AlertPayload], now: float) -> OpenAlertsPayload:
    ident = stable_id("oa", ctx.site, ctx.table, ctx.session, seq)
    return {**ctx.head("alerts", ident), "time": iso_time(now), "alerts": [a.copy() for a in alerts]}


def ack_payload(*, site: str, table: str, alert: str, by: str, now: float, note: str = "") -> AckPayload:
    return {"schema": schema_id("ack"), "msg_id": stable_id("ak", site, table, alert, by), "site": site,
            "table": table, "alert_id": alert, "by": by, "time": iso_time(now), "note": note}


def incident_payload(ctx: Context, *, ident: str, change: ChangeType, revision: int, notify: bool, severity: str,
                     state: str, escalated_from: str | None, alerts: Sequence[AlertPayload], lead: AlertPayload,
                     repeats: int, keep: bool, reviews: Sequence[ReviewEntry],
                     bundles: Sequence[str]) -> IncidentPayload:
    """One incident revision (``incidents.IncidentBook``): its leading alert speaks for it, as published (so with
    the cards of a hand in play hidden, like the alert)."""
    players: dict[str, str] = {}
    for alert in alerts:
        players.update(alert.get("players", {}))
    return {
        **ctx.head("incident", f"{ident}/{revision}"),
        "type": change, "id": ident, "revision": revision, "notify": notify, "severity": severity,
        "escalated_from": escalated_from, "state": state, "time": alerts[0]["time"], "ts": alerts[0]["ts"],
        "last_ts": max(a["ts"] for a in alerts), "hand_no": lead["hand_no"],
        "hands": sorted({a["hand_no"] for a in alerts if a["hand_no"] is not None}),
        "seats": sorted({seat for a in alerts for seat in a["seats"]}), "rule_id": lead["rule_id"],
        "rule_ids": sorted({a["rule_id"] for a in alerts}), "rule_title": lead["rule_title"],
        "observed": lead["observed"], "ruling": lead["ruling"], "alerts": [a["id"] for a in alerts],
        "count": repeats, "evidence": dict(lead["evidence"]),  # type: ignore[typeddict-item]
        "keep": keep, "reviews": [dict(r) for r in reviews],  # type: ignore[misc]
        "bundles": list(bundles), "players": players,
    }


def open_incidents_payload(ctx: Context, *, seq: int, incidents: Sequence[IncidentPayload],
                           now: float) -> OpenIncidentsPayload:
    ident = stable_id("oi", ctx.site, ctx.table, ctx.session, seq)
    return {**ctx.head("incidents", ident), "time": iso_time(now), "incidents": [i.copy() for i in incidents]}


def review_payload(*, site: str, table: str, incident: str, action: str, by: str, now: float,
                   note: str = "") -> ReviewPayload:
    return {"schema": schema_id("review"), "msg_id": stable_id("rv", site, table, incident, action, by, f"{now:.3f}"),
            "site": site, "table": table, "incident_id": incident, "action": action, "by": by,
            "time": iso_time(now), "note": note}


def alerting_set_payload(*, site: str, table: str, by: str, now: float, rule_id: str | None = None,
                         enabled: bool | None = None, mute_for_s: float | None = None,
                         note: str = "") -> AlertingSetPayload:
    return {"schema": schema_id("alerting-set"),
            "msg_id": stable_id("as", site, table, by, rule_id, enabled, mute_for_s, f"{now:.3f}"),
            "site": site, "table": table, "by": by, "time": iso_time(now), "rule_id": rule_id, "enabled": enabled,
            "mute_for_s": mute_for_s, "note": note}


def dumps(payload: Payload) -> str:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"))
