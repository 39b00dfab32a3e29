"""``tablewatch run`` on real devices: an RFID reader emulator and a dealer console over real pty pairs."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import serial
from click.testing import CliRunner
from rich.console import Console

from tablewatch.devices.emulator import ReaderEmulator
from tablewatch.devices.poller import ReaderConfig
from tablewatch.devices.registry import TagRegistry
from tablewatch.events import Chips, RfidInventory, load_events
from tablewatch.rules.game import GameConfig
from tablewatch.table.cli import run as run_command
from tablewatch.table.config import RunConfig
from tablewatch.table.run import _publisher as start_run_publisher
from tablewatch.table.run import run_table
from tablewatch.table.sources import RfidSource, rfid_chips
from tests.support.floor import AlertListener
from tests.support.mosquitto import Mosquitto

KNOWN = "E007000000000001"
COUNTERFEIT = "E0FFFFFFFFFFFF01"


@pytest.fixture
def console_ports(tmp_path: Path) -> Iterator[tuple[str, str]]:
    a, b = tmp_path / "console-dealer", tmp_path / "console-table"
    socat = subprocess.Popen(["socat", f"pty,raw,echo=0,link={a}", f"pty,raw,echo=0,link={b}"])
    for _ in range(100):
        if a.exists() and b.exists():
            break
        time.sleep(0.02)
    else:
        socat.kill()
        pytest.skip("socat could not make a pty pair (apt-get install socat)")
    yield str(a), str(b)
    socat.kill()
    socat.wait()


def test_a_live_table_reports_a_counterfeit_chip_and_the_dealers_declarations(
        tmp_path: Path, console_ports: tuple[str, str], mqtt_broker: Mosquitto) -> None:
    dealer_end, table_end = console_ports
    registry = tmp_path / "registry.csv"
    registry.write_text(f"uid,denomination,chip_set\n{KNOWN},100,house\n")
    with ReaderEmulator({"seat3.stack": 1}, tags={"seat3.stack": [KNOWN]}) as emulator:
        url = emulator.serve_pty()
        floor = AlertListener(mqtt_broker)
        config = RunConfig(table="T09", game=GameConfig(), registry=registry, console=table_end, out=tmp_path / "out",
                           mqtt=mqtt_broker.url,
                           readers=[{"url": url, "antennas": {"seat3.stack": 1}, "response_timeout": 0.2}])
        dealer = serial.serial_for_url(dealer_end, timeout=0.2)

        def play() -> None:
            time.sleep(0.8)
            emulator.add_tags("seat3.stack", [COUNTERFEIT])
            dealer.write(b"3 raise 600\n")

        threading.Thread(target=play, daemon=True).start()
        with (tmp_path / "console.txt").open("w") as screen:
            pipeline = run_table(config, console=Console(file=screen), duration=2.5, status_every=0.5)
        dealer.close()
    floor.close()
    assert [(a["table"], a["rule_id"]) for a in floor.alerts] == [("T09", "TDA-16B")]
    alerts = load_events((tmp_path / "out" / "alerts.jsonl").read_text())
    events = load_events((tmp_path / "out" / "events.jsonl").read_text())
    assert [a.rule_id for a in alerts] == ["TDA-16B"]
    assert COUNTERFEIT in alerts[0].observed
    declarations = [e for e in events if e.kind == "Declaration"]
    assert [(d.seat, d.word, d.amount) for d in declarations] == [(3, "raise", 600)]
    assert pipeline.stats.output_errors == 0
    assert "online" in (tmp_path / "console.txt").read_text()


def test_a_malformed_config_is_named_and_nothing_runs(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text('table = "T1"\ncamera = "rtsp://x"\n[game]\nbig_blind = -5\n')
    result = CliRunner().invoke(run_command, [str(bad)])
    assert result.exit_code != 0
    assert "camera" in result.output and "big_blind" in result.output


def test_validate_only(tmp_path: Path) -> None:
    good = tmp_path / "table.toml"
    (tmp_path / "registry.csv").write_text("uid,denomination,chip_set\nE004000000000001,100,house\n")
    good.write_text(f'table = "T7"\nregistry = "{tmp_path / "registry.csv"}"\n[[readers]]\nurl = "loop://"\n')
    result = CliRunner().invoke(run_command, [str(good), "--validate"])
    assert result.exit_code == 0, result.output
    assert "valid" in result.output and "T7" in result.output
    no_registry = tmp_path / "no-registry.toml"
    no_registry.write_text('table = "T7"\n[[readers]]\nurl = "loop://"\n')
    result = CliRunner().invoke(run_command, [str(no_registry), "--validate"])
    assert result.exit_code != 0 and "RFID readers need `registry`" in result.output


def test_the_cli_entry_point_exists() -> None:
    out = subprocess.run([sys.executable, "-m", "tablewatch", "run", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "CONFIG_FILE" in out.stdout


def test_fusion_reads_the_chips_every_reader_line_counts_in_a_zone() -> None:
    registry = TagRegistry.generate({100: 10, 1000: 10}, chip_set="t", seed=5)
    lines = [RfidSource(ReaderConfig(url="loop://", antennas={zone: 1}), table="T7", registry=registry,
                        clock=time.monotonic) for zone in ("seat3.stack", "seat4.stack")]
    hundreds, thousands = registry.uids_of(100), registry.uids_of(1000)
    for line, zone, uids in ((lines[0], "seat3.stack", [*hundreds[:4], thousands[0]]),
                             (lines[1], "seat4.stack", thousands[1:3])):
        line.ledger.apply([RfidInventory(ts=0.0, table="T7", source="rfid", antenna=zone, uids=tuple(uids))])
    counted = rfid_chips(lines)
    assert counted is not None
    assert counted("seat3.stack") == Chips.of({100: 4, 1000: 1}) and counted("seat4.stack").value == 2000
    assert rfid_chips([]) is None  # no readers: nothing counts the stacks


def test_a_run_config_delays_the_broadcast_hands(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    config = RunConfig(table="T03", out=tmp_path, mqtt=mqtt_broker.url, broadcast_delay_s=30)
    with ExitStack() as stack:
        _, publisher = start_run_publisher(stack, config)
        assert publisher.config.broadcast_delay_s == 30
