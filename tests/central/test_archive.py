"""Pits bridge into the clustered central tier; the archivers, one durable consumer group, write every alert,
incident revision and hand to PostgreSQL once, in each table's order, and refuse what is not a payload of its topic."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest

from tablewatch.alerts import payloads as pl
from tablewatch.central.cluster import CentralCluster, ClusterStartError, nats_binary
from tests.alerts.helpers import violation
from tests.central.conftest import Archive
from tests.central.room import (
    Traffic,
    archiver_process,
    busy_site,
    mqtt_client,
    new_site,
    pit_broker,
    tables,
)
from tests.support.wait import wait_until


def assert_complete(archive: Archive, site: str, traffic: Traffic, *, resent: bool = False
                    ) -> list[tuple[str, str, int, float, str]]:
    """Every alert and hand the tables sent is archived once, and each table's alerts in the order sent: in the
    order the centre stored them, unless the bridge had to send some again (``resent``: a message whose PUBACK a
    failure lost may be stored after the ones behind it), and always by the table's own clock."""
    rows = archive.alert_rows(site)
    archived = {msg_id for _, msg_id, *_ in rows}
    sent = {msg_id for ids in traffic.sent.values() for msg_id in ids}
    assert sent - archived == set(), f"{len(sent - archived)} alert(s) lost"
    assert len(rows) == len(archived) == len(sent)
    assert archive.hand_ids(site) == traffic.hands
    for table, ids in traffic.sent.items():
        mine = [row for row in rows if row[0] == table]
        assert [msg_id for _, msg_id, _, _, _ in sorted(mine, key=lambda row: row[3])] == ids, f"{table}'s clock"
        if not resent:
            assert [row[1] for row in mine] == ids, f"{table}'s alerts stored out of order"
    return rows


def test_two_archivers_share_the_work_and_archive_each_message_once(tmp_path: Path, central: CentralCluster,
                                                                     archive: Archive) -> None:
    with busy_site(tmp_path, central.nats_urls, archive, bridge_to=central.mqtt_addresses, archivers=2,
                   batch=8) as busy:
        time.sleep(4)
        busy.finish(archive)
    rows = assert_complete(archive, busy.site, busy.traffic)
    assert {row[4] for row in rows} == {"a1", "a2"}  # one consumer group: the cluster spread the messages over both
    revisions: dict[str, list[int]] = {}  # every revision of every incident, once
    for _, incident, revision, _ in archive.incident_rows(busy.site):
        revisions.setdefault(incident, []).append(revision)
    assert len(revisions) >= len(busy.traffic.sent)  # each table's hands had incidents
    assert all(sorted(numbers) == list(range(len(numbers))) for numbers in revisions.values()), revisions
    assert "archived" in (tmp_path / "a1.log").read_text()  # its goodbye, with its counts


def test_hostile_messages_are_refused_once_and_the_rest_archived(tmp_path: Path, central: CentralCluster,
                                                                 archive: Archive) -> None:
    site, other = new_site(), new_site()
    archiver = archiver_process(tmp_path, central.nats_urls, name="a1", site=site, tables=archive.tables).start()
    forged = pl.alert_payload(pl.Context(site=other, table="T01", session="s1", epoch=0.0), violation(1))
    client = mqtt_client(central.mqtt_addresses[0], f"intruder-{site}")
    for payload in (b"\xff not json", b"[" * 100_000, b'{"schema": "tablewatch/alert/1"}', pl.dumps(forged).encode()):
        client.publish(f"tablewatch/{site}/T01/alert", payload, qos=1).wait_for_publish(10)
    pit = pit_broker(tmp_path / "pit", site=site, addresses=central.mqtt_addresses, name=site).start()
    table = tables(tmp_path, pit, site, 1)[0]
    ident = table.publish_violation(violation(1))
    assert table.link.drain(20)
    try:
        wait_until("the table's alert in the archive", lambda: archive.count(site) >= 1, 30)
        time.sleep(4)  # past ack_wait: a refused message would have come back by now
    finally:
        table.stop()
        pit.stop()
        client.loop_stop()
        archiver.stop()
    assert [row[1] for row in archive.alert_rows(site)] == [f"{ident}/0"]
    log = (tmp_path / "a1.log").read_text()
    assert log.count("refused a message") == 4, log  # each once: terminated, never redelivered
    assert "not JSON" in log and "is a required property" in log
    assert f"payload of {other}/T01 on {site}/T01's topic" in log
    assert [(revision, state) for _, _, revision, state in archive.incident_rows(site)] == [(0, "open")]
    assert "archived 2, repeats 0, refused 4" in log  # the alert and its incident


