"""The broker set-up of deploy/ against a real mosquitto: TLS, per-client passwords, the shipped ACL, the audit
log. Each denial is shown. The broker (``secure``, tests/alerts/conftest.py) runs deploy/mosquitto/acl.example
with a password for every user of deploy/roster.example.yaml.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.connection import BrokerError, connect, make_client
from tablewatch.events import CardDealt, HandEnded, HandStarted
from tests.alerts.helpers import Collector, violation
from tests.alerts.secure_broker import Secure, publisher_as

NOT_AUTHORIZED = 0x87


def test_tls_with_the_right_ca_and_password_connects(secure: Secure) -> None:
    client = make_client(secure.config("floor-pit-1"), "floor-ok")
    connect(client, secure.config("floor-pit-1"))
    assert client.is_connected()
    client.disconnect()
    client.loop_stop()


@pytest.mark.parametrize(("case", "kwargs", "expected"), [
    ("untrusted CA", {"user": "floor-pit-1", "ca": "other"}, "TLS certificate not trusted"),
    ("wrong password", {"user": "floor-pit-1", "password": "guess"}, "refused the connection"),
    ("anonymous", {"user": None}, "refused the connection"),
    ("unknown user", {"user": "mallory"}, "refused the connection"),
    ("plain MQTT on the TLS port", {"user": "floor-pit-1", "scheme": "mqtt", "ca": "none"}, "broker"),
])
def test_each_bad_connection_is_refused_with_a_reason(secure: Secure, case: str, kwargs: dict[str, object],
                                                      expected: str) -> None:
    ca = kwargs.pop("ca", None)
    if ca == "other":
        kwargs["ca"] = secure.ca.parent / "other-ca.crt"
    config = secure.config(**kwargs)  # type: ignore[arg-type]
    if ca == "none":
        config = config.model_copy(update={"ca_file": None})
    client = make_client(config, f"bad-{case.replace(' ', '-')}")
    with pytest.raises(BrokerError, match=expected):
        connect(client, config)
    client.loop_stop()


def test_a_table_may_publish_only_under_its_own_tree(tmp_path: Path, secure: Secure) -> None:
    with Collector(secure.config("surveillance-room"), ["tablewatch/casino/+/alert"]) as watch:
        honest = publisher_as(tmp_path, secure, user="table-casino-T01", table="T01")
        spoof = publisher_as(tmp_path, secure, user="table-casino-T01", table="T02")  # T01's credentials
        honest.publish_violation(violation(1))
        spoof.publish_violation(violation(2, table="T02"))
        watch.wait_count("/T01/alert", 1)
        deadline = time.monotonic() + 5
        while not (spoof.health().denied >= 1 and spoof.health().backlog == 0) and time.monotonic() < deadline:
            time.sleep(0.05)
        health = spoof.health()
        honest.stop()
        spoof.stop(drain_s=0)
    assert health.denied >= 1 and health.backlog == 0  # refused by PUBACK 0x87, dropped, counted: not retried
    assert watch.on("/T02/alert") == []
    assert "Denied PUBLISH from tablewatch-casino-T02" in secure.broker.log()


@dataclass
class Session:
    """What each role received when subscribed to everything (``tablewatch/#``) during one hand at T01."""

    received: dict[str, list[tuple[str, bytes]]]
    broadcast_delay: float

    def leaves(self, user: str) -> set[str]:
        return {topic.split("/", 3)[3] for topic, _ in self.received[user]}


@pytest.fixture(scope="module")
def session(secure: Secure, tmp_path_factory: pytest.TempPathFactory) -> Session:
    users = ["floor-pit-1", "surveillance-room", "broadcast-tv", "archive-1", "table-casino-T02"]
    watchers = {u: Collector(secure.config(u), ["tablewatch/#"], client_id=f"{u}-all").start() for u in users}
    for watcher in watchers.values():
        assert watcher.granted == [1]  # mosquitto grants the filter; the ACL is applied to each message
    table = publisher_as(tmp_path_factory.mktemp("table"), secure, user="table-casino-T01", table="T01",
                         broadcast_delay_s=1.0)
    table.publish_event(HandStarted(ts=0.0, table="T01", source="sim", hand_no=3, button=1, seats=(1, 2)))
    table.publish_event(CardDealt(ts=0.2, table="T01", source="vision", seat=1, card="Qs"))
    table.publish_violation(violation(1))
    table.publish_event(HandEnded(ts=5.0, table="T01", source="sim", hand_no=3))
    sent = time.monotonic()
    table.publish_hand(3)
    watchers["broadcast-tv"].wait_count("/broadcast/hand", 1)
    delay = time.monotonic() - sent
    watchers["surveillance-room"].wait_count("/broadcast/hand", 1)
    table.stop()
    watchers["surveillance-room"].wait(lambda: [m.payload for m in watchers["surveillance-room"].on("/status")][-1:]
                                    == [b"offline"], 5, "offline")
    for watcher in watchers.values():
        watcher.stop()
    return Session(received={u: [(m.topic, m.payload) for m in w.messages] for u, w in watchers.items()},
                   broadcast_delay=delay)


def test_surveillance_reads_everything(session: Session) -> None:
    assert session.leaves("surveillance-room") == {"status", "state", "event", "alert", "alerts", "incident",
                                                "incidents", "alerting/state", "secure/holecards", "hand",
                                                "broadcast/hand"}


def test_floor_reads_alerts_and_state_but_never_hole_cards(session: Session) -> None:
    assert session.leaves("floor-pit-1") == {"status", "state", "event", "alert", "alerts", "incident", "incidents",
                                          "alerting/state", "hand"}
    # denied: secure/holecards (cards of the hand in progress) and broadcast/hand
    during = [p for t, p in session.received["floor-pit-1"] if not t.endswith("/hand")]
    assert not any(b"Qs" in p for p in during)  # the event stream was redacted while the hand was on
    hand = next(p for t, p in session.received["floor-pit-1"] if t.endswith("/hand"))
    assert json.loads(hand)["hole_cards"] == {"1": ["Qs"]}  # after it ended


def test_broadcast_gets_hands_only_from_broadcast_after_the_delay(session: Session) -> None:
    assert session.leaves("broadcast-tv") == {"status", "broadcast/hand"}  # denied: everything live
    assert session.broadcast_delay >= 0.95


def test_the_archive_reads_hands_alerts_and_incidents_only(session: Session) -> None:
    assert session.leaves("archive-1") == {"hand", "alert", "incident"}


def test_another_table_reads_nothing_of_this_one(session: Session) -> None:
    assert session.received["table-casino-T02"] == []


def test_the_floor_cannot_forge_alerts(secure: Secure) -> None:
    client = make_client(secure.config("floor-pit-1"), "floor-forger")
    results: list[int] = []
    client.on_publish = lambda _c, _u, _mid, reason, _p: results.append(reason.value)
    connect(client, secure.config("floor-pit-1"))
    client.publish("tablewatch/casino/T01/alert", b"{}", qos=1).wait_for_publish(5)
    client.publish("tablewatch/casino/T01/ack/floor-pit-1", b"{}", qos=1).wait_for_publish(5)  # his own acks
    client.disconnect()
    client.loop_stop()
    assert results[0] == NOT_AUTHORIZED and results[1] < 0x80
    assert "Denied PUBLISH from floor-forger" in secure.broker.log()


def test_audit_log_names_who_subscribed_to_what(secure: Secure) -> None:
    Collector(secure.config("floor-pit-1"), ["tablewatch/casino/+/alert", "tablewatch/casino/+/secure/#"],
              client_id="floor-pit-1-audit").start().stop()
    log = secure.broker.log()
    assert "as floor-pit-1-audit (p5, c1, k15, u'floor-pit-1')" in log  # client id and user name
    assert "floor-pit-1-audit 1 tablewatch/casino/+/alert" in log  # each subscription
    assert "floor-pit-1-audit 1 tablewatch/casino/+/secure/#" in log  # including the refused one


def test_an_acknowledgement_names_its_sender_and_no_one_else(tmp_path: Path, secure: Secure) -> None:
    """The acknowledger is the MQTT user the ack's topic ends in; the ACL lets each user write only his own."""
    table = publisher_as(tmp_path, secure, user="table-casino-T01", table="T01")
    acks: list[tuple[str, str]] = []
    table.ack_callbacks.append(lambda alert, by: acks.append((alert, by)))
    with Collector(secure.config("surveillance-room"), ["tablewatch/casino/T01/alert"],
                   client_id="surveillance-acks") as watch:
        ident = table.publish_violation(violation(5))
        watch.wait_count("/alert", 1)
        floor = make_client(secure.config("floor-pit-1"), "floor-spoofer")
        reasons: dict[int, int] = {}  # mid -> PUBACK reason code
        floor.on_publish = lambda _c, _u, mid, reason, _p: reasons.update({mid: reason.value})
        connect(floor, secure.config("floor-pit-1"))
        sent: dict[int, str] = {}

        def ack(topic_user: str | None, by: str) -> None:
            topic = "tablewatch/casino/T01/ack" + (f"/{topic_user}" if topic_user else "")
            body = pl.ack_payload(site="casino", table="T01", alert=ident, by=by, now=time.time())
            info = floor.publish(topic, json.dumps(body), qos=1)
            sent[info.mid] = f"{topic_user}:{by}"
            info.wait_for_publish(5)

        ack(None, "surveillance-room")  # a name in the payload alone
        ack("surveillance-room", "surveillance-room")  # another user's ack topic
        ack("floor-pit-1", "surveillance-room")  # his own topic, another name in the payload
        ack("floor-pit-1", "floor-pit-1")
        revisions = [m.json() for m in watch.wait_count("/alert", 2)]
        floor.disconnect()
        floor.loop_stop()
        table.stop()
    assert {sent[mid]: reason for mid, reason in reasons.items()} == {
        "None:surveillance-room": NOT_AUTHORIZED, "surveillance-room:surveillance-room": NOT_AUTHORIZED,
        "floor-pit-1:surveillance-room": 0, "floor-pit-1:floor-pit-1": 0}
    assert table.acks_refused == 1  # the name in the payload was not its sender's
    assert [(r["status"], r["acknowledged_by"]) for r in revisions] == [("open", None), ("acknowledged", "floor-pit-1")]
    assert acks == [(ident, "floor-pit-1")]
