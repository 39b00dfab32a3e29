"""Chaos at casino scale, each under load from tables publishing through a pit: a central node killed, the pit
cut off from the centre for a minute, an archiver killed mid-batch, the pit broker killed and restarted.
Each time every alert and hand is archived, once, and each table's alerts in the order sent."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tablewatch.alerts.broker import free_port
from tablewatch.central.cluster import CentralCluster
from tests.central.conftest import Archive
from tests.central.room import ArchiverProcess, Traffic, new_site, pit_broker, tables, wait_until
from tests.central.test_archive import assert_complete

pytestmark = pytest.mark.slow


def finish(archive: Archive, site: str, traffic: Traffic, publishers: list, timeout: float = 120) -> None:
    """Stop the traffic, let every table's outbox empty into the pit and the pit's queue into the archive."""
    traffic.stop()
    for table in publishers:
        assert table.link.drain(60), f"{table.config.table}'s outbox did not empty"
    wait_until(lambda: archive.count(site) >= traffic.alert_count + len(traffic.hands), timeout, "the archive")


def test_kill_9_of_the_node_the_pit_and_the_stream_lean_on(tmp_path: Path, central: CentralCluster,
                                                            archive: Archive) -> None:
    site = new_site()
    victim = central.leader_of()
    assert victim is not None
    addresses = central.mqtt_addresses[victim:] + central.mqtt_addresses[:victim]  # the bridge starts on it
    archivers = [ArchiverProcess(tmp_path, central.nats_urls, name=f"a{n}", site=site, tables=archive.tables)
                 .start() for n in (1, 2)]
    pit = pit_broker(tmp_path / "pit", site=site, addresses=addresses, name=site).start()
    publishers = tables(tmp_path, pit, site, 3)
    traffic = Traffic(publishers, rate_hz=10).start()
    try:
        wait_until(lambda: archive.count(site) >= 30, 30, "traffic reaching the archive")
        central.kill_node(victim)
        time.sleep(8)  # the cluster elects new leaders; the bridge fails over; the tables go on
        central.start_node(victim)
        finish(archive, site, traffic, publishers)
    finally:
        traffic.stop()
        for each in (*publishers, *archivers, pit):
            each.stop()
        central.start_node(victim)
        central.wait_ready()
    assert_complete(archive, site, traffic)


class Cut:
    """One socat per central node between the pit's bridge and the cluster: killed, the pit is cut off."""

    def __init__(self, targets: list[str]) -> None:
        if shutil.which("socat") is None:
            pytest.skip("socat is not installed (apt-get install socat; .ci/run does it)")
        self.routes = [(free_port(), target) for target in targets]
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def addresses(self) -> list[str]:
        return [f"127.0.0.1:{port}" for port, _ in self.routes]

    def connect(self) -> None:
        self.processes = [subprocess.Popen(["socat", f"TCP-LISTEN:{port},bind=127.0.0.1,fork,reuseaddr",
                                            f"TCP:{target}"], start_new_session=True, stderr=subprocess.DEVNULL)
                          for port, target in self.routes]

    def cut(self) -> None:  # the listener and every connection it forked
        for process in self.processes:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        self.processes = []


def test_a_pit_cut_off_from_the_centre_for_a_minute(tmp_path: Path, central: CentralCluster,
                                                   archive: Archive) -> None:
    site = new_site()
    link = Cut(central.mqtt_addresses)
    link.connect()
    archiver = ArchiverProcess(tmp_path, central.nats_urls, name="a1", site=site, tables=archive.tables).start()
    pit = pit_broker(tmp_path / "pit", site=site, addresses=link.addresses, name=site).start()
    publishers = tables(tmp_path, pit, site, 3)
    traffic = Traffic(publishers, rate_hz=5).start()
    try:
        wait_until(lambda: archive.count(site) >= 15, 30, "traffic reaching the archive")
        link.cut()
        time.sleep(5)  # what had reached the centre is archived
        before = archive.count(site)
        time.sleep(55)
        assert archive.count(site) == before  # really cut off: nothing reaches the centre any more
        assert traffic.alert_count > before + 500  # while the tables went on
        link.connect()
        finish(archive, site, traffic, publishers)
    finally:
        traffic.stop()
        link.cut()
        for each in (*publishers, archiver, pit):
            each.stop()
    assert_complete(archive, site, traffic)


