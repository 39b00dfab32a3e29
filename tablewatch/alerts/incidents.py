"""Incidents: the alerts that belong together, as one item to review, with one notification.

An alert is one finding; a surveillance room reviews incidents. ``IncidentBook`` folds the table's alert
revisions into incidents (the same idea as Frigate's review items):

- every revision of one alert belongs to the alert's incident;
- a hand's alerts of one rule (``TDA-22A(7)`` and ``TDA-22A(2)`` are one rule, TDA-22A) are one incident, and
  all the alerts of one hand's misdeal (the deal's faults, the redeal) are one;
- repeats of one sensor fault (a SYSTEM alert of one rule at the same seats) are one incident across hands
  for as long as it is not resolved or dismissed.

Each incident has a severity (the highest of its alerts: violation > advisory > system), a state (open,
acknowledged, resolved, dismissed) set by the floor over ``review/<user>``, and its evidence (the leading
alert's). ``notify`` is true on the incident's first revision and when a later alert raises its severity
(escalation), never for the repeats in between, so a console rings once per incident.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from tablewatch.alerts import payloads as pl

IncidentState = Literal["open", "acknowledged", "resolved", "dismissed"]
ReviewAction = Literal["acknowledge", "resolve", "dismiss", "reopen", "keep", "release", "export"]
SEVERITY_RANK = {"system": 0, "advisory": 1, "violation": 2}
# The misdeal check's rules (rules/checks/misdeal.py): the deal's faults and the redeal are one incident of the hand.
MISDEAL_RULES = ("TDA-22A", "TDA-22C", "HOUSE-002-2.5")
KEEP_INCIDENTS = 1000  # incidents remembered for reviews; older ones can't be revised any more
REVIEW_LOG = 20  # reviews kept on an incident (the archive keeps every revision)
ENDING: frozenset[IncidentState] = frozenset({"resolved", "dismissed"})
STATE_AFTER: dict[str, IncidentState] = {"acknowledge": "acknowledged", "resolve": "resolved",
                                         "dismiss": "dismissed", "reopen": "open"}


def rule_family(rule_id: str) -> str:
    """``TDA-22A(7)`` -> ``TDA-22A``: the catalogue entry, without the sub-case."""
    return rule_id.split("(")[0]


def incident_key(alert: pl.AlertPayload) -> tuple[object, ...]:
    """What makes two alerts one incident (see the module's docstring)."""
    family = rule_family(alert["rule_id"])
    if alert["severity"] == "system":
        return ("system", family, tuple(alert["seats"]))
    if family in MISDEAL_RULES:
        return ("misdeal", alert["hand_no"])
    return ("hand", alert["hand_no"], family)


class ReviewError(ValueError):
    """A review the table can't apply; the message says why (logged, counted, and the incident is unchanged)."""


@dataclass
class Review:
    action: ReviewAction
    by: str
    note: str
    time: str

    def as_dict(self) -> pl.ReviewEntry:
        return {"action": self.action, "by": self.by, "note": self.note, "time": self.time}


@dataclass
class Incident:
    ident: str
    key: tuple[object, ...]
    alerts: OrderedDict[str, pl.AlertPayload] = field(default_factory=OrderedDict)  # id -> newest revision
    repeats: int = 0  # alerts folded in, each counted once
    severity: str = "system"
    state: IncidentState = "open"
    keep: bool = False
    reviews: list[Review] = field(default_factory=list)
    bundles: list[str] = field(default_factory=list)  # export bundles written for this incident
    revision: int = -1
    notify: bool = True
    escalated_from: str | None = None
    last: pl.IncidentPayload | None = None  # the newest revision published

    @property
    def lead(self) -> pl.AlertPayload:
        """The alert that speaks for the incident: the first of its highest severity."""
        return max(self.alerts.values(), key=lambda a: SEVERITY_RANK.get(a["severity"], 0))

    @property
    def ended(self) -> bool:
        return self.state in ENDING


class IncidentBook:
    """The incidents of one table, fed its alert revisions (as published) and the floor's reviews."""

    def __init__(self, ctx: pl.Context) -> None:
        self.ctx = ctx
        self._incidents: OrderedDict[str, Incident] = OrderedDict()
        self._open_by_key: dict[tuple[object, ...], str] = {}
        self._by_alert: dict[str, str] = {}

    def __iter__(self) -> Iterator[Incident]:
        return iter(self._incidents.values())

    def get(self, ident: str) -> Incident | None:
        return self._incidents.get(ident)

    def of_alert(self, alert_id: str) -> Incident | None:
        ident = self._by_alert.get(alert_id)
        return self._incidents.get(ident) if ident else None

    def add(self, alert: pl.AlertPayload) -> pl.IncidentPayload:
        """Fold in one alert revision; the incident's revision to publish."""
        incident = self.of_alert(alert["id"])
        if incident is not None:
            incident.alerts[alert["id"]] = alert
            incident.notify = False
            return self._revise(incident, "update")
        key = incident_key(alert)
        incident = self._incidents.get(self._open_by_key.get(key, ""))
        if incident is None or incident.ended:
            return self._open(key, alert)
        incident.alerts[alert["id"]] = alert
        incident.repeats += 1
        self._by_alert[alert["id"]] = incident.ident
        rank = SEVERITY_RANK.get(alert["severity"], 0)
        incident.notify = rank > SEVERITY_RANK[incident.severity]
        incident.escalated_from = incident.severity if incident.notify else None
        incident.severity = max(incident.severity, alert["severity"], key=lambda s: SEVERITY_RANK.get(s, 0))
        return self._revise(incident, "update")

    def review(self, ident: str, action: ReviewAction, *, by: str, note: str, time: str) -> pl.IncidentPayload:
        """Apply the floor's review; ReviewError when it can't be applied (unknown, or a dismissal with no reason)."""
        incident = self._incidents.get(ident)
        if incident is None:
            raise ReviewError(f"incident {ident} is not known here (only the newest {KEEP_INCIDENTS} are kept)")
        if action == "dismiss" and not note.strip():
            raise ReviewError("a dismissal needs a reason in its note")
        if action == "reopen" and not incident.ended:
            raise ReviewError(f"incident {ident} is {incident.state}, not resolved or dismissed")
        was_ended = incident.ended
        if action in STATE_AFTER:
            incident.state = STATE_AFTER[action]
        elif action in ("keep", "release"):
            incident.keep = action == "keep"
        incident.reviews = [*incident.reviews, Review(action, by, note, time)][-REVIEW_LOG:]
        incident.notify, incident.escalated_from = False, None
        if action == "reopen":
            self._open_by_key[incident.key] = ident
        change: pl.ChangeType = "end" if incident.ended and not was_ended else "update"
        return self._revise(incident, change)

    def exported(self, ident: str, bundle: str) -> pl.IncidentPayload:
        incident = self._incidents[ident]
        incident.bundles = [*incident.bundles, bundle]
        incident.notify, incident.escalated_from = False, None
        return self._revise(incident, "update")

    def _payload(self, incident: Incident, change: pl.ChangeType) -> pl.IncidentPayload:
        return pl.incident_payload(self.ctx, ident=incident.ident, change=change, revision=incident.revision,
                                   notify=incident.notify, severity=incident.severity, state=incident.state,
                                   escalated_from=incident.escalated_from, alerts=list(incident.alerts.values()),
                                   lead=incident.lead, repeats=incident.repeats, keep=incident.keep,
                                   reviews=[r.as_dict() for r in incident.reviews], bundles=incident.bundles)

    def open_incidents(self, limit: int) -> list[pl.IncidentPayload]:
        """The newest revisions of the newest ``limit`` incidents not resolved or dismissed."""
        return [i.last for i in self._incidents.values() if not i.ended and i.last is not None][-limit:]

    def _open(self, key: tuple[object, ...], alert: pl.AlertPayload) -> pl.IncidentPayload:
        ident = pl.stable_id("in", self.ctx.site, self.ctx.table, self.ctx.session, alert["id"])
        incident = Incident(ident=ident, key=key, severity=alert["severity"], repeats=1)
        incident.alerts[alert["id"]] = alert
        self._incidents[ident] = incident
        self._open_by_key[key] = ident
        self._by_alert[alert["id"]] = ident
        self._forget_old()
        return self._revise(incident, "new")

    def _revise(self, incident: Incident, change: pl.ChangeType) -> pl.IncidentPayload:
        incident.revision += 1
        incident.last = self._payload(incident, change)
        return incident.last

    def _forget_old(self) -> None:
        while len(self._incidents) > KEEP_INCIDENTS:
            ident, old = self._incidents.popitem(last=False)
            if self._open_by_key.get(old.key) == ident:
                del self._open_by_key[old.key]
            for alert in old.alerts:
                self._by_alert.pop(alert, None)