def test_an_archiver_without_its_database_says_so(tmp_path: Path, central: CentralCluster) -> None:
    from tablewatch.central.archiver import main

    code = main(["--nats", ",".join(central.nats_urls), "--dsn", "postgresql://127.0.0.1:1/none"])
    assert code == 1


def test_a_nats_server_older_than_2_10_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = tmp_path / "nats-server"
    old.write_text("#!/bin/sh\necho 'nats-server: v2.9.10'\n")
    old.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))  # the binary beside the interpreter is used
    with pytest.raises(ClusterStartError, match=r"needs 2\.10 or later"):
        nats_binary()


def test_a_site_and_table_with_dots_in_their_names(tmp_path: Path, central: CentralCluster, archive: Archive) -> None:
    site = f"{new_site()}.north"  # NATS writes a dot inside a topic level as // in its subjects
    archiver = archiver_process(tmp_path, central.nats_urls, name="a1", site=site, tables=archive.tables).start()
    alert = pl.alert_payload(pl.Context(site=site, table="T.01", session="s1", epoch=0.0), violation(1))
    client = mqtt_client(central.mqtt_addresses[1], "pit-north")
    try:
        client.publish(f"tablewatch/{site}/T.01/alert", pl.dumps(alert).encode(), qos=1).wait_for_publish(10)
        wait_until("the alert archived", lambda: archive.count(site) >= 1, 30)
    finally:
        client.loop_stop()
        archiver.stop()
    assert [row[:2] for row in archive.alert_rows(site)] == [("T.01", alert["msg_id"])]


def test_an_archiver_started_before_the_central_tier_says_so_and_waits(tmp_path: Path, archive: Archive,
                                                                       central: CentralCluster) -> None:
    later = CentralCluster(tmp_path / "later")
    site = new_site()
    archiver = archiver_process(tmp_path, later.nats_urls, name="early", site=site, tables=archive.tables).launch()
    log = archiver.log
    try:
        wait_until("the archiver to say the centre is away", lambda: "trying again" in log.read_text(), 30)
        with later:
            wait_until("the archiver to bind once the centre is up", lambda: "archiving" in log.read_text(), 60)
            while_away = log.read_text()
            client = mqtt_client(later.mqtt_addresses[0], "pit-early")
            alert = pl.alert_payload(pl.Context(site=site, table="T01", session="s1", epoch=0.0), violation(1))
            client.publish(f"tablewatch/{site}/T01/alert", pl.dumps(alert).encode(), qos=1).wait_for_publish(10)
            wait_until("the alert archived", lambda: archive.count(site) >= 1, 30)
            client.loop_stop()
            archiver.stop()
    finally:
        archiver.kill()
    # said once, not at each of the client's retries twice a second while the centre was away
    assert while_away.count("ERROR archive: the central tier (") == 1


def test_the_first_archiver_has_nats_make_its_streams_so_the_first_bridge_loses_nothing(
        tmp_path: Path, archive: Archive, central: CentralCluster) -> None:
    fresh = CentralCluster(tmp_path / "fresh", make_streams=False)  # a new deployment: no MQTT client came yet
    site = new_site()
    with fresh:
        assert fresh.leader_of() is None  # no stream to keep MQTT messages in
        archiver = archiver_process(tmp_path, fresh.nats_urls, name="first", site=site, tables=archive.tables,
                                    extra=["--mqtt", ",".join(fresh.mqtt_addresses)]).start()
        client = mqtt_client(fresh.mqtt_addresses[2], "pit-first")  # the first bridge, sending at once
        alert = pl.alert_payload(pl.Context(site=site, table="T01", session="s1", epoch=0.0), violation(1))
        client.publish(f"tablewatch/{site}/T01/alert", pl.dumps(alert).encode(), qos=1).wait_for_publish(10)
        try:
            wait_until("the first bridge's first alert archived", lambda: archive.count(site) >= 1, 30)
        finally:
            client.loop_stop()
            archiver.stop()
    assert "had NATS make its MQTT streams" in archiver.log.read_text()


def test_a_port_taken_before_the_cluster_binds_it_means_new_ports(tmp_path: Path, central: CentralCluster) -> None:
    cluster = CentralCluster(tmp_path / "busy")
    taken = int(cluster.mqtt_addresses[0].rsplit(":", 1)[1])
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", taken))
        squatter.listen()
        with cluster:
            assert taken not in [int(a.rsplit(":", 1)[1]) for a in cluster.mqtt_addresses]
            assert cluster.leader_of() is not None
