"""The publisher against a real mosquitto: delivery, order, schemas, retained state, hole cards, acks."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.evidence import EvidenceRecorder
from tablewatch.alerts.publisher import Publisher
from tablewatch.alerts.secrecy import redact_event
from tablewatch.alerts.state import LiveState
from tablewatch.alerts.topics import TableTopics
from tablewatch.events import (
    BoardCardDealt,
    CardBurned,
    CardDealt,
    HandEnded,
    HandStarted,
    PotGathered,
)
from tests.alerts.helpers import Collector, validate, violation
from tests.support.mosquitto import Mosquitto


def make_publisher(tmp_path: Path, url: str, *, table: str = "T01", recorder: EvidenceRecorder | None = None,
                   **extra: object) -> Publisher:
    config = PublisherConfig(site="casino", table=table, broker=BrokerConfig(url=url, keepalive=5),
                             outbox=OutboxConfig(path=tmp_path / f"outbox-{table}.sqlite"),
                             reconnect_max_s=0.5, **extra)  # type: ignore[arg-type]
    return Publisher(config, session="s1", epoch=1_800_000_000.0, recorder=recorder)


def test_alerts_arrive_in_order_with_valid_payloads(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    broker = BrokerConfig(url=mqtt_broker.url)
    with Collector(broker, ["tablewatch/casino/T01/#"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url).start()
        ids = [publisher.publish_violation(violation(n)) for n in range(30)]
        alerts = sub.wait_count("/alert", 30)
        publisher.stop()
    payloads = [m.json() for m in alerts]
    assert [p["id"] for p in payloads] == ids
    assert len(set(ids)) == 30
    for message, payload in zip(alerts, payloads, strict=True):
        assert message.qos == 1
        validate("alert", payload)
        assert payload["type"] == "new" and payload["msg_id"] == payload["id"] + "/0"
    first = payloads[0]
    assert first["rule_id"] == "TDA-29" and first["seats"] == [3] and first["hand_no"] == 1
    assert first["time"] == "2027-01-15T08:00:00.000Z"  # epoch + ts 0
    assert first["evidence"]["frame_ts"] == [0.0]
    statuses = [m.payload for m in sub.on("/status") if not m.retain]  # (a table an earlier test left offline)
    assert statuses[0] == b"online" and statuses[-1] == b"offline"


def test_same_violation_twice_is_one_alert_with_a_stable_id(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    publisher = make_publisher(tmp_path, mqtt_broker.url)
    first = publisher.publish_violation(violation(7))
    again = publisher.publish_violation(violation(7))
    other_session = Publisher(publisher.config.model_copy(update={"outbox": OutboxConfig(path=tmp_path / "o2")}),
                              session="s1", epoch=publisher.epoch).publish_violation(violation(7))
    assert first == again == other_session  # derived from the content, not from a counter
    queued = [row.topic.rsplit("/", 1)[1] for row in publisher.outbox.after(0, limit=100)]
    assert queued.count("alert") == 1  # one alert; the retained state and open-alerts snapshot beside it


def test_retained_state_and_status_reach_a_late_subscriber(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    publisher = make_publisher(tmp_path, mqtt_broker.url, table="T02").start()
    publisher.publish_event(HandStarted(ts=1.0, table="T02", source="sim", hand_no=41, button=2, seats=(1, 2, 5),
                                        players=((5, "Cy"),)))
    publisher.publish_event(PotGathered(ts=2.0, table="T02", source="sim", value=300))
    for slot, card in enumerate(("Ah", "Kd", "7c")):
        publisher.publish_event(BoardCardDealt(ts=3.0 + slot, table="T02", source="sim", card=card, slot=slot))
    publisher.publish_state(force=True)
    assert publisher.link.drain(5)
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/T02/state",
                                                       "tablewatch/casino/T02/status"]) as late:
        late.wait_count("/state", 1)
        late.wait_count("/status", 1)
    publisher.stop()
    state, status = late.on("/state")[-1], late.on("/status")[-1]
    assert state.retain and status.retain and status.payload == b"online"
    body = state.json()
    validate("state", body)
    assert (body["hand_no"], body["street"], body["board"], body["pot"]) == (41, "flop", ["Ah", "Kd", "7c"], 300)
    assert body["players"] == {"5": "Cy"}
    assert body["monitor"]["connected"] is True and body["monitor"]["problem"] is None


def test_hole_cards_never_reach_the_floor_topics_during_the_hand(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    topics = TableTopics("casino", "T03")
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/T03/#"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url, table="T03").start()
        assert publisher.wait_connected(5)
        publisher.publish_event(HandStarted(ts=1.0, table="T03", source="sim", hand_no=5, button=1, seats=(1, 2)))
        publisher.publish_event(CardDealt(ts=1.1, table="T03", source="vision", seat=1, card="As"))
        publisher.publish_event(CardDealt(ts=1.2, table="T03", source="vision", seat=2, card="Kd"))
        publisher.publish_event(CardBurned(ts=1.3, table="T03", source="vision", card="2c"))
        with pytest.raises(ValueError, match="still in progress"):
            publisher.publish_hand(5)
        publisher.publish_event(HandEnded(ts=9.0, table="T03", source="sim", hand_no=5))
        publisher.publish_hand(5, phh="variant = 'NT'\n", summary={"winner": 1})
        sub.wait_count("/secure/holecards", 2)
        sub.wait_count("/hand", 2)  # hand and broadcast/hand
        publisher.stop()
    floor_topics = [m for m in sub.messages if not m.topic.startswith(topics.base + "/secure/")]
    leaked = [m.topic for m in floor_topics if b'"As"' in m.payload or b'"Kd"' in m.payload or b'"2c"' in m.payload]
    # The only floor-readable message that names them is the hand, published after HandEnded.
    assert leaked == [topics.hand, topics.broadcast_hand]
    events = [m.json() for m in sub.on("/event")]
    for body in events:
        validate("event", body)
    dealt = [e for e in events if e["event"]["type"] in {"CardDealt", "CardBurned"}]
    assert [(e["event"]["card"], e["redacted"]) for e in dealt] == [(None, True)] * 3
    secure = [m.json() for m in sub.on("/secure/holecards")]
    for body in secure:
        validate("holecards", body)
    assert [(s["seat"], s["card"], s["hand_no"]) for s in secure] == [(1, "As", 5), (2, "Kd", 5)]
    hand = sub.on("/hand")[0].json()
    validate("hand", hand)
    assert hand["hand_no"] == 5 and hand["phh"].startswith("variant") and hand["started_ts"] == 1.0


def test_broadcast_gets_the_hand_only_after_the_delay(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/T04/hand",
                                                       "tablewatch/casino/T04/broadcast/hand"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url, table="T04", broadcast_delay_s=1.5).start()
        publisher.publish_event(HandEnded(ts=3.0, table="T04", source="sim", hand_no=8))
        sent = time.monotonic()
        publisher.publish_hand(8)
        sub.wait_count("/T04/hand", 1)
        on_floor = time.monotonic() - sent
        sub.wait_count("/broadcast/hand", 1)
        on_air = time.monotonic() - sent
        publisher.stop()
    assert on_floor < 1.0 <= 1.4 < on_air


def test_floor_acknowledgement_ends_the_alert(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    broker = BrokerConfig(url=mqtt_broker.url)
    with Collector(broker, ["tablewatch/casino/T05/alert"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url, table="T05").start()
        acks: list[tuple[str, str]] = []
        publisher.ack_callbacks.append(lambda alert, by: acks.append((alert, by)))
        ident = publisher.publish_violation(violation(1, table="T05"))
        sub.wait_count("/alert", 1)
        ack = pl.ack_payload(site="casino", table="T05", alert=ident, by="floor-anna", now=time.time())
        validate("ack", ack)
        sub.client.publish("tablewatch/casino/T05/ack/floor-anna", json.dumps(ack), qos=1)
        sub.client.publish("tablewatch/casino/T05/ack/floor-anna", b"not json", qos=1)  # refused with a warning
        revisions = [m.json() for m in sub.wait_count("/alert", 2)]
        publisher.stop()
    assert [(r["type"], r["revision"], r["status"], r["acknowledged_by"]) for r in revisions] == [
        ("new", 0, "open", None), ("end", 1, "acknowledged", "floor-anna")]
    assert acks == [(ident, "floor-anna")]


def test_hand_end_closes_open_alerts_of_that_hand(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/T06/alert"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url, table="T06").start()
        publisher.publish_event(HandStarted(ts=0.5, table="T06", source="sim", hand_no=1, button=1, seats=(1, 3),
                                            players=((1, "Ann Lee"), (3, "Bo Chan"))))
        publisher.publish_event(violation(1, table="T06"))
        publisher.publish_event(HandEnded(ts=5.0, table="T06", source="sim", hand_no=1))
        bodies = [m.json() for m in sub.wait_count("/alert", 2)]
        publisher.stop()
    assert [(b["type"], b["status"]) for b in bodies] == [("new", "open"), ("end", "closed")]
    for body in bodies:
        validate("alert", body)
    assert [b["players"] for b in bodies] == [{"3": "Bo Chan"}] * 2  # the alert's seat's player, as named
    assert bodies[0]["id"] == bodies[1]["id"] and bodies[1]["msg_id"].endswith("/1")


@pytest.mark.parametrize(("event", "hidden"), [
    (CardDealt(ts=1.0, table="T01", source="vision", seat=4, card="Ah"), True),
    (CardDealt(ts=1.0, table="T01", source="vision", seat=4, card="Ah", doubts=(("Ah", "Ad"),)), True),
    (CardDealt(ts=1.0, table="T01", source="vision", seat=4, card="Ah", face_up=True), False),  # exposed: public
    (CardBurned(ts=1.0, table="T01", source="vision", card="2d"), True),
    (BoardCardDealt(ts=1.0, table="T01", source="vision", card="9s", slot=0, face_up=False), True),
    (BoardCardDealt(ts=1.0, table="T01", source="vision", card="9s", slot=0), False),
    (CardDealt(ts=1.0, table="T01", source="vision", seat=4), False),  # identity unknown: nothing to hide
])
def test_redaction_needs_no_hand_started(event: CardDealt | CardBurned | BoardCardDealt, hidden: bool) -> None:
    """A monitor started in the middle of a hand has seen no HandStarted: the cards stay hidden all the same."""
    public, redacted = redact_event(event)
    assert redacted is hidden
    assert (getattr(public, "card", None) is None) is (hidden or event.card is None)
    assert not hidden or not getattr(public, "doubts", ())  # a doubt names the card it doubts


def test_a_throttled_state_change_still_goes_out(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/T08/state"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url, table="T08", state_min_interval_s=0.5).start()
        assert publisher.wait_connected(5)
        publisher.publish_event(HandStarted(ts=1.0, table="T08", source="sim", hand_no=2, button=1, seats=(1, 2)))
        publisher.publish_event(PotGathered(ts=1.1, table="T08", source="sim", value=750))  # within 0.5 s: held
        sub.wait(lambda: any(m.json()["pot"] == 750 for m in sub.on("/state")), 15, "the held state")
        publisher.stop()


def test_a_name_the_schemas_would_refuse_is_left_out_not_the_payload() -> None:
    """Names keyed on the console are one line of at most 40 characters; one from elsewhere (a recording's events)
    that is longer, or has a line break, is left out of the alert and the state, which stay valid."""
    ctx = pl.Context(site="casino", table="T01", session="s", epoch=1_800_000_000.0)
    names = {3: "x" * 41, 5: "Ann\nLee", 6: "Bo"}
    alert = pl.alert_payload(ctx, dataclasses.replace(violation(1), seats=(3, 5, 6)), players=names)
    validate("alert", alert)
    assert alert["players"] == {"6": "Bo"}
    state = LiveState()
    state.apply(HandStarted(ts=0.0, table="T01", source="sim", hand_no=1, button=3, seats=(3, 5, 6),
                            players=tuple(names.items())))
    assert state.as_dict()["players"] == {"6": "Bo"}
