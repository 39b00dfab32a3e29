"""One table's publisher: violations, events, finished hands and the live state onto the topic tree.

    publisher = Publisher(PublisherConfig(site="casino", table="T01"), recorder=recorder).start()
    publisher.publish_event(event)          # any tablewatch.events.Event, Violation included
    publisher.publish_hand(12, phh=text)    # after HandEnded
    publisher.stop()

Calls never block on the network: QoS 1 messages go to the SQLite outbox and a link thread delivers
them (see link.py). ``health()`` says whether the broker is reachable, what is wrong, and the backlog.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import paho.mqtt.client as mqtt

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.bundle import BundleError, push_bundle, write_bundle
from tablewatch.alerts.config import PublisherConfig
from tablewatch.alerts.evidence import Box, EvidenceRecorder
from tablewatch.alerts.handclips import HandClip
from tablewatch.alerts.incidents import IncidentBook, ReviewAction, ReviewError
from tablewatch.alerts.link import Link
from tablewatch.alerts.outbox import Outbox
from tablewatch.alerts.retention import KeepList, KeepListError
from tablewatch.alerts.secrecy import HandSecrecy
from tablewatch.alerts.state import LiveState
from tablewatch.alerts.switches import AlertSwitches
from tablewatch.alerts.topics import TableTopics, acknowledger
from tablewatch.events import CardDealt, Event, HandEnded, HandStarted, Violation

log = logging.getLogger(__name__)
KEEP_ALERTS = 2000  # alerts remembered for updates/acks; older ones can't be revised any more
RETAINED_OPEN = 100  # open alerts on the retained ``alerts`` topic (newest kept), and open incidents on ``incidents``
KEEP_HANDS = 200  # finished hands remembered for an incident's export bundle
HAND_CLIP_WAIT_S = 30.0  # an export waits this long for its hand's recording to be written


@dataclass(frozen=True, kw_only=True)
class Health:
    connected: bool
    problem: str | None  # None when all is well; a sentence otherwise
    backlog: int  # QoS 1 messages waiting for the broker
    oldest_s: float
    dropped: int  # thrown away by the outbox cap
    denied: int  # refused by the broker's ACL
    events_dropped: int  # QoS 0 events not sent while disconnected (by design)

    def as_dict(self) -> pl.MonitorHealth:
        return {"connected": self.connected, "backlog": self.backlog, "oldest_s": round(self.oldest_s, 3),
                "dropped": self.dropped, "denied": self.denied, "events_dropped": self.events_dropped,
                "problem": self.problem}


@dataclass
class _Alert:
    violation: Violation
    evidence: pl.Evidence
    players: dict[int, str] = field(default_factory=dict)  # the hand's names when the alert was raised
    revision: int = 0
    ended: bool = False
    acknowledged_by: str | None = None
    payload: pl.AlertPayload | None = None  # the newest revision sent
    redacted: bool = False  # the newest revision hides cards of a hand in play
    muted: bool = False  # raised while its rule or table was muted or off: no incident


class Publisher:
    def __init__(self, config: PublisherConfig, *, recorder: EvidenceRecorder | None = None,
                 session: str | None = None, epoch: float | None = None) -> None:
        self.config = config
        config.broker.resolved_credentials()  # a missing password file fails here, not in the link thread
        self.topics = TableTopics(config.site, config.table)
        self.epoch = time.time() if epoch is None else epoch
        session = session or datetime.fromtimestamp(self.epoch, UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        self.ctx = pl.Context(site=config.site, table=config.table, session=session, epoch=self.epoch)
        self.outbox = Outbox(config.outbox.path, max_rows=config.outbox.max_rows)
        self.link = Link(config.broker, client_id=config.client_id or f"tablewatch-{config.site}-{config.table}",
                         outbox=self.outbox, status_topic=self.topics.status, max_inflight=config.outbox.max_inflight,
                         reconnect_max_s=config.reconnect_max_s)
        self.link.subscriptions[self.topics.acks] = self._on_ack
        self.link.subscriptions[self.topics.reviews] = self._on_review
        self.link.subscriptions[self.topics.alerting_sets] = self._on_alerting_set
        self.link.on_connected = self._on_connected
        self.state = LiveState()
        self.secrecy = HandSecrecy()  # what floor and broadcast may read while a hand is in play
        self.recorder = recorder
        if recorder is not None:
            recorder.on_clip = self._on_clip
        self.kept = KeepList.beside(recorder.config.folder) if recorder is not None else None
        self.ack_callbacks: list[Callable[[str, str], None]] = []
        self.acks_refused = 0  # acknowledgements that were malformed or named someone other than their sender
        self.commands_refused = 0  # reviews and alerting switches refused the same way
        self.incidents = IncidentBook(self.ctx)
        self.switches = AlertSwitches.load(config.alerting_path)
        self.review_callbacks: list[Callable[[pl.IncidentPayload], None]] = []  # after the floor reviewed one
        self._hands: OrderedDict[int, pl.HandPayload] = OrderedDict()  # the newest finished hands, for exports
        self._alerts: OrderedDict[str, _Alert] = OrderedDict()
        self._alerts_by_hand: dict[int | None, list[str]] = {}
        self._redacted: set[str] = set()  # alerts whose full text goes out once their hand is over
        self._hole_cards: dict[int | None, dict[int, list[str]]] = {}  # for the hand payload, after the hand
        self._hand_clips: OrderedDict[int, HandClip] = OrderedDict()  # each ended hand's recording, until published
        self._lock = threading.RLock()  # the camera thread (clips) and the rules thread both revise alerts
        self._state_seq = 0
        self._open_seq = 0
        self._alerts_dirty = False
        self._incidents_dirty = False
        self._switches_seq = 0
        self._state_sent = 0.0
        self._state_dirty = False
        self._state_timer: threading.Timer | None = None
        self._stopped = False

    # --- life cycle ---------------------------------------------------------------------------------

    def start(self) -> Publisher:
        self.link.start()
        self._on_connected()
        return self

    def stop(self, *, drain_s: float = 2.0) -> None:
        """Flush the state, wait up to ``drain_s`` for the outbox to empty, announce ``offline``, close."""
        if self.recorder is not None:
            self.recorder.flush()
        if self._state_timer is not None:
            self._state_timer.cancel()
        if self._state_dirty:
            self.publish_state(force=True)
        if drain_s > 0 and self.link.connected:
            self.link.drain(drain_s)
        self._stopped = True
        self.link.stop()
        self.outbox.close()

    def __enter__(self) -> Publisher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_connected(self, timeout: float) -> bool:
        """True once the broker has accepted us (events at QoS 0 are only sent while connected)."""
        return self.link.wait_connected(timeout)

    def health(self) -> Health:
        backlog = self.outbox.backlog()
        return Health(connected=self.link.connected, problem=self.link.problem, backlog=backlog.rows,
                      oldest_s=backlog.oldest_s, dropped=backlog.dropped, denied=backlog.denied,
                      events_dropped=self.link.events_dropped)

    # --- publishing ---------------------------------------------------------------------------------

    def publish_event(self, event: Event, *, camera: str | None = None, boxes: Sequence[Box] = ()) -> None:
        """Route one event: a Violation becomes an alert; every event goes (redacted) to the event stream;
        hole cards go to ``secure/holecards``; the live state follows."""
        self.secrecy.observe(event)
        if isinstance(event, Violation):
            self.publish_violation(event, camera=camera, boxes=boxes)
        hand_no = self.state.hand_no
        public, redacted = self.secrecy.event(event)
        self.link.publish_now(self.topics.event, pl.dumps(pl.event_payload(self.ctx, public, redacted=redacted)))
        if isinstance(event, CardDealt) and redacted:
            if event.seat is not None and event.card is not None:
                self._hole_cards.setdefault(hand_no, {}).setdefault(event.seat, []).append(event.card)
            self._enqueue(pl.holecards_payload(self.ctx, event, hand_no=hand_no), self.topics.holecards, "holecards")
        self._record_hand(event)
        with self._lock:
            changed = self.state.apply(event)
        if isinstance(event, HandEnded):
            self._end_alerts_of(event.hand_no)
            self._reveal_alerts()
        if changed:
            self.publish_state(force=isinstance(event, HandStarted | HandEnded))

    def _record_hand(self, event: Event) -> None:
        """The recorder follows the hands: each is recorded whole, for the hand view."""
        if self.recorder is None:
            return
        if isinstance(event, HandStarted):
            self.recorder.start_hand(pl.hand_id(self.ctx, event.hand_no), event.ts)
        elif isinstance(event, HandEnded) and (clip := self.recorder.end_hand()) is not None:
            self._hand_clips[event.hand_no] = clip
            while len(self._hand_clips) > KEEP_HANDS:  # void hands are never published
                self._hand_clips.popitem(last=False)

    def publish_violation(self, violation: Violation, *, camera: str | None = None,
                          boxes: Sequence[Box] = (), boxes_size: tuple[int, int] | None = None) -> str:
        """Publish a ``new`` alert (QoS 1 via the outbox) and start its evidence; returns the alert id."""
        ident = pl.alert_id(self.ctx, violation)
        evidence = pl.Evidence(frame_ts=violation.evidence_ts)
        if self.recorder is not None:
            label = f"{violation.rule_id} seats {','.join(map(str, violation.seats)) or '-'}"
            shown = [replace(box, label=self.secrecy.text(box.label, violation.hand_no)) for box in boxes]
            evidence = self.recorder.capture(ident, violation.ts, camera=camera, boxes=shown,
                                             label=self.secrecy.text(label, violation.hand_no),
                                             frame_ts=violation.evidence_ts, boxes_size=boxes_size)
        with self._lock:
            if ident in self._alerts:
                return ident  # the same finding reported twice: one alert
            names = self.state.players if violation.hand_no == self.state.hand_no else {}
            self._alerts[ident] = _Alert(violation=violation, evidence=evidence, players=dict(names))
            self._alerts_by_hand.setdefault(violation.hand_no, []).append(ident)
            self.state.open_alerts.append(ident)
            self._forget_old_alerts()
            self._send_alert(ident, "new")
        self.publish_state()
        return ident

    def update_alert(self, alert: str, *, evidence: pl.Evidence | None = None, end: bool = False,
                     acknowledged_by: str | None = None) -> bool:
        """Publish a new revision (``update``, or ``end``); False when the alert is unknown here."""
        with self._lock:
            entry = self._alerts.get(alert)
            if entry is None:
                return False
            if evidence is not None:
                entry.evidence = evidence
            if acknowledged_by:
                entry.acknowledged_by = acknowledged_by
            change: pl.ChangeType = "end" if (end or acknowledged_by) and not entry.ended else "update"
            entry.ended = entry.ended or change == "end"
            entry.revision += 1
            self._send_alert(alert, change)
            if entry.ended and alert in self.state.open_alerts:
                self.state.open_alerts.remove(alert)
                self._state_dirty = True
        self.publish_state()
        return True

    def publish_hand(self, hand_no: int, *, phh: str | None = None, summary: Mapping[str, object] | None = None,
                     ended_ts: float | None = None, started_ts: float | None = None) -> str:
        """A finished hand on ``hand`` now and on ``broadcast/hand`` after ``broadcast_delay_s``."""
        if self.state.hand_no == hand_no and self.state.hand_in_progress:
            raise ValueError(f"hand {hand_no} at {self.config.table} is still in progress: its cards can't go out "
                             "before HandEnded")
        ended = ended_ts if ended_ts is not None else (self.state.last_ts or time.time() - self.epoch)
        started = started_ts if started_ts is not None else (
            self.state.started_ts if self.state.hand_no == hand_no else None)
        payload = pl.hand_payload(self.ctx, hand_no=hand_no, started_ts=started, ended_ts=ended, phh=phh,
                                  summary=summary or {}, alert_ids=self._alerts_by_hand.get(hand_no, []),
                                  hole_cards=self._hole_cards.pop(hand_no, {}),
                                  clip=self._hand_clips.pop(hand_no, None))
        self._enqueue(payload, self.topics.hand, "hand")
        self._hands[hand_no] = payload
        while len(self._hands) > KEEP_HANDS:
            self._hands.popitem(last=False)
        later = time.time() + self.config.broadcast_delay_s if self.config.broadcast_delay_s else 0.0
        broadcast: pl.HandPayload = {**payload, "msg_id": payload["msg_id"] + "/b"}
        self._enqueue(broadcast, self.topics.broadcast_hand, "broadcast", not_before=later)
        return payload["msg_id"]

    def publish_state(self, *, force: bool = False) -> None:
        """The retained live state (coalesced in the outbox: only the newest waits).

        Under the lock from the decision to the flag: the network thread publishes a state on every
        (re)connection, and a state built before a held change must not clear that change's dirty flag.
        """
        with self._lock:
            now = time.time()
            wait = self._state_sent + self.config.state_min_interval_s - now
            if not force and wait > 0:
                self._state_dirty = True
                if self._state_timer is None or not self._state_timer.is_alive():
                    self._state_timer = threading.Timer(wait, self._flush_state)  # the last change goes out too
                    self._state_timer.daemon = True
                    self._state_timer.start()
                return
            self._state_seq += 1
            payload = pl.state_payload(self.ctx, seq=self._state_seq, state=self.state.as_dict(),
                                       monitor=self.health().as_dict(), now=now)
            if self._alerts_dirty:
                self._publish_open_alerts(now)
            if self._incidents_dirty:
                self._publish_open_incidents(now)
            self._state_sent, self._state_dirty = now, False
            self._enqueue(payload, self.topics.state, "state", retain=True, coalesce="state")

    # --- internals ----------------------------------------------------------------------------------

    def _flush_state(self) -> None:
        if self._state_dirty and not self._stopped:
            self.publish_state(force=True)

    def _send_alert(self, alert: str, change: pl.ChangeType) -> None:
        entry = self._alerts[alert]
        shown, entry.redacted = self.secrecy.violation(entry.violation)
        if entry.redacted:
            self._redacted.add(alert)
        else:
            self._redacted.discard(alert)
        payload = pl.alert_payload(self.ctx, shown, change=change, revision=entry.revision,
                                   evidence=entry.evidence, acknowledged_by=entry.acknowledged_by,
                                   players=entry.players)
        if change == "new" and not self.switches.allows(entry.violation.rule_id, time.time()):
            entry.muted = True
            self.switches.count_suppressed(entry.violation.rule_id)
            self._publish_switches()
        if entry.muted:
            payload["muted"] = True
        entry.payload = payload
        self._enqueue(payload, self.topics.alert, "alert")
        self._alerts_dirty = True  # the retained snapshot follows with the next state (throttled)
        if not entry.muted:
            self._send_incident(self.incidents.add(payload))

    def _send_incident(self, payload: pl.IncidentPayload) -> None:
        self._enqueue(payload, self.topics.incident, "alert")
        self._incidents_dirty = True

    def _publish_open_incidents(self, now: float) -> None:
        self._open_seq += 1
        open_now = self.incidents.open_incidents(RETAINED_OPEN)
        snapshot = pl.open_incidents_payload(self.ctx, seq=self._open_seq, incidents=open_now, now=now)
        self._enqueue(snapshot, self.topics.open_incidents, "state", retain=True, coalesce="incidents")
        self._incidents_dirty = False

    def _publish_switches(self) -> None:
        with self._lock:
            self._switches_seq += 1
            payload = self.switches.payload(self.ctx, seq=self._switches_seq, now=time.time())
            self._enqueue(payload, self.topics.alerting_state, "state", retain=True, coalesce="alerting")

    def _on_connected(self) -> None:
        self._publish_switches()
        self.publish_state(force=True)

    def _publish_open_alerts(self, now: float) -> None:
        self._open_seq += 1
        open_now = [a.payload for a in self._alerts.values() if not a.ended and a.payload][-RETAINED_OPEN:]
        snapshot = pl.open_alerts_payload(self.ctx, seq=self._open_seq, alerts=open_now, now=now)
        self._enqueue(snapshot, self.topics.open_alerts, "state", retain=True, coalesce="alerts")
        self._alerts_dirty = False

    def _enqueue(self, payload: pl.Payload, topic: str, kind: str, *, retain: bool = False,
                 coalesce: str | None = None, not_before: float = 0.0) -> None:
        self.outbox.put(msg_id=payload["msg_id"], topic=topic, payload=pl.dumps(payload).encode(), kind=kind,
                        retain=retain, coalesce=coalesce, not_before=not_before)
        self.link.wake()

    def _end_alerts_of(self, hand_no: int) -> None:
        for ident in list(self._alerts_by_hand.get(hand_no, [])):
            entry = self._alerts.get(ident)
            if entry is not None and not entry.ended:
                self.update_alert(ident, end=True)

    def _reveal_alerts(self) -> None:
        """A revision with the full text for each alert sent redacted whose hand is now over."""
        with self._lock:
            for ident in [a for a, entry in self._alerts.items()
                          if a in self._redacted and not self.secrecy.secret(entry.violation.hand_no)]:
                self.update_alert(ident)

    def _forget_old_alerts(self) -> None:
        while len(self._alerts) > KEEP_ALERTS:
            ident, entry = self._alerts.popitem(last=False)
            self._redacted.discard(ident)
            hand = self._alerts_by_hand.get(entry.violation.hand_no)
            if hand and ident in hand:
                hand.remove(ident)
            if ident in self.state.open_alerts:
                self.state.open_alerts.remove(ident)

    def _on_clip(self, alert: str, evidence: pl.Evidence) -> None:
        self.update_alert(alert, evidence=evidence)

    def _command(self, message: mqtt.MQTTMessage, schema: str, command: str) -> dict[str, object] | None:
        """A console's command, or None when refused (logged). The sender is the MQTT user the topic ends in (the
        broker's ACL lets each user write only his own); a payload naming someone else, or another table, is
        refused."""
        try:
            by = acknowledger(message.topic, command)
            body = pl.parse(schema, bytes(message.payload))
            if body["by"] != by:
                raise pl.PayloadError(f"it names {body['by']!r} but was sent by {by!r}")
            if (body["site"], body["table"]) != (self.config.site, self.config.table):
                raise pl.PayloadError(f"it is for {body['site']}/{body['table']}")
        except ValueError as exc:  # PayloadError, or a topic that names no user
            if schema == "ack":
                self.acks_refused += 1
            else:
                self.commands_refused += 1
            log.warning("refused a %s on %s: %s", schema, message.topic, exc)
            return None
        return body

    def _on_ack(self, message: mqtt.MQTTMessage) -> None:
        ack = self._command(message, "ack", "ack")
        if ack is None:
            return
        alert, by = str(ack["alert_id"]), str(ack["by"])
        if self.update_alert(alert, acknowledged_by=by):
            for callback in self.ack_callbacks:
                callback(alert, by)

    def _on_review(self, message: mqtt.MQTTMessage) -> None:
        body = self._command(message, "review", "review")
        if body is None:
            return
        review = cast(pl.ReviewPayload, body)
        try:
            with self._lock:
                payload = self.incidents.review(review["incident_id"], cast(ReviewAction, review["action"]),
                                                by=review["by"], note=review["note"],
                                                time=pl.iso_time(time.time()))  # the table's clock, not the sender's
                self._send_incident(payload)
        except ReviewError as exc:
            self.commands_refused += 1
            log.warning("refused a review by %s: %s", review["by"], exc)
            return
        self._after_review(review["incident_id"], review["action"])
        self.publish_state()
        for callback in self.review_callbacks:
            callback(payload)

    def _after_review(self, ident: str, action: str) -> None:
        """What a review asks of the evidence: keep it from retention, let it go, or export the case file."""
        incident = self.incidents.get(ident)
        if incident is None or action not in ("keep", "release", "export"):
            return
        if action == "export":
            threading.Thread(target=self._export, args=(ident,), name=f"export-{ident}", daemon=True).start()
        elif self.kept is None:
            log.warning("incident %s: this table records no evidence to keep", ident)
        else:
            try:
                (self.kept.keep if action == "keep" else self.kept.release)(self._evidence_ids(incident.alerts))
            except (KeepListError, OSError) as exc:
                log.error("incident %s: the keep list could not be changed: %s", ident, exc)

    def _evidence_ids(self, alerts: Mapping[str, pl.AlertPayload]) -> list[str]:
        """The ids the incident's evidence is filed under: its alerts', and their hands' recordings."""
        hands = {a["hand_no"] for a in alerts.values() if a["hand_no"] is not None}
        return [*alerts, *(pl.hand_id(self.ctx, n) for n in sorted(hands))]

    def _export(self, ident: str) -> None:
        """Write the incident's case-file bundle (its alerts, its hand, its stills and clips, a SHA-256 manifest)
        and push it off the box when configured; the incident's next revision names the bundle."""
        with self._lock:
            incident = self.incidents.get(ident)
            if incident is None or incident.last is None:
                return
            alerts = list(incident.alerts.values())
            hand = self._hands.get(incident.last["hand_no"]) if incident.last["hand_no"] is not None else None
            summary = dict(incident.last)
        files = [Path(p) for a in alerts for p in (a["evidence"]["still_path"], a["evidence"]["clip_path"]) if p]
        try:
            if self.recorder is None:
                raise BundleError("this table records no evidence: nothing to export")
            if hand is not None and "clip" in hand:  # written within moments of the hand's end
                if not self.recorder.hands_written(HAND_CLIP_WAIT_S):
                    log.warning("incident %s: the hand's recording is still being written", ident)
                files.append(Path(hand["clip"]["path"]))
            export = self.recorder.config.export
            bundle = write_bundle(export.destination(), incident=summary, alerts=[dict(a) for a in alerts],
                                  hand=dict(hand) if hand else None, evidence_files=files)
            if export.push_command:
                push_bundle(bundle, export.push_command)
        except (BundleError, OSError, ValueError) as exc:
            log.error("incident %s: the case file was not exported: %s", ident, exc)
            return
        log.info("incident %s: case file written to %s", ident, bundle)
        with self._lock:
            self._send_incident(self.incidents.exported(ident, str(bundle)))
        self.publish_state()

    def _on_alerting_set(self, message: mqtt.MQTTMessage) -> None:
        body = self._command(message, "alerting-set", "alerting/set")
        if body is None:
            return
        command = cast(pl.AlertingSetPayload, body)
        try:
            with self._lock:
                self.switches.apply(command, time.time())
        except (ValueError, OSError) as exc:
            self.commands_refused += 1
            log.warning("refused an alerting switch by %s: %s", command["by"], exc)
            return
        log.info("alerting of %s set by %s: rule %s, enabled %s, mute %s s (%s)", self.config.table, command["by"],
                 command["rule_id"] or "(all)", command["enabled"], command["mute_for_s"], command["note"] or "-")
        self._publish_switches()

