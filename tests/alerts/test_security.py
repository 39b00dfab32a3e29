"""The broker set-up of deploy/ against a real mosquitto: TLS, per-client passwords, ACLs, the audit log.

Certificates are made here with the openssl CLI; passwords with mosquitto_passwd; the ACL with
tablewatch.alerts.acl from a roster like deploy/roster.example.yaml. Each denial is shown.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tablewatch.alerts.acl import Roster, User, render_acl, write_password_file
from tablewatch.alerts.broker import BrokerSetup, render_config
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.connection import BrokerError, connect, make_client
from tablewatch.alerts.publisher import Publisher
from tablewatch.events import CardDealt, HandEnded, HandStarted
from tests.alerts.helpers import Collector, violation
from tests.support.mosquitto import Mosquitto, free_port

NOT_AUTHORIZED = 0x87
ROSTER = Roster(users=[
    User(name="table-casino-T01", role="table", site="casino", table="T01"),
    User(name="table-casino-T02", role="table", site="casino", table="T02"),
    User(name="floor-anna", role="floor", site="casino"),
    User(name="surveillance-1", role="surveillance"),
    User(name="tv-1", role="broadcast"),
    User(name="archive-1", role="archive"),
])


@dataclass
class Secure:
    broker: Mosquitto
    ca: Path
    port: int

    def config(self, user: str | None, *, password: str | None = None, ca: Path | None = None,
               scheme: str = "mqtts") -> BrokerConfig:
        return BrokerConfig(url=f"{scheme}://localhost:{self.port}", username=user,
                            password=password if password is not None else (f"pw-{user}" if user else None),
                            ca_file=ca if ca is not None else self.ca, connect_timeout=3)


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certificates(folder: Path) -> None:
    """A CA and a server certificate for localhost / 127.0.0.1 (EC keys: fast to make)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=tablewatch test CA",
            cwd=folder)
    openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost", cwd=folder)
    (folder / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.crt", "-days", "2", "-extfile", "san.ext", cwd=folder)
    # a CA that signed nothing here
    openssl("req", "-x509", *ec, "-keyout", "other.key", "-out", "other-ca.crt", "-days", "2", "-subj", "/CN=other",
            cwd=folder)


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secure]:
    if shutil.which("openssl") is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("openssl and mosquitto_passwd are needed (apt-get install openssl mosquitto)")
    folder = tmp_path_factory.mktemp("secure-broker")
    make_certificates(folder)
    (folder / "acl").write_text(render_acl(ROSTER))
    write_password_file(folder / "passwd", {u.name: f"pw-{u.name}" for u in ROSTER.users})
    port = free_port()
    setup = BrokerSetup(mqtt_port=None, tls_port=port, ca_file=folder / "ca.crt", cert_file=folder / "server.crt",
                        key_file=folder / "server.key", password_file=folder / "passwd", acl_file=folder / "acl")
    with Mosquitto(folder, port=port, listener=False, extra_config=render_config(setup)) as broker:
        yield Secure(broker=broker, ca=folder / "ca.crt", port=port)


def publisher_as(tmp_path: Path, secure: Secure, *, user: str, table: str, **extra: object) -> Publisher:
    config = PublisherConfig(site="casino", table=table, broker=secure.config(user),
                             outbox=OutboxConfig(path=tmp_path / f"{user}-{table}.sqlite"), reconnect_max_s=0.5,
                             **extra)  # type: ignore[arg-type]
    publisher = Publisher(config).start()
    assert publisher.wait_connected(5), publisher.health().problem
    return publisher


def test_tls_with_the_right_ca_and_password_connects(secure: Secure) -> None:
    client = make_client(secure.config("floor-anna"), "floor-ok")
    connect(client, secure.config("floor-anna"))
    assert client.is_connected()
    client.disconnect()
    client.loop_stop()