def test_an_archiver_killed_mid_batch(tmp_path: Path, central: CentralCluster, archive: Archive) -> None:
    site = new_site()
    first = ArchiverProcess(tmp_path, central.nats_urls, name="a1", site=site, tables=archive.tables,
                            batch=500).start()
    pit = pit_broker(tmp_path / "pit", site=site, addresses=central.mqtt_addresses, name=site).start()
    publishers = tables(tmp_path, pit, site, 4)
    traffic = Traffic(publishers, rate_hz=50).start()
    second = ArchiverProcess(tmp_path, central.nats_urls, name="a2", site=site, tables=archive.tables, batch=500)
    try:
        wait_until(lambda: archive.count(site) > 0, 30, "the first batch archived")
        first.kill()  # with a batch fetched and not yet acknowledged: the traffic never lets it idle
        assert "archived" not in (tmp_path / "a1.log").read_text()  # no goodbye: it was killed
        second.start()
        finish(archive, site, traffic, publishers)
    finally:
        traffic.stop()
        for each in (*publishers, first, second, pit):
            each.stop()
    rows = assert_complete(archive, site, traffic)
    assert {row[4] for row in rows} == {"a1", "a2"}  # the second took over what the first left


def test_the_pit_broker_killed_and_restarted(tmp_path: Path, central: CentralCluster, archive: Archive) -> None:
    site = new_site()
    archiver = ArchiverProcess(tmp_path, central.nats_urls, name="a1", site=site, tables=archive.tables).start()
    pit = pit_broker(tmp_path / "pit", site=site, addresses=central.mqtt_addresses, name=site).start()
    publishers = tables(tmp_path, pit, site, 3)
    traffic = Traffic(publishers, rate_hz=10).start()
    try:
        wait_until(lambda: archive.count(site) >= 30, 30, "traffic reaching the archive")
        assert pit.process is not None
        pit.process.kill()  # kill -9: what it acknowledged is on its disk (saved at each change)
        pit.process.wait()
        time.sleep(3)
        pit.start()
        finish(archive, site, traffic, publishers)
    finally:
        traffic.stop()
        for each in (*publishers, archiver, pit):
            each.stop()
    assert_complete(archive, site, traffic)


def test_the_archive_database_away_for_a_while(tmp_path: Path, central: CentralCluster, archive: Archive) -> None:
    site = new_site()
    database = Cut(["127.0.0.1:5432"])
    database.connect()
    archiver = ArchiverProcess(tmp_path, central.nats_urls, name="a1", site=site, tables=archive.tables,
                               dsn=f"postgresql://{database.addresses[0]}/test").start()
    pit = pit_broker(tmp_path / "pit", site=site, addresses=central.mqtt_addresses, name=site).start()
    publishers = tables(tmp_path, pit, site, 3)
    traffic = Traffic(publishers, rate_hz=10).start()
    try:
        wait_until(lambda: archive.count(site) >= 15, 30, "traffic reaching the archive")
        database.cut()
        wait_until(lambda: "can't write" in (tmp_path / "a1.log").read_text(), 30, "the archiver to notice")
        time.sleep(5)
        database.connect()
        finish(archive, site, traffic, publishers)
    finally:
        traffic.stop()
        database.cut()
        for each in (*publishers, archiver, pit):
            each.stop()
    assert_complete(archive, site, traffic)
    assert archiver.process is not None and archiver.process.returncode == 0  # it kept running throughout
