"""``tablewatch run`` against the broker of deploy/ as shipped: TLS, per-client passwords and the ACL.

The table runs as a real process from a TOML file; a floor client, itself over TLS with its own password,
sees the table's alert. A password never shows in what the table prints or logs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tablewatch.alerts.acl import Roster, write_password_file
from tablewatch.alerts.config import BrokerConfig
from tablewatch.devices.emulator import ReaderEmulator
from tests.alerts.helpers import Collector
from tests.alerts.secure_broker import make_certificates
from tests.alerts.test_deploy import DEPLOY, deployed_config
from tests.support.mosquitto import Mosquitto, free_port, needs_mosquitto

pytestmark = needs_mosquitto

KNOWN = "E007000000000001"
COUNTERFEIT = "E0FFFFFFFFFFFF01"


@dataclass
class Pit:
    folder: Path
    port: int

    def floor(self) -> BrokerConfig:
        return BrokerConfig(url=f"mqtts://localhost:{self.port}", username="floor-pit-1",
                            password="pw-floor-pit-1", ca_file=self.folder / "ca.crt")


@pytest.fixture(scope="module")
def pit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pit]:
    """The shipped pit broker config, its paths and ports moved into a temporary folder."""
    folder = tmp_path_factory.mktemp("pit")
    make_certificates(folder)
    roster = Roster.model_validate(yaml.safe_load((DEPLOY / "roster.example.yaml").read_text()))
    (folder / "acl").write_text((DEPLOY / "mosquitto" / "acl.example").read_text())
    write_password_file(folder / "passwd", {u.name: f"pw-{u.name}" for u in roster.users})
    port = free_port()
    broker = Mosquitto(folder, port=port, listener=False)
    broker.config = deployed_config(folder, tls_port=port, ws_port=free_port(), plain_port=free_port(),
                                    central_port=free_port())
    broker.start()
    yield Pit(folder, port)
    broker.stop()


class TableProcess:
    """``tablewatch run CONFIG`` as its own process; what it prints is read back while it runs."""

    def __init__(self, config: Path) -> None:
        self.out, self.err = config.with_suffix(".stdout"), config.with_suffix(".stderr")
        env = {**os.environ, "COLUMNS": "400"}  # one status line per line
        with self.out.open("w") as out, self.err.open("w") as err:
            self.process = subprocess.Popen([sys.executable, "-m", "tablewatch", "run", str(config)],
                                            stdout=out, stderr=err, env=env)

    def printed(self) -> str:
        return self.out.read_text() + self.err.read_text()

    def wait_for(self, condition: Callable[[], bool], what: str, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if self.process.poll() is not None:
                raise AssertionError(f"the table exited ({self.process.returncode}) before {what}:\n{self.printed()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} after {timeout} s:\n{self.printed()}")
            time.sleep(0.1)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise


def test_a_table_publishes_its_alert_to_the_floor_over_tls_with_its_credentials(pit: Pit, tmp_path: Path) -> None:
    registry = tmp_path / "registry.csv"
    registry.write_text(f"uid,denomination,chip_set\n{KNOWN},100,house\n")
    password = tmp_path / "table.password"
    password.write_text("pw-table-casino-T01\n")
    with ReaderEmulator({"seat3.stack": 1}, tags={"seat3.stack": [KNOWN]}) as emulator, \
            Collector(pit.floor(), ["tablewatch/casino/+/alert"]) as floor:
        config = tmp_path / "table.toml"
        config.write_text(f"""site = "casino"
table = "T01"
registry = "{registry}"
out = "{tmp_path / 'out'}"
broadcast_delay_s = 30
[[readers]]
url = "{emulator.serve_pty()}"
antennas = {{"seat3.stack" = 1}}
response_timeout = 0.2
[mqtt]
url = "mqtts://localhost:{pit.port}"
username = "table-casino-T01"
password_file = "{password}"
ca_file = "{pit.folder / 'ca.crt'}"
cert_file = "{pit.folder / 'server.crt'}"
key_file = "{pit.folder / 'server.key'}"
""")
        table = TableProcess(config)
        try:
            table.wait_for(lambda: "online | mqtt up" in table.printed(),
                           "status line with the broker up and the reader online")
            emulator.add_tags("seat3.stack", [COUNTERFEIT])
            alert = floor.wait_count("/alert", 1, timeout=60)[0]
        finally:
            code = table.stop()
    assert alert.topic == "tablewatch/casino/T01/alert"
    assert alert.json()["rule_id"] == "TDA-16B" and COUNTERFEIT in alert.json()["observed"]
    assert code == 0, table.printed()
    assert "pw-table-casino-T01" not in table.printed()


def test_a_password_in_the_broker_url_is_never_printed(pit: Pit, tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f"""site = "casino"
table = "T01"
out = "{tmp_path / 'out'}"
[mqtt]
url = "mqtts://table-casino-T01:not-the-password@localhost:{pit.port}"
ca_file = "{pit.folder / 'ca.crt'}"
""")
    table = TableProcess(config)
    try:
        table.wait_for(lambda: "refused the connection" in table.printed() and "mqtt DOWN" in table.printed(),
                       "a warning that the broker refused the table and a status line saying so")
    finally:
        table.stop()
    printed = table.printed()
    assert f"broker mqtts://table-casino-T01:***@localhost:{pit.port}" in printed  # the banner
    assert "not-the-password" not in printed
