"""Incidents and alerting switches through a real mosquitto: the change feed, the retained snapshots, the floor's
reviews and mutes over MQTT, and commands that name someone other than their sender refused."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.bundle import ExportConfig, verify_bundle
from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.evidence import EvidenceConfig, EvidenceRecorder
from tablewatch.alerts.publisher import Publisher
from tablewatch.events import HandEnded, HandStarted, Severity
from tests.alerts.helpers import Collector, validate, violation
from tests.alerts.test_publisher import make_publisher
from tests.support.mosquitto import Mosquitto


def open_ids(snapshot: dict[str, Any]) -> list[str]:
    return [i["id"] for i in snapshot["incidents"]]


def review(sub: Collector, table: str, incident: str, action: str, *, by: str = "floor-anna", note: str = "",
           topic_user: str | None = None) -> None:
    body = pl.review_payload(site="casino", table=table, incident=incident, action=action, by=by, now=time.time(),
                             note=note)
    validate("review", body)
    sub.client.publish(f"tablewatch/casino/{table}/review/{topic_user or by}", json.dumps(body), qos=1)


def switch(sub: Collector, table: str, *, rule: str | None = None, enabled: bool | None = None,
           mute: float | None = None) -> None:
    body = pl.alerting_set_payload(site="casino", table=table, by="floor-anna", now=time.time(), rule_id=rule,
                                   enabled=enabled, mute_for_s=mute)
    validate("alerting-set", body)
    sub.client.publish(f"tablewatch/casino/{table}/alerting/set/floor-anna", json.dumps(body), qos=1)


def test_repeated_alerts_are_one_incident_reviewed_over_mqtt(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/I01/#"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url, table="I01").start()
        for n in range(3):
            publisher.publish_violation(violation(n, table="I01"))  # one rule, one hand, one seat: one incident
        feed = [m.json() for m in sub.wait_count("/incident", 3)]
        ident = feed[0]["id"]
        review(sub, "I01", ident, "dismiss", note="")  # no reason: refused
        review(sub, "I01", ident, "acknowledge", by="floor-bo", topic_user="floor-anna")  # names another: refused
        review(sub, "I01", ident, "acknowledge", note="watching seat 3")
        sub.wait_count("/incident", 4)
        # snapshots are throttled and coalesced: wait for one that shows the open incident before resolving it
        sub.wait(lambda: any(open_ids(m.json()) == [ident] for m in sub.on("/incidents")), 10,
                 "the retained snapshot with the open incident")
        review(sub, "I01", ident, "resolve", note="string raise ruled a call")
        feed = [m.json() for m in sub.wait_count("/incident", 5)]
        sub.wait(lambda: bool(sub.on("/incidents")) and sub.on("/incidents")[-1].json()["incidents"] == [], 10,
                 "the retained snapshot after the resolution")
        publisher.stop()
    for body in feed:
        validate("incident", body)
    assert [(f["type"], f["notify"], f["state"], f["count"]) for f in feed] == [
        ("new", True, "open", 1), ("update", False, "open", 2), ("update", False, "open", 3),
        ("update", False, "acknowledged", 3), ("end", False, "resolved", 3)]
    assert [(r["action"], r["by"], r["note"]) for r in feed[-1]["reviews"]] == [
        ("acknowledge", "floor-anna", "watching seat 3"), ("resolve", "floor-anna", "string raise ruled a call")]
    assert publisher.commands_refused == 2
    snapshots = [m.json() for m in sub.on("/incidents")]
    for body in snapshots:
        validate("incidents", body)
    assert all(open_ids(body) in ([], [ident]) for body in snapshots)
    assert any(open_ids(body) == [ident] for body in snapshots) and open_ids(snapshots[-1]) == []


def test_a_muted_rule_is_archived_but_opens_no_incident(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/I02/#"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url, table="I02").start()
        sub.wait_count("/alerting/state", 1)
        switch(sub, "I02", rule="TDA-29", mute=600)
        sub.wait(lambda: any(m.json()["rules"] for m in sub.on("/alerting/state")), 10, "the muted rule's state")
        publisher.publish_violation(violation(1, table="I02"))
        other = violation(2, table="I02", hand_no=2)
        publisher.publish_violation(other.__class__(**{**other.__dict__, "rule_id": "TDA-16B"}))
        alerts = [m.json() for m in sub.wait_count("/alert", 2)]
        incidents = [m.json() for m in sub.wait_count("/incident", 1)]
        switch(sub, "I02", enabled=False)
        sub.wait(lambda: not sub.on("/alerting/state")[-1].json()["enabled"], 10, "the table switched off")
        publisher.stop()
    assert [(a["rule_id"], a.get("muted", False)) for a in alerts] == [("TDA-29", True), ("TDA-16B", False)]
    assert [i["rule_id"] for i in incidents] == ["TDA-16B"]
    states = [m.json() for m in sub.on("/alerting/state")]
    for body in states:
        validate("alerting", body)
    assert states[-1]["rules"]["TDA-29"]["muted_until"] is not None and states[-1]["suppressed"] == {"TDA-29": 1}
    again = make_publisher(tmp_path, mqtt_broker.url, table="I02")  # the switches are kept over a restart
    assert not again.switches.allows("TDA-16B", time.time()) and again.switches.changed_by == "floor-anna"


def test_an_advisory_escalated_by_a_violation_rings_again(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/I03/incident"]) as sub:
        publisher: Publisher = make_publisher(tmp_path, mqtt_broker.url, table="I03").start()
        base = violation(1, table="I03")
        for n, severity in enumerate((Severity.ADVISORY, Severity.ADVISORY, Severity.VIOLATION)):
            publisher.publish_violation(base.__class__(**{**base.__dict__, "ts": float(n), "severity": severity}))
        feed = [m.json() for m in sub.wait_count("/incident", 3)]
        publisher.stop()
    assert [(f["severity"], f["notify"], f["escalated_from"]) for f in feed] == [
        ("advisory", True, None), ("advisory", False, None), ("violation", True, "advisory")]


def test_the_floor_keeps_and_exports_an_incidents_case_file(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    offbox = tmp_path / "offbox"
    offbox.mkdir()
    export = ExportConfig(folder=tmp_path / "cases", push_command=["cp", "-r", "{bundle}", str(offbox)])
    recorder = EvidenceRecorder(EvidenceConfig(folder=tmp_path / "evidence", before_s=0.3, after_s=0.3, export=export))
    frame = np.full((120, 160, 3), 60, np.uint8)
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/I04/incident"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url, table="I04", recorder=recorder).start()
        publisher.publish_event(HandStarted(ts=0.0, table="I04", source="console", hand_no=1, button=1, seats=(1, 3)))
        for n in range(6):
            recorder.add_frame("overhead", n / 10, frame)
        alert = publisher.publish_violation(violation(5, table="I04", ts=0.5))
        for n in range(6, 12):
            recorder.add_frame("overhead", n / 10, frame)
        assert recorder.flush(30)
        publisher.publish_event(HandEnded(ts=1.2, table="I04", source="console", hand_no=1))
        publisher.publish_hand(1, phh="variant = 'NT'\n")
        ident = sub.wait_count("/incident", 1)[0].json()["id"]
        review(sub, "I04", ident, "keep", note="case 118")
        review(sub, "I04", ident, "export", note="for the gaming commission")
        sub.wait(lambda: any(m.json()["bundles"] for m in sub.on("/incident")), 30, "the exported revision")
        publisher.stop()
    hand = pl.hand_id(publisher.ctx, 1)  # the hand's recording goes with its incident
    assert publisher.kept is not None and alert in publisher.kept and hand in publisher.kept
    bundle = Path([m.json() for m in sub.on("/incident")][-1]["bundles"][0])
    assert verify_bundle(bundle) == []
    names = {p.name for p in (bundle / "evidence").iterdir()}
    assert names == {f"{alert}-overhead.jpg", f"{alert}-overhead.webm", f"{hand}-overhead.webm"}
    assert json.loads((bundle / "hand.json").read_text())["phh"] == "variant = 'NT'\n"
    assert [a["id"] for a in json.loads((bundle / "alerts.json").read_text())] == [alert]
    assert verify_bundle(offbox / bundle.name) == []  # pushed off the box by the configured command
