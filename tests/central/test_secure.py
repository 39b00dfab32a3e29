"""The central tier as deployed: TLS on every listener (MQTT, clients, routes between the nodes), and the roster's
roles as NATS permissions (``tablewatch.central.access``). A pit bridges in with its credentials, an archiver
reads over TLS as its own user, the surveillance room acknowledges through the centre, and each role is held
to its rights."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.broker import BridgeSetup, bridged_broker
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.connection import BrokerError, connect, make_client
from tablewatch.alerts.publisher import Publisher
from tablewatch.central.access import password_variable, render_authorization
from tablewatch.central.cluster import CentralCluster, Secured, make_mqtt_streams
from tablewatch.central.deploy import example_files
from tests.alerts.helpers import Collector, violation
from tests.alerts.secure_broker import DEPLOY, ROSTER, make_certificates
from tests.central.conftest import Archive, skip_without_nats
from tests.central.room import archiver_process
from tests.support.wait import wait_until

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CentralCluster]:
    skip_without_nats()
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make the test certificates")
    folder = tmp_path_factory.mktemp("secured")
    make_certificates(folder)
    secure = Secured(cert_file=folder / "server.crt", key_file=folder / "server.key", ca_file=folder / "ca.crt",
                     authorization=render_authorization(ROSTER),
                     passwords={password_variable(u.name): f"pw-{u.name}" for u in ROSTER.users},
                     init_user=("surveillance-room", "pw-surveillance-room"))
    with CentralCluster(folder / "cluster", secure=secure) as cluster:
        yield cluster


def central(cluster: CentralCluster, user: str, *, password: str | None = None, node: int = 0) -> BrokerConfig:
    port = cluster.mqtt_addresses[node].rsplit(":", 1)[1]
    return BrokerConfig(url=f"mqtts://localhost:{port}", username=user, password=password or f"pw-{user}",
                        ca_file=cluster.secure.ca_file if cluster.secure else None, protocol="3.1.1",
                        connect_timeout=5)


def test_an_archiver_may_connect_over_mqtt_to_have_nats_make_its_streams(secured: CentralCluster) -> None:
    assert secured.secure is not None
    address = f"localhost:{secured.mqtt_addresses[1].rsplit(':', 1)[1]}"
    assert make_mqtt_streams(address, user=("archive-1", "pw-archive-1"), ca_file=secured.secure.ca_file)
    assert not make_mqtt_streams(address, user=("archive-1", "wrong"), ca_file=secured.secure.ca_file, timeout=3)


def test_a_pit_bridges_in_with_tls_and_its_credentials_and_the_roles_hold(tmp_path: Path, secured: CentralCluster,
                                                                          archive: Archive) -> None:
    assert secured.secure is not None
    ca = secured.secure.ca_file
    archiver = archiver_process(tmp_path, secured.nats_urls, name="archive-1", site="casino", tables=archive.tables,
                               extra=["--user", "archive-1", "--password-file", str(_file(tmp_path, "pw-archive-1")),
                                      "--ca-file", str(ca)]).start()
    addresses = [f"localhost:{a.rsplit(':', 1)[1]}" for a in secured.mqtt_addresses]
    pit = bridged_broker(tmp_path / "pit", BridgeSetup(addresses=addresses, site="casino", client_id="bridge-pit-1",
                                                       username="bridge-pit-1", password="pw-bridge-pit-1",
                                                       ca_file=ca)).start()
    room = Collector(central(secured, "surveillance-room"), ["tablewatch/casino/+/alert"]).start()
    floor = Collector(central(secured, "floor-pit-1"), ["tablewatch/casino/+/secure/#"]).start()
    table = Publisher(PublisherConfig(site="casino", table="T01", broker=BrokerConfig(url=pit.url),
                                      outbox=OutboxConfig(path=tmp_path / "t01.sqlite"), reconnect_max_s=0.5)).start()
    acks: list[str] = []
    table.ack_callbacks.append(lambda _alert, by: acks.append(by))
    try:
        ident = table.publish_violation(violation(1))
        alert = room.wait_count("/alert", 1)[0].json()
        ack = pl.ack_payload(site="casino", table="T01", alert=ident, by="surveillance-room", now=time.time())
        room.client.publish("tablewatch/casino/T01/ack/surveillance-room", json.dumps(ack), qos=1)
        wait_until("the centre's ack back at the table", lambda: acks == ["surveillance-room"], 20)
        wait_until("the alert and its acknowledgement archived", lambda: archive.count("casino") >= 2, 30)
        rows = archive.alert_rows("casino")
        second = table.publish_violation(violation(2))  # acknowledged in the floor's name by the room: refused
        forged = pl.ack_payload(site="casino", table="T01", alert=second, by="floor-pit-1", now=time.time())
        room.client.publish("tablewatch/casino/T01/ack/floor-pit-1", json.dumps(forged), qos=1)
        time.sleep(2)
    finally:
        for each in (table, room, floor, archiver, pit):
            each.stop()
    assert alert["id"] == ident
    assert [row[1] for row in rows] == [f"{ident}/0", f"{ident}/1"]  # raised, then acknowledged
    assert acks == ["surveillance-room"]  # the ack in floor-pit-1's name never reached the table
    assert floor.granted != [] and floor.messages == []  # the floor reads no secure/ topic at the centre


def test_a_wrong_password_is_refused_at_the_centre(secured: CentralCluster) -> None:
    wrong = central(secured, "surveillance-room", password="wrong")
    with pytest.raises(BrokerError) as refused:
        connect(make_client(wrong, "intruder"), wrong)
    assert "refused the connection" in str(refused.value)


def _file(folder: Path, text: str) -> Path:
    path = folder / "password"
    path.write_text(text + "\n")
    return path


@pytest.mark.parametrize("name", sorted(example_files()))
def test_the_shipped_central_files_match_their_renderer(name: str) -> None:
    assert (DEPLOY / name).read_text() == example_files()[name], (
        f"deploy/{name} is stale: run python -m tablewatch.central.deploy deploy")


def test_a_client_id_with_a_dot_is_taken_at_the_centre(secured: CentralCluster) -> None:
    room = central(secured, "surveillance-room")
    client = make_client(room, "tablewatch-floor-j.doe-1")  # NATS refuses a dot in an MQTT client id
    connect(client, room)
    assert client.is_connected()
    client.disconnect()
    client.loop_stop()
