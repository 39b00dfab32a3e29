"""Chaos at casino scale, each under load from tables publishing through a pit: a central node killed, the pit
cut off from the centre for a minute, an archiver killed mid-batch, the pit broker killed and restarted, the
archive's database away. Each time every alert and hand is archived, once, and each table's alerts in the order
sent by the table's clock; in the order the centre stored them too where the bridge did not have to send again."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tablewatch.alerts.broker import free_port
from tablewatch.central.cluster import CentralCluster
from tests.central.conftest import Archive
from tests.central.room import archiver_process, busy_site
from tests.central.test_archive import assert_complete
from tests.support.wait import wait_until

pytestmark = pytest.mark.slow


def test_kill_9_of_the_node_the_pit_and_the_stream_lean_on(tmp_path: Path, central: CentralCluster,
                                                            archive: Archive) -> None:
    victim = central.leader_of()
    assert victim is not None
    addresses = central.mqtt_addresses[victim:] + central.mqtt_addresses[:victim]  # the bridge starts on it
    try:
        with busy_site(tmp_path, central.nats_urls, archive, bridge_to=addresses, archivers=2) as busy:
            wait_until("traffic reaching the archive", lambda: archive.count(busy.site) >= 30, 30)
            central.kill_node(victim)
            time.sleep(8)  # the cluster elects new leaders; the bridge fails over; the tables go on
            central.start_node(victim)
            busy.finish(archive)
    finally:
        central.start_node(victim)
        central.wait_ready()
    assert_complete(archive, busy.site, busy.traffic, resent=True)


def settled(count: Callable[[], int], quiet_s: float = 3.0) -> int:
    """``count`` once it has not changed for ``quiet_s`` seconds."""
    last = count()
    while True:
        time.sleep(quiet_s)
        now = count()
        if now == last:
            return now
        last = now


class Cut:
    """One socat per target between a client and its server: killed, the client is cut off."""

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
    link = Cut(central.mqtt_addresses)
    link.connect()
    try:
        with busy_site(tmp_path, central.nats_urls, archive, bridge_to=link.addresses, rate_hz=5) as busy:
            wait_until("traffic reaching the archive", lambda: archive.count(busy.site) >= 15, 30)
            link.cut()
            cut_at = time.monotonic()
            before = settled(lambda: archive.count(busy.site))  # what had reached the centre is archived
            time.sleep(max(0.0, 60 - (time.monotonic() - cut_at)))
            assert archive.count(busy.site) == before  # really cut off: nothing reaches the centre any more
            assert busy.traffic.alert_count > before + 100  # while the tables went on
            link.connect()
            busy.finish(archive)
    finally:
        link.cut()
    assert_complete(archive, busy.site, busy.traffic, resent=True)


def test_an_archiver_killed_mid_batch(tmp_path: Path, central: CentralCluster, archive: Archive) -> None:
    with busy_site(tmp_path, central.nats_urls, archive, bridge_to=central.mqtt_addresses, tables_count=4,
                   rate_hz=50, batch=500) as busy:
        # alerts, not hands: the check below is on the alerts' archiver, and a1 may have written hands first
        wait_until("the first batch of alerts archived", lambda: len(archive.alert_rows(busy.site)) > 0, 30)
        busy.archivers[0].kill()  # with a batch fetched and not yet acknowledged: the traffic never lets it idle
        assert "archived" not in (tmp_path / "a1.log").read_text()  # no goodbye: it was killed
        busy.archivers.append(archiver_process(tmp_path, central.nats_urls, name="a2", site=busy.site,
                                              tables=archive.tables, batch=500).start())
        busy.finish(archive)
    rows = assert_complete(archive, busy.site, busy.traffic)
    assert {row[4] for row in rows} == {"a1", "a2"}  # the second took over what the first left


def test_the_pit_broker_killed_and_restarted(tmp_path: Path, central: CentralCluster, archive: Archive) -> None:
    with busy_site(tmp_path, central.nats_urls, archive, bridge_to=central.mqtt_addresses) as busy:
        wait_until("traffic reaching the archive", lambda: archive.count(busy.site) >= 30, 30)
        assert busy.pit.process is not None
        busy.pit.process.kill()  # kill -9: what it acknowledged is on its disk (saved at each change)
        busy.pit.process.wait()
        time.sleep(3)
        busy.pit.start()
        busy.finish(archive)
    assert_complete(archive, busy.site, busy.traffic, resent=True)


def test_the_archive_database_away_for_a_while(tmp_path: Path, central: CentralCluster, archive: Archive) -> None:
    database = Cut(["127.0.0.1:5432"])
    database.connect()
    try:
        with busy_site(tmp_path, central.nats_urls, archive, bridge_to=central.mqtt_addresses,
                       dsn=f"postgresql://{database.addresses[0]}/test") as busy:
            wait_until("traffic reaching the archive", lambda: archive.count(busy.site) >= 15, 30)
            database.cut()
            wait_until("the archiver to notice", lambda: "can't write" in (tmp_path / "a1.log").read_text(), 30)
            time.sleep(5)
            database.connect()
            busy.finish(archive)
            archiver = busy.archivers[0].process
            assert archiver is not None and archiver.poll() is None  # it kept running throughout
    finally:
        database.cut()
    assert_complete(archive, busy.site, busy.traffic)
