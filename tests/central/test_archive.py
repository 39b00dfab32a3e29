"""Pits bridge into the clustered central tier; the archivers, one durable consumer group, write every alert and
hand to PostgreSQL once, in each table's order, and refuse what is not a payload of its topic."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from tablewatch.alerts import payloads as pl
from tablewatch.central.cluster import CentralCluster, ClusterStartError, nats_binary
from tests.alerts.helpers import violation
from tests.central.conftest import Archive
from tests.central.room import ArchiverProcess, Traffic, new_site, pit_broker, tables, wait_until


def assert_complete(archive: Archive, site: str, traffic: Traffic) -> list[tuple[str, str, int, float, str]]:
    """Every alert and hand the tables sent is archived once, and each table's alerts in the order sent."""
    rows = archive.alert_rows(site)
    archived = {msg_id for _, msg_id, *_ in rows}
    sent = {msg_id for ids in traffic.sent.values() for msg_id in ids}
    assert sent - archived == set(), f"{len(sent - archived)} alert(s) lost"
    assert len(rows) == len(archived) == len(sent)
    assert archive.hand_ids(site) == traffic.hands
    for table, ids in traffic.sent.items():
        assert [msg_id for t, msg_id, *_ in rows if t == table] == ids, f"{table}'s alerts out of order"
    return rows


def test_two_archivers_share_the_work_and_archive_each_message_once(tmp_path: Path, central: CentralCluster,
                                                                     archive: Archive) -> None:
    site = new_site()
    archivers = [ArchiverProcess(tmp_path, central.nats_urls, name=f"a{n}", site=site, tables=archive.tables,
                                 batch=8).start() for n in (1, 2)]
    pit = pit_broker(tmp_path / "pit", site=site, addresses=central.mqtt_addresses, name=site).start()
    publishers = tables(tmp_path, pit, site, 3)
    traffic = Traffic(publishers, rate_hz=10).start()
    time.sleep(4)
    traffic.stop()
    for table in publishers:
        assert table.link.drain(20)
    try:
        wait_until(lambda: archive.count(site) >= traffic.alert_count + len(traffic.hands), 60, "the archive")
    finally:
        for table in publishers:
            table.stop()
        for archiver in archivers:
            archiver.stop()
        pit.stop()
    rows = assert_complete(archive, site, traffic)
    by = {row[4] for row in rows}
    assert by == {"a1", "a2"}  # one consumer group: the cluster spread the messages over both
    assert "archived" in (tmp_path / "a1.log").read_text()


def test_hostile_messages_are_refused_once_and_the_rest_archived(tmp_path: Path, central: CentralCluster,
                                                                 archive: Archive) -> None:
    site, other = new_site(), new_site()
    archiver = ArchiverProcess(tmp_path, central.nats_urls, name="a1", site=site, tables=archive.tables).start()
    forged = pl.alert_payload(pl.Context(site=other, table="T01", session="s1", epoch=0.0), violation(1))
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"intruder-{site}", protocol=mqtt.MQTTv311)
    host, port = central.mqtt_addresses[0].split(":")
    client.connect(host, int(port))
    client.loop_start()
    for payload in (b"\xff not json", b"[" * 100_000, b'{"schema": "tablewatch/alert/1"}', pl.dumps(forged).encode()):
        client.publish(f"tablewatch/{site}/T01/alert", payload, qos=1).wait_for_publish(10)
    pit = pit_broker(tmp_path / "pit", site=site, addresses=central.mqtt_addresses, name=site).start()
    table = tables(tmp_path, pit, site, 1)[0]
    ident = table.publish_violation(violation(1))
    assert table.link.drain(20)
    try:
        wait_until(lambda: archive.count(site) >= 1, 30, "the table's alert in the archive")
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
    assert "archived 1, repeats 0, refused 4" in log


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
