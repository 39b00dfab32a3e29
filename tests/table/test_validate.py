"""``tablewatch run --validate`` refuses what ``run`` would trip on: a clear message naming the file and the
problem, a non-zero exit, never a traceback."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.table.cli import run as run_command
from tablewatch.table.config import RunConfig


def alias_bomb() -> str:
    """Nine levels of nine aliases: 9**9 strings once expanded, a few hundred bytes as written."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


CASES = {
    "missing registry": ("table.toml", b'registry = "no-such-registry.csv"\n', "no-such-registry.csv"),
    "http broker": ("table.toml", b'mqtt = "http://x"\n', "http://x"),
    "table id with /": ("table.toml", b'table = "T/1"\n', "can't be an MQTT topic level"),
    "table id with #": ("table.toml", b'table = "T#"\n', "can't be an MQTT topic level"),
    "site id with +": ("table.yaml", b"site: casino+\n", "can't be an MQTT topic level"),
    "binary file": ("table.toml", bytes(range(256)) * 8, "not UTF-8 text"),
    "latin-1 file": ("table.toml", 'table = "Mesa Señor"\n'.encode("latin-1"), "not UTF-8 text"),
    "alias bomb": ("table.yaml", alias_bomb().encode(), "alias bomb"),
    "missing CA file": ("table.toml", b'[mqtt]\nurl = "mqtts://localhost:8883"\nca_file = "no-ca.crt"\n', "no-ca.crt"),
    "dealer with markup": ("table.toml", b'dealer = "<b>Ann</b>"\n', "is not a dealer's name"),
    "unknown hand store": ("table.toml", b'hand_store = "mysql://db/hands"\n', "Unknown hand store URL"),
    "unreachable hand store": ("table.toml", b'hand_store = "postgresql://tw:secret@127.0.0.1:1/hands"\n',
                               "hand_store: Cannot open the PostgreSQL hand store postgresql://tw:***@127.0.0.1:1"),
    "missing password file": ("table.toml", b'[mqtt]\nurl = "mqtt://localhost"\nusername = "t"\n'
                              b'password_file = "no-pw"\n', "no-pw"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_validate_refuses_what_run_would_trip_on(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # relative file names in the configs resolve here, where they don't exist
    name, content, problem = CASES[case]
    config = tmp_path / name
    config.write_bytes(content)
    result = CliRunner().invoke(run_command, [str(config), "--validate"])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert str(config) in result.output and problem in result.output, result.output
    assert "Traceback" not in result.output and len(result.output) < 2000, result.output[:2000]


def test_a_password_in_the_broker_url_is_masked_in_errors(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('mqtt = "http://table-1:hunter2@broker"\n')
    result = CliRunner().invoke(run_command, [str(config), "--validate"])
    assert result.exit_code == 1 and "http://table-1:***@broker" in result.output
    assert "hunter2" not in result.output


def test_a_secure_broker_broadcast_delay_and_event_log_validate(tmp_path: Path) -> None:
    (tmp_path / "pw").write_text("secret\n")
    config = tmp_path / "table.toml"
    config.write_text(f'table = "T01"\nbroadcast_delay_s = 30\n[mqtt]\nurl = "mqtt://localhost:1883"\n'
                      f'username = "table-casino-T01"\npassword_file = "{tmp_path / "pw"}"\n'
                      '[event_log]\nrotate_mb = 100\nkeep_days = 30\n')
    result = CliRunner().invoke(run_command, [str(config), "--validate"])
    assert result.exit_code == 0, result.output
    assert "secret" not in result.output


def test_the_run_config_example_in_deploy_readme_is_a_valid_run_config() -> None:
    readme = (Path(__file__).resolve().parents[2] / "deploy" / "README.md").read_text()
    example = re.search(r"```toml\n(.*?)```", readme, re.S)
    assert example is not None
    config = RunConfig.model_validate(tomllib.loads(example.group(1)))
    assert config.mqtt is not None and config.mqtt.password_file is not None and config.broadcast_delay_s == 1800


def test_an_out_folder_that_cant_be_made_is_named(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file where the out folder would go\n")
    config = tmp_path / "table.toml"
    config.write_text(f'out = "{tmp_path / "taken" / "run"}"\n')
    result = CliRunner().invoke(run_command, [str(config), "--validate"])
    assert result.exit_code == 1 and str(config) in result.output and "not a folder" in result.output, result.output