@pytest.mark.parametrize(("case", "kwargs", "expected"), [
    ("untrusted CA", {"user": "floor-anna", "ca": "other"}, "TLS certificate not trusted"),
    ("wrong password", {"user": "floor-anna", "password": "guess"}, "refused the connection"),
    ("anonymous", {"user": None}, "refused the connection"),
    ("unknown user", {"user": "mallory"}, "refused the connection"),
    ("plain MQTT on the TLS port", {"user": "floor-anna", "scheme": "mqtt", "ca": "none"}, "broker"),
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
    with Collector(secure.config("surveillance-1"), ["tablewatch/casino/+/alert"]) as watch:
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
    users = ["floor-anna", "surveillance-1", "tv-1", "archive-1", "table-casino-T02"]
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
    watchers["tv-1"].wait_count("/broadcast/hand", 1)
    delay = time.monotonic() - sent
    watchers["surveillance-1"].wait_count("/broadcast/hand", 1)
    table.stop()
    watchers["surveillance-1"].wait(lambda: [m.payload for m in watchers["surveillance-1"].on("/status")][-1:]
                                    == [b"offline"], 5, "offline")
    for watcher in watchers.values():
        watcher.stop()
    return Session(received={u: [(m.topic, m.payload) for m in w.messages] for u, w in watchers.items()},
                   broadcast_delay=delay)


def test_surveillance_reads_everything(session: Session) -> None:
    assert session.leaves("surveillance-1") == {"status", "state", "event", "alert", "alerts", "secure/holecards",
                                                "hand", "broadcast/hand"}


def test_floor_reads_alerts_and_state_but_never_hole_cards(session: Session) -> None:
    assert session.leaves("floor-anna") == {"status", "state", "event", "alert", "alerts", "hand"}
    # denied: secure/holecards (cards of the hand in progress) and broadcast/hand
    during = [p for t, p in session.received["floor-anna"] if not t.endswith("/hand")]
    assert not any(b"Qs" in p for p in during)  # the event stream was redacted while the hand was on
    hand = next(p for t, p in session.received["floor-anna"] if t.endswith("/hand"))
    assert json.loads(hand)["hole_cards"] == {"1": ["Qs"]}  # after it ended


def test_broadcast_gets_hands_only_from_broadcast_after_the_delay(session: Session) -> None:
    assert session.leaves("tv-1") == {"status", "broadcast/hand"}  # denied: everything live
    assert session.broadcast_delay >= 0.95


def test_the_archive_reads_hands_and_alerts_only(session: Session) -> None:
    assert session.leaves("archive-1") == {"hand", "alert"}


def test_another_table_reads_nothing_of_this_one(session: Session) -> None:
    assert session.received["table-casino-T02"] == []


def test_the_floor_cannot_forge_alerts(secure: Secure) -> None:
    client = make_client(secure.config("floor-anna"), "floor-forger")
    results: list[int] = []
    client.on_publish = lambda _c, _u, _mid, reason, _p: results.append(reason.value)
    connect(client, secure.config("floor-anna"))
    client.publish("tablewatch/casino/T01/alert", b"{}", qos=1).wait_for_publish(5)
    client.publish("tablewatch/casino/T01/ack", b"{}", qos=1).wait_for_publish(5)  # acks are the floor's
    client.disconnect()
    client.loop_stop()
    assert results[0] == NOT_AUTHORIZED and results[1] < 0x80
    assert "Denied PUBLISH from floor-forger" in secure.broker.log()


def test_audit_log_names_who_subscribed_to_what(secure: Secure) -> None:
    Collector(secure.config("floor-anna"), ["tablewatch/casino/+/alert", "tablewatch/casino/+/secure/#"],
              client_id="floor-anna-audit").start().stop()
    log = secure.broker.log()
    assert "as floor-anna-audit (p5, c1, k15, u'floor-anna')" in log  # client id and user name
    assert "floor-anna-audit 1 tablewatch/casino/+/alert" in log  # each subscription
    assert "floor-anna-audit 1 tablewatch/casino/+/secure/#" in log  # including the refused one
