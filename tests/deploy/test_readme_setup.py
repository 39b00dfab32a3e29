"""The README's "Setting up a table", run as a venue runs it, step by step, with nothing from the shared data:
every `tablewatch` command the section names is run here, paths made local. What a venue brings is made here:
the overhead still is the simulator's (markers on the rail, chips on the tray), the card photos are of a
shipped deck laid on the felt, the reader is the S6350 emulator over TCP."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.cli import cli
from tablewatch.devices import iso15693 as iso
from tablewatch.devices.emulator import ReaderEmulator
from tablewatch.devices.registry import TagRegistry
from tests.alerts.secure_broker import make_certificates
from tests.support.card_photos import photograph_deck
from tests.support.still import overhead_still

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP = README[README.index("## Setting up a table") : README.index("\n## ", README.index("## Setting up a table") + 5)]

# Commands the section names that this test doesn't run, and where they are run.
RUN_ELSEWHERE = {
    "tablewatch floor": "needs a broker: tests/alerts/test_consoles.py",
    "tablewatch web": "needs a broker's password file: tests/alerts/test_webserver.py",
}


def readme_commands() -> list[str]:
    return re.findall(r"`(tablewatch [^`]+)`", SETUP.replace("\n   ", " "))


def _local(command: str, places: dict[str, str]) -> list[str]:
    """The README's command with its paths and placeholders replaced by this test's."""
    for written, here in places.items():
        command = command.replace(written, here)
    return command.split()[1:]


def _tablewatch(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, f"tablewatch {' '.join(args)}:\n{result.output}{result.exception!r}"
    return result.output


def test_every_command_of_the_set_up_section_is_run_here_or_named_elsewhere() -> None:
    named = {" ".join(command.split()[:2]) for command in readme_commands()}
    assert named <= {*RUN_ELSEWHERE, *(" ".join(c.split()[:2]) for c in STEPS)}, named
    assert all(step in readme_commands() for step in STEPS), "a step below is no longer in the README as written"


# The README's commands in its order, as written there.
STEPS = [
    "tablewatch markers --layout oval9 -o markers/",
    "tablewatch calibrate overhead.jpg --layout oval9 --table T01 --denominations 1,5,25,100,500 -o "
    "/etc/tablewatch/T01.profile.toml",
    "tablewatch deck register photos/ -o /etc/tablewatch/venue-deck.png",
    "tablewatch deck list",
    "tablewatch rfid register /dev/ttyUSB0 --registry /etc/tablewatch/registry.csv --denomination 100",
    "tablewatch rfid read PORT --registry …",
    "tablewatch run /etc/tablewatch/T01.toml --validate",
    "tablewatch run /etc/tablewatch/T01.toml",
    "tablewatch stats /var/lib/tablewatch/T01/hands/hands.sqlite --by dealer",
]


@pytest.mark.slow
def test_a_table_set_up_as_the_readme_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make the broker's CA file (apt-get install openssl)")
    monkeypatch.chdir(tmp_path)
    etc = tmp_path / "etc"
    etc.mkdir()
    with ReaderEmulator({"tray": 0}) as reader:
        port = f"socket://127.0.0.1:{reader.serve_tcp()}"
        still = overhead_still(tmp_path / "overhead.png", layout="oval9")
        places = {"/etc/tablewatch": str(etc), "overhead.jpg": str(still),
                  "photos/": str(photograph_deck("anglo_poker", tmp_path / "photos")), "/dev/ttyUSB0": port,
                  "PORT": port, "…": str(etc / "registry.csv"), "/var/lib/tablewatch": str(tmp_path / "var"),
                  "1,5,25,100,500": "1000,500,100,25"}
        steps = iter(STEPS)

        _tablewatch(_local(next(steps), places))  # 1. markers
        assert len(list((tmp_path / "markers").glob("marker-*.svg"))) >= 4

        said = _tablewatch(_local(next(steps), places))  # 2. camera and chip colours
        assert "chip colours: 1000, 500, 100, 25" in said and (etc / "T01.profile.toml").is_file()

        _tablewatch(_local(next(steps), places))  # 3. the venue's deck
        assert (etc / "venue-deck.png").is_file()
        assert "anglo_poker" in _tablewatch(_local(next(steps), places))

        reader.set_tags("tray", iso.make_uids(20, seed=9))  # 4. a tray of hundreds, registered, then read
        assert "20 added as 100" in _tablewatch(_local(next(steps), places))
        assert "tray: 20 tag(s)" in _tablewatch(_local(next(steps), places))
        assert len(TagRegistry.from_csv(etc / "registry.csv")) == 20

    config = _table_config(etc, tmp_path)  # 5. the configuration, checked
    assert str(config) in _tablewatch(_local(next(steps), places)).replace("\n", "")  # a long path is wrapped

    run = [*_local(next(steps), places), "--duration", "3"]  # 6. run: this machine has none of the devices
    result = CliRunner().invoke(cli, run)
    assert result.exit_code == 0, result.output
    assert "table T01 running" in result.output
    said = " ".join(result.output.split())
    assert "Camera offline: camera overhead went offline" in said  # it keeps running and says what is wrong
    assert "/dev/ttyUSB1" in said  # the console line

    said = _tablewatch(_local(next(steps), places))  # 8. the room's figures: no hand was dealt
    assert "0 hands" in said


def _table_config(etc: Path, tmp_path: Path) -> Path:
    """deploy/table.example.toml copied to the table's folder with the venue's files set: the calibrated
    profile, the registered deck, the tag registry, the broker's CA and password files."""
    make_certificates(tmp_path)
    shutil.copy(tmp_path / "ca.crt", etc / "ca.crt")
    (etc / "T01.password").write_text("table-secret\n")
    text = (ROOT / "deploy" / "table.example.toml").read_text(encoding="utf-8")
    text = text.replace("/etc/tablewatch", str(etc)).replace("/var/lib/tablewatch", str(tmp_path / "var"))
    text = text.replace('deck = "anglo_poker"', f'deck = "{etc / "venue-deck.png"}"')
    config = etc / "T01.toml"
    config.write_text(text, encoding="utf-8")
    return config
